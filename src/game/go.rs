//! The 9x9 Go model: board, stones, moves with captures, the 8 board symmetries, the canonical
//! Zobrist hash and the identity of a position in Darren Cook's 9x9 position databases.
//!
//! Nothing here knows bytes on disk or SGF text: the store reads the zobrist table and the
//! records into these types, and the text layer renders and parses them (docs/formats/go9x9.md).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Points per side of the board.
pub const SIZE: usize = 9;
/// Points on the board.
pub const POINTS: usize = SIZE * SIZE;

/// A player, or the colour of a stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Black (`#` on disk, `B` in SGF and in a PositionID).
    Black,
    /// White (`O` on disk, `W` in SGF and in a PositionID).
    White,
}

impl Color {
    /// The other colour.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `'B'` or `'W'`: the letter of SGF and of a PositionID's to-play byte.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// The colour of a `B`/`W` letter (either case), if it is one.
    pub fn from_letter(c: u8) -> Option<Color> {
        match c {
            b'B' | b'b' => Some(Color::Black),
            b'W' | b'w' => Some(Color::White),
            _ => None,
        }
    }

    /// The word, for messages ("black").
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

/// A point of the 9x9 board: `row * 9 + col`, row 0 at the top, col 0 at the left, the order
/// of the 81-byte board of a position record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// The point at `row`, `col` (0-based from the top-left), if both are on the board.
    pub fn new(row: usize, col: usize) -> Option<Point> {
        (row < SIZE && col < SIZE).then(|| Point((row * SIZE + col) as u8))
    }

    /// The point with record index `index` (0..81), if on the board.
    pub fn from_index(index: usize) -> Option<Point> {
        (index < POINTS).then_some(Point(index as u8))
    }

    /// Index in the 81-byte board (row-major from the top-left).
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// 0-based row from the top.
    pub fn row(self) -> usize {
        self.index() / SIZE
    }

    /// 0-based column from the left.
    pub fn col(self) -> usize {
        self.index() % SIZE
    }

    /// Every point, in record order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }

    /// The up to four orthogonal neighbours.
    pub fn neighbours(self) -> impl Iterator<Item = Point> {
        let (r, c) = (self.row() as isize, self.col() as isize);
        [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
            .into_iter()
            .filter_map(|(r, c)| {
                (r >= 0 && c >= 0)
                    .then(|| Point::new(r as usize, c as usize))
                    .flatten()
            })
    }

    /// The two SGF letters of the point: column then row, `a` = first from the top-left.
    pub fn sgf(self) -> [u8; 2] {
        [b'a' + self.col() as u8, b'a' + self.row() as u8]
    }
}

impl fmt::Display for Point {
    /// The SGF coordinates (`dd`), the form messages use.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [c, r] = self.sgf();
        write!(f, "{}{}", c as char, r as char)
    }
}

/// One of the 8 symmetries of the square board (docs/formats/go9x9.md §3 numbering): 0 identity,
/// 1 rot90 clockwise `(r,c)→(c,8−r)`, 2 rot180, 3 rot270, 4 mirror left-right, 5 mirror
/// top-bottom, 6 transpose, 7 anti-transpose. The canonical hash does not depend on the
/// numbering; it only says which image gave the minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

impl Symmetry {
    /// All eight, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The number 0..8 of this symmetry.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The image of `p` under this symmetry.
    pub fn apply(self, p: Point) -> Point {
        Point(SYMMETRY_IMAGES[usize::from(self.0 & 7)][p.index()])
    }
}

/// The image of every point under each symmetry (hashing a position looks up 8 per stone).
const SYMMETRY_IMAGES: [[u8; POINTS]; 8] = {
    let mut table = [[0u8; POINTS]; 8];
    let m = SIZE - 1;
    let mut s = 0;
    while s < 8 {
        let mut p = 0;
        while p < POINTS {
            let (r, c) = (p / SIZE, p % SIZE);
            let (r2, c2) = match s {
                0 => (r, c),
                1 => (c, m - r),
                2 => (m - r, m - c),
                3 => (m - c, r),
                4 => (r, m - c),
                5 => (m - r, c),
                6 => (c, r),
                _ => (m - c, m - r),
            };
            table[s][p] = (r2 * SIZE + c2) as u8;
            p += 1;
        }
        s += 1;
    }
    table
};

