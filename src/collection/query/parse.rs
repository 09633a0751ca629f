//! The text of a header query (`query/EXPR/`, docs/guide/searching.md) read into a [`Query`].
//!
//! `EXPR` is conditions joined by `,`, all of which a game must meet; a condition is a field,
//! an operator (`=`, `==` for a name spelled exactly, `!=` and `!==` for their negations) and
//! values joined by `+`, any one of which it may meet. Values are percent-decoded (`%2C` is a
//! comma, `%2B` a plus, `%20` a space), so any name can be written.

use std::fmt;

use crate::collection::positions::material::Balance;
use crate::game::GameResult;
use crate::store::scid::derive::eco_code;

/// A header query: the games meeting every condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    pub(super) conditions: Vec<Condition>,
}

/// One condition: the games with `field` meeting one of `values` (or, `negated`, none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Condition {
    pub field: Field,
    pub negated: bool,
    pub values: Vec<Value>,
}

/// What a condition looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    White,
    Black,
    Player,
    Event,
    Site,
    Round,
    WhiteElo,
    BlackElo,
    /// Both ratings in range (SCID's `-elo`).
    BothElo,
    /// Either rating in range.
    AnyElo,
    /// The date, packed as SCID packs it.
    Date,
    Result,
    Eco,
    /// Half moves of the main line.
    Plies,
    /// The annotator (the `Annotator` tag): read from each game, so answered last.
    Annotator,
    /// An ending the main line passes through ([`Balance`]): answered by the position
    /// index, not the store's (the caller's, [`Query::materials`]).
    Material,
}

impl Field {
    /// True for the fields that are names (matched as SCID's header search matches them, or
    /// spelled exactly with `==`).
    fn is_name(self) -> bool {
        matches!(
            self,
            Field::White
                | Field::Black
                | Field::Player
                | Field::Event
                | Field::Site
                | Field::Round
                | Field::Annotator
        )
    }
}

/// One value of a condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Value {
    /// A name containing `0` (lower case, without spaces), as SCID's header search matches.
    Contains(Vec<u8>),
    /// A name spelled exactly so.
    Exactly(String),
    /// A number within the bounds, both included.
    Range(u32, u32),
    /// A result.
    Result(GameResult),
    /// Endings' codes ([`Balance::code`]): one ending (`material=`), or every one with the
    /// same pieces and any pawns (`pieces=`).
    Material(Vec<u32>),
}

/// Why a query does not parse: which condition, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The condition's place among the query's (1-based; 0 for the query as a whole).
    pub condition: usize,
    /// The condition's text.
    pub text: String,
    /// What was expected.
    pub expected: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.condition == 0 {
            return write!(f, "{}", self.expected);
        }
        write!(
            f,
            "condition {} ({}): expected {}",
            self.condition, self.text, self.expected
        )
    }
}

/// The greatest date SCID packs (year 2047, month 15, day 31).
const DATE_MAX: u32 = 0xF_FFFF;
/// Past any rating or ply count.
const NUMBER_MAX: u32 = u32::MAX;

