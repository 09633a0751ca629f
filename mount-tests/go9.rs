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

/// A record of `rows` with `to_play`, as another program (Cook's tools) appends it: the id
/// the zobrist table of `db` gives the board, encoded by the project's encoder.
fn their_record(
    db: &Path,
    rows: &[&str; 9],
    to_play: gamefs::game::go::Color,
) -> (String, Vec<u8>) {
    use gamefs::game::go::Board;
    use gamefs::store::go9x9::Go9Database;
    use gamefs::store::go9x9::records::{RawId, encode_position};
    let cells: [u8; 81] = rows.concat().into_bytes().try_into().unwrap();
    let board = Board::from_ascii(&cells).unwrap();
    // A read-only open takes no lock: the mount holds it.
    let id = Go9Database::open(db, false)
        .unwrap()
        .id_for(&board, to_play)
        .unwrap();
    let raw = RawId {
        hash: id.hash.to_be_bytes(),
        tiebreak: id.tiebreak,
        to_play,
    };
    (id.file_name(), encode_position(&raw, &board, None))
}

fn append_to(file: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// Another program appending positions to the database of a writable mount
/// (docs/SEMANTICS.md §10a): the mount shows the new position after a listing of
/// `positions/`, and a position copied in and a removal through the mount, made right after
/// another append, keep every one of its records.
#[test]
fn another_programs_positions_are_shown_and_kept() {
    use gamefs::game::go::Color;
    let dir = scratch("go-other");
    let db = example_db(dir.path());
    let file = db.join("positions.dat");
    let m = Mount::new(&db, dir.path(), &[]);
    assert_eq!(listing(&m.join("positions")).len(), 5);
    let (first, record) = their_record(
        &db,
        &[
            "#........",
            ".#.......",
            "..#......",
            ".........",
            "....O....",
            ".........",
            ".........",
            ".........",
            "........O",
        ],
        Color::Black,
    );
    append_to(&file, &record);
    crate::harness::eventually("the mount shows their position", || {
        listing(&m.join("positions")).len() == 6
    });
    assert!(m.join("positions").join(&first).exists());
    let text = std::fs::read_to_string(m.join("positions").join(&first)).unwrap();
    assert!(text.contains("PL[B]"), "{text}");

    // Their next position, then at once a new position copied in and a removal.
    let (second, record) = their_record(
        &db,
        &[
            "O........",
            "O........",
            "O........",
            ".........",
            "....#....",
            ".........",
            ".........",
            ".........",
            ".........",
        ],
        Color::White,
    );
    append_to(&file, &record);
    let new = dir.path().join("new.sgf");
    std::fs::write(&new, "(;FF[4]GM[1]SZ[9]AB[dd][ee][ff]AW[cc]PL[W])").unwrap();
    sh(&m.path, &format!("cp '{}' positions/", new.display()));
    std::fs::remove_file(m.join("positions/31846ceb8015dc92-0-W.sgf")).unwrap();
    let names: Vec<String> = listing(&m.join("positions"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 7, "{names:?}");
    assert!(
        names.contains(&first) && names.contains(&second),
        "{names:?}"
    );
    drop(m);
    let ids: Vec<String> = gamefs::store::go9x9::Go9Database::open(&db, false)
        .unwrap()
        .positions()
        .iter()
        .map(|p| p.id.file_name())
        .collect();
    assert_eq!(ids.len(), 7, "{ids:?}");
    assert!(ids.contains(&first) && ids.contains(&second), "{ids:?}");
    assert!(!ids.contains(&"31846ceb8015dc92-0-W.sgf".to_owned()));
}
