//! Tag pairs: reading `[Name "value"]` and mapping tags to [`Headers`] and the start position,
//! as SCID's import does (see the module overview of `pgn_parse`).

use std::borrow::Cow;
use std::fmt::Write as _;

use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, PositionErrorKinds};

use crate::game::chess::FIELD_TAGS;
use crate::game::replay::position_from_fen_as;
use crate::game::{
    GameResult, Headers, PartialDate, Rating, RatingType, StartPosition, normalize_comment,
};

use super::*;

/// One tag pair as written, decoded and unescaped (its name borrowed from the text: a
/// symbol, ASCII; only the names kept as extra tags are copied; its value borrowed too when
/// there was nothing to undo, so the values a reading does not keep are never copied).
pub(super) struct RawTag<'a> {
    pub(super) name: &'a str,
    pub(super) value: Cow<'a, str>,
    /// The `[`.
    pub(super) at: Pos,
    /// The first character of the value (just after the opening quote).
    pub(super) value_at: Pos,
}

/// `[Name "value"]`, at its `[`. Read as SCID reads it ([`Reading::AsScid`],
/// [`Reading::AsScid5`]), a tag that does not read so is read SCID's way
/// ([`super::scid_tag::scid_tag`]: `[Site "Leningrad "living pieces""]`, `[Black "Smith, J.`
/// on to the next `]`), and `None` when it names no tag (`[ "x"]`: dropped, as SCID drops it).
pub(super) fn parse_tag<'a>(lx: &mut Lexer<'a>) -> Result<Option<RawTag<'a>>, ParseError> {
    let at = lx.at;
    match exact_tag(lx) {
        Ok(tag) => Ok(Some(tag)),
        Err(_) if lx.reading.as_scid() => {
            lx.at = at;
            super::scid_tag::scid_tag(lx)
        }
        Err(e) => Err(e),
    }
}

/// `[Name "value"]`, at its `[`, as the PGN standard writes it.
fn exact_tag<'a>(lx: &mut Lexer<'a>) -> Result<RawTag<'a>, ParseError> {
    if let Some(tag) = plain_tag(lx) {
        return Ok(tag);
    }
    let at = lx.at;
    if let Some(name) = plain_name(lx) {
        return tag_value(lx, at, name);
    }
    lx.bump();
    lx.take_while(|b| b == b' ' || b == b'\t');
    let name_at = lx.at;
    let name = lx.take_while(|b| !is_space(b) && b != b'"' && b != b']');
    if name.is_empty() {
        return Err(invalid(name_at, "a tag needs a name after '['".to_string()));
    }
    let symbol = name[0].is_ascii_alphanumeric() && name.iter().all(|&b| SYMBOL[usize::from(b)]);
    if !symbol {
        return Err(invalid(
            name_at,
            format!(
                "tag name \"{}\" must start with a letter or digit and contain only letters, digits and _+#=:-",
                decode(name)
            ),
        ));
    }
    // SAFETY: a symbol is ASCII (checked just above), and ASCII is UTF-8.
    let name = unsafe { std::str::from_utf8_unchecked(name) };
    tag_value(lx, at, name)
}

/// The bytes a tag name may hold (a symbol's: letters, digits and `_+#=:-`).
const SYMBOL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric()
            || matches!(b as u8, b'_' | b'+' | b'#' | b'=' | b':' | b'-');
        b += 1;
    }
    table
};

/// The tag at its `[` when written as nearly every tag is, `[Name "value"]` (a symbol, one
/// space, a value of printable ASCII with nothing to undo, no space before the `]`), taken in
/// one go, the lexer moved past its `]`; `None` (the lexer not moved) for any other, which
/// [`plain_name`] and [`tag_value`] read.
fn plain_tag<'a>(lx: &mut Lexer<'a>) -> Option<RawTag<'a>> {
    #[cfg(test)]
    if BYTE_BY_BYTE.with(std::cell::Cell::get) {
        return None;
    }
    let text = lx.text;
    let at = lx.at;
    let rest = text.get(at.offset + 1..)?;
    let name_len = name_len(rest)?;
    if rest.get(name_len..name_len + 2)? != b" \"" {
        return None;
    }
    let value_from = name_len + 2;
    let value_len = printable_ascii_run(&rest[value_from..]);
    let value_end = value_from + value_len;
    if rest.get(value_end..value_end + 2)? != b"\"]" {
        return None;
    }
    // SAFETY: symbol bytes and printable ones are ASCII, and ASCII is UTF-8.
    let (name, value) = unsafe {
        (
            std::str::from_utf8_unchecked(&rest[..name_len]),
            std::str::from_utf8_unchecked(&rest[value_from..value_end]),
        )
    };
    // `[`, the name, ` "`: ASCII, on the tag's line.
    let value_at = Pos {
        offset: at.offset + 1 + value_from,
        line: at.line,
        col: at.col.saturating_add(1 + value_from as u32),
    };
    lx.advance_ascii_on_line(1 + value_end + 2);
    Some(RawTag {
        name,
        value: Cow::Borrowed(value),
        at,
        value_at,
    })
}

