//! Movetext: moves, variations, comments and NAGs into the game tree, with an explicit stack
//! so any nesting depth is fine.

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{Chess, Color, Position};

use crate::game::legal;
use crate::game::replay::{fen_of, play_in_place};
use crate::game::{GameResult, Line, MoveNode, Ply};

use super::*;

/// A line being built: the main line or an open variation.
pub(super) struct Frame {
    pub(super) line: Line,
    /// The position after the line's last move.
    pub(super) pos: Chess,
    /// The position before the line's last move (None while the line has no move).
    pub(super) before: Option<Chess>,
    /// Where the variation's `(` is (the game start for the main line).
    pub(super) open: Pos,
    /// Variations of the last move have been closed since it was played.
    pub(super) after_variation: bool,
}

impl Frame {
    pub(super) fn new(pos: Chess, open: Pos) -> Frame {
        Frame {
            line: Line::default(),
            pos,
            before: None,
            open,
            after_variation: false,
        }
    }

    /// `12. Nf3`, `12... Nf6` or `12. --`: the last move, for messages.
    pub(super) fn last_move_text(&self) -> String {
        match (&self.before, self.line.moves.last()) {
            (Some(before), Some(node)) => move_text(before, &node.ply),
            _ => "the start".to_string(),
        }
    }
}

pub(super) fn move_text(before: &Chess, ply: &Ply) -> String {
    let number = before.fullmoves();
    let dots = if before.turn() == Color::White {
        "."
    } else {
        "..."
    };
    let san = match ply {
        Ply::Move(m) => SanPlus::from_move(before.clone(), *m).to_string(),
        Ply::Null => "--".to_string(),
    };
    format!("{number}{dots} {san}")
}

/// The main-line moves room is made for up front (most games are shorter).
pub(super) const MAIN_LINE_CAPACITY: usize = 256;

pub(super) fn parse_movetext(
    lx: &mut Lexer<'_>,
    start: Chess,
    game_start: usize,
) -> Result<(Line, Option<(GameResult, Pos)>), ParseError> {
    let mut stack = vec![Frame::new(start, lx.at)];
    // Room for a typical main line at once, not grown move by move.
    stack[0].line.moves.reserve(MAIN_LINE_CAPACITY);
    let marker = match read_moves(lx, &mut stack, game_start) {
        Ok(marker) => marker,
        Err(Stop::AsScid(e)) if lx.keep_cut => super::cut::cut_at(lx, e, &mut stack),
        Err(Stop::AsScid(e) | Stop::Refused(e)) => return Err(e),
    };
    if stack.len() > 1 && lx.keep_cut {
        // SCID's import keeps the game as it stands, its variations open.
        let open = stack[1].open;
        lx.changed(open, || {
            Some(format!(
                "column {}: the variation opened here is never closed: closed at the game's end",
                open.col
            ))
        });
        super::cut::close_variations(&mut stack);
    }
    if stack.len() > 1
        && let Some(top) = stack.last()
    {
        return Err(invalid(
            top.open,
            "variation opened here is never closed with ')'".to_string(),
        ));
    }
    let mut line = stack.pop().map(|f| f.line).unwrap_or_default();
    // The room made up front is given back: a parsed game may wait in memory with thousands
    // of others (an import parses ahead of writing), and 256 moves of room is 20 KiB each.
    line.moves.shrink_to_fit();
    Ok((line, marker))
}

/// Why a movetext stopped reading.
pub(super) enum Stop {
    /// Where SCID's import stops reading the game too (a move it cannot read or play, a
    /// variation it cannot open or close, a stray bracket or quote): the game can be kept cut
    /// there, as SCID keeps it.
    AsScid(ParseError),
    /// Where SCID's import reads on (or stops the whole import, for a game too large): the
    /// game is refused.
    Refused(ParseError),
}

impl From<ParseError> for Stop {
    /// An error SCID's import reads past, or that is no error to it.
    fn from(e: ParseError) -> Stop {
        Stop::Refused(e)
    }
}

