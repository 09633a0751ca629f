//! The FUSE adapter: unpack each kernel call, ask the [`Vfs`], reply. Nothing else lives here.
//!
//! Every handler runs inside [`guard`], which catches panics: a bug then fails one call with
//! EIO instead of killing the worker thread and hanging the mount.

use std::ffi::OsStr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, InitFlags, KernelConfig, LockOwner, OpenAccMode, OpenFlags, ReplyAttr, ReplyData,
    ReplyDirectory, ReplyDirectoryPlus, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, Request,
};

use crate::error::Error;
use crate::vfs::{Attr, FileKind, Vfs};

/// How long the kernel may cache names and attributes. The tree only changes through us (and
/// we tell the kernel when it does), so this can be long.
const TTL: Duration = Duration::from_secs(3600);

/// A [`Vfs`] served to the kernel.
pub struct GameFs {
    vfs: Arc<Vfs>,
}

impl GameFs {
    /// Serve `vfs`.
    pub fn new(vfs: Arc<Vfs>) -> GameFs {
        GameFs { vfs }
    }
}

/// Run one handler, turning a panic into a logged error. The reply object, dropped unsent
/// during the unwind, answers EIO by itself.
fn guard(op: &str, f: impl FnOnce()) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(f)) {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        log::error!("internal error in {op} (please report): {what}");
    }
}

fn errno(e: &Error) -> Errno {
    Errno::from_i32(e.errno())
}

fn file_attr(a: &Attr) -> FileAttr {
    FileAttr {
        ino: INodeNo(a.ino),
        size: a.size,
        blocks: a.size.div_ceil(512),
        atime: a.mtime,
        mtime: a.mtime,
        ctime: a.ctime,
        crtime: a.ctime,
        kind: file_type(a.kind),
        perm: a.perm,
        nlink: a.nlink,
        uid: a.uid,
        gid: a.gid,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

fn file_type(k: FileKind) -> FileType {
    match k {
        FileKind::Directory => FileType::Directory,
        FileKind::RegularFile => FileType::RegularFile,
        FileKind::Symlink => FileType::Symlink,
    }
}

impl Filesystem for GameFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        for flag in [
            InitFlags::FUSE_DO_READDIRPLUS,
            InitFlags::FUSE_READDIRPLUS_AUTO,
            InitFlags::FUSE_CACHE_SYMLINKS,
            InitFlags::FUSE_PARALLEL_DIROPS,
        ] {
            if config.add_capabilities(flag).is_err() {
                log::debug!("kernel does not offer {flag:?}");
            }
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        guard("lookup", || match self.vfs.lookup(parent.0, name) {
            Ok(a) => reply.entry(&TTL, &file_attr(&a), Generation(0)),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        guard("getattr", || match self.vfs.getattr(ino.0) {
            Ok(a) => reply.attr(&TTL, &file_attr(&a)),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        guard("readlink", || match self.vfs.readlink(ino.0) {
            Ok(target) => reply.data(target.as_bytes()),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        guard("open", || {
            let write = flags.acc_mode() != OpenAccMode::O_RDONLY;
            match self.vfs.open(ino.0, write) {
                Ok(()) => reply.opened(
                    FileHandle(0),
                    FopenFlags::FOPEN_KEEP_CACHE | FopenFlags::FOPEN_NOFLUSH,
                ),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        guard("read", || match self.vfs.read(ino.0, offset, size) {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn access(&self, _req: &Request, ino: INodeNo, mask: AccessFlags, reply: ReplyEmpty) {
        guard("access", || {
            match self.vfs.access(
                ino.0,
                mask.contains(AccessFlags::W_OK),
                mask.contains(AccessFlags::X_OK),
            ) {
                Ok(()) => reply.ok(),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        guard("opendir", || match self.vfs.getattr(ino.0) {
            Ok(a) if a.kind == FileKind::Directory => reply.opened(
                FileHandle(0),
                FopenFlags::FOPEN_KEEP_CACHE | FopenFlags::FOPEN_CACHE_DIR,
            ),
            Ok(_) => reply.error(Errno::ENOTDIR),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        guard("readdir", || match self.vfs.readdir(ino.0, offset) {
            Ok(entries) => {
                for e in entries {
                    if reply.add(INodeNo(e.ino), e.next, file_type(e.kind), &e.name) {
                        break;
                    }
                }
                reply.ok();
            }
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn readdirplus(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectoryPlus,
    ) {
        guard("readdirplus", || match self.vfs.readdir(ino.0, offset) {
            Ok(entries) => {
                for e in entries {
                    let Ok(attr) = self.vfs.getattr(e.ino) else {
                        continue;
                    };
                    if reply.add(
                        INodeNo(e.ino),
                        e.next,
                        &e.name,
                        &TTL,
                        &file_attr(&attr),
                        Generation(0),
                    ) {
                        break;
                    }
                }
                reply.ok();
            }
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        guard("statfs", || {
            let games = u64::from(self.vfs.store().game_count());
            reply.statfs(0, 0, 0, games, 0, 4096, 255, 4096);
        });
    }
}
