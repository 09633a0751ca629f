//! What a mount finds from all of its games once and keeps until they change: the twins
//! (`twins/`) and the header index (`query/`). Each is found in the background once the
//! position index is ready (the twins also when first asked for, if sooner; a query never
//! waits for the header index, it scans until a thread of its own has found it), kept beside
//! the position index for the next mount of the same files. A change by another program
//! forgets it (then it is found again); a save, deletion or import through the mount is
//! either told to it ([`FoundSlot::note_changed`]: the twins are brought up to date from
//! the games that changed, [`FoundSlot::revise`]) or forgets it too.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::lock;

/// One thing found from the games (see the module's documentation).
pub(crate) struct FoundSlot<T> {
    /// What was found, while the games are as they were then.
    found: Mutex<Option<Arc<T>>>,
    /// Held by the one finding it: others wait for its answer rather than find it too,
    /// while a save that forgets it does not wait.
    finding: Mutex<()>,
    /// How many times it was forgotten: what is found across a change is not kept.
    changes: AtomicU64,
    /// Set while a thread of its own finds it ([`claim_background`](Self::claim_background)).
    background: AtomicBool,
    /// The items changed since it was found, as told ([`note_changed`](Self::note_changed)),
    /// not yet brought in ([`revise`](Self::revise)); repeats and all, in the order told.
    changed: Mutex<Vec<u32>>,
}

impl<T> Default for FoundSlot<T> {
    fn default() -> Self {
        FoundSlot {
            found: Mutex::new(None),
            finding: Mutex::new(()),
            changes: AtomicU64::new(0),
            background: AtomicBool::new(false),
            changed: Mutex::new(Vec::new()),
        }
    }
}

/// How a [`FoundSlot`]'s content is kept on disk and found from the games.
pub(crate) struct Finder<'a, T> {
    /// Where it is kept (beside the position index), if anywhere.
    pub kept_at: Option<PathBuf>,
    /// The stamp of the database files now ([`crate::collection::positions::stamp_of`]).
    pub stamp: &'a dyn Fn() -> u64,
    /// What is kept at a path for a stamp, if it is whole and of those files.
    pub open: &'a dyn Fn(&Path, u64) -> Option<T>,
    /// Find it from the games (of the files of a stamp); `None` when there is nothing to find.
    pub find: &'a dyn Fn(u64) -> Option<T>,
    /// Keep it at a path, for a stamp.
    pub keep: &'a dyn Fn(&T, &Path, u64) -> std::io::Result<()>,
    /// Once kept, serve what was kept rather than what was found: a mapped file leaves the
    /// memory the finding took (the header index); a copy read back would only double it.
    pub serve_kept: bool,
}

impl<T> FoundSlot<T> {
    /// Forget what was found; what it was.
    pub(crate) fn reset(&self) -> Option<Arc<T>> {
        self.changes.fetch_add(1, Ordering::AcqRel);
        lock(&self.changed).clear();
        lock(&self.found).take()
    }

    /// Items `items` changed: what was found is brought up to date when next asked for
    /// ([`revise`](Self::revise)), rather than found again.
    pub(crate) fn note_changed(&self, items: &[u32]) {
        lock(&self.changed).extend_from_slice(items);
    }

    /// True when items changed since what is known was found ([`note_changed`](Self::note_changed)).
    pub(crate) fn has_changes(&self) -> bool {
        !lock(&self.changed).is_empty()
    }

    /// What was found brought up to date by `revise` (given it and the items changed since,
    /// ascending), and kept as [`get`](Self::get) keeps it; `None` when nothing is known.
    /// Callers wait for one another (each sees what the one before brought in), and a
    /// change told meanwhile is brought in by the next call.
    pub(crate) fn revise(
        &self,
        finder: &Finder<'_, T>,
        revise: &dyn Fn(&T, &[u32]) -> T,
    ) -> Option<Arc<T>> {
        let _finding = lock(&self.finding);
        let known = self.known()?;
        let changes = self.changes.load(Ordering::Acquire);
        let (told, mut items) = {
            let changed = lock(&self.changed);
            (changed.len(), changed.clone())
        };
        if items.is_empty() {
            return Some(known);
        }
        items.sort_unstable();
        items.dedup();
        let stamp = (finder.stamp)();
        let value = keep(finder, revise(&known, &items), stamp);
        let mut slot = lock(&self.found);
        if self.changes.load(Ordering::Acquire) == changes {
            lock(&self.changed).drain(..told);
            *slot = Some(value.clone());
        }
        Some(value)
    }

