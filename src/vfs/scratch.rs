//! Scratch files: names that are not games (swap files, backups, temp files, lock symlinks,
//! new `.pgn` files not yet imported), held in memory in their folder with ordinary POSIX
//! behaviour. They never reach the database by themselves and vanish at unmount.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::time::SystemTime;

use super::commit::Target;
pub(crate) use super::content::Content;

/// What a scratch node holds.
#[derive(Debug)]
pub(crate) enum ScratchKind {
    /// A regular file and its bytes.
    File(Content),
    /// A symbolic link and its target.
    Symlink(Vec<u8>),
}

impl ScratchKind {
    /// A regular file holding `bytes` in memory.
    pub(crate) fn file(bytes: Vec<u8>) -> ScratchKind {
        ScratchKind::File(Content::Memory(bytes))
    }
}

/// One scratch node.
#[derive(Debug)]
pub(crate) struct ScratchFile {
    /// The folder it is in (inode number), while it has a name.
    pub parent: u64,
    /// Its name in that folder.
    pub name: OsString,
    /// Content.
    pub kind: ScratchKind,
    /// Permission bits.
    pub mode: u32,
    /// Access time (as set by `utimensat`; reads do not change it).
    pub atime: SystemTime,
    /// Modification time.
    pub mtime: SystemTime,
    /// Status-change time.
    pub ctime: SystemTime,
    /// Written since the last commit attempt (only `.pgn` names are ever committed).
    pub dirty: bool,
    /// Still listed in its folder (false once unlinked or renamed away while open).
    pub linked: bool,
    /// Open file handles.
    pub open: u32,
    /// Being saved right now (reads and writes wait; see `saving.rs`).
    pub saving: bool,
    /// The length of the bytes handed out while saving.
    pub held_len: u64,
    /// What an earlier save of it became (it is then saved again as that when more is
    /// written, even without a name).
    pub saved_to: Option<Target>,
    /// How many bytes of it an earlier import took.
    pub imported: u64,
}

impl ScratchFile {
    /// The bytes of a regular file (none for a symlink).
    pub(crate) fn content(&self) -> Option<&Content> {
        match &self.kind {
            ScratchKind::File(c) => Some(c),
            ScratchKind::Symlink(_) => None,
        }
    }

    /// Note a change of content: modification and status-change times are now.
    pub(crate) fn touch(&mut self) {
        self.mtime = SystemTime::now();
        self.ctime = self.mtime;
    }

    /// Size as `stat` reports it.
    pub(crate) fn size(&self) -> u64 {
        match &self.kind {
            ScratchKind::File(_) if self.saving => self.held_len,
            ScratchKind::File(c) => c.len(),
            ScratchKind::Symlink(t) => t.len() as u64,
        }
    }
}

/// All scratch nodes of a mount, by id and by folder.
#[derive(Debug, Default)]
pub(crate) struct ScratchStore {
    files: HashMap<u64, ScratchFile>,
    dirs: HashMap<u64, BTreeMap<OsString, u64>>,
    next_id: u64,
    /// The latest scratch nodes saved into a game, oldest first: see [`Self::became_game`].
    became: VecDeque<(u64, u32)>,
}

/// How many scratch nodes saved into games are remembered ([`ScratchStore::became_game`]):
/// far more than can be waiting for the kernel to forget their names.
const BECAME_KEPT: usize = 1024;

impl ScratchStore {
    /// The id of `name` in folder `parent`.
    pub(crate) fn find(&self, parent: u64, name: &OsStr) -> Option<u64> {
        self.dirs.get(&parent)?.get(name).copied()
    }

    /// Note that node `id` was saved into game `n`, its name now the game's. The kernel
    /// forgets that name's old node only when the invalidation gamefs queued for it is done,
    /// and a `chmod` or `stat` by name right after the save (`install`, `cp -p`, an editor)
    /// may still come to the old node: it then answers as the game ([`Self::game_it_became`]).
    pub(crate) fn became_game(&mut self, id: u64, n: u32) {
        // A file kept open is saved at every flush: one entry for it.
        self.became.retain(|&(i, _)| i != id);
        if self.became.len() == BECAME_KEPT {
            self.became.pop_front();
        }
        self.became.push_back((id, n));
    }

    /// The game that node `id`, now gone, was saved into (see [`Self::became_game`]).
    pub(crate) fn game_it_became(&self, id: u64) -> Option<u32> {
        self.became.iter().find(|&&(i, _)| i == id).map(|&(_, n)| n)
    }

    /// The node with `id`.
    pub(crate) fn get(&self, id: u64) -> Option<&ScratchFile> {
        self.files.get(&id)
    }

    /// The node with `id`, to change it.
    pub(crate) fn get_mut(&mut self, id: u64) -> Option<&mut ScratchFile> {
        self.files.get_mut(&id)
    }

    /// Names and ids in folder `parent`, in name order.
    pub(crate) fn list(&self, parent: u64) -> Vec<(OsString, u64)> {
        self.dirs
            .get(&parent)
            .map(|d| d.iter().map(|(n, &i)| (n.clone(), i)).collect())
            .unwrap_or_default()
    }

