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
];

/// A database made by SCID itself from the Najdorf games and the edge-case files.
fn scid_made_database(dir: &Path) -> PathBuf {
    let mut pgns = vec![common::repo().join("tests/data/najdorf/najdorf.pgn")];
    pgns.extend(common::data_pgns());
    common::scid_import(dir, "scid", &pgns)
}

#[test]
fn query_folders_hold_the_games_scids_header_search_finds() {
    let dir = common::work_dir("queries");
    let base = scid_made_database(dir.path());
    let coll = gamefs::collection::open(&base, &gamefs::store::OpenOptions::default()).unwrap();
    let vfs = Vfs::new(coll, VfsOptions::default());

    let lines: String = QUERIES
        .iter()
        .map(|(_, scid)| format!("{scid}\n"))
        .collect();
    let query_file = dir.path().join("queries.txt");
    std::fs::write(&query_file, lines).unwrap();
    let scid = common::run(
        Command::new("/usr/games/tkscid")
            .arg(common::repo().join("tests/oracle/query_scid.tcl"))
            .arg(&base)
            .arg(&query_file),
    );
    let scid = String::from_utf8_lossy(&scid.stdout);
    let answers: Vec<(usize, Vec<u32>)> = scid
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
            (field("count:").parse().unwrap(), games)
        })
        .collect();
    assert_eq!(
        answers.len(),
        QUERIES.len(),
        "SCID answered every query:\n{scid}"
    );

    let total = vfs.collection().count() as usize;
    let mut sizes = Vec::new();
    for ((query, args), (count, games)) in QUERIES.iter().zip(&answers) {
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
