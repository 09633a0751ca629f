//! One game as the position index sees it: the positions its main line reaches, each with the
//! move played from it, and the facts the tree's statistics need (result, ratings, year).
//! Told by the store's streaming [`GameVisitor`](crate::game::visit::GameVisitor), never by
//! rendering text (DESIGN rule 9).

use shakmaty::Chess;

use super::key::{END, NULL_MOVE, key_after, move_code, position_key};
use super::material::BalanceRecorder;
use super::signature::{Signature, SignatureRecorder};
use crate::error::Result;
use crate::game::GameResult;
use crate::game::chess::{Headers, Ply, StartPosition};
use crate::game::replay::start_position;
use crate::game::visit::MainLineVisitor;

/// What the tree's statistics need of a game, as SCID's index keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameStats {
    /// The result (an enum, not SCID's number, so that an `Option<GameStats>` takes no more
    /// room than the statistics: a million games' records stay 16 MB).
    pub result: GameResult,
    /// White's rating, 0 when unknown.
    pub white_elo: u16,
    /// Black's rating, 0 when unknown.
    pub black_elo: u16,
    /// The year played, 0 when unknown.
    pub year: u16,
}

/// The largest rating and year the statistics keep (12 bits each in the index file): SCID
/// keeps ratings up to 4,000 and years up to 2,047; a larger one (a PGN file's) counts as
/// this, whether the index file or a save's replay answers.
pub const STATS_MOST: u16 = (1 << 12) - 1;

impl GameStats {
    /// The facts of a game with `headers`.
    pub fn of(headers: &Headers) -> GameStats {
        let most = |v: Option<u16>| v.unwrap_or(0).min(STATS_MOST);
        GameStats {
            result: headers.result,
            white_elo: most(headers.white_rating.map(|r| r.value)),
            black_elo: most(headers.black_rating.map(|r| r.value)),
            year: most(headers.date.year),
        }
    }

    /// The result as SCID numbers it (`resultT`: 0 unknown, 1 White won, 2 Black won, 3
    /// drawn), as the index file keeps it.
    pub fn result_code(&self) -> u8 {
        match self.result {
            GameResult::Unknown => 0,
            GameResult::WhiteWins => 1,
            GameResult::BlackWins => 2,
            GameResult::Draw => 3,
        }
    }

    /// The result whose [`GameStats::result_code`] is `code` (unknown for any other number).
    pub fn result_of_code(code: u8) -> GameResult {
        match code {
            1 => GameResult::WhiteWins,
            2 => GameResult::BlackWins,
            3 => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }
}

/// A game's main line as positions: each position it reaches (its [`position_key`]) once,
/// where it first reaches it, with the code of the move played from there ([`END`] where the
/// game ends), as SCID's board search finds a game at its first match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameLine {
    /// The game's result, ratings and year.
    pub stats: GameStats,
    /// (position key, next move code), one per distinct position, in the order the game
    /// first reaches them ([`GameLine::by_key`] orders them by key).
    pub steps: Vec<(u64, u16)>,
    /// What tells the positions it cannot reach, unread.
    pub signature: Signature,
    /// How many of the first steps are positions in the opening
    /// ([`super::signature::OPENING_MOST_EMPTIED`]), the ones the index lists where another
    /// game reaches them too; 0 once the steps are ordered by key.
    pub opening: usize,
    /// The endings it passes through, in order ([`super::material::Balance`] codes).
    pub endings: Vec<u32>,
}

impl GameLine {
    /// The line with its steps ordered by key, to be searched.
    pub fn by_key(mut self) -> GameLine {
        // Each key is once in the steps: no order among equals to keep.
        self.steps.sort_unstable_by_key(|&(key, _)| key);
        self.opening = 0;
        self
    }
}

/// The steps a line makes room for at its start: a long game's, so that most games' steps
/// are one allocation rather than the eight doublings of a growing vector (an index build
/// records every game of the database).
const STEPS_AHEAD: usize = 256;

/// Records a game's main line as a [`GameLine`] (told it by
/// [`crate::game::visit::MainLine`]).
#[derive(Default)]
pub struct LineRecorder {
    line: GameLine,
    /// The key of the position the main line has reached.
    at: Option<u64>,
    /// Where in the steps the positions since the last pawn move or capture begin: only
    /// they can come again (none before has the same pawns and pieces), so a position is
    /// looked for among them alone, as an engine looks for a repetition.
    reversible_from: usize,
    signature: SignatureRecorder,
    balances: BalanceRecorder,
}

impl LineRecorder {
    /// The line recorded: the last position with [`END`], each position's first visit kept.
    pub fn finish(mut self) -> GameLine {
        if let Some(at) = self.at {
            self.step(at, END);
        }
        self.line.signature = self.signature.finish();
        self.line.endings = self.balances.finish();
        self.line
    }

    /// Record that the line plays `code` from the position with `key`, unless it was there
    /// before.
    fn step(&mut self, key: u64, code: u16) {
        let steps = &mut self.line.steps;
        if !steps[self.reversible_from..].iter().any(|&(k, _)| k == key) {
            steps.push((key, code));
            if self.signature.in_opening() {
                self.line.opening = steps.len();
            }
        }
    }
}

impl MainLineVisitor for LineRecorder {
    fn begin(&mut self, headers: &Headers, start: &StartPosition) -> Result<()> {
        self.line.stats = GameStats::of(headers);
        self.line.steps.reserve(STEPS_AHEAD);
        let start = start_position(start)?;
        self.at = Some(position_key(&start));
        self.signature = SignatureRecorder::start(&start);
        self.balances.reached(&start);
        Ok(())
    }

