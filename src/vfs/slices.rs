//! Folders of games as slices of the database (docs/SEMANTICS.md §17): the root, each group
//! folder of a view (`players/NAME/`, `events/NAME/`, `years/Y/`, …) and, in the view of the
//! players of both sides, each player's games with one colour (`players/NAME/white/`,
//! `black/`: found by name, not listed, and listing their games as the player's folder does).
//! Each has `all.pgn` and the opening tree of its own games, `tree/` and `positions/FEN/`
//! (found by name, not listed), made by the same code as the root's over the folder's games
//! ([`Slice`]): a player's `white/tree/e4/c5/tree.txt` is SCID's board search ANDed with the
//! header search `-white NAME`.
//!
//! A header query's folder (`query/EXPR/`, `vfs/queries.rs`) is one too.
//!
//! A folder of games is named by a [`SliceId`], which the nodes inside it carry; its games are
//! taken from the view tables as they are now, so a save that moves a game between groups (its
//! White renamed) moves it between their trees at once.

use std::sync::Arc;

use super::inode::View;
use super::{DirEntry, Node, Vfs};
use crate::collection::positions::slice::Slice;
use crate::error::Result;

/// A colour: whose games a side folder holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The games the player had White in.
    White = 0,
    /// The games the player had Black in.
    Black = 1,
}

impl Side {
    /// Both colours.
    pub(crate) const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The name of its folder.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    /// The colour whose folder is called `name`.
    fn named(name: &[u8]) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| s.name().as_bytes() == name)
    }
}

/// A folder of games, whose games its tree is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceId {
    /// The root: every game.
    All,
    /// A group folder of a view (view, key).
    Group(View, u32),
    /// A group's games with one colour, in a view of the players of both sides.
    Side(View, u32, Side),
    /// The games of a header query (`query/EXPR/`), by its number in the mount's table of
    /// queries.
    Query(u32),
}

impl SliceId {
    /// The folder itself.
    pub(crate) fn folder(self) -> Node {
        match self {
            SliceId::All => Node::Root,
            SliceId::Group(v, key) => Node::Group(v, key),
            SliceId::Side(v, key, side) => Node::SideGroup(v, key, side),
            SliceId::Query(id) => Node::Query(id),
        }
    }

    /// The slice folder `node` is, if it is a folder of games.
    pub(crate) fn of_folder(node: Node) -> Option<SliceId> {
        match node {
            Node::Root => Some(SliceId::All),
            Node::Group(v, key) => Some(SliceId::Group(v, key)),
            Node::SideGroup(v, key, side) => Some(SliceId::Side(v, key, side)),
            Node::Query(id) => Some(SliceId::Query(id)),
            _ => None,
        }
    }
}

impl Vfs {
    /// The games of the folder of `slice` as they are now (none when it is gone).
    pub(super) fn slice_games(&self, slice: SliceId) -> Slice {
        let games = match slice {
            SliceId::All => return Slice::All,
            SliceId::Group(v, key) => self.view(v).items(key, None, &*self.coll),
            SliceId::Side(v, key, side) => self.side_games(v, key, side),
            SliceId::Query(id) => self.query_games(id),
        };
        Slice::of(games.unwrap_or_else(|| Arc::from([])))
    }

    /// The items of group `key` of view `v` where it is `side`'s, ascending; `None` when the
    /// view has no sides or no such group.
    pub(super) fn side_games(&self, v: View, key: u32, side: Side) -> Option<Arc<[u32]>> {
        if !self.has_sides(v) {
            return None;
        }
        self.view(v).items(key, Some(side), &*self.coll)
    }

    /// True when view `v` is one of the players of both sides (its groups have `white/` and
    /// `black/`).
    pub(super) fn has_sides(&self, v: View) -> bool {
        usize::from(v.0) < self.view_paths.len() && self.coll.view_has_sides(usize::from(v.0))
    }

