//! Decoding one game record into the game model (the layout is in [`super`]; "spec §N" below
//! is docs/formats/scid4.md §N).

use std::borrow::Cow;
use std::mem;

use shakmaty::{CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square, attacks};

use super::*;
use crate::error::{Error, Result};
use crate::game::chess::{Line, Ply, StartPosition};
use crate::game::legal;
use crate::game::replay::{STANDARD_FEN, play_in_place, start_position};
use crate::game::visit::{GameVisitor, TreeBuilder};
use crate::store::charset::{str_from_bytes, text_from_bytes};
use crate::store::scid::pieces::PieceLists;

/// Everything a .sg4 record holds. Index-held tags (Event, Site, Date, Round, White, Black,
/// Result, ECO, Elo, EventDate) are not in the record; the caller merges them from the index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The tags that are not kept in the index, in stored order.
    pub extra_tags: Vec<(String, String)>,
    /// The start position; a FEN is kept as stored.
    pub start: StartPosition,
    /// The main line with its pre-game comment, NAGs, comments and variations.
    pub moves: Line,
}

/// Decode one record: exactly the bytes `[offset, offset+length)` named by its index entry
/// (trailing NUL-terminated bytes would be read as comments, as SCID reads them).
pub fn decode(bytes: &[u8]) -> Result<Record> {
    decode_as(bytes, false)
}

/// [`decode`] of the record of a game whose index says whether it is Chess960 (SCID 5).
pub fn decode_as(bytes: &[u8], chess960: bool) -> Result<Record> {
    let RecordHead {
        extra_tags,
        start,
        moves,
    } = read_head_as(bytes, chess960)?;
    let mut tree = TreeBuilder::new();
    moves.visit(&mut tree)?;
    Ok(Record {
        extra_tags,
        start,
        moves: tree.finish(),
    })
}

/// A record read up to its moves: the extra tags, the start, and the move stream still to be
/// told (so a caller can tell the tags before the moves without building the move tree).
pub struct RecordHead<'a> {
    /// The tags that are not kept in the index, in stored order.
    pub extra_tags: Vec<(String, String)>,
    /// The start position; a FEN is kept as stored.
    pub start: StartPosition,
    /// The moves, comments, NAGs and variations.
    pub moves: MoveStream<'a>,
}

/// A record's move stream with its comment strings, checked for marker syntax, not yet
/// decoded.
pub struct MoveStream<'a> {
    reader: Reader<'a>,
    pos: Chess,
    lists: PieceLists,
    comments: Comments<'a>,
}

impl MoveStream<'_> {
    /// Decode the moves, telling each event to `visitor` as it is decoded; a damaged move
    /// fails the record (events told before it are not taken back).
    pub fn visit<V: GameVisitor + ?Sized>(self, visitor: &mut V) -> Result<()> {
        decode_move_stream(self.reader, self.pos, self.lists, self.comments, visitor)
    }
}

/// Read a record's tags and start, and check its move stream's syntax (spec §5).
pub fn read_head(bytes: &[u8]) -> Result<RecordHead<'_>> {
    read_head_as(bytes, false)
}

/// [`read_head`] of the record of a game whose index says whether it is Chess960: its start
/// is then [`StartPosition::Chess960`] and castling follows Chess960's rules (SCID 5 writes a
/// Chess960 game's record as any other, its FEN naming the start).
pub fn read_head_as(bytes: &[u8], chess960: bool) -> Result<RecordHead<'_>> {
    let mut r = Reader { bytes, at: 0 };
    let extra_tags = decode_tags(&mut r)?;
    let flags = r.byte("the flags byte")?;
    let (start, pos, lists) = if flags & FLAG_FEN != 0 || chess960 {
        let fen = match flags & FLAG_FEN {
            0 => STANDARD_FEN.to_owned(),
            _ => text_from_bytes(r.terminated("the start FEN")?),
        };
        let start = match chess960 {
            true => StartPosition::Chess960(fen),
            false => StartPosition::Fen(fen),
        };
        let pos = start_position(&start)
            .map_err(|e| Error::corrupt_record(format!("start position: {}", e.message())))?;
        let lists = PieceLists::from_board(pos.board());
        (start, pos, lists)
    } else {
        (
            StartPosition::Standard,
            Chess::default(),
            PieceLists::standard(),
        )
    };
    let moves_at = r.at;
    let (comments_at, markers) = scan_move_stream(bytes, moves_at)?;
    let comments = Comments::new(bytes.get(comments_at..).unwrap_or_default(), markers)?;
    Ok(RecordHead {
        extra_tags,
        start,
        moves: MoveStream {
            reader: Reader {
                bytes: bytes.get(..comments_at).unwrap_or_default(),
                at: moves_at,
            },
            pos,
            lists,
            comments,
        },
    })
}

