//! Move legality and SAN for the hot paths (decoding every stored move, rendering every game).
//!
//! shakmaty answers both by generating every legal move of the moving piece's kind to the
//! target square. For the common case (a piece or pawn moving, castling, en passant) a few
//! bitboard lookups give the same answer: is the path open, and is our king safe after the
//! move. Anything else is handed to shakmaty, so the answers are always shakmaty's own (a test
//! checks this on random games). Every function takes any [`View`] of a position: shakmaty's
//! [`Chess`], or the hot paths' [`FastBoard`], which knows its checkers and so skips the
//! king-safety test of a move that cannot uncover its king.

use std::borrow::Cow;

use shakmaty::san::{San, SanError};
use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, File, Move, Piece, Position, Rank, Role, Square, attacks,
};

use super::board::{FastBoard, piece_attacks};

/// What the quick answers read from a position. [`Chess`] gives it from its board (a square's
/// piece looked up bitboard by bitboard, checkers computed when asked); [`FastBoard`] from its
/// mailbox and the checkers it keeps.
pub trait View {
    /// The side to move.
    fn turn(&self) -> Color;
    /// The kind of piece on `sq`, if any.
    fn role_at(&self, sq: Square) -> Option<Role>;
    /// The squares of `color`'s pieces.
    fn by_color(&self, color: Color) -> Bitboard;
    /// The squares of `piece`.
    fn by_piece(&self, piece: Piece) -> Bitboard;
    /// Every occupied square.
    fn occupied(&self) -> Bitboard;
    /// The square of `color`'s king.
    fn king_of(&self, color: Color) -> Option<Square>;
    /// `attacker`'s pieces attacking `sq` when `occupied` are the occupied squares.
    fn attacks_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard;
    /// The pieces giving check, when known without computing them.
    fn known_checkers(&self) -> Option<Bitboard>;
    /// The rook the side to move may castle with on `side`.
    fn castling_rook(&self, side: CastlingSide) -> Option<Square>;
    /// The en-passant square after a double pawn push (capture possible or not).
    fn ep_square(&self) -> Option<Square>;
    /// The position as shakmaty's, for the questions without a quick answer.
    fn chess(&self) -> Cow<'_, Chess>;
}

impl View for Chess {
    fn turn(&self) -> Color {
        Position::turn(self)
    }
    fn role_at(&self, sq: Square) -> Option<Role> {
        self.board().role_at(sq)
    }
    fn by_color(&self, color: Color) -> Bitboard {
        self.board().by_color(color)
    }
    fn by_piece(&self, piece: Piece) -> Bitboard {
        self.board().by_piece(piece)
    }
    fn occupied(&self) -> Bitboard {
        self.board().occupied()
    }
    fn king_of(&self, color: Color) -> Option<Square> {
        self.board().king_of(color)
    }
    fn attacks_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        self.board().attacks_to(sq, attacker, occupied)
    }
    fn known_checkers(&self) -> Option<Bitboard> {
        None
    }
    fn castling_rook(&self, side: CastlingSide) -> Option<Square> {
        self.castles().rook(Position::turn(self), side)
    }
    fn ep_square(&self) -> Option<Square> {
        self.maybe_ep_square()
    }
    fn chess(&self) -> Cow<'_, Chess> {
        Cow::Borrowed(self)
    }
}

impl View for FastBoard {
    fn turn(&self) -> Color {
        FastBoard::turn(self)
    }
    fn role_at(&self, sq: Square) -> Option<Role> {
        FastBoard::role_at(self, sq)
    }
    fn by_color(&self, color: Color) -> Bitboard {
        FastBoard::by_color(self, color)
    }
    fn by_piece(&self, piece: Piece) -> Bitboard {
        FastBoard::by_piece(self, piece)
    }
    fn occupied(&self) -> Bitboard {
        FastBoard::occupied(self)
    }
    fn king_of(&self, color: Color) -> Option<Square> {
        FastBoard::king_of(self, color)
    }
    fn attacks_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        FastBoard::attacks_to(self, sq, attacker, occupied)
    }
    fn known_checkers(&self) -> Option<Bitboard> {
        Some(self.checkers())
    }
    fn castling_rook(&self, side: CastlingSide) -> Option<Square> {
        FastBoard::castling_rook(self, FastBoard::turn(self), side)
    }
    fn ep_square(&self) -> Option<Square> {
        FastBoard::ep_square(self)
    }
    fn chess(&self) -> Cow<'_, Chess> {
        Cow::Owned(self.to_chess())
    }
}

