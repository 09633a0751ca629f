//! The .sn5 name file: append-only records, each a varint (length × 8 + type) and the name's
//! bytes (SCID 5's `read_nbfile`/`append_nbfile`). Types 0-3 are the player, event, site and
//! round names (an ID is the order of appearance within its type); type 4 is database
//! information (`type`, `description`, `autoload`, `flag1`..`flag6` followed by the value; a
//! later record for the same field wins).

use crate::store::NameKind;
use crate::store::scid::names::NameFile;

/// The record type of database information.
pub const INFO: u8 = 4;

/// What an .sn5 file holds.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// The four dictionaries, IDs in order of appearance.
    pub names: NameFile,
    /// The database-information records, in file order (field name and value together).
    pub info: Vec<Vec<u8>>,
}

impl Names {
    /// The value of database-information field `field` (`description`, `type`, `autoload`,
    /// `flag1`..): the last record for it.
    pub fn info(&self, field: &str) -> Option<&[u8]> {
        self.info
            .iter()
            .rev()
            .find_map(|r| r.strip_prefix(field.as_bytes()))
    }
}

/// Read an .sn5 file's bytes, keeping every name before anything wrong: returns the names and
/// what is wrong, one message each (SCID 5 refuses the file then: a record of an unknown type,
/// or cut short).
pub fn parse(bytes: &[u8]) -> (Names, Vec<String>) {
    let mut out = Names::default();
    for record in records(bytes) {
        match record {
            Ok((kind, name)) => match NameKind::ALL.get(usize::from(kind)) {
                Some(&k) => {
                    out.names.section_mut(k).push(name);
                }
                None => out.info.push(name.to_vec()),
            },
            Err(damage) => return (out, vec![damage]),
        }
    }
    (out, Vec::new())
}

/// The records of an .sn5 file's bytes in file order: each name's type (0-3 a [`NameKind`],
/// [`INFO`]) and bytes, up to the first damage (a record cut short or of an unknown type),
/// which ends the iteration with its message.
pub fn records(bytes: &[u8]) -> impl Iterator<Item = Result<(u8, &[u8]), String>> {
    let mut at = 0;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || at >= bytes.len() {
            return None;
        }
        let start = at;
        let record = read_record(bytes, &mut at);
        failed = record.is_err();
        Some(record.map_err(|why| {
            format!("{why} at byte {start}: it and any name after it are lost (shown as ?)")
        }))
    })
}

/// How many bytes from the start of an .sn5 file's `bytes` are whole records of known types:
/// all of them when nothing is wrong, else the byte where the first damage starts.
pub fn whole_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while at < bytes.len() && read_record(bytes, &mut at).is_ok() {}
    at
}

/// The record at `*at` of `bytes`, moving `*at` past it.
fn read_record<'a>(bytes: &'a [u8], at: &mut usize) -> Result<(u8, &'a [u8]), String> {
    let (value, len) = varint(&bytes[*at..]).ok_or("a name's length is cut short")?;
    let kind = (value & 7) as u8;
    let size = value >> 3;
    let start = *at + len;
    let name = usize::try_from(size)
        .ok()
        .and_then(|size| bytes.get(start..start.checked_add(size)?))
        .ok_or_else(|| {
            format!(
                "a name of {size} bytes runs past the end of the file ({} bytes)",
                bytes.len()
            )
        })?;
    if kind > INFO {
        return Err(format!(
            "a record of type {kind}, which SCID 5 does not know,"
        ));
    }
    *at = start + name.len();
    Ok((kind, name))
}

/// A LEB128 varint at the start of `bytes` and how many bytes it took; `None` when cut short
/// or longer than 64 bits.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 127) << (7 * i);
        if b < 128 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Append the record of `name` of type `kind` (0-3 a [`NameKind`], 4 [`INFO`]) to `out`, as
/// SCID 5 appends it to the file.
pub fn append_record(out: &mut Vec<u8>, kind: u8, name: &[u8]) {
    let mut value = (name.len() as u64) << 3 | u64::from(kind & 7);
    while value >= 128 {
        out.push(value as u8 | 128);
        value >>= 7;
    }
    out.push(value as u8);
    out.extend_from_slice(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_ids_count_per_type() {
        let mut bytes = Vec::new();
        append_record(&mut bytes, 1, b"len127");
        append_record(&mut bytes, 0, b"A");
        append_record(&mut bytes, 0, &[b'x'; 300]);
        append_record(&mut bytes, INFO, b"descriptionMy games");
        append_record(&mut bytes, 3, b"");
        assert_eq!(&bytes[..7], b"1len127");
        assert_eq!(bytes[9..11], [0xE0, 0x12], "300 × 8 as a varint");
        let (n, damage) = parse(&bytes);
        assert!(damage.is_empty(), "{damage:?}");
        assert_eq!(n.names.count(NameKind::Player), 2);
        assert_eq!(n.names.text(NameKind::Player, 1).len(), 300);
        assert_eq!(n.names.text(NameKind::Event, 0), "len127");
        assert_eq!(n.names.text(NameKind::Round, 0), "");
        assert_eq!(n.info("description"), Some(&b"My games"[..]));
    }

    #[test]
    fn damage_keeps_the_names_before_it() {
        let mut bytes = Vec::new();
        append_record(&mut bytes, 0, b"A");
        append_record(&mut bytes, 0, b"Bee");
        let (n, damage) = parse(&bytes[..bytes.len() - 1]);
        assert_eq!(n.names.count(NameKind::Player), 1);
        assert!(damage[0].contains("runs past the end"), "{damage:?}");
        let (n, damage) = parse(&[2 << 3 | 5, b'x', b'y']);
        assert_eq!(n.names.count(NameKind::Player), 0);
        assert!(damage[0].contains("type 5"), "{damage:?}");
        assert!(!parse(&[0x80]).1.is_empty());
        assert!(parse(&[]).1.is_empty(), "a new database's empty name file");
        assert_eq!(whole_len(&bytes), bytes.len());
        assert_eq!(
            whole_len(&bytes[..bytes.len() - 1]),
            2,
            "the second record cut short"
        );
        assert_eq!(whole_len(&[0, 2 << 3 | 5, b'x', b'y']), 1);
    }
}