/// The length of the tag name `rest` starts with, its symbol bytes (its letters looked at 8
/// at a time): `None` when it does not start with a letter or digit, or the text ends in it.
fn name_len(rest: &[u8]) -> Option<usize> {
    let letters = letter_run(rest);
    let len = match rest.get(letters) {
        // The usual end: no other symbol byte to look for.
        Some(b' ') => letters,
        _ => {
            letters
                + rest[letters..]
                    .iter()
                    .position(|&b| !SYMBOL[usize::from(b)])?
        }
    };
    (len > 0 && rest[0].is_ascii_alphanumeric()).then_some(len)
}

/// The name of a tag at its `[` when written the usual way, a symbol right after the `[`
/// that ends at a blank, a quote or a `]`, with the lexer moved past it; `None` (the lexer
/// not moved) for any other, which [`parse_tag`] reads byte by byte.
fn plain_name<'a>(lx: &mut Lexer<'a>) -> Option<&'a str> {
    #[cfg(test)]
    if BYTE_BY_BYTE.with(std::cell::Cell::get) {
        return None;
    }
    let text = lx.text;
    let rest = text.get(lx.at.offset + 1..)?;
    let len = name_len(rest)?;
    if !(is_space(rest[len]) || rest[len] == b'"' || rest[len] == b']') {
        return None;
    }
    let start = lx.at.offset + 1;
    // `[` and the name: ASCII, no line break.
    lx.advance_ascii_on_line(1 + len);
    // SAFETY: symbol bytes are ASCII, and ASCII is UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(&text[start..start + len]) })
}

/// The rest of a tag after its name `name` (the tag's `[` at `at`): its quoted value and `]`.
fn tag_value<'a>(lx: &mut Lexer<'a>, at: Pos, name: &'a str) -> Result<RawTag<'a>, ParseError> {
    lx.take_while(|b| b == b' ' || b == b'\t');
    if lx.peek() != Some(b'"') {
        return Err(invalid(
            lx.at,
            format!("tag {name} needs a value in double quotes"),
        ));
    }
    let quote_at = lx.at;
    lx.bump();
    let value_at = lx.at;
    if let Some(value) = plain_value(lx) {
        return Ok(RawTag {
            name,
            value,
            at,
            value_at,
        });
    }
    let mut value = Vec::new();
    loop {
        match lx.peek() {
            None | Some(b'\n') => {
                return Err(invalid(
                    quote_at,
                    format!("the value of tag {name} is not closed with '\"' on its line"),
                ));
            }
            Some(b'"') => {
                lx.bump();
                break;
            }
            Some(b'\\') => {
                lx.bump();
                match lx.peek() {
                    Some(c @ (b'"' | b'\\')) => {
                        if lx.reading == Reading::AsPgn2dcg {
                            // pgn2dcg keeps the escape as written.
                            value.push(b'\\');
                        }
                        value.push(c);
                        lx.bump();
                    }
                    _ => value.push(b'\\'),
                }
            }
            Some(c) => {
                value.push(c);
                lx.bump();
            }
        }
    }
    lx.take_while(|b| b == b' ' || b == b'\t');
    if lx.peek() != Some(b']') {
        return Err(invalid(lx.at, format!("expected ']' to close tag {name}")));
    }
    lx.bump();
    Ok(RawTag {
        name,
        value: value_text(&value, lx.reading).into(),
        at,
        value_at,
    })
}

/// A tag value's bytes (unescaped) as the database keeps them: decoded (UTF-8, else Latin-1),
/// with its control characters as SCID's import leaves them. SCID 4 (and a save) turns a tab,
/// vertical tab, carriage return or line feed (in a value SCID reads on past its line) into a
/// space, or drops it beside white space or at an end (`pgn::normalize`), and keeps every
/// other control byte (`0x06` in a real collection's name); SCID 5 keeps them all; pgn2dcg's
/// reading makes each a space. NUL and the C1 controls (Latin-1 bytes 0x80–0x9F) become
/// spaces in every reading.
pub(super) fn value_text(raw: &[u8], reading: Reading) -> String {
    let text = decode(raw);
    if !text.chars().any(char::is_control) {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let kept = match c {
            '\0' => false,
            '\t' | '\r' | '\u{0B}' | '\n'
                if matches!(reading, Reading::Exact | Reading::AsScid) =>
            {
                let beside_space = out.is_empty()
                    || i + 1 == chars.len()
                    || out.ends_with(' ')
                    || matches!(chars[i + 1], ' ' | '\t' | '\r' | '\u{0B}' | '\n');
                if !beside_space {
                    out.push(' ');
                }
                continue;
            }
            _ if reading == Reading::AsPgn2dcg => !c.is_control(),
            _ => c.is_ascii() || !c.is_control(),
        };
        out.push(if kept { c } else { ' ' });
    }
    out
}

