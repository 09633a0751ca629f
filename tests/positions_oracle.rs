//! The position index against SCID and python-chess (feature `oracle-tests`; needs Debian's
//! `scid` 4.7.4 in /usr/games and python-chess).
//!
//! A database made by SCID itself (`sc_base import`) from part of the real-world corpus,
//! generated random games and the edge-case files; for every position of its tree down to
//! `GAMEFS_TREE_ORACLE_DEPTH` plies (default 12) and 200 random deeper positions, the games
//! the index finds and the tree table it makes equal what SCID's board search (Exact, without
//! variations) and `sc_tree stats` say, and an independent recount with python-chess.
//!
//! The trees of folders of games (slices: a player's games as White, as Black and both, an
//! event's, a year's), read through the tree (`players/NAME/white/tree/…`) for every position
//! to `GAMEFS_SLICE_ORACLE_DEPTH` plies (default 10) and 100 deeper positions found by FEN in
//! the folders' `positions/`, equal SCID's board search ANDed with the matching header search
//! (`sc_search header -filter AND -white "\"NAME\""`, `-date`, …) and `sc_tree stats`.
#![cfg(feature = "oracle-tests")]

mod common;

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use common::{vfs_at as at, vfs_game_numbers as game_numbers};
use gamefs::collection::positions::PositionIndex;
use gamefs::collection::positions::key::position_key;
use gamefs::collection::positions::tree::{PositionTree, fen};
use gamefs::game::replay::{play, start_position};
use gamefs::testing::Rng;
use gamefs::vfs::{Node, Vfs, VfsOptions};
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

/// A database made by SCID itself (`sc_base import`, in `dir`) from part of the real-world
/// corpus, generated random games and the edge-case files.
fn scid_made_database(dir: &Path) -> PathBuf {
    let corpus = common::realworld_corpus();
    let mut pgns: Vec<PathBuf> = ["tcec", "pgn-toys-lichess", "python-chess", "chessx"]
        .iter()
        .flat_map(|d| common::pgn_files(&corpus.join(d)))
        .collect();
    let generated = dir.join("generated.pgn");
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
    common::scid_import(dir, "scid", &pgns)
}

/// A random position of `game`'s main line past ply `depth` (none when it is no longer),
/// by replaying its moves as gamefs exports them. SCID keeps a filter's ply in a byte:
/// positions past ply 250 are not taken.
fn deeper_position(game: &gamefs::game::ChessGame, depth: usize, rng: &mut Rng) -> Option<Chess> {
    let plies = game.moves.moves.len();
    if plies <= depth + 1 {
        return None;
    }
    let stop = depth + 1 + rng.below(plies.min(250) - depth - 1);
    let mut pos = start_position(&game.start).unwrap();
    for node in &game.moves.moves[..stop] {
        pos = play(&pos, &node.ply).unwrap();
    }
    Some(pos)
}

