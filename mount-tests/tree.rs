//! The read-only tree through the kernel: layout, names, sizes, links, grep, find, concurrency.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use gamefs::store::ChessStore;
use gamefs::store::scid::ScidDatabase;

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{
    Mount, eventually, gamefs, gamefs_ok, listing, run_with_timeout, scratch, sh,
};

fn live_games(db: &Path) -> u32 {
    let store = ScidDatabase::open(db, false).unwrap();
    (0..store.game_count())
        .filter(|&n| !store.summary(n).deleted)
        .count() as u32
}

#[test]
fn root_layout_and_game_files() {
    let dir = scratch("layout");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let root = sh(&m.path, "ls");
    assert_eq!(root, "eco\nevents\ngames\nplayers\nsites\ntwins\nyears\n");
    assert!(sh(&m.path, "ls -a").contains(".deleted\n"));
    let games = listing(&m.join("games"));
    assert_eq!(games.len() as u32, live_games(edge_db()));
    let width = games[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .len();
    for (i, g) in games.iter().enumerate() {
        let name = g.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(&format!("{:0width$} ", i + 1)), "{name}");
        assert!(name.ends_with(".pgn") && name.len() <= 255, "{name}");
        let meta = std::fs::symlink_metadata(g).unwrap();
        assert!(meta.is_file());
        assert_eq!(
            meta.mode() & 0o777,
            0o444,
            "read-only mount: game files are r--r--r--"
        );
    }
}

#[test]
fn timestamps_come_from_the_database_files() {
    let dir = scratch("times");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let newest = ["si4", "sn4", "sg4"]
        .iter()
        .map(|e| {
            std::fs::metadata(edge_db().with_extension(e))
                .unwrap()
                .modified()
                .unwrap()
        })
        .max()
        .unwrap();
    for p in [m.join("games"), listing(&m.join("games")).remove(0)] {
        assert_eq!(
            std::fs::metadata(&p).unwrap().modified().unwrap(),
            newest,
            "{p:?}"
        );
    }
}

#[test]
fn an_empty_database_mounts_with_empty_folders() {
    let dir = scratch("empty");
    let pgn = dir.path().join("none.pgn");
    std::fs::write(&pgn, "").unwrap();
    let db = dir.path().join("empty");
    crate::harness::scid_import(&[&pgn], &db);
    let m = Mount::new(&db, dir.path(), &[]);
    for folder in [
        "games", ".deleted", "players", "events", "sites", "years", "eco",
    ] {
        assert!(listing(&m.join(folder)).is_empty(), "{folder}");
    }
}

/// The real Najdorf games of tests/data imported by SCID into `dir`/najdorf (some held two
/// or three times): the base's path.
fn najdorf_imported_by_scid(dir: &Path) -> PathBuf {
    let db = dir.join("najdorf");
    crate::harness::scid_import(
        &[&crate::harness::repo().join("tests/data/najdorf/najdorf.pgn")],
        &db,
    );
    db
}

