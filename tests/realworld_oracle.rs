//! `gamefs import` against SCID's own import on real-world PGN files (tests/data/realworld.md:
//! 216 files, 21 MB, 16 sources, every oddity they came with). For each file:
//! - gamefs imports it (exit status 0, 3 or 4: never a refused file);
//! - where gamefs left no game out, or only Chess960 games (which SCID 4 does not store either),
//!   its database is byte-identical to the one SCID's import writes from the same file;
//! - every game gamefs left out has its line in the report.
#![cfg(feature = "oracle-tests")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{import_both, pgn_files, realworld_corpus, repo, scid_files_differ, work_dir};

/// Files where SCID's database differs for a reason of SCID's own, and the reason.
const SCID_DIFFERS: &[(&str, &str)] = &[(
    "python-chess/utf8-bom.pgn",
    "SCID reads the byte-order mark as a game of its own (\"Failed to parse the move: ï\")",
)];

/// Every PGN file of the corpus with its name there (`source/file.pgn`), sorted.
fn corpus_files() -> Vec<(String, PathBuf)> {
    let root = realworld_corpus();
    pgn_files(&root)
        .into_iter()
        .map(|file| {
            let name = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, file)
        })
        .collect()
}

#[test]
fn real_world_files_import_as_scid_imports_them() {
    let files = corpus_files();
    assert!(files.len() >= 200, "{} files", files.len());
    let (mut identical, mut games, mut left_out, mut changed) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (i, (name, file)) in files.iter().enumerate() {
        let dir = work_dir(&format!("realworld-{i}"));
        let both = import_both(dir.path(), std::slice::from_ref(file));
        let (status, stderr) = (both.status, both.stderr.as_str());
        if ![0, 3, 4].contains(&status) {
            failures.push(format!("{name}: gamefs import exited {status}: {stderr}"));
            continue;
        }
        let reasons: Vec<&str> = both
            .report
            .lines()
            .filter(|l| !l.contains(": stored with changes: "))
            .collect();
        let count = |what: &str| {
            stderr
                .lines()
                .find_map(|l| l.strip_prefix("gamefs import: "))
                .and_then(|l| {
                    l.split(what)
                        .next()?
                        .rsplit([' ', '('])
                        .next()?
                        .parse()
                        .ok()
                })
                .unwrap_or(0usize)
        };
        let (stored, skipped) = (count(" games imported"), count(" left out"));
        games += stored;
        left_out += skipped;
        changed += both.report.lines().count() - reasons.len();
        if reasons.len() != skipped {
            failures.push(format!(
                "{name}: {skipped} games left out, {} reasons in the report",
                reasons.len()
            ));
        }
        let only_chess960 = reasons.iter().all(|r| r.contains("Chess960"));
        match scid_files_differ(&both.scid, &both.ours) {
            None => identical += 1,
            Some(_) if !only_chess960 => {}
            Some(_) if SCID_DIFFERS.iter().any(|(f, _)| *f == name) => {}
            Some(diff) => failures.push(format!("{name}: {diff}")),
        }
    }
    eprintln!(
        "{} files: {identical} byte-identical to SCID's import; {games} games stored \
         ({changed} with changes), {left_out} left out",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same files against SCID 5's own import, when SCID 5 is built from its source
/// (`GAMEFS_SCID5_TKSCID`: its tkscid; said and skipped when absent): every file gamefs
/// imports whole into a new SCID 5 database gives SCID 5's three files byte for byte.
#[test]
fn real_world_files_import_as_scid5_imports_them() {
    let Some(tkscid) = std::env::var_os("GAMEFS_SCID5_TKSCID").filter(|p| Path::new(p).is_file())
    else {
        eprintln!("SCID 5 is absent (set GAMEFS_SCID5_TKSCID to its tkscid): not compared");
        return;
    };
    let files = corpus_files();
    let script = repo().join("tests/data/scid5/s5make.tcl");
    let (mut identical, mut whole) = (0, 0);
    let mut failures = Vec::new();
    for (i, (name, file)) in files.iter().enumerate() {
        let dir = work_dir(&format!("realworld5-{i}"));
        let (scid, ours) = (dir.path().join("scid"), dir.path().join("gamefs.si5"));
        // SCID 5's sc_base import ends in a Tcl error for some files (FWWRC.pgn) after
        // writing the database: its files are compared whatever the status.
        common::output(Command::new(&tkscid).arg(&script).arg(&scid).arg(file));
        let out = common::output(
            Command::new(env!("CARGO_BIN_EXE_gamefs"))
                .args(["import", "-q", "--create"])
                .arg(&ours)
                .arg(file),
        );
        let same = ["si5", "sn5", "sg5"].iter().all(|ext| {
            std::fs::read(scid.with_extension(ext)).ok()
                == std::fs::read(ours.with_extension(ext)).ok()
        });
        identical += usize::from(same);
        // Exit 0 or 3: every game stored (4: some left out, which SCID 5 keeps cut short).
        let stored_whole = matches!(out.status.code(), Some(0 | 3));
        whole += usize::from(stored_whole);
        if stored_whole && !same && !SCID_DIFFERS.iter().any(|(f, _)| *f == name) {
            failures.push(name);
        }
    }
    eprintln!(
        "{} files: {identical} byte-identical to SCID 5's import; {whole} stored whole by gamefs",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "differ from SCID 5's import: {failures:?}"
    );
    assert!(identical >= 190, "{identical} identical");
}
