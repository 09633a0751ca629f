//! SCID databases: SCID 4 (.si4 index, .sn4 names, .sg4 game records; byte layout in
//! docs/formats/scid4.md) and SCID 5 (.si5, .sn5, .sg5; what differs is in [`v5`]).
//!
//! [`ScidDatabase`] opens the three files, reads the index and names once, decodes a game
//! record only when that game is loaded, and saves games the way SCID does: append the
//! record, repoint or append the index entry, and rewrite the name file (SCID 4) or append
//! the new names to it (SCID 5).

pub(crate) mod bytes;
pub mod check;
pub(crate) mod compact;
pub(crate) mod create;
pub mod derive;
pub mod entry;
pub(crate) mod fit;

#[cfg(test)]
mod failures;
pub(crate) mod header;
pub(crate) mod mainline;
pub mod names;
pub(crate) mod pieces;
pub mod record;
pub(crate) mod scan;
pub(crate) mod stored_lines;
pub mod v5;
pub mod writer;
mod written;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::SystemTime;

use super::read_ahead::RecordReader;
use entry::{FLAG_DELETED, IndexEntry};
use header::{IndexHeader, Layout};
use names::{MAX_NAME_LEN, NameFile};
use scan::{IndexShape, name_fields};

use crate::error::{Error, ErrorKind, Result};
use crate::game::visit::GameVisitor;
use crate::game::{ChessGame, Headers, StartPosition};
use crate::store::Each;
use crate::store::blob::{self, Blob};
use crate::store::damage::{Damage, Problem, UNKNOWN_NAME};
pub use crate::store::files::with_ext;
use crate::store::files::{self, FileStamp, open_blob, open_file, read_file};
use crate::store::{
    ChessStore, GameSummary, NameKind, StoreInfo, check_game_number, check_readable_game, eco_text,
    in_game,
};

/// What a failed save undoes (four name dictionaries).
type Undo = writer::Undo<4>;

/// The three file extensions of a SCID 4 database, in the order index, names, games.
pub const EXTENSIONS: [&str; 3] = ["si4", "sn4", "sg4"];

/// Flags SCID recomputes on every save (S: FEN start, X: promotion, Y: under-promotion) and D.
const DERIVED_FLAGS: u32 = 0b111;

/// The most games a SCID 4 index can count.
pub const MAX_GAMES: u32 = 16_777_214;

/// An open SCID 4 or SCID 5 database.
pub struct ScidDatabase {
    paths: [PathBuf; 3],
    format: String,
    state: RwLock<State>,
    /// The game file as open now (replaced when another program replaces the file under a
    /// read-only database, as SCID's compaction does).
    games: RwLock<Arc<GameFile>>,
    /// The index file, open for writing (and locked) when the database is writable; opened
    /// again when another program replaced the file (a compaction renames new files in).
    index_file: RwLock<Option<Arc<File>>>,
    /// Opened for writing: the index file above is there.
    writable: bool,
    /// A change took in another program's writes first (docs/SEMANTICS.md §10a): the next
    /// [`ScidDatabase::reload_if_changed`] says so, for the tree to show them.
    caught_up: AtomicBool,
    /// The entries this open wrote, to mend those another program writes over.
    written: Mutex<written::Written>,
}

/// An open game file and its read-ahead.
struct GameFile {
    blob: Blob,
    /// Reads records from `blob`, a stretch at a time when they come in file order.
    records: RecordReader,
}

impl GameFile {
    fn new(blob: Blob) -> Arc<GameFile> {
        Arc::new(GameFile {
            blob,
            records: RecordReader::new(),
        })
    }

    /// The file to write to (a database open for writing is a local file).
    fn file(&self) -> &File {
        self.blob
            .local_file()
            .expect("a database open for writing is a local file")
    }
}

/// What changes when games are saved.
struct State {
    /// The header, its count set to the games shown.
    header: IndexHeader,
    index: Vec<u8>,
    /// Games with a whole index entry (the others shown have none: see [`scan`]).
    present: u32,
    names: NameFile,
    /// What is wrong with the database, found when it was read.
    damage: Damage,
    /// Reference counts of every name, computed at the first save.
    freqs: Option<[Vec<u32>; 4]>,
    games_len: u64,
    modified: SystemTime,
    /// The stamps of the index, name and game files as this state last read or wrote them,
    /// to notice another program's changes; `None` when a write of ours may have met one
    /// (the next look re-reads).
    stamp: Option<Stamp>,
    /// SCID 5's append-only name file: what is written of it and what is still to append.
    name_log: Option<NameLog>,
    /// The name file read without damage. Only then are the entries this open wrote judged
    /// by it: another program may be half-way through writing it (SCID 4 truncates its .sn4
    /// and writes it again).
    names_whole: bool,
    /// How many games carry the deleted mark, counted at the first ask since the state last
    /// changed ([`ScidDatabase::write`] forgets it): `.gamefs/stats` tells it on every read.
    deleted_count: std::sync::OnceLock<u32>,
}

/// The new names of a SCID 5 database not yet appended to its .sn5, and how many of each kind
/// the file holds.
#[derive(Default)]
struct NameLog {
    /// Records to append, in the order the names were added (as SCID 5 appends them).
    pending: Vec<u8>,
    /// Names of each kind in the file.
    on_disk: [u32; 4],
}

/// What identifies a version of the index, name and game files without reading them.
type Stamp = [FileStamp; 3];

/// The base path of a SCID database given as its base or any of its three files (SCID 4's or
/// SCID 5's).
pub fn base_path(path: &Path) -> PathBuf {
    files::base_path(&files::base_path(path, &EXTENSIONS), &v5::EXTENSIONS)
}

/// The layout of the SCID database at `path`: for one of a format's files, that format's when
/// its index exists; for a base path, SCID 4 when its .si4 exists, else SCID 5 when its .si5
/// does; `None` when there is none.
pub fn layout_at(path: &Path) -> Option<Layout> {
    let base = base_path(path);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let (scid4, scid5) = if EXTENSIONS.contains(&ext) {
        (true, false)
    } else if v5::EXTENSIONS.contains(&ext) {
        (false, true)
    } else {
        (true, true)
    };
    if scid4 && blob::is_file(&with_ext(&base, "si4")) {
        Some(Layout::V400)
    } else if scid5 && blob::is_file(&with_ext(&base, "si5")) {
        Some(Layout::V5)
    } else {
        None
    }
}

/// True when `path` (base or one of the files) looks like a SCID database: its .si4 or .si5
/// exists.
pub fn looks_like(path: &Path) -> bool {
    layout_at(path).is_some()
}

/// The paths of the index, name and game files of the database at `base` with `layout`.
pub fn paths_of(base: &Path, layout: Layout) -> [PathBuf; 3] {
    let exts = if layout == Layout::V5 {
        v5::EXTENSIONS
    } else {
        EXTENSIONS
    };
    exts.map(|ext| with_ext(base, ext))
}

