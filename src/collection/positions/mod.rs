//! The position index: which games reach a position, and the move each plays there, for the
//! opening tree (`tree/`) and the search by FEN (`positions/FEN/`) (docs/DESIGN.md rule 10).
//!
//! It is built once per database by replaying every game's main line through the store's
//! streaming visitor on every core ([`line`](mod@line)), and kept sorted by position in a
//! mapped file in the user's cache folder ([`file`](mod@file)), valid while the database files
//! are as they were. Games saved, imported or deleted during the mount go to an overlay in
//! memory that lookups merge with the file, so no change rebuilds it. Positions are the same
//! when their pieces stand on the same squares with the same side to move ([`key`]), and a
//! game counts once per position, at its first visit: SCID's board search (Exact, main lines
//! only). [`table`] turns the games of a position into SCID's tree table; [`openings`] names
//! positions. The layers above hold a position as an opaque [`board::Board`] and ask
//! [`tree::PositionMoves`] for its moves, their names, the positions after them and its
//! `tree.txt`: no chess is known above this module (docs/DESIGN.md, the layers).

pub mod board;
pub mod buckets;
pub mod changes;
pub mod endings;
pub mod file;
mod group;
pub mod key;
pub mod line;
pub mod material;
pub mod openings;
pub mod signature;
pub mod slice;
pub mod table;
pub mod tree;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::Duration;

use board::Board;
use endings::EndingTable;
use file::{Entry, GameRecord, IndexFile};
use line::{GameLine, GameStats};
use table::MoveStats;

use super::Collection;

/// Games a build thread takes at a time.
const BATCH: u32 = 512;

/// A kept index: its file, its endings, and the games changed over them.
type Kept = (IndexFile, EndingTable, HashMap<u32, Option<GameLine>>);

/// One game reaching a position: the game, the code of its next move ([`key::END`] where it
/// ends) and its statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// The game's number.
    pub game: u32,
    /// The move it plays from the position.
    pub next: u16,
    /// Its result, ratings and year.
    pub stats: GameStats,
}

/// The position index of one database (see the module's documentation).
pub struct PositionIndex {
    /// Where the index is kept; `None`: nowhere (it lives in the overlay).
    path: Option<PathBuf>,
    file: RwLock<Option<Arc<IndexFile>>>,
    /// The endings of the file's games ([`endings`]); none when the index is held in the
    /// overlay.
    endings: RwLock<Option<Arc<EndingTable>>>,
    /// Games whose line differs from the file's: their line now, `None` when they are out of
    /// the index (deleted, unreadable).
    overlay: RwLock<HashMap<u32, Option<GameLine>>>,
    done: AtomicU32,
    total: AtomicU32,
    ready: Mutex<bool>,
    ready_signal: Condvar,
    /// What the file says of positions it does not list, as found: the games of the file that
    /// reach each (with their moves there; in the opening one at most, else any number, by
    /// game), or none. The file never changes, so neither do these; a game changed since is
    /// left out where they are used, as the file's lists' games are.
    unlisted: Mutex<lru::LruCache<u64, Vec<(u32, u16)>>>,
}

/// Unlisted positions whose game is remembered ([`PositionIndex::unlisted`]): a game's whole
/// line is remembered when it is found, so walking down the tree along it costs no search.
const UNLISTED_KEPT: usize = 1 << 16;

/// Changed games past which a mount keeps no changes beside the index file at unmount (the
/// next mount builds the index again rather than read them all).
const MOST_KEPT_CHANGES: usize = 100_000;

/// The games of a parent position replayed to find the one game that reaches a child
/// position the file does not list ([`PositionIndex::follow_move`]): one, unless the game
/// reaches the parent twice and plays the move on the second time.
const FOLLOWED_MOST: usize = 4;