    /// True when the folder of `slice` is there now.
    pub(super) fn slice_exists(&self, slice: SliceId) -> bool {
        match slice {
            SliceId::All => true,
            SliceId::Group(v, key) => {
                usize::from(v.0) < self.view_paths.len() && self.view(v).by_key(key).is_some()
            }
            SliceId::Side(v, key, _) => self.has_sides(v) && self.view(v).by_key(key).is_some(),
            SliceId::Query(id) => self.queries.get(id).is_some(),
        }
    }

    /// Path components from the mount's root to the folder of `slice`.
    pub(super) fn slice_depth(&self, slice: SliceId) -> u32 {
        let view_depth = |v: View| self.view_paths[usize::from(v.0)].split('/').count() as u32;
        match slice {
            SliceId::All => 0,
            SliceId::Group(v, _) => view_depth(v) + 1,
            SliceId::Side(v, ..) => view_depth(v) + 2,
            SliceId::Query(_) => 2,
        }
    }

    /// The entry `name` found by name (never listed) in the folder of games of `slice`:
    /// `tree` and `positions` (a mount of chess games) and, in a group folder of a view of
    /// the players of both sides, `white` and `black`.
    pub(super) fn slice_child(&self, slice: SliceId, name: &[u8]) -> Result<Option<Node>> {
        if let SliceId::Group(v, key) = slice
            && let Some(side) = Side::named(name)
            && self.has_sides(v)
        {
            return Ok(Some(Node::SideGroup(v, key, side)));
        }
        self.slice_positions_child(slice, name)
    }

    /// The link `name` in side folder (`v`, `key`, `side`).
    pub(super) fn side_child(&self, v: View, key: u32, side: Side, name: &[u8]) -> Option<Node> {
        let n = self.coll.item_named(name)?;
        let games = self.side_games(v, key, side)?;
        games
            .binary_search(&n)
            .is_ok()
            .then_some(Node::SideLink(v, key, side, n))
    }