/// Whether `m` is legal in `pos`; the same answer as [`Position::is_legal`], faster.
pub fn is_legal(pos: &impl View, m: Move) -> bool {
    match quick_legality(pos, m) {
        Some(legal) => legal,
        None => pos.chess().is_legal(m),
    }
}

/// Append the SAN of legal move `m` in `pos` (without check suffix) to `out`; the same text
/// as shakmaty's [`San::from_move`], without generating moves unless another piece of the
/// same kind could reach the square.
pub fn push_san(pos: &impl View, m: Move, out: &mut String) {
    match m {
        Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion,
        } => {
            if capture.is_some() {
                out.push(from.file().char());
                out.push('x');
            }
            push_square(to, out);
            if let Some(p) = promotion {
                out.push('=');
                out.push(p.upper_char());
            }
        }
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion: None,
        } if let Some(hint) = hint(pos, role, from, capture, to) => {
            out.push(role.upper_char());
            if hint.file {
                out.push(from.file().char());
            }
            if hint.rank {
                out.push(from.rank().char());
            }
            if capture.is_some() {
                out.push('x');
            }
            push_square(to, out);
        }
        Move::EnPassant { from, to } => {
            out.push(from.file().char());
            out.push('x');
            push_square(to, out);
        }
        Move::Castle { king, rook } => out.push_str(if king < rook { "O-O" } else { "O-O-O" }),
        _ => San::from_move(&*pos.chess(), m).append_to_string(out),
    }
}

/// Which of its square's file and rank a piece move's SAN names (shakmaty's rule: the file
/// when another piece of the kind may legally move to the same square, unless one on the same
/// file does and none on the same rank; the rank when one on the same file does).
struct Hint {
    file: bool,
    rank: bool,
}

/// The [`Hint`] of a piece move from the other pieces of its kind that reach `to`, each checked
/// for legality from bitboards; `None` leaves the SAN to shakmaty (a rival whose legality
/// needs it).
fn hint(
    pos: &impl View,
    role: Role,
    from: Square,
    capture: Option<Role>,
    to: Square,
) -> Option<Hint> {
    let piece = Piece {
        color: pos.turn(),
        role,
    };
    let others = pos.by_piece(piece).without(from);
    if others.is_empty() {
        return Some(Hint {
            file: false,
            rank: false,
        });
    }
    let rivals = others & piece_attacks(piece, to, pos.occupied());
    let (mut ambiguous, mut same_file, mut same_rank) = (false, false, false);
    for rival in rivals {
        let m = Move::Normal {
            role,
            from: rival,
            capture,
            to,
            promotion: None,
        };
        if quick_legality(pos, m)? {
            ambiguous = true;
            same_file |= rival.file() == from.file();
            same_rank |= rival.rank() == from.rank();
        }
    }
    Some(Hint {
        file: ambiguous && (!same_file || same_rank),
        rank: same_file,
    })
}

fn push_square(sq: Square, out: &mut String) {
    out.push(sq.file().char());
    out.push(sq.rank().char());
}

/// The legal move `san` names in `pos`; the same answer as [`San::to_move`] (including which
/// error), without generating moves when only one piece could make it.
pub fn san_to_move(pos: &impl View, san: San) -> Result<Move, SanError> {
    if let San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    } = san
        && let Some(from) = only_candidate(pos, role, file, rank, to)
    {
        let m = Move::Normal {
            role,
            from,
            capture: pos.role_at(to),
            to,
            promotion,
        };
        if capture == pos.role_at(to).is_some() && quick_legality(pos, m) == Some(true) {
            return Ok(m);
        }
    }
    san.to_move(&*pos.chess())
}

