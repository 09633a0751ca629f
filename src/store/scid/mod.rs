//! SCID 4 databases (.si4 index, .sn4 names, .sg4 game records); byte layout in spec/scid4.md.
//!
//! [`ScidDatabase`] opens the three files, reads the index and names once, decodes a game
//! record only when that game is loaded, and saves games the way SCID does: append the
//! record, repoint or append the index entry, rewrite the name file.

pub mod bytes;
pub mod check;
pub mod compact;
pub mod create;
pub mod derive;
pub mod entry;
pub mod header;
pub mod names;
pub mod pieces;
pub mod record;
pub mod stored_lines;
pub mod writer;

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::SystemTime;

use entry::{FLAG_DELETED, IndexEntry};
use header::{IndexHeader, Layout};
use names::{MAX_NAME_LEN, MAX_NAMES, NameFile};

use crate::error::{Error, ErrorKind, Result};
use crate::game::{ChessGame, Headers};
pub use crate::store::files::with_ext;
use crate::store::files::{self, open_file, read_file};
use crate::store::{ChessStore, GameSummary, NameKind, StoreInfo, eco_text};

/// The three file extensions of a SCID 4 database, in the order index, names, games.
pub const EXTENSIONS: [&str; 3] = ["si4", "sn4", "sg4"];

/// Flags SCID recomputes on every save (S: FEN start, X: promotion, Y: under-promotion) and D.
const DERIVED_FLAGS: u32 = 0b111;

/// The most games a SCID 4 index can count.
pub const MAX_GAMES: u32 = 16_777_214;

/// An open SCID 4 database.
pub struct ScidDatabase {
    paths: [PathBuf; 3],
    format: String,
    state: RwLock<State>,
    games: File,
    /// The index file, open for writing (and locked) when the database is writable.
    index_file: Option<File>,
}

/// What changes when games are saved.
struct State {
    header: IndexHeader,
    index: Vec<u8>,
    names: NameFile,
    /// Reference counts of every name, computed at the first save.
    freqs: Option<[Vec<u32>; 4]>,
    games_len: u64,
    modified: SystemTime,
    /// Sizes and times of the index and name files when read, to notice outside changes.
    stamp: Stamp,
}

/// What identifies a version of the index and name files without reading them.
type Stamp = [(u64, Option<SystemTime>); 2];

fn stamp(paths: &[PathBuf; 3]) -> Stamp {
    [0, 1].map(|i| std::fs::metadata(&paths[i]).map_or((0, None), |m| (m.len(), m.modified().ok())))
}

/// The base path of a SCID database given as its base or any of its three files.
pub fn base_path(path: &Path) -> PathBuf {
    files::base_path(path, &EXTENSIONS)
}

/// True when `path` (base or one of the files) looks like a SCID database: its .si4 exists.
pub fn looks_like(path: &Path) -> bool {
    with_ext(&base_path(path), "si4").is_file()
}

