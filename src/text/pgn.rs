//! PGN rendering in the PGN standard's export format (section 8 of the standard).
//!
//! Deterministic: the same game always gives the same bytes, which the file tree relies on for
//! exact sizes. Tags come as the Seven Tag Roster in order, then ratings, ECO, EventDate, the
//! stored extra tags (SetUp among them, where stored), and FEN; movetext is wrapped below 80
//! columns.

use shakmaty::{Chess, Color, Position};

use crate::error::Result;
use crate::game::legal;
use crate::game::replay::{play, start_position};
use crate::game::{ChessGame, Headers, Line, Ply, StartPosition};

/// Lines of movetext are kept at most this long (the standard asks for below 80 columns).
const MAX_LINE: usize = 79;

/// Render `game` as one PGN game: tag section, blank line, movetext, blank line.
pub fn render(game: &ChessGame) -> Result<String> {
    let mut out = String::with_capacity(1024);
    render_tags(&game.headers, &game.start, &mut out);
    out.push('\n');
    render_movetext(game, &mut out)?;
    out.push('\n');
    Ok(out)
}

fn render_tags(h: &Headers, start: &StartPosition, out: &mut String) {
    let mut tag = |name: &str, value: &str| {
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        escape_tag_value(value, out);
        out.push_str("\"]\n");
    };
    tag("Event", &h.event);
    tag("Site", &h.site);
    tag("Date", &h.date.to_string());
    tag("Round", &h.round);
    tag("White", &h.white);
    tag("Black", &h.black);
    tag("Result", h.result.as_pgn());
    for (color, rating) in [("White", h.white_rating), ("Black", h.black_rating)] {
        if let Some(r) = rating {
            tag(
                &format!("{color}{}", r.kind.tag_suffix()),
                &r.value.to_string(),
            );
        }
    }
    if let Some(eco) = &h.eco {
        tag("ECO", eco);
    }
    if let Some(d) = h.event_date {
        tag("EventDate", &d.to_string());
    }
    for (name, value) in &h.extra {
        // The start position is written from the game itself, below.
        if name != "FEN" {
            tag(&sanitize_tag_name(name), value);
        }
    }
    // A stored SetUp tag is written where it stands, like any other tag; none is invented, so
    // the text reads back to exactly the stored game (SCID exports the same way).
    if let StartPosition::Fen(fen) = start {
        tag("FEN", fen);
    }
}

/// Tag values escape backslash and quote; control characters (not allowed in PGN) become spaces.
fn escape_tag_value(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Tag names are PGN symbols; any other character is replaced so the tag still parses.
fn sanitize_tag_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_+#=:-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        s
    } else {
        format!("X{s}")
    }
}

/// Collects movetext tokens into lines no longer than [`MAX_LINE`].
struct Wrapper<'a> {
    out: &'a mut String,
    line_len: usize,
    /// A token was written on this line, so the next one needs a separating space (tracked
    /// apart from `line_len`: an empty token, a second space of a comment, has no width).
    need_space: bool,
    /// A "(" waiting to be glued to the next token.
    open_paren: bool,
}

impl Wrapper<'_> {
    fn token(&mut self, token: &str) {
        let paren = std::mem::take(&mut self.open_paren);
        let width = token.chars().count() + usize::from(paren);
        if self.need_space && self.line_len + 1 + width > MAX_LINE {
            // The line break stands in for the separating space.
            self.out.push('\n');
            self.line_len = 0;
            self.need_space = false;
        }
        if self.need_space {
            self.out.push(' ');
            self.line_len += 1;
        }
        if paren {
            self.out.push('(');
        }
        self.out.push_str(token);
        self.line_len += width;
        self.need_space = true;
    }

    /// A `{comment}`, split into words so it wraps like any other text.
    ///
    /// Words are split at single spaces so runs of spaces survive (empty words), and a line
    /// break only ever replaces one space, which a reader turns back into a space.
    fn comment(&mut self, text: &str) {
        let cleaned = text.replace('}', ")").replace(['\n', '\r', '\t'], " ");
        let trimmed = cleaned.trim_matches(' ');
        let words: Vec<&str> = if trimmed.is_empty() {
            Vec::new()
        } else {
            trimmed.split(' ').collect()
        };
        match words.as_slice() {
            [] => {}
            [one] => self.token(&format!("{{{one}}}")),
            [first, middle @ .., last] => {
                self.token(&format!("{{{first}"));
                for w in middle {
                    self.token(w);
                }
                self.token(&format!("{last}}}"));
            }
        }
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

    fn finish(self) {
        if self.need_space {
            self.out.push('\n');
        }
    }
}

