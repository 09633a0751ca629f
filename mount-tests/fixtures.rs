//! Test databases, built once per test run with real SCID from PGN files in the repository.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::harness::{repo, scid_import};

fn fixture_dir() -> PathBuf {
    let dir = repo()
        .join("target")
        .join("mount-tests")
        .join(format!("fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The demo PGN plus every edge-case PGN of tests/data, imported by SCID: the main test database.
pub(crate) fn edge_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let base = fixture_dir().join("edge");
        let mut pgns = vec![repo().join("contrib/sample/demo.pgn")];
        pgns.extend(data_pgns());
        let refs: Vec<&Path> = pgns.iter().map(PathBuf::as_path).collect();
        scid_import(&refs, &base);
        base
    })
}

/// The PGN files under tests/data.
pub(crate) fn data_pgns() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    v.sort();
    v
}

/// A private copy of a database (to corrupt or mark), at `dir/name`.
pub(crate) fn copy_db(src: &Path, dir: &Path, name: &str) -> PathBuf {
    let dst = dir.join(name);
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(src.with_extension(ext), dst.with_extension(ext)).unwrap();
    }
    dst
}
