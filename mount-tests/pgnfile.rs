//! PGN files mounted through the kernel: read-only, every game's file the source's bytes, a
//! grown file indexed from where its index stops, a damaged frame of a pzstd file failing
//! only its games, and one-member gzip and bzip2 files read from checkpoints and blocks.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{Mount, gamefs, listing, repo, run_with_timeout, scratch, sh};

/// The real-world corpus (tests/data/realworld.md) as one PGN file of 216 files' games, in
/// `dir`.
fn real_world_file(dir: &Path) -> PathBuf {
    let unpacked = dir.join("realworld");
    std::fs::create_dir_all(&unpacked).unwrap();
    let status = Command::new("tar")
        .arg("-xJf")
        .arg(repo().join("tests/data/realworld.tar.xz"))
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(status.success());
    let path = dir.join("realworld.pgn");
    sh(
        dir,
        "find realworld -name '*.pgn' | LC_ALL=C sort | xargs cat > realworld.pgn",
    );
    path
}

/// The games' files of the mount, one after the other, in name order (as `cat games/*`).
fn all_games(m: &Mount) -> Vec<u8> {
    listing(&m.join("games"))
        .iter()
        .flat_map(|f| std::fs::read(f).unwrap())
        .collect()
}

/// The error of writing to `path` (which must fail).
fn write_error(path: &Path) -> i32 {
    let e = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap_err();
    e.raw_os_error().unwrap()
}

#[test]
fn a_real_world_pgn_file_mounts_read_only_and_serves_each_games_bytes() {
    let dir = scratch("pgnfile-real");
    let pgn = real_world_file(dir.path());
    let source = std::fs::read(&pgn).unwrap();
    let m = Mount::new(&pgn, dir.path(), &[]);
    let games = listing(&m.join("games")).len();
    assert!(games > 20_000, "{games} games");
    assert!(all_games(&m) == source, "cat games/* is not the file");
    // Read-only, as with -o ro.
    assert_eq!(write_error(&m.join("games/new.pgn")), libc::EROFS);
    let first = listing(&m.join("games")).remove(0);
    assert_eq!(write_error(&first), libc::EROFS);
    assert!(std::fs::remove_file(&first).is_err());
    // The views hold what the parser could read; the games it refused are named.
    let players = listing(&m.join("players")).len();
    assert!(players > 1000, "{players} players");
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("not read as PGN"), "{errors}");
    let counted = sh(&m.path, "grep -Rc '^\\[Event ' events | wc -l");
    assert!(counted.trim().parse::<usize>().unwrap() > 1000, "{counted}");
    drop(m);
    // Mounted again: the index kept, the same games.
    let m = Mount::new(&pgn, dir.path(), &[]);
    assert_eq!(listing(&m.join("games")).len(), games);
    assert!(all_games(&m) == source);
}

#[test]
fn a_grown_pgn_file_is_indexed_from_where_its_index_stops() {
    let dir = scratch("pgnfile-grown");
    let text = std::fs::read(repo().join("tests/data/fuzz-seed1000.pgn")).unwrap();
    // Cut where a game starts.
    let cut = text.len() / 2
        + text[text.len() / 2..]
            .windows(8)
            .position(|w| w == b"\n\n[Event")
            .unwrap()
        + 2;
    let pgn = dir.path().join("grows.pgn");
    std::fs::write(&pgn, &text[..cut]).unwrap();
    let m = Mount::new(&pgn, dir.path(), &[]);
    let before = listing(&m.join("games")).len();
    assert!(all_games(&m) == text[..cut]);
    drop(m);
    let mut f = std::fs::OpenOptions::new().append(true).open(&pgn).unwrap();
    std::io::Write::write_all(&mut f, &text[cut..]).unwrap();
    drop(f);
    let log = dir.path().join("log");
    let m = Mount::new(
        &pgn,
        dir.path(),
        &["--log-level", "info", "--log-file", log.to_str().unwrap()],
    );
    let after = listing(&m.join("games")).len();
    assert!(after > before, "{before} then {after} games");
    assert!(all_games(&m) == text);
    let log = std::fs::read_to_string(log).unwrap();
    assert!(log.contains("grew: indexing its new games"), "{log}");
}

