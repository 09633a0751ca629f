//! What a mount finds from all of its games once and keeps until they change: the twins
//! (`twins/`) and the header index (`query/`). Each is found in the background once the
//! position index is ready (the twins also when first asked for, if sooner; a query never
//! waits for the header index, it scans until a thread of its own has found it), kept beside
//! the position index for the next mount of the same files, and forgotten by every save,
//! deletion, import and change by another program (then found again).

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
}

impl<T> Default for FoundSlot<T> {
    fn default() -> Self {
        FoundSlot {
            found: Mutex::new(None),
            finding: Mutex::new(()),
            changes: AtomicU64::new(0),
            background: AtomicBool::new(false),
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
        lock(&self.found).take()
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
            None => {
                let value = (finder.find)(stamp)?;
                // Kept only when the files are as they were when it was found; then, with
                // `serve_kept`, what was kept serves.
                match kept_at.filter(|_| (finder.stamp)() == stamp) {
                    Some(path) => match (finder.keep)(&value, path, stamp) {
                        Ok(()) if finder.serve_kept => {
                            Arc::new((finder.open)(path, stamp).unwrap_or(value))
                        }
                        Ok(()) => Arc::new(value),
                        Err(e) => {
                            log::warn!("not kept at {}: {e}", path.display());
                            Arc::new(value)
                        }
                    },
                    None => Arc::new(value),
                }
            }
        };
        let mut slot = lock(&self.found);
        if self.changes.load(Ordering::Acquire) == changes {
            *slot = Some(value.clone());
        }
        Some(value)
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
