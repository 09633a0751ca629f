//! 9x9 Go position databases as collections of SGF files named by their PositionID
//! (`31846ceb8015dc92-0-W.sgf`), grouped by player to move, stone count and each program's
//! score (`to-play/B/`, `stones/5/`, `scores/fuego_chinese/6/`).
//!
//! Positions are numbered in file order at mount; a position removed or replaced keeps its
//! number for the life of the mount (the file itself is rewritten, as the format has no
//! delete mark). A damaged record of the position file, whose PositionID cannot be trusted,
//! is shown after them as `damaged-record-N.sgf` (N its number in the file), which reads as
//! an I/O error and belongs to no view.
//!
//! Another program may write the files during the mount (Cook's tools append positions; a
//! rewrite replaces the file): when the store re-reads them ([`Go9Database::reload_if_changed`],
//! or a save that caught up first), positions new to the mount get the next numbers, in file
//! order, positions still there keep theirs, and positions no longer there are gone, as a
//! removed position is (docs/SEMANTICS.md §10a). Damaged records are matched by their name
//! the same way.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::Collection;
use super::import::{ImportReport, OnBadGame};
use super::naming::unique_components;
use crate::error::{Error, ErrorKind, Result};
use crate::game::go::{Color, PositionId};
use crate::store::go9x9::{Go9Database, PositionSummary};
use crate::store::{Problem, StoreInfo};
use crate::text::{DoneWith, sgf, sgf_parse};

/// One numbered position: what the index says of it, or that it is gone.
#[derive(Clone, Debug)]
struct Slot {
    summary: PositionSummary,
    removed: bool,
}

/// A damaged record of the position file, shown as a file that cannot be read.
#[derive(Clone, Debug)]
struct DamagedItem {
    /// Its file name ([`damaged_name`]).
    name: String,
    /// What is wrong with it.
    problem: String,
    /// No longer in the file (another program rewrote it).
    gone: bool,
}

/// What an item number stands for.
#[derive(Clone, Debug)]
enum Item {
    Position(Slot),
    Damaged(DamagedItem),
}

/// The file name of a damaged record (`number` 1-based in its file).
fn damaged_name(number: usize) -> String {
    format!("damaged-record-{number}.sgf")
}

/// A Go position database shown as SGF files.
pub struct GoCollection {
    db: Go9Database,
    programs: Vec<Arc<str>>,
    slots: RwLock<Slots>,
    /// Held by each change and each re-read, so that what a change numbers and what a
    /// re-read numbers never cross.
    changes: Mutex<()>,
    /// A change found that the store had caught up with another program's writes (and the
    /// items were numbered again): the next [`Collection::reload_if_changed`] answers true.
    caught_up: AtomicBool,
}

/// Every item number: the positions read at open in file order, then the damaged records,
/// then whatever was added since (saves, imports, other programs' positions).
#[derive(Default)]
struct Slots {
    items: Vec<Item>,
    /// The number of each position in the file.
    by_id: HashMap<PositionId, u32>,
    /// The number of each damaged record's name, in the file or gone.
    by_damaged: HashMap<String, u32>,
}

impl Slots {
    fn push(&mut self, summary: PositionSummary) -> u32 {
        let n = self.items.len() as u32;
        self.by_id.insert(summary.id, n);
        self.items.push(Item::Position(Slot {
            summary,
            removed: false,
        }));
        n
    }

    fn push_damaged(&mut self, name: String, problem: String) {
        let n = self.items.len() as u32;
        self.by_damaged.insert(name.clone(), n);
        self.items.push(Item::Damaged(DamagedItem {
            name,
            problem,
            gone: false,
        }));
    }

    fn damaged(&self, n: u32) -> Option<&DamagedItem> {
        match self.items.get(n as usize)? {
            Item::Damaged(d) => Some(d),
            Item::Position(_) => None,
        }
    }

    fn position(&self, n: u32) -> Option<&Slot> {
        match self.items.get(n as usize)? {
            Item::Position(s) => Some(s),
            Item::Damaged(_) => None,
        }
    }

    fn position_mut(&mut self, n: u32) -> Option<&mut Slot> {
        match self.items.get_mut(n as usize)? {
            Item::Position(s) => Some(s),
            Item::Damaged(_) => None,
        }
    }

