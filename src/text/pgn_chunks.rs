//! A PGN text parsed on several threads, with exactly the result of [`pgn_parse::Games`].
//!
//! The text is cut into chunks of about [`Split::chunk_bytes`] at places where the sequential
//! parser must be between two games (see [`is_game_boundary`]); each chunk is parsed on its
//! own, the chunks dealt round-robin to the threads, and the games handed on in text order, in
//! batches of at most [`Split::batch_games`], with their numbers, lines and byte ranges in the
//! whole text. A chunk starts where the sequential parser stands between two games, and its
//! parser reads the same bytes from the same state, so its games are the sequential ones. A
//! game a chunk refused is read again on its own, from where it starts in the whole text (so
//! the error is the sequential one: a message may name another line of the game); the chunk's
//! later games are taken again if that reading ends where the chunk's did. If it ends further
//! on (an unclosed comment read to the chunk's end closes in the next one), the sequential
//! parser reads on from there until it stands exactly at the start of a later chunk, from
//! where that chunk's games are the sequential parser's again.

use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};

use super::pgn_parse::{Games, ParseError, ReadGame, Reading};
use super::{DoneWith, line_breaks};

/// One parsed game with its place in the text, or why it was refused.
pub(crate) type Parsed = Result<ReadGame, ParseError>;

/// How a text is cut up between the parsing threads and the consumer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    /// The size chunks are cut at: each is parsed by one thread.
    pub chunk_bytes: usize,
    /// The most games handed over at once. Parsed games wait in memory until the consumer
    /// takes them, and a chunk's bytes say little about its games: 256 KiB of `*` alone are
    /// 87 000 games, 23 MiB of parsed games.
    pub batch_games: usize,
    /// The most chunks parsed or being parsed ahead of the one the consumer takes, whatever
    /// the number of threads: what an import holds grows with it, not with the cores (before
    /// the window, 32 threads importing a 126 MiB file of 16 KiB comments peaked at 173 MiB,
    /// 2 threads at 44 MiB).
    pub chunks_ahead: usize,
}

impl Split {
    /// Chunks of a couple of hundred typical games (small enough that few wait in memory,
    /// large enough that handing them over costs nothing), each handed over whole unless it
    /// holds more than 1024 games.
    pub(crate) const DEFAULT: Split = Split {
        chunk_bytes: 256 << 10,
        batch_games: 1024,
        chunks_ahead: 8,
    };

    /// [`Split::DEFAULT`] with a wider window, for skimmed games (headers only, a few hundred
    /// bytes each): 32 chunks, 8 MiB of text, may be parsed ahead of the consumer. With
    /// 8, on 2 cores, the parsers kept waiting for a consumer the scheduler had set aside for
    /// a moment (indexing 1M lichess-shaped games, plain: 2.17 → 1.99 s).
    pub(crate) const SKIMMED: Split = Split {
        chunks_ahead: 32,
        ..Split::DEFAULT
    };
}

/// Fewer bytes than most games' texts take (a game of 40 moves, tags and no comment is
/// 600-900 bytes): a chunk's length divided by it is room for its games.
const TYPICAL_GAME_BYTES: usize = 512;

/// Games handed from a parsing thread to the consumer (numbered, lined and placed within
/// their chunk), and, with a chunk's last batch, the line breaks the chunk holds.
type Batch = (Vec<Parsed>, Option<u32>);

/// Parse `text` on `threads` threads (at least one) while `consume` takes the games in text
/// order, the same items [`Games`] yields (with `skim`, [`Games::skimming`]); returns what
/// `consume` returns. Each chunk's range goes to `done_with` once it is parsed (the games hold
/// no reference to it).
pub(crate) fn with_games<R>(
    text: &[u8],
    reading: Reading,
    skim: bool,
    threads: usize,
    split: Split,
    done_with: DoneWith<'_>,
    consume: impl FnOnce(&mut dyn Iterator<Item = Parsed>) -> R,
) -> R {
    let how = How {
        reading,
        skim,
        keep_cut: false,
    };
    with_games_read(text, how, threads, split, done_with, consume)
}

