//! Darren Cook's 9x9 Go position database: a directory with one position file, the zobrist
//! table and any number of scored-position files (docs/formats/go9x9.md).
//!
//! # Which files
//!
//! In the directory given to [`Go9Database::open`]:
//!
//! * `zobrist_board_81.dat`: the Zobrist table (required: it makes the PositionID hashes).
//! * The **position file**: the one `.dat` file (other than the table) whose first 92 bytes
//!   look like a position record (a `B`/`W` player byte at byte 10 and at least 72 of the 81
//!   board bytes `#`/`O`/`.`, so that a damaged first record is still recognised), or
//!   whose name contains `position` (`positions.dat`, `input_positions.dat`; so an empty or
//!   damaged one is still found and then checked). Several candidates (queue files are position
//!   files too) or none are refused with a message naming them; [`Go9Options::positions`]
//!   chooses one explicitly.
//! * **Scored-position files**: every other `.dat` file named `<program>_<ruleset>.dat`
//!   (`fuego_chinese.dat`); the program/ruleset is the name without `.dat`. Other `.dat` files
//!   without `_` in their name are ignored (logged).
//!
//! # Identity, reading and writing
//!
//! A position is named by its PositionID ([`PositionId`]). The file's records are all read at
//! open, checked, and their hashes recomputed with the table: the file is accepted as
//! big-endian or little-endian hashes, whichever more of its records match (spec §3); new
//! records use the file's order (big-endian for a new file).
//!
//! # Damage
//!
//! A record with a bad player, board or flag byte, a stored hash its board does not have, or
//! cut short by the end of the file is *damaged* ([`Go9Database::damaged`]): its identity
//! cannot be trusted, so the collection shows it as an unreadable file of its own; every other
//! record is served. A damaged record of a scored file is left out
//! ([`Go9Database::score_problems`]). Only a file none of whose records match the zobrist
//! table (another table, or not a position file), or a damaged table, stops the open. A
//! damaged database is not opened for writing: a rewrite would drop the damaged records. Duplicate records of one id (queue files
//! have them) show once, as the first. A score file's later record for an id wins over an
//! earlier one (re-scoring appends).
//!
//! Saving ([`Go9Database::save`]) appends one 92-byte record, fsync'd; a save whose position
//! is already in the file appends nothing. Removing ([`Go9Database::remove`]) rewrites the
//! file without the position's records atomically (temp file, fsync, rename, fsync of the
//! directory), since the format has no delete mark; replacing a position is one such rewrite
//! (old records out, new record at the end). Scored files are never written: their records
//! stay keyed by id, so a removed and re-added position gets its scores back. One writer per
//! database: a writable open takes an advisory lock on the directory.
//!
//! # Other programs
//!
//! Cook's tools append to the position file and the scored files without a lock, so the
//! files may change while they are open, writable or not (docs/SEMANTICS.md §10a): every
//! save and removal first re-reads them if their stamps (length, time, inode) changed since
//! this store last read or wrote them, then applies itself on top (appending at the file's
//! real end, or rewriting it from what it holds now); [`Go9Database::reload_if_changed`]
//! notices the same for the views.

pub mod ascii;
pub mod records;
pub mod zobrist;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::game::go::{
    Board, Color, ExtraInfo, GoPosition, PositionId, Score, SymmetricCodes, ZobristTable,
};
use crate::store::StoreInfo;
use crate::store::damage::Damage;
use crate::store::files::{FileStamp, inode_of};
use crate::store::scid::writer::{cut_back, lock, replace_file, sync};
use records::{DamagedRecord, PositionRecord, RawId};

/// The name of the Zobrist table file in a database folder (its presence marks the folder as
/// a 9x9 Go position database).
pub const ZOBRIST_FILE: &str = "zobrist_board_81.dat";

/// How to open a database: the directory, or explicit files.
#[derive(Clone, Debug, Default)]
pub struct Go9Options {
    /// The database directory (default: the position file's directory).
    pub dir: Option<PathBuf>,
    /// The position file (default: recognised in `dir`, see the module documentation).
    pub positions: Option<PathBuf>,
    /// The zobrist table (default: `zobrist_board_81.dat` in `dir`).
    pub zobrist: Option<PathBuf>,
    /// The scored-position files (default: the `<program>_<ruleset>.dat` files of `dir`).
    pub scored: Option<Vec<PathBuf>>,
    /// Open for writing (takes the one-writer lock).
    pub writable: bool,
    /// Create an empty position file when there is none: `positions` if given, else
    /// `dir/positions.dat`. Needs `writable`.
    pub create: bool,
    /// Do not recompute and check the stored hashes (faster for huge files; the byte order
    /// is then assumed big-endian).
    pub trust_hashes: bool,
}

