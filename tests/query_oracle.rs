//! Header queries (`query/EXPR/`) against SCID's own header search (feature `oracle-tests`;
//! needs Debian's `scid` 4.7.4 in /usr/games).
//!
//! A database made by SCID itself (`sc_base import`) from the Najdorf games and the
//! edge-case files of tests/data; for each query of [`QUERIES`], the games of the query's
//! folder (`query/EXPR/games/`, read through the tree without a mount) and its `count` equal
//! what `sc_search header -filter RESET ARGS` leaves in SCID's filter, ARGS being the same
//! conditions written as SCID's options (docs/guide/searching.md says which match which).
//! Range bounds are ratings, dates and ECO codes the games have, so a bound off by one shows.
#![cfg(feature = "oracle-tests")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{vfs_at as at, vfs_game_numbers as game_numbers};
use gamefs::vfs::{Vfs, VfsOptions};

/// (gamefs query, SCID's `sc_search header` arguments as a Tcl list)
const QUERIES: &[(&str, &str)] = &[
    ("white=kasparov", "-white kasparov"),
    ("black=anand", "-black anand"),
    ("player=fischer", "-player fischer"),
    ("player=SPASSKY%2Cboris", "-player SPASSKY,boris"),
    ("player=spassky%2C%20b", "-player {spassky, b}"),
    ("black==Kasparov%2C%20Gary", r#"-black {"Kasparov, Gary"}"#),
    ("black==kasparov%2C%20gary", r#"-black {"kasparov, gary"}"#),
    ("player=an", "-player an"),
    (
        "white=stockfish+houdini",
        "-white stockfish -white| houdini",
    ),
    ("event=london", "-event london"),
    ("event!=open", "-event! open"),
    ("site=ind+eng", "-site ind -site| eng"),
    ("round=6", "-round 6"),
    ("welo=2660", "-welo 2660"),
    ("welo=2503-2604", "-welo {2503 2604}"),
    ("belo=2500-2534", "-belo {2500 2534}"),
    ("belo=-2500", "-belo {0 2500}"),
    ("welo=2700-", "-welo {2700 9999}"),
    ("elo=2534-2785", "-elo {2534 2785}"),
    ("anyelo=2785-3182", "-welo {2785 3182} -belo| {2785 3182}"),
    ("date=2012", "-date {2012.??.?? 2012.12.31}"),
    ("year=1990-2011", "-date {1990.??.?? 2011.12.31}"),
    (
        "date=2012.07.31-2012.11.30",
        "-date {2012.07.31 2012.11.30}",
    ),
    ("date=2012.11-2012.12.02", "-date {2012.11.?? 2012.12.02}"),
    // Not `{0 1995.12.31}`: SCID reads a date without dots on to the next dots (year 0,
    // month 12, day 31), which leaves out the games of no date.
    ("year=-1995", "-date {0000.??.?? 1995.12.31}"),
    ("date=2012.09.01-", "-date {2012.09.01 2047.12.31}"),
    ("result=1-0", "-result 1"),
    ("result=draw+0-1", "-result =0"),
    ("result!=none", "-result! *"),
    ("eco=B90-B99", "-eco {B90 B99}"),
    ("eco=B91-B94", "-eco {B91 B94}"),
    ("eco=B9", "-eco B9"),
    ("eco=-B50", "-eco {0 B50}"),
    ("moves=-40", "-length {0 80}"),
    ("moves=30-60", "-length {59 120}"),
    ("plies=100-", "-length {100 9999}"),
    ("black=kasparov,result=0-1", "-black kasparov -result 0"),
    (
        "player=anand,year=2000-,elo=2700-",
        "-player anand -date {2000.??.?? 2047.12.31} -elo {2700 9999}",
    ),
    (
        "event=open,site!=eng+ind",
        "-event open -site! eng -site! ind",
    ),
    (
        "eco=B90-B99,moves=-30,result=1-0+0-1",
        "-eco {B90 B99} -length {0 60} -result 10",
    ),
    ("white=carlsen", "-white carlsen"),
    ("black!=kasparov", "-black! kasparov"),
    ("event=ch", "-event ch"),
    ("round=1", "-round 1"),
    ("result=draw", "-result ="),
    ("elo=-2400", "-elo {0 2400}"),
    ("moves=41-", "-length {81 9999}"),
    ("welo=2700-,belo=-2600", "-welo {2700 9999} -belo {0 2600}"),
    ("player=anand,result=draw", "-player anand -result ="),
    (
        "eco=B96-B99,year=2000-",
        "-eco {B96 B99} -date {2000.??.?? 2047.12.31}",
    ),
];

/// A database made by SCID itself from the Najdorf games and the edge-case files.
fn scid_made_database(dir: &Path) -> PathBuf {
    let mut pgns = vec![common::repo().join("tests/data/najdorf/najdorf.pgn")];
    pgns.extend(common::data_pgns());
    common::scid_import(dir, "scid", &pgns)
}

/// What SCID's own search answers for a line of [`scid_answers`].
struct ScidAnswer {
    /// How many games its filter holds.
    count: usize,
    /// The games (1-based), ascending.
    games: Vec<u32>,
    /// For a material search, the FEN of each game where the search found it (where SCID
    /// loads it), in the games' order.
    fens: Vec<String>,
}

/// What SCID's own search leaves in its filter for each line of `lines` (header search
/// arguments, or `material` and material search arguments, tests/oracle/query_scid.tcl), in
/// the lines' order.
fn scid_answers<'a>(
    dir: &tempfile::TempDir,
    base: &Path,
    lines: impl Iterator<Item = &'a str>,
) -> Vec<ScidAnswer> {
    let lines: Vec<&str> = lines.collect();
    let query_file = dir.path().join("queries.txt");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&query_file, text).unwrap();
    let scid = common::run(
        Command::new("/usr/games/tkscid")
            .arg(common::repo().join("tests/oracle/query_scid.tcl"))
            .arg(base)
            .arg(&query_file),
    );
    let scid = String::from_utf8_lossy(&scid.stdout);
    let answers: Vec<ScidAnswer> = scid
        .split("@@ ")
        .skip(1)
        .map(|section| {
            let field = |name: &str| {
                section
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .unwrap_or_else(|| panic!("no {name} in {section}"))
                    .trim()
                    .to_owned()
            };
            let games = field("games:")
                .split_whitespace()
                .map(|n| n.parse().unwrap())
                .collect();
            let fens = section
                .lines()
                .filter_map(|l| l.strip_prefix("fen: "))
                .map(|fen| fen.trim().to_owned())
                .collect();
            ScidAnswer {
                count: field("count:").parse().unwrap(),
                games,
                fens,
            }
        })
        .collect();
    assert_eq!(
        answers.len(),
        lines.len(),
        "SCID answered every line:\n{scid}"
    );
    answers
}

