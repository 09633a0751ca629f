//! The entries of a build on disk, in buckets by key: a build of a million games (some 150
//! million entries, over two gigabytes) never holds all its entries in memory, and never merges
//! them either. Position keys are hashes, spread evenly, so the top bits of a key name its
//! bucket and every bucket holds about as many entries. Each build thread puts its entries in
//! a small buffer per bucket ([`BucketWriter`]) and appends a full buffer to its bucket's file
//! beside the index; when every game is replayed, each bucket is read back and sorted on its
//! own, on every core, and the buckets in order are the entries in order
//! ([`super::file::Building::finish`]).

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::file::Entry;

/// The bytes of a build thread's buffers, one per bucket (each gathers a bucket's entries
/// before they are appended to its file): 8 MiB, whatever the number of buckets.
const BUFFERS_BYTES: usize = 8 << 20;
/// The most bytes of one buffer (with 512 buckets or fewer): a write per 16 KiB of entries.
const MOST_BUFFER_BYTES: usize = 16 << 10;

/// The entries a bucket is meant to hold (its memory when it is read back and sorted: some
/// 9 MB), for a game of [`ENTRIES_PER_GAME`] entries.
const BUCKET_ENTRIES: usize = 1 << 19;
/// The entries a game brings, about (a long game's main line; shorter ones make smaller
/// buckets, which cost nothing).
const ENTRIES_PER_GAME: usize = 160;
/// The bytes before each chunk of entries in a bucket's file: the chunk's length (4).
const CHUNK_HEAD: usize = 4;
/// The most buckets: one open file each while the build runs. At 10M games a bucket then
/// holds some 400,000 entries (6 MB, twice over while it is sorted), as at 1M with 512.
const MOST_BUCKETS: usize = 4096;

/// The most buckets this process may keep open: a quarter of its limit of open files (the
/// mount and the stores hold others), a power of two.
fn most_buckets() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the one struct given, which lives here.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let open = if known { limit.rlim_cur } else { 1024 };
    let quarter = usize::try_from(open / 4).unwrap_or(usize::MAX).max(1);
    // The largest power of two not above it.
    MOST_BUCKETS.min(1 << quarter.ilog2())
}

/// The buckets of one build, in files named after the index (`INDEX.bucket-PID-N-I`, apart
/// from any other build's); removed when dropped.
pub struct Buckets {
    /// Each bucket's file, and how many entries it holds.
    files: Vec<Mutex<(File, usize)>>,
    paths: Vec<PathBuf>,
    /// The right shift of a key that leaves its bucket.
    shift: u32,
}

impl Buckets {
    /// Buckets beside the index at `index` for a build of `games` games.
    pub fn beside(index: &Path, games: u32) -> std::io::Result<Buckets> {
        let count = (games as usize * ENTRIES_PER_GAME / BUCKET_ENTRIES)
            .next_power_of_two()
            .clamp(1, most_buckets());
        let mut buckets = Buckets {
            files: Vec::with_capacity(count),
            paths: Vec::with_capacity(count),
            shift: 64 - count.trailing_zeros(),
        };
        let names = super::file::scratch_beside(index, "bucket");
        for i in 0..count {
            let mut name = names.clone().into_os_string();
            name.push(format!("-{i}"));
            let path = PathBuf::from(name);
            // Named before it is made, so that a failure half way removes what was made.
            buckets.paths.push(path.clone());
            buckets.files.push(Mutex::new((File::create(&path)?, 0)));
        }
        Ok(buckets)
    }

    /// How many buckets there are.
    pub fn count(&self) -> usize {
        self.files.len()
    }

    /// The bucket of position key `key`.
    fn bucket_of(&self, key: u64) -> usize {
        // A shift of 64 (one bucket) is out of range for `>>`.
        key.checked_shr(self.shift).unwrap_or(0) as usize
    }

