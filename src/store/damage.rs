//! What is wrong with a database, as found when it is opened: the one shape every format
//! reports damage in, so the mount, `gamefs check` and the write policy treat all formats alike.
//!
//! A store opens whenever its index is usable and collects here what it found instead of
//! refusing: problems of the database as a whole (an index cut short, a damaged name file)
//! and of single games (a name ID the name file lacks, a record outside the game file, two
//! records that overlap). Games that cannot be read at all are *unreadable*: loading them
//! fails with the reason (EIO in the mount), every other game is served. A damaged database
//! is never opened for writing ([`Damage::refuse_writing`]): a save could make it worse (a new
//! name would take an ID a damaged entry already points at; appended bytes would turn a record
//! that runs past the end of the file into garbage that reads).

use std::collections::HashMap;
use std::path::Path;

use crate::error::{Error, ErrorKind, Result};

/// A name ID that names nothing: the name file lacks it (out of range, or lost to damage).
/// It reads as `?`, as SCID shows such a name.
pub const UNKNOWN_NAME: u32 = u32::MAX;

/// The text a name the name file lacks is shown as.
pub const UNKNOWN_NAME_TEXT: &str = "?";

/// One problem found in a database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The game or position (0-based, as the store numbers them), or None for the database as
    /// a whole.
    pub item: Option<u32>,
    /// What is wrong, naming the file and bytes involved (never the game: [`Problem::item`]
    /// does, and reports put it in front).
    pub message: String,
    /// The item cannot be read at all: loading it fails with this message.
    pub unreadable: bool,
}

/// The problems found in one database, with quick lookup of the unreadable items.
#[derive(Clone, Debug, Default)]
pub struct Damage {
    problems: Vec<Problem>,
    unreadable: HashMap<u32, usize>,
}

impl Damage {
    /// A problem of the database as a whole.
    pub fn database(&mut self, message: impl Into<String>) {
        self.push(None, message.into(), false);
    }

    /// A problem of item `n` that still lets it be read (a name shown as `?`).
    pub fn item(&mut self, n: u32, message: impl Into<String>) {
        self.push(Some(n), message.into(), false);
    }

    /// A problem that makes item `n` unreadable. Only the first reason of an item is kept as
    /// its error; later ones are still listed.
    pub fn unreadable(&mut self, n: u32, message: impl Into<String>) {
        self.unreadable.entry(n).or_insert(self.problems.len());
        self.push(Some(n), message.into(), true);
    }

    /// Add the problems `other` found, after those found here (as if found by this one).
    pub fn append(&mut self, other: Damage) {
        for p in other.problems {
            match p.item {
                Some(n) if p.unreadable => self.unreadable(n, p.message),
                _ => self.push(p.item, p.message, p.unreadable),
            }
        }
    }

    fn push(&mut self, item: Option<u32>, message: String, unreadable: bool) {
        self.problems.push(Problem {
            item,
            message,
            unreadable,
        });
    }

    /// Put the problems in order: the database's first, then each item's, by item (each
    /// item's in the order found).
    pub fn sort(&mut self) {
        self.problems
            .sort_by_key(|p| p.item.map_or(0, |n| u64::from(n) + 1));
        self.unreadable.clear();
        for (i, p) in self.problems.iter().enumerate() {
            if let (Some(n), true) = (p.item, p.unreadable) {
                self.unreadable.entry(n).or_insert(i);
            }
        }
    }

    /// Every problem, in the order found (or [sorted](Damage::sort)).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// True when nothing is wrong.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// True when item `n` cannot be read.
    pub fn is_unreadable(&self, n: u32) -> bool {
        self.unreadable.contains_key(&n)
    }

    /// The error loading item `n` gives, if it is unreadable; `what` names it ("game 12").
    pub fn error_for(&self, n: u32, what: impl std::fmt::Display) -> Option<Error> {
        let i = *self.unreadable.get(&n)?;
        Some(Error::corrupt_record(format!(
            "{what}: {}",
            self.problems[i].message
        )))
    }

    /// Refuse to open the database at `path` for writing when anything is wrong with it: the
    /// error (read-only, so a mount falls back to read-only) names the first problem.
    pub fn refuse_writing(&self, path: &Path, item_name: &str) -> Result<()> {
        let Some(first) = self.problems.first() else {
            return Ok(());
        };
        let what = match first.item {
            Some(n) => format!("{item_name} {}: {}", n + 1, first.message),
            None => first.message.clone(),
        };
        let more = match self.problems.len() {
            1 => String::new(),
            n => format!("; and {} more problem(s)", n - 1),
        };
        Err(Error::new(
            ErrorKind::ReadOnly,
            format!(
                "{} is damaged ({what}{more}); a damaged database is only opened read-only \
                 (`gamefs check` lists every problem; guide: docs/guide/damaged.md)",
                path.display()
            ),
        ))
    }
}

