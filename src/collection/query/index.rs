//! The header index: for each field a header query asks (the players, event, site, round,
//! date, ratings, ECO code, result and length), the live games of each value, so that a query
//! reads the lists its values name instead of every game's index entry (the scan of
//! `eval::matching`, and of SCID's header search, which reads its whole index in
//! memory). A name condition finds its names in the index's own copy of each dictionary,
//! folded as SCID's name search folds them, with one substring search over all of them.
//!
//! Kept beside the position index (`INDEX.headers`) for the database files of one stamp
//! ([`crate::collection::positions::stamp_of`]); it is made from the store's index alone, in
//! about the time of one pass over it, and any change of the games forgets it (a query then
//! scans until it is made again).
//!
//! Layout, little-endian: the magic `GFHEAD02`; the stamp (8 bytes), the game count (4), the
//! number of lists (4) and the columns kept (4, a bit per column: the ratings and lengths
//! only where the store's index holds them, [`ChessStore::ratings_in_index`]); per list, ascending by column then value, its column (4), its
//! value (4) and where its games end in the lists' bytes (4); then the names of the four
//! dictionaries (players, events, sites, rounds), each as the number of names (4), their IDs
//! (4 each), where each one's folded text ends in its bytes (4 each), the bytes' length (4)
//! and the bytes (each folded name followed by a line feed); then the lists, each game as the
//! difference from the one before (the first from 0) in LEB128. Deleted games and games the
//! store cannot classify are in one list of their own (column `Dead`) and in no other.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use fixedbitset::FixedBitSet;
use memmap2::Mmap;

use super::parse::{Condition, Field, Value};
use crate::collection::positions::endings::Bytes;
use crate::collection::positions::file::{get_varint, keep_beside, put_varint};
use crate::game::GameResult;
use crate::store::scid::derive::pack_date;
use crate::store::{ChessStore, NameKind};

const MAGIC: &[u8; 8] = b"GFHEAD02";
const HEADER: usize = 8 + 8 + 4 + 4 + 4;
/// Lists at most this far apart are asked of the kernel as one range ([`HeaderIndex::prefetch`]).
const PREFETCH_GAP: usize = 64 << 10;
/// Bytes of a list's entry in the table: its column, value and end.
const ENTRY: usize = 12;
/// The dictionaries whose names the index keeps, in the file's order.
const DICTIONARIES: [NameKind; 4] = [
    NameKind::Player,
    NameKind::Event,
    NameKind::Site,
    NameKind::Round,
];

/// What a list's value is, as its column in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u32)]
enum Column {
    /// The games in no other list (deleted, or unclassified), under value 0.
    Dead,
    White,
    Black,
    Event,
    Site,
    Round,
    /// The date packed as SCID packs it ([`pack_date`]).
    Date,
    WhiteElo,
    BlackElo,
    Eco,
    /// The result as SCID numbers it ([`result_value`]).
    Result,
    /// Half moves of the main line (modulo 1024, as SCID's index keeps them).
    Plies,
}

/// A result as the index's value for it (SCID's numbering: unknown, White, Black, draw).
fn result_value(r: GameResult) -> u32 {
    match r {
        GameResult::Unknown => 0,
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    }
}

/// `name` as SCID's header search compares names: spaces left out, ASCII letters in lower
/// case (`strAlphaContains`).
fn fold(name: &[u8]) -> Vec<u8> {
    name.iter()
        .filter(|&&c| c != b' ')
        .map(u8::to_ascii_lowercase)
        .collect()
}

/// Where one dictionary's names are in the index's bytes.
#[derive(Clone, Debug, Default)]
struct Names {
    /// The IDs, 4 bytes each.
    ids: Range<usize>,
    /// Where each folded name ends (its line feed's place in `text`), 4 bytes each.
    ends: Range<usize>,
    /// The folded names, each followed by a line feed.
    text: Range<usize>,
}

