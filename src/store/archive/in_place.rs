//! Members read in place: a PGN file stored in a zip, or deflated there, is not unpacked but
//! read by ranges of the archive, through a [`Window`] named by the path it would have been
//! unpacked to. A stored member is its bytes as they lie; a deflated one is a DEFLATE stream,
//! which with a gzip header before it and its CRC-32 and size (from the zip's directory) after
//! it is a gzip member, so the PGN store reads it as it reads a `.pgn.gz`: by checkpoints kept
//! in its index, checked against the CRC at its end. Nothing of its text is written into the
//! cache folder but that index.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Result;
use crate::store::blob::Blob;
use crate::store::blob::window::{Part, Window};

/// How a member read in place is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Method {
    /// As it is.
    Stored,
    /// A DEFLATE stream of `size` bytes of text, whose CRC-32 is `crc32`.
    Deflated {
        /// The CRC-32 of its text.
        crc32: u32,
        /// The length of its text.
        size: u64,
    },
}

/// Where a member read in place lies in its archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placed {
    /// Where its data starts (after its local header).
    pub data_start: u64,
    /// How many bytes of data it has in the archive.
    pub packed: u64,
    /// How they are stored.
    pub method: Method,
}

/// The word that starts the line of a member read in place in an unpacking's done file.
const WORD: &str = "in-place";

/// A gzip member's header: no name, no time, from an unknown system.
const GZIP_HEADER: [u8; 10] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF];

impl Placed {
    /// True when member `name` (a PGN file by its name) can be read in place stored by
    /// `method`: stored, any PGN file (`.pgn.gz` too, read as it is); deflated, plain text
    /// only (a compressed file compressed again is unpacked).
    pub(super) fn suits(name: &str, method: Method) -> bool {
        let lower = name.to_ascii_lowercase();
        match method {
            Method::Stored => crate::store::pgn::ENDINGS
                .iter()
                .any(|e| lower.ends_with(e)),
            Method::Deflated { .. } => lower.ends_with(".pgn"),
        }
    }

    /// The window of `archive` this member is, called `name` in messages.
    pub(super) fn window(&self, archive: &Arc<Blob>, name: String) -> Result<Window> {
        let data = Part::Range {
            at: self.data_start,
            len: self.packed,
        };
        let parts = match self.method {
            Method::Stored => vec![data],
            Method::Deflated { crc32, size } => {
                let mut trailer = crc32.to_le_bytes().to_vec();
                // ISIZE: the length modulo 2^32, as gzip writes it.
                trailer.extend_from_slice(&(size as u32).to_le_bytes());
                vec![
                    Part::Bytes(GZIP_HEADER.to_vec()),
                    data,
                    Part::Bytes(trailer),
                ]
            }
        };
        Window::new(name, archive.clone(), parts)
    }

    /// Its line in the done file, for the member at relative path `path`.
    pub(super) fn line(self, path: &Path) -> String {
        let method = match self.method {
            Method::Stored => "stored".to_owned(),
            Method::Deflated { crc32, size } => format!("deflated {crc32} {size}"),
        };
        format!(
            "{WORD}\t{}\t{}\t{}\t{method}\n",
            path.display().to_string().replace(['\t', '\n'], " "),
            self.data_start,
            self.packed
        )
    }

    /// The relative path and place a done file's `line` keeps; `None` for another line.
    pub(super) fn from_line(line: &str) -> Option<(PathBuf, Placed)> {
        let mut parts = line.split('\t');
        if parts.next()? != WORD {
            return None;
        }
        let path = PathBuf::from(parts.next()?);
        let data_start = parts.next()?.parse().ok()?;
        let packed = parts.next()?.parse().ok()?;
        let mut method = parts.next()?.split(' ');
        let method = match method.next()? {
            "stored" => Method::Stored,
            "deflated" => Method::Deflated {
                crc32: method.next()?.parse().ok()?,
                size: method.next()?.parse().ok()?,
            },
            _ => return None,
        };
        Some((
            path,
            Placed {
                data_start,
                packed,
                method,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_kept_as_a_line_and_read_back() {
        for method in [
            Method::Stored,
            Method::Deflated {
                crc32: 0xDEAD_BEEF,
                size: 5 << 32,
            },
        ] {
            let placed = Placed {
                data_start: 77,
                packed: 1234,
                method,
            };
            let line = placed.line(Path::new("a b/twic.pgn"));
            assert_eq!(
                Placed::from_line(line.trim_end()),
                Some((PathBuf::from("a b/twic.pgn"), placed))
            );
        }
        assert_eq!(Placed::from_line("damaged\tx.pgn\twhy"), None);
        assert!(Placed::suits("A.PGN", Method::Stored));
        assert!(Placed::suits("a.pgn.gz", Method::Stored));
        assert!(!Placed::suits(
            "a.pgn.gz",
            Method::Deflated { crc32: 0, size: 0 }
        ));
        assert!(!Placed::suits("a.si4", Method::Stored));
    }
}
