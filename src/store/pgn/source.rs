//! The text of a PGN file, plain or compressed, read from any offset.
//!
//! A compressed file is a sequence of *members* that decode on their own: the frames of a
//! `.zst` (pzstd, as lichess uses, writes many); in a `.gz`, the checkpoints of [`gzip`] (each
//! member's start, and inside members a point every few MiB of text); in a `.bz2`, its blocks
//! ([`bz2_blocks`]). The index keeps where each member starts, in the file and in the text
//! ([`Member`]), so a game is read by decoding only the member(s) holding it: a member of at
//! most [`CACHED_MEMBER_BYTES`] is decoded whole and kept among the last few read (reads
//! going on to the next member have the one after it decoded ahead, on a thread of its own);
//! a bigger one (a `.zst` compressed as one frame) is decoded from its start, and a decoder
//! left where the last read stopped serves the next read further on, so reading the games in
//! file order decodes the file once. Indexing decodes a zstd file of many frames, or a bzip2
//! file's blocks, on every core.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::num::NonZeroUsize;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use lru::LruCache;

use super::bz2_blocks::{self, Blocks};
use super::gzip::{self, Checkpoints};
use super::xz_blocks;
use crate::error::{Error, Result};
use crate::store::blob::{self, Blob, Reader, SharedReader};
use crate::store::location::Location;
use crate::text::input::Text;

/// A member decoded whole is kept for the next reads when it is at most this big.
pub const CACHED_MEMBER_BYTES: u64 = 64 << 20;
/// How many members decoded whole are kept.
const CACHED_MEMBERS: usize = 4;
/// Reads going on in file order have this much text after theirs decoded ahead, or two
/// members (one pzstd frame or gzip stretch; two bzip2 blocks).
const READ_AHEAD_BYTES: u64 = 1 << 20;
/// The size of the pieces text is decoded in.
pub(super) const PIECE_BYTES: usize = 256 << 10;

/// How a PGN file is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Codec {
    /// Plain text.
    #[default]
    Plain,
    /// Zstandard (`.zst`).
    Zstd,
    /// gzip (`.gz`).
    Gzip,
    /// bzip2 (`.bz2`).
    Bzip2,
    /// xz (`.xz`).
    Xz,
}

impl Codec {
    /// Every codec, in the order of their numbers in a kept index.
    pub const ALL: [Codec; 5] = [
        Codec::Plain,
        Codec::Zstd,
        Codec::Gzip,
        Codec::Bzip2,
        Codec::Xz,
    ];

    /// The codec of a file starting with `head`, by its magic bytes.
    pub fn sniff(head: &[u8]) -> Codec {
        match head {
            [0x28, 0xB5, 0x2F, 0xFD, ..] => Codec::Zstd,
            // A skippable frame (pzstd starts each frame with one).
            [b, 0x2A, 0x4D, 0x18, ..] if b & 0xF0 == 0x50 => Codec::Zstd,
            [0x1F, 0x8B, ..] => Codec::Gzip,
            [b'B', b'Z', b'h', ..] => Codec::Bzip2,
            [0xFD, b'7', b'z', b'X', b'Z', 0, ..] => Codec::Xz,
            _ => Codec::Plain,
        }
    }

    /// Its name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Plain => "plain",
            Codec::Zstd => "zstd",
            Codec::Gzip => "gzip",
            Codec::Bzip2 => "bzip2",
            Codec::Xz => "xz",
        }
    }

    /// A decoder of one member read from `r`, which must stand at the member's start; it
    /// takes from `r` exactly the member's bytes.
    fn member<'a, R: BufRead + Send + 'a>(
        self,
        r: R,
    ) -> std::io::Result<Box<dyn Read + Send + 'a>> {
        Ok(match self {
            Codec::Plain => Box::new(r),
            Codec::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(r)?.single_frame()),
            Codec::Gzip => Box::new(flate2::bufread::GzDecoder::new(r)),
            Codec::Bzip2 => Box::new(bzip2::bufread::BzDecoder::new(r)),
            Codec::Xz => Box::new(liblzma::bufread::XzDecoder::new(r)),
        })
    }
}

/// The codec of the regular file at `path`, by its first bytes (plain for anything else: a
/// pipe, a device).
pub fn codec_of(path: &Path) -> std::io::Result<Codec> {
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Ok(Codec::Plain);
    }
    let mut head = [0; 4];
    let n = read_full(&mut &file, &mut head)?;
    Ok(Codec::sniff(&head[..n]))
}

/// Where a member starts: in the file (`packed`) and in the text (`text`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Member {
    /// Byte offset in the (compressed) file.
    pub packed: u64,
    /// Byte offset in the text.
    pub text: u64,
}

/// Where decoding can start inside a compressed file, kept with its index where the starts of
/// its members alone do not say; each is one of its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPoints {
    /// A gzip file's checkpoints (each member's start, and points inside members).
    Gzip(Checkpoints),
    /// A bzip2 file's blocks.
    Bzip2(Blocks),
    /// An xz file's blocks.
    Xz(xz_blocks::Blocks),
}

