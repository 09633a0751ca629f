//! The header index: what a header query asks of a game (the players, event, site, round,
//! date, ratings, ECO code, result and length), kept so that a query reads the games its
//! conditions name rather than every game's index entry (the scan of `eval::matching`, and of
//! SCID's header search, which reads its whole index in memory). A name condition finds its
//! names in the index's own copy of each dictionary, folded as SCID's name search folds
//! them, with one substring search over all of them.
//!
//! Kept beside the position index (`INDEX.headers`) for the database files of one stamp
//! ([`crate::collection::positions::stamp_of`]); it is made from the store's index alone, in
//! about the time of one pass over it, and any change of the games forgets it (a query then
//! scans until it is made again).
//!
//! The names (players, event, site, round) are lists of games by value: a name matches few
//! games, whose list is short. The fields asked for by range or among a few values (date,
//! ratings, ECO code, result, length) are kept as one value a game instead ("arrays"): a
//! range such as `year=2015-` holds hundreds of thousands of games at a million, which a
//! list would spell game by game, while an array is compared 64 games at a time, and only
//! where the other conditions left games.
//!
//! Layout, little-endian: the magic `GFHEAD03`; the stamp (8 bytes), the game count (4), the
//! number of lists (4) and the columns kept (4, a bit per column: the ratings and lengths
//! only where the store's index holds them, [`ChessStore::ratings_in_index`]); per list,
//! ascending by column then value, its column (4), its value (4) and where its games end in
//! the lists' bytes (4); then the names of the four dictionaries (players, events, sites,
//! rounds), each as the number of names (4), their IDs (4 each), where each one's folded
//! text ends in its bytes (4 each), the bytes' length (4) and the bytes (each folded name
//! followed by a line feed); then the arrays of the columns kept, in the order of
//! `ARRAYS`, each game's value in that many bytes (0 for a game in no list); then the
//! lists, each game as the difference from the one before (the first from 0) in LEB128.
//! Deleted games and games the store cannot classify are in one list of their own (column
//! `Dead`) and in no other.

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

const MAGIC: &[u8; 8] = b"GFHEAD03";
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

/// The columns kept as arrays, one value a game, in the file's order, with the bytes of a
/// value: the packed date takes 20 bits, the others fewer than 16 (the result 2).
const ARRAYS: [(Column, usize); 6] = [
    (Column::Date, 4),
    (Column::WhiteElo, 2),
    (Column::BlackElo, 2),
    (Column::Eco, 2),
    (Column::Result, 1),
    (Column::Plies, 2),
];

/// What a list's or an array's values are, as its column in the table.
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
    /// Each array kept: its column, the bytes of a value, and where it is.
    arrays: Vec<(Column, usize, Range<usize>)>,
    /// Where the lists' bytes start.
    data: usize,
}