/// What one point holds.
pub type Cell = Option<Color>;

/// A 9x9 board: what each point holds. Any layout is representable (setup can make groups
/// without liberties); [`Board::check_layout`] says whether it is a legal one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [Cell; POINTS],
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.to_ascii().chunks(SIZE) {
            writeln!(f, "{}", String::from_utf8_lossy(row))?;
        }
        Ok(())
    }
}

/// A byte of an ASCII board that is not `#`, `O` or `.`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadBoardByte {
    /// Index of the byte in the 81-byte board.
    pub index: usize,
    /// The byte found.
    pub byte: u8,
}

/// What happened when a stone was played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveOutcome {
    /// Enemy stones removed.
    pub captured: usize,
    /// The mover's own stones removed because their group had no liberties (suicide).
    pub suicided: usize,
}

impl Board {
    /// The board with no stones.
    pub const fn empty() -> Board {
        Board {
            cells: [None; POINTS],
        }
    }

    /// What `p` holds.
    pub fn get(&self, p: Point) -> Cell {
        self.cells[p.index()]
    }

    /// Put `cell` on `p` (setup: nothing is captured).
    pub fn set(&mut self, p: Point, cell: Cell) {
        self.cells[p.index()] = cell;
    }

    /// The board of an 81-byte record board: `#` black, `O` white, `.` empty, row-major from
    /// the top-left.
    pub fn from_ascii(bytes: &[u8; POINTS]) -> Result<Board, BadBoardByte> {
        let mut b = Board::empty();
        for (index, &byte) in bytes.iter().enumerate() {
            b.cells[index] = match byte {
                b'#' => Some(Color::Black),
                b'O' => Some(Color::White),
                b'.' => None,
                _ => return Err(BadBoardByte { index, byte }),
            };
        }
        Ok(b)
    }

    /// The 81 ASCII bytes of this board, as a position record holds them.
    pub fn to_ascii(&self) -> [u8; POINTS] {
        let mut out = [b'.'; POINTS];
        for (o, c) in out.iter_mut().zip(self.cells.iter()) {
            *o = match c {
                Some(Color::Black) => b'#',
                Some(Color::White) => b'O',
                None => b'.',
            };
        }
        out
    }

    /// Stones of `color` on the board.
    pub fn count(&self, color: Color) -> usize {
        self.cells.iter().filter(|c| **c == Some(color)).count()
    }

    /// All stones on the board.
    pub fn stones(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    /// The points holding `color`, in record order.
    pub fn points_of(&self, color: Color) -> impl Iterator<Item = Point> + '_ {
        Point::all().filter(move |p| self.get(*p) == Some(color))
    }

    /// The image of the board under `s`.
    pub fn transformed(&self, s: Symmetry) -> Board {
        let mut out = Board::empty();
        for p in Point::all() {
            out.set(s.apply(p), self.get(p));
        }
        out
    }

    /// The same board for all 8 symmetries: the smallest ASCII form of its 8 images. Two
    /// boards are the same position up to symmetry exactly when these are equal.
    pub fn canonical_form(&self) -> [u8; POINTS] {
        Symmetry::ALL
            .iter()
            .map(|s| self.transformed(*s).to_ascii())
            .min()
            .unwrap_or_else(|| self.to_ascii())
    }

    /// The group containing `p` (empty if `p` is empty) and whether it has a liberty.
    fn group(&self, p: Point) -> (Vec<Point>, bool) {
        let Some(color) = self.get(p) else {
            return (Vec::new(), true);
        };
        let mut seen = [false; POINTS];
        let mut stack = vec![p];
        let mut group = Vec::new();
        let mut liberty = false;
        seen[p.index()] = true;
        while let Some(q) = stack.pop() {
            group.push(q);
            for n in q.neighbours() {
                match self.get(n) {
                    None => liberty = true,
                    Some(c) if c == color && !seen[n.index()] => {
                        seen[n.index()] = true;
                        stack.push(n);
                    }
                    _ => {}
                }
            }
        }
        (group, liberty)
    }