    /// A build thread's way into the buckets.
    pub fn writer(&self) -> BucketWriter<'_> {
        BucketWriter {
            buckets: self,
            buffer_bytes: (BUFFERS_BYTES / self.files.len()).min(MOST_BUFFER_BYTES),
            buffers: vec![(Vec::new(), 0, 0); self.files.len()],
        }
    }

    /// Append the chunk of `entries` entries `bytes` (its head first) to bucket `i`.
    fn append(&self, i: usize, bytes: &mut [u8], entries: usize) -> std::io::Result<()> {
        seal_chunk(bytes);
        let mut file = self.files[i].lock().unwrap_or_else(|p| p.into_inner());
        file.0.write_all(bytes)?;
        file.1 += entries;
        Ok(())
    }

    /// The top byte of the keys of bucket `i`, when its number tells it (256 buckets or
    /// more): the entries then leave it out.
    fn top_byte(&self, i: usize) -> Option<u8> {
        (self.shift <= 56).then(|| ((i as u64) << self.shift >> 56) as u8)
    }

    /// How many entries each bucket holds.
    pub fn sizes(&self) -> Vec<usize> {
        self.files
            .iter()
            .map(|f| f.lock().unwrap_or_else(|p| p.into_inner()).1)
            .collect()
    }

    /// Give the entries of bucket `i` to `each`, sorted by key and game (a game is once at
    /// a key, so this is [`Entry`]'s order). A bucket of at most `SORT_AT_ONCE` entries is
    /// sorted in `room`'s memory; a larger one (the positions every game reaches, the start
    /// position's above all, crowd theirs: at 10M games, ten million entries) a piece of
    /// that many at a time, each piece put back on disk sorted (a run) and the runs merged:
    /// the build's memory stays bounded whatever the games. The bucket's file is emptied and
    /// removed, so that its pages, most of them not yet on disk, are dropped rather than
    /// written (a build's buckets are as large as its index, and both waiting to be written
    /// would hold the index's own writes back).
    pub fn sorted(
        &self,
        i: usize,
        room: &mut SortRoom,
        mut each: impl FnMut(Entry) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let held = self.files[i].lock().unwrap_or_else(|p| p.into_inner()).1;
        let top = self.top_byte(i);
        let fixed = 64 - self.shift;
        let mut file = std::io::BufReader::with_capacity(RUN_READ, File::open(&self.paths[i])?);
        let result = if held <= SORT_AT_ONCE {
            room.entries.clear();
            read_entries(&mut file, held, top, &mut room.entries)?;
            sort_by_key_bits(&mut room.entries, fixed, &mut room.scratch);
            room.entries.iter().try_for_each(|&e| each(e))
        } else {
            let mut runs_path = self.paths[i].clone().into_os_string();
            runs_path.push(".runs");
            let runs_path = PathBuf::from(runs_path);
            let result = (|| {
                let mut runs = RunFile::create(&runs_path)?;
                let mut read = 0;
                while read < held {
                    room.entries.clear();
                    read_entries(
                        &mut file,
                        SORT_AT_ONCE.min(held - read),
                        top,
                        &mut room.entries,
                    )?;
                    read += room.entries.len();
                    sort_by_key_bits(&mut room.entries, fixed, &mut room.scratch);
                    runs.put(&room.entries, top)?;
                }
                runs.merge(top, each)
            })();
            let _ = std::fs::remove_file(&runs_path);
            result
        };
        let _ = self.files[i]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .set_len(0);
        let _ = std::fs::remove_file(&self.paths[i]);
        result
    }
}

/// The most entries of a bucket sorted in memory at once ([`Buckets::sorted`]): 4 MB of
/// entries and as much to move them through, on each thread that sorts. Buckets are sized to
/// hold fewer ([`BUCKET_ENTRIES`]); only the positions most games reach make them larger.
const SORT_AT_ONCE: usize = if cfg!(test) { 1_000 } else { 1 << 18 };
/// The bytes read from a bucket's file, or from a run, at a time.
const RUN_READ: usize = 64 << 10;

/// A sorting thread's memory for [`Buckets::sorted`], kept from one bucket to the next rather
/// than have each bucket's megabytes of fresh memory zeroed by the kernel: the entries, and
/// the room the sort moves them through.
#[derive(Default)]
pub struct SortRoom {
    entries: Vec<Entry>,
    scratch: Vec<Entry>,
}

/// A file read from a place on, apart from any other reader of it (its own offset).
struct ReadAt<'a> {
    file: &'a File,
    at: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// Read `count` entries of a bucket's file (chunks of [`encode_entry`]s, whole) from `file`
