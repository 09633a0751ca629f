//! Playing a game's plies on a board: the start position, and the position after a move or a null move.
//!
//! Shared by every decoder (which must know the board to turn stored bytes into moves) and the
//! renderers (which need the board for SAN).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, PositionError};

use super::chess::{Ply, StartPosition};
use crate::error::{Error, ErrorKind, Result};

/// The FEN of the standard start position.
pub const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The position a game starts from. FENs are accepted as chess databases accept them:
/// castling rights that do not fit the board and impossible en-passant squares are dropped.
pub fn start_position(start: &StartPosition) -> Result<Chess> {
    match start {
        StartPosition::Standard => Ok(Chess::default()),
        StartPosition::Fen(fen) => position_from_fen(fen),
        StartPosition::Chess960(fen) => position_from_fen_as(fen, CastlingMode::Chess960),
    }
}

/// Parse a FEN into a legal position (standard chess only).
pub fn position_from_fen(fen: &str) -> Result<Chess> {
    position_from_fen_as(fen, CastlingMode::Standard)
}

/// Parse a FEN into a legal position whose castling follows `mode`.
pub fn position_from_fen_as(fen: &str, mode: CastlingMode) -> Result<Chess> {
    let parsed: Fen = fen
        .parse()
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("bad FEN {fen:?}: {e}")))?;
    parsed
        .into_position(mode)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .map_err(|e| {
            Error::new(
                ErrorKind::InvalidInput,
                format!("illegal FEN position {fen:?}: {e}"),
            )
        })
}

/// The position after `ply`. The move must be legal in `pos` (callers check); a null move
/// passes the turn and is refused when the side to move is in check.
pub fn play(pos: &Chess, ply: &Ply) -> Result<Chess> {
    match ply {
        Ply::Move(m) => {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            Ok(next)
        }
        Ply::Null => pos.clone().swap_turn().map_err(|_| {
            Error::new(
                ErrorKind::InvalidInput,
                "a null move is not possible while in check",
            )
        }),
    }
}

/// Play `ply` on `pos` in place, as [`play`] does (the hot path of decoders: no copy).
pub fn play_in_place(pos: &mut Chess, ply: &Ply) -> Result<()> {
    match ply {
        Ply::Move(m) => {
            pos.play_unchecked(*m);
            Ok(())
        }
        Ply::Null => {
            *pos = play(pos, ply)?;
            Ok(())
        }
    }
}

/// The FEN of a position, as written in PGN `FEN` tags.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Move, Role, Square};

    #[test]
    fn null_move_passes_the_turn() {
        let pos = Chess::default();
        let after = play(&pos, &Ply::Null).unwrap();
        assert_eq!(after.turn(), shakmaty::Color::Black);
    }

    #[test]
    fn null_move_in_check_is_refused() {
        let pos = position_from_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 1").unwrap();
        assert!(play(&pos, &Ply::Null).is_err());
    }

    #[test]
    fn plays_a_move() {
        let pos = Chess::default();
        let m = Move::Normal {
            role: Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        };
        let after = play(&pos, &Ply::Move(m)).unwrap();
        assert_eq!(
            fen_of(&after),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
    }

    #[test]
    fn bad_fen_is_an_error() {
        assert!(position_from_fen("not a fen").is_err());
    }
}
