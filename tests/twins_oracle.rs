//! `twins/` and `gamefs twins --delete` against SCID's own twin detection (feature
//! `oracle-tests`; needs Debian's `scid` 4.7.4 in /usr/games).
//!
//! A database made by SCID itself (`sc_base import`) from the real games of
//! `tests/data/najdorf/` and part of the real-world corpus, with copies of some games made
//! so that every rule is met: exact copies, a copy under another event, one with the colours
//! swapped, one with a player's name changed past its first four letters or in case, copies
//! cut short (a prefix), one cut short but commented (SCID keeps it), one as long with a
//! variation (SCID keeps it, deletes the other), copies with another site, another month or
//! other moves (no twins), and short games (fewer than 10 half-moves: never twins). SCID's
//! `sc_base duplicates` with its dialog's defaults (`tests/oracle/twins_scid.tcl`) marks the
//! twins it deletes; gamefs must name as many, the same games (of copies alike in all SCID
//! weighs, any one: SCID's choice among them depends on its unstable sort), and `gamefs
//! twins --delete` must mark those.
#![cfg(feature = "oracle-tests")]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use gamefs::collection::Collection;
use gamefs::collection::chess::ChessCollection;
use gamefs::game::ChessGame;
use gamefs::game::{Line, MoveNode};
use gamefs::store::{self, ChessStore};

/// The real games of tests/data/najdorf/.
fn najdorf() -> Vec<ChessGame> {
    let text = std::fs::read(common::repo().join("tests/data/najdorf/najdorf.pgn")).unwrap();
    gamefs::text::pgn_parse::games(&text)
        .filter_map(Result::ok)
        .collect()
}

/// `game` with its main line cut to `plies` half-moves.
fn cut(game: &ChessGame, plies: usize) -> ChessGame {
    let mut g = game.clone();
    g.moves.moves.truncate(plies);
    g
}

/// The copies that meet every rule, after the originals (`games`); what each is named for.
fn copies(games: &[ChessGame]) -> Vec<(&'static str, ChessGame)> {
    // Long games without comments or variations: each copy is judged by what it is made for.
    let long: Vec<&ChessGame> = games
        .iter()
        .filter(|g| g.moves.plies() >= 40 && !has_notes(g))
        .collect();
    let mut out = Vec::new();
    out.push(("exact copy", long[0].clone()));
    let mut g = long[1].clone();
    g.headers.event = "Another event".into();
    out.push(("another event", g));
    let mut g = long[2].clone();
    std::mem::swap(&mut g.headers.white, &mut g.headers.black);
    std::mem::swap(&mut g.headers.white_rating, &mut g.headers.black_rating);
    out.push(("colours swapped", g));
    out.push(("cut short", cut(long[3], 20)));
    out.push(("short copy", cut(long[4], 8)));
    let mut g = cut(long[5], 20);
    g.moves.moves[6].comment = Some("a comment".into());
    out.push(("cut short, commented", g));
    let mut g = long[6].clone();
    let same = g.moves.moves[10].clone();
    g.moves.moves[10].variations.push(Line {
        comment: None,
        moves: vec![MoveNode::new(same.ply)],
    });
    out.push(("as long, with a variation", g));
    let mut g = long[7].clone();
    g.headers.site = "Somewhere else".into();
    out.push(("another site", g));
    let mut g = long[8].clone();
    g.headers.date.month = Some(g.headers.date.month.map_or(5, |m| m % 12 + 1));
    out.push(("another month", g));
    let mut g = long[9].clone();
    g.moves = long[10].moves.clone();
    out.push(("other moves", g));
    out.push(("cut short twice (1)", cut(long[11], 30)));
    out.push(("cut short twice (2)", cut(long[11], 20)));
    let mut g = long[12].clone();
    g.headers.white = format!(
        "{}zzz",
        &g.headers.white.chars().take(4).collect::<String>()
    );
    out.push(("name changed past four letters", g));
    let mut g = long[13].clone();
    g.headers.black = g.headers.black.to_uppercase();
    out.push(("name in capitals", g));
    out.push(("short (1)", cut(long[14], 6)));
    out.push(("short (2)", cut(long[14], 6)));
    for _ in 0..3 {
        out.push(("three more exact copies", long[15].clone()));
    }
    out
}

/// True when `game` has a comment or a variation (SCID never deletes it as a twin).
fn has_notes(game: &ChessGame) -> bool {
    game.moves.comment.is_some()
        || game
            .moves
            .moves
            .iter()
            .any(|m| m.comment.is_some() || !m.variations.is_empty())
}

/// A copy of the SCID database `base` at `to`.
fn copy_database(base: &Path, to: &Path) -> PathBuf {
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(base.with_extension(ext), to.with_extension(ext)).unwrap();
    }
    to.to_path_buf()
}

/// The games marked deleted in the database at `base`.
fn deleted_in(base: &Path) -> Vec<u32> {
    let db = store::open(base, false).unwrap();
    (0..db.game_count()).filter(|&n| db.deleted(n)).collect()
}

