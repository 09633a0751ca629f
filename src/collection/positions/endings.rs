//! The endings of the games ([`super::material`]) kept beside the position index file
//! (`INDEX.endings`): for each ending some game passes through, the games that do, so that
//! `endings/` lists and `query/material=NAME/` finds them without replaying a game.
//!
//! Layout, little-endian: the magic `GFENDS01`; the stamp of the index file it goes with (8
//! bytes) and its game count (4); the count of endings (4); per ending, ascending, its code
//! (4) and where its games end in the lists (4, from the lists' start); then each ending's
//! games, ascending, each as the difference from the one before (the first from 0) in
//! LEB128. A game takes about a byte and a half per ending it passes through.

use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::file::{get_varint, keep_beside, put_varint};

const MAGIC: &[u8; 8] = b"GFENDS01";
const HEADER: usize = 8 + 8 + 4 + 4;
/// Bytes of an ending's entry in the table: its code and where its games end.
const ENTRY: usize = 8;

/// The bytes of a table kept beside the index (the endings', the header index's): mapped
/// from its file, or made in memory.
pub(crate) enum Bytes {
    /// Mapped from its file.
    Mapped(Mmap),
    /// Made in memory.
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Where the endings of the index at `index` are kept.
pub fn beside(index: &Path) -> PathBuf {
    crate::store::cache_folder::companion(index, crate::store::cache_folder::ENDINGS)
}

/// The endings of games as a build thread replays them ([`Gathered::add`]), in about a byte
/// and a half an ending a game passes through, where a pair of numbers took eight: at ten
/// million games, some 60 MB held while the position index is built.
#[derive(Default)]
pub struct Gathered {
    /// Per ending's code, its games each as the difference from the one before, and the last.
    lists: std::collections::BTreeMap<u32, (Vec<u8>, u32)>,
}

impl Gathered {
    /// Game `game` passes through the ending `code`; the games of each ending come
    /// ascending (a build thread's games do).
    pub fn add(&mut self, code: u32, game: u32) {
        let (list, last) = self.lists.entry(code).or_default();
        debug_assert!(list.is_empty() || game >= *last, "{game} after {last}");
        if list.is_empty() || game > *last {
            put_varint(
                list,
                u64::from(game - if list.is_empty() { 0 } else { *last }),
            );
            *last = game;
        }
    }

    /// The games of ending `code`, ascending.
    fn games(&self, code: u32) -> impl Iterator<Item = u32> + '_ {
        let list = self.lists.get(&code).map_or(&[][..], |l| &l.0[..]);
        let (mut at, mut game) = (0, 0u32);
        std::iter::from_fn(move || {
            game += get_varint(list, &mut at)? as u32;
            Some(game)
        })
    }

    /// Every (ending, game) pair, by ending.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.lists
            .keys()
            .flat_map(|&code| self.games(code).map(move |game| (code, game)))
    }
}

/// Which games pass through each ending (see the module's documentation).
pub struct EndingTable {
    bytes: Bytes,
    endings: usize,
}

impl EndingTable {
    /// The table of `pairs` (each an ending's code in the high 32 bits, a game in the low:
    /// the games' endings, in any order) for the index file stamped `stamp` of `games` games.
    #[cfg(test)]
    pub fn of_pairs(stamp: u64, games: u32, mut pairs: Vec<u64>) -> EndingTable {
        pairs.sort_unstable();
        let mut gathered = Gathered::default();
        for pair in pairs {
            gathered.add((pair >> 32) as u32, pair as u32);
        }
        EndingTable::of_gathered(stamp, games, vec![gathered])
    }

    /// The table of the endings the build threads `gathered`, for the index file stamped
    /// `stamp` of `games` games.
    pub fn of_gathered(stamp: u64, games: u32, gathered: Vec<Gathered>) -> EndingTable {
        let codes: std::collections::BTreeSet<u32> = gathered
            .iter()
            .flat_map(|g| g.lists.keys().copied())
            .collect();
        let mut table = Vec::new();
        let mut lists = Vec::new();
        let mut of_code = Vec::new();
        for code in codes {
            of_code.clear();
            for g in &gathered {
                of_code.extend(g.games(code));
            }
            of_code.sort_unstable();
            of_code.dedup();
            let mut previous = 0;
            for &game in &of_code {
                put_varint(&mut lists, u64::from(game - previous));
                previous = game;
            }
            table.extend_from_slice(&code.to_le_bytes());
            table.extend_from_slice(&(lists.len() as u32).to_le_bytes());
        }
        let mut bytes = Vec::with_capacity(HEADER + table.len() + lists.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&stamp.to_le_bytes());
        bytes.extend_from_slice(&games.to_le_bytes());
        bytes.extend_from_slice(&((table.len() / ENTRY) as u32).to_le_bytes());
        bytes.extend_from_slice(&table);
        bytes.extend_from_slice(&lists);
        EndingTable {
            endings: table.len() / ENTRY,
            bytes: Bytes::Owned(bytes),
        }
    }