#[cfg(test)]
thread_local! {
    /// Whether [`plain_value`] takes no value on this thread: every value is read byte by
    /// byte (what taking plain ones whole must not change).
    pub(super) static BYTE_BY_BYTE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A tag value with nothing to undo (no escape, UTF-8 without control characters) and its
/// closing quote and `]` on its line, taken whole, the lexer moved past the `]`: what most
/// values are, read without looking at each byte in turn. `None` (the lexer not moved) for
/// any other, which [`parse_tag`] reads byte by byte.
fn plain_value<'a>(lx: &mut Lexer<'a>) -> Option<Cow<'a, str>> {
    #[cfg(test)]
    if BYTE_BY_BYTE.with(std::cell::Cell::get) {
        return None;
    }
    let rest = &lx.text[lx.at.offset..];
    let printable = printable_ascii_run(rest);
    let (end, (value, ascii)) = if rest.get(printable) == Some(&b'"') {
        // SAFETY: the bytes before `printable` are ASCII, which is UTF-8.
        let value = unsafe { std::str::from_utf8_unchecked(&rest[..printable]) };
        (printable, (value, true))
    } else {
        let end = memchr::memchr3(b'"', b'\\', b'\n', rest)?;
        if rest[end] != b'"' {
            return None;
        }
        (end, text_without_controls(&rest[..end])?)
    };
    let after = rest[end + 1..]
        .iter()
        .position(|&b| b != b' ' && b != b'\t')?;
    if rest[end + 1 + after] != b']' {
        return None;
    }
    // The value, its quote, the blanks and the `]`: none is a line break, and all are a
    // character a byte when the value is ASCII.
    let past = end + 1 + after + 1;
    if ascii {
        lx.advance_ascii_on_line(past);
    } else {
        lx.advance_on_line(lx.at.offset + past);
    }
    Some(Cow::Borrowed(value))
}

/// How many bytes `bytes` starts with that are printable ASCII (0x20 to 0x7E) other than `"`
/// and `\\`: most of a tag value, up to its closing quote. Each kind of byte that ends the
/// run is found in 8 bytes at once (the lowest byte such a test marks is always one of that
/// kind; it may mark bytes after it that are not, which do not matter).
fn printable_ascii_run(bytes: &[u8]) -> usize {
    // The bytes below `n` (at most 0x80) of word `w`, each marked by its top bit.
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS;
    // The bytes of `w` that are `b`.
    let equal = |w: u64, b: u8| below(w ^ (ONES * u64::from(b)), 1);
    run_before(
        bytes,
        |w| below(w, 0x20) | equal(w, 0x7F) | equal(w, b'"') | equal(w, b'\\') | w & HIGHS,
        |b| !(0x20..0x7F).contains(&b) || b == b'"' || b == b'\\',
    )
}

/// A byte of 1s in each of a word's 8 bytes (tag names and values are looked at a word at a
/// time).
const ONES: u64 = u64::from_ne_bytes([1; 8]);
/// The top bit of each of a word's 8 bytes.
const HIGHS: u64 = ONES << 7;

/// How many ASCII letters `bytes` starts with (most of a tag name): upper case folded onto
/// lower, each byte's 7 low bits compared with `a` and `z` by an addition that carries into
/// its top bit only (no byte's into the next).
fn letter_run(bytes: &[u8]) -> usize {
    let at_least = |low7: u64, c: u8| low7.wrapping_add(ONES * u64::from(0x80 - c)) & HIGHS;
    run_before(
        bytes,
        |w| {
            let folded = (w | (ONES * 0x20)) & !HIGHS;
            !(at_least(folded, b'a') & !at_least(folded, b'z' + 1) & !w) & HIGHS
        },
        |b| !b.is_ascii_alphabetic(),
    )
}

