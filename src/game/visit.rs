//! A game told as a stream of events (a move with the positions around it, a NAG, a comment,
//! a variation opening or closing) instead of a tree.
//!
//! Decoders that already replay a game on a board (SCID's) tell it straight to a consumer, so
//! rendering a stored game needs one replay and no tree that is built only to be thrown away
//! (pgn-reader's streaming visitor is the model). [`walk`] tells a game held as a tree the
//! same way, and [`TreeBuilder`] turns the events back into a tree, so every consumer is
//! written once.

use shakmaty::{Chess, Position};

use super::chess::{ChessGame, Headers, Line, MoveNode, Ply, StartPosition};
use super::replay::{play_in_place, start_position};
use crate::error::Result;

/// A consumer of a game's events. Events come in the order of the move tree: a line's
/// comment before its first move, then for each move its NAGs, its comment and its variations
/// (each between [`begin_variation`](Self::begin_variation) and
/// [`end_variation`](Self::end_variation)). A decoder of stored bytes may send a NAG or a
/// comment for a move again after the move's variations or replace a comment sent before;
/// a consumer that cannot take that says so with an error.
pub trait GameVisitor {
    /// The game starts: its tags and where it starts from.
    fn begin(&mut self, headers: &Headers, start: &StartPosition) -> Result<()>;
    /// The comment before the current line's first move; empty means none. A second call
    /// replaces the first.
    fn line_comment(&mut self, text: &str) -> Result<()>;
    /// The next move of the current line, played from `before` (the position after the line's
    /// previous move) to `after`; `check` is `after.is_check()`, which a decoder that checks
    /// each move's legality knows already (so a writer need not look again).
    fn ply(&mut self, before: &Chess, ply: &Ply, after: &Chess, check: bool) -> Result<()>;
    /// A numeric annotation glyph for the current line's last move.
    fn nag(&mut self, nag: u8) -> Result<()>;
    /// The comment after the current line's last move; empty means none. A second call
    /// replaces the first.
    fn comment(&mut self, text: &str) -> Result<()>;
    /// A variation of the current line's last move starts: its moves replace that move.
    fn begin_variation(&mut self) -> Result<()>;
    /// The current variation ends; its parent line is current again.
    fn end_variation(&mut self) -> Result<()>;
    /// Forget the game told so far, its [`begin`](Self::begin) too, so that it can be told
    /// again from the start; false (the default) when this consumer cannot. Asked before
    /// `begin`, it forgets nothing and says whether it could: a decoder that finds out
    /// only as it goes whether it tells a game the way it began (ChessBase's, where a move
    /// that is not legal cuts the game short) tells a consumer that can restart as it
    /// decodes, and keeps what it decodes for any other.
    fn restart(&mut self) -> bool {
        false
    }
}

/// One line of [`walk`]'s explicit stack: where we are in it and the position before its
/// next move.
struct WalkFrame<'a> {
    line: &'a Line,
    next: usize,
    pos: Chess,
    /// A variation (told between `begin_variation` and `end_variation`), not the main line.
    is_variation: bool,
    /// `begin_variation` and the line's comment have been told.
    begun: bool,
}

/// Tell `game` to `visitor`, replaying its moves for the positions (an explicit stack, so
/// any nesting depth is fine). Fails where a null move is made in check.
pub fn walk(game: &ChessGame, visitor: &mut (impl GameVisitor + ?Sized)) -> Result<()> {
    visitor.begin(&game.headers, &game.start)?;
    let mut stack = vec![WalkFrame {
        line: &game.moves,
        next: 0,
        pos: start_position(&game.start)?,
        is_variation: false,
        begun: false,
    }];
    while let Some(frame) = stack.last_mut() {
        if !frame.begun {
            frame.begun = true;
            if frame.is_variation {
                visitor.begin_variation()?;
            }
            if let Some(c) = &frame.line.comment {
                visitor.line_comment(c)?;
            }
        }
        let Some(node) = frame.line.moves.get(frame.next) else {
            if frame.is_variation {
                visitor.end_variation()?;
            }
            stack.pop();
            continue;
        };
        frame.next += 1;
        // One copy of the position a ply (played in place): copies were a tenth of a
        // game's rendering.
        let before = frame.pos.clone();
        play_in_place(&mut frame.pos, &node.ply)?;
        visitor.ply(&before, &node.ply, &frame.pos, frame.pos.is_check())?;
        for &nag in &node.nags {
            visitor.nag(nag)?;
        }
        if let Some(c) = &node.comment {
            visitor.comment(c)?;
        }
        // The last pushed is walked first: push in reverse to tell them in order (the first
        // variation, pushed last, takes the position itself).
        let mut before = Some(before);
        for (i, variation) in node.variations.iter().enumerate().rev() {
            let pos = match i {
                0 => before.take(),
                _ => before.clone(),
            };
            stack.push(WalkFrame {
                line: variation,
                next: 0,
                pos: pos.expect("taken by the last variation only"),
                is_variation: true,
                begun: false,
            });
        }
    }
    Ok(())
}

