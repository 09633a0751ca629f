//! The PGN lexer: bytes to tokens, with the line and column of each for messages.

use super::*;
use crate::text::line_breaks;

/// A place in the text: byte offset, and 1-based line and column (for messages).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pos {
    pub(super) offset: usize,
    pub(super) line: u32,
    pub(super) col: u32,
}

/// Reads bytes and keeps track of line and column; carries how odd text is read, and what
/// the reading changed in the game being read.
pub(super) struct Lexer<'a> {
    pub(super) text: &'a [u8],
    pub(super) at: Pos,
    pub(super) reading: Reading,
    /// What reading the current game changed: the line, and a phrase.
    pub(super) changes: Vec<(u32, String)>,
    /// Whether `changes` are said (not when skimming: an index does not show them).
    pub(super) says_changes: bool,
    /// Whether the game read last ended with a termination marker.
    pub(super) ended: bool,
    /// The tag pairs of the game being read (kept here so that their room serves every game).
    pub(super) tags: Vec<RawTag<'a>>,
    /// Whether a game whose movetext stops reading is kept as far as it was read, as SCID's
    /// import keeps it ([`Games::keeping_cut_games`]), rather than refused.
    pub(super) keep_cut: bool,
    /// Where the game being read was cut short, if it was.
    pub(super) cut: Option<Cut>,
    /// Whether reading the game being read dropped or displaced some of its text as SCID's
    /// import does ([`ReadGame::salvaged`]).
    pub(super) salvaged: bool,
}