impl StartPoints {
    /// As bytes, to keep with the index.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            StartPoints::Gzip(c) => c.to_bytes(),
            StartPoints::Bzip2(b) => b.to_bytes(),
            StartPoints::Xz(b) => b.to_bytes(),
        }
    }

    /// The start points of a file stored as `codec`, kept as `bytes`; `None` when they do
    /// not read back.
    pub fn from_bytes(codec: Codec, bytes: &[u8]) -> Option<StartPoints> {
        match codec {
            Codec::Gzip => Checkpoints::from_bytes(bytes).map(StartPoints::Gzip),
            Codec::Bzip2 => Blocks::from_bytes(bytes).map(StartPoints::Bzip2),
            Codec::Xz => xz_blocks::Blocks::from_bytes(bytes).map(StartPoints::Xz),
            Codec::Plain | Codec::Zstd => None,
        }
    }

    /// The `len` bytes of text of member `k` of the file open as `file`, decoded from its
    /// start point and checked (a gzip stretch against the text's checksums, a bzip2 block
    /// against its CRC).
    fn read(&self, file: &Arc<Blob>, k: usize, len: u64) -> std::io::Result<Vec<u8>> {
        match self {
            StartPoints::Gzip(c) => c.read(file, k, len),
            StartPoints::Bzip2(b) => b.read(file, k),
            StartPoints::Xz(b) => b.read(file, k),
        }
    }
}

/// A [`BufRead`] that counts the bytes taken from it (where it stands in its file), readable
/// while a decoder holds it.
struct Counted<R> {
    inner: R,
    taken: Arc<AtomicU64>,
}

impl<R> Counted<R> {
    /// Where it stands in its file.
    fn taken(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.taken.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

pub(super) use crate::store::blob::read_full;

/// The records of `size` bytes kept as `bytes` (a file's blocks, with its index), each read
/// back by `read`; `None` when `bytes` are no whole number of records or one does not read.
pub(super) fn kept_records<T>(
    bytes: &[u8],
    size: usize,
    read: impl Fn(&[u8]) -> Option<T>,
) -> Option<Vec<T>> {
    if !bytes.len().is_multiple_of(size) {
        return None;
    }
    bytes.chunks_exact(size).map(read).collect()
}

/// The error of reading block `k` (0-based) of a file that has fewer.
pub(super) fn no_block(k: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("no block {}", k + 1),
    )
}

/// A member that does not decode, but whose end is known, so decoding goes on after it (a
/// zstd frame: its header and block headers say where it ends).
#[derive(Debug)]
pub struct Lost {
    /// Where it starts in the file.
    pub packed: u64,
    /// The text it gave before the error: from its start in the text to where it stopped.
    pub text: (u64, u64),
    /// Why it does not decode.
    pub error: Error,
}

/// Decode `file` (stored as `codec`) from member `from` to its end, handing the text on in
/// pieces to `sink` (which may take the piece, or leave it to be filled again: a buffer used
/// again costs no fresh pages, which a piece a time did, a third of the indexing's time), the
/// start of each member that holds text to `member` (before its text), each member that does
/// not decode but can be skipped to `lost` (whose error stops decoding), and how far into the
/// file decoding is to `progress`. An error names the file and where.
///
/// A zstd file of several frames (pzstd's, lichess's) is decoded on `threads` threads, each
/// decoding whole frames found from their headers; the text, members and losses handed on
/// are the same as when one thread decodes it.
///
/// Given `start_points`, a gzip file is decoded whole (`from` is its start) keeping where
/// decoding can start again inside its members ([`Checkpoints`]), and a bzip2 file is decoded
/// from its blocks, found by their magics, on `threads` threads ([`Blocks`]): `member` is told
/// each checkpoint or block, and `start_points` all of them at the end.
#[allow(clippy::too_many_arguments)]
pub fn decode_from(
    location: &Location,
    codec: Codec,
    from: Member,
    threads: usize,
    sink: &mut dyn FnMut(&mut Vec<u8>) -> Result<()>,
    member: &mut dyn FnMut(Member),
    lost: &mut dyn FnMut(Lost) -> Result<()>,
    progress: &dyn Fn(u64),
    start_points: Option<&mut dyn FnMut(StartPoints)>,
) -> Result<()> {
    let path = location.path();
    if let Some(keep) = start_points {
        debug_assert_eq!(from, Member::default(), "decoded from the file's start");
        match codec {
            Codec::Gzip => {
                let decoded =
                    gzip::decode_with_checkpoints(path, gzip::CHECKPOINT_SPACING, sink, progress)
                        .map_err(|e| match e {
                        gzip::DecodeFailure::Read(e) => {
                            Error::io(format!("decoding {} (gzip)", blob::described(path)), e)
                        }
                        gzip::DecodeFailure::Sink(e) => e,
                    })?;
                decoded.members().into_iter().for_each(member);
                keep(StartPoints::Gzip(decoded));
                return Ok(());
            }
            Codec::Bzip2 => {
                if let Some(local) = local_file(location)
                    && let Ok(packed @ Text::Mapped(_)) = Text::of_file(local)
                    && let Some(decoded) =
                        bz2_blocks::decode_blocks(path, &packed, threads, sink, member, progress)
                {
                    keep(StartPoints::Bzip2(decoded?));
                    return Ok(());
                }
            }
            Codec::Xz => {
                if let Some(decoded) =
                    xz_blocks::decode_with_blocks(path, CACHED_MEMBER_BYTES, sink, progress)
                {
                    let decoded = decoded?;
                    decoded.members().into_iter().for_each(member);
                    keep(StartPoints::Xz(decoded));
                    return Ok(());
                }
            }
            Codec::Plain | Codec::Zstd => {}
        }
    }
    if codec == Codec::Zstd
        && threads > 1
        && let Some(local) = local_file(location)
        && let Ok(packed @ Text::Mapped(_)) = Text::of_file(local)
        && let Some(frames) = zstd_frames(&packed, from.packed)
        && frames.ranges.len() > 1
    {
        let ends = Sinks {
            sink,
            member,
            lost,
            progress,
        };
        return decode_frames(path, &packed, &frames, from.text, threads, ends);
    }
    let failed = |at: u64, e| decode_error(path, codec, at, e);
    let blob = Arc::new(Blob::open(path)?);
    let mut input = input_at(&blob, from.packed);
    let mut text_at = from.text;
    let mut piece = Vec::new();
    loop {
        let start = input.taken();
        let taken = input.taken.clone();
        if input.fill_buf().map_err(|e| failed(start, e))?.is_empty() {
            return Ok(());
        }
        let member_text = text_at;
        let mut told = false;
        let mut skip_to = None;
        let mut decoder = codec.member(&mut input).map_err(|e| failed(start, e))?;
        loop {
            piece.resize(PIECE_BYTES, 0);
            let n = match read_full(&mut decoder, &mut piece) {
                Ok(n) => n,
                Err(e) => {
                    let error = failed(start, e);
                    let Some(end) = frame_end(location, codec, start) else {
                        return Err(error);
                    };
                    lost(Lost {
                        packed: start,
                        text: (member_text, text_at),
                        error,
                    })?;
                    skip_to = Some(end);
                    break;
                }
            };
            if n == 0 {
                break;
            }
            if !told && codec != Codec::Plain {
                // An empty member (a zstd skippable frame) is not one: reading starts at the
                // next member with text.
                member(Member {
                    packed: start,
                    text: text_at,
                });
                told = true;
            }
            piece.truncate(n);
            text_at += n as u64;
            sink(&mut piece)?;
            progress(taken.load(Ordering::Relaxed));
        }
        drop(decoder);
        if let Some(end) = skip_to {
            input = input_at(&blob, end);
        }
        progress(input.taken());
        if codec == Codec::Plain {
            return Ok(());
        }
    }
}

/// The error of decoding `path` (stored as `codec`) at byte `at`.
fn decode_error(path: &Path, codec: Codec, at: u64, e: std::io::Error) -> Error {
    Error::io(
        format!(
            "decoding {} ({}) at byte {at}",
            blob::described(path),
            codec.name()
        ),
        e,
    )
}

/// Where [`decode_from`] hands on what it decodes.
struct Sinks<'a> {
    sink: &'a mut dyn FnMut(&mut Vec<u8>) -> Result<()>,
    member: &'a mut dyn FnMut(Member),
    lost: &'a mut dyn FnMut(Lost) -> Result<()>,
    progress: &'a dyn Fn(u64),
}

