//! The limit of the user's cache folder (`-o cache_max=SIZE`): the position indexes gamefs
//! keeps there for the next mount of each database grow with every database mounted, so past
//! the limit the least recently used of them are dropped (the next mount of their database
//! builds its index again). Used means loaded or written: [`mark_used`] sets a kept index's
//! time when a mount takes it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The default limit of the cache folder: 10 GiB.
pub const DEFAULT_MAX: u64 = 10 << 30;

/// The prefix of the kept position indexes' names, the files that are dropped past the limit.
const DROPPED_PREFIX: &str = "positions-";

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

/// Drop the least recently used kept position indexes of `dir` until its files take at most
/// `max` bytes, never one of `in_use` (the mount's own) nor a file being written (named with a
/// dot past the prefix). Returns the indexes dropped, each logged.
pub fn trim(dir: &Path, max: u64, in_use: &[&Path]) -> Vec<PathBuf> {
    let files = kept_files(dir);
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    let mut candidates: Vec<_> = files
        .into_iter()
        .filter(|(path, _, _)| {
            path.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(DROPPED_PREFIX))
                .is_some_and(|rest| !rest.contains('.'))
                && !in_use.contains(&path.as_path())
        })
        .collect();
    candidates.sort_by_key(|c| c.2);
    let mut dropped = Vec::new();
    for (path, len, _) in candidates {
        if total <= max {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            // What goes with it: the changes of its last mount (`INDEX.changes`).
            let mut changes = path.clone().into_os_string();
            changes.push(".changes");
            let _ = std::fs::remove_file(changes);
            log::info!(
                "cache folder past its limit ({} MiB, -o cache_max): dropped the position \
                 index {} ({} MiB), the least recently used; its database builds it again \
                 at its next mount",
                max >> 20,
                path.display(),
                len >> 20
            );
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
}
