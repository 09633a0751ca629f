//! `all.pgn` (`all.sgf` for Go): the items of a folder as one file, the concatenation of
//! their texts in the folder's order, as `gamefs export` writes them, with an exact size and
//! random reads, so `cp players/NAME/all.pgn .` hands a player's games to another program and
//! `grep -c` over the root's runs at export speed.
//!
//! These files are found by name and never listed: `grep -r`, `find`, `du` and backup tools
//! walking the mount read each item once, in `games/` (docs/SEMANTICS.md §2a).
//!
//! A file's layout (its items and where each one's text ends) is worked out when it is first
//! asked for, every unknown size learnt on every core, and kept until a text changes (the
//! text cache's epoch). A read renders the items it covers on every core, without putting
//! their texts in the cache (a read of a million games would push out every text being read
//! elsewhere), and keeps the text of the last one, which the next read begins with.
//!
//! A read in order also has the items after it rendered ahead, on every core, in the
//! background ([`Ahead`]): pieces of consecutive items, each rendered by one thread into one
//! buffer, queued as the reader (`grep`, `cp`) moves on so that a core is never left without
//! the next piece, as `gamefs export`'s pipeline keeps them busy.
//!
//! A read never mixes: when a save landed between taking the layout and rendering the texts
//! (or is under way), the read starts again from a new layout, so it returns the items all as
//! they were or all as they are.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};

use bytes::Bytes;

use super::{Node, Vfs, lock};
use crate::collection::Collection;
use crate::error::{Error, ErrorKind, Result};

/// How many items past a read in order are rendered ahead of it, at most.
const AHEAD_ITEMS: usize = 2048;

/// The items of a piece rendered ahead: one thread renders them one after another into one
/// buffer (about 330 KiB of the benchmark's games), and the cores take the pieces as they
/// come free. Measured at a million games (`grep -c` over the root's all.pgn): pieces of 256
/// read faster than of 32, 64, 128 or 512, and 2048 items ahead as fast as 4096 or 8192.
const PIECE_ITEMS: usize = 256;

/// The bytes a piece's buffer is made with for each of its items (a game of the benchmark's
/// corpus renders to 1.3 KB on average).
const TEXT_GUESS: usize = 2048;

/// How often a read of an all-file starts again when its items changed while it rendered
/// them, a millisecond apart, before it fails (EBUSY).
const READ_TRIES: u32 = 5000;

/// The name of a folder's all-file, for a collection whose items end in `ext`.
pub(crate) fn file_name(ext: &str) -> String {
    format!("all.{ext}")
}

/// Where each item's text lies in an all-file.
pub(crate) struct Layout {
    /// The items, in order.
    items: Vec<u32>,
    /// Where each item's text ends in the file.
    ends: Vec<u64>,
    /// The cache epoch the sizes were taken at.
    epoch: u64,
}

