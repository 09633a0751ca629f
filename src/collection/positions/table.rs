//! The statistics of SCID's tree window for one position, with SCID's own formulas and text
//! layout (Scid 4.7's `sc_tree stats`: `src/tree.h` `TreeNode`, `src/tkscid.cpp`
//! `sc_tree_stats`), so `tree.txt` reads as SCID's table and its figures equal SCID's.

use std::fmt::Write as _;

use super::line::GameStats;
use crate::game::GameResult;

/// The sums SCID keeps for one move of the tree (or the total).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStats {
    /// Games, and of them won by White, won by Black, drawn (`freq[0..4]`).
    pub games: u32,
    /// Games White won.
    pub white_wins: u32,
    /// Games Black won.
    pub black_wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Sum of White's ratings over the games where both players have one.
    pub white_elo_sum: u64,
    /// Sum of Black's ratings over the same games.
    pub black_elo_sum: u64,
    /// Games where both players have a rating.
    pub elo_count: u32,
    /// Sum of the known years.
    pub year_sum: u64,
    /// Games whose year is known.
    pub year_count: u32,
}

impl MoveStats {
    /// Count one game (SCID's `TreeNode::add`).
    pub fn add(&mut self, g: &GameStats) {
        self.games += 1;
        match g.result {
            GameResult::WhiteWins => self.white_wins += 1,
            GameResult::BlackWins => self.black_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Unknown => {}
        }
        if g.white_elo > 0 && g.black_elo > 0 {
            self.elo_count += 1;
            self.white_elo_sum += u64::from(g.white_elo);
            self.black_elo_sum += u64::from(g.black_elo);
        }
        if g.year > 0 {
            self.year_sum += u64::from(g.year);
            self.year_count += 1;
        }
    }

    /// Take out one game counted before with [`MoveStats::add`] (a game saved since the sums
    /// were kept).
    pub fn remove(&mut self, g: &GameStats) {
        self.games = self.games.saturating_sub(1);
        let result = match g.result {
            GameResult::WhiteWins => Some(&mut self.white_wins),
            GameResult::BlackWins => Some(&mut self.black_wins),
            GameResult::Draw => Some(&mut self.draws),
            GameResult::Unknown => None,
        };
        if let Some(count) = result {
            *count = count.saturating_sub(1);
        }
        if g.white_elo > 0 && g.black_elo > 0 {
            self.elo_count = self.elo_count.saturating_sub(1);
            self.white_elo_sum = self.white_elo_sum.saturating_sub(u64::from(g.white_elo));
            self.black_elo_sum = self.black_elo_sum.saturating_sub(u64::from(g.black_elo));
        }
        if g.year > 0 {
            self.year_sum = self.year_sum.saturating_sub(u64::from(g.year));
            self.year_count = self.year_count.saturating_sub(1);
        }
    }

    /// Add another move's sums (the total line).
    pub fn merge(&mut self, o: &MoveStats) {
        self.games += o.games;
        self.white_wins += o.white_wins;
        self.black_wins += o.black_wins;
        self.draws += o.draws;
        self.white_elo_sum += o.white_elo_sum;
        self.black_elo_sum += o.black_elo_sum;
        self.elo_count += o.elo_count;
        self.year_sum += o.year_sum;
        self.year_count += o.year_count;
    }

    /// White's score in tenths of a percent over the decided and drawn games (500 when there
    /// are none), rounded down as SCID rounds it.
    pub fn score(&self) -> u32 {
        let n = u64::from(self.white_wins + self.draws + self.black_wins);
        if n == 0 {
            return 500;
        }
        ((1000 * u64::from(self.white_wins) + 500 * u64::from(self.draws)) / n) as u32
    }

    /// The average rating of the side that moves (White for the total and the game ends, as
    /// in SCID), 0 when no game has both ratings.
    fn avg_elo(&self, black_moves: bool) -> u32 {
        if self.elo_count == 0 {
            return 0;
        }
        let sum = if black_moves {
            self.black_elo_sum
        } else {
            self.white_elo_sum
        };
        (sum as f64 / f64::from(self.elo_count)) as u32
    }

    /// The performance rating of the side that moves: the opponents' average rating plus
    /// FIDE's table 8.1a for the score; 0 (not shown) under 10 rated games.
    fn performance(&self, black_moves: bool) -> i32 {
        if self.elo_count < 10 {
            return 0;
        }
        let mut score = (self.score() as usize + 5) / 10;
        let mut opponents = self.black_elo_sum;
        if black_moves {
            score = 100 - score;
            opponents = self.white_elo_sum;
        }
        (opponents as f64 / f64::from(self.elo_count) + f64::from(FIDE_TABLE[score])) as i32
    }

    fn avg_year(&self) -> u32 {
        if self.year_count == 0 {
            return 0;
        }
        (self.year_sum as f64 / f64::from(self.year_count)) as u32
    }

    fn draws_percent(&self) -> u32 {
        if self.games == 0 {
            return 0;
        }
        (100.0 * f64::from(self.draws) / f64::from(self.games)) as u32
    }
}

