//! Which piece each slot of ChessBase's compact move encoding names: the encoding moves "the
//! second rook" or "the d-pawn", so the decoder keeps, beside the position, the squares of
//! each side's pieces in slot order.
//!
//! At the start the pieces are numbered in the order the squares are scanned, a1, a2, …, a8,
//! b1, …, h8 (the standard position's first rook is on a1, its a-pawn on a2). A queen, rook,
//! bishop or knight that is captured leaves its slot and the later ones move up one; a pawn's
//! slot never changes (it empties when the pawn is captured or promotes); a promoted piece
//! takes the next slot of its kind. Only the first three slots of a kind have single-byte
//! codes: a fourth piece moves by two-byte moves (docs/formats/chessbase.md).

use shakmaty::{Board, CastlingSide, Color, File, Move, Rank, Role, Square};

use super::table::Piece;

/// The pieces of both sides in slot order.
#[derive(Clone, Debug, Default)]
pub(super) struct Slots {
    /// Per side (White first), the queens, rooks, bishops and knights, each in slot order.
    pieces: [[Vec<Square>; 4]; 2],
    /// Per side, the pawns by slot.
    pawns: [[Option<Square>; 8]; 2],
}

/// Where a role's slots are kept (`None` for the king and pawns).
fn kind_index(role: Role) -> Option<usize> {
    match role {
        Role::Queen => Some(0),
        Role::Rook => Some(1),
        Role::Bishop => Some(2),
        Role::Knight => Some(3),
        Role::King | Role::Pawn => None,
    }
}

/// The role of a piece that moves by slot.
pub(super) fn role_of(piece: Piece) -> Role {
    match piece {
        Piece::King => Role::King,
        Piece::Queen => Role::Queen,
        Piece::Rook => Role::Rook,
        Piece::Bishop => Role::Bishop,
        Piece::Knight => Role::Knight,
    }
}

/// A square from ChessBase's numbering: file times eight plus rank (a1 = 0, a2 = 1, b1 = 8).
pub(super) fn square(index: u8) -> Square {
    Square::from_coords(
        File::new(u32::from(index / 8 % 8)),
        Rank::new(u32::from(index % 8)),
    )
}

impl Slots {
    /// The slots of the pieces on `board`, numbered in ChessBase's scan order; `None` when
    /// a side has more than eight pawns.
    pub(super) fn of(board: &Board) -> Option<Slots> {
        let mut slots = Slots::default();
        for index in 0..64 {
            let sq = square(index);
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            let side = piece.color as usize;
            match kind_index(piece.role) {
                Some(kind) => slots.pieces[side][kind].push(sq),
                None if piece.role == Role::Pawn => {
                    let free = slots.pawns[side].iter_mut().find(|p| p.is_none())?;
                    *free = Some(sq);
                }
                None => {}
            }
        }
        Some(slots)
    }

    /// The square of `color`'s piece of kind `piece` in slot `slot` (not the king's).
    pub(super) fn piece(&self, color: Color, piece: Piece, slot: u8) -> Option<Square> {
        let kind = kind_index(role_of(piece))?;
        self.pieces[color as usize][kind]
            .get(usize::from(slot))
            .copied()
    }

    /// The square of `color`'s pawn in slot `slot`.
    pub(super) fn pawn(&self, color: Color, slot: u8) -> Option<Square> {
        self.pawns[color as usize]
            .get(usize::from(slot))
            .copied()
            .flatten()
    }

    /// Take the piece of `color` on `sq` off its slot (it was captured).
    fn remove(&mut self, color: Color, sq: Square) {
        let side = color as usize;
        if let Some(p) = self.pawns[side].iter_mut().find(|p| **p == Some(sq)) {
            *p = None;
            return;
        }
        for list in &mut self.pieces[side] {
            if let Some(i) = list.iter().position(|&s| s == sq) {
                list.remove(i);
                return;
            }
        }
    }

    /// Move `color`'s piece of `role` on `from` to `to`, in its slot.
    fn relocate(&mut self, color: Color, role: Role, from: Square, to: Square) {
        let side = color as usize;
        let slot = match kind_index(role) {
            Some(kind) => self.pieces[side][kind].iter_mut().find(|s| **s == from),
            None if role == Role::Pawn => {
                self.pawns[side].iter_mut().flatten().find(|s| **s == from)
            }
            None => None,
        };
        if let Some(s) = slot {
            *s = to;
        }
    }

    /// Follow `m`, a legal move of `color`.
    pub(super) fn play(&mut self, color: Color, m: &Move) {
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                if capture.is_some() {
                    self.remove(!color, to);
                }
                match promotion {
                    Some(new) => {
                        self.remove(color, from);
                        if let Some(kind) = kind_index(new) {
                            self.pieces[color as usize][kind].push(to);
                        }
                    }
                    None => self.relocate(color, role, from, to),
                }
            }
            Move::EnPassant { from, to } => {
                self.remove(!color, Square::from_coords(to.file(), from.rank()));
                self.relocate(color, Role::Pawn, from, to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                let target = Square::from_coords(side.rook_to_file(), rook.rank());
                self.relocate(color, Role::Rook, rook, target);
            }
            Move::Put { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn the_standard_position_numbers_pieces_from_a1() {
        let slots = Slots::of(Chess::default().board()).unwrap();
        assert_eq!(slots.piece(Color::White, Piece::Rook, 0), Some(Square::A1));
        assert_eq!(slots.piece(Color::White, Piece::Rook, 1), Some(Square::H1));
        assert_eq!(
            slots.piece(Color::Black, Piece::Knight, 1),
            Some(Square::G8)
        );
        assert_eq!(slots.piece(Color::White, Piece::Queen, 1), None);
        assert_eq!(slots.pawn(Color::Black, 3), Some(Square::D7));
        assert_eq!(square(8), Square::B1);
    }

    #[test]
    fn a_captured_piece_leaves_its_slot_and_later_ones_move_up() {
        let mut slots = Slots::of(Chess::default().board()).unwrap();
        slots.remove(Color::White, Square::A1);
        assert_eq!(slots.piece(Color::White, Piece::Rook, 0), Some(Square::H1));
        slots.remove(Color::White, Square::D2);
        assert_eq!(slots.pawn(Color::White, 3), None);
        assert_eq!(slots.pawn(Color::White, 4), Some(Square::E2));
    }
}
