//! A PGN file (plain, or compressed as `.zst`, `.gz`, `.bz2` or `.xz`) as a read-only
//! database.
//!
//! The file is indexed once ([`index::Index`]: where each game starts, its header fields,
//! the members of a compressed file) and the index kept in the user's cache folder. Each
//! game's file serves the source's bytes exactly ([`ChessStore::source_text`]), never a
//! rendering; a game whose tags the index cannot read is listed all the same, with its text,
//! and named in the problems, and the views leave it out ([`ChessStore::classified`]). The
//! index does not replay moves: a game whose moves do not replay is classified by its tags,
//! and [`ChessStore::load`] (which `gamefs check` calls) names it.

pub mod bz2_blocks;
pub mod games;
pub mod gzip;
pub mod index;
pub mod source;
pub mod xz_blocks;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::game::ChessGame;
use crate::store::damage::{UNKNOWN_NAME, UNKNOWN_NAME_TEXT};
use crate::store::{
    ChessStore, Each, Format, GameSummary, NameKind, Problem, StoreInfo, check_game_number, in_game,
};
use crate::text::pgn_parse::{Games, Reading};
use index::{Index, Progress};
use source::{Codec, Source, StartPoints};

/// The endings of the file names mounted as PGN files (compared ignoring case).
pub const ENDINGS: [&str; 5] = [".pgn", ".pgn.zst", ".pgn.gz", ".pgn.bz2", ".pgn.xz"];

/// True when `path` names a PGN file, plain or compressed: a file whose name ends in one of
/// the [`ENDINGS`].
pub fn looks_like(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    ENDINGS.iter().any(|e| name.ends_with(e)) && crate::store::blob::is_file(path)
}

/// The error of every write to a PGN file.
fn read_only() -> Error {
    Error::new(
        ErrorKind::ReadOnly,
        "a PGN file is only read, never written (`gamefs import DB FILE` stores its games in a database)",
    )
}

/// What is said of text lost to a member that does not decode.
fn lost_text(lost: &index::LostText) -> String {
    format!(
        "a damaged member at byte {} does not decode ({}): its text is lost",
        lost.packed, lost.why
    )
}

/// A PGN file opened as a database.
pub struct PgnFile {
    path: PathBuf,
    index: Index,
    source: Source,
    modified: SystemTime,
}

impl PgnFile {
    /// Open the PGN file at `path`, indexing it (telling `progress`) unless its index is kept.
    /// `writable` is refused: a PGN file is only read.
    /// The index is kept in the user's cache folder.
    pub fn open(path: &Path, writable: bool, progress: Progress<'_>) -> Result<PgnFile> {
        if writable {
            return Err(read_only());
        }
        let kept_in = crate::store::files::cache_dir();
        PgnFile::open_kept_in(path, kept_in.as_deref(), progress)
    }

    /// Open the PGN file at `path` read-only, its index kept in `kept_in` (none: not kept).
    /// Where its bytes are (a local file, a remote object, an archive's member) is told here
    /// once, for the indexing.
    pub fn open_kept_in(
        path: &Path,
        kept_in: Option<&Path>,
        progress: Progress<'_>,
    ) -> Result<PgnFile> {
        let location = crate::store::location::Location::parse(path);
        let index = Index::of_file(&location, kept_in, progress)?;
        let source = Source::open(
            path,
            index.codec,
            index.members.clone(),
            index.start_points.clone(),
            index.text_len,
        )?;
        let modified = crate::store::blob::Blob::open(path)
            .and_then(|b| b.version())
            .map_or(SystemTime::UNIX_EPOCH, |v| v.modified());
        Ok(PgnFile {
            path: path.to_path_buf(),
            index,
            source,
            modified,
        })
    }

    /// The index (for tests and `gamefs info`).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The bytes of game `number` in the file's text.
    fn text(&self, number: u32) -> Result<Vec<u8>> {
        check_game_number(number, self.game_count())?;
        if let Some(lost) = self
            .index
            .lost
            .iter()
            .find(|l| self.index.games_touching(l.text).contains(&number))
        {
            return Err(in_game(Error::corrupt_record(lost_text(lost)), number));
        }
        let (start, end) = self.index.game_range(number);
        self.source.read(start, end).map_err(|e| in_game(e, number))
    }
}

