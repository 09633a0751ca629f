//! Move legality and SAN for the hot paths (decoding every stored move, rendering every game).
//!
//! shakmaty answers both by generating every legal move of the moving piece's kind to the
//! target square. For the common case (a piece or pawn moving, no castling, no en passant) a
//! few bitboard lookups give the same answer: is the path open, and is our king safe after the
//! move. Anything else is handed to shakmaty, so the answers are always shakmaty's own (a test
//! checks this on random games).

use shakmaty::attacks;
use shakmaty::san::{San, SanError};
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Board, Chess, Color, File, Move, Piece, Position, Rank, Role, Square};

/// Whether `m` is legal in `pos`; the same answer as [`Position::is_legal`], faster.
pub(crate) fn is_legal(pos: &Chess, m: Move) -> bool {
    match quick_legality(pos, m) {
        Some(legal) => legal,
        None => pos.is_legal(m),
    }
}

/// Append the SAN of legal move `m` in `pos` (without check suffix) to `out`; the same text
/// as shakmaty's [`San::from_move`], without generating moves unless another piece of the
/// same kind could reach the square.
pub(crate) fn push_san(pos: &Chess, m: Move, out: &mut String) {
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
        _ => push_san_by_shakmaty(pos, m, out),
    }
}

/// Castling, and a move whose rivals' legality needs move generation: shakmaty's SAN. Kept
/// out of line: it is rare, and inlined its move list crowds the common path.
#[cold]
#[inline(never)]
fn push_san_by_shakmaty(pos: &Chess, m: Move, out: &mut String) {
    San::from_move(pos, m).append_to_string(out);
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
fn hint(pos: &Chess, role: Role, from: Square, capture: Option<Role>, to: Square) -> Option<Hint> {
    if role == Role::King {
        // A side has one king (shakmaty's `Chess` holds no other positions): no rival.
        return Some(Hint {
            file: false,
            rank: false,
        });
    }
    let board = pos.board();
    let piece = Piece {
        color: pos.turn(),
        role,
    };
    let rivals =
        board.by_piece(piece) & attacks_of(to, piece, board.occupied()) & !Bitboard::from(from);
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

/// The move of a `role` from `from` to `to` in `pos`, taking what stands on `to` (not yet
/// known to be possible: that is the caller's question).
fn normal_move(pos: &Chess, role: Role, from: Square, to: Square, promotion: Option<Role>) -> Move {
    Move::Normal {
        role,
        from,
        capture: pos.board().role_at(to),
        to,
        promotion,
    }
}

/// The legal move `san` names in `pos`; the same answer as [`San::to_move`] (including which
/// error), without generating moves when only one piece could make it.
pub(crate) fn san_to_move(pos: &Chess, san: San) -> Result<Move, SanError> {
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
        let m = normal_move(pos, role, from, to, promotion);
        if capture == pos.board().role_at(to).is_some() && quick_legality(pos, m) == Some(true) {
            return Ok(m);
        }
    }
    san.to_move(pos)
}

/// The one square a piece of kind `role` could move to `to` from (matching the SAN's file
/// and rank hints), when there is exactly one; `None` leaves the question to shakmaty.
fn only_candidate(
    pos: &Chess,
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    to: Square,
) -> Option<Square> {
    let board = pos.board();
    let us = pos.turn();
    let piece = Piece { color: us, role };
    let mut candidates = if role == Role::Pawn {
        if board.role_at(to).is_some() {
            // A capture: from one of the two squares diagonally behind.
            attacks::pawn_attacks(!us, to)
        } else {
            // A push: the nearest square behind holding anything.
            let back = if us == Color::White { -8 } else { 8 };
            let one = to.offset(back)?;
            if board.occupied().contains(one) {
                Bitboard::from(one)
            } else {
                Bitboard::from(one.offset(back)?)
            }
        }
    } else {
        attacks_of(to, piece, board.occupied())
    } & board.by_piece(piece);
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
pub(crate) fn uci_to_move(
    pos: &Chess,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Option<Move> {
    match uci_candidate(pos, from, to, promotion) {
        UciCandidate::Ordinary(m) => match king_safe(pos, m) {
            Some(safe) => safe.then_some(m),
            None => uci_to_move_by_shakmaty(pos, from, to, promotion),
        },
        UciCandidate::Impossible => None,
        UciCandidate::Special => uci_to_move_by_shakmaty(pos, from, to, promotion),
    }
}

/// What a UCI move names in a position, as far as bitboards tell without its king's safety
/// ([`uci_candidate`]).
pub(crate) enum UciCandidate {
    /// An ordinary piece or pawn move its piece can make ([`is_pseudo_legal`]): legal when
    /// it leaves its own king safe, which [`after_move`] tells once it is played.
    Ordinary(Move),
    /// No legal move: the piece on `from` cannot go to `to` so.
    Impossible,
    /// Castling, en passant, or no piece of the side to move on `from`: shakmaty's question.
    Special,
}

/// The [`UciCandidate`] a UCI move (`from`, `to`, promotion) names in `pos`: a decoder that
/// plays the move anyway learns its king's safety and whether it checks in one lookup after
/// it ([`after_move`]), rather than one before it and one after.
pub(crate) fn uci_candidate(
    pos: &Chess,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> UciCandidate {
    let board = pos.board();
    if let Some(role) = board.role_at(from)
        && board.by_color(pos.turn()).contains(from)
    {
        let m = Move::Normal {
            role,
            from,
            capture: board.role_at(to),
            to,
            promotion,
        };
        // Castling (a king moving two files or onto its rook) and en passant are shakmaty's.
        let special = match role {
            Role::King => from.distance(to) > 1 || board.by_color(pos.turn()).contains(to),
            Role::Pawn => from.file() != to.file() && board.role_at(to).is_none(),
            _ => false,
        };
        if !special && let Some(pseudo) = is_pseudo_legal(pos, m) {
            return match pseudo {
                true => UciCandidate::Ordinary(m),
                false => UciCandidate::Impossible,
            };
        }
    }
    UciCandidate::Special
}

/// shakmaty's reading of a UCI move: castling, en passant, and what bitboards leave to it.
fn uci_to_move_by_shakmaty(
    pos: &Chess,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Option<Move> {
    UciMove::Normal {
        from,
        to,
        promotion,
    }
    .to_move(pos)
    .ok()
}

/// Whether the side to move, in check, is mated; the same answer as shakmaty's, without
/// generating moves when the king has a safe square to step to (the usual escape).
pub(crate) fn is_mated(pos: &Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    if let Some(king) = board.king_of(us) {
        let without_king = board.occupied() & !Bitboard::from(king);
        let steps = attacks::king_attacks(king) & !board.by_color(us);
        if steps
            .into_iter()
            .any(|to| board.attacks_to(to, !us, without_king).is_empty())
        {
            return false;
        }
    }
    pos.legal_moves().is_empty()
}

/// What move `m` did to the two kings, read off `after`, the position it led to: `None` when
/// it left the mover's own king attacked (it was illegal), else whether it checks the other
/// king. The same answers as shakmaty's `is_legal` before the move and `is_check` after it,
/// for a move that was pseudo-legal ([`is_pseudo_legal`]; castling's path is [`is_legal`]'s),
/// given whether the mover was in check before it.
///
/// A replayer that carries the check state from move to move saves a lookup: out of check, a
/// move other than the king's can only expose its king along a line (no knight, pawn or king
/// can start attacking it). Both lookups are branch-free; a test of which line the move left
/// costs more than it saves.
#[inline]
pub(crate) fn after_move(m: Move, was_in_check: bool, after: &Chess) -> Option<bool> {
    let board = after.board();
    let them = after.turn();
    let mover = !them;
    let occupied = board.occupied();
    let our_king = board.king_of(mover)?;
    let only_lines = !was_in_check && matches!(m, Move::Normal { role, .. } if role != Role::King);
    let attackers = if only_lines {
        slider_attacks_to(board, our_king, them, occupied)
    } else {
        board.attacks_to(our_king, them, occupied)
    };
    if attackers.any() {
        return None;
    }
    Some(
        board
            .king_of(them)
            .is_some_and(|king| board.attacks_to(king, mover, occupied).any()),
    )
}

/// The rooks, bishops and queens of `by` that attack `sq` through `occupied`.
fn slider_attacks_to(board: &Board, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
    board.by_color(by)
        & ((attacks::rook_attacks(sq, occupied) & board.rooks_and_queens())
            | (attacks::bishop_attacks(sq, occupied) & board.bishops_and_queens()))
}

/// Legality of an ordinary piece or pawn move from bitboards alone; `None` for what is left to
/// shakmaty (castling, en passant, a position without our king).
fn quick_legality(pos: &Chess, m: Move) -> Option<bool> {
    if !is_pseudo_legal(pos, m)? {
        return Some(false);
    }
    king_safe(pos, m)
}

/// Whether pseudo-legal move `m` ([`is_pseudo_legal`]) leaves our king unattacked; `None`
/// for castling, en passant and a position without our king.
fn king_safe(pos: &Chess, m: Move) -> Option<bool> {
    let Move::Normal { role, from, to, .. } = m else {
        return None;
    };
    let board = pos.board();
    let us = pos.turn();
    let king = board.king_of(us)?;
    // Our king after the move: on `to` if it moved; attacked by nothing but what was captured.
    let king_after = if role == Role::King { to } else { king };
    let occupied_after = (board.occupied() & !Bitboard::from(from)) | Bitboard::from(to);
    let attackers = board.attacks_to(king_after, !us, occupied_after) & !Bitboard::from(to);
    Some(attackers.is_empty())
}

/// Whether an ordinary piece or pawn move could be made in `pos` if our king's safety did not
/// matter: our piece stands on its square and reaches the target, which holds what the move
/// says it captures (never a king), and it promotes exactly on the last rank. Playing such a
/// move keeps the board consistent, so [`after_move`] can judge the rest. `None` for castling
/// and en passant.
#[inline(always)]
fn is_pseudo_legal(pos: &Chess, m: Move) -> Option<bool> {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = m
    else {
        return None;
    };
    let board = pos.board();
    let us = pos.turn();
    if !board.by_piece(role.of(us)).contains(from) {
        return Some(false);
    }
    // Our piece stands there: the move its step makes, with what stands on `to` as its
    // capture, is the one `m` must be.
    let made = match role {
        Role::Pawn => pawn_step(board, us, from, to, promotion),
        _ => piece_step(board, us, role, from, to),
    };
    Some(made == Some(m))
}

/// The move of `us`'s `role` (not a pawn) that stands on `from` (the caller knows it does:
/// a decoder that keeps where each piece is, as ChessBase's slots do) to `to`, when
/// [`is_pseudo_legal`]: the piece reaches `to`, which holds no piece of ours and no king.
/// What it takes is read off the board: nothing is checked twice.
#[inline(always)]
pub(crate) fn piece_step(
    board: &Board,
    us: Color,
    role: Role,
    from: Square,
    to: Square,
) -> Option<Move> {
    let reach = attacks_of(from, Piece { color: us, role }, board.occupied());
    let open = !(board.by_color(us) | board.kings()).contains(to);
    (reach.contains(to) && open).then(|| Move::Normal {
        role,
        from,
        capture: board.role_at(to),
        to,
        promotion: None,
    })
}

/// [`piece_step`] of a pawn, promoting to `promotion`: the move when [`is_pseudo_legal`].
#[inline(always)]
pub(crate) fn pawn_step(
    board: &Board,
    us: Color,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Option<Move> {
    let capture = board.role_at(to);
    let open = !(board.by_color(us) | board.kings()).contains(to);
    (open
        && promotion_fits(us, to, promotion)
        && pawn_reaches(us, from, to, capture.is_some(), board.occupied()))
    .then_some(Move::Normal {
        role: Role::Pawn,
        from,
        capture,
        to,
        promotion,
    })
}

/// The squares `piece` on `sq` attacks through `occupied`: shakmaty's `attacks::attacks`,
/// whose dispatch on the role is inlined here (called, it was a tenth of a ChessBase
/// export's time).
#[inline]
fn attacks_of(sq: Square, piece: Piece, occupied: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => attacks::pawn_attacks(piece.color, sq),
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
    }
}

/// Whether a pawn of `us` moving to `to` with `promotion` promotes as it must: exactly when it
/// reaches the last rank, and to a piece it may become.
pub(crate) fn promotion_fits(us: Color, to: Square, promotion: Option<Role>) -> bool {
    let last_rank = if us == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    };
    match promotion {
        None => to.rank() != last_rank,
        Some(p) => to.rank() == last_rank && p != Role::Pawn && p != Role::King,
    }
}

/// Whether a pawn of `us` on `from` moves to `to`: one step or two from its first rank onto
/// empty squares, or one diagonal step onto a capture (`captures`; what stands there is the
/// caller's question).
pub(crate) fn pawn_reaches(
    us: Color,
    from: Square,
    to: Square,
    captures: bool,
    occupied: Bitboard,
) -> bool {
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
        let mut out = Vec::new();
        for from in board.by_color(pos.turn()) {
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

    /// Every move whose piece could make it, whether or not it leaves the king attacked; en
    /// passant and castling only where legal.
    fn pseudo_legal_moves(pos: &Chess) -> Vec<Move> {
        let board = pos.board();
        let us = pos.turn();
        let occupied = board.occupied();
        let mut out: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !matches!(m, Move::Normal { .. }))
            .collect();
        for from in board.by_color(us) {
            let piece = board.piece_at(from).unwrap();
            let targets = if piece.role == Role::Pawn {
                Bitboard::FULL
            } else {
                attacks::attacks(from, piece, occupied)
            };
            for to in targets & !board.by_color(us) & !board.kings() {
                let capture = board.role_at(to);
                if piece.role == Role::Pawn
                    && !pawn_reaches(us, from, to, capture.is_some(), occupied)
                {
                    continue;
                }
                let last_rank = matches!(to.rank(), Rank::First | Rank::Eighth);
                let promotions: &[Option<Role>] = if piece.role == Role::Pawn && last_rank {
                    &[Some(Role::Queen), Some(Role::Knight)]
                } else {
                    &[None]
                };
                for &promotion in promotions {
                    out.push(Move::Normal {
                        role: piece.role,
                        from,
                        capture,
                        to,
                        promotion,
                    });
                }
            }
        }
        out
    }

    fn check_position(pos: &Chess, rng: &mut Rng, all_pairs: bool) {
        let pseudo_legal = pseudo_legal_moves(pos);
        for m in candidate_moves(pos, rng) {
            if let Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } = m
            {
                assert_eq!(
                    is_pseudo_legal(pos, m),
                    Some(pseudo_legal.contains(&m)),
                    "{m:?} in {}",
                    crate::game::replay::fen_of(pos)
                );
                let board = pos.board();
                if board.piece_at(from) == Some(role.of(pos.turn())) {
                    let made = match role {
                        Role::Pawn => pawn_step(board, pos.turn(), from, to, promotion),
                        _ if promotion.is_some() => None,
                        _ => piece_step(board, pos.turn(), role, from, to),
                    };
                    let same = |p: &&Move| {
                        (p.role(), p.from(), p.to(), p.promotion())
                            == (role, Some(from), to, promotion)
                    };
                    let wanted = pseudo_legal
                        .iter()
                        .find(same)
                        .filter(|p| !p.is_en_passant() && !p.is_castle());
                    assert_eq!(
                        made.as_ref(),
                        wanted,
                        "step {m:?} in {}",
                        crate::game::replay::fen_of(pos)
                    );
                }
            }
            assert_eq!(
                is_legal(pos, m),
                pos.is_legal(m),
                "{m:?} in {}",
                crate::game::replay::fen_of(pos)
            );
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
                        uci_to_move(pos, from, to, promotion),
                        uci.to_move(pos).ok(),
                        "{uci} in {}",
                        crate::game::replay::fen_of(pos)
                    );
                }
            }
        }
        if pos.is_check() {
            assert_eq!(
                is_mated(pos),
                pos.is_checkmate(),
                "{}",
                crate::game::replay::fen_of(pos)
            );
        }
        for m in pseudo_legal {
            let mut after = pos.clone();
            after.play_unchecked(m);
            assert_eq!(
                after_move(m, pos.is_check(), &after),
                pos.is_legal(m).then(|| after.is_check()),
                "{m:?} in {}",
                crate::game::replay::fen_of(pos)
            );
        }
        for m in pos.legal_moves() {
            let written = San::from_move(pos, m);
            let mut text = String::new();
            push_san(pos, m, &mut text);
            assert_eq!(text, written.to_string(), "{m:?}");
            for variant in san_variants(written, rng) {
                assert_eq!(
                    san_to_move(pos, variant),
                    variant.to_move(pos),
                    "{variant} in {}",
                    crate::game::replay::fen_of(pos)
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
        assert_eq!(text, "O-O", "castling is shakmaty's");
    }
}
