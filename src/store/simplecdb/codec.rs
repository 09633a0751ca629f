//! The game records of the .dcg file: a BER-style length, the start position, then the move
//! tokens (docs/formats/simplecdb.md §3).
//!
//! A record is `length | 00` (standard start) or `length | 01 len FEN`, then tokens: a move word
//! `promo<<12 | from<<6 | to` (big-endian, a1 = 0, promotion N=2 B=3 R=4 Q=5; castling as the
//! king's two-square move), `0x88` null move, `0x87 len nags…`, `0x86 len text` (one comment
//! per node, after its move and NAGs; right after the start it is the game's leading comment),
//! and `0x84 … 0x85` around each variation. The order is the reference writer's: a move, its
//! NAGs and comment, then each of its alternatives as `84 move nags comment <rest> 85`, then
//! the rest of the line. Encoding follows it byte for byte, so the same game gives the same
//! bytes as pgn2dcg; decoding accepts every length form and never panics.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position, Role, Square};

use crate::error::{Error, ErrorKind, Result};
use crate::game::legal;
use crate::game::replay::{play_in_place, position_from_fen};
use crate::game::visit::{GameVisitor, TreeBuilder};
use crate::game::{Line, MoveNode, Ply, StartPosition, normalize_comment};

/// Token: a variation begins.
pub const BEGIN_VARIATION: u8 = 0x84;
/// Token: a variation ends.
pub const END_VARIATION: u8 = 0x85;
/// Token: a comment follows (length, UTF-8 text).
pub const COMMENT: u8 = 0x86;
/// Token: NAGs follow (count, one byte each).
pub const NAGS: u8 = 0x87;
/// Token: a null move.
pub const NULL_MOVE: u8 = 0x88;
/// The standard starting position's FEN; a start equal to it is stored as marker 00.
pub use crate::game::replay::STANDARD_FEN;

/// Append the length `n` in the reference writer's form: one byte only for 0..=126 (never a
/// lone 0x7F, which the reference readers reject), then `81 xx`, `82 xxxx`, `83 xxxxxx`,
/// `84 xxxxxxxx`.
pub fn push_length(out: &mut Vec<u8>, n: usize) -> Result<()> {
    let n64 = n as u64;
    if n < 127 {
        out.push(n as u8);
    } else if n < 255 {
        out.extend([0x81, n as u8]);
    } else if n < 65_535 {
        out.push(0x82);
        out.extend(&(n as u16).to_be_bytes());
    } else if n < 16_777_215 {
        out.push(0x83);
        out.extend(&(n as u32).to_be_bytes()[1..]);
    } else if n64 <= u64::from(u32::MAX) {
        out.push(0x84);
        out.extend(&(n as u32).to_be_bytes());
    } else {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("a length of {n} bytes does not fit the format's 4-byte lengths"),
        ));
    }
    Ok(())
}

/// Read a length at `bytes[*at..]`, advancing `at`. Every form is accepted: a single byte
/// 0x00..=0x7F (0x7F too, which the format's published description allows), and `81`..`84`
/// followed by 1..4 bytes.
pub fn read_length(bytes: &[u8], at: &mut usize) -> Result<usize> {
    let first = *bytes
        .get(*at)
        .ok_or_else(|| Error::corrupt_record("the record ends where a length should be"))?;
    *at += 1;
    let n = match first {
        0..=0x7F => return Ok(usize::from(first)),
        0x81..=0x84 => usize::from(first - 0x80),
        _ => {
            return Err(Error::corrupt_record(format!(
                "byte {first:#04x} at offset {} is not a length",
                *at - 1
            )));
        }
    };
    let b = bytes
        .get(*at..*at + n)
        .ok_or_else(|| Error::corrupt_record("the record ends inside a length"))?;
    *at += n;
    Ok(b.iter().fold(0usize, |v, &x| v << 8 | usize::from(x)))
}

