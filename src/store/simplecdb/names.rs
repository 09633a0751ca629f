//! The name files (.dcn players, .dcs sites, .dce events): a 10-byte magic, then 36-byte
//! UTF-8 records right-padded with spaces. Index entries refer to a record by its absolute
//! byte offset (10, 46, 82, …); 0 means "no name".
//!
//! Reading tolerates what real files hold: duplicate records (a name is then known by its
//! first offset), records cut inside a UTF-8 sequence (the pgn2dcg writer cuts at 36 bytes;
//! the broken tail is dropped and logged) and a partial record at the end (ignored).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use crate::store::charset::text_from_bytes;
use crate::store::damage::{UNKNOWN_NAME, UNKNOWN_NAME_TEXT};

/// Bytes in one name record.
pub(crate) const RECORD_LEN: usize = 36;
/// Offset of the first record (just after the magic).
pub(crate) const FIRST: u32 = 10;

/// What parsing a name file tolerated: what the reference writer itself leaves (names cut
/// inside a UTF-8 sequence, names stored twice), and damage (a cut file), if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Notes {
    /// What real files hold and readers accept, for the log.
    pub tolerated: Vec<String>,
    /// The file is cut short: the bytes after its last whole record are ignored.
    pub damage: Option<String>,
}

/// One name file, parsed.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameFile {
    /// The text of each record, in file order.
    texts: Vec<Arc<str>>,
    /// For each record, the offset of the first record with the same text.
    canonical: Vec<u32>,
    /// The first offset of each distinct record's bytes.
    by_bytes: HashMap<[u8; RECORD_LEN], u32>,
}

/// The record bytes for `name`: its first 36 bytes (as pgn2dcg cuts, possibly inside a UTF-8
/// sequence), right-padded with spaces.
pub(crate) fn record(name: &str) -> [u8; RECORD_LEN] {
    let mut r = [b' '; RECORD_LEN];
    let b = name.as_bytes();
    let n = b.len().min(RECORD_LEN);
    r[..n].copy_from_slice(&b[..n]);
    r
}

/// The text of a record: the padding removed, a UTF-8 sequence cut by the 36-byte limit
/// dropped, other invalid bytes read as Latin-1. The flag says whether bytes were dropped.
pub(crate) fn record_text(r: &[u8]) -> (String, bool) {
    let mut end = r.len();
    while end > 0 && r[end - 1] == b' ' {
        end -= 1;
    }
    let mut bytes = &r[..end];
    let mut cut = false;
    if let Err(e) = std::str::from_utf8(bytes)
        && e.error_len().is_none()
    {
        bytes = &bytes[..e.valid_up_to()];
        cut = true;
    }
    (text_from_bytes(bytes), cut)
}

/// Qt's QString order (by UTF-16 code units), the order pgn2dcg writes one run's names in.
pub(crate) fn qt_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

impl NameFile {
    /// Parse a name file's bytes after checking its `magic`. An empty file counts as one
    /// without names (pgn2dcg leaves empty files behind when it aborts). Returns the file and
    /// what was tolerated ([`Notes`]).
    pub(crate) fn parse(bytes: &[u8], magic: &[u8; 10]) -> Result<(NameFile, Notes), String> {
        let mut notes = Notes::default();
        if bytes.len() < magic.len() && magic.starts_with(bytes) {
            if !bytes.is_empty() {
                notes.damage = Some(format!(
                    "the file is cut short inside its magic ({} of 10 bytes): it holds no name",
                    bytes.len()
                ));
            }
            return Ok((NameFile::default(), notes));
        }
        if !bytes.starts_with(magic) {
            return Err(format!(
                "not a Simple Chess Database name file (no {} magic)",
                String::from_utf8_lossy(magic)
            ));
        }
        let body = &bytes[10..];
        if !body.len().is_multiple_of(RECORD_LEN) {
            notes.damage = Some(format!(
                "{} bytes after the last whole record are ignored (an interrupted write, or a cut \
                 file)",
                body.len() % RECORD_LEN
            ));
        }
        let mut file = NameFile::default();
        let mut by_text: HashMap<Arc<str>, u32> = HashMap::new();
        let mut duplicates = 0;
        for (i, chunk) in body.chunks_exact(RECORD_LEN).enumerate() {
            let offset = FIRST + (i * RECORD_LEN) as u32;
            let (text, cut) = record_text(chunk);
            if cut {
                notes.tolerated.push(format!(
                    "the name at offset {offset} ends inside a UTF-8 sequence (cut at 36 bytes); \
                     read as {text:?}"
                ));
            }
            let text: Arc<str> = Arc::from(text);
            let first = *by_text.entry(text.clone()).or_insert(offset);
            if first != offset {
                duplicates += 1;
            }
            file.texts.push(text);
            file.canonical.push(first);
            file.by_bytes
                .entry(chunk.try_into().expect("36 bytes"))
                .or_insert(offset);
        }
        if duplicates > 0 {
            notes.tolerated.push(format!(
                "{duplicates} names are stored more than once; each is known by its first record"
            ));
        }
        Ok((file, notes))
    }

    /// Number of whole records.
    pub(crate) fn count(&self) -> u32 {
        self.texts.len() as u32
    }

    /// The offset just after the last whole record: where the next record goes.
    pub(crate) fn end(&self) -> u64 {
        u64::from(FIRST) + (self.texts.len() * RECORD_LEN) as u64
    }

