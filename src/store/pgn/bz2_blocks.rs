//! Reading a bzip2 file at random, and decoding it on every core: its blocks.
//!
//! A bzip2 stream is a header (`BZh` and a level digit), blocks that each decode on their own
//! (at most 900 kB of text at level 9), and an end marker with the stream's CRC. A block
//! starts at any bit, with a 48-bit magic (π's digits), and nothing else says where: so the
//! blocks are found by looking for the magics (as lbzip2 and ratarmount's indexed_bzip2 do),
//! and a block is decoded by writing it out as a stream of its own — the header, the block's
//! bits moved to a byte boundary, the end marker, and the block's CRC as the stream's — for
//! the `bzip2` crate, which checks that CRC. The compressed data may hold a magic by chance
//! (once in 2^48 bits): it splits a block into two parts that do not decode, and the two are
//! decoded as one.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;

use super::source::{Member, kept_records, no_block};
use crate::error::{Error, Result};
use crate::store::blob::Blob;
use crate::text::input::Text;

/// The magic a block starts with.
const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
/// The magic a stream's end marker starts with (its CRC follows).
const END_MAGIC: u64 = 0x1772_4538_5090;
/// The low 48 bits.
const MAGIC_BITS: u64 = (1 << 48) - 1;

/// A block of a bzip2 file: its bits (from its magic to the next magic) and its stream's
/// level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    start: u64,
    end: u64,
    level: u8,
}

/// The blocks of a bzip2 file, each of which decodes on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks(Arc<Vec<Block>>);

/// How many bytes [`Blocks::to_bytes`] writes a block in.
const BLOCK_RECORD: usize = 17;

impl Blocks {
    /// The blocks as bytes, to keep with the index.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.0.len() * BLOCK_RECORD);
        for b in self.0.iter() {
            bytes.extend_from_slice(&b.start.to_le_bytes());
            bytes.extend_from_slice(&b.end.to_le_bytes());
            bytes.push(b.level);
        }
        bytes
    }

    /// The blocks kept as `bytes`; `None` when they do not read back.
    pub fn from_bytes(bytes: &[u8]) -> Option<Blocks> {
        let blocks = kept_records(bytes, BLOCK_RECORD, |r| {
            let block = Block {
                start: u64::from_le_bytes(r[..8].try_into().ok()?),
                end: u64::from_le_bytes(r[8..16].try_into().ok()?),
                level: r[16],
            };
            (block.start < block.end && (1..=9).contains(&block.level)).then_some(block)
        })?;
        Some(Blocks(Arc::new(blocks)))
    }

    /// The text of block `k` of the bzip2 file open as `file` (its CRC checked).
    pub fn read(&self, file: &Blob, k: usize) -> std::io::Result<Vec<u8>> {
        let block = *self.0.get(k).ok_or_else(|| no_block(k))?;
        let first = block.start / 8;
        let mut packed = vec![0; (block.end.div_ceil(8) - first) as usize];
        file.read_exact_at(&mut packed, first)?;
        decode(
            &packed,
            Block {
                start: block.start - first * 8,
                end: block.end - first * 8,
                level: block.level,
            },
        )
    }
}

/// The 48 bits of `packed` from bit `at`, if there are as many.
fn bits48(packed: &[u8], at: u64) -> Option<u64> {
    let byte = usize::try_from(at / 8).ok()?;
    let mut window = 0u64;
    for i in 0..7 {
        window = window << 8 | u64::from(*packed.get(byte + i).unwrap_or(&0));
    }
    if (packed.len() as u64) * 8 < at + 48 {
        return None;
    }
    Some(window >> (8 - at % 8) & MAGIC_BITS)
}

/// The first block or end magic in `packed` at bit `from` or after: where, and whether it
/// ends a stream.
fn next_magic(packed: &[u8], from: u64) -> Option<(u64, bool)> {
    let first = (from / 8) as usize;
    let mut window = 0u64;
    for (i, &byte) in packed.iter().enumerate().skip(first) {
        window = window << 8 | u64::from(byte);
        // The magics that end in this byte: at bit (i + 1) * 8 - 48 - shift.
        let end = (i as u64 + 1) * 8;
        if end < 48 {
            continue;
        }
        for shift in (0..8).rev() {
            let at = end - 48 - shift;
            if at < from {
                continue;
            }
            let bits = window >> shift & MAGIC_BITS;
            if bits == BLOCK_MAGIC || bits == END_MAGIC {
                return Some((at, bits == END_MAGIC));
            }
        }
    }
    None
}

