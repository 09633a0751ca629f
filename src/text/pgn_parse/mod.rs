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
//! Tag mapping follows SCID's import (docs/formats/scid4.md §6, §7): the Seven Tag Roster,
//! ratings, ECO, EventDate and FEN go to [`Headers`](crate::game::Headers) / [`StartPosition`](crate::game::StartPosition); every other tag is
//! kept in [`Headers::extra`](crate::game::Headers::extra) in file order.

use std::fmt;
use std::ops::Range;

use crate::error::{Error, ErrorKind};
use crate::game::{ChessGame, GameResult, Line};

mod cut;
mod lexer;
mod movetext;
mod scid_tag;
mod tags;
#[cfg(test)]
mod tests;

pub use cut::Cut;
use lexer::*;
use movetext::*;
use tags::*;

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

    /// Whether text is read as SCID's import reads it (SCID 4's or SCID 5's).
    fn as_scid(self) -> bool {
        matches!(self, Reading::AsScid | Reading::AsScid5)
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
    /// Where its movetext stopped reading and what was dropped, when it was kept cut short
    /// ([`Games::keeping_cut_games`]).
    pub cut: Option<Cut>,
    /// Whether reading it as SCID's import reads it dropped or displaced some of its text
    /// (kept cut short, a NAG before a line's first move, a tag with no name, a tag value read
    /// on past its line, a null move written `Z0`): what was stored is not all its text says,
    /// so a bulk import keeps its text for the user to mend too. Said also when skimming,
    /// where no change is said: a reading of part of a text that may have stopped at the
    /// part's end (a tag value read on to the next `]`) is read again in the whole text.
    pub salvaged: bool,
}

/// The games of a PGN text one by one, each with its place ([`games`] without the places).
pub struct Games<'a> {
    lx: Lexer<'a>,
    game: u32,
    /// Whether the movetext is only skimmed ([`Games::skimming`]).
    skim: bool,
}

impl<'a> Games<'a> {
    /// The games of `text` from its start (after a byte-order mark).
    pub fn new(text: &'a [u8]) -> Games<'a> {
        Games {
            lx: Lexer::new(text),
            game: 0,
            skim: false,
        }
    }

    /// These games read as `reading` says.
    pub fn reading(mut self, reading: Reading) -> Games<'a> {
        self.lx.reading = reading;
        self
    }

