//! Chess databases (any [`ChessStore`]) as collections of PGN files named
//! `NUMBER WHITE - BLACK YEAR.pgn`, grouped by players, events, sites, years and ECO codes.

use std::cell::RefCell;
use std::sync::Arc;

use super::Collection;
use super::import::{ChangedGame, ImportReport, OnBadGame, SkippedGame, TEXTS_TOLD};
use crate::collection::naming::{game_file_name, game_number_of, number_width};
use crate::error::{Error, ErrorKind, Result};
use crate::game::visit::MainLine;
use crate::store::{ChessStore, Each, Format, GameSummary, NameKind, Problem, StoreInfo, eco_text};
use crate::text::pgn_parse::Reading;
use crate::text::{DoneWith, pgn, pgn_chunks, pgn_parse};

/// Append the games of the PGN `text` to `store`: every game it can hold, leaving out and
/// reporting the others, or (with [`OnBadGame::RefuseAll`]) all or nothing. With
/// `may_be_cut_short` (a file copied into a mount, which a copy stopped half-way leaves cut
/// short) a last game without its result is left out when the text stops inside a line or
/// holds other games: never half a game. `progress` sees each game, `done_with` each part of
/// `text` parsed. Parsing runs on threads of their own (one per core), ahead of encoding and
/// writing, so an import uses every core; the games arrive in text order as one parser would
/// give them.
pub fn append_pgn(
    store: &dyn ChessStore,
    text: &[u8],
    on_bad: OnBadGame,
    may_be_cut_short: bool,
    done_with: DoneWith<'_>,
    progress: &mut dyn FnMut(u32),
) -> Result<ImportReport> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let report = RefCell::new(ImportReport::default());
    // The place of the game the store took last: what it says of a game is of that one.
    let last = RefCell::new((0, 0, 0..0));
    // Where each of the first games given to the store stands in the text (a refused one
    // taken out again), and whether the last one given was placed.
    let given = RefCell::new((Vec::new(), false));
    // A bulk import reads odd text as the format's own importer does; all or nothing keeps
    // the exact reading of saves.
    let reading = match (on_bad, store.format()) {
        (OnBadGame::RefuseAll, _) => Reading::Exact,
        (OnBadGame::Skip, Format::Scid | Format::PgnFile | Format::ChessBase) => Reading::AsScid,
        (OnBadGame::Skip, Format::Scid5) => Reading::AsScid5,
        (OnBadGame::Skip, Format::SimpleCdb) => Reading::AsPgn2dcg,
    };
    // A game SCID's import keeps cut short is kept so by a bulk import into SCID.
    let keep_cut = matches!(reading, Reading::AsScid | Reading::AsScid5)
        && matches!(store.format(), Format::Scid | Format::Scid5);
    let how = pgn_chunks::How {
        reading,
        skim: false,
        keep_cut,
    };
    let numbers = pgn_chunks::with_games_read(
        text,
        how,
        threads,
        pgn_chunks::Split::DEFAULT,
        done_with,
        |games| {
            let mut count = 0;
            let mut games = games.peekable();
            // A text that stops inside a line was cut short (a copy stopped half-way).
            let ends_a_line = text
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .any(|&b| b == b'\n');
            let mut games = std::iter::from_fn(|| {
                let g = games.next()?;
                // The last game with no result, after others or where the text stops inside
                // a line: the text was cut short, and this is half a game.
                let cut_short = matches!(&g, Ok(read) if !read.ended
                    && (read.number > 1 || !ends_a_line))
                    && games.peek().is_none()
                    && may_be_cut_short
                    && on_bad == OnBadGame::Skip;
                Some(match g {
                    Ok(read) if cut_short => Err(cut_short_game(read)),
                    g => g,
                })
            })
            .filter_map(|g| {
                count += 1;
                progress(count);
                match g {
                    Ok(read) => {
                        if !read.changes.is_empty() || read.salvaged {
                            let mut changes: Vec<String> = read
                                .changes
                                .iter()
                                .map(|(line, what)| format!("line {line}: {what}"))
                                .collect();
                            if let Some(cut) = &read.cut {
                                changes.push(format!("line {}: {}", cut.line, cut.describe(text)));
                            }
                            report.borrow_mut().changed.push(ChangedGame {
                                number: read.number,
                                line: read.line,
                                changes,
                                to_mend: read.salvaged.then(|| read.text.clone()),
                            });
                        }
                        let (placed, last_placed) = &mut *given.borrow_mut();
                        *last_placed = placed.len() < TEXTS_TOLD;
                        if *last_placed {
                            placed.push(read.text.clone());
                        }
                        *last.borrow_mut() = (read.number, read.line, read.text);
                        Some(Ok(read.game))
                    }
                    Err(e) if on_bad == OnBadGame::Skip => {
                        let (number, line, text) = (e.game, e.line, e.text.clone());
                        let reason = format!("column {}: {}", e.column, e.message);
                        report.borrow_mut().skipped.push(SkippedGame {
                            number,
                            line,
                            reason,
                            kind: Error::from(e).kind(),
                            text,
                        });
                        None
                    }
                    Err(e) => Some(Err(Error::from(e))),
                }
            });
            match on_bad {
                OnBadGame::RefuseAll => store.append(&mut games),
                OnBadGame::Skip => store.append_each(
                    &mut games,
                    Some(Each {
                        fit: true,
                        refused: &mut |e: Error| {
                            let (number, line, text) = last.borrow().clone();
                            if let (placed, true) = &mut *given.borrow_mut() {
                                placed.pop();
                            }
                            let mut report = report.borrow_mut();
                            // Fitted first, then still refused: it was not stored.
                            if report.changed.last().is_some_and(|c| c.number == number) {
                                report.changed.pop();
                            }
                            report.skipped.push(SkippedGame {
                                number,
                                line,
                                reason: e.message().to_owned(),
                                kind: e.kind(),
                                text,
                            });
                        },
                        changed: &mut |changes| {
                            let (number, line, _) = last.borrow().clone();
                            let changed = &mut report.borrow_mut().changed;
                            match changed.last_mut() {
                                // Read with changes, then fitted too.
                                Some(c) if c.number == number => c.changes.extend(changes),
                                _ => changed.push(ChangedGame {
                                    number,
                                    line,
                                    changes,
                                    to_mend: None,
                                }),
                            }
                        },
                    }),
                ),
            }
        },
    )?;
    let (texts, _) = given.into_inner();
    Ok(ImportReport {
        texts: if texts.len() == numbers.len().min(TEXTS_TOLD) {
            texts
        } else {
            Vec::new()
        },
        numbers,
        ..report.into_inner()
    })
}