    fn remove_if_dead(&mut self, p: Point) -> usize {
        let (group, liberty) = self.group(p);
        if liberty {
            return 0;
        }
        for q in &group {
            self.set(*q, None);
        }
        group.len()
    }

    /// Play `color` at `p` as SGF FF\[4\] executes a move: the stone is placed whatever is
    /// there, adjacent enemy groups left without liberties are removed, then the mover's own
    /// group if it has none (suicide is representable, as the SGF rules require).
    pub fn play(&mut self, p: Point, color: Color) -> MoveOutcome {
        self.set(p, Some(color));
        let mut out = MoveOutcome::default();
        for n in p.neighbours() {
            if self.get(n) == Some(color.opponent()) {
                out.captured += self.remove_if_dead(n);
            }
        }
        out.suicided = self.remove_if_dead(p);
        out
    }

    /// `Ok` when every group has at least one liberty (a layout that play can reach);
    /// otherwise the first group without liberties, by its colour, first point and size.
    pub fn check_layout(&self) -> Result<(), DeadGroup> {
        let mut seen = [false; POINTS];
        for p in Point::all() {
            if seen[p.index()] {
                continue;
            }
            let Some(color) = self.get(p) else { continue };
            let (group, liberty) = self.group(p);
            for q in &group {
                seen[q.index()] = true;
            }
            if !liberty {
                return Err(DeadGroup {
                    color,
                    at: p,
                    stones: group.len(),
                });
            }
        }
        Ok(())
    }
}

/// A group without liberties: the reason a board is not a legal stone layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadGroup {
    /// Colour of the group.
    pub color: Color,
    /// Its first point in record order.
    pub at: Point,
    /// Number of stones in it.
    pub stones: usize,
}

impl fmt::Display for DeadGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} group of {} stone{} at {} has no liberties",
            self.color.name(),
            self.stones,
            if self.stones == 1 { "" } else { "s" },
            self.at
        )
    }
}

/// The Zobrist codes of `zobrist_board_81.dat`: one black, white and ko code per point.
/// The canonical hash of a board is the minimum, as unsigned 64-bit numbers, of the XOR of
/// its stones' codes over the 8 symmetries (verified against the published examples).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZobristTable {
    /// Code of a black stone per point (record order).
    pub black: [u64; POINTS],
    /// Code of a white stone per point.
    pub white: [u64; POINTS],
    /// Ko code per point (unused: records carry no ko point).
    pub ko: [u64; POINTS],
}

impl ZobristTable {
    /// The plain (not canonical) hash of `board`: XOR of the codes of its stones.
    pub fn hash(&self, board: &Board) -> u64 {
        Point::all().fold(0, |h, p| match board.get(p) {
            Some(Color::Black) => h ^ self.black[p.index()],
            Some(Color::White) => h ^ self.white[p.index()],
            None => h,
        })
    }

    /// The codes laid out for hashing many boards ([`SymmetricCodes`]).
    pub fn symmetric_codes(&self) -> SymmetricCodes {
        let mut codes = Box::new([[[0u64; 8]; 3]; POINTS]);
        for (p, per_cell) in codes.iter_mut().enumerate() {
            for s in Symmetry::ALL {
                let q = usize::from(SYMMETRY_IMAGES[usize::from(s.0)][p]);
                per_cell[1][usize::from(s.0)] = self.black[q];
                per_cell[2][usize::from(s.0)] = self.white[q];
            }
        }
        SymmetricCodes { codes }
    }

