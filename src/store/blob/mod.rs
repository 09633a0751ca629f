//! The source of a store's bytes: a local file, or an object in an S3-compatible bucket or
//! on a web server read by ranges (`s3://BUCKET/KEY`, `https://HOST/PATH`).
//!
//! Every store and codec reads through a [`Blob`] the same way (positioned reads, a
//! sequential reader from any offset), so no format and no codec has a remote code path of
//! its own: a remote object's ranges are fetched in blocks, kept in a bounded local cache,
//! with blocks ahead fetched for reads going on in order ([`remote`]). Only what maps a local
//! file for speed ([`Blob::local_path`]) asks which one it has, and reads a remote one in order
//! instead. Nothing above the stores knows where the bytes come from (DESIGN.md, "Sources of
//! bytes").

mod block_cache;
pub mod remote;
pub mod settings;
pub mod window;

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};

pub use settings::RemoteSettings;

/// True when `path` names a remote object (`s3://…`, `http://…`, `https://…`) rather than a
/// local file.
pub fn is_remote(path: &Path) -> bool {
    remote::Url::parse(path).is_some()
}

/// True when `path` names a local file that the file system reads (to map it, look at its
/// inode, or write it): not a remote object nor a member of an archive read in place
/// ([`window`]).
pub fn is_local(path: &Path) -> bool {
    !is_remote(path) && window::placed(path).is_none()
}

/// What `path` is called in messages: a member of an archive read in place by the archive
/// and the member (`twic1500g.zip: twic1500.pgn`), not by the path it would have been
/// unpacked to; anything else by its path.
pub fn described(path: &Path) -> String {
    match window::placed(path) {
        Some(w) => w.name().to_owned(),
        None => path.display().to_string(),
    }
}

/// True when `path` names a prefix of an S3 bucket (`s3://BUCKET/` or `s3://BUCKET/PREFIX/`),
/// a folder of objects.
pub fn is_remote_folder(path: &Path) -> bool {
    matches!(remote::Url::parse(path), Some(remote::Url::S3 { key, .. }) if key.is_empty() || key.ends_with('/'))
}

/// The objects right under the S3 prefix `path` names ([`is_remote_folder`]), as URLs, in
/// key order.
pub fn list_folder(path: &Path) -> Result<Vec<PathBuf>> {
    Ok(remote::list(path)?.into_iter().map(PathBuf::from).collect())
}

/// True when `path` names a regular local file or a remote object that exists.
pub fn is_file(path: &Path) -> bool {
    if window::placed(path).is_some() {
        return true;
    }
    match remote::Url::parse(path) {
        Some(_) => Blob::open(path).is_ok(),
        None => path.is_file(),
    }
}

/// Bytes to read from any offset: a local file or a remote object.
pub struct Blob {
    what: Kind,
}

/// Where a [`Blob`]'s bytes are.
enum Kind {
    /// A local file, open for reading.
    Local { path: PathBuf, file: File },
    /// A remote object.
    Remote(Arc<remote::Object>),
    /// Bytes inside another blob (an archive's member read in place).
    Window(Arc<window::Window>),
}

/// What tells one version of a blob's bytes from another: a local file's length and
/// modification time, a remote object's length and ETag.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Version {
    /// Its length in bytes.
    pub len: u64,
    /// When it was last changed (seconds, nanoseconds since 1970).
    pub mtime: (i64, i64),
    /// A remote object's entity tag; empty for a local file.
    pub etag: String,
}

impl Version {
    /// When it was last changed.
    pub fn modified(&self) -> std::time::SystemTime {
        let (secs, nanos) = self.mtime;
        std::time::UNIX_EPOCH
            + std::time::Duration::new(secs.max(0) as u64, nanos.clamp(0, 999_999_999) as u32)
    }
}

impl Blob {
    /// The bytes at `path`: a local file, or the remote object it names (an error names the
    /// object and why: missing, refused, unreachable).
    pub fn open(path: &Path) -> Result<Blob> {
        if let Some(window) = window::placed(path) {
            return Ok(Blob {
                what: Kind::Window(window),
            });
        }
        let what = match remote::Url::parse(path) {
            Some(url) => Kind::Remote(remote::Object::open(&url)?),
            None => Kind::Local {
                path: path.to_path_buf(),
                file: File::open(path)
                    .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?,
            },
        };
        Ok(Blob { what })
    }

    /// The local file at `path`, open as `file` (for writing too, when it was so opened).
    pub fn of_file(path: &Path, file: File) -> Blob {
        Blob {
            what: Kind::Local {
                path: path.to_path_buf(),
                file,
            },
        }
    }

    /// The open local file, when the bytes are one (to write to it).
    pub fn local_file(&self) -> Option<&File> {
        match &self.what {
            Kind::Local { file, .. } => Some(file),
            Kind::Remote(_) | Kind::Window(_) => None,
        }
    }

    /// The local file's path, when the bytes are a local file (which can be mapped).
    pub fn local_path(&self) -> Option<&Path> {
        match &self.what {
            Kind::Local { path, .. } => Some(path),
            Kind::Remote(_) | Kind::Window(_) => None,
        }
    }

