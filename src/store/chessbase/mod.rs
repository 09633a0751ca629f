//! ChessBase databases (`.cbh` and the files beside it), read-only.
//!
//! The .cbh file numbers the entries (`headers`); chess games among them are the games of
//! the mount, numbered in order, and guiding texts (pages of text) are left out. A game's
//! moves are decoded from the .cbg file when it is read ([`moves`]); names come from the
//! entity files (`entities`), each game's teams through its extended header (.cbj); texts,
//! symbols, coloured squares and arrows from the .cba file (`annotations`). What gamefs
//! does not show yet (other annotations, guiding texts) is said once per kind among the
//! database's problems, so `.gamefs/errors` and
//! `gamefs check` tell it; nothing is left out silently. Writing is refused: `gamefs convert`
//! makes a SCID copy to write into. The byte layouts: docs/formats/chessbase.md.

mod annotations;
mod code_page;
mod entities;
mod headers;
pub mod moves;
mod nations;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::game::visit::{GameVisitor, walk};
use crate::game::{ChessGame, Headers, Rating, RatingType};
use crate::store::blob::Blob;
use crate::store::damage::{Damage, UNKNOWN_NAME, UNKNOWN_NAME_TEXT};
use crate::store::files::{base_path as base_of, modified, with_ext};
use crate::store::read_ahead::FixedFile;
use crate::store::{
    ChessStore, Each, Format, GameSummary, NameKind, Problem, StoreInfo, check_readable_game,
    in_game,
};
use code_page::CodePage;
use headers::{Entry, RECORD_LEN, decimal};

/// The file extensions of a ChessBase database gamefs reads, the index first.
pub const EXTENSIONS: [&str; 9] = [
    "cbh", "cbg", "cbp", "cbt", "cbc", "cbs", "cba", "cbe", "cbj",
];

/// The other files a ChessBase database may have, which gamefs does not read (search
/// boosters…): listed so a folder's or an archive's database is recognised whole.
pub const OTHER_EXTENSIONS: [&str; 7] = ["cbl", "cbm", "cbtt", "cbb", "cbgi", "cbpi", "flags"];

/// The length of the .cbj file's header (its version, record length and record count,
/// little-endian, then bytes of no known use).
const EXTENDED_HEADER_LEN: u64 = 32;

/// The tags beyond the roster that [`ChessBase::headers`] gives a game at most.
const EXTRA_TAGS: usize = 20;

/// The base path of a database given as its base or any of its files.
pub fn base_path(path: &Path) -> PathBuf {
    base_of(path, &EXTENSIONS)
}

/// True when `path` (base or one of the files) is a ChessBase database: its .cbh holds
/// 46-byte records.
pub fn looks_like(path: &Path) -> bool {
    let cbh = with_ext(&base_path(path), "cbh");
    let mut header = [0u8; 5];
    Blob::open(&cbh)
        .is_ok_and(|f| f.read_exact_at(&mut header, 0).is_ok() && header[3..5] == [0, 46])
}

/// The error every change to a ChessBase database gives.
fn read_only(base: &Path) -> Error {
    Error::new(
        ErrorKind::ReadOnly,
        format!(
            "{}: a ChessBase database is only read; `gamefs convert {0}.cbh COPY` makes a SCID \
             copy that gamefs writes into",
            base.display()
        ),
    )
}

