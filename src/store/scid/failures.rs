//! Saves that fail part-way (a full disk, a refused game): the files and the open database
//! are left as they were, and the next save is counted as SCID counts it.

use std::path::{Path, PathBuf};

use super::check::check;
use super::{ScidDatabase, with_ext};
use crate::game::ChessGame;
use crate::store::{ChessStore, NameKind};
use crate::testing::demo_db;

fn files(base: &Path) -> Vec<Vec<u8>> {
    ["si4", "sn4", "sg4"]
        .iter()
        .map(|e| std::fs::read(with_ext(base, e)).unwrap())
        .collect()
}

/// Make the name file's temp path unusable (a folder with a file in it), as a full disk
/// would make writing it fail; returns the path to clear it again.
fn block_names(base: &Path) -> PathBuf {
    let tmp = with_ext(base, "sn4.gamefs-tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::write(tmp.join("x"), b"").unwrap();
    tmp
}

fn with_new_site(db: &ScidDatabase, n: u32, site: &str) -> ChessGame {
    let mut game = db.load(n).unwrap();
    game.headers.site = site.to_owned();
    game
}

fn assert_clean(base: &Path) {
    let db = ScidDatabase::open(base, false).unwrap();
    let problems = check(&db, |_| {});
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_replace_that_cannot_write_the_names_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let base = demo_db(dir.path());
    let db = ScidDatabase::open(&base, true).unwrap();
    let before = files(&base);
    let sites = db.name_count(NameKind::Site);
    let blocked = block_names(&base);
    let err = db
        .replace(3, &with_new_site(&db, 3, "Nowhere New"))
        .unwrap_err();
    assert!(err.message().contains("gamefs-tmp"), "{err}");
    assert!(before == files(&base), "the files are as they were");
    assert_eq!(
        db.name_count(NameKind::Site),
        sites,
        "the new name is forgotten"
    );
    std::fs::remove_dir_all(blocked).unwrap();
    assert!(
        db.replace(3, &with_new_site(&db, 3, "Nowhere New"))
            .unwrap()
    );
    assert!(db.replace(5, &with_new_site(&db, 5, "Elsewhere")).unwrap());
    assert_eq!(db.name_count(NameKind::Site), sites + 2);
    drop(db);
    assert_clean(&base);
}

#[test]
fn an_import_that_cannot_write_the_names_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let base = demo_db(dir.path());
    let db = ScidDatabase::open(&base, true).unwrap();
    let before = files(&base);
    let count = db.game_count();
    let games = || [1, 2].map(|n| Ok(with_new_site(&db, n, &format!("Import site {n}"))));
    let blocked = block_names(&base);
    assert!(db.append(&mut games().into_iter()).is_err());
    assert!(
        before == files(&base),
        "no records, names or entries left behind"
    );
    assert_eq!(db.game_count(), count);
    std::fs::remove_dir_all(blocked).unwrap();
    assert_eq!(
        db.append(&mut games().into_iter()).unwrap(),
        [count, count + 1]
    );
    drop(db);
    assert_clean(&base);
}

#[test]
fn a_game_refused_after_its_first_names_leaves_no_names_behind() {
    let dir = tempfile::tempdir().unwrap();
    let base = demo_db(dir.path());
    let db = ScidDatabase::open(&base, true).unwrap();
    let mut game = with_new_site(&db, 2, "A site that never gets stored");
    game.headers.white = "x".repeat(300);
    let events = db.name_count(NameKind::Event);
    let sites = db.name_count(NameKind::Site);
    assert!(db.replace(2, &game).is_err());
    assert_eq!(
        (
            db.name_count(NameKind::Event),
            db.name_count(NameKind::Site)
        ),
        (events, sites)
    );
    assert!(db.replace(4, &with_new_site(&db, 4, "Stored")).unwrap());
    drop(db);
    let db = ScidDatabase::open(&base, false).unwrap();
    assert_eq!(db.name_count(NameKind::Site), sites + 1);
}

#[test]
fn an_import_refused_at_a_later_game_leaves_the_files_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let base = demo_db(dir.path());
    let db = ScidDatabase::open(&base, true).unwrap();
    let before = files(&base);
    let mut bad = with_new_site(&db, 1, "Late");
    bad.headers.black = "y".repeat(300);
    let games = [
        Ok(with_new_site(&db, 0, "First new site")),
        Ok(with_new_site(&db, 2, "Second new site")),
        Ok(bad),
    ];
    assert!(db.append(&mut games.into_iter()).is_err());
    assert!(
        before == files(&base),
        "the records written first are cut off"
    );
}
