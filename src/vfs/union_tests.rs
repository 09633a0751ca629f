//! A folder of databases mounted as one, through the tree without a mount: one `games/`, the
//! views merged, saves into each game's member, new games refused without `-o into=`.
//! mount-tests/union.rs checks the same through the kernel.

use std::ffi::OsStr;
use std::sync::atomic::AtomicBool;

use super::testing::{CALLER, WRITE_NEW, at, names, text};
use super::{Node, Vfs, VfsOptions};
use crate::error::ErrorKind;
use crate::store::OpenOptions;
use crate::testing::{demo_folder, demo_games_from};

/// A tree over the database or folder at `path`, its position index kept at `index` and
/// built, new games going `into` the member named.
fn tree_over(
    path: &std::path::Path,
    index: &std::path::Path,
    writable: bool,
    into: Option<&str>,
) -> Vfs {
    let options = OpenOptions {
        writable,
        into: into.map(str::to_owned),
        ..OpenOptions::default()
    };
    let coll = crate::collection::open(path, &options).unwrap();
    let vfs = Vfs::new(
        coll,
        VfsOptions {
            position_index: Some(index.to_path_buf()),
            ..VfsOptions::default()
        },
    );
    vfs.build_positions(2, &AtomicBool::new(false), || ());
    vfs
}

/// A writable tree over [`demo_folder`], its position index built.
fn folder_tree(dir: &std::path::Path) -> Vfs {
    tree_over(dir, &dir.join("positions"), true, None)
}

#[test]
fn one_games_folder_and_merged_views_over_every_member() {
    let dir = demo_folder();
    let vfs = folder_tree(dir.path());
    let games = names(&vfs, "games");
    assert_eq!(games.len(), 46);
    assert_eq!(games.iter().filter(|g| g.starts_with("db--")).count(), 30);
    assert_eq!(
        games.iter().filter(|g| g.starts_with("later--")).count(),
        16
    );
    let reti = names(&vfs, "players/Réti, Richard");
    assert_eq!(
        reti,
        [
            "db--0013 Réti, Richard - Tartakower, Savielly 1910.pgn",
            "db--0019 Réti, Richard - Study 1921.pgn",
            "later--0005 Réti, Richard - Study 1921.pgn",
        ]
    );
    let link = at(&vfs, &format!("players/Réti, Richard/{}", reti[2])).unwrap();
    assert_eq!(
        vfs.readlink(link).unwrap(),
        format!("../../games/{}", reti[2]).into_bytes()
    );
    // all.pgn holds every game once; the tree counts the games of both members.
    let all = text(&vfs, "all.pgn");
    assert_eq!(all.matches("[Event ").count(), 46);
    let e4 = |vfs: &Vfs| names(vfs, "tree/e4/games").len();
    let alone = |name: &str| {
        let sub = tempfile::tempdir().unwrap();
        tree_over(
            &dir.path().join(name),
            &sub.path().join("positions"),
            false,
            None,
        )
    };
    assert_eq!(e4(&vfs), e4(&alone("db")) + e4(&alone("later.pgn")));
    // A player's colours hold his games of both members, trees included.
    assert_eq!(names(&vfs, "players/Réti, Richard/white"), reti);
    assert!(names(&vfs, "players/Réti, Richard/black").is_empty());
    let adams = "players/Adams, Edwin Ziegler/white/tree/e4/e5/Nf3/games";
    assert_eq!(
        names(&vfs, adams),
        [
            "db--0018 Adams, Edwin Ziegler - Torre, Carlos 1920.pgn",
            "later--0004 Adams, Edwin Ziegler - Torre, Carlos 1920.pgn",
        ]
    );
    let stats = text(&vfs, ".gamefs/stats");
    assert!(stats.contains("\nmember db: "), "{stats}");
    assert!(stats.contains("\nmember later: "), "{stats}");
    assert!(stats.contains("games: 46\n"), "{stats}");
}

#[test]
fn a_save_lands_in_its_member_and_a_new_game_needs_into() {
    let dir = demo_folder();
    let vfs = folder_tree(dir.path());
    let name = "db--0006 Morphy, Paul - Duke Karl of Brunswick and Count Isouard 1858.pgn";
    let edited = text(&vfs, &format!("games/{name}")).replace("Paris", "Lutetia");
    let ino = at(&vfs, &format!("games/{name}")).unwrap();
    let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
    vfs.write(ino, fh, 0, edited.as_bytes(), CALLER).unwrap();
    vfs.flush(ino, fh, CALLER).unwrap();
    vfs.release(ino, fh);
    assert_eq!(text(&vfs, &format!("games/{name}")), edited);
    // A game of the PGN file is only read.
    let games = Node::Games.ino();
    let pgn_game = names(&vfs, "games")[30].clone();
    let e = vfs.unlink(games, OsStr::new(&pgn_game)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    // A new file holds games of no member.
    let (attr, created) = vfs
        .create(games, OsStr::new("new.pgn"), 0o644, false, WRITE_NEW)
        .unwrap();
    let new = demo_games_from(30);
    vfs.write(attr.ino, created.fh, 0, new.as_bytes(), CALLER)
        .unwrap();
    let e = vfs.flush(attr.ino, created.fh, CALLER).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotPermitted);
    vfs.release(attr.ino, created.fh);
    assert!(text(&vfs, ".gamefs/errors").contains("-o into="));
    assert!(
        !names(&vfs, "games")
            .iter()
            .any(|g| g.starts_with("db--0031"))
    );
    drop(vfs);
    let alone = crate::collection::open(&dir.path().join("db"), &OpenOptions::default()).unwrap();
    assert_eq!(String::from_utf8(alone.render(5).unwrap()).unwrap(), edited);
}

#[test]
fn with_into_a_new_game_goes_to_that_member() {
    let dir = demo_folder();
    let vfs = tree_over(dir.path(), &dir.path().join("positions"), true, Some("db"));
    let games = Node::Games.ino();
    let (attr, created) = vfs
        .create(games, OsStr::new("new.pgn"), 0o644, false, WRITE_NEW)
        .unwrap();
    vfs.write(
        attr.ino,
        created.fh,
        0,
        demo_games_from(30).as_bytes(),
        CALLER,
    )
    .unwrap();
    vfs.flush(attr.ino, created.fh, CALLER).unwrap();
    vfs.release(attr.ino, created.fh);
    let all = names(&vfs, "games");
    assert_eq!(all.len(), 47);
    assert!(
        all.contains(&"db--0031 Sample, White - Sample, Black 2024.pgn".to_owned()),
        "{all:?}"
    );
}