/// An open ChessBase database.
pub struct ChessBase {
    base: PathBuf,
    files: Vec<PathBuf>,
    modified: std::time::SystemTime,
    /// The chess games' records, in .cbh order.
    entries: Vec<Entry>,
    /// How many of them are marked deleted (counted once: the base is read-only, and
    /// `.gamefs/stats` tells it on every read).
    deleted_count: u32,
    /// Each game's place among the .cbh records (1-based, as ChessBase numbers them).
    record_numbers: Vec<u32>,
    players: Vec<Arc<str>>,
    events: Vec<Arc<str>>,
    /// Each tournament's site, as an ID into `sites` (places shared by tournaments once).
    site_of: Vec<u32>,
    sites: Vec<Arc<str>>,
    /// The tournaments' other fields (date, type, country…), for their tags.
    tournaments: Vec<entities::Tournament>,
    annotators: Vec<Arc<str>>,
    sources: Vec<entities::Source>,
    games: FixedFile,
    /// The .cba file, when there is one.
    annotations: Option<FixedFile>,
    /// The teams (.cbe).
    teams: Vec<entities::Team>,
    /// The code page of the base's single-byte texts.
    code_page: CodePage,
    /// The .cbj file (extended headers: each game's teams) and its records' length, when
    /// there is one whose records hold the teams.
    extended: Option<(FixedFile, u64)>,
    damage: Damage,
    /// What reading a game found that its text shows only in part (its moves cut), by game:
    /// handed over once ([`ChessStore::take_note`]), then kept as `None` so it is not again.
    notes: std::sync::Mutex<std::collections::HashMap<u32, Option<String>>>,
}

/// The notes of the games read, whatever a panicking reader left.
fn lock_notes(
    notes: &std::sync::Mutex<std::collections::HashMap<u32, Option<String>>>,
) -> std::sync::MutexGuard<'_, std::collections::HashMap<u32, Option<String>>> {
    notes.lock().unwrap_or_else(|p| p.into_inner())
}

/// The bytes of the database's file `ext`, empty when it is missing.
fn optional(base: &Path, ext: &str) -> Result<Vec<u8>> {
    let path = with_ext(base, ext);
    match Blob::open(&path) {
        Ok(blob) => blob.read_all().map_err(|e| e.context(path.display())),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e.context(path.display())),
    }
}