#[test]
fn query_folders_hold_the_games_scids_header_search_finds() {
    let dir = common::work_dir("queries");
    let base = scid_made_database(dir.path());
    let coll = gamefs::collection::open(&base, &gamefs::store::OpenOptions::default()).unwrap();
    let vfs = Vfs::new(coll, VfsOptions::default());

    let answers = scid_answers(&dir, &base, QUERIES.iter().map(|(_, scid)| *scid));
    let total = vfs.collection().count() as usize;
    let mut sizes = Vec::new();
    for ((query, args), ScidAnswer { count, games, .. }) in QUERIES.iter().zip(&answers) {
        let folder = format!("query/{query}");
        let ours = game_numbers(&vfs, &format!("{folder}/games"));
        assert_eq!(&ours, games, "{query} (SCID: {args})");
        let told = vfs
            .read(at(&vfs, &format!("{folder}/count")), 0, 64)
            .unwrap();
        assert_eq!(
            String::from_utf8(told).unwrap(),
            format!("{count}\n"),
            "{query}: count"
        );
        sizes.push(*count);
    }
    // The queries tell games apart: none finds every game, and most find some.
    assert!(sizes.iter().all(|&c| c < total), "{sizes:?} of {total}");
    let some = sizes.iter().filter(|&&c| c > 0).count();
    assert!(some + 2 >= QUERIES.len(), "{sizes:?}");
    eprintln!("{} queries over {total} games: {sizes:?}", QUERIES.len());
}

/// Annotator queries: SCID's header search has none, so the games are those whose
/// annotator, as SCID reads each game's tags, holds the value as SCID matches names.
const ANNOTATOR_QUERIES: [&str; 6] = [
    "annotator=jvr",
    "annotator=lichess.org%2Fbroadcast",
    "annotator=annot%2Ca",
    "annotator==JvR",
    "annotator=jvr+first",
    "annotator!=lichess",
];