/// How many bytes `bytes` starts with before one that `ends` takes: 8 at a time, `marks`
/// marking by its top bit each byte of a word (little-endian) that `ends` takes (the lowest
/// exactly; any after it may be marked or not), the last few bytes one by one.
fn run_before(bytes: &[u8], marks: impl Fn(u64) -> u64, ends: impl Fn(u8) -> bool) -> usize {
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let marked = marks(u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
        if marked != 0 {
            return at + (marked.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| ends(b))
        .unwrap_or(bytes.len() - at)
}

/// `raw` as text when it is UTF-8 without control characters (`char::is_control`: C0, DEL
/// and C1), looked at byte by byte rather than character by character: C0 and DEL are bytes
/// below 0x20 and 0x7F, C1 (U+0080..U+009F) is 0xC2 followed by 0x80..0x9F. With it, whether
/// it is ASCII (a character a byte).
fn text_without_controls(raw: &[u8]) -> Option<(&str, bool)> {
    // Without a branch a byte, which the compiler turns into vector compares.
    let (mut control, mut high) = (false, false);
    for &b in raw {
        control |= (b < 0x20) | (b == 0x7F);
        high |= b >= 0x80;
    }
    if control {
        return None;
    }
    if !high {
        // SAFETY: every byte is below 0x80 (checked just above): ASCII, which is UTF-8.
        return Some((unsafe { std::str::from_utf8_unchecked(raw) }, true));
    }
    let text = std::str::from_utf8(raw).ok()?;
    let c1 = memchr::memchr_iter(0xC2, raw).any(|i| raw.get(i + 1).is_some_and(|&b| b < 0xA0));
    (!c1).then_some((text, false))
}

/// The tag section turned into model parts.
pub(super) struct Tags {
    pub(super) headers: Headers,
    pub(super) start: StartPosition,
    pub(super) position: Chess,
    pub(super) result: Option<(GameResult, Pos)>,
}

/// Map tag pairs to headers, start position and extra tags (docs/formats/scid4.md §6, §7);
/// without `keep_extra`, the extra tags are read (a Variant must be standard chess) but not
/// kept.
pub(super) fn interpret_tags<'a>(
    raw: impl Iterator<Item = RawTag<'a>>,
    lx: &mut Lexer<'_>,
    keep_extra: bool,
) -> Result<Tags, ParseError> {
    let as_scid = lx.reading.loose();
    let mut h = Headers::default();
    // The field tags seen so far, a bit each (bit k for `FIELD_TAGS[k]`).
    let mut seen = 0u32;
    let mut result = None;
    let mut fen: Option<(String, Pos)> = None;
    let mut event_date: Option<PartialDate> = None;
    let mut setups: Vec<(String, Pos)> = Vec::new();
    for tag in raw {
        let RawTag {
            name,
            value,
            at,
            value_at,
        } = tag;
        if let Some(k) = field_tag(name) {
            let t = FIELD_TAGS[k];
            if seen & 1 << k != 0 && as_scid {
                lx.changed(at, || {
                    Some(format!("tag {t} given twice: the last one kept"))
                });
            } else if seen & 1 << k != 0 {
                return Err(invalid(at, format!("tag {t} appears twice; keep one")));
            }
            seen |= 1 << k;
        }
        match name {
            "Event" | "Site" | "Round" | "White" | "Black" => {
                let field = match name {
                    "Event" => &mut h.event,
                    "Site" => &mut h.site,
                    "Round" => &mut h.round,
                    "White" => &mut h.white,
                    _ => &mut h.black,
                };
                *field = value.into_owned();
            }
            "Date" | "EventDate" if as_scid => {
                let d = date_as_read(&value, lx.reading);
                lx.changed(value_at, || {
                    let changed = !value.is_empty() && value != "?" && !d.written_as(&value);
                    changed.then(|| format!("{name} \"{value}\" read as {d}"))
                });
                if name == "Date" {
                    h.date = d;
                } else {
                    event_date = (!d.is_unknown()).then_some(d);
                }
            }
            "Date" => {
                h.date = parse_date("Date", &value, value_at)?;
            }
            "EventDate" => {
                let d = parse_date("EventDate", &value, value_at)?;
                if !d.is_unknown() {
                    event_date = Some(d);
                }
            }
            "UTCDate" if as_scid && h.date.is_unknown() => {
                // SCID dates the game by its UTCDate when it has no Date so far (SCID 5 only
                // by a whole one).
                let d = date_as_read(&value, lx.reading);
                let whole = d.year.is_some() && d.month.is_some() && d.day.is_some();
                if whole || lx.reading != Reading::AsScid5 {
                    h.date = d;
                }
                if !h.date.is_unknown() {
                    lx.changed(value_at, || {
                        Some(format!("Date taken from UTCDate \"{value}\""))
                    });
                }
                keep_extra_tag(&mut h, keep_extra, lx, at, name, value);
            }
            "Result" if as_scid => {
                let r = scid_result(&value);
                if result_marker(value.as_bytes()) != Some(r) {
                    lx.changed(value_at, || {
                        Some(format!("Result \"{value}\" read as \"{}\"", r.as_pgn()))
                    });
                }
                result = Some((r, value_at));
            }
            "Result" => {
                let r = result_marker(value.as_bytes()).ok_or_else(|| {
                    invalid(
                        value_at,
                        format!(
                            "Result \"{value}\" must be one of \"1-0\", \"0-1\", \"1/2-1/2\", \"*\""
                        ),
                    )
                })?;
                result = Some((r, value_at));
            }
            "ECO" if as_scid => {
                h.eco = scid_eco(&value);
                lx.changed(value_at, || {
                    let shown = h.eco.as_deref().unwrap_or("none");
                    let changed = !matches!(&*value, "" | "?") && shown != value;
                    changed.then(|| format!("ECO \"{value}\" read as {shown}"))
                });
            }
            "ECO" => h.eco = parse_eco(&value, value_at)?,
            "FEN" => fen = Some((value.into_owned(), value_at)),
            "Variant" => {
                let standard = ["standard", "chess", "normal", "from position"]
                    .iter()
                    .chain(&crate::game::chess::CHESS960_VARIANTS)
                    .any(|v| value.eq_ignore_ascii_case(v));
                if !standard {
                    return Err(invalid(
                        value_at,
                        format!("Variant \"{value}\": SCID 4 stores standard chess only"),
                    ));
                }
                keep_extra_tag(&mut h, keep_extra, lx, at, name, value);
            }
            _ => {
                if let Some((white, kind)) = rating_tag(name) {
                    let slot = if white {
                        &mut h.white_rating
                    } else {
                        &mut h.black_rating
                    };
                    if slot.is_none() {
                        let rating = match parse_rating(name, &value, value_at) {
                            Err(e) if as_scid => {
                                lx.changed(value_at, || Some(format!("{} (dropped)", e.message)));
                                None
                            }
                            read => read?,
                        };
                        *slot = rating.map(|value| Rating { value, kind });
                        continue;
                    }
                }
                if name == "SetUp" || name == "Setup" {
                    setups.push((value.to_string(), value_at));
                }
                keep_extra_tag(&mut h, keep_extra, lx, at, name, value);
            }
        }
    }
    // Whether the database can keep it beside the Date (SCID: within 3 years) is the store's
    // business.
    h.event_date = event_date;
    let (start, position) = match fen {
        None => (StartPosition::Standard, Chess::default()),
        Some((text, at)) => {
            if let Some((v, v_at)) = setups.iter().find(|(v, _)| v != "1") {
                return Err(invalid(
                    *v_at,
                    format!("SetUp \"{v}\" contradicts the FEN tag; with a FEN it must be \"1\""),
                ));
            }
            // SetUp stays an extra tag, where it stood, as SCID keeps it; the renderer writes it
            // back in place, so a game reads and saves unchanged.
            let (full, pos, chess960) = parse_fen(&text, at)?;
            match chess960 {
                true => (StartPosition::Chess960(full), pos),
                false => (StartPosition::Fen(full), pos),
            }
        }
    };
    Ok(Tags {
        headers: h,
        start,
        position,
        result,
    })
}

/// Keep tag `name` (its `[` at `at`) among the game's extra tags, when extra tags are `kept`.
/// Read as SCID 4 reads it, a tag given again gives its value to the first one, which keeps
/// its place (SCID 4's `Game::accessTagValue`), and that is noted.
fn keep_extra_tag(
    h: &mut Headers,
    kept: bool,
    lx: &mut Lexer<'_>,
    at: Pos,
    name: &str,
    value: Cow<'_, str>,
) {
    let earlier = match lx.reading {
        Reading::AsScid if kept => h.extra.iter_mut().find(|(n, _)| n == name),
        _ => None,
    };
    match earlier {
        Some((_, first)) => {
            *first = value.into_owned();
            lx.changed(at, || {
                Some(format!(
                    "tag {name} given twice: the last value kept, in the first one's place"
                ))
            });
        }
        None if kept => h.extra.push((name.to_owned(), value.into_owned())),
        None => {}
    }
}

/// Which of [`FIELD_TAGS`] the tag `name` is (its place there): most tags of most games are,
/// so the names are told apart by length and first letter before any is compared whole.
fn field_tag(name: &str) -> Option<usize> {
    const { assert!(FIELD_TAGS.len() <= 32, "seen as bits of a u32") };
    let first = name.as_bytes().first()?;
    FIELD_TAGS
        .iter()
        .position(|t| t.len() == name.len() && t.as_bytes()[0] == *first && *t == name)
}

/// `WhiteElo` → (true, Elo); `BlackUSCF` → (false, Uscf); other names → None.
pub(super) fn rating_tag(name: &str) -> Option<(bool, RatingType)> {
    let (white, suffix) = if let Some(s) = name.strip_prefix("White") {
        (true, s)
    } else {
        (false, name.strip_prefix("Black")?)
    };
    RatingType::ALL
        .into_iter()
        .find(|k| k.tag_suffix() == suffix)
        .map(|k| (white, k))
}

/// A rating value: a whole number (up to 65535; how high a database goes is its store's
/// business), or one of `""`, `"?"`, `"-"`, `"0"` for none.
pub(super) fn parse_rating(name: &str, value: &str, at: Pos) -> Result<Option<u16>, ParseError> {
    let v = value.trim();
    if matches!(v, "" | "?" | "-" | "0") {
        return Ok(None);
    }
    if !v.bytes().all(|b| b.is_ascii_digit()) || v.len() > 9 {
        return Err(invalid(
            at,
            format!(
                "{name} \"{value}\" is not a rating: write a whole number, or \"\", \"?\", \"-\" or \"0\" for none"
            ),
        ));
    }
    let n: u32 = v.parse().unwrap_or(u32::MAX);
    match u16::try_from(n) {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(too_large(
            at,
            format!("{name} \"{value}\" is above 65535: no database stores such a rating"),
        )),
    }
}

/// `YYYY.MM.DD` with `??` for unknown parts (`""` and `"?"` mean wholly unknown).
pub(super) fn parse_date(tag: &str, value: &str, at: Pos) -> Result<PartialDate, ParseError> {
    if value.is_empty() || value == "?" {
        return Ok(PartialDate::default());
    }
    let bad = || {
        invalid(
            at,
            format!(
                "{tag} \"{value}\" is not a date: write YYYY.MM.DD with ?? (or ????) for unknown parts"
            ),
        )
    };
    let b = value.as_bytes();
    if b.len() != 10 || b[4] != b'.' || b[7] != b'.' {
        return Err(bad());
    }
    pub(super) fn part(p: &[u8]) -> Option<Option<u16>> {
        if p.iter().all(|&c| c == b'?') {
            Some(None)
        } else if p.iter().all(u8::is_ascii_digit) {
            Some(Some(
                p.iter().fold(0u16, |n, &c| n * 10 + u16::from(c - b'0')),
            ))
        } else {
            None
        }
    }
    let (year, month, day) = (
        part(&b[..4]).ok_or_else(bad)?,
        part(&b[5..7]).ok_or_else(bad)?,
        part(&b[8..]).ok_or_else(bad)?,
    );
    if year == Some(0) || month == Some(0) || day == Some(0) {
        return Err(invalid(
            at,
            format!("{tag} \"{value}\": write ?? (or ????) for an unknown part, not zeros"),
        ));
    }
    if month.is_some_and(|m| m > 12) || day.is_some_and(|d| d > 31) {
        return Err(bad());
    }
    Ok(PartialDate {
        year,
        month: month.map(|m| m as u8),
        day: day.map(|d| d as u8),
    })
}

/// A comment as SCID's import reads one (its PGN lexer's `normalize`): a line break, tab or
/// vertical tab next to other white space, or at either end, goes; elsewhere it becomes a
/// space (`a\r\nb` is `a b`, where [`normalize_comment`] gives `a  b`). Spaces at the ends go.
pub(super) fn scid_comment(text: &str) -> String {
    let breaks = |c: char| matches!(c, '\n' | '\r' | '\t' | '\u{b}');
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !breaks(c) {
            out.push(c);
            continue;
        }
        let next = chars.peek().copied();
        let alone =
            !out.is_empty() && !out.ends_with(' ') && next.is_some_and(|n| n != ' ' && !breaks(n));
        if alone {
            out.push(' ');
        }
    }
    out.trim_matches(' ').to_owned()
}

