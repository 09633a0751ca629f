//! SCID's piece numbering (docs/formats/scid4.md §5.3).
//!
//! A SCID 4 move byte does not name a square: its high nibble is the index of the moving piece
//! in the mover's *piece list*. Both the decoder and the encoder must keep these lists exactly
//! as SCID does, or every move after the first difference decodes to the wrong piece.

use shakmaty::{Board, CastlingSide, Chess, Color, File, Move, Position, Rank, Square};

use crate::game::chess::Ply;

/// The most pieces one side can have, and so the length of a piece list (4-bit piece index).
pub(crate) const MAX_PIECES: usize = 16;

/// Marks a square without an indexed piece in the reverse map.
const NO_INDEX: u8 = 0xFF;

/// SCID's per-colour piece lists (spec §5.3): index 0..16 → square, used to decode and encode
/// move bytes. The king is always index 0. Kept small and `Copy` because every variation starts
/// from a copy of the lists as they were before the move it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PieceLists {
    /// `squares[colour][index]`: the square (0..64) of each piece; valid below `counts[colour]`.
    squares: [[u8; MAX_PIECES]; 2],
    /// How many pieces each colour has in its list.
    counts: [u8; 2],
    /// Reverse map: square → index in the list of the colour standing there, or `NO_INDEX`.
    index: [u8; 64],
}

