//! A remote object read by ranges: an object in an S3-compatible bucket (`s3://BUCKET/KEY`)
//! or a file on a web server that answers range requests (`https://HOST/PATH`), through
//! Apache Arrow's `object_store` client (its signing, retries with backoff, timeouts).
//!
//! The object is read in blocks of [`BLOCK_BYTES`]: each fetched once, kept in memory (the
//! last few) and on local disk within a bound (`block_cache`); a read that goes on from the
//! block before has the blocks after it fetched ahead, in parallel, so reading in order
//! streams the object. A whole pass over the object (an index build) is read as a [`Stream`]
//! instead: long requests, received on the reading thread as they arrive, nothing kept.
//! Every fetch names the version (ETag) seen when the object was opened, so a changed object
//! fails its reads instead of mixing two versions. A read that fails after the retries fails
//! with an I/O error and a log line, and the next read tries again: a server back up serves
//! it.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use std::error::Error as _;

use bytes::Bytes;
use lru::LruCache;
use object_store::{
    BackoffConfig, ClientOptions, GetOptions, GetRange, ObjectStore, ObjectStoreExt, RetryConfig,
};

use super::block_cache::{BLOCKS_IN_MEMORY, DiskCache};
use super::settings::{self, RemoteSettings};
use crate::error::{Error, ErrorKind, Result};

/// Objects are fetched and kept in blocks of this many bytes.
pub const BLOCK_BYTES: u64 = 1 << 20;
/// How many blocks ahead a read in order has fetched.
const BLOCKS_AHEAD: u64 = 8;
/// The block the last read ended in, before the first read.
const NO_BLOCK: u64 = u64::MAX;

/// A remote object's address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Url {
    /// An object in an S3-compatible bucket.
    S3 {
        /// The bucket.
        bucket: String,
        /// The object's key.
        key: String,
    },
    /// A file on a web server (`http://` or `https://`).
    Http {
        /// The scheme, host and port (`https://host:8443`).
        origin: String,
        /// The path on the server, without its leading `/`.
        path: String,
    },
}

impl Url {
    /// The address `path` names, if it is a URL (`s3://`, `http://`, `https://`).
    pub fn parse(path: &Path) -> Option<Url> {
        let text = path.to_str()?;
        if let Some(rest) = text.strip_prefix("s3://") {
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            return (!bucket.is_empty()).then(|| Url::S3 {
                bucket: bucket.to_owned(),
                key: key.to_owned(),
            });
        }
        let scheme = ["http://", "https://"]
            .into_iter()
            .find(|s| text.starts_with(s))?;
        let rest = &text[scheme.len()..];
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        (!host.is_empty()).then(|| Url::Http {
            origin: format!("{scheme}{host}"),
            path: path.to_owned(),
        })
    }

    /// The key or path in its store.
    fn key(&self) -> &str {
        match self {
            Url::S3 { key, .. } => key,
            Url::Http { path, .. } => path,
        }
    }

    /// The same store's object at `key`.
    fn with_key(&self, key: String) -> Url {
        match self {
            Url::S3 { bucket, .. } => Url::S3 {
                bucket: bucket.clone(),
                key,
            },
            Url::Http { origin, .. } => Url::Http {
                origin: origin.clone(),
                path: key,
            },
        }
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Url::S3 { bucket, key } => write!(f, "s3://{bucket}/{key}"),
            Url::Http { origin, path } => write!(f, "{origin}/{path}"),
        }
    }
}

/// The runtime the client's requests run on (its own two threads; callers wait for them).
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("gamefs-remote")
            .enable_all()
            .build()
            .expect("a runtime for remote reads")
    })
}

/// The bucket or web origin of `url`, as its client's errors name it.
fn home_of(url: &Url) -> String {
    match url {
        Url::S3 { bucket, .. } => format!("s3://{bucket}"),
        Url::Http { origin, .. } => origin.clone(),
    }
}

/// The clients made, by bucket or web origin, with the settings they were made with.
type Clients = Mutex<Vec<(String, RemoteSettings, Arc<dyn ObjectStore>)>>;

