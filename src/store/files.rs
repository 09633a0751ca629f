//! Paths and file access shared by the formats whose databases are a set of files with one
//! base name (`x.si4`, `x.sn4`, …): naming the files, and reading or opening them with errors
//! that say which file.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::store::blob::{self, Blob};

/// The base path of a database given as its base or any of its files (`exts` are the
/// format's file extensions).
pub fn base_path(path: &Path, exts: &[&str]) -> PathBuf {
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if exts.contains(&ext) => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

/// `base` with `.ext` appended (base names may contain dots).
pub fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// What tells one version of a database file from another without reading it: its length,
/// modification time and inode (a file another program replaced by a rename is another
/// inode). A writable store compares the stamps of its files before every change, to take in
/// what another program wrote first (docs/SEMANTICS.md §10a).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileStamp {
    /// The length in bytes.
    pub len: u64,
    /// The modification time, where the file system tells it.
    pub modified: Option<SystemTime>,
    /// The inode number (0 for a file that cannot be looked at, or a remote object).
    pub inode: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` now; all zero when it cannot be looked at (missing, or
    /// a remote object).
    pub fn of(path: &Path) -> FileStamp {
        std::fs::metadata(path).map_or_else(
            |_| FileStamp::default(),
            |m| FileStamp {
                len: m.len(),
                modified: m.modified().ok(),
                inode: m.ino(),
            },
        )
    }

    /// The stamps of each of `paths`, in order.
    pub fn of_all<const N: usize>(paths: &[PathBuf; N]) -> [FileStamp; N] {
        std::array::from_fn(|i| FileStamp::of(&paths[i]))
    }
}

/// The whole file (or remote object) at `path`.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    if !blob::is_local(path) {
        return blob::read_all(path);
    }
    std::fs::read(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))
}

/// The file at `path`, open for reading and, when `writable`, writing.
pub fn open_file(path: &Path, writable: bool) -> Result<File> {
    if blob::is_remote(path) {
        return Err(remote_read_only(path));
    }
    File::options()
        .read(true)
        .write(writable)
        .open(path)
        .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))
}

/// The file (or remote object) at `path` to read, and when `writable` (a local file only)
/// also to write.
pub fn open_blob(path: &Path, writable: bool) -> Result<Blob> {
    if writable {
        return Ok(Blob::of_file(path, open_file(path, true)?));
    }
    Blob::open(path)
}

/// The error of opening a remote object for writing.
pub fn remote_read_only(path: &Path) -> Error {
    Error::new(
        ErrorKind::ReadOnly,
        format!(
            "{} is an object in a bucket or on a web server: it is only read (object stores do \
             not append); mount it without -o rw, or copy it to a local disk to save into it (docs/guide/remote.md)",
            path.display()
        ),
    )
}

/// The length of the file (or remote object, or archive member read in place) at `path`.
pub fn file_len(path: &Path) -> Result<u64> {
    if !blob::is_local(path) {
        return Blob::open(path)?.len();
    }
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::io(format!("cannot stat {}", path.display()), e))
}

/// When the file (or remote object, or archive member read in place) at `path` was last
/// changed, if it can be told.
pub fn modified(path: &Path) -> Option<std::time::SystemTime> {
    if !blob::is_local(path) {
        return Some(Blob::open(path).ok()?.version().ok()?.modified());
    }
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// What names the file (or remote object) at `path` in the caches of what was learned of it:
/// its canonical path, or its URL (or an archive member's path); `None` for a local file that
/// is not there.
pub fn cache_key(path: &Path) -> Option<PathBuf> {
    if !blob::is_local(path) {
        return Some(path.to_path_buf());
    }
    std::fs::canonicalize(path).ok()
}

/// The version of the remote object (or archive member read in place) at `path` (its length,
/// time and ETag), to tell a cache of it still true; `None` for a local file or an object that
/// cannot be reached.
pub fn remote_version(path: &Path) -> Option<blob::Version> {
    if blob::is_local(path) {
        return None;
    }
    Blob::open(path).ok()?.version().ok()
}

/// The total size of a database's files (missing files count as empty).
pub fn total_size(base: &Path, exts: &[&str]) -> u64 {
    exts.iter()
        .filter_map(|e| std::fs::metadata(with_ext(base, e)).ok())
        .map(|m| m.len())
        .sum()
}

impl FileStamp {
    /// A stamp that no file has: what a store keeps for a file that is not what its own
    /// writes made it (another program wrote it at the same time), so the next look at the
    /// files re-reads them instead of taking that program's bytes for its own
    /// (docs/SEMANTICS.md §10a).
    pub const UNKNOWN: FileStamp = FileStamp {
        len: u64::MAX,
        modified: None,
        inode: 0,
    };
}

/// How long another program's files must have been left alone before a store takes them in
/// to mend or write on top of them: a program writes a save as several writes (record, index
/// entry, names), and what is read between them is half a save.
const QUIET: std::time::Duration = std::time::Duration::from_millis(200);

/// The longest a store waits for another program's files to be left alone.
const QUIET_AT_MOST: std::time::Duration = std::time::Duration::from_secs(2);

/// Wait until none of `paths` was modified in the last 200 ms (2 s at most): another program
/// that just wrote them has then most likely written its whole change (docs/SEMANTICS.md
/// §10a).
pub fn wait_until_quiet(paths: &[PathBuf]) {
    let start = std::time::Instant::now();
    loop {
        let newest = paths.iter().filter_map(|p| FileStamp::of(p).modified).max();
        let quiet = newest.is_none_or(|m| m.elapsed().is_ok_and(|age| age >= QUIET));
        if quiet || start.elapsed() >= QUIET_AT_MOST {
            return;
        }
        std::thread::sleep(QUIET / 4);
    }
}

/// The inode number of an open file, if it can be told (`fstat`): compared with the one at
/// its path, it says whether another program replaced the file under the handle.
pub fn inode_of(file: &File) -> Option<u64> {
    file.metadata().ok().map(|m| m.ino())
}

/// The user's cache folder for gamefs (`$XDG_CACHE_HOME/gamefs`, else `$HOME/.cache/gamefs`):
/// what gamefs keeps between runs to be quicker (game sizes, PGN file indexes), all of which
/// can be deleted at any time.
pub fn cache_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("gamefs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_paths_and_extensions() {
        let exts = ["si4", "sn4"];
        assert_eq!(base_path(Path::new("a/x.si4"), &exts), Path::new("a/x"));
        assert_eq!(base_path(Path::new("a/x.y"), &exts), Path::new("a/x.y"));
        assert_eq!(with_ext(Path::new("a/x.y"), "sn4"), Path::new("a/x.y.sn4"));
        assert!(
            read_file(Path::new("/no/such/file"))
                .unwrap_err()
                .to_string()
                .contains("/no/such/file")
        );
    }
}
