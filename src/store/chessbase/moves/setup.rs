//! A game's start position when it is not the standard one: 28 bytes before the moves.
//!
//! Byte 1: the en passant file (low four bits, 1 = a, 0 = none) and the side to move (bit 4,
//! set for Black); byte 2: castling rights (bit 0 White O-O-O, 1 White O-O, 2 Black O-O-O,
//! 3 Black O-O); byte 3: the move number (0 reads as 1); then 24 bytes of bits, most
//! significant first, for the squares a1, a2, …, h8: `0` an empty square, `1` and four bits
//! a piece (`0001` king, `0010` queen, `0011` knight, `0100` bishop, `0101` rook, `0110` pawn;
//! Black's with the first of the four bits set).
//!
//! A Chess960 game's (encoding mode 10) has 8 bytes more: the squares (ChessBase's numbers,
//! a1 = 0, b1 = 8) of the white and the black king, White's rook of O-O and of O-O-O,
//! Black's of O-O and of O-O-O, and the start's number 0–959 (two bytes, big-endian). The
//! castling rights name these rooks, written as ChessBase's export writes them (Shredder-FEN:
//! the rooks' files, `GAga`). Where the number is not below 960 the bytes are damaged (games
//! of ChessBase's own Mega Database, whose other rook squares are off the board too);
//! ChessBase's export of such a game gives it no castling rights, nor does gamefs.

use shakmaty::{CastlingMode, Chess, Color, Position};

use super::pieces::square;
use crate::error::{Error, Result};
use crate::game::replay::{STANDARD_FEN, fen_of, position_from_fen_as};

/// The length of a start position.
pub(super) const LEN: usize = 28;

/// The bytes a Chess960 game's start position has after the [`LEN`] of any other.
pub(super) const CHESS960_LEN: usize = 8;

/// Reads bits most significant first.
struct Bits<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    /// The next bit; `None` past the end.
    fn next(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at / 8)?;
        let bit = (byte >> (7 - self.at % 8)) & 1;
        self.at += 1;
        Some(bit)
    }

    /// The next `n` bits as a number.
    fn take(&mut self, n: u32) -> Option<u8> {
        (0..n).try_fold(0, |acc, _| Some(acc << 1 | self.next()?))
    }
}

/// The FEN letter of ChessBase's four-bit piece code.
fn letter(code: u8) -> Option<char> {
    let white = match code & 0b0111 {
        1 => 'K',
        2 => 'Q',
        3 => 'N',
        4 => 'B',
        5 => 'R',
        6 => 'P',
        _ => return None,
    };
    Some(if code & 0b1000 != 0 {
        white.to_ascii_lowercase()
    } else {
        white
    })
}

/// An error in a start position.
fn bad(what: String) -> Error {
    Error::corrupt_record(format!("start position: {what}"))
}

/// The position `bytes` (at least [`LEN`]) describe, checked to be a legal chess position.
pub(super) fn read(bytes: &[u8]) -> Result<Chess> {
    let rights: String = [(1, 'K'), (0, 'Q'), (3, 'k'), (2, 'q')]
        .iter()
        .filter(|(bit, _)| bytes.get(2).is_some_and(|b| b >> bit & 1 != 0))
        .map(|&(_, c)| c)
        .collect();
    position(bytes, &rights, CastlingMode::Standard)
}

/// The Chess960 position `bytes` (at least [`LEN`] and [`CHESS960_LEN`]) describe, checked
/// to be legal, and its FEN as ChessBase's export writes it (rooks by file: `GAga`).
pub(super) fn read_chess960(bytes: &[u8]) -> Result<(Chess, String)> {
    let extra = bytes
        .get(LEN..LEN + CHESS960_LEN)
        .ok_or_else(|| bad("cut short".to_owned()))?;
    let number = u16::from_be_bytes([extra[6], extra[7]]);
    let mut rights = String::new();
    if number < 960 {
        // Bit of byte 2, rook's byte, side.
        for (bit, at, color) in [
            (1, 2, Color::White),
            (0, 3, Color::White),
            (3, 4, Color::Black),
            (2, 5, Color::Black),
        ] {
            if bytes[2] >> bit & 1 != 0 && extra[at] < 64 {
                let file = square(extra[at]).file().char();
                rights.push(match color {
                    Color::White => file.to_ascii_uppercase(),
                    Color::Black => file,
                });
            }
        }
    }
    let pos = position(bytes, &rights, CastlingMode::Chess960)?;
    let fen = shredder_fen(&pos);
    Ok((pos, fen))
}

