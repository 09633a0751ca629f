//! Counting the distinct IDs among many (names a database's games use, a view's groups) in
//! a bit each, without gathering them.

/// The distinct IDs among those given: a bit each for the IDs a name file numbers (from 0
/// up, densely), a hash set for the others (damage,
/// [`UNKNOWN_NAME`](crate::store::damage::UNKNOWN_NAME)). Five a game: with a hash set for
/// all, `gamefs info` of a million lichess-shaped games, their index kept (a million sites),
/// took 0.23 s; 0.16 s with bits.
#[derive(Default)]
pub(crate) struct DistinctIds {
    dense: bit_set::BitSet,
    others: hashbrown::HashSet<u32, foldhash::fast::FixedState>,
}

impl DistinctIds {
    /// IDs from here on are not taken as a name file's (a bit each would take 8 MiB).
    const DENSE_BELOW: u32 = 1 << 26;

    /// Count `id` (once, however often it is given).
    pub(crate) fn insert(&mut self, id: u32) {
        if id < Self::DENSE_BELOW {
            self.dense.insert(id as usize);
        } else {
            self.others.insert(id);
        }
    }

    /// How many distinct IDs were given.
    pub(crate) fn len(&self) -> usize {
        self.dense.count() + self.others.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Used name IDs are counted once each, those a name file numbers and the others alike.
    #[test]
    fn used_name_ids_are_counted_once_each() {
        let mut used = DistinctIds::default();
        let unknown = crate::store::damage::UNKNOWN_NAME;
        for id in [
            0,
            5,
            5,
            1_000_000,
            0,
            DistinctIds::DENSE_BELOW - 1,
            unknown,
            unknown,
        ] {
            used.insert(id);
        }
        assert_eq!(used.len(), 5);
        used.insert(DistinctIds::DENSE_BELOW);
        assert_eq!(used.len(), 6);
    }
}