#[test]
fn annotator_queries_find_the_games_whose_annotator_scid_reads_so() {
    let dir = common::work_dir("annotators");
    let base = scid_made_database(dir.path());
    let scid = common::run(
        Command::new("/usr/games/tkscid")
            .arg(common::repo().join("tests/oracle/annotators_scid.tcl"))
            .arg(&base),
    );
    let annotators: Vec<(u32, String)> = String::from_utf8_lossy(&scid.stdout)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, a)| (n.parse().unwrap(), a.to_owned()))
        .collect();
    assert!(annotators.len() >= 20, "{annotators:?}");
    let coll = gamefs::collection::open(&base, &gamefs::store::OpenOptions::default()).unwrap();
    let total = coll.count();
    let vfs = Vfs::new(coll, VfsOptions::default());
    // SCID's name match: the value anywhere in the name, case and spaces ignored.
    let squeeze = |s: &str| -> String {
        s.chars()
            .filter(|&c| c != ' ')
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let having = |keep: &dyn Fn(&str) -> bool| -> Vec<u32> {
        annotators
            .iter()
            .filter(|(_, a)| keep(a))
            .map(|&(n, _)| n)
            .collect()
    };
    let holds = |value: &'static str| move |a: &str| squeeze(a).contains(value);
    let expected: [Vec<u32>; 6] = [
        having(&holds("jvr")),
        having(&holds("lichess.org/broadcast")),
        having(&holds("annot,a")),
        having(&|a| a == "JvR"),
        having(&|a| holds("jvr")(a) || holds("first")(a)),
        // Not: every game whose annotator does not hold it, with one or without.
        (1..=total)
            .filter(|n| {
                !annotators
                    .iter()
                    .any(|(m, a)| m == n && holds("lichess")(a))
            })
            .collect(),
    ];
    for (query, want) in ANNOTATOR_QUERIES.iter().zip(&expected) {
        let ours = game_numbers(&vfs, &format!("query/{query}/games"));
        assert_eq!(&ours, want, "{query}");
        assert!(!want.is_empty() && want.len() < total as usize, "{query}");
    }
    eprintln!(
        "annotators: {} games have one; {:?}",
        annotators.len(),
        expected.iter().map(Vec::len).collect::<Vec<_>>()
    );
}

/// SCID's material search arguments for ending `name` (`KRPvKR`): every count's minimum and
/// maximum set to the ending's (colours as named: no `-flip`), one half-move (`-length 1`,
/// its default) anywhere in the game (`-range`'s default).
fn material_args(name: &str) -> String {
    let (white, black) = name.split_once('v').unwrap();
    let mut args = String::from("material");
    for (side, text) in [("w", white), ("b", black)] {
        for (piece, letter) in [("q", 'Q'), ("r", 'R'), ("b", 'B'), ("n", 'N'), ("p", 'P')] {
            let n = text.chars().filter(|&c| c == letter).count();
            args.push_str(&format!(" -{side}{piece} {{{n} {n}}}"));
        }
    }
    args
}

/// Queries on the pieces of endings, any pawns (gamefs `pieces=`), and SCID's material
/// search for them: the pieces as named, pawns from 0 to 8 a side.
const PIECES: [&str; 12] = [
    "KvK", "KRvKR", "KBvKN", "KNvKB", "KBvKB", "KQvKQ", "KQvKR", "KRvKB", "KRRvKRR", "KRBvKRN",
    "KQRvKQR", "KRBvKR",
];

/// Endings no game of the database passes through: SCID finds none, and `endings/` has no
/// link for them.
const ABSENT_ENDINGS: [&str; 3] = ["KQQvKNN", "KBBPPPPPPPPvK", "KvKNNPPPPPPPP"];

/// Check gamefs's entries into an ending (`ours`) against where SCID's material search
/// found the games (`scid`), game by game. SCID keeps a game's matching ply in a byte of its
/// filter, the ply plus one modulo 256 (`filter.set(i, byte(ply + 1))`, searchpos.h), so for
/// an entry 255 half-moves or more into its game it shows another position: such entries
/// are left out (gamefs has the ply whole).
fn same_entries(ours: &[String], scid: &[String], what: &str) {
    assert_eq!(ours.len(), scid.len(), "{what}: entries");
    for (ours, scid) in ours.iter().zip(scid) {
        let fields: Vec<&str> = ours.split(' ').collect();
        let fullmove: u32 = fields[5].parse().unwrap();
        let ply = 2 * (fullmove - 1) + u32::from(fields[1] == "b");
        if ply < 255 {
            assert_eq!(ours, scid, "{what}: entry at ply {ply}");
        }
    }
}

