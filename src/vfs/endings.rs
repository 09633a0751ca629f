//! The endings folder (docs/SEMANTICS.md §21): `endings/` at the mount's root (found by name,
//! not listed, as `tree/` and `query/`: a walk of the mount does not wait for the position
//! index) lists a link per ending some live game passes through (`KRPvKR`, `collection::positions::material`),
//! each to the query folder of the games that do, `../query/material=KRPvKR` (`vfs/queries.rs`):
//! one folder of games per ending, with its `games/`, `count`, `all.pgn` and `tree/`, found
//! the same way whether by the link or by a query that names the ending beside other
//! conditions. The endings are the position index's: `endings/` waits for it while it is
//! built, as `tree/` does, and follows every save at once.

use super::{DirEntry, Node, Vfs};
use crate::collection::positions::material::Balance;
use crate::error::{Error, ErrorKind, Result};

impl Vfs {
    /// True when the mount shows endings: chess games with a position index.
    pub(super) fn has_endings(&self) -> bool {
        self.has_queries() && self.positions.is_some()
    }

    /// The codes of the endings some live game passes through now, ascending (waiting for
    /// the index while it is built, at most as long as `tree/` waits).
    fn ending_codes(&self) -> Result<Vec<u32>> {
        let positions = self
            .positions
            .as_ref()
            .ok_or_else(|| Error::new(ErrorKind::NotFound, "no position index: no endings"))?;
        Ok(positions.ready_index()?.ending_codes())
    }

    /// The link `endings/NAME`, when some game passes through ending NAME.
    pub(super) fn ending_named(&self, name: &[u8]) -> Result<Option<Node>> {
        let Some(balance) = std::str::from_utf8(name)
            .ok()
            .and_then(|n| Balance::parse(n).ok())
        else {
            return Ok(None);
        };
        let code = balance.code();
        Ok(self
            .ending_codes()?
            .binary_search(&code)
            .is_ok()
            .then_some(Node::EndingLink(code)))
    }

    /// True when link `endings/NAME` of the ending with `code` is there now (without
    /// waiting for an index being built).
    pub(super) fn ending_exists(&self, code: u32) -> bool {
        Balance::of_code(code).is_some()
            && self.positions.as_ref().is_some_and(|p| {
                let index = p.index();
                index.is_ready() && !index.ending_games(&[code]).is_empty()
            })
    }