/// How much a record at the start of `head` will take: the size of its length bytes and the
/// body length, read from at most the first 5 bytes.
pub fn record_extent(head: &[u8]) -> Result<(usize, usize)> {
    let mut at = 0;
    let len = read_length(head, &mut at)?;
    Ok((at, len))
}

/// Why the format cannot hold a part of the move tree (a comment at the start of a variation,
/// an empty variation, an empty comment). The caller decides whether that refuses the save.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLoss {
    /// What is lost, for the message.
    pub what: String,
}

fn promotion_code(role: Role) -> u16 {
    match role {
        Role::Knight => 2,
        Role::Bishop => 3,
        Role::Rook => 4,
        _ => 5,
    }
}

/// The 16-bit word of a move: castling becomes the king's two-square move.
pub fn move_word(m: &Move) -> u16 {
    let (from, to, promo) = match *m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() {
                shakmaty::File::G
            } else {
                shakmaty::File::C
            };
            (king, Square::from_coords(file, king.rank()), None)
        }
        _ => match m.to_uci(CastlingMode::Standard) {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => (from, to, promotion),
            _ => (m.from().unwrap_or(m.to()), m.to(), None),
        },
    };
    promo.map_or(0, promotion_code) << 12 | (u32::from(from) as u16) << 6 | u32::from(to) as u16
}

fn push_node(out: &mut Vec<u8>, node: &MoveNode, losses: &mut Vec<TreeLoss>) -> Result<()> {
    match &node.ply {
        Ply::Move(m) => out.extend(move_word(m).to_be_bytes()),
        Ply::Null => out.push(NULL_MOVE),
    }
    if !node.nags.is_empty() {
        out.push(NAGS);
        push_length(out, node.nags.len())?;
        out.extend(&node.nags);
    }
    match node.comment.as_deref() {
        Some("") => losses.push(TreeLoss {
            what: "an empty comment".into(),
        }),
        Some(c) => {
            out.push(COMMENT);
            push_length(out, c.len())?;
            out.extend(c.as_bytes());
        }
        None => {}
    }
    Ok(())
}

enum Task<'a> {
    /// Continue `line` at move `index`; the flag says whether that move's bytes are still to
    /// be written (a variation's first move is written when it opens).
    Line(&'a Line, usize, bool),
    /// Open a variation: 0x84 and its first move.
    Open(&'a Line),
    /// Close a variation: 0x85.
    Close,
}

/// Encode the record body (start marker and tokens, without the leading length), listing
/// what the format cannot hold instead of writing it.
pub fn encode_body(start: &StartPosition, moves: &Line) -> Result<(Vec<u8>, Vec<TreeLoss>)> {
    let mut out = Vec::with_capacity(64 + moves.moves.len() * 3);
    let mut losses = Vec::new();
    match start {
        StartPosition::Chess960(_) => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a Chess960 game cannot be stored: the Simple Chess Database holds standard chess",
            ));
        }
        StartPosition::Fen(fen) if fen != STANDARD_FEN => {
            out.push(1);
            push_length(&mut out, fen.len())?;
            out.extend(fen.as_bytes());
        }
        _ => out.push(0),
    }
    match moves.comment.as_deref() {
        Some("") => losses.push(TreeLoss {
            what: "an empty leading comment".into(),
        }),
        Some(c) => {
            out.push(COMMENT);
            push_length(&mut out, c.len())?;
            out.extend(c.as_bytes());
        }
        None => {}
    }
    let mut stack = vec![Task::Line(moves, 0, true)];
    while let Some(task) = stack.pop() {
        match task {
            Task::Line(line, i, emit) => {
                let Some(node) = line.moves.get(i) else {
                    continue;
                };
                if emit {
                    push_node(&mut out, node, &mut losses)?;
                }
                stack.push(Task::Line(line, i + 1, true));
                for var in node.variations.iter().rev() {
                    if var.moves.is_empty() {
                        losses.push(TreeLoss {
                            what: "an empty variation".into(),
                        });
                        continue;
                    }
                    stack.push(Task::Close);
                    stack.push(Task::Open(var));
                }
            }
            Task::Open(var) => {
                out.push(BEGIN_VARIATION);
                if let Some(c) = &var.comment {
                    losses.push(TreeLoss {
                        what: format!("the comment {c:?} at the start of a variation"),
                    });
                }
                if let Some(first) = var.moves.first() {
                    push_node(&mut out, first, &mut losses)?;
                    stack.push(Task::Line(var, 0, false));
                }
            }
            Task::Close => out.push(END_VARIATION),
        }
    }
    Ok((out, losses))
}

