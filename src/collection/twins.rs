//! Twin games: games that are the same game, as SCID's twin detection (Maintenance → Delete
//! twin games, `sc_base duplicates`) finds them with the settings its dialog starts with
//! (`twinSettingsDefaults` in SCID's `tcl/options.tcl`), and which of them SCID's deletion
//! marks deleted (docs/guide/twins.md).
//!
//! Two live games are twins when
//! - their players are the same by SCID's loose match (`players No`: the first four bytes of
//!   each name, ASCII letters in either case), on either side (`colors No`);
//! - they have the same site, round, year and month (`site`, `round`, `year`, `month Yes`;
//!   event, day, result and ECO are not compared);
//! - each has at least 10 half-moves in its main line (`skipshort Yes`);
//! - the main line of one is the other's, or starts it (`moves Yes`).
//!
//! Of each pair SCID deletes the shorter game, of two as long one of them, but never a game
//! with a comment or a variation (`delete Shorter`, `comments Yes`, `variations Yes`).
//!
//! Candidates are grouped by those fields from the index alone ([`GameSummary`]; sorted by a
//! hash of them, 12 bytes a game); only games of a group of two or more are decoded, and
//! within a group the games are sorted by their moves, so each game meets only the games
//! whose moves start with its own (no comparison of every pair); the groups are compared on
//! every core, in the order of their first games, so that the games a thread reads lie near
//! each other in the database's file. What was found is kept beside the
//! position index ([`Twins::keep`]) for the next mount of the same files.

use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::path::Path;

use crate::collection::positions::key::{NULL_MOVE, move_code};
use crate::error::Result;
use crate::game::GameResult;
use crate::game::chess::{Headers, Ply, StartPosition};
use crate::game::visit::GameVisitor;
use crate::store::{ChessStore, GameSummary, NameKind};

/// A set hashed fast: looked up once a game by [`update`]'s pass.
type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

/// Games shorter than this many half-moves are never twins (SCID's `skipshort`).
const SHORTEST: usize = 10;

/// The twin games of a database: groups of games that are the same game, and the games
/// SCID's "delete twin games" marks deleted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Twins {
    /// Each group's games, the better copy first (see [`Twins::groups`]), the groups in the
    /// order of their first games' numbers.
    groups: Vec<Vec<u32>>,
    /// The games SCID's deletion marks deleted, ascending.
    doomed: Vec<u32>,
}

impl Twins {
    /// The groups in the order of their first games, the deletions ascending, each once:
    /// as the parts judged apart are joined.
    fn order(&mut self) {
        self.groups.sort_unstable_by_key(|g| g[0]);
        self.doomed.sort_unstable();
        self.doomed.dedup();
    }

    /// The groups of twins, in the order of their first games' numbers. In each group, games
    /// linked by twin pairs (a game with a prefix of two others' moves joins them), the
    /// better copy first: more half-moves, then a game with comments or variations (which
    /// SCID keeps), then more comments, NAGs and variations, then more tags filled in, then
    /// the lower number.
    pub fn groups(&self) -> &[Vec<u32>] {
        &self.groups
    }

    /// The group whose first game is `first`.
    pub fn group(&self, first: u32) -> Option<&[u32]> {
        self.groups
            .binary_search_by_key(&first, |g| g[0])
            .ok()
            .map(|k| self.groups[k].as_slice())
    }

    /// The games SCID's "delete twin games" marks deleted (with its default settings),
    /// ascending.
    pub fn to_delete(&self) -> &[u32] {
        &self.doomed
    }

    /// True when SCID's deletion marks game `n` deleted.
    pub fn deletes(&self, n: u32) -> bool {
        self.doomed.binary_search(&n).is_ok()
    }
}

/// The first bytes of a kept twins file.
const MAGIC: &[u8; 8] = b"GFTWINS1";