impl ScidDatabase {
    /// Open the database at `path` (its base path or any of its three files), reading the
    /// index and the names; with `writable`, also take the one-writer lock. Fails with a
    /// clear message when a file is missing or unreadable, or is not SCID (bad magic, unknown
    /// version, a header cut short). Damage beyond that (see `scan`) does not stop a
    /// read-only open: it is listed by [`ChessStore::problems`] and the damaged games fail to
    /// load. A damaged database is not opened for writing (a read-only error naming the
    /// first problem); an index whose last entries are missing behind its count (an
    /// interrupted save) is repaired instead.
    pub fn open(path: &Path, writable: bool) -> Result<ScidDatabase> {
        let base = base_path(path);
        let paths = paths_of(&base, layout_at(path).unwrap_or(Layout::V400));
        let index_file = writable.then(|| open_index(&paths[0])).transpose()?;
        let state = read_state(&paths, index_file.as_deref(), true)?;
        let games = open_blob(&paths[2], writable)?;
        let format = match state.header.layout {
            Layout::V5 => "SCID 5".to_owned(),
            _ => format!("SCID 4 (version {})", state.header.version),
        };
        Ok(ScidDatabase {
            format,
            state: RwLock::new(state),
            paths,
            games: RwLock::new(GameFile::new(games)),
            index_file: RwLock::new(index_file),
            writable,
            caught_up: AtomicBool::new(false),
            written: Mutex::default(),
        })
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The state, to change: what is counted of it is forgotten.
    fn write(&self) -> RwLockWriteGuard<'_, State> {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        state.deleted_count.take();
        state
    }

    /// The entries this open wrote.
    fn written(&self) -> std::sync::MutexGuard<'_, written::Written> {
        self.written.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The game file as open now.
    fn game_file(&self) -> Arc<GameFile> {
        self.games.read().unwrap_or_else(|p| p.into_inner()).clone()
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
        let (entry, committed) = {
            let state = self.read();
            (state.entry(number), state.games_len)
        };
        self.read_record(number, &entry, committed)
    }

    /// Game `number`'s index entry and record bytes, or why it cannot be read (no such game,
    /// damage found when the database was opened, an unreadable record).
    fn stored_game(&self, number: u32) -> Result<(IndexEntry, Vec<u8>)> {
        // One look at the shared state per game: an export renders on every core at once.
        let (entry, committed) = {
            let state = self.read();
            check_readable_game(&state.damage, number, state.header.num_games)?;
            (state.entry(number), state.games_len)
        };
        let bytes = self.read_record(number, &entry, committed)?;
        Ok((entry, bytes))
    }

