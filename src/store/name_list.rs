//! Names kept one after the other in one string, numbered in the order they came
//! ([`NameList`]), and found by name through a table of their numbers ([`NameLookup`]): a
//! dictionary of millions of names (the sites of a lichess dump, each a game's address) costs
//! the names' bytes and 20–30 bytes a name, not an allocation each.

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

    /// All the names, one after the other: with their lengths, what the list is rebuilt from
    /// ([`NameList::from_joined`]).
    pub fn joined(&self) -> &str {
        &self.text
    }

    /// The names `joined` holds one after the other, as long as `lengths` says in turn (the
    /// list [`NameList::joined`] came from): one copy, not one a name. `None` unless the lengths
    /// add up to `joined`'s and each name ends at a character's end.
    pub fn from_joined(
        joined: &str,
        lengths: impl ExactSizeIterator<Item = usize>,
    ) -> Option<NameList> {
        let mut ends = Vec::with_capacity(lengths.len());
        let mut end = 0usize;
        for len in lengths {
            end = end.checked_add(len)?;
            if !joined.is_char_boundary(end) {
                return None;
            }
            ends.push(end);
        }
        (end == joined.len()).then(|| NameList {
            text: joined.to_owned(),
            ends,
        })
    }

    /// Let go of the room kept for names still to come.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// The numbers of a [`NameList`]'s names, found by name: an open-addressing table (linear
/// probing) of slots, each a name's number beside 32 bits of its hash, never the name. A
/// lookup reads one slot after another from where the bits place the name, mostly within one
/// cache line, and reads a name from the list only when the bits match; growing the table
/// reads no name again. A caller that knows the names it will look up next can have their
/// slots read ahead ([`NameLookup::prefetch`]), which no general-purpose table offers: with
/// a million site names, indexing a lichess-shaped file spent 10 % of its CPU time in
/// `hashbrown`'s table waiting for memory (a control byte, then its slot), and this table
/// read one game ahead made the index 6–8 % faster.
#[derive(Clone, Debug, Default)]
pub struct NameLookup {
    /// A power of two of slots (or none), at most [`MAX_LOAD`] of them used.
    slots: Vec<Slot>,
    /// How many slots hold a name.
    used: usize,
    hasher: foldhash::fast::FixedState,
}

/// A name's number and the 32 bits of its hash that place it in the table.
#[derive(Clone, Copy, Debug)]
struct Slot {
    number: u32,
    hash: u32,
}

/// A slot that holds no name (no name has this number: a list holds fewer than 2^32).
const EMPTY: Slot = Slot {
    number: u32::MAX,
    hash: 0,
};

/// The share of the slots a table fills before it doubles: 3/4 (linear probing slows down
/// fast above it).
const MAX_LOAD: (usize, usize) = (3, 4);

/// Where a probe for a name stopped: at its slot, or at the empty slot it would go in.
enum Probe {
    Found(u32),
    Empty(usize),
}

impl NameLookup {
    /// A lookup of every name of `list` (the first of names given twice).
    pub fn of(list: &NameList) -> NameLookup {
        let mut lookup = NameLookup::default();
        lookup.grow_to(slots_for(list.len()));
        for (k, name) in list.iter().enumerate() {
            let hash = lookup.hash_of(name);
            if let Probe::Empty(at) = lookup.probe(list, name, hash) {
                lookup.put(
                    at,
                    Slot {
                        number: k as u32,
                        hash,
                    },
                );
            }
        }
        lookup
    }

    /// The 32 bits of `name`'s hash kept in the table.
    fn hash_of(&self, name: &str) -> u32 {
        (self.hasher.hash_one(name) >> 32) as u32
    }

