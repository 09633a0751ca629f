//! The index entries a writable open wrote, each with the versions it replaced, so that what
//! another program wrote over them from a stale picture can be mended (docs/SEMANTICS.md
//! §10a).
//!
//! SCID's window holds the base in memory from the moment it opens it: when it later saves,
//! it appends its record at its own idea of the game file's end (over records gamefs appended
//! meanwhile) and writes its name file from memory (without the names gamefs added). An entry
//! gamefs wrote then points at another program's bytes, or at names that are gone or are
//! other names now. When the store takes in such a change it finds every entry of its own
//! that no longer reads as it wrote it, and puts back the newest earlier version of that
//! game that still reads as it did (the version the other program's picture holds), or
//! drops a game it appended from the end of the index: the base is then as the other program
//! believes it to be, which SCID opens, and the tree gives the save's text back to the user.
//!
//! SCID 5 appends to its .sn5 at its own idea of the file's end too, over the name records
//! gamefs appended meanwhile: when its records are the shorter, the rest of gamefs's follows
//! them, cut in the middle of a record, and neither SCID 5 nor gamefs can read the file. The
//! bytes this open appended are kept for that: a file that breaks where the rest of it is
//! all theirs is cut there ([`Written::names_cut`]).

use std::collections::HashMap;

use super::entry::IndexEntry;
use super::names::NameFile;
use super::scan::name_fields;

/// How many games one open watches at most (a bulk import beyond it is not watched: the other
/// program's stale count leaves its games out as a whole).
pub(super) const MAX_WATCHED: usize = 100_000;

/// How many bytes of SCID 5 name records one open keeps at most (names appended beyond it are
/// not watched).
const MAX_NAME_BYTES: usize = 16 << 20;

/// One version of a game's index entry: the entry, a digest of the names it meant and one of
/// its record, which together say whether it still reads as it did (digests, not the names:
/// an import of a hundred thousand games keeps 8 MB here, not 25).
#[derive(Clone, Debug)]
pub(super) struct Version {
    /// The entry as written.
    pub(super) entry: IndexEntry,
    names: u64,
    record: u64,
}

/// A digest of the names `entry` means in `names`; `None` when one of them is not there.
fn names_digest(entry: &IndexEntry, names: &NameFile) -> Option<u64> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (_, kind, id) in name_fields(entry) {
        if !names.is_known(kind, id) {
            return None;
        }
        h.update(names.text(kind, id).as_bytes());
        // A byte no name holds between them: ("ab", "c") is not ("a", "bc").
        h.update(&[0]);
    }
    Some(h.digest())
}

impl Version {
    /// The version of `entry`, whose names are in `names` and whose record is `record`.
    pub(super) fn of(entry: &IndexEntry, names: &NameFile, record: &[u8]) -> Version {
        Version {
            entry: *entry,
            names: names_digest(entry, names).unwrap_or(0),
            record: xxhash_rust::xxh3::xxh3_64(record),
        }
    }

    /// True when the entry still reads as it did: its names known to `names` as the same
    /// names, its record (`record` reads it, `None` when it cannot be read) the same bytes.
    pub(super) fn holds(
        &self,
        names: &NameFile,
        record: &dyn Fn(&IndexEntry) -> Option<Vec<u8>>,
    ) -> bool {
        names_digest(&self.entry, names) == Some(self.names)
            && record(&self.entry).is_some_and(|r| xxhash_rust::xxh3::xxh3_64(&r) == self.record)
    }
}

/// What to do with a game whose entry no longer reads as this open wrote it.
#[derive(Debug, PartialEq)]
pub(super) enum Mend {
    /// Write this earlier version back.
    PutBack(IndexEntry),
    /// A game this open appended, with no earlier version: leave it out of the index.
    LeaveOut,
}

