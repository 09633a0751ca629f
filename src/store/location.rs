//! Where a database's bytes are, as the user named them: read once from what was typed (a
//! path or a URL), so the layers above ask the typed answer instead of parsing the text again.

use std::path::{Path, PathBuf};

use super::archive;
use super::blob;

/// Where the bytes of what the user named are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A local file or folder.
    Local(PathBuf),
    /// An object (or, with a trailing `/`, a prefix of objects) in a bucket or on a web
    /// server: `s3://…`, `https://…`.
    Remote(PathBuf),
    /// An archive, local or remote, whose databases are unpacked once into the cache folder
    /// ([`archive::unpack`]).
    Archive {
        /// The archive's path or URL.
        path: PathBuf,
        /// Its format.
        kind: archive::Kind,
    },
    /// A member of an archive read in place (a PGN file stored or deflated in a zip), named
    /// by the path it would have been unpacked to: [`blob::Blob::open`] of that path reads it
    /// in the archive ([`blob::window`]).
    Member(PathBuf),
}

impl Location {
    /// Where `typed` (a path or a URL, as given on the command line) is. A name with an
    /// archive's ending is an archive when it is a file (or a remote object), not a folder.
    pub fn parse(typed: &Path) -> Location {
        if blob::window::placed(typed).is_some() {
            return Location::Member(typed.to_path_buf());
        }
        let remote = blob::is_remote(typed);
        if let Some(kind) = archive::kind::of_path(typed)
            && (remote || typed.is_file())
        {
            return Location::Archive {
                path: typed.to_path_buf(),
                kind,
            };
        }
        if remote {
            Location::Remote(typed.to_path_buf())
        } else {
            Location::Local(typed.to_path_buf())
        }
    }

    /// The path or URL as given.
    pub fn path(&self) -> &Path {
        match self {
            Location::Local(p)
            | Location::Remote(p)
            | Location::Member(p)
            | Location::Archive { path: p, .. } => p,
        }
    }

    /// True when the bytes are a local file that the file system reads as one: to map it,
    /// look at its inode, see it grow (not a remote object nor an archive's member).
    pub fn is_local(&self) -> bool {
        matches!(self, Location::Local(_))
    }

    /// True when the bytes are a remote object (an index is shared beside it).
    pub fn is_remote(&self) -> bool {
        matches!(self, Location::Remote(_))
    }

    /// True when what is there can only be read: a remote object (object stores do not
    /// append), an archive (its databases are copies in the cache folder), a PGN file or a
    /// ChessBase database.
    pub fn is_read_only(&self) -> bool {
        match self {
            Location::Remote(_) | Location::Archive { .. } | Location::Member(_) => true,
            Location::Local(p) => super::pgn::looks_like(p) || super::chessbase::looks_like(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_typed_is_read_once_as_a_local_remote_or_archive_location() {
        let dir = tempfile::tempdir().unwrap();
        let zip = dir.path().join("twic1500g.zip");
        std::fs::write(&zip, b"PK").unwrap();
        assert!(matches!(
            Location::parse(&zip),
            Location::Archive {
                kind: archive::Kind::Zip,
                ..
            }
        ));
        assert!(Location::parse(&zip).is_read_only());
        // A folder named like an archive is a folder.
        let folder = dir.path().join("old.zip");
        std::fs::create_dir(&folder).unwrap();
        assert_eq!(Location::parse(&folder), Location::Local(folder.clone()));
        assert!(matches!(
            Location::parse(Path::new("s3://b/games.7z")),
            Location::Archive { .. }
        ));
        assert_eq!(
            Location::parse(Path::new("https://h/a.pgn")),
            Location::Remote(PathBuf::from("https://h/a.pgn"))
        );
        assert!(!Location::parse(dir.path()).is_read_only());
        assert!(Location::parse(dir.path()).is_local());
        assert!(Location::parse(Path::new("s3://b/a.pgn")).is_remote());
        // A member of an archive read in place, under the path it would be unpacked to.
        let base = std::sync::Arc::new(blob::Blob::open(&zip).unwrap());
        let window = blob::window::Window::new(
            "twic1500g.zip: twic1500.pgn".into(),
            base,
            vec![blob::window::Part::Range { at: 0, len: 2 }],
        )
        .unwrap();
        let member = dir.path().join("archives/1/files/twic1500.pgn");
        blob::window::place(&member, window);
        let parsed = Location::parse(&member);
        assert_eq!(parsed, Location::Member(member));
        assert!(parsed.is_read_only() && !parsed.is_local() && !parsed.is_remote());
    }
}
