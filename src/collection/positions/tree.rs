//! One position of the opening tree: the games that reach it, the moves they play there, and
//! the text of its `tree.txt` (SCID's table, then the position's FEN and opening).

use std::fmt::Write as _;

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Position};

use super::board::Board;
use super::key::{END, NULL_MOVE, move_code, move_of, position_key};
use super::openings::opening;
use super::slice::Slice;
use super::table::{MoveStats, Row, table};
use super::{PositionIndex, Reach};
use crate::collection::Collection;

/// A move played from a position, with the games that play it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeMove {
    /// The move's code ([`super::key::move_code`], or [`END`], [`NULL_MOVE`]).
    pub code: u16,
    /// The move in SAN with its check or mate sign (`[end]` where games end, `--` a null
    /// move).
    pub san: String,
    /// The sums of its games.
    pub stats: MoveStats,
}

/// The moves played from a position with their sums, without the games: what a position
/// folder lists and its `tree.txt` shows.
#[derive(Clone, Debug, Default)]
pub struct PositionMoves {
    board: Board,
    /// Most played first (equally played: by SAN).
    moves: Vec<TreeMove>,
}

impl PositionMoves {
    /// The moves played from `board` in the games of `coll`, found with its `index`.
    pub fn at(index: &PositionIndex, coll: &dyn Collection, board: &Board) -> PositionMoves {
        PositionMoves::of(board, index.moves_at(coll, board))
    }

    /// The moves of `sums` (each move's sums by its code: [`Slice::moves_at`]) played from
    /// `board`.
    pub fn of(board: &Board, sums: Vec<(u16, MoveStats)>) -> PositionMoves {
        PositionMoves {
            moves: named(&board.0, sums),
            board: board.clone(),
        }
    }

    /// The names (SAN with check and mate signs) of the moves played here that lead to a
    /// position (`[end]` left out), most played first.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.moves
            .iter()
            .filter(|m| m.code != END)
            .map(|m| m.san.as_str())
    }

    /// The position after the move named `name` ([`PositionMoves::names`]), if it is one
    /// played here and legal.
    pub fn after(&self, name: &str) -> Option<Board> {
        let m = self.moves.iter().find(|m| m.san == name && m.code != END)?;
        after(&self.board.0, m.code).map(Board)
    }

    /// The position after the move named `name` from `board`, as a folder is looked up by
    /// name: a legal move (SAN with its check or mate sign, as [`PositionMoves::names`] names
    /// it) or null move (`--`) to a position games of `slice` of `coll` reach (found with its
    /// `index`), whether they play it here or reach it by another move order. Only that
    /// position is looked up, not `board`'s moves (which a slice finds among every game
    /// reaching `board`).
    pub fn find(
        board: &Board,
        index: &PositionIndex,
        coll: &dyn Collection,
        slice: &Slice,
        name: &str,
    ) -> Option<Board> {
        let pos = &board.0;
        let code = if name == "--" {
            NULL_MOVE
        } else {
            let m = name.parse::<SanPlus>().ok()?.san.to_move(pos).ok()?;
            if SanPlus::from_move(pos.clone(), m).to_string() != name {
                return None;
            }
            move_code(&m)
        };
        let next = Board(after(pos, code)?);
        index.follow_move(coll, board, code, &next);
        slice.reaches(index, coll, &next).then_some(next)
    }

    /// The text of `tree.txt` ([`PositionTree::text`]).
    pub fn text(&self) -> String {
        text(&self.board.0, &self.moves)
    }

    /// The position's FEN.
    pub fn fen(&self) -> String {
        self.board.fen()
    }
}

/// A position of the tree.
#[derive(Clone, Debug)]
pub struct PositionTree {
    /// The position.
    pub position: Chess,
    /// The games that reach it, ascending.
    pub games: Vec<u32>,
    /// The moves played there, most played first (equally played: by SAN).
    pub moves: Vec<TreeMove>,
}

impl PositionTree {
    /// The tree at `position` of the games of `coll`, from its `index`.
    pub fn at(index: &PositionIndex, coll: &dyn Collection, position: Chess) -> PositionTree {
        let board = Board(position);
        PositionTree {
            games: index.games_at(coll, &board),
            moves: PositionMoves::at(index, coll, &board).moves,
            position: board.0,
        }
    }

    /// The tree at `position` from the games that reach it.
    pub fn of(position: Chess, reach: &[Reach]) -> PositionTree {
        PositionTree {
            moves: named(&position, super::sums_of(reach)),
            games: reach.iter().map(|r| r.game).collect(),
            position,
        }
    }

