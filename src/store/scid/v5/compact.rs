//! `gamefs compact` of a SCID 5 database, as SCID 5's `scidBaseT::compact` does it: a new
//! database gets the database information first (every field, the autoload game renumbered),
//! then a copy of each game that is not deleted, in SCID's order (see
//! `kept_games`): its record bytes as they are (in 128 KiB blocks), its names looked up or
//! appended in the order Event, Site, Round, White, Black, its entry with the new IDs and
//! offset. Then the three files replace the old ones.

use std::fs::File;
use std::path::Path;

use super::names::{self, INFO};
use super::{EXTENSIONS, MAX_GAME_FILE, entry};
use crate::error::Result;
use crate::store::files::{read_file, total_size, with_ext};
use crate::store::scid::compact::{compact_base, finish, kept_games, write_error, write_new_file};
use crate::store::scid::names::NameFile;
use crate::store::scid::{ScidDatabase, base_path, writer};
use crate::store::{ChessStore, CompactReport, NameKind};

/// The database-information fields in the order SCID 5 writes them.
const INFO_FIELDS: [&str; 9] = [
    "type",
    "description",
    "autoload",
    "flag1",
    "flag2",
    "flag3",
    "flag4",
    "flag5",
    "flag6",
];

/// Compact the SCID 5 database at `path` in place (it must not be mounted read-write). Not
/// compared with SCID 5's own compaction (no SCID 5 here): written from its source.
pub fn compact(path: &Path) -> Result<CompactReport> {
    let base = base_path(path);
    let paths = EXTENSIONS.map(|e| with_ext(&base, e));
    let db = ScidDatabase::open(&paths[0], true)?;
    let bytes_before = total_size(&base, &EXTENSIONS);
    let count = db.game_count();
    let keep = kept_games(&db);
    let (old, _) = names::parse(&read_file(&paths[1])?);
    let tmp_base = compact_base(&base);
    let [si5, sn5, sg5] = EXTENSIONS.map(|e| with_ext(&tmp_base, e));
    let mut name_bytes = Vec::new();
    for field in INFO_FIELDS {
        let value = match field {
            "autoload" => autoload_after(&old, &keep).into_bytes(),
            _ => old.info(field).unwrap_or_default().to_vec(),
        };
        names::append_record(&mut name_bytes, INFO, &[field.as_bytes(), &value].concat());
    }
    let games = File::create(&sg5).map_err(|e| write_error(&sg5, e))?;
    let mut records = writer::RecordBuffer::new(0, MAX_GAME_FILE);
    let mut new_names = NameFile::default();
    let mut entries = Vec::with_capacity(keep.len() * entry::ENTRY_LEN);
    for (n, old_entry) in &keep {
        let record = db.record_bytes(*n)?;
        let mut e = *old_entry;
        // SCID 5 adds the names in this order (TagRoster::map).
        let mut id_of = |kind: NameKind, id: u32| {
            let raw = db.raw_name(kind, id);
            let section = new_names.section_mut(kind);
            section.find(&raw).unwrap_or_else(|| {
                names::append_record(&mut name_bytes, kind as u8, &raw);
                section.push(&raw)
            })
        };
        e.event = id_of(NameKind::Event, old_entry.event);
        e.site = id_of(NameKind::Site, old_entry.site);
        e.round = id_of(NameKind::Round, old_entry.round);
        e.white = id_of(NameKind::Player, old_entry.white);
        e.black = id_of(NameKind::Player, old_entry.black);
        e.offset = records.append(&games, &sg5, &record)?;
        entries.extend(entry::encode(&e));
    }
    records.flush(&games, &sg5)?;
    writer::sync(&games, &sg5)?;
    write_new_file(&sn5, &[&name_bytes])?;
    write_new_file(&si5, &[&entries])?;
    drop(db);
    finish(
        &tmp_base,
        &base,
        EXTENSIONS,
        count,
        keep.len(),
        bytes_before,
    )
}

/// The autoload game after compaction, as SCID 5 renumbers it: the new place of the old
/// autoload game, or 1 when it is gone (or none was set).
fn autoload_after(
    old: &names::Names,
    keep: &[(u32, crate::store::scid::entry::IndexEntry)],
) -> String {
    let before: u64 = old
        .info("autoload")
        .and_then(|v| std::str::from_utf8(v).ok()?.trim().parse().ok())
        .unwrap_or(0);
    let after = keep
        .iter()
        .position(|(n, _)| u64::from(*n) + 1 == before)
        .map_or(1, |i| i + 1);
    after.to_string()
}
