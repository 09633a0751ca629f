//! The .cbh file: one 46-byte record per game or guiding text, after a 46-byte header.
//! Integers are big-endian (docs/formats/chessbase.md).

use crate::decimal::{push_decimal, push_two_digits};
use crate::error::{Error, ErrorKind, Result};
use crate::game::{GameResult, PartialDate};

/// The length of the header and of each record.
pub(super) const RECORD_LEN: usize = 46;

/// One record of the .cbh file, as far as gamefs reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Entry {
    /// A guiding text (a page of text, not a game).
    pub text: bool,
    /// Marked deleted.
    pub deleted: bool,
    /// Where the game's moves start in the .cbg file.
    pub moves_at: u32,
    /// Where its annotations start in the .cba file (0: none).
    pub annotations_at: u32,
    /// White's, Black's, the tournament's, the annotator's and the source's IDs (0-based).
    pub white: u32,
    /// Black's player ID.
    pub black: u32,
    /// The tournament ID (event and site).
    pub tournament: u32,
    /// The annotator ID.
    pub annotator: u32,
    /// The source ID.
    pub source: u32,
    /// The date played.
    pub date: PartialDate,
    /// ChessBase's result code (0 `0-1`, 1 draw, 2 `1-0`, 3 a line, 4–6 a forfeit, 7 both
    /// lost).
    pub result: u8,
    /// Round and subround (0: none).
    pub round: u8,
    /// The subround.
    pub subround: u8,
    /// White's and Black's ratings (0: none).
    pub white_elo: u16,
    /// Black's rating.
    pub black_elo: u16,
    /// ECO as ChessBase keeps it: the code 1..=500 (A00..E99) in bits 7–15, a subcode below.
    pub eco: u16,
    /// Which kinds of annotations the game holds ([`ANNOTATION_KINDS`]).
    pub flags: u32,
}

/// The annotation flags of a record, each with what gamefs calls it.
pub(super) const ANNOTATION_KINDS: [(u32, &str); 15] = [
    (1 << 2, "text comments"),
    (1 << 3, "symbols (move and position evaluations)"),
    (1 << 4, "coloured squares"),
    (1 << 5, "arrows"),
    (1 << 7, "time spent"),
    (1 << 9, "training annotations"),
    (1 << 16, "embedded audio"),
    (1 << 17, "embedded pictures"),
    (1 << 18, "embedded video"),
    (1 << 19, "game quotations"),
    (1 << 20, "pawn structures"),
    (1 << 21, "piece paths"),
    (1 << 22 | 1 << 23, "clocks"),
    (1 << 24, "critical positions"),
    (1 << 25, "correspondence headers"),
];

/// A big-endian number of `bytes` (at most four).
fn be(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0, |acc, &b| acc << 8 | u32::from(b))
}

/// A ChessBase date: day in bits 0–4, month in 5–8, year in 9–20; 0 is unknown.
pub(super) fn date(value: u32) -> PartialDate {
    let known = |v: u32| (v != 0).then_some(v);
    PartialDate {
        year: known(value >> 9 & 0xFFF).map(|y| y as u16),
        month: known(value >> 5 & 0xF)
            .filter(|&m| m <= 12)
            .map(|m| m as u8),
        day: known(value & 0x1F).map(|d| d as u8),
    }
}

/// The result a ChessBase result code stands for in PGN: a forfeit as the win it gives, a
/// line or both lost as unknown.
pub(super) fn result(code: u8) -> GameResult {
    match code {
        0 | 4 => GameResult::BlackWins,
        1 | 5 => GameResult::Draw,
        2 | 6 => GameResult::WhiteWins,
        _ => GameResult::Unknown,
    }
}

/// ChessBase's ECO as text (`B90`), when set: the subcode is not shown, as ChessBase's own
/// PGN export leaves it out.
pub(super) fn eco_text(eco: u16) -> Option<String> {
    let code = eco >> 7;
    (1..=500).contains(&code).then(|| {
        let v = code - 1;
        // Written for every game: no formatter.
        let mut text = String::with_capacity(3);
        text.push(char::from(b'A' + (v / 100) as u8));
        push_two_digits(&mut text, u32::from(v % 100));
        text
    })
}

/// ChessBase's ECO in SCID's numbering ([`crate::store::eco_text`]), which the views use.
pub(super) fn scid_eco(eco: u16) -> u16 {
    let code = eco >> 7;
    if (1..=500).contains(&code) {
        (code - 1) * 131 + 1
    } else {
        0
    }
}

