//! The two binary record formats (docs/formats/go9x9.md §3).
//!
//! Position record, 92 bytes, or 100 with PositionExtraInfo:
//! `[0..8)` hash, `[8]` tiebreak, `[9]` `B`/`W`, `[10..91)` 81 × `#`/`O`/`.` row-major from
//! the top-left, `[91]` flag 0/1; when 1, `[92..96)` source file id, `[96..98)` variation,
//! `[98..100)` move number (big-endian). Score record, 12 bytes: PositionID (10) + score +
//! confidence. No headers: a file is its records back to back. The hash bytes are kept raw
//! here; the database decides their byte order.

use crate::error::{Error, ErrorKind, Result};
use crate::game::go::{Board, Color, ExtraInfo, POINTS};

/// Bytes of a position record without extra info.
pub const POSITION_RECORD: usize = 92;
/// Bytes of a position record with extra info.
pub const POSITION_RECORD_EXTRA: usize = 100;
/// Bytes of a score record.
pub const SCORE_RECORD: usize = 12;
/// Lowest on-board score a scoring program writes ("3 or less").
pub const MIN_SCORE: u8 = 3;
/// Highest on-board score ("8 or more").
pub const MAX_SCORE: u8 = 8;
/// Highest confidence.
pub const MAX_CONFIDENCE: u8 = 100;

/// The 10-byte PositionID as stored: raw hash bytes, tiebreak, player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RawId {
    /// The 8 hash bytes in file order.
    pub hash: [u8; 8],
    /// Tiebreak byte.
    pub tiebreak: u8,
    /// Player to move.
    pub to_play: Color,
}

impl RawId {
    /// The 10 bytes on disk.
    pub fn bytes(&self) -> [u8; 10] {
        let mut b = [0u8; 10];
        b[..8].copy_from_slice(&self.hash);
        b[8] = self.tiebreak;
        b[9] = self.to_play.letter() as u8;
        b
    }
}

/// One decoded position record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionRecord {
    /// Its PositionID bytes.
    pub id: RawId,
    /// The stones.
    pub board: Board,
    /// The extra-info block of a 100-byte record.
    pub extra: Option<ExtraInfo>,
    /// Byte offset of the record in its file.
    pub offset: u64,
    /// Its number in the file (1-based).
    pub number: usize,
}

/// One decoded score record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRecord {
    /// The PositionID it scores.
    pub id: RawId,
    /// On-board score, 3..=8.
    pub score: u8,
    /// Confidence, 0..=100.
    pub confidence: u8,
}

fn to_play(byte: u8) -> Option<Color> {
    match byte {
        b'B' => Some(Color::Black),
        b'W' => Some(Color::White),
        _ => None,
    }
}

fn show(byte: u8) -> String {
    if byte.is_ascii_graphic() {
        format!("{:?}", byte as char)
    } else {
        format!("0x{byte:02x}")
    }
}

/// A record that cannot be read: where it is and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedRecord {
    /// Its number in the file (1-based).
    pub number: usize,
    /// Its first byte.
    pub offset: u64,
    /// What is wrong with it.
    pub reason: String,
}

impl DamagedRecord {
    fn new(number: usize, offset: usize, reason: String) -> DamagedRecord {
        DamagedRecord {
            number,
            offset: offset as u64,
            reason,
        }
    }

    /// The problem as one line, naming the file (`name`), the record and the byte.
    pub fn describe(&self, name: &str) -> String {
        format!(
            "{name}: record {} at byte {}: {}",
            self.number, self.offset, self.reason
        )
    }

    /// The problem as an error about the file `name` (the whole file is refused).
    pub fn error(&self, name: &str) -> Error {
        Error::new(ErrorKind::CorruptDatabase, self.describe(name))
    }
}

/// Decode a whole position file; `name` is used in messages. Refuses (naming the record and
/// byte) the first record [`read_positions`] finds damaged.
pub fn decode_positions(bytes: &[u8], name: &str) -> Result<Vec<PositionRecord>> {
    let (records, damaged) = read_positions(bytes);
    match damaged.first() {
        Some(d) => Err(d.error(name)),
        None => Ok(records),
    }
}

/// Decode a position file, keeping every record that can be read and listing the others: a
/// flag other than 0/1 (the record is taken as 92 bytes), a player other than `B`/`W`, a board
/// byte other than `#`/`O`/`.`, and a last record the file ends inside.
pub fn read_positions(bytes: &[u8]) -> (Vec<PositionRecord>, Vec<DamagedRecord>) {
    let mut out = Vec::with_capacity(bytes.len() / POSITION_RECORD);
    let mut damaged = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let n = out.len() + damaged.len() + 1;
        let rest = &bytes[at..];
        if rest.len() < POSITION_RECORD {
            damaged.push(DamagedRecord::new(
                n,
                at,
                format!(
                    "{} bytes at the end (from byte {at}) are not a whole position record (92 \
                     bytes, or 100 with extra info): the file is cut short or not a position file",
                    rest.len()
                ),
            ));
            break;
        }
        let (len, record) = position_at(rest, at, n);
        match record {
            Ok(r) => out.push(r),
            Err(reason) => damaged.push(DamagedRecord::new(n, at, reason)),
        }
        match len {
            Some(len) => at += len,
            None => break,
        }
    }
    (out, damaged)
}

