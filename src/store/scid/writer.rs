//! Durable writes to the three SCID files, in the order that keeps the database openable by
//! SCID after a crash at any point (docs/DESIGN.md rule 7, docs/formats/scid4.md §8):
//! record bytes (.sg4) → name file (.sn4, replaced atomically) → header count → index entry.
//! A new name without a game, or a header count one higher than the entries present, is what a
//! crash can leave; SCID opens both, and gamefs repairs the second on the next writable open.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::error::{Error, Result};

/// SCID's block size: a record never crosses a multiple of it (spec §8).
pub const BLOCK: u64 = 131_072;

/// Where a record of `len` bytes goes when the game file is `file_len` bytes long, and how
/// many filler bytes come first so it does not cross a block boundary.
pub fn record_placement(file_len: u64, len: u64) -> (u64, u64) {
    let space = BLOCK - file_len % BLOCK;
    if space < len {
        (file_len + space, space)
    } else {
        (file_len, 0)
    }
}

/// Append `record` to the game file at `file_len` (filler first if needed, taken from the
/// record itself as SCID 4.7.4 does); returns the record's offset. Not yet synced.
/// `max_end` is the most bytes the format's game file can address.
pub fn append_record(
    sg4: &File,
    path: &Path,
    file_len: u64,
    record: &[u8],
    max_end: u64,
) -> Result<u64> {
    let mut bytes = Vec::with_capacity(record.len());
    let offset = place_record(path, file_len, record, max_end, &mut bytes)?;
    sg4.write_all_at(&bytes, file_len)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(offset)
}

/// Put `record` (with its filler) into `out`, whose first byte goes to `file_len` of the game
/// file at `path`; returns the record's offset, or an error if the file would outgrow
/// `max_end` bytes.
fn place_record(
    path: &Path,
    file_len: u64,
    record: &[u8],
    max_end: u64,
    out: &mut Vec<u8>,
) -> Result<u64> {
    let (offset, filler) = record_placement(file_len, record.len() as u64);
    if offset + record.len() as u64 > max_end {
        return Err(Error::new(
            crate::error::ErrorKind::TooLarge,
            format!(
                "{} would grow past {max_end} bytes, the most its game file can address",
                path.display()
            ),
        ));
    }
    out.extend(record.iter().cycle().take(filler as usize));
    out.extend_from_slice(record);
    Ok(offset)
}

/// Records appended to the end of a game file in bulk: collected in memory and written a
/// megabyte at a time, not one write per record (what [`append_record`] does for one save).
pub struct RecordBuffer {
    /// Where the first buffered byte goes in the file.
    start: u64,
    /// The bytes not yet written.
    bytes: Vec<u8>,
    /// The most bytes the game file can address.
    max_end: u64,
}

impl RecordBuffer {
    /// Write when this many bytes are buffered.
    const FLUSH_AT: usize = 1 << 20;

    /// An empty buffer for a game file that is `file_len` bytes long and can address at most
    /// `max_end` bytes.
    pub fn new(file_len: u64, max_end: u64) -> RecordBuffer {
        RecordBuffer {
            start: file_len,
            bytes: Vec::new(),
            max_end,
        }
    }

    /// The game file's length once everything buffered is written.
    pub fn file_len(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    /// Append `record` as [`append_record`] does (written now or by a later call); returns
    /// its offset.
    pub fn append(&mut self, sg4: &File, path: &Path, record: &[u8]) -> Result<u64> {
        let offset = place_record(path, self.file_len(), record, self.max_end, &mut self.bytes)?;
        if self.bytes.len() >= Self::FLUSH_AT {
            self.flush(sg4, path)?;
        }
        Ok(offset)
    }

    /// Write what is buffered (not yet synced).
    pub fn flush(&mut self, sg4: &File, path: &Path) -> Result<()> {
        sg4.write_all_at(&self.bytes, self.start)
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        self.start += self.bytes.len() as u64;
        self.bytes.clear();
        Ok(())
    }
}

/// Bytes collected in memory in pieces of a megabyte that never move once written: a
/// growing `Vec` would for a while hold its old and its new buffer at once, and a bulk
/// import's new index entries (470 MB for ten million games) would then take twice their size
/// at the import's peak, and twice again when copied into the index kept in memory.
#[derive(Debug, Default)]
pub struct Chunks {
    /// The pieces, each [`Chunks::PIECE`] bytes long but the last.
    pieces: Vec<Vec<u8>>,
    /// The bytes in all pieces.
    len: usize,
}

impl Chunks {
    /// The size of a piece.
    const PIECE: usize = 1 << 20;

