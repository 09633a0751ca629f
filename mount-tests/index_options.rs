//! What the user decides about the position index, through the kernel: `-o tree=off` mounts
//! without one (`tree/` and `positions/` are ENOENT, and the log says why), `.gamefs/stats`
//! tells its size on disk, and `-o cache_max` drops the least recently used kept index of
//! another database past the limit.

use std::path::{Path, PathBuf};

use crate::harness::{Mount, eventually, gamefs_ok, scratch};

/// A SCID database of `games` made from the test corpus's PGN file `pgn` in `dir`.
fn database(dir: &Path, name: &str, pgn: &str) -> PathBuf {
    let db = dir.join(name);
    let pgn = crate::harness::repo().join("tests/data").join(pgn);
    gamefs_ok([
        "import".as_ref(),
        "--create".as_ref(),
        db.as_os_str(),
        pgn.as_os_str(),
    ]);
    db
}

/// The kept position indexes of cache folder `cache`, by name.
fn kept_indexes(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("gamefs"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("positions-") && !n.contains('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The value `.gamefs/stats` of `m` gives for `key`.
fn stat(m: &Mount, key: &str) -> Option<String> {
    let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    stats
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
        .map(str::to_owned)
}

#[test]
fn tree_off_builds_no_index_and_says_why_tree_is_missing() {
    let dir = scratch("tree-off");
    let cache = dir.path().join("cache");
    let db = database(dir.path(), "off", "special-moves.pgn");
    let log = dir.path().join("gamefs.log");
    let log_opt = format!("ro,tree=off,log_file={},log_level=info", log.display());
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    {
        let m = Mount::with_env(&db, dir.path(), &["-o", &log_opt], &env);
        for name in ["tree", "tree/e4", "positions", "tree/tree.txt"] {
            let e = std::fs::metadata(m.join(name)).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ENOENT), "{name}");
        }
        assert_eq!(stat(&m, "position_index").as_deref(), Some("off"));
        // The games are all there.
        assert!(m.game(1).is_file());
    }
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("tree/: none, the mount was made with -o tree=off"),
        "{log}"
    );
    assert!(
        kept_indexes(&cache).is_empty(),
        "no index kept: {:?}",
        kept_indexes(&cache)
    );
}

#[test]
fn the_cache_limit_drops_the_least_recently_used_index_of_another_database() {
    let dir = scratch("cache-max");
    let cache = dir.path().join("cache");
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let first = database(dir.path(), "first", "fuzz-seed1000.pgn");
    let second = database(dir.path(), "second", "special-moves.pgn");
    let ready = |m: &Mount| {
        eventually("the index is ready", || {
            stat(m, "position_index").as_deref() == Some("ready")
        })
    };
    {
        let m = Mount::with_env(&first, dir.path(), &["-o", "ro"], &env);
        ready(&m);
        let bytes: u64 = stat(&m, "position_index_bytes").unwrap().parse().unwrap();
        let per_game: u64 = stat(&m, "position_index_bytes_per_game")
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            bytes > 0 && per_game > 0,
            "{bytes} bytes, {per_game} a game"
        );
    }
    let kept_first = kept_indexes(&cache);
    assert_eq!(kept_first.len(), 1, "{kept_first:?}");
    // Within the default limit, a second database's index joins the first.
    {
        let m = Mount::with_env(&second, dir.path(), &["-o", "ro"], &env);
        ready(&m);
    }
    assert_eq!(kept_indexes(&cache).len(), 2);
    // The first again, with a limit of one byte: the second's index goes, its own stays.
    {
        let m = Mount::with_env(&first, dir.path(), &["-o", "ro,cache_max=1"], &env);
        ready(&m);
        assert!(m.join("tree/e4").exists() || m.join("tree/d4").exists());
    }
    assert_eq!(kept_indexes(&cache), kept_first);
    // Nothing of the dropped index stays behind (its endings, its changes).
    let left: Vec<String> = std::fs::read_dir(cache.join("gamefs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("positions-") && !n.starts_with(&kept_first[0]))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
