//! A text to parse, in memory or mapped from a file, whose parsed parts can be let go: an
//! import of a PGN file of any size (a copy into the mount, `gamefs import`) keeps only the
//! parts being parsed resident, not the file.

use std::collections::BTreeMap;
use std::fs::File;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::Mutex;

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

/// [`ParsedText`] lets go of parsed text in whole steps of this many bytes (but for the
/// text's end). Letting go costs a system call and, when other threads use the same memory, a
/// TLB flush on each of their cores: a 256 KiB chunk at a time took a quarter more system
/// time indexing a 2.33 GB file on 2 cores; the process keeps less than a step and the parts
/// being parsed resident.
const LET_GO_STEP: usize = 1 << 20;

/// The pages of a text let go as it is parsed, in parts on any thread and in any order: each
/// time the text parsed from its start grows by a whole step (1 MiB), that step is let go, so
/// that no page a part still being parsed reads is let go under it (to be read back and stay).
pub struct ParsedText<'t, 'a> {
    text: &'t Text<'a>,
    /// Where the parsed text starts in `text`.
    start: usize,
    step: usize,
    parsed: Mutex<Parsed>,
}

/// How far a [`ParsedText`] is parsed (offsets in its whole text).
struct Parsed {
    /// The text before it is parsed.
    upto: usize,
    /// The text before it is let go.
    let_go: usize,
    /// The parts parsed after `upto`, start to end.
    later: BTreeMap<usize, usize>,
}

impl<'t, 'a> ParsedText<'t, 'a> {
    /// `text` to be parsed from byte `start` on (the parts told are counted from there).
    pub fn new(text: &'t Text<'a>, start: usize) -> ParsedText<'t, 'a> {
        ParsedText::in_steps(text, start, LET_GO_STEP)
    }

    /// [`ParsedText::new`] letting go `step` bytes at a time.
    fn in_steps(text: &'t Text<'a>, start: usize, step: usize) -> ParsedText<'t, 'a> {
        ParsedText {
            text,
            start,
            step,
            parsed: Mutex::new(Parsed {
                upto: start,
                let_go: start,
                later: BTreeMap::new(),
            }),
        }
    }

    /// `range` of the text parsed (from its start) is parsed.
    pub fn parsed(&self, range: Range<usize>) {
        let mut guard = self.parsed.lock().unwrap_or_else(|e| e.into_inner());
        let p = &mut *guard;
        p.later
            .insert(self.start + range.start, self.start + range.end);
        while let Some(entry) = p.later.first_entry()
            && *entry.key() <= p.upto
        {
            let end = entry.remove();
            p.upto = p.upto.max(end);
        }
        let len = self.text.len();
        let to = if p.upto >= len {
            len
        } else {
            p.upto / self.step * self.step
        };
        if to > p.let_go {
            self.text.let_go(p.let_go..to);
            p.let_go = to;
        }
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

    /// Parts parsed out of order: the text is let go a whole step at a time, once all of it
    /// before the step's end is parsed, and all of it once the whole text is.
    #[test]
    fn parsed_text_is_let_go_a_whole_step_at_a_time_once_parsed_up_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        let page = page_size();
        let bytes: Vec<u8> = (0..10 * page + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let text = Text::of_file(&path).unwrap();
        assert_eq!(&text[..], &bytes[..]);
        assert_eq!(resident_pages(&text), 11);
        // Steps of 4 pages, parsed from half a page on; parts of a page and a half (counted
        // from there), told
        // with the second of each pair first.
        let parsed = ParsedText::in_steps(&text, page / 2, 4 * page);
        let part = page + page / 2;
        let parts: Vec<Range<usize>> = (0..bytes.len() - page / 2)
            .step_by(part)
            .map(|start| start..(start + part).min(bytes.len() - page / 2))
            .collect();
        let mut resident = Vec::new();
        for pair in parts.chunks(2) {
            for range in pair.iter().rev() {
                parsed.parsed(range.clone());
                resident.push(resident_pages(&text));
            }
        }
        // Parsed up to 0.5, 3.5 (both of the first pair), 3.5, 6.5: the first step let go but
        // for its first page, which holds text before the start; 6.5, 9.5 (pages 4-7 let go),
        // the end: the rest let go.
        assert_eq!(resident, [11, 11, 11, 8, 8, 4, 1]);
        assert_eq!(&text[..], &bytes[..], "the bytes come back from the file");
    }

    #[test]
    fn what_cannot_be_mapped_is_read() {
        let text = Text::of_file(Path::new("/dev/null")).unwrap();
        assert!(matches!(text, Text::Owned(ref v) if v.is_empty()));
        text.let_go(0..10);
        ParsedText::new(&text, 0).parsed(0..10);
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pgn");
        std::fs::write(&empty, b"").unwrap();
        assert!(Text::of_file(&empty).unwrap().is_empty());
        assert!(Text::of_file(&dir.path().join("missing.pgn")).is_err());
    }
}
