//! The index of a PGN file: where each game starts in the text, the header fields the views
//! need, and the members of a compressed file ([`Member`]). Built by reading the whole file
//! once with the import's parser skimming the moves, on every core (`pgn_chunks::with_games`
//! with [`Games::skimming`](crate::text::pgn_parse::Games::skimming): tags read as SCID's
//! import reads them, moves neither read nor replayed): a plain file mapped and parsed where
//! it lies, a remote or compressed one in blocks as another thread reads it (a remote object
//! streamed, [`blob::Reader::to_end`]) and decodes it (the frames of a pzstd file on every
//! core, [`source::decode_from`]): that thread puts the next block together while this one is
//! parsed. Kept in the user's cache folder, so a later mount loads it at once (mapped, its
//! games read where they lie: [`GameTable`]), and a file that grew is indexed from its last
//! game on.
//!
//! A game's text is the file's bytes from its start up to the next game's start (the first
//! game from the file's first byte, the last to its end), so the games' texts, one after the
//! other, are the file. A game the skimming parser refuses (its tags, comments or brackets do
//! not read) is still a game (the text up to where the parser found the next one), with its
//! reason, and no header fields; a game whose moves do not replay is indexed by its tags.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::sync_channel;

use super::games::{GameTable, RECORD_BYTES};
use super::source::{self, Codec, Member, StartPoints};
use crate::error::{Error, ErrorKind, Result};
use crate::game::{GameResult, PartialDate};
use crate::store::blob::{self, Blob, remote};
use crate::store::damage::UNKNOWN_NAME;
use crate::store::location::Location;
use crate::store::name_list::{NameList, NameLookup};
use crate::store::{GameSummary, NameKind};
use crate::text::input::{ParsedText, Text};
use crate::text::pgn_chunks::{self, Parsed, Split};
use crate::text::pgn_parse::Reading;
use crate::text::{DoneWith, line_breaks};

/// The text is parsed in blocks of this many bytes (more when a game is longer). Three are
/// held at once: the one parsed, the next one, and the one being filled.
const BLOCK_BYTES: usize = 16 << 20;
/// The room before a decoded block for the text the block before held back (the start of a
/// game it cut): most games' texts are a few KiB, and one held back longer is copied instead.
const HELD_ROOM_BYTES: usize = 256 << 10;
/// How many bytes of the file's start and end a kept index remembers, to tell a file that
/// grew (the same start, and the old end still there) from one rewritten.
const EDGE_BYTES: usize = 4096;
/// The start of a kept index file (its layout's version in the last byte; 7: games split as
/// the reading that takes the constructs SCID salvages splits them).
const MAGIC: &[u8; 8] = b"GFPGNIX7";
/// The name an index shared for every machine has beside a remote object (its key and this).
pub const SHARED_SUFFIX: &str = ".gamefs-index";

/// Told how far indexing is: bytes of the file read, of its size.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// What makes a kept index the index of a file as it is now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Identity {
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
    /// A remote object's version (empty for a local file).
    etag: Vec<u8>,
    /// The file's first bytes.
    head: Vec<u8>,
    /// The file's last bytes.
    tail: Vec<u8>,
}

impl Identity {
    /// The identity of `path` now.
    fn of(path: &Path) -> Result<Identity> {
        let file = Blob::open(path)?;
        let version = file.version()?;
        let edge = |at: u64| -> Result<Vec<u8>> {
            let mut bytes = vec![0; (version.len - at).min(EDGE_BYTES as u64) as usize];
            file.read_exact_at(&mut bytes, at)
                .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            Ok(bytes)
        };
        Ok(Identity {
            len: version.len,
            mtime: version.mtime.0,
            mtime_nsec: version.mtime.1,
            etag: version.etag.into_bytes(),
            head: edge(0)?,
            tail: edge(version.len.saturating_sub(EDGE_BYTES as u64))?,
        })
    }

    /// True when `now` is this file (at `location`) with bytes appended: the same start, and
    /// this end still where it was.
    fn grew_into(&self, now: &Identity, location: &Location) -> bool {
        let path = location.path();
        if now.len <= self.len
            || !location.is_local()
            || !now
                .head
                .starts_with(&self.head[..self.head.len().min(now.head.len())])
        {
            return false;
        }
        let Ok(file) = std::fs::File::open(path) else {
            return false;
        };
        let mut bytes = vec![0; self.tail.len()];
        std::os::unix::fs::FileExt::read_exact_at(
            &file,
            &mut bytes,
            self.len - self.tail.len() as u64,
        )
        .is_ok()
            && bytes == self.tail
    }
}

/// Text lost to a member of a compressed file that does not decode (a zstd frame skipped):
/// the games around it cannot be told whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostText {
    /// Where the member starts in the file.
    pub packed: u64,
    /// Where the text stops being whole: from the member's start in the text to where the
    /// text after it goes on.
    pub text: (u64, u64),
    /// Why it does not decode.
    pub why: String,
}

/// The index of one PGN file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Index {
    /// How the file is stored.
    pub codec: Codec,
    /// Where each member of a compressed file starts (none for plain text); in a gzip file,
    /// each of its checkpoints, in a bzip2 file each of its blocks.
    pub members: Vec<Member>,
    /// Where decoding a gzip or bzip2 file can start, inside its members too.
    pub start_points: Option<StartPoints>,
    /// The length of the text.
    pub text_len: u64,
    /// Where each game starts in the text, and its header fields as the views use them.
    pub games: GameTable,
    /// The names the summaries refer to, one dictionary per [`NameKind`].
    pub names: [NameList; 4],
    /// The games the skimming parser refused (0-based, ascending), and why.
    pub unparsed: Vec<(u32, String)>,
    /// The members that did not decode when the file was indexed (in file order).
    pub lost: Vec<LostText>,
    /// The line the last game starts on (indexing a grown file goes on from there).
    last_line: u32,
    /// The file this is the index of, as it was.
    identity: Identity,
}