impl ChessBase {
    /// Open the database at `path` (its base or any of its files). Asked for writing, it
    /// refuses with [`ErrorKind::ReadOnly`], so a mount falls back to read-only.
    pub fn open(path: &Path, writable: bool) -> Result<ChessBase> {
        let base = base_path(path);
        if writable {
            return Err(read_only(&base));
        }
        let cbh_path = with_ext(&base, "cbh");
        let cbh = Blob::open(&cbh_path).map_err(|e| e.context(cbh_path.display()))?;
        let cbh_len = cbh.len()?;
        // The records are read a stretch at a time, never the whole file at once: only their
        // entries are kept.
        let mut records =
            std::io::BufReader::with_capacity(1 << 16, crate::store::blob::Reader::to_end(&cbh, 0));
        let mut record = [0u8; RECORD_LEN];
        let got = crate::store::blob::read_full(&mut records, &mut record)
            .map_err(|e| Error::io(format!("cannot read {}", cbh_path.display()), e))?;
        let count = headers::record_count(&record[..got], cbh_len)
            .map_err(|e| e.context(cbh_path.display()))?;
        let games_path = with_ext(&base, "cbg");
        let games = Blob::open(&games_path)
            .and_then(FixedFile::new)
            .map_err(|e| e.context(games_path.display()))?;
        let games_len = games.len();
        let cba_path = with_ext(&base, "cba");
        let annotations = match Blob::open(&cba_path).and_then(FixedFile::new) {
            Ok(file) => Some(file),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(e.context(cba_path.display())),
        };
        let mut annotated = 0u32;
        let mut damage = Damage::default();
        let left = (cbh_len - RECORD_LEN as u64) % RECORD_LEN as u64;
        if left != 0 {
            damage.database(format!(
                "{}: {left} bytes after the last whole record are left out",
                cbh_path.display(),
            ));
        }
        let [cbp, cbt, cbc, cbs, cbe] =
            ["cbp", "cbt", "cbc", "cbs", "cbe"].map(|ext| optional(&base, ext));
        let (cbp, cbt, cbc, cbs, cbe) = (cbp?, cbt?, cbc?, cbs?, cbe?);
        let code_page = Self::code_page(
            [
                (&cbp[..], &entities::PLAYERS),
                (&cbt, &entities::TOURNAMENTS),
                (&cbc, &entities::ANNOTATORS),
                (&cbs, &entities::SOURCES),
                (&cbe, &entities::TEAMS),
            ],
            annotations.as_ref(),
            &cba_path,
        )?;
        let players = entities::players(&cbp, code_page)?;
        let tournaments = entities::tournaments(&cbt, code_page)?;
        let annotators = entities::annotators(&cbc, code_page)?;
        let sources = entities::sources(&cbs, code_page)?;
        let teams = entities::teams(&cbe, code_page)?;
        if code_page != CodePage::default() {
            log::info!("{}: texts read as {}", cbh_path.display(), code_page.name());
        }
        let extended = Self::open_extended(&base, count, &mut damage)?;
        let mut sites: Vec<Arc<str>> = Vec::new();
        let mut site_ids = std::collections::HashMap::new();
        let site_of = tournaments
            .iter()
            .map(|t| {
                *site_ids.entry(t.place.clone()).or_insert_with(|| {
                    sites.push(Arc::from(t.place.as_str()));
                    sites.len() as u32 - 1
                })
            })
            .collect();
        // As many as the file's length holds records (it bounds them, whatever it says).
        let mut entries = Vec::with_capacity(count);
        let mut record_numbers = Vec::with_capacity(count);
        let mut texts = 0u32;
        let mut kinds = [0u32; headers::ANNOTATION_KINDS.len()];
        for i in 0..count {
            records.read_exact(&mut record).map_err(|e| {
                Error::io(
                    format!("cannot read record {} of {}", i + 1, cbh_path.display()),
                    e,
                )
            })?;
            let entry = Entry::read(&record);
            if entry.text {
                texts += 1;
                continue;
            }
            let n = entries.len() as u32;
            if u64::from(entry.moves_at) + moves::HEADER_LEN as u64 > games_len {
                damage.unreadable(
                    n,
                    format!(
                        "{}: its moves at byte {} are past the end of the file ({games_len} \
                         bytes)",
                        games_path.display(),
                        entry.moves_at
                    ),
                );
            }
            for (id, list, what) in [
                (entry.white, players.len(), "White's player"),
                (entry.black, players.len(), "Black's player"),
                (entry.tournament, tournaments.len(), "tournament"),
            ] {
                if id as usize >= list {
                    damage.item(n, format!("{what} {id} is not in the database's list"));
                }
            }
            for (k, &(bits, _)) in headers::ANNOTATION_KINDS.iter().enumerate() {
                if entry.flags & bits & !annotations::SHOWN != 0 && entry.annotations_at != 0 {
                    kinds[k] += 1;
                }
            }
            if entry.annotations_at != 0 {
                annotated += 1;
            }
            entries.push(entry);
            record_numbers.push(i as u32 + 1);
        }
        drop(records);
        entries.shrink_to_fit();
        record_numbers.shrink_to_fit();
        for (k, &(_, what)) in headers::ANNOTATION_KINDS.iter().enumerate() {
            if kinds[k] > 0 {
                damage.database(format!(
                    "{what} (.cba) are not shown yet: {} game(s) have them",
                    kinds[k]
                ));
            }
        }
        if annotations.is_none() && annotated > 0 {
            damage.database(format!(
                "{}: missing, so the annotations of {annotated} games are not shown",
                cba_path.display()
            ));
        }
        if texts > 0 {
            damage.database(format!(
                "guiding texts (pages of text, not games) are not shown: {texts} of them"
            ));
        }
        damage.sort();
        let files: Vec<PathBuf> = EXTENSIONS
            .iter()
            .chain(&OTHER_EXTENSIONS)
            .map(|ext| with_ext(&base, ext))
            .filter(|p| p.is_file())
            .collect();
        let modified = files
            .iter()
            .filter_map(|p| modified(p))
            .max()
            .unwrap_or(std::time::UNIX_EPOCH);
        Ok(ChessBase {
            base,
            files,
            modified,
            deleted_count: entries.iter().filter(|e| e.deleted).count() as u32,
            entries,
            record_numbers,
            players,
            events: tournaments
                .iter()
                .map(|t| Arc::from(t.title.as_str()))
                .collect(),
            site_of,
            sites,
            tournaments,
            annotators,
            sources,
            games,
            annotations,
            teams,
            code_page,
            extended,
            damage,
            notes: Default::default(),
        })
    }

