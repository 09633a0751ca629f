//! The file tree gamefs shows: folders, file names, inode numbers, attributes and file text.
//!
//! This layer knows nothing of fuser; the adapter in `fuse.rs` forwards kernel calls here.
//! Layout (see README): `games/` holds one PGN file per live game, `.deleted/` the games marked
//! deleted, and `players/`, `events/`, `sites/`, `years/`, `eco/` group the games as relative
//! symlinks into `games/`.

pub mod cache;
pub mod inode;
pub mod naming;
pub mod views;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use cache::TextCache;
pub use inode::{Node, View};
use naming::{game_file_name, game_number_of, number_width};
use views::ViewTable;

use crate::error::{Error, ErrorKind, Result};
use crate::store::{ChessStore, NameKind};
use crate::text::pgn;

/// The kind of a node, as `stat` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A folder.
    Directory,
    /// A regular file (a game's text).
    RegularFile,
    /// A symbolic link (view entries).
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
    /// Link count.
    pub nlink: u32,
    /// Modification time (the database's).
    pub mtime: SystemTime,
    /// Change/creation time (the database's).
    pub ctime: SystemTime,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

/// One entry of a folder listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's inode number.
    pub ino: u64,
    /// Its kind.
    pub kind: FileKind,
    /// Its name.
    pub name: String,
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
}

impl Default for VfsOptions {
    fn default() -> VfsOptions {
        // SAFETY: getuid/getgid have no preconditions and cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        VfsOptions {
            uid,
            gid,
            cache_bytes: 64 << 20,
        }
    }
}

/// How many entries one `readdir` answer holds at most; the kernel asks again for more.
const LISTING_CHUNK: usize = 4096;

/// The tree of one mounted database.
pub struct Vfs {
    store: Arc<dyn ChessStore>,
    options: VfsOptions,
    width: usize,
    views: [OnceLock<ViewTable>; 5],
    cache: TextCache,
}

impl Vfs {
    /// A tree over `store`.
    pub fn new(store: Arc<dyn ChessStore>, options: VfsOptions) -> Vfs {
        let count = store.game_count();
        Vfs {
            width: number_width(count),
            cache: TextCache::new(count, options.cache_bytes),
            views: Default::default(),
            store,
            options,
        }
    }

    /// The database behind the tree.
    pub fn store(&self) -> &dyn ChessStore {
        &*self.store
    }

    /// The node an inode number names, or ENOENT.
    pub fn node(&self, ino: u64) -> Result<Node> {
        let node = Node::from_ino(ino).ok_or_else(|| not_found(format!("no inode {ino}")))?;
        let count = self.store.game_count();
        let valid = match node {
            Node::Game(n) => n < count,
            Node::Group(v, key) => self.view(v).by_key(key).is_some(),
            Node::Link(v, key, n) => self.group_has(v, key, n),
            _ => true,
        };
        if valid {
            Ok(node)
        } else {
            Err(not_found(format!("inode {ino} is gone")))
        }
    }

    /// Find `name` in the folder `parent`.
    pub fn lookup(&self, parent: u64, name: &OsStr) -> Result<Attr> {
        let node = match self.node(parent)? {
            Node::Root => self.root_child(name),
            Node::Games => self.game_named(name, false),
            Node::Deleted => self.game_named(name, true),
            Node::ViewRoot(v) => name
                .to_str()
                .and_then(|s| self.view(v).by_name(s))
                .map(|g| Node::Group(v, g.key)),
            Node::Group(v, key) => game_number_of(name.as_bytes())
                .filter(|&n| self.group_has(v, key, n))
                .map(|n| Node::Link(v, key, n)),
            Node::Game(_) | Node::Link(..) => {
                return Err(Error::new(ErrorKind::NotADirectory, "not a folder"));
            }
        };
        let node = node.ok_or_else(|| not_found(format!("no entry {}", name.to_string_lossy())))?;
        Ok(self.attr(node))
    }

    /// The attributes of inode `ino`.
    pub fn getattr(&self, ino: u64) -> Result<Attr> {
        Ok(self.attr(self.node(ino)?))
    }

