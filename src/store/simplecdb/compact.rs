//! New empty databases, and `gamefs compact` for this format.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::entry::{ENTRY_LEN, empty_header};
use super::names::{RECORD_LEN, record_text};
use super::{EXTENSIONS, MAGIC, SimpleCdb, base_path, with_ext, writer};
use crate::error::{Error, ErrorKind, Result};
use crate::store::ChessStore;
use crate::store::CompactReport;

/// The initial bytes of each of the five files of an empty database (magic; the index also
/// has version 0 and OpenDefault 0), as pgn2dcg starts them.
pub(crate) fn empty_files() -> [Vec<u8>; 5] {
    std::array::from_fn(|i| {
        if i == 0 {
            empty_header().to_vec()
        } else {
            MAGIC[i].to_vec()
        }
    })
}

/// Create an empty database at `path` (base path or any of its files). Refuses to touch an
/// existing file.
pub fn create(path: &Path) -> Result<()> {
    let base = base_path(path);
    for ext in EXTENSIONS {
        let p = with_ext(&base, ext);
        if p.exists() {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("{} already exists", p.display()),
            ));
        }
    }
    // The index last: until it exists the database is not recognised.
    for i in [4, 1, 2, 3, 0] {
        let p = with_ext(&base, EXTENSIONS[i]);
        std::fs::write(&p, &empty_files()[i])
            .map_err(|e| Error::io(format!("cannot create {}", p.display()), e))?;
    }
    Ok(())
}

fn files_size(base: &Path) -> u64 {
    crate::store::files::total_size(base, &EXTENSIONS)
}

/// Compact the database at `path` in place (it must not be mounted read-write): deleted
/// games, replaced records and unused names are dropped. Records are copied byte for byte;
/// the names still used are written sorted and deduplicated (as one pgn2dcg run writes them),
/// and the entries are repointed. The new files are written beside the old ones, synced, then
/// renamed over them (index last).
pub fn compact(path: &Path) -> Result<CompactReport> {
    let base = base_path(path);
    let db = SimpleCdb::open(&base, true, false)?;
    let bytes_before = files_size(&base);
    let count = db.game_count();
    let keep: Vec<u32> = (0..count).filter(|&n| !db.entry(n).is_deleted()).collect();
    let tmp_base = PathBuf::from(format!("{}__COMPACT__", base.display()));
    let tmp: [PathBuf; 5] = EXTENSIONS.map(|e| with_ext(&tmp_base, e));
    // Names in use, per file: record bytes → new offset.
    let mut used: [Vec<[u8; RECORD_LEN]>; 3] = Default::default();
    let mut entries = Vec::with_capacity(keep.len());
    let mut games = MAGIC[4].to_vec();
    for &n in &keep {
        let mut e = db.entry(n);
        let record = db.record_bytes(n)?;
        e.offset = games.len() as u64;
        games.extend(record);
        for (file, r) in [(0, e.white), (0, e.black), (1, e.site), (2, e.event)] {
            if let Some(rec) = db.name_record(file, r) {
                used[file].push(rec);
            }
        }
        entries.push(e);
    }
    let mut maps: [HashMap<[u8; RECORD_LEN], u32>; 3] = Default::default();
    let mut name_bytes: [Vec<u8>; 3] = std::array::from_fn(|i| MAGIC[i + 1].to_vec());
    for file in 0..3 {
        let recs = &mut used[file];
        recs.sort_by(|a, b| {
            super::names::qt_order(&record_text(a).0, &record_text(b).0).then_with(|| a.cmp(b))
        });
        recs.dedup();
        for rec in recs.iter() {
            maps[file].insert(*rec, name_bytes[file].len() as u32);
            name_bytes[file].extend(rec);
        }
    }
    let mut index = empty_header().to_vec();
    for (e, &n) in entries.iter_mut().zip(&keep) {
        let old = db.entry(n);
        let remap = |file: usize, r: u32| {
            db.name_record(file, r)
                .and_then(|rec| maps[file].get(&rec).copied())
                .unwrap_or(0)
        };
        e.white = remap(0, old.white);
        e.black = remap(0, old.black);
        e.site = remap(1, old.site);
        e.event = remap(2, old.event);
        index.extend(e.encode());
    }
    debug_assert_eq!(
        index.len(),
        super::entry::HEADER_LEN + ENTRY_LEN * keep.len()
    );
    let contents = [
        index,
        name_bytes[0].clone(),
        name_bytes[1].clone(),
        name_bytes[2].clone(),
        games,
    ];
    for (p, bytes) in tmp.iter().zip(&contents) {
        let mut f =
            File::create(p).map_err(|e| Error::io(format!("writing {}", p.display()), e))?;
        f.write_all(bytes)
            .and_then(|_| f.sync_all())
            .map_err(|e| Error::io(format!("writing {}", p.display()), e))?;
    }
    drop(db);
    for i in [4, 1, 2, 3, 0] {
        let (from, to) = (&tmp[i], with_ext(&base, EXTENSIONS[i]));
        std::fs::rename(from, &to).map_err(|e| {
            Error::io(
                format!("renaming {} to {}", from.display(), to.display()),
                e,
            )
        })?;
    }
    if let Some(dir) = base.parent().filter(|d| !d.as_os_str().is_empty()) {
        writer::sync(
            &File::open(dir).map_err(|e| Error::io(format!("syncing {}", dir.display()), e))?,
            dir,
        )?;
    }
    Ok(CompactReport {
        games_before: count,
        games_after: keep.len() as u32,
        bytes_before,
        bytes_after: files_size(&base),
    })
}