impl PositionIndex {
    /// An index kept at `path` (none: in memory only), not loaded yet.
    pub fn new(path: Option<PathBuf>) -> PositionIndex {
        PositionIndex {
            unlisted: Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(UNLISTED_KEPT).expect("not zero"),
            )),
            path,
            file: RwLock::default(),
            endings: RwLock::default(),
            overlay: RwLock::default(),
            done: AtomicU32::new(0),
            total: AtomicU32::new(0),
            ready: Mutex::new(false),
            ready_signal: Condvar::new(),
        }
    }

    /// Where the index of the database made of `files` is kept: in the user's cache folder,
    /// named by a hash of this gamefs's version and the files' paths (`None` when there is no
    /// cache folder).
    pub fn kept_at(files: &[PathBuf]) -> Option<PathBuf> {
        let dir = crate::store::files::cache_dir()?;
        std::fs::create_dir_all(&dir).ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        env!("CARGO_PKG_VERSION").hash(&mut h);
        for f in files {
            crate::store::files::cache_key(f)?.hash(&mut h);
        }
        Some(dir.join(format!("positions-{:016x}", h.finish())))
    }

    /// Load the kept index if it was built from the database files as they are now, else
    /// build it with `threads` threads (until `stop` is set) and keep it; then the index is
    /// ready.
    pub fn load_or_build(&self, coll: &dyn Collection, threads: usize, stop: &AtomicBool) {
        self.load_or_build_after(coll, threads, stop, || ());
    }

    /// [`load_or_build`](Self::load_or_build), but a build starts only once `before_build`
    /// returns (the mount lets the first listing's work go first); loading a kept index does
    /// not wait.
    pub fn load_or_build_after(
        &self,
        coll: &dyn Collection,
        threads: usize,
        stop: &AtomicBool,
        before_build: impl FnOnce(),
    ) {
        let count = coll.count();
        self.total.store(count, Ordering::Relaxed);
        let stamp = stamp_of(&coll.info().files);
        if let Some((f, endings, changed)) = self.kept(stamp, count) {
            log::info!(
                "position index of {count} games kept from an earlier mount ({} changed since \
                 it was built)",
                changed.len()
            );
            if let Some(path) = &self.path {
                crate::store::cache_folder::mark_used(path);
            }
            self.done.store(count, Ordering::Relaxed);
            *self.overlay.write().unwrap_or_else(|p| p.into_inner()) = changed;
            *self.endings.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(endings));
            self.serve(f);
        } else {
            before_build();
            if stop.load(Ordering::Relaxed) || !self.build(coll, threads, stop, stamp, true) {
                return;
            }
        }
        self.set_ready();
    }

    /// The kept index file, its endings and the games changed over them, if together they
    /// are the database files stamped `stamp` with `count` games.
    fn kept(&self, stamp: u64, count: u32) -> Option<Kept> {
        let path = self.path.as_deref()?;
        let f = IndexFile::open(path)?;
        let endings = EndingTable::open(&endings::beside(path))
            .filter(|e| e.stamp() == f.stamp() && e.game_count() == f.game_count())?;
        if f.stamp() == stamp && f.game_count() == count {
            return Some((f, endings, HashMap::new()));
        }
        let changed = changes::read(&changes::beside(path), f.stamp(), stamp, count)?;
        Some((f, endings, changed))
    }

    /// Remove the kept index and its changes: they are behind the database (the next mount
    /// builds it anew).
    pub fn forget_kept(&self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
            let _ = std::fs::remove_file(changes::beside(path));
            let _ = std::fs::remove_file(endings::beside(path));
        }
    }

    /// Answer from index file `f` from now on, its statistics held in memory
    /// ([`IndexFile::hold_stats`]).
    fn serve(&self, f: IndexFile) {
        f.hold_stats();
        *self.file.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(f));
    }

    /// Say the index is ready, to those waiting for it too.
    fn set_ready(&self) {
        *self.ready.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.ready_signal.notify_all();
    }

    /// Replay every game on `threads` threads into the index: its file, written from buckets
    /// of entries on disk (so memory stays bounded), or, where it cannot be kept, the
    /// overlay (`spill` false: in memory from the start; a spill that fails starts the build
    /// again so). False when stopped.
    fn build(
        &self,
        coll: &dyn Collection,
        threads: usize,
        stop: &AtomicBool,
        stamp: u64,
        spill: bool,
    ) -> bool {
        let count = coll.count();
        let threads = threads.max(1);
        let started = std::time::Instant::now();
        self.done.store(0, Ordering::Relaxed);
        // Spilled: the entries to buckets, the games' records straight to the index file.
        let spilled = self.path.as_deref().filter(|_| spill).and_then(|path| {
            buckets::Buckets::beside(path, count)
                .and_then(|b| Ok((b, file::Building::create(path, count)?)))
                .map_err(|e| log::warn!("position index: cannot write its buckets: {e}"))
                .ok()
        });
        let spill_failed = AtomicBool::new(false);
        let failed = |e: std::io::Error| {
            log::warn!("position index: cannot write its buckets: {e}; building it in memory");
            spill_failed.store(true, Ordering::Relaxed);
        };
        let next_batch = AtomicU32::new(0);
        // In memory, each thread's batches of records and its entries; and its games'
        // endings.
        type Held = (Vec<(u32, Vec<GameRecord>)>, Vec<Entry>, endings::Gathered);
        let parts: Vec<Held> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut writer = spilled.as_ref().map(|(b, _)| b.writer());
                        let mut held: Held = Default::default();
                        let mut records = Vec::with_capacity(BATCH as usize);
                        loop {
                            let first = next_batch.fetch_add(1, Ordering::Relaxed) * BATCH;
                            if first >= count
                                || stop.load(Ordering::Relaxed)
                                || spill_failed.load(Ordering::Relaxed)
                            {
                                break;
                            }
                            records.clear();
                            for n in first..count.min(first + BATCH) {
                                let line = line_of(coll, n);
                                if let Some(line) = &line {
                                    for &code in &line.endings {
                                        held.2.add(code, n);
                                    }
                                    match &mut writer {
                                        // The file lists positions of the opening only.
                                        Some(w) => {
                                            if let Err(e) =
                                                w.add(entries_of(n, &line.steps[..line.opening]))
                                            {
                                                failed(e);
                                                writer = None;
                                            }
                                        }
                                        // Held in memory, every position is the index.
                                        None if spilled.is_none() => {
                                            held.1.extend(entries_of(n, &line.steps))
                                        }
                                        None => {}
                                    }
                                }
                                records.push(GameRecord {
                                    stats: line.as_ref().map(|l| l.stats),
                                    signature: line
                                        .as_ref()
                                        .map(|l| l.signature)
                                        .unwrap_or_default(),
                                    filter: file::Filter::of(
                                        line.iter().flat_map(|l| l.steps.iter().map(|s| s.0)),
                                    ),
                                    at_start: line.as_ref().map_or(file::AtStart::Never, |l| {
                                        file::at_start_of(&l.steps)
                                    }),
                                });
                            }
                            match &spilled {
                                Some((_, building)) => {
                                    if let Err(e) = building.put(first, &records) {
                                        failed(e);
                                    }
                                }
                                None => held.0.push((first, records.clone())),
                            }
                            self.done.fetch_add(records.len() as u32, Ordering::Relaxed);
                        }
                        if let Some(Err(e)) = writer.as_mut().map(buckets::BucketWriter::flush) {
                            failed(e);
                        }
                        held
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join().unwrap_or_else(|panic| {
                        // Its games' entries are lost: not silently. Spilled, the build
                        // starts again in memory, as when a bucket cannot be written.
                        let then = if spilled.is_some() {
                            spill_failed.store(true, Ordering::Relaxed);
                            "building it again in memory"
                        } else {
                            "its games are missing from the index"
                        };
                        log::error!(
                            "position index: a build thread failed (please report): {}; {then}",
                            crate::error::panic_message(&*panic),
                        );
                        Default::default()
                    })
                })
                .collect()
        });
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let mut parts = parts;
        let endings_gathered: Vec<endings::Gathered> =
            parts.iter_mut().map(|p| std::mem::take(&mut p.2)).collect();
        if let (Some((buckets, building)), Some(path)) = (spilled, self.path.as_deref()) {
            if !spill_failed.load(Ordering::Relaxed) {
                let written = building.finish(stamp, &buckets, threads);
                match written.map(|w| (w.open(), w)) {
                    Ok((Some(f), written)) => {
                        log::info!(
                            "position index: {count} games, {} positions shared by two games \
                             or more, built in {:.1} s",
                            f.listed_count(),
                            started.elapsed().as_secs_f64()
                        );
                        // An earlier mount's changes go over the file this one replaces.
                        let _ = std::fs::remove_file(changes::beside(path));
                        let endings =
                            Arc::new(EndingTable::of_gathered(stamp, count, endings_gathered));
                        *self.endings.write().unwrap_or_else(|p| p.into_inner()) =
                            Some(endings.clone());
                        self.serve(f);
                        // It answers now; kept for the next mount once durable (its endings
                        // first: an index kept without them is built again).
                        self.set_ready();
                        if let Err(e) = endings
                            .write(&endings::beside(path))
                            .and_then(|()| written.keep())
                        {
                            log::warn!("cannot keep the position index in {}: {e}", path.display());
                        }
                        return true;
                    }
                    Ok((None, _)) => log::warn!("position index: {} unreadable", path.display()),
                    Err(e) => {
                        log::warn!("cannot keep the position index in {}: {e}", path.display())
                    }
                }
            }
            // Not kept, and the buckets are gone or short: the games again, into memory.
            drop(buckets);
            return self.build(coll, threads, stop, stamp, false);
        }
        let mut games = vec![GameRecord::default(); count as usize];
        let mut left = Vec::new();
        for (batches, entries, _) in parts {
            for (first, records) in batches {
                games[first as usize..first as usize + records.len()].copy_from_slice(&records);
            }
            left.extend(entries);
        }
        left.sort_unstable();
        self.hold(games, left, endings_gathered);
        true
    }

    /// Hold an index that cannot be kept in a file in the overlay. A game already there was
    /// changed during the build ([`PositionIndex::update`]): its line now is kept, not the
    /// build's reading, which may be from before the change.
    fn hold(&self, games: Vec<GameRecord>, entries: Vec<Entry>, endings: Vec<endings::Gathered>) {
        let mut lines: HashMap<u32, Option<GameLine>> = games
            .iter()
            .enumerate()
            .map(|(n, g)| {
                let line = g.stats.map(|stats| GameLine {
                    stats,
                    steps: Vec::new(),
                    signature: g.signature,
                    opening: 0,
                    endings: Vec::new(),
                });
                (n as u32, line)
            })
            .collect();
        for (code, game) in endings.iter().flat_map(endings::Gathered::pairs) {
            if let Some(Some(line)) = lines.get_mut(&game) {
                line.endings.push(code);
            }
        }
        for e in entries {
            if let Some(Some(line)) = lines.get_mut(&e.game) {
                line.steps.push((e.key, e.next));
            }
        }
        let mut overlay = self.overlay.write().unwrap_or_else(|p| p.into_inner());
        for (n, line) in lines {
            overlay.entry(n).or_insert(line);
        }
    }

    /// True once the index answers for every game.
    pub fn is_ready(&self) -> bool {
        *self.ready.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait up to `limit` for the index to be ready; whether it is.
    pub fn wait_ready(&self, limit: Duration) -> bool {
        let ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
        let (ready, _) = self
            .ready_signal
            .wait_timeout_while(ready, limit, |r| !*r)
            .unwrap_or_else(|p| p.into_inner());
        *ready
    }

    /// Games replayed so far and games in all (`.gamefs/stats`).
    pub fn progress(&self) -> (u32, u32) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Game `n` changed (saved, imported, deleted, restored): replay it again into the
    /// overlay, so lookups see it as it is now.
    pub fn update(&self, coll: &dyn Collection, n: u32) {
        let line = line_of(coll, n).map(GameLine::by_key);
        self.overlay
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(n, line);
    }

    /// Take over the games changed in `old` (the index this one replaces, which answered
    /// while this one was built): each is replayed again as it is now, so a save made during
    /// the build is not lost to a build that read the game before it.
    pub fn follow(&self, old: &PositionIndex, coll: &dyn Collection) {
        let changed: Vec<u32> = old
            .overlay
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .copied()
            .collect();
        for n in changed {
            self.update(coll, n);
        }
    }

    /// Keep the index as the database is now, for the next mount: the file as it is, and the
    /// games this mount changed beside it ([`changes`]), stamped with the database files' state
    /// now (nothing when nothing changed, the index is not ready, or it is kept nowhere; the
    /// kept index removed when it was held in memory or too many games changed).
    pub fn persist(&self, coll: &dyn Collection) -> std::io::Result<()> {
        let Some(path) = self.path.as_deref() else {
            return Ok(());
        };
        if !self.is_ready() {
            return Ok(());
        }
        let stamp = stamp_of(&coll.info().files);
        let file = self.file.read().unwrap_or_else(|p| p.into_inner()).clone();
        let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
        match file {
            Some(f) if overlay.is_empty() && f.stamp() == stamp => Ok(()),
            Some(f) if overlay.len() <= MOST_KEPT_CHANGES => changes::write(
                &changes::beside(path),
                f.stamp(),
                stamp,
                coll.count(),
                &overlay,
            ),
            _ => {
                self.forget_kept();
                Ok(())
            }
        }
    }

    /// The codes of the endings ([`material::Balance`]) that some game passes through now,
    /// ascending.
    pub fn ending_codes(&self) -> Vec<u32> {
        let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
        let mut codes: std::collections::BTreeSet<u32> = overlay
            .values()
            .flatten()
            .flat_map(|line| line.endings.iter().copied())
            .collect();
        if let Some(table) = &*self.endings.read().unwrap_or_else(|p| p.into_inner()) {
            for code in table.codes() {
                // A game of the table's counts unless it changed since.
                if overlay.is_empty()
                    || (!codes.contains(&code)
                        && table.games(code).iter().any(|n| !overlay.contains_key(n)))
                {
                    codes.insert(code);
                }
            }
        }
        codes.into_iter().collect()
    }

    /// The games that pass through one of the endings `codes` now, ascending.
    pub fn ending_games(&self, codes: &[u32]) -> Vec<u32> {
        let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
        let mut games: Vec<u32> = match &*self.endings.read().unwrap_or_else(|p| p.into_inner()) {
            Some(table) => codes
                .iter()
                .flat_map(|&code| table.games(code))
                .filter(|n| !overlay.contains_key(n))
                .collect(),
            None => Vec::new(),
        };
        games.extend(overlay.iter().filter_map(|(&n, line)| {
            line.as_ref()
                .is_some_and(|l| l.endings.iter().any(|c| codes.contains(c)))
                .then_some(n)
        }));
        games.sort_unstable();
        games.dedup();
        games
    }

    /// The games of `coll` (the collection indexed) that reach position `board`, ascending.
    pub fn games_at(&self, coll: &dyn Collection, board: &Board) -> Vec<u32> {
        self.reach(coll, board).iter().map(|r| r.game).collect()
    }

    /// The sums of the games of `coll` that reach position `board` for each move they play there, by
    /// move code (in no order). Where the file keeps the position's sums (a position many
    /// games reach: the start, all of them) they are read in a few pages, the games changed
    /// since taken out as the file counted them; else the games found are summed. The
    /// overlay's games count as they are now.
    pub fn moves_at(&self, coll: &dyn Collection, board: &Board) -> Vec<(u16, MoveStats)> {
        let key = board.key();
        let file = self.file.read().unwrap_or_else(|p| p.into_inner()).clone();
        let mut sums = match file.as_deref().map(|f| (f, f.sums(key))) {
            Some((f, Some(mut sums))) => {
                let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
                for &game in overlay.keys() {
                    if let (Some(next), Some(stats)) = (f.find_game(key, game), f.stats(game))
                        && let Some((_, s)) = sums.iter_mut().find(|(code, _)| *code == next)
                    {
                        s.remove(&stats);
                    }
                }
                sums.retain(|(_, s)| s.games > 0);
                sums
            }
            Some((f, None)) => sums_of(&self.file_reach(coll, f, board, None)),
            None => Vec::new(),
        };
        let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
        for r in overlay_reach(&overlay, key) {
            table::count_move(&mut sums, r.next, &r.stats);
        }
        sums
    }

    /// Every game of `coll` that reaches position `board`, games ascending, with its next
    /// move.
    pub fn reach(&self, coll: &dyn Collection, board: &Board) -> Vec<Reach> {
        self.reach_where(coll, board, None)
    }

    /// The games of `coll` among `games` (ascending: a folder's, such as a player's) that
    /// reach position `board`, ascending, with their next moves: [`PositionIndex::reach`]
    /// with the other games left out before their records are read, so a position every
    /// game reaches costs its list and the records of these games only.
    pub fn reach_among(&self, coll: &dyn Collection, board: &Board, games: &[u32]) -> Vec<Reach> {
        self.reach_where(coll, board, Some(games))
    }

    /// The games of `coll` that reach position `board` (those `among` only, ascending, when
    /// given), ascending, with their next moves.
    fn reach_where(
        &self,
        coll: &dyn Collection,
        board: &Board,
        among: Option<&[u32]>,
    ) -> Vec<Reach> {
        let file = self.file.read().unwrap_or_else(|p| p.into_inner()).clone();
        let mut out = file
            .as_deref()
            .map(|f| self.file_reach(coll, f, board, among))
            .unwrap_or_default();
        let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
        let mut changed = overlay_reach(&overlay, board.key());
        changed.retain(|r| among.is_none_or(|games| games.binary_search(&r.game).is_ok()));
        if !changed.is_empty() {
            out.extend(changed);
            out.sort_unstable_by_key(|r| r.game);
        }
        out
    }

    /// The games of file `f` that reach position `board` as the file has them (those `among`
    /// only, when given), those changed since (in the overlay) left out: its list, or where
    /// it lists none, the one game found by its signature and a replay. The overlay is not
    /// held while games are replayed (seconds from a cold disk), so no save waits for a
    /// search.
    fn file_reach(
        &self,
        coll: &dyn Collection,
        f: &IndexFile,
        board: &Board,
        among: Option<&[u32]>,
    ) -> Vec<Reach> {
        let key = board.key();
        let listed = match among {
            Some(games) => f.find_among(key, games),
            None => f.find(key).map(|found| f.with_stats(found)),
        };
        let found =
            listed.unwrap_or_else(|| f.with_stats(self.unlisted_reach(coll, f, board, among)));
        let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
        found
            .into_iter()
            .filter(|&(game, _, _)| !overlay.contains_key(&game))
            .filter_map(|(game, next, stats)| stats.map(|stats| Reach { game, next, stats }))
            .collect()
    }

    /// The games of file `f` that reach position `board`, which the file does not list, with
    /// their moves there, ascending (those not changed since: the games of the overlay when
    /// the search starts are not replayed, their lines being no longer the file's; the overlay
    /// only grows, so what is found stays true): the games (those `among` only, when given: a
    /// slice's) whose signature does not rule the position out are replayed, on every core.
    /// In the opening, where the file lists every position two games reach, until one
    /// reaches it, and that game's other positions of the opening are remembered with it;
    /// past the opening, all of them.
    fn unlisted_reach(
        &self,
        coll: &dyn Collection,
        f: &IndexFile,
        board: &Board,
        among: Option<&[u32]>,
    ) -> Vec<(u32, u16)> {
        use rayon::prelude::*;
        let key = board.key();
        if let Some(known) = self.unlisted_known().get(&key) {
            return known
                .iter()
                .copied()
                .filter(|&(n, _)| among.is_none_or(|g| g.binary_search(&n).is_ok()))
                .collect();
        }
        let changed: std::collections::HashSet<u32> = self
            .overlay
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .copied()
            .collect();
        let target = signature::Target::of(&board.0);
        let started = std::time::Instant::now();
        let replayed = AtomicU32::new(0);
        let opening = signature::in_opening(&board.0);
        if !opening {
            // Every game's record is read to the end: in one go, not a page fault at a time.
            f.read_search_ahead(among.map_or(f.game_count() as usize, <[u32]>::len));
        }
        let reaches = |n: u32| {
            if !f.may_reach(n, key, &target) || changed.contains(&n) {
                return None;
            }
            replayed.fetch_add(1, Ordering::Relaxed);
            let line = line_of(coll, n)?;
            let &(_, next) = line.steps.iter().find(|s| s.0 == key)?;
            Some((n, next, opening.then_some(line)))
        };
        let found: Vec<(u32, u16, Option<GameLine>)> = search_pool().install(|| {
            let all = || (0..f.game_count()).into_par_iter();
            match (among, opening) {
                (Some(games), true) => games
                    .par_iter()
                    .find_map_any(|&n| reaches(n))
                    .into_iter()
                    .collect(),
                (None, true) => all().find_map_any(reaches).into_iter().collect(),
                (Some(games), false) => games.par_iter().filter_map(|&n| reaches(n)).collect(),
                (None, false) => all().filter_map(reaches).collect(),
            }
        });
        log::debug!(
            "position {}: {} games replayed in {:.1} ms, {} reach it",
            board.fen(),
            replayed.load(Ordering::Relaxed),
            started.elapsed().as_secs_f64() * 1000.0,
            found.len(),
        );
        if opening && let Some((n, _, Some(line))) = found.first() {
            self.remember(*n, line);
        }
        let found: Vec<(u32, u16)> = found.into_iter().map(|(n, next, _)| (n, next)).collect();
        // Found among some games only, another may reach it too.
        if among.is_none() {
            self.unlisted_known().put(key, found.clone());
        }
        found
    }

    /// Remember the positions of game `n`'s `line` in the opening as found: a walk down that
    /// game's line then finds each next position without a search. (Past the opening the
    /// file does not list positions other games reach too: no one game is the answer.)
    fn remember(&self, n: u32, line: &GameLine) {
        let mut known = self.unlisted_known();
        for &(k, next) in &line.steps[..line.opening] {
            known.put(k, vec![(n, next)]);
        }
    }

    /// Note that position `child` is the one move `code` makes from position `parent`, as a
    /// walk down the tree folder by folder knows: when the file lists `parent` and not
    /// `child`, the one game that reaches `child` (at most one: it is not listed) is among
    /// the parent's games that play `code` there, so it is found by replaying those few
    /// rather than searching every game whose record lets `child` through (at 1M random
    /// games, a line one game reaches: seconds cold). Nothing is learnt otherwise, and the
    /// search stays the answer for a position met without its parent (`positions/FEN/`).
    pub fn follow_move(&self, coll: &dyn Collection, parent: &Board, code: u16, child: &Board) {
        let key = child.key();
        if !signature::in_opening(&child.0) {
            return;
        }
        let file = self.file.read().unwrap_or_else(|p| p.into_inner()).clone();
        let Some(f) = file.as_deref() else { return };
        if f.lists(key) || self.unlisted_known().contains(&key) {
            return;
        }
        let Some(players) = f.games_playing(parent.key(), code) else {
            return;
        };
        let changed: Vec<u32> = {
            let overlay = self.overlay.read().unwrap_or_else(|p| p.into_inner());
            players
                .iter()
                .copied()
                .filter(|n| overlay.contains_key(n))
                .collect()
        };
        // More than a few would mean the child is listed after all: left to the search.
        for n in players
            .into_iter()
            .filter(|n| !changed.contains(n))
            .take(FOLLOWED_MOST)
        {
            if let Some(line) = line_of(coll, n)
                && line.steps.iter().any(|s| s.0 == key)
            {
                self.remember(n, &line);
                return;
            }
        }
    }

    /// The unlisted positions found so far.
    fn unlisted_known(&self) -> std::sync::MutexGuard<'_, lru::LruCache<u64, Vec<(u32, u16)>>> {
        self.unlisted.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The games of the `overlay` that reach position `key` as they are now.
fn overlay_reach(overlay: &HashMap<u32, Option<GameLine>>, key: u64) -> Vec<Reach> {
    overlay
        .iter()
        .filter_map(|(&game, line)| {
            let line = line.as_ref()?;
            let i = line.steps.binary_search_by_key(&key, |s| s.0).ok()?;
            Some(Reach {
                game,
                next: line.steps[i].1,
                stats: line.stats,
            })
        })
        .collect()
}

/// The sums of the games of `reach` for each move they play, by move code.
pub fn sums_of(reach: &[Reach]) -> Vec<(u16, MoveStats)> {
    let mut sums: Vec<(u16, MoveStats)> = Vec::new();
    for r in reach {
        table::count_move(&mut sums, r.next, &r.stats);
    }
    sums
}

/// The threads that replay the games a search lets through: more than the cores, since a
/// game read from a cold disk waits for it, and reads in flight together take not much longer
/// than one (a deep position looked up cold at 100,000 games: 1.05 s on two threads).
fn search_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads((cores * 4).clamp(8, 64))
            .thread_name(|i| format!("gamefs-search-{i}"))
            .build()
            .expect("the search threads")
    })
}