    /// The target of a view symlink: a relative path into `games/`.
    pub fn readlink(&self, ino: u64) -> Result<String> {
        match self.node(ino)? {
            Node::Link(_, _, n) => Ok(format!("../../games/{}", self.game_name(n))),
            _ => Err(Error::new(ErrorKind::InvalidInput, "not a symlink")),
        }
    }

    /// Up to one chunk of the listing of folder `ino`, starting after the entry whose `next`
    /// offset is `offset` (0 = from the start).
    pub fn readdir(&self, ino: u64, offset: u64) -> Result<Vec<DirEntry>> {
        let node = self.node(ino)?;
        let parent = match node {
            Node::Root | Node::Games | Node::Deleted | Node::ViewRoot(_) => Node::Root,
            Node::Group(v, _) => Node::ViewRoot(v),
            Node::Game(_) | Node::Link(..) => {
                return Err(Error::new(ErrorKind::NotADirectory, "not a folder"));
            }
        };
        let mut out = Vec::new();
        let dots = [(node, "."), (parent, "..")];
        for (i, (n, name)) in dots.into_iter().enumerate().skip(offset as usize) {
            out.push(DirEntry {
                ino: n.ino(),
                kind: FileKind::Directory,
                name: name.into(),
                next: i as u64 + 1,
            });
        }
        let from = offset.saturating_sub(2);
        match node {
            Node::Root => {
                let mut children = vec![(Node::Games, "games"), (Node::Deleted, ".deleted")];
                children.extend(View::ALL.map(|v| (Node::ViewRoot(v), v.folder())));
                for (i, (n, name)) in children.into_iter().enumerate().skip(from as usize) {
                    out.push(self.entry(n, name.to_owned(), i as u64 + 3));
                }
            }
            Node::Games | Node::Deleted => {
                let want_deleted = node == Node::Deleted;
                let count = self.store.game_count();
                let start = u32::try_from(from).unwrap_or(u32::MAX);
                for n in start..count {
                    if out.len() >= LISTING_CHUNK {
                        break;
                    }
                    if self.store.summary(n).deleted == want_deleted {
                        out.push(self.entry(Node::Game(n), self.game_name(n), u64::from(n) + 3));
                    }
                }
            }
            Node::ViewRoot(v) => {
                for (i, g) in self
                    .view(v)
                    .groups()
                    .iter()
                    .enumerate()
                    .skip(from as usize)
                    .take(LISTING_CHUNK)
                {
                    out.push(self.entry(Node::Group(v, g.key), g.name.clone(), i as u64 + 3));
                }
            }
            Node::Group(v, key) => {
                if let Some(g) = self.view(v).by_key(key) {
                    for (i, &n) in g
                        .games
                        .iter()
                        .enumerate()
                        .skip(from as usize)
                        .take(LISTING_CHUNK)
                    {
                        out.push(self.entry(
                            Node::Link(v, key, n),
                            self.game_name(n),
                            i as u64 + 3,
                        ));
                    }
                }
            }
            Node::Game(_) | Node::Link(..) => unreachable!("checked above"),
        }
        Ok(out)
    }

    /// Check that inode `ino` may be opened; for a game, render (or fetch) its text so a
    /// damaged record fails here with EIO rather than in the middle of a read.
    pub fn open(&self, ino: u64, write: bool) -> Result<()> {
        match self.node(ino)? {
            Node::Game(n) => {
                if write {
                    return Err(Error::new(ErrorKind::ReadOnly, "the mount is read-only"));
                }
                self.text(n).map(drop)
            }
            Node::Link(..) => Ok(()),
            _ if write => Err(Error::new(ErrorKind::IsADirectory, "is a folder")),
            _ => Ok(()),
        }
    }

