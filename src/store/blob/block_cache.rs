//! Blocks of remote objects kept on local disk, within a bound: the least recently used go
//! first. A block is a file of its own (`DIR/OBJECT/BLOCK`), written whole under another name
//! and renamed, so a kill leaves whole blocks or none; the cache is shared by every mount of
//! the user (a block's name says which version of which object it holds) and can be deleted
//! at any time.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use lru::LruCache;

/// Blocks kept on disk.
pub(super) struct DiskCache {
    dir: PathBuf,
    /// The most bytes kept.
    limit: u64,
    kept: Mutex<Kept>,
}

/// Which blocks are kept, least recently used first, and their bytes in all.
struct Kept {
    blocks: LruCache<PathBuf, u64>,
    bytes: u64,
}

impl DiskCache {
    /// The cache in `dir`, keeping at most `limit` bytes: the blocks already there are
    /// counted, oldest first to go.
    pub(super) fn open(dir: &Path, limit: u64) -> DiskCache {
        let mut found: Vec<(std::time::SystemTime, PathBuf, u64)> = Vec::new();
        for object in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            for block in std::fs::read_dir(object.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if let Ok(meta) = block.metadata()
                    && meta.is_file()
                {
                    let when = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                    found.push((when, block.path(), meta.len()));
                }
            }
        }
        found.sort();
        let mut kept = Kept {
            blocks: LruCache::unbounded(),
            bytes: 0,
        };
        for (_, path, len) in found {
            kept.bytes += len;
            kept.blocks.put(path, len);
        }
        let cache = DiskCache {
            dir: dir.to_path_buf(),
            limit,
            kept: Mutex::new(kept),
        };
        cache.evict();
        cache
    }

    /// Where block `block` of the object named `object` is kept.
    fn path(&self, object: &str, block: u64) -> PathBuf {
        self.dir.join(object).join(block.to_string())
    }

    /// Block `block` of `object`, when kept.
    pub(super) fn get(&self, object: &str, block: u64) -> Option<Vec<u8>> {
        let path = self.path(object, block);
        let bytes = std::fs::read(&path).ok()?;
        self.kept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .blocks
            .get(&path);
        Some(bytes)
    }

    /// Keep `bytes` as block `block` of `object` (a failure to write is logged once per
    /// block and costs only a later fetch).
    pub(super) fn put(&self, object: &str, block: u64, bytes: &[u8]) {
        if self.limit == 0 || bytes.len() as u64 > self.limit {
            return;
        }
        let path = self.path(object, block);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&tmp, bytes))
            .and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            log::warn!("cannot keep a block in {}: {e}", self.dir.display());
            return;
        }
        {
            let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(old) = kept.blocks.put(path, bytes.len() as u64) {
                kept.bytes -= old;
            }
            kept.bytes += bytes.len() as u64;
        }
        self.evict();
    }

    /// Remove the least recently used blocks until the rest fit the bound.
    fn evict(&self) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        while kept.bytes > self.limit {
            let Some((path, len)) = kept.blocks.pop_lru() else {
                break;
            };
            kept.bytes -= len;
            let _ = std::fs::remove_file(&path);
            if let Some(object) = path.parent() {
                // Only when it is empty.
                let _ = std::fs::remove_dir(object);
            }
        }
    }

    /// The bytes kept now.
    #[cfg(test)]
    fn bytes(&self) -> u64 {
        self.kept.lock().unwrap().bytes
    }
}

/// How many blocks are held in memory, per object (16 MiB: twice the blocks read ahead).
pub(super) const BLOCKS_IN_MEMORY: NonZeroUsize = NonZeroUsize::new(16).expect("not zero");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_blocks_go_first_and_the_bound_holds_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path(), 3000);
        for k in 0..3 {
            cache.put("obj", k, &[k as u8; 1000]);
        }
        assert_eq!(cache.get("obj", 0), Some(vec![0; 1000]));
        cache.put("obj", 3, &[3; 1000]);
        assert_eq!(cache.get("obj", 1), None, "the least recently used went");
        assert!(cache.get("obj", 0).is_some() && cache.get("obj", 3).is_some());
        assert_eq!(cache.bytes(), 3000);
        drop(cache);
        let smaller = DiskCache::open(dir.path(), 1500);
        assert_eq!(smaller.bytes(), 1000);
        let none = DiskCache::open(dir.path(), 0);
        none.put("obj", 9, &[9; 10]);
        assert_eq!(none.get("obj", 9), None);
    }
}
