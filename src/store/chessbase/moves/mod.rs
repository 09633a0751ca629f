//! A game's moves in the .cbg file: the start position and the move tree, main line and
//! variations.
//!
//! A record starts with four bytes: bit 6 of the first set when a start position follows
//! (`setup`), its low six bits the encoding mode, the other three the record's length. Modes
//! 0 and 4 (ChessBase's compact encoding of standard chess; 0 is what nearly every game
//! uses), 1 and 5 (the simple, two-byte encoding) and 10 (Chess960, compact) are decoded;
//! the others (the "reverse" modes no known base uses, losing chess, other variants) are
//! refused by name.
//!
//! The compact moves are a byte stream (`table`): each byte names a move by piece slot and
//! step (`pieces`), or starts or ends a variation. The tree is written depth first, a node's
//! children in order (the first is the main continuation): a `start` before each child but
//! the last, each child's line closed by an `end`; the game's own `end` closes the main line.
//! The simple moves are two-byte words: from square, to square, promotion piece, and two
//! bits for a variation starting before the move and a line ending after it, in the same
//! depth-first order.
//!
//! Where the moves stop making sense (a byte that names no legal move, or the record ends
//! before the game's end mark), ChessBase ends the game: its own export shows the moves
//! before that byte and no more (tests/chessbase_exports.rs, `NormalNoPop` and
//! `Chess960Corrupt`). So does gamefs; [`Moves::cut`] says where and why.

mod pieces;
mod setup;
mod table;

use shakmaty::{CastlingSide, Chess, Color, File, Position, Rank, Role, Square};

use super::annotations::Note;
use crate::error::{Error, ErrorKind, Result};
use crate::game::replay::{fen_of, play_in_place};
use crate::game::visit::GameVisitor;
use crate::game::{Line, MoveNode, Ply, StartPosition};
use pieces::{Slots, role_of, square};
use table::{Cipher, Code};

/// The length of a record's header (flags, mode and length).
pub const HEADER_LEN: usize = 4;

/// Variations open at once beyond which a record is refused: each open one keeps a position,
/// so this bounds the memory a hostile record takes (SCID's deepest real games nest a few
/// dozen).
const MAX_OPEN: usize = 10_000;

/// A decoded game's moves.
#[derive(Debug, Default)]
pub struct Moves {
    /// Where the game starts.
    pub start: StartPosition,
    /// The main line with its variations.
    pub line: Line,
    /// Where the moves stopped before the game's end mark, and why (`byte 111: …`): the
    /// game ends there, as ChessBase ends it.
    pub cut: Option<String>,
}

/// How a record's moves are written.
#[derive(Clone, Copy)]
enum Encoding {
    /// A byte a move (`table::Code`).
    Compact(Cipher),
    /// Two bytes a move (squares and variation bits).
    Simple(Cipher),
}

/// The length the header of a record says it has, header included.
pub fn record_len(header: [u8; HEADER_LEN]) -> usize {
    usize::from(header[1]) << 16 | usize::from(header[2]) << 8 | usize::from(header[3])
}

/// Tell `record` (a whole game record, without annotations) to `visitor` the one-pass way
/// `decode_main_line` decodes it (tags left empty), when that way takes it; `None` when the
/// record goes the tree's way. The fuzz target holds it to [`decode`] and a walk of its tree.
pub fn tell_main_line(record: &[u8], visitor: &mut dyn GameVisitor) -> Option<Result<()>> {
    let line = decode_main_line(record, &[])?;
    Some(
        visitor
            .begin(&crate::game::Headers::default(), line.start())
            .and_then(|()| line.tell(visitor)),
    )
}

/// The moves of `record`, a whole game record of the .cbg file (header included).
pub fn decode(record: &[u8]) -> Result<Moves> {
    decode_annotated(record, &[])
}

/// The moves of `record` with `notes` (the game's annotations, [`super::annotations`]) in
/// their places: texts as comments (graphical codes first), symbols as NAGs.
pub(super) fn decode_annotated(record: &[u8], notes: &[(u32, Note)]) -> Result<Moves> {
    let (start, mut decoder, cut) = decode_into(record, |_, most_moves| Tree::new(most_moves))?;
    annotate(&mut decoder.sink, notes, cut.is_some())?;
    Ok(Moves {
        start,
        line: decoder.sink.assemble(),
        cut,
    })
}

