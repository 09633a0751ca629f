//! The position index on disk: every (position, game, next move) of a database, sorted by
//! position, in one file in the user's cache folder, mapped and searched in place (the page
//! cache holds what is read; the mount's own memory holds none of it).
//!
//! Layout, little-endian: the magic `GFPOSIX2`; the stamp of the database files the index was
//! built from (8 bytes); the game count (4), the entry count (8) and the sum count (8); per
//! game 16 bytes (its fingerprint, 8; its result, 1; 1 when indexed, else 0; White's and
//! Black's rating and the year, 2 each); then the entries, 14 bytes each (position key 8,
//! game 4, next move 2), sorted by key and game; then the sums, [`SUM`] bytes each
//! ([`Sum::to_bytes`]), sorted by key and move: for every position at least [`SUMS_FROM`]
//! games reach, the sums of SCID's tree statistics per move played there, so its table is
//! read in a few pages, however many games reach it (the start position: all of them).

use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::Mmap;

use super::buckets::Buckets;
use super::line::GameStats;
use super::table::{MoveStats, count_move};

const MAGIC: &[u8; 8] = b"GFPOSIX2";
const HEADER: usize = 8 + 8 + 4 + 8 + 8;
/// Where the sum count lies in the header.
const SUM_COUNT_AT: u64 = 8 + 8 + 4 + 8;
const GAME: usize = 16;
/// The bytes of one entry on disk.
pub const ENTRY: usize = 14;
/// The bytes of one sum on disk.
pub const SUM: usize = 8 + 2 + 4 * 4 + 8 + 8 + 4 + 8 + 4;
/// The games a position needs for its sums to be kept: below, its entries are read (fewer
/// than this many pages), above, its sums.
pub const SUMS_FROM: usize = if cfg!(test) { 2 } else { 64 };

/// The sums of the games that reach a position and play one move there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sum {
    /// The position's key.
    pub key: u64,
    /// The move's code.
    pub next: u16,
    /// The sums of its games.
    pub stats: MoveStats,
}

impl Sum {
    /// The sum's bytes on disk.
    pub fn to_bytes(&self) -> [u8; SUM] {
        let s = &self.stats;
        let mut b = Vec::with_capacity(SUM);
        b.extend_from_slice(&self.key.to_le_bytes());
        b.extend_from_slice(&self.next.to_le_bytes());
        for v in [s.games, s.white_wins, s.black_wins, s.draws] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&s.white_elo_sum.to_le_bytes());
        b.extend_from_slice(&s.black_elo_sum.to_le_bytes());
        b.extend_from_slice(&s.elo_count.to_le_bytes());
        b.extend_from_slice(&s.year_sum.to_le_bytes());
        b.extend_from_slice(&s.year_count.to_le_bytes());
        b.try_into().expect("SUM bytes")
    }

    /// The sum whose bytes on disk start `b` (at least [`SUM`] bytes).
    pub fn from_bytes(b: &[u8]) -> Sum {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Sum {
            key: u64_at(0),
            next: u16::from_le_bytes([b[8], b[9]]),
            stats: MoveStats {
                games: u32_at(10),
                white_wins: u32_at(14),
                black_wins: u32_at(18),
                draws: u32_at(22),
                white_elo_sum: u64_at(26),
                black_elo_sum: u64_at(34),
                elo_count: u32_at(42),
                year_sum: u64_at(46),
                year_count: u32_at(54),
            },
        }
    }
}

/// The sums of one position as the entries go by: kept when at least [`SUMS_FROM`] indexed
/// games reach it. A game's statistics are looked up only once that many games reach the
/// position (most positions are reached by one game, and a lookup per entry would be a cache
/// miss per entry); from then on each entry is counted as it comes, so the memory stays a few
/// entries however many games reach a position (the start position: all of them).
struct Summing<'a> {
    games: &'a [GameRecord],
    key: u64,
    /// The first [`SUMS_FROM`] games reaching the position, with their next move: once
    /// there are that many they are counted in `moves`, and so is every game after them.
    reach: Vec<(u32, u16)>,
    /// The indexed games counted in `moves`.
    indexed: usize,
    moves: Vec<(u16, MoveStats)>,
}

