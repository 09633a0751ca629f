//! `tree/` and `positions/FEN/`: positions as folders (docs/DESIGN.md rule 10).
//!
//! `tree/` is the standard start position; each position folder holds `games/` (symlinks to
//! the games that reach it, in database order), `tree.txt` (SCID's tree table, the FEN, the
//! opening), `position.fen`, and one folder per move played there, named by its SAN with
//! check and mate signs, down to `-o tree_depth` plies. `positions/` finds any position by its
//! FEN, with `:` standing for `/` (a name cannot hold `/`) and `_` for a space. Neither `tree/`
//! nor `positions/` is listed, so walks of the whole mount (`find`, `du`, `grep -r`,
//! `updatedb`, backups) never descend into the tree; they are found by name.
//!
//! Every folder of games has them: the root over every game, and each group folder of a view
//! and side folder (`players/NAME/white/`) over its own games, a [`SliceId`] whose games
//! ([`Slice`]) the folder's tree counts ([`super::slices`]). There is one index for all.
//!
//! Position folders get numbers as they are first looked up (a table of the folders visited
//! during the mount, each with the slice it belongs to): the same path gives the same folder,
//! and the number names the node. Until the index is ready (built in the background after the
//! mount, progress in `.gamefs/stats`), a position folder's contents wait for it, at most
//! [`WAIT_FOR_INDEX`]; then EBUSY.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use super::slices::SliceId;
use super::{DirEntry, Node, Vfs, lock};
use crate::collection::Collection;
use crate::collection::positions::PositionIndex;
use crate::collection::positions::board::Board;
use crate::collection::positions::slice::Slice;
use crate::collection::positions::tree::PositionMoves;
use crate::error::{Error, ErrorKind, Result};

/// How long a lookup in a position folder waits for the index being built.
pub const WAIT_FOR_INDEX: Duration = Duration::from_secs(120);

/// The default of `-o tree_depth`: how many plies deep `tree/` has move folders.
pub const DEFAULT_TREE_DEPTH: u32 = 40;

/// Position folders kept made (their tree, names and texts) for the next lookups.
const KEPT_FOLDERS: usize = 256;

/// The most position folders a mount numbers: a link in a position folder's `games/` holds
/// the folder's number in 24 bits of its inode number ([`Node::PositionLink`]).
const MOST_PLACES: usize = 1 << 24;

/// What a position folder hangs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Up {
    /// It is the `tree/` of a folder of games.
    Tree(SliceId),
    /// It is found by FEN in the `positions/` of a folder of games.
    Fen(SliceId),
    /// It is a move folder of position folder `id`.
    Move(u32),
}

/// One position folder of the mount.
struct Place {
    position: Board,
    up: Up,
    /// The folder of games whose tree it is in.
    slice: SliceId,
    /// Path components from the mount's root (the root's `tree` is 1, `positions/FEN` 2).
    level: u32,
    /// Plies from the position its walk started at (`tree/` or `positions/FEN/`).
    plies: u32,
}

/// The position folders made: by number, and the number of each (parent, name).
type Places = (Vec<Place>, HashMap<(Up, String), u32>);

/// A position folder's contents, made once per state of the index and the games.
pub(crate) struct Folder {
    /// The moves played from the position.
    tree: PositionMoves,
    /// The position, the index its games are found in and the games counted (once asked
    /// for).
    board: Board,
    index: Arc<PositionIndex>,
    /// The games indexed.
    coll: Arc<dyn Collection>,
    slice: Slice,
    /// The games that reach it, ascending: those of every game found when first asked for
    /// (a `tree.txt` needs only the sums per move, which the index reads in a few pages
    /// however many games reach the position), a slice's found with its sums.
    games: OnceLock<Vec<u32>>,
    /// The names of its move folders (none past the depth).
    moves: Vec<String>,
    tree_txt: Arc<[u8]>,
    fen: Arc<[u8]>,
}

impl Folder {
    /// The games that reach the position, ascending.
    fn games(&self) -> &[u32] {
        self.games
            .get_or_init(|| self.slice.games_at(&self.index, &*self.coll, &self.board))
    }
}

