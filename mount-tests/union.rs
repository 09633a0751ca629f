//! A folder of databases mounted as one, through the kernel: two PGN files (one a `zstd`
//! dump) and a SCID database made by Debian's SCID show every game once, named after its
//! file, with the bytes each file's own mount shows; the views merge the files; a save lands
//! in its own database; a file added appears at the next mount; a broken file is skipped
//! with a message.

use std::path::{Path, PathBuf};

use crate::harness::{Mount, demo_games, eventually, listing, repo, scid_import, scratch, sh};

/// A folder `dir/folder` holding `first.pgn` (demo games 1–14), `later.pgn.zst` (demo games
/// 15–30, compressed with `zstd`) and `club`, a SCID database Debian's SCID made of
/// tests/data/names.pgn.
fn folder(dir: &Path) -> PathBuf {
    let folder = dir.join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("first.pgn"), demo_games(1, 14)).unwrap();
    std::fs::write(dir.join("later.pgn"), demo_games(15, 30)).unwrap();
    sh(dir, "zstd -q later.pgn -o folder/later.pgn.zst");
    scid_import(
        &[&repo().join("tests/data/names.pgn")],
        &folder.join("club"),
    );
    folder
}

/// File names in `path`, sorted.
fn names(path: &Path) -> Vec<String> {
    listing(path)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// Mount `db` alone (read-only, in a folder of its own under `dir`) and give each game's name
/// and bytes.
fn games_alone(db: &Path, dir: &Path) -> Vec<(String, Vec<u8>)> {
    let at = dir.join(db.file_name().unwrap());
    std::fs::create_dir_all(&at).unwrap();
    let m = Mount::new(db, &at, &["-r"]);
    listing(&m.join("games"))
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_folder_shows_every_game_of_every_file_once_with_its_own_bytes() {
    let dir = scratch("union-bytes");
    let folder = folder(dir.path());
    let m = Mount::new(&folder, dir.path(), &[]);
    let union = names(&m.join("games"));
    let mut expected = 0;
    for (member, file) in [
        ("club", folder.join("club")),
        ("first", folder.join("first.pgn")),
        ("later", folder.join("later.pgn.zst")),
    ] {
        let alone = games_alone(&file, &dir.path().join("alone"));
        assert!(!alone.is_empty(), "{member}");
        for (name, bytes) in &alone {
            let joined = format!("{member}--{name}");
            assert!(union.contains(&joined), "{joined} missing");
            assert!(
                std::fs::read(m.join("games").join(&joined)).unwrap() == *bytes,
                "{joined}: other bytes than in its own mount"
            );
        }
        expected += alone.len();
    }
    assert_eq!(union.len(), expected, "every game once: {union:?}");
    assert_eq!(expected, 11 + 14 + 16);
    // A player's folder holds their games from both PGN files.
    assert_eq!(
        names(&m.join("players/Réti, Richard")),
        [
            "first--0013 Réti, Richard - Tartakower, Savielly 1910.pgn",
            "later--0005 Réti, Richard - Study 1921.pgn",
        ]
    );
    // grep -r over games/ reads each game once (the views are links).
    let counts = sh(&m.path, "grep -rc '^\\[White ' games | sort");
    let lines: Vec<&str> = counts.lines().collect();
    assert_eq!(lines.len(), expected);
    assert!(lines.iter().all(|l| l.ends_with(":1")), "{counts}");
    let found = sh(&m.path, "grep -rl 'Réti, Richard' . | sort");
    assert_eq!(found.lines().count(), 2, "{found}");
    // all.pgn holds every game; the stats name each file.
    let all = std::fs::read_to_string(m.join("all.pgn")).unwrap();
    assert_eq!(all.matches("[White ").count(), expected);
    let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    for member in ["club", "first", "later"] {
        assert!(stats.contains(&format!("\nmember {member}: ")), "{stats}");
    }
}

#[test]
fn a_save_lands_in_its_own_file_and_new_games_need_into() {
    let dir = scratch("union-save");
    let folder = folder(dir.path());
    let m = Mount::new(&folder, dir.path(), &[]);
    let game = listing(&m.join("games"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains("club--0002 "))
        .unwrap();
    sh(
        &m.path,
        &format!(
            "sed -i 's/^1\\. /{{Seen in the folder}} 1. /' '{}'",
            game.display()
        ),
    );
    // A game of a PGN file is only read; a new file belongs to no database.
    let pgn_game = listing(&m.join("games"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains("first--0001 "))
        .unwrap();
    let e = std::fs::remove_file(&pgn_game).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EROFS), "{e}");
    let new = m.join("games/new.pgn");
    let file = std::fs::File::create(&new).unwrap();
    std::io::Write::write_all(&mut &file, demo_games(1, 1).as_bytes()).unwrap();
    let e = file.sync_all().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EPERM), "{e}");
    drop(file);
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("-o into="), "{errors}");
    drop(m);
    // A fresh mount of the SCID database alone reads the save back.
    let alone = games_alone(&folder.join("club"), &dir.path().join("alone"));
    let saved = alone.iter().find(|(n, _)| n.starts_with("0002 ")).unwrap();
    assert!(
        String::from_utf8_lossy(&saved.1).contains("{Seen in the folder}"),
        "{}",
        String::from_utf8_lossy(&saved.1)
    );
    // With -o into=club, a new file's games go to the SCID database.
    let m = Mount::new(&folder, dir.path(), &["-o", "into=club"]);
    std::fs::write(m.join("games/new.pgn"), demo_games(29, 30)).unwrap();
    eventually("the new games listed", || {
        names(&m.join("games"))
            .iter()
            .any(|n| n.starts_with("club--0013 Sample, White"))
    });
    drop(m);
    let alone = games_alone(&folder.join("club"), &dir.path().join("alone2"));
    assert_eq!(alone.len(), 13);
}

#[test]
fn a_file_added_appears_at_the_next_mount_and_a_broken_one_is_skipped() {
    let dir = scratch("union-added");
    let folder = folder(dir.path());
    let m = Mount::new(&folder, dir.path(), &[]);
    assert_eq!(names(&m.join("games")).len(), 41);
    drop(m);
    std::fs::write(folder.join("added.pgn"), demo_games(3, 4)).unwrap();
    std::fs::write(folder.join("broken.si4"), b"not a SCID index at all").unwrap();
    let m = Mount::new(&folder, dir.path(), &[]);
    let games = names(&m.join("games"));
    assert_eq!(games.len(), 43);
    assert!(
        games[0].starts_with("added--0001 Anderssen, Adolf"),
        "{games:?}"
    );
    let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    assert!(
        stats.contains("\nmember broken: ") && stats.contains("not mounted"),
        "{stats}"
    );
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("broken.si4: not mounted"), "{errors}");
    // Anderssen's folder holds his games from the added file and from first.pgn.
    assert_eq!(names(&m.join("players/Anderssen, Adolf")).len(), 4);
}