/// The one square a piece of kind `role` could move to `to` from (matching the SAN's file
/// and rank hints), when there is exactly one; `None` leaves the question to shakmaty.
fn only_candidate(
    pos: &impl View,
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    to: Square,
) -> Option<Square> {
    let us = pos.turn();
    let piece = Piece { color: us, role };
    let mut candidates = if role == Role::Pawn {
        if pos.role_at(to).is_some() {
            // A capture: from one of the two squares diagonally behind.
            attacks::pawn_attacks(!us, to)
        } else {
            // A push: the nearest square behind holding anything.
            let back = if us == Color::White { -8 } else { 8 };
            let one = to.offset(back)?;
            if pos.occupied().contains(one) {
                Bitboard::from(one)
            } else {
                Bitboard::from(one.offset(back)?)
            }
        }
    } else {
        attacks::attacks(to, piece, pos.occupied())
    } & pos.by_piece(piece);
    if let Some(f) = file {
        candidates &= Bitboard::from(f);
    }
    if let Some(r) = rank {
        candidates &= Bitboard::from(r);
    }
    candidates.single_square()
}

/// The legal move a UCI move (`from`, `to`, promotion) names in `pos`; the same answer as
/// shakmaty's `UciMove::to_move` (None where it errs), without generating moves for an
/// ordinary move.
pub fn uci_to_move(
    pos: &impl View,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Option<Move> {
    if let Some(role) = pos.role_at(from)
        && pos.by_color(pos.turn()).contains(from)
    {
        let m = Move::Normal {
            role,
            from,
            capture: pos.role_at(to),
            to,
            promotion,
        };
        // Castling (a king moving two files or onto its rook) and en passant are shakmaty's.
        let special = match role {
            Role::King => from.distance(to) > 1 || pos.by_color(pos.turn()).contains(to),
            Role::Pawn => from.file() != to.file() && pos.role_at(to).is_none(),
            _ => false,
        };
        if !special && let Some(legal) = quick_legality(pos, m) {
            return legal.then_some(m);
        }
    }
    UciMove::Normal {
        from,
        to,
        promotion,
    }
    .to_move(&*pos.chess())
    .ok()
}

/// Whether the side to move, in check, is mated; the same answer as shakmaty's, without
/// generating moves when the king has a safe square to step to (the usual escape).
pub fn is_mated(pos: &impl View) -> bool {
    let us = pos.turn();
    if let Some(king) = pos.king_of(us) {
        let without_king = pos.occupied() & !Bitboard::from(king);
        let steps = attacks::king_attacks(king) & !pos.by_color(us);
        if steps
            .into_iter()
            .any(|to| pos.attacks_to(to, !us, without_king).is_empty())
        {
            return false;
        }
    }
    pos.chess().legal_moves().is_empty()
}

/// Legality of a move from bitboards alone; `None` for what is left to shakmaty (a position
/// without our king, a piece put on the board).
fn quick_legality(pos: &impl View, m: Move) -> Option<bool> {
    let Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    } = m
    else {
        return special_legality(pos, m);
    };
    let us = pos.turn();
    let occupied = pos.occupied();
    // The capture field names what stands on `to`: nothing, or a piece of theirs (not a king).
    let captures_right = match capture {
        None => !occupied.contains(to),
        Some(Role::King) => false,
        Some(taken) => pos
            .by_piece(Piece {
                color: !us,
                role: taken,
            })
            .contains(to),
    };
    let piece = Piece { color: us, role };
    if !captures_right || !pos.by_piece(piece).contains(from) {
        return Some(false);
    }
    let reachable = match role {
        Role::Pawn => {
            let last_rank = us.relative_rank(Rank::Eighth);
            let promotes_ok = match promotion {
                None => to.rank() != last_rank,
                Some(p) => to.rank() == last_rank && p != Role::Pawn && p != Role::King,
            };
            promotes_ok && pawn_reaches(us, from, to, capture.is_some(), occupied)
        }
        _ => promotion.is_none() && piece_attacks(piece, from, occupied).contains(to),
    };
    if !reachable {
        return Some(false);
    }
    let king = pos.king_of(us)?;
    // Not in check, a piece other than the king endangers its king only by leaving the line
    // between it and an attacker (shakmaty's pin rule).
    if role != Role::King && pos.known_checkers() == Some(Bitboard::EMPTY) {
        return Some(!pinned_off_its_line(pos, king, from, to));
    }
    // Our king after the move: on `to` if it moved; attacked by nothing but what was captured.
    let king_after = if role == Role::King { to } else { king };
    let occupied_after = (occupied & !Bitboard::from(from)) | Bitboard::from(to);
    let attackers = pos.attacks_to(king_after, !us, occupied_after) & !Bitboard::from(to);
    Some(attackers.is_empty())
}

