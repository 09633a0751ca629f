//! gamefs against real SCID and independent PGN readers.
//!
//! For every test PGN: Debian SCID (sc_import) builds the database, SCID exports every game,
//! gamefs exports every game, and python-chess compares the two as games (tags, moves,
//! comments, NAGs, variations, results). pgn-extract and python-chess must read all of
//! gamefs's output without a single error or warning.
#![cfg(feature = "oracle-tests")]

mod common;

use common::{repo, run, tool, work_dir};

use std::path::{Path, PathBuf};
use std::process::Command;

/// Import `pgns` with SCID, export with SCID and with gamefs, compare, and check gamefs's output.
fn check_against_scid(name: &str, pgns: &[PathBuf]) -> String {
    let dir = work_dir(name);
    let base = dir.path().join(name);
    run(tool("contrib/tools/scid-import.sh").args(pgns).arg(&base));
    check_database(dir.path(), &base)
}

/// Our name-file writer rebuilds SCID's .sn4 byte for byte from the names and the index
/// (sort order, front coding, frequencies and field widths).
fn check_name_file_rebuilds(base: &Path) {
    let db = gamefs::store::scid::ScidDatabase::open(base, false).unwrap();
    let written = std::fs::read(base.with_extension("sn4")).unwrap();
    assert!(
        db.serialized_names() == written,
        "{}: rebuilt name file differs from SCID's",
        base.display()
    );
}

fn check_database(dir: &Path, base: &Path) -> String {
    let scid_pgn = dir.join("scid.pgn");
    let ours = dir.join("gamefs.pgn");
    run(tool("contrib/tools/scid-export.sh")
        .arg(base)
        .arg(&scid_pgn));
    run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .arg("export")
        .arg(base)
        .arg("-o")
        .arg(&ours));
    let compared = run(Command::new("python3")
        .arg(repo().join("tests/oracle/pgn_compare.py"))
        .arg(&scid_pgn)
        .arg(&ours));
    run(Command::new("python3")
        .arg(repo().join("tests/oracle/pgn_check.py"))
        .arg(&ours));
    run(tool("tests/oracle/pgn_extract_check.sh").arg(&ours));
    check_name_file_rebuilds(base);
    // A database SCID wrote passes `gamefs check`.
    run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args(["check", "-q"])
        .arg(base));
    String::from_utf8_lossy(&compared.stdout).into_owned()
}

#[test]
fn demo_games_equal_scids_export() {
    let summary = check_against_scid("demo", &[repo().join("contrib/sample/demo.pgn")]);
    assert!(summary.contains("equal"), "{summary}");
}

#[test]
fn every_edge_case_file_equals_scids_export() {
    let pgns = common::data_pgns();
    assert!(pgns.len() >= 3, "tests/data holds the edge-case PGNs");
    for pgn in pgns {
        let name = pgn.file_stem().unwrap().to_str().unwrap().to_owned();
        check_against_scid(&name, &[pgn]);
    }
}

#[test]
fn random_games_equal_scids_export() {
    let dir = work_dir("random");
    let pgn = dir.path().join("random.pgn");
    run(Command::new("python3")
        .arg(repo().join("contrib/tools/gen_test_pgn.py"))
        .args(["fuzz", "300"])
        .arg(&pgn)
        .args(["--seed", "7"]));
    check_against_scid("random", &[pgn]);
}

#[test]
fn three_byte_name_ids_equal_scids_export() {
    let dir = work_dir("many-names");
    let pgn = dir.path().join("many.pgn");
    run(Command::new("python3")
        .arg(repo().join("contrib/tools/gen_many_names_pgn.py"))
        .arg("33000")
        .arg(&pgn));
    check_against_scid("many", &[pgn]);
}

#[test]
fn version_300_database_reads_like_the_original() {
    let dir = work_dir("v300");
    let base = dir.path().join("v400");
    run(tool("contrib/tools/scid-import.sh")
        .arg(repo().join("contrib/sample/demo.pgn"))
        .arg(&base));
    let old = dir.path().join("v300");
    run(Command::new("python3")
        .arg(repo().join("contrib/tools/scid_to_v300.py"))
        .arg(&base)
        .arg(&old));
    let a = run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .arg("export")
        .arg(&base));
    let b = run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .arg("export")
        .arg(&old));
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
    check_database(dir.path(), &old);
}

#[test]
fn empty_database_exports_nothing() {
    let dir = work_dir("empty");
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let base = dir.path().join("empty");
    run(tool("contrib/tools/scid-import.sh").arg(&empty).arg(&base));
    let out = run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .arg("export")
        .arg(&base));
    assert!(out.stdout.is_empty());
}

#[test]
fn compacted_databases_open_in_scid_with_the_surviving_games() {
    use gamefs::store::ChessStore;
    let dir = work_dir("compact");
    let base = dir.path().join("c");
    run(tool("contrib/tools/scid-import.sh")
        .arg(repo().join("contrib/sample/demo.pgn"))
        .arg(&base));
    {
        let db = gamefs::store::scid::ScidDatabase::open(&base, true).unwrap();
        db.set_deleted(2, true).unwrap();
        db.set_deleted(9, true).unwrap();
    }
    let before = std::fs::metadata(base.with_extension("sg4")).unwrap().len();
    run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args(["compact", "-q"])
        .arg(&base));
    assert!(std::fs::metadata(base.with_extension("sg4")).unwrap().len() < before);
    let summary = check_database(dir.path(), &base);
    assert!(summary.contains("compared 28 games: 28 equal"), "{summary}");
}
