//! The position index on disk, in one file in the user's cache folder, mapped and searched in
//! place (the page cache holds what is read; the mount's own memory holds none of it).
//!
//! It keeps a record per game and, for every position at least two games reach, their list:
//! the games, ascending, with the move each plays there. A position only one game reaches
//! (most positions of most games, past the opening) is not listed: the record of each game
//! keeps its [`Signature`] and a filter of its own positions, which rule out nearly every
//! game for a position, and the few games left are replayed (`super::PositionIndex::reach`). So the file takes tens of bytes a
//! game where a list of every (position, game) took over a thousand.
//!
//! Layout, little-endian: the magic `GFPOSIX8`; the stamp of the database files the index was
//! built from (8 bytes); the game count (4), the count of listed positions (8), of sums (8),
//! the bytes of the lists (8) and of the games the lists share (8); per game its statistics
//! (6 bytes: its result, what its main line plays at the standard start position
//! ([`GameRecord::at_start`]), 0 when it is not indexed, White's and Black's rating and the
//! year: `GameRecord::stats_bytes`), then per game what a search
//! reads of it (its signature: the emptied home squares, 8, their count, 1, its final
//! material, 2; a spare byte; its [`Filter`] of the positions its main line reaches, 32); per
//! listed position 13
//! bytes (its key, 8, and where its list starts, 5), sorted by key; the sums, [`SUM`] bytes each
//! ([`Sum::to_bytes`]), sorted by key and move: for every position at least [`SUMS_FROM`]
//! games reach, the sums of SCID's tree statistics per move played there, so its table is
//! read in a few pages, however many games reach it (the start position: all of them); then
//! the lists (`encode_list`); then the games that lists of several positions share, each
//! set once (`SharedGames`).

use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use memmap2::Mmap;

use super::buckets::{Buckets, SortRoom};
use super::group::Group;
use super::line::{GameStats, STATS_MOST};
use super::signature::{Signature, Target};
use super::table::{MoveStats, count_move};

const MAGIC: &[u8; 8] = b"GFPOSIX8";
const HEADER: usize = 8 + 8 + 4 + 8 + 8 + 8 + 8;
/// The bytes of a game's statistics ([`GameRecord::stats_bytes`]), kept together for every
/// game so that the statistics of many games read few pages: a player's tree at the start
/// position reads those of every game (at ten million games, 60 MB; 80 MB at 8 bytes a game
/// took longer than the 100 ms the tree should take cold).
const STATS: usize = 6;
/// The start byte of [`start_byte`] in the 5 bits the statistics keep it in: its values are
/// at most 22 but [`NEVER_AT_START`], kept as 31.
const NEVER_AT_START_BITS: u64 = 31;
/// The bytes of a game's signature (emptied home squares, 8; their count, 1; final material,
/// 2; a spare byte), before its filter.
const SIGNATURE: usize = 12;
/// The bytes of what a search reads of a game: its signature and filter.
const SEARCH: usize = SIGNATURE + 8 * FILTER_WORDS;
/// The 64-bit words of a game's [`Filter`].
const FILTER_WORDS: usize = 4;
/// The bytes of one game's record: its statistics, signature and filter.
const GAME: usize = STATS + SEARCH;
/// The bytes of one listed position in the directory: its key (8) and where its list starts
/// among the lists ([`START`] bytes).
const LISTED: usize = 8 + START;
/// The bytes of where a list starts: up to a terabyte of lists.
const START: usize = 5;

/// `start` (below 2^40) in [`START`] bytes.
fn start_bytes(start: u64) -> std::io::Result<[u8; START]> {
    if start >> (8 * START) != 0 {
        return Err(std::io::Error::other(format!(
            "the position index's lists pass {} bytes",
            1u64 << (8 * START)
        )));
    }
    Ok(start.to_le_bytes()[..START]
        .try_into()
        .expect("START bytes"))
}

/// The start that [`start_bytes`] wrote in `b`.
fn start_of_bytes(b: &[u8]) -> u64 {
    let mut all = [0u8; 8];
    all[..START].copy_from_slice(&b[..START]);
    u64::from_le_bytes(all)
}
/// The bytes of one sum on disk.
pub const SUM: usize = 8 + 2 + 4 * 4 + 8 + 8 + 4 + 8 + 4;
/// The games a position needs for its sums to be kept: below, its list is read, above, its
/// sums.
pub const SUMS_FROM: usize = if cfg!(test) { 2 } else { 64 };
/// The games of a list between two marks of where they are (a game's move is found by
/// decoding at most this many).
const BLOCK: usize = 64;

/// The sums of the games that reach a position and play one move there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sum {
    /// The position's key.
    pub key: u64,
    /// The move's code.
    pub next: u16,
    /// The sums of its games.
    pub stats: MoveStats,
}

impl Sum {
    /// The sum's bytes on disk.
    pub fn to_bytes(&self) -> [u8; SUM] {
        let s = &self.stats;
        let mut b = Vec::with_capacity(SUM);
        b.extend_from_slice(&self.key.to_le_bytes());
        b.extend_from_slice(&self.next.to_le_bytes());
        for v in [s.games, s.white_wins, s.black_wins, s.draws] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&s.white_elo_sum.to_le_bytes());
        b.extend_from_slice(&s.black_elo_sum.to_le_bytes());
        b.extend_from_slice(&s.elo_count.to_le_bytes());
        b.extend_from_slice(&s.year_sum.to_le_bytes());
        b.extend_from_slice(&s.year_count.to_le_bytes());
        b.try_into().expect("SUM bytes")
    }

    /// The sum whose bytes on disk start `b` (at least [`SUM`] bytes).
    pub fn from_bytes(b: &[u8]) -> Sum {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Sum {
            key: u64_at(0),
            next: u16::from_le_bytes([b[8], b[9]]),
            stats: MoveStats {
                games: u32_at(10),
                white_wins: u32_at(14),
                black_wins: u32_at(18),
                draws: u32_at(22),
                white_elo_sum: u64_at(26),
                black_elo_sum: u64_at(34),
                elo_count: u32_at(42),
                year_sum: u64_at(46),
                year_count: u32_at(54),
            },
        }
    }
}

/// One game as the file keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Its statistics; `None` when it is not in the index (deleted, unreadable).
    pub stats: Option<GameStats>,
    /// What rules out the positions it does not reach.
    pub signature: Signature,
    /// The positions its main line reaches, as a filter.
    pub filter: Filter,
    /// What its main line does at the standard start position: kept with its statistics,
    /// so the tree of the start position for a slice of the games reads no list (at ten
    /// million games, decoding the start's list took 120 ms of the first `tree.txt` of a
    /// player's games, and reading it cold for the games set up elsewhere 500 ms more).
    pub at_start: AtStart,
}

/// What a game's main line does at the standard start position, the first time it reaches
/// it (as every list keeps a game's first visit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AtStart {
    /// It never reaches it: set up elsewhere, it does not come back to it.
    #[default]
    Never,
    /// It plays this move there; [`super::key::END`] when it ends there.
    Plays(u16),
    /// It plays a move that is not one of the position's own (a null move): the start's
    /// list tells which.
    Listed,
}

/// The key of the standard start position.
pub fn start_key() -> u64 {
    static KEY: std::sync::LazyLock<u64> =
        std::sync::LazyLock::new(|| super::key::position_key(&shakmaty::Chess::default()));
    *KEY
}

/// The codes of the moves of the standard start position, ascending: a game's record keeps
/// its first move as its place among them.
fn start_moves() -> &'static [u16] {
    static MOVES: std::sync::LazyLock<Vec<u16>> = std::sync::LazyLock::new(|| {
        use shakmaty::Position;
        let mut codes: Vec<u16> = shakmaty::Chess::default()
            .legal_moves()
            .iter()
            .map(super::key::move_code)
            .collect();
        codes.sort_unstable();
        codes
    });
    &MOVES
}

/// What a record keeps of a main line whose `steps` are each position's first visit
/// ([`GameRecord::at_start`]): the move played at the standard start position, wherever the
/// line reaches it (a game set up elsewhere may come to it: knights out and back).
pub fn at_start_of(steps: &[(u64, u16)]) -> AtStart {
    match steps.iter().find(|s| s.0 == start_key()) {
        None => AtStart::Never,
        Some(&(_, code)) if code == super::key::END || start_move_place(code).is_some() => {
            AtStart::Plays(code)
        }
        Some(_) => AtStart::Listed,
    }
}

/// The byte of the statistics that says whether a game is indexed and what it does at the
/// start position ([`AtStart`]): 0 not indexed; 1 its list tells; 2 ending there; 3 and up,
/// its move's place among the position's own; [`NEVER_AT_START`] never there.
fn start_byte(indexed: bool, at_start: AtStart) -> u8 {
    match (indexed, at_start) {
        (false, _) => 0,
        (true, AtStart::Listed) => 1,
        (true, AtStart::Never) => NEVER_AT_START,
        (true, AtStart::Plays(super::key::END)) => 2,
        (true, AtStart::Plays(code)) => 3 + start_move_place(code).unwrap_or(0) as u8,
    }
}

/// The place of move `code` among the start position's own ([`start_moves`]); `None` when it
/// is not one of them (a null move).
fn start_move_place(code: u16) -> Option<usize> {
    start_moves().binary_search(&code).ok()
}

/// A game that reaches a position as the index file has it: its number, the move it plays
/// there, its statistics (`None` when it is not indexed).
pub type FoundGame = (u32, u16, Option<GameStats>);

/// The start byte of a game that never reaches the standard start position.
const NEVER_AT_START: u8 = u8::MAX;

/// [`GameRecord::at_start`] of a statistics byte that [`start_byte`] made (0, a game not
/// indexed, is never there).
fn at_start_of_byte(byte: u8) -> AtStart {
    at_start_among_moves(byte, start_moves())
}