/// A comment's text (`raw`, found at `at`) as `reading` reads it, wherever it stands (before
/// the tags or in the movetext); refused when it holds a NUL byte, which SCID ends a comment
/// with (it could not be written back).
pub(super) fn comment_as_read(raw: &[u8], at: Pos, reading: Reading) -> Result<String, ParseError> {
    if raw.contains(&0) {
        return Err(invalid(
            at,
            "a comment cannot contain a NUL byte (SCID ends comments with one)".to_string(),
        ));
    }
    Ok(match reading {
        Reading::Exact => normalize_comment(&decode(raw)),
        Reading::AsScid => scid_comment(&decode(raw)),
        // SCID 5 trims the white space at the ends (pgn::trim) and keeps the rest.
        Reading::AsScid5 => decode(raw)
            .trim_matches([' ', '\n', '\r', '\t', '\u{b}'])
            .to_owned(),
        // pgn2dcg keeps a comment as written between its braces.
        Reading::AsPgn2dcg => decode(raw),
    })
}

/// A Date (or EventDate, UTCDate) as the importer of a loose `reading` reads it.
pub(super) fn date_as_read(value: &str, reading: Reading) -> PartialDate {
    match reading {
        Reading::AsScid5 => scid5_date(value),
        _ => scid_date(value),
    }
}

