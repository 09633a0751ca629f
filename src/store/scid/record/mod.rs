//! The game-record codec of SCID 4 (.sg4) and SCID 5 (.sg5): both write a game's record with
//! the same code (SCID's `ByteBuffer`), so one codec serves both formats.
//!
//! Layout (docs/formats/scid4.md §5): extra tags ended by `00`, a flags byte with an optional
//! NUL-terminated FEN, the move stream (moves, NAGs, comment markers and variations, ended by
//! `0F`), then one NUL-terminated comment string per comment marker, in PGN order.
//!
//! Every byte is checked: a damaged record gives [`crate::error::ErrorKind::CorruptRecord`]
//! with the reason, never a panic. Variations are decoded with an explicit stack, so any
//! nesting depth the 128 KiB record limit allows is decoded without deep recursion.
//!
//! [`decode`] (in `decode.rs`) reads a record into the game model; [`encode`] (in `encode.rs`)
//! writes one as SCID does. This module holds what both sides share: the layout's codes.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

pub use decode::*;
pub use encode::*;

/// Names of the common extra tags, stored as the one-byte codes 241..=250 (spec §5.1).
/// `Setup` and `SetUp` are distinct codes because SCID matches names case-sensitively.
pub const COMMON_TAGS: [&str; 10] = [
    "WhiteCountry",
    "BlackCountry",
    "Annotator",
    "PlyCount",
    "EventDate",
    "Opening",
    "Variation",
    "Setup",
    "Source",
    "SetUp",
];

/// The first tag code that stands for a [`COMMON_TAGS`] name.
pub const FIRST_COMMON_TAG: u8 = 241;

/// The tag code of SCID 2's binary EventDate: no length byte, three value bytes follow.
pub const BINARY_EVENT_DATE_TAG: u8 = 255;

/// The most NAGs SCID keeps on one move; a record with more cannot be loaded by SCID (§5.5).
pub const MAX_NAGS_PER_MOVE: usize = 7;

/// Flags-byte bit: a NUL-terminated FEN follows (the game has a set-up start position).
pub const FLAG_FEN: u8 = 1;
/// Flags-byte bit: the main line contains a promotion.
pub const FLAG_PROMOTION: u8 = 1 << 1;
/// Flags-byte bit: the main line contains an under-promotion.
pub const FLAG_UNDER_PROMOTION: u8 = 1 << 2;

/// Move-stream marker: the next byte is a NAG for the last move.
pub const MARK_NAG: u8 = 0x0B;
/// Move-stream marker: the last move (or the line's start) has a comment in the comment section.
pub const MARK_COMMENT: u8 = 0x0C;
/// Move-stream marker: a variation of the move just decoded begins.
pub const MARK_START_VARIATION: u8 = 0x0D;
/// Move-stream marker: the current variation ends.
pub const MARK_END_VARIATION: u8 = 0x0E;
/// Move-stream marker: the game's main line ends (only at depth 0).
pub const MARK_END_GAME: u8 = 0x0F;

/// King step codes 1..=8 → square difference (code 0 is the null move, 9/10 castling).
const KING_STEPS: [i32; 9] = [0, -9, -8, -7, -1, 1, 7, 8, 9];
/// Knight codes 1..=8 → square difference (0 and 9..=15 unused).
const KNIGHT_JUMPS: [i32; 9] = [0, -17, -15, -10, -6, 6, 10, 15, 17];
