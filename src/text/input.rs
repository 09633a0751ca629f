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

impl Text<'_> {
    /// Let the pages of `range` go from memory, when the text is mapped: its reader does not
    /// need them now (an import has parsed them), and the process should not keep a file of
    /// any size resident. The bytes stay the file's; a later read (a chunk's parser, or a
    /// copy of a refused text kept for its author) maps them in again.
    pub fn let_go(&self, range: Range<usize>) {
        let Text::Mapped(map) = self else {
            return;
        };
        let page = page_size();
        // Whole pages inside the range only: the pages at its ends hold other parts' bytes.
        let start = range.start.div_ceil(page) * page;
        let end = (range.end.min(map.len()) / page) * page;
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
    fn what_cannot_be_mapped_is_read() {
        let text = Text::of_file(Path::new("/dev/null")).unwrap();
        assert!(matches!(text, Text::Owned(ref v) if v.is_empty()));
        text.let_go(0..10);
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pgn");
        std::fs::write(&empty, b"").unwrap();
        assert!(Text::of_file(&empty).unwrap().is_empty());
        assert!(Text::of_file(&dir.path().join("missing.pgn")).is_err());
    }
}
