//! The entity files: players (.cbp), tournaments (.cbt), annotators (.cbc), sources (.cbs),
//! teams (.cbe).
//! Each is a header (28 bytes, plus the number at offset 24) and fixed-size records, each
//! 9 bytes of search-tree links and the entity's fields; games name them by record number.
//! Integers are little-endian; text is in the base's code page ([`CodePage`]), cut at the
//! first zero byte.

use std::sync::Arc;

use super::code_page::CodePage;
use crate::error::{Error, Result};
use crate::game::PartialDate;

/// The bytes of each record before the entity's fields.
const LINKS: usize = 9;

/// A little-endian number.
fn le(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .rev()
        .fold(0, |acc, &b| acc << 8 | u32::from(b))
}

/// `bytes` up to the first zero byte.
fn up_to_zero(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// An entity file: its extension, the shortest record that holds the fields gamefs reads,
/// and where a record keeps its texts.
pub(super) struct Kind {
    ext: &'static str,
    min_len: usize,
    /// Each text field's first byte and the byte after it.
    texts: &'static [(usize, usize)],
}

/// The players: last name (30 bytes), first name (20).
pub(super) const PLAYERS: Kind = Kind {
    ext: ".cbp",
    min_len: 50,
    texts: &[(0, 30), (30, 50)],
};

/// The tournaments: title (40 bytes), place (30), then numbers (ChessBase writes 90 bytes).
pub(super) const TOURNAMENTS: Kind = Kind {
    ext: ".cbt",
    min_len: 74,
    texts: &[(0, 40), (40, 70)],
};

/// The annotators: a name (45 bytes).
pub(super) const ANNOTATORS: Kind = Kind {
    ext: ".cbc",
    min_len: 45,
    texts: &[(0, 45)],
};

/// The sources: title (25 bytes), publisher (16), then numbers.
pub(super) const SOURCES: Kind = Kind {
    ext: ".cbs",
    min_len: 51,
    texts: &[(0, 25), (25, 41)],
};

/// The teams: title (45 bytes), then numbers.
pub(super) const TEAMS: Kind = Kind {
    ext: ".cbe",
    min_len: 55,
    texts: &[(0, 45)],
};

impl Kind {
    /// The texts of record `r`, as stored, each up to its first zero byte.
    fn stored_texts<'a>(&'a self, r: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.texts
            .iter()
            .map(move |&(from, to)| up_to_zero(&r[from..to]))
    }

    /// The texts of record `r` read in `page`, spaces at the ends dropped: as many as
    /// the kind has.
    fn fields<const N: usize>(&self, r: &[u8], page: CodePage) -> [String; N] {
        let mut texts = self.stored_texts(r);
        std::array::from_fn(|_| {
            page.text(texts.next().unwrap_or_default())
                .trim()
                .to_owned()
        })
    }
}

/// Every text of an entity file, as stored, record by record (what the base's code page is
/// told from).
pub(super) fn texts<'a>(
    bytes: &'a [u8],
    kind: &'a Kind,
) -> Result<impl Iterator<Item = &'a [u8]> + 'a> {
    Ok(records(bytes, kind)?.flat_map(|r| kind.stored_texts(r)))
}

/// The records of an entity file of `kind`: each one's fields (after the links), in number
/// order.
fn records<'a>(bytes: &'a [u8], kind: &Kind) -> Result<impl Iterator<Item = &'a [u8]> + 'a> {
    let bad = |what: String| Error::corrupt_database(format!("{}: {what}", kind.ext));
    let min_len = kind.min_len;
    let (body, whole) = if bytes.is_empty() {
        (bytes, LINKS + min_len)
    } else {
        let header = bytes
            .get(..28)
            .ok_or_else(|| bad(format!("{} bytes, less than its header", bytes.len())))?;
        let len = le(&header[12..16]) as usize;
        let start = 28 + le(&header[24..28]) as usize;
        if len < min_len || len > 1 << 16 {
            return Err(bad(format!("records of {len} bytes")));
        }
        (bytes.get(start..).unwrap_or_default(), LINKS + len)
    };
    Ok(body.chunks_exact(whole).map(|r| &r[LINKS..]))
}

/// A name ChessBase's export writes as `?` when empty (a player's, a tournament's title or
/// place).
fn or_unknown(name: String) -> String {
    if name.is_empty() {
        crate::store::damage::UNKNOWN_NAME_TEXT.to_owned()
    } else {
        name
    }
}