/// The moves, comments, NAGs and variations of a movetext into `stack` (the main line, then
/// the variations open), up to its termination marker (returned) or a `[` or the text's end.
fn read_moves(
    lx: &mut Lexer<'_>,
    stack: &mut Vec<Frame>,
    game_start: usize,
) -> Result<Option<(GameResult, Pos)>, Stop> {
    let mut nodes = 0usize;
    let mut count_node = |at: Pos| {
        nodes += 1;
        if nodes > MAX_GAME_NODES {
            Err(too_large(
                at,
                format!(
                    "the game has more than {MAX_GAME_NODES} moves and variations; a SCID 4 \
                     game record holds fewer"
                ),
            ))
        } else {
            Ok(())
        }
    };
    let marker = loop {
        lx.skip_space();
        let at = lx.at;
        if at.offset - game_start > MAX_GAME_BYTES {
            return Err(game_too_large(at).into());
        }
        let Some(b) = lx.peek() else { break None };
        let Some(top) = stack.last_mut() else {
            break None;
        };
        match b {
            b'[' => break None,
            b'{' => {
                let raw = match lx.brace_comment() {
                    // SCID's lexer reads a comment never closed to the end of the text.
                    Err(_) if lx.keep_cut => {
                        lx.changed(at, || {
                            Some(format!(
                                "column {}: a comment never closed, read to the end of the text",
                                at.col
                            ))
                        });
                        &lx.text[at.offset + 1..]
                    }
                    read => read?,
                };
                if lx.at.offset - game_start > MAX_GAME_BYTES {
                    return Err(game_too_large(at).into());
                }
                add_comment(top, raw, at, lx)?;
            }
            b';' => {
                lx.bump();
                let raw = line_comment(lx, at)?;
                add_comment(top, &raw, at, lx)?;
            }
            b'(' => {
                lx.bump();
                let Some(before) = top.before.clone() else {
                    return Err(Stop::AsScid(invalid(
                        at,
                        "a variation must follow the move it replaces, but this line has no move yet".to_string(),
                    )));
                };
                count_node(at)?;
                stack.push(Frame::new(before, at));
            }
            b')' => {
                lx.bump();
                if stack.len() < 2 {
                    return Err(Stop::AsScid(invalid(
                        at,
                        "')' without a matching '('".to_string(),
                    )));
                }
                if let Some(child) = stack.pop()
                    && let Some(parent) = stack.last_mut()
                    && let Some(node) = parent.line.moves.last_mut()
                {
                    node.variations.push(child.line);
                    parent.after_variation = true;
                }
            }
            b'$' => {
                lx.bump();
                let digits = lx.take_while(|b| b.is_ascii_digit());
                if digits.is_empty() {
                    return Err(
                        invalid(at, "'$' must be followed by a NAG number".to_string()).into(),
                    );
                }
                let n = nag_number(digits)
                    .ok_or_else(|| invalid(at, format!("NAG ${} is above $255", decode(digits))))?;
                add_nag(top, n, at, lx)?;
            }
            b'}' | b']' => {
                lx.bump();
                return Err(Stop::AsScid(invalid(
                    at,
                    format!("'{}' without a matching opening bracket", char::from(b)),
                )));
            }
            // SCID's lexer steps over them (HTML line breaks in PGN pasted from web pages).
            b'<' | b'>' if lx.keep_cut => lx.bump(),
            _ => {
                let mut word = lx.word();
                if lx.keep_cut
                    && let Some(k) = word.iter().position(|&b| matches!(b, b'<' | b'>' | b'*'))
                    && k > 0
                {
                    // SCID's lexer ends a token there: `Nc6<br>` is `Nc6`, then `br`; `a5*`
                    // is `a5`, then the game's end.
                    lx.at = at;
                    lx.advance_on_line(at.offset + k);
                    word = &word[..k];
                }
                if word.is_empty() {
                    // A lone '"': nothing a movetext can hold.
                    lx.bump();
                    return Err(Stop::AsScid(invalid(
                        at,
                        format!("unexpected '{}'", char::from(b)),
                    )));
                }
                let marker = marker_as_read(word, lx.reading);
                if let Some(r) = marker {
                    if stack.len() > 1 && !lx.keep_cut {
                        return Err(marker_in_variation(at, r).into());
                    }
                    if stack.len() > 1 {
                        // SCID's import ends the game there, its variations open.
                        lx.changed(at, || {
                            Some(format!(
                                "the game ends with \"{}\" inside a variation: the variations open there closed",
                                r.as_pgn()
                            ))
                        });
                        super::cut::close_variations(stack);
                    }
                    break Some((r, at));
                }
                let plies = top.line.moves.len();
                handle_word(top, word, at, lx)?;
                if top.line.moves.len() > plies {
                    count_node(at)?;
                }
            }
        }
    };
    Ok(marker)
}

/// The NAG the digits after a `$` give, `None` above $255.
pub(super) fn nag_number(digits: &[u8]) -> Option<u8> {
    if digits.len() > 3 {
        return None;
    }
    u8::try_from(
        digits
            .iter()
            .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0')),
    )
    .ok()
}

/// The error of termination marker `r` at `at`, inside a variation.
fn marker_in_variation(at: Pos, r: GameResult) -> ParseError {
    invalid(
        at,
        format!(
            "the game ends with \"{}\" inside a variation; close it with ')' first",
            r.as_pgn()
        ),
    )
}

/// A movetext word without the move number it starts with (`12.`, `12...`; a word of digits
/// alone is a move number).
fn without_move_number(word: &[u8]) -> &[u8] {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    let dots = word[digits..].iter().take_while(|&&b| b == b'.').count();
    if digits == word.len() || dots > 0 {
        &word[digits + dots..]
    } else {
        word
    }
}

/// Whether a movetext word may be one [`handle_word`] takes, by its first character after a
/// move number: a move (a file, a piece, castling, a pawn, and what shakmaty's SAN reading
/// also takes: a pawn capture without its file `xd5`, a rank `3xe4`, the null move `Z0`), a
/// null move (`--`, and `null` as SCID reads it), a symbol (`!?`, `+-`, `=`), or nothing.
/// Cheap, and false for most words of text that is no PGN; never false for a word a reading
/// takes (the `pgn` fuzz target checks that skimming refuses no game reading takes).
fn could_be_a_move(word: &[u8]) -> bool {
    let rest = without_move_number(word);
    match rest.first() {
        None => true,
        Some(b'n') => rest.starts_with(b"null"),
        Some(&b) => {
            matches!(
                b,
                b'a'..=b'h'
                    | b'K'
                    | b'Q'
                    | b'R'
                    | b'B'
                    | b'N'
                    | b'P'
                    | b'O'
                    | b'o'
                    | b'0'..=b'8'
                    | b'x'
                    | b'Z'
                    | b'-'
                    | b'!'
                    | b'?'
                    | b'='
                    | b'+'
            )
        }
    }
}

