//! Turning saved text into database changes: one game replaced, games imported, a game
//! deleted or restored — and telling the kernel what changed.
//!
//! Refused text never touches the database: the reason goes to the log and `.gamefs/errors`,
//! and the text is kept under `.gamefs/rejected/` (DESIGN.md rule 5).

use std::ffi::OsStr;

use super::naming::game_number_of;
use super::scratch::ScratchKind;
use super::status::Counters;
use super::{Node, Vfs, View, lock};
use crate::error::{Error, ErrorKind, Result};
use crate::store::GameSummary;
use crate::text::pgn_parse;

/// What a `.pgn` text saved under some name is meant to become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The new content of game `n` (0-based).
    Game(u32),
    /// New games, one per game in the text.
    Import,
}

impl Vfs {
    /// What saving text under `name` means: a name with an existing game's number replaces
    /// that game; any other `.pgn` name imports; other names are never saved.
    pub fn target_of(&self, name: &OsStr) -> Option<Target> {
        let bytes = name.as_encoded_bytes();
        if !bytes.ends_with(b".pgn") || bytes.starts_with(b".") {
            return None;
        }
        match game_number_of(bytes) {
            Some(n) if n < self.store.game_count() => Some(Target::Game(n)),
            _ => Some(Target::Import),
        }
    }

    /// Save `text` (saved under `name`) to `target`. Refused text is reported and kept.
    pub fn commit(&self, target: Target, name: &OsStr, text: &[u8]) -> Result<()> {
        let result = match target {
            Target::Game(n) => self.save_game(n, text),
            Target::Import => self.import(text),
        };
        if let Err(e) = &result {
            Counters::bump(&self.counters.rejected, 1);
            let shown = name.to_string_lossy();
            self.errors.record(&shown, e.message());
            self.keep_rejected(name, text);
        }
        result
    }

    fn save_game(&self, n: u32, text: &[u8]) -> Result<()> {
        self.check_writable()?;
        let game = pgn_parse::one_game(text).map_err(Error::from)?;
        let before = self.store.summary(n);
        let old_name = self.game_name(n);
        let changed = self.store.replace(n, &game)?;
        lock(&self.hidden).remove(&n);
        if changed || before.deleted {
            Counters::bump(&self.counters.saves, 1);
            self.changed(n, Some((before, old_name)));
        }
        Ok(())
    }

    fn import(&self, text: &[u8]) -> Result<()> {
        self.check_writable()?;
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let mut games = pgn_parse::games(text).map(|g| g.map_err(Error::from));
        let numbers = self.store.append(&mut games)?;
        if numbers.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "the text holds no game",
            ));
        }
        log::info!(
            "imported {} game(s) as numbers {}..={}",
            numbers.len(),
            numbers[0] + 1,
            numbers[numbers.len() - 1] + 1
        );
        Counters::bump(&self.counters.imported, numbers.len() as u64);
        for &n in &numbers {
            self.changed(n, None);
        }
        Ok(())
    }

    /// Mark game `n` deleted or not.
    pub fn set_deleted(&self, n: u32, deleted: bool) -> Result<()> {
        self.check_writable()?;
        let before = self.store.summary(n);
        let old_name = self.game_name(n);
        self.store.set_deleted(n, deleted)?;
        Counters::bump(&self.counters.deletions, 1);
        self.changed(n, Some((before, old_name)));
        Ok(())
    }

    /// Refuse changes on a read-only mount.
    pub fn check_writable(&self) -> Result<()> {
        if self.writable() {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::ReadOnly, "the mount is read-only"))
        }
    }

    /// Game `n` changed (it was `before`, named `old_name`, or is new): drop cached text and
    /// views here and in the kernel.
    fn changed(&self, n: u32, before: Option<(GameSummary, String)>) {
        self.cache.invalidate(n);
        lock(&self.saved).insert(n);
        self.reset_views();
        let after = self.store.summary(n);
        let mut inodes = vec![Node::Game(n), Node::Root, Node::Games, Node::Deleted];
        inodes.extend(View::ALL.map(Node::ViewRoot));
        let mut summaries = vec![after];
        let mut names = Vec::new();
        if let Some((old, old_name)) = before {
            summaries.push(old);
            names.push((Node::Games, old_name.clone()));
            names.push((Node::Deleted, old_name));
        }
        for s in summaries {
            for (v, key) in group_keys(&s) {
                inodes.push(Node::Group(v, key));
                inodes.push(Node::Link(v, key, n));
            }
        }
        self.invalidate(&inodes, &names);
    }

    /// Keep refused text readable under `.gamefs/rejected/<name>`.
    fn keep_rejected(&self, name: &OsStr, text: &[u8]) {
        let dir = Node::Rejected.ino();
        let mut scratch = lock(&self.scratch);
        match scratch.find(dir, name) {
            Some(id) => {
                if let Some(f) = scratch.get_mut(id) {
                    f.kind = ScratchKind::File(text.to_vec());
                    f.mtime = std::time::SystemTime::now();
                }
            }
            None => {
                scratch.create(dir, name, ScratchKind::File(text.to_vec()), 0o644);
            }
        }
    }
}

/// The group folders a game appears in, per view.
fn group_keys(s: &GameSummary) -> Vec<(View, u32)> {
    vec![
        (View::Players, s.white),
        (View::Players, s.black),
        (View::Events, s.event),
        (View::Sites, s.site),
        (View::Years, u32::from(s.date.year.unwrap_or(0))),
        (View::Eco, u32::from(s.eco)),
    ]
}
