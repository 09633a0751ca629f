//! What one byte of ChessBase's compact move encoding (encoding mode 0) means: the byte, less
//! the number of moves decoded before it, goes through ChessBase's translation table, and the
//! translated value names a move of a piece by its slot, or a marker.
//!
//! Facts from Morphy's notes on the format (docs/formats/chessbase.md); the table's 256
//! values are ChessBase's own (the same in Morphy's notes and in cbh2pgn, MIT), and every
//! single-byte move the table gives was checked against cbh2pgn's map of the raw bytes.

/// ChessBase's translation table for encoding mode 0: raw byte (less the moves decoded
/// before it) to the code [`Code::of`] reads.
#[rustfmt::skip]
const TRANSLATION: [u8; 256] = [
    0xA2, 0x95, 0x43, 0xF5, 0xC1, 0x3D, 0x4A, 0x6C, 0x53, 0x83, 0xCC, 0x7C, 0xFF, 0xAE, 0x68, 0xAD,
    0xD1, 0x92, 0x8B, 0x8D, 0x35, 0x81, 0x5E, 0x74, 0x26, 0x8E, 0xAB, 0xCA, 0xFD, 0x9A, 0xF3, 0xA0,
    0xA5, 0x15, 0xFC, 0xB1, 0x1E, 0xED, 0x30, 0xEA, 0x22, 0xEB, 0xA7, 0xCD, 0x4E, 0x6F, 0x2E, 0x24,
    0x32, 0x94, 0x41, 0x8C, 0x6E, 0x58, 0x82, 0x50, 0xBB, 0x02, 0x8A, 0xD8, 0xFA, 0x60, 0xDE, 0x52,
    0xBA, 0x46, 0xAC, 0x29, 0x9D, 0xD7, 0xDF, 0x08, 0x21, 0x01, 0x66, 0xA3, 0xF1, 0x19, 0x27, 0xB5,
    0x91, 0xD5, 0x42, 0x0E, 0xB4, 0x4C, 0xD9, 0x18, 0x5F, 0xBC, 0x25, 0xA6, 0x96, 0x04, 0x56, 0x6A,
    0xAA, 0x33, 0x1C, 0x2B, 0x73, 0xF0, 0xDD, 0xA4, 0x37, 0xD3, 0xC5, 0x10, 0xBF, 0x5A, 0x23, 0x34,
    0x75, 0x5B, 0xB8, 0x55, 0xD2, 0x6B, 0x09, 0x3A, 0x57, 0x12, 0xB3, 0x77, 0x48, 0x85, 0x9B, 0x0F,
    0x9E, 0xC7, 0xC8, 0xA1, 0x7F, 0x7A, 0xC0, 0xBD, 0x31, 0x6D, 0xF6, 0x3E, 0xC3, 0x11, 0x71, 0xCE,
    0x7D, 0xDA, 0xA8, 0x54, 0x90, 0x97, 0x1F, 0x44, 0x40, 0x16, 0xC9, 0xE3, 0x2C, 0xCB, 0x84, 0xEC,
    0x9F, 0x3F, 0x5C, 0xE6, 0x76, 0x0B, 0x3C, 0x20, 0xB7, 0x36, 0x00, 0xDC, 0xE7, 0xF9, 0x4F, 0xF7,
    0xAF, 0x06, 0x07, 0xE0, 0x1A, 0x0A, 0xA9, 0x4B, 0x0C, 0xD6, 0x63, 0x87, 0x89, 0x1D, 0x13, 0x1B,
    0xE4, 0x70, 0x05, 0x47, 0x67, 0x7B, 0x2F, 0xEE, 0xE2, 0xE8, 0x98, 0x0D, 0xEF, 0xCF, 0xC4, 0xF4,
    0xFB, 0xB0, 0x17, 0x99, 0x64, 0xF2, 0xD4, 0x2A, 0x03, 0x4D, 0x78, 0xC6, 0xFE, 0x65, 0x86, 0x88,
    0x79, 0x45, 0x3B, 0xE5, 0x49, 0x8F, 0x2D, 0xB9, 0xBE, 0x62, 0x93, 0x14, 0xE9, 0xD0, 0x38, 0x9C,
    0xB2, 0xC2, 0x59, 0x5D, 0xB6, 0x72, 0x51, 0xF8, 0x28, 0x7E, 0x61, 0x39, 0xE1, 0xDB, 0x69, 0x80,
];

