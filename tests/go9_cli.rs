//! `gamefs go9 …` on small generated databases, through the real binary.

mod go9_common;

use std::process::{Command, Output};

use gamefs::game::go::{Color, PositionId};
use go9_common::{empty_db, write_scores};

fn gamefs(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gamefs"));
    c.arg("go9");
    for a in args {
        c.arg(a);
    }
    c.output().unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn examples() -> std::path::PathBuf {
    go9_common::data_dir().join("published-examples.txt")
}

/// A database of the five published examples (W to play) with two scored files.
fn sample_db() -> tempfile::TempDir {
    let dir = empty_db();
    let ids = ok(gamefs(&[
        &"import",
        &dir.path(),
        &examples(),
        &"--create",
        &"--to-play",
        &"W",
    ]));
    let ids: Vec<PositionId> = ids.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 5);
    write_scores(
        &dir.path().join("fuego_chinese.dat"),
        &[(ids[0], 5, 87), (ids[1], 6, 40)],
    );
    write_scores(
        &dir.path().join("gnugo_japanese.dat"),
        &[(ids[0], 5, 90), (ids[2], 3, 10)],
    );
    dir
}

#[test]
fn import_checks_the_stated_hashes_and_skips_duplicates() {
    let dir = sample_db();
    assert_eq!(
        std::fs::metadata(dir.path().join("positions.dat"))
            .unwrap()
            .len(),
        460
    );
    let out = gamefs(&[&"import", &dir.path(), &examples(), &"--to-play", &"W"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 added, 5 already present"));
    assert_eq!(
        std::fs::metadata(dir.path().join("positions.dat"))
            .unwrap()
            .len(),
        460
    );
    // A wrong stated hash and a board cut short are refused with the line; exit status 1.
    let bad = dir.path().join("bad.txt");
    let text = std::fs::read_to_string(examples())
        .unwrap()
        .replace("hash 31846ceb8015dc92", "hash 31846ceb8015dc93");
    std::fs::write(&bad, text).unwrap();
    let out = gamefs(&[&"import", &dir.path(), &bad]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 5: the board hashes to 31846ceb8015dc92, not 31846ceb8015dc93"),
        "{err}"
    );
    std::fs::write(&bad, ".........\n.........\n").unwrap();
    let out = gamefs(&[&"import", &dir.path(), &bad]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 of 9 rows"));
}

#[test]
fn view_prints_boards_and_scores_and_reimports() {
    let dir = sample_db();
    let out = ok(gamefs(&[&"view", &dir.path()]));
    assert!(
        out.starts_with("31846ceb8015dc92:0: who=W\n.........\n.........\n.........\n...#.....\n"),
        "{out}"
    );
    assert!(out.contains(
        "fuego_chinese: score 5, confidence 87\ngnugo_japanese: score 5, confidence 90\n"
    ));
    assert_eq!(out.matches("who=W").count(), 5);
    let one = ok(gamefs(&[&"view", &dir.path(), &"0f6dba75177f4751-0-W.sgf"]));
    assert!(one.starts_with("0f6dba75177f4751:0: who=W\n"));
    assert!(one.contains("gnugo_japanese: score 3, confidence 10"));
    // The view output is valid import input (into a new database).
    let copy = empty_db();
    let view = copy.path().join("view.txt");
    std::fs::write(&view, &out).unwrap();
    ok(gamefs(&[&"import", &copy.path(), &view, &"--create"]));
    assert_eq!(
        std::fs::read(copy.path().join("positions.dat")).unwrap(),
        std::fs::read(dir.path().join("positions.dat")).unwrap()
    );
    let out = gamefs(&[&"view", &dir.path(), &"nonsense"]);
    assert!(!out.status.success());
}

#[test]
fn histogram_counts_by_stones() {
    let dir = sample_db();
    let out = ok(gamefs(&[&"histogram", &dir.path()]));
    assert_eq!(
        out,
        "stones positions\n     1         1\n     2         1\n     3         1\n     4         1\n     5         1\n total         5\n"
    );
}

#[test]
fn merge_joins_files_dropping_duplicates() {
    let dir = sample_db();
    let all = std::fs::read(dir.path().join("positions.dat")).unwrap();
    let a = dir.path().join("a.bin");
    let b = dir.path().join("b.bin");
    std::fs::write(&a, &all[..3 * 92]).unwrap();
    std::fs::write(&b, [&all[92..], &all[..92]].concat()).unwrap();
    let out = dir.path().join("merged.bin");
    let o = gamefs(&[&"merge", &"-o", &out, &a, &b]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("5 positions (3 duplicates dropped)"));
    assert_eq!(std::fs::read(&out).unwrap(), all);
    let bad = dir.path().join("bad.bin");
    std::fs::write(&bad, &all[..100]).unwrap();
    let o = gamefs(&[&"merge", &"-o", &out, &bad]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a whole position record"));
}

#[test]
fn diff_scores_compares_two_scored_files() {
    let dir = sample_db();
    let a = dir.path().join("fuego_chinese.dat");
    let b = dir.path().join("gnugo_japanese.dat");
    let o = gamefs(&[&"diff-scores", &a, &b]);
    assert_eq!(o.status.code(), Some(1), "files differ");
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("31846ceb8015dc92-0-W: "), "{out}");
    assert!(out.contains(" 5/87, "), "{out}");
    assert!(out.contains("161229a425c1a6ab-0-W: only in "), "{out}");
    assert!(out.contains("0f6dba75177f4751-0-W: only in "), "{out}");
    assert!(out.contains("0 equal, 1 differ, 1 only in "), "{out}");
    let same = ok(gamefs(&[&"diff-scores", &a, &a]));
    assert!(same.starts_with("2 equal, 0 differ"), "{same}");
}

#[test]
fn sgf_add_and_rm_round_trip() {
    let dir = sample_db();
    let text = ok(gamefs(&[&"sgf", &dir.path(), &"31846ceb8015dc92-0-W"]));
    assert!(
        text.starts_with("(;FF[4]GM[1]SZ[9]CA[UTF-8]AP[gamefs:"),
        "{text}"
    );
    assert!(
        text.contains("GFSC[fuego_chinese:5/87][gnugo_japanese:5/90]"),
        "{text}"
    );
    // Save an edited copy (Black to play) in place of the original.
    let edited = dir.path().join("edited.sgf");
    std::fs::write(&edited, text.replace("PL[W]", "PL[B]")).unwrap();
    let id = ok(gamefs(&[
        &"add",
        &dir.path(),
        &edited,
        &"--replace",
        &"31846ceb8015dc92-0-W.sgf",
    ]));
    assert_eq!(id, "31846ceb8015dc92-0-B\n");
    let view = ok(gamefs(&[&"view", &dir.path()]));
    assert!(!view.contains("31846ceb8015dc92:0: who=W"));
    assert!(view.contains("31846ceb8015dc92:0: who=B"));
    // A score edit is refused.
    std::fs::write(
        &edited,
        text.replace("fuego_chinese:5/87", "fuego_chinese:8/87"),
    )
    .unwrap();
    let o = gamefs(&[&"add", &dir.path(), &edited]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be edited"));
    // A 19x19 file is refused with its line and column.
    let big = dir.path().join("big.sgf");
    std::fs::write(&big, "(;FF[4]GM[1]SZ[19];B[pd])").unwrap();
    let o = gamefs(&[&"add", &dir.path(), &big]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1, column 16: board size 19"));
    // rm removes; unknown ids fail.
    ok(gamefs(&[&"rm", &dir.path(), &"31846ceb8015dc92-0-B"]));
    assert_eq!(
        std::fs::metadata(dir.path().join("positions.dat"))
            .unwrap()
            .len(),
        4 * 92
    );
    let o = gamefs(&[&"rm", &dir.path(), &"31846ceb8015dc92-0-B"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no position 31846ceb8015dc92-0-B"));
    // A game record: the main line's final position is saved.
    let game = dir.path().join("game.sgf");
    std::fs::write(
        &game,
        "(;FF[4]GM[1]SZ[9];B[ee];W[ec];B[ce](;W[gg])(;W[aa]))",
    )
    .unwrap();
    let id = ok(gamefs(&[&"add", &dir.path(), &game]));
    let id: PositionId = id.trim().parse().unwrap();
    assert_eq!(id.to_play, Color::Black);
    let shown = ok(gamefs(&[&"view", &dir.path(), &id.to_string()]));
    assert!(shown.contains("......O.."), "{shown}");
}

#[test]
fn clear_errors_for_bad_databases() {
    let dir = empty_db();
    let o = gamefs(&[&"histogram", &dir.path()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no position file"));
    // A damaged file: each damaged record is reported (file, record, byte, why) and the
    // exit status says so; the healthy records are still shown.
    // The empty board (hash 0, Black to play), then 93 bytes of '.'.
    let mut bytes = vec![0u8; 9];
    bytes.push(b'B');
    bytes.extend([b'.'; 81]);
    bytes.push(0);
    bytes.extend([b'.'; 93]);
    std::fs::write(dir.path().join("positions.dat"), &bytes).unwrap();
    for cmd in ["view", "histogram"] {
        let o = gamefs(&[&cmd, &dir.path()]);
        assert!(!o.status.success(), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("gamefs: ")
                && err.contains("positions.dat: record 2 at byte 92: player byte is '.'")
                && err.contains("record 3 at byte 184: 1 bytes at the end"),
            "{cmd}: {err}"
        );
    }
    let shown = String::from_utf8_lossy(&gamefs(&[&"view", &dir.path()]).stdout).into_owned();
    assert!(shown.starts_with("0000000000000000:0: who=B"), "{shown}");
    // Writing to it is refused, naming the first problem.
    let o = gamefs(&[&"rm", &dir.path(), &"0000000000000000-0-B"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("positions.dat: record 2 at byte 92"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