/// The index's entries of game `n` for its `steps`.
fn entries_of(n: u32, steps: &[(u64, u16)]) -> impl Iterator<Item = Entry> + '_ {
    steps
        .iter()
        .map(move |&(key, next)| Entry { key, game: n, next })
}

/// Game `n`'s line, or `None` when it is out of the index: deleted, or unreadable (logged).
fn line_of(coll: &dyn Collection, n: u32) -> Option<GameLine> {
    if coll.deleted(n) {
        return None;
    }
    // A game whose reading panics (a defect) is left out alone, with a line naming it: not
    // the games its build thread had gathered with it, which the index would silently lack.
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| coll.main_line(n)));
    match read {
        Ok(Some(Ok(line))) => Some(line),
        Ok(Some(Err(e))) => {
            log::debug!("position index leaves out {}: {e}", coll.item_label(n));
            None
        }
        Ok(None) => None,
        Err(panic) => {
            log::error!(
                "position index leaves out {}: internal error reading it (please report): {}",
                coll.item_label(n),
                crate::error::panic_message(&*panic)
            );
            None
        }
    }
}

/// A digest of the state of the database `files` (their sizes, modification times and inode
/// numbers): the index is valid while it is the same.
pub fn stamp_of(files: &[PathBuf]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in files {
        match std::fs::metadata(f) {
            Ok(m) => (m.len(), m.mtime(), m.mtime_nsec(), m.ino()).hash(&mut h),
            Err(_) => (f, crate::store::files::remote_version(f)).hash(&mut h),
        }
    }
    h.finish()
}

