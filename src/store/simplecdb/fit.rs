//! What the index entry can hold of a game's headers, both ways.
//!
//! Writing: [`fit_headers`] maps [`Headers`] to entry fields and lists every loss (a name over
//! 36 bytes, a Round that is not a whole number, an ECO not of 3 bytes, a rating that is not
//! Elo, an EventDate, extra tags, a date part out of range). Reading: [`read_headers`] maps an
//! entry back. The two agree: reading what was written from a game gives
//! [`stored_headers`] of it, so a game read from the database re-saves without loss and,
//! unchanged, as a no-op.
//!
//! Conventions (chosen so that rendering a stored game re-saves losslessly):
//! - Round 0 means unknown and reads as `?`; `""`, `"?"` and `"-"` are stored as 0 without loss.
//!   Other rounds must be the canonical decimal form of 1..=65535.
//! - A name reference 0 reads as an empty name; an empty name is written as a record of 36
//!   spaces (as pgn2dcg writes `[White ""]`). Trailing spaces of a name are padding.
//! - ECO bytes `00 00 00` read as no ECO; trailing NUL bytes are not part of the code.
//! - Year 0, month 0, day 0 each read as an unknown part (`????.??.??`).
//! - Elo 0 reads as no rating.

use crate::error::ErrorKind;
use crate::game::{GameResult, Headers, PartialDate, Rating, RatingType};
use crate::store::charset::text_from_bytes;

use super::names::{RECORD_LEN, record, record_text};

/// The largest year the reference writer stores (it turns later years into 0).
pub const MAX_YEAR: u16 = 2099;

/// One piece of a game the format cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// `TooLarge` for limits (name length, year), `InvalidInput` for what has no place.
    pub kind: ErrorKind,
    /// The field, as PGN calls it (`White`, `Round`, `ECO`, `extra tags`, `moves`…).
    pub field: String,
    /// What is lost and what is stored instead.
    pub message: String,
}

/// The entry fields of a game's headers, names still as text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fitted {
    /// White, Black, Site, Event: the text whose record is written.
    pub names: [String; 4],
    /// Round number (0 = unknown).
    pub round: u16,
    /// White's and Black's Elo (0 = none).
    pub elo: [u16; 2],
    /// 0 unknown, 1 white wins, 2 black wins, 3 draw.
    pub result: u8,
    /// ECO bytes (zeros = none).
    pub eco: [u8; 3],
    /// Year, month, day (0 = unknown).
    pub date: (u16, u8, u8),
}

/// The PGN tags of [`Fitted::names`], in order.
pub const NAME_FIELDS: [&str; 4] = ["White", "Black", "Site", "Event"];

/// True when a name can be referenced: the reference writer gives longer names ref 0.
pub fn name_fits(name: &str) -> bool {
    name.len() <= RECORD_LEN
}

fn result_code(r: GameResult) -> u8 {
    match r {
        GameResult::Unknown => 0,
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    }
}