/// The movetext of a game skimmed, not read ([`Games::skimming`]): where it ends (at a
/// termination marker, returned, or before a `[` or at the text's end, as
/// [`parse_movetext`] ends it) and what makes it unreadable whatever its moves are (a comment
/// never closed, a bracket without its match, a termination marker inside a variation, a word
/// that is no move). The bytes are scanned directly (comments found with `memchr`); the lexer's
/// line and column are brought up to date only where the scan stops.
pub(super) fn skim_movetext(
    lx: &mut Lexer<'_>,
    game_start: usize,
) -> Result<Option<(GameResult, Pos)>, ParseError> {
    let text = lx.text;
    let mut i = lx.at.offset;
    // Where each open variation's '(' stands.
    let mut open: Vec<usize> = Vec::new();
    let limit = game_start.saturating_add(MAX_GAME_BYTES);
    let marker = loop {
        i = skip_moves(text, i, limit);
        while let Some(&b) = text.get(i) {
            if is_space(b) {
                i += 1;
            } else if b == b'%' && (i == 0 || text[i - 1] == b'\n') {
                // An escape line.
                i = memchr::memchr(b'\n', &text[i..]).map_or(text.len(), |n| i + n);
            } else {
                break;
            }
        }
        if i - game_start > MAX_GAME_BYTES {
            lx.advance_to(i);
            return Err(game_too_large(lx.at));
        }
        let Some(&b) = text.get(i) else {
            lx.advance_to(i);
            break None;
        };
        match b {
            b'[' => {
                lx.advance_to(i);
                break None;
            }
            b'{' => match memchr::memchr(b'}', &text[i + 1..]) {
                Some(n) => i += n + 2,
                None => {
                    lx.advance_to(i);
                    lx.brace_comment()?;
                }
            },
            b';' => {
                lx.advance_to(i);
                let at = lx.at;
                lx.bump();
                line_comment(lx, at)?;
                i = lx.at.offset;
            }
            b'(' => {
                open.push(i);
                i += 1;
            }
            b')' => {
                if open.pop().is_none() {
                    lx.advance_to(i);
                    return Err(invalid(lx.at, "')' without a matching '('".to_string()));
                }
                i += 1;
            }
            b'$' => {
                i += 1;
                // The NAG's number is its digits, as a whole reading takes it: what follows
                // them is a word of its own (`$2*` ends the game).
                let digits = text[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 {
                    lx.advance_to(i - 1);
                    return Err(invalid(
                        lx.at,
                        "'$' must be followed by a NAG number".to_string(),
                    ));
                }
                i += digits;
            }
            b'}' | b']' => {
                lx.advance_to(i);
                return Err(invalid(
                    lx.at,
                    format!("'{}' without a matching opening bracket", char::from(b)),
                ));
            }
            _ => {
                let len = text[i..]
                    .iter()
                    .position(|&b| WORD_ENDS[usize::from(b)])
                    .unwrap_or(text.len() - i);
                let word = &text[i..i + len];
                if word.is_empty() {
                    lx.advance_to(i);
                    return Err(invalid(lx.at, format!("unexpected '{}'", char::from(b))));
                }
                // Every marker starts so (most words are moves: compared no further).
                let may_end = matches!(word[0], b'0' | b'1' | b'*');
                if let Some(r) = may_end.then(|| marker_as_read(word, lx.reading)).flatten() {
                    lx.advance_to(i);
                    let at = lx.at;
                    lx.advance_to(i + len);
                    if !open.is_empty() {
                        return Err(marker_in_variation(at, r));
                    }
                    break Some((r, at));
                }
                if !could_be_a_move(word) {
                    lx.advance_to(i);
                    let at = lx.at;
                    lx.advance_to(i + len);
                    return Err(invalid(
                        at,
                        format!("\"{}\" is no move, move number or symbol", decode(word)),
                    ));
                }
                i += len;
            }
        }
    };
    if let Some(&at) = open.last() {
        let pos = lx.pos_of(at);
        return Err(invalid(
            pos,
            "variation opened here is never closed with ')'".to_string(),
        ));
    }
    Ok(marker)
}

#[cfg(test)]
thread_local! {
    /// Whether [`skip_moves`] steps over nothing on this thread: [`skim_movetext`] looks at
    /// every token itself (what the stepping over must not change).
    pub(super) static LOOK_AT_ALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How [`skip_moves`] takes a byte that starts a token.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Whitespace: stepped over.
    Blank,
    /// The first byte of a word [`could_be_a_move`] takes that is no termination marker.
    Move,
    /// A digit: a move number, stepped over when it is one.
    Digit,
    /// Anything else: for [`skim_movetext`] to look at.
    Look,
}

/// How each byte starts a token ([`skip_moves`]).
#[cfg(any(test, not(target_arch = "x86_64")))]
const SKIP: [Skip; 256] = {
    let mut table = [Skip::Look; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if is_space(c) {
            Skip::Blank
        } else if c.is_ascii_digit() {
            Skip::Digit
        } else if matches!(
            c,
            b'a'..=b'h' | b'K' | b'Q' | b'R' | b'B' | b'N' | b'P' | b'O' | b'o'
        ) || matches!(c, b'-' | b'!' | b'?' | b'=' | b'+')
        {
            Skip::Move
        } else {
            Skip::Look
        };
        b += 1;
    }
    table
};

/// From byte `i` of a game's movetext, past what [`skim_movetext`] would only step over —
/// whitespace, words that [`could_be_a_move`] takes and no termination marker is (`Nf3`,
/// `12.`, `12...e5`, `7`), and `{` comments closed later (a lichess game has one a move) — to
/// the first byte it must look at itself (a bracket, a comment never closed, an escape line,
/// a marker, a word to refuse, the text's end, or any word or comment that starts after byte
/// `limit`, where a game is too long). Most of a game's movetext is
/// stepped over here: 64 bytes at a time where the processor compares 16 bytes at once
/// ([`skip_moves_in_blocks`]), else a table lookup a byte ([`skip_moves_bytewise`]).
fn skip_moves(text: &[u8], i: usize, limit: usize) -> usize {
    #[cfg(test)]
    if LOOK_AT_ALL.with(std::cell::Cell::get) {
        return i;
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[cfg(test)]
        if BYTEWISE.with(std::cell::Cell::get) {
            return skip_moves_bytewise(text, i, limit);
        }
        skip_moves_in_blocks(text, i, limit)
    }
    #[cfg(not(target_arch = "x86_64"))]
    skip_moves_bytewise(text, i, limit)
}

/// [`skip_moves`] a byte at a time: each word's first byte looked up in a table, each move
/// number's digits and dots looked at (what [`skip_moves_in_blocks`] must agree with).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn skip_moves_bytewise(text: &[u8], mut i: usize, limit: usize) -> usize {
    let word_end = |from: usize| {
        text[from..]
            .iter()
            .position(|&b| WORD_ENDS[usize::from(b)])
            .map_or(text.len(), |n| from + n)
    };
    let ends_word = |at: usize| text.get(at).is_none_or(|&b| WORD_ENDS[usize::from(b)]);
    while let Some(&b) = text.get(i) {
        match SKIP[usize::from(b)] {
            Skip::Blank => i += 1,
            _ if i > limit => return i,
            Skip::Move => i = word_end(i + 1),
            Skip::Digit => {
                let mut j = i + 1;
                while text.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
                let dots = text[j..].iter().take_while(|&&b| b == b'.').count();
                j += dots;
                if ends_word(j) {
                    // A move number, or digits alone.
                    i = j;
                } else if dots > 0 && SKIP[usize::from(text[j])] == Skip::Move {
                    i = word_end(j + 1);
                } else {
                    return i;
                }
            }
            // A comment closed later is stepped over whole.
            Skip::Look if b == b'{' => match memchr::memchr(b'}', &text[i + 1..]) {
                Some(n) => i += n + 2,
                None => return i,
            },
            Skip::Look => return i,
        }
    }
    i
}

