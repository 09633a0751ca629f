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

mod notes;
mod pieces;
mod setup;
mod stream;
mod table;

use shakmaty::{CastlingSide, Chess, Color, File, Position, Rank, Role, Square};

use super::annotations::Note;
use crate::error::{Error, ErrorKind, Result};
use crate::game::legal::{self, UciCandidate};
use crate::game::replay::{fen_of, play_in_place};
use crate::game::visit::GameVisitor;
use crate::game::{Headers, Line, MoveNode, Ply, StartPosition};
use notes::Notes;
use pieces::{Slots, role_of, square};
use stream::Stream;
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

/// Tell `record` (a whole game record, without annotations) to `visitor` the one-pass way a
/// store's visit tells it (tags left empty), when that way takes it; `None` when the record
/// goes the tree's way, with nothing told. A visitor that can restart
/// ([`GameVisitor::restart`]) is told each move as it is decoded, any other once its line is
/// decoded. The fuzz target holds it to [`decode`] and a walk of its tree.
pub fn tell_main_line(record: &[u8], visitor: &mut dyn GameVisitor) -> Option<Result<()>> {
    tell_one_pass(record, &[], visitor, |_, _| Headers::default())
}

/// Tell `record` with `notes` (as [`decode_annotated`] places them) to `visitor` in one
/// pass when it holds a main line alone that decodes to its end mark, `headers` making the
/// game's tags from its start and its half moves (PlyCount); `None` when the record goes
/// the tree's way, with nothing told (a visitor told part of a game before a move turned
/// out not to be legal is restarted, [`GameVisitor::restart`]). A visitor that can
/// restart is told each move as it is decoded ([`stream`]); any other, once the whole
/// line is decoded ([`decode_main_line`]).
pub(super) fn tell_one_pass<V: GameVisitor + ?Sized>(
    record: &[u8],
    notes: &[(u32, Note)],
    visitor: &mut V,
    headers: impl FnOnce(&StartPosition, usize) -> Headers,
) -> Option<Result<()>> {
    if !visitor.restart() {
        let line = decode_main_line(record, notes)?;
        let headers = headers(line.start(), line.plies());
        return Some(
            visitor
                .begin(&headers, line.start())
                .and_then(|()| line.tell(visitor)),
        );
    }
    let head = Head::read(record).ok()?;
    let plies = head.main_line_plies(record)?;
    let mut placed = Notes::new(plies);
    annotate(&mut placed, notes, false).ok()?;
    let (start, pos) = start_of(record, head).ok()?;
    let mut decoder = Decoder::new(Stream::new(pos, placed, visitor))?;
    if let Err(e) = decoder.sink.begin(&headers(&start, plies), &start) {
        return Some(Err(e));
    }
    let cut = run_body(record, head, &mut decoder);
    if let Some(e) = decoder.sink.refused() {
        return Some(Err(e));
    }
    if matches!(cut, Ok(None)) {
        return Some(Ok(()));
    }
    // The game is cut (or refused): the tree's way tells it, from its start.
    decoder.sink.visitor().restart();
    None
}

/// The moves of `record`, a whole game record of the .cbg file (header included).
pub fn decode(record: &[u8]) -> Result<Moves> {
    decode_annotated(record, &[])
}

