//! Where the games of an ending enter it (docs/guide/searching.md): a query folder naming one
//! ending (`query/material=KRPvKR/`, `query/pieces=KRvKR/`, the folders `endings/` links to)
//! has `entries/`, a file per game named after the game's (`0132 Szamoskozi,G - Ilincic,Z
//! 2012.fen`) holding the FEN of the first position of its main line with that material, and
//! a newline: the position SCID's material search shows a game it found at. So `cat
//! entries/*.fen` is every game's entry, one per line, for an engine or a trainer. Files, not
//! a folder per game: a position is one line, and a folder per game would add a level to
//! every path for nothing more.
//!
//! Each file is made when read, by replaying its game (the position index keeps which
//! endings a game passes through, not where); it follows every save as the folder's games do.

use super::{DirEntry, Node, Vfs};
use crate::error::{Error, ErrorKind, Result};

/// The extension of an entry's file name.
const EXTENSION: &str = "fen";

impl Vfs {
    /// The endings of query folder `id` whose entries its `entries/` shows: those of its one
    /// condition on endings that is not negated (`None` for any other query).
    pub(super) fn entry_codes(&self, id: u32) -> Option<Vec<u32>> {
        let materials = self.queries.get(id)?.materials();
        match materials.as_slice() {
            [(false, codes)] => Some(codes.clone()),
            _ => None,
        }
    }

    /// The file `name` in query folder `id`'s `entries/`.
    pub(super) fn entry_named(&self, id: u32, name: &[u8]) -> Option<Node> {
        let stem = name
            .strip_suffix(EXTENSION.as_bytes())?
            .strip_suffix(b".")?;
        let game = [stem, b".", self.coll.extension().as_bytes()].concat();
        let n = self.coll.item_named(&game)?;
        self.query_has(id, n).then_some(Node::QueryEntry(id, n))
    }