#[cfg(test)]
thread_local! {
    /// Whether [`skip_moves`] steps over moves a byte at a time on this thread
    /// ([`skip_moves_bytewise`], what stepping 64 bytes at a time must not change).
    pub(super) static BYTEWISE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The kinds of bytes of a 64-byte block [`skip_moves_in_blocks`] tells apart, a bit a byte
/// (bit k for byte k).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Kinds {
    /// Whitespace, exactly as [`is_space`] says.
    blank: u64,
    /// The bytes that end a word other than whitespace (`{ } ( ) [ ] ; $ "`), and a few
    /// more (`=`, control bytes 0x1B and 0x1D): where the scan stops, at the word around it.
    stop: u64,
    /// Bytes a move may start with ([`Skip::Move`]: a file, `K Q R B N O`; the rarer ones
    /// are left out, their words looked at by [`skim_movetext`]).
    move_start: u64,
    /// `0`–`9`.
    digit: u64,
    /// `.`.
    dot: u64,
    /// `{`, which opens a comment outside one.
    open: u64,
    /// `}`, which closes a comment inside one.
    close: u64,
}

/// The byte classes [`kinds_avx2`] looks up, one bit of a class byte each: a set of bytes
/// made of a set of high nibbles and a set of low nibbles (bit n of a mask: nibble n), so that
/// a byte's class byte is its low nibble's entry AND its high nibble's entry.
#[cfg(target_arch = "x86_64")]
const NIBBLE_CLASSES: [(u16, u16); 8] = [
    (1 << 0x2, 1),                                         // blank: ' '
    (1, 0b1_1111 << 0x9),                                  // blank: \t \n 0x0B 0x0C \r
    (1 << 0x3, 0x3FF),                                     // digit
    (0b1010_1010, 1 << 0xB | 1 << 0xD),                    // stop: 0x1B ; [ { and 0x1D = ] }
    (1 << 0x2, 1 << 0x2 | 1 << 0x4 | 1 << 0x8 | 1 << 0x9), // stop: " $ ( )
    (1 << 0x6, 0xFF << 1),                                 // move start: a-h
    (1 << 0x4, 1 << 0x2 | 1 << 0xB | 1 << 0xE | 1 << 0xF), // move start: B K N O
    (1 << 0x5, 1 << 0x1 | 1 << 0x2),                       // move start: Q R
];

/// The class bits of [`NIBBLE_CLASSES`] that make each kind.
#[cfg(target_arch = "x86_64")]
const BLANK_CLASSES: u8 = 0b11;
#[cfg(target_arch = "x86_64")]
const DIGIT_CLASSES: u8 = 0b100;
#[cfg(target_arch = "x86_64")]
const STOP_CLASSES: u8 = 0b1_1000;
#[cfg(target_arch = "x86_64")]
const MOVE_START_CLASSES: u8 = 0b1110_0000;

/// The entry of each nibble value (the high nibbles' with `high`) for [`NIBBLE_CLASSES`].
#[cfg(target_arch = "x86_64")]
const fn nibble_table(high: bool) -> [u8; 16] {
    let mut table = [0u8; 16];
    let mut class = 0;
    while class < NIBBLE_CLASSES.len() {
        let (highs, lows) = NIBBLE_CLASSES[class];
        let set = if high { highs } else { lows };
        let mut nibble = 0;
        while nibble < 16 {
            if set >> nibble & 1 == 1 {
                table[nibble] |= 1 << class;
            }
            nibble += 1;
        }
        class += 1;
    }
    table
}

/// [`kinds_sse2`], 32 bytes at a time (AVX2), the classes looked up by nibble (two table
/// look-ups a byte, `vpshufb`) instead of compared one by one: the same kinds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn kinds_avx2(block: &[u8; 64]) -> Kinds {
    use std::arch::x86_64::*;
    const LOW: [u8; 16] = nibble_table(false);
    const HIGH: [u8; 16] = nibble_table(true);
    // SAFETY: each table holds the 16 bytes an unaligned 128-bit load reads.
    let (low, high) = unsafe {
        (
            _mm256_broadcastsi128_si256(_mm_loadu_si128(LOW.as_ptr().cast())),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(HIGH.as_ptr().cast())),
        )
    };
    let nibble = _mm256_set1_epi8(0x0F);
    let mut k = Kinds::default();
    for (part, bytes) in block.chunks_exact(32).enumerate() {
        // SAFETY: `bytes` holds the 32 bytes an unaligned load reads.
        let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) };
        let classes = _mm256_and_si256(
            _mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble)),
            _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)),
        );
        let bits = |m: i32| u64::from(m as u32) << (32 * part);
        // The bytes of any of the `set` classes: those whose class byte is not 0 there.
        let any = |set: u8| {
            let none = _mm256_and_si256(classes, _mm256_set1_epi8(set as i8));
            bits(!_mm256_movemask_epi8(_mm256_cmpeq_epi8(
                none,
                _mm256_setzero_si256(),
            )))
        };
        let is = |c: u8| {
            bits(_mm256_movemask_epi8(_mm256_cmpeq_epi8(
                v,
                _mm256_set1_epi8(c as i8),
            )))
        };
        k.blank |= any(BLANK_CLASSES);
        k.stop |= any(STOP_CLASSES);
        k.move_start |= any(MOVE_START_CLASSES);
        k.digit |= any(DIGIT_CLASSES);
        k.dot |= is(b'.');
        k.open |= is(b'{');
        k.close |= is(b'}');
    }
    k
}

