//! A chess position for the hot paths: replaying every stored move of a game and writing its
//! SAN (a database export decodes and renders millions of moves).
//!
//! shakmaty's [`Chess`] answers every question but looks a square's piece up bitboard by
//! bitboard and computes checks on demand. [`FastBoard`] keeps the same state plus a mailbox
//! (the piece on each square in one load) and the checkers of the side to move (computed once
//! per move: the check suffix of the move just played and the legality of the next move both
//! read them). It plays exactly as [`Chess::play_unchecked`] does; a test compares the two on
//! random games. Questions it has no quick answer for go to shakmaty through
//! [`FastBoard::to_chess`].

use std::num::NonZeroU32;
use std::sync::LazyLock;

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, CastlingSide, Chess, Color, File, FromSetup,
    Move, Piece, Position, PositionError, Role, Setup, Square, attacks,
};

use super::chess::Ply;
use crate::error::{Error, ErrorKind, Result};

/// A legal chess position (standard chess, as [`Chess`] holds it) with a mailbox and its
/// checkers. Made from a [`Chess`] and changed only by [`FastBoard::play`], so it is always a
/// position shakmaty accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastBoard {
    /// The piece kind on each square (its colour is in `by_color`).
    roles: [Option<Role>; 64],
    /// Squares of each piece kind, indexed by `role as usize - 1`.
    by_role: [Bitboard; 6],
    /// Squares of each colour, indexed by `color as usize` (black 0, white 1).
    by_color: [Bitboard; 2],
    /// Pieces of the side not to move that give check.
    checkers: Bitboard,
    /// Castling rights as the squares of the rooks that may still castle (corners only).
    castling: Bitboard,
    /// The square behind a pawn that just moved two squares (shakmaty's "maybe" square).
    ep_square: Option<Square>,
    /// The side to move.
    turn: Color,
    /// Plies since the last capture or pawn move.
    halfmoves: u32,
    /// The move number, increased after every black move.
    fullmoves: NonZeroU32,
}

/// The squares a `piece` on `sq` attacks when `occupied` are the occupied squares: shakmaty's
/// `attacks::attacks`, inlined into the hot paths that ask it for every move.
#[inline(always)]
pub fn piece_attacks(piece: Piece, sq: Square, occupied: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => attacks::pawn_attacks(piece.color, sq),
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
    }
}

/// The slot of `role` in [`FastBoard::by_role`].
fn role_slot(role: Role) -> usize {
    role as usize - 1
}

impl From<&Chess> for FastBoard {
    fn from(pos: &Chess) -> FastBoard {
        let board = pos.board();
        let mut roles = [None; 64];
        for (sq, piece) in board.iter() {
            roles[sq as usize] = Some(piece.role);
        }
        let by_role = Role::ALL.map(|role| board.by_role(role));
        FastBoard {
            roles,
            by_role,
            by_color: [board.by_color(Color::Black), board.by_color(Color::White)],
            checkers: pos.checkers(),
            castling: pos.castles().castling_rights(),
            ep_square: pos.maybe_ep_square(),
            turn: pos.turn(),
            halfmoves: pos.halfmoves(),
            fullmoves: pos.fullmoves(),
        }
    }
}

/// The standard start position, made once (every game without a FEN starts from it).
static STANDARD: LazyLock<FastBoard> = LazyLock::new(|| FastBoard::from(&Chess::default()));

impl Default for FastBoard {
    /// The standard start position.
    fn default() -> FastBoard {
        *STANDARD
    }
}

impl FastBoard {
    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The move number (1 at the start, increased after every black move).
    pub fn fullmoves(&self) -> NonZeroU32 {
        self.fullmoves
    }

