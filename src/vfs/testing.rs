//! A tree over a small real database, for the unit tests of the tree.

use std::path::Path;
use std::sync::Arc;

use super::{Vfs, VfsOptions};
use crate::collection::chess::ChessCollection;
use crate::error::Error;
use crate::store::{self, Format};
use crate::text::pgn_parse;

/// A tree over a fresh SCID database in `dir` holding the demo games, open for writing or
/// read-only.
pub fn demo_tree(dir: &Path, writable: bool) -> Vfs {
    let base = dir.join("db");
    store::create(&base, Format::Scid).unwrap();
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/sample/demo.pgn"
    ))
    .unwrap();
    {
        let db = store::open(&base, true).unwrap();
        db.append(&mut pgn_parse::games(&text).map(|g| g.map_err(Error::from)))
            .unwrap();
    }
    let db = store::open(&base, writable).unwrap();
    Vfs::new(Arc::new(ChessCollection::new(db)), VfsOptions::default())
}
