//! Archives as a source of bytes for the stores: a `.zip`, `.7z`, tar (plain, `.gz`, `.bz2`,
//! `.xz`, `.zst`), `.xz` or ChessBase `.cbv` file holding databases (PGN files, the files of a SCID or Simple
//! Chess Database, other archives) is unpacked once into the user's cache folder, and each
//! database in it is then opened as a local file by its own store: no format store has an
//! archive code path of its own (docs/DESIGN.md, "Sources of bytes").
//!
//! Only the members that are databases (or archives, which are unpacked in turn) are written,
//! under bounds ([`bounds`]: the cache folder's limit, the disk's free space, a ratio against
//! zip bombs); a member that is encrypted, damaged, named outside the archive or refused by a
//! bound is left out and reported, with its name ([`Unpacked::problems`]). What was unpacked
//! is kept for the next mount while the archive's version (length, time, ETag) is the same
//! ([`unpack`]). A PGN file stored or deflated in a zip is not written at all: it is read in
//! place, by ranges of the archive (`in_place`).

pub mod bounds;
mod cbv;
mod in_place;
pub mod kind;
mod names;
mod sevenz;
mod tar;
mod unpack;
mod xz;
mod zip;

use std::io::Read;

use crate::error::{Error, ErrorKind, Result};

pub use kind::Kind;
pub use unpack::{MemberProblem, Unpacked, unpack, unpack_into};

/// Where a format's reader hands the members it finds.
trait Members {
    /// True when member `name` is to be unpacked (a database's file or an archive); the
    /// others are not decoded where the format allows.
    fn wants(&self, name: &str) -> bool;
    /// Member `name`, `packed` bytes in the archive (or the archive's size when the format
    /// does not tell a member's), whose bytes `data` gives. Its own failures (damage, a
    /// bound) are kept as problems; an error stops the whole unpacking.
    fn file(&mut self, name: &str, packed: u64, data: &mut dyn Read) -> Result<()>;
    /// Member `name` can be read in place, where `at` says: true when it is taken so (and
    /// not to be unpacked), false when it is to be handed to [`Members::file`].
    fn place(&mut self, name: &str, at: in_place::Placed) -> bool;
    /// Member `name` cannot be read, for `why`.
    fn refused(&mut self, name: &str, why: Error);
}

/// The error of an encrypted member.
fn encrypted() -> Error {
    Error::new(
        ErrorKind::Unsupported,
        "encrypted, not supported (decrypt the archive and mount what it holds)",
    )
}
