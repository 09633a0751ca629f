//! The annotations of a main line told in one pass, by move: what [`super::annotate`] puts
//! on a game without variations, kept apart from its moves so that they are told after the
//! move they follow, whether the moves were kept ([`super::Flat`]) or told as they were
//! decoded ([`super::stream`]).

use super::Annotated;
use crate::error::Result;
use crate::game::visit::GameVisitor;

/// A main line's comments and NAGs, by the move they follow.
pub(super) struct Notes {
    /// The half moves of the line: a note past them is an error ([`super::annotate`]).
    plies: usize,
    /// The comment before the first move.
    comment: Option<String>,
    /// Each move's comment and NAGs; empty until an annotation names a move (most games
    /// have none, and slots kept beside every move made each move's copy larger).
    moves: Vec<(Option<String>, Vec<u8>)>,
}

impl Notes {
    /// No notes yet on a main line of `plies` half moves.
    pub(super) fn new(plies: usize) -> Notes {
        Notes {
            plies,
            comment: None,
            moves: Vec::new(),
        }
    }

    /// Tell `visitor` the comment before the first move, if any.
    pub(super) fn tell_start(&self, visitor: &mut (impl GameVisitor + ?Sized)) -> Result<()> {
        match &self.comment {
            Some(c) => visitor.line_comment(c),
            None => Ok(()),
        }
    }

    /// Tell `visitor` the NAGs and then the comment of move `index` (from 0), if any.
    pub(super) fn tell_after(
        &self,
        index: usize,
        visitor: &mut (impl GameVisitor + ?Sized),
    ) -> Result<()> {
        let Some((comment, nags)) = self.moves.get(index) else {
            return Ok(());
        };
        for &nag in nags {
            visitor.nag(nag)?;
        }
        match comment {
            Some(c) => visitor.comment(c),
            None => Ok(()),
        }
    }
}

impl Annotated for Notes {
    fn decoded(&self) -> usize {
        self.plies
    }

    fn place_of(&self, n: usize) -> Option<(usize, usize)> {
        (n < self.plies).then_some((0, n))
    }

    fn line_comment(&mut self, _line: usize) -> &mut Option<String> {
        &mut self.comment
    }

    fn move_notes(&mut self, _line: usize, index: usize) -> (&mut Option<String>, &mut Vec<u8>) {
        if self.moves.is_empty() {
            self.moves.resize_with(self.plies, Default::default);
        }
        let (comment, nags) = &mut self.moves[index];
        (comment, nags)
    }
}
