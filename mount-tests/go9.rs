//! A 9x9 Go position database mounted as SGF files: the tree and its views, sgfmill-free
//! checks of the text, saving a changed position, importing a new one, rm, and refusals.

use std::path::{Path, PathBuf};

use crate::harness::{Mount, gamefs_ok, listing, repo, scratch, sh};

/// A database of the five published example positions, with a scored file.
pub(crate) fn example_db(dir: &Path) -> PathBuf {
    let data = repo().join("tests/data/go9x9");
    assert!(
        data.is_dir(),
        "the Go data is missing: {} (tests/data/ of the checkout)",
        data.display()
    );
    let db = dir.join("go");
    std::fs::create_dir(&db).unwrap();
    std::fs::copy(
        data.join("zobrist_board_81.dat"),
        db.join("zobrist_board_81.dat"),
    )
    .unwrap();
    let examples = data.join("published-examples.txt");
    let mut args: Vec<&Path> = ["go9", "import", "--create", "--to-play", "W"]
        .map(Path::new)
        .to_vec();
    args.extend([db.as_path(), examples.as_path()]);
    gamefs_ok(args);
    // A scored file: the first position scored 6 with confidence 80 by "fuego_chinese".
    let positions = std::fs::read(db.join("positions.dat")).unwrap();
    let mut score = positions[..10].to_vec();
    score.extend([6, 80]);
    std::fs::write(db.join("fuego_chinese.dat"), score).unwrap();
    db
}

#[test]
fn positions_views_and_text() {
    let dir = scratch("go-tree");
    let db = example_db(dir.path());
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    assert_eq!(sh(&m.path, "ls"), "positions\nscores\nstones\nto-play\n");
    let positions = listing(&m.join("positions"));
    assert_eq!(positions.len(), 5);
    assert!(
        positions
            .iter()
            .any(|p| p.ends_with("31846ceb8015dc92-0-W.sgf")),
        "{positions:?}"
    );
    for p in &positions {
        let text = std::fs::read_to_string(p).unwrap();
        assert_eq!(std::fs::metadata(p).unwrap().len() as usize, text.len());
        assert!(text.starts_with("(;FF[4]GM[1]SZ[9]"), "{text}");
    }
    assert_eq!(listing(&m.join("to-play/W")).len(), 5);
    assert_eq!(listing(&m.join("stones")).len(), 5, "1 to 5 stones");
    let scored = listing(&m.join("scores/fuego_chinese/6"));
    assert_eq!(scored.len(), 1);
    assert_eq!(
        std::fs::read_link(&scored[0])
            .unwrap()
            .to_str()
            .unwrap()
            .matches("../")
            .count(),
        3
    );
    assert!(
        std::fs::read_to_string(&scored[0])
            .unwrap()
            .contains("fuego_chinese")
    );
    let found = sh(&m.path, "grep -rl 31846ceb8015dc92 positions | wc -l");
    assert_eq!(found.trim(), "1", "grep -r finds a position by its hash");
}

#[test]
fn saving_importing_and_removing_positions() {
    let dir = scratch("go-save");
    let db = example_db(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let before = std::fs::read(db.join("positions.dat")).unwrap();
    // An unchanged save changes nothing.
    let first = m.join("positions/31846ceb8015dc92-0-W.sgf");
    let text = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&first, &text).unwrap();
    assert_eq!(std::fs::read(db.join("positions.dat")).unwrap(), before);
    // A new file with one more stone becomes a new position.
    let new = dir.path().join("new.sgf");
    std::fs::write(&new, "(;FF[4]GM[1]SZ[9]AB[dd][ee]AW[cc]PL[W])").unwrap();
    sh(&m.path, &format!("cp '{}' positions/", new.display()));
    assert_eq!(listing(&m.join("positions")).len(), 6);
    assert!(!m.join("positions/new.sgf").exists());
    assert_eq!(
        std::fs::read(db.join("positions.dat")).unwrap().len(),
        before.len() + 92
    );
    // rm removes a position by rewriting the file.
    std::fs::remove_file(&first).unwrap();
    assert_eq!(listing(&m.join("positions")).len(), 5);
    assert_eq!(
        std::fs::read(db.join("positions.dat")).unwrap().len(),
        before.len()
    );
    // A board that is not 9x9 is refused; nothing changes.
    let bad = listing(&m.join("positions")).remove(0);
    let current = std::fs::read(db.join("positions.dat")).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&bad)
        .unwrap();
    std::io::Write::write_all(&mut f, b"(;FF[4]GM[1]SZ[19]AB[dd])").unwrap();
    let err = f.sync_all().unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EINVAL), "{err}");
    drop(f);
    assert_eq!(std::fs::read(db.join("positions.dat")).unwrap(), current);
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("19"), "{errors}");
}

#[test]
fn explicit_file_paths_as_mount_options() {
    let dir = scratch("go-paths");
    let db = example_db(dir.path());
    let elsewhere = dir.path().join("tables");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::rename(db.join("zobrist_board_81.dat"), elsewhere.join("z81.dat")).unwrap();
    std::fs::rename(
        db.join("fuego_chinese.dat"),
        elsewhere.join("fuego_chinese.dat"),
    )
    .unwrap();
    let opts = format!(
        "ro,zobrist={},scored={}",
        elsewhere.join("z81.dat").display(),
        elsewhere.join("fuego_chinese.dat").display()
    );
    let m = Mount::new(&db, dir.path(), &["-o", &opts]);
    assert_eq!(listing(&m.join("positions")).len(), 5);
    assert_eq!(listing(&m.join("scores/fuego_chinese/6")).len(), 1);
}