impl Query {
    /// Read query `text` (one path component).
    pub fn parse(text: &str) -> Result<Query, ParseError> {
        if text.is_empty() {
            return Err(ParseError {
                condition: 0,
                text: String::new(),
                expected: "a query is conditions such as white=carlsen,year=2015-2020".into(),
            });
        }
        let conditions = text
            .split(',')
            .enumerate()
            .map(|(i, c)| {
                condition(c).map_err(|expected| ParseError {
                    condition: i + 1,
                    text: c.to_owned(),
                    expected,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Query { conditions })
    }

    /// Its conditions on the endings games pass through, which the position index answers
    /// (the store's index answers the others): each one's negation and the codes of its
    /// endings ([`Balance::code`]), any of which a game may pass through.
    pub fn materials(&self) -> Vec<(bool, Vec<u32>)> {
        self.conditions
            .iter()
            .filter(|c| c.field == Field::Material)
            .map(|c| {
                let codes = c
                    .values
                    .iter()
                    .flat_map(|v| match v {
                        Value::Material(codes) => codes.as_slice(),
                        _ => &[],
                    })
                    .copied()
                    .collect();
                (c.negated, codes)
            })
            .collect()
    }
}

/// The fields by name, with what a condition on each expects.
const FIELDS: [(&str, Field); 19] = [
    ("white", Field::White),
    ("black", Field::Black),
    ("player", Field::Player),
    ("event", Field::Event),
    ("site", Field::Site),
    ("round", Field::Round),
    ("annotator", Field::Annotator),
    ("welo", Field::WhiteElo),
    ("belo", Field::BlackElo),
    ("elo", Field::BothElo),
    ("anyelo", Field::AnyElo),
    ("date", Field::Date),
    ("year", Field::Date),
    ("result", Field::Result),
    ("eco", Field::Eco),
    ("moves", Field::Plies),
    ("plies", Field::Plies),
    ("material", Field::Material),
    ("pieces", Field::Material),
];

/// One condition's text read, or what was expected.
fn condition(text: &str) -> Result<Condition, String> {
    let Some(eq) = text.find('=') else {
        return Err("FIELD=VALUE (or FIELD!=VALUE)".into());
    };
    let (mut name, mut rest) = (&text[..eq], &text[eq + 1..]);
    let negated = name.ends_with('!');
    if negated {
        name = &name[..name.len() - 1];
    }
    let exact = rest.starts_with('=');
    if exact {
        rest = &rest[1..];
    }
    let lower = name.to_ascii_lowercase();
    let Some(&(_, field)) = FIELDS.iter().find(|(n, _)| *n == lower) else {
        let names: Vec<&str> = FIELDS.iter().map(|(n, _)| *n).collect();
        return Err(format!("a field: one of {}", names.join(", ")));
    };
    if exact && !field.is_name() {
        return Err(format!("{name}=VALUE: == is for names only"));
    }
    let values = rest
        .split('+')
        .map(|v| {
            let v = decode(v)?;
            if v.is_empty() {
                return Err(format!("a value after {name}= (values are joined by +)"));
            }
            value(field, &lower, &v, exact)
        })
        .collect::<Result<_, _>>()?;
    Ok(Condition {
        field,
        negated,
        values,
    })
}

/// `text` with its `%XX` escapes decoded.
fn decode(text: &str) -> Result<String, String> {
    let bad = || format!("%XX (two hex digits) in {text}");
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).ok_or_else(bad)?;
            let hex = std::str::from_utf8(hex).map_err(|_| bad())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("UTF-8 once decoded: {text}"))
}

/// Value `v` of a condition on `field` (called `name`).
fn value(field: Field, name: &str, v: &str, exact: bool) -> Result<Value, String> {
    Ok(match field {
        Field::WhiteElo | Field::BlackElo | Field::BothElo | Field::AnyElo => {
            let (lo, hi) = range(v, |s| s.parse::<u32>().ok(), |s| s.parse::<u32>().ok())
                .ok_or_else(|| {
                    format!("{name}=RATING or a range such as {name}=2500-2700, 2500- or -2700")
                })?;
            Value::Range(lo, hi.unwrap_or(NUMBER_MAX))
        }
        Field::Plies if name == "moves" => {
            let number = |s: &str| s.parse::<u32>().ok();
            let (lo, hi) = range(v, number, number)
                .ok_or_else(|| "moves=N or a range such as moves=20-40, 20- or -40".to_owned())?;
            // Move N is half moves 2N-1 (White's) and 2N (Black's).
            Value::Range(
                (2 * lo).saturating_sub(1),
                hi.map_or(NUMBER_MAX, |h| h.saturating_mul(2)),
            )
        }
        Field::Plies => {
            let number = |s: &str| s.parse::<u32>().ok();
            let (lo, hi) = range(v, number, number)
                .ok_or_else(|| "plies=N or a range such as plies=40-80, 40- or -80".to_owned())?;
            Value::Range(lo, hi.unwrap_or(NUMBER_MAX))
        }
        Field::Date => {
            let (lo, hi) =
                if name == "year" {
                    let year = |s: &str| s.parse::<u32>().ok().filter(|&y| y < 2048);
                    range(v, year, year).map(|(lo, hi)| (lo << 9, hi.map(|h| h << 9 | 0x1FF)))
                } else {
                    range(v, |s| date(s, false), |s| date(s, true))
                }
                .ok_or_else(|| {
                    format!(
                    "{name}=YYYY[.MM[.DD]] or a range such as {name}=2015-2016.06, 2015- or -2016"
                )
                .replace("YYYY[.MM[.DD]]", if name == "year" { "YYYY" } else { "YYYY[.MM[.DD]]" })
                })?;
            Value::Range(lo, hi.unwrap_or(DATE_MAX))
        }
        Field::Eco => {
            let code = |s: &str| eco_code(s).map(u32::from);
            let last = |s: &str| eco_code(s).map(eco_last_subcode);
            let (lo, hi) = range(v, code, last).ok_or_else(|| {
                "eco=CODE or a range such as eco=B90-B99, B90- or -B99".to_owned()
            })?;
            Value::Range(lo, hi.unwrap_or(NUMBER_MAX))
        }
        Field::Material if name == "pieces" => Value::Material(
            Balance::parse(v)?
                .with_any_pawns()
                .ok_or_else(|| "pieces=ENDING without pawns, such as pieces=KRvKR".to_owned())?
                .into_iter()
                .map(Balance::code)
                .collect(),
        ),
        Field::Material => Value::Material(vec![Balance::parse(v)?.code()]),
        Field::Result => Value::Result(match v.to_ascii_lowercase().as_str() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "draw" => GameResult::Draw,
            "none" => GameResult::Unknown,
            _ => return Err("result=1-0, 0-1, draw or none".into()),
        }),
        // The names: every other field is matched above.
        name_field => {
            debug_assert!(name_field.is_name(), "{name_field:?}");
            if exact {
                Value::Exactly(v.to_owned())
            } else {
                Value::Contains(
                    v.bytes()
                        .filter(|&c| c != b' ')
                        .map(|c| c.to_ascii_lowercase())
                        .collect(),
                )
            }
        }
    })
}

