//! `gamefs compact`: rewrite a database without its deleted games and garbage, as SCID's
//! compaction does (docs/formats/scid4.md §8): records and entries copied verbatim, names
//! renumbered in order of first use, unused names dropped, block padding redone, autoload
//! remapped; databases of more than 10,000 games are reordered by stored line, home pawns and
//! material like SCID.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::create::empty_header;
use super::entry::IndexEntry;
use super::names::NameFile;
use super::{EXTENSIONS, ScidDatabase, base_path, with_ext, writer};
use crate::error::{Error, Result};
use crate::store::CompactReport;
use crate::store::{ChessStore, NameKind};

/// Above this many games SCID also sorts the games while compacting.
const REORDER_ABOVE: usize = 10_000;

fn files_size(base: &Path) -> u64 {
    crate::store::files::total_size(base, &EXTENSIONS)
}

/// Compact the database at `path` in place (it must not be mounted read-write).
pub(crate) fn compact(path: &Path) -> Result<CompactReport> {
    let base = base_path(path);
    let db = ScidDatabase::open(&base, true)?;
    let bytes_before = files_size(&base);
    let count = db.game_count();
    let keep = kept_games(&db);
    let tmp_base = compact_base(&base);
    let [si4, sn4, sg4] = EXTENSIONS.map(|e| with_ext(&tmp_base, e));
    let games = File::create(&sg4).map_err(|e| write_error(&sg4, e))?;
    let mut names = NameFile::parse(&super::create::empty_names())?;
    let mut ids: [HashMap<u32, u32>; 4] = Default::default();
    let mut freqs: [Vec<u32>; 4] = Default::default();
    let mut entries = Vec::with_capacity(keep.len() * 47);
    let mut sg4_len = 0u64;
    for (n, old) in &keep {
        let record = db.record_bytes(*n)?;
        let offset = writer::append_record(&games, &sg4, sg4_len, &record, u64::from(u32::MAX))?;
        sg4_len = offset + record.len() as u64;
        let mut map = |kind: NameKind, id: u32| {
            let k = kind as usize;
            let new = *ids[k].entry(id).or_insert_with(|| {
                let raw = db.raw_name(kind, id);
                freqs[k].push(0);
                names.section_mut(kind).push(&raw)
            });
            freqs[k][new as usize] += 1;
            new
        };
        let mut e = *old;
        e.event = map(NameKind::Event, old.event);
        e.site = map(NameKind::Site, old.site);
        e.round = map(NameKind::Round, old.round);
        e.white = map(NameKind::Player, old.white);
        e.black = map(NameKind::Player, old.black);
        e.offset = offset;
        e.length = record.len() as u32;
        entries.extend(e.encode());
    }
    writer::sync(&games, &sg4)?;
    writer::replace_file(&sn4, &names.serialize(&freqs))?;
    let old_header = db.header();
    let mut header = empty_header(keep.len() as u32);
    let raw_header =
        std::fs::read(with_ext(&base, "si4")).map_err(|e| Error::io("reading the index", e))?;
    header[10..14].copy_from_slice(&raw_header[10..14]);
    header[20..182].copy_from_slice(&raw_header[20..182]);
    let autoload = remap_autoload(old_header.auto_load, count, &keep);
    header[17..20].copy_from_slice(&autoload.to_be_bytes()[1..]);
    write_new_file(&si4, &[&header, &entries])?;
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

/// Write a new file at `path` holding `parts` one after the other, durably.
pub(crate) fn write_new_file(path: &Path, parts: &[&[u8]]) -> Result<()> {
    let mut f = File::create(path).map_err(|e| write_error(path, e))?;
    parts
        .iter()
        .try_for_each(|part| f.write_all(part))
        .and_then(|_| f.sync_all())
        .map_err(|e| write_error(path, e))
}

/// Put the compacted copy at `tmp_base` in place of the database at `base` (files `exts`)
/// and report: `before` games then, `kept` now, `bytes_before` bytes then.
pub(crate) fn finish(
    tmp_base: &Path,
    base: &Path,
    exts: [&str; 3],
    before: u32,
    kept: usize,
    bytes_before: u64,
) -> Result<CompactReport> {
    replace_with_copy(tmp_base, base, exts)?;
    Ok(CompactReport {
        games_before: before,
        games_after: kept as u32,
        bytes_before,
        bytes_after: crate::store::files::total_size(base, &exts),
    })
}

/// The games compaction keeps (not deleted), with their entries, in the order SCID writes
/// them: the index order, or for more than 10,000 games sorted by stored line, the first home
/// pawns and the final material (a stable sort, as SCID's).
pub(crate) fn kept_games(db: &ScidDatabase) -> Vec<(u32, IndexEntry)> {
    let mut keep: Vec<(u32, IndexEntry)> = (0..db.game_count())
        .map(|n| (n, db.entry(n)))
        .filter(|(_, e)| !e.is_deleted())
        .collect();
    if keep.len() > REORDER_ABOVE {
        keep.sort_by_key(|(_, e)| {
            (
                e.stored_line,
                [
                    e.home_pawns[0],
                    e.home_pawns[1],
                    e.home_pawns[2],
                    e.home_pawns[3],
                ],
                e.matsig,
            )
        });
    }
    keep
}

/// Put the three files of the compacted copy at `tmp_base` in place of those at `base`
/// (`exts`: index, names, games), the game file first, as SCID renames them.
fn replace_with_copy(tmp_base: &Path, base: &Path, exts: [&str; 3]) -> Result<()> {
    for ext in [exts[2], exts[1], exts[0]] {
        let (from, to) = (with_ext(tmp_base, ext), with_ext(base, ext));
        std::fs::rename(&from, &to).map_err(|e| {
            Error::io(
                format!("renaming {} to {}", from.display(), to.display()),
                e,
            )
        })?;
    }
    Ok(())
}

/// The path SCID compacts the database at `base` into before renaming.
pub(crate) fn compact_base(base: &Path) -> PathBuf {
    PathBuf::from(format!("{}__COMPACT__", base.display()))
}

/// An error writing `p`.
pub(crate) fn write_error(p: &Path, e: std::io::Error) -> Error {
    Error::io(format!("writing {}", p.display()), e)
}

/// SCID's autoload (0 none, 1 first, above the count: last) after games were removed.
fn remap_autoload(autoload: u32, count: u32, keep: &[(u32, IndexEntry)]) -> u32 {
    match autoload {
        0 => 0,
        a if a > count => keep.len() as u32 + 1,
        a => (keep.iter().filter(|(n, _)| *n + 1 < a).count() as u32 + 1)
            .min(keep.len().max(1) as u32),
    }
}