impl ScidDatabase {
    /// Open the database at `path` (its base path or any of its three files), reading the
    /// index and the names; with `writable`, also take the one-writer lock. Fails with a
    /// clear message when a file is missing or unreadable, is not SCID, or the index and
    /// names disagree.
    pub fn open(path: &Path, writable: bool) -> Result<ScidDatabase> {
        let base = base_path(path);
        let paths = EXTENSIONS.map(|ext| with_ext(&base, ext));
        let [si4, sn4, sg4] = &paths;
        let index_file = if writable {
            let f = open_file(si4, true)?;
            writer::lock(&f, si4)?;
            Some(f)
        } else {
            None
        };
        let mut index = read_file(si4)?;
        let header = IndexHeader::parse(&index).map_err(|e| e.context(si4.display()))?;
        if writable && header.layout != Layout::V400 {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                format!(
                    "{}: version {} databases can only be opened read-only (as in SCID)",
                    si4.display(),
                    header.version
                ),
            ));
        }
        let (header, repaired) = read_index(&index, &si4.display())?;
        if repaired && let Some(f) = &index_file {
            let count = &header.num_games.to_be_bytes()[1..];
            writer::write_synced(f, si4, 14, count)?;
            index[14..17].copy_from_slice(count);
        }
        let names = NameFile::parse(&read_file(sn4)?).map_err(|e| e.context(sn4.display()))?;
        let games = open_file(sg4, writable)?;
        let games_len = games
            .metadata()
            .map_err(|e| Error::io(format!("cannot stat {}", sg4.display()), e))?
            .len();
        let modified = newest_mtime(&paths);
        let stamp = stamp(&paths);
        let db = ScidDatabase {
            format: format!("SCID 4 (version {})", header.version),
            state: RwLock::new(State {
                header,
                index,
                names,
                freqs: None,
                games_len,
                modified,
                stamp,
            }),
            paths,
            games,
            index_file,
        };
        db.check_name_ids()?;
        Ok(db)
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The parsed index header.
    pub fn header(&self) -> IndexHeader {
        self.read().header.clone()
    }

    /// The index entry of game `number` (0-based, `< game_count()`).
    pub fn entry(&self, number: u32) -> IndexEntry {
        self.read().entry(number)
    }

    /// The raw bytes of game `number`'s record.
    pub fn record_bytes(&self, number: u32) -> Result<Vec<u8>> {
        let entry = self.entry(number);
        self.read_record(number, &entry)
    }

    /// The record `entry` points at (game `number`, for messages).
    fn read_record(&self, number: u32, entry: &IndexEntry) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; entry.length as usize];
        self.games
            .read_exact_at(&mut buf, u64::from(entry.offset))
            .map_err(|e| {
                let what = format!(
                    "game {}: cannot read {} bytes at offset {} of {}",
                    number + 1,
                    entry.length,
                    entry.offset,
                    self.paths[2].display()
                );
                match e.kind() {
                    std::io::ErrorKind::UnexpectedEof => {
                        Error::corrupt_record(format!("{what}: the file is shorter"))
                    }
                    _ => Error::io(what, e),
                }
            })?;
        Ok(buf)
    }

    /// Re-read the index and names if another program (SCID) changed them since we read
    /// them; only for databases open read-only (a writable one is locked and ours).
    /// Returns whether anything changed.
    pub fn reload_if_changed(&self) -> Result<bool> {
        if self.index_file.is_some() || stamp(&self.paths) == self.read().stamp {
            return Ok(false);
        }
        let [si4, sn4, sg4] = &self.paths;
        let now = stamp(&self.paths);
        let index = read_file(si4)?;
        let (header, _) = read_index(&index, &si4.display())?;
        let names = NameFile::parse(&read_file(sn4)?).map_err(|e| e.context(sn4.display()))?;
        let games_len = std::fs::metadata(sg4).map_or(0, |m| m.len());
        let fresh = State {
            header,
            index,
            names,
            freqs: None,
            games_len,
            modified: newest_mtime(&self.paths),
            stamp: now,
        };
        for n in 0..fresh.header.num_games {
            for (kind, id) in name_refs(&fresh.entry(n)) {
                if id >= fresh.names.count(kind) {
                    return Err(Error::corrupt_database(format!(
                        "{}: changed, and now inconsistent",
                        si4.display()
                    )));
                }
            }
        }
        log::info!(
            "{} changed outside gamefs: {} games now",
            si4.display(),
            fresh.header.num_games
        );
        *self.write() = fresh;
        Ok(true)
    }

    /// Number of names in the `kind` dictionary.
    pub fn name_count(&self, kind: NameKind) -> u32 {
        self.read().names.count(kind)
    }

    /// Current size of the game file.
    pub fn games_file_len(&self) -> u64 {
        std::fs::metadata(&self.paths[2]).map_or(self.read().games_len, |m| m.len())
    }

    /// The stored bytes of name `id` of `kind`.
    pub fn raw_name(&self, kind: NameKind, id: u32) -> Vec<u8> {
        self.read()
            .names
            .section(kind)
            .raw
            .get(id as usize)
            .cloned()
            .unwrap_or_default()
    }

    /// The reference counts of every name, computed over all entries (deleted ones included,
    /// as SCID counts them).
    pub fn name_frequencies(&self) -> [Vec<u32>; 4] {
        let state = self.read();
        state.count_frequencies()
    }

    /// The name file as SCID would write it now.
    pub fn serialized_names(&self) -> Vec<u8> {
        let state = self.read();
        state.names.serialize(&state.count_frequencies())
    }

    fn check_name_ids(&self) -> Result<()> {
        let state = self.read();
        for n in 0..state.header.num_games {
            let e = state.entry(n);
            for (kind, id) in name_refs(&e) {
                if id >= state.names.count(kind) {
                    return Err(Error::corrupt_database(format!(
                        "{}: game {} refers to {kind:?} name {id}, but the name file has only {}",
                        self.paths[0].display(),
                        n + 1,
                        state.names.count(kind)
                    )));
                }
            }
        }
        Ok(())
    }

    fn headers(&self, e: &IndexEntry, extra: Vec<(String, String)>) -> Headers {
        let name = |kind, id| self.name(kind, id).to_string();
        let mut headers = Headers {
            event: name(NameKind::Event, e.event),
            site: name(NameKind::Site, e.site),
            date: e.game_date(),
            round: name(NameKind::Round, e.round),
            white: name(NameKind::Player, e.white),
            black: name(NameKind::Player, e.black),
            result: e.game_result(),
            white_rating: e.white_rating(),
            black_rating: e.black_rating(),
            eco: eco_text(e.eco),
            event_date: e.game_event_date(),
            extra: Vec::with_capacity(extra.len()),
        };
        // An extra tag named like an index name overrides it, as in SCID's display and export.
        for (tag, value) in extra {
            match tag.as_str() {
                "Event" => headers.event = value,
                "Site" => headers.site = value,
                "Round" => headers.round = value,
                "White" => headers.white = value,
                "Black" => headers.black = value,
                _ => headers.extra.push((tag, value)),
            }
        }
        headers
    }

    fn index_file(&self) -> Result<&File> {
        self.index_file
            .as_ref()
            .ok_or_else(|| Error::new(ErrorKind::ReadOnly, "the database is open read-only"))
    }

    /// Encode `game` and work out its entry (without offset and length), adding its names.
    fn prepare(
        &self,
        state: &mut State,
        game: &ChessGame,
        user_flags: u32,
    ) -> Result<(Vec<u8>, IndexEntry)> {
        let record = record::encode(game)?;
        let d = derive::derive(game)?;
        let h = &game.headers;
        let ids = [
            state.name_id(NameKind::Event, &h.event)?,
            state.name_id(NameKind::Site, &h.site)?,
            state.name_id(NameKind::Round, &h.round)?,
            state.name_id(NameKind::Player, &h.white)?,
            state.name_id(NameKind::Player, &h.black)?,
        ];
        let entry = IndexEntry {
            length: record.len() as u32,
            flags: user_flags & !(DERIVED_FLAGS | FLAG_DELETED),
            event: ids[0],
            site: ids[1],
            round: ids[2],
            white: ids[3],
            black: ids[4],
            ..IndexEntry::default()
        }
        .with_derived(&d);
        Ok((record, entry))
    }

    fn append_record(&self, state: &mut State, record: &[u8]) -> Result<u32> {
        let offset = writer::append_record(&self.games, &self.paths[2], state.games_len, record)?;
        state.games_len = offset + record.len() as u64;
        Ok(offset as u32)
    }

    fn write_names(&self, state: &mut State) -> Result<()> {
        let freqs = state
            .freqs
            .get_or_insert_with(|| [vec![], vec![], vec![], vec![]]);
        let bytes = state.names.serialize(freqs);
        writer::replace_file(&self.paths[1], &bytes)
    }

    fn write_entry(&self, state: &mut State, number: u32, entry: &IndexEntry) -> Result<()> {
        let at = Layout::V400.header_len() + Layout::V400.entry_len() * number as usize;
        let bytes = entry.encode();
        writer::write_synced(self.index_file()?, &self.paths[0], at as u64, &bytes)?;
        if state.index.len() < at + 47 {
            state.index.resize(at + 47, 0);
        }
        state.index[at..at + 47].copy_from_slice(&bytes);
        state.modified = SystemTime::now();
        Ok(())
    }
}

