//! A tag pair read as SCID's PGN lexer reads it (`pgn_impl::parse_token`, `[`): after the `[`
//! and any white space, its name is the symbol there (none when another byte stands there);
//! its value runs from after the white space that follows to the `]` after it, wherever that
//! is (or a later one, while no closing quote was seen and that `]` does not end its line),
//! less its opening quote, the white space at its end and its last quote. So quotes inside a
//! value need no escape (`[Site "Leningrad "living pieces""]` is the Site `Leningrad "living
//! pieces"`), a value not closed on its line runs on to the next `]` (`[Black "Smith, J.`
//! takes in the lines after it up to one), and a tag with no name (`[ "x"]`, `[]`) is read and
//! dropped, as SCID's import drops it. What a bulk import reads when a tag does not read as
//! the standard writes it.

use super::cut::excerpt;
use super::tags::{RawTag, value_text};
use super::*;

/// The tag at the lexer's `[`, read SCID's way, the lexer moved past its `]` (or to the end
/// of the text, which SCID reads the value to when no `]` comes), the change noted; `None`
/// for a tag with no name, which SCID's import drops. A value read on past its line, or to
/// the end of the text, salvages the game ([`ReadGame::salvaged`]), as does a tag dropped;
/// a value longer than a game may be refuses it.
pub(super) fn scid_tag<'a>(lx: &mut Lexer<'a>) -> Result<Option<RawTag<'a>>, ParseError> {
    let at = lx.at;
    let text = lx.text;
    let spaces = |mut i: usize| {
        while text.get(i).is_some_and(|&b| scid_space(b)) {
            i += 1;
        }
        i
    };
    let name_from = spaces(at.offset + 1);
    let mut name_to = name_from;
    while text
        .get(name_to)
        .is_some_and(|&b| SCID_SYMBOL[usize::from(b)])
    {
        name_to += 1;
    }
    let value_from = spaces(name_to);
    let next_close =
        |from: usize| memchr::memchr(b']', &text[from..]).map_or(text.len(), |n| from + n);
    let mut close = next_close(value_from);
    let quoted = value_from < close && text[value_from] == b'"';
    let value_start = value_from + usize::from(quoted);
    // On to a later `]` while the value has no closing quote and the `]` does not end its
    // line (SCID's `last_column`).
    while quoted
        && close < text.len()
        && !closed(&text[value_start..close])
        && !matches!(text.get(close + 1), None | Some(b'\n' | b'\r'))
    {
        close = next_close(close + 1);
    }
    if close - at.offset > MAX_GAME_BYTES {
        return Err(game_too_large(at));
    }
    let mut value = &text[value_start..close];
    // The white space at its end goes, and its last quote.
    while let Some((&last, rest)) = value.split_last() {
        if last == b'"' {
            value = rest;
            break;
        }
        if !scid_space(last) {
            break;
        }
        value = rest;
    }
    // A value that takes in other lines, or runs to the text's end (which may be where a
    // part of a text read on its own stops), is not all its tag.
    let taken_in = value.contains(&b'\n') || close == text.len();
    lx.advance_to(value_start);
    let value_at = lx.at;
    lx.advance_to((close + 1).min(text.len()));
    if name_to == name_from {
        let tag = &text[at.offset..lx.at.offset];
        lx.salvaged(at, || {
            Some(format!(
                "column {}: {} names no tag: dropped, as SCID's import drops it",
                at.col,
                excerpt(tag)
            ))
        });
        return Ok(None);
    }
    // SAFETY: symbol bytes are ASCII, and ASCII is UTF-8.
    let name = unsafe { std::str::from_utf8_unchecked(&text[name_from..name_to]) };
    let value = value_text(&unescape(value), lx.reading);
    if taken_in {
        let end = lx.at;
        lx.salvaged(at, || {
            Some(format!(
                "column {}: the value of tag {name} is not closed on its line: read on to {}, \
                 as SCID reads it: {}",
                at.col,
                match close == text.len() {
                    true => "the end of the text".to_string(),
                    false => format!("the ']' on line {}", end.line),
                },
                excerpt(value.as_bytes())
            ))
        });
    } else {
        lx.changed(at, || {
            Some(format!(
                "tag {name} read as SCID reads it (not as PGN writes a tag): \"{value}\""
            ))
        });
    }
    Ok(Some(RawTag {
        name,
        value: value.into(),
        at,
        value_at,
    }))
}

/// White space as SCID's PGN lexer knows it (`is_PGNwhitespace`): a form feed is none.
fn scid_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B)
}

/// Whether a tag value's bytes hold a quote that is not escaped (SCID's `is_terminated`).
fn closed(value: &[u8]) -> bool {
    let mut i = 0;
    while i < value.len() {
        match value[i] {
            b'"' => return true,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    false
}

/// `\\` and `\"` undone, as SCID's `pgn::normalize<true>` undoes them.
fn unescape(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        if value[i] == b'\\' && matches!(value.get(i + 1), Some(b'\\' | b'"')) {
            i += 1;
        }
        out.push(value[i]);
        i += 1;
    }
    out
}