    /// The canonical hash of `board` and the symmetry whose image gave it (the smallest of
    /// the 8 images' hashes as unsigned 64-bit; an empty board is 0).
    pub fn canonical(&self, board: &Board) -> (u64, Symmetry) {
        // The hash of an image is the XOR of the codes of the points the stones map to: only
        // the stones are visited (every position in a database is hashed when it is opened).
        let mut stones = [(Point(0), Color::Black); POINTS];
        let mut count = 0;
        for p in Point::all() {
            if let Some(c) = board.get(p) {
                stones[count] = (p, c);
                count += 1;
            }
        }
        let mut best = (u64::MAX, Symmetry(0));
        for s in Symmetry::ALL {
            let images = &SYMMETRY_IMAGES[usize::from(s.0)];
            let h = stones[..count].iter().fold(0, |h, &(p, c)| {
                let q = usize::from(images[p.index()]);
                h ^ match c {
                    Color::Black => self.black[q],
                    Color::White => self.white[q],
                }
            });
            if h < best.0 {
                best = (h, s);
            }
        }
        best
    }
}

/// The Zobrist codes laid out to hash many boards: for each point and what it holds (empty,
/// black, white), the code of its image under each of the 8 symmetries (0 for empty). A
/// board's 8 image hashes are then 8 running XORs over its 81 points, without branches, which
/// the compiler does several at a time: opening a database hashes every position in it.
/// [`ZobristTable::canonical`] is the reference it must agree with.
pub struct SymmetricCodes {
    codes: Box<[[[u64; 8]; 3]; POINTS]>,
}

impl SymmetricCodes {
    /// The canonical hash of `board` (as [`ZobristTable::canonical`] gives it).
    pub fn canonical_hash(&self, board: &Board) -> u64 {
        let mut images = [0u64; 8];
        for (codes, cell) in self.codes.iter().zip(board.cells.iter()) {
            let codes = &codes[match cell {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            }];
            for (h, c) in images.iter_mut().zip(codes) {
                *h ^= c;
            }
        }
        images.into_iter().min().unwrap_or(0)
    }
}

/// The identity of a position in the database (the 10-byte PositionID): canonical hash,
/// tiebreak (0 unless two different boards share a hash) and the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionId {
    /// Canonical Zobrist hash.
    pub hash: u64,
    /// Tiebreak between different boards with one hash.
    pub tiebreak: u8,
    /// Player to move.
    pub to_play: Color,
}

impl PositionId {
    /// The file name of the position: `<16 hex digits>-<tiebreak>-<B|W>.sgf`, e.g.
    /// `31846ceb8015dc92-0-W.sgf`. Stable: it is the whole PositionID and nothing else.
    pub fn file_name(&self) -> String {
        let stem = self.stem();
        let mut name = String::with_capacity(stem.len() + 4);
        name.push_str(&stem);
        name.push_str(".sgf");
        name
    }

    /// `31846ceb8015dc92-0-W`, written without the formatting machinery: a listing makes one
    /// name per position, a hundred thousand at a time.
    fn stem(&self) -> Stem {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut bytes = [0u8; STEM_MAX];
        for (i, b) in bytes[..16].iter_mut().enumerate() {
            *b = HEX[((self.hash >> (60 - 4 * i)) & 0xf) as usize];
        }
        bytes[16] = b'-';
        let mut len = 17;
        let t = self.tiebreak;
        for (digit, shown) in [
            (t / 100, t >= 100),
            ((t / 10) % 10, t >= 10),
            (t % 10, true),
        ] {
            if shown {
                bytes[len] = b'0' + digit;
                len += 1;
            }
        }
        bytes[len] = b'-';
        bytes[len + 1] = self.to_play.letter() as u8;
        Stem {
            bytes,
            len: len + 2,
        }
    }

    /// The id named by a file name of [`PositionId::file_name`]'s form (with or without
    /// `.sgf`); `None` for any other name.
    pub fn from_file_name(name: &str) -> Option<PositionId> {
        let stem = name.strip_suffix(".sgf").unwrap_or(name);
        stem.parse().ok()
    }
}

impl fmt::Display for PositionId {
    /// `31846ceb8015dc92-0-W`: the file name without `.sgf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.stem())
    }
}

/// The longest [`PositionId`] stem: 16 hex digits, `-`, a tiebreak of up to 3 digits, `-`,
/// `B` or `W`.
const STEM_MAX: usize = 22;

/// A [`PositionId`] written out, on the stack.
struct Stem {
    bytes: [u8; STEM_MAX],
    len: usize,
}