    /// Its name, for messages (the path or URL).
    pub fn name(&self) -> String {
        match &self.what {
            Kind::Local { path, .. } => path.display().to_string(),
            Kind::Remote(o) => o.url().to_string(),
            Kind::Window(w) => w.name().to_owned(),
        }
    }

    /// Its version now: a local file is looked at again (it may grow); a remote object is as
    /// it was when opened (reads of a changed object fail rather than mix versions).
    pub fn version(&self) -> Result<Version> {
        match &self.what {
            Kind::Local { path, file } => {
                let meta = file
                    .metadata()
                    .map_err(|e| Error::io(format!("cannot look at {}", path.display()), e))?;
                Ok(Version {
                    len: meta.len(),
                    mtime: (meta.mtime(), meta.mtime_nsec()),
                    etag: String::new(),
                })
            }
            Kind::Remote(o) => Ok(Version {
                len: o.len(),
                mtime: o.modified(),
                etag: o.etag().to_owned(),
            }),
            Kind::Window(w) => Ok(w.version().clone()),
        }
    }

    /// Its length in bytes now.
    pub fn len(&self) -> Result<u64> {
        Ok(self.version()?.len)
    }

    /// True when it holds no bytes.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Read into `buf` from byte `offset`: the bytes read (fewer at its end).
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        match &self.what {
            Kind::Local { file, .. } => file.read_at(buf, offset),
            Kind::Remote(o) => o.read_at(buf, offset),
            Kind::Window(w) => w.read_at(buf, offset),
        }
    }

    /// Fill `buf` from byte `offset` (an `UnexpectedEof` error when it ends first).
    pub fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
        while !buf.is_empty() {
            match self.read_at(buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// All its bytes.
    pub fn read_all(&self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        Reader::to_end(self, 0)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(format!("cannot read {}", self.name()), e))?;
        Ok(bytes)
    }
}

/// Read into `buf` until it is full or the reader ends; the bytes read.
pub fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The whole of the file or object at `path`.
pub fn read_all(path: &Path) -> Result<Vec<u8>> {
    Blob::open(path)?.read_all()
}

/// A [`Blob`] read in order from an offset: a remote object's blocks ahead are fetched while
/// the ones before are read ([`Reader::new`]), or the object is streamed to its end
/// ([`Reader::to_end`]).
pub struct Reader<B> {
    blob: B,
    at: u64,
    /// Whether the reads go on to the end: a remote object is then streamed.
    to_end: bool,
    /// The remote object streamed from `at`.
    stream: Option<remote::Stream>,
}

impl<B: std::ops::Deref<Target = Blob>> Reader<B> {
    /// Reads of `blob` from byte `at` on (a few, or to the end).
    pub fn new(blob: B, at: u64) -> Reader<B> {
        Reader {
            blob,
            at,
            to_end: false,
            stream: None,
        }
    }

    /// Reads of `blob` from byte `at` to its end, a whole pass (an index build): a remote
    /// object is streamed rather than fetched and kept in blocks.
    pub fn to_end(blob: B, at: u64) -> Reader<B> {
        Reader {
            to_end: true,
            ..Reader::new(blob, at)
        }
    }
}

impl<B: std::ops::Deref<Target = Blob>> Read for Reader<B> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = match (&self.blob.what, &mut self.stream) {
            (_, Some(stream)) => stream.read(buf)?,
            (Kind::Remote(o), None) if self.to_end => {
                self.stream.insert(o.stream(self.at)).read(buf)?
            }
            _ => self.blob.read_at(buf, self.at)?,
        };
        self.at += n as u64;
        Ok(n)
    }
}

impl<B: std::ops::Deref<Target = Blob>> std::io::Seek for Reader<B> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let len = self.blob.len().map_err(std::io::Error::other)?;
        let at = match to {
            std::io::SeekFrom::Start(at) => Some(at),
            std::io::SeekFrom::End(d) => len.checked_add_signed(d),
            std::io::SeekFrom::Current(d) => self.at.checked_add_signed(d),
        };
        self.at = at.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        // A stream goes on from where it was.
        self.stream = None;
        Ok(self.at)
    }
}

/// A shared [`Blob`] read in order.
pub type SharedReader = Reader<Arc<Blob>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Seek;

    #[test]
    fn a_local_file_reads_at_offsets_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let blob = Blob::open(&path).unwrap();
        assert_eq!(blob.local_path(), Some(path.as_path()));
        assert_eq!(blob.len().unwrap(), 100_000);
        let mut buf = [0; 10];
        blob.read_exact_at(&mut buf, 99_990).unwrap();
        assert_eq!(buf, bytes[99_990..]);
        assert!(blob.read_exact_at(&mut buf, 99_995).is_err());
        assert_eq!(blob.read_all().unwrap(), bytes);
        let mut r = Reader::new(&blob, 0);
        r.seek(std::io::SeekFrom::End(-5)).unwrap();
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, bytes[99_995..]);
    }

    #[test]
    fn urls_name_remote_objects_and_paths_local_files() {
        for remote in [
            "s3://bucket/a.pgn",
            "https://host/x/a.pgn.zst",
            "http://h:9/a",
        ] {
            assert!(is_remote(Path::new(remote)), "{remote}");
        }
        for local in ["a.pgn", "/tmp/s3:/x", "./https/a.pgn"] {
            assert!(!is_remote(Path::new(local)), "{local}");
        }
    }
}
