//! The limit of the user's cache folder (`-o cache_max=SIZE`): the position indexes gamefs
//! keeps there for the next mount of each database, and the archives unpacked there
//! (`archives/HASH/`), grow with every database mounted, so past the limit the least recently
//! used of them are dropped, one after the other, whichever kind they are (the next mount of
//! their database builds its index again, or unpacks its archive again). Used means loaded,
//! written or found: [`mark_used`] sets a kept index's time, or an unpacking's [`UNPACKED`]
//! file's, when a mount takes it. What this process uses is [`hold`]en and never dropped.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// The default limit of the cache folder: 10 GiB.
pub const DEFAULT_MAX: u64 = 10 << 30;

/// The prefix of the kept position indexes' names, the files that are dropped past the limit.
const DROPPED_PREFIX: &str = "positions-";

/// The file beside a kept position index that holds the changes of its last mount.
pub const CHANGES: &str = ".changes";

/// The file beside a kept position index that holds its endings.
pub const ENDINGS: &str = ".endings";

/// The file beside a kept position index that holds the twin games of the same files.
pub const TWINS: &str = ".twins";

/// The file beside a kept position index that holds the header index of the same files
/// ([`crate::collection::query::HeaderIndex`]).
pub const HEADERS: &str = ".headers";

/// The files kept beside a position index `INDEX`, named `INDEX` and these ([`companion`]),
/// which go when it is dropped.
const COMPANIONS: [&str; 4] = [CHANGES, ENDINGS, TWINS, HEADERS];

/// The file kept beside the position index at `index` named by `suffix` ([`CHANGES`],
/// [`ENDINGS`]).
pub fn companion(index: &Path, suffix: &str) -> PathBuf {
    let mut name = index.to_path_buf().into_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// The folder of the cache folder that holds one folder per archive unpacked.
pub const ARCHIVES: &str = "archives";

/// The file that says an unpacking (a folder of [`ARCHIVES`]) is whole; its time says when it
/// was last used.
pub const UNPACKED: &str = "unpacked";

/// What this process uses (kept indexes, unpackings' folders): never dropped.
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Say that this process uses `path` (an unpacking's folder, a kept index) until it ends, so
/// that [`trim`] never drops it.
pub fn hold(path: &Path) {
    let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
    if !held.iter().any(|h| h == path) {
        held.push(path.to_path_buf());
    }
}

/// True when this process uses `path` ([`hold`]).
fn held(path: &Path) -> bool {
    HELD.lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .any(|h| h == path)
}

/// A size written as a number of bytes with an optional binary suffix: `500M`, `20G`,
/// `1.5T`, `4096`, `64k`, `2GiB`. `None` when it is not one.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: f64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().trim_end_matches("ib") {
        "" | "b" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    let bytes = number * (1u64 << shift) as f64;
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// Say that the kept file at `path` was used now (a mount took it), so it is the last to be
/// dropped.
pub fn mark_used(path: &Path) {
    if let Ok(f) = std::fs::File::options().write(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// The bytes the kept files of `dir` take (its own files, not the folders in it, such as the
/// remote blocks, which have their own limit).
fn kept_files(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            let used = meta.modified().ok()?;
            meta.is_file().then(|| (e.path(), meta.len(), used))
        })
        .collect()
}

/// The unpackings of `dir`'s archives folder, each with the bytes its files take and when it
/// was last used; and the bytes of the folder's other files (unpackings being written).
fn unpackings(dir: &Path) -> (Vec<(PathBuf, u64, SystemTime)>, u64) {
    let Ok(entries) = std::fs::read_dir(dir.join(ARCHIVES)) else {
        return (Vec::new(), 0);
    };
    let (mut whole, mut other) = (Vec::new(), 0);
    for entry in entries.flatten() {
        let path = entry.path();
        let len = bytes_under(&path);
        match std::fs::metadata(path.join(UNPACKED)).and_then(|m| m.modified()) {
            Ok(used) => whole.push((path, len, used)),
            Err(_) => other += len,
        }
    }
    (whole, other)
}

/// The bytes of the files under `path` (itself, when a file), at any depth.
fn bytes_under(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path).map_or(0, |entries| {
        entries.flatten().map(|e| bytes_under(&e.path())).sum()
    })
}

/// Drop the least recently used kept position indexes and unpacked archives of `dir` until
/// its files take at most `max` bytes, never one of `in_use` (the mount's own) or of what this
/// process holds ([`hold`]), nor a file being written (named with a dot past the prefix).
/// Returns what was dropped, each logged.
pub fn trim(dir: &Path, max: u64, in_use: &[&Path]) -> Vec<PathBuf> {
    let files = kept_files(dir);
    let (unpacked, unfinished) = unpackings(dir);
    let mut total: u64 = files.iter().map(|f| f.1).sum::<u64>()
        + unpacked.iter().map(|u| u.1).sum::<u64>()
        + unfinished;
    let mut candidates: Vec<_> = files
        .into_iter()
        .filter(|(path, _, _)| {
            path.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(DROPPED_PREFIX))
                .is_some_and(|rest| !rest.contains('.'))
        })
        .chain(unpacked)
        .filter(|(path, _, _)| !in_use.contains(&path.as_path()) && !held(path))
        .collect();
    candidates.sort_by_key(|c| c.2);
    let mut dropped = Vec::new();
    for (path, len, _) in candidates {
        if total <= max {
            break;
        }
        if drop_one(&path, max, len) {
            total -= len;
            dropped.push(path);
        }
    }
    if total > max {
        log::info!(
            "cache folder {}: {} MiB, past its limit of {} MiB (-o cache_max) with what this \
             mount uses",
            dir.display(),
            total >> 20,
            max >> 20
        );
    }
    dropped
}