impl Index {
    /// The text range of game `n`.
    pub fn game_range(&self, n: u32) -> (u64, u64) {
        let n = n as usize;
        let end = self.games.start(n + 1).unwrap_or(self.text_len);
        (self.games.start(n).unwrap_or(end), end)
    }

    /// Game `n`'s header fields (none for a number past the last).
    pub fn summary(&self, n: u32) -> GameSummary {
        self.games.summary(n as usize).unwrap_or_else(unclassified)
    }

    /// The games whose text touches the text range `from..=to` (the ends included: a game
    /// ending or starting where text was lost may be missing some).
    pub fn games_touching(&self, (from, to): (u64, u64)) -> std::ops::Range<u32> {
        // The first game whose end is at or after `from`.
        let first = self.games.partition_point(|s| s < from).saturating_sub(1);
        let after = self.games.partition_point(|s| s <= to);
        first as u32..after.max(first) as u32
    }

    /// The index of the PGN file at `location`: kept from an earlier mount when the file is
    /// unchanged, extended when it grew, built otherwise (telling `progress`), and kept for
    /// the next mount in `kept_in` (the user's cache folder; none: not kept).
    pub fn of_file(
        location: &Location,
        kept_in: Option<&Path>,
        progress: Progress<'_>,
    ) -> Result<Index> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Index::of_file_in_blocks(location, kept_in, BLOCK_BYTES, threads, progress)
    }

    /// [`Index::of_file`], parsing blocks of `block` bytes, decoding and parsing on `threads`
    /// threads.
    fn of_file_in_blocks(
        location: &Location,
        kept_in: Option<&Path>,
        block: usize,
        threads: usize,
        progress: Progress<'_>,
    ) -> Result<Index> {
        let path = location.path();
        let now = Identity::of(path)?;
        let kept_at = kept_in.and_then(|dir| kept_path(dir, location));
        let mut kept = kept_at.as_deref().and_then(load);
        if kept.as_ref().is_none_or(|k| k.identity != now)
            && let Some(shared) = shared_index(path, kept_at.as_deref(), &now)
        {
            return Ok(shared);
        }
        let index = match kept.take() {
            Some(kept) if kept.identity == now => return Ok(kept),
            Some(kept) if kept.identity.grew_into(&now, location) => {
                log::info!("{} grew: indexing its new games", path.display());
                kept.extended(location, now, block, threads, progress)?
            }
            _ => {
                // Read from the first byte.
                let codec = Codec::sniff(&now.head);
                let empty = Index {
                    codec,
                    ..Index::default()
                };
                empty.extended(location, now, block, threads, progress)?
            }
        };
        if let Some(at) = &kept_at {
            match store(&index, at) {
                Ok(()) if location.is_remote() => match std::fs::read(at) {
                    Ok(bytes) => remote::put_beside(path, SHARED_SUFFIX, bytes),
                    Err(e) => log::warn!("cannot read {}: {e}", at.display()),
                },
                Ok(()) => {}
                Err(e) => log::warn!(
                    "cannot keep the index of {} in {}: {e}",
                    path.display(),
                    at.display()
                ),
            }
        }
        Ok(index)
    }

    /// This index with the games from its last one on (read again: it may have been cut
    /// short) read from the file at `location`, whose identity is now `now`.
    fn extended(
        mut self,
        location: &Location,
        now: Identity,
        block: usize,
        threads: usize,
        progress: Progress<'_>,
    ) -> Result<Index> {
        let path = location.path();
        let total = now.len;
        self.identity = now;
        // Go on from the start of the last game, decoding from the start of its member.
        let resume = self.games.pop();
        let lines_before = self.last_line.saturating_sub(1);
        if resume.is_some() {
            let last_number = self.games.len() as u32;
            self.unparsed.retain(|(n, _)| *n < last_number);
        }
        let resume = resume.unwrap_or(0);
        let from = match self.codec {
            Codec::Plain => Member {
                packed: resume,
                text: resume,
            },
            // Decoded again from its start, for the start points of the whole file (its text up
            // to the last game is not parsed again).
            Codec::Gzip | Codec::Bzip2 | Codec::Xz => {
                self.members.clear();
                Member::default()
            }
            _ => {
                let m = self.members.partition_point(|m| m.text <= resume);
                let from = if m == 0 {
                    Member::default()
                } else {
                    self.members[m - 1]
                };
                self.members.truncate(m.saturating_sub(1));
                from
            }
        };
        self.lost.retain(|l| l.text.0 < from.text);
        // A gzip file is decoded on a core of its own, the whole time (its decoder's thread):
        // parsed on the others (1M games on 2 cores: 4.4–4.6 s, against 5.2–5.8 s parsed on
        // both).
        let parsing = match self.codec {
            Codec::Gzip => threads.saturating_sub(1).max(1),
            _ => threads,
        };
        let mut indexer = Indexer::new(&mut self, resume, lines_before, block, parsing);
        if indexer.index.codec == Codec::Plain && location.is_local() {
            // Mapped, and parsed where it lies: no copy, no blocks (the pages parsed are let go).
            let text = Text::of_file(path)
                .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
            let from = (resume as usize).min(text.len());
            let parsed = ParsedText::new(&text, from);
            let let_go = |r| parsed.parsed(r);
            indexer.index_text(&text[from..], true, &let_go, &|at| progress(at, total));
            indexer.finish();
            progress(total, total);
            return Ok(self);
        }
        let mut skip = resume - from.text;
        let room = block.min(HELD_ROOM_BYTES);
        // Blocks of text are put together on the decoding thread while the one before is
        // parsed here; it waits with the next one until this one is parsed.
        let (tx, rx) = sync_channel::<Vec<u8>>(0);
        // The blocks indexed go back to be filled again.
        let (back, spare) = sync_channel::<Vec<u8>>(2);
        let codec = indexer.index.codec;
        let decoded = std::thread::scope(|s| {
            let decoding = s.spawn(move || {
                if codec == Codec::Plain {
                    // A remote object's text, read straight into the blocks (nothing to
                    // decode, so no buffer between: one copy of what the server sent).
                    let result = read_plain_into_blocks(
                        path,
                        from.packed,
                        (room, block),
                        &spare,
                        &tx,
                        &|done| progress(done, total),
                    );
                    return (result, Vec::new(), Vec::new(), None);
                }
                let (mut members, mut lost, mut points) = (Vec::new(), Vec::new(), None);
                let empty_block = || {
                    let mut b = spare.try_recv().unwrap_or_else(|_| {
                        Vec::with_capacity(room + block.min(BLOCK_BYTES) + (1 << 20))
                    });
                    b.clear();
                    b.resize(room, 0);
                    b
                };
                let mut filling = empty_block();
                let result = source::decode_from(
                    location,
                    codec,
                    from,
                    threads,
                    &mut |piece| {
                        let n = (skip as usize).min(piece.len());
                        skip -= n as u64;
                        let piece = &piece[n..];
                        if filling.len() > room && filling.len() + piece.len() > filling.capacity()
                        {
                            // Sent as it is rather than moved to more room (a whole frame is
                            // a big piece).
                            tx.send(std::mem::replace(&mut filling, empty_block()))
                                .map_err(|_| Error::new(ErrorKind::Io, "indexing stopped"))?;
                        }
                        filling.extend_from_slice(piece);
                        if filling.len() - room < block {
                            return Ok(());
                        }
                        tx.send(std::mem::replace(&mut filling, empty_block()))
                            .map_err(|_| Error::new(ErrorKind::Io, "indexing stopped"))
                    },
                    &mut |m| members.push(m),
                    &mut |l: source::Lost| {
                        log::warn!("{}; its games fail with an I/O error", l.error);
                        lost.push(LostText {
                            packed: l.packed,
                            text: l.text,
                            why: l.error.to_string(),
                        });
                        Ok(())
                    },
                    &|done| progress(done, total),
                    Some(&mut |p| points = Some(p)),
                );
                if result.is_ok() && filling.len() > room {
                    // Its last block (a send that fails finds indexing stopped already).
                    let _ = tx.send(filling);
                }
                (result, members, lost, points)
            });
            for filled in rx {
                let _ = back.try_send(indexer.feed_block(filled, room));
            }
            let (result, members, lost, points) =
                decoding.join().expect("the decoding thread does not panic");
            result.map(|()| (members, lost, points))
        });
        let (members, lost, points) = decoded?;
        indexer.finish();
        if codec != Codec::Plain {
            self.members.extend(members);
        }
        self.start_points = points;
        self.lost.extend(lost);
        Ok(self)
    }
}