/// The moves of `record` with `notes` in their places, as [`decode_annotated`] places them,
/// when the record holds a main line alone that decodes to its end mark: decoded in one
/// pass, with the positions its moves lead to, so telling it
/// ([`MainLine::tell`]) replays nothing and builds no tree. `None` for a record with a
/// variation, one whose moves stop before their end mark ([`Moves::cut`]), or one
/// [`decode_annotated`] refuses: those go the tree's way, which says what it says of them.
pub(super) fn decode_main_line(record: &[u8], notes: &[(u32, Note)]) -> Option<MainLine> {
    let (start, decoder, cut) = decode_into(record, |pos, most_moves| {
        let mut positions = Vec::with_capacity(most_moves + 1);
        positions.push(pos.clone());
        Flat {
            positions,
            plies: Vec::with_capacity(most_moves),
            comment: None,
            notes: Vec::new(),
        }
    })
    .ok()?;
    if cut.is_some() {
        return None;
    }
    let mut moves = decoder.sink;
    annotate(&mut moves, notes, false).ok()?;
    Some(MainLine { start, moves })
}

/// Decode `record`'s start and moves into the sink `sink_of` makes (from the start position,
/// with room for a number of moves): the start, the decoder holding the sink, and where
/// and why the moves stopped before their end mark ([`Moves::cut`]).
fn decode_into<S: Sink>(
    record: &[u8],
    sink_of: impl FnOnce(&Chess, usize) -> S,
) -> Result<(StartPosition, Decoder<S>, Option<String>)> {
    let bad = |what: String| Error::corrupt_record(format!("moves: {what}"));
    let header: [u8; HEADER_LEN] = record
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| bad("record cut short".to_owned()))?;
    let mode = header[0] & 0x3F;
    let (encoding, chess960) = match mode {
        0 => (Encoding::Compact(Cipher::COMPACT), false),
        1 => (Encoding::Simple(Cipher::SIMPLE), false),
        4 => (Encoding::Compact(Cipher::COMPACT_POST), false),
        5 => (Encoding::Simple(Cipher::SIMPLE_POST), false),
        10 => (Encoding::Compact(Cipher::CHESS960), true),
        _ => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "moves: encoding mode {mode} ({}) is not decoded yet",
                    mode_name(mode)
                ),
            ));
        }
    };
    let rest = &record[HEADER_LEN..];
    let (start, pos, body) = match (header[0] & 0x40 != 0, chess960) {
        (true, false) => {
            let pos = setup::read(rest)?;
            (StartPosition::Fen(fen_of(&pos)), pos, &rest[setup::LEN..])
        }
        (true, true) => {
            let (pos, fen) = setup::read_chess960(rest)?;
            (
                StartPosition::Chess960(fen),
                pos,
                &rest[setup::LEN + setup::CHESS960_LEN..],
            )
        }
        (false, true) => {
            let (pos, fen) = setup::chess960_standard();
            (StartPosition::Chess960(fen), pos, rest)
        }
        (false, false) => (StartPosition::Standard, Chess::default(), rest),
    };
    // At most a move a byte (two in the simple encoding): room for them all at once, up to
    // a bound (a hostile length reserves no more).
    let most_moves = match encoding {
        Encoding::Compact(_) => body.len(),
        Encoding::Simple(_) => body.len() / 2,
    }
    .min(1 << 10);
    let sink = sink_of(&pos, most_moves);
    let mut decoder = Decoder::new(pos, sink)
        .ok_or_else(|| bad("a side has more than eight pawns".to_owned()))?;
    let offset = |at: usize| at + body.as_ptr() as usize - record.as_ptr() as usize;
    let stopped = match encoding {
        Encoding::Compact(cipher) => decoder.run(body, cipher),
        Encoding::Simple(cipher) => decoder.run_simple(body, cipher),
    }
    .map_err(|(at, e)| bad(format!("byte {}: {e}", offset(at))))?;
    let cut = stopped.map(|(at, e)| format!("byte {}: {e}", offset(at)));
    Ok((start, decoder, cut))
}

