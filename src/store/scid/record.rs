//! Decoding one SCID 4 game record (a byte range of the .sg4 file) into the game model.
//!
//! Layout (spec/scid4.md §5): extra tags ended by `00`, a flags byte with an optional
//! NUL-terminated FEN, the move stream (moves, NAGs, comment markers and variations, ended by
//! `0F`), then one NUL-terminated comment string per comment marker, in PGN order.
//!
//! Every byte is checked: a damaged record gives [`crate::error::ErrorKind::CorruptRecord`]
//! with the reason, never a panic. Variations are decoded with an explicit stack, so any
//! nesting depth the 128 KiB record limit allows is decoded without deep recursion.

use std::mem;

use shakmaty::{CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square, attacks};

use super::pieces::PieceLists;
use crate::error::ErrorKind;
use crate::error::{Error, Result};
use crate::game::chess::{ChessGame, Headers, Line, Ply, RatingType, StartPosition};
use crate::game::legal;
use crate::game::replay::{play_in_place, position_from_fen};
use crate::game::visit::{GameVisitor, TreeBuilder};
use crate::store::charset::text_from_bytes;

/// Names of the common extra tags, stored as the one-byte codes 241..=250 (spec §5.1).
/// `Setup` and `SetUp` are distinct codes because SCID matches names case-sensitively.
pub const COMMON_TAGS: [&str; 10] = [
    "WhiteCountry",
    "BlackCountry",
    "Annotator",
    "PlyCount",
    "EventDate",
    "Opening",
    "Variation",
    "Setup",
    "Source",
    "SetUp",
];

/// The first tag code that stands for a [`COMMON_TAGS`] name.
pub const FIRST_COMMON_TAG: u8 = 241;

/// The tag code of SCID 2's binary EventDate: no length byte, three value bytes follow.
pub const BINARY_EVENT_DATE_TAG: u8 = 255;

/// The most NAGs SCID keeps on one move; a record with more cannot be loaded by SCID (§5.5).
pub const MAX_NAGS_PER_MOVE: usize = 7;

/// Flags-byte bit: a NUL-terminated FEN follows (the game has a set-up start position).
pub const FLAG_FEN: u8 = 1;
/// Flags-byte bit: the main line contains a promotion.
pub const FLAG_PROMOTION: u8 = 1 << 1;
/// Flags-byte bit: the main line contains an under-promotion.
pub const FLAG_UNDER_PROMOTION: u8 = 1 << 2;

/// Move-stream marker: the next byte is a NAG for the last move.
pub const MARK_NAG: u8 = 0x0B;
/// Move-stream marker: the last move (or the line's start) has a comment in the comment section.
pub const MARK_COMMENT: u8 = 0x0C;
/// Move-stream marker: a variation of the move just decoded begins.
pub const MARK_START_VARIATION: u8 = 0x0D;
/// Move-stream marker: the current variation ends.
pub const MARK_END_VARIATION: u8 = 0x0E;
/// Move-stream marker: the game's main line ends (only at depth 0).
pub const MARK_END_GAME: u8 = 0x0F;

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
    let RecordHead {
        extra_tags,
        start,
        moves,
    } = read_head(bytes)?;
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
    let mut r = Reader { bytes, at: 0 };
    let extra_tags = decode_tags(&mut r)?;
    let flags = r.byte("the flags byte")?;
    let (start, pos, lists) = if flags & FLAG_FEN != 0 {
        let fen = text_from_bytes(r.terminated("the start FEN")?);
        let pos = position_from_fen(&fen)
            .map_err(|e| Error::corrupt_record(format!("start position: {}", e.message())))?;
        let lists = PieceLists::from_board(pos.board());
        (StartPosition::Fen(fen), pos, lists)
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
/// "unmarked comments" mode, to the places after the last marked one (spec §5.6).
struct Comments<'a> {
    /// Every NUL-terminated string of the comment section, in order.
    strings: Vec<&'a [u8]>,
    /// How many comment markers the move stream has.
    markers: usize,
    /// The next string to hand out.
    next: usize,
}

impl<'a> Comments<'a> {
    /// Split the comment section; it must hold at least one string per marker. A final
    /// fragment without its NUL is ignored, as SCID ignores it.
    fn new(section: &'a [u8], markers: usize) -> Result<Comments<'a>> {
        let strings: Vec<&[u8]> = section
            .split_inclusive(|&b| b == 0)
            .filter_map(|s| s.strip_suffix(&[0]))
            .collect();
        if strings.len() < markers {
            return Err(Error::corrupt_record(format!(
                "{markers} comment markers but only {} comment strings",
                strings.len()
            )));
        }
        Ok(Comments {
            strings,
            markers,
            next: 0,
        })
    }

    /// The string for the next comment marker.
    fn marked(&mut self) -> Option<&'a [u8]> {
        let s = self.strings.get(self.next).copied()?;
        self.next += 1;
        Some(s)
    }

    /// True once every marker has its string and unmarked strings remain.
    fn unmarked_pending(&self) -> bool {
        self.next >= self.markers && self.next < self.strings.len()
    }

    /// The string for the next place in PGN order, in unmarked-comments mode.
    fn unmarked(&mut self) -> Option<&'a [u8]> {
        if !self.unmarked_pending() {
            return None;
        }
        self.marked()
    }

    /// Strings that found no place (more strings than places in the game).
    fn left_over(&self) -> usize {
        self.strings.len().saturating_sub(self.next)
    }
}

/// A comment string as event text; an empty one means no comment, as in SCID.
fn comment_text(text: &[u8]) -> String {
    text_from_bytes(text)
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
        v.line_comment(&comment_text(s))?;
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
                    v.comment(&comment_text(s))?;
                } else {
                    v.line_comment(&comment_text(s))?;
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
                    v.line_comment(&comment_text(s))?;
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
                    v.comment(&comment_text(s))?;
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

/// King step codes 1..=8 → square difference (code 0 is the null move, 9/10 castling).
const KING_STEPS: [i32; 9] = [0, -9, -8, -7, -1, 1, 7, 8, 9];
/// Knight codes 1..=8 → square difference (0 and 9..=15 unused).
const KNIGHT_JUMPS: [i32; 9] = [0, -17, -15, -10, -6, 6, 10, 15, 17];
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

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/// SCID rejects a record of this many bytes or more (17-bit length, spec §9).
pub const MAX_RECORD_LEN: usize = 131_072;
/// The longest extra-tag name a record can hold (longer codes are the common tags).
pub const MAX_TAG_NAME_LEN: usize = 240;
/// The longest extra-tag value a record can hold (1-byte length).
pub const MAX_TAG_VALUE_LEN: usize = 255;

/// Tags SCID keeps in the index (or turns into index fields) and never in a record's extra
/// tags; a record holding one would be read back differently (spec §5.1, §7).
pub const INDEX_TAGS: [&str; 11] = {
    let f = crate::game::chess::FIELD_TAGS;
    [
        f[0],
        f[1],
        f[2],
        f[3],
        f[4],
        f[5],
        f[6],
        f[7],
        f[8],
        f[9],
        "ScidFlags",
    ]
};

/// Encode a game's record (extra tags, flags byte + FEN, move stream with markers, comments)
/// exactly as SCID 4.7.4 does (`Game::Encode`), so that SCID reads the game back unchanged.
///
/// Refuses, with an error naming the field and the limit, what SCID could not store or would
/// read back differently: more than 7 NAGs on a move (`TooLarge`), NAG 0, an empty tag name, a
/// tag name over 240 or a value over 255 bytes (`TooLarge`), an extra tag that belongs in the
/// index (see [`INDEX_TAGS`]; a `White<Type>`/`Black<Type>` rating tag only when that player
/// has no rating, since SCID would then take it as the rating), the same extra tag twice, a
/// comment containing a NUL byte, a Chess960 or malformed FEN, more than 16 pieces a side, an
/// illegal move or a null move in check (`InvalidInput`), and a record of 131,072 bytes or more
/// (`TooLarge`).
pub fn encode(game: &ChessGame) -> Result<Vec<u8>> {
    encode_watching(game, &mut ())
}

/// Sees the main line as [`encode_watching`] replays it, so what the index derives from the
/// main line comes from the same replay (see [`super::mainline`]).
pub trait MainLineWatcher {
    /// The position after each main-line ply, in order.
    fn after_ply(&mut self, _pos: &Chess) {}
    /// The final main-line position (the start position when there is no move).
    fn at_end(&mut self, _pos: &Chess) {}
}

/// Watches nothing.
impl MainLineWatcher for () {}

/// [`encode`], showing `watch` every main-line position as the move stream is written.
pub fn encode_watching(game: &ChessGame, watch: &mut dyn MainLineWatcher) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_tags(&game.headers, &mut out)?;
    let mut flags = 0u8;
    for node in &game.moves.moves {
        if let Ply::Move(m) = &node.ply {
            match m.promotion() {
                Some(Role::Queen) => flags |= FLAG_PROMOTION,
                Some(_) => flags |= FLAG_PROMOTION | FLAG_UNDER_PROMOTION,
                None => {}
            }
        }
    }
    let (pos, lists) = match &game.start {
        StartPosition::Standard => {
            out.push(flags);
            (Chess::default(), PieceLists::standard())
        }
        StartPosition::Fen(fen) => {
            let (text, pos) = scid_fen(fen)?;
            out.push(flags | FLAG_FEN);
            out.extend_from_slice(text.as_bytes());
            out.push(0);
            let lists = PieceLists::from_board(pos.board());
            (pos, lists)
        }
    };
    let comments = encode_move_stream(&game.moves, pos, lists, &mut out, watch)?;
    out.extend_from_slice(&comments);
    if out.len() >= MAX_RECORD_LEN {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "the game needs a record of {} bytes; SCID's limit is {} bytes",
                out.len(),
                MAX_RECORD_LEN - 1
            ),
        ));
    }
    Ok(out)
}

