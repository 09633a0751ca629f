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

impl fmt::Display for PartialDate {
    /// PGN form: `YYYY.MM.DD` with `?` for unknown digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.year {
            Some(y) => write!(f, "{y:04}")?,
            None => f.write_str("????")?,
        }
        match self.month {
            Some(m) => write!(f, ".{m:02}")?,
            None => f.write_str(".??")?,
        }
        match self.day {
            Some(d) => write!(f, ".{d:02}"),
            None => f.write_str(".??"),
        }
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
    }
}
