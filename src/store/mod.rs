//! The binary database formats. Each submodule knows one format and nothing above it.
//!
//! A format is exposed to the rest of gamefs through the [`ChessStore`] trait: the index
//! (cheap, read once) answers [`GameSummary`] questions for directory views, and a record is
//! decoded into a [`ChessGame`] only when someone reads that game.

pub mod archive;
pub mod blob;
pub mod cache_folder;
pub mod charset;
pub mod chessbase;
pub mod convert;
pub mod damage;
pub(crate) mod distinct_ids;
pub mod files;
pub mod go9x9;
pub mod location;
pub mod name_list;
pub mod pgn;
mod read_ahead;
pub mod scid;
pub mod simplecdb;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::game::visit::GameVisitor;
use crate::game::{ChessGame, GameResult, PartialDate};
pub use damage::Problem;

/// Which name dictionary a name ID refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NameKind {
    /// Player names (White and Black).
    Player,
    /// Event names.
    Event,
    /// Site names.
    Site,
    /// Round names.
    Round,
}

impl NameKind {
    /// The four dictionaries in their on-disk order.
    pub const ALL: [NameKind; 4] = [
        NameKind::Player,
        NameKind::Event,
        NameKind::Site,
        NameKind::Round,
    ];
}

/// What the index says about one game, without decoding its record: enough to name the
/// game's file and to place it in the directory views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// The game is marked deleted (it still exists until compaction).
    pub deleted: bool,
    /// White player's name ID ([`damage::UNKNOWN_NAME`] when the name file lacks it).
    pub white: u32,
    /// Black player's name ID.
    pub black: u32,
    /// Event name ID.
    pub event: u32,
    /// Site name ID.
    pub site: u32,
    /// Round name ID.
    pub round: u32,
    /// Date played.
    pub date: PartialDate,
    /// Result.
    pub result: GameResult,
    /// ECO code in SCID's numeric form (0 = none); see [`eco_text`].
    pub eco: u16,
}

/// A rating as SCID's index keeps it for a header search: its value (at most 12 bits),
/// whatever its kind; 0 for none.
pub fn rating_value(rating: Option<crate::game::Rating>) -> u16 {
    rating.map_or(0, |r| r.value.min(0xFFF))
}

/// Facts about the database as a whole, for timestamps and messages.
#[derive(Clone, Debug)]
pub struct StoreInfo {
    /// The format's name and version, e.g. "SCID 4 (version 400)".
    pub format: String,
    /// The database files, for messages and timestamps; the index (the file that numbers the
    /// items) first.
    pub files: Vec<PathBuf>,
    /// When the database last changed (the newest file modification time, or our last save).
    pub modified: SystemTime,
}

/// A record's error, naming its game (1-based, as users count).
pub(crate) fn in_game(e: crate::error::Error, number: u32) -> crate::error::Error {
    e.context(format_args!("game {}", number + 1))
}

/// How a bulk append judges its games one by one ([`ChessStore::append_each`]).
pub struct Each<'a> {
    /// Store a game the format holds only in part the way the format's own importer stores
    /// it (SCID's `sc_import`), rather than refusing it.
    pub fit: bool,
    /// Told each game left out (the format cannot hold it, or the iterator gave an error),
    /// right after the iterator gave it.
    pub refused: &'a mut dyn FnMut(Error),
    /// Told each game stored otherwise than given, with what was changed, right after the
    /// iterator gave it.
    pub changed: &'a mut dyn FnMut(Vec<String>),
}