/// The position record at the start of `rest` (record `number`, at byte `at` of its file),
/// at least 92 bytes:
/// its length (None when the file ends inside it) and the record, or why it is damaged.
fn position_at(
    rest: &[u8],
    at: usize,
    number: usize,
) -> (Option<usize>, Result<PositionRecord, String>) {
    let (len, extra) = match rest[91] {
        0 => (Some(POSITION_RECORD), Ok(None)),
        1 if rest.len() < POSITION_RECORD_EXTRA => (
            None,
            Err(format!(
                "flag 1 announces 8 bytes of extra info, but the file ends after {}",
                rest.len() - POSITION_RECORD
            )),
        ),
        1 => {
            let x = &rest[92..100];
            (
                Some(POSITION_RECORD_EXTRA),
                Ok(Some(ExtraInfo {
                    source_file: u32::from_be_bytes(x[..4].try_into().expect("4")),
                    variation: u16::from_be_bytes([x[4], x[5]]),
                    move_number: u16::from_be_bytes([x[6], x[7]]),
                })),
            )
        }
        f => (
            Some(POSITION_RECORD),
            Err(format!(
                "flag byte (byte 92) is {}, expected 0 or 1 (taken as a 92-byte record)",
                show(f)
            )),
        ),
    };
    let record = (|| {
        let to_play = to_play(rest[9])
            .ok_or_else(|| format!("player byte is {}, expected 'B' or 'W'", show(rest[9])))?;
        let cells: &[u8; POINTS] = rest[10..91].try_into().expect("81 bytes");
        let board = Board::from_ascii(cells).map_err(|e| {
            format!(
                "board byte {} (row {}, column {}) is {}, expected '#', 'O' or '.'",
                e.index + 1,
                e.index / 9 + 1,
                e.index % 9 + 1,
                show(e.byte)
            )
        })?;
        Ok(PositionRecord {
            id: RawId {
                hash: rest[..8].try_into().expect("8 bytes"),
                tiebreak: rest[8],
                to_play,
            },
            board,
            extra: extra?,
            offset: at as u64,
            number,
        })
    })();
    (len, record)
}

/// The bytes of one position record (92, or 100 with extra info).
pub fn encode_position(id: &RawId, board: &Board, extra: Option<&ExtraInfo>) -> Vec<u8> {
    let mut out = Vec::with_capacity(POSITION_RECORD_EXTRA);
    out.extend_from_slice(&id.bytes());
    out.extend_from_slice(&board.to_ascii());
    match extra {
        None => out.push(0),
        Some(x) => {
            out.push(1);
            out.extend_from_slice(&x.source_file.to_be_bytes());
            out.extend_from_slice(&x.variation.to_be_bytes());
            out.extend_from_slice(&x.move_number.to_be_bytes());
        }
    }
    out
}

/// True when `bytes` (a file's beginning) looks like a position record: a `B`/`W` player
/// byte and at least 72 of the 81 board bytes `#`/`O`/`.` (so that a damaged record is still
/// recognised, and then refused with a precise message). A score file's first 92 bytes
/// (hashes, scores) practically never look like that. Used to tell position files from
/// scored files.
pub fn looks_like_positions(bytes: &[u8]) -> bool {
    bytes.len() >= POSITION_RECORD
        && to_play(bytes[9]).is_some()
        && bytes[10..91]
            .iter()
            .filter(|b| matches!(b, b'#' | b'O' | b'.'))
            .count()
            >= 72
}

/// Decode a whole scored-position file; `name` is used in messages. Returns the records and
/// whether the file stores confidence before score. Refuses the first record
/// [`read_scores`] finds damaged.
pub fn decode_scores(bytes: &[u8], name: &str) -> Result<(Vec<ScoreRecord>, bool)> {
    let (records, swapped, damaged) = read_scores(bytes);
    match damaged.first() {
        Some(d) => Err(d.error(name)),
        None => Ok((records, swapped)),
    }
}

