//! PGN parsing: text → [`ChessGame`], for saves from editors and bulk imports.
//!
//! The reader reads PGN; what a database format can hold (SCID's 7 NAGs a move, 255-byte names,
//! years up to 2047, an EventDate within 3 years of the Date, …) is each store's business, and
//! the store refuses or fits what goes beyond. Anything the model cannot hold (two comments in
//! one slot, a Chess960 start, an illegal move, …) is refused with a [`ParseError`] that names
//! the line, column and reason; nothing is silently dropped or rewritten. Byte-order marks, CRLF, `%` escape lines,
//! missing tag sections, Latin-1 bytes, suffix annotations (`!?`), `0-0` castling, `;` comments
//! and missing move numbers are accepted.
//!
//! The tokenizer is hand-written (byte-oriented, positions tracked as it goes) because
//! pgn-reader's visitor cannot say where in the text a token was, and every refusal here must.
//! Variations are handled with an explicit stack, so any nesting depth is fine, and
//! [`games`] parses one game at a time, so memory is bounded by the largest game
//! ([`MAX_GAME_BYTES`]), not by the file.
//!
//! Tag mapping follows SCID's import (spec `scid4.md` §6, §7): the Seven Tag Roster, ratings,
//! ECO, EventDate and FEN go to [`Headers`] / [`StartPosition`]; every other tag is kept in
//! [`Headers::extra`] in file order.

use std::fmt;
use std::ops::Range;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{Board, CastlingMode, Chess, Color, Position, PositionErrorKinds};

use crate::error::{Error, ErrorKind};
use crate::game::legal;
use crate::game::replay::{fen_of, play_in_place, position_from_fen_as};
use crate::game::{
    ChessGame, GameResult, Headers, Line, MoveNode, PartialDate, Ply, Rating, RatingType,
    StartPosition, normalize_comment,
};

/// The text of one game may be at most this long. A SCID record is below 128 KiB, so any
/// storable game is far smaller; the cap bounds the memory one game can take.
pub const MAX_GAME_BYTES: usize = 4 << 20;
/// At most this many moves and variations in one game (every move takes at least a byte of a
/// SCID record, which holds less than 128 KiB). The cap bounds the memory one game's tree can
/// take, however deep its variations nest (a 4 MiB text could otherwise hold 700,000 levels).
pub const MAX_GAME_NODES: usize = 131_071;

/// Why text was refused: malformed, or well-formed but beyond what SCID 4 can store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The text is not valid PGN, or says something the model cannot hold (illegal move,
    /// two comments in one slot, a result that contradicts the Result tag, …).
    Invalid,
    /// The text is valid but exceeds a SCID 4 format limit (name length, NAGs per move,
    /// year, rating, game size); maps to [`ErrorKind::TooLarge`].
    TooLarge,
}

/// Where and why PGN text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the offending token.
    pub line: u32,
    /// 1-based column of the offending token, counted in characters.
    pub column: u32,
    /// 1-based index of the game in the text.
    pub game: u32,
    /// Malformed input or a format limit.
    pub kind: ParseErrorKind,
    /// What is wrong, in words a user can act on.
    pub message: String,
    /// The bytes of the refused game in the text (given by [`Games`]; empty otherwise), so a
    /// bulk import can keep them for the user to mend.
    pub text: Range<usize>,
}

impl fmt::Display for ParseError {
    /// `line L, column C: message`, the form logs and editors' users read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

impl From<ParseError> for Error {
    /// A refused text becomes `InvalidInput` (EINVAL), or `TooLarge` (EFBIG) for format limits.
    fn from(e: ParseError) -> Error {
        let kind = match e.kind {
            ParseErrorKind::Invalid => ErrorKind::InvalidInput,
            ParseErrorKind::TooLarge => ErrorKind::TooLarge,
        };
        Error::new(kind, e.to_string())
    }
}

/// Every game of a PGN text, in order (bulk import of a whole file).
///
/// Games are parsed one at a time as the iterator advances. After a refused game the
/// iterator skips to the next game (the next tag section or the text after a termination
/// marker) and goes on, so one bad game does not hide the rest.
pub fn games(text: &[u8]) -> impl Iterator<Item = Result<ChessGame, ParseError>> + '_ {
    Games::new(text).map(|read| read.map(|r| r.game))
}

/// How text that is PGN only in the loose sense of real-world files is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reading {
    /// Refuse it, naming what to mend: a game saved from an editor keeps what its user wrote,
    /// or is refused.
    #[default]
    Exact,
    /// Read it as SCID's PGN import reads it (two comments in one place joined, a Date as
    /// its digits say, a Result tag by its first characters, the last of a tag given twice,
    /// …), and say what was changed: a bulk import of real-world files.
    AsScid,
    /// As [`Reading::AsScid`], except where SCID 5's import reads otherwise: a comment keeps
    /// its line breaks and tabs, and only the white space at its ends is dropped.
    AsScid5,
    /// As [`Reading::AsScid`], except where pgn2dcg, the Simple Chess Database's own
    /// importer, reads otherwise: a tag value keeps its escapes as written (`\"Zonal\"`), and
    /// the Result tag wins over the game's end.
    AsPgn2dcg,
}

impl Reading {
    /// Whether odd text is read as a real-world importer reads it, not refused.
    fn loose(self) -> bool {
        self != Reading::Exact
    }
}

/// A game read from a text, with where it stands there (for reports about it).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadGame {
    /// The game.
    pub game: ChessGame,
    /// Its 1-based number among the text's games.
    pub number: u32,
    /// The 1-based line it starts on.
    pub line: u32,
    /// Its bytes in the text.
    pub text: Range<usize>,
    /// What reading it changed: the line, and a phrase (only with a reading other than
    /// [`Reading::Exact`]).
    pub changes: Vec<(u32, String)>,
    /// Whether it ends with a termination marker (`1-0`, `*`, …): a text cut short does not.
    pub ended: bool,
}

/// The games of a PGN text one by one, each with its place ([`games`] without the places).
pub struct Games<'a> {
    lx: Lexer<'a>,
    game: u32,
}

impl<'a> Games<'a> {
    /// The games of `text` from its start (after a byte-order mark).
    pub fn new(text: &'a [u8]) -> Games<'a> {
        Games {
            lx: Lexer::new(text),
            game: 0,
        }
    }

    /// These games read as `reading` says.
    pub fn reading(mut self, reading: Reading) -> Games<'a> {
        self.lx.reading = reading;
        self
    }

    /// The games of `text` from byte `offset` on, the start of line `line`, where `before`
    /// games came earlier: what [`Games::new`] yields from there, when it is between games
    /// at `offset` (a parser taking over a part of a text another one started).
    pub fn resume(text: &'a [u8], offset: usize, line: u32, before: u32) -> Games<'a> {
        Games {
            lx: Lexer {
                text,
                at: Pos {
                    offset,
                    line,
                    col: 1,
                },
                reading: Reading::Exact,
                changes: Vec::new(),
                ended: false,
            },
            game: before,
        }
    }

    /// Where the next game starts (its byte offset and line), or the end of the text.
    pub fn next_start(&mut self) -> (usize, u32) {
        self.lx.skip_space();
        (self.lx.at.offset, self.lx.at.line)
    }

    /// How many games were read so far, counting those before a [`Games::resume`].
    pub fn count(&self) -> u32 {
        self.game
    }
}

/// Exactly one game (saving an existing game's file): an empty text, or text after the
/// first game's end, is an error.
pub fn one_game(text: &[u8]) -> Result<ChessGame, ParseError> {
    let mut games = Games::new(text);
    let Some(first) = games.next().map(|read| read.map(|r| r.game)) else {
        let mut e = invalid(games.lx.at, "the text holds no game".to_string());
        e.game = 1;
        return Err(e);
    };
    let game = first?;
    games.lx.skip_space();
    if games.lx.peek().is_some() {
        let mut e = invalid(
            games.lx.at,
            "text after the end of the game (a file holds exactly one game)".to_string(),
        );
        e.game = 2;
        return Err(e);
    }
    Ok(game)
}

// ---------------------------------------------------------------------------------------------
// Errors

fn invalid(at: Pos, message: String) -> ParseError {
    ParseError {
        line: at.line,
        column: at.col,
        game: 0,
        kind: ParseErrorKind::Invalid,
        message,
        text: 0..0,
    }
}

fn too_large(at: Pos, message: String) -> ParseError {
    ParseError {
        kind: ParseErrorKind::TooLarge,
        ..invalid(at, message)
    }
}

// ---------------------------------------------------------------------------------------------
// Lexer

/// A place in the text: byte offset, and 1-based line and column (for messages).
#[derive(Clone, Copy, Debug)]
struct Pos {
    offset: usize,
    line: u32,
    col: u32,
}

/// Reads bytes and keeps track of line and column; carries how odd text is read, and what
/// the reading changed in the game being read.
struct Lexer<'a> {
    text: &'a [u8],
    at: Pos,
    reading: Reading,
    /// What reading the current game changed: the line, and a phrase.
    changes: Vec<(u32, String)>,
    /// Whether the game read last ended with a termination marker.
    ended: bool,
}

impl Lexer<'_> {
    /// Note that reading the current game at `at` changed something.
    fn changed(&mut self, at: Pos, what: String) {
        self.changes.push((at.line, what));
    }
}