    /// The slot of `name` (its kept bits `hash`), or the empty one it would go in. The table
    /// has room (at least one empty slot).
    fn probe(&self, list: &NameList, name: &str, hash: u32) -> Probe {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.number == EMPTY.number {
                return Probe::Empty(at);
            }
            if slot.hash == hash && list.get(slot.number as usize) == Some(name) {
                return Probe::Found(slot.number);
            }
            at = (at + 1) & mask;
        }
    }

    /// Fill the empty slot `at` with `slot`.
    fn put(&mut self, at: usize, slot: Slot) {
        debug_assert_ne!(
            slot.number, EMPTY.number,
            "a list holds fewer than 2^32 names"
        );
        self.slots[at] = slot;
        self.used += 1;
    }

    /// The table with `slots` slots (a power of two, room for every name held), each slot
    /// placed again by its kept bits.
    fn grow_to(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; slots]);
        for slot in old.into_iter().filter(|s| s.number != EMPTY.number) {
            let at = self.empty_from(slot.hash);
            self.slots[at] = slot;
        }
    }

    /// The first empty slot from where `hash` places a name (the table has one).
    fn empty_from(&self, hash: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        while self.slots[at].number != EMPTY.number {
            at = (at + 1) & mask;
        }
        at
    }

    /// Make room for one more name.
    fn room_for_one(&mut self) {
        if (self.used + 1) * MAX_LOAD.1 > self.slots.len() * MAX_LOAD.0 {
            self.grow_to(slots_for(self.used + 1).max(self.slots.len() * 2));
        }
    }

    /// Start reading the slot where a lookup of `name` starts, for one soon after (on x86-64;
    /// elsewhere it does nothing).
    pub fn prefetch(&self, name: &str) {
        #[cfg(target_arch = "x86_64")]
        if let Some(slot) = self
            .slots
            .get(self.hash_of(name) as usize & self.slots.len().wrapping_sub(1))
        {
            // SAFETY: a prefetch only hints the cache; the address is that of a slot.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    std::ptr::from_ref(slot).cast::<i8>(),
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = name;
    }

    /// The number of `name` in `list`.
    pub fn find(&self, list: &NameList, name: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        match self.probe(list, name, self.hash_of(name)) {
            Probe::Found(number) => Some(number),
            Probe::Empty(_) => None,
        }
    }

    /// The number of `name` in `list`, added to both when new (hashed once either way).
    pub fn number_of(&mut self, list: &mut NameList, name: &str) -> u32 {
        let hash = self.hash_of(name);
        self.room_for_one();
        match self.probe(list, name, hash) {
            Probe::Found(number) => number,
            Probe::Empty(at) => {
                let number = list.push(name);
                self.put(at, Slot { number, hash });
                number
            }
        }
    }

    /// Let go of the room kept for names still to come.
    pub fn shrink_to_fit(&mut self) {
        let slots = slots_for(self.used);
        if slots < self.slots.len() {
            self.grow_to(slots);
        }
    }
}

/// The fewest slots (a power of two, at least 16) that hold `names` names within
/// [`MAX_LOAD`].
fn slots_for(names: usize) -> usize {
    (names * MAX_LOAD.1)
        .div_ceil(MAX_LOAD.0)
        .saturating_add(1)
        .next_power_of_two()
        .max(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list rebuilt from its names joined and their lengths is the list; lengths that do
    /// not add up, or cut a character, rebuild none.
    #[test]
    fn a_list_is_rebuilt_from_its_names_joined_and_their_lengths() {
        let mut list = NameList::default();
        for name in ["Carlsen, Magnus", "", "Ж", "é", "https://lichess.org/x"] {
            list.push(name);
        }
        let lengths = || list.iter().map(str::len).collect::<Vec<_>>();
        let rebuilt = NameList::from_joined(list.joined(), lengths().into_iter());
        assert_eq!(rebuilt.as_ref(), Some(&list));
        let mut short = lengths();
        short.pop();
        assert_eq!(
            NameList::from_joined(list.joined(), short.into_iter()),
            None
        );
        // "Ж" cut after its first byte, "é" taking the second.
        let mut cut = lengths();
        (cut[2], cut[3]) = (1, 3);
        assert_eq!(NameList::from_joined(list.joined(), cut.into_iter()), None);
        assert_eq!(
            NameList::from_joined("", [].into_iter()),
            Some(NameList::default())
        );
    }

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
        // Every name is found after the table grew, after it shrank, and when built at once.
        let every = |lookup: &NameLookup| {
            (0..5000).all(|k| lookup.find(&list, &format!("p{k}")) == Some(k + 4))
        };
        assert!(every(&lookup));
        lookup.shrink_to_fit();
        assert!(every(&lookup));
        assert!(every(&NameLookup::of(&list)));
        assert_eq!(lookup.number_of(&mut list, "p4321"), 4325);
        assert_eq!(list.len(), 5004);
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
