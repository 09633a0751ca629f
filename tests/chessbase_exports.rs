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