/// into `entries`: a piece at a time, so the bytes of a whole bucket are never in memory
/// beside its entries.
fn read_entries(
    file: &mut impl Read,
    count: usize,
    top: Option<u8>,
    entries: &mut Vec<Entry>,
) -> std::io::Result<()> {
    let want = entries.len() + count;
    entries.reserve(count);
    let mut chunk = Vec::new();
    while entries.len() < want {
        let mut head = [0u8; CHUNK_HEAD];
        file.read_exact(&mut head)?;
        chunk.resize(u32::from_le_bytes(head) as usize, 0);
        file.read_exact(&mut chunk)?;
        decode_chunk(&chunk, top, entries)?;
    }
    Ok(())
}

/// The sorted runs of a bucket too large to sort at once, in one file, and where each starts.
struct RunFile {
    file: File,
    /// Each run's first byte and its entries.
    runs: Vec<(u64, usize)>,
    end: u64,
}

impl RunFile {
    /// A new, empty file of runs at `path`.
    fn create(path: &Path) -> std::io::Result<RunFile> {
        Ok(RunFile {
            file: super::file::scratch_file(path)?,
            runs: Vec::new(),
            end: 0,
        })
    }

    /// Append the run `entries` (sorted), in chunks as a bucket's file holds them.
    fn put(&mut self, entries: &[Entry], top: Option<u8>) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(RUN_READ, &self.file);
        let mut bytes = Vec::with_capacity(MOST_BUFFER_BYTES + 16);
        let mut written = 0u64;
        for piece in entries.chunks(MOST_BUFFER_BYTES / 16) {
            bytes.clear();
            bytes.extend_from_slice(&[0; CHUNK_HEAD]);
            let mut last = 0;
            for e in piece {
                encode_entry(e, top, &mut last, &mut bytes);
            }
            seal_chunk(&mut bytes);
            out.write_all(&bytes)?;
            written += bytes.len() as u64;
        }
        out.flush()?;
        self.runs.push((self.end, entries.len()));
        self.end += written;
        Ok(())
    }

    /// Give every entry of the runs to `each`, in order: each run read a piece at a time,
    /// the least of their next entries taken each time.
    fn merge(
        &self,
        top: Option<u8>,
        mut each: impl FnMut(Entry) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        use std::cmp::Reverse;
        struct Run<'a> {
            read: std::io::BufReader<ReadAt<'a>>,
            left: usize,
            held: std::collections::VecDeque<Entry>,
        }
        let mut runs = Vec::with_capacity(self.runs.len());
        for &(at, entries) in &self.runs {
            let file = ReadAt {
                file: &self.file,
                at,
            };
            runs.push(Run {
                read: std::io::BufReader::with_capacity(RUN_READ, file),
                left: entries,
                held: std::collections::VecDeque::new(),
            });
        }
        // The next entry of run `r`, reading its next chunk when what it held is taken.
        let next = |run: &mut Run| -> std::io::Result<Option<Entry>> {
            if run.held.is_empty() && run.left > 0 {
                let mut chunk = Vec::new();
                read_entries(&mut run.read, 1, top, &mut chunk)?;
                run.left -= chunk.len();
                run.held.extend(chunk);
            }
            Ok(run.held.pop_front())
        };
        let mut heads = std::collections::BinaryHeap::with_capacity(runs.len());
        for (r, run) in runs.iter_mut().enumerate() {
            if let Some(e) = next(run)? {
                heads.push(Reverse((e, r)));
            }
        }
        while let Some(Reverse((e, r))) = heads.pop() {
            each(e)?;
            if let Some(e) = next(&mut runs[r])? {
                heads.push(Reverse((e, r)));
            }
        }
        Ok(())
    }
}

/// The bits of a key below a bucket's that [`sort_by_key_bits`] puts entries in order by
/// first, counting them: as many bins as a bucket holds entries, about.
const SORT_BITS: u32 = 16;

