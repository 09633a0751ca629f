//! The saves this mount acknowledged, watched for another program writing over them
//! (docs/SEMANTICS.md §10a).
//!
//! A program that holds the database open from before a save through the mount (SCID's
//! window, a script) may later write from its stale picture: its index entry or its name file
//! over the one that referred to the save. Each acknowledged save is kept here with the
//! fingerprint of what it stored and the text the user saved; whenever the tree takes in
//! another program's changes it compares each kept fingerprint with the game's fingerprint
//! now, and a save that no longer reads as it was stored is reported with its text. A save
//! that another program changed on purpose afterwards (SCID's user edited the same game)
//! looks the same from here, so it is reported too: the user loses nothing either way.

use std::collections::{BTreeMap, HashMap};
use std::time::SystemTime;

use super::content::Content;
use crate::error::Result;

/// How many bytes of saved texts are kept at most; beyond it the oldest saves are no longer
/// watched (their texts are in the database and, once written over, in no other place). They
/// are kept as a scratch file's bytes are: in memory while small, then in an unnamed temporary
/// file, so watching a big import does not grow the process.
const MAX_TEXT_BYTES: u64 = 64 << 20;

/// One acknowledged save.
#[derive(Clone, Debug)]
pub(super) struct Save {
    /// The fingerprint of what it stored ([`crate::collection::Collection::fingerprint`]).
    pub fingerprint: u64,
    /// The file name it was saved under.
    pub name: String,
    /// True for a game the save added (an import): its number may now be another program's
    /// game, so its text is given back under a name that imports it again.
    pub added: bool,
    /// Where its text is among the kept texts, and its length.
    text: (u64, u64),
    /// When it was acknowledged.
    pub at: SystemTime,
    order: u64,
}

/// The acknowledged saves of this mount still watched, by item number.
#[derive(Debug, Default)]
pub(super) struct Acknowledged {
    saves: HashMap<u32, Save>,
    /// Item numbers by the order of their save, oldest first (what is let go first).
    order: BTreeMap<u64, u32>,
    next: u64,
    /// The texts of the saves, one after the other (those let go still in place until the
    /// texts are copied anew).
    texts: Content,
    /// The bytes of texts of the saves watched.
    bytes: u64,
}

impl Acknowledged {
    /// Watch item `n`, just saved under `name` as `text`, whose fingerprint is now
    /// `fingerprint` (a later save of the same item replaces the earlier).
    pub(super) fn record(
        &mut self,
        n: u32,
        fingerprint: u64,
        (name, added): (String, bool),
        text: &[u8],
    ) -> Result<()> {
        self.forget(n);
        if self.texts.len() > 2 * MAX_TEXT_BYTES {
            self.copy_texts_anew()?;
        }
        let at = self.texts.len();
        self.texts.write_at(at, text)?;
        let len = text.len() as u64;
        self.bytes += len;
        self.order.insert(self.next, n);
        self.saves.insert(
            n,
            Save {
                fingerprint,
                name,
                added,
                text: (at, len),
                at: SystemTime::now(),
                order: self.next,
            },
        );
        self.next += 1;
        while self.bytes > MAX_TEXT_BYTES {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(save) = self.saves.remove(&oldest) {
                self.bytes -= save.text.1;
            }
        }
        Ok(())
    }

    /// Keep only the texts of the saves watched, in a new place (the others' bytes go).
    fn copy_texts_anew(&mut self) -> Result<()> {
        let mut texts = Content::default();
        for save in self.saves.values_mut() {
            let (at, len) = save.text;
            let bytes = self.texts.read_at(at, len as u32)?;
            save.text = (texts.len(), len);
            texts.write_at(texts.len(), &bytes)?;
        }
        self.texts = texts;
        Ok(())
    }

    /// Stop watching item `n`.
    pub(super) fn forget(&mut self, n: u32) {
        if let Some(save) = self.saves.remove(&n) {
            self.order.remove(&save.order);
            self.bytes -= save.text.1;
        }
    }

    /// The saves whose item no longer has the fingerprint they stored (`now` gives an item's
    /// fingerprint, `None` when it is gone or unreadable), oldest first, each with its text;
    /// they are no longer watched.
    pub(super) fn written_over(
        &mut self,
        now: &dyn Fn(u32) -> Option<u64>,
    ) -> Vec<(u32, Save, Vec<u8>)> {
        let lost: Vec<u32> = self
            .order
            .values()
            .copied()
            .filter(|n| now(*n) != Some(self.saves[n].fingerprint))
            .collect();
        lost.into_iter()
            .filter_map(|n| {
                let save = self.saves.get(&n)?.clone();
                self.forget(n);
                let (at, len) = save.text;
                let text = self.texts.read_at(at, len as u32).unwrap_or_else(|e| {
                    log::error!("the text of {} saved through the mount: {e}", save.name);
                    Vec::new()
                });
                Some((n, save, text))
            })
            .collect()
    }

    /// How many saves are watched.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.saves.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> &[u8] {
        s.as_bytes()
    }

    #[test]
    fn a_save_whose_fingerprint_changed_is_given_back_once() {
        let mut acks = Acknowledged::default();
        acks.record(3, 30, ("0004 a.pgn".into(), false), text("three"))
            .unwrap();
        acks.record(5, 50, ("0006 b.pgn".into(), false), text("five"))
            .unwrap();
        let lost = acks.written_over(&|n| {
            if n == 5 {
                Some(51)
            } else {
                Some(n as u64 * 10)
            }
        });
        assert_eq!(lost.len(), 1);
        assert_eq!((lost[0].0, lost[0].2.as_slice()), (5, &b"five"[..]));
        assert!(acks.written_over(&|_| None).iter().all(|(n, _, _)| *n == 3));
        assert_eq!(acks.len(), 0);
    }

    #[test]
    fn a_later_save_of_the_same_item_replaces_the_earlier() {
        let mut acks = Acknowledged::default();
        acks.record(1, 10, ("x".into(), false), text("old"))
            .unwrap();
        acks.record(1, 11, ("x".into(), false), text("new"))
            .unwrap();
        assert_eq!(acks.len(), 1);
        assert!(acks.written_over(&|_| Some(11)).is_empty());
        let lost = acks.written_over(&|_| None);
        assert_eq!(lost[0].2, b"new");
    }

    #[test]
    fn the_oldest_saves_are_let_go_beyond_the_byte_limit() {
        let mut acks = Acknowledged::default();
        let big = vec![b'x'; (MAX_TEXT_BYTES / 2 + 1) as usize];
        acks.record(1, 1, ("a".into(), false), &big).unwrap();
        acks.record(2, 2, ("b".into(), false), &big).unwrap();
        assert_eq!(acks.len(), 1);
        // The texts live in a temporary file past a scratch file's memory limit.
        assert!(matches!(acks.texts, Content::Disk { .. }));
        acks.record(3, 3, ("c".into(), false), b"small").unwrap();
        assert_eq!(acks.len(), 2);
        let lost = acks.written_over(&|_| None);
        assert_eq!(lost.iter().map(|l| l.0).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(lost[0].2, big);
        assert_eq!(lost[1].2, b"small");
    }
}
