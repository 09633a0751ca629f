//! The sizes of rendered game files, kept between mounts (as ratarmount keeps its index), so
//! that `ls -l` or `stat` of games rendered during an earlier mount costs nothing on the next.
//!
//! The file lives in the user's cache folder (`$XDG_CACHE_HOME/gamefs`, else `~/.cache/gamefs`),
//! never next to the database. Its name is a hash of this gamefs (version and binary) and the
//! database files' paths; it holds, for each game, its size and the game's fingerprint
//! ([`crate::collection::Collection::fingerprint`]: a digest of its index fields, names and
//! record) when the size was learnt. A kept size is used only while the game's fingerprint is
//! the same, so a save, an import, a compaction or another program's change makes only the
//! games it touched render again; the others keep their sizes.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"GFSIZES2";

/// One game's kept size: the fingerprint of the game it was learnt from, and size + 1 (0: no
/// size kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptSize {
    /// The game's fingerprint when its size was learnt.
    pub fingerprint: u64,
    /// Size + 1; 0 when nothing is kept.
    pub size_plus_one: u32,
}

/// Where the sizes of one database are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeIndex {
    path: PathBuf,
}

impl SizeIndex {
    /// The size file for the database made of `files`, in the user's cache folder; `None`
    /// when there is no cache folder or a file cannot be found.
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
            std::fs::canonicalize(f).ok()?.hash(&mut h);
        }
        Some(SizeIndex {
            path: dir.join(format!("sizes-{:016x}", h.finish())),
        })
    }

    /// The kept sizes, one per game as the database had when they were kept (empty when
    /// there are none, or the file is damaged).
    pub fn load(&self) -> Vec<KeptSize> {
        let Ok(bytes) = std::fs::read(&self.path) else {
            return Vec::new();
        };
        let Some((count, body)) = bytes
            .strip_prefix(MAGIC)
            .and_then(|b| b.split_first_chunk::<4>())
        else {
            return Vec::new();
        };
        if body.len() != u32::from_le_bytes(*count) as usize * 12 {
            return Vec::new();
        }
        body.chunks_exact(12)
            .map(|c| KeptSize {
                fingerprint: u64::from_le_bytes(c[..8].try_into().expect("8 bytes")),
                size_plus_one: u32::from_le_bytes(c[8..].try_into().expect("4 bytes")),
            })
            .collect()
    }

    /// Keep `sizes`, replacing the file whole (atomically: a reader sees the old or the new).
    pub fn store(&self, sizes: &[KeptSize]) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut bytes = Vec::with_capacity(12 + sizes.len() * 12);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(sizes.len() as u32).to_le_bytes());
        for s in sizes {
            bytes.extend_from_slice(&s.fingerprint.to_le_bytes());
            bytes.extend_from_slice(&s.size_plus_one.to_le_bytes());
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
    fn sizes_come_back_for_the_same_files_whatever_their_state() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db.si4");
        std::fs::write(&db, b"index").unwrap();
        let cache = dir.path().join("cache");
        let index = SizeIndex::in_dir(&cache, std::slice::from_ref(&db)).unwrap();
        assert_eq!(index.load(), [], "nothing kept yet");
        let kept = [
            KeptSize::default(),
            KeptSize {
                fingerprint: 7,
                size_plus_one: 101,
            },
        ];
        index.store(&kept).unwrap();
        assert_eq!(index.load(), kept);
        // The database changes: still its file (each size checks its own game).
        std::fs::write(&db, b"index!").unwrap();
        assert_eq!(
            SizeIndex::in_dir(&cache, std::slice::from_ref(&db)),
            Some(index.clone())
        );
        // Another database: another file.
        let other = dir.path().join("other.si4");
        std::fs::write(&other, b"index").unwrap();
        assert_ne!(SizeIndex::in_dir(&cache, &[other]), Some(index.clone()));
        // A damaged file is not believed.
        std::fs::write(index.path(), b"GFSIZES2\x03\x00\x00\x00\x01").unwrap();
        assert_eq!(index.load(), []);
    }
}
