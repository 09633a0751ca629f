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

use std::sync::LazyLock;

use shakmaty::{Board, CastlingSide, Color, File, Move, Rank, Role, Square};

use super::table::Piece;

/// The pieces of both sides in slot order, with where each square's piece is kept: arrays,
/// not lists on the heap, so a game's slots are made and a variation's kept without
/// allocating, and a move finds its piece's slot at once.
#[derive(Clone, Debug)]
pub(super) struct Slots {
    /// Per side (White first) [`PER_SIDE`] places: the queens', rooks', bishops' and
    /// knights' slots ([`KIND_SLOTS`] each, in slot order, the used ones first), then the
    /// pawns' eight.
    places: [Option<Square>; 2 * PER_SIDE],
    /// Per side, how many slots of each kind are used.
    used: [[u8; 4]; 2],
    /// Per square, the place of the piece on it ([`NONE`]: none, or the king, which has
    /// no slot).
    at: [u8; 64],
}

/// The slots of one kind of piece a side can have: a side has at most 16 pieces (shakmaty
/// holds a start position to it, and a promoted piece takes its pawn's place), so 15
/// besides the king.
const KIND_SLOTS: usize = 15;

/// Where a side's pawns are kept, past its pieces' slots.
const PAWNS: usize = 4 * KIND_SLOTS;

/// The places of one side.
const PER_SIDE: usize = PAWNS + 8;

/// No place: an empty square, or the king's.
const NONE: u8 = u8::MAX;

impl Default for Slots {
    fn default() -> Slots {
        Slots {
            places: [None; 2 * PER_SIDE],
            used: [[0; 4]; 2],
            at: [NONE; 64],
        }
    }
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

/// The first place of `color`'s slots of kind `kind` (0 queens … 3 knights).
fn kind_start(color: Color, kind: usize) -> usize {
    color as usize * PER_SIDE + kind * KIND_SLOTS
}

impl Slots {
    /// The slots of the pieces on `board`, numbered in ChessBase's scan order; `None` when
    /// a side has more than eight pawns.
    pub(super) fn of(board: &Board) -> Option<Slots> {
        /// The standard position's slots (nearly every game's start), numbered once.
        static STANDARD: LazyLock<Slots> =
            LazyLock::new(|| Slots::scan(&Board::default()).unwrap_or_default());
        if *board == Board::default() {
            return Some(STANDARD.clone());
        }
        Slots::scan(board)
    }

    /// [`Slots::of`], square by square.
    fn scan(board: &Board) -> Option<Slots> {
        let mut slots = Slots::default();
        // Mirrored on the diagonal, shakmaty's order of squares (a1, b1, …) is ChessBase's
        // (a1, a2, …): the occupied squares alone, in ChessBase's order.
        for mirrored in board.occupied().flip_diagonal() {
            let sq = mirrored.flip_diagonal();
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            match kind_index(piece.role) {
                Some(kind) => slots.push(piece.color, kind, sq),
                None if piece.role == Role::Pawn => {
                    let side = piece.color as usize * PER_SIDE;
                    let free =
                        (side + PAWNS..side + PER_SIDE).find(|&p| slots.places[p].is_none())?;
                    slots.put(free, sq);
                }
                None => {}
            }
        }
        Some(slots)
    }

    /// The square of `color`'s piece of kind `piece` in slot `slot` (not the king's).
    pub(super) fn piece(&self, color: Color, piece: Piece, slot: u8) -> Option<Square> {
        let kind = kind_index(role_of(piece))?;
        let slot = usize::from(slot);
        (slot < usize::from(self.used[color as usize][kind]))
            .then(|| self.places[kind_start(color, kind) + slot])
            .flatten()
    }

    /// The square of `color`'s pawn in slot `slot`.
    pub(super) fn pawn(&self, color: Color, slot: u8) -> Option<Square> {
        let slot = usize::from(slot);
        (slot < 8)
            .then(|| self.places[color as usize * PER_SIDE + PAWNS + slot])
            .flatten()
    }

    /// The piece on `sq` is kept at `place`.
    fn put(&mut self, place: usize, sq: Square) {
        self.places[place] = Some(sq);
        self.at[sq as usize] = place as u8;
    }

    /// A piece of `color`'s kind `kind` on `sq` takes the kind's next slot (none past the
    /// last: a side has no more pieces).
    fn push(&mut self, color: Color, kind: usize, sq: Square) {
        let used = &mut self.used[color as usize][kind];
        if usize::from(*used) < KIND_SLOTS {
            let place = kind_start(color, kind) + usize::from(*used);
            *used += 1;
            self.put(place, sq);
        }
    }

    /// The piece on `sq` leaves its slot (it was captured, or promoted); the later ones of
    /// its kind move up.
    fn remove(&mut self, sq: Square) {
        let place = usize::from(std::mem::replace(&mut self.at[sq as usize], NONE));
        let Some(slot) = self.places.get_mut(place) else {
            return;
        };
        *slot = None;
        let (side, within) = (place / PER_SIDE, place % PER_SIDE);
        if within >= PAWNS {
            return;
        }
        let kind = within / KIND_SLOTS;
        let used = &mut self.used[side][kind];
        let end = side * PER_SIDE + kind * KIND_SLOTS + usize::from(*used);
        *used -= 1;
        for later in place + 1..end {
            if let Some(moved) = self.places[later] {
                self.put(later - 1, moved);
            }
        }
        self.places[end - 1] = None;
    }

    /// The piece on `from` moves to `to`, in its slot.
    fn relocate(&mut self, from: Square, to: Square) {
        let place = std::mem::replace(&mut self.at[from as usize], NONE);
        if place != NONE {
            self.put(usize::from(place), to);
        }
    }

    /// Follow `m`, a legal move of `color`.
    pub(super) fn play(&mut self, color: Color, m: &Move) {
        match *m {
            Move::Normal {
                from,
                capture,
                to,
                promotion,
                ..
            } => {
                if capture.is_some() {
                    self.remove(to);
                }
                match promotion {
                    Some(new) => {
                        self.remove(from);
                        if let Some(kind) = kind_index(new) {
                            self.push(color, kind, to);
                        }
                    }
                    None => self.relocate(from, to),
                }
            }
            Move::EnPassant { from, to } => {
                self.remove(Square::from_coords(to.file(), from.rank()));
                self.relocate(from, to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                self.relocate(rook, Square::from_coords(side.rook_to_file(), rook.rank()));
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
        slots.remove(Square::A1);
        assert_eq!(slots.piece(Color::White, Piece::Rook, 0), Some(Square::H1));
        assert_eq!(slots.piece(Color::White, Piece::Rook, 1), None);
        slots.relocate(Square::H1, Square::H5);
        assert_eq!(slots.piece(Color::White, Piece::Rook, 0), Some(Square::H5));
        slots.remove(Square::D2);
        assert_eq!(slots.pawn(Color::White, 3), None);
        assert_eq!(slots.pawn(Color::White, 4), Some(Square::E2));
    }
}
