//! `gamefs check` (and export, import, compact) on damaged databases of each format, through
//! the real binary: several kinds of damage injected at once, every one listed on a line of
//! its own naming the game or file, a count, exit status 1, the same list in `--json`; the
//! healthy games still exported; writes refused.

mod damage;

use std::path::{Path, PathBuf};

use damage::{Dcdb, Scid, gamefs, text};

/// `gamefs check DB`: it fails, prints exactly the lines `want` (in any order; each the start
/// of a line, which must name a game or file first), and counts them on stderr.
fn assert_check_lists(db: &Path, items: &str, want: &[&str]) -> Vec<String> {
    let out = gamefs(&[&"check", &db]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    for w in want {
        assert!(
            lines.iter().any(|l| l.starts_with(w)),
            "missing {w:?} in:\n{stdout}"
        );
    }
    assert_eq!(lines.len(), want.len(), "one line per problem:\n{stdout}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(": {} problem(s)", want.len())) && stderr.contains(items),
        "{stderr}"
    );
    // The same problems in JSON.
    let out = gamefs(&[&"check", &"--json", &db]);
    assert_eq!(out.status.code(), Some(1));
    let json = text(&out.stdout);
    assert!(
        json.starts_with("{\"games\":") && json.contains("\"ok\":false"),
        "{json}"
    );
    assert_eq!(json.matches("\"problem\":").count(), want.len(), "{json}");
    lines
}

fn demo_pgn() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/sample/demo.pgn")
}

#[test]
fn scid_every_problem_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    let out = gamefs(&[&"import", &"--create", &"-q", &base, &demo_pgn()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let healthy = gamefs(&[&"check", &base]);
    assert!(healthy.status.success(), "{}", text(&healthy.stdout));
    assert!(text(&healthy.stderr).contains("checked 30 games: 0 problem(s)"));
    let exported = text(&gamefs(&[&"export", &base]).stdout);

    let db = Scid::new(&base);
    let sg4_len = db.read("sg4").len() as u32;
    db.change_entry(2, |e| e.white = 4000);
    db.change_entry(4, |e| e.offset = u64::from(sg4_len + 10));
    let sixth = db.entry(6);
    db.change_entry(7, |e| e.offset = sixth.offset + 3);
    db.fill_record(9, 0xF0);
    let mut si4 = db.read("si4");
    si4.extend([0u8; 10]);
    db.write("si4", &si4);
    let lines = assert_check_lists(
        &base,
        "checked 30 games",
        &[
            &format!(
                "{}: 10 bytes after the 30 entries",
                db.path("si4").display()
            ),
            "game 3: White name ID 4000 is out of range: ",
            "game 5: its record (offset ",
            "game 7: its record (offset ",
            "game 8: its record (offset ",
            "game 10: record does not decode: ",
        ],
    );
    assert!(lines[2].contains("runs past the end of"), "{lines:?}");
    assert!(lines[3].contains("overlaps game 8's"), "{lines:?}");
    let json = text(&gamefs(&[&"check", &"--json", &base]).stdout);
    assert!(
        json.contains("{\"game\":5,\"file\":\"games/0005 ")
            && json.contains("{\"game\":null,\"file\":null,\"problem\":"),
        "{json}"
    );

    // Export: the healthy games, the damaged ones reported and skipped.
    let out = gamefs(&[&"export", &base]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    for g in [5, 7, 8, 10] {
        assert!(stderr.contains(&format!("game {g}: ")), "{stderr}");
    }
    let now = text(&out.stdout);
    assert_eq!(now.matches("[Event ").count(), 26);
    assert!(now.contains("[White \"?\"]"));
    let first_game = exported.split("\n\n[Event ").next().unwrap();
    assert!(now.starts_with(first_game), "game 1 is exported as before");

    // Nothing writes to it.
    let before: Vec<Vec<u8>> = ["si4", "sn4", "sg4"].iter().map(|e| db.read(e)).collect();
    for args in [vec!["import", "-q"], vec!["compact", "-q"]] {
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|a| a as _).collect();
        all.push(&base);
        let pgn = demo_pgn();
        if args[0] == "import" {
            all.push(&pgn);
        }
        let out = gamefs(&all);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            text(&out.stderr).contains("is damaged ("),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let after: Vec<Vec<u8>> = ["si4", "sn4", "sg4"].iter().map(|e| db.read(e)).collect();
    assert!(before == after, "a damaged database is never written");
}

#[test]
fn scid_a_damaged_name_file_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    assert!(
        gamefs(&[&"import", &"--create", &"-q", &base, &demo_pgn()])
            .status
            .success()
    );
    let db = Scid::new(&base);
    let len = db.read("sn4").len();
    db.truncate("sn4", len - 3);
    let out = gamefs(&[&"check", &base]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "{}: the name file is cut short or malformed",
            db.path("sn4").display()
        )),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("game ") && l.contains("is lost:")),
        "{stdout}"
    );
    assert!(
        !stdout.contains("not sorted and counted"),
        "no second word for the same damage"
    );
}