    /// The code page of the base's single-byte texts ([`CodePage::detect`]): told from the
    /// texts of its entity files (each with its kind) and of the first blocks of its .cba
    /// (at `cba_path`), as many as it takes.
    fn code_page(
        files: [(&[u8], &entities::Kind); 5],
        cba: Option<&FixedFile>,
        cba_path: &Path,
    ) -> Result<CodePage> {
        /// The bytes of the .cba read for its first blocks' texts.
        const SAMPLE: u64 = 1 << 20;
        let sample = match cba {
            Some(cba) => {
                let mut bytes = vec![0; cba.len().min(SAMPLE) as usize];
                cba.read_exact_at(&mut bytes, 0)
                    .map_err(|e| Error::io(format!("cannot read {}", cba_path.display()), e))?;
                bytes
            }
            None => Vec::new(),
        };
        let mut entity_texts = Vec::with_capacity(files.len());
        for (bytes, kind) in files {
            entity_texts.push(entities::texts(bytes, kind)?);
        }
        let annotation_texts = annotations::first_blocks(&sample).flat_map(annotations::texts);
        Ok(CodePage::detect(
            entity_texts.into_iter().flatten().chain(annotation_texts),
        ))
    }

    /// The .cbj file and its records' length; none when there is no file, or its records
    /// are too short to name teams. Fewer records than the .cbh's is said among the problems.
    fn open_extended(
        base: &Path,
        records: usize,
        damage: &mut Damage,
    ) -> Result<Option<(FixedFile, u64)>> {
        let path = with_ext(base, "cbj");
        let blob = match Blob::open(&path).and_then(FixedFile::new) {
            Ok(blob) => blob,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.context(path.display())),
        };
        let mut header = [0u8; 12];
        if blob.read_exact_at(&mut header, 0).is_err() {
            damage.database(format!(
                "{}: shorter than its header, so no game's teams are shown",
                path.display()
            ));
            return Ok(None);
        }
        let len = u64::from(u32::from_le_bytes([
            header[4], header[5], header[6], header[7],
        ]));
        // Records too short to name teams, or longer than any ChessBase writes (120 bytes
        // today): no teams.
        if !(8..=1 << 16).contains(&len) {
            return Ok(None);
        }
        let held = blob.len().saturating_sub(EXTENDED_HEADER_LEN) / len;
        if held < records as u64 {
            damage.database(format!(
                "{}: {held} records for {records} games, so the games after them show no teams",
                path.display()
            ));
        }
        Ok(Some((blob, len)))
    }

    /// The White and the Black team of game `number`, as the .cbj file names them.
    fn teams_of(&self, number: u32) -> [Option<&entities::Team>; 2] {
        let Some((cbj, len)) = &self.extended else {
            return [None, None];
        };
        let record = u64::from(self.record_numbers[number as usize]) - 1;
        let mut ids = [0u8; 8];
        if cbj
            .read_exact_at(&mut ids, EXTENDED_HEADER_LEN + record * len)
            .is_err()
        {
            return [None, None];
        }
        [&ids[..4], &ids[4..]].map(|id| {
            let id = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
            self.teams.get(id as usize)
        })
    }

    /// The annotator `entry` names, if any.
    fn annotator_of(&self, entry: &Entry) -> Option<&Arc<str>> {
        self.annotators
            .get(entry.annotator as usize)
            .filter(|a| !a.is_empty())
    }

    /// The entry of game `number`.
    fn entry(&self, number: u32) -> Result<&Entry> {
        check_readable_game(&self.damage, number, self.game_count())?;
        Ok(&self.entries[number as usize])
    }

    /// A name from `list`, `?` when the ID is not there.
    fn named(list: &[Arc<str>], id: u32) -> Arc<str> {
        list.get(id as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from(UNKNOWN_NAME_TEXT))
    }

    /// The tags of a game, those beyond the roster, ratings and ECO as ChessBase's PGN
    /// export writes them and in its order (docs/formats/chessbase.md §3): with the game's
    /// moves decoded (`shape`), Variant (Chess960), SetUp (a set-up start), PlyCount and the
    /// final clocks too.
    fn headers(&self, number: u32, shape: Option<Shape<'_>>) -> Headers {
        let entry = &self.entries[number as usize];
        // Room for the tags a game has at most, rather than the doublings of an empty list.
        let mut extra = Vec::with_capacity(EXTRA_TAGS);
        let mut tag = |name: &str, value: String| extra.push((name.to_owned(), value));
        if let Some(a) = self.annotator_of(entry) {
            tag("Annotator", a.to_string());
        }
        if let Some(Shape { start, plies, .. }) = shape {
            if matches!(start, crate::game::StartPosition::Chess960(_)) {
                tag("Variant", "chess 960".to_owned());
            }
            if *start != crate::game::StartPosition::Standard {
                tag("SetUp", "1".to_owned());
            }
            // A record's length has three bytes, so its plies fit.
            tag("PlyCount", decimal(plies as u32));
        }
        let tournament = self.tournaments.get(entry.tournament as usize);
        if let Some(t) = tournament {
            if let Some(kind) = t.event_type() {
                tag("EventType", kind);
            }
            if t.rounds > 0 {
                tag("EventRounds", decimal(t.rounds.into()));
            }
            if let Some(country) = nations::code(t.nation) {
                tag("EventCountry", country.to_owned());
            }
            if t.category > 0 {
                tag("EventCategory", decimal(t.category.into()));
            }
        }
        if let Some(s) = self.sources.get(entry.source as usize) {
            let known = |d: crate::game::PartialDate| (!d.is_unknown()).then(|| d.pgn());
            let named = !s.title.is_empty() || !s.publisher.is_empty();
            let tags = [
                (
                    "SourceTitle",
                    Some(s.title.clone()).filter(|t| !t.is_empty()),
                ),
                (
                    "Source",
                    Some(s.publisher.clone()).filter(|t| !t.is_empty()),
                ),
                // ChessBase writes the date published only for a source with a name.
                ("SourceDate", known(s.published).filter(|_| named)),
                (
                    "SourceVersion",
                    (s.version > 0).then(|| decimal(s.version.into())),
                ),
                ("SourceVersionDate", known(s.date)),
                (
                    "SourceQuality",
                    (s.quality > 0).then(|| decimal(s.quality.into())),
                ),
            ];
            for (name, value) in tags {
                if let Some(value) = value {
                    tag(name, value);
                }
            }
        }
        let [white_team, black_team] = self.teams_of(number);
        for (name, team) in [("WhiteTeam", white_team), ("BlackTeam", black_team)] {
            if let Some(t) = team.filter(|t| !t.name.is_empty()) {
                tag(name, t.name.clone());
            }
        }
        for (name, team) in [
            ("WhiteTeamCountry", white_team),
            ("BlackTeamCountry", black_team),
        ] {
            if let Some(country) = team.and_then(|t| nations::code(t.nation)) {
                tag(name, country.to_owned());
            }
        }
        let clocks = shape.map(|s| s.clocks).unwrap_or_default();
        for (name, clock) in [("WhiteClock", clocks[0]), ("BlackClock", clocks[1])] {
            if let Some(centis) = clock {
                tag(name, annotations::clock_text(centis));
            }
        }
        // The names copied as they are (`to_string` would take a formatter for each).
        Headers {
            event: String::from(&*Self::named(&self.events, entry.tournament)),
            site: String::from(&*self.name(NameKind::Site, self.site_id(entry))),
            date: entry.date,
            round: Entry::round_text(entry.round, entry.subround),
            white: String::from(&*Self::named(&self.players, entry.white)),
            black: String::from(&*Self::named(&self.players, entry.black)),
            result: headers::result(entry.result),
            white_rating: rating(entry.white_elo),
            black_rating: rating(entry.black_elo),
            eco: headers::eco_text(entry.eco),
            event_date: tournament.map(|t| t.date).filter(|d| !d.is_unknown()),
            extra,
        }
    }

    /// The site ID of a game: its tournament's place.
    fn site_id(&self, entry: &Entry) -> u32 {
        self.site_of
            .get(entry.tournament as usize)
            .copied()
            .unwrap_or(UNKNOWN_NAME)
    }

    /// The bytes of game `number`'s moves record in the .cbg file.
    fn record(&self, entry: &Entry) -> Result<Vec<u8>> {
        let at = u64::from(entry.moves_at);
        sized_record(&self.games, at, ".cbg", |head: [u8; moves::HEADER_LEN]| {
            Ok(moves::record_len(head))
        })
    }

    /// The bytes of a game's block of annotations in the .cba file; empty when it has none
    /// (or the file is missing, which the problems say).
    fn annotation_block(&self, entry: &Entry) -> Result<Vec<u8>> {
        let (Some(cba), at) = (&self.annotations, u64::from(entry.annotations_at)) else {
            return Ok(Vec::new());
        };
        if at == 0 {
            return Ok(Vec::new());
        }
        sized_record(cba, at, ".cba", |head| annotations::block_len(&head))
    }

    /// Game `number`'s move record and its annotations, as [`moves::decode_annotated`] and
    /// [`moves::decode_main_line`] take them. The clocks of the start position (the game's
    /// final clocks, White's and Black's) are taken out as `clocks`; a clock on a move
    /// becomes its `[%clk]`.
    fn stored(&self, entry: &Entry) -> Result<Stored> {
        let record = self.record(entry)?;
        let block = self.annotation_block(entry)?;
        let mut notes = if block.is_empty() {
            Vec::new()
        } else {
            annotations::read(&block, self.code_page)?
        };
        let mut clocks = [None, None];
        notes.retain_mut(|(node, note)| {
            let annotations::Note::Clock { white, centis } = *note else {
                return true;
            };
            if *node == 0 {
                clocks[usize::from(!white)] = Some(centis);
                return false;
            }
            let text = annotations::clock_text(centis);
            *note = annotations::Note::Code(format!("[%clk {text}]"));
            true
        });
        Ok(Stored {
            record,
            notes,
            clocks,
        })
    }

    /// Game `number` decoded from its `stored` record and annotations into the model; a game
    /// whose moves stop early ([`moves::Moves::cut`]) is noted ([`ChessStore::take_note`]).
    fn game(&self, number: u32, stored: &Stored) -> Result<ChessGame> {
        let moves = moves::decode_annotated(&stored.record, &stored.notes)
            .map_err(|e| {
                e.context(format_args!(
                    "record {}",
                    self.record_numbers[number as usize]
                ))
            })
            .map_err(|e| in_game(e, number))?;
        if let Some(cut) = &moves.cut {
            // ChessBase shows the game so too; said once, where problems are said.
            let note = format!(
                "record {}: the moves stop at {cut}; the game ends there, as ChessBase ends it",
                self.record_numbers[number as usize]
            );
            log::info!("{}: game {}: {note}", self.base.display(), number + 1);
            lock_notes(&self.notes).entry(number).or_insert(Some(note));
        }
        let shape = Shape {
            start: &moves.start,
            plies: moves.line.plies(),
            clocks: stored.clocks,
        };
        Ok(ChessGame {
            headers: self.headers(number, Some(shape)),
            start: moves.start,
            moves: moves.line,
        })
    }
}