impl Deref for Stem {
    type Target = str;

    fn deref(&self) -> &str {
        // Hex digits, decimal digits, '-' and a letter: ASCII throughout.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl std::str::FromStr for PositionId {
    type Err = String;

    /// Parse `31846ceb8015dc92-0-W` (16 hex digits, tiebreak 0..=255, B or W).
    fn from_str(s: &str) -> Result<PositionId, String> {
        let bad = || format!("{s:?} is not a position id (16 hex digits-tiebreak-B|W)");
        let mut parts = s.split('-');
        let (Some(h), Some(t), Some(p), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        if h.len() != 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        if t.is_empty()
            || !t.bytes().all(|b| b.is_ascii_digit())
            || (t.len() > 1 && t.starts_with('0'))
        {
            return Err(bad());
        }
        let hash = u64::from_str_radix(h, 16).map_err(|_| bad())?;
        let tiebreak = t.parse::<u8>().map_err(|_| bad())?;
        let to_play = match p {
            "B" => Color::Black,
            "W" => Color::White,
            _ => return Err(bad()),
        };
        Ok(PositionId {
            hash,
            tiebreak,
            to_play,
        })
    }
}

/// One program's verdict on a position, from its `<program>_<ruleset>.dat` file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Score {
    /// The program and ruleset: the scored file's name without `.dat` (`fuego_chinese`).
    pub program: Arc<str>,
    /// On-board score: 3 means 3 or less, 8 means 8 or more.
    pub score: u8,
    /// 0 (likely wrong) to 100 (very confident).
    pub confidence: u8,
}

impl Score {
    /// True when `name` can name a program/ruleset: not empty and without control
    /// characters. A line break would split the score's line in the SGF comment, so the text
    /// would not read back (found by fuzzing); scored files are never named so.
    pub fn is_program_name(name: &str) -> bool {
        !name.is_empty() && !name.chars().any(char::is_control)
    }
}

/// The optional PositionExtraInfo block of a 100-byte record (never used in released data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtraInfo {
    /// Id of the source (SGF) file, 1+.
    pub source_file: u32,
    /// Variation within that game.
    pub variation: u16,
    /// Move number within that variation.
    pub move_number: u16,
}