impl Layout {
    /// The file's size.
    pub(crate) fn size(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Where item `i` (of this file) starts.
    fn start(&self, i: usize) -> u64 {
        if i == 0 { 0 } else { self.ends[i - 1] }
    }
}

/// The layouts and rendered texts of the all-files being read.
#[derive(Default)]
pub(crate) struct AllFiles {
    layouts: Mutex<HashMap<Node, Arc<Layout>>>,
    /// The text of the last item a read rendered: a sequential reader's next read starts in it.
    last: Mutex<Option<LastText>>,
    /// The texts rendered ahead of the all-file read in order last.
    ahead: Arc<(Mutex<Ahead>, Condvar)>,
    /// Run once between a read's layout and its texts: a save landing there (tests).
    #[cfg(test)]
    between: Mutex<Option<Between>>,
}

/// What a test runs between a read's layout and its texts.
#[cfg(test)]
type Between = Box<dyn FnOnce(&Vfs) + Send>;

/// An all-file and the cache epoch of the layout its items were taken from.
type FileAt = (Node, u64);

/// Texts of an all-file's items rendered ahead of its reader, in the background.
#[derive(Default)]
struct Ahead {
    /// The all-file.
    file: Option<FileAt>,
    /// Items up to this position of the layout are rendered or being rendered.
    until: usize,
    /// The pieces rendered and not read past yet, in order.
    pieces: Vec<Piece>,
    /// The pieces being rendered now: of which file and layout, which positions.
    running: Vec<(FileAt, Range<usize>)>,
}

impl Ahead {
    /// The text of the item at `position`, if a piece holds it.
    fn text(&self, position: usize) -> Option<Bytes> {
        let i = self.pieces.partition_point(|p| p.positions.end <= position);
        self.pieces.get(i)?.text(position)
    }
}

/// Consecutive items of an all-file, rendered into one buffer.
struct Piece {
    /// Their positions in the layout.
    positions: Range<usize>,
    /// Their texts, one after another.
    bytes: Bytes,
    /// Where each one's text lies in `bytes`; `None` for one that could not be rendered
    /// (its reader renders it again, and gets the error).
    texts: Vec<Option<Range<usize>>>,
}

impl Piece {
    /// The text of the item at `position`, if it is one of this piece's and was rendered.
    fn text(&self, position: usize) -> Option<Bytes> {
        let i = position.checked_sub(self.positions.start)?;
        let range = self.texts.get(i)?.clone()?;
        Some(self.bytes.slice(range))
    }
}

/// The text of the last item a read rendered.
#[derive(Clone)]
struct LastText {
    /// The cache epoch it was rendered at: a save since makes it stale.
    epoch: u64,
    item: u32,
    text: Bytes,
}

impl Vfs {
    /// The all-file node of folder `folder`, if it has one.
    pub(crate) fn all_file_of(&self, folder: Node) -> Option<Node> {
        match folder {
            Node::Root => Some(Node::AllGames),
            Node::Group(v, key) => Some(Node::AllOfGroup(v, key)),
            Node::SideGroup(v, key, side) => Some(Node::AllOfSide(v, key, side)),
            Node::Position(id) => Some(Node::AllOfPosition(id)),
            Node::Query(id) => Some(Node::AllOfQuery(id)),
            _ => None,
        }
    }

