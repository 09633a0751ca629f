//! The index fields SCID computes from a game (docs/formats/scid4.md §3): everything in a .si4
//! entry except where the record is (offset, length), the name IDs and the user's flags.
//!
//! SCID never recomputes these when it reads a database, and its searches trust them (a wrong
//! material signature or home-pawn list makes position searches skip the game), so a writer must
//! compute exactly what SCID 4.7.4 computes (`Game::Encode`, `mainlineInfo`).
//!
//! Values the index cannot hold are refused rather than silently dropped: an Elo over 4000, a
//! year over 2047, an EventDate that the ±3-year window would lose, an ECO text SCID would read
//! as "no ECO".

pub use super::mainline::matsig;
use super::mainline::{MainLineInfo, MainLineTracker};
use super::record::{self, MainLineWatcher, start_position};
use super::stored_lines::stored_line_code;
use crate::error::{Error, ErrorKind, Result};
use crate::game::chess::CHESS960_VARIANTS;
use crate::game::chess::{ChessGame, GameResult, Line, Ply, Rating, RatingType, StartPosition};
use crate::game::date::PartialDate;
use crate::game::legal;
use crate::game::replay::play_in_place;

/// Index flag bit 0 (S): the game starts from a FEN.
pub const FLAG_START: u32 = 1;
/// Index flag bit 1 (X): the main line contains a promotion.
pub const FLAG_PROMOTION: u32 = 1 << 1;
/// Index flag bit 2 (Y): the main line contains an under-promotion.
pub const FLAG_UNDER_PROMOTION: u32 = 1 << 2;

/// The highest rating SCID stores (12 bits, capped at 4000).
pub const MAX_ELO: u16 = 4000;
/// The highest year a packed date holds (11 bits).
pub const MAX_YEAR: u16 = 2047;

/// Index fields SCID computes from a game (everything except offset, length, name IDs and user
/// flags), in the units of [`super::entry::IndexEntry`], ready to copy into one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Derived {
    /// Flags S, X and Y (bits 0-2); the record's flags byte carries the same three bits.
    pub flags_sxy: u32,
    /// Result code: 0 `*`, 1 `1-0`, 2 `0-1`, 3 draw.
    pub result: u8,
    /// Count code of the variations anywhere in the game (nested ones included).
    pub var_code: u8,
    /// Count code of the non-empty comments anywhere (pre-game and variation-start ones included).
    pub comment_code: u8,
    /// Count code of all NAGs anywhere.
    pub nag_code: u8,
    /// SCID's numeric ECO code (0 = none).
    pub eco: u16,
    /// Packed 20-bit date.
    pub date: u32,
    /// Packed 12-bit event date relative to the date's year (as SCID 4 writes it).
    pub event_date: u16,
    /// The packed 20-bit event date (0 = none), as SCID 5 stores it: any year.
    pub event_date_full: u32,
    /// White's rating (0 = none).
    pub white_elo: u16,
    /// White's rating type 0..=6.
    pub white_rating_type: u8,
    /// Black's rating (0 = none).
    pub black_elo: u16,
    /// Black's rating type 0..=6.
    pub black_rating_type: u8,
    /// Stored-line code (§3.8).
    pub stored_line: u8,
    /// Material signature of the final main-line position (24 bits).
    pub matsig: u32,
    /// Main-line plies modulo 1024.
    pub plies: u16,
    /// Number of home-pawn changes (0..=16); 0 for FEN games.
    pub home_pawn_count: u8,
    /// Home-pawn change list: 16 nibbles, high nibble first.
    pub home_pawns: [u8; 8],
}

/// Compute the index fields of `game` as SCID 4.7.4 does when it encodes the game. Fails
/// (`InvalidInput`, naming the field and the limit) for what the index cannot store: an Elo over
/// 4000, a year over 2047, a month over 12 or a day over 31, an EventDate outside ±3 years of
/// the Date (any EventDate with a real year when the Date's year is unknown), an ECO text that
/// is not a code, and a start position or move the record could not hold either.
pub fn derive(game: &ChessGame) -> Result<Derived> {
    standard_chess_only(game)?;
    let header = header_fields(game, EventDateRule::Refuse)?;
    Ok(with_main_line(header, &main_line_info(game)?))
}