/// The client of `url`'s bucket or server, made once per settings.
fn client(url: &Url) -> Result<Arc<dyn ObjectStore>> {
    static CLIENTS: OnceLock<Clients> = OnceLock::new();
    let settings = settings::current();
    let home = home_of(url);
    let clients = CLIENTS.get_or_init(Clients::default);
    let mut clients = clients.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, c)) = clients
        .iter()
        .find(|(h, s, _)| *h == home && *s == settings)
    {
        return Ok(c.clone());
    }
    let made = new_client(url, &settings, &home)?;
    clients.push((home, settings, made.clone()));
    Ok(made)
}

/// A new client of `url`'s bucket or server (`home`), with `settings`.
fn new_client(url: &Url, settings: &RemoteSettings, home: &str) -> Result<Arc<dyn ObjectStore>> {
    let retry = RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            base: 2.0,
        },
        max_retries: 6,
        retry_timeout: Duration::from_secs(settings.retry_secs),
    };
    let options = ClientOptions::new()
        .with_connect_timeout(Duration::from_secs(5))
        .with_timeout(Duration::from_secs(settings.retry_secs.max(5)))
        .with_allow_http(true);
    let failed = |e: object_store::Error| {
        Error::new(ErrorKind::InvalidInput, format!("cannot reach {home}: {e}"))
    };
    let made: Arc<dyn ObjectStore> = match url {
        Url::S3 { bucket, .. } => {
            let home_dir = std::env::var_os("HOME").map(std::path::PathBuf::from);
            let access =
                settings::s3_access(settings, &|k| std::env::var(k).ok(), home_dir.as_deref());
            let mut b = object_store::aws::AmazonS3Builder::new()
                .with_bucket_name(bucket)
                .with_region(&access.region)
                .with_retry(retry)
                .with_client_options(options);
            if let Some(endpoint) = &access.endpoint {
                b = b.with_endpoint(endpoint);
            }
            match (&access.key_id, &access.secret) {
                (Some(id), Some(secret)) => {
                    b = b.with_access_key_id(id).with_secret_access_key(secret);
                    if let Some(token) = &access.token {
                        b = b.with_token(token);
                    }
                }
                // A public bucket, read unsigned: never a walk of the instance metadata
                // service, which answers nowhere but in a cloud.
                _ => b = b.with_skip_signature(true),
            }
            Arc::new(b.build().map_err(failed)?)
        }
        Url::Http { origin, .. } => Arc::new(
            object_store::http::HttpBuilder::new()
                .with_url(origin)
                .with_retry(retry)
                .with_client_options(options)
                .build()
                .map_err(failed)?,
        ),
    };
    Ok(made)
}

/// The error of `what` on `url`, said for a person: a missing object, refused credentials,
/// an endpoint that does not answer.
fn failure(url: &Url, what: &str, e: object_store::Error) -> Error {
    match e {
        object_store::Error::NotFound { .. } => {
            Error::new(ErrorKind::NotFound, format!("no object {url}"))
        }
        object_store::Error::Unauthenticated { .. }
        | object_store::Error::PermissionDenied { .. } => Error::new(
            ErrorKind::PermissionDenied,
            format!(
                "{what} {url} was refused: check the credentials (AWS_ACCESS_KEY_ID and \
                     AWS_SECRET_ACCESS_KEY, or the profile of ~/.aws/credentials; docs/guide/remote.md): {e}"
            ),
        ),
        object_store::Error::Precondition { .. } => Error::io(
            format!("{what} {url}"),
            std::io::Error::other("the object changed since it was mounted: mount it again"),
        ),
        e => Error::io(
            format!("{what} {url}"),
            std::io::Error::other(e.to_string()),
        ),
    }
}

/// A block: its bytes, or why it could not be fetched; fetched once by the first read that
/// wants it (or ahead of reads), while the others that want it wait.
type Block = Arc<OnceLock<std::result::Result<Bytes, String>>>;

/// An object read by ranges.
pub struct Object {
    url: Url,
    store: Arc<dyn ObjectStore>,
    location: object_store::path::Path,
    len: u64,
    etag: String,
    /// When it was last changed (seconds, nanoseconds since 1970).
    modified: (i64, i64),
    /// The name of its blocks in the disk cache: its URL and version.
    cache_name: String,
    disk: Option<Arc<DiskCache>>,
    blocks: Mutex<LruCache<u64, Block>>,
    /// The block the last read ended in.
    last_block: AtomicU64,
}