/// The texts of the files of query folder `folder`'s `entries/`, in its order, without their
/// newlines.
fn entry_fens(vfs: &Vfs, folder: &str) -> Vec<String> {
    let mut files = Vec::new();
    vfs.readdir(at(vfs, &format!("{folder}/entries")), 0, &mut |e| {
        if e.name.to_string_lossy().ends_with(".fen") {
            files.push(e.ino);
        }
        false
    })
    .unwrap();
    files
        .into_iter()
        .map(|ino| {
            let text = vfs.read(ino, 0, 1 << 10).unwrap();
            String::from_utf8(text).unwrap().trim_end().to_owned()
        })
        .collect()
}

#[test]
fn ending_folders_hold_the_games_scids_material_search_finds() {
    let dir = common::work_dir("endings");
    let base = scid_made_database(dir.path());
    let coll = gamefs::collection::open(&base, &gamefs::store::OpenOptions::default()).unwrap();
    let options = VfsOptions {
        position_index: Some(dir.path().join("positions")),
        ..VfsOptions::default()
    };
    let vfs = Vfs::new(coll, options);
    vfs.build_positions(2, &std::sync::atomic::AtomicBool::new(false), || ());

    let mut listed = Vec::new();
    vfs.readdir(at(&vfs, "endings"), 0, &mut |e| {
        let name = e.name.to_string_lossy().into_owned();
        if !name.starts_with('.') {
            listed.push(name);
        }
        false
    })
    .unwrap();
    assert!(listed.len() >= 20, "{listed:?}");
    let names: Vec<&str> = listed
        .iter()
        .map(String::as_str)
        .chain(ABSENT_ENDINGS)
        .collect();
    let args: Vec<String> = names.iter().map(|n| material_args(n)).collect();
    let answers = scid_answers(&dir, &base, args.iter().map(String::as_str));
    let mut sizes = Vec::new();
    let mut entries = 0;
    for ((name, args), answer) in names.iter().zip(&args).zip(&answers) {
        let ScidAnswer { count, games, fens } = answer;
        if ABSENT_ENDINGS.contains(name) {
            assert_eq!(*count, 0, "{name} (SCID: {args})");
            let link = vfs.lookup(at(&vfs, "endings"), std::ffi::OsStr::new(name));
            assert!(link.is_err(), "{name}");
            continue;
        }
        let link = vfs.readlink(at(&vfs, &format!("endings/{name}"))).unwrap();
        assert_eq!(link, format!("../query/material={name}").into_bytes());
        let folder = format!("query/material={name}");
        let ours = game_numbers(&vfs, &format!("{folder}/games"));
        assert_eq!(&ours, games, "{name} (SCID: {args})");
        let told = vfs
            .read(at(&vfs, &format!("{folder}/count")), 0, 64)
            .unwrap();
        assert_eq!(String::from_utf8(told).unwrap(), format!("{count}\n"));
        // Each game's entry into the ending is where SCID's search found it.
        let ours = entry_fens(&vfs, &folder);
        same_entries(&ours, fens, &format!("{name} (SCID: {args})"));
        entries += ours.len();
        sizes.push((*name, *count));
    }
    eprintln!("{} endings, {entries} entries: {sizes:?}", sizes.len());

    let args: Vec<String> = PIECES
        .iter()
        .map(|n| material_args(n).replace("p {0 0}", "p {0 8}"))
        .collect();
    let answers = scid_answers(&dir, &base, args.iter().map(String::as_str));
    let mut sizes = Vec::new();
    for ((name, args), answer) in PIECES.iter().zip(&args).zip(&answers) {
        let ScidAnswer { count, games, fens } = answer;
        let folder = format!("query/pieces={name}");
        let ours = game_numbers(&vfs, &format!("{folder}/games"));
        assert_eq!(&ours, games, "pieces={name} (SCID: {args})");
        same_entries(
            &entry_fens(&vfs, &folder),
            fens,
            &format!("pieces={name} (SCID: {args})"),
        );
        sizes.push(*count);
    }
    assert!(sizes.iter().filter(|&&c| c > 0).count() >= 8, "{sizes:?}");
    eprintln!("pieces: {sizes:?}");
}
