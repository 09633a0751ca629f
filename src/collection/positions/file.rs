//! The position index on disk: every (position, game, next move) of a database, sorted by
//! position, in one file in the user's cache folder, mapped and searched in place (the page
//! cache holds what is read; the mount's own memory holds none of it).
//!
//! Layout, little-endian: the magic `GFPOSIX1`; the stamp of the database files the index was
//! built from (8 bytes); the game count (4) and the entry count (8); per game 16 bytes (its
//! fingerprint, 8; its result, 1; 1 when indexed, else 0; White's and Black's rating and the
//! year, 2 each); then the entries, 14 bytes each (position key 8, game 4, next move 2),
//! sorted by key and game.

use std::io::{BufWriter, Write};
use std::path::Path;

use memmap2::Mmap;

use super::line::GameStats;

const MAGIC: &[u8; 8] = b"GFPOSIX1";
const HEADER: usize = 8 + 8 + 4 + 8;
const GAME: usize = 16;
/// The bytes of one entry on disk.
pub const ENTRY: usize = 14;

/// One game as the file keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's fingerprint when it was indexed (0: none).
    pub fingerprint: u64,
    /// Its statistics; `None` when it is not in the index (deleted, unreadable).
    pub stats: Option<GameStats>,
}

/// One entry: a game reaches position `key` and plays `next` there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The position's key.
    pub key: u64,
    /// The game.
    pub game: u32,
    /// The code of the move played next.
    pub next: u16,
}

impl Entry {
    /// The entry's bytes on disk.
    pub fn to_bytes(&self) -> [u8; ENTRY] {
        let mut b = [0u8; ENTRY];
        b[..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..12].copy_from_slice(&self.game.to_le_bytes());
        b[12..14].copy_from_slice(&self.next.to_le_bytes());
        b
    }

    /// The entry whose bytes on disk start `b` (at least [`ENTRY`] bytes).
    pub fn from_bytes(b: &[u8]) -> Entry {
        Entry {
            key: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            game: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            next: u16::from_le_bytes([b[12], b[13]]),
        }
    }
}

/// Write the index of `games` with `entries` (sorted by key and game) to `path`, atomically
/// (a temporary file renamed over it).
pub fn write(
    path: &Path,
    stamp: u64,
    games: &[GameRecord],
    entries: impl ExactSizeIterator<Item = Entry>,
) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        w.write_all(MAGIC)?;
        w.write_all(&stamp.to_le_bytes())?;
        w.write_all(&(games.len() as u32).to_le_bytes())?;
        w.write_all(&(entries.len() as u64).to_le_bytes())?;
        for g in games {
            let s = g.stats.unwrap_or_default();
            let mut b = [0u8; GAME];
            b[..8].copy_from_slice(&g.fingerprint.to_le_bytes());
            b[8] = s.result;
            b[9] = u8::from(g.stats.is_some());
            b[10..12].copy_from_slice(&s.white_elo.to_le_bytes());
            b[12..14].copy_from_slice(&s.black_elo.to_le_bytes());
            b[14..16].copy_from_slice(&s.year.to_le_bytes());
            w.write_all(&b)?;
        }
        for e in entries {
            w.write_all(&e.to_bytes())?;
        }
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A mapped index file.
pub struct IndexFile {
    map: Mmap,
    stamp: u64,
    games: u32,
    entries: usize,
}

impl IndexFile {
    /// Map the index at `path`; `None` when it is missing or not a whole index.
    pub fn open(path: &Path) -> Option<IndexFile> {
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: the file is ours (the user's cache folder), written whole and renamed into
        // place, never changed in place; a new index replaces it by rename, so the mapped
        // inode stays as it was.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        let head = map.get(..HEADER)?;
        if &head[..8] != MAGIC {
            return None;
        }
        let stamp = u64::from_le_bytes(head[8..16].try_into().ok()?);
        let games = u32::from_le_bytes(head[16..20].try_into().ok()?);
        let entries = usize::try_from(u64::from_le_bytes(head[20..28].try_into().ok()?)).ok()?;
        let want = HEADER
            .checked_add((games as usize).checked_mul(GAME)?)?
            .checked_add(entries.checked_mul(ENTRY)?)?;
        if map.len() != want {
            return None;
        }
        Some(IndexFile {
            map,
            stamp,
            games,
            entries,
        })
    }

    /// The stamp of the database files the index was built from.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// The number of games indexed (deleted and unreadable ones included).
    pub fn game_count(&self) -> u32 {
        self.games
    }

    /// The number of entries.
    pub fn entry_count(&self) -> usize {
        self.entries
    }

    /// Game `n` as the file keeps it.
    pub fn game(&self, n: u32) -> GameRecord {
        if n >= self.games {
            return GameRecord::default();
        }
        let at = HEADER + n as usize * GAME;
        let b = &self.map[at..at + GAME];
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        GameRecord {
            fingerprint: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            stats: (b[9] != 0).then(|| GameStats {
                result: b[8],
                white_elo: u16_at(10),
                black_elo: u16_at(12),
                year: u16_at(14),
            }),
        }
    }

    /// Entry `i`.
    pub fn entry(&self, i: usize) -> Entry {
        let at = HEADER + self.games as usize * GAME + i * ENTRY;
        Entry::from_bytes(&self.map[at..at + ENTRY])
    }

    fn key_at(&self, i: usize) -> u64 {
        let at = HEADER + self.games as usize * GAME + i * ENTRY;
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The entries of position `key`, games ascending.
    pub fn find(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        // Binary search for the first entry not below `key`.
        let (mut lo, mut hi) = (0, self.entries);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.entries)
            .map(|i| self.entry(i))
            .take_while(move |e| e.key == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_entries_are_found_by_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let games = vec![
            GameRecord {
                fingerprint: 7,
                stats: Some(GameStats {
                    result: 1,
                    white_elo: 2500,
                    black_elo: 2400,
                    year: 1999,
                }),
            },
            GameRecord::default(),
        ];
        let mut entries = vec![
            Entry {
                key: 5,
                game: 0,
                next: 1,
            },
            Entry {
                key: 3,
                game: 0,
                next: 2,
            },
            Entry {
                key: 5,
                game: 1,
                next: 3,
            },
        ];
        entries.sort();
        write(&path, 42, &games, entries.clone().into_iter()).unwrap();
        let f = IndexFile::open(&path).unwrap();
        assert_eq!((f.stamp(), f.game_count(), f.entry_count()), (42, 2, 3));
        assert_eq!(f.game(0), games[0]);
        assert_eq!(f.game(1), games[1]);
        assert_eq!(f.find(5).collect::<Vec<_>>(), entries[1..].to_vec());
        assert_eq!(f.find(3).count(), 1);
        assert_eq!(f.find(4).count(), 0);
        assert_eq!(f.find(9).count(), 0);
        std::fs::write(&path, b"GFPOSIX1 short").unwrap();
        assert!(IndexFile::open(&path).is_none());
    }
}
