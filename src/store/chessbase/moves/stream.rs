//! A main line told to a visitor as its moves are decoded: no position kept per move, no
//! list of moves, the way SCID's records are told. The visitor is told the game's start
//! before the moves are known to be all legal, so this way is taken only for a visitor that
//! can forget what it was told ([`GameVisitor::restart`]): where a move turns out not to be
//! legal (the game is cut there, [`super::Moves::cut`]), what was told is taken back and
//! the game goes the tree's way.

use shakmaty::Chess;

use super::notes::Notes;
use super::{MainLineOnly, Sink};
use crate::error::{Error, Result};
use crate::game::visit::GameVisitor;
use crate::game::{Headers, Ply, StartPosition};

/// The sink that tells each move to a visitor as it is played, with its notes.
pub(super) struct Stream<'v, V: ?Sized> {
    /// The position the next move is played from (`positions[at]`), and the one it is
    /// played into (the other): a move played makes the other the current one, where
    /// swapping the two took two copies of a position a move.
    positions: [Chess; 2],
    at: usize,
    /// The moves told so far.
    told: usize,
    notes: Notes,
    visitor: &'v mut V,
    /// The visitor's refusal of a move or a note, which stopped the moves.
    refused: Option<Error>,
}

impl<'v, V: GameVisitor + ?Sized> Stream<'v, V> {
    /// A stream from `pos` to `visitor`, with `notes`; [`Stream::begin`] starts it.
    pub(super) fn new(pos: Chess, notes: Notes, visitor: &'v mut V) -> Stream<'v, V> {
        Stream {
            positions: [pos.clone(), pos],
            at: 0,
            told: 0,
            notes,
            visitor,
            refused: None,
        }
    }

    /// Tell the visitor the game's start: its `headers`, where it starts, and the comment
    /// before the first move.
    pub(super) fn begin(&mut self, headers: &Headers, start: &StartPosition) -> Result<()> {
        self.visitor.begin(headers, start)?;
        self.notes.tell_start(self.visitor)
    }

    /// The visitor's refusal that stopped the moves, if it did.
    pub(super) fn refused(&mut self) -> Option<Error> {
        self.refused.take()
    }

    /// The visitor, to tell it again.
    pub(super) fn visitor(&mut self) -> &mut V {
        self.visitor
    }
}

impl<V: GameVisitor + ?Sized> MainLineOnly for Stream<'_, V> {}

impl<V: GameVisitor + ?Sized> Sink for Stream<'_, V> {
    fn position(&self) -> &Chess {
        in_turn(&self.positions, self.at).0
    }

    fn next(&mut self) -> &mut Chess {
        let [first, second] = &mut self.positions;
        let (from, to) = match self.at {
            0 => (first, second),
            _ => (second, first),
        };
        to.clone_from(from);
        to
    }

    fn keep(&mut self, ply: Ply, check: bool) -> std::result::Result<(), String> {
        let (before, after) = in_turn(&self.positions, self.at);
        let told = self
            .visitor
            .ply(before, &ply, after, check)
            .and_then(|()| self.notes.tell_after(self.told, self.visitor));
        if let Err(e) = told {
            let why = e.message().to_owned();
            self.refused = Some(e);
            return Err(why);
        }
        self.at ^= 1;
        self.told += 1;
        Ok(())
    }
}

/// The position the next move is played from (`positions[at]`) and the other: a choice of
/// two references, where indexing by `at` took a bounds check and a multiplication a call.
fn in_turn(positions: &[Chess; 2], at: usize) -> (&Chess, &Chess) {
    let [first, second] = positions;
    match at {
        0 => (first, second),
        _ => (second, first),
    }
}