/// [`at_start_of_byte`] with the start position's moves (`start_moves`) at hand: a slice's
/// tree at the start reads the byte of each of its games.
fn at_start_among_moves(byte: u8, moves: &[u16]) -> AtStart {
    match byte {
        1 => AtStart::Listed,
        2 => AtStart::Plays(super::key::END),
        b => match moves.get(usize::from(b.wrapping_sub(3))) {
            Some(&code) if b >= 3 => AtStart::Plays(code),
            _ => AtStart::Never,
        },
    }
}

impl GameRecord {
    /// The bytes on disk of its statistics: a number of 48 bits, little-endian, holding from
    /// its lowest bit the result (2 bits), the start byte ([`start_byte`], 5 bits, 0 when it
    /// is not indexed), White's and Black's ratings and the year (12 bits each, at most
    /// [`STATS_MOST`]).
    fn stats_bytes(self) -> [u8; STATS] {
        let s = self.stats.unwrap_or_default();
        let start = match start_byte(self.stats.is_some(), self.at_start) {
            NEVER_AT_START => NEVER_AT_START_BITS,
            b => u64::from(b),
        };
        let most = |v: u16| u64::from(v.min(STATS_MOST));
        let v = u64::from(s.result_code())
            | start << 2
            | most(s.white_elo) << 7
            | most(s.black_elo) << 19
            | most(s.year) << 31;
        v.to_le_bytes()[..STATS].try_into().expect("6 of 8 bytes")
    }

    /// The number of 48 bits that statistics' bytes `b` hold.
    fn stats_number(b: &[u8]) -> u64 {
        let mut v = [0u8; 8];
        v[..STATS].copy_from_slice(&b[..STATS]);
        u64::from_le_bytes(v)
    }

    /// The start byte ([`start_byte`]) of the statistics whose bytes are `b`.
    fn start_byte_from(b: &[u8]) -> u8 {
        match (b[0] >> 2) & 31 {
            31 => NEVER_AT_START,
            start => start,
        }
    }

    /// The bytes on disk of what a search reads of it: its signature, then its filter.
    fn search_bytes(self) -> [u8; SEARCH] {
        let mut b = [0u8; SEARCH];
        b[..8].copy_from_slice(&self.signature.emptied.to_le_bytes());
        b[8] = self.signature.count;
        b[9..11].copy_from_slice(&self.signature.material.to_le_bytes());
        for (i, word) in self.filter.0.iter().enumerate() {
            b[SIGNATURE + 8 * i..SIGNATURE + 8 * i + 8].copy_from_slice(&word.to_le_bytes());
        }
        b
    }

    /// The statistics whose bytes on disk are `b`.
    fn stats_from(b: &[u8]) -> Option<GameStats> {
        let v = GameRecord::stats_number(b);
        let at = |bit: u32| ((v >> bit) & u64::from(STATS_MOST)) as u16;
        (GameRecord::start_byte_from(b) != 0).then(|| GameStats {
            result: GameStats::result_of_code((v & 3) as u8),
            white_elo: at(7),
            black_elo: at(19),
            year: at(31),
        })
    }

    /// The signature and filter whose bytes on disk are `b` ([`SEARCH`] bytes).
    fn search_from(b: &[u8]) -> (Signature, Filter) {
        let signature = Signature {
            emptied: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            count: b[8],
            material: u16::from_le_bytes([b[9], b[10]]),
        };
        let filter = Filter(std::array::from_fn(|i| {
            let at = SIGNATURE + 8 * i;
            u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
        }));
        (signature, filter)
    }
}

/// One entry of a build: a game reaches position `key` and plays `next` there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The position's key.
    pub key: u64,
    /// The game.
    pub game: u32,
    /// The code of the move played next.
    pub next: u16,
}

/// A game's filter of the positions its main line reaches: a Bloom filter of four 64-bit
/// words, three bits a position (taken from its key, itself a hash). A search for a position
/// no list holds replays only the games whose signature and filter both let it through. It is
/// made from the game's own line as the game is replayed, so a build writes each game's
/// record as it goes and holds none in memory; it holds the positions the game shares with
/// others too (the lists answer for those): over 19,641 real games (tests/data), a position
/// one game reaches has 141 others let through by their signatures, 41 by their filters too
/// (32.6 where a filter held only the positions its game alone reaches, which a build can
/// know only once every game is replayed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter([u64; FILTER_WORDS]);

impl Filter {
    /// The filter of the positions `keys`.
    pub fn of(keys: impl IntoIterator<Item = u64>) -> Filter {
        let mut filter = Filter::default();
        for key in keys {
            filter.add(key);
        }
        filter
    }

    /// Put position `key` in the filter.
    pub fn add(&mut self, key: u64) {
        for bit in filter_bits(key) {
            self.0[bit / 64] |= 1 << (bit % 64);
        }
    }
}

/// The bits of a filter that position `key` sets.
fn filter_bits(key: u64) -> [usize; 3] {
    let bits = (FILTER_WORDS * 64) as u64;
    [key >> 56, key >> 48, key >> 40].map(|b| (b % bits) as usize)
}

/// Append `v` to `out` in LEB128 (7 bits a byte, the lowest first).
pub(crate) fn put_varint(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&varint(v));
}

/// The LEB128 number at `*at` of `b`, `*at` moved past it; `None` past the end.
pub(crate) fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Append the list of one position, the games of `group` (at least two, ascending) with the
/// move each plays there, to `out`: their count (times two, plus one when its games are
/// shared); the moves played, once each (a count less one, then two bytes a move); when there
/// are several, a byte per game naming its move among them; then its games: where the list is
/// longer than a block (64 games), for each block of games after the first, its first game
/// and where its games start (4 bytes each), then the games, each block's first as it is and
/// the others as the difference from the game before. A list of [`SHARE_FROM`] to
/// [`SHARE_MOST`] games names instead where `shared` keeps those bytes (a number), so that
/// positions the same games reach keep them once. The group is read over once for each of
/// those pieces, never held whole in another form: a long one is on disk.
fn encode_list(group: &mut Group, out: &mut Lists, shared: &SharedGames) -> std::io::Result<()> {
    let count = group.len();
    let share = (SHARE_FROM..=SHARE_MOST).contains(&count);
    out.put(&varint((count as u64) << 1 | u64::from(share)))?;
    let mut moves: Vec<u16> = Vec::new();
    group.each(|_, next| {
        if let Err(i) = moves.binary_search(&next) {
            moves.insert(i, next);
        }
        Ok(())
    })?;
    // A position has at most 218 legal moves, and the end of a game.
    moves.truncate(256);
    out.put(&[(moves.len() - 1) as u8])?;
    for m in &moves {
        out.put(&m.to_le_bytes())?;
    }
    if moves.len() > 1 {
        group.each(|_, next| out.put(&[moves.binary_search(&next).unwrap_or(0) as u8]))?;
    }
    // Each block's first game and where its games start, from the bytes the games take.
    let (mut marks, mut games_bytes, mut i, mut before) = (Vec::new(), 0u32, 0usize, 0u32);
    group.each(|game, _| {
        let d = if i % BLOCK == 0 {
            if i > 0 {
                marks.extend_from_slice(&game.to_le_bytes());
                marks.extend_from_slice(&games_bytes.to_le_bytes());
            }
            game
        } else {
            game - before
        };
        games_bytes += varint(u64::from(d)).len() as u32;
        (i, before) = (i + 1, game);
        Ok(())
    })?;
    let mut games = |put: &mut dyn FnMut(&[u8]) -> std::io::Result<()>| {
        let (mut i, mut before) = (0usize, 0u32);
        group.each(|game, _| {
            let d = if i % BLOCK == 0 { game } else { game - before };
            (i, before) = (i + 1, game);
            put(&varint(u64::from(d)))
        })
    };
    if share {
        let mut part = Vec::with_capacity(marks.len() + games_bytes as usize);
        part.extend_from_slice(&marks);
        games(&mut |b| {
            part.extend_from_slice(b);
            Ok(())
        })?;
        out.put(&varint(shared.place(&part)?))
    } else {
        out.put(&marks)?;
        games(&mut |b| out.put(b))
    }
}

/// `v` in LEB128 (7 bits a byte, the lowest first), on the stack.
fn varint(mut v: u64) -> Varint {
    let mut out = Varint([0; 10], 0);
    while v >= 0x80 {
        out.0[usize::from(out.1)] = v as u8 | 0x80;
        out.1 += 1;
        v >>= 7;
    }
    out.0[usize::from(out.1)] = v as u8;
    out.1 += 1;
    out
}

/// A number's LEB128 bytes ([`varint`]): the bytes, and how many are used.
struct Varint([u8; 10], u8);

impl std::ops::Deref for Varint {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0[..usize::from(self.1)]
    }
}

/// The games a list needs for its games to be kept among the [`SharedGames`]: a shorter
/// list's games take fewer bytes than saying where they are.
const SHARE_FROM: usize = 4;
/// The most games of a list kept among the [`SharedGames`]: its bytes are made in memory to be
/// found again. The longer lists (the positions of the first moves) are those of one position
/// each.
const SHARE_MOST: usize = if cfg!(test) { 200 } else { 1 << 16 };

/// The games of the lists of at least [`SHARE_FROM`] games, each set of games (their bytes,
/// as [`encode_list`] writes them) kept once however many positions those same games reach:
/// games that play the same line together (a game kept twice or ten times, as live feeds,
/// corrections and merged collections make, or the copies of a famous game) are the same
/// games at every position of it, and each of those lists names where its games are kept
/// instead of holding them again. A build puts them in a scratch file as its buckets are
/// sorted, each found again by 88 bits of a 128-bit digest of its bytes (xxh3: two sets taken
/// for one by chance, at ten million games, about once in 10^12 builds) in a table of bounded
/// size (16 bytes a slot, at most 32 MiB): past three quarters full, a new set is kept without
/// being remembered, which costs bytes, never an answer.
struct SharedGames {
    file: std::fs::File,
    kept: Mutex<Kept>,
}