    /// The items of all-file `node`, in order: the root's are those of `games/`.
    fn all_items(&self, node: Node) -> Vec<u32> {
        match node {
            Node::AllGames => self.items_in(false, 0).collect(),
            Node::AllOfPosition(id) => self.position_games(id),
            Node::AllOfGroup(v, key) => self
                .view(v)
                .by_key(key)
                .map(|g| g.games.to_vec())
                .unwrap_or_default(),
            Node::AllOfQuery(id) => self
                .query_games(id)
                .map(|games| games.to_vec())
                .unwrap_or_default(),
            Node::AllOfSide(v, key, side) => self
                .side_games(v, key, side)
                .map(|games| games.to_vec())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The layout of all-file `node` as the items are now.
    pub(crate) fn all_layout(&self, node: Node) -> Arc<Layout> {
        let epoch = self.cache.epoch();
        if let Some(layout) = lock(&self.all_files.layouts).get(&node)
            && layout.epoch == epoch
        {
            return layout.clone();
        }
        let items = self.all_items(node);
        self.learn_sizes(&items);
        let mut end = 0;
        let ends = items
            .iter()
            .map(|&n| {
                end += self.known_size(n).unwrap_or(0);
                end
            })
            .collect();
        let layout = Arc::new(Layout { items, ends, epoch });
        let mut layouts = lock(&self.all_files.layouts);
        layouts.retain(|_, l| l.epoch == epoch);
        layouts.insert(node, layout.clone());
        layout
    }

    /// Learn the size of each of `items` not known yet, on every core. Which are known is
    /// asked on every core too: a size kept by an earlier mount is checked against its game
    /// as it is now (its fingerprint, from its record), a second at a million games on one.
    fn learn_sizes(&self, items: &[u32]) {
        use rayon::prelude::*;
        let unknown: Vec<u32> = items
            .par_iter()
            .copied()
            .filter(|&n| self.known_size(n).is_none())
            .collect();
        on_every_core(&unknown, &|n| self.learn_size(n));
    }

    /// Up to `size` bytes of all-file `node` from `offset`, of its items all as they were
    /// when the read began or all as they are after a save that landed during it.
    pub(crate) fn read_all(&self, node: Node, offset: u64, size: u32) -> Result<Vec<u8>> {
        for _ in 0..READ_TRIES {
            let layout = self.all_layout(node);
            #[cfg(test)]
            if let Some(between) = lock(&self.all_files.between).take() {
                between(self);
            }
            if let Some(out) = self.read_at(node, &layout, offset, size)? {
                return Ok(out);
            }
            // A save landed: once it is done, the next layout has it.
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Err(Error::new(
            ErrorKind::Busy,
            "the folder's games kept changing while it was read",
        ))
    }

    /// Up to `size` bytes from `offset` of the all-file laid out as `layout`; `None` when a
    /// text changed since the layout was taken (the bytes would mix the two).
    fn read_at(
        &self,
        node: Node,
        layout: &Layout,
        offset: u64,
        size: u32,
    ) -> Result<Option<Vec<u8>>> {
        let end = offset.saturating_add(u64::from(size)).min(layout.size());
        if offset >= end {
            return Ok(Some(Vec::new()));
        }
        let first = layout.ends.partition_point(|&e| e <= offset);
        let last = layout.ends.partition_point(|&e| e < end);
        let items = &layout.items[first..=last.min(layout.items.len() - 1)];
        let ahead = self.rendered_ahead((node, layout.epoch), first..first + items.len());
        let texts = self.rendered(items, layout.epoch, ahead)?;
        self.render_ahead(node, layout, last + 1);
        if !self.cache.steady_since(layout.epoch) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity((end - offset) as usize);
        for (i, text) in (first..).zip(&texts) {
            let start = layout.start(i);
            let from = offset.saturating_sub(start) as usize;
            let to = ((end - start) as usize).min(text.len());
            if from < to {
                out.extend_from_slice(&text[from..to]);
            }
        }
        if let (Some(&n), Some(text)) = (layout.items.get(last), texts.last()) {
            *lock(&self.all_files.last) = Some(LastText {
                epoch: layout.epoch,
                item: n,
                text: text.clone(),
            });
        }
        Ok(Some(out))
    }

    /// The texts of `items`, rendered on every core (or found in `ahead`, their texts
    /// rendered ahead, or cached, or rendered by the read before at cache epoch `epoch`).
    fn rendered(&self, items: &[u32], epoch: u64, ahead: Vec<Option<Bytes>>) -> Result<Vec<Bytes>> {
        let found: Vec<Option<Bytes>> = {
            let last = lock(&self.all_files.last).clone();
            items
                .iter()
                .zip(ahead)
                .map(|(&n, ahead)| match &last {
                    Some(l) if l.item == n && l.epoch == epoch => Some(l.text.clone()),
                    _ => ahead.or_else(|| self.cache.get(n).map(Bytes::from_owner)),
                })
                .collect()
        };
        let missing: Vec<u32> = items
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(&n, _)| n)
            .collect();
        let done: Mutex<HashMap<u32, Result<Bytes>>> = Mutex::default();
        on_every_core(&missing, &|n| {
            let text = self.render_uncached(n);
            lock(&done).insert(n, text);
        });
        let mut done = done.into_inner().unwrap_or_else(|p| p.into_inner());
        items
            .iter()
            .zip(found)
            .map(|(n, f)| match f {
                Some(text) => Ok(text),
                None => done.remove(n).expect("rendered"),
            })
            .collect()
    }

    /// Item `n`'s text, from the cache or rendered without being cached.
    fn render_uncached(&self, n: u32) -> Result<Bytes> {
        if let Some(text) = self.cache.get(n) {
            return Ok(Bytes::from_owner(text));
        }
        let epoch = self.cache.epoch();
        let text = Bytes::from(self.coll.render(n)?);
        self.cache.set_size_if_current(n, text.len() as u64, epoch);
        Ok(text)
    }

    /// The texts rendered ahead of the items at `positions` of all-file `file` (`None` for
    /// each not rendered ahead), after waiting for the pieces being rendered that hold them.
    /// A read of another all-file or layout, or far from the last, starts the work ahead anew.
    fn rendered_ahead(&self, file: FileAt, positions: Range<usize>) -> Vec<Option<Bytes>> {
        let none = || vec![None; positions.len()];
        let (state, done) = &*self.all_files.ahead;
        let mut ahead = lock(state);
        let behind = ahead.until.saturating_sub(2 * AHEAD_ITEMS);
        if ahead.file != Some(file) || positions.start < behind || positions.start > ahead.until {
            ahead.file = Some(file);
            ahead.until = positions.start;
            ahead.pieces.clear();
            return none();
        }
        // Rendered by a piece under way: wait for it, not render it twice.
        while ahead
            .running
            .iter()
            .any(|(f, r)| *f == file && r.start < positions.end && positions.start < r.end)
        {
            ahead = done.wait(ahead).unwrap_or_else(|p| p.into_inner());
        }
        if ahead.file != Some(file) {
            return none();
        }
        // A reader in order does not come back to the pieces it is past; a read a little
        // behind the last (the kernel's reads ahead, served on two threads) still finds them.
        let keep_from = positions.start.saturating_sub(4 * PIECE_ITEMS);
        ahead.pieces.retain(|p| p.positions.end > keep_from);
        positions.map(|p| ahead.text(p)).collect()
    }

    /// Queue the pieces of all-file `node` (laid out as `layout`) up to [`AHEAD_ITEMS`] past
    /// position `next` that are not rendered or queued yet, to be rendered in the background.
    fn render_ahead(&self, node: Node, layout: &Layout, next: usize) {
        let file = (node, layout.epoch);
        let (state, _) = &*self.all_files.ahead;
        let mut ahead = lock(state);
        if ahead.file != Some(file) {
            return;
        }
        let count = layout.items.len();
        let to = (next + AHEAD_ITEMS).min(count);
        let mut from = ahead.until.max(next);
        // Whole pieces only, but for the file's last.
        while from < to && (to - from >= PIECE_ITEMS || to == count) {
            let piece = from..(from + PIECE_ITEMS).min(to);
            ahead.until = piece.end;
            ahead.running.push((file, piece.clone()));
            let items = layout.items[piece.clone()].to_vec();
            let coll = self.coll.clone();
            let shared = self.all_files.ahead.clone();
            from = piece.end;
            // On rayon's pool, as the reads' own rendering: no thread started per piece.
            rayon::spawn(move || {
                let piece = render_piece(&*coll, &items, piece);
                hand_over(piece, file, &shared);
            });
        }
    }
}

/// The items `items` at `positions` of an all-file, rendered one after another into one
/// buffer.
fn render_piece(coll: &dyn Collection, items: &[u32], positions: Range<usize>) -> Piece {
    let mut bytes = Vec::with_capacity(items.len() * TEXT_GUESS);
    let texts = items
        .iter()
        .map(|&n| {
            let start = bytes.len();
            coll.render_into(n, &mut bytes)
                .ok()
                .map(|()| start..bytes.len())
        })
        .collect();
    Piece {
        positions,
        bytes: bytes.into(),
        texts,
    }
}

/// Put `piece` of all-file `file` among the pieces ahead, unless another file or layout took
/// them over meanwhile; then tell the readers waiting.
fn hand_over(piece: Piece, file: FileAt, shared: &(Mutex<Ahead>, Condvar)) {
    let (state, done) = shared;
    let mut ahead = lock(state);
    ahead
        .running
        .retain(|(f, r)| (*f, r) != (file, &piece.positions));
    if ahead.file == Some(file) {
        let at = ahead
            .pieces
            .partition_point(|p| p.positions.start < piece.positions.start);
        ahead.pieces.insert(at, piece);
    }
    done.notify_all();
}

/// Run `work` on each of `items`, on every core: on rayon's pool, whose threads live as long
/// as the mount. (Threads started for each read, as before, cost more than the rendering:
/// each one's allocator heap is set up and given back to the system when it ends.)
fn on_every_core(items: &[u32], work: &(dyn Fn(u32) + Sync)) {
    use rayon::prelude::*;
    items.par_iter().for_each(|&n| work(n));
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::super::testing::{demo_tree, entries};
    use super::*;

    /// The whole all-file, read in pieces of `chunk` bytes as a reader would.
    fn read_whole(vfs: &Vfs, ino: u64, chunk: u32) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let piece = vfs.read(ino, out.len() as u64, chunk).unwrap();
            if piece.is_empty() {
                return out;
            }
            out.extend_from_slice(&piece);
        }
    }