/// A PGN file's index is kept between mounts (its games' sizes are in it), and beside it only
/// the games' modification times (docs/SEMANTICS.md §2) and the position index (§17).
#[test]
fn a_pgn_files_index_and_times_are_all_that_is_kept_between_mounts() {
    let dir = scratch("pgnfile-kept");
    let pgn = dir.path().join("tags.pgn");
    std::fs::copy(repo().join("tests/data/tags.pgn"), &pgn).unwrap();
    let cache = dir.path().join("cache");
    let m = Mount::with_env(&pgn, dir.path(), &[], &[("XDG_CACHE_HOME", &cache)]);
    // Sizes asked and games read, as a mount of a database would keep them.
    sh(&m.path, "ls -l games >/dev/null && cat games/* >/dev/null");
    drop(m);
    let kept: Vec<String> = listing(&cache.join("gamefs"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // The position index (tree/) is kept too once built; a build the unmount cut short leaves
    // none of its temporary run files.
    let kept: Vec<&String> = kept
        .iter()
        .filter(|k| !k.starts_with("positions-"))
        .collect();
    assert!(
        listing(&cache.join("gamefs"))
            .iter()
            .all(|p| !p.to_string_lossy().contains(".run-")),
        "{kept:?}"
    );
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept[0].starts_with("games-") && kept[1].starts_with("pgn-") && kept[1].ends_with(".idx"),
        "{kept:?}"
    );
}

#[test]
fn a_damaged_frame_of_a_pzstd_file_fails_only_its_games() {
    let dir = scratch("pgnfile-zst");
    let pgn = real_world_file(dir.path());
    let text = std::fs::read(&pgn).unwrap();
    sh(dir.path(), "pzstd -1 -q -p 2 realworld.pgn -o rw.pgn.zst");
    let zst = dir.path().join("rw.pgn.zst");
    let m = Mount::new(&zst, dir.path(), &[]);
    let games = listing(&m.join("games"));
    assert!(
        all_games(&m) == text,
        "the games of the .zst are not its text"
    );
    drop(m);
    // Bytes of the first frame turn to garbage.
    rot(&zst, 10);
    let m = Mount::new(&zst, dir.path(), &[]);
    let (failed, served) = read_all(&m);
    assert_eq!(failed + served, games.len());
    eprintln!("frame damaged after indexing: {failed} games fail with EIO, {served} are served");
    assert!(
        failed > 0 && served > games.len() / 2,
        "{failed} failed, {served} served"
    );
    // The last game, far from the damage, reads as before.
    let last = std::fs::read(games.last().unwrap()).unwrap();
    assert!(!last.is_empty() && text.ends_with(&last));
    drop(m);
    // A copy (no index yet) is indexed past the damaged frame.
    let copy = dir.path().join("copy.pgn.zst");
    std::fs::copy(&zst, &copy).unwrap();
    let m = Mount::new(&copy, dir.path(), &[]);
    let (failed, served) = read_all(&m);
    eprintln!("frame damaged before indexing: {failed} games fail with EIO, {served} are served");
    assert!(
        failed > 0 && served > games.len() / 2,
        "{failed} failed, {served} served"
    );
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("damaged member at byte"), "{errors}");
}