/// Read the plain text of the file or object at `path` from byte `at` to its end into blocks
/// of `block` bytes after `room` bytes of room (taken from `spare` when one came back), each
/// sent on `tx` as it fills. A remote object's stream is copied once, into the block, as it
/// arrives: nothing to decode, so no buffer and no piece between (through them, the first
/// index of 1M games from a web server on loopback took 2.00 s against 1.96 s, the median of
/// 12 paired rounds, BENCHMARKS.md).
fn read_plain_into_blocks(
    path: &Path,
    at: u64,
    (room, block): (usize, usize),
    spare: &std::sync::mpsc::Receiver<Vec<u8>>,
    tx: &std::sync::mpsc::SyncSender<Vec<u8>>,
    progress: &dyn Fn(u64),
) -> Result<()> {
    let mut input = blob::Reader::to_end(Arc::new(Blob::open(path)?), at);
    let next_block = || {
        let mut b = spare.try_recv().unwrap_or_default();
        // A block that came back is full: nothing is written here again.
        b.resize(room + block, 0);
        b
    };
    let mut filling = next_block();
    let (mut filled, mut read) = (room, at);
    loop {
        let n = source::read_full(&mut input, &mut filling[filled..])
            .map_err(|e| Error::io(format!("reading {} at byte {read}", path.display()), e))?;
        filled += n;
        read += n as u64;
        progress(read);
        if filled == filling.len() || (n == 0 && filled > room) {
            filling.truncate(filled);
            tx.send(std::mem::replace(&mut filling, next_block()))
                .map_err(|_| Error::new(ErrorKind::Io, "indexing stopped"))?;
            filled = room;
        }
        if n == 0 {
            return Ok(());
        }
    }
}

/// Parses text handed to it in pieces into an [`Index`].
struct Indexer<'a> {
    index: &'a mut Index,
    /// The dictionaries, looked up by name.
    known: [NameLookup; 4],
    /// Text not yet parsed, from the start of a game.
    buf: Vec<u8>,
    /// The text offset of `buf[0]`.
    buf_at: u64,
    /// The lines of the text before `buf`.
    lines_before: u32,
    /// Parse once `buf` holds this much.
    want: usize,
    /// How much `buf` holds when it is parsed (unless a game is longer).
    block: usize,
    threads: usize,
}