/// Count one game with `g` that plays move `next` into the sums per move `sums`.
pub fn count_move(sums: &mut Vec<(u16, MoveStats)>, next: u16, g: &GameStats) {
    match sums.iter_mut().find(|(code, _)| *code == next) {
        Some((_, s)) => s.add(g),
        None => {
            let mut s = MoveStats::default();
            s.add(g);
            sums.push((next, s));
        }
    }
}

/// FIDE table 8.1a: rating difference for a score of 0 %, 1 %, … 100 % (as SCID has it).
const FIDE_TABLE: [i16; 101] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// One line of the table: a move (as SAN, `[end]` where games end, `--` a null move), the
/// ECO code of the position it leads to (empty when none is known), whether Black plays it,
/// and its sums.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The move as SCID writes it.
    pub san: String,
    /// The ECO code after the move, or empty.
    pub eco: String,
    /// Black plays the move.
    pub black_moves: bool,
    /// Its games' sums.
    pub stats: MoveStats,
}

/// The title row of SCID's tree table.
pub const TITLE: &str = "    Move   ECO       Frequency    Score  AvElo Perf AvYear %Draws";

/// SCID's tree table for `rows`, most played first (ties in the order given), with its
/// total line: the text of `sc_tree stats` (no table, only the title, when no game reaches
/// the position).
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(TITLE);
    let mut total = MoveStats::default();
    for r in rows {
        total.merge(&r.stats);
    }
    if rows.is_empty() {
        return out;
    }
    for (i, r) in rows.iter().enumerate() {
        let share = 1000 * u64::from(r.stats.games) / u64::from(total.games.max(1));
        let _ = write!(
            out,
            "\n{:2}: {:<6} {:<5} {:7}:{:3}.{}%",
            i + 1,
            r.san,
            r.eco,
            r.stats.games,
            share / 10,
            share % 10
        );
        figures(&mut out, &r.stats, r.black_moves);
    }
    out.push_str("\n_______________________________________________________________\n");
    let _ = write!(out, "{:<12}     {:7}:100.0%", "TOTAL:", total.games);
    // SCID's total has no move: its colour reads as White's.
    figures(&mut out, &total, false);
    out.push('\n');
    out
}

/// The score, rating, performance, year and draw columns of one line.
fn figures(out: &mut String, s: &MoveStats, black_moves: bool) {
    let score = s.score();
    let _ = write!(out, "  {:3}.{}%", score / 10, score % 10);
    for value in [
        s.avg_elo(black_moves) as i64,
        i64::from(s.performance(black_moves)),
        i64::from(s.avg_year()),
    ] {
        if value == 0 {
            out.push_str("      ");
        } else {
            let _ = write!(out, "  {value:4}");
        }
    }
    let _ = write!(out, "  {:3}%", s.draws_percent());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(games: &[(u8, u16, u16, u16)]) -> MoveStats {
        let mut s = MoveStats::default();
        for &(result, white_elo, black_elo, year) in games {
            s.add(&GameStats {
                result: GameStats::result_of_code(result),
                white_elo,
                black_elo,
                year,
            });
        }
        s
    }

    #[test]
    fn the_layout_is_scids() {
        // As tkscid 4.7.4 printed it for tests/data/special-moves.pgn + fen-starts.pgn.
        let e4 = stats(&[(0, 0, 0, 2024); 6]);
        let d4 = stats(&[(0, 0, 0, 2024)]);
        let f3 = stats(&[(2, 0, 0, 2024)]);
        let row = |san: &str, stats| Row {
            san: san.into(),
            eco: String::new(),
            black_moves: false,
            stats,
        };
        let text = table(&[row("e4", e4), row("d4", d4), row("f3", f3)]);
        assert_eq!(
            text,
            "    Move   ECO       Frequency    Score  AvElo Perf AvYear %Draws
 1: e4                 6: 75.0%   50.0%              2024    0%
 2: d4                 1: 12.5%   50.0%              2024    0%
 3: f3                 1: 12.5%    0.0%              2024    0%
_______________________________________________________________
TOTAL:                 8:100.0%    0.0%              2024    0%
"
        );
    }

    #[test]
    fn a_game_removed_leaves_the_sums_of_the_others() {
        let games = [
            (1, 2600, 2400, 2000),
            (3, 0, 2400, 0),
            (2, 2500, 2450, 1990),
        ];
        let mut s = stats(&games);
        let (result, white_elo, black_elo, year) = games[2];
        s.remove(&GameStats {
            result: GameStats::result_of_code(result),
            white_elo,
            black_elo,
            year,
        });
        assert_eq!(s, stats(&games[..2]));
    }

    #[test]
    fn performance_needs_ten_rated_games_and_takes_the_movers_side() {
        let games = [(1, 2600, 2400, 2000); 10];
        let s = stats(&games);
        assert_eq!(s.score(), 1000);
        assert_eq!(s.performance(false), 2400 + 800);
        assert_eq!(s.performance(true), 2600 - 800);
        assert_eq!(s.avg_elo(true), 2400);
        assert_eq!(stats(&games[..9]).performance(false), 0);
    }
}