/// A condition the arrays answer: games whose value in one of the columns lies in one of
/// the ranges (both bounds included).
struct Term {
    /// The array of each column asked (its index in [`HeaderIndex::arrays`]).
    arrays: Vec<usize>,
    ranges: Vec<(u32, u32)>,
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

/// The most games of a block compared one by one ([`meeting_of`]); more are compared all at
/// once.
const ONE_BY_ONE: u32 = 8;

/// The games of a block of a [`FixedBitSet`], compared together in an array.
const BLOCK: usize = usize::BITS as usize;

/// The bits of the values of `values` (`W` bytes each, little-endian, a block's at most)
/// within one of `ranges`, of those of `candidates`: one by one when they are few, else the
/// whole block at once, which the compiler turns into vector instructions.
fn meeting_of<const W: usize>(values: &[u8], ranges: &[(u32, u32)], candidates: usize) -> usize {
    let (values, _) = values.as_chunks::<W>();
    let value = |v: &[u8; W]| {
        let mut x = [0u8; 4];
        x[..W].copy_from_slice(v);
        u32::from_le_bytes(x)
    };
    let within = |x: u32| ranges.iter().any(|&(lo, hi)| lo <= x && x <= hi);
    if candidates.count_ones() <= ONE_BY_ONE {
        let (mut met, mut rest) = (0, candidates);
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if values.get(j).is_some_and(|v| within(value(v))) {
                met |= 1 << j;
            }
        }
        return met;
    }
    // A byte a value, 1 where it is within (a loop the compiler makes vector instructions
    // of), then eight bytes at a time made eight bits.
    let mut hits = [0u8; BLOCK];
    match *ranges {
        // One range, as most are: one comparison a value.
        [(lo, hi)] if lo <= hi => {
            for (h, v) in hits.iter_mut().zip(values) {
                *h = u8::from(value(v).wrapping_sub(lo) <= hi - lo);
            }
        }
        _ => {
            for (h, v) in hits.iter_mut().zip(values) {
                *h = u8::from(within(value(v)));
            }
        }
    }
    let (eights, _) = hits.as_chunks::<8>();
    let all = eights.iter().enumerate().fold(0usize, |m, (k, eight)| {
        // Byte i (0 or 1) lands on bit 56 + i of the product.
        let bits = u64::from_le_bytes(*eight).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        m | (bits as usize) << (8 * k)
    });
    all & candidates
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
        // Each array kept, a value a game.
        let mut arrays: Vec<(Column, usize, Vec<u8>)> = ARRAYS
            .iter()
            .filter(|(c, _)| keeps(*c))
            .map(|&(c, width)| (c, width, Vec::with_capacity(width * count as usize)))
            .collect();
        for n in 0..count {
            let s = store.summary(n);
            let live = !s.deleted && store.classified(n);
            if live {
                g.add(Column::White, s.white, n);
                g.add(Column::Black, s.black, n);
                g.add(Column::Event, s.event, n);
                g.add(Column::Site, s.site, n);
                g.add(Column::Round, s.round, n);
            } else {
                g.add(Column::Dead, 0, n);
            }
            let ratings = (live && keeps(Column::WhiteElo)).then(|| store.ratings(n));
            for (column, width, values) in &mut arrays {
                let value = match (live, *column) {
                    (false, _) => 0,
                    (_, Column::Date) => pack_date(s.date),
                    (_, Column::WhiteElo) => u32::from(ratings.unwrap_or_default()[0]),
                    (_, Column::BlackElo) => u32::from(ratings.unwrap_or_default()[1]),
                    (_, Column::Eco) => u32::from(s.eco),
                    (_, Column::Result) => result_value(s.result),
                    (_, Column::Plies) => u32::from(store.plies(n)),
                    // No other column is an array (`ARRAYS`).
                    _ => 0,
                };
                values.extend_from_slice(&value.to_le_bytes()[..*width]);
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
        for (_, _, values) in arrays {
            out.extend_from_slice(&values);
        }
        // Each list let go of as it is copied: at ten million games the lists are some 110 MB.
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
        let head_end = at;
        let kept = number(24)? as u32;
        let count = number(16)?;
        let mut arrays = Vec::new();
        for (column, width) in ARRAYS {
            if kept & 1 << column as u32 != 0 {
                let end = at.checked_add(count.checked_mul(width)?)?;
                arrays.push((column, width, at..end));
                at = end;
            }
        }
        let last_end = match lists {
            0 => 0,
            n => number(HEADER + (n - 1) * ENTRY + 8)?,
        };
        if bytes.len() != at.checked_add(last_end)? {
            return None;
        }
        let index = HeaderIndex {
            head: bytes[..head_end].to_vec(),
            bytes,
            lists,
            names,
            arrays,
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

    /// True when the index keeps the lists or the array of `column`.
    #[cfg(test)]
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

    /// Read the whole index into the mount's memory now, its pages mapped (about 25 bytes a
    /// game), as SCID reads its index whole when it opens a base: a query then reads no disk,
    /// even after the page cache was dropped (mapped pages are not dropped), while the kernel
    /// may still take the pages back when memory runs short (they are the file's). Called by
    /// the threads that find the index in the background, never by a query, which would wait
    /// for the whole read.
    pub fn hold(&self) {
        if let Bytes::Mapped(map) = &self.bytes {
            crate::collection::held::hold(map, 0..map.len());
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

    /// The lists holding the games that meet one of name condition `c`'s values (its
    /// negation aside); `None` when it is no name condition or the folded names cannot tell.
    fn lists_of(&self, store: &dyn ChessStore, c: &Condition) -> Option<Vec<usize>> {
        let (kind, columns): (NameKind, &[Column]) = match c.field {
            Field::White => (NameKind::Player, &[Column::White]),
            Field::Black => (NameKind::Player, &[Column::Black]),
            Field::Player => (NameKind::Player, &[Column::White, Column::Black]),
            Field::Event => (NameKind::Event, &[Column::Event]),
            Field::Site => (NameKind::Site, &[Column::Site]),
            Field::Round => (NameKind::Round, &[Column::Round]),
            _ => return None,
        };
        let mut lists = Vec::new();
        for v in &c.values {
            for id in self.name_ids(store, kind, v)? {
                for &column in columns {
                    lists.extend(self.within(column, id, id));
                }
            }
        }
        Some(lists)
    }

    /// The terms of the arrays that `c` needs met, all of them (both ratings: two); `None`
    /// when the arrays do not answer it (a name, the annotator, an ending, a column not
    /// kept, both ratings within one of several values).
    fn terms_of(&self, c: &Condition) -> Option<Vec<Term>> {
        let array = |column: Column| self.arrays.iter().position(|a| a.0 == column);
        let ranges = || -> Option<Vec<(u32, u32)>> {
            c.values
                .iter()
                .map(|v| match *v {
                    Value::Range(lo, hi) => Some((lo, hi)),
                    Value::Result(r) => Some((result_value(r), result_value(r))),
                    _ => None,
                })
                .collect()
        };
        let term = |columns: &[Column]| -> Option<Term> {
            Some(Term {
                arrays: columns.iter().map(|&c| array(c)).collect::<Option<_>>()?,
                ranges: ranges()?,
            })
        };
        Some(match c.field {
            Field::Date => vec![term(&[Column::Date])?],
            Field::WhiteElo => vec![term(&[Column::WhiteElo])?],
            Field::BlackElo => vec![term(&[Column::BlackElo])?],
            Field::AnyElo => vec![term(&[Column::WhiteElo, Column::BlackElo])?],
            // One value holding both: White's rating within it, and Black's.
            Field::BothElo if c.values.len() == 1 => {
                vec![term(&[Column::WhiteElo])?, term(&[Column::BlackElo])?]
            }
            Field::Eco => vec![term(&[Column::Eco])?],
            Field::Result => vec![term(&[Column::Result])?],
            Field::Plies => vec![term(&[Column::Plies])?],
            _ => return None,
        })
    }

    /// The games of block `block` of a [`FixedBitSet`] (its [`BLOCK`] games) whose value in
    /// array `a` lies in one of `ranges`, as the block's bits; only those of `candidates`
    /// are looked at.
    fn meeting(&self, a: usize, ranges: &[(u32, u32)], block: usize, candidates: usize) -> usize {
        let (_, width, at) = &self.arrays[a];
        let from = at.start + block * BLOCK * width;
        let to = (from + BLOCK * width).min(at.end);
        let values = &self.bytes[from..to];
        match width {
            1 => meeting_of::<1>(values, ranges, candidates),
            2 => meeting_of::<2>(values, ranges, candidates),
            _ => meeting_of::<4>(values, ranges, candidates),
        }
    }

    /// Keep of `games` those meeting every condition of `conditions` (each terms that must
    /// all be met, and whether it is negated), a block of games at a time.
    fn keep_meeting(&self, games: &mut FixedBitSet, conditions: &[(bool, Vec<Term>)]) {
        if conditions.is_empty() {
            return;
        }
        for (block, bits) in games.as_mut_slice().iter_mut().enumerate() {
            let mut left = *bits;
            for (negated, terms) in conditions {
                if left == 0 {
                    break;
                }
                let mut met = left;
                for term in terms {
                    met &= term
                        .arrays
                        .iter()
                        .fold(0, |any, &a| any | self.meeting(a, &term.ranges, block, met));
                }
                left = if *negated { left & !met } else { met };
            }
            *bits = left;
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
        let mut answered: Vec<(usize, &Condition, Vec<usize>)> = Vec::new();
        let mut compared = Vec::new();
        let mut left = Vec::new();
        for &c in conditions {
            if let Some(terms) = self.terms_of(c) {
                compared.push((c.negated, terms));
            } else if let Some(lists) = self.lists_of(store, c) {
                answered.push((self.cost(lists.iter().copied()), c, lists));
            } else {
                left.push(c);
            }
        }
        let mut all: Vec<usize> = answered.iter().flat_map(|a| a.2.clone()).collect();
        self.prefetch(&mut all);
        // The cheapest first, the negated ones last: they take games away.
        answered.sort_by_key(|(cost, c, _)| (c.negated, *cost));
        let mut games: Option<FixedBitSet> = None;
        for (cost, c, lists) in answered {
            // Reading a list costs a few nanoseconds a byte, checking a game some hundred.
            if games.as_ref().is_some_and(|g| g.count_ones(..) * 50 < cost) {
                left.push(c);
                continue;
            }
            let met = self.games(lists);
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
        let mut games = games.unwrap_or_else(|| self.live());
        self.keep_meeting(&mut games, &compared);
        (games, left)
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
        assert!(index.terms_of(&query.conditions[0]).is_none());
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

    /// A held index keeps its pages when the page cache is dropped (they are mapped), so a
    /// query after a `drop_caches` reads no disk; one not held loses them.
    #[test]
    fn a_held_index_keeps_its_pages_when_the_page_cache_is_dropped() {
        use std::os::fd::AsRawFd;
        // A folder on a disk: a tmpfs never drops its pages.
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        // Games enough for lists past the pages a fault maps around the ones opening reads
        // (some 700 KiB of index).
        let mut text = String::new();
        for n in 0..30_000 {
            let date = format!("{}.{:02}.{:02}", 1950 + n % 70, 1 + n % 12, 1 + n % 28);
            text += &format!(
                "[White \"W{n}\"]\n[Black \"B{}\"]\n[Date \"{date}\"]\n\n1. e4 *\n\n",
                n % 97
            );
        }
        let pgn = dir.path().join("games.pgn");
        std::fs::write(&pgn, text).unwrap();
        let store = crate::store::open(&pgn, false).unwrap();
        let path = dir.path().join("index.headers");
        HeaderIndex::build(&*store, 3).write(&path).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // Drop the file's pages that no map holds, then count those in the page cache.
        let drop_and_count = |index: &HeaderIndex| {
            // SAFETY: advice on a file this test opened.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            let Bytes::Mapped(map) = &index.bytes else {
                panic!("a kept index is mapped");
            };
            let mut resident = vec![0u8; map.len().div_ceil(4096)];
            // SAFETY: the map's own range, a byte of `resident` for each of its pages.
            let ok =
                unsafe { libc::mincore(map.as_ptr() as *mut _, map.len(), resident.as_mut_ptr()) };
            assert_eq!(ok, 0);
            (
                resident.iter().filter(|&&r| r & 1 == 1).count(),
                resident.len(),
            )
        };
        let index = HeaderIndex::open(&path, 3).unwrap();
        // Opening it read its table and names (those pages are mapped), not its lists.
        let (kept, pages) = drop_and_count(&index);
        assert!(
            kept < pages,
            "the page cache of {} drops pages",
            dir.path().display()
        );
        index.hold();
        assert_eq!(drop_and_count(&index), (pages, pages));
    }

    /// A block's values compared at once, or one by one, are the values within the ranges.
    #[test]
    fn a_block_of_values_meets_the_ranges_its_values_are_in() {
        let mut rng = crate::testing::Rng(0x5EED);
        for round in 0..2000 {
            let count = [BLOCK, BLOCK, 1, 7, BLOCK - 1][round % 5];
            let values: Vec<u32> = (0..count).map(|_| rng.below(40) as u32).collect();
            let ranges: Vec<(u32, u32)> = (0..1 + round % 3)
                .map(|_| (rng.below(45) as u32, rng.below(45) as u32))
                .collect();
            let candidates = match round % 4 {
                0 => usize::MAX,
                1 => 1 << rng.below(BLOCK) | 1 << rng.below(BLOCK),
                _ => rng.next_u64() as usize,
            };
            let want = (0..count)
                .filter(|&j| candidates >> j & 1 == 1)
                .filter(|&j| {
                    ranges
                        .iter()
                        .any(|&(lo, hi)| lo <= values[j] && values[j] <= hi)
                })
                .fold(0usize, |m, j| m | 1 << j);
            let bytes = |w: usize| -> Vec<u8> {
                values
                    .iter()
                    .flat_map(|v| v.to_le_bytes()[..w].to_vec())
                    .collect()
            };
            assert_eq!(meeting_of::<1>(&bytes(1), &ranges, candidates), want);
            assert_eq!(meeting_of::<2>(&bytes(2), &ranges, candidates), want);
            assert_eq!(meeting_of::<4>(&bytes(4), &ranges, candidates), want);
        }
    }

    #[test]
    fn names_fold_as_scid_compares_them() {
        assert_eq!(fold(b"Carlsen, Magnus"), b"carlsen,magnus");
        assert_eq!(fold("Ünal Ö".as_bytes()), "ÜnalÖ".as_bytes());
    }
}
