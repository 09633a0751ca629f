//! Several writers and readers at once on each format: edits of different games, imports of
//! new files and deletions racing each other and readers. Nothing acknowledged may be lost, and
//! the database read back afterwards (by SCID itself for SCID) holds exactly what was done.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, gamefs_ok, listing, scratch};

/// Save `text` as a program does: open with O_TRUNC, write, fsync (the save's answer), close.
fn save(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .create(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {path:?}: {e}"));
    f.write_all(text.as_bytes()).unwrap();
    f.sync_all()
        .unwrap_or_else(|e| panic!("save of {path:?} refused: {e}"));
}

/// Replace the value of tag `name` in a PGN text.
fn with_tag(text: &str, name: &str, value: &str) -> String {
    let prefix = format!("[{name} \"");
    let line = text
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {name} tag in\n{text}"));
    text.replacen(line, &format!("[{name} \"{value}\"]"), 1)
}

fn new_game(white: &str, round: u32) -> String {
    format!(
        "[Event \"Concurrent\"]\n[Site \"Here\"]\n[Date \"2026.11.22\"]\n[Round \"{round}\"]\n\
         [White \"{white}\"]\n[Black \"Racer, Bo\"]\n[Result \"1-0\"]\n\n\
         1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
    )
}

/// Readers going over every stored item while the writers work: each `read(2)` returns the
/// whole item, or nothing while a writer holds it truncated (as on any filesystem, an in-place
/// save is empty between its O_TRUNC and its write; a reader that opened before the writer may
/// then get the new length in zero bytes, docs/SEMANTICS.md §4). One call reads the whole
/// item: a text read in several calls can, on any filesystem, end early when a save truncates
/// the file between two of them (CI saw `read_to_string` do 32 + 32 + 64 + 128 bytes of one
/// save, then read nothing after the next save's O_TRUNC). Files still being copied in are
/// skipped.
fn read_all(dir: &Path, is_whole: impl Fn(&str) -> bool) {
    let mut buf = vec![0; 1 << 20];
    for f in listing(dir) {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("import-") || name.starts_with("new-") {
            continue;
        }
        // A file may go away (deleted, renamed) between the listing and the read.
        let Ok(mut file) = std::fs::File::open(&f) else {
            continue;
        };
        let Ok(n) = file.read(&mut buf) else {
            continue;
        };
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(
            text.bytes().all(|b| b == 0) || is_whole(&text),
            "{f:?} read half-written:\n{text}"
        );
    }
}

/// Whether `text` is a whole PGN game (not one cut short by a read racing a save).
pub(crate) fn whole_pgn(text: &str) -> bool {
    text.starts_with("[Event ") && text.trim_end().ends_with(['0', '1', '2', '*'])
}

/// Edits of games 1..=`editors` (three rounds each, tag `tag`), imports of two new files of
/// three games, and readers, all at once on the writable mount `m`.
fn race(m: &Mount, editors: u32, tag: &str) {
    let games = m.join("games");
    std::thread::scope(|s| {
        for i in 1..=editors {
            let path = games.join(format!("{i:04}.pgn"));
            s.spawn(move || {
                for round in 0..3 {
                    let text = std::fs::read_to_string(&path).unwrap();
                    save(&path, &with_tag(&text, tag, &format!("{i}{round}")));
                }
            });
        }
        for importer in 0..2 {
            let path = games.join(format!("import-{importer}.pgn"));
            s.spawn(move || {
                let text: String = (0..3)
                    .map(|g| new_game(&format!("Importer{importer}, Game{g}"), g + 1))
                    .collect();
                save(&path, &text);
            });
        }
        for _ in 0..2 {
            s.spawn(|| read_all(&games, whole_pgn));
        }
    });
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert_eq!(errors, "", "no save was refused, none saved half-written");
}

fn gamefs_export(db: &Path) -> String {
    gamefs_ok([Path::new("export"), db])
}

fn assert_race_landed(export: &str, editors: u32, tag: &str, games_before: usize) {
    assert_eq!(
        export.matches("[Event ").count(),
        games_before + 6,
        "every imported game is there, and no other"
    );
    for i in 1..=editors {
        assert!(
            export.contains(&format!("[{tag} \"{i}2\"]")),
            "editor {i}'s last save is in the database"
        );
    }
    for importer in 0..2 {
        for g in 0..3 {
            assert!(
                export.contains(&format!("[White \"Importer{importer}, Game{g}\"]")),
                "importer {importer}'s game {g} is in the database"
            );
        }
    }
}

#[test]
fn scid_writers_importers_deleters_and_readers_at_once() {
    let dir = scratch("race-scid");
    let db = copy_db(edge_db(), dir.path(), "db");
    let before = crate::save::scid_export(&db).matches("[Event ").count();
    let deleted: Vec<PathBuf>;
    {
        let m = Mount::new(&db, dir.path(), &[]);
        deleted = [10, 11].iter().map(|&n| m.game(n as usize)).collect();
        std::thread::scope(|s| {
            s.spawn(|| race(&m, 4, "Site"));
            s.spawn(|| {
                for game in &deleted {
                    std::fs::remove_file(game).unwrap();
                }
            });
        });
        let listed = listing(&m.join(".deleted"));
        for game in &deleted {
            assert!(
                listed.iter().any(|f| f.file_name() == game.file_name()),
                "{game:?} is in .deleted/"
            );
        }
    }
    // SCID reads everything back; its export holds deleted games too, so they count.
    let export = crate::save::scid_export(&db);
    assert_race_landed(&export, 4, "Site", before);
    let store = gamefs::store::scid::ScidDatabase::open(&db, false).unwrap();
    use gamefs::store::ChessStore;
    assert!(store.summary(9).deleted && store.summary(10).deleted);
}

#[test]
fn simplecdb_writers_importers_and_readers_at_once() {
    let dir = scratch("race-scdb");
    let db = crate::simplecdb::golden_copy(dir.path());
    let before = gamefs_export(&db).matches("[Event ").count();
    {
        let m = Mount::new(&db, dir.path(), &[]);
        race(&m, 4, "Round");
    }
    assert_race_landed(&gamefs_export(&db), 4, "Round", before);
}

#[test]
fn go_adders_removers_and_readers_at_once() {
    let dir = scratch("race-go");
    let db = crate::go9::example_db(dir.path());
    let boards = [
        "AB[aa][bb]AW[cc]",
        "AB[ab][ba]AW[dd]",
        "AB[ee]AW[ff][gg]",
        "AB[hh][ii]AW[ac]",
    ];
    {
        let m = Mount::new(&db, dir.path(), &[]);
        let positions = m.join("positions");
        let removed = positions.join("31846ceb8015dc92-0-W.sgf");
        std::thread::scope(|s| {
            for (i, stones) in boards.iter().enumerate() {
                let path = positions.join(format!("new-{i}.sgf"));
                s.spawn(move || save(&path, &format!("(;FF[4]GM[1]SZ[9]{stones}PL[B])")));
            }
            s.spawn(|| std::fs::remove_file(&removed).unwrap());
            for _ in 0..2 {
                s.spawn(|| read_all(&positions, |t| t.starts_with("(;") && t.ends_with(")\n")));
            }
        });
        assert_eq!(listing(&positions).len(), 5 + boards.len() - 1);
    }
    // Read back from the files by a fresh process.
    let sgf = gamefs_ok([Path::new("go9"), Path::new("sgf"), &db]);
    assert_eq!(sgf.matches("(;").count(), 5 + boards.len() - 1, "{sgf}");
    assert!(
        !sgf.contains("31846ceb8015dc92-0-W"),
        "the removed position is gone"
    );
    let stored: Vec<(Vec<&str>, Vec<&str>)> = sgf
        .split("(;")
        .skip(1)
        .map(|record| (stones_of(record, "AB"), stones_of(record, "AW")))
        .collect();
    for stones in boards {
        let (black, white) = stones.split_once("AW").unwrap();
        let want = (stones_of(black, "AB"), stones_of(white, ""));
        assert!(
            stored.contains(&want),
            "{stones} is in the database:\n{sgf}"
        );
    }
}

/// The points of an SGF property list (`AB[aa][bb]`), sorted.
fn stones_of<'a>(record: &'a str, property: &str) -> Vec<&'a str> {
    let Some(at) = record.find(property) else {
        return Vec::new();
    };
    let mut rest = &record[at + property.len()..];
    let mut points = Vec::new();
    while let Some(value) = rest.strip_prefix('[') {
        let end = value.find(']').unwrap();
        points.push(&value[..end]);
        rest = &value[end + 1..];
    }
    points.sort();
    points
}