/// A piece that moves by slot (the king has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    /// The king.
    King,
    /// A queen, by slot.
    Queen,
    /// A rook, by slot.
    Rook,
    /// A bishop, by slot.
    Bishop,
    /// A knight, by slot.
    Knight,
}

/// What a translated byte says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Code {
    /// The null move.
    Null,
    /// Castling on the king's side.
    ShortCastle,
    /// Castling on the queen's side.
    LongCastle,
    /// A piece's move by a file and rank step, each taken modulo 8 (the king's too).
    Step {
        /// Which piece.
        piece: Piece,
        /// Its slot (0 = first).
        slot: u8,
        /// Files to the right, 0..8.
        dx: u8,
        /// Ranks up, 0..8.
        dy: u8,
    },
    /// A pawn's move: the pawn is named by its slot (the file it started on).
    Pawn {
        /// The pawn's slot.
        slot: u8,
        /// 0 one step forward, 1 two steps, 2 capture towards the h-file (for White; Black's
        /// moves are mirrored), 3 capture towards the a-file.
        kind: u8,
    },
    /// The next two bytes are a move by squares.
    TwoBytes,
    /// A byte that stands for nothing.
    Ignore,
    /// A variation starts: what follows is a move from the current position.
    StartVariation,
    /// A variation ends (or, outside any, the game).
    EndVariation,
    /// A value ChessBase does not use.
    Unknown(u8),
}

/// The knight's eight steps in ChessBase's order.
const KNIGHT: [(i8, i8); 8] = [
    (2, 1),
    (1, 2),
    (-1, 2),
    (-2, 1),
    (-2, -1),
    (-1, -2),
    (1, -2),
    (2, -1),
];

/// The king's eight steps in ChessBase's order.
const KING: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// A step as files and ranks modulo 8.
fn wrap((dx, dy): (i8, i8)) -> (u8, u8) {
    (dx.rem_euclid(8) as u8, dy.rem_euclid(8) as u8)
}

/// A line piece's step: `group` 0 along the file, 1 along the rank, 2 up-right diagonal,
/// 3 down-right diagonal; `k` 1..=7 squares.
fn line_step(group: u8, k: u8) -> (u8, u8) {
    match group {
        0 => (0, k),
        1 => (k, 0),
        2 => (k, k),
        _ => (k, 8 - k),
    }
}

/// The code of a queen, rook or bishop move, `offset` codes past its slot's first, whose
/// directions are `groups` (a rook's file and rank, a bishop's diagonals, a queen's all four).
fn line(piece: Piece, slot: u8, offset: u8, groups: &[u8]) -> Code {
    let (dx, dy) = line_step(groups[usize::from(offset / 7)], offset % 7 + 1);
    Code::Step {
        piece,
        slot,
        dx,
        dy,
    }
}

impl Code {
    /// The meaning of raw byte `byte` read after `moves` moves of the game were decoded.
    pub(super) fn read(byte: u8, moves: u8) -> Code {
        Code::of(translate(byte, moves))
    }