/// Drop `path` (a kept position index, or an unpacking's folder) of `len` bytes from a cache
/// folder past its limit `max`, saying so: true when it is gone.
fn drop_one(path: &Path, max: u64, len: u64) -> bool {
    if path.is_dir() {
        // The done file first: a folder half removed is no unpacking a mount takes.
        if std::fs::remove_file(path.join(UNPACKED)).is_err() {
            return false;
        }
        let _ = std::fs::remove_dir_all(path);
        log::info!(
            "cache folder past its limit ({} MiB, -o cache_max): dropped the unpacked archive \
             {} ({} MiB), the least recently used; its archive is unpacked again at its next \
             mount",
            max >> 20,
            path.display(),
            len >> 20
        );
        return true;
    }
    if std::fs::remove_file(path).is_err() {
        return false;
    }
    // What goes with it: the files named after it.
    for suffix in COMPANIONS {
        let _ = std::fs::remove_file(companion(path, suffix));
    }
    log::info!(
        "cache folder past its limit ({} MiB, -o cache_max): dropped the position index {} \
         ({} MiB), the least recently used; its database builds it again at its next mount",
        max >> 20,
        path.display(),
        len >> 20
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn sizes_are_read_with_their_binary_suffixes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("64k"), Some(64 << 10));
        assert_eq!(parse_size("500M"), Some(500 << 20));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("1.5T"), Some(3 << 39));
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("5X"), None);
        assert_eq!(parse_size(""), None);
    }

    fn kept(dir: &Path, name: &str, len: usize, age_secs: u64) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, vec![0u8; len]).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age_secs))
            .unwrap();
        path
    }

    #[test]
    fn past_the_limit_the_least_recently_used_indexes_go_first_and_never_the_mounts_own() {
        let dir = tempfile::tempdir().unwrap();
        let oldest = kept(dir.path(), "positions-0000000000000001", 1000, 300);
        let own = kept(dir.path(), "positions-0000000000000002", 1000, 200);
        let older = kept(dir.path(), "positions-0000000000000003", 1000, 100);
        let newest = kept(dir.path(), "positions-0000000000000004", 1000, 10);
        let writing = kept(
            dir.path(),
            "positions-0000000000000005.buckets-1-0",
            1000,
            400,
        );
        let sizes = kept(dir.path(), "sizes-0000000000000001", 1000, 500);
        std::fs::create_dir(dir.path().join("remote")).unwrap();
        std::fs::write(dir.path().join("remote/block"), vec![0u8; 5000]).unwrap();
        // 6000 bytes kept, 4000 allowed: the two oldest indexes that are not the mount's go.
        let dropped = trim(dir.path(), 4000, &[&own]);
        assert_eq!(dropped, vec![oldest.clone(), older.clone()]);
        for gone in [&oldest, &older] {
            assert!(!gone.exists());
        }
        for stays in [&own, &newest, &writing, &sizes] {
            assert!(stays.exists(), "{}", stays.display());
        }
        // Within the limit nothing goes; used now, an index is the last to go.
        assert!(trim(dir.path(), 4000, &[]).is_empty());
        mark_used(&own);
        assert_eq!(trim(dir.path(), 3000, &[]), vec![newest]);
    }

    /// An unpacked archive's folder of `len` bytes, last used `age_secs` ago.
    fn unpacking(dir: &Path, hash: &str, len: usize, age_secs: u64) -> PathBuf {
        let folder = dir.join(ARCHIVES).join(hash);
        std::fs::create_dir_all(folder.join("files/sub")).unwrap();
        std::fs::write(folder.join("files/sub/a.pgn"), vec![b'x'; len]).unwrap();
        kept(&folder, UNPACKED, 0, age_secs);
        folder
    }

    #[test]
    fn unpacked_archives_and_indexes_go_together_least_recently_used_first_never_the_held() {
        let dir = tempfile::tempdir().unwrap();
        let oldest = unpacking(dir.path(), "00000000000000a1", 3000, 400);
        let index = kept(dir.path(), "positions-0000000000000001", 1000, 300);
        let held_one = unpacking(dir.path(), "00000000000000a2", 3000, 350);
        let newer = unpacking(dir.path(), "00000000000000a3", 3000, 100);
        // Being written: counted, never dropped.
        let partial = dir.path().join(ARCHIVES).join("00000000000000a4.partial-1");
        std::fs::create_dir_all(&partial).unwrap();
        std::fs::write(partial.join("b.pgn"), vec![0u8; 500]).unwrap();
        hold(&held_one);
        // 10500 bytes, 7000 allowed: the oldest unpacking and the index go, not the held one
        // though older than the index.
        let dropped = trim(dir.path(), 7000, &[]);
        assert_eq!(dropped, vec![oldest.clone(), index.clone()]);
        assert!(!oldest.exists() && !index.exists());
        for stays in [&held_one, &newer, &partial] {
            assert!(stays.exists(), "{}", stays.display());
        }
        // Used now, an unpacking is the last to go.
        let later = unpacking(dir.path(), "00000000000000a5", 1000, 50);
        mark_used(&newer.join(UNPACKED));
        assert!(trim(dir.path(), 7500, &[]).is_empty());
        assert_eq!(trim(dir.path(), 7000, &[]), vec![later]);
        assert!(newer.exists());
    }
}
