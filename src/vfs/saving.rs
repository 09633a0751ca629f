//! Saving a scratch file (a new `.pgn`, or a temp file renamed onto a game): one save at a
//! time per file, and writes to the file wait while it runs, so no byte written meanwhile is
//! lost (the text is moved out to be saved, and back if it is refused).
//!
//! FLUSH comes with every `close` of every descriptor of a file, not only the last. Another
//! process's close saves nothing (see `Vfs::flush`), but the writer's own may still come
//! early: a shell closes a descriptor it has handed on, a program syncs half-way. A save may
//! therefore see the first part of a file. An import that went through remembers how far it
//! got; when more bytes follow, the next flush imports those (the file's name is already gone,
//! its open descriptors still write to it). A temp file saved onto a game is saved again whole.
//! An import's text is let go from memory as it is parsed (`Text::let_go`).

use std::ffi::OsStr;
use std::sync::MutexGuard;

use super::commit::Target;
use super::scratch::{Content, ScratchKind, ScratchStore};
use super::{Node, Vfs, lock};
use crate::error::Result;
use crate::text::input::ParsedText;

impl Vfs {
    /// The scratch store, once scratch file `id` is not being saved.
    pub(super) fn scratch_idle(&self, id: u64) -> MutexGuard<'_, ScratchStore> {
        let mut store = lock(&self.scratch);
        while store.get(id).is_some_and(|f| f.saving) {
            store = self
                .scratch_idle
                .wait(store)
                .unwrap_or_else(|p| p.into_inner());
        }
        store
    }

    /// Start saving scratch file `id`: writes wait from now on; its bytes are handed out.
    fn begin_save(&self, store: &mut ScratchStore, id: u64) -> Option<Content> {
        let f = store.get_mut(id)?;
        let ScratchKind::File(content) = &mut f.kind else {
            return None;
        };
        let content = std::mem::take(content);
        f.saving = true;
        f.held_len = content.len();
        Some(content)
    }

    /// End the save of scratch file `id`: its bytes are back and waiting writes go on.
    fn end_save(&self, id: u64, content: Content) -> MutexGuard<'_, ScratchStore> {
        let mut store = lock(&self.scratch);
        if let Some(f) = store.get_mut(id) {
            f.kind = ScratchKind::File(content);
            f.saving = false;
        }
        self.scratch_idle.notify_all();
        store
    }

    /// Save scratch file `id` if it was written since its last save and its name (or an
    /// earlier save) says what it becomes. On success its name goes away.
    pub(super) fn commit_scratch(&self, id: u64) -> Result<()> {
        let (target, name, parent, done, content) = {
            let mut store = self.scratch_idle(id);
            let Some(f) = store.get(id) else {
                return Ok(());
            };
            let target = match f.saved_to {
                Some(t) => Some(t),
                None if f.linked && f.parent != Node::Rejected.ino() => self.target_of(&f.name),
                None => None,
            };
            let (Some(target), true) = (target, f.dirty) else {
                return Ok(());
            };
            let (name, parent, done) = (f.name.clone(), f.parent, f.imported);
            let Some(content) = self.begin_save(&mut store, id) else {
                return Ok(());
            };
            if let Some(f) = store.get_mut(id) {
                f.dirty = false;
            }
            (target, name, parent, done, content)
        };
        let result = self.save_content(target, &name, &content, done);
        let mut store = self.end_save(id, content);
        match result {
            Ok(Some(len)) => {
                let named = store.get(id).is_some_and(|f| f.linked);
                if let Some(f) = store.get_mut(id) {
                    f.saved_to = Some(target);
                    f.imported = len;
                }
                if let Target::Game(n) = target {
                    store.became_game(id, n);
                }
                if named {
                    store.unlink(id);
                }
                drop(store);
                // The created name is gone: the kernel must forget it, not only its inode.
                self.invalidate(&[Node::Scratch(id)], &[(parent, &name)]);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Save `content` as `target` (for an import, only what follows the first `done` bytes,
    /// imported before). Returns the length saved, or None when there was nothing to import.
    fn save_content(
        &self,
        target: Target,
        name: &OsStr,
        content: &Content,
        done: u64,
    ) -> Result<Option<u64>> {
        let text = content.text()?;
        let from = match target {
            Target::Import => (done as usize).min(text.len()),
            Target::Game(_) => 0,
        };
        let part = &text[from..];
        if target == Target::Import && part.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let parsed = ParsedText::new(&text, from);
        let let_go = |r| parsed.parsed(r);
        let read_again = |r: std::ops::Range<usize>| {
            let at = (from + r.start) as u64;
            content.read_at(at, u32::try_from(r.len()).ok()?).ok()
        };
        self.commit_letting_go(target, name, part, (&let_go, &read_again))?;
        Ok(Some(text.len() as u64))
    }

    /// Save scratch file `id` as `target` under `new_name` (a rename onto a game or a new
    /// `.pgn` name); the caller removes the scratch file on success.
    pub(super) fn commit_renamed(&self, id: u64, target: Target, new_name: &OsStr) -> Result<()> {
        let content = {
            let mut store = self.scratch_idle(id);
            self.begin_save(&mut store, id)
        };
        let Some(content) = content else {
            // A symlink renamed onto a game name: its text is empty, which is refused.
            return self.commit(target, new_name, b"");
        };
        let result = content
            .text()
            .and_then(|text| self.commit(target, new_name, &text));
        drop(self.end_save(id, content));
        result
    }
}