/// The entries this open wrote, by game number: every version, oldest first, the last being
/// the one it wrote last.
#[derive(Debug, Default)]
pub(super) struct Written {
    games: HashMap<u32, Vec<Version>>,
    /// The SCID 5 name records this open appended, each with the offset it went to.
    names: Vec<(u64, Vec<u8>)>,
    /// Their bytes, all together.
    name_bytes: usize,
}

impl Written {
    /// Game `number` now has entry `ours`; before, it had `before` (`None`: a game appended).
    pub(super) fn wrote(&mut self, number: u32, before: Option<Version>, ours: Version) {
        if let Some(versions) = self.games.get_mut(&number) {
            versions.push(ours);
            return;
        }
        if self.games.len() >= MAX_WATCHED {
            return;
        }
        self.games
            .insert(number, before.into_iter().chain([ours]).collect());
    }

    /// SCID 5 name records `bytes` were appended to the .sn5 at offset `at`.
    pub(super) fn appended_names(&mut self, at: u64, bytes: &[u8]) {
        if self.name_bytes + bytes.len() <= MAX_NAME_BYTES {
            self.name_bytes += bytes.len();
            self.names.push((at, bytes.to_vec()));
        }
    }

    /// Where to cut an .sn5 file whose bytes are `file` and whose first `whole` bytes are
    /// whole records: when the rest is what this open appended at those offsets (the tail of
    /// its records that another program wrote shorter ones over), its start, and the records
    /// kept are forgotten from there on; otherwise `None` (nothing wrong, or damage not ours).
    pub(super) fn names_cut(&mut self, file: &[u8], whole: usize) -> Option<usize> {
        let mut at = whole;
        while at < file.len() {
            let (offset, bytes) = self.names.iter().find(|(offset, bytes)| {
                usize::try_from(*offset).is_ok_and(|o| (o..o + bytes.len()).contains(&at))
            })?;
            let from = at - *offset as usize;
            let len = (bytes.len() - from).min(file.len() - at);
            if file[at..at + len] != bytes[from..from + len] {
                return None;
            }
            at += len;
        }
        if whole == file.len() {
            return None;
        }
        self.names.retain_mut(|(offset, bytes)| {
            bytes.truncate((whole as u64).saturating_sub(*offset) as usize);
            !bytes.is_empty()
        });
        Some(whole)
    }

    /// True when games `numbers` (not empty) all have the entry this open wrote last
    /// (`entry_now` gives the entry now): games it appended, beyond the count another
    /// program wrote from its stale picture.
    pub(super) fn wrote_all(
        &self,
        numbers: std::ops::Range<u32>,
        entry_now: &dyn Fn(u32) -> IndexEntry,
    ) -> bool {
        !numbers.is_empty()
            && numbers.into_iter().all(|n| {
                self.games
                    .get(&n)
                    .and_then(|v| v.last())
                    .is_some_and(|v| v.entry == entry_now(n))
            })
    }

    /// Game `number`'s entry as written last was changed in place to `entry` (its deleted
    /// mark).
    pub(super) fn marked(&mut self, number: u32, entry: &IndexEntry) {
        if let Some(last) = self.games.get_mut(&number).and_then(|v| v.last_mut()) {
            last.entry = *entry;
        }
    }