/// Encode a whole record: the length (reference thresholds), then the body.
pub fn encode_record(body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() + 5);
    push_length(&mut out, body.len())?;
    out.extend(body);
    Ok(out)
}

/// One line being decoded.
/// One line being decoded: the main line or an open variation.
struct Frame {
    /// Position before the line's last move (where an alternative to it starts).
    before_last: Chess,
    /// Position after the line's last move.
    pos: Chess,
    /// How many moves of the line have been decoded.
    moves: usize,
    /// The line's last move (or, before its first move, the line) has a comment.
    commented: bool,
}

impl Frame {
    fn new(pos: Chess) -> Frame {
        Frame {
            before_last: pos.clone(),
            pos,
            moves: 0,
            commented: false,
        }
    }
}

fn corrupt(at: usize, what: impl std::fmt::Display) -> Error {
    Error::corrupt_record(format!("byte {at} of the record: {what}"))
}

fn take<'a>(body: &'a [u8], at: &mut usize, n: usize, what: &str) -> Result<&'a [u8]> {
    let b = body
        .get(*at..at.saturating_add(n))
        .ok_or_else(|| corrupt(*at, format!("the record ends inside {what}")))?;
    *at += n;
    Ok(b)
}

/// Decode a record body (after its length) into the start position and the move tree.
/// Damage gives a [`crate::error::ErrorKind::CorruptRecord`] error saying where and why.
/// Tolerated with a log message: a second comment on one node (the last wins, as in Jerry)
/// and a comment right after 0x84 (kept as the variation's leading comment). Comments are
/// read as the PGN parser gives them ([`normalize_comment`]), so a stored game re-saves
/// unchanged; a blank comment is no comment.
pub fn decode_body(body: &[u8]) -> Result<(StartPosition, Line)> {
    let (start, moves) = read_start(body)?;
    let mut tree = TreeBuilder::new();
    moves.visit(&mut tree)?;
    Ok((start, tree.finish()))
}

/// A record body's moves after its start position, not yet decoded.
pub struct BodyMoves<'a> {
    body: &'a [u8],
    /// Where the first token is.
    at: usize,
    /// The start position.
    pos: Chess,
}

/// Read a record body's start position; its moves are told by [`BodyMoves::visit`].
pub fn read_start(body: &[u8]) -> Result<(StartPosition, BodyMoves<'_>)> {
    let mut at = 0;
    let marker = *body
        .first()
        .ok_or_else(|| corrupt(0, "the record is empty (no start marker)"))?;
    at += 1;
    let (start, pos) = match marker {
        0 => (StartPosition::Standard, Chess::default()),
        1 => {
            let n = read_length(body, &mut at)?;
            let raw = take(body, &mut at, n, "the FEN")?;
            let fen = std::str::from_utf8(raw)
                .map_err(|_| corrupt(at, "the FEN is not UTF-8"))?
                .to_owned();
            let pos = position_from_fen(&fen).map_err(|e| corrupt(at, e.message()))?;
            (StartPosition::Fen(fen), pos)
        }
        b => return Err(corrupt(0, format!("unknown start marker {b:#04x}"))),
    };
    Ok((start, BodyMoves { body, at, pos }))
}