/// An .si4 file's bytes read as [`ScidDatabase::open`] reads them: the header parsed and its
/// game count reconciled with the entries present ([`reconcile_count`]); `name` is for messages.
/// Returns the header and whether its count was lowered to the entries present (an
/// interrupted save, which a writable open repairs on disk). Every entry below the returned
/// count can then be read with [`index_entry`]. Works on bytes rather than a file so that any
/// bytes can be checked (the `scid_index` fuzz target, [`crate::fuzzing`]).
pub fn read_index(index: &[u8], name: &dyn std::fmt::Display) -> Result<(IndexHeader, bool)> {
    let mut header = IndexHeader::parse(index).map_err(|e| e.context(name))?;
    let repaired = reconcile_count(&mut header, index.len() as u64, name)?;
    Ok((header, repaired))
}

/// Entry `number` of the .si4 bytes `index` in `layout`; `number` is below the count
/// [`read_index`] gave for these bytes.
pub fn index_entry(index: &[u8], layout: Layout, number: u32) -> IndexEntry {
    let at = layout.header_len() + layout.entry_len() * number as usize;
    match layout {
        Layout::V400 => IndexEntry::decode(index[at..at + 47].try_into().expect("47 bytes")),
        Layout::V300 => IndexEntry::decode_v300(index[at..at + 46].try_into().expect("46 bytes")),
    }
}