/// The [`Kinds`] of `block`'s bytes, compared 16 at a time (SSE2, which every x86-64
/// processor has): each kind's bytes compared one by one, or as a range.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn kinds_sse2(block: &[u8; 64]) -> Kinds {
    use std::arch::x86_64::*;
    let mut k = Kinds::default();
    for (part, bytes) in block.chunks_exact(16).enumerate() {
        // SAFETY: `bytes` holds the 16 bytes an unaligned load reads.
        let v = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
        let is = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        // `lo <= byte <= hi`, unsigned.
        let within = |lo: u8, hi: u8| {
            let t = _mm_sub_epi8(v, _mm_set1_epi8(lo as i8));
            _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8((hi - lo) as i8)), t)
        };
        // The byte with the bits of `set` set is `c`.
        let is_with = |set: u8, c: u8| {
            _mm_cmpeq_epi8(
                _mm_or_si128(v, _mm_set1_epi8(set as i8)),
                _mm_set1_epi8(c as i8),
            )
        };
        let or = |a, b| _mm_or_si128(a, b);
        let blank = or(is(b' '), within(0x09, 0x0D));
        // `{ [ ;` (and 0x1B), `} ]` (and `=`, 0x1D), `( )`, `"`, `$`.
        let parens = _mm_cmpeq_epi8(
            _mm_and_si128(v, _mm_set1_epi8(!1)),
            _mm_set1_epi8(b'(' as i8),
        );
        let stop = or(
            or(is_with(0x60, b'{'), is_with(0x60, b'}')),
            or(parens, or(is(b'"'), is(b'$'))),
        );
        let pieces = or(
            or(or(is(b'K'), is(b'Q')), or(is(b'R'), is(b'B'))),
            or(is(b'N'), is(b'O')),
        );
        let move_start = or(within(b'a', b'h'), pieces);
        let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * part);
        k.blank |= bits(blank);
        k.stop |= bits(stop);
        k.move_start |= bits(move_start);
        k.digit |= bits(within(b'0', b'9'));
        k.dot |= bits(is(b'.'));
        k.open |= bits(is(b'{'));
        k.close |= bits(is(b'}'));
    }
    k
}

/// The bits from bit `from` to bit `to`, both included, each given as a mask of that bit
/// alone (`from` at or below `to`): twice `to` less `from`, without shifting by a count.
#[cfg(target_arch = "x86_64")]
fn bits_between(from: u64, to: u64) -> u64 {
    (to << 1).wrapping_sub(from)
}

/// The lowest bit of `bits` alone (0 for none).
#[cfg(target_arch = "x86_64")]
fn lowest(bits: u64) -> u64 {
    bits & bits.wrapping_neg()
}

/// The bytes of the 64-byte block at text offset `base` that are inside `{` comments, braces
/// included (each comment ends at the first `}` after its `{`), and the `{` where the scan
/// must stop instead: the first one past `limit` (`past_limit`, the bits past it), where
/// [`skim_movetext`] refuses a game too long. `open_at` is where a comment still open at the
/// block's start opened, and becomes where one still open at its end did. Past a byte the
/// scan stops at, what this says no longer matters.
#[cfg(target_arch = "x86_64")]
fn comments(k: &Kinds, base: usize, open_at: &mut Option<usize>, past_limit: u64) -> (u64, u64) {
    const FIRST: u64 = 1;
    const LAST: u64 = 1 << 63;
    let mut inside = 0;
    let mut opens = k.open;
    if open_at.is_some() {
        // The comment goes on from the block before: up to its first `}`.
        if k.close == 0 {
            return (!0, 0);
        }
        inside = bits_between(FIRST, lowest(k.close));
        *open_at = None;
        // A `{` inside the comment going on is its text.
        opens &= !inside;
    }
    let mut stop = 0;
    while opens != 0 {
        let open = lowest(opens);
        if past_limit & open != 0 {
            // Where a game too long is refused.
            stop = open;
            break;
        }
        let closes = k.close & !bits_between(FIRST, open);
        if closes == 0 {
            inside |= bits_between(open, LAST);
            *open_at = Some(base + open.trailing_zeros() as usize);
            break;
        }
        let comment = bits_between(open, lowest(closes));
        inside |= comment;
        opens &= !(comment | (open - 1));
    }
    (inside, stop)
}

