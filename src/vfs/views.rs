//! The grouped views of a collection (`players/`, `events/`, … for chess), built from the index
//! alone the first time a view is visited.

use std::collections::HashMap;

use super::inode::View;
use crate::collection::Collection;
use crate::collection::naming::unique_components;

/// One group folder: its name, its key and its live items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    /// The folder name (safe and unique within the view).
    pub name: String,
    /// The key the group's inode numbers are made from.
    pub key: u32,
    /// Numbers of the items in the group, ascending.
    pub games: Vec<u32>,
}

/// (key, item) pairs, items ascending, gathered into groups in key order with their items
/// still ascending: a counting sort when the keys are dense (names, years, ECO codes).
fn group_by_key(pairs: Vec<(u32, u32)>) -> Vec<(u32, Vec<u32>)> {
    let Some(max_key) = pairs.iter().map(|&(key, _)| key).max() else {
        return Vec::new();
    };
    if max_key as usize > pairs.len().max(1 << 16) * 4 {
        // Sparse keys: sorting costs less than a count per possible key.
        let mut pairs = pairs;
        pairs.sort_unstable();
        let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
        for (key, n) in pairs {
            match groups.last_mut() {
                Some((k, items)) if *k == key => items.push(n),
                _ => groups.push((key, vec![n])),
            }
        }
        return groups;
    }
    let mut counts = vec![0u32; max_key as usize + 1];
    for &(key, _) in &pairs {
        counts[key as usize] += 1;
    }
    let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut slot = vec![u32::MAX; counts.len()];
    for (key, &count) in counts.iter().enumerate() {
        if count > 0 {
            slot[key] = groups.len() as u32;
            groups.push((key as u32, Vec::with_capacity(count as usize)));
        }
    }
    for (key, n) in pairs {
        groups[slot[key as usize] as usize].1.push(n);
    }
    groups
}

/// All groups of one view, findable by folder name and by key.
#[derive(Debug, Default)]
pub(crate) struct ViewTable {
    groups: Vec<Group>,
    by_name: HashMap<String, usize>,
    by_key: HashMap<u32, usize>,
}

impl ViewTable {
    /// Group the live items of `collection` for `view`.
    pub(crate) fn build(collection: &dyn Collection, view: View) -> ViewTable {
        let v = usize::from(view.0);
        let members = group_by_key(collection.view_members(v));
        let labels: Vec<String> = members
            .iter()
            .map(|&(key, _)| collection.view_label(v, key))
            .collect();
        let names = unique_components(labels.iter().map(String::as_str));
        let groups: Vec<Group> = members
            .into_iter()
            .zip(names)
            .map(|((key, games), name)| Group { name, key, games })
            .collect();
        let by_name = groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.clone(), i))
            .collect();
        let by_key = groups.iter().enumerate().map(|(i, g)| (g.key, i)).collect();
        ViewTable {
            groups,
            by_name,
            by_key,
        }
    }

    /// Every group, in key order.
    pub(crate) fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The group whose folder is called `name`.
    pub(crate) fn by_name(&self, name: &str) -> Option<&Group> {
        self.by_name.get(name).map(|&i| &self.groups[i])
    }

    /// The group with `key`.
    pub(crate) fn by_key(&self, key: u32) -> Option<&Group> {
        self.by_key.get(&key).map(|&i| &self.groups[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_come_in_key_order_with_items_ascending() {
        let pairs = vec![(5, 0), (2, 0), (5, 1), (0, 2), (2, 3), (5, 3)];
        let want = vec![(0, vec![2]), (2, vec![0, 3]), (5, vec![0, 1, 3])];
        assert_eq!(group_by_key(pairs.clone()), want);
        // The same with keys too sparse for counting.
        let sparse: Vec<(u32, u32)> = pairs.iter().map(|&(k, n)| (k << 28, n)).collect();
        let want_sparse: Vec<(u32, Vec<u32>)> = want
            .into_iter()
            .map(|(k, items)| (k << 28, items))
            .collect();
        assert_eq!(group_by_key(sparse), want_sparse);
        assert!(group_by_key(Vec::new()).is_empty());
    }
}