/// A position as the text layer sees it: the board, who moves, and what the database knows
/// about it (its id, the scores and the extra info). Parsed text fills `id` and `scores` from
/// what the text states, for the store to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoPosition {
    /// The stones.
    pub board: Board,
    /// Player to move.
    pub to_play: Color,
    /// The PositionID (stored), or the one the text names.
    pub id: Option<PositionId>,
    /// Scores, sorted by program.
    pub scores: Vec<Score>,
    /// Extra info of a 100-byte record.
    pub extra: Option<ExtraInfo>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        let s: Vec<u8> = rows.concat().into_bytes();
        Board::from_ascii(&s.try_into().unwrap()).unwrap()
    }

    #[test]
    fn ascii_round_trip_and_bad_byte() {
        let mut a = [b'.'; POINTS];
        a[0] = b'#';
        a[80] = b'O';
        let b = Board::from_ascii(&a).unwrap();
        assert_eq!(b.to_ascii(), a);
        assert_eq!(b.stones(), 2);
        a[5] = b'x';
        assert_eq!(
            Board::from_ascii(&a),
            Err(BadBoardByte {
                index: 5,
                byte: b'x'
            })
        );
    }

    #[test]
    fn capture_in_the_corner_and_snapback() {
        let mut b = Board::empty();
        let p = |r, c| Point::new(r, c).unwrap();
        b.play(p(0, 0), Color::White);
        b.play(p(0, 1), Color::Black);
        let out = b.play(p(1, 0), Color::Black);
        assert_eq!(out.captured, 1);
        assert_eq!(b.get(p(0, 0)), None);
        let mut b = board(&[
            ".#O#.....",
            "#O.O#....",
            ".#O#.....",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ]);
        // Black in the middle takes the three white stones that have no other liberty.
        let out = b.play(p(1, 2), Color::Black);
        assert_eq!(out.captured, 3);
        assert_eq!(b.count(Color::White), 1);
        // Playing on an occupied point replaces the stone (SGF executes any move).
        let out = b.play(p(1, 2), Color::White);
        assert_eq!(b.get(p(1, 2)), Some(Color::White));
        assert_eq!(out.captured, 0);
    }

    #[test]
    fn suicide_removes_own_group_after_captures() {
        let p = |r, c| Point::new(r, c).unwrap();
        // A black stone in a white eye where the white group still has liberties: suicide.
        let mut b = board(&[
            ".O.......",
            "O........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ]);
        let out = b.play(p(0, 0), Color::Black);
        assert_eq!(out.suicided, 1);
        assert_eq!(b.stones(), 2);
        // Capturing comes first: filling the last liberty of both captures instead.
        let mut b = board(&[
            ".O#......",
            "O#.......",
            "#........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ]);
        let out = b.play(p(0, 0), Color::Black);
        assert_eq!(out.captured, 2);
        assert_eq!(out.suicided, 0);
    }

    #[test]
    fn layout_check_finds_groups_without_liberties() {
        let b = board(&[
            "#O.......",
            "O........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ]);
        let e = b.check_layout().unwrap_err();
        assert_eq!(e.color, Color::Black);
        assert_eq!(
            e.to_string(),
            "the black group of 1 stone at aa has no liberties"
        );
        assert!(Board::empty().check_layout().is_ok());
    }

    #[test]
    fn symmetries_form_the_dihedral_group() {
        let p = Point::new(1, 2).unwrap();
        let images: std::collections::HashSet<Point> =
            Symmetry::ALL.iter().map(|s| s.apply(p)).collect();
        assert_eq!(images.len(), 8);
        assert_eq!(Symmetry(1).apply(p), Point::new(2, 7).unwrap());
        for s in Symmetry::ALL {
            for q in Point::all() {
                let mut x = q;
                // Every symmetry is a bijection of order 1, 2 or 4.
                for _ in 0..4 {
                    x = s.apply(x);
                }
                assert_eq!(x, q);
            }
        }
        let b = board(&[
            "#O.......",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".......O.",
        ]);
        for s in Symmetry::ALL {
            assert_eq!(b.transformed(s).canonical_form(), b.canonical_form());
        }
    }

    #[test]
    fn position_ids_name_files() {
        let id = PositionId {
            hash: 0x31846ceb8015dc92,
            tiebreak: 0,
            to_play: Color::White,
        };
        assert_eq!(id.file_name(), "31846ceb8015dc92-0-W.sgf");
        assert_eq!(
            PositionId::from_file_name("31846ceb8015dc92-0-W.sgf"),
            Some(id)
        );
        assert_eq!(PositionId::from_file_name("31846ceb8015dc92-0-W"), Some(id));
        for bad in [
            "31846ceb8015dc92-0-X.sgf",
            "31846ceb8015dc9-0-W.sgf",
            "31846ceb8015dc92-256-W.sgf",
            "31846ceb8015dc92-00-W.sgf",
            "31846ceb8015dc92-0-W-x.sgf",
            "+1846ceb8015dc92-0-W.sgf",
        ] {
            assert_eq!(PositionId::from_file_name(bad), None, "{bad}");
        }
    }

    /// Names are written digit by digit: the same as formatting them, for every tiebreak,
    /// both colours and hashes with leading zeros, and read back to the same id.
    #[test]
    fn position_names_match_their_format() {
        let mut rng = crate::testing::Rng(0x5EED_0060);
        for tiebreak in 0..=255u8 {
            for to_play in [Color::Black, Color::White] {
                let hash = rng.next_u64() >> (tiebreak % 64);
                let id = PositionId {
                    hash,
                    tiebreak,
                    to_play,
                };
                let want = format!("{hash:016x}-{tiebreak}-{}", to_play.letter());
                assert_eq!(id.to_string(), want);
                assert_eq!(id.file_name(), format!("{want}.sgf"));
                assert_eq!(PositionId::from_file_name(&id.file_name()), Some(id));
            }
        }
    }
}