/// What [`SharedGames`] holds in memory.
struct Kept {
    /// Open addressing by the digest: its low 64 bits, then its top 24 bits above where its
    /// set is plus one (0, 0: an empty slot).
    slots: Vec<(u64, u64)>,
    used: usize,
    /// The bytes not yet written, and where they go.
    pending: Vec<u8>,
    pending_at: u64,
}

/// The most slots of [`SharedGames`]: 32 MiB, the largest piece of a build's memory. At
/// ten million games (ten copies of each of a million) 1.43 million sets were remembered,
/// within the 1.57 million three quarters of them hold; past that, sets are kept again.
const SHARED_SLOTS_MOST: usize = 1 << 21;
/// The bits of a slot that say where its set is.
const SHARED_AT_BITS: u32 = 40;
/// The bytes [`SharedGames`] gathers before it writes them.
const SHARED_WRITE: usize = 1 << 20;

impl SharedGames {
    /// Sets kept in `file` (empty), for a build of `games` games: a slot for every fourth
    /// game, within bounds (at most [`SHARED_SLOTS_MOST`]).
    fn new(file: std::fs::File, games: u32) -> SharedGames {
        let slots = (games as usize / 4)
            .next_power_of_two()
            .clamp(1 << 12, SHARED_SLOTS_MOST);
        SharedGames {
            file,
            kept: Mutex::new(Kept {
                slots: vec![(0, 0); slots],
                used: 0,
                pending: Vec::new(),
                pending_at: 0,
            }),
        }
    }

    /// Where the set of games `bytes` is kept (from the start of the shared games): where it
    /// was kept before, or where it is now put.
    fn place(&self, bytes: &[u8]) -> std::io::Result<u64> {
        let digest = xxhash_rust::xxh3::xxh3_128(bytes);
        let (low, top) = (digest as u64, (digest >> (128 - 24)) as u64);
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let mask = kept.slots.len() - 1;
        let mut i = low as usize & mask;
        loop {
            match kept.slots[i] {
                (0, 0) => break,
                (l, t) if l == low && t >> SHARED_AT_BITS == top => {
                    return Ok((t & ((1 << SHARED_AT_BITS) - 1)) - 1);
                }
                _ => i = (i + 1) & mask,
            }
        }
        let at = kept.pending_at + kept.pending.len() as u64;
        put_varint(&mut kept.pending, bytes.len() as u64);
        kept.pending.extend_from_slice(bytes);
        if kept.used < kept.slots.len() / 4 * 3 && at + 1 < 1 << SHARED_AT_BITS {
            kept.slots[i] = (low, top << SHARED_AT_BITS | (at + 1));
            kept.used += 1;
        }
        if kept.pending.len() >= SHARED_WRITE {
            self.write(&mut kept)?;
        }
        Ok(at)
    }

    /// Write what is gathered.
    fn write(&self, kept: &mut Kept) -> std::io::Result<()> {
        self.file.write_all_at(&kept.pending, kept.pending_at)?;
        kept.pending_at += kept.pending.len() as u64;
        kept.pending.clear();
        Ok(())
    }

    /// Every set written; the bytes they take.
    fn finish(&self) -> std::io::Result<u64> {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        self.write(&mut kept)?;
        log::info!(
            "position index: {} bytes of games shared, {} sets remembered in {} slots",
            kept.pending_at,
            kept.used,
            kept.slots.len()
        );
        Ok(kept.pending_at)
    }
}

/// A list read from the file ([`encode_list`]).
struct List<'a> {
    count: usize,
    moves: &'a [u8],
    /// The byte per game naming its move; empty when one move is played.
    which: &'a [u8],
    marks: &'a [u8],
    games: &'a [u8],
}

impl<'a> List<'a> {
    /// The list whose bytes start `b`, its games kept in `shared` when it says so; `None`
    /// when they are not one.
    fn read(b: &'a [u8], shared: &'a [u8]) -> Option<List<'a>> {
        let mut at = 0;
        let head = get_varint(b, &mut at)?;
        let count = usize::try_from(head >> 1).ok()?;
        let moves = usize::from(*b.get(at)?) + 1;
        at += 1;
        let moves_bytes = b.get(at..at + 2 * moves)?;
        at += 2 * moves;
        let which_len = if moves > 1 { count } else { 0 };
        let which = b.get(at..at.checked_add(which_len)?)?;
        at += which_len;
        let part = if head & 1 == 1 {
            let mut set = usize::try_from(get_varint(b, &mut at)?).ok()?;
            let len = usize::try_from(get_varint(shared, &mut set)?).ok()?;
            shared.get(set..set.checked_add(len)?)?
        } else {
            b.get(at..)?
        };
        let marks_len = count.div_ceil(BLOCK).saturating_sub(1) * 8;
        Some(List {
            count,
            moves: moves_bytes,
            which,
            marks: part.get(..marks_len)?,
            games: part.get(marks_len..)?,
        })
    }

    /// The move of game `i` of the list.
    fn move_of(&self, i: usize) -> u16 {
        let m = self.which.get(i).map_or(0, |&w| usize::from(w));
        self.moves
            .get(2 * m..2 * m + 2)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
    }

    /// The games of block `b`, from game `b * BLOCK` of the list, with their moves.
    fn block(&self, b: usize) -> impl Iterator<Item = (u32, u16)> + '_ {
        let start = if b == 0 {
            0
        } else {
            self.marks
                .get((b - 1) * 8 + 4..(b - 1) * 8 + 8)
                .map_or(usize::MAX, |m| {
                    u32::from_le_bytes(m.try_into().expect("4 bytes")) as usize
                })
        };
        let first = b * BLOCK;
        let len = self.count.saturating_sub(first).min(BLOCK);
        let mut at = start;
        let mut game = 0u32;
        (0..len).map_while(move |i| {
            let d = get_varint(self.games, &mut at)?;
            game = if i == 0 { d as u32 } else { game + d as u32 };
            Some((game, self.move_of(first + i)))
        })
    }

    /// Every game of the list with its move, ascending.
    fn all(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        (0..self.count.div_ceil(BLOCK)).flat_map(|b| self.block(b))
    }

    /// The number of blocks of [`BLOCK`] games.
    fn blocks(&self) -> usize {
        self.count.div_ceil(BLOCK)
    }

    /// The first game of block `b` (at least 1), from its mark; past the last block, above
    /// every game.
    fn first_of(&self, b: usize) -> u32 {
        self.marks
            .get((b - 1) * 8..(b - 1) * 8 + 4)
            .map_or(u32::MAX, |m| u32::from_le_bytes(m.try_into().expect("4")))
    }

    /// The move game `game` plays, if it is in the list.
    fn find(&self, game: u32) -> Option<u16> {
        // The last block whose first game is not above `game`.
        let b = (1..self.blocks())
            .take_while(|&b| self.first_of(b) <= game)
            .count();
        self.block(b).find(|&(g, _)| g == game).map(|(_, m)| m)
    }

    /// The games of the list among `among` (ascending) with their moves, ascending: only
    /// the blocks whose range holds one of them are read.
    fn among(&self, among: &[u32]) -> Vec<(u32, u16)> {
        let mut out = Vec::new();
        let mut rest = among;
        for b in 0..self.blocks() {
            if rest.is_empty() {
                break;
            }
            let next_first = self.first_of(b + 1);
            let here = rest.partition_point(|&g| g < next_first);
            let (mine, later) = rest.split_at(here);
            rest = later;
            let mut mine = mine.iter().peekable();
            for (game, next) in self.block(b) {
                while mine.next_if(|&&g| g < game).is_some() {}
                let Some(&&g) = mine.peek() else { break };
                if g == game {
                    out.push((game, next));
                }
            }
        }
        out
    }
}

/// A new, empty file at `path` for a build to write and read back (its parts, shared games,
/// runs, a position's games).
pub(super) fn scratch_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
}

/// The scratch file a build puts its parts aside in, and where its free room starts.
struct Aside {
    file: std::fs::File,
    end: AtomicU64,
}

impl Aside {
    /// A new, empty scratch file at `path`.
    fn new(path: &Path) -> std::io::Result<Aside> {
        Ok(Aside {
            file: scratch_file(path)?,
            end: AtomicU64::new(0),
        })
    }

    /// Put `bytes` aside at the next free place; where.
    fn put(&self, bytes: &[u8]) -> std::io::Result<u64> {
        let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.file.write_all_at(bytes, at)?;
        Ok(at)
    }
}

/// The bytes of the lists a part holds before they are put aside.
const LISTS_HELD: usize = if cfg!(test) { 64 } else { 1 << 20 };

/// The lists of one part as they are written: put aside ([`Aside`]) a piece at a time, so
/// that a long list (the start position's, some 25 MB at 10M games) is never whole in memory.
struct Lists<'a> {
    held: Vec<u8>,
    /// The pieces put aside: where, and how many bytes.
    aside: Vec<(u64, u64)>,
    /// The bytes put aside.
    before: u64,
    to: &'a Aside,
}

impl Lists<'_> {
    /// Append `bytes`.
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.held.extend_from_slice(bytes);
        if self.held.len() >= LISTS_HELD {
            self.put_aside()?;
        }
        Ok(())
    }

    /// Put what it holds aside.
    fn put_aside(&mut self) -> std::io::Result<()> {
        if !self.held.is_empty() {
            let at = self.to.put(&self.held)?;
            self.aside.push((at, self.held.len() as u64));
            self.before += self.held.len() as u64;
            self.held.clear();
        }
        Ok(())
    }

    /// The bytes of every list so far.
    fn len(&self) -> u64 {
        self.before + self.held.len() as u64
    }
}