/// A Chess960 game from the standard position (a mode-10 record without a start position).
pub(super) fn chess960_standard() -> (Chess, String) {
    let pos = position_from_fen_as(STANDARD_FEN, CastlingMode::Chess960)
        .expect("the standard position is legal");
    let fen = shredder_fen(&pos);
    (pos, fen)
}

/// The FEN of `pos` with its castling rights as rooks' files (Shredder-FEN), as ChessBase's
/// export writes a Chess960 game's.
pub(super) fn shredder_fen(pos: &Chess) -> String {
    let fen = fen_of(pos);
    let rights = pos.castles().castling_rights();
    let mut letters = String::new();
    for color in Color::ALL {
        for rook in (rights & color.backrank()).into_iter().rev() {
            let file = rook.file().char();
            letters.push(match color {
                Color::White => file.to_ascii_uppercase(),
                Color::Black => file,
            });
        }
    }
    if letters.is_empty() {
        letters.push('-');
    }
    fen.split(' ')
        .enumerate()
        .map(|(i, field)| if i == 2 { letters.as_str() } else { field })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The position `bytes` describe with castling rights `rights` (FEN letters) in `mode`.
fn position(bytes: &[u8], rights: &str, mode: CastlingMode) -> Result<Chess> {
    let bytes = bytes
        .get(..LEN)
        .ok_or_else(|| bad("cut short".to_owned()))?;
    let mut board = [[None::<char>; 8]; 8];
    let mut bits = Bits {
        bytes: &bytes[4..],
        at: 0,
    };
    for index in 0..64 {
        let cut = || bad("the squares' bits run past 24 bytes".to_owned());
        if bits.next().ok_or_else(cut)? == 0 {
            continue;
        }
        let code = bits.take(4).ok_or_else(cut)?;
        let sq = square(index);
        board[sq.rank() as usize][sq.file() as usize] =
            Some(letter(code).ok_or_else(|| bad(format!("piece code 1{code:04b} on {sq}")))?);
    }
    let mut fen = String::with_capacity(90);
    for (rank, squares) in board.iter().enumerate().rev() {
        let mut empty = 0;
        for square in squares {
            match *square {
                Some(c) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let black = bytes[1] & 0x10 != 0;
    fen.push_str(if black { " b " } else { " w " });
    fen.push_str(if rights.is_empty() { "-" } else { rights });
    let moves = u32::from(bytes[3].max(1));
    let plain = format!("{fen} - 0 {moves}");
    match bytes[1] & 0x0F {
        file @ 1..=8 => {
            let ep = format!(
                "{fen} {}{} 0 {moves}",
                char::from(b'a' + file - 1),
                if black { 3 } else { 6 }
            );
            // ChessBase sets the file after any double step; where no capture is possible
            // the position is the same without it.
            position_from_fen_as(&ep, mode).or_else(|_| position_from_fen_as(&plain, mode))
        }
        _ => position_from_fen_as(&plain, mode),
    }
    .map_err(|e| bad(e.message().to_owned()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Bits for `pieces` (square index, four-bit code) with every other square empty, after
    /// `head` (the start position's first four bytes).
    pub(in crate::store::chessbase::moves) fn encode(
        pieces: &[(u8, u8)],
        head: [u8; 4],
    ) -> Vec<u8> {
        let mut bits = Vec::new();
        for index in 0..64 {
            match pieces.iter().find(|p| p.0 == index) {
                Some(&(_, code)) => {
                    bits.push(1);
                    bits.extend((0..4).rev().map(|i| code >> i & 1));
                }
                None => bits.push(0),
            }
        }
        bits.resize(192, 0);
        let mut out = head.to_vec();
        out.extend(bits.chunks(8).map(|c| c.iter().fold(0, |a, &b| a << 1 | b)));
        out
    }

    #[test]
    fn reads_a_position_with_castling_and_black_to_move() {
        // White king e1 (index 32), rook h1 (56); black king e8 (39), pawn a7 (6).
        let bytes = encode(
            &[(32, 0b0001), (56, 0b0101), (39, 0b1001), (6, 0b1110)],
            [1, 0x10, 0b0010, 40],
        );
        let pos = read(&bytes).unwrap();
        assert_eq!(fen_of(&pos), "4k3/p7/8/8/8/8/8/4K2R b K - 0 40");
    }

    #[test]
    fn refuses_a_bad_piece_code_and_a_short_record() {
        let bytes = encode(&[(0, 0b0111)], [1, 0, 0, 1]);
        assert!(read(&bytes).unwrap_err().message().contains("piece code"));
        assert!(read(&bytes[..10]).is_err());
        // No kings: not a legal position.
        assert!(read(&encode(&[], [1, 0, 0, 1])).is_err());
    }
}