/// The position a game starts from, with the same checks [`encode`] makes on a FEN.
pub fn start_position(start: &StartPosition) -> Result<Chess> {
    match start {
        StartPosition::Standard => Ok(Chess::default()),
        StartPosition::Fen(fen) => Ok(scid_fen(fen)?.1),
    }
}

/// An `InvalidInput` error.
fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// Write the extra-tag section, ended by `00` (spec §5.1).
fn encode_tags(headers: &Headers, out: &mut Vec<u8>) -> Result<()> {
    for (i, (name, value)) in headers.extra.iter().enumerate() {
        if name.is_empty() {
            return Err(invalid(format!(
                "extra tag {} has an empty name, which a SCID record cannot store",
                i + 1
            )));
        }
        if INDEX_TAGS.contains(&name.as_str()) {
            return Err(invalid(format!(
                "tag {name} cannot be an extra tag: SCID keeps it in the index"
            )));
        }
        for (colour, rating) in [
            ("White", headers.white_rating),
            ("Black", headers.black_rating),
        ] {
            let is_rating_tag = name
                .strip_prefix(colour)
                .is_some_and(|kind| RatingType::ALL.iter().any(|t| t.tag_suffix() == kind));
            if is_rating_tag && rating.is_none() {
                return Err(invalid(format!(
                    "tag {name} cannot be an extra tag while {colour} has no rating: \
                     SCID would read it as {colour}'s rating"
                )));
            }
        }
        if headers.extra[..i].iter().any(|(n, _)| n == name) {
            return Err(invalid(format!(
                "tag {name} appears twice; SCID keeps one value per tag"
            )));
        }
        if value.len() > MAX_TAG_VALUE_LEN {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "the value of tag {name} has {} bytes; SCID's limit is {MAX_TAG_VALUE_LEN}",
                    value.len()
                ),
            ));
        }
        match COMMON_TAGS.iter().position(|c| c == name) {
            Some(code) => out.push(FIRST_COMMON_TAG + code as u8),
            None if name.len() > MAX_TAG_NAME_LEN => {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "a tag name has {} bytes; SCID's limit is {MAX_TAG_NAME_LEN}",
                        name.len()
                    ),
                ));
            }
            None => {
                out.push(name.len() as u8);
                out.extend_from_slice(name.as_bytes());
            }
        }
        out.push(value.len() as u8);
        out.extend_from_slice(value.as_bytes());
    }
    out.push(0);
    Ok(())
}

/// The start FEN in SCID's own form and the position it gives.
///
/// SCID stores not the FEN it was given but what `Position::PrintFEN` prints after
/// `ReadFromFEN`: the placement, the side to move, the castling rights as a subset of `KQkq`
/// (guessed from the board when the field is missing), the en-passant square exactly as given
/// (rank 3 or 6, even when no capture is possible), the halfmove clock and the fullmove number
/// (` 0 1` when missing). Castling rights that do not name a king on e1/e8 and a rook on its
/// corner are Chess960 rights, which SCID 4 cannot store.
pub fn scid_fen(fen: &str) -> Result<(String, Chess)> {
    let bad = |why: String| invalid(format!("start FEN {fen:?}: {why}"));
    let mut fields = fen.split_ascii_whitespace();
    let board: shakmaty::Board = fields
        .next()
        .unwrap_or_default()
        .parse()
        .map_err(|e| bad(format!("piece placement: {e}")))?;
    for color in [Color::White, Color::Black] {
        let n = board.by_color(color).count();
        if n > super::pieces::MAX_PIECES {
            return Err(bad(format!(
                "{color} has {n} pieces; SCID's limit is {}",
                super::pieces::MAX_PIECES
            )));
        }
    }
    let board = &board;
    let turn = match fields.next() {
        Some("w") => 'w',
        Some("b") => 'b',
        other => return Err(bad(format!("side to move {other:?} is not w or b"))),
    };
    let has = |sq: Square, role: Role, color: Color| board.piece_at(sq) == Some(role.of(color));
    // Castling rights, in SCID's KQkq order.
    let mut rights = [false; 4];
    let corners = [
        (Color::White, Square::E1, Square::H1, Square::A1),
        (Color::Black, Square::E8, Square::H8, Square::A8),
    ];
    match fields.next() {
        None => {
            for (c, (color, king, h, a)) in corners.into_iter().enumerate() {
                if has(king, Role::King, color) {
                    rights[2 * c] = has(h, Role::Rook, color);
                    rights[2 * c + 1] = has(a, Role::Rook, color);
                }
            }
        }
        Some("-") => {}
        Some(field) => {
            for ch in field.chars() {
                let (c, king_side) = match ch {
                    'K' | 'H' => (0, true),
                    'Q' | 'A' => (0, false),
                    'k' | 'h' => (1, true),
                    'q' | 'a' => (1, false),
                    'B'..='G' | 'b'..='g' => {
                        return Err(bad(format!(
                            "castling right {ch:?} is a Chess960 right, which SCID 4 cannot store"
                        )));
                    }
                    _ => return Err(bad(format!("castling field {field:?} is not valid"))),
                };
                let (color, king, h, a) = corners[c];
                let rook = if king_side { h } else { a };
                if !has(king, Role::King, color) || !has(rook, Role::Rook, color) {
                    return Err(bad(format!(
                        "castling right {ch:?} needs the king on {king} and a rook on {rook}; \
                         anything else is Chess960, which SCID 4 cannot store"
                    )));
                }
                rights[2 * c + usize::from(!king_side)] = true;
            }
        }
    }
    let castling: String = "KQkq"
        .chars()
        .zip(rights)
        .filter_map(|(ch, on)| on.then_some(ch))
        .collect();
    let ep = match fields.next() {
        None | Some("-") => "-".to_owned(),
        Some(f) => {
            let b = f.as_bytes();
            if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !matches!(b[1], b'3' | b'6') {
                return Err(bad(format!(
                    "en-passant square {f:?} is not on rank 3 or 6"
                )));
            }
            f.to_owned()
        }
    };
    // Halfmove clock: C's strtol, negative values as 0, kept as an unsigned 16-bit value.
    let halfmove = fields
        .next()
        .map_or(0, |f| leading_int(f).max(0) as u64 as u16);
    // Fullmove number: SCID keeps a 16-bit ply counter, (n - 1) * 2, plus 1 for Black to move.
    let fullmove = fields.next().map_or(0, leading_int);
    let mut plies: u16 = if fullmove >= 1 {
        ((fullmove - 1) as u64).wrapping_mul(2) as u16
    } else {
        0
    };
    if turn == 'b' {
        plies = plies.wrapping_add(1);
    }
    let text = format!(
        "{} {turn} {} {ep} {halfmove} {}",
        board.board_fen(),
        if castling.is_empty() { "-" } else { &castling },
        u32::from(plies / 2) + 1
    );
    let pos = position_from_fen(&text).map_err(|e| bad(e.message().to_owned()))?;
    Ok((text, pos))
}

