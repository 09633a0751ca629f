//! Header queries as folders (docs/SEMANTICS.md §19): `query/EXPR/` at the mount's root,
//! found by name and never listed (nor is `query/`), holds the games whose headers meet
//! `EXPR` (`collection::query`): `games/` (links to them, as every folder of games lists its
//! games), `count` (how many, a number and a newline), and, found by name as in every folder
//! of games (`vfs/slices.rs`), `all.pgn` and the opening tree of those games, `tree/` and
//! `positions/FEN/`. A query that does not parse is ENOENT, with a log line naming the
//! condition and what was expected there.
//!
//! Each query text looked up is given a number, kept for the mount (its nodes carry it, as
//! position folders carry theirs), and its games are found once while the database is
//! unchanged (for the 32 queries looked at last): a save, an import or another program's
//! change forgets them, so a game moves in or out of a query at once.
//!
//! A condition on the endings a game passes through (`material=KRPvKR`) is the position
//! index's to answer: such a query folder is there once the index is (waited for while it is
//! built, as `tree/` is), its header conditions answered by the collection and its endings
//! by the index. `endings/` links to these folders (`vfs/endings.rs`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::found::{Finder, FoundSlot};
use super::{DirEntry, Node, Vfs, lock};
use crate::collection::positions::stamp_of;
use crate::collection::query::{HeaderIndex, Query};
use crate::error::{Error, ErrorKind, Result};

/// One query of the table: its text, as parsed, and its games when known.
#[derive(Debug)]
pub(super) struct Entry {
    query: Query,
    games: Mutex<Option<Arc<[u32]>>>,
}

/// The queries looked up during the mount, numbered in that order.
#[derive(Debug, Default)]
pub(super) struct Queries {
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    by_text: HashMap<String, u32>,
    entries: Vec<Arc<Entry>>,
    /// The queries whose games are kept, the one found last at the back.
    kept: VecDeque<u32>,
}

/// The most queries a mount numbers (a link's number holds 24 bits of it).
const MAX_QUERIES: usize = 1 << 24;

/// The most queries whose games are kept at once (4 bytes a game each): the games of the
/// one looked at longest ago are found again when it is next looked at.
const KEPT_GAMES: usize = 32;

impl Entry {
    /// The query's conditions on endings ([`Query::materials`]).
    pub(super) fn materials(&self) -> Vec<(bool, Vec<u32>)> {
        self.query.materials()
    }
}

impl Queries {
    /// Query number `id`, if it was looked up.
    pub(super) fn get(&self, id: u32) -> Option<Arc<Entry>> {
        lock(&self.table).entries.get(id as usize).cloned()
    }

    /// The number of query `text`, given it if new.
    fn number(&self, text: &str, query: Query) -> Result<u32> {
        let mut table = lock(&self.table);
        if let Some(&id) = table.by_text.get(text) {
            return Ok(id);
        }
        if table.entries.len() >= MAX_QUERIES {
            return Err(Error::new(
                ErrorKind::NotFound,
                "query/: too many queries for one mount",
            ));
        }
        let id = table.entries.len() as u32;
        table.entries.push(Arc::new(Entry {
            query,
            games: Mutex::new(None),
        }));
        table.by_text.insert(text.to_owned(), id);
        Ok(id)
    }

    /// Forget every query's games (the database changed).
    pub(super) fn forget_games(&self) {
        let mut table = lock(&self.table);
        for id in std::mem::take(&mut table.kept) {
            *lock(&table.entries[id as usize].games) = None;
        }
    }

    /// Note that query `id`'s games are kept now, forgetting those of the query looked at
    /// longest ago past [`KEPT_GAMES`].
    fn kept(&self, id: u32) {
        let mut table = lock(&self.table);
        table.kept.retain(|&k| k != id);
        table.kept.push_back(id);
        while table.kept.len() > KEPT_GAMES {
            if let Some(old) = table.kept.pop_front() {
                *lock(&table.entries[old as usize].games) = None;
            }
        }
    }