    /// The record `entry` points at (game `number`, for messages); the game file's first
    /// `committed` bytes are those the index may point at (they never change).
    fn read_record(&self, number: u32, entry: &IndexEntry, committed: u64) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; entry.length as usize];
        let games = self.game_file();
        games
            .records
            .read(&games.blob, entry.offset, &mut buf, committed)
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

    /// Re-read the index and names if another program (SCID) changed the files since this
    /// store last read or wrote them, writable or not. Returns whether the state was re-read
    /// since the last call (here, or by a change that caught up first).
    pub fn reload_if_changed(&self) -> Result<bool> {
        let caught_up = self.caught_up.swap(false, Ordering::AcqRel);
        if self.read().stamp == Some(FileStamp::of_all(&self.paths)) {
            return Ok(caught_up);
        }
        let mut state = self.write();
        self.catch_up(&mut state)?;
        self.caught_up.store(false, Ordering::Release);
        Ok(true)
    }

    /// Take in what another program wrote since `state` was read or last written by us
    /// (docs/SEMANTICS.md §10a): re-read index, names and game file when their stamps differ,
    /// reopening (and locking) an index file that was replaced. Every change calls it first,
    /// under the state's write lock, so a save lands on top of the other program's games and
    /// names, at the game file's real end, and never writes a file from a stale picture.
    fn catch_up(&self, state: &mut State) -> Result<()> {
        if state.stamp == Some(FileStamp::of_all(&self.paths)) {
            return Ok(());
        }
        // Not half of the other program's save: its record without its entry or names.
        files::wait_until_quiet(&self.paths);
        let now = FileStamp::of_all(&self.paths);
        let index_file = if self.writable {
            let mut slot = self.index_file.write().unwrap_or_else(|p| p.into_inner());
            let open = slot
                .as_ref()
                .expect("a writable database has its index file");
            if files::inode_of(open) != Some(now[0].inode) {
                log::warn!(
                    "{} was replaced by another program: opening the new file",
                    self.paths[0].display()
                );
                *slot = Some(open_index(&self.paths[0])?);
            }
            slot.clone()
        } else {
            None
        };
        if self.writable && state.header.layout == Layout::V5 {
            self.mend_names_written_over()?;
        }
        let fresh = read_state(&self.paths, index_file.as_deref(), false)?;
        // The game file may have been replaced too (a compaction writes new files), or written
        // over where our read-ahead holds old bytes: read from the one there now.
        let games = open_blob(&self.paths[2], self.writable)?;
        *self.games.write().unwrap_or_else(|p| p.into_inner()) = GameFile::new(games);
        log::info!(
            "{} changed outside gamefs: {} games now",
            self.paths[0].display(),
            fresh.header.num_games
        );
        *state = fresh;
        self.caught_up.store(true, Ordering::Release);
        if self.writable {
            if !state.names_whole {
                // Perhaps read half-written: nothing of this open is judged by it (every entry
                // would seem written over, and be forgotten), and the next look reads again.
                state.stamp = None;
            } else if self.mend_written_over(state)? {
                *state = read_state(&self.paths, index_file.as_deref(), false)?;
            }
            state.damage.refuse_writing(&self.paths[0], "game")?;
        }
        Ok(())
    }

    /// Cut off what is left of the SCID 5 name records this open appended after another
    /// program appended shorter ones over them from its stale idea of the file's end (see
    /// [`written`]): that tail starts in the middle of a record, and SCID 5 refuses the whole
    /// file. The entries that named what is cut are mended with the rest.
    fn mend_names_written_over(&self) -> Result<()> {
        let path = &self.paths[1];
        let bytes = read_file(path)?;
        let whole = v5::names::whole_len(&bytes);
        let Some(cut) = self.written().names_cut(&bytes, whole) else {
            return Ok(());
        };
        log::warn!(
            "{}: names added through the mount were written over by another program; what is \
             left of them from byte {cut} on is cut off",
            path.display()
        );
        let file = open_file(path, true)?;
        file.set_len(cut as u64)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(format!("cutting {}", path.display()), e))
    }

    /// Mend the entries this open wrote that another program wrote over from a stale picture
    /// (see [`written`]): each is put back to its newest earlier version that still reads as
    /// it did, or a game this open appended is left out of the end of the index. Returns
    /// whether anything was written.
    fn mend_written_over(&self, state: &mut State) -> Result<bool> {
        // SCID 4's count, written from a stale picture, can leave out games this open
        // appended: their entries stay after the count, and SCID refuses such an index. They
        // are cut off (the tree reports them with their texts).
        let layout = state.header.layout;
        let body = state.index.len().saturating_sub(layout.header_len());
        let whole = u32::try_from(body / layout.entry_len()).unwrap_or(u32::MAX);
        let count = state.header.num_games;
        let beyond = layout != Layout::V5
            && body.is_multiple_of(layout.entry_len())
            && self
                .written()
                .wrote_all(count..whole, &|n| entry_at(&state.header, &state.index, n));
        if beyond {
            let games = if whole == count + 1 {
                format!("game {whole}")
            } else {
                format!("games {} to {whole}", count + 1)
            };
            log::warn!(
                "{}: {games}, added through the mount, beyond the count another program wrote, \
                 left out of the index",
                self.paths[0].display(),
            );
            self.cut_count(state, count)?;
        }
        let mends = {
            let record = |e: &IndexEntry| self.read_record(0, e, state.games_len).ok();
            self.written()
                .take_to_mend(state.header.num_games, &|n| state.entry(n), &|v| {
                    v.holds(&state.names, &record)
                })
        };
        // Games left out from the end, the last first: the count each cut leaves.
        let mut count = count;
        for (number, mend) in mends.iter().rev() {
            let game = number + 1;
            match mend {
                written::Mend::PutBack(entry) => {
                    log::warn!(
                        "{}: game {game}, saved through the mount, was written over by another \
                         program; its entry is put back as it was before that save",
                        self.paths[0].display()
                    );
                    self.write_entry(state, *number, entry)?;
                }
                written::Mend::LeaveOut if game == count => {
                    log::warn!(
                        "{}: game {game}, added through the mount, was written over by another \
                         program; it is left out of the index",
                        self.paths[0].display()
                    );
                    self.cut_count(state, *number)?;
                    count = *number;
                }
                written::Mend::LeaveOut => log::warn!(
                    "{}: game {game}, added through the mount, was written over by another \
                     program and cannot be left out (games follow it)",
                    self.paths[0].display()
                ),
            }
        }
        Ok(beyond || !mends.is_empty())
    }

    /// Leave the games from `first` on out of the index: its entries are cut off, and SCID 4's
    /// header count set to `first` after that (SCID refuses an index with entries beyond its
    /// count; one counting entries it lacks is what an interrupted save leaves, which SCID
    /// opens and a writable open repairs).
    fn cut_count(&self, state: &State, first: u32) -> Result<()> {
        let index = self.index_file()?;
        let layout = state.header.layout;
        let at = layout.header_len() as u64 + layout.entry_len() as u64 * u64::from(first);
        index
            .set_len(at)
            .and_then(|()| index.sync_all())
            .map_err(|e| Error::io(format!("cutting {}", self.paths[0].display()), e))?;
        match layout {
            Layout::V5 => Ok(()),
            _ => writer::write_synced(&index, &self.paths[0], 14, &first.to_be_bytes()[1..]),
        }
    }

    /// After a change of ours: the files' stamps as they are now, which the next look compares
    /// with. When the game file's length is not the one we wrote, another program wrote at the
    /// same time: no stamp is kept, so the next look re-reads.
    fn restamp(&self, state: &mut State) {
        let now = FileStamp::of_all(&self.paths);
        state.stamp = (now[2].len == state.games_len).then_some(now);
    }

    /// Number of names in the `kind` dictionary.
    pub fn name_count(&self, kind: NameKind) -> u32 {
        self.read().names.count(kind)
    }

    /// Current size of the game file.
    pub fn games_file_len(&self) -> u64 {
        files::file_len(&self.paths[2]).unwrap_or(self.read().games_len)
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

    fn headers(&self, e: &IndexEntry, extra: Vec<(String, String)>) -> Headers {
        // Names are copied under one look at the state, not shared: sharing costs an atomic
        // count on names that every core renders.
        let state = self.read();
        let name = |kind, id| state.names.text(kind, id).to_owned();
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
        // SCID 5 names a Chess960 game's variant whether or not its record does (last).
        let name_variant = e.chess960 && !extra.iter().any(|(tag, _)| tag == "Variant");
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
        if name_variant {
            headers
                .extra
                .push(("Variant".to_owned(), "Chess960".to_owned()));
        }
        headers
    }

    fn index_file(&self) -> Result<Arc<File>> {
        self.index_file
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| Error::new(ErrorKind::ReadOnly, "the database is open read-only"))
    }

    /// Encode `game` and work out its entry (without offset and length), adding its names.
    fn prepare(
        &self,
        state: &mut State,
        game: &ChessGame,
        user_flags: u32,
    ) -> Result<(Vec<u8>, IndexEntry)> {
        let encode = match state.header.layout {
            Layout::V5 => derive::encode_and_derive_scid5,
            _ => derive::encode_and_derive,
        };
        let (record, d) = encode(game)?;
        let entry = self.entry_for(state, game, record.len(), &d, user_flags)?;
        Ok((record, entry))
    }

    /// The index entry of `game`, encoded as a record of `length` bytes with derived fields
    /// `d`: its names looked up (new ones added).
    fn entry_for(
        &self,
        state: &mut State,
        game: &ChessGame,
        length: usize,
        d: &derive::Derived,
        user_flags: u32,
    ) -> Result<IndexEntry> {
        let h = &game.headers;
        let ids = [
            state.name_id(NameKind::Event, &h.event)?,
            state.name_id(NameKind::Site, &h.site)?,
            state.name_id(NameKind::Round, &h.round)?,
            state.name_id(NameKind::Player, &h.white)?,
            state.name_id(NameKind::Player, &h.black)?,
        ];
        let v5 = state.header.layout == Layout::V5;
        let entry = IndexEntry {
            length: length as u32,
            flags: user_flags & !(DERIVED_FLAGS | FLAG_DELETED),
            event: ids[0],
            site: ids[1],
            round: ids[2],
            white: ids[3],
            black: ids[4],
            event_date_full: v5.then_some(d.event_date_full),
            chess960: v5 && matches!(game.start, StartPosition::Chess960(_)),
            ..IndexEntry::default()
        }
        .with_derived(d);
        // SCID 5 stores the whole event date instead of SCID 4's relative one.
        Ok(IndexEntry {
            event_date: if v5 { 0 } else { entry.event_date },
            ..entry
        })
    }

    fn append_record(&self, state: &mut State, record: &[u8]) -> Result<u64> {
        let offset = writer::append_record(
            self.game_file().file(),
            &self.paths[2],
            state.games_len,
            record,
            state.header.layout.max_game_file(),
        )?;
        state.games_len = offset + record.len() as u64;
        Ok(offset)
    }

    /// Make the name file hold every name: SCID 4's is rewritten whole, SCID 5's gets the new
    /// names appended.
    fn write_names(&self, state: &mut State) -> Result<()> {
        if let Some(log) = &mut state.name_log {
            if !log.pending.is_empty() {
                let at = writer::append_synced(&self.paths[1], &log.pending)?;
                self.written().appended_names(at, &log.pending);
                log.pending.clear();
            }
            log.on_disk = NameKind::ALL.map(|k| state.names.count(k));
            return Ok(());
        }
        let freqs = state
            .freqs
            .get_or_insert_with(|| [vec![], vec![], vec![], vec![]]);
        let bytes = state.names.serialize(freqs);
        writer::replace_file(&self.paths[1], &bytes)
    }

    fn write_entry(&self, state: &mut State, number: u32, entry: &IndexEntry) -> Result<()> {
        let layout = state.header.layout;
        let at = layout.header_len() + layout.entry_len() * number as usize;
        let bytes = encode_entry(layout, entry);
        writer::write_synced(&*self.index_file()?, &self.paths[0], at as u64, &bytes)?;
        if state.index.len() < at + bytes.len() {
            state.index.resize(at + bytes.len(), 0);
        }
        state.index[at..at + bytes.len()].copy_from_slice(&bytes);
        state.modified = SystemTime::now();
        Ok(())
    }
}