    #[test]
    fn the_roots_all_file_is_every_game_in_order_found_but_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let all = vfs.lookup(Node::Root.ino(), OsStr::new("all.pgn")).unwrap();
        let games: Vec<u8> = entries(&vfs, Node::Games.ino(), 0)
            .iter()
            .filter(|e| e.name != "." && e.name != "..")
            .flat_map(|e| vfs.read(e.ino, 0, u32::MAX).unwrap())
            .collect();
        assert_eq!(all.size, games.len() as u64, "exact size");
        for chunk in [1, 7, 4096, 131_072] {
            assert!(read_whole(&vfs, all.ino, chunk) == games, "read by {chunk}");
        }
        // Random reads: any stretch is that stretch of the games.
        for (offset, len) in [(0, 10), (1000, 3000), (games.len() as u64 - 5, 100)] {
            let got = vfs.read(all.ino, offset, len).unwrap();
            let end = (offset as usize + len as usize).min(games.len());
            assert!(got == games[offset as usize..end], "{offset}+{len}");
        }
        for folder in [Node::Root, Node::Games] {
            assert!(
                entries(&vfs, folder.ino(), 0)
                    .iter()
                    .all(|e| e.name != "all.pgn"),
                "{folder:?} does not list all.pgn"
            );
        }
        assert!(
            vfs.lookup(Node::Games.ino(), OsStr::new("all.pgn"))
                .is_err()
        );
    }