/// The names of the players: `Last, First`, or the last name alone (`?` when both are empty).
pub(super) fn players(bytes: &[u8], page: CodePage) -> Result<Vec<Arc<str>>> {
    Ok(records(bytes, &PLAYERS)?
        .map(|r| {
            let [last, first] = PLAYERS.fields(r, page);
            Arc::from(if first.is_empty() {
                or_unknown(last)
            } else {
                format!("{last}, {first}")
            })
        })
        .collect())
}

/// A tournament: its title (the Event tag), place (Site), start date (EventDate) and what
/// ChessBase's export writes as EventType, EventRounds, EventCountry and EventCategory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Tournament {
    /// The title.
    pub title: String,
    /// The place.
    pub place: String,
    /// The start date.
    pub date: PartialDate,
    /// The pairing system (low five bits) and time control (bits 5–7).
    pub kind: u8,
    /// A team event.
    pub team: bool,
    /// The country's nation number ([`super::nations`]).
    pub nation: u8,
    /// The category (0: none).
    pub category: u8,
    /// The number of rounds (0: none).
    pub rounds: u8,
}

/// The names of the pairing systems as ChessBase's export writes EventType, by number.
const PAIRINGS: [&str; 9] = [
    "", "game", "match", "tourn", "swiss", "team", "k.o.", "simul", "schev",
];

impl Tournament {
    /// The EventType ChessBase's export writes: the pairing (`swiss`), `team-` before it for
    /// a team event, the time control after it (`swiss (blitz)`); none without a pairing
    /// (what ChessBase writes for a time control alone is not known).
    pub(super) fn event_type(&self) -> Option<String> {
        let pairing = PAIRINGS
            .get(usize::from(self.kind & 0x1F))
            .copied()
            .unwrap_or_default();
        let mut text = match (self.team, pairing) {
            (true, "" | "team") => "team".to_owned(),
            (true, p) => format!("team-{p}"),
            (false, p) => p.to_owned(),
        };
        let control = [(0x20, "blitz"), (0x40, "rapid"), (0x80, "corr")]
            .into_iter()
            .find(|&(bit, _)| self.kind & bit != 0);
        if let Some((_, control)) = control.filter(|_| !text.is_empty()) {
            text = format!("{text} ({control})");
        }
        (!text.is_empty()).then_some(text)
    }
}

/// The tournaments. Records shorter than ChessBase's 90 bytes keep what they hold.
pub(super) fn tournaments(bytes: &[u8], page: CodePage) -> Result<Vec<Tournament>> {
    Ok(records(bytes, &TOURNAMENTS)?
        .map(|r| {
            let byte = |at: usize| r.get(at).copied().unwrap_or_default();
            let [title, place] = TOURNAMENTS.fields(r, page);
            Tournament {
                title: or_unknown(title),
                place: or_unknown(place),
                date: super::headers::date(le(&r[70..74])),
                kind: byte(74),
                team: byte(75) & 1 != 0,
                nation: byte(76),
                category: byte(78),
                rounds: byte(80),
            }
        })
        .collect())
}

/// A source (.cbs), as ChessBase's export writes it: SourceTitle, Source (the publisher),
/// SourceDate (published), SourceVersion, SourceVersionDate and SourceQuality.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Source {
    /// The title.
    pub title: String,
    /// The publisher.
    pub publisher: String,
    /// When it was published.
    pub published: PartialDate,
    /// The version's date.
    pub date: PartialDate,
    /// The version (0: none).
    pub version: u8,
    /// The quality: 1 high, 2 medium, 3 low (0: none).
    pub quality: u8,
}

/// The sources.
pub(super) fn sources(bytes: &[u8], page: CodePage) -> Result<Vec<Source>> {
    Ok(records(bytes, &SOURCES)?
        .map(|r| {
            let [title, publisher] = SOURCES.fields(r, page);
            Source {
                title,
                publisher,
                published: super::headers::date(le(&r[41..45])),
                date: super::headers::date(le(&r[45..49])),
                version: r[49],
                quality: r[50],
            }
        })
        .collect())
}

/// A team (.cbe).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Team {
    /// The name as ChessBase's export writes it: the title, and the team's number (a club's
    /// second team) in Roman numerals after it when it has one (`Eppingen II`).
    pub name: String,
    /// The nation number (0: none).
    pub nation: u8,
}

/// `n` in Roman numerals (1–3999; others as digits).
fn roman(mut n: u32) -> String {
    if !(1..4000).contains(&n) {
        return n.to_string();
    }
    const UNITS: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, text) in UNITS {
        while n >= value {
            out.push_str(text);
            n -= value;
        }
    }
    out
}