    /// The nodes whose listing or contents follow the games of the queries.
    pub(super) fn nodes(&self) -> Vec<Node> {
        let count = lock(&self.table).entries.len() as u32;
        (0..count)
            .flat_map(|id| {
                [
                    Node::Query(id),
                    Node::QueryGames(id),
                    Node::QueryCount(id),
                    Node::AllOfQuery(id),
                    Node::QueryEntries(id),
                ]
            })
            .collect()
    }
}

impl Vfs {
    /// True when the mount's items can be searched by their headers (chess games).
    pub(super) fn has_queries(&self) -> bool {
        self.coll.has_positions()
    }

    /// The folder `query/NAME`: the query NAME reads as (ENOENT, logged, when it does not).
    pub(super) fn query_named(&self, name: &[u8]) -> Result<Option<Node>> {
        let text = String::from_utf8_lossy(name);
        match Query::parse(&text) {
            Ok(query) => {
                if !query.materials().is_empty() {
                    // Endings are the position index's: there once it is.
                    let positions = self.positions.as_ref().ok_or_else(|| {
                        Error::new(
                            ErrorKind::NotFound,
                            format!("query/{text}: no position index, so no endings"),
                        )
                    })?;
                    positions.ready_index()?;
                }
                Ok(Some(Node::Query(self.queries.number(&text, query)?)))
            }
            Err(e) => {
                log::warn!("query/{text}: not a query: {e}");
                Err(Error::new(
                    ErrorKind::NotFound,
                    format!("query/{text}: not a query: {e}"),
                ))
            }
        }
    }

    /// The header index of the games as they are, found now if it is not known (none for a
    /// collection without one: its queries scan). The background thread calls it once the
    /// position index is ready.
    pub(super) fn header_index(&self) -> Option<Arc<HeaderIndex>> {
        let kept_at = self.kept_beside_index(crate::store::cache_folder::HEADERS);
        find_header_index(&self.headers, &*self.coll, kept_at)
    }

    /// Look up [`WARM_UP_QUERY`]'s folder and its games once, as a user's first query does,
    /// so that the code of query folders (the table of query texts, the evaluation) is in
    /// the mount's memory before a user asks; the header index's own warm-up ([`warm_up`])
    /// covers the index's code only. At a million games, the first `query/…/count` after
    /// `drop_caches` faulted pages of it from disk, some milliseconds each.
    pub(super) fn warm_query_folders(&self) {
        if let Ok(Some(Node::Query(id))) = self.query_named(WARM_UP_QUERY.as_bytes()) {
            let _ = self.query_games(id);
        }
    }

    /// The header index a query reads: the one known, or kept for the files as they are;
    /// else `None` (the query scans) while it is found on a thread of its own, so that a
    /// query after a save answers at the speed of a scan, not of the index's making.
    fn header_index_for_query(&self) -> Option<Arc<HeaderIndex>> {
        if let Some(index) = self.headers.known() {
            return Some(index);
        }
        let kept_at = self.kept_beside_index(crate::store::cache_folder::HEADERS);
        let known = with_header_finder(&*self.coll, kept_at.clone(), false, |finder| {
            self.headers.known_or_kept(finder)
        });
        // Only one chess database has one (as it has twins): a folder of them scans.
        if known.is_none() && self.coll.has_twins() && self.headers.claim_background() {
            let (slot, coll) = (self.headers.clone(), self.coll.clone());
            let spawned = std::thread::Builder::new()
                .name("gamefs-headers".into())
                .spawn(move || {
                    find_header_index(&slot, &*coll, kept_at);
                    // The database let go of before saying so.
                    drop(coll);
                    slot.background_done();
                });
            if let Err(e) = spawned {
                self.headers.background_done();
                log::warn!("header index: cannot start finding it: {e}");
            }
        }
        known
    }

    /// Games `numbers` were saved, marked deleted or undeleted, or added through the mount:
    /// the header index goes on answering for every other game, and a query checks these one
    /// by one ([`crate::collection::query`]'s evaluation), so that a save leaves no time in
    /// which a query scans every game while the index is made again. Past
    /// [`MOST_HEADER_CHANGES`] games (an import), the index is let go of and found again.
    pub(super) fn headers_changed(&self, numbers: &[u32]) {
        let mut changed = lock(&self.header_changes);
        changed.extend_from_slice(numbers);
        changed.sort_unstable();
        changed.dedup();
        if changed.len() > MOST_HEADER_CHANGES {
            changed.clear();
            self.headers.reset();
        }
    }