/// A bounds-checked cursor over record bytes.
struct Reader<'a> {
    /// The bytes being read.
    bytes: &'a [u8],
    /// The offset of the next byte.
    at: usize,
}

impl<'a> Reader<'a> {
    /// The error for a record that ends while reading `what`.
    fn truncated(&self, what: &str) -> Error {
        Error::corrupt_record(format!(
            "record ends inside {what} (at byte {} of {})",
            self.at,
            self.bytes.len()
        ))
    }

    /// The next byte, or `None` at the end.
    fn next(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// The next byte, part of `what`.
    fn byte(&mut self, what: &str) -> Result<u8> {
        self.next().ok_or_else(|| self.truncated(what))
    }

    /// The next `n` bytes, part of `what`.
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.truncated(what));
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// Bytes up to the next NUL (which is consumed, not returned), part of `what`.
    fn terminated(&mut self, what: &str) -> Result<&'a [u8]> {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let Some(len) = rest.iter().position(|&b| b == 0) else {
            return Err(self.truncated(what));
        };
        self.at += len + 1;
        Ok(&rest[..len])
    }
}

/// Read the extra-tag section up to and including its `00` terminator (spec §5.1).
fn decode_tags(r: &mut Reader) -> Result<Vec<(String, String)>> {
    let mut tags = Vec::new();
    loop {
        let code = r.byte("the extra tags")?;
        match code {
            0 => return Ok(tags),
            1..=240 => {
                let name = r.take(usize::from(code), "an extra tag name")?;
                let len = r.byte("an extra tag value length")?;
                let value = r.take(usize::from(len), "an extra tag value")?;
                tags.push((text_from_bytes(name), text_from_bytes(value)));
            }
            241..=250 => {
                let name = COMMON_TAGS[usize::from(code - FIRST_COMMON_TAG)];
                let len = r.byte("an extra tag value length")?;
                let value = r.take(usize::from(len), "an extra tag value")?;
                tags.push((name.to_owned(), text_from_bytes(value)));
            }
            251..=254 => {
                // Reserved codes: SCID 4.7.4 skips the value and drops the tag.
                let len = r.byte("an extra tag value length")?;
                r.take(usize::from(len), "a reserved extra tag value")?;
            }
            BINARY_EVENT_DATE_TAG => {
                // SCID 2's binary EventDate: three bytes, no length; SCID 4.7.4 skips it.
                r.take(3, "a binary EventDate tag")?;
            }
        }
    }
}

/// Find where the move stream starting at `start` ends (just after its `0F`) and count its
/// comment markers, checking the marker syntax. This needs no chess: a queen's second byte
/// (64..=127) can never look like a marker, and the byte after `0B` is skipped.
fn scan_move_stream(bytes: &[u8], start: usize) -> Result<(usize, usize)> {
    let mut r = Reader { bytes, at: start };
    let mut depth = 0usize;
    let mut markers = 0usize;
    loop {
        match r.byte("the move stream (no end-of-game marker)")? {
            MARK_NAG => {
                r.byte("a NAG")?;
            }
            MARK_COMMENT => markers += 1,
            MARK_START_VARIATION => depth += 1,
            MARK_END_VARIATION => {
                if depth == 0 {
                    return Err(Error::corrupt_record(format!(
                        "end-of-variation marker in the main line (at byte {})",
                        r.at - 1
                    )));
                }
                depth -= 1;
            }
            MARK_END_GAME => {
                if depth != 0 {
                    return Err(Error::corrupt_record(format!(
                        "end-of-game marker inside {depth} open variation(s) (at byte {})",
                        r.at - 1
                    )));
                }
                return Ok((r.at, markers));
            }
            _ => {}
        }
    }
}