impl BodyMoves<'_> {
    /// Decode the move tokens, telling each event to `v` as it is decoded (see
    /// [`decode_body`] for what is refused and what is tolerated); events told before a
    /// damaged token are not taken back.
    pub fn visit<V: GameVisitor + ?Sized>(self, v: &mut V) -> Result<()> {
        let BodyMoves { body, mut at, pos } = self;
        let mut stack = vec![Frame::new(pos)];
        while at < body.len() {
            let token_at = at;
            let token = body[at];
            at += 1;
            let top = stack.last_mut().expect("the main line is never popped");
            match token {
                0x00..=0x7F => {
                    let lo = *body
                        .get(at)
                        .ok_or_else(|| corrupt(token_at, "the record ends inside a move"))?;
                    at += 1;
                    let m = decode_move(u16::from_be_bytes([token, lo]), &top.pos)
                        .map_err(|what| corrupt(token_at, what))?;
                    play(top, Ply::Move(m), v)?;
                }
                NULL_MOVE => play(top, Ply::Null, v).map_err(|e| corrupt(token_at, e.message()))?,
                NAGS => {
                    let n = read_length(body, &mut at)?;
                    let nags = take(body, &mut at, n, "a NAG block")?;
                    if top.moves == 0 {
                        return Err(corrupt(token_at, "NAGs before any move"));
                    }
                    for &nag in nags {
                        v.nag(nag)?;
                    }
                }
                COMMENT => {
                    let n = read_length(body, &mut at)?;
                    let raw = crate::store::charset::text_from_bytes(take(
                        body,
                        &mut at,
                        n,
                        "a comment",
                    )?);
                    // pgn2dcg stores comments raw (line breaks and all): read as PGN text gives
                    // them, so a stored game re-saves unchanged.
                    let text = normalize_comment(&raw);
                    if text.is_empty() {
                        continue;
                    }
                    if std::mem::replace(&mut top.commented, true) {
                        log::warn!(
                            "byte {token_at} of a game record: a second comment on one move; the last is kept"
                        );
                    }
                    if top.moves == 0 {
                        v.line_comment(&text)?;
                    } else {
                        v.comment(&text)?;
                    }
                }
                BEGIN_VARIATION => {
                    if top.moves == 0 {
                        return Err(corrupt(token_at, "a variation before any move"));
                    }
                    let pos = top.before_last.clone();
                    stack.push(Frame::new(pos));
                    v.begin_variation()?;
                }
                END_VARIATION => {
                    if stack.len() < 2 {
                        return Err(corrupt(token_at, "0x85 closes no variation"));
                    }
                    stack.pop();
                    v.end_variation()?;
                }
                b => return Err(corrupt(token_at, format!("byte {b:#04x} is not a token"))),
            }
        }
        if stack.len() > 1 {
            return Err(corrupt(
                at,
                format!("{} variations are never closed", stack.len() - 1),
            ));
        }
        Ok(())
    }
}

/// The legal move a move word (`promo<<12 | from<<6 | to`) names in `pos`, or why not.
fn decode_move(word: u16, pos: &Chess) -> std::result::Result<Move, String> {
    let promotion = match word >> 12 {
        0 => None,
        2 => Some(Role::Knight),
        3 => Some(Role::Bishop),
        4 => Some(Role::Rook),
        5 => Some(Role::Queen),
        p => return Err(format!("promotion code {p} is unknown")),
    };
    let from = Square::new(u32::from(word >> 6 & 63));
    let to = Square::new(u32::from(word & 63));
    legal::uci_to_move(pos, from, to, promotion).ok_or_else(|| {
        let uci = UciMove::Normal {
            from,
            to,
            promotion,
        };
        format!(
            "{uci} is not a legal move in {}",
            crate::game::replay::fen_of(pos)
        )
    })
}

