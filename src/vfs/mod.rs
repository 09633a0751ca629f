//! The file tree gamefs shows: folders, file names, inode numbers, attributes and file text,
//! and what saving, creating, renaming and deleting files does.
//!
//! This layer knows nothing of fuser; the adapter in `fuse.rs` forwards kernel calls here.
//! Layout (see docs/guide/mounting.md): `games/` holds one PGN file per live game, `.deleted/` the games marked
//! deleted, `players/`, `events/`, `sites/`, `years/`, `eco/` group the games as relative
//! symlinks into `games/`, and `.gamefs/` reports errors. The write side is in `write` and
//! `commit`; docs/SEMANTICS.md says what each operation does to the database.

pub(crate) mod acknowledged;
pub(crate) mod broken;
pub(crate) mod cache;
pub(crate) mod commit;
pub(crate) mod concat;
pub mod content;
pub(crate) mod ending_entries;
pub(crate) mod endings;
pub(crate) mod found;
pub(crate) mod game_state;
pub(crate) mod inode;
pub mod kept_games;
pub mod positions;
#[cfg(test)]
mod posix_tests;
pub(crate) mod queries;
pub(crate) mod saving;
pub(crate) mod scratch;
pub mod size_fill;
pub mod slices;
pub(crate) mod space;
pub(crate) mod status;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod twins;
#[cfg(test)]
mod union_tests;
pub(crate) mod unsupported;
pub(crate) mod views;
pub(crate) mod write;

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, RwLock};
use std::time::SystemTime;

use broken::Broken;
use cache::TextCache;
pub use inode::{Node, View};
use scratch::{ScratchKind, ScratchStore};
use slices::SliceId;
use status::{Counters, ErrorLog, Snapshots};
use views::ViewTable;

use crate::collection::Collection;
use crate::collection::import::OnBadGame;
use crate::error::{Error, ErrorKind, Result};

/// The kind of a node, as `stat` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A folder.
    Directory,
    /// A regular file (a game's text, a scratch file, a status file).
    RegularFile,
    /// A symbolic link (view entries, scratch symlinks).
    Symlink,
}

/// The attributes of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr {
    /// Inode number.
    pub ino: u64,
    /// Kind of node.
    pub kind: FileKind,
    /// Size in bytes: exactly what `read` returns for files, the target length for links.
    pub size: u64,
    /// Permission bits.
    pub perm: u16,
    /// Link count: 1 for files and links (0 once an open scratch file lost its name), 2 plus
    /// the number of subfolders for folders, as `find` expects.
    pub nlink: u32,
    /// Access time (gamefs does not track reads: the modification time, unless set).
    pub atime: SystemTime,
    /// Modification time.
    pub mtime: SystemTime,
    /// Change time.
    pub ctime: SystemTime,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// How long the kernel may trust these attributes, in seconds.
    pub ttl_secs: u64,
    /// The generation of the inode number ([`Node::generation`]): with the number, what a
    /// file handle names.
    pub generation: u32,
}

/// One entry of a folder listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's inode number.
    pub ino: u64,
    /// Its kind.
    pub kind: FileKind,
    /// Its name.
    pub name: OsString,
    /// The offset to resume a listing after this entry.
    pub next: u64,
}

/// Settings of a mounted tree.
#[derive(Clone, Debug)]
pub struct VfsOptions {
    /// Owner reported for every node.
    pub uid: u32,
    /// Group reported for every node.
    pub gid: u32,
    /// Budget for rendered text kept in memory.
    pub cache_bytes: usize,
    /// What an import of a copied file does with a game the database cannot hold.
    pub on_bad: OnBadGame,
    /// How many plies deep `tree/` has move folders (`-o tree_depth`).
    pub tree_depth: u32,
    /// Where the position index is kept (`None`: in memory only).
    pub position_index: Option<std::path::PathBuf>,
    /// `tree/` and `positions/` are made, over a position index (`-o tree=off`: false).
    pub tree: bool,
    /// The most the kept indexes of the position index's folder take (`-o cache_max`).
    pub cache_max: u64,
    /// What `.gamefs/stats` names the database when its files are not where the user named
    /// it (an archive, whose databases are copies in the cache folder): the archive's path or
    /// URL. `None`: the database's own files (or their folder) name it.
    pub named: Option<std::path::PathBuf>,
}

impl Default for VfsOptions {
    fn default() -> VfsOptions {
        // SAFETY: getuid/getgid have no preconditions and cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        VfsOptions {
            uid,
            gid,
            cache_bytes: 64 << 20,
            on_bad: OnBadGame::default(),
            tree_depth: positions::DEFAULT_TREE_DEPTH,
            position_index: None,
            tree: true,
            cache_max: crate::store::cache_folder::DEFAULT_MAX,
            named: None,
        }
    }
}

/// Tells the kernel that cached names, attributes or data are stale. The FUSE adapter
/// implements it; the tree calls it after every change to the database.
pub trait Invalidator: Send + Sync {
    /// Drop cached attributes and data of `ino`.
    fn inval_inode(&self, ino: u64);
    /// Drop the cached name `name` in folder `parent`.
    fn inval_entry(&self, parent: u64, name: &OsStr);
}

/// Listing offsets at and above this are scratch entries (below: the folder's own entries).
const SCRATCH_OFFSETS: u64 = 1 << 40;

/// A game file opened for writing: the text being edited, shared by all its handles.
#[derive(Debug)]
struct Draft {
    data: Vec<u8>,
    dirty: bool,
    /// Written (or truncated by ftruncate) since it was opened, not only emptied by O_TRUNC.
    written: bool,
    /// The save of this text was refused (or failed) and nothing was written since: readers
    /// are served the stored game, as the save left it, while the writer may still write on
    /// and save again. The kernel sends the writer's RELEASE (which lets go of the draft)
    /// after its close returned, so without this a read right after a refused save would
    /// see the refused text.
    refused: bool,
    open: u32,
}

impl Draft {
    /// Note a change to the text: it is to be saved, and no longer the refused one.
    fn changed(&mut self) {
        self.dirty = true;
        self.refused = false;
    }

    /// The text readers are served while the draft is open: none (the stored game's) after
    /// a refused save.
    fn readable(&self) -> Option<&[u8]> {
        (!self.refused).then_some(self.data.as_slice())
    }
}

/// What an open file handle refers to.
#[derive(Clone, Copy, Debug)]
struct Handle {
    node: Node,
    append: bool,
    /// Opened for writing: only such handles hold a game's draft open.
    write: bool,
    /// Where its writer is: just opened, written since its last flush, or flushed since.
    stage: Stage,
    /// The process (thread id, as the kernel reports it) that last wrote through this
    /// handle: a flush from any other process is a copy of the descriptor being closed.
    last_writer: Option<u32>,
}

/// Where a handle's writer is in its save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Opened, nothing written or flushed yet: its writer is at work (a truncation by path
    /// now is the kernel's of an `O_TRUNC` open).
    Opened,
    /// Written since its last flush: only then does its close save. A writer's close arrives
    /// late (the kernel sends it asynchronously), possibly after the same program opened the
    /// file again to save anew.
    Written,
    /// Its writer closed a descriptor of it (or synced) since it last wrote: it may be only
    /// waiting for the kernel's late RELEASE.
    Flushed,
}

