//! Names kept one after the other in one string, numbered in the order they came
//! ([`NameList`]), and found by name through a table of their numbers ([`NameLookup`]): a
//! dictionary of millions of names (the sites of a lichess dump, each a game's address) costs
//! the names' bytes and a dozen bytes a name, not an allocation each.

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

/// The numbers of a [`NameList`]'s names, found by name (the table holds numbers only; the
/// names are read from the list).
#[derive(Clone, Debug, Default)]
pub struct NameLookup {
    table: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::FixedState,
}

impl NameLookup {
    /// A lookup of every name of `list` (the first of names given twice).
    pub fn of(list: &NameList) -> NameLookup {
        let mut lookup = NameLookup::default();
        lookup.table.reserve(list.len(), |_| 0);
        for (k, name) in list.iter().enumerate() {
            if lookup.find(list, name).is_none() {
                lookup.insert(list, k as u32);
            }
        }
        lookup
    }

    /// The number of `name` in `list`.
    pub fn find(&self, list: &NameList, name: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(name);
        self.table
            .find(hash, |&k| list.get(k as usize) == Some(name))
            .copied()
    }

    /// The number of `name` in `list`, added to both when new (hashed once either way).
    pub fn number_of(&mut self, list: &mut NameList, name: &str) -> u32 {
        let names = &*list;
        let entry = self.table.entry(
            self.hasher.hash_one(name),
            |&k| names.get(k as usize) == Some(name),
            rehash(&self.hasher, names),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(room) => {
                let k = list.push(name);
                room.insert(k);
                k
            }
        }
    }

    /// Make name `k` of `list` (not found yet) findable.
    pub fn insert(&mut self, list: &NameList, k: u32) {
        let rehash = rehash(&self.hasher, list);
        self.table.insert_unique(rehash(&k), k, rehash);
    }

    /// Let go of the room kept for names still to come.
    pub fn shrink_to_fit(&mut self, list: &NameList) {
        self.table.shrink_to_fit(rehash(&self.hasher, list));
    }
}

/// The hash of name number `k` of `list`, for the table to place its numbers by.
fn rehash<'a>(
    hasher: &'a foldhash::fast::FixedState,
    list: &'a NameList,
) -> impl Fn(&u32) -> u64 + Copy + 'a {
    move |&k| hasher.hash_one(list.get(k as usize).unwrap_or_default())
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
        lookup.shrink_to_fit(&list);
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
}
