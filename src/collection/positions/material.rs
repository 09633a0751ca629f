//! Endings by their material (`endings/NAME`, `query/material=NAME/`, docs/guide/searching.md):
//! the material balance of a position, named as endgame tables name it (`KRPvKR`: White's
//! king, rook and pawn against Black's king and rook), and the balances a game's main line
//! passes through, recorded as it is replayed for the position index.
//!
//! A balance is an ending when each side has at most [`MOST_PIECES`] pieces besides its king
//! and pawns (queens, rooks, bishops, knights): the material ChessBase's endgame keys and
//! SCID's material search presets classify (rook endings, queen against rook, two minor
//! pieces...). A game is in an ending when some position of its main line has exactly that
//! material, as SCID's material search (`sc_search material`) finds it with each count's
//! minimum and maximum set to it, colours as named (`-flip 0`), for one half-move (`-length
//! 1`), over the whole game. Material only ever shrinks (a capture takes a man, a promotion
//! a pawn), so a game passes through each balance once.

use shakmaty::{Chess, Color, Position, Role};

use crate::error::Result;
use crate::game::visit::MainLineVisitor;
use crate::game::{Headers, Ply, StartPosition};

/// The most pieces besides the king and pawns a side has in an ending.
pub const MOST_PIECES: u32 = 2;

/// The roles counted in a balance, in the order its name spells them.
const ROLES: [(Role, char); 5] = [
    (Role::Queen, 'Q'),
    (Role::Rook, 'R'),
    (Role::Bishop, 'B'),
    (Role::Knight, 'N'),
    (Role::Pawn, 'P'),
];

/// Bits of a side's count of each role in a [`Balance`] code: two for each piece (at most
/// [`MOST_PIECES`]), four for the pawns.
const ROLE_BITS: [u32; 5] = [2, 2, 2, 2, 4];
/// Bits of one side's counts.
const SIDE_BITS: u32 = 12;

/// The material of an ending, as a code: White's counts in the high twelve bits, Black's in
/// the low, each side's queens, rooks, bishops, knights and pawns from its highest bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Balance(u32);

impl Balance {
    /// The balance of `pos`, when it is an ending.
    pub fn of(pos: &Chess) -> Option<Balance> {
        let board = pos.board();
        let counts = |color: Color| {
            ROLES.map(|(role, _)| (board.by_role(role) & board.by_color(color)).count() as u32)
        };
        Balance::of_counts(counts(Color::White), counts(Color::Black))
    }

    /// The balance of each side's counts of queens, rooks, bishops, knights and pawns, when
    /// it is an ending.
    fn of_counts(white: [u32; 5], black: [u32; 5]) -> Option<Balance> {
        let side = |counts: [u32; 5]| {
            if counts[..4].iter().sum::<u32>() > MOST_PIECES || counts[4] > 8 {
                return None;
            }
            Some(
                counts
                    .iter()
                    .zip(ROLE_BITS)
                    .fold(0, |code, (&n, bits)| code << bits | n),
            )
        };
        Some(Balance(side(white)? << SIDE_BITS | side(black)?))
    }

    /// Each side's counts of queens, rooks, bishops, knights and pawns, White's first.
    fn counts(self) -> [[u32; 5]; 2] {
        let side = |mut code: u32| {
            let mut counts = [0; 5];
            for (i, bits) in ROLE_BITS.iter().enumerate().rev() {
                counts[i] = code & ((1 << bits) - 1);
                code >>= bits;
            }
            counts
        };
        [
            side(self.0 >> SIDE_BITS),
            side(self.0 & ((1 << SIDE_BITS) - 1)),
        ]
    }

    /// The balance named `name` (`KRPvKR`: each side a king, then its queens, rooks,
    /// bishops, knights and pawns, one letter each, in that order, `v` between the sides),
    /// when it is an ending; else what was expected.
    pub fn parse(name: &str) -> Result<Balance, String> {
        let expected = || {
            format!(
                "an ending such as KRPvKR: each side K then Q, R, B, N and P as many times as \
                 it has them, in that order, at most {MOST_PIECES} pieces a side besides \
                 pawns, White's first"
            )
        };
        let side = |text: &str| -> Option<[u32; 5]> {
            let mut rest = text.strip_prefix('K')?;
            let mut counts = [0; 5];
            for (i, (_, letter)) in ROLES.iter().enumerate() {
                let more = rest.trim_start_matches(*letter);
                counts[i] = (rest.len() - more.len()) as u32;
                rest = more;
            }
            rest.is_empty().then_some(counts)
        };
        let (white, black) = name.split_once('v').ok_or_else(expected)?;
        let (white, black) = side(white).zip(side(black)).ok_or_else(expected)?;
        Balance::of_counts(white, black).ok_or_else(expected)
    }

    /// Its name ([`Balance::parse`]).
    pub fn name(self) -> String {
        let [white, black] = self.counts().map(|counts| {
            let mut side = String::from("K");
            for ((_, letter), n) in ROLES.iter().zip(counts) {
                side.extend(std::iter::repeat_n(*letter, n as usize));
            }
            side
        });
        format!("{white}v{black}")
    }