impl Twins {
    /// Keep the twins at `path` (durably and atomically, as the index's files), for the
    /// database files of `stamp` ([`crate::collection::positions::stamp_of`]). Little-endian:
    /// the magic, the stamp, the number of groups, each group's length and games, the number
    /// of games SCID's deletion marks and those games.
    pub fn keep(&self, path: &Path, stamp: u64) -> std::io::Result<()> {
        let mut out = Vec::with_capacity(32 + 4 * self.doomed.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&stamp.to_le_bytes());
        let mut list = |games: &[u32]| {
            out.extend_from_slice(&(games.len() as u32).to_le_bytes());
            for n in games {
                out.extend_from_slice(&n.to_le_bytes());
            }
        };
        for group in &self.groups {
            list(group);
        }
        // The groups end with an empty one (a group has two games or more).
        list(&[]);
        list(&self.doomed);
        crate::collection::positions::file::keep_beside(path, &out)
    }

    /// The twins kept at `path` for the database files of `stamp`; none when there are none,
    /// they were kept for other files, or the file does not read whole.
    pub fn kept(path: &Path, stamp: u64) -> Option<Twins> {
        let bytes = std::fs::read(path).ok()?;
        if bytes.get(..8)? != MAGIC || bytes.get(8..16)? != stamp.to_le_bytes() {
            return None;
        }
        let mut words = bytes
            .get(16..)?
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")));
        // A list: its length, checked against what the file holds, then its games.
        let mut list = || -> Option<Vec<u32>> {
            let len = words.next()? as usize;
            let list: Vec<u32> = words.by_ref().take(len).collect();
            (list.len() == len).then_some(list)
        };
        let mut groups = Vec::new();
        loop {
            let group = list()?;
            match group.len() {
                0 => break,
                1 => return None,
                _ => groups.push(group),
            }
        }
        let doomed = list()?;
        // Nothing after the last list.
        let words_read: usize =
            groups.iter().map(|g| g.len() + 1).sum::<usize>() + 2 + doomed.len();
        (bytes.len() == 16 + 4 * words_read).then_some(Twins { groups, doomed })
    }
}

/// What SCID's loose player match compares: the first four bytes of the name, ASCII letters
/// made small (`strStartHash`).
fn name_start(name: &str) -> u32 {
    let mut hash = 0u32;
    for (i, &b) in name.as_bytes().iter().take(4).enumerate() {
        hash |= u32::from(b.to_ascii_lowercase()) << (24 - 8 * i);
    }
    hash
}

/// The fields twins share: the players (either side), site, round, year and month.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Key {
    players: (u32, u32),
    site: u32,
    round: u32,
    year: u16,
    month: u8,
}

/// The key of a game of summary `s`, whose players' names start as `white` and `black`
/// ([`name_start`]).
fn key_of(s: &GameSummary, white: u32, black: u32) -> Key {
    Key {
        players: (white.max(black), white.min(black)),
        site: s.site,
        round: s.round,
        year: s.date.year.unwrap_or(0),
        month: s.date.month.unwrap_or(0),
    }
}

/// The twins of the live games of `store`.
pub fn find(store: &dyn ChessStore) -> Twins {
    let hasher = foldhash::fast::FixedState::default();
    find_hashed(store, |key| hasher.hash_one(key))
}

