//! Records read in file order (an export, `grep -r` over `games/`) are read a stretch of the
//! file at a time: one read call per [`STRETCH`] bytes instead of one per record, which at a
//! few hundred bytes a game is most of what reading costs. A thread keeps a stretch for each
//! of the last few files it read, so a store that reads a game from several files (ChessBase:
//! moves, annotations, teams) reads each a stretch at a time.
//!
//! Only the committed part of a file is ever read ahead: bytes that an index entry may point
//! at never change (saves append, and a failed save cuts off only what it appended), so a
//! stretch read earlier still holds what the file holds.

use crate::store::blob::Blob;
use std::cell::RefCell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

/// How much of a file one read fetches once records are read in order.
const STRETCH: u64 = 64 * 1024;

/// How many files' stretches a thread keeps.
const FILES_KEPT: usize = 4;

/// Tells one open file from another in a thread's [`Stretch`]es.
static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(1);

/// What a thread last read of a file: a stretch of it, or (empty) where its last record
/// ended.
#[derive(Default)]
struct Stretch {
    file_id: u64,
    start: u64,
    bytes: Vec<u8>,
    /// When it was last used (a thread's count of reads): the least recent gives way.
    used: u64,
}

/// A thread's stretches, and its count of reads.
#[derive(Default)]
struct Stretches {
    kept: [Stretch; FILES_KEPT],
    reads: u64,
}

thread_local! {
    static LAST: RefCell<Stretches> = RefCell::new(Stretches::default());
}

/// Reads records of one open file, a stretch at a time when they come in file order.
pub(super) struct RecordReader {
    file_id: u64,
}

impl Default for RecordReader {
    fn default() -> Self {
        RecordReader::new()
    }
}

