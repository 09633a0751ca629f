//! The FUSE adapter: unpack each kernel call, ask the [`Vfs`], reply. Nothing else lives here.
//!
//! Every handler runs inside `guard`, which catches panics: a bug then fails one call with
//! EIO instead of killing the worker thread and hanging the mount.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, SystemTime};

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, InitFlags, IoctlFlags, KernelConfig, LockOwner, Notifier, OpenAccMode, OpenFlags,
    RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyDirectoryPlus, ReplyEmpty,
    ReplyEntry, ReplyIoctl, ReplyOpen, ReplyStatfs, ReplyWrite, ReplyXattr, Request, TimeOrNow,
    WriteFlags,
};

use fuser::{Config, MountOption, Session, SessionACL, SessionUnmounter};

use crate::error::Error;

mod bare_listings;
mod kernel_mount;
use crate::vfs::write::{RenameFlags as VfsRenameFlags, SetAttr};
use crate::vfs::{Attr, FileKind, Invalidator, OpenMode, Opened, Vfs};
use bare_listings::BareListings;

/// Who may use a mount.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Only the user who mounted (FUSE's default).
    #[default]
    Owner,
    /// That user and root (`-o allow_root`).
    OwnerAndRoot,
    /// Every user (`-o allow_other`).
    Everyone,
}

/// A kernel mount option a user may ask for (`-o nodev`, …); the command line's table of
/// `-o` words says which word means which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelOption {
    /// The kernel checks file permissions itself.
    DefaultPermissions,
    /// No device files.
    NoDev,
    /// Device files allowed.
    Dev,
    /// Set-user-ID and set-group-ID bits ignored.
    NoSuid,
    /// Set-user-ID and set-group-ID bits honoured.
    Suid,
    /// No programs run from the mount.
    NoExec,
    /// Programs may run from the mount.
    Exec,
    /// Access times not updated.
    NoAtime,
    /// Access times updated.
    Atime,
    /// Synchronous writes.
    Sync,
    /// Asynchronous writes.
    Async,
    /// Synchronous directory changes.
    DirSync,
}

/// How to mount: the kernel's mount options, already checked by the caller.
#[derive(Clone, Debug, Default)]
pub struct MountSettings {
    /// The source shown in /proc/mounts.
    pub fsname: String,
    /// Mount read-write rather than read-only.
    pub writable: bool,
    /// Kernel options asked for, in order (the last of two contradicting ones wins).
    pub options: Vec<KernelOption>,
    /// Who may use the mount.
    pub access: Access,
}

/// A mount being served on a thread of its own.
pub struct Mounted {
    unmounter: Unmounter,
    runner: std::thread::JoinHandle<std::io::Result<()>>,
}

/// Who unmounts: fuser for a mount it made (through fusermount3), or mount(2)'s
/// counterpart for root's own mount.
enum Unmounter {
    Fuser(SessionUnmounter),
    Kernel(std::path::PathBuf),
}

impl Mounted {
    /// Unmount (fails while files are open: the caller may detach lazily instead).
    pub fn unmount(&mut self) -> std::io::Result<()> {
        match &mut self.unmounter {
            Unmounter::Fuser(u) => u.unmount(),
            Unmounter::Kernel(mountpoint) => kernel_mount::unmount(mountpoint, false),
        }
    }

    /// Wait until the session ends.
    pub fn join(self) -> Result<(), String> {
        match self.runner.join() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("the FUSE session ended with an error: {e}")),
            Err(_) => Err("the FUSE session thread panicked".into()),
        }
    }
}

