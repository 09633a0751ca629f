//! 9x9 Go position databases as collections of SGF files named by their PositionID
//! (`31846ceb8015dc92-0-W.sgf`), grouped by player to move, stone count and each program's
//! score (`to-play/B/`, `stones/5/`, `scores/fuego_chinese/6/`).
//!
//! Positions are numbered in file order at mount; a position removed or replaced keeps its
//! number for the life of the mount (the file itself is rewritten, as the format has no
//! delete mark). A damaged record of the position file, whose PositionID cannot be trusted,
//! is shown after them as `damaged-record-N.sgf` (N its number in the file), which reads as
//! an I/O error and belongs to no view.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

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

/// The file name of a damaged record (`number` 1-based in its file).
fn damaged_name(number: usize) -> String {
    format!("damaged-record-{number}.sgf")
}

/// A Go position database shown as SGF files.
pub struct GoCollection {
    db: Go9Database,
    programs: Vec<Arc<str>>,
    slots: RwLock<Slots>,
    damaged: Damaged,
}

#[derive(Default)]
struct Slots {
    items: Vec<Slot>,
    by_id: HashMap<PositionId, u32>,
}

/// The damaged records, numbered after the positions read at open (a damaged database is
/// read-only, so no position is added after them).
#[derive(Default)]
struct Damaged {
    /// The first item number of a damaged record.
    first: u32,
    /// File name and problem of each.
    items: Vec<(String, String)>,
}

impl Damaged {
    fn get(&self, n: u32) -> Option<&(String, String)> {
        self.items.get(n.checked_sub(self.first)? as usize)
    }
}

impl Slots {
    fn push(&mut self, summary: PositionSummary) -> u32 {
        let n = self.items.len() as u32;
        self.by_id.insert(summary.id, n);
        self.items.push(Slot {
            summary,
            removed: false,
        });
        n
    }
}

impl GoCollection {
    /// Show `db` as SGF files.
    pub fn new(db: Go9Database) -> GoCollection {
        let positions = db.positions();
        let mut slots = Slots {
            items: Vec::with_capacity(positions.len()),
            by_id: HashMap::with_capacity(positions.len()),
        };
        for summary in positions {
            slots.push(summary);
        }
        let file = db.paths().positions.display().to_string();
        let damaged = Damaged {
            first: slots.items.len() as u32,
            items: db
                .damaged()
                .iter()
                .map(|d| (damaged_name(d.number), d.describe(&file)))
                .collect(),
        };
        GoCollection {
            programs: db.programs(),
            db,
            slots: RwLock::new(slots),
            damaged,
        }
    }

    fn slot(&self, n: u32) -> Option<Slot> {
        self.with_slot(n, Slot::clone)
    }

    /// `f` of position `n`'s slot, without copying it (a listing asks for every name).
    fn with_slot<T>(&self, n: u32, f: impl FnOnce(&Slot) -> T) -> Option<T> {
        self.slots
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .items
            .get(n as usize)
            .map(f)
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
        let mut slots = self.slots.write().unwrap_or_else(|p| p.into_inner());
        let old = slots.items[n as usize].summary.id;
        slots.by_id.remove(&old);
        match (summary, slots.by_id.get(&id).copied()) {
            (Some(summary), None) => {
                slots.by_id.insert(id, n);
                slots.items[n as usize] = Slot {
                    summary,
                    removed: false,
                };
            }
            // The saved board was already in the file under another number: this number goes.
            _ => slots.items[n as usize].removed = true,
        }
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
        let positions = self
            .slots
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .items
            .len() as u32;
        positions.max(self.damaged.first) + self.damaged.items.len() as u32
    }

    fn deleted(&self, n: u32) -> bool {
        self.damaged.get(n).is_none() && self.with_slot(n, |s| s.removed).unwrap_or(true)
    }

    fn file_name(&self, n: u32) -> String {
        if let Some((name, _)) = self.damaged.get(n) {
            return name.clone();
        }
        self.with_slot(n, |s| s.summary.id.file_name())
            .unwrap_or_default()
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
        for (i, (_, problem)) in self.damaged.items.iter().enumerate() {
            problems.push(Problem {
                item: Some(self.damaged.first + i as u32),
                message: problem.clone(),
                unreadable: true,
            });
        }
        problems
    }

    fn item_named(&self, name: &[u8]) -> Option<u32> {
        let name = std::str::from_utf8(name).ok()?;
        if let Some(i) = self.damaged.items.iter().position(|(n, _)| n == name) {
            return Some(self.damaged.first + i as u32);
        }
        let id = PositionId::from_file_name(name)?;
        self.slots
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .by_id
            .get(&id)
            .copied()
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
        if let Some((_, problem)) = self.damaged.get(n) {
            return Err(Error::corrupt_record(problem.clone()));
        }
        let id = self.live_id(n)?;
        Ok(sgf::render(&self.db.load(&id)?).into_bytes())
    }

    fn save(&self, n: u32, text: &[u8]) -> Result<bool> {
        let old = self.live_id(n)?;
        let parsed = sgf_parse::parse(text).map_err(Error::from)?;
        let saved = self.db.save(&parsed.position, Some(&old))?;
        if saved.id == old && !saved.appended && saved.removed.is_none() {
            return Ok(false);
        }
        self.set(n, saved.id);
        Ok(true)
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
        let id = self.live_id(n)?;
        self.db.remove(&id)?;
        let mut slots = self.slots.write().unwrap_or_else(|p| p.into_inner());
        slots.by_id.remove(&id);
        slots.items[n as usize].removed = true;
        Ok(())
    }

    fn reload_if_changed(&self) -> Result<bool> {
        Ok(false)
    }

    fn fingerprint(&self, n: u32) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        if self.damaged.get(n).is_some() {
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
        let parsed = sgf_parse::parse(text).map_err(Error::from)?;
        let saved = self.db.save(&parsed.position, None)?;
        let existing = self
            .slots
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .by_id
            .get(&saved.id)
            .copied();
        if let Some(n) = existing {
            return Ok(vec![n]);
        }
        let summary = self.db.summary(&saved.id).ok_or_else(|| {
            Error::new(
                ErrorKind::Io,
                format!("position {} vanished after saving", saved.id),
            )
        })?;
        Ok(vec![
            self.slots
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .push(summary),
        ])
    }
}
