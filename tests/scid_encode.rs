//! The SCID 4 encoder against real SCID: byte identity with what Debian's SCID 4.7.4
//! (`sc_import`) writes.
//!
//! For every test PGN, the demo games and 400 random games, SCID builds a database; then for
//! every game the record is decoded and re-encoded (`record::decode` → `record::encode`) and
//! must equal SCID's record bytes exactly, and the index entry rebuilt from SCID's offset,
//! length, name IDs and user flags plus `derive` of the loaded game must equal SCID's 47 bytes.
#![cfg(feature = "oracle-tests")]

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use gamefs::store::ChessStore;
use gamefs::store::scid::ScidDatabase;
use gamefs::store::scid::derive::derive;
use gamefs::store::scid::entry::IndexEntry;
use gamefs::store::scid::record;

use common::{hex_diff, repo, run, scid_import, work_dir};

/// What one database check covered.
#[derive(Debug, Default)]
struct Tally {
    games: usize,
    records_equal: usize,
    entries_equal: usize,
    /// Games whose SCID entry has an Elo of 0 with a non-Elo rating type: the model keeps no
    /// rating for an Elo of 0, so the type is taken from SCID's entry (see the report).
    zero_elo_types: usize,
    /// Games whose Date year is 0..3 and whose EventDate SCID dropped on import (outside the
    /// window): SCID wrote event date 0, which reads back as "none", and "none" is written
    /// 0x800 by SCID's formula, by SCID's own re-save as well as by `derive`.
    dropped_event_dates: usize,
}

/// Check every game of the database at `base`; panics with all mismatches.
fn check_database(base: &Path) -> Tally {
    let db = ScidDatabase::open(base, false).unwrap_or_else(|e| panic!("{}: {e}", base.display()));
    let si4 = std::fs::read(base.with_extension("si4")).unwrap();
    let mut failures = String::new();
    let mut t = Tally::default();
    for n in 0..db.game_count() {
        t.games += 1;
        let scid_record = db.record_bytes(n).unwrap();
        let at = 182 + 47 * n as usize;
        let scid_entry: [u8; 47] = si4[at..at + 47].try_into().unwrap();
        let entry = IndexEntry::decode(&scid_entry);
        let game = match db.load(n) {
            Ok(g) => g,
            Err(e) => {
                let _ = writeln!(failures, "game {}: cannot load: {e}", n + 1);
                continue;
            }
        };
        // The record: decode → encode (headers from the index only matter for the rating-tag
        // rule; the decoded extra tags are the record's own).
        let rec = record::decode(&scid_record).unwrap();
        let mut regame = game.clone();
        regame.headers.extra = rec.extra_tags;
        regame.start = rec.start;
        regame.moves = rec.moves;
        match record::encode(&regame) {
            Ok(ours) if ours == scid_record => t.records_equal += 1,
            Ok(ours) => {
                let _ = writeln!(
                    failures,
                    "game {}: record differs\n{}",
                    n + 1,
                    hex_diff(&ours, &scid_record)
                );
            }
            Err(e) => {
                let _ = writeln!(failures, "game {}: record::encode failed: {e}", n + 1);
            }
        }
        // The entry: SCID's offset, length, name IDs and user flags + derived fields.
        match derive(&game) {
            Ok(d) => {
                let mut ours = IndexEntry {
                    offset: entry.offset,
                    length: entry.length,
                    flags: entry.flags & !7,
                    white: entry.white,
                    black: entry.black,
                    event: entry.event,
                    site: entry.site,
                    round: entry.round,
                    ..IndexEntry::default()
                }
                .with_derived(&d);
                let mut zero_elo_type = false;
                if entry.white_elo == 0 && ours.white_elo == 0 {
                    zero_elo_type |= entry.white_rating_type != 0;
                    ours.white_rating_type = entry.white_rating_type;
                }
                if entry.black_elo == 0 && ours.black_elo == 0 {
                    zero_elo_type |= entry.black_rating_type != 0;
                    ours.black_rating_type = entry.black_rating_type;
                }
                t.zero_elo_types += usize::from(zero_elo_type);
                if entry.event_date == 0
                    && ours.event_date == 0x800
                    && entry.date >> 9 <= 3
                    && game.headers.event_date.is_none()
                {
                    ours.event_date = 0;
                    t.dropped_event_dates += 1;
                }
                let ours = ours.encode();
                if ours == scid_entry {
                    t.entries_equal += 1;
                } else {
                    let _ = writeln!(
                        failures,
                        "game {}: index entry differs\n{}",
                        n + 1,
                        hex_diff(&ours, &scid_entry)
                    );
                }
            }
            Err(e) => {
                let _ = writeln!(failures, "game {}: derive failed: {e}", n + 1);
            }
        }
    }
    assert!(failures.is_empty(), "{}: {t:?}\n{failures}", base.display());
    assert!(t.games > 0, "{}: no games", base.display());
    eprintln!("{}: {t:?}", base.display());
    t
}

#[test]
fn every_test_pgn_encodes_like_scid() {
    let pgns = common::data_pgns();
    assert!(pgns.len() >= 10, "tests/data holds the edge-case PGNs");
    let dir = work_dir("data");
    let mut games = 0;
    for pgn in pgns {
        let name = pgn.file_stem().unwrap().to_str().unwrap().to_owned();
        games += check_database(&scid_import(dir.path(), &name, &[pgn])).games;
    }
    eprintln!("tests/data: {games} games byte-identical");
}

#[test]
fn demo_games_encode_like_scid() {
    let dir = work_dir("demo");
    let base = scid_import(
        dir.path(),
        "demo",
        &[repo().join("contrib/sample/demo.pgn")],
    );
    check_database(&base);
}

#[test]
fn random_games_encode_like_scid() {
    let dir = work_dir("fuzz");
    let pgn = dir.path().join("fuzz.pgn");
    run(Command::new("python3")
        .arg(repo().join("contrib/tools/gen_test_pgn.py"))
        .args(["fuzz", "400"])
        .arg(&pgn)
        .args(["--seed", "11"]));
    let t = check_database(&scid_import(dir.path(), "fuzz", &[pgn]));
    assert_eq!(t.games, 400);
}