/// What ChessBase's encoding mode `mode` is for.
fn mode_name(mode: u8) -> &'static str {
    match mode {
        1..=7 => "standard chess, another encoding",
        8 | 9 => "losing chess",
        10 | 11 => "Chess960",
        12..=19 => "a chess variant",
        63 => "illegal positions allowed",
        _ => "unknown",
    }
}

/// What a run over a record's moves gives: `None` when the end mark ends them, the byte and
/// reason where they stop before it; an error names the byte that broke a bound.
type Stop = std::result::Result<Option<(usize, String)>, (usize, String)>;

/// What an open variation keeps to come back to: the sink's place, the position and the
/// slots.
type Open<S> = (<S as Sink>::Place, Chess, Slots);

/// What a run over a record's moves does with the moves it plays: builds the move tree
/// ([`Tree`]), or keeps a main line alone with the positions its moves lead to ([`Flat`]).
/// The decoding itself (slots, legality, variation marks) is [`Decoder`]'s, whichever.
trait Sink {
    /// What a variation keeps of the sink when it opens, to come back to when it closes.
    type Place: Copy;
    /// The place the next move goes, kept when a variation opens; an error when the sink
    /// takes no variations.
    fn place(&self) -> std::result::Result<Self::Place, String>;
    /// Back to `place`: the line a variation opened in goes on.
    fn back_to(&mut self, place: Self::Place);
    /// `ply` was played at the place, leading to `after`.
    fn played(&mut self, ply: Ply, after: &Chess);
}

/// A line of the tree being built, and where it hangs.
struct Built {
    line: Line,
    /// The line, move and variation slot it fills (none for the main line).
    parent: Option<(usize, usize, usize)>,
}

/// Where the next move goes: after move `index` of line `line`, or at the very start.
#[derive(Clone, Copy)]
enum Cursor {
    Start,
    After { line: usize, index: usize },
}

/// The move tree being built: each line as a list of its own, hung into its parent at the
/// end ([`Tree::assemble`]).
struct Tree {
    cursor: Cursor,
    lines: Vec<Built>,
    /// Where each move decoded went (line, index), in decoding order: annotations name
    /// moves by this order.
    places: Vec<(usize, usize)>,
}

impl Tree {
    /// An empty tree with room for `most_moves` moves.
    fn new(most_moves: usize) -> Tree {
        Tree {
            cursor: Cursor::Start,
            lines: vec![Built {
                line: Line {
                    comment: None,
                    moves: Vec::with_capacity(most_moves),
                },
                parent: None,
            }],
            places: Vec::with_capacity(most_moves),
        }
    }

    /// The main line with every variation in its place: each line is put into its parent,
    /// made before it, last first, so no recursion is needed however deep they nest.
    fn assemble(self) -> Line {
        let mut lines = self.lines;
        while lines.len() > 1 {
            let Some(Built {
                line,
                parent: Some((p, index, slot)),
            }) = lines.pop()
            else {
                break;
            };
            lines[p].line.moves[index].variations[slot] = line;
        }
        lines.pop().map(|b| b.line).unwrap_or_default()
    }
}

impl Sink for Tree {
    type Place = Cursor;

    fn place(&self) -> std::result::Result<Cursor, String> {
        Ok(self.cursor)
    }

    fn back_to(&mut self, place: Cursor) {
        self.cursor = place;
    }

    fn played(&mut self, ply: Ply, _after: &Chess) {
        // The cursor's first child continues its line; a later child starts a variation of
        // that first child.
        let (line, first_child) = match self.cursor {
            Cursor::Start => (0, 0),
            Cursor::After { line, index } => (line, index + 1),
        };
        let node = MoveNode::new(ply);
        let target = if self.lines[line].line.moves.len() == first_child {
            self.lines[line].line.moves.push(node);
            line
        } else {
            let variations = &mut self.lines[line].line.moves[first_child].variations;
            variations.push(Line::default());
            let slot = variations.len() - 1;
            self.lines.push(Built {
                line: Line {
                    comment: None,
                    moves: vec![node],
                },
                parent: Some((line, first_child, slot)),
            });
            self.lines.len() - 1
        };
        let index = self.lines[target].line.moves.len() - 1;
        self.cursor = Cursor::After {
            line: target,
            index,
        };
        self.places.push((target, index));
    }
}