    /// The kind of piece on `sq`, if any: one load.
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        self.roles[sq as usize]
    }

    /// The squares of `color`'s pieces.
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }

    /// The squares of pieces of kind `role`, both colours.
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role_slot(role)]
    }

    /// The squares of `piece`.
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }

    /// Every occupied square.
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The square of `color`'s king.
    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.by_piece(Piece {
            color,
            role: Role::King,
        })
        .first()
    }

    /// The pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// The rook `color` may castle with on `side`, if it still has that right.
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let file = if side.is_king_side() {
            File::H
        } else {
            File::A
        };
        let corner = Square::from_coords(file, color.backrank());
        self.castling.contains(corner).then_some(corner)
    }

    /// The en-passant square after a double pawn push (whether or not a capture is possible,
    /// as shakmaty's `maybe_ep_square`).
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// `attacker`'s pieces that attack `sq` when `occupied` are the occupied squares (as
    /// shakmaty's `Board::attacks_to`).
    pub fn attacks_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        self.by_color(attacker)
            & ((attacks::rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens))
                | (attacks::bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens))
                | (attacks::knight_attacks(sq) & self.by_role(Role::Knight))
                | (attacks::king_attacks(sq) & self.by_role(Role::King))
                | (attacks::pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn)))
    }

    /// The same position as shakmaty's [`Chess`], for the questions without a quick answer.
    pub fn to_chess(&self) -> Chess {
        let bb = |role| self.by_role(role);
        let board = Board::try_from_bitboards(
            ByRole {
                pawn: bb(Role::Pawn),
                knight: bb(Role::Knight),
                bishop: bb(Role::Bishop),
                rook: bb(Role::Rook),
                queen: bb(Role::Queen),
                king: bb(Role::King),
            },
            ByColor {
                black: self.by_color(Color::Black),
                white: self.by_color(Color::White),
            },
        )
        .expect("the bitboards are changed together, so they agree");
        let setup = Setup {
            board,
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: self.turn,
            castling_rights: self.castling,
            ep_square: self.ep_square,
            remaining_checks: None,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        };
        // The position was reached by legal moves from one shakmaty accepted, so it accepts
        // this one too; its plausibility heuristics are not applied twice.
        Chess::from_setup(setup, CastlingMode::Standard)
            .or_else(PositionError::ignore_impossible_check)
            .or_else(PositionError::ignore_too_much_material)
            .expect("a position reached by legal moves is a legal position")
    }

    /// Play `ply` as [`crate::game::replay::play_in_place`] plays it on a [`Chess`]: the
    /// move must be legal (callers check); a null move is refused when in check.
    pub fn play(&mut self, ply: &Ply) -> Result<()> {
        match ply {
            Ply::Move(m) => {
                self.play_move(*m);
                Ok(())
            }
            Ply::Null => {
                if self.checkers.any() {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        "a null move is not possible while in check",
                    ));
                }
                // As shakmaty's `swap_turn`: counters stay, the en-passant square goes.
                self.turn = !self.turn;
                self.ep_square = None;
                Ok(())
            }
        }
    }

    /// Take `role` of `color` off `sq`.
    fn lift(&mut self, sq: Square, color: Color, role: Role) {
        let bit = Bitboard::from(sq);
        self.by_role[role_slot(role)] ^= bit;
        self.by_color[color as usize] ^= bit;
        self.roles[sq as usize] = None;
    }

    /// Put `role` of `color` on the empty square `sq`.
    fn put(&mut self, sq: Square, color: Color, role: Role) {
        let bit = Bitboard::from(sq);
        self.by_role[role_slot(role)] ^= bit;
        self.by_color[color as usize] ^= bit;
        self.roles[sq as usize] = Some(role);
    }

    /// A legal move, played as shakmaty's `do_move` plays it, then the new checkers.
    fn play_move(&mut self, m: Move) {
        let us = self.turn;
        self.ep_square = None;
        self.halfmoves = self.halfmoves.saturating_add(1);
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !us;
        let Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } = m
        else {
            self.play_special(us, m);
            self.checkers = match self.king_of(!us) {
                Some(king) => self.attacks_to(king, us, self.occupied()),
                None => Bitboard::EMPTY,
            };
            return;
        };
        if role == Role::Pawn {
            self.halfmoves = 0;
            if (to as u32).abs_diff(from as u32) == 16 {
                self.ep_square = Some(Square::new((to as u32 + from as u32) / 2));
            }
        }
        // Rights are kept as rook squares: a king move drops its side's, a rook leaving its
        // corner or taken there drops that one (only rooks stand on the corners rights name).
        if role == Role::King {
            self.castling &= !Bitboard::from(us.backrank());
        }
        self.castling &= !(Bitboard::from(from) | Bitboard::from(to));
        if let Some(taken) = capture {
            self.halfmoves = 0;
            self.lift(to, !us, taken);
        }
        let placed = promotion.unwrap_or(role);
        self.lift(from, us, role);
        self.put(to, us, placed);
        self.checkers = match self.king_of(!us) {
            Some(king) => self.checks_after(us, placed, from, to, king),
            None => Bitboard::EMPTY,
        };
    }

    /// Castling, en passant or a piece put on the board (the rare moves).
    fn play_special(&mut self, us: Color, m: Move) {
        match m {
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                self.lift(king, us, Role::King);
                self.lift(rook, us, Role::Rook);
                self.put(side.rook_to(us), us, Role::Rook);
                self.put(side.king_to(us), us, Role::King);
                self.castling &= !Bitboard::from(us.backrank());
            }
            Move::EnPassant { from, to } => {
                self.halfmoves = 0;
                self.lift(Square::from_coords(to.file(), from.rank()), !us, Role::Pawn);
                self.lift(from, us, Role::Pawn);
                self.put(to, us, Role::Pawn);
            }
            Move::Put { role, to } => self.put(to, us, role),
            Move::Normal { .. } => unreachable!("played by play_move"),
        }
    }

    /// The checkers of `king` after `us` moved a piece from `from` to `to`, where it is now
    /// a `placed`: the piece itself, and a slider of ours behind `from` on a line to the
    /// king (nothing else changed on the board).
    fn checks_after(
        &self,
        us: Color,
        placed: Role,
        from: Square,
        to: Square,
        king: Square,
    ) -> Bitboard {
        let occupied = self.occupied();
        let reach = piece_attacks(
            Piece {
                color: us,
                role: placed,
            },
            to,
            occupied,
        );
        let mut checkers = if reach.contains(king) {
            Bitboard::from(to)
        } else {
            Bitboard::EMPTY
        };
        let line = attacks::ray(king, from);
        if line.contains(from) && !line.contains(to) {
            let queens = self.by_role(Role::Queen);
            let sliders = if king.file() == from.file() || king.rank() == from.rank() {
                attacks::rook_attacks(king, occupied) & (self.by_role(Role::Rook) | queens)
            } else {
                attacks::bishop_attacks(king, occupied) & (self.by_role(Role::Bishop) | queens)
            };
            checkers |= sliders & line & self.by_color(us);
        }
        checkers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::replay::{fen_of, position_from_fen};
    use crate::testing::Rng;

    /// Play `m` on both boards and compare everything, shakmaty's way back included.
    fn play_both(pos: &mut Chess, fast: &mut FastBoard, m: Move) {
        pos.play_unchecked(m);
        fast.play(&Ply::Move(m)).unwrap();
        assert_eq!(*fast, FastBoard::from(&*pos), "{m:?} to {}", fen_of(pos));
        assert_eq!(fen_of(&fast.to_chess()), fen_of(pos));
        assert_eq!(fast.to_chess().maybe_ep_square(), pos.maybe_ep_square());
    }

    #[test]
    fn plays_as_shakmaty_on_random_games() {
        let mut rng = Rng(0xB0A2D);
        let mut nulls = 0;
        for _ in 0..200 {
            let mut pos = Chess::default();
            let mut fast = FastBoard::default();
            for _ in 0..200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                if rng.below(30) == 0 {
                    // A null move: refused in check, as shakmaty refuses it.
                    let swapped = pos.clone().swap_turn();
                    let played = fast.play(&Ply::Null);
                    assert_eq!(played.is_ok(), swapped.is_ok(), "{}", fen_of(&pos));
                    if let Ok(p) = swapped {
                        pos = p;
                        nulls += 1;
                        assert_eq!(fast, FastBoard::from(&pos));
                    }
                    continue;
                }
                let m = moves[rng.below(moves.len())];
                play_both(&mut pos, &mut fast, m);
            }
        }
        assert!(nulls > 100);
    }

    #[test]
    fn plays_castling_en_passant_and_promotions_as_shakmaty() {
        for (fen, uci) in [
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "a1a8"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "h8h1"),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"),
            ("3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1", "c7d8n"),
            ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e4"),
            ("4k3/4p3/8/3P4/8/8/8/4K3 b - - 0 1", "e7e5"),
            // Checks: discovered on a file and on a diagonal, double, by en passant
            // uncovering a rook, by promotion, by castling.
            ("4k3/8/8/8/8/8/4N3/4R1K1 w - - 0 1", "e2c3"),
            ("4k3/8/8/1P6/B7/8/8/6K1 w - - 0 1", "b5b6"),
            ("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1", "e4d6"),
            ("8/8/8/k2pP2R/8/8/8/4K3 w - d6 0 1", "e5d6"),
            ("4k3/2P5/8/8/8/8/8/4K3 w - - 0 1", "c7c8q"),
            ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"),
        ] {
            let mut pos = position_from_fen(fen).unwrap();
            let mut fast = FastBoard::from(&pos);
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            play_both(&mut pos, &mut fast, m);
        }
    }
}
