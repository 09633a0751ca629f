//! SGF rendering of a 9x9 Go position: one setup node, deterministic bytes.
//!
//! ```text
//! (;FF[4]GM[1]SZ[9]CA[UTF-8]AP[gamefs:0.1.0]
//! AB[dd][fd]
//! AW[gc]
//! PL[W]
//! GFID[31846ceb8015dc92-0-W]
//! GFSC[fuego_chinese:5/87]
//! C[gamefs 9x9 position 31846ceb8015dc92-0-W
//! to play: W
//! stones: 2 black, 1 white
//! fuego_chinese: score 5, confidence 87
//! ])
//! ```
//!
//! Private properties (FF\[4\] allows any upper-case name; the `GF` prefix is gamefs's):
//!
//! * `GFID[<hash>-<tiebreak>-<B|W>]`: the PositionID, exactly the file name without `.sgf`.
//! * `GFSC[<program_ruleset>:<score>/<confidence>]`: one value per scored-position file that
//!   scores this position, sorted by program. A composed value: `:` in a program name is
//!   escaped.
//! * `GFXI[source <file>, variation <v>, move <m>]`: the PositionExtraInfo of a 100-byte
//!   record, only when present.
//!
//! The comment says the same in words so that `grep -r` finds ids and scores in plain text.
//! `AB`/`AW` list points in record order (row by row from the top-left); a colour without
//! stones has no property (SGF lists hold at least one value). Reading back is
//! [`super::sgf_parse`].

use std::fmt::Write;

use crate::game::go::{Color, GoPosition};

/// The `AP` value: this program and its version.
pub const APPLICATION: &str = concat!("gamefs:", env!("CARGO_PKG_VERSION"));

/// The first line of the comment gamefs writes; the parser reads the score lines of a
/// comment that starts with it.
pub const COMMENT_HEADER: &str = "gamefs 9x9 position";

/// `text` with `]` and `\` escaped (and `:` too when `composed`), as SGF values need.
pub fn escape(text: &str, composed: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' || (composed && c == ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The comment text of a position: id, player, stone counts and one line per score.
pub fn comment(position: &GoPosition) -> String {
    let mut c = String::new();
    match &position.id {
        Some(id) => {
            let _ = writeln!(c, "{COMMENT_HEADER} {id}");
        }
        None => {
            let _ = writeln!(c, "{COMMENT_HEADER}");
        }
    }
    let _ = writeln!(c, "to play: {}", position.to_play.letter());
    let _ = writeln!(
        c,
        "stones: {} black, {} white",
        position.board.count(Color::Black),
        position.board.count(Color::White)
    );
    for s in &position.scores {
        let _ = writeln!(
            c,
            "{}: score {}, confidence {}",
            s.program, s.score, s.confidence
        );
    }
    if let Some(x) = &position.extra {
        let _ = writeln!(
            c,
            "source file {}, variation {}, move {}",
            x.source_file, x.variation, x.move_number
        );
    }
    c
}

/// The SGF text of `position`. The same position always gives the same bytes.
pub fn render(position: &GoPosition) -> String {
    let mut out = String::with_capacity(256);
    out.push_str("(;FF[4]GM[1]SZ[9]CA[UTF-8]AP[");
    out.push_str(&escape(APPLICATION, false));
    out.push_str("]\n");
    for (name, color) in [("AB", Color::Black), ("AW", Color::White)] {
        let mut points = position.board.points_of(color).peekable();
        if points.peek().is_none() {
            continue;
        }
        out.push_str(name);
        for p in points {
            let [c, r] = p.sgf();
            out.push('[');
            out.push(c as char);
            out.push(r as char);
            out.push(']');
        }
        out.push('\n');
    }
    let _ = writeln!(out, "PL[{}]", position.to_play.letter());
    if let Some(id) = &position.id {
        let _ = writeln!(out, "GFID[{id}]");
    }
    if !position.scores.is_empty() {
        out.push_str("GFSC");
        for s in &position.scores {
            let _ = write!(
                out,
                "[{}:{}/{}]",
                escape(&s.program, true),
                s.score,
                s.confidence
            );
        }
        out.push('\n');
    }
    if let Some(x) = &position.extra {
        let _ = writeln!(
            out,
            "GFXI[source {}, variation {}, move {}]",
            x.source_file, x.variation, x.move_number
        );
    }
    out.push_str("C[");
    out.push_str(&escape(&comment(position), false));
    out.push_str("])\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::go::{Board, ExtraInfo, Point, PositionId, Score};

    fn example() -> GoPosition {
        let mut board = Board::empty();
        board.set(Point::new(3, 3).unwrap(), Some(Color::Black));
        board.set(Point::new(3, 5).unwrap(), Some(Color::Black));
        board.set(Point::new(2, 6).unwrap(), Some(Color::White));
        GoPosition {
            board,
            to_play: Color::White,
            id: Some(PositionId {
                hash: 0x31846ceb8015dc92,
                tiebreak: 0,
                to_play: Color::White,
            }),
            scores: vec![
                Score {
                    program: "fuego_chinese".into(),
                    score: 5,
                    confidence: 87,
                },
                Score {
                    program: "odd:name]".into(),
                    score: 8,
                    confidence: 100,
                },
            ],
            extra: None,
        }
    }

    #[test]
    fn renders_the_documented_layout() {
        let text = render(&example());
        let want = format!(
            "(;FF[4]GM[1]SZ[9]CA[UTF-8]AP[{APPLICATION}]\n\
             AB[dd][fd]\n\
             AW[gc]\n\
             PL[W]\n\
             GFID[31846ceb8015dc92-0-W]\n\
             GFSC[fuego_chinese:5/87][odd\\:name\\]:8/100]\n\
             C[gamefs 9x9 position 31846ceb8015dc92-0-W\n\
             to play: W\n\
             stones: 2 black, 1 white\n\
             fuego_chinese: score 5, confidence 87\n\
             odd:name\\]: score 8, confidence 100\n\
             ])\n"
        );
        assert_eq!(text, want);
        assert_eq!(render(&example()), text, "deterministic");
    }

    #[test]
    fn empty_colours_have_no_property_and_extra_info_is_shown() {
        let mut p = example();
        p.board = Board::empty();
        p.scores.clear();
        p.extra = Some(ExtraInfo {
            source_file: 12,
            variation: 3,
            move_number: 45,
        });
        let text = render(&p);
        assert!(!text.contains("AB") && !text.contains("AW") && !text.contains("GFSC"));
        assert!(text.contains("GFXI[source 12, variation 3, move 45]\n"));
        assert!(text.contains("source file 12, variation 3, move 45\n"));
    }
}