    /// The meaning of translated value `c`.
    fn of(c: u8) -> Code {
        const QUEEN: &[u8] = &[0, 1, 2, 3];
        const ROOK: &[u8] = &[0, 1];
        const BISHOP: &[u8] = &[2, 3];
        let knight = |slot: u8, i: u8| {
            let (dx, dy) = wrap(KNIGHT[usize::from(i)]);
            Code::Step {
                piece: Piece::Knight,
                slot,
                dx,
                dy,
            }
        };
        match c {
            0 => Code::Null,
            1..=8 => {
                let (dx, dy) = wrap(KING[usize::from(c - 1)]);
                Code::Step {
                    piece: Piece::King,
                    slot: 0,
                    dx,
                    dy,
                }
            }
            9 => Code::ShortCastle,
            10 => Code::LongCastle,
            11..=38 => line(Piece::Queen, 0, c - 11, QUEEN),
            39..=52 => line(Piece::Rook, 0, c - 39, ROOK),
            53..=66 => line(Piece::Rook, 1, c - 53, ROOK),
            67..=80 => line(Piece::Bishop, 0, c - 67, BISHOP),
            81..=94 => line(Piece::Bishop, 1, c - 81, BISHOP),
            95..=102 => knight(0, c - 95),
            103..=110 => knight(1, c - 103),
            111..=142 => Code::Pawn {
                slot: (c - 111) / 4,
                kind: (c - 111) % 4,
            },
            143..=170 => line(Piece::Queen, 1, c - 143, QUEEN),
            171..=198 => line(Piece::Queen, 2, c - 171, QUEEN),
            199..=212 => line(Piece::Rook, 2, c - 199, ROOK),
            213..=226 => line(Piece::Bishop, 2, c - 213, BISHOP),
            227..=234 => knight(2, c - 227),
            235 => Code::TwoBytes,
            236 => Code::Ignore,
            254 => Code::StartVariation,
            255 => Code::EndVariation,
            other => Code::Unknown(other),
        }
    }
}

/// Raw byte `byte` read after `moves` moves, through the translation table: the value a
/// code, or a byte of a two-byte move, is read from.
pub(super) fn translate(byte: u8, moves: u8) -> u8 {
    TRANSLATION[usize::from(byte.wrapping_sub(moves))]
}

/// The raw byte that reads as `value` after `moves` moves: what ChessBase writes (for tests
/// that make records).
#[cfg(test)]
pub(super) fn raw(value: u8, moves: u8) -> u8 {
    let i = TRANSLATION
        .iter()
        .position(|&v| v == value)
        .unwrap_or_default();
    (i as u8).wrapping_add(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_a_permutation() {
        let mut seen = [false; 256];
        for &v in &TRANSLATION {
            assert!(!seen[usize::from(v)]);
            seen[usize::from(v)] = true;
        }
    }

    #[test]
    fn codes_from_the_notes() {
        // The first move: raw bytes as cbh2pgn's map reads them.
        assert_eq!(Code::read(0x76, 0), Code::ShortCastle);
        assert_eq!(Code::read(0x29, 0), Code::TwoBytes);
        assert_eq!(Code::read(0xAA, 0), Code::Null);
        assert_eq!(Code::read(0xDC, 0), Code::StartVariation);
        assert_eq!(Code::read(0x0C, 0), Code::EndVariation);
        assert_eq!(Code::read(0x9F, 0), Code::Ignore);
        // f-pawn one step; after five moves the same byte reads five places on.
        assert_eq!(Code::read(0x09, 0), Code::Pawn { slot: 5, kind: 0 });
        assert_eq!(Code::read(0x0E, 5), Code::Pawn { slot: 5, kind: 0 });
        // The second queen six squares up and right (cbh2pgn's 0x00).
        assert_eq!(
            Code::read(0x00, 0),
            Code::Step {
                piece: Piece::Queen,
                slot: 1,
                dx: 6,
                dy: 6
            }
        );
        // A king step left wraps to 7.
        assert_eq!(
            Code::of(7),
            Code::Step {
                piece: Piece::King,
                slot: 0,
                dx: 7,
                dy: 0
            }
        );
        assert_eq!(
            Code::of(74),
            Code::Step {
                piece: Piece::Bishop,
                slot: 0,
                dx: 1,
                dy: 7
            }
        );
        assert_eq!(Code::of(240), Code::Unknown(240));
    }
}
