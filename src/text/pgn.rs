//! PGN rendering in the PGN standard's export format (section 8 of the standard).
//!
//! Deterministic: the same game always gives the same bytes, which the file tree relies on for
//! exact sizes. Tags come as the Seven Tag Roster in order, then ratings, ECO, EventDate, the
//! stored extra tags (SetUp among them, where stored), and FEN; movetext is wrapped below 80
//! columns. [`Style::ChessBase`] lays a game out as ChessBase's own export does, for the
//! databases ChessBase wrote.

use shakmaty::{Chess, Color, Position};

use crate::decimal::push_decimal;
use crate::error::{Error, ErrorKind, Result};
use crate::game::legal;
use crate::game::visit::{self, GameVisitor};
use crate::game::{ChessGame, GameResult, Headers, Ply, StartPosition};

/// Lines of movetext are kept at most this long (the standard asks for below 80 columns).
const MAX_LINE: usize = 79;

/// How a game's text is laid out. Both read back to the same game; each is what a program
/// people compare gamefs with writes for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// The PGN standard's export format, as SCID writes it: a move number stays on the line
    /// of its move, and Black's move after a comment is numbered (`2... Nf6`).
    #[default]
    Standard,
    /// As ChessBase's PGN export writes it: ECO before the ratings, FEN right after SetUp and
    /// EventDate right after PlyCount; a move number is a word of its own (a line may end in
    /// `5.`), Black's move after a comment is not numbered, and a game without moves has a
    /// space before its result.
    ChessBase,
}

/// Render `game` as one PGN game: tag section, blank line, movetext, blank line.
pub fn render(game: &ChessGame) -> Result<String> {
    render_in(game, Style::Standard)
}

/// [`render`] in `style`.
pub fn render_in(game: &ChessGame, style: Style) -> Result<String> {
    let mut writer = PgnWriter::new().in_style(style);
    visit::walk(game, &mut writer)?;
    Ok(writer.finish())
}

fn render_tags(h: &Headers, start: &StartPosition, style: Style, out: &mut String) {
    /// `[Name "`, the name given in parts (ratings: colour and kind).
    fn open(out: &mut String, name: &[&str]) {
        out.push('[');
        for part in name {
            out.push_str(part);
        }
        out.push_str(" \"");
    }
    fn close(out: &mut String) {
        out.push_str("\"]\n");
    }
    let tag = |out: &mut String, name: &str, value: &str| {
        open(out, &[name]);
        escape_tag_value(value, out);
        close(out);
    };
    tag(out, "Event", &h.event);
    tag(out, "Site", &h.site);
    open(out, &["Date"]);
    h.date.push_pgn(out);
    close(out);
    tag(out, "Round", &h.round);
    tag(out, "White", &h.white);
    tag(out, "Black", &h.black);
    tag(out, "Result", h.result.as_pgn());
    let chessbase = style == Style::ChessBase;
    let eco = |out: &mut String| {
        if let Some(eco) = &h.eco {
            tag(out, "ECO", eco);
        }
    };
    if chessbase {
        eco(out);
    }
    for (color, rating) in [("White", h.white_rating), ("Black", h.black_rating)] {
        if let Some(r) = rating {
            open(out, &[color, r.kind.tag_suffix()]);
            push_decimal(out, u32::from(r.value));
            close(out);
        }
    }
    if !chessbase {
        eco(out);
    }
    let mut event_date = h.event_date;
    let mut write_event_date = |out: &mut String| {
        if let Some(d) = event_date.take() {
            open(out, &["EventDate"]);
            d.push_pgn(out);
            close(out);
        }
    };
    if !chessbase {
        write_event_date(out);
    }
    // A stored SetUp tag is written where it stands, like any other tag; none is invented, so
    // the text reads back to exactly the stored game (SCID exports the same way). The FEN is
    // written from the game itself: at the end, or (ChessBase) right after SetUp.
    let mut fen = match start {
        StartPosition::Fen(fen) | StartPosition::Chess960(fen) => Some(fen),
        StartPosition::Standard => None,
    };
    for (name, value) in &h.extra {
        if name == "FEN" {
            continue;
        }
        if is_tag_symbol(name) {
            tag(out, name, value);
        } else {
            tag(out, &sanitize_tag_name(name), value);
        }
        if chessbase
            && name == "SetUp"
            && let Some(fen) = fen.take()
        {
            tag(out, "FEN", fen);
        }
        if chessbase && name == "PlyCount" {
            write_event_date(out);
        }
    }
    write_event_date(out);
    if let Some(fen) = fen {
        tag(out, "FEN", fen);
    }
}

