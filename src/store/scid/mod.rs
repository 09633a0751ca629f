//! SCID 4 databases (.si4 index, .sn4 names, .sg4 game records); byte layout in spec/scid4.md.
//!
//! [`ScidDatabase`] opens the three files, reads the index and names once, and decodes a game
//! record from the .sg4 only when that game is loaded.

pub mod bytes;
pub mod derive;
pub mod entry;
pub mod header;
pub mod names;
pub mod pieces;
pub mod record;
pub mod stored_lines;

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use entry::IndexEntry;
use header::{IndexHeader, Layout};
use names::NameFile;

use crate::error::{Error, ErrorKind, Result};
use crate::game::{ChessGame, Headers};
use crate::store::{ChessStore, GameSummary, NameKind, StoreInfo, eco_text};

/// The three file extensions of a SCID 4 database, in the order index, names, games.
pub const EXTENSIONS: [&str; 3] = ["si4", "sn4", "sg4"];

/// An open SCID 4 database (read side).
pub struct ScidDatabase {
    info: StoreInfo,
    header: IndexHeader,
    index: Vec<u8>,
    names: NameFile,
    games: File,
}

/// The base path of a SCID database given as its base or any of its three files.
pub fn base_path(path: &Path) -> PathBuf {
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if EXTENSIONS.contains(&ext) => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

/// True when `path` (base or one of the files) looks like a SCID database: its .si4 exists.
pub fn looks_like(path: &Path) -> bool {
    with_ext(&base_path(path), "si4").is_file()
}

fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))
}

impl ScidDatabase {
    /// Open the database at `path` (its base path or any of its three files), reading the
    /// index and the names. Fails with a clear message when a file is missing or unreadable,
    /// is not SCID, or the index and names disagree.
    pub fn open(path: &Path) -> Result<ScidDatabase> {
        let base = base_path(path);
        let [si4, sn4, sg4] = EXTENSIONS.map(|ext| with_ext(&base, ext));
        let index = read_file(&si4)?;
        let header = IndexHeader::parse(&index).map_err(|e| e.context(si4.display()))?;
        let expected = header.layout.header_len() as u64
            + header.layout.entry_len() as u64 * u64::from(header.num_games);
        if index.len() as u64 != expected {
            return Err(Error::corrupt_database(format!(
                "{}: the header says {} games, which needs {expected} bytes, but the file has {} \
                 (truncated, or an interrupted write)",
                si4.display(),
                header.num_games,
                index.len()
            )));
        }
        let names = NameFile::parse(&read_file(&sn4)?).map_err(|e| e.context(sn4.display()))?;
        let games =
            File::open(&sg4).map_err(|e| Error::io(format!("cannot open {}", sg4.display()), e))?;
        let files = vec![si4, sn4, sg4];
        let info = StoreInfo {
            format: format!("SCID 4 (version {})", header.version),
            modified: newest_mtime(&files),
            created: newest_mtime(&files[..1]),
            files,
        };
        let db = ScidDatabase {
            info,
            header,
            index,
            names,
            games,
        };
        db.check_name_ids()?;
        Ok(db)
    }

    /// The parsed index header.
    pub fn header(&self) -> &IndexHeader {
        &self.header
    }

    /// The parsed name file.
    pub fn names(&self) -> &NameFile {
        &self.names
    }

    /// True for databases SCID only opens read-only (version 300).
    pub fn is_read_only_format(&self) -> bool {
        self.header.layout != Layout::V400
    }

    /// The index entry of game `number` (0-based, `< game_count()`).
    pub fn entry(&self, number: u32) -> IndexEntry {
        let layout = self.header.layout;
        let at = layout.header_len() + layout.entry_len() * number as usize;
        match layout {
            Layout::V400 => {
                IndexEntry::decode(self.index[at..at + 47].try_into().expect("47 bytes"))
            }
            Layout::V300 => {
                IndexEntry::decode_v300(self.index[at..at + 46].try_into().expect("46 bytes"))
            }
        }
    }