    /// Whether `ino` may be accessed as `access(2)` asks: writing is refused (read-only
    /// mount), executing is allowed only on folders (to enter them).
    pub fn access(&self, ino: u64, want_write: bool, want_exec: bool) -> Result<()> {
        let node = self.node(ino)?;
        if want_write {
            return Err(Error::new(ErrorKind::ReadOnly, "the mount is read-only"));
        }
        if want_exec && matches!(node, Node::Game(_)) {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                "game files are not executable",
            ));
        }
        Ok(())
    }

    /// Up to `size` bytes of file `ino` from `offset`.
    pub fn read(&self, ino: u64, offset: u64, size: u32) -> Result<Vec<u8>> {
        match self.node(ino)? {
            Node::Game(n) => {
                let text = self.text(n)?;
                let start = usize::try_from(offset)
                    .unwrap_or(usize::MAX)
                    .min(text.len());
                let end = start.saturating_add(size as usize).min(text.len());
                Ok(text[start..end].to_vec())
            }
            _ => Err(Error::new(ErrorKind::IsADirectory, "not a regular file")),
        }
    }

    /// The rendered PGN of game `n`, from the cache or freshly rendered.
    pub fn text(&self, n: u32) -> Result<Arc<[u8]>> {
        if let Some(text) = self.cache.get(n) {
            return Ok(text);
        }
        let rendered = self
            .store
            .load(n)
            .and_then(|game| {
                pgn::render(&game).map_err(|e| e.context(format_args!("game {}", n + 1)))
            })
            .inspect_err(|e| log::error!("{}: {e}", self.store.info().files[0].display()))?;
        let text: Arc<[u8]> = Arc::from(rendered.into_bytes());
        self.cache.insert(n, text.clone());
        Ok(text)
    }

    /// The file name of game `n` (0-based) in `games/`.
    pub fn game_name(&self, n: u32) -> String {
        let s = self.store.summary(n);
        let white = self.store.name(NameKind::Player, s.white);
        let black = self.store.name(NameKind::Player, s.black);
        game_file_name(n, self.width, &white, &black, s.date.year)
    }

    fn view(&self, v: View) -> &ViewTable {
        self.views[v as usize].get_or_init(|| ViewTable::build(&*self.store, v))
    }

    fn group_has(&self, v: View, key: u32, n: u32) -> bool {
        self.view(v)
            .by_key(key)
            .is_some_and(|g| g.games.binary_search(&n).is_ok())
    }

    fn root_child(&self, name: &OsStr) -> Option<Node> {
        match name.to_str()? {
            "games" => Some(Node::Games),
            ".deleted" => Some(Node::Deleted),
            other => View::ALL
                .into_iter()
                .find(|v| v.folder() == other)
                .map(Node::ViewRoot),
        }
    }

    fn game_named(&self, name: &OsStr, deleted: bool) -> Option<Node> {
        let n = game_number_of(name.as_bytes())?;
        (n < self.store.game_count() && self.store.summary(n).deleted == deleted)
            .then_some(Node::Game(n))
    }

    fn entry(&self, node: Node, name: String, next: u64) -> DirEntry {
        DirEntry {
            ino: node.ino(),
            kind: kind_of(node),
            name,
            next,
        }
    }

    fn attr(&self, node: Node) -> Attr {
        let info = self.store.info();
        let (kind, size, perm, nlink) = match node {
            Node::Game(n) => {
                let size = self
                    .cache
                    .size(n)
                    .or_else(|| self.text(n).ok().map(|t| t.len() as u64));
                (FileKind::RegularFile, size.unwrap_or(0), 0o444, 1)
            }
            Node::Link(..) => {
                let target = self.readlink(node.ino()).map(|t| t.len()).unwrap_or(0);
                (FileKind::Symlink, target as u64, 0o777, 1)
            }
            Node::Root => (
                FileKind::Directory,
                0,
                0o555,
                2 + 2 + View::ALL.len() as u32,
            ),
            Node::ViewRoot(v) => (
                FileKind::Directory,
                0,
                0o555,
                2 + self.view(v).groups().len() as u32,
            ),
            _ => (FileKind::Directory, 0, 0o555, 2),
        };
        Attr {
            ino: node.ino(),
            kind,
            size,
            perm,
            nlink,
            mtime: info.modified,
            ctime: info.modified,
            uid: self.options.uid,
            gid: self.options.gid,
        }
    }
}

fn kind_of(node: Node) -> FileKind {
    match node {
        Node::Game(_) => FileKind::RegularFile,
        Node::Link(..) => FileKind::Symlink,
        _ => FileKind::Directory,
    }
}

fn not_found(message: String) -> Error {
    Error::new(ErrorKind::NotFound, message)
}
