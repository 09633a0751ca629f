//! A tag pair read as SCID's PGN lexer reads it (`pgn_impl::parse_token`, `[`): its value runs
//! to the `]` (or a later one, while no closing quote was seen), less its opening quote and
//! its last one, so that quotes inside it need no escape: `[Site "Leningrad "living
//! pieces""]` is the Site `Leningrad "living pieces"`. What a bulk import reads when a tag does
//! not read as the standard writes it.

use super::tags::{RawTag, value_text};
use super::*;

/// The tag at the lexer's `[`, read SCID's way, the lexer moved past its `]`, the change
/// noted; `None` (the lexer not moved) when it does not read so on its line either (no name,
/// no `]` on the line).
pub(super) fn scid_tag<'a>(lx: &mut Lexer<'a>) -> Option<RawTag<'a>> {
    let at = lx.at;
    let text = lx.text;
    let line_end = memchr::memchr(b'\n', &text[at.offset..]).map_or(text.len(), |n| at.offset + n);
    let line = &text[..line_end];
    let blanks = |mut i: usize| {
        while line.get(i).is_some_and(|&b| b == b' ' || b == b'\t') {
            i += 1;
        }
        i
    };
    let name_from = blanks(at.offset + 1);
    let mut i = name_from;
    while line.get(i).is_some_and(|&b| SCID_SYMBOL[usize::from(b)]) {
        i += 1;
    }
    let name_to = i;
    if name_to == name_from {
        return None;
    }
    let value_from = blanks(i);
    let mut close = value_from + memchr::memchr(b']', &line[value_from..])?;
    let quoted = line[value_from] == b'"';
    let value_start = value_from + usize::from(quoted);
    if quoted {
        // On to a later `]` while the value has no closing quote and the line goes on.
        while !closed(&line[value_start..close])
            && !matches!(text.get(close + 1), None | Some(b'\n' | b'\r'))
        {
            match memchr::memchr(b']', &line[close + 1..]) {
                Some(n) => close += 1 + n,
                None => break,
            }
        }
    }
    let mut value = &line[value_start..close];
    // The white space at its end goes, and its last quote.
    while let Some((&last, rest)) = value.split_last() {
        if last == b'"' {
            value = rest;
            break;
        }
        if !is_space(last) {
            break;
        }
        value = rest;
    }
    let unescaped = unescape(value);
    // SAFETY: symbol bytes are ASCII, and ASCII is UTF-8.
    let name = unsafe { std::str::from_utf8_unchecked(&text[name_from..name_to]) };
    lx.advance_on_line(value_start);
    let value_at = lx.at;
    lx.advance_on_line(close + 1);
    let value = value_text(&unescaped, lx.reading);
    lx.changed(at, || {
        Some(format!(
            "tag {name} read as SCID reads it (not as PGN writes a tag): \"{value}\""
        ))
    });
    Some(RawTag {
        name,
        value: value.into(),
        at,
        value_at,
    })
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
