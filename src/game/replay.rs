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
        Ply::Null => null_move(pos).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidInput,
                "a null move is not possible while in check",
            )
        }),
    }
}

/// The position after a null move in `pos`: the same board with the other side to move (no
/// en passant), the move number one more after Black's, as after any move of Black's (so
/// the move after it is numbered as SCID numbers it: `2. Nf3 -- 3. Bc4`); `None` in check.
pub fn null_move(pos: &Chess) -> Option<Chess> {
    let black = pos.turn() == shakmaty::Color::Black;
    let mode = pos.castles().mode();
    let passed = pos.clone().swap_turn().ok()?;
    if !black {
        return Some(passed);
    }
    let mut setup = passed.to_setup(EnPassantMode::Legal);
    setup.fullmoves = setup.fullmoves.saturating_add(1);
    Some(<Chess as shakmaty::FromSetup>::from_setup(setup, mode).unwrap_or(passed))
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

    #[test]
    fn the_move_after_blacks_null_move_has_the_next_number_as_scid_writes_it() {
        let pgn = "[Result \"*\"]\n\n1. e4 e5 2. Nf3 -- 3. Bc4 Nc6 4. -- Nf6 5. d3 *\n";
        let game = crate::text::pgn_parse::one_game(pgn.as_bytes()).unwrap();
        let text = crate::text::pgn::render(&game).unwrap();
        assert!(
            text.contains("1. e4 e5 2. Nf3 -- 3. Bc4 Nc6 4. -- Nf6 5. d3 *"),
            "{text}"
        );
        let after = null_move(&Chess::default()).unwrap();
        assert_eq!(
            after.fullmoves().get(),
            1,
            "White's null move: still move 1"
        );
        let again = null_move(&after).unwrap();
        assert_eq!(again.fullmoves().get(), 2, "Black's: move 2");
    }
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