/// Tag values escape backslash and quote. Control characters (not allowed in PGN) become
/// spaces, except the ASCII ones SCID's import keeps in a tag value (`0x06` in a player's name
/// in a real collection), which are written as they are, so that the text reads back to the
/// game (`pgn_parse`'s tag values keep them too); tab, carriage return, vertical tab and NUL,
/// which no reading keeps as they are, become spaces.
fn escape_tag_value(value: &str, out: &mut String) {
    // Every byte looked at, without stopping at the first found: the compiler checks many at
    // once, quicker on a short value (most are) than a search that stops.
    let plain = !value.bytes().fold(false, |found, b| {
        found | (b == b'\\' || b == b'"' || b.is_ascii_control() || b >= 0x80)
    });
    if plain {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() && !kept_control(c) => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Whether control character `c` is written as it is in a tag value: an ASCII one other than
/// NUL, tab, line feed, vertical tab and carriage return.
pub(crate) fn kept_control(c: char) -> bool {
    c.is_ascii_control() && !matches!(c, '\0' | '\t' | '\n' | '\u{0B}' | '\r')
}

/// A character a PGN symbol (a tag name) may hold.
fn is_symbol_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '=' | ':' | '-')
}

/// Whether `name` is written as it is: a PGN symbol, starting with a letter or digit. Read
/// byte by byte: no byte of a character beyond ASCII is a symbol character.
fn is_tag_symbol(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.bytes().all(|b| is_symbol_char(char::from(b)))
}

/// Tag names are PGN symbols; any other character is replaced so the tag still parses.
fn sanitize_tag_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if is_symbol_char(c) { c } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        s
    } else {
        format!("X{s}")
    }
}

/// Collects movetext tokens into lines no longer than [`MAX_LINE`].
struct Wrapper {
    out: String,
    line_len: usize,
    /// A token was written on this line, so the next one needs a separating space (tracked
    /// apart from `line_len`: an empty token, a second space of a comment, has no width).
    need_space: bool,
    /// A "(" waiting to be glued to the next token.
    open_paren: bool,
}

impl Wrapper {
    fn token(&mut self, token: &str) {
        self.token_with(|out| out.push_str(token));
    }

    /// A token that `write` appends straight to the text (moves: no copy through a buffer).
    fn token_with(&mut self, write: impl FnOnce(&mut String)) {
        self.token_of_width(write, |written| written.chars().count());
    }

    /// A token known to be ASCII (a move): its width is its length, no need to look.
    fn ascii_token_with(&mut self, write: impl FnOnce(&mut String)) {
        self.token_of_width(write, |written| {
            debug_assert!(written.is_ascii(), "{written:?}");
            written.len()
        });
    }

    /// A token that `write` appends, `width` telling how many characters it wrote.
    fn token_of_width(
        &mut self,
        write: impl FnOnce(&mut String),
        width: impl FnOnce(&str) -> usize,
    ) {
        let paren = std::mem::take(&mut self.open_paren);
        let space_at = self.out.len();
        if self.need_space {
            self.out.push(' ');
        }
        let start = self.out.len();
        if paren {
            self.out.push('(');
        }
        write(&mut self.out);
        let width = width(&self.out[start..]);
        if self.place(width) == Some('\n') {
            // The line break stands in for the separating space.
            self.out.replace_range(space_at..start, "\n");
        }
    }

    /// Count a token of `width` characters (its "(" included) into the line: the separator
    /// before it — none, a space, or the line break that stands in for the space when the
    /// token would pass [`MAX_LINE`] — the one rule every token is placed by.
    fn place(&mut self, width: usize) -> Option<char> {
        let separator = if !self.need_space {
            None
        } else if self.line_len + 1 + width > MAX_LINE {
            Some('\n')
        } else {
            Some(' ')
        };
        self.line_len = match separator {
            None => self.line_len + width,
            Some('\n') => width,
            Some(_) => self.line_len + 1 + width,
        };
        self.need_space = true;
        separator
    }

