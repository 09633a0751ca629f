//! The .sn4 name file: four front-coded dictionaries of players, events, sites and rounds (spec §4).

use super::bytes::{Cursor, be24};
use crate::error::{Error, ErrorKind, Result};
use crate::store::NameKind;
use crate::store::charset::text_from_bytes;

/// The magic bytes that open every .sn4 file.
pub const NAMES_MAGIC: &[u8; 8] = b"Scid.sn\0";

/// One name dictionary: the stored bytes and their text, indexed by name ID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameSection {
    /// Stored bytes of each name, by ID.
    pub raw: Vec<Vec<u8>>,
    /// Text of each name, by ID (UTF-8, or Latin-1 for old databases).
    pub text: Vec<Box<str>>,
}

/// The four dictionaries of an .sn4 file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameFile {
    sections: [NameSection; 4],
}

impl NameFile {
    /// Parse an .sn4 file's bytes. Any inconsistency (truncation, an ID out of range or used
    /// twice) is an error: SCID itself refuses such a file.
    pub fn parse(bytes: &[u8]) -> Result<NameFile> {
        if bytes.len() < 8 || &bytes[..8] != NAMES_MAGIC {
            return Err(Error::new(
                ErrorKind::UnknownFormat,
                "not a SCID name file (bad magic)",
            ));
        }
        if bytes.len() < 36 {
            return Err(Error::corrupt_database(format!(
                "name file header is truncated: {} of 36 bytes",
                bytes.len()
            )));
        }
        let mut cursor = Cursor::new(bytes, "name file");
        cursor.take(36)?;
        let mut sections: [NameSection; 4] = Default::default();
        for (i, kind) in NameKind::ALL.iter().enumerate() {
            let count = be24(bytes, 12 + 3 * i) as usize;
            let max_freq = be24(bytes, 24 + 3 * i);
            sections[i] = parse_section(&mut cursor, *kind, count, max_freq)?;
        }
        Ok(NameFile { sections })
    }

    /// The dictionary of `kind`.
    pub fn section(&self, kind: NameKind) -> &NameSection {
        &self.sections[kind as usize]
    }

    /// Number of names in the `kind` dictionary.
    pub fn count(&self, kind: NameKind) -> u32 {
        self.section(kind).text.len() as u32
    }
}

fn parse_section(
    cursor: &mut Cursor<'_>,
    kind: NameKind,
    count: usize,
    max_freq: u32,
) -> Result<NameSection> {
    let id_width = if count >= 65536 { 3 } else { 2 };
    let freq_width = match max_freq {
        0..=255 => 1,
        256..=65535 => 2,
        _ => 3,
    };
    // Each record takes at least id + freq + length bytes: a count the file cannot hold is corrupt.
    let remaining = cursor_remaining(cursor);
    if count.saturating_mul(id_width + freq_width + 1) > remaining {
        return Err(Error::corrupt_database(format!(
            "name file claims {count} {kind:?} names but is too short to hold them"
        )));
    }
    let mut raw: Vec<Option<Vec<u8>>> = vec![None; count];
    let mut previous: Vec<u8> = Vec::new();
    for n in 0..count {
        let id = cursor.uint(id_width)? as usize;
        cursor.uint(freq_width)?;
        let length = usize::from(cursor.take(1)?[0]);
        let prefix = if n == 0 {
            0
        } else {
            usize::from(cursor.take(1)?[0])
        };
        if prefix > length || prefix > previous.len() {
            return Err(Error::corrupt_database(format!(
                "name file: {kind:?} name {n} shares {prefix} bytes with a shorter name"
            )));
        }
        let mut name = previous[..prefix].to_vec();
        name.extend_from_slice(cursor.take(length - prefix)?);
        let slot = raw.get_mut(id).ok_or_else(|| {
            Error::corrupt_database(format!(
                "name file: {kind:?} ID {id} is out of range (count {count})"
            ))
        })?;
        if slot.is_some() {
            return Err(Error::corrupt_database(format!(
                "name file: {kind:?} ID {id} is used twice"
            )));
        }
        *slot = Some(name.clone());
        previous = name;
    }
    let raw: Vec<Vec<u8>> = raw.into_iter().map(Option::unwrap_or_default).collect();
    let text = raw
        .iter()
        .map(|r| text_from_bytes(r).into_boxed_str())
        .collect();
    Ok(NameSection { raw, text })
}