/// A chess game database. Game numbers are 0-based positions in the index.
///
/// Reads come from the index (cheap) or decode one record; writes append records and repoint
/// index entries, following each format's own append design (docs/DESIGN.md rules 4 and 7).
pub trait ChessStore: Send + Sync {
    /// Facts about the database files.
    fn info(&self) -> StoreInfo;
    /// Number of games in the index, deleted ones included.
    fn game_count(&self) -> u32;
    /// The index summary of game `number` (`number < game_count()`).
    fn summary(&self, number: u32) -> GameSummary;
    /// White's and Black's ratings of game `number` (`number < game_count()`) for a header
    /// search (`query/`), as [`rating_value`] gives them. A format whose index keeps them
    /// answers from it; the others decode the game (a game that does not decode has none).
    fn ratings(&self, number: u32) -> [u16; 2] {
        self.load(number).map_or([0, 0], |g| {
            [
                rating_value(g.headers.white_rating),
                rating_value(g.headers.black_rating),
            ]
        })
    }
    /// The half moves of game `number`'s main line, modulo 1024 as SCID's index keeps them,
    /// for a header search. A format whose index keeps them answers from it; the others
    /// decode the game (a game that does not decode has none: 0).
    fn plies(&self, number: u32) -> u16 {
        self.load(number)
            .map_or(0, |g| (g.moves.moves.len() % 1024) as u16)
    }
    /// True when [`ratings`](Self::ratings) answers from the index, without decoding the
    /// game: the header index ([`crate::collection::query::HeaderIndex`]) keeps the ratings
    /// of a store that does, and leaves them to each query otherwise.
    fn ratings_in_index(&self) -> bool {
        false
    }
    /// True when [`plies`](Self::plies) answers from the index, without decoding the game
    /// (as [`ratings_in_index`](Self::ratings_in_index) for the lengths).
    fn plies_in_index(&self) -> bool {
        false
    }
    /// Game `number`'s annotator (its `Annotator` tag), for a header query: `None` when it
    /// has none or cannot be read. Read from the game; a format that keeps it apart (SCID's
    /// record head, ChessBase's game header) answers without decoding the moves.
    fn annotator(&self, number: u32) -> Option<String> {
        let game = self.load(number).ok()?;
        game.headers.extra_tag("Annotator").map(str::to_owned)
    }
    /// Whether game `number` carries the deleted mark: its [`summary`](Self::summary)'s
    /// `deleted` alone. Listings, `.gamefs/stats` and the position index ask it of every
    /// game, so a format whose summary decodes more (names, dates) reads the mark alone.
    fn deleted(&self, number: u32) -> bool {
        self.summary(number).deleted
    }
    /// How many games carry the deleted mark (`.gamefs/stats` tells it on every read, so a
    /// format that reads the mark under a lock counts them all under one).
    fn deleted_count(&self) -> u32 {
        (0..self.game_count()).filter(|&n| self.deleted(n)).count() as u32
    }
    /// The name with `id` in the `kind` dictionary (`?` for an ID the name file lacks).
    fn name(&self, kind: NameKind, id: u32) -> Arc<str>;
    /// What is wrong with the database, as found when it was opened (or last re-read): the
    /// database's problems and each damaged game's. Games listed as unreadable fail to
    /// [`load`](ChessStore::load) with their problem; the others load.
    fn problems(&self) -> Vec<Problem>;
    /// Decode game `number` completely (record plus index fields).
    fn load(&self, number: u32) -> Result<ChessGame>;
    /// Tell game `number` to `visitor` as [`load`](ChessStore::load) would decode it (the
    /// same game, the same errors). A format whose decoder replays the moves anyway tells
    /// them as it decodes, so rendering needs no tree; the others load and walk the tree.
    fn visit(&self, number: u32, visitor: &mut dyn GameVisitor) -> Result<()> {
        crate::game::visit::walk(&self.load(number)?, visitor).map_err(|e| in_game(e, number))
    }
    /// The text of game `number` exactly as the database holds it, for a database that is
    /// text (a PGN file): its file shows these bytes, not a rendering. `None` for the binary
    /// formats, whose games are rendered.
    fn source_text(&self, _number: u32) -> Option<Result<Vec<u8>>> {
        None
    }
    /// The length of [`source_text`](Self::source_text) of game `number`, known from the
    /// index without reading the game; `None` for the binary formats.
    fn source_len(&self, _number: u32) -> Option<u64> {
        None
    }
    /// False when the index knows nothing of game `number` to place it in the views by (a
    /// game of a PGN file the parser refused): the views leave it out.
    fn classified(&self, _number: u32) -> bool {
        true
    }
    /// True when the database was opened for writing.
    fn writable(&self) -> bool;
    /// The format of the database (whose own importer a bulk import follows).
    fn format(&self) -> Format;
    /// Store `game` as the new content of game `number`. Returns false, writing nothing, when
    /// the stored game is already exactly this.
    fn replace(&self, number: u32, game: &ChessGame) -> Result<bool>;
    /// Append the games of `games` as new games and return their numbers. All or nothing:
    /// the first error (from the iterator or the format) leaves the database as it was.
    fn append(&self, games: &mut dyn Iterator<Item = Result<ChessGame>>) -> Result<Vec<u32>> {
        self.append_each(games, None)
    }
    /// [`append`](Self::append), except that with `each` games are judged one by one: a game
    /// the format cannot hold (and an error item) goes to `each.refused`, right after the
    /// iterator gave it, and is left out; the other games are stored. A failure of the
    /// database itself (a full disk, too many games) still fails the whole call and leaves the
    /// database as it was.
    fn append_each(
        &self,
        games: &mut dyn Iterator<Item = Result<ChessGame>>,
        each: Option<Each<'_>>,
    ) -> Result<Vec<u32>>;
    /// Set or clear the deleted mark of game `number`.
    fn set_deleted(&self, number: u32, deleted: bool) -> Result<()>;
    /// Notice changes another program made to the files since this store last read or wrote
    /// them, on a writable database as on a read-only one; true when the state was re-read
    /// since the last call (here, or by a change that caught up first: every change, replace,
    /// append and delete, first takes in what another program wrote and then applies itself on
    /// top, so a writable store never writes over bytes it did not write nor writes a file from
    /// a stale picture of it; docs/SEMANTICS.md §10a).
    fn reload_if_changed(&self) -> Result<bool>;
    /// What the last read of game `number` found that its text shows only in part (a
    /// ChessBase game whose moves stop before their end, shown as ChessBase shows it), handed
    /// over once, for `.gamefs/errors` and `gamefs check` to say; none for a game read whole.
    fn take_note(&self, _number: u32) -> Option<String> {
        None
    }
    /// A digest of everything game `number`'s text is made of (its index fields, the names
    /// it uses, its record's bytes): two equal digests mean the same text, whatever changed
    /// elsewhere in the database, so a size learnt once stays true for the game until the
    /// game itself changes. None when the game cannot be read, or the format has no digest.
    fn fingerprint(&self, number: u32) -> Option<u64> {
        let _ = number;
        None
    }
}

