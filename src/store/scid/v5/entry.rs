//! One .si5 index entry: twelve little-endian 32-bit words and 8 bytes of home-pawn data
//! (SCID 5's `encode_IndexEntry`/`decode_IndexEntry`), read into the same [`IndexEntry`] as a
//! SCID 4 entry.

use crate::store::scid::entry::IndexEntry;

/// Bytes of one entry.
pub const ENTRY_LEN: usize = 56;

/// The word at `at` (little-endian).
fn word(e: &[u8; ENTRY_LEN], at: usize) -> u32 {
    u32::from_le_bytes(e[at..at + 4].try_into().expect("4 bytes"))
}

/// `v` split into its top `bits` and the rest.
fn split(v: u32, bits: u32) -> (u32, u32) {
    (v >> (32 - bits), v & (u32::MAX >> bits))
}

/// The bits of the plies count, above the flags in their word.
const PLIES_BITS: u32 = 10;

/// The flags of an entry alone (the deleted mark is one), without decoding the rest.
pub fn decode_flags(e: &[u8; ENTRY_LEN]) -> u32 {
    split(word(e, 28), PLIES_BITS).1
}

/// Decode an entry. The rating types are read as SCID 5 reads them since September 2024
/// (White's in bits 5-7, Black's in bits 2-4 of the byte above the ECO code); SCID 5.0.x
/// before that wrote Black's shifted by 3, see [`old_black_rating_type`].
pub fn decode(e: &[u8; ENTRY_LEN]) -> IndexEntry {
    let (comment_code, white) = split(word(e, 0), 4);
    let (var_code, black) = split(word(e, 4), 4);
    let (nag_code, event) = split(word(e, 8), 4);
    let (chess960, round) = split(word(e, 16), 1);
    let (white_elo, date) = split(word(e, 20), 12);
    let (black_elo, event_date) = split(word(e, 24), 12);
    let (plies, flags) = split(word(e, 28), PLIES_BITS);
    let (length, offset_high) = split(word(e, 32), 17);
    let (stored_line, matsig) = split(word(e, 40), 8);
    let (types, eco) = split(word(e, 44), 16);
    let mut home_pawns = [0u8; 8];
    home_pawns.copy_from_slice(&e[48..56]);
    IndexEntry {
        offset: u64::from(offset_high) << 32 | u64::from(word(e, 36)),
        length,
        flags,
        white,
        black,
        event,
        site: word(e, 12),
        round,
        result: (types & 3) as u8,
        var_code: var_code as u8,
        comment_code: comment_code as u8,
        nag_code: nag_code as u8,
        eco: eco as u16,
        date,
        event_date: 0,
        white_elo: white_elo as u16,
        white_rating_type: ((types >> 5) & 7) as u8,
        black_elo: black_elo as u16,
        black_rating_type: ((types >> 2) & 7) as u8,
        stored_line: stored_line as u8,
        matsig,
        plies: plies as u16,
        home_pawn_count: (types >> 8) as u8,
        home_pawns,
        chess960: chess960 == 1,
        event_date_full: Some(event_date),
    }
}

/// Encode an entry as SCID 5 does; the exact inverse of [`decode`]. Each field is masked to
/// its width: name IDs 28 bits (site 32, round 31), Elo 12, dates 20, plies 10, flags 22,
/// length 17, offset 47, matsig 24, rating types 3, result 2.
pub fn encode(e: &IndexEntry) -> [u8; ENTRY_LEN] {
    let pack = |a: u32, bits: u32, b: u32| {
        (a & (u32::MAX >> (32 - bits))) << (32 - bits) | (b & (u32::MAX >> bits))
    };
    let types = u32::from(e.home_pawn_count) << 8
        | u32::from(e.white_rating_type & 7) << 5
        | u32::from(e.black_rating_type & 7) << 2
        | u32::from(e.result & 3);
    let words = [
        pack(e.comment_code.into(), 4, e.white),
        pack(e.var_code.into(), 4, e.black),
        pack(e.nag_code.into(), 4, e.event),
        e.site,
        pack(e.chess960.into(), 1, e.round),
        pack(e.white_elo.into(), 12, e.date),
        pack(e.black_elo.into(), 12, e.event_date_full.unwrap_or(0)),
        pack(e.plies.into(), PLIES_BITS, e.flags),
        pack(e.length, 17, (e.offset >> 32) as u32),
        e.offset as u32,
        pack(e.stored_line.into(), 8, e.matsig),
        pack(types, 16, e.eco.into()),
    ];
    let mut out = [0u8; ENTRY_LEN];
    for (i, w) in words.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    out[48..56].copy_from_slice(&e.home_pawns);
    out
}

/// The Black rating type SCID 5.0.x wrote before September 2024 into an entry read as `e`:
/// that encoder shifted it by 3 (bits 3-5, its top bit landing on White's lowest), so bit 2
/// was always 0. `None` when the entry cannot be one of those (bit 2 set) or when both
/// readings agree (no type).
pub fn old_black_rating_type(e: &IndexEntry) -> Option<u8> {
    let bits = (e.white_rating_type & 7) << 5 | (e.black_rating_type & 7) << 2;
    if bits & 0b100 != 0 {
        return None;
    }
    let old = (bits >> 3) & 7;
    (old != e.black_rating_type).then_some(old)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn encode_inverts_decode(bytes in proptest::collection::vec(proptest::num::u8::ANY, ENTRY_LEN)) {
            let b: [u8; ENTRY_LEN] = bytes.try_into().unwrap();
            proptest::prop_assert_eq!(encode(&decode(&b)), b);
        }
    }

    #[test]
    fn the_words_hold_their_fields() {
        let e = IndexEntry {
            offset: (5 << 32) | 7,
            length: (1 << 17) - 1,
            flags: 1 << 21 | 8,
            white: (1 << 28) - 1,
            black: 2,
            event: 3,
            site: u32::MAX,
            round: 4,
            result: 2,
            comment_code: 15,
            eco: 0xBEEF,
            date: 2020 << 9 | 1 << 5 | 2,
            white_elo: 4000,
            white_rating_type: 6,
            black_rating_type: 1,
            plies: 1023,
            home_pawn_count: 16,
            chess960: true,
            event_date_full: Some(1999 << 9),
            ..IndexEntry::default()
        };
        let b = encode(&e);
        assert_eq!(decode(&b), e);
        assert_eq!(word(&b, 0), 15 << 28 | ((1 << 28) - 1));
        assert_eq!(word(&b, 16), 1 << 31 | 4);
        assert_eq!(word(&b, 32), ((1 << 17) - 1) << 15 | 5);
        assert_eq!(word(&b, 44), (16 << 8 | 6 << 5 | 1 << 2 | 2) << 16 | 0xBEEF);
        assert!(decode(&b).is_deleted());
    }

    #[test]
    fn old_black_rating_types() {
        let entry = |white, black| IndexEntry {
            white_rating_type: white,
            black_rating_type: black,
            ..IndexEntry::default()
        };
        // The old encoder wrote Black's type 1 (Rating) as bits 3-5 = 1: read today as 2.
        assert_eq!(old_black_rating_type(&entry(0, 2)), Some(1));
        // Its type 4 (USCF) set White's lowest bit: read as White 1, Black 0.
        assert_eq!(old_black_rating_type(&entry(1, 0)), Some(4));
        // Bit 2 set: only today's encoder writes that.
        assert_eq!(old_black_rating_type(&entry(0, 1)), None);
        assert_eq!(old_black_rating_type(&entry(0, 0)), None);
    }
}