/// The comment strings after the move stream, handed out to markers and, in SCID's
/// "unmarked comments" mode, to the places after the last marked one (spec §5.6). An empty
/// string means no comment, as in SCID.
///
/// The strings are cut off the section one at a time as they are handed out: no list of them
/// is built (a game with a clock comment on every move has hundreds).
struct Comments<'a> {
    /// The strings not yet handed out, each ended by a NUL.
    rest: Section<'a>,
    /// How many NUL-terminated strings the section holds.
    strings: usize,
    /// How many comment markers the move stream has.
    markers: usize,
    /// How many strings have been handed out.
    next: usize,
}

/// A comment section: text when it is all UTF-8 (nearly always), else bytes to read string by
/// string.
enum Section<'a> {
    /// Checked as UTF-8 once: a NUL is a character of its own in UTF-8, so the strings between
    /// NULs are text too.
    Text(&'a str),
    /// Not all UTF-8: each string is read as [`str_from_bytes`] reads it.
    Bytes(&'a [u8]),
}

impl<'a> Comments<'a> {
    /// The section's strings; it must hold at least one per marker. A final fragment without
    /// its NUL is ignored, as SCID ignores it.
    fn new(section: &'a [u8], markers: usize) -> Result<Comments<'a>> {
        let strings = memchr::memchr_iter(0, section).count();
        if strings < markers {
            return Err(Error::corrupt_record(format!(
                "{markers} comment markers but only {strings} comment strings"
            )));
        }
        let rest = match std::str::from_utf8(section) {
            Ok(text) => Section::Text(text),
            Err(_) => Section::Bytes(section),
        };
        Ok(Comments {
            rest,
            strings,
            markers,
            next: 0,
        })
    }

    /// The string for the next comment marker.
    fn marked(&mut self) -> Option<Cow<'a, str>> {
        if self.next >= self.strings {
            return None;
        }
        self.next += 1;
        match &mut self.rest {
            Section::Text(text) => {
                // A NUL is one byte of its own: both cuts are at character boundaries.
                let end = memchr::memchr(0, text.as_bytes())?;
                let string = &text[..end];
                *text = &text[end + 1..];
                Some(Cow::Borrowed(string))
            }
            Section::Bytes(bytes) => {
                let end = memchr::memchr(0, bytes)?;
                let string = &bytes[..end];
                *bytes = &bytes[end + 1..];
                Some(str_from_bytes(string))
            }
        }
    }

    /// True once every marker has its string and unmarked strings remain.
    fn unmarked_pending(&self) -> bool {
        self.next >= self.markers && self.next < self.strings
    }

    /// The string for the next place in PGN order, in unmarked-comments mode.
    fn unmarked(&mut self) -> Option<Cow<'a, str>> {
        if !self.unmarked_pending() {
            return None;
        }
        self.marked()
    }

    /// Strings that found no place (more strings than places in the game).
    fn left_over(&self) -> usize {
        self.strings.saturating_sub(self.next)
    }
}

/// Where a line stands after its last move.
#[derive(Clone)]
struct Spot {
    pos: Chess,
    /// SCID's piece lists for `pos`.
    lists: PieceLists,
    /// The side to move is in check: carried from move to move, so that checking the next
    /// move's legality and whether it checks costs about one attack lookup
    /// ([`legal::after_move`]).
    in_check: bool,
}