impl<'a> Summing<'a> {
    /// Sums of the entries of `games`.
    fn new(games: &'a [GameRecord]) -> Summing<'a> {
        Summing {
            games,
            key: 0,
            reach: Vec::with_capacity(SUMS_FROM),
            indexed: 0,
            moves: Vec::new(),
        }
    }

    /// Count entry `e`; write the sums of the position before to `out` when `e` is of
    /// another, and say how many were written.
    fn add(&mut self, e: &Entry, out: &mut impl Write) -> std::io::Result<u64> {
        let written = if e.key != self.key {
            self.flush(out)?
        } else {
            0
        };
        self.key = e.key;
        if self.reach.len() == SUMS_FROM {
            self.count(e.game, e.next);
        } else {
            self.reach.push((e.game, e.next));
            if self.reach.len() == SUMS_FROM {
                for i in 0..SUMS_FROM {
                    let (game, next) = self.reach[i];
                    self.count(game, next);
                }
            }
        }
        Ok(written)
    }

    /// Count game `game`, which plays `next` at the position, if it is indexed.
    fn count(&mut self, game: u32, next: u16) {
        if let Some(stats) = self.games.get(game as usize).and_then(|g| g.stats) {
            self.indexed += 1;
            count_move(&mut self.moves, next, &stats);
        }
    }

    /// Write the sums of the position gathered (if enough indexed games reach it) and start
    /// afresh; how many were written.
    fn flush(&mut self, out: &mut impl Write) -> std::io::Result<u64> {
        let mut written = 0;
        if self.indexed >= SUMS_FROM {
            self.moves.sort_unstable_by_key(|m| m.0);
            for &(next, stats) in &self.moves {
                let sum = Sum {
                    key: self.key,
                    next,
                    stats,
                };
                out.write_all(&sum.to_bytes())?;
                written += 1;
            }
        }
        self.reach.clear();
        self.indexed = 0;
        self.moves.clear();
        Ok(written)
    }
}

/// One game as the file keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's fingerprint when it was indexed (0: none).
    pub fingerprint: u64,
    /// Its statistics; `None` when it is not in the index (deleted, unreadable).
    pub stats: Option<GameStats>,
}

// A million games' records in 16 MB: the result is an enum, so `Option<GameStats>` needs no
// room of its own.
const _: () = assert!(std::mem::size_of::<GameRecord>() == 16);

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