/// The zstd frames of a file that may hold text (skippable frames left out: they hold none),
/// as their headers say.
struct Frames {
    /// Where each frame is in the file.
    ranges: Vec<Range<u64>>,
    /// Whether every frame's text is at most [`WHOLE_FRAME_BYTES`] (its block headers say how
    /// much it can be at most), so that each can be decoded whole, in one call.
    small: bool,
}

/// The zstd frames that may hold text in `packed` from byte `from` to its end, without
/// decoding them; `None` when one does not read (damage, or bytes after the last frame that
/// are none), and the file is decoded frame after frame, which says where. The pages read are
/// let go as it goes.
fn zstd_frames(packed: &Text<'_>, from: u64) -> Option<Frames> {
    let mut at = usize::try_from(from).ok()?;
    let mut frames = Frames {
        ranges: Vec::new(),
        small: true,
    };
    while at < packed.len() {
        let rest = &packed[at..];
        let size = zstd::zstd_safe::find_frame_compressed_size(rest).ok()?;
        if size == 0 {
            return None;
        }
        let magic = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        if magic & 0xFFFF_FFF0 != 0x184D_2A50 {
            frames.ranges.push(at as u64..(at + size) as u64);
            frames.small &= zstd::zstd_safe::decompress_bound(&rest[..size])
                .is_ok_and(|most| most <= WHOLE_FRAME_BYTES as u64);
        }
        packed.let_go(at..at + size);
        at += size;
    }
    Some(frames)
}

/// What a frame's decoding thread hands on: a piece of its text, or its end, with the error
/// that stopped it if one did; or its whole text, decoded in one call.
enum Decoded {
    Piece(Vec<u8>),
    End(Option<std::io::Error>),
    Whole(Vec<u8>),
}

/// How many pieces of a frame's text a decoding thread may have ready (8 MiB: a frame of
/// pzstd's at its default size), so that it decodes its next frame while the one before is
/// taken, and memory stays bounded however big a frame is.
const PIECES_AHEAD: usize = 32;