impl ChessStore for ChessBase {
    fn info(&self) -> StoreInfo {
        StoreInfo {
            format: "ChessBase (.cbh, read-only)".to_owned(),
            files: self.files.clone(),
            modified: self.modified,
        }
    }

    fn game_count(&self) -> u32 {
        self.entries.len() as u32
    }

    fn deleted(&self, number: u32) -> bool {
        self.entries[number as usize].deleted
    }

    fn deleted_count(&self) -> u32 {
        self.deleted_count
    }

    fn summary(&self, number: u32) -> GameSummary {
        let e = &self.entries[number as usize];
        GameSummary {
            deleted: e.deleted,
            white: e.white,
            black: e.black,
            event: e.tournament,
            site: self.site_id(e),
            round: u32::from(e.round) << 8 | u32::from(e.subround),
            date: e.date,
            result: headers::result(e.result),
            eco: headers::scid_eco(e.eco),
        }
    }

    fn ratings(&self, number: u32) -> [u16; 2] {
        let e = &self.entries[number as usize];
        [e.white_elo, e.black_elo].map(|v| crate::store::rating_value(rating(v)))
    }

    fn ratings_in_index(&self) -> bool {
        true
    }

    fn name(&self, kind: NameKind, id: u32) -> Arc<str> {
        match kind {
            NameKind::Player => Self::named(&self.players, id),
            NameKind::Event => Self::named(&self.events, id),
            NameKind::Site => Self::named(&self.sites, id),
            NameKind::Round => Arc::from(Entry::round_text((id >> 8) as u8, id as u8)),
        }
    }