/// The integer at the start of `s`, as C's `strtol`/`atoi` read it (optional sign, digits;
/// 0 when there are none), saturated to `i64`.
fn leading_int(s: &str) -> i64 {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for d in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    if neg { -v } else { v }
}

/// One line being encoded: the main line or an open variation.
struct EncodeFrame<'a> {
    /// The line.
    line: &'a Line,
    /// The node being encoded.
    next: usize,
    /// Whether that node's move, NAGs and comment marker are written.
    written: bool,
    /// The next of its variations to write.
    variation: usize,
    /// The position before that node.
    pos: Chess,
    /// The piece lists before that node.
    lists: PieceLists,
}

/// Write the move stream of `main` (spec §5.4-§5.5) and return the comment section (§5.6).
/// Uses an explicit stack, so any nesting depth is encoded without deep recursion.
fn encode_move_stream(
    main: &Line,
    pos: Chess,
    lists: PieceLists,
    out: &mut Vec<u8>,
    watch: &mut dyn MainLineWatcher,
) -> Result<Vec<u8>> {
    let mut comments = Vec::new();
    // `at` names the place for an error message; it is only built when there is an error.
    let mut comment =
        |text: &Option<String>, out: &mut Vec<u8>, at: &dyn Fn() -> String| -> Result<()> {
            let Some(text) = text.as_deref().filter(|t| !t.is_empty()) else {
                return Ok(());
            };
            if text.as_bytes().contains(&0) {
                return Err(invalid(format!(
                    "the comment {} contains a NUL byte, which a SCID record cannot store",
                    at()
                )));
            }
            out.push(MARK_COMMENT);
            comments.extend_from_slice(text.as_bytes());
            comments.push(0);
            Ok(())
        };
    comment(&main.comment, out, &|| "before the game".to_owned())?;
    let mut stack = vec![EncodeFrame {
        line: main,
        next: 0,
        written: false,
        variation: 0,
        pos,
        lists,
    }];
    // The ply number (1-based, from the start position) of each frame's first move.
    let mut first_ply = vec![1usize];
    loop {
        let depth = stack.len().saturating_sub(1);
        let Some(top) = stack.last_mut() else {
            break;
        };
        let ply_no = first_ply[depth] + top.next;
        let at = || {
            if depth == 0 {
                format!("at ply {ply_no}")
            } else {
                format!("at ply {ply_no} (variation depth {depth})")
            }
        };
        let Some(node) = top.line.moves.get(top.next) else {
            if depth == 0 {
                watch.at_end(&top.pos);
            }
            stack.pop();
            first_ply.pop();
            out.push(if depth == 0 {
                MARK_END_GAME
            } else {
                MARK_END_VARIATION
            });
            continue;
        };
        if !top.written {
            encode_move(&top.pos, &top.lists, &node.ply, out)
                .map_err(|e| invalid(format!("{}: {e}", at())))?;
            if node.nags.len() > MAX_NAGS_PER_MOVE {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "{}: {} NAGs on one move; SCID's limit is {MAX_NAGS_PER_MOVE}",
                        at(),
                        node.nags.len()
                    ),
                ));
            }
            for &nag in &node.nags {
                if nag == 0 {
                    return Err(invalid(format!("{}: NAG 0 is not a NAG", at())));
                }
                out.extend([MARK_NAG, nag]);
            }
            comment(&node.comment, out, &at)?;
            top.written = true;
            top.variation = 0;
        }
        if let Some(var) = node.variations.get(top.variation) {
            top.variation += 1;
            out.push(MARK_START_VARIATION);
            comment(&var.comment, out, &|| {
                format!("{} before a variation", at())
            })?;
            let child = EncodeFrame {
                line: var,
                next: 0,
                written: false,
                variation: 0,
                pos: top.pos.clone(),
                lists: top.lists,
            };
            stack.push(child);
            first_ply.push(ply_no);
            continue;
        }
        top.lists.apply(&top.pos, &node.ply);
        play_in_place(&mut top.pos, &node.ply)
            .map_err(|e| invalid(format!("{}: {}", at(), e.message())))?;
        if depth == 0 {
            watch.after_ply(&top.pos);
        }
        top.next += 1;
        top.written = false;
    }
    Ok(comments)
}