/// [`quick_legality`] of castling and en passant; `None` for a piece put on the board or a
/// position without our king.
fn special_legality(pos: &impl View, m: Move) -> Option<bool> {
    let king = pos.king_of(pos.turn())?;
    match m {
        Move::Castle { king: from, rook } => Some(castling_legality(pos, king, from, rook)),
        Move::EnPassant { from, to } => Some(en_passant_legality(pos, king, from, to)),
        Move::Normal { .. } | Move::Put { .. } => None,
    }
}

/// Whether the piece on `from` is pinned to our `king` and leaves the line of the pin by
/// moving to `to` (shakmaty's pin rule: a piece between our king and an enemy slider, nothing
/// else between them).
#[inline(always)]
fn pinned_off_its_line(pos: &impl View, king: Square, from: Square, to: Square) -> bool {
    let line = attacks::ray(king, from);
    if !line.contains(from) || line.contains(to) {
        return false;
    }
    let occupied = pos.occupied();
    if (attacks::between(king, from) & occupied).any() {
        return false;
    }
    let them = !pos.turn();
    let queen = pos.by_piece(them.queen());
    let snipers = if king.file() == from.file() || king.rank() == from.rank() {
        attacks::rook_attacks(king, occupied ^ from) & (pos.by_piece(them.rook()) | queen)
    } else {
        attacks::bishop_attacks(king, occupied ^ from) & (pos.by_piece(them.bishop()) | queen)
    };
    (snipers & line).any()
}

/// Legality of castling with the rook on `rook`, the king on `from` (our king is on `king`):
/// shakmaty's rule (the right, an empty path, no attacked square on the king's way, the
/// king's own square included).
fn castling_legality(pos: &impl View, king: Square, from: Square, rook: Square) -> bool {
    let us = pos.turn();
    let side = CastlingSide::from_queen_side(rook < from);
    if from != king || pos.castling_rook(side) != Some(rook) {
        return false;
    }
    let king_to = side.king_to(us);
    let rook_to = side.rook_to(us);
    let path = (attacks::between(rook, rook_to).with(rook_to)
        | attacks::between(king, king_to).with(king_to))
    .without(king)
    .without(rook);
    let occupied = pos.occupied();
    if (path & occupied).any() {
        return false;
    }
    let after = occupied ^ king ^ rook ^ rook_to;
    if pos.attacks_to(king_to, !us, after).any() {
        return false;
    }
    let without_king = occupied ^ king;
    attacks::between(king, king_to)
        .with(king)
        .into_iter()
        .all(|sq| pos.attacks_to(sq, !us, without_king).is_empty())
}

/// Legality of an en-passant capture from `from` to `to` (our king on `king`): the square is
/// the en-passant square, our pawn attacks it, and no attack on our king is uncovered.
fn en_passant_legality(pos: &impl View, king: Square, from: Square, to: Square) -> bool {
    let us = pos.turn();
    if pos.ep_square() != Some(to)
        || !pos.by_piece(us.pawn()).contains(from)
        || !attacks::pawn_attacks(us, from).contains(to)
    {
        return false;
    }
    let taken = Square::from_coords(to.file(), from.rank());
    let occupied = pos.occupied().without(from).without(taken).with(to);
    pos.attacks_to(king, !us, occupied)
        .without(taken)
        .is_empty()
}

