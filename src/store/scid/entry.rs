//! One .si4 index entry (docs/formats/scid4.md §3): where the record is, who played, when, and
//! derived fields.

use super::bytes::{be16, be32};
use super::derive::Derived;
use crate::game::{GameResult, PartialDate, Rating, RatingType};

/// Flag bit 3: the game is marked deleted.
pub const FLAG_DELETED: u32 = 1 << 3;

/// The fields of a 47-byte (or 46-byte, version 300) index entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexEntry {
    /// Byte offset of the record in the game file (32 bits in SCID 4, 47 in SCID 5).
    pub offset: u64,
    /// Record length in bytes (17 bits).
    pub length: u32,
    /// The 22 flag bits (spec §3.1).
    pub flags: u32,
    /// White player's name ID.
    pub white: u32,
    /// Black player's name ID.
    pub black: u32,
    /// Event name ID.
    pub event: u32,
    /// Site name ID.
    pub site: u32,
    /// Round name ID.
    pub round: u32,
    /// Result code 0..=3 (`*`, 1-0, 0-1, draw).
    pub result: u8,
    /// Variation, comment and NAG count codes (4 bits each).
    pub var_code: u8,
    /// See `var_code`.
    pub comment_code: u8,
    /// See `var_code`.
    pub nag_code: u8,
    /// SCID's numeric ECO code (0 = none).
    pub eco: u16,
    /// Packed 20-bit date.
    pub date: u32,
    /// Packed 12-bit event date relative to the date's year.
    pub event_date: u16,
    /// White rating (12 bits) and its type (4 bits).
    pub white_elo: u16,
    /// See `white_elo`.
    pub white_rating_type: u8,
    /// Black rating and its type.
    pub black_elo: u16,
    /// See `black_elo`.
    pub black_rating_type: u8,
    /// Stored-line code (spec §3.8).
    pub stored_line: u8,
    /// Final material signature (24 bits).
    pub matsig: u32,
    /// Main-line plies modulo 1024.
    pub plies: u16,
    /// Home-pawn change count (0..=16).
    pub home_pawn_count: u8,
    /// Home-pawn change list, 16 nibbles.
    pub home_pawns: [u8; 8],
    /// The game is Chess960 (SCID 5 only; SCID 4 stores standard chess).
    pub chess960: bool,
    /// The whole packed 20-bit event date, for an index that stores it so (SCID 5); `None`
    /// for SCID 4's, which stores `event_date` relative to the date's year.
    pub event_date_full: Option<u32>,
}

impl IndexEntry {
    /// Decode a version-400 entry from its 47 bytes.
    pub fn decode(e: &[u8; 47]) -> IndexEntry {
        let result_counts = be16(e, 21);
        let dates = be32(e, 25);
        let welo = be16(e, 29);
        let belo = be16(e, 31);
        let line_mat = be32(e, 33);
        let mut home_pawns = [0u8; 8];
        home_pawns.copy_from_slice(&e[39..47]);
        IndexEntry {
            offset: u64::from(be32(e, 0)),
            length: (u32::from(e[6] & 0x80) << 9) | be16(e, 4),
            flags: IndexEntry::decode_flags(e),
            white: (u32::from(e[9] & 0xF0) << 12) | be16(e, 10),
            black: (u32::from(e[9] & 0x0F) << 16) | be16(e, 12),
            event: (u32::from(e[14] & 0xE0) << 11) | be16(e, 15),
            site: (u32::from(e[14] & 0x1C) << 14) | be16(e, 17),
            round: (u32::from(e[14] & 0x03) << 16) | be16(e, 19),
            result: (result_counts >> 12) as u8,
            nag_code: ((result_counts >> 8) & 15) as u8,
            comment_code: ((result_counts >> 4) & 15) as u8,
            var_code: (result_counts & 15) as u8,
            eco: be16(e, 23) as u16,
            event_date: (dates >> 20) as u16,
            date: dates & 0xF_FFFF,
            white_elo: (welo & 0xFFF) as u16,
            white_rating_type: (welo >> 12) as u8,
            black_elo: (belo & 0xFFF) as u16,
            black_rating_type: (belo >> 12) as u8,
            stored_line: (line_mat >> 24) as u8,
            matsig: line_mat & 0xFF_FFFF,
            plies: ((u16::from(e[38] & 0xC0)) << 2) | u16::from(e[37]),
            home_pawn_count: e[38] & 0x3F,
            home_pawns,
            chess960: false,
            event_date_full: None,
        }
    }

