//! The grouped views of a collection (`players/`, `events/`, … for chess), built from the index
//! alone the first time a view is visited.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::inode::View;
use super::lock;
use super::slices::Side;
use crate::collection::Collection;
use crate::collection::naming::UniqueNames;

/// One group folder: its name, its key and its live items (borrowed from its [`ViewTable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Group<'a> {
    /// The folder name (safe and unique within the view).
    pub name: &'a str,
    /// The key the group's inode numbers are made from.
    pub key: u32,
    /// Numbers of the items in the group, ascending.
    pub games: &'a [u32],
}

/// Groups in key order, each with its items: the keys ascending, where each group's items
/// end in `items` (they start where the group before's end), and the items of all groups one
/// after the other, each group's ascending. One array each, not one per group: a view of
/// millions of groups (the sites of a lichess dump, each a game's address) costs a few bytes a
/// group besides its name.
#[derive(Debug, Default, PartialEq, Eq)]
struct Grouped {
    keys: Vec<u32>,
    ends: Vec<u32>,
    items: Vec<u32>,
}

impl Grouped {
    /// The items of group `k`.
    fn items(&self, k: usize) -> &[u32] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.items[start as usize..self.ends[k] as usize]
    }
}

/// (key, item) pairs, items ascending, gathered into groups in key order with their items
/// still ascending: a counting sort when the keys are dense (names, years, ECO codes).
fn group_by_key(mut pairs: Vec<(u32, u32)>) -> Grouped {
    let Some(max_key) = pairs.iter().map(|&(key, _)| key).max() else {
        return Grouped::default();
    };
    let mut grouped = Grouped::default();
    if max_key as usize > pairs.len().max(1 << 16) * 4 {
        // Sparse keys: sorting costs less than a count per possible key.
        pairs.sort_unstable();
        grouped.items.reserve_exact(pairs.len());
        for (key, n) in pairs {
            if grouped.keys.last() != Some(&key) {
                if !grouped.keys.is_empty() {
                    grouped.ends.push(grouped.items.len() as u32);
                }
                grouped.keys.push(key);
            }
            grouped.items.push(n);
        }
        grouped.ends.push(grouped.items.len() as u32);
        return grouped;
    }
    // Each key's count, then where its items go: after those of the keys before it.
    let mut next = vec![0u32; max_key as usize + 1];
    for &(key, _) in &pairs {
        next[key as usize] += 1;
    }
    let mut at = 0;
    for (key, slot) in next.iter_mut().enumerate() {
        let count = *slot;
        if count > 0 {
            grouped.keys.push(key as u32);
            *slot = at;
            at += count;
            grouped.ends.push(at);
        }
    }
    grouped.items = vec![0; pairs.len()];
    for (key, n) in pairs {
        let slot = &mut next[key as usize];
        grouped.items[*slot as usize] = n;
        *slot += 1;
    }
    grouped
}

/// All groups of one view, findable by folder name and by key.
#[derive(Debug, Default)]
pub(crate) struct ViewTable {
    /// The view's index in the collection.
    view: usize,
    grouped: Grouped,
    /// Group k's folder name is name k.
    names: UniqueNames,
    /// The items of groups as arrays ([`ViewTable::items`]), made when first asked for:
    /// they go with the table when the items change.
    slices: Mutex<GroupItems>,
}

/// The items of groups, all or on one side, by group key and side.
type GroupItems = HashMap<(u32, Option<Side>), Arc<[u32]>>;

impl ViewTable {
    /// Group the live items of `collection` for `view`.
    pub(crate) fn build(collection: &dyn Collection, view: View) -> ViewTable {
        let v = usize::from(view.0);
        let mut grouped = group_by_key(collection.view_members(v));
        grouped.keys.shrink_to_fit();
        grouped.ends.shrink_to_fit();
        let mut names = UniqueNames::default();
        for &key in &grouped.keys {
            names.push(&collection.view_label(v, key));
        }
        names.shrink_to_fit();
        ViewTable {
            view: v,
            grouped,
            names,
            slices: Mutex::default(),
        }
    }

    /// How many groups there are.
    pub(crate) fn len(&self) -> usize {
        self.grouped.keys.len()
    }

    /// Group `k` (in key order).
    fn group(&self, k: usize) -> Group<'_> {
        Group {
            name: self.names.get(k),
            key: self.grouped.keys[k],
            games: self.grouped.items(k),
        }
    }

    /// The groups from the `first` on, in key order, each with its place: a listing that goes
    /// on from where the kernel stopped starts there at once, not by stepping over the groups
    /// before it.
    pub(crate) fn groups_from(
        &self,
        first: usize,
    ) -> impl Iterator<Item = (usize, Group<'_>)> + '_ {
        (first.min(self.len())..self.len()).map(|k| (k, self.group(k)))
    }

    /// The group whose folder is called `name`.
    pub(crate) fn by_name(&self, name: &str) -> Option<Group<'_>> {
        self.names.find(name).map(|k| self.group(k))
    }

    /// The group with `key`.
    pub(crate) fn by_key(&self, key: u32) -> Option<Group<'_>> {
        self.grouped
            .keys
            .binary_search(&key)
            .ok()
            .map(|k| self.group(k))
    }

    /// The items of group `key`, ascending, as one array shared with the trees made of
    /// them: all of them, or with `side` those where the group is that side's (a player's
    /// games with that colour) in a view that has sides ([`Collection::view_has_sides`]: an
    /// item's first key is White's, its last Black's). Made when first asked for and kept
    /// with the table; `None` when there is no such group.
    pub(crate) fn items(
        &self,
        key: u32,
        side: Option<Side>,
        collection: &dyn Collection,
    ) -> Option<Arc<[u32]>> {
        if let Some(items) = lock(&self.slices).get(&(key, side)) {
            return Some(items.clone());
        }
        let group = self.by_key(key)?;
        let items: Arc<[u32]> = match side {
            None => group.games.into(),
            Some(side) => group
                .games
                .iter()
                .copied()
                .filter(|&n| {
                    let keys = collection.view_keys(self.view, n);
                    let on_side = match side {
                        Side::White => keys.first(),
                        Side::Black => keys.last(),
                    };
                    on_side == Some(&key)
                })
                .collect(),
        };
        lock(&self.slices).insert((key, side), items.clone());
        Some(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The groups of `grouped` as (key, items) pairs.
    fn as_pairs(grouped: &Grouped) -> Vec<(u32, Vec<u32>)> {
        (0..grouped.keys.len())
            .map(|k| (grouped.keys[k], grouped.items(k).to_vec()))
            .collect()
    }

    #[test]
    fn groups_come_in_key_order_with_items_ascending() {
        let pairs = vec![(5, 0), (2, 0), (5, 1), (0, 2), (2, 3), (5, 3)];
        let want = vec![(0, vec![2]), (2, vec![0, 3]), (5, vec![0, 1, 3])];
        assert_eq!(as_pairs(&group_by_key(pairs.clone())), want);
        // The same with keys too sparse for counting.
        let sparse: Vec<(u32, u32)> = pairs.iter().map(|&(k, n)| (k << 28, n)).collect();
        let want_sparse: Vec<(u32, Vec<u32>)> = want
            .into_iter()
            .map(|(k, items)| (k << 28, items))
            .collect();
        assert_eq!(as_pairs(&group_by_key(sparse)), want_sparse);
        assert!(group_by_key(Vec::new()).keys.is_empty());
    }
}
