//! A PGN collection copied into `games/` is imported game by game: the games the database can
//! hold are stored in file order, each game it cannot hold is left out alone, its reason in
//! `.gamefs/errors` and its text (with the full report) in `.gamefs/rejected/`. `-o strict`
//! keeps the all-or-nothing copy.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, listing, run_with_timeout, scratch};

/// Game `event` with these moves (result `*`).
fn game(event: &str, moves: &str) -> String {
    format!(
        "[Event \"{event}\"]\n[White \"Bulk, W\"]\n[Black \"Bulk, B\"]\n[Result \"*\"]\n\n{moves} *\n\n"
    )
}

/// A collection of seven games: one SCID's import keeps cut short (an illegal move) and one
/// no database can hold (a comment larger than a SCID record), between five good ones.
fn collection() -> String {
    [
        game("Good 1", "1. e4 e5"),
        game("Good 2", "1. d4 d5"),
        game("Good 3", "1. c4 e5"),
        game("Illegal", "1. e4 e5 2. Ke3"),
        game("Good 4", "1. Nf3 d5"),
        game(
            "Huge comment",
            &format!("1. e4 {{{}}} e5", "c".repeat(200_000)),
        ),
        game("Good 5", "1. g3 g6"),
    ]
    .concat()
}

/// `cp` of `text` (written beside the mount first) to `dest`; the errno cp reports, if any.
fn cp(dir: &Path, text: &str, dest: &Path) -> Result<(), String> {
    let src = dir.join("collection.pgn");
    std::fs::write(&src, text).unwrap();
    let out = run_with_timeout(
        Command::new("cp").arg(&src).arg(dest),
        Duration::from_secs(60),
    );
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The Event tags of the games in `games/` numbered after `before`, in number order.
fn events_after(games: &Path, before: usize) -> Vec<String> {
    let files: Vec<_> = listing(games)
        .into_iter()
        .filter(|p| p.file_name().unwrap().as_encoded_bytes()[0].is_ascii_digit())
        .collect();
    files[before..]
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let line = text.lines().find(|l| l.starts_with("[Event ")).unwrap();
            line["[Event \"".len()..line.len() - 2].to_owned()
        })
        .collect()
}

#[test]
fn a_copied_collection_stores_every_game_it_can_and_keeps_the_rest() {
    let dir = scratch("bulk");
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let before = events_after(&games, 0).len();
    cp(dir.path(), &collection(), &games.join("collection.pgn")).expect("the copy succeeds");
    assert_eq!(
        events_after(&games, before),
        ["Good 1", "Good 2", "Good 3", "Illegal", "Good 4", "Good 5"],
        "the good games and the one cut short, in file order"
    );
    let rejected = std::fs::read_to_string(m.join(".gamefs/rejected/collection.pgn")).unwrap();
    assert_eq!(
        rejected,
        [
            game("Illegal", "1. e4 e5 2. Ke3"),
            game(
                "Huge comment",
                &format!("1. e4 {{{}}} e5", "c".repeat(200_000))
            )
        ]
        .concat(),
        "the game cut short and the one left out, as they were written"
    );
    let report =
        std::fs::read_to_string(m.join(".gamefs/rejected/collection.pgn.report.txt")).unwrap();
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 3, "{report}");
    assert!(
        lines[0].contains("6 game(s) imported (1 with changes), 1 left out"),
        "{report}"
    );
    assert!(
        lines[1].starts_with("game 4, line 22: stored with changes: line 27: column 13: ")
            && lines[1].contains("illegal move 2. Ke3")
            && lines[1].contains("the game cut here"),
        "{report}"
    );
    assert!(
        lines[2].starts_with("game 6, line 36: ") && lines[2].contains("131071"),
        "{report}"
    );
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains("collection.pgn: left out game 6, line 36"),
        "{errors}"
    );
    assert!(
        errors.contains("collection.pgn: 6 game(s) imported (1 with changes), 1 left out"),
        "{errors}"
    );
    // Mended and copied back from rejected/, the illegal game is stored whole; the huge
    // comment is still left out.
    let fixed = rejected.replace("2. Ke3", "2. Nf3");
    cp(dir.path(), &fixed, &games.join("fixed.pgn")).expect("the copy succeeds");
    assert_eq!(events_after(&games, before + 6), ["Illegal"]);
    drop(m);
    // SCID reads what was stored.
    let export = crate::save::scid_export(&db);
    for event in ["Good 1", "Good 5", "Illegal"] {
        assert!(export.contains(&format!("[Event \"{event}\"]")), "{event}");
    }
    assert!(!export.contains("[Event \"Huge comment\"]"));
}