/// The refusal of `read`, the last game of a text, which ends before its result.
fn cut_short_game(read: pgn_parse::ReadGame) -> pgn_parse::ParseError {
    pgn_parse::ParseError {
        line: read.line,
        column: 1,
        game: read.number,
        kind: pgn_parse::ParseErrorKind::Invalid,
        message: "the text ends before this game's result (1-0, 0-1, 1/2-1/2 or *): cut short? \
                  Add the result to store it"
            .to_owned(),
        text: read.text,
    }
}

/// Game `number` of `store` as PGN: told straight from the store to the writer (one decode,
/// no move tree), or through the model for the rare stored game whose annotations come in an
/// order the writer cannot take in one pass. The same bytes either way.
pub fn render_pgn(store: &dyn ChessStore, number: u32) -> Result<String> {
    // Room for most games' text at once, rather than the doublings of an empty string: a
    // read of an all-file renders here every game not rendered ahead of it.
    let mut out = String::with_capacity(TEXT_AHEAD);
    render_pgn_into(store, number, &mut out)?;
    Ok(out)
}

/// The bytes [`render_pgn`] makes room for: more than most games' text (a game of the
/// benchmark's corpus renders to 1.3 KB on average).
const TEXT_AHEAD: usize = 4096;

/// [`render_pgn`] appended to `out` (an export renders many games into one buffer); on an
/// error `out` is left as it was.
pub fn render_pgn_into(store: &dyn ChessStore, number: u32, out: &mut String) -> Result<()> {
    let had = out.len();
    let style = pgn_style(store.format());
    let mut writer = pgn::PgnWriter::appending_to(std::mem::take(out)).in_style(style);
    let told = store.visit(number, &mut writer);
    let reordered = writer.reordered();
    *out = writer.finish();
    let Err(e) = told else {
        return Ok(());
    };
    // Take back what was written of the game before the error.
    out.truncate(had);
    if !reordered {
        return Err(e);
    }
    let text = pgn::render_in(&store.load(number)?, style)
        .map_err(|e| e.context(format_args!("game {}", number + 1)))?;
    out.push_str(&text);
    Ok(())
}