    /// What was found, if it is known.
    pub(crate) fn known(&self) -> Option<Arc<T>> {
        lock(&self.found).clone()
    }

    /// What was found, found now if it is not known: taken from where it is kept when that
    /// is of the files as they are, else found and kept there (unless the files changed
    /// meanwhile).
    pub(crate) fn get(&self, finder: &Finder<'_, T>) -> Option<Arc<T>> {
        self.get_or(finder, true)
    }

    /// What was found, if it is known or kept for the files as they are: `None` when it
    /// would have to be found.
    pub(crate) fn known_or_kept(&self, finder: &Finder<'_, T>) -> Option<Arc<T>> {
        self.get_or(finder, false)
    }

    /// True for the one caller that is to find it on a thread of its own, until that thread
    /// says it is done ([`background_done`](Self::background_done)).
    pub(crate) fn claim_background(&self) -> bool {
        !self.background.swap(true, Ordering::AcqRel)
    }

    /// True while a thread claimed by [`claim_background`](Self::claim_background) runs.
    #[cfg(test)]
    pub(crate) fn in_background(&self) -> bool {
        self.background.load(Ordering::Acquire)
    }

    /// The thread claimed by [`claim_background`](Self::claim_background) is done.
    pub(crate) fn background_done(&self) {
        self.background.store(false, Ordering::Release);
    }

    /// [`get`](Self::get), finding it only with `find_now`.
    fn get_or(&self, finder: &Finder<'_, T>, find_now: bool) -> Option<Arc<T>> {
        if let Some(known) = self.known() {
            return Some(known);
        }
        // Without finding, no waiting for whoever is finding it.
        let _finding = if find_now {
            lock(&self.finding)
        } else {
            self.finding.try_lock().ok()?
        };
        if let Some(known) = self.known() {
            return Some(known);
        }
        let changes = self.changes.load(Ordering::Acquire);
        let stamp = (finder.stamp)();
        let kept_at = finder.kept_at.as_deref();
        let value = match kept_at.and_then(|p| (finder.open)(p, stamp)) {
            Some(kept) => Arc::new(kept),
            None if !find_now => return None,
            None => keep(finder, (finder.find)(stamp)?, stamp),
        };
        let mut slot = lock(&self.found);
        if self.changes.load(Ordering::Acquire) == changes {
            *slot = Some(value.clone());
        }
        Some(value)
    }
}

/// `value`, found from the files of `stamp`, kept where `finder` keeps it when the files
/// are still as they were; then, with `serve_kept`, what was kept serves.
fn keep<T>(finder: &Finder<'_, T>, value: T, stamp: u64) -> Arc<T> {
    let kept_at = finder.kept_at.as_deref();
    match kept_at.filter(|_| (finder.stamp)() == stamp) {
        Some(path) => match (finder.keep)(&value, path, stamp) {
            Ok(()) if finder.serve_kept => Arc::new((finder.open)(path, stamp).unwrap_or(value)),
            Ok(()) => Arc::new(value),
            Err(e) => {
                log::warn!("not kept at {}: {e}", path.display());
                Arc::new(value)
            }
        },
        None => Arc::new(value),
    }
}

impl super::Vfs {
    /// Where the file of `suffix` ([`crate::store::cache_folder::companion`]) is kept:
    /// beside the position index, when it is kept.
    pub(super) fn kept_beside_index(&self, suffix: &str) -> Option<PathBuf> {
        let index = self.options.position_index.as_deref()?;
        Some(crate::store::cache_folder::companion(index, suffix))
    }
}