/// How each game of a text is read: the [`Games`] settings a parser of a chunk takes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct How {
    /// [`Games::reading`].
    pub reading: Reading,
    /// [`Games::skimming`].
    pub skim: bool,
    /// [`Games::keeping_cut_games`].
    pub keep_cut: bool,
}

impl How {
    /// `games` read so.
    pub(crate) fn apply<'a>(self, games: Games<'a>) -> Games<'a> {
        games
            .reading(self.reading)
            .skimming(self.skim)
            .keeping_cut_games(self.keep_cut)
    }
}

/// [`with_games`], each game read as `how` says.
pub(crate) fn with_games_read<R>(
    text: &[u8],
    how: How,
    threads: usize,
    split: Split,
    done_with: DoneWith<'_>,
    consume: impl FnOnce(&mut dyn Iterator<Item = Parsed>) -> R,
) -> R {
    let cuts = Cuts::new(text, split.chunk_bytes);
    // More threads than chunks in the window would only wait.
    let threads = threads
        .clamp(1, cuts.chunks())
        .min(split.chunks_ahead.max(1));
    let batch_games = split.batch_games.max(1);
    let window = Window::new(split.chunks_ahead);
    std::thread::scope(|s| {
        let mut receivers = Vec::with_capacity(threads);
        let mut parsers = Vec::with_capacity(threads);
        for t in 0..threads {
            // A thread's share of the window (at least two batches) ahead at most, so memory
            // stays bounded and the window, not the channel, is what a thread waits for.
            let (tx, rx) = sync_channel::<Batch>(split.chunks_ahead.div_ceil(threads).max(2));
            receivers.push(rx);
            let (cuts, window) = (&cuts, &window);
            parsers.push(s.spawn(move || {
                // Room for the games of a chunk at once (a batch grown game by game would
                // move every game again at each growth): typical games' worth, or as many as
                // the last chunk held and a few more if that is more. (The last chunk's alone
                // fell short on a real collection, whose games' sizes change from one source
                // to the next: 1.4 % of its index went to moving batches as they grew.)
                let mut last_held = 0;
                for k in (t..cuts.chunks()).step_by(threads) {
                    if !window.wait_for(k) {
                        return;
                    }
                    let chunk = cuts.chunk(k);
                    let mut games = how.apply(Games::new(&text[chunk.clone()]));
                    let mut next = games.next();
                    let expected =
                        (chunk.len() / TYPICAL_GAME_BYTES).max(last_held + last_held / 8);
                    let mut ends_chunk = false;
                    let mut in_chunk = 0;
                    while !ends_chunk {
                        let mut batch = Vec::with_capacity(
                            expected.saturating_sub(in_chunk).clamp(1, batch_games),
                        );
                        while batch.len() < batch_games
                            && let Some(game) = next.take()
                        {
                            batch.push(game);
                            next = games.next();
                        }
                        in_chunk += batch.len();
                        ends_chunk = next.is_none();
                        let line_breaks = ends_chunk.then(|| {
                            let n = games.line_breaks_read();
                            debug_assert_eq!(n, line_breaks(&text[chunk.clone()]));
                            done_with(chunk.clone());
                            n
                        });
                        // The receiver is gone when the consumer stopped: stop parsing.
                        if tx.send((batch, line_breaks)).is_err() {
                            return;
                        }
                    }
                    last_held = in_chunk;
                }
            }));
        }
        let mut games = InOrder {
            text,
            how,
            cuts: &cuts,
            window: &window,
            receivers,
            chunk: Chunk::default(),
            current: Vec::new().into_iter(),
            sequential: None,
            rereading: None,
        };
        let consumed = consume(&mut games);
        // The threads stop (the window closed, the receivers gone), and are waited for to the
        // end: the scope alone waits only for their closures, not for what the threads free
        // after (their thread-local destructors, which a leak checker then sees as leaked).
        drop(games);
        for parser in parsers {
            if let Err(panic) = parser.join() {
                std::panic::resume_unwind(panic);
            }
        }
        consumed
    })
}

