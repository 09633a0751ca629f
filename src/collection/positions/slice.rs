//! The games a tree is made of: every game of the index (the mount's `tree/`), or a slice of
//! them, a sorted set of game numbers (a player's, an event's, a player's as White), whose
//! tree's counts and statistics are SCID's board search ANDed with the matching header search
//! (docs/SEMANTICS.md §17). A slice's tree is found through the index's query API alone
//! ([`PositionIndex::reach`]), the games outside the slice left out: the index is one for the
//! whole database, whatever folder its tree is looked at from.

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
        let mut reach = index.reach(coll, board);
        if let Slice::Only(games) = self {
            keep_among(&mut reach, games);
        }
        reach
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

/// Keep of `reach` (games ascending) the games of `games` (ascending), walking both once:
/// a position a million games reach is sifted for a player's few thousand in one pass.
fn keep_among(reach: &mut Vec<Reach>, games: &[u32]) {
    let mut i = 0;
    reach.retain(|r| {
        while i < games.len() && games[i] < r.game {
            i += 1;
        }
        games.get(i) == Some(&r.game)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::positions::line::GameStats;

    #[test]
    fn a_slice_keeps_its_own_games_in_order() {
        let mut reach: Vec<Reach> = [1, 2, 5, 7, 9, 12]
            .map(|game| Reach {
                game,
                next: 0,
                stats: GameStats::default(),
            })
            .to_vec();
        keep_among(&mut reach, &[0, 2, 3, 9, 12, 40]);
        let games: Vec<u32> = reach.iter().map(|r| r.game).collect();
        assert_eq!(games, [2, 9, 12]);
        keep_among(&mut reach, &[]);
        assert!(reach.is_empty());
    }
}
