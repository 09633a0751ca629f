//! New, empty SCID databases, exactly as `sc_base create` writes them: SCID 4's with a header
//! in its index and name files, SCID 5's as three empty files.

use std::path::{Path, PathBuf};

use super::header::INDEX_MAGIC;
use super::header::Layout;
use super::names::NAMES_MAGIC;
use super::{base_path, paths_of};
use crate::error::{Error, ErrorKind, Result};

/// The .si4 header of a database with `games` games: version 400, type 0, autoload 1, no
/// description and no custom flag names.
pub(crate) fn empty_header(games: u32) -> [u8; 182] {
    let mut h = [0u8; 182];
    h[..8].copy_from_slice(INDEX_MAGIC);
    h[8..10].copy_from_slice(&400u16.to_be_bytes());
    h[14..17].copy_from_slice(&games.to_be_bytes()[1..]);
    h[17..20].copy_from_slice(&1u32.to_be_bytes()[1..]);
    h
}

/// The .sn4 of a database without names: magic, zero timestamp, eight zero counts.
pub(crate) fn empty_names() -> Vec<u8> {
    let mut b = NAMES_MAGIC.to_vec();
    b.resize(36, 0);
    b
}

/// Create an empty SCID 4 database at `path` (base path or any of its files). Refuses to
/// touch an existing file.
pub(crate) fn create(path: &Path) -> Result<()> {
    create_as(path, Layout::V400)
}

/// Create an empty database with `layout` (SCID 4's or SCID 5's) at `path` (base path or any
/// of its files). Refuses to touch an existing file.
pub(crate) fn create_as(path: &Path, layout: Layout) -> Result<()> {
    let base = base_path(path);
    let paths = paths_of(&base, layout);
    for p in &paths {
        if p.exists() {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("{} already exists", p.display()),
            ));
        }
    }
    let [index, names, games] = paths;
    let contents: [(PathBuf, Vec<u8>); 3] = match layout {
        Layout::V5 => [(games, vec![]), (names, vec![]), (index, vec![])],
        _ => [
            (games, Vec::new()),
            (names, empty_names()),
            (index, empty_header(0).to_vec()),
        ],
    };
    for (p, bytes) in contents {
        std::fs::write(&p, bytes)
            .map_err(|e| Error::io(format!("cannot create {}", p.display()), e))?;
    }
    Ok(())
}
