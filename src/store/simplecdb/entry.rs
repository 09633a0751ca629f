//! The index file (.dci): a 19-byte header and 39-byte big-endian entries
//! (docs/formats/simplecdb.md §3).

use crate::error::{Error, ErrorKind, Result};

/// The magic bytes opening each of the five files, in the order index, players, sites,
/// events, games.
pub const MAGIC: [&[u8; 10]; 5] = [
    b"SimpleCDbi",
    b"SimpleCDbn",
    b"SimpleCDbs",
    b"SimpleCDbe",
    b"SimpleCDbg",
];
/// Length of the index header: magic, version byte, OpenDefault (u64).
pub const HEADER_LEN: usize = 19;
/// Length of one index entry.
pub const ENTRY_LEN: usize = 39;
/// The only version the reference readers accept (and the only one ever written).
pub const VERSION: u8 = 0;
/// Status byte of a game marked deleted.
pub const STATUS_DELETED: u8 = 0xFF;

/// The header of a new index: magic, version 0, OpenDefault 0 (as pgn2dcg writes it).
pub fn empty_header() -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..10].copy_from_slice(MAGIC[0]);
    h
}

/// Check the index header: the magic, then version 0x00 (any other version is refused with a
/// clear message, as the reference readers refuse it).
pub fn check_header(index: &[u8]) -> Result<()> {
    if index.len() < 10 || &index[..10] != MAGIC[0] {
        return Err(Error::new(
            ErrorKind::UnknownFormat,
            "not a Simple Chess Database index (no SimpleCDbi magic)",
        ));
    }
    if index.len() < HEADER_LEN {
        return Err(Error::corrupt_database(format!(
            "the index header is {} bytes, but it needs {HEADER_LEN} (truncated)",
            index.len()
        )));
    }
    if index[10] != VERSION {
        return Err(Error::new(
            ErrorKind::UnknownFormat,
            format!(
                "index version {:#04x} is unknown: only version 0x00 Simple Chess Databases exist \
                 and can be read",
                index[10]
            ),
        ));
    }
    Ok(())
}

/// Check an index file's bytes ([`check_header`]) and count its whole entries, as opening the
/// database does: returns the count and the number of bytes after the last whole entry (an
/// interrupted write; ignored). Entry `n` below the count is then at [`entry_at`]`(n)`. Works
/// on bytes so that any bytes can be checked (the `simplecdb_index` fuzz target,
/// [`crate::fuzzing`]).
pub fn count_entries(index: &[u8]) -> Result<(u32, usize)> {
    check_header(index)?;
    let body = index.len() - HEADER_LEN;
    let whole = u32::try_from(body / ENTRY_LEN)
        .map_err(|_| Error::new(ErrorKind::TooLarge, "too many games"))?;
    Ok((whole, body % ENTRY_LEN))
}

/// One decoded index entry. Name references are absolute byte offsets of a 36-byte record in
/// the name file (0 = none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexEntry {
    /// 0xFF = deleted; anything else is a live game.
    pub status: u8,
    /// Offset in the .dcg of the game's length bytes.
    pub offset: u64,
    /// White's record offset in .dcn.
    pub white: u32,
    /// Black's record offset in .dcn.
    pub black: u32,
    /// Round number (0 = unknown).
    pub round: u16,
    /// Site record offset in .dcs.
    pub site: u32,
    /// Event record offset in .dce.
    pub event: u32,
    /// White's Elo (0 = none).
    pub white_elo: u16,
    /// Black's Elo (0 = none).
    pub black_elo: u16,
    /// 0 unknown, 1 white wins, 2 black wins, 3 draw.
    pub result: u8,
    /// The ECO tag's first three bytes, or zeros for none.
    pub eco: [u8; 3],
    /// Year (0 = unknown).
    pub year: u16,
    /// Month (0 = unknown).
    pub month: u8,
    /// Day (0 = unknown).
    pub day: u8,
}

impl IndexEntry {
    /// Decode 39 entry bytes.
    pub fn decode(b: &[u8; ENTRY_LEN]) -> IndexEntry {
        let u16_at = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        IndexEntry {
            status: b[0],
            offset: u64::from_be_bytes(b[1..9].try_into().expect("8 bytes")),
            white: u32_at(9),
            black: u32_at(13),
            round: u16_at(17),
            site: u32_at(19),
            event: u32_at(23),
            white_elo: u16_at(27),
            black_elo: u16_at(29),
            result: b[31],
            eco: [b[32], b[33], b[34]],
            year: u16_at(35),
            month: b[37],
            day: b[38],
        }
    }

    /// Encode as 39 bytes.
    pub fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut b = [0u8; ENTRY_LEN];
        b[0] = self.status;
        b[1..9].copy_from_slice(&self.offset.to_be_bytes());
        b[9..13].copy_from_slice(&self.white.to_be_bytes());
        b[13..17].copy_from_slice(&self.black.to_be_bytes());
        b[17..19].copy_from_slice(&self.round.to_be_bytes());
        b[19..23].copy_from_slice(&self.site.to_be_bytes());
        b[23..27].copy_from_slice(&self.event.to_be_bytes());
        b[27..29].copy_from_slice(&self.white_elo.to_be_bytes());
        b[29..31].copy_from_slice(&self.black_elo.to_be_bytes());
        b[31] = self.result;
        b[32..35].copy_from_slice(&self.eco);
        b[35..37].copy_from_slice(&self.year.to_be_bytes());
        b[37] = self.month;
        b[38] = self.day;
        b
    }

    /// True when the game is marked deleted.
    pub fn is_deleted(&self) -> bool {
        self.status == STATUS_DELETED
    }
}

/// Where entry `number` starts in the index file.
pub fn entry_at(number: u32) -> usize {
    HEADER_LEN + ENTRY_LEN * number as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_round_trip_and_layout() {
        let e = IndexEntry {
            status: 0,
            offset: 10,
            white: 46,
            black: 82,
            round: 3,
            site: 10,
            event: 46,
            white_elo: 2500,
            black_elo: 2400,
            result: 1,
            eco: *b"C20",
            year: 1979,
            month: 12,
            day: 31,
        };
        let b = e.encode();
        assert_eq!(&b[1..9], &[0, 0, 0, 0, 0, 0, 0, 10]);
        assert_eq!(&b[35..37], &[0x07, 0xbb]);
        assert_eq!(IndexEntry::decode(&b), e);
    }

    #[test]
    fn header_checks() {
        assert!(check_header(&empty_header()).is_ok());
        let mut h = empty_header();
        h[10] = 1;
        let e = check_header(&h).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnknownFormat);
        assert!(e.message().contains("version 0x01"));
        assert_eq!(
            check_header(&h[..15]).unwrap_err().kind(),
            ErrorKind::CorruptDatabase
        );
        assert_eq!(
            check_header(b"SCID").unwrap_err().kind(),
            ErrorKind::UnknownFormat
        );
    }
}