/// `twins/` through the kernel: a group per game held more than once (the real Najdorf
/// games, imported by SCID), links ranked into `games/`, and a deletion takes a copy out at
/// once (docs/guide/twins.md).
#[test]
fn twins_link_the_copies_of_a_game_and_a_deletion_takes_one_out() {
    let dir = scratch("twins");
    let db = najdorf_imported_by_scid(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let groups = listing(&m.join("twins"));
    assert!(!groups.is_empty());
    // A group of three copies: 1- the better, each a link into games/.
    let group = groups
        .iter()
        .find(|g| listing(g).len() == 3)
        .expect("a game held three times");
    let links = listing(group);
    let first = group.file_name().unwrap().to_str().unwrap();
    assert!(
        links[0]
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with(&format!("1-{first}")),
        "{links:?}"
    );
    for (rank, link) in links.iter().enumerate() {
        let name = link.file_name().unwrap().to_str().unwrap();
        let game = name.strip_prefix(&format!("{}-", rank + 1)).unwrap();
        assert_eq!(
            std::fs::read_link(link).unwrap(),
            Path::new("../../games").join(game)
        );
        assert_eq!(
            std::fs::read(link).unwrap(),
            std::fs::read(m.join("games").join(game)).unwrap()
        );
    }
    // The link cannot be removed; the game in games/ can, and leaves the group.
    let err = std::fs::remove_file(&links[2]).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
    let last = std::fs::read_link(&links[2]).unwrap();
    let text = std::fs::read_to_string(&links[2]).unwrap();
    std::fs::remove_file(m.join("games").join(last.file_name().unwrap())).unwrap();
    eventually("the deleted copy leaves its group", || {
        listing(group).len() == 2
    });
    // Its text copied in as a new game joins the group again; a save of another round
    // takes it out, and one of its round back brings it in again.
    let again = m.join("games/again.pgn");
    std::fs::write(&again, &text).unwrap();
    eventually("the new copy joins the group", || listing(group).len() == 3);
    let target = |link: &PathBuf| std::fs::read_link(link).unwrap();
    let kept: Vec<PathBuf> = links[..2].iter().map(target).collect();
    let new_copy = listing(group)
        .iter()
        .map(target)
        .find(|t| !kept.contains(t))
        .map(|t| m.join("games").join(t.file_name().unwrap()))
        .expect("the new copy's link");
    let round = text.lines().find(|l| l.starts_with("[Round ")).unwrap();
    std::fs::write(&new_copy, text.replace(round, "[Round \"elsewhere\"]")).unwrap();
    eventually("a save of another round takes the copy out", || {
        listing(group).len() == 2
    });
    std::fs::write(&new_copy, &text).unwrap();
    eventually("a save of its round brings it back", || {
        listing(group).len() == 3
    });
}

#[test]
fn sizes_are_exact_and_text_matches_export() {
    let dir = scratch("sizes");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let mut concatenated = Vec::new();
    for g in listing(&m.join("games")) {
        let size = std::fs::metadata(&g).unwrap().len();
        let bytes = std::fs::read(&g).unwrap();
        assert_eq!(
            size,
            bytes.len() as u64,
            "st_size differs from bytes read for {g:?}"
        );
        concatenated.extend(bytes);
    }
    let export = gamefs_ok([Path::new("export"), edge_db()]);
    assert_eq!(String::from_utf8_lossy(&concatenated), export);
}

#[test]
fn any_name_with_the_game_number_resolves() {
    let dir = scratch("prefix");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let first = listing(&m.join("games")).remove(0);
    let name = first.file_name().unwrap().to_str().unwrap();
    let number = name.split(' ').next().unwrap();
    let other = m.join(&format!("games/{number} some other players.pgn"));
    assert_eq!(
        std::fs::read(&other).unwrap(),
        std::fs::read(&first).unwrap()
    );
    assert!(std::fs::metadata(m.join(&format!("games/{number} x.pgn~"))).is_err());
}

#[test]
fn grep_sees_each_game_once_and_follows_links_with_capital_r() {
    let dir = scratch("grep");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let games = live_games(edge_db());
    let all = listing(&m.join("games")).len() as u32 + listing(&m.join(".deleted")).len() as u32;
    let count = sh(&m.path, "grep -r '^\\[Event ' . | wc -l");
    assert_eq!(
        count.trim().parse::<u32>().unwrap(),
        all,
        "grep -r must see each game once"
    );
    let listed = sh(&m.path, "grep -rl '^\\[Event ' games | wc -l");
    assert_eq!(listed.trim().parse::<u32>().unwrap(), games);
    let followed = sh(&m.path, "grep -R '^\\[Event ' players | wc -l");
    assert!(
        followed.trim().parse::<u32>().unwrap() >= games,
        "grep -R follows the player links"
    );
}

#[test]
fn views_hold_relative_links_into_games() {
    let dir = scratch("views");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let games: BTreeSet<String> = listing(&m.join("games"))
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    for view in ["players", "events", "sites", "years", "eco"] {
        let mut seen = BTreeSet::new();
        for group in listing(&m.join(view)) {
            assert!(
                std::fs::symlink_metadata(&group).unwrap().is_dir(),
                "{group:?}"
            );
            for link in listing(&group) {
                let target = std::fs::read_link(&link).unwrap();
                let target = target.to_str().unwrap();
                let name = link.file_name().unwrap().to_str().unwrap();
                assert_eq!(target, format!("../../games/{name}"));
                assert!(
                    games.contains(name),
                    "{link:?} points at a game that is not in games/"
                );
                assert_eq!(
                    std::fs::read(&link).unwrap(),
                    std::fs::read(m.join("games").join(name)).unwrap()
                );
                seen.insert(name.to_owned());
            }
        }
        if view != "players" {
            assert_eq!(seen, games, "every live game is in exactly the {view} view");
        } else {
            assert_eq!(
                seen, games,
                "every live game has at least one player folder"
            );
        }
    }
    let find_files = sh(
        &m.path,
        "find . -path ./.gamefs -prune -o -type f -print | wc -l",
    );
    let deleted = listing(&m.join(".deleted")).len();
    assert_eq!(
        find_files.trim().parse::<usize>().unwrap(),
        games.len() + deleted
    );
    let find_l = sh(&m.path, "find -L players -type f | wc -l");
    assert!(find_l.trim().parse::<usize>().unwrap() >= games.len());
}

#[test]
fn names_and_inodes_are_the_same_on_every_mount() {
    let dir = scratch("stable");
    let listing = |m: &Mount| sh(&m.path, "ls -aiR . | sort");
    let first = {
        let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
        listing(&m)
    };
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    assert_eq!(first, listing(&m));
}

#[test]
fn concurrent_readers_see_the_same_bytes() {
    let dir = scratch("concurrent");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro,cache_mb=1"]);
    let files = listing(&m.join("games"));
    let expected: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    std::thread::scope(|s| {
        for t in 0..8 {
            let (files, expected) = (&files, &expected);
            s.spawn(move || {
                for round in 0..3 {
                    for (i, f) in files.iter().enumerate().rev().skip(t) {
                        assert_eq!(
                            &std::fs::read(f).unwrap(),
                            &expected[i],
                            "{f:?} round {round}"
                        );
                    }
                }
            });
        }
    });
}

#[test]
fn the_tree_is_read_only() {
    let dir = scratch("readonly");
    let before: Vec<_> = ["si4", "sn4", "sg4"]
        .iter()
        .map(|e| std::fs::read(edge_db().with_extension(e)).unwrap())
        .collect();
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let meta = std::fs::metadata(listing(&m.join("games")).remove(0)).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o444);
    let game = listing(&m.join("games")).remove(0);
    let err = std::fs::OpenOptions::new()
        .write(true)
        .open(&game)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS), "{err}");
    let err = std::fs::write(m.join("games/new.pgn"), "x").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS), "{err}");
    let err = std::fs::remove_file(&game).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS), "{err}");
    let err = std::fs::rename(&game, m.join("games/x.txt")).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS), "{err}");
    drop(m);
    let after: Vec<_> = ["si4", "sn4", "sg4"]
        .iter()
        .map(|e| std::fs::read(edge_db().with_extension(e)).unwrap())
        .collect();
    assert!(
        before == after,
        "a read-only mount never writes the database"
    );
}