/// Each game as SCID's deletion weighs it: its main line, whether it has comments or
/// variations, and its group; games alike in all are one.
fn alike(db: &dyn ChessStore, groups: &[Vec<u32>]) -> HashMap<u32, u32> {
    let mut first_alike: HashMap<(usize, String, bool), u32> = HashMap::new();
    let mut out = HashMap::new();
    for (k, group) in groups.iter().enumerate() {
        for &n in group {
            let game = db.load(n).unwrap();
            let kept = has_notes(&game);
            let line = format!(
                "{:?}",
                game.moves.moves.iter().map(|m| &m.ply).collect::<Vec<_>>()
            );
            let first = *first_alike.entry((k, line, kept)).or_insert(n);
            out.insert(n, first);
        }
    }
    out
}

#[test]
fn twins_and_their_deletion_equal_scids() {
    let dir = common::work_dir("twins");
    let games = najdorf();
    let copies = copies(&games);
    let mut text = String::new();
    for g in games.iter().chain(copies.iter().map(|(_, g)| g)) {
        text.push_str(&gamefs::text::pgn::render(g).unwrap());
        text.push('\n');
    }
    let pgn = dir.path().join("twins.pgn");
    std::fs::write(&pgn, text).unwrap();
    let corpus = common::realworld_corpus();
    let mut pgns = vec![pgn];
    for d in ["tcec", "chessx", "pgn-toys-lichess"] {
        pgns.extend(common::pgn_files(&corpus.join(d)));
    }
    let base = common::scid_import(dir.path(), "scid", &pgns);

    let db = store::open(&base, false).unwrap();
    let coll = ChessCollection::new(db.clone());
    let started = std::time::Instant::now();
    let twins = coll.twins().unwrap();
    eprintln!(
        "gamefs: {} games, {} groups of twins, {} to delete, in {:?}",
        db.game_count(),
        twins.groups().len(),
        twins.to_delete().len(),
        started.elapsed()
    );

    // Every rule met as meant: the copies are games number `first` on.
    let first = games.len() as u32;
    let number = |what: &str| first + copies.iter().position(|(w, _)| *w == what).unwrap() as u32;
    let in_a_group = |n: u32| twins.groups().iter().any(|g| g.contains(&n));
    for what in [
        "exact copy",
        "another event",
        "colours swapped",
        "cut short",
        "cut short, commented",
        "as long, with a variation",
        "cut short twice (1)",
        "cut short twice (2)",
        "name changed past four letters",
        "name in capitals",
    ] {
        assert!(in_a_group(number(what)), "{what}: no twin");
    }
    for what in [
        "short copy",
        "another site",
        "another month",
        "other moves",
        "short (1)",
        "short (2)",
    ] {
        assert!(!in_a_group(number(what)), "{what}: a twin");
    }
    for what in ["cut short", "cut short twice (1)", "cut short twice (2)"] {
        assert!(twins.deletes(number(what)), "{what}: not deleted");
    }
    assert!(!twins.deletes(number("cut short, commented")));
    assert!(!twins.deletes(number("as long, with a variation")));

    // SCID's own deletion, on a copy.
    let scid_base = copy_database(&base, &dir.path().join("scid-run"));
    let out = common::run(
        Command::new("/usr/games/tkscid")
            .arg(common::repo().join("tests/oracle/twins_scid.tcl"))
            .arg(&scid_base),
    );
    let said = String::from_utf8_lossy(&out.stdout);
    let count: usize = said
        .lines()
        .find_map(|l| l.strip_prefix("deleted: "))
        .unwrap_or_else(|| panic!("no count from SCID: {said}"))
        .trim()
        .parse()
        .unwrap();
    let scid_deleted = deleted_in(&scid_base);
    assert_eq!(scid_deleted.len(), count);
    assert_eq!(
        twins.to_delete().len(),
        count,
        "SCID deleted {scid_deleted:?}"
    );
    let alike = alike(&*db, twins.groups());
    let as_weighed = |games: &[u32]| {
        let mut v: Vec<u32> = games
            .iter()
            .map(|n| {
                *alike
                    .get(n)
                    .unwrap_or_else(|| panic!("game {} in no group", n + 1))
            })
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(as_weighed(twins.to_delete()), as_weighed(&scid_deleted));

    // gamefs twins lists the groups, each game marked as --delete would treat it.
    let ours = copy_database(&base, &dir.path().join("gamefs-run"));
    let listed = Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args(["twins", "--quiet"])
        .arg(&ours)
        .output()
        .unwrap();
    assert!(listed.status.success());
    let listed = String::from_utf8(listed.stdout).unwrap();
    let lines = |start: &str| listed.lines().filter(|l| l.starts_with(start)).count();
    assert_eq!(lines("twins of "), twins.groups().len());
    assert_eq!(lines("  delete "), twins.to_delete().len());
    let in_groups: usize = twins.groups().iter().map(Vec::len).sum();
    assert_eq!(lines("  "), in_groups);
    // gamefs twins --delete marks those.
    common::run(
        Command::new(env!("CARGO_BIN_EXE_gamefs"))
            .args(["twins", "--delete", "--quiet"])
            .arg(&ours),
    );
    assert_eq!(deleted_in(&ours), twins.to_delete());
}