    /// Where the link of the ending with `code` points: its query folder.
    pub(super) fn ending_target(&self, code: u32) -> Result<Vec<u8>> {
        let balance = Balance::of_code(code)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, "no such ending"))?;
        Ok(format!("../query/material={}", balance.name()).into_bytes())
    }

    /// Hand the links of `endings/` after position `from` to `add`; whether `add` said it
    /// was full. Fails while the index is being built past the wait (EBUSY).
    pub(super) fn list_endings(
        &self,
        from: u64,
        add: &mut dyn FnMut(DirEntry) -> bool,
    ) -> Result<bool> {
        let codes = self.ending_codes()?;
        let skip = usize::try_from(from).unwrap_or(usize::MAX);
        Ok(codes.iter().enumerate().skip(skip).any(|(i, &code)| {
            let name = Balance::of_code(code)
                .map(Balance::name)
                .unwrap_or_default();
            add(self.entry(Node::EndingLink(code), name.into(), i as u64 + 3))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::testing::{CALLER, WRITE_NEW, at, game_names, names, text, tree_of};

    /// A rook ending whose White king takes the rook (KRPvKR, then KRPvK); an opening (no
    /// ending); two rooks, then one (KRvKR, then KRvK).
    const GAMES: &str = concat!(
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n",
        "[FEN \"4k3/8/8/8/8/8/4P3/R5Kr w - - 0 1\"]\n\n1. Kxh1 Kd7 1-0\n\n",
        "[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n",
        "[White \"e\"]\n[Black \"f\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n",
        "[FEN \"4k3/8/8/8/8/8/8/R5Kr w - - 0 1\"]\n\n1. Kxh1 1/2-1/2\n",
    );

    #[test]
    fn endings_link_to_the_query_folder_of_their_games() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        assert!(
            !names(&vfs, "").contains(&"endings".to_owned()),
            "found by name"
        );
        let mut listed = names(&vfs, "endings");
        listed.sort();
        assert_eq!(listed, ["KRPvK", "KRPvKR", "KRvK", "KRvKR"]);
        let link = at(&vfs, "endings/KRPvKR").unwrap();
        assert_eq!(vfs.readlink(link).unwrap(), b"../query/material=KRPvKR");
        assert_eq!(vfs.getattr(link).unwrap().size, 24);
        // An ending no game passes through, or no ending, is not there.
        for absent in ["KQvK", "KRPRvK", "x"] {
            assert_eq!(
                at(&vfs, &format!("endings/{absent}")).unwrap_err().kind(),
                ErrorKind::NotFound
            );
        }
        let q = "query/material=KRPvKR";
        assert_eq!(names(&vfs, &format!("{q}/games")), game_names(&vfs, &[0]));
        assert_eq!(text(&vfs, &format!("{q}/count")), "1\n");
        let count = |q: &str| text(&vfs, &format!("query/{q}/count"));
        assert_eq!(count("material=KRvK+KRPvK"), "2\n");
        assert_eq!(count("material!=KRvK"), "2\n");
        assert_eq!(count("material=KRvKR,result=draw"), "1\n");
        assert_eq!(count("material=KRvKR,result=1-0"), "0\n");
        assert_eq!(count("material=KQvK"), "0\n");
        // The rook endings, any pawns.
        assert_eq!(count("pieces=KRvKR"), "2\n");
        assert_eq!(count("pieces=KRvK+KQvK,result=1-0"), "1\n");
        assert_eq!(
            at(&vfs, "query/pieces=KRPvKR").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        assert_eq!(
            at(&vfs, "query/material=KRBNvK").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        let all = at(&vfs, &format!("{q}/all.pgn")).unwrap();
        assert_eq!(
            vfs.read(all, 0, 1 << 20).unwrap(),
            vfs.text(0).unwrap().to_vec()
        );
        // Nothing is removed there.
        assert_eq!(
            vfs.unlink(Node::EndingsRoot.ino(), std::ffi::OsStr::new("KRvK"))
                .unwrap_err()
                .kind(),
            ErrorKind::NotPermitted
        );
    }

    #[test]
    fn a_save_moves_a_game_in_and_out_of_an_ending_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = tree_of(dir.path(), GAMES, 40);
        let save = |n: u32, pgn: &str| {
            let ino = Node::Game(n).ino();
            let fh = vfs.open(ino, WRITE_NEW).unwrap().fh;
            vfs.write(ino, fh, 0, pgn.as_bytes(), CALLER).unwrap();
            vfs.flush(ino, fh, CALLER).unwrap();
            vfs.release(ino, fh);
        };
        assert_eq!(text(&vfs, "query/material=KRvK/count"), "1\n");
        // The opening becomes a queen ending: in it, and in `endings/`.
        save(
            1,
            "[White \"c\"]\n[Black \"d\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n\
             [FEN \"4k3/8/8/8/8/8/8/Q5Kr w - - 0 1\"]\n\n1. Kxh1 1-0\n",
        );
        assert_eq!(text(&vfs, "query/material=KQvK/count"), "1\n");
        assert!(names(&vfs, "endings").contains(&"KQvKR".to_owned()));
        // The rook ending becomes an opening: out of both its endings.
        save(
            2,
            "[White \"e\"]\n[Black \"f\"]\n[Result \"*\"]\n\n1. d4 *\n",
        );
        assert_eq!(text(&vfs, "query/material=KRvK/count"), "0\n");
        assert!(!names(&vfs, "endings").contains(&"KRvKR".to_owned()));
        assert!(at(&vfs, "endings/KRvKR").is_err());
        // A game marked deleted leaves its endings.
        vfs.unlink(Node::Games.ino(), std::ffi::OsStr::new(&vfs.game_name(0)))
            .unwrap();
        assert_eq!(text(&vfs, "query/material=KRPvKR/count"), "0\n");
        let mut listed = names(&vfs, "endings");
        listed.sort();
        assert_eq!(listed, ["KQvK", "KQvKR"]);
    }
}
