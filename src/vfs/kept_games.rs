//! What a mount keeps of each game for the next mount (as ratarmount keeps its index): the
//! size of its rendered file, so that `ls -l` or `stat` of games rendered during an earlier
//! mount costs nothing on the next, and its modification time, so that a game shows the same
//! time on every mount until its text changes (docs/SEMANTICS.md §2).
//!
//! The file lives in the user's cache folder (`$XDG_CACHE_HOME/gamefs`, else `~/.cache/gamefs`),
//! never next to the database. Its name is a hash of this gamefs (version and binary) and the
//! database files' paths; it holds, for each game, its size, its time and the game's
//! fingerprint ([`crate::collection::Collection::fingerprint`]: a digest of its index fields,
//! names and record) when they were learnt. What is kept is used only while the game's
//! fingerprint is the same, so a save, an import, a compaction or another program's change
//! makes only the games it touched render again and take a new time; the others keep theirs.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The start of the file, with its layout's version: fingerprint, size + 1, time.
const MAGIC: &[u8; 8] = b"GFGAMES1";
/// The layout before times were kept (fingerprint and size + 1): still read, its sizes used.
const MAGIC_SIZES_ONLY: &[u8; 8] = b"GFSIZES2";
/// Bytes per game in the file: fingerprint (8), size + 1 (4), time in nanoseconds (8).
const ENTRY_BYTES: usize = 20;

/// What a mount kept of one game: the fingerprint of the game it was learnt from, its size
/// and its modification time. All zero: nothing kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptGame {
    /// The game's fingerprint when this was learnt (0: not taken).
    pub fingerprint: u64,
    /// Size + 1; 0 when no size is kept.
    pub size_plus_one: u32,
    /// Modification time in nanoseconds since the epoch; 0 when no time is kept.
    pub mtime_nanos: u64,
}

impl KeptGame {
    /// Whether anything is kept.
    pub fn is_kept(&self) -> bool {
        *self != KeptGame::default()
    }
}

/// Where the kept games of one database are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptGames {
    path: PathBuf,
    /// Where the layout before times were kept had the same database's sizes.
    sizes_only: PathBuf,
}

impl KeptGames {
    /// The file for the database made of `files`, in the user's cache folder; `None` when
    /// there is no cache folder or a file cannot be found.
    pub fn for_database(files: &[PathBuf]) -> Option<KeptGames> {
        let dir = crate::store::files::cache_dir()?;
        Self::in_dir(&dir, files)
    }

    /// As [`KeptGames::for_database`], with the cache folder given.
    pub fn in_dir(dir: &Path, files: &[PathBuf]) -> Option<KeptGames> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        // Another gamefs may render differently: its version and its very binary are part
        // of the name.
        env!("CARGO_PKG_VERSION").hash(&mut h);
        if let Ok(m) = std::env::current_exe().and_then(std::fs::metadata) {
            (m.len(), m.mtime(), m.mtime_nsec()).hash(&mut h);
        }
        for f in files {
            crate::store::files::cache_key(f)?.hash(&mut h);
        }
        let h = h.finish();
        Some(KeptGames {
            path: dir.join(format!("games-{h:016x}")),
            sizes_only: dir.join(format!("sizes-{h:016x}")),
        })
    }

    /// What was kept, one per game as the database had when it was kept (empty when nothing
    /// is, or the file is damaged).
    pub fn load(&self) -> Vec<KeptGame> {
        let Ok(bytes) = std::fs::read(&self.path).or_else(|_| std::fs::read(&self.sizes_only))
        else {
            return Vec::new();
        };
        parse(&bytes).unwrap_or_default()
    }

    /// Keep `games`, replacing the file whole (atomically: a reader sees the old or the new).
    pub fn store(&self, games: &[KeptGame]) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut bytes = Vec::with_capacity(12 + games.len() * ENTRY_BYTES);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(games.len() as u32).to_le_bytes());
        for g in games {
            bytes.extend_from_slice(&g.fingerprint.to_le_bytes());
            bytes.extend_from_slice(&g.size_plus_one.to_le_bytes());
            bytes.extend_from_slice(&g.mtime_nanos.to_le_bytes());
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        drop(f);
        std::fs::rename(&tmp, &self.path)?;
        let _ = std::fs::remove_file(&self.sizes_only);
        Ok(())
    }

    /// Where the file is (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The games of a kept file's bytes, of either layout; None when they do not read whole.
fn parse(bytes: &[u8]) -> Option<Vec<KeptGame>> {
    let (entry_bytes, body) = match bytes.split_first_chunk::<8>()? {
        (magic, body) if magic == MAGIC => (ENTRY_BYTES, body),
        (magic, body) if magic == MAGIC_SIZES_ONLY => (12, body),
        _ => return None,
    };
    let (count, body) = body.split_first_chunk::<4>()?;
    if body.len() != u32::from_le_bytes(*count) as usize * entry_bytes {
        return None;
    }
    let u64_at = |c: &[u8], at: usize| u64::from_le_bytes(c[at..at + 8].try_into().expect("8"));
    let u32_at = |c: &[u8], at: usize| u32::from_le_bytes(c[at..at + 4].try_into().expect("4"));
    Some(
        body.chunks_exact(entry_bytes)
            .map(|c| KeptGame {
                fingerprint: u64_at(c, 0),
                size_plus_one: u32_at(c, 8),
                mtime_nanos: if entry_bytes == ENTRY_BYTES {
                    u64_at(c, 12)
                } else {
                    0
                },
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_come_back_for_the_same_files_whatever_their_state() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db.si4");
        std::fs::write(&db, b"index").unwrap();
        let cache = dir.path().join("cache");
        let kept_file = KeptGames::in_dir(&cache, std::slice::from_ref(&db)).unwrap();
        assert_eq!(kept_file.load(), [], "nothing kept yet");
        let kept = [
            KeptGame::default(),
            KeptGame {
                fingerprint: 7,
                size_plus_one: 101,
                mtime_nanos: 1_700_000_000_123_456_789,
            },
        ];
        kept_file.store(&kept).unwrap();
        assert_eq!(kept_file.load(), kept);
        // The database changes: still its file (each game checks its own fingerprint).
        std::fs::write(&db, b"index!").unwrap();
        assert_eq!(
            KeptGames::in_dir(&cache, std::slice::from_ref(&db)),
            Some(kept_file.clone())
        );
        // Another database: another file.
        let other = dir.path().join("other.si4");
        std::fs::write(&other, b"index").unwrap();
        assert_ne!(KeptGames::in_dir(&cache, &[other]), Some(kept_file.clone()));
        // A damaged file is not believed.
        std::fs::write(kept_file.path(), b"GFGAMES1\x03\x00\x00\x00\x01").unwrap();
        assert_eq!(kept_file.load(), []);
    }

    #[test]
    fn sizes_kept_before_times_were_are_still_used() {
        let mut older = b"GFSIZES2\x01\x00\x00\x00".to_vec();
        older.extend_from_slice(&7u64.to_le_bytes());
        older.extend_from_slice(&101u32.to_le_bytes());
        assert_eq!(
            parse(&older),
            Some(vec![KeptGame {
                fingerprint: 7,
                size_plus_one: 101,
                mtime_nanos: 0
            }])
        );
    }
}
