//! Text formats: rendering the game model as PGN (and, later, parsing it back).

pub mod pgn;
pub mod pgn_parse;
