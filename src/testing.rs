//! Helpers for the tests (unit tests, tests/ and mount-tests/): the one deterministic random
//! generator, so randomized tests give the same cases on every run, and a small real database.
//! Compiled into the library (it is a few lines) so the integration tests share it instead of
//! each keeping its own.

#[cfg(test)]
use std::path::{Path, PathBuf};

#[cfg(test)]
use crate::error::Error;
#[cfg(test)]
use crate::store::{self, Format};
#[cfg(test)]
use crate::text::pgn_parse;

/// A fresh SCID database `dir/db` holding the demo games (contrib/sample/demo.pgn); returns
/// its base path.
#[cfg(test)]
pub(crate) fn demo_db(dir: &Path) -> PathBuf {
    let base = dir.join("db");
    store::create(&base, Format::Scid).unwrap();
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/sample/demo.pgn"
    ))
    .unwrap();
    let db = store::open(&base, true).unwrap();
    db.append(&mut pgn_parse::games(&text).map(|g| g.map_err(Error::from)))
        .unwrap();
    base
}

/// The demo games (contrib/sample/demo.pgn) from game `from` (1-based) on, as PGN text.
#[cfg(test)]
pub(crate) fn demo_games_from(from: usize) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/sample/demo.pgn"
    ))
    .unwrap();
    let start = text
        .match_indices("[Event ")
        .nth(from - 1)
        .map_or(text.len(), |(at, _)| at);
    text[start..].to_owned()
}

/// A fresh folder holding two databases to mount as one: a SCID database of the 30 demo
/// games ([`demo_db`], `db`) and a PGN file of the demo games 15 to 30 (`later.pgn`).
#[cfg(test)]
pub(crate) fn demo_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    demo_db(dir.path());
    std::fs::write(dir.path().join("later.pgn"), demo_games_from(15)).unwrap();
    dir
}

/// xorshift64*: deterministic, dependency-free pseudo-random numbers.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What random chess games [`random_game`] makes. Each test asks for the shapes its code must
/// survive (tricky text for the PGN reader, long comments for a record's length forms, rare
/// moves for every move code); [`GameShape::default`] is the PGN reader's.
#[derive(Clone, Copy)]
pub struct GameShape {
    /// Random header fields (names with quotes, backslashes and non-ASCII text; dates,
    /// ratings, ECO, EventDate, extra tags); otherwise a `W` - `B` draw.
    pub random_headers: bool,
    /// Percent of games that do not start from the standard position.
    pub fen_percent: usize,
    /// The other start positions (FEN); empty: a position reached by random moves.
    pub starts: &'static [&'static str],
    /// How many random moves reach a start position when `starts` is empty.
    pub start_plies: fn(&mut Rng) -> usize,
    /// How many plies a line at `depth` (0: the main line) gets.
    pub line_len: fn(&mut Rng, u32) -> usize,
    /// At most this many plies in all lines of a game together.
    pub max_plies: usize,
    /// Variations nest at most this deep.
    pub max_depth: u32,
    /// Percent of moves that get variations.
    pub variation_percent: usize,
    /// At most this many variations on one move.
    pub max_variations: usize,
    /// Whether the first move of a line may have variations.
    pub first_move_variations: bool,
    /// Whether a variation may be empty (`()`).
    pub empty_variations: bool,
    /// Percent of plies that are null moves (never when in check).
    pub null_percent: usize,
    /// Percent of moves chosen among promotions, castlings and en passant captures, when the
    /// position has any.
    pub rare_move_percent: usize,
    /// How many NAGs a move gets.
    pub nags: fn(&mut Rng) -> usize,
    /// The comment of a move (or none).
    pub comment: fn(&mut Rng) -> Option<String>,
    /// The comment before the first move of a line at `depth` (0: the main line), or none.
    pub line_comment: fn(&mut Rng, u32) -> Option<String>,
}

impl Default for GameShape {
    fn default() -> GameShape {
        GameShape {
            random_headers: true,
            fen_percent: 30,
            starts: &[],
            start_plies: |rng| rng.below(40),
            line_len: |rng, _| rng.below(14),
            max_plies: 300,
            max_depth: 4,
            variation_percent: 15,
            max_variations: 2,
            first_move_variations: true,
            empty_variations: true,
            null_percent: 5,
            rare_move_percent: 0,
            nags: |rng| {
                if rng.chance(10) {
                    rng.below(8)
                } else if rng.chance(20) {
                    1
                } else {
                    0
                }
            },
            comment: |rng| rng.chance(20).then(|| tricky_text(rng)),
            line_comment: |rng, _| rng.chance(15).then(|| tricky_text(rng)),
        }
    }
}