/// The moves of `record` with `notes` (the game's annotations, [`super::annotations`]) in
/// their places: texts as comments (graphical codes first), symbols as NAGs.
pub(super) fn decode_annotated(record: &[u8], notes: &[(u32, Note)]) -> Result<Moves> {
    let head = Head::read(record)?;
    let most_moves = head.most_moves(record);
    let (start, mut decoder, cut) = decode_into(record, head, |pos| Tree::new(pos, most_moves))?;
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
/// A variation, and a record's end or an unknown code before the end mark, are seen in
/// its bytes before any move is played ([`Head::main_line_plies`]), so such a record is
/// decoded once, the tree's way.
pub(super) fn decode_main_line(record: &[u8], notes: &[(u32, Note)]) -> Option<MainLine> {
    let head = Head::read(record).ok()?;
    let plies = head.main_line_plies(record)?;
    let most_moves = plies.min(head.most_moves(record));
    let (start, decoder, cut) = decode_into(record, head, |pos| Flat::new(pos, most_moves)).ok()?;
    if cut.is_some() {
        return None;
    }
    let moves = decoder.sink;
    let mut placed = Notes::new(moves.plies.len());
    annotate(&mut placed, notes, false).ok()?;
    Some(MainLine {
        start,
        moves,
        notes: placed,
    })
}

/// What a record's four-byte header says: how its moves are written, and what comes before
/// them.
#[derive(Clone, Copy)]
struct Head {
    encoding: Encoding,
    /// A Chess960 game (mode 10).
    chess960: bool,
    /// A start position follows the header.
    setup: bool,
}

impl Head {
    /// The header of `record`; an error for a record too short for one, or an encoding
    /// mode not decoded (by name).
    fn read(record: &[u8]) -> Result<Head> {
        let first = *record
            .first()
            .filter(|_| record.len() >= HEADER_LEN)
            .ok_or_else(|| bad("record cut short".to_owned()))?;
        let mode = first & 0x3F;
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
        Ok(Head {
            encoding,
            chess960,
            setup: first & 0x40 != 0,
        })
    }

    /// Where the moves start in the record: after the header and the start position.
    fn body_at(self) -> usize {
        match (self.setup, self.chess960) {
            (false, _) => HEADER_LEN,
            (true, false) => HEADER_LEN + setup::LEN,
            (true, true) => HEADER_LEN + setup::LEN + setup::CHESS960_LEN,
        }
    }

    /// The moves `record` holds at most: a move a byte (two in the simple encoding), up to
    /// a bound, the room reserved for them at once (a hostile length reserves no more).
    fn most_moves(self, record: &[u8]) -> usize {
        let body = record.len().saturating_sub(self.body_at());
        match self.encoding {
            Encoding::Compact(_) => body,
            Encoding::Simple(_) => body / 2,
        }
        .min(1 << 10)
    }

    /// The half moves of `record`'s main line when its bytes hold one alone, up to its end
    /// mark; `None` when a variation starts, or the bytes end or hold an unknown code
    /// first. This needs no board: what a byte means depends on the number of moves before
    /// it, never on the position, so every move code counts one, whatever it moves.
    fn main_line_plies(self, record: &[u8]) -> Option<usize> {
        let body = record.get(self.body_at()..)?;
        match self.encoding {
            Encoding::Compact(cipher) => compact_plies(body, cipher),
            Encoding::Simple(cipher) => simple_plies(body, cipher),
        }
    }
}

/// The error of a record whose moves do not decode.
fn bad(what: String) -> Error {
    Error::corrupt_record(format!("moves: {what}"))
}

/// [`Head::main_line_plies`] of compact moves read through `cipher`, as [`Decoder::run`]
/// reads them.
fn compact_plies(body: &[u8], cipher: Cipher) -> Option<usize> {
    let mut plies = 0usize;
    let mut at = 0;
    loop {
        let byte = *body.get(at)?;
        at += 1;
        match cipher.code(byte, plies as u8) {
            Code::Ignore => continue,
            Code::EndVariation => return Some(plies),
            Code::StartVariation | Code::Unknown(_) => return None,
            Code::TwoBytes if body.len() - at < 2 => return None,
            Code::TwoBytes => at += 2,
            _ => {}
        }
        plies += 1;
    }
}

/// [`Head::main_line_plies`] of simple moves read through `cipher`, as
/// [`Decoder::run_simple`] reads them.
fn simple_plies(body: &[u8], cipher: Cipher) -> Option<usize> {
    // A game without moves has no move to carry its end mark.
    if body.is_empty() {
        return Some(0);
    }
    for (plies, pair) in body.chunks_exact(2).enumerate() {
        let moves = plies as u8;
        let word =
            u16::from(cipher.value(pair[0], moves)) << 8 | u16::from(cipher.value(pair[1], moves));
        if word & 0x8000 != 0 {
            return None;
        }
        if word & 0x4000 != 0 {
            return Some(plies + 1);
        }
    }
    None
}

/// Decode `record`'s start and moves (its header `head` read) into the sink `sink_of` makes
/// from the start position: the start, the decoder holding the sink, and where and why the
/// moves stopped before their end mark ([`Moves::cut`]).
fn decode_into<S: Sink>(
    record: &[u8],
    head: Head,
    sink_of: impl FnOnce(Chess) -> S,
) -> Result<(StartPosition, Decoder<S>, Option<String>)> {
    let (start, pos) = start_of(record, head)?;
    let mut decoder = Decoder::new(sink_of(pos))
        .ok_or_else(|| bad("a side has more than eight pawns".to_owned()))?;
    let cut = run_body(record, head, &mut decoder)?;
    Ok((start, decoder, cut))
}

/// Where `record` (its header `head` read) starts: as the game names it, and the position.
fn start_of(record: &[u8], head: Head) -> Result<(StartPosition, Chess)> {
    let rest = &record[HEADER_LEN..];
    Ok(match (head.setup, head.chess960) {
        (true, false) => {
            let pos = setup::read(rest)?;
            (StartPosition::Fen(fen_of(&pos)), pos)
        }
        (true, true) => {
            let (pos, fen) = setup::read_chess960(rest)?;
            (StartPosition::Chess960(fen), pos)
        }
        (false, true) => {
            let (pos, fen) = setup::chess960_standard();
            (StartPosition::Chess960(fen), pos)
        }
        (false, false) => (StartPosition::Standard, Chess::default()),
    })
}

/// Decode the moves of `record` (its header `head` read) with `decoder`: where and why they
/// stopped before their end mark ([`Moves::cut`]), if they did.
fn run_body<S: Sink>(
    record: &[u8],
    head: Head,
    decoder: &mut Decoder<S>,
) -> Result<Option<String>> {
    let body_at = head.body_at();
    let body = &record[body_at..];
    let stopped = match head.encoding {
        Encoding::Compact(cipher) => decoder.run(body, cipher),
        Encoding::Simple(cipher) => decoder.run_simple(body, cipher),
    }
    .map_err(|(at, e)| bad(format!("byte {}: {e}", body_at + at)))?;
    Ok(stopped.map(|(at, e)| format!("byte {}: {e}", body_at + at)))
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

/// What an open variation keeps to come back to: the sink's place, the position, the slots
/// and whether the side to move is in check there.
type Open<S> = (<S as Variations>::Place, Chess, Slots, bool);

/// Where a sink's variations go ([`Sink`]).
trait Variations {
    /// What a variation keeps of the sink when it opens, to come back to when it closes.
    type Place: Copy;
    /// The place the next move goes, kept when a variation opens; an error when the sink
    /// takes no variations.
    fn place(&self) -> std::result::Result<Self::Place, String>;
    /// Back to `place`, at `pos`: the line a variation opened in goes on.
    fn back_to(&mut self, place: Self::Place, pos: Chess);
}

/// A sink of a main line alone ([`Flat`], [`Stream`]): no variation opens in it.
trait MainLineOnly {}

impl<T: MainLineOnly + ?Sized> Variations for T {
    type Place = std::convert::Infallible;

    fn place(&self) -> std::result::Result<Self::Place, String> {
        Err("a variation".to_owned())
    }

    fn back_to(&mut self, place: Self::Place, _pos: Chess) {
        match place {}
    }
}

/// What a run over a record's moves does with the moves it plays: builds the move tree
/// ([`Tree`]), keeps a main line alone with the positions its moves lead to ([`Flat`]), or
/// tells a main line alone to a visitor move by move ([`Stream`]).
/// The sink holds the position the next move is played from, so the one-pass way plays
/// each move straight into the position it keeps. The decoding itself (slots, legality,
/// variation marks) is [`Decoder`]'s, whichever.
trait Sink: Variations {
    /// The position the next move is played from.
    fn position(&self) -> &Chess;
    /// A copy of [`Sink::position`] for the next move to be played into; it stays
    /// apart until [`Sink::keep`].
    fn next(&mut self) -> &mut Chess;
    /// `ply`, played into [`Sink::next`], is legal (`check`: it gives check): it goes into
    /// the sink, and its position is the one the next move is played from; an error (the
    /// reason) stops the moves there.
    fn keep(&mut self, ply: Ply, check: bool) -> std::result::Result<(), String>;
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
    /// The position the next move is played from, and the one it is played into.
    pos: Chess,
    next: Chess,
    lines: Vec<Built>,
    /// Where each move decoded went (line, index), in decoding order: annotations name
    /// moves by this order.
    places: Vec<(usize, usize)>,
}

impl Tree {
    /// An empty tree from `pos` with room for `most_moves` moves.
    fn new(pos: Chess, most_moves: usize) -> Tree {
        Tree {
            cursor: Cursor::Start,
            next: pos.clone(),
            pos,
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

impl Variations for Tree {
    type Place = Cursor;

    fn place(&self) -> std::result::Result<Cursor, String> {
        Ok(self.cursor)
    }

    fn back_to(&mut self, place: Cursor, pos: Chess) {
        self.cursor = place;
        self.pos = pos;
    }
}

impl Sink for Tree {
    fn position(&self) -> &Chess {
        &self.pos
    }

    fn next(&mut self) -> &mut Chess {
        self.next.clone_from(&self.pos);
        &mut self.next
    }

    fn keep(&mut self, ply: Ply, _check: bool) -> std::result::Result<(), String> {
        std::mem::swap(&mut self.pos, &mut self.next);
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
        Ok(())
    }
}

/// The half moves a main line's positions have room for at least ([`Flat::new`]).
const SHORT_GAME: usize = 254;

/// A main line alone, as its moves are played: each with the position it leads to, so it is
/// told ([`MainLine::tell`]) without playing it again.
struct Flat {
    /// The start position, then the position each move leads to (and, past them, the one
    /// the next move is being played into).
    positions: Vec<Chess>,
    /// Each move, and whether it checks.
    plies: Vec<(Ply, bool)>,
}

impl Flat {
    /// A main line from `pos` with room for `most_moves` moves.
    fn new(pos: Chess, most_moves: usize) -> Flat {
        // Room for a long game whatever the length: the allocator hands the block the last
        // game let go of back, whose lines are still in the cache, where a block of each
        // game's size was new memory (a tenth of the cache misses of an export).
        let mut positions = Vec::with_capacity(most_moves.max(SHORT_GAME) + 2);
        positions.push(pos);
        Flat {
            positions,
            plies: Vec::with_capacity(most_moves),
        }
    }
}

impl MainLineOnly for Flat {}

impl Sink for Flat {
    fn position(&self) -> &Chess {
        &self.positions[self.plies.len()]
    }

    fn next(&mut self) -> &mut Chess {
        let at = self.plies.len();
        self.positions.truncate(at + 1);
        let pos = self.positions[at].clone();
        self.positions.push(pos);
        &mut self.positions[at + 1]
    }

    fn keep(&mut self, ply: Ply, check: bool) -> std::result::Result<(), String> {
        self.plies.push((ply, check));
        Ok(())
    }
}

/// A game without variations decoded in one pass ([`decode_main_line`]): its start, and its
/// moves with the positions they lead to and their annotations. Rendering it this way
/// rather than through [`Moves`] and a walk of its tree saves a replay of every move and
/// the tree (most games have no variations).
pub(super) struct MainLine {
    start: StartPosition,
    moves: Flat,
    notes: Notes,
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
        self.notes.tell_start(visitor)?;
        let positions = &self.moves.positions;
        for (i, (ply, check)) in self.moves.plies.iter().enumerate() {
            visitor.ply(&positions[i], ply, &positions[i + 1], *check)?;
            self.notes.tell_after(i, visitor)?;
        }
        Ok(())
    }
}

/// The decoding of one record's moves into a [`Sink`] (which holds the position).
struct Decoder<S> {
    slots: Slots,
    /// The side to move is in check: carried from move to move, so that one lookup after
    /// a move tells both that it left its own king safe and whether it checks
    /// ([`legal::after_move`]).
    in_check: bool,
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
/// decoded in, in the lines they went into ([`Tree`], or the one line of a game without
/// variations, [`Notes`]).
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
    /// A decoder into `sink`, from its position; none when a side has more pawns than
    /// slots.
    fn new(sink: S) -> Option<Decoder<S>> {
        let pos = sink.position();
        Some(Decoder {
            slots: Slots::of(pos.board())?,
            in_check: pos.is_check(),
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
            };
            if let Err(e) = self.play_found(ply) {
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
            };
            if let Err(e) = self.play_found(ply) {
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
        let Some((place, pos, slots, in_check)) = open.pop() else {
            return false;
        };
        self.sink.back_to(place, pos);
        (self.slots, self.in_check) = (slots, in_check);
        true
    }

    /// Open a variation at byte `at`: keep the place, position and slots to come back to.
    fn open(&self, open: &mut Vec<Open<S>>, at: usize) -> std::result::Result<(), (usize, String)> {
        if open.len() >= MAX_OPEN {
            return Err((at, format!("more than {MAX_OPEN} variations open")));
        }
        let place = self.sink.place().map_err(|e| (at, e))?;
        let pos = self.sink.position().clone();
        open.push((place, pos, self.slots.clone(), self.in_check));
        Ok(())
    }

    /// The move a single-byte code names.
    fn one_byte_move(&self, code: Code) -> std::result::Result<Ply, Refusal> {
        let pos = self.sink.position();
        let color = pos.turn();
        match code {
            Code::Null => Ok(Ply::Null),
            Code::ShortCastle => self.castle(CastlingSide::KingSide),
            Code::LongCastle => self.castle(CastlingSide::QueenSide),
            Code::Step {
                piece,
                slot,
                dx,
                dy,
            } => {
                let role = role_of(piece);
                let from = if role == Role::King {
                    pos.board().king_of(color)
                } else {
                    self.slots.piece(color, piece, slot)
                }
                .ok_or(Refusal::NoPiece { role, slot })?;
                let file = (from.file() as u8 + dx) % 8;
                let rank = (from.rank() as u8 + dy) % 8;
                let to = square(file * 8 + rank);
                let found = legal::piece_step(pos.board(), color, role, from, to);
                self.or_by_squares(found, from, to, None)
            }
            Code::Pawn { slot, kind } => {
                let from = self
                    .slots
                    .pawn(color, slot)
                    .ok_or(Refusal::NoPawn { slot })?;
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
                    return Err(Refusal::OffBoard { from });
                }
                let to = Square::from_coords(File::new(file as u32), Rank::new(rank as u32));
                // A promotion takes two bytes; one that takes one is to a queen.
                let last = if color == Color::White {
                    Rank::Eighth
                } else {
                    Rank::First
                };
                let promotion = (to.rank() == last).then_some(Role::Queen);
                let found = legal::pawn_step(pos.board(), color, from, to, promotion);
                self.or_by_squares(found, from, to, promotion)
            }
            other => Err(Refusal::NoMove(other)),
        }
    }

    /// `found`, the move a slot's piece makes when it can ([`legal::piece_step`],
    /// [`legal::pawn_step`]; its king's safety is [`Decoder::play`]'s question), else the
    /// move from `from` to `to` found by its squares as any move is
    /// ([`Decoder::by_squares`]: en passant is checked whole, and it gives the reason for a
    /// refusal).
    #[inline(always)]
    fn or_by_squares(
        &self,
        found: Option<shakmaty::Move>,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> std::result::Result<Ply, Refusal> {
        match found {
            Some(m) => Ok(Ply::Move(m)),
            None => self.by_squares(from, to, promotion),
        }
    }

    /// The move a two-byte word names: from square, to square, promotion piece. The king
    /// two files along, or (Chess960) from and to the g- or c-file square, castles.
    fn two_byte_move(&self, word: u16) -> std::result::Result<Ply, Refusal> {
        let from = square((word & 0x3F) as u8);
        let to = square((word >> 6 & 0x3F) as u8);
        if from == to {
            match to.file() {
                File::G => return self.castle(CastlingSide::KingSide),
                File::C => return self.castle(CastlingSide::QueenSide),
                _ => return Err(Refusal::ToItself { from }),
            }
        }
        let role = self.sink.position().board().role_at(from);
        if role == Some(Role::King) && from.file().distance(to.file()) == 2 {
            let side = CastlingSide::from_king_side(to.file() > from.file());
            return self.castle(side);
        }
        let last = matches!(to.rank(), Rank::First | Rank::Eighth);
        let promotion = (role == Some(Role::Pawn) && last).then(|| {
            [Role::Queen, Role::Rook, Role::Bishop, Role::Knight][usize::from(word >> 12 & 3)]
        });
        self.by_squares(from, to, promotion)
    }

    /// The move from `from` to `to` (no castling), when its piece can make it there: an
    /// ordinary move's king safety is [`Decoder::play`]'s question, answered as it is
    /// played; en passant is checked whole.
    fn by_squares(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    ) -> std::result::Result<Ply, Refusal> {
        let pos = self.sink.position();
        // No move list for the usual move (game::legal); castling has its own codes.
        match legal::uci_candidate(pos, from, to, promotion) {
            UciCandidate::Ordinary(m) => Some(m),
            UciCandidate::Impossible => None,
            UciCandidate::Special => {
                legal::uci_to_move(pos, from, to, promotion).filter(|m| !m.is_castle())
            }
        }
        .map(Ply::Move)
        .ok_or(Refusal::NotLegal { from, to })
    }

    /// Castling to `side`, when legal.
    fn castle(&self, side: CastlingSide) -> std::result::Result<Ply, Refusal> {
        let pos = self.sink.position();
        pos.castling_moves(side)
            .into_iter()
            .next()
            .map(Ply::Move)
            .ok_or(Refusal::Castling(side))
    }

    /// Play the move `found` (a move its piece can make, [`Decoder::play`]), or say why none
    /// was found.
    fn play_found(
        &mut self,
        found: std::result::Result<Ply, Refusal>,
    ) -> std::result::Result<(), String> {
        match found {
            Ok(ply) => self.play(ply),
            Err(why) => Err(why.message(self.sink.position())),
        }
    }

    /// Play `ply`, a move its piece can make ([`Decoder::by_squares`]), at the place: into
    /// the sink's next position, where one lookup tells that it left its own king safe
    /// (else it is refused) and whether it checks; then into the slots and the sink.
    fn play(&mut self, ply: Ply) -> std::result::Result<(), String> {
        let in_check = self.in_check;
        let after = self.sink.next();
        play_in_place(after, &ply).map_err(|e| e.message().to_owned())?;
        let check = match &ply {
            Ply::Move(m) => legal::after_move(*m, in_check, after),
            Ply::Null => Some(after.is_check()),
        };
        let before = self.sink.position();
        match (&ply, check) {
            (Ply::Move(m), None) => {
                return Err(not_legal(m.from().unwrap_or(m.to()), m.to(), before));
            }
            (Ply::Move(m), Some(_)) => self.slots.play(before.turn(), m),
            (Ply::Null, _) => {}
        }
        let check = check.unwrap_or_default();
        self.in_check = check;
        self.moves = self.moves.wrapping_add(1);
        self.sink.keep(ply, check)
    }
}

/// Why no move was found for a code or a word, said ([`Refusal::message`]) only where a
/// game is cut: small and plain, so a move found comes back in registers (a `String`
/// beside it sent the move through memory, where reading it back stalled the decoder).
#[derive(Clone, Copy)]
enum Refusal {
    /// No piece of the kind in the slot the code names.
    NoPiece { role: Role, slot: u8 },
    /// No pawn in the slot the code names.
    NoPawn { slot: u8 },
    /// The pawn on `from` would step off the board.
    OffBoard { from: Square },
    /// A code that names no move.
    NoMove(Code),
    /// A two-byte move from a square to itself, not castling.
    ToItself { from: Square },
    /// The piece on `from` cannot move to `to`.
    NotLegal { from: Square, to: Square },
    /// Castling to that side is not legal.
    Castling(CastlingSide),
}

impl Refusal {
    /// What the cut says, in `pos`, the position the move was looked for in.
    fn message(self, pos: &Chess) -> String {
        match self {
            Refusal::NoPiece { role, slot } => format!("no {role:?} in slot {slot}"),
            Refusal::NoPawn { slot } => format!("no pawn in slot {slot}"),
            Refusal::OffBoard { from } => format!("the pawn on {from} would leave the board"),
            Refusal::NoMove(code) => format!("{code:?} is no move"),
            Refusal::ToItself { from } => format!("a move from {from} to itself"),
            Refusal::NotLegal { from, to } => not_legal(from, to, pos),
            Refusal::Castling(side) => format!("castling {side:?} is not legal in {}", fen_of(pos)),
        }
    }
}

/// Why a move from `from` to `to` is refused in `pos`.
fn not_legal(from: Square, to: Square, pos: &Chess) -> String {
    format!("{from}{to} is not a legal move in {}", fen_of(pos))
}

#[cfg(test)]
pub(super) mod tests;