    /// Number the store's positions and damaged records as they are now: new ones after the
    /// last number, those still there keep theirs, the others are gone (docs/SEMANTICS.md
    /// §10a: item numbers stay stable for the life of a mount).
    fn sync(&mut self, positions: Vec<PositionSummary>, damaged: Vec<(String, String)>) {
        let present: HashSet<PositionId> = positions.iter().map(|p| p.id).collect();
        let gone: Vec<u32> = self
            .by_id
            .iter()
            .filter(|(id, _)| !present.contains(id))
            .map(|(_, &n)| n)
            .collect();
        for n in gone {
            if let Some(slot) = self.position_mut(n) {
                slot.removed = true;
                let id = slot.summary.id;
                self.by_id.remove(&id);
            }
        }
        for summary in positions {
            match self.by_id.get(&summary.id).copied() {
                // Its scores may have changed too.
                Some(n) => {
                    if let Some(slot) = self.position_mut(n) {
                        slot.summary = summary;
                    }
                }
                None => {
                    self.push(summary);
                }
            }
        }
        let now: HashMap<&str, &str> = damaged
            .iter()
            .map(|(name, problem)| (name.as_str(), problem.as_str()))
            .collect();
        for item in &mut self.items {
            if let Item::Damaged(d) = item {
                match now.get(d.name.as_str()) {
                    Some(problem) => {
                        d.problem = (*problem).to_owned();
                        d.gone = false;
                    }
                    None => d.gone = true,
                }
            }
        }
        for (name, problem) in damaged {
            if !self.by_damaged.contains_key(&name) {
                self.push_damaged(name, problem);
            }
        }
    }
}

/// The damaged records of `db` as file names and problems.
fn damaged_items(db: &Go9Database) -> Vec<(String, String)> {
    let file = db.paths().positions.display().to_string();
    db.damaged()
        .iter()
        .map(|d| (damaged_name(d.number), d.describe(&file)))
        .collect()
}

impl GoCollection {
    /// Show `db` as SGF files.
    pub fn new(db: Go9Database) -> GoCollection {
        let positions = db.positions();
        let mut slots = Slots {
            items: Vec::with_capacity(positions.len()),
            by_id: HashMap::with_capacity(positions.len()),
            by_damaged: HashMap::new(),
        };
        for summary in positions {
            slots.push(summary);
        }
        for (name, problem) in damaged_items(&db) {
            slots.push_damaged(name, problem);
        }
        GoCollection {
            programs: db.programs(),
            db,
            slots: RwLock::new(slots),
            changes: Mutex::new(()),
            caught_up: AtomicBool::new(false),
        }
    }

    fn slots(&self) -> std::sync::RwLockReadGuard<'_, Slots> {
        self.slots.read().unwrap_or_else(|p| p.into_inner())
    }

    fn slots_mut(&self) -> std::sync::RwLockWriteGuard<'_, Slots> {
        self.slots.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Taken by every change and re-read (see [`GoCollection::changes`]).
    fn lock_changes(&self) -> std::sync::MutexGuard<'_, ()> {
        self.changes.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn slot(&self, n: u32) -> Option<Slot> {
        self.with_slot(n, Slot::clone)
    }

    /// `f` of position `n`'s slot, without copying it (a listing asks for every name).
    fn with_slot<T>(&self, n: u32, f: impl FnOnce(&Slot) -> T) -> Option<T> {
        self.slots().position(n).map(f)
    }

    /// Damaged record `n`'s file name and problem, if `n` is one.
    fn damaged(&self, n: u32) -> Option<DamagedItem> {
        self.slots().damaged(n).cloned()
    }

    fn live_id(&self, n: u32) -> Result<PositionId> {
        match self.slot(n) {
            Some(s) if !s.removed => Ok(s.summary.id),
            _ => Err(Error::new(
                ErrorKind::NotFound,
                format!("position {} is gone", n + 1),
            )),
        }
    }

    /// Record that position `n` is now `id` (after a save), and that any other number holding
    /// `id` is the same position.
    fn set(&self, n: u32, id: PositionId) {
        let summary = self.db.summary(&id);
        let mut slots = self.slots_mut();
        let Some(old) = slots.position(n).map(|s| s.summary.id) else {
            return;
        };
        if slots.by_id.get(&old) == Some(&n) {
            slots.by_id.remove(&old);
        }
        match (summary, slots.by_id.get(&id).copied()) {
            (Some(summary), None) => {
                slots.by_id.insert(id, n);
                if let Some(slot) = slots.position_mut(n) {
                    *slot = Slot {
                        summary,
                        removed: false,
                    };
                }
            }
            // The saved board was already in the file under another number: this number goes.
            _ => {
                if let Some(slot) = slots.position_mut(n) {
                    slot.removed = true;
                }
            }
        }
    }

    /// Number what the store holds now (another program's positions; docs/SEMANTICS.md
    /// §10a).
    fn resync(&self) {
        let positions = self.db.positions();
        let damaged = damaged_items(&self.db);
        self.slots_mut().sync(positions, damaged);
    }

    /// After a change (successful or not): if the store caught up with another program's
    /// writes on the way, number what it found and tell the tree at its next look.
    fn absorb(&self) {
        match self.db.reload_if_changed() {
            Ok(true) => {
                self.resync();
                self.caught_up.store(true, Ordering::SeqCst);
            }
            Ok(false) => {}
            // The tree's next look re-reads and reports it.
            Err(e) => log::debug!("{e}"),
        }
    }

    /// The result of change `r` after [`GoCollection::absorb`].
    fn absorbed<T>(&self, r: Result<T>) -> Result<T> {
        self.absorb();
        r
    }
}