/// The blocks of the bzip2 file `packed`, from its streams' headers and the magics, and where
/// its streams end (bytes after them that are no stream are not read, as `bzip2 -d` does not:
/// "trailing garbage after EOF ignored"); `None` when a stream does not read to its end
/// (damage, a file cut short) or the file is no stream, and it is decoded in order instead,
/// which says where.
fn scan(packed: &Text<'_>) -> Option<(Vec<Block>, usize)> {
    let mut blocks = Vec::new();
    let mut at = 0;
    while at < packed.len() {
        let level = match packed.get(at..(at + 4).min(packed.len()))? {
            [b'B', b'Z', b'h', l @ b'1'..=b'9'] => l - b'0',
            _ if at > 0 => return Some((blocks, at)),
            _ => return None,
        };
        let mut bit = (at as u64 + 4) * 8;
        loop {
            match bits48(packed, bit)? {
                BLOCK_MAGIC => {
                    let (next, _) = next_magic(packed, bit + 48)?;
                    blocks.push(Block {
                        start: bit,
                        end: next,
                        level,
                    });
                    // Its pages are read again when it is decoded.
                    packed.let_go((bit / 8) as usize..(next / 8) as usize);
                    bit = next;
                }
                END_MAGIC => break,
                _ => return None,
            }
        }
        // The end marker, its CRC, and the bits to the next byte.
        at = (bit + 48 + 32).div_ceil(8) as usize;
    }
    Some((blocks, at))
}

/// Append the bits `start..end` of `from` to `to` from its end (a byte boundary).
fn append_bits(to: &mut Vec<u8>, from: &[u8], start: u64, end: u64) {
    let shift = (start % 8) as u32;
    let first = (start / 8) as usize;
    let bytes = (end - start).div_ceil(8) as usize;
    for i in 0..bytes {
        let high = from[first + i] << shift;
        let low = if shift == 0 {
            0
        } else {
            from.get(first + i + 1).map_or(0, |b| b >> (8 - shift))
        };
        to.push(high | low);
    }
    let spare = (bytes as u64 * 8 - (end - start)) as u32;
    if let Some(last) = to.last_mut() {
        *last &= 0xFFu8 << spare;
    }
}

/// Append the `count` low bits of `value` to `to`, whose last `used` bits (0–7) of its last
/// byte are written; the bits of the last byte written after.
fn push_bits(to: &mut Vec<u8>, mut used: u32, value: u64, count: u32) -> u32 {
    for i in (0..count).rev() {
        if used == 0 {
            to.push(0);
        }
        let bit = ((value >> i) & 1) as u8;
        *to.last_mut().expect("pushed") |= bit << (7 - used);
        used = (used + 1) % 8;
    }
    used
}

/// The text of `block` of `packed`, decoded as a stream of its own.
fn decode(packed: &[u8], block: Block) -> std::io::Result<Vec<u8>> {
    let crc = bits48(packed, block.start + 32)
        .map(|b| b & 0xFFFF_FFFF)
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
    let mut stream = Vec::with_capacity(((block.end - block.start) / 8) as usize + 16);
    stream.extend_from_slice(b"BZh");
    stream.push(b'0' + block.level);
    append_bits(&mut stream, packed, block.start, block.end);
    let used = ((block.end - block.start) % 8) as u32;
    let used = push_bits(&mut stream, used, END_MAGIC, 48);
    // One block: the stream's CRC is the block's.
    push_bits(&mut stream, used, crc, 32);
    let mut text = Vec::with_capacity(usize::from(block.level) * 100_000);
    bzip2::read::BzDecoder::new(&stream[..]).read_to_end(&mut text)?;
    Ok(text)
}

/// Decode the bzip2 file mapped as `packed` (at `path`) from its blocks, on `threads`
/// threads, its text handed to `sink` in block order, the
/// start of each block to `member` before its text, how far into the file to `progress`. Its
/// blocks; `None` when they cannot be found (see [`scan`]: decode it in order then), before
/// anything is handed on. The pages read are let go as it goes.
pub(super) fn decode_blocks(
    path: &Path,
    packed: &Text<'_>,
    threads: usize,
    sink: &mut dyn FnMut(&mut Vec<u8>) -> Result<()>,
    member: &mut dyn FnMut(Member),
    progress: &dyn Fn(u64),
) -> Option<Result<Blocks>> {
    let (found, streams_end) = scan(packed)?;
    if streams_end < packed.len() {
        log::warn!(
            "{}: the {} bytes after its last bzip2 stream (from byte {streams_end}) are no \
             stream: not read",
            path.display(),
            packed.len() - streams_end
        );
    }
    Some(decode_found(
        path, packed, &found, threads, sink, member, progress,
    ))
}