impl ScidDatabase {
    /// Forget what a failed save added before anything referred to it: names (in memory
    /// only: the name file is replaced atomically, so it still has the old ones), reference
    /// counts, and the records appended to the game file (cut off, giving the space back).
    fn undo(&self, state: &mut State, undo: &Undo) {
        for kind in NameKind::ALL {
            // SCID 5's names already appended to its file keep their IDs.
            let written = state
                .name_log
                .as_ref()
                .map_or(0, |l| l.on_disk[kind as usize]);
            state
                .names
                .section_mut(kind)
                .truncate(undo.names[kind as usize].max(written));
        }
        if let Some(log) = &mut state.name_log {
            log.pending.clear();
        }
        state.freqs = None;
        writer::cut_back_to(self.game_file().file(), &self.paths[2], undo.games_len);
        state.games_len = undo.games_len;
    }

    /// What [`ScidDatabase::undo`] needs to undo a save that starts now.
    fn undo_point(state: &State) -> Undo {
        Undo {
            games_len: state.games_len,
            names: NameKind::ALL.map(|k| state.names.count(k)),
        }
    }
}

/// The index file at `path`, open for writing and locked (one writer per database).
fn open_index(path: &Path) -> Result<Arc<File>> {
    let f = open_file(path, true)?;
    writer::lock(&f, path)?;
    Ok(Arc::new(f))
}

/// Read the index, names and game file size of the database at `paths` into a fresh state,
/// finding what is wrong (see `scan`). With `writable` (the locked index file), an interrupted
/// save's count is repaired, and with `refuse_damage` too a damaged database is refused.
fn read_state(paths: &[PathBuf; 3], writable: Option<&File>, refuse_damage: bool) -> Result<State> {
    let [si4, sn4, sg4] = paths;
    let stamp = FileStamp::of_all(paths);
    let mut index = read_file(si4)?;
    let v5 = si4.extension().is_some_and(|e| e == "si5");
    let (mut header, names, name_damage, name_log) = if v5 {
        let (names, damage) = v5::names::parse(&read_file(sn4)?);
        let header = IndexHeader::scid5(index.len(), &names);
        let log = NameLog {
            pending: Vec::new(),
            on_disk: NameKind::ALL.map(|k| names.names.count(k)),
        };
        (header, names.names, damage, Some(log))
    } else {
        let header = IndexHeader::parse(&index).map_err(|e| e.context(si4.display()))?;
        let (names, damage) =
            NameFile::parse_lenient(&read_file(sn4)?).map_err(|e| e.context(sn4.display()))?;
        (header, names, damage, None)
    };
    if writable.is_some() && header.layout == Layout::V300 {
        return Err(Error::new(
            ErrorKind::ReadOnly,
            format!(
                "{}: version {} databases can only be opened read-only (as in SCID)",
                si4.display(),
                header.version
            ),
        ));
    }
    let games_len = files::file_len(sg4)?;
    if let Some(f) = writable {
        repair_torn_scid5_entry(f, si4, &mut header, &mut index)?;
    }
    let shape = IndexShape::of(&header, index.len());
    let repair = writable.is_some() && shape.repairable();
    let mut damage = Damage::default();
    if !repair {
        shape.report(&mut damage, si4);
    }
    let names_whole = name_damage.is_empty();
    for m in name_damage {
        damage.database(format!("{}: {m}", sn4.display()));
    }
    let present = shape.present();
    let entry = |n| entry_at(&header, &index, n);
    // Each scan reads every entry: on two cores at once (a tenth of a second for a million).
    let record_damage = std::thread::scope(|s| {
        let records = s.spawn(|| {
            let mut found = Damage::default();
            scan::scan_records(&mut found, present, entry, sg4, games_len);
            found
        });
        scan::scan_names(&mut damage, present, entry, &names, sn4);
        records.join()
    });
    damage.append(record_damage.unwrap_or_else(|p| std::panic::resume_unwind(p)));
    damage.sort();
    header.num_games = shape.shown();
    if let Some(f) = writable {
        if refuse_damage {
            damage.refuse_writing(si4, "game")?;
        }
        if repair {
            log::warn!(
                "{}: the header counts {} games but {present} entries are present (an interrupted \
                 save); the count is repaired to {present}",
                si4.display(),
                shape.counted
            );
            writer::write_synced(f, si4, 14, &present.to_be_bytes()[1..])?;
            index[14..17].copy_from_slice(&present.to_be_bytes()[1..]);
        }
    }
    Ok(State {
        header,
        index,
        present,
        names,
        damage,
        freqs: None,
        games_len,
        modified: newest_mtime(paths),
        // A repair wrote the index: its stamp is taken again.
        stamp: Some(if repair && writable.is_some() {
            FileStamp::of_all(paths)
        } else {
            stamp
        }),
        name_log,
        names_whole,
        deleted_count: Default::default(),
    })
}