/// The record of `game` ([`record::encode`]) and its index fields ([`derive()`]), from one
/// replay of the main line: what an import or a save needs. Fails as `encode`, then `derive`.
pub fn encode_and_derive(game: &ChessGame) -> Result<(Vec<u8>, Derived)> {
    standard_chess_only(game)?;
    encode_and_derive_with(game, EventDateRule::Refuse)
}

/// [`encode_and_derive`] as SCID's PGN import writes a game: an EventDate more than 3 years
/// from the Date is not refused but written as no event date (0), as SCID's index writer
/// does (which differs from a game without one when the Date's year is 0..3).
pub fn encode_and_derive_as_import(game: &ChessGame) -> Result<(Vec<u8>, Derived)> {
    standard_chess_only(game)?;
    encode_and_derive_with(game, EventDateRule::DropAsScid)
}

/// SCID 4 stores standard chess only: a Chess960 game (its start) or one whose Variant tag
/// says Chess960 is refused, as SCID 4's import skips them.
fn standard_chess_only(game: &ChessGame) -> Result<()> {
    let variant = game.headers.extra.iter().find(|(tag, value)| {
        tag == "Variant"
            && CHESS960_VARIANTS
                .iter()
                .any(|v| value.eq_ignore_ascii_case(v))
    });
    if let Some((_, value)) = variant {
        return Err(invalid(format!(
            "Variant \"{value}\": SCID 4 stores standard chess only"
        )));
    }
    if let StartPosition::Chess960(fen) = &game.start {
        return Err(invalid(format!(
            "the start {fen:?} has Chess960 castling rights: SCID 4 stores standard chess only"
        )));
    }
    Ok(())
}

/// [`encode_and_derive`] for a SCID 5 index, which keeps an EventDate of any year (in
/// [`Derived::event_date_full`]): no EventDate is refused for its distance from the Date;
/// Chess960 games, which SCID 5 stores; and an extra tag given twice, which SCID 5 keeps twice.
pub fn encode_and_derive_scid5(game: &ChessGame) -> Result<(Vec<u8>, Derived)> {
    encode_and_derive_with(game, EventDateRule::AnyYear)
}

/// What to do with an EventDate the index cannot keep beside the Date.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EventDateRule {
    /// Keep it whatever its year (SCID 5's index stores the whole date).
    AnyYear,
    /// Refuse the game (a save must not lose it silently).
    Refuse,
    /// Write no event date, as SCID's import does.
    DropAsScid,
}

fn encode_and_derive_with(game: &ChessGame, rule: EventDateRule) -> Result<(Vec<u8>, Derived)> {
    let standard = game.start == StartPosition::Standard;
    let mut tracker = MainLineTracker::new(standard, &game.moves);
    // An EventDate of any year is SCID 5's rule alone; so is keeping a tag given twice.
    let twice = match rule {
        EventDateRule::AnyYear => record::TagsTwice::Kept,
        EventDateRule::Refuse | EventDateRule::DropAsScid => record::TagsTwice::Refused,
    };
    let record = record::encode_watching(game, &mut tracker, twice)?;
    let header = header_fields(game, rule)?;
    Ok((record, with_main_line(header, &tracker.info())))
}

/// `d` (from [`header_fields`]) with the fields that come from playing the main line.
fn with_main_line(d: Derived, main: &MainLineInfo) -> Derived {
    Derived {
        flags_sxy: main.flags,
        matsig: main.matsig,
        home_pawn_count: main.home_pawn_count,
        home_pawns: main.home_pawns,
        ..d
    }
}

