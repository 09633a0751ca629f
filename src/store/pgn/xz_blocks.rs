//! An `xz` file read by its blocks: `xz -T0` (and `pxz`, `pixz`) write a stream of blocks that
//! each decode on their own, listed with their sizes in the stream's index at its end. The
//! index is read (without decoding anything), and a block is decoded by liblzma as a stream
//! of that one block: the file's stream header, the block, and an index and footer for it
//! alone, so that liblzma checks the block's check and sizes as `xz -d` does.

use std::io::Read;
use std::sync::Arc;

use super::source::{Member, PIECE_BYTES, kept_records, no_block, read_full};
use crate::error::{Error, Result};
use crate::store::blob::{Blob, Reader};

/// The magic bytes an xz stream starts with.
const HEADER_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0];
/// The magic bytes an xz stream ends with.
const FOOTER_MAGIC: [u8; 2] = [b'Y', b'Z'];
/// The size of a stream's header and of its footer.
const HEADER_BYTES: u64 = 12;

/// One block: where it starts in the file, its size there without padding (as the index
/// says it), and where its text starts and how long it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    packed: u64,
    unpadded: u64,
    text: u64,
    text_len: u64,
}

/// How many bytes [`Blocks::to_bytes`] writes a block in.
const BLOCK_RECORD: usize = 32;

/// The blocks of an xz file of one stream, each of which decodes on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks(Arc<Vec<Block>>);

impl Blocks {
    /// The blocks as bytes, to keep with the index.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.0.len() * BLOCK_RECORD);
        for b in self.0.iter() {
            for v in [b.packed, b.unpadded, b.text, b.text_len] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        bytes
    }

    /// The blocks kept as `bytes`; `None` when they do not read back.
    pub fn from_bytes(bytes: &[u8]) -> Option<Blocks> {
        let blocks = kept_records(bytes, BLOCK_RECORD, |r| {
            let v = |i: usize| Some(u64::from_le_bytes(r[i * 8..i * 8 + 8].try_into().ok()?));
            let block = Block {
                packed: v(0)?,
                unpadded: v(1)?,
                text: v(2)?,
                text_len: v(3)?,
            };
            (block.unpadded > 0).then_some(block)
        })?;
        Some(Blocks(Arc::new(blocks)))
    }

    /// Where each block starts, in the file and in the text.
    pub fn members(&self) -> Vec<Member> {
        self.0
            .iter()
            .map(|b| Member {
                packed: b.packed,
                text: b.text,
            })
            .collect()
    }

    /// The most text a block holds.
    pub fn largest(&self) -> u64 {
        self.0.iter().map(|b| b.text_len).max().unwrap_or(0)
    }

    /// The text of block `k` of the xz file open as `file`, its check and sizes checked.
    pub fn read(&self, file: &Blob, k: usize) -> std::io::Result<Vec<u8>> {
        let block = *self.0.get(k).ok_or_else(|| no_block(k))?;
        let mut stream = vec![0; HEADER_BYTES as usize];
        file.read_exact_at(&mut stream, 0)?;
        let flags = [stream[6], stream[7]];
        let padded = block.unpadded.next_multiple_of(4);
        let at = stream.len();
        stream.resize(at + padded as usize, 0);
        file.read_exact_at(&mut stream[at..], block.packed)?;
        // Its index: one record.
        let index_at = stream.len();
        stream.push(0);
        push_varint(&mut stream, 1);
        push_varint(&mut stream, block.unpadded);
        push_varint(&mut stream, block.text_len);
        while !(stream.len() - index_at).is_multiple_of(4) {
            stream.push(0);
        }
        let crc = crc32fast::hash(&stream[index_at..]);
        stream.extend_from_slice(&crc.to_le_bytes());
        let backward = ((stream.len() - index_at) / 4 - 1) as u32;
        let mut footer = backward.to_le_bytes().to_vec();
        footer.extend_from_slice(&flags);
        stream.extend_from_slice(&crc32fast::hash(&footer).to_le_bytes());
        stream.extend_from_slice(&footer);
        stream.extend_from_slice(&FOOTER_MAGIC);
        let mut text = Vec::with_capacity(block.text_len as usize);
        liblzma::read::XzDecoder::new(&stream[..]).read_to_end(&mut text)?;
        Ok(text)
    }
}