/// A SCID 5 index that ends inside an entry (an append cut short by a crash: gamefs and SCID 5
/// append entries at the end only) is cut back to its whole entries, as a writable open
/// repairs SCID 4's count of an interrupted save; `header` and `index` follow.
fn repair_torn_scid5_entry(
    f: &File,
    si5: &Path,
    header: &mut IndexHeader,
    index: &mut Vec<u8>,
) -> Result<()> {
    let entry_len = Layout::V5.entry_len();
    if header.layout != Layout::V5 || index.len().is_multiple_of(entry_len) {
        return Ok(());
    }
    let whole = index.len() - index.len() % entry_len;
    log::warn!(
        "{}: the last {} bytes are part of an entry (an interrupted save); cut back to {} games",
        si5.display(),
        index.len() - whole,
        whole / entry_len
    );
    f.set_len(whole as u64)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(format!("cutting {}", si5.display()), e))?;
    index.truncate(whole);
    header.num_games = (whole / entry_len) as u32;
    Ok(())
}

/// An .si4 file's bytes read as opening a database reads them: the header, and how many of
/// the games it counts have a whole entry (`IndexShape`); each of those can be read with
/// [`index_entry`]. Works on bytes rather than a file so that any bytes can be checked (the
/// `scid_index` fuzz target, [`crate::fuzzing`]); `name` is for messages.
pub fn read_index(index: &[u8], name: &dyn std::fmt::Display) -> Result<(IndexHeader, u32)> {
    let header = IndexHeader::parse(index).map_err(|e| e.context(name))?;
    let present = IndexShape::of(&header, index.len()).present();
    Ok((header, present))
}

/// Entry `number` of the .si4 bytes `index`; `number` is below the count [`read_index`]
/// gave for these bytes.
pub fn index_entry(index: &[u8], header: &IndexHeader, number: u32) -> IndexEntry {
    entry_at(header, index, number)
}

/// `entry`'s bytes in `layout` (a SCID 3 index is never written).
fn encode_entry(layout: Layout, entry: &IndexEntry) -> Vec<u8> {
    match layout {
        Layout::V5 => v5::entry::encode(entry).to_vec(),
        _ => entry.encode().to_vec(),
    }
}

/// Entry `number` of an index with this header, which must hold it whole.
fn entry_at(header: &IndexHeader, index: &[u8], number: u32) -> IndexEntry {
    let bytes = entry_bytes(header, index, number);
    match header.layout {
        Layout::V400 => IndexEntry::decode(bytes.try_into().expect("47 bytes")),
        Layout::V300 => IndexEntry::decode_v300(bytes.try_into().expect("46 bytes")),
        Layout::V5 => v5::entry::decode(bytes.try_into().expect("56 bytes")),
    }
}

/// The flags of entry `number` of an index with this header, which must hold it whole: its
/// [`IndexEntry::flags`] without decoding the rest.
fn flags_at(header: &IndexHeader, index: &[u8], number: u32) -> u32 {
    let bytes = entry_bytes(header, index, number);
    match header.layout {
        Layout::V400 => IndexEntry::decode_flags(bytes.try_into().expect("47 bytes")),
        Layout::V300 => IndexEntry::decode_v300_flags(bytes.try_into().expect("46 bytes")),
        Layout::V5 => v5::entry::decode_flags(bytes.try_into().expect("56 bytes")),
    }
}

/// The bytes of entry `number` of an index with this header, which must hold it whole.
fn entry_bytes<'a>(header: &IndexHeader, index: &'a [u8], number: u32) -> &'a [u8] {
    let layout = header.layout;
    let at = layout.header_len() + layout.entry_len() * number as usize;
    &index[at..at + layout.entry_len()]
}

impl State {
    /// The index entry of game `number`; an empty one for a game whose entry is missing.
    fn entry(&self, number: u32) -> IndexEntry {
        if number < self.present {
            entry_at(&self.header, &self.index, number)
        } else {
            IndexEntry::default()
        }
    }

    /// Whether game `number`'s entry, which the index holds, carries the deleted mark.
    fn marked_deleted(&self, number: u32) -> bool {
        flags_at(&self.header, &self.index, number) & FLAG_DELETED != 0
    }

    /// Name `id` of `kind` as the index refers to it, or [`UNKNOWN_NAME`] when the name file
    /// lacks it (or game `number` has no entry).
    fn known_name(&self, number: u32, kind: NameKind, id: u32) -> u32 {
        if number < self.present && self.names.is_known(kind, id) {
            id
        } else {
            UNKNOWN_NAME
        }
    }

    fn count_frequencies(&self) -> [Vec<u32>; 4] {
        let mut freqs = NameKind::ALL.map(|k| vec![0u32; self.names.count(k) as usize]);
        for n in 0..self.header.num_games {
            for (_, kind, id) in name_fields(&self.entry(n)) {
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
        if section.raw.len() as u64 >= self.header.layout.max_names(kind) {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "the database holds the most {kind:?} names {} allows",
                    self.header.layout.format_name()
                ),
            ));
        }
        let id = section.push(name.as_bytes());
        if let Some(log) = &mut self.name_log {
            v5::names::append_record(&mut log.pending, kind as u8, name.as_bytes());
        }
        self.frequencies()[kind as usize].push(0);
        Ok(id)
    }

    fn count_refs(&mut self, e: &IndexEntry, delta: i64) {
        let freqs = self.frequencies();
        for (_, kind, id) in name_fields(e) {
            if let Some(f) = freqs[kind as usize].get_mut(id as usize) {
                *f = (i64::from(*f) + delta).max(0) as u32;
            }
        }
    }
}

