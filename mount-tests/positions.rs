//! `tree/` and `positions/FEN/` through the kernel: transpositions meet in one folder, a save
//! moves its game between folders, a PGN file mount has a tree, FEN lookups find set-up
//! positions and positions past the tree's depth, and walks of the whole mount stay out; the
//! trees of a player's folder and of its `white/` and `black/` follow a save that moves a
//! game from one player to another; a header query's folder (`query/EXPR/`) and an ending's
//! (`endings/NAME`) follow a save.

use std::path::Path;

use crate::harness::{Mount, eventually, gamefs_ok, listing, scratch, sh};

const GAMES: &str = concat!(
    "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n",
    "[White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n\n1. Nf3 Nc6 2. e4 e5 3. Bb5 0-1\n\n",
    "[White \"e\"]\n[Black \"f\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n",
);

/// The names in folder `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    listing(dir)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// [`GAMES`] in a new SCID database in a scratch folder called after `name`, mounted.
fn mounted_games(name: &str) -> (tempfile::TempDir, Mount) {
    let dir = scratch(name);
    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let db = dir.path().join("db");
    gamefs_ok([
        "import".as_ref(),
        "--create".as_ref(),
        db.as_os_str(),
        pgn.as_os_str(),
    ]);
    let m = Mount::new(&db, dir.path(), &[]);
    (dir, m)
}