impl<'a> Indexer<'a> {
    /// Go on indexing into `index` from text offset `at`, a game's start after `lines_before`
    /// lines, parsing on `threads` threads.
    fn new(
        index: &'a mut Index,
        at: u64,
        lines_before: u32,
        block: usize,
        threads: usize,
    ) -> Indexer<'a> {
        let known = std::array::from_fn(|k| NameLookup::of(&index.names[k]));
        Indexer {
            index,
            known,
            buf: Vec::new(),
            buf_at: at,
            lines_before,
            want: block,
            block,
            threads,
        }
    }

    /// Take the next block of text, which follows `room` bytes of room: the text held back
    /// (the start of the game the block before cut) is put there, just before it, and the
    /// block is parsed where it lies. A block is handed back, to be filled again.
    fn feed_block(&mut self, mut filled: Vec<u8>, room: usize) -> Vec<u8> {
        let held = self.buf.len();
        if held > room || self.want > self.block {
            // More held back than the room (a game longer than blocks): copied after it.
            self.feed(&filled[room..]);
            return filled;
        }
        let start = room - held;
        filled[start..room].copy_from_slice(&self.buf);
        let text = &filled[start..];
        let cut = self.index_block(text);
        self.buf.clear();
        self.buf.extend_from_slice(&text[cut..]);
        filled
    }

    /// Take the next piece of text.
    fn feed(&mut self, piece: &[u8]) {
        self.buf.extend_from_slice(piece);
        if self.buf.len() >= self.want {
            self.parse(false);
        }
    }

    /// The text ended: index what is left.
    fn finish(mut self) {
        self.parse(true);
        self.index.text_len = self.buf_at + self.buf.len() as u64;
        for names in &mut self.index.names {
            names.shrink_to_fit();
        }
    }

    /// The ID of `name` in dictionary `kind`, added when new.
    fn name_id(&mut self, kind: NameKind, name: &str) -> u32 {
        let k = kind as usize;
        self.known[k].number_of(&mut self.index.names[k], name)
    }

    /// A parsed item's start in the text parsed, the line it starts on there (known for a
    /// game read; for a refused one counted from `known`, the start and line of one before
    /// it), its summary, and the reason it was refused.
    fn item(&mut self, parsed: Parsed, text: &[u8], known: (usize, u32)) -> Item {
        match parsed {
            Ok(read) => {
                let h = &read.game.headers;
                let [white, black, event, site, round] =
                    names_of(h).map(|(kind, name)| self.name_id(kind, name));
                let summary = GameSummary {
                    deleted: false,
                    white,
                    black,
                    event,
                    site,
                    round,
                    date: h.date,
                    result: h.result,
                    eco: h
                        .eco
                        .as_deref()
                        .and_then(crate::store::scid::derive::eco_code)
                        .unwrap_or(0),
                };
                (read.text.start, read.line, summary, None)
            }
            Err(e) => {
                let why = format!(
                    "line {}, column {}: {}",
                    self.lines_before + e.line,
                    e.column,
                    e.message
                );
                let (at, line) = known;
                let line = line + line_breaks(&text[at..e.text.start]);
                (e.text.start, line, unclassified(), Some(why))
            }
        }
    }

    /// Put a game into the index: `item` of the text starting at `buf_at`.
    fn push(&mut self, (start, line, summary, why): Item) {
        let number = self.index.games.len() as u32;
        // The first game's text is the file's from its first byte.
        let start = if number == 0 {
            0
        } else {
            self.buf_at + start as u64
        };
        self.index.games.push(start, summary);
        self.index.last_line = self.lines_before + line;
        if let Some(why) = why {
            self.index.unparsed.push((number, why));
        }
    }

    /// Parse `buf` and index its games: all of them at the end of the text, else all but the
    /// last (the text may stop inside it), which stays in `buf`.
    fn parse(&mut self, at_end: bool) {
        let mut buf = std::mem::take(&mut self.buf);
        let cut = if at_end {
            self.index_text(&buf, true, &crate::text::keep_all, &|_| {})
        } else {
            self.index_block(&buf)
        };
        // Kept with its capacity: the next block fills it again.
        buf.drain(..cut);
        self.buf = buf;
    }

    /// Index the games of `text` (a block, which starts at `buf_at` with a game) but the
    /// last, which it may cut; returns where that one starts. A block that holds no whole
    /// game makes the next one twice as long (one game fills it: read on).
    fn index_block(&mut self, text: &[u8]) -> usize {
        let cut = self.index_text(text, false, &crate::text::keep_all, &|_| {});
        self.want = if cut == 0 { self.want * 2 } else { self.block };
        cut
    }

    /// Index the games of `text`, which starts at `buf_at` with a game: all of them when
    /// `at_end`, else all but the last (the text may stop inside it), whose start is
    /// returned (the end of the text otherwise); `buf_at` and `lines_before` move there (the
    /// lines not counted at the end). The parts of the text parsed go to `done_with`, and
    /// where the games are (a text offset) to `progress` now and then.
    fn index_text(
        &mut self,
        text: &[u8],
        at_end: bool,
        done_with: DoneWith<'_>,
        progress: &dyn Fn(u64),
    ) -> usize {
        let mut held: Option<Item> = None;
        // A game's start in `text` and its line there.
        let mut known = (0, 1);
        pgn_chunks::with_games(
            text,
            Reading::AsScid,
            true,
            self.threads,
            Split::SKIMMED,
            done_with,
            |games| {
                let mut games = games.enumerate().peekable();
                while let Some((n, g)) = games.next() {
                    if let Some((_, Ok(next))) = games.peek() {
                        // Its names' slots read while this game's are looked up.
                        for (kind, name) in names_of(&next.game.headers) {
                            self.known[kind as usize].prefetch(name);
                        }
                    }
                    let item = self.item(g, text, known);
                    known = (item.0, item.1);
                    if let Some(before) = held.replace(item) {
                        self.push(before);
                    }
                    if n % PROGRESS_GAMES == 0 {
                        progress(self.buf_at + known.0 as u64);
                    }
                }
            },
        );
        let cut = match held {
            Some(last) if at_end => {
                self.push(last);
                text.len()
            }
            Some((start, line, ..)) => {
                self.lines_before += line - 1;
                start
            }
            None if at_end => text.len(),
            None => {
                self.lines_before += line_breaks(text);
                text.len()
            }
        };
        self.buf_at += cut as u64;
        cut
    }
}

/// A game's names in the dictionaries: White, Black, Event, Site and Round, each with its
/// dictionary.
fn names_of(h: &crate::game::Headers) -> [(NameKind, &str); 5] {
    [
        (NameKind::Player, &h.white),
        (NameKind::Player, &h.black),
        (NameKind::Event, &h.event),
        (NameKind::Site, &h.site),
        (NameKind::Round, &h.round),
    ]
}

/// A game found by the parser: its start in the text parsed, the line it starts on there,
/// its summary, and the reason it was refused.
type Item = (usize, u32, GameSummary, Option<String>);

/// How often indexing a mapped file tells how far it is: every this many games.
const PROGRESS_GAMES: usize = 4096;

/// The summary of a game the parser refused: no names, no date (the views leave it out).
fn unclassified() -> GameSummary {
    GameSummary {
        deleted: false,
        white: UNKNOWN_NAME,
        black: UNKNOWN_NAME,
        event: UNKNOWN_NAME,
        site: UNKNOWN_NAME,
        round: UNKNOWN_NAME,
        date: PartialDate::default(),
        result: GameResult::Unknown,
        eco: 0,
    }
}