    /// Keep the table at `path`, durably and atomically (a temporary file renamed over it).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        keep_beside(path, &self.bytes)
    }

    /// The table kept at `path`; `None` when it is missing or not whole.
    pub fn open(path: &Path) -> Option<EndingTable> {
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: as the index file's (`IndexFile::open`): ours, written whole and renamed
        // into place, never changed in place.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        let table = EndingTable::check(Bytes::Mapped(map))?;
        Some(table)
    }

    /// `bytes` as a table, when they are a whole one.
    fn check(bytes: Bytes) -> Option<EndingTable> {
        if bytes.get(..8)? != MAGIC {
            return None;
        }
        let endings = u32::from_le_bytes(bytes.get(20..24)?.try_into().ok()?) as usize;
        let lists = HEADER.checked_add(endings.checked_mul(ENTRY)?)?;
        let table = EndingTable { bytes, endings };
        let last_end = match endings {
            0 => 0,
            n => table.entry(n - 1).1,
        };
        (table.bytes.len() == lists.checked_add(last_end)?).then_some(table)
    }

    /// The stamp of the index file it goes with.
    pub fn stamp(&self) -> u64 {
        u64::from_le_bytes(self.bytes[8..16].try_into().expect("8 bytes"))
    }

    /// The games of the index it goes with.
    pub fn game_count(&self) -> u32 {
        u32::from_le_bytes(self.bytes[16..20].try_into().expect("4 bytes"))
    }

    /// Entry `i`: the ending's code and where its games end.
    fn entry(&self, i: usize) -> (u32, usize) {
        let at = HEADER + i * ENTRY;
        let word = |at: usize| u32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("4"));
        (word(at), word(at + 4) as usize)
    }

    /// The codes of the endings some game passes through, ascending.
    pub fn codes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.endings).map(|i| self.entry(i).0)
    }

    /// The games that pass through the ending with `code`, ascending.
    pub fn games(&self, code: u32) -> Vec<u32> {
        let Ok(i) = self.codes_search(code) else {
            return Vec::new();
        };
        let start = if i == 0 { 0 } else { self.entry(i - 1).1 };
        let lists = &self.bytes[HEADER + self.endings * ENTRY..];
        let list = &lists[start..self.entry(i).1];
        let mut games = Vec::new();
        let (mut at, mut game) = (0, 0u64);
        while let Some(delta) = get_varint(list, &mut at) {
            game += delta;
            games.push(game as u32);
        }
        games
    }

    /// Where `code` is in the table, or would be.
    fn codes_search(&self, code: u32) -> Result<usize, usize> {
        let table = &self.bytes[HEADER..HEADER + self.endings * ENTRY];
        let (entries, _) = table.as_chunks::<ENTRY>();
        entries.binary_search_by_key(&code, |e| u32::from_le_bytes([e[0], e[1], e[2], e[3]]))
    }

    /// The bytes it takes.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_table_reads_back_the_games_of_each_ending() {
        let dir = tempfile::tempdir().unwrap();
        let path = beside(&dir.path().join("positions-1"));
        let pair = |code: u64, game: u64| code << 32 | game;
        let pairs = vec![
            pair(9, 300_000),
            pair(5, 2),
            pair(9, 0),
            pair(5, 1),
            pair(5, 2),
            pair(7, 128),
        ];
        let table = EndingTable::of_pairs(42, 300_001, pairs);
        table.write(&path).unwrap();
        let kept = EndingTable::open(&path).unwrap();
        for t in [&table, &kept] {
            assert_eq!((t.stamp(), t.game_count()), (42, 300_001));
            assert_eq!(t.codes().collect::<Vec<_>>(), [5, 7, 9]);
            assert_eq!(t.games(5), [1, 2]);
            assert_eq!(t.games(7), [128]);
            assert_eq!(t.games(9), [0, 300_000]);
            assert!(t.games(6).is_empty() && t.games(10).is_empty());
        }
        // A torn table is none.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(EndingTable::open(&path).is_none());
        // Two build threads' games, each ascending, a game at several endings.
        let mut threads = [Gathered::default(), Gathered::default()];
        for (code, game) in [(9, 0), (5, 1), (9, 1), (5, 2), (7, 128), (9, 300_000)] {
            threads[game as usize % 2].add(code, game);
        }
        let pairs: Vec<(u32, u32)> = threads.iter().flat_map(Gathered::pairs).collect();
        assert_eq!(
            pairs,
            [(5, 2), (7, 128), (9, 0), (9, 300_000), (5, 1), (9, 1)]
        );
        let of_threads = EndingTable::of_gathered(42, 300_001, threads.into());
        assert_eq!(
            of_threads.bytes[..],
            EndingTable::of_pairs(
                42,
                300_001,
                vec![
                    pair(9, 300_000),
                    pair(9, 0),
                    pair(9, 1),
                    pair(5, 1),
                    pair(5, 2),
                    pair(7, 128),
                ]
            )
            .bytes[..]
        );
        let empty = EndingTable::of_pairs(1, 0, Vec::new());
        empty.write(&path).unwrap();
        assert_eq!(EndingTable::open(&path).unwrap().codes().count(), 0);
    }
}