    #[test]
    fn a_read_in_order_across_many_pieces_ahead_is_every_game_in_order() {
        // The demo games eighty times over, as a PGN file: more items than are rendered ahead
        // at once, in pieces of its source's bytes, the last one short.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.pgn");
        std::fs::write(&path, crate::testing::demo_games_from(1).repeat(80)).unwrap();
        let db = crate::store::open(&path, false).unwrap();
        let vfs = Vfs::new(
            Arc::new(crate::collection::chess::ChessCollection::new(db)),
            super::super::VfsOptions::default(),
        );
        let count = vfs.coll.count() as usize;
        assert!(
            count > AHEAD_ITEMS && !count.is_multiple_of(PIECE_ITEMS),
            "{count} games"
        );
        let all = vfs.lookup(Node::Root.ino(), OsStr::new("all.pgn")).unwrap();
        let games = std::fs::read(&path).unwrap();
        assert_eq!(all.size, games.len() as u64, "exact size");
        for chunk in [4096, 131_072, 1 << 20] {
            assert!(read_whole(&vfs, all.ino, chunk) == games, "read by {chunk}");
            let ahead = lock(&vfs.all_files.ahead.0);
            assert_eq!(
                ahead.until, count,
                "read by {chunk}: rendered ahead to the end"
            );
        }
    }