/// Check the .cbh file's header (its first bytes, of a file of `len` bytes) and give the
/// number of records after it. Bytes after the last whole record are left out (the caller
/// reports them).
pub(super) fn record_count(header: &[u8], len: u64) -> Result<usize> {
    let header = header.get(..RECORD_LEN).ok_or_else(|| {
        Error::new(
            ErrorKind::UnknownFormat,
            format!("a .cbh file of {len} bytes has no header"),
        )
    })?;
    if be(&header[3..5]) as usize != RECORD_LEN {
        return Err(Error::new(
            ErrorKind::UnknownFormat,
            format!(
                "not a ChessBase .cbh file: records of {} bytes, not {RECORD_LEN}",
                be(&header[3..5])
            ),
        ));
    }
    Ok(((len - RECORD_LEN as u64) / RECORD_LEN as u64) as usize)
}

impl Entry {
    /// Read record `record` (46 bytes).
    pub(super) fn read(record: &[u8; RECORD_LEN]) -> Entry {
        let r = record;
        let text = r[0] & 0x02 != 0;
        let mut entry = Entry {
            text,
            deleted: r[0] & 0x80 != 0,
            moves_at: be(&r[1..5]),
            ..Entry::default()
        };
        if text {
            entry.tournament = be(&r[7..10]);
            entry.source = be(&r[10..13]);
            entry.annotator = be(&r[13..16]);
            return entry;
        }
        Entry {
            annotations_at: be(&r[5..9]),
            white: be(&r[9..12]),
            black: be(&r[12..15]),
            tournament: be(&r[15..18]),
            annotator: be(&r[18..21]),
            source: be(&r[21..24]),
            date: date(be(&r[24..27])),
            result: r[27],
            round: r[29],
            subround: r[30],
            white_elo: be(&r[31..33]) as u16,
            black_elo: be(&r[33..35]) as u16,
            eco: be(&r[35..37]) as u16,
            flags: be(&r[39..43]),
            ..entry
        }
    }

    /// The round as ChessBase's PGN export writes it: `5`, `5.2`, or `?` for none.
    pub(super) fn round_text(round: u8, subround: u8) -> String {
        match (round, subround) {
            (0, 0) => "?".to_owned(),
            (r, 0) => decimal(r.into()),
            (r, s) => {
                let mut text = decimal(r.into());
                text.push('.');
                push_decimal(&mut text, s.into());
                text
            }
        }
    }
}

/// `n` in decimal, a tag's value (every game has a few: no formatter).
pub(super) fn decimal(n: u32) -> String {
    let mut text = String::with_capacity(10);
    push_decimal(&mut text, n);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_results_and_eco() {
        // 2016-07-14
        let d = date(2016 << 9 | 7 << 5 | 14);
        assert_eq!((d.year, d.month, d.day), (Some(2016), Some(7), Some(14)));
        assert!(date(0).is_unknown());
        assert_eq!(date(1999 << 9).month, None);
        assert_eq!(result(2), GameResult::WhiteWins);
        assert_eq!(result(4), GameResult::BlackWins);
        assert_eq!(result(3), GameResult::Unknown);
        // B90 is code 191; a subcode is not shown.
        assert_eq!(eco_text(191 << 7 | 5).as_deref(), Some("B90"));
        assert_eq!(eco_text(0), None);
        assert_eq!(eco_text(501 << 7), None);
        assert_eq!(
            crate::store::eco_text(scid_eco(121 << 7)).as_deref(),
            Some("B20")
        );
        assert_eq!(Entry::round_text(5, 2), "5.2");
        assert_eq!(Entry::round_text(0, 0), "?");
    }

    #[test]
    fn a_game_record() {
        let mut r = [0u8; RECORD_LEN];
        r[0] = 0x81;
        r[1..5].copy_from_slice(&0x1234u32.to_be_bytes());
        r[9..12].copy_from_slice(&[0, 0, 7]);
        r[12..15].copy_from_slice(&[0, 1, 0]);
        r[27] = 1;
        r[29] = 3;
        r[31..33].copy_from_slice(&2700u16.to_be_bytes());
        r[39..43].copy_from_slice(&(1u32 << 2).to_be_bytes());
        let e = Entry::read(&r);
        assert!(e.deleted && !e.text);
        assert_eq!((e.moves_at, e.white, e.black), (0x1234, 7, 256));
        assert_eq!((e.result, e.round, e.white_elo), (1, 3, 2700));
        assert_eq!(e.flags, 4);
        let mut header = [0u8; RECORD_LEN];
        header[4] = 46;
        let mut file = header.to_vec();
        file.extend(r);
        file.push(0);
        assert_eq!(record_count(&file, file.len() as u64).unwrap(), 1);
        header[4] = 40;
        assert!(record_count(&header, RECORD_LEN as u64).is_err());
        assert!(record_count(&header[..10], 10).is_err());
    }
}
