//! `gamefs import` against SCID's own import (`sc_import`, Debian's SCID 4.7.4) on text that
//! SCID stores only in part: the same PGN imported by both must give byte-identical
//! databases (index, names and game files), and gamefs must say which games it changed.
#![cfg(feature = "oracle-tests")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{hex_diff, output, repo, run, scid_import, work_dir};

/// Import `pgns` with SCID and with gamefs into two new databases in `dir`; the bases of
/// both, and gamefs's exit status and standard error.
fn import_both(dir: &Path, pgns: &[PathBuf]) -> (PathBuf, PathBuf, i32, String) {
    let scid = scid_import(dir, "scid", pgns);
    let ours = dir.join("gamefs");
    let out = output(
        Command::new(env!("CARGO_BIN_EXE_gamefs"))
            .args(["import", "--create"])
            .arg(&ours)
            .args(pgns)
            .arg("--report")
            .arg(dir.join("report.txt")),
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (scid, ours, out.status.code().unwrap_or(-1), stderr)
}

/// Every file of the two databases is the same, byte for byte.
fn assert_same_files(scid: &Path, ours: &Path) {
    for ext in ["si4", "sn4", "sg4"] {
        let a = std::fs::read(scid.with_extension(ext)).unwrap();
        let b = std::fs::read(ours.with_extension(ext)).unwrap();
        assert!(a == b, ".{ext} differs:\n{}", hex_diff(&b, &a));
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
        let (scid, ours, status, stderr) = import_both(dir.path(), &[pgn]);
        assert_eq!(status, 3, "stored with changes: {stderr}");
        assert_same_files(&scid, &ours);
        let report = std::fs::read_to_string(dir.path().join("report.txt")).unwrap();
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
    let (scid, ours, status, stderr) = import_both(dir.path(), &[pgn]);
    assert_eq!(status, 3, "{stderr}");
    assert!(
        stderr.contains("5 games imported (3 with changes), 0 left out"),
        "{stderr}"
    );
    assert_same_files(&scid, &ours);
}