impl RecordReader {
    /// A reader for a newly opened file.
    pub(super) fn new() -> RecordReader {
        RecordReader {
            file_id: NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Fill `buf` from `offset` of `file`, whose first `committed` bytes never change.
    pub(super) fn read(
        &self,
        file: &Blob,
        offset: u64,
        buf: &mut [u8],
        committed: u64,
    ) -> io::Result<()> {
        let end = offset + buf.len() as u64;
        LAST.with_borrow_mut(|stretches| {
            stretches.reads += 1;
            let slot = stretches
                .kept
                .iter()
                .position(|s| s.file_id == self.file_id)
                .or_else(|| (0..FILES_KEPT).min_by_key(|&i| stretches.kept[i].used))
                .expect("stretches are kept");
            let last = &mut stretches.kept[slot];
            last.used = stretches.reads;
            let ours = last.file_id == self.file_id;
            let held_end = last.start + last.bytes.len() as u64;
            if ours && offset >= last.start && end <= held_end {
                let at = (offset - last.start) as usize;
                buf.copy_from_slice(&last.bytes[at..at + buf.len()]);
                return Ok(());
            }
            // In file order: this record starts after the last one, not far beyond it.
            let in_order = ours && offset >= last.start && offset <= held_end + STRETCH;
            if in_order && end <= committed {
                let len = (committed - offset).min(STRETCH).max(buf.len() as u64);
                last.bytes.resize(len as usize, 0);
                last.start = offset;
                if file.read_exact_at(&mut last.bytes, offset).is_ok() {
                    buf.copy_from_slice(&last.bytes[..buf.len()]);
                    return Ok(());
                }
                // The file is shorter than its index says: the plain read below says so.
            }
            last.file_id = self.file_id;
            last.start = end;
            last.bytes.clear();
            file.read_exact_at(buf, offset)
        })
    }
}

/// A file that does not change while it is open (a read-only database's), its records
/// read a stretch at a time when they come in file order.
pub(super) struct FixedFile {
    file: Blob,
    len: u64,
    records: RecordReader,
}

impl FixedFile {
    /// `file` as it is now.
    pub(super) fn new(file: Blob) -> crate::error::Result<FixedFile> {
        Ok(FixedFile {
            len: file.len()?,
            file,
            records: RecordReader::new(),
        })
    }

    /// Its length when opened.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Fill `buf` from byte `offset` (an `UnexpectedEof` error when the file ends first).
    pub(super) fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.records.read(&self.file, offset, buf, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> Blob {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        Blob::of_file(std::path::Path::new("records"), f)
    }

    fn read(r: &RecordReader, f: &Blob, offset: u64, len: usize, committed: u64) -> Vec<u8> {
        let mut buf = vec![0; len];
        r.read(f, offset, &mut buf, committed).unwrap();
        buf
    }

    #[test]
    fn records_read_in_order_come_from_one_stretch() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let f = file_of(&bytes);
        let r = RecordReader::new();
        let mut at = 0usize;
        for len in [10usize, 300, 7, 4000, 1, 90_000, 55]
            .into_iter()
            .cycle()
            .take(40)
        {
            if at + len > bytes.len() {
                break;
            }
            assert_eq!(
                read(&r, &f, at as u64, len, bytes.len() as u64),
                bytes[at..at + len]
            );
            at += len;
        }
        // Out of order, backwards, and far ahead.
        assert_eq!(read(&r, &f, 5, 20, bytes.len() as u64), bytes[5..25]);
        assert_eq!(
            read(&r, &f, 150_000, 20, bytes.len() as u64),
            bytes[150_000..150_020]
        );
        assert_eq!(
            read(&r, &f, 150_020, 20, bytes.len() as u64),
            bytes[150_020..150_040]
        );
    }

    #[test]
    fn the_second_record_in_order_reads_ahead() {
        let f = file_of(&[1; 1000]);
        let r = RecordReader::new();
        assert_eq!(read(&r, &f, 0, 10, 1000), [1; 10]);
        assert_eq!(read(&r, &f, 10, 10, 1000), [1; 10]);
        // Bytes that never change in a game file, changed behind the reader's back: the next
        // record comes from the stretch already read, so it shows the old bytes.
        std::os::unix::fs::FileExt::write_all_at(f.local_file().unwrap(), &[3; 10], 20).unwrap();
        assert_eq!(read(&r, &f, 20, 10, 1000), [1; 10]);
        // Out of order, the file is read again.
        assert_eq!(read(&r, &f, 0, 30, 1000)[20..], [3; 10]);
    }

    #[test]
    fn bytes_beyond_the_committed_part_are_read_fresh() {
        let f = file_of(&[1; 1000]);
        let r = RecordReader::new();
        assert_eq!(read(&r, &f, 0, 10, 500), [1; 10]);
        assert_eq!(read(&r, &f, 10, 10, 500), [1; 10]);
        // A save appends past the committed 500 bytes (and a failed one rewrites them).
        std::os::unix::fs::FileExt::write_all_at(f.local_file().unwrap(), &[2; 600], 500).unwrap();
        assert_eq!(read(&r, &f, 500, 10, 1100), [2; 10]);
        assert_eq!(read(&r, &f, 20, 10, 1100), [1; 10]);
    }

    #[test]
    fn a_record_past_the_end_fails_as_a_plain_read_does() {
        let f = file_of(&[1; 100]);
        let r = RecordReader::new();
        read(&r, &f, 0, 10, 100);
        let mut buf = vec![0; 50];
        // The index claims more than the file holds.
        let e = r.read(&f, 80, &mut buf, 200).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn records_of_files_read_in_turn_each_come_from_a_stretch() {
        let files: Vec<Blob> = (0..FILES_KEPT as u8).map(|b| file_of(&[b; 1000])).collect();
        let readers: Vec<RecordReader> = files.iter().map(|_| RecordReader::new()).collect();
        for at in [0, 10] {
            for (f, r) in files.iter().zip(&readers) {
                read(r, f, at, 10, 1000);
            }
        }
        // Each file's next record comes from its stretch: bytes changed behind the readers'
        // backs are not seen.
        for f in &files {
            std::os::unix::fs::FileExt::write_all_at(f.local_file().unwrap(), &[9; 10], 20)
                .unwrap();
        }
        for (b, (f, r)) in files.iter().zip(&readers).enumerate() {
            assert_eq!(read(r, f, 20, 10, 1000), [b as u8; 10], "file {b}");
        }
    }

    #[test]
    fn two_files_do_not_share_a_stretch() {
        let a = file_of(&[1; 1000]);
        let b = file_of(&[2; 1000]);
        let (ra, rb) = (RecordReader::new(), RecordReader::new());
        assert_eq!(read(&ra, &a, 0, 10, 1000), [1; 10]);
        assert_eq!(read(&ra, &a, 10, 10, 1000), [1; 10]);
        assert_eq!(read(&rb, &b, 20, 10, 1000), [2; 10]);
        assert_eq!(read(&ra, &a, 30, 10, 1000), [1; 10]);
    }
}