/// [`skip_moves`] 64 bytes at a time: the bytes' [`Kinds`] found at once, then, with bit
/// arithmetic over the block, the words that start with a byte other than a move's or a
/// digit, the move numbers (digits, dots, then whitespace or a move: each digit run's end
/// found by adding its first bit to it), and the bytes that stop a word. At the first such
/// place the scan stops at the start of the word holding it (stopping there early is safe:
/// [`skim_movetext`] looks at the word itself, as [`LOOK_AT_ALL`] tests); a move number that
/// runs past the block is looked at there too. A block past the text's end is filled with
/// spaces, as if the text ended in whitespace (which is what its end does to a word).
///
/// The bytes' kinds are found 32 at a time where the processor has AVX2 (most since 2013),
/// else 16 at a time ([`kinds_sse2`]); the scan is compiled for each, so that the kinds stay
/// in registers.
#[cfg(target_arch = "x86_64")]
pub(super) fn skip_moves_in_blocks(text: &[u8], i: usize, limit: usize) -> usize {
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (asked just above).
        unsafe { skip_moves_in_blocks_avx2(text, i, limit) }
    } else {
        // SAFETY: SSE2 is part of x86-64 itself: every x86-64 processor has it.
        scan_blocks(text, i, limit, |block| unsafe { kinds_sse2(block) })
    }
}

/// [`skip_moves_in_blocks`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn skip_moves_in_blocks_avx2(text: &[u8], i: usize, limit: usize) -> usize {
    scan_blocks(text, i, limit, |block| kinds_avx2(block))
}

/// [`skip_moves_in_blocks`], each block's [`Kinds`] found by `kinds`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn scan_blocks(text: &[u8], i: usize, limit: usize, kinds: impl Fn(&[u8; 64]) -> Kinds) -> usize {
    let mut base = i;
    // Whether the byte before `base` ends a word (`i` starts one).
    let mut after_blank = true;
    // The start of the last word seen.
    let mut last_start = i;
    // Where the comment open at `base` opened.
    let mut open_comment = None;
    while base < text.len() {
        let k = match text.get(base..base + 64) {
            Some(block) => kinds(block.try_into().unwrap_or(&[b' '; 64])),
            None => {
                // The text's end: the rest, then spaces.
                let mut block = [b' '; 64];
                block[..text.len() - base].copy_from_slice(&text[base..]);
                kinds(&block)
            }
        };
        let past_limit = match limit.checked_sub(base) {
            None => !0,
            Some(d) if d >= 63 => 0,
            Some(d) => !0 << (d + 1),
        };
        // Comments are whitespace here, what they hold ignored.
        let (comment, comment_stop) = comments(&k, base, &mut open_comment, past_limit);
        let blank = k.blank | comment;
        let (digit, dot) = (k.digit & !comment, k.dot & !comment);
        let starts = !blank & (blank << 1 | u64::from(after_blank));
        let digit_starts = starts & digit;
        // Just after each move number's digits, and after its dots.
        let (sum, digits_out) = digit.overflowing_add(digit_starts);
        let after_digits = sum & !digit;
        let dots_start = after_digits & dot;
        let (sum, dots_out) = dot.overflowing_add(dots_start);
        let after_dots = sum & !dot;
        let highest = |m: u64| {
            if m == 0 {
                0
            } else {
                1 << (63 - m.leading_zeros())
            }
        };
        // A move number that runs past the block.
        let overflow = if digits_out { highest(digit_starts) } else { 0 }
            | if dots_out { highest(dots_start) } else { 0 };
        let stop = (k.stop & !comment)
            | comment_stop
            | (starts & !(k.move_start | digit))
            | (after_digits & !(blank | dot))
            | (after_dots & !(blank | k.move_start))
            | (starts & past_limit)
            | overflow;
        if stop != 0 {
            let at = stop.trailing_zeros();
            // The starts at or before the stop.
            let word = match starts & (!0 >> (63 - at)) {
                0 => last_start,
                b => base + (63 - b.leading_zeros() as usize),
            };
            if (stop & !overflow) >> at & 1 == 1 || word <= base {
                return word;
            }
            // Only a move number running past the block, which starts in it after its first
            // byte: the next block starts with it (a move number between lichess's clock
            // comments runs past one block in four). It is outside a comment, up to the end.
            base = word;
            after_blank = true;
            last_start = word;
            open_comment = None;
            continue;
        }
        if starts != 0 {
            last_start = base + (63 - starts.leading_zeros() as usize);
        }
        after_blank = blank >> 63 == 1;
        base += 64;
    }
    // A comment never closed is for `skim_movetext` to refuse.
    open_comment.unwrap_or(text.len())
}

/// A comment: to the line's start if it has no move yet, else to its last move.
pub(super) fn add_comment(
    frame: &mut Frame,
    raw: &[u8],
    at: Pos,
    lx: &mut Lexer<'_>,
) -> Result<(), ParseError> {
    let text = comment_as_read(raw, at, lx.reading)?;
    if text.is_empty() {
        // `{}` says nothing; SCID keeps no empty comments either.
        return Ok(());
    }
    let taken = match frame.line.moves.last() {
        None => frame.line.comment.is_some(),
        Some(node) => node.comment.is_some(),
    };
    if taken && lx.reading.loose() {
        // SCID joins them, with nothing between.
        let slot = match frame.line.moves.last_mut() {
            None => &mut frame.line.comment,
            Some(node) => &mut node.comment,
        };
        if let Some(comment) = slot {
            comment.push_str(&text);
        }
        lx.changed(at, || Some("two comments in one place joined".to_string()));
        return Ok(());
    }
    if taken {
        let where_ = frame.last_move_text();
        let message = if frame.line.moves.is_empty() {
            "a second comment before the first move of this line; join them into one comment"
                .to_string()
        } else if frame.after_variation {
            format!(
                "this comment after a variation belongs to {where_}, which already has a comment; join them into one comment"
            )
        } else {
            format!("a second comment after {where_}; join them into one comment")
        };
        return Err(invalid(at, message));
    }
    let slot = match frame.line.moves.last_mut() {
        None => &mut frame.line.comment,
        Some(node) => &mut node.comment,
    };
    *slot = Some(text);
    Ok(())
}

