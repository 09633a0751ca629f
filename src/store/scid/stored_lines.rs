//! SCID's fixed table of 254 opening lines and the stored-line code of a game
//! (docs/formats/scid4.md §3.8, Appendix A).
//!
//! The index keeps, per game, the code of the longest table line that is a prefix of the game's
//! main line. SCID's opening tree and position search take the next move *from this table*
//! without decoding the game, so a wrong non-zero code corrupts their answers: the table must be
//! SCID's own, move for move. It was generated from Appendix A (SAN) and checked against the
//! binary move data of SCID 4.7.4's `stored.cpp` (all 254 lines, 0 mismatches).

use shakmaty::Move;
use shakmaty::Square::{self, *};

use crate::game::chess::{Line, Ply, StartPosition};

/// One move of a stored line, compared the way SCID compares it: by from- and to-square, or,
/// for castling, as castling to the same side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StoredMove {
    /// A move from one square to another (never castling, en passant or a promotion).
    Normal {
        /// Origin square.
        from: Square,
        /// Destination square.
        to: Square,
    },
    /// Castling to one side (by whichever colour is to move at that ply).
    Castle {
        /// True for O-O, false for O-O-O.
        king_side: bool,
    },
}

/// One line of the table: its SAN text (exactly as in Appendix A and SCID's source) and moves.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoredLine {
    /// The line in SAN, e.g. `1.e4 c5`; documentation and test data only.
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "tests check the moves against it")
    )]
    pub san: &'static str,
    /// The moves of the line from the standard start position.
    pub moves: &'static [StoredMove],
}

/// Shorthand for a table move.
const fn mv(from: Square, to: Square) -> StoredMove {
    StoredMove::Normal { from, to }
}

/// O-O in the table.
const OO: StoredMove = StoredMove::Castle { king_side: true };

/// The code of a game that matches no table line (always safe: SCID then decodes the game).
pub(crate) const NO_STORED_LINE: u8 = 0;

