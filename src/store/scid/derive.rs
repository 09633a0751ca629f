//! TEMPORARY stub until the encoder branch lands.
use crate::error::{Error, ErrorKind, Result};
use crate::game::ChessGame;
/// Stub.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Derived {
    pub flags_sxy: u32,
    pub result: u8,
    pub var_code: u8,
    pub comment_code: u8,
    pub nag_code: u8,
    pub eco: u16,
    pub date: u32,
    pub event_date: u16,
    pub white_elo: u16,
    pub white_rating_type: u8,
    pub black_elo: u16,
    pub black_rating_type: u8,
    pub stored_line: u8,
    pub matsig: u32,
    pub plies: u16,
    pub home_pawn_count: u8,
    pub home_pawns: [u8; 8],
}
/// Stub.
pub fn derive(_game: &ChessGame) -> Result<Derived> {
    Err(Error::new(ErrorKind::Unsupported, "encoder not merged yet"))
}
