//! Which files of a folder are databases to mount as one tree, and the name each is shown by.

use std::path::{Path, PathBuf};

use crate::collection::MemberStats;
use crate::collection::naming::{PART_MAX, unique_components};
use crate::error::{Error, Result};
use crate::store;
use crate::store::archive;

/// The databases in folder `dir`, in file-name order: every PGN file (plain or compressed,
/// [`store::pgn::ENDINGS`]), every index file of a SCID 4, SCID 5 or Simple Chess
/// Database (`.si4`, `.si5`, `.dci`) and every archive ([`archive::kind`]). Subfolders are
/// not looked into; other files (a SCID database's name and game files among them) are left
/// alone.
pub fn databases_in(dir: &Path) -> Result<Vec<PathBuf>> {
    if store::blob::is_remote_folder(dir) {
        // A prefix of a bucket: its objects, by key.
        let mut found = store::blob::list_folder(dir)?;
        found.retain(|p| ending_of(p).is_some() || archive::kind::of_path(p).is_some());
        return Ok(found);
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("reading folder {}", dir.display()), e))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && (ending_of(p).is_some() || archive::kind::of_path(p).is_some()))
        .collect();
    found.sort();
    Ok(found)
}

/// The ending that makes `path` a database ([`databases_in`]): `.pgn.zst`, `.si4`, …, as
/// written in the name ([`store::database_ending`]).
fn ending_of(path: &Path) -> Option<usize> {
    store::database_ending(path.file_name()?.to_str()?)
}

/// The databases to open as one: their paths, and the files or members that are left out.
#[derive(Debug, Default)]
pub struct Found {
    /// Each database's path (one unpacked from an archive is in the cache folder).
    pub paths: Vec<PathBuf>,
    /// Whether each database was unpacked from an archive, so is only read (a save would go
    /// to a copy).
    pub unpacked: Vec<bool>,
    /// The archives and members left out, each with why.
    pub skipped: Vec<MemberStats>,
}

impl Found {
    /// Add the databases of archive `path`, `unpacked`, and its members left out, each named
    /// `ARCHIVE/MEMBER`.
    fn add_unpacked(&mut self, path: &Path, unpacked: archive::Unpacked) {
        let archive_name = path.file_name().unwrap_or_default().to_string_lossy();
        for p in &unpacked.problems {
            let member = format!("{archive_name}/{}", p.member);
            self.skipped.push(MemberStats::skipped(
                &member,
                Path::new(&member),
                &p.to_error(),
            ));
        }
        self.unpacked
            .extend(unpacked.databases.iter().map(|_| true));
        self.paths.extend(unpacked.databases);
    }
}

/// The databases of folder `dir` ([`databases_in`]), with those of each archive in it
/// unpacked ([`archive::unpack`]).
pub fn databases_of_folder(dir: &Path) -> Result<Found> {
    use rayon::prelude::*;
    let paths = databases_in(dir)?;
    // Archives are unpacked on every core, each on its own; what they hold keeps the
    // folder's order.
    let unpacked: Vec<Option<Result<archive::Unpacked>>> = paths
        .par_iter()
        .map(|p| archive::kind::of_path(p).map(|_| archive::unpack(p)))
        .collect();
    let mut found = Found::default();
    for (path, unpacked) in paths.into_iter().zip(unpacked) {
        match unpacked {
            Some(Ok(unpacked)) => found.add_unpacked(&path, unpacked),
            Some(Err(e)) => {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                found.skipped.push(MemberStats::skipped(&name, &path, &e));
            }
            None => {
                found.paths.push(path);
                found.unpacked.push(false);
            }
        }
    }
    Ok(found)
}

/// The databases archive `path` holds, unpacked ([`archive::unpack`]); an error when it does
/// not unpack at all.
pub fn databases_of_archive(path: &Path) -> Result<Found> {
    let mut found = Found::default();
    found.add_unpacked(path, archive::unpack(path)?);
    Ok(found)
}

/// The names the databases at `paths` are shown by (in the same order): each file's name
/// without its database ending (`twic1500.pgn.zst` is `twic1500`, `club.si4` is `club`), made
/// safe for a file name and at most 100 bytes; a name already taken by an earlier file gets
/// ` ~2`, ` ~3`, … appended.
pub fn member_names(paths: &[PathBuf]) -> Vec<String> {
    let stems: Vec<String> = paths
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            let cut = ending_of(p).unwrap_or(0);
            let stem = &name[..name.len() - cut];
            crate::collection::naming::safe_component(stem, PART_MAX)
        })
        .collect();
    unique_components(stems.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_are_found_by_their_endings_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "b.pgn.zst",
            "a.PGN",
            "club.si4",
            "club.sn4",
            "club.sg4",
            "notes.txt",
            "x.dci",
            "x.dcg",
            ".pgn",
            "old.si5",
        ] {
            std::fs::write(dir.path().join(f), b"").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.pgn")).unwrap();
        let found = databases_in(dir.path()).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["a.PGN", "b.pgn.zst", "club.si4", "old.si5", "x.dci"]
        );
        assert_eq!(member_names(&found), ["a", "b", "club", "old", "x"]);
    }

    #[test]
    fn names_taken_twice_are_made_unique() {
        let paths = [
            PathBuf::from("/d/club.pgn"),
            PathBuf::from("/d/club.si4"),
            PathBuf::from("/d/a\u{202e}b.pgn.gz"),
        ];
        assert_eq!(member_names(&paths), ["club", "club ~2", "a\u{fffd}b"]);
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_it() {
        let e = databases_in(Path::new("/nonexistent/gamefs")).unwrap_err();
        assert!(e.message().contains("/nonexistent/gamefs"), "{e}");
    }
}
