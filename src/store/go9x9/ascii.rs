//! ASCII board positions, the text form of the format's original tools
//! (`parse_position_file.php` reads it, `analyze_position_dat.php view` writes it): 9 rows of
//! 9 `#` (black), `O` (white) or `.` (empty) per board.
//!
//! Reading: a line of exactly 9 such characters (surrounding spaces ignored) is a board row;
//! 9 rows in a row make a board. Any other line may carry, for the next board, `who=B` /
//! `who=W` (the player to move) and a 16-hex-digit hash (`hash 31846ceb8015dc92`, or the view
//! header `31846ceb8015dc92:0: who=W`), which the importer checks against the board's
//! canonical hash; everything else on such lines is ignored as a comment. A board cut short,
//! or a line of board characters that is not 9 long, is refused with its line number.

use crate::game::go::{Board, Color, POINTS};

/// One board read from ASCII text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsciiBoard {
    /// 1-based line of its first row.
    pub line: usize,
    /// The stones.
    pub board: Board,
    /// `who=` of the lines before it, if any.
    pub to_play: Option<Color>,
    /// The hash stated before it, if any.
    pub hash: Option<u64>,
}

/// Why ASCII text was refused: the line and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsciiError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for AsciiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

fn is_cell(c: char) -> bool {
    matches!(c, '#' | 'O' | '.')
}

/// Every board of `text`, in order.
pub fn parse(text: &str) -> Result<Vec<AsciiBoard>, AsciiError> {
    let mut out = Vec::new();
    let mut rows: Vec<&str> = Vec::new();
    let mut first_row = 0;
    let mut to_play = None;
    let mut hash = None;
    let mut last = 0;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        last = n;
        let line = raw.trim();
        let all_cells = !line.is_empty() && line.chars().all(is_cell);
        if all_cells && line.len() == 9 {
            if rows.is_empty() {
                first_row = n;
            }
            rows.push(line);
            if rows.len() == 9 {
                let bytes: Vec<u8> = rows.concat().into_bytes();
                let cells: [u8; POINTS] = bytes.try_into().expect("9 rows of 9");
                let board = Board::from_ascii(&cells).expect("checked characters");
                out.push(AsciiBoard {
                    line: first_row,
                    board,
                    to_play: to_play.take(),
                    hash: hash.take(),
                });
                rows.clear();
            }
            continue;
        }
        if all_cells {
            return Err(AsciiError {
                line: n,
                message: format!(
                    "a board row has 9 of '#', 'O' or '.', this one has {}",
                    line.len()
                ),
            });
        }
        if !rows.is_empty() {
            return Err(AsciiError {
                line: n,
                message: format!(
                    "a board has 9 rows; {:?} comes after {} (rows are 9 of '#', 'O' or '.')",
                    line,
                    rows.len()
                ),
            });
        }
        for token in line.split(|c: char| c.is_whitespace() || c == ':' || c == ',') {
            if let Some(w) = token.strip_prefix("who=") {
                to_play = match w {
                    "B" => Some(Color::Black),
                    "W" => Some(Color::White),
                    _ => {
                        return Err(AsciiError {
                            line: n,
                            message: format!("who={w}: B or W expected"),
                        });
                    }
                };
            } else if token.len() == 16 && token.bytes().all(|b| b.is_ascii_hexdigit()) {
                hash = u64::from_str_radix(token, 16).ok();
            }
        }
    }
    if !rows.is_empty() {
        return Err(AsciiError {
            line: last,
            message: format!("the text ends inside a board ({} of 9 rows)", rows.len()),
        });
    }
    Ok(out)
}

/// The view form of one board: the header line, the 9 rows, and `extra` lines.
pub fn render(header: &str, board: &Board, extra: &[String]) -> String {
    let mut out = format!("{header}\n");
    for row in board.to_ascii().chunks(9) {
        out.push_str(&String::from_utf8_lossy(row));
        out.push('\n');
    }
    for e in extra {
        out.push_str(e);
        out.push('\n');
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_headers_and_errors() {
        let text = "# comment line\nhash 31846ceb8015dc92 who=W\n.........\n.........\n\
                    .........\n...#.....\n.........\n.........\n.........\n.........\n\
                    .........\n\n0000000000000000:0: who=B\n";
        let mut more = text.to_owned();
        more.push_str(&".........\n".repeat(9));
        let boards = parse(&more).unwrap();
        assert_eq!(boards.len(), 2);
        assert_eq!(boards[0].line, 3);
        assert_eq!(boards[0].hash, Some(0x31846ceb8015dc92));
        assert_eq!(boards[0].to_play, Some(Color::White));
        assert_eq!(boards[0].board.stones(), 1);
        assert_eq!(boards[1].to_play, Some(Color::Black));
        assert_eq!(boards[1].hash, Some(0));
        let e = parse(".........\n....\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse(".........\nxx\n").unwrap_err();
        assert!(
            e.to_string().starts_with("line 2: a board has 9 rows"),
            "{e}"
        );
        let e = parse(".........\n").unwrap_err();
        assert!(e.message.contains("1 of 9 rows"), "{e}");
        assert!(parse("who=X\n").is_err());
        let r = render("h", &boards[0].board, &["s".into()]);
        assert_eq!(parse(&r).unwrap()[0].board, boards[0].board);
    }
}
