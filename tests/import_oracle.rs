//! `gamefs import` against SCID's own import (`sc_import`, Debian's SCID 4.7.4) on text that
//! SCID stores only in part: the same PGN imported by both must give byte-identical
//! databases (index, names and game files), and gamefs must say which games it changed.
#![cfg(feature = "oracle-tests")]

mod common;

use std::path::Path;
use std::process::Command;

use common::{import_both, repo, run, scid_files_differ, work_dir};

/// Every file of the two databases is the same, byte for byte.
fn assert_same_files(scid: &Path, ours: &Path) {
    if let Some(diff) = scid_files_differ(scid, ours) {
        panic!("{diff}");
    }
}

/// Generated games beyond SCID's limits (`gen_test_pgn.py --wild`: EventDates up to 6 years
/// from the Date, up to a dozen NAGs on a move, so that some games reach SCID's third error
/// and lose their rest): stored exactly as SCID stores them, each change reported.
#[test]
fn awkward_generated_games_import_like_scid() {
    for seed in ["5", "7"] {
        let dir = work_dir(&format!("wild-{seed}"));
        let pgn = dir.path().join("wild.pgn");
        run(Command::new("python3")
            .arg(repo().join("contrib/tools/gen_test_pgn.py"))
            .args(["fuzz", "400"])
            .arg(&pgn)
            .args(["--seed", seed, "--wild"]));
        let both = import_both(dir.path(), &[pgn]);
        assert_eq!(both.status, 3, "stored with changes: {}", both.stderr);
        assert_same_files(&both.scid, &both.ours);
        let report = both.report;
        for what in ["EventDate", "NAG(s) dropped", "third error"] {
            assert!(report.contains(what), "the report names {what}:\n{report}");
        }
    }
}

/// The case of the million-game file that imported nothing: a Date with an unknown year and
/// an EventDate (SCID's index cannot keep it), among other games.
#[test]
fn an_event_date_scid_cannot_keep_is_dropped_as_scid_drops_it() {
    let dir = work_dir("eventdate");
    let pgn = dir.path().join("eventdate.pgn");
    let game = |event: &str, date: &str, event_date: &str| {
        format!(
            "[Event \"{event}\"]\n[Site \"s\"]\n[Date \"{date}\"]\n[Round \"1\"]\n[White \"W\"]\n\
             [Black \"B\"]\n[Result \"1-0\"]\n[EventDate \"{event_date}\"]\n\n1. e4 e5 2. Qh5 Nc6 \
             3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
        )
    };
    let text = [
        game("Before", "1993.09.06", "1993.09.01"),
        game("Unknown year", "????.??.??", "1993.09.06"),
        game("Year 2", "0002.01.01", "1993.??.??"),
        game("Too far", "2020.01.01", "2016.12.31"),
        game("After", "1993.09.06", "1993.09.01"),
    ]
    .concat();
    std::fs::write(&pgn, text).unwrap();
    let both = import_both(dir.path(), &[pgn]);
    assert_eq!(both.status, 3, "{}", both.stderr);
    assert!(
        both.stderr
            .contains("5 games imported (3 with changes), 0 left out"),
        "{}",
        both.stderr
    );
    assert_same_files(&both.scid, &both.ours);
}