    /// Encode this entry as its 47 bytes (version 400), the exact inverse of
    /// [`IndexEntry::decode`] (spec §3). Each field is masked to its width: offset 32 bits,
    /// length 17, flags 22, player IDs 20, event and site IDs 19, round ID 18, result and count
    /// codes and rating types 4, Elo 12, date 20, event date 12, matsig 24, plies 10 (SCID
    /// stores them modulo 1024), home-pawn count 6. Spare bit 6 of byte 6 is written 0.
    pub fn encode(&self) -> [u8; 47] {
        let mut e = [0u8; 47];
        let put16 = |e: &mut [u8; 47], at: usize, v: u32| {
            e[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes());
        };
        e[0..4].copy_from_slice(&(self.offset as u32).to_be_bytes());
        put16(&mut e, 4, self.length);
        e[6] = ((self.length >> 9) & 0x80) as u8 | ((self.flags >> 16) & 0x3F) as u8;
        put16(&mut e, 7, self.flags);
        e[9] = ((self.white >> 12) & 0xF0) as u8 | ((self.black >> 16) & 0x0F) as u8;
        put16(&mut e, 10, self.white);
        put16(&mut e, 12, self.black);
        e[14] = ((self.event >> 11) & 0xE0) as u8
            | ((self.site >> 14) & 0x1C) as u8
            | ((self.round >> 16) & 0x03) as u8;
        put16(&mut e, 15, self.event);
        put16(&mut e, 17, self.site);
        put16(&mut e, 19, self.round);
        let nibble = |v: u8| u32::from(v & 15);
        put16(
            &mut e,
            21,
            nibble(self.result) << 12
                | nibble(self.nag_code) << 8
                | nibble(self.comment_code) << 4
                | nibble(self.var_code),
        );
        put16(&mut e, 23, u32::from(self.eco));
        let dates = (u32::from(self.event_date) & 0xFFF) << 20 | (self.date & 0xF_FFFF);
        e[25..29].copy_from_slice(&dates.to_be_bytes());
        let rating = |elo: u16, kind: u8| u32::from(kind & 15) << 12 | u32::from(elo & 0xFFF);
        put16(&mut e, 29, rating(self.white_elo, self.white_rating_type));
        put16(&mut e, 31, rating(self.black_elo, self.black_rating_type));
        let line_mat = u32::from(self.stored_line) << 24 | (self.matsig & 0xFF_FFFF);
        e[33..37].copy_from_slice(&line_mat.to_be_bytes());
        e[37] = self.plies as u8;
        e[38] = (((self.plies >> 8) & 3) as u8) << 6 | (self.home_pawn_count & 0x3F);
        e[39..47].copy_from_slice(&self.home_pawns);
        e
    }

    /// This entry with every field SCID derives from the game replaced by `d` (result,
    /// counts, ECO, dates, ratings, stored line, matsig, plies, home pawns, and flags S, X and
    /// Y); offset, length, name IDs and the user's flags are kept.
    pub fn with_derived(mut self, d: &Derived) -> IndexEntry {
        const SXY: u32 = 7;
        self.flags = (self.flags & !SXY) | (d.flags_sxy & SXY);
        self.result = d.result;
        self.var_code = d.var_code;
        self.comment_code = d.comment_code;
        self.nag_code = d.nag_code;
        self.eco = d.eco;
        self.date = d.date;
        self.event_date = d.event_date;
        self.white_elo = d.white_elo;
        self.white_rating_type = d.white_rating_type;
        self.black_elo = d.black_elo;
        self.black_rating_type = d.black_rating_type;
        self.stored_line = d.stored_line;
        self.matsig = d.matsig;
        self.plies = d.plies;
        self.home_pawn_count = d.home_pawn_count;
        self.home_pawns = d.home_pawns;
        self
    }