    /// A token of `width` characters that `write` appends: the separator (a space, or the
    /// line break that stands in for it) is chosen before the token is written.
    fn token_of_known_width(&mut self, width: usize, write: impl FnOnce(&mut String)) {
        let paren = std::mem::take(&mut self.open_paren);
        if let Some(separator) = self.place(width + usize::from(paren)) {
            self.out.push(separator);
        }
        if paren {
            self.out.push('(');
        }
        write(&mut self.out);
    }

    /// A `{comment}`, split into words so it wraps like any other text.
    ///
    /// Words are split at single spaces so runs of spaces survive (empty words), and a line
    /// break only ever replaces one space, which a reader turns back into a space.
    fn comment(&mut self, text: &str) {
        // A `}` would end the comment early; line breaks and tabs become spaces.
        // Every byte looked at, without stopping at the first found: the compiler checks many
        // at once, quicker on a short comment (most are) than a search that stops.
        let must_clean = text.bytes().fold(false, |found, b| {
            found | matches!(b, b'}' | b'\n' | b'\r' | b'\t')
        });
        let cleaned = if must_clean {
            std::borrow::Cow::Owned(text.replace('}', ")").replace(['\n', '\r', '\t'], " "))
        } else {
            std::borrow::Cow::Borrowed(text)
        };
        // Byte by byte: `trim_matches(' ')` decodes every character it passes.
        let bytes = cleaned.as_bytes();
        let from = bytes.iter().position(|&b| b != b' ').unwrap_or(bytes.len());
        let to = bytes
            .iter()
            .rposition(|&b| b != b' ')
            .map_or(from, |i| i + 1);
        let trimmed = &cleaned[from..to];
        if trimmed.is_empty() {
            return;
        }
        let ascii = trimmed.is_ascii();
        let chars = |s: &str| if ascii { s.len() } else { s.chars().count() };
        let width = chars(trimmed);
        let separator = usize::from(self.need_space);
        let paren = usize::from(self.open_paren);
        if self.line_len + separator + paren + width + 2 <= MAX_LINE {
            // Every word fits on this line, so no space between them becomes a line break:
            // the comment is written at once, as the words one by one would write it.
            self.comment_piece(trimmed, width, true, true);
            return;
        }
        // `{first`, the middle words, `last}` (or `{only}`), each placed as a token of its own
        // would be; words are cut at spaces, which are ASCII, so at character boundaries.
        let bytes = trimmed.as_bytes();
        let len = bytes.len();
        let mut start = 0;
        loop {
            // The next word: after a space, or after the line break that stands in for it.
            let end = memchr::memchr(b' ', &bytes[start..]).map_or(len, |i| start + i);
            let word = &trimmed[start..end];
            let (first, last) = (start == 0, end == len);
            self.comment_piece(word, chars(word), first, last);
            if last {
                return;
            }
            start = end + 1;
            if !ascii {
                continue;
            }
            // The words after it that still fit on this line, each after one space (an empty
            // word, of a run of spaces, is that space): the text as it stands, at once.
            let room = MAX_LINE.saturating_sub(self.line_len);
            // The rest fits with its space before and its `}` after.
            let (end, last) = if len - start + 2 <= room {
                (len, true)
            } else {
                match memchr::memrchr(b' ', &bytes[start..len.min(start + room)]) {
                    Some(i) => (start + i, false),
                    None => continue,
                }
            };
            // One token by the one rule, which puts it after a space: it fits.
            let run = &trimmed[start..end];
            self.comment_piece(run, run.len(), false, last);
            if last {
                return;
            }
            start = end + 1;
        }
    }

    /// A piece of a comment of `chars` characters as one token, after the comment's `{` when
    /// `first` and before its `}` when `last` (the braces count in its width).
    fn comment_piece(&mut self, piece: &str, chars: usize, first: bool, last: bool) {
        let width = chars + usize::from(first) + usize::from(last);
        self.token_of_known_width(width, |out| {
            if first {
                out.push('{');
            }
            out.push_str(piece);
            if last {
                out.push('}');
            }
        });
    }