impl Collection for GoCollection {
    fn items_folder(&self) -> &'static str {
        "positions"
    }

    fn extension(&self) -> &'static str {
        "sgf"
    }

    fn has_delete_mark(&self) -> bool {
        false
    }

    fn info(&self) -> StoreInfo {
        self.db.info()
    }

    fn writable(&self) -> bool {
        self.db.writable()
    }

    fn count(&self) -> u32 {
        self.slots().items.len() as u32
    }

    fn deleted(&self, n: u32) -> bool {
        match self.slots().items.get(n as usize) {
            Some(Item::Position(s)) => s.removed,
            Some(Item::Damaged(d)) => d.gone,
            None => true,
        }
    }

    fn file_name(&self, n: u32) -> String {
        match self.slots().items.get(n as usize) {
            Some(Item::Position(s)) => s.summary.id.file_name(),
            Some(Item::Damaged(d)) => d.name.clone(),
            None => String::new(),
        }
    }

    fn item_label(&self, n: u32) -> String {
        format!("{}/{}", self.items_folder(), self.file_name(n))
    }

    fn problems(&self) -> Vec<Problem> {
        let mut problems: Vec<Problem> = self
            .db
            .score_problems()
            .iter()
            .map(|m| Problem {
                item: None,
                message: m.clone(),
                unreadable: false,
            })
            .collect();
        for (n, item) in self.slots().items.iter().enumerate() {
            if let Item::Damaged(d) = item
                && !d.gone
            {
                problems.push(Problem {
                    item: Some(n as u32),
                    message: d.problem.clone(),
                    unreadable: true,
                });
            }
        }
        problems
    }

    fn item_named(&self, name: &[u8]) -> Option<u32> {
        let name = std::str::from_utf8(name).ok()?;
        let slots = self.slots();
        if let Some(&n) = slots.by_damaged.get(name) {
            return slots.damaged(n).is_some_and(|d| !d.gone).then_some(n);
        }
        let id = PositionId::from_file_name(name)?;
        slots.by_id.get(&id).copied()
    }

    fn views(&self) -> Vec<String> {
        // Program names come from file names: made safe (no control or bidi characters) and
        // unique like every other folder name.
        let mut views = vec!["to-play".to_owned(), "stones".to_owned()];
        let folders = unique_components(self.programs.iter().map(|p| &**p));
        views.extend(folders.iter().map(|p| format!("scores/{p}")));
        views
    }

    fn view_keys(&self, view: usize, n: u32) -> Vec<u32> {
        let Some(slot) = self.slot(n) else {
            return Vec::new();
        };
        let s = &slot.summary;
        match view {
            0 => vec![u32::from(s.id.to_play == Color::White)],
            1 => vec![u32::from(s.stones())],
            v => {
                let program = &self.programs[v - 2];
                s.scores
                    .iter()
                    .filter(|sc| &sc.program == program)
                    .map(|sc| u32::from(sc.score))
                    .collect()
            }
        }
    }

    fn view_label(&self, view: usize, key: u32) -> String {
        match (view, key) {
            (0, 0) => "B".to_owned(),
            (0, _) => "W".to_owned(),
            _ => key.to_string(),
        }
    }

    fn render(&self, n: u32) -> Result<Vec<u8>> {
        if let Some(d) = self.damaged(n).filter(|d| !d.gone) {
            return Err(Error::corrupt_record(d.problem));
        }
        let id = self.live_id(n)?;
        Ok(sgf::render(&self.db.load(&id)?).into_bytes())
    }

    fn save(&self, n: u32, text: &[u8]) -> Result<bool> {
        let _changes = self.lock_changes();
        let old = self.live_id(n)?;
        let parsed = sgf_parse::parse(text).map_err(Error::from)?;
        // The store takes in another program's positions first (docs/SEMANTICS.md §10a);
        // they are numbered after this save has its number.
        let saved = match self.db.save(&parsed.position, Some(&old)) {
            Ok(saved) => saved,
            Err(e) => return self.absorbed(Err(e)),
        };
        if saved.id == old && !saved.appended && saved.removed.is_none() {
            return self.absorbed(Ok(false));
        }
        self.set(n, saved.id);
        self.absorbed(Ok(true))
    }

    fn import(
        &self,
        text: &[u8],
        _on_bad: OnBadGame,
        _done_with: DoneWith<'_>,
    ) -> Result<ImportReport> {
        // One position per text: there is nothing to leave out and go on with.
        Ok(ImportReport {
            numbers: self.import_position(text)?,
            ..ImportReport::default()
        })
    }
    fn set_deleted(&self, n: u32, deleted: bool) -> Result<()> {
        if !deleted {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "removed positions cannot be restored (the format has no delete mark)",
            ));
        }
        let _changes = self.lock_changes();
        let id = self.live_id(n)?;
        if let Err(e) = self.db.remove(&id) {
            return self.absorbed(Err(e));
        }
        {
            let mut slots = self.slots_mut();
            slots.by_id.remove(&id);
            if let Some(slot) = slots.position_mut(n) {
                slot.removed = true;
            }
        }
        self.absorbed(Ok(()))
    }

    /// Notice another program's writes to the files (docs/SEMANTICS.md §10a), or a change
    /// that caught up with them: new positions get the next numbers, the others keep theirs.
    fn reload_if_changed(&self) -> Result<bool> {
        let _changes = self.lock_changes();
        let reloaded = self.db.reload_if_changed()?;
        if reloaded {
            self.resync();
        }
        let caught_up = self.caught_up.swap(false, Ordering::SeqCst);
        Ok(reloaded || caught_up)
    }

    fn fingerprint(&self, n: u32) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        if self.damaged(n).is_some() {
            return None;
        }
        let position = self.db.load(&self.live_id(n).ok()?).ok()?;
        // The text is the position with its id, scores and notes: their Debug form holds
        // every field.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        format!("{position:?}").hash(&mut h);
        Some(h.finish())
    }
}

impl GoCollection {
    /// Store the one position of an SGF `text`; its number, new or already there.
    fn import_position(&self, text: &[u8]) -> Result<Vec<u32>> {
        let _changes = self.lock_changes();
        let parsed = sgf_parse::parse(text).map_err(Error::from)?;
        // As for a save: another program's positions are numbered after this one.
        let saved = match self.db.save(&parsed.position, None) {
            Ok(saved) => saved,
            Err(e) => return self.absorbed(Err(e)),
        };
        let existing = self.slots().by_id.get(&saved.id).copied();
        if let Some(n) = existing {
            return self.absorbed(Ok(vec![n]));
        }
        let Some(summary) = self.db.summary(&saved.id) else {
            return self.absorbed(Err(Error::new(
                ErrorKind::Io,
                format!("position {} vanished after saving", saved.id),
            )));
        };
        let n = self.slots_mut().push(summary);
        self.absorbed(Ok(vec![n]))
    }
}
