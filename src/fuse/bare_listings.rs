//! Which folders the kernel last listed without attributes, so that their cached listing is
//! not trusted for `ls -l`.
//!
//! The kernel asks for a folder's first entries with their attributes (READDIRPLUS, which
//! also makes each entry's name known to it) and goes on that way only while its reader asks
//! for attributes too; a reader that wants names alone (`ls`, `find`, a file manager's first
//! pass) gets the rest as bare names (READDIR). With the listing cached (`FOPEN_CACHE_DIR`),
//! a later `ls -l` of that folder reads the names from the cache and then asks for each
//! entry's name on its own: a round trip per game, 3.4-3.6 s for 98,000 games against 0.8 s
//! when the listing is read again with attributes. So a folder whose last listing from
//! the start had bare names is opened without `FOPEN_KEEP_CACHE`: the kernel drops that
//! listing and reads it again, with attributes if its reader wants them.

use std::collections::HashSet;
use std::sync::Mutex;

/// The folders (by inode) whose last listing from the start held bare names.
#[derive(Default)]
pub(super) struct BareListings(Mutex<HashSet<u64>>);

impl BareListings {
    /// Folder `ino` was read from the start with attributes: a new listing begins.
    pub(super) fn listed_with_attributes_from_start(&self, ino: u64) {
        self.lock().remove(&ino);
    }

    /// Part of folder `ino` was read as bare names.
    pub(super) fn listed_bare(&self, ino: u64) {
        self.lock().insert(ino);
    }

    /// Whether the kernel's cached listing of folder `ino` may serve its next reader: not
    /// when it holds bare names.
    pub(super) fn may_keep(&self, ino: u64) -> bool {
        !self.lock().contains(&ino)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<u64>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