/// The games of the files `names` of `tests/data/` that parse (for tests that go over real
/// and generated games alike).
pub fn test_data_games(names: &[&str]) -> Vec<crate::game::ChessGame> {
    names
        .iter()
        .flat_map(|name| {
            let text = std::fs::read(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
                .unwrap_or_else(|e| panic!("tests/data/{name}: {e}"));
            crate::text::pgn_parse::games(&text)
                .filter_map(|g| g.ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Words that PGN readers trip over (braces, brackets, `%` escapes, results, move numbers,
/// control and non-ASCII characters), joined by spaces.
pub fn tricky_text(rng: &mut Rng) -> String {
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
    let n = 1 + rng.below(8);
    (0..n)
        .map(|_| *rng.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A random game of `shape`.
pub fn random_game(rng: &mut Rng, shape: &GameShape) -> crate::game::ChessGame {
    use shakmaty::Position;
    let headers = if shape.random_headers {
        random_headers(rng)
    } else {
        crate::game::Headers {
            white: "W".into(),
            black: "B".into(),
            round: "?".into(),
            result: crate::game::GameResult::Draw,
            ..Default::default()
        }
    };
    let (start, pos) = if !rng.chance(shape.fen_percent) {
        (
            crate::game::StartPosition::Standard,
            shakmaty::Chess::default(),
        )
    } else if shape.starts.is_empty() {
        let mut pos = shakmaty::Chess::default();
        for _ in 0..(shape.start_plies)(rng) {
            match random_move(rng, &pos, shape.rare_move_percent) {
                Some(m) => pos.play_unchecked(m),
                None => break,
            }
        }
        let fen = crate::game::replay::fen_of(&pos);
        (crate::game::StartPosition::Fen(fen), pos)
    } else {
        let fen = *rng.pick(shape.starts);
        let start = crate::game::StartPosition::Fen(fen.to_owned());
        let pos = crate::game::replay::start_position(&start).expect("a valid FEN");
        (start, pos)
    };
    let mut budget = shape.max_plies;
    let moves = random_line(rng, shape, &pos, 0, &mut budget);
    crate::game::ChessGame {
        headers,
        start,
        moves,
    }
}

/// A random line of `shape` from `pos`, at `depth` (0: the main line), taking plies from
/// `budget`.
pub fn random_line(
    rng: &mut Rng,
    shape: &GameShape,
    pos: &shakmaty::Chess,
    depth: u32,
    budget: &mut usize,
) -> crate::game::Line {
    use crate::game::{Line, MoveNode, Ply};
    use shakmaty::Position;
    let mut line = Line::default();
    line.comment = (shape.line_comment)(rng, depth);
    let mut pos = pos.clone();
    for _ in 0..(shape.line_len)(rng, depth) {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let mate_or_stalemate = pos.legal_moves().is_empty();
        let ply = if !pos.is_check() && (mate_or_stalemate || rng.chance(shape.null_percent)) {
            Ply::Null
        } else {
            match random_move(rng, &pos, shape.rare_move_percent) {
                Some(m) => Ply::Move(m),
                None => break,
            }
        };
        let mut node = MoveNode::new(ply);
        node.nags = (0..(shape.nags)(rng))
            .map(|_| 1 + rng.below(255) as u8)
            .collect();
        node.comment = (shape.comment)(rng);
        if depth < shape.max_depth
            && (shape.first_move_variations || !line.moves.is_empty())
            && rng.chance(shape.variation_percent)
        {
            for _ in 0..1 + rng.below(shape.max_variations) {
                let variation = random_line(rng, shape, &pos, depth + 1, budget);
                if shape.empty_variations || !variation.moves.is_empty() {
                    node.variations.push(variation);
                }
            }
        }
        pos = crate::game::replay::play(&pos, &node.ply).expect("a legal ply");
        line.moves.push(node);
    }
    line
}

/// A random legal move of `pos` (None when there is none), one of the rare kinds
/// (promotions, castlings, en passant captures) `rare_percent` times in a hundred when the
/// position has any, so that every move code shows up.
pub fn random_move(
    rng: &mut Rng,
    pos: &shakmaty::Chess,
    rare_percent: usize,
) -> Option<shakmaty::Move> {
    use shakmaty::Position;
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let rare: Vec<shakmaty::Move> = legal
        .iter()
        .copied()
        .filter(|m| m.is_promotion() || m.is_castle() || m.is_en_passant())
        .collect();
    if !rare.is_empty() && rng.chance(rare_percent) {
        return Some(*rng.pick(&rare));
    }
    Some(*rng.pick(&legal))
}

/// Random header fields: names of tricky characters, partial dates, ratings of every type,
/// ECO codes with SCID's extensions, an EventDate near the Date, extra tags.
fn random_headers(rng: &mut Rng) -> crate::game::Headers {
    use crate::game::{GameResult, Headers, PartialDate, Rating, RatingType};
    fn name(rng: &mut Rng) -> String {
        const CHARS: &[char] = &[
            'a', 'Z', ' ', ',', '"', '\\', 'é', '?', '-', '.', '光', '[', ']', '{', '}',
        ];
        (0..rng.below(20)).map(|_| *rng.pick(CHARS)).collect()
    }
    fn date(rng: &mut Rng) -> PartialDate {
        PartialDate {
            year: rng.chance(80).then(|| 1 + rng.below(2047) as u16),
            month: rng.chance(60).then(|| 1 + rng.below(12) as u8),
            day: rng.chance(50).then(|| 1 + rng.below(31) as u8),
        }
    }
    let mut h = Headers {
        event: name(rng),
        site: name(rng),
        date: date(rng),
        round: name(rng),
        white: name(rng),
        black: name(rng),
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
            ..date(rng)
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
        h.extra.push((rng.pick(EXTRA).to_string(), name(rng)));
    }
    h
}

/// Where the games of PGN text `text` start as [`Games`](crate::text::pgn_parse::Games) reads it as SCID's import
/// does (the first at 0), whole or (`skim`) skimming the moves, and which it refuses (0-based):
/// what a PGN file's index must agree with.
pub fn pgn_game_starts(text: &[u8], skim: bool) -> (Vec<u64>, Vec<u32>) {
    let (mut starts, mut refused) = (Vec::new(), Vec::new());
    let games = crate::text::pgn_parse::Games::new(text)
        .reading(crate::text::pgn_parse::Reading::AsScid)
        .skimming(skim);
    for (n, item) in games.enumerate() {
        let range = match item {
            Ok(read) => read.text,
            Err(e) => {
                refused.push(n as u32);
                e.text
            }
        };
        starts.push(if n == 0 { 0 } else { range.start as u64 });
    }
    (starts, refused)
}