    /// Make a new node `name` in `parent` (the caller checked the name is free).
    pub(crate) fn create(
        &mut self,
        parent: u64,
        name: &OsStr,
        kind: ScratchKind,
        mode: u32,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let now = SystemTime::now();
        self.files.insert(
            id,
            ScratchFile {
                parent,
                name: name.to_owned(),
                kind,
                mode,
                atime: now,
                mtime: now,
                ctime: now,
                dirty: false,
                linked: true,
                open: 0,
                saving: false,
                held_len: 0,
                saved_to: None,
                imported: 0,
            },
        );
        self.dirs
            .entry(parent)
            .or_default()
            .insert(name.to_owned(), id);
        id
    }

    /// Remove the name of node `id`; the node itself lives on while it is open.
    pub(crate) fn unlink(&mut self, id: u64) {
        if let Some(f) = self.files.get_mut(&id) {
            if let Some(dir) = self.dirs.get_mut(&f.parent) {
                dir.remove(&f.name);
            }
            f.linked = false;
            if f.open == 0 {
                self.files.remove(&id);
            }
        }
    }

    /// Give node `id` the name `name` in `parent`, replacing any scratch node of that name.
    pub(crate) fn rename(&mut self, id: u64, parent: u64, name: &OsStr) {
        if let Some(existing) = self.find(parent, name).filter(|&e| e != id) {
            self.unlink(existing);
        }
        if let Some(f) = self.files.get_mut(&id) {
            if let Some(dir) = self.dirs.get_mut(&f.parent) {
                dir.remove(&f.name);
            }
            f.parent = parent;
            f.name = name.to_owned();
            f.linked = true;
            f.ctime = SystemTime::now();
            self.dirs
                .entry(parent)
                .or_default()
                .insert(name.to_owned(), id);
        }
    }

    /// Swap the names of two nodes (RENAME_EXCHANGE).
    pub(crate) fn exchange(&mut self, a: u64, b: u64) {
        let place = |f: &ScratchFile| (f.parent, f.name.clone());
        let (Some((pa, na)), Some((pb, nb))) =
            (self.files.get(&a).map(place), self.files.get(&b).map(place))
        else {
            return;
        };
        self.dirs.entry(pa).or_default().insert(na.clone(), b);
        self.dirs.entry(pb).or_default().insert(nb.clone(), a);
        if let Some(x) = self.files.get_mut(&a) {
            (x.parent, x.name) = (pb, nb);
        }
        if let Some(x) = self.files.get_mut(&b) {
            (x.parent, x.name) = (pa, na);
        }
    }

    /// Note one more open handle of `id`.
    pub(crate) fn opened(&mut self, id: u64) {
        if let Some(f) = self.files.get_mut(&id) {
            f.open += 1;
        }
    }

    /// Note one handle of `id` closed; an unlinked node goes away with its last handle.
    pub(crate) fn closed(&mut self, id: u64) {
        if let Some(f) = self.files.get_mut(&id) {
            f.open = f.open.saturating_sub(1);
            if f.open == 0 && !f.linked {
                self.files.remove(&id);
            }
        }
    }
}

/// Write `data` at `offset` into `buf`, growing it with zeros as needed.
pub(crate) fn write_at(buf: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let start = offset as usize;
    if buf.len() < start + data.len() {
        buf.resize(start + data.len(), 0);
    }
    buf[start..start + data.len()].copy_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_rename_exchange_unlink() {
        let mut s = ScratchStore::default();
        let a = s.create(2, OsStr::new("a"), ScratchKind::file(b"A".to_vec()), 0o644);
        let b = s.create(2, OsStr::new("b"), ScratchKind::file(b"B".to_vec()), 0o644);
        s.exchange(a, b);
        assert_eq!(s.find(2, OsStr::new("a")), Some(b));
        assert_eq!(s.get(a).unwrap().name, "b");
        s.rename(a, 3, OsStr::new("a"));
        assert_eq!(s.find(2, OsStr::new("b")), None);
        assert_eq!(s.list(3), vec![(OsString::from("a"), a)]);
        s.opened(b);
        s.unlink(b);
        assert!(s.get(b).is_some(), "an open file outlives its name");
        s.closed(b);
        assert!(s.get(b).is_none());
    }

    #[test]
    fn rename_over_replaces_the_target() {
        let mut s = ScratchStore::default();
        let a = s.create(2, OsStr::new("a"), ScratchKind::file(vec![]), 0o644);
        let b = s.create(2, OsStr::new("b"), ScratchKind::file(vec![]), 0o644);
        s.rename(a, 2, OsStr::new("b"));
        assert!(s.get(b).is_none());
        assert_eq!(s.find(2, OsStr::new("b")), Some(a));
    }

    #[test]
    fn write_at_extends_with_zeros() {
        let mut buf = b"ab".to_vec();
        write_at(&mut buf, 4, b"cd");
        assert_eq!(buf, b"ab\0\0cd");
        write_at(&mut buf, 0, b"X");
        assert_eq!(buf, b"Xb\0\0cd");
    }
}