/// The disk cache of the settings in force, opened once per folder and bound.
fn disk_cache(settings: &RemoteSettings) -> Option<Arc<DiskCache>> {
    static OPEN: Mutex<Vec<(std::path::PathBuf, u64, Arc<DiskCache>)>> = Mutex::new(Vec::new());
    let dir = settings::cache_folder(settings)?;
    let limit = settings.cache_mb << 20;
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, c)) = open.iter().find(|(d, l, _)| *d == dir && *l == limit) {
        return Some(c.clone());
    }
    let cache = Arc::new(DiskCache::open(&dir, limit));
    open.push((dir, limit, cache.clone()));
    Some(cache)
}

/// The objects open now, by URL: opening one again (the format's check, the index, the reads
/// and the times each open it) shares its version, its blocks in memory and one question to
/// its server.
static OPEN_OBJECTS: Mutex<Vec<(String, std::sync::Weak<Object>)>> = Mutex::new(Vec::new());

impl Object {
    /// The object at `url`: the one open now, else as it is now (its length and version asked
    /// of its server).
    pub fn open(url: &Url) -> Result<Arc<Object>> {
        let name = url.to_string();
        let mut open = OPEN_OBJECTS.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|(_, o)| o.strong_count() > 0);
        if let Some(object) = open
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, o)| o.upgrade())
        {
            return Ok(object);
        }
        let object = Object::head(url)?;
        open.push((name, Arc::downgrade(&object)));
        Ok(object)
    }

    /// The object at `url` as its server says it is now.
    fn head(url: &Url) -> Result<Arc<Object>> {
        let store = client(url)?;
        let location = object_store::path::Path::from(url.key());
        let meta = runtime()
            .block_on(store.head(&location))
            .map_err(|e| failure(url, "looking at", e))?;
        let etag = meta.e_tag.clone().unwrap_or_default();
        let cache_name = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (url.to_string(), &etag, meta.size).hash(&mut h);
            format!("{:016x}", h.finish())
        };
        Ok(Arc::new(Object {
            url: url.clone(),
            store,
            location,
            len: meta.size,
            etag,
            modified: (
                meta.last_modified.timestamp(),
                i64::from(meta.last_modified.timestamp_subsec_nanos()),
            ),
            cache_name,
            disk: disk_cache(&settings::current()),
            blocks: Mutex::new(LruCache::new(BLOCKS_IN_MEMORY)),
            last_block: AtomicU64::new(NO_BLOCK),
        }))
    }

    /// Its address.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// When it was last changed (seconds, nanoseconds since 1970).
    pub fn modified(&self) -> (i64, i64) {
        self.modified
    }

    /// Its version (ETag; empty when the server gives none).
    pub fn etag(&self) -> &str {
        &self.etag
    }

    /// Read into `buf` from byte `offset`: the bytes read, all of `buf` but at the end.
    pub fn read_at(self: &Arc<Self>, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let end = (offset + buf.len() as u64).min(self.len);
        let mut at = offset;
        while at < end {
            let k = at / BLOCK_BYTES;
            let block = self.block(k)?;
            let from = (at - k * BLOCK_BYTES) as usize;
            let n = (block.len() - from).min((end - at) as usize);
            if n == 0 {
                break;
            }
            buf[(at - offset) as usize..][..n].copy_from_slice(&block[from..from + n]);
            at += n as u64;
        }
        Ok((at - offset) as usize)
    }

    /// Block `k`'s bytes, fetching it (and, for a read going on in order, the blocks after
    /// it) when not held.
    fn block(self: &Arc<Self>, k: u64) -> std::io::Result<Bytes> {
        let last = self.last_block.swap(k, Ordering::Relaxed);
        // (The first read, where the object is sniffed, is not one in order.)
        if last != NO_BLOCK && (last == k || last + 1 == k) {
            for ahead in k + 1..=k + BLOCKS_AHEAD {
                if ahead * BLOCK_BYTES >= self.len {
                    break;
                }
                let (cell, new) = self.cell(ahead);
                if new {
                    let object = self.clone();
                    runtime().spawn_blocking(move || {
                        let got = cell.get_or_init(|| object.fetch(ahead));
                        if got.is_err() {
                            object.forget(ahead);
                        }
                    });
                }
            }
        }
        let (cell, _) = self.cell(k);
        match cell.get_or_init(|| self.fetch(k)) {
            Ok(bytes) => Ok(bytes.clone()),
            Err(why) => {
                self.forget(k);
                log::error!("reading {}: {why}", self.url);
                Err(std::io::Error::other(why.clone()))
            }
        }
    }

    /// The cell of block `k`, and whether it was made now.
    fn cell(&self, k: u64) -> (Block, bool) {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cell) = blocks.get(&k) {
            return (cell.clone(), false);
        }
        let cell = Block::default();
        blocks.put(k, cell.clone());
        (cell, true)
    }

    /// Drop block `k` (it failed: the next read fetches it again).
    fn forget(&self, k: u64) {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if blocks
            .peek(&k)
            .is_some_and(|c| matches!(c.get(), Some(Err(_))))
        {
            blocks.pop(&k);
        }
    }

    /// Block `k`, from the disk cache or the server.
    fn fetch(&self, k: u64) -> std::result::Result<Bytes, String> {
        let range = k * BLOCK_BYTES..((k + 1) * BLOCK_BYTES).min(self.len);
        if let Some(disk) = &self.disk
            && let Some(bytes) = disk.get(&self.cache_name, k)
            && bytes.len() as u64 == range.end - range.start
        {
            return Ok(Bytes::from(bytes));
        }
        let bytes = self.fetch_range(range.clone()).map_err(|e| {
            // Said without the object's name: the reader's error names it.
            let why = e.source().map_or_else(|| e.to_string(), |s| s.to_string());
            format!("{why} (bytes {}..{})", range.start, range.end)
        })?;
        if let Some(disk) = &self.disk {
            disk.put(&self.cache_name, k, &bytes);
        }
        Ok(bytes)
    }

    /// The bytes `range` from the server, of the version opened.
    fn fetch_range(&self, range: Range<u64>) -> Result<Bytes> {
        let reading = async {
            let got = self.get(range.clone()).await?;
            got.bytes().await
        };
        match runtime().block_on(reading) {
            Ok(bytes) if bytes.len() as u64 == range.end - range.start => Ok(bytes),
            Ok(bytes) => Err(self.short(bytes.len() as u64, &range)),
            Err(e) => Err(self.failed(e)),
        }
    }

    /// The request for the bytes `range` of the version opened: its answer, with the body
    /// to come (an object changed since fails as [`object_store::Error::Precondition`]).
    async fn get(&self, range: Range<u64>) -> object_store::Result<object_store::GetResult> {
        self.get_from(&self.store, range).await
    }

    /// [`Object::get`] through the client `store`.
    async fn get_from(
        &self,
        store: &Arc<dyn ObjectStore>,
        range: Range<u64>,
    ) -> object_store::Result<object_store::GetResult> {
        let options = GetOptions {
            range: Some(GetRange::Bounded(range)),
            if_match: match self.url {
                Url::S3 { .. } if !self.etag.is_empty() => Some(self.etag.clone()),
                _ => None,
            },
            ..GetOptions::default()
        };
        let got = store.get_opts(&self.location, options).await?;
        // A web server does not check the version asked: it is checked here.
        match &got.meta.e_tag {
            Some(e) if !self.etag.is_empty() && *e != self.etag => {
                Err(object_store::Error::Precondition {
                    path: self.location.to_string(),
                    source: "the ETag changed".into(),
                })
            }
            _ => Ok(got),
        }
    }

    /// The error of a read that failed.
    fn failed(&self, e: object_store::Error) -> Error {
        failure(&self.url, "reading", e)
    }

    /// The error of an answer to `range` that held only `got` bytes.
    fn short(&self, got: u64, range: &Range<u64>) -> Error {
        Error::io(
            format!("reading {}", self.url),
            std::io::Error::other(format!(
                "the server sent {got} bytes for a range of {}: does it answer range requests?",
                range.end - range.start
            )),
        )
    }

    /// The object read in order from byte `at` to its end, streamed ([`Stream`]).
    pub fn stream(self: &Arc<Self>, at: u64) -> Stream {
        Stream {
            object: self.clone(),
            at,
            body: None,
            asked: at..at,
            chunk: Bytes::new(),
            own: None,
        }
    }
}