    /// The raw bytes of game `number`'s record.
    pub fn record_bytes(&self, number: u32) -> Result<Vec<u8>> {
        let entry = self.entry(number);
        let mut buf = vec![0u8; entry.length as usize];
        self.games
            .read_exact_at(&mut buf, u64::from(entry.offset))
            .map_err(|e| {
                let what = format!(
                    "game {}: cannot read {} bytes at offset {} of {}",
                    number + 1,
                    entry.length,
                    entry.offset,
                    self.info.files[2].display()
                );
                match e.kind() {
                    std::io::ErrorKind::UnexpectedEof => {
                        Error::corrupt_record(format!("{what}: the file is shorter"))
                    }
                    _ => Error::io(what, e),
                }
            })?;
        Ok(buf)
    }

    fn check_name_ids(&self) -> Result<()> {
        for n in 0..self.game_count() {
            let e = self.entry(n);
            for (kind, id) in [
                (NameKind::Player, e.white),
                (NameKind::Player, e.black),
                (NameKind::Event, e.event),
                (NameKind::Site, e.site),
                (NameKind::Round, e.round),
            ] {
                if id >= self.names.count(kind) {
                    return Err(Error::corrupt_database(format!(
                        "{}: game {} refers to {kind:?} name {id}, but the name file has only {}",
                        self.info.files[0].display(),
                        n + 1,
                        self.names.count(kind)
                    )));
                }
            }
        }
        Ok(())
    }

    fn headers(&self, e: &IndexEntry, extra: Vec<(String, String)>) -> Headers {
        let name = |kind, id| self.name(kind, id).to_owned();
        let mut headers = Headers {
            event: name(NameKind::Event, e.event),
            site: name(NameKind::Site, e.site),
            date: e.game_date(),
            round: name(NameKind::Round, e.round),
            white: name(NameKind::Player, e.white),
            black: name(NameKind::Player, e.black),
            result: e.game_result(),
            white_rating: e.white_rating(),
            black_rating: e.black_rating(),
            eco: eco_text(e.eco),
            event_date: e.game_event_date(),
            extra: Vec::with_capacity(extra.len()),
        };
        // An extra tag named like an index name overrides it, as in SCID's display and export.
        for (tag, value) in extra {
            match tag.as_str() {
                "Event" => headers.event = value,
                "Site" => headers.site = value,
                "Round" => headers.round = value,
                "White" => headers.white = value,
                "Black" => headers.black = value,
                _ => headers.extra.push((tag, value)),
            }
        }
        headers
    }
}

fn newest_mtime(files: &[PathBuf]) -> SystemTime {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

impl ChessStore for ScidDatabase {
    fn info(&self) -> &StoreInfo {
        &self.info
    }

    fn game_count(&self) -> u32 {
        self.header.num_games
    }

    fn summary(&self, number: u32) -> GameSummary {
        let e = self.entry(number);
        GameSummary {
            deleted: e.is_deleted(),
            white: e.white,
            black: e.black,
            event: e.event,
            site: e.site,
            round: e.round,
            date: e.game_date(),
            result: e.game_result(),
            eco: e.eco,
        }
    }

    fn name(&self, kind: NameKind, id: u32) -> &str {
        self.names
            .section(kind)
            .text
            .get(id as usize)
            .map_or("?", |s| s)
    }

    fn load(&self, number: u32) -> Result<ChessGame> {
        if number >= self.game_count() {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("no game {}", number + 1),
            ));
        }
        let entry = self.entry(number);
        let bytes = self.record_bytes(number)?;
        let record =
            record::decode(&bytes).map_err(|e| e.context(format_args!("game {}", number + 1)))?;
        Ok(ChessGame {
            headers: self.headers(&entry, record.extra_tags),
            start: record.start,
            moves: record.moves,
        })
    }
}