    /// Append `bytes`.
    pub fn extend_from_slice(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len();
        while !bytes.is_empty() {
            let piece = match self.pieces.last_mut() {
                Some(piece) if piece.len() < Self::PIECE => piece,
                _ => {
                    self.pieces.push(Vec::with_capacity(Self::PIECE));
                    self.pieces.last_mut().expect("just pushed")
                }
            };
            let (now, later) = bytes.split_at(bytes.len().min(Self::PIECE - piece.len()));
            piece.extend_from_slice(now);
            bytes = later;
        }
    }

    /// The number of bytes appended.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Write every byte, in order, from `offset` of `file` (not yet synced).
    pub fn write_at(&self, file: &File, path: &Path, mut offset: u64) -> Result<()> {
        for piece in &self.pieces {
            file.write_all_at(piece, offset)
                .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
            offset += piece.len() as u64;
        }
        Ok(())
    }

    /// Move every byte to the end of `out`, giving each piece back once it is copied.
    pub fn move_into(self, out: &mut Vec<u8>) {
        out.reserve_exact(self.len);
        for piece in self.pieces {
            out.extend_from_slice(&piece);
        }
    }
}

/// Write `bytes` at `offset` of `file` and make them durable.
pub fn write_synced(file: &File, path: &Path, offset: u64, bytes: &[u8]) -> Result<()> {
    file.write_all_at(bytes, offset)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    sync(file, path)
}

/// Append `bytes` to the file at `path` and make them durable; a write that fails part way
/// is cut off again, so the file never ends in half of what was appended. Returns the offset
/// they were appended at (the file's length before).
pub fn append_synced(path: &Path, bytes: &[u8]) -> Result<u64> {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io(format!("cannot stat {}", path.display()), e))?
        .len();
    let written = (&file)
        .write_all(bytes)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))
        .and_then(|()| sync(&file, path));
    if written.is_err() {
        cut_back(&file, path, len);
    }
    written.map(|()| len)
}

/// Make everything written to `file` durable.
pub fn sync(file: &File, path: &Path) -> Result<()> {
    file.sync_data()
        .map_err(|e| Error::io(format!("syncing {}", path.display()), e))
}

/// Replace the file at `path` with `bytes` atomically: temp file, fsync, rename, fsync folder.
/// A temp file that could not be written whole (a full disk) is removed again.
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!(
        "{}.gamefs-tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    let io = |what: &str, e| Error::io(format!("{what} {}", tmp.display()), e);
    let written = File::create(&tmp)
        .map_err(|e| io("creating", e))
        .and_then(|mut f| {
            f.write_all(bytes).map_err(|e| io("writing", e))?;
            f.sync_all().map_err(|e| io("syncing", e))
        })
        .and_then(|()| {
            std::fs::rename(&tmp, path).map_err(|e| {
                Error::io(
                    format!("renaming {} to {}", tmp.display(), path.display()),
                    e,
                )
            })
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(format!("syncing {}", dir.display()), e))?;
    }
    Ok(())
}

/// Make sure `len` bytes from `offset` of `file` can be written without running out of space,
/// without changing its size (fallocate with FALLOC_FL_KEEP_SIZE): a full disk then fails
/// here, before anything refers to the new bytes. Filesystems that cannot reserve space skip
/// this step.
pub fn reserve(file: &File, path: &Path, offset: u64, len: u64) -> Result<()> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(());
    }
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return Ok(());
    };
    // SAFETY: fallocate on a valid open descriptor; KEEP_SIZE leaves the file's size alone.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP | libc::ENOSYS | libc::EINVAL) => Ok(()),
        _ => Err(Error::io(
            format!("reserving {len} bytes in {}", path.display()),
            e,
        )),
    }
}

/// What a failed save undoes, in a format of `N` name dictionaries: the game file's length
/// and each dictionary's size before the save began.
#[derive(Clone, Copy, Debug)]
pub struct Undo<const N: usize> {
    /// The game file's length.
    pub games_len: u64,
    /// The number of names in each dictionary.
    pub names: [u32; N],
}

/// Cut `file` back to `len` bytes if it is longer (what a failed save appended, whole or in
/// part), so the space is given back and nothing half-written stays at its end.
pub fn cut_back_to(file: &File, path: &Path, len: u64) {
    if file.metadata().map_or(true, |m| m.len() != len) {
        cut_back(file, path, len);
    }
}

/// Cut `file` back to `len` bytes after a failed save: what was appended is referenced by
/// nothing, and on a full disk the space is wanted back. A failure is only logged (the bytes
/// are then garbage until compaction, which is harmless).
pub fn cut_back(file: &File, path: &Path, len: u64) {
    if let Err(e) = file.set_len(len).and_then(|()| file.sync_data()) {
        log::warn!(
            "{}: could not cut back to {len} bytes after a failed save: {e}",
            path.display()
        );
    }
}