/// Mount `vfs` on `mountpoint` and serve it on a thread of its own (one worker per core);
/// `on_end` runs when the session ends. Kernel cache invalidation is connected to the tree.
pub fn mount(
    vfs: Arc<Vfs>,
    mountpoint: &Path,
    settings: &MountSettings,
    on_end: impl FnOnce() + Send + 'static,
) -> std::io::Result<Mounted> {
    let mut options = vec![
        MountOption::FSName(settings.fsname.clone()),
        MountOption::Subtype("gamefs".into()),
        if settings.writable {
            MountOption::RW
        } else {
            MountOption::RO
        },
        MountOption::NoDev,
        MountOption::NoSuid,
    ];
    options.extend(settings.options.iter().map(|&o| kernel_option(o)));
    keep_last_of_each_pair(&mut options);
    let mut config = Config::default();
    config.mount_options = options;
    config.acl = match settings.access {
        Access::Owner => SessionACL::Owner,
        Access::OwnerAndRoot => SessionACL::RootAndOwner,
        Access::Everyone => SessionACL::All,
    };
    config.n_threads = Some(
        std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .max(2),
    );
    let (session, unmounter) = if is_root() {
        // fuser would mount as type `fuse`, without the subtype: mount as fusermount3 does.
        let device = kernel_call(&config).mount(mountpoint)?;
        let session = Session::from_fd(GameFs::new(vfs.clone()), device, config.acl, config)
            .inspect_err(|_| {
                let _ = kernel_mount::unmount(mountpoint, true);
            })?;
        (session, Unmounter::Kernel(mountpoint.to_path_buf()))
    } else {
        let mut session = Session::new(GameFs::new(vfs.clone()), mountpoint, &config)?;
        let unmounter = Unmounter::Fuser(session.unmount_callable());
        (session, unmounter)
    };
    vfs.set_invalidator(Box::new(KernelInvalidator::new(session.notifier())));
    let own_mount = match &unmounter {
        Unmounter::Kernel(mountpoint) => Some(mountpoint.clone()),
        Unmounter::Fuser(_) => None,
    };
    let runner = std::thread::spawn(move || {
        let result = session.run();
        if let (Err(_), Some(mountpoint)) = (&result, own_mount) {
            // A session that failed leaves no dead mount behind (fuser does the same for its own).
            let _ = kernel_mount::unmount(&mountpoint, true);
        }
        on_end();
        result
    });
    Ok(Mounted { unmounter, runner })
}

/// Whether this process runs as root, which mounts with mount(2) itself.
fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// The mount(2) call for `config`'s options, as fusermount3 would make it: the subtype in the
/// type, the file system name as the source, flags for the generic words and FUSE's own
/// options in the data.
fn kernel_call(config: &Config) -> kernel_mount::KernelMount<'_> {
    let mut call = kernel_mount::KernelMount {
        source: "gamefs",
        subtype: "gamefs",
        flags: 0,
        options: Vec::new(),
    };
    for option in &config.mount_options {
        match option {
            MountOption::FSName(name) => call.source = name,
            MountOption::Subtype(subtype) => call.subtype = subtype,
            MountOption::RO => call.flags |= libc::MS_RDONLY,
            MountOption::NoDev => call.flags |= libc::MS_NODEV,
            MountOption::NoSuid => call.flags |= libc::MS_NOSUID,
            MountOption::NoExec => call.flags |= libc::MS_NOEXEC,
            MountOption::NoAtime => call.flags |= libc::MS_NOATIME,
            MountOption::Sync => call.flags |= libc::MS_SYNCHRONOUS,
            MountOption::DirSync => call.flags |= libc::MS_DIRSYNC,
            MountOption::DefaultPermissions => call.options.push("default_permissions".into()),
            MountOption::CUSTOM(word) => call.options.push(word.clone()),
            MountOption::RW
            | MountOption::Dev
            | MountOption::Suid
            | MountOption::Exec
            | MountOption::Atime
            | MountOption::Async
            | MountOption::AutoUnmount => {}
        }
    }
    if config.acl != SessionACL::Owner {
        // The kernel knows only allow_other; the session itself keeps others out for allow_root.
        call.options.push("allow_other".into());
    }
    call
}

/// The fuser option of a kernel option.
fn kernel_option(option: KernelOption) -> MountOption {
    match option {
        KernelOption::DefaultPermissions => MountOption::DefaultPermissions,
        KernelOption::NoDev => MountOption::NoDev,
        KernelOption::NoSuid => MountOption::NoSuid,
        KernelOption::NoExec => MountOption::NoExec,
        KernelOption::NoAtime => MountOption::NoAtime,
        KernelOption::Dev => MountOption::Dev,
        KernelOption::Suid => MountOption::Suid,
        KernelOption::Exec => MountOption::Exec,
        KernelOption::Atime => MountOption::Atime,
        KernelOption::Sync => MountOption::Sync,
        KernelOption::Async => MountOption::Async,
        KernelOption::DirSync => MountOption::DirSync,
    }
}

