//! The bytes of a scratch file: in memory while small, and past [`SPILL_BYTES`] in an unnamed
//! temporary file (O_TMPFILE in the system's temporary folder), so copying a PGN file of
//! millions of games into the mount does not grow the gamefs process with the file. The
//! import then reads the text through a memory map, whose pages the kernel can drop again.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};

use crate::error::{Error, Result};
use crate::text::input::Text;

/// Scratch files bigger than this live in a temporary file, not in memory.
pub const SPILL_BYTES: u64 = 8 << 20;

/// Where a scratch file's bytes are.
#[derive(Debug)]
pub enum Content {
    /// In memory.
    Memory(Vec<u8>),
    /// In an unnamed temporary file of `len` bytes.
    Disk {
        /// The file (gone from the folder: it vanishes with its last descriptor).
        file: File,
        /// Its length.
        len: u64,
    },
}

impl Default for Content {
    fn default() -> Content {
        Content::Memory(Vec::new())
    }
}

/// An unnamed file in the temporary folder (`$TMPDIR`, else /tmp), removed when closed.
fn temp_file() -> Result<File> {
    let dir = std::env::temp_dir();
    let unnamed = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .open(&dir);
    match unnamed {
        Ok(f) => Ok(f),
        // Filesystems without O_TMPFILE: a named file, unlinked at once.
        Err(_) => {
            let path = dir.join(format!(
                ".gamefs-scratch-{}-{:x}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            ));
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
            let _ = std::fs::remove_file(&path);
            Ok(f)
        }
    }
}

fn disk_error(what: &str, e: std::io::Error) -> Error {
    Error::io(format!("{what} a scratch file's temporary copy"), e)
}

impl Content {
    /// Content holding `bytes` (in a temporary file when they are big).
    pub fn from_bytes(bytes: &[u8]) -> Result<Content> {
        let mut c = Content::default();
        c.write_at(0, bytes)?;
        Ok(c)
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Content::Memory(v) => v.len() as u64,
            Content::Disk { len, .. } => *len,
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Up to `size` bytes from `offset`.
    pub fn read_at(&self, offset: u64, size: u32) -> Result<Vec<u8>> {
        let start = offset.min(self.len());
        let end = start.saturating_add(u64::from(size)).min(self.len());
        match self {
            Content::Memory(v) => Ok(v[start as usize..end as usize].to_vec()),
            Content::Disk { file, .. } => {
                let mut buf = vec![0u8; (end - start) as usize];
                file.read_exact_at(&mut buf, start)
                    .map_err(|e| disk_error("reading", e))?;
                Ok(buf)
            }
        }
    }

    /// Write `data` at `offset`, growing with zeros as needed; past [`SPILL_BYTES`] the bytes
    /// move to a temporary file (a full disk there fails the write with ENOSPC).
    pub fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        let end = offset.saturating_add(data.len() as u64);
        if let Content::Memory(v) = self {
            if end <= SPILL_BYTES {
                let start = offset as usize;
                if v.len() < end as usize {
                    v.resize(end as usize, 0);
                }
                v[start..end as usize].copy_from_slice(data);
                return Ok(());
            }
            self.spill()?;
        }
        let Content::Disk { file, len } = self else {
            unreachable!("spilled above");
        };
        file.write_all_at(data, offset)
            .map_err(|e| disk_error("writing", e))?;
        *len = (*len).max(end);
        Ok(())
    }

    /// Cut or extend (with zeros) to `new_len` bytes.
    pub fn set_len(&mut self, new_len: u64) -> Result<()> {
        match self {
            Content::Memory(v) if new_len <= SPILL_BYTES => {
                v.resize(new_len as usize, 0);
                Ok(())
            }
            Content::Memory(_) => {
                self.spill()?;
                self.set_len(new_len)
            }
            Content::Disk { file, len } => {
                file.set_len(new_len)
                    .map_err(|e| disk_error("resizing", e))?;
                *len = new_len;
                Ok(())
            }
        }
    }

    /// The whole text, to save or copy.
    pub fn text(&self) -> Result<Text<'_>> {
        match self {
            Content::Memory(v) => Ok(Text::Slice(v)),
            Content::Disk { len: 0, .. } => Ok(Text::Slice(&[])),
            Content::Disk { file, .. } => {
                // SAFETY: the file is unnamed and ours alone; nothing else can change it
                // while the map lives (the scratch file is moved out while it is saved).
                let map =
                    unsafe { memmap2::Mmap::map(file) }.map_err(|e| disk_error("mapping", e))?;
                Ok(Text::Mapped(map))
            }
        }
    }

    /// Move the bytes from memory to a temporary file.
    fn spill(&mut self) -> Result<()> {
        if let Content::Memory(v) = self {
            let mut file = temp_file()?;
            file.write_all(v).map_err(|e| disk_error("writing", e))?;
            *self = Content::Disk {
                file,
                len: v.len() as u64,
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_content_stays_in_memory_and_grows_with_zeros() {
        let mut c = Content::default();
        c.write_at(2, b"cd").unwrap();
        assert!(matches!(c, Content::Memory(_)));
        assert_eq!(&*c.text().unwrap(), b"\0\0cd");
        assert_eq!(c.read_at(1, 10).unwrap(), b"\0cd");
        assert_eq!(c.read_at(9, 10).unwrap(), b"");
        c.set_len(1).unwrap();
        assert_eq!(&*c.text().unwrap(), b"\0");
    }

    #[test]
    fn big_content_moves_to_a_temporary_file() {
        let mut c = Content::from_bytes(b"head ").unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for i in 0..9u64 {
            c.write_at(5 + i * chunk.len() as u64, &chunk).unwrap();
        }
        assert!(matches!(c, Content::Disk { .. }), "spilled past 8 MiB");
        assert_eq!(c.len(), 5 + 9 * (1 << 20));
        assert_eq!(c.read_at(0, 6).unwrap(), b"head x");
        let text = c.text().unwrap();
        assert_eq!(text.len() as u64, c.len());
        assert!(text[5..].iter().all(|&b| b == b'x'));
        drop(text);
        c.set_len(3).unwrap();
        assert_eq!(&*c.text().unwrap(), b"hea");
        c.set_len(0).unwrap();
        assert_eq!(c.len(), 0);
        assert_eq!(&*c.text().unwrap(), b"");
        assert_eq!(
            Content::from_bytes(&vec![b' '; 9 << 20]).unwrap().len(),
            9 << 20
        );
    }
}