    /// With `skim`, these games' tags read (the extra tags not kept), their movetext only
    /// skimmed: comments, `%` lines, variations, NAGs and the termination marker are found (so
    /// each game ends where a whole reading ends it), the moves are neither read nor replayed,
    /// and a game holds no moves. What indexes a large file: ten times faster than a whole
    /// reading, which replays every move. A game whose moves are illegal is not refused; one
    /// whose tags, comments or brackets do not read is. What the reading changed is not said
    /// (its `changes` are empty).
    pub fn skimming(mut self, skim: bool) -> Games<'a> {
        self.skim = skim;
        self.lx.says_changes = !skim;
        self
    }

    /// With `keep`, a game whose movetext stops reading where SCID's import stops reading it
    /// too (an illegal or unreadable move, a variation that cannot open or close, a stray
    /// bracket, HTML between the moves) is kept as SCID's import keeps it, not refused: its
    /// moves before the error (variations open there closed), its tags, and the result of the
    /// termination marker that ends it, the rest stepped over as SCID steps over it; the
    /// game's [`ReadGame::cut`] says where and what was dropped. `<`, `>` and `*` end a move,
    /// as SCID's lexer takes them (`Nc6<br>` is `Nc6` and `br`, `a5*` is `a5` and the game's
    /// end); a variation still open at the game's end, and a comment never closed, are kept
    /// as SCID keeps them. What SCID's import reads past (a null move `--` in check, a NAG
    /// `$0`, …) and a game too large for a record are refused all the same. For a bulk
    /// import into SCID; saves and skimming never keep a cut game.
    pub fn keeping_cut_games(mut self, keep: bool) -> Games<'a> {
        self.lx.keep_cut = keep;
        self
    }

    /// The games of `text` from byte `offset` on, the start of line `line`, where `before`
    /// games came earlier: what [`Games::new`] yields from there, when it is between games
    /// at `offset` (a parser taking over a part of a text another one started).
    pub fn resume(text: &'a [u8], offset: usize, line: u32, before: u32) -> Games<'a> {
        Games {
            lx: Lexer::at(
                text,
                Pos {
                    offset,
                    line,
                    col: 1,
                },
            ),
            game: before,
            skim: false,
        }
    }

    /// Move on to byte `offset`, where game `before + 1` starts, counting the lines and columns
    /// stepped over (not read as games): a parser standing between games of a text, at or
    /// before `offset`, that reads again a game a reading of part of the text refused.
    pub(crate) fn skip_to(&mut self, offset: usize, before: u32) {
        self.lx.advance_to(offset);
        self.game = before;
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

    /// How many line breaks the text read so far holds: all of the text's once every game is
    /// read (the lexer counts them as it goes; no second pass over the text).
    pub(crate) fn line_breaks_read(&self) -> u32 {
        self.lx.at.line.saturating_sub(1)
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
        self.lx.cut = None;
        self.lx.salvaged = false;
        match parse_game(&mut self.lx, &mut in_movetext, self.skim) {
            Ok(game) => Some(Ok(ReadGame {
                game,
                number: self.game,
                line: start.line,
                text: start.offset..self.lx.at.offset,
                changes: std::mem::take(&mut self.lx.changes),
                ended: self.lx.ended,
                cut: self.lx.cut.take(),
                salvaged: self.lx.salvaged,
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

/// The termination marker `word` is, as `reading` knows them.
fn marker_as_read(word: &[u8], reading: Reading) -> Option<GameResult> {
    match reading {
        Reading::Exact => result_marker(word),
        Reading::AsScid | Reading::AsScid5 | Reading::AsPgn2dcg => scid_marker(word),
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

fn parse_game(
    lx: &mut Lexer<'_>,
    in_movetext: &mut bool,
    skim: bool,
) -> Result<ChessGame, ParseError> {
    let game_start = lx.at.offset;
    // The comments before and between the tags, which go before the first move.
    let mut among: Option<String> = None;
    // The lexer's list, which has room for the tags of the games before.
    let mut tags = std::mem::take(&mut lx.tags);
    tags.clear();
    let read = read_tags(lx, &mut tags, game_start, &mut among);
    let read = read.and_then(|()| interpret_tags(tags.drain(..), lx, !skim));
    lx.tags = tags;
    let tags = read?;
    *in_movetext = true;
    let (mut line, marker) = if skim {
        (Line::default(), skim_movetext(lx, game_start)?)
    } else {
        parse_movetext(lx, tags.position.clone(), game_start)?
    };
    lx.ended = marker.is_some();
    if let Some(text) = among {
        line.comment = Some(text + line.comment.as_deref().unwrap_or(""));
    }
    finish_game(tags, line, marker, lx)
}

/// The game's tag pairs, into `tags`, and the comments before and between them, into
/// `among` ([`among_tags`]).
fn read_tags<'a>(
    lx: &mut Lexer<'a>,
    tags: &mut Vec<RawTag<'a>>,
    game_start: usize,
    among: &mut Option<String>,
) -> Result<(), ParseError> {
    let mut first = true;
    loop {
        among_tags(lx, among, first);
        lx.skip_space();
        if lx.peek() != Some(b'[') {
            return Ok(());
        }
        if lx.at.offset - game_start > MAX_GAME_BYTES {
            return Err(game_too_large(lx.at));
        }
        if let Some(tag) = parse_tag(lx)? {
            tags.push(tag);
        }
        first = false;
    }
}

/// What stands before a game's `first` tag or between two, as a loose reading takes it when
/// a tag follows: comments (often what a program wrote after the previous game's end), which
/// SCID's import gives the game before its first move (into `among`); and read as SCID reads
/// it, comments between tags too, and NAGs and suffix annotations (`$1`, `!?`), which SCID
/// drops (its `Game::AddNag` gives them to the game's start, which its records do not keep).
/// Each is noted. When no tag follows, or they do not read, the lexer is left where it was:
/// the movetext reads them.
fn among_tags(lx: &mut Lexer<'_>, among: &mut Option<String>, first: bool) {
    if !lx.reading.loose() || !(first || lx.reading.as_scid()) {
        return;
    }
    lx.skip_space();
    if lx.peek() == Some(b'[') {
        // The next tag, as nearly always: nothing to look at.
        return;
    }
    let (start, noted) = (lx.at, lx.changes.len());
    let mut comments: Vec<(String, Pos)> = Vec::new();
    let mut nags: Vec<(u8, Pos)> = Vec::new();
    // Where a token that is no comment or NAG stands (after the white space before it).
    let stopped = loop {
        lx.skip_space();
        let at = lx.at;
        match lx.peek() {
            Some(b'[') => break None,
            Some(b'{') => match lx.brace_comment() {
                Ok(raw) => match comment_as_read(raw, at, lx.reading) {
                    Ok(text) => comments.push((text, at)),
                    Err(_) => break Some(at),
                },
                Err(_) => break Some(at),
            },
            Some(b';') => {
                lx.bump();
                match line_comment(lx, at).and_then(|raw| comment_as_read(&raw, at, lx.reading)) {
                    Ok(text) => comments.push((text, at)),
                    Err(_) => break Some(at),
                }
            }
            Some(b'$') if lx.reading.as_scid() => {
                lx.bump();
                let digits = lx.take_while(|b| b.is_ascii_digit());
                match nag_number(digits).filter(|&n| n > 0) {
                    Some(n) => nags.push((n, at)),
                    None => break Some(at),
                }
            }
            Some(b'!' | b'?') if lx.reading.as_scid() => {
                let suffix = lx.take_while(|b| b == b'!' || b == b'?');
                match symbol_nag(suffix).filter(|&n| n <= 6) {
                    Some(n) => nags.push((n, at)),
                    None => break Some(at),
                }
            }
            _ => break Some(at),
        }
    };
    if let Some(at) = stopped {
        // No tag after them: the lexer goes back to that token when nothing was read before
        // it (most games' first move: the white space need not be read again), else to where
        // it started, for the movetext to read it all.
        lx.at = match comments.is_empty() && nags.is_empty() {
            true => at,
            false => start,
        };
        lx.changes.truncate(noted);
        return;
    }
    let place = if first { "before" } else { "between" };
    let mut kept = comments
        .into_iter()
        .filter(|(text, _)| !text.is_empty())
        .peekable();
    if let Some(&(_, at)) = kept.peek() {
        lx.changed(at, || {
            Some(format!(
                "column {}: a comment {place} the game's tags kept before its first move",
                at.col
            ))
        });
    }
    for (text, _) in kept {
        among.get_or_insert_with(String::new).push_str(&text);
    }
    for (nag, at) in nags {
        lx.salvaged(at, || {
            Some(format!(
                "column {}: NAG ${nag} {place} the game's tags dropped, as SCID's import drops it",
                at.col
            ))
        });
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
    lx.changed(at, || {
        Some("'}' in a ';' comment kept (shown as ')')".into())
    });
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
            lx.changed(end_at, || {
                Some(format!(
                    "the game's end \"{}\" gave way to its Result tag \"{}\"",
                    end.as_pgn(),
                    tag.as_pgn()
                ))
            });
            headers.result = tag;
        }
        (Some((tag, _)), Some((end, end_at))) if tag != end && lx.reading.as_scid() => {
            // SCID takes the game's end over the tag.
            lx.changed(end_at, || {
                Some(format!(
                    "the Result tag \"{}\" gave way to the game's end \"{}\"",
                    tag.as_pgn(),
                    end.as_pgn()
                ))
            });
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