/// Where the index of the file at `location` is kept in folder `dir`: under a name made from
/// the file's device and inode (the same file, grown or not, finds it), or from a remote
/// object's URL or an archive member's path.
fn kept_path(dir: &Path, location: &Location) -> Option<PathBuf> {
    let path = location.path();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if !location.is_local() {
        path.hash(&mut h);
    } else {
        let meta = std::fs::metadata(path).ok()?;
        (meta.dev(), meta.ino()).hash(&mut h);
    }
    Some(dir.join(format!("pgn-{:016x}.idx", h.finish())))
}

/// The index of the remote object at `path` that a mount on any machine shared beside it
/// ([`remote::put_beside`]), when it is the index of the object as it is `now`: kept at
/// `kept_at` and loaded (mapped) from there.
fn shared_index(path: &Path, kept_at: Option<&Path>, now: &Identity) -> Option<Index> {
    let at = kept_at?;
    let bytes = remote::get_beside(path, SHARED_SUFFIX)?;
    let written = at
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(at, &bytes));
    if let Err(e) = written {
        log::warn!("cannot keep the shared index in {}: {e}", at.display());
        return None;
    }
    match load(at) {
        Some(index) if index.identity == *now => {
            log::info!("{}: using the index shared beside it", path.display());
            Some(index)
        }
        _ => {
            log::info!(
                "{}: the index shared beside it is of another version: indexing it again",
                path.display()
            );
            None
        }
    }
}

/// Little-endian writing of the kept index, straight to its file through a buffer: the index
/// of a million games is tens of MB, not to be built in memory first (a lichess-shaped
/// million: 70 MB more at the peak, and its page faults). The first error is kept for
/// [`Writer::finish`].
struct Writer {
    out: std::io::BufWriter<std::fs::File>,
    error: Option<std::io::Error>,
}

impl Writer {
    fn new(file: std::fs::File) -> Writer {
        Writer {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            error: None,
        }
    }
    fn put(&mut self, b: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(b)
        {
            self.error = Some(e);
        }
    }
    fn u64(&mut self, v: u64) {
        self.put(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.put(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.put(b);
    }
    /// The file, all written to it, or the first error.
    fn finish(self) -> std::io::Result<std::fs::File> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)
    }
}

