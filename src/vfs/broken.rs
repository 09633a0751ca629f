//! Items known to be unreadable, so a damaged game is logged once, not on every read:
//! reading it again fails at once with the same error.
//!
//! An item is known broken when the database's problems (found at open) say it is
//! unreadable, or when rendering it failed for a reason that does not go away by trying
//! again (anything but an I/O error). Saving the item, or the database being re-read,
//! forgets it. The problems already reported are remembered too, so a database re-read
//! (changed by another program) only reports what is new.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use crate::error::{Error, ErrorKind};
use crate::store::Problem;

/// The unreadable items and the error each gives, and the problems reported so far.
#[derive(Debug, Default)]
pub(crate) struct Broken {
    items: Mutex<HashMap<u32, (ErrorKind, String)>>,
    reported: Mutex<HashSet<(Option<u32>, String)>>,
}

impl Broken {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, (ErrorKind, String)>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The error reading item `n` gives, if it is known broken.
    pub(crate) fn error(&self, n: u32) -> Option<Error> {
        self.lock()
            .get(&n)
            .map(|(kind, message)| Error::new(*kind, message.clone()))
    }

    /// Remember that item `n` failed with `e`; false (nothing remembered) for an I/O error,
    /// which may not happen again.
    pub(crate) fn remember(&self, n: u32, e: &Error) -> bool {
        if e.kind() == ErrorKind::Io {
            return false;
        }
        self.lock().insert(n, (e.kind(), e.message().to_owned()));
        true
    }

    /// Forget item `n` (it was saved: its new record may read).
    pub(crate) fn forget(&self, n: u32) {
        self.lock().remove(&n);
    }

    /// Forget every item (the database was re-read).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    /// True the first time problem `p` is seen: it is to be reported (a database re-read
    /// lists its old problems again).
    pub(crate) fn first_time(&self, p: &Problem) -> bool {
        self.reported
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((p.item, p.message.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_lasting_errors_only() {
        let b = Broken::default();
        assert!(b.error(3).is_none());
        assert!(b.remember(3, &Error::corrupt_record("game 4: bad byte")));
        let io = Error::io("reading", std::io::Error::from_raw_os_error(libc::EIO));
        assert!(!b.remember(5, &io));
        let e = b.error(3).unwrap();
        assert_eq!(
            (e.kind(), e.message()),
            (ErrorKind::CorruptRecord, "game 4: bad byte")
        );
        assert!(b.error(5).is_none());
        b.forget(3);
        assert!(b.error(3).is_none());
        b.remember(1, &Error::corrupt_record("x"));
        b.clear();
        assert!(b.error(1).is_none());
    }

    #[test]
    fn problems_are_reported_once() {
        let b = Broken::default();
        let p = Problem {
            item: Some(2),
            message: "its record runs past the end".into(),
            unreadable: true,
        };
        assert!(b.first_time(&p));
        assert!(!b.first_time(&p));
        b.clear();
        assert!(!b.first_time(&p), "still reported after a re-read");
        assert!(b.first_time(&Problem { item: Some(3), ..p }));
    }
}
