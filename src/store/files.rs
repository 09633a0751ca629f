//! Paths and file access shared by the formats whose databases are a set of files with one
//! base name (`x.si4`, `x.sn4`, …): naming the files, and reading or opening them with errors
//! that say which file.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

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

/// The whole file at `path`.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))
}

/// The file at `path`, open for reading and, when `writable`, writing.
pub fn open_file(path: &Path, writable: bool) -> Result<File> {
    File::options()
        .read(true)
        .write(writable)
        .open(path)
        .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))
}

/// The total size of a database's files (missing files count as empty).
pub fn total_size(base: &Path, exts: &[&str]) -> u64 {
    exts.iter()
        .filter_map(|e| std::fs::metadata(with_ext(base, e)).ok())
        .map(|m| m.len())
        .sum()
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