/// The result a stored code stands for (unknown codes read as `*`).
pub fn result_of(code: u8) -> GameResult {
    match code {
        1 => GameResult::WhiteWins,
        2 => GameResult::BlackWins,
        3 => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// Qt's `QString::toUInt` as pgn2dcg uses it for rounds: a whole decimal number, else 0,
/// stored in 16 bits.
fn to_uint16(text: &str) -> u16 {
    text.trim().parse::<u32>().map_or(0, |v| v as u16)
}

/// Map headers to entry fields, listing each loss (in lossy mode the fields are what is
/// stored, as close as the format allows and as the reference writer stores it).
pub fn fit_headers(h: &Headers) -> (Fitted, Vec<Loss>) {
    let mut losses = Vec::new();
    let mut loss = |kind, field: &str, message: String| {
        losses.push(Loss {
            kind,
            field: field.to_owned(),
            message,
        })
    };
    let names = [&h.white, &h.black, &h.site, &h.event];
    for (field, name) in NAME_FIELDS.iter().zip(names) {
        if !name_fits(name) {
            loss(
                ErrorKind::TooLarge,
                field,
                format!(
                    "{field} {name:?} is {} bytes; the format stores names of at most 36 bytes \
                     (stored as no name, its first 36 bytes added to the name file as pgn2dcg does)",
                    name.len()
                ),
            );
        } else if record_text(&record(name)).0 != **name {
            loss(
                ErrorKind::InvalidInput,
                field,
                format!("{field} {name:?} ends with spaces, which the format cannot keep"),
            );
        }
    }
    let round = match h.round.as_str() {
        "" | "?" | "-" => 0,
        r => {
            let v = to_uint16(r);
            if v == 0 || v.to_string() != r {
                loss(
                    ErrorKind::InvalidInput,
                    "Round",
                    format!(
                        "Round {r:?} is not a whole number 1..65535, the only rounds the format \
                         stores (stored as {})",
                        if v == 0 {
                            "?".to_string()
                        } else {
                            v.to_string()
                        }
                    ),
                );
            }
            v
        }
    };
    let mut elo = [0u16; 2];
    for (i, (color, rating)) in [("White", h.white_rating), ("Black", h.black_rating)]
        .into_iter()
        .enumerate()
    {
        match rating {
            None => {}
            Some(Rating {
                value,
                kind: RatingType::Elo,
            }) => elo[i] = value,
            Some(Rating { value, kind }) => loss(
                ErrorKind::InvalidInput,
                &format!("{color}{}", kind.tag_suffix()),
                format!(
                    "{color}{} {value}: the format stores Elo ratings only (dropped)",
                    kind.tag_suffix()
                ),
            ),
        }
    }
    let eco = match &h.eco {
        None => [0; 3],
        Some(code) => {
            let b = code.as_bytes();
            let mut eco = [0u8; 3];
            let n = b.len().min(3);
            eco[..n].copy_from_slice(&b[..n]);
            if b.len() != 3 || b.contains(&0) {
                loss(
                    ErrorKind::InvalidInput,
                    "ECO",
                    format!(
                        "ECO {code:?} is {} bytes; the format stores exactly 3 (stored as {:?})",
                        b.len(),
                        eco_text(eco).unwrap_or_default()
                    ),
                );
            }
            eco
        }
    };
    let d = h.date;
    let year = match d.year {
        None => 0,
        Some(y) if (1..=MAX_YEAR).contains(&y) => y,
        Some(y) => {
            loss(
                ErrorKind::TooLarge,
                "Date",
                format!(
                    "the year {y} is beyond what the format holds (1..{MAX_YEAR}; stored as ????)"
                ),
            );
            0
        }
    };
    let month = d.month.filter(|m| (1..=12).contains(m)).unwrap_or(0);
    let day = d.day.filter(|m| (1..=31).contains(m)).unwrap_or(0);
    if d.month.is_some() && month == 0 || d.day.is_some() && day == 0 {
        loss(
            ErrorKind::InvalidInput,
            "Date",
            format!("the date {d} is not a calendar date the format holds"),
        );
    }
    if let Some(ed) = h.event_date {
        loss(
            ErrorKind::InvalidInput,
            "EventDate",
            format!("EventDate {ed}: the format has no place for it (dropped)"),
        );
    }
    if !h.extra.is_empty() {
        let tags: Vec<&str> = h.extra.iter().map(|(t, _)| t.as_str()).collect();
        loss(
            ErrorKind::InvalidInput,
            "extra tags",
            format!(
                "the tags {} have no place in the format (dropped)",
                tags.join(", ")
            ),
        );
    }
    let fitted = Fitted {
        names: [
            h.white.clone(),
            h.black.clone(),
            h.site.clone(),
            h.event.clone(),
        ],
        round,
        elo,
        result: result_code(h.result),
        eco,
        date: (year, month, day),
    };
    (fitted, losses)
}

/// The ECO text of stored bytes: none for zeros, trailing NULs dropped.
pub fn eco_text(eco: [u8; 3]) -> Option<String> {
    let end = eco.iter().rposition(|&b| b != 0)? + 1;
    Some(text_from_bytes(&eco[..end]))
}

/// The headers of an entry whose names (White, Black, Site, Event) read as `names`.
pub fn read_headers(f: &Fitted, names: [String; 4]) -> Headers {
    let [white, black, site, event] = names;
    let rating = |v: u16| {
        (v != 0).then_some(Rating {
            value: v,
            kind: RatingType::Elo,
        })
    };
    let (y, m, d) = f.date;
    Headers {
        event,
        site,
        date: PartialDate {
            year: (y != 0).then_some(y),
            month: (m != 0).then_some(m),
            day: (d != 0).then_some(d),
        },
        round: if f.round == 0 {
            "?".to_string()
        } else {
            f.round.to_string()
        },
        white,
        black,
        result: result_of(f.result),
        white_rating: rating(f.elo[0]),
        black_rating: rating(f.elo[1]),
        eco: eco_text(f.eco),
        event_date: None,
        extra: Vec::new(),
    }
}

/// The headers a game will have when read back after storing `f` (names over 36 bytes read
/// as empty, trailing spaces gone).
pub fn stored_headers(f: &Fitted) -> Headers {
    let names = f.names.clone().map(|n| {
        if name_fits(&n) {
            record_text(&record(&n)).0
        } else {
            String::new()
        }
    });
    read_headers(f, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers() -> Headers {
        Headers {
            white: "A".into(),
            black: "B".into(),
            round: "3".into(),
            eco: Some("C20".into()),
            date: PartialDate {
                year: Some(2020),
                month: Some(1),
                day: None,
            },
            white_rating: Some(Rating {
                value: 2500,
                kind: RatingType::Elo,
            }),
            ..Headers::default()
        }
    }

    #[test]
    fn lossless_headers_round_trip() {
        let h = headers();
        let (f, losses) = fit_headers(&h);
        assert!(losses.is_empty(), "{losses:?}");
        assert_eq!(stored_headers(&f), h);
        for unknown in ["", "?", "-"] {
            let h = Headers {
                round: unknown.into(),
                ..headers()
            };
            let (f, losses) = fit_headers(&h);
            assert!(losses.is_empty());
            assert_eq!(stored_headers(&f).round, "?");
            let (again, l2) = fit_headers(&stored_headers(&f));
            assert!(l2.is_empty());
            assert_eq!(again, f);
        }
    }

    #[test]
    fn every_loss_is_named() {
        let cases: Vec<(Headers, &str, ErrorKind)> = vec![
            (
                Headers {
                    white: "x".repeat(37),
                    ..headers()
                },
                "White",
                ErrorKind::TooLarge,
            ),
            (
                Headers {
                    round: "1.2".into(),
                    ..headers()
                },
                "Round",
                ErrorKind::InvalidInput,
            ),
            (
                Headers {
                    round: "03".into(),
                    ..headers()
                },
                "Round",
                ErrorKind::InvalidInput,
            ),
            (
                Headers {
                    eco: Some("B91a3".into()),
                    ..headers()
                },
                "ECO",
                ErrorKind::InvalidInput,
            ),
            (
                Headers {
                    extra: vec![("Opening".into(), "x".into())],
                    ..headers()
                },
                "extra tags",
                ErrorKind::InvalidInput,
            ),
            (
                Headers {
                    event_date: Some(PartialDate::default()),
                    ..headers()
                },
                "EventDate",
                ErrorKind::InvalidInput,
            ),
            (
                Headers {
                    black_rating: Some(Rating {
                        value: 2000,
                        kind: RatingType::Uscf,
                    }),
                    ..headers()
                },
                "BlackUSCF",
                ErrorKind::InvalidInput,
            ),
            (
                Headers {
                    date: PartialDate {
                        year: Some(2100),
                        month: None,
                        day: None,
                    },
                    ..headers()
                },
                "Date",
                ErrorKind::TooLarge,
            ),
            (
                Headers {
                    site: "Paris ".into(),
                    ..headers()
                },
                "Site",
                ErrorKind::InvalidInput,
            ),
        ];
        for (h, field, kind) in cases {
            let (_, losses) = fit_headers(&h);
            assert_eq!(losses.len(), 1, "{losses:?}");
            assert_eq!(losses[0].field, field);
            assert_eq!(losses[0].kind, kind);
        }
    }

    #[test]
    fn lossy_values_are_the_reference_writers() {
        let h = Headers {
            round: "1.2".into(),
            eco: Some("C20V".into()),
            white: "é".repeat(20),
            ..headers()
        };
        let (f, _) = fit_headers(&h);
        assert_eq!(f.round, 0);
        assert_eq!(&f.eco, b"C20");
        let s = stored_headers(&f);
        assert_eq!(s.white, "");
        assert_eq!(s.eco.as_deref(), Some("C20"));
    }
}