/// The digest [`ChessStore::fingerprint`] gives a game whose text is made of `headers` and
/// the record bytes `record`.
pub(crate) fn fingerprint_of(headers: &crate::game::Headers, record: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    // XXH3: the same digest in every process (sizes are kept per binary), and a fraction of
    // SipHash's time: a first read of the root's all.pgn checks every kept size by it, and
    // SipHash alone was a sixth of that check's time at ten million games.
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    headers.hash(&mut h);
    record.hash(&mut h);
    h.finish()
}

/// Game `number` (0-based) exists among `count`: the one "no game" error of every store.
pub fn check_game_number(number: u32, count: u32) -> Result<()> {
    if number < count {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::NotFound,
            format!("no game {}", number + 1),
        ))
    }
}

/// Game `number` exists among `count` and `damage` found nothing that makes it unreadable.
pub fn check_readable_game(damage: &damage::Damage, number: u32, count: u32) -> Result<()> {
    check_game_number(number, count)?;
    match damage.error_for(number, format_args!("game {}", number + 1)) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// SCID's numeric ECO code as text (`B20`, `B91a3`); `None` for 0 (no code).
pub fn eco_text(code: u16) -> Option<String> {
    if code == 0 {
        return None;
    }
    let v = u32::from(code) - 1;
    let ext = v % 131;
    let base = v / 131;
    let (letter, number) = (base / 100, base % 100);
    if letter > 4 {
        return None;
    }
    let mut s = format!("{}{number:02}", char::from(b'A' + letter as u8));
    if ext > 0 {
        let sub = (ext - 1) / 5;
        let digit = (ext - 1) % 5;
        s.push(char::from(b'a' + sub as u8));
        if digit > 0 {
            s.push(char::from(b'0' + digit as u8));
        }
    }
    Some(s)
}

/// What compaction did (`gamefs compact`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactReport {
    /// Games before.
    pub games_before: u32,
    /// Games kept (not deleted).
    pub games_after: u32,
    /// Bytes of the database files before.
    pub bytes_before: u64,
    /// Bytes of the database files after.
    pub bytes_after: u64,
}

/// The chess database formats: the two gamefs can create and write, and PGN files, which it
/// mounts read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// SCID 4 (.si4, .sn4, .sg4).
    Scid,
    /// SCID 5 (.si5, .sn5, .sg5).
    Scid5,
    /// Simple Chess Database (.dci, .dcn, .dcs, .dce, .dcg).
    SimpleCdb,
    /// A PGN file, plain or compressed (read-only: never created or written).
    PgnFile,
    /// A ChessBase database (.cbh, .cbg, …; read-only: never created or written).
    ChessBase,
}