    fn ply(&mut self, before: &Chess, ply: &Ply, after: &Chess) -> Result<()> {
        let from = self.at.unwrap_or_else(|| position_key(before));
        let (code, to) = match ply {
            Ply::Move(m) => (move_code(m), key_after(from, before, m)),
            Ply::Null => (NULL_MOVE, position_key(after)),
        };
        debug_assert_eq!(to, position_key(after), "{ply:?}");
        self.step(from, code);
        if let Ply::Move(m) = ply
            && (m.is_capture() || m.role() == shakmaty::Role::Pawn)
        {
            self.reversible_from = self.line.steps.len();
            if m.is_capture() || m.is_promotion() {
                self.balances.reached(after);
            }
        }
        self.at = Some(to);
        self.signature.reached(after);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::positions::material::Balance;
    use crate::game::visit::{MainLine, walk};

    fn line_of(pgn: &str) -> GameLine {
        let game = crate::text::pgn_parse::one_game(pgn.as_bytes()).unwrap();
        let mut rec = MainLine::new(LineRecorder::default());
        walk(&game, &mut rec).unwrap();
        rec.inner.finish()
    }

    #[test]
    fn a_repeated_position_counts_once_with_its_first_move() {
        let line = line_of("1. Nf3 Nf6 2. Ng1 Ng8 3. e4 *");
        // Start, Nf3, Nf6, Ng1 (= after Nf3? no: a new position), start again, e4.
        assert_eq!(line.steps.len(), 5, "{line:?}");
        let start = position_key(&Chess::default());
        let first = line.steps.iter().find(|s| s.0 == start).unwrap();
        assert_eq!(first.1 & 63, u16::from(shakmaty::Square::G1));
    }

    /// Every position of a main line, with the move played there, each at its first visit,
    /// found the plain way: all of them kept, the later visits dropped.
    struct EveryPosition(Vec<(u64, u16)>);

    impl MainLineVisitor for EveryPosition {
        fn begin(&mut self, _: &Headers, start: &StartPosition) -> Result<()> {
            self.0.push((position_key(&start_position(start)?), END));
            Ok(())
        }
        fn ply(&mut self, _: &Chess, ply: &Ply, after: &Chess) -> Result<()> {
            self.0.last_mut().unwrap().1 = match ply {
                Ply::Move(m) => move_code(m),
                Ply::Null => NULL_MOVE,
            };
            self.0.push((position_key(after), END));
            Ok(())
        }
    }

    /// A position is looked for only among those since the last pawn move or capture: the
    /// line is the one every position's first visit makes, on games with repetitions,
    /// castling, en passant, promotions, null moves and set-up starts.
    #[test]
    fn only_positions_since_a_pawn_move_or_capture_can_come_again() {
        let mut games = 0;
        let mut repeated = 0;
        for game in crate::testing::test_data_games(&[
            "fuzz-seed1000.pgn",
            "long-games.pgn",
            "special-moves.pgn",
            "fen-starts.pgn",
            "annotations.pgn",
        ]) {
            let mut rec = MainLine::new(LineRecorder::default());
            walk(&game, &mut rec).unwrap();
            let mut every = MainLine::new(EveryPosition(Vec::new()));
            walk(&game, &mut every).unwrap();
            let every = every.inner;
            let mut seen = std::collections::HashSet::new();
            let first: Vec<(u64, u16)> = every
                .0
                .iter()
                .copied()
                .filter(|s| seen.insert(s.0))
                .collect();
            repeated += every.0.len() - first.len();
            assert_eq!(rec.inner.finish().steps, first, "{:?}", game.headers);
            games += 1;
        }
        assert!(
            games > 50 && repeated > 0,
            "{games} games, {repeated} repeated positions"
        );
    }

    /// The endings a line records are those of its positions, each one once, in the order
    /// the line reaches them: found the plain way, by the material of every position.
    #[test]
    fn the_endings_of_a_line_are_those_of_every_position_it_reaches() {
        struct EveryBalance(Vec<u32>);
        impl MainLineVisitor for EveryBalance {
            fn begin(&mut self, _: &Headers, start: &StartPosition) -> Result<()> {
                self.0
                    .extend(Balance::of(&start_position(start)?).map(Balance::code));
                Ok(())
            }
            fn ply(&mut self, _: &Chess, _: &Ply, after: &Chess) -> Result<()> {
                if let Some(b) = Balance::of(after)
                    && self.0.last() != Some(&b.code())
                {
                    self.0.push(b.code());
                }
                Ok(())
            }
        }
        let (mut games, mut endings) = (0, 0);
        for game in crate::testing::test_data_games(&[
            "fuzz-seed1000.pgn",
            "long-games.pgn",
            "special-moves.pgn",
            "fen-starts.pgn",
            "annotations.pgn",
        ]) {
            let mut rec = MainLine::new(LineRecorder::default());
            walk(&game, &mut rec).unwrap();
            let mut every = MainLine::new(EveryBalance(Vec::new()));
            walk(&game, &mut every).unwrap();
            let every = every.inner;
            let mut unique = every.0.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), every.0.len(), "an ending twice");
            endings += every.0.len();
            assert_eq!(rec.inner.finish().endings, every.0, "{:?}", game.headers);
            games += 1;
        }
        assert!(
            games > 50 && endings > 20,
            "{games} games, {endings} endings"
        );
    }

    #[test]
    fn variations_are_left_out_and_the_end_is_kept() {
        let line = line_of("1. e4 (1. d4 d5) 1... e5 1-0");
        assert_eq!(line.steps.len(), 3);
        assert_eq!(line.stats.result, GameResult::WhiteWins);
        assert!(line.steps.iter().any(|s| s.1 == END));
    }
}