/// A header count that disagrees with the index size (`actual` bytes): fewer entries than
/// counted is what an interrupted gamefs save leaves (the count is lowered and true returned;
/// repaired on disk when writable), more is what an interrupted SCID import leaves (SCID
/// itself refuses that database).
fn reconcile_count(
    header: &mut IndexHeader,
    actual: u64,
    si4: &dyn std::fmt::Display,
) -> Result<bool> {
    let layout = header.layout;
    let expected =
        layout.header_len() as u64 + layout.entry_len() as u64 * u64::from(header.num_games);
    if actual == expected {
        return Ok(false);
    }
    let whole = actual.saturating_sub(layout.header_len() as u64) / layout.entry_len() as u64;
    let interrupted_save = actual > layout.header_len() as u64
        && actual < expected
        && (actual - layout.header_len() as u64).is_multiple_of(layout.entry_len() as u64)
        && whole < u64::from(header.num_games);
    if !interrupted_save {
        return Err(Error::corrupt_database(format!(
            "{si4}: the header says {} games, which needs {expected} bytes, but the file has {actual} \
             (truncated, or an interrupted write)",
            header.num_games,
        )));
    }
    log::warn!(
        "{si4}: the header counts {} games but {whole} entries are present (an interrupted save); using {whole}",
        header.num_games
    );
    header.num_games = whole as u32;
    Ok(true)
}

/// Game `number` (0-based) exists among `count`.
fn check_number(number: u32, count: u32) -> Result<()> {
    if number < count {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::NotFound,
            format!("no game {}", number + 1),
        ))
    }
}

fn name_refs(e: &IndexEntry) -> [(NameKind, u32); 5] {
    [
        (NameKind::Player, e.white),
        (NameKind::Player, e.black),
        (NameKind::Event, e.event),
        (NameKind::Site, e.site),
        (NameKind::Round, e.round),
    ]
}

impl State {
    fn entry(&self, number: u32) -> IndexEntry {
        index_entry(&self.index, self.header.layout, number)
    }

    fn count_frequencies(&self) -> [Vec<u32>; 4] {
        let mut freqs = NameKind::ALL.map(|k| vec![0u32; self.names.count(k) as usize]);
        for n in 0..self.header.num_games {
            for (kind, id) in name_refs(&self.entry(n)) {
                if let Some(f) = freqs[kind as usize].get_mut(id as usize) {
                    *f += 1;
                }
            }
        }
        freqs
    }

