//! Each game's modification time is its own (docs/SEMANTICS.md §2): a save changes the time
//! of the game saved and of no other, across saves by different tools, remounts and other
//! programs' appends, so editors' "changed since reading" checks, `rsync -a` and
//! `find -newer` see exactly the games that changed.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, gamefs_ok, listing, repo, run_with_timeout, scratch, sh};
use crate::posix::{FORMATS, Fixture, Format};

/// (mtime, ctime) of each file in `dir`, by name, in nanoseconds.
fn times_in(dir: &Path) -> BTreeMap<String, (i128, i128)> {
    listing(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let m = std::fs::symlink_metadata(&p).unwrap();
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            (
                p.file_name().unwrap().to_str().unwrap().to_owned(),
                (ns(m.mtime(), m.mtime_nsec()), ns(m.ctime(), m.ctime_nsec())),
            )
        })
        .collect()
}

fn nanos(t: SystemTime) -> i128 {
    t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_nanos() as i128
}

/// vim in batch mode (`-es`) applying the `ex` command `change` to `file`, then `wq`; stdin
/// is not a terminal, so a question vim asked would go unanswered and the file unsaved.
fn vim_batch(file: &Path, change: &str) {
    let out = run_with_timeout(
        Command::new("vim")
            .args(["-u", "NONE", "-es", "-c", change, "-c", "wq"])
            .arg(file)
            .stdin(Stdio::null()),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "vim -es: {out:?}");
}

/// The sequence: `sed -i` saves one item, a script rewrites a second, `vim -es` edits
/// a third. Every save lands, and every other item keeps its mtime and ctime.
#[test]
fn a_save_changes_the_time_of_that_item_alone() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let items = f.items();
        let files = f.item_files();
        assert!(files.len() >= 4, "{format:?}: {} items", files.len());
        let edited: Vec<PathBuf> = files[1..4].to_vec();
        let before = times_in(&items);
        let started = nanos(SystemTime::now());
        std::thread::sleep(Duration::from_millis(20));

        let (from, to) = match format {
            Format::Go => ("AB\\[", "AB[aa]["),
            _ => ("\\[Site \"", "[Site \"Edited "),
        };
        sh(
            &items,
            &format!(
                "sed -i '0,/{from}/s//{}/' '{}'",
                to.replace('[', "\\["),
                edited[0].file_name().unwrap().to_str().unwrap()
            ),
        );
        let text = std::fs::read_to_string(&edited[1]).unwrap();
        std::fs::write(&edited[1], f.edited(&text)).unwrap();
        vim_batch(&edited[2], &format!("0/{from}/s//{to}/"));

        let saved: Vec<PathBuf> = f
            .item_files()
            .into_iter()
            .filter(|p| std::fs::read_to_string(p).unwrap().contains(f.marker()))
            .collect();
        assert_eq!(saved.len(), 3, "{format:?}: every save landed: {saved:?}");
        let after = times_in(&items);
        for p in &saved {
            let name = p.file_name().unwrap().to_str().unwrap();
            assert!(after[name].0 > started, "{format:?}: {name} saved now");
        }
        let edited_names: Vec<&str> = edited
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        let mut unchanged = 0;
        for (name, times) in &before {
            if edited_names.contains(&name.as_str()) || !after.contains_key(name) {
                continue;
            }
            assert_eq!(after[name], *times, "{format:?}: {name} was not saved");
            unchanged += 1;
        }
        assert_eq!(unchanged, before.len() - 3, "{format:?}");
    }
}