    #[test]
    fn a_save_landing_between_the_layout_and_the_texts_is_not_mixed_in() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let all = vfs.lookup(Node::Root.ino(), OsStr::new("all.pgn")).unwrap();
        let before = vfs.read(all.ino, 0, u32::MAX).unwrap();
        // Game 0 (the file's first) gets a longer text after a read took its layout; the
        // read is of a stretch across its end.
        let text = String::from_utf8(vfs.text(0).unwrap().to_vec()).unwrap();
        let edited = text.replacen("[Site \"", "[Site \"Saved meanwhile ", 1);
        *lock(&vfs.all_files.between) = Some(Box::new(move |vfs: &Vfs| {
            vfs.commit(
                crate::vfs::commit::Target::Game(0),
                OsStr::new("x.pgn"),
                edited.as_bytes(),
            )
            .unwrap();
        }));
        let stretch = text.len() - 50..text.len() + 50;
        let during = vfs.read(all.ino, stretch.start as u64, 100).unwrap();
        let after = vfs.read(all.ino, 0, u32::MAX).unwrap();
        assert!(String::from_utf8_lossy(&after).contains("Saved meanwhile"));
        assert!(
            during == before[stretch.clone()] || during == after[stretch],
            "one read mixed the layout before the save with a text after it"
        );
    }

    #[test]
    fn a_save_after_the_texts_ahead_were_rendered_is_read_as_saved() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let all = vfs.lookup(Node::Root.ino(), OsStr::new("all.pgn")).unwrap();
        // The first piece has the rest rendered ahead (the demo's 30 games are one stretch).
        let head = vfs.read(all.ino, 0, 4096).unwrap();
        let (state, _) = &*vfs.all_files.ahead;
        let start = std::time::Instant::now();
        while {
            let ahead = lock(state);
            !ahead.running.is_empty() || ahead.pieces.is_empty()
        } {
            assert!(start.elapsed().as_secs() < 30, "nothing was rendered ahead");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let last = vfs.coll.count() - 1;
        let text = String::from_utf8(vfs.text(last).unwrap().to_vec()).unwrap();
        let edited = text.replacen("[Site \"", "[Site \"Saved after the read ahead ", 1);
        vfs.commit(
            crate::vfs::commit::Target::Game(last),
            OsStr::new("x.pgn"),
            edited.as_bytes(),
        )
        .unwrap();
        let mut rest = Vec::new();
        loop {
            let piece = vfs
                .read(all.ino, (head.len() + rest.len()) as u64, 4096)
                .unwrap();
            if piece.is_empty() {
                break;
            }
            rest.extend_from_slice(&piece);
        }
        let after = read_whole(&vfs, all.ino, 131_072);
        assert!(rest == after[head.len()..], "the rest is the file as saved");
        assert!(String::from_utf8_lossy(&rest).contains("Saved after the read ahead"));
    }

    #[test]
    fn a_group_folders_all_file_follows_its_games_and_saves() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = demo_tree(dir.path(), true);
        let players = vfs.lookup(Node::Root.ino(), OsStr::new("players")).unwrap();
        let group = entries(&vfs, players.ino, 0)
            .into_iter()
            .find(|e| e.name != "." && e.name != "..")
            .unwrap();
        let links: Vec<u32> = entries(&vfs, group.ino, 0)
            .iter()
            .filter_map(|e| match Node::from_ino(e.ino) {
                Some(Node::Link(_, _, n)) => Some(n),
                _ => None,
            })
            .collect();
        let expected = |vfs: &Vfs| -> Vec<u8> {
            links
                .iter()
                .flat_map(|&n| vfs.text(n).unwrap().to_vec())
                .collect()
        };
        let all = vfs.lookup(group.ino, OsStr::new("all.pgn")).unwrap();
        assert!(read_whole(&vfs, all.ino, 4096) == expected(&vfs));
        // A save of one of its games: the file follows, size and text.
        let n = links[0];
        let text = String::from_utf8(vfs.text(n).unwrap().to_vec()).unwrap();
        let edited = text.replacen("[Site \"", "[Site \"Concatenated ", 1);
        vfs.commit(
            crate::vfs::commit::Target::Game(n),
            OsStr::new("x.pgn"),
            edited.as_bytes(),
        )
        .unwrap();
        let after = vfs.getattr(all.ino).unwrap();
        assert_eq!(after.size, expected(&vfs).len() as u64);
        assert!(read_whole(&vfs, all.ino, 4096) == expected(&vfs));
        assert!(
            String::from_utf8(expected(&vfs))
                .unwrap()
                .contains("Concatenated")
        );
    }
}