#[test]
fn a_damaged_record_fails_alone_with_eio() {
    let dir = scratch("damaged");
    let db = copy_db(edge_db(), dir.path(), "damaged");
    let store = ScidDatabase::open(&db, false).unwrap();
    let entry = store.entry(1);
    drop(store);
    // Overwrite game 2's move bytes with an impossible move (piece 15 of a fresh game has no knight code 0).
    let mut sg4 = std::fs::read(db.with_extension("sg4")).unwrap();
    let start = entry.offset as usize;
    let end = start + entry.length as usize;
    for b in &mut sg4[start..end] {
        *b = 0xF0;
    }
    std::fs::write(db.with_extension("sg4"), sg4).unwrap();
    let log = dir.path().join("gamefs.log");
    let m = Mount::new(&db, dir.path(), &["--log-file", log.to_str().unwrap()]);
    let files = listing(&m.join("games"));
    let err = std::fs::read(&files[1]).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EIO), "{err}");
    for (i, f) in files.iter().enumerate() {
        if i != 1 {
            std::fs::read(f).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        }
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("game 2:"), "the log names the game: {text}");
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains("0002 "),
        ".gamefs/errors names the file: {errors}"
    );
    // `gamefs check` reports it and fails.
    let out = Command::new(gamefs())
        .args(["check", "-q"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("game 2: "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn deleted_games_live_in_dot_deleted_only() {
    let dir = scratch("deleted");
    let db = copy_db(edge_db(), dir.path(), "marked");
    // Set the D flag (bit 3 of entry bytes 7-8) of game 3, as SCID's delete does.
    let mut si4 = std::fs::read(db.with_extension("si4")).unwrap();
    si4[182 + 47 * 2 + 8] |= 0x08;
    std::fs::write(db.with_extension("si4"), si4).unwrap();
    let m = Mount::new(&db, dir.path(), &[]);
    let deleted = listing(&m.join(".deleted"));
    assert_eq!(deleted.len(), 1);
    let name = deleted[0].file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("000"), "{name}");
    assert!(!m.join("games").join(&name).exists());
    let in_views = sh(
        &m.path,
        &format!(
            "find players events sites years eco -name '{}' | wc -l",
            name.replace('\'', "'\\''")
        ),
    );
    assert_eq!(in_views.trim(), "0");
    assert!(
        std::fs::read_to_string(&deleted[0])
            .unwrap()
            .starts_with("[Event ")
    );
}

/// SCID's `sc_import` adds a game (Outside, Ann against Outside, Bo, event "Added by SCID")
/// to database `db`, its PGN written in `dir`.
fn scid_adds_a_game(dir: &Path, db: &Path) {
    let pgn = dir.join("more.pgn");
    std::fs::write(&pgn, "[Event \"Added by SCID\"]\n[White \"Outside, Ann\"]\n[Black \"Outside, Bo\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n").unwrap();
    let out = Command::new("sc_import")
        .arg(db)
        .arg(&pgn)
        .output()
        .expect("sc_import");
    assert!(out.status.success());
}

/// Another program's write reaches `twins/` too: a game SCID imports a second time into the
/// mounted base makes a new group, with no listing of `games/` between.
#[test]
fn a_game_scid_imports_again_beside_a_mount_makes_a_twin_group() {
    let dir = scratch("twins-outside");
    let db = najdorf_imported_by_scid(dir.path());
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let groups = listing(&m.join("twins"));
    let in_groups: Vec<PathBuf> = groups
        .iter()
        .flat_map(|g| listing(g))
        .map(|link| std::fs::read_link(link).unwrap())
        .map(|target| m.join("games").join(target.file_name().unwrap()))
        .collect();
    // The longest game in no group (SCID's twins have at least 10 half-moves).
    let mut games = listing(&m.join("games"));
    games.sort_by_key(|g| std::cmp::Reverse(std::fs::metadata(g).unwrap().len()));
    let single = games.iter().find(|g| !in_groups.contains(g)).unwrap();
    let pgn = dir.path().join("again.pgn");
    std::fs::copy(single, &pgn).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let out = Command::new("sc_import")
        .arg(&db)
        .arg(&pgn)
        .output()
        .expect("sc_import");
    assert!(out.status.success());
    eventually("the game and its new copy make a group", || {
        listing(&m.join("twins")).len() == groups.len() + 1
    });
}

#[test]
fn a_read_only_mount_notices_games_scid_added() {
    let dir = scratch("grows");
    let db = copy_db(edge_db(), dir.path(), "growing");
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let before = listing(&m.join("games")).len();
    scid_adds_a_game(dir.path(), &db);
    // The mount looks at the database files again at most once a second.
    eventually("the new game appears", || {
        listing(&m.join("games")).len() == before + 1
    });
    let after = listing(&m.join("games"));
    let last = after.last().unwrap();
    assert!(
        last.to_str()
            .unwrap()
            .contains("Outside, Ann - Outside, Bo"),
        "{last:?}"
    );
    assert!(
        std::fs::read_to_string(last)
            .unwrap()
            .contains("[Event \"Added by SCID\"]")
    );
    assert!(m.join("players/Outside, Ann").is_dir());
}

/// A game SCID adds shows in a query's `count` and in a view's listing with no listing of
/// the root or `games/` first: opening any file or listing any folder looks (at most once a
/// second).
#[test]
fn a_query_and_a_view_notice_a_game_scid_added_without_games_being_listed() {
    let dir = scratch("grows-query");
    let db = copy_db(edge_db(), dir.path(), "growing");
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let count = m.join("query/white=outside/count");
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "0\n");
    let ann = m.join("players/Outside, Ann");
    let players = || listing(&m.join("players"));
    assert!(!players().contains(&ann));
    // A mount that has been up a while: its background work (indexes) done.
    eventually("the indexes are ready", || {
        let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
        stats.contains("position_index: ready") && stats.contains("header_index: ready")
    });
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "0\n");
    scid_adds_a_game(dir.path(), &db);
    eventually("the query counts the new game", || {
        std::fs::read_to_string(&count).unwrap() == "1\n"
    });
    eventually("players/ lists the new player", || players().contains(&ann));
}

