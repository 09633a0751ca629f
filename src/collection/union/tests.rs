//! The union collection over real members: a SCID database of the demo games and PGN files
//! holding parts of them.

use std::path::{Path, PathBuf};

use super::*;
use crate::store::OpenOptions;
use crate::testing::{demo_folder, demo_games_from};

fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = demo_folder();
    let path = dir.path().to_path_buf();
    (dir, path)
}

fn open(dir: &Path, writable: bool, into: Option<&str>) -> Result<UnionCollection> {
    open_folder(
        dir,
        &OpenOptions {
            writable,
            into: into.map(str::to_owned),
            ..OpenOptions::default()
        },
    )
}

fn alone(path: &Path) -> Arc<dyn Collection> {
    crate::collection::open(path, &OpenOptions::default()).unwrap()
}

#[test]
fn every_game_of_every_member_once_with_its_own_bytes() {
    let (_keep, dir) = folder();
    let u = open(&dir, false, None).unwrap();
    let later = alone(&dir.join("later.pgn"));
    let scid = alone(&dir.join("db"));
    assert_eq!(u.count(), 46);
    let names: Vec<String> = (0..u.count()).map(|n| u.file_name(n)).collect();
    assert_eq!(names[0], format!("db--{}", scid.file_name(0)));
    assert_eq!(names[30], format!("later--{}", later.file_name(0)));
    assert!(
        names[0].starts_with("db--0001 Greco, Gioachino - NN"),
        "{}",
        names[0]
    );
    for n in 0..u.count() {
        let (member, local) = if n < 30 { (&scid, n) } else { (&later, n - 30) };
        assert_eq!(
            u.render(n).unwrap(),
            member.render(local).unwrap(),
            "{}",
            names[n as usize]
        );
        assert_eq!(u.item_named(names[n as usize].as_bytes()), Some(n));
    }
    assert_eq!(u.item_named(b"later--0003.pgn"), Some(32));
    assert_eq!(u.item_named(b"0003.pgn"), None);
    assert_eq!(u.item_named(b"nosuch--0003.pgn"), None);
    assert_eq!(
        u.item_named(b"later--0017.pgn"),
        None,
        "later holds 16 games"
    );
    assert_eq!(u.item_label(31), "later: game 2");
    assert_eq!(u.info().files.len(), 4, "the SCID files and the PGN file");
    assert!(!u.writable());
}

#[test]
fn views_are_merged_by_name() {
    let (_keep, dir) = folder();
    let u = open(&dir, false, None).unwrap();
    let players = u.view_members(0);
    let reti: Vec<u32> = players
        .iter()
        .filter(|&&(key, _)| u.view_label(0, key) == "Réti, Richard")
        .map(|&(_, n)| n)
        .collect();
    // Games 13 and 19 of the SCID database, game 19 of the demo = game 5 of later.pgn.
    assert_eq!(reti, [12, 18, 34]);
    let keys: std::collections::HashSet<u32> = players
        .iter()
        .filter(|&&(key, _)| u.view_label(0, key) == "Réti, Richard")
        .map(|&(key, _)| key)
        .collect();
    assert_eq!(keys.len(), 1, "one group");
    assert_eq!(u.view_keys(0, 34)[0], *keys.iter().next().unwrap());
    assert!(
        players.windows(2).all(|w| w[0].1 <= w[1].1),
        "items ascending"
    );
}

#[test]
fn saves_and_deletions_go_to_their_member_and_new_games_need_into() {
    let (_keep, dir) = folder();
    let u = open(&dir, true, None).unwrap();
    assert!(u.writable());
    let text = String::from_utf8(u.render(5).unwrap())
        .unwrap()
        .replace("Paris", "Lutetia");
    assert!(u.save(5, text.as_bytes()).unwrap());
    // The PGN file is only read.
    let e = u.save(30, &u.render(30).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert!(e.message().starts_with("later: "), "{e}");
    u.set_deleted(2, true).unwrap();
    assert!(u.deleted(2));
    let e = u
        .import(text.as_bytes(), OnBadGame::Skip, &|_| {})
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotPermitted);
    assert!(e.message().contains("-o into="), "{e}");
    drop(u);
    let scid = alone(&dir.join("db"));
    assert!(
        String::from_utf8(scid.render(5).unwrap())
            .unwrap()
            .contains("Lutetia")
    );
    assert!(scid.deleted(2));
}

#[test]
fn new_games_go_into_the_member_named_and_take_the_next_numbers() {
    let (_keep, dir) = folder();
    std::fs::copy(dir.join("later.pgn"), dir.join("more.pgn")).unwrap();
    // Game 1 of the SCID database is the first; the PGN members follow.
    let u = open(&dir, true, Some("db")).unwrap();
    assert_eq!(u.count(), 62);
    let name_before = u.file_name(61);
    let report = u
        .import(demo_games_from(29).as_bytes(), OnBadGame::Skip, &|_| {})
        .unwrap();
    assert_eq!(report.numbers, [62, 63]);
    assert_eq!(u.count(), 64);
    assert_eq!(u.file_name(61), name_before, "no number changes meaning");
    assert!(
        u.file_name(62).starts_with("db--0031 "),
        "{}",
        u.file_name(62)
    );
    assert_eq!(u.item_named(b"db--0032.pgn"), Some(63));
    assert_eq!(u.render(63).unwrap(), u.render(29).unwrap());
    // The views hold the new games in order, after the others.
    let years = u.view_members(3);
    assert!(years.windows(2).all(|w| w[0].1 <= w[1].1));
    assert!(years.iter().any(|&(_, n)| n == 63));
    drop(u);
    assert_eq!(
        open(&dir, true, Some("later")).err().unwrap().kind(),
        ErrorKind::ReadOnly
    );
    let e = open(&dir, true, Some("nosuch")).err().unwrap();
    assert!(e.message().contains("db, later, more"), "{e}");
}