/// The slot of a colour in the per-colour arrays.
fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl PieceLists {
    /// Lists with no pieces at all; filled by [`PieceLists::from_board`].
    fn empty() -> PieceLists {
        PieceLists {
            squares: [[0; MAX_PIECES]; 2],
            counts: [0; 2],
            index: [NO_INDEX; 64],
        }
    }

    /// The lists of a game from the standard start without a FEN: K=0, Ra1=1, Nb1=2, Bc1=3,
    /// Qd1=4, Bf1=5, Ng1=6, Rh1=7, pawns a..h = 8..15, the same scheme for Black (spec §13.1).
    pub(crate) fn standard() -> PieceLists {
        const BACK_RANK: [u8; 8] = [4, 0, 1, 2, 3, 5, 6, 7];
        let mut lists = PieceLists::empty();
        for (color, back, pawns) in [(Color::White, 0u8, 8u8), (Color::Black, 56, 48)] {
            let c = side(color);
            for (i, file) in BACK_RANK.iter().enumerate() {
                lists.put(c, i, back + file);
            }
            for file in 0..8u8 {
                lists.put(c, 8 + usize::from(file), pawns + file);
            }
            lists.counts[c] = 16;
        }
        lists
    }

    /// The lists of a game that starts from a FEN (every game with SCID's start flag, even when
    /// the FEN is the standard position): pieces are numbered in FEN scan order a8..h8, a7..h7,
    /// …, a1..h1; a king takes index 0 and the piece that held it moves to the end.
    ///
    /// A legal chess position has at most 16 pieces a side; on a board with more, only the first
    /// 16 of a colour are indexed (the king always is), as no move byte could name the others.
    pub(crate) fn from_board(board: &Board) -> PieceLists {
        let mut lists = PieceLists::empty();
        for rank in (0..8u32).rev() {
            for file in 0..8u32 {
                let sq = Square::from_coords(File::new(file), Rank::new(rank));
                let Some(piece) = board.piece_at(sq) else {
                    continue;
                };
                let c = side(piece.color);
                let n = usize::from(lists.counts[c]);
                let sq = sq as u8;
                if piece.role == shakmaty::Role::King {
                    if n > 0 {
                        let displaced = lists.squares[c][0];
                        if n < MAX_PIECES {
                            lists.put(c, n, displaced);
                        } else {
                            lists.index[usize::from(displaced)] = NO_INDEX;
                        }
                    }
                    lists.put(c, 0, sq);
                } else if n >= MAX_PIECES {
                    continue;
                } else {
                    lists.put(c, n, sq);
                }
                lists.counts[c] = (n + 1).min(MAX_PIECES) as u8;
            }
        }
        lists
    }

    /// Store square `sq` at `index` of colour slot `c` and update the reverse map.
    fn put(&mut self, c: usize, index: usize, sq: u8) {
        self.squares[c][index] = sq;
        self.index[usize::from(sq)] = index as u8;
    }

    /// How many pieces `color` has in its list.
    pub(crate) fn count(&self, color: Color) -> usize {
        usize::from(self.counts[side(color)])
    }

    /// The square of `color`'s piece number `index`, or `None` if there is no such piece
    /// (a move byte naming it is corrupt).
    pub(crate) fn square(&self, color: Color, index: u8) -> Option<Square> {
        let c = side(color);
        (index < self.counts[c])
            .then(|| Square::new(u32::from(self.squares[c][usize::from(index)])))
    }

    /// The index of `color`'s piece on `sq`, or `None` if no piece of that colour stands there.
    /// The encoder needs it to write a move's high nibble.
    pub(crate) fn index_of(&self, color: Color, sq: Square) -> Option<u8> {
        let c = side(color);
        let i = self.index[sq as usize];
        (i < self.counts[c] && self.squares[c][usize::from(i)] == sq as u8).then_some(i)
    }

    /// Update the lists for `ply` played in `pos_before` (the position before it), as SCID does
    /// after every move of the main line and of variations: the mover keeps its index (also on
    /// promotion); a captured piece, en passant included, is swap-removed from the opponent's
    /// list; castling keeps the king at 0 and the rook at its own index; a null move changes
    /// nothing. Squares without an indexed piece are ignored, so this never fails.
    pub(crate) fn apply(&mut self, pos_before: &Chess, ply: &Ply) {
        let Ply::Move(m) = ply else {
            return;
        };
        let us = pos_before.turn();
        match *m {
            Move::Normal {
                from, capture, to, ..
            } => {
                if capture.is_some() {
                    self.remove(!us, to);
                }
                self.relocate(us, from, to);
            }
            Move::EnPassant { from, to } => {
                self.remove(!us, Square::from_coords(to.file(), from.rank()));
                self.relocate(us, from, to);
            }
            Move::Castle { king, rook } => {
                let castling = CastlingSide::from_king_side(king < rook);
                let c = side(us);
                let ki = self.index_of(us, king);
                let ri = self.index_of(us, rook);
                self.index[king as usize] = NO_INDEX;
                self.index[rook as usize] = NO_INDEX;
                if let Some(i) = ki {
                    self.put(c, usize::from(i), castling.king_to(us) as u8);
                }
                if let Some(i) = ri {
                    self.put(c, usize::from(i), castling.rook_to(us) as u8);
                }
            }
            Move::Put { .. } => {}
        }
    }

    /// [`apply`](Self::apply) for a ply whose mover the caller knows by its `index` (the
    /// decoder reads it from the move byte): the same lists, without looking the mover up.
    pub(crate) fn apply_indexed(&mut self, pos_before: &Chess, ply: &Ply, index: u8) {
        match *ply {
            Ply::Move(Move::Normal {
                from, capture, to, ..
            }) => {
                let us = pos_before.turn();
                if capture.is_some() {
                    self.remove(!us, to);
                }
                self.index[from as usize] = NO_INDEX;
                self.put(side(us), usize::from(index), to as u8);
            }
            _ => self.apply(pos_before, ply),
        }
    }

    /// Swap-remove `color`'s piece on `sq`: the last piece of the list moves into its slot.
    fn remove(&mut self, color: Color, sq: Square) {
        let Some(i) = self.index_of(color, sq) else {
            return;
        };
        let c = side(color);
        let last = self.counts[c] - 1;
        let last_sq = self.squares[c][usize::from(last)];
        self.put(c, usize::from(i), last_sq);
        self.counts[c] = last;
        self.index[sq as usize] = NO_INDEX;
    }

    /// Move `color`'s piece on `from` to `to`, keeping its index.
    fn relocate(&mut self, color: Color, from: Square, to: Square) {
        let Some(i) = self.index_of(color, from) else {
            return;
        };
        self.index[from as usize] = NO_INDEX;
        self.put(side(color), usize::from(i), to as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::replay::{play, position_from_fen};
    use shakmaty::{Role, san::San};

    /// Check that the lists agree with the board: every indexed square holds a piece of its
    /// colour, every piece is indexed, and the king is at 0.
    fn assert_consistent(lists: &PieceLists, pos: &Chess) {
        for color in [Color::White, Color::Black] {
            let n = lists.count(color);
            assert_eq!(n, pos.board().by_color(color).count(), "{color:?} count");
            for i in 0..n as u8 {
                let sq = lists.square(color, i).unwrap();
                let piece = pos
                    .board()
                    .piece_at(sq)
                    .expect("indexed square is occupied");
                assert_eq!(piece.color, color);
                assert_eq!(lists.index_of(color, sq), Some(i));
                if i == 0 {
                    assert_eq!(piece.role, Role::King);
                }
            }
            assert_eq!(lists.square(color, n as u8), None);
        }
    }

    fn play_san(pos: &Chess, lists: &mut PieceLists, san: &str) -> Chess {
        let m = san.parse::<San>().unwrap().to_move(pos).unwrap();
        let ply = Ply::Move(m);
        lists.apply(pos, &ply);
        let next = play(pos, &ply).unwrap();
        assert_consistent(lists, &next);
        next
    }

    #[test]
    fn standard_numbering() {
        let l = PieceLists::standard();
        let expect = [
            (0, Square::E1),
            (1, Square::A1),
            (2, Square::B1),
            (3, Square::C1),
            (4, Square::D1),
            (5, Square::F1),
            (6, Square::G1),
            (7, Square::H1),
            (8, Square::A2),
            (12, Square::E2),
            (15, Square::H2),
        ];
        for (i, sq) in expect {
            assert_eq!(l.square(Color::White, i), Some(sq));
            assert_eq!(l.index_of(Color::White, sq), Some(i));
            let black = sq.flip_vertical();
            assert_eq!(l.square(Color::Black, i), Some(black));
        }
        assert_eq!(l.square(Color::White, 16), None);
        assert_eq!(l.index_of(Color::White, Square::E8), None);
        assert_eq!(l.index_of(Color::Black, Square::E8), Some(0));
        assert_eq!(l.index_of(Color::White, Square::E4), None);
        assert_consistent(&l, &Chess::default());
    }

    #[test]
    fn fen_numbering_of_the_spec_example() {
        let pos = position_from_fen("rnb1k2Q/1p5p/p7/4p3/4q3/8/PPP2R1P/2K5 b - - 0 1").unwrap();
        let l = PieceLists::from_board(pos.board());
        // Black: scan a8 r, b8 n, c8 b, e8 k (k→0, r→3), b7 p, h7 p, a6 p, e5 p, e4 q.
        let black = [
            Square::E8,
            Square::B8,
            Square::C8,
            Square::A8,
            Square::B7,
            Square::H7,
            Square::A6,
            Square::E5,
            Square::E4,
        ];
        for (i, sq) in black.iter().enumerate() {
            assert_eq!(l.square(Color::Black, i as u8), Some(*sq), "black {i}");
        }
        // White: Q h8 first, then a2 b2 c2 f2 h2, then K c1 → 0 and Q to the end (6).
        let white = [
            Square::C1,
            Square::A2,
            Square::B2,
            Square::C2,
            Square::F2,
            Square::H2,
            Square::H8,
        ];
        for (i, sq) in white.iter().enumerate() {
            assert_eq!(l.square(Color::White, i as u8), Some(*sq), "white {i}");
        }
        assert_eq!(l.count(Color::White), 7);
        assert_eq!(l.count(Color::Black), 9);
        assert_consistent(&l, &pos);
    }

    #[test]
    fn standard_fen_numbers_in_scan_order() {
        let l = PieceLists::from_board(Chess::default().board());
        let white = [
            Square::E1,
            Square::B2,
            Square::C2,
            Square::D2,
            Square::E2,
            Square::F2,
            Square::G2,
            Square::H2,
            Square::A1,
            Square::B1,
            Square::C1,
            Square::D1,
            Square::A2,
            Square::F1,
            Square::G1,
            Square::H1,
        ];
        for (i, sq) in white.iter().enumerate() {
            assert_eq!(l.square(Color::White, i as u8), Some(*sq), "white {i}");
        }
        // So 1.e4 is piece 4 (e2), code 15: byte 0x4F.
        assert_eq!(l.index_of(Color::White, Square::E2), Some(4));
        assert_eq!(l.index_of(Color::White, Square::A2), Some(12));
        // Black: a8 r=0 until e8 k: k→0, r→4; b8..d8 = 1..3, f8 g8 h8 = 5..7, pawns 8..15.
        assert_eq!(l.square(Color::Black, 0), Some(Square::E8));
        assert_eq!(l.square(Color::Black, 4), Some(Square::A8));
        assert_eq!(l.square(Color::Black, 8), Some(Square::A7));
        assert_consistent(&l, &Chess::default());
    }

    #[test]
    fn capture_is_a_swap_remove() {
        let mut l = PieceLists::standard();
        let mut pos = Chess::default();
        for san in ["e4", "d5"] {
            pos = play_san(&pos, &mut l, san);
        }
        // d5 is black piece 11; h7 (15) is last.
        assert_eq!(l.index_of(Color::Black, Square::D5), Some(11));
        pos = play_san(&pos, &mut l, "exd5");
        assert_eq!(l.count(Color::Black), 15);
        assert_eq!(l.index_of(Color::Black, Square::H7), Some(11));
        assert_eq!(l.index_of(Color::White, Square::D5), Some(12));
        // Capturing the last piece of the list just shortens it.
        pos = play_san(&pos, &mut l, "Qxd5");
        assert_eq!(l.index_of(Color::Black, Square::D5), Some(4));
        assert_eq!(l.count(Color::White), 15);
        assert_eq!(l.index_of(Color::White, Square::H2), Some(12));
        let _ = pos;
    }

    #[test]
    fn en_passant_removes_the_passed_pawn() {
        let mut l = PieceLists::standard();
        let mut pos = Chess::default();
        for san in ["e4", "a6", "e5", "d5"] {
            pos = play_san(&pos, &mut l, san);
        }
        pos = play_san(&pos, &mut l, "exd6");
        assert_eq!(l.count(Color::Black), 15);
        assert_eq!(l.index_of(Color::Black, Square::D5), None);
        assert_eq!(l.index_of(Color::Black, Square::H7), Some(11));
        assert_eq!(l.index_of(Color::White, Square::D6), Some(12));
        let _ = pos;
    }

    #[test]
    fn promotion_keeps_the_index() {
        let pos = position_from_fen("8/1P2k3/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let mut l = PieceLists::from_board(pos.board());
        // Scan order: b7 pawn first (0), then the king on e1 takes 0 and the pawn moves to 1.
        assert_eq!(l.index_of(Color::White, Square::B7), Some(1));
        let pawn = 1;
        let _ = play_san(&pos, &mut l, "b8=N");
        assert_eq!(l.index_of(Color::White, Square::B8), Some(pawn));
    }

    #[test]
    fn castling_keeps_king_and_rook_indexes() {
        let mut l = PieceLists::standard();
        let mut pos = Chess::default();
        for san in [
            "e4", "d5", "Nf3", "Qd6", "Be2", "Bd7", "d3", "Nc6", "O-O", "O-O-O",
        ] {
            pos = play_san(&pos, &mut l, san);
        }
        assert_eq!(l.index_of(Color::White, Square::G1), Some(0));
        assert_eq!(l.index_of(Color::White, Square::F1), Some(7));
        assert_eq!(l.index_of(Color::Black, Square::C8), Some(0));
        assert_eq!(l.index_of(Color::Black, Square::D8), Some(1));
    }

    #[test]
    fn null_move_changes_nothing() {
        let mut l = PieceLists::standard();
        l.apply(&Chess::default(), &Ply::Null);
        assert_eq!(l, PieceLists::standard());
    }

    #[test]
    fn random_playouts_stay_consistent() {
        // Lists must follow the board through captures, promotions, en passant and castling
        // in long random games.
        let mut rng = crate::testing::Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200 {
            let mut pos = Chess::default();
            let mut l = PieceLists::standard();
            for _ in 0..300 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = *rng.pick(&moves);
                let ply = Ply::Move(m);
                let mut indexed = l;
                let mover = l.index_of(pos.turn(), m.from().unwrap()).unwrap();
                indexed.apply_indexed(&pos, &ply, mover);
                l.apply(&pos, &ply);
                assert_eq!(indexed, l, "{m:?}");
                pos = play(&pos, &ply).unwrap();
                assert_consistent(&l, &pos);
            }
        }
    }
}