/// What a reader of a game's main line alone is told: its start and each of its plies
/// (variations, comments and NAGs are not). [`MainLine`] makes it a [`GameVisitor`].
pub trait MainLineVisitor {
    /// The game begins: its headers and start position.
    fn begin(&mut self, headers: &Headers, start: &StartPosition) -> Result<()>;
    /// A ply of the main line, with the positions before and after it.
    fn ply(&mut self, before: &Chess, ply: &Ply, after: &Chess) -> Result<()>;
}

/// A [`GameVisitor`] that tells only a game's main line to the [`MainLineVisitor`] it holds.
pub struct MainLine<V> {
    /// The visitor told the main line.
    pub inner: V,
    /// How deep in variations the events are (0: the main line).
    depth: usize,
}

impl<V> MainLine<V> {
    /// `inner`, told the main lines of the games walked.
    pub fn new(inner: V) -> MainLine<V> {
        MainLine { inner, depth: 0 }
    }
}

impl<V: MainLineVisitor> GameVisitor for MainLine<V> {
    fn begin(&mut self, headers: &Headers, start: &StartPosition) -> Result<()> {
        self.inner.begin(headers, start)
    }

    fn line_comment(&mut self, _text: &str) -> Result<()> {
        Ok(())
    }

    fn ply(&mut self, before: &Chess, ply: &Ply, after: &Chess, _check: bool) -> Result<()> {
        match self.depth {
            0 => self.inner.ply(before, ply, after),
            _ => Ok(()),
        }
    }

    fn nag(&mut self, _nag: u8) -> Result<()> {
        Ok(())
    }

    fn comment(&mut self, _text: &str) -> Result<()> {
        Ok(())
    }

    fn begin_variation(&mut self) -> Result<()> {
        self.depth += 1;
        Ok(())
    }

    fn end_variation(&mut self) -> Result<()> {
        self.depth = self.depth.saturating_sub(1);
        Ok(())
    }
}

/// Builds the move tree from events (the decoders' way to the model).
#[derive(Default)]
pub struct TreeBuilder {
    /// The lines being built: the main line at the bottom, the open variations above it.
    lines: Vec<Line>,
}

impl TreeBuilder {
    /// A builder for a game's main line.
    pub fn new() -> TreeBuilder {
        TreeBuilder {
            lines: vec![Line::default()],
        }
    }

    /// The main line built (open variations, if any, are dropped).
    pub fn finish(mut self) -> Line {
        self.lines.truncate(1);
        self.lines.pop().unwrap_or_default()
    }

    fn current(&mut self) -> &mut Line {
        if self.lines.is_empty() {
            self.lines.push(Line::default());
        }
        self.lines.last_mut().expect("a line")
    }
}

/// The model's comment slot for event text: empty means none.
fn comment_slot(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

impl GameVisitor for TreeBuilder {
    fn begin(&mut self, _headers: &Headers, _start: &StartPosition) -> Result<()> {
        Ok(())
    }

    fn line_comment(&mut self, text: &str) -> Result<()> {
        self.current().comment = comment_slot(text);
        Ok(())
    }

    fn ply(&mut self, _before: &Chess, ply: &Ply, _after: &Chess, _check: bool) -> Result<()> {
        self.current().moves.push(MoveNode::new(ply.clone()));
        Ok(())
    }

    fn nag(&mut self, nag: u8) -> Result<()> {
        if let Some(node) = self.current().moves.last_mut() {
            node.nags.push(nag);
        }
        Ok(())
    }

    fn comment(&mut self, text: &str) -> Result<()> {
        if let Some(node) = self.current().moves.last_mut() {
            node.comment = comment_slot(text);
        }
        Ok(())
    }

    fn begin_variation(&mut self) -> Result<()> {
        self.lines.push(Line::default());
        Ok(())
    }

    fn end_variation(&mut self) -> Result<()> {
        if self.lines.len() > 1 {
            let child = self.lines.pop().expect("a variation");
            if let Some(node) = self.current().moves.last_mut() {
                node.variations.push(child);
            }
        }
        Ok(())
    }
}
