//! The games a mount changed, kept beside the index file at unmount (`INDEX.changes`), so the
//! next mount takes the index file as it is and these games over it, instead of building the
//! index again: a file that lists only the positions two games share cannot take a changed
//! game in without knowing which game alone reached each of its positions before.
//!
//! Layout, little-endian: the magic `GFPOSCH2`; the stamp of the index file the changes go
//! over (8 bytes) and of the database files with them (8); the game count with them (4); the
//! changed games (4); then per game its number (4), 1 when it is in the index, else 0, and,
//! when it is, its result (1), ratings and year (2 each), signature (8, 1, 2) and line: its
//! steps (4) and each step's position key (8) and move (2), then its endings (4) and each
//! one's code (4, [`super::material::Balance`]).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::line::{GameLine, GameStats};
use super::signature::Signature;

const MAGIC: &[u8; 8] = b"GFPOSCH2";

/// Where the changes of the index at `index` are kept.
pub fn beside(index: &Path) -> PathBuf {
    crate::store::cache_folder::companion(index, crate::store::cache_folder::CHANGES)
}

/// Keep `changed` (the games' lines now, `None`: out of the index) at `path`, over the index
/// file stamped `base`, for the database files stamped `stamp` with `count` games; atomically
/// (a temporary file renamed over it).
pub fn write(
    path: &Path,
    base: u64,
    stamp: u64,
    count: u32,
    changed: &HashMap<u32, Option<GameLine>>,
) -> std::io::Result<()> {
    let tmp = super::file::scratch_beside(path, "tmp");
    let result = (|| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        w.write_all(MAGIC)?;
        w.write_all(&base.to_le_bytes())?;
        w.write_all(&stamp.to_le_bytes())?;
        w.write_all(&count.to_le_bytes())?;
        w.write_all(&(changed.len() as u32).to_le_bytes())?;
        for (&game, line) in changed {
            w.write_all(&game.to_le_bytes())?;
            let Some(line) = line else {
                w.write_all(&[0])?;
                continue;
            };
            let s = &line.stats;
            w.write_all(&[1, s.result_code()])?;
            for v in [s.white_elo, s.black_elo, s.year] {
                w.write_all(&v.to_le_bytes())?;
            }
            w.write_all(&line.signature.emptied.to_le_bytes())?;
            w.write_all(&[line.signature.count])?;
            w.write_all(&line.signature.material.to_le_bytes())?;
            w.write_all(&(line.steps.len() as u32).to_le_bytes())?;
            for &(key, next) in &line.steps {
                w.write_all(&key.to_le_bytes())?;
                w.write_all(&next.to_le_bytes())?;
            }
            w.write_all(&(line.endings.len() as u32).to_le_bytes())?;
            for code in &line.endings {
                w.write_all(&code.to_le_bytes())?;
            }
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A reader of the bytes of a changes file.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
}

/// The changed games kept at `path` if they go over the index file stamped `base` and make
/// the database files stamped `stamp` with `count` games; `None` otherwise (or when the file
/// is missing or not whole).
pub fn read(
    path: &Path,
    base: u64,
    stamp: u64,
    count: u32,
) -> Option<HashMap<u32, Option<GameLine>>> {
    let bytes = std::fs::read(path).ok()?;
    let mut b = Bytes(&bytes);
    if &b.take::<8>()? != MAGIC || b.u64()? != base || b.u64()? != stamp || b.u32()? != count {
        return None;
    }
    let games = b.u32()?;
    let mut changed = HashMap::with_capacity(games.min(count) as usize);
    for _ in 0..games {
        let game = b.u32()?;
        let line = match b.u8()? {
            0 => None,
            _ => {
                let stats = GameStats {
                    result: GameStats::result_of_code(b.u8()?),
                    white_elo: b.u16()?,
                    black_elo: b.u16()?,
                    year: b.u16()?,
                };
                let signature = Signature {
                    emptied: b.u64()?,
                    count: b.u8()?,
                    material: b.u16()?,
                };
                let steps = b.u32()? as usize;
                if steps > b.0.len() / 10 {
                    return None;
                }
                let steps = (0..steps)
                    .map(|_| Some((b.u64()?, b.u16()?)))
                    .collect::<Option<Vec<_>>>()?;
                let endings = b.u32()? as usize;
                if endings > b.0.len() / 4 {
                    return None;
                }
                let endings = (0..endings).map(|_| b.u32()).collect::<Option<Vec<_>>>()?;
                // Kept ordered by key ([`GameLine::by_key`]).
                Some(GameLine {
                    stats,
                    steps,
                    signature,
                    opening: 0,
                    endings,
                })
            }
        };
        changed.insert(game, line);
    }
    b.0.is_empty().then_some(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_changes_read_back_only_over_their_index_and_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = beside(&dir.path().join("positions-1"));
        let mut changed = HashMap::new();
        changed.insert(3, None);
        changed.insert(
            7,
            Some(GameLine {
                stats: GameStats {
                    result: crate::game::GameResult::Draw,
                    white_elo: 2700,
                    black_elo: 0,
                    year: 2024,
                },
                steps: vec![(1, 2), (u64::MAX, 999)],
                signature: Signature {
                    emptied: 0xfedc_ba98_7654_3210,
                    count: 16,
                    material: 0x8f8f,
                },
                opening: 0,
                endings: vec![0x123, 0x45],
            }),
        );
        write(&path, 11, 22, 9, &changed).unwrap();
        assert_eq!(read(&path, 11, 22, 9), Some(changed));
        assert_eq!(read(&path, 12, 22, 9), None, "over another index");
        assert_eq!(read(&path, 11, 23, 9), None, "another state of the files");
        assert_eq!(read(&path, 11, 22, 8), None, "another count");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(read(&path, 11, 22, 9), None, "cut");
    }
}
