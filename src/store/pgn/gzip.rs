//! Reading a gzip file at random: decoder checkpoints, as ratarmount's indexed_gzip (zlib's
//! `zran`) keeps them.
//!
//! A gzip member is one DEFLATE stream: it cannot be entered in the middle, because what
//! follows refers back to the 32 KiB of text before it, at a position counted in bits. So
//! while the file is indexed, every [`CHECKPOINT_SPACING`] bytes of text (at the start of the
//! next DEFLATE block) a *checkpoint* keeps that bit offset and those 32 KiB (compressed), and
//! at the start of each member its byte offset; a read then decodes only from the checkpoint
//! before it. The index and the decoding are rapidgzip-core's (zlib-rs underneath); this
//! module reads a file through them as the PGN store needs it: the text handed on as it is
//! decoded, each checkpoint as a [`Member`] the rest of the store reads like any other, the
//! checkpoints kept as bytes.

use std::io::{Read, Seek, SeekFrom};
use std::num::NonZeroU64;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rapidgzip_core::{
    Decoder, DeflateIndex, IndexOptions, IndexedReader, ReadAt, StoredWindow, WindowStorage,
};

use super::source::Member;
use crate::store::blob::Blob;

/// How much text lies between two checkpoints inside a member: a read decodes at most this
/// much (and a DEFLATE block) before the text it wants, about 10 ms here. Each checkpoint
/// holds its 32 KiB window, so the checkpoints of a file take 0.8 % of its text, in memory
/// and in the kept index.
pub const CHECKPOINT_SPACING: u64 = 4 << 20;

/// How many chunks of decoded text (4 MiB each) the decoder may hold ahead of the parsing.
const DECODED_AHEAD: usize = 12;

/// The text is checksummed in blocks of this many bytes (CRC-32), so that a stretch read
/// from a checkpoint is checked: DEFLATE data that rots can decode to other text without an
/// error (`zcat` of such a file prints wrong bytes and only its member's CRC says so, at the
/// member's end). A block is the size of a checkpoint's window, which holds the part of the
/// block before the checkpoint. 4 bytes each: 0.012 % of the text.
const CHECKED_BLOCK: u64 = 32 << 10;

/// Where decoding a gzip file can start: each member's start, and inside members a point
/// every [`CHECKPOINT_SPACING`] bytes of text, with the bit offset and the 32 KiB of text
/// before it that decoding from there needs; and the checksums of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoints(Arc<Kept>);

/// What [`Checkpoints`] hold.
#[derive(Debug, PartialEq, Eq)]
struct Kept {
    /// rapidgzip's index: the checkpoints and their windows.
    index: DeflateIndex,
    /// The CRC-32 of each [`CHECKED_BLOCK`] of the text (the last one may be shorter).
    sums: Vec<u32>,
    /// How long the text is.
    text_len: u64,
}

impl Checkpoints {
    /// The checkpoints as members: where each starts in the file (the byte holding its first
    /// bit) and in the text.
    pub fn members(&self) -> Vec<Member> {
        self.0
            .index
            .checkpoints()
            .iter()
            .map(|c| Member {
                packed: c.compressed_offset_in_bits / 8,
                text: c.uncompressed_offset_in_bytes,
            })
            .collect()
    }