/// The 254 stored lines; code `c` is `STORED_LINES[c - 1]`, in SCID's (Appendix A's) order.
pub(crate) const STORED_LINES: [StoredLine; 254] = [
    StoredLine {
        san: "1.b3",
        moves: &[mv(B2, B3)],
    },
    StoredLine {
        san: "1.c4",
        moves: &[mv(C2, C4)],
    },
    StoredLine {
        san: "1.c4 c5",
        moves: &[mv(C2, C4), mv(C7, C5)],
    },
    StoredLine {
        san: "1.c4 c5 2.Nf3",
        moves: &[mv(C2, C4), mv(C7, C5), mv(G1, F3)],
    },
    StoredLine {
        san: "1.c4 e5",
        moves: &[mv(C2, C4), mv(E7, E5)],
    },
    StoredLine {
        san: "1.c4 e5 2.Nc3",
        moves: &[mv(C2, C4), mv(E7, E5), mv(B1, C3)],
    },
    StoredLine {
        san: "1.c4 e5 2.Nc3 Nf6",
        moves: &[mv(C2, C4), mv(E7, E5), mv(B1, C3), mv(G8, F6)],
    },
    StoredLine {
        san: "1.c4 e6",
        moves: &[mv(C2, C4), mv(E7, E6)],
    },
    StoredLine {
        san: "1.c4 e6 2.Nf3",
        moves: &[mv(C2, C4), mv(E7, E6), mv(G1, F3)],
    },
    StoredLine {
        san: "1.c4 g6",
        moves: &[mv(C2, C4), mv(G7, G6)],
    },
    StoredLine {
        san: "1.c4 Nf6",
        moves: &[mv(C2, C4), mv(G8, F6)],
    },
    StoredLine {
        san: "1.c4 Nf6 2.Nc3",
        moves: &[mv(C2, C4), mv(G8, F6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.c4 Nf6 2.Nc3 e6",
        moves: &[mv(C2, C4), mv(G8, F6), mv(B1, C3), mv(E7, E6)],
    },
    StoredLine {
        san: "1.c4 Nf6 2.Nc3 g6",
        moves: &[mv(C2, C4), mv(G8, F6), mv(B1, C3), mv(G7, G6)],
    },
    StoredLine {
        san: "1.d4",
        moves: &[mv(D2, D4)],
    },
    StoredLine {
        san: "1.d4 d5",
        moves: &[mv(D2, D4), mv(D7, D5)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(C7, C6)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nc3",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(C7, C6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nc3 Nf6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(C7, C6),
            mv(B1, C3),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nc3 Nf6 4.Nf3",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(C7, C6),
            mv(B1, C3),
            mv(G8, F6),
            mv(G1, F3),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nf3",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(C7, C6), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nf3 Nf6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(C7, C6),
            mv(G1, F3),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nf3 Nf6 4.Nc3",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(C7, C6),
            mv(G1, F3),
            mv(G8, F6),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 c6 3.Nf3 Nf6 4.Nc3 e6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(C7, C6),
            mv(G1, F3),
            mv(G8, F6),
            mv(B1, C3),
            mv(E7, E6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 dxc4",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(D5, C4)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 dxc4 3.Nf3",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(D5, C4), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 dxc4 3.Nf3 Nf6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(D5, C4),
            mv(G1, F3),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 e6",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(E7, E6)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 e6 3.Nc3",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(E7, E6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 e6 3.Nc3 c6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(C7, C6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 e6 3.Nc3 Nf6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.c4 e6 3.Nf3",
        moves: &[mv(D2, D4), mv(D7, D5), mv(C2, C4), mv(E7, E6), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 d5 2.Nf3",
        moves: &[mv(D2, D4), mv(D7, D5), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 d5 2.Nf3 Nf6",
        moves: &[mv(D2, D4), mv(D7, D5), mv(G1, F3), mv(G8, F6)],
    },
    StoredLine {
        san: "1.d4 d5 2.Nf3 Nf6 3.c4",
        moves: &[mv(D2, D4), mv(D7, D5), mv(G1, F3), mv(G8, F6), mv(C2, C4)],
    },
    StoredLine {
        san: "1.d4 d5 2.Nf3 Nf6 3.c4 c6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(G1, F3),
            mv(G8, F6),
            mv(C2, C4),
            mv(C7, C6),
        ],
    },
    StoredLine {
        san: "1.d4 d5 2.Nf3 Nf6 3.c4 e6",
        moves: &[
            mv(D2, D4),
            mv(D7, D5),
            mv(G1, F3),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
        ],
    },
    StoredLine {
        san: "1.d4 d6",
        moves: &[mv(D2, D4), mv(D7, D6)],
    },
    StoredLine {
        san: "1.d4 d6 2.Nf3",
        moves: &[mv(D2, D4), mv(D7, D6), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 e6",
        moves: &[mv(D2, D4), mv(E7, E6)],
    },
    StoredLine {
        san: "1.d4 e6 2.c4",
        moves: &[mv(D2, D4), mv(E7, E6), mv(C2, C4)],
    },
    StoredLine {
        san: "1.d4 e6 2.c4 Nf6",
        moves: &[mv(D2, D4), mv(E7, E6), mv(C2, C4), mv(G8, F6)],
    },
    StoredLine {
        san: "1.d4 f5",
        moves: &[mv(D2, D4), mv(F7, F5)],
    },
    StoredLine {
        san: "1.d4 f5 2.g3 Nf6 3.Bg2",
        moves: &[mv(D2, D4), mv(F7, F5), mv(G2, G3), mv(G8, F6), mv(F1, G2)],
    },
    StoredLine {
        san: "1.d4 g6",
        moves: &[mv(D2, D4), mv(G7, G6)],
    },
    StoredLine {
        san: "1.d4 g6 2.c4 Bg7",
        moves: &[mv(D2, D4), mv(G7, G6), mv(C2, C4), mv(F8, G7)],
    },
    StoredLine {
        san: "1.d4 Nf6",
        moves: &[mv(D2, D4), mv(G8, F6)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Bg5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C1, G5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Bg5 Ne4",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C1, G5), mv(F6, E4)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 c5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4), mv(C7, C5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 c5 3.d5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4), mv(C7, C5), mv(D4, D5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 c5 3.d5 b5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(C7, C5),
            mv(D4, D5),
            mv(B7, B5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 c5 3.d5 b5 4.cxb5 a6",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(C7, C5),
            mv(D4, D5),
            mv(B7, B5),
            mv(C4, B5),
            mv(A7, A6),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.g3",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4), mv(E7, E6), mv(G2, G3)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.g3 d5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G2, G3),
            mv(D7, D5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4), mv(E7, E6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(F8, B4),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.e3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(F8, B4),
            mv(E2, E3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.e3 O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(F8, B4),
            mv(E2, E3),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.Qc2",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(F8, B4),
            mv(D1, C2),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.Qc2 O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(F8, B4),
            mv(D1, C2),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.Qc2 O-O 5.a3 Bxc3+ 6.Qxc3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(F8, B4),
            mv(D1, C2),
            OO,
            mv(A2, A3),
            mv(B4, C3),
            mv(C2, C3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nc3 d5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(B1, C3),
            mv(D7, D5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4), mv(E7, E6), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 b6",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(B7, B6),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 b6 4.a3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(B7, B6),
            mv(A2, A3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 b6 4.g3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(B7, B6),
            mv(G2, G3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 b6 4.g3 Ba6",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(B7, B6),
            mv(G2, G3),
            mv(C8, A6),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 Bb4+",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(F8, B4),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 d5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(D7, D5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 e6 3.Nf3 d5 4.Nc3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(E7, E6),
            mv(G1, F3),
            mv(D7, D5),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6",
        moves: &[mv(D2, D4), mv(G8, F6), mv(C2, C4), mv(G7, G6)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Be2 O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(F1, E2),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Be2 O-O 6.Nf3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(F1, E2),
            OO,
            mv(G1, F3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.f3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(F2, F3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.f3 O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(F2, F3),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.f3 O-O 6.Be3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(F2, F3),
            OO,
            mv(C1, E3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Nf3 O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(G1, F3),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Nf3 O-O 6.Be2",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(G1, F3),
            OO,
            mv(F1, E2),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Nf3 O-O 6.Be2 e5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(G1, F3),
            OO,
            mv(F1, E2),
            mv(E7, E5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Nf3 O-O 6.Be2 e5 7.O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(G1, F3),
            OO,
            mv(F1, E2),
            mv(E7, E5),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 Bg7 4.e4 d6 5.Nf3 O-O 6.Be2 e5 7.O-O Nc6 8.d5 Ne7",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(F8, G7),
            mv(E2, E4),
            mv(D7, D6),
            mv(G1, F3),
            OO,
            mv(F1, E2),
            mv(E7, E5),
            OO,
            mv(B8, C6),
            mv(D4, D5),
            mv(C6, E7),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 d5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(D7, D5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 d5 4.Nf3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(D7, D5),
            mv(G1, F3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 d5 4.cxd5 Nxd5",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(D7, D5),
            mv(C4, D5),
            mv(F6, D5),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.c4 g6 3.Nc3 d5 4.cxd5 Nxd5 5.e4 Nxc3 6.bxc3 Bg7",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(C2, C4),
            mv(G7, G6),
            mv(B1, C3),
            mv(D7, D5),
            mv(C4, D5),
            mv(F6, D5),
            mv(E2, E4),
            mv(D5, C3),
            mv(B2, C3),
            mv(F8, G7),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 c5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(C7, C5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 d5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(D7, D5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 e6",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(E7, E6)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 e6 3.Bg5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(E7, E6), mv(C1, G5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 e6 3.c4",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(E7, E6), mv(C2, C4)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(G7, G6)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.Bg5",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(G7, G6), mv(C1, G5)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.c4",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(G7, G6), mv(C2, C4)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.c4 Bg7",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(G1, F3),
            mv(G7, G6),
            mv(C2, C4),
            mv(F8, G7),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.c4 Bg7 4.Nc3",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(G1, F3),
            mv(G7, G6),
            mv(C2, C4),
            mv(F8, G7),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.c4 Bg7 4.Nc3 O-O",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(G1, F3),
            mv(G7, G6),
            mv(C2, C4),
            mv(F8, G7),
            mv(B1, C3),
            OO,
        ],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.g3",
        moves: &[mv(D2, D4), mv(G8, F6), mv(G1, F3), mv(G7, G6), mv(G2, G3)],
    },
    StoredLine {
        san: "1.d4 Nf6 2.Nf3 g6 3.g3 Bg7 4.Bg2",
        moves: &[
            mv(D2, D4),
            mv(G8, F6),
            mv(G1, F3),
            mv(G7, G6),
            mv(G2, G3),
            mv(F8, G7),
            mv(F1, G2),
        ],
    },
    StoredLine {
        san: "1.e4",
        moves: &[mv(E2, E4)],
    },
    StoredLine {
        san: "1.e4 c5",
        moves: &[mv(E2, E4), mv(C7, C5)],
    },
    StoredLine {
        san: "1.e4 c5 2.c3",
        moves: &[mv(E2, E4), mv(C7, C5), mv(C2, C3)],
    },
    StoredLine {
        san: "1.e4 c5 2.c3 d5 3.exd5 Qxd5 4.d4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(C2, C3),
            mv(D7, D5),
            mv(E4, D5),
            mv(D8, D5),
            mv(D2, D4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.c3 d5 3.exd5 Qxd5 4.d4 Nf6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(C2, C3),
            mv(D7, D5),
            mv(E4, D5),
            mv(D8, D5),
            mv(D2, D4),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.c3 Nf6 3.e5 Nd5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(C2, C3),
            mv(G8, F6),
            mv(E4, E5),
            mv(F6, D5),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.c3 Nf6 3.e5 Nd5 4.d4 cxd4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(C2, C3),
            mv(G8, F6),
            mv(E4, E5),
            mv(F6, D5),
            mv(D2, D4),
            mv(C5, D4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.d4 cxd4",
        moves: &[mv(E2, E4), mv(C7, C5), mv(D2, D4), mv(C5, D4)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nc3",
        moves: &[mv(E2, E4), mv(C7, C5), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nc3 Nc6",
        moves: &[mv(E2, E4), mv(C7, C5), mv(B1, C3), mv(B8, C6)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nc3 Nc6 3.g3",
        moves: &[mv(E2, E4), mv(C7, C5), mv(B1, C3), mv(B8, C6), mv(G2, G3)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nc3 Nc6 3.g3 g6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(B1, C3),
            mv(B8, C6),
            mv(G2, G3),
            mv(G7, G6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nc3 Nc6 3.g3 g6 4.Bg2 Bg7",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(B1, C3),
            mv(B8, C6),
            mv(G2, G3),
            mv(G7, G6),
            mv(F1, G2),
            mv(F8, G7),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nc3 Nc6 3.g3 g6 4.Bg2 Bg7 5.d3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(B1, C3),
            mv(B8, C6),
            mv(G2, G3),
            mv(G7, G6),
            mv(F1, G2),
            mv(F8, G7),
            mv(D2, D3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(D7, D6)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.Bb5+",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(D7, D6), mv(F1, B5)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(D7, D6), mv(D2, D4)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(A7, A6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Bc4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(A7, A6),
            mv(F1, C4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Be2",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(A7, A6),
            mv(F1, E2),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Be3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(A7, A6),
            mv(C1, E3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Bg5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(A7, A6),
            mv(C1, G5),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Bg5 e6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(A7, A6),
            mv(C1, G5),
            mv(E7, E6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 g6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(G7, G6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 g6 6.Be3 Bg7 7.f3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(G7, G6),
            mv(C1, E3),
            mv(F8, G7),
            mv(F2, F3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 g6 6.Be3 Bg7 7.f3 O-O",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(G7, G6),
            mv(C1, E3),
            mv(F8, G7),
            mv(F2, F3),
            OO,
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 Nc6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(B8, C6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 Nc6 6.Bg5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(B8, C6),
            mv(C1, G5),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 Nc6 6.Bg5 e6 7.Qd2",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(D7, D6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(B8, C6),
            mv(C1, G5),
            mv(E7, E6),
            mv(D1, D2),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(E7, E6)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d3",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(E7, E6), mv(D2, D3)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 a6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(A7, A6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 a6 5.Bd3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(A7, A6),
            mv(F1, D3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 Nc6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(B8, C6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 Nc6 5.Nc3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(B8, C6),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 Nc6 5.Nc3 Qc7",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(B8, C6),
            mv(B1, C3),
            mv(D8, C7),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 Nf6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 e6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 d6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(E7, E6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(B8, C6)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.Bb5",
        moves: &[mv(E2, E4), mv(C7, C5), mv(G1, F3), mv(B8, C6), mv(F1, B5)],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.Bb5 g6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(G7, G6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 e5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(E7, E5),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 g6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G7, G6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 d6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 d6 6.Bg5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(D7, D6),
            mv(C1, G5),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 e5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(E7, E5),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 e5 6.Ndb5 d6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(E7, E5),
            mv(D4, B5),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 e5 6.Ndb5 d6 7.Bg5 a6",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(E7, E5),
            mv(D4, B5),
            mv(D7, D6),
            mv(C1, G5),
            mv(A7, A6),
        ],
    },
    StoredLine {
        san: "1.e4 c5 2.Nf3 Nc6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 e5 6.Ndb5 d6 7.Bg5 a6 8.Na3 b5",
        moves: &[
            mv(E2, E4),
            mv(C7, C5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(C5, D4),
            mv(F3, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(E7, E5),
            mv(D4, B5),
            mv(D7, D6),
            mv(C1, G5),
            mv(A7, A6),
            mv(B5, A3),
            mv(B7, B5),
        ],
    },
    StoredLine {
        san: "1.e4 c6",
        moves: &[mv(E2, E4), mv(C7, C6)],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5",
        moves: &[mv(E2, E4), mv(C7, C6), mv(D2, D4), mv(D7, D5)],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.e5",
        moves: &[mv(E2, E4), mv(C7, C6), mv(D2, D4), mv(D7, D5), mv(E4, E5)],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.e5 Bf5",
        moves: &[
            mv(E2, E4),
            mv(C7, C6),
            mv(D2, D4),
            mv(D7, D5),
            mv(E4, E5),
            mv(C8, F5),
        ],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.exd5 cxd5",
        moves: &[
            mv(E2, E4),
            mv(C7, C6),
            mv(D2, D4),
            mv(D7, D5),
            mv(E4, D5),
            mv(C6, D5),
        ],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.exd5 cxd5 4.c4 Nf6 5.Nc3",
        moves: &[
            mv(E2, E4),
            mv(C7, C6),
            mv(D2, D4),
            mv(D7, D5),
            mv(E4, D5),
            mv(C6, D5),
            mv(C2, C4),
            mv(G8, F6),
            mv(B1, C3),
        ],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.Nc3",
        moves: &[mv(E2, E4), mv(C7, C6), mv(D2, D4), mv(D7, D5), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.Nc3 dxe4 4.Nxe4",
        moves: &[
            mv(E2, E4),
            mv(C7, C6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(D5, E4),
            mv(C3, E4),
        ],
    },
    StoredLine {
        san: "1.e4 c6 2.d4 d5 3.Nd2 dxe4 4.Nxe4",
        moves: &[
            mv(E2, E4),
            mv(C7, C6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, D2),
            mv(D5, E4),
            mv(D2, E4),
        ],
    },
    StoredLine {
        san: "1.e4 d5 2.exd5 Nf6",
        moves: &[mv(E2, E4), mv(D7, D5), mv(E4, D5), mv(G8, F6)],
    },
    StoredLine {
        san: "1.e4 d5 2.exd5 Qxd5",
        moves: &[mv(E2, E4), mv(D7, D5), mv(E4, D5), mv(D8, D5)],
    },
    StoredLine {
        san: "1.e4 d5 2.exd5 Qxd5 3.Nc3",
        moves: &[mv(E2, E4), mv(D7, D5), mv(E4, D5), mv(D8, D5), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 d5 2.exd5 Qxd5 3.Nc3 Qa5",
        moves: &[
            mv(E2, E4),
            mv(D7, D5),
            mv(E4, D5),
            mv(D8, D5),
            mv(B1, C3),
            mv(D5, A5),
        ],
    },
    StoredLine {
        san: "1.e4 d6",
        moves: &[mv(E2, E4), mv(D7, D6)],
    },
    StoredLine {
        san: "1.e4 d6 2.d4",
        moves: &[mv(E2, E4), mv(D7, D6), mv(D2, D4)],
    },
    StoredLine {
        san: "1.e4 d6 2.d4 Nf6",
        moves: &[mv(E2, E4), mv(D7, D6), mv(D2, D4), mv(G8, F6)],
    },
    StoredLine {
        san: "1.e4 d6 2.d4 Nf6 3.Nc3",
        moves: &[mv(E2, E4), mv(D7, D6), mv(D2, D4), mv(G8, F6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 d6 2.d4 Nf6 3.Nc3 g6",
        moves: &[
            mv(E2, E4),
            mv(D7, D6),
            mv(D2, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(G7, G6),
        ],
    },
    StoredLine {
        san: "1.e4 d6 2.d4 Nf6 3.Nc3 g6 4.f4 Bg7 5.Nf3",
        moves: &[
            mv(E2, E4),
            mv(D7, D6),
            mv(D2, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(G7, G6),
            mv(F2, F4),
            mv(F8, G7),
            mv(G1, F3),
        ],
    },
    StoredLine {
        san: "1.e4 d6 2.d4 Nf6 3.Nc3 g6 4.Nf3 Bg7",
        moves: &[
            mv(E2, E4),
            mv(D7, D6),
            mv(D2, D4),
            mv(G8, F6),
            mv(B1, C3),
            mv(G7, G6),
            mv(G1, F3),
            mv(F8, G7),
        ],
    },
    StoredLine {
        san: "1.e4 e5",
        moves: &[mv(E2, E4), mv(E7, E5)],
    },
    StoredLine {
        san: "1.e4 e5 2.f4",
        moves: &[mv(E2, E4), mv(E7, E5), mv(F2, F4)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nc3",
        moves: &[mv(E2, E4), mv(E7, E5), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3",
        moves: &[mv(E2, E4), mv(E7, E5), mv(G1, F3)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6",
        moves: &[mv(E2, E4), mv(E7, E5), mv(G1, F3), mv(B8, C6)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5",
        moves: &[mv(E2, E4), mv(E7, E5), mv(G1, F3), mv(B8, C6), mv(F1, B5)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O b5 6.Bb3",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(B7, B5),
            mv(A4, B3),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(F8, E7),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 d6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(F8, E7),
            mv(F1, E1),
            mv(B7, B5),
            mv(A4, B3),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 d6 8.c3 O-O",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(F8, E7),
            mv(F1, E1),
            mv(B7, B5),
            mv(A4, B3),
            mv(D7, D6),
            mv(C2, C3),
            OO,
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 d6 8.c3 O-O 9.h3",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(F8, E7),
            mv(F1, E1),
            mv(B7, B5),
            mv(A4, B3),
            mv(D7, D6),
            mv(C2, C3),
            OO,
            mv(H2, H3),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 d6 8.c3 O-O 9.h3 Na5 10.Bc2 c5 11.d4",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(F8, E7),
            mv(F1, E1),
            mv(B7, B5),
            mv(A4, B3),
            mv(D7, D6),
            mv(C2, C3),
            OO,
            mv(H2, H3),
            mv(C6, A5),
            mv(B3, C2),
            mv(C7, C5),
            mv(D2, D4),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 O-O",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(A7, A6),
            mv(B5, A4),
            mv(G8, F6),
            OO,
            mv(F8, E7),
            mv(F1, E1),
            mv(B7, B5),
            mv(A4, B3),
            OO,
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bb5 Nf6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, B5),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bc4",
        moves: &[mv(E2, E4), mv(E7, E5), mv(G1, F3), mv(B8, C6), mv(F1, C4)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Bc4 Nf6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(F1, C4),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.d4 exd4",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(E5, D4),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.d4 exd4 4.Nxd4",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(D2, D4),
            mv(E5, D4),
            mv(F3, D4),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Nc3",
        moves: &[mv(E2, E4), mv(E7, E5), mv(G1, F3), mv(B8, C6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nc6 3.Nc3 Nf6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(B8, C6),
            mv(B1, C3),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nf6",
        moves: &[mv(E2, E4), mv(E7, E5), mv(G1, F3), mv(G8, F6)],
    },
    StoredLine {
        san: "1.e4 e5 2.Nf3 Nf6 3.Nxe5 d6",
        moves: &[
            mv(E2, E4),
            mv(E7, E5),
            mv(G1, F3),
            mv(G8, F6),
            mv(F3, E5),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 e6",
        moves: &[mv(E2, E4), mv(E7, E6)],
    },
    StoredLine {
        san: "1.e4 e6 2.d3",
        moves: &[mv(E2, E4), mv(E7, E6), mv(D2, D3)],
    },
    StoredLine {
        san: "1.e4 e6 2.d4",
        moves: &[mv(E2, E4), mv(E7, E6), mv(D2, D4)],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5",
        moves: &[mv(E2, E4), mv(E7, E6), mv(D2, D4), mv(D7, D5)],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.e5 c5",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(E4, E5),
            mv(C7, C5),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.e5 c5 4.c3",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(E4, E5),
            mv(C7, C5),
            mv(C2, C3),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3",
        moves: &[mv(E2, E4), mv(E7, E6), mv(D2, D4), mv(D7, D5), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3 Bb4",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(F8, B4),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3 Bb4 4.e5",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(F8, B4),
            mv(E4, E5),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3 Bb4 4.e5 c5",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(F8, B4),
            mv(E4, E5),
            mv(C7, C5),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3 Bb4 4.e5 c5 5.a3 Bxc3+ 6.bxc3",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(F8, B4),
            mv(E4, E5),
            mv(C7, C5),
            mv(A2, A3),
            mv(B4, C3),
            mv(B2, C3),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3 Nf6",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nc3 Nf6 4.Bg5",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, C3),
            mv(G8, F6),
            mv(C1, G5),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nd2",
        moves: &[mv(E2, E4), mv(E7, E6), mv(D2, D4), mv(D7, D5), mv(B1, D2)],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nd2 c5",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, D2),
            mv(C7, C5),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nd2 Nf6",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, D2),
            mv(G8, F6),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nd2 Nf6 4.e5 Nfd7",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, D2),
            mv(G8, F6),
            mv(E4, E5),
            mv(F6, D7),
        ],
    },
    StoredLine {
        san: "1.e4 e6 2.d4 d5 3.Nd2 Nf6 4.e5 Nfd7 5.Bd3 c5 6.c3 Nc6 7.Ne2",
        moves: &[
            mv(E2, E4),
            mv(E7, E6),
            mv(D2, D4),
            mv(D7, D5),
            mv(B1, D2),
            mv(G8, F6),
            mv(E4, E5),
            mv(F6, D7),
            mv(F1, D3),
            mv(C7, C5),
            mv(C2, C3),
            mv(B8, C6),
            mv(G1, E2),
        ],
    },
    StoredLine {
        san: "1.e4 g6",
        moves: &[mv(E2, E4), mv(G7, G6)],
    },
    StoredLine {
        san: "1.e4 g6 2.d4",
        moves: &[mv(E2, E4), mv(G7, G6), mv(D2, D4)],
    },
    StoredLine {
        san: "1.e4 g6 2.d4 Bg7",
        moves: &[mv(E2, E4), mv(G7, G6), mv(D2, D4), mv(F8, G7)],
    },
    StoredLine {
        san: "1.e4 g6 2.d4 Bg7 3.Nc3",
        moves: &[mv(E2, E4), mv(G7, G6), mv(D2, D4), mv(F8, G7), mv(B1, C3)],
    },
    StoredLine {
        san: "1.e4 g6 2.d4 Bg7 3.Nc3 d6",
        moves: &[
            mv(E2, E4),
            mv(G7, G6),
            mv(D2, D4),
            mv(F8, G7),
            mv(B1, C3),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 Nf6",
        moves: &[mv(E2, E4), mv(G8, F6)],
    },
    StoredLine {
        san: "1.e4 Nf6 2.e5 Nd5",
        moves: &[mv(E2, E4), mv(G8, F6), mv(E4, E5), mv(F6, D5)],
    },
    StoredLine {
        san: "1.e4 Nf6 2.e5 Nd5 3.d4 d6",
        moves: &[
            mv(E2, E4),
            mv(G8, F6),
            mv(E4, E5),
            mv(F6, D5),
            mv(D2, D4),
            mv(D7, D6),
        ],
    },
    StoredLine {
        san: "1.e4 Nf6 2.e5 Nd5 3.d4 d6 4.Nf3",
        moves: &[
            mv(E2, E4),
            mv(G8, F6),
            mv(E4, E5),
            mv(F6, D5),
            mv(D2, D4),
            mv(D7, D6),
            mv(G1, F3),
        ],
    },
    StoredLine {
        san: "1.f4",
        moves: &[mv(F2, F4)],
    },
    StoredLine {
        san: "1.g3",
        moves: &[mv(G2, G3)],
    },
    StoredLine {
        san: "1.Nf3",
        moves: &[mv(G1, F3)],
    },
    StoredLine {
        san: "1.Nf3 c5",
        moves: &[mv(G1, F3), mv(C7, C5)],
    },
    StoredLine {
        san: "1.Nf3 c5 2.c4",
        moves: &[mv(G1, F3), mv(C7, C5), mv(C2, C4)],
    },
    StoredLine {
        san: "1.Nf3 d5",
        moves: &[mv(G1, F3), mv(D7, D5)],
    },
    StoredLine {
        san: "1.Nf3 d5 2.c4",
        moves: &[mv(G1, F3), mv(D7, D5), mv(C2, C4)],
    },
    StoredLine {
        san: "1.Nf3 d5 2.d4",
        moves: &[mv(G1, F3), mv(D7, D5), mv(D2, D4)],
    },
    StoredLine {
        san: "1.Nf3 d5 2.g3",
        moves: &[mv(G1, F3), mv(D7, D5), mv(G2, G3)],
    },
    StoredLine {
        san: "1.Nf3 g6",
        moves: &[mv(G1, F3), mv(G7, G6)],
    },
    StoredLine {
        san: "1.Nf3 Nf6",
        moves: &[mv(G1, F3), mv(G8, F6)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.c4",
        moves: &[mv(G1, F3), mv(G8, F6), mv(C2, C4)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.c4 c5",
        moves: &[mv(G1, F3), mv(G8, F6), mv(C2, C4), mv(C7, C5)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.c4 e6",
        moves: &[mv(G1, F3), mv(G8, F6), mv(C2, C4), mv(E7, E6)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.c4 g6",
        moves: &[mv(G1, F3), mv(G8, F6), mv(C2, C4), mv(G7, G6)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.c4 g6 3.Nc3",
        moves: &[mv(G1, F3), mv(G8, F6), mv(C2, C4), mv(G7, G6), mv(B1, C3)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.g3",
        moves: &[mv(G1, F3), mv(G8, F6), mv(G2, G3)],
    },
    StoredLine {
        san: "1.Nf3 Nf6 2.g3 g6",
        moves: &[mv(G1, F3), mv(G8, F6), mv(G2, G3), mv(G7, G6)],
    },
];

/// True when `ply` is the table move `m` (SCID compares squares, and castling by side only).
fn same_move(m: &StoredMove, ply: &Ply) -> bool {
    let Ply::Move(game) = ply else {
        return false;
    };
    match (*m, *game) {
        (StoredMove::Castle { king_side }, Move::Castle { king, rook }) => {
            king_side == (rook > king)
        }
        (StoredMove::Castle { .. }, _) | (_, Move::Castle { .. }) => false,
        (StoredMove::Normal { from, to }, g) => g.from() == Some(from) && g.to() == to,
    }
}

/// The numbers (indexes into [`STORED_LINES`], ascending) of the lines that open with each
/// first move, built once.
fn by_first_move() -> &'static [(StoredMove, Vec<usize>)] {
    static GROUPS: std::sync::OnceLock<Vec<(StoredMove, Vec<usize>)>> = std::sync::OnceLock::new();
    GROUPS.get_or_init(|| {
        let mut groups: Vec<(StoredMove, Vec<usize>)> = Vec::new();
        for (i, line) in STORED_LINES.iter().enumerate() {
            let Some(&first) = line.moves.first() else {
                continue;
            };
            match groups.iter_mut().find(|(m, _)| *m == first) {
                Some((_, lines)) => lines.push(i),
                None => groups.push((first, vec![i])),
            }
        }
        groups
    })
}

/// The stored-line code of a game (spec §3.8): the code of the longest table line that is a
/// prefix of the main line (the whole game may match), the lowest code on a tie as SCID's loop
/// keeps the first, and [`NO_STORED_LINE`] for none. Games from a FEN always get 0.
pub(crate) fn stored_line_code(start: &StartPosition, main_line: &Line) -> u8 {
    if *start != StartPosition::Standard {
        return NO_STORED_LINE;
    }
    let Some(first) = main_line.moves.first() else {
        return NO_STORED_LINE;
    };
    // Only the lines that open with the game's first move can match (one move never matches
    // two different stored moves).
    let Some((_, lines)) = by_first_move()
        .iter()
        .find(|(m, _)| same_move(m, &first.ply))
    else {
        return NO_STORED_LINE;
    };
    let mut best = NO_STORED_LINE;
    let mut longest = 0;
    for &i in lines {
        let n = STORED_LINES[i].moves.len();
        if n > longest && opens(&STORED_LINES[i], main_line) {
            best = (i + 1) as u8;
            longest = n;
        }
    }
    best
}

/// Whether `main_line` starts with every move of stored `line`.
fn opens(line: &StoredLine, main_line: &Line) -> bool {
    line.moves.len() <= main_line.moves.len()
        && line
            .moves
            .iter()
            .zip(&main_line.moves)
            .all(|(m, node)| same_move(m, &node.ply))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::chess::MoveNode;
    use crate::game::replay::play;
    use shakmaty::san::San;
    use shakmaty::{Chess, Position};

    /// The main line of a SAN move list such as `1.e4 c5 2.Nf3`.
    fn line(san: &str) -> Line {
        let mut pos = Chess::default();
        let mut line = Line::default();
        for tok in san.split_whitespace() {
            let tok = tok.rsplit('.').next().unwrap();
            let ply = if tok == "--" {
                Ply::Null
            } else {
                Ply::Move(tok.parse::<San>().unwrap().to_move(&pos).unwrap())
            };
            pos = play(&pos, &ply).unwrap();
            line.moves.push(MoveNode::new(ply));
        }
        line
    }

    /// FNV-1a, 64 bits.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
    }

    #[test]
    fn table_is_appendix_a_in_order() {
        // The hash of Appendix A's 254 SAN lines joined by newlines, computed from the table's
        // text in docs/formats/scid4.md.
        let text: Vec<&str> = STORED_LINES.iter().map(|l| l.san).collect();
        let text = text.join("\n");
        assert_eq!(
            (fnv1a(text.as_bytes()), text.len()),
            (0x4ab1_5a47_600a_3ccd, 7162)
        );
        assert_eq!(STORED_LINES[0].san, "1.b3");
        assert_eq!(STORED_LINES[106].san, "1.e4 c5");
        assert_eq!(STORED_LINES[253].san, "1.Nf3 Nf6 2.g3 g6");
    }

    #[test]
    fn every_line_is_legal_and_matches_its_san() {
        for (i, l) in STORED_LINES.iter().enumerate() {
            let game = line(l.san);
            assert_eq!(game.moves.len(), l.moves.len(), "line {}", i + 1);
            for (m, node) in l.moves.iter().zip(&game.moves) {
                assert!(same_move(m, &node.ply), "line {}: {m:?}", i + 1);
            }
            // Every line classifies as itself (no two lines are equal).
            assert_eq!(
                stored_line_code(&StartPosition::Standard, &game),
                (i + 1) as u8,
                "{}",
                l.san
            );
        }
    }

    /// The plain scan over every line, as SCID does it.
    fn reference_code(main_line: &Line) -> u8 {
        let mut best = NO_STORED_LINE;
        let mut longest = 0;
        for (i, line) in STORED_LINES.iter().enumerate() {
            let n = line.moves.len();
            if n > longest && opens(line, main_line) {
                best = (i + 1) as u8;
                longest = n;
            }
        }
        best
    }

    #[test]
    fn grouping_by_first_move_agrees_with_the_plain_scan() {
        let mut rng = crate::testing::Rng(0x57_0BED);
        let mut matched = 0;
        for (i, stored) in STORED_LINES.iter().enumerate() {
            for _ in 0..4 {
                // The line cut short, whole, or played on at random.
                let mut game = line(stored.san);
                game.moves.truncate(rng.below(game.moves.len() + 2));
                let mut pos = Chess::default();
                for node in &game.moves {
                    pos = play(&pos, &node.ply).unwrap();
                }
                for _ in 0..rng.below(6) {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let ply = Ply::Move(moves[rng.below(moves.len())]);
                    pos = play(&pos, &ply).unwrap();
                    game.moves.push(MoveNode::new(ply));
                }
                let want = reference_code(&game);
                assert_eq!(
                    stored_line_code(&StartPosition::Standard, &game),
                    want,
                    "{i}"
                );
                matched += usize::from(want != NO_STORED_LINE);
            }
        }
        assert!(matched > 500, "{matched}");
        let empty = Line::default();
        assert_eq!(
            stored_line_code(&StartPosition::Standard, &empty),
            reference_code(&empty)
        );
    }

    #[test]
    fn longest_prefix_wins() {
        let code = |san: &str| stored_line_code(&StartPosition::Standard, &line(san));
        // The worked example of docs/formats/scid4.md §5.7.
        assert_eq!(code("1.e4 c5 2.c4 Nc6 3.Ne2 Nf6 4.Nbc3 Nb4 5.g3 Nd3#"), 107);
        assert_eq!(code(""), 0);
        assert_eq!(code("1.a4"), 0);
        assert_eq!(code("1.e4"), 106);
        assert_eq!(
            code("1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1"),
            195
        );
        assert_eq!(
            code(
                "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 d6 8.c3 O-O 9.h3 Na5 10.Bc2 c5 11.d4 Qc7"
            ),
            199
        );
        // Move order matters; a null move matches nothing.
        assert_eq!(code("1.Nf3 d5 2.d4"), 244);
        assert_eq!(code("1.d4 d5 2.Nf3"), 34);
        assert_eq!(code("1.e4 -- 2.d4"), 106);
        // A FEN game gets 0 even from the standard position.
        let fen =
            StartPosition::Fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into());
        assert_eq!(stored_line_code(&fen, &line("1.e4 c5")), 0);
    }
}
