//! ChessBase databases mounted through the kernel: read-only, each game a PGN file as
//! `gamefs export` writes it, a write refused with EROFS (tests/data/chessbase).

use std::path::{Path, PathBuf};

use crate::harness::{Mount, assert_tree_is_export, gamefs_ok, listing, repo, scratch};

/// TWIC 1134 as a ChessBase database, copied into `dir` (the mount writes nothing, but
/// the test should not depend on that).
fn twic(dir: &Path) -> PathBuf {
    for ext in ["cbh", "cbg", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj"] {
        let name = format!("twic1134.{ext}");
        std::fs::copy(
            repo().join("tests/data/chessbase").join(&name),
            dir.join(&name),
        )
        .unwrap();
    }
    dir.join("twic1134")
}

#[test]
fn a_chessbase_database_mounts_read_only_as_its_games() {
    let dir = scratch("chessbase-twic");
    let base = twic(dir.path());
    let before = std::fs::read(base.with_extension("cbg")).unwrap();
    // Named by its base, as SCID databases are; the .cbh names it as well.
    let m = Mount::new(&base, dir.path(), &[]);
    assert_tree_is_export(&m, &base, 6117);
    let first = m.game(1);
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, "0001 Vachier Lagrave, M - Svidler, P 2016.pgn");
    let text = std::fs::read_to_string(&first).unwrap();
    assert!(
        text.starts_with("[Event \"49th Biel Masters Match\"]\n"),
        "{text}"
    );
    assert!(text.contains("47. g4 1-0\n"), "{text}");
    // A game of a team event names its teams (.cbj and .cbe).
    let team_game = listing(&m.join("events/27th Czech Open E 2016"))[0].clone();
    let text = std::fs::read_to_string(&team_game).unwrap();
    assert!(text.contains("[WhiteTeam \""), "{text}");
    // A write, a new file and a removal: EROFS.
    let e = std::fs::OpenOptions::new()
        .append(true)
        .open(&first)
        .unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EROFS));
    let e = std::fs::write(m.join("games/new.pgn"), "1. e4 *\n").unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EROFS));
    assert_eq!(
        std::fs::remove_file(&first).unwrap_err().raw_os_error(),
        Some(libc::EROFS)
    );
    let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    assert!(stats.contains("ChessBase"), "{stats}");
    drop(m);
    assert!(std::fs::read(base.with_extension("cbg")).unwrap() == before);
    // The .cbh names the database too; `gamefs info` and `check` read it.
    let cbh = base.with_extension("cbh");
    let m = Mount::new(&cbh, dir.path(), &[]);
    assert_eq!(listing(&m.join("games")).len(), 6117);
    drop(m);
    let info = gamefs_ok([Path::new("info"), &cbh]);
    assert!(info.contains("6117"), "{info}");
    gamefs_ok([Path::new("check"), &base]);
}

#[test]
fn what_a_chessbase_database_holds_and_gamefs_does_not_show_is_in_errors() {
    let dir = scratch("chessbase-left-out");
    let base = twic(dir.path());
    // Record 2 marked a guiding text (a page of text, not a game); game 1 said to have
    // critical positions, whose annotations gamefs does not show yet, in a .cba of its own.
    let cbh = base.with_extension("cbh");
    let mut bytes = std::fs::read(&cbh).unwrap();
    bytes[2 * 46] |= 0x02;
    bytes[46 + 5..46 + 9].copy_from_slice(&26u32.to_be_bytes());
    bytes[46 + 39..46 + 43].copy_from_slice(&(1u32 << 24).to_be_bytes());
    std::fs::write(&cbh, bytes).unwrap();
    let mut cba = vec![0u8; 26];
    cba.extend([0, 0, 1, 1, 0, 0x0E, 0x0E, 0, 0, 1, 0, 0, 0, 14]);
    std::fs::write(base.with_extension("cba"), cba).unwrap();
    let m = Mount::new(&base, dir.path(), &[]);
    assert_eq!(listing(&m.join("games")).len(), 6116);
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains("guiding texts (pages of text, not games) are not shown: 1 of them"),
        "{errors}"
    );
    assert!(
        errors.contains("critical positions (.cba) are not shown yet: 1 game(s)"),
        "{errors}"
    );
    assert!(
        std::fs::read_to_string(m.game(1))
            .unwrap()
            .contains("47. g4 1-0")
    );
}

#[test]
fn a_chessbase_archive_mounts_as_the_database_it_packs() {
    let dir = scratch("chessbase-cbv");
    let cbv = dir.path().join("twic1134.cbv");
    std::fs::copy(repo().join("tests/data/chessbase/twic1134.cbv"), &cbv).unwrap();
    let cache = dir.path().join("cache");
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let m = Mount::with_env(&cbv, dir.path(), &[], &env);
    assert_eq!(listing(&m.join("games")).len(), 6117);
    let text = std::fs::read_to_string(m.game(1)).unwrap();
    let base = twic(dir.path());
    let export = gamefs_ok([Path::new("export"), &base.with_extension("cbh")]);
    assert!(export.starts_with(&text), "{text}");
}

#[test]
fn a_game_shown_cut_is_named_in_errors_once_read() {
    let dir = scratch("chessbase-cut");
    let from = repo().join("tests/data/chessbase/exports/NormalNoPop");
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let m = Mount::new(&dir.path().join("StandardMissingPop.cbh"), dir.path(), &[]);
    let text = std::fs::read_to_string(m.game(1)).unwrap();
    assert!(text.contains("[PlyCount \"107\"]"), "{text}");
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains("the moves stop at byte 111: no Queen in slot 1"),
        "{errors}"
    );
}