/// The twins of the live games of `store` once games `changed` (ascending) were saved,
/// added, marked deleted or undeleted, the twins before being `before`: only the games that
/// share a key with a changed game, or a group with one, are judged again (one pass over the
/// index to find them, and only they decoded), where [`find`] judges every game. Equal to
/// [`find`] of the games as they are now.
///
/// A group holds games of one key, so a group none of whose games changed or shares a key
/// with a changed game, before or now, is as it was: the games of a changed game's former
/// group keep that former key, and are found by it.
pub fn update(store: &dyn ChessStore, before: &Twins, changed: &[u32]) -> Twins {
    let mut starts = NameStarts::new(store);
    let touched = |n: &u32| changed.binary_search(n).is_ok();
    // The games whose keys are judged again: the changed ones and their former groups'.
    let mut seeds: Vec<u32> = changed.to_vec();
    for group in before.groups.iter().filter(|g| g.iter().any(touched)) {
        seeds.extend_from_slice(group);
    }
    let live = |n: u32| n < store.game_count() && store.classified(n);
    let keys: FastSet<Key> = seeds
        .iter()
        .filter(|&&n| live(n))
        .map(|&n| store.summary(n))
        .filter(|s| !s.deleted)
        .map(|s| starts.key(&s))
        .collect();
    // The fields other than the players first: most games differ there, and need no name.
    let fields: FastSet<(u32, u32, u16, u8)> = keys
        .iter()
        .map(|k| (k.site, k.round, k.year, k.month))
        .collect();
    let mut keyed: Vec<(Key, u32)> = Vec::new();
    for n in 0..store.game_count() {
        let s = store.summary(n);
        let date = (s.date.year.unwrap_or(0), s.date.month.unwrap_or(0));
        if s.deleted || !fields.contains(&(s.site, s.round, date.0, date.1)) || !live(n) {
            continue;
        }
        let key = starts.key(&s);
        if keys.contains(&key) {
            keyed.push((key, n));
        }
    }
    // The groups and deletions of every other key stay; those of the keys judged again go.
    let judged: FastSet<u32> = keyed.iter().map(|&(_, n)| n).collect();
    let stays = |g: &&Vec<u32>| !g.iter().any(|n| touched(n) || judged.contains(n));
    let mut twins = Twins::default();
    let mut gone = Vec::new();
    for group in &before.groups {
        match stays(&group) {
            true => twins.groups.push(group.clone()),
            false => gone.extend_from_slice(group),
        }
    }
    gone.sort_unstable();
    twins.doomed = (before.doomed.iter())
        .filter(|n| gone.binary_search(n).is_err())
        .copied()
        .collect();
    judge_by_key(store, keyed, &mut twins);
    twins.order();
    log::debug!(
        "twins: {} changed games, {} games judged again",
        changed.len(),
        judged.len()
    );
    twins
}

/// What the loose player match compares of each player's name ([`name_start`]), by the
/// player's ID, each found once.
struct NameStarts<'a> {
    store: &'a dyn ChessStore,
    starts: HashMap<u32, u32>,
}