/// Every index field of `game` except those [`MainLineInfo`] holds (left 0).
fn header_fields(game: &ChessGame, rule: EventDateRule) -> Result<Derived> {
    let h = &game.headers;
    let date = checked_date(h.date, "Date")?;
    let event_date_full = match h.event_date {
        Some(e) => checked_date(e, "EventDate")?,
        None => 0,
    };
    let event_date = match h.event_date {
        Some(e) if rule != EventDateRule::Refuse => {
            pack_event_date(checked_date(e, "EventDate")?, date).unwrap_or(0)
        }
        Some(e) => pack_event_date(checked_date(e, "EventDate")?, date).ok_or_else(|| {
            invalid(format!(
                "EventDate {e} cannot be stored with Date {}: SCID keeps an event date only \
                 within 3 years of the game's year",
                h.date
            ))
        })?,
        // SCID packs "no event date" with the same formula: 0x800 when the Date's year is 0..3.
        None => pack_event_date(0, date).unwrap_or(0),
    };
    let eco = match h.eco.as_deref() {
        None | Some("" | "?") => 0,
        Some(text) => eco_code(text).ok_or_else(|| {
            invalid(format!(
                "ECO {text:?} is not an ECO code (A00..E99, optionally with SCID's a..z and 1..4)"
            ))
        })?,
    };
    let (white_elo, white_rating_type) = rating(h.white_rating, "White")?;
    let (black_elo, black_rating_type) = rating(h.black_rating, "Black")?;
    let counts = count_annotations(&game.moves);
    Ok(Derived {
        result: result_code(h.result),
        var_code: count_code(counts.variations),
        comment_code: count_code(counts.comments),
        nag_code: count_code(counts.nags),
        eco,
        date,
        event_date,
        event_date_full,
        white_elo,
        white_rating_type,
        black_elo,
        black_rating_type,
        stored_line: stored_line_code(&game.start, &game.moves),
        plies: (game.moves.moves.len() % 1024) as u16,
        ..Derived::default()
    })
}

/// An `InvalidInput` error.
fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// The index's result code.
pub fn result_code(result: GameResult) -> u8 {
    match result {
        GameResult::Unknown => 0,
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    }
}

/// SCID's number for a rating type (0..=6, spec §3.5).
pub fn rating_type_code(kind: RatingType) -> u8 {
    RatingType::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u8
}

/// Rating value and type code, refusing a value the 12-bit field cannot hold.
fn rating(r: Option<Rating>, colour: &str) -> Result<(u16, u8)> {
    let Some(r) = r else {
        return Ok((0, 0));
    };
    if r.value > MAX_ELO {
        return Err(invalid(format!(
            "{colour}{} {} is over SCID's limit of {MAX_ELO}",
            r.kind.tag_suffix(),
            r.value
        )));
    }
    Ok((r.value, rating_type_code(r.kind)))
}

/// The 4-bit count code of `n` variations, comments or NAGs (spec §3.2): n up to 10, then
/// 10 (11-12), 11 (13-17), 12 (18-24), 13 (25-34), 14 (35-44), 15 (45 or more).
pub fn count_code(n: usize) -> u8 {
    match n {
        0..=10 => n as u8,
        11..=12 => 10,
        13..=17 => 11,
        18..=24 => 12,
        25..=34 => 13,
        35..=44 => 14,
        _ => 15,
    }
}

/// Pack a date as SCID's 20 bits, `year << 9 | month << 5 | day`, unknown parts 0. Parts too
/// large for their bits are masked (use [`derive()`] to have them refused instead).
pub fn pack_date(d: PartialDate) -> u32 {
    let year = u32::from(d.year.unwrap_or(0)) & 0x7FF;
    let month = u32::from(d.month.unwrap_or(0)) & 0xF;
    let day = u32::from(d.day.unwrap_or(0)) & 0x1F;
    year << 9 | month << 5 | day
}

/// Pack `d`, refusing parts that SCID's date cannot hold; `what` names the tag.
fn checked_date(d: PartialDate, what: &str) -> Result<u32> {
    let too_big = d.year.is_some_and(|y| y > MAX_YEAR)
        || d.month.is_some_and(|m| m > 12)
        || d.day.is_some_and(|x| x > 31);
    if too_big {
        return Err(invalid(format!(
            "{what} {d} cannot be stored: SCID keeps years 0..={MAX_YEAR}, months 1..=12, days 1..=31"
        )));
    }
    Ok(pack_date(d))
}