/// The chunk whose games come next, and where it stands in the whole text.
#[derive(Default)]
struct Chunk {
    /// Its index among the chunks.
    index: usize,
    /// The line it starts on, less one.
    lines_before: u32,
    /// The games of the text before it.
    games_before: u32,
    /// Its items (games read or refused) handed on so far.
    yielded: u32,
    /// Its line breaks, once its last batch was received.
    line_breaks: Option<u32>,
}

/// The chunks' games in text order; a game a chunk refused read again in the whole text, and
/// the sequential parser's games where that reading ran past the chunk's end.
struct InOrder<'a> {
    text: &'a [u8],
    /// How each game is read.
    how: How,
    cuts: &'a Cuts<'a>,
    /// How far ahead of the current chunk the threads may parse.
    window: &'a Window,
    /// One per thread; chunk k comes from `receivers[k % threads]`.
    receivers: Vec<Receiver<Batch>>,
    chunk: Chunk,
    current: std::vec::IntoIter<Parsed>,
    /// The sequential parser, from the end of a game read again past its chunk's end until it
    /// stands at the start of a later chunk.
    sequential: Option<Games<'a>>,
    /// The parser that reads again the current chunk's refused games, from its start on: it
    /// steps over the games between them without reading them.
    rereading: Option<Games<'a>>,
}

impl InOrder<'_> {
    /// The next batch of the current chunk, with its line breaks if it is the last one.
    fn receive(&mut self) -> Option<Batch> {
        let n = self.receivers.len();
        let batch = self
            .receivers
            .get(self.chunk.index % n.max(1))?
            .recv()
            .ok()?;
        self.chunk.line_breaks = batch.1;
        Some(batch)
    }

    /// Move on to the next chunk, which starts after `lines_before` lines and `games_before`
    /// games.
    fn next_chunk(&mut self, lines_before: u32, games_before: u32) {
        self.chunk = Chunk {
            index: self.chunk.index + 1,
            lines_before,
            games_before,
            yielded: 0,
            line_breaks: None,
        };
        self.current = Vec::new().into_iter();
        self.rereading = None;
        self.window.moved_to(self.chunk.index);
    }

    /// Drop what is left of the current chunk's batches (the sequential parser reads it).
    fn skip_chunk(&mut self) {
        while self.chunk.line_breaks.is_none() {
            if self.receive().is_none() {
                return;
            }
        }
    }

    /// A chunk's game, placed in the whole text.
    fn placed(&self, mut game: ReadGame) -> ReadGame {
        let at = self.cuts.start(self.chunk.index);
        game.number += self.chunk.games_before;
        game.line += self.chunk.lines_before;
        for (line, _) in &mut game.changes {
            *line += self.chunk.lines_before;
        }
        game.text = game.text.start + at..game.text.end + at;
        game
    }

    /// The whole text's reading of a game the current chunk refused or kept cut short (`text`,
    /// its bytes in the chunk). Where it ends further on than the chunk's reading (which ran into the chunk's
    /// end), the sequential parser reads on from there.
    fn read_again(&mut self, text: std::ops::Range<usize>) -> Parsed {
        let at = self.cuts.start(self.chunk.index);
        let chunk = &self.chunk;
        let games = self.rereading.get_or_insert_with(|| {
            // Chunk 0 may start with a byte-order mark, which only `Games::new` steps over.
            let games = match chunk.index {
                0 => Games::new(self.text),
                _ => Games::resume(self.text, at, chunk.lines_before + 1, chunk.games_before),
            };
            self.how.apply(games)
        });
        games.skip_to(at + text.start, chunk.games_before + chunk.yielded);
        let read = games
            .next()
            .expect("a refused game's bytes are there to read");
        self.chunk.yielded += 1;
        let end = match &read {
            Ok(game) => game.text.end,
            Err(refused) => refused.text.end,
        };
        if end != at + text.end {
            self.current = Vec::new().into_iter();
            self.sequential = self.rereading.take();
        }
        read
    }

    /// The sequential parser's next item, handing back to the chunks once it stands at the
    /// start of one.
    fn next_sequential(&mut self) -> Option<Option<Parsed>> {
        let games = self.sequential.as_mut()?;
        let (at, line) = games.next_start();
        while let Some(cut) = self
            .cuts
            .later_start(self.chunk.index + 1)
            .filter(|&cut| cut <= at)
        {
            self.skip_chunk();
            let games_before = self.sequential.as_ref().map_or(0, Games::count);
            self.next_chunk(line - 1, games_before);
            if cut == at {
                self.sequential = None;
                return None;
            }
        }
        #[cfg(test)]
        tests::SEQUENTIAL_READS.with(|n| n.set(n.get() + 1));
        Some(self.sequential.as_mut()?.next())
    }
}

