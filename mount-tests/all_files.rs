//! Every folder of games as one file (`all.pgn`, docs/SEMANTICS.md §2a): the root's is
//! `gamefs export`, a player's folder's is that player's games, found by name and never
//! listed, so walks of the mount read each game once.

use std::path::Path;

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, eventually, gamefs_ok, listing, repo, scratch, sh};

/// The texts of `files`, one after the other.
fn joined(files: &[std::path::PathBuf]) -> Vec<u8> {
    files
        .iter()
        .flat_map(|f| std::fs::read(f).unwrap())
        .collect()
}

#[test]
fn the_roots_and_each_folders_all_pgn_are_their_games_as_export_writes_them() {
    let dir = scratch("all-files");
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let all = std::fs::read(m.join("all.pgn")).unwrap();
    assert!(
        all == gamefs_ok([Path::new("export"), &db]).into_bytes(),
        "the export"
    );
    assert!(all == joined(&listing(&m.join("games"))), "games/ in order");
    assert_eq!(
        std::fs::metadata(m.join("all.pgn")).unwrap().len(),
        all.len() as u64
    );
    // A player's folder: that player's games; `cp` hands them to another program.
    let player = listing(&m.join("players")).into_iter().next().unwrap();
    let games = listing(&player);
    let copy = dir.path().join("player.pgn");
    std::fs::copy(player.join("all.pgn"), &copy).unwrap();
    assert!(std::fs::read(&copy).unwrap() == joined(&games));
    let imported = dir.path().join("player-db");
    gamefs_ok([
        "import".as_ref(),
        imported.as_os_str(),
        copy.as_os_str(),
        "--create".as_ref(),
        "-q".as_ref(),
    ]);
    let info = gamefs_ok(["info".as_ref(), imported.as_os_str()]);
    let count = info
        .lines()
        .find_map(|l| l.strip_prefix("games:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok());
    assert_eq!(count, Some(games.len()), "games imported back:\n{info}");
    // Random reads: a stretch read with dd is that stretch of the file.
    let stretch = sh(
        &m.path,
        "dd if=all.pgn bs=1000 skip=3 count=2 status=none | od -An -tx1",
    );
    let want: String = all[3000..5000.min(all.len())]
        .iter()
        .map(|b| format!(" {b:02x}"))
        .collect();
    assert_eq!(
        stretch.split_whitespace().collect::<Vec<_>>(),
        want.split_whitespace().collect::<Vec<_>>()
    );
}

#[test]
fn walks_of_the_mount_see_no_all_pgn_and_it_cannot_be_changed() {
    let dir = scratch("all-walks");
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = listing(&m.join("games")).len();
    assert_eq!(sh(&m.path, "find . -name all.pgn | wc -l").trim(), "0");
    assert!(!sh(&m.path, "ls -a").lines().any(|l| l == "all.pgn"));
    // grep -r reads each game once: in games/, not again through all.pgn.
    let events: usize = sh(&m.path, "grep -r -c '^\\[Event ' . | cut -d: -f2")
        .lines()
        .map(|l| l.trim().parse::<usize>().unwrap())
        .sum();
    assert_eq!(events, games);
    // It follows the games: no write, no removal, no rename.
    let all = m.join("all.pgn");
    let err = std::fs::OpenOptions::new()
        .write(true)
        .open(&all)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EACCES), "{err}");
    let err = std::fs::remove_file(&all).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
    let err = std::fs::rename(&all, m.join("games/x.pgn")).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
    // A save shows in it at once.
    let game = m.game(2);
    let text = std::fs::read_to_string(&game).unwrap();
    std::fs::write(&game, text.replacen("[Site \"", "[Site \"In all ", 1)).unwrap();
    eventually("all.pgn holds the save, with its size", || {
        let all_text = std::fs::read_to_string(&all).unwrap();
        all_text.contains("[Site \"In all ")
            && std::fs::metadata(&all).unwrap().len() == all_text.len() as u64
    });
}

#[test]
fn a_pgn_files_all_pgn_is_the_file() {
    let dir = scratch("all-pgnfile");
    let pgn = dir.path().join("demo.pgn");
    std::fs::copy(repo().join("contrib/sample/demo.pgn"), &pgn).unwrap();
    let m = Mount::new(&pgn, dir.path(), &[]);
    assert!(std::fs::read(m.join("all.pgn")).unwrap() == std::fs::read(&pgn).unwrap());
}

/// `cat all.pgn` over and over while rsync saves games (real tools, through the kernel, at
/// once): every read succeeds, and once the saves are done the root's all.pgn is the games
/// as they are now, the texts rendered ahead before a save not served after it.
#[test]
fn all_pgn_read_while_rsync_saves_games_follows_the_saves() {
    let dir = scratch("all-rsync");
    // The demo's real games twelve times over: more than one piece rendered ahead.
    let demo = std::fs::read(repo().join("contrib/sample/demo.pgn")).unwrap();
    let many = dir.path().join("many.pgn");
    std::fs::write(&many, demo.repeat(12)).unwrap();
    let db = dir.path().join("db");
    gamefs_ok([
        "import".as_ref(),
        db.as_os_str(),
        many.as_os_str(),
        "--create".as_ref(),
        "-q".as_ref(),
    ]);
    let m = Mount::new(&db, dir.path(), &[]);
    let all = m.join("all.pgn");
    let first = std::fs::read(&all).unwrap();
    assert!(
        first == joined(&listing(&m.join("games"))),
        "games/ in order"
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (all, stop) = (all.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || reads < 3 {
                let out = std::process::Command::new("cat")
                    .arg(&all)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success() && !out.stdout.is_empty(),
                    "cat all.pgn while saving: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                reads += 1;
            }
            reads
        })
    };
    // Games across the file, each saved by rsync with its event renamed.
    let numbers = [3, 90, 200, 301, 355];
    for (k, &number) in numbers.iter().enumerate() {
        let game = m.game(number);
        let text = std::fs::read_to_string(&game).unwrap();
        let start = text.find("[Event \"").unwrap();
        let end = start + text[start..].find('\n').unwrap();
        let edited = dir.path().join(format!("edited{k}.pgn"));
        let event = format!("[Event \"Saved while read {k}\"]");
        std::fs::write(
            &edited,
            format!("{}{event}{}", &text[..start], &text[end..]),
        )
        .unwrap();
        sh(
            &m.path,
            &format!("rsync '{}' '{}'", edited.display(), game.display()),
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads = reader.join().unwrap();
    assert!(reads >= 3, "{reads} reads");
    let games = listing(&m.join("games"));
    assert_eq!(games.len(), 360);
    eventually("all.pgn shows every save, as games/ does", || {
        std::fs::read(&all).unwrap() == joined(&games)
    });
    let now = String::from_utf8(std::fs::read(&all).unwrap()).unwrap();
    for k in 0..numbers.len() {
        assert_eq!(
            now.matches(&format!("Saved while read {k}\"")).count(),
            1,
            "save {k}"
        );
    }
}