/// `message` without the `label: ` an error's context put in front of it (`game 12: `), for
/// reports that name the item themselves.
pub fn without_label(message: &str, label: &str) -> String {
    message
        .strip_prefix(label)
        .and_then(|m| m.strip_prefix(": "))
        .unwrap_or(message)
        .to_owned()
}

/// Where one item's bytes lie in its file: `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// The item (0-based).
    pub item: u32,
    /// First byte.
    pub start: u64,
    /// One past the last byte (at least `start + 1`, so two items at one offset overlap).
    pub end: u64,
}

/// Every item whose extent shares bytes with another's, each with one such other item (the
/// first met in file order), in item order. `extents` gives the extents in item order; it is
/// walked once, and only when they are not already laid out one after another in that order
/// (a database written only by appends) are they collected and sorted.
pub fn overlaps<I: Iterator<Item = Extent>>(extents: impl Fn() -> I) -> Vec<(u32, u32)> {
    let mut end = 0;
    if extents().all(|e| {
        let apart = e.start >= end;
        end = e.end;
        apart
    }) {
        return Vec::new();
    }
    let mut sorted: Vec<Extent> = extents().collect();
    sorted.sort_unstable_by_key(|e| (e.start, e.item));
    let mut found: HashMap<u32, u32> = HashMap::new();
    let mut reach: Option<Extent> = None;
    for e in sorted {
        if let Some(r) = reach
            && e.start < r.end
        {
            found.entry(e.item).or_insert(r.item);
            found.entry(r.item).or_insert(e.item);
        }
        if reach.is_none_or(|r| e.end > r.end) {
            reach = Some(e);
        }
    }
    let mut pairs: Vec<(u32, u32)> = found.into_iter().collect();
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(item: u32, start: u64, end: u64) -> Extent {
        Extent { item, start, end }
    }

    #[test]
    fn overlapping_extents_are_found_in_any_order() {
        let none = [ext(0, 10, 20), ext(1, 20, 30), ext(2, 40, 41)];
        assert!(overlaps(|| none.iter().copied()).is_empty());
        let unordered = [ext(0, 20, 30), ext(1, 10, 20)];
        assert!(overlaps(|| unordered.iter().copied()).is_empty());
        let some = [
            ext(0, 10, 20),
            ext(1, 15, 18),
            ext(2, 30, 40),
            ext(3, 10, 11),
            ext(4, 19, 25),
        ];
        assert_eq!(
            overlaps(|| some.iter().copied()),
            vec![(0, 3), (1, 0), (3, 0), (4, 0)],
            "each with the first it meets"
        );
        let same = [ext(5, 7, 8), ext(2, 7, 8)];
        assert_eq!(overlaps(|| same.iter().copied()), vec![(2, 5), (5, 2)]);
    }

    #[test]
    fn labels_come_off_once() {
        assert_eq!(without_label("game 3: bad byte", "game 3"), "bad byte");
        assert_eq!(
            without_label("game 31: bad byte", "game 3"),
            "game 31: bad byte"
        );
        assert_eq!(without_label("bad byte", "game 3"), "bad byte");
    }

    #[test]
    fn unreadable_items_give_their_first_reason() {
        let mut d = Damage::default();
        assert!(d.is_empty());
        assert!(d.refuse_writing(Path::new("x.si4"), "game").is_ok());
        d.database("x.si4: 3 bytes after the last entry");
        d.item(4, "White name ID 9 is not in the name file");
        d.unreadable(6, "record past the end");
        d.unreadable(6, "overlaps game 3");
        assert!(d.is_unreadable(6) && !d.is_unreadable(4));
        let e = d.error_for(6, "game 7").unwrap();
        assert_eq!(e.to_string(), "game 7: record past the end");
        assert_eq!(e.errno(), libc::EIO);
        assert!(d.error_for(4, "game 5").is_none());
        assert_eq!(d.problems().len(), 4);
        let refused = d.refuse_writing(Path::new("x.si4"), "game").unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::ReadOnly);
        assert!(
            refused
                .to_string()
                .contains("x.si4 is damaged (x.si4: 3 bytes after the last entry; and 3 more"),
            "{refused}"
        );
    }

    #[test]
    fn appended_problems_follow_and_keep_their_kind() {
        let mut first = Damage::default();
        first.item(2, "name ID 9 is out of range");
        let mut second = Damage::default();
        second.unreadable(2, "its record runs past the end");
        second.unreadable(2, "its record overlaps game 4's");
        second.database("a damaged name file");
        first.append(second);
        first.sort();
        let listed: Vec<(Option<u32>, bool, &str)> = first
            .problems()
            .iter()
            .map(|p| (p.item, p.unreadable, p.message.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                (None, false, "a damaged name file"),
                (Some(2), false, "name ID 9 is out of range"),
                (Some(2), true, "its record runs past the end"),
                (Some(2), true, "its record overlaps game 4's"),
            ]
        );
        let error = first
            .error_for(2, "game 3")
            .expect("unreadable")
            .to_string();
        assert!(error.contains("runs past the end"), "{error}");
        assert!(!first.is_unreadable(1));
    }
}
