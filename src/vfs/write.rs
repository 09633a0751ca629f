//! The write side of the tree: open for writing, create, write, truncate, flush/fsync/release
//! (where saves commit), unlink, rename, symlink. docs/SEMANTICS.md describes each case.

use std::collections::hash_map::Entry;
use std::ffi::OsStr;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use super::commit::Target;
use super::scratch::{Content, ScratchKind, write_at};
use super::unsupported::{all_files_are_read_only, not_permitted};
use super::{Attr, Draft, Handle, Node, OpenMode, Opened, Stage, Vfs, lock};
use crate::error::{Error, ErrorKind, Result};

/// A change of attributes asked by `setattr`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SetAttr {
    /// New size (truncate or extend).
    pub size: Option<u64>,
    /// New permission bits.
    pub mode: Option<u32>,
    /// New owner (chown).
    pub uid: Option<u32>,
    /// New group (chown).
    pub gid: Option<u32>,
    /// New access time.
    pub atime: Option<SystemTime>,
    /// New modification time.
    pub mtime: Option<SystemTime>,
    /// The handle the change came through (`ftruncate`); `None` for a change by path
    /// (`truncate(2)`, and the kernel's truncation of an `O_TRUNC` open, which it sends
    /// without the new handle).
    pub handle: Option<u64>,
}

/// How a rename treats an existing target (renameat2 flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenameFlags {
    /// RENAME_NOREPLACE: fail if the target exists.
    pub noreplace: bool,
    /// RENAME_EXCHANGE: swap source and target.
    pub exchange: bool,
}

/// A game or a link to one: a rename never replaces it.
fn is_game_or_link(n: Node) -> bool {
    matches!(n, Node::Game(_)) || n.is_view_link()
}

fn invalid(message: &str) -> Error {
    Error::new(ErrorKind::InvalidInput, message)
}

/// The most text a game file may be given while open (a draft lives in memory): above any
/// format's limit for one item (PGN 4 MiB, SGF 16 MiB), so nothing storable is refused here.
pub(crate) const MAX_DRAFT_BYTES: u64 = 16 << 20;

/// When a game's draft is saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    /// A flush or fsync: what changed since the last save.
    Flush,
    /// A handle's close (the kernel's late RELEASE): what the handle wrote since its last
    /// flush; the draft's last writer also saves what is left unsaved (a game truncated and never
    /// written: refused, a game cannot be empty).
    Close {
        /// The handle wrote since its last flush.
        written: bool,
    },
}