impl ChessStore for PgnFile {
    fn info(&self) -> StoreInfo {
        let format = match self.index.codec {
            Codec::Plain => "PGN file".to_owned(),
            codec => format!(
                "PGN file, {} ({} {}(s): where reading can start)",
                codec.name(),
                self.index.members.len(),
                match self.index.start_points {
                    Some(StartPoints::Gzip(_)) => "checkpoint",
                    Some(StartPoints::Bzip2(_) | StartPoints::Xz(_)) => "block",
                    None => "member",
                }
            ),
        };
        StoreInfo {
            format,
            files: vec![self.path.clone()],
            modified: self.modified,
        }
    }

    fn game_count(&self) -> u32 {
        self.index.games.len() as u32
    }

    fn summary(&self, number: u32) -> GameSummary {
        self.index.summary(number)
    }

    fn deleted(&self, _number: u32) -> bool {
        // A PGN file is read-only: nothing in it is marked deleted.
        false
    }

    fn name(&self, kind: NameKind, id: u32) -> Arc<str> {
        match self.index.names[kind as usize].get(id as usize) {
            Some(name) if id != UNKNOWN_NAME => name.into(),
            _ => UNKNOWN_NAME_TEXT.into(),
        }
    }

    fn problems(&self) -> Vec<Problem> {
        let lost = self.index.lost.iter().flat_map(|l| {
            let games = self.index.games_touching(l.text);
            let whole = Problem {
                item: None,
                message: format!(
                    "{}; games {}-{} have text in it and fail with an I/O error",
                    lost_text(l),
                    games.start + 1,
                    games.end
                ),
                unreadable: false,
            };
            std::iter::once(whole).chain(games.map(|n| Problem {
                item: Some(n),
                message: lost_text(l),
                unreadable: true,
            }))
        });
        let unparsed = self.index.unparsed.iter().map(|(n, why)| Problem {
            item: Some(*n),
            message: format!(
                "not read as PGN ({why}); its file holds its text, the views leave it out"
            ),
            unreadable: false,
        });
        lost.chain(unparsed).collect()
    }

    fn load(&self, number: u32) -> Result<ChessGame> {
        let text = self.text(number)?;
        match Games::new(&text).reading(Reading::AsScid).next() {
            Some(Ok(read)) => Ok(read.game),
            Some(Err(e)) => Err(in_game(Error::from(e), number)),
            None => Err(in_game(
                Error::new(ErrorKind::InvalidInput, "the text holds no game"),
                number,
            )),
        }
    }

    fn source_text(&self, number: u32) -> Option<Result<Vec<u8>>> {
        Some(self.text(number))
    }

    fn source_len(&self, number: u32) -> Option<u64> {
        let (start, end) = self.index.game_range(number);
        Some(end - start)
    }

