//! SGF reading: text → the final position of its main line, for saves and imports.
//!
//! Accepts FF\[1\] to FF\[4\] as real files are (docs/formats/sgf.md §2): junk before the
//! first `(;` (and `(` directly followed by a property, as Many Faces wrote), lowercase letters
//! inside property names (`AddBlack` = `AB`), a missing FF (= FF\[1\]), `tt` and `[]` passes,
//! compressed point lists (`AB[aa:cc]`), setup and move properties in one node (setup first),
//! repeated properties in one node (their values are joined), CR/LF/CRLF line ends, and the
//! charset of `CA` (UTF-8, ISO-8859-1/Latin-1 as the default, US-ASCII, windows-1252; any
//! other charset is read as Latin-1, which only affects text gamefs does not store).
//!
//! Only the main line (the first variation at every branch) is played: setup properties put
//! stones without capturing, moves capture (suicide removes the mover's group, as FF\[4\] says).
//! The result is the final board and the player to move: the last `PL`, or the colour after
//! the last move, or Black. In a node with a move and `PL`, FF\[4\] applies `PL` after the
//! move; FF\[1\]–FF\[3\] split the node, so `PL` comes first and the move decides.
//!
//! Refused, with line and column: not a single game tree, `GM` other than 1, a board size
//! other than 9 (a missing `SZ` means 19), points off the board, a final position with a
//! group without liberties, malformed gamefs properties (`GFID`, `GFSC`). Everything else
//! (game info, comments, markup, unknown properties, variations) is read and dropped: a
//! position record holds the stones and the player only.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, ErrorKind};
use crate::game::go::{Board, Color, GoPosition, Point, PositionId, SIZE, Score};
use crate::store::charset::text_from_bytes;

/// The text of one position may be at most this long (bounds memory; real files are far
/// smaller).
pub const MAX_TEXT_BYTES: usize = 16 << 20;

/// At most this many nodes on the main line, and variations nested at most this deep: far
/// beyond any real 9x9 record, and what bounds the memory one text can take (16 MiB of
/// `(;B[aa]` would otherwise be 2.4 million levels).
pub const MAX_NODES: usize = 100_000;

/// Where and why SGF text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl fmt::Display for SgfError {
    /// `line L, column C: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for SgfError {}

impl From<SgfError> for Error {
    /// Refused text is `InvalidInput` (EINVAL).
    fn from(e: SgfError) -> Error {
        Error::new(ErrorKind::InvalidInput, e.to_string())
    }
}

/// What an SGF text says: the final position of its main line, with the id and the scores
/// the text states (`GFID`; `GFSC`, or the score lines of a gamefs comment when there is no
/// `GFSC`; the two must agree when both are present).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedSgf {
    /// Board and player to move; `id` and `scores` as the text states them (unchecked).
    pub position: GoPosition,
    /// The SGF version (`FF`, 1 when missing).
    pub ff: u8,
    /// Moves (passes included) played on the main line.
    pub moves: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    line: u32,
    column: u32,
}

struct Value {
    raw: Vec<u8>,
    at: Pos,
}

struct Property {
    name: String,
    at: Pos,
    values: Vec<Value>,
}

type Node = Vec<Property>;

fn err(at: Pos, message: impl Into<String>) -> SgfError {
    SgfError {
        line: at.line,
        column: at.column,
        message: message.into(),
    }
}