#[test]
fn simplecdb_every_problem_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("gen300");
    damage::copy_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/simplecdb/gen300"),
        &base,
        &gamefs::store::simplecdb::EXTENSIONS,
    );
    let db = Dcdb::new(&base);
    let dci = db.path("dci");
    assert!(gamefs(&[&"check", &dci]).status.success());
    let len = db.read("dcg").len() as u64;
    db.change_entry(2, |e| e.white = 11);
    db.change_entry(4, |e| e.offset = len + 10);
    let sixth = db.entry(6);
    db.change_entry(7, |e| e.offset = sixth.offset);
    let tenth = db.record(9);
    let mut dcg = db.read("dcg");
    dcg[tenth.start..tenth.end].fill(0xFF);
    db.write("dcg", &dcg);
    let mut index = db.read("dci");
    index.extend([1u8; 7]);
    db.write("dci", &index);
    assert_check_lists(
        &dci,
        "checked 300 games",
        &[
            &format!("{}: 7 bytes after the last whole entry", dci.display()),
            "game 3: White refers to byte 11 of ",
            "game 5: its record offset ",
            "game 7: its record (offset ",
            "game 8: its record (offset ",
            "game 10: ",
        ],
    );
}

#[test]
fn go_every_problem_is_listed() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/go9x9");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("go");
    std::fs::create_dir(&db).unwrap();
    std::fs::copy(
        data.join("zobrist_board_81.dat"),
        db.join("zobrist_board_81.dat"),
    )
    .unwrap();
    let out = gamefs(&[
        &"go9",
        &"import",
        &"--create",
        &"--to-play",
        &"W",
        &db,
        &data.join("published-examples.txt"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ok = gamefs(&[&"check", &db]);
    assert!(ok.status.success(), "{}", text(&ok.stdout));
    assert!(text(&ok.stderr).contains("checked 5 positions: 0 problem(s)"));
    // Record 2's board gets a stray byte, record 4's hash a flipped bit; a scored file with a
    // score out of range and a cut record.
    let file = db.join("positions.dat");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[92 + 10 + 17] = b'x';
    bytes[3 * 92] ^= 0x80;
    std::fs::write(&file, &bytes).unwrap();
    let mut scores = bytes[..10].to_vec();
    scores.extend([6, 80]);
    scores.extend(&bytes[184..194]);
    scores.extend([9, 80, 1, 2, 3]);
    std::fs::write(db.join("fuego_chinese.dat"), &scores).unwrap();
    let scored = db.join("fuego_chinese.dat");
    assert_check_lists(
        &db,
        "checked 5 positions",
        &[
            &format!(
                "{}: record 2 at byte 12: score 9 (3..8 expected)",
                scored.display()
            ),
            &format!(
                "{}: record 3 at byte 24: 27 bytes is not a whole number",
                scored.display()
            ),
            &format!(
                "positions/damaged-record-2.sgf: {}: record 2 at byte 92: board byte 18",
                file.display()
            ),
            &format!(
                "positions/damaged-record-4.sgf: {}: record 4 at byte 276: stored hash",
                file.display()
            ),
        ],
    );
}