/// Of options that contradict each other (nodev and dev, mount(8)'s defaults and the user's
/// choice), keep the last one given.
fn keep_last_of_each_pair(options: &mut Vec<MountOption>) {
    use MountOption::*;
    let pairs = [
        (NoDev, Dev),
        (NoSuid, Suid),
        (NoExec, Exec),
        (NoAtime, Atime),
        (Sync, Async),
    ];
    for (a, b) in pairs {
        if let Some(last) = options.iter().rposition(|o| *o == a || *o == b) {
            let keep = options[last].clone();
            options.retain(|o| (*o != a && *o != b) || *o == keep);
            options.dedup();
        }
    }
}

/// A [`Vfs`] served to the kernel.
pub struct GameFs {
    vfs: Arc<Vfs>,
    bare_listings: BareListings,
}

impl GameFs {
    /// Serve `vfs`.
    pub fn new(vfs: Arc<Vfs>) -> GameFs {
        GameFs {
            vfs,
            bare_listings: BareListings::default(),
        }
    }
}

/// Run one handler, turning a panic into a logged error. The reply object, dropped unsent
/// during the unwind, answers EIO by itself.
fn guard(op: &str, f: impl FnOnce()) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(f)) {
        let what = crate::error::panic_message(&*panic);
        log::error!("internal error in {op} (please report): {what}");
    }
}

fn errno(e: &Error) -> Errno {
    Errno::from_i32(e.errno())
}

fn ttl(a: &Attr) -> Duration {
    Duration::from_secs(a.ttl_secs)
}