impl Iterator for InOrder<'_> {
    type Item = Parsed;

    fn next(&mut self) -> Option<Parsed> {
        loop {
            if let Some(item) = self.next_sequential() {
                return item;
            }
            match self.current.next() {
                // A game kept cut short ended where its stepping over the rest ended, and a
                // tag value read on to the next `]` where that was: either may run past the
                // chunk's end. Read again, as a refused one (any game salvaged: they are few).
                Some(Ok(game)) if game.salvaged => return Some(self.read_again(game.text)),
                Some(Ok(game)) => {
                    self.chunk.yielded += 1;
                    return Some(Ok(self.placed(game)));
                }
                Some(Err(refused)) => return Some(self.read_again(refused.text)),
                None if self.chunk.line_breaks.is_some() => {
                    let chunk = &self.chunk;
                    let lines = chunk.lines_before + chunk.line_breaks.unwrap_or(0);
                    let games = chunk.games_before + chunk.yielded;
                    self.next_chunk(lines, games);
                }
                None => {
                    let (batch, _) = self.receive()?;
                    self.current = batch.into_iter();
                }
            }
        }
    }
}

impl Drop for InOrder<'_> {
    /// A consumer that stops early lets the threads waiting for the window go (they stop).
    fn drop(&mut self) {
        self.window.close();
    }
}

/// The chunks the parsing threads may take: those less than [`Split::chunks_ahead`] after the
/// consumer's current one. Each thread's channel bounds what one thread holds; this bounds
/// what all of them hold together.
struct Window {
    /// How many chunks from the current one on may be parsed.
    size: usize,
    /// The consumer's current chunk; `usize::MAX` once the consumer stopped.
    current: Mutex<usize>,
    /// Signalled when `current` changes.
    moved: Condvar,
}

impl Window {
    fn new(size: usize) -> Window {
        Window {
            size: size.max(1),
            current: Mutex::new(0),
            moved: Condvar::new(),
        }
    }

    /// Wait until chunk `k` may be parsed; false when the consumer stopped.
    fn wait_for(&self, k: usize) -> bool {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        while k >= current.saturating_add(self.size) {
            current = self
                .moved
                .wait(current)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *current != usize::MAX
    }

    /// The consumer went on to chunk `k`.
    fn moved_to(&self, k: usize) {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = k;
        self.moved.notify_all();
    }

    /// The consumer stopped: no chunk is waited for.
    fn close(&self) {
        self.moved_to(usize::MAX);
    }
}

/// Where the chunks of a text start, each found when first asked for: by the thread that
/// parses the chunk, or by the one parsing the chunk before (its end), so that looking for
/// them is spread over the threads and reads only pages the parsing reads anyway (found all
/// at once before parsing, they took a tenth of an index's time on one core). Chunk k starts
/// at the first game boundary at or after byte k × `chunk_bytes` (see [`is_game_boundary`]),
/// chunk 0 at 0; the text's end ends the last. Where a game is longer than a chunk, the
/// chunks after it start at the same place (and are empty).
struct Cuts<'a> {
    text: &'a [u8],
    chunk_bytes: usize,
    /// Each chunk's start, once found.
    starts: Vec<OnceLock<usize>>,
}