/// A remote object read in order to its end, for a whole pass over it (an index build):
/// streamed in requests of 32 MiB, each copied once, as it arrives, into the
/// reader's buffer, instead of cut into blocks that are kept (a million games read as
/// blocks: 7 s of the kernel's time and 8 s in all from a web server on loopback, with the
/// blocks' memory given back and faulted in again; BENCHMARKS.md). A body that breaks off is
/// asked for again from where it stopped by the client (its retries with backoff), then
/// fails the read.
pub struct Stream {
    object: Arc<Object>,
    /// Where the next byte read is.
    at: u64,
    /// The body of the request going on, and the bytes it asked for.
    body: Option<futures_util::stream::BoxStream<'static, object_store::Result<Bytes>>>,
    asked: Range<u64>,
    /// The part of the body received and not yet read.
    chunk: Bytes,
    /// The stream's own connection, when it is a long one (after `body`: the
    /// body is dropped before the runtime it was received on).
    own: Option<OwnConnection>,
}

/// A runtime on the reading thread and a client of its own, for a long [`Stream`] (an index
/// build's pass over an object, a large file of a database read whole): the body
/// is received on the thread that reads it, instead of handed over from the shared
/// runtime's threads for every piece (1M games from a web server on loopback: 1.92 s
/// against 1.85 s for the first index, medians of 8 paired rounds; a third of the context
/// switches).
struct OwnConnection {
    runtime: tokio::runtime::Runtime,
    store: Arc<dyn ObjectStore>,
}

