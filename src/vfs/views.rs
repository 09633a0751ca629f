//! The grouped views (`players/`, `events/`, `sites/`, `years/`, `eco/`), built from the index
//! alone the first time a view is visited.

use std::collections::{BTreeMap, HashMap};

use super::inode::View;
use super::naming::unique_components;
use crate::store::{ChessStore, NameKind, eco_text};

/// One group folder: its name, its key (name ID, year or ECO number) and its live games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The folder name (safe and unique within the view).
    pub name: String,
    /// The key the group's inode numbers are made from.
    pub key: u32,
    /// 0-based numbers of the games in the group, ascending.
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
    /// Group the live games of `store` for `view`.
    pub fn build(store: &dyn ChessStore, view: View) -> ViewTable {
        let mut members: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for n in 0..store.game_count() {
            let s = store.summary(n);
            if s.deleted {
                continue;
            }
            let keys = match view {
                View::Players if s.white == s.black => [Some(s.white), None],
                View::Players => [Some(s.white), Some(s.black)],
                View::Events => [Some(s.event), None],
                View::Sites => [Some(s.site), None],
                View::Years => [Some(u32::from(s.date.year.unwrap_or(0))), None],
                View::Eco => [Some(u32::from(s.eco)), None],
            };
            for key in keys.into_iter().flatten() {
                members.entry(key).or_default().push(n);
            }
        }
        let labels: Vec<String> = members.keys().map(|&key| label(store, view, key)).collect();
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

/// The text a group folder is named after, before it is made safe.
fn label(store: &dyn ChessStore, view: View, key: u32) -> String {
    match view {
        View::Players => store.name(NameKind::Player, key).to_string(),
        View::Events => store.name(NameKind::Event, key).to_string(),
        View::Sites => store.name(NameKind::Site, key).to_string(),
        View::Years if key == 0 => "unknown".to_owned(),
        View::Years => format!("{key:04}"),
        View::Eco => eco_text(key as u16).unwrap_or_default(),
    }
}