impl<'a> Lexer<'a> {
    fn new(text: &'a [u8]) -> Lexer<'a> {
        let offset = if text.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        Lexer {
            text,
            at: Pos {
                offset,
                line: 1,
                col: 1,
            },
            reading: Reading::Exact,
            changes: Vec::new(),
            ended: false,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at.offset).copied()
    }

    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.at.offset += 1;
            if b == b'\n' {
                self.at.line = self.at.line.saturating_add(1);
                self.at.col = 1;
            } else if !(0x80..0xC0).contains(&b) {
                // UTF-8 continuation bytes do not start a new character.
                self.at.col = self.at.col.saturating_add(1);
            }
        }
    }

    /// Skip whitespace and `%` escape lines; returns how many line breaks were crossed.
    fn skip_space(&mut self) -> usize {
        let mut newlines = 0;
        while let Some(b) = self.peek() {
            match b {
                b'\n' => {
                    newlines += 1;
                    self.bump();
                }
                b' ' | b'\t' | b'\r' | 0x0B | 0x0C => self.bump(),
                b'%' if self.at.col == 1 => {
                    self.rest_of_line();
                }
                _ => break,
            }
        }
        newlines
    }

    /// The bytes up to (not including) the next line break; CR before it is left out.
    fn rest_of_line(&mut self) -> &'a [u8] {
        let start = self.at.offset;
        while self.peek().is_some_and(|b| b != b'\n') {
            self.bump();
        }
        let line = &self.text[start..self.at.offset];
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.at.offset;
        while self.peek().is_some_and(&f) {
            self.bump();
        }
        &self.text[start..self.at.offset]
    }

    /// A movetext word: everything up to whitespace or a delimiter. Found in one scan (a word
    /// holds no line break, so only the column moves: by its characters).
    fn word(&mut self) -> &'a [u8] {
        let rest = &self.text[self.at.offset..];
        let (mut len, mut continuations) = (0, 0);
        while let Some(&b) = rest.get(len)
            && !WORD_ENDS[usize::from(b)]
        {
            // UTF-8 continuation bytes do not start a new character.
            continuations += usize::from(b & 0xC0 == 0x80);
            len += 1;
        }
        self.at.offset += len;
        let chars = u32::try_from(len - continuations).unwrap_or(u32::MAX);
        self.at.col = self.at.col.saturating_add(chars);
        &rest[..len]
    }

    /// A `{…}` comment, at its opening brace; returns the text between the braces.
    fn brace_comment(&mut self) -> Result<&'a [u8], ParseError> {
        let open = self.at;
        self.bump();
        let text = self.take_while(|b| b != b'}');
        if self.peek().is_none() {
            return Err(invalid(
                open,
                "comment opened here is never closed with '}'".to_string(),
            ));
        }
        self.bump();
        Ok(text)
    }
}

/// The bytes that end a movetext word: whitespace and delimiters (a table: [`Lexer::word`]
/// looks up every byte of every move).
const WORD_ENDS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_space(b as u8)
            || matches!(
                b as u8,
                b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'$' | b'"'
            );
        b += 1;
    }
    table
};

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C)
}

/// Text as SCID reads it: UTF-8 where valid, every other byte taken as Latin-1.
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => {
            let mut s = String::with_capacity(bytes.len() + bytes.len() / 2);
            for chunk in bytes.utf8_chunks() {
                s.push_str(chunk.valid());
                s.extend(chunk.invalid().iter().map(|&b| char::from(b)));
            }
            s
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The game iterator

impl Iterator for Games<'_> {
    type Item = Result<ReadGame, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.lx.skip_space();
        self.lx.peek()?;
        self.game = self.game.saturating_add(1);
        let start = self.lx.at;
        let mut in_movetext = false;
        self.lx.changes.clear();
        match parse_game(&mut self.lx, &mut in_movetext) {
            Ok(game) => Some(Ok(ReadGame {
                game,
                number: self.game,
                line: start.line,
                text: start.offset..self.lx.at.offset,
                changes: std::mem::take(&mut self.lx.changes),
                ended: self.lx.ended,
            })),
            Err(mut e) => {
                e.game = self.game;
                skip_rest_of_game(&mut self.lx, in_movetext);
                if self.lx.at.offset == start.offset {
                    self.lx.bump();
                }
                e.text = start.offset..self.lx.at.offset;
                Some(Err(e))
            }
        }
    }
}

/// After a refused game, move to where the next game starts: just after a termination
/// marker, or at a `[` that begins a line after movetext or after a blank line.
fn skip_rest_of_game(lx: &mut Lexer<'_>, in_movetext: bool) {
    let mut seen_movetext = in_movetext;
    if !in_movetext {
        lx.rest_of_line();
    }
    loop {
        let newlines = lx.skip_space();
        let Some(b) = lx.peek() else { return };
        match b {
            b'[' if seen_movetext || newlines >= 2 => return,
            b'[' => {
                lx.rest_of_line();
            }
            b'{' => {
                if lx.brace_comment().is_err() {
                    while lx.peek().is_some() {
                        lx.bump();
                    }
                }
                seen_movetext = true;
            }
            b';' => {
                lx.rest_of_line();
            }
            _ => {
                let word = lx.word();
                if word.is_empty() {
                    lx.bump();
                }
                seen_movetext = true;
                if result_marker(word).is_some() {
                    return;
                }
            }
        }
    }
}

/// A termination marker as SCID's import knows them: the four of PGN, and `1/2`, `1:0`, `0:1`
/// and `1/2:1/2` as some programs write them.
fn scid_marker(word: &[u8]) -> Option<GameResult> {
    match word {
        b"1/2" | b"1/2:1/2" => Some(GameResult::Draw),
        b"1:0" => Some(GameResult::WhiteWins),
        b"0:1" => Some(GameResult::BlackWins),
        _ => result_marker(word),
    }
}

fn result_marker(word: &[u8]) -> Option<GameResult> {
    match word {
        b"1-0" => Some(GameResult::WhiteWins),
        b"0-1" => Some(GameResult::BlackWins),
        b"1/2-1/2" => Some(GameResult::Draw),
        b"*" => Some(GameResult::Unknown),
        _ => None,
    }
}

fn parse_game(lx: &mut Lexer<'_>, in_movetext: &mut bool) -> Result<ChessGame, ParseError> {
    let game_start = lx.at.offset;
    let before_tags = comments_before_tags(lx)?;
    let mut tags = Vec::new();
    loop {
        lx.skip_space();
        if lx.peek() != Some(b'[') {
            break;
        }
        if lx.at.offset - game_start > MAX_GAME_BYTES {
            return Err(game_too_large(lx.at));
        }
        tags.push(parse_tag(lx)?);
    }
    let tags = interpret_tags(tags, lx)?;
    *in_movetext = true;
    let (mut line, marker) = parse_movetext(lx, tags.position.clone(), game_start)?;
    lx.ended = marker.is_some();
    if let Some((text, at)) = before_tags {
        lx.changed(
            at,
            "a comment before the game's tags kept as its first comment".into(),
        );
        line.comment = Some(text + line.comment.as_deref().unwrap_or(""));
    }
    finish_game(tags, line, marker, lx)
}

/// With [`Reading::AsScid`], the comments before a game's tags (often what a program wrote
/// after the previous game's end): SCID gives them to this game, before its first move.
fn comments_before_tags(lx: &mut Lexer<'_>) -> Result<Option<(String, Pos)>, ParseError> {
    if !lx.reading.loose() {
        return Ok(None);
    }
    let mut found: Option<(String, Pos)> = None;
    loop {
        lx.skip_space();
        let at = lx.at;
        let raw = match lx.peek() {
            Some(b'{') => lx.brace_comment()?.into(),
            Some(b';') => {
                lx.bump();
                line_comment(lx, at)?
            }
            _ => return Ok(found.filter(|(text, _)| !text.is_empty())),
        };
        let text = comment_as_read(&raw, lx.reading);
        found.get_or_insert((String::new(), at)).0.push_str(&text);
    }
}

/// The rest of a `;` comment's line, after its `;`. It is written back as a `{…}` comment,
/// which shows a `}` as `)`: refused, or with [`Reading::AsScid`] kept (noted).
fn line_comment<'a>(lx: &mut Lexer<'a>, at: Pos) -> Result<std::borrow::Cow<'a, [u8]>, ParseError> {
    let raw = lx.rest_of_line();
    if !raw.contains(&b'}') {
        return Ok(raw.into());
    }
    if !lx.reading.loose() {
        return Err(invalid(
            at,
            "a ';' comment containing '}' cannot be kept: it is written back as a {…} comment; remove the '}'".to_string(),
        ));
    }
    // Kept, as SCID keeps it; the text shows it as ')', which a {…} comment can hold.
    lx.changed(at, "'}' in a ';' comment kept (shown as ')')".into());
    Ok(raw.into())
}

fn game_too_large(at: Pos) -> ParseError {
    too_large(
        at,
        format!(
            "the game's text is longer than {} MiB; a SCID 4 game record holds less than 128 KiB",
            MAX_GAME_BYTES >> 20
        ),
    )
}