/// Take the advisory write lock of a database (one writer at a time), or say who holds it.
pub fn lock(file: &File, path: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a valid open descriptor.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(Error::new(
            crate::error::ErrorKind::Busy,
            format!(
                "{} is already open for writing by another gamefs (one writer per database)",
                path.display()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_file(path: &Path) -> File {
        File::options()
            .create(true)
            .read(true)
            .write(true)
            .truncate(true)
            .open(path)
            .unwrap()
    }

    #[test]
    fn block_rule() {
        assert_eq!(record_placement(0, 100), (0, 0));
        assert_eq!(
            record_placement(BLOCK - 100, 100),
            (BLOCK - 100, 0),
            "exactly filling the block is allowed"
        );
        assert_eq!(record_placement(BLOCK - 99, 100), (BLOCK, 99));
        assert_eq!(record_placement(BLOCK, 5), (BLOCK, 0));
    }

    #[test]
    fn filler_is_the_record_prefix_and_replace_is_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.sg4");
        let f = new_file(&path);
        let offset = append_record(&f, &path, BLOCK - 3, b"abcdef", u64::MAX).unwrap();
        assert_eq!(offset, BLOCK);
        let mut buf = [0u8; 9];
        f.read_exact_at(&mut buf, BLOCK - 3).unwrap();
        assert_eq!(&buf, b"abcabcdef");
        let names = dir.path().join("x.sn4");
        replace_file(&names, b"one").unwrap();
        replace_file(&names, b"two").unwrap();
        assert_eq!(std::fs::read(&names).unwrap(), b"two");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temp file left behind"
        );
    }

    #[test]
    fn a_replace_that_fails_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub").join("x.sn4");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        // A folder in the way of the rename makes the last step fail.
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), b"").unwrap();
        assert!(replace_file(&target, b"names").is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["x.sn4"], "the temp file is gone");
    }

    #[test]
    fn a_record_buffer_writes_what_single_appends_write() {
        let dir = tempfile::tempdir().unwrap();
        let (one, many) = (dir.path().join("one.sg4"), dir.path().join("many.sg4"));
        let (f1, f2) = (new_file(&one), new_file(&many));
        let mut rng = crate::testing::Rng(99);
        let mut buffer = RecordBuffer::new(0, u64::MAX);
        let mut len = 0;
        for i in 0..3000u32 {
            let record: Vec<u8> = (0..1 + rng.below(3000))
                .map(|j| (i + j as u32) as u8)
                .collect();
            let offset = append_record(&f1, &one, len, &record, u64::MAX).unwrap();
            len = offset + record.len() as u64;
            assert_eq!(buffer.append(&f2, &many, &record).unwrap(), offset);
            assert_eq!(buffer.file_len(), len);
        }
        buffer.flush(&f2, &many).unwrap();
        assert!(len > 2 * BLOCK, "block boundaries are crossed");
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&many).unwrap());
    }

    /// Pieces of any length, crossing a megabyte's edge anywhere, come out as one `Vec` of
    /// them would hold them: written to a file and moved into an index kept in memory.
    #[test]
    fn chunks_hold_what_a_vec_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.si4");
        let f = new_file(&path);
        let mut rng = crate::testing::Rng(7);
        let (mut chunks, mut expected) = (Chunks::default(), Vec::new());
        assert!(chunks.is_empty());
        while expected.len() < 3 * Chunks::PIECE + 12_345 {
            // entries of 47 bytes, and now and then a piece longer than a megabyte
            let len = if rng.chance(1) {
                Chunks::PIECE + rng.below(1000)
            } else {
                47
            };
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            chunks.extend_from_slice(&bytes);
            expected.extend_from_slice(&bytes);
            assert_eq!(chunks.len(), expected.len());
        }
        f.write_all_at(b"head", 0).unwrap();
        chunks.write_at(&f, &path, 4).unwrap();
        assert_eq!(std::fs::read(&path).unwrap()[4..], expected[..]);
        let mut index = b"head".to_vec();
        chunks.move_into(&mut index);
        assert_eq!(index[4..], expected[..]);
    }

    #[test]
    fn reserving_keeps_the_size_and_cutting_back_shrinks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.si4");
        let f = new_file(&path);
        f.write_all_at(b"0123456789", 0).unwrap();
        reserve(&f, &path, 10, 4096).unwrap();
        assert_eq!(f.metadata().unwrap().len(), 10);
        cut_back(&f, &path, 4);
        assert_eq!(std::fs::read(&path).unwrap(), b"0123");
    }
}