    /// The checkpoints as bytes, to keep with the index: the text's length and checksums,
    /// then rapidgzip's index in its own format (versioned).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(12 + 4 * self.0.sums.len());
        bytes.extend_from_slice(&self.0.text_len.to_le_bytes());
        bytes.extend_from_slice(&(self.0.sums.len() as u32).to_le_bytes());
        for sum in &self.0.sums {
            bytes.extend_from_slice(&sum.to_le_bytes());
        }
        self.0
            .index
            .write_native(&mut bytes)
            .expect("an index built by decoding writes");
        bytes
    }

    /// The checkpoints kept as `bytes`; `None` when they do not read back.
    pub fn from_bytes(bytes: &[u8]) -> Option<Checkpoints> {
        let (text_len, rest) = bytes.split_first_chunk::<8>()?;
        let (count, rest) = rest.split_first_chunk::<4>()?;
        let count = u32::from_le_bytes(*count) as usize;
        let (sums, mut rest) = rest.split_at_checked(count.checked_mul(4)?)?;
        let sums = sums
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let index = DeflateIndex::read_native(&mut rest).ok()?;
        Some(Checkpoints(Arc::new(Kept {
            index,
            sums,
            text_len: u64::from_le_bytes(*text_len),
        })))
    }

    /// The `len` bytes of text from checkpoint `k` of the gzip file open as `file`: decoded from
    /// there, with that checkpoint's window, and nothing before it; checked against the
    /// text's checksums (decoding goes on to the end of the block the text ends in). An
    /// `InvalidData` error when they do not match, or the text ends first.
    pub fn read(&self, file: &Arc<Blob>, k: usize, len: u64) -> std::io::Result<Vec<u8>> {
        let invalid = |e: &dyn std::fmt::Display| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
        };
        let kept = &*self.0;
        let checkpoint = *kept.index.checkpoints().get(k).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("no checkpoint {}", k + 1),
            )
        })?;
        // An index of that one checkpoint: the reader checks every window of the index it is
        // given, and the file's other windows are not needed.
        let window = kept
            .index
            .windows()
            .get(checkpoint.compressed_offset_in_bits)
            .cloned()
            .unwrap_or_else(StoredWindow::empty);
        let before = window.decompressed().map_err(|e| invalid(&e))?.into_owned();
        let mut one = DeflateIndex::new();
        one.set_kind(kept.index.kind());
        one.push(checkpoint, window).map_err(|e| invalid(&e))?;
        let mut reader = IndexedReader::new(Shared(file.clone()), one).map_err(|e| invalid(&e))?;
        let start = checkpoint.uncompressed_offset_in_bytes;
        reader.seek(SeekFrom::Start(start))?;
        let end = (start + len).min(kept.text_len);
        let checked_end = end.next_multiple_of(CHECKED_BLOCK).min(kept.text_len);
        let mut text = Vec::with_capacity((checked_end - start) as usize);
        reader.take(checked_end - start).read_to_end(&mut text)?;
        if (text.len() as u64) < checked_end - start {
            return Err(invalid(&format_args!(
                "the text ends at byte {} of {}",
                start + text.len() as u64,
                kept.text_len
            )));
        }
        kept.check(start, &before, &text)?;
        text.truncate((end - start) as usize);
        Ok(text)
    }
}

impl Kept {
    /// Check `text`, the text from byte `start` to the end of a checked block (or of the
    /// text), against the checksums; `before` is the text before `start` that is at hand (a
    /// checkpoint's window), which completes the block `start` is in (a member's start has
    /// none: there the block's part from `start` is not checked).
    fn check(&self, start: u64, before: &[u8], text: &[u8]) -> std::io::Result<()> {
        let mut block = start / CHECKED_BLOCK;
        let into = (start % CHECKED_BLOCK) as usize;
        let mut at = 0;
        if into > 0 {
            let first = text.len().min(CHECKED_BLOCK as usize - into);
            if before.len() >= into {
                let mut sum = crc32fast::Hasher::new();
                sum.update(&before[before.len() - into..]);
                sum.update(&text[..first]);
                self.compare(block, sum.finalize())?;
            }
            at = first;
            block += 1;
        }
        for chunk in text[at..].chunks(CHECKED_BLOCK as usize) {
            self.compare(block, crc32fast::hash(chunk))?;
            block += 1;
        }
        Ok(())
    }

    /// Whether checked block `block` sums to `sum`.
    fn compare(&self, block: u64, sum: u32) -> std::io::Result<()> {
        match self.sums.get(block as usize) {
            Some(&kept) if kept == sum => Ok(()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the text at bytes {}..{} is not the text indexed (its checksum differs)",
                    block * CHECKED_BLOCK,
                    ((block + 1) * CHECKED_BLOCK).min(self.text_len)
                ),
            )),
        }
    }
}

/// The CRC-32 of each [`CHECKED_BLOCK`] of a text handed on in pieces.
#[derive(Default)]
struct Sums {
    sums: Vec<u32>,
    block: crc32fast::Hasher,
    in_block: u64,
}

