//! Simple Chess Database (.dci index, .dcn players, .dcs sites, .dce events, .dcg games); the
//! byte layout, as the reference tools really write it, is in docs/formats/simplecdb.md.
//!
//! [`SimpleCdb`] reads the index and the three name files once, decodes a game record only
//! when that game is loaded, and saves with the format's own append design: a new game
//! appends its record to .dcg and its entry to .dci; a replaced game appends its record and
//! overwrites only the bytes of its entry that change (just the 8-byte offset when only the
//! moves changed), so game numbers stay stable; rm sets status 0xFF. Names reuse an existing
//! identical record before a new one is appended. One batch of new games writes its new
//! names sorted and deduplicated, exactly as the reference writer pgn2dcg does in one run, so
//! importing a PGN into an empty database gives pgn2dcg's bytes.
//!
//! The format's own tools take no lock, so another program may write the files while they are
//! open, writable or not (docs/SEMANTICS.md §10a): every change first compares the files'
//! stamps (length, time, inode) with those of the last read or write of its own and, when they
//! differ, re-reads them (reopening a file replaced by a rename) and applies itself on top, at
//! the files' real ends; [`SimpleCdb::reload_if_changed`] notices the same for the tree.
//!
//! What the format cannot hold (see [`fit`] and [`codec`]) is refused with a message naming
//! the field, unless the database was opened lossy ([`crate::store::OpenOptions::lossy`]):
//! then it is stored as the reference writer stores it and each loss is logged.
//!
//! A damaged database opens when its index header can be read (see [`SimpleCdb::open`]):
//! a name reference that hits no name record reads as `?` (the reference tools show it empty),
//! a record outside the game file, running past its end, or shared by two entries makes those
//! games unreadable; a record a length prefix delimits is the one the file holds, so an entry
//! pointing into another game's record reads bytes that do not decode.

pub mod codec;
pub(crate) mod compact;
pub mod entry;
pub mod fit;
pub(crate) mod names;

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::SystemTime;

use entry::{ENTRY_LEN, IndexEntry, MAGIC, STATUS_DELETED, entry_at};
use fit::{Fitted, Loss};
use names::{NameFile, RECORD_LEN, qt_order, record};

use crate::error::{Error, ErrorKind, Result};
use crate::game::visit::GameVisitor;
use crate::game::{ChessGame, Headers};
use crate::store::Each;
use crate::store::blob::Blob;
use crate::store::damage::{Damage, Extent, Problem, overlaps};
use crate::store::files::{FileStamp, inode_of, open_blob, open_file, read_file};
use crate::store::scid::writer;
use crate::store::{
    ChessStore, GameSummary, NameKind, StoreInfo, check_game_number, check_readable_game, in_game,
};

/// What a failed save undoes (three name files).
type Undo = writer::Undo<3>;

pub use compact::{compact, create};

/// The five file extensions, in the order index, players, sites, events, games.
pub const EXTENSIONS: [&str; 5] = ["dci", "dcn", "dcs", "dce", "dcg"];
const DCI: usize = 0;
const DCG: usize = 4;

/// The base path of a database given as its base or any of its five files.
pub fn base_path(path: &Path) -> PathBuf {
    crate::store::files::base_path(path, &EXTENSIONS)
}

pub use crate::store::files::with_ext;

/// True when `path` (base or one of the five files) is a Simple Chess Database: its .dci
/// starts with the `SimpleCDbi` magic.
pub fn looks_like(path: &Path) -> bool {
    let dci = with_ext(&base_path(path), "dci");
    let mut magic = [0u8; 10];
    Blob::open(&dci).is_ok_and(|f| f.read_exact_at(&mut magic, 0).is_ok() && &magic == MAGIC[0])
}

/// Which name file (0 players, 1 sites, 2 events) a kind lives in; rounds are numbers.
fn name_file(kind: NameKind) -> Option<usize> {
    match kind {
        NameKind::Player => Some(0),
        NameKind::Site => Some(1),
        NameKind::Event => Some(2),
        NameKind::Round => None,
    }
}

/// The name file of each of [`Fitted::names`] (White, Black, Site, Event).
const NAME_FILE_OF: [usize; 4] = [0, 0, 1, 2];

/// An open Simple Chess Database.
///
/// Another program may write the files while they are open, writable or not (the format's
/// own tools take no lock): every change first catches up with what it wrote, and
/// [`SimpleCdb::reload_if_changed`] notices it (docs/SEMANTICS.md §10a).
pub struct SimpleCdb {
    paths: [PathBuf; 5],
    lossy: bool,
    writable: bool,
    state: RwLock<State>,
    /// The game file (read, and appended to when writable); reopened when another program
    /// replaces the file.
    games: RwLock<Arc<Blob>>,
    /// Index and name files open for writing (the index locked) when writable; each reopened
    /// (and the index locked again) when another program replaces it, so that a save never
    /// writes into a file that is no longer the database's. Only changed under the state's
    /// write lock.
    writers: RwLock<Option<Writers>>,
    /// A change caught up with another program's writes since [`SimpleCdb::reload_if_changed`]
    /// last answered: its next answer is true, so the tree above refreshes its views.
    caught_up: AtomicBool,
}

