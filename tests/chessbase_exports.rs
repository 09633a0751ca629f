//! ChessBase databases against ChessBase's own PGN export of them: `gamefs export` of each
//! base in tests/data/chessbase/exports must give the bytes ChessBase wrote, game for game
//! (tags, their order, move numbers, line breaks, symbols, comments, set-up positions).
//! The bases and their exports are libcbh's test data (tests/data/chessbase/README.md).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of one base and its export.
fn folder(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/chessbase/exports")
        .join(name)
}

/// The one file of `dir` ending in `ext`.
fn file_with(dir: &Path, ext: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    assert_eq!(found.len(), 1, "{}: one .{ext}", dir.display());
    found.pop().unwrap()
}

/// The games of a PGN text, each with its blank line after it.
fn games(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in text.split("\n\n[") {
        let game = if out.is_empty() {
            part.to_owned()
        } else {
            format!("[{part}")
        };
        out.push(game.trim_end().to_owned());
    }
    out
}

/// `gamefs export` of the base in folder `name` equals ChessBase's export beside it, game for
/// game.
fn equals_chessbase_export(name: &str, count: usize) {
    let dir = folder(name);
    let expected = std::fs::read_to_string(file_with(&dir, "pgn")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .arg("export")
        .arg(file_with(&dir, "cbh"))
        .output()
        .expect("gamefs runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {stderr}");
    assert!(stderr.is_empty(), "{name}: {stderr}");
    let ours = String::from_utf8(out.stdout).unwrap();
    let (ours, theirs) = (games(&ours), games(&expected));
    assert_eq!(theirs.len(), count, "{name}: games in ChessBase's export");
    assert_eq!(ours.len(), count, "{name}: games exported");
    for (n, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "{name}: game {}", n + 1);
    }
}

#[test]
fn symbols_and_texts_as_chessbase_exports_them() {
    equals_chessbase_export("Annotation", 4);
}

#[test]
fn promotions_and_tournament_tags_as_chessbase_exports_them() {
    equals_chessbase_export("ManyPromotions", 7);
}

/// Games of ChessBase's Mega Database whose moves use encodings other than the usual one:
/// mode 1 (two bytes a move, the count taken off before the table; one game without moves),
/// mode 4 (a byte a move, the count taken off after the table) and mode 5 (two bytes, after);
/// the last game's teams (.cbe, named by the .cbj) with their numbers and countries.
#[test]
fn other_move_encodings_and_teams_as_chessbase_exports_them() {
    equals_chessbase_export("UnusualStart", 9);
}

/// Games whose moves end without the game's end mark: one runs into bytes that name no
/// legal move (byte 111, a second queen Black does not have) and ChessBase's export ends it
/// before them, at move 54; the other just stops at the record's end.
#[test]
fn moves_without_their_end_mark_as_chessbase_exports_them() {
    equals_chessbase_export("NormalNoPop", 2);
}

/// Chess960 (mode 10) from the start and from set-up positions: Variant, SetUp and FEN with
/// the castling rooks by file (`GAga`, `Ha`), castling, and the text ChessBase's German
/// interface stored before the first move (`[#] Schach 960-Stellung 253`: a text annotation
/// in the .cba, so shown as stored; ChessBase wrote the number of the first game's start
/// into all four, even those from another start, as their records' start number says).
#[test]
fn chess960_as_chessbase_exports_it() {
    equals_chessbase_export("Chess960NonStandard", 4);
}

/// Chess960 games of ChessBase's Mega Database whose records are damaged (start numbers past
/// 959, rook squares off the board, moves that turn illegal): ChessBase's export gives them no
/// castling rights and ends each at its first move that is not legal (after 2, 0, 0 and 1
/// moves).
#[test]
fn damaged_chess960_games_as_chessbase_exports_them() {
    equals_chessbase_export("Chess960Corrupt", 4);
}

/// `gamefs check` names each game whose moves stop before their end mark (shown cut, as
/// ChessBase shows them), and fails.
#[test]
fn check_names_the_games_shown_cut() {
    let out = Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .arg("check")
        .arg(file_with(&folder("NormalNoPop"), "cbh"))
        .output()
        .expect("gamefs runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("game 1: record 1: the moves stop at byte 111")
            && said.contains("game 2: record 2: the moves stop at byte 66"),
        "{said}"
    );
}

#[test]
fn annotator_queries_find_the_games_chessbase_exports_with_that_annotator() {
    for name in ["Annotation", "Chess960NonStandard"] {
        let dir = folder(name);
        let export = std::fs::read_to_string(file_with(&dir, "pgn")).unwrap();
        let annotators: Vec<Option<String>> = games(&export)
            .iter()
            .map(|g| {
                g.lines()
                    .find_map(|l| l.strip_prefix("[Annotator \""))
                    .map(|a| a.trim_end_matches("\"]").to_owned())
            })
            .collect();
        let coll = gamefs::collection::open(
            &file_with(&dir, "cbh"),
            &gamefs::store::OpenOptions::default(),
        )
        .unwrap();
        let named: Vec<&String> = annotators.iter().flatten().collect();
        assert!(!named.is_empty(), "{name}");
        let index = coll.header_index(0);
        assert!(index.is_some(), "{name}: a header index");
        for annotator in named {
            let text = format!(
                "annotator=={}",
                annotator.replace(',', "%2C").replace(' ', "%20")
            );
            let query = gamefs::collection::query::Query::parse(&text).unwrap();
            let found = coll.query(&query, None, &[]).unwrap();
            assert_eq!(
                coll.query(&query, index.as_ref(), &[]).unwrap(),
                found,
                "{name}"
            );
            let want: Vec<u32> = (0..annotators.len() as u32)
                .filter(|&n| annotators[n as usize].as_ref() == Some(annotator))
                .collect();
            assert_eq!(found, want, "{name}: {text}");
        }
    }
}