fn finish_game(
    tags: Tags,
    moves: Line,
    marker: Option<(GameResult, Pos)>,
    lx: &mut Lexer<'_>,
) -> Result<ChessGame, ParseError> {
    let mut headers = tags.headers;
    match (tags.result, marker) {
        (Some((tag, _)), Some((end, end_at))) if tag != end && lx.reading == Reading::AsPgn2dcg => {
            // pgn2dcg stores the tag.
            lx.changed(
                end_at,
                format!(
                    "the game's end \"{}\" gave way to its Result tag \"{}\"",
                    end.as_pgn(),
                    tag.as_pgn()
                ),
            );
            headers.result = tag;
        }
        (Some((tag, _)), Some((end, end_at)))
            if tag != end && matches!(lx.reading, Reading::AsScid | Reading::AsScid5) =>
        {
            // SCID takes the game's end over the tag.
            lx.changed(
                end_at,
                format!(
                    "the Result tag \"{}\" gave way to the game's end \"{}\"",
                    tag.as_pgn(),
                    end.as_pgn()
                ),
            );
            headers.result = end;
        }
        (Some((tag, tag_at)), Some((end, end_at))) if tag != end => {
            return Err(invalid(
                end_at,
                format!(
                    "the game ends with \"{}\" but its Result tag (line {}) says \"{}\"; make them agree",
                    end.as_pgn(),
                    tag_at.line,
                    tag.as_pgn()
                ),
            ));
        }
        (Some((tag, _)), _) => headers.result = tag,
        (None, Some((end, _))) => headers.result = end,
        (None, None) => headers.result = GameResult::Unknown,
    }
    Ok(ChessGame {
        headers,
        start: tags.start,
        moves,
    })
}

// ---------------------------------------------------------------------------------------------
// Tags

/// One tag pair as written, decoded and unescaped.
struct RawTag {
    name: String,
    value: String,
    /// The `[`.
    at: Pos,
    /// The first character of the value (just after the opening quote).
    value_at: Pos,
}

/// `[Name "value"]`, at its `[`.
fn parse_tag(lx: &mut Lexer<'_>) -> Result<RawTag, ParseError> {
    let at = lx.at;
    lx.bump();
    lx.take_while(|b| b == b' ' || b == b'\t');
    let name_at = lx.at;
    let name = lx.take_while(|b| !is_space(b) && b != b'"' && b != b']');
    if name.is_empty() {
        return Err(invalid(name_at, "a tag needs a name after '['".to_string()));
    }
    let symbol = name[0].is_ascii_alphanumeric()
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_+#=:-".contains(&b));
    if !symbol {
        return Err(invalid(
            name_at,
            format!(
                "tag name \"{}\" must start with a letter or digit and contain only letters, digits and _+#=:-",
                decode(name)
            ),
        ));
    }
    let name = decode(name);
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
    // Control characters cannot be written back in a tag value (SCID turns them into spaces too).
    let value: String = decode(&value)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Ok(RawTag {
        name,
        value,
        at,
        value_at,
    })
}

/// The tag section turned into model parts.
struct Tags {
    headers: Headers,
    start: StartPosition,
    position: Chess,
    result: Option<(GameResult, Pos)>,
}

