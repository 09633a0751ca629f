//! The .sn4 name file: four front-coded dictionaries of players, events, sites and rounds
//! (docs/formats/scid4.md §4).

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::bytes::{Cursor, be24};
use crate::error::{Error, ErrorKind, Result};
use crate::store::NameKind;
use crate::store::charset::text_from_bytes;
use crate::store::damage::UNKNOWN_NAME_TEXT;

/// The magic bytes that open every .sn4 file.
pub const NAMES_MAGIC: &[u8; 8] = b"Scid.sn\0";

/// One name dictionary: the stored bytes and their text, indexed by name ID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameSection {
    /// Stored bytes of each name, by ID (empty for a lost name).
    pub raw: Vec<Vec<u8>>,
    /// Text of each name, by ID (UTF-8, or Latin-1 for old databases; `?` for a lost name).
    pub text: Vec<Arc<str>>,
    /// IDs whose name a damaged name file lost.
    lost: BTreeSet<u32>,
    /// How many names the file's header says the section holds (more than `raw` holds when
    /// the file is damaged).
    claimed: u32,
    /// Name bytes → ID, built the first time a name is looked up for writing.
    lookup: Option<HashMap<Vec<u8>, u32>>,
    /// IDs in SCID's sort order, built at the first save and kept up to date as names are
    /// added (sorting a million names on every save would dominate its time).
    order: std::sync::OnceLock<Vec<u32>>,
}

/// The largest ID each dictionary can hold (from the ID bit widths in the index, spec §4.4).
pub const MAX_NAMES: [u32; 4] = [(1 << 20) - 1, (1 << 19) - 1, (1 << 19) - 1, (1 << 18) - 1];

/// The longest name SCID stores, in bytes.
pub const MAX_NAME_LEN: usize = 255;

impl NameSection {
    /// True when `id` names a name the file holds (in range, and not lost to damage).
    pub fn is_known(&self, id: u32) -> bool {
        (id as usize) < self.raw.len() && !self.lost.contains(&id)
    }

    /// How many names the file's header says the section holds: IDs below it that are not
    /// [known](NameSection::is_known) were lost to damage, the others are out of range.
    pub fn claimed(&self) -> u32 {
        self.claimed.max(self.raw.len() as u32)
    }

    /// The ID of the name with exactly these bytes, if present.
    pub fn find(&mut self, name: &[u8]) -> Option<u32> {
        let raw = &self.raw;
        self.lookup
            .get_or_insert_with(|| {
                raw.iter()
                    .enumerate()
                    .map(|(i, r)| (r.clone(), i as u32))
                    .collect()
            })
            .get(name)
            .copied()
    }

    /// Add a new name (the caller checked it is not present); it gets the next ID, as in SCID.
    pub fn push(&mut self, name: &[u8]) -> u32 {
        let id = self.raw.len() as u32;
        self.raw.push(name.to_vec());
        self.text.push(Arc::from(text_from_bytes(name)));
        if let Some(lookup) = &mut self.lookup {
            lookup.insert(name.to_vec(), id);
        }
        if let Some(order) = self.order.get_mut() {
            let raw = &self.raw;
            let at =
                order.partition_point(|&other| scid_name_order(&raw[other as usize], name).is_lt());
            order.insert(at, id);
        }
        id
    }

    /// Forget the names with IDs from `len` on (those added by a save that failed), so the
    /// dictionary is again what the name file on disk holds.
    pub fn truncate(&mut self, len: u32) {
        let len = len as usize;
        if len >= self.raw.len() {
            return;
        }
        if let Some(lookup) = &mut self.lookup {
            for name in &self.raw[len..] {
                lookup.remove(name);
            }
        }
        if let Some(order) = self.order.get_mut() {
            order.retain(|&id| (id as usize) < len);
        }
        self.raw.truncate(len);
        self.text.truncate(len);
    }