/// The 12-bit event date SCID writes next to `date` (both packed), or `None` when SCID would
/// drop it (its year is more than 3 years from the date's year).
fn pack_event_date(event: u32, date: u32) -> Option<u16> {
    let eyear = event >> 9;
    let dyear = date >> 9;
    if eyear + 3 < dyear || eyear > dyear + 3 {
        return None;
    }
    let yoff = (eyear + 4 - dyear) & 7;
    Some((yoff << 9 | (event & 0x1FF)) as u16)
}

/// SCID's numeric ECO code of `text` (spec §3.4), the inverse of [`crate::store::eco_text`]:
/// `1 + (letter*100 + number)*131 + ext`. Accepts what SCID accepts: a first letter A-E (also
/// lower case), then up to two digits (a partial "C1" is C10, a bare "C" is C00), then an
/// optional extension `a`..`z` with an optional digit 1-4. Anything else, including trailing
/// text SCID would ignore, gives `None`.
pub fn eco_code(text: &str) -> Option<u16> {
    let b = text.as_bytes();
    let letter = match b.first()? {
        c @ b'A'..=b'E' => c - b'A',
        c @ b'a'..=b'e' => c - b'a',
        _ => return None,
    };
    let mut code = u32::from(letter) * 13100;
    let mut rest = &b[1..];
    for weight in [1310, 131] {
        match rest.first() {
            None => return Some(code as u16 + 1),
            Some(d @ b'0'..=b'9') => code += u32::from(d - b'0') * weight,
            Some(_) => return None,
        }
        rest = &rest[1..];
    }
    match rest {
        [] => {}
        [s @ b'a'..=b'z'] => code += 1 + u32::from(s - b'a') * 5,
        [s @ b'a'..=b'z', d @ b'1'..=b'4'] => {
            code += 1 + u32::from(s - b'a') * 5 + u32::from(d - b'0')
        }
        _ => return None,
    }
    Some((code + 1) as u16)
}

/// Totals over the whole move tree, as SCID counts them for the index.
#[derive(Default)]
struct Counts {
    /// Variations, nested ones included.
    variations: usize,
    /// Non-empty comments, including pre-game and variation-start comments.
    comments: usize,
    /// NAGs.
    nags: usize,
}

/// Count variations, comments and NAGs without recursion (variations may nest deeply).
fn count_annotations(main: &Line) -> Counts {
    let mut c = Counts::default();
    let mut pending = vec![main];
    while let Some(line) = pending.pop() {
        c.comments += usize::from(has_comment(&line.comment));
        for node in &line.moves {
            c.nags += node.nags.len();
            c.comments += usize::from(has_comment(&node.comment));
            c.variations += node.variations.len();
            pending.extend(node.variations.iter());
        }
    }
    c
}

/// True for a comment SCID stores (an empty one is no comment).
fn has_comment(c: &Option<String>) -> bool {
    c.as_deref().is_some_and(|s| !s.is_empty())
}

