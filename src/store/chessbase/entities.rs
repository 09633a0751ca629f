//! The entity files: players (.cbp), tournaments (.cbt), annotators (.cbc), sources (.cbs).
//! Each is a header (28 bytes, plus the number at offset 24) and fixed-size records, each
//! 9 bytes of search-tree links and the entity's fields; games name them by record number.
//! Integers are little-endian; text is Windows-1252, cut at the first zero byte.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::game::PartialDate;
use crate::store::charset::windows_1252;

/// The bytes of each record before the entity's fields.
const LINKS: usize = 9;

/// A little-endian number.
fn le(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .rev()
        .fold(0, |acc, &b| acc << 8 | u32::from(b))
}

/// The text of `bytes` up to the first zero byte, spaces at the ends dropped.
fn field(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    windows_1252(&bytes[..end]).trim().to_owned()
}

/// The records of an entity file: each one's fields (after the links), in number order.
/// `min_len` is the shortest record that holds the fields gamefs reads; `file` names the file
/// in errors.
pub(super) fn records<'a>(bytes: &'a [u8], min_len: usize, file: &str) -> Result<Vec<&'a [u8]>> {
    let bad = |what: String| Error::corrupt_database(format!("{file}: {what}"));
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let header = bytes
        .get(..28)
        .ok_or_else(|| bad(format!("{} bytes, less than its header", bytes.len())))?;
    let len = le(&header[12..16]) as usize;
    let start = 28 + le(&header[24..28]) as usize;
    if len < min_len || len > 1 << 16 {
        return Err(bad(format!("records of {len} bytes")));
    }
    let whole = LINKS + len;
    let body = bytes.get(start..).unwrap_or_default();
    Ok(body.chunks_exact(whole).map(|r| &r[LINKS..]).collect())
}

/// The names of the players: `Last, First`, or the last name alone.
pub(super) fn players(bytes: &[u8]) -> Result<Vec<Arc<str>>> {
    Ok(records(bytes, 50, ".cbp")?
        .into_iter()
        .map(|r| {
            let (last, first) = (field(&r[..30]), field(&r[30..50]));
            Arc::from(if first.is_empty() {
                last
            } else {
                format!("{last}, {first}")
            })
        })
        .collect())
}

/// A tournament: its title (the Event tag), place (Site) and start date (EventDate).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Tournament {
    /// The title.
    pub title: String,
    /// The place.
    pub place: String,
    /// The start date.
    pub date: PartialDate,
}

/// The tournaments.
pub(super) fn tournaments(bytes: &[u8]) -> Result<Vec<Tournament>> {
    Ok(records(bytes, 74, ".cbt")?
        .into_iter()
        .map(|r| Tournament {
            title: field(&r[..40]),
            place: field(&r[40..70]),
            date: super::headers::date(le(&r[70..74])),
        })
        .collect())
}

/// The names of the annotators (.cbc) or of the sources (.cbs): the text of the first
/// `width` bytes of each record.
pub(super) fn names(bytes: &[u8], width: usize, file: &str) -> Result<Vec<Arc<str>>> {
    Ok(records(bytes, width, file)?
        .into_iter()
        .map(|r| Arc::from(field(&r[..width])))
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
        let names = players(&file(58, &[a, b])).unwrap();
        assert_eq!(&*names[0], "Carlsen, Magnus");
        assert_eq!(&*names[1], "Réti");
    }

    #[test]
    fn tournaments_and_bad_headers() {
        let mut t = b"Tata Steel".to_vec();
        t.resize(40, 0);
        t.extend(b"Wijk aan Zee");
        t.resize(70, 0);
        t.extend((2024u32 << 9 | 1 << 5 | 12).to_le_bytes());
        let ts = tournaments(&file(90, &[t])).unwrap();
        assert_eq!(ts[0].title, "Tata Steel");
        assert_eq!(ts[0].place, "Wijk aan Zee");
        assert_eq!(ts[0].date.year, Some(2024));
        assert!(tournaments(&file(10, &[])).is_err());
        assert!(players(&[0; 5]).is_err());
        assert!(players(&[]).unwrap().is_empty());
    }
}
