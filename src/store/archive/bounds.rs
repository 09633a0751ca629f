//! What unpacking an archive may take: a bound on the bytes written (the cache folder's
//! limit, and the disk's free space) and on how much a member may grow over its packed size
//! (a zip bomb), checked as the bytes are written, so neither memory nor disk outgrows them.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, ErrorKind, Result};

/// The bounds of one archive's unpacking (nested archives share them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The most bytes all its members may unpack to.
    pub total: u64,
    /// The most a member may unpack to per packed byte, once it is past
    /// [`ratio_from`](Self::ratio_from) bytes.
    pub ratio: u64,
    /// The size under which a member is never refused for its ratio (a small file of
    /// repeated text can pack very well).
    pub ratio_from: u64,
    /// The free disk space left untouched.
    pub keep_free: u64,
}

/// The most one archive may unpack to: the cache folder's limit, as `-o cache_max` sets it.
static TOTAL: AtomicU64 = AtomicU64::new(crate::store::cache_folder::DEFAULT_MAX);

/// Let each archive unpacked from now on take at most `max` bytes (the cache folder's limit,
/// `-o cache_max`), set once per process by the command line.
pub fn set_total(max: u64) {
    TOTAL.store(max, Ordering::Relaxed);
}

impl Default for Bounds {
    /// The cache folder's limit (10 GiB unless [`set_total`] said otherwise) in all; 200
    /// bytes a packed byte past 64 MiB (PGN packs 4-15 times; a zip bomb, a thousand times
    /// and more); 1 GiB left free.
    fn default() -> Bounds {
        Bounds {
            total: TOTAL.load(Ordering::Relaxed),
            ratio: 200,
            ratio_from: 64 << 20,
            keep_free: 1 << 30,
        }
    }
}

/// Why a copy stopped: the member alone is refused (it is left out and the rest goes on), or
/// the whole unpacking is (past the total or the disk).
#[derive(Debug)]
pub enum Stop {
    /// This member is refused, or does not read (damaged, cut short).
    Member(Error),
    /// The unpacking cannot go on.
    Whole(Error),
}

/// What has been written so far against the [`Bounds`].
#[derive(Debug)]
pub struct Budget {
    bounds: Bounds,
    used: u64,
}

impl Budget {
    /// Nothing written yet.
    pub fn new(bounds: Bounds) -> Budget {
        Budget { bounds, used: 0 }
    }

    /// The bytes written so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// True when a member of `packed` bytes in the archive may unpack to `size` bytes, as far
    /// as the ratio against zip bombs goes.
    pub fn ratio_allows(&self, size: u64, packed: u64) -> bool {
        size <= self.most(packed)
    }

    /// The most a member of `packed` bytes in the archive may unpack to.
    fn most(&self, packed: u64) -> u64 {
        self.bounds
            .ratio_from
            .max(packed.saturating_mul(self.bounds.ratio))
    }

    /// Copy member `name`'s bytes from `data` to `out` (in `dir`), `packed` bytes in the
    /// archive, stopping at the first bound passed: the bytes copied.
    pub fn copy(
        &mut self,
        name: &str,
        packed: u64,
        data: &mut dyn Read,
        out: &mut dyn Write,
        dir: &Path,
    ) -> Result<u64, Stop> {
        let most = self.most(packed);
        let mut buf = vec![0; 256 << 10];
        let mut copied = 0u64;
        let mut checked_disk_at = 0u64;
        loop {
            let n = match data.read(&mut buf) {
                Ok(0) => return Ok(copied),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Stop::Member(Error::io(
                        format!("{name}: damaged or cut short, not unpacked"),
                        e,
                    )));
                }
            };
            copied += n as u64;
            if copied > most {
                return Err(Stop::Member(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "{name}: unpacks to more than {} MiB from {} KiB packed (over {} times \
                         its packed size): refused as a likely zip bomb",
                        most >> 20,
                        packed.div_ceil(1024),
                        self.bounds.ratio
                    ),
                )));
            }
            if self.used + n as u64 > self.bounds.total {
                return Err(Stop::Whole(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "{name}: the archive unpacks to more than {} MiB, the cache folder's \
                         limit (-o cache_max): refused (unpack it yourself and mount the \
                         folder, or raise the limit)",
                        self.bounds.total >> 20
                    ),
                )));
            }
            if copied - checked_disk_at >= 64 << 20 || checked_disk_at == 0 {
                checked_disk_at = copied;
                if free_bytes(dir).is_some_and(|free| free < self.bounds.keep_free) {
                    return Err(Stop::Whole(Error::new(
                        ErrorKind::NoSpace,
                        format!(
                            "{name}: unpacking it would leave less than {} MiB free on the disk \
                             of {}: stopped",
                            self.bounds.keep_free >> 20,
                            dir.display()
                        ),
                    )));
                }
            }
            self.used += n as u64;
            out.write_all(&buf[..n]).map_err(|e| {
                Stop::Whole(Error::io(
                    format!("{name}: writing into {}", dir.display()),
                    e,
                ))
            })?;
        }
    }
}

/// The bytes free for us on the file system of `dir`, when it can be told.
fn free_bytes(dir: &Path) -> Option<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: statvfs with a valid NUL-terminated path fills the struct it is given.
    if unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled the struct.
    let st = unsafe { st.assume_init() };
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Bounds {
        Bounds {
            total: 10_000,
            ratio: 10,
            ratio_from: 1000,
            keep_free: 0,
        }
    }

    #[test]
    fn a_member_past_its_ratio_is_refused_and_the_total_stops_all() {
        let dir = tempfile::tempdir().unwrap();
        let mut budget = Budget::new(small());
        let mut out = Vec::new();
        let copied = budget
            .copy("a.pgn", 100, &mut &[1u8; 900][..], &mut out, dir.path())
            .unwrap();
        assert_eq!(copied, 900);
        let bomb = budget.copy("b.pgn", 100, &mut &[0u8; 1001][..], &mut out, dir.path());
        assert!(
            matches!(&bomb, Err(Stop::Member(e)) if e.kind() == ErrorKind::TooLarge && e.message().contains("zip bomb")),
            "{bomb:?}"
        );
        let mut all = Ok(0);
        for _ in 0..20 {
            all = budget.copy("c.pgn", 1000, &mut &[0u8; 900][..], &mut out, dir.path());
            if all.is_err() {
                break;
            }
        }
        assert!(
            matches!(&all, Err(Stop::Whole(e)) if e.message().contains("limit")),
            "{all:?}"
        );
    }
}
