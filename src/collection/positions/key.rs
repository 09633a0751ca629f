//! What makes two positions the same for the position index, and how a move is kept in two
//! bytes.
//!
//! SCID's board search (`sc_search board`, type Exact) finds a position by its pieces on their
//! squares and the side to move; castling rights and the en-passant square are not compared
//! (SCID's `Game::ExactMatch`). The key here is a 64-bit Zobrist hash of exactly that, so the
//! index counts as SCID counts: a position reached with and without castling rights is one
//! folder.

use shakmaty::{CastlingSide, Chess, Color, Move, Position, Role, Square};

/// The random numbers of the hash: one per piece (colour and role) and square, and one for
/// Black to move. Made at compile time by SplitMix64 from a fixed seed, so every build and
/// every index file agree.
const KEYS: [u64; 12 * 64 + 1] = {
    let mut keys = [0u64; 12 * 64 + 1];
    let mut state: u64 = 0x6761_6d65_6673_3339; // "gamefs39"
    let mut i = 0;
    while i < keys.len() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        keys[i] = z ^ (z >> 31);
        i += 1;
    }
    keys
};

/// The key of `pos`: its pieces on their squares and the side to move (castling rights and
/// en passant left out, as SCID's Exact board search leaves them out).
pub fn position_key(pos: &Chess) -> u64 {
    let mut key = if pos.turn() == Color::Black {
        BLACK_TO_MOVE
    } else {
        0
    };
    // By bitboards, a piece kind at a time.
    let board = pos.board();
    for color in [Color::White, Color::Black] {
        let side = board.by_color(color);
        for role in Role::ALL {
            for square in side & board.by_role(role) {
                key ^= piece_key(color, role, square);
            }
        }
    }
    key
}

/// The random number of Black to move.
const BLACK_TO_MOVE: u64 = KEYS[12 * 64];

/// The random number of `color`'s `role` on `square`.
fn piece_key(color: Color, role: Role, square: Square) -> u64 {
    let kind = if color == Color::White { 0 } else { 6 } + (role as usize - 1);
    KEYS[kind * 64 + usize::from(square)]
}

/// The key of the position after `m` is played in `before`, whose key is `key`: the same as
/// [`position_key`] of that position, from the squares the move changes alone (an index
/// build keys every position of every game, and most of a game's pieces stay put).
pub fn key_after(key: u64, before: &Chess, m: &Move) -> u64 {
    let us = before.turn();
    let mut key = key ^ BLACK_TO_MOVE;
    match *m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            key ^= piece_key(us, role, from) ^ piece_key(us, promotion.unwrap_or(role), to);
            if let Some(taken) = capture {
                key ^= piece_key(!us, taken, to);
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            key ^= piece_key(us, Role::Pawn, from) ^ piece_key(us, Role::Pawn, to);
            key ^= piece_key(!us, Role::Pawn, taken);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            key ^= piece_key(us, Role::King, king) ^ piece_key(us, Role::King, side.king_to(us));
            key ^= piece_key(us, Role::Rook, rook) ^ piece_key(us, Role::Rook, side.rook_to(us));
        }
        Move::Put { role, to } => key ^= piece_key(us, role, to),
    }
    key
}

/// The code of "the game ends here" (no next move).
pub const END: u16 = 0xFFFF;
/// The code of a null move (`--`).
pub const NULL_MOVE: u16 = 0xFFFE;

/// A move in two bytes: its from and to squares (a castling move: the king's square and the
/// rook's) and the promotion role.
pub fn move_code(m: &Move) -> u16 {
    let from = m.from().map_or(0, u16::from);
    let to = match m {
        Move::Castle { rook, .. } => u16::from(*rook),
        _ => u16::from(m.to()),
    };
    let promotion = m.promotion().map_or(0, |r| r as u16);
    from | (to << 6) | (promotion << 12)
}

/// The legal move of `pos` whose [`move_code`] is `code`, if any.
pub fn move_of(pos: &Chess, code: u16) -> Option<Move> {
    if code >= NULL_MOVE {
        return None;
    }
    pos.legal_moves().into_iter().find(|m| move_code(m) == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn castling_rights_and_en_passant_are_not_part_of_the_key() {
        let with = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let without = pos("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
        assert_eq!(position_key(&with), position_key(&without));
        let ep = pos("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        let no_ep = pos("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(position_key(&ep), position_key(&no_ep));
    }

    #[test]
    fn side_to_move_and_pieces_are() {
        let white = pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        let black = pos("4k3/8/8/8/8/8/8/4K3 b - - 0 1");
        let moved = pos("4k3/8/8/8/8/8/8/3K4 w - - 0 1");
        assert_ne!(position_key(&white), position_key(&black));
        assert_ne!(position_key(&white), position_key(&moved));
    }

    #[test]
    fn the_key_after_a_move_is_the_key_of_the_position_it_makes() {
        // Every kind of move: quiet, captures, promotions with and without a capture, en
        // passant, both castlings of both sides (and Chess960's, king and rook crossing).
        let mut seen = 0;
        for (fen, mode) in [
            (
                "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1",
                CastlingMode::Standard,
            ),
            (
                "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "2rk1r2/8/8/8/8/8/8/2RK1R2 b KQkq - 0 1",
                CastlingMode::Chess960,
            ),
        ] {
            let p: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for m in &p.legal_moves() {
                let mut after = p.clone();
                after.play_unchecked(*m);
                assert_eq!(
                    key_after(position_key(&p), &p, m),
                    position_key(&after),
                    "{fen} {m:?}"
                );
                seen += 1;
            }
        }
        assert!(seen > 100, "{seen} moves");
    }

    #[test]
    fn every_legal_move_has_its_own_code_and_comes_back() {
        for fen in [
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1",
        ] {
            let p = pos(fen);
            let moves = p.legal_moves();
            let mut codes: Vec<u16> = moves.iter().map(move_code).collect();
            codes.sort_unstable();
            codes.dedup();
            assert_eq!(codes.len(), moves.len(), "{fen}");
            for m in &moves {
                let code = move_code(m);
                assert!(code < NULL_MOVE);
                assert_eq!(move_of(&p, code).as_ref(), Some(m), "{fen} {m:?}");
            }
        }
    }
}
