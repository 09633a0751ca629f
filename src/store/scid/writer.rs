//! Durable writes to the three SCID files, in the order that keeps the database openable by
//! SCID after a crash at any point (DESIGN.md rule 7, spec §8):
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
pub fn append_record(sg4: &File, path: &Path, file_len: u64, record: &[u8]) -> Result<u64> {
    let (offset, filler) = record_placement(file_len, record.len() as u64);
    if offset + record.len() as u64 > u64::from(u32::MAX) {
        return Err(Error::new(
            crate::error::ErrorKind::TooLarge,
            format!(
                "{} would grow past 4 GiB, the most a SCID 4 game file can address",
                path.display()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(filler as usize + record.len());
    bytes.extend(record.iter().cycle().take(filler as usize));
    bytes.extend_from_slice(record);
    sg4.write_all_at(&bytes, file_len)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(offset)
}

/// Write `bytes` at `offset` of `file` and make them durable.
pub fn write_synced(file: &File, path: &Path, offset: u64, bytes: &[u8]) -> Result<()> {
    file.write_all_at(bytes, offset)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    sync(file, path)
}

/// Make everything written to `file` durable.
pub fn sync(file: &File, path: &Path) -> Result<()> {
    file.sync_data()
        .map_err(|e| Error::io(format!("syncing {}", path.display()), e))
}

/// Replace the file at `path` with `bytes` atomically: temp file, fsync, rename, fsync folder.
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!(
        "{}.gamefs-tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    let io = |what: &str, e| Error::io(format!("{what} {}", tmp.display()), e);
    let mut f = File::create(&tmp).map_err(|e| io("creating", e))?;
    f.write_all(bytes).map_err(|e| io("writing", e))?;
    f.sync_all().map_err(|e| io("syncing", e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| {
        Error::io(
            format!("renaming {} to {}", tmp.display(), path.display()),
            e,
        )
    })?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(format!("syncing {}", dir.display()), e))?;
    }
    Ok(())
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
        let f = File::options()
            .create(true)
            .read(true)
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        let offset = append_record(&f, &path, BLOCK - 3, b"abcdef").unwrap();
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
}
