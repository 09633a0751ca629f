//! System calls the mount tests make directly, to see the exact errno of each step (std hides
//! some: a File's close error is dropped, renameat2 and mknod have no wrapper).

use std::ffi::CString;
use std::io;
use std::os::fd::IntoRawFd;
use std::path::Path;

fn c_path(p: &Path) -> CString {
    CString::new(p.as_os_str().as_encoded_bytes()).unwrap()
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The errno of a failed call (panics if it succeeded).
pub(crate) fn errno<T: std::fmt::Debug>(r: io::Result<T>) -> i32 {
    r.expect_err("the call should fail")
        .raw_os_error()
        .expect("an OS error")
}

/// renameat2(2): `mv --exchange` and `mv --no-clobber` need a newer coreutils than Debian 12
/// has, so the flags are exercised directly.
pub(crate) fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<()> {
    let (a, b) = (c_path(from), c_path(to));
    // SAFETY: valid NUL-terminated paths; AT_FDCWD for both directories.
    check(unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            flags,
        )
    })
}

/// mknod(2) of a node of `mode` (type and permission bits).
pub(crate) fn mknod(path: &Path, mode: libc::mode_t) -> io::Result<()> {
    let p = c_path(path);
    // SAFETY: valid NUL-terminated path.
    check(unsafe { libc::mknod(p.as_ptr(), mode, 0) })
}

/// close(2) of `file`, returning its error (where a FUSE file system reports a failed save).
pub(crate) fn close(file: std::fs::File) -> io::Result<()> {
    let fd = file.into_raw_fd();
    // SAFETY: we own the descriptor and close it once.
    check(unsafe { libc::close(fd) })
}

/// Write `text` to `path` as an editor saving in place does (O_TRUNC, write, optionally
/// fsync, close), returning the first error.
pub(crate) fn save(path: &Path, text: &[u8], fsync: bool) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)?;
    std::io::Write::write_all(&mut f, text)?;
    if fsync && let Err(e) = f.sync_all() {
        let _ = close(f);
        return Err(e);
    }
    close(f)
}

/// Resident memory of process `pid` in KiB: (VmRSS, VmHWM, RssAnon) from /proc.
pub(crate) fn memory_kib(pid: u32) -> (u64, u64, u64) {
    let [rss, peak, anon] = status_kib(pid, ["VmRSS:", "VmHWM:", "RssAnon:"]);
    (rss, peak, anon)
}

/// Fields of /proc/`pid`/status given in kB (0 for a field missing), e.g. `RssFile:`.
pub(crate) fn status_kib<const N: usize>(pid: u32, names: [&str; N]) -> [u64; N] {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    names.map(|name| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    })
}

/// utimensat(2) of `path` with the given times (None: leave that time alone).
pub(crate) fn utimens(
    path: &Path,
    atime: Option<std::time::SystemTime>,
    mtime: Option<std::time::SystemTime>,
) -> io::Result<()> {
    let spec = |t: Option<std::time::SystemTime>| match t {
        None => libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT,
        },
        Some(t) => {
            let d = t.duration_since(std::time::UNIX_EPOCH).unwrap();
            libc::timespec {
                tv_sec: d.as_secs() as libc::time_t,
                tv_nsec: d.subsec_nanos() as libc::c_long,
            }
        }
    };
    let times = [spec(atime), spec(mtime)];
    let p = c_path(path);
    // SAFETY: valid path and two timespecs.
    check(unsafe { libc::utimensat(libc::AT_FDCWD, p.as_ptr(), times.as_ptr(), 0) })
}

/// setxattr(2) of `user.test` on `path`.
pub(crate) fn setxattr(path: &Path) -> io::Result<()> {
    let p = c_path(path);
    // SAFETY: valid path, name and value.
    check(unsafe {
        libc::setxattr(
            p.as_ptr(),
            c"user.test".as_ptr(),
            c"1".as_ptr().cast(),
            1,
            0,
        )
    })
}

/// getxattr(2) of `user.test` on `path`: its length.
pub(crate) fn getxattr(path: &Path) -> io::Result<usize> {
    let p = c_path(path);
    let mut buf = [0u8; 64];
    // SAFETY: valid path and name; buf is 64 bytes.
    let r = unsafe {
        libc::getxattr(
            p.as_ptr(),
            c"user.test".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// listxattr(2) of `path`: the names' bytes.
pub(crate) fn listxattr(path: &Path) -> io::Result<usize> {
    let p = c_path(path);
    // SAFETY: valid path; size 0 asks for the length only.
    let r = unsafe { libc::listxattr(p.as_ptr(), std::ptr::null_mut(), 0) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// truncate(2) of `path` (no open descriptor: gamefs saves at once).
pub(crate) fn truncate(path: &Path, len: i64) -> io::Result<()> {
    let p = c_path(path);
    // SAFETY: valid NUL-terminated path.
    check(unsafe { libc::truncate(p.as_ptr(), len) })
}