/// Refuse to grow a game's draft to `len` bytes past [`MAX_DRAFT_BYTES`] (EFBIG).
fn check_draft_len(len: u64) -> Result<()> {
    if len > MAX_DRAFT_BYTES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "a game file holds at most {} MiB of text (copy big files in under a new name to import them)",
                MAX_DRAFT_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

/// The refusal of a change to a game in `.deleted/` (its files are r--r--r--).
fn deleted_games_are_read_only() -> Error {
    Error::new(
        ErrorKind::PermissionDenied,
        "games in .deleted/ cannot be edited; move them back to games/ first",
    )
}

/// The refusal of any change under `tree/` and `positions/`.
fn positions_are_read_only() -> Error {
    not_permitted("tree/ and positions/ show the games by position and cannot be changed")
}

impl Vfs {
    /// Open file `ino`; a game opened for writing gets a draft holding its text (or nothing,
    /// with O_TRUNC) that is saved at flush/fsync/close.
    pub fn open(&self, ino: u64, mode: OpenMode) -> Result<Opened> {
        let node = self.node(ino)?;
        if mode.write {
            self.check_writable()?;
        }
        // At most once a second: another program's change shows at the next open of any file
        // (a game, a query's count, an `all.pgn`, a `tree.txt`, the status files).
        self.notice_outside_changes();
        match node {
            Node::Game(n) => {
                if mode.write {
                    if self.coll.deleted(n) {
                        return Err(deleted_games_are_read_only());
                    }
                    self.open_draft(n, mode.truncate)?;
                } else if !lock(&self.drafts).contains_key(&n) && self.known_size(n).is_none() {
                    // Render now so a damaged record fails at open, not mid-read; a game
                    // rendered before (its size is known) is fine, and the kernel may still
                    // hold its pages.
                    self.text(n)?;
                }
                let drafted = lock(&self.drafts).contains_key(&n);
                let keep_cache = !mode.write && !drafted && !lock(&self.saved).contains(&n);
                // While a save is in progress, everyone reads the draft straight from gamefs:
                // through the page cache, a read racing the writer's truncation could leave
                // zero-filled pages behind (the kernel pads a short read up to the size it knew).
                Ok(self.handle(node, mode, keep_cache, mode.write || drafted))
            }
            Node::Scratch(id) => {
                let mut scratch = self.scratch_idle(id);
                let f = scratch
                    .get_mut(id)
                    .ok_or_else(|| Error::new(ErrorKind::NotFound, "gone"))?;
                if mode.truncate && mode.write {
                    f.kind = ScratchKind::File(Content::default());
                    f.dirty = true;
                    f.touch();
                }
                scratch.opened(id);
                drop(scratch);
                Ok(self.handle(node, mode, false, false))
            }
            Node::StatusErrors | Node::StatusReadme | Node::StatusStats => {
                if mode.write {
                    return Err(Error::new(
                        ErrorKind::PermissionDenied,
                        "status files are read-only",
                    ));
                }
                Ok(self.handle(node, mode, false, true))
            }
            link if link.is_view_link() => Ok(self.handle(node, mode, true, false)),
            all if all.is_all_file() && mode.write => Err(Error::new(
                ErrorKind::PermissionDenied,
                "all.pgn follows the folder's games: save the games themselves",
            )),
            // Read straight from gamefs: a save elsewhere changes its size at any time, and
            // a read must not be cut at a size the kernel cached before it.
            all if all.is_all_file() => Ok(self.handle(node, mode, false, true)),
            Node::QueryCount(_) if mode.write => Err(Error::new(
                ErrorKind::PermissionDenied,
                "count follows the games: it cannot be written",
            )),
            Node::QueryCount(_) => Ok(self.handle(node, mode, false, true)),
            Node::QueryEntry(..) if mode.write => Err(Error::new(
                ErrorKind::PermissionDenied,
                "an ending's entry follows its game: save the game itself",
            )),
            Node::QueryEntry(..) => Ok(self.handle(node, mode, false, true)),
            Node::TreeText(_) | Node::FenText(_) => {
                if mode.write {
                    return Err(positions_are_read_only());
                }
                // Made anew when a save changes the games: no pages kept from before.
                Ok(self.handle(node, mode, false, false))
            }
            _ if mode.write => Err(Error::new(ErrorKind::IsADirectory, "is a folder")),
            _ => Ok(self.handle(node, mode, true, false)),
        }
    }

    fn handle(&self, node: Node, mode: OpenMode, keep_cache: bool, direct_io: bool) -> Opened {
        let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
        lock(&self.handles).insert(
            fh,
            Handle {
                node,
                append: mode.append,
                write: mode.write,
                stage: Stage::Opened,
                last_writer: None,
            },
        );
        Opened {
            fh,
            keep_cache,
            direct_io,
        }
    }

    /// Open game `n`'s draft for one more handle: the open one, or one made of the stored
    /// text (emptied with `truncate`). A draft whose save was refused starts again from the
    /// stored text, as a reader sees it.
    fn open_draft(&self, n: u32, truncate: bool) -> Result<()> {
        let mut drafts = lock(&self.drafts);
        if let Some(d) = drafts.get_mut(&n)
            && (truncate || !d.refused)
        {
            d.open += 1;
            if truncate {
                d.data.clear();
                d.changed();
            }
            return Ok(());
        }
        drop(drafts);
        let data = if truncate {
            Vec::new()
        } else {
            self.text(n)?.to_vec()
        };
        match lock(&self.drafts).entry(n) {
            // Refused, or opened by another handle meanwhile (then its text is the one).
            Entry::Occupied(e) => {
                let d = e.into_mut();
                if d.refused {
                    d.data = data;
                    d.refused = false;
                }
                d.open += 1;
            }
            Entry::Vacant(e) => {
                e.insert(Draft {
                    data,
                    dirty: truncate,
                    written: false,
                    refused: false,
                    open: 1,
                });
            }
        }
        Ok(())
    }

    /// Create `name` in folder `parent` and open it as `open` says (O_CREAT; with `exclusive`,
    /// O_EXCL). Every created file starts as a scratch file; a `.pgn` one is saved (as the game
    /// its number names, or as new games) when it is flushed, synced or closed. An existing
    /// name (a race with another creator) is opened as it is, truncated only with O_TRUNC.
    pub fn create(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        exclusive: bool,
        open: OpenMode,
    ) -> Result<(Attr, Opened)> {
        self.check_writable()?;
        if let Some(existing) = self.child(parent, name)? {
            if exclusive {
                return Err(Error::new(ErrorKind::AlreadyExists, "exists"));
            }
            let opened = self.open(existing.ino(), open)?;
            return Ok((self.attr(existing, true), opened));
        }
        let node = self.new_scratch_file(parent, name, mode)?;
        let opened = self.open(
            node.ino(),
            OpenMode {
                write: true,
                truncate: false,
                append: false,
            },
        )?;
        Ok((self.attr(node, true), opened))
    }

    /// A new, empty scratch file `name` in `parent` (the caller checked the name is free);
    /// a name that would be saved is dirty from the start, so closing it saves even nothing.
    pub(super) fn new_scratch_file(&self, parent: u64, name: &OsStr, mode: u32) -> Result<Node> {
        self.check_scratch_parent(parent)?;
        let mut scratch = lock(&self.scratch);
        let id = scratch.create(
            parent,
            name,
            ScratchKind::File(Content::default()),
            mode & 0o7777,
        );
        if let Some(f) = scratch.get_mut(id) {
            f.dirty = self.target_of(name).is_some();
        }
        Ok(Node::Scratch(id))
    }

    fn check_scratch_parent(&self, parent: u64) -> Result<()> {
        match self.node(parent)? {
            Node::Deleted => Err(not_permitted(".deleted/ only holds deleted games")),
            Node::Status => Err(not_permitted(".gamefs/ holds only status files")),
            Node::PositionsRoot
            | Node::SlicePositions(_)
            | Node::Position(_)
            | Node::PositionGames(_) => Err(positions_are_read_only()),
            Node::QueryRoot | Node::Query(_) | Node::QueryGames(_) | Node::QueryEntries(_) => Err(
                not_permitted("query folders follow the games: save the games themselves"),
            ),
            Node::Game(_)
            | Node::Link(..)
            | Node::SideLink(..)
            | Node::Scratch(_)
            | Node::StatusErrors
            | Node::StatusReadme
            | Node::StatusStats
            | Node::PositionLink(..)
            | Node::TreeText(_)
            | Node::FenText(_) => Err(Error::new(ErrorKind::NotADirectory, "not a folder")),
            _ => Ok(()),
        }
    }

    /// Write `data` at `offset` through handle `fh` for process `caller`; returns the bytes
    /// written.
    pub fn write(&self, ino: u64, fh: u64, offset: u64, data: &[u8], caller: u32) -> Result<u32> {
        self.check_writable()?;
        let append = match lock(&self.handles).get_mut(&fh) {
            Some(h) => {
                h.stage = Stage::Written;
                h.last_writer = Some(caller);
                h.append
            }
            None => false,
        };
        match self.node(ino)? {
            Node::Game(n) => {
                let mut drafts = lock(&self.drafts);
                let d = drafts.get_mut(&n).ok_or_else(|| {
                    Error::new(ErrorKind::PermissionDenied, "not open for writing")
                })?;
                let at = if append { d.data.len() as u64 } else { offset };
                check_draft_len(at.saturating_add(data.len() as u64))?;
                write_at(&mut d.data, at, data);
                d.changed();
                d.written = true;
            }
            Node::Scratch(id) => {
                let mut scratch = self.scratch_idle(id);
                let f = scratch
                    .get_mut(id)
                    .ok_or_else(|| Error::new(ErrorKind::NotFound, "gone"))?;
                let ScratchKind::File(content) = &mut f.kind else {
                    return Err(invalid("not a regular file"));
                };
                let at = if append { content.len() } else { offset };
                content.write_at(at, data)?;
                f.dirty = true;
                f.touch();
            }
            _ => return Err(Error::new(ErrorKind::PermissionDenied, "not writable")),
        }
        Ok(data.len() as u32)
    }

    /// Change size, mode or times of `ino`. Truncating a game without an open handle (the
    /// `truncate` command) saves at once.
    pub fn setattr(&self, ino: u64, change: SetAttr) -> Result<Attr> {
        let node = self.node(ino)?;
        let changes = change.size.is_some()
            || change.mode.is_some()
            || change.mtime.is_some()
            || change.atime.is_some()
            || change.uid.is_some()
            || change.gid.is_some();
        if changes {
            self.check_writable()?;
        }
        // Files belong to the user who mounted: a chown to that owner (cp -p, tar, rsync -a)
        // changes nothing and succeeds; any other owner is refused.
        if change.uid.is_some_and(|u| u != self.options.uid)
            || change.gid.is_some_and(|g| g != self.options.gid)
        {
            return Err(not_permitted("gamefs files belong to the user who mounted"));
        }
        match node {
            Node::Game(n) => {
                if change.size.is_some() && self.coll.deleted(n) {
                    return Err(deleted_games_are_read_only());
                }
                if let Some(size) = change.size {
                    check_draft_len(size)?;
                    // Through a handle (ftruncate), or by path while a writer is at work
                    // (the kernel's truncation of an O_TRUNC open comes without its handle),
                    // the truncation is part of that writer's save. Otherwise it is a save of
                    // its own: the kernel sends the RELEASE of a closed writer late, so its
                    // draft may still be there, and that release must neither take this text
                    // as its own to save nor close the draft midway (this call holds it too).
                    let writer_at_work = change.handle.is_some() || self.has_busy_writer(n);
                    self.open_draft(n, false)?;
                    let own_save = lock(&self.drafts).get_mut(&n).and_then(|d| {
                        d.data.resize(size as usize, 0);
                        if writer_at_work && d.open > 1 {
                            d.changed();
                            // Emptied by path is what an O_TRUNC open does: the writer's save
                            // waits for its text (see `commit_draft`).
                            d.written |= change.handle.is_some();
                            None
                        } else {
                            Some(d.data.clone())
                        }
                    });
                    let result = own_save.map_or(Ok(()), |text| self.save_game_text(n, &text));
                    self.close_draft(n);
                    result?;
                }
                // Mode and times of game files are the database's: accepted and ignored, as
                // editors set them after every save.
            }
            Node::Scratch(id) => {
                let mut scratch = self.scratch_idle(id);
                if let Some(f) = scratch.get_mut(id) {
                    if let (Some(size), ScratchKind::File(content)) = (change.size, &mut f.kind) {
                        content.set_len(size)?;
                        f.dirty = true;
                        f.touch();
                    }
                    if let Some(mode) = change.mode {
                        f.mode = mode & 0o7777;
                    }
                    if let Some(t) = change.atime {
                        f.atime = t;
                    }
                    if let Some(t) = change.mtime {
                        f.mtime = t;
                    }
                    f.ctime = SystemTime::now();
                }
            }
            Node::TreeText(_) | Node::FenText(_) if change.size.is_some() => {
                return Err(positions_are_read_only());
            }
            Node::StatusErrors | Node::StatusReadme | Node::StatusStats
                if change.size.is_some() =>
            {
                return Err(Error::new(
                    ErrorKind::PermissionDenied,
                    "status files are read-only",
                ));
            }
            _ if change.size.is_some() => {
                return Err(Error::new(ErrorKind::IsADirectory, "not a regular file"));
            }
            _ => {}
        }
        Ok(self.attr(node, true))
    }

    /// Save what was written through handle `fh` of `ino` at a close by process `caller`.
    /// The kernel sends a flush for every close of every copy of a descriptor, and only the
    /// writer's own saves: another process closing its copy (every process the writer forks
    /// closes one at `exec`) may come between the two requests the kernel cut one `write`
    /// into, and would save half a game. What such a flush skips, the writer's own flush
    /// saves, or at the latest the last close.
    pub fn flush(&self, ino: u64, fh: u64, caller: u32) -> Result<()> {
        let writer = lock(&self.handles).get(&fh).and_then(|h| h.last_writer);
        if writer.is_some_and(|w| !same_process(w, caller)) {
            return Ok(());
        }
        self.fsync(ino, fh)
    }

    /// Save what was written through handle `fh` of `ino` if anything changed (fsync, and the
    /// writer's own flush). Only a handle opened for writing saves: a reader closing the file
    /// while a writer is half-way through (just after its O_TRUNC, or in the middle of a
    /// `cp`) must not save the half-written text.
    pub fn fsync(&self, ino: u64, fh: u64) -> Result<()> {
        let reader = match lock(&self.handles).get_mut(&fh) {
            Some(h) => {
                h.stage = Stage::Flushed;
                !h.write
            }
            None => false,
        };
        if reader {
            return Ok(());
        }
        self.save_open(ino, Moment::Flush)
    }

    /// Save `ino` at `moment` (see [`Moment`]).
    fn save_open(&self, ino: u64, moment: Moment) -> Result<()> {
        match Node::from_ino(ino) {
            Some(Node::Game(n)) => self.commit_draft(n, moment),
            Some(Node::Scratch(id)) => self.commit_scratch(id),
            _ => Ok(()),
        }
    }

    /// Close handle `fh` of `ino`: save anything still unsaved, then let go of the draft.
    pub fn release(&self, ino: u64, fh: u64) {
        let Some(handle) = lock(&self.handles).remove(&fh) else {
            return;
        };
        let moment = Moment::Close {
            written: handle.stage == Stage::Written,
        };
        if handle.write
            && let Err(e) = self.save_open(ino, moment)
        {
            log::warn!("unsaved at close: {e}");
        }
        match handle.node {
            // A reader's close (which the kernel may send after a writer opened) must not
            // close the writer's draft.
            Node::Game(n) if handle.write => self.close_draft(n),
            Node::Scratch(id) => lock(&self.scratch).closed(id),
            _ => {}
        }
        if let Node::Game(n) = handle.node
            && !self.is_open(handle.node)
        {
            lock(&self.orphans).remove(&n);
        }
    }

    /// True while a handle opened for writing game `n` is in use: opened, or written to, and
    /// not closed by its writer since.
    fn has_busy_writer(&self, n: u32) -> bool {
        lock(&self.handles)
            .values()
            .any(|h| h.node == Node::Game(n) && h.write && h.stage != Stage::Flushed)
    }

    /// True while some handle refers to `node`.
    pub(super) fn is_open(&self, node: Node) -> bool {
        lock(&self.handles).values().any(|h| h.node == node)
    }

    fn close_draft(&self, n: u32) {
        let mut drafts = lock(&self.drafts);
        if let Some(d) = drafts.get_mut(&n) {
            d.open = d.open.saturating_sub(1);
            if d.open == 0 {
                drafts.remove(&n);
                drop(drafts);
                self.invalidate(&[Node::Game(n)], &[]);
            }
        }
    }

    /// Save game `n`'s draft if it changed. A draft emptied by O_TRUNC and not written yet
    /// waits for its last close: a shell redirect (`cmd > game`) closes its first descriptor
    /// before the command writes, and that FLUSH must not save (and refuse) an empty game.
    /// A refused save leaves the draft to its writer and the stored game to readers.
    fn commit_draft(&self, n: u32, moment: Moment) -> Result<()> {
        let text = {
            let mut drafts = lock(&self.drafts);
            let Some(d) = drafts.get_mut(&n) else {
                return Ok(());
            };
            // Whether this close is the last writer's is decided under the lock that takes the
            // text: the kernel sends a close late, and another writer may have opened (and
            // truncated) the game since; its text is not this close's to save.
            let last = matches!(moment, Moment::Close { .. }) && d.open <= 1;
            let due = match moment {
                Moment::Flush => true,
                Moment::Close { written } => written || last,
            };
            if !(due && d.dirty && (last || d.written || !d.data.is_empty())) {
                return Ok(());
            }
            d.dirty = false;
            d.data.clone()
        };
        let saved = self.save_game_text(n, &text);
        if saved.is_err() {
            // Unless written again meanwhile (then that text is the one to serve and save).
            if let Some(d) = lock(&self.drafts).get_mut(&n)
                && !d.dirty
                && d.data == text
            {
                d.refused = true;
            }
            self.invalidate(&[Node::Game(n)], &[]);
        }
        saved
    }

    /// Save `text` as game `n` under its file's name (refused text is reported and kept).
    fn save_game_text(&self, n: u32, text: &[u8]) -> Result<()> {
        let name = self.game_name(n);
        self.commit(Target::Game(n), OsStr::new(&name), text)
    }

    /// Remove `name` from `parent`: a game is marked deleted, a scratch file goes away.
    pub fn unlink(&self, parent: u64, name: &OsStr) -> Result<()> {
        self.check_writable()?;
        match self.child(parent, name)? {
            Some(Node::Scratch(id)) => {
                lock(&self.scratch).unlink(id);
                Ok(())
            }
            Some(Node::Game(n)) if self.node(parent)? == Node::Games => self.set_deleted(n, true),
            Some(Node::Game(_)) => Err(not_permitted("deleted games stay until `gamefs compact`")),
            Some(link) if link.is_view_link() => Err(not_permitted(
                "view links follow the games; rm the game in games/ instead",
            )),
            Some(Node::StatusErrors | Node::StatusReadme | Node::StatusStats) => Err(
                not_permitted("the status files of .gamefs/ cannot be removed"),
            ),
            Some(all) if all.is_all_file() => Err(all_files_are_read_only()),
            Some(Node::PositionLink(..) | Node::TreeText(_) | Node::FenText(_)) => {
                Err(positions_are_read_only())
            }
            Some(_) => Err(Error::new(ErrorKind::IsADirectory, "is a folder")),
            None => Err(Error::new(ErrorKind::NotFound, "no such file")),
        }
    }

    /// Make a scratch symlink (emacs lock files and the like).
    pub fn symlink(&self, parent: u64, name: &OsStr, target: &[u8]) -> Result<Attr> {
        self.check_writable()?;
        if self.child(parent, name)?.is_some() {
            return Err(Error::new(ErrorKind::AlreadyExists, "exists"));
        }
        self.check_scratch_parent(parent)?;
        let id =
            lock(&self.scratch).create(parent, name, ScratchKind::Symlink(target.to_vec()), 0o777);
        Ok(self.attr(Node::Scratch(id), true))
    }

    /// Rename `name` in `parent` to `new_name` in `new_parent` (see docs/SEMANTICS.md §6).
    pub fn rename(
        &self,
        parent: u64,
        name: &OsStr,
        new_parent: u64,
        new_name: &OsStr,
        flags: RenameFlags,
    ) -> Result<()> {
        self.check_writable()?;
        let source = self
            .child(parent, name)?
            .ok_or_else(|| Error::new(ErrorKind::NotFound, "no such file"))?;
        let target = self.child(new_parent, new_name)?;
        if [Some(source), target]
            .into_iter()
            .any(|n| n.is_some_and(Node::is_all_file))
        {
            return Err(all_files_are_read_only());
        }
        if flags.noreplace && target.is_some() {
            return Err(Error::new(ErrorKind::AlreadyExists, "the target exists"));
        }
        if flags.exchange {
            return match (source, target) {
                (Node::Scratch(a), Some(Node::Scratch(b))) => {
                    lock(&self.scratch).exchange(a, b);
                    Ok(())
                }
                (_, None) => Err(Error::new(
                    ErrorKind::NotFound,
                    "no target to exchange with",
                )),
                _ => Err(invalid("only scratch files can be exchanged")),
            };
        }
        let to_parent = self.node(new_parent)?;
        match source {
            Node::Scratch(id) => self.rename_scratch(id, new_parent, new_name, target),
            Node::Game(n) => self.rename_game(n, to_parent, new_parent, new_name, target),
            link if link.is_view_link() => Err(not_permitted("view links cannot be moved")),
            _ => Err(not_permitted("folders cannot be renamed")),
        }
    }

    fn rename_scratch(
        &self,
        id: u64,
        new_parent: u64,
        new_name: &OsStr,
        target: Option<Node>,
    ) -> Result<()> {
        let to_status = new_parent == Node::Rejected.ino();
        match (to_status, self.target_of(new_name), target) {
            // Onto a game, or a new .pgn name: the text is saved; on success the scratch goes away.
            (false, Some(t), _) => {
                self.commit_renamed(id, t, new_name)?;
                let mut scratch = lock(&self.scratch);
                if let Some(Node::Scratch(old)) = target {
                    scratch.unlink(old);
                }
                scratch.unlink(id);
                if let Target::Game(n) = t {
                    // The kernel moves the renamed node onto the game's name.
                    scratch.became_game(id, n);
                    drop(scratch);
                    lock(&self.hidden).remove(&n);
                }
                Ok(())
            }
            (_, _, Some(n)) if is_game_or_link(n) => Err(not_permitted("cannot replace that")),
            (_, _, Some(n)) if !matches!(n, Node::Scratch(_)) => {
                Err(Error::new(ErrorKind::IsADirectory, "is a folder"))
            }
            _ => {
                self.check_scratch_parent(new_parent)?;
                lock(&self.scratch).rename(id, new_parent, new_name);
                Ok(())
            }
        }
    }

    fn rename_game(
        &self,
        n: u32,
        to_parent: Node,
        new_parent: u64,
        new_name: &OsStr,
        target: Option<Node>,
    ) -> Result<()> {
        let deleted = self.coll.deleted(n);
        match (to_parent, self.target_of(new_name)) {
            // Between games/ and .deleted/: delete or restore.
            (Node::Deleted, _) if !deleted => self.set_deleted(n, true),
            (Node::Games, Some(_)) if deleted && self.keeps_number(n, new_name) => {
                self.set_deleted(n, false)
            }
            // Another name for the same game: nothing changes.
            (Node::Games, Some(Target::Game(m))) if m == n && !deleted => Ok(()),
            // To a scratch name: the text is kept there and the game steps aside until a file
            // of its name is written again (the editors' backup dance).
            (_, None) if !deleted => {
                if target.is_some_and(is_game_or_link) {
                    return Err(not_permitted("cannot replace that"));
                }
                self.check_scratch_parent(new_parent)?;
                let text = self.text(n)?.to_vec();
                let mut scratch = lock(&self.scratch);
                if let Some(Node::Scratch(old)) = target {
                    scratch.unlink(old);
                }
                scratch.create(new_parent, new_name, ScratchKind::file(text), 0o644);
                drop(scratch);
                lock(&self.hidden).insert(n);
                let name = self.game_name(n);
                self.invalidate(&[Node::Games], &[(Node::Games.ino(), OsStr::new(&name))]);
                Ok(())
            }
            _ => Err(not_permitted(
                "a game can move between games/ and .deleted/, or to a scratch name",
            )),
        }
    }
}

impl Vfs {
    /// A name moved back from `.deleted/` must name the same item (or none).
    fn keeps_number(&self, n: u32, name: &OsStr) -> bool {
        self.coll
            .item_named(name.as_encoded_bytes())
            .is_none_or(|m| m == n)
    }
}

/// True when threads `a` and `b` (ids as the kernel gives them with each request) belong to
/// one process: its threads share their descriptors, a forked child has copies of its own.
/// Id 0 (a process outside gamefs's pid namespace, or the kernel's own writeback) is taken as
/// the same: when in doubt, a flush saves.
fn same_process(a: u32, b: u32) -> bool {
    a == b || a == 0 || b == 0 || std::path::Path::new(&format!("/proc/{b}/task/{a}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::testing::{
        CALLER, FORKED, GameUnderTest, WRITE, WRITE_NEW, demo_tree, writable_game,
    };

    /// A new `new.pgn` in `games/`, open for writing, as `cp` or an editor creates it.
    fn create_new_pgn(vfs: &Vfs) -> (Attr, Opened) {
        vfs.create(
            Node::Games.ino(),
            OsStr::new("new.pgn"),
            0o644,
            false,
            WRITE_NEW,
        )
        .unwrap()
    }

    /// The bundled demo games as PGN text.
    fn demo_pgn() -> Vec<u8> {
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/contrib/sample/demo.pgn"
        ))
        .unwrap()
    }

    #[test]
    fn a_readers_late_close_does_not_drop_a_writers_draft() {
        let GameUnderTest {
            _dir,
            vfs,
            ino,
            text,
        } = writable_game(2);
        let reader = vfs.open(ino, OpenMode::default()).unwrap();
        let writer = vfs.open(ino, WRITE_NEW).unwrap();
        // The kernel sends the reader's RELEASE asynchronously: after the writer opened.
        vfs.release(ino, reader.fh);
        vfs.setattr(
            ino,
            // The kernel's truncation of an O_TRUNC open, which comes without its handle.
            SetAttr {
                size: Some(0),
                ..SetAttr::default()
            },
        )
        .unwrap();
        let edited = String::from_utf8(text)
            .unwrap()
            .replacen("[Site \"", "[Site \"Late ", 1);
        vfs.write(ino, writer.fh, 0, edited.as_bytes(), CALLER)
            .unwrap();
        vfs.flush(ino, writer.fh, CALLER)
            .expect("the save succeeds");
        vfs.release(ino, writer.fh);
        assert!(
            String::from_utf8(vfs.text(2).unwrap().to_vec())
                .unwrap()
                .contains("[Site \"Late ")
        );
    }

    #[test]
    fn a_shell_redirects_first_close_is_not_a_save() {
        let GameUnderTest {
            _dir,
            vfs,
            ino,
            text,
        } = writable_game(4);
        let edited =
            String::from_utf8(text)
                .unwrap()
                .replacen("[Site \"", "[Site \"Redirected ", 1);
        // `cmd > game` on a kernel that truncates apart from the open: open, the truncation
        // by path, the close of the descriptor the shell moved to stdout, then the command's
        // text and its close.
        let w = vfs.open(ino, WRITE).unwrap();
        let emptied = SetAttr {
            size: Some(0),
            ..SetAttr::default()
        };
        vfs.setattr(ino, emptied).unwrap();
        vfs.flush(ino, w.fh, CALLER)
            .expect("the first close saves nothing");
        vfs.write(ino, w.fh, 0, edited.as_bytes(), CALLER).unwrap();
        vfs.flush(ino, w.fh, CALLER)
            .expect("the command's close saves");
        vfs.release(ino, w.fh);
        assert_eq!(vfs.errors.total(), 0, "no refused save was recorded");
        assert_eq!(&*vfs.text(4).unwrap(), edited.as_bytes());
    }

    #[test]
    fn a_file_saved_into_a_game_keeps_answering_as_that_game() {
        let GameUnderTest {
            _dir, vfs, text, ..
        } = writable_game(3);
        let name = vfs.game_name(3);
        let games = Node::Games.ino();
        let edited = String::from_utf8(text)
            .unwrap()
            .replacen("[Site \"", "[Site \"Installed ", 1);
        // `install x game`: unlink the game, create its name anew, write, close, then chmod by
        // path, which the kernel may still send to the created file's inode: the entry's
        // invalidation is queued, not done, when the close returns.
        vfs.unlink(games, OsStr::new(&name)).unwrap();
        let (attr, created) = vfs
            .create(games, OsStr::new(&name), 0o600, true, WRITE_NEW)
            .unwrap();
        vfs.write(attr.ino, created.fh, 0, edited.as_bytes(), CALLER)
            .unwrap();
        vfs.flush(attr.ino, created.fh, CALLER).unwrap();
        vfs.release(attr.ino, created.fh);
        let chmod = SetAttr {
            mode: Some(0o644),
            ..SetAttr::default()
        };
        let now = vfs
            .setattr(attr.ino, chmod)
            .expect("chmod reaches the game");
        assert_eq!(now.ino, Node::Game(3).ino());
        assert_eq!(vfs.getattr(attr.ino).unwrap().ino, Node::Game(3).ino());
        assert_eq!(&*vfs.text(3).unwrap(), edited.as_bytes());
        // `mv tmp game`: the kernel moves the temporary file's node onto the game's name.
        let renamed = edited.replacen("[Site \"Installed ", "[Site \"Moved ", 1);
        let tmp = OsStr::new("game.tmp");
        let (attr, created) = vfs.create(games, tmp, 0o600, true, WRITE_NEW).unwrap();
        vfs.write(attr.ino, created.fh, 0, renamed.as_bytes(), CALLER)
            .unwrap();
        vfs.flush(attr.ino, created.fh, CALLER).unwrap();
        vfs.release(attr.ino, created.fh);
        vfs.rename(games, tmp, games, OsStr::new(&name), RenameFlags::default())
            .unwrap();
        assert_eq!(vfs.getattr(attr.ino).unwrap().ino, Node::Game(3).ino());
        assert_eq!(&*vfs.text(3).unwrap(), renamed.as_bytes());
        assert_eq!(vfs.errors.total(), 0);
    }

    #[test]
    fn a_reader_closing_mid_save_saves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let files = |ext: &str| std::fs::read(dir.path().join(format!("db.{ext}"))).unwrap();
        let before = (files("si4"), files("sg4"));
        let read = OpenMode::default();
        let write = WRITE_NEW;
        // A game just truncated by its writer, closed by a reader before the text arrives.
        let ino = Node::Game(3).ino();
        let text = vfs.text(3).unwrap().to_vec();
        let writer = vfs.open(ino, write).unwrap();
        let reader = vfs.open(ino, read).unwrap();
        vfs.flush(ino, reader.fh, CALLER)
            .expect("a reader's close is not a save");
        vfs.release(ino, reader.fh);
        assert_eq!(before, (files("si4"), files("sg4")));
        assert_eq!(vfs.errors.total(), 0, "no refused save was recorded");
        vfs.write(ino, writer.fh, 0, &text, CALLER).unwrap();
        vfs.flush(ino, writer.fh, CALLER).unwrap();
        vfs.release(ino, writer.fh);
        // A new file half-way through its copy, closed by a reader: nothing is imported yet.
        let (attr, created) = create_new_pgn(&vfs);
        let demo = demo_pgn();
        vfs.write(attr.ino, created.fh, 0, &demo[..demo.len() / 2], CALLER)
            .unwrap();
        let reader = vfs.open(attr.ino, read).unwrap();
        vfs.flush(attr.ino, reader.fh, CALLER).unwrap();
        vfs.release(attr.ino, reader.fh);
        assert_eq!(before, (files("si4"), files("sg4")), "nothing imported");
        vfs.write(
            attr.ino,
            created.fh,
            (demo.len() / 2) as u64,
            &demo[demo.len() / 2..],
            CALLER,
        )
        .unwrap();
        vfs.flush(attr.ino, created.fh, CALLER).unwrap();
        vfs.release(attr.ino, created.fh);
        assert_ne!(
            before.1,
            files("sg4"),
            "the whole file is imported at the writer's close"
        );
    }

    #[test]
    fn a_forked_copys_close_saves_nothing_and_the_writers_close_saves_all() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let sg4 = || std::fs::read(dir.path().join("db.sg4")).unwrap();
        let before = sg4();
        let games = vfs.coll.count() as usize;
        let (attr, created) = create_new_pgn(&vfs);
        let demo = demo_pgn();
        // The kernel cut one write in two; a forked child's close comes in between.
        let cut = demo.len() / 2;
        vfs.write(attr.ino, created.fh, 0, &demo[..cut], CALLER)
            .unwrap();
        vfs.flush(attr.ino, created.fh, FORKED).unwrap();
        assert_eq!(before, sg4(), "nothing imported at the child's close");
        assert_eq!(vfs.errors.total(), 0, "no refused save was recorded");
        vfs.write(attr.ino, created.fh, cut as u64, &demo[cut..], CALLER)
            .unwrap();
        vfs.flush(attr.ino, created.fh, CALLER).unwrap();
        vfs.release(attr.ino, created.fh);
        assert_eq!(
            vfs.errors.total(),
            0,
            "{}",
            String::from_utf8_lossy(&vfs.errors.text())
        );
        let demo_games = demo.windows(8).filter(|w| w == b"[Event \"").count();
        assert_eq!(
            vfs.coll.count() as usize,
            games + demo_games,
            "every game once"
        );
    }

    #[test]
    fn a_truncate_by_path_saves_at_once_even_before_a_closed_writers_release() {
        let GameUnderTest {
            _dir,
            vfs,
            ino,
            text,
        } = writable_game(1);
        let size = |size, handle| SetAttr {
            size: Some(size),
            handle,
            ..SetAttr::default()
        };
        // ftruncate(fd, 0) and close: refused at the flush; the RELEASE comes later.
        let w = vfs.open(ino, WRITE).unwrap();
        vfs.setattr(ino, size(0, Some(w.fh))).unwrap();
        let refused = vfs.flush(ino, w.fh, CALLER).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::InvalidInput);
        // truncate(2) meanwhile is a save of its own: refused too, not taken into the draft.
        let refused = vfs.setattr(ino, size(0, None)).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::InvalidInput);
        vfs.release(ino, w.fh);
        assert_eq!(&*vfs.text(1).unwrap(), &text[..], "the game as it was");
        // truncate(2) to a shorter text that still holds the game saves it.
        let end = text.len() - 1;
        assert_eq!(text[end], b'\n');
        vfs.setattr(ino, size(end as u64, None)).unwrap();
        assert_eq!(vfs.errors.total(), 2, "the two refusals only");
    }

    #[test]
    fn a_late_close_racing_the_next_save_saves_none_of_its_text() {
        let GameUnderTest { _dir, vfs, ino, .. } = writable_game(1);
        let refused = |i: usize| format!("[White \"Race {i}\"]\n\n1. e5 *\n");
        let rounds = 2000;
        for i in 0..rounds {
            // A save refused at its close; the kernel's RELEASE of it comes late, on another
            // of the mount's threads, while the same program saves again (as an editor
            // retrying a save does): only the two saves' own texts are saved, and refused.
            let first = vfs.open(ino, WRITE_NEW).unwrap();
            vfs.write(ino, first.fh, 0, refused(2 * i).as_bytes(), CALLER)
                .unwrap();
            vfs.flush(ino, first.fh, CALLER).unwrap_err();
            let start = std::sync::Barrier::new(2);
            let second = std::thread::scope(|s| {
                s.spawn(|| {
                    start.wait();
                    vfs.release(ino, first.fh);
                });
                start.wait();
                // The close and the open meet at a different moment each round.
                for _ in 0..(i % 100) * 20 {
                    std::hint::spin_loop();
                }
                let second = vfs.open(ino, WRITE_NEW).unwrap();
                vfs.write(ino, second.fh, 0, refused(2 * i + 1).as_bytes(), CALLER)
                    .unwrap();
                vfs.fsync(ino, second.fh).unwrap_err();
                second
            });
            vfs.release(ino, second.fh);
            let kept = vfs
                .lookup(Node::Rejected.ino(), OsStr::new(&vfs.game_name(1)))
                .unwrap();
            assert_eq!(
                vfs.read(kept.ino, 0, 100).unwrap(),
                refused(2 * i + 1).as_bytes(),
                "round {i}: the text kept is the last save's"
            );
            assert_eq!(
                vfs.counters
                    .rejected
                    .load(std::sync::atomic::Ordering::Relaxed),
                2 * (i as u64 + 1),
                "round {i}: two saves, two refusals, nothing saved by the late close"
            );
        }
    }

    #[test]
    fn an_fsync_from_any_process_saves() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let games = vfs.coll.count() as usize;
        let (attr, created) = create_new_pgn(&vfs);
        let game = b"[White \"A\"]\n[Black \"B\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
        vfs.write(attr.ino, created.fh, 0, game, CALLER).unwrap();
        vfs.fsync(attr.ino, created.fh).unwrap();
        assert_eq!(vfs.coll.count() as usize, games + 1);
        vfs.release(attr.ino, created.fh);
        assert_eq!(vfs.coll.count() as usize, games + 1, "saved once");
    }

    #[test]
    fn threads_of_one_process_are_one_writer_and_a_child_is_not() {
        let me = std::process::id();
        assert!(same_process(me, me));
        assert!(
            same_process(0, me) && same_process(me, 0),
            "an unknown process may be it"
        );
        let mut child = std::process::Command::new("sleep")
            .arg("1")
            .spawn()
            .unwrap();
        assert!(
            !same_process(child.id(), me),
            "a child has descriptors of its own"
        );
        assert!(!same_process(me, child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::spawn(move || {
            // SAFETY: gettid has no preconditions.
            tx.send(unsafe { libc::gettid() } as u32).unwrap();
            done_rx.recv().unwrap();
        });
        let tid = rx.recv().unwrap();
        assert_ne!(tid, me);
        assert!(
            same_process(tid, me),
            "a thread shares the process's descriptors"
        );
        assert!(same_process(me, tid));
        done_tx.send(()).unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn unchanged_text_saves_nothing_and_bad_text_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let ino = Node::Game(4).ino();
        let files = |ext: &str| std::fs::read(dir.path().join(format!("db.{ext}"))).unwrap();
        let before = (files("si4"), files("sg4"));
        let w = vfs
            .open(
                ino,
                OpenMode {
                    write: true,
                    truncate: false,
                    append: true,
                },
            )
            .unwrap();
        vfs.write(ino, w.fh, 0, b"\n", CALLER).unwrap();
        vfs.flush(ino, w.fh, CALLER).unwrap();
        vfs.release(ino, w.fh);
        assert_eq!(
            before,
            (files("si4"), files("sg4")),
            "an appended newline changes nothing"
        );
        let w = vfs.open(ino, WRITE_NEW).unwrap();
        vfs.write(ino, w.fh, 0, b"[Event \"x\"]\n\n1. e5 *\n", CALLER)
            .unwrap();
        let err = vfs.flush(ino, w.fh, CALLER).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::InvalidInput);
        vfs.release(ino, w.fh);
        assert_eq!(before, (files("si4"), files("sg4")));
        let rejected = vfs
            .lookup(
                Node::Rejected.ino(),
                std::ffi::OsStr::new(&vfs.game_name(4)),
            )
            .unwrap();
        assert_eq!(
            vfs.read(rejected.ino, 0, 100).unwrap(),
            b"[Event \"x\"]\n\n1. e5 *\n"
        );
    }

    /// What a bulk import salvages as SCID's import does (issue 55) an editor's save refuses,
    /// saying where and why, as before: the save keeps what its user wrote, or nothing.
    #[test]
    fn a_save_refuses_what_an_import_salvages() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let ino = Node::Game(4).ino();
        let files = |ext: &str| std::fs::read(dir.path().join(format!("db.{ext}"))).unwrap();
        let before = (files("si4"), files("sg4"));
        for (text, message) in [
            (
                "[Event \"x\"]\n\n1. e4 e5 2. Nf3 ($142 2. d4) Nc6 *\n",
                "line 3, column 18: an annotation (NAG) must follow a move, but this line has no move yet",
            ),
            (
                "[Black \"Smith, J.\n[Result \"1-0\"]\n\n1. e4 1-0\n",
                "line 1, column 8: the value of tag Black is not closed with '\"' on its line",
            ),
            (
                "[ \"x\"]\n[Event \"x\"]\n\n1. e4 *\n",
                "line 1, column 3: a tag needs a name after '['",
            ),
            (
                "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Z0 3. Bc4 *\n",
                "line 3, column 17: illegal move 2... Z0 in position",
            ),
        ] {
            let w = vfs.open(ino, WRITE_NEW).unwrap();
            vfs.write(ino, w.fh, 0, text.as_bytes(), CALLER).unwrap();
            let err = vfs.flush(ino, w.fh, CALLER).unwrap_err();
            vfs.release(ino, w.fh);
            assert_eq!(err.kind(), crate::error::ErrorKind::InvalidInput, "{text}");
            assert!(err.message().contains(message), "{text}: {err}");
            assert_eq!(before, (files("si4"), files("sg4")), "{text}");
        }
    }
}