/// Play the main line from the start (checking every move), collecting what SCID derives
/// from it (`mainlineInfo`).
fn main_line_info(game: &ChessGame) -> Result<MainLineInfo> {
    let standard = game.start == StartPosition::Standard;
    let mut pos = start_position(&game.start)?;
    let mut tracker = MainLineTracker::new(standard, &game.moves);
    for (i, node) in game.moves.moves.iter().enumerate() {
        if let Ply::Move(m) = &node.ply
            && !legal::is_legal(&pos, *m)
        {
            return Err(invalid(format!(
                "main line ply {}: illegal move {m}",
                i + 1
            )));
        }
        play_in_place(&mut pos, &node.ply)
            .map_err(|e| e.context(format_args!("main line ply {}", i + 1)))?;
        tracker.after_ply(&pos);
    }
    tracker.at_end(&pos);
    Ok(tracker.info())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::chess::{MoveNode, StartPosition};
    use crate::game::replay::play;
    use crate::store::eco_text;
    use shakmaty::Chess;
    use shakmaty::san::San;

    fn date(y: Option<u16>, m: Option<u8>, d: Option<u8>) -> PartialDate {
        PartialDate {
            year: y,
            month: m,
            day: d,
        }
    }

    fn game_of(start: StartPosition, sans: &str) -> ChessGame {
        let mut pos = start_position(&start).unwrap();
        let mut g = ChessGame {
            start,
            ..ChessGame::default()
        };
        for tok in sans.split_whitespace() {
            let tok = tok.rsplit('.').next().unwrap();
            let ply = if tok == "--" {
                Ply::Null
            } else {
                Ply::Move(tok.parse::<San>().unwrap().to_move(&pos).unwrap())
            };
            pos = play(&pos, &ply).unwrap();
            g.moves.moves.push(MoveNode::new(ply));
        }
        g
    }

    #[test]
    fn start_position_matsig() {
        assert_eq!(matsig(&Chess::default()), 0x6A86A8);
        let d = derive(&ChessGame::default()).unwrap();
        assert_eq!(
            (d.matsig, d.plies, d.home_pawn_count, d.stored_line),
            (0x6A86A8, 0, 0, 0)
        );
    }

    #[test]
    fn worked_example_fields() {
        let mut g = game_of(
            StartPosition::Standard,
            "1.e4 c5 2.c4 Nc6 3.Ne2 Nf6 4.Nbc3 Nb4 5.g3 Nd3#",
        );
        g.headers.result = GameResult::BlackWins;
        g.headers.eco = Some("B20".into());
        g.headers.date = date(Some(1979), None, None);
        let d = derive(&g).unwrap();
        assert_eq!(d.home_pawn_count, 4);
        assert_eq!(d.home_pawns, [0xb5, 0xd9, 0, 0, 0, 0, 0, 0]);
        assert_eq!((d.stored_line, d.matsig, d.plies), (107, 0x6A86A8, 10));
        assert_eq!(
            (d.result, d.eco, d.date, d.event_date),
            (2, 15721, 0x0F7600, 0)
        );
        assert_eq!(d.flags_sxy, 0);
    }

    #[test]
    fn count_codes_at_every_boundary() {
        let expect = [
            (0, 0),
            (1, 1),
            (10, 10),
            (11, 10),
            (12, 10),
            (13, 11),
            (17, 11),
            (18, 12),
            (24, 12),
            (25, 13),
            (34, 13),
            (35, 14),
            (44, 14),
            (45, 15),
            (1000, 15),
        ];
        for (n, code) in expect {
            assert_eq!(count_code(n), code, "{n}");
        }
    }

    #[test]
    fn counts_cover_the_whole_tree() {
        let mut g = game_of(StartPosition::Standard, "1.e4 e5");
        g.moves.comment = Some("pre".into());
        let var = game_of(StartPosition::Standard, "1.d4");
        let mut var = var.moves.clone();
        var.comment = Some("start".into());
        var.moves[0].nags = vec![1, 2];
        var.moves[0].comment = Some(String::new()); // empty: not counted
        let mut inner = game_of(StartPosition::Standard, "1.c4").moves.clone();
        inner.moves[0].comment = Some("x".into());
        var.moves[0].variations.push(inner);
        g.moves.moves[0].variations.push(var);
        g.moves.moves[1].nags = vec![3];
        let d = derive(&g).unwrap();
        assert_eq!((d.var_code, d.comment_code, d.nag_code), (2, 3, 3));
    }

    #[test]
    fn dates_and_the_event_date_window() {
        let d = date(Some(2020), Some(5), Some(17));
        assert_eq!(pack_date(d), 2020 << 9 | 5 << 5 | 17);
        assert_eq!(pack_date(PartialDate::default()), 0);
        let mut g = ChessGame::default();
        g.headers.date = d;
        for (ey, ok) in [
            (2016u16, false),
            (2017, true),
            (2020, true),
            (2023, true),
            (2024, false),
        ] {
            g.headers.event_date = Some(date(Some(ey), Some(12), None));
            match derive(&g) {
                Ok(x) => {
                    assert!(ok, "{ey}");
                    let yoff = ey + 4 - 2020;
                    assert_eq!(x.event_date, yoff << 9 | 12 << 5);
                    // And back, through the decoder's reading.
                    let e = super::super::entry::IndexEntry {
                        date: x.date,
                        event_date: x.event_date,
                        ..Default::default()
                    };
                    assert_eq!(e.game_event_date(), g.headers.event_date);
                }
                Err(e) => {
                    assert!(!ok, "{ey}");
                    assert!(e.message().contains("EventDate"), "{e}");
                }
            }
        }
        // No event date: 0, except when the Date's year is 0..=3 (SCID's formula gives 0x800).
        g.headers.event_date = None;
        assert_eq!(derive(&g).unwrap().event_date, 0);
        g.headers.date = PartialDate::default();
        assert_eq!(derive(&g).unwrap().event_date, 0x800);
        // Date year unknown: a real event year is refused.
        g.headers.event_date = Some(date(Some(2020), None, None));
        assert!(derive(&g).is_err());
        // Limits.
        g.headers.event_date = None;
        g.headers.date = date(Some(2047), Some(12), Some(31));
        assert!(derive(&g).is_ok());
        for bad in [
            date(Some(2048), None, None),
            date(None, Some(13), None),
            date(None, None, Some(32)),
        ] {
            g.headers.date = bad;
            let e = derive(&g).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput);
            assert!(e.message().starts_with("Date"), "{e}");
        }
    }

    #[test]
    fn eco_examples_and_round_trip() {
        for (text, code) in [
            ("A00", 1),
            ("B20", 15721),
            ("E90", 64191),
            ("B91a3", 25026),
            ("E99z4", 65500),
            ("b20", 15721),
            ("C1", eco_code("C10").unwrap()),
            ("C", eco_code("C00").unwrap()),
        ] {
            assert_eq!(eco_code(text), Some(code), "{text}");
        }
        for bad in [
            "", "?", "F00", "B2x", "B20 ", "B20A", "B20a5", "B20a12", " B20",
        ] {
            assert_eq!(eco_code(bad), None, "{bad:?}");
        }
        for code in 1..=65500u16 {
            let text = eco_text(code).unwrap();
            assert_eq!(eco_code(&text), Some(code), "{text}");
        }
        let mut g = ChessGame::default();
        g.headers.eco = Some("?".into());
        assert_eq!(derive(&g).unwrap().eco, 0);
        g.headers.eco = Some("Z99".into());
        assert!(derive(&g).unwrap_err().message().contains("ECO"));
    }

    #[test]
    fn ratings() {
        let mut g = ChessGame::default();
        g.headers.white_rating = Some(Rating {
            value: 1800,
            kind: RatingType::Uscf,
        });
        g.headers.black_rating = Some(Rating {
            value: 4000,
            kind: RatingType::Ecf,
        });
        let d = derive(&g).unwrap();
        assert_eq!(
            (
                d.white_elo,
                d.white_rating_type,
                d.black_elo,
                d.black_rating_type
            ),
            (1800, 4, 4000, 6)
        );
        g.headers.black_rating = Some(Rating {
            value: 4001,
            kind: RatingType::Elo,
        });
        let e = derive(&g).unwrap_err();
        assert!(e.message().contains("BlackElo 4001"), "{e}");
    }

    #[test]
    fn promotions_and_fen_games() {
        let fen = "8/1P2k3/8/8/8/8/6p1/4K3 w - - 0 1";
        let g = game_of(StartPosition::Fen(fen.into()), "1.b8=N g1=Q+");
        let d = derive(&g).unwrap();
        assert_eq!(
            d.flags_sxy,
            FLAG_START | FLAG_PROMOTION | FLAG_UNDER_PROMOTION
        );
        assert_eq!(
            (d.home_pawn_count, d.home_pawns, d.stored_line),
            (0, [0; 8], 0)
        );
        // White: one knight; Black: one queen.
        assert_eq!(d.matsig, 1 << 16 | 1 << 10);
        // A queen promotion in a variation does not count.
        let mut g = game_of(StartPosition::Fen(fen.into()), "1.Kd2");
        g.moves.moves[0].variations.push(
            game_of(StartPosition::Fen(fen.into()), "1.b8=Q")
                .moves
                .clone(),
        );
        assert_eq!(derive(&g).unwrap().flags_sxy, FLAG_START);
    }

    #[test]
    fn home_pawns_and_null_moves() {
        // A pawn captured on its home square counts too; null moves change nothing.
        let g = game_of(StartPosition::Standard, "1.e4 -- 2.Bc4 -- 3.Bxf7+");
        let d = derive(&g).unwrap();
        // e2 = bit 11, f7 = bit 2.
        assert_eq!(d.home_pawn_count, 2);
        assert_eq!(d.home_pawns, [0xB2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(d.plies, 5);
        // A null move in check cannot be stored.
        let mut g = game_of(StartPosition::Standard, "1.e4 e5 2.Qh5 Nc6 3.Qxf7+");
        g.moves.moves.push(MoveNode::new(Ply::Null));
        assert_eq!(derive(&g).unwrap_err().kind(), ErrorKind::InvalidInput);
    }

    use crate::testing::{GameShape, Rng, random_game};

    /// Games with null moves (never in check), up to 7 NAGs a move, short comments and short
    /// variations two deep, half of them from a position reached by random play.
    fn derive_shape() -> GameShape {
        GameShape {
            random_headers: false,
            fen_percent: 50,
            starts: &[],
            start_plies: |rng| rng.below(80),
            line_len: |rng, depth| {
                if depth == 0 {
                    rng.below(300)
                } else {
                    rng.below(6)
                }
            },
            max_plies: usize::MAX,
            max_depth: 2,
            variation_percent: 10,
            max_variations: 1,
            first_move_variations: true,
            empty_variations: true,
            null_percent: 3,
            rare_move_percent: 0,
            nags: |rng| {
                if rng.below(8) == 0 {
                    1 + rng.below(7)
                } else {
                    0
                }
            },
            comment: |rng| (rng.below(8) == 0).then(|| "c".repeat(rng.below(3))),
            line_comment: |_, _| None,
        }
    }

    #[test]
    fn random_games_never_panic() {
        let mut rng = Rng(0x00DD_BA11_5EED_0042);
        let mut fens = 0;
        for _ in 0..300 {
            let mut g = random_game(&mut rng, &derive_shape());
            if matches!(g.start, StartPosition::Fen(_)) {
                fens += 1;
            }
            g.headers.date = date(
                Some(rng.below(2100) as u16),
                Some(rng.below(14) as u8),
                None,
            );
            let d = derive(&g);
            let r = super::super::record::encode(&g);
            assert_same_as_apart(&g);
            assert_eq!(
                d.is_ok(),
                g.headers.date.year.unwrap_or(0) <= MAX_YEAR
                    && g.headers.date.month.unwrap_or(0) <= 12
            );
            let bytes = r.unwrap();
            // What is encoded decodes to the same moves.
            let back = super::super::record::decode(&bytes).unwrap();
            assert_eq!(back.moves.moves.len(), g.moves.moves.len());
            // Damaged games are refused, never a panic: a move played in the wrong position,
            // a NAG list too long, a null move moved to a check.
            let mut bad = g.clone();
            let k = bad.moves.moves.len();
            if k >= 2 {
                let i = rng.below(k - 1);
                bad.moves.moves.swap(i, i + 1);
                assert_same_as_apart(&bad);
                bad.moves.moves[rng.below(k)].ply = Ply::Null;
                assert_same_as_apart(&bad);
            }
            if k > 0 {
                bad.moves.moves[rng.below(k)].nags = vec![0; 1 + rng.below(9)];
                assert_same_as_apart(&bad);
            }
        }
        assert!(fens >= 100, "{fens} of 300 games from a FEN");
        // Random FEN-like text.
        let pieces = b"pnbrqkPNBRQK12345678/ -wbKQkqA3e6";
        for _ in 0..5000 {
            let len = rng.below(70);
            let fen: String = (0..len)
                .map(|_| char::from(pieces[rng.below(pieces.len())]))
                .collect();
            let g = ChessGame {
                start: StartPosition::Fen(fen),
                ..ChessGame::default()
            };
            assert_same_as_apart(&g);
        }
    }

    /// [`encode_and_derive`] gives what [`record::encode`] and [`derive`] give apart (the
    /// record, the index fields, or the first one's error).
    fn assert_same_as_apart(g: &ChessGame) {
        let together = encode_and_derive(g);
        let apart = record::encode(g).and_then(|r| Ok((r, derive(g)?)));
        match (together, apart) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("together {a:?}, apart {b:?}"),
        }
    }
}