    /// The IDs in SCID's sort order.
    pub fn sorted_ids(&self) -> &[u32] {
        self.order.get_or_init(|| {
            let mut order: Vec<u32> = (0..self.raw.len() as u32).collect();
            order.sort_by(|&a, &b| scid_name_order(&self.raw[a as usize], &self.raw[b as usize]));
            order
        })
    }
}

/// SCID's name order (spec §4.3): first bytes compared unsigned, the rest as signed chars
/// with C `strcmp` semantics (the terminating NUL counts as 0).
pub fn scid_name_order(a: &[u8], b: &[u8]) -> Ordering {
    let first = |s: &[u8]| s.first().copied().unwrap_or(0);
    match first(a).cmp(&first(b)) {
        Ordering::Equal => {}
        other => return other,
    }
    let signed = |s: &[u8], i: usize| s.get(i).map_or(0, |&c| c as i8);
    let mut i = 1;
    loop {
        let (x, y) = (signed(a, i), signed(b, i));
        if x != y || x == 0 {
            return x.cmp(&y);
        }
        i += 1;
    }
}

/// The four dictionaries of an .sn4 file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameFile {
    sections: [NameSection; 4],
}

impl NameFile {
    /// Parse an .sn4 file's bytes strictly: any damage (truncation, an ID out of range or
    /// used twice, a name stored twice) is an error, as SCID itself refuses such a file.
    pub fn parse(bytes: &[u8]) -> Result<NameFile> {
        let (names, damage) = NameFile::parse_lenient(bytes)?;
        match damage.into_iter().next() {
            None => Ok(names),
            Some(first) => Err(Error::corrupt_database(first)),
        }
    }

    /// Parse an .sn4 file's bytes, keeping every name that can be read. Returns the names and
    /// what is wrong with the file, one message each. A name whose ID could not be read
    /// (truncation, a malformed record) is *lost*: its ID is [not known](NameFile::is_known)
    /// and reads as `?`. Only a file that is not a SCID name file at all is an error.
    pub fn parse_lenient(bytes: &[u8]) -> Result<(NameFile, Vec<String>)> {
        let magic_cut = bytes.len() < NAMES_MAGIC.len() && NAMES_MAGIC.starts_with(bytes);
        if !magic_cut && !bytes.starts_with(NAMES_MAGIC) {
            return Err(Error::new(
                ErrorKind::UnknownFormat,
                "not a SCID name file (bad magic)",
            ));
        }
        let mut damage = Vec::new();
        let mut sections: [NameSection; 4] = Default::default();
        if bytes.len() < 36 {
            damage.push(format!(
                "the name file header is cut short ({} of 36 bytes): no name can be read",
                bytes.len()
            ));
            return Ok((NameFile { sections }, damage));
        }
        let mut cursor = Cursor::new(bytes, "name file");
        cursor.take(36)?;
        let mut readable = true;
        for (i, kind) in NameKind::ALL.iter().enumerate() {
            let count = be24(bytes, 12 + 3 * i) as usize;
            let max_freq = be24(bytes, 24 + 3 * i);
            let mut section =
                SectionReader::new(*kind, count, max_freq, &cursor, readable, &mut damage);
            if readable {
                readable = section.read(&mut cursor, &mut damage);
            }
            sections[i] = section.finish(readable, &mut damage);
        }
        if !readable {
            damage.push(format!(
                "the name file is cut short or malformed at byte {} of {}: the names after it \
                 are lost (shown as ?)",
                cursor.position(),
                bytes.len()
            ));
        }
        Ok((NameFile { sections }, damage))
    }

    /// The dictionary of `kind`.
    pub fn section(&self, kind: NameKind) -> &NameSection {
        &self.sections[kind as usize]
    }

    /// The text of name `id` of `kind`, or `?` for an ID the file lacks (what a game's tag
    /// shows for it).
    pub fn text(&self, kind: NameKind, id: u32) -> &str {
        self.stored_text(kind, id).map_or(UNKNOWN_NAME_TEXT, |t| t)
    }