/// Write the index of `games` with `entries` (sorted by key and game) and their sums to
/// `path`, atomically (a temporary file renamed over it). The sums are gathered beside it in
/// a second temporary file as the entries go by, then copied after them.
pub fn write(
    path: &Path,
    stamp: u64,
    games: &[GameRecord],
    entries: impl ExactSizeIterator<Item = Entry>,
) -> std::io::Result<()> {
    let tmp = scratch_beside(path, "tmp");
    let sums_tmp = scratch_beside(path, "sums");
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        w.write_all(&head(stamp, games, entries.len()))?;
        let mut sums = BufWriter::with_capacity(
            1 << 20,
            std::fs::File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&sums_tmp)?,
        );
        let mut summing = Summing::new(games);
        let mut sum_count = 0;
        for e in entries {
            w.write_all(&e.to_bytes())?;
            sum_count += summing.add(&e, &mut sums)?;
        }
        sum_count += summing.flush(&mut sums)?;
        let mut sums = sums.into_inner().map_err(|e| e.into_error())?;
        sums.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut BufReader::with_capacity(1 << 20, sums), &mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        finish(file, sum_count, &tmp, path)?.keep()
    })();
    let _ = std::fs::remove_file(&sums_tmp);
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A file of one write of the index at `index`, `INDEX.WHAT-PID-N`: named apart from every
/// other write's, those of this process included (a rebuild may run beside the first build,
/// and each must not write into the other's files).
pub fn scratch_beside(index: &Path, what: &str) -> PathBuf {
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let mut name = index.to_path_buf().into_os_string();
    name.push(format!(
        ".{what}-{}-{}",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    PathBuf::from(name)
}

/// A bucket's sums as they are written to the file, and how many there are.
type BucketSums = (Vec<u8>, u64);

/// The entries a bucket's writer turns into bytes at a time.
const CHUNK: usize = 1 << 16;

/// Write the index of `games` with the entries of `buckets` and their sums for `path`, as
/// [`write()`] does: each bucket read back, sorted and written at its place in the file, with
/// its sums, on `threads` threads (a bucket's keys all come before the next bucket's, so no
/// merge is needed). The index is whole and readable, not yet kept ([`Written::keep`]).
pub fn write_buckets(
    path: &Path,
    stamp: u64,
    games: &[GameRecord],
    buckets: &Buckets,
    threads: usize,
) -> std::io::Result<Written> {
    let tmp = scratch_beside(path, "tmp");
    let started = std::time::Instant::now();
    let sizes = buckets.sizes();
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let head = head(stamp, games, sizes.iter().sum());
        file.write_all_at(&head, 0)?;
        let mut starts = Vec::with_capacity(sizes.len());
        let mut at = head.len() as u64;
        for &size in &sizes {
            starts.push(at);
            at += (size * ENTRY) as u64;
        }
        // Each bucket's sums and their count, in bucket order once all are written.
        let sums: Vec<Mutex<BucketSums>> = sizes.iter().map(|_| Mutex::default()).collect();
        let next = AtomicUsize::new(0);
        let work = || -> std::io::Result<()> {
            // Reused for every bucket the thread takes.
            let mut entries = Vec::new();
            let mut bytes = Vec::with_capacity(CHUNK * ENTRY);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= sizes.len() {
                    return Ok(());
                }
                buckets.take_sorted(i, &mut entries)?;
                let mut bucket_sums = Vec::new();
                let mut count = 0;
                let mut summing = Summing::new(games);
                let mut at = starts[i];
                for chunk in entries.chunks(CHUNK) {
                    bytes.clear();
                    for e in chunk {
                        bytes.extend_from_slice(&e.to_bytes());
                        count += summing.add(e, &mut bucket_sums)?;
                    }
                    file.write_all_at(&bytes, at)?;
                    at += bytes.len() as u64;
                }
                count += summing.flush(&mut bucket_sums)?;
                *sums[i].lock().unwrap_or_else(|p| p.into_inner()) = (bucket_sums, count);
            }
        };
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads.max(1)).map(|_| s.spawn(work)).collect();
            workers
                .into_iter()
                .try_for_each(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        })?;
        log::info!(
            "position index: {} buckets sorted and written in {:.1} s",
            sizes.len(),
            started.elapsed().as_secs_f64()
        );
        let mut sum_count = 0;
        for bucket in sums {
            let (bytes, count) = bucket.into_inner().unwrap_or_else(|p| p.into_inner());
            file.write_all_at(&bytes, at)?;
            at += bytes.len() as u64;
            sum_count += count;
        }
        finish(file, sum_count, &tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The start of an index file: its header (the sum count left 0: [`finish`] writes it) and
/// the records of `games`.
fn head(stamp: u64, games: &[GameRecord], entries: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER + games.len() * GAME);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&stamp.to_le_bytes());
    b.extend_from_slice(&(games.len() as u32).to_le_bytes());
    b.extend_from_slice(&(entries as u64).to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    for g in games {
        let s = g.stats.unwrap_or_default();
        b.extend_from_slice(&g.fingerprint.to_le_bytes());
        b.push(s.result_code());
        b.push(u8::from(g.stats.is_some()));
        b.extend_from_slice(&s.white_elo.to_le_bytes());
        b.extend_from_slice(&s.black_elo.to_le_bytes());
        b.extend_from_slice(&s.year.to_le_bytes());
    }
    b
}

/// Write the sum count into the index written to `tmp`, which is then whole, to be kept at
/// `path`.
fn finish(
    file: std::fs::File,
    sum_count: u64,
    tmp: &Path,
    path: &Path,
) -> std::io::Result<Written> {
    file.write_all_at(&sum_count.to_le_bytes(), SUM_COUNT_AT)?;
    Ok(Written {
        file,
        tmp: tmp.to_path_buf(),
        path: path.to_path_buf(),
        kept: false,
    })
}

/// An index written whole to its temporary file: readable there ([`Written::open`]), not yet
/// durable nor in its place. A build answers from it first and keeps it then: making two
/// gigabytes durable takes seconds, which the tree need not wait for. Removed when dropped
/// unkept.
pub struct Written {
    file: std::fs::File,
    tmp: PathBuf,
    path: PathBuf,
    kept: bool,
}

impl Written {
    /// The index, mapped where it was written (the mapping stays valid when it is renamed).
    pub fn open(&self) -> Option<IndexFile> {
        IndexFile::open(&self.tmp)
    }