#[test]
fn a_read_only_mount_shows_games_another_program_replaced() {
    let (ro_dir, rw_dir) = (scratch("replaced-ro"), scratch("replaced-rw"));
    let db = copy_db(edge_db(), ro_dir.path(), "replaced");
    let ro = Mount::new(&db, ro_dir.path(), &["-o", "ro"]);
    let first = listing(&ro.join("games")).remove(0);
    let name = first.file_name().unwrap().to_owned();
    let before = std::fs::read_to_string(&first).unwrap();
    assert!(!before.contains("Changed Elsewhere"));
    {
        let rw = Mount::new(&db, rw_dir.path(), &[]);
        let path = rw.join("games").join(&name);
        let text = std::fs::read_to_string(&path).unwrap();
        let event = text.lines().find(|l| l.starts_with("[Event ")).unwrap();
        let edited = text.replacen(event, "[Event \"Changed Elsewhere\"]", 1);
        std::fs::write(&path, edited).unwrap();
    }
    // The mount looks at the database files again at most once a second.
    eventually("the read-only mount shows the new text", || {
        listing(&ro.join("games"));
        std::fs::read_to_string(ro.join("games").join(&name))
            .unwrap()
            .contains("[Event \"Changed Elsewhere\"]")
    });
}

#[test]
fn status_files_stay_current_on_a_read_only_mount() {
    let dir = scratch("status-current");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let stats = m.join(".gamefs/stats");
    let misses = || -> u64 {
        let text = std::fs::read_to_string(&stats).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("cache_misses: "))
            .unwrap();
        line["cache_misses: ".len()..].parse().unwrap()
    };
    let start = misses();
    for game in listing(&m.join("games")).iter().take(3) {
        std::fs::read(game).unwrap();
    }
    assert_eq!(misses(), start + 3, "stats counts the three games rendered");
    // The background's indexes add lines as they are published, so the size is compared with
    // a text that did not change around the stat: a stale size fails once the text settles.
    eventually(
        "the size stat gives is the length of the text read around it",
        || {
            let before = std::fs::read(&stats).unwrap();
            let size = std::fs::metadata(&stats).unwrap().len() as usize;
            let after = std::fs::read(&stats).unwrap();
            before == after && size == after.len()
        },
    );
}