/// Play `ply` as the line's next move and tell it.
fn play<V: GameVisitor + ?Sized>(top: &mut Frame, ply: Ply, v: &mut V) -> Result<()> {
    // A refused null move fails the whole record: what `before_last` then holds is unused.
    top.before_last.clone_from(&top.pos);
    play_in_place(&mut top.pos, &ply)?;
    top.moves += 1;
    top.commented = false;
    v.ply(&top.before_last, &ply, &top.pos, top.pos.is_check())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_forms() {
        let enc = |n| {
            let mut v = Vec::new();
            push_length(&mut v, n).unwrap();
            v
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(126), [126]);
        assert_eq!(enc(127), [0x81, 0x7f]);
        assert_eq!(enc(254), [0x81, 0xfe]);
        assert_eq!(enc(255), [0x82, 0x00, 0xff]);
        assert_eq!(enc(65_534), [0x82, 0xff, 0xfe]);
        assert_eq!(enc(65_535), [0x83, 0x00, 0xff, 0xff]);
        assert_eq!(enc(16_777_215), [0x84, 0x00, 0xff, 0xff, 0xff]);
        for n in [
            0,
            1,
            126,
            127,
            128,
            254,
            255,
            256,
            65_534,
            65_535,
            1 << 20,
            16_777_215,
        ] {
            let mut at = 0;
            assert_eq!(read_length(&enc(n), &mut at).unwrap(), n);
        }
        let mut at = 0;
        assert_eq!(
            read_length(&[0x7f], &mut at).unwrap(),
            127,
            "a lone 0x7F is read"
        );
        for bad in [&[0x80][..], &[0x85, 0, 0, 0, 0, 0], &[0x82, 1], &[]] {
            assert!(read_length(bad, &mut 0).is_err());
        }
    }

    #[test]
    fn move_words_from_the_spec() {
        let pos = position_from_fen("8/1P1P1P1P/8/8/8/8/k7/7K w - - 0 1").unwrap();
        let m = UciMove::Normal {
            from: Square::B7,
            to: Square::B8,
            promotion: Some(Role::Knight),
        }
        .to_move(&pos)
        .unwrap();
        assert_eq!(move_word(&m), 0x2c79);
        let m = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        assert_eq!(move_word(&m), 4 << 6 | 6);
        let m = Move::Castle {
            king: Square::E8,
            rook: Square::A8,
        };
        assert_eq!(move_word(&m), 60 << 6 | 58);
    }

    #[test]
    fn bad_tokens_are_corrupt_records() {
        for body in [
            &[0x00, 0x80][..],
            &[0x00, 0x83],
            &[0x00, 0x89],
            &[0x00, 0x84],
            &[0x00, 0x87, 0x01, 0x01],
            &[0x00, 0x03, 0x1c, 0x84, 0x03, 0x1c],
            &[0x02],
            &[],
            &[0x01, 0x05, b'x'],
            &[0x00, 0x03],
            &[0x00, 0x00, 0x00],
        ] {
            let e = decode_body(body).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::CorruptRecord, "{body:02x?}");
        }
    }

    #[test]
    fn comments_read_as_the_pgn_parser_gives_them() {
        // Found by fuzzing (the pgn target): runs of spaces were collapsed to one, so a comment
        // saved with two spaces read back with one, unlike the same game in SCID. Line breaks
        // and tabs are spaces and the ends are trimmed, as the PGN parser gives comments.
        let mut body = vec![0x00, 0x03, 0x1c, COMMENT];
        let comment = b"\ta  double\r\nspace  ";
        body.push(comment.len() as u8);
        body.extend(comment);
        let (_, line) = decode_body(&body).unwrap();
        assert_eq!(line.moves[0].comment.as_deref(), Some("a  double  space"));
        let (again, losses) = encode_body(&StartPosition::Standard, &line).unwrap();
        assert!(losses.is_empty());
        assert_eq!(decode_body(&again).unwrap().1, line);
    }
}