/// The header index of one database (see the module's documentation).
pub struct HeaderIndex {
    /// The whole index, whose lists are read where they are.
    bytes: Bytes,
    /// A copy of its table and names, which every query reads (a megabyte or two at a million
    /// games): held in memory, so that a query after the page cache was dropped reads only
    /// the lists it names.
    head: Vec<u8>,
    lists: usize,
    names: [Names; 4],
    /// Where the lists' bytes start.
    data: usize,
}

/// One list of games as the games are read, ascending: each the difference from the one
/// before, and the last.
#[derive(Default)]
struct List {
    bytes: Vec<u8>,
    last: Option<u32>,
}

impl List {
    fn add(&mut self, game: u32) {
        if self.last.is_none_or(|last| game > last) {
            let from = self.last.unwrap_or(0);
            put_varint(&mut self.bytes, u64::from(game - from));
            self.last = Some(game);
        }
    }
}

/// Values below this (name IDs, ratings, codes) have their lists found by place; dates and
/// bigger values (an unknown name's ID) by hash.
const BY_PLACE: u32 = 1 << 21;

/// The lists of games by column and value as the games are read.
#[derive(Default)]
struct Gathered {
    by_value: HashMap<Column, Vec<List>>,
    hashed: HashMap<(Column, u32), List, foldhash::fast::RandomState>,
}

impl Gathered {
    fn add(&mut self, column: Column, value: u32, game: u32) {
        if column == Column::Date || value >= BY_PLACE {
            return self.hashed.entry((column, value)).or_default().add(game);
        }
        let lists = self.by_value.entry(column).or_default();
        let at = value as usize;
        if lists.len() <= at {
            lists.resize_with(at + 1, List::default);
        }
        lists[at].add(game);
    }

