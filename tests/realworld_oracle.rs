//! `gamefs import` against SCID's own import on real-world PGN files (tests/data/realworld.md:
//! 216 files, 21 MB, 16 sources, every oddity they came with). For each file:
//! - gamefs imports it (exit status 0, 3 or 4: never a refused file);
//! - where gamefs left no game out, or only Chess960 games (which SCID 4 does not store either),
//!   its database is byte-identical to the one SCID's import writes from the same file;
//! - every game gamefs left out has its line in the report.
#![cfg(feature = "oracle-tests")]

mod common;

use common::{import_both, pgn_files, realworld_corpus, scid_files_differ, work_dir};

/// Files where SCID's database differs for a reason of SCID's own, and the reason.
const SCID_DIFFERS: &[(&str, &str)] = &[(
    "python-chess/utf8-bom.pgn",
    "SCID reads the byte-order mark as a game of its own (\"Failed to parse the move: ï\")",
)];

#[test]
fn real_world_files_import_as_scid_imports_them() {
    let root = realworld_corpus();
    let files = pgn_files(&root);
    assert!(files.len() >= 200, "{} files", files.len());
    let (mut identical, mut games, mut left_out, mut changed) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
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