/// 200 bytes at a `tenth`th of the file at `path` turn to garbage; the file keeps its size
/// and time, as with a disk that rots, so the kept index is used.
fn rot(path: &Path, tenth: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    let middle = bytes.len() / tenth;
    for b in &mut bytes[middle..middle + 200] {
        *b ^= 0x5A;
    }
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    std::fs::write(path, bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

/// A gzip file of one member (as `gzip` writes it) is read from the checkpoint before each
/// game, not from its start: with its first stretch damaged after indexing, the games there
/// fail with EIO and all the others (most of them, the last one too) read as before.
#[test]
fn a_one_member_gzip_file_is_read_from_the_checkpoint_before_each_game() {
    read_from_start_points("pgnfile-gz", "gzip -6", "gz");
}

/// A bzip2 file of one stream (as `bzip2` writes it) is read from the block holding each game:
/// with a block damaged after indexing, its games fail with EIO and the others read.
#[test]
fn a_one_stream_bzip2_file_is_read_from_the_block_holding_each_game() {
    read_from_start_points("pgnfile-bz2", "bzip2 -9", "bz2");
}

/// The real-world corpus compressed by `compress` (a command writing to its output) as
/// `rw.pgn.EXT`: every game's bytes, then damage at a tenth of the file after indexing.
fn read_from_start_points(name: &str, compress: &str, ext: &str) {
    let dir = scratch(name);
    let pgn = real_world_file(dir.path());
    let text = std::fs::read(&pgn).unwrap();
    sh(
        dir.path(),
        &format!("{compress} -c realworld.pgn > rw.pgn.{ext}"),
    );
    let packed = dir.path().join(format!("rw.pgn.{ext}"));
    let m = Mount::new(&packed, dir.path(), &[]);
    let games = listing(&m.join("games"));
    assert!(
        all_games(&m) == text,
        "the games of the .{ext} are not its text"
    );
    // The last game first, then the first: each from its own start point.
    let last = std::fs::read(games.last().unwrap()).unwrap();
    assert!(!last.is_empty() && text.ends_with(&last));
    assert!(text.starts_with(&std::fs::read(&games[0]).unwrap()));
    drop(m);
    rot(&packed, 10);
    let m = Mount::new(&packed, dir.path(), &[]);
    let (failed, served) = read_all(&m);
    eprintln!(".{ext} damaged after indexing: {failed} games fail, {served} are served");
    assert!(
        failed > 0 && served > games.len() / 2,
        "{failed} failed, {served} served"
    );
    assert_eq!(std::fs::read(games.last().unwrap()).unwrap(), last);
}

/// Read every game's file of the mount: how many fail with EIO, and how many read.
fn read_all(m: &Mount) -> (usize, usize) {
    let (mut failed, mut served) = (0, 0);
    for game in listing(&m.join("games")) {
        match std::fs::read(&game) {
            Ok(_) => served += 1,
            Err(e) => {
                assert_eq!(e.raw_os_error(), Some(libc::EIO), "{}", game.display());
                failed += 1;
            }
        }
    }
    (failed, served)
}

#[test]
fn a_pgn_file_is_not_mounted_writable() {
    let dir = scratch("pgnfile-rw");
    let pgn = dir.path().join("tags.pgn");
    std::fs::copy(repo().join("tests/data/tags.pgn"), &pgn).unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    // Unmounted on the way out, should a regression mount it.
    let _unmount = crate::harness::Unmounted(mnt.clone());
    let out = run_with_timeout(
        Command::new(gamefs())
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .args(["mount", "-o", "rw"])
            .arg(&pgn)
            .arg(&mnt),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a PGN file is only read"), "{err}");
    assert!(!crate::harness::is_mounted(&mnt));
}

#[test]
fn a_game_whose_moves_do_not_replay_is_in_the_views_and_named_by_check() {
    let dir = scratch("pgnfile-moves");
    let pgn = dir.path().join("moves.pgn");
    std::fs::write(
        &pgn,
        "[Event \"Good\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"Illegal\"]\n[White \"C\"]\n[Black \"D\"]\n\n1. e4 e5 2. Ke3 0-1\n\n\
         [Event \"Broken tag\"]\n[Variant \"Seirawan\"]\n[White \"E\"]\n\n1. d4 *\n\n\
         [Event \"Last\"]\n[White \"F\"]\n[Black \"G\"]\n\n1. d4 d5 1/2-1/2\n",
    )
    .unwrap();
    let m = Mount::new(&pgn, dir.path(), &[]);
    assert_eq!(listing(&m.join("games")).len(), 4);
    // The index reads tags and skims moves: the game with an illegal move is classified.
    let events: Vec<String> = listing(&m.join("events"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(events, ["Good", "Illegal", "Last"]);
    // Only the game whose tags say it is no game of chess (SCID's import keeps a tag value not
    // closed on its line, and so does the index now) is named at mount.
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("not read as PGN"), "{errors}");
    assert_eq!(errors.matches("not read as PGN").count(), 1, "{errors}");
    assert!(!errors.contains("Ke3"), "{errors}");
    drop(m);
    // `gamefs check` replays every game's moves and names the illegal one too.
    let out = run_with_timeout(
        Command::new(gamefs()).arg("check").arg(&pgn),
        std::time::Duration::from_secs(60),
    );
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("Ke3"), "{said}");
    assert!(said.contains("not read as PGN"), "{said}");
}