impl Lexer<'_> {
    /// Note that reading the current game at `at` changed what `what` says, if it says
    /// anything: it is asked only when changes are said, so what only a message needs (how a
    /// value would be written, the message's words) costs nothing when they are not.
    pub(super) fn changed(&mut self, at: Pos, what: impl FnOnce() -> Option<String>) {
        if self.says_changes
            && let Some(what) = what()
        {
            self.changes.push((at.line, what));
        }
    }

    /// Note, as [`Lexer::changed`] does, a change that drops or displaces some of the game's
    /// text as SCID's import does (a NAG no move holds, a tag with no name, a tag value read
    /// on past its line, a null move written `Z0`): the game is [`ReadGame::salvaged`], said
    /// or not.
    pub(super) fn salvaged(&mut self, at: Pos, what: impl FnOnce() -> Option<String>) {
        self.salvaged = true;
        self.changed(at, what);
    }
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text` (after a byte-order mark).
    pub(super) fn new(text: &'a [u8]) -> Lexer<'a> {
        let offset = if text.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        Lexer::at(
            text,
            Pos {
                offset,
                line: 1,
                col: 1,
            },
        )
    }

    /// A lexer standing at `at` in `text`.
    pub(super) fn at(text: &'a [u8], at: Pos) -> Lexer<'a> {
        Lexer {
            text,
            at,
            reading: Reading::Exact,
            changes: Vec::new(),
            says_changes: true,
            ended: false,
            tags: Vec::new(),
            keep_cut: false,
            cut: None,
            salvaged: false,
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.text.get(self.at.offset).copied()
    }

    pub(super) fn bump(&mut self) {
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
    pub(super) fn skip_space(&mut self) -> usize {
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
    pub(super) fn rest_of_line(&mut self) -> &'a [u8] {
        let start = self.at.offset;
        while self.peek().is_some_and(|b| b != b'\n') {
            self.bump();
        }
        let line = &self.text[start..self.at.offset];
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    /// Move on to byte `offset` (at or after where the lexer stands), keeping count of lines
    /// and columns: a scan that reads the bytes itself tells the lexer where it stopped.
    pub(super) fn advance_to(&mut self, offset: usize) {
        self.at = self.pos_at(self.at, offset);
    }

    /// Move on to byte `offset` (at or after where the lexer stands) on the same line: no line
    /// break lies between, so only the column moves, by the characters stepped over.
    pub(super) fn advance_on_line(&mut self, offset: usize) {
        let skipped = &self.text[self.at.offset..offset];
        debug_assert!(
            !skipped.contains(&b'\n'),
            "advance_on_line over a line break"
        );
        self.at.col = self.at.col.saturating_add(chars(skipped));
        self.at.offset = offset;
    }

    /// Move on by `bytes` bytes on the same line that are all ASCII (a column each): what a scan
    /// that checked them can tell without counting characters.
    pub(super) fn advance_ascii_on_line(&mut self, bytes: usize) {
        debug_assert!(
            self.text[self.at.offset..self.at.offset + bytes]
                .iter()
                .all(|&b| b.is_ascii() && b != b'\n'),
            "advance_ascii_on_line over a line break or a non-ASCII byte"
        );
        self.at.offset += bytes;
        self.at.col = self
            .at
            .col
            .saturating_add(u32::try_from(bytes).unwrap_or(u32::MAX));
    }

    /// Where byte `offset` stands (at or before where the lexer stands): for a message about
    /// text a scan went past.
    pub(super) fn pos_of(&self, offset: usize) -> Pos {
        let line_start = memchr::memrchr(b'\n', &self.text[..offset]).map_or(0, |n| n + 1);
        let line = self
            .at
            .line
            .saturating_sub(line_breaks(&self.text[offset..self.at.offset]));
        Pos {
            offset,
            line,
            col: 1 + chars(&self.text[line_start..offset]),
        }
    }

    /// Where byte `offset` stands, `from` standing before it.
    fn pos_at(&self, from: Pos, offset: usize) -> Pos {
        let skipped = &self.text[from.offset..offset];
        match memchr::memrchr(b'\n', skipped) {
            Some(last) => Pos {
                offset,
                line: from.line.saturating_add(line_breaks(skipped)),
                col: 1 + chars(&skipped[last + 1..]),
            },
            None => Pos {
                offset,
                line: from.line,
                col: from.col.saturating_add(chars(skipped)),
            },
        }
    }

    pub(super) fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.at.offset;
        while self.peek().is_some_and(&f) {
            self.bump();
        }
        &self.text[start..self.at.offset]
    }

    /// A movetext word: everything up to whitespace or a delimiter. Found in one scan (a word
    /// holds no line break, so only the column moves: by its characters).
    pub(super) fn word(&mut self) -> &'a [u8] {
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
    pub(super) fn brace_comment(&mut self) -> Result<&'a [u8], ParseError> {
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

/// How many characters `bytes` holds (UTF-8 continuation bytes start none): its length when
/// it is ASCII (as most movetext is), else counted in blocks of 255 bytes,
/// each into a byte, so that the count is done 16 or 32 bytes at once (the lexer counts the
/// columns of every byte of movetext it steps over).
fn chars(bytes: &[u8]) -> u32 {
    if bytes.is_ascii() {
        return u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    }
    let continuations: usize = bytes
        .chunks(255)
        .map(|block| {
            block
                .iter()
                .fold(0u8, |n, &b| n + u8::from(b & 0xC0 == 0x80))
        })
        .map(usize::from)
        .sum();
    u32::try_from(bytes.len() - continuations).unwrap_or(u32::MAX)
}

/// The bytes that end a movetext word: whitespace and delimiters (a table: [`Lexer::word`]
/// looks up every byte of every move).
pub(super) const WORD_ENDS: [bool; 256] = {
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

pub(super) const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C)
}

/// Text as SCID reads it: UTF-8 where valid, every other byte taken as Latin-1.
pub(super) fn decode(bytes: &[u8]) -> String {
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

/// The bytes SCID's PGN lexer takes as part of a symbol token: letters, digits, `_+#=:-`, and
/// `/~,@` (`pgn_impl::is_PGNsymbol`).
pub(super) const SCID_SYMBOL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric()
            || matches!(
                b as u8,
                b'_' | b'+' | b'#' | b'=' | b':' | b'-' | b'/' | b'~' | b',' | b'@'
            );
        b += 1;
    }
    table
};
