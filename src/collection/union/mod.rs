//! A folder of chess databases as one collection: one `games/` and one set of views over
//! every member (PGN files and dumps, SCID 4 and 5, Simple Chess Databases), each member a
//! [`Collection`] opened on its own, wherever its bytes come from.
//!
//! - **Numbers**: union numbers stand for (member, member's number), stable for the mount
//!   (`numbering`).
//! - **Names**: a game's file is its member's name, `--`, then the name the game has when
//!   its member is mounted alone: `twic1500--0042 Carlsen, Magnus - Nakamura, Hikaru
//!   2019.pgn` ([`discover::member_names`], `naming::member_file_name`).
//!   `ls games/twic1500--*` lists one member's games, in order.
//! - **Views**: groups merged by folder name (`groups`): `players/Carlsen, Magnus/` holds
//!   his games from every member.
//! - **Saves** go to the game's own member (refused as that member refuses them, a PGN file
//!   being only read); a deletion marks the game in its member; new games go to the member
//!   named by `-o into=`, and are refused (EPERM) without it.

pub mod discover;
mod groups;
mod numbering;
mod open;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard};

pub use open::{open_archive, open_folder};

use super::import::{ImportReport, OnBadGame};
use super::naming::{MEMBER_SEPARATOR, member_file_name};
use super::{Collection, MemberStats};
use crate::error::{Error, ErrorKind, Result};
use crate::store::{Problem, StoreInfo};
use crate::text::DoneWith;
use groups::MergedGroups;
use numbering::Numbering;

/// One database of the folder.
pub struct Member {
    /// The name its games' files start with (unique in the folder).
    pub name: String,
    /// The database.
    pub collection: Arc<dyn Collection>,
}

/// Several chess collections shown as one.
pub struct UnionCollection {
    members: Vec<Member>,
    /// Each member by its name.
    by_name: HashMap<String, usize>,
    numbering: RwLock<Numbering>,
    /// Each view's groups, merged by name.
    groups: Vec<Mutex<MergedGroups>>,
    /// The files of the folder that did not open, each with why.
    skipped: Vec<MemberStats>,
    /// The member new games go to.
    into: Option<usize>,
    /// What the folder is, for `info`.
    format: String,
}

impl UnionCollection {
    /// The members as one collection, in their order; `skipped` lists files that did not
    /// open (shown in the stats and problems), `into` names the member new games go to.
    /// Fails when there is no member, when members' views differ (only chess databases
    /// go together) or when `into` names no member.
    pub fn new(
        members: Vec<Member>,
        skipped: Vec<MemberStats>,
        into: Option<&str>,
        what: &str,
    ) -> Result<UnionCollection> {
        let Some(first) = members.first() else {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("{what}: no database"),
            ));
        };
        let views = first.collection.views();
        if let Some(odd) = members
            .iter()
            .find(|m| m.collection.views() != views || !m.collection.has_positions())
        {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "{what}: {} is not a chess database like {}: only chess databases mount as one",
                    odd.name, first.name
                ),
            ));
        }
        let by_name: HashMap<String, usize> = members
            .iter()
            .enumerate()
            .map(|(k, m)| (m.name.clone(), k))
            .collect();
        let into = into
            .map(|name| {
                by_name.get(name).copied().ok_or_else(|| {
                    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
                    Error::new(
                        ErrorKind::InvalidInput,
                        format!(
                            "into={name}: {what} holds no database named so (its databases: {})",
                            names.join(", ")
                        ),
                    )
                })
            })
            .transpose()?;
        if let Some(k) = into.filter(|&k| !members[k].collection.writable()) {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                format!(
                    "into={}: {} is not open for writing, so new games cannot go there (a PGN \
                     file is only read)",
                    members[k].name, members[k].name
                ),
            ));
        }
        let counts: Vec<u32> = members.iter().map(|m| m.collection.count()).collect();
        Ok(UnionCollection {
            numbering: RwLock::new(Numbering::new(&counts)),
            groups: views
                .iter()
                .map(|_| Mutex::new(MergedGroups::new(members.len())))
                .collect(),
            format: format!("a folder of {} databases mounted as one", members.len()),
            members,
            by_name,
            skipped,
            into,
        })
    }

    fn numbering(&self) -> RwLockReadGuard<'_, Numbering> {
        self.numbering.read().unwrap_or_else(|p| p.into_inner())
    }

    fn groups(&self, view: usize) -> MutexGuard<'_, MergedGroups> {
        self.groups[view].lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The member index and member's number of item `n`.
    fn place(&self, n: u32) -> Result<(usize, u32)> {
        self.numbering()
            .locate(n)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("no game numbered {}", n + 1)))
    }

    /// The member and member's number of item `n`.
    fn locate(&self, n: u32) -> Result<(&Member, u32)> {
        let (k, local) = self.place(n)?;
        Ok((&self.members[k], local))
    }

    /// The union number of member `m`'s item `local`.
    fn global(&self, m: usize, local: u32) -> Option<u32> {
        self.numbering().global(m, local)
    }

    /// Member `m` changed (a save, an import, a re-read): number the items it gained and
    /// forget what its group keys stood for.
    fn member_changed(&self, m: usize) {
        let count = self.members[m].collection.count();
        self.numbering
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .grow(m, count);
        for view in 0..self.groups.len() {
            self.groups(view).forget_member(m);
        }
    }
}