impl<'a> Cuts<'a> {
    /// The chunks of `text`, of `chunk_bytes` (at least 1) give or take a game.
    fn new(text: &'a [u8], chunk_bytes: usize) -> Cuts<'a> {
        let chunk_bytes = chunk_bytes.max(1);
        let chunks = text.len().div_ceil(chunk_bytes).max(1);
        Cuts {
            text,
            chunk_bytes,
            starts: (0..chunks).map(|_| OnceLock::new()).collect(),
        }
    }

    /// How many chunks there are.
    fn chunks(&self) -> usize {
        self.starts.len()
    }

    /// Where chunk `k` starts (the text's end for `k` past the last).
    fn start(&self, k: usize) -> usize {
        match self.starts.get(k) {
            _ if k == 0 => 0,
            None => self.text.len(),
            Some(start) => *start.get_or_init(|| {
                let found = boundary_from(self.text, k * self.chunk_bytes);
                // The chunks that start before it start there too: no other looks that far.
                let mut later = k + 1;
                while later * self.chunk_bytes <= found
                    && let Some(start) = self.starts.get(later)
                {
                    let _ = start.set(found);
                    later += 1;
                }
                found
            }),
        }
    }

    /// The bytes of chunk `k`.
    fn chunk(&self, k: usize) -> std::ops::Range<usize> {
        self.start(k)..self.start(k + 1)
    }

    /// Where chunk `k` starts, if there is one.
    fn later_start(&self, k: usize) -> Option<usize> {
        (k < self.chunks()).then(|| self.start(k))
    }
}

/// The first game boundary at or after byte `from` (at least 1) of `text`, or its end.
fn boundary_from(text: &[u8], from: usize) -> usize {
    #[cfg(test)]
    tests::LOOKS.with(|n| n.set(n.get() + 1));
    // A boundary is a `[` just after a line break: only those are looked at.
    memchr::memmem::find_iter(&text[from - 1..], b"\n[")
        .map(|i| from + i)
        .find(|&i| is_game_boundary(text, i))
        .unwrap_or(text.len())
}

/// Whether the sequential parser is certainly between two games at `at`, or fails on a game
/// that spans it: `at` is a `[` that starts a line after a blank line, and the last line with
/// text before it ends with a result (`1-0`, `0-1`, `1/2-1/2`, `*`) standing alone, on a line
/// that is not a tag (`[`) or escape (`%`) line. Read in movetext, such a result ends the game
/// and the next one starts at `at`; read inside a comment, the comment is unclosed in the
/// chunk, which the chunk's parser refuses (and the game is read again in the whole text);
/// read inside a tag value SCID's reading reads on past its line, the value runs to the
/// chunk's end, and the game is salvaged ([`ReadGame::salvaged`]: read again too).
pub(crate) fn is_game_boundary(text: &[u8], at: usize) -> bool {
    if text.get(at) != Some(&b'[') || at < 2 || text[at - 1] != b'\n' {
        return false;
    }
    let before = &text[..at - 1];
    // A blank line (only spaces) right before.
    let Some(prev_break) = before.iter().rposition(|&b| b == b'\n') else {
        return false;
    };
    if !before[prev_break + 1..].iter().all(|&b| is_blank(b)) {
        return false;
    }
    let body = trim_end(&before[..prev_break]);
    let line_start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = &body[line_start..];
    let first = line.iter().find(|&&b| !is_blank(b));
    if matches!(first, None | Some(b'[' | b'%')) {
        return false;
    }
    let token_start = line.iter().rposition(|&b| is_blank(b)).map_or(0, |i| i + 1);
    matches!(&line[token_start..], b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
}

/// Space, tab, CR (a line's blanks).
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// `bytes` without trailing whitespace, line breaks included.
fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|&b| !(is_blank(b) || b == b'\n'))
        .map_or(0, |i| i + 1);
    &bytes[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;
    use crate::text::keep_all;

    /// Pieces of PGN, good and bad, chosen to sit across chunk cuts: results inside comments
    /// and escape lines, tag sections with blank lines, refused games, games without results.
    const PIECES: [&str; 16] = [
        "[Event \"odd\"]\n[Date \"1993\"]\n[Result \"1/2\"]\n\n1. e4 {a} {b} e5 1-0",
        "[Event \"twice\"]\n[Event \"again\"]\n\n1. d4 {x}\n{y} *",
        "[Event \"a\"]\n[White \"W\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0",
        "[Event \"b\"]\n\n[Site \"split tags\"]\n\n1. d4 d5 *",
        "1. e4 { a comment\n1-0\n\n[Event \"inside\"]\n} e5 0-1",
        "1. e4 { never closed\n1-0\n\n",
        "[Event \"c\"]\n% escape 1-0\n\n",
        "1. e4 ; a note 1-0\n\n[Event \"after a note\"]\n1. d4 1/2-1/2",
        "1. e5 1-0",
        "[Event \"d\"\n\n1. e4 *",
        "1. Nf3 Nf6 2. g3 (2. c4 e6 1-0\n\n) g6 *",
        "[Event \"no result\"]\n\n1. c4 c5",
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1/2-1/2",
        "[Event \"Ж\"]\n[Black \"é\"]\n\n1. e4 c5 0-1",
        "*",
        "[Event \"e\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n1. Kb1 *",
    ];
    const BREAKS: [&str; 5] = ["\n", "\n\n", "\n \n", "\r\n\r\n", "\n\n\n"];

    /// Up to `pieces` of [`PIECES`] (at least one), each followed by one of [`BREAKS`].
    fn random_text(rng: &mut Rng, pieces: usize) -> String {
        let mut text = String::new();
        for _ in 0..1 + rng.below(pieces) {
            let (piece, line_break): (&&str, &&str) = (rng.pick(&PIECES), rng.pick(&BREAKS));
            text.push_str(piece);
            text.push_str(line_break);
        }
        text
    }

    thread_local! {
        /// How many times this thread looked for a chunk's start.
        pub(super) static LOOKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// How many items the sequential parser gave on this thread's consumer.
        pub(super) static SEQUENTIAL_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Games of `text` parsed in chunks of 1 KiB on 2 threads, checked against one parser,
    /// and how many items the sequential parser gave.
    fn chunked_with_sequential_reads(text: &str) -> (Vec<Parsed>, usize) {
        let split = Split {
            chunk_bytes: 1024,
            batch_games: 16,
            chunks_ahead: 2,
        };
        SEQUENTIAL_READS.with(|n| n.set(0));
        let got = with_games(
            text.as_bytes(),
            Reading::Exact,
            false,
            2,
            split,
            &keep_all,
            |g| g.collect::<Vec<_>>(),
        );
        assert_eq!(got, Games::new(text.as_bytes()).collect::<Vec<_>>());
        (got, SEQUENTIAL_READS.with(std::cell::Cell::get))
    }

    const GOOD: &str = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";

    /// A game a chunk refused is read again on its own, where it stands in the whole text:
    /// the chunk's later games are taken, and nothing else is read twice (a real collection
    /// refuses a game every few dozen). Its message names the line of its Result tag in the
    /// whole text, not in the chunk; one that starts within a line, the column in its line.
    #[test]
    fn a_game_refused_in_a_chunk_is_read_again_alone() {
        let mut text = GOOD.repeat(10);
        for _ in 0..50 {
            text.push_str("[Event \"bad\"]\n[Result \"*\"]\n\n1. e4 1-0\n\n");
            text.push_str(&GOOD.repeat(40));
        }
        text.push_str("1. e4 e5 1-0 1. Qh9 *\n\n");
        text.push_str(&GOOD.repeat(10));
        let (got, sequential) = chunked_with_sequential_reads(&text);
        assert_eq!(got.len(), 2072);
        let mut refused: Vec<_> = got.iter().filter_map(|g| g.as_ref().err()).collect();
        let within_a_line = refused.pop().unwrap();
        assert_eq!(
            (within_a_line.line, within_a_line.column),
            (4 * 10 + 50 * (5 + 4 * 40) + 1, 17),
            "{within_a_line}"
        );
        assert_eq!(refused.len(), 50);
        assert_eq!(refused[1].game, 52, "numbered in the whole text");
        assert_eq!(refused[1].line, 4 * 50 + 5 + 4, "lined in the whole text");
        assert!(refused[1].message.contains("(line 207)"), "{}", refused[1]);
        // Some end their chunk (the next chunk starts right after them).
        let cuts = Cuts::new(text.as_bytes(), 1024);
        let starts: Vec<usize> = (1..cuts.chunks()).map(|k| cuts.start(k)).collect();
        assert!(refused.iter().any(|e| starts.contains(&e.text.end)));
        assert_eq!(sequential, 0, "read again by the sequential parser");
    }

    /// A comment left open reads to the chunk's end there, but closes in the next chunk in
    /// the whole text: the sequential parser reads it, then hands back to the chunks.
    #[test]
    fn after_a_refusal_at_a_chunks_end_the_chunks_take_over_again() {
        let mut text = GOOD.repeat(10);
        text.push_str("[Event \"long\"]\n\n1. e4 {");
        text.push_str(&"a comment 1-0\n\n[Event \"inside\"]\n".repeat(40));
        text.push_str("} e5 0-1\n\n");
        text.push_str(&GOOD.repeat(2000));
        let (got, sequential) = chunked_with_sequential_reads(&text);
        assert_eq!(got.len(), 2011);
        assert!(got.iter().all(Result::is_ok));
        assert!(
            sequential < 40,
            "the sequential parser read {sequential} games: the chunks never took over again"
        );
    }

    /// However many threads parse, no more than `chunks_ahead` chunks past the consumer's are
    /// parsed while it waits: what an import holds does not grow with the cores.
    #[test]
    fn threads_parse_no_further_ahead_than_the_window() {
        let text = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n".repeat(4000);
        let split = Split {
            chunk_bytes: 1024,
            batch_games: 1024,
            chunks_ahead: 3,
        };
        let chunks = Cuts::new(text.as_bytes(), split.chunk_bytes).chunks();
        let parsed = std::sync::Mutex::new(Vec::new());
        let note = |r: std::ops::Range<usize>| parsed.lock().unwrap().push(r);
        let seen = with_games(
            text.as_bytes(),
            Reading::Exact,
            false,
            8,
            split,
            &note,
            |g| {
                g.next();
                // The window parsed (however slow the machine), then time for every thread
                // to parse further if it could.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                while parsed.lock().unwrap().len() < 3 && std::time::Instant::now() < deadline {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
                let seen = parsed.lock().unwrap().len();
                assert_eq!(g.count(), 3999, "the other games follow");
                seen
            },
        );
        // Each chunk is let go once parsed: chunks 0, 1 and 2 of the window.
        assert!(chunks > 100, "{chunks} chunks");
        assert_eq!(seen, 3, "chunks parsed while the consumer was at the first");
    }

    #[test]
    fn chunked_parsing_gives_what_one_parser_gives() {
        let mut rng = Rng(0xC4A2_7E55);
        let mut cuts = 0;
        let mut whole = 0;
        for _ in 0..400 {
            let text = random_text(&mut rng, 12);
            let text = text.as_bytes();
            let reading = *rng.pick(&[
                Reading::Exact,
                Reading::AsScid,
                Reading::AsScid5,
                Reading::AsPgn2dcg,
            ]);
            let skim = rng.below(2) == 1;
            let want: Vec<Parsed> = Games::new(text).reading(reading).skimming(skim).collect();
            let chunk = 1 + rng.below(150);
            let starts = Cuts::new(text, chunk);
            let chunks: Vec<_> = (0..starts.chunks()).map(|k| starts.chunk(k)).collect();
            cuts += chunks
                .iter()
                .filter(|c| c.start > 0 && c.start < text.len())
                .count();
            let threads = 1 + rng.below(3);
            // Batches of one game up to whole chunks.
            let split = Split {
                chunk_bytes: chunk,
                batch_games: 1 + rng.below(4) * rng.below(4),
                chunks_ahead: 1 + rng.below(3),
            };
            let done = std::sync::Mutex::new(Vec::new());
            let note = |r: std::ops::Range<usize>| done.lock().unwrap().push(r);
            let got = with_games(text, reading, skim, threads, split, &note, |g| {
                g.collect::<Vec<_>>()
            });
            assert_eq!(got, want, "{}", String::from_utf8_lossy(text));
            // Each chunk is let go once it is parsed, and only then (every chunk, unless a
            // chunk refused a game: the sequential parser then reads on).
            let done = done.into_inner().unwrap();
            assert!(
                done.iter().all(|r| chunks.contains(r)),
                "{done:?} {chunks:?}"
            );
            for c in chunks.iter().filter(|c| !c.is_empty()) {
                let times = done.iter().filter(|r| *r == c).count();
                assert!(times <= 1, "{c:?} let go {times} times");
            }
            if chunks.iter().all(|c| c.is_empty() || done.contains(c)) {
                whole += 1;
            }
            // A consumer that stops early stops the threads too.
            let first = with_games(text, reading, skim, threads, split, &keep_all, |g| g.next());
            assert_eq!(first, want.into_iter().next());
        }
        assert!(cuts > 300, "texts are cut ({cuts} cuts)");
        assert!(whole > 50, "texts let go whole ({whole})");
    }

    /// Each chunk starts at the first game boundary at or after its stride, whichever chunk
    /// is asked for first; a text with no boundary is looked through once, not once a chunk.
    #[test]
    fn chunks_start_at_the_first_boundary_after_their_stride() {
        let mut rng = Rng(0xC075_0001);
        for _ in 0..300 {
            let text = random_text(&mut rng, 16);
            let text = text.as_bytes();
            let chunk = 1 + rng.below(80);
            let cuts = Cuts::new(text, chunk);
            assert_eq!(cuts.chunks(), text.len().div_ceil(chunk).max(1));
            let mut order: Vec<usize> = (0..cuts.chunks()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            for k in order {
                let want = match k {
                    0 => 0,
                    _ => (k * chunk..text.len())
                        .find(|&i| is_game_boundary(text, i))
                        .unwrap_or(text.len()),
                };
                assert_eq!(cuts.start(k), want, "chunk {k} of {chunk}: {text:?}");
            }
            assert_eq!(cuts.start(cuts.chunks()), text.len());
        }
        let one_game = format!("[Event \"a\"]\n\n{}1-0\n", "{a comment}\n".repeat(10_000));
        let cuts = Cuts::new(one_game.as_bytes(), 64);
        LOOKS.with(|n| n.set(0));
        let starts: Vec<usize> = (1..cuts.chunks()).map(|k| cuts.start(k)).collect();
        assert!(starts.iter().all(|&s| s == one_game.len()));
        assert_eq!(LOOKS.with(std::cell::Cell::get), 1, "looked through once");
    }

    #[test]
    fn boundaries_follow_a_result_and_a_blank_line() {
        let at = |t: &str| t.find("[B").unwrap();
        for (text, boundary) in [
            ("1. e4 1-0\n\n[B", true),
            ("1. e4 *\r\n \r\n[B", true),
            ("1-0\n\n[B", true),
            ("1. e4 1-0\n[B", false),
            ("[A \"1-0\"]\n\n[B", false),
            ("% 1-0\n\n[B", false),
            ("1. e4 x1-0\n\n[B", false),
            ("1. e4 {1-0\n\n[B", false),
            ("1. e4 1-0 \n\n [B", false),
        ] {
            let text = text.replace("{1-0", "{c}1-0");
            assert_eq!(
                is_game_boundary(text.as_bytes(), at(&text)),
                boundary,
                "{text:?}"
            );
        }
    }
}