    fn frequencies(&mut self) -> &mut [Vec<u32>; 4] {
        if self.freqs.is_none() {
            self.freqs = Some(self.count_frequencies());
        }
        self.freqs.as_mut().expect("just computed")
    }

    /// The ID of `name` in `kind`, adding it (with the next ID) if new.
    fn name_id(&mut self, kind: NameKind, name: &str) -> Result<u32> {
        if name.len() > MAX_NAME_LEN {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "{kind:?} name is {} bytes; SCID stores at most {MAX_NAME_LEN}: {name:?}",
                    name.len()
                ),
            ));
        }
        let section = self.names.section_mut(kind);
        if let Some(id) = section.find(name.as_bytes()) {
            return Ok(id);
        }
        if section.raw.len() as u32 >= MAX_NAMES[kind as usize] {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("the database holds the most {kind:?} names SCID allows"),
            ));
        }
        let id = section.push(name.as_bytes());
        self.frequencies()[kind as usize].push(0);
        Ok(id)
    }

    fn count_refs(&mut self, e: &IndexEntry, delta: i64) {
        let freqs = self.frequencies();
        for (kind, id) in name_refs(e) {
            if let Some(f) = freqs[kind as usize].get_mut(id as usize) {
                *f = (i64::from(*f) + delta).max(0) as u32;
            }
        }
    }
}