    /// [`text`](Self::text), shared rather than copied (a name handed out of the store).
    pub fn shared_text(&self, kind: NameKind, id: u32) -> Arc<str> {
        self.stored_text(kind, id)
            .cloned()
            .unwrap_or_else(|| Arc::from(UNKNOWN_NAME_TEXT))
    }

    fn stored_text(&self, kind: NameKind, id: u32) -> Option<&Arc<str>> {
        self.section(kind).text.get(id as usize)
    }

    /// The dictionary of `kind`, for adding names.
    pub fn section_mut(&mut self, kind: NameKind) -> &mut NameSection {
        &mut self.sections[kind as usize]
    }

    /// The whole .sn4 file as SCID writes it: every section sorted in SCID's order, front
    /// coded, with the given reference counts (`freqs[kind][id]`) deciding the field widths.
    pub fn serialize(&self, freqs: &[Vec<u32>; 4]) -> Vec<u8> {
        let mut out = NAMES_MAGIC.to_vec();
        out.extend([0u8; 4]);
        let max_freq: Vec<u32> = freqs
            .iter()
            .map(|f| f.iter().copied().max().unwrap_or(0))
            .collect();
        for section in &self.sections {
            out.extend(&(section.raw.len() as u32).to_be_bytes()[1..]);
        }
        for m in &max_freq {
            out.extend(&m.to_be_bytes()[1..]);
        }
        for (i, section) in self.sections.iter().enumerate() {
            let id_width = if section.raw.len() >= 65536 { 3 } else { 2 };
            let freq_width = match max_freq[i] {
                0..=255 => 1,
                256..=65535 => 2,
                _ => 3,
            };
            let order = section.sorted_ids();
            let mut previous: &[u8] = &[];
            for (n, &id) in order.iter().enumerate() {
                let name = &section.raw[id as usize];
                let freq = freqs[i].get(id as usize).copied().unwrap_or(0);
                out.extend(&id.to_be_bytes()[4 - id_width..]);
                out.extend(&freq.to_be_bytes()[4 - freq_width..]);
                out.push(name.len() as u8);
                let prefix = if n == 0 {
                    0
                } else {
                    let shared = name
                        .iter()
                        .zip(previous)
                        .take_while(|(a, b)| a == b)
                        .count();
                    out.push(shared as u8);
                    shared
                };
                out.extend(&name[prefix..]);
                previous = name;
            }
        }
        out
    }

    /// Number of names in the `kind` dictionary (lost ones included).
    pub fn count(&self, kind: NameKind) -> u32 {
        self.section(kind).text.len() as u32
    }

    /// True when `id` names a name of `kind` the file holds.
    pub fn is_known(&self, kind: NameKind, id: u32) -> bool {
        self.section(kind).is_known(id)
    }

    /// How many names of `kind` the file's header claims ([`NameSection::claimed`]).
    pub fn claimed(&self, kind: NameKind) -> u32 {
        self.section(kind).claimed()
    }
}

/// Reads one section of the name file, keeping what it can: the names in ID slots, and a
/// message for each thing wrong.
struct SectionReader {
    kind: NameKind,
    /// Names by ID; None where no readable record gave the ID its name.
    slots: Vec<Option<Vec<u8>>>,
    count: usize,
    id_width: usize,
    freq_width: usize,
}