    /// Every balance with its pieces and any number of pawns a side (0 to 8), when it has
    /// no pawns (`pieces=KRvKR`: the rook endings).
    pub fn with_any_pawns(self) -> Option<Vec<Balance>> {
        let [white, black] = self.counts();
        if white[4] != 0 || black[4] != 0 {
            return None;
        }
        let with = |mut counts: [u32; 5], pawns: u32| {
            counts[4] = pawns;
            counts
        };
        Some(
            (0..=8)
                .flat_map(|w| {
                    (0..=8).filter_map(move |b| Balance::of_counts(with(white, w), with(black, b)))
                })
                .collect(),
        )
    }

    /// Its code, as the index keeps it.
    pub fn code(self) -> u32 {
        self.0
    }

    /// The balance of `code` ([`Balance::code`]), when it is one.
    pub fn of_code(code: u32) -> Option<Balance> {
        let [white, black] = Balance(code).counts();
        Balance::of_counts(white, black).filter(|b| b.0 == code)
    }
}

/// Records the endings a main line passes through, in order, as it is played.
#[derive(Clone, Debug, Default)]
pub struct BalanceRecorder {
    endings: Vec<u32>,
}

impl BalanceRecorder {
    /// The main line starts at, or reaches by a capture or a promotion, `pos` (no other move
    /// changes the material).
    pub fn reached(&mut self, pos: &Chess) {
        if let Some(b) = Balance::of(pos)
            && self.endings.last() != Some(&b.0)
        {
            self.endings.push(b.0);
        }
    }

    /// The codes of the endings the line passed through, in the order it did.
    pub fn finish(self) -> Vec<u32> {
        self.endings
    }
}

/// Finds a game's entry into an ending (told its main line, [`crate::game::visit::MainLine`]):
/// the first position of its main line whose balance
/// is one of `codes` (the start, or the position a capture or promotion leads to), as FEN:
/// where SCID's material search puts a game it found (its first matching half-move).
pub struct EntryFinder<'a> {
    codes: &'a [u32],
    found: Option<String>,
}

impl<'a> EntryFinder<'a> {
    /// A finder of the entry into any of the endings `codes` ([`Balance::code`]).
    pub fn new(codes: &'a [u32]) -> EntryFinder<'a> {
        EntryFinder { codes, found: None }
    }

    /// The FEN of the entry, if the main line walked has one of the endings.
    pub fn finish(self) -> Option<String> {
        self.found
    }

    /// Note `pos` if it is the first position in one of the endings; `fen` is its FEN if
    /// known (a set-up start as the game gives it), else it is made.
    fn reached(&mut self, pos: &Chess, fen: Option<&str>) {
        if self.found.is_none() && Balance::of(pos).is_some_and(|b| self.codes.contains(&b.0)) {
            let fen = fen.map_or_else(|| crate::game::replay::fen_of(pos), str::to_owned);
            self.found = Some(fen);
        }
    }
}

impl MainLineVisitor for EntryFinder<'_> {
    fn begin(&mut self, _headers: &Headers, start: &StartPosition) -> Result<()> {
        // A set-up start as its game gives it (an en passant square as it says, as SCID
        // shows it).
        let fen = match start {
            StartPosition::Standard => None,
            StartPosition::Fen(fen) | StartPosition::Chess960(fen) => Some(fen.as_str()),
        };
        self.reached(&crate::game::replay::start_position(start)?, fen);
        Ok(())
    }

    fn ply(&mut self, _before: &Chess, ply: &Ply, after: &Chess) -> Result<()> {
        if let Ply::Move(m) = ply
            && (m.is_capture() || m.is_promotion())
        {
            self.reached(after, None);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn at(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_balance_is_named_white_first_and_read_back() {
        let rook_ending = at("8/8/4k3/8/2R5/8/4P3/r3K3 w - - 0 50");
        let b = Balance::of(&rook_ending).expect("an ending");
        assert_eq!(b.name(), "KRPvKR");
        assert_eq!(Balance::parse("KRPvKR"), Ok(b));
        assert_eq!(Balance::of_code(b.code()), Some(b));
        for name in ["KvK", "KQRvKQR", "KBNvK", "KPPPPPPPPvKNN", "KQQvKRPP"] {
            assert_eq!(Balance::parse(name).unwrap().name(), name);
        }
        // The start is no ending; nor three pieces a side.
        assert_eq!(Balance::of(&Chess::default()), None);
        for bad in [
            "KRBNvK",
            "KRPvKr",
            "KPRvKR",
            "RvK",
            "KRPKR",
            "KvKv",
            "KPPPPPPPPPvK",
            "",
        ] {
            assert!(Balance::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Balance::of_code(u32::MAX), None);
        // The rook endings: a rook each, any pawns.
        let rooks = Balance::parse("KRvKR").unwrap().with_any_pawns().unwrap();
        assert_eq!(rooks.len(), 81);
        assert!(rooks.contains(&b) && rooks.contains(&Balance::parse("KRPPvKR").unwrap()));
        assert_eq!(b.with_any_pawns(), None);
    }

    #[test]
    fn every_code_of_an_ending_reads_back_to_itself() {
        let mut endings = 0;
        for code in 0..1 << (2 * SIDE_BITS) {
            if let Some(b) = Balance::of_code(code) {
                assert_eq!(Balance::parse(&b.name()), Ok(b));
                endings += 1;
            }
        }
        // Per side: 15 sets of at most two pieces, times 9 pawn counts.
        assert_eq!(endings, 135 * 135);
    }
}
