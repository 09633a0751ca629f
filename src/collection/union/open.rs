//! Opening a folder as one collection: each database in it opened as it opens alone, a file
//! that does not open left out with a log line and a problem, not failing the mount.

use std::path::Path;
use std::sync::Arc;

use super::discover::{databases_in, member_names};
use super::{Member, UnionCollection};
use crate::collection::{Collection, MemberStats};
use crate::error::{Error, ErrorKind, Result};
use crate::store::{self, OpenOptions};

/// Open every database in folder `dir` ([`databases_in`]) as one collection, as `options`
/// say: writable ones for writing (a PGN file is only read; a database we may not write is
/// opened read-only with a warning), new games into the member `options.into` names. Fails
/// when no database in it opens.
pub fn open_folder(dir: &Path, options: &OpenOptions) -> Result<UnionCollection> {
    let paths = databases_in(dir)?;
    let names = member_names(&paths);
    let mut members = Vec::new();
    let mut skipped = Vec::new();
    for (path, name) in paths.iter().zip(names) {
        match open_member(path, options) {
            Ok(collection) => members.push(Member { name, collection }),
            Err(e) => skipped.push(MemberStats::skipped(&name, path, &e)),
        }
    }
    if members.is_empty() {
        let why = match skipped.first().and_then(|s| s.skipped.as_deref()) {
            Some(first) => format!("none of its {} database(s) opens ({first})", skipped.len()),
            None => format!(
                "it holds no chess database (a PGN file {}, or a SCID or Simple Chess \
                 Database's .si4, .si5 or .dci)",
                store::pgn::ENDINGS.join(" ")
            ),
        };
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("{}: {why}", dir.display()),
        ));
    }
    // Said once each here; when none opens, the error alone says it.
    for s in &skipped {
        for file in &s.info.files {
            let why = s.skipped.as_deref().unwrap_or_default();
            log::warn!("{}: not mounted: {why}", file.display());
        }
    }
    UnionCollection::new(
        members,
        skipped,
        options.into.as_deref(),
        &dir.display().to_string(),
    )
}

/// Open the database at `path` for writing when `options` ask for it and its format is
/// written (a PGN file never is); when writing it is refused to us, read-only, with a warning.
fn open_member(path: &Path, options: &OpenOptions) -> Result<Arc<dyn Collection>> {
    let writable = options.writable && !store::pgn::looks_like(path);
    let with = |writable| OpenOptions {
        writable,
        lossy: options.lossy,
        ..OpenOptions::default()
    };
    match crate::collection::open(path, &with(writable)) {
        Err(e)
            if writable
                && matches!(e.kind(), ErrorKind::PermissionDenied | ErrorKind::ReadOnly) =>
        {
            log::warn!("{e}; {} mounted read-only", path.display());
            crate::collection::open(path, &with(false))
        }
        opened => opened,
    }
}