#[test]
fn extended_attributes_are_not_supported() {
    let dir = scratch("xattr");
    let m = Mount::new(edge_db(), dir.path(), &[]);
    let game = listing(&m.join("games")).remove(0);
    let py = "import os, sys, errno\n\
        p = sys.argv[1]\n\
        for call in (lambda: os.getxattr(p, 'user.x'), lambda: os.listxattr(p),\n\
                     lambda: os.setxattr(p, 'user.x', b'1'), lambda: os.removexattr(p, 'user.x')):\n\
        \x20   try:\n\
        \x20       call(); print('ok')\n\
        \x20   except OSError as e:\n\
        \x20       print(errno.errorcode[e.errno])\n";
    let out = Command::new("python3")
        .args(["-c", py])
        .arg(&game)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ENOTSUP\nENOTSUP\nENOTSUP\nENOTSUP\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The number `.gamefs/stats` of mount `m` gives for `key` (`cache_misses:`, …).
fn stat_of(m: &Mount, key: &str) -> u64 {
    let text = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    let line = text.lines().find(|l| l.starts_with(key)).unwrap();
    line[key.len()..].trim().parse().unwrap()
}

/// `ls -l games/` of mount `m`: each game file with its size.
fn listed_sizes(m: &Mount) -> Vec<(PathBuf, u64)> {
    listing(&m.join("games"))
        .into_iter()
        .map(|f| {
            let size = std::fs::metadata(&f).unwrap().len();
            (f, size)
        })
        .collect()
}

/// Each listed size is what reading the file gives.
fn check_sizes(sizes: &[(PathBuf, u64)]) {
    for (f, size) in sizes {
        assert_eq!(std::fs::read(f).unwrap().len() as u64, *size, "{f:?}");
    }
}

/// Run a Tcl script with SCID's own `tkscid` on database `db` (its `$argv` is the base path).
fn with_scid(dir: &Path, db: &Path, script: &str) {
    let path = dir.join("edit.tcl");
    std::fs::write(
        &path,
        format!("set b [sc_base open [lindex $argv 0]]\n{script}\nsc_base close $b\nexit 0\n"),
    )
    .unwrap();
    let out = run_with_timeout(
        Command::new("tkscid")
            .arg(&path)
            .arg(db)
            .env("PATH", "/usr/games:/usr/bin:/bin"),
        std::time::Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "tkscid: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sizes_learnt_in_one_mount_serve_the_next_for_every_game_that_did_not_change() {
    let dir = scratch("sizes-kept");
    let cache = dir.path().join("cache");
    let db = copy_db(edge_db(), dir.path(), "kept");
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    // `ls -l games/` of a read-only mount: each game's size, and how many games were rendered
    // for it (lazy_sizes: none in the background); then every size is checked against what
    // reading the game gives.
    let remount_and_list = || -> (Vec<(PathBuf, u64)>, u64) {
        let m = Mount::with_env(&db, dir.path(), &["-o", "ro,lazy_sizes"], &env);
        let sizes = listed_sizes(&m);
        let rendered = stat_of(&m, "cache_misses:");
        check_sizes(&sizes);
        (sizes, rendered)
    };
    let (first, rendered) = remount_and_list();
    let games = first.len() as u64;
    assert_eq!(
        rendered, games,
        "the first mount renders every game to learn its size"
    );
    assert!(
        std::fs::read_dir(cache.join("gamefs")).unwrap().count() > 0,
        "the sizes were kept in XDG_CACHE_HOME/gamefs"
    );
    let (again, rendered) = remount_and_list();
    assert_eq!(again, first);
    assert_eq!(rendered, 0, "ls -l of a remount renders nothing");

    // A save through a writable mount: only the saved game renders again.
    {
        let m = Mount::with_env(&db, dir.path(), &[], &env);
        let game = m.game(1);
        let text = std::fs::read_to_string(&game).unwrap();
        std::fs::write(&game, text.replacen("[Round \"", "[Round \"77", 1)).unwrap();
    }
    let (after, rendered) = remount_and_list();
    // (none when the writable mount learnt the saved game's new size before it ended, by a
    // `stat` after the save or its background fill: then it kept that size)
    assert!(
        rendered <= 1,
        "only the saved game renders again: {rendered} rendered"
    );
    assert_ne!(after[0].1, first[0].1, "game 1 grew by its longer round");

    // SCID renames a player (its name file rewritten): only that player's games render.
    let store = ScidDatabase::open(&db, false).unwrap();
    let white = store.summary(2).white;
    let name = store
        .name(gamefs::store::NameKind::Player, white)
        .to_string();
    let of_player = (0..store.game_count())
        .filter(|&n| store.summary(n).white == white || store.summary(n).black == white)
        .count() as u64;
    drop(store);
    with_scid(
        dir.path(),
        &db,
        &format!("sc_name edit player all {{{name}}} {{{name} Renamed}}"),
    );
    let (_, rendered) = remount_and_list();
    assert_eq!(rendered, of_player, "only {name}'s games render again");

    // SCID deletes game 3 and compacts: the games before it keep their sizes, the others
    // moved and render again; every size is exact (checked by remount_and_list).
    with_scid(
        dir.path(),
        &db,
        "sc_base gameflag $b 3 set del\nsc_base compact $b",
    );
    let (compacted, rendered) = remount_and_list();
    assert_eq!(compacted.len() as u64, games - 1);
    assert!(
        rendered <= games - 2,
        "{rendered} of {games} rendered after compaction"
    );

    // Another database copied over the files: every size still exact.
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(edge_db().with_extension(ext), db.with_extension(ext)).unwrap();
    }
    let (replaced, _) = remount_and_list();
    assert_eq!(replaced.len() as u64, games);
}

/// `ls` of a big folder and then `ls -l` of it: the second reads the listing again with each
/// entry's attributes instead of taking the cached bare names and asking the mount for each
/// name on its own (a round trip a game: 3.5 s against 0.75 s at 98,000 games). The kernel
/// hands a reader that wants names alone the names without attributes after the first
/// request, so the folder needs more games than one request holds: TWIC 944, 2,953 games.
#[test]
fn ls_l_after_a_plain_ls_asks_the_mount_for_no_name_on_its_own() {
    let dir = scratch("bare-listing");
    let tar = run_with_timeout(
        Command::new("tar")
            .arg("-xJf")
            .arg(crate::harness::repo().join("tests/data/realworld.tar.xz"))
            .arg("-C")
            .arg(dir.path())
            .arg("realworld/pgn4web/twic944.pgn"),
        std::time::Duration::from_secs(120),
    );
    assert!(tar.status.success(), "{tar:?}");
    let pgn = dir.path().join("realworld/pgn4web/twic944.pgn");
    let cache = dir.path().join("cache");
    let m = Mount::with_env(
        &pgn,
        dir.path(),
        &["-o", "ro"],
        &[("XDG_CACHE_HOME", &cache)],
    );
    let games = stat_of(&m, "games:");
    assert!(games > 2000, "{games} games");
    eventually("every size learnt", || stat_of(&m, "sizes_known:") == games);
    for _ in 0..2 {
        sh(&m.path, "ls games >/dev/null");
        let before = stat_of(&m, "game_lookups:");
        let long = sh(&m.path, "ls -l games | grep -c '^-'");
        let asked = stat_of(&m, "game_lookups:") - before;
        assert_eq!(long.trim(), games.to_string());
        assert!(
            asked < 10,
            "ls -l asked for {asked} of {games} names one at a time"
        );
    }
}

#[test]
fn a_fresh_mount_learns_every_size_in_the_background() {
    let dir = scratch("sizes-fill");
    let cache = dir.path().join("cache");
    let db = copy_db(edge_db(), dir.path(), "fill");
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let m = Mount::with_env(&db, dir.path(), &["-o", "ro"], &env);
    let games = listing(&m.join("games")).len() as u64;
    eventually("every size learnt", || stat_of(&m, "sizes_known:") == games);
    let sizes = listed_sizes(&m);
    assert_eq!(
        stat_of(&m, "cache_misses:"),
        0,
        "ls -l rendered nothing itself"
    );
    check_sizes(&sizes);
}