    /// Every list, by column and value, ascending.
    fn into_sorted(self) -> Vec<((Column, u32), Vec<u8>)> {
        let mut all: Vec<((Column, u32), Vec<u8>)> = self
            .by_value
            .into_iter()
            .flat_map(|(column, lists)| {
                lists
                    .into_iter()
                    .enumerate()
                    .filter(|(_, l)| l.last.is_some())
                    .map(move |(value, l)| ((column, value as u32), l.bytes))
            })
            .chain(self.hashed.into_iter().map(|(key, l)| (key, l.bytes)))
            .collect();
        all.sort_unstable_by_key(|(key, _)| *key);
        all
    }
}

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl HeaderIndex {
    /// The index of the games of `store` (whose files are stamped `stamp`), read from its
    /// index entries: one pass over the games.
    pub fn build(store: &dyn ChessStore, stamp: u64) -> HeaderIndex {
        let count = store.game_count();
        let mut kept = u32::MAX;
        if !store.ratings_in_index() {
            kept &= !(1 << Column::WhiteElo as u32 | 1 << Column::BlackElo as u32);
        }
        if !store.plies_in_index() {
            kept &= !(1 << Column::Plies as u32);
        }
        let keeps = |c: Column| kept & 1 << c as u32 != 0;
        let mut g = Gathered::default();
        for n in 0..count {
            let s = store.summary(n);
            if s.deleted || !store.classified(n) {
                g.add(Column::Dead, 0, n);
                continue;
            }
            g.add(Column::White, s.white, n);
            g.add(Column::Black, s.black, n);
            g.add(Column::Event, s.event, n);
            g.add(Column::Site, s.site, n);
            g.add(Column::Round, s.round, n);
            g.add(Column::Date, pack_date(s.date), n);
            if keeps(Column::WhiteElo) {
                let [white_elo, black_elo] = store.ratings(n);
                g.add(Column::WhiteElo, u32::from(white_elo), n);
                g.add(Column::BlackElo, u32::from(black_elo), n);
            }
            g.add(Column::Eco, u32::from(s.eco), n);
            g.add(Column::Result, result_value(s.result), n);
            if keeps(Column::Plies) {
                g.add(Column::Plies, u32::from(store.plies(n)), n);
            }
        }
        let lists = g.into_sorted();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&stamp.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&(lists.len() as u32).to_le_bytes());
        out.extend_from_slice(&kept.to_le_bytes());
        let mut end = 0usize;
        for ((column, value), bytes) in &lists {
            end += bytes.len();
            out.extend_from_slice(&(*column as u32).to_le_bytes());
            out.extend_from_slice(&value.to_le_bytes());
            out.extend_from_slice(&(end as u32).to_le_bytes());
        }
        for kind in DICTIONARIES {
            let columns: &[Column] = match kind {
                NameKind::Player => &[Column::White, Column::Black],
                NameKind::Event => &[Column::Event],
                NameKind::Site => &[Column::Site],
                _ => &[Column::Round],
            };
            let mut ids: Vec<u32> = lists
                .iter()
                .filter(|(k, _)| columns.contains(&k.0))
                .map(|(k, _)| k.1)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let mut text = Vec::new();
            let mut ends = Vec::with_capacity(ids.len());
            for &id in &ids {
                text.extend(fold(store.name(kind, id).as_bytes()));
                ends.push(text.len() as u32);
                text.push(b'\n');
            }
            out.extend_from_slice(&(ids.len() as u32).to_le_bytes());
            ids.iter()
                .for_each(|id| out.extend_from_slice(&id.to_le_bytes()));
            ends.iter()
                .for_each(|e| out.extend_from_slice(&e.to_le_bytes()));
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(&text);
        }
        // Each list let go of as it is copied: at ten million games the lists are some 240 MB.
        out.reserve_exact(end);
        for (_, bytes) in lists {
            out.extend_from_slice(&bytes);
        }
        HeaderIndex::check(Bytes::Owned(out)).expect("an index made whole")
    }

    /// Keep the index at `path`, durably and atomically (a temporary file renamed over it).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        keep_beside(path, &self.bytes)
    }

    /// The index kept at `path` for the database files stamped `stamp`; `None` when it is
    /// missing, not whole, or another's.
    pub fn open(path: &Path, stamp: u64) -> Option<HeaderIndex> {
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: as the index file's (`IndexFile::open`): ours, written whole and renamed
        // into place, never changed in place.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        HeaderIndex::check(Bytes::Mapped(map)).filter(|i| i.stamp() == stamp)
    }

    /// `bytes` as an index, when they are a whole one.
    fn check(bytes: Bytes) -> Option<HeaderIndex> {
        if bytes.get(..8)? != MAGIC {
            return None;
        }
        let number = |at: usize| bytes.get(at..at + 4).map(|b| word(b, 0) as usize);
        let lists = number(20)?;
        let mut at = HEADER.checked_add(lists.checked_mul(ENTRY)?)?;
        let mut names: [Names; 4] = Default::default();
        for n in &mut names {
            let count = number(at)?;
            let ids = at + 4..at + 4 + count.checked_mul(4)?;
            let ends = ids.end..ids.end.checked_add(count * 4)?;
            let len = number(ends.end)?;
            let text = ends.end + 4..(ends.end + 4).checked_add(len)?;
            at = text.end;
            *n = Names { ids, ends, text };
        }
        let last_end = match lists {
            0 => 0,
            n => number(HEADER + (n - 1) * ENTRY + 8)?,
        };
        if bytes.len() != at.checked_add(last_end)? {
            return None;
        }
        let index = HeaderIndex {
            head: bytes[..at].to_vec(),
            bytes,
            lists,
            names,
            data: at,
        };
        index.in_order().then_some(index)
    }

    /// True when its table and names are in the order its reads assume (a damaged file is
    /// no index, rather than a slice out of range in a query): lists ascending by key and
    /// by place, each folded name ending at a line feed after the one before.
    fn in_order(&self) -> bool {
        let end = |i: usize| word(&self.head, HEADER + i * ENTRY + 8);
        let lists_in_order =
            (1..self.lists).all(|i| self.key(i - 1) < self.key(i) && end(i - 1) <= end(i));
        lists_in_order
            && self.names.iter().all(|n| {
                let text = &self.head[n.text.clone()];
                let (ends, _) = self.head[n.ends.clone()].as_chunks::<4>();
                let mut start = 0;
                ends.iter().all(|e| {
                    let e = u32::from_le_bytes(*e) as usize;
                    let ok = e >= start && text.get(e) == Some(&b'\n');
                    start = e + 1;
                    ok
                })
            })
    }

    /// The stamp of the database files it was made from.
    pub fn stamp(&self) -> u64 {
        u64::from_le_bytes(self.head[8..16].try_into().expect("8 bytes"))
    }

    /// The games of the database it was made from.
    pub fn game_count(&self) -> u32 {
        word(&self.head, 16)
    }

    /// True when the index keeps the lists of `column`.
    fn keeps(&self, column: Column) -> bool {
        word(&self.head, 24) & 1 << column as u32 != 0
    }

    /// The bytes it takes.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }

    /// List `i`'s column and value.
    fn key(&self, i: usize) -> (u32, u32) {
        let at = HEADER + i * ENTRY;
        (word(&self.head, at), word(&self.head, at + 4))
    }

    /// Where list `i`'s bytes are.
    fn span(&self, i: usize) -> Range<usize> {
        let end = |i: usize| word(&self.head, HEADER + i * ENTRY + 8) as usize;
        let start = if i == 0 { 0 } else { end(i - 1) };
        self.data + start..self.data + end(i)
    }

    /// The lists of `column` with values from `lo` to `hi`.
    fn within(&self, column: Column, lo: u32, hi: u32) -> Range<usize> {
        let first = |key: (u32, u32)| self.partition(|k| k < key);
        first((column as u32, lo))..self.partition(|k| k <= (column as u32, hi))
    }

    /// The first list whose key does not meet `before`.
    fn partition(&self, before: impl Fn((u32, u32)) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.lists);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if before(self.key(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The games of lists `lists`, together, as a set of the database's games.
    fn games(&self, lists: impl IntoIterator<Item = usize>) -> FixedBitSet {
        let mut all = FixedBitSet::with_capacity(self.game_count() as usize);
        for i in lists {
            let bytes = &self.bytes[self.span(i)];
            let (mut at, mut game) = (0, 0usize);
            while let Some(step) = get_varint(bytes, &mut at) {
                game = game.saturating_add(step as usize);
                if game < all.len() {
                    all.insert(game);
                }
            }
        }
        all
    }

    /// Ask the kernel to read the lists `lists` now, all at once: from a cold page cache a
    /// query's lists are read in parallel rather than one fault after the other. Lists near
    /// each other go as one request, so that a name matching thousands of names asks a few
    /// dozen times, not thousands.
    fn prefetch(&self, lists: &mut [usize]) {
        let Bytes::Mapped(map) = &self.bytes else {
            return;
        };
        lists.sort_unstable();
        let mut runs: Vec<Range<usize>> = Vec::new();
        for &i in lists.iter() {
            let span = self.span(i);
            match runs.last_mut() {
                Some(run) if span.start.saturating_sub(run.end) <= PREFETCH_GAP => {
                    run.end = run.end.max(span.end)
                }
                _ => runs.push(span),
            }
        }
        for run in runs.into_iter().filter(|r| !r.is_empty()) {
            let _ = map.advise_range(memmap2::Advice::WillNeed, run.start, run.len());
        }
    }

    /// The bytes the lists `lists` take: what reading them costs.
    fn cost(&self, lists: impl IntoIterator<Item = usize>) -> usize {
        lists.into_iter().map(|i| self.span(i).len()).sum()
    }

    /// The live games (none of the dead list).
    pub fn live(&self) -> FixedBitSet {
        let mut all = FixedBitSet::with_capacity(self.game_count() as usize);
        all.insert_range(..);
        all.difference_with(&self.games(self.within(Column::Dead, 0, 0)));
        all
    }

    /// The IDs of `kind`'s names meeting value `v` (as [`super::eval`]'s `name_meets`);
    /// `None` when the folded names cannot tell (an empty name or value, a line feed).
    fn name_ids(&self, store: &dyn ChessStore, kind: NameKind, v: &Value) -> Option<Vec<u32>> {
        let names = &self.names[DICTIONARIES.iter().position(|&k| k == kind)?];
        let text = &self.head[names.text.clone()];
        let ends = &self.head[names.ends.clone()];
        let (ends, _) = ends.as_chunks::<4>();
        let end = |i: usize| u32::from_le_bytes(ends[i]) as usize;
        let id = |i: usize| word(&self.head, names.ids.start + i * 4);
        let (key, exact) = match v {
            Value::Contains(key) => (key.clone(), None),
            Value::Exactly(name) => (fold(name.as_bytes()), Some(name)),
            _ => return None,
        };
        if key.is_empty() || key.contains(&b'\n') {
            return None;
        }
        let mut found: Vec<usize> = Vec::new();
        for at in memchr::memmem::find_iter(text, &key) {
            let i = ends.partition_point(|e| (u32::from_le_bytes(*e) as usize) < at);
            let start = if i == 0 { 0 } else { end(i - 1) + 1 };
            let whole = at == start && at + key.len() == end(i);
            if found.last() != Some(&i) && (exact.is_none() || whole) {
                found.push(i);
            }
        }
        Some(
            found
                .into_iter()
                .map(id)
                .filter(|&id| exact.is_none_or(|name| *store.name(kind, id) == **name))
                .collect(),
        )
    }

    /// The lists holding the games that meet one of `c`'s values (its negation aside),
    /// several sets of lists when each value needs them all (both ratings); `None` when the
    /// index does not answer it (the annotator, an ending, a name it cannot tell).
    fn lists_of(&self, store: &dyn ChessStore, c: &Condition) -> Option<Vec<Vec<usize>>> {
        let ranges = |columns: &[Column]| -> Option<Vec<usize>> {
            if !columns.iter().all(|&c| self.keeps(c)) {
                return None;
            }
            let mut lists = Vec::new();
            for v in &c.values {
                let &Value::Range(lo, hi) = v else {
                    return None;
                };
                for &column in columns {
                    lists.extend(self.within(column, lo, hi));
                }
            }
            Some(lists)
        };
        let names = |kind: NameKind, columns: &[Column]| -> Option<Vec<usize>> {
            let mut lists = Vec::new();
            for v in &c.values {
                for id in self.name_ids(store, kind, v)? {
                    for &column in columns {
                        lists.extend(self.within(column, id, id));
                    }
                }
            }
            Some(lists)
        };
        let one = |lists: Option<Vec<usize>>| lists.map(|l| vec![l]);
        match c.field {
            Field::White => one(names(NameKind::Player, &[Column::White])),
            Field::Black => one(names(NameKind::Player, &[Column::Black])),
            Field::Player => one(names(NameKind::Player, &[Column::White, Column::Black])),
            Field::Event => one(names(NameKind::Event, &[Column::Event])),
            Field::Site => one(names(NameKind::Site, &[Column::Site])),
            Field::Round => one(names(NameKind::Round, &[Column::Round])),
            Field::WhiteElo => one(ranges(&[Column::WhiteElo])),
            Field::BlackElo => one(ranges(&[Column::BlackElo])),
            Field::AnyElo => one(ranges(&[Column::WhiteElo, Column::BlackElo])),
            // One value holding both: with one value, White's lists and Black's, both met.
            Field::BothElo if c.values.len() == 1 => Some(vec![
                ranges(&[Column::WhiteElo])?,
                ranges(&[Column::BlackElo])?,
            ]),
            Field::Date => one(ranges(&[Column::Date])),
            Field::Eco => one(ranges(&[Column::Eco])),
            Field::Plies => one(ranges(&[Column::Plies])),
            Field::Result => c
                .values
                .iter()
                .map(|v| match v {
                    Value::Result(r) => {
                        let r = result_value(*r);
                        Some(self.within(Column::Result, r, r))
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(|l| vec![l.into_iter().flatten().collect()]),
            Field::BothElo | Field::Annotator | Field::Material => None,
        }
    }

    /// The games that meet `query`'s conditions the index answers, and the conditions left
    /// for the caller to check game by game (those it does not answer, and those cheaper to
    /// check on the few games left than to read). Conditions on endings are left out.
    pub(super) fn narrow<'q>(
        &self,
        store: &dyn ChessStore,
        conditions: &[&'q Condition],
    ) -> (FixedBitSet, Vec<&'q Condition>) {
        let mut answered: Vec<(usize, &Condition, Vec<Vec<usize>>)> = Vec::new();
        let mut left = Vec::new();
        for &c in conditions {
            match self.lists_of(store, c) {
                Some(sets) => {
                    let cost = sets.iter().map(|s| self.cost(s.iter().copied())).sum();
                    answered.push((cost, c, sets));
                }
                None => left.push(c),
            }
        }
        let mut all: Vec<usize> = answered.iter().flat_map(|a| a.2.concat()).collect();
        self.prefetch(&mut all);
        // The cheapest first, the negated ones last: they take games away.
        answered.sort_by_key(|(cost, c, _)| (c.negated, *cost));
        let mut games: Option<FixedBitSet> = None;
        for (cost, c, sets) in answered {
            // Reading a list costs a few nanoseconds a byte, checking a game some hundred.
            if games.as_ref().is_some_and(|g| g.count_ones(..) * 50 < cost) {
                left.push(c);
                continue;
            }
            let mut meeting = sets.into_iter().map(|s| self.games(s));
            let mut met = meeting.next().unwrap_or_default();
            meeting.for_each(|m| met.intersect_with(&m));
            games = Some(match (c.negated, games.take()) {
                (false, Some(mut g)) => {
                    g.intersect_with(&met);
                    g
                }
                (false, None) => met,
                (true, g) => {
                    let mut g = g.unwrap_or_else(|| self.live());
                    g.difference_with(&met);
                    g
                }
            });
        }
        (games.unwrap_or_else(|| self.live()), left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_whose_index_lacks_ratings_and_lengths_has_them_read_by_the_query() {
        let pgn =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/najdorf/najdorf.pgn");
        let store = crate::store::open(&pgn, false).unwrap();
        let index = HeaderIndex::build(&*store, 0);
        // Made without decoding a game: names, dates, results and ECO codes only.
        assert!(index.keeps(Column::White) && index.keeps(Column::Date));
        assert!(!index.keeps(Column::WhiteElo) && !index.keeps(Column::Plies));
        let query = super::super::Query::parse("welo=2700-").unwrap();
        assert!(index.lists_of(&*store, &query.conditions[0]).is_none());
    }

    #[test]
    fn a_kept_index_out_of_order_is_none() {
        let pgn =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/najdorf/najdorf.pgn");
        let store = crate::store::open(&pgn, false).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.headers");
        let index = HeaderIndex::build(&*store, 3);
        index.write(&path).unwrap();
        assert!(HeaderIndex::open(&path, 3).is_some());
        let whole = std::fs::read(&path).unwrap();
        let damaged = |at: usize, value: u32| {
            let mut bytes = whole.clone();
            bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
            std::fs::write(&path, &bytes).unwrap();
            HeaderIndex::open(&path, 3).is_none()
        };
        // The first list said to end past the second's start; its key after the second's.
        assert!(damaged(HEADER + 8, u32::MAX));
        assert!(damaged(HEADER, u32::MAX));
        // The first player's name said to end where no line feed is.
        let players = HEADER + index.lists * ENTRY;
        let count = word(&whole, players) as usize;
        assert!(count > 0);
        assert!(damaged(players + 4 + count * 4, 0));
    }

    #[test]
    fn names_fold_as_scid_compares_them() {
        assert_eq!(fold(b"Carlsen, Magnus"), b"carlsen,magnus");
        assert_eq!(fold("Ünal Ö".as_bytes()), "ÜnalÖ".as_bytes());
    }
}