/// Byte order of the stored hashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HashOrder {
    /// Most significant byte first (the published display order; what gamefs writes).
    #[default]
    BigEndian,
    /// Least significant byte first (accepted when a file's hashes only match that way).
    LittleEndian,
}

impl HashOrder {
    fn decode(self, bytes: [u8; 8]) -> u64 {
        match self {
            HashOrder::BigEndian => u64::from_be_bytes(bytes),
            HashOrder::LittleEndian => u64::from_le_bytes(bytes),
        }
    }

    fn encode(self, hash: u64) -> [u8; 8] {
        match self {
            HashOrder::BigEndian => hash.to_be_bytes(),
            HashOrder::LittleEndian => hash.to_le_bytes(),
        }
    }
}

/// What the index says about one position, without rendering it: enough to name its file
/// and place it in the directory views (to-play, stone count, scores).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSummary {
    /// Its PositionID (and so its file name, [`PositionId::file_name`]).
    pub id: PositionId,
    /// Black stones.
    pub black: u8,
    /// White stones.
    pub white: u8,
    /// Scores per program/ruleset, sorted by program.
    pub scores: Vec<Score>,
}

impl PositionSummary {
    /// All stones on the board (the `stones/<n>/` view).
    pub fn stones(&self) -> u8 {
        self.black + self.white
    }
}

/// What a save did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The id of the saved position (new, or the one already in the file).
    pub id: PositionId,
    /// A record was appended.
    pub appended: bool,
    /// The position that was replaced and is gone from the file, if any.
    pub removed: Option<PositionId>,
}

/// The files of an open database.
#[derive(Clone, Debug)]
pub struct Go9Paths {
    /// The database directory.
    pub dir: PathBuf,
    /// The position file.
    pub positions: PathBuf,
    /// The zobrist table.
    pub zobrist: PathBuf,
    /// Scored-position files with their program/ruleset names, sorted by name.
    pub scored: Vec<(Arc<str>, PathBuf)>,
}

#[derive(Clone, Debug)]
struct Record {
    id: PositionId,
    board: Board,
    extra: Option<ExtraInfo>,
}

#[derive(Default)]
struct State {
    records: Vec<Record>,
    /// First record of each id.
    index: HashMap<PositionId, usize>,
    /// The first record of each id, in file order.
    order: Vec<usize>,
    /// Records by canonical hash (to find boards that share one). Only a save needs it, so
    /// it is built at the first one rather than when a big file is opened.
    by_hash: OnceLock<HashMap<u64, Vec<usize>>>,
    /// Byte order of the stored hashes (the one more of the file's records match).
    hash_order: HashOrder,
    /// Length of the position file as we last wrote or read it.
    file_len: u64,
    modified: Option<SystemTime>,
    /// The stamps of the position file and then of each scored file (in the order of
    /// [`Go9Paths::scored`]) when this store last read or wrote them: a difference is another
    /// program's write (docs/SEMANTICS.md §10a).
    stamp: Vec<FileStamp>,
    /// program/ruleset → id → (score, confidence).
    scores: BTreeMap<Arc<str>, HashMap<PositionId, (u8, u8)>>,
    /// The position file's records that cannot be read, in file order.
    damaged: Vec<DamagedRecord>,
    /// The scored files' records that cannot be read, one line each.
    score_problems: Vec<String>,
}

impl State {
    fn rebuild(&mut self) {
        self.index.clear();
        self.order.clear();
        self.by_hash = OnceLock::new();
        self.index.reserve(self.records.len());
        for i in 0..self.records.len() {
            self.note(i);
        }
    }

    /// Add record `i` to the maps (records are only ever added at the end).
    fn note(&mut self, i: usize) {
        let id = self.records[i].id;
        if let std::collections::hash_map::Entry::Vacant(e) = self.index.entry(id) {
            e.insert(i);
            self.order.push(i);
        }
        if let Some(by_hash) = self.by_hash.get_mut() {
            by_hash.entry(id.hash).or_default().push(i);
        }
    }

    /// The records whose id has `hash`, in file order.
    fn same_hash(&self, hash: u64) -> &[usize] {
        let by_hash = self.by_hash.get_or_init(|| {
            let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
            for (i, r) in self.records.iter().enumerate() {
                by_hash.entry(r.id.hash).or_default().push(i);
            }
            by_hash
        });
        by_hash.get(&hash).map(Vec::as_slice).unwrap_or(&[])
    }

