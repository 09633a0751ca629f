//! What the tree does not do, refused with the errno POSIX names for a filesystem that does
//! not support the operation: folders come from the database (mkdir, rmdir: EPERM), a game is
//! one file (hard links: EPERM), only regular files and symlinks exist (mknod of a FIFO,
//! socket or device: EPERM), files belong to the user who mounted (chown: EPERM, in
//! [`super::write`]), and games carry no extended attributes (ENODATA, ENOTSUP).
//!
//! Each refusal first checks what the kernel would check on a local disk, so `mkdir -p` of an
//! existing folder sees EEXIST and a read-only mount EROFS. docs/SEMANTICS.md §13 lists them.

use std::ffi::OsStr;

use super::{Attr, Vfs, is_dir};
use crate::error::{Error, ErrorKind, Result};

/// The EPERM refusal of something the tree does not support, with the reason.
pub(crate) fn not_permitted(message: &str) -> Error {
    Error::new(ErrorKind::NotPermitted, message)
}

impl Vfs {
    /// `mkdir`: an existing name is EEXIST; new folders cannot be made (EPERM).
    pub fn mkdir(&self, parent: u64, name: &OsStr) -> Result<Attr> {
        self.check_writable()?;
        if self.child(parent, name)?.is_some() {
            return Err(Error::new(ErrorKind::AlreadyExists, "exists"));
        }
        Err(not_permitted(
            "gamefs folders come from the database; new folders cannot be made",
        ))
    }

    /// `rmdir`: ENOENT for a missing name, ENOTDIR for a file, EPERM for every folder.
    pub fn rmdir(&self, parent: u64, name: &OsStr) -> Result<()> {
        self.check_writable()?;
        match self.child(parent, name)? {
            None => Err(Error::new(ErrorKind::NotFound, "no such folder")),
            Some(node) if !is_dir(node) => {
                Err(Error::new(ErrorKind::NotADirectory, "not a folder"))
            }
            Some(_) => Err(not_permitted(
                "gamefs folders come from the database and cannot be removed",
            )),
        }
    }

    /// `link`: a game is one file; hard links are refused (EPERM).
    pub fn link(&self, ino: u64, new_parent: u64, new_name: &OsStr) -> Result<Attr> {
        self.check_writable()?;
        self.node(ino)?;
        if self.child(new_parent, new_name)?.is_some() {
            return Err(Error::new(ErrorKind::AlreadyExists, "exists"));
        }
        Err(not_permitted(
            "hard links are not supported (a game is one file; use a symlink)",
        ))
    }

    /// `mknod`: a regular file is created as by `creat` (a scratch file, not opened); FIFOs,
    /// sockets and devices are refused (EPERM).
    pub fn mknod(&self, parent: u64, name: &OsStr, mode: u32) -> Result<Attr> {
        self.check_writable()?;
        if self.child(parent, name)?.is_some() {
            return Err(Error::new(ErrorKind::AlreadyExists, "exists"));
        }
        if mode & libc::S_IFMT != libc::S_IFREG {
            return Err(not_permitted(
                "only regular files and symlinks can be made (no FIFOs, sockets or devices)",
            ));
        }
        let node = self.new_scratch_file(parent, name, mode)?;
        Ok(self.attr(node, true))
    }

    /// `ioctl`: no file understands any (ENOTTY, as for a regular file on a local disk).
    pub fn ioctl(&self, ino: u64) -> Result<Vec<u8>> {
        self.node(ino)?;
        Err(Error::new(
            ErrorKind::UnknownIoctl,
            "inappropriate ioctl for a gamefs file",
        ))
    }
}

/// The refusal of every change to a folder's `all.pgn` (it follows the folder's games).
pub(crate) fn all_files_are_read_only() -> Error {
    not_permitted("all.pgn follows the folder's games and cannot be changed; save the games")
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use crate::error::ErrorKind;
    use crate::vfs::Node;
    use crate::vfs::testing::demo_tree;

    #[test]
    fn refusals_carry_the_posix_errno() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let games = Node::Games.ino();
        fn kind<T: std::fmt::Debug>(r: crate::error::Result<T>) -> ErrorKind {
            r.unwrap_err().kind()
        }
        assert_eq!(
            kind(vfs.mkdir(games, OsStr::new("sub"))),
            ErrorKind::NotPermitted
        );
        assert_eq!(
            kind(vfs.mkdir(Node::Root.ino(), OsStr::new("games"))),
            ErrorKind::AlreadyExists
        );
        assert_eq!(
            kind(vfs.rmdir(Node::Root.ino(), OsStr::new("players"))),
            ErrorKind::NotPermitted
        );
        assert_eq!(
            kind(vfs.rmdir(Node::Root.ino(), OsStr::new("nope"))),
            ErrorKind::NotFound
        );
        let game = vfs.game_name(0);
        assert_eq!(
            kind(vfs.rmdir(games, OsStr::new(&game))),
            ErrorKind::NotADirectory
        );
        let ino = Node::Game(0).ino();
        assert_eq!(
            kind(vfs.link(ino, games, OsStr::new("x.pgn"))),
            ErrorKind::NotPermitted
        );
        assert_eq!(
            kind(vfs.mknod(games, OsStr::new("fifo"), libc::S_IFIFO | 0o644)),
            ErrorKind::NotPermitted
        );
        let made = vfs
            .mknod(games, OsStr::new("plain"), libc::S_IFREG | 0o600)
            .unwrap();
        assert_eq!((made.perm, made.nlink, made.size), (0o600, 1, 0));
        assert_eq!(kind(vfs.ioctl(ino)), ErrorKind::UnknownIoctl);
    }
}