    /// The flags of a version-400 entry alone (the deleted mark is one), without decoding
    /// the rest: listings and the position index ask every game whether it is deleted.
    pub fn decode_flags(e: &[u8; 47]) -> u32 {
        (u32::from(e[6] & 0x3F) << 16) | be16(e, 7)
    }

    /// The flags of a version-300 entry alone (its byte 6 is the 47-byte layout's byte 7:
    /// no high flag bits).
    pub fn decode_v300_flags(e: &[u8; 46]) -> u32 {
        be16(e, 6)
    }

    /// Decode a version-300 entry (46 bytes: the 47-byte layout without byte 6).
    pub fn decode_v300(e: &[u8; 46]) -> IndexEntry {
        let mut full = [0u8; 47];
        full[..6].copy_from_slice(&e[..6]);
        full[7..].copy_from_slice(&e[6..]);
        IndexEntry::decode(&full)
    }

    /// True when the game carries the deleted mark.
    pub fn is_deleted(&self) -> bool {
        self.flags & FLAG_DELETED != 0
    }

    /// The game result.
    pub fn game_result(&self) -> GameResult {
        match self.result {
            1 => GameResult::WhiteWins,
            2 => GameResult::BlackWins,
            3 => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// The date played.
    pub fn game_date(&self) -> PartialDate {
        unpack_date(self.date)
    }

    /// The event date, rebuilt from its offset to the game's year (spec §3.3).
    pub fn game_event_date(&self) -> Option<PartialDate> {
        if let Some(full) = self.event_date_full {
            return Some(unpack_date(full)).filter(|d| !d.is_unknown());
        }
        let e = u32::from(self.event_date);
        let year_offset = (e >> 9) & 7;
        if year_offset == 0 {
            return None;
        }
        let year = (self.date >> 9) as i64 + i64::from(year_offset) - 4;
        let packed = (year.max(0) as u32) << 9 | (e & 0x1FF);
        // SCID writes no EventDate tag for a date with no known part.
        Some(unpack_date(packed)).filter(|d| !d.is_unknown())
    }

    /// White's rating, if any.
    pub fn white_rating(&self) -> Option<Rating> {
        rating(self.white_elo, self.white_rating_type)
    }

    /// Black's rating, if any.
    pub fn black_rating(&self) -> Option<Rating> {
        rating(self.black_elo, self.black_rating_type)
    }
}

/// Unpack SCID's 20-bit `year << 9 | month << 5 | day` date; zero parts are unknown.
pub fn unpack_date(d: u32) -> PartialDate {
    let nonzero = |v: u32| (v != 0).then_some(v);
    PartialDate {
        year: nonzero(d >> 9).map(|y| y as u16),
        month: nonzero((d >> 5) & 15).map(|m| m as u8),
        day: nonzero(d & 31).map(|d| d as u8),
    }
}

fn rating(value: u16, kind: u8) -> Option<Rating> {
    (value != 0).then(|| Rating {
        value,
        kind: RatingType::ALL
            .get(usize::from(kind))
            .copied()
            .unwrap_or(RatingType::Elo),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry of spec §5.7 (game 12 of the test database).
    const MOLINARI: [u8; 47] = [
        0x00, 0x00, 0x05, 0x4d, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x0a, 0x00,
        0x00, 0x05, 0x00, 0x09, 0x00, 0x03, 0x20, 0x00, 0x3d, 0x69, 0x00, 0x0f, 0x76, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x6b, 0x6a, 0x86, 0xa8, 0x0a, 0x04, 0xb5, 0xd9, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00,
    ];

    #[test]
    fn encodes_the_worked_example() {
        assert_eq!(IndexEntry::decode(&MOLINARI).encode(), MOLINARI);
    }

    #[test]
    fn fills_every_field_from_derived_values() {
        // The §5.7 entry rebuilt from its parts: what a writer does for a new game.
        let d = crate::store::scid::derive::Derived {
            result: 2,
            eco: 15721,
            date: 1979 << 9,
            stored_line: 107,
            matsig: 0x6A86A8,
            plies: 10,
            home_pawn_count: 4,
            home_pawns: [0xb5, 0xd9, 0, 0, 0, 0, 0, 0],
            ..Default::default()
        };
        let e = IndexEntry {
            offset: 1357,
            length: 17,
            white: 9,
            black: 10,
            event: 5,
            site: 9,
            round: 3,
            ..IndexEntry::default()
        }
        .with_derived(&d);
        assert_eq!(e.encode(), MOLINARI);
    }

    proptest::proptest! {
        #[test]
        fn encode_inverts_decode(bytes in proptest::collection::vec(proptest::num::u8::ANY, 47)) {
            let mut b: [u8; 47] = bytes.try_into().unwrap();
            b[6] &= !0x40; // the spare bit is not kept
            proptest::prop_assert_eq!(IndexEntry::decode(&b).encode(), b);
        }
    }

    #[test]
    fn decodes_the_worked_example() {
        let e = IndexEntry::decode(&MOLINARI);
        assert_eq!((e.offset, e.length, e.flags), (1357, 17, 0));
        assert_eq!(
            (e.white, e.black, e.event, e.site, e.round),
            (9, 10, 5, 9, 3)
        );
        assert_eq!(e.game_result(), GameResult::BlackWins);
        assert_eq!((e.var_code, e.comment_code, e.nag_code), (0, 0, 0));
        assert_eq!(e.eco, 15721);
        assert_eq!(e.game_date().to_string(), "1979.??.??");
        assert_eq!(e.game_event_date(), None);
        assert_eq!((e.white_rating(), e.black_rating()), (None, None));
        assert_eq!((e.stored_line, e.matsig, e.plies), (107, 0x6A86A8, 10));
        assert_eq!(e.home_pawn_count, 4);
        assert_eq!(e.home_pawns, [0xb5, 0xd9, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn high_bits_of_ids_length_flags_and_plies() {
        let mut b = [0u8; 47];
        b[6] = 0x80 | 0x21; // length bit 16, custom flags 1 and 6
        b[7..9].copy_from_slice(&0x0008u16.to_be_bytes()); // D
        b[9] = 0xAB;
        b[14] = 0b1011_1011; // event 101, site 110, round 11
        b[37] = 76;
        b[38] = 0x40 | 5;
        let e = IndexEntry::decode(&b);
        assert_eq!(e.length, 1 << 16);
        assert_eq!(e.flags, 0x21 << 16 | 8);
        assert!(e.is_deleted());
        assert_eq!((e.white, e.black), (0xA << 16, 0xB << 16));
        assert_eq!((e.event, e.site, e.round), (5 << 16, 6 << 16, 3 << 16));
        assert_eq!((e.plies, e.home_pawn_count), (256 + 76, 5));
    }

    #[test]
    fn ratings_and_event_dates() {
        let mut b = [0u8; 47];
        b[29..31].copy_from_slice(&(4u16 << 12 | 1800).to_be_bytes());
        b[31..33].copy_from_slice(&2700u16.to_be_bytes());
        // Date 2020.05.17, EventDate 2020.05.15 (same year: offset 4).
        let date = 2020u32 << 9 | 5 << 5 | 17;
        let event = 4u32 << 9 | 5 << 5 | 15;
        b[25..29].copy_from_slice(&(event << 20 | date).to_be_bytes());
        let e = IndexEntry::decode(&b);
        assert_eq!(
            e.white_rating(),
            Some(Rating {
                value: 1800,
                kind: RatingType::Uscf
            })
        );
        assert_eq!(
            e.black_rating(),
            Some(Rating {
                value: 2700,
                kind: RatingType::Elo
            })
        );
        assert_eq!(e.game_date().to_string(), "2020.05.17");
        assert_eq!(e.game_event_date().unwrap().to_string(), "2020.05.15");
    }

    #[test]
    fn version_300_entries_have_no_byte_6() {
        let mut b = [0u8; 46];
        b[5] = 17;
        b[6..8].copy_from_slice(&8u16.to_be_bytes());
        let e = IndexEntry::decode_v300(&b);
        assert_eq!(e.length, 17);
        assert!(e.is_deleted());
    }
}