    fn problems(&self) -> Vec<Problem> {
        self.damage.problems().to_vec()
    }

    fn load(&self, number: u32) -> Result<ChessGame> {
        let entry = self.entry(number)?;
        let stored = self.stored(entry).map_err(|e| in_game(e, number))?;
        self.game(number, &stored)
    }

    /// A game without variations (most games) is told in one pass, its moves played once
    /// and no tree built (`moves::tell_one_pass`); any other, as `load` and a walk of its
    /// tree tell it (the trait's way).
    fn visit(&self, number: u32, visitor: &mut dyn GameVisitor) -> Result<()> {
        let entry = self.entry(number)?;
        let stored = self.stored(entry).map_err(|e| in_game(e, number))?;
        let headers = |start: &crate::game::StartPosition, plies| {
            let shape = Shape {
                start,
                plies,
                clocks: stored.clocks,
            };
            self.headers(number, Some(shape))
        };
        if let Some(told) = moves::tell_one_pass(&stored.record, &stored.notes, visitor, headers) {
            return told.map_err(|e| in_game(e, number));
        }
        let game = self.game(number, &stored)?;
        walk(&game, visitor).map_err(|e| in_game(e, number))
    }

    fn take_note(&self, number: u32) -> Option<String> {
        lock_notes(&self.notes).get_mut(&number)?.take()
    }

