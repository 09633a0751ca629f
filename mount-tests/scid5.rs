//! A SCID 5 database mounted like a SCID 4 one: the same tree, every game as `gamefs export`
//! gives it, and the edits SCID 5's own script made (tests/data/scid5/s5edit.tcl) made through
//! the mount give SCID 5's bytes.

use std::path::{Path, PathBuf};

use crate::harness::{Mount, assert_tree_is_export, gamefs_ok, repo, scratch};

const EXTS: [&str; 3] = ["si5", "sn5", "sg5"];

fn golden() -> PathBuf {
    let dir = repo().join("tests/data/scid5");
    assert!(
        dir.join("gen300.si5").is_file(),
        "the golden files are missing: {} (tests/data/ of the checkout)",
        dir.display()
    );
    dir
}

fn file(base: &Path, ext: &str) -> PathBuf {
    PathBuf::from(format!("{}.{ext}", base.display()))
}

/// A private copy of golden set `name` in `dir`.
pub(crate) fn golden_copy(name: &str, dir: &Path) -> PathBuf {
    let base = dir.join(name);
    for ext in EXTS {
        std::fs::copy(file(&golden().join(name), ext), file(&base, ext)).unwrap();
    }
    base
}

#[test]
fn the_tree_shows_every_game_as_export_does() {
    let dir = scratch("scid5-read");
    let db = golden_copy("gen300", dir.path());
    // Mounted by its base name: the files' kind is found on disk.
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    assert_tree_is_export(&m, &db, 300);
}

#[test]
fn scid5s_edits_made_through_the_mount_give_scid5s_bytes() {
    let dir = scratch("scid5-edit");
    let db = golden_copy("gen300", dir.path());
    let m = Mount::new(&file(&db, "si5"), dir.path(), &[]);
    // Game 2: Event changed and a comment after the first move, saved in place.
    let game = m.game(2);
    let text = std::fs::read_to_string(&game).unwrap();
    let edited = text
        .replacen(
            "[Event \"Budapest Blitz 1968\"]",
            "[Event \"Replaced by SCID 5\"]",
            1,
        )
        .replacen("\n\n1. e4 e5", "\n\n1. e4 {comment added by SCID 5} e5", 1);
    assert_eq!(edited.matches("SCID 5").count(), 2, "{text}");
    std::fs::write(&game, edited).unwrap();
    // Game 3: deleted.
    std::fs::remove_file(m.game(3)).unwrap();
    // The game of edited-added.pgn: copied in.
    std::fs::copy(
        golden().join("edited-added.pgn"),
        m.join("games").join("added.pgn"),
    )
    .unwrap();
    drop(m);
    for ext in EXTS {
        let ours = std::fs::read(file(&db, ext)).unwrap();
        let scid5 = std::fs::read(file(&golden().join("edited"), ext)).unwrap();
        assert!(ours == scid5, "{ext} differs from SCID 5's");
    }
}

#[test]
fn chess960_games_copied_into_a_new_database_give_scid5s_bytes() {
    let dir = scratch("scid5-960");
    let db = dir.path().join("new.si5");
    gamefs_ok([Path::new("create"), &db]);
    let m = Mount::new(&db, dir.path(), &[]);
    std::fs::copy(
        golden().join("chess960.pgn"),
        m.join("games").join("960.pgn"),
    )
    .unwrap();
    let first = std::fs::read_to_string(m.game(1)).unwrap();
    assert!(first.contains("[Variant \"Chess960\"]"), "{first}");
    drop(m);
    let base = dir.path().join("new");
    for ext in EXTS {
        let ours = std::fs::read(file(&base, ext)).unwrap();
        let scid5 = std::fs::read(file(&golden().join("chess960"), ext)).unwrap();
        assert!(ours == scid5, "{ext} differs from SCID 5's");
    }
}