impl Spot {
    fn new(pos: Chess, lists: PieceLists) -> Spot {
        let in_check = pos.is_check();
        Spot {
            pos,
            lists,
            in_check,
        }
    }

    /// Play a ply [`decode_move`] made (its piece can make it), refusing one that leaves the
    /// mover's king attacked. The error is a short reason.
    fn play(&mut self, ply: &Ply, byte: u8) -> Result<(), String> {
        self.lists.apply_indexed(&self.pos, ply, byte >> 4);
        play_in_place(&mut self.pos, ply).map_err(|e| e.message().to_owned())?;
        self.in_check = match ply {
            Ply::Move(m) => legal::after_move(*m, self.in_check, &self.pos)
                .ok_or_else(|| format!("illegal move {m} (byte {byte:#04x})"))?,
            Ply::Null => self.pos.is_check(),
        };
        Ok(())
    }
}

/// One line being decoded: the main line or an open variation.
struct Frame {
    /// How many moves of the line have been decoded.
    moves: usize,
    /// How many NAGs the line's last move has.
    nags: usize,
    /// Where the line stands after its last move.
    at: Spot,
    /// Where it stood before its last move: where a variation of that move starts.
    before: Option<Spot>,
    /// The ply number (counted from the start position, 1-based) of the line's first move.
    first_ply: usize,
}

impl Frame {
    /// A corrupt-record error that names the ply being decoded and the variation depth.
    fn error(&self, depth: usize, msg: impl std::fmt::Display) -> Error {
        let ply = self.first_ply + self.moves;
        if depth == 0 {
            Error::corrupt_record(format!("ply {ply}: {msg}"))
        } else {
            Error::corrupt_record(format!("ply {ply} (variation depth {depth}): {msg}"))
        }
    }
}

/// Decode the move stream (the reader ends just after its `0F`), telling it to `v`.
fn decode_move_stream<V: GameVisitor + ?Sized>(
    mut r: Reader,
    pos: Chess,
    lists: PieceLists,
    mut comments: Comments,
    v: &mut V,
) -> Result<()> {
    let mut cur = Frame {
        moves: 0,
        nags: 0,
        at: Spot::new(pos, lists),
        before: None,
        first_ply: 1,
    };
    let mut parents: Vec<Frame> = Vec::new();
    // The main line's start is the first place an unmarked comment can go (pre-game comment).
    if let Some(s) = comments.unmarked() {
        v.line_comment(&s)?;
    }
    // True right after an end of variation: the "last move" is then not the latest place.
    let mut after_variation = false;
    loop {
        let depth = parents.len();
        let Some(b) = r.next() else {
            return Err(cur.error(depth, "the move stream has no end-of-game marker"));
        };
        match b {
            MARK_NAG => {
                let Some(nag) = r.next() else {
                    return Err(cur.error(depth, "the record ends inside a NAG"));
                };
                // A NAG before the line's first move has nowhere to go; SCID keeps it on a
                // hidden marker node, so it is dropped here too.
                if cur.moves > 0 {
                    if cur.nags >= MAX_NAGS_PER_MOVE {
                        return Err(Error::corrupt_record(format!(
                            "ply {}: more than {MAX_NAGS_PER_MOVE} NAGs on one move",
                            cur.first_ply + cur.moves - 1
                        )));
                    }
                    if nag != 0 {
                        cur.nags += 1;
                        v.nag(nag)?;
                    }
                }
            }
            MARK_COMMENT => {
                let Some(s) = comments.marked() else {
                    return Err(cur.error(depth, "more comment markers than comment strings"));
                };
                if cur.moves > 0 {
                    v.comment(&s)?;
                } else {
                    v.line_comment(&s)?;
                }
                if after_variation && comments.unmarked_pending() {
                    return Err(cur.error(
                        depth,
                        "unmarked comments follow a comment marker placed after a variation",
                    ));
                }
            }
            MARK_START_VARIATION => {
                let Some(at) = cur.before.clone() else {
                    return Err(cur.error(depth, "a variation starts before any move of its line"));
                };
                let child = Frame {
                    moves: 0,
                    nags: 0,
                    at,
                    before: None,
                    first_ply: cur.first_ply + cur.moves - 1,
                };
                v.begin_variation()?;
                if let Some(s) = comments.unmarked() {
                    v.line_comment(&s)?;
                }
                parents.push(mem::replace(&mut cur, child));
                after_variation = false;
            }
            MARK_END_VARIATION => {
                let Some(parent) = parents.pop() else {
                    return Err(cur.error(depth, "end of variation in the main line"));
                };
                // An unmarked comment landing on a line's end is dropped, as SCID drops it.
                comments.unmarked();
                cur = parent;
                v.end_variation()?;
                after_variation = true;
            }
            MARK_END_GAME => {
                if depth != 0 {
                    return Err(cur.error(depth, "end of game inside a variation"));
                }
                comments.unmarked();
                break;
            }
            _ => {
                let ply = decode_move(b, &mut r, &cur.at.pos, &cur.at.lists)
                    .map_err(|m| cur.error(depth, m))?;
                // Keep where the line stood before the move (a variation may start there), then
                // play the move in place: one copy of the board per move.
                match &mut cur.before {
                    Some(before) => before.clone_from(&cur.at),
                    None => cur.before = Some(cur.at.clone()),
                }
                cur.at.play(&ply, b).map_err(|m| cur.error(depth, m))?;
                if let Some(before) = &cur.before {
                    v.ply(&before.pos, &ply, &cur.at.pos, cur.at.in_check)?;
                }
                cur.moves += 1;
                cur.nags = 0;
                if let Some(s) = comments.unmarked() {
                    v.comment(&s)?;
                }
                after_variation = false;
            }
        }
    }
    if r.at != r.bytes.len() {
        return Err(Error::corrupt_record(
            "the move stream does not end where its markers say",
        ));
    }
    let left = comments.left_over();
    if left > 0 {
        return Err(Error::corrupt_record(format!(
            "{left} comment string(s) more than the game has places for"
        )));
    }
    Ok(())
}