    /// The games among the first `count` whose entry is still the one this open wrote
    /// (`entry_now`) but no longer reads so (`holds`), each with its mend, by game number.
    /// Games whose entry another program wrote since are forgotten: nothing of this open is
    /// left there. Games mended are forgotten too.
    pub(super) fn take_to_mend(
        &mut self,
        count: u32,
        entry_now: &dyn Fn(u32) -> IndexEntry,
        holds: &dyn Fn(&Version) -> bool,
    ) -> Vec<(u32, Mend)> {
        let mut mends = Vec::new();
        self.games.retain(|&number, versions| {
            let Some(ours) = versions.last() else {
                return false;
            };
            // Beyond the other program's count (its stale count left the game out) or its
            // entry since rewritten by the other program: nothing of this open is there.
            if number >= count || entry_now(number) != ours.entry {
                return false;
            }
            if holds(ours) {
                return true;
            }
            let earlier = versions[..versions.len() - 1]
                .iter()
                .rev()
                .find(|v| holds(v));
            mends.push((
                number,
                earlier.map_or(Mend::LeaveOut, |v| Mend::PutBack(v.entry)),
            ));
            false
        });
        mends.sort_by_key(|(number, _)| *number);
        mends
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(offset: u64, record: &[u8]) -> Version {
        Version {
            entry: IndexEntry {
                offset,
                length: record.len() as u32,
                ..IndexEntry::default()
            },
            names: 0,
            record: xxhash_rust::xxh3::xxh3_64(record),
        }
    }

    #[test]
    fn an_entry_written_over_is_put_back_to_the_newest_version_that_still_reads() {
        let mut w = Written::default();
        w.wrote(4, Some(version(10, b"a")), version(20, b"b"));
        w.wrote(4, None, version(30, b"c"));
        // The record at 30 was written over; 20's still reads.
        let alive = |v: &Version| v.entry.offset != 30;
        let mends = w.take_to_mend(10, &|_| version(30, b"c").entry, &alive);
        assert_eq!(mends, vec![(4, Mend::PutBack(version(20, b"b").entry))]);
        assert!(w.games.is_empty());
    }

    #[test]
    fn an_entry_another_program_rewrote_or_one_that_still_reads_is_left_alone() {
        let mut w = Written::default();
        w.wrote(1, Some(version(10, b"a")), version(20, b"b"));
        w.wrote(2, Some(version(11, b"a")), version(21, b"b"));
        let mends = w.take_to_mend(
            10,
            &|n| {
                if n == 1 {
                    version(99, b"x").entry
                } else {
                    version(21, b"b").entry
                }
            },
            &|_| true,
        );
        assert!(mends.is_empty());
        assert_eq!(w.games.keys().copied().collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn a_name_file_is_cut_only_where_the_rest_is_this_opens_tail() {
        let mut w = Written::default();
        w.appended_names(4, b"ourAB");
        w.appended_names(9, b"ourCD");
        // Another program wrote "xy" at 4: the rest of ours follows it.
        let file = b"oldsxyrABourCD";
        assert_eq!(w.names_cut(file, 6), Some(6));
        assert_eq!(w.names, vec![(4, b"ou".to_vec())]);
        // A break in bytes that are not ours, or nothing broken: no cut.
        let mut w = Written::default();
        w.appended_names(4, b"ourAB");
        assert_eq!(w.names_cut(b"oldsxyrAz", 6), None);
        assert_eq!(w.names_cut(b"oldsxyrABmore", 6), None);
        assert_eq!(w.names_cut(b"oldsourAB", 9), None);
        assert_eq!(
            w.names_cut(b"oldsxyzAB", 3),
            None,
            "the break is before ours"
        );
    }

    #[test]
    fn games_beyond_a_count_are_all_this_opens_or_not() {
        let mut w = Written::default();
        w.wrote(5, None, version(50, b""));
        w.wrote(6, None, version(60, b""));
        let now = |n: u32| version(u64::from(n) * 10, b"").entry;
        assert!(w.wrote_all(5..7, &now));
        assert!(!w.wrote_all(5..8, &now), "game 8 is not this open's");
        assert!(!w.wrote_all(6..6, &now));
        assert!(!w.wrote_all(5..7, &|n| version(u64::from(n), b"").entry));
    }

    #[test]
    fn a_game_appended_and_written_over_is_left_out() {
        let mut w = Written::default();
        w.wrote(7, None, version(50, b"z"));
        let mends = w.take_to_mend(8, &|_| version(50, b"z").entry, &|_| false);
        assert_eq!(mends, vec![(7, Mend::LeaveOut)]);
    }
}