/// How a file is opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenMode {
    /// Opened for writing.
    pub write: bool,
    /// O_TRUNC.
    pub truncate: bool,
    /// O_APPEND.
    pub append: bool,
}

/// The answer to an open: the handle and how the kernel should cache the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The file handle to pass back on later calls.
    pub fh: u64,
    /// The kernel may keep cached pages from earlier opens.
    pub keep_cache: bool,
    /// Bypass the page cache (files whose size can change without notice).
    pub direct_io: bool,
}

/// The tree of one mounted database.
pub struct Vfs {
    coll: Arc<dyn Collection>,
    options: VfsOptions,
    /// The view folder paths (`players`, `scores/fuego_chinese`), by view index.
    view_paths: Vec<String>,
    views: Vec<RwLock<Option<Arc<ViewTable>>>>,
    /// How many groups each view has, counted without making its table ([`Vfs::view_count`]),
    /// with the number of [`Vfs::reset_views`] calls it was counted after.
    view_counts: Mutex<Vec<Option<(u64, usize)>>>,
    /// How often the views were reset: a count taken before the last reset is not used.
    views_reset: AtomicU64,
    cache: TextCache,
    /// Each game's modification time, and the sizes and times earlier mounts kept
    /// ([`kept_games`]), each used once its game's fingerprint is checked.
    states: game_state::GameStates,
    /// The layouts of the folders' `all.pgn` files being read.
    all_files: concat::AllFiles,
    scratch: Mutex<ScratchStore>,
    /// Signalled when a scratch file's save ends (writes to it wait meanwhile).
    scratch_idle: Condvar,
    drafts: Mutex<HashMap<u32, Draft>>,
    /// Games renamed away (to a scratch name) and not yet written back.
    hidden: Mutex<HashSet<u32>>,
    /// Games saved during this mount (their cached pages must not be kept).
    saved: Mutex<HashSet<u32>>,
    handles: Mutex<HashMap<u64, Handle>>,
    /// Texts of items removed while open, in a format without a delete mark (Go): their open
    /// handles keep reading them, as an unlinked file stays readable (until the last close).
    orphans: Mutex<HashMap<u32, Arc<[u8]>>>,
    next_fh: AtomicU64,
    /// When the database files were last checked for outside changes (seconds since the epoch).
    last_check: AtomicU64,
    /// When an outside change was last taken in (seconds since the epoch): until the second
    /// after, the kernel keeps no folder's listing, whichever call noticed the change (its
    /// invalidations are sent from a thread of their own and may come after a listing).
    last_outside_change: AtomicU64,
    /// The saves this mount acknowledged, watched for another program writing over them.
    acknowledged: Mutex<acknowledged::Acknowledged>,
    errors: ErrorLog,
    /// Items known to be unreadable (logged once).
    broken: Broken,
    counters: Counters,
    /// What each `.gamefs/` file said when last looked at.
    status_snapshots: Snapshots,
    invalidator: OnceLock<Box<dyn Invalidator>>,
    /// The generation of item numbers and name IDs ([`inode::numbering_generation`]), taken
    /// when the database was opened or last re-read.
    numbering: AtomicU32,
    /// The generation of scratch numbers ([`inode::mount_generation`]).
    mount_generation: u32,
    /// `tree/` and `positions/` (a collection of chess games only).
    positions: Option<Arc<positions::Positions>>,
    /// The header queries looked up (`query/EXPR/`).
    queries: queries::Queries,
    /// The twin games (`twins/`), found when first asked for.
    twins: twins::TwinsSlot,
    /// The header index the queries read (`query/`), found when first asked for.
    headers: Arc<found::FoundSlot<crate::collection::query::HeaderIndex>>,
    /// The games changed through the mount since the header index was let go of, ascending:
    /// it goes on answering for the others ([`Vfs::headers_changed`]).
    header_changes: Mutex<Vec<u32>>,
}