/// Little-endian reading of a kept index; `None` once it runs short.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// Keep `index` at `at`, replacing the file whole.
fn store(index: &Index, at: &Path) -> std::io::Result<()> {
    if let Some(dir) = at.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = at.with_extension(format!("tmp{}", std::process::id()));
    let written = write_to(index, std::fs::File::create(&tmp)?)
        .and_then(|f| f.sync_all())
        .and_then(|()| std::fs::rename(&tmp, at));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Write `index` to `file` (see [`store`]); the file, all written to it.
fn write_to(index: &Index, file: std::fs::File) -> std::io::Result<std::fs::File> {
    let mut w = Writer::new(file);
    w.put(MAGIC);
    let id = &index.identity;
    w.u64(id.len);
    w.u64(id.mtime as u64);
    w.u64(id.mtime_nsec as u64);
    w.bytes(&id.etag);
    w.bytes(&id.head);
    w.bytes(&id.tail);
    w.u32(
        Codec::ALL
            .iter()
            .position(|&c| c == index.codec)
            .unwrap_or(0) as u32,
    );
    w.u64(index.text_len);
    w.u32(index.last_line);
    w.u32(index.members.len() as u32);
    for m in &index.members {
        w.u64(m.packed);
        w.u64(m.text);
    }
    // Each dictionary's names one after the other, then their lengths: loaded with one check
    // and one copy of the text (a remount of a million lichess-shaped games, a million sites:
    // 0.26 s with each name read on its own, 0.19 s so).
    for names in &index.names {
        w.u32(names.len() as u32);
        w.u64(names.joined().len() as u64);
        w.put(names.joined().as_bytes());
        for name in names.iter() {
            w.u32(name.len() as u32);
        }
    }
    w.u32(index.games.len() as u32);
    for record in index.games.records() {
        w.put(&record);
    }
    w.u32(index.unparsed.len() as u32);
    for (n, why) in &index.unparsed {
        w.u32(*n);
        w.bytes(why.as_bytes());
    }
    w.u32(index.lost.len() as u32);
    for l in &index.lost {
        w.u64(l.packed);
        w.u64(l.text.0);
        w.u64(l.text.1);
        w.bytes(l.why.as_bytes());
    }
    // None: no bytes.
    w.bytes(
        &index
            .start_points
            .as_ref()
            .map_or(Vec::new(), StartPoints::to_bytes),
    );
    w.finish()
}

/// The index kept at `at`, if there is a whole one.
fn load(at: &Path) -> Option<Index> {
    // Mapped, not read into memory first: the file is as large as the index (70 MB for a
    // million lichess-shaped games), and reading it cost as much again in fresh pages.
    let bytes = Text::of_file(at).ok()?;
    let mut r = Reader(bytes.strip_prefix(MAGIC)?);
    let identity = Identity {
        len: r.u64()?,
        mtime: r.u64()? as i64,
        mtime_nsec: r.u64()? as i64,
        etag: r.bytes()?.to_vec(),
        head: r.bytes()?.to_vec(),
        tail: r.bytes()?.to_vec(),
    };
    let codec = *Codec::ALL.get(r.u32()? as usize)?;
    let text_len = r.u64()?;
    let last_line = r.u32()?;
    let members = (0..r.u32()?)
        .map(|_| {
            Some(Member {
                packed: r.u64()?,
                text: r.u64()?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let mut names: [NameList; 4] = Default::default();
    for dict in &mut names {
        let count = r.u32()? as usize;
        let joined_len = usize::try_from(r.u64()?).ok()?;
        let joined = std::str::from_utf8(r.take(joined_len)?).ok()?;
        let lengths = r.take(count.checked_mul(4)?)?.chunks_exact(4);
        *dict = NameList::from_joined(
            joined,
            lengths.map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
        )?;
    }
    // The games are read where they lie, when they are looked at.
    let games = r.u32()? as usize;
    let games_at = bytes.len() - r.0.len();
    r.take(games.checked_mul(RECORD_BYTES)?)?;
    let unparsed = (0..r.u32()?)
        .map(|_| {
            let n = r.u32()?;
            Some((n, String::from_utf8(r.bytes()?.to_vec()).ok()?))
        })
        .collect::<Option<Vec<_>>>()?;
    let lost = (0..r.u32()?)
        .map(|_| {
            Some(LostText {
                packed: r.u64()?,
                text: (r.u64()?, r.u64()?),
                why: String::from_utf8(r.bytes()?.to_vec()).ok()?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let start_points = match r.bytes()? {
        [] => None,
        kept => Some(StartPoints::from_bytes(codec, kept)?),
    };
    if !r.0.is_empty() {
        return None;
    }
    // The names were copied: their pages need not stay mapped (they would count in the mount's
    // memory until the system wants it back).
    bytes.let_go(0..games_at);
    let games = GameTable::kept(Arc::new(bytes), games_at, games)?;
    Some(Index {
        codec,
        members,
        start_points,
        text_len,
        games,
        names,
        unparsed,
        lost,
        last_line,
        identity,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::pgn_game_starts;

    /// The local file at `path`.
    fn local(path: &Path) -> Location {
        Location::Local(path.to_path_buf())
    }

    /// Where each game of `index` starts.
    fn starts_of(index: &Index) -> Vec<u64> {
        index.games.starts().collect()
    }

    /// Each game's summary in `index`.
    fn summaries_of(index: &Index) -> Vec<GameSummary> {
        (0..index.games.len())
            .map(|n| index.games.summary(n).unwrap())
            .collect()
    }

    /// A PGN text with every test file of tests/data, and the odd things real files hold
    /// between them: a byte-order mark, games the parser refuses (an illegal move, text that
    /// is no PGN), CRLF line ends, and no line end at the very end.
    pub(crate) fn odd_text() -> Vec<u8> {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut files: Vec<PathBuf> = ["", "odd"]
            .iter()
            .flat_map(|d| std::fs::read_dir(data.join(d)).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
            .collect();
        files.sort();
        let mut text = "\u{feff}".as_bytes().to_vec();
        for (i, f) in files.iter().enumerate() {
            text.extend(std::fs::read(f).unwrap());
            text.extend_from_slice(match i % 3 {
                0 => b"\n[Event \"bad\"]\n[White \"X\"]\n\n1. e4 e5 2. Ke3 1-0\n\n".as_slice(),
                1 => b"this is not PGN at all\n\n".as_slice(),
                _ => b"[Event \"crlf\"]\r\n[White \"Crlf, A\"]\r\n\r\n1. d4 d5 1/2-1/2\r\n\r\n"
                    .as_slice(),
            });
        }
        text.extend_from_slice(b"[White \"Last\"]\n\n1. e4 *");
        text
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn refused(index: &Index) -> Vec<u32> {
        index.unparsed.iter().map(|(n, _)| *n).collect()
    }

    #[test]
    fn games_start_where_the_sequential_parser_starts_them_whatever_the_block_size() {
        let dir = tempfile::tempdir().unwrap();
        let text = odd_text();
        let path = write(dir.path(), "odd.pgn", &text);
        let (starts, refused_games) = pgn_game_starts(&text, true);
        assert!(
            starts.len() > 100 && refused_games.len() > 2,
            "{} {}",
            starts.len(),
            refused_games.len()
        );
        // Skimming, games start where a whole reading starts them; fewer are refused (none
        // for its illegal moves).
        let (whole_starts, whole_refused) = pgn_game_starts(&text, false);
        assert_eq!(starts, whole_starts);
        assert!(refused_games.iter().all(|n| whole_refused.contains(n)));
        assert!(refused_games.len() < whole_refused.len());
        let whole =
            Index::of_file_in_blocks(&local(&path), None, usize::MAX, 2, &|_, _| {}).unwrap();
        assert_eq!(starts_of(&whole), starts);
        // The games with an illegal move (odd_text's "bad" ones) are classified by their tags.
        let moves_refused: Vec<u32> = whole_refused
            .iter()
            .copied()
            .filter(|n| !refused_games.contains(n))
            .collect();
        assert!(moves_refused.len() > 2, "{moves_refused:?}");
        for n in moves_refused {
            let s = summaries_of(&whole)[n as usize];
            assert_eq!(
                whole.names[NameKind::Event as usize]
                    .get(s.event as usize)
                    .unwrap(),
                "bad"
            );
            assert_eq!(
                whole.names[NameKind::Player as usize]
                    .get(s.white as usize)
                    .unwrap(),
                "X"
            );
            assert_eq!(s.result, GameResult::WhiteWins);
        }
        assert_eq!(refused(&whole), refused_games);
        assert_eq!(whole.text_len, text.len() as u64);
        // Decoded text is parsed in blocks as it comes: games start where they start in the
        // mapped plain file, whatever the blocks.
        let zst = write(dir.path(), "odd.pgn.zst", &frames(&text, &[]));
        for block in [1, 100, 1000, 5000, 40_000, usize::MAX] {
            let index = Index::of_file_in_blocks(&local(&zst), None, block, 2, &|_, _| {}).unwrap();
            assert_eq!(starts_of(&index), starts_of(&whole), "block {block}");
            assert_eq!(summaries_of(&index), summaries_of(&whole), "block {block}");
            assert_eq!(index.names, whole.names, "block {block}");
            assert_eq!(index.unparsed, whole.unparsed, "block {block}");
            assert_eq!(index.last_line, whole.last_line, "block {block}");
            assert_eq!(index.text_len, whole.text_len, "block {block}");
        }
        let lines = 1 + line_breaks(&text[..*starts_of(&whole).last().unwrap() as usize]);
        assert_eq!(whole.last_line, lines);
        // A refused game is named with its line in the whole file.
        let (n, why) = &whole.unparsed[0];
        let line = 1 + text[..starts_of(&whole)[*n as usize + 1] as usize]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let said: usize = why[5..why.find(',').unwrap()].parse().unwrap();
        assert!(said < line, "{why} (next game on line {line})");
        assert!(said > line - 6, "{why} (next game on line {line})");
    }

    /// [`odd_text`] and, after it, a game whose comment holds 300 KB of lines that look like
    /// games ("1-0", a blank line, tag pairs), so the text is cut into chunks inside it.
    fn adversarial_text() -> Vec<u8> {
        let mut text = odd_text();
        text.extend_from_slice(b"\n\n[Event \"real\"]\n[White \"Real, A\"]\n\n1. e4 {");
        for i in 0..6000 {
            text.extend(
                format!("1-0\n\n[Event \"fake {i}\"]\n[White \"Fake\"]\n\n1. d4 1-0\n\n").bytes(),
            );
        }
        text.extend_from_slice(b"} e5 1-0\n\n[Event \"after\"]\n\n1. c4 *\n");
        text
    }

    /// `text` as a zstd file as pzstd writes one: frames of `sizes` bytes of text (the last
    /// one what is left), each with its checksum, after a skippable frame giving its size.
    fn frames(text: &[u8], sizes: &[usize]) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut rest = text;
        for &size in sizes.iter().chain([&usize::MAX]) {
            let (part, after) = rest.split_at(size.min(rest.len()));
            rest = after;
            let mut e = zstd::Encoder::new(Vec::new(), 3).unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(part).unwrap();
            let frame = e.finish().unwrap();
            bytes.extend_from_slice(&0x184D_2A50_u32.to_le_bytes());
            bytes.extend_from_slice(&4_u32.to_le_bytes());
            bytes.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            bytes.extend(frame);
            if rest.is_empty() {
                break;
            }
        }
        bytes
    }

    #[test]
    fn frames_decoded_on_several_threads_index_as_on_one_and_as_the_plain_text() {
        let dir = tempfile::tempdir().unwrap();
        let text = adversarial_text();
        let (starts, refused_games) = pgn_game_starts(&text, true);
        let plain = write(dir.path(), "adversarial.pgn", &text);
        let sequential =
            Index::of_file_in_blocks(&local(&plain), None, 50_000, 1, &|_, _| {}).unwrap();
        assert_eq!(starts_of(&sequential), starts);
        assert_eq!(refused(&sequential), refused_games);
        // The game with the fake games in its comment is one game, read well.
        let real = summaries_of(&sequential)
            .iter()
            .position(|s| {
                s.white != UNKNOWN_NAME && {
                    sequential.names[NameKind::Player as usize].get(s.white as usize)
                        == Some("Real, A")
                }
            })
            .unwrap();
        let after = b"[Event \"after\"]\n\n1. c4 *\n";
        assert_eq!(starts.len(), real + 2, "one game after it");
        assert_eq!(starts[real + 1], (text.len() - after.len()) as u64);
        assert!(
            !sequential.names[NameKind::Player as usize]
                .iter()
                .any(|n| n == "Fake")
        );
        for threads in [2, 3] {
            let index = Index::of_file_in_blocks(&local(&plain), None, 50_000, threads, &|_, _| {});
            assert_eq!(index.unwrap(), sequential, "plain, {threads} threads");
        }
        // Frames cut anywhere: inside games, tags and the comment, one of a single byte, one
        // of none (a frame, but no member: it holds no text).
        let sizes = [7, 1, 4000, 0, 60_000, 9999, 100_000, 30_000, 123_457];
        let packed = frames(&text, &sizes);
        let zst = write(dir.path(), "adversarial.pgn.zst", &packed);
        assert_eq!(
            super::source::tests::zstd_frame_count(&zst),
            Some(sizes.len() + 1),
            "the frames are found without decoding them"
        );
        let one = Index::of_file_in_blocks(&local(&zst), None, 50_000, 1, &|_, _| {}).unwrap();
        assert_eq!(one.members.len(), sizes.len());
        assert_eq!(starts_of(&one), starts_of(&sequential));
        assert_eq!(summaries_of(&one), summaries_of(&sequential));
        assert_eq!(one.names, sequential.names);
        assert_eq!(one.unparsed, sequential.unparsed);
        assert_eq!(one.last_line, sequential.last_line);
        assert_eq!(one.text_len, sequential.text_len);
        // Frames decoded whole (they are small), then as streams (as bigger ones are).
        for streamed in [false, true] {
            if streamed {
                super::source::tests::decode_as_streams(&zst);
            }
            for threads in [2, 3, 16] {
                let told = std::sync::Mutex::new(Vec::new());
                let index =
                    Index::of_file_in_blocks(&local(&zst), None, 50_000, threads, &|d, t| {
                        told.lock().unwrap().push((d, t))
                    })
                    .unwrap();
                assert_eq!(index, one, "{threads} threads, streamed: {streamed}");
                let told = told.into_inner().unwrap();
                assert!(told.windows(2).all(|w| w[0].0 <= w[1].0), "{told:?}");
                assert_eq!(
                    told.last(),
                    Some(&(packed.len() as u64, packed.len() as u64))
                );
            }
        }
        let apart = super::source::tests::DECODED_APART.lock().unwrap().clone();
        let threads: Vec<(usize, bool)> = apart
            .into_iter()
            .filter(|(p, ..)| *p == zst)
            .map(|(_, t, whole)| (t, whole))
            .collect();
        assert_eq!(
            threads,
            [2, 3, 10]
                .map(|t| (t, true))
                .into_iter()
                .chain([2, 3, 10].map(|t| (t, false)))
                .collect::<Vec<_>>(),
            "decoded apart (16 threads: one a frame)"
        );
        // A damaged frame is lost alike, whether a stream finds the damage or a frame decoded
        // whole (which is then decoded again as a stream).
        let mut damaged = packed.clone();
        let middle = damaged.len() / 2;
        for b in &mut damaged[middle..middle + 40] {
            *b ^= 0x5A;
        }
        let zst = write(dir.path(), "damaged.pgn.zst", &damaged);
        let one = Index::of_file_in_blocks(&local(&zst), None, 50_000, 1, &|_, _| {}).unwrap();
        assert_eq!(one.lost.len(), 1);
        for streamed in [false, true] {
            if streamed {
                super::source::tests::decode_as_streams(&zst);
            }
            let two = Index::of_file_in_blocks(&local(&zst), None, 50_000, 2, &|_, _| {}).unwrap();
            assert_eq!(two, one, "streamed: {streamed}");
        }
    }

    #[test]
    fn a_mapped_plain_file_tells_how_far_indexing_is_as_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[Event \"a\"]\n\n1. e4 *\n\n".repeat(5 * PROGRESS_GAMES);
        let path = write(dir.path(), "many.pgn", text.as_bytes());
        let told = std::sync::Mutex::new(Vec::new());
        let index = Index::of_file_in_blocks(&local(&path), None, BLOCK_BYTES, 2, &|d, t| {
            told.lock().unwrap().push((d, t))
        })
        .unwrap();
        assert_eq!(starts_of(&index).len(), 5 * PROGRESS_GAMES);
        let told = told.into_inner().unwrap();
        let len = text.len() as u64;
        assert!(told.len() > 5, "{told:?}");
        assert!(told.windows(2).all(|w| w[0].0 <= w[1].0), "{told:?}");
        assert!(told.iter().all(|&(d, t)| d <= len && t == len));
        assert_eq!(told.last(), Some(&(len, len)));
    }

    #[test]
    fn a_kept_index_is_loaded_and_a_grown_file_indexed_from_its_last_game() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let text = odd_text();
        let half = text.len() / 2;
        // Cut at a game's start, as a file another program appends to is.
        let cut = pgn_game_starts(&text, true)
            .0
            .into_iter()
            .find(|&s| s as usize > half)
            .unwrap() as usize;
        let path = write(dir.path(), "grows.pgn", &text[..cut]);
        let first =
            Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|_, _| {}).unwrap();
        let told = std::sync::Mutex::new(Vec::new());
        let again = Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|d, _| {
            told.lock().unwrap().push(d)
        })
        .unwrap();
        assert_eq!(again, first);
        assert!(
            told.lock().unwrap().is_empty(),
            "a kept index is not built again"
        );
        // Appended to: only the last game on is read again.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&text[cut..]).unwrap();
        drop(f);
        let grown = Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|d, _| {
            told.lock().unwrap().push(d)
        })
        .unwrap();
        let from = *told.lock().unwrap().iter().min().unwrap();
        assert!(
            from >= *starts_of(&first).last().unwrap(),
            "read again from {from}"
        );
        let fresh = Index::of_file_in_blocks(&local(&path), None, 3000, 2, &|_, _| {}).unwrap();
        assert_eq!(grown, fresh);
        assert_eq!(
            load(&kept_path(&cache, &local(&path)).unwrap()),
            Some(fresh)
        );
        // Rewritten (not appended to): built again.
        std::fs::write(&path, &text[cut..]).unwrap();
        let rewritten =
            Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|_, _| {}).unwrap();
        assert_eq!(
            rewritten,
            Index::of_file_in_blocks(&local(&path), None, 3000, 2, &|_, _| {}).unwrap()
        );
    }

    /// A gzip file appended to (a member added, as `gzip -c more.pgn >> games.pgn.gz` does) is
    /// decoded again from its start for checkpoints of the whole file, its games parsed from
    /// the last one on: its index is the one built anew, checkpoints and all, and is kept.
    #[test]
    fn a_grown_gzip_file_has_the_checkpoints_of_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let text = odd_text();
        let cut = pgn_game_starts(&text, true)
            .0
            .into_iter()
            .find(|&s| s as usize > text.len() / 2)
            .unwrap() as usize;
        let gzip = |part: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(part).unwrap();
            e.finish().unwrap()
        };
        let path = write(dir.path(), "grows.pgn.gz", &gzip(&text[..cut]));
        let first =
            Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|_, _| {}).unwrap();
        assert!(matches!(first.start_points, Some(StartPoints::Gzip(_))));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&gzip(&text[cut..])).unwrap();
        drop(f);
        let grown =
            Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|_, _| {}).unwrap();
        let fresh = Index::of_file_in_blocks(&local(&path), None, 3000, 2, &|_, _| {}).unwrap();
        assert_eq!(grown, fresh);
        assert_eq!(grown.members.len(), 2, "{:?}", grown.members);
        assert!(grown.games.len() > first.games.len());
        assert_eq!(
            load(&kept_path(&cache, &local(&path)).unwrap()),
            Some(fresh)
        );
    }

    /// A kept index cut short anywhere is not loaded (nor does it panic), and one of another
    /// layout (an older gamefs's) makes the file be indexed again, then kept anew.
    #[test]
    fn a_kept_index_cut_short_or_of_another_layout_is_built_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let path = write(dir.path(), "games.pgn", &odd_text());
        let fresh =
            Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|_, _| {}).unwrap();
        let kept = kept_path(&cache, &local(&path)).unwrap();
        let bytes = std::fs::read(&kept).unwrap();
        assert_eq!(load(&kept).as_ref(), Some(&fresh));
        let cut = dir.path().join("cut.idx");
        for len in (0..bytes.len()).step_by(3) {
            std::fs::write(&cut, &bytes[..len]).unwrap();
            assert_eq!(load(&cut), None, "cut to {len} of {} bytes", bytes.len());
        }
        let mut older = bytes.clone();
        older[MAGIC.len() - 1] = b'3';
        std::fs::write(&kept, &older).unwrap();
        assert_eq!(load(&kept), None);
        let told = std::sync::Mutex::new(0);
        let again = Index::of_file_in_blocks(&local(&path), Some(&cache), 3000, 2, &|_, _| {
            *told.lock().unwrap() += 1;
        })
        .unwrap();
        assert_eq!(again, fresh);
        assert!(*told.lock().unwrap() > 0, "indexed again");
        assert_eq!(std::fs::read(&kept).unwrap(), bytes, "kept anew");
    }
}