    /// Let go of the header index and the changes over it: the games may all have changed
    /// (another program wrote the database).
    pub(super) fn forget_header_index(&self) {
        let mut changed = lock(&self.header_changes);
        changed.clear();
        self.headers.reset();
    }

    /// The `.gamefs/stats` lines of the header index: its size, once it is known.
    pub(super) fn header_index_stats(&self) -> String {
        match self.headers.known() {
            Some(index) => format!(
                "header_index: ready\nheader_index_bytes: {}\nheader_index_bytes_per_game: {}\n",
                index.bytes(),
                index.bytes() as u64 / u64::from(index.game_count().max(1))
            ),
            None => String::new(),
        }
    }

    /// The games of query `id` as the database is now, ascending (`None` when there is no
    /// such query, or it names endings and the position index is not ready).
    pub(super) fn query_games(&self, id: u32) -> Option<Arc<[u32]>> {
        let entry = self.queries.get(id)?;
        if let Some(g) = &*lock(&entry.games) {
            return Some(g.clone());
        }
        let index = self.header_index_for_query();
        let changed = lock(&self.header_changes).clone();
        let mut found = self
            .coll
            .query(&entry.query, index.as_deref(), &changed)
            .unwrap_or_default();
        let materials = entry.query.materials();
        if let (false, Some(positions)) = (materials.is_empty(), &self.positions) {
            // Waited for, as when the folder was found (`query_named`): an index built again
            // after another program's change may not be ready yet.
            let index = positions
                .ready_index()
                .map_err(|e| log::warn!("query folder {id}: {e}"))
                .ok()?;
            for (negated, codes) in materials {
                let passing = index.ending_games(&codes);
                found.retain(|n| passing.binary_search(n).is_ok() != negated);
            }
        }
        let found: Arc<[u32]> = Arc::from(found);
        *lock(&entry.games) = Some(found.clone());
        self.queries.kept(id);
        Some(found)
    }

    /// The entry `name` of query folder `id` (`all.pgn`, `tree` and `positions` are found
    /// as in every folder of games).
    pub(super) fn query_child(&self, id: u32, name: &[u8]) -> Option<Node> {
        match name {
            b"games" => Some(Node::QueryGames(id)),
            b"count" => Some(Node::QueryCount(id)),
            b"entries" => self.entry_codes(id).map(|_| Node::QueryEntries(id)),
            _ => None,
        }
    }

    /// The link `name` in query folder `id`'s `games/`.
    pub(super) fn query_link(&self, id: u32, name: &[u8]) -> Option<Node> {
        let n = self.coll.item_named(name)?;
        self.query_has(id, n).then_some(Node::QueryLink(id, n))
    }

    /// True when game `n` is among query `id`'s.
    pub(super) fn query_has(&self, id: u32, n: u32) -> bool {
        self.query_games(id)
            .is_some_and(|games| games.binary_search(&n).is_ok())
    }

    /// The text of a query folder's `count`.
    pub(super) fn query_count_text(&self, id: u32) -> Vec<u8> {
        let count = self.query_games(id).map_or(0, |g| g.len());
        format!("{count}\n").into_bytes()
    }