/// The positions of a mount: the index and the folders visited.
pub(crate) struct Positions {
    /// The index; replaced whole when another program changed the database.
    index: RwLock<Arc<PositionIndex>>,
    depth: u32,
    /// The games indexed.
    coll: Arc<dyn Collection>,
    places: Mutex<Places>,
    folders: Mutex<lru::LruCache<u32, Arc<Folder>>>,
    /// Counts the times the folders made were forgotten: a folder made from the games as
    /// they were before is not kept.
    forgotten: AtomicU64,
    /// An import of many games at once left the index behind: it is built anew when the
    /// positions are next looked at (not held game by game in memory).
    stale: AtomicBool,
    /// Set at unmount: builds stop.
    stop: Arc<AtomicBool>,
    /// The threads building an index anew, waited for at unmount.
    rebuilds: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

/// Games changed at once (an import) past which the index is built anew rather than given
/// each game in memory: a million tiny games held one by one took more memory than the
/// games' own index and names.
const CHANGED_AT_ONCE_MOST: usize = if cfg!(test) { 2 } else { 10_000 };

impl Positions {
    /// The positions of the games of `coll` over their `index`, with move folders `depth`
    /// plies deep.
    pub(crate) fn new(
        index: Arc<PositionIndex>,
        coll: Arc<dyn Collection>,
        depth: u32,
    ) -> Positions {
        let root = Up::Tree(SliceId::All);
        let tree = Place {
            position: Board::start(),
            up: root,
            slice: SliceId::All,
            level: 1,
            plies: 0,
        };
        Positions {
            index: RwLock::new(index),
            depth,
            coll,
            places: Mutex::new((vec![tree], HashMap::from([((root, "tree".to_owned()), 0)]))),
            folders: Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(KEPT_FOLDERS).expect("not zero"),
            )),
            forgotten: AtomicU64::new(0),
            stale: AtomicBool::new(false),
            stop: Arc::new(AtomicBool::new(false)),
            rebuilds: Mutex::default(),
        }
    }

    /// The index now.
    pub(crate) fn index(&self) -> Arc<PositionIndex> {
        self.index.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Forget the folders made: the games changed.
    pub(crate) fn forget_folders(&self) {
        let mut folders = lock(&self.folders);
        self.forgotten.fetch_add(1, Ordering::AcqRel);
        folders.clear();
    }

    /// The number of the folder `name` hanging from `up`, made now for `position` if it is
    /// new; `level`: its path components from the root, for a folder that is no move folder.
    /// ENOSPC past [`MOST_PLACES`] folders in one mount.
    fn place(
        &self,
        up: Up,
        name: &str,
        level: u32,
        position: impl FnOnce() -> Board,
    ) -> Result<u32> {
        let mut places = lock(&self.places);
        let key = (up, name.to_owned());
        if let Some(&id) = places.1.get(&key) {
            return Ok(id);
        }
        if places.0.len() >= MOST_PLACES {
            return Err(Error::new(
                ErrorKind::NoSpace,
                format!(
                    "{MOST_PLACES} position folders were looked into during this mount, the most \
                     one mount numbers; mount again to look into more"
                ),
            ));
        }
        let (slice, level, plies) = match up {
            Up::Move(p) => {
                let parent = &places.0[p as usize];
                (parent.slice, parent.level + 1, parent.plies + 1)
            }
            Up::Tree(slice) | Up::Fen(slice) => (slice, level, 0),
        };
        let id = places.0.len() as u32;
        places.0.push(Place {
            position: position(),
            up,
            slice,
            level,
            plies,
        });
        places.1.insert(key, id);
        Ok(id)
    }

    /// What the kernel may hold of the folders made: their nodes, and their names in their
    /// folders (by the folder's inode number; a `tree` is always there).
    fn made(&self) -> (Vec<Node>, Vec<(u64, String)>) {
        let places = lock(&self.places);
        let mut nodes = Vec::with_capacity(places.0.len() * 4);
        for id in 0..places.0.len() as u32 {
            nodes.extend([
                Node::Position(id),
                Node::PositionGames(id),
                Node::TreeText(id),
                Node::FenText(id),
                Node::AllOfPosition(id),
            ]);
        }
        let names = places
            .1
            .keys()
            .filter_map(|(up, name)| {
                let folder = match *up {
                    Up::Tree(_) => return None,
                    Up::Fen(slice) => positions_folder(slice),
                    Up::Move(p) => Node::Position(p),
                };
                Some((folder.ino(), name.clone()))
            })
            .collect();
        (nodes, names)
    }

    /// The folder of games whose tree folder `id` is in, when folder `id` was made.
    pub(crate) fn slice_of(&self, id: u32) -> Option<SliceId> {
        lock(&self.places).0.get(id as usize).map(|p| p.slice)
    }

    /// The folder holding folder `id`: another position folder, a `positions/`, or the folder
    /// of games whose `tree/` it is.
    pub(crate) fn parent(&self, id: u32) -> Option<Node> {
        let places = lock(&self.places);
        Some(match places.0.get(id as usize)?.up {
            Up::Tree(slice) => slice.folder(),
            Up::Fen(slice) => positions_folder(slice),
            Up::Move(p) => Node::Position(p),
        })
    }

    /// The index, once it is ready: waited for while it is being built, at most
    /// [`WAIT_FOR_INDEX`] (then EBUSY).
    pub(crate) fn ready_index(&self) -> Result<Arc<PositionIndex>> {
        let index = self.index();
        if !index.wait_ready(WAIT_FOR_INDEX) {
            let (done, total) = index.progress();
            return Err(Error::new(
                ErrorKind::Busy,
                format!(
                    "the position index is being built ({done} of {total} games; see \
                     .gamefs/stats)"
                ),
            ));
        }
        Ok(index)
    }

    /// Folder `id`'s position, whether it is past the depth (no move folders, not even by
    /// name), and the folder of games whose tree it is in.
    fn place_of(&self, id: u32) -> Result<(Board, bool, SliceId)> {
        let places = lock(&self.places);
        let place = places
            .0
            .get(id as usize)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, "no such position folder"))?;
        Ok((
            place.position.clone(),
            place.plies >= self.depth,
            place.slice,
        ))
    }

    /// The contents of folder `id`, waiting for the index if it is being built; the games
    /// of its slice are `games_of` it.
    pub(crate) fn folder(
        &self,
        id: u32,
        games_of: &dyn Fn(SliceId) -> Slice,
    ) -> Result<Arc<Folder>> {
        if let Some(f) = lock(&self.folders).get(&id) {
            return Ok(f.clone());
        }
        let forgotten = self.forgotten.load(Ordering::Acquire);
        let index = self.ready_index()?;
        let (position, last, slice) = self.place_of(id)?;
        let slice = games_of(slice);
        let (sums, games) = slice.moves_at(&index, &*self.coll, &position);
        let tree = PositionMoves::of(&position, sums);
        let moves = if last {
            Vec::new()
        } else {
            tree.names().map(str::to_owned).collect()
        };
        let folder = Arc::new(Folder {
            tree_txt: Arc::from(tree.text().into_bytes()),
            fen: Arc::from(format!("{}\n", tree.fen()).into_bytes()),
            games: games.map(OnceLock::from).unwrap_or_default(),
            board: position,
            index,
            coll: self.coll.clone(),
            slice,
            tree,
            moves,
        });
        let mut folders = lock(&self.folders);
        // Made from the games as they were before a change: answers this call, kept for none.
        if self.forgotten.load(Ordering::Acquire) == forgotten {
            folders.put(id, folder.clone());
        }
        Ok(folder)
    }

    /// Build the index (or map the kept one) on `threads` threads until `stop`.
    pub(crate) fn build(
        &self,
        coll: &dyn Collection,
        threads: usize,
        stop: &AtomicBool,
        before_build: impl FnOnce(),
    ) {
        self.index()
            .load_or_build_after(coll, threads, stop, before_build);
        self.forget_folders();
    }

    /// The database changed beyond what the index follows game by game: build a new index in
    /// the background, then use it. With `meanwhile`, the old one answers until then (another
    /// program's change); without, lookups wait for the new one (an import of many games).
    pub(crate) fn rebuild(
        self: &Arc<Self>,
        coll: Arc<dyn Collection>,
        threads: usize,
        meanwhile: bool,
    ) {
        let positions = self.clone();
        let path = positions.index().path().map(|p| p.to_path_buf());
        let fresh = Arc::new(PositionIndex::new(path));
        if !meanwhile {
            *positions.index.write().unwrap_or_else(|p| p.into_inner()) = fresh.clone();
            positions.forget_folders();
        }
        let spawned = std::thread::Builder::new()
            .name("gamefs-positions".into())
            .spawn(move || {
                super::size_fill::lower_priority();
                fresh.load_or_build(&*coll, threads, &positions.stop);
                let old = std::mem::replace(
                    &mut *positions.index.write().unwrap_or_else(|p| p.into_inner()),
                    fresh.clone(),
                );
                // Saves made while it was built went to the old index; the build may have
                // read those games before them.
                if !Arc::ptr_eq(&old, &fresh) {
                    fresh.follow(&old, &*coll);
                }
                positions.forget_folders();
            });
        match spawned {
            Ok(thread) => lock(&self.rebuilds).push(thread),
            Err(e) => log::warn!("cannot rebuild the position index: {e}"),
        }
    }
}