impl OwnConnection {
    /// A connection of its own to `url`'s bucket or server, with the settings in force.
    fn to(url: &Url) -> Result<OwnConnection> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::io(format!("reading {url}"), e))?;
        let settings = settings::current();
        let store = new_client(url, &settings, &home_of(url))?;
        Ok(OwnConnection { runtime, store })
    }
}

/// A [`Stream`] of more bytes than this has a connection of its own ([`OwnConnection`]);
/// a shorter one is not worth a new client's making.
const OWN_CONNECTION_BYTES: u64 = 16 * BLOCK_BYTES;

/// How many bytes a request of a [`Stream`] asks for: the client's timeout is for a whole
/// request, so one asks for what a slow link carries well within it (32 MiB in 20 s: 1.6 MB/s).
const STREAMED_BYTES: u64 = 32 << 20;

impl std::io::Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use futures_util::StreamExt;
        let len = self.object.len;
        if self.own.is_none() && len.saturating_sub(self.at) > OWN_CONNECTION_BYTES {
            self.own = Some(OwnConnection::to(&self.object.url).map_err(|e| self.io_error(e))?);
        }
        while self.chunk.is_empty() {
            if self.at >= len || buf.is_empty() {
                return Ok(0);
            }
            let body = match &mut self.body {
                Some(body) => body,
                None => {
                    let range = self.at..(self.at + STREAMED_BYTES).min(len);
                    let got = match &self.own {
                        Some(own) => own
                            .runtime
                            .block_on(self.object.get_from(&own.store, range.clone())),
                        None => runtime().block_on(self.object.get(range.clone())),
                    }
                    .map_err(|e| self.io_error(self.object.failed(e)))?;
                    self.asked = range;
                    self.body.insert(got.into_stream())
                }
            };
            let next = match &self.own {
                Some(own) => own.runtime.block_on(body.next()),
                None => runtime().block_on(body.next()),
            };
            match next {
                Some(Ok(bytes)) => self.chunk = bytes,
                Some(Err(e)) => {
                    self.body = None;
                    return Err(self.io_error(self.object.failed(e)));
                }
                None if self.at == self.asked.end => self.body = None,
                None => {
                    self.body = None;
                    let got = self.at - self.asked.start;
                    return Err(self.io_error(self.object.short(got, &self.asked)));
                }
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk.split_to(n));
        self.at += n as u64;
        Ok(n)
    }
}

impl Stream {
    /// `e` as the I/O error of this read, logged (with where it stopped).
    fn io_error(&self, e: Error) -> std::io::Error {
        log::error!("{e} (at byte {})", self.at);
        std::io::Error::other(e.to_string())
    }
}

