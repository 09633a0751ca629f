//! Opening a folder (or an archive) as one collection: each database in it opened as it
//! opens alone, a file that does not open left out with a log line and a problem, not
//! failing the mount.

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::discover::{Found, databases_of_archive, databases_of_folder, member_names};
use super::{Member, UnionCollection};
use crate::collection::{Collection, MemberStats};
use crate::error::{Error, ErrorKind, Result};
use crate::store::{self, OpenOptions};

/// Open every database in folder `dir` ([`databases_of_folder`]: those of its archives too)
/// as one collection, as `options` say: writable ones for writing (a PGN file, or a database
/// unpacked from an archive, is only read; a database we may not write is opened read-only
/// with a warning), new games into the member `options.into` names. Fails when no database
/// in it opens.
pub fn open_folder(dir: &Path, options: &OpenOptions) -> Result<UnionCollection> {
    open_found(dir, databases_of_folder(dir)?, options)
}

/// Open the databases archive `path` holds ([`databases_of_archive`]), read-only: one alone,
/// as it opens alone, when it is all the archive holds and no member was left out; else as
/// one collection, as a folder of them.
pub fn open_archive(path: &Path, options: &OpenOptions) -> Result<Arc<dyn Collection>> {
    let found = databases_of_archive(path)?;
    if let ([only], true) = (found.paths.as_slice(), found.skipped.is_empty()) {
        return open_member(only, true, options);
    }
    Ok(Arc::new(open_found(path, found, options)?))
}

/// Open the databases `found` in `what` (a folder or an archive) as one collection.
fn open_found(what: &Path, found: Found, options: &OpenOptions) -> Result<UnionCollection> {
    let names = member_names(&found.paths);
    let mut members = Vec::new();
    let mut skipped = found.skipped;
    let already_skipped = skipped.len();
    // Opened on every core, each on its own (a PGN file is indexed as it opens: a folder of
    // a hundred small ones, or a hundred archives' members, is a hundred indexings); the
    // members keep the folder's order.
    let opened: Vec<Result<Arc<dyn Collection>>> = found
        .paths
        .par_iter()
        .zip(found.unpacked.par_iter())
        .map(|(path, &unpacked)| open_member(path, unpacked, options))
        .collect();
    for ((path, name), opened) in found.paths.iter().zip(names).zip(opened) {
        match opened {
            Ok(collection) => members.push(Member { name, collection }),
            Err(e) => skipped.push(MemberStats::skipped(&name, path, &e)),
        }
    }
    if members.is_empty() {
        let why = match skipped.first().and_then(|s| s.skipped.as_deref()) {
            Some(first) => format!(
                "none of its {} database(s) opens ({}: {first})",
                skipped.len(),
                skipped[0].name
            ),
            None => format!(
                "it holds no chess database (a PGN file {}, a SCID or Simple Chess \
                 Database's .si4, .si5 or .dci, or an archive holding one)",
                store::pgn::ENDINGS.join(" ")
            ),
        };
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("{}: {why}", what.display()),
        ));
    }
    // Said once each here; when none opens, the error alone says it. Archives' members
    // were said as they were unpacked.
    for s in &skipped[already_skipped..] {
        for file in &s.info.files {
            let why = s.skipped.as_deref().unwrap_or_default();
            log::warn!("{}: not mounted: {why}", file.display());
        }
    }
    UnionCollection::new(
        members,
        skipped,
        options.into.as_deref(),
        &what.display().to_string(),
    )
}

/// Open the database at `path` for writing when `options` ask for it and it is written (a
/// PGN file or a ChessBase database never is, nor one `unpacked` from an archive); when
/// writing it is refused to us, read-only, with a warning.
fn open_member(path: &Path, unpacked: bool, options: &OpenOptions) -> Result<Arc<dyn Collection>> {
    let writable = options.writable
        && !unpacked
        && !store::pgn::looks_like(path)
        && !store::chessbase::looks_like(path);
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