struct Lexer<'a> {
    text: &'a [u8],
    i: usize,
    at: Pos,
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        if b == b'\n' || (b == b'\r' && self.peek() != Some(b'\n')) {
            self.at.line += 1;
            self.at.column = 1;
        } else if b & 0xC0 != 0x80 {
            self.at.column += 1;
        }
        Some(b)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.bump();
        }
    }

    /// The next non-space byte after index `i`, without moving.
    fn next_token_after(&self, i: usize) -> Option<u8> {
        self.text[i..]
            .iter()
            .copied()
            .find(|b| !b.is_ascii_whitespace())
    }

    /// Skip text before the first `(` that starts a game tree (`(;` or `(` + property).
    fn skip_junk(&mut self) -> bool {
        loop {
            match self.peek() {
                None => return false,
                Some(b'(') => {
                    let next = self.next_token_after(self.i + 1);
                    if matches!(next, Some(b';')) || next.is_some_and(|b| b.is_ascii_uppercase()) {
                        return true;
                    }
                    self.bump();
                }
                Some(_) => {
                    self.bump();
                }
            }
        }
    }

    fn value(&mut self) -> Result<Value, SgfError> {
        let open = self.at;
        self.bump(); // '['
        let at = self.at;
        let mut raw = Vec::new();
        loop {
            match self.bump() {
                None => {
                    return Err(err(
                        open,
                        "this value's '[' is never closed by ']' (escape ']' inside text as '\\]')",
                    ));
                }
                Some(b']') => return Ok(Value { raw, at }),
                Some(b'\\') => {
                    raw.push(b'\\');
                    if let Some(b) = self.bump() {
                        raw.push(b);
                    }
                }
                Some(b) => raw.push(b),
            }
        }
    }

    fn node(&mut self) -> Result<Node, SgfError> {
        let mut node = Node::new();
        loop {
            self.skip_space();
            match self.peek() {
                None | Some(b';' | b'(' | b')') => return Ok(node),
                Some(b) if b.is_ascii_alphabetic() => {
                    let at = self.at;
                    let mut name = String::new();
                    let mut full = String::new();
                    while let Some(b) = self.peek().filter(u8::is_ascii_alphabetic) {
                        full.push(b as char);
                        if b.is_ascii_uppercase() {
                            name.push(b as char);
                        }
                        self.bump();
                    }
                    if name.is_empty() {
                        return Err(err(
                            at,
                            format!("property name {full:?} has no capital letter"),
                        ));
                    }
                    self.skip_space();
                    if self.peek() != Some(b'[') {
                        return Err(err(
                            at,
                            format!("property {full} has no value (a value is written [..])"),
                        ));
                    }
                    let mut values = Vec::new();
                    while self.peek() == Some(b'[') {
                        values.push(self.value()?);
                        self.skip_space();
                    }
                    node.push(Property { name, at, values });
                }
                Some(b) => {
                    return Err(err(
                        self.at,
                        format!(
                            "unexpected {:?} (a property name, ';', '(' or ')' was expected)",
                            b as char
                        ),
                    ));
                }
            }
        }
    }

    /// The main line of the one game tree of the text.
    fn main_line(&mut self) -> Result<Vec<Node>, SgfError> {
        if !self.skip_junk() {
            return Err(err(self.at, "no SGF game tree: '(;' not found"));
        }
        struct Frame {
            main: bool,
            children: usize,
            nodes: usize,
            open: Pos,
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut main = Vec::new();
        loop {
            self.skip_space();
            let at = self.at;
            match self.peek() {
                None => {
                    let open = stack.last().map_or(at, |f| f.open);
                    return Err(err(
                        open,
                        "the game tree opened here is not closed with ')'",
                    ));
                }
                Some(b'(') => {
                    self.bump();
                    let is_main = match stack.last_mut() {
                        None => true,
                        Some(parent) => {
                            if parent.nodes == 0 {
                                return Err(err(at, "a variation before any node"));
                            }
                            parent.children += 1;
                            parent.main && parent.children == 1
                        }
                    };
                    if stack.len() >= MAX_NODES {
                        return Err(err(
                            at,
                            format!("variations nested more than {MAX_NODES} deep"),
                        ));
                    }
                    stack.push(Frame {
                        main: is_main,
                        children: 0,
                        nodes: 0,
                        open: at,
                    });
                    self.skip_space();
                    if self.peek().is_some_and(|b| b.is_ascii_uppercase()) {
                        // Many Faces: "(" directly followed by the first node's properties.
                        let node = self.node()?;
                        let f = stack.last_mut().expect("just pushed");
                        f.nodes += 1;
                        if f.main {
                            push_main(&mut main, node, at)?;
                        }
                    }
                }
                Some(b';') => {
                    self.bump();
                    let Some(f) = stack.last_mut() else {
                        return Err(err(at, "';' outside a game tree"));
                    };
                    if f.children > 0 {
                        return Err(err(at, "a node after a variation (nodes come first)"));
                    }
                    let node = self.node()?;
                    f.nodes += 1;
                    if f.main {
                        push_main(&mut main, node, at)?;
                    }
                }
                Some(b')') => {
                    self.bump();
                    let f = stack.pop().expect("a frame is open inside the loop");
                    if f.nodes == 0 {
                        return Err(err(
                            f.open,
                            "an empty game tree: '(' must be followed by ';'",
                        ));
                    }
                    if stack.is_empty() {
                        self.skip_space();
                        if self.peek().is_some() {
                            let what = if self.skip_junk() {
                                "a second game tree: a position file holds exactly one"
                            } else {
                                "text after the end of the game tree"
                            };
                            return Err(err(self.at, what));
                        }
                        return Ok(main);
                    }
                }
                Some(b) => {
                    return Err(err(
                        at,
                        format!("unexpected {:?} (';', '(' or ')' was expected)", b as char),
                    ));
                }
            }
        }
    }
}