fn newest_mtime(files: &[PathBuf]) -> SystemTime {
    files
        .iter()
        .filter_map(|f| files::modified(f))
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
        let state = self.read();
        let e = state.entry(number);
        let name = |kind, id| state.known_name(number, kind, id);
        GameSummary {
            deleted: e.is_deleted(),
            white: name(NameKind::Player, e.white),
            black: name(NameKind::Player, e.black),
            event: name(NameKind::Event, e.event),
            site: name(NameKind::Site, e.site),
            round: name(NameKind::Round, e.round),
            date: e.game_date(),
            result: e.game_result(),
            eco: e.eco,
        }
    }

    fn ratings(&self, number: u32) -> [u16; 2] {
        let e = self.read().entry(number);
        [e.white_elo, e.black_elo]
    }

    fn plies(&self, number: u32) -> u16 {
        self.read().entry(number).plies
    }

    fn ratings_in_index(&self) -> bool {
        true
    }

    fn plies_in_index(&self) -> bool {
        true
    }

    fn deleted(&self, number: u32) -> bool {
        let state = self.read();
        number < state.present && state.marked_deleted(number)
    }

    fn deleted_count(&self) -> u32 {
        let state = self.read();
        *state.deleted_count.get_or_init(|| {
            (0..state.present)
                .filter(|&n| state.marked_deleted(n))
                .count() as u32
        })
    }

    fn name(&self, kind: NameKind, id: u32) -> Arc<str> {
        self.read().names.shared_text(kind, id)
    }

    fn problems(&self) -> Vec<Problem> {
        self.read().damage.problems().to_vec()
    }

    fn load(&self, number: u32) -> Result<ChessGame> {
        let (entry, bytes) = self.stored_game(number)?;
        let record = record::decode_as(&bytes, entry.chess960).map_err(|e| in_game(e, number))?;
        Ok(ChessGame {
            headers: self.headers(&entry, record.extra_tags),
            start: record.start,
            moves: record.moves,
        })
    }

    fn annotator(&self, number: u32) -> Option<String> {
        // The record's tags alone: its moves are not decoded.
        let (entry, bytes) = self.stored_game(number).ok()?;
        let head = record::read_head_as(&bytes, entry.chess960).ok()?;
        head.extra_tags
            .into_iter()
            .find_map(|(name, value)| (name == "Annotator").then_some(value))
    }

    fn visit(&self, number: u32, visitor: &mut dyn GameVisitor) -> Result<()> {
        let (entry, bytes) = self.stored_game(number)?;
        let head = record::read_head_as(&bytes, entry.chess960).map_err(|e| in_game(e, number))?;
        visitor.begin(&self.headers(&entry, head.extra_tags), &head.start)?;
        head.moves.visit(visitor).map_err(|e| in_game(e, number))
    }

    fn format(&self) -> crate::store::Format {
        match self.read().header.layout {
            Layout::V5 => crate::store::Format::Scid5,
            _ => crate::store::Format::Scid,
        }
    }

    fn fingerprint(&self, number: u32) -> Option<u64> {
        // The record holds the extra tags; the index fields and names make the others, and
        // the index's Chess960 bit says how the record's start is read.
        let (entry, mut bytes) = self.stored_game(number).ok()?;
        bytes.push(u8::from(entry.chess960));
        Some(crate::store::fingerprint_of(
            &self.headers(&entry, Vec::new()),
            &bytes,
        ))
    }

    fn writable(&self) -> bool {
        self.writable
    }

    fn replace(&self, number: u32, game: &ChessGame) -> Result<bool> {
        self.index_file()?;
        let mut state = self.write();
        self.catch_up(&mut state)?;
        check_game_number(number, state.header.num_games)?;
        let undo = Self::undo_point(&state);
        // Until the index entry is written nothing refers to what this save adds: a failure
        // (a refused game, a full disk) is undone completely.
        let staged =
            (|| -> Result<Option<(IndexEntry, Option<written::Version>, written::Version)>> {
                let old = state.entry(number);
                let old_record = self.read_record(number, &old, state.games_len);
                let before = old_record
                    .as_ref()
                    .ok()
                    .map(|r| written::Version::of(&old, &state.names, r));
                let (record, mut entry) = self.prepare(&mut state, game, old.flags)?;
                entry.offset = old.offset;
                let unchanged = IndexEntry {
                    flags: old.flags & !FLAG_DELETED,
                    ..old
                };
                if entry == unchanged && old_record? == record {
                    return Ok(None);
                }
                entry.offset = self.append_record(&mut state, &record)?;
                let ours = written::Version::of(&entry, &state.names, &record);
                writer::sync(self.game_file().file(), &self.paths[2])?;
                // An edit that keeps the game's names (moves, comments, dates, results) leaves
                // every name's count, and so the name file, as it was: rewriting it (2 MiB at ten
                // million games) and counting every entry's names after a mount were most of
                // such a save's time.
                if name_fields(&old) != name_fields(&entry) {
                    state.count_refs(&old, -1);
                    state.count_refs(&entry, 1);
                    self.write_names(&mut state)?;
                }
                Ok(Some((entry, before, ours)))
            })();
        let (entry, before, ours) = match staged {
            Ok(Some(staged)) => staged,
            Ok(None) => return Ok(false),
            Err(e) => {
                self.undo(&mut state, &undo);
                self.restamp(&mut state);
                return Err(e);
            }
        };
        let written = self
            .write_entry(&mut state, number, &entry)
            .inspect_err(|_| state.freqs = None);
        self.restamp(&mut state);
        written?;
        // An old record that cannot be read gives no version to put back: not watched.
        if let Some(before) = before {
            self.written().wrote(number, Some(before), ours);
        }
        Ok(true)
    }

    fn append_each(
        &self,
        games: &mut dyn Iterator<Item = Result<ChessGame>>,
        mut each: Option<Each<'_>>,
    ) -> Result<Vec<u32>> {
        self.index_file()?;
        let mut state = self.write();
        self.catch_up(&mut state)?;
        // Taken after the catch-up, which may have opened a replaced index file again.
        let index_file = &*self.index_file()?;
        let first = state.header.num_games;
        let layout = state.header.layout;
        // After the counted entries (bytes beyond them are leftovers, overwritten).
        let at = (layout.header_len() + layout.entry_len() * first as usize) as u64;
        let undo = Self::undo_point(&state);
        let mut appended = Vec::new();
        // Records, the index space they need, then names: until the header count changes
        // nothing refers to them, and a failure (a refused game, a full disk) is undone.
        let staged = (|| -> Result<writer::Chunks> {
            // The new entries, encoded at once (a million games' entries as structs would take
            // half again the memory).
            let mut bytes = writer::Chunks::default();
            let mut records = writer::RecordBuffer::new(state.games_len, layout.max_game_file());
            appended.clear();
            for (i, game) in games.enumerate() {
                let context = |e: Error| e.context(format_args!("game {} of the text", i + 1));
                let added = (bytes.len() / layout.entry_len()) as u64;
                if u64::from(first) + added >= u64::from(layout.max_games()) {
                    return Err(Error::new(
                        ErrorKind::TooLarge,
                        format!(
                            "{} holds at most {} games",
                            layout.format_name(),
                            layout.max_games()
                        ),
                    ));
                }
                let fitting = each.as_ref().is_some_and(|e| e.fit);
                let game = match (game, each.as_mut()) {
                    (Ok(mut game), Some(each)) if fitting => {
                        let changes = match layout {
                            Layout::V5 => fit::like_scid5_import(&mut game),
                            _ => fit::like_sc_import(&mut game),
                        };
                        if !changes.is_empty() {
                            (each.changed)(changes);
                        }
                        Ok(game)
                    }
                    (game, _) => game,
                };
                let encode = match (layout, fitting) {
                    (Layout::V5, _) => derive::encode_and_derive_scid5,
                    (_, true) => derive::encode_and_derive_as_import,
                    (_, false) => derive::encode_and_derive,
                };
                // A game the format cannot hold is refused before it takes any name.
                let encoded = game.and_then(|g| Ok((encode(&g)?, g)));
                let ((record, derived), game) = match (encoded, each.as_mut()) {
                    (Ok(encoded), _) => encoded,
                    (Err(e), Some(each)) => {
                        // The caller knows which game of its text this was.
                        (each.refused)(e);
                        continue;
                    }
                    (Err(e), None) => return Err(context(e)),
                };
                let mut entry = self
                    .entry_for(&mut state, &game, record.len(), &derived, 0)
                    .map_err(context)?;
                entry.offset = records.append(self.game_file().file(), &self.paths[2], &record)?;
                state.games_len = records.file_len();
                if appended.len() < written::MAX_WATCHED {
                    appended.push(written::Version::of(&entry, &state.names, &record));
                }
                // Counted now: an undo forgets the counts (they are recounted from the index).
                state.count_refs(&entry, 1);
                bytes.extend_from_slice(&encode_entry(layout, &entry));
            }
            if bytes.is_empty() {
                return Ok(bytes);
            }
            records.flush(self.game_file().file(), &self.paths[2])?;
            writer::sync(self.game_file().file(), &self.paths[2])?;
            writer::reserve(index_file, &self.paths[0], at, bytes.len() as u64)?;
            self.write_names(&mut state)?;
            Ok(bytes)
        })();
        let bytes = match staged {
            Ok(bytes) if bytes.is_empty() => return Ok(Vec::new()),
            Ok(bytes) => bytes,
            Err(e) => {
                self.undo(&mut state, &undo);
                self.restamp(&mut state);
                return Err(e);
            }
        };
        let count = first + (bytes.len() / layout.entry_len()) as u32;
        // SCID 4's header counts the games; SCID 5's index is its entries.
        let write_count = |n: u32| match layout {
            Layout::V5 => Ok(()),
            _ => writer::write_synced(index_file, &self.paths[0], 14, &n.to_be_bytes()[1..]),
        };
        let committed = write_count(count)
            .and_then(|()| bytes.write_at(index_file, &self.paths[0], at))
            .and_then(|()| writer::sync(index_file, &self.paths[0]));
        if let Err(e) = committed {
            // Put the count back and drop the partial entries: the new names stay (unused,
            // which SCID accepts); the records go if the index no longer reaches them.
            state.freqs = None;
            let restored = write_count(first);
            writer::cut_back(index_file, &self.paths[0], at);
            if restored.is_ok() {
                writer::cut_back(self.game_file().file(), &self.paths[2], undo.games_len);
                state.games_len = undo.games_len;
            }
            self.restamp(&mut state);
            return Err(e);
        }
        if layout != Layout::V5 {
            state.index[14..17].copy_from_slice(&count.to_be_bytes()[1..]);
        }
        state.index.truncate(at as usize);
        bytes.move_into(&mut state.index);
        state.header.num_games = count;
        state.present = count;
        state.modified = SystemTime::now();
        self.restamp(&mut state);
        let mut watched = self.written();
        for (number, version) in (first..).zip(appended) {
            watched.wrote(number, None, version);
        }
        Ok((first..count).collect())
    }

    fn reload_if_changed(&self) -> Result<bool> {
        ScidDatabase::reload_if_changed(self)
    }

    fn set_deleted(&self, number: u32, deleted: bool) -> Result<()> {
        self.index_file()?;
        let mut state = self.write();
        self.catch_up(&mut state)?;
        check_game_number(number, state.header.num_games)?;
        let mut entry = state.entry(number);
        if entry.is_deleted() == deleted {
            return Ok(());
        }
        entry.flags ^= FLAG_DELETED;
        let written = self.write_entry(&mut state, number, &entry);
        self.restamp(&mut state);
        written?;
        self.written().marked(number, &entry);
        Ok(())
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
    fn the_flags_read_alone_are_the_decoded_entrys_in_every_layout() {
        let mut rng = crate::testing::Rng(39);
        for layout in [Layout::V400, Layout::V300, Layout::V5] {
            let header = IndexHeader {
                version: 400,
                layout,
                base_type: 0,
                num_games: 64,
                auto_load: 0,
                description: Vec::new(),
            };
            let len = layout.header_len() + layout.entry_len() * 64;
            let index: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let mut marked = 0;
            for n in 0..64 {
                let flags = flags_at(&header, &index, n);
                assert_eq!(flags, entry_at(&header, &index, n).flags, "{layout:?} {n}");
                marked += usize::from(flags & FLAG_DELETED != 0);
            }
            assert!(
                (10..54).contains(&marked),
                "{layout:?}: {marked} of 64 marked"
            );
        }
    }

    /// The count of deleted games `.gamefs/stats` tells follows a deletion, a restore, a
    /// save and another program's change, though it is counted once and kept.
    #[test]
    fn the_deleted_count_follows_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let counted = |db: &ScidDatabase| {
            let scanned = (0..db.game_count()).filter(|&n| db.deleted(n)).count() as u32;
            assert_eq!(db.deleted_count(), scanned);
            scanned
        };
        let reader = ScidDatabase::open(&base, false).unwrap();
        assert_eq!(counted(&reader), 0);
        let after_save = {
            let db = ScidDatabase::open(&base, true).unwrap();
            assert_eq!(counted(&db), 0);
            db.set_deleted(0, true).unwrap();
            db.set_deleted(2, true).unwrap();
            assert_eq!(counted(&db), 2);
            db.set_deleted(0, false).unwrap();
            assert_eq!(counted(&db), 1);
            let mut game = db.load(2).unwrap();
            game.headers.round = "7".into();
            assert!(db.replace(2, &game).unwrap());
            let after_save = counted(&db);
            db.set_deleted(1, true).unwrap();
            assert_eq!(counted(&db), after_save + 1);
            after_save
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(reader.reload_if_changed().unwrap());
        assert_eq!(
            counted(&reader),
            after_save + 1,
            "another program's deletion"
        );
    }

    /// A read-only database compacted by another program (SCID writes new files and renames
    /// them over the old ones) reads its games from the new game file once it notices.
    #[test]
    fn a_database_compacted_under_a_reader_is_read_from_its_new_files() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        {
            let db = ScidDatabase::open(&base, true).unwrap();
            db.set_deleted(0, true).unwrap();
        }
        let reader = ScidDatabase::open(&base, false).unwrap();
        let before: Vec<ChessGame> = (1..reader.game_count())
            .map(|n| reader.load(n).unwrap())
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(20));
        crate::store::compact(&base).unwrap();
        assert!(reader.reload_if_changed().unwrap(), "the change is noticed");
        let after: Vec<ChessGame> = (0..reader.game_count())
            .map(|n| reader.load(n).unwrap())
            .collect();
        assert_eq!(
            after, before,
            "every game not deleted, read from the new game file"
        );
    }

    /// Another program writing from a stale picture over a save, seen half-way (SCID 4 has
    /// truncated its name file to write it again): the save is judged only once the name
    /// file reads whole, and then put back as before it.
    #[test]
    fn a_save_is_not_judged_by_a_name_file_read_half_written() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let sn4 = with_ext(&base, "sn4");
        let db = ScidDatabase::open(&base, true).unwrap();
        let before = db.load(2).unwrap();
        let mut game = before.clone();
        game.headers.white = "Someone, New".to_owned();
        assert!(db.replace(2, &game).unwrap());
        let names = std::fs::read(&sn4).unwrap();
        // The other program appends its record over the save's, and truncates the name file.
        let saved = db.entry(2);
        let games = std::fs::OpenOptions::new()
            .write(true)
            .open(with_ext(&base, "sg4"))
            .unwrap();
        games
            .write_all_at(&vec![0xEE; saved.length as usize], saved.offset)
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&sn4, b"").unwrap();
        assert!(
            db.reload_if_changed().is_err(),
            "the name file is damaged now"
        );
        assert_eq!(db.entry(2), saved, "nothing is mended from it");
        // It writes the name file again (as it was: its picture has the same names).
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&sn4, &names).unwrap();
        assert!(db.reload_if_changed().unwrap());
        assert_eq!(db.load(2).unwrap(), before, "the save is put back");
    }

    /// A save that keeps the game's names leaves the name file alone, as it is still exact
    /// (the names' counts are unchanged); one that changes a name replaces the file with the
    /// new name and counts, as SCID would write it.
    #[test]
    fn only_a_save_that_changes_names_rewrites_the_name_file() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let sn4 = with_ext(&base, "sn4");
        let inode = || std::fs::metadata(&sn4).unwrap().ino();
        let db = ScidDatabase::open(&base, true).unwrap();
        let (first_inode, first_bytes) = (inode(), std::fs::read(&sn4).unwrap());
        let mut game = db.load(2).unwrap();
        game.headers
            .extra
            .push(("Annotator".to_owned(), "Someone Else".to_owned()));
        assert!(db.replace(2, &game).unwrap(), "the new tag is saved");
        assert_eq!(inode(), first_inode, "the name file is left alone");
        assert_eq!(std::fs::read(&sn4).unwrap(), first_bytes);
        assert_eq!(first_bytes, db.serialized_names(), "and is still exact");
        game.headers.white = "Someone, New".to_owned();
        assert!(db.replace(2, &game).unwrap(), "the new name is saved");
        assert_ne!(inode(), first_inode, "the name file is replaced");
        let written = std::fs::read(&sn4).unwrap();
        assert_ne!(written, first_bytes);
        assert_eq!(written, db.serialized_names(), "with the new counts");
    }

    #[test]
    fn read_index_counts_the_entries_present() {
        let (h, present) = read_index(&index(2, 2), &"x.si4").unwrap();
        assert_eq!((h.num_games, present), (2, 2));
        // Fewer entries than counted (an interrupted save): the entries present are read.
        let bytes = index(3, 1);
        let (h, present) = read_index(&bytes, &"x.si4").unwrap();
        assert_eq!((h.num_games, present), (3, 1));
        assert_eq!(index_entry(&bytes, &h, 0), IndexEntry::decode(&[0; 47]));
        // More entries than counted, or a partial entry: only the counted whole ones.
        assert_eq!(read_index(&index(1, 2), &"x.si4").unwrap().1, 1);
        assert_eq!(read_index(&index(1, 1)[..200], &"x.si4").unwrap().1, 0);
        // A header cut short is no index at all.
        let e = read_index(&index(0, 0)[..100], &"x.si4").unwrap_err();
        assert!(e.to_string().starts_with("x.si4: "), "{e}");
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

    /// A copy of the database at `base` in `dir`, changed by `change` through a writable open
    /// of its own: what another program writes (its files, to lay over the original).
    fn changed_copy(base: &Path, dir: &Path, change: impl FnOnce(&ScidDatabase)) -> PathBuf {
        let copy = dir.join("other");
        for ext in EXTENSIONS {
            std::fs::copy(with_ext(base, ext), with_ext(&copy, ext)).unwrap();
        }
        change(&ScidDatabase::open(&copy, true).unwrap());
        copy
    }

    fn game_named(event: &str) -> ChessGame {
        let text = format!(
            "[Event \"{event}\"]\n[White \"Other, Writer\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n"
        );
        crate::text::pgn_parse::one_game(text.as_bytes()).unwrap()
    }

    /// Another program appends a game (its record at the end of the game file, its names in
    /// the name file) while the database is open for writing here: the next change takes it
    /// in first and lands on top, so both are kept (docs/SEMANTICS.md §10a). The old store
    /// appended at its own idea of the end, over the other record, and wrote its stale names.
    #[test]
    fn a_change_takes_in_another_programs_append_first() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let db = ScidDatabase::open(&base, true).unwrap();
        let count = db.game_count();
        let other = changed_copy(&base, dir.path(), |o| {
            o.append(&mut std::iter::once(Ok(game_named("Other program"))))
                .unwrap();
        });
        // The other program writes the same files in place.
        for ext in EXTENSIONS {
            std::fs::write(
                with_ext(&base, ext),
                std::fs::read(with_ext(&other, ext)).unwrap(),
            )
            .unwrap();
        }
        let mut ours = db.load(3).unwrap();
        ours.headers.event = "Ours".into();
        ours.headers.white = "New, Name".into();
        assert!(db.replace(3, &ours).unwrap());
        assert!(db.reload_if_changed().unwrap(), "the tree is told");
        assert!(!db.reload_if_changed().unwrap(), "once");
        drop(db);
        let fresh = ScidDatabase::open(&base, false).unwrap();
        assert_eq!(fresh.game_count(), count + 1);
        assert_eq!(fresh.load(count).unwrap().headers.event, "Other program");
        assert_eq!(fresh.load(count).unwrap().headers.white, "Other, Writer");
        assert_eq!(fresh.load(3).unwrap().headers.white, "New, Name");
        assert!(fresh.problems().is_empty(), "{:?}", fresh.problems());
    }

    /// Another program replaces the files by renaming new ones over them (SCID's compaction):
    /// the writable open takes the new index file, locks it and writes there.
    #[test]
    fn files_replaced_under_a_writable_open_are_opened_and_locked_again() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let db = ScidDatabase::open(&base, true).unwrap();
        let count = db.game_count();
        let other = changed_copy(&base, dir.path(), |o| o.set_deleted(0, true).unwrap());
        for ext in EXTENSIONS {
            std::fs::rename(with_ext(&other, ext), with_ext(&base, ext)).unwrap();
        }
        db.set_deleted(1, true).unwrap();
        let added = db
            .append(&mut std::iter::once(Ok(game_named("After the rename"))))
            .unwrap();
        assert_eq!(added, vec![count]);
        assert!(
            ScidDatabase::open(&base, true).is_err(),
            "the new index file is locked"
        );
        drop(db);
        let fresh = ScidDatabase::open(&base, false).unwrap();
        assert!(fresh.deleted(0) && fresh.deleted(1));
        assert_eq!(fresh.load(count).unwrap().headers.event, "After the rename");
    }
}
