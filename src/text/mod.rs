//! Text formats: the game model rendered as PGN, and PGN read back into the model.

pub mod input;
pub mod pgn;
pub(crate) mod pgn_chunks;
pub mod pgn_parse;
pub mod sgf;
pub mod sgf_parse;

use std::ops::Range;

/// Told each byte range of a text its reader does not need in memory now (parsed, or only
/// glanced at), so that a text mapped from a file can let those pages go while the rest is
/// read (a `cp` of a big PGN file into the mount would otherwise keep the whole file resident
/// until its import ends). A range told may still be read again later.
pub type DoneWith<'a> = &'a (dyn Fn(Range<usize>) + Sync);

/// How many line breaks `bytes` holds (counted with `memchr`: the indexing of a PGN file
/// counts the lines of all of it).
pub(crate) fn line_breaks(bytes: &[u8]) -> u32 {
    u32::try_from(memchr::memchr_iter(b'\n', bytes).count()).unwrap_or(u32::MAX)
}

/// A [`DoneWith`] for a text that stays as it is (in memory anyway).
pub fn keep_all(_: Range<usize>) {}
