//! Names kept one after the other in one string, numbered in the order they came
//! ([`NameList`]), and found by name through a table of their numbers ([`NameLookup`]): a
//! dictionary of millions of names (the sites of a lichess dump, each a game's address) costs
//! the names' bytes and about twenty bytes a name, not an allocation each.

use std::hash::BuildHasher;

/// Names numbered from 0 in the order they were added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameList {
    /// The names, one after the other.
    text: String,
    /// Where each name ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
}

impl NameList {
    /// Add `name` as the next number, which is returned.
    pub fn push(&mut self, name: &str) -> u32 {
        let k = u32::try_from(self.ends.len()).expect("fewer than 2^32 names");
        self.text.push_str(name);
        self.ends.push(self.text.len());
        k
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no name.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `k`, if there are that many.
    pub fn get(&self, k: usize) -> Option<&str> {
        let end = *self.ends.get(k)?;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        Some(&self.text[start..end])
    }

    /// Every name, in number order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|k| self.get(k).unwrap_or_default())
    }

    /// Let go of the room kept for names still to come.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// The numbers of a [`NameList`]'s names, found by name. The table holds each name's number
/// beside 32 bits of its hash, not the name: growing the table reads no name again, and a
/// lookup reads a name from the list only when those bits match.
#[derive(Clone, Debug, Default)]
pub struct NameLookup {
    table: hashbrown::HashTable<Slot>,
    hasher: foldhash::fast::FixedState,
}

/// A name's number and the 32 bits of its hash the table places it by.
#[derive(Clone, Copy, Debug)]
struct Slot {
    number: u32,
    hash: u32,
}

impl Slot {
    /// The hash the table places this slot by: its 32 bits twice, so that both the low
    /// bits (which pick the bucket) and the top ones (which the table compares first) come
    /// from them.
    fn table_hash(&self) -> u64 {
        spread(self.hash)
    }

    /// Whether this slot is that of `name` in `list`, given its kept bits `hash`: the bits
    /// compared first, the name only when they match.
    fn holds<'a>(list: &'a NameList, name: &'a str, hash: u32) -> impl Fn(&Slot) -> bool + 'a {
        move |s| s.hash == hash && list.get(s.number as usize) == Some(name)
    }
}

/// A 64-bit table hash made of 32 bits, repeated in both halves.
fn spread(hash: u32) -> u64 {
    (u64::from(hash) << 32) | u64::from(hash)
}

impl NameLookup {
    /// A lookup of every name of `list` (the first of names given twice).
    pub fn of(list: &NameList) -> NameLookup {
        let mut lookup = NameLookup::default();
        lookup.table.reserve(list.len(), Slot::table_hash);
        for (k, name) in list.iter().enumerate() {
            if lookup.find(list, name).is_none() {
                lookup.insert(list, k as u32);
            }
        }
        lookup
    }

    /// The 32 bits of `name`'s hash kept in the table.
    fn hash_of(&self, name: &str) -> u32 {
        (self.hasher.hash_one(name) >> 32) as u32
    }

    /// The number of `name` in `list`.
    pub fn find(&self, list: &NameList, name: &str) -> Option<u32> {
        let hash = self.hash_of(name);
        self.table
            .find(spread(hash), Slot::holds(list, name, hash))
            .map(|s| s.number)
    }

    /// The number of `name` in `list`, added to both when new (hashed once either way).
    pub fn number_of(&mut self, list: &mut NameList, name: &str) -> u32 {
        let hash = self.hash_of(name);
        let entry = self.table.entry(
            spread(hash),
            Slot::holds(list, name, hash),
            Slot::table_hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => found.get().number,
            hashbrown::hash_table::Entry::Vacant(room) => {
                let number = list.push(name);
                room.insert(Slot { number, hash });
                number
            }
        }
    }

    /// Make name `k` of `list` (not found yet) findable.
    pub fn insert(&mut self, list: &NameList, k: u32) {
        let hash = self.hash_of(list.get(k as usize).unwrap_or_default());
        self.table
            .insert_unique(spread(hash), Slot { number: k, hash }, Slot::table_hash);
    }

    /// Let go of the room kept for names still to come.
    pub fn shrink_to_fit(&mut self) {
        self.table.shrink_to_fit(Slot::table_hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_numbered_in_order_and_found_by_name() {
        let mut list = NameList::default();
        let mut lookup = NameLookup::default();
        let names = [
            "Carlsen, Magnus",
            "",
            "Réti",
            "Carlsen, Magnus",
            "Carlsen",
            "",
        ];
        let numbers: Vec<u32> = names
            .iter()
            .map(|n| lookup.number_of(&mut list, n))
            .collect();
        assert_eq!(numbers, [0, 1, 2, 0, 3, 1]);
        assert_eq!(
            list.iter().collect::<Vec<_>>(),
            ["Carlsen, Magnus", "", "Réti", "Carlsen"]
        );
        assert_eq!(list.get(4), None);
        assert_eq!(lookup.find(&list, "Carlsen, Magnus "), None);
        lookup.shrink_to_fit();
        list.shrink_to_fit();
        let again = NameLookup::of(&list);
        for (k, name) in list.iter().enumerate() {
            assert_eq!(again.find(&list, name), Some(k as u32));
            assert_eq!(lookup.find(&list, name), Some(k as u32));
        }
        // Thousands of names, the table grown many times.
        for k in 0..5000 {
            assert_eq!(lookup.number_of(&mut list, &format!("p{k}")), k + 4);
        }
        assert_eq!(lookup.find(&list, "p4321"), Some(4325));
    }

    #[test]
    fn names_whose_kept_hash_bits_are_the_same_are_told_apart_by_their_text() {
        let mut lookup = NameLookup::default();
        let mut seen = std::collections::HashMap::new();
        // Among some 100 000 names two share their 32 kept bits (the birthday bound).
        let (a, b) = (0..1_000_000)
            .map(|k| format!("n{k}"))
            .find_map(|name| {
                let bits = lookup.hash_of(&name);
                seen.insert(bits, name.clone()).map(|before| (before, name))
            })
            .expect("two names with the same kept bits");
        let mut list = NameList::default();
        assert_eq!(lookup.number_of(&mut list, &a), 0);
        assert_eq!(lookup.number_of(&mut list, &b), 1);
        assert_eq!(lookup.number_of(&mut list, &a), 0);
        assert_eq!(lookup.find(&list, &b), Some(1));
        assert_eq!(NameLookup::of(&list).find(&list, &b), Some(1));
    }
}
