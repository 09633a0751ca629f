//! A game cut where its movetext stops reading, as SCID's import cuts it: the moves before
//! the error kept, the rest of the game stepped over as SCID's PGN lexer steps over it (up to a
//! termination marker, which still gives the game its result, a `[` or the end of the text),
//! and where the cut was and what it dropped said ([`Games::keeping_cut_games`]).

use std::ops::Range;

use super::movetext::Frame;
use super::*;

/// Where a game was cut short and what of its text was dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The 1-based line of the token the game could not read on from.
    pub line: u32,
    /// Its 1-based column, counted in characters.
    pub column: u32,
    /// Why the game could not be read on.
    pub reason: String,
    /// The bytes dropped: from that token to where the game ends (its termination marker,
    /// kept, or the next `[` or the end of the text).
    pub dropped: Range<usize>,
}

impl Cut {
    /// `column C: REASON: the game cut here …; dropped "…"`, a phrase of the import's report
    /// (which puts the line before it); `text` is the text the game was read from.
    pub fn describe(&self, text: &[u8]) -> String {
        let dropped = text.get(self.dropped.clone()).unwrap_or_default();
        format!(
            "column {}: {}: the game cut here, as SCID's import cuts it; dropped {}",
            self.column,
            self.reason,
            excerpt(dropped)
        )
    }
}

/// At most this many characters of dropped text are quoted in a report.
const EXCERPT_CHARS: usize = 60;

/// `"…"`: `bytes` with each run of white space one space, its first [`EXCERPT_CHARS`]
/// characters quoted, and how many bytes there are when that is not all of them.
pub(super) fn excerpt(bytes: &[u8]) -> String {
    let text = decode(bytes);
    let words: Vec<&str> = text.split_whitespace().collect();
    let one_line = words.join(" ");
    let shown: String = one_line.chars().take(EXCERPT_CHARS).collect();
    if shown.len() == one_line.len() {
        format!("\"{shown}\"")
    } else {
        format!("\"{shown}…\" ({} bytes)", bytes.len())
    }
}

/// Cut the game being read at `error` (in its movetext, the lexer past the offending token):
/// the variations still open are closed where they stand, the rest of the game is stepped over
/// and noted in the lexer's [`Lexer::cut`]; the termination marker that ends it, if any.
pub(super) fn cut_at(
    lx: &mut Lexer<'_>,
    error: ParseError,
    stack: &mut Vec<Frame>,
) -> Option<(GameResult, Pos)> {
    close_variations(stack);
    let from = offset_of(lx, error.line, error.column);
    let marker = step_over_rest(lx);
    let end = marker.map_or(lx.at.offset, |(_, at)| at.offset).max(from);
    let end = from + lx.text[from..end].trim_ascii_end().len();
    lx.salvaged = true;
    lx.cut = Some(Cut {
        line: error.line,
        column: error.column,
        reason: error.message,
        dropped: from..end,
    });
    marker
}

/// Close every variation still open, innermost first, into the move it belongs to: the game
/// as SCID holds it when it stops reading inside a variation.
pub(super) fn close_variations(stack: &mut Vec<Frame>) {
    while stack.len() > 1 {
        if let Some(child) = stack.pop()
            && let Some(parent) = stack.last_mut()
            && let Some(node) = parent.line.moves.last_mut()
        {
            node.variations.push(child.line);
            parent.after_variation = true;
        }
    }
}

/// The byte offset of `line`, `column` (at or before where the lexer stands).
fn offset_of(lx: &Lexer<'_>, line: u32, column: u32) -> usize {
    let text = &lx.text[..lx.at.offset];
    // Back over the line breaks between, to the start of `line`.
    let mut breaks = lx.at.line.saturating_sub(line);
    let mut start = 0;
    for i in memchr::memrchr_iter(b'\n', text) {
        if breaks == 0 {
            start = i + 1;
            break;
        }
        breaks -= 1;
    }
    if start == 0 && text.starts_with(b"\xEF\xBB\xBF") {
        // The byte-order mark is no character of the first line.
        start = 3;
    }
    // Forward over `column - 1` characters (UTF-8 continuation bytes start none).
    let mut i = start;
    for _ in 1..column {
        if i >= text.len() {
            break;
        }
        i += 1;
        while i < text.len() && (0x80..0xC0).contains(&text[i]) {
            i += 1;
        }
    }
    i
}

/// Step over the rest of a game as SCID's PGN lexer does once a game's errors stop its
/// reading: every token is read and ignored until a termination marker (`*`, `1-0`, `0-1`,
/// `1/2-1/2`, `1/2`, `1:0`, `0:1`, `1/2:1/2`: returned, the lexer past it), a `[` (the lexer
/// left at it) or the end of the text.
fn step_over_rest(lx: &mut Lexer<'_>) -> Option<(GameResult, Pos)> {
    loop {
        lx.skip_space();
        let at = lx.at;
        match lx.peek()? {
            b'[' => return None,
            b'*' => {
                lx.bump();
                return Some((GameResult::Unknown, at));
            }
            b'{' => {
                lx.bump();
                lx.take_while(|b| b != b'}');
                lx.bump();
            }
            b';' => {
                lx.rest_of_line();
            }
            // Not in the first column (the white space before took those lines).
            b'%' => {
                lx.take_while(|b| b == b'%');
            }
            b'$' => {
                lx.bump();
                lx.take_while(|b| b.is_ascii_digit());
            }
            b'!' | b'?' => {
                lx.take_while(|b| b == b'!' || b == b'?');
            }
            b'.' | b'<' | b'>' | b'(' | b')' => lx.bump(),
            _ => {
                // A symbol token: its first byte, whatever it is, and the symbol bytes after.
                let start = lx.at.offset;
                lx.bump();
                lx.take_while(|b| SCID_SYMBOL[usize::from(b)]);
                let token = &lx.text[start..lx.at.offset];
                if token[0].is_ascii_digit()
                    && let Some(r) = scid_marker(token)
                {
                    return Some((r, at));
                }
            }
        }
    }
}
