//! A FUSE mount made with mount(2) itself, for root.
//!
//! fuser mounts as root with the file system type `fuse`, dropping the subtype, so /proc/mounts
//! said `fuse` where sshfs and rclone mounts say `fuse.sshfs` and `fuse.rclone`, and
//! `findmnt -t fuse.gamefs`, `df -t fuse.gamefs` or `umount -t fuse.gamefs -a` missed gamefs.
//! This does what fusermount3 does for other users: open `/dev/fuse` and mount it with the type
//! `fuse.SUBTYPE` and the database as the source.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What to mount: the parts of mount(2)'s call other than the mountpoint.
pub(super) struct KernelMount<'a> {
    /// The source shown in /proc/mounts (the database path).
    pub source: &'a str,
    /// The subtype: the file system type becomes `fuse.SUBTYPE`.
    pub subtype: &'a str,
    /// mount(2) flags (`MS_RDONLY`, `MS_NODEV`, …).
    pub flags: libc::c_ulong,
    /// FUSE's own options beside the ones this module sets (`allow_other`,
    /// `default_permissions`, …).
    pub options: Vec<String>,
}

impl KernelMount<'_> {
    /// Mount on `mountpoint`; the open `/dev/fuse` the kernel now sends the mount's requests to.
    pub(super) fn mount(&self, mountpoint: &Path) -> io::Result<OwnedFd> {
        let device: OwnedFd = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/fuse")
            .map_err(|e| io::Error::new(e.kind(), format!("/dev/fuse: {e}")))?
            .into();
        let root_mode = std::fs::metadata(mountpoint)?.mode() & libc::S_IFMT;
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let mut data = format!(
            "fd={},rootmode={root_mode:o},user_id={uid},group_id={gid}",
            device.as_raw_fd()
        );
        for option in &self.options {
            data.push(',');
            data.push_str(option);
        }
        let c = |s: &[u8]| {
            CString::new(s)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a mount argument"))
        };
        let source = c(self.source.as_bytes())?;
        let target = c(mountpoint.as_os_str().as_bytes())?;
        let fstype = c(format!("fuse.{}", self.subtype).as_bytes())?;
        let data = c(data.as_bytes())?;
        // SAFETY: every pointer is a NUL-terminated string that lives across the call.
        let rc = unsafe {
            libc::mount(
                source.as_ptr(),
                target.as_ptr(),
                fstype.as_ptr(),
                self.flags,
                data.as_ptr().cast(),
            )
        };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!("mount of {} failed: {e}", mountpoint.display()),
            ));
        }
        Ok(device)
    }
}

/// Unmount `mountpoint`; `detach` unmounts lazily (MNT_DETACH), even while files are open.
pub(super) fn unmount(mountpoint: &Path, detach: bool) -> io::Result<()> {
    let target = CString::new(mountpoint.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in the mountpoint"))?;
    let flags = if detach { libc::MNT_DETACH } else { 0 };
    // SAFETY: umount2 with a valid NUL-terminated path.
    if unsafe { libc::umount2(target.as_ptr(), flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