    /// The position after move `code`, if it is a legal move here.
    pub fn after(&self, code: u16) -> Option<Chess> {
        after(&self.position, code)
    }

    /// SCID's table for the position: with `eco`, the ECO column names the position each
    /// move leads to (from the opening names); without, it is empty, as tkscid prints it
    /// with no ECO book loaded.
    pub fn table_text(&self, eco: bool) -> String {
        table_text(&self.position, &self.moves, eco)
    }

    /// The text of `tree.txt`: SCID's table (the ECO column from the opening names), then
    /// the position's FEN and, when known, its ECO code and opening name.
    pub fn text(&self) -> String {
        text(&self.position, &self.moves)
    }
}

/// The moves of `sums` (by code) named from `pos`, most played first (equally played: by
/// SAN).
fn named(pos: &Chess, sums: Vec<(u16, MoveStats)>) -> Vec<TreeMove> {
    let mut moves: Vec<TreeMove> = sums
        .into_iter()
        .map(|(code, stats)| TreeMove {
            code,
            san: san_of(pos, code),
            stats,
        })
        .collect();
    moves.sort_by(|a, b| {
        b.stats
            .games
            .cmp(&a.stats.games)
            .then_with(|| a.san.cmp(&b.san))
    });
    moves
}

/// The position after move `code` from `pos`, if it is a legal move there (a null move: the
/// same board with the other side to move, unless it is in check).
fn after(pos: &Chess, code: u16) -> Option<Chess> {
    if code == NULL_MOVE {
        return crate::game::replay::null_move(pos);
    }
    let m = move_of(pos, code)?;
    let mut pos = pos.clone();
    pos.play_unchecked(m);
    Some(pos)
}

/// SCID's table of `moves` from `pos` ([`PositionTree::table_text`]).
fn table_text(pos: &Chess, moves: &[TreeMove], eco: bool) -> String {
    let black_moves = pos.turn() == Color::Black;
    let rows: Vec<Row> = moves
        .iter()
        .map(|m| Row {
            san: m.san.clone(),
            eco: if eco {
                after(pos, m.code)
                    .and_then(|p| opening(position_key(&p)))
                    .map_or_else(String::new, |o| o.eco.to_owned())
            } else {
                String::new()
            },
            // SCID's `[end]` has no move: its colour reads as White's.
            black_moves: black_moves && m.code != END,
            stats: m.stats,
        })
        .collect();
    table(&rows)
}

/// The text of `tree.txt` for `moves` from `pos` ([`PositionTree::text`]).
fn text(pos: &Chess, moves: &[TreeMove]) -> String {
    let mut out = table_text(pos, moves, true);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "\nFEN: {}", fen(pos));
    if let Some(o) = opening(position_key(pos)) {
        let _ = writeln!(out, "ECO: {}\nOpening: {}", o.eco, o.name);
    }
    out
}

/// The FEN of `pos` (as a PGN `FEN` tag writes it).
pub fn fen(pos: &Chess) -> String {
    crate::game::replay::fen_of(pos)
}

/// Move `code` from `pos` as SCID's tree writes it.
fn san_of(pos: &Chess, code: u16) -> String {
    match code {
        END => "[end]".to_owned(),
        NULL_MOVE => "--".to_owned(),
        _ => move_of(pos, code).map_or_else(
            || format!("?{code:04x}"),
            |m| SanPlus::from_move(pos.clone(), m).to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::positions::line::GameStats;

    #[test]
    fn moves_are_grouped_and_named_with_their_signs() {
        let pos: Chess = "rnbqkbnr/ppp2ppp/3p4/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let code_of = |san: &str| {
            let m = san.parse::<SanPlus>().unwrap().san.to_move(&pos).unwrap();
            super::super::key::move_code(&m)
        };
        let bb5 = code_of("Bb5+");
        let d4 = code_of("d4");
        let stats = GameStats {
            result: crate::game::GameResult::WhiteWins,
            ..GameStats::default()
        };
        let reach =
            [(0, d4), (1, bb5), (2, bb5), (3, END)].map(|(game, next)| Reach { game, next, stats });
        let tree = PositionTree::of(pos, &reach);
        let sans: Vec<&str> = tree.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["Bb5+", "[end]", "d4"]);
        assert_eq!(tree.games, [0, 1, 2, 3]);
        let text = tree.text();
        assert!(text.contains("\n 1: Bb5+"), "{text}");
        assert!(
            text.contains("FEN: rnbqkbnr/ppp2ppp/3p4/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3")
        );
        assert!(text.contains("Opening: Philidor Defense"), "{text}");
    }
}