/// What one run of sorted entries (a bucket, or all of them) makes of the file, as its
/// entries come ([`Part::push`]): the directory of its listed positions (each list's start
/// counted from the run's first list), its sums and its lists. The games of one position are
/// gathered in a [`Group`] until the next comes.
struct Part<'a> {
    listed: Vec<u8>,
    sums: Vec<u8>,
    sum_count: u64,
    lists: Lists<'a>,
    group: &'a mut Group,
    /// The games' statistics, for the sums of a position that many games reach.
    stats: &'a BuiltStats,
    /// Where the games of long lists are kept.
    shared: &'a SharedGames,
}

impl<'a> Part<'a> {
    /// An empty part, put aside in `aside`, gathering each position's games in `group`
    /// (empty).
    fn new(
        aside: &'a Aside,
        group: &'a mut Group,
        stats: &'a BuiltStats,
        shared: &'a SharedGames,
    ) -> Part<'a> {
        Part {
            listed: Vec::new(),
            sums: Vec::new(),
            sum_count: 0,
            lists: Lists {
                held: Vec::new(),
                aside: Vec::new(),
                before: 0,
                to: aside,
            },
            group,
            stats,
            shared,
        }
    }

    /// Add entry `e`, after those before it in key and game order.
    fn push(&mut self, e: Entry) -> std::io::Result<()> {
        if self.group.key().is_some_and(|key| key != e.key) {
            self.list_group()?;
        }
        self.group.push(e)
    }

    /// List the position of the games gathered, if at least two reach it; empty the group.
    fn list_group(&mut self) -> std::io::Result<()> {
        let Some(key) = self.group.key() else {
            return Ok(());
        };
        if self.group.len() >= 2 {
            self.listed.extend_from_slice(&key.to_le_bytes());
            self.listed
                .extend_from_slice(&start_bytes(self.lists.len())?);
            encode_list(self.group, &mut self.lists, self.shared)?;
            if self.group.len() >= SUMS_FROM {
                let mut moves: Vec<(u16, MoveStats)> = Vec::new();
                let mut indexed = 0;
                self.group.each(|game, next| {
                    if let Some(stats) = self.stats.of(game) {
                        indexed += 1;
                        count_move(&mut moves, next, &stats);
                    }
                    Ok(())
                })?;
                if indexed >= SUMS_FROM {
                    moves.sort_unstable_by_key(|m| m.0);
                    for (next, stats) in moves {
                        let sum = Sum { key, next, stats };
                        self.sums.extend_from_slice(&sum.to_bytes());
                        self.sum_count += 1;
                    }
                }
            }
        }
        self.group.clear()
    }

    /// Every entry added: put the part aside; where it is.
    fn finish(mut self) -> std::io::Result<PartAt> {
        self.list_group()?;
        self.lists.put_aside()?;
        let mut bytes = Vec::with_capacity(self.listed.len() + self.sums.len());
        bytes.extend_from_slice(&self.listed);
        bytes.extend_from_slice(&self.sums);
        Ok(PartAt {
            at: self.lists.to.put(&bytes)?,
            listed: self.listed.len() as u64,
            sums: self.sums.len() as u64,
            sum_count: self.sum_count,
            lists: self.lists.aside,
        })
    }
}

/// Where a part was put aside in the scratch file of a build: at `at`, its directory and its
/// sums one after the other; its lists in pieces ([`Lists`]).
#[derive(Default)]
struct PartAt {
    at: u64,
    listed: u64,
    sums: u64,
    sum_count: u64,
    lists: Vec<(u64, u64)>,
}

impl PartAt {
    /// The bytes of its lists.
    fn lists_len(&self) -> u64 {
        self.lists.iter().map(|l| l.1).sum()
    }
}

/// Write the index of `games` (their filters made from `entries`) with `entries` (sorted by
/// key and game) to `path`, atomically (a temporary file renamed over it): the index a build
/// from buckets must equal (tests).
#[cfg(test)]
fn write(
    path: &Path,
    stamp: u64,
    games: &[GameRecord],
    entries: impl IntoIterator<Item = Entry>,
) -> std::io::Result<()> {
    let entries: Vec<Entry> = entries.into_iter().collect();
    let building = Building::create(path, games.len() as u32)?;
    building.put(0, &tests::with_filters(games, &entries))?;
    let (parts, shared_path) = (
        scratch_beside(path, "parts"),
        scratch_beside(path, "shared"),
    );
    let result = (|| {
        let shared = SharedGames::new(scratch_file(&shared_path)?, games.len() as u32);
        let aside = Aside::new(&parts)?;
        let stats = building.built_stats()?;
        let mut group = Group::new(scratch_beside(path, "group"));
        let mut part = Part::new(&aside, &mut group, &stats, &shared);
        for e in entries {
            part.push(e)?;
        }
        let at = part.finish()?;
        building
            .assemble(stamp, &aside.file, &[at], &shared)?
            .keep()
    })();
    let _ = std::fs::remove_file(&parts);
    let _ = std::fs::remove_file(&shared_path);
    result
}

/// The bytes a part copied at a time.
const COPY_BYTES: usize = 1 << 20;

/// An index file being built: its temporary file, sized for its games' records, which the
/// build threads write as they replay the games ([`Building::put`]), so that no game's record
/// is held in memory (at 10M games, over 500 MB); the positions' directory, sums and lists
/// follow them once the buckets are sorted ([`Building::finish`]).
pub struct Building {
    written: Written,
    games: u32,
}

impl Building {
    /// The temporary file of a build of `games` games of the index at `path`.
    pub fn create(path: &Path, games: u32) -> std::io::Result<Building> {
        let tmp = scratch_beside(path, "tmp");
        let file = std::fs::File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let written = Written {
            file,
            tmp,
            path: path.to_path_buf(),
            kept: false,
        };
        written
            .file
            .set_len((HEADER + games as usize * GAME) as u64)?;
        Ok(Building { written, games })
    }

    /// Write the records of games `first`, `first + 1`, … (`records`).
    pub fn put(&self, first: u32, records: &[GameRecord]) -> std::io::Result<()> {
        let (first, last) = (first as usize, first as usize + records.len());
        if last > self.games as usize {
            return Err(std::io::Error::other(format!(
                "game {last} past the {} of the index",
                self.games
            )));
        }
        let stats: Vec<u8> = records.iter().flat_map(|r| r.stats_bytes()).collect();
        let search: Vec<u8> = records.iter().flat_map(|r| r.search_bytes()).collect();
        let file = &self.written.file;
        file.write_all_at(&stats, (HEADER + first * STATS) as u64)?;
        file.write_all_at(
            &search,
            (HEADER + self.games as usize * STATS + first * SEARCH) as u64,
        )
    }

    /// The statistics [`put`](Self::put) wrote, every game's put.
    fn built_stats(&self) -> std::io::Result<BuiltStats> {
        BuiltStats::of_file(&self.written.file, self.games)
    }

    /// The index whole, from the entries of `buckets`: each bucket read back and sorted, its
    /// listed positions, sums and lists put aside, on `threads` threads (a bucket's keys all
    /// come before the next bucket's, so no merge is needed), then the parts in order after
    /// the records. Readable, not yet kept ([`Written::keep`]).
    pub fn finish(self, stamp: u64, buckets: &Buckets, threads: usize) -> std::io::Result<Written> {
        let started = std::time::Instant::now();
        let count = buckets.count();
        let parts_path = scratch_beside(&self.written.path, "parts");
        let shared_path = scratch_beside(&self.written.path, "shared");
        let result = (|| {
            let aside = Aside::new(&parts_path)?;
            let shared = SharedGames::new(scratch_file(&shared_path)?, self.games);
            let parts: Vec<Mutex<PartAt>> = (0..count).map(|_| Mutex::default()).collect();
            let next = AtomicUsize::new(0);
            let stats = self.built_stats()?;
            let work = || -> std::io::Result<()> {
                // Reused for every bucket the thread takes.
                let mut room = SortRoom::default();
                let mut group = Group::new(scratch_beside(&self.written.path, "group"));
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        return Ok(());
                    }
                    let mut part = Part::new(&aside, &mut group, &stats, &shared);
                    buckets.sorted(i, &mut room, |e| part.push(e))?;
                    *parts[i].lock().unwrap_or_else(|p| p.into_inner()) = part.finish()?;
                }
            };
            std::thread::scope(|s| {
                let workers: Vec<_> = (0..threads.max(1)).map(|_| s.spawn(work)).collect();
                workers
                    .into_iter()
                    .try_for_each(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            })?;
            let parts: Vec<PartAt> = parts
                .into_iter()
                .map(|p| p.into_inner().unwrap_or_else(|p| p.into_inner()))
                .collect();
            log::info!(
                "position index: {count} buckets sorted in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            self.assemble(stamp, &aside.file, &parts, &shared)
        })();
        let _ = std::fs::remove_file(&parts_path);
        let _ = std::fs::remove_file(&shared_path);
        result
    }