/// NAG `nag`, found at `at`, to the line's last move. Before the line's first move (a variation
/// opened with Chess Informant's "better is", `($142 38... b5)`, or the game's first move) no
/// move holds it: refused, or as SCID's import reads it dropped, as SCID drops it (its
/// `Game::AddNag` gives it to the line's start, which its records do not keep).
pub(super) fn add_nag(
    frame: &mut Frame,
    nag: u8,
    at: Pos,
    lx: &mut Lexer<'_>,
) -> Result<(), ParseError> {
    if nag == 0 {
        return Err(invalid(
            at,
            "NAG $0 means nothing and SCID does not store it; remove it".to_string(),
        ));
    }
    let Some(node) = frame.line.moves.last_mut() else {
        if lx.reading.as_scid() {
            lx.salvaged(at, || {
                Some(format!(
                    "column {}: NAG ${nag} before the first move of its line dropped, as SCID's import drops it",
                    at.col
                ))
            });
            return Ok(());
        }
        return Err(invalid(
            at,
            "an annotation (NAG) must follow a move, but this line has no move yet".to_string(),
        ));
    };
    node.nags.push(nag);
    Ok(())
}

/// Suffix annotations and the symbols SCID converts to NAGs (`+=`, `-+`, `N`, …).
pub(super) fn symbol_nag(s: &[u8]) -> Option<u8> {
    Some(match s {
        b"!" => 1,
        b"?" => 2,
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        b"=" => 10,
        b"+=" => 14,
        b"=+" => 15,
        b"+/-" => 16,
        b"-/+" => 17,
        b"+-" => 18,
        b"-+" => 19,
        b"N" => 146,
        _ => return None,
    })
}

/// A movetext word: move number, move (with suffix annotation), null move or symbol.
pub(super) fn handle_word(
    frame: &mut Frame,
    word: &[u8],
    at: Pos,
    lx: &mut Lexer<'_>,
) -> Result<(), Stop> {
    let reading = lx.reading;
    let rest = without_move_number(word);
    if rest.is_empty() {
        return Ok(());
    }
    if rest == b"--" {
        if frame.pos.is_check() {
            return Err(invalid(
                at,
                format!(
                    "a null move (--) is not possible while in check, at move {} (position {})",
                    frame.pos.fullmoves(),
                    fen_of(&frame.pos)
                ),
            )
            .into());
        }
        push_move(frame, Ply::Null);
        return Ok(());
    }
    if let Some(n) = symbol_nag(rest) {
        return Ok(add_nag(frame, n, at, lx)?);
    }
    if rest == b"e.p." {
        return Ok(());
    }
    let split = rest
        .iter()
        .position(|&b| b == b'!' || b == b'?')
        .unwrap_or(rest.len());
    let (san_text, suffix) = rest.split_at(split);
    let suffix_nag = if suffix.is_empty() {
        None
    } else {
        Some(symbol_nag(suffix).filter(|n| *n <= 6).ok_or_else(|| {
            let e = invalid(
                at,
                format!(
                    "\"{}\" is not an annotation (use !, ?, !!, ??, !? or ?!)",
                    decode(suffix)
                ),
            );
            // SCID reads on past a suffix it does not know (`!!!`), not past a word after
            // one (`!DOCTYPE`, which it cannot read as a move).
            match suffix.iter().all(|&b| b == b'!' || b == b'?') {
                true => Stop::Refused(e),
                false => Stop::AsScid(e),
            }
        })?)
    };
    if reading.as_scid() && scid_null_move(san_text) && !frame.pos.is_check() {
        push_move(frame, Ply::Null);
        if san_text != b"--" {
            lx.salvaged(at, || {
                Some(format!(
                    "column {}: \"{}\" read as a null move (--), as SCID reads it",
                    at.col,
                    decode(san_text)
                ))
            });
        }
        return Ok(suffix_nag.map_or(Ok(()), |n| add_nag(frame, n, at, lx))?);
    }
    // `exd6ep` (en passant marked), `Nh3++` (double check): the move is the same.
    let san_text = san_text
        .strip_suffix(b"ep")
        .filter(|t| t.last().is_some_and(u8::is_ascii_digit))
        .unwrap_or(san_text);
    let san_text = san_text
        .strip_suffix(b"++")
        .map_or(san_text, |t| &san_text[..t.len() + 1]);
    if let Some(m) = coordinate_move(san_text, &frame.pos) {
        push_move(frame, Ply::Move(m));
        return Ok(suffix_nag.map_or(Ok(()), |n| add_nag(frame, n, at, lx))?);
    }
    let castles_with_zeros = san_text.starts_with(b"0-0") || san_text.starts_with(b"o-o");
    let san_bytes: std::borrow::Cow<[u8]> = if castles_with_zeros {
        san_text
            .iter()
            .map(|&b| if b == b'0' || b == b'o' { b'O' } else { b })
            .collect()
    } else if let Some(piece_at) = promotion_without_equals(san_text) {
        // `e8Q` for `e8=Q`, as many programs write it (and SCID reads it).
        let mut with = san_text.to_vec();
        with.insert(piece_at, b'=');
        with.into()
    } else {
        san_text.into()
    };
    let san = SanPlus::from_ascii(&san_bytes)
        .map_err(|_| {
            Stop::AsScid(invalid(
                at,
                format!(
                    "\"{}\" is not a move, move number, annotation or result",
                    decode(word)
                ),
            ))
        })?
        .san;
    let number = frame.pos.fullmoves();
    let dots = if frame.pos.turn() == Color::White {
        "."
    } else {
        "..."
    };
    let shown = || decode(san_text);
    let m = match legal::san_to_move(&frame.pos, san)
        .or_else(|e| lenient_capture(san, &frame.pos, e, reading))
    {
        Ok(m) => m,
        Err(SanError::AmbiguousSan) => {
            let options: Vec<String> = frame
                .pos
                .legal_moves()
                .into_iter()
                .filter(|m| san.matches(*m))
                .map(|m| San::from_move(&frame.pos, m).to_string())
                .collect();
            return Err(Stop::AsScid(invalid(
                at,
                format!(
                    "ambiguous move {number}{dots} {} (could be {}) in position {}",
                    shown(),
                    options.join(" or "),
                    fen_of(&frame.pos)
                ),
            )));
        }
        Err(SanError::IllegalSan) => {
            return Err(Stop::AsScid(invalid(
                at,
                format!(
                    "illegal move {number}{dots} {} in position {}",
                    shown(),
                    fen_of(&frame.pos)
                ),
            )));
        }
    };
    push_move(frame, Ply::Move(m));
    if let Some(n) = suffix_nag {
        add_nag(frame, n, at, lx)?;
    }
    Ok(())
}