    /// Open a variation: the parenthesis sticks to the next token.
    fn open(&mut self) {
        self.open_paren = true;
    }

    /// Close a variation: the parenthesis sticks to the previous token when it fits.
    fn close(&mut self) {
        if std::mem::take(&mut self.open_paren) {
            self.token("()");
        } else if self.line_len > 0 && self.line_len < MAX_LINE {
            self.out.push(')');
            self.line_len += 1;
        } else {
            self.token(")");
        }
    }

    /// The text written, its last line ended.
    fn finish(mut self) -> String {
        if self.need_space {
            self.out.push('\n');
        }
        self.out
    }
}

/// `+` or `#` after a move that gives check or mate (shakmaty's own suffix looks for
/// stalemate too, after every move).
fn check_suffix(pos: &Chess, check: bool) -> &'static str {
    if !check {
        ""
    } else if legal::is_mated(pos) {
        "#"
    } else {
        "+"
    }
}

/// A move in SAN with its check mark, or a null move as `--`.
fn push_ply(before: &Chess, ply: &Ply, after: &Chess, check: bool, out: &mut String) {
    match ply {
        Ply::Move(m) => {
            legal::push_san(before, *m, out);
            out.push_str(check_suffix(after, check));
        }
        Ply::Null => out.push_str("--"),
    }
}

/// One line being written: the main line or an open variation.
struct LineState {
    /// Variations are enclosed in parentheses; the main line is not.
    is_variation: bool,
    /// The opening parenthesis and the line's comment have been written.
    opened: bool,
    /// The line's comment, written when its first move (or its end) comes.
    comment: String,
    /// The next move needs a number even if Black plays it (after a comment or variation).
    force_number: bool,
}

impl LineState {
    fn new(is_variation: bool) -> LineState {
        LineState {
            is_variation,
            opened: false,
            comment: String::new(),
            force_number: true,
        }
    }
}

/// The comment of the last move told, held back until the move can take no more (the next
/// move or a variation of it came): a later comment replaces it, and NAGs come before it.
#[derive(Default)]
struct PendingComment {
    text: String,
    /// Written out: the last move can take no more NAGs or comments.
    written: bool,
}

/// Writes one PGN game from [`GameVisitor`] events: [`render`] tells it a game held as a
/// tree, a store that decodes into events tells it a stored game directly.
///
/// It takes events in the order of the move tree. Stored bytes that attach a NAG or comment
/// to a move after its variations cannot be written in one pass: the event fails and
/// [`PgnWriter::reordered`] says so, and the caller renders the game through the model.
pub struct PgnWriter {
    wrapper: Wrapper,
    style: Style,
    result: GameResult,
    lines: Vec<LineState>,
    pending: PendingComment,
    reordered: bool,
    /// The length of the buffer before the game: what [`GameVisitor::restart`] goes back
    /// to.
    start: usize,
}

impl Default for PgnWriter {
    fn default() -> Self {
        PgnWriter::new()
    }
}

impl PgnWriter {
    /// A writer for one game.
    pub fn new() -> PgnWriter {
        PgnWriter::appending_to(String::with_capacity(2048))
    }

    /// A writer for one game that appends it to `out` (many games rendered into one buffer,
    /// as an export writes them); [`finish`](Self::finish) hands `out` back.
    pub fn appending_to(out: String) -> PgnWriter {
        PgnWriter {
            start: out.len(),
            wrapper: Wrapper {
                out,
                line_len: 0,
                need_space: false,
                open_paren: false,
            },
            style: Style::Standard,
            result: GameResult::Unknown,
            lines: vec![LineState::new(false)],
            pending: PendingComment {
                text: String::new(),
                written: true,
            },
            reordered: false,
        }
    }

    /// The writer laying its game out in `style`.
    pub fn in_style(mut self, style: Style) -> PgnWriter {
        self.style = style;
        self
    }

    /// True when an event came out of the tree's order (see the type's documentation).
    pub fn reordered(&self) -> bool {
        self.reordered
    }