    /// The index file from the `parts` put aside in `scratch` (in key order) and the games
    /// their lists share: the header, then after the records each part's directory with its
    /// lists' starts moved to where its lists go, the sums, the lists, the shared games.
    fn assemble(
        self,
        stamp: u64,
        scratch: &std::fs::File,
        parts: &[PartAt],
        shared: &SharedGames,
    ) -> std::io::Result<Written> {
        use std::io::{Seek, SeekFrom};
        let file = &self.written.file;
        let listed: u64 = parts.iter().map(|p| p.listed).sum::<u64>() / LISTED as u64;
        let sums: u64 = parts.iter().map(|p| p.sum_count).sum();
        let lists: u64 = parts.iter().map(PartAt::lists_len).sum();
        let shared_bytes = shared.finish()?;
        let mut head = Vec::with_capacity(HEADER);
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&stamp.to_le_bytes());
        head.extend_from_slice(&self.games.to_le_bytes());
        for n in [listed, sums, lists, shared_bytes] {
            head.extend_from_slice(&n.to_le_bytes());
        }
        file.write_all_at(&head, 0)?;
        let mut out = file;
        out.seek(SeekFrom::Start(
            (HEADER + self.games as usize * GAME) as u64,
        ))?;
        let mut w = std::io::BufWriter::with_capacity(COPY_BYTES, out);
        let mut buf = vec![0u8; COPY_BYTES];
        let mut read =
            |from: &std::fs::File,
             at: u64,
             len: u64,
             each: &mut dyn FnMut(&mut [u8]) -> std::io::Result<()>| {
                let mut done = 0;
                while done < len {
                    // Whole directory entries at a time.
                    let n = (len - done).min((COPY_BYTES / LISTED * LISTED) as u64) as usize;
                    from.read_exact_at(&mut buf[..n], at + done)?;
                    each(&mut buf[..n])?;
                    done += n as u64;
                }
                Ok::<(), std::io::Error>(())
            };
        let mut lists_before = 0u64;
        for p in parts {
            read(scratch, p.at, p.listed, &mut |b| {
                for e in b.chunks_exact_mut(LISTED) {
                    let start = start_of_bytes(&e[8..]) + lists_before;
                    e[8..].copy_from_slice(&start_bytes(start)?);
                }
                w.write_all(b)
            })?;
            lists_before += p.lists_len();
        }
        for p in parts {
            read(scratch, p.at + p.listed, p.sums, &mut |b| w.write_all(b))?;
        }
        for &(at, len) in parts.iter().flat_map(|p| &p.lists) {
            read(scratch, at, len, &mut |b| w.write_all(b))?;
        }
        read(&shared.file, 0, shared_bytes, &mut |b| w.write_all(b))?;
        w.flush()?;
        drop(w);
        Ok(self.written)
    }
}

/// The statistics a build's records hold, read back for the sums of the positions many games
/// reach through a map of the file: the page cache holds them (6 bytes a game, just written),
/// the build's own memory none. Reading them a page at a time through a few kept pages took a
/// system call for nearly every game of a list spread over the database: 2.4 million at a
/// million games, more at ten million than the sort of the buckets' entries itself.
struct BuiltStats {
    map: Mmap,
    games: u32,
}

impl BuiltStats {
    /// The statistics of the `games` games whose records `file` holds, written whole.
    fn of_file(file: &std::fs::File, games: u32) -> std::io::Result<BuiltStats> {
        // SAFETY: the file is this build's own, created new (`Building::create`); its
        // statistics are all written before it is mapped and not written again while the
        // map lives (the parts after them are written elsewhere first).
        let map = unsafe {
            memmap2::MmapOptions::new()
                .len(HEADER + games as usize * STATS)
                .map(file)?
        };
        Ok(BuiltStats { map, games })
    }

    /// Game `game`'s statistics; `None` when it is not indexed.
    fn of(&self, game: u32) -> Option<GameStats> {
        if game >= self.games {
            return None;
        }
        let at = HEADER + game as usize * STATS;
        GameRecord::stats_from(&self.map[at..at + STATS])
    }
}