/// Decode a scored-position file, keeping every record that can be read and listing the
/// others (a score or confidence out of range, a bad player byte, a cut last record). The
/// flag says whether the file stores confidence before score: detected per file, when more
/// records fit that way (spec §3).
pub fn read_scores(bytes: &[u8]) -> (Vec<ScoreRecord>, bool, Vec<DamagedRecord>) {
    let fits = |s: u8, c: u8| (MIN_SCORE..=MAX_SCORE).contains(&s) && c <= MAX_CONFIDENCE;
    let chunks = || bytes.chunks_exact(SCORE_RECORD);
    let straight = chunks().filter(|r| fits(r[10], r[11])).count();
    let swapped = chunks().filter(|r| fits(r[11], r[10])).count() > straight;
    let mut out = Vec::with_capacity(bytes.len() / SCORE_RECORD);
    let mut damaged = Vec::new();
    for (i, r) in chunks().enumerate() {
        let (score, confidence) = if swapped {
            (r[11], r[10])
        } else {
            (r[10], r[11])
        };
        let at = i * SCORE_RECORD;
        if !fits(score, confidence) {
            damaged.push(DamagedRecord::new(
                i + 1,
                at,
                format!(
                    "score {score} (3..8 expected) and confidence {confidence} (0..100 expected) \
                     do not fit a score record"
                ),
            ));
            continue;
        }
        let Some(to_play) = to_play(r[9]) else {
            damaged.push(DamagedRecord::new(
                i + 1,
                at,
                format!("player byte is {}, expected 'B' or 'W'", show(r[9])),
            ));
            continue;
        };
        out.push(ScoreRecord {
            id: RawId {
                hash: r[..8].try_into().expect("8 bytes"),
                tiebreak: r[8],
                to_play,
            },
            score,
            confidence,
        });
    }
    let tail = bytes.len() % SCORE_RECORD;
    if tail != 0 {
        let at = bytes.len() - tail;
        damaged.push(DamagedRecord::new(
            at / SCORE_RECORD + 1,
            at,
            format!(
                "{} bytes is not a whole number of 12-byte score records ({tail} left over): cut \
                 short, or not a scored-position file",
                bytes.len()
            ),
        ));
    }
    (out, swapped, damaged)
}

/// The 12 bytes of a score record (score before confidence).
pub fn encode_score(record: &ScoreRecord) -> [u8; SCORE_RECORD] {
    let mut out = [0u8; SCORE_RECORD];
    out[..10].copy_from_slice(&record.id.bytes());
    out[10] = record.score;
    out[11] = record.confidence;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> RawId {
        RawId {
            hash: [1, 2, 3, 4, 5, 6, 7, 8],
            tiebreak: 0,
            to_play: Color::White,
        }
    }

    #[test]
    fn position_records_round_trip() {
        let mut board = Board::empty();
        board.set(
            crate::game::go::Point::new(3, 3).unwrap(),
            Some(Color::Black),
        );
        let a = encode_position(&id(), &board, None);
        assert_eq!(a.len(), 92);
        assert_eq!(&a[..10], b"\x01\x02\x03\x04\x05\x06\x07\x08\x00W");
        assert_eq!(a[10 + 30], b'#');
        let x = ExtraInfo {
            source_file: 7,
            variation: 2,
            move_number: 300,
        };
        let b = encode_position(&id(), &board, Some(&x));
        assert_eq!(b.len(), 100);
        assert_eq!(&b[91..], &[1, 0, 0, 0, 7, 0, 2, 1, 44]);
        let file = [a.clone(), b, a].concat();
        let recs = decode_positions(&file, "p").unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].extra, Some(x));
        assert_eq!(recs[2].offset, 192);
        assert!(looks_like_positions(&file));
    }

    #[test]
    fn malformed_position_files_say_where() {
        let a = encode_position(&id(), &Board::empty(), None);
        let e = decode_positions(&[a.clone(), a[..50].to_vec()].concat(), "p").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CorruptDatabase);
        assert!(
            e.to_string().contains("50 bytes at the end (from byte 92)"),
            "{e}"
        );
        let mut b = a.clone();
        b[10 + 17] = b'x';
        let e = decode_positions(&[a.clone(), b].concat(), "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p: record 2 at byte 92: board byte 18 (row 2, column 9) is 'x', expected '#', 'O' or '.'"
        );
        let mut b = a.clone();
        b[9] = 0;
        assert!(
            decode_positions(&b, "p")
                .unwrap_err()
                .to_string()
                .contains("player byte is 0x00")
        );
        let mut b = a.clone();
        b[91] = 2;
        assert!(
            decode_positions(&b, "p")
                .unwrap_err()
                .to_string()
                .contains("flag byte")
        );
        let mut b = a.clone();
        b[91] = 1;
        assert!(
            decode_positions(&b, "p")
                .unwrap_err()
                .to_string()
                .contains("extra info")
        );
    }

    #[test]
    fn score_records_and_swapped_files() {
        let r = ScoreRecord {
            id: id(),
            score: 5,
            confidence: 87,
        };
        let bytes = encode_score(&r);
        assert_eq!(&bytes[10..], &[5, 87]);
        let (recs, swapped) = decode_scores(&bytes, "s").unwrap();
        assert_eq!((recs, swapped), (vec![r], false));
        let mut sw = bytes;
        sw.swap(10, 11);
        let (recs, swapped) = decode_scores(&sw, "s").unwrap();
        assert_eq!((recs, swapped), (vec![r], true));
        let e = decode_scores(&bytes[..11], "s").unwrap_err();
        assert!(e.to_string().contains("11 left over"), "{e}");
        let mut b = bytes;
        b[10] = 9;
        b[11] = 101;
        let e = decode_scores(&b, "s").unwrap_err();
        assert!(e.to_string().contains("record 1 at byte 0: score 9"), "{e}");
        let mut b = bytes;
        b[9] = b'x';
        assert!(decode_scores(&b, "s").is_err());
    }
}