/// Whether a pawn of `us` on `from` moves to `to`: one step or two from its first rank onto
/// empty squares, or one diagonal step onto a capture.
fn pawn_reaches(us: Color, from: Square, to: Square, captures: bool, occupied: Bitboard) -> bool {
    if captures {
        return attacks::pawn_attacks(us, from).contains(to);
    }
    let forward = if us == Color::White { 8 } else { -8 };
    let Some(one) = from.offset(forward) else {
        return false;
    };
    if occupied.contains(one) {
        return false;
    }
    if to == one {
        return true;
    }
    let start_rank = if us == Color::White {
        Rank::Second
    } else {
        Rank::Seventh
    };
    from.rank() == start_rank && one.offset(forward) == Some(to) && !occupied.contains(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::replay::position_from_fen;
    use crate::testing::Rng;

    /// Every move a buggy decoder could produce from `pos`: any piece of ours to any square,
    /// with any capture field and promotion, plus castling and en passant attempts.
    fn candidate_moves(pos: &Chess, rng: &mut Rng) -> Vec<Move> {
        let board = pos.board();
        let us = Position::turn(pos);
        let mut out = Vec::new();
        // Castling from the king's square or another, with any corner's rook.
        let king = board.king_of(us).unwrap();
        for from in [king, Square::E1, Square::E8] {
            for rook in [Square::A1, Square::H1, Square::A8, Square::H8] {
                out.push(Move::Castle { king: from, rook });
            }
        }
        // En passant by any pawn (of ours or not) to any square diagonally ahead.
        for from in board.pawns() {
            for to in attacks::pawn_attacks(us, from) {
                out.push(Move::EnPassant { from, to });
            }
        }
        for from in board.by_color(us) {
            let role = board.role_at(from).unwrap();
            for to in Square::ALL {
                let promotion = match rng.below(8) {
                    0 => Some(Role::Queen),
                    1 => Some(Role::Knight),
                    2 => Some(Role::King),
                    _ => None,
                };
                let capture = if rng.below(10) == 0 {
                    Some(Role::Rook)
                } else {
                    board.role_at(to)
                };
                out.push(Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion,
                });
                // A role that is not the piece's own.
                if rng.below(20) == 0 {
                    out.push(Move::Normal {
                        role: Role::Bishop,
                        from,
                        capture,
                        to,
                        promotion: None,
                    });
                }
            }
        }
        out
    }

    /// The SAN itself and what a sloppy or wrong PGN might say instead: hints dropped or
    /// added, the capture mark flipped, another piece, another promotion.
    fn san_variants(written: San, rng: &mut Rng) -> Vec<San> {
        let mut out = vec![written];
        if let San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } = written
        {
            let other_role = *rng.pick(&[Role::Pawn, Role::Knight, Role::Bishop, Role::Rook]);
            let other_file = File::new(rng.below(8) as u32);
            let other_rank = Rank::new(rng.below(8) as u32);
            for (role, file, rank, capture, promotion) in [
                (role, None, None, capture, promotion),
                (role, Some(other_file), rank, capture, promotion),
                (role, file, Some(other_rank), capture, promotion),
                (role, file, rank, !capture, promotion),
                (other_role, file, rank, capture, promotion),
                (role, file, rank, capture, Some(Role::Rook)),
                (role, file, rank, capture, None),
            ] {
                out.push(San::Normal {
                    role,
                    file,
                    rank,
                    capture,
                    to,
                    promotion,
                });
            }
        }
        out
    }

    /// Every answer of this module for `pos`, seen as shakmaty's `Chess` and as a
    /// [`FastBoard`], against shakmaty's own.
    fn check_position(pos: &Chess, rng: &mut Rng, all_pairs: bool) {
        let fast = FastBoard::from(pos);
        check_view(pos, pos, rng, all_pairs);
        check_view(&fast, pos, rng, all_pairs);
    }

    /// Every answer of this module for `view` (a view of `pos`) against shakmaty's on `pos`.
    fn check_view(view: &impl View, pos: &Chess, rng: &mut Rng, all_pairs: bool) {
        let fen = crate::game::replay::fen_of(pos);
        for m in candidate_moves(pos, rng) {
            assert_eq!(is_legal(view, m), pos.is_legal(m), "{m:?} in {fen}");
        }
        // Every from/to pair (of one random-game position in eight: thousands in all).
        let pairs = if all_pairs || rng.below(8) == 0 {
            pos.board().occupied()
        } else {
            shakmaty::Bitboard::EMPTY
        };
        for from in pairs {
            for to in Square::ALL {
                for promotion in [None, Some(Role::Queen), Some(Role::Knight)] {
                    let uci = UciMove::Normal {
                        from,
                        to,
                        promotion,
                    };
                    assert_eq!(
                        uci_to_move(view, from, to, promotion),
                        uci.to_move(pos).ok(),
                        "{uci} in {fen}"
                    );
                }
            }
        }
        if pos.is_check() {
            assert_eq!(is_mated(view), pos.is_checkmate(), "{fen}");
        }
        for m in pos.legal_moves() {
            let written = San::from_move(pos, m);
            let mut text = String::new();
            push_san(view, m, &mut text);
            assert_eq!(text, written.to_string(), "{m:?} in {fen}");
            for variant in san_variants(written, rng) {
                assert_eq!(
                    san_to_move(view, variant),
                    variant.to_move(pos),
                    "{variant} in {fen}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_shakmaty_on_random_games() {
        let mut rng = Rng(7);
        for _ in 0..60 {
            let mut pos = Chess::default();
            for _ in 0..120 {
                check_position(&pos, &mut rng, false);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                pos.play_unchecked(m);
            }
        }
    }

    #[test]
    fn agrees_with_shakmaty_on_pins_checks_and_promotions() {
        let mut rng = Rng(11);
        for fen in [
            // Pinned knight and bishop, rook checks through an open file.
            "4k3/8/8/8/4r3/8/4N3/4K2R w K - 0 1",
            "4k3/4r3/8/8/8/8/3B4/4K3 w - - 0 1",
            // Double check, promotions with and without capture, a pinned pawn.
            "3rk3/2P1P3/8/8/8/8/5b2/R3K2R w KQ - 0 1",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
            "1k6/8/8/8/8/8/1p6/R3K3 b Q - 0 1",
            // Two knights reach c3, one of them pinned: no hint; three rooks share a square.
            "4k3/8/8/8/4r3/8/4N3/1N2K3 w - - 0 1",
            "4k3/8/8/8/R6R/8/8/R3K3 w - - 0 1",
            // Mates (back rank, smothered) and checks escaped only by a capture or a block.
            "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
            "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
            "6rk/5Rpp/8/8/8/8/8/6K1 b - - 0 1",
            "R5k1/5ppp/8/8/8/8/r7/6K1 b - - 0 1",
            // En passant that uncovers our king on the rank, or on a diagonal; one that
            // captures a checking pawn.
            "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1",
            "8/8/8/3pP3/8/8/b7/2K1k3 w - d6 0 1",
            "8/8/8/3pP3/4K3/8/8/4k3 w - d6 0 1",
            // Castling out of, through and into attacked squares, and past a piece.
            "4k3/8/8/8/8/8/5q2/R3K2R w KQ - 0 1",
            "4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1",
            "4k3/8/8/8/8/8/2r5/R3K2R w KQ - 0 1",
            "4k3/8/8/8/8/8/1r6/R3K2R w KQ - 0 1",
            "r3k2r/8/8/8/8/8/8/RN2K1NR b KQkq - 0 1",
        ] {
            let pos = position_from_fen(fen).unwrap();
            check_position(&pos, &mut rng, true);
        }
        let castles = Move::Castle {
            king: Square::E1,
            rook: Square::from_coords(File::H, Rank::First),
        };
        let pos = position_from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
        assert!(is_legal(&pos, castles));
        let mut text = String::new();
        push_san(&pos, castles, &mut text);
        assert_eq!(text, "O-O");
    }
}