impl Format {
    /// The format a new database's path suggests: any of the Simple Chess Database's file
    /// extensions means that format, a SCID 5 file extension SCID 5, anything else SCID 4.
    pub fn from_path(path: &std::path::Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if simplecdb::EXTENSIONS.contains(&ext) => Format::SimpleCdb,
            Some(ext) if scid::v5::EXTENSIONS.contains(&ext) => Format::Scid5,
            _ => Format::Scid,
        }
    }
}

/// Create an empty database of `format` at `path`.
pub fn create(path: &std::path::Path, format: Format) -> Result<()> {
    match format {
        Format::Scid => scid::create::create(path),
        Format::Scid5 => scid::create::create_as(path, scid::header::Layout::V5),
        Format::SimpleCdb => simplecdb::create(path),
        Format::PgnFile => Err(Error::new(
            ErrorKind::Unsupported,
            "gamefs does not create PGN files (it mounts them read-only)",
        )),
        Format::ChessBase => Err(Error::new(
            ErrorKind::Unsupported,
            "gamefs does not create ChessBase databases (it mounts them read-only)",
        )),
    }
}

/// Compact the database at `path` (whatever its format), as its own tools would.
pub fn compact(path: &std::path::Path) -> Result<CompactReport> {
    if scid::layout_at(path) == Some(scid::header::Layout::V400) {
        scid::compact::compact(path)
    } else if scid::layout_at(path) == Some(scid::header::Layout::V5) {
        scid::v5::compact::compact(path)
    } else if simplecdb::looks_like(path) {
        simplecdb::compact(path)
    } else {
        open(path, false)?;
        Err(crate::error::Error::new(
            crate::error::ErrorKind::Unsupported,
            "this format cannot be compacted",
        ))
    }
}

/// True when `path` names an existing database of a format gamefs knows.
pub fn exists(path: &std::path::Path) -> bool {
    scid::looks_like(path) || simplecdb::looks_like(path) || chessbase::looks_like(path)
}

/// The file extensions (lowercase) that start a database of several files: SCID 4's and
/// SCID 5's index, a Simple Chess Database's index, ChessBase's game headers.
const INDEX_EXTENSIONS: [&str; 4] = ["si4", "si5", "dci", "cbh"];

/// The length of the ending that makes a file named `name` a database to open: a PGN file's
/// (`.pgn.zst`, [`pgn::ENDINGS`]) or the index file's of a database of several files (`.si4`,
/// `.si5`, `.dci`, `.cbh`), as written in the name; `None` for any other file, or a name that is its
/// ending alone.
pub fn database_ending(name: &str) -> Option<usize> {
    let lower = name.to_ascii_lowercase();
    let pgn = pgn::ENDINGS.iter().find(|e| lower.ends_with(*e));
    let index = INDEX_EXTENSIONS
        .iter()
        .find(|e| lower.strip_suffix(*e).is_some_and(|s| s.ends_with('.')));
    let len = pgn.map(|e| e.len()).or(index.map(|e| e.len() + 1))?;
    (len < name.len()).then_some(len)
}

/// True when a file named `name` belongs to a database: a PGN file, or any file of a SCID 4,
/// SCID 5, Simple Chess Database or ChessBase database (what an archive's unpacking keeps).
pub fn is_database_file(name: &str) -> bool {
    let ext = name
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    database_ending(name).is_some()
        || (name.contains('.')
            && [
                &scid::EXTENSIONS[..],
                &scid::v5::EXTENSIONS,
                &simplecdb::EXTENSIONS,
                &chessbase::EXTENSIONS,
                &chessbase::OTHER_EXTENSIONS,
            ]
            .iter()
            .any(|exts| exts.contains(&ext.as_str())))
}

/// How to open a database: for writing, and whether saves may lose what the format cannot
/// hold (logged) instead of being refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Open for writing (and take the one-writer lock).
    pub writable: bool,
    /// Store what the format can hold and log each loss, instead of refusing such a save
    /// (`-o lossy`; only formats that can lose something use it: the Simple Chess Database).
    pub lossy: bool,
    /// Where a 9x9 Go database's files are, when not all in one folder (`-o positions=`,
    /// `-o zobrist=`, `-o scored=`).
    pub go_files: GoFiles,
    /// For a folder of databases opened as one: the database new games go to, by the name
    /// its games' files start with (`-o into=`).
    pub into: Option<String>,
}