/// Write one ply as SCID does (spec §5.4): `(pieceIndex << 4) | code`, plus a second byte
/// (`target + 64`) for a diagonal queen move. Returns the code (low nibble). The move must be
/// legal in `pos`; the error is a short reason.
fn encode_move(
    pos: &Chess,
    lists: &PieceLists,
    ply: &Ply,
    out: &mut Vec<u8>,
) -> Result<u8, String> {
    let m = match ply {
        Ply::Null => {
            if pos.is_check() {
                return Err("a null move is not possible while in check".to_owned());
            }
            out.push(0);
            return Ok(0);
        }
        Ply::Move(m) => *m,
    };
    if !legal::is_legal(pos, m) {
        return Err(format!("illegal move {m}"));
    }
    let us = pos.turn();
    let Some(from) = m.from() else {
        return Err(format!("move {m} has no origin square"));
    };
    let Some(index) = lists.index_of(us, from) else {
        return Err(format!(
            "piece list out of step: no {us} piece indexed on {from}"
        ));
    };
    let to = m.to();
    let d = to as i32 - from as i32;
    let file = |s: Square| s.file().to_u32() as u8;
    let rank = |s: Square| s.rank().to_u32() as u8;
    let line_code = |to: Square| {
        if rank(to) == rank(from) {
            file(to)
        } else {
            8 + rank(to)
        }
    };
    let position = |table: &[i32], what: &str| {
        table
            .iter()
            .skip(1)
            .position(|&s| s == d)
            .map(|i| i as u8 + 1)
            .ok_or_else(|| format!("{what} move {m} has no SCID code"))
    };
    let mut second = None;
    let code = match m {
        Move::Castle { king, rook } => {
            if rook > king {
                10
            } else {
                9
            }
        }
        _ => match m.role() {
            Role::King => position(&KING_STEPS, "king")?,
            Role::Knight => position(&KNIGHT_JUMPS, "knight")?,
            Role::Rook => line_code(to),
            Role::Queen if rank(to) == rank(from) || file(to) == file(from) => line_code(to),
            Role::Queen => {
                second = Some(to as u8 + 64);
                file(from)
            }
            Role::Bishop => {
                let rank_change = i32::from(rank(to)) - i32::from(rank(from));
                let file_change = i32::from(file(to)) - i32::from(file(from));
                file(to) + if rank_change * file_change < 0 { 8 } else { 0 }
            }
            Role::Pawn => {
                let base = match d.abs() {
                    7 => 0,
                    8 => 1,
                    9 => 2,
                    16 => 15,
                    _ => return Err(format!("pawn move {m} has no SCID code")),
                };
                base + match m.promotion() {
                    None => 0,
                    Some(Role::Queen) => 3,
                    Some(Role::Rook) => 6,
                    Some(Role::Bishop) => 9,
                    Some(Role::Knight) => 12,
                    Some(r) => return Err(format!("promotion to {r:?} has no SCID code")),
                }
            }
        },
    };
    out.push(index << 4 | code);
    out.extend(second);
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveNode;
    use crate::game::replay::{fen_of, play};
    use shakmaty::san::SanPlus;
    use std::collections::BTreeSet;

    // ---------- helpers ----------

    /// The SAN of each ply of `line` played from `start` (`--` for null moves).
    fn sans(start: &Chess, line: &Line) -> Vec<String> {
        let mut pos = start.clone();
        let mut out = Vec::new();
        for node in &line.moves {
            out.push(match &node.ply {
                Ply::Null => "--".to_owned(),
                Ply::Move(m) => SanPlus::from_move(pos.clone(), *m).to_string(),
            });
            pos = play(&pos, &node.ply).unwrap();
        }
        out
    }

    /// SANs of a line that starts from the standard position.
    fn std_sans(line: &Line) -> Vec<String> {
        sans(&Chess::default(), line)
    }

    /// A corrupt-record error is expected; return its message.
    fn corrupt(bytes: &[u8]) -> String {
        match decode(bytes) {
            Ok(r) => panic!("decoded {bytes:02x?} to {r:?}, expected an error"),
            Err(e) => {
                assert_eq!(e.kind(), crate::error::ErrorKind::CorruptRecord, "{e}");
                e.message().to_owned()
            }
        }
    }

    /// A record with no tags and a standard start: `00 00` + move stream + comment strings.
    fn std_record(moves: &[u8], comments: &[&str]) -> Vec<u8> {
        let mut v = vec![0, 0];
        v.extend_from_slice(moves);
        for c in comments {
            v.extend_from_slice(c.as_bytes());
            v.push(0);
        }
        v
    }

    fn comment(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    /// Take apart a deep tree without recursion (the model's Drop recurses per level).
    fn dismantle(line: Line) {
        let mut stack = vec![line];
        while let Some(mut l) = stack.pop() {
            for n in &mut l.moves {
                stack.append(&mut n.variations);
            }
        }
    }

    // ---------- the encoder, with a record of the move codes it wrote ----------

    /// Coverage of (colour, role, code) seen by the encoder.
    type Coverage = BTreeSet<(bool, u8, u8)>;

    fn role_number(role: Role) -> u8 {
        role as u8
    }

    /// Record the (colour, role, code) of every move of `line` and its variations.
    fn cover(pos: &Chess, lists: &PieceLists, line: &Line, seen: &mut Coverage) {
        let mut pos = pos.clone();
        let mut lists = *lists;
        for node in &line.moves {
            let code = encode_move(&pos, &lists, &node.ply, &mut Vec::new()).unwrap();
            let role = match &node.ply {
                Ply::Null => Role::King,
                Ply::Move(m) => m.role(),
            };
            seen.insert((pos.turn() == Color::White, role_number(role), code));
            for var in &node.variations {
                cover(&pos, &lists, var, seen);
            }
            lists.apply(&pos, &node.ply);
            pos = play(&pos, &node.ply).unwrap();
        }
    }

    /// The game of a record, with no index fields.
    fn game_of(rec: &Record) -> ChessGame {
        ChessGame {
            headers: Headers {
                extra: rec.extra_tags.clone(),
                ..Headers::default()
            },
            start: rec.start.clone(),
            moves: rec.moves.clone(),
        }
    }

    /// Encode a whole record with the production encoder, noting the move codes it used.
    fn encode(rec: &Record, seen: &mut Coverage) -> Vec<u8> {
        let pos = start_position(&rec.start).unwrap();
        let lists = match rec.start {
            StartPosition::Standard => PieceLists::standard(),
            StartPosition::Fen(_) => PieceLists::from_board(pos.board()),
        };
        cover(&pos, &lists, &rec.moves, seen);
        super::encode(&game_of(rec)).unwrap()
    }

    use crate::testing::Rng;

    /// Pick a random legal move, preferring the rare kinds (promotions, castling, en passant)
    /// so that every move code shows up.
    fn random_move(rng: &mut Rng, pos: &Chess) -> Option<Move> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let rare: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| m.is_promotion() || m.is_castle() || m.is_en_passant())
            .collect();
        if !rare.is_empty() && rng.chance(60) {
            return Some(rare[rng.below(rare.len())]);
        }
        Some(moves[rng.below(moves.len())])
    }

    const COMMENTS: [&str; 6] = ["good", "Réti's idea", "{x}", "a\nb", "€ ½", "   "];

    /// A random line of up to `len` plies from `pos` with NAGs, comments, null moves and
    /// (down to `depth`) variations.
    fn random_line(rng: &mut Rng, pos: &Chess, len: usize, depth: usize) -> Line {
        let mut line = Line::default();
        if rng.chance(10) {
            line.comment = comment(COMMENTS[rng.below(COMMENTS.len())]);
        }
        let mut pos = pos.clone();
        for _ in 0..len {
            let ply = if !pos.is_check() && rng.chance(2) {
                Ply::Null
            } else {
                match random_move(rng, &pos) {
                    Some(m) => Ply::Move(m),
                    None => break,
                }
            };
            let mut node = MoveNode::new(ply);
            if rng.chance(10) {
                for _ in 0..=rng.below(MAX_NAGS_PER_MOVE) {
                    node.nags.push(1 + rng.below(255) as u8);
                }
            }
            if rng.chance(10) {
                node.comment = comment(COMMENTS[rng.below(COMMENTS.len())]);
            }
            if depth > 0 && rng.chance(8) {
                for _ in 0..=rng.below(2) {
                    let n = rng.below(8);
                    node.variations.push(random_line(rng, &pos, n, depth - 1));
                }
            }
            pos = play(&pos, &node.ply).unwrap();
            line.moves.push(node);
        }
        line
    }

    /// The full set of (colour, role, code) pairs SCID 4 defines for moves.
    fn every_code() -> Coverage {
        let mut all = Coverage::new();
        for white in [true, false] {
            for code in 0..=10 {
                all.insert((white, role_number(Role::King), code));
            }
            for code in 1..=8 {
                all.insert((white, role_number(Role::Knight), code));
            }
            for role in [Role::Rook, Role::Queen, Role::Bishop, Role::Pawn] {
                for code in 0..16 {
                    all.insert((white, role_number(role), code));
                }
            }
        }
        all
    }

    // ---------- the spec's examples ----------

    #[test]
    fn worked_example_molinari_bordais() {
        let bytes = [
            0xf4, 0x02, 0x31, 0x30, 0x00, 0x00, 0xcf, 0xaf, 0xaf, 0x22, 0x65, 0x61, 0x28, 0x21,
            0xe1, 0x24, 0x0f,
        ];
        let rec = decode(&bytes).unwrap();
        assert_eq!(
            rec.extra_tags,
            vec![("PlyCount".to_owned(), "10".to_owned())]
        );
        assert_eq!(rec.start, StartPosition::Standard);
        assert_eq!(
            std_sans(&rec.moves),
            [
                "e4", "c5", "c4", "Nc6", "Ne2", "Nf6", "Nbc3", "Nb4", "g3", "Nd3#"
            ]
        );
        assert_eq!(rec.moves.comment, None);
        assert!(
            rec.moves
                .moves
                .iter()
                .all(|n| n.nags.is_empty() && n.comment.is_none() && n.variations.is_empty())
        );
        // The test encoder writes exactly the same bytes.
        assert_eq!(encode(&rec, &mut Coverage::new()), bytes);
    }

    #[test]
    fn variations_follow_the_move_they_replace() {
        // 1.e4 (1.d4 d5) (1.c4) e5
        let bytes = std_record(
            &[0xCF, 0x0D, 0xBF, 0xBF, 0x0E, 0x0D, 0xAF, 0x0E, 0xCF, 0x0F],
            &[],
        );
        let rec = decode(&bytes).unwrap();
        let main = &rec.moves;
        assert_eq!(std_sans(main), ["e4", "e5"]);
        let vars = &main.moves[0].variations;
        assert_eq!(vars.len(), 2);
        assert_eq!(std_sans(&vars[0]), ["d4", "d5"]);
        assert_eq!(std_sans(&vars[1]), ["c4"]);
        assert!(main.moves[1].variations.is_empty());
        assert_eq!(encode(&rec, &mut Coverage::new()), bytes);
    }

    #[test]
    fn comments_are_assigned_in_pgn_order() {
        // {C1} 1.d4 {C2} (1.b4 {C3} 1...e5 {C4} (1...Na6 {C5}) 2.e4 {C6}) ({C7} 1.g4 {C8}) 1...d5 {C9}
        let moves = [
            0x0C, 0xBF, 0x0C, 0x0D, 0x9F, 0x0C, 0xCF, 0x0C, 0x0D, 0x21, 0x0C, 0x0E, 0xCF, 0x0C,
            0x0E, 0x0D, 0x0C, 0xEF, 0x0C, 0x0E, 0xBF, 0x0C, 0x0F,
        ];
        let names = ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"];
        let bytes = std_record(&moves, &names);
        let rec = decode(&bytes).unwrap();
        let main = &rec.moves;
        assert_eq!(main.comment, comment("C1"));
        assert_eq!(std_sans(main), ["d4", "d5"]);
        assert_eq!(main.moves[0].comment, comment("C2"));
        assert_eq!(main.moves[1].comment, comment("C9"));
        let v1 = &main.moves[0].variations[0];
        assert_eq!(v1.comment, None);
        assert_eq!(std_sans(v1), ["b4", "e5", "e4"]);
        assert_eq!(v1.moves[0].comment, comment("C3"));
        assert_eq!(v1.moves[1].comment, comment("C4"));
        assert_eq!(v1.moves[2].comment, comment("C6"));
        let v11 = &v1.moves[1].variations[0];
        let after_b4 = play(&Chess::default(), &v1.moves[0].ply).unwrap();
        assert_eq!(sans(&after_b4, v11), ["Na6"]);
        assert_eq!(v11.moves[0].comment, comment("C5"));
        let v2 = &main.moves[0].variations[1];
        assert_eq!(v2.comment, comment("C7"));
        assert_eq!(std_sans(v2), ["g4"]);
        assert_eq!(v2.moves[0].comment, comment("C8"));
        assert_eq!(encode(&rec, &mut Coverage::new()), bytes);
    }

    #[test]
    fn unmarked_comments_follow_the_last_marked_place() {
        // No markers: the pre-game comment, then 1.e4 (spec §5.6, verified on SCID).
        let rec = decode(&std_record(
            &[0xCF, 0x0F],
            &["unmarked one", "unmarked two"],
        ))
        .unwrap();
        assert_eq!(rec.moves.comment, comment("unmarked one"));
        assert_eq!(rec.moves.moves[0].comment, comment("unmarked two"));
        // A third string lands on the end of the main line, where SCID drops it.
        let rec = decode(&std_record(&[0xCF, 0x0F], &["a", "b", "c"])).unwrap();
        assert_eq!(rec.moves.moves[0].comment, comment("b"));
        // A fourth has no place at all.
        corrupt(&std_record(&[0xCF, 0x0F], &["a", "b", "c", "d"]));
        // After a marker: the places following the marked one, variations included.
        // 1.e4 {m} (1.d4 d5) e5 + extra strings → variation start, d4, d5, (end), e5.
        let rec = decode(&std_record(
            &[0xCF, 0x0C, 0x0D, 0xBF, 0xBF, 0x0E, 0xCF, 0x0F],
            &["m", "vs", "d4", "d5", "end", "e5"],
        ))
        .unwrap();
        let main = &rec.moves;
        assert_eq!(main.comment, None);
        assert_eq!(main.moves[0].comment, comment("m"));
        let v = &main.moves[0].variations[0];
        assert_eq!(v.comment, comment("vs"));
        assert_eq!(v.moves[0].comment, comment("d4"));
        assert_eq!(v.moves[1].comment, comment("d5"));
        assert_eq!(main.moves[1].comment, comment("e5"));
        // Empty strings are no comment.
        let rec = decode(&std_record(&[0xCF, 0x0F], &["", "x"])).unwrap();
        assert_eq!(rec.moves.comment, None);
        assert_eq!(rec.moves.moves[0].comment, comment("x"));
        // A marker after a variation's end points back before it: unmarked strings are refused.
        corrupt(&std_record(
            &[0xCF, 0x0D, 0xBF, 0x0E, 0x0C, 0xCF, 0x0F],
            &["late", "extra"],
        ));
    }

    #[test]
    fn comment_strings_must_cover_every_marker() {
        corrupt(&std_record(&[0x0C, 0xCF, 0x0C, 0x0F], &["only one"]));
        // A trailing fragment without its NUL is ignored, as SCID ignores it.
        let mut bytes = std_record(&[0xCF, 0x0C, 0x0F], &["kept"]);
        bytes.extend_from_slice(b"fragment");
        let rec = decode(&bytes).unwrap();
        assert_eq!(rec.moves.moves[0].comment, comment("kept"));
        // Comments are UTF-8, or Latin-1 when not valid UTF-8.
        let mut bytes = std_record(&[0xCF, 0x0C, 0x0F], &[]);
        bytes.extend_from_slice(b"R\xe9ti\0");
        assert_eq!(
            decode(&bytes).unwrap().moves.moves[0].comment,
            comment("Réti")
        );
    }

    #[test]
    fn null_moves() {
        // 1.e4 -- 2.d4
        let rec = decode(&std_record(&[0xCF, 0x00, 0xBF, 0x0F], &[])).unwrap();
        assert_eq!(std_sans(&rec.moves), ["e4", "--", "d4"]);
        assert_eq!(rec.moves.moves[1].ply, Ply::Null);
        // 1.e4 f6 2.Qh5+ --: a null move in check is refused.
        let msg = corrupt(&std_record(&[0xCF, 0xD1, 0x43, 0x67, 0x00, 0x0F], &[]));
        assert!(msg.starts_with("ply 4:"), "{msg}");
    }

    #[test]
    fn queen_diagonal_takes_two_bytes() {
        // 1.e4 f6 2.Qh5+: f7 is black piece 13, code 1 (one step); Qd1-h5 = 0x43 0x67.
        let rec = decode(&std_record(&[0xCF, 0xD1, 0x43, 0x67, 0x0F], &[])).unwrap();
        assert_eq!(std_sans(&rec.moves), ["e4", "f6", "Qh5+"]);
        // A second byte that is not square + 64 is refused.
        corrupt(&std_record(&[0xCF, 0xD1, 0x43, 0x27, 0x0F], &[]));
        corrupt(&std_record(&[0xCF, 0xD1, 0x43], &[]));
    }

    #[test]
    fn nags_up_to_seven() {
        let mut moves = vec![0xCF];
        for nag in 1..=7 {
            moves.extend([MARK_NAG, nag]);
        }
        moves.extend([MARK_NAG, 0]);
        moves.push(0x0F);
        // 7 NAGs and then a NAG 0 on one move: SCID checks the count first, so this fails too.
        corrupt(&std_record(&moves, &[]));
        let mut moves = vec![0xCF];
        for nag in [1, 0, 14, 146, 255, 7, 8, 9] {
            moves.extend([MARK_NAG, nag]);
        }
        moves.push(0x0F);
        let rec = decode(&std_record(&moves, &[])).unwrap();
        assert_eq!(rec.moves.moves[0].nags, [1, 14, 146, 255, 7, 8, 9]);
        let mut moves = vec![0xCF];
        for nag in 1..=8 {
            moves.extend([MARK_NAG, nag]);
        }
        moves.push(0x0F);
        let msg = corrupt(&std_record(&moves, &[]));
        assert!(msg.contains("NAGs"), "{msg}");
        // A NAG value may be any byte, even one that looks like a marker.
        let rec = decode(&std_record(&[0xCF, 0x0B, 0x0F, 0x0B, 0x0D, 0x0F], &[])).unwrap();
        assert_eq!(rec.moves.moves[0].nags, [0x0F, 0x0D]);
        // A NAG with no move yet in its line has nowhere to go and is dropped.
        let rec = decode(&std_record(&[0x0B, 0x01, 0xCF, 0x0F], &[])).unwrap();
        assert!(rec.moves.moves[0].nags.is_empty());
        corrupt(&std_record(&[0xCF, 0x0B], &[]));
    }

    #[test]
    fn fen_start_uses_scan_order_numbering() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut bytes = vec![0, FLAG_FEN];
        bytes.extend_from_slice(fen.as_bytes());
        bytes.push(0);
        // 1.e4 is 0x4F in a FEN game; black e7 is piece 12 (a8 r went to 4, pawns 8..15).
        bytes.extend([0x4F, 0xCF, 0x0F]);
        let rec = decode(&bytes).unwrap();
        assert_eq!(rec.start, StartPosition::Fen(fen.to_owned()));
        assert_eq!(std_sans(&rec.moves), ["e4", "e5"]);
        // The FEN text is kept as stored, even in a 4-field form.
        let fen = "rnb1k2Q/1p5p/p7/4p3/4q3/8/PPP2R1P/2K5 b - -";
        let mut bytes = vec![0, FLAG_FEN | FLAG_PROMOTION];
        bytes.extend_from_slice(fen.as_bytes());
        bytes.push(0);
        // Black is in check from Qh8. 1...Kd7 is king code 1 (-9); 2.Qxh7+ is white piece 6
        // (h8, last in scan order before the king came) code 8 + rank 7 = 14; h7 was black
        // piece 5, so the queen on e4 (piece 8, the last) becomes piece 5. 2...Qxh7 is a
        // diagonal: code = the queen's file (e = 4), then h7 + 64 = 0x77.
        bytes.extend([0x01, 0x6E, 0x54, 0x77, 0x0F]);
        let rec = decode(&bytes).unwrap();
        assert_eq!(rec.start, StartPosition::Fen(fen.to_owned()));
        let start = position_from_fen(fen).unwrap();
        assert_eq!(sans(&start, &rec.moves), ["Kd7", "Qxh7+", "Qxh7"]);
        // A bad FEN is a corrupt record; so is a FEN without its NUL.
        corrupt(b"\x00\x01not a fen\x00\x0f");
        corrupt(b"\x00\x018/8/8/8/8/8/8/8 w - - 0 1");
    }

    #[test]
    fn extra_tags() {
        let mut bytes = vec![];
        bytes.push(7);
        bytes.extend_from_slice(b"UTCDate");
        bytes.push(10);
        bytes.extend_from_slice(b"2024.01.02");
        for code in 241..=250u8 {
            bytes.extend([code, 1, b'a' + (code - 241)]);
        }
        bytes.extend([251, 3, b'x', b'y', b'z']); // reserved: skipped
        bytes.extend([255, 0x12, 0x34, 0x56]); // binary EventDate: 3 bytes, skipped
        bytes.extend([5, b'E', b'm', b'p', b't', b'y', 0]); // an empty value
        bytes.extend([4, b'N', b'a', b'm', b'e', 3, b'R', 0xe9, b'.']); // Latin-1
        bytes.extend([0, 0, 0x0F]);
        let rec = decode(&bytes).unwrap();
        let mut expect = vec![("UTCDate".to_owned(), "2024.01.02".to_owned())];
        for (i, name) in COMMON_TAGS.iter().enumerate() {
            expect.push((name.to_string(), char::from(b'a' + i as u8).to_string()));
        }
        expect.push(("Empty".to_owned(), String::new()));
        expect.push(("Name".to_owned(), "Ré.".to_owned()));
        assert_eq!(rec.extra_tags, expect);
        assert!(rec.moves.moves.is_empty());
        // Truncated tags.
        corrupt(&[7, b'U', b'T']);
        corrupt(&[3, b'a', b'b', b'c', 5, b'x']);
        corrupt(&[255, 1, 2]);
        corrupt(&[251]);
        corrupt(&[]);
    }

    #[test]
    fn marker_nesting_errors() {
        corrupt(&std_record(&[0xCF], &[])); // no end of game
        corrupt(&std_record(&[0xCF, 0x0E, 0x0F], &[])); // end of variation in the main line
        corrupt(&std_record(&[0xCF, 0x0D, 0xBF, 0x0F], &[])); // end of game inside a variation
        corrupt(&std_record(&[0x0D, 0xCF, 0x0E, 0x0F], &[])); // variation before any move
        corrupt(&std_record(
            &[0xCF, 0x0D, 0x0D, 0xBF, 0x0E, 0x0E, 0x0F],
            &[],
        ));
        // An empty variation is what it says.
        let rec = decode(&std_record(&[0xCF, 0x0D, 0x0E, 0x0F], &[])).unwrap();
        assert_eq!(rec.moves.moves[0].variations, [Line::default()]);
    }

    #[test]
    fn bad_move_bytes() {
        // Piece 15 after it was captured: 1.e4 d5 2.exd5 and then black h7 (now index 11) as 15.
        let msg = corrupt(&std_record(&[0xCF, 0xBF, 0xC0, 0xF1, 0x0F], &[]));
        assert!(msg.starts_with("ply 4:"), "{msg}");
        corrupt(&std_record(&[0x10, 0x0F], &[])); // Ra1 code 0 = own file: its own square
        corrupt(&std_record(&[0x11, 0x0F], &[])); // Ra1xb1: own knight
        corrupt(&std_record(&[0x18, 0x0F], &[])); // Ra1-a1 by rank code 8
        corrupt(&std_record(&[0x19, 0x0F], &[])); // Ra1-a2: own pawn there
        corrupt(&std_record(&[0x20, 0x0F], &[])); // knight code 0
        corrupt(&std_record(&[0x29, 0x0F], &[])); // knight code 9
        corrupt(&std_record(&[0x21, 0x0F], &[])); // knight off the board
        corrupt(&std_record(&[0x02, 0x0F], &[])); // king steps off the board
        corrupt(&std_record(&[0x07, 0x0F], &[])); // king steps onto its own pawn
        corrupt(&std_record(&[0x0A, 0x0F], &[])); // castling through pieces
        corrupt(&std_record(&[0xC2, 0x0F], &[])); // e2xf3 onto an empty square, no en passant
        corrupt(&std_record(&[0xC4, 0x0F], &[])); // promotion from the second rank
        corrupt(&std_record(&[0x82, 0x0F], &[])); // a2+9 = b3 is empty and no en passant
        corrupt(&std_record(&[0x80, 0x0F], &[])); // a2+7 = h2: wraps around the board
        corrupt(&std_record(&[0xC1, 0x81, 0xCF, 0x0F], &[])); // 1.e3 a6 2.e3-e5: not its first rank
        corrupt(&std_record(&[0xCF, 0xCF, 0xC1, 0x0F], &[])); // 1.e4 e5 2.e4-e5: blocked
        corrupt(&std_record(&[0x28, 0x81, 0xAF, 0x0F], &[])); // 1.Nc3 a6 2.c2-c4 through c3
        // Castling without the right: 1.Nf3 Nf6 2.g3 g6 3.Bg2 Bg7 4.Rg1 Rg8 5.Rh1 Rh8 6.O-O
        let moves = [
            0x67, 0x61, 0xE1, 0xE1, 0x56, 0x5E, 0x76, 0x76, 0x77, 0x77, 0x0A, 0x0F,
        ];
        let msg = corrupt(&std_record(&moves, &[]));
        assert!(msg.contains("ply 11"), "{msg}");
    }

    #[test]
    fn long_games_decode() {
        // 1.Nf3 Nf6 2.Ng1 Ng8 repeated: 1200 plies.
        let mut moves = Vec::new();
        for _ in 0..300 {
            moves.extend([0x67, 0x61, 0x62, 0x68]);
        }
        moves.push(0x0F);
        let rec = decode(&std_record(&moves, &[])).unwrap();
        assert_eq!(rec.moves.moves.len(), 1200);
        assert_eq!(std_sans(&rec.moves)[1199], "Ng8");
    }

    #[test]
    fn deep_nesting_uses_no_recursion() {
        // 1.e4 (1.d4 (1.d4 (1.d4 … 10,000 deep.
        const DEPTH: usize = 10_000;
        let mut moves = vec![0xCF];
        for _ in 0..DEPTH {
            moves.extend([0x0D, 0xBF]);
        }
        moves.extend(std::iter::repeat_n(0x0E, DEPTH));
        moves.push(0x0F);
        let rec = decode(&std_record(&moves, &[])).unwrap();
        let mut depth = 0;
        let mut line = &rec.moves;
        while let Some(v) = line.moves[0].variations.first() {
            depth += 1;
            line = v;
        }
        assert_eq!(depth, DEPTH);
        dismantle(rec.moves);
    }

    /// Movetext of a line in a compact PGN-like form (SAN, `$n`, `{c}`, `( … )`).
    fn movetext(pos: &Chess, line: &Line, out: &mut Vec<String>) {
        if let Some(c) = &line.comment {
            out.push(format!("{{{c}}}"));
        }
        let mut pos = pos.clone();
        for n in &line.moves {
            out.push(match &n.ply {
                Ply::Null => "--".to_owned(),
                Ply::Move(m) => SanPlus::from_move(pos.clone(), *m).to_string(),
            });
            out.extend(n.nags.iter().map(|g| format!("${g}")));
            if let Some(c) = &n.comment {
                out.push(format!("{{{c}}}"));
            }
            for v in &n.variations {
                out.push("(".to_owned());
                movetext(&pos, v, out);
                out.push(")".to_owned());
            }
            pos = play(&pos, &n.ply).unwrap();
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn records_written_by_scid_4_7_4() {
        // Made with Debian's scid 4.7.4 (sc_import), checked against its scidpgn export.
        let rec = decode(&hex(
            "00000ccf0b010c0dbf0cbf0d610b020b0e0eaf0e0daf0b060ecf0b05670b030b120c220f526f6f\
             7420636f6d6d656e740061667465722065340061667465722064340074776f206e61677300",
        ))
        .unwrap();
        let mut out = Vec::new();
        movetext(&Chess::default(), &rec.moves, &mut out);
        assert_eq!(
            out.join(" "),
            "{Root comment} e4 $1 {after e4} ( d4 {after d4} d5 ( Nf6 $2 $14 ) c4 ) ( c4 $6 ) \
             e5 $5 Nf3 $3 $18 {two nags} Nc6"
        );
        let rec = decode(&hex(
            "fa013100017231627131726b312f707070703270312f357031702f347050322f32503150316e31\
             2f506e3342322f5250315033502f314e42514b314e522077202d202d2031203134000c580b060b\
             13b10023740cd50b06050b15810de5360b164fd20c89410e0f776974682074656d706f20e282ac\
             207369676e206f6e6c79206d6f766500776974682074656d706f007820626164206f6e6c79206d\
             6f766500",
        ))
        .unwrap();
        assert_eq!(rec.extra_tags, [("SetUp".to_owned(), "1".to_owned())]);
        let fen = "r1bq1rk1/pppp2p1/5p1p/4pP2/2P1P1n1/Pn3B2/RP1P3P/1NBQK1NR w - - 1 14";
        assert_eq!(rec.start, StartPosition::Fen(fen.to_owned()));
        let mut out = Vec::new();
        movetext(&position_from_fen(fen).unwrap(), &rec.moves, &mut out);
        assert_eq!(
            out.join(" "),
            "{with tempo € sign only move} Ra1 $6 $19 h5 -- Qe7 {with tempo} Ne2 $6 Kh8 $21 \
             h3 ( Rf1 Rg8 $22 Bh1 Nxh2 {x bad only move} Rf2 Rb8 )"
        );
    }

    // ---------- every move code, by round trip ----------

    #[test]
    fn random_games_round_trip_and_cover_every_code() {
        let mut rng = Rng(0x5C1D_4000_0000_1234);
        let mut seen = Coverage::new();
        let mut fens = 0;
        for game in 0..400 {
            // Half the games start from a FEN reached by random play.
            let mut start_pos = Chess::default();
            let mut start = StartPosition::Standard;
            if game % 2 == 1 {
                for _ in 0..rng.below(60) {
                    match random_move(&mut rng, &start_pos) {
                        Some(m) => start_pos = play(&start_pos, &Ply::Move(m)).unwrap(),
                        None => break,
                    }
                }
                start = StartPosition::Fen(fen_of(&start_pos));
                fens += 1;
            }
            let len = 20 + rng.below(250);
            let moves = random_line(&mut rng, &start_pos, len, 3);
            let mut extra_tags = vec![("PlyCount".to_owned(), moves.plies().to_string())];
            if rng.chance(30) {
                extra_tags.push(("Annotator".to_owned(), "Réti, R.".to_owned()));
                extra_tags.push(("MyTag".to_owned(), String::new()));
            }
            let rec = Record {
                extra_tags,
                start,
                moves,
            };
            let bytes = encode(&rec, &mut seen);
            let back = decode(&bytes).unwrap_or_else(|e| panic!("game {game}: {e}"));
            assert_eq!(back, rec, "game {game}");
        }
        assert!(fens > 100);
        let missing: Vec<_> = every_code().difference(&seen).copied().collect();
        assert!(missing.is_empty(), "codes never produced: {missing:?}");
    }

    // ---------- encoder refusals and SCID's FEN form ----------

    /// A game of SAN moves from the standard start.
    fn std_game(sans: &[&str]) -> ChessGame {
        let mut pos = Chess::default();
        let mut g = ChessGame::default();
        for san in sans {
            let ply = if *san == "--" {
                Ply::Null
            } else {
                Ply::Move(
                    san.parse::<shakmaty::san::San>()
                        .unwrap()
                        .to_move(&pos)
                        .unwrap(),
                )
            };
            pos = play(&pos, &ply).unwrap();
            g.moves.moves.push(MoveNode::new(ply));
        }
        g
    }

    /// `encode` must fail with `kind` and a message containing `needle`.
    fn refused(g: &ChessGame, kind: ErrorKind, needle: &str) {
        match super::encode(g) {
            Ok(b) => panic!("encoded to {b:02x?}, expected {kind:?} ({needle})"),
            Err(e) => {
                assert_eq!(e.kind(), kind, "{e}");
                assert!(e.message().contains(needle), "{e}");
            }
        }
    }

    #[test]
    fn encoder_refuses_what_scid_cannot_store() {
        let base = std_game(&["e4", "e5"]);
        let mut g = base.clone();
        g.moves.moves[0].nags = (1..=8).collect();
        refused(&g, ErrorKind::TooLarge, "8 NAGs");
        g.moves.moves[0].nags = (1..=7).collect();
        assert!(super::encode(&g).is_ok());
        g.moves.moves[1].nags = vec![0];
        refused(&g, ErrorKind::InvalidInput, "NAG 0");

        let with_tag = |name: &str, value: &str| {
            let mut g = base.clone();
            g.headers.extra.push((name.to_owned(), value.to_owned()));
            g
        };
        refused(&with_tag("", "x"), ErrorKind::InvalidInput, "empty name");
        refused(&with_tag(&"N".repeat(241), ""), ErrorKind::TooLarge, "240");
        assert!(super::encode(&with_tag(&"N".repeat(240), "")).is_ok());
        refused(
            &with_tag("Source", &"v".repeat(256)),
            ErrorKind::TooLarge,
            "255",
        );
        assert!(super::encode(&with_tag("Source", &"v".repeat(255))).is_ok());
        for tag in INDEX_TAGS {
            refused(&with_tag(tag, "x"), ErrorKind::InvalidInput, tag);
        }
        // A further rating tag is an extra tag only next to an index rating (as SCID keeps it).
        refused(
            &with_tag("WhiteUSCF", "1800"),
            ErrorKind::InvalidInput,
            "no rating",
        );
        refused(
            &with_tag("BlackElo", "1800"),
            ErrorKind::InvalidInput,
            "no rating",
        );
        let mut g = with_tag("WhiteElo", "2000");
        g.headers.white_rating = Some(crate::game::chess::Rating {
            value: 1800,
            kind: RatingType::Uscf,
        });
        assert!(super::encode(&g).is_ok());
        assert!(super::encode(&with_tag("WhiteBCF", "1")).is_ok());
        let mut g = with_tag("Annotator", "a");
        g.headers.extra.push(("Annotator".into(), "b".into()));
        refused(&g, ErrorKind::InvalidInput, "twice");

        let mut g = base.clone();
        g.moves.moves[1].comment = Some("nul\0byte".into());
        refused(&g, ErrorKind::InvalidInput, "NUL");
        g.moves.moves[1].comment = Some("x".repeat(MAX_RECORD_LEN));
        refused(&g, ErrorKind::TooLarge, "131071");
        // The largest record SCID takes: 131,071 bytes.
        let fixed = super::encode(&base).unwrap().len() + 2; // marker + NUL
        g.moves.moves[1].comment = Some("x".repeat(MAX_RECORD_LEN - 1 - fixed));
        assert_eq!(super::encode(&g).unwrap().len(), MAX_RECORD_LEN - 1);

        // Moves: a null move in check, an illegal move.
        let mut g = std_game(&["e4", "f6", "Qh5+"]);
        g.moves.moves.push(MoveNode::new(Ply::Null));
        refused(&g, ErrorKind::InvalidInput, "ply 4: a null move");
        let mut g = base.clone();
        g.moves.moves[1]
            .variations
            .push(std_game(&["e4"]).moves.clone());
        refused(&g, ErrorKind::InvalidInput, "illegal move");
    }

    fn fen_game(fen: &str) -> ChessGame {
        ChessGame {
            start: StartPosition::Fen(fen.to_owned()),
            ..ChessGame::default()
        }
    }

    #[test]
    fn encoder_refuses_chess960_and_overfull_fens() {
        for fen in [
            "4k3/8/8/8/8/8/8/R4K1R w K - 0 1", // king not on e1
            "4k3/8/8/8/8/8/8/4K1R1 w K - 0 1", // rook not in the corner
            "4k3/8/8/8/8/8/8/4K3 w Q - 0 1",   // no rook at all
            "r3k3/8/8/8/8/8/8/4K3 w B - 0 1",  // Shredder file other than a/h
            "rk6/8/8/8/8/8/8/4K3 w q - 0 1",   // black king not on e8
        ] {
            refused(&fen_game(fen), ErrorKind::InvalidInput, "Chess960");
        }
        refused(
            &fen_game("QQQQQQQQ/QQQQQQQQ/QQk5/8/8/8/8/4K3 w - - 0 1"),
            ErrorKind::InvalidInput,
            "19 pieces",
        );
        refused(&fen_game("not a fen"), ErrorKind::InvalidInput, "start FEN");
        refused(
            &fen_game("4k3/8/8/8/8/8/8/4K3 w - e4 0 1"),
            ErrorKind::InvalidInput,
            "rank 3 or 6",
        );
        refused(
            &fen_game("4k3/8/8/8/8/8/8/4K2R w KX - 0 1"),
            ErrorKind::InvalidInput,
            "castling field",
        );
    }

    #[test]
    fn fens_are_stored_in_scids_form() {
        let cases = [
            // A 4-field FEN gets " 0 1".
            (
                "4k3/8/8/8/4P3/8/8/4K3 b - e3",
                "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1",
            ),
            // No castling field: rights guessed from the board, in KQkq order.
            (
                "r3k2r/8/8/8/8/8/8/R3K3 w",
                "r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1",
            ),
            // X-FEN/Shredder letters for the corner rooks, any order.
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w qHAk - 3 20",
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 20",
            ),
            // Counters: negative halfmove → 0, fullmove 0 → 1.
            (
                "4k3/8/8/8/8/8/8/4K3 w - - -5 0",
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            ),
            // An impossible en-passant square is kept as given.
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            ),
        ];
        for (given, stored) in cases {
            let (text, _) = scid_fen(given).unwrap();
            assert_eq!(text, stored, "{given}");
            let bytes = super::encode(&fen_game(given)).unwrap();
            let mut expect = vec![0, FLAG_FEN];
            expect.extend_from_slice(stored.as_bytes());
            expect.extend([0, MARK_END_GAME]);
            assert_eq!(bytes, expect);
        }
        // The standard position as a FEN is still a FEN game, numbered in scan order.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut g = std_game(&["e4"]);
        g.start = StartPosition::Fen(fen.to_owned());
        let bytes = super::encode(&g).unwrap();
        assert_eq!(&bytes[bytes.len() - 3..], &[0, 0x4F, MARK_END_GAME]);
        // And a standard game writes 1.e4 as 0xCF.
        assert_eq!(
            super::encode(&std_game(&["e4"])).unwrap(),
            [0, 0, 0xCF, 0x0F]
        );
    }

    #[test]
    fn main_line_promotions_set_the_flags_byte() {
        let fen = "8/1P2k3/8/8/8/8/6p1/4K3 w - - 0 1";
        let start = position_from_fen(fen).unwrap();
        let knight = Move::Normal {
            role: Role::Pawn,
            from: Square::B7,
            capture: None,
            to: Square::B8,
            promotion: Some(Role::Knight),
        };
        let queen = Move::Normal {
            role: Role::Pawn,
            from: Square::B7,
            capture: None,
            to: Square::B8,
            promotion: Some(Role::Queen),
        };
        assert!(start.is_legal(knight) && start.is_legal(queen));
        let mut g = fen_game(fen);
        g.moves.moves.push(MoveNode::new(Ply::Move(queen)));
        assert_eq!(super::encode(&g).unwrap()[1], FLAG_FEN | FLAG_PROMOTION);
        g.moves.moves[0] = MoveNode::new(Ply::Move(knight));
        assert_eq!(
            super::encode(&g).unwrap()[1],
            FLAG_FEN | FLAG_PROMOTION | FLAG_UNDER_PROMOTION
        );
        // Only the main line counts.
        let mut g = fen_game(fen);
        let mut node = MoveNode::new(Ply::Null);
        node.variations.push(Line {
            comment: None,
            moves: vec![MoveNode::new(Ply::Move(knight))],
        });
        g.moves.moves.push(node);
        assert_eq!(super::encode(&g).unwrap()[1], FLAG_FEN);
    }

    #[test]
    fn deep_nesting_encodes_without_recursion() {
        // 1.e4 (1.d4 (1.d4 (1.d4 … 10,000 deep, through the encoder and back.
        const DEPTH: usize = 10_000;
        let mut moves = vec![0xCF];
        for _ in 0..DEPTH {
            moves.extend([0x0D, 0xBF]);
        }
        moves.extend(std::iter::repeat_n(0x0E, DEPTH));
        moves.push(0x0F);
        let bytes = std_record(&moves, &[]);
        let rec = decode(&bytes).unwrap();
        // Moved, not cloned: the model's derived Clone recurses per level.
        let game = ChessGame {
            headers: Headers::default(),
            start: rec.start,
            moves: rec.moves,
        };
        assert_eq!(super::encode(&game).unwrap(), bytes);
        let ChessGame { moves, .. } = game;
        dismantle(moves);
    }

    // ---------- robustness ----------

    #[test]
    fn truncations_and_garbage_never_panic() {
        let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
        let mut valid = Vec::new();
        for _ in 0..30 {
            let moves = random_line(&mut rng, &Chess::default(), 40, 2);
            let rec = Record {
                extra_tags: vec![("Annotator".to_owned(), "x".to_owned())],
                start: StartPosition::Standard,
                moves,
            };
            valid.push(encode(&rec, &mut Coverage::new()));
        }
        for bytes in &valid {
            for end in 0..bytes.len() {
                let _ = decode(&bytes[..end]);
            }
        }
        // Mutations of valid records reach deep into the decoder.
        for _ in 0..20_000 {
            let mut bytes = valid[rng.below(valid.len())].clone();
            for _ in 0..=rng.below(4) {
                let i = rng.below(bytes.len());
                bytes[i] = rng.next_u64() as u8;
            }
            let _ = decode(&bytes);
        }
        // Pure garbage, with and without a plausible header.
        for _ in 0..20_000 {
            let len = rng.below(64);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            if rng.chance(50) {
                bytes.splice(0..0, [0, 0]);
            }
            let _ = decode(&bytes);
        }
    }
}