/// A range `A`, `A-B`, `A-` or `-B`: its low bound (`lo` of A, or 0) and its high bound (`hi`
/// of B, of A alone, or none: open). A single value is the range from its `lo` to its `hi`
/// (a year's dates, an ECO code's subcodes).
fn range(
    v: &str,
    lo: impl Fn(&str) -> Option<u32>,
    hi: impl Fn(&str) -> Option<u32>,
) -> Option<(u32, Option<u32>)> {
    let Some((a, b)) = v.split_once('-') else {
        return Some((lo(v)?, Some(hi(v)?)));
    };
    let low = if a.is_empty() { 0 } else { lo(a)? };
    let high = if b.is_empty() { None } else { Some(hi(b)?) };
    if a.is_empty() && b.is_empty() {
        return None;
    }
    Some((low, high))
}

/// A date `YYYY[.MM[.DD]]` packed as SCID packs it (`year << 9 | month << 5 | day`), its
/// missing parts 0 for a low bound and as great as they go (12, 31) for a high one.
fn date(s: &str, high: bool) -> Option<u32> {
    let mut parts = s.split('.');
    let year: u32 = parts.next()?.parse().ok().filter(|&y| y < 2048)?;
    let part = |p: Option<&str>, max: u32| -> Option<u32> {
        match p {
            None => Some(if high { max } else { 0 }),
            Some(p) => p.parse().ok().filter(|&x| x >= 1 && x <= max),
        }
    };
    let month = part(parts.next(), 12)?;
    let day = part(parts.next(), 31)?;
    if parts.next().is_some() {
        return None;
    }
    Some(year << 9 | month << 5 | day)
}

