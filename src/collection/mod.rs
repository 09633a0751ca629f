//! What the file tree needs from a database, whatever the game: numbered items, each shown as
//! one text file, grouped into views, saved back from text.
//!
//! Each kind of database (chess via [`chess::ChessCollection`], Go positions) implements
//! [`Collection`] by joining its store (binary format) with its text format (PGN, SGF). The
//! tree in `vfs/` knows only this trait, so one tree, one set of editing rules and one set of
//! errors serve every format.

pub mod chess;
pub mod go;
mod held;
pub mod import;
pub(crate) mod naming;
pub mod positions;
pub mod query;
pub mod twins;
pub mod union;

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::store::{self, Problem, StoreInfo};
use crate::text::DoneWith;

/// Open the database at `path` (any format gamefs knows, recognised by its files) as a
/// collection, as `options` say (writable, lossy); a folder that is no database itself
/// opens as the chess databases it holds, shown as one ([`union`]), and an archive as the
/// databases it holds, read-only ([`union::open_archive`]).
pub fn open(path: &Path, options: &store::OpenOptions) -> Result<Arc<dyn Collection>> {
    if let store::location::Location::Archive { path, .. } = store::location::Location::parse(path)
    {
        return union::open_archive(&path, options);
    }
    if opens_as_go(path, options) {
        let go = &options.go_files;
        let db = store::go9x9::Go9Database::open_with(&store::go9x9::Go9Options {
            dir: Some(path.to_path_buf()),
            positions: go.positions.clone(),
            zobrist: go.zobrist.clone(),
            scored: (!go.scored.is_empty()).then(|| go.scored.clone()),
            writable: options.writable,
            ..store::go9x9::Go9Options::default()
        })?;
        return Ok(Arc::new(go::GoCollection::new(db)));
    }
    if is_folder_of_databases(path, options) {
        return Ok(Arc::new(union::open_folder(path, options)?));
    }
    let store = store::open_with(path, options)?;
    Ok(Arc::new(chess::ChessCollection::new(store)))
}

/// One database of a folder mounted as one ([`union`]), as `.gamefs/stats` shows it.
#[derive(Clone, Debug)]
pub struct MemberStats {
    /// The name its games' files start with.
    pub name: String,
    /// Its format and files (for a file that did not open, its path alone).
    pub info: StoreInfo,
    /// Its items, deleted ones included.
    pub count: u32,
    /// Its items marked deleted.
    pub deleted: u32,
    /// True when saving into it is possible.
    pub writable: bool,
    /// How many problems it has.
    pub problems: usize,
    /// Why the file is not mounted, when it did not open.
    pub skipped: Option<String>,
}

impl MemberStats {
    /// The figures of `coll`, shown as `name`.
    pub fn of(name: &str, coll: &dyn Collection) -> MemberStats {
        let count = coll.count();
        MemberStats {
            name: name.to_owned(),
            info: coll.info(),
            count,
            deleted: (0..count).filter(|&n| coll.deleted(n)).count() as u32,
            writable: coll.writable(),
            problems: coll.problems().len(),
            skipped: None,
        }
    }

    /// The file at `path`, shown as `name`, which did not open because of `why`.
    pub fn skipped(name: &str, path: &Path, why: &Error) -> MemberStats {
        MemberStats {
            name: name.to_owned(),
            info: StoreInfo {
                format: String::new(),
                files: vec![path.to_path_buf()],
                modified: std::time::UNIX_EPOCH,
            },
            count: 0,
            deleted: 0,
            writable: false,
            problems: 0,
            skipped: Some(why.to_string()),
        }
    }
}

/// True when [`open`] opens `path` as a 9x9 Go database: a folder holding the zobrist
/// table, or any path when `options` name the Go files.
fn opens_as_go(path: &Path, options: &store::OpenOptions) -> bool {
    let go = &options.go_files;
    is_go_database(path) || go.positions.is_some() || go.zobrist.is_some()
}

/// True when [`open`] opens `path` as a folder of databases shown as one ([`union`]): a
/// folder that is no database itself (neither a 9x9 Go database nor the base path of a SCID
/// or Simple Chess Database).
pub fn is_folder_of_databases(path: &Path, options: &store::OpenOptions) -> bool {
    (path.is_dir() || store::blob::is_remote_folder(path))
        && !opens_as_go(path, options)
        && !store::exists(path)
}

/// A 9x9 Go position database is a folder holding the zobrist table.
fn is_go_database(path: &Path) -> bool {
    path.is_dir() && path.join(store::go9x9::ZOBRIST_FILE).is_file()
}