    fn push(&mut self, r: Record) {
        self.records.push(r);
        self.note(self.records.len() - 1);
    }
}

/// An open 9x9 position database. Shared between threads (`&self` everywhere; writes take
/// an internal lock).
pub struct Go9Database {
    paths: Go9Paths,
    table: ZobristTable,
    trust_hashes: bool,
    writable: bool,
    /// The directory handle holding the one-writer lock (kept open while writable; the
    /// directory is never replaced, so the lock stays valid whatever other programs do to
    /// the files in it).
    _lock: Option<File>,
    state: RwLock<State>,
    /// A save or removal caught up with another program's writes since
    /// [`Go9Database::reload_if_changed`] last answered: its next answer is true.
    caught_up: AtomicBool,
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::io(format!("{what} {}", path.display()), e)
}

/// The name of a scored-position file (`fuego_chinese` for `fuego_chinese.dat`), if `path`
/// is named like one.
pub fn program_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".dat")?;
    (stem.contains('_')
        && Score::is_program_name(stem)
        && !stem.starts_with('_')
        && !stem.ends_with('_')
        && stem != "zobrist_board_81")
        .then(|| stem.to_owned())
}

/// Find the position file and the scored files of `dir` (the rule is in the module
/// documentation). Returns the position file, if any, and the scored files.
pub fn scan_dir(dir: &Path) -> Result<(Option<PathBuf>, Vec<PathBuf>)> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotADirectory {
            Error::new(
                ErrorKind::NotADirectory,
                format!(
                    "{} is not a directory: a 9x9 database is a directory holding a position file, \
                     zobrist_board_81.dat and scored-position files",
                    dir.display()
                ),
            )
        } else {
            io_err("reading the directory", dir, e)
        }
    })?;
    let mut dats = Vec::new();
    for e in entries {
        let e = e.map_err(|e| io_err("reading the directory", dir, e))?;
        let path = e.path();
        let is_file = std::fs::metadata(&path)
            .map(|m| m.is_file())
            .unwrap_or(false);
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_file && name.ends_with(".dat") && name != zobrist::FILE_NAME {
            dats.push(path);
        }
    }
    dats.sort();
    let mut positions = Vec::new();
    let mut scored = Vec::new();
    for path in dats {
        let mut head = vec![0u8; records::POSITION_RECORD];
        let f = File::open(&path).map_err(|e| io_err("opening", &path, e))?;
        let n = read_up_to(&f, &mut head).map_err(|e| io_err("reading", &path, e))?;
        head.truncate(n);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let position_like = name.contains("position") || records::looks_like_positions(&head);
        if position_like {
            positions.push(path);
        } else if program_of(&path).is_some() {
            scored.push(path);
        } else {
            log::warn!(
                "{}: ignored (neither a position file nor a <program>_<ruleset>.dat scored file)",
                path.display()
            );
        }
    }
    match positions.len() {
        0 | 1 => Ok((positions.pop(), scored)),
        _ => Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} holds several position files ({}): choose one with --positions",
                dir.display(),
                positions
                    .iter()
                    .filter_map(|p| p.file_name()?.to_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

fn read_up_to(f: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read_at(&mut buf[n..], n as u64)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The stamps of the position file and then of each scored file, now (one `stat` each).
fn stamp(paths: &Go9Paths) -> Vec<FileStamp> {
    std::iter::once(&paths.positions)
        .chain(paths.scored.iter().map(|(_, p)| p))
        .map(|p| FileStamp::of(p))
        .collect()
}

/// Read the position file and the scored files into a fresh state: every record checked
/// against the table (unless `trust_hashes`), the damaged ones listed. The stamps are taken
/// first, so a write after them is seen at the next look rather than taken for read.
fn read_state(paths: &Go9Paths, table: &ZobristTable, trust_hashes: bool) -> Result<State> {
    let stamp = stamp(paths);
    let positions = &paths.positions;
    let name = positions.display().to_string();
    let bytes = std::fs::read(positions).map_err(|e| io_err("reading", positions, e))?;
    let (raw, mut damaged) = records::read_positions(&bytes);
    let (hash_order, raw) = if trust_hashes {
        (HashOrder::BigEndian, raw)
    } else {
        let (order, good, wrong) = check_hashes(table, raw, &name)?;
        damaged.extend(wrong);
        damaged.sort_by_key(|d| d.offset);
        (order, good)
    };
    let mut scores: BTreeMap<Arc<str>, HashMap<PositionId, (u8, u8)>> = BTreeMap::new();
    let mut score_problems: Vec<String> = Vec::new();
    for (program, path) in &paths.scored {
        let bytes = std::fs::read(path).map_err(|e| io_err("reading", path, e))?;
        let (recs, swapped, bad) = records::read_scores(&bytes);
        let file = path.display().to_string();
        score_problems.extend(bad.iter().map(|d| d.describe(&file)));
        if swapped {
            log::info!(
                "{}: confidence is stored before score; read accordingly",
                path.display()
            );
        }
        let map = scores.entry(program.clone()).or_default();
        for r in recs {
            let id = PositionId {
                hash: hash_order.decode(r.id.hash),
                tiebreak: r.id.tiebreak,
                to_play: r.id.to_play,
            };
            map.insert(id, (r.score, r.confidence));
        }
    }
    let mut state = State {
        records: raw
            .iter()
            .map(|r| Record {
                id: PositionId {
                    hash: hash_order.decode(r.id.hash),
                    tiebreak: r.id.tiebreak,
                    to_play: r.id.to_play,
                },
                board: r.board,
                extra: r.extra,
            })
            .collect(),
        hash_order,
        file_len: bytes.len() as u64,
        modified: stamp[0].modified,
        stamp,
        scores,
        damaged,
        score_problems,
        ..State::default()
    };
    state.rebuild();
    Ok(state)
}

/// Refuse to write a damaged database (a rewrite would drop the damaged records): the
/// read-only error naming the first problem.
fn refuse_damaged(paths: &Go9Paths, s: &State) -> Result<()> {
    let name = paths.positions.display().to_string();
    let mut damage = Damage::default();
    for problem in s.damaged.iter().map(|d| d.describe(&name)) {
        damage.database(problem);
    }
    for problem in &s.score_problems {
        damage.database(problem.clone());
    }
    damage.refuse_writing(&paths.dir, "position")
}

/// The scores of `id` in `s`, one per program/ruleset that scored it, sorted by program.
fn scores_in(s: &State, id: &PositionId) -> Vec<Score> {
    s.scores
        .iter()
        .filter_map(|(program, map)| {
            map.get(id).map(|&(score, confidence)| Score {
                program: program.clone(),
                score,
                confidence,
            })
        })
        .collect()
}

fn summary_of(s: &State, r: &Record) -> PositionSummary {
    PositionSummary {
        id: r.id,
        black: r.board.count(Color::Black) as u8,
        white: r.board.count(Color::White) as u8,
        scores: scores_in(s, &r.id),
    }
}

fn encode(order: HashOrder, r: &Record) -> Vec<u8> {
    let raw = RawId {
        hash: order.encode(r.id.hash),
        tiebreak: r.id.tiebreak,
        to_play: r.id.to_play,
    };
    records::encode_position(&raw, &r.board, r.extra.as_ref())
}

impl Go9Database {
    /// Open the database in directory `dir` (files recognised as the module documentation
    /// says), for reading or also for writing.
    pub fn open(dir: &Path, writable: bool) -> Result<Go9Database> {
        Go9Database::open_with(&Go9Options {
            dir: Some(dir.to_owned()),
            writable,
            ..Go9Options::default()
        })
    }

    /// Open with explicit files and options.
    pub fn open_with(options: &Go9Options) -> Result<Go9Database> {
        let dir = match (&options.dir, &options.positions) {
            (Some(d), _) => d.clone(),
            (None, Some(p)) => p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_owned),
            (None, None) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "no 9x9 database given: a directory or a position file is needed",
                ));
            }
        };
        if options.create && !options.writable {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "creating a position file needs a writable open",
            ));
        }
        let need_scan = options.positions.is_none() || options.scored.is_none();
        let (found, scanned) = if need_scan {
            scan_dir(&dir)?
        } else {
            (None, Vec::new())
        };
        let positions = match options.positions.clone().or(found) {
            Some(p) => p,
            None if options.create => dir.join("positions.dat"),
            None => {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "no position file in {}: expected a .dat file of 92- or 100-byte position \
                         records (or name one with --positions)",
                        dir.display()
                    ),
                ));
            }
        };
        let zobrist_path = options
            .zobrist
            .clone()
            .unwrap_or_else(|| dir.join(zobrist::FILE_NAME));
        let table = zobrist::load(&zobrist_path)?;

        let lock_file = if options.writable {
            let d = File::open(&dir).map_err(|e| io_err("opening", &dir, e))?;
            lock(&d, &dir)?;
            Some(d)
        } else {
            None
        };
        if options.create && !positions.exists() {
            File::options()
                .write(true)
                .create_new(true)
                .open(&positions)
                .and_then(|f| f.sync_all())
                .map_err(|e| io_err("creating", &positions, e))?;
            File::open(&dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| io_err("syncing", &dir, e))?;
        }

        let scored_paths = options.scored.clone().unwrap_or(scanned);
        let mut scored = Vec::new();
        for path in scored_paths {
            let program: Arc<str> = program_of(&path)
                .or_else(|| path.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
                .filter(|p| Score::is_program_name(p))
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidInput,
                        format!(
                            "{}: a scored file needs a name, without control characters",
                            path.display()
                        ),
                    )
                })?
                .into();
            scored.push((program, path));
        }
        scored.sort();
        let paths = Go9Paths {
            dir,
            positions,
            zobrist: zobrist_path,
            scored,
        };
        let state = read_state(&paths, &table, options.trust_hashes)?;
        if options.writable {
            refuse_damaged(&paths, &state)?;
        }
        Ok(Go9Database {
            paths,
            table,
            trust_hashes: options.trust_hashes,
            writable: options.writable,
            _lock: lock_file,
            state: RwLock::new(state),
            caught_up: AtomicBool::new(false),
        })
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The files of the database.
    pub fn paths(&self) -> &Go9Paths {
        &self.paths
    }

    /// The zobrist table in use.
    pub fn table(&self) -> &ZobristTable {
        &self.table
    }

    /// Byte order of the position file's hashes.
    pub fn hash_order(&self) -> HashOrder {
        self.read().hash_order
    }

    /// True when opened for writing.
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// Facts about the database, for timestamps and messages.
    pub fn info(&self) -> StoreInfo {
        let mut files = vec![self.paths.positions.clone(), self.paths.zobrist.clone()];
        files.extend(self.paths.scored.iter().map(|(_, p)| p.clone()));
        let modified = files
            .iter()
            .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
            .chain(self.read().modified)
            .max()
            .unwrap_or(SystemTime::UNIX_EPOCH);
        StoreInfo {
            format: format!(
                "9x9 Go position database ({} hashes)",
                match self.hash_order() {
                    HashOrder::BigEndian => "big-endian",
                    HashOrder::LittleEndian => "little-endian",
                }
            ),
            files,
            modified,
        }
    }

    /// The position file's records that cannot be read (damaged, or cut short), in file
    /// order, as last read: each is shown as an unreadable file.
    pub fn damaged(&self) -> Vec<DamagedRecord> {
        self.read().damaged.clone()
    }

    /// The scored files' records that cannot be read, one line each naming file, record and
    /// byte (their scores are not shown), as last read.
    pub fn score_problems(&self) -> Vec<String> {
        self.read().score_problems.clone()
    }

    /// The program/ruleset names of the scored files, sorted (the `scores/<name>/` views).
    pub fn programs(&self) -> Vec<Arc<str>> {
        self.paths.scored.iter().map(|(n, _)| n.clone()).collect()
    }

    /// Number of distinct positions.
    pub fn len(&self) -> usize {
        self.read().order.len()
    }

    /// True when the position file holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The scores of `id`, one per program/ruleset that scored it, sorted by program.
    pub fn scores_of(&self, id: &PositionId) -> Vec<Score> {
        scores_in(&self.read(), id)
    }

    /// Every position, in file order, once each: what the directory views are built from.
    pub fn positions(&self) -> Vec<PositionSummary> {
        let s = self.read();
        s.order
            .iter()
            .map(|&i| summary_of(&s, &s.records[i]))
            .collect()
    }

    /// The summary of one position, if it is in the file.
    pub fn summary(&self, id: &PositionId) -> Option<PositionSummary> {
        let s = self.read();
        s.index.get(id).map(|&i| summary_of(&s, &s.records[i]))
    }

    /// True when `id` is in the position file.
    pub fn contains(&self, id: &PositionId) -> bool {
        self.read().index.contains_key(id)
    }

    /// The whole position `id` (board, player, id, scores, extra info), for rendering.
    pub fn load(&self, id: &PositionId) -> Result<GoPosition> {
        let s = self.read();
        let r = s.index.get(id).map(|&i| &s.records[i]).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!("no position {id} in the database"),
            )
        })?;
        Ok(GoPosition {
            board: r.board,
            to_play: r.id.to_play,
            id: Some(r.id),
            scores: scores_in(&s, id),
            extra: r.extra,
        })
    }

    /// The id `board` with `to_play` has, or would get if saved now (`TooLarge` when 256
    /// different boards already share its hash).
    pub fn id_for(&self, board: &Board, to_play: Color) -> Result<PositionId> {
        let s = self.read();
        self.place(&s, board, to_play, None).map(|(id, _)| id)
    }

    /// The id for a board (ignoring the records of `except`), and whether a record of that
    /// very position already exists. Only records with the same hash are compared.
    fn place(
        &self,
        s: &State,
        board: &Board,
        to_play: Color,
        except: Option<&PositionId>,
    ) -> Result<(PositionId, bool)> {
        let (hash, _) = self.table.canonical(board);
        let form = board.canonical_form();
        let mut used = [false; 256];
        let same_hash = s.same_hash(hash);
        for r in same_hash
            .iter()
            .map(|&i| &s.records[i])
            .filter(|r| Some(&r.id) != except)
        {
            if r.board.canonical_form() == form {
                let id = PositionId {
                    hash,
                    tiebreak: r.id.tiebreak,
                    to_play,
                };
                let exists = Some(&id) != except && s.index.contains_key(&id);
                return Ok((id, exists));
            }
            used[usize::from(r.id.tiebreak)] = true;
        }
        let tiebreak = used.iter().position(|u| !u).ok_or_else(|| {
            Error::new(
                ErrorKind::TooLarge,
                format!("256 different boards already share hash {hash:016x}"),
            )
        })?;
        Ok((
            PositionId {
                hash,
                tiebreak: tiebreak as u8,
                to_play,
            },
            false,
        ))
    }

    fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::ReadOnly,
                format!("{} is open read-only", self.paths.positions.display()),
            ))
        }
    }

    /// Re-read the files into `s` (a writable store refuses a damaged file, as a writable open
    /// does; nothing changes then).
    fn reread(&self, s: &mut State) -> Result<()> {
        let fresh = read_state(&self.paths, &self.table, self.trust_hashes)?;
        if self.writable {
            refuse_damaged(&self.paths, &fresh)?;
        }
        self.log_reread(&fresh);
        *s = fresh;
        Ok(())
    }

    fn log_reread(&self, fresh: &State) {
        log::info!(
            "{} changed outside gamefs: {} positions now",
            self.paths.positions.display(),
            fresh.order.len()
        );
    }

    /// Re-read the files if another program changed them since this store last read or
    /// wrote them, writable or not (Cook's tools append without a lock; docs/SEMANTICS.md
    /// §10a): a few `stat` calls when nothing changed. True when the state was re-read since
    /// the last call, here or by a save or removal that caught up first.
    pub fn reload_if_changed(&self) -> Result<bool> {
        let mut reloaded = false;
        if stamp(&self.paths) != self.read().stamp {
            if self.writable {
                let mut s = self.write();
                // A change may have caught up in the meantime (and said so below).
                if stamp(&self.paths) != s.stamp {
                    self.reread(&mut s)?;
                    reloaded = true;
                }
            } else {
                // Nothing else changes the state of a read-only store: read without
                // holding up the readers.
                let fresh = read_state(&self.paths, &self.table, self.trust_hashes)?;
                self.log_reread(&fresh);
                *self.write() = fresh;
                reloaded = true;
            }
        }
        let caught_up = self.caught_up.swap(false, Ordering::SeqCst);
        Ok(reloaded || caught_up)
    }

    /// Catch up before a change (docs/SEMANTICS.md §10a): re-read the files if their stamps
    /// changed since this store last read or wrote them, and open the position file, checked
    /// to be the very file just read and as long, so that an append lands at its real end and
    /// a rewrite drops nothing another program added (that program may write between the look
    /// and the open: then look again).
    fn catch_up(&self, s: &mut State) -> Result<File> {
        let p = &self.paths.positions;
        for _ in 0..3 {
            if stamp(&self.paths) != s.stamp {
                self.reread(s)?;
                self.caught_up.store(true, Ordering::SeqCst);
            }
            let f = File::options()
                .write(true)
                .open(p)
                .map_err(|e| io_err("opening", p, e))?;
            let len = f
                .metadata()
                .map_err(|e| io_err("reading the size of", p, e))?
                .len();
            if inode_of(&f) == Some(s.stamp[0].inode) && len == s.file_len {
                return Ok(f);
            }
            s.stamp[0] = FileStamp::UNKNOWN;
        }
        Err(Error::new(
            ErrorKind::Busy,
            format!(
                "{} keeps changing while gamefs saves (another program is writing it): try again",
                p.display()
            ),
        ))
    }

    /// After this store's own write of the position file, take its stamp, so the write is not
    /// taken for another program's; but when the file is not as long as this write made it
    /// (or, with `same_file`, is no longer the file written), another program wrote it at the
    /// same time: leave a stamp no file has, so the next look re-reads it (docs/SEMANTICS.md
    /// §10a).
    fn restamp(&self, s: &mut State, same_file: bool) {
        let now = FileStamp::of(&self.paths.positions);
        s.stamp[0] = if now.len == s.file_len && (!same_file || now.inode == s.stamp[0].inode) {
            now
        } else {
            FileStamp::UNKNOWN
        };
    }

    /// Save `position` (its board and player): append it as a new 92-byte record, or, with
    /// `replacing`, put it in place of that position (one atomic rewrite of the file). A
    /// position already in the file is not appended again. What another program wrote to the
    /// files is read first, and the save applies on top of it (docs/SEMANTICS.md §10a).
    ///
    /// Scores are written by scoring programs, not by hand: when `position.scores` is not
    /// empty it must equal the stored scores of the position the text came from
    /// (`replacing`, else `position.id`), or the save is refused (`InvalidInput`). The new
    /// record gets the canonical hash, tiebreak 0 unless a different board already has that
    /// hash, and `position.to_play`. A board with a group without liberties is refused.
    pub fn save(&self, position: &GoPosition, replacing: Option<&PositionId>) -> Result<Saved> {
        self.check_writable()?;
        if let Err(dead) = position.board.check_layout() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("not a legal stone layout: {dead}"),
            ));
        }
        let reference = replacing.or(position.id.as_ref());
        if !position.scores.is_empty() && reference.is_none() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "the text states scores but names no position (GFID): scores are written \
                 by scoring programs and cannot be added by hand",
            ));
        }
        let mut s = self.write();
        let file = self.catch_up(&mut s)?;
        if let Some(reference) = reference.filter(|_| !position.scores.is_empty()) {
            let stored = scores_in(&s, reference);
            if stored != position.scores {
                let show = |v: &[Score]| {
                    if v.is_empty() {
                        "none".to_owned()
                    } else {
                        v.iter()
                            .map(|s| format!("{} {}/{}", s.program, s.score, s.confidence))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                };
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "scores are written by scoring programs and cannot be edited: the text \
                         says {}, the database has {} for {reference}",
                        show(&position.scores),
                        show(&stored)
                    ),
                ));
            }
        }
        if let Some(old) = replacing
            && !s.index.contains_key(old)
        {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("no position {old} in the database"),
            ));
        }
        let (id, exists) = self.place(&s, &position.board, position.to_play, replacing)?;
        if replacing == Some(&id) {
            return Ok(Saved {
                id,
                appended: false,
                removed: None,
            });
        }
        if exists && replacing.is_none() {
            return Ok(Saved {
                id,
                appended: false,
                removed: None,
            });
        }
        let record = Record {
            id,
            board: position.board,
            extra: None,
        };
        match replacing {
            None => {
                let bytes = encode(s.hash_order, &record);
                let p = &self.paths.positions;
                let written = file
                    .write_all_at(&bytes, s.file_len)
                    .map_err(|e| io_err("writing", p, e))
                    .and_then(|()| sync(&file, p));
                if let Err(e) = written {
                    // A part of the record (a full disk) would make the file's length no
                    // multiple of the record size: cut it off again.
                    cut_back(&file, p, s.file_len);
                    self.restamp(&mut s, true);
                    return Err(e);
                }
                s.file_len += bytes.len() as u64;
                s.push(record);
                s.modified = Some(SystemTime::now());
                self.restamp(&mut s, true);
                Ok(Saved {
                    id,
                    appended: true,
                    removed: None,
                })
            }
            Some(old) => {
                let mut kept: Vec<Record> =
                    s.records.iter().filter(|r| r.id != *old).cloned().collect();
                if !exists {
                    kept.push(record);
                }
                self.rewrite(&mut s, kept)?;
                Ok(Saved {
                    id,
                    appended: !exists,
                    removed: Some(*old),
                })
            }
        }
    }

    fn rewrite(&self, s: &mut State, records: Vec<Record>) -> Result<()> {
        let bytes: Vec<u8> = records
            .iter()
            .flat_map(|r| encode(s.hash_order, r))
            .collect();
        replace_file(&self.paths.positions, &bytes)?;
        s.file_len = bytes.len() as u64;
        s.records = records;
        s.modified = Some(SystemTime::now());
        s.rebuild();
        self.restamp(s, false);
        Ok(())
    }

    /// Remove position `id` (every record of it) by rewriting the position file atomically,
    /// from the file as it is now: what another program wrote is read first and kept
    /// (docs/SEMANTICS.md §10a). Its scores stay in the scored files.
    pub fn remove(&self, id: &PositionId) -> Result<()> {
        self.check_writable()?;
        let mut s = self.write();
        self.catch_up(&mut s)?;
        if !s.index.contains_key(id) {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("no position {id} in the database"),
            ));
        }
        let kept = s.records.iter().filter(|r| r.id != *id).cloned().collect();
        self.rewrite(&mut s, kept)
    }

    /// The boards of the position file in record order, with ids (duplicates included): for
    /// tools that show every record.
    pub fn records(&self) -> Vec<(PositionId, Board, Option<ExtraInfo>)> {
        self.read()
            .records
            .iter()
            .map(|r| (r.id, r.board, r.extra))
            .collect()
    }
}