    /// Hand the entries of query folder `node` (the folder, its `games/` or `entries/`) after position
    /// `from` to `add`; whether `add` said it was full.
    pub(super) fn list_query(
        &self,
        node: Node,
        from: u64,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> bool {
        match node {
            Node::Query(id) => [
                (Node::QueryGames(id), "games"),
                (Node::QueryCount(id), "count"),
            ]
            .into_iter()
            .chain(
                self.entry_codes(id)
                    .map(|_| (Node::QueryEntries(id), "entries")),
            )
            .enumerate()
            .skip(from as usize)
            .any(|(i, (n, name))| add(self.entry(n, name.into(), i as u64 + 3))),
            Node::QueryGames(id) => self.query_games(id).is_some_and(|games| {
                self.list_links(&games, from, |n| Node::QueryLink(id, n), add)
            }),
            Node::QueryEntries(id) => self.list_entries(id, from, add),
            _ => false,
        }
    }
}

/// Call `f` with the finder of the header index of `coll`, kept at `kept_at`; one that
/// `holds` reads a kept index whole into memory and answers [`WARM_UP_QUERY`] from it
/// before it is known ([`HeaderIndex::hold`], [`warm_up`]: the background's finder, not a
/// query's, which would wait for the read), so that no query finds it known but cold.
fn with_header_finder<R>(
    coll: &dyn crate::collection::Collection,
    kept_at: Option<std::path::PathBuf>,
    holds: bool,
    f: impl FnOnce(&Finder<'_, HeaderIndex>) -> R,
) -> R {
    let warmed = |index: &HeaderIndex| warm_up(coll, index);
    let open_held = |path: &std::path::Path, stamp| {
        HeaderIndex::open(path, stamp)
            .inspect(HeaderIndex::hold)
            .inspect(warmed)
    };
    let find_warmed = |stamp| coll.header_index(stamp).inspect(warmed);
    let find_cold = |stamp| coll.header_index(stamp);
    f(&Finder {
        kept_at,
        stamp: &|| stamp_of(&coll.info().files),
        open: if holds {
            &open_held
        } else {
            &HeaderIndex::open
        },
        find: if holds { &find_warmed } else { &find_cold },
        keep: &|index, path, _| index.write(path),
        serve_kept: true,
    })
}

/// The header index of `coll` in `slot`, found now if it is not known (and logged).
fn find_header_index(
    slot: &FoundSlot<HeaderIndex>,
    coll: &dyn crate::collection::Collection,
    kept_at: Option<std::path::PathBuf>,
) -> Option<Arc<HeaderIndex>> {
    if let Some(index) = slot.known() {
        return Some(index);
    }
    let started = std::time::Instant::now();
    let index = with_header_finder(coll, kept_at, true, |finder| slot.get(finder))?;
    log::info!(
        "header index: {} games, {} bytes, ready in {:.3} s",
        index.game_count(),
        index.bytes(),
        started.elapsed().as_secs_f64()
    );
    Some(index)
}

/// The most games changed through a mount over which the header index goes on answering
/// ([`Vfs::headers_changed`]): each is checked on its own by every query (some 65,000 game
/// summaries, milliseconds), where an import of more has the index made again.
const MOST_HEADER_CHANGES: usize = 1 << 16;

/// A query of the kinds users ask most (a name, a range of years and of ECO codes, a
/// result), all of which every store's header index answers, so that answering it reads no
/// game. Its names are of several letters, as people's are: a search for one byte runs
/// other code than a search for more (`memchr`'s), and one letter left the code of a
/// name's search to fault in at the user's first query.
const WARM_UP_QUERY: &str = "player=an,event=open,site=ch,year=2000-,eco=A00-E99,result=1-0";

/// Answer [`WARM_UP_QUERY`] once from `index`, in the background before the index is
/// known ([`with_header_finder`]), and forget the answer:
/// the code that answers queries is then in the mount's memory, as the held index is
/// ([`HeaderIndex::hold`]), so the first query a user asks after the page cache was dropped
/// reads nothing from disk (each page of code read back cold costs milliseconds, more than
/// the answer).
fn warm_up(coll: &dyn crate::collection::Collection, index: &HeaderIndex) {
    if let Ok(query) = Query::parse(WARM_UP_QUERY) {
        let _ = coll.query(&query, Some(index), &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::vfs::testing::{
        CALLER, WRITE_NEW, at, game_names, names, reopen_tree, text, tree_of,
    };

    /// Save `pgn` as game `n`, as an editor does (open truncating, write, close).
    fn save(vfs: &Vfs, n: u32, pgn: &str) {
        let ino = Node::Game(n).ino();
        let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
        vfs.write(ino, fh, 0, pgn.as_bytes(), CALLER).unwrap();
        vfs.flush(ino, fh, CALLER).unwrap();
        vfs.release(ino, fh);
    }

    const GAMES: &str = concat!(
        "[Event \"Open\"]\n[Date \"2001.01.01\"]\n[White \"Carlsen, Magnus\"]\n",
        "[Black \"Anand, Viswanathan\"]\n[Result \"1-0\"]\n[WhiteElo \"2850\"]\n",
        "[BlackElo \"2780\"]\n[ECO \"C50\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0\n\n",
        "[Event \"Blitz\"]\n[Date \"2002.05.01\"]\n[White \"Anand, Viswanathan\"]\n",
        "[Black \"Carlsen, Magnus\"]\n[Result \"0-1\"]\n[WhiteElo \"2790\"]\n",
        "[BlackElo \"2860\"]\n[ECO \"B90\"]\n\n1. e4 c5 0-1\n\n",
        "[Event \"Open\"]\n[Date \"2002.01.01\"]\n[White \"Kramnik, Vladimir\"]\n",
        "[Black \"Anand, Viswanathan\"]\n[Result \"1/2-1/2\"]\n[WhiteElo \"2750\"]\n\n",
        "1. d4 d5 1/2-1/2\n",
    );

    #[test]
    fn a_query_folder_has_its_games_their_count_all_pgn_and_tree() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let q = "query/player=carlsen,elo=2780-";
        assert_eq!(names(&vfs, q), ["games", "count"]);
        assert_eq!(
            names(&vfs, &format!("{q}/games")),
            game_names(&vfs, &[0, 1])
        );
        assert_eq!(text(&vfs, &format!("{q}/count")), "2\n");
        let all = at(&vfs, &format!("{q}/all.pgn")).unwrap();
        let want: Vec<u8> = [0, 1]
            .iter()
            .flat_map(|&n| vfs.text(n).unwrap().to_vec())
            .collect();
        assert_eq!(vfs.read(all, 0, 1 << 20).unwrap(), want);
        assert_eq!(
            names(&vfs, &format!("{q}/tree/e4")),
            ["games", "tree.txt", "position.fen", "c5", "e5"]
        );
        let link = at(&vfs, &format!("{q}/games/0002.pgn")).unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(link).unwrap()).unwrap(),
            format!("../../../games/{}", vfs.game_name(1))
        );
        let tree_link = at(&vfs, &format!("{q}/tree/e4/games/0001.pgn")).unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(tree_link).unwrap()).unwrap(),
            format!("../../../../../games/{}", vfs.game_name(0))
        );
        // Or between values of a field, not, ranges, exact names.
        let count = |q: &str| text(&vfs, &format!("query/{q}/count"));
        assert_eq!(count("result=1-0+draw"), "2\n");
        assert_eq!(count("event!=blitz"), "2\n");
        assert_eq!(count("white==Carlsen%2C%20Magnus"), "1\n");
        assert_eq!(count("white==carlsen%2C%20magnus"), "0\n");
        assert_eq!(count("black=carlsen%2Cmagnus"), "1\n");
        assert_eq!(count("eco=B90-C50"), "2\n");
        assert_eq!(count("year=2002"), "2\n");
        assert_eq!(count("moves=-1"), "2\n");
        assert_eq!(count("belo=-0"), "1\n");
        assert_eq!(count("anyelo=2850-"), "2\n");
        // Never listed, and a query that does not parse is not there.
        assert!(!names(&vfs, "").contains(&"query".to_owned()));
        assert_eq!(
            at(&vfs, "query/elo=high").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        // The same text is the same folder.
        assert_eq!(at(&vfs, q).unwrap(), at(&vfs, q).unwrap());
        // Nothing can be made or written there.
        let folder = at(&vfs, q).unwrap();
        let made = vfs.create(
            folder,
            std::ffi::OsStr::new("x.pgn"),
            0o644,
            false,
            WRITE_NEW,
        );
        assert_eq!(made.unwrap_err().kind(), ErrorKind::NotPermitted);
        let count = at(&vfs, &format!("{q}/count")).unwrap();
        assert_eq!(
            vfs.open(count, WRITE_NEW).unwrap_err().kind(),
            ErrorKind::PermissionDenied
        );
        // find may trust the link counts: the folder has one folder, `query/` unknown ones.
        assert_eq!(vfs.getattr(folder).unwrap().nlink, 3);
        assert_eq!(vfs.getattr(at(&vfs, "query").unwrap()).unwrap().nlink, 1);
    }

