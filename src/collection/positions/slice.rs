//! The games a tree is made of: every game of the index (the mount's `tree/`), or a slice of
//! them, a sorted set of game numbers (a player's, an event's, a player's as White), whose
//! tree's counts and statistics are SCID's board search ANDed with the matching header search
//! (docs/SEMANTICS.md §17). A slice's tree is found through the index's query API
//! ([`PositionIndex::reach_among`]), the games outside the slice left out before their records
//! are read: the index is one for the whole database, whatever folder its tree is looked at
//! from, and keeps no sums for a slice.

use std::sync::Arc;

use super::board::Board;
use super::table::MoveStats;
use super::{PositionIndex, Reach, sums_of};
use crate::collection::Collection;

/// The games a tree counts (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Slice {
    /// Every game of the index.
    #[default]
    All,
    /// These games only, ascending.
    Only(Arc<[u32]>),
}

impl Slice {
    /// The slice of `games`, which must be ascending (a view's group holds them so).
    pub fn of(games: impl Into<Arc<[u32]>>) -> Slice {
        let games = games.into();
        debug_assert!(games.is_sorted(), "a slice's games are ascending");
        Slice::Only(games)
    }

    /// The games of the slice (of `coll`, found with its `index`) that reach position
    /// `board`, ascending, each with the move it plays there.
    pub fn reach(&self, index: &PositionIndex, coll: &dyn Collection, board: &Board) -> Vec<Reach> {
        match self {
            Slice::All => index.reach(coll, board),
            Slice::Only(games) => index.reach_among(coll, board, games),
        }
    }

    /// The sums of the slice's games that reach position `board` for each move they play
    /// there, by move code (in no order), and those games (ascending) when finding the sums
    /// found them: a slice's are found on the way; every game's sums are read from the sums
    /// the index keeps, without its games ([`PositionIndex::moves_at`]).
    pub fn moves_at(
        &self,
        index: &PositionIndex,
        coll: &dyn Collection,
        board: &Board,
    ) -> (Vec<(u16, MoveStats)>, Option<Vec<u32>>) {
        match self {
            Slice::All => (index.moves_at(coll, board), None),
            Slice::Only(_) => {
                let reach = self.reach(index, coll, board);
                (
                    sums_of(&reach),
                    Some(reach.iter().map(|r| r.game).collect()),
                )
            }
        }
    }

    /// The games of the slice that reach position `board`, ascending.
    pub fn games_at(
        &self,
        index: &PositionIndex,
        coll: &dyn Collection,
        board: &Board,
    ) -> Vec<u32> {
        match self {
            Slice::All => index.games_at(coll, board),
            Slice::Only(_) => self
                .reach(index, coll, board)
                .iter()
                .map(|r| r.game)
                .collect(),
        }
    }

    /// True when a game of the slice reaches position `board`.
    pub fn reaches(&self, index: &PositionIndex, coll: &dyn Collection, board: &Board) -> bool {
        match self {
            Slice::All => !index.moves_at(coll, board).is_empty(),
            Slice::Only(_) => !self.reach(index, coll, board).is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::collection::chess::ChessCollection;

    #[test]
    fn a_slice_finds_what_every_games_reach_finds_among_its_games() {
        let dir = tempfile::tempdir().unwrap();
        let base = crate::testing::demo_db(dir.path());
        let coll = ChessCollection::new(crate::store::open(&base, true).unwrap());
        let index = PositionIndex::new(Some(dir.path().join("positions")));
        index.load_or_build(&coll, 2, &AtomicBool::new(false));
        let start = Board::start();
        let every = index.reach(&coll, &start);
        let odd: Vec<u32> = (0..coll.count()).filter(|n| n % 2 == 1).collect();
        // A game saved since the index was built counts as it is now (the overlay).
        coll.save(
            odd[0],
            b"[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n",
        )
        .unwrap();
        index.update(&coll, odd[0]);
        let now = index.reach(&coll, &start);
        assert_ne!(now, every, "the save changed a move at the start");
        let slice = Slice::of(odd.clone());
        let want: Vec<Reach> = now.into_iter().filter(|r| r.game % 2 == 1).collect();
        assert!(!want.is_empty());
        assert_eq!(slice.reach(&index, &coll, &start), want);
        assert_eq!(
            slice.games_at(&index, &coll, &start),
            want.iter().map(|r| r.game).collect::<Vec<_>>()
        );
        let (sums, games) = slice.moves_at(&index, &coll, &start);
        assert_eq!(sums, sums_of(&want));
        assert_eq!(games.unwrap().len(), want.len());
        assert!(slice.reaches(&index, &coll, &start));
        assert!(!Slice::of(Vec::new()).reaches(&index, &coll, &start));
    }
}