#[test]
fn the_index_equals_scids_board_search_and_tree_and_a_python_chess_recount() {
    let dir = common::work_dir("positions");
    let base = scid_made_database(dir.path());
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
        let Some(pos) = deeper_position(rng.pick(&games), depth, &mut rng) else {
            continue;
        };
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

/// The entries of folder `path` of `vfs` (`.` and `..` left out), with their inodes.
fn entries(vfs: &Vfs, path: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    vfs.readdir(at(vfs, path), 0, &mut |e| {
        out.push((e.name.to_string_lossy().into_owned(), e.ino));
        false
    })
    .unwrap();
    out.retain(|(name, _)| name != "." && name != "..");
    out
}

/// The text of file `path` of `vfs`.
fn read(vfs: &Vfs, path: &str) -> String {
    String::from_utf8(vfs.read(at(vfs, path), 0, 1 << 24).unwrap()).unwrap()
}

/// SCID's tree table for a `tree.txt`: its table, the ECO column (which SCID leaves empty
/// with no ECO book loaded) left out.
fn without_eco(tree_txt: &str) -> String {
    let table = tree_txt.split("\nFEN:").next().unwrap_or("");
    let is_eco = |t: &str| {
        let b = t.as_bytes();
        b.len() == 3 && (b'A'..=b'E').contains(&b[0]) && b[1..].iter().all(u8::is_ascii_digit)
    };
    table
        .lines()
        .map(|l| match l.as_bytes() {
            [_, _, b':', b' ', ..] => {
                let mut tokens: Vec<&str> = l[4..].split_whitespace().collect();
                if tokens.len() > 1 && is_eco(tokens[1]) {
                    tokens.remove(1);
                }
                format!("{}{}", &l[..4], tokens.join(" "))
            }
            _ => l.split_whitespace().collect::<Vec<_>>().join(" "),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A table's rows as [`normalized`] has them, each row's words one space apart.
fn tokens(table: &str) -> Vec<String> {
    let mut rows: Vec<String> = normalized(table)
        .iter()
        .map(|row| row.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    rows.sort();
    rows
}

/// One position of a slice's tree as the mount shows it.
struct Shown {
    /// Its folder in the mount.
    path: String,
    fen: String,
    /// Its `games/` (1-based numbers).
    games: Vec<u32>,
    /// Its `tree.txt`'s table without the ECO column.
    table: String,
}

/// The position folder `path` of `vfs`.
fn shown(vfs: &Vfs, path: String) -> Shown {
    Shown {
        fen: read(vfs, &format!("{path}/position.fen")).trim().to_owned(),
        games: game_numbers(vfs, &format!("{path}/games")),
        table: without_eco(&read(vfs, &format!("{path}/tree.txt"))),
        path,
    }
}

#[test]
fn the_trees_of_players_events_and_years_equal_scids_board_search_and_header_search() {
    let dir = common::work_dir("slices");
    let base = scid_made_database(dir.path());
    let coll = gamefs::collection::open(&base, &gamefs::store::OpenOptions::default()).unwrap();
    let options = VfsOptions {
        position_index: Some(dir.path().join("positions")),
        ..VfsOptions::default()
    };
    let vfs = Vfs::new(coll.clone(), options);
    vfs.build_positions(2, &AtomicBool::new(false), || ());

    // The groups of a view with the most games, as (folder, name in the database), those
    // named as SCID names nothing (`?`, empty) left out.
    let biggest = |view: &str, take: usize| -> Vec<(String, String)> {
        let mut groups: Vec<(usize, String, String)> = entries(&vfs, view)
            .into_iter()
            .filter_map(|(folder, ino)| {
                let Some(Node::Group(v, key)) = Node::from_ino(ino) else {
                    panic!("{view}/{folder} is no group");
                };
                let label = coll.view_label(usize::from(v.0), key);
                let count = entries(&vfs, &format!("{view}/{folder}")).len();
                let named = !label.is_empty() && label != "?" && !label.contains('"');
                named.then_some((count, folder, label))
            })
            .collect();
        groups.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        groups
            .into_iter()
            .take(take)
            .map(|(_, f, l)| (f, l))
            .collect()
    };
    // (folder of games, SCID's header search field and value)
    let mut slices: Vec<(String, &str, String)> = Vec::new();
    for (i, (folder, name)) in biggest("players", 4).into_iter().enumerate() {
        slices.push((format!("players/{folder}/white"), "white", name.clone()));
        slices.push((format!("players/{folder}/black"), "black", name.clone()));
        if i == 0 {
            slices.push((format!("players/{folder}"), "player", name));
        }
    }
    for (folder, name) in biggest("events", 2) {
        slices.push((format!("events/{folder}"), "event", name));
    }
    for (folder, year) in biggest("years", 3)
        .into_iter()
        .filter(|(f, _)| f != "unknown")
        .take(2)
    {
        slices.push((
            format!("years/{folder}"),
            "date",
            format!("{year}.??.?? {year}.12.31"),
        ));
    }

    let depth: usize = std::env::var("GAMEFS_SLICE_ORACLE_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(10);
    let deeper_each = 100usize.div_ceil(slices.len());
    let mut rng = Rng(51);
    let (mut positions, mut deeper_in_all) = (0, 0);
    for (folder, field, value) in &slices {
        // Every position of its tree to the depth, each once (transpositions meet).
        let mut seen = HashSet::new();
        let mut found = Vec::new();
        let mut queue = VecDeque::from([(format!("{folder}/tree"), 0)]);
        while let Some((path, d)) = queue.pop_front() {
            let position = shown(&vfs, path);
            let board: String = position
                .fen
                .split(' ')
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            if !seen.insert(board) {
                continue;
            }
            if d < depth {
                for (name, _) in entries(&vfs, &position.path) {
                    if !["games", "tree.txt", "position.fen"].contains(&name.as_str()) {
                        queue.push_back((format!("{}/{name}", position.path), d + 1));
                    }
                }
            }
            found.push(position);
        }
        let in_tree = found.len();
        // Deeper positions of the folder's games, found by FEN in its positions/.
        let games: Vec<u32> = game_numbers(&vfs, folder);
        let mut deeper = 0;
        for _ in 0..deeper_each * 50 {
            if deeper == deeper_each {
                break;
            }
            let n = *rng.pick(&games) - 1;
            let text = vfs.text(n).unwrap();
            let Some(Ok(game)) = gamefs::text::pgn_parse::games(&text).next() else {
                continue;
            };
            let Some(pos) = deeper_position(&game, depth, &mut rng) else {
                continue;
            };
            let fen = fen(&pos);
            let board: String = fen.split(' ').take(2).collect::<Vec<_>>().join(" ");
            if seen.insert(board) {
                let name = fen.replace('/', ":").replace(' ', "_");
                found.push(shown(&vfs, format!("{folder}/positions/{name}")));
                deeper += 1;
            }
        }
        assert!(in_tree > 20, "{folder}: {in_tree} positions in its tree");
        assert!(deeper > 0, "{folder}: no deeper positions");
        let fens: String = found.iter().map(|p| format!("{}\n", p.fen)).collect();
        let fen_file = dir.path().join("slice.fen");
        std::fs::write(&fen_file, fens).unwrap();
        let scid = common::run(
            Command::new("/usr/games/tkscid")
                .arg(common::repo().join("tests/oracle/positions_scid.tcl"))
                .arg(&base)
                .arg(&fen_file)
                .arg(field)
                .arg(value),
        );
        let scid = sections(&String::from_utf8_lossy(&scid.stdout));
        assert_eq!(
            scid.len(),
            found.len(),
            "{folder}: SCID answered every position"
        );
        for (position, scid) in found.iter().zip(&scid) {
            let (scid_games, scid_table) = scid.split_once('\n').unwrap_or((scid, ""));
            let games: Vec<String> = position.games.iter().map(u32::to_string).collect();
            assert_eq!(
                format!("games: {}", games.join(" ")),
                scid_games,
                "SCID's board search AND header search -{field} {value:?}, {}",
                position.path
            );
            assert_eq!(
                tokens(&position.table),
                tokens(scid_table),
                "SCID's tree for -{field} {value:?}, {}:\nours:\n{}\nSCID:\n{scid_table}",
                position.path,
                position.table
            );
            assert!(!position.games.is_empty(), "{}: reached", position.path);
        }
        eprintln!(
            "{folder}: {} positions equal SCID's (-{field} {value:?}): {in_tree} of its tree to \
             depth {depth}, {deeper} deeper",
            found.len()
        );
        positions += found.len();
        deeper_in_all += deeper;
    }
    assert!(deeper_in_all >= 100, "{deeper_in_all} deeper positions");
    eprintln!(
        "{positions} positions of {} folders of games equal SCID's",
        slices.len()
    );
}
