//! Text formats: the game model rendered as PGN, and PGN read back into the model.

pub mod pgn;
pub mod pgn_chunks;
pub mod pgn_parse;
pub mod sgf;
pub mod sgf_parse;