fn newest_mtime(files: &[PathBuf]) -> SystemTime {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

impl ChessStore for ScidDatabase {
    fn info(&self) -> StoreInfo {
        StoreInfo {
            format: self.format.clone(),
            files: self.paths.to_vec(),
            modified: self.read().modified,
        }
    }

    fn game_count(&self) -> u32 {
        self.read().header.num_games
    }

    fn summary(&self, number: u32) -> GameSummary {
        let e = self.entry(number);
        GameSummary {
            deleted: e.is_deleted(),
            white: e.white,
            black: e.black,
            event: e.event,
            site: e.site,
            round: e.round,
            date: e.game_date(),
            result: e.game_result(),
            eco: e.eco,
        }
    }

    fn name(&self, kind: NameKind, id: u32) -> Arc<str> {
        self.read()
            .names
            .section(kind)
            .text
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from("?"))
    }

    fn load(&self, number: u32) -> Result<ChessGame> {
        if number >= self.game_count() {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("no game {}", number + 1),
            ));
        }
        let entry = self.entry(number);
        let bytes = self.record_bytes(number)?;
        let record =
            record::decode(&bytes).map_err(|e| e.context(format_args!("game {}", number + 1)))?;
        Ok(ChessGame {
            headers: self.headers(&entry, record.extra_tags),
            start: record.start,
            moves: record.moves,
        })
    }

    fn writable(&self) -> bool {
        self.index_file.is_some()
    }

    fn replace(&self, number: u32, game: &ChessGame) -> Result<bool> {
        self.index_file()?;
        let mut state = self.write();
        check_number(number, state.header.num_games)?;
        let old = state.entry(number);
        let (record, mut entry) = self.prepare(&mut state, game, old.flags)?;
        entry.offset = old.offset;
        let unchanged = IndexEntry {
            flags: old.flags & !FLAG_DELETED,
            ..old
        };
        if entry == unchanged && self.read_record(number, &old)? == record {
            return Ok(false);
        }
        entry.offset = self.append_record(&mut state, &record)?;
        writer::sync(&self.games, &self.paths[2])?;
        state.count_refs(&old, -1);
        state.count_refs(&entry, 1);
        self.write_names(&mut state)?;
        self.write_entry(&mut state, number, &entry)?;
        Ok(true)
    }

    fn append(&self, games: &mut dyn Iterator<Item = Result<ChessGame>>) -> Result<Vec<u32>> {
        let index_file = self.index_file()?;
        let mut state = self.write();
        let first = state.header.num_games;
        let mut entries = Vec::new();
        let mut appended = || -> Result<()> {
            for (i, game) in games.enumerate() {
                let context = |e: Error| e.context(format_args!("game {} of the text", i + 1));
                if u64::from(first) + entries.len() as u64 >= u64::from(MAX_GAMES) {
                    return Err(Error::new(
                        ErrorKind::TooLarge,
                        format!("SCID 4 holds at most {MAX_GAMES} games"),
                    ));
                }
                let (record, mut entry) = self
                    .prepare(&mut state, &game.map_err(context)?, 0)
                    .map_err(context)?;
                entry.offset = self.append_record(&mut state, &record)?;
                entries.push(entry);
            }
            Ok(())
        };
        // On an error nothing references the records written so far: they stay as garbage
        // until compact.
        appended()?;
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        for e in &entries {
            state.count_refs(e, 1);
        }
        writer::sync(&self.games, &self.paths[2])?;
        self.write_names(&mut state)?;
        let count = first + entries.len() as u32;
        writer::write_synced(index_file, &self.paths[0], 14, &count.to_be_bytes()[1..])?;
        state.index[14..17].copy_from_slice(&count.to_be_bytes()[1..]);
        let mut bytes = Vec::with_capacity(entries.len() * 47);
        for e in &entries {
            bytes.extend(e.encode());
        }
        let at = state.index.len() as u64;
        writer::write_synced(index_file, &self.paths[0], at, &bytes)?;
        state.index.extend(bytes);
        state.header.num_games = count;
        state.modified = SystemTime::now();
        Ok((first..count).collect())
    }

    fn reload_if_changed(&self) -> Result<bool> {
        ScidDatabase::reload_if_changed(self)
    }

    fn set_deleted(&self, number: u32, deleted: bool) -> Result<()> {
        self.index_file()?;
        let mut state = self.write();
        check_number(number, state.header.num_games)?;
        let mut entry = state.entry(number);
        if entry.is_deleted() == deleted {
            return Ok(());
        }
        entry.flags ^= FLAG_DELETED;
        self.write_entry(&mut state, number, &entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ChessGame;

    /// An index of `entries` empty entries whose header counts `counted` games.
    fn index(counted: u32, entries: usize) -> Vec<u8> {
        let mut bytes = create::empty_header(counted).to_vec();
        bytes.extend(std::iter::repeat_n(0u8, 47 * entries));
        bytes
    }

    #[test]
    fn read_index_reconciles_the_count_with_the_entries_present() {
        let (h, repaired) = read_index(&index(2, 2), &"x.si4").unwrap();
        assert_eq!((h.num_games, repaired), (2, false));
        // Fewer entries than counted: an interrupted save, read with the entries present.
        let (h, repaired) = read_index(&index(3, 1), &"x.si4").unwrap();
        assert_eq!((h.num_games, repaired), (1, true));
        assert_eq!(
            index_entry(&index(3, 1), h.layout, 0),
            IndexEntry::decode(&[0; 47])
        );
        // More entries than counted, or a partial entry: refused, as SCID refuses them.
        for bytes in [
            index(1, 2),
            index(1, 1)[..200].to_vec(),
            index(0, 0)[..100].to_vec(),
        ] {
            let e = read_index(&bytes, &"x.si4").unwrap_err();
            assert!(e.to_string().starts_with("x.si4: "), "{e}");
        }
    }

    #[test]
    fn a_writable_open_repairs_the_count_of_an_interrupted_save() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("db");
        create::create(&base).unwrap();
        {
            let db = ScidDatabase::open(&base, true).unwrap();
            db.append(&mut std::iter::once(Ok(ChessGame::default())))
                .unwrap();
        }
        let si4 = with_ext(&base, "si4");
        let mut bytes = std::fs::read(&si4).unwrap();
        bytes[14..17].copy_from_slice(&3u32.to_be_bytes()[1..]);
        std::fs::write(&si4, &bytes).unwrap();
        assert_eq!(ScidDatabase::open(&base, false).unwrap().game_count(), 1);
        assert_eq!(std::fs::read(&si4).unwrap()[14..17], [0, 0, 3], "read-only");
        assert_eq!(ScidDatabase::open(&base, true).unwrap().game_count(), 1);
        assert_eq!(std::fs::read(&si4).unwrap()[14..17], [0, 0, 1], "repaired");
    }
}