/// A Date as SCID 5's import reads one (its `date_parsePGNTag`): 4 to 10 characters; the
/// first four digits a year up to 2047 (else the whole date is unknown); a month after a
/// separator, of one or two digits, up to 12; a day after the next separator, up to 31.
pub(super) fn scid5_date(value: &str) -> PartialDate {
    let b = value.as_bytes();
    let unknown = PartialDate::default();
    if !(4..=10).contains(&b.len()) {
        return unknown;
    }
    // Each character's distance from '0'; -1 past the end.
    let mut t = [-1i32; 10];
    for (slot, &c) in t.iter_mut().zip(b) {
        *slot = i32::from(c) - i32::from(b'0');
    }
    let digit = |v: i32| (0..=9).contains(&v);
    let year = t[0] * 1000 + t[1] * 100 + t[2] * 10 + t[3];
    if !t[..4].iter().all(|&v| digit(v)) || year > 2047 {
        return unknown;
    }
    let mut month = 0;
    if !digit(t[4]) && digit(t[5]) {
        if !digit(t[6]) {
            // YYYY.M.DD or YYYY.M.D: the month's digit moves right, a 0 before it.
            t[5..].rotate_right(1);
            t[5] = 0;
        }
        month = t[5] * 10 + t[6];
        if month > 12 {
            month = 0;
        }
    }
    let mut day = 0;
    if !digit(t[7]) && digit(t[8]) {
        day = if digit(t[9]) { t[8] * 10 + t[9] } else { t[8] };
        if day > 31 {
            day = 0;
        }
    }
    let known = |n: i32| (n > 0).then_some(n);
    PartialDate {
        year: known(year).map(|y| y as u16),
        month: known(month).map(|m| m as u8),
        day: known(day).map(|d| d as u8),
    }
}

