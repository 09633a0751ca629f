//! The position index against SCID and python-chess (feature `oracle-tests`; needs Debian's
//! `scid` 4.7.4 in /usr/games and python-chess).
//!
//! A database made by SCID itself (`sc_base import`) from part of the real-world corpus,
//! generated random games and the edge-case files; for every position of its tree down to
//! `GAMEFS_TREE_ORACLE_DEPTH` plies (default 12) and 200 random deeper positions, the games
//! the index finds and the tree table it makes equal what SCID's board search (Exact, without
//! variations) and `sc_tree stats` say, and an independent recount with python-chess.
#![cfg(feature = "oracle-tests")]

mod common;

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use gamefs::collection::positions::PositionIndex;
use gamefs::collection::positions::key::position_key;
use gamefs::collection::positions::tree::{PositionTree, fen};
use gamefs::game::replay::{play, start_position};
use gamefs::testing::Rng;
use shakmaty::Chess;

/// The answers of one oracle per position, split at its `@@ N` lines.
fn sections(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("@@ ") {
            out.push(String::new());
        } else if let Some(last) = out.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    out
}

/// A tree table with its rank numbers cut and its rows sorted (SCID orders equally played
/// moves as its unstable sort leaves them), mate signs written as SCID's tree writes them
/// (`+`: it does not look for mate; gamefs writes moves as its PGN export does).
fn normalized(table: &str) -> Vec<String> {
    let table = table.replace('#', "+");
    let mut rows: Vec<String> = table
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match l.as_bytes() {
            [_, _, b':', b' ', ..] => l[4..].to_owned(),
            _ => l.to_owned(),
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn the_index_equals_scids_board_search_and_tree_and_a_python_chess_recount() {
    let dir = common::work_dir("positions");
    let corpus = common::realworld_corpus();
    let mut pgns: Vec<PathBuf> = ["tcec", "pgn-toys-lichess", "python-chess", "chessx"]
        .iter()
        .flat_map(|d| common::pgn_files(&corpus.join(d)))
        .collect();
    let generated = dir.path().join("generated.pgn");
    common::run(
        common::tool("contrib/tools/gen_test_pgn.py")
            .args(["fuzz", "200"])
            .arg(&generated)
            .args(["--seed", "39"]),
    );
    pgns.push(generated);
    for f in ["special-moves.pgn", "fen-starts.pgn", "long-games.pgn"] {
        pgns.push(common::repo().join("tests/data").join(f));
    }
    let base = common::scid_import(dir.path(), "scid", &pgns);
    let coll = gamefs::collection::open(&base, &gamefs::store::OpenOptions::default()).unwrap();
    let index = PositionIndex::new(Some(dir.path().join("positions")));
    index.load_or_build(&*coll, 2, &AtomicBool::new(false));
    assert!(index.is_ready());

    // Every position of the tree to the depth, each once (transpositions meet).
    let depth: usize = std::env::var("GAMEFS_TREE_ORACLE_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(12);
    let mut seen = HashSet::new();
    let mut trees = Vec::new();
    let mut queue = VecDeque::from([(Chess::default(), 0)]);
    while let Some((pos, d)) = queue.pop_front() {
        if !seen.insert(position_key(&pos)) {
            continue;
        }
        let tree = PositionTree::at(&index, &*coll, pos);
        if d < depth {
            for m in &tree.moves {
                if let Some(next) = tree.after(m.code) {
                    queue.push_back((next, d + 1));
                }
            }
        }
        trees.push(tree);
    }
    let in_tree = trees.len();
    // 200 random deeper positions of random games (set-up starts included), by replaying
    // the games' main lines as gamefs exports them.
    let export = dir.path().join("export.pgn");
    common::run(
        Command::new(env!("CARGO_BIN_EXE_gamefs"))
            .args(["export", "-q", "-o"])
            .arg(&export)
            .arg(&base),
    );
    let text = std::fs::read(&export).unwrap();
    // (Games with a Variant tag are refused here: they are not needed.)
    let games: Vec<_> = gamefs::text::pgn_parse::games(&text)
        .filter_map(Result::ok)
        .collect();
    let mut rng = Rng(39);
    let mut deeper = 0;
    while deeper < 200 {
        let game = rng.pick(&games);
        let plies = game.moves.moves.len();
        // SCID keeps a filter's ply in a byte: positions past ply 254 are left out.
        if plies <= depth + 1 {
            continue;
        }
        let stop = depth + 1 + rng.below(plies.min(250) - depth - 1);
        let mut pos = start_position(&game.start).unwrap();
        for node in &game.moves.moves[..stop] {
            pos = play(&pos, &node.ply).unwrap();
        }
        if seen.insert(position_key(&pos)) {
            trees.push(PositionTree::at(&index, &*coll, pos));
            deeper += 1;
        }
    }
    assert!(in_tree > 1000, "{in_tree} positions in the tree");
    let fens: String = trees.iter().map(|t| fen(&t.position) + "\n").collect();
    let fen_file = dir.path().join("positions.fen");
    std::fs::write(&fen_file, fens).unwrap();

    let started = std::time::Instant::now();
    let scid = common::run(
        Command::new("/usr/games/tkscid")
            .arg(common::repo().join("tests/oracle/positions_scid.tcl"))
            .arg(&base)
            .arg(&fen_file),
    );
    let scid = sections(&String::from_utf8_lossy(&scid.stdout));
    eprintln!(
        "SCID searched {} positions in {:?}",
        trees.len(),
        started.elapsed()
    );
    let python = common::run(
        common::tool("tests/oracle/positions_check.py")
            .arg(&export)
            .arg(&fen_file),
    );
    let python = sections(&String::from_utf8_lossy(&python.stdout));
    assert_eq!(scid.len(), trees.len(), "SCID answered every position");
    assert_eq!(
        python.len(),
        trees.len(),
        "python-chess answered every position"
    );

    let mut reached = 0;
    for (i, tree) in trees.iter().enumerate() {
        let fen = fen(&tree.position);
        let games: Vec<String> = tree.games.iter().map(|g| (g + 1).to_string()).collect();
        let games = format!("games: {}", games.join(" "));
        let (scid_games, scid_table) = scid[i].split_once('\n').unwrap_or((&scid[i], ""));
        assert_eq!(games, scid_games, "SCID's board search, position {fen}");
        assert_eq!(
            normalized(&tree.table_text(false)),
            normalized(scid_table),
            "SCID's tree, position {fen}:\nours:\n{}\nSCID:\n{scid_table}",
            tree.table_text(false)
        );
        let mut moves: Vec<(String, u32)> = tree
            .moves
            .iter()
            .map(|m| (m.san.clone(), m.stats.games))
            .collect();
        moves.sort();
        let moves: Vec<String> = moves.iter().map(|(s, c)| format!("{s}={c}")).collect();
        assert_eq!(
            python[i],
            format!("{games}\nmoves: {}\n", moves.join(" ")),
            "python-chess, position {fen}"
        );
        reached += usize::from(!tree.games.is_empty());
    }
    eprintln!(
        "{} positions equal SCID and python-chess: {in_tree} of the tree to depth {depth}, \
         {deeper} deeper; {} games",
        trees.len(),
        coll.count()
    );
    assert_eq!(reached, trees.len(), "every position is reached by a game");
}