#[test]
fn a_file_that_does_not_open_is_skipped_and_named() {
    let (_keep, dir) = folder();
    std::fs::write(dir.join("broken.si4"), b"not a SCID index").unwrap();
    let u = open(&dir, false, None).unwrap();
    assert_eq!(u.count(), 46);
    let problems = u.problems();
    assert!(
        problems
            .iter()
            .any(|p| p.item.is_none() && p.message.contains("broken.si4: not mounted")),
        "{problems:?}"
    );
    let stats = u.members();
    assert_eq!(stats.len(), 3);
    assert_eq!(stats[0].name, "db");
    assert_eq!(stats[0].count, 30);
    assert!(stats[2].skipped.is_some());
    // A folder where nothing opens is an error.
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("broken.si4"), b"x").unwrap();
    let e = open(empty.path(), false, None).err().unwrap();
    assert!(
        e.message().contains("none of its 1 database(s) opens"),
        "{e}"
    );
    let e = open(tempfile::tempdir().unwrap().path(), false, None)
        .err()
        .unwrap();
    assert!(e.message().contains("holds no chess database"), "{e}");
}

#[test]
fn a_folder_that_is_a_database_keeps_its_meaning() {
    let (_keep, dir) = folder();
    // `dir/db` is a base path, and a folder beside it named so still opens the database.
    std::fs::create_dir(dir.join("db")).unwrap();
    let c = crate::collection::open(&dir.join("db"), &OpenOptions::default()).unwrap();
    assert_eq!(c.count(), 30);
    assert!(c.members().is_empty());
    let c = crate::collection::open(&dir, &OpenOptions::default()).unwrap();
    assert_eq!(c.members().len(), 2);
}

#[test]
fn scid_5_and_simple_chess_databases_are_members_too() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for ext in ["si5", "sn5", "sg5"] {
        let file = format!("edge.{ext}");
        std::fs::copy(data.join("scid5").join(&file), dir.path().join(&file)).unwrap();
    }
    for ext in ["dci", "dcn", "dcs", "dce", "dcg"] {
        let from = data.join("simplecdb").join(format!("edge.{ext}"));
        std::fs::copy(from, dir.path().join(format!("jerry.{ext}"))).unwrap();
    }
    let u = open(dir.path(), false, None).unwrap();
    let scid5 = alone(&dir.path().join("edge.si5"));
    let simple = alone(&dir.path().join("jerry.dci"));
    assert_eq!(u.count(), scid5.count() + simple.count());
    let last = u.count() - 1;
    assert_eq!(
        u.file_name(last),
        format!("jerry--{}", simple.file_name(simple.count() - 1))
    );
    assert_eq!(
        u.render(last).unwrap(),
        simple.render(simple.count() - 1).unwrap()
    );
    assert_eq!(u.render(0).unwrap(), scid5.render(0).unwrap());
    let stats = u.members();
    assert!(
        stats[0].info.format.contains("SCID 5"),
        "{:?}",
        stats[0].info
    );
}

#[test]
fn the_sizes_a_pgn_member_knows_are_known_in_a_mixed_folder() {
    let (_keep, dir) = folder();
    let u = open(&dir, false, None).unwrap();
    let sizes = u.known_sizes().unwrap();
    assert_eq!(sizes.len(), 46);
    assert!(
        sizes[..30].iter().all(Option::is_none),
        "a SCID database renders"
    );
    for n in 30..46 {
        assert_eq!(sizes[n as usize], Some(u.render(n).unwrap().len() as u64));
    }
    std::fs::remove_file(dir.join("later.pgn")).unwrap();
    assert_eq!(open(&dir, false, None).unwrap().known_sizes(), None);
}

#[test]
fn a_chessbase_database_is_a_read_only_member_beside_writable_ones() {
    let (_keep, dir) = folder();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chessbase");
    for ext in ["cbh", "cbg", "cbp", "cbt", "cbc", "cbs"] {
        let name = format!("twic1134.{ext}");
        std::fs::copy(data.join(&name), dir.join(&name)).unwrap();
    }
    let u = open(&dir, true, None).unwrap();
    assert_eq!(u.count(), 46 + 6117);
    assert!(u.writable());
    let twic: Vec<_> = u
        .members()
        .into_iter()
        .filter(|m| m.name == "twic1134")
        .collect();
    assert_eq!(twic.len(), 1);
    assert!(!twic[0].writable && twic[0].skipped.is_none());
    let first = (0..u.count())
        .find(|&n| u.file_name(n).starts_with("twic1134--"))
        .unwrap();
    assert_eq!(
        u.file_name(first),
        "twic1134--0001 Vachier Lagrave, M - Svidler, P 2016.pgn"
    );
    assert!(u.render(first).is_ok());
}