#[test]
fn a_strict_mount_refuses_a_collection_with_a_bad_game_whole() {
    let dir = scratch("bulk-strict");
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &["-o", "strict"]);
    let games = m.join("games");
    let before = events_after(&games, 0).len();
    let refused = cp(dir.path(), &collection(), &games.join("collection.pgn"));
    assert!(refused.is_err(), "the copy fails");
    assert_eq!(events_after(&games, 0).len(), before, "nothing stored");
    let rejected = std::fs::read_to_string(m.join(".gamefs/rejected/collection.pgn")).unwrap();
    assert_eq!(rejected, collection(), "the whole text is kept");
}

/// Real-world files (tests/data/realworld.tar.xz: an engine match, lichess exports, a Latin-1
/// CRLF collection, lessons with comments before their tags, a chess.com export with Chess960
/// games, a broadcast with a game SCID cannot read)
/// copied into a mount give the database `gamefs import` gives from the same files, byte for
/// byte: the mount reads and fits them as the import does (which realworld_oracle checks
/// against SCID), games left out included.
#[test]
fn real_world_files_copied_in_give_what_gamefs_import_gives() {
    let dir = scratch("bulk-realworld");
    let unpacked = dir.path().join("corpus");
    std::fs::create_dir(&unpacked).unwrap();
    let tar = run_with_timeout(
        Command::new("tar")
            .arg("-xJf")
            .arg(crate::harness::repo().join("tests/data/realworld.tar.xz"))
            .arg("-C")
            .arg(&unpacked),
        Duration::from_secs(120),
    );
    assert!(tar.status.success(), "{tar:?}");
    // Files whose last game ends with its result: a copied file whose last game does not is
    // taken for one cut short, and that game left out (a_copy_cut_short_stores_no_half_game).
    let files: Vec<_> = [
        "pychess/dortmund.pgn",
        "pgn-toys-lichess/lichess.pgn",
        "kiyengine-cutechess/acid_test.pgn",
        "pychess/lichess_study_lichess-practice-the-pin_by_arex_2017.01.22.pgn",
        "chesscom-daily/cancer0707.pgn",
        "pgn4web/tilb98r2.pgn",
    ]
    .iter()
    .map(|f| unpacked.join("realworld").join(f))
    .collect();
    let copied = dir.path().join("copied");
    let imported = dir.path().join("imported");
    for db in [&copied, &imported] {
        crate::harness::gamefs_ok([Path::new("create"), db]);
    }
    {
        let m = Mount::new(&copied, dir.path(), &[]);
        for (i, file) in files.iter().enumerate() {
            let out = run_with_timeout(
                Command::new("cp")
                    .arg(file)
                    .arg(m.join(&format!("games/file{i}.pgn"))),
                Duration::from_secs(120),
            );
            assert!(out.status.success(), "cp {}: {out:?}", file.display());
        }
        let report = std::fs::read_to_string(m.join(".gamefs/rejected/file5.pgn.report.txt"))
            .expect("the report of the file with games left out");
        assert!(
            report.contains("left out") || report.contains("column"),
            "{report}"
        );
    }
    let out = run_with_timeout(
        Command::new(crate::harness::gamefs())
            .args(["import", "-q"])
            .arg(&imported)
            .args(&files),
        Duration::from_secs(120),
    );
    assert_eq!(out.status.code(), Some(4), "games left out: {out:?}");
    for ext in ["si4", "sn4", "sg4"] {
        let a = std::fs::read(copied.with_extension(ext)).unwrap();
        let b = std::fs::read(imported.with_extension(ext)).unwrap();
        assert!(a == b, ".{ext} of the copies differs from the import's");
    }
}

/// A copy cut short (a `cp` killed half-way closes the file as far as it got) stores the
/// whole games before the cut and never the half game at it: a last game without its result,
/// after others or where the text stops inside a line, is left out (and kept in
/// `.gamefs/rejected/`). Only a first game cut exactly at a line's end cannot be told from a
/// game written without its result (cuts there are not tried).
#[test]
fn a_copy_cut_short_stores_no_half_game() {
    let dir = scratch("bulk-cut");
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let whole = [
        game("Cut 1", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"),
        game("Cut 2", "1. d4 d5 2. c4 e6 3. Nc3 Nf6"),
        game("Cut 3", "1. c4 e5 2. Nc3 Nf6 3. g3 d5"),
    ];
    let text = whole.concat();
    let mut seen = 0;
    // Cuts in tags, in moves between moves and inside them, in a comment-free line end.
    for cut in (40..text.len())
        .step_by(23)
        .filter(|&c| c > whole[0].len() || !text[..c].ends_with('\n'))
    {
        let before = events_after(&games, 0).len();
        let name = format!("cut{cut}.pgn");
        let _ = cp(dir.path(), &text[..cut], &games.join(&name));
        let stored = events_after(&games, before);
        let complete = whole
            .iter()
            .filter(|g| text[..cut].contains(g.trim_end()))
            .count();
        assert_eq!(
            stored.len(),
            complete,
            "cut at {cut}: only the whole games are stored: {stored:?}"
        );
        seen += stored.len();
    }
    assert!(seen > 10, "cuts after whole games were tried ({seen})");
}