/// Where the object shared beside `url` with `suffix` is: beside it, or under the settings'
/// index prefix (`s3://BUCKET/PREFIX/`) by the object's bucket and key.
fn beside(url: &Url, suffix: &str) -> Option<Url> {
    let settings = settings::current();
    match (&settings.index_prefix, url) {
        (Some(prefix), _) => {
            let Some(Url::S3 { bucket, key }) = Url::parse(Path::new(prefix)) else {
                return None;
            };
            let source = match url {
                Url::S3 { bucket, key } => format!("{bucket}/{key}"),
                Url::Http { origin, path } => format!(
                    "{}/{path}",
                    origin.split_once("://").map_or(origin.as_str(), |(_, h)| h)
                ),
            };
            let prefix = key.trim_end_matches('/');
            let key = if prefix.is_empty() {
                format!("{source}{suffix}")
            } else {
                format!("{prefix}/{source}{suffix}")
            };
            Some(Url::S3 { bucket, key })
        }
        (None, url) => Some(url.with_key(format!("{}{suffix}", url.key()))),
    }
}

/// The object shared beside the object at `path` with name `suffix` (an index kept for every
/// machine), when there is one; `None` too when it cannot be read (logged).
pub fn get_beside(path: &Path, suffix: &str) -> Option<Vec<u8>> {
    let url = beside(&Url::parse(path)?, suffix)?;
    let store = client(&url).ok()?;
    let location = object_store::path::Path::from(url.key());
    let got = runtime().block_on(async { store.get(&location).await?.bytes().await });
    match got {
        Ok(bytes) => Some(bytes.to_vec()),
        Err(object_store::Error::NotFound { .. }) => None,
        Err(e) => {
            log::warn!("cannot read {url}: {e}");
            None
        }
    }
}

/// Share `bytes` beside the object at `path` with name `suffix`, for every machine (an S3
/// object only: a web server is only read). A failure (a bucket the user may only read) is
/// logged with what to do.
pub fn put_beside(path: &Path, suffix: &str, bytes: Vec<u8>) {
    let Some(url) = Url::parse(path).and_then(|u| beside(&u, suffix)) else {
        return;
    };
    if !matches!(url, Url::S3 { .. }) {
        return;
    }
    let Ok(store) = client(&url) else {
        return;
    };
    let location = object_store::path::Path::from(url.key());
    match runtime().block_on(store.put(&location, bytes.into())) {
        Ok(_) => log::info!("shared the index for every machine as {url}"),
        Err(e) => log::warn!(
            "cannot share the index as {url} ({e}): each machine indexes the object itself; \
             `-o index_prefix=s3://BUCKET/PREFIX/` names a place you may write"
        ),
    }
}

/// The objects under the prefix `path` names (`s3://BUCKET/PREFIX/`), as URLs, by key.
pub fn list(path: &Path) -> Result<Vec<String>> {
    let Some(url @ Url::S3 { .. }) = Url::parse(path) else {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "{} cannot be listed: only s3:// prefixes can",
                path.display()
            ),
        ));
    };
    let store = client(&url)?;
    let prefix = object_store::path::Path::from(url.key());
    let listed = runtime()
        .block_on(store.list_with_delimiter(Some(&prefix)))
        .map_err(|e| failure(&url, "listing", e))?;
    let mut keys: Vec<String> = listed
        .objects
        .into_iter()
        .map(|o| url.with_key(o.location.to_string()).to_string())
        .collect();
    keys.sort();
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_into_bucket_and_key_or_origin_and_path() {
        let u = Url::parse(Path::new("s3://games/twic/twic1500.pgn.zst")).unwrap();
        assert_eq!(
            u,
            Url::S3 {
                bucket: "games".into(),
                key: "twic/twic1500.pgn.zst".into()
            }
        );
        assert_eq!(u.to_string(), "s3://games/twic/twic1500.pgn.zst");
        let u = Url::parse(Path::new("http://127.0.0.1:8080/db/a.pgn")).unwrap();
        assert_eq!(
            u,
            Url::Http {
                origin: "http://127.0.0.1:8080".into(),
                path: "db/a.pgn".into()
            }
        );
        assert_eq!(u.to_string(), "http://127.0.0.1:8080/db/a.pgn");
        assert_eq!(Url::parse(Path::new("s3:///x")), None);
        assert_eq!(Url::parse(Path::new("games/a.pgn")), None);
    }
}