/// A main line alone, as its moves are played: each with the position it leads to, so it is
/// told ([`MainLine::tell`]) without playing it again.
struct Flat {
    /// The start position, then the position each move leads to.
    positions: Vec<Chess>,
    /// Each move, and whether it checks.
    plies: Vec<(Ply, bool)>,
    /// The comment before the first move.
    comment: Option<String>,
    /// Each move's comment and NAGs; empty until an annotation names a move (most games
    /// have none, and slots kept beside every move made each move's copy larger).
    notes: Vec<(Option<String>, Vec<u8>)>,
}

impl Sink for Flat {
    /// No variation opens in a main line alone.
    type Place = std::convert::Infallible;

    fn place(&self) -> std::result::Result<Self::Place, String> {
        Err("a variation".to_owned())
    }

    fn back_to(&mut self, place: Self::Place) {
        match place {}
    }

    fn played(&mut self, ply: Ply, after: &Chess) {
        self.plies.push((ply, after.is_check()));
        // Cloned straight into its place, not through a copy on the stack: copies of
        // positions were a twentieth of an export's time.
        self.positions
            .extend_from_slice(std::slice::from_ref(after));
    }
}

/// A game without variations decoded in one pass ([`decode_main_line`]): its start, and its
/// moves with the positions they lead to and their annotations. Rendering it this way
/// rather than through [`Moves`] and a walk of its tree saves a replay of every move and
/// the tree (most games have no variations).
pub(super) struct MainLine {
    start: StartPosition,
    moves: Flat,
}

impl MainLine {
    /// Where the game starts.
    pub(super) fn start(&self) -> &StartPosition {
        &self.start
    }

    /// The number of half moves (PlyCount).
    pub(super) fn plies(&self) -> usize {
        self.moves.plies.len()
    }

    /// Tell the moves to `visitor` (whose `begin` the caller has told) with the events
    /// [`crate::game::visit::walk`] tells of the same game loaded as [`Moves`]: the
    /// comment before the first move, then each move with its NAGs and its comment.
    pub(super) fn tell(&self, visitor: &mut (impl GameVisitor + ?Sized)) -> Result<()> {
        if let Some(c) = &self.moves.comment {
            visitor.line_comment(c)?;
        }
        let Flat {
            positions, notes, ..
        } = &self.moves;
        for (i, (ply, check)) in self.moves.plies.iter().enumerate() {
            visitor.ply(&positions[i], ply, &positions[i + 1], *check)?;
            if let Some((comment, nags)) = notes.get(i) {
                for &nag in nags {
                    visitor.nag(nag)?;
                }
                if let Some(c) = comment {
                    visitor.comment(c)?;
                }
            }
        }
        Ok(())
    }
}

/// The decoding of one record's moves into a [`Sink`].
struct Decoder<S> {
    pos: Chess,
    slots: Slots,
    /// Moves decoded so far, modulo 256 (every byte is read less it).
    moves: u8,
    sink: S,
}

/// What the annotations of one move (or of the start) add to it.
#[derive(Default)]
struct Added {
    codes: String,
    before: Vec<String>,
    after: Vec<String>,
    nags: Vec<u8>,
}

/// `comment` with `more` after it.
fn append(comment: &mut Option<String>, more: &str) {
    if more.is_empty() {
        return;
    }
    match comment {
        Some(c) if !c.is_empty() => {
            c.push(' ');
            c.push_str(more);
        }
        _ => *comment = Some(more.to_owned()),
    }
}

