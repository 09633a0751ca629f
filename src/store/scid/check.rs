//! `gamefs check` and `gamefs info` for SCID databases: what opening found wrong, every
//! record decodes, index fields agree with the games, the name file is what SCID would write;
//! and the facts a user asks about.

use super::ScidDatabase;
use super::derive::derive;
use super::entry::IndexEntry;
use super::record;
use super::writer::BLOCK;
use crate::store::damage::without_label;
use crate::store::{ChessStore, NameKind, Problem};

/// Facts about a database (what `gamefs info` shows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Games in the index, deleted ones included.
    pub games: u32,
    /// Games marked deleted.
    pub deleted: u32,
    /// Distinct names per dictionary: players, events, sites, rounds.
    pub names: [u32; 4],
    /// Earliest and latest known game year.
    pub years: Option<(u16, u16)>,
    /// Bytes of the game file that `compact` would reclaim (deleted games, replaced records,
    /// padding).
    pub garbage_bytes: u64,
    /// The index version.
    pub version: u16,
    /// The database description.
    pub description: String,
}

/// Gather the facts of any chess database from its index (no record is decoded); names are
/// counted as the distinct names the games use.
pub fn store_info(db: &dyn ChessStore) -> Info {
    let mut info = Info {
        games: db.game_count(),
        ..Info::default()
    };
    let mut used: [std::collections::HashSet<u32>; 4] = Default::default();
    for n in 0..info.games {
        let s = db.summary(n);
        if s.deleted {
            info.deleted += 1;
        }
        for (k, id) in [
            (0, s.white),
            (0, s.black),
            (1, s.event),
            (2, s.site),
            (3, s.round),
        ] {
            used[k].insert(id);
        }
        if let Some(y) = s.date.year {
            info.years = Some(info.years.map_or((y, y), |(lo, hi)| (lo.min(y), hi.max(y))));
        }
    }
    info.names = used.map(|u| u.len() as u32);
    info
}

/// Gather the facts of a SCID database: those of any store, plus the name file's counts
/// (unused names included), the header and the bytes compaction would reclaim.
pub fn info(db: &ScidDatabase) -> Info {
    let header = db.header();
    let mut info = store_info(db);
    info.version = header.version;
    info.description = String::from_utf8_lossy(&header.description).into_owned();
    info.names = NameKind::ALL.map(|k| db.name_count(k));
    let live_bytes: u64 = (0..info.games)
        .map(|n| db.entry(n))
        .filter(|e| !e.is_deleted())
        .map(|e| u64::from(e.length))
        .sum();
    info.garbage_bytes = db.games_file_len().saturating_sub(live_bytes);
    info
}

/// Check the database: every problem opening it found, then every game that is not already
/// known unreadable (its record stays inside a 128 KiB block as SCID's writers keep it, reads
/// and decodes, and its index fields agree with it), then the name file (sorted and counted as SCID writes it, when it is not damaged). `progress` is
/// called for each game.
pub fn check(db: &ScidDatabase, mut progress: impl FnMut(u32)) -> Vec<Problem> {
    let mut problems = db.problems();
    let unreadable: std::collections::HashSet<u32> = problems
        .iter()
        .filter(|p| p.unreadable)
        .filter_map(|p| p.item)
        .collect();
    // The name file of a damaged database differs from what SCID would write anyway.
    let damaged = !problems.is_empty();
    let mut report = |n: u32, message: String| {
        problems.push(Problem {
            item: Some(n),
            message,
            unreadable: false,
        })
    };
    for n in 0..db.game_count() {
        progress(n);
        if unreadable.contains(&n) {
            continue;
        }
        let entry = db.entry(n);
        let offset = u64::from(entry.offset);
        if offset % BLOCK + u64::from(entry.length) > BLOCK {
            report(
                n,
                format!(
                    "its record (offset {offset}, {} bytes) crosses a 128 KiB block boundary \
                     (SCID 4.7 reads it; SCID 4.6 and older refuse it)",
                    entry.length
                ),
            );
        }
        let bytes = match db.record_bytes(n) {
            Ok(b) => b,
            Err(e) => {
                report(n, without_label(&e.to_string(), &format!("game {}", n + 1)));
                continue;
            }
        };
        if let Err(e) = record::decode(&bytes) {
            report(n, format!("record does not decode: {e}"));
            continue;
        }
        match db.load(n).and_then(|g| derive(&g)) {
            Ok(d) => {
                let expected = entry.with_derived(&d);
                for field in differing_fields(&entry, &expected) {
                    report(n, format!("index field {field} does not match the game"));
                }
            }
            Err(e) => report(
                n,
                format!(
                    "the game cannot be re-encoded: {}",
                    without_label(&e.to_string(), &format!("game {}", n + 1))
                ),
            ),
        }
    }
    let names = std::fs::read(&db.info().files[1]).unwrap_or_default();
    if !damaged && db.serialized_names() != names {
        problems.push(Problem {
            item: None,
            message: format!(
                "{}: the name file is not sorted and counted as SCID writes it (SCID 4.7 reads \
                 it; older SCID versions may not)",
                db.info().files[1].display()
            ),
            unreadable: false,
        });
    }
    problems
}

/// Names of the derived index fields that differ between `have` and `want`.
fn differing_fields(have: &IndexEntry, want: &IndexEntry) -> Vec<&'static str> {
    let checks: [(&str, bool); 11] = [
        ("flags (S/X/Y)", have.flags & 0b111 != want.flags & 0b111),
        ("result", have.result != want.result),
        (
            "count codes",
            (have.var_code, have.comment_code, have.nag_code)
                != (want.var_code, want.comment_code, want.nag_code),
        ),
        ("ECO", have.eco != want.eco),
        ("date", have.date != want.date),
        (
            "event date",
            have.game_event_date() != want.game_event_date(),
        ),
        (
            "ratings",
            (have.white_elo, have.black_elo) != (want.white_elo, want.black_elo),
        ),
        ("stored line", have.stored_line != want.stored_line),
        ("final material", have.matsig != want.matsig),
        ("plies", have.plies != want.plies),
        (
            "home pawns",
            (have.home_pawn_count, have.home_pawns) != (want.home_pawn_count, want.home_pawns),
        ),
    ];
    checks
        .into_iter()
        .filter(|(_, differs)| *differs)
        .map(|(name, _)| name)
        .collect()
}
