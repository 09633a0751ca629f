//! The sizes of rendered game files, kept between mounts (as ratarmount keeps its index), so
//! that `ls -l` or `stat` of games rendered during an earlier mount costs nothing on the next.
//!
//! The file lives in the user's cache folder (`$XDG_CACHE_HOME/gamefs`, else `~/.cache/gamefs`),
//! never next to the database. Its name is a hash of what makes the sizes true: this gamefs
//! (version and binary) and every database file's path, device, inode, length and
//! modification time. Any
//! change to the database (a save, another program) gives another name, so a stale file is
//! simply never found; old files are small and can be deleted at any time.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"GFSIZES1";

/// Where the sizes of one state of one database are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeIndex {
    path: PathBuf,
}

impl SizeIndex {
    /// The size file for the database made of `files` as they are now, in the user's cache
    /// folder; `None` when there is no cache folder or a file cannot be looked at.
    pub fn for_database(files: &[PathBuf]) -> Option<SizeIndex> {
        let dir = crate::store::files::cache_dir()?;
        Self::in_dir(&dir, files)
    }

    /// As [`SizeIndex::for_database`], with the cache folder given.
    pub fn in_dir(dir: &Path, files: &[PathBuf]) -> Option<SizeIndex> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        // Another gamefs may render differently: its version and its very binary are part
        // of the name.
        env!("CARGO_PKG_VERSION").hash(&mut h);
        if let Ok(m) = std::env::current_exe().and_then(std::fs::metadata) {
            (m.len(), m.mtime(), m.mtime_nsec()).hash(&mut h);
        }
        for f in files {
            let m = std::fs::metadata(f).ok()?;
            std::fs::canonicalize(f).ok()?.hash(&mut h);
            (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()).hash(&mut h);
        }
        Some(SizeIndex {
            path: dir.join(format!("sizes-{:016x}", h.finish())),
        })
    }

    /// The kept sizes (size + 1 per game, 0 for unknown), if there are exactly `games` of them.
    pub fn load(&self, games: u32) -> Option<Vec<u32>> {
        let bytes = std::fs::read(&self.path).ok()?;
        let body = bytes.strip_prefix(MAGIC)?;
        let (count, body) = body.split_first_chunk::<4>()?;
        if u32::from_le_bytes(*count) != games || body.len() != games as usize * 4 {
            return None;
        }
        Some(
            body.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        )
    }

    /// Keep `sizes` (size + 1 per game, 0 for unknown), replacing the file whole.
    pub fn store(&self, sizes: &[u32]) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut bytes = Vec::with_capacity(12 + sizes.len() * 4);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(sizes.len() as u32).to_le_bytes());
        for s in sizes {
            bytes.extend_from_slice(&s.to_le_bytes());
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        drop(f);
        std::fs::rename(&tmp, &self.path)
    }

    /// Where the file is (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_come_back_only_for_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db.si4");
        std::fs::write(&db, b"index").unwrap();
        let cache = dir.path().join("cache");
        let index = SizeIndex::in_dir(&cache, std::slice::from_ref(&db)).unwrap();
        assert_eq!(index.load(3), None, "nothing kept yet");
        index.store(&[0, 101, 7]).unwrap();
        assert_eq!(index.load(3), Some(vec![0, 101, 7]));
        assert_eq!(index.load(4), None, "another game count");
        // The database changes: its sizes are another file's.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&db, b"index!").unwrap();
        let changed = SizeIndex::in_dir(&cache, std::slice::from_ref(&db)).unwrap();
        assert_ne!(changed, index);
        assert_eq!(changed.load(3), None);
        // A damaged file is not believed.
        std::fs::write(index.path(), b"GFSIZES1\x03\x00\x00\x00\x01").unwrap();
        assert_eq!(index.load(3), None);
    }
}