/// A file whose frames' texts are each at most this big, as their block headers bound them,
/// is decoded a frame in one call into one buffer, not a piece at a time through a stream.
/// That copies no text out of the decoder's window (4.6 % of the samples of a profile of
/// indexing a million pzstd games): that index took 2–4 % less CPU time, in alternating runs.
/// A decoding thread then holds at most two frames (the one it decodes, the one it hands
/// on). A pzstd frame at the default level holds 8 MiB of text (as many pieces as a thread
/// holds ahead otherwise), in 64 blocks and the empty one that ends it: its headers bound it
/// to that and one block more.
const WHOLE_FRAME_BYTES: usize = PIECES_AHEAD * PIECE_BYTES + ZSTD_BLOCK_BYTES;

/// The most text a zstd block holds.
const ZSTD_BLOCK_BYTES: usize = 128 << 10;

/// Decode the zstd `frames` of the file mapped as `packed` (at `path`), the first starting
/// at text offset `text_at`, on `threads` threads: frame k on thread k mod `threads`, its
/// text taken in frame order, so `ends` is told exactly what decoding frame after frame
/// tells it. A frame that does not decode is lost (its end is known) as there. A frame's
/// pages are let go once it is decoded: the process keeps no more of the file resident.
fn decode_frames(
    path: &Path,
    packed: &Text<'_>,
    frames: &Frames,
    mut text_at: u64,
    threads: usize,
    ends: Sinks<'_>,
) -> Result<()> {
    let threads = threads.clamp(1, frames.ranges.len());
    let whole = frames.small;
    #[cfg(test)]
    let whole = whole
        && !tests::STREAMED
            .lock()
            .unwrap()
            .contains(&path.to_path_buf());
    #[cfg(test)]
    tests::DECODED_APART
        .lock()
        .unwrap()
        .push((path.to_path_buf(), threads, whole));
    // Texts taken come back to be filled again.
    let spare = Mutex::new(Vec::<Vec<u8>>::new());
    let take_spare = || {
        let mut text = spare
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        text.clear();
        text
    };
    // A thread decoding whole frames hands each on as it is taken (it holds at most two).
    let ahead = if whole { 0 } else { PIECES_AHEAD };
    std::thread::scope(|s| {
        let mut receivers = Vec::with_capacity(threads);
        for t in 0..threads {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Decoded>(ahead);
            receivers.push(rx);
            let take_spare = &take_spare;
            s.spawn(move || {
                let mut whole = whole.then(zstd::zstd_safe::DCtx::create);
                for frame in frames.ranges.iter().skip(t).step_by(threads) {
                    let bytes = frame.start as usize..frame.end as usize;
                    if let Some(dctx) = &mut whole {
                        let mut text = take_spare();
                        text.reserve(WHOLE_FRAME_BYTES);
                        // One that does not decode is decoded again as a stream, which hands
                        // on the text before the damage, and says where it is.
                        if dctx.decompress(&mut text, &packed[bytes.clone()]).is_ok() {
                            packed.let_go(bytes);
                            // The receiver is gone when decoding stopped: stop too.
                            if tx.send(Decoded::Whole(text)).is_err() {
                                return;
                            }
                            continue;
                        }
                    }
                    // The rest of the file, as the decoder of frame after frame reads it.
                    let mut decoder = match Codec::Zstd.member(&packed[bytes.start..]) {
                        Ok(d) => d,
                        Err(e) => {
                            if tx.send(Decoded::End(Some(e))).is_err() {
                                return;
                            }
                            continue;
                        }
                    };
                    let end = loop {
                        let mut piece = take_spare();
                        piece.resize(PIECE_BYTES, 0);
                        match read_full(&mut decoder, &mut piece) {
                            Ok(0) => break None,
                            Ok(n) => {
                                piece.truncate(n);
                                if tx.send(Decoded::Piece(piece)).is_err() {
                                    return;
                                }
                            }
                            Err(e) => break Some(e),
                        }
                    };
                    drop(decoder);
                    packed.let_go(bytes);
                    if tx.send(Decoded::End(end)).is_err() {
                        return;
                    }
                }
            });
        }
        let Sinks {
            sink,
            member,
            lost,
            progress,
        } = ends;
        for (k, frame) in frames.ranges.iter().enumerate() {
            let member_text = text_at;
            let mut told = false;
            let mut take = |mut text: Vec<u8>| -> Result<()> {
                if !told {
                    member(Member {
                        packed: frame.start,
                        text: text_at,
                    });
                    told = true;
                }
                text_at += text.len() as u64;
                sink(&mut text)?;
                if text.capacity() > 0 {
                    spare.lock().unwrap_or_else(|e| e.into_inner()).push(text);
                }
                progress(frame.start);
                Ok(())
            };
            let end = loop {
                let decoded = receivers[k % threads].recv().map_err(|_| {
                    decode_error(
                        path,
                        Codec::Zstd,
                        frame.start,
                        std::io::Error::other("its decoding thread stopped"),
                    )
                })?;
                match decoded {
                    Decoded::Piece(piece) => take(piece)?,
                    Decoded::Whole(text) => {
                        // A frame of no text (as a stream gives no piece) is no member.
                        if !text.is_empty() {
                            take(text)?;
                        }
                        break None;
                    }
                    Decoded::End(end) => break end,
                }
            };
            if let Some(e) = end {
                lost(Lost {
                    packed: frame.start,
                    text: (member_text, text_at),
                    error: decode_error(path, Codec::Zstd, frame.start, e),
                })?;
            }
            progress(frame.end);
        }
        progress(packed.len() as u64);
        Ok(())
    })
}