    /// Make the index durable, then rename it to its path (so a crash never leaves a torn
    /// index there).
    pub fn keep(mut self) -> std::io::Result<()> {
        let started = std::time::Instant::now();
        self.file.sync_all()?;
        log::info!(
            "position index: made durable in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        std::fs::rename(&self.tmp, &self.path)?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// A mapped index file.
pub struct IndexFile {
    map: Mmap,
    stamp: u64,
    games: u32,
    entries: usize,
    sums: usize,
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
        let sums = usize::try_from(u64::from_le_bytes(head[28..36].try_into().ok()?)).ok()?;
        let want = HEADER
            .checked_add((games as usize).checked_mul(GAME)?)?
            .checked_add(entries.checked_mul(ENTRY)?)?
            .checked_add(sums.checked_mul(SUM)?)?;
        if map.len() != want {
            return None;
        }
        let file = IndexFile {
            map,
            stamp,
            games,
            entries,
            sums,
        };
        // Entries and sums are looked up at random: a page read where it is touched, not the
        // kernel's read-ahead around it; a run of entries read in order asks for its pages
        // itself (`find`, `read_all`). The games' records keep the read-ahead: a position's
        // games are read in ascending order. (A 10-ply line looked up cold at 1M: 190-292 ms
        // with read-ahead everywhere, 45-61 ms so; `tree/e4/games` listed cold: 159-196 ms,
        // 116-168 ms so, and 302-328 ms with the records read at random too.)
        let _ = file.map.advise_range(
            memmap2::Advice::Random,
            file.entry_at(0),
            entries * ENTRY + sums * SUM,
        );
        Some(file)
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
                result: GameStats::result_of_code(b[8]),
                white_elo: u16_at(10),
                black_elo: u16_at(12),
                year: u16_at(14),
            }),
        }
    }

    /// Entry `i`.
    pub fn entry(&self, i: usize) -> Entry {
        let at = self.entry_at(i);
        Entry::from_bytes(&self.map[at..at + ENTRY])
    }

    /// Sum `i`.
    fn sum(&self, i: usize) -> Sum {
        let at = HEADER + self.games as usize * GAME + self.entries * ENTRY + i * SUM;
        Sum::from_bytes(&self.map[at..at + SUM])
    }

    /// The entries of position `key`, games ascending (their pages asked for at once when
    /// they are many).
    pub fn find(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        let lo = first_not_below(self.entries, |i| (self.entry(i).key, 0), (key, 0));
        let hi = match key.checked_add(1) {
            Some(next) => first_not_below(self.entries, |i| (self.entry(i).key, 0), (next, 0)),
            None => self.entries,
        };
        if hi - lo > ENTRIES_READ_AHEAD {
            let _ = self.map.advise_range(
                memmap2::Advice::WillNeed,
                self.entry_at(lo),
                (hi - lo) * ENTRY,
            );
        }
        (lo..hi).map(|i| self.entry(i))
    }

    /// Every entry in order (their pages read ahead as they are read).
    pub fn read_all(&self) -> impl Iterator<Item = Entry> + '_ {
        let _ = self.map.advise_range(
            memmap2::Advice::Sequential,
            self.entry_at(0),
            self.entries * ENTRY,
        );
        (0..self.entries).map(|i| self.entry(i))
    }

    /// Where entry `i` is in the file.
    fn entry_at(&self, i: usize) -> usize {
        HEADER + self.games as usize * GAME + i * ENTRY
    }

    /// The entry of game `game` at position `key`, if the game reaches it.
    pub fn find_game(&self, key: u64, game: u32) -> Option<Entry> {
        let at = first_not_below(
            self.entries,
            |i| {
                let e = self.entry(i);
                (e.key, e.game)
            },
            (key, game),
        );
        (at < self.entries)
            .then(|| self.entry(at))
            .filter(|e| e.key == key && e.game == game)
    }

    /// The sums of position `key` per move played there, moves ascending; `None` when it
    /// has none (fewer than [`SUMS_FROM`] games reach it: [`IndexFile::find`] its entries).
    pub fn sums(&self, key: u64) -> Option<Vec<(u16, MoveStats)>> {
        let lo = first_not_below(self.sums, |i| (self.sum(i).key, 0), (key, 0));
        let sums: Vec<(u16, MoveStats)> = (lo..self.sums)
            .map(|i| self.sum(i))
            .take_while(|s| s.key == key)
            .map(|s| (s.next, s.stats))
            .collect();
        (!sums.is_empty()).then_some(sums)
    }
}

/// The entries of one position past which its pages are asked for at once (a page holds
/// 256).
const ENTRIES_READ_AHEAD: usize = 1024;

