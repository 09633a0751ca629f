//! The index fields SCID derives from playing a game's main line (`mainlineInfo`,
//! docs/formats/scid4.md §3.6, §3.7): promotion flags, the final material signature and the
//! home-pawn change list.
//!
//! [`MainLineTracker`] collects them from positions it is shown one ply at a time, so the
//! replay that encodes a record ([`super::record::encode_watching`]) also yields them: a bulk
//! import then plays every main-line move once instead of twice.

use shakmaty::{Chess, Color, Position, Role};

use super::derive::{FLAG_PROMOTION, FLAG_START, FLAG_UNDER_PROMOTION};
use super::record::MainLineWatcher;
use crate::game::chess::{Line, Ply};

/// What SCID derives from playing the main line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MainLineInfo {
    /// Flags S, X, Y (bits 0-2).
    pub flags: u32,
    /// Material signature of the final main-line position.
    pub matsig: u32,
    /// Home-pawn change count (0..=16).
    pub home_pawn_count: u8,
    /// Home-pawn change list: 16 nibbles, high nibble first.
    pub home_pawns: [u8; 8],
}

/// The most home-pawn changes the index records.
const MAX_HOME_PAWN_CHANGES: u8 = 16;

/// The home-pawn signature of the standard start: every pawn at home.
const START_SIG: u32 = 0xFFFF;

/// Collects [`MainLineInfo`] from the main-line positions it is shown ([`MainLineWatcher`]).
pub(crate) struct MainLineTracker {
    /// Whether the game starts from the standard position (home pawns are tracked only then).
    standard: bool,
    /// Flags S, X, Y.
    flags: u32,
    /// The home-pawn signature at the last recorded change.
    sig: u32,
    /// Changes recorded so far.
    count: u8,
    /// The change list.
    nibbles: [u8; 8],
    /// The final material signature, once the end is seen.
    matsig: u32,
}

impl MainLineTracker {
    /// A tracker for main line `main`, played from the standard position or (`standard`
    /// false) from a FEN; [`MainLineWatcher::at_end`] must see the final position.
    pub(crate) fn new(standard: bool, main: &Line) -> MainLineTracker {
        let mut flags = if standard { 0 } else { FLAG_START };
        for node in &main.moves {
            if let Ply::Move(m) = &node.ply
                && let Some(p) = m.promotion()
            {
                flags |= FLAG_PROMOTION;
                if p != Role::Queen {
                    flags |= FLAG_UNDER_PROMOTION;
                }
            }
        }
        MainLineTracker {
            standard,
            flags,
            sig: if standard { START_SIG } else { 0 },
            count: 0,
            nibbles: [0; 8],
            matsig: 0,
        }
    }

    /// What was collected (after the end position was shown).
    pub(crate) fn info(&self) -> MainLineInfo {
        MainLineInfo {
            flags: self.flags,
            matsig: self.matsig,
            home_pawn_count: self.count,
            home_pawns: self.nibbles,
        }
    }
}

impl MainLineWatcher for MainLineTracker {
    fn after_ply(&mut self, pos: &Chess) {
        // Pawns never return to their home squares, so the signature only loses bits: once it
        // is empty, or the list is full, nothing more can be recorded.
        if !self.standard || self.count >= MAX_HOME_PAWN_CHANGES || self.sig == 0 {
            return;
        }
        let new = home_pawn_sig(pos);
        let changed = self.sig.wrapping_sub(new);
        if changed != 0 {
            self.sig = new;
            // The index of the highest changed bit, as SCID computes it.
            let bit = (31 - changed.leading_zeros()).min(15) as u8;
            let shift = if self.count.is_multiple_of(2) { 4 } else { 0 };
            self.nibbles[usize::from(self.count / 2)] |= bit << shift;
            self.count += 1;
        }
    }

    fn at_end(&mut self, pos: &Chess) {
        self.matsig = matsig(pos);
    }
}

/// SCID's home-pawn signature: bit 15 = a2 … bit 8 = h2 for white pawns on their home squares,
/// bit 7 = a7 … bit 0 = h7 for black ones.
pub(crate) fn home_pawn_sig(pos: &Chess) -> u32 {
    let board = pos.board();
    // The byte of a rank has the a-file in bit 0; SCID's signature has it highest.
    let white = (u64::from(board.by_piece(Color::White.pawn())) >> 8) as u8;
    let black = (u64::from(board.by_piece(Color::Black.pawn())) >> 48) as u8;
    u32::from(white.reverse_bits()) << 8 | u32::from(black.reverse_bits())
}