    /// The game's text (after what the buffer held): the movetext ends with the result and a
    /// blank line follows.
    pub fn finish(mut self) -> String {
        self.open_line();
        self.flush_pending();
        if self.style == Style::ChessBase && !self.wrapper.need_space {
            // ChessBase writes a space before the result of a game without moves.
            self.wrapper.out.push(' ');
            self.wrapper.line_len = 1;
        }
        self.wrapper.token(self.result.as_pgn());
        let mut out = self.wrapper.finish();
        out.push('\n');
        out
    }

    fn out_of_order(&mut self, what: &str) -> Result<()> {
        self.reordered = true;
        Err(Error::new(
            ErrorKind::CorruptRecord,
            format!("{what} comes after the variations of its move"),
        ))
    }

    fn line(&mut self) -> &mut LineState {
        self.lines
            .last_mut()
            .expect("the main line is never closed")
    }

    /// Write the current line's opening parenthesis and comment, once.
    fn open_line(&mut self) {
        let line = self
            .lines
            .last_mut()
            .expect("the main line is never closed");
        if !line.opened {
            line.opened = true;
            if line.is_variation {
                self.wrapper.open();
            }
            if !line.comment.is_empty() {
                self.wrapper.comment(&line.comment);
            }
        }
    }

    /// Write the last move's comment: the move is complete.
    fn flush_pending(&mut self) {
        if std::mem::replace(&mut self.pending.written, true) {
            return;
        }
        let commented = !self.pending.text.is_empty() && {
            self.wrapper.comment(&self.pending.text);
            !self.pending.text.trim().is_empty()
        };
        self.line().force_number = commented && self.style == Style::Standard;
    }
}

impl GameVisitor for PgnWriter {
    fn begin(&mut self, headers: &Headers, start: &StartPosition) -> Result<()> {
        render_tags(headers, start, self.style, &mut self.wrapper.out);
        self.wrapper.out.push('\n');
        self.result = headers.result;
        Ok(())
    }

    fn line_comment(&mut self, text: &str) -> Result<()> {
        let line = self.line();
        if line.opened {
            return self.out_of_order("a line's comment");
        }
        line.comment.clear();
        line.comment.push_str(text);
        Ok(())
    }

    fn ply(&mut self, before: &Chess, ply: &Ply, after: &Chess, check: bool) -> Result<()> {
        self.open_line();
        self.flush_pending();
        let force_number = std::mem::take(&mut self.line().force_number);
        self.pending.text.clear();
        self.pending.written = false;
        let white = before.turn() == Color::White;
        if self.style == Style::ChessBase {
            // The number is a word of its own, the move another.
            if white || force_number {
                self.wrapper.ascii_token_with(|out| {
                    push_decimal(out, before.fullmoves().get());
                    // Each a length the compiler knows: a store, not a copy's call.
                    if white {
                        out.push('.');
                    } else {
                        out.push_str("...");
                    }
                });
            }
            self.wrapper
                .ascii_token_with(|out| push_ply(before, ply, after, check, out));
            return Ok(());
        }
        // The move number stays on one line with its move.
        self.wrapper.ascii_token_with(|out| {
            if white {
                push_decimal(out, before.fullmoves().get());
                out.push_str(". ");
            } else if force_number {
                push_decimal(out, before.fullmoves().get());
                out.push_str("... ");
            }
            push_ply(before, ply, after, check, out);
        });
        Ok(())
    }

    fn nag(&mut self, nag: u8) -> Result<()> {
        if self.pending.written {
            return self.out_of_order("a NAG");
        }
        // The comment is still held back, so the NAG comes before it, as in the model.
        self.wrapper.token_with(|out| {
            out.push('$');
            push_decimal(out, u32::from(nag));
        });
        Ok(())
    }

    fn comment(&mut self, text: &str) -> Result<()> {
        if self.pending.written {
            return self.out_of_order("a comment");
        }
        self.pending.text.clear();
        self.pending.text.push_str(text);
        Ok(())
    }

    fn begin_variation(&mut self) -> Result<()> {
        self.flush_pending();
        self.lines.push(LineState::new(true));
        Ok(())
    }