fn file_attr(a: &Attr) -> FileAttr {
    FileAttr {
        ino: INodeNo(a.ino),
        size: a.size,
        blocks: a.size.div_ceil(512),
        atime: a.atime,
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

fn generation(a: &Attr) -> Generation {
    Generation(u64::from(a.generation))
}

fn file_type(k: FileKind) -> FileType {
    match k {
        FileKind::Directory => FileType::Directory,
        FileKind::RegularFile => FileType::RegularFile,
        FileKind::Symlink => FileType::Symlink,
    }
}

fn fopen_flags(o: &Opened) -> FopenFlags {
    let mut flags = FopenFlags::empty();
    if o.keep_cache {
        flags |= FopenFlags::FOPEN_KEEP_CACHE;
    }
    if o.direct_io {
        flags |= FopenFlags::FOPEN_DIRECT_IO;
    }
    flags
}

fn open_mode(flags: i32) -> OpenMode {
    OpenMode {
        write: OpenFlags(flags).acc_mode() != OpenAccMode::O_RDONLY,
        truncate: flags & libc::O_TRUNC != 0,
        append: flags & libc::O_APPEND != 0,
    }
}

/// Answer an xattr call: the size when asked with 0, else the bytes (the tree's answers are
/// always empty, so they always fit).
fn time(t: TimeOrNow) -> SystemTime {
    match t {
        TimeOrNow::SpecificTime(t) => t,
        TimeOrNow::Now => SystemTime::now(),
    }
}

/// Sends the tree's invalidations to the kernel from a thread of its own: notifying from
/// inside a request handler can deadlock on the inode the kernel holds locked.
pub struct KernelInvalidator {
    queue: Sender<(u64, Option<Vec<u8>>)>,
}

impl KernelInvalidator {
    /// Start the notifying thread for `notifier`.
    pub fn new(notifier: Notifier) -> KernelInvalidator {
        let (queue, rx) = channel::<(u64, Option<Vec<u8>>)>();
        std::thread::spawn(move || {
            for (ino, name) in rx {
                let result = match &name {
                    Some(n) => notifier.inval_entry(INodeNo(ino), OsStr::from_bytes(n)),
                    None => notifier.inval_inode(INodeNo(ino), 0, 0),
                };
                // ENOENT only means the kernel had nothing cached.
                if let Err(e) = result
                    && e.raw_os_error() != Some(libc::ENOENT)
                {
                    log::debug!("cache invalidation of inode {ino} failed: {e}");
                }
            }
        });
        KernelInvalidator { queue }
    }
}

impl Invalidator for KernelInvalidator {
    fn inval_inode(&self, ino: u64) {
        let _ = self.queue.send((ino, None));
    }

    fn inval_entry(&self, parent: u64, name: &OsStr) {
        let _ = self.queue.send((parent, Some(name.as_bytes().to_vec())));
    }
}

impl Filesystem for GameFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        let mut flags = vec![
            InitFlags::FUSE_DO_READDIRPLUS,
            InitFlags::FUSE_READDIRPLUS_AUTO,
            InitFlags::FUSE_CACHE_SYMLINKS,
            InitFlags::FUSE_PARALLEL_DIROPS,
            // O_TRUNC comes with the open it belongs to (not as a separate truncation), so a
            // game emptied by its writer's open is known for what it is: not a save yet.
            InitFlags::FUSE_ATOMIC_O_TRUNC,
            // File handles outlive the kernel's caches (`name_to_handle_at`, the NFS server):
            // the kernel may look up `.` and `..` by number (see `Vfs::lookup`).
            InitFlags::FUSE_EXPORT_SUPPORT,
        ];
        if !self.vfs.writable() {
            // Files are opened without asking us (see `open`), so cached pages are dropped
            // when a file's modification time changes instead (`.gamefs/` files, outside changes).
            flags.push(InitFlags::FUSE_AUTO_INVAL_DATA);
        }
        for flag in flags {
            if config.add_capabilities(flag).is_err() {
                log::debug!("kernel does not offer {flag:?}");
            }
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        guard("lookup", || match self.vfs.lookup(parent.0, name) {
            Ok(a) => reply.entry(&ttl(&a), &file_attr(&a), generation(&a)),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        guard("getattr", || match self.vfs.getattr(ino.0) {
            Ok(a) => reply.attr(&ttl(&a), &file_attr(&a)),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        guard("setattr", || {
            let change = SetAttr {
                size,
                mode,
                uid,
                gid,
                atime: atime.map(time),
                mtime: mtime.map(time),
                handle: fh.map(|f| f.0),
            };
            match self.vfs.setattr(ino.0, change) {
                Ok(a) => reply.attr(&ttl(&a), &file_attr(&a)),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        guard("readlink", || match self.vfs.readlink(ino.0) {
            Ok(target) => reply.data(&target),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        reply: ReplyEntry,
    ) {
        guard("mkdir", || match self.vfs.mkdir(parent.0, name) {
            Ok(a) => reply.entry(&ttl(&a), &file_attr(&a), generation(&a)),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        guard("unlink", || match self.vfs.unlink(parent.0, name) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        guard("rmdir", || match self.vfs.rmdir(parent.0, name) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn mknod(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        _rdev: u32,
        reply: ReplyEntry,
    ) {
        guard("mknod", || {
            let perm = mode & !umask & 0o7777;
            match self.vfs.mknod(parent.0, name, (mode & libc::S_IFMT) | perm) {
                Ok(a) => reply.entry(&ttl(&a), &file_attr(&a), generation(&a)),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn symlink(
        &self,
        _req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        guard("symlink", || {
            match self
                .vfs
                .symlink(parent.0, link_name, target.as_os_str().as_bytes())
            {
                Ok(a) => reply.entry(&ttl(&a), &file_attr(&a), generation(&a)),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        guard("rename", || {
            let flags = VfsRenameFlags {
                noreplace: flags.contains(RenameFlags::RENAME_NOREPLACE),
                exchange: flags.contains(RenameFlags::RENAME_EXCHANGE),
            };
            match self.vfs.rename(parent.0, name, newparent.0, newname, flags) {
                Ok(()) => reply.ok(),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        guard("link", || {
            match self.vfs.link(ino.0, newparent.0, newname) {
                Ok(a) => reply.entry(&ttl(&a), &file_attr(&a), generation(&a)),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if !self.vfs.writable() {
            // On a read-only mount opening and closing change nothing: ENOSYS tells the kernel
            // to open every file itself from now on, with its page cache kept (zero-message
            // open), and to send no release. A `grep -r` of a warm mount then costs no request.
            return reply.error(Errno::ENOSYS);
        }
        guard("open", || match self.vfs.open(ino.0, open_mode(flags.0)) {
            Ok(o) => reply.opened(FileHandle(o.fh), fopen_flags(&o)),
            Err(e) => reply.error(errno(&e)),
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

    fn write(
        &self,
        req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        guard("write", || {
            match self.vfs.write(ino.0, fh.0, offset, data, req.pid()) {
                Ok(n) => reply.written(n),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn flush(
        &self,
        req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        if !self.vfs.writable() {
            // Nothing to save on a read-only mount; ENOSYS stops the kernel sending flushes.
            return reply.error(Errno::ENOSYS);
        }
        guard("flush", || match self.vfs.flush(ino.0, fh.0, req.pid()) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        guard("release", || {
            self.vfs.release(ino.0, fh.0);
            reply.ok();
        });
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        guard("fsync", || match self.vfs.fsync(ino.0, fh.0) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        guard("opendir", || match self.vfs.opendir(ino.0) {
            Ok(true) if self.bare_listings.may_keep(ino.0) => reply.opened(
                FileHandle(0),
                FopenFlags::FOPEN_KEEP_CACHE | FopenFlags::FOPEN_CACHE_DIR,
            ),
            // The kernel drops its listing and caches the one it reads now.
            Ok(true) => reply.opened(FileHandle(0), FopenFlags::FOPEN_CACHE_DIR),
            Ok(false) => reply.opened(FileHandle(0), FopenFlags::empty()),
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
        guard("readdir", || {
            self.bare_listings.listed_bare(ino.0);
            let listed = self.vfs.readdir(ino.0, offset, &mut |e| {
                reply.add(INodeNo(e.ino), e.next, file_type(e.kind), &e.name)
            });
            match listed {
                Ok(()) => reply.ok(),
                Err(e) => reply.error(errno(&e)),
            }
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
        guard("readdirplus", || {
            if offset == 0 {
                self.bare_listings.listed_with_attributes_from_start(ino.0);
            }
            let listed = self.vfs.readdir(ino.0, offset, &mut |e| {
                // An entry gone since it was listed is left out; the listing goes on.
                let Ok(attr) = self.vfs.listing_attr(e.ino) else {
                    return false;
                };
                reply.add(
                    INodeNo(e.ino),
                    e.next,
                    &e.name,
                    &ttl(&attr),
                    &file_attr(&attr),
                    generation(&attr),
                )
            });
            match listed {
                Ok(()) => reply.ok(),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }

    fn getxattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _name: &OsStr,
        _size: u32,
        reply: ReplyXattr,
    ) {
        // Games carry no extended attributes. ENOSYS makes the kernel answer every later
        // xattr call itself ("not supported"), so `ls -l` and `cp -a` ask us nothing per file.
        reply.error(Errno::ENOSYS);
    }

    fn setxattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _name: &OsStr,
        _value: &[u8],
        _flags: i32,
        _position: u32,
        reply: ReplyEmpty,
    ) {
        reply.error(Errno::ENOSYS);
    }

    fn removexattr(&self, _req: &Request, _ino: INodeNo, _name: &OsStr, reply: ReplyEmpty) {
        reply.error(Errno::ENOSYS);
    }

    fn listxattr(&self, _req: &Request, _ino: INodeNo, _size: u32, reply: ReplyXattr) {
        reply.error(Errno::ENOSYS);
    }

    fn ioctl(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _flags: IoctlFlags,
        _cmd: u32,
        _in_data: &[u8],
        _out_size: u32,
        reply: ReplyIoctl,
    ) {
        guard("ioctl", || match self.vfs.ioctl(ino.0) {
            Ok(data) => reply.ioctl(0, &data),
            Err(e) => reply.error(errno(&e)),
        });
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        guard("statfs", || {
            let s = self.vfs.statfs();
            reply.statfs(
                s.blocks,
                s.free,
                s.available,
                s.files,
                0,
                s.block_size,
                s.name_max,
                s.block_size,
            );
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

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        guard("create", || {
            match self.vfs.create(
                parent.0,
                name,
                mode & !umask,
                flags & libc::O_EXCL != 0,
                open_mode(flags),
            ) {
                Ok((a, o)) => reply.created(
                    &ttl(&a),
                    &file_attr(&a),
                    generation(&a),
                    FileHandle(o.fh),
                    fopen_flags(&o),
                ),
                Err(e) => reply.error(errno(&e)),
            }
        });
    }
}