/// A file of one write of the index at `index`, `INDEX.WHAT-PID-N`: named apart from every
/// other write's, those of this process included (a rebuild may run beside the first build,
/// and each must not write into the other's files).
pub fn scratch_beside(index: &Path, what: &str) -> PathBuf {
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let mut name = index.to_path_buf().into_os_string();
    name.push(format!(
        ".{what}-{}-{}",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    PathBuf::from(name)
}

/// Keep `bytes` at `path` (a file kept beside the index), durably and atomically: written
/// to a file of its own ([`scratch_beside`]), then renamed over it.
pub fn keep_beside(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = scratch_beside(path, "tmp");
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(&mut file, bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// An index written whole to its temporary file: readable there ([`Written::open`]), not yet
/// durable nor in its place. A build answers from it first and keeps it then: making two
/// gigabytes durable takes seconds, which the tree need not wait for. Removed when dropped
/// unkept.
pub struct Written {
    file: std::fs::File,
    tmp: PathBuf,
    path: PathBuf,
    kept: bool,
}

impl Written {
    /// The index, mapped where it was written (the mapping stays valid when it is renamed).
    pub fn open(&self) -> Option<IndexFile> {
        IndexFile::open(&self.tmp)
    }

    /// Make the index durable, then rename it to its path (so a crash never leaves a torn
    /// index there).
    pub fn keep(mut self) -> std::io::Result<()> {
        let started = std::time::Instant::now();
        self.file.sync_all()?;
        log::info!(
            "position index: made durable in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        std::fs::rename(&self.tmp, &self.path)?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// A mapped index file.
pub struct IndexFile {
    map: Mmap,
    /// The file mapped, read ahead through ([`IndexFile::read_ahead`]).
    file: std::fs::File,
    stamp: u64,
    games: u32,
    listed: usize,
    sums: usize,
    lists: usize,
    /// The bytes of the games lists share ([`SharedGames`]), after the lists.
    shared: usize,
}

impl IndexFile {
    /// Map the index at `path`; `None` when it is missing or not a whole index.
    pub fn open(path: &Path) -> Option<IndexFile> {
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: the file is ours (the user's cache folder), written whole and renamed into
        // place, never changed in place; a new index replaces it by rename, so the mapped
        // inode stays as it was.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        let head = map.get(..HEADER)?;
        if &head[..8] != MAGIC {
            return None;
        }
        let u64_at = |i: usize| -> Option<usize> {
            usize::try_from(u64::from_le_bytes(head[i..i + 8].try_into().ok()?)).ok()
        };
        let stamp = u64::from_le_bytes(head[8..16].try_into().ok()?);
        let games = u32::from_le_bytes(head[16..20].try_into().ok()?);
        let (listed, sums, lists, shared) = (u64_at(20)?, u64_at(28)?, u64_at(36)?, u64_at(44)?);
        let want = HEADER
            .checked_add((games as usize).checked_mul(GAME)?)?
            .checked_add(listed.checked_mul(LISTED)?)?
            .checked_add(sums.checked_mul(SUM)?)?
            .checked_add(lists)?
            .checked_add(shared)?;
        if map.len() != want {
            return None;
        }
        let file = IndexFile {
            map,
            file,
            stamp,
            games,
            listed,
            sums,
            lists,
            shared,
        };
        // The directory, sums and lists are looked up at random: a page read where it is
        // touched, not the kernel's read-ahead around it. The games' records keep the
        // read-ahead: they are read in order, by a search and by a position's games.
        let _ = file.map.advise_range(
            memmap2::Advice::Random,
            file.listed_at(0),
            listed * LISTED + sums * SUM + lists + shared,
        );
        Some(file)
    }

    /// The stamp of the database files the index was built from.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// The number of games indexed (deleted and unreadable ones included).
    pub fn game_count(&self) -> u32 {
        self.games
    }

    /// The bytes of the file.
    pub fn bytes(&self) -> usize {
        self.map.len()
    }

    /// The number of positions listed: those at least two games reach.
    pub fn listed_count(&self) -> usize {
        self.listed
    }

    /// Game `n` as the file keeps it.
    pub fn game(&self, n: u32) -> GameRecord {
        let (signature, filter) = if n < self.games {
            let at = self.search_at(n);
            GameRecord::search_from(&self.map[at..at + SEARCH])
        } else {
            Default::default()
        };
        let at = HEADER + n as usize * STATS;
        GameRecord {
            stats: self.stats(n),
            signature,
            filter,
            at_start: self
                .map
                .get(at..at + STATS)
                .filter(|_| n < self.games)
                .map_or(AtStart::Never, |b| {
                    at_start_of_byte(GameRecord::start_byte_from(b))
                }),
        }
    }

    /// Game `n`'s statistics; `None` when it is not indexed.
    pub fn stats(&self, n: u32) -> Option<GameStats> {
        if n >= self.games {
            return None;
        }
        let at = HEADER + n as usize * STATS;
        GameRecord::stats_from(&self.map[at..at + STATS])
    }

    /// Where game `n`'s signature and filter are in the file.
    fn search_at(&self, n: u32) -> usize {
        HEADER + self.games as usize * STATS + n as usize * SEARCH
    }

    /// False when game `n`'s record tells it does not reach position `key` (`target`): it is
    /// not indexed, its signature rules the position out, or the position is not in its
    /// filter.
    pub fn may_reach(&self, n: u32, key: u64, target: &Target) -> bool {
        if n >= self.games {
            return false;
        }
        // The filter's bits first: most games stop there, before their record is read.
        if !self.in_filter(n, key) {
            return false;
        }
        let g = self.game(n);
        g.stats.is_some() && g.signature.may_reach(target)
    }

    /// True when game `n`'s filter may hold position `key` (game `n` is in the file).
    fn in_filter(&self, n: u32, key: u64) -> bool {
        let filter = self.search_at(n) + SIGNATURE;
        filter_bits(key)
            .iter()
            .all(|&bit| self.map[filter + bit / 8] & (1 << (bit % 8)) != 0)
    }

    /// Where listed position `i` is in the file.
    fn listed_at(&self, i: usize) -> usize {
        HEADER + self.games as usize * GAME + i * LISTED
    }

    /// Listed position `i`: its key and where its list starts among the lists.
    fn listed(&self, i: usize) -> (u64, usize) {
        let at = self.listed_at(i);
        let b = &self.map[at..at + LISTED];
        (
            u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            usize::try_from(start_of_bytes(&b[8..])).unwrap_or(usize::MAX),
        )
    }

    /// The list of position `key`, if at least two games reach it.
    fn list(&self, key: u64) -> Option<List<'_>> {
        let i = first_not_below(self.listed, |i| (self.listed(i).0, 0), (key, 0));
        if i >= self.listed || self.listed(i).0 != key {
            return None;
        }
        let lists_at = self.listed_at(self.listed) + self.sums * SUM;
        let start = lists_at.checked_add(self.listed(i).1)?;
        let end = if i + 1 < self.listed {
            lists_at.checked_add(self.listed(i + 1).1)?
        } else {
            lists_at + self.lists
        };
        let shared_at = lists_at + self.lists;
        List::read(
            self.map.get(start..end)?,
            self.map.get(shared_at..shared_at + self.shared)?,
        )
    }

    /// The games that reach position `key` with the move each plays there, ascending, when
    /// at least two games reach it; `None` when fewer do (at most one: found by
    /// [`may_reach`](Self::may_reach)).
    pub fn find(&self, key: u64) -> Option<Vec<(u32, u16)>> {
        let list = self.list(key)?;
        if list.count > ENTRIES_READ_AHEAD {
            self.read_ahead(list.games);
        }
        Some(list.all().collect())
    }

    /// [`IndexFile::find`] among the games `among` only (ascending: a slice's), the blocks
    /// of the list that hold none of them not read, each game with its statistics.
    pub fn find_among(&self, key: u64, among: &[u32]) -> Option<Vec<FoundGame>> {
        let list = self.list(key)?;
        if key == start_key() {
            return Some(self.at_start_among(&list, among));
        }
        self.read_list_ahead(&list, among.len());
        Some(self.with_stats(list.among(among)))
    }

    /// The games `found` (ascending), each with its move and its statistics.
    pub fn with_stats(&self, found: Vec<(u32, u16)>) -> Vec<FoundGame> {
        let mut with = Vec::with_capacity(found.len());
        self.each_stats(
            found.len(),
            |i| found[i].0,
            |i, b| {
                with.push((found[i].0, found[i].1, b.and_then(GameRecord::stats_from)));
            },
        );
        with
    }

    /// Give `each` the statistics' bytes of each of `count` games (game `i` is `game(i)`) by
    /// its place, in order; `None` for a game past the file's. Those of many games, ascending
    /// (more than a game a page: nearly every page is read), are read through the file a
    /// megabyte at a time, the others through the map: cold, reading a player's 195,720
    /// games of ten million through the map spent 43 ms on its page faults and cache misses
    /// once the 80 MB were read ahead (perf), as long as half the read.
    fn each_stats(
        &self,
        count: usize,
        game: impl Fn(usize) -> u32,
        mut each: impl FnMut(usize, Option<&[u8]>),
    ) {
        let games = self.games as usize;
        let known = (0..count)
            .take_while(|&i| (game(i) as usize) < games)
            .count();
        let ascending = (1..known).all(|i| game(i - 1) < game(i));
        if !ascending || known * STATS_PAGE < games * STATS {
            self.read_stats_ahead(count);
            for i in 0..count {
                let at = HEADER + game(i) as usize * STATS;
                each(
                    i,
                    self.map
                        .get(at..at + STATS)
                        .filter(|_| game(i) < self.games),
                );
            }
            return;
        }
        let per_piece = READ_THROUGH_FROM / STATS;
        let mut buf = vec![0u8; per_piece * STATS];
        let mut i = 0;
        while i < known {
            let first = game(i) as usize / per_piece * per_piece;
            let end = (first + per_piece).min(games);
            let (at, len) = (HEADER + first * STATS, (end - first) * STATS);
            let piece = match self.file.read_exact_at(&mut buf[..len], at as u64) {
                Ok(()) => &buf[..len],
                Err(_) => &self.map[at..at + len],
            };
            while i < known && (game(i) as usize) < end {
                let at = (game(i) as usize - first) * STATS;
                each(i, Some(&piece[at..at + STATS]));
                i += 1;
            }
        }
        (known..count).for_each(|i| each(i, None));
    }

    /// Have the kernel read a long `list` ahead whole for a question about `wanted` of its
    /// games (their moves, blocks and games), when most of its blocks are read, or a page in
    /// [`FAULTS_READ_AHEAD`] of it: at ten million games the start position's list takes
    /// 5,200 pages, of which 4,000 games of a player's slice touch some 3,000, a page fault
    /// each when cold (300 ms, where the whole list is read in 15).
    fn read_list_ahead(&self, list: &List<'_>, wanted: usize) {
        let bytes = list.which.len() + list.marks.len() + list.games.len();
        if list.count > ENTRIES_READ_AHEAD
            && (wanted * 2 >= list.blocks() || wanted * STATS_PAGE * FAULTS_READ_AHEAD >= bytes)
        {
            self.read_ahead(list.which);
            self.read_ahead(list.marks);
            self.read_ahead(list.games);
        }
    }

    /// [`IndexFile::find_among`] at the standard start position: the moves games play there
    /// read with their statistics, in one pass over them (a slice's start reads every page of
    /// them: at ten million games, 80 MB), the list read only for the games whose move there
    /// is not one of its own (null moves).
    fn at_start_among(&self, list: &List<'_>, among: &[u32]) -> Vec<FoundGame> {
        let mut found = Vec::with_capacity(among.len());
        let mut listed = Vec::new();
        let moves = start_moves();
        self.each_stats(
            among.len(),
            |i| among[i],
            |i, stats| {
                let (n, Some(stats)) = (among[i], stats) else {
                    return;
                };
                match at_start_among_moves(GameRecord::start_byte_from(stats), moves) {
                    AtStart::Never => {}
                    AtStart::Listed => listed.push(n),
                    AtStart::Plays(code) => found.push((n, code, GameRecord::stats_from(stats))),
                }
            },
        );
        if !listed.is_empty() {
            self.read_list_ahead(list, listed.len());
            found.extend(self.with_stats(list.among(&listed)));
            found.sort_unstable_by_key(|&(n, _, _)| n);
        }
        found
    }

    /// Have `bytes` of the map read into the page cache in one go: cold, far faster than
    /// the page faults of reading them a piece at a time. The kernel reads no more than its
    /// read-ahead window (8 MiB here) of a range it is advised to need, and a long range
    /// advised a piece at a time is still read far slower than through the file (80 MB in
    /// 140-175 ms, against 70-90 ms), so a long range is read through the file, a megabyte a
    /// call, the read's pages being the map's; a megabyte already in the page cache is not
    /// read again (a question may read the statistics twice, and a copy of 80 MB costs 15 ms).
    fn read_ahead(&self, bytes: &[u8]) {
        let at = bytes.as_ptr() as usize - self.map.as_ptr() as usize;
        if bytes.len() <= READ_THROUGH_FROM {
            let _ = self
                .map
                .advise_range(memmap2::Advice::WillNeed, at, bytes.len());
            return;
        }
        let mut buf = vec![0u8; READ_THROUGH_FROM];
        let end = at + bytes.len();
        let mut next = at;
        while next < end {
            let len = (end - next).min(buf.len());
            if !self.in_page_cache(next, len) {
                match self.file.read_at(&mut buf[..len], next as u64) {
                    Ok(n) if n > 0 => {}
                    _ => return,
                }
            }
            next += len;
        }
    }

    /// True when the `len` bytes of the map from `at` are all in the page cache.
    fn in_page_cache(&self, at: usize, len: usize) -> bool {
        let start = at / STATS_PAGE * STATS_PAGE;
        let pages = (at + len - start).div_ceil(STATS_PAGE);
        let mut resident = vec![0u8; pages];
        // SAFETY: `start` is a page of the map (page-aligned, the map itself being so) and
        // the range ends within its last page; `resident` holds a byte for each page.
        let known = unsafe {
            libc::mincore(
                self.map.as_ptr().add(start) as *mut libc::c_void,
                at + len - start,
                resident.as_mut_ptr(),
            )
        } == 0;
        known && resident.iter().all(|&r| r & 1 == 1)
    }

    /// Read every game's statistics into the mount's memory and keep them there (6 bytes a
    /// game: 60 MB at ten million games), as [`crate::collection::query::HeaderIndex::hold`]
    /// does the header index: the tree of a slice of the games (a player's, a year's) reads
    /// the statistics of games spread over all of them, and at ten million games reading
    /// them cold took longer than the answer (64-73 ms of the disk's for a player's tree at
    /// the start position). Mapped pages are not dropped with the page cache; the kernel may
    /// still take them back when memory runs short. Called where the index comes to serve,
    /// before it is said to be ready, never by a question.
    pub fn hold_stats(&self) {
        crate::collection::held::hold(&self.map, HEADER..HEADER + self.games as usize * STATS);
    }

    /// Have the kernel read every game's statistics ahead, for a question about `games`
    /// games: when they are more than a game for each page of statistics, nearly every page
    /// is read anyway, and one read ahead is far faster cold than a page fault each.
    fn read_stats_ahead(&self, games: usize) {
        let bytes = self.games as usize * STATS;
        if games * STATS_PAGE >= bytes {
            self.read_ahead(&self.map[HEADER..HEADER + bytes]);
        }
    }

    /// Have the kernel read what a search reads of every game (signatures and filters)
    /// ahead, for a search that checks `games` games to the end (past the opening), on the
    /// same rule as `IndexFile::read_stats_ahead`: a search of every game reads them all.
    pub fn read_search_ahead(&self, games: usize) {
        let bytes = self.games as usize * SEARCH;
        if games * STATS_PAGE >= bytes {
            let at = self.search_at(0);
            self.read_ahead(&self.map[at..at + bytes]);
        }
    }

    /// True when position `key` is listed: at least two games reach it.
    pub fn lists(&self, key: u64) -> bool {
        self.list(key).is_some()
    }

    /// The games of listed position `key` that play move `code` there, ascending; `None`
    /// when the position is not listed.
    pub fn games_playing(&self, key: u64, code: u16) -> Option<Vec<u32>> {
        let list = self.list(key)?;
        Some(
            list.all()
                .filter(|&(_, next)| next == code)
                .map(|(game, _)| game)
                .collect(),
        )
    }

    /// The move game `game` plays at position `key`, if the position is listed and the game
    /// reaches it.
    pub fn find_game(&self, key: u64, game: u32) -> Option<u16> {
        self.list(key)?.find(game)
    }

    /// Sum `i`.
    fn sum(&self, i: usize) -> Sum {
        let at = self.listed_at(self.listed) + i * SUM;
        Sum::from_bytes(&self.map[at..at + SUM])
    }

    /// The sums of position `key` per move played there, moves ascending; `None` when it
    /// has none (fewer than [`SUMS_FROM`] games reach it: [`IndexFile::find`] its games).
    pub fn sums(&self, key: u64) -> Option<Vec<(u16, MoveStats)>> {
        let lo = first_not_below(self.sums, |i| (self.sum(i).key, 0), (key, 0));
        let sums: Vec<(u16, MoveStats)> = (lo..self.sums)
            .map(|i| self.sum(i))
            .take_while(|s| s.key == key)
            .map(|s| (s.next, s.stats))
            .collect();
        (!sums.is_empty()).then_some(sums)
    }
}

/// The bytes of a range past which [`IndexFile::read_ahead`] reads it through the file, and
/// the bytes of each read.
const READ_THROUGH_FROM: usize = 1 << 20;
/// The games of one position past which the pages of its list are asked for at once.
const ENTRIES_READ_AHEAD: usize = 1024;
/// The bytes of a page of the map (the kernel's page on the machines gamefs is built for;
/// where pages are larger, [`IndexFile::in_page_cache`] is refused an address within one,
/// and the range is read as if it were not in the cache).
const STATS_PAGE: usize = 4096;
/// The pages of a list read ahead whole for each page its question may touch: a page fault
/// cold costs about what reading 30 pages in one go does (0.1 ms against 1.3 GB/s, measured
/// here), so a list is read whole when its question touches one page in 16 or more.
const FAULTS_READ_AHEAD: usize = 16;

/// The first of `len` items ascending by `at` whose value is not below `want`. The keys are
/// hashes, spread evenly over the 64-bit range, so each step guesses where `want`'s key lies
/// between the keys known at the ends of the range left (interpolation search): two or three
/// pages of a file that may not be in memory, where halving reads a dozen over the entries of
/// a million games. Where guessing does not halve the range in two steps (the ends' keys
/// equal, as in the run of one position's entries), the next step halves it, so the steps
/// stay at most thrice a binary search's.
fn first_not_below(len: usize, at: impl Fn(usize) -> (u64, u32), want: (u64, u32)) -> usize {
    let (mut lo, mut hi) = (0, len);
    // The key of the item before `lo` (below `want`) and of the item at `hi` (not below).
    let (mut lo_key, mut hi_key) = (0u64, u64::MAX);
    // The range the step before started with, and whether this step halves.
    let (mut before, mut halve) = (len, false);
    while lo < hi {
        let range = hi - lo;
        // Where the key lies between the ends' keys, when it lies strictly between them.
        let guess = (!halve && lo_key < want.0 && want.0 < hi_key).then(|| {
            let off = u128::from(want.0 - lo_key) * range as u128 / u128::from(hi_key - lo_key);
            (off as usize).min(range - 1)
        });
        let mid = lo + guess.unwrap_or(range / 2);
        let v = at(mid);
        if v < want {
            (lo, lo_key) = (mid + 1, v.0);
        } else {
            (hi, hi_key) = (mid, v.0);
        }
        halve = guess.is_some() && (hi - lo) * 2 > before;
        before = range;
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`IndexFile::find_among`]'s games and moves, without their statistics.
    fn moves_among(f: &IndexFile, key: u64, among: &[u32]) -> Option<Vec<(u32, u16)>> {
        f.find_among(key, among)
            .map(|found| found.into_iter().map(|(n, next, _)| (n, next)).collect())
    }

    /// `games` with the filters of their positions among `entries`, as a build makes them.
    pub(super) fn with_filters(games: &[GameRecord], entries: &[Entry]) -> Vec<GameRecord> {
        let mut games = games.to_vec();
        for e in entries {
            games[e.game as usize].filter.add(e.key);
        }
        games
    }

    fn stats(result: u8, year: u16) -> GameStats {
        GameStats {
            result: GameStats::result_of_code(result),
            white_elo: 2500,
            black_elo: 2400,
            year,
        }
    }

    /// Held statistics keep their pages when the page cache is dropped (they are mapped), so
    /// the tree of a slice read after a `drop_caches` reads no disk; statistics not held lose
    /// them.
    #[test]
    fn held_statistics_stay_in_memory_when_the_page_cache_is_dropped() {
        use std::os::fd::AsRawFd;
        // A folder on a disk: a tmpfs never drops its pages.
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("index");
        let games = 50_000;
        write(&path, 1, &vec![GameRecord::default(); games], Vec::new()).unwrap();
        let f = IndexFile::open(&path).unwrap();
        let dropped = || {
            // SAFETY: advice on the file the index holds open.
            let done =
                unsafe { libc::posix_fadvise(f.file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            assert_eq!(done, 0);
            f.in_page_cache(HEADER, games * STATS)
        };
        assert!(
            !dropped(),
            "the page cache of {} drops pages",
            dir.path().display()
        );
        f.hold_stats();
        assert!(dropped());
    }

    #[test]
    fn an_index_written_from_buckets_on_many_threads_is_the_one_written_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = crate::testing::Rng(11);
        let games: Vec<GameRecord> = (0..500)
            .map(|n| GameRecord {
                stats: (n % 7 != 0).then(|| GameStats {
                    result: GameStats::result_of_code(rng.below(4) as u8),
                    white_elo: rng.below(2800) as u16,
                    black_elo: rng.below(2800) as u16,
                    year: 1900 + rng.below(120) as u16,
                }),
                signature: Signature {
                    emptied: rng.next_u64(),
                    count: rng.below(17) as u8,
                    material: rng.below(1 << 16) as u16,
                },
                filter: Filter::default(),
                // A game not indexed keeps nothing of its start.
                at_start: match (n % 7 != 0, rng.below(5)) {
                    (false, _) | (true, 0) => AtStart::Never,
                    (true, 1) => AtStart::Plays(super::super::key::END),
                    (true, 2) => AtStart::Listed,
                    (true, _) => AtStart::Plays(start_moves()[rng.below(20)]),
                },
            })
            .collect();
        // Keys spread over the buckets, a few of them reached by many games (sums).
        let common: Vec<u64> = (0..40).map(|_| rng.next_u64()).collect();
        let mut entries: Vec<Entry> = (0..60_000)
            .map(|_| Entry {
                key: if rng.below(3) == 0 {
                    common[rng.below(40)]
                } else {
                    rng.next_u64() >> rng.below(2)
                },
                game: rng.below(500) as u32,
                next: rng.below(30) as u16,
            })
            .collect();
        entries.sort_unstable();
        entries.dedup_by_key(|e| (e.key, e.game));
        let in_order = dir.path().join("in-order");
        write(&in_order, 5, &games, entries.clone()).unwrap();
        let from_buckets = dir.path().join("from-buckets");
        // A build of this many games has 32 buckets.
        let buckets = Buckets::beside(&from_buckets, 100_000).unwrap();
        assert!(buckets.count() > 1);
        let mut shuffled = entries.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        let mut writers = [buckets.writer(), buckets.writer(), buckets.writer()];
        for (i, part) in shuffled.chunks(7_000).enumerate() {
            writers[i % 3].add(part.iter().copied()).unwrap();
        }
        for w in &mut writers {
            w.flush().unwrap();
        }
        drop(writers);
        let building = Building::create(&from_buckets, 500).unwrap();
        let games = with_filters(&games, &entries);
        // The records put as build threads put them: batches in any order.
        for first in [300, 0, 100, 400, 200] {
            building
                .put(first, &games[first as usize..first as usize + 100])
                .unwrap();
        }
        building.finish(5, &buckets, 3).unwrap().keep().unwrap();
        // The same index, but for where each set of games shared is kept, which depends on
        // which thread came to it first.
        for path in [&in_order, &from_buckets] {
            let f = IndexFile::open(path).unwrap();
            // Every position two games reach is listed with its games, the others are not.
            let mut listed = 0;
            for run in entries.chunk_by(|a, b| a.key == b.key) {
                let want: Vec<(u32, u16)> = run.iter().map(|e| (e.game, e.next)).collect();
                if run.len() >= 2 {
                    listed += 1;
                    assert_eq!(f.find(run[0].key), Some(want.clone()));
                    for &(game, next) in &want {
                        assert_eq!(f.find_game(run[0].key, game), Some(next));
                    }
                } else {
                    assert_eq!(f.find(run[0].key), None);
                    assert!(f.in_filter(run[0].game, run[0].key), "{:?}", run[0]);
                }
            }
            assert_eq!(f.listed_count(), listed);
            assert!(f.sums(common[0]).is_some());
            for key in &common {
                assert_eq!(f.sums(*key), IndexFile::open(&in_order).unwrap().sums(*key));
            }
            for n in 0..500 {
                assert_eq!(f.game(n), games[n as usize]);
            }
        }
    }

    #[test]
    fn positions_the_same_games_reach_keep_those_games_once() {
        let dir = tempfile::tempdir().unwrap();
        let games: Vec<GameRecord> = (0..100)
            .map(|n| GameRecord {
                stats: Some(stats(1 + n % 3, 2000)),
                ..GameRecord::default()
            })
            .collect();
        // Ten copies of one game (3, 13, … 93) along a line of 2,000 positions, with other
        // games at some of them; four games (0, 1, 2, 50) along another 2,000.
        let mut entries = Vec::new();
        for key in 0..2_000u64 {
            entries.extend((0..10).map(|k| Entry {
                key: key << 40,
                game: 3 + 10 * k,
                next: key as u16,
            }));
            if key % 100 == 0 {
                entries.push(Entry {
                    key: key << 40,
                    game: 4,
                    next: 1,
                });
            }
            entries.extend([0, 1, 2, 50].map(|game| Entry {
                key: key << 40 | 1,
                game,
                next: key as u16,
            }));
        }
        entries.sort_unstable();
        let path = dir.path().join("index");
        write(&path, 1, &games, entries.clone()).unwrap();
        let f = IndexFile::open(&path).unwrap();
        for run in entries.chunk_by(|a, b| a.key == b.key) {
            let want: Vec<(u32, u16)> = run.iter().map(|e| (e.game, e.next)).collect();
            assert_eq!(f.find(run[0].key), Some(want.clone()));
            let among = [4, 13, 50, 93];
            let found: Vec<(u32, u16)> = want
                .iter()
                .copied()
                .filter(|(g, _)| among.contains(g))
                .collect();
            assert_eq!(moves_among(&f, run[0].key, &among), Some(found));
        }
        // Three sets of games (the ten copies, with game 4 and without; the four games): a
        // list names its set in a few bytes (five), where the ten copies alone take eleven.
        assert_eq!(f.listed_count(), 4_000);
        assert!(f.lists + f.shared < 4_000 * 6, "{} + {}", f.lists, f.shared);
        assert!(f.shared < 100, "{}", f.shared);
    }

    /// Six bytes keep every result, every start byte and ratings and years of 12 bits; a
    /// larger rating or year is kept as the largest.
    #[test]
    fn a_games_statistics_keep_what_it_is_in_six_bytes() {
        let at_starts = [
            AtStart::Never,
            AtStart::Listed,
            AtStart::Plays(super::super::key::END),
            AtStart::Plays(start_moves()[0]),
            AtStart::Plays(*start_moves().last().unwrap()),
        ];
        for (i, at_start) in at_starts.into_iter().enumerate() {
            for (elo, year) in [(0, 0), (2851, 2047), (4000, 1), (4095, 4095), (5000, 9999)] {
                let stats = GameStats {
                    result: GameStats::result_of_code(i as u8 % 4),
                    white_elo: elo,
                    black_elo: 4095 - elo.min(4095),
                    year,
                };
                let record = GameRecord {
                    stats: Some(stats),
                    at_start,
                    ..GameRecord::default()
                };
                let b = record.stats_bytes();
                let kept = GameStats {
                    white_elo: elo.min(STATS_MOST),
                    year: year.min(STATS_MOST),
                    ..stats
                };
                assert_eq!(GameRecord::stats_from(&b), Some(kept), "{at_start:?}");
                assert_eq!(at_start_of_byte(GameRecord::start_byte_from(&b)), at_start);
            }
            let not_indexed = GameRecord {
                at_start,
                ..GameRecord::default()
            };
            let b = not_indexed.stats_bytes();
            assert_eq!(GameRecord::stats_from(&b), None);
            assert_eq!(GameRecord::start_byte_from(&b), 0);
        }
    }

    #[test]
    fn positions_with_enough_games_keep_their_sums_per_move() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let games: Vec<GameRecord> = [stats(1, 1990), stats(3, 2000), stats(2, 0)]
            .into_iter()
            .map(|s| GameRecord {
                stats: Some(s),
                signature: Signature::default(),
                filter: Filter::default(),
                at_start: AtStart::Never,
            })
            .collect();
        // Position 1: three games, two moves; position 2: one game (not listed).
        let entries = [(1, 0, 7), (1, 1, 9), (1, 2, 7), (2, 1, 4)].map(|(key, game, next)| Entry {
            key,
            game,
            next,
        });
        write(&path, 1, &games, entries).unwrap();
        let f = IndexFile::open(&path).unwrap();
        let mut seven = MoveStats::default();
        seven.add(&stats(1, 1990));
        seven.add(&stats(2, 0));
        let mut nine = MoveStats::default();
        nine.add(&stats(3, 2000));
        assert_eq!(f.sums(1), Some(vec![(7, seven), (9, nine)]));
        assert_eq!(f.sums(2), None);
        assert_eq!(f.sums(3), None);
        assert_eq!(f.find(2), None);
        let sum = Sum {
            key: 1,
            next: 7,
            stats: seven,
        };
        assert_eq!(Sum::from_bytes(&sum.to_bytes()), sum);
    }

    #[test]
    fn long_lists_find_each_game_and_a_cut_file_is_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let games = vec![GameRecord::default(); 100_000];
        // One position reached by every third game, with three moves; one by two games.
        let mut entries: Vec<Entry> = (0..100_000)
            .step_by(3)
            .map(|game| Entry {
                key: 9,
                game,
                next: (game % 5) as u16 % 3,
            })
            .collect();
        entries.extend([(4, 7), (4, 99_999)].map(|(key, game)| Entry { key, game, next: 1 }));
        entries.sort();
        write(&path, 42, &games, entries.clone()).unwrap();
        let f = IndexFile::open(&path).unwrap();
        assert_eq!(
            (f.stamp(), f.game_count(), f.listed_count()),
            (42, 100_000, 2)
        );
        let nine: Vec<(u32, u16)> = entries[2..].iter().map(|e| (e.game, e.next)).collect();
        assert_eq!(f.find(9), Some(nine));
        for game in [0, 3, 63 * 3, 64 * 3, 65 * 3, 99_999] {
            assert_eq!(f.find_game(9, game), Some((game % 5) as u16 % 3), "{game}");
        }
        for game in [1, 2, 64 * 3 + 1, 100_000] {
            assert_eq!(f.find_game(9, game), None, "{game}");
        }
        assert_eq!(f.find(4), Some(vec![(7, 1), (99_999, 1)]));
        // Among some games only: the list's games among them, whichever blocks they fall in.
        let mut rng = crate::testing::Rng(0xA304);
        for among in [
            vec![],
            vec![0],
            vec![1, 2, 4],
            (0..100_000).collect::<Vec<u32>>(),
            vec![191, 192, 193, 194, 99_998, 99_999, 100_000, u32::MAX],
            (0..3000).map(|_| rng.below(100_003) as u32).collect(),
        ] {
            let mut among = among;
            among.sort_unstable();
            among.dedup();
            for key in [9, 4] {
                let want: Vec<(u32, u16)> = f
                    .find(key)
                    .unwrap()
                    .into_iter()
                    .filter(|(g, _)| among.binary_search(g).is_ok())
                    .collect();
                assert_eq!(moves_among(&f, key, &among), Some(want), "{among:?}");
            }
            assert_eq!(moves_among(&f, 5, &among), None);
        }
        assert_eq!(f.find(5), None);
        assert_eq!(f.find(u64::MAX), None);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(IndexFile::open(&path).is_none());
        std::fs::write(&path, b"GFPOSIX8 short").unwrap();
        assert!(IndexFile::open(&path).is_none());
    }

    /// The search finds what a binary search finds, over keys spread evenly, clustered, in
    /// long runs of one key, and few; over a million keys spread evenly it reads 3 pages of
    /// entries, where halving reads 12, and in a run of one key at most thrice as many items
    /// as halving.
    #[test]
    fn the_search_by_key_finds_the_first_not_below_in_few_looks() {
        let mut rng = crate::testing::Rng(0x5EA2_C400);
        for round in 0..300 {
            let len = rng.below(3000);
            let mut items: Vec<(u64, u32)> = (0..len)
                .map(|_| {
                    let key = match round % 4 {
                        0 => rng.next_u64(),
                        1 => rng.next_u64() >> 40,
                        2 => rng.below(4) as u64 * (u64::MAX / 3),
                        _ => u64::MAX - rng.below(50) as u64,
                    };
                    (key, rng.below(1000) as u32)
                })
                .collect();
            items.sort_unstable();
            for _ in 0..50 {
                let want = match rng.below(3) {
                    0 if len > 0 => items[rng.below(len)],
                    1 if len > 0 => (items[rng.below(len)].0, 0),
                    _ => (rng.next_u64(), rng.below(1000) as u32),
                };
                let expected = items.partition_point(|&x| x < want);
                assert_eq!(
                    first_not_below(len, |i| items[i], want),
                    expected,
                    "{want:?}"
                );
            }
        }
        let mut keys: Vec<(u64, u32)> = (0..1_000_000).map(|g| (rng.next_u64(), g)).collect();
        keys.sort_unstable();
        // The pages of 4 KiB of 16-byte entries looked at: what a search costs where the
        // index is not in memory (halving: 13 of the 3 907 pages of a million entries).
        let pages = std::cell::RefCell::new(std::collections::HashSet::new());
        let mut looked = 0;
        for _ in 0..1000 {
            let want = (keys[rng.below(keys.len())].0, 0);
            let at = |i: usize| {
                pages.borrow_mut().insert(i / 256);
                keys[i]
            };
            assert_eq!(
                first_not_below(keys.len(), at, want),
                keys.partition_point(|&x| x < want)
            );
            looked += pages.borrow_mut().drain().count();
        }
        let mean = looked as f64 / 1000.0;
        assert!(mean < 5.0, "{mean} pages a search");
        // One key held by 100 000 items (the start position's entries): a search by game
        // looks at no more than thrice halving's 17 items.
        let run: Vec<(u64, u32)> = (0..100_000).map(|g| (7 << 60, g)).collect();
        for _ in 0..100 {
            let want = (7 << 60, rng.below(100_001) as u32);
            let looks = std::cell::Cell::new(0);
            let at = |i: usize| {
                looks.set(looks.get() + 1);
                run[i]
            };
            assert_eq!(first_not_below(run.len(), at, want), want.1 as usize);
            assert!(looks.get() <= 3 * 17, "{} looks", looks.get());
        }
    }
}