/// [`decode_blocks`] of the blocks `found`, which may hold a block split in two by a magic
/// found by chance.
fn decode_found(
    path: &Path,
    packed: &Text<'_>,
    found: &[Block],
    threads: usize,
    sink: &mut dyn FnMut(&mut Vec<u8>) -> Result<()>,
    member: &mut dyn FnMut(Member),
    progress: &dyn Fn(u64),
) -> Result<Blocks> {
    let threads = threads.clamp(1, found.len().max(1));
    let failed = |block: &Block, e: std::io::Error| {
        Error::io(
            format!(
                "decoding {} (bzip2) at byte {}",
                path.display(),
                block.start / 8
            ),
            e,
        )
    };
    // Each thread takes the next block not taken (blocks differ in size: lbzip2 writes a big
    // one and a tiny one in turn), and hands it on numbered.
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (tx, rx) = sync_channel(2 * threads);
        for _ in 0..threads {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(block) = found.get(k) else {
                        return;
                    };
                    if tx.send((k, decode(packed, *block))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // The blocks decoded before the one wanted.
        let mut ahead = HashMap::new();
        let mut decoded = |k: usize| loop {
            if let Some(text) = ahead.remove(&k) {
                return text;
            }
            let (j, text) = rx.recv().expect("every block is decoded");
            ahead.insert(j, text);
        };
        let mut blocks = Vec::with_capacity(found.len());
        let mut text_at = 0;
        let mut k = 0;
        while k < found.len() {
            let mut block = found[k];
            let mut text = match decoded(k) {
                Ok(text) => text,
                // A magic by chance split it: decoded with the part after it.
                Err(e) => match found.get(k + 1) {
                    Some(next) => {
                        k += 1;
                        let _ = decoded(k);
                        block.end = next.end;
                        decode(packed, block).map_err(|_| failed(&found[k - 1], e))?
                    }
                    None => return Err(failed(&block, e)),
                },
            };
            member(Member {
                packed: block.start / 8,
                text: text_at,
            });
            text_at += text.len() as u64;
            blocks.push(block);
            packed.let_go((block.start / 8) as usize..(block.end / 8) as usize);
            sink(&mut text)?;
            progress(block.end / 8);
            k += 1;
        }
        progress(packed.len() as u64);
        Ok(Blocks(Arc::new(blocks)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Numbered lines of text, `n` of them.
    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("line {i}: {}\n", i * 7919 % 100_003).into_bytes())
            .collect()
    }

    fn bzip2(part: &[u8], level: u32) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
        e.write_all(part).unwrap();
        e.finish().unwrap()
    }

    fn decoded(path: &Path, threads: usize) -> Result<(Vec<u8>, Vec<Member>, Blocks)> {
        let packed = Text::Owned(std::fs::read(path).unwrap());
        let (mut text, mut members) = (Vec::new(), Vec::new());
        let blocks = decode_blocks(
            path,
            &packed,
            threads,
            &mut |piece| {
                text.extend_from_slice(piece);
                Ok(())
            },
            &mut |m| members.push(m),
            &|_| {},
        )
        .expect("blocks found")?;
        Ok((text, members, blocks))
    }

    #[test]
    fn each_block_of_each_stream_decodes_on_its_own_in_order_on_any_threads() {
        let dir = tempfile::tempdir().unwrap();
        let text = text(300_000);
        let (a, b) = text.split_at(text.len() / 3);
        // Two streams, of levels 1 (100 kB blocks) and 3.
        let path = dir.path().join("two.bz2");
        std::fs::write(&path, [bzip2(a, 1), bzip2(b, 3)].concat()).unwrap();
        let (one, members, blocks) = decoded(&path, 1).unwrap();
        assert!(one == text);
        assert!(members.len() > 20, "{} blocks", members.len());
        assert!(members.iter().any(|m| m.text == a.len() as u64));
        for threads in [2, 3, 7] {
            let (again, m, b) = decoded(&path, threads).unwrap();
            assert!(again == text);
            assert_eq!((m, b), (members.clone(), blocks.clone()));
        }
        let kept = Blocks::from_bytes(&blocks.to_bytes()).unwrap();
        assert_eq!(kept, blocks);
        for k in (0..members.len()).rev() {
            let start = members[k].text as usize;
            let end = members.get(k + 1).map_or(text.len(), |m| m.text as usize);
            assert!(
                kept.read(&Blob::open(&path).unwrap(), k).unwrap() == text[start..end],
                "block {k}"
            );
        }
    }

    /// A file of 100,000 lines as one stream of 100 kB blocks, in `dir`: its path, bytes,
    /// text, blocks as members, and blocks.
    fn one_stream(dir: &Path) -> (std::path::PathBuf, Vec<u8>, Vec<u8>, Vec<Member>, Blocks) {
        let text = text(100_000);
        let path = dir.join("one.bz2");
        let packed = bzip2(&text, 1);
        std::fs::write(&path, &packed).unwrap();
        let (_, members, blocks) = decoded(&path, 2).unwrap();
        (path, packed, text, members, blocks)
    }

    /// A magic found by chance inside a block: the two parts are decoded as one.
    #[test]
    fn a_magic_by_chance_inside_a_block_costs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (path, packed, text, found, blocks) = one_stream(dir.path());
        // A split of block 2 in the middle, as a magic there would make.
        let mut split: Vec<Block> = blocks.0.to_vec();
        let b = split[1];
        let middle = (b.start + b.end) / 2;
        split[1].end = middle;
        split.insert(2, Block { start: middle, ..b });
        assert!(decode(&packed, split[1]).is_err() && decode(&packed, split[2]).is_err());
        // Decoded as if found so, on 1 to 3 threads: the blocks and text of the file.
        for threads in 1..=3 {
            let (mut again, mut members) = (Vec::new(), Vec::new());
            let merged = decode_found(
                &path,
                &Text::Slice(&packed),
                &split,
                threads,
                &mut |piece| {
                    again.extend_from_slice(piece);
                    Ok(())
                },
                &mut |m| members.push(m),
                &|_| {},
            )
            .unwrap();
            assert_eq!(merged, blocks);
            assert_eq!(members, found);
            assert!(again == text);
        }
    }

    #[test]
    fn a_damaged_block_fails_only_its_own_reads_and_stops_the_decoding() {
        let dir = tempfile::tempdir().unwrap();
        let (path, packed, text, members, blocks) = one_stream(dir.path());
        let b = blocks.0[2];
        let mut bytes = packed.clone();
        let middle = ((b.start + b.end) / 16) as usize;
        for x in &mut bytes[middle..middle + 32] {
            *x ^= 0x5A;
        }
        std::fs::write(&path, &bytes).unwrap();
        let e = blocks.read(&Blob::open(&path).unwrap(), 2).unwrap_err();
        assert!(!e.to_string().is_empty());
        for k in [0, 1, 3, members.len() - 1] {
            let start = members[k].text as usize;
            let end = members.get(k + 1).map_or(text.len(), |m| m.text as usize);
            assert!(blocks.read(&Blob::open(&path).unwrap(), k).unwrap() == text[start..end]);
        }
        assert!(decoded(&path, 2).is_err());
    }

    #[test]
    fn bytes_after_the_last_stream_are_left_and_a_stream_cut_short_is_not_scanned() {
        let mut packed = bzip2(&text(1000), 9);
        let end = packed.len();
        assert!(scan(&Text::Slice(&packed)).is_some_and(|(b, at)| b.len() == 1 && at == end));
        // Bytes after the last stream that are no stream are left, as bzip2 -d leaves them.
        for junk in [&b"junk"[..], b"\n", b"\0\0\0\0", b"BZ"] {
            let mut more = packed.clone();
            more.extend_from_slice(junk);
            assert!(
                scan(&Text::Slice(&more)).is_some_and(|(b, at)| b.len() == 1 && at == end),
                "{junk:?}"
            );
        }
        // A stream cut short, or no stream: not scanned.
        packed.truncate(end - 10);
        assert!(scan(&Text::Slice(&packed)).is_none());
        assert!(scan(&Text::Slice(b"BZh9")).is_none());
        assert!(scan(&Text::Slice(b"junk")).is_none());
        assert_eq!(scan(&Text::Slice(b"")).map(|(b, _)| b.len()), Some(0));
    }
}