/// How many of a database's problems a mount logs and lists in `.gamefs/errors` (`gamefs
/// check` lists them all).
const LOGGED_PROBLEMS: usize = 100;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Vfs {
    /// A tree over `coll` (writable when the collection is).
    pub fn new(coll: Arc<dyn Collection>, options: VfsOptions) -> Vfs {
        let count = coll.count();
        let mut view_paths = coll.views();
        view_paths.truncate(inode::MAX_VIEWS);
        let vfs = Vfs {
            cache: TextCache::new(count, options.cache_bytes),
            states: game_state::GameStates::new(coll.info().modified),
            all_files: concat::AllFiles::default(),
            views: view_paths.iter().map(|_| RwLock::new(None)).collect(),
            view_counts: Mutex::new(vec![None; view_paths.len()]),
            views_reset: AtomicU64::new(0),
            view_paths,
            scratch: Mutex::default(),
            scratch_idle: Condvar::new(),
            drafts: Mutex::default(),
            hidden: Mutex::default(),
            saved: Mutex::default(),
            handles: Mutex::default(),
            orphans: Mutex::default(),
            next_fh: AtomicU64::new(1),
            last_check: AtomicU64::new(0),
            last_outside_change: AtomicU64::new(0),
            acknowledged: Mutex::default(),
            errors: ErrorLog::default(),
            broken: Broken::default(),
            counters: Counters::default(),
            status_snapshots: Snapshots::default(),
            invalidator: OnceLock::new(),
            numbering: AtomicU32::new(numbering_of(&*coll)),
            mount_generation: inode::mount_generation(),
            positions: (coll.has_positions() && options.tree).then(|| {
                let index = crate::collection::positions::PositionIndex::new(
                    options.position_index.clone(),
                );
                Arc::new(positions::Positions::new(
                    Arc::new(index),
                    coll.clone(),
                    options.tree_depth,
                ))
            }),
            queries: queries::Queries::default(),
            twins: twins::TwinsSlot::default(),
            headers: Arc::default(),
            header_changes: Mutex::default(),
            coll,
            options,
        };
        vfs.note_problems();
        if let Some(sizes) = vfs.coll.known_sizes() {
            vfs.cache.set_known_sizes(sizes);
        }
        vfs
    }

    /// Log what is wrong with the database (found when it was opened or re-read) and list it
    /// in `.gamefs/errors`, once per problem; remember the unreadable items, so reading them
    /// fails at once and is not logged again.
    fn note_problems(&self) {
        self.broken.clear();
        // The database's own problems name their file in the message.
        let database = "database";
        let mut reported = 0;
        let mut left_out = 0;
        for p in self.coll.problems() {
            let what = p
                .item
                .map_or(database.to_owned(), |n| self.coll.item_label(n));
            if let (Some(n), true) = (p.item, p.unreadable) {
                self.broken
                    .remember(n, &Error::corrupt_record(format!("{what}: {}", p.message)));
            }
            if !self.broken.first_time(&p) {
                continue;
            }
            if reported < LOGGED_PROBLEMS {
                self.errors.record(&what, &p.message);
                reported += 1;
            } else {
                left_out += 1;
            }
        }
        if left_out > 0 {
            self.errors.record(
                database,
                &format!(
                    "{left_out} more problems are not listed here; `gamefs check` lists them all"
                ),
            );
        }
    }

    /// Connect the kernel-cache invalidation (once the session exists).
    pub fn set_invalidator(&self, invalidator: Box<dyn Invalidator>) {
        let _ = self.invalidator.set(invalidator);
    }

    /// The collection behind the tree.
    pub fn collection(&self) -> &dyn Collection {
        &*self.coll
    }

    /// True when saving is possible.
    pub fn writable(&self) -> bool {
        self.coll.writable()
    }

    /// The node an inode number names, or ENOENT.
    pub fn node(&self, ino: u64) -> Result<Node> {
        let node = Node::from_ino(ino).ok_or_else(|| not_found(format!("no inode {ino}")))?;
        let valid = match node {
            Node::Game(n) => n < self.coll.count(),
            Node::ViewRoot(v) | Node::ViewParent(v) => usize::from(v.0) < self.view_paths.len(),
            Node::Group(v, key) | Node::AllOfGroup(v, key) => self.view(v).by_key(key).is_some(),
            Node::Link(v, key, n) => self.group_has(v, key, n),
            Node::SideGroup(v, key, side) | Node::AllOfSide(v, key, side) => {
                self.slice_exists(SliceId::Side(v, key, side))
            }
            Node::SideLink(v, key, side, n) => self
                .side_games(v, key, side)
                .is_some_and(|games| games.binary_search(&n).is_ok()),
            Node::PositionsRoot => self.positions.is_some(),
            Node::SlicePositions(slice) => self.positions.is_some() && self.slice_exists(slice),
            Node::Position(id)
            | Node::PositionGames(id)
            | Node::TreeText(id)
            | Node::FenText(id)
            | Node::AllOfPosition(id) => self.position_exists(id),
            Node::PositionLink(id, n) => n < self.coll.count() && self.position_exists(id),
            Node::QueryRoot => self.has_queries(),
            Node::Query(id)
            | Node::QueryGames(id)
            | Node::QueryCount(id)
            | Node::AllOfQuery(id) => self.queries.get(id).is_some(),
            Node::QueryLink(id, n) => self.query_has(id, n),
            Node::QueryEntries(id) => self.entry_codes(id).is_some(),
            Node::QueryEntry(id, n) => self.entry_codes(id).is_some() && self.query_has(id, n),
            Node::TwinsRoot | Node::TwinGroup(_) | Node::TwinLink(..) => {
                self.twin_node_exists(node)
            }
            Node::EndingsRoot => self.has_endings(),
            Node::EndingLink(code) => self.ending_exists(code),
            Node::Scratch(id) => {
                let scratch = lock(&self.scratch);
                if scratch.get(id).is_some() {
                    true
                } else if let Some(n) = scratch.game_it_became(id) {
                    drop(scratch);
                    return self.node(Node::Game(n).ino());
                } else {
                    false
                }
            }
            _ => true,
        };
        if valid {
            Ok(node)
        } else {
            Err(not_found(format!("inode {ino} is gone")))
        }
    }

    /// Find `name` in the folder `parent`. `.` and `..` come only from the kernel's export
    /// support (NFS), for a file handle whose inode it no longer caches: `.` is `parent` itself
    /// (a file or a folder), `..` the folder holding folder `parent`.
    pub fn lookup(&self, parent: u64, name: &OsStr) -> Result<Attr> {
        // At most once a second: another program's change shows at the next lookup (a
        // read-only mount's files are opened by the kernel alone, so a path's lookup is
        // where `cat query/…/count` reaches the mount).
        self.notice_outside_changes();
        let node = match name.as_bytes() {
            b"." => self.by_number(parent)?,
            b".." => self.parent_folder(self.node(parent)?)?,
            _ => self
                .child(parent, name)?
                .ok_or_else(|| not_found(format!("no entry {}", name.to_string_lossy())))?,
        };
        if matches!(node, Node::Game(_)) {
            Counters::bump(&self.counters.game_lookups, 1);
        }
        self.check_readable(node)?;
        Ok(self.attr(node, true))
    }

    /// The node inode number `ino` names, if it still names that node: not a scratch file
    /// that became a game (the game has its own number) nor an item removed for good (a Go
    /// position: a format without a delete mark). A game marked deleted is found: it is the
    /// same file, now in `.deleted/`.
    fn by_number(&self, ino: u64) -> Result<Node> {
        let node = self.node(ino)?;
        let removed = node.ino() != ino
            || matches!(node, Node::Game(n) if self.coll.deleted(n) && !self.coll.has_delete_mark());
        if removed {
            return Err(not_found(format!("inode {ino} is gone")));
        }
        Ok(node)
    }

    /// The folder holding folder `node` (the root for the root).
    fn parent_folder(&self, node: Node) -> Result<Node> {
        Ok(match node {
            Node::Root | Node::Games | Node::Deleted | Node::Status | Node::ViewParent(_) => {
                Node::Root
            }
            Node::ViewRoot(v) => self.view_parent_of(v).unwrap_or(Node::Root),
            Node::Group(v, _) => Node::ViewRoot(v),
            Node::SideGroup(v, key, _) => Node::Group(v, key),
            Node::Rejected => Node::Status,
            Node::PositionsRoot | Node::QueryRoot => Node::Root,
            Node::Query(_) => Node::QueryRoot,
            Node::QueryGames(id) | Node::QueryEntries(id) => Node::Query(id),
            Node::SlicePositions(slice) => slice.folder(),
            Node::Position(id) => self
                .positions
                .as_ref()
                .and_then(|p| p.parent(id))
                .unwrap_or(Node::Root),
            Node::PositionGames(id) => Node::Position(id),
            Node::TwinsRoot | Node::EndingsRoot => Node::Root,
            Node::TwinGroup(_) => Node::TwinsRoot,
            Node::Game(_)
            | Node::TwinLink(..)
            | Node::EndingLink(_)
            | Node::Link(..)
            | Node::StatusErrors
            | Node::StatusReadme
            | Node::StatusStats
            | Node::AllGames
            | Node::AllOfGroup(..)
            | Node::AllOfPosition(_)
            | Node::PositionLink(..)
            | Node::TreeText(_)
            | Node::FenText(_)
            | Node::SideLink(..)
            | Node::AllOfSide(..)
            | Node::QueryLink(..)
            | Node::QueryCount(_)
            | Node::QueryEntry(..)
            | Node::AllOfQuery(_)
            | Node::Scratch(_) => {
                return Err(Error::new(ErrorKind::NotADirectory, "not a folder"));
            }
        })
    }

    /// On a read-only mount the kernel opens files itself, learning only their size from
    /// `lookup` and `getattr`: a game that cannot be rendered fails there with its error
    /// (EIO), or it would read as an empty file. (A writable mount fails at `open`, so the
    /// game can still be saved over.) A game whose size is known rendered before: readable.
    fn check_readable(&self, node: Node) -> Result<()> {
        if let Node::Game(n) = node
            && !self.writable()
            && self.known_size(n).is_none()
        {
            self.size_by_rendering(n)?;
        }
        Ok(())
    }

    /// Game `n`'s size, learnt by rendering it for a reader that waits for it (a `stat` of a
    /// game the background fill has not reached yet): the fill is told, to go on past it.
    fn size_by_rendering(&self, n: u32) -> Result<u64> {
        self.cache.note_waited_for(n);
        Ok(self.text(n)?.len() as u64)
    }

    /// The node called `name` in folder `parent`, if any (ENOTDIR if `parent` is no folder).
    fn child(&self, parent: u64, name: &OsStr) -> Result<Option<Node>> {
        let parent_node = self.node(parent)?;
        if !is_dir(parent_node) {
            return Err(Error::new(ErrorKind::NotADirectory, "not a folder"));
        }
        if let Some(id) = lock(&self.scratch).find(parent, name) {
            return Ok(Some(Node::Scratch(id)));
        }
        if name.as_encoded_bytes() == concat::file_name(self.coll.extension()).as_bytes()
            && let Some(all) = self.all_file_of(parent_node)
        {
            return Ok(Some(all));
        }
        if let Some(slice) = SliceId::of_folder(parent_node)
            && let Some(found) = self.slice_child(slice, name.as_bytes())?
        {
            return Ok(Some(found));
        }
        Ok(match parent_node {
            Node::Root if name == "query" && self.has_queries() => Some(Node::QueryRoot),
            // Found by name, as `tree/` and `query/`: walks of the mount do not wait for the
            // position index.
            Node::Root if name == "endings" && self.has_endings() => Some(Node::EndingsRoot),
            Node::Root => self.root_child(name),
            Node::QueryRoot => self.query_named(name.as_bytes())?,
            Node::Query(id) => self.query_child(id, name.as_bytes()),
            Node::QueryGames(id) => self.query_link(id, name.as_bytes()),
            Node::QueryEntries(id) => self.entry_named(id, name.as_bytes()),
            Node::PositionsRoot => self.position_by_fen(SliceId::All, name.as_bytes())?,
            Node::SlicePositions(slice) => self.position_by_fen(slice, name.as_bytes())?,
            Node::Position(id) => self.position_child(id, name.as_bytes())?,
            Node::PositionGames(id) => self.position_game_child(id, name.as_bytes())?,
            Node::Games => self.game_named(name, false),
            Node::Deleted => self.game_named(name, true),
            Node::ViewRoot(v) => name
                .to_str()
                .and_then(|s| self.view(v).by_name(s).map(|g| Node::Group(v, g.key))),
            Node::ViewParent(v) => self.view_under(v, name),
            Node::Group(v, key) => self
                .coll
                .item_named(name.as_bytes())
                .filter(|&n| self.group_has(v, key, n))
                .map(|n| Node::Link(v, key, n)),
            Node::SideGroup(v, key, side) => self.side_child(v, key, side, name.as_bytes()),
            Node::TwinsRoot | Node::TwinGroup(_) => self.twin_child(parent_node, name.as_bytes()),
            Node::EndingsRoot => self.ending_named(name.as_bytes())?,
            Node::Status => match name.to_str() {
                Some("errors") => Some(Node::StatusErrors),
                Some("README") => Some(Node::StatusReadme),
                Some("stats") => Some(Node::StatusStats),
                Some("rejected") => Some(Node::Rejected),
                _ => None,
            },
            _ => None,
        })
    }

    /// The attributes of inode `ino`.
    pub fn getattr(&self, ino: u64) -> Result<Attr> {
        let node = self.node(ino)?;
        self.check_readable(node)?;
        Ok(self.attr(node, true))
    }

    /// The attributes of a listed entry as far as they are known without rendering (for
    /// `readdirplus`): a game never rendered gets size 0 and a lifetime of 0, so the kernel
    /// caches nothing and asks `getattr` when someone really wants its size. Listing a
    /// folder then costs no rendering.
    pub fn listing_attr(&self, ino: u64) -> Result<Attr> {
        Ok(self.attr(self.node(ino)?, false))
    }

    /// The target of a symlink: for view links a relative path into `games/`.
    pub fn readlink(&self, ino: u64) -> Result<Vec<u8>> {
        match self.node(ino)? {
            Node::Link(v, key, n) => {
                Ok(self.link_to_game(self.slice_depth(SliceId::Group(v, key)), n))
            }
            Node::SideLink(v, key, side, n) => {
                Ok(self.link_to_game(self.slice_depth(SliceId::Side(v, key, side)), n))
            }
            Node::PositionLink(id, n) => self.position_link_target(id, n),
            Node::QueryLink(id, n) => {
                Ok(self.link_to_game(self.slice_depth(SliceId::Query(id)) + 1, n))
            }
            Node::TwinLink(_, n) => Ok(self.link_to_game(2, n)),
            Node::EndingLink(code) => self.ending_target(code),
            Node::Scratch(id) => match lock(&self.scratch).get(id).map(|f| &f.kind) {
                Some(ScratchKind::Symlink(target)) => Ok(target.clone()),
                _ => Err(Error::new(ErrorKind::InvalidInput, "not a symlink")),
            },
            _ => Err(Error::new(ErrorKind::InvalidInput, "not a symlink")),
        }
    }

    /// At most once a second (on any lookup, any folder's listing, any open): if another
    /// program (SCID) changed the database, show its new state
    /// ([`take_in_outside_changes`](Self::take_in_outside_changes)).
    /// Returns true when the tree changed.
    fn notice_outside_changes(&self) -> bool {
        let now = now_secs();
        // Read before written: lookups run on every thread, and within the second the shared
        // value is only read.
        if self.last_check.load(Ordering::Relaxed) == now
            || self.last_check.swap(now, Ordering::Relaxed) == now
        {
            return false;
        }
        self.take_in_outside_changes().unwrap_or_else(|e| {
            log::error!("{e}");
            false
        })
    }

    /// If another program changed the database since the collection last read or wrote it,
    /// show its new state: numbers, views, sizes, times, positions, the kernel's cached
    /// names and pages; and report every save of this mount that it wrote over
    /// (docs/SEMANTICS.md §10a). Every change through the mount calls it first and after,
    /// whatever the time (a few `stat` calls when nothing changed). Returns true when the
    /// tree changed.
    fn take_in_outside_changes(&self) -> Result<bool> {
        if !self.coll.reload_if_changed()? {
            return Ok(false);
        }
        self.last_outside_change
            .store(now_secs(), Ordering::Relaxed);
        self.numbering
            .store(numbering_of(&*self.coll), Ordering::Relaxed);
        self.states.reloaded(self.coll.info().modified);
        self.cache.clear();
        // The header index let go of before the queries' games are forgotten (`added`).
        self.forget_header_index();
        self.reset_views();
        self.reset_twins();
        self.note_problems();
        self.positions_outside_change();
        let mut stale = vec![Node::Root, Node::Games, Node::Deleted];
        stale.extend(self.view_indexes().map(Node::ViewRoot));
        stale.push(Node::AllGames);
        stale.extend(self.queries.nodes());
        // Any game may have been replaced in place: the kernel's copies must go too.
        stale.extend((0..self.coll.count()).map(Node::Game));
        self.invalidate(&stale, &[]);
        self.report_saves_written_over();
        Ok(true)
    }

    /// The acknowledged saves of this mount that no longer read as they were stored (another
    /// program wrote over them, or changed them since): each is said in the log and
    /// `.gamefs/errors`, and its text kept in `.gamefs/rejected/` under its name.
    fn report_saves_written_over(&self) {
        let count = self.coll.count();
        let lost = lock(&self.acknowledged)
            .written_over(&|n| (n < count).then(|| self.coll.fingerprint(n)).flatten());
        for (n, save, text) in lost {
            // A game a save added is given back under its name without its number, which
            // may be another program's game now: copied back into the items folder, it is
            // added again rather than written over that game.
            let rest = save.name.trim_start_matches(|c: char| c.is_ascii_digit());
            let kept_as = match rest.chars().next() {
                Some(' ' | '.') if save.added && rest.len() < save.name.len() => {
                    format!("added{rest}")
                }
                _ => save.name.clone(),
            };
            let when = status::format_utc(
                save.at
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
            );
            let now = if n < count {
                format!("it now reads as {}", self.game_name(n))
            } else {
                "the database no longer has it".to_owned()
            };
            self.errors.record(
                &save.name,
                &format!(
                    "{} saved through the mount at {when} was written over or changed by \
                     another program since ({now}); the text saved is kept in \
                     .gamefs/rejected/{kept_as}",
                    self.coll.item_label(n),
                ),
            );
            self.keep_rejected(std::ffi::OsStr::new(&kept_as), &text);
        }
    }

    /// Open folder `ino` for listing; answers whether the kernel may keep its cached listing
    /// (read-only mounts whose database did not change). Any folder's listing shows another
    /// program's change (at most once a second).
    pub fn opendir(&self, ino: u64) -> Result<bool> {
        let node = self.node(ino)?;
        if !is_dir(node) {
            return Err(Error::new(ErrorKind::NotADirectory, "not a folder"));
        }
        let changed = self.notice_outside_changes();
        let settled = self.last_outside_change.load(Ordering::Relaxed) + 1 < now_secs();
        Ok(!self.writable() && !changed && settled)
    }

    /// The listing of folder `ino` after the entry whose `next` offset is `offset` (0 = from
    /// the start), handed entry by entry to `add` until it answers `true` (the kernel's
    /// buffer is full: that entry was not taken, and the kernel asks again after the last one
    /// it took) or the folder ends. Entries are made only as the buffer takes them, so each
    /// round trip carries as many as the kernel asked room for (`ls` asks for 32 KiB, some
    /// 400 game names) and no name is made to be thrown away.
    pub fn readdir(
        &self,
        ino: u64,
        offset: u64,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> Result<()> {
        let node = self.node(ino)?;
        let parent = match node {
            Node::Group(v, _) => Node::ViewRoot(v),
            Node::ViewRoot(v) => self.view_parent_of(v).unwrap_or(Node::Root),
            Node::Rejected => Node::Status,
            n @ (Node::Position(_)
            | Node::PositionGames(_)
            | Node::TwinGroup(_)
            | Node::SideGroup(..)
            | Node::SlicePositions(_)
            | Node::Query(_)
            | Node::QueryGames(_)
            | Node::QueryEntries(_)) => self.parent_folder(n)?,
            n if is_dir(n) => Node::Root,
            _ => return Err(Error::new(ErrorKind::NotADirectory, "not a folder")),
        };
        if offset < SCRATCH_OFFSETS {
            let dots = [(node, "."), (parent, "..")];
            for (i, (n, name)) in dots.into_iter().enumerate().skip(offset as usize) {
                let dot = DirEntry {
                    ino: n.ino(),
                    kind: FileKind::Directory,
                    name: name.into(),
                    next: i as u64 + 1,
                };
                if add(dot) {
                    return Ok(());
                }
            }
            let full = match node {
                Node::EndingsRoot => self.list_endings(offset.saturating_sub(2), add)?,
                _ => self.list_own(node, offset.saturating_sub(2), add),
            };
            if full {
                return Ok(());
            }
        }
        let skip = offset.saturating_sub(SCRATCH_OFFSETS) as usize;
        // Made under the lock, handed out after it: `add` may ask for an entry's attributes.
        let scratch_entries: Vec<DirEntry> = {
            let scratch = lock(&self.scratch);
            let listed = scratch.list(ino).into_iter().enumerate().skip(skip);
            listed
                .map(|(i, (name, id))| DirEntry {
                    ino: Node::Scratch(id).ino(),
                    kind: match scratch.get(id).map(|f| &f.kind) {
                        Some(ScratchKind::Symlink(_)) => FileKind::Symlink,
                        _ => FileKind::RegularFile,
                    },
                    name,
                    next: SCRATCH_OFFSETS + i as u64 + 1,
                })
                .collect()
        };
        for e in scratch_entries {
            if add(e) {
                break;
            }
        }
        Ok(())
    }

    /// Hand the folder's own (non-scratch) entries after position `from` to `add`; whether
    /// `add` said it was full.
    fn list_own(&self, node: Node, from: u64, add: &mut dyn FnMut(DirEntry) -> bool) -> bool {
        match node {
            Node::Root => self
                .root_children()
                .into_iter()
                .enumerate()
                .skip(from as usize)
                .any(|(i, (n, name))| add(self.entry(n, name.into(), i as u64 + 3))),
            Node::Games | Node::Deleted => {
                let want_deleted = node == Node::Deleted;
                let start = u32::try_from(from).unwrap_or(u32::MAX);
                self.items_in(want_deleted, start).any(|n| {
                    add(self.entry(Node::Game(n), self.game_name(n).into(), u64::from(n) + 3))
                })
            }
            Node::ViewParent(v) => self
                .views_under(v)
                .into_iter()
                .enumerate()
                .skip(from as usize)
                .any(|(i, (n, name))| add(self.entry(n, name.into(), i as u64 + 3))),
            Node::ViewRoot(v) => self.view(v).groups_from(from as usize).any(|(i, g)| {
                add(self.entry(
                    Node::Group(v, g.key),
                    g.name.to_owned().into(),
                    i as u64 + 3,
                ))
            }),
            Node::Group(v, key) => self
                .view(v)
                .by_key(key)
                .is_some_and(|g| self.list_links(g.games, from, |n| Node::Link(v, key, n), add)),
            Node::SideGroup(v, key, side) => self.side_games(v, key, side).is_some_and(|games| {
                self.list_links(&games, from, |n| Node::SideLink(v, key, side, n), add)
            }),
            Node::PositionsRoot | Node::Position(_) | Node::PositionGames(_) => {
                self.list_positions(node, from, add)
            }
            Node::Query(_) | Node::QueryGames(_) | Node::QueryEntries(_) => {
                self.list_query(node, from, add)
            }
            Node::TwinsRoot | Node::TwinGroup(_) => self.list_twins(node, from, add),
            Node::Status => {
                let children = [
                    (Node::StatusErrors, "errors"),
                    (Node::StatusReadme, "README"),
                    (Node::Rejected, "rejected"),
                ];
                children
                    .into_iter()
                    .enumerate()
                    .skip(from as usize)
                    .any(|(i, (n, name))| add(self.entry(n, name.into(), i as u64 + 3)))
            }
            _ => false,
        }
    }

    /// Up to `size` bytes of file `ino` from `offset` (through handle `fh`, if any).
    pub fn read(&self, ino: u64, offset: u64, size: u32) -> Result<Vec<u8>> {
        let slice = |data: &[u8]| {
            let start = usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .min(data.len());
            let end = start.saturating_add(size as usize).min(data.len());
            data[start..end].to_vec()
        };
        match self.node(ino)? {
            Node::Game(n) => {
                if let Some(data) = lock(&self.drafts).get(&n).and_then(Draft::readable) {
                    return Ok(slice(data));
                }
                Ok(slice(&self.text(n)?))
            }
            Node::Scratch(id) => match self.scratch_idle(id).get(id).and_then(|f| f.content()) {
                Some(content) => content.read_at(offset, size),
                None => Ok(Vec::new()),
            },
            all if all.is_all_file() => self.read_all(all, offset, size),
            n @ (Node::TreeText(_) | Node::FenText(_)) => Ok(slice(&self.position_text(n)?)),
            Node::QueryCount(id) => Ok(slice(&self.query_count_text(id))),
            Node::QueryEntry(id, n) => Ok(slice(&self.entry_text(id, n)?)),
            n @ (Node::StatusErrors | Node::StatusReadme | Node::StatusStats) => {
                match self.status_snapshots.last(ino) {
                    Some(text) => Ok(slice(&text)),
                    None => Ok(slice(&self.status_snapshot(n).0)),
                }
            }
            _ => Err(Error::new(ErrorKind::IsADirectory, "not a regular file")),
        }
    }

    /// Whether `ino` may be accessed as `access(2)` asks.
    pub fn access(&self, ino: u64, want_write: bool, want_exec: bool) -> Result<()> {
        let attr = self.getattr(ino)?;
        if want_write && !self.writable() {
            return Err(Error::new(ErrorKind::ReadOnly, "the mount is read-only"));
        }
        let bit = |b: u16| attr.perm & b != 0;
        if (want_write && !bit(0o200)) || (want_exec && !bit(0o100)) {
            return Err(Error::new(ErrorKind::PermissionDenied, "permission denied"));
        }
        Ok(())
    }

    /// The text of item `n`, from the cache or freshly rendered. An item that cannot be
    /// rendered fails with the reason, which is logged the first time only.
    pub fn text(&self, n: u32) -> Result<Arc<[u8]>> {
        if let Some(text) = self.cache.get(n) {
            return Ok(text);
        }
        if let Some(text) = lock(&self.orphans).get(&n) {
            return Ok(text.clone());
        }
        if let Some(e) = self.broken.error(n) {
            return Err(e);
        }
        let rendered = self.coll.render(n).inspect_err(|e| {
            self.broken.remember(n, e);
            self.errors.record(&self.game_name(n), e.message());
        })?;
        if let Some(note) = self.coll.take_note(n) {
            self.errors.record(&self.game_name(n), &note);
        }
        let text: Arc<[u8]> = Arc::from(rendered);
        self.cache.insert(n, text.clone());
        Ok(text)
    }

    /// The current text of a `.gamefs/` file, kept as the one its readers get next.
    fn status_snapshot(&self, node: Node) -> (Arc<[u8]>, SystemTime) {
        let text = match node {
            Node::StatusErrors => self.errors.text(),
            Node::StatusStats => self.stats_text().into_bytes(),
            _ => status::README.as_bytes().to_vec(),
        };
        self.status_snapshots.take(node.ino(), text)
    }

    /// The text of `.gamefs/stats`.
    fn stats_text(&self) -> String {
        use std::fmt::Write;
        use std::sync::atomic::Ordering::Relaxed;
        let info = self.coll.info();
        let count = self.coll.count();
        let deleted = self.coll.deleted_count();
        let (hits, misses) = self.cache.hits_and_misses();
        let rate = if hits + misses == 0 {
            0.0
        } else {
            100.0 * hits as f64 / (hits + misses) as f64
        };
        let c = &self.counters;
        let members = self.coll.members();
        // A folder mounted as one is named by the folder its databases are in.
        let database = self.options.named.as_deref().or_else(|| {
            info.files.first().map(|p| match p.parent() {
                Some(folder) if !members.is_empty() => folder,
                _ => p.as_path(),
            })
        });
        let mut out = format!(
            "database: {}\nformat: {}\nwritable: {}\n{}: {count}\ndeleted: {deleted}\n",
            database
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            info.format,
            if self.writable() { "yes" } else { "no" },
            self.coll.items_folder(),
        );
        for v in self.view_indexes() {
            let _ = writeln!(
                out,
                "{}: {}",
                self.view_paths[usize::from(v.0)],
                self.view_count(v)
            );
        }
        let _ = write!(
            out,
            "cache_bytes: {}\ncache_hits: {hits}\ncache_misses: {misses}\ncache_hit_rate: {rate:.1}%\n\
             sizes_known: {}\n\
             game_lookups: {}\nsaves: {}\nimported: {}\ndeletions_and_restores: {}\nrejected_saves: {}\nerrors: {}\n",
            self.cache.bytes(),
            self.cache.known_count(),
            c.game_lookups.load(Relaxed),
            c.saves.load(Relaxed),
            c.imported.load(Relaxed),
            c.deletions.load(Relaxed),
            c.rejected.load(Relaxed),
            self.errors.total(),
        );
        out.push_str(&self.positions_stats());
        out.push_str(&self.header_index_stats());
        out.push_str(&members_stats(&members));
        out
    }

    /// The size of item `n`'s text if known without rendering it: learnt during this mount,
    /// or kept by an earlier mount for the item as it is now (its fingerprint unchanged).
    fn known_size(&self, n: u32) -> Option<u64> {
        if let Some(size) = self.cache.size(n) {
            return Some(size);
        }
        let size = self.states.kept_size(n, &|| self.coll.fingerprint(n))?;
        self.cache.set_size(n, size);
        Some(size)
    }

    /// Item `n`'s modification time: when its text last changed (docs/SEMANTICS.md §2).
    fn item_time(&self, n: u32) -> SystemTime {
        self.states.time(n, &|| self.coll.fingerprint(n))
    }

    /// Learn item `n`'s size if it is not known (rendering it without keeping its text);
    /// an item that cannot be rendered is left for its readers to find.
    fn learn_size(&self, n: u32) {
        if self.known_size(n).is_some() || self.broken.error(n).is_some() {
            return;
        }
        let epoch = self.cache.epoch();
        if let Ok(text) = self.coll.render(n) {
            self.cache.set_size_if_current(n, text.len() as u64, epoch);
        }
    }

    /// What to keep for the next mount ([`kept_games`]): each item's time and its size known
    /// now, with the item's fingerprint, else what an earlier mount kept for it (still checked
    /// before use). What is known is of the items as they are: saves forget their item's size
    /// and stamp its time, and changes by other programs are looked for first.
    pub fn games_to_keep(&self) -> Vec<kept_games::KeptGame> {
        self.last_check
            .store(0, std::sync::atomic::Ordering::Relaxed);
        self.notice_outside_changes();
        self.states
            .to_keep(&self.cache.known_sizes(), self.coll.count(), &|n| {
                self.coll.fingerprint(n)
            })
    }

    /// Take what an earlier mount kept (see [`Vfs::games_to_keep`]).
    pub fn restore_kept(&self, kept: Vec<kept_games::KeptGame>) {
        self.states.restore(kept);
    }

    /// The items `games/` lists (or, with `deleted`, `.deleted/`), in order from number
    /// `from`: games renamed away to a scratch name are in neither.
    fn items_in(&self, deleted: bool, from: u32) -> impl Iterator<Item = u32> + '_ {
        let hidden = lock(&self.hidden).clone();
        (from..self.coll.count())
            .filter(move |&n| self.coll.deleted(n) == deleted && !hidden.contains(&n))
    }

    /// The file name of item `n` in the items folder.
    pub fn game_name(&self, n: u32) -> String {
        self.coll.file_name(n)
    }

    fn view_indexes(&self) -> impl Iterator<Item = View> + use<> {
        (0..self.view_paths.len() as u8).map(View)
    }

    fn view(&self, v: View) -> Arc<ViewTable> {
        let slot = &self.views[usize::from(v.0)];
        if let Some(t) = slot.read().unwrap_or_else(|p| p.into_inner()).as_ref() {
            return t.clone();
        }
        let table = Arc::new(ViewTable::build(&*self.coll, v));
        *slot.write().unwrap_or_else(|p| p.into_inner()) = Some(table.clone());
        table
    }

    /// How many groups view `v` has: its table's count when it is made, else counted over the
    /// games without making it (kept until the views are reset), so reading `.gamefs/stats`
    /// does not hold every view's table (256 MiB at ten million games).
    fn view_count(&self, v: View) -> usize {
        let i = usize::from(v.0);
        if let Some(table) = self.views[i]
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            return table.len();
        }
        let reset = self.views_reset.load(Ordering::SeqCst);
        if let Some((at, count)) = lock(&self.view_counts)[i]
            && at == reset
        {
            return count;
        }
        let count = self.coll.view_group_count(i);
        let mut counts = lock(&self.view_counts);
        if self.views_reset.load(Ordering::SeqCst) == reset {
            counts[i] = Some((reset, count));
        }
        count
    }

    /// Forget the grouped views and the games of the queries; they are found again from the
    /// index when next visited.
    fn reset_views(&self) {
        self.views_reset.fetch_add(1, Ordering::SeqCst);
        self.queries.forget_games();
        for slot in &self.views {
            *slot.write().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }

    fn group_has(&self, v: View, key: u32, n: u32) -> bool {
        self.view(v)
            .by_key(key)
            .is_some_and(|g| g.games.binary_search(&n).is_ok())
    }

    /// The root's folders: items, `.deleted` (when the format has a delete mark), `.gamefs`,
    /// and each view or folder of views.
    fn root_children(&self) -> Vec<(Node, String)> {
        let mut out = vec![(Node::Games, self.coll.items_folder().to_owned())];
        if self.coll.has_delete_mark() {
            out.push((Node::Deleted, ".deleted".to_owned()));
        }
        out.push((Node::Status, ".gamefs".to_owned()));
        let mut parents_seen = Vec::new();
        for v in self.view_indexes() {
            let path = &self.view_paths[usize::from(v.0)];
            match path.split_once('/') {
                None => out.push((Node::ViewRoot(v), path.clone())),
                Some((parent, _)) if !parents_seen.contains(&parent) => {
                    parents_seen.push(parent);
                    out.push((Node::ViewParent(v), parent.to_owned()));
                }
                Some(_) => {}
            }
        }
        if self.coll.has_twins() {
            out.push((Node::TwinsRoot, "twins".to_owned()));
        }
        out
    }

    /// The views inside the folder of views that `first` opens (`scores/…`), with their names.
    fn views_under(&self, first: View) -> Vec<(Node, String)> {
        let parent = self.view_paths[usize::from(first.0)]
            .split('/')
            .next()
            .unwrap_or("");
        self.view_indexes()
            .filter_map(|v| {
                let (p, child) = self.view_paths[usize::from(v.0)].split_once('/')?;
                (p == parent).then(|| (Node::ViewRoot(v), child.to_owned()))
            })
            .collect()
    }

    fn view_under(&self, first: View, name: &OsStr) -> Option<Node> {
        self.views_under(first)
            .into_iter()
            .find(|(_, n)| OsStr::new(n) == name)
            .map(|(node, _)| node)
    }

    /// The folder of views a two-level view sits in.
    fn view_parent_of(&self, v: View) -> Option<Node> {
        let (parent, _) = self.view_paths[usize::from(v.0)].split_once('/')?;
        self.view_indexes()
            .find(|w| self.view_paths[usize::from(w.0)].split('/').next() == Some(parent))
            .map(Node::ViewParent)
    }

    fn root_child(&self, name: &OsStr) -> Option<Node> {
        if name == ".deleted" && !self.coll.has_delete_mark() {
            return None;
        }
        self.root_children()
            .into_iter()
            .find(|(_, n)| OsStr::new(n) == name)
            .map(|(node, _)| node)
    }

    fn game_named(&self, name: &OsStr, deleted: bool) -> Option<Node> {
        let n = self.coll.item_named(name.as_bytes())?;
        let visible = n < self.coll.count()
            && self.coll.deleted(n) == deleted
            && !lock(&self.hidden).contains(&n);
        visible.then_some(Node::Game(n))
    }

    fn entry(&self, node: Node, name: OsString, next: u64) -> DirEntry {
        DirEntry {
            ino: node.ino(),
            kind: kind_of(node),
            name,
            next,
        }
    }

    /// The attributes of `node`; without `render`, a game whose size is not known yet is not
    /// rendered to learn it (see [`Vfs::listing_attr`]).
    fn attr(&self, node: Node, render: bool) -> Attr {
        let modified = self.coll.info().modified;
        let w = if self.writable() { 0o200 } else { 0 };
        let ttl_secs = if self.writable() { 1 } else { 3600 };
        let mut attr = Attr {
            ino: node.ino(),
            kind: kind_of(node),
            size: 0,
            perm: 0o555 | w,
            nlink: 2,
            atime: modified,
            mtime: modified,
            ctime: modified,
            uid: self.options.uid,
            gid: self.options.gid,
            ttl_secs,
            generation: node.generation(
                self.numbering.load(Ordering::Relaxed),
                self.mount_generation,
            ),
        };
        match node {
            Node::Game(n) => {
                let time = self.item_time(n);
                (attr.atime, attr.mtime, attr.ctime) = (time, time, time);
                let drafted = lock(&self.drafts)
                    .get(&n)
                    .and_then(|d| d.readable().map(|data| data.len() as u64));
                let known = drafted.or_else(|| self.known_size(n));
                attr.size = match known {
                    Some(size) => size,
                    None if render => self.size_by_rendering(n).unwrap_or(0),
                    None => {
                        attr.ttl_secs = 0;
                        0
                    }
                };
                // A deleted game cannot be edited in .deleted/ (moved back, it can).
                attr.perm = if self.coll.deleted(n) {
                    0o444
                } else {
                    0o444 | w
                };
                attr.nlink = 1;
            }
            all if all.is_all_file() => {
                attr.size = self.all_layout(node).size();
                // Its size follows every save of its games: trusted a second at most.
                (attr.perm, attr.nlink, attr.ttl_secs) = (0o444, 1, 1);
            }
            Node::QueryCount(id) => {
                attr.size = self.query_count_text(id).len() as u64;
                // It follows every save: trusted a second at most.
                (attr.perm, attr.nlink, attr.ttl_secs) = (0o444, 1, 1);
            }
            Node::QueryEntry(id, n) => {
                attr.size = self.entry_text(id, n).map_or(0, |t| t.len() as u64);
                (attr.perm, attr.nlink, attr.ttl_secs) = (0o444, 1, 1);
            }
            Node::Link(..)
            | Node::SideLink(..)
            | Node::PositionLink(..)
            | Node::QueryLink(..)
            | Node::TwinLink(..)
            | Node::EndingLink(_) => {
                attr.size = self.readlink(node.ino()).map_or(0, |t| t.len() as u64);
                (attr.perm, attr.nlink) = (0o777, 1);
            }
            Node::TreeText(_) | Node::FenText(_) => {
                attr.size = self.position_text(node).map_or(0, |t| t.len() as u64);
                (attr.perm, attr.nlink) = (0o444, 1);
            }
            // How many move folders a position has is not known without making its tree:
            // 1 tells `find` so (it then counts no subfolders by the link count).
            Node::Position(_) => (attr.perm, attr.nlink) = (0o555, 1),
            Node::TwinsRoot => match self.twin_groups_count(render) {
                Some(groups) => attr.nlink = 2 + groups,
                // Not known without finding the twins, which a listing of the root does not
                // do: 1 tells `find` so, and the kernel asks again.
                None => (attr.nlink, attr.ttl_secs) = (1, 0),
            },
            // `query/` holds as many folders as there are queries: not known either.
            Node::QueryRoot => (attr.perm, attr.nlink) = (0o555, 1),
            Node::Query(id) => {
                let folders = 1 + u32::from(self.entry_codes(id).is_some());
                (attr.perm, attr.nlink) = (0o555, 2 + folders);
            }
            Node::PositionsRoot
            | Node::SlicePositions(_)
            | Node::PositionGames(_)
            | Node::QueryGames(_)
            | Node::QueryEntries(_)
            | Node::EndingsRoot => {
                attr.perm = 0o555;
            }

            Node::StatusErrors | Node::StatusReadme | Node::StatusStats => {
                let (text, taken) = self.status_snapshot(node);
                attr.size = text.len() as u64;
                (attr.mtime, attr.ctime) = (taken, taken);
                (attr.perm, attr.nlink, attr.ttl_secs) = (0o444, 1, 0);
            }
            Node::Scratch(id) => {
                if let Some(f) = lock(&self.scratch).get(id) {
                    if matches!(f.kind, ScratchKind::Symlink(_)) {
                        attr.kind = FileKind::Symlink;
                    }
                    attr.size = f.size();
                    attr.perm = (f.mode & 0o7777) as u16;
                    attr.nlink = u32::from(f.linked);
                    attr.atime = f.atime;
                    attr.mtime = f.mtime;
                    attr.ctime = f.ctime;
                    attr.ttl_secs = 1;
                }
            }
            Node::Root => attr.nlink = 2 + self.root_children().len() as u32,
            Node::ViewRoot(v) => attr.nlink = 2 + self.view(v).len() as u32,
            Node::ViewParent(v) => attr.nlink = 2 + self.views_under(v).len() as u32,
            Node::Status => attr.nlink = 3,
            _ => {}
        }
        if matches!(
            node,
            Node::PositionsRoot
                | Node::SlicePositions(_)
                | Node::Position(_)
                | Node::PositionGames(_)
                | Node::PositionLink(..)
                | Node::TreeText(_)
                | Node::FenText(_)
        ) {
            // A new index (another program changed the database) changes them without a
            // word to the kernel: it asks again after a second.
            attr.ttl_secs = attr.ttl_secs.min(1);
        }
        attr
    }

    /// Ask the kernel to forget what it cached about these nodes and names (names by their
    /// folder's inode number).
    fn invalidate(&self, inodes: &[Node], names: &[(u64, &OsStr)]) {
        if let Some(inv) = self.invalidator.get() {
            for n in inodes {
                inv.inval_inode(n.ino());
            }
            for (parent, name) in names {
                inv.inval_entry(*parent, name);
            }
        }
    }
}