    #[test]
    fn the_games_of_the_queries_looked_at_last_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        for elo in 0..=KEPT_GAMES as u32 {
            assert_eq!(text(&vfs, &format!("query/welo={elo}-/count")), "3\n");
        }
        let table = lock(&vfs.queries.table);
        assert_eq!(table.kept.len(), KEPT_GAMES);
        assert!(lock(&table.entries[0].games).is_none());
        assert!(lock(&table.entries[KEPT_GAMES].games).is_some());
    }

    #[test]
    fn a_save_moves_a_game_in_and_out_of_a_query_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let q = "query/white=kramnik";
        assert_eq!(names(&vfs, &format!("{q}/games")), game_names(&vfs, &[2]));
        assert_eq!(names(&vfs, &format!("{q}/tree")).len(), 4);
        let save = |n: u32, pgn: &str| save(&vfs, n, pgn);
        // Game 1 gets Kramnik as White: in; game 3 loses him: out.
        save(
            0,
            "[White \"Kramnik, V\"]\n[Black \"x\"]\n[Result \"1-0\"]\n\n1. c4 e5 1-0\n",
        );
        save(
            2,
            "[White \"y\"]\n[Black \"Kramnik, V\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n",
        );
        assert_eq!(names(&vfs, &format!("{q}/games")), game_names(&vfs, &[0]));
        assert_eq!(text(&vfs, &format!("{q}/count")), "1\n");
        assert_eq!(
            names(&vfs, &format!("{q}/tree")),
            ["games", "tree.txt", "position.fen", "c4"]
        );
        assert_eq!(text(&vfs, "query/player=kramnik/count"), "2\n");
        // A game marked deleted leaves every query.
        vfs.unlink(Node::Games.ino(), std::ffi::OsStr::new(&vfs.game_name(0)))
            .unwrap();
        assert_eq!(text(&vfs, &format!("{q}/count")), "0\n");
    }

    #[test]
    fn the_header_index_is_kept_for_the_next_mount_and_goes_on_answering_over_a_save() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let kept = vfs
            .kept_beside_index(crate::store::cache_folder::HEADERS)
            .unwrap();
        let q = "query/white=kramnik/count";
        // The first query scans while the index is found on a thread of its own.
        assert_eq!(text(&vfs, q), "1\n");
        let index = vfs.header_index().expect("found");
        assert!(kept.is_file());
        assert!(vfs.stats_text().contains("header_index: ready\n"));
        // A save keeps it: it answers for the other games, the game saved is checked alone.
        save(
            &vfs,
            0,
            "[White \"Kramnik, V\"]\n[Black \"x\"]\n[Result \"1-0\"]\n\n1. c4 e5 1-0\n",
        );
        assert!(vfs.stats_text().contains("header_index: ready\n"));
        assert_eq!(text(&vfs, q), "2\n");
        assert_eq!(text(&vfs, "query/white=kramnik,year=-2047/count"), "2\n");
        assert!(Arc::ptr_eq(&vfs.headers.known().unwrap(), &index));
        // The thread that found it lets go of the database before the next mount opens it.
        while vfs.headers.in_background() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        drop((vfs, index));
        // The next mount, of files changed since it was kept, makes it again, and keeps it.
        let vfs = reopen_tree(dir.path(), 40);
        assert_eq!(text(&vfs, q), "2\n");
        vfs.header_index().expect("found again");
        while vfs.headers.in_background() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        drop(vfs);
        // The next mount of the same files maps what was kept: it is not made again.
        let made = std::fs::metadata(&kept).unwrap().modified().unwrap();
        let vfs = reopen_tree(dir.path(), 40);
        assert_eq!(text(&vfs, q), "2\n");
        assert_eq!(std::fs::metadata(&kept).unwrap().modified().unwrap(), made);
    }
}