/// Add a node to the main line, up to [`MAX_NODES`].
fn push_main(main: &mut Vec<Node>, node: Node, at: Pos) -> Result<(), SgfError> {
    if main.len() >= MAX_NODES {
        return Err(err(
            at,
            format!("the main line has more than {MAX_NODES} nodes"),
        ));
    }
    main.push(node);
    Ok(())
}

/// The value with escapes resolved and soft line breaks (`\` + newline) removed.
fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            let next = raw[i + 1];
            if next == b'\n' || next == b'\r' {
                i += 2;
                // A two-byte line end (CRLF or LFCR) is one soft break.
                if i < raw.len() && (raw[i] == b'\n' || raw[i] == b'\r') && raw[i] != next {
                    i += 1;
                }
                continue;
            }
            out.push(next);
            i += 2;
        } else {
            if raw[i] != b'\\' {
                out.push(raw[i]);
            }
            i += 1;
        }
    }
    out
}

/// Split a raw value at its first unescaped `:` (a composed value).
fn split_composed(raw: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'\\' => i += 2,
            b':' => return Some((&raw[..i], &raw[i + 1..])),
            _ => i += 1,
        }
    }
    None
}

#[derive(Clone, Copy)]
enum Charset {
    Utf8,
    Latin1,
}

fn decode(bytes: &[u8], charset: Charset) -> String {
    match charset {
        Charset::Utf8 => text_from_bytes(bytes),
        Charset::Latin1 => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

fn trimmed(raw: &[u8]) -> &[u8] {
    raw.trim_ascii()
}

fn number(v: &Value, what: &str) -> Result<i64, SgfError> {
    std::str::from_utf8(trimmed(&unescape(&v.raw)))
        .ok()
        .and_then(|s| s.strip_prefix('+').unwrap_or(s).parse::<i64>().ok())
        .ok_or_else(|| {
            err(
                v.at,
                format!(
                    "{what} must be a number, not {:?}",
                    String::from_utf8_lossy(&v.raw)
                ),
            )
        })
}

fn point(raw: &[u8], at: Pos) -> Result<Point, SgfError> {
    let p = trimmed(raw);
    let coordinate = |b: u8| {
        (b'a'..b'a' + SIZE as u8)
            .contains(&b)
            .then(|| usize::from(b - b'a'))
    };
    if let [c, r] = p
        && let (Some(c), Some(r)) = (coordinate(*c), coordinate(*r))
    {
        return Ok(Point::new(r, c).expect("both coordinates are below 9"));
    }
    Err(err(
        at,
        format!(
            "point {:?} is not on the 9x9 board (two letters a–i: column, row)",
            String::from_utf8_lossy(p)
        ),
    ))
}

/// The points of a point-list value: one point, or a compressed rectangle `aa:cc`.
fn point_list(v: &Value, out: &mut Vec<Point>) -> Result<(), SgfError> {
    match split_composed(&v.raw) {
        None => out.push(point(&v.raw, v.at)?),
        Some((a, b)) => {
            let (a, b) = (point(a, v.at)?, point(b, v.at)?);
            for r in a.row().min(b.row())..=a.row().max(b.row()) {
                for c in a.col().min(b.col())..=a.col().max(b.col()) {
                    out.push(Point::new(r, c).expect("inside the board"));
                }
            }
        }
    }
    Ok(())
}

fn color_value(v: &Value) -> Result<Color, SgfError> {
    match trimmed(&v.raw) {
        [b] => Color::from_letter(*b),
        _ => None,
    }
    .ok_or_else(|| {
        err(
            v.at,
            format!(
                "PL must be B or W, not {:?}",
                String::from_utf8_lossy(&v.raw)
            ),
        )
    })
}

fn find<'n>(node: &'n Node, name: &str) -> Option<&'n Property> {
    node.iter().find(|p| p.name == name)
}