/// The position a `positions/` name stands for: a FEN with `:` for `/` and `_` (or a space)
/// between its fields; the reason when it is none.
fn position_named(name: &str) -> Result<Board> {
    let fen: String = name
        .chars()
        .map(|c| match c {
            ':' => '/',
            '_' => ' ',
            c => c,
        })
        .collect();
    Board::from_fen(fen.trim())
}

/// The `positions/` folder of the folder of games of `slice`.
pub(super) fn positions_folder(slice: SliceId) -> Node {
    match slice {
        SliceId::All => Node::PositionsRoot,
        slice => Node::SlicePositions(slice),
    }
}

impl Vfs {
    /// The positions of the mount, for a collection of chess games.
    fn positions(&self) -> Result<&Positions> {
        let positions = self
            .positions
            .as_ref()
            .ok_or_else(|| Error::new(ErrorKind::NotFound, "no positions here"))?;
        if positions.stale.swap(false, Ordering::AcqRel) {
            positions.rebuild(self.coll.clone(), super::cores(), false);
        }
        Ok(positions)
    }

    /// True when position folder `id` was made and the folder of games whose tree it is in
    /// is there now (a player's tree goes with the player's last game).
    pub(super) fn position_exists(&self, id: u32) -> bool {
        let slice = self.positions.as_ref().and_then(|p| p.slice_of(id));
        slice.is_some_and(|slice| self.slice_exists(slice))
    }

