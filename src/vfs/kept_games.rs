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

use crate::collection::Collection;

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

    #[test]
    fn a_folder_keeps_each_databases_games_where_its_own_mount_does() {
        use crate::store::OpenOptions;
        let folder = crate::testing::demo_folder();
        let cache = folder.path().join("cache");
        let open = |path: &Path| crate::collection::open(path, &OpenOptions::default()).unwrap();
        let union = open(folder.path());
        let places = KeptPlaces::in_dir(&cache, &*union).unwrap();
        assert_eq!(places.paths().len(), 2);
        assert!(places.load(&*union).is_empty(), "nothing kept yet");
        let games: Vec<KeptGame> = (0..union.count())
            .map(|n| KeptGame {
                fingerprint: u64::from(n) + 1,
                size_plus_one: n + 10,
                mtime_nanos: 7,
            })
            .collect();
        places.store(&*union, &games).unwrap();
        assert_eq!(places.load(&*union), games);
        // The PGN file mounted alone finds what the folder's mount kept of its games.
        let later = open(&folder.path().join("later.pgn"));
        let alone = KeptPlaces::in_dir(&cache, &*later).unwrap();
        assert_eq!(alone.load(&*later), games[30..]);
        let db = open(&folder.path().join("db"));
        assert_eq!(
            KeptPlaces::in_dir(&cache, &*db).unwrap().load(&*db),
            games[..30]
        );
    }
}

/// Where a mount keeps its games: one file for one database; for a folder of databases
/// mounted as one, each database's own file, the one a mount of that database alone uses, so
/// what one mount learnt serves the other.
#[derive(Clone, Debug)]
pub struct KeptPlaces {
    /// One file, or one per database of the folder ([`Collection::member_of`] numbers them;
    /// `None` for one that cannot be kept).
    files: Vec<Option<KeptGames>>,
    /// True for a folder's databases, false for one database.
    per_member: bool,
}

impl KeptPlaces {
    /// The places for `coll` in the user's cache folder; `None` when nothing can be kept.
    pub fn for_collection(coll: &dyn Collection) -> Option<KeptPlaces> {
        Self::in_dir(&crate::store::files::cache_dir()?, coll)
    }

    /// As [`KeptPlaces::for_collection`], with the cache folder given.
    pub fn in_dir(dir: &Path, coll: &dyn Collection) -> Option<KeptPlaces> {
        let members = coll.members();
        if members.is_empty() {
            return Some(KeptPlaces {
                files: vec![Some(KeptGames::in_dir(dir, &coll.info().files)?)],
                per_member: false,
            });
        }
        let files: Vec<Option<KeptGames>> = members
            .iter()
            .filter(|m| m.skipped.is_none())
            .map(|m| KeptGames::in_dir(dir, &m.info.files))
            .collect();
        files.iter().any(Option::is_some).then_some(KeptPlaces {
            files,
            per_member: true,
        })
    }

    /// The files, for messages.
    pub fn paths(&self) -> Vec<&Path> {
        self.files.iter().flatten().map(KeptGames::path).collect()
    }

    /// What was kept of `coll`'s items, in its numbering (empty when nothing was).
    pub fn load(&self, coll: &dyn Collection) -> Vec<KeptGame> {
        if !self.per_member {
            return self.files[0]
                .as_ref()
                .map(KeptGames::load)
                .unwrap_or_default();
        }
        let kept: Vec<Vec<KeptGame>> = self
            .files
            .iter()
            .map(|f| f.as_ref().map(KeptGames::load).unwrap_or_default())
            .collect();
        if kept.iter().all(Vec::is_empty) {
            return Vec::new();
        }
        (0..coll.count())
            .map(|n| {
                coll.member_of(n)
                    .and_then(|(k, local)| kept.get(k)?.get(local as usize).copied())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Keep `games` (in `coll`'s numbering): each database's part in its own file, a file
    /// whose part holds nothing left as it is.
    pub fn store(&self, coll: &dyn Collection, games: &[KeptGame]) -> std::io::Result<()> {
        if !self.per_member {
            return match &self.files[0] {
                Some(f) if games.iter().any(KeptGame::is_kept) => f.store(games),
                _ => Ok(()),
            };
        }
        let mut parts: Vec<Vec<KeptGame>> = vec![Vec::new(); self.files.len()];
        for (n, game) in games.iter().enumerate() {
            let Some((k, local)) = coll.member_of(n as u32) else {
                continue;
            };
            let Some(part) = parts.get_mut(k) else {
                continue;
            };
            let local = local as usize;
            if part.len() <= local {
                part.resize(local + 1, KeptGame::default());
            }
            part[local] = *game;
        }
        for (file, part) in self.files.iter().zip(&parts) {
            if let Some(f) = file
                && part.iter().any(KeptGame::is_kept)
            {
                f.store(part)?;
            }
        }
        Ok(())
    }
}