    /// Hand the files of query folder `id`'s `entries/` after position `from` to `add`;
    /// whether `add` said it was full.
    pub(super) fn list_entries(
        &self,
        id: u32,
        from: u64,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> bool {
        let Some(games) = self.query_games(id) else {
            return false;
        };
        games
            .iter()
            .enumerate()
            .skip(usize::try_from(from).unwrap_or(usize::MAX))
            .any(|(i, &n)| {
                add(self.entry(
                    Node::QueryEntry(id, n),
                    self.entry_file_name(n).into(),
                    i as u64 + 3,
                ))
            })
    }

    /// The name of game `n`'s file in `entries/`.
    fn entry_file_name(&self, n: u32) -> String {
        let name = self.game_name(n);
        let stem = name
            .strip_suffix(self.coll.extension())
            .and_then(|s| s.strip_suffix('.'))
            .unwrap_or(&name);
        format!("{stem}.{EXTENSION}")
    }

    /// The text of game `n`'s file in query folder `id`'s `entries/`: the FEN of its entry
    /// into the folder's ending, and a newline.
    pub(super) fn entry_text(&self, id: u32, n: u32) -> Result<Vec<u8>> {
        let codes = self
            .entry_codes(id)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, "no entries: not one ending"))?;
        match self.coll.ending_entry(n, &codes)? {
            Some(fen) => Ok(format!("{fen}\n").into_bytes()),
            None => Err(Error::new(
                ErrorKind::NotFound,
                format!("game {} does not reach the ending (changed since?)", n + 1),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::testing::{CALLER, WRITE_NEW, at, names, text, tree_of};

    /// A rook ending whose White king takes the rook (KRPvKR, then KRPvK); a pawn that
    /// promotes (KPvK, then KQvK); two rooks, White's taken in the main line two moves
    /// later than in a variation (KRvKR, then KvKR).
    const GAMES: &str = concat!(
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n",
        "[FEN \"4k3/8/8/8/8/8/4P3/R5Kr w - - 0 1\"]\n\n1. Kxh1 Kd7 1-0\n\n",
        "[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n",
        "[FEN \"8/4P1k1/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. e8=Q Kh7 1-0\n\n",
        "[White \"e\"]\n[Black \"f\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n",
        "[FEN \"4k3/8/8/8/8/8/7r/R3K3 w - - 0 1\"]\n\n",
        "1. Kd1 (1. Ra2 Rxa2) 1... Rh1+ 2. Kc2 Rxa1 0-1\n",
    );

    /// The entry files of `query` and their texts.
    fn entries(vfs: &Vfs, query: &str) -> Vec<(String, String)> {
        names(vfs, &format!("query/{query}/entries"))
            .into_iter()
            .map(|name| {
                let fen = text(vfs, &format!("query/{query}/entries/{name}"));
                (name, fen)
            })
            .collect()
    }

    /// Game `n`'s file name in `entries/`.
    fn fen_name(vfs: &Vfs, n: u32) -> String {
        vfs.game_name(n).replace(".pgn", ".fen")
    }

    #[test]
    fn each_game_of_an_ending_has_the_fen_of_its_entry_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        assert_eq!(
            names(&vfs, "query/material=KRPvK"),
            ["games", "count", "entries"]
        );
        // After a capture, after a promotion, at the start.
        assert_eq!(
            entries(&vfs, "material=KRPvK"),
            [(
                fen_name(&vfs, 0),
                "4k3/8/8/8/8/8/4P3/R6K b - - 0 1\n".into()
            )]
        );
        assert_eq!(
            entries(&vfs, "material=KQvK"),
            [(fen_name(&vfs, 1), "4Q3/6k1/8/8/8/8/8/K7 b - - 0 1\n".into())]
        );
        assert_eq!(
            entries(&vfs, "material=KRPvKR"),
            [(
                fen_name(&vfs, 0),
                "4k3/8/8/8/8/8/4P3/R5Kr w - - 0 1\n".into()
            )]
        );
        // The main line's entry, not the variation's that came sooner.
        assert_eq!(
            entries(&vfs, "material=KvKR"),
            [(fen_name(&vfs, 2), "4k3/8/8/8/8/8/2K5/r7 w - - 0 3\n".into())]
        );
        // Any of the endings named, with the query's other conditions.
        assert_eq!(
            entries(&vfs, "pieces=KRvK+KvKR,result=1-0"),
            [(
                fen_name(&vfs, 0),
                "4k3/8/8/8/8/8/4P3/R6K b - - 0 1\n".into()
            )]
        );
        let file = at(
            &vfs,
            &format!("query/material=KQvK/entries/{}", fen_name(&vfs, 1)),
        )
        .unwrap();
        assert_eq!(vfs.getattr(file).unwrap().size, 31);
        assert_eq!(
            vfs.open(file, WRITE_NEW).unwrap_err().kind(),
            ErrorKind::PermissionDenied
        );
        let folder = at(&vfs, "query/material=KQvK").unwrap();
        assert_eq!(vfs.getattr(folder).unwrap().nlink, 4);
        // A game not in the ending, a name that is no game's: not there.
        for absent in [fen_name(&vfs, 0), "x.fen".into(), vfs.game_name(1)] {
            let path = format!("query/material=KQvK/entries/{absent}");
            assert_eq!(at(&vfs, &path).unwrap_err().kind(), ErrorKind::NotFound);
        }
        // No entries where the query names no ending, or only endings a game is not in.
        for query in [
            "result=1-0",
            "material!=KQvK",
            "material=KQvK,material=KRPvK",
        ] {
            assert!(!names(&vfs, &format!("query/{query}")).contains(&"entries".into()));
            let path = format!("query/{query}/entries");
            assert_eq!(at(&vfs, &path).unwrap_err().kind(), ErrorKind::NotFound);
        }
    }

    #[test]
    fn an_entry_follows_a_save_of_its_game() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let ino = Node::Game(1).ino();
        let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
        let pgn = "[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n\
                   [FEN \"8/4P1k1/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. Kb1 Kh7 2. e8=Q 1-0\n";
        vfs.write(ino, fh, 0, pgn.as_bytes(), CALLER).unwrap();
        vfs.flush(ino, fh, CALLER).unwrap();
        vfs.release(ino, fh);
        assert_eq!(
            entries(&vfs, "material=KQvK"),
            [(fen_name(&vfs, 1), "4Q3/7k/8/8/8/8/8/1K6 b - - 0 2\n".into())]
        );
    }
}