/// The first of `len` items ascending by `at` whose value is not below `want`. The keys are
/// hashes, spread evenly over the 64-bit range, so each step guesses where `want`'s key lies
/// between the keys known at the ends of the range left (interpolation search): two or three
/// pages of a file that may not be in memory, where halving reads a dozen over the entries of
/// a million games. Where guessing does not halve the range in two steps (the ends' keys
/// equal, as in the run of one position's entries), the next step halves it, so the steps
/// stay at most thrice a binary search's.
fn first_not_below(len: usize, at: impl Fn(usize) -> (u64, u32), want: (u64, u32)) -> usize {
    let (mut lo, mut hi) = (0, len);
    // The key of the item before `lo` (below `want`) and of the item at `hi` (not below).
    let (mut lo_key, mut hi_key) = (0u64, u64::MAX);
    // The range the step before started with, and whether this step halves.
    let (mut before, mut halve) = (len, false);
    while lo < hi {
        let range = hi - lo;
        // Where the key lies between the ends' keys, when it lies strictly between them.
        let guess = (!halve && lo_key < want.0 && want.0 < hi_key).then(|| {
            let off = u128::from(want.0 - lo_key) * range as u128 / u128::from(hi_key - lo_key);
            (off as usize).min(range - 1)
        });
        let mid = lo + guess.unwrap_or(range / 2);
        let v = at(mid);
        if v < want {
            (lo, lo_key) = (mid + 1, v.0);
        } else {
            (hi, hi_key) = (mid, v.0);
        }
        halve = guess.is_some() && (hi - lo) * 2 > before;
        before = range;
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_written_from_buckets_on_many_threads_is_the_one_written_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = crate::testing::Rng(11);
        let games: Vec<GameRecord> = (0..500)
            .map(|n| GameRecord {
                fingerprint: n,
                stats: (n % 7 != 0).then(|| GameStats {
                    result: GameStats::result_of_code(rng.below(4) as u8),
                    white_elo: rng.below(2800) as u16,
                    black_elo: rng.below(2800) as u16,
                    year: 1900 + rng.below(120) as u16,
                }),
            })
            .collect();
        // Keys spread over the buckets, a few of them reached by many games (sums).
        let common: Vec<u64> = (0..40).map(|_| rng.next_u64()).collect();
        let mut entries: Vec<Entry> = (0..60_000)
            .map(|_| Entry {
                key: if rng.below(3) == 0 {
                    common[rng.below(40)]
                } else {
                    rng.next_u64()
                },
                game: rng.below(500) as u32,
                next: rng.below(30) as u16,
            })
            .collect();
        entries.sort_unstable();
        entries.dedup_by_key(|e| (e.key, e.game));
        let in_order = dir.path().join("in-order");
        write(&in_order, 5, &games, entries.clone().into_iter()).unwrap();
        let from_buckets = dir.path().join("from-buckets");
        // A build of this many games has 32 buckets.
        let buckets = Buckets::beside(&from_buckets, 100_000).unwrap();
        assert!(buckets.count() > 1);
        let mut shuffled = entries.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        let mut writers = [buckets.writer(), buckets.writer(), buckets.writer()];
        for (i, part) in shuffled.chunks(7_000).enumerate() {
            writers[i % 3].add(part.iter().copied()).unwrap();
        }
        for w in &mut writers {
            w.flush().unwrap();
        }
        drop(writers);
        write_buckets(&from_buckets, 5, &games, &buckets, 3)
            .unwrap()
            .keep()
            .unwrap();
        let (a, b) = (
            std::fs::read(&in_order).unwrap(),
            std::fs::read(&from_buckets).unwrap(),
        );
        assert!(a == b, "the two files differ");
        let f = IndexFile::open(&from_buckets).unwrap();
        assert_eq!(f.entry_count(), entries.len());
        assert!(f.sums(common[0]).is_some());
    }

    #[test]
    fn positions_with_enough_games_keep_their_sums_per_move() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let stats = |result, year| GameStats {
            result: GameStats::result_of_code(result),
            white_elo: 2500,
            black_elo: 2400,
            year,
        };
        let games: Vec<GameRecord> = [stats(1, 1990), stats(3, 2000), stats(2, 0)]
            .into_iter()
            .map(|s| GameRecord {
                fingerprint: 0,
                stats: Some(s),
            })
            .collect();
        // Position 1: three games, two moves; position 2: one game (below SUMS_FROM).
        let entries = [(1, 0, 7), (1, 1, 9), (1, 2, 7), (2, 1, 4)].map(|(key, game, next)| Entry {
            key,
            game,
            next,
        });
        write(&path, 1, &games, entries.into_iter()).unwrap();
        let f = IndexFile::open(&path).unwrap();
        let mut seven = MoveStats::default();
        seven.add(&stats(1, 1990));
        seven.add(&stats(2, 0));
        let mut nine = MoveStats::default();
        nine.add(&stats(3, 2000));
        assert_eq!(f.sums(1), Some(vec![(7, seven), (9, nine)]));
        assert_eq!(f.sums(2), None);
        assert_eq!(f.sums(3), None);
        let sum = Sum {
            key: 1,
            next: 7,
            stats: seven,
        };
        assert_eq!(Sum::from_bytes(&sum.to_bytes()), sum);
    }

    #[test]
    fn written_entries_are_found_by_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let games = vec![
            GameRecord {
                fingerprint: 7,
                stats: Some(GameStats {
                    result: crate::game::GameResult::WhiteWins,
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
        assert_eq!(f.find_game(5, 1), Some(entries[2]));
        assert_eq!(f.find_game(5, 2), None);
        assert_eq!(f.find_game(4, 0), None);
        assert_eq!(f.find_game(9, 0), None);
        std::fs::write(&path, b"GFPOSIX2 short").unwrap();
        assert!(IndexFile::open(&path).is_none());
    }

    /// The search finds what a binary search finds, over keys spread evenly, clustered, in
    /// long runs of one key, and few; over a million keys spread evenly it reads 3 pages of
    /// entries, where halving reads 12, and in a run of one key at most thrice as many items
    /// as halving.
    #[test]
    fn the_search_by_key_finds_the_first_not_below_in_few_looks() {
        let mut rng = crate::testing::Rng(0x5EA2_C400);
        for round in 0..300 {
            let len = rng.below(3000);
            let mut items: Vec<(u64, u32)> = (0..len)
                .map(|_| {
                    let key = match round % 4 {
                        0 => rng.next_u64(),
                        1 => rng.next_u64() >> 40,
                        2 => rng.below(4) as u64 * (u64::MAX / 3),
                        _ => u64::MAX - rng.below(50) as u64,
                    };
                    (key, rng.below(1000) as u32)
                })
                .collect();
            items.sort_unstable();
            for _ in 0..50 {
                let want = match rng.below(3) {
                    0 if len > 0 => items[rng.below(len)],
                    1 if len > 0 => (items[rng.below(len)].0, 0),
                    _ => (rng.next_u64(), rng.below(1000) as u32),
                };
                let expected = items.partition_point(|&x| x < want);
                assert_eq!(
                    first_not_below(len, |i| items[i], want),
                    expected,
                    "{want:?}"
                );
            }
        }
        let mut keys: Vec<(u64, u32)> = (0..1_000_000).map(|g| (rng.next_u64(), g)).collect();
        keys.sort_unstable();
        // The pages of 4 KiB of 16-byte entries looked at: what a search costs where the
        // index is not in memory (halving: 13 of the 3 907 pages of a million entries).
        let pages = std::cell::RefCell::new(std::collections::HashSet::new());
        let mut looked = 0;
        for _ in 0..1000 {
            let want = (keys[rng.below(keys.len())].0, 0);
            let at = |i: usize| {
                pages.borrow_mut().insert(i / 256);
                keys[i]
            };
            assert_eq!(
                first_not_below(keys.len(), at, want),
                keys.partition_point(|&x| x < want)
            );
            looked += pages.borrow_mut().drain().count();
        }
        let mean = looked as f64 / 1000.0;
        assert!(mean < 5.0, "{mean} pages a search");
        // One key held by 100 000 items (the start position's entries): a search by game
        // looks at no more than thrice halving's 17 items.
        let run: Vec<(u64, u32)> = (0..100_000).map(|g| (7 << 60, g)).collect();
        for _ in 0..100 {
            let want = (7 << 60, rng.below(100_001) as u32);
            let looks = std::cell::Cell::new(0);
            let at = |i: usize| {
                looks.set(looks.get() + 1);
                run[i]
            };
            assert_eq!(first_not_below(run.len(), at, want), want.1 as usize);
            assert!(looks.get() <= 3 * 17, "{} looks", looks.get());
        }
    }
}