    fn fingerprint(&self, number: u32) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        // A game's text is its stretch of the file: its place and length, with the tags the
        // index read from it, tell a rewritten file's game from the one kept, without reading
        // (and decompressing) the text.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.index.game_range(number).hash(&mut h);
        let s = self.summary(number);
        for (kind, id) in [
            (NameKind::Player, s.white),
            (NameKind::Player, s.black),
            (NameKind::Event, s.event),
            (NameKind::Site, s.site),
            (NameKind::Round, s.round),
        ] {
            self.name(kind, id).hash(&mut h);
        }
        (s.date, s.result, s.eco, s.deleted).hash(&mut h);
        Some(h.finish())
    }

    fn classified(&self, number: u32) -> bool {
        self.index
            .unparsed
            .binary_search_by_key(&number, |(n, _)| *n)
            .is_err()
    }

    fn writable(&self) -> bool {
        false
    }

    fn format(&self) -> Format {
        Format::PgnFile
    }

    fn replace(&self, _number: u32, _game: &ChessGame) -> Result<bool> {
        Err(read_only())
    }

    fn append_each(
        &self,
        _games: &mut dyn Iterator<Item = Result<ChessGame>>,
        _each: Option<Each<'_>>,
    ) -> Result<Vec<u32>> {
        Err(read_only())
    }

    fn set_deleted(&self, _number: u32, _deleted: bool) -> Result<()> {
        Err(read_only())
    }

    fn reload_if_changed(&self) -> Result<bool> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn an_xz_file_of_several_blocks_is_read_a_block_at_a_time_and_one_block_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let text = index::tests::odd_text();
        for (block, several) in [(4096, true), (1 << 30, false)] {
            let path = dir.path().join(format!("g{block}.pgn.xz"));
            std::fs::write(&path, xz_blocks::tests::in_blocks(&text, block)).unwrap();
            let store = PgnFile::open_kept_in(&path, None, &|_, _| {}).unwrap();
            let index = store.index();
            assert_eq!(index.codec, Codec::Xz);
            assert_eq!(
                matches!(index.start_points, Some(StartPoints::Xz(_))),
                several,
                "{block}"
            );
            assert!(store.game_count() > 10);
            for n in (0..store.game_count()).rev() {
                let (start, end) = index.game_range(n);
                let read = store.source_text(n).unwrap().unwrap();
                assert!(read == text[start as usize..end as usize], "game {}", n + 1);
            }
            assert!(
                store.info().format.contains("xz"),
                "{}",
                store.info().format
            );
        }
    }

    #[test]
    fn a_frame_damaged_before_indexing_fails_only_the_games_that_touch_it() {
        let dir = tempfile::tempdir().unwrap();
        let text = index::tests::odd_text();
        let parts: Vec<&[u8]> = text.chunks(text.len().div_ceil(5)).collect();
        let mut frames = Vec::new();
        for part in &parts {
            // With the checksum the zstd and pzstd commands write by default.
            let mut e = zstd::Encoder::new(Vec::new(), 3).unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(part).unwrap();
            frames.push(e.finish().unwrap());
        }
        // Garbage in the middle of the third frame.
        let third = frames[0].len() + frames[1].len();
        let mut bytes = frames.concat();
        for b in &mut bytes[third + frames[2].len() / 2..][..32] {
            *b ^= 0x5A;
        }
        let path = dir.path().join("damaged.pgn.zst");
        std::fs::write(&path, &bytes).unwrap();
        let store = PgnFile::open_kept_in(&path, None, &|_, _| {}).unwrap();
        let index = store.index();
        assert_eq!(index.lost.len(), 1);
        assert_eq!(index.lost[0].packed, third as u64);
        assert_eq!(index.members.len(), 4, "the damaged frame is skipped");
        // The text after the damage stands where it stood in the file, less what was lost.
        let (lost_from, lost_to) = index.lost[0].text;
        let frame_end = (parts[0].len() + parts[1].len() + parts[2].len()) as u64;
        let shift = frame_end - lost_to;
        let touching = index.games_touching(index.lost[0].text);
        assert!(!touching.is_empty());
        for n in 0..store.game_count() {
            let read = store.source_text(n).unwrap();
            if touching.contains(&n) {
                let e = read.unwrap_err();
                assert_eq!(e.kind(), ErrorKind::CorruptRecord, "game {}: {e}", n + 1);
                continue;
            }
            let (start, end) = index.game_range(n);
            let (start, end) = if start >= lost_to {
                (start + shift, end + shift)
            } else {
                assert!(end < lost_from, "game {} before the damage", n + 1);
                (start, end)
            };
            assert!(
                read.unwrap() == text[start as usize..end as usize],
                "game {}",
                n + 1
            );
        }
        let problems = store.problems();
        let unreadable = problems.iter().filter(|p| p.unreadable).count();
        assert_eq!(unreadable, touching.len());
        assert!(problems[0].item.is_none() && problems[0].message.contains("at byte"));
    }
}
