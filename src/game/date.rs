//! Dates as chess databases keep them: any of year, month and day may be unknown.

use std::fmt;

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

/// `n` in decimal, with leading zeros to `width` digits.
fn push_padded(out: &mut String, n: u32, width: usize) {
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
    let from = at.min(digits.len() - width);
    out.extend(digits[from..].iter().map(|&d| char::from(d)));
}

impl fmt::Display for PartialDate {
    /// PGN form: `YYYY.MM.DD` with `?` for unknown digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(10);
        self.push_pgn(&mut text);
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