/// After N saves, `rsync -a` of `games/` copies N files, and `find -newer` lists those N.
#[test]
fn rsync_and_find_newer_see_only_the_saved_games() {
    let dir = scratch("times-rsync");
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let copy = dir.path().join("copy");
    let games = m.join("games");
    sh(
        dir.path(),
        &format!("rsync -a '{}/' '{}/'", games.display(), copy.display()),
    );
    let stamp = dir.path().join("stamp");
    std::fs::write(&stamp, "").unwrap();
    // find -newer compares whole nanoseconds; the saves come later than the stamp.
    std::thread::sleep(Duration::from_millis(20));
    let saved = [m.game(2), m.game(5)];
    for game in &saved {
        let text = std::fs::read_to_string(game).unwrap();
        std::fs::write(game, text.replacen("[Site \"", "[Site \"Synced ", 1)).unwrap();
    }
    let stats = sh(
        dir.path(),
        &format!(
            "rsync -a --stats '{}/' '{}/'",
            games.display(),
            copy.display()
        ),
    );
    assert!(
        stats.contains("Number of regular files transferred: 2"),
        "rsync copied other files than the two saved:\n{stats}"
    );
    let newer = sh(
        &games,
        &format!("find . -type f -newer '{}' | sort", stamp.display()),
    );
    let mut want: Vec<String> = saved
        .iter()
        .map(|p| format!("./{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    want.sort();
    assert_eq!(newer.lines().collect::<Vec<_>>(), want);
}

/// A PGN game appended to `pgn` (which ends with a line break: the game before keeps its text).
fn append_game(pgn: &Path) {
    let mut text = std::fs::read(pgn).unwrap();
    text.extend_from_slice(
        b"[Event \"Appended\"]\n[Site \"?\"]\n[Date \"2026.11.28\"]\n[Round \"1\"]\n\
[White \"Late, Anna\"]\n[Black \"Late, Bob\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n",
    );
    std::fs::write(pgn, text).unwrap();
}

/// Times are kept between mounts: a remount shows the same time for every game; a game saved
/// keeps the time of its save; another program's appends leave the other games' times alone,
/// on SCID 4, SCID 5 and a PGN file.
#[test]
fn times_survive_remounts_and_other_programs_appends() {
    let dir = scratch("times-remount");
    let scid4 = copy_db(edge_db(), dir.path(), "db");
    let scid5 = dir.path().join("edge5");
    for ext in ["si5", "sn5", "sg5"] {
        std::fs::copy(
            repo().join("tests/data/scid5/edge").with_extension(ext),
            scid5.with_extension(ext),
        )
        .unwrap();
    }
    let pgn = dir.path().join("games.pgn");
    std::fs::copy(repo().join("contrib/sample/demo.pgn"), &pgn).unwrap();
    let extra = dir.path().join("extra.pgn");
    std::fs::write(&extra, "\n").unwrap();
    append_game(&extra);
    for (db, writable) in [
        (scid4.as_path(), true),
        (scid5.as_path(), true),
        (pgn.as_path(), false),
    ] {
        let what = db.display().to_string();
        let mount = || Mount::new(db, dir.path(), &[]);
        let m = mount();
        let first = times_in(&m.join("games"));
        drop(m);
        std::thread::sleep(Duration::from_millis(20));
        let m = mount();
        assert_eq!(times_in(&m.join("games")), first, "{what}: a remount");
        let saved = if writable {
            let game = m.game(3);
            let text = std::fs::read_to_string(&game).unwrap();
            std::fs::write(&game, text.replacen("[Site \"", "[Site \"Kept ", 1)).unwrap();
            Some(game.file_name().unwrap().to_str().unwrap().to_owned())
        } else {
            None
        };
        let after_save = times_in(&m.join("games"));
        drop(m);
        // Another program appends a game while nothing is mounted.
        if writable {
            gamefs_ok([
                "import".as_ref(),
                db.as_os_str(),
                extra.as_os_str(),
                "-q".as_ref(),
            ]);
        } else {
            append_game(db);
        }
        let m = mount();
        let now = times_in(&m.join("games"));
        assert_eq!(now.len(), first.len() + 1, "{what}: the appended game");
        for (name, times) in &after_save {
            assert_eq!(now.get(name), Some(times), "{what}: {name} after an append");
        }
        if let Some(saved) = saved {
            assert_ne!(after_save[&saved], first[&saved], "{what}: the save");
        }
    }
}