/// The 24-bit material signature of a position (spec §3.6): queens, rooks, bishops and knights
/// capped at 3 in 2 bits each, pawns in 4 bits; White in the high 12 bits.
pub fn matsig(pos: &Chess) -> u32 {
    let board = pos.board();
    let side = |color: Color| {
        let n = |role: Role| (board.by_color(color) & board.by_role(role)).count() as u32;
        n(Role::Queen).min(3) << 10
            | n(Role::Rook).min(3) << 8
            | n(Role::Bishop).min(3) << 6
            | n(Role::Knight).min(3) << 4
            | n(Role::Pawn).min(15)
    };
    side(Color::White) << 12 | side(Color::Black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::replay::play_in_place;
    use crate::testing::Rng;
    use shakmaty::{File, Rank, Square};

    /// The signature square by square, as SCID's loop reads the board.
    fn reference_sig(pos: &Chess) -> u32 {
        let board = pos.board();
        let mut sig = 0u32;
        for file in 0..8u32 {
            if board.piece_at(Square::from_coords(File::new(file), Rank::Second))
                == Some(Color::White.pawn())
            {
                sig |= 0x8000 >> file;
            }
            if board.piece_at(Square::from_coords(File::new(file), Rank::Seventh))
                == Some(Color::Black.pawn())
            {
                sig |= 0x80 >> file;
            }
        }
        sig
    }

    /// SCID's change list computed the plain way: the signature after every ply, no shortcut.
    fn reference_changes(plies: &[Ply]) -> (u8, [u8; 8]) {
        let mut pos = Chess::default();
        let mut old = reference_sig(&pos);
        let (mut count, mut nibbles) = (0usize, [0u8; 8]);
        for ply in plies {
            play_in_place(&mut pos, ply).unwrap();
            let new = reference_sig(&pos);
            let changed = old.wrapping_sub(new);
            if changed != 0 && count < 16 {
                old = new;
                let bit = (31 - changed.leading_zeros()).min(15) as u8;
                nibbles[count / 2] |= bit << if count % 2 == 0 { 4 } else { 0 };
                count += 1;
            }
        }
        (count as u8, nibbles)
    }

    #[test]
    fn tracker_agrees_with_the_plain_computation_on_random_games() {
        let mut rng = Rng(0x4F3E_9D21_7755_0C1B);
        let mut full_lists = 0;
        for _ in 0..400 {
            let mut pos = Chess::default();
            let mut line = Line::default();
            assert_eq!(home_pawn_sig(&pos), START_SIG);
            let mut tracker = MainLineTracker::new(true, &line);
            for _ in 0..rng.below(400) {
                assert_eq!(home_pawn_sig(&pos), reference_sig(&pos));
                let moves = pos.legal_moves();
                let ply = if !pos.is_check() && rng.below(25) == 0 {
                    Ply::Null
                } else if moves.is_empty() {
                    break;
                } else {
                    // Pawn moves more often than chance, so lists fill up and empty out.
                    let pawn: Vec<_> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
                    if !pawn.is_empty() && rng.chance(40) {
                        Ply::Move(*pawn[rng.below(pawn.len())])
                    } else {
                        Ply::Move(moves[rng.below(moves.len())])
                    }
                };
                play_in_place(&mut pos, &ply).unwrap();
                tracker.after_ply(&pos);
                line.moves.push(crate::game::chess::MoveNode::new(ply));
            }
            tracker.at_end(&pos);
            let plies: Vec<Ply> = line.moves.iter().map(|n| n.ply.clone()).collect();
            let (count, nibbles) = reference_changes(&plies);
            let info = tracker.info();
            assert_eq!((info.home_pawn_count, info.home_pawns), (count, nibbles));
            assert_eq!(info.matsig, matsig(&pos));
            let promotions: Vec<Role> = plies
                .iter()
                .filter_map(|p| match p {
                    Ply::Move(m) => m.promotion(),
                    Ply::Null => None,
                })
                .collect();
            let flags = MainLineTracker::new(true, &line).info().flags;
            assert_eq!(flags & FLAG_PROMOTION != 0, !promotions.is_empty());
            assert_eq!(
                flags & FLAG_UNDER_PROMOTION != 0,
                promotions.iter().any(|&r| r != Role::Queen)
            );
            assert_eq!(
                MainLineTracker::new(false, &line).info().flags & FLAG_START,
                FLAG_START
            );
            full_lists += usize::from(count == 16);
        }
        assert!(full_lists > 20, "the 16-change limit is exercised");
    }
}