/// Every value of every `name` property of the node (repeats joined).
fn values<'n>(node: &'n Node, name: &'n str) -> impl Iterator<Item = &'n Value> + 'n {
    node.iter()
        .filter(move |p| p.name == name)
        .flat_map(|p| p.values.iter())
}

fn single<'n>(node: &'n Node, name: &str) -> Result<Option<&'n Value>, SgfError> {
    let mut all = node
        .iter()
        .filter(|p| p.name == name)
        .flat_map(|p| &p.values);
    let first = all.next();
    if let Some(second) = all.next() {
        return Err(err(second.at, format!("{name} takes one value")));
    }
    Ok(first)
}

/// Parse one score of a `GFSC` value: `program_ruleset:score/confidence`.
fn gfsc(v: &Value, charset: Charset) -> Result<Score, SgfError> {
    let bad = || {
        err(
            v.at,
            format!(
                "GFSC value {:?} is not program_ruleset:score/confidence",
                String::from_utf8_lossy(&v.raw)
            ),
        )
    };
    let (name, rest) = split_composed(&v.raw).ok_or_else(bad)?;
    let program = decode(&unescape(name), charset);
    let rest = String::from_utf8(unescape(rest)).map_err(|_| bad())?;
    let (s, c) = rest.trim().split_once('/').ok_or_else(bad)?;
    let score = s.trim().parse::<u8>().map_err(|_| bad())?;
    let confidence = c.trim().parse::<u8>().map_err(|_| bad())?;
    if program.is_empty() {
        return Err(bad());
    }
    if !Score::is_program_name(&program) {
        return Err(err(
            v.at,
            format!(
                "GFSC program name {program:?} holds a control character (a line break?); \
                 scored files are never named so"
            ),
        ));
    }
    Ok(Score {
        program: Arc::from(program),
        score,
        confidence,
    })
}

/// The score lines (`program: score S, confidence C`) of a gamefs comment. A line whose
/// program could not name a scored file ([`Score::is_program_name`]) is no score line.
fn comment_scores(text: &str) -> Vec<Score> {
    if !text.starts_with(super::sgf::COMMENT_HEADER) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((program, rest)) = line
            .rsplit_once(": score ")
            .filter(|(program, _)| Score::is_program_name(program))
        else {
            continue;
        };
        let Some((s, c)) = rest.split_once(", confidence ") else {
            continue;
        };
        if let (Ok(score), Ok(confidence)) = (s.trim().parse(), c.trim().parse()) {
            out.push(Score {
                program: Arc::from(program),
                score,
                confidence,
            });
        }
    }
    out.sort();
    out
}

