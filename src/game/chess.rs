//! A chess game: headers, start position and the move tree with comments, NAGs and variations.

use shakmaty::Move;

use super::date::PartialDate;

/// One chess game as a database holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChessGame {
    /// Tag-pair information (players, event, dates, ratings, extra tags).
    pub headers: Headers,
    /// Where the game starts: the standard position or a FEN setup.
    pub start: StartPosition,
    /// The main line, with its leading comment (the pre-game comment) and nested variations.
    pub moves: Line,
}

/// The game's result, as PGN's four terminators.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `*`: unknown or unfinished.
    #[default]
    Unknown,
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// The PGN token for this result.
    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::Unknown => "*",
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

/// The kinds of rating SCID distinguishes; PGN names the tag after it (`WhiteElo`, `WhiteUSCF`, …).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RatingType {
    /// FIDE Elo (`WhiteElo`).
    #[default]
    Elo,
    /// A generic rating (`WhiteRating`).
    Rating,
    /// A rapid rating (`WhiteRapid`).
    Rapid,
    /// Correspondence rating (`WhiteICCF`).
    Iccf,
    /// US Chess rating (`WhiteUSCF`).
    Uscf,
    /// German rating (`WhiteDWZ`).
    Dwz,
    /// English rating (`WhiteECF`).
    Ecf,
}

impl RatingType {
    /// Every rating type, in SCID's numbering order (0..=6).
    pub const ALL: [RatingType; 7] = [
        RatingType::Elo,
        RatingType::Rating,
        RatingType::Rapid,
        RatingType::Iccf,
        RatingType::Uscf,
        RatingType::Dwz,
        RatingType::Ecf,
    ];

    /// The tag-name suffix after `White`/`Black`.
    pub fn tag_suffix(self) -> &'static str {
        match self {
            RatingType::Elo => "Elo",
            RatingType::Rating => "Rating",
            RatingType::Rapid => "Rapid",
            RatingType::Iccf => "ICCF",
            RatingType::Uscf => "USCF",
            RatingType::Dwz => "DWZ",
            RatingType::Ecf => "ECF",
        }
    }
}

/// A player's rating and its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rating {
    /// The rating value (SCID keeps 1..=4000).
    pub value: u16,
    /// Which rating system it belongs to.
    pub kind: RatingType,
}

/// The tags [`Headers`] keeps in fields of its own, and FEN (the start position): a tag of
/// one of these names is never among the extra tags.
pub(crate) const FIELD_TAGS: [&str; 10] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "ECO",
    "EventDate",
    "FEN",
];

/// The header information of a game (PGN's tag pairs), split into the fields
/// databases index and the free-form extra tags they carry along.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Headers {
    /// Event name (may be empty).
    pub event: String,
    /// Site name (may be empty).
    pub site: String,
    /// Date the game was played.
    pub date: PartialDate,
    /// Round (free text, may be empty).
    pub round: String,
    /// White player.
    pub white: String,
    /// Black player.
    pub black: String,
    /// Result.
    pub result: GameResult,
    /// White's rating, if known.
    pub white_rating: Option<Rating>,
    /// Black's rating, if known.
    pub black_rating: Option<Rating>,
    /// ECO code such as `B20` or SCID's extended `B91a3`, if known.
    pub eco: Option<String>,
    /// Start date of the event, if known.
    pub event_date: Option<PartialDate>,
    /// Every other tag pair, in stored order.
    pub extra: Vec<(String, String)>,
}

impl Headers {
    /// The value of extra tag `name` (its first), if the game has it.
    pub fn extra_tag(&self, name: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The values of a Variant tag that name Chess960, as chess programs write it (compared
/// without regard to case).
pub(crate) const CHESS960_VARIANTS: [&str; 5] = [
    "chess960",
    "chess 960",
    "fischerandom",
    "fischer random",
    "fischerrandom",
];

/// Where the game starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StartPosition {
    /// The normal initial position.
    #[default]
    Standard,
    /// A set-up position, as a full six-field FEN string.
    Fen(String),
    /// A Chess960 game's start, as a full six-field FEN string: castling moves the king and a
    /// rook of the FEN's castling rights to the standard castled squares (`KQkq` are the
    /// outermost rooks, file letters name others).
    Chess960(String),
}

/// A line of play: the main line, or one variation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// A comment before the line's first move (the pre-game comment for the main line).
    pub comment: Option<String>,
    /// The moves of the line in order.
    pub moves: Vec<MoveNode>,
}

/// One half-move with everything attached to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveNode {
    /// The move played.
    pub ply: Ply,
    /// Numeric annotation glyphs (`$1` …), in order.
    pub nags: Vec<u8>,
    /// The comment after the move.
    pub comment: Option<String>,
    /// Alternatives to this move, each starting from the position before it.
    pub variations: Vec<Line>,
}

impl MoveNode {
    /// A bare move with no annotations.
    pub fn new(ply: Ply) -> MoveNode {
        MoveNode {
            ply,
            nags: Vec::new(),
            comment: None,
            variations: Vec::new(),
        }
    }
}

/// A half-move: a real move, or the null move (`--`) that annotators use to show a threat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ply {
    /// A legal chess move.
    Move(Move),
    /// A null move: the side to move passes.
    Null,
}

impl Drop for Line {
    /// Variations can nest thousands deep; dropping them one level at a time from a heap
    /// worklist keeps the stack flat where the derived recursive drop would overflow it.
    fn drop(&mut self) {
        let mut pending: Vec<Line> = Vec::new();
        for node in &mut self.moves {
            pending.append(&mut node.variations);
        }
        while let Some(mut line) = pending.pop() {
            for node in &mut line.moves {
                pending.append(&mut node.variations);
            }
        }
    }
}

/// A comment as the model holds it, whoever wrote it: line breaks and tabs become spaces and
/// spaces at the ends are dropped, while runs of spaces stay (as SCID imports comments; the
/// PGN renderer writes them back). Empty means no comment. The PGN parser and every store
/// that reads raw comment text use this one rule, so a stored game re-saves unchanged.
pub fn normalize_comment(text: &str) -> String {
    text.replace(['\n', '\r', '\t'], " ")
        .trim_matches(' ')
        .to_owned()
}

impl Line {
    /// The number of half-moves in this line (not counting variations).
    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}
