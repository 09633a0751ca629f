//! What differs in SCID 5 databases (.si5 index, .sn5 names, .sg5 game records), as SCID 5's
//! `CodecSCID5` writes them (docs/formats/scid4.md §11): the rest (game records, the fields
//! derived from a game, the 128 KiB record blocks of the game file) is SCID 4's, and
//! [`super::ScidDatabase`] opens both.
//!
//! - `.si5` has no header: it is the index entries, 56 bytes each ([`entry`]); the game count
//!   is the file's size over 56, and an entry is rewritten in place.
//! - `.sn5` is append-only ([`names`]): each name is a varint (length × 8 + type) and its
//!   bytes; a name's ID is its place among the names of its type, and a new name is appended,
//!   never sorted in. The database's description, type, autoload game and flag names are
//!   records of a fifth type.
//! - Limits are wider than SCID 4's: 2^32 - 2 games, a game file of 2^47 bytes, 2^28 player
//!   and event names, 2^32 sites and 2^31 rounds.

pub mod compact;
pub mod entry;
pub mod names;

/// The three file extensions of a SCID 5 database, in the order index, names, games.
pub const EXTENSIONS: [&str; 3] = ["si5", "sn5", "sg5"];

/// The most games a SCID 5 index holds (`LIMIT_NUMGAMES`).
pub const MAX_GAMES: u32 = u32::MAX - 1;

/// The most bytes a SCID 5 game file can address (`LIMIT_GAMEOFFSET`, 47 bits).
pub const MAX_GAME_FILE: u64 = 1 << 47;

/// The most names of each kind (player, event, site, round), as SCID 5 limits them.
pub const MAX_NAMES: [u64; 4] = [1 << 28, 1 << 28, 1 << 32, 1 << 31];