/// Sort `entries`, whose keys share their top `fixed` bits (a bucket's), by key and game:
/// by the next [`SORT_BITS`] bits of their keys first, counted and moved once through
/// `scratch` (hashes spread evenly: some entries a bin), then each bin on its own. Several
/// times faster than comparing the entries of a whole bucket; and than swapping each entry
/// into its bin in place, whose every step waits for the entry it swaps out (at 1M games, the
/// buckets sorted in 32 s rather than 8).
fn sort_by_key_bits(entries: &mut Vec<Entry>, fixed: u32, scratch: &mut Vec<Entry>) {
    // A bucket's bits are at most the top nine.
    let bin = |e: &Entry| ((e.key << fixed.min(64 - SORT_BITS)) >> (64 - SORT_BITS)) as usize;
    let mut starts = vec![0usize; (1 << SORT_BITS) + 1];
    for e in entries.iter() {
        starts[bin(e) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    scratch.clear();
    scratch.resize(entries.len(), Entry::default());
    let mut next = starts.clone();
    for &e in entries.iter() {
        let b = bin(&e);
        scratch[next[b]] = e;
        next[b] += 1;
    }
    for w in starts.windows(2) {
        scratch[w[0]..w[1]].sort_unstable();
    }
    std::mem::swap(entries, scratch);
}

/// Write the length of chunk `bytes` (its head first, then its entries) into its head.
fn seal_chunk(bytes: &mut [u8]) {
    let len = u32::try_from(bytes.len() - CHUNK_HEAD).expect("a chunk is small");
    bytes[..CHUNK_HEAD].copy_from_slice(&len.to_le_bytes());
}

/// Append entry `e` to a chunk of entries whose last game is `*last` (0 at its start): the
/// difference of its game from that one (LEB128; a thread's games ascend, so it takes a
/// byte), its key less the top byte where the bucket tells it (`top`), its move. Ten bytes an
/// entry, where it is sixteen in memory: a build of 10M games writes some 15 GB of entries and
/// reads them back, from the disk where they outgrow the page cache.
fn encode_entry(e: &Entry, top: Option<u8>, last: &mut u32, out: &mut Vec<u8>) {
    let mut d = e.game.wrapping_sub(*last);
    *last = e.game;
    while d >= 0x80 {
        out.push(d as u8 | 0x80);
        d >>= 7;
    }
    out.push(d as u8);
    let key = e.key.to_le_bytes();
    out.extend_from_slice(&key[..if top.is_some() { 7 } else { 8 }]);
    out.extend_from_slice(&e.next.to_le_bytes());
}

/// The entries of one chunk ([`encode_entry`]) appended to `entries`.
fn decode_chunk(chunk: &[u8], top: Option<u8>, entries: &mut Vec<Entry>) -> std::io::Result<()> {
    let damaged = || std::io::Error::other("a bucket of the build is damaged");
    let key_len = if top.is_some() { 7 } else { 8 };
    let (mut at, mut game) = (0, 0u32);
    while at < chunk.len() {
        let mut d = 0u32;
        for shift in (0..35).step_by(7) {
            let byte = *chunk.get(at).ok_or_else(damaged)?;
            at += 1;
            d |= u32::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                break;
            }
        }
        game = game.wrapping_add(d);
        let b = chunk.get(at..at + key_len + 2).ok_or_else(damaged)?;
        at += key_len + 2;
        let mut key = [top.unwrap_or(0); 8];
        key[..key_len].copy_from_slice(&b[..key_len]);
        entries.push(Entry {
            key: u64::from_le_bytes(key),
            game,
            next: u16::from_le_bytes([b[key_len], b[key_len + 1]]),
        });
    }
    Ok(())
}

/// One build thread's entries on their way to the buckets: a chunk per bucket, appended to
/// the bucket's file when full.
pub struct BucketWriter<'a> {
    buckets: &'a Buckets,
    /// The bytes a chunk gathers before it is written.
    buffer_bytes: usize,
    /// Each bucket's chunk: its bytes (the head first), its entries, its last game.
    buffers: Vec<(Vec<u8>, usize, u32)>,
}