    fn index_of(offset: u32) -> Option<usize> {
        let rel = offset.checked_sub(FIRST)? as usize;
        rel.is_multiple_of(RECORD_LEN).then_some(rel / RECORD_LEN)
    }

    /// True when `offset` is 0 or the start of a record.
    pub(crate) fn is_valid_ref(&self, offset: u32) -> bool {
        offset == 0 || Self::index_of(offset).is_some_and(|i| i < self.texts.len())
    }

    /// The ID a reference is shown under: the first offset with the same text; 0 for none,
    /// [`UNKNOWN_NAME`] for a reference that hits no record.
    pub(crate) fn canonical(&self, offset: u32) -> u32 {
        if offset == 0 {
            return 0;
        }
        Self::index_of(offset)
            .and_then(|i| self.canonical.get(i).copied())
            .unwrap_or(UNKNOWN_NAME)
    }

    /// The text of the record at `offset`: empty for 0 (no name), `?` for a reference that
    /// hits no record (damage; the reference tools read it as empty).
    pub(crate) fn text(&self, offset: u32) -> Arc<str> {
        if offset == 0 {
            return Arc::from("");
        }
        Self::index_of(offset)
            .and_then(|i| self.texts.get(i).cloned())
            .unwrap_or_else(|| Arc::from(UNKNOWN_NAME_TEXT))
    }

    /// The first record with exactly these bytes.
    pub(crate) fn find(&self, record: &[u8; RECORD_LEN]) -> Option<u32> {
        self.by_bytes.get(record).copied()
    }

    /// Forget the records from the `count`th on (those a failed save added), so the file in
    /// memory is again what it was.
    pub(crate) fn truncate(&mut self, count: u32) {
        let count = count as usize;
        if count >= self.texts.len() {
            return;
        }
        self.texts.truncate(count);
        self.canonical.truncate(count);
        let end = self.end();
        self.by_bytes.retain(|_, offset| u64::from(*offset) < end);
    }

    /// Add a record (after writing it to the file); returns its offset.
    pub(crate) fn push(&mut self, record: &[u8; RECORD_LEN]) -> u32 {
        let offset = self.end() as u32;
        let (text, _) = record_text(record);
        let text: Arc<str> = Arc::from(text);
        let first = self
            .texts
            .iter()
            .position(|t| *t == text)
            .map_or(offset, |i| FIRST + (i * RECORD_LEN) as u32);
        self.texts.push(text);
        self.canonical.push(first);
        self.by_bytes.entry(*record).or_insert(offset);
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(names: &[&[u8]]) -> Vec<u8> {
        let mut b = b"SimpleCDbn".to_vec();
        for n in names {
            let mut r = [b' '; 36];
            r[..n.len()].copy_from_slice(n);
            b.extend(r);
        }
        b
    }

    #[test]
    fn offsets_duplicates_and_cut_names() {
        let cut = format!("a{}", "é".repeat(18));
        let mut bytes = file(&[b"A", b"B", b"A", &cut.as_bytes()[..36]]);
        bytes.extend(b"xx");
        let (f, notes) = NameFile::parse(&bytes, b"SimpleCDbn").unwrap();
        assert_eq!(f.count(), 4);
        assert_eq!(&*f.text(10), "A");
        assert_eq!(&*f.text(46), "B");
        assert_eq!(f.canonical(82), 10);
        assert_eq!(&*f.text(0), "");
        assert_eq!(&*f.text(11), "?", "a ref inside a record hits nothing");
        assert_eq!(&*f.text(10_000), "?");
        assert_eq!(f.canonical(11), UNKNOWN_NAME);
        assert_eq!(f.canonical(0), 0);
        assert!(!f.is_valid_ref(11));
        assert_eq!(*f.text(118), format!("a{}", "é".repeat(17)));
        assert_eq!(notes.tolerated.len(), 2, "{notes:?}");
        assert!(
            notes
                .damage
                .unwrap()
                .starts_with("2 bytes after the last whole record")
        );
        assert_eq!(f.end(), 10 + 4 * 36);
        assert_eq!(f.find(&record("B")), Some(46));
    }

    #[test]
    fn truncating_forgets_added_records() {
        let (mut f, _) = NameFile::parse(&file(&[b"A"]), b"SimpleCDbn").unwrap();
        let added = f.push(&record("New"));
        assert_eq!(f.find(&record("New")), Some(added));
        f.truncate(1);
        assert_eq!((f.count(), f.find(&record("New"))), (1, None));
        assert_eq!(f.find(&record("A")), Some(10));
        assert_eq!(f.push(&record("New")), added, "the offset is free again");
    }

    #[test]
    fn qt_order_is_utf16() {
        assert_eq!(qt_order("a", "b"), Ordering::Less);
        // U+FFFD sorts after U+10000 by code point but before it in UTF-16.
        assert_eq!(qt_order("\u{10000}", "\u{FFFD}"), Ordering::Less);
        assert_eq!("\u{10000}".cmp("\u{FFFD}"), Ordering::Greater);
    }

    #[test]
    fn bad_magic_and_empty_file() {
        assert!(NameFile::parse(b"SimpleCDbX", b"SimpleCDbn").is_err());
        assert!(NameFile::parse(b"Scid", b"SimpleCDbn").is_err());
        assert_eq!(NameFile::parse(b"", b"SimpleCDbn").unwrap().0.count(), 0);
        let (cut, notes) = NameFile::parse(b"Simple", b"SimpleCDbn").unwrap();
        assert_eq!(cut.count(), 0);
        assert!(notes.damage.unwrap().contains("cut short inside its magic"));
    }
}