    fn annotator(&self, number: u32) -> Option<String> {
        let entry = self.entries.get(number as usize)?;
        self.annotator_of(entry).map(|a| a.to_string())
    }

    fn writable(&self) -> bool {
        false
    }

    fn format(&self) -> Format {
        Format::ChessBase
    }

    fn replace(&self, _number: u32, _game: &ChessGame) -> Result<bool> {
        Err(read_only(&self.base))
    }

    fn append_each(
        &self,
        _games: &mut dyn Iterator<Item = Result<ChessGame>>,
        _each: Option<Each<'_>>,
    ) -> Result<Vec<u32>> {
        Err(read_only(&self.base))
    }

    fn set_deleted(&self, _number: u32, _deleted: bool) -> Result<()> {
        Err(read_only(&self.base))
    }

    fn reload_if_changed(&self) -> Result<bool> {
        Ok(false)
    }

    fn fingerprint(&self, number: u32) -> Option<u64> {
        let entry = self.entry(number).ok()?;
        let mut bytes = self.record(entry).ok()?;
        bytes.extend(self.annotation_block(entry).ok()?);
        Some(crate::store::fingerprint_of(
            &self.headers(number, None),
            &bytes,
        ))
    }
}

/// The body of the `chessbase_files` fuzz target ([`crate::fuzzing`]): `data` as a .cbh file
/// and as each entity file, read as [`ChessBase::open`] reads them; errors are fine, panics
/// and allocations out of proportion to `data` are not.
pub(crate) fn fuzz_files(data: &[u8]) {
    if let Ok(count) = headers::record_count(data, data.len() as u64) {
        for record in data[RECORD_LEN..].chunks_exact(RECORD_LEN).take(count) {
            let entry = Entry::read(record.try_into().expect("46-byte chunk"));
            let _ = Entry::round_text(entry.round, entry.subround);
            let _ = (headers::eco_text(entry.eco), headers::scid_eco(entry.eco));
        }
    }
    let page = CodePage::detect(
        [&entities::PLAYERS, &entities::TEAMS]
            .into_iter()
            .filter_map(|kind| entities::texts(data, kind).ok())
            .flatten()
            .chain(annotations::first_blocks(data).flat_map(annotations::texts)),
    );
    if let Ok(players) = entities::players(data, page) {
        assert!(players.len() <= data.len() / 9);
    }
    if let Ok(tournaments) = entities::tournaments(data, page) {
        for t in tournaments {
            let _ = (t.event_type(), nations::code(t.nation));
        }
    }
    let _ = entities::annotators(data, page);
    let _ = entities::sources(data, page);
    let _ = entities::teams(data, page);
    let _ = annotations::read(data, page);
}

