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

use std::collections::HashMap;

use super::entry::IndexEntry;
use super::names::NameFile;
use super::scan::name_fields;

/// How many games one open watches at most (a bulk import beyond it is not watched: the other
/// program's stale count leaves its games out as a whole).
pub(super) const MAX_WATCHED: usize = 100_000;

/// One version of a game's index entry: the entry, the names it meant and a digest of its
/// record, which together say whether it still reads as it did.
#[derive(Clone, Debug)]
pub(super) struct Version {
    /// The entry as written.
    pub(super) entry: IndexEntry,
    names: [String; 5],
    record: u64,
}

impl Version {
    /// The version of `entry`, whose names are in `names` and whose record is `record`.
    pub(super) fn of(entry: &IndexEntry, names: &NameFile, record: &[u8]) -> Version {
        Version {
            entry: *entry,
            names: name_fields(entry).map(|(_, kind, id)| names.text(kind, id).to_owned()),
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
        name_fields(&self.entry)
            .iter()
            .zip(&self.names)
            .all(|((_, kind, id), text)| {
                names.is_known(*kind, *id) && names.text(*kind, *id) == text
            })
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
            names: Default::default(),
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
    fn a_game_appended_and_written_over_is_left_out() {
        let mut w = Written::default();
        w.wrote(7, None, version(50, b"z"));
        let mends = w.take_to_mend(8, &|_| version(50, b"z").entry, &|_| false);
        assert_eq!(mends, vec![(7, Mend::LeaveOut)]);
    }
}