/// Each record's canonical hash, computed on every core: a mount checks every record's
/// stored hash against its board, a hundred thousand records and more.
fn canonical_hashes(codes: &SymmetricCodes, records: &[PositionRecord]) -> Vec<u64> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Small files stay on this thread: starting threads costs more than they save.
    let per_thread = records.len().div_ceil(threads).max(4096);
    if records.len() <= per_thread {
        return records
            .iter()
            .map(|r| codes.canonical_hash(&r.board))
            .collect();
    }
    let mut hashes = vec![0u64; records.len()];
    std::thread::scope(|s| {
        for (out, part) in hashes
            .chunks_mut(per_thread)
            .zip(records.chunks(per_thread))
        {
            s.spawn(move || {
                for (hash, record) in out.iter_mut().zip(part) {
                    *hash = codes.canonical_hash(&record.board);
                }
            });
        }
    });
    hashes
}

/// Check every record's hash against its board: the byte order the file uses (the one more
/// records match), the records that match, and the others as damaged. A file none of whose
/// records match was made with another table (or is not a position file): refused.
fn check_hashes(
    table: &ZobristTable,
    raw: Vec<PositionRecord>,
    name: &str,
) -> Result<(HashOrder, Vec<PositionRecord>, Vec<DamagedRecord>)> {
    let want = canonical_hashes(&table.symmetric_codes(), &raw);
    let matching = |order: HashOrder| {
        raw.iter()
            .zip(&want)
            .filter(|(r, w)| order.decode(r.id.hash) == **w)
            .count()
    };
    let (be, le) = (
        matching(HashOrder::BigEndian),
        matching(HashOrder::LittleEndian),
    );
    if let (0, 0, Some(r)) = (be, le, raw.first()) {
        return Err(Error::new(
            ErrorKind::CorruptDatabase,
            format!(
                "{name}: no record's stored hash matches its board: record 1 at byte {} stores \
                 {}, but its board hashes to {:016x} (is zobrist_board_81.dat the table this \
                 file was made with?)",
                r.offset,
                hex(&r.id.hash),
                want[0]
            ),
        ));
    }
    let order = if le > be {
        HashOrder::LittleEndian
    } else {
        HashOrder::BigEndian
    };
    let mut good = Vec::with_capacity(raw.len());
    let mut wrong = Vec::new();
    for (r, w) in raw.into_iter().zip(want) {
        if order.decode(r.id.hash) == w {
            good.push(r);
        } else {
            wrong.push(DamagedRecord {
                number: r.number,
                offset: r.offset,
                reason: format!(
                    "stored hash {} does not match its board, which hashes to {w:016x}",
                    hex(&r.id.hash)
                ),
            });
        }
    }
    Ok((order, good, wrong))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Go9Database>();
    }

    #[test]
    fn scored_file_names() {
        assert_eq!(
            program_of(Path::new("d/fuego_chinese.dat")).as_deref(),
            Some("fuego_chinese")
        );
        for bad in [
            "d/fuego.dat",
            "_x.dat",
            "x_.dat",
            "zobrist_board_81.dat",
            "a_b.txt",
            "fuego\n_chinese.dat",
        ] {
            assert_eq!(program_of(Path::new(bad)), None, "{bad}");
        }
    }
}
