//! What is wrong with a SCID database, found from its index, its names and the game file's
//! size when it is opened (docs/formats/scid4.md §8.1 says how SCID itself reacts to each):
//!
//! - the index's size against its header's count: entries missing at the end (an interrupted
//!   save, or a cut index; SCID opens it and the missing games fail to load), an entry cut
//!   short, or bytes after the counted entries (SCID refuses that index);
//! - name IDs the name file does not hold (out of range, or lost to a damaged name file):
//!   shown as `?`, as SCID shows them;
//! - records that run past the end of the game file, or share bytes with another game's
//!   record: those games are unreadable.

use std::path::Path;

use super::entry::IndexEntry;
use super::header::IndexHeader;
use super::names::NameFile;
use crate::store::NameKind;
use crate::store::damage::{Damage, Extent, overlaps};

/// How the index file's size fits the game count in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IndexShape {
    /// Games the header counts.
    pub counted: u32,
    /// Whole entries in the file.
    pub whole: u64,
    /// Bytes after the last whole entry.
    pub tail: usize,
    /// Bytes of the file.
    pub len: usize,
    entry_len: usize,
}

impl IndexShape {
    /// The shape of an index file of `len` bytes with this `header`.
    pub(crate) fn of(header: &IndexHeader, len: usize) -> IndexShape {
        let body = len.saturating_sub(header.layout.header_len());
        let entry_len = header.layout.entry_len();
        IndexShape {
            counted: header.num_games,
            whole: (body / entry_len) as u64,
            tail: body % entry_len,
            len,
            entry_len,
        }
    }

    /// Entries that can be decoded among the counted games.
    pub(crate) fn present(&self) -> u32 {
        self.whole.min(u64::from(self.counted)) as u32
    }

    /// The games shown: those with an entry, plus the one whose entry is cut short.
    pub(crate) fn shown(&self) -> u32 {
        let cut = self.present() < self.counted && self.tail > 0;
        self.present() + u32::from(cut)
    }

    /// True when only whole entries are missing at the end: what a save interrupted between
    /// the header count and the entries leaves, repaired by counting the entries present.
    pub(crate) fn repairable(&self) -> bool {
        self.whole < u64::from(self.counted) && self.tail == 0
    }

    /// Report to `damage` what does not fit (`si4` names the file).
    pub(crate) fn report(&self, damage: &mut Damage, si4: &Path) {
        let present = self.present();
        if present == self.counted {
            let extra = (self.whole - u64::from(present)) as usize * self.entry_len + self.tail;
            if extra > 0 {
                damage.database(format!(
                    "{}: {extra} bytes after the {} entries the header counts are ignored (SCID \
                     refuses such an index; an interrupted import?)",
                    si4.display(),
                    self.counted
                ));
            }
            return;
        }
        if self.tail > 0 {
            damage.unreadable(
                present,
                format!(
                    "its index entry is cut short: {} ends {} bytes into it",
                    si4.display(),
                    self.tail
                ),
            );
        }
        let first_missing = self.shown() + 1;
        if first_missing <= self.counted {
            let why = if self.repairable() {
                "an interrupted save, which a writable open repairs, or a cut index"
            } else {
                "the index is cut short"
            };
            damage.database(format!(
                "{}: the header counts {} games, but games {first_missing} to {} have no index \
                 entry ({why}); they are not shown",
                si4.display(),
                self.counted,
                self.counted
            ));
        }
    }
}