    /// The contents of position folder `id`, its slice's games as they are now.
    fn position_folder(&self, id: u32) -> Result<Arc<Folder>> {
        self.positions()?
            .folder(id, &|slice| self.slice_games(slice))
    }

    /// `tree` or `positions` in the folder of games of `slice`, when the mount has positions.
    pub(super) fn slice_positions_child(
        &self,
        slice: SliceId,
        name: &[u8],
    ) -> Result<Option<Node>> {
        let Some(positions) = &self.positions else {
            if matches!(name, b"tree" | b"positions")
                && !self.options.tree
                && self.coll.has_positions()
            {
                log::info!(
                    "{}/: none, the mount was made with -o tree=off (no position index)",
                    String::from_utf8_lossy(name)
                );
            }
            return Ok(None);
        };
        Ok(match name {
            b"tree" => {
                let level = self.slice_depth(slice) + 1;
                let id = positions.place(Up::Tree(slice), "tree", level, Board::start)?;
                Some(Node::Position(id))
            }
            b"positions" => Some(positions_folder(slice)),
            _ => None,
        })
    }

    /// The folder `name` in the `positions/` of the folder of games of `slice`: the position
    /// its FEN names (ENOENT, logged, when it names none).
    pub(super) fn position_by_fen(&self, slice: SliceId, name: &[u8]) -> Result<Option<Node>> {
        let positions = self.positions()?;
        let text = String::from_utf8_lossy(name);
        match position_named(&text) {
            Ok(pos) => {
                let level = self.slice_depth(slice) + 2;
                let id = positions.place(Up::Fen(slice), &text, level, || pos)?;
                Ok(Some(Node::Position(id)))
            }
            Err(e) => {
                log::warn!("positions/{text}: not a position: {}", e.message());
                Err(Error::new(
                    ErrorKind::NotFound,
                    format!("positions/{text}: not a position: {}", e.message()),
                ))
            }
        }
    }

    /// The entry `name` of position folder `id`.
    pub(super) fn position_child(&self, id: u32, name: &[u8]) -> Result<Option<Node>> {
        match name {
            b"games" => return Ok(Some(Node::PositionGames(id))),
            b"tree.txt" => return Ok(Some(Node::TreeText(id))),
            b"position.fen" => return Ok(Some(Node::FenText(id))),
            _ => {}
        }
        let Ok(name) = std::str::from_utf8(name) else {
            return Ok(None);
        };
        // Listed are the moves played here; found by name also any other legal move (or a
        // null move) to a position games reach by another move order: either way, a move to
        // a position the folder's games reach. Only that position is looked up: a folder of
        // a player's games would find its moves here among every game reaching it.
        let positions = self.positions()?;
        let index = positions.ready_index()?;
        let (position, last, slice) = positions.place_of(id)?;
        let found = if last {
            None
        } else {
            PositionMoves::find(
                &position,
                &index,
                &*self.coll,
                &self.slice_games(slice),
                name,
            )
        };
        let Some(board) = found else {
            return Ok(None);
        };
        let id = positions.place(Up::Move(id), name, 0, || board)?;
        Ok(Some(Node::Position(id)))
    }

    /// The link `name` in position folder `id`'s `games/`.
    pub(super) fn position_game_child(&self, id: u32, name: &[u8]) -> Result<Option<Node>> {
        let folder = self.position_folder(id)?;
        Ok(self
            .coll
            .item_named(name)
            .filter(|n| folder.games().binary_search(n).is_ok())
            .map(|n| Node::PositionLink(id, n)))
    }