#[test]
fn transpositions_meet_in_one_folder_and_a_save_moves_its_game() {
    let (_dir, m) = mounted_games("positions-scid");
    let by_e4 = m.join("tree/e4/e5/Nf3/Nc6");
    let by_nf3 = m.join("tree/Nf3/Nc6/e4/e5");
    assert_eq!(names(&by_e4.join("games")).len(), 2);
    assert_eq!(names(&by_e4.join("games")), names(&by_nf3.join("games")));
    assert_eq!(names(&by_e4), ["Bb5", "games", "position.fen", "tree.txt"]);
    // The links lead to the games: cat and grep follow them.
    let both = sh(&by_nf3, "cat games/* | grep -c '^\\[White '");
    assert_eq!(both.trim(), "2");
    let tree = std::fs::read_to_string(m.join("tree/tree.txt")).unwrap();
    assert!(tree.contains("TOTAL:                 3:100.0%"), "{tree}");
    assert!(tree.contains("FEN: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));

    // Walks of the whole mount do not go into the tree.
    let found = sh(&m.path, "find . | wc -l");
    let listed = sh(
        &m.path,
        "find . -path './tree*' -o -path './positions*' | wc -l",
    );
    assert_eq!(
        listed.trim(),
        "0",
        "find saw the tree ({} entries)",
        found.trim()
    );
    assert!(!names(&m.path).contains(&"tree".to_owned()));

    // Game 1 saved with another opening leaves 1.e4 for 1.d4 at once.
    std::fs::write(
        m.game(1),
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. d4 Nf6 1-0\n",
    )
    .unwrap();
    eventually("the saved game is under 1.d4", || {
        listing(&m.join("tree/d4/games")).len() == 2
    });
    // The kernel is told to forget what it was shown just after the save returns.
    eventually("no game plays 1.e4 now", || !m.join("tree/e4").exists());
    assert!(m.join("tree/d4/Nf6").is_dir());
    eventually("one game left in the transposed folder", || {
        names(&by_nf3.join("games")).len() == 1
    });
}

#[test]
fn a_pgn_file_has_a_tree_and_fen_lookups_find_set_up_and_deep_positions() {
    let dir = scratch("positions-pgn");
    let pgn = dir.path().join("games.pgn");
    let fen_starts =
        std::fs::read_to_string(crate::harness::repo().join("tests/data/fen-starts.pgn")).unwrap();
    std::fs::write(&pgn, format!("{GAMES}\n{fen_starts}")).unwrap();
    let m = Mount::new(&pgn, dir.path(), &["-o", "tree_depth=2"]);
    assert!(m.join("tree/e4/e5").is_dir());
    assert!(!m.join("tree/e4/e5/Nf3").exists(), "past the depth");
    // A set-up position (a game's FEN start), `:` for `/`, `_` between fields.
    let set_up = m.join("positions/4k3:8:8:8:4Pp2:8:8:4K3_b_-_e3_0_1");
    let games = names(&set_up.join("games"));
    assert_eq!(games.len(), 1, "{games:?}");
    let tree = std::fs::read_to_string(set_up.join("tree.txt")).unwrap();
    assert!(tree.contains(" 1: fxe3 "), "{tree}");
    // Past the tree's depth.
    let deep =
        m.join("positions/r1bqkbnr:pppp1ppp:2n5:1B2p3:4P3:5N2:PPPP1PPP:RNBQK2R b KQkq - 3 3");
    assert_eq!(
        names(&deep.join("games")).len(),
        2,
        "the Ruy Lopez game and its FEN twin"
    );
    assert_eq!(
        std::fs::read_to_string(deep.join("position.fen")).unwrap(),
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3\n"
    );
    // No game reaches it: empty. Not a FEN: ENOENT.
    assert!(names(&m.join("positions/8:8:8:8:8:8:8:K1k5_w_-_-_0_1/games")).is_empty());
    let bad = std::fs::metadata(m.join("positions/no-fen")).unwrap_err();
    assert_eq!(bad.raw_os_error(), Some(libc::ENOENT));
    let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    assert!(stats.contains("position_index: ready"), "{stats}");
}

#[test]
fn a_save_moves_a_game_out_of_one_players_tree_and_into_anothers() {
    let (_dir, m) = mounted_games("positions-slices");
    // Game 1 is a's as White (1.e4), game 2 c's as White (1.Nf3 then 2.e4).
    let a = m.join("players/a");
    assert_eq!(
        names(&a.join("white/tree")),
        ["e4", "games", "position.fen", "tree.txt"]
    );
    assert_eq!(names(&a.join("white/tree/e4/e5/Nf3/Nc6/games")).len(), 1);
    assert!(names(&a.join("black")).is_empty(), "a never had Black");
    let tree = std::fs::read_to_string(a.join("tree/tree.txt")).unwrap();
    assert!(
        tree.contains("TOTAL:                 1:100.0%  100.0%"),
        "{tree}"
    );
    // Found by name, not listed: walks of the player's folder see its games only.
    assert_eq!(names(&a).len(), 1);
    let walked = sh(
        &m.path,
        "find players -name tree -o -name white -o -name black -o -name positions | wc -l",
    );
    assert_eq!(walked.trim(), "0");
    // c's tree as White: 1.Nf3 only (other games play 1.e4).
    let c = m.join("players/c/white/tree");
    assert_eq!(names(&c.join("Nf3/Nc6/e4/e5/games")).len(), 1);
    assert!(!c.join("e4").exists());
    let all = std::fs::read_to_string(c.join("Nf3/all.pgn")).unwrap();
    assert_eq!(all, std::fs::read_to_string(m.game(2)).unwrap());

    // Game 1 saved with c as White: it leaves a's trees and enters c's at once.
    let saved = "[White \"c\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n";
    std::fs::write(m.game(1), saved).unwrap();
    eventually("game 1 is in c's tree as White", || {
        c.join("e4").exists() && names(&c.join("e4/e5/Nf3/Nc6/games")).len() == 2
    });
    eventually("a's folder is gone", || !a.exists());
    eventually("a's tree is gone with it", || {
        !m.join("players/a/white/tree/e4").exists()
    });
    assert_eq!(names(&c.join("Nf3/Nc6/e4/e5/games")).len(), 2);
    let tree = std::fs::read_to_string(c.join("tree.txt")).unwrap();
    assert!(
        tree.contains("TOTAL:                 2:100.0%   50.0%"),
        "{tree}"
    );
    // Through its symlinks, the game as saved.
    let linked = sh(&c, "cat e4/games/* | grep -c '^\\[White \"c\"'");
    assert_eq!(linked.trim(), "1");
    // b kept it, as Black.
    assert_eq!(names(&m.join("players/b/black/tree/e4/e5/games")).len(), 1);
}

#[test]
fn a_query_folder_follows_a_save_through_the_kernel() {
    let (_dir, m) = mounted_games("positions-queries");
    let q = m.join("query/white=c+e,result!=0-1");
    assert_eq!(std::fs::read_to_string(q.join("count")).unwrap(), "1\n");
    assert_eq!(names(&q), ["count", "games"]);
    assert_eq!(names(&q.join("games")).len(), 1);
    assert_eq!(
        names(&q.join("tree")),
        ["d4", "games", "position.fen", "tree.txt"]
    );
    // Found by name only: walks of the mount do not enter query/.
    let walked = sh(&m.path, "find . -name 'query*' | wc -l");
    assert_eq!(walked.trim(), "0");
    let bad = std::fs::metadata(m.join("query/elo=high")).unwrap_err();
    assert_eq!(bad.kind(), std::io::ErrorKind::NotFound);

    // Game 1 saved with c as White and a draw: it enters the query, its tree and all.pgn.
    let saved = "[White \"c\"]\n[Black \"b\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2\n";
    std::fs::write(m.game(1), saved).unwrap();
    eventually("game 1 is in the query", || {
        std::fs::read_to_string(q.join("count")).unwrap() == "2\n"
    });
    assert_eq!(names(&q.join("games")).len(), 2);
    assert!(q.join("tree/e4/e5").is_dir());
    let all = std::fs::read_to_string(q.join("all.pgn")).unwrap();
    assert_eq!(all.matches("[White ").count(), 2);
}

#[test]
fn an_endings_link_leads_to_its_games_and_follows_a_save_through_the_kernel() {
    let (_dir, m) = mounted_games("positions-endings");
    let endings = m.join("endings");
    // The games are openings: no endings, and walks do not enter `endings/`.
    eventually("the index is ready", || endings.is_dir());
    assert!(names(&endings).is_empty());
    let walked = sh(&m.path, "find . -name 'endings*' | wc -l");
    assert_eq!(walked.trim(), "0");

    // Game 3 saved as a rook ending in which White takes Black's rook.
    let saved = "[White \"e\"]\n[Black \"f\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n\
                 [FEN \"4k3/8/8/8/8/8/4P3/R5Kr w - - 0 1\"]\n\n1. Kxh1 Kd7 1-0\n";
    std::fs::write(m.game(3), saved).unwrap();
    eventually("game 3 is in its endings", || {
        names(&endings) == ["KRPvK", "KRPvKR"]
    });
    let link = endings.join("KRPvKR");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../query/material=KRPvKR")
    );
    // Followed by the kernel like any symlink: cd, cat and ls go through it.
    assert_eq!(std::fs::read_to_string(link.join("count")).unwrap(), "1\n");
    let white = sh(&link, "cat games/* | grep '^\\[White '");
    assert_eq!(white.trim(), "[White \"e\"]");
    let all = std::fs::read_to_string(link.join("all.pgn")).unwrap();
    assert!(all.contains("1. Kxh1 Kd7"), "{all}");
    // Queries name endings beside other conditions.
    let q = m.join("query/material=KRPvK+KQvK,white=e");
    assert_eq!(std::fs::read_to_string(q.join("count")).unwrap(), "1\n");

    // Saved back as an opening: it leaves.
    std::fs::write(
        m.game(3),
        "[White \"e\"]\n[Black \"f\"]\n[Result \"*\"]\n\n1. d4 *\n",
    )
    .unwrap();
    eventually("game 3 left its endings", || names(&endings).is_empty());
    assert!(std::fs::symlink_metadata(&link).is_err());
}