/// Where a record's annotations go: the moves decoded, named by the order they were
/// decoded in, in the lines they went into ([`Tree`], or the one line of [`Flat`]).
trait Annotated {
    /// How many moves were decoded.
    fn decoded(&self) -> usize;
    /// The line and the index there of the `n`th move decoded (from 0).
    fn place_of(&self, n: usize) -> Option<(usize, usize)>;
    /// The comment before the first move of line `line` (0: the main line).
    fn line_comment(&mut self, line: usize) -> &mut Option<String>;
    /// The comment after move `index` of line `line`, and its NAGs.
    fn move_notes(&mut self, line: usize, index: usize) -> (&mut Option<String>, &mut Vec<u8>);
}

impl Annotated for Tree {
    fn decoded(&self) -> usize {
        self.places.len()
    }

    fn place_of(&self, n: usize) -> Option<(usize, usize)> {
        self.places.get(n).copied()
    }

    fn line_comment(&mut self, line: usize) -> &mut Option<String> {
        &mut self.lines[line].line.comment
    }

    fn move_notes(&mut self, line: usize, index: usize) -> (&mut Option<String>, &mut Vec<u8>) {
        let m = &mut self.lines[line].line.moves[index];
        (&mut m.comment, &mut m.nags)
    }
}

impl Annotated for Flat {
    fn decoded(&self) -> usize {
        self.plies.len()
    }

    fn place_of(&self, n: usize) -> Option<(usize, usize)> {
        (n < self.plies.len()).then_some((0, n))
    }

    fn line_comment(&mut self, _line: usize) -> &mut Option<String> {
        &mut self.comment
    }

    fn move_notes(&mut self, _line: usize, index: usize) -> (&mut Option<String>, &mut Vec<u8>) {
        if self.notes.is_empty() {
            self.notes.resize_with(self.plies.len(), Default::default);
        }
        let (comment, nags) = &mut self.notes[index];
        (comment, nags)
    }
}

/// Put `notes` on the moves they name: a text after a move, and coloured squares and
/// arrows, in its comment (codes first); a text before a move in the comment before it
/// (the line's, for a line's first move); symbols as its NAGs. The start position's
/// texts go before the first move. In a game `cut` short, notes on moves past the cut
/// go with them; otherwise such a note is an error.
fn annotate(target: &mut impl Annotated, notes: &[(u32, Note)], cut: bool) -> Result<()> {
    let mut added: std::collections::BTreeMap<u32, Added> = Default::default();
    for (node, note) in notes {
        if *node as usize > target.decoded() {
            if cut {
                continue;
            }
            return Err(Error::corrupt_record(format!(
                "annotations: move {node} of {}",
                target.decoded()
            )));
        }
        let a = added.entry(*node).or_default();
        match note {
            Note::After(t) => a.after.push(t.clone()),
            Note::Before(t) => a.before.push(t.clone()),
            Note::Nags(n) => a.nags.extend(n),
            Note::Squares(s) => a.codes.push_str(&format!("[%csl {s}]")),
            Note::Arrows(s) => a.codes.push_str(&format!("[%cal {s}]")),
            Note::Code(s) => a.codes.push_str(s),
            // The store turns clocks into tags or codes before the moves see them.
            Note::Clock { .. } => {}
        }
    }
    for (node, a) in added {
        let after = [a.codes.clone(), a.after.join(" ")]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let before = a.before.join(" ");
        let Some((line, index)) = node
            .checked_sub(1)
            .and_then(|n| target.place_of(n as usize))
        else {
            let start = target.line_comment(0);
            append(start, &before);
            append(start, &after);
            continue;
        };
        match index.checked_sub(1) {
            Some(previous) => append(target.move_notes(line, previous).0, &before),
            None => append(target.line_comment(line), &before),
        }
        let (comment, nags) = target.move_notes(line, index);
        append(comment, &after);
        nags.extend(a.nags);
    }
    Ok(())
}

impl<S: Sink> Decoder<S> {
    /// A decoder from `pos` into `sink`; none when a side has more pieces than slots.
    fn new(pos: Chess, sink: S) -> Option<Decoder<S>> {
        Some(Decoder {
            slots: Slots::of(pos.board())?,
            pos,
            moves: 0,
            sink,
        })
    }