/// `+` or `#` after a move that gives check or mate. Legal moves are generated only when the
/// side to move is in check (shakmaty's own suffix looks for stalemate too, after every move).
fn check_suffix(pos: &Chess) -> &'static str {
    if !pos.checkers().any() {
        ""
    } else if pos.legal_moves().is_empty() {
        "#"
    } else {
        "+"
    }
}

/// Append `n` in decimal (move numbers and NAGs, written for every move: no formatter).
fn push_decimal(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|&d| char::from(d)));
}

/// One line being rendered: where we are in it and the position before its next move.
struct Frame<'a> {
    line: &'a Line,
    next: usize,
    pos: Chess,
    /// The next move needs a number even if Black plays it (after a comment or variation).
    force_number: bool,
    /// Variations are enclosed in parentheses; the main line is not.
    is_variation: bool,
    /// The opening parenthesis and leading comment have been written.
    opened: bool,
}

impl<'a> Frame<'a> {
    fn new(line: &'a Line, pos: Chess, is_variation: bool) -> Frame<'a> {
        Frame {
            line,
            next: 0,
            pos,
            force_number: true,
            is_variation,
            opened: false,
        }
    }
}

/// Walks the move tree with an explicit stack (no recursion, so any nesting depth is fine).
fn render_movetext(game: &ChessGame, out: &mut String) -> Result<()> {
    let mut w = Wrapper {
        out,
        line_len: 0,
        need_space: false,
        open_paren: false,
    };
    let mut stack = vec![Frame::new(&game.moves, start_position(&game.start)?, false)];
    let mut token = String::with_capacity(32);
    while let Some(frame) = stack.last_mut() {
        if !frame.opened {
            frame.opened = true;
            if frame.is_variation {
                w.open();
            }
            if let Some(c) = frame.line.comment.as_deref() {
                w.comment(c);
            }
        }
        let Some(node) = frame.line.moves.get(frame.next) else {
            if frame.is_variation {
                w.close();
            }
            stack.pop();
            if let Some(parent) = stack.last_mut() {
                parent.force_number = true;
            }
            continue;
        };
        // The position before the move is kept only for the variations that replace it.
        let before = (!node.variations.is_empty()).then(|| frame.pos.clone());
        // The move number stays on one line with its move.
        token.clear();
        if frame.pos.turn() == Color::White {
            push_decimal(&mut token, frame.pos.fullmoves().get());
            token.push_str(". ");
        } else if frame.force_number {
            push_decimal(&mut token, frame.pos.fullmoves().get());
            token.push_str("... ");
        }
        match &node.ply {
            Ply::Move(m) => {
                legal::san(&frame.pos, *m).append_to_string(&mut token);
                frame.pos.play_unchecked(*m);
                token.push_str(check_suffix(&frame.pos));
            }
            Ply::Null => {
                token.push_str("--");
                frame.pos = play(&frame.pos, &node.ply)?;
            }
        }
        w.token(&token);
        for nag in &node.nags {
            token.clear();
            token.push('$');
            push_decimal(&mut token, u32::from(*nag));
            w.token(&token);
        }
        let commented = node
            .comment
            .as_deref()
            .is_some_and(|c| !c.trim().is_empty());
        if let Some(c) = node.comment.as_deref() {
            w.comment(c);
        }
        frame.next += 1;
        frame.force_number = commented || !node.variations.is_empty();
        if let Some(before) = before {
            for variation in node.variations.iter().rev() {
                stack.push(Frame::new(variation, before.clone(), true));
            }
        }
    }
    w.token(game.headers.result.as_pgn());
    w.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameResult, MoveNode, PartialDate, Rating, RatingType};
    use shakmaty::san::San;

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