/// Pawn codes → absolute square difference (from White's side; Black subtracts).
const PAWN_STEPS: [i32; 16] = [7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9, 16];

/// The promotion a pawn code asks for: 3..=5 queen, 6..=8 rook, 9..=11 bishop, 12..=14 knight.
fn pawn_promotion(code: u8) -> Option<Role> {
    match code {
        3..=5 => Some(Role::Queen),
        6..=8 => Some(Role::Rook),
        9..=11 => Some(Role::Bishop),
        12..=14 => Some(Role::Knight),
        _ => None,
    }
}

/// Turn one move byte (and a queen's second byte) into a ply its piece can make in `pos`
/// (spec §5.4); whether it is legal is [`Spot::play`]'s question. The error is a short
/// reason; the caller adds the ply number.
fn decode_move(byte: u8, r: &mut Reader, pos: &Chess, lists: &PieceLists) -> Result<Ply, String> {
    let us = pos.turn();
    let index = byte >> 4;
    let code = byte & 0x0F;
    let Some(from) = lists.square(us, index) else {
        return Err(format!(
            "move byte {byte:#04x} names {us} piece {index}, but {us} has {} pieces",
            lists.count(us)
        ));
    };
    let role = match pos.board().piece_at(from) {
        Some(p) if p.color == us => p.role,
        _ => return Err(format!("piece list out of step: no {us} piece on {from}")),
    };
    let target = |delta: i32| {
        from.offset(delta)
            .ok_or_else(|| format!("move byte {byte:#04x} leaves the board from {from}"))
    };
    let normal = |role: Role, to: Square, promotion: Option<Role>| Move::Normal {
        role,
        from,
        capture: pos.board().role_at(to),
        to,
        promotion,
    };
    let line_target = |code: u8| {
        let to = if code < 8 {
            Square::from_coords(File::new(u32::from(code)), from.rank())
        } else {
            Square::from_coords(from.file(), Rank::new(u32::from(code - 8)))
        };
        if to == from {
            Err(format!(
                "move byte {byte:#04x} moves the {role:?} on {from} to its own square"
            ))
        } else {
            Ok(to)
        }
    };
    let board = pos.board();
    let occupied = board.occupied();
    // Each piece's move and whether the piece reaches its target (path open for a slider, no
    // wrap around the board's edge for a step); castling and pawn moves are checked whole.
    // The ply, or the error naming the move when the piece cannot make it.
    let ply_if_possible = |m: Move, possible: bool| {
        if possible {
            Ok(Ply::Move(m))
        } else {
            Err(format!("illegal move {m} (byte {byte:#04x})"))
        }
    };
    let (m, reaches) = match role {
        Role::King => match code {
            0 => return Ok(Ply::Null),
            1..=8 => {
                let to = target(KING_STEPS[usize::from(code)])?;
                (
                    normal(role, to, None),
                    attacks::king_attacks(from).contains(to),
                )
            }
            9 | 10 => {
                let castling = CastlingSide::from_king_side(code == 10);
                let Some(rook) = pos.castles().rook(us, castling) else {
                    return Err(format!("{us} castles {castling:?} without the right"));
                };
                let m = Move::Castle { king: from, rook };
                return ply_if_possible(m, legal::is_legal(pos, m));
            }
            _ => return Err(format!("king move code {code} is not defined")),
        },
        Role::Knight => match KNIGHT_JUMPS.get(usize::from(code)) {
            Some(&delta) if delta != 0 => {
                let to = target(delta)?;
                (
                    normal(role, to, None),
                    attacks::knight_attacks(from).contains(to),
                )
            }
            _ => return Err(format!("knight move code {code} is not defined")),
        },
        Role::Queen if u32::from(code) == from.file().to_u32() => {
            let Some(second) = r.next() else {
                return Err("the record ends inside a queen move".to_owned());
            };
            if !(64..128).contains(&second) {
                return Err(format!(
                    "queen move second byte {second:#04x} is not a square + 64"
                ));
            }
            let to = Square::new(u32::from(second - 64));
            let reaches = attacks::queen_attacks(from, occupied).contains(to);
            (normal(role, to, None), reaches)
        }
        Role::Rook | Role::Queen => {
            let to = line_target(code)?;
            let reaches = attacks::rook_attacks(from, occupied).contains(to);
            (normal(role, to, None), reaches)
        }
        Role::Bishop => {
            let fd = i32::from(code & 7) - from.file().to_u32() as i32;
            let to = target(if code < 8 { 9 * fd } else { -7 * fd })?;
            let reaches = attacks::bishop_attacks(from, occupied).contains(to);
            (normal(role, to, None), reaches)
        }
        Role::Pawn => {
            let step = PAWN_STEPS[usize::from(code)];
            let to = target(if us == Color::White { step } else { -step })?;
            let promotion = pawn_promotion(code);
            let diagonal = step != 8 && step != 16;
            if diagonal && promotion.is_none() && !occupied.contains(to) {
                let m = Move::EnPassant { from, to };
                return ply_if_possible(m, legal::is_legal(pos, m));
            }
            // What the decoder knows (our pawn, which way it goes) leaves only these questions
            // of the general pseudo-legality test: a diagonal step takes a piece of theirs
            // other than the king.
            let possible = legal::pawn_reaches(us, from, to, diagonal, occupied)
                && (!diagonal || (board.by_color(!us) & !board.kings()).contains(to))
                && legal::promotion_fits(us, to, promotion);
            return ply_if_possible(normal(role, to, promotion), possible);
        }
    };
    // A piece never lands on its own side's piece or takes a king. Whether the move leaves our
    // king attacked is known once it is played (`Spot::play`).
    ply_if_possible(
        m,
        reaches && !(board.by_color(us) | board.kings()).contains(m.to()),
    )
}