/// The teams: title (45 bytes), number (4), season flag (1), year (4), nation (1).
pub(super) fn teams(bytes: &[u8], page: CodePage) -> Result<Vec<Team>> {
    Ok(records(bytes, &TEAMS)?
        .map(|r| {
            let [title] = TEAMS.fields(r, page);
            let number = le(&r[45..49]);
            Team {
                name: match number {
                    0 => title,
                    n => format!("{title} {}", roman(n)),
                },
                nation: r[54],
            }
        })
        .collect())
}

/// The names of the annotators.
pub(super) fn annotators(bytes: &[u8], page: CodePage) -> Result<Vec<Arc<str>>> {
    Ok(records(bytes, &ANNOTATORS)?
        .map(|r| {
            let [name] = ANNOTATORS.fields(r, page);
            Arc::from(name)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entity file of records of `len` bytes (after the links), with a 32-byte header.
    fn file(len: usize, records: &[Vec<u8>]) -> Vec<u8> {
        let mut out = vec![0u8; 32];
        out[12..16].copy_from_slice(&(len as u32).to_le_bytes());
        out[24..28].copy_from_slice(&4u32.to_le_bytes());
        for r in records {
            out.extend([0xFF; LINKS]);
            let mut r = r.clone();
            r.resize(len, 0);
            out.extend(r);
        }
        out
    }

    #[test]
    fn player_names_join_last_and_first() {
        let mut a = b"Carlsen".to_vec();
        a.resize(30, 0);
        a.extend(b"Magnus");
        let mut b = b"R\xe9ti".to_vec();
        b.resize(30, 0);
        let names = players(&file(58, &[a, b]), CodePage::default()).unwrap();
        assert_eq!(&*names[0], "Carlsen, Magnus");
        assert_eq!(&*names[1], "Réti");
    }

    #[test]
    fn teams_with_their_numbers_in_roman_numerals() {
        let mut eppingen = b"Eppingen".to_vec();
        eppingen.resize(45, 0);
        eppingen.extend(2u32.to_le_bytes());
        eppingen.extend([1, 0xD6, 7, 0, 0, 53]);
        let mut club = b"Club".to_vec();
        club.resize(55, 0);
        let teams = teams(&file(63, &[eppingen, club]), CodePage::default()).unwrap();
        assert_eq!(teams[0].name, "Eppingen II");
        assert_eq!(teams[0].nation, 53);
        assert_eq!(teams[1].name, "Club");
        assert_eq!(roman(1994), "MCMXCIV");
        assert_eq!(roman(4000), "4000");
    }

    #[test]
    fn event_types_as_chessbase_exports_them() {
        let t = |kind, team| Tournament {
            kind,
            team,
            ..Tournament::default()
        };
        assert_eq!(
            t(4 | 0x20, false).event_type().as_deref(),
            Some("swiss (blitz)")
        );
        assert_eq!(t(4, true).event_type().as_deref(), Some("team-swiss"));
        assert_eq!(t(2, true).event_type().as_deref(), Some("team-match"));
        assert_eq!(t(0, true).event_type().as_deref(), Some("team"));
        assert_eq!(t(6, false).event_type().as_deref(), Some("k.o."));
        assert_eq!(
            t(3 | 0x80, false).event_type().as_deref(),
            Some("tourn (corr)")
        );
        assert_eq!(t(0, false).event_type(), None);
        assert_eq!(t(0x20, false).event_type(), None);
    }

    #[test]
    fn teams_with_their_country() {
        let mut t = b"Norway".to_vec();
        t.resize(54, 0);
        t.push(108);
        let teams = teams(&file(63, &[t]), CodePage::default()).unwrap();
        assert_eq!(teams[0].name, "Norway");
        assert_eq!(super::super::nations::code(teams[0].nation), Some("NOR"));
        assert!(super::teams(&file(40, &[]), CodePage::default()).is_err());
    }

    #[test]
    fn tournaments_and_bad_headers() {
        let mut t = b"Tata Steel".to_vec();
        t.resize(40, 0);
        t.extend(b"Wijk aan Zee");
        t.resize(70, 0);
        t.extend((2024u32 << 9 | 1 << 5 | 12).to_le_bytes());
        let ts = tournaments(&file(90, &[t]), CodePage::default()).unwrap();
        assert_eq!(ts[0].title, "Tata Steel");
        assert_eq!(ts[0].place, "Wijk aan Zee");
        assert_eq!(ts[0].date.year, Some(2024));
        assert_eq!(ts[0].event_type(), None);
        let page = CodePage::default();
        assert!(tournaments(&file(10, &[]), page).is_err());
        assert!(players(&[0; 5], page).is_err());
        assert!(players(&[], page).unwrap().is_empty());
    }
}