/// A database seen as a collection of numbered text files.
///
/// Item numbers are 0-based and stable for the life of a mount; an item that goes away
/// (deleted) keeps its number.
pub trait Collection: Send + Sync {
    /// The folder that holds one file per item (`games`).
    fn items_folder(&self) -> &'static str;
    /// The extension of item files, without the dot (`pgn`).
    fn extension(&self) -> &'static str;
    /// True when deleted items stay in the files with a mark (shown under `.deleted/`).
    fn has_delete_mark(&self) -> bool;
    /// Facts about the database files.
    fn info(&self) -> StoreInfo;
    /// True when saving is possible.
    fn writable(&self) -> bool;
    /// Number of item numbers in use (deleted items included).
    fn count(&self) -> u32;
    /// True when item `n` is deleted.
    fn deleted(&self, n: u32) -> bool;
    /// How many items are marked deleted (`.gamefs/stats` tells it on every read).
    fn deleted_count(&self) -> u32 {
        (0..self.count()).filter(|&n| self.deleted(n)).count() as u32
    }
    /// The file name of item `n` (with the extension).
    fn file_name(&self, n: u32) -> String;
    /// How reports name item `n`: `game 12` for chess, the file for a Go position.
    fn item_label(&self, n: u32) -> String;
    /// What is wrong with the database, as found when it was opened (or last re-read); an
    /// item listed as unreadable fails to [`render`](Collection::render) with its problem.
    fn problems(&self) -> Vec<Problem>;
    /// The item a file name refers to, if any (any name the collection accepts for it).
    fn item_named(&self, name: &[u8]) -> Option<u32>;
    /// The grouped views: folder paths relative to the root, one or two components
    /// (`players`, `scores/fuego_chinese`).
    fn views(&self) -> Vec<String>;
    /// The groups of view `view` that item `n` belongs to (group keys).
    fn view_keys(&self, view: usize, n: u32) -> Vec<u32>;
    /// Every (group key, item) pair of view `view` over the live items, items ascending and
    /// each item's pairs in the order [`view_keys`](Collection::view_keys) gives them: what a
    /// view folder is built from, in one pass (collections override it to read each index
    /// entry once).
    fn view_members(&self, view: usize) -> Vec<(u32, u32)> {
        (0..self.count())
            .filter(|&n| !self.deleted(n))
            .flat_map(|n| self.view_keys(view, n).into_iter().map(move |key| (key, n)))
            .collect()
    }
    /// How many groups view `view` has (the distinct keys of its
    /// [`view_members`](Collection::view_members)), without gathering them: `.gamefs/stats`
    /// tells it of views whose folders were not visited, whose tables would take 256 MiB at
    /// ten million games (collections override it to count in a bit a key).
    fn view_group_count(&self, view: usize) -> usize {
        let mut keys: Vec<u32> = self
            .view_members(view)
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    }
    /// The folder label of group `key` of view `view`, before it is made safe.
    fn view_label(&self, view: usize, key: u32) -> String;
    /// True when view `view` groups items by the players of both sides (chess's `players/`):
    /// [`view_keys`](Collection::view_keys) then gives White's group first and Black's
    /// second (one group when they are the same), and each group folder has the games of
    /// each colour apart (`white/`, `black/`).
    fn view_has_sides(&self, view: usize) -> bool {
        let _ = view;
        false
    }
    /// The text of item `n`.
    fn render(&self, n: u32) -> Result<Vec<u8>>;
    /// The text of item `n` appended to `out`: an all-file renders many items into one
    /// buffer rather than one buffer each. On an error `out` is left as it was.
    fn render_into(&self, n: u32, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(&self.render(n)?);
        Ok(())
    }
    /// What rendering item `n` found that its text shows only in part
    /// ([`crate::store::ChessStore::take_note`]), handed over once; none for most.
    fn take_note(&self, _n: u32) -> Option<String> {
        None
    }
    /// Whether item `n` reads whole (`gamefs check`): it renders, and a text served as its
    /// source holds it (a PGN file's game whose moves do not replay fails here, not when its
    /// file is read).
    fn check(&self, n: u32) -> Result<()> {
        self.render(n).map(drop)
    }
    /// The sizes of the items' texts the database knows without rendering (a PGN file's
    /// index), item by item (`None` for an item whose size it does not know so): `stat` of
    /// such a file then reads nothing. `None` when it knows none.
    fn known_sizes(&self) -> Option<Vec<Option<u64>>> {
        None
    }
    /// Store `text` as the new content of item `n`; false when nothing changed.
    fn save(&self, n: u32, text: &[u8]) -> Result<bool>;
    /// Store the items in `text` as new items: those the format can hold, the others left out
    /// and reported, or all or nothing, as `on_bad` says. The parts of `text` not needed in
    /// memory now go to `done_with` (a collection may tell none; a part told may be read
    /// again).
    fn import(
        &self,
        text: &[u8],
        on_bad: import::OnBadGame,
        done_with: DoneWith<'_>,
    ) -> Result<import::ImportReport>;
    /// Mark item `n` deleted, or bring it back.
    fn set_deleted(&self, n: u32, deleted: bool) -> Result<()>;
    /// Notice changes another program made to the database, writable or read-only; true if
    /// re-read since the last call (here, or by a change that caught up first: see
    /// [`store::ChessStore::reload_if_changed`]).
    fn reload_if_changed(&self) -> Result<bool>;
    /// A digest of everything item `n`'s text is made of: equal digests, equal texts (see
    /// [`store::ChessStore::fingerprint`]). Sizes kept between mounts are keyed by it. None
    /// when the item cannot be read.
    fn fingerprint(&self, n: u32) -> Option<u64>;
    /// Item `n`'s main line as the position index needs it ([`positions`]): each position it
    /// reaches and the move played there, with its result, ratings and year. `None` for a
    /// collection whose items are not chess games.
    fn main_line(&self, n: u32) -> Option<Result<positions::line::GameLine>> {
        let _ = n;
        None
    }
    /// The FEN of item `n`'s entry into any of the endings `codes`: the first position of its
    /// main line with that material ([`positions::material::EntryFinder`]); `None` when it has
    /// none, or the items are not chess games.
    fn ending_entry(&self, n: u32, codes: &[u32]) -> Result<Option<String>> {
        let _ = (n, codes);
        Ok(None)
    }
    /// The live items meeting header query `query`'s conditions on their headers, ascending
    /// ([`query`]; its conditions on endings are the position index's,
    /// [`query::Query::materials`]), read from `index`
    /// ([`header_index`](Collection::header_index)) but for the items `changed` since it was
    /// made (ascending) and those past its count, checked one by one; `None` for a collection
    /// whose items have no headers to search (Go positions).
    fn query(
        &self,
        query: &query::Query,
        index: Option<&query::HeaderIndex>,
        changed: &[u32],
    ) -> Option<Vec<u32>> {
        let _ = (query, index, changed);
        None
    }
    /// The header index of the items ([`query::HeaderIndex`]), made now from the store's
    /// index, for the files stamped `stamp`; `None` for a collection without one (Go
    /// positions, a folder of databases: its members' queries scan).
    fn header_index(&self, stamp: u64) -> Option<query::HeaderIndex> {
        let _ = stamp;
        None
    }
    /// True when the items are chess games, whose positions the mount shows (`tree/`,
    /// `positions/`) from [`main_line`](Collection::main_line).
    fn has_positions(&self) -> bool {
        false
    }
    /// True when the mount shows the items' twins (`twins/`, [`twins`](Collection::twins)):
    /// one chess database.
    fn has_twins(&self) -> bool {
        false
    }
    /// The twin games of the live items, as SCID's twin detection finds them ([`twins`]);
    /// `None` for a collection that does not look for twins.
    fn twins(&self) -> Option<twins::Twins> {
        None
    }
    /// The twins of the live items once items `changed` (ascending) changed, the twins
    /// before being `before`: [`twins`](Collection::twins) of the items as they are now,
    /// found again only where they changed ([`twins::update`]).
    fn twins_after(&self, before: &twins::Twins, changed: &[u32]) -> Option<twins::Twins> {
        let _ = (before, changed);
        self.twins()
    }
    /// For a folder of databases mounted as one ([`union`]), each database (and each file
    /// that did not open), as `.gamefs/stats` lists them; empty for one database.
    fn members(&self) -> Vec<MemberStats> {
        Vec::new()
    }
    /// For a folder of databases mounted as one ([`union`]), the database item `n` is in (its
    /// place in [`members`](Collection::members)) and its number there: what a mount keeps
    /// of each game is kept per database, as when each is mounted alone. `None` for one
    /// database.
    fn member_of(&self, n: u32) -> Option<(usize, u32)> {
        let _ = n;
        None
    }
}
