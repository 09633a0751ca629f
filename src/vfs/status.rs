//! The `.gamefs/` folder: what the mount has to tell its user — the reasons of rejected saves
//! and unreadable games (`errors`), the rejected texts themselves (`rejected/`), and a short
//! help (`README`).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// How many recent errors `.gamefs/errors` keeps.
const KEEP: usize = 200;

/// The folder's help text.
pub(crate) const README: &str = "\
gamefs status folder

stats      games, cache, saves and errors of this mount
errors     what is wrong with a damaged database, the most recent rejected saves and
           unreadable games, newest last, with reasons
rejected/  the text of each rejected save, under the name it was saved as; fix it and copy it
           back, or delete it

all.pgn: the root and every folder of players/, events/, ... hold all.pgn, the folder's games
as one file (the root's is what gamefs export writes). It is not listed, so find, du and
grep -r read each game once: ask for it by name (cp players/NAME/all.pgn x.pgn).

Saving: writing a game file and closing it (or fsync) saves the game; the database gets a new
record and the game keeps its number. A new .pgn file is imported when it is closed: each game
in it becomes a new numbered file in games/, and the name you created goes away. rm marks a game
deleted (it moves to .deleted/; move it back to restore it). Names that do not end in .pgn are
scratch files kept in memory only. Text that is not valid PGN is refused: the editor reports
an error, the database is unchanged, and the reason is listed in errors. A save that does not
fit on the disk fails the same way (No space left on device): free some space and copy the
text back from rejected/.

More in the gamefs guide (docs/guide/ in the source; man gamefs): editing.md (saving, errors,
rejected/), damaged.md (errors of a damaged database), faq.md (messages and what to do).
";

/// What happened during this mount, for `.gamefs/stats`.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Saves that changed a game.
    pub saves: AtomicU64,
    /// Games imported from new files.
    pub imported: AtomicU64,
    /// Games marked deleted or restored.
    pub deletions: AtomicU64,
    /// Saves refused.
    pub rejected: AtomicU64,
    /// Games whose names the kernel asked for one at a time (a round trip each): what its
    /// caches of names and listings did not answer. (Games only: the status files' own
    /// names, looked up each time they are read, would change the text they count in.)
    pub game_lookups: AtomicU64,
}

impl Counters {
    /// Count one more of `counter`.
    pub(crate) fn bump(counter: &AtomicU64, by: u64) {
        counter.fetch_add(by, Ordering::Relaxed);
    }
}

/// Recent errors, one line each.
#[derive(Debug, Default)]
pub(crate) struct ErrorLog {
    lines: Mutex<VecDeque<String>>,
    total: AtomicU64,
}

impl ErrorLog {
    /// Record `message` about `what` (a file name or game), and log it.
    pub(crate) fn record(&self, what: &str, message: &str) {
        log::error!("{what}: {message}");
        let line = format!("{} {what}: {message}\n", format_utc(super::now_secs()));
        self.total.fetch_add(1, Ordering::Relaxed);
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == KEEP {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// How many errors were recorded since the mount.
    pub(crate) fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// The text of `.gamefs/errors`.
    pub(crate) fn text(&self) -> Vec<u8> {
        self.lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .flat_map(|l| l.bytes())
            .collect()
    }
}

/// The text of each status file as it was when last looked at (`stat`, `lookup`), so a
/// reader gets exactly the bytes of the size it was told even while the counters move, and a
/// new modification time each time, which tells the kernel to drop its cached pages.
#[derive(Debug, Default)]
pub(crate) struct Snapshots {
    taken: Mutex<HashMap<u64, Snapshot>>,
}

/// A status file's text and when it was taken.
type Snapshot = (Arc<[u8]>, SystemTime);

impl Snapshots {
    /// Keep `text` as the current text of file `ino`; returns it with the time it was taken.
    pub(crate) fn take(&self, ino: u64, text: Vec<u8>) -> Snapshot {
        let snapshot = (Arc::<[u8]>::from(text), SystemTime::now());
        self.lock().insert(ino, snapshot.clone());
        snapshot
    }

    /// The text last taken of file `ino`, if any.
    pub(crate) fn last(&self, ino: u64) -> Option<Arc<[u8]>> {
        self.lock().get(&ino).map(|(text, _)| text.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Snapshot>> {
        self.taken.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (civil-from-days, no time-zone data needed).
pub(crate) fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_795_000_000), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn keeps_the_most_recent_errors() {
        let log = ErrorLog::default();
        for i in 0..(KEEP + 5) {
            log.record("f.pgn", &format!("error {i}"));
        }
        let text = String::from_utf8(log.text()).unwrap();
        assert_eq!(text.lines().count(), KEEP);
        assert!(
            text.lines()
                .last()
                .unwrap()
                .ends_with(&format!("f.pgn: error {}", KEEP + 4))
        );
    }
}