fn cursor_remaining(cursor: &Cursor<'_>) -> usize {
    cursor.len().saturating_sub(cursor.position())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two players ("A" id 3 … ) as in spec §12's hand-decoded example, front coded.
    fn sample() -> Vec<u8> {
        let mut b = NAMES_MAGIC.to_vec();
        b.extend([0; 4]);
        b.extend([0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0]); // counts: 2 players, 1 event
        b.extend([0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]); // max frequencies
        b.extend([0, 1, 1, 1, b'A']); // id 1, freq 1, len 1, "A" (no prefix byte)
        b.extend([0, 0, 1, 5, 1, b'a', b'r', b'o', b'n']); // id 0, "Aaron" sharing 1 byte
        b.extend([0, 0, 1, 4, b'G', b'o', b'l', b'd']);
        b
    }

    #[test]
    fn front_coded_names_by_id() {
        let names = NameFile::parse(&sample()).unwrap();
        let players = names.section(NameKind::Player);
        assert_eq!(players.text.len(), 2);
        assert_eq!(&*players.text[0], "Aaron");
        assert_eq!(&*players.text[1], "A");
        assert_eq!(&*names.section(NameKind::Event).text[0], "Gold");
        assert_eq!(names.count(NameKind::Site), 0);
    }

    /// A name file with `n` players "p00000".."p{n-1}" (IDs reversed) and the given max frequency.
    fn wide(n: u32, max_freq: u32) -> Vec<u8> {
        let mut b = NAMES_MAGIC.to_vec();
        b.extend([0; 4]);
        b.extend(&n.to_be_bytes()[1..]);
        b.extend([0; 9]);
        b.extend(&max_freq.to_be_bytes()[1..]);
        b.extend([0; 9]);
        let id_width = if n >= 65536 { 3 } else { 2 };
        let freq_width = if max_freq < 256 {
            1
        } else if max_freq < 65536 {
            2
        } else {
            3
        };
        let mut prev = String::new();
        for i in 0..n {
            let name = format!("p{i:06}");
            let id = n - 1 - i;
            b.extend(&id.to_be_bytes()[4 - id_width..]);
            b.extend(&max_freq.to_be_bytes()[4 - freq_width..]);
            b.push(name.len() as u8);
            let prefix = name
                .bytes()
                .zip(prev.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            if i > 0 {
                b.push(prefix as u8);
            }
            b.extend(&name.as_bytes()[prefix..]);
            prev = name;
        }
        b
    }

    #[test]
    fn id_and_frequency_widths() {
        for (n, freq) in [
            (3, 255),
            (3, 256),
            (3, 70_000),
            (65_536, 1),
            (65_537, 65_536),
        ] {
            let names =
                NameFile::parse(&wide(n, freq)).unwrap_or_else(|e| panic!("{n} {freq}: {e}"));
            let players = names.section(NameKind::Player);
            assert_eq!(players.text.len() as u32, n);
            assert_eq!(&*players.text[0], format!("p{:06}", n - 1));
            assert_eq!(&*players.text[(n - 1) as usize], "p000000");
        }
    }

    #[test]
    fn latin1_names_become_utf8_text() {
        let mut b = NAMES_MAGIC.to_vec();
        b.extend([0; 4]);
        b.extend([0, 0, 1]);
        b.extend([0; 9]);
        b.extend([0, 0, 1]);
        b.extend([0; 9]);
        b.extend([0, 0, 1, 4, b'R', 0xE9, b't', b'i']);
        let names = NameFile::parse(&b).unwrap();
        assert_eq!(&*names.section(NameKind::Player).text[0], "Réti");
        assert_eq!(names.section(NameKind::Player).raw[0], b"R\xe9ti");
    }

    #[test]
    fn empty_database_name_file() {
        let mut b = NAMES_MAGIC.to_vec();
        b.extend([0; 28]);
        let names = NameFile::parse(&b).unwrap();
        assert_eq!(names.count(NameKind::Player), 0);
    }

    #[test]
    fn corrupt_files_are_errors() {
        let good = sample();
        for cut in 0..good.len() {
            assert!(NameFile::parse(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut dup = good.clone();
        dup[37] = 0; // first player's id 1 -> 0, duplicating id 0
        assert!(
            NameFile::parse(&dup)
                .unwrap_err()
                .to_string()
                .contains("used twice")
        );
        let mut out = good.clone();
        out[37] = 9;
        assert!(
            NameFile::parse(&out)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
    }
}
