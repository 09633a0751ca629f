//! Which files of a folder are databases to mount as one tree, and the name each is shown by.

use std::path::{Path, PathBuf};

use crate::collection::naming::{PART_MAX, unique_components};
use crate::error::{Error, Result};
use crate::store;

/// The file extensions (lowercase) that start a database of several files: SCID 4's and
/// SCID 5's index, a Simple Chess Database's index.
const INDEX_EXTENSIONS: [&str; 3] = ["si4", "si5", "dci"];

/// The databases in folder `dir`, in file-name order: every PGN file (plain or compressed,
/// [`store::pgn::ENDINGS`]) and every index file of a SCID 4, SCID 5 or Simple Chess
/// Database (`.si4`, `.si5`, `.dci`). Subfolders are not looked into; other files (a SCID
/// database's name and game files among them) are left alone.
pub fn databases_in(dir: &Path) -> Result<Vec<PathBuf>> {
    if store::blob::is_remote_folder(dir) {
        // A prefix of a bucket: its objects, by key.
        let mut found = store::blob::list_folder(dir)?;
        found.retain(|p| ending_of(p).is_some());
        return Ok(found);
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("reading folder {}", dir.display()), e))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && ending_of(p).is_some())
        .collect();
    found.sort();
    Ok(found)
}

/// The ending that makes `path` a database ([`databases_in`]): `.pgn.zst`, `.si4`, …, as
/// written in the name.
fn ending_of(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    let pgn = store::pgn::ENDINGS.iter().find(|e| lower.ends_with(*e));
    let index = INDEX_EXTENSIONS
        .iter()
        .find(|e| lower.strip_suffix(*e).is_some_and(|s| s.ends_with('.')));
    let len = pgn.map(|e| e.len()).or(index.map(|e| e.len() + 1))?;
    (len < name.len()).then_some(len)
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