/// Seconds since the epoch, now.
fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The cores a position index is built on.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The lines of `.gamefs/stats` for each database of a folder mounted as one (none for one
/// database): `member NAME: FILE, FORMAT, games: N, deleted: D, writable: yes, problems: P`,
/// or why the file is not mounted.
fn members_stats(members: &[crate::collection::MemberStats]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for m in members {
        let file = m
            .info
            .files
            .first()
            .map(|f| f.display().to_string())
            .unwrap_or_default();
        let _ = match &m.skipped {
            Some(why) => writeln!(out, "member {}: {file}, not mounted: {why}", m.name),
            None => writeln!(
                out,
                "member {}: {file}, {}, games: {}, deleted: {}, writable: {}, problems: {}",
                m.name,
                m.info.format,
                m.count,
                m.deleted,
                if m.writable { "yes" } else { "no" },
                m.problems
            ),
        };
    }
    out
}

/// The generation of `coll`'s item numbers ([`inode::numbering_generation`] of its index, or
/// of each of its databases' for a folder mounted as one).
fn numbering_of(coll: &dyn Collection) -> u32 {
    let members = coll.members();
    if members.is_empty() {
        return inode::numbering_generation(coll.info().files.first().map(|p| p.as_path()));
    }
    inode::numbering_generation(
        members
            .iter()
            .filter(|m| m.skipped.is_none())
            .filter_map(|m| m.info.files.first())
            .map(|p| p.as_path()),
    )
}

fn is_dir(node: Node) -> bool {
    kind_of(node) == FileKind::Directory
}

fn kind_of(node: Node) -> FileKind {
    match node {
        Node::Game(_)
        | Node::StatusErrors
        | Node::StatusReadme
        | Node::StatusStats
        | Node::AllGames
        | Node::AllOfGroup(..)
        | Node::AllOfPosition(_)
        | Node::AllOfSide(..)
        | Node::AllOfQuery(_)
        | Node::QueryCount(_)
        | Node::QueryEntry(..)
        | Node::TreeText(_)
        | Node::FenText(_)
        | Node::Scratch(_) => FileKind::RegularFile,
        Node::Link(..)
        | Node::SideLink(..)
        | Node::PositionLink(..)
        | Node::QueryLink(..)
        | Node::TwinLink(..)
        | Node::EndingLink(_) => FileKind::Symlink,
        _ => FileKind::Directory,
    }
}

fn not_found(message: String) -> Error {
    Error::new(ErrorKind::NotFound, message)
}