impl PositionIndex {
    /// Where the index is kept, if anywhere.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The bytes of the index file it answers from (0 while it has none: built in memory, or
    /// not yet), with the games changed since kept beside it.
    pub fn bytes_on_disk(&self) -> u64 {
        let file = self.file.read().unwrap_or_else(|p| p.into_inner()).clone();
        let changes = self
            .path
            .as_deref()
            .and_then(|p| std::fs::metadata(changes::beside(p)).ok())
            .map_or(0, |m| m.len());
        let endings = self
            .endings
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or(0, |e| e.bytes() as u64);
        file.map_or(0, |f| f.bytes() as u64 + endings + changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::chess::ChessCollection;
    use shakmaty::{Chess, Position, Square};

    /// The games whose main line reaches `pos`, found by replaying every game's model.
    fn recount(coll: &ChessCollection, pos: &Chess) -> Vec<u32> {
        let want = key::position_key(pos);
        (0..coll.count())
            .filter(|&n| !coll.deleted(n))
            .filter(|&n| {
                let game = coll.store().load(n).unwrap();
                let mut at = crate::game::replay::start_position(&game.start).unwrap();
                let mut found = key::position_key(&at) == want;
                for node in &game.moves.moves {
                    at = crate::game::replay::play(&at, &node.ply).unwrap();
                    found |= key::position_key(&at) == want;
                }
                found
            })
            .collect()
    }

    /// The position after the first move `san`.
    fn after_first(san: &str) -> Chess {
        let mut pos = Chess::default();
        let m = san
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
        pos
    }

    fn e4() -> Chess {
        after_first("e4")
    }

    /// The games `index` finds at `pos`.
    fn games_at(index: &PositionIndex, coll: &dyn Collection, pos: &Chess) -> Vec<u32> {
        index
            .reach(coll, &Board::from(pos.clone()))
            .iter()
            .map(|r| r.game)
            .collect()
    }

    #[test]
    fn built_kept_and_updated_the_index_finds_what_a_recount_finds() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let coll = ChessCollection::new(crate::store::open(&base, true).unwrap());
        let path = dir.path().join("positions");
        let index = PositionIndex::new(Some(path.clone()));
        assert!(!index.is_ready());
        index.load_or_build(&coll, 3, &AtomicBool::new(false));
        assert!(index.wait_ready(Duration::ZERO));
        assert_eq!(index.progress(), (coll.count(), coll.count()));
        let games = games_at;
        // The sums per move, as kept (or summed from the entries where not kept), equal the
        // sums of the games found.
        let sums_agree = |index: &PositionIndex, pos: &Chess| {
            let board = Board::from(pos.clone());
            let mut kept = index.moves_at(&coll, &board);
            let mut summed = sums_of(&index.reach(&coll, &board));
            kept.sort_unstable_by_key(|m| m.0);
            summed.sort_unstable_by_key(|m| m.0);
            assert_eq!(kept, summed, "{pos:?}");
        };
        let kept_sums = |index: &PositionIndex, pos: &Chess| {
            let file = index.file.read().unwrap().clone().unwrap();
            file.sums(key::position_key(pos)).is_some()
        };
        let start = Chess::default();
        assert_eq!(games(&index, &coll, &start), recount(&coll, &start));
        assert!(!games(&index, &coll, &e4()).is_empty());
        assert_eq!(games(&index, &coll, &e4()), recount(&coll, &e4()));
        assert!(kept_sums(&index, &start) && kept_sums(&index, &e4()));
        sums_agree(&index, &start);
        sums_agree(&index, &e4());

        // A second mount maps the kept file.
        let again = PositionIndex::new(Some(path));
        again.load_or_build(&coll, 1, &AtomicBool::new(true));
        assert!(again.is_ready(), "kept, not rebuilt (the stop flag is set)");
        assert_eq!(games(&again, &coll, &e4()), games(&index, &coll, &e4()));

        // A game saved with another opening leaves 1.e4 and reaches 1.d4's position.
        let n = games(&index, &coll, &e4())[0];
        coll.save(
            n,
            b"[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n",
        )
        .unwrap();
        index.update(&coll, n);
        assert!(!games(&index, &coll, &e4()).contains(&n));
        assert_eq!(games(&index, &coll, &e4()), recount(&coll, &e4()));
        let d4 = after_first("d4");
        assert!(games(&index, &coll, &d4).contains(&n));
        assert_eq!(games(&index, &coll, &d4), recount(&coll, &d4));
        // The kept sums follow the save: the game leaves 1.e4's and joins 1.d4's.
        for pos in [&start, &e4(), &d4] {
            sums_agree(&index, pos);
        }

        // Kept at unmount with the save merged in: the next mount maps it, rebuilding nothing.
        index.persist(&coll).unwrap();
        let after = PositionIndex::new(index.path().map(Path::to_path_buf));
        after.load_or_build(&coll, 1, &AtomicBool::new(true));
        assert!(after.is_ready(), "kept, not rebuilt");
        assert_eq!(games(&after, &coll, &d4), recount(&coll, &d4));
        assert_eq!(games(&after, &coll, &e4()), recount(&coll, &e4()));
        assert_eq!(games(&after, &coll, &start), recount(&coll, &start));
        for pos in [&start, &e4(), &d4] {
            sums_agree(&after, pos);
        }
    }

    /// An index written but not renamed into its place answers from the file it was
    /// written to, which is then gone from the folder (the next mount builds it again).
    #[test]
    fn an_index_that_cannot_be_kept_answers_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let coll = ChessCollection::new(crate::store::open(&base, true).unwrap());
        // The buckets are written beside the index, but the index cannot take the place of
        // a folder that holds a file: the build has read its buckets by then.
        let path = dir.path().join("positions");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("in the way"), b"").unwrap();
        let index = PositionIndex::new(Some(path.clone()));
        index.load_or_build(&coll, 2, &AtomicBool::new(false));
        assert!(index.wait_ready(Duration::ZERO));
        assert!(path.is_dir(), "not kept");
        for pos in [Chess::default(), e4(), after_first("d4")] {
            let games = games_at(&index, &coll, &pos);
            assert!(!games.is_empty());
            assert_eq!(games, recount(&coll, &pos), "{pos:?}");
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(&format!("-{}-", std::process::id())))
            .collect();
        // No scratch file of the build (`file::scratch_beside`: buckets and their runs,
        // parts, shared games, a position's games, the temporary index).
        assert!(left.is_empty(), "{left:?}");
    }

    /// An index whose file cannot be written (here its folder is taken away while games are
    /// replayed, so its buckets cannot be read back) is built again in memory, and answers.
    #[test]
    fn an_index_that_cannot_be_written_is_built_again_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let folder = dir.path().join("cache");
        std::fs::create_dir(&folder).unwrap();
        let path = folder.join("positions");
        let taken = AtomicBool::new(false);
        let take_folder = |_: &ChessCollection, _| {
            if !taken.swap(true, Ordering::SeqCst) {
                std::fs::remove_dir_all(&folder).unwrap();
            }
        };
        let coll = Hooked {
            inner: ChessCollection::new(crate::store::open(&base, false).unwrap()),
            on_read: &take_folder,
            on_deleted: &|_| {},
        };
        let index = PositionIndex::new(Some(path.clone()));
        index.load_or_build(&coll, 2, &AtomicBool::new(false));
        assert!(taken.load(Ordering::SeqCst));
        assert!(index.wait_ready(Duration::ZERO));
        assert!(index.file.read().unwrap().is_none(), "held in memory");
        for pos in [Chess::default(), e4(), after_first("d4")] {
            let games = games_at(&index, &coll, &pos);
            assert!(!games.is_empty());
            assert_eq!(games, recount(&coll.inner, &pos), "{pos:?}");
        }
    }

    /// Two builds of one index at once in one process (a rebuild beside the first build)
    /// write files of their own: each is kept in its file and finds what a recount finds.
    #[test]
    fn two_builds_of_one_index_at_once_keep_apart() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let path = dir.path().join("positions");
        // Both have made their buckets before either replays a game (a build that fails
        // before reading a game lets the other go on after a while).
        let arrived = AtomicU32::new(0);
        let meet = |_: &ChessCollection, n| {
            if n == 0 {
                arrived.fetch_add(1, Ordering::SeqCst);
                let start = std::time::Instant::now();
                while arrived.load(Ordering::SeqCst) < 2 && start.elapsed() < Duration::from_secs(5)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        };
        let colls = [(); 2].map(|()| Hooked {
            inner: ChessCollection::new(crate::store::open(&base, false).unwrap()),
            on_read: &meet,
            on_deleted: &|_| {},
        });
        let indexes = [(); 2].map(|()| PositionIndex::new(Some(path.clone())));
        std::thread::scope(|s| {
            for (index, coll) in indexes.iter().zip(&colls) {
                s.spawn(move || index.load_or_build(coll, 1, &AtomicBool::new(false)));
            }
        });
        for index in &indexes {
            assert!(index.file.read().unwrap().is_some(), "kept in its file");
            for pos in [Chess::default(), e4(), after_first("d4")] {
                assert_eq!(
                    games_at(index, &colls[0], &pos),
                    recount(&colls[0].inner, &pos)
                );
            }
        }
    }

    /// A chess collection that calls `on_read` with itself and the game before reading a
    /// game's main line (to panic there, as a defect would, or to save a game while the
    /// index is being built), and `on_deleted` with the game before telling whether it is
    /// deleted (outside the reading of a game, where a panic is not caught).
    struct Hooked<'a> {
        inner: ChessCollection,
        on_read: &'a (dyn Fn(&ChessCollection, u32) + Sync),
        on_deleted: &'a (dyn Fn(u32) + Sync),
    }

    impl Collection for Hooked<'_> {
        fn items_folder(&self) -> &'static str {
            self.inner.items_folder()
        }
        fn extension(&self) -> &'static str {
            self.inner.extension()
        }
        fn has_delete_mark(&self) -> bool {
            self.inner.has_delete_mark()
        }
        fn info(&self) -> crate::store::StoreInfo {
            self.inner.info()
        }
        fn writable(&self) -> bool {
            self.inner.writable()
        }
        fn count(&self) -> u32 {
            self.inner.count()
        }
        fn deleted(&self, n: u32) -> bool {
            (self.on_deleted)(n);
            self.inner.deleted(n)
        }
        fn file_name(&self, n: u32) -> String {
            self.inner.file_name(n)
        }
        fn item_label(&self, n: u32) -> String {
            self.inner.item_label(n)
        }
        fn problems(&self) -> Vec<crate::collection::Problem> {
            self.inner.problems()
        }
        fn item_named(&self, name: &[u8]) -> Option<u32> {
            self.inner.item_named(name)
        }
        fn views(&self) -> Vec<String> {
            self.inner.views()
        }
        fn view_keys(&self, view: usize, n: u32) -> Vec<u32> {
            self.inner.view_keys(view, n)
        }
        fn view_label(&self, view: usize, key: u32) -> String {
            self.inner.view_label(view, key)
        }
        fn render(&self, n: u32) -> crate::error::Result<Vec<u8>> {
            self.inner.render(n)
        }
        fn save(&self, n: u32, text: &[u8]) -> crate::error::Result<bool> {
            self.inner.save(n, text)
        }
        fn import(
            &self,
            _: &[u8],
            _: crate::collection::import::OnBadGame,
            _: crate::text::DoneWith<'_>,
        ) -> crate::error::Result<crate::collection::import::ImportReport> {
            unreachable!("read only")
        }
        fn set_deleted(&self, _: u32, _: bool) -> crate::error::Result<()> {
            unreachable!("read only")
        }
        fn reload_if_changed(&self) -> crate::error::Result<bool> {
            Ok(false)
        }
        fn fingerprint(&self, n: u32) -> Option<u64> {
            self.inner.fingerprint(n)
        }
        fn main_line(&self, n: u32) -> Option<crate::error::Result<GameLine>> {
            (self.on_read)(&self.inner, n);
            self.inner.main_line(n)
        }
        fn has_positions(&self) -> bool {
            true
        }
    }

    /// A walk down the tree along game `n`'s line: for each move, the position before, its
    /// SAN and the position after.
    fn walk(coll: &ChessCollection, n: u32) -> Vec<(Board, String, Board)> {
        let game = coll.store().load(n).unwrap();
        let mut at = crate::game::replay::start_position(&game.start).unwrap();
        let mut steps = Vec::new();
        for node in &game.moves.moves {
            let crate::game::Ply::Move(m) = node.ply else {
                break;
            };
            let san = shakmaty::san::SanPlus::from_move(at.clone(), m).to_string();
            let next = crate::game::replay::play(&at, &node.ply).unwrap();
            steps.push((Board::from(at), san, Board::from(next.clone())));
            at = next;
        }
        steps
    }

    /// The file lists the positions of the opening that two games reach, and no position
    /// past it; those are found by the search, every game that reaches them, in a slice too.
    #[test]
    fn past_the_opening_positions_are_found_by_the_search_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        let long = std::fs::read_to_string(format!(
            "{}/tests/data/long-games.pgn",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let starts: Vec<usize> = long.match_indices("[Event ").map(|(i, _)| i).collect();
        let (first, second) = (&long[starts[0]..starts[1]], &long[starts[1]..starts[2]]);
        // Games 0 and 2 are one game twice; game 1 another.
        let pgn = dir.path().join("games.pgn");
        std::fs::write(&pgn, format!("{first}\n{second}\n{first}\n")).unwrap();
        let coll = ChessCollection::new(crate::store::open(&pgn, false).unwrap());
        let index = PositionIndex::new(Some(dir.path().join("positions")));
        index.load_or_build(&coll, 2, &AtomicBool::new(false));
        let file = index.file.read().unwrap().clone().expect("kept in a file");
        let (mut listed, mut past) = (0, 0);
        for (_, _, child) in walk(&coll, 0) {
            let want = recount(&coll, &child.0);
            assert_eq!(index.games_at(&coll, &child), want, "{}", child.fen());
            let among = index.reach_among(&coll, &child, &[1, 2]);
            let among: Vec<u32> = among.iter().map(|r| r.game).collect();
            let want_among: Vec<u32> = want.iter().copied().filter(|&n| n > 0).collect();
            assert_eq!(among, want_among, "{}", child.fen());
            if signature::in_opening(&child.0) {
                assert!(file.lists(child.key()), "{}", child.fen());
                listed += 1;
            } else {
                assert!(!file.lists(child.key()), "{}", child.fen());
                past += 1;
            }
        }
        assert!(
            listed > 10 && past > 100,
            "{listed} listed, {past} past the opening"
        );
    }

    /// A slice's games at the start position are read from their records, a game set up
    /// elsewhere that comes to the start position (knights out and back) among them; one
    /// that plays a null move there is found in the start's list.
    #[test]
    fn a_slice_at_the_start_position_counts_games_that_come_back_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let after_nf3 = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1";
        let games = [
            "1. e4 e5 *".to_owned(),
            format!("[SetUp \"1\"]\n[FEN \"{after_nf3}\"]\n\n1... Nf6 2. Ng1 Ng8 3. c4 *"),
            "1. d4 *".to_owned(),
            "*".to_owned(),
            "1. -- e5 *".to_owned(),
            format!("[SetUp \"1\"]\n[FEN \"{after_nf3}\"]\n\n1... d5 *"),
            "1. e4 c5 *".to_owned(),
        ];
        let pgn = dir.path().join("games.pgn");
        let text: Vec<String> = games.iter().map(|g| format!("{g}\n")).collect();
        std::fs::write(&pgn, text.join("\n")).unwrap();
        let coll = ChessCollection::new(crate::store::open(&pgn, false).unwrap());
        assert_eq!(coll.count(), 7);
        let index = PositionIndex::new(Some(dir.path().join("positions")));
        index.load_or_build(&coll, 2, &AtomicBool::new(false));
        let file = index.file.read().unwrap().clone().expect("kept in a file");
        let plays_from = |n: u32| match file.game(n).at_start {
            file::AtStart::Plays(code) => Some(code & 63),
            _ => None,
        };
        assert_eq!(plays_from(0), Some(u16::from(Square::E2)));
        assert_eq!(
            plays_from(1),
            Some(u16::from(Square::C2)),
            "set up elsewhere, it comes back and plays 3. c4"
        );
        assert_eq!(file.game(3).at_start, file::AtStart::Plays(key::END));
        assert_eq!(
            file.game(4).at_start,
            file::AtStart::Listed,
            "a null move: the list has it"
        );
        assert_eq!(file.game(5).at_start, file::AtStart::Never);
        let start = Board::start();
        let every = index.reach(&coll, &start);
        let reached: Vec<u32> = every.iter().map(|r| r.game).collect();
        assert_eq!(reached, recount(&coll, &start.0));
        assert_eq!(reached, [0, 1, 2, 3, 4, 6]);
        for among in [
            vec![0, 1, 2, 3, 4, 5, 6],
            vec![1, 4, 5],
            vec![0, 6],
            vec![5],
        ] {
            let want: Vec<Reach> = every
                .iter()
                .copied()
                .filter(|r| among.contains(&r.game))
                .collect();
            assert_eq!(index.reach_among(&coll, &start, &among), want, "{among:?}");
        }
    }

    #[test]
    fn a_walk_down_the_tree_finds_a_line_one_game_plays_from_its_parents_games() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let inner = ChessCollection::new(crate::store::open(&base, false).unwrap());
        let reads = AtomicU32::new(0);
        let count = |_: &ChessCollection, _| {
            reads.fetch_add(1, Ordering::Relaxed);
        };
        let coll = Hooked {
            inner,
            on_read: &count,
            on_deleted: &|_| {},
        };
        let path = dir.path().join("positions");
        let built = PositionIndex::new(Some(path.clone()));
        built.load_or_build(&coll, 2, &AtomicBool::new(false));
        assert!(built.wait_ready(Duration::ZERO));
        let file = built.file.read().unwrap().clone().unwrap();
        let every = slice::Slice::All;
        let mut searched_more = 0;
        for n in 0..coll.count() {
            let steps = walk(&coll.inner, n);
            // The first position of the game's line that no other game reaches, after one
            // that others do.
            let Some((parent, san, child)) = steps
                .into_iter()
                .find(|(parent, _, child)| file.lists(parent.key()) && !file.lists(child.key()))
            else {
                continue;
            };
            // Searched for on a mount of the kept index, met without its parent:
            let searched = PositionIndex::new(Some(path.clone()));
            searched.load_or_build(&coll, 2, &AtomicBool::new(false));
            reads.store(0, Ordering::Relaxed);
            assert_eq!(games_at(&searched, &coll, &child.0), vec![n]);
            let by_search = reads.load(Ordering::Relaxed);
            // Walked to from its parent's folder:
            let walked = PositionIndex::new(Some(path.clone()));
            walked.load_or_build(&coll, 2, &AtomicBool::new(false));
            reads.store(0, Ordering::Relaxed);
            let found = tree::PositionMoves::find(&parent, &walked, &coll, &every, &san);
            assert_eq!(
                found.as_ref().map(Board::key),
                Some(child.key()),
                "game {n}: {san}"
            );
            assert_eq!(games_at(&walked, &coll, &child.0), vec![n]);
            assert_eq!(
                reads.load(Ordering::Relaxed),
                1,
                "game {n}: {san}: one game read"
            );
            searched_more += usize::from(by_search > 1);
        }
        // The walk spares reads the search makes.
        assert!(searched_more > 0);
    }

    #[test]
    fn a_game_whose_reading_panics_is_left_out_alone() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let inner = ChessCollection::new(crate::store::open(&base, false).unwrap());
        let game = recount(&inner, &e4())[1];
        let panics = |_: &ChessCollection, n| assert_ne!(n, game, "a defect reading game {n}");
        let coll = Hooked {
            inner,
            on_read: &panics,
            on_deleted: &|_| {},
        };
        // Kept in a file (its entries spilled to buckets) and held in memory alike.
        for kept_at in [Some(dir.path().join("positions")), None] {
            let index = PositionIndex::new(kept_at);
            index.load_or_build(&coll, 2, &AtomicBool::new(false));
            assert!(index.wait_ready(Duration::ZERO));
            assert_eq!(index.progress(), (coll.count(), coll.count()));
            for pos in [Chess::default(), e4(), after_first("d4")] {
                let mut want = recount(&coll.inner, &pos);
                want.retain(|&n| n != game);
                assert!(!want.is_empty());
                assert_eq!(games_at(&index, &coll, &pos), want, "{pos:?}");
            }
        }
    }

    /// A game saved (its text moved from 1.e4 to 1.d4) while the build is at the game after
    /// it, which it read before the save: held in memory or kept in a file, the index finds
    /// the game where it is now, as a recount does. Done to the index answering while a new
    /// one is built (another program's change), the new one takes it over.
    #[test]
    fn a_game_saved_during_a_build_is_found_where_it_is_now() {
        const D4: &[u8] = b"[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n";
        for (kept, rebuilt) in [(false, false), (true, false), (false, true), (true, true)] {
            let dir = tempfile::tempdir().unwrap();
            let base = crate::testing::demo_db(dir.path());
            let inner = ChessCollection::new(crate::store::open(&base, true).unwrap());
            let saved = recount(&inner, &e4())[0];
            assert_ne!(saved % BATCH, BATCH - 1, "the next game in the same batch");
            let kept_at = |name: &str| kept.then(|| dir.path().join(name));
            let old = PositionIndex::new(kept_at("old"));
            if rebuilt {
                old.load_or_build(&inner, 1, &AtomicBool::new(false));
            }
            let index = PositionIndex::new(kept_at("positions"));
            // The index the vfs gives the save to: the new one, or the one answering.
            let told = if rebuilt { &old } else { &index };
            let done = AtomicBool::new(false);
            let save_then = |inner: &ChessCollection, n| {
                if n == saved + 1 && !done.swap(true, Ordering::SeqCst) {
                    inner.save(saved, D4).unwrap();
                    told.update(inner, saved);
                }
            };
            let coll = Hooked {
                inner,
                on_read: &save_then,
                on_deleted: &|_| {},
            };
            index.load_or_build(&coll, 2, &AtomicBool::new(false));
            assert!(done.load(Ordering::SeqCst), "saved during the build");
            if rebuilt {
                index.follow(&old, &coll);
            }
            let d4 = after_first("d4");
            for pos in [Chess::default(), e4(), d4.clone()] {
                let want = recount(&coll.inner, &pos);
                assert_eq!(
                    games_at(&index, &coll, &pos),
                    want,
                    "{pos:?} kept {kept} rebuilt {rebuilt}"
                );
            }
            assert!(games_at(&index, &coll, &d4).contains(&saved));
        }
    }

    /// A build thread that panics outside a game's reading (once, at one game) does not
    /// leave its games silently out of an index kept in a file: the build starts again in
    /// memory, and the index finds what a recount finds.
    #[test]
    fn a_build_thread_that_panics_has_the_index_built_again_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let inner = ChessCollection::new(crate::store::open(&base, false).unwrap());
        let game = recount(&inner, &e4())[1];
        let once = AtomicBool::new(false);
        let panics_once = |n| {
            if n == game && !once.swap(true, Ordering::SeqCst) {
                panic!("a defect at game {n}");
            }
        };
        let coll = Hooked {
            inner,
            on_read: &|_, _| {},
            on_deleted: &panics_once,
        };
        let index = PositionIndex::new(Some(dir.path().join("positions")));
        index.load_or_build(&coll, 2, &AtomicBool::new(false));
        assert!(once.load(Ordering::SeqCst), "it panicked");
        assert!(index.wait_ready(Duration::ZERO));
        for pos in [Chess::default(), e4(), after_first("d4")] {
            let want = recount(&coll.inner, &pos);
            assert_eq!(games_at(&index, &coll, &pos), want, "{pos:?}");
        }
        assert!(
            index.file.read().unwrap().is_none(),
            "built again in memory"
        );
    }
}
