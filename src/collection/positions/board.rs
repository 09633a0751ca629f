//! A position as the layers above the collection hold it: an opaque handle, found from the
//! standard start, from a FEN, or by a move played from another position
//! ([`super::tree::PositionMoves::after`]). The tree (`vfs`) keeps one per position folder and
//! asks the collection everything about it; only this module and its siblings know chess.

use shakmaty::Chess;

use super::key::position_key;
use crate::error::Result;

/// A position of the opening tree or of a search by FEN.
#[derive(Clone, Debug, Default)]
pub struct Board(pub(super) Chess);

impl Board {
    /// The standard start position.
    pub fn start() -> Board {
        Board(Chess::default())
    }

    /// The position `fen` describes (invalid castling rights and en-passant squares are
    /// dropped); the reason when it describes none.
    pub fn from_fen(fen: &str) -> Result<Board> {
        crate::game::replay::position_from_fen(fen).map(Board)
    }

    /// The position's FEN (as a PGN `FEN` tag writes it).
    pub fn fen(&self) -> String {
        crate::game::replay::fen_of(&self.0)
    }

    /// The key the position index finds it by ([`position_key`]).
    pub fn key(&self) -> u64 {
        position_key(&self.0)
    }
}

impl From<Chess> for Board {
    fn from(pos: Chess) -> Board {
        Board(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fen_is_read_and_written_back() {
        let fen = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(Board::from_fen(fen).unwrap().fen(), fen);
        assert_eq!(Board::start().key(), position_key(&Chess::default()));
        assert!(Board::from_fen("not a fen").is_err());
    }
}