impl<'a> NameStarts<'a> {
    fn new(store: &'a dyn ChessStore) -> NameStarts<'a> {
        NameStarts {
            store,
            starts: HashMap::new(),
        }
    }

    /// The key of the game `s` summarizes, its players' name starts found if new.
    fn key(&mut self, s: &GameSummary) -> Key {
        let store = self.store;
        let mut start_of = |id: u32| {
            *(self.starts)
                .entry(id)
                .or_insert_with(|| name_start(&store.name(NameKind::Player, id)))
        };
        let (white, black) = (start_of(s.white), start_of(s.black));
        key_of(s, white, black)
    }

    /// The key of the game `s` summarizes, its players' name starts found before
    /// ([`key`](Self::key)): shared by threads.
    fn known_key(&self, s: &GameSummary) -> Key {
        key_of(s, self.starts[&s.white], self.starts[&s.black])
    }
}

/// The twins among the games of `keyed` (each with its key) that share a key, added to
/// `twins`.
fn judge_by_key(store: &dyn ChessStore, mut keyed: Vec<(Key, u32)>, twins: &mut Twins) {
    keyed.sort_unstable();
    for same in keyed.chunk_by(|a, b| a.0 == b.0).filter(|s| s.len() > 1) {
        let games: Vec<u32> = same.iter().map(|&(_, n)| n).collect();
        twins_among(store, &games, twins);
    }
}

/// [`find`], the games sorted by `hash` of their keys: whatever keys share a hash, each
/// group holds games of one key alone (the tests make every key collide).
fn find_hashed(store: &dyn ChessStore, hash: impl Fn(&Key) -> u64) -> Twins {
    // Each player's name start found once, then read by the threads below.
    let mut starts = NameStarts::new(store);
    // Every live game with a hash of its key, sorted: 12 bytes a game (120 MB at ten
    // million games, where the key itself took twice that), one sort, no map of groups.
    let mut hashed: Vec<[u32; 3]> = Vec::with_capacity(store.game_count() as usize);
    for n in 0..store.game_count() {
        let s: GameSummary = store.summary(n);
        if s.deleted || !store.classified(n) {
            continue;
        }
        let h = hash(&starts.key(&s));
        hashed.push([(h >> 32) as u32, h as u32, n]);
    }
    hashed.sort_unstable();
    let mut runs: Vec<&[[u32; 3]]> = hashed
        .chunk_by(|a, b| a[..2] == b[..2])
        .filter(|run| run.len() > 1)
        .collect();
    // In the order of their first games (each run's games ascend): each thread takes a
    // stretch of them, so the games it reads lie near each other in the database's file, a
    // page read for many games, where the hashes' order read them all over it (at ten million
    // games, every game a twin, from a cold cache: 131 s before, 119 s since).
    runs.sort_unstable_by_key(|run| run[0][2]);
    let decoded: usize = runs.iter().map(|run| run.len()).sum();
    log::debug!(
        "twins: {decoded} of {} live games share their players, site, round, year and month \
         with another: decoded",
        hashed.len()
    );
    // The sets of games are compared on every core; the games of a hash split by their keys
    // first (two keys rarely share a hash).
    let mut twins = runs
        .par_iter()
        .fold(Twins::default, |mut part, run| {
            let keyed = (run.iter())
                .map(|&[_, _, n]| (starts.known_key(&store.summary(n)), n))
                .collect();
            judge_by_key(store, keyed, &mut part);
            part
        })
        .reduce(Twins::default, |mut all, part| {
            all.groups.extend(part.groups);
            all.doomed.extend(part.doomed);
            all
        });
    twins.order();
    twins
}

/// What decides twins and the better copy, of one game.
#[derive(Debug)]
struct Copy {
    n: u32,
    /// Its main line's moves ([`move_code`]).
    moves: Vec<u16>,
    /// It has a comment or a variation: SCID never deletes it as a twin.
    kept: bool,
    /// Its comments, NAGs and variations.
    annotations: u32,
    /// Its tags filled in.
    tags: u32,
}

impl Copy {
    /// Better first: see [`Twins::groups`].
    fn rank(&self) -> impl Ord + use<> {
        (
            std::cmp::Reverse(self.moves.len()),
            std::cmp::Reverse(self.kept),
            std::cmp::Reverse(self.annotations),
            std::cmp::Reverse(self.tags),
            self.n,
        )
    }
}

/// Add the twins among `games` (of one [`Key`]) to `twins`.
fn twins_among(store: &dyn ChessStore, games: &[u32], twins: &mut Twins) {
    let copies: Vec<Copy> = games
        .iter()
        .filter_map(|&n| match copy_of(store, n) {
            Ok(c) => (c.moves.len() >= SHORTEST).then_some(c),
            Err(e) => {
                log::debug!("twins: game {} left out: {e}", n + 1);
                None
            }
        })
        .collect();
    twins_of(copies, twins);
}

/// Add the twins among `copies` (games of one [`Key`], long enough) to `twins`: the groups,
/// and the games SCID's deletion deletes. SCID weighs every pair; here a game meets only
/// the games with its own moves and those that go on from them.
fn twins_of(mut copies: Vec<Copy>, twins: &mut Twins) {
    // Sorted by moves (of equal moves, the better copy first), the games whose moves start
    // with a game's moves come right after it.
    copies.sort_unstable_by(|a, b| a.moves.cmp(&b.moves).then_with(|| a.rank().cmp(&b.rank())));
    let mut blocks = Vec::new();
    let mut start = 0;
    for block in copies.chunk_by(|a, b| a.moves == b.moves) {
        blocks.push(start..start + block.len());
        start += block.len();
    }
    let mut parent: Vec<usize> = (0..copies.len()).collect();
    for (b, block) in blocks.iter().enumerate() {
        for i in block.clone().skip(1) {
            join(&mut parent, block.start, i);
        }
        let moves = &copies[block.start].moves;
        let mut goes_on = false;
        for later in &blocks[b + 1..] {
            if !copies[later.start].moves.starts_with(moves) {
                break;
            }
            join(&mut parent, block.start, later.start);
            goes_on = true;
        }
        // Of each pair SCID deletes the shorter game, of two as long one (here the worse
        // copy: all but the block's first), but never one with comments or variations.
        for (k, copy) in copies[block.clone()].iter().enumerate() {
            if !copy.kept && (goes_on || k > 0) {
                twins.doomed.push(copy.n);
            }
        }
    }
    let mut groups: HashMap<usize, Vec<&Copy>> = HashMap::new();
    for (i, copy) in copies.iter().enumerate() {
        let root = root_of(&mut parent, i);
        groups.entry(root).or_default().push(copy);
    }
    for mut group in groups.into_values().filter(|g| g.len() > 1) {
        group.sort_unstable_by_key(|c| c.rank());
        twins.groups.push(group.iter().map(|c| c.n).collect());
    }
}

/// The root of `i`'s set in the union-find forest `parent`.
fn root_of(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Join the sets of `a` and `b`.
fn join(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (root_of(parent, a), root_of(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

/// Game `n` as twins are judged, told by the store's streaming visitor.
fn copy_of(store: &dyn ChessStore, n: u32) -> Result<Copy> {
    let mut recorder = CopyRecorder {
        copy: Copy {
            n,
            moves: Vec::new(),
            kept: false,
            annotations: 0,
            tags: 0,
        },
        depth: 0,
    };
    store.visit(n, &mut recorder)?;
    Ok(recorder.copy)
}

/// The tags of `headers` filled in: the roster's known values and every other tag.
fn tags_filled(headers: &Headers) -> u32 {
    let known = |s: &str| !s.is_empty() && s != "?" && s != "-";
    let names = [
        &headers.event,
        &headers.site,
        &headers.round,
        &headers.white,
        &headers.black,
    ];
    let date = [
        headers.date.year.is_some(),
        headers.date.month.is_some(),
        headers.date.day.is_some(),
    ];
    let others = [
        headers.result != GameResult::Unknown,
        headers.white_rating.is_some(),
        headers.black_rating.is_some(),
        headers.eco.is_some(),
        headers.event_date.is_some(),
    ];
    let count = |flags: &[bool]| flags.iter().filter(|&&f| f).count();
    (names.iter().filter(|s| known(s)).count()
        + count(&date)
        + count(&others)
        + headers.extra.len()) as u32
}

/// A [`GameVisitor`] that records a game as a [`Copy`].
struct CopyRecorder {
    copy: Copy,
    /// How deep in variations the events are (0: the main line).
    depth: u32,
}

impl GameVisitor for CopyRecorder {
    fn begin(&mut self, headers: &Headers, _start: &StartPosition) -> Result<()> {
        self.copy.tags = tags_filled(headers);
        Ok(())
    }

    fn line_comment(&mut self, _text: &str) -> Result<()> {
        self.copy.kept = true;
        self.copy.annotations += 1;
        Ok(())
    }

    fn ply(
        &mut self,
        _before: &shakmaty::Chess,
        ply: &Ply,
        _after: &shakmaty::Chess,
        _check: bool,
    ) -> Result<()> {
        if self.depth == 0 {
            self.copy.moves.push(match ply {
                Ply::Move(m) => move_code(m),
                Ply::Null => NULL_MOVE,
            });
        }
        Ok(())
    }

    fn nag(&mut self, _nag: u8) -> Result<()> {
        self.copy.annotations += 1;
        Ok(())
    }

    fn comment(&mut self, _text: &str) -> Result<()> {
        self.copy.kept = true;
        self.copy.annotations += 1;
        Ok(())
    }

    fn begin_variation(&mut self) -> Result<()> {
        self.depth += 1;
        self.copy.kept = true;
        self.copy.annotations += 1;
        Ok(())
    }

    fn end_variation(&mut self) -> Result<()> {
        self.depth = self.depth.saturating_sub(1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(n: u32, moves: &[u16], kept: bool) -> Copy {
        Copy {
            n,
            moves: moves.to_vec(),
            kept,
            annotations: u32::from(kept),
            tags: 0,
        }
    }

    #[test]
    fn games_whose_keys_share_a_hash_are_twins_only_of_their_own_key() {
        // The real games of tests/data/najdorf/, each of its first 40 again (40 groups of
        // two, whose keys all differ), and the first game's moves by another player: no twin
        // of it, its key another.
        let pgn =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/najdorf/najdorf.pgn");
        let text = String::from_utf8_lossy(&std::fs::read(pgn).unwrap()).into_owned();
        let firsts: Vec<&str> = text.split("\n[Event ").take(40).collect();
        let other: String = firsts[0]
            .lines()
            .map(|l| match l.starts_with("[White ") {
                true => "[White \"Nobody, Else\"]\n".to_owned(),
                false => format!("{l}\n"),
            })
            .collect();
        let again = firsts.join("\n[Event ");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("twice.pgn");
        std::fs::write(&file, format!("{text}\n\n{again}\n\n{other}\n")).unwrap();
        let store = crate::store::open(&file, false).unwrap();
        let hashed = find(&*store);
        assert!(
            hashed.groups().len() >= 40,
            "{} groups",
            hashed.groups().len()
        );
        let other = store.game_count() - 1;
        assert!(hashed.groups().iter().all(|g| !g.contains(&other)));
        // Every game's key hashed alike: one run of all the games, split by their keys.
        let collided = find_hashed(&*store, |_| 0);
        assert_eq!(collided.groups(), hashed.groups());
        assert_eq!(collided.to_delete(), hashed.to_delete());
    }

    #[test]
    fn an_update_after_changes_equals_finding_the_twins_again() {
        // The real games of tests/data/najdorf/, each of its first 30 again with the colours
        // swapped: groups to start with, then random saves (a copy of another game, a
        // copy cut short, another player, another comment), deletions, undeletions and
        // appended copies, each round's update checked against finding every twin again.
        let pgn =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/najdorf/najdorf.pgn");
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("db");
        crate::store::create(&base, crate::store::Format::Scid).unwrap();
        let store = crate::store::open(&base, true).unwrap();
        let text = std::fs::read(pgn).unwrap();
        // The games the strict parser takes (a few join two comments after a move).
        let parsed = || crate::text::pgn_parse::games(&text).filter_map(|g| g.ok().map(Ok));
        store.append(&mut parsed()).unwrap();
        store
            .append(&mut parsed().take(30).map(|g| {
                g.map(|mut g: crate::game::ChessGame| {
                    std::mem::swap(&mut g.headers.white, &mut g.headers.black);
                    g
                })
            }))
            .unwrap();
        let mut twins = find(&*store);
        assert!(
            twins.groups().len() >= 10,
            "{} groups",
            twins.groups().len()
        );
        let mut rng = crate::testing::Rng(54);
        let mut rounds_that_changed_twins = 0;
        for round in 0..60 {
            let count = store.game_count() as usize;
            let mut changed = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let n = rng.below(count) as u32;
                let other = rng.below(count) as u32;
                match rng.below(6) {
                    0 => {
                        let copy = store.load(other).unwrap();
                        store.replace(n, &copy).unwrap();
                    }
                    1 => {
                        let mut copy = store.load(other).unwrap();
                        let keep = copy.moves.moves.len().saturating_sub(rng.below(8));
                        copy.moves.moves.truncate(keep);
                        store.replace(n, &copy).unwrap();
                    }
                    2 => {
                        let mut game = store.load(n).unwrap();
                        game.headers.white = format!("Somebody {round}");
                        store.replace(n, &game).unwrap();
                    }
                    3 => {
                        let mut game = store.load(n).unwrap();
                        game.moves.comment = Some(format!("round {round}"));
                        store.replace(n, &game).unwrap();
                    }
                    4 => store.set_deleted(n, !store.deleted(n)).unwrap(),
                    _ => {
                        let copy = store.load(other).unwrap();
                        let added = store.append(&mut std::iter::once(Ok(copy))).unwrap();
                        changed.extend(added);
                        continue;
                    }
                }
                changed.push(n);
            }
            changed.sort_unstable();
            changed.dedup();
            let updated = update(&*store, &twins, &changed);
            let found = find(&*store);
            assert_eq!(updated, found, "round {round}, games {changed:?} changed");
            rounds_that_changed_twins += usize::from(found != twins);
            twins = found;
        }
        // The rounds did change the twins, most of the time.
        assert!(
            rounds_that_changed_twins > 30,
            "{rounds_that_changed_twins}"
        );
        // Every game of a group deleted at once: none is left to share its key.
        let group = twins.groups()[0].clone();
        for &n in &group {
            store.set_deleted(n, true).unwrap();
        }
        let updated = update(&*store, &twins, &group);
        assert!(!updated.groups().contains(&group));
        assert_eq!(updated, find(&*store));
    }

    #[test]
    fn names_match_by_their_first_four_bytes_in_either_case() {
        assert_eq!(name_start("Carlsen, Magnus"), name_start("CARLSEN M"));
        assert_ne!(name_start("Carlsen"), name_start("Caruana"));
        assert_eq!(name_start("Al"), u32::from_be_bytes(*b"al\0\0"));
    }

    /// The groups and the games deleted among `copies`.
    fn judged(copies: Vec<Copy>) -> (Vec<Vec<u32>>, Vec<u32>) {
        let mut twins = Twins::default();
        twins_of(copies, &mut twins);
        twins.groups.sort_unstable();
        twins.doomed.sort_unstable();
        (twins.groups, twins.doomed)
    }

    #[test]
    fn the_shorter_copy_goes_unless_it_is_commented() {
        let long = || copy(0, &[1, 2, 3], false);
        assert_eq!(
            judged(vec![long(), copy(1, &[1, 2], false)]),
            (vec![vec![0, 1]], vec![1])
        );
        assert_eq!(
            judged(vec![long(), copy(1, &[1, 2], true)]),
            (vec![vec![0, 1]], vec![])
        );
        // As long: the worse copy, the one without comments.
        assert_eq!(
            judged(vec![long(), copy(2, &[1, 2, 3], true)]),
            (vec![vec![2, 0]], vec![0])
        );
        // Three copies: all but the better one; no twin for other moves.
        assert_eq!(
            judged(vec![
                copy(5, &[1, 2, 3], false),
                long(),
                copy(3, &[1, 2, 3], false),
                copy(4, &[1, 3], false),
            ]),
            (vec![vec![0, 3, 5]], vec![3, 5])
        );
        // A short game that begins two others that part later joins them, and goes.
        assert_eq!(
            judged(vec![
                long(),
                copy(1, &[1, 2, 4], false),
                copy(2, &[1, 2], false)
            ]),
            (vec![vec![0, 1, 2]], vec![2])
        );
    }
}