    /// Hand the entries of a position folder, its `games/` or a `positions/` (none: found by
    /// name only) after position `from` to `add`, made only as it takes them; whether `add`
    /// said it was full. A folder that cannot be made now (the index is being built) lists
    /// nothing; the lookups of its entries say why.
    pub(super) fn list_positions(
        &self,
        node: Node,
        from: u64,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> bool {
        let Ok(positions) = self.positions() else {
            return false;
        };
        let from = usize::try_from(from).unwrap_or(usize::MAX);
        match node {
            Node::Position(id) => {
                let Ok(folder) = self.position_folder(id) else {
                    return false;
                };
                let mut entries = vec![
                    (Node::PositionGames(id), "games".to_owned()),
                    (Node::TreeText(id), "tree.txt".to_owned()),
                    (Node::FenText(id), "position.fen".to_owned()),
                ];
                for name in &folder.moves {
                    let made = positions.place(Up::Move(id), name, 0, || {
                        folder.tree.after(name).unwrap_or_default()
                    });
                    let Ok(child) = made else {
                        break;
                    };
                    entries.push((Node::Position(child), name.clone()));
                }
                entries
                    .into_iter()
                    .enumerate()
                    .skip(from)
                    .any(|(i, (n, name))| add(self.entry(n, name.into(), i as u64 + 3)))
            }
            Node::PositionGames(id) => {
                let Ok(folder) = self.position_folder(id) else {
                    return false;
                };
                let shown = self.shown_games();
                // Offsets count every game of the folder, shown or not, so they stay put.
                folder
                    .games()
                    .iter()
                    .enumerate()
                    .skip(from)
                    .filter(|&(_, &n)| shown(n))
                    .any(|(i, &n)| {
                        add(self.entry(
                            Node::PositionLink(id, n),
                            self.game_name(n).into(),
                            i as u64 + 3,
                        ))
                    })
            }
            _ => false,
        }
    }

    /// The games of position folder `id` shown in its `games/`, in order (none when it
    /// cannot be made now).
    pub(super) fn position_games(&self, id: u32) -> Vec<u32> {
        let Ok(folder) = self.position_folder(id) else {
            return Vec::new();
        };
        let shown = self.shown_games();
        folder
            .games()
            .iter()
            .copied()
            .filter(|&n| shown(n))
            .collect()
    }

    /// Whether a game of the index is shown in `games/` now: neither deleted nor renamed away.
    fn shown_games(&self) -> impl Fn(u32) -> bool + '_ {
        let hidden = lock(&self.hidden).clone();
        let count = self.coll.count();
        move |n| n < count && !self.coll.deleted(n) && !hidden.contains(&n)
    }

    /// The target of link `n` in position folder `id`'s `games/`: a relative path into the
    /// mount's `games/`.
    pub(super) fn position_link_target(&self, id: u32, n: u32) -> Result<Vec<u8>> {
        let level = {
            let places = lock(&self.positions()?.places);
            places
                .0
                .get(id as usize)
                .map(|p| p.level)
                .ok_or_else(|| Error::new(ErrorKind::NotFound, "no such position folder"))?
        };
        // The link is in the folder's `games/`.
        Ok(self.link_to_game(level + 1, n))
    }

    /// The text of `tree.txt` or `position.fen` of a position folder.
    pub(super) fn position_text(&self, node: Node) -> Result<Arc<[u8]>> {
        match node {
            Node::TreeText(id) => Ok(self.position_folder(id)?.tree_txt.clone()),
            Node::FenText(id) => Ok(self.position_folder(id)?.fen.clone()),
            _ => Err(Error::new(ErrorKind::InvalidInput, "not a position file")),
        }
    }

    /// The games of `numbers` changed (saved, imported, deleted, restored): the index replays
    /// them, and position folders are made anew.
    pub(super) fn positions_changed(&self, numbers: &[u32]) {
        let Some(positions) = &self.positions else {
            return;
        };
        if numbers.len() > CHANGED_AT_ONCE_MOST {
            positions.stale.store(true, Ordering::Release);
        } else {
            // Held while the games are replayed: a rebuild puts its index in place only after
            // (then takes over what this one holds, `PositionIndex::follow`).
            let index = positions.index.read().unwrap_or_else(|p| p.into_inner());
            for &n in numbers {
                index.update(&*self.coll, n);
            }
        }
        positions.forget_folders();
        // Any folder made may have gained or lost games and moves: the kernel forgets them.
        let (nodes, names) = positions.made();
        let names: Vec<(u64, &std::ffi::OsStr)> = names
            .iter()
            .map(|(parent, name)| (*parent, std::ffi::OsStr::new(name.as_str())))
            .collect();
        self.invalidate(&nodes, &names);
    }

    /// Another program changed the database: the index is built anew in the background.
    pub(super) fn positions_outside_change(&self) {
        if let Some(positions) = &self.positions {
            positions.rebuild(self.coll.clone(), super::cores(), true);
        }
    }

    /// Build the position index (or map the kept one) on `threads` threads until `stop`;
    /// nothing for a collection without positions.
    /// A build waits for `before_build` to return.
    pub fn build_positions(&self, threads: usize, stop: &AtomicBool, before_build: impl FnOnce()) {
        if let Some(positions) = &self.positions {
            positions.build(&*self.coll, threads, stop, before_build);
            self.trim_cache_folder();
        }
    }