    /// Decode `body`, compact moves read through `cipher`: `None` when the game's end mark
    /// ends it, the byte and the reason where the moves stop before it (the game ends
    /// there, [`Moves::cut`]). An error (a record past gamefs's bound on open variations)
    /// names the byte it is at.
    fn run(&mut self, body: &[u8], cipher: Cipher) -> Stop {
        let mut open: Vec<Open<S>> = Vec::new();
        let mut at = 0;
        loop {
            let Some(&byte) = body.get(at) else {
                return Ok(Some((
                    at,
                    "the moves end without their end mark".to_owned(),
                )));
            };
            let here = at;
            at += 1;
            let ply = match cipher.code(byte, self.moves) {
                Code::Ignore => continue,
                Code::Unknown(c) => return Ok(Some((here, format!("unknown code {c}")))),
                Code::StartVariation => {
                    self.open(&mut open, here)?;
                    continue;
                }
                Code::EndVariation if self.close(&mut open) => continue,
                Code::EndVariation => return Ok(None),
                Code::TwoBytes => {
                    let (Some(&hi), Some(&lo)) = (body.get(at), body.get(at + 1)) else {
                        return Ok(Some((here, "a two-byte move cut short".to_owned())));
                    };
                    at += 2;
                    let word = u16::from(cipher.value(hi, self.moves)) << 8
                        | u16::from(cipher.value(lo, self.moves));
                    self.two_byte_move(word)
                }
                code => self.one_byte_move(code),
            }
            .and_then(|ply| self.play(ply));
            if let Err(e) = ply {
                return Ok(Some((here, e)));
            }
        }
    }

    /// Decode `body`, simple moves read through `cipher`: each move two bytes, a word whose
    /// bit 15 keeps the place before the move (a variation starts there once its line is
    /// done) and bit 14 ends the line after it, back to the place last kept (the main
    /// line's end is the game's); from and to square 0 are a null move. What it
    /// returns is as [`Decoder::run`]'s.
    fn run_simple(&mut self, body: &[u8], cipher: Cipher) -> Stop {
        let mut open: Vec<Open<S>> = Vec::new();
        // A game without moves has no move to carry its end mark.
        if body.is_empty() {
            return Ok(None);
        }
        let mut at = 0;
        loop {
            let (Some(&hi), Some(&lo)) = (body.get(at), body.get(at + 1)) else {
                return Ok(Some((
                    at,
                    "the moves end without their end mark".to_owned(),
                )));
            };
            let here = at;
            at += 2;
            let word = u16::from(cipher.value(hi, self.moves)) << 8
                | u16::from(cipher.value(lo, self.moves));
            if word & 0x8000 != 0 {
                self.open(&mut open, here)?;
            }
            let ply = if word & 0x0FFF == 0 {
                Ok(Ply::Null)
            } else {
                self.two_byte_move(word & 0x3FFF)
            }
            .and_then(|ply| self.play(ply));
            if let Err(e) = ply {
                return Ok(Some((here, e)));
            }
            if word & 0x4000 != 0 && !self.close(&mut open) {
                return Ok(None);
            }
        }
    }

    /// End the line being decoded: back to the place, position and slots the last open
    /// variation kept. False when none is open: the main line, and so the game, ends.
    fn close(&mut self, open: &mut Vec<Open<S>>) -> bool {
        let Some((place, pos, slots)) = open.pop() else {
            return false;
        };
        self.sink.back_to(place);
        (self.pos, self.slots) = (pos, slots);
        true
    }

    /// Open a variation at byte `at`: keep the place, position and slots to come back to.
    fn open(&self, open: &mut Vec<Open<S>>, at: usize) -> std::result::Result<(), (usize, String)> {
        if open.len() >= MAX_OPEN {
            return Err((at, format!("more than {MAX_OPEN} variations open")));
        }
        let place = self.sink.place().map_err(|e| (at, e))?;
        open.push((place, self.pos.clone(), self.slots.clone()));
        Ok(())
    }