/// The name fields of an entry: field name, dictionary and ID.
pub(crate) fn name_fields(e: &IndexEntry) -> [(&'static str, NameKind, u32); 5] {
    [
        ("White", NameKind::Player, e.white),
        ("Black", NameKind::Player, e.black),
        ("Event", NameKind::Event, e.event),
        ("Site", NameKind::Site, e.site),
        ("Round", NameKind::Round, e.round),
    ]
}

/// Report each name ID of the first `present` entries that `names` does not hold (`sn4`
/// names the name file): the game is still shown, with `?` for that name.
pub(crate) fn scan_names(
    damage: &mut Damage,
    present: u32,
    entry: impl Fn(u32) -> IndexEntry,
    names: &NameFile,
    sn4: &Path,
) {
    for n in 0..present {
        for (field, kind, id) in name_fields(&entry(n)) {
            if names.is_known(kind, id) {
                continue;
            }
            let count = names.claimed(kind);
            let why = if id >= count {
                format!(
                    "out of range: {} holds {count} {kind:?} names",
                    sn4.display()
                )
            } else {
                format!("lost: {} is damaged", sn4.display())
            };
            damage.item(n, format!("{field} name ID {id} is {why}; shown as ?"));
        }
    }
}

/// Report the records of the first `present` entries that run past the end of the game file
/// (`games_len` bytes, at `sg4`) or share bytes with another game's record: unreadable.
pub(crate) fn scan_records(
    damage: &mut Damage,
    present: u32,
    entry: impl Fn(u32) -> IndexEntry,
    sg4: &Path,
    games_len: u64,
) {
    let extent = |e: &IndexEntry| {
        let start = e.offset;
        (start, start + u64::from(e.length))
    };
    for n in 0..present {
        let e = entry(n);
        let (start, end) = extent(&e);
        if end > games_len {
            damage.unreadable(
                n,
                format!(
                    "its record (offset {start}, {} bytes) runs past the end of {} ({games_len} \
                     bytes): the game file is shorter than the index says",
                    e.length,
                    sg4.display()
                ),
            );
        }
    }
    let inside = |n: u32| {
        let (start, end) = extent(&entry(n));
        (end <= games_len).then_some(Extent {
            item: n,
            start,
            end: end.max(start + 1),
        })
    };
    for (a, b) in overlaps(|| (0..present).filter_map(inside)) {
        let (ea, eb) = (entry(a), entry(b));
        damage.unreadable(
            a,
            format!(
                "its record (offset {}, {} bytes) overlaps game {}'s (offset {}, {} bytes) in {}: \
                 one of the two index entries is wrong, and which cannot be told",
                ea.offset,
                ea.length,
                b + 1,
                eb.offset,
                eb.length,
                sg4.display()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::scid::header::Layout;

    fn header(games: u32) -> IndexHeader {
        IndexHeader {
            version: 400,
            layout: Layout::V400,
            base_type: 0,
            num_games: games,
            auto_load: 1,
            description: Vec::new(),
        }
    }

    fn messages(d: &Damage) -> Vec<(Option<u32>, bool, String)> {
        d.problems()
            .iter()
            .map(|p| (p.item, p.unreadable, p.message.clone()))
            .collect()
    }

    #[test]
    fn index_shapes() {
        let si4 = Path::new("x.si4");
        let exact = IndexShape::of(&header(3), 182 + 3 * 47);
        assert_eq!((exact.present(), exact.shown()), (3, 3));
        let mut d = Damage::default();
        exact.report(&mut d, si4);
        assert!(d.is_empty());

        let missing = IndexShape::of(&header(5), 182 + 3 * 47);
        assert_eq!((missing.present(), missing.shown()), (3, 3));
        assert!(missing.repairable());
        missing.report(&mut d, si4);
        assert!(
            messages(&d)[0]
                .2
                .contains("games 4 to 5 have no index entry (an interrupted save")
        );

        let cut = IndexShape::of(&header(5), 182 + 3 * 47 + 20);
        assert_eq!((cut.present(), cut.shown()), (3, 4));
        assert!(!cut.repairable());
        let mut d = Damage::default();
        cut.report(&mut d, si4);
        let m = messages(&d);
        assert_eq!(m[0].0, Some(3));
        assert!(m[0].1 && m[0].2.contains("cut short: x.si4 ends 20 bytes into it"));
        assert!(
            m[1].2
                .contains("games 5 to 5 have no index entry (the index is cut short)")
        );

        let extra = IndexShape::of(&header(2), 182 + 3 * 47 + 5);
        assert_eq!((extra.present(), extra.shown()), (2, 2));
        let mut d = Damage::default();
        extra.report(&mut d, si4);
        assert!(
            messages(&d)[0].2.contains("52 bytes after the 2 entries"),
            "{:?}",
            messages(&d)
        );
    }

    #[test]
    fn records_outside_the_file_or_overlapping() {
        let entries = [(0, 10), (10, 10), (15, 10), (30, 5), (36, 10)];
        let entry = |n: u32| IndexEntry {
            offset: entries[n as usize].0,
            length: entries[n as usize].1,
            ..IndexEntry::default()
        };
        let mut d = Damage::default();
        scan_records(&mut d, 5, entry, Path::new("x.sg4"), 40);
        let m = messages(&d);
        assert_eq!(m.len(), 3, "{m:?}");
        assert_eq!(m[0].0, Some(4));
        assert!(m[0].2.contains("runs past the end of x.sg4 (40 bytes)"));
        assert_eq!(m[1].0, Some(1));
        assert!(m[1].2.contains("overlaps game 3's (offset 15, 10 bytes)"));
        assert_eq!(m[2].0, Some(2));
        assert!(d.is_unreadable(1) && d.is_unreadable(2) && !d.is_unreadable(0));
    }
}
