//! The games of one position as a build reads them from its sorted entries, before its list
//! is written: held in memory while they are few, put on disk past [`HELD_MOST`] (the start
//! position alone is reached by every game: at ten million games, 160 MB of entries), and
//! read over as many times as writing the list takes, so that a build's memory stays bounded
//! however many games reach a position.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use super::file::Entry;

/// The most games of a position held in memory (16 bytes each: 1 MiB); the games of a
/// position that more reach go to disk.
const HELD_MOST: usize = if cfg!(test) { 100 } else { 1 << 16 };
/// The bytes of a game on disk: its number (4) and the move it plays (2).
const SPILLED: usize = 6;
/// The bytes written or read at a time: a whole number of games.
const PIECE: usize = SPILLED * (10 << 10);

/// The games of one position (ascending, each with its move), as they are read.
pub(super) struct Group {
    held: Vec<Entry>,
    spill: Spill,
}

/// The games of a position past [`HELD_MOST`], in a file beside the index made when first
/// needed and removed when dropped: the games held before them too, in order.
struct Spill {
    path: PathBuf,
    file: Option<File>,
    pending: Vec<u8>,
    written: u64,
    count: usize,
}

impl Group {
    /// An empty group whose games past [`HELD_MOST`] go to the file at `path`.
    pub(super) fn new(path: PathBuf) -> Group {
        Group {
            held: Vec::new(),
            spill: Spill {
                path,
                file: None,
                pending: Vec::new(),
                written: 0,
                count: 0,
            },
        }
    }

    /// The key of its position; `None` when it is empty.
    pub(super) fn key(&self) -> Option<u64> {
        self.held.first().map(|e| e.key)
    }

    /// How many games it holds.
    pub(super) fn len(&self) -> usize {
        if self.spill.count > 0 {
            self.spill.count
        } else {
            self.held.len()
        }
    }

    /// Add entry `e` (of its position, after those added).
    pub(super) fn push(&mut self, e: Entry) -> std::io::Result<()> {
        if self.spill.count > 0 {
            return self.spill.put(e);
        }
        self.held.push(e);
        if self.held.len() > HELD_MOST {
            // Every game to disk but the first, which keeps the key.
            for &e in &self.held {
                self.spill.put(e)?;
            }
            self.held.truncate(1);
        }
        Ok(())
    }

    /// Give `f` each game with its move, in order.
    pub(super) fn each(
        &mut self,
        mut f: impl FnMut(u32, u16) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if self.spill.count == 0 {
            return self.held.iter().try_for_each(|e| f(e.game, e.next));
        }
        self.spill.flush()?;
        let file = self.spill.file.as_ref().expect("made by the first put");
        let mut piece = vec![0u8; PIECE];
        let mut at = 0;
        while at < self.spill.written {
            let n = (self.spill.written - at).min(PIECE as u64) as usize;
            file.read_exact_at(&mut piece[..n], at)?;
            at += n as u64;
            for g in piece[..n].chunks_exact(SPILLED) {
                let game = u32::from_le_bytes([g[0], g[1], g[2], g[3]]);
                f(game, u16::from_le_bytes([g[4], g[5]]))?;
            }
        }
        Ok(())
    }

    /// Empty it for the next position; its file, if any, is kept for the next and emptied.
    pub(super) fn clear(&mut self) -> std::io::Result<()> {
        self.held.clear();
        if self.spill.count > 0 {
            self.spill.count = 0;
            self.spill.written = 0;
            self.spill.pending.clear();
            // Its pages dropped rather than written.
            self.spill.file.as_ref().map_or(Ok(()), |f| f.set_len(0))?;
        }
        Ok(())
    }
}

impl Spill {
    /// Append game `e`.
    fn put(&mut self, e: Entry) -> std::io::Result<()> {
        self.pending.extend_from_slice(&e.game.to_le_bytes());
        self.pending.extend_from_slice(&e.next.to_le_bytes());
        self.count += 1;
        if self.pending.len() >= PIECE {
            self.flush()?;
        }
        Ok(())
    }

    /// Write what is pending.
    fn flush(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let file = match &mut self.file {
            Some(file) => file,
            none => none.insert(super::file::scratch_file(&self.path)?),
        };
        file.write_all_at(&self.pending, self.written)?;
        self.written += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_past_what_it_holds_reads_back_every_game_in_order_each_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("group");
        let mut group = Group::new(path.clone());
        for count in [1, HELD_MOST, HELD_MOST + 1, 3 * PIECE / SPILLED + 7, 2] {
            let entries: Vec<Entry> = (0..count as u32)
                .map(|game| Entry {
                    key: 5,
                    game: game * 3,
                    next: (game % 7) as u16,
                })
                .collect();
            for &e in &entries {
                group.push(e).unwrap();
            }
            assert_eq!(group.len(), count);
            assert_eq!(group.key(), Some(5));
            for _ in 0..2 {
                let mut read = Vec::new();
                group
                    .each(|game, next| {
                        read.push((game, next));
                        Ok(())
                    })
                    .unwrap();
                let want: Vec<(u32, u16)> = entries.iter().map(|e| (e.game, e.next)).collect();
                assert_eq!(read, want, "{count}");
            }
            if count > HELD_MOST {
                assert!(path.exists(), "{count} put on disk");
            }
            group.clear().unwrap();
            assert_eq!((group.len(), group.key()), (0, None));
        }
        drop(group);
        assert!(!path.exists(), "removed");
    }
}
