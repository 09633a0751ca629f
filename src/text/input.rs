//! A text to parse, in memory or mapped from a file, whose parsed parts can be let go: an
//! import of a PGN file of any size (a copy into the mount, `gamefs import`) keeps only the
//! parts being parsed resident, not the file.

use std::fs::File;
use std::ops::{Deref, Range};
use std::path::Path;

/// The whole text of a file or scratch file, to parse.
pub enum Text<'a> {
    /// Bytes borrowed from memory.
    Slice(&'a [u8]),
    /// Bytes read into memory (a pipe, a device: what cannot be mapped).
    Owned(Vec<u8>),
    /// A file mapped read-only.
    Mapped(memmap2::Mmap),
}

impl Text<'static> {
    /// The text of the file at `path`: mapped when it is a regular file (its pages come and
    /// go as it is parsed), read whole otherwise (`/dev/stdin`, a FIFO).
    pub fn of_file(path: &Path) -> std::io::Result<Text<'static>> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: a shared read-only mapping. The file is the user's, and another program
            // changing it while it is imported changes what is parsed (like any reader of a
            // file being written); cutting it short ends the process with SIGBUS, which the
            // database survives as it survives a kill (nothing refers to unfinished records).
            let map = unsafe { memmap2::Mmap::map(&file) }?;
            return Ok(Text::Mapped(map));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &file, &mut bytes)?;
        Ok(Text::Owned(bytes))
    }
}

/// How much parsed text [`Text::let_go_parsed`] lets go of at once. Letting go costs a
/// system call and, when other threads use the same memory, a TLB flush on each of their
/// cores: a 256 KiB part at a time took 0.2 s of system time, a tenth of the time of indexing
/// a 2.33 GB file on 2 cores. The text resident stays under two steps, plus the parts being
/// parsed.
const LET_GO_STEP: usize = 8 << 20;

impl Text<'_> {
    /// Let the pages of text parsed go from memory in steps of 8 MiB (`LET_GO_STEP`): told of
    /// each part parsed (`range`; parts told in about text order, on any thread, the parts
    /// still being parsed all within a step of the last one told), lets go of the step before
    /// the one each part ends, and of the rest of the text once a part ends it. (A step is
    /// let go a step late so that no part still parsed in it reads its pages back, to stay.)
    pub fn let_go_parsed(&self, range: Range<usize>) {
        self.let_go_in_steps(range, LET_GO_STEP);
    }

    /// [`Text::let_go_parsed`] in steps of `step` bytes.
    fn let_go_in_steps(&self, range: Range<usize>, step: usize) {
        let len = self.len();
        let end = range.end.min(len);
        // Each step boundary the part crosses (after its first byte, up to its end).
        let mut boundary = (range.start / step + 1) * step;
        while boundary <= end {
            if let Some(from) = boundary.checked_sub(2 * step) {
                self.let_go(from..from + step);
            }
            boundary += step;
        }
        if end == len && len > 0 {
            let last_step = (len - 1) / step * step;
            self.let_go(last_step.saturating_sub(step)..len);
        }
    }

    /// Let the pages of `range` go from memory, when the text is mapped: its reader does not
    /// need them now (an import has parsed them), and the process should not keep a file of
    /// any size resident. The bytes stay the file's; a later read (a chunk's parser, or a
    /// copy of a refused text kept for its author) maps them in again.
    pub fn let_go(&self, range: Range<usize>) {
        let Text::Mapped(map) = self else {
            return;
        };
        let page = page_size();
        // Whole pages inside the range only: the pages at its ends hold other parts' bytes
        // (but for the text's last page, when the range ends the text: madvise takes the
        // page the length ends in).
        let start = range.start.div_ceil(page) * page;
        let end = if range.end >= map.len() {
            map.len()
        } else {
            (range.end / page) * page
        };
        if start >= end {
            return;
        }
        // SAFETY: the map is a shared, read-only mapping of a file. Dropping its pages
        // changes no byte anyone can see: the next access reads the same bytes back from the
        // file. (Only a private mapping would read back zeros.)
        let dropped = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
        };
        if let Err(e) = dropped {
            log::debug!("madvise(DONTNEED) of a mapped text: {e}");
        }
    }
}

impl Deref for Text<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Text::Slice(s) => s,
            Text::Owned(v) => v,
            Text::Mapped(m) => m,
        }
    }
}

/// The memory page size.
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of `map` resident in this process (its mapping's `Rss` in /proc/self/smaps).
    fn resident_pages(map: &[u8]) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let start = format!("{:x}-", map.as_ptr() as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        assert!(lines.next().is_some(), "the mapping is in smaps");
        let rss = lines.find_map(|l| l.strip_prefix("Rss:")).unwrap();
        let kib: usize = rss.trim().trim_end_matches("kB").trim().parse().unwrap();
        kib * 1024 / page_size()
    }

    #[test]
    fn a_file_is_mapped_and_parts_let_go_stay_readable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        let bytes: Vec<u8> = (0..64 * page_size()).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let text = Text::of_file(&path).unwrap();
        assert!(matches!(text, Text::Mapped(_)));
        assert_eq!(&text[..], &bytes[..]);
        let all = resident_pages(&text);
        assert_eq!(all, 64, "every page was read");
        // Half a page into the text up to the end: the first page stays (others' bytes).
        text.let_go(page_size() / 2..bytes.len());
        assert_eq!(resident_pages(&text), 1);
        assert_eq!(&text[..], &bytes[..], "the bytes come back from the file");
    }

    #[test]
    fn parsed_text_is_let_go_a_whole_step_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        let page = page_size();
        let bytes: Vec<u8> = (0..10 * page + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let text = Text::of_file(&path).unwrap();
        assert_eq!(&text[..], &bytes[..]);
        assert_eq!(resident_pages(&text), 11);
        // Steps of 4 pages; parts of a page and a half, as chunks end anywhere.
        let part = page + page / 2;
        let mut resident = Vec::new();
        for start in (0..bytes.len()).step_by(part) {
            text.let_go_in_steps(start..(start + part).min(bytes.len()), 4 * page);
            resident.push(resident_pages(&text));
        }
        // Parts end at 1.5, 3, 4.5, 6, 7.5, 9 (in the third step: the first let go), then
        // at the text's end (the rest let go).
        assert_eq!(resident, [11, 11, 11, 11, 11, 7, 0]);
        assert_eq!(&text[..], &bytes[..], "the bytes come back from the file");
    }

    #[test]
    fn what_cannot_be_mapped_is_read() {
        let text = Text::of_file(Path::new("/dev/null")).unwrap();
        assert!(matches!(text, Text::Owned(ref v) if v.is_empty()));
        text.let_go(0..10);
        text.let_go_parsed(0..10);
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pgn");
        std::fs::write(&empty, b"").unwrap();
        assert!(Text::of_file(&empty).unwrap().is_empty());
        assert!(Text::of_file(&dir.path().join("missing.pgn")).is_err());
    }
}