/// Append `v` as an xz variable-length integer.
fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The variable-length integer at `bytes[*at..]`, moving `at` past it.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..9 {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The blocks of the xz file open as `file`, from its index; `None` when it is not one
/// stream whose index reads (several streams, padding after it, damage).
fn blocks_of(file: &Blob) -> Option<Blocks> {
    let len = file.len().ok()?;
    let mut head = [0; HEADER_BYTES as usize];
    file.read_exact_at(&mut head, 0).ok()?;
    let mut foot = [0; HEADER_BYTES as usize];
    file.read_exact_at(&mut foot, len.checked_sub(HEADER_BYTES)?)
        .ok()?;
    if head[..6] != HEADER_MAGIC || foot[10..] != FOOTER_MAGIC || foot[8..10] != head[6..8] {
        return None;
    }
    let backward = (u64::from(u32::from_le_bytes(foot[4..8].try_into().ok()?)) + 1) * 4;
    let index_at = len.checked_sub(HEADER_BYTES + backward)?;
    let mut index = vec![0; usize::try_from(backward).ok()?];
    file.read_exact_at(&mut index, index_at).ok()?;
    let crc_at = index.len().checked_sub(4)?;
    if crc32fast::hash(&index[..crc_at]).to_le_bytes()[..] != index[crc_at..] || index[0] != 0 {
        return None;
    }
    let mut at = 1;
    let count = varint(&index, &mut at)?;
    let mut blocks = Vec::new();
    let (mut packed, mut text) = (HEADER_BYTES, 0u64);
    for _ in 0..count {
        let unpadded = varint(&index, &mut at)?;
        let text_len = varint(&index, &mut at)?;
        if unpadded == 0 {
            return None;
        }
        blocks.push(Block {
            packed,
            unpadded,
            text,
            text_len,
        });
        packed = packed.checked_add(unpadded.next_multiple_of(4))?;
        text = text.checked_add(text_len)?;
    }
    // One stream: its blocks end where its index starts.
    (packed == index_at && at <= crc_at).then(|| Blocks(Arc::new(blocks)))
}

/// Decode the xz file `path` whole, handing its text on in pieces to `sink` and how far into
/// the file it is to `progress`, and return its blocks; `None` (nothing decoded) when its
/// blocks cannot be read from its index, or one holds more than `most` bytes of text (`xz`
/// without `-T` writes one block: reading it by blocks would decode it whole each time).
pub(super) fn decode_with_blocks(
    path: &std::path::Path,
    most: u64,
    sink: &mut dyn FnMut(&mut Vec<u8>) -> Result<()>,
    progress: &dyn Fn(u64),
) -> Option<Result<Blocks>> {
    let file = Arc::new(Blob::open(path).ok()?);
    let blocks = blocks_of(&file)?;
    if blocks.largest() > most || blocks.0.len() < 2 {
        return None;
    }
    let packed_len = file.len().ok()?;
    let text_len = blocks.0.last().map_or(0, |b| b.text + b.text_len);
    let input = std::io::BufReader::with_capacity(256 << 10, Reader::to_end(file, 0));
    let mut decoder = liblzma::bufread::XzDecoder::new(input);
    let mut piece = Vec::new();
    let mut done = 0u64;
    let failed = |e| Error::io(format!("decoding {} (xz)", path.display()), e);
    loop {
        piece.resize(PIECE_BYTES, 0);
        let n = match read_full(&mut decoder, &mut piece) {
            Ok(n) => n,
            Err(e) => return Some(Err(failed(e))),
        };
        if n == 0 {
            break;
        }
        piece.truncate(n);
        done += n as u64;
        if let Err(e) = sink(&mut piece) {
            return Some(Err(e));
        }
        progress(done.saturating_mul(packed_len) / text_len.max(1));
    }
    Some(Ok(blocks))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// `text` compressed by `xz -T2` in blocks of `block` bytes, as `xz -T0` writes it.
    pub(crate) fn in_blocks(text: &[u8], block: u64) -> Vec<u8> {
        let mut xz = std::process::Command::new("xz")
            .args(["-T2", "-1", "-c", &format!("--block-size={block}")])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("xz (xz-utils) runs");
        let mut stdin = xz.stdin.take().unwrap();
        let text = text.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&text).unwrap());
        let out = xz.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(out.status.success());
        out.stdout
    }

    #[test]
    fn each_block_of_a_multi_block_stream_decodes_alone_and_damage_is_caught() {
        let text: Vec<u8> = (0..400_000u32)
            .flat_map(|i| format!("{} ", i * 7919 % 100_003).into_bytes())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.pgn.xz");
        let mut bytes = in_blocks(&text, 300_000);
        std::fs::write(&path, &bytes).unwrap();
        let blob = Blob::open(&path).unwrap();
        let blocks = blocks_of(&blob).unwrap();
        assert!(blocks.0.len() > 5, "{}", blocks.0.len());
        assert_eq!(Blocks::from_bytes(&blocks.to_bytes()), Some(blocks.clone()));
        for (k, b) in blocks.0.iter().enumerate() {
            let read = blocks.read(&blob, k).unwrap();
            assert!(
                read == text[b.text as usize..(b.text + b.text_len) as usize],
                "{k}"
            );
        }
        // A byte changed in the third block: that block fails, the others read.
        let third = blocks.0[2];
        bytes[(third.packed + third.unpadded / 2) as usize] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        let blob = Blob::open(&path).unwrap();
        assert!(blocks.read(&blob, 2).is_err());
        assert!(blocks.read(&blob, 3).is_ok());
        // One block (`xz` without -T), or two streams: not read by blocks.
        std::fs::write(&path, in_blocks(&text, 1 << 30)).unwrap();
        let one = blocks_of(&Blob::open(&path).unwrap()).unwrap();
        assert_eq!(one.0.len(), 1);
        let mut two = in_blocks(&text[..1000], 300);
        two.extend(in_blocks(&text[1000..2000], 300));
        std::fs::write(&path, two).unwrap();
        assert!(blocks_of(&Blob::open(&path).unwrap()).is_none());
    }
}