    /// Keep the cache folder of the position index within `-o cache_max`, this mount's index
    /// aside.
    fn trim_cache_folder(&self) {
        let Some(positions) = &self.positions else {
            return;
        };
        let index = positions.index();
        if let Some((path, dir)) = index.path().and_then(|p| Some((p, p.parent()?))) {
            crate::store::cache_folder::trim(dir, self.options.cache_max, &[path]);
        }
    }

    /// Keep the position index as the database is now for the next mount (the saves of this
    /// one merged in), at unmount.
    pub fn keep_positions(&self) {
        let Some(positions) = &self.positions else {
            return;
        };
        let index = positions.index();
        if positions.stale.load(Ordering::Acquire) {
            // Behind the database: the next mount builds it anew.
            index.forget_kept();
            return;
        }
        if let Err(e) = index.persist(&*self.coll) {
            log::warn!("cannot keep the position index: {e}");
        }
        self.trim_cache_folder();
    }

    /// Stop building the position index (the first build, `build`, and any rebuild) and wait
    /// for the threads, so none is cut off by the end of the process with temporary files
    /// left behind.
    pub fn stop_positions(&self, build: Option<std::thread::JoinHandle<()>>) {
        let Some(positions) = &self.positions else {
            return;
        };
        positions.stop.store(true, Ordering::Release);
        if let Some(build) = build {
            let _ = build.join();
        }
        for thread in std::mem::take(&mut *lock(&positions.rebuilds)) {
            let _ = thread.join();
        }
    }

    /// The `.gamefs/stats` lines of the position index.
    pub(super) fn positions_stats(&self) -> String {
        let Some(positions) = &self.positions else {
            return if self.coll.has_positions() {
                "position_index: off\n".into()
            } else {
                String::new()
            };
        };
        let index = positions.index();
        let (done, total) = index.progress();
        let state = if index.is_ready() {
            "ready"
        } else {
            "building"
        };
        let on_disk = index.bytes_on_disk();
        format!(
            "position_index: {state}\npositions_games_indexed: {done}/{total}\n\
             position_index_bytes: {on_disk}\nposition_index_bytes_per_game: {}\n",
            on_disk / u64::from(total.max(1))
        )
    }
}

