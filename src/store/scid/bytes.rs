//! Big-endian field readers for the SCID files, and a bounds-checked cursor over a byte slice.

use crate::error::{Error, Result};

/// A big-endian unsigned 16-bit value at `at` (caller guarantees bounds).
pub(crate) fn be16(b: &[u8], at: usize) -> u32 {
    u32::from(b[at]) << 8 | u32::from(b[at + 1])
}

/// A big-endian unsigned 24-bit value at `at` (caller guarantees bounds).
pub(crate) fn be24(b: &[u8], at: usize) -> u32 {
    u32::from(b[at]) << 16 | be16(b, at + 1)
}

/// A big-endian unsigned 32-bit value at `at` (caller guarantees bounds).
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    u32::from(b[at]) << 24 | be24(b, at + 1)
}

/// Reads a byte slice front to back; running past the end is an error naming `what`.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`; `what` names the data in error messages.
    pub(crate) fn new(bytes: &'a [u8], what: &'static str) -> Cursor<'a> {
        Cursor {
            bytes,
            pos: 0,
            what,
        }
    }

    /// Total length of the underlying bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The current byte offset.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                Error::corrupt_database(format!(
                    "{} is truncated: needed {n} bytes at offset {}, file has {}",
                    self.what,
                    self.pos,
                    self.bytes.len()
                ))
            })?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// The next big-endian unsigned integer of `width` bytes (1..=4).
    pub(crate) fn uint(&mut self, width: usize) -> Result<u32> {
        Ok(self
            .take(width)?
            .iter()
            .fold(0u32, |acc, &b| acc << 8 | u32::from(b)))
    }
}