/// A game's move record and annotations as stored ([`ChessBase::stored`]), with the clocks
/// its annotations give for its end (White's, Black's, in hundredths of a second).
struct Stored {
    record: Vec<u8>,
    notes: annotations::Notes,
    clocks: [Option<u32>; 2],
}

/// What a game's tags need of its decoded moves ([`ChessBase::headers`]): where it starts,
/// the plies of its main line, and its final clocks.
#[derive(Clone, Copy)]
struct Shape<'a> {
    start: &'a crate::game::StartPosition,
    plies: usize,
    clocks: [Option<u32>; 2],
}

/// A rating of the .cbh file: an Elo, none when 0.
fn rating(value: u16) -> Option<Rating> {
    (value > 0).then_some(Rating {
        value,
        kind: RatingType::Elo,
    })
}

/// The record at byte `at` of `file` (`name` in errors), whose length (at least `HEAD`
/// bytes) `len_of` reads from its first `HEAD` bytes.
fn sized_record<const HEAD: usize>(
    file: &FixedFile,
    at: u64,
    name: &str,
    len_of: impl FnOnce([u8; HEAD]) -> Result<usize>,
) -> Result<Vec<u8>> {
    let mut head = [0u8; HEAD];
    file.read_exact_at(&mut head, at)
        .map_err(|e| Error::corrupt_record(format!("{name} at byte {at}: {e}")))?;
    let len = len_of(head)?.max(HEAD);
    let mut record = vec![0u8; len];
    file.read_exact_at(&mut record, at).map_err(|_| {
        Error::corrupt_record(format!(
            "{name}: the record at byte {at} of {len} bytes runs past the end of the file"
        ))
    })?;
    Ok(record)
}

#[cfg(test)]
mod tests;