/// Start building the position index of `vfs` in the background on `threads` threads (on
/// idle cores), once `after` has ended (the learning of sizes right after the mount, so the
/// first listing does not share its cores with the build; a kept index is taken at once);
/// [`Vfs::stop_positions`] stops it.
pub fn start_building(
    vfs: Arc<Vfs>,
    threads: usize,
    after: Option<Arc<super::size_fill::Ended>>,
) -> Option<std::thread::JoinHandle<()>> {
    let stop = vfs.positions.as_ref()?.stop.clone();
    let spawned = std::thread::Builder::new()
        .name("gamefs-positions".into())
        .spawn(move || {
            super::size_fill::lower_priority();
            vfs.build_positions(threads, &stop, || {
                if let Some(after) = after {
                    log::info!("position index: built once every game's size is known");
                    after.wait(&stop);
                }
            });
            // Then the header index and the twins, so that `query/` and `twins/` answer at
            // once (kept for the next mount).
            if !stop.load(Ordering::Acquire) && vfs.header_index().is_some() {
                vfs.warm_query_folders();
            }
            if !stop.load(Ordering::Acquire) {
                vfs.twins();
            }
        });
    spawned
        .inspect_err(|e| log::warn!("cannot build the position index: {e}"))
        .ok()
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;
    use crate::vfs::FileKind;
    use crate::vfs::testing::{CALLER, WRITE_NEW, at, names, text, tree_of};

    /// The node at `path` from the root.
    const GAMES: &str = concat!(
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n",
        "[White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n\n1. Nf3 Nc6 2. e4 e5 3. Bb5 0-1\n\n",
        "[White \"e\"]\n[Black \"f\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n",
    );

    #[test]
    fn tree_and_positions_are_found_by_name_but_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let root = names(&vfs, "");
        assert!(
            !root.iter().any(|n| n == "tree" || n == "positions"),
            "{root:?}"
        );
        assert_eq!(
            vfs.getattr(at(&vfs, "tree").unwrap()).unwrap().kind,
            FileKind::Directory
        );
        assert!(names(&vfs, "positions").is_empty());
    }

    #[test]
    fn transpositions_meet_in_one_folder_whose_links_lead_to_the_games() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        assert_eq!(
            names(&vfs, "tree"),
            // Equally played: by SAN.
            ["games", "tree.txt", "position.fen", "Nf3", "d4", "e4"]
        );
        let by_e4 = "tree/e4/e5/Nf3/Nc6";
        let by_nf3 = "tree/Nf3/Nc6/e4/e5";
        assert_eq!(names(&vfs, &format!("{by_e4}/games")).len(), 2);
        assert_eq!(
            names(&vfs, &format!("{by_e4}/games")),
            names(&vfs, &format!("{by_nf3}/games"))
        );
        assert_eq!(
            names(&vfs, by_e4),
            ["games", "tree.txt", "position.fen", "Bb5"]
        );
        let link = at(&vfs, &format!("{by_nf3}/games/0002.pgn")).unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(link).unwrap()).unwrap(),
            format!("../../../../../../games/{}", vfs.game_name(1))
        );
    }

    #[test]
    fn a_position_folder_has_its_games_as_one_all_pgn_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let folder = "tree/e4/e5/Nf3/Nc6";
        assert!(!names(&vfs, folder).contains(&"all.pgn".to_owned()));
        let all = at(&vfs, &format!("{folder}/all.pgn")).unwrap();
        let want: Vec<u8> = [0, 1]
            .iter()
            .flat_map(|&n| vfs.text(n).unwrap().to_vec())
            .collect();
        assert_eq!(vfs.getattr(all).unwrap().size, want.len() as u64);
        assert_eq!(vfs.read(all, 0, 1 << 20).unwrap(), want);
    }

    #[test]
    fn tree_txt_is_scids_table_with_the_fen_and_the_opening() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let tree = text(&vfs, "tree/tree.txt");
        assert!(
            tree.starts_with(crate::collection::positions::table::TITLE),
            "{tree}"
        );
        assert!(
            tree.contains("\n 3: e4     B00         1: 33.3%  100.0%"),
            "{tree}"
        );
        assert!(
            tree.contains("TOTAL:                 3:100.0%   50.0%"),
            "{tree}"
        );
        assert!(tree.contains("FEN: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
        let open = text(&vfs, "tree/e4/e5/Nf3/Nc6/tree.txt");
        assert!(
            open.contains("Opening: King's Knight Opening: Normal Variation"),
            "{open}"
        );
        assert_eq!(
            text(&vfs, "tree/d4/position.fen"),
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
        );
        let size = vfs
            .getattr(at(&vfs, "tree/tree.txt").unwrap())
            .unwrap()
            .size;
        assert_eq!(size, tree.len() as u64);
    }

    #[test]
    fn the_depth_ends_the_move_folders() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 2);
        assert_eq!(
            names(&vfs, "tree/e4/e5"),
            ["games", "tree.txt", "position.fen"]
        );
        assert!(at(&vfs, "tree/e4/e5/Nf3").is_err());
    }

    #[test]
    fn a_move_no_game_played_here_is_found_when_games_reach_the_position_it_makes() {
        let dir = tempfile::tempdir().unwrap();
        let games = concat!(
            "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 1-0\n\n",
            "[White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n\n1. c4 e6 2. d4 d5 0-1\n\n",
        );
        let vfs = tree_of(dir.path(), games, 40);
        // No game plays 2...Nf6 after 1.c4 e6 2.d4, but game 1 reaches the position it makes.
        assert_eq!(
            names(&vfs, "tree/c4/e6/d4"),
            ["games", "tree.txt", "position.fen", "d5"]
        );
        let by_c4 = "tree/c4/e6/d4/Nf6/Nc3";
        let by_d4 = "tree/d4/Nf6/c4/e6/Nc3";
        assert_eq!(names(&vfs, &format!("{by_c4}/games")), [vfs.game_name(0)]);
        // The same table (the FENs differ in the halfmove clock).
        let table = |path: &str| {
            let text = text(&vfs, &format!("{path}/tree.txt"));
            text.split("FEN:").next().unwrap().to_owned()
        };
        assert!(table(by_c4).contains(" 1: Bb4 "), "{}", table(by_c4));
        assert_eq!(table(by_c4), table(by_d4));
        assert_eq!(names(&vfs, by_c4), names(&vfs, by_d4));
        // A legal move to a position no game reaches, an illegal one, a SAN without its sign.
        for path in [
            "tree/c4/e6/d4/Nc6",
            "tree/c4/e6/d4/e4",
            "tree/d4/Nf6/c4/e6/Bg5+",
        ] {
            assert_eq!(
                at(&vfs, path).unwrap_err().kind(),
                ErrorKind::NotFound,
                "{path}"
            );
        }
    }

    #[test]
    fn a_null_move_leads_to_the_same_board_with_the_other_side_to_move() {
        let dir = tempfile::tempdir().unwrap();
        let games = concat!(
            "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 -- 2. d4 e5 1-0\n\n",
            "[White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 0-1\n\n",
        );
        let vfs = tree_of(dir.path(), games, 40);
        assert!(names(&vfs, "tree/e4").contains(&"--".to_owned()));
        assert_eq!(names(&vfs, "tree/e4/--/games"), [vfs.game_name(0)]);
        let fen = text(&vfs, "tree/e4/--/position.fen");
        assert!(
            fen.starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w "),
            "{fen}"
        );
        assert_eq!(
            names(&vfs, "tree/e4/--"),
            ["games", "tree.txt", "position.fen", "d4"]
        );
        assert_eq!(names(&vfs, "tree/e4/--/d4/e5/games"), [vfs.game_name(0)]);
        // No game passes after 1.d4 or 1.e4 e5.
        for path in ["tree/e4/e5/--", "tree/--"] {
            assert_eq!(
                at(&vfs, path).unwrap_err().kind(),
                ErrorKind::NotFound,
                "{path}"
            );
        }
    }

    #[test]
    fn any_position_is_found_by_its_fen_and_a_bad_fen_is_enoent() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 2);
        // Past the tree's depth, with `:` for `/` and `_` for spaces.
        let past = "positions/r1bqkbnr:pppp1ppp:2n5:1B2p3:4P3:5N2:PPPP1PPP:RNBQK2R_b_KQkq_-_3_3";
        assert_eq!(names(&vfs, &format!("{past}/games")), [vfs.game_name(1)]);
        assert!(text(&vfs, &format!("{past}/tree.txt")).contains("Ruy Lopez"));
        let link = at(&vfs, &format!("{past}/games/0002.pgn")).unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(link).unwrap()).unwrap(),
            format!("../../../games/{}", vfs.game_name(1))
        );
        // No game reaches it: an empty folder.
        let empty = "positions/4k3:8:8:8:8:8:8:4K3 w - - 0 1";
        assert!(names(&vfs, &format!("{empty}/games")).is_empty());
        assert!(text(&vfs, &format!("{empty}/tree.txt")).contains("FEN: 4k3/8/8/8/8/8/8/4K3 w"));
        let bad = at(&vfs, "positions/not a fen").unwrap_err();
        assert_eq!(bad.kind(), ErrorKind::NotFound);
        assert!(
            bad.message().contains("not a position"),
            "{}",
            bad.message()
        );
    }

    #[test]
    fn a_save_moves_a_game_to_its_new_positions_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        assert_eq!(names(&vfs, "tree/d4/games").len(), 1);
        let text = b"[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. d4 Nf6 1-0\n";
        let ino = Node::Game(0).ino();
        let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
        vfs.write(ino, fh, 0, text, CALLER).unwrap();
        vfs.flush(ino, fh, CALLER).unwrap();
        vfs.release(ino, fh);
        assert_eq!(names(&vfs, "tree/d4/games").len(), 2);
        assert!(
            at(&vfs, "tree/e4").is_err(),
            "game 1 left 1.e4, which no game plays now"
        );
        assert!(names(&vfs, "tree/d4").contains(&"Nf6".to_owned()));
        assert!(text_has(&vfs, "tree/tree.txt", "\n 1: d4 "));
    }

    #[test]
    fn an_import_of_many_games_has_the_index_built_anew_when_next_looked_at() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        assert!(at(&vfs, "tree/c4").is_err(), "no game plays 1.c4 yet");
        let game = |n: u32| {
            format!("[White \"w{n}\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n1. c4 e5 2. Nc3 0-1\n\n")
        };
        let text: String = (0..3).map(game).collect();
        vfs.commit(
            crate::vfs::commit::Target::Import,
            OsStr::new("many.pgn"),
            text.as_bytes(),
        )
        .unwrap();
        let positions = vfs.positions.as_ref().unwrap();
        assert!(
            positions.stale.load(Ordering::Acquire),
            "past the limit: not held game by game"
        );
        // Looked at: built anew, and the lookup waits for it.
        assert_eq!(names(&vfs, "tree/c4/games").len(), 3);
        assert!(names(&vfs, "tree/c4/e5").contains(&"Nc3".to_owned()));
        vfs.stop_positions(None);
    }

    fn text_has(vfs: &Vfs, path: &str, what: &str) -> bool {
        text(vfs, path).contains(what)
    }

    #[test]
    fn nothing_can_be_made_or_changed_in_the_tree() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let tree = at(&vfs, "tree").unwrap();
        let made = vfs.create(tree, OsStr::new("x.pgn"), 0o644, false, WRITE_NEW);
        assert_eq!(made.unwrap_err().kind(), ErrorKind::NotPermitted);
        let txt = at(&vfs, "tree/tree.txt").unwrap();
        assert_eq!(
            vfs.open(txt, crate::vfs::testing::WRITE)
                .unwrap_err()
                .kind(),
            ErrorKind::NotPermitted
        );
    }
}
