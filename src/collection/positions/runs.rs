//! Sorted runs of entries on disk, merged into the index: a build of a million games (some
//! 80 million entries, over a gigabyte) never holds all its entries in memory. Each build
//! thread sorts what it gathered once it holds [`RUN_BYTES`] / threads and writes it as a run
//! beside the index; the runs are then merged, mapped, straight into the index file.

use std::collections::BinaryHeap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::Mmap;

use super::file::{ENTRY, Entry};

/// The memory all build threads together gather entries in before they write a run.
pub const RUN_BYTES: usize = 64 << 20;

/// The runs of one build, in files named after the index (`INDEX.run-PID-N`); removed when
/// dropped.
pub struct Runs {
    base: PathBuf,
    next: AtomicUsize,
    files: Mutex<Vec<PathBuf>>,
}

impl Runs {
    /// Runs kept beside the index at `index`.
    pub fn beside(index: &Path) -> Runs {
        Runs {
            base: index.to_path_buf(),
            next: AtomicUsize::new(0),
            files: Mutex::default(),
        }
    }

    /// Sort `entries` and write them as a run; `entries` is left empty (as it was, sorted, when
    /// the run cannot be written).
    pub fn spill(&self, entries: &mut Vec<Entry>) -> std::io::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        entries.sort_unstable();
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let mut name = self.base.clone().into_os_string();
        name.push(format!(".run-{}-{n}", std::process::id()));
        let path = PathBuf::from(name);
        self.files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(path.clone());
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&path)?);
        for e in entries.iter() {
            w.write_all(&e.to_bytes())?;
        }
        w.flush()?;
        entries.clear();
        Ok(())
    }

    /// Every entry of every run, in order, and how many there are.
    pub fn merged(&self) -> std::io::Result<Merged> {
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut maps = Vec::with_capacity(files.len());
        for f in &files {
            let file = std::fs::File::open(f)?;
            // SAFETY: the run files are this build's own, written whole before they are
            // mapped and removed only when the runs are dropped, after the merge.
            maps.push(unsafe { Mmap::map(&file)? });
        }
        let left = maps.iter().map(|m| m.len() / ENTRY).sum();
        let mut heap = BinaryHeap::with_capacity(maps.len());
        for (run, map) in maps.iter().enumerate() {
            if map.len() >= ENTRY {
                heap.push(std::cmp::Reverse((Entry::from_bytes(&map[..ENTRY]), run)));
            }
        }
        Ok(Merged {
            at: vec![ENTRY; maps.len()],
            maps,
            heap,
            left,
        })
    }
}

impl Drop for Runs {
    fn drop(&mut self) {
        for f in self.files.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// The runs merged: their entries in order.
pub struct Merged {
    maps: Vec<Mmap>,
    /// Where each run's next entry after the one in the heap starts.
    at: Vec<usize>,
    heap: BinaryHeap<std::cmp::Reverse<(Entry, usize)>>,
    left: usize,
}

impl Iterator for Merged {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        let std::cmp::Reverse((e, run)) = self.heap.pop()?;
        let at = self.at[run];
        if let Some(bytes) = self.maps[run].get(at..at + ENTRY) {
            self.heap
                .push(std::cmp::Reverse((Entry::from_bytes(bytes), run)));
            self.at[run] = at + ENTRY;
            if self.at[run] % LET_GO_BYTES < ENTRY {
                self.let_go(run);
            }
        }
        self.left = self.left.saturating_sub(1);
        Some(e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

/// How often the merge lets go of a run's pages it has read: every 256 KiB of the run (with
/// some 70 runs at a million games, 8 MiB each still held half a gigabyte, 1 MiB each 70 MB).
const LET_GO_BYTES: usize = 256 << 10;

impl Merged {
    /// Let go of the pages of run `run` before where the merge is in it: they are never read
    /// again, and a million games' runs (gigabytes) would otherwise stay in the process's
    /// resident set until the merge ends.
    fn let_go(&self, run: usize) {
        let done = self.at[run] - self.at[run] % page_size();
        if done > 0 {
            // SAFETY: the run's map is read-only and of a file that nothing writes while it
            // is mapped; MADV_DONTNEED only drops pages, which read back from the file if
            // touched again (the merge never goes back).
            let _ = unsafe {
                self.maps[run].unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, done)
            };
        }
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

impl ExactSizeIterator for Merged {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_into_one_sorted_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let runs = Runs::beside(&dir.path().join("index"));
        let mut all = Vec::new();
        let mut rng = crate::testing::Rng(7);
        // Two runs past LET_GO_BYTES, whose pages behind the merge are let go as it goes.
        for size in [0, 5, 1000, 1, 333, 700_000, 650_000] {
            let mut run: Vec<Entry> = (0..size)
                .map(|_| Entry {
                    key: rng.next_u64() % 50,
                    game: rng.below(100) as u32,
                    next: rng.below(9) as u16,
                })
                .collect();
            all.extend(run.iter().copied());
            runs.spill(&mut run).unwrap();
            assert!(run.is_empty());
        }
        all.sort_unstable();
        let merged = runs.merged().unwrap();
        assert_eq!(merged.len(), all.len());
        assert_eq!(merged.collect::<Vec<_>>(), all);
        drop(runs);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "runs removed"
        );
    }
}