/// Parse an SGF text and play its main line: the final position, what the text states about
/// its id and scores, or where and why the text was refused.
pub fn parse(text: &[u8]) -> Result<ParsedSgf, SgfError> {
    let start = Pos { line: 1, column: 1 };
    if text.len() > MAX_TEXT_BYTES {
        return Err(err(
            start,
            format!("the text is longer than {MAX_TEXT_BYTES} bytes"),
        ));
    }
    let mut lx = Lexer {
        text,
        i: 0,
        at: start,
    };
    let nodes = lx.main_line()?;
    let root = &nodes[0];
    let ff = match single(root, "FF")? {
        None => 1,
        Some(v) => match number(v, "FF")? {
            n @ 1..=4 => n as u8,
            n => {
                return Err(err(
                    v.at,
                    format!("FF[{n}]: only SGF versions 1 to 4 exist"),
                ));
            }
        },
    };
    if let Some(v) = single(root, "GM")? {
        let gm = number(v, "GM")?;
        if gm != 1 {
            return Err(err(
                v.at,
                format!("GM[{gm}] is not Go (GM[1]); this database holds 9x9 Go positions"),
            ));
        }
    }
    match single(root, "SZ")? {
        None => {
            let at = root.first().map_or(start, |p| p.at);
            return Err(err(
                at,
                "no SZ: the board size is then 19, and this database holds 9x9 positions (add SZ[9])",
            ));
        }
        Some(v) => {
            let raw = unescape(&v.raw);
            let size = match split_composed(&raw) {
                Some((a, b)) if a.trim_ascii() == b.trim_ascii() => a.trim_ascii().to_vec(),
                Some(_) => {
                    return Err(err(
                        v.at,
                        format!(
                            "board size {}: this database holds 9x9 positions only",
                            String::from_utf8_lossy(&raw)
                        ),
                    ));
                }
                None => raw.trim_ascii().to_vec(),
            };
            if size != b"9" {
                return Err(err(
                    v.at,
                    format!(
                        "board size {}: this database holds 9x9 positions only",
                        String::from_utf8_lossy(&size)
                    ),
                ));
            }
        }
    }
    let charset = match single(root, "CA")? {
        None => Charset::Latin1,
        Some(v) => {
            let name = String::from_utf8_lossy(trimmed(&unescape(&v.raw))).to_ascii_uppercase();
            if name == "UTF-8" || name == "UTF8" {
                Charset::Utf8
            } else {
                Charset::Latin1
            }
        }
    };

    let mut board = Board::empty();
    let mut to_play = Color::Black;
    let mut moves = 0;
    for node in &nodes {
        for (name, cell) in [
            ("AE", None),
            ("AB", Some(Color::Black)),
            ("AW", Some(Color::White)),
        ] {
            let mut points = Vec::new();
            for v in values(node, name) {
                point_list(v, &mut points)?;
            }
            for p in points {
                board.set(p, cell);
            }
        }
        let pl = match single(node, "PL")? {
            Some(v) => Some(color_value(v)?),
            None => None,
        };
        let mv = match (find(node, "B"), find(node, "W")) {
            (Some(_), Some(w)) => {
                return Err(err(w.at, "a node with both a B and a W move"));
            }
            (Some(_), None) => Some(("B", Color::Black)),
            (None, Some(_)) => Some(("W", Color::White)),
            (None, None) => None,
        };
        if ff < 4
            && let Some(c) = pl
        {
            to_play = c;
        }
        if let Some((name, color)) = mv {
            let v = single(node, name)?.expect("the property is present");
            let raw = trimmed(&v.raw);
            if !(raw.is_empty() || raw == b"tt") {
                board.play(point(raw, v.at)?, color);
            }
            moves += 1;
            to_play = color.opponent();
        }
        if ff >= 4
            && let Some(c) = pl
        {
            to_play = c;
        }
    }
    if let Err(dead) = board.check_layout() {
        return Err(err(
            start,
            format!("the final position is not a legal stone layout: {dead}"),
        ));
    }

    let id = match single(root, "GFID")? {
        None => None,
        Some(v) => {
            let s = String::from_utf8_lossy(trimmed(&unescape(&v.raw))).into_owned();
            Some(
                s.parse::<PositionId>()
                    .map_err(|e| err(v.at, format!("GFID: {e}")))?,
            )
        }
    };
    let mut scores = Vec::new();
    for v in values(root, "GFSC") {
        scores.push(gfsc(v, charset)?);
    }
    scores.sort();
    let comment = single(root, "C")?;
    let in_comment = comment
        .map(|v| decode(&unescape(&v.raw), charset))
        .map(|c| comment_scores(&c.replace("\r\n", "\n").replace('\r', "\n")))
        .unwrap_or_default();
    if !scores.is_empty() && !in_comment.is_empty() && scores != in_comment {
        let at = comment.map_or(start, |v| v.at);
        return Err(err(
            at,
            "the scores in the comment differ from the GFSC property: scores are written \
             by scoring programs and cannot be edited",
        ));
    }
    if scores.is_empty() {
        scores = in_comment;
    }
    Ok(ParsedSgf {
        position: GoPosition {
            board,
            to_play,
            id,
            scores,
            extra: None,
        },
        ff,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::go::ExtraInfo;
    use crate::text::sgf::render;

    fn p(s: &str) -> Point {
        point(s.as_bytes(), Pos { line: 1, column: 1 }).unwrap()
    }

    fn ok(text: &str) -> ParsedSgf {
        parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn refused(text: &str) -> SgfError {
        parse(text.as_bytes()).expect_err(text)
    }

    #[test]
    fn rendered_text_reads_back() {
        let mut board = Board::empty();
        board.set(p("dd"), Some(Color::Black));
        board.set(p("gc"), Some(Color::White));
        let pos = GoPosition {
            board,
            to_play: Color::White,
            id: Some("31846ceb8015dc92-0-W".parse().unwrap()),
            scores: vec![
                Score {
                    program: "a:b]c".into(),
                    score: 3,
                    confidence: 0,
                },
                Score {
                    program: "fuego_chinese".into(),
                    score: 5,
                    confidence: 87,
                },
            ],
            extra: Some(ExtraInfo {
                source_file: 1,
                variation: 2,
                move_number: 3,
            }),
        };
        let back = ok(&render(&pos));
        assert_eq!(back.position.board, pos.board);
        assert_eq!(back.position.to_play, pos.to_play);
        assert_eq!(back.position.id, pos.id);
        assert_eq!(back.position.scores, pos.scores);
        let edited = render(&pos).replace("score 5, confidence 87", "score 6, confidence 87");
        let e = parse(edited.as_bytes()).unwrap_err();
        assert!(e.message.contains("cannot be edited"), "{e}");
        let no_gfsc = render(&pos).replace("GFSC[a\\:b\\]c:3/0][fuego_chinese:5/87]\n", "");
        assert!(!no_gfsc.contains("GFSC"), "{no_gfsc}");
        assert_eq!(
            ok(&no_gfsc).position.scores,
            pos.scores,
            "scores from the comment"
        );
        assert_eq!(back.ff, 4);
    }

    #[test]
    fn ff1_style_file() {
        // Junk before the tree, no FF, lowercase letters in names, tt pass, mixed node.
        let text = "Smart-Go file (c) 1989\n(;GaMe[1]SiZe[9]AddBlack[cc][dd]AddWhite[ee]\n\
                    ;Black[ff];White[tt];Black[gg]\n)";
        let r = ok(text);
        assert_eq!(r.ff, 1);
        assert_eq!(r.moves, 3);
        let b = &r.position.board;
        for s in ["cc", "dd", "ff", "gg"] {
            assert_eq!(b.get(p(s)), Some(Color::Black), "{s}");
        }
        assert_eq!(b.get(p("ee")), Some(Color::White));
        assert_eq!(b.stones(), 5);
        assert_eq!(r.position.to_play, Color::White);
    }

    #[test]
    fn ff3_style_file_with_mixed_setup_and_move_node() {
        // FF[3]: a node with setup and a move (setup first), PL before the move, a capture,
        // compressed list, CRLF line ends, variations (only the first is played).
        let text = "(;FF[3]GM[1]SZ[9]\r\nAB[aa:ab]AW[ba][bb]PL[W]W[ac]C[x\\]y]\r\n\
                    (;B[ee];W[])(;B[ii]))";
        let r = ok(text);
        let b = &r.position.board;
        assert_eq!(b.get(p("aa")), None, "white at ac captured aa and ab");
        assert_eq!(b.get(p("ab")), None);
        assert_eq!(b.get(p("ac")), Some(Color::White));
        assert_eq!(b.get(p("ba")), Some(Color::White));
        assert_eq!(b.get(p("bb")), Some(Color::White));
        assert_eq!(b.get(p("ee")), Some(Color::Black));
        assert_eq!(b.get(p("ii")), None, "second variation not played");
        assert_eq!(r.position.to_play, Color::Black, "after W's pass");
        assert_eq!(r.moves, 3);
    }

    #[test]
    fn deep_and_long_trees_are_bounded() {
        let deep = |n: usize| format!("(;FF[4]SZ[9]{}{})", "(;B[aa]".repeat(n), ")".repeat(n));
        let r = ok(&deep(10_000));
        assert_eq!(
            r.position.board.stones(),
            1,
            "the first variations are the main line"
        );
        let e = refused(&deep(MAX_NODES + 1));
        assert!(e.message.contains("nested more than"), "{e}");
        let long = format!("(;FF[4]SZ[9]{})", ";B[aa]".repeat(MAX_NODES));
        let e = refused(&long);
        assert!(e.message.contains("main line has more than"), "{e}");
        // Deep side variations cost nothing but their nesting.
        let side = format!(
            "(;FF[4]SZ[9];B[ee](;W[aa]){}{})",
            "(;W[bb]".repeat(10_000),
            ")".repeat(10_000)
        );
        assert_eq!(ok(&side).position.board.stones(), 2);
    }

    #[test]
    fn pl_after_a_move_in_ff4_and_many_faces_open_paren() {
        let r = ok("(;FF[4]SZ[9];B[ee]PL[B])");
        assert_eq!(r.position.to_play, Color::Black);
        let r = ok("(;FF[3]SZ[9];B[ee]PL[B])");
        assert_eq!(r.position.to_play, Color::White);
        let r = ok("junk (FF[4]SZ[9]AB[ee];W[aa])\n");
        assert_eq!(r.position.board.stones(), 2);
        let r = ok("(;SZ[9:9]CA[ISO-8859-1]AE[ee]AB[ee])");
        assert_eq!(r.position.board.stones(), 1);
    }

    #[test]
    fn suicide_on_the_main_line_is_executed() {
        let r = ok("(;FF[4]SZ[9]AW[ba][ab];B[aa])");
        assert_eq!(r.position.board.get(p("aa")), None);
        assert_eq!(r.position.board.stones(), 2);
    }

    #[test]
    fn refusals_say_where_and_why() {
        let e = refused("(;FF[4]GM[1]SZ[19])");
        assert!(e.message.contains("board size 19"), "{e}");
        assert_eq!((e.line, e.column), (1, 16));
        let e = refused("(;FF[4]GM[1])");
        assert!(e.message.contains("no SZ"), "{e}");
        let e = refused("(;FF[4]GM[3]SZ[8])");
        assert!(e.message.contains("not Go"), "{e}");
        let e = refused("(;FF[4]SZ[9]\nAB[aj])");
        assert_eq!((e.line, e.column), (2, 4));
        assert!(e.message.contains("not on the 9x9 board"), "{e}");
        let e = refused("(;FF[4]SZ[9]AB[aa]AW[ba][ab])");
        assert!(e.message.contains("not a legal stone layout"), "{e}");
        assert!(e.message.contains("black group of 1 stone at aa"), "{e}");
        let e = refused("(;FF[4]SZ[9]B[tt]W[aa])");
        assert!(e.message.contains("both a B and a W"), "{e}");
        let e = refused("(;FF[4]SZ[9]C[open");
        assert!(e.message.contains("never closed"), "{e}");
        let e = refused("(;FF[4]SZ[9]");
        assert!(e.message.contains("not closed"), "{e}");
        let e = refused("(;SZ[9])(;SZ[9])");
        assert!(e.message.contains("second game tree"), "{e}");
        let e = refused("hello");
        assert!(e.message.contains("'(;' not found"), "{e}");
        let e = refused("(;SZ[9]GFSC[fuego:5])");
        assert!(e.message.contains("GFSC"), "{e}");
        // Found by fuzzing: a line break in a program name split its line in the comment, so
        // the position's own SGF did not read back.
        let e = refused("(;SZ[9]GFSC[fue\ngo_chinese:3/40])");
        assert!(e.message.contains("control character"), "{e}");
        let in_comment =
            ok("(;SZ[9]C[gamefs 9x9 position\nfue\x0cgo_chinese: score 3, confidence 40\n])");
        assert_eq!(in_comment.position.scores, [], "no score line");
        let e = refused("(;SZ[9]GFID[123])");
        assert!(e.message.contains("GFID"), "{e}");
        let e = refused("(;SZ[9]PL[X])");
        assert!(e.message.contains("PL must be"), "{e}");
        let e = refused("(;FF[5]SZ[9])");
        assert!(e.message.contains("FF[5]"), "{e}");
        let e = refused("(;SZ[9];B[aa](;W[bb]);B[cc])");
        assert!(e.message.contains("node after a variation"), "{e}");
        let e = refused("(;SZ[9]ab[cc])");
        assert!(e.message.contains("no capital letter"), "{e}");
        let shown = Error::from(e).to_string();
        assert!(shown.starts_with("line 1, column 8: "), "{shown}");
    }

    #[test]
    fn soft_line_breaks_and_escapes() {
        assert_eq!(unescape(b"a\\\nb\\]c\\\\d\\\r\ne"), b"ab]c\\de");
        assert_eq!(split_composed(b"a\\:b:c"), Some((&b"a\\:b"[..], &b"c"[..])));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let seeds: [&[u8]; 4] = [
            b"(;FF[4]SZ[9]AB[aa:cc]AW[dd];B[ee];W[tt]C[a\\]b](;B[ff])(;W[gg]))",
            b"(;GaMe[1]SiZe[9]AddBlack[cc];Black[dd])",
            b"(;SZ[9]GFID[31846ceb8015dc92-0-W]GFSC[x_y:5/87]C[gamefs 9x9 position\nx_y: score 5, confidence 87\n])",
            b"((((;))))",
        ];
        let mut rng = crate::testing::Rng(0x2545F4914F6CDD1D);
        let mut rnd = || rng.next_u64();
        for seed in seeds {
            for _ in 0..3000 {
                let mut t = seed.to_vec();
                for _ in 0..=(rnd() % 4) {
                    let i = (rnd() as usize) % t.len().max(1);
                    match rnd() % 3 {
                        0 if !t.is_empty() => {
                            t.remove(i);
                        }
                        1 => t.insert(i.min(t.len()), b"[]():;\\\nBWatz"[(rnd() % 13) as usize]),
                        _ if !t.is_empty() => t[i] = rnd() as u8,
                        _ => {}
                    }
                }
                let _ = parse(&t);
            }
        }
    }
}
