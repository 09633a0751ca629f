//! New, empty SCID 4 databases, exactly as `sc_base create` writes them.

use std::path::Path;

use super::header::INDEX_MAGIC;
use super::names::NAMES_MAGIC;
use super::{EXTENSIONS, base_path, with_ext};
use crate::error::{Error, ErrorKind, Result};

/// The .si4 header of a database with `games` games: version 400, type 0, autoload 1, no
/// description and no custom flag names.
pub fn empty_header(games: u32) -> [u8; 182] {
    let mut h = [0u8; 182];
    h[..8].copy_from_slice(INDEX_MAGIC);
    h[8..10].copy_from_slice(&400u16.to_be_bytes());
    h[14..17].copy_from_slice(&games.to_be_bytes()[1..]);
    h[17..20].copy_from_slice(&1u32.to_be_bytes()[1..]);
    h
}

/// The .sn4 of a database without names: magic, zero timestamp, eight zero counts.
pub fn empty_names() -> Vec<u8> {
    let mut b = NAMES_MAGIC.to_vec();
    b.resize(36, 0);
    b
}

/// Create an empty database at `path` (base path or any of its files). Refuses to touch an
/// existing file.
pub fn create(path: &Path) -> Result<()> {
    let base = base_path(path);
    for ext in EXTENSIONS {
        let p = with_ext(&base, ext);
        if p.exists() {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("{} already exists", p.display()),
            ));
        }
    }
    let contents: [(&str, Vec<u8>); 3] = [
        ("sg4", Vec::new()),
        ("sn4", empty_names()),
        ("si4", empty_header(0).to_vec()),
    ];
    for (ext, bytes) in contents {
        let p = with_ext(&base, ext);
        std::fs::write(&p, bytes)
            .map_err(|e| Error::io(format!("cannot create {}", p.display()), e))?;
    }
    Ok(())
}