/// Map tag pairs to headers, start position and extra tags (spec §6, §7).
fn interpret_tags(raw: Vec<RawTag>, lx: &mut Lexer<'_>) -> Result<Tags, ParseError> {
    let as_scid = lx.reading.loose();
    let mut h = Headers::default();
    let mut seen: Vec<&'static str> = Vec::new();
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
        let index_tag = crate::game::chess::FIELD_TAGS
            .into_iter()
            .find(|t| *t == name);
        if let Some(t) = index_tag {
            if seen.contains(&t) && as_scid {
                lx.changed(at, format!("tag {t} given twice: the last one kept"));
            } else if seen.contains(&t) {
                return Err(invalid(at, format!("tag {t} appears twice; keep one")));
            }
            seen.push(t);
        }
        match name.as_str() {
            "Event" | "Site" | "Round" | "White" | "Black" => {
                let field = match name.as_str() {
                    "Event" => &mut h.event,
                    "Site" => &mut h.site,
                    "Round" => &mut h.round,
                    "White" => &mut h.white,
                    _ => &mut h.black,
                };
                *field = value;
            }
            "Date" | "EventDate" if as_scid => {
                let d = date_as_read(&value, lx.reading);
                if !value.is_empty() && value != "?" && d.to_string() != value {
                    lx.changed(value_at, format!("{name} \"{value}\" read as {d}"));
                }
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
                    lx.changed(value_at, format!("Date taken from UTCDate \"{value}\""));
                }
                h.extra.push((name, value));
            }
            "Result" if as_scid => {
                let r = scid_result(&value);
                if result_marker(value.as_bytes()) != Some(r) {
                    lx.changed(
                        value_at,
                        format!("Result \"{value}\" read as \"{}\"", r.as_pgn()),
                    );
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
                let shown = h.eco.as_deref().unwrap_or("none");
                if !matches!(value.as_str(), "" | "?") && shown != value {
                    lx.changed(value_at, format!("ECO \"{value}\" read as {shown}"));
                }
            }
            "ECO" => h.eco = parse_eco(&value, value_at)?,
            "FEN" => fen = Some((value, value_at)),
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
                h.extra.push((name, value));
            }
            _ => {
                if let Some((white, kind)) = rating_tag(&name) {
                    let slot = if white {
                        &mut h.white_rating
                    } else {
                        &mut h.black_rating
                    };
                    if slot.is_none() {
                        let rating = match parse_rating(&name, &value, value_at) {
                            Err(e) if as_scid => {
                                lx.changed(value_at, format!("{} (dropped)", e.message));
                                None
                            }
                            read => read?,
                        };
                        *slot = rating.map(|value| Rating { value, kind });
                        continue;
                    }
                }
                if name == "SetUp" || name == "Setup" {
                    setups.push((value.clone(), value_at));
                }
                h.extra.push((name, value));
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

/// `WhiteElo` → (true, Elo); `BlackUSCF` → (false, Uscf); other names → None.
fn rating_tag(name: &str) -> Option<(bool, RatingType)> {
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
fn parse_rating(name: &str, value: &str, at: Pos) -> Result<Option<u16>, ParseError> {
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
fn parse_date(tag: &str, value: &str, at: Pos) -> Result<PartialDate, ParseError> {
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
    fn part(p: &[u8]) -> Option<Option<u16>> {
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
fn scid_comment(text: &str) -> String {
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

/// A comment's text as `reading` reads it.
fn comment_as_read(raw: &[u8], reading: Reading) -> String {
    match reading {
        Reading::Exact => normalize_comment(&decode(raw)),
        Reading::AsScid => scid_comment(&decode(raw)),
        // SCID 5 trims the white space at the ends (pgn::trim) and keeps the rest.
        Reading::AsScid5 => decode(raw)
            .trim_matches([' ', '\n', '\r', '\t', '\u{b}'])
            .to_owned(),
        // pgn2dcg keeps a comment as written between its braces.
        Reading::AsPgn2dcg => decode(raw),
    }
}

/// A Date (or EventDate, UTCDate) as the importer of a loose `reading` reads it.
fn date_as_read(value: &str, reading: Reading) -> PartialDate {
    match reading {
        Reading::AsScid5 => scid5_date(value),
        _ => scid_date(value),
    }
}

/// A Date as SCID 5's import reads one (its `date_parsePGNTag`): 4 to 10 characters; the
/// first four digits a year up to 2047 (else the whole date is unknown); a month after a
/// separator, of one or two digits, up to 12; a day after the next separator, up to 31.
fn scid5_date(value: &str) -> PartialDate {
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
fn scid_date(value: &str) -> PartialDate {
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
fn scid_result(value: &str) -> GameResult {
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
fn scid_eco(value: &str) -> Option<String> {
    let b = value.as_bytes();
    let letter = b.first()?.to_ascii_uppercase();
    if !(b'A'..=b'E').contains(&letter) {
        return None;
    }
    let digits: Vec<u8> = b[1..]
        .iter()
        .take(2)
        .take_while(|c| c.is_ascii_digit())
        .copied()
        .collect();
    let mut code = vec![letter];
    code.extend(&digits);
    code.resize(3, b'0');
    let rest = &b[1 + digits.len()..];
    if digits.len() == 2
        && let Some(&ext) = rest.first().filter(|c| c.is_ascii_lowercase())
    {
        code.push(ext);
        if let Some(&n) = rest.get(1).filter(|c| (b'1'..=b'4').contains(c)) {
            code.push(n);
        }
    }
    String::from_utf8(code).ok()
}

/// `A00`…`E99`, optionally SCID's extension (a letter a–z and a digit 1–4); `""`/`"?"` = none.
fn parse_eco(value: &str, at: Pos) -> Result<Option<String>, ParseError> {
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
fn parse_fen(value: &str, at: Pos) -> Result<(String, Chess, bool), ParseError> {
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
    let full_fen = format!("{board} {side} {castling} {ep} {half} {full}");
    // The reasons shakmaty refuses the position in `mode` (None: the FEN does not parse).
    let refusal = |mode| {
        Fen::from_ascii(full_fen.as_bytes()).ok().map(|f| {
            f.into_position::<Chess>(mode)
                .err()
                .map_or(PositionErrorKinds::empty(), |e| e.kinds())
        })
    };
    // Castling rights that need a king or rook off its standard square make a Chess960 game
    // (as SCID 5 decides it).
    let bad_castling = PositionErrorKinds::INVALID_CASTLING_RIGHTS;
    let standard = refusal(CastlingMode::Standard).unwrap_or_default();
    let chess960 = standard.contains(bad_castling)
        && refusal(CastlingMode::Chess960).is_some_and(|k| !k.contains(bad_castling));
    if !chess960
        && castling
            .bytes()
            .any(|b| matches!(b, b'A'..=b'H' | b'a'..=b'h'))
    {
        return Err(bad(format!(
            "castling rights \"{castling}\" name rook files where the board has no such rook"
        )));
    }
    let mode = match chess960 {
        true => CastlingMode::Chess960,
        false => CastlingMode::Standard,
    };
    let pos = position_from_fen_as(&full_fen, mode).map_err(|e| {
        let msg = e.message();
        let reason = msg.rsplit(": ").next().unwrap_or(msg);
        bad(format!("not a legal position ({reason})"))
    })?;
    Ok((full_fen, pos, chess960))
}

// ---------------------------------------------------------------------------------------------
// Movetext

/// A line being built: the main line or an open variation.
struct Frame {
    line: Line,
    /// The position after the line's last move.
    pos: Chess,
    /// The position before the line's last move (None while the line has no move).
    before: Option<Chess>,
    /// Where the variation's `(` is (the game start for the main line).
    open: Pos,
    /// Variations of the last move have been closed since it was played.
    after_variation: bool,
}

impl Frame {
    fn new(pos: Chess, open: Pos) -> Frame {
        Frame {
            line: Line::default(),
            pos,
            before: None,
            open,
            after_variation: false,
        }
    }

    /// `12. Nf3`, `12... Nf6` or `12. --`: the last move, for messages.
    fn last_move_text(&self) -> String {
        match (&self.before, self.line.moves.last()) {
            (Some(before), Some(node)) => move_text(before, &node.ply),
            _ => "the start".to_string(),
        }
    }
}

fn move_text(before: &Chess, ply: &Ply) -> String {
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
const MAIN_LINE_CAPACITY: usize = 256;

fn parse_movetext(
    lx: &mut Lexer<'_>,
    start: Chess,
    game_start: usize,
) -> Result<(Line, Option<(GameResult, Pos)>), ParseError> {
    let mut stack = vec![Frame::new(start, lx.at)];
    // Room for a typical main line at once, not grown move by move.
    stack[0].line.moves.reserve(MAIN_LINE_CAPACITY);
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
            return Err(game_too_large(at));
        }
        let Some(b) = lx.peek() else { break None };
        let Some(top) = stack.last_mut() else {
            break None;
        };
        match b {
            b'[' => break None,
            b'{' => {
                let raw = lx.brace_comment()?;
                if lx.at.offset - game_start > MAX_GAME_BYTES {
                    return Err(game_too_large(at));
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
                    return Err(invalid(
                        at,
                        "a variation must follow the move it replaces, but this line has no move yet".to_string(),
                    ));
                };
                count_node(at)?;
                stack.push(Frame::new(before, at));
            }
            b')' => {
                lx.bump();
                if stack.len() < 2 {
                    return Err(invalid(at, "')' without a matching '('".to_string()));
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
                    return Err(invalid(
                        at,
                        "'$' must be followed by a NAG number".to_string(),
                    ));
                }
                let n = if digits.len() > 3 {
                    u32::MAX
                } else {
                    digits
                        .iter()
                        .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'))
                };
                let n = u8::try_from(n)
                    .map_err(|_| invalid(at, format!("NAG ${} is above $255", decode(digits))))?;
                add_nag(top, n, at)?;
            }
            b'}' | b']' => {
                lx.bump();
                return Err(invalid(
                    at,
                    format!("'{}' without a matching opening bracket", char::from(b)),
                ));
            }
            _ => {
                let word = lx.word();
                if word.is_empty() {
                    // A lone '"': nothing a movetext can hold.
                    lx.bump();
                    return Err(invalid(at, format!("unexpected '{}'", char::from(b))));
                }
                let marker = match lx.reading {
                    Reading::Exact => result_marker(word),
                    Reading::AsScid | Reading::AsScid5 | Reading::AsPgn2dcg => scid_marker(word),
                };
                if let Some(r) = marker {
                    if stack.len() > 1 {
                        return Err(invalid(
                            at,
                            format!(
                                "the game ends with \"{}\" inside a variation; close it with ')' first",
                                r.as_pgn()
                            ),
                        ));
                    }
                    break Some((r, at));
                }
                let plies = top.line.moves.len();
                handle_word(top, word, at, lx.reading)?;
                if top.line.moves.len() > plies {
                    count_node(at)?;
                }
            }
        }
    };
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

/// A comment: to the line's start if it has no move yet, else to its last move.
fn add_comment(
    frame: &mut Frame,
    raw: &[u8],
    at: Pos,
    lx: &mut Lexer<'_>,
) -> Result<(), ParseError> {
    if raw.contains(&0) {
        return Err(invalid(
            at,
            "a comment cannot contain a NUL byte (SCID ends comments with one)".to_string(),
        ));
    }
    let text = comment_as_read(raw, lx.reading);
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
        lx.changed(at, "two comments in one place joined".to_string());
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

fn add_nag(frame: &mut Frame, nag: u8, at: Pos) -> Result<(), ParseError> {
    if nag == 0 {
        return Err(invalid(
            at,
            "NAG $0 means nothing and SCID does not store it; remove it".to_string(),
        ));
    }
    let Some(node) = frame.line.moves.last_mut() else {
        return Err(invalid(
            at,
            "an annotation (NAG) must follow a move, but this line has no move yet".to_string(),
        ));
    };
    node.nags.push(nag);
    Ok(())
}

/// Suffix annotations and the symbols SCID converts to NAGs (README: `+=`, `-+`, `N`, …).
fn symbol_nag(s: &[u8]) -> Option<u8> {
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
fn handle_word(
    frame: &mut Frame,
    word: &[u8],
    at: Pos,
    reading: Reading,
) -> Result<(), ParseError> {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    let dots = word[digits..].iter().take_while(|&&b| b == b'.').count();
    let rest = if digits == word.len() || dots > 0 {
        &word[digits + dots..]
    } else {
        word
    };
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
            ));
        }
        push_move(frame, Ply::Null);
        return Ok(());
    }
    if let Some(n) = symbol_nag(rest) {
        return add_nag(frame, n, at);
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
            invalid(
                at,
                format!(
                    "\"{}\" is not an annotation (use !, ?, !!, ??, !? or ?!)",
                    decode(suffix)
                ),
            )
        })?)
    };
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
        return suffix_nag.map_or(Ok(()), |n| add_nag(frame, n, at));
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
            invalid(
                at,
                format!(
                    "\"{}\" is not a move, move number, annotation or result",
                    decode(word)
                ),
            )
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
            return Err(invalid(
                at,
                format!(
                    "ambiguous move {number}{dots} {} (could be {}) in position {}",
                    shown(),
                    options.join(" or "),
                    fen_of(&frame.pos)
                ),
            ));
        }
        Err(SanError::IllegalSan) => {
            return Err(invalid(
                at,
                format!(
                    "illegal move {number}{dots} {} in position {}",
                    shown(),
                    fen_of(&frame.pos)
                ),
            ));
        }
    };
    push_move(frame, Ply::Move(m));
    if let Some(n) = suffix_nag {
        add_nag(frame, n, at)?;
    }
    Ok(())
}

/// A move written in coordinates (`e2e4`, `e7e8q`, `e1g1` for castling), as UCI engines and
/// some programs write moves and SCID reads them, when it is legal here.
fn coordinate_move(text: &[u8], pos: &Chess) -> Option<shakmaty::Move> {
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
fn promotion_without_equals(san: &[u8]) -> Option<usize> {
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
fn lenient_capture(
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
fn push_move(frame: &mut Frame, ply: Ply) {
    match &mut frame.before {
        Some(before) => before.clone_from(&frame.pos),
        None => frame.before = Some(frame.pos.clone()),
    }
    // A null move was checked by the caller; a move came from the position's legal moves.
    let _ = play_in_place(&mut frame.pos, &ply);
    frame.line.moves.push(MoveNode::new(ply));
    frame.after_variation = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::replay::play;
    use crate::text::pgn::render;
    use proptest::prelude::*;

    const ROOT: &str = env!("CARGO_MANIFEST_DIR");

    fn read(path: &str) -> Vec<u8> {
        std::fs::read(format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// parse(render(g)) == g, and rendering is a fixed point.
    fn assert_round_trip(g: &ChessGame) {
        let text = render(g).expect("render");
        let again = one_game(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(&again, g, "{text}");
        assert_eq!(render(&again).expect("render"), text);
    }

    fn ok(text: &str) -> ChessGame {
        one_game(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The refusal of `text`: at `line`/`column`, with `part` in its message.
    fn refused(text: &str, line: u32, column: u32, part: &str) -> ParseError {
        let e = one_game(text.as_bytes()).expect_err("should be refused");
        assert!(e.message.contains(part), "{e:?} lacks {part:?}");
        assert_eq!((e.line, e.column), (line, column), "{e}");
        e
    }

    // ---- round trips over the sample and test data -------------------------------------------

    /// Games of the test data that must be refused, with part of the message.
    const REFUSED: &[(&str, usize, &str)] = &[
        ("tags.pgn", 6, "BlackRating \"abc\" is not a rating"),
        ("tags.pgn", 10, "ECO \"c1\" is not a code"),
        (
            "annotations.pgn",
            1,
            "a second comment after 3... a6; join them into one comment",
        ),
    ];

    #[test]
    fn sample_and_test_data_round_trip() {
        let mut files = vec!["contrib/sample/demo.pgn".to_string()];
        let mut data: Vec<String> = std::fs::read_dir(format!("{ROOT}/tests/data"))
            .expect("tests/data")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".pgn"))
            .map(|n| format!("tests/data/{n}"))
            .collect();
        data.sort();
        assert!(data.len() >= 10, "{data:?}");
        files.extend(data);
        let mut checked = 0;
        let mut refusals = 0;
        for file in &files {
            let text = read(file);
            let name = file.rsplit('/').next().unwrap_or(file);
            let mut count = 0;
            for (i, result) in games(&text).enumerate() {
                count += 1;
                let expected = REFUSED.iter().find(|(f, n, _)| *f == name && *n == i + 1);
                match (result, expected) {
                    (Ok(g), None) => {
                        assert_round_trip(&g);
                        checked += 1;
                    }
                    (Err(e), Some((_, _, part))) => {
                        assert!(e.message.contains(part), "{file} game {}: {e}", i + 1);
                        assert_eq!(e.game as usize, i + 1);
                        refusals += 1;
                    }
                    (Ok(_), Some(_)) => panic!("{file} game {} should be refused", i + 1),
                    (Err(e), None) => panic!("{file} game {}: {e}", i + 1),
                }
            }
            assert!(count > 0, "{file}");
        }
        assert_eq!(refusals, REFUSED.len());
        assert!(checked > 100, "{checked}");
    }

    /// An import parses thousands of games ahead of writing them: each must hold only the
    /// room its moves need, not the room made up front for a long main line.
    #[test]
    fn a_parsed_game_holds_no_spare_room_for_moves() {
        let g = ok("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *");
        assert_eq!(g.moves.moves.len(), 6);
        assert_eq!(g.moves.moves.capacity(), 6);
    }

    #[test]
    fn demo_has_thirty_games() {
        let text = read("contrib/sample/demo.pgn");
        assert_eq!(games(&text).filter(Result::is_ok).count(), 30);
    }

    #[test]
    fn odd_files() {
        let four = one_game(&read("tests/data/odd/fen-4field.pgn")).expect("4-field FEN");
        assert_eq!(
            four.start,
            StartPosition::Fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into())
        );
        assert_eq!(
            four.headers.extra,
            vec![("SetUp".to_owned(), "1".to_owned())],
            "SetUp is kept, as SCID keeps it"
        );
        assert_eq!(four.moves.plies(), 4);
        assert_round_trip(&four);

        let latin = one_game(&read("tests/data/odd/latin1.pgn")).expect("Latin-1");
        assert_eq!(latin.headers.white, "Réti, Richard");
        assert_eq!(latin.headers.black, "Ärger, Jürgen");
        assert_eq!(latin.headers.site, "Zürich");
        assert_eq!(latin.moves.comment.as_deref(), Some("Café comment"));
        assert_round_trip(&latin);

        let text = read("tests/data/odd/result-mismatch.pgn");
        let all: Vec<_> = games(&text).collect();
        assert_eq!(all.len(), 2);
        let e = all[0].as_ref().expect_err("mismatch");
        assert_eq!((e.line, e.column, e.game), (9, 7, 1));
        assert_eq!(
            e.message,
            "the game ends with \"0-1\" but its Result tag (line 7) says \"1-0\"; make them agree"
        );
        let second = all[1].as_ref().expect("no Result tag");
        assert_eq!(second.headers.result, GameResult::Draw);
    }

    // ---- tags --------------------------------------------------------------------------------

    #[test]
    fn roster_names_and_missing_tags() {
        let g = ok("[White \"?\"]\n[Event \"\"]\n\n1. e4 *\n");
        assert_eq!(g.headers.white, "?");
        assert_eq!(g.headers.event, "");
        assert_eq!(g.headers.black, "");
        assert_eq!(g.headers.site, "");
        assert_eq!(g.headers.result, GameResult::Unknown);
        // How long a name may be is the store's business: the parser keeps it.
        let long = format!("[Event \"x\"]\n[White \"{}\"]\n\n*", "é".repeat(128));
        assert_eq!(ok(&long).headers.white.len(), 256);
        refused(
            "[Event \"a\"]\n[Site \"b\"]\n[Event \"c\"]\n*",
            3,
            1,
            "tag Event appears twice",
        );
    }

    /// One game read as SCID reads it, with what was changed.
    fn as_scid(text: &str) -> (ChessGame, Vec<String>) {
        let read = Games::new(text.as_bytes())
            .reading(Reading::AsScid)
            .next()
            .expect("a game")
            .unwrap_or_else(|e| panic!("{e}"));
        let changes = read
            .changes
            .into_iter()
            .map(|(l, w)| format!("line {l}: {w}"))
            .collect();
        (read.game, changes)
    }

    #[test]
    fn odd_text_is_read_as_scid_reads_it_and_the_changes_named() {
        for (date, want) in [
            ("1993", "1993.??.??"),
            ("1993/09/06", "1993.09.06"),
            ("1993-09-06", "1993.09.06"),
            ("1993.9.6", "1993.??.??"),
            ("06.09.1993", "0600.01.??"),
            ("93.09.06", "9300.??.??"),
            ("1993.13.45", "1993.??.??"),
            ("1993.02.29", "1993.02.??"),
            ("1992.02.29", "1992.02.29"),
            ("2050.01.01", "2050.01.01"),
        ] {
            let (g, changes) = as_scid(&format!("[Date \"{date}\"]\n*"));
            assert_eq!(g.headers.date.to_string(), want, "{date}");
            assert_eq!(
                changes.len(),
                usize::from(date != want),
                "{date}: {changes:?}"
            );
        }
        for (tag, marker, want) in [
            ("1/2", "*", GameResult::Unknown),
            ("1/2", "1/2", GameResult::Draw),
            ("1-0 ", "1-0", GameResult::WhiteWins),
            ("draw", "1/2-1/2", GameResult::Draw),
            ("1-0", "0-1", GameResult::BlackWins),
            ("*", "1:0", GameResult::WhiteWins),
        ] {
            let (g, _) = as_scid(&format!("[Result \"{tag}\"]\n\n1. e4 {marker}"));
            assert_eq!(g.headers.result, want, "{tag} / {marker}");
        }
        for (eco, want) in [
            ("C1", Some("C10")),
            ("a00", Some("A00")),
            ("B91z9", Some("B91z")),
            ("F00", None),
        ] {
            assert_eq!(
                as_scid(&format!("[ECO \"{eco}\"]\n*"))
                    .0
                    .headers
                    .eco
                    .as_deref(),
                want
            );
        }
        let (g, changes) = as_scid(
            "{Before the tags} ; and a line with } in it\n[Event \"x\"]\n[Event \"y\"]\n\n\
             {Pre} 1. e4 {a} {b} e5 2. g1f3 Nc6 3. Bb5 a6 *",
        );
        assert_eq!(g.headers.event, "y");
        assert_eq!(
            g.moves.comment.as_deref(),
            Some("Before the tagsand a line with } in itPre")
        );
        assert_eq!(g.moves.moves[0].comment.as_deref(), Some("ab"));
        assert_eq!(g.moves.moves.len(), 6);
        assert_eq!(changes.len(), 4, "{changes:?}");
        for (raw, want) in [
            ("a\r\nb", "a b"),
            ("a \n b", "a  b"),
            ("\ta\tb\n", "a b"),
            ("a\n\n", "a"),
        ] {
            assert_eq!(scid_comment(raw), want, "{raw:?}");
        }
        // Notations any reading takes: coordinates, promotion without '=', marked en passant
        // and double check.
        let g =
            ok("[FEN \"8/4P3/8/3pP3/8/8/8/K1k5 w - d6 0 1\"]\n1. exd6ep Kc2 2. e8Q Kd3 3. Qe3++ *");
        assert_eq!(g.moves.moves.len(), 5);
        let g = ok("1. e2e4 e7e5 2. g1f3 *");
        assert_eq!(g.moves.moves.len(), 3);
        // Exact reading still refuses what it would change.
        refused("[Date \"1993\"]\n*", 1, 8, "is not a date");
        refused("1. e4 {a} {b} *", 1, 11, "second comment");
    }

    #[test]
    fn dates_as_scid_5_reads_them() {
        for (value, want) in [
            ("2012.8.1", "2012.08.01"),
            ("2012.14.3", "2012.??.03"),
            ("2012.01.32", "2012.01.??"),
            ("2012.02.30", "2012.02.30"),
            ("2050.01.02", "????.??.??"),
            ("1999", "1999.??.??"),
            ("1999.??.??", "1999.??.??"),
            ("19x9.01.01", "????.??.??"),
            ("2001.01.01 extra", "????.??.??"),
        ] {
            assert_eq!(scid5_date(value).to_string(), want, "{value}");
        }
        // SCID 4's reading differs: digits at fixed places, a day its month cannot have.
        assert_eq!(scid_date("2012.8.1").to_string(), "2012.??.??");
        assert_eq!(scid_date("2012.02.30").to_string(), "2012.02.??");
    }

    #[test]
    fn dates() {
        let g = ok("[Date \"1851.06.??\"]\n[EventDate \"1851.??.??\"]\n*");
        assert_eq!(g.headers.date.to_string(), "1851.06.??");
        assert_eq!(
            g.headers.event_date.map(|d| d.to_string()).as_deref(),
            Some("1851.??.??")
        );
        let g = ok("[Date \"2020.05.17\"]\n[EventDate \"????.??.??\"]\n*");
        assert_eq!(g.headers.event_date, None);
        refused(
            "[Date \"2024/01/01\"]\n*",
            1,
            8,
            "Date \"2024/01/01\" is not a date",
        );
        refused("[Date \"2024.13.01\"]\n*", 1, 8, "is not a date");
        refused("[Date \"2024.00.01\"]\n*", 1, 8, "not zeros");
        // Years beyond SCID's 2047 are read: the store says what it holds.
        assert_eq!(ok("[Date \"2099.01.01\"]\n*").headers.date.year, Some(2099));
        refused(
            "[Date \"2020.01.01\"]\n[EventDate \"2020-01\"]\n*",
            2,
            13,
            "EventDate \"2020-01\" is not a date",
        );
        // An EventDate far from the Date is read as it is (SCID's index cannot keep it; a
        // Simple Chess Database has no EventDate at all: each store decides).
        let g = ok("[Date \"2020.01.01\"]\n[EventDate \"2016.12.31\"]\n*");
        assert_eq!(
            g.headers.event_date.map(|d| d.to_string()).as_deref(),
            Some("2016.12.31")
        );
    }

    #[test]
    fn result_tag_and_marker() {
        assert_eq!(ok("1. e4 1-0").headers.result, GameResult::WhiteWins);
        assert_eq!(
            ok("[Result \"0-1\"]\n1. e4").headers.result,
            GameResult::BlackWins
        );
        refused(
            "[Result \"1/2-1/2\"]\n\n1. e4 e5\n2. Nf3 *",
            4,
            8,
            "ends with \"*\" but its Result tag (line 1) says \"1/2-1/2\"",
        );
        refused("[Result \"?\"]\n*", 1, 10, "Result \"?\" must be one of");
    }

    #[test]
    fn eco_codes() {
        for (code, want) in [
            ("B91a3", Some("B91a3")),
            ("E99z4", Some("E99z4")),
            ("A00", Some("A00")),
            ("B91a", Some("B91a")),
            ("?", None),
            ("", None),
        ] {
            let g = ok(&format!("[ECO \"{code}\"]\n*"));
            assert_eq!(g.headers.eco.as_deref(), want, "{code}");
        }
        for bad in ["c1", "C1", "F00", "B91a5", "B91A", "b20", "B20 ", "B2x"] {
            refused(
                &format!("[ECO \"{bad}\"]\n*"),
                1,
                7,
                &format!("ECO \"{bad}\" is not a code"),
            );
        }
    }

    #[test]
    fn ratings() {
        let g = ok(
            "[WhiteDWZ \"2001\"]\n[WhiteElo \"2002\"]\n[BlackElo \"0\"]\n[BlackRating \"2100\"]\n[BlackUSCF \"?\"]\n*",
        );
        assert_eq!(
            g.headers.white_rating,
            Some(Rating {
                value: 2001,
                kind: RatingType::Dwz
            })
        );
        assert_eq!(
            g.headers.black_rating,
            Some(Rating {
                value: 2100,
                kind: RatingType::Rating
            })
        );
        assert_eq!(
            g.headers.extra,
            vec![
                ("WhiteElo".into(), "2002".into()),
                ("BlackUSCF".into(), "?".into())
            ]
        );
        for none in ["", "?", "-", "0"] {
            let g = ok(&format!("[WhiteElo \"{none}\"]\n*"));
            assert_eq!(g.headers.white_rating, None);
            assert!(g.headers.extra.is_empty());
        }
        let g = ok("[WhiteBCF \"190\"]\n[BlackECF \"180\"]\n*");
        assert_eq!(g.headers.extra, vec![("WhiteBCF".into(), "190".into())]);
        assert_eq!(
            g.headers.black_rating,
            Some(Rating {
                value: 180,
                kind: RatingType::Ecf
            })
        );
        refused(
            "[Event \"e\"]\n[BlackRating \"abc\"]\n*",
            2,
            15,
            "BlackRating \"abc\" is not a rating",
        );
        let g = ok("[WhiteElo \"4001\"]\n*");
        assert_eq!(g.headers.white_rating.map(|r| r.value), Some(4001));
        let e = refused(
            "[WhiteElo \"65536\"]\n*",
            1,
            12,
            "WhiteElo \"65536\" is above 65535",
        );
        assert_eq!(e.kind, ParseErrorKind::TooLarge);
    }

    #[test]
    fn fen_setup_and_variant() {
        let g = ok("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1\"]\n1... Kd7 *");
        assert_eq!(
            g.start,
            StartPosition::Fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1".into())
        );
        assert_eq!(g.headers.extra, vec![("SetUp".to_owned(), "1".to_owned())]);
        assert_round_trip(&g);
        // No SetUp: still a FEN start. Castling letters are put in SCID's KQkq order.
        let g = ok("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 5 20\"]\n*");
        assert_eq!(
            g.start,
            StartPosition::Fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 5 20".into())
        );
        // SetUp without FEN is an ordinary extra tag.
        let g = ok("[Setup \"0\"]\n*");
        assert_eq!(g.headers.extra, vec![("Setup".into(), "0".into())]);
        refused(
            "[SetUp \"0\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n*",
            1,
            9,
            "SetUp \"0\" contradicts the FEN tag",
        );
        refused(
            "[FEN \"4k3/8/8/8/8/8/8/4K2r b - - 0 1\"]\n*",
            1,
            7,
            "not a legal position",
        );
        refused(
            "[FEN \"4k3/8/8/8/8/8/8/4K3 w\"]\n*",
            1,
            7,
            "needs 4 or 6 fields",
        );
        refused(
            "[FEN \"4k3/8/8/8/8/8/8/4K3 w - e4\"]\n*",
            1,
            7,
            "rank 3 or 6",
        );
        refused(
            "[FEN \"4k3/8/8/8/8/8/8/4K3 x - -\"]\n*",
            1,
            7,
            "side to move",
        );
        refused(
            "[FEN \"4k3/9/8/8/8/8/8/4K3 w - -\"]\n*",
            1,
            7,
            "bad piece placement",
        );
        // Castling rights that need a king or rook off its standard square: a Chess960
        // start (whether a store can hold it is the store's business), castling by its rules.
        let g = ok("[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1\"]\n1. O-O *");
        assert_eq!(
            g.start,
            StartPosition::Chess960(
                "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1".into()
            )
        );
        assert_round_trip(&g);
        let g = ok("[FEN \"rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1\"]\n*");
        assert_eq!(
            g.start,
            StartPosition::Chess960("rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1".into())
        );
        refused(
            "[FEN \"rk2r3/8/8/8/8/8/8/RK2R3 w HAha - 0 1\"]\n*",
            1,
            7,
            "name rook files where the board has no such rook",
        );
        // A Variant tag naming Chess960 is kept; standard castling rights stay standard.
        let g = ok("[Variant \"Chess960\"]\n*");
        assert_eq!(g.headers.extra, vec![("Variant".into(), "Chess960".into())]);
        assert_eq!(g.start, StartPosition::Standard);
        refused(
            "[Variant \"Crazyhouse\"]\n*",
            1,
            11,
            "Variant \"Crazyhouse\": SCID 4 stores standard chess only",
        );
        let g = ok("[Variant \"Standard\"]\n*");
        assert_eq!(g.headers.extra, vec![("Variant".into(), "Standard".into())]);
    }

    #[test]
    fn extra_tags_lengths_and_escapes() {
        let g = ok(
            "[Annotator \"A\"] [Quoted \"say \\\"hi\\\" and back\\\\slash\"]\n[X \"C:\\dir\"]\n[Tab \"a\tb\"]\n*",
        );
        assert_eq!(
            g.headers.extra,
            vec![
                ("Annotator".into(), "A".into()),
                ("Quoted".into(), "say \"hi\" and back\\slash".into()),
                ("X".into(), "C:\\dir".into()),
                ("Tab".into(), "a b".into()),
            ]
        );
        assert_round_trip(&g);
        let ok_name = format!("[{} \"v\"]\n*", "N".repeat(240));
        assert_eq!(ok(&ok_name).headers.extra[0].0.len(), 240);
        let long_name = format!("[{} \"v\"]\n*", "N".repeat(241));
        assert_eq!(ok(&long_name).headers.extra[0].0.len(), 241);
        let long_value = format!("[Opening \"{}\"]\n*", "v".repeat(256));
        assert_eq!(ok(&long_value).headers.extra[0].1.len(), 256);
        refused("[Event \"x]\n*", 1, 8, "not closed with '\"' on its line");
        refused("[Event x]\n*", 1, 8, "needs a value in double quotes");
        refused("[Event \"x\"\n*", 1, 11, "expected ']'");
        refused(
            "[_x \"v\"]\n*",
            1,
            2,
            "tag name \"_x\" must start with a letter or digit",
        );
        refused("[ \"v\"]\n*", 1, 3, "a tag needs a name");
    }

    // ---- movetext ----------------------------------------------------------------------------

    #[test]
    fn comments_go_to_their_slots() {
        let g = ok("{Pre} 1. e4 {after e4} ({start} 1. d4 {after d4}) 1... e5 *");
        assert_eq!(g.moves.comment.as_deref(), Some("Pre"));
        let e4 = &g.moves.moves[0];
        assert_eq!(e4.comment.as_deref(), Some("after e4"));
        assert_eq!(e4.variations[0].comment.as_deref(), Some("start"));
        assert_eq!(
            e4.variations[0].moves[0].comment.as_deref(),
            Some("after d4")
        );
        // Newlines and tabs become spaces, runs of spaces stay (as SCID keeps them), the ends
        // are trimmed; `{}` is nothing; `[%clk]` is kept.
        let g = ok("1. e4 {  two\r\n lines\tand   tabs } e5 {} 2. Nf3 {[%clk 0:01:02]} *");
        assert_eq!(
            g.moves.moves[0].comment.as_deref(),
            Some("two   lines and   tabs")
        );
        assert_eq!(g.moves.moves[1].comment, None);
        assert_eq!(g.moves.moves[2].comment.as_deref(), Some("[%clk 0:01:02]"));
        // A comment after a variation goes to the move the variation hangs from (as in SCID).
        let g = ok("1. e4 (1. d4) {after the variation} 1... e5 *");
        assert_eq!(
            g.moves.moves[0].comment.as_deref(),
            Some("after the variation")
        );
        assert_round_trip(&g);
    }

    #[test]
    fn comment_refusals() {
        refused(
            "1. e4 {a}\n{b} e5 *",
            2,
            1,
            "a second comment after 1. e4; join them into one comment",
        );
        refused(
            "{a} {b} 1. e4 *",
            1,
            5,
            "a second comment before the first move",
        );
        refused(
            "1. e4 e5 ({a} {b} 1... c5) *",
            1,
            15,
            "a second comment before the first move",
        );
        refused(
            "1. e4 {a} (1. d4) {b} e5 *",
            1,
            19,
            "this comment after a variation belongs to 1. e4, which already has a comment; join them",
        );
        refused(
            "1. e4 $1 {a} ; b\n e5 *",
            1,
            14,
            "a second comment after 1. e4",
        );
        refused("1. e4 ; a } b\n*", 1, 7, "a ';' comment containing '}'");
        refused("1. e4 {a\0b} *", 1, 7, "NUL byte");
        refused(
            "1. e4\n  {never closed *",
            2,
            3,
            "comment opened here is never closed",
        );
    }

    #[test]
    fn nags_and_symbols() {
        let g = ok("1. e4! e5? 2. Nf3!! Nc6?? 3. Bc4!? Bc5?! 4. c3 $255 Nf6 +- 5. d4 $1 $14 ! *");
        let nags: Vec<Vec<u8>> = g.moves.moves.iter().map(|m| m.nags.clone()).collect();
        assert_eq!(
            nags,
            vec![
                vec![1],
                vec![2],
                vec![3],
                vec![4],
                vec![5],
                vec![6],
                vec![255],
                vec![18],
                vec![1, 14, 1]
            ]
        );
        // As many NAGs as written: SCID's 7 per move is its store's limit.
        let g = ok("1. e4 $1 $2 $3 $4 $5 $6 $7\n  $8 *");
        assert_eq!(g.moves.moves[0].nags.len(), 8);
        refused("1. e4 $0 *", 1, 7, "NAG $0");
        refused("1. e4 $256 *", 1, 7, "NAG $256 is above $255");
        refused("1. e4 $ *", 1, 7, "'$' must be followed by a NAG number");
        refused("$1 1. e4 *", 1, 1, "an annotation (NAG) must follow a move");
        refused("1. e4 e5 ( ! 1... c5) *", 1, 12, "must follow a move");
        refused(
            "1. e4!! e5?? 2. Nf3!x *",
            1,
            17,
            "\"!x\" is not an annotation",
        );
    }

    #[test]
    fn moves_and_variations() {
        // Castling with zeros, check marks, move numbers optional or glued, e.p., null moves.
        let g = ok(
            "1.e4 e5 Nf3 Nc6 3. Bc4 Nf6 4. 0-0 Nxe4 5. Re1 d5 6. Bxd5 Qxd5 7. Nc3 Qd8 8. Rxe4+ Be7 9. -- 0-0 *",
        );
        assert_eq!(g.moves.plies(), 18);
        assert_eq!(g.moves.moves[16].ply, Ply::Null);
        let g = ok("1. e4 d5 2. e5 f5 3. exf6 e.p. *");
        assert_eq!(g.moves.plies(), 5);
        // Capture mark missing or extra: the move is still unique.
        let g = ok("1. e4 e5 2. Qh5 Nc6 3. Qf7# *");
        assert_eq!(g.moves.plies(), 5);
        // Nested variations and several siblings.
        let g = ok("1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) (1. c4) 1... e5 *");
        assert_eq!(g.moves.moves[0].variations.len(), 2);
        assert_eq!(g.moves.moves[0].variations[0].moves[1].variations.len(), 1);
        assert_round_trip(&g);
    }

    #[test]
    fn move_refusals() {
        refused(
            "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *",
            3,
            13,
            "illegal move 2. Ke3 in position rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        );
        refused(
            "[FEN \"4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1\"]\n\n1. Nd2 *",
            3,
            4,
            "ambiguous move 1. Nd2 (could be Nbd2 or Nfd2) in position 4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1",
        );
        refused(
            "1. e4 e5 2. Bb5 f6 3. Bxe8 *",
            1,
            23,
            "illegal move 3. Bxe8",
        );
        refused(
            "1. e4 xyz *",
            1,
            7,
            "\"xyz\" is not a move, move number, annotation or result",
        );
        refused(
            "(1. d4) 1. e4 *",
            1,
            1,
            "a variation must follow the move it replaces",
        );
        refused(
            "1. e4 ((1. d4) 1... e5) *",
            1,
            8,
            "a variation must follow the move it replaces",
        );
        refused(
            "1. e4 (1. d4\n  (1. c4 c5",
            2,
            3,
            "variation opened here is never closed",
        );
        refused("1. e4 (1. d4 1-0) *", 1, 14, "inside a variation");
        refused("1. e4 ) *", 1, 7, "')' without a matching '('");
        refused("1. e4 } *", 1, 7, "'}' without a matching opening bracket");
        refused(
            "[FEN \"4k3/8/8/8/8/8/8/r3K3 w - - 0 1\"]\n1. -- *",
            2,
            4,
            "a null move (--) is not possible while in check",
        );
    }

    #[test]
    fn columns_count_characters() {
        // "é" is two bytes but one column; the bad move is the 8th character.
        refused("{é} 1. Ke2 *", 1, 8, "illegal move 1. Ke2");
    }

    #[test]
    fn real_world_tolerance() {
        let text = b"\xEF\xBB\xBF% an escape line\r\n[Event \"T\xe9st\"]\r\n[White \"R\xc3\xa9ti\"]\r\n\r\n\
            ; a rest-of-line comment\r\n1. e4 {caf\xe9 [%clk 0:03:00]} e5\r\n%2. d4\r\n2. Nf3 *\r\n";
        let g = one_game(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(g.headers.event, "Tést");
        assert_eq!(g.headers.white, "Réti");
        assert_eq!(g.moves.comment.as_deref(), Some("a rest-of-line comment"));
        assert_eq!(
            g.moves.moves[0].comment.as_deref(),
            Some("café [%clk 0:03:00]")
        );
        assert_eq!(g.moves.plies(), 3);
        // Movetext alone, no tags, no marker.
        let g = ok("\n\n  e4 e5\n");
        assert_eq!(g.moves.plies(), 2);
        assert_eq!(g.headers.result, GameResult::Unknown);
    }

    #[test]
    fn games_splits_and_recovers() {
        let text = "[Event \"1\"]\n1. e4 *\n\n[Event \"2\"]\n1. e4 e5?? 2. Kxx *\n\n[Event \"3\"]\n1. d4\n[Event \"4\"]\n[Date \"bad\"]\n[Site \"s\"]\n\n1. c4 1-0\n\n[Event \"5\"]\n1. Nf3 *\n";
        let all: Vec<_> = games(text.as_bytes()).collect();
        assert_eq!(all.len(), 5, "{all:?}");
        assert_eq!(all[0].as_ref().map(|g| g.headers.event.as_str()), Ok("1"));
        let e = all[1].as_ref().expect_err("illegal move");
        assert_eq!((e.game, e.line, e.column), (2, 5, 15));
        assert!(e.message.contains("\"Kxx\" is not a move"), "{e}");
        assert_eq!(all[2].as_ref().map(|g| g.moves.plies()), Ok(1));
        let e = all[3].as_ref().expect_err("bad date");
        assert_eq!((e.game, e.line, e.column), (4, 10, 8));
        assert_eq!(all[4].as_ref().map(|g| g.headers.event.as_str()), Ok("5"));
    }

    #[test]
    fn one_game_needs_exactly_one() {
        let e = one_game(b"  \n% nothing\n").expect_err("empty");
        assert_eq!(e.message, "the text holds no game");
        let e = one_game(b"1. e4 *\n\n1. d4 *\n").expect_err("two");
        assert_eq!((e.game, e.line, e.column), (2, 3, 1));
        assert!(e.message.contains("a file holds exactly one game"));
        let e = one_game(b"[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n*").expect_err("two");
        assert_eq!((e.line, e.column), (3, 1));
    }

    #[test]
    fn errors_convert_with_position_and_kind() {
        let e = one_game(b"1. e4 $0 *").expect_err("NAG 0");
        let err: Error = e.into();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(
            err.message().starts_with("line 1, column 7: NAG $0"),
            "{err}"
        );
        let e = one_game(b"[WhiteElo \"99999\"]\n*").expect_err("rating");
        let err: Error = e.into();
        assert_eq!(err.kind(), ErrorKind::TooLarge);
        assert!(err.message().starts_with("line 1, column 12: "), "{err}");
    }

    #[test]
    fn ten_thousand_nested_variations() {
        let mut text = String::from("1. e4 ");
        for _ in 0..10_000 {
            text.push_str("(1. d4 ");
        }
        text.push_str(&")".repeat(10_000));
        text.push_str(" *");
        let g = ok(&text);
        let rendered = render(&g).expect("render");
        assert_eq!(rendered.matches('(').count(), 10_000);
        let again = ok(&rendered);
        assert_eq!(render(&again).expect("render"), rendered);
        // Unclosed at depth: an error, not a stack overflow.
        let e = one_game(text.trim_end_matches(['*', ')', ' ']).as_bytes()).expect_err("open");
        assert!(e.message.contains("never closed"));
    }

    #[test]
    fn a_huge_game_is_refused() {
        let mut text = String::from("1. e4 {");
        text.push_str(&"x".repeat(MAX_GAME_BYTES));
        text.push_str("} e5 *");
        let e = one_game(text.as_bytes()).expect_err("too large");
        assert_eq!(e.kind, ParseErrorKind::TooLarge);
        assert_eq!((e.line, e.column), (1, 7), "{e}");
    }

    #[test]
    fn a_tree_of_more_nodes_than_a_record_holds_is_refused() {
        // 200,000 levels fit in 1.4 MB of text but would take over 100 MB as a tree.
        let deep = format!(
            "1. e4 {} *",
            "(1. d4 ".repeat(200_000) + &")".repeat(200_000)
        );
        let e = one_game(deep.as_bytes()).expect_err("too many nodes");
        assert_eq!(e.kind, ParseErrorKind::TooLarge);
        assert!(e.message.contains("131071 moves and variations"), "{e}");
        let wide = format!("1. e4 {} *", "(1. d4) ".repeat(MAX_GAME_NODES));
        let e = one_game(wide.as_bytes()).expect_err("too many nodes");
        assert_eq!(e.kind, ParseErrorKind::TooLarge);
        let fits = format!(
            "1. e4 {} *",
            "(1. d4 ".repeat(MAX_GAME_NODES / 2 - 1) + &")".repeat(MAX_GAME_NODES / 2 - 1)
        );
        assert!(one_game(fits.as_bytes()).is_ok());
    }

    // ---- property and robustness tests -------------------------------------------------------

    use crate::testing::Rng;

    const WORDS: &[&str] = &[
        "a",
        "good",
        "move",
        "é",
        "Ж",
        "光",
        "\"q\"",
        "back\\slash",
        "[%clk",
        "0:01:02]",
        "1-0",
        "*",
        "(x)",
        "$5",
        ";",
        "%",
        "{",
        "[Event",
        "!?",
        "--",
        "e4",
        "1.",
        "\u{1}",
    ];

    fn comment(rng: &mut Rng) -> String {
        let n = 1 + rng.below(8);
        (0..n)
            .map(|_| *rng.pick(WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn name(rng: &mut Rng) -> String {
        const CHARS: &[char] = &[
            'a', 'Z', ' ', ',', '"', '\\', 'é', '?', '-', '.', '光', '[', ']', '{', '}',
        ];
        (0..rng.below(20)).map(|_| *rng.pick(CHARS)).collect()
    }

    fn random_line(rng: &mut Rng, start: &Chess, depth: u32, budget: &mut u32) -> Line {
        let mut line = Line::default();
        if rng.chance(15) {
            line.comment = Some(comment(rng));
        }
        let mut pos = start.clone();
        for _ in 0..rng.below(14) {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            let legal = pos.legal_moves();
            let ply = if !pos.is_check() && (legal.is_empty() || rng.chance(5)) {
                Ply::Null
            } else if legal.is_empty() {
                break;
            } else {
                Ply::Move(*rng.pick(&legal))
            };
            let after = play(&pos, &ply).expect("legal ply");
            let mut node = MoveNode::new(ply);
            let nags = if rng.chance(10) {
                rng.below(8)
            } else if rng.chance(20) {
                1
            } else {
                0
            };
            node.nags = (0..nags).map(|_| 1 + rng.below(255) as u8).collect();
            if rng.chance(20) {
                node.comment = Some(comment(rng));
            }
            if depth < 4 && rng.chance(15) {
                for _ in 0..1 + rng.below(2) {
                    node.variations
                        .push(random_line(rng, &pos, depth + 1, budget));
                }
            }
            line.moves.push(node);
            pos = after;
        }
        line
    }

    fn random_date(rng: &mut Rng) -> PartialDate {
        PartialDate {
            year: rng.chance(80).then(|| 1 + rng.below(2047) as u16),
            month: rng.chance(60).then(|| 1 + rng.below(12) as u8),
            day: rng.chance(50).then(|| 1 + rng.below(31) as u8),
        }
    }

    fn random_game(seed: u64) -> ChessGame {
        let mut rng = Rng(seed | 1);
        let mut h = Headers {
            event: name(&mut rng),
            site: name(&mut rng),
            date: random_date(&mut rng),
            round: name(&mut rng),
            white: name(&mut rng),
            black: name(&mut rng),
            result: *rng.pick(&[
                GameResult::Unknown,
                GameResult::WhiteWins,
                GameResult::BlackWins,
                GameResult::Draw,
            ]),
            ..Headers::default()
        };
        for slot in [&mut h.white_rating, &mut h.black_rating] {
            if rng.chance(50) {
                *slot = Some(Rating {
                    value: 1 + rng.below(4000) as u16,
                    kind: *rng.pick(&RatingType::ALL),
                });
            }
        }
        if rng.chance(50) {
            let mut eco = format!(
                "{}{:02}",
                char::from(b'A' + rng.below(5) as u8),
                rng.below(100)
            );
            if rng.chance(40) {
                eco.push(char::from(b'a' + rng.below(26) as u8));
                if rng.chance(50) {
                    eco.push(char::from(b'1' + rng.below(4) as u8));
                }
            }
            h.eco = Some(eco);
        }
        if let Some(y) = h.date.year.filter(|_| rng.chance(50)) {
            let ey = (i32::from(y) - 3 + rng.below(7) as i32).clamp(1, 2047) as u16;
            h.event_date = Some(PartialDate {
                year: Some(ey),
                ..random_date(&mut rng)
            });
        }
        const EXTRA: &[&str] = &[
            "Annotator",
            "PlyCount",
            "Opening",
            "MyTag",
            "X-1",
            "UTCDate",
            "a_b+c#d=e:f-g",
            "0Num",
            "event",
        ];
        for _ in 0..rng.below(4) {
            h.extra.push((rng.pick(EXTRA).to_string(), name(&mut rng)));
        }
        let mut pos = Chess::default();
        let start = if rng.chance(30) {
            for _ in 0..rng.below(40) {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                pos.play_unchecked(*rng.pick(&legal));
            }
            StartPosition::Fen(fen_of(&pos))
        } else {
            StartPosition::Standard
        };
        let mut budget = 300;
        let moves = random_line(&mut rng, &pos, 0, &mut budget);
        ChessGame {
            headers: h,
            start,
            moves,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Any game the model can hold (within SCID's limits) survives render → parse.
        #[test]
        fn random_games_round_trip(seed in any::<u64>()) {
            let g = random_game(seed);
            let text = render(&g).expect("render");
            let parsed = one_game(text.as_bytes());
            prop_assert_eq!(parsed.as_ref(), Ok(&g), "{}", text);
        }
    }

    /// Random bytes and mutated real files: never a panic, and whatever is accepted round-trips.
    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seeds: Vec<Vec<u8>> = vec![read("contrib/sample/demo.pgn")];
        for f in [
            "annotations",
            "tags",
            "special-moves",
            "fen-starts",
            "deep-variations",
            "long-tags",
        ] {
            seeds.push(read(&format!("tests/data/{f}.pgn")));
        }
        seeds.push(read("tests/data/odd/latin1.pgn"));
        const SPECIAL: &[u8] = b"{}()[];$\"\\%\n\r!?-0O=+#*. \x00\xff\xe9\xc3";
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut accepted = 0;
        for round in 0..3000 {
            let text: Vec<u8> = if round % 5 == 0 {
                (0..rng.below(400))
                    .map(|_| {
                        if rng.chance(50) {
                            *rng.pick(SPECIAL)
                        } else {
                            rng.next_u64() as u8
                        }
                    })
                    .collect()
            } else {
                let seed = rng.pick(&seeds);
                let from = rng.below(seed.len());
                let len = rng.below(3000);
                let mut t = seed[from..seed.len().min(from + len)].to_vec();
                for _ in 0..1 + rng.below(6) {
                    let at = rng.below(t.len() + 1);
                    match rng.below(4) {
                        0 if at < t.len() => t[at] = *rng.pick(SPECIAL),
                        1 => t.insert(at, *rng.pick(SPECIAL)),
                        2 if at < t.len() => {
                            let end = t.len().min(at + 1 + rng.below(20));
                            t.drain(at..end);
                        }
                        _ if at < t.len() => t[at] = rng.next_u64() as u8,
                        _ => {}
                    }
                }
                t
            };
            for g in games(&text).flatten() {
                assert_round_trip(&g);
                accepted += 1;
            }
            let _ = one_game(&text);
        }
        // The mutations leave many games intact: the round-trip check above is exercised.
        assert!(accepted > 500, "{accepted}");
    }

    #[test]
    fn word_scan_agrees_with_byte_by_byte_lexing() {
        let pieces: [&[u8]; 17] = [
            b"e",
            b"4",
            b"x",
            b"N",
            b"=",
            b"+",
            b" ",
            b"\n",
            b"{",
            b")",
            b"$",
            b"\"",
            "é".as_bytes(),
            "Ж".as_bytes(),
            b"\xff",
            b"\t",
            b".",
        ];
        let mut rng = Rng(0x5EED_0FF5);
        for _ in 0..3000 {
            let n = rng.below(40);
            let text: Vec<u8> = (0..n).flat_map(|_| rng.pick(&pieces).to_vec()).collect();
            let (mut fast, mut slow) = (Lexer::new(&text), Lexer::new(&text));
            loop {
                let reference = slow.take_while(|b| !WORD_ENDS[usize::from(b)]);
                assert_eq!(fast.word(), reference, "{text:?}");
                let (a, b) = (fast.at, slow.at);
                assert_eq!(
                    (a.offset, a.line, a.col),
                    (b.offset, b.line, b.col),
                    "{text:?}"
                );
                if fast.peek().is_none() {
                    break;
                }
                fast.bump();
                slow.bump();
            }
        }
    }
}