impl SectionReader {
    /// A reader for a section the header says holds `count` names, starting at `cursor` when
    /// the file is `readable` there (else it holds none). A count the rest of the file cannot
    /// hold (each record takes at least its ID, frequency and length bytes) is cut to what it
    /// could hold, so a damaged header cannot make us allocate gigabytes.
    fn new(
        kind: NameKind,
        count: usize,
        max_freq: u32,
        cursor: &Cursor<'_>,
        readable: bool,
        damage: &mut Vec<String>,
    ) -> SectionReader {
        let id_width = if count >= 65536 { 3 } else { 2 };
        let freq_width = match max_freq {
            0..=255 => 1,
            256..=65535 => 2,
            _ => 3,
        };
        let remaining = cursor.len().saturating_sub(cursor.position());
        let fits = remaining / (id_width + freq_width + 1);
        let slots = if !readable {
            0
        } else if count > fits {
            damage.push(format!(
                "the name file claims {count} {kind:?} names but has room for at most {fits}"
            ));
            fits
        } else {
            count
        };
        SectionReader {
            kind,
            slots: vec![None; slots],
            count,
            id_width,
            freq_width,
        }
    }

    /// Read the section's records at `cursor`. Returns false when the file ends or a record is
    /// malformed so that nothing after it can be read.
    fn read(&mut self, cursor: &mut Cursor<'_>, damage: &mut Vec<String>) -> bool {
        let kind = self.kind;
        let mut previous: Vec<u8> = Vec::new();
        let mut by_name: HashMap<Vec<u8>, usize> = HashMap::with_capacity(self.slots.len());
        for n in 0..self.count {
            let Some((id, prefix, suffix)) = self.record(cursor, n) else {
                return false;
            };
            let shared = previous.len();
            // The name is the previous one's first `prefix` bytes and the suffix.
            previous.truncate(prefix);
            previous.extend_from_slice(suffix);
            let name = &previous;
            // Only a damage message shows the name.
            let shown = || String::from_utf8_lossy(name);
            if prefix > shared {
                damage.push(format!(
                    "{kind:?} name ID {id} shares {prefix} bytes with a {shared}-byte name: its \
                     text is lost (shown as ?)"
                ));
            } else if id >= self.count {
                damage.push(format!(
                    "{kind:?} name {:?} has ID {id}, out of range (the section holds {})",
                    shown(),
                    self.count
                ));
            } else if let Some(Some(first)) = self.slots.get(id) {
                damage.push(format!(
                    "{kind:?} ID {id} is used twice ({:?} and {:?}); the first is kept",
                    String::from_utf8_lossy(first),
                    shown()
                ));
            } else if let Some(slot) = self.slots.get_mut(id) {
                if let Some(first) = by_name.insert(name.clone(), id) {
                    damage.push(format!(
                        "{kind:?} name {:?} is stored twice (IDs {first} and {id}); SCID \
                         refuses such a name file",
                        shown()
                    ));
                }
                *slot = Some(name.clone());
            } else {
                damage.push(format!(
                    "{kind:?} name {:?} has ID {id}, beyond the room the file has",
                    shown()
                ));
            }
        }
        true
    }