/// The file or object `blob`, read from byte `at` to its end.
fn input_at(blob: &Arc<Blob>, at: u64) -> Counted<BufReader<SharedReader>> {
    Counted {
        inner: BufReader::with_capacity(1 << 20, Reader::to_end(blob.clone(), at)),
        taken: Arc::new(AtomicU64::new(at)),
    }
}

/// The path of `location` when it is a local file (which can be mapped), not a remote object
/// nor an archive's member (read in order instead).
fn local_file(location: &Location) -> Option<&Path> {
    location.is_local().then(|| location.path())
}

/// Where the zstd frame starting at byte `start` of the file at `location` ends, as its frame
/// and block headers say (whether its blocks decode or not); `None` for other codecs or when
/// the headers cannot be read.
fn frame_end(location: &Location, codec: Codec, start: u64) -> Option<u64> {
    if codec != Codec::Zstd {
        return None;
    }
    let packed = Text::of_file(local_file(location)?).ok()?;
    let frame = packed.get(usize::try_from(start).ok()?..)?;
    let size = zstd::zstd_safe::find_frame_compressed_size(frame).ok()?;
    (size > 0).then_some(start + size as u64)
}

/// A decoder of the member of `blob` (stored as `codec`) that starts at byte `packed`.
fn member_decoder(
    blob: &Arc<Blob>,
    codec: Codec,
    packed: u64,
) -> std::io::Result<Box<dyn Read + Send>> {
    codec.member(BufReader::with_capacity(
        256 << 10,
        Reader::new(blob.clone(), packed),
    ))
}

/// Where a [`Source`]'s members are decoded from: the file (its path for the decoders that
/// read on their own, and open for positioned reads), how it is stored, and its start points
/// (each one a member) when it has them.
struct Packed {
    path: PathBuf,
    file: Arc<Blob>,
    codec: Codec,
    start_points: Option<StartPoints>,
}

impl Packed {
    /// The whole text of member `m`, starting at `member`, which held `len` bytes when it was
    /// indexed: decoded to its end, so that its checksum is checked. `Err` says why it does
    /// not decode.
    fn decode_whole(
        &self,
        m: usize,
        member: Member,
        len: u64,
    ) -> std::result::Result<Arc<Vec<u8>>, String> {
        #[cfg(test)]
        tests::DECODED_WHOLE
            .lock()
            .unwrap()
            .push((self.path.clone(), member.text));
        let text = match &self.start_points {
            Some(points) => points.read(&self.file, m, len),
            None => member_decoder(&self.file, self.codec, member.packed).and_then(|mut d| {
                let mut text = Vec::with_capacity(len as usize);
                d.read_to_end(&mut text).map(|_| text)
            }),
        }
        .map_err(|e| e.to_string())?;
        if text.len() as u64 != len {
            return Err(format!(
                "it holds {} bytes of text, not {len} as when it was indexed",
                text.len()
            ));
        }
        Ok(Arc::new(text))
    }
}

/// A decoder standing somewhere inside a member, kept for the next read further on.
struct Cursor {
    /// The member it decodes.
    member: usize,
    /// The text offset of the next byte it gives.
    at: u64,
    decoder: Box<dyn Read + Send>,
}

/// A member's text decoded whole, once: by the first read that wants it, or by a thread
/// decoding it ahead, while the other reads that want it wait; or why it does not decode.
type WholeMember = Arc<OnceLock<std::result::Result<Arc<Vec<u8>>, String>>>;

/// Random reads of a PGN file's text.
pub struct Source {
    packed: Arc<Packed>,
    /// The members (none for a plain file), by text offset.
    members: Vec<Member>,
    /// The length of the text.
    text_len: u64,
    /// Members decoded whole (or being decoded), by number.
    cache: Mutex<LruCache<usize, WholeMember>>,
    /// The member of the last read of a member decoded whole: a read that goes on to the next
    /// member (reading in file order) has the member after it decoded ahead.
    last_member: AtomicUsize,
    /// The decoder of a big member where the last read left it.
    cursor: Mutex<Option<Cursor>>,
    /// Members of at most this many bytes are decoded whole and cached.
    cached_member_bytes: u64,
}

