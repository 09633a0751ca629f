//! Bytes that lie inside another blob: a member of an archive read in place, by ranges of the
//! archive (local or remote), instead of a copy of it in the cache folder.
//!
//! A window is a list of parts, each a range of the blob underneath or a few bytes held in
//! memory (the header and trailer that make a zip's DEFLATE member a gzip member, so that the
//! stores read it as the gzip file it is). It is named by a path (where the member would have
//! been unpacked), placed once by whoever found the member ([`place`]); [`super::Blob::open`]
//! of that path then reads the window, so the stores take a member as their source without a
//! code path of their own (docs/DESIGN.md, "Sources of bytes").

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, RwLock};

use super::{Blob, Version};
use crate::error::Result;

/// One part of a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// `len` bytes of the blob underneath from byte `at`.
    Range {
        /// Where they start in the blob underneath.
        at: u64,
        /// How many.
        len: u64,
    },
    /// Bytes held here.
    Bytes(Vec<u8>),
}

impl Part {
    fn len(&self) -> u64 {
        match self {
            Part::Range { len, .. } => *len,
            Part::Bytes(b) => b.len() as u64,
        }
    }
}

/// Bytes made of parts of a blob (and of bytes held here), read as one blob.
pub struct Window {
    /// What it is called in messages (the archive and the member).
    name: String,
    base: Arc<Blob>,
    /// Each part with where it starts in the window.
    parts: Vec<(u64, Part)>,
    version: Version,
}

impl Window {
    /// The window of `parts` of `base`, called `name` in messages; its version is the
    /// base's, with the window's length (the window changes when the base does).
    pub fn new(name: String, base: Arc<Blob>, parts: Vec<Part>) -> Result<Window> {
        let mut version = base.version()?;
        let mut at = 0;
        let parts = parts
            .into_iter()
            .map(|p| {
                let start = at;
                at += p.len();
                (start, p)
            })
            .collect();
        version.len = at;
        Ok(Window {
            name,
            base,
            parts,
            version,
        })
    }

    /// Its name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its version: the base's time and ETag, its own length.
    pub fn version(&self) -> &Version {
        &self.version
    }

    /// Read into `buf` from byte `offset` of the window: the bytes read (fewer at a part's end
    /// or the window's).
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let i = self.parts.partition_point(|(start, _)| *start <= offset);
        let Some((start, part)) = i.checked_sub(1).and_then(|i| self.parts.get(i)) else {
            return Ok(0);
        };
        let into = offset - start;
        let want = (buf.len() as u64).min(part.len().saturating_sub(into)) as usize;
        match part {
            Part::Bytes(b) => {
                let into = into as usize;
                buf[..want].copy_from_slice(&b[into..into + want]);
                Ok(want)
            }
            Part::Range { at, .. } => {
                let n = self.base.read_at(&mut buf[..want], at + into)?;
                if n == 0 && want > 0 {
                    // The blob underneath is shorter than when the window was made.
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("{}: the archive ends before the member does", self.name),
                    ));
                }
                Ok(n)
            }
        }
    }
}

/// The windows placed, by the path that names each.
static PLACED: LazyLock<RwLock<HashMap<PathBuf, Arc<Window>>>> = LazyLock::new(Default::default);

/// Name `window` by `path`: [`Blob::open`] of `path` reads it from now on (in this process).
pub fn place(path: &Path, window: Window) {
    PLACED
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .insert(path.to_path_buf(), Arc::new(window));
}

/// The window `path` names, if one was placed there.
pub fn placed(path: &Path) -> Option<Arc<Window>> {
    PLACED
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(path)
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_reads_its_parts_in_order_as_one_blob() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("archive");
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let base = Arc::new(Blob::open(&path).unwrap());
        let window = Window::new(
            "archive: m".into(),
            base,
            vec![
                Part::Bytes(b"head".to_vec()),
                Part::Range { at: 100, len: 300 },
                Part::Bytes(b"tail".to_vec()),
            ],
        )
        .unwrap();
        assert_eq!(window.version().len, 308);
        let named = dir.path().join("unpacked/m.pgn");
        place(&named, window);
        assert!(crate::store::blob::is_file(&named));
        assert!(!crate::store::blob::is_local(&named));
        let blob = Blob::open(&named).unwrap();
        assert_eq!(blob.local_path(), None);
        let all = blob.read_all().unwrap();
        assert_eq!(all, [b"head", &bytes[100..400], b"tail"].concat());
        let mut buf = [0; 10];
        blob.read_exact_at(&mut buf, 298).unwrap();
        assert_eq!(buf, all[298..]);
        assert!(blob.read_exact_at(&mut buf, 299).is_err());
    }
}