    /// The move a single-byte code names.
    fn one_byte_move(&self, code: Code) -> std::result::Result<Ply, String> {
        let color = self.pos.turn();
        let (from, to) = match code {
            Code::Null => return Ok(Ply::Null),
            Code::ShortCastle => return self.castle(CastlingSide::KingSide),
            Code::LongCastle => return self.castle(CastlingSide::QueenSide),
            Code::Step {
                piece,
                slot,
                dx,
                dy,
            } => {
                let from = if role_of(piece) == Role::King {
                    self.pos.board().king_of(color)
                } else {
                    self.slots.piece(color, piece, slot)
                }
                .ok_or_else(|| format!("no {:?} in slot {slot}", role_of(piece)))?;
                let file = (from.file() as u8 + dx) % 8;
                let rank = (from.rank() as u8 + dy) % 8;
                (from, square(file * 8 + rank))
            }
            Code::Pawn { slot, kind } => {
                let from = self
                    .slots
                    .pawn(color, slot)
                    .ok_or_else(|| format!("no pawn in slot {slot}"))?;
                let dir = if color == Color::White { 1 } else { -1 };
                let (dx, dy) = match kind {
                    0 => (0, dir),
                    1 => (0, 2 * dir),
                    2 => (dir, dir),
                    _ => (-dir, dir),
                };
                let file = from.file() as i32 + dx;
                let rank = from.rank() as i32 + dy;
                if !(0..8).contains(&file) || !(0..8).contains(&rank) {
                    return Err(format!("the pawn on {from} would leave the board"));
                }
                let to = Square::from_coords(File::new(file as u32), Rank::new(rank as u32));
                // A promotion takes two bytes; one that takes one is to a queen.
                let last = if color == Color::White {
                    Rank::Eighth
                } else {
                    Rank::First
                };
                let promotion = (to.rank() == last).then_some(Role::Queen);
                return self.legal(from, to, promotion);
            }
            other => return Err(format!("{other:?} is no move")),
        };
        self.legal(from, to, None)
    }

    /// The move a two-byte word names: from square, to square, promotion piece. The king
    /// two files along, or (Chess960) from and to the g- or c-file square, castles.
    fn two_byte_move(&self, word: u16) -> std::result::Result<Ply, String> {
        let from = square((word & 0x3F) as u8);
        let to = square((word >> 6 & 0x3F) as u8);
        if from == to {
            match to.file() {
                File::G => return self.castle(CastlingSide::KingSide),
                File::C => return self.castle(CastlingSide::QueenSide),
                _ => return Err(format!("a move from {from} to itself")),
            }
        }
        let role = self.pos.board().role_at(from);
        if role == Some(Role::King) && from.file().distance(to.file()) == 2 {
            let side = CastlingSide::from_king_side(to.file() > from.file());
            return self.castle(side);
        }
        let last = matches!(to.rank(), Rank::First | Rank::Eighth);
        let promotion = (role == Some(Role::Pawn) && last).then(|| {
            [Role::Queen, Role::Rook, Role::Bishop, Role::Knight][usize::from(word >> 12 & 3)]
        });
        self.legal(from, to, promotion)
    }

    /// The legal move from `from` to `to` (no castling).
    fn legal(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> std::result::Result<Ply, String> {
        // No move list for the usual move (game::legal); castling has its own codes.
        crate::game::legal::uci_to_move(&self.pos, from, to, promotion)
            .filter(|m| !m.is_castle())
            .map(Ply::Move)
            .ok_or_else(|| format!("{from}{to} is not a legal move in {}", fen_of(&self.pos)))
    }

    /// Castling to `side`, when legal.
    fn castle(&self, side: CastlingSide) -> std::result::Result<Ply, String> {
        self.pos
            .castling_moves(side)
            .into_iter()
            .next()
            .map(Ply::Move)
            .ok_or_else(|| format!("castling {side:?} is not legal in {}", fen_of(&self.pos)))
    }

    /// Play `ply` at the place: into the position, the slots and the sink.
    fn play(&mut self, ply: Ply) -> std::result::Result<(), String> {
        if let Ply::Move(m) = &ply {
            self.slots.play(self.pos.turn(), m);
        }
        play_in_place(&mut self.pos, &ply).map_err(|e| e.message().to_owned())?;
        self.moves = self.moves.wrapping_add(1);
        self.sink.played(ply, &self.pos);
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests;