/// Whether `san` is a null move as SCID's import reads one (`Position::ParseMove`): `--`, `Z0`
/// (as ChessBase writes it) or `null`, with any `+` and `#` after it. Only in a position that
/// is not in check: SCID 5 refuses it there, SCID 4 plays it (docs/guide/importing.md, where
/// gamefs differs).
fn scid_null_move(san: &[u8]) -> bool {
    let end = san
        .iter()
        .rposition(|&b| b != b'+' && b != b'#')
        .map_or(0, |i| i + 1);
    matches!(&san[..end], b"--" | b"Z0" | b"null")
}

/// A move written in coordinates (`e2e4`, `e7e8q`, `e1g1` for castling), as UCI engines and
/// some programs write moves and SCID reads them, when it is legal here.
pub(super) fn coordinate_move(text: &[u8], pos: &Chess) -> Option<shakmaty::Move> {
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    let shape = matches!(text.len(), 4 | 5)
        && square(text[0], text[1])
        && square(text[2], text[3])
        && text.get(4).is_none_or(|p| b"qrbnQRBN".contains(p));
    if !shape {
        return None;
    }
    let lower: Vec<u8> = text.iter().map(u8::to_ascii_lowercase).collect();
    shakmaty::uci::UciMove::from_ascii(&lower)
        .ok()?
        .to_move(pos)
        .ok()
}

/// Where the `=` goes in a promotion written without it (`d1Q`, `bxa1Q`): before the piece
/// letter after a last rank.
pub(super) fn promotion_without_equals(san: &[u8]) -> Option<usize> {
    let san = san
        .strip_suffix(b"+")
        .or_else(|| san.strip_suffix(b"#"))
        .unwrap_or(san);
    let n = san.len();
    (n >= 3
        && b"QRBN".contains(&san[n - 1])
        && matches!(san[n - 2], b'1' | b'8')
        && (b'a'..=b'h').contains(&san[n - 3]))
    .then(|| n - 1)
}

/// Real files write `Qd7` for a capture on d7 (or `Qxd7` for a quiet move); when the SAN as
/// written matches no move, the same SAN with the capture mark flipped is tried. The move is
/// still unique, so nothing is guessed.
pub(super) fn lenient_capture(
    san: San,
    pos: &Chess,
    e: SanError,
    reading: Reading,
) -> Result<shakmaty::Move, SanError> {
    // SCID 5 reads a bare square (`d6`) as a pawn push only, never as a capture.
    let scid5_pawn_push = reading == Reading::AsScid5
        && matches!(
            san,
            San::Normal {
                role: shakmaty::Role::Pawn,
                capture: false,
                ..
            }
        );
    if scid5_pawn_push {
        return Err(e);
    }
    match (e, san) {
        (
            SanError::IllegalSan,
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            },
        ) => San::Normal {
            role,
            file,
            rank,
            capture: !capture,
            to,
            promotion,
        }
        .to_move(pos)
        .map_err(|_| SanError::IllegalSan),
        (e, _) => Err(e),
    }
}

/// Add a legal `ply` to the line: the position before it is kept (variations start there)
/// and the move is played in place.
pub(super) fn push_move(frame: &mut Frame, ply: Ply) {
    match &mut frame.before {
        Some(before) => before.clone_from(&frame.pos),
        None => frame.before = Some(frame.pos.clone()),
    }
    // A null move was checked by the caller; a move came from the position's legal moves.
    let _ = play_in_place(&mut frame.pos, &ply);
    frame.line.moves.push(MoveNode::new(ply));
    frame.after_variation = false;
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// Telling bytes apart 32 at a time by their nibbles (AVX2) gives what comparing them 16 at
    /// a time gives, on blocks of the bytes movetext holds and of any byte, and on every byte
    /// value at every place (where the processor has AVX2: elsewhere only the 16 at a time
    /// runs, which the tests of `skip_moves_in_blocks` check).
    #[test]
    fn kinds_are_the_same_32_or_16_bytes_at_a_time() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: kinds are found 16 bytes at a time only");
            return;
        }
        const MOVETEXT: &[u8] = b" \t\n\r\x0b\x0c{}[]()\";$%=.0123456789abcdefghKQRBNOPxo-+#!?*/";
        let mut rng = Rng(0x4B1D_5EED);
        for round in 0..20_000 {
            let mut block = [0u8; 64];
            for b in &mut block {
                *b = match round % 2 {
                    0 => MOVETEXT[rng.below(MOVETEXT.len())],
                    _ => rng.below(256) as u8,
                };
            }
            // SAFETY: SSE2 is part of x86-64; AVX2 was detected above.
            let (sse2, avx2) = unsafe { (kinds_sse2(&block), kinds_avx2(&block)) };
            assert_eq!(sse2, avx2, "{block:?}");
        }
        for shift in 0..64 {
            for first in (0..256).step_by(64) {
                let block: [u8; 64] = std::array::from_fn(|i| (first + (i + shift) % 64) as u8);
                // SAFETY: as above.
                let (sse2, avx2) = unsafe { (kinds_sse2(&block), kinds_avx2(&block)) };
                assert_eq!(sse2, avx2, "{block:?}");
            }
        }
    }
}
