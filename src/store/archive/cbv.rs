//! ChessBase's archives: a `.cbv` packs a database's files (and its pictures), a `.cbz` is
//! the same enciphered with a password. Read by the cbvault-format crate (MIT), a
//! clean-room reader of the container whose every block mode it decodes; a member is
//! decoded whole, one at a time. A `.cbz` is refused as encrypted, as other archives'
//! encrypted members are.

use std::sync::Arc;

use cbvault_format::archive::{Archive, Error as CbvError};

use super::{Members, encrypted};
use crate::error::{Error, ErrorKind, Result};
use crate::store::blob::Blob;

/// Hand each member of the ChessBase archive `blob` to `into`.
pub(super) fn read(blob: &Arc<Blob>, into: &mut dyn Members) -> Result<()> {
    let Some(path) = blob.local_path() else {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "a ChessBase archive (.cbv) is read from a local file only: copy it here first",
        ));
    };
    let archive = match Archive::open(path) {
        Ok(archive) => archive,
        Err(e) if is_cbz(path) => {
            log::debug!("{}: {e}", path.display());
            into.refused("the archive", encrypted());
            return Ok(());
        }
        Err(e) => return Err(archive_error(e)),
    };
    for member in archive.list() {
        // A folder of the archive (`BASE.bmp\…`) holds pictures, never a database file.
        let name = member.name();
        if member.is_asset() || !into.wants(name) {
            continue;
        }
        match archive.decode(member) {
            Ok(bytes) => into.file(name, member.packed(), &mut bytes.as_slice())?,
            Err(e) => into.refused(name, archive_error(e)),
        }
    }
    Ok(())
}

/// True when `path` names a `.cbz` (an archive enciphered with a password).
fn is_cbz(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cbz"))
}

/// The error of a ChessBase archive (or its member) that does not read.
fn archive_error(e: CbvError) -> Error {
    Error::new(
        ErrorKind::CorruptDatabase,
        format!("cut short or damaged ({e}): not unpacked"),
    )
}

#[cfg(test)]
mod tests {
    use crate::store::archive::bounds::Bounds;
    use crate::store::archive::unpack::unpack_into;
    use std::path::{Path, PathBuf};

    /// The test data's ChessBase files.
    fn data() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chessbase")
    }

    #[test]
    fn a_cbv_unpacks_into_the_files_of_its_database() {
        let dir = tempfile::tempdir().unwrap();
        let unpacked = unpack_into(
            &data().join("twic1134.cbv"),
            &dir.path().join("archives"),
            Bounds::default(),
        )
        .unwrap();
        assert!(unpacked.problems.is_empty(), "{:?}", unpacked.problems);
        assert_eq!(unpacked.databases.len(), 1, "{:?}", unpacked.databases);
        // The same bytes as the database's own files (unpacked by uncbv, tests/data).
        for ext in ["cbh", "cbg", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj"] {
            let name = format!("twic1134.{ext}");
            assert!(
                std::fs::read(unpacked.folder.join(&name)).unwrap()
                    == std::fs::read(data().join(&name)).unwrap(),
                "{name}"
            );
        }
    }

    #[test]
    fn a_cbz_is_refused_as_encrypted() {
        let dir = tempfile::tempdir().unwrap();
        let unpacked = unpack_into(
            &data().join("small.cbz"),
            &dir.path().join("archives"),
            Bounds::default(),
        )
        .unwrap();
        assert!(unpacked.databases.is_empty());
        assert_eq!(unpacked.problems.len(), 1);
        assert!(
            unpacked.problems[0].why.contains("encrypted"),
            "{:?}",
            unpacked.problems
        );
    }
}