impl Collection for UnionCollection {
    fn items_folder(&self) -> &'static str {
        self.members[0].collection.items_folder()
    }

    fn extension(&self) -> &'static str {
        self.members[0].collection.extension()
    }

    fn has_delete_mark(&self) -> bool {
        self.members.iter().any(|m| m.collection.has_delete_mark())
    }

    /// The members' files, one member after the other; modified when the newest member was.
    fn info(&self) -> StoreInfo {
        let infos: Vec<StoreInfo> = self.members.iter().map(|m| m.collection.info()).collect();
        StoreInfo {
            format: self.format.clone(),
            modified: infos
                .iter()
                .map(|i| i.modified)
                .max()
                .unwrap_or(std::time::UNIX_EPOCH),
            files: infos.into_iter().flat_map(|i| i.files).collect(),
        }
    }

    fn writable(&self) -> bool {
        self.members.iter().any(|m| m.collection.writable())
    }

    fn count(&self) -> u32 {
        self.numbering().count()
    }

    fn deleted(&self, n: u32) -> bool {
        // A number whose member no longer holds it (re-read shorter) is gone.
        match self.locate(n) {
            Ok((m, local)) => local >= m.collection.count() || m.collection.deleted(local),
            Err(_) => true,
        }
    }

    fn file_name(&self, n: u32) -> String {
        match self.locate(n) {
            Ok((m, local)) => member_file_name(&m.name, &m.collection.file_name(local)),
            Err(_) => format!("{}.{}", n + 1, self.extension()),
        }
    }

    fn item_label(&self, n: u32) -> String {
        match self.locate(n) {
            Ok((m, local)) => format!("{}: {}", m.name, m.collection.item_label(local)),
            Err(_) => format!("item {}", n + 1),
        }
    }

    /// The members' problems (those of a whole database named after its member), then one
    /// for each file that did not open.
    fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        for (k, m) in self.members.iter().enumerate() {
            for p in m.collection.problems() {
                let item = p.item.and_then(|local| self.global(k, local));
                let message = match item {
                    Some(_) => p.message,
                    None => format!("{}: {}", m.name, p.message),
                };
                out.push(Problem {
                    item,
                    message,
                    unreadable: p.unreadable && item.is_some(),
                });
            }
        }
        out.extend(self.skipped.iter().map(|s| Problem {
            item: None,
            message: format!(
                "{}: not mounted: {}",
                s.info.files.first().map_or(String::new(), |f| f.display().to_string()),
                s.skipped.as_deref().unwrap_or_default()
            ),
            unreadable: false,
        }));
        out
    }

    /// `MEMBER--NAME` where NAME is a name the member takes for one of its items.
    fn item_named(&self, name: &[u8]) -> Option<u32> {
        let sep = MEMBER_SEPARATOR.as_bytes();
        (0..name.len().saturating_sub(sep.len()))
            .filter(|&at| name[at..].starts_with(sep))
            .find_map(|at| {
                let member = std::str::from_utf8(&name[..at]).ok()?;
                let &k = self.by_name.get(member)?;
                let local = self.members[k]
                    .collection
                    .item_named(&name[at + sep.len()..])?;
                self.global(k, local)
            })
    }

    fn views(&self) -> Vec<String> {
        self.members[0].collection.views()
    }

    fn view_keys(&self, view: usize, n: u32) -> Vec<u32> {
        let Ok((k, local)) = self.place(n) else {
            return Vec::new();
        };
        let member = &*self.members[k].collection;
        let keys = member.view_keys(view, local);
        let mut groups = self.groups(view);
        keys.into_iter()
            .map(|key| groups.key(k, key, || member.view_label(view, key)))
            .collect()
    }

    fn view_members(&self, view: usize) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.count() as usize);
        for (k, m) in self.members.iter().enumerate() {
            let pairs = m.collection.view_members(view);
            let numbering = self.numbering();
            let mut groups = self.groups(view);
            out.extend(pairs.into_iter().filter_map(|(key, local)| {
                let n = numbering.global(k, local)?;
                Some((groups.key(k, key, || m.collection.view_label(view, key)), n))
            }));
        }
        if !self.numbering().in_member_order() {
            // Stable: an item's pairs keep the order `view_keys` gives them (White's first).
            out.sort_by_key(|&(_, n)| n);
        }
        out
    }

    fn query(
        &self,
        query: &crate::collection::query::Query,
        _index: Option<&crate::collection::query::HeaderIndex>,
        _changed: &[u32],
    ) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        for (k, m) in self.members.iter().enumerate() {
            let found = m.collection.query(query, None, &[]).unwrap_or_default();
            let numbering = self.numbering();
            out.extend(
                found
                    .into_iter()
                    .filter_map(|local| numbering.global(k, local)),
            );
        }
        if !self.numbering().in_member_order() {
            out.sort_unstable();
        }
        Some(out)
    }

    fn view_label(&self, view: usize, key: u32) -> String {
        self.groups(view).label(key).to_owned()
    }

    fn view_has_sides(&self, view: usize) -> bool {
        // Each member's keys mapped in their order (`view_keys`).
        self.members[0].collection.view_has_sides(view)
    }

    fn render(&self, n: u32) -> Result<Vec<u8>> {
        let (m, local) = self.locate(n)?;
        m.collection.render(local)
    }

    fn render_into(&self, n: u32, out: &mut Vec<u8>) -> Result<()> {
        let (m, local) = self.locate(n)?;
        m.collection.render_into(local, out)
    }

    fn check(&self, n: u32) -> Result<()> {
        let (m, local) = self.locate(n)?;
        m.collection.check(local)
    }

    /// Each member's known sizes (a PGN file's, not a SCID database's), in the union's
    /// numbering.
    fn known_sizes(&self) -> Option<Vec<Option<u64>>> {
        let per_member: Vec<Option<Vec<Option<u64>>>> = self
            .members
            .iter()
            .map(|m| m.collection.known_sizes())
            .collect();
        if per_member.iter().all(Option::is_none) {
            return None;
        }
        let numbering = self.numbering();
        Some(
            (0..numbering.count())
                .map(|n| {
                    let (k, local) = numbering.locate(n)?;
                    per_member[k]
                        .as_ref()?
                        .get(local as usize)
                        .copied()
                        .flatten()
                })
                .collect(),
        )
    }

    fn save(&self, n: u32, text: &[u8]) -> Result<bool> {
        let (k, local) = self.place(n)?;
        let member = &self.members[k];
        let changed = member
            .collection
            .save(local, text)
            .map_err(|e| e.context(&member.name))?;
        self.member_changed(k);
        Ok(changed)
    }

    /// Into the member `-o into=` names; refused (EPERM) without one.
    fn import(
        &self,
        text: &[u8],
        on_bad: OnBadGame,
        done_with: DoneWith<'_>,
    ) -> Result<ImportReport> {
        let Some(k) = self.into else {
            return Err(Error::new(
                ErrorKind::NotPermitted,
                "a new game belongs to no database of the folder: mount with -o into=NAME \
                 (NAME a database of the folder, as its games' names start) to store new games \
                 there (docs/guide/folders.md)",
            ));
        };
        let member = &self.members[k];
        let mut report = member
            .collection
            .import(text, on_bad, done_with)
            .map_err(|e| e.context(&member.name))?;
        self.member_changed(k);
        report.numbers = report
            .numbers
            .iter()
            .filter_map(|&local| self.global(k, local))
            .collect();
        Ok(report)
    }

    fn set_deleted(&self, n: u32, deleted: bool) -> Result<()> {
        let (k, local) = self.place(n)?;
        let member = &self.members[k];
        member
            .collection
            .set_deleted(local, deleted)
            .map_err(|e| e.context(&member.name))?;
        self.member_changed(k);
        Ok(())
    }

    fn reload_if_changed(&self) -> Result<bool> {
        // Every member is looked at, even after one fails: another program's changes to the
        // others still show.
        let mut any = false;
        let mut first_error = None;
        for (k, m) in self.members.iter().enumerate() {
            match m.collection.reload_if_changed() {
                Ok(true) => {
                    self.member_changed(k);
                    any = true;
                }
                Ok(false) => {}
                Err(e) => {
                    first_error.get_or_insert(e.context(&m.name));
                }
            }
        }
        match first_error {
            Some(e) if !any => Err(e),
            Some(e) => {
                log::error!("{e}");
                Ok(true)
            }
            None => Ok(any),
        }
    }

    fn fingerprint(&self, n: u32) -> Option<u64> {
        let (m, local) = self.locate(n).ok()?;
        m.collection.fingerprint(local)
    }

    fn ending_entry(&self, n: u32, codes: &[u32]) -> Result<Option<String>> {
        let (m, local) = self.locate(n)?;
        m.collection.ending_entry(local, codes)
    }

    fn main_line(&self, n: u32) -> Option<Result<super::positions::line::GameLine>> {
        match self.locate(n) {
            Ok((m, local)) => m.collection.main_line(local),
            Err(e) => Some(Err(e)),
        }
    }

    fn has_positions(&self) -> bool {
        true
    }

    fn member_of(&self, n: u32) -> Option<(usize, u32)> {
        self.numbering().locate(n)
    }

    /// The members that opened (in the order [`Collection::member_of`] numbers them), then
    /// the files that did not.
    fn members(&self) -> Vec<MemberStats> {
        self.members
            .iter()
            .map(|m| MemberStats::of(&m.name, &*m.collection))
            .chain(self.skipped.iter().cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests;