    /// The next record's ID, prefix length and suffix bytes, or None when the file ends
    /// inside it or its prefix is longer than the name (no later record can then be found).
    fn record<'a>(&self, cursor: &mut Cursor<'a>, n: usize) -> Option<(usize, usize, &'a [u8])> {
        let id = cursor.uint(self.id_width).ok()? as usize;
        cursor.uint(self.freq_width).ok()?;
        let length = usize::from(cursor.take(1).ok()?[0]);
        let prefix = if n == 0 {
            0
        } else {
            usize::from(cursor.take(1).ok()?[0])
        };
        let suffix = cursor.take(length.checked_sub(prefix)?).ok()?;
        Some((id, prefix, suffix))
    }

    /// The section, with every ID that got no name lost (reported unless the file was
    /// already reported unreadable from here on).
    fn finish(self, readable: bool, damage: &mut Vec<String>) -> NameSection {
        let lost: BTreeSet<u32> = (0..self.slots.len() as u32)
            .filter(|&id| self.slots[id as usize].is_none())
            .collect();
        if readable && !lost.is_empty() {
            damage.push(format!(
                "{} of {} {:?} IDs have no name in the file (shown as ?)",
                lost.len(),
                self.slots.len(),
                self.kind
            ));
        }
        let text: Vec<Arc<str>> = self
            .slots
            .iter()
            .map(|r| match r {
                Some(r) => Arc::from(text_from_bytes(r)),
                None => Arc::from(UNKNOWN_NAME_TEXT),
            })
            .collect();
        let raw: Vec<Vec<u8>> = self
            .slots
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        NameSection {
            raw,
            text,
            lost,
            claimed: self.count as u32,
            lookup: None,
            order: Default::default(),
        }
    }
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
    fn serializing_gives_back_the_parsed_bytes() {
        let bytes = sample();
        let names = NameFile::parse(&bytes).unwrap();
        let freqs = [vec![1, 1], vec![1], vec![], vec![]];
        assert_eq!(names.serialize(&freqs), bytes);
        for (n, freq) in [
            (3, 255),
            (3, 256),
            (3, 70_000),
            (65_536, 1),
            (65_537, 65_536),
        ] {
            let bytes = wide(n, freq);
            let names = NameFile::parse(&bytes).unwrap();
            let freqs = [vec![freq; n as usize], vec![], vec![], vec![]];
            assert_eq!(
                names.serialize(&freqs),
                bytes,
                "{n} names, frequency {freq}"
            );
        }
    }

    #[test]
    fn scid_sort_order() {
        let mut names: Vec<&[u8]> = vec![
            "É".as_bytes(),
            b"z",
            b"e",
            b"A",
            "Ärger".as_bytes(),
            b"Ab",
            "Abé".as_bytes(),
            b"Aaron",
            b"Zed",
            "é".as_bytes(),
            b"",
        ];
        names.sort_by(|a, b| scid_name_order(a, b));
        let expected: Vec<&[u8]> = vec![
            b"",
            b"A",
            b"Aaron",
            "Abé".as_bytes(),
            b"Ab",
            b"Zed",
            b"e",
            b"z",
            "Ärger".as_bytes(),
            "É".as_bytes(),
            "é".as_bytes(),
        ];
        assert_eq!(names, expected);
    }

    #[test]
    fn the_kept_sort_order_follows_added_names() {
        let mut names = NameFile::parse(&sample()).unwrap();
        let freqs = |n: &NameFile| NameKind::ALL.map(|k| vec![1; n.count(k) as usize]);
        let _ = names.serialize(&freqs(&names)); // builds the order
        for new in ["Zed", "Abé", "", "Ab", "É", "Aaa"] {
            names.section_mut(NameKind::Player).push(new.as_bytes());
        }
        let kept = names.serialize(&freqs(&names));
        let fresh = NameFile::parse(&kept).unwrap();
        assert_eq!(
            fresh.serialize(&freqs(&fresh)),
            kept,
            "incremental order = a full sort"
        );
        assert_eq!(names.section(NameKind::Player).sorted_ids().len(), 8);
    }

    #[test]
    fn truncating_forgets_added_names_everywhere() {
        let mut names = NameFile::parse(&sample()).unwrap();
        let section = names.section_mut(NameKind::Player);
        let before = section.raw.len() as u32;
        let _ = section.sorted_ids();
        assert_eq!(section.find(b"Zed"), None);
        let id = section.push(b"Zed");
        assert_eq!(section.find(b"Zed"), Some(id));
        section.truncate(before);
        assert_eq!(section.find(b"Zed"), None);
        assert_eq!(section.raw.len() as u32, before);
        assert_eq!(section.sorted_ids().len() as u32, before);
        assert_eq!(section.push(b"Zed"), id, "the ID is free again");
    }

    #[test]
    fn new_names_get_the_next_id() {
        let mut names = NameFile::parse(&sample()).unwrap();
        let players = names.section_mut(NameKind::Player);
        assert_eq!(players.find(b"Aaron"), Some(0));
        assert_eq!(players.find(b"Zed"), None);
        assert_eq!(players.push(b"Zed"), 2);
        assert_eq!(players.find(b"Zed"), Some(2));
        assert_eq!(&*players.text[2], "Zed");
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