impl BucketWriter<'_> {
    /// Add `entries`; an error says a full buffer could not be written (the build then
    /// gives the buckets up).
    pub fn add(&mut self, entries: impl IntoIterator<Item = Entry>) -> std::io::Result<()> {
        for e in entries {
            let i = self.buckets.bucket_of(e.key);
            let (buffer, held, last) = &mut self.buffers[i];
            if buffer.is_empty() {
                // An entry takes at most 15 bytes: the chunk never grows past its room.
                buffer.reserve_exact(self.buffer_bytes + 16);
                buffer.extend_from_slice(&[0; CHUNK_HEAD]);
                *last = 0;
            }
            encode_entry(&e, self.buckets.top_byte(i), last, buffer);
            *held += 1;
            if buffer.len() >= self.buffer_bytes {
                self.buckets.append(i, buffer, *held)?;
                buffer.clear();
                *held = 0;
            }
        }
        Ok(())
    }

    /// Write what every chunk holds.
    pub fn flush(&mut self) -> std::io::Result<()> {
        for (i, (buffer, held, _)) in self.buffers.iter_mut().enumerate() {
            if !buffer.is_empty() {
                self.buckets.append(i, buffer, *held)?;
                buffer.clear();
                *held = 0;
            }
        }
        Ok(())
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        for path in &self.paths {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sort_by_key_bits_is_the_sort_of_entries() {
        let mut rng = crate::testing::Rng(0xB1A5);
        let mut scratch = Vec::new();
        // Keys sharing their top bits (a bucket's), spread or crowded in few bins, the same
        // key for several games.
        for (fixed, spread) in [(0, u64::MAX), (9, u64::MAX >> 9), (9, 0xFFFF), (5, 7)] {
            let top = rng.next_u64() & !(u64::MAX >> fixed.max(1));
            let top = if fixed == 0 { 0 } else { top };
            let mut entries: Vec<Entry> = (0..200_000)
                .map(|_| Entry {
                    key: top | (rng.next_u64() & spread),
                    game: rng.below(1000) as u32,
                    next: rng.below(9) as u16,
                })
                .collect();
            let mut want = entries.clone();
            want.sort_unstable();
            sort_by_key_bits(&mut entries, fixed, &mut scratch);
            assert_eq!(entries, want, "{fixed} {spread:x}");
        }
    }

    /// At ten million games there are eight times the buckets of a million, so that a
    /// bucket sorted in memory stays as small, within the limit of open files.
    #[test]
    fn buckets_grow_with_the_games_within_the_open_files() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index");
        let at_1m = Buckets::beside(&index, 1_000_000).unwrap().count();
        let at_10m = Buckets::beside(&index, 10_000_000).unwrap().count();
        assert_eq!(at_1m, 512.min(most_buckets()));
        assert_eq!(at_10m, 4096.min(most_buckets()));
        assert!(most_buckets().is_power_of_two());
    }

    #[test]
    fn buckets_in_order_are_every_entry_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = crate::testing::Rng(7);
        // One bucket; 32 (each entry's whole key written); 1,024 (a key's top byte left out,
        // as its bucket tells it).
        for (games, count) in [(1, 1), (100_000, 32), (2_000_000, 1024.min(most_buckets()))] {
            let buckets = Buckets::beside(&dir.path().join("index"), games).unwrap();
            assert_eq!(buckets.count(), count);
            let mut all = Vec::new();
            let mut writers = [buckets.writer(), buckets.writer()];
            for (i, size) in [0, 5, 1000, 1, 333, 70_000].into_iter().enumerate() {
                let part: Vec<Entry> = (0..size)
                    .map(|_| Entry {
                        key: rng.next_u64(),
                        game: [rng.below(100) as u32, u32::MAX - rng.below(3) as u32][rng.below(2)],
                        next: rng.below(9) as u16,
                    })
                    .collect();
                all.extend(part.iter().copied());
                writers[i % 2].add(part).unwrap();
            }
            for w in &mut writers {
                w.flush().unwrap();
            }
            drop(writers);
            all.sort_unstable();
            let sizes = buckets.sizes();
            assert_eq!(sizes.iter().sum::<usize>(), all.len());
            let mut read = Vec::new();
            let mut room = SortRoom::default();
            for (i, size) in sizes.into_iter().enumerate() {
                let before = read.len();
                buckets
                    .sorted(i, &mut room, |e| {
                        read.push(e);
                        Ok(())
                    })
                    .unwrap();
                assert_eq!(read.len() - before, size);
            }
            assert_eq!(read, all);
            drop(buckets);
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                0,
                "buckets removed"
            );
        }
    }
}
