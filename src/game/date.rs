//! Dates as chess databases keep them: any of year, month and day may be unknown.

use std::fmt;

use crate::decimal::push_two_digits;

/// A calendar date whose parts may each be unknown (PGN's `????.??.??`).
///
/// Chess databases store partial dates (a year alone is common), so each part is optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartialDate {
    /// Year, if known.
    pub year: Option<u16>,
    /// Month 1..=12, if known.
    pub month: Option<u8>,
    /// Day 1..=31, if known.
    pub day: Option<u8>,
}

impl PartialDate {
    /// True when no part of the date is known.
    pub fn is_unknown(&self) -> bool {
        self.year.is_none() && self.month.is_none() && self.day.is_none()
    }
}

impl PartialDate {
    /// The PGN form ([`PartialDate::push_pgn`]) as a string of its own: what `to_string`
    /// makes, without a formatter's cost (a tag's value).
    pub fn pgn(&self) -> String {
        let mut text = String::with_capacity(10);
        self.push_pgn(&mut text);
        text
    }

    /// Append the PGN form, `YYYY.MM.DD` with `?` for unknown digits, to `out` (what
    /// `Display` writes; every game's tags have a date, so no formatter).
    pub fn push_pgn(&self, out: &mut String) {
        match self.year {
            Some(y) => push_padded(out, u32::from(y), 4),
            None => out.push_str("????"),
        }
        for part in [self.month, self.day] {
            out.push('.');
            match part {
                Some(p) => push_padded(out, u32::from(p), 2),
                None => out.push_str("??"),
            }
        }
    }
}

/// `n` in decimal, with leading zeros to `width` digits: a month or day (2) and a year (4)
/// of the usual size two digits at a time ([`push_two_digits`]), as every game's dates are.
fn push_padded(out: &mut String, n: u32, width: usize) {
    match (width, n) {
        (2, 0..100) => push_two_digits(out, n),
        (4, 0..10_000) => {
            push_two_digits(out, n / 100);
            push_two_digits(out, n % 100);
        }
        _ => {
            let (digits, from) = padded(n, width);
            out.extend(digits[from..].iter().map(|&d| char::from(d)));
        }
    }
}

/// `n` in decimal, with leading zeros to `width` digits (at most 10): the array's bytes from
/// the index returned.
fn padded(n: u32, width: usize) -> ([u8; 10], usize) {
    let mut digits = [b'0'; 10];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    (digits, at.min(digits.len() - width))
}

impl PartialDate {
    /// Whether `text` is this date's PGN form (what [`PartialDate::push_pgn`] writes), told
    /// without writing it: a reader notes the dates it reads otherwise than written, and
    /// nearly every date is written so (two a game in the lichess dumps).
    pub fn written_as(&self, text: &str) -> bool {
        let mut rest = text.as_bytes();
        let parts = [
            (self.year.map(u32::from), 4),
            (self.month.map(u32::from), 2),
            (self.day.map(u32::from), 2),
        ];
        for (k, (part, width)) in parts.into_iter().enumerate() {
            let (digits, from) = padded(part.unwrap_or(0), width);
            let form = match part {
                Some(_) => &digits[from..],
                None => &b"????"[..width],
            };
            let dot: &[u8] = if k == 0 { b"" } else { b"." };
            match rest.strip_prefix(dot).and_then(|r| r.strip_prefix(form)) {
                Some(after) => rest = after,
                None => return false,
            }
        }
        rest.is_empty()
    }
}

impl fmt::Display for PartialDate {
    /// PGN form: `YYYY.MM.DD` with `?` for unknown digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pgn())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A date is written as its PGN form and as nothing else: the form, cut, lengthened or
    /// with one byte changed, is not it.
    #[test]
    fn a_date_is_written_as_its_pgn_form_only() {
        let mut rng = crate::testing::Rng(0xDA7E);
        for _ in 0..20_000 {
            let mut part = |max: usize| rng.chance(80).then(|| rng.below(max + 1));
            let d = PartialDate {
                year: part(65535).map(|y| y as u16),
                month: part(255).map(|m| m as u8),
                day: part(255).map(|d| d as u8),
            };
            let form = d.to_string();
            assert!(d.written_as(&form), "{d:?} {form}");
            let mut other = form.clone().into_bytes();
            match rng.below(3) {
                0 => {
                    other.pop();
                }
                1 => other.push(b'0'),
                _ => {
                    let at = rng.below(other.len());
                    other[at] = *rng.pick(b"0123456789.?");
                }
            }
            let other = String::from_utf8(other).unwrap();
            assert_eq!(d.written_as(&other), other == form, "{d:?} {other}");
        }
    }

    #[test]
    fn renders_pgn_form_with_unknown_parts() {
        let d = PartialDate {
            year: Some(1979),
            month: None,
            day: None,
        };
        assert_eq!(d.to_string(), "1979.??.??");
        let d = PartialDate {
            year: Some(2020),
            month: Some(5),
            day: Some(7),
        };
        assert_eq!(d.to_string(), "2020.05.07");
        assert_eq!(PartialDate::default().to_string(), "????.??.??");
        // Short years are padded to four digits, as `{:04}` pads; longer ones are whole.
        for (year, text) in [
            (7, "0007.??.12"),
            (812, "0812.??.12"),
            (65535, "65535.??.12"),
        ] {
            let d = PartialDate {
                year: Some(year),
                month: None,
                day: Some(12),
            };
            assert_eq!(d.to_string(), text);
            assert_eq!(text, format!("{year:04}.??.12"));
        }
    }
}
