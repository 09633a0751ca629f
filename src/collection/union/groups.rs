//! The groups of one view merged by name over the members of a folder: `players/Carlsen,
//! Magnus/` is one group whichever member's name dictionary the name comes from.
//!
//! Each distinct folder label gets a union key the first time it is seen; a key never changes
//! meaning during the mount (the tree's inode numbers are made from it). What each member's
//! own key is known to mean is remembered, and forgotten when that member changes (a save, an
//! import, a re-read), since a member may then number its names anew.

use std::collections::HashMap;
use std::sync::Arc;

/// One view's union keys: labels and what members' keys they stand for.
#[derive(Debug, Default)]
pub(crate) struct MergedGroups {
    /// Union key k's label.
    labels: Vec<Arc<str>>,
    /// The union key of each label.
    by_label: HashMap<Arc<str>, u32>,
    /// Each member's keys already looked up, with their union keys.
    of_member: Vec<HashMap<u32, u32>>,
}

impl MergedGroups {
    /// The groups of a view over `members` members.
    pub(crate) fn new(members: usize) -> MergedGroups {
        MergedGroups {
            of_member: vec![HashMap::new(); members],
            ..MergedGroups::default()
        }
    }

    /// The union key of `member`'s group `key`, whose label `label` tells (asked only the
    /// first time the member's key is seen).
    pub(crate) fn key(&mut self, member: usize, key: u32, label: impl FnOnce() -> String) -> u32 {
        if let Some(&union) = self.of_member[member].get(&key) {
            return union;
        }
        let label = label();
        let union = match self.by_label.get(label.as_str()) {
            Some(&union) => union,
            None => {
                let union = self.labels.len() as u32;
                let label: Arc<str> = Arc::from(label);
                self.labels.push(label.clone());
                self.by_label.insert(label, union);
                union
            }
        };
        self.of_member[member].insert(key, union);
        union
    }

    /// The label of union key `key` (empty for a key never given).
    pub(crate) fn label(&self, key: u32) -> &str {
        self.labels.get(key as usize).map_or("", |l| l)
    }

    /// Forget what `member`'s keys stand for: it may have numbered its names anew.
    pub(crate) fn forget_member(&mut self, member: usize) {
        self.of_member[member] = HashMap::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_label_in_two_members_is_one_group() {
        let mut g = MergedGroups::new(2);
        let carlsen = g.key(0, 7, || "Carlsen, Magnus".into());
        let caruana = g.key(0, 3, || "Caruana, Fabiano".into());
        assert_ne!(carlsen, caruana);
        assert_eq!(g.key(1, 0, || "Carlsen, Magnus".into()), carlsen);
        assert_eq!(g.key(1, 0, || unreachable!("asked once")), carlsen);
        assert_eq!(g.label(caruana), "Caruana, Fabiano");
        assert_eq!(g.label(99), "");
    }

    #[test]
    fn a_member_forgotten_is_asked_again_and_labels_keep_their_keys() {
        let mut g = MergedGroups::new(1);
        let a = g.key(0, 1, || "A".into());
        g.forget_member(0);
        // The member renumbered its names: its key 1 is now B, A moved to key 2.
        let b = g.key(0, 1, || "B".into());
        assert_ne!(a, b);
        assert_eq!(g.key(0, 2, || "A".into()), a);
    }
}
