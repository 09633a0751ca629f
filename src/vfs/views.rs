//! The grouped views of a collection (`players/`, `events/`, … for chess), built from the index
//! alone the first time a view is visited.

use std::collections::{BTreeMap, HashMap};

use super::inode::View;
use crate::collection::Collection;
use crate::collection::naming::unique_components;

/// One group folder: its name, its key and its live items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The folder name (safe and unique within the view).
    pub name: String,
    /// The key the group's inode numbers are made from.
    pub key: u32,
    /// Numbers of the items in the group, ascending.
    pub games: Vec<u32>,
}

/// All groups of one view, findable by folder name and by key.
#[derive(Debug, Default)]
pub struct ViewTable {
    groups: Vec<Group>,
    by_name: HashMap<String, usize>,
    by_key: HashMap<u32, usize>,
}

impl ViewTable {
    /// Group the live items of `collection` for `view`.
    pub fn build(collection: &dyn Collection, view: View) -> ViewTable {
        let v = usize::from(view.0);
        let mut members: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for n in 0..collection.count() {
            if collection.deleted(n) {
                continue;
            }
            for key in collection.view_keys(v, n) {
                members.entry(key).or_default().push(n);
            }
        }
        let labels: Vec<String> = members
            .keys()
            .map(|&key| collection.view_label(v, key))
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
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The group whose folder is called `name`.
    pub fn by_name(&self, name: &str) -> Option<&Group> {
        self.by_name.get(name).map(|&i| &self.groups[i])
    }

    /// The group with `key`.
    pub fn by_key(&self, key: u32) -> Option<&Group> {
        self.by_key.get(&key).map(|&i| &self.groups[i])
    }
}