    fn end_variation(&mut self) -> Result<()> {
        self.open_line();
        self.flush_pending();
        if self.lines.len() > 1 {
            self.lines.pop();
            self.wrapper.close();
            self.line().force_number = true;
        }
        Ok(())
    }

    /// The text written of the game is taken back: the writer is as it was made.
    fn restart(&mut self) -> bool {
        let style = self.style;
        let mut out = std::mem::take(&mut self.wrapper.out);
        out.truncate(self.start);
        *self = PgnWriter::appending_to(out).in_style(style);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::replay::play;
    use crate::game::{Line, MoveNode, PartialDate, Rating, RatingType};
    use shakmaty::san::San;

    #[test]
    fn a_restarted_writer_takes_back_the_game_told_so_far() {
        let pos = Chess::default();
        let e4 = San::from_ascii(b"e4").unwrap().to_move(&pos).unwrap();
        let after = play(&pos, &Ply::Move(e4)).unwrap();
        for style in [Style::Standard, Style::ChessBase] {
            let fresh = PgnWriter::appending_to("before\n".to_owned()).in_style(style);
            let mut writer = PgnWriter::appending_to("before\n".to_owned()).in_style(style);
            assert!(writer.restart(), "asked before the game, it says it can");
            writer
                .begin(&Headers::default(), &StartPosition::Standard)
                .unwrap();
            writer.ply(&pos, &Ply::Move(e4), &after, false).unwrap();
            writer.comment("gone").unwrap();
            assert!(writer.restart());
            assert_eq!(writer.finish(), fresh.finish());
        }
    }

    /// Build a line from SAN moves played from `pos`.
    fn line(pos: &Chess, sans: &[&str]) -> Line {
        let mut pos = pos.clone();
        let mut moves = Vec::new();
        for s in sans {
            let ply = if *s == "--" {
                Ply::Null
            } else {
                Ply::Move(s.parse::<San>().unwrap().to_move(&pos).unwrap())
            };
            pos = play(&pos, &ply).unwrap();
            moves.push(MoveNode::new(ply));
        }
        Line {
            comment: None,
            moves,
        }
    }

    fn game(moves: Line) -> ChessGame {
        ChessGame {
            headers: Headers {
                event: "Casual".into(),
                white: "Réti, Richard".into(),
                black: "Say \"hi\" \\".into(),
                date: PartialDate {
                    year: Some(1910),
                    month: None,
                    day: None,
                },
                result: GameResult::WhiteWins,
                ..Headers::default()
            },
            start: StartPosition::Standard,
            moves,
        }
    }

    #[test]
    fn tag_section_order_and_escaping() {
        let mut g = game(Line::default());
        g.headers.white_rating = Some(Rating {
            value: 2700,
            kind: RatingType::Elo,
        });
        g.headers.black_rating = Some(Rating {
            value: 1800,
            kind: RatingType::Uscf,
        });
        g.headers.eco = Some("B20".into());
        g.headers.extra = vec![("Annotator".into(), "Me".into())];
        let text = render(&g).unwrap();
        let expected = "[Event \"Casual\"]\n[Site \"\"]\n[Date \"1910.??.??\"]\n[Round \"\"]\n\
            [White \"Réti, Richard\"]\n[Black \"Say \\\"hi\\\" \\\\\"]\n[Result \"1-0\"]\n\
            [WhiteElo \"2700\"]\n[BlackUSCF \"1800\"]\n[ECO \"B20\"]\n[Annotator \"Me\"]\n\n1-0\n\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn movetext_with_comments_nags_variations_and_nulls() {
        let pos = Chess::default();
        let mut main = line(&pos, &["e4", "e5", "Nf3", "Nc6"]);
        main.comment = Some("Pre-game".into());
        main.moves[0].nags = vec![1, 14];
        main.moves[1].comment = Some("Open\ngame".into());
        let after_e4 = play(&pos, &main.moves[0].ply).unwrap();
        let mut var = line(&after_e4, &["c5", "--", "d6"]);
        var.comment = Some("Sicilian".into());
        main.moves[1].variations = vec![var, line(&after_e4, &["e6"])];
        let text = render(&game(main)).unwrap();
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert_eq!(
            movetext,
            "{Pre-game} 1. e4 $1 $14 e5 {Open game} ({Sicilian} 1... c5 2. -- d6) (1... e6)\n2. Nf3 Nc6 1-0"
        );
    }

    #[test]
    fn fen_start_with_black_to_move() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40";
        let pos = crate::game::replay::position_from_fen(fen).unwrap();
        let mut g = game(line(&pos, &["Kd7", "e4"]));
        g.start = StartPosition::Fen(fen.into());
        g.headers.extra = vec![("SetUp".into(), "1".into())];
        let text = render(&g).unwrap();
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]\n\n40... Kd7 41. e4 1-0\n"), "{text}");
        assert_eq!(text.matches("SetUp").count(), 1);
    }

    #[test]
    fn lines_stay_below_80_columns_and_output_is_deterministic() {
        let pos = Chess::default();
        let mut main = line(&pos, &["Nf3", "Nf6", "Ng1", "Ng8"].repeat(30));
        main.moves[5].comment = Some("word ".repeat(60));
        let g = game(main);
        let text = render(&g).unwrap();
        assert!(text.lines().all(|l| l.chars().count() < 80), "{text}");
        assert_eq!(text, render(&g).unwrap());
    }

    /// A wrapper standing `line_len` characters into a line, with a "(" waiting or not.
    fn wrapper_at(line_len: usize, open_paren: bool) -> Wrapper {
        let mut w = Wrapper {
            out: String::new(),
            line_len: 0,
            need_space: false,
            open_paren: false,
        };
        if line_len > 0 {
            w.token(&"x".repeat(line_len));
        }
        w.open_paren = open_paren;
        w
    }

    #[test]
    fn a_comment_wraps_as_its_words_written_one_by_one() {
        let texts = [
            "[%clk 0:09:57.1]",
            "a  b   c",
            " spaced out ",
            "Réti's idea — ça va",
            "line\nbreak}and\ttab",
            &"word ".repeat(30),
            &"né  ".repeat(40),
            &"x".repeat(100),
        ];
        // Random words of 0 to 90 letters (0: a run of spaces), some not ASCII.
        let mut rng = crate::testing::Rng(0x9e37_79b9_7f4a_7c15);
        let random: Vec<String> = (0..200)
            .map(|_| {
                let words: Vec<String> = (0..1 + rng.below(40))
                    .map(|_| {
                        let letter = if rng.chance(5) { "é" } else { "a" };
                        letter.repeat(*rng.pick(&[0, 1, 3, 7, 12, 30, 78, 79, 80, 90]))
                    })
                    .collect();
                // A first word, so that no text is all spaces (such a comment is not written).
                format!("w {}", words.join(" "))
            })
            .collect();
        for text in texts.into_iter().chain(random.iter().map(String::as_str)) {
            for line_len in 0..=MAX_LINE {
                for paren in [false, true] {
                    let mut fast = wrapper_at(line_len, paren);
                    fast.comment(text);
                    // The reference: each word a token of its own, as the general path writes.
                    let mut slow = wrapper_at(line_len, paren);
                    let cleaned = text.replace('}', ")").replace(['\n', '\r', '\t'], " ");
                    let words: Vec<&str> = cleaned.trim_matches(' ').split(' ').collect();
                    for (i, word) in words.iter().enumerate() {
                        let open = if i == 0 { "{" } else { "" };
                        let close = if i + 1 == words.len() { "}" } else { "" };
                        slow.token(&format!("{open}{word}{close}"));
                    }
                    assert_eq!(fast.out, slow.out, "{text:?} at {line_len}, paren {paren}");
                    assert_eq!(fast.line_len, slow.line_len);
                }
            }
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let pos = Chess::default();
        let mut inner = line(&pos, &["d4"]);
        for _ in 0..10_000 {
            let mut outer = line(&pos, &["e4"]);
            outer.moves[0].variations.push(inner);
            inner = outer;
        }
        let text = render(&game(inner)).unwrap();
        assert_eq!(text.matches('(').count(), 10_000);
        assert_eq!(text.matches(')').count(), 10_000);
    }
}