/// The index and the three name files, open for writing.
type Writers = [Arc<File>; 4];

/// What changes when games are saved.
struct State {
    /// The index header and its whole entries.
    index: Vec<u8>,
    count: u32,
    names: [NameFile; 3],
    games_len: u64,
    modified: SystemTime,
    stamp: Stamp,
    /// What is wrong with the database, found when it was read.
    damage: Damage,
}

/// The five files' stamps: what tells that another program wrote them (docs/SEMANTICS.md
/// §10a).
type Stamp = [FileStamp; 5];

fn stamp(paths: &[PathBuf; 5]) -> Stamp {
    FileStamp::of_all(paths)
}

fn newest_mtime(stamp: &Stamp) -> SystemTime {
    stamp
        .iter()
        .filter_map(|s| s.modified)
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Forget the stamp of each file whose open handle is not the file at its path now (another
/// program replaced it between the stamp and the open): the next look re-reads and reopens.
fn check_handles(stamp: &mut Stamp, writers: Option<&Writers>, games: &Blob) {
    if let Some(writers) = writers {
        for (i, f) in writers.iter().enumerate() {
            if inode_of(f) != Some(stamp[i].inode) {
                stamp[i] = FileStamp::UNKNOWN;
            }
        }
    }
    if let Some(f) = games.local_file()
        && inode_of(f) != Some(stamp[DCG].inode)
    {
        stamp[DCG] = FileStamp::UNKNOWN;
    }
}

/// Give each empty file of a writable database its magic: pgn2dcg leaves empty files behind
/// when it aborts, and appends need the magic first.
fn repair_empty(paths: &[PathBuf; 5], writers: &Writers, games: &Blob) -> Result<()> {
    for (i, f) in writers.iter().enumerate().skip(1) {
        if f.metadata().is_ok_and(|m| m.len() == 0) {
            writer::write_synced(f, &paths[i], 0, MAGIC[i])?;
        }
    }
    if games.len()? == 0 {
        writer::write_synced(writable_file(games), &paths[DCG], 0, MAGIC[DCG])?;
    }
    Ok(())
}

/// Read the index and names (and the game file's size) into a fresh state, finding what is
/// wrong: the index or a name file cut inside a record, name references that hit no name
/// record, records outside the game file, or shared by two entries. Cut files are what an
/// interrupted append leaves and the next append overwrites: a `writable` open only logs
/// them; anything else makes it fail (read-only error).
fn read_state(paths: &[PathBuf; 5], games: &Blob, writable: bool) -> Result<State> {
    let now = stamp(paths);
    let mut damage = Damage::default();
    let mut cut = |message: String| {
        if writable {
            log::warn!("{message}");
        } else {
            damage.database(message);
        }
    };
    let mut index = read_file(&paths[DCI])?;
    let (whole, tail) =
        entry::count_entries(&index).map_err(|e| e.context(paths[DCI].display()))?;
    if tail != 0 {
        cut(format!(
            "{}: {tail} bytes after the last whole entry are ignored (an interrupted write, or a \
             cut index)",
            paths[DCI].display()
        ));
        index.truncate(entry_at(whole));
    }
    let mut names: [NameFile; 3] = Default::default();
    for (i, slot) in names.iter_mut().enumerate() {
        let path = &paths[i + 1];
        let (file, notes) = NameFile::parse(&read_file(path)?, MAGIC[i + 1]).map_err(|m| {
            Error::new(ErrorKind::UnknownFormat, format!("{}: {m}", path.display()))
        })?;
        for note in notes.tolerated {
            log::info!("{}: {note}", path.display());
        }
        if let Some(m) = notes.damage {
            cut(format!("{}: {m}", path.display()));
        }
        *slot = file;
    }
    let games_len = games.len()?;
    let mut state = State {
        index,
        count: whole,
        names,
        games_len,
        modified: newest_mtime(&now),
        stamp: now,
        damage,
    };
    state.scan_names(paths);
    state.scan_records(&paths[DCG], games);
    state.damage.sort();
    if writable {
        state.damage.refuse_writing(&paths[DCI], "game")?;
    }
    Ok(state)
}

impl State {
    fn entry(&self, number: u32) -> IndexEntry {
        let at = entry_at(number);
        IndexEntry::decode(
            self.index[at..at + ENTRY_LEN]
                .try_into()
                .expect("entry within the index"),
        )
    }

    /// Report each name reference that hits no name record (read as `?`).
    fn scan_names(&mut self, paths: &[PathBuf; 5]) {
        for n in 0..self.count {
            let e = self.entry(n);
            for (field, file, r) in [
                ("White", 0, e.white),
                ("Black", 0, e.black),
                ("Site", 1, e.site),
                ("Event", 2, e.event),
            ] {
                if !self.names[file].is_valid_ref(r) {
                    self.damage.item(
                        n,
                        format!(
                            "{field} refers to byte {r} of {}, where no name record starts ({} \
                             records); shown as ?",
                            paths[file + 1].display(),
                            self.names[file].count()
                        ),
                    );
                }
            }
        }
    }

    /// Report the records that lie outside the game file (at `dcg`), that run past its end
    /// (only the last record can: one read), or that two entries share: unreadable.
    fn scan_records(&mut self, dcg: &Path, games: &Blob) {
        let len = self.games_len;
        let mut last: Option<(u64, u32)> = None;
        for n in 0..self.count {
            let offset = self.entry(n).offset;
            if offset < 10 || offset >= len {
                self.damage.unreadable(
                    n,
                    format!(
                        "its record offset {offset} lies outside the games of {} ({len} bytes): the \
                         game file is shorter than the index says, or the entry is wrong",
                        dcg.display()
                    ),
                );
            } else if last.is_none_or(|(o, _)| offset > o) {
                last = Some((offset, n));
            }
        }
        if let Some((offset, n)) = last {
            let mut head = vec![0u8; (len - offset).min(5) as usize];
            let extent = games
                .read_exact_at(&mut head, offset)
                .ok()
                .and_then(|()| codec::record_extent(&head).ok());
            if let Some((hl, body)) = extent
                && offset + (hl + body) as u64 > len
            {
                self.damage.unreadable(
                    n,
                    format!(
                        "its record (offset {offset}, {} bytes) runs past the end of {} ({len} \
                         bytes): the game file is shorter than the index says",
                        hl + body,
                        dcg.display()
                    ),
                );
            }
        }
        let inside = |n: u32| {
            let start = self.entry(n).offset;
            (10..len).contains(&start).then(|| Extent {
                item: n,
                start,
                end: start + 1,
            })
        };
        for (a, b) in overlaps(|| (0..self.count).filter_map(inside)) {
            self.damage.unreadable(
                a,
                format!(
                    "its record (offset {}) is also game {}'s: one of the two index entries is \
                     wrong, and which cannot be told",
                    self.entry(a).offset,
                    b + 1
                ),
            );
        }
    }

    /// The entry's fields and names as headers.
    fn headers(&self, e: &IndexEntry) -> Headers {
        let names = [
            self.names[0].text(e.white),
            self.names[0].text(e.black),
            self.names[1].text(e.site),
            self.names[2].text(e.event),
        ]
        .map(|t| t.to_string());
        fit::read_headers(&fitted_of(e), names)
    }
}

/// The entry's fields other than names and offset (what [`fit::read_headers`] reads as
/// headers).
pub fn fitted_of(e: &IndexEntry) -> Fitted {
    Fitted {
        names: Default::default(),
        round: e.round,
        elo: [e.white_elo, e.black_elo],
        result: e.result,
        eco: e.eco,
        date: (e.year, e.month, e.day),
    }
}

/// A game ready to be written: its record, its entry fields and the headers it will read as.
struct Prepared {
    record: Vec<u8>,
    fitted: Fitted,
    stored: Headers,
    /// What a lossy save dropped or changed, one phrase each.
    losses: Vec<String>,
}

/// The refusal of a save that would lose `losses`.
fn refusal(losses: &[Loss]) -> Error {
    let fields: Vec<&str> = losses.iter().map(|l| l.field.as_str()).collect();
    let messages: Vec<&str> = losses.iter().map(|l| l.message.as_str()).collect();
    Error::new(
        losses[0].kind,
        format!(
            "a Simple Chess Database cannot store {} of this game: {}; nothing was saved \
             (mount with -o lossy, or import with --lossy, to store it as close as the format allows)",
            fields.join(", "),
            messages.join("; ")
        ),
    )
}

impl SimpleCdb {
    /// Open the database at `path` (its base path or any of its five files), reading the
    /// index and the names. With `writable`, also take the one-writer lock (on the .dci).
    /// With `lossy`, saves store what the format can hold and log the rest instead of being
    /// refused. Fails with a clear message when a file is missing, is not this format, or the
    /// index version is not 0x00. Damage beyond that does not stop a read-only open: it is
    /// listed by [`ChessStore::problems`] and the damaged games fail to load; a writable open
    /// of a damaged database fails (read-only error), except for what an interrupted append
    /// leaves (a partial entry or name record), which the next append overwrites.
    pub fn open(path: &Path, writable: bool, lossy: bool) -> Result<SimpleCdb> {
        let base = base_path(path);
        let paths = EXTENSIONS.map(|ext| with_ext(&base, ext));
        let writers = if writable {
            let files: Writers = [
                Arc::new(open_file(&paths[0], true)?),
                Arc::new(open_file(&paths[1], true)?),
                Arc::new(open_file(&paths[2], true)?),
                Arc::new(open_file(&paths[3], true)?),
            ];
            writer::lock(&files[DCI], &paths[DCI])?;
            Some(files)
        } else {
            None
        };
        let games = open_blob(&paths[DCG], writable)?;
        let mut head = [0u8; 10];
        let games_len = games.len()?;
        let head = &mut head[..games_len.min(10) as usize];
        if games.read_exact_at(head, 0).is_err() || !MAGIC[DCG].starts_with(head) {
            return Err(Error::new(
                ErrorKind::UnknownFormat,
                format!(
                    "{}: not a Simple Chess Database game file (no SimpleCDbg magic)",
                    paths[DCG].display()
                ),
            ));
        }
        if let Some(files) = &writers {
            repair_empty(&paths, files, &games)?;
        }
        let mut state = read_state(&paths, &games, writable)?;
        check_handles(&mut state.stamp, writers.as_ref(), &games);
        Ok(SimpleCdb {
            paths,
            lossy,
            writable,
            state: RwLock::new(state),
            games: RwLock::new(Arc::new(games)),
            writers: RwLock::new(writers),
            caught_up: AtomicBool::new(false),
        })
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The files open for writing (as reopened by the last catch-up), or the read-only error.
    fn writers(&self) -> Result<Writers> {
        self.writers
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| Error::new(ErrorKind::ReadOnly, "the database is open read-only"))
    }

    /// Apply change `f` to the database (docs/SEMANTICS.md §10a): under the write lock, first
    /// catch up with what another program wrote since this store last read or wrote the files
    /// (re-read them, reopening any file it replaced), so `f` works on the files as they are
    /// and appends at their real ends; then stamp the files as `f` left them.
    fn change<T>(&self, f: impl FnOnce(&mut State, &Writers) -> Result<T>) -> Result<T> {
        self.writers()?;
        let mut state = self.write();
        if stamp(&self.paths) != state.stamp {
            self.reread(&mut state)?;
            self.caught_up.store(true, Ordering::SeqCst);
        }
        let writers = self.writers()?;
        let before = state.stamp;
        let result = f(&mut state, &writers);
        self.restamp(&mut state, &before);
        result
    }

    /// After a change's own writes, take the files' stamps (so they are not taken for another
    /// program's writes), but only where a file is as long as this store's state says it must
    /// be and still the same file: otherwise another program wrote it at the same time, and
    /// the stamp is left unknown so that the next look re-reads it (docs/SEMANTICS.md §10a).
    fn restamp(&self, state: &mut State, before: &Stamp) {
        let now = stamp(&self.paths);
        if now == *before {
            return;
        }
        let ends = [
            state.index.len() as u64,
            state.names[0].end(),
            state.names[1].end(),
            state.names[2].end(),
            state.games_len,
        ];
        for i in 0..5 {
            // A file may hold more than the state (a cut record after its last whole one,
            // which the next append overwrites).
            let expected = ends[i].max(before[i].len);
            state.stamp[i] = if now[i] == before[i] {
                before[i]
            } else if now[i].len == expected && now[i].inode == before[i].inode {
                now[i]
            } else {
                FileStamp::UNKNOWN
            };
        }
    }

    /// Re-read the files into `state` as an open does (a writable store with a writable
    /// open's repair rules), first reopening each file that is no longer the one at its path
    /// (another program replaced it: a writable store never writes into a file that is not
    /// the database's, and the one-writer lock moves to the new index file). Nothing changes
    /// when it fails (a damaged file, the lock held by another gamefs).
    fn reread(&self, state: &mut State) -> Result<()> {
        let now = stamp(&self.paths);
        let current = self.game_file();
        let games = match current.local_file().and_then(inode_of) {
            Some(ino) if ino == now[DCG].inode => current,
            _ => Arc::new(open_blob(&self.paths[DCG], self.writable)?),
        };
        let writers = match self.writers() {
            Err(_) => None,
            Ok(old) => {
                let mut files = old.clone();
                for (i, f) in files.iter_mut().enumerate() {
                    if inode_of(f) != Some(now[i].inode) {
                        let new = open_file(&self.paths[i], true)?;
                        if i == DCI {
                            writer::lock(&new, &self.paths[DCI])?;
                        }
                        *f = Arc::new(new);
                    }
                }
                repair_empty(&self.paths, &files, &games)?;
                Some(files)
            }
        };
        let mut fresh = read_state(&self.paths, &games, self.writable)?;
        check_handles(&mut fresh.stamp, writers.as_ref(), &games);
        log::info!(
            "{} changed outside gamefs: {} games now",
            self.paths[DCI].display(),
            fresh.count
        );
        *state = fresh;
        *self.games.write().unwrap_or_else(|p| p.into_inner()) = games;
        *self.writers.write().unwrap_or_else(|p| p.into_inner()) = writers;
        Ok(())
    }

    /// True when saves store what they can and log losses instead of refusing.
    pub fn lossy(&self) -> bool {
        self.lossy
    }

    /// The index entry of game `number` (0-based, `< game_count()`).
    pub fn entry(&self, number: u32) -> IndexEntry {
        self.read().entry(number)
    }

    /// The stored bytes of the name record at `offset` of name file `file` (0 players,
    /// 1 sites, 2 events), or None for ref 0 or a ref that hits no record.
    pub fn name_record(&self, file: usize, offset: u32) -> Option<[u8; RECORD_LEN]> {
        let state = self.read();
        if offset == 0 || !state.names[file].is_valid_ref(offset) {
            return None;
        }
        let mut buf = [0u8; RECORD_LEN];
        Blob::open(&self.paths[file + 1])
            .ok()?
            .read_exact_at(&mut buf, u64::from(offset))
            .ok()?;
        Some(buf)
    }

    /// The whole stored record of game `number` (length bytes included).
    pub fn record_bytes(&self, number: u32) -> Result<Vec<u8>> {
        let (entry, games_len) = {
            let s = self.read();
            (s.entry(number), s.games_len)
        };
        let (len_bytes, body) = self.read_body(number, &entry, games_len)?;
        let mut all = len_bytes;
        all.extend(body);
        Ok(all)
    }

    /// Game `number`'s headers and record body, or why it cannot be read (no such game,
    /// damage found when the database was opened, an unreadable record).
    fn stored_game(&self, number: u32) -> Result<(Headers, Vec<u8>)> {
        let (entry, headers, games_len) = {
            let s = self.read();
            check_readable_game(&s.damage, number, s.count)?;
            let e = s.entry(number);
            (e, s.headers(&e), s.games_len)
        };
        let (_, body) = self.read_body(number, &entry, games_len)?;
        Ok((headers, body))
    }

    /// The length bytes and body of the record `entry` points at (game `number`, for
    /// messages). A record outside the file is a corrupt record, not a panic.
    fn read_body(
        &self,
        number: u32,
        entry: &IndexEntry,
        games_len: u64,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let what = || {
            format!(
                "game {}: the record at offset {} of {}",
                number + 1,
                entry.offset,
                self.paths[DCG].display()
            )
        };
        if entry.offset < 10 || entry.offset >= games_len {
            return Err(Error::corrupt_record(format!(
                "{} lies outside the file ({games_len} bytes)",
                what()
            )));
        }
        let mut head = vec![0u8; (games_len - entry.offset).min(5) as usize];
        self.game_file()
            .read_exact_at(&mut head, entry.offset)
            .map_err(|e| Error::io(what(), e))?;
        let (hl, len) = codec::record_extent(&head).map_err(|e| e.context(what()))?;
        let start = entry.offset + hl as u64;
        if start + len as u64 > games_len {
            return Err(Error::corrupt_record(format!(
                "{} says it is {len} bytes long, but the file ends {} bytes after it starts",
                what(),
                games_len - start
            )));
        }
        let mut body = vec![0u8; len];
        self.game_file()
            .read_exact_at(&mut body, start)
            .map_err(|e| Error::io(what(), e))?;
        head.truncate(hl);
        Ok((head, body))
    }

    /// Encode `game`, checking what the format can hold: refused (nothing written) unless
    /// lossy, where each loss is logged.
    fn prepare(
        &self,
        game: &ChessGame,
        what: &dyn std::fmt::Display,
        log_losses: bool,
    ) -> Result<Prepared> {
        let (fitted, mut losses) = fit::fit_headers(&game.headers);
        let (body, tree) = codec::encode_body(&game.start, &game.moves)?;
        losses.extend(tree.into_iter().map(|t| Loss {
            kind: ErrorKind::InvalidInput,
            field: "movetext".into(),
            message: format!("{} cannot be stored (dropped)", t.what),
        }));
        if !losses.is_empty() {
            if !self.lossy {
                return Err(refusal(&losses).context(what));
            }
            for l in losses.iter().filter(|_| log_losses) {
                log::warn!(
                    "{}: {what}: lossy save: {}",
                    self.paths[DCI].display(),
                    l.message
                );
            }
        }
        let record = codec::encode_record(&body)?;
        let stored = fit::stored_headers(&fitted);
        Ok(Prepared {
            record,
            fitted,
            stored,
            losses: losses.into_iter().map(|l| l.message).collect(),
        })
    }

    /// Write the names of `games` and return their references (White, Black, Site, Event).
    /// Per name file, the batch's distinct names are taken in Qt's order; each reuses an
    /// identical record that was in the file before, else it is appended (a name over 36
    /// bytes gets its cut record appended, as pgn2dcg does, and reference 0).
    /// Names marked in `keep` are left out (the caller keeps the old reference; they get 0).
    fn place_names(
        &self,
        state: &mut State,
        games: &[&Fitted],
        keep: &[[bool; 4]],
    ) -> Result<Vec<[u32; 4]>> {
        let writers = self.writers()?;
        let mut refs = vec![[0u32; 4]; games.len()];
        for file in 0..3 {
            let mut wanted: Vec<&str> = games
                .iter()
                .zip(keep)
                .flat_map(|(f, keep)| {
                    (0..4)
                        .filter(move |&i| NAME_FILE_OF[i] == file && !keep[i])
                        .map(move |i| f.names[i].as_str())
                })
                .collect();
            wanted.sort_by(|a, b| qt_order(a, b).then_with(|| a.cmp(b)));
            wanted.dedup();
            let names = &state.names[file];
            let mut new_records: Vec<[u8; RECORD_LEN]> = Vec::new();
            let mut offsets = std::collections::HashMap::new();
            for name in wanted {
                let rec = record(name);
                let offset = match names.find(&rec) {
                    Some(o) => o,
                    None => {
                        let o = names.end() + (new_records.len() * RECORD_LEN) as u64;
                        if o + RECORD_LEN as u64 > u64::from(u32::MAX) {
                            return Err(Error::new(
                                ErrorKind::TooLarge,
                                format!(
                                    "{} would grow past 4 GiB, the most a name reference reaches",
                                    self.paths[file + 1].display()
                                ),
                            ));
                        }
                        new_records.push(rec);
                        o as u32
                    }
                };
                offsets.insert(name, if fit::name_fits(name) { offset } else { 0 });
            }
            if !new_records.is_empty() {
                let bytes: Vec<u8> = new_records.concat();
                writer::write_synced(
                    &writers[file + 1],
                    &self.paths[file + 1],
                    names.end(),
                    &bytes,
                )?;
                for r in &new_records {
                    state.names[file].push(r);
                }
            }
            for (g, f) in games.iter().enumerate() {
                for i in (0..4).filter(|&i| NAME_FILE_OF[i] == file && !keep[g][i]) {
                    refs[g][i] = offsets[f.names[i].as_str()];
                }
            }
        }
        Ok(refs)
    }

    /// Append `record` at the end of the game file (not yet synced); returns its offset.
    fn append_record(&self, state: &mut State, record: &[u8]) -> Result<u64> {
        let offset = state.games_len;
        writable_file(&self.game_file())
            .write_all_at(record, offset)
            .map_err(|e| Error::io(format!("writing {}", self.paths[DCG].display()), e))?;
        state.games_len = offset + record.len() as u64;
        Ok(offset)
    }

    /// Re-read the files if another program changed them since this store last read or
    /// wrote them, writable or not (the format's own tools take no lock; docs/SEMANTICS.md
    /// §10a): a few `stat` calls when nothing changed. True when the state was re-read since
    /// the last call, here or by a change that caught up first.
    pub fn reload_if_changed(&self) -> Result<bool> {
        let mut reloaded = false;
        if stamp(&self.paths) != self.read().stamp {
            let mut state = self.write();
            // A change may have caught up in the meantime (and said so below).
            if stamp(&self.paths) != state.stamp {
                self.reread(&mut state)?;
                reloaded = true;
            }
        }
        let caught_up = self.caught_up.swap(false, Ordering::SeqCst);
        Ok(reloaded || caught_up)
    }
}

/// The game file to write to (a database open for writing is a local file).
fn writable_file(games: &Blob) -> &File {
    games
        .local_file()
        .expect("a database open for writing is a local file")
}

impl SimpleCdb {
    /// The game file as open now.
    fn game_file(&self) -> Arc<Blob> {
        self.games.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Forget what a failed save added before anything referred to it, on disk and in
    /// memory, giving the space back.
    fn undo(&self, state: &mut State, undo: &Undo) {
        let Ok(writers) = self.writers() else {
            return;
        };
        for (i, &count) in undo.names.iter().enumerate() {
            let end = u64::from(names::FIRST) + u64::from(count) * RECORD_LEN as u64;
            writer::cut_back_to(&writers[i + 1], &self.paths[i + 1], end);
            state.names[i].truncate(count);
        }
        writer::cut_back_to(
            writable_file(&self.game_file()),
            &self.paths[DCG],
            undo.games_len,
        );
        state.games_len = undo.games_len;
    }

    /// What [`SimpleCdb::undo`] needs to undo a save that starts now.
    fn undo_point(state: &State) -> Undo {
        Undo {
            games_len: state.games_len,
            names: std::array::from_fn(|i| state.names[i].count()),
        }
    }
}

fn entry_of(f: &Fitted, refs: [u32; 4], offset: u64) -> IndexEntry {
    IndexEntry {
        status: 0,
        offset,
        white: refs[0],
        black: refs[1],
        round: f.round,
        site: refs[2],
        event: refs[3],
        white_elo: f.elo[0],
        black_elo: f.elo[1],
        result: f.result,
        eco: f.eco,
        year: f.date.0,
        month: f.date.1,
        day: f.date.2,
    }
}

impl ChessStore for SimpleCdb {
    fn info(&self) -> StoreInfo {
        StoreInfo {
            format: "Simple Chess Database (version 0)".to_string(),
            files: self.paths.to_vec(),
            modified: self.read().modified,
        }
    }

    fn game_count(&self) -> u32 {
        self.read().count
    }

    fn deleted(&self, number: u32) -> bool {
        self.read().entry(number).is_deleted()
    }

    fn summary(&self, number: u32) -> GameSummary {
        let state = self.read();
        let e = state.entry(number);
        let eco = fit::eco_text(e.eco)
            .and_then(|t| crate::store::scid::derive::eco_code(&t))
            .unwrap_or(0);
        let f = fitted_of(&e);
        let h = fit::read_headers(&f, Default::default());
        GameSummary {
            deleted: e.is_deleted(),
            white: state.names[0].canonical(e.white),
            black: state.names[0].canonical(e.black),
            event: state.names[2].canonical(e.event),
            site: state.names[1].canonical(e.site),
            round: u32::from(e.round),
            date: h.date,
            result: h.result,
            eco,
        }
    }

    fn problems(&self) -> Vec<Problem> {
        self.read().damage.problems().to_vec()
    }

    fn ratings(&self, number: u32) -> [u16; 2] {
        let e = self.read().entry(number);
        let h = fit::read_headers(&fitted_of(&e), Default::default());
        [h.white_rating, h.black_rating].map(crate::store::rating_value)
    }

    fn ratings_in_index(&self) -> bool {
        true
    }

    fn name(&self, kind: NameKind, id: u32) -> Arc<str> {
        match name_file(kind) {
            Some(file) => self.read().names[file].text(id),
            None if id == 0 => Arc::from("?"),
            None => Arc::from(id.to_string()),
        }
    }

    fn load(&self, number: u32) -> Result<ChessGame> {
        let (headers, body) = self.stored_game(number)?;
        let (start, moves) = codec::decode_body(&body).map_err(|e| in_game(e, number))?;
        Ok(ChessGame {
            headers,
            start,
            moves,
        })
    }

    fn visit(&self, number: u32, visitor: &mut dyn GameVisitor) -> Result<()> {
        let (headers, body) = self.stored_game(number)?;
        let (start, moves) = codec::read_start(&body).map_err(|e| in_game(e, number))?;
        visitor.begin(&headers, &start)?;
        moves.visit(visitor).map_err(|e| in_game(e, number))
    }

    fn format(&self) -> crate::store::Format {
        crate::store::Format::SimpleCdb
    }

    fn fingerprint(&self, number: u32) -> Option<u64> {
        let (headers, body) = self.stored_game(number).ok()?;
        Some(crate::store::fingerprint_of(&headers, &body))
    }

    fn writable(&self) -> bool {
        self.writable
    }

    fn replace(&self, number: u32, game: &ChessGame) -> Result<bool> {
        // Another program's games first, then this change on top (docs/SEMANTICS.md §10a).
        self.change(|state, writers| {
            check_game_number(number, state.count)?;
            let p = self.prepare(game, &format_args!("game {}", number + 1), true)?;
            let old = state.entry(number);
            // Unchanged when the headers read the same and the stored moves, read and encoded
            // again, give the same bytes (another writer's raw comment whitespace is not a change).
            if state.headers(&old) == p.stored
                && let Ok((_, body)) = self.read_body(number, &old, state.games_len)
                && let Ok((start, moves)) = codec::decode_body(&body)
                && let Ok((again, _)) = codec::encode_body(&start, &moves)
                && codec::encode_record(&again).is_ok_and(|r| r == p.record)
            {
                return Ok(false);
            }
            // A name that reads the same keeps its old reference (a duplicate record, or ref 0
            // versus a record of spaces), so only what really changed is written.
            let old_refs = [old.white, old.black, old.site, old.event];
            let new_texts = [
                &p.stored.white,
                &p.stored.black,
                &p.stored.site,
                &p.stored.event,
            ];
            let keep: [bool; 4] = std::array::from_fn(|i| {
                *state.names[NAME_FILE_OF[i]].text(old_refs[i]) == **new_texts[i]
            });
            // Until the entry is rewritten nothing refers to the new record and names: a failure
            // (a full disk) is undone.
            let undo = Self::undo_point(state);
            let staged = (|| -> Result<(u64, [u32; 4])> {
                let offset = self.append_record(&mut *state, &p.record)?;
                writer::sync(writable_file(&self.game_file()), &self.paths[DCG])?;
                Ok((
                    offset,
                    self.place_names(&mut *state, &[&p.fitted], &[keep])?[0],
                ))
            })();
            let (offset, mut refs) = staged.inspect_err(|_| self.undo(&mut *state, &undo))?;
            for i in 0..4 {
                if keep[i] {
                    refs[i] = old_refs[i];
                }
            }
            let entry = entry_of(&p.fitted, refs, offset);
            let old_bytes = old.encode();
            let new_bytes = entry.encode();
            let at = entry_at(number);
            if let (Some(first), Some(last)) = (
                (0..ENTRY_LEN).find(|&i| old_bytes[i] != new_bytes[i]),
                (0..ENTRY_LEN).rfind(|&i| old_bytes[i] != new_bytes[i]),
            ) {
                writer::write_synced(
                    &writers[DCI],
                    &self.paths[DCI],
                    (at + first) as u64,
                    &new_bytes[first..=last],
                )?;
                state.index[at..at + ENTRY_LEN].copy_from_slice(&new_bytes);
            }
            state.modified = SystemTime::now();
            Ok(true)
        })
    }

    fn append_each(
        &self,
        games: &mut dyn Iterator<Item = Result<ChessGame>>,
        mut each: Option<Each<'_>>,
    ) -> Result<Vec<u32>> {
        // Another program's games first, then this change on top (docs/SEMANTICS.md §10a).
        self.change(|state, writers| {
            let first = state.count;
            let at = state.index.len() as u64;
            let undo = Self::undo_point(state);
            // Records, the index space they need, then names: until the entries are written
            // nothing refers to them, and a failure (a refused game, a full disk) is undone.
            let staged = (|| -> Result<Vec<u8>> {
                let mut prepared: Vec<(Fitted, u64)> = Vec::new();
                for (i, game) in games.enumerate() {
                    let what = match each {
                        // The caller knows which game of its text this is.
                        Some(_) => "this game".to_owned(),
                        None => format!("game {} of the text", i + 1),
                    };
                    let context = |e: Error| e.context(&what);
                    if u64::from(first) + prepared.len() as u64 >= u64::from(u32::MAX) {
                        return Err(Error::new(ErrorKind::TooLarge, "too many games"));
                    }
                    // Judged one by one, the losses go to the caller's report, not the log.
                    let log_losses = each.is_none();
                    let this = game.and_then(|g| self.prepare(&g, &what, log_losses));
                    let p = match (this, each.as_mut()) {
                        (Ok(p), Some(each)) => {
                            if !p.losses.is_empty() {
                                (each.changed)(p.losses.clone());
                            }
                            p
                        }
                        (Ok(p), None) => p,
                        (Err(e), Some(each)) => {
                            // The caller knows which game of its text this was.
                            (each.refused)(e);
                            continue;
                        }
                        (Err(e), None) => return Err(context(e)),
                    };
                    let offset = self.append_record(&mut *state, &p.record)?;
                    prepared.push((p.fitted, offset));
                }
                if prepared.is_empty() {
                    return Ok(Vec::new());
                }
                writer::sync(writable_file(&self.game_file()), &self.paths[DCG])?;
                writer::reserve(
                    &writers[DCI],
                    &self.paths[DCI],
                    at,
                    (prepared.len() * ENTRY_LEN) as u64,
                )?;
                let fitted: Vec<&Fitted> = prepared.iter().map(|(f, _)| f).collect();
                let refs =
                    self.place_names(&mut *state, &fitted, &vec![[false; 4]; fitted.len()])?;
                let mut bytes = Vec::with_capacity(prepared.len() * ENTRY_LEN);
                for ((f, offset), r) in prepared.iter().zip(refs) {
                    bytes.extend(entry_of(f, r, *offset).encode());
                }
                Ok(bytes)
            })();
            let bytes = staged.inspect_err(|_| self.undo(&mut *state, &undo))?;
            if bytes.is_empty() {
                return Ok(Vec::new());
            }
            if let Err(e) = writer::write_synced(&writers[DCI], &self.paths[DCI], at, &bytes) {
                // Drop the partial entries; the new names stay (unused, which readers accept).
                writer::cut_back(&writers[DCI], &self.paths[DCI], at);
                writer::cut_back(
                    writable_file(&self.game_file()),
                    &self.paths[DCG],
                    undo.games_len,
                );
                state.games_len = undo.games_len;
                return Err(e);
            }
            state.count = first + (bytes.len() / ENTRY_LEN) as u32;
            state.index.extend(bytes);
            state.modified = SystemTime::now();
            Ok((first..state.count).collect())
        })
    }

    fn set_deleted(&self, number: u32, deleted: bool) -> Result<()> {
        // Another program's games first, then this change on top (docs/SEMANTICS.md §10a).
        self.change(|state, writers| {
            check_game_number(number, state.count)?;
            if state.entry(number).is_deleted() == deleted {
                return Ok(());
            }
            let status = if deleted { STATUS_DELETED } else { 0 };
            let at = entry_at(number);
            writer::write_synced(&writers[DCI], &self.paths[DCI], at as u64, &[status])?;
            state.index[at] = status;
            state.modified = SystemTime::now();
            Ok(())
        })
    }

    fn reload_if_changed(&self) -> Result<bool> {
        SimpleCdb::reload_if_changed(self)
    }
}