/// A Date as SCID's import reads one (`date_parsePGNTag`): the digits at the places of
/// `YYYY.MM.DD`, anything else there counting as 0; 0, a month over 12 and a day its month
/// cannot have are unknown (29 February only in leap years).
pub(super) fn scid_date(value: &str) -> PartialDate {
    let b = value.as_bytes();
    let digit = |i: usize| {
        b.get(i)
            .filter(|c| c.is_ascii_digit())
            .map_or(0, |c| u16::from(c - b'0'))
    };
    let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3);
    let month = digit(5) * 10 + digit(6);
    let month = if month > 12 { 0 } else { month };
    let day = digit(8) * 10 + digit(9);
    const DAYS: [u16; 13] = [31, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let day = if day > DAYS[usize::from(month)] && !(day == 29 && leap) {
        0
    } else {
        day
    };
    let known = |n: u16| (n != 0).then_some(n);
    PartialDate {
        year: known(year),
        month: known(month).map(|m| m as u8),
        day: known(day).map(|d| d as u8),
    }
}

/// A Result tag as SCID's import reads one: `*…` is unknown, else its first three characters
/// `1-0`, `0-1` or `1/2` say the result; anything else is unknown.
pub(super) fn scid_result(value: &str) -> GameResult {
    let b = value.as_bytes();
    match b.get(..3) {
        _ if b.starts_with(b"*") => GameResult::Unknown,
        Some(b"1-0") => GameResult::WhiteWins,
        Some(b"0-1") => GameResult::BlackWins,
        Some(b"1/2") => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// An ECO tag as SCID's import reads one: a letter A–E (either case), up to two digits
/// (missing ones 0), then optionally a letter a–z and a digit 1–4; the rest is ignored.
/// Anything else is no ECO.
pub(super) fn scid_eco(value: &str) -> Option<String> {
    let b = value.as_bytes();
    let letter = b.first()?.to_ascii_uppercase();
    if !(b'A'..=b'E').contains(&letter) {
        return None;
    }
    let digits = b[1..]
        .iter()
        .take(2)
        .take_while(|c| c.is_ascii_digit())
        .count();
    // The letter, two digits (missing ones 0) and SCID's extension: ASCII, on the stack.
    let mut code = [letter, b'0', b'0', 0, 0];
    code[1..=digits].copy_from_slice(&b[1..=digits]);
    let mut len = 3;
    let rest = &b[1 + digits..];
    if digits == 2
        && let Some(&ext) = rest.first().filter(|c| c.is_ascii_lowercase())
    {
        code[len] = ext;
        len += 1;
        if let Some(&n) = rest.get(1).filter(|c| (b'1'..=b'4').contains(c)) {
            code[len] = n;
            len += 1;
        }
    }
    std::str::from_utf8(&code[..len]).ok().map(str::to_owned)
}

/// `A00`…`E99`, optionally SCID's extension (a letter a–z and a digit 1–4); `""`/`"?"` = none.
pub(super) fn parse_eco(value: &str, at: Pos) -> Result<Option<String>, ParseError> {
    if value.is_empty() || value == "?" {
        return Ok(None);
    }
    let b = value.as_bytes();
    let ok = (3..=5).contains(&b.len())
        && (b'A'..=b'E').contains(&b[0])
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit()
        && b.get(3).is_none_or(u8::is_ascii_lowercase)
        && b.get(4).is_none_or(|d| (b'1'..=b'4').contains(d));
    if ok {
        Ok(Some(value.to_string()))
    } else {
        Err(invalid(
            at,
            format!(
                "ECO \"{value}\" is not a code A00..E99 (SCID also allows a letter a-z and a digit 1-4 after it, as in B91a3)"
            ),
        ))
    }
}

/// A FEN tag → SCID's full 6-field form and the position it describes.
pub(super) fn parse_fen(value: &str, at: Pos) -> Result<(String, Chess, bool), ParseError> {
    let bad = |why: String| invalid(at, format!("FEN \"{value}\": {why}"));
    let fields: Vec<&str> = value.split_ascii_whitespace().collect();
    if fields.len() != 4 && fields.len() != 6 {
        return Err(bad(format!(
            "needs 4 or 6 fields (placement, side to move, castling, en passant, then optionally halfmove clock and move number), found {}",
            fields.len()
        )));
    }
    let board = Board::from_ascii_board_fen(fields[0].as_bytes())
        .map_err(|e| bad(format!("bad piece placement ({e})")))?;
    let side = fields[1];
    if side != "w" && side != "b" {
        return Err(bad("the side to move must be \"w\" or \"b\"".to_string()));
    }
    let castling = match fields[2] {
        "-" => "-".to_string(),
        // Rook files (Shredder-FEN, X-FEN): Chess960 rights, kept as written.
        c if c.bytes().any(|b| matches!(b, b'A'..=b'H' | b'a'..=b'h')) => c.to_string(),
        c => {
            let mut out = String::new();
            for k in ['K', 'Q', 'k', 'q'] {
                match c.matches(k).count() {
                    0 => {}
                    1 => out.push(k),
                    _ => return Err(bad(format!("castling right {k} appears twice"))),
                }
            }
            if out.len() != c.len() {
                return Err(bad(format!(
                    "castling rights \"{c}\" must be \"-\" or letters from KQkq"
                )));
            }
            out
        }
    };
    let ep = fields[3];
    let ep_ok = ep == "-"
        || (ep.len() == 2
            && (b'a'..=b'h').contains(&ep.as_bytes()[0])
            && matches!(ep.as_bytes()[1], b'3' | b'6'));
    if !ep_ok {
        return Err(bad(format!(
            "en-passant square \"{ep}\" must be \"-\" or a square on rank 3 or 6"
        )));
    }
    let (half, full) = if fields.len() == 6 {
        let num = |s: &str, what: &str| {
            if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() && s.len() <= 9 {
                Ok(s.parse::<u32>().unwrap_or(0))
            } else {
                Err(bad(format!("{what} \"{s}\" must be a number")))
            }
        };
        (
            num(fields[4], "halfmove clock")?,
            num(fields[5], "move number")?,
        )
    } else {
        (0, 1)
    };
    // The board as shakmaty writes it (into a string at once: through `format!` it goes a
    // character at a time).
    let mut full_fen = String::with_capacity(value.len() + 8);
    board.board_fen().append_to_string(&mut full_fen);
    let _ = write!(full_fen, " {side} {castling} {ep} {half} {full}");
    let fen = Fen::from_ascii(full_fen.as_bytes()).ok();
    // The position in `mode`, or the reasons shakmaty refuses it (None: the FEN does not
    // parse).
    let in_mode = |mode| {
        fen.clone()
            .map(|f| f.into_position::<Chess>(mode).map_err(|e| e.kinds()))
    };
    let as_standard = in_mode(CastlingMode::Standard);
    // Castling rights that need a king or rook off its standard square make a Chess960 game
    // (as SCID 5 decides it).
    let bad_castling = PositionErrorKinds::INVALID_CASTLING_RIGHTS;
    let chess960 = matches!(&as_standard, Some(Err(kinds)) if kinds.contains(bad_castling))
        && in_mode(CastlingMode::Chess960)
            .is_some_and(|read| read.err().is_none_or(|kinds| !kinds.contains(bad_castling)));
    if !chess960
        && castling
            .bytes()
            .any(|b| matches!(b, b'A'..=b'H' | b'a'..=b'h'))
    {
        return Err(bad(format!(
            "castling rights \"{castling}\" name rook files where the board has no such rook"
        )));
    }
    let pos = match as_standard {
        // A legal standard position (as most are) is not read a second time.
        Some(Ok(pos)) => pos,
        _ => {
            let mode = match chess960 {
                true => CastlingMode::Chess960,
                false => CastlingMode::Standard,
            };
            position_from_fen_as(&full_fen, mode).map_err(|e| {
                let msg = e.message();
                let reason = msg.rsplit(": ").next().unwrap_or(msg);
                bad(format!("not a legal position ({reason})"))
            })?
        }
    };
    Ok((full_fen, pos, chess960))
}

#[cfg(test)]
mod tests {
    use super::{letter_run, printable_ascii_run};
    use crate::testing::Rng;

    /// What `fast` finds 8 bytes at a time is where looking at each byte in turn for one that
    /// `ends` takes finds it: at every length, in runs of bytes that `fill` gives (which `ends`
    /// does not take) with a few bytes of any value, and with every byte value at every place.
    fn ends_where_a_byte_at_a_time_ends(
        fast: fn(&[u8]) -> usize,
        ends: fn(u8) -> bool,
        fill: fn(&mut Rng) -> u8,
    ) {
        let one_by_one = |bytes: &[u8]| bytes.iter().position(|&b| ends(b)).unwrap_or(bytes.len());
        let mut rng = Rng(0x5EED_7A65);
        for _ in 0..20_000 {
            let len = rng.below(40);
            let mut bytes: Vec<u8> = (0..len).map(|_| fill(&mut rng)).collect();
            for _ in 0..rng.below(3) {
                if len > 0 {
                    bytes[rng.below(len)] = rng.below(256) as u8;
                }
            }
            assert_eq!(fast(&bytes), one_by_one(&bytes), "{bytes:?}");
        }
        for b in 0..=255u8 {
            for at in 0..20 {
                let mut bytes: Vec<u8> = (0..24).map(|_| fill(&mut rng)).collect();
                bytes[at] = b;
                assert_eq!(fast(&bytes), one_by_one(&bytes), "{b} at {at}");
            }
        }
    }

    #[test]
    fn a_letter_run_ends_where_a_byte_at_a_time_ends_it() {
        ends_where_a_byte_at_a_time_ends(
            letter_run,
            |b| !b.is_ascii_alphabetic(),
            |rng| *rng.pick(b"aAzZmQ"),
        );
    }

    #[test]
    fn a_printable_run_ends_where_a_byte_at_a_time_ends_it() {
        ends_where_a_byte_at_a_time_ends(
            printable_ascii_run,
            |b| !(0x20..0x7F).contains(&b) || b == b'"' || b == b'\\',
            |rng| loop {
                let b = 0x20 + rng.below(0x5F) as u8;
                if b != b'"' && b != b'\\' {
                    break b;
                }
            },
        );
    }
}