/// Explicit paths of a 9x9 Go database's files (each defaults to what its folder holds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoFiles {
    /// The position file.
    pub positions: Option<PathBuf>,
    /// The zobrist table.
    pub zobrist: Option<PathBuf>,
    /// The scored-position files (all of them, when given).
    pub scored: Vec<PathBuf>,
}

/// Open the database at `path` (a base path or any of the format's files), recognising its
/// format, for reading or also for writing; saves that would lose data are refused.
pub fn open(path: &std::path::Path, writable: bool) -> Result<Arc<dyn ChessStore>> {
    open_with(
        path,
        &OpenOptions {
            writable,
            ..OpenOptions::default()
        },
    )
}

/// Open the database at `path` with `options`. SCID is recognised by its .si4 or .si5, the Simple
/// Chess Database by the magic bytes of its .dci. The message of a failure says what was
/// looked for.
pub fn open_with(path: &std::path::Path, options: &OpenOptions) -> Result<Arc<dyn ChessStore>> {
    let location = location::Location::parse(path);
    if let location::Location::Archive { path, .. } = &location {
        return open_archived(path, options);
    }
    if location.is_remote()
        && let Err(e) = blob::Blob::open(path)
        && (e.kind() != crate::error::ErrorKind::NotFound || path.extension().is_some())
    {
        // The object named is not there, or cannot be read (refused, unreachable): said as
        // the server says it, not as "no database".
        return Err(e);
    }
    if scid::looks_like(path) {
        return Ok(Arc::new(scid::ScidDatabase::open(path, options.writable)?));
    }
    if pgn::looks_like(path) {
        return Ok(Arc::new(pgn::PgnFile::open(
            path,
            options.writable,
            &|_, _| {},
        )?));
    }
    if simplecdb::looks_like(path) {
        return Ok(Arc::new(simplecdb::SimpleCdb::open(
            path,
            options.writable,
            options.lossy,
        )?));
    }
    if chessbase::looks_like(path) {
        return Ok(Arc::new(chessbase::ChessBase::open(
            path,
            options.writable,
        )?));
    }
    let base = scid::base_path(&simplecdb::base_path(path));
    Err(crate::error::Error::new(
        crate::error::ErrorKind::NotFound,
        format!(
            "no database at {}: expected a SCID 4 database ({0}.si4, {0}.sn4, {0}.sg4), a \
             SCID 5 database ({0}.si5, {0}.sn5, {0}.sg5), a Simple Chess Database ({0}.dci \
             starting with SimpleCDbi, .dcn, .dcs, .dce, .dcg), a ChessBase database ({0}.cbh, \
             .cbg, .cbp, .cbt…) or a PGN file (.pgn, .pgn.zst, .pgn.gz, .pgn.bz2, .pgn.xz) or \
             an archive holding one (.zip, .7z, .tar…)",
            base.display()
        ),
    ))
}

/// The one database archive `path` holds ([`archive::unpack`]), read-only (`gamefs export`,
/// `info`, `check` of a TWIC zip); an archive holding several is mounted, as one tree.
fn open_archived(path: &std::path::Path, options: &OpenOptions) -> Result<Arc<dyn ChessStore>> {
    if options.writable {
        return Err(Error::new(
            ErrorKind::ReadOnly,
            format!(
                "{}: an archive is only read (its databases are unpacked copies in the cache \
                 folder); unpack it to write into what it holds",
                path.display()
            ),
        ));
    }
    let unpacked = archive::unpack(path).map_err(|e| e.context(path.display()))?;
    match unpacked.databases.as_slice() {
        [only] => open_with(only, options),
        databases => Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "{}: holds {} databases, not one: mount it to see them as one tree",
                path.display(),
                databases.len()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eco_codes_from_the_spec() {
        assert_eq!(eco_text(0), None);
        assert_eq!(eco_text(1).as_deref(), Some("A00"));
        assert_eq!(eco_text(15721).as_deref(), Some("B20"));
        assert_eq!(eco_text(64191).as_deref(), Some("E90"));
        assert_eq!(eco_text(25026).as_deref(), Some("B91a3"));
        assert_eq!(eco_text(65500).as_deref(), Some("E99z4"));
        assert_eq!(eco_text(65535), None);
    }
}