/// How the games of a database of `format` are written: as ChessBase's export writes them for
/// a ChessBase database, in the PGN standard's export format (as SCID writes) otherwise.
fn pgn_style(format: Format) -> pgn::Style {
    match format {
        Format::ChessBase => pgn::Style::ChessBase,
        _ => pgn::Style::Standard,
    }
}

/// The chess views, in the order they appear in the root folder.
const VIEWS: [&str; 5] = ["players", "events", "sites", "years", "eco"];

/// A chess store shown as PGN files.
pub struct ChessCollection {
    store: Arc<dyn ChessStore>,
}

impl ChessCollection {
    /// Show `store` as PGN files.
    pub fn new(store: Arc<dyn ChessStore>) -> ChessCollection {
        ChessCollection { store }
    }

    /// The store behind the collection.
    pub fn store(&self) -> &dyn ChessStore {
        &*self.store
    }
}

impl Collection for ChessCollection {
    fn items_folder(&self) -> &'static str {
        "games"
    }

    fn extension(&self) -> &'static str {
        "pgn"
    }

    fn has_delete_mark(&self) -> bool {
        true
    }

    fn info(&self) -> StoreInfo {
        self.store.info()
    }

    fn writable(&self) -> bool {
        self.store.writable()
    }

    fn count(&self) -> u32 {
        self.store.game_count()
    }

    fn deleted(&self, n: u32) -> bool {
        self.store.deleted(n)
    }

    fn deleted_count(&self) -> u32 {
        self.store.deleted_count()
    }

    fn file_name(&self, n: u32) -> String {
        let s = self.store.summary(n);
        let white = self.store.name(NameKind::Player, s.white);
        let black = self.store.name(NameKind::Player, s.black);
        game_file_name(
            n,
            number_width(self.store.game_count()),
            &white,
            &black,
            s.date.year,
        )
    }

    fn item_label(&self, n: u32) -> String {
        format!("game {}", n + 1)
    }

    fn problems(&self) -> Vec<Problem> {
        self.store.problems()
    }

    fn item_named(&self, name: &[u8]) -> Option<u32> {
        game_number_of(name)
    }

    fn views(&self) -> Vec<String> {
        VIEWS.iter().map(|v| v.to_string()).collect()
    }

    fn view_keys(&self, view: usize, n: u32) -> Vec<u32> {
        if !self.store.classified(n) {
            return Vec::new();
        }
        group_keys(view, &self.store.summary(n)).collect()
    }

    fn view_members(&self, view: usize) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.store.game_count() as usize);
        for n in 0..self.store.game_count() {
            let s = self.store.summary(n);
            if !s.deleted && self.store.classified(n) {
                out.extend(group_keys(view, &s).map(|key| (key, n)));
            }
        }
        out
    }

    fn view_group_count(&self, view: usize) -> usize {
        let mut keys = crate::store::distinct_ids::DistinctIds::default();
        for n in 0..self.store.game_count() {
            let s = self.store.summary(n);
            if !s.deleted && self.store.classified(n) {
                group_keys(view, &s).for_each(|key| keys.insert(key));
            }
        }
        keys.len()
    }

    fn view_has_sides(&self, view: usize) -> bool {
        // `group_keys`: White's name, then Black's.
        view == 0
    }

    fn view_label(&self, view: usize, key: u32) -> String {
        match view {
            0 => self.store.name(NameKind::Player, key).to_string(),
            1 => self.store.name(NameKind::Event, key).to_string(),
            2 => self.store.name(NameKind::Site, key).to_string(),
            3 if key == 0 => "unknown".to_owned(),
            3 => format!("{key:04}"),
            _ => eco_text(key as u16).unwrap_or_default(),
        }
    }

    fn render(&self, n: u32) -> Result<Vec<u8>> {
        if let Some(text) = self.store.source_text(n) {
            return text;
        }
        Ok(render_pgn(&*self.store, n)?.into_bytes())
    }

    fn render_into(&self, n: u32, out: &mut Vec<u8>) -> Result<()> {
        if let Some(text) = self.store.source_text(n) {
            out.extend_from_slice(&text?);
            return Ok(());
        }
        // The PGN writer writes a `String`; this thread's own one keeps its room from game to
        // game, so a game costs a copy of its text, not an allocation.
        thread_local! {
            static RENDERED: RefCell<String> = const { RefCell::new(String::new()) };
        }
        RENDERED.with_borrow_mut(|text| {
            text.clear();
            render_pgn_into(&*self.store, n, text)?;
            out.extend_from_slice(text.as_bytes());
            Ok(())
        })
    }

    fn take_note(&self, n: u32) -> Option<String> {
        self.store.take_note(n)
    }

    fn check(&self, n: u32) -> Result<()> {
        if self.store.source_len(n).is_some() {
            // Its file is the source's bytes: read its moves as a game, unless the store
            // could not classify it (it names it among its problems already).
            if !self.store.classified(n) {
                return self.render(n).map(drop);
            }
            return self.store.load(n).map(drop);
        }
        self.render(n).map(drop)
    }

    /// A store serving its source's bytes (a PGN file) knows every size; one that renders
    /// knows none (the first game's tells, without a look at the others).
    fn known_sizes(&self) -> Option<Vec<Option<u64>>> {
        let all: Vec<u64> = (0..self.store.game_count())
            .map(|n| self.store.source_len(n))
            .collect::<Option<_>>()?;
        Some(all.into_iter().map(Some).collect())
    }

    fn save(&self, n: u32, text: &[u8]) -> Result<bool> {
        let game = pgn_parse::one_game(text).map_err(Error::from)?;
        self.store.replace(n, &game)
    }

    fn import(
        &self,
        text: &[u8],
        on_bad: OnBadGame,
        done_with: DoneWith<'_>,
    ) -> Result<ImportReport> {
        // A file copied in may have been cut short by a copy stopped half-way.
        let report = append_pgn(&*self.store, text, on_bad, true, done_with, &mut |_| {})?;
        if report.numbers.is_empty() && report.skipped.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "the text holds no game",
            ));
        }
        Ok(report)
    }

    fn set_deleted(&self, n: u32, deleted: bool) -> Result<()> {
        self.store.set_deleted(n, deleted)
    }

    fn reload_if_changed(&self) -> Result<bool> {
        self.store.reload_if_changed()
    }

    fn fingerprint(&self, n: u32) -> Option<u64> {
        self.store.fingerprint(n)
    }

    fn query(
        &self,
        query: &super::query::Query,
        index: Option<&super::query::HeaderIndex>,
        changed: &[u32],
    ) -> Option<Vec<u32>> {
        Some(super::query::eval::matching(
            &*self.store,
            query,
            index,
            changed,
        ))
    }

    fn header_index(&self, stamp: u64) -> Option<super::query::HeaderIndex> {
        Some(super::query::HeaderIndex::build(&*self.store, stamp))
    }

    fn has_positions(&self) -> bool {
        true
    }

    fn has_twins(&self) -> bool {
        true
    }

    fn twins(&self) -> Option<super::twins::Twins> {
        Some(super::twins::find(&*self.store))
    }

    fn twins_after(
        &self,
        before: &super::twins::Twins,
        changed: &[u32],
    ) -> Option<super::twins::Twins> {
        Some(super::twins::update(&*self.store, before, changed))
    }

    fn ending_entry(&self, n: u32, codes: &[u32]) -> Result<Option<String>> {
        let mut finder = MainLine::new(super::positions::material::EntryFinder::new(codes));
        self.store.visit(n, &mut finder)?;
        Ok(finder.inner.finish())
    }

    fn main_line(&self, n: u32) -> Option<Result<super::positions::line::GameLine>> {
        if !self.store.classified(n) {
            return Some(Err(Error::new(
                ErrorKind::CorruptRecord,
                format!("game {} could not be read", n + 1),
            )));
        }
        let mut recorder = MainLine::new(super::positions::line::LineRecorder::default());
        Some(
            self.store
                .visit(n, &mut recorder)
                .map(|()| recorder.inner.finish()),
        )
    }
}

/// The groups of view `view` (players, events, sites, years, ECO) a game with index summary
/// `s` belongs to: both players (once when they are the same), or its one event, site, …
fn group_keys(view: usize, s: &GameSummary) -> impl Iterator<Item = u32> + use<> {
    let (first, second) = match view {
        0 => (s.white, (s.black != s.white).then_some(s.black)),
        1 => (s.event, None),
        2 => (s.site, None),
        3 => (u32::from(s.date.year.unwrap_or(0)), None),
        _ => (u32::from(s.eco), None),
    };
    std::iter::once(first).chain(second)
}