impl Sums {
    fn add(&mut self, mut piece: &[u8]) {
        while !piece.is_empty() {
            let n = piece.len().min((CHECKED_BLOCK - self.in_block) as usize);
            self.block.update(&piece[..n]);
            self.in_block += n as u64;
            piece = &piece[n..];
            if self.in_block == CHECKED_BLOCK {
                self.sums.push(std::mem::take(&mut self.block).finalize());
                self.in_block = 0;
            }
        }
    }

    /// The sums, the last block's (shorter) too.
    fn finish(mut self) -> Vec<u32> {
        if self.in_block > 0 {
            self.sums.push(self.block.finalize());
        }
        self.sums
    }
}

/// A gzip file or object, as rapidgzip reads it.
struct Shared(Arc<Blob>);

impl ReadAt for Shared {
    fn len(&self) -> std::io::Result<u64> {
        self.0.len().map_err(std::io::Error::other)
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.0.read_at(buffer, offset)
    }
}

/// The gzip file at `path`, as rapidgzip reads it: its length as it was when opened (the
/// decoder wants it not to change), and how far into it reading has gone.
struct Watched {
    file: Blob,
    len: u64,
    furthest: Arc<AtomicU64>,
}

impl ReadAt for Watched {
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.len)
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> std::io::Result<usize> {
        let want = buffer.len().min(self.len.saturating_sub(offset) as usize);
        let n = self.file.read_at(&mut buffer[..want], offset)?;
        self.furthest
            .fetch_max(offset + n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Decode the whole gzip file at `path` (all its members), handing its text on in pieces to `sink` (as [`super::source::decode_from`] does) and how
/// far into the file decoding is to `progress`; its checkpoints, one every `spacing` bytes
/// of text inside a member. An `Err` says why it stopped: the checksum or the data of a
/// member does not decode, or `sink` failed.
pub(super) fn decode_with_checkpoints(
    path: &Path,
    spacing: u64,
    sink: &mut dyn FnMut(&mut Vec<u8>) -> crate::error::Result<()>,
    progress: &dyn Fn(u64),
) -> std::result::Result<Checkpoints, DecodeFailure> {
    let file = Blob::open(path).map_err(|e| DecodeFailure::Read(std::io::Error::other(e)))?;
    let len = file
        .len()
        .map_err(|e| DecodeFailure::Read(std::io::Error::other(e)))?;
    let furthest = Arc::new(AtomicU64::new(0));
    let source = Watched {
        file,
        len,
        furthest: furthest.clone(),
    };
    // On one thread: decoding in order offers a checkpoint at every DEFLATE block's end (the
    // parallel decoder only where its chunks meet), and the other core parses the text. One
    // thread of zlib-rs decodes the 1M-game file of the benchmark in 3.2 s, 3.9 s keeping
    // checkpoints (miniz_oxide, flate2's default: 6.5 s); two threads are no faster here.
    // Up to DECODED_AHEAD chunks of 4 MiB of text are decoded ahead of the parsing, which
    // takes some blocks more slowly than others (3 chunks: 5.8 s for that file's index; 12:
    // 4.8–5.0 s).
    let decoder = Decoder::builder()
        .decoder_threads(1)
        .decoded_chunk_size(chunk_size(len))
        .input_page_size(page_size(len))
        .in_flight_chunks(DECODED_AHEAD)
        .build()
        .map_err(|e| DecodeFailure::Read(std::io::Error::other(e.to_string())))?;
    let options = IndexOptions {
        checkpoint_spacing: NonZeroU64::new(spacing.max(1)).expect("at least 1"),
        // Kept as they are: compressing them took 8 % of the decoding thread's time (the
        // index of that file: 4.4–4.6 s instead of 4.9–5.0 s).
        window_storage: WindowStorage::Raw,
    };
    let mut reader = decoder
        .reader_with_index(source, options)
        .map_err(|e| DecodeFailure::Read(std::io::Error::other(e.to_string())))?;
    let mut piece = Vec::new();
    let (mut sums, mut text_len) = (Sums::default(), 0);
    loop {
        piece.resize(super::source::PIECE_BYTES, 0);
        let n = super::source::read_full(&mut reader, &mut piece).map_err(DecodeFailure::Read)?;
        if n == 0 {
            break;
        }
        piece.truncate(n);
        sums.add(&piece);
        text_len += n as u64;
        sink(&mut piece).map_err(DecodeFailure::Sink)?;
        progress(furthest.load(Ordering::Relaxed));
    }
    let report = reader
        .finish()
        .map_err(|e| DecodeFailure::Read(std::io::Error::other(e.to_string())))?;
    progress(len);
    Ok(Checkpoints(Arc::new(Kept {
        index: report.index,
        sums: sums.finish(),
        text_len,
    })))
}

/// The size of the chunks of text decoded from a gzip file of `len` bytes: 4 MiB, or for a
/// small file (a TWIC issue, 300 KB of text in a zip) about its text's size, at least 256 KiB:
/// the decoder's buffers of 4 MiB each, filled anew for each of a hundred small files, were
/// 90,000 page faults of a folder of zips' first mount (its system time doubled).
fn chunk_size(len: u64) -> usize {
    let text = len.saturating_mul(4).next_power_of_two();
    text.clamp(256 << 10, 4 << 20) as usize
}

/// The size of the pages a gzip file of `len` bytes is read in: 1 MiB, or the file's size
/// for a smaller one (at least 64 KiB), each page being a buffer zeroed first.
fn page_size(len: u64) -> usize {
    len.next_power_of_two().clamp(64 << 10, 1 << 20) as usize
}

/// Why [`decode_with_checkpoints`] stopped.
#[derive(Debug)]
pub(super) enum DecodeFailure {
    /// The file does not read or decode.
    Read(std::io::Error),
    /// The sink failed.
    Sink(crate::error::Error),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Numbered lines of text, `n` of them, that compress little (checkpoints are offered
    /// every MiB or so of the compressed file).
    fn text(n: u64) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        (0..n)
            .flat_map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("line {i}: {x:016x}\n").into_bytes()
            })
            .collect()
    }

    /// `parts` gzipped as one member each, at gzip's default level (level 1 of zlib-rs, as of
    /// zlib-ng, writes few and long DEFLATE blocks, so a checkpoint every few MiB).
    fn gzip(parts: &[&[u8]]) -> Vec<u8> {
        parts
            .iter()
            .flat_map(|part| {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(part).unwrap();
                e.finish().unwrap()
            })
            .collect()
    }

    fn decoded(path: &Path, spacing: u64) -> (Vec<u8>, Checkpoints) {
        let mut text = Vec::new();
        let checkpoints = decode_with_checkpoints(
            path,
            spacing,
            &mut |piece| {
                text.extend_from_slice(piece);
                Ok(())
            },
            &|_| {},
        )
        .unwrap();
        (text, checkpoints)
    }

    /// The text from checkpoint `k` to the next (or the end), read through its decoder.
    fn read_from(c: &Checkpoints, path: &Path, k: usize, text_len: u64) -> Vec<u8> {
        let members = c.members();
        let end = members.get(k + 1).map_or(text_len, |m| m.text);
        c.read(
            &Arc::new(Blob::open(path).unwrap()),
            k,
            end - members[k].text,
        )
        .unwrap()
    }

    #[test]
    fn every_stretch_between_checkpoints_reads_back_from_its_own_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let text = text(400_000);
        let (a, b) = text.split_at(text.len() / 3);
        let path = dir.path().join("two-members.gz");
        std::fs::write(&path, gzip(&[a, b])).unwrap();
        let (decoded, checkpoints) = decoded(&path, 64 << 10);
        assert!(decoded == text);
        let members = checkpoints.members();
        // Both members' starts, and points inside them.
        assert!(members.len() >= 5, "{members:?}");
        assert!(members.iter().any(|m| m.text == a.len() as u64));
        assert_eq!(members[0].text, 0);
        let kept = Checkpoints::from_bytes(&checkpoints.to_bytes()).unwrap();
        assert_eq!(kept, checkpoints);
        for k in (0..members.len()).rev() {
            let start = members[k].text as usize;
            let end = members.get(k + 1).map_or(text.len(), |m| m.text as usize);
            assert!(
                read_from(&kept, &path, k, text.len() as u64) == text[start..end],
                "from checkpoint {k}"
            );
        }
    }

    /// A read starts at its checkpoint: the file's bytes before that checkpoint are not
    /// decoded (garbage there fails only the text before it), and the text read is checked:
    /// garbage that decodes without a DEFLATE error is found by the checksums.
    #[test]
    fn damage_fails_only_the_stretch_it_is_in_and_is_found_by_the_checksums() {
        let dir = tempfile::tempdir().unwrap();
        let text = text(400_000);
        let path = dir.path().join("one-member.gz");
        let whole = gzip(&[&text]);
        std::fs::write(&path, &whole).unwrap();
        let (_, checkpoints) = decoded(&path, 64 << 10);
        let members = checkpoints.members();
        assert!(members.len() >= 5, "{members:?}");
        let len = text.len() as u64;
        for damaged in [0, 2] {
            let mut bytes = whole.clone();
            let middle = ((members[damaged].packed + members[damaged + 1].packed) / 2) as usize;
            for b in &mut bytes[middle..middle + 256] {
                *b ^= 0x5A;
            }
            std::fs::write(&path, bytes).unwrap();
            for k in 0..members.len() {
                let start = members[k].text as usize;
                let end = members.get(k + 1).map_or(text.len(), |m| m.text as usize);
                let read = checkpoints.read(
                    &Arc::new(Blob::open(&path).unwrap()),
                    k,
                    (end - start) as u64,
                );
                if k == damaged {
                    let Err(e) = read else {
                        panic!("stretch {k} read whole, though damaged");
                    };
                    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
                } else {
                    assert!(
                        read.unwrap() == text[start..end],
                        "stretch {k}, damage in {damaged}"
                    );
                }
            }
            // Reads that start or end inside a checked block.
            let k = damaged + 1;
            let from = members[k].text;
            assert!(
                checkpoints
                    .read(&Arc::new(Blob::open(&path).unwrap()), k, 1000)
                    .unwrap()
                    == text[from as usize..][..1000]
            );
            assert!(
                read_from(&checkpoints, &path, members.len() - 1, len)
                    .ends_with(&text[text.len() - 10..])
            );
        }
    }

    /// The checksums hold the text's: a block that differs is named.
    #[test]
    fn the_checksums_find_a_changed_byte_in_any_block() {
        let text = text(10_000);
        let mut sums = Sums::default();
        for piece in text.chunks(7777) {
            sums.add(piece);
        }
        let kept = Kept {
            index: DeflateIndex::new(),
            sums: sums.finish(),
            text_len: text.len() as u64,
        };
        assert_eq!(
            kept.sums.len() as u64,
            (text.len() as u64).div_ceil(CHECKED_BLOCK)
        );
        let block = CHECKED_BLOCK as usize;
        for start in [0, 100, block, block + 5, text.len() - 3] {
            let before = &text[start.saturating_sub(block)..start];
            kept.check(start as u64, before, &text[start..]).unwrap();
            for changed in [start, text.len() - 1] {
                let mut other = text[start..].to_vec();
                other[changed - start] ^= 1;
                let e = kept.check(start as u64, before, &other).unwrap_err();
                assert!(e.to_string().contains("checksum differs"), "{e}");
            }
        }
    }

    #[test]
    fn a_damaged_file_stops_decoding_with_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let text = text(50_000);
        let path = dir.path().join("damaged.gz");
        let mut bytes = gzip(&[&text]);
        let middle = bytes.len() / 2;
        for b in &mut bytes[middle..middle + 64] {
            *b ^= 0x5A;
        }
        std::fs::write(&path, bytes).unwrap();
        let failed = decode_with_checkpoints(&path, 1 << 20, &mut |_| Ok(()), &|_| {});
        assert!(matches!(failed, Err(DecodeFailure::Read(_))), "{failed:?}");
    }
}