impl Source {
    /// Reads of `path` (stored as `codec`, with `members`, holding `text_len` bytes of text;
    /// with `start_points`, its members are those).
    pub fn open(
        path: &Path,
        codec: Codec,
        members: Vec<Member>,
        start_points: Option<StartPoints>,
        text_len: u64,
    ) -> Result<Source> {
        let file = Blob::open(path)?;
        Ok(Source {
            packed: Arc::new(Packed {
                path: path.to_path_buf(),
                file: Arc::new(file),
                codec,
                start_points,
            }),
            members,
            text_len,
            cache: Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHED_MEMBERS).expect("not zero"),
            )),
            cursor: Mutex::new(None),
            last_member: AtomicUsize::new(usize::MAX),
            cached_member_bytes: CACHED_MEMBER_BYTES,
        })
    }

    /// The text bytes `start..end`.
    pub fn read(&self, start: u64, end: u64) -> Result<Vec<u8>> {
        let end = end.min(self.text_len);
        let mut out = Vec::with_capacity(end.saturating_sub(start) as usize);
        if self.packed.codec == Codec::Plain {
            out.resize(end.saturating_sub(start) as usize, 0);
            self.packed
                .file
                .read_exact_at(&mut out, start)
                .map_err(|e| Error::io(format!("reading {}", self.packed.path.display()), e))?;
            return Ok(out);
        }
        let mut at = start;
        while at < end {
            let m = self
                .members
                .partition_point(|m| m.text <= at)
                .saturating_sub(1);
            let upto = end.min(self.member_end(m));
            self.read_in_member(m, at, upto, &mut out)?;
            at = upto;
        }
        Ok(out)
    }

    /// Append the text `at..upto`, all inside member `m`, to `out`.
    fn read_in_member(&self, m: usize, at: u64, upto: u64, out: &mut Vec<u8>) -> Result<()> {
        let member = self.members[m];
        if self.decoded_whole(m) {
            let text = self.whole_member(m)?;
            out.extend_from_slice(
                &text[(at - member.text) as usize..(upto - member.text) as usize],
            );
            return Ok(());
        }
        let mut cursor = self.cursor.lock().unwrap_or_else(|e| e.into_inner());
        let reusable = matches!(&*cursor, Some(c) if c.member == m && c.at <= at);
        if !reusable {
            *cursor = Some(Cursor {
                member: m,
                at: member.text,
                decoder: self.decoder(m)?,
            });
        }
        let c = cursor.as_mut().expect("set above");
        let failed = |e| self.damaged(m, e);
        let skip = at - c.at;
        let skipped =
            std::io::copy(&mut (&mut c.decoder).take(skip), &mut std::io::sink()).map_err(failed);
        let had = out.len();
        out.resize(had + (upto - at) as usize, 0);
        let read = skipped.and_then(|_| {
            c.decoder
                .read_exact(&mut out[had..])
                .map_err(|e| self.damaged(m, e))
        });
        if let Err(e) = read {
            out.truncate(had);
            *cursor = None;
            return Err(e);
        }
        c.at = upto;
        Ok(())
    }

    /// The whole text of member `m`, from the cache, decoded now, or waited for while a
    /// thread decodes it ahead. Why it does not decode is kept in the cache as its text would
    /// be: the games after the first one read there fail at once, not each after decoding it
    /// again (the 2,979 games of a damaged stretch of a gzip file took 10 ms each to fail
    /// so); once it leaves the cache, a read decodes it again.
    fn whole_member(&self, m: usize) -> Result<Arc<Vec<u8>>> {
        let whole = self.cached(m);
        self.read_ahead_after(m);
        let decoded = whole.get_or_init(|| {
            self.packed
                .decode_whole(m, self.members[m], self.member_len(m))
        });
        match decoded {
            Ok(text) => Ok(text.clone()),
            Err(why) => Err(self.damaged(m, std::io::Error::other(why.clone()))),
        }
    }

    /// The cache's entry of member `m`, made now if it has none.
    fn cached(&self, m: usize) -> WholeMember {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.get_or_insert(m, WholeMember::default).clone()
    }

    /// When a read goes on forward from a member to `m`, the next one or the one after (as
    /// `cat games/*` or a `grep -r` in file order does: a folder's games skip the members
    /// holding none of them, and `lbzip2` writes a tiny block after each big one), start
    /// decoding the members after `m`, [`READ_AHEAD_BYTES`] of text or two members, each on a
    /// thread of its own, so that they are ready when the reads get there: the reads then wait on
    /// the round trips of their requests, not on decoding as well. Reads at random decode
    /// nothing ahead.
    fn read_ahead_after(&self, m: usize) {
        let last = self.last_member.swap(m, Ordering::Relaxed);
        // (`last` is usize::MAX before the first read: reading member 0 first goes forward.)
        if !(1..=2).contains(&m.wrapping_sub(last)) {
            return;
        }
        let mut ahead = 0;
        // Two at most: the cache keeps them with the one read and the one before.
        for next in (m + 1..self.members.len()).take(CACHED_MEMBERS - 2) {
            if ahead >= READ_AHEAD_BYTES || !self.decoded_whole(next) {
                return;
            }
            let len = self.member_len(next);
            ahead += len;
            let whole = self.cached(next);
            if whole.get().is_some() {
                continue;
            }
            let (packed, member) = (self.packed.clone(), self.members[next]);
            let spawned = std::thread::Builder::new()
                .name("gamefs-read-ahead".into())
                .spawn(move || {
                    whole.get_or_init(|| packed.decode_whole(next, member, len));
                });
            if let Err(e) = spawned {
                log::debug!("no thread to decode member {} ahead: {e}", next + 1);
            }
        }
    }

    /// Where the text of member `m` ends: where the next one's starts, or the text's end.
    fn member_end(&self, m: usize) -> u64 {
        self.members.get(m + 1).map_or(self.text_len, |n| n.text)
    }

    /// Whether member `m` is decoded whole (and cached) when read: when it is small, or from
    /// a start point (a stretch from a gzip checkpoint to the next is a few MiB, a DEFLATE
    /// block more at most; a bzip2 block at most 900 kB).
    fn decoded_whole(&self, m: usize) -> bool {
        self.member_len(m) <= self.cached_member_bytes || self.packed.start_points.is_some()
    }

    /// How many bytes of text member `m` holds.
    fn member_len(&self, m: usize) -> u64 {
        self.member_end(m) - self.members[m].text
    }

    /// A decoder at the start of member `m`.
    fn decoder(&self, m: usize) -> Result<Box<dyn Read + Send>> {
        member_decoder(&self.packed.file, self.packed.codec, self.members[m].packed)
            .map_err(|e| self.damaged(m, e))
    }

    /// The error of a member that does not decode (EIO): only the games in it fail.
    fn damaged(&self, m: usize, e: std::io::Error) -> Error {
        let member = self.members[m];
        let what = match self.packed.start_points {
            Some(StartPoints::Gzip(_)) => "checkpoint",
            Some(StartPoints::Bzip2(_) | StartPoints::Xz(_)) => "block",
            None => "member",
        };
        Error::corrupt_record(format!(
            "{} {what} {} (at byte {} of {}) does not decode: {e}",
            self.packed.codec.name(),
            m + 1,
            member.packed,
            self.packed.path.display()
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// The files whose frames were decoded on several threads, on how many, and whether
    /// each frame whole.
    pub(crate) static DECODED_APART: Mutex<Vec<(PathBuf, usize, bool)>> = Mutex::new(Vec::new());

    /// The members decoded whole, each as its file and where its text starts.
    pub(super) static DECODED_WHOLE: Mutex<Vec<(PathBuf, u64)>> = Mutex::new(Vec::new());

    /// The files whose frames are decoded as streams, however small they are.
    pub(super) static STREAMED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

    /// From now on, decode the frames of the file at `path` as streams, however small they
    /// are (as those of a file of frames bigger than [`WHOLE_FRAME_BYTES`] are).
    pub(crate) fn decode_as_streams(path: &Path) {
        STREAMED.lock().unwrap().push(path.to_path_buf());
    }

    /// How many zstd frames holding text the file at `path` has, found without decoding them.
    pub(crate) fn zstd_frame_count(path: &Path) -> Option<usize> {
        zstd_frames(&Text::of_file(path).ok()?, 0).map(|f| f.ranges.len())
    }

    /// Lines of text, numbered.
    fn text() -> Vec<u8> {
        (0..40_000)
            .flat_map(|i| format!("line {i} of the text\n").into_bytes())
            .collect()
    }

    /// `part` compressed as one member of `codec`.
    fn member(codec: Codec, part: &[u8]) -> Vec<u8> {
        match codec {
            Codec::Plain => part.to_vec(),
            Codec::Zstd => {
                // With the checksum the zstd and pzstd commands write by default.
                let mut e = zstd::Encoder::new(Vec::new(), 3).unwrap();
                e.include_checksum(true).unwrap();
                e.write_all(part).unwrap();
                e.finish().unwrap()
            }
            Codec::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(part).unwrap();
                e.finish().unwrap()
            }
            Codec::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(part).unwrap();
                e.finish().unwrap()
            }
            Codec::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
                e.write_all(part).unwrap();
                e.finish().unwrap()
            }
        }
    }

    /// `text` as a file of `codec` in `parts` members, and the members decoding found (a gzip
    /// file's checkpoints, with them).
    fn file(
        dir: &Path,
        codec: Codec,
        text: &[u8],
        parts: usize,
    ) -> (PathBuf, Vec<Member>, Option<StartPoints>) {
        let path = dir.join(format!("{}-{parts}", codec.name()));
        let bytes: Vec<u8> = text
            .chunks(text.len().div_ceil(parts))
            .flat_map(|part| member(codec, part))
            .collect();
        std::fs::write(&path, bytes).unwrap();
        let (mut decoded, mut members, mut kept) = (Vec::new(), Vec::new(), None);
        decode_from(
            &Location::Local(path.clone()),
            codec,
            Member::default(),
            2,
            &mut |piece| {
                decoded.extend_from_slice(piece);
                Ok(())
            },
            &mut |m| members.push(m),
            &mut |lost| Err(lost.error),
            &|_| {},
            Some(&mut |c| kept = Some(c)),
        )
        .unwrap();
        assert!(decoded == text, "{}: decoded", codec.name());
        assert_eq!(
            kept.is_some(),
            matches!(codec, Codec::Gzip | Codec::Bzip2),
            "{}",
            codec.name()
        );
        (path, members, kept)
    }

    /// Ranges read in file order, backwards and across members.
    const RANGES: [(u64, u64); 6] = [
        (0, 10),
        (5000, 90_000),
        (90_000, 400_000),
        (300_000, 300_001),
        (10, 800_000),
        (799_990, 900_000),
    ];

    #[test]
    fn any_range_reads_the_same_from_every_codec_whole_members_or_big_ones() {
        let dir = tempfile::tempdir().unwrap();
        let text = text();
        for codec in Codec::ALL {
            for parts in [1, 3, 7] {
                let (path, members, checkpoints) = file(dir.path(), codec, &text, parts);
                // A bzip2 member's blocks are members (the fast level's are 100 kB).
                let expected = match codec {
                    Codec::Plain => 0,
                    Codec::Bzip2 => members.len().max(parts),
                    _ => parts,
                };
                assert_eq!(members.len(), expected, "{} {parts}", codec.name());
                for big in [false, true] {
                    let mut source = Source::open(
                        &path,
                        codec,
                        members.clone(),
                        checkpoints.clone(),
                        text.len() as u64,
                    )
                    .unwrap();
                    if big {
                        source.cached_member_bytes = 0;
                    }
                    for (start, end) in RANGES {
                        let end = end.min(text.len() as u64);
                        assert!(
                            source.read(start, end).unwrap() == text[start as usize..end as usize],
                            "{} in {parts} members, {start}..{end}, decoded {}",
                            codec.name(),
                            if big { "on" } else { "whole" }
                        );
                    }
                }
            }
        }
    }

    /// Reading in file order has the member after the next one decoded ahead, once: the reads
    /// there wait for it rather than decode it again. Reads at random decode nothing ahead.
    #[test]
    fn reading_in_file_order_decodes_the_next_member_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let text = text();
        let (path, members, _) = file(dir.path(), Codec::Zstd, &text, 8);
        let source =
            Source::open(&path, Codec::Zstd, members.clone(), None, text.len() as u64).unwrap();
        let decoded = |k: usize| {
            DECODED_WHOLE
                .lock()
                .unwrap()
                .iter()
                .filter(|(p, at)| *p == path && *at == members[k].text)
                .count()
        };
        let cached = |k: usize| source.cache.lock().unwrap().peek(&k).is_some();
        let read_in = |k: usize| {
            let at = members[k].text + 10;
            assert!(source.read(at, at + 100).unwrap() == text[at as usize..at as usize + 100]);
        };
        // The first member, then into the second: the third is decoded ahead.
        read_in(0);
        assert!(
            cached(1),
            "the first read is in file order from the file's start"
        );
        let ready = |k: usize| {
            let waited = std::time::Instant::now();
            while source
                .cache
                .lock()
                .unwrap()
                .peek(&k)
                .unwrap()
                .get()
                .is_none()
            {
                assert!(
                    waited.elapsed().as_secs() < 60,
                    "member {} decoded ahead",
                    k + 1
                );
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        };
        read_in(1);
        assert!(cached(2));
        ready(2);
        read_in(2);
        assert_eq!(decoded(2), 1, "member 3 decoded once, ahead");
        ready(3);
        // A read elsewhere, then one before it: nothing decoded ahead of either.
        read_in(5);
        read_in(4);
        assert!(!cached(6), "no member 7 decoded ahead");
        for k in [0, 1, 3, 4, 5] {
            assert_eq!(decoded(k), 1, "member {}", k + 1);
        }
        assert_eq!(decoded(6) + decoded(7), 0);
        // Forward over a member (a folder's games in file order skip some): member 7 then 8
        // decoded ahead of a read in 6 after one in 4.
        read_in(6);
        ready(7);
        assert_eq!(decoded(7), 1);
    }

    #[test]
    fn decoding_tells_how_far_it_is_as_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let text = text();
        for codec in [Codec::Plain, Codec::Zstd] {
            let (path, _, _) = file(dir.path(), codec, &text, 1);
            let told = std::sync::Mutex::new(Vec::new());
            decode_from(
                &Location::Local(path.clone()),
                codec,
                Member::default(),
                2,
                &mut |_| Ok(()),
                &mut |_| {},
                &mut |lost| Err(lost.error),
                &|done| told.lock().unwrap().push(done),
                None,
            )
            .unwrap();
            let told = told.into_inner().unwrap();
            let size = std::fs::metadata(&path).unwrap().len();
            // Several times within one member, never backwards, the whole file at the end.
            assert!(told.len() > 2, "{}: {told:?}", codec.name());
            assert!(told.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(told.last(), Some(&size));
        }
    }

    #[test]
    fn a_damaged_member_fails_only_the_reads_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let text = text();
        for codec in [Codec::Zstd, Codec::Gzip, Codec::Bzip2] {
            let (path, members, checkpoints) = file(dir.path(), codec, &text, 3);
            // Garbage in the middle of the second member.
            let mut bytes = std::fs::read(&path).unwrap();
            let middle = ((members[1].packed + members[2].packed) / 2) as usize;
            for b in &mut bytes[middle..middle + 64] {
                *b ^= 0x5A;
            }
            std::fs::write(&path, bytes).unwrap();
            let source = Source::open(
                &path,
                codec,
                members.clone(),
                checkpoints,
                text.len() as u64,
            )
            .unwrap();
            let (second, third) = (members[1].text, members[2].text);
            let e = source.read(second + 10, second + 20).unwrap_err();
            assert_eq!(
                e.kind(),
                crate::error::ErrorKind::CorruptRecord,
                "{}: {e}",
                codec.name()
            );
            // A gzip member's start is a checkpoint; a bzip2 member's a block.
            assert!(
                ["member", "checkpoint", "block"]
                    .iter()
                    .any(|what| e.to_string().contains(&format!("{what} "))),
                "{e}"
            );
            assert!(source.read(second - 10, second + 1).is_err());
            assert_eq!(
                source.read(0, second).unwrap(),
                &text[..second as usize],
                "{}",
                codec.name()
            );
            assert_eq!(
                source.read(third, text.len() as u64).unwrap(),
                &text[third as usize..],
                "{}",
                codec.name()
            );
        }
    }
}
