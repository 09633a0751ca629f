//! The two ways a stored chess game becomes PGN give the same bytes: straight from the SCID
//! decoder's events into the PGN writer (what export and the mount use), and through the
//! game model (`load` + `pgn::render`). Checked on databases written by Debian SCID's own
//! `sc_import` from every edge-case PGN of tests/data and the demo games, and on hand-made records whose
//! annotations come in an order the one-pass writer cannot take (the fallback). The same for
//! the Simple Chess Database: its reference writer's files, and what gamefs writes.

mod common;
mod damage;

use gamefs::collection::chess::render_pgn;
use gamefs::game::{ChessGame, Line, MoveNode, Ply};
use gamefs::store;
use gamefs::store::scid::record;
use gamefs::text::pgn::{self, PgnWriter};
use shakmaty::san::San;
use shakmaty::{Chess, Position};

/// Every game of the database at `base` renders the same both ways; the number of games.
fn same_both_ways(base: &std::path::Path) -> u32 {
    let db = store::open(base, false).unwrap();
    for n in 0..db.game_count() {
        let through_model = pgn::render(&db.load(n).unwrap()).unwrap();
        assert_eq!(
            render_pgn(&*db, n).unwrap(),
            through_model,
            "game {} of {}",
            n + 1,
            base.display()
        );
    }
    db.game_count()
}

#[test]
fn stored_games_render_the_same_from_events_and_from_the_model() {
    let dir = common::work_dir("render-paths");
    let mut games = 0;
    let mut pgns = common::data_pgns();
    pgns.push(common::repo().join("contrib/sample/demo.pgn"));
    for pgn in pgns {
        let name = pgn.file_stem().unwrap().to_string_lossy().into_owned();
        games += same_both_ways(&common::scid_import(dir.path(), &name, &[pgn]));
    }
    assert!(games >= 138, "{games} games");
}

/// `1. e4 $1 {note} (1. d4) 1... e5` from the model, and a database holding it at game 1.
fn annotated_game() -> ChessGame {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for san in ["e4", "e5"] {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
        moves.push(MoveNode::new(Ply::Move(m)));
    }
    let d4 = "d4".parse::<San>().unwrap().to_move(&Chess::default());
    moves[0].nags = vec![1];
    moves[0].comment = Some("note".into());
    moves[0].variations = vec![Line {
        comment: None,
        moves: vec![MoveNode::new(Ply::Move(d4.unwrap()))],
    }];
    ChessGame {
        moves: Line {
            comment: None,
            moves,
        },
        ..ChessGame::default()
    }
}

#[test]
fn annotations_stored_after_a_variation_render_through_the_model() {
    let dir = common::work_dir("render-paths-order");
    let base = dir.path().join("db");
    store::create(&base, store::Format::Scid).unwrap();
    let game = annotated_game();
    {
        let db = store::open(&base, true).unwrap();
        db.append(&mut std::iter::once(Ok(game.clone()))).unwrap();
    }
    // SCID's order is move, NAG, comment, variation; store the NAG and comment after the
    // variation instead (a reader attaches them to the same move).
    let bytes = record::encode(&game).unwrap();
    let annotations = [0x0B, 0x01, 0x0C];
    let at = bytes
        .windows(3)
        .position(|w| w == annotations)
        .expect("NAG then comment marker");
    let end = at + bytes[at..].iter().position(|&b| b == 0x0E).unwrap();
    let mut moved = bytes[..at].to_vec();
    moved.extend_from_slice(&bytes[at + 3..=end]);
    moved.extend_from_slice(&annotations);
    moved.extend_from_slice(&bytes[end + 1..]);
    assert_ne!(moved, bytes);
    let files = damage::Scid::new(&base);
    let mut sg4 = files.read("sg4");
    let offset = sg4.len() as u32;
    sg4.extend_from_slice(&moved);
    files.write("sg4", &sg4);
    files.change_entry(0, |e| {
        e.offset = u64::from(offset);
        e.length = moved.len() as u32;
    });

    let db = store::open(&base, false).unwrap();
    assert_eq!(db.load(0).unwrap().moves, game.moves, "the same game");
    // The one-pass writer notices the order and says so ...
    let mut writer = PgnWriter::new();
    assert!(db.visit(0, &mut writer).is_err());
    assert!(writer.reordered());
    // ... and the game is rendered through the model: annotations before the variation.
    let text = render_pgn(&*db, 0).unwrap();
    assert_eq!(text, pgn::render(&game).unwrap());
    assert!(text.contains("1. e4 $1 {note} (1. d4) 1... e5"), "{text}");
}

#[test]
fn the_writer_takes_a_replaced_comment_and_a_nag_after_a_comment() {
    // Events as a decoder of stored bytes may send them for `1. e4`: comment "a", NAG 1,
    // comment "b" (replacing "a"). The text is the model's: NAGs, then the last comment.
    let game = annotated_game();
    let pos = Chess::default();
    let e4 = match &game.moves.moves[0].ply {
        Ply::Move(m) => *m,
        Ply::Null => unreachable!(),
    };
    let mut after = pos.clone();
    after.play_unchecked(e4);
    let mut writer = PgnWriter::new();
    use gamefs::game::visit::GameVisitor;
    writer.begin(&game.headers, &game.start).unwrap();
    writer.ply(&pos, &Ply::Move(e4), &after, false).unwrap();
    writer.comment("a").unwrap();
    writer.nag(1).unwrap();
    writer.comment("b").unwrap();
    let mut expected = ChessGame {
        moves: Line {
            comment: None,
            moves: vec![MoveNode::new(Ply::Move(e4))],
        },
        ..game.clone()
    };
    expected.moves.moves[0].nags = vec![1];
    expected.moves.moves[0].comment = Some("b".into());
    assert_eq!(writer.finish(), pgn::render(&expected).unwrap());
}

#[test]
fn simple_chess_database_games_render_the_same_from_events_and_from_the_model() {
    // Databases written by the reference writer (pgn2dcg), and one gamefs writes from every
    // edge-case PGN (`import --lossy`: what the format cannot hold is dropped).
    let golden = common::repo().join("tests/data/simplecdb");
    let mut games = 0;
    for entry in std::fs::read_dir(&golden).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "dci") {
            games += same_both_ways(&path);
        }
    }
    assert!(games > 0, "no reference database in {}", golden.display());
    let dir = common::work_dir("render-paths-cdb");
    let base = dir.path().join("edge.dci");
    // A file with a game the parser refuses is skipped whole (and the exit status says so);
    // the others are imported.
    std::process::Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args(["import", "--create", "--lossy", "--quiet"])
        .arg(&base)
        .args(common::data_pgns())
        .output()
        .unwrap();
    let imported = same_both_ways(&base);
    assert!(imported >= 60, "{imported} games imported");
}
