//! `gamefs check` on a database SCID vs. PC wrote (tests/data/scidvspc/): the derived fields it
//! computes differently from SCID 4.7 are notes naming it, and the exit status is 0; damage in a
//! copy of it is still a problem with exit status 1.

mod damage;

use std::path::{Path, PathBuf};

use damage::{Scid, copy_files, gamefs, text};

/// A writable copy of SCID vs. PC's "Endings" base in `dir`.
fn endings(dir: &Path, name: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scidvspc/endings");
    let to = dir.join(name);
    copy_files(&from, &to, &["si4", "sn4", "sg4"]);
    to
}

const WRITER: &str = "SCID vs. PC (or SCID 4.5 and older)";

#[test]
fn a_scid_vs_pc_base_has_notes_and_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let base = endings(dir.path(), "endings");
    let out = gamefs(&[&"check", &base]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.iter().all(|l| l.starts_with("note: ")),
        "only notes:\n{stdout}"
    );
    for want in [
        "note: 53 games have the final-material field as SCID vs. PC writes it for a game set up \
         from a FEN without moves: the standard start's signature (SCID 4.7 computes the FEN \
         position's; both read it)",
        "note: 1 game has the promotion flags as SCID vs. PC writes them for a game set up from a \
         FEN: its record's flags, not its main line's",
        "the name file's header keeps the highest count a name ever had, as SCID vs. PC writes it",
        &format!("note: the database looks written by {WRITER}: these are not damage"),
    ] {
        assert!(stdout.contains(want), "missing {want:?} in:\n{stdout}");
    }
    assert_eq!(lines.len(), 4, "one line per rule, not per game:\n{stdout}");
    assert!(
        stderr.contains("checked 67 games: 0 problem(s), 3 note(s)"),
        "{stderr}"
    );

    let out = gamefs(&[&"check", &"--json", &base]);
    assert_eq!(out.status.code(), Some(0));
    let json = text(&out.stdout);
    assert!(
        json.starts_with("{\"games\":67,\"ok\":true,\"problems\":[],\"notes\":[{\"field\":\"final material\",\"games\":53,")
            && json.contains("{\"field\":\"promotion flags\",\"games\":1,")
            && json.contains("{\"field\":\"name file\",\"games\":null,")
            && json.trim_end().ends_with(&format!("],\"writer\":\"{WRITER}\"}}")),
        "{json}"
    );
    assert_eq!(json.matches("\"note\":").count(), 3, "{json}");
}

/// `gamefs check` on `base` exits 1 and lists `problems` (each the start of a line), among
/// the notes.
fn assert_problems(base: &Path, problems: &[&str]) -> String {
    let out = gamefs(&[&"check", &base]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for p in problems {
        assert!(
            stdout.lines().any(|l| l.starts_with(p)),
            "missing {p:?} in:\n{stdout}"
        );
    }
    let listed = stdout.lines().filter(|l| !l.starts_with("note: ")).count();
    assert_eq!(listed, problems.len(), "{stdout}");
    assert!(
        text(&out.stderr).contains(&format!(": {} problem(s)", problems.len())),
        "{}",
        text(&out.stderr)
    );
    let json = text(&gamefs(&[&"check", &"--json", &base]).stdout);
    assert!(json.contains("\"ok\":false"), "{json}");
    assert_eq!(
        json.matches("\"problem\":").count(),
        problems.len(),
        "{json}"
    );
    stdout
}

#[test]
fn damage_in_a_scid_vs_pc_base_is_still_a_problem() {
    let dir = tempfile::tempdir().unwrap();

    // A record that does not decode.
    let base = endings(dir.path(), "record");
    Scid::new(&base).fill_record(4, 0xF0);
    assert_problems(&base, &["game 5: record does not decode: "]);

    // A name ID out of range.
    let base = endings(dir.path(), "name");
    Scid::new(&base).change_entry(2, |e| e.white = 4000);
    assert_problems(&base, &["game 3: White name ID 4000 is out of range: "]);

    // Derived fields no known writer computes so: a final material that is neither the FEN
    // position's nor the standard start's, promotion flags that are not the record's, fewer
    // plies than the main line has. The other games keep their notes.
    let base = endings(dir.path(), "fields");
    let db = Scid::new(&base);
    assert_eq!(db.entry(14).matsig, 0x6A86A8);
    db.change_entry(14, |e| e.matsig = 0x12_3456);
    assert_eq!(db.entry(11).flags & 7, 7);
    db.change_entry(11, |e| e.flags = (e.flags & !7) | 3);
    assert_eq!(db.entry(0).plies, 2);
    db.change_entry(0, |e| e.plies = 1);
    let stdout = assert_problems(
        &base,
        &[
            "game 1: index field plies does not match the game",
            "game 12: index field flags (S/X/Y) does not match the game",
            "game 15: index field final material does not match the game",
        ],
    );
    assert!(
        stdout.contains("note: 52 games have the final-material field as SCID vs. PC writes it")
            && !stdout.contains("promotion flags"),
        "{stdout}"
    );
}
