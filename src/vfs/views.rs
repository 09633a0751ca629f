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
    /// In a view of both sides' players, which of `items` are in their group as White's and
    /// as Black's (a bit per item, in `items`' order): a player's games of one colour are then
    /// picked from the group without reading each game's index entry again (at ten million
    /// games, tens of milliseconds for a player's hundreds of thousands).
    sides: Option<[Vec<u64>; 2]>,
}

impl Grouped {
    /// Where the items of group `k` are in `items`.
    fn range(&self, k: usize) -> std::ops::Range<usize> {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        start as usize..self.ends[k] as usize
    }

    /// The items of group `k`.
    fn items(&self, k: usize) -> &[u32] {
        &self.items[self.range(k)]
    }

    /// The items of group `k` on `side` (as White's or Black's), when the sides are kept.
    fn side_items(&self, k: usize, side: Side) -> Option<Vec<u32>> {
        let bits = &self.sides.as_ref()?[side as usize];
        Some(
            self.range(k)
                .filter(|&i| bits[i / 64] & (1 << (i % 64)) != 0)
                .map(|i| self.items[i])
                .collect(),
        )
    }
}

/// The top bits of a pair's item marking it White's ([`SIDE_BITS`]) and Black's.
const WHITE_BIT: u32 = 1 << 31;
const BLACK_BIT: u32 = 1 << 30;
/// The bits of an item that are its number, when sides are marked in the others: a
/// collection of fewer than 2^30 items (a billion games) has its sides kept.
const ITEM_BITS: u32 = BLACK_BIT - 1;

/// Mark each pair of a view of both sides' players with the side its group is of the item:
/// an item's first pair is White's, its last Black's (one pair for both when the same player
/// has both sides); false, with the pairs left as they are, when the items do not leave the
/// top bits free.
fn mark_sides(pairs: &mut [(u32, u32)]) -> bool {
    if pairs.iter().any(|&(_, n)| n > ITEM_BITS) {
        return false;
    }
    for i in 0..pairs.len() {
        let n = pairs[i].1;
        let first = i == 0 || pairs[i - 1].1 & ITEM_BITS != n;
        let last = pairs.get(i + 1).is_none_or(|p| p.1 != n);
        pairs[i].1 |= if first { WHITE_BIT } else { 0 } | if last { BLACK_BIT } else { 0 };
    }
    true
}

/// Take the side marks ([`mark_sides`]) out of the grouped items into bits.
fn unmark_sides(grouped: &mut Grouped) {
    let mut sides = [
        vec![0u64; grouped.items.len().div_ceil(64)],
        vec![0u64; grouped.items.len().div_ceil(64)],
    ];
    for (i, n) in grouped.items.iter_mut().enumerate() {
        for (side, bit) in [(0, WHITE_BIT), (1, BLACK_BIT)] {
            if *n & bit != 0 {
                sides[side][i / 64] |= 1 << (i % 64);
            }
        }
        *n &= ITEM_BITS;
    }
    grouped.sides = Some(sides);
}

/// (key, item) pairs, items ascending, gathered into groups in key order with their items
/// still ascending (compared on `item_bits` only: the others may mark the pair): a counting
/// sort when the keys are dense (names, years, ECO codes).
fn group_by_key(mut pairs: Vec<(u32, u32)>, item_bits: u32) -> Grouped {
    let Some(max_key) = pairs.iter().map(|&(key, _)| key).max() else {
        return Grouped::default();
    };
    let mut grouped = Grouped::default();
    if max_key as usize > pairs.len().max(1 << 16) * 4 {
        // Sparse keys: sorting costs less than a count per possible key.
        pairs.sort_unstable_by_key(|&(key, n)| (key, n & item_bits));
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
        let mut pairs = collection.view_members(v);
        let sides = collection.view_has_sides(v) && mark_sides(&mut pairs);
        let mut grouped = group_by_key(pairs, if sides { ITEM_BITS } else { u32::MAX });
        if sides {
            unmark_sides(&mut grouped);
        }
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
        let k = self.grouped.keys.binary_search(&key).ok()?;
        let group = self.group(k);
        let items: Arc<[u32]> = match side {
            None => group.games.into(),
            Some(side) if let Some(items) = self.grouped.side_items(k, side) => items.into(),
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
        assert_eq!(as_pairs(&group_by_key(pairs.clone(), u32::MAX)), want);
        // The same with keys too sparse for counting.
        let sparse: Vec<(u32, u32)> = pairs.iter().map(|&(k, n)| (k << 28, n)).collect();
        let want_sparse: Vec<(u32, Vec<u32>)> = want
            .into_iter()
            .map(|(k, items)| (k << 28, items))
            .collect();
        assert_eq!(as_pairs(&group_by_key(sparse, u32::MAX)), want_sparse);
        assert!(group_by_key(Vec::new(), u32::MAX).keys.is_empty());
    }

    #[test]
    fn each_players_games_of_each_colour_are_kept_apart() {
        // Game 0: 5 against 7; game 1: 7 against 5; game 2: 9 against himself; game 3: 7
        // against 9 (each game's White first, as `view_members` gives them).
        let pairs = [(5, 0), (7, 0), (7, 1), (5, 1), (9, 2), (7, 3), (9, 3)];
        let want = [
            (5, [vec![0], vec![1]]),
            (7, [vec![1, 3], vec![0]]),
            (9, [vec![2], vec![2, 3]]),
        ];
        for spread in [0, 24] {
            let mut marked: Vec<(u32, u32)> =
                pairs.iter().map(|&(k, n)| (k << spread, n)).collect();
            assert!(mark_sides(&mut marked));
            let mut grouped = group_by_key(marked, ITEM_BITS);
            unmark_sides(&mut grouped);
            for (k, (key, [white, black])) in want.iter().enumerate() {
                assert_eq!(grouped.keys[k], key << spread);
                assert_eq!(grouped.side_items(k, Side::White).as_ref(), Some(white));
                assert_eq!(grouped.side_items(k, Side::Black).as_ref(), Some(black));
            }
            assert_eq!(grouped.items(1), [0, 1, 3], "items ascending, unmarked");
        }
        // Items that need the top bits are not marked: the sides are then read per game.
        assert!(!mark_sides(&mut [(1, ITEM_BITS + 1)]));
    }
}