/// The last subcode of ECO code `eco` (B07 is B07z4; B07a is B07a4), as SCID's
/// `eco_LastSubCode` makes a range's end include the subcodes of its last code.
fn eco_last_subcode(eco: u16) -> u32 {
    let mut e = u32::from(eco) - 1;
    if e % 131 == 0 {
        e += 126;
    }
    if (e % 131) % 5 == 1 {
        e += 4;
    }
    e + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Condition {
        let mut q = Query::parse(text).unwrap();
        assert_eq!(q.conditions.len(), 1);
        q.conditions.remove(0)
    }

    #[test]
    fn conditions_fields_values_and_escapes() {
        let q = Query::parse("white=Carlsen,year=2015-2020,result=1-0+draw").unwrap();
        assert_eq!(q.conditions.len(), 3);
        assert_eq!(
            q.conditions[0].values,
            [Value::Contains(b"carlsen".to_vec())]
        );
        assert_eq!(
            q.conditions[1].values,
            [Value::Range(2015 << 9, 2020 << 9 | 0x1FF)]
        );
        assert_eq!(
            q.conditions[2].values,
            [
                Value::Result(GameResult::WhiteWins),
                Value::Result(GameResult::Draw)
            ]
        );
        assert_eq!(
            one("player==Carlsen%2C%20Magnus").values,
            [Value::Exactly("Carlsen, Magnus".into())]
        );
        assert_eq!(
            one("black=Carlsen%2C Ma").values,
            [Value::Contains(b"carlsen,ma".to_vec())]
        );
        let not = one("event!=blitz");
        assert!(not.negated && not.field == Field::Event);
        assert_eq!(one("elo=2600-").values, [Value::Range(2600, NUMBER_MAX)]);
        assert_eq!(one("welo=-2000").values, [Value::Range(0, 2000)]);
        assert_eq!(one("anyelo=2700").values, [Value::Range(2700, 2700)]);
        assert_eq!(one("moves=-40").values, [Value::Range(0, 80)]);
        assert_eq!(one("moves=20-").values, [Value::Range(39, NUMBER_MAX)]);
        assert_eq!(one("plies=20-30").values, [Value::Range(20, 30)]);
        let b90 = u32::from(eco_code("B90").unwrap());
        let b99z4 = u32::from(eco_code("B99z4").unwrap());
        assert_eq!(one("eco=B90-B99").values, [Value::Range(b90, b99z4)]);
        assert_eq!(
            one("eco=B90a").values,
            [Value::Range(
                u32::from(eco_code("B90a").unwrap()),
                u32::from(eco_code("B90a4").unwrap())
            )]
        );
        assert_eq!(
            one("date=2015.03-2016.06.30").values,
            [Value::Range(2015 << 9 | 3 << 5, 2016 << 9 | 6 << 5 | 30)]
        );
        assert_eq!(
            one("date=2015").values,
            [Value::Range(2015 << 9, 2015 << 9 | 12 << 5 | 31)]
        );
    }

    #[test]
    fn a_query_that_does_not_parse_says_which_condition_and_what_was_expected() {
        let e = Query::parse("white=a,elo=high").unwrap_err();
        assert_eq!(e.condition, 2);
        assert_eq!(
            e.to_string(),
            "condition 2 (elo=high): expected elo=RATING or a range such as elo=2500-2700, \
             2500- or -2700"
        );
        for bad in [
            "",
            "white",
            "colour=white",
            "result=1/2",
            "eco=Z00",
            "date=2015.13",
            "white=a%2",
            "year==2015",
            "white=a+",
            "elo=-",
        ] {
            assert!(Query::parse(bad).is_err(), "{bad}");
        }
    }
}