    /// Hand the links to `games` (as `link` makes each's node) after position `from` to
    /// `add`; whether `add` said it was full.
    pub(super) fn list_links(
        &self,
        games: &[u32],
        from: u64,
        link: impl Fn(u32) -> Node,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> bool {
        games
            .iter()
            .enumerate()
            .skip(usize::try_from(from).unwrap_or(usize::MAX))
            .any(|(i, &n)| add(self.entry(link(n), self.game_name(n).into(), i as u64 + 3)))
    }

    /// The target of a link to game `n` in a folder `level` path components below the
    /// mount's root: a relative path into the mount's `games/`.
    pub(super) fn link_to_game(&self, level: u32, n: u32) -> Vec<u8> {
        let up = "../".repeat(level as usize);
        format!("{up}{}/{}", self.coll.items_folder(), self.game_name(n)).into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::vfs::testing::{CALLER, WRITE_NEW, at, game_names, names, text, tree_of};

    const GAMES: &str = concat!(
        "[Event \"E1\"]\n[Date \"2001.01.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n",
        "1. e4 e5 2. Nf3 Nc6 1-0\n\n",
        "[Event \"E1\"]\n[Date \"2002.01.01\"]\n[White \"c\"]\n[Black \"a\"]\n[Result \"0-1\"]\n\n",
        "1. e4 c5 0-1\n\n",
        "[Event \"E2\"]\n[Date \"2001.01.01\"]\n[White \"a\"]\n[Black \"d\"]\n[Result \"1/2-1/2\"]\n\n",
        "1. d4 d5 1/2-1/2\n\n",
        "[Event \"E2\"]\n[Date \"2002.01.01\"]\n[White \"b\"]\n[Black \"c\"]\n[Result \"1-0\"]\n\n",
        "1. e4 e5 2. Nf3 Nf6 1-0\n",
    );

    #[test]
    fn every_folder_of_games_has_the_tree_of_its_own_games_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        // Found by name, not listed: the player's folder lists its games only.
        assert_eq!(names(&vfs, "players/a"), game_names(&vfs, &[0, 1, 2]));
        assert_eq!(
            names(&vfs, "players/a/tree"),
            ["games", "tree.txt", "position.fen", "e4", "d4"]
        );
        assert_eq!(
            names(&vfs, "players/a/tree/games"),
            game_names(&vfs, &[0, 1, 2])
        );
        // Each colour apart, each with its games, its tree and its all.pgn.
        assert_eq!(names(&vfs, "players/a/white"), game_names(&vfs, &[0, 2]));
        assert_eq!(names(&vfs, "players/a/black"), game_names(&vfs, &[1]));
        assert_eq!(
            names(&vfs, "players/a/white/tree"),
            ["games", "tree.txt", "position.fen", "d4", "e4"]
        );
        assert_eq!(
            names(&vfs, "players/a/black/tree/e4"),
            ["games", "tree.txt", "position.fen", "c5"]
        );
        let white = text(&vfs, "players/a/white/tree/tree.txt");
        assert!(
            white.contains("TOTAL:                 2:100.0%   75.0%"),
            "{white}"
        );
        let all = at(&vfs, "players/a/white/all.pgn").unwrap();
        let want: Vec<u8> = [0, 2]
            .iter()
            .flat_map(|&n| vfs.text(n).unwrap().to_vec())
            .collect();
        assert_eq!(vfs.read(all, 0, 1 << 20).unwrap(), want);
        // Its games lead to the games, from six folders down.
        let link = at(&vfs, "players/a/white/tree/e4/games/0001.pgn").unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(link).unwrap()).unwrap(),
            format!("../../../../../../games/{}", vfs.game_name(0))
        );
        let link = at(&vfs, "players/a/white/0001.pgn").unwrap();
        assert_eq!(
            String::from_utf8(vfs.readlink(link).unwrap()).unwrap(),
            format!("../../../games/{}", vfs.game_name(0))
        );
        // A move that leads where other games go, but none of the slice's: not there.
        assert_eq!(
            at(&vfs, "players/a/black/tree/e4/e5").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        assert!(at(&vfs, "players/a/white/white").is_err());
        // Events and years alike.
        assert_eq!(
            names(&vfs, "events/E1/tree/e4"),
            ["games", "tree.txt", "position.fen", "c5", "e5"]
        );
        assert_eq!(
            names(&vfs, "years/2002/tree/e4/e5/Nf3/games"),
            game_names(&vfs, &[3])
        );
        assert!(
            at(&vfs, "events/E1/white").is_err(),
            "only players have sides"
        );
        // positions/FEN among the folder's games only.
        let fen = "positions/rnbqkbnr:pppp1ppp:8:4p3:4P3:8:PPPP1PPP:RNBQKBNR_w_KQkq_-_0_2";
        assert_eq!(names(&vfs, &format!("{fen}/games")).len(), 2);
        assert_eq!(
            names(&vfs, &format!("players/a/{fen}/games")),
            game_names(&vfs, &[0])
        );
        assert!(names(&vfs, &format!("players/a/black/{fen}/games")).is_empty());
        let link = at(&vfs, &format!("players/a/black/{fen}")).unwrap();
        assert_eq!(
            vfs.lookup(link, std::ffi::OsStr::new("..")).unwrap().ino,
            at(&vfs, "players/a/black/positions").unwrap()
        );
    }

    #[test]
    fn a_save_moves_a_game_between_the_trees_of_its_players_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let tree = at(&vfs, "players/a/white/tree").unwrap();
        assert_eq!(names(&vfs, "players/a/white/tree/d4/games").len(), 1);
        let e = "[White \"e\"]\n[Black \"d\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n";
        let ino = Node::Game(2).ino();
        let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
        vfs.write(ino, fh, 0, e.as_bytes(), CALLER).unwrap();
        vfs.flush(ino, fh, CALLER).unwrap();
        vfs.release(ino, fh);
        assert_eq!(
            at(&vfs, "players/a/white/tree/d4").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        assert_eq!(names(&vfs, "players/a/white"), game_names(&vfs, &[0]));
        assert_eq!(
            names(&vfs, "players/e/white/tree/d4/games"),
            game_names(&vfs, &[2])
        );
        assert!(names(&vfs, "players/e/black").is_empty());
        // The same folder keeps its number.
        assert_eq!(at(&vfs, "players/a/white/tree").unwrap(), tree);
    }
}
