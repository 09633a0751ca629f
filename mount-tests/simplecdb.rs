//! A Simple Chess Database mounted and edited like a SCID one: the same tree, saves as the
//! format's own appends (new record + 8-byte offset), and refusals for what it cannot hold.

use std::path::{Path, PathBuf};

use crate::editors::drive;
use std::process::Command;

use crate::harness::{Mount, assert_tree_is_export, gamefs_ok, listing, repo, scratch, sh};

const FILES: [&str; 5] = ["dci", "dcn", "dcs", "dce", "dcg"];

/// A private copy of the golden `gen300` database (written by the reference writer).
pub(crate) fn golden_copy(dir: &Path) -> PathBuf {
    let src = repo().join("tests/data/simplecdb");
    assert!(
        src.is_dir(),
        "the golden files are missing: {} (tests/data/ of the checkout)",
        src.display()
    );
    let base = dir.join("gen300");
    for ext in FILES {
        std::fs::copy(src.join(format!("gen300.{ext}")), base.with_extension(ext)).unwrap();
    }
    base
}

pub(crate) fn export(db: &Path) -> String {
    gamefs_ok([Path::new("export"), db])
}

fn bytes(db: &Path) -> Vec<Vec<u8>> {
    FILES
        .iter()
        .map(|e| std::fs::read(db.with_extension(e)).unwrap())
        .collect()
}

#[test]
fn the_tree_shows_every_game_as_export_does() {
    let dir = scratch("scdb-read");
    let db = golden_copy(dir.path());
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    assert_tree_is_export(&m, &db, 300);
}

#[test]
fn saves_append_a_record_and_repoint_only_the_offset() {
    let dir = scratch("scdb-save");
    let db = golden_copy(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let game = m.game(5);
    let text = std::fs::read_to_string(&game).unwrap();
    let dci = std::fs::read(db.with_extension("dci")).unwrap();
    let dcg_len = std::fs::metadata(db.with_extension("dcg")).unwrap().len();
    // Change the moves only (a NAG on the first move): names and header stay.
    let edited = text.replacen("\n\n1. d4", "\n\n1. d4 $1", 1);
    let edited = if edited == text {
        text.replacen("\n\n1. e4", "\n\n1. e4 $1", 1)
    } else {
        edited
    };
    assert_ne!(edited, text, "the test game starts with 1. d4 or 1. e4");
    std::fs::write(&game, &edited).unwrap();
    let dci_after = std::fs::read(db.with_extension("dci")).unwrap();
    assert_eq!(dci.len(), dci_after.len(), "no new entry");
    let changed: Vec<usize> = (0..dci.len()).filter(|&i| dci[i] != dci_after[i]).collect();
    let entry_start = 19 + 39 * 4;
    assert!(
        changed
            .iter()
            .all(|&i| (entry_start + 1..entry_start + 9).contains(&i)),
        "only game 5's offset changed: {changed:?}"
    );
    assert!(
        std::fs::metadata(db.with_extension("dcg")).unwrap().len() > dcg_len,
        "the record was appended"
    );
    drop(m);
    assert!(export(&db).contains(" $1"), "the saved game reads back");
}

#[test]
fn unchanged_saves_imports_rm_and_sed_work() {
    let dir = scratch("scdb-tools");
    let db = golden_copy(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let game = m.game(7);
    let before = bytes(&db);
    std::fs::write(&game, std::fs::read(&game).unwrap()).unwrap();
    assert!(before == bytes(&db), "an unchanged save appends nothing");
    sh(
        &m.path,
        &format!(
            "sed -i 's/^\\[Round \"[^\"]*\"\\]/[Round \"42\"]/' '{}'",
            game.display()
        ),
    );
    assert!(
        std::fs::read_to_string(m.game(7))
            .unwrap()
            .contains("[Round \"42\"]")
    );
    let pgn = dir.path().join("new.pgn");
    std::fs::write(&pgn, "[Event \"Imported\"]\n[Site \"?\"]\n[Date \"2026.11.22\"]\n[Round \"1\"]\n[White \"New, One\"]\n[Black \"New, Two\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n").unwrap();
    sh(&m.path, &format!("cp '{}' games/", pgn.display()));
    assert!(
        m.game(301)
            .to_str()
            .unwrap()
            .contains("New, One - New, Two")
    );
    let victim = m.game(9);
    std::fs::remove_file(&victim).unwrap();
    let dci = std::fs::read(db.with_extension("dci")).unwrap();
    assert_eq!(dci[19 + 39 * 8], 0xFF, "status 0xFF marks the deleted game");
    let name = victim.file_name().unwrap();
    std::fs::rename(m.join(".deleted").join(name), m.join("games").join(name)).unwrap();
    assert_eq!(
        std::fs::read(db.with_extension("dci")).unwrap()[19 + 39 * 8],
        0x00
    );
}

#[test]
fn what_the_format_cannot_hold_is_refused_unless_lossy() {
    let dir = scratch("scdb-lossy");
    let db = golden_copy(dir.path());
    let long = "Someone With A Very Long Name, Longer Than 36";
    {
        let m = Mount::new(&db, dir.path(), &[]);
        let game = m.game(3);
        let text = std::fs::read_to_string(&game).unwrap();
        let white = text
            .lines()
            .find(|l| l.starts_with("[White "))
            .unwrap()
            .to_owned();
        let before = bytes(&db);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&game)
            .unwrap();
        std::io::Write::write_all(
            &mut f,
            text.replacen(&white, &format!("[White \"{long}\"]"), 1)
                .as_bytes(),
        )
        .unwrap();
        let err = f.sync_all().unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EFBIG), "{err}");
        drop(f);
        assert!(before == bytes(&db));
        let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
        assert!(
            errors.contains("36") && errors.contains("lossy"),
            "{errors}"
        );
    }
    let m = Mount::new(&db, dir.path(), &["-o", "lossy"]);
    let game = m.game(3);
    let text = std::fs::read_to_string(&game).unwrap();
    let white = text
        .lines()
        .find(|l| l.starts_with("[White "))
        .unwrap()
        .to_owned();
    std::fs::write(
        &game,
        text.replacen(&white, &format!("[White \"{long}\"]"), 1),
    )
    .unwrap();
    let now = std::fs::read_to_string(m.game(3)).unwrap();
    assert!(
        now.contains("[White \"\"]"),
        "stored as the format allows: {now}"
    );
}

#[test]
fn vim_saves_into_a_simple_chess_database() {
    let dir = scratch("scdb-vim");
    let db = golden_copy(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let game = m.game(1);
    let name = game
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .replace('\'', "'\\''");
    drive(
        "gamefs-scdb-vim",
        &m.join("games"),
        &format!("vim '{name}'"),
        &[
            &[
                ":1s/\\[Event \"[^\"]*\"\\]/[Event \"Vim In SCDB\"]/",
                "Enter",
            ],
            &[":wq", "Enter"],
        ],
    );
    drop(m);
    assert!(export(&db).contains("[Event \"Vim In SCDB\"]"));
}

/// SCID's rules are SCID's: an EventDate far from the Date (which SCID's index cannot keep)
/// is nothing to a Simple Chess Database, which has no EventDate at all. Mounted `-o lossy`,
/// a copied game with one is stored (the EventDate is dropped as the format must); the
/// same copy into a SCID mount is refused by SCID's store, with its reason.
#[test]
fn scid_limits_do_not_apply_to_a_simple_chess_database() {
    let dir = scratch("scdb-eventdate");
    let db = golden_copy(dir.path());
    let text = "[Event \"Far event date\"]\n[Date \"????.??.??\"]\n[EventDate \"1993.09.06\"]\n\
                [White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let src = dir.path().join("far.pgn");
    std::fs::write(&src, text).unwrap();
    let copy_in = |m: &Mount| {
        let cp = Command::new("cp")
            .arg(&src)
            .arg(m.join("games/far.pgn"))
            .status()
            .unwrap();
        assert!(cp.success());
    };
    {
        let m = Mount::new(&db, dir.path(), &["-o", "lossy"]);
        let before = listing(&m.join("games")).len();
        copy_in(&m);
        assert_eq!(listing(&m.join("games")).len(), before + 1);
    }
    assert!(export(&db).contains("[Event \"Far event date\"]"));
    let scid = crate::fixtures::copy_db(crate::fixtures::edge_db(), dir.path(), "scid");
    let m = Mount::new(&scid, dir.path(), &[]);
    // Copied in, the game is stored as SCID's import stores it: without the EventDate, and
    // the report says so.
    copy_in(&m);
    let report = std::fs::read_to_string(m.join(".gamefs/rejected/far.pgn.report.txt")).unwrap();
    assert!(
        report.contains("game 1, line 1: stored with changes: EventDate 1993.09.06 dropped"),
        "{report}"
    );
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains("far.pgn: 1 game(s) imported (1 with changes), 0 left out (the report: "),
        "no text was left out, so none is named: {errors}"
    );
    // Saved over a game from an editor, the same text is refused: nothing the user wrote is
    // lost without a word.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(m.game(1))
        .unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    let saved = f.sync_all();
    assert_eq!(
        saved.map_err(|e| e.raw_os_error()),
        Err(Some(libc::EINVAL)),
        "SCID's index cannot keep that EventDate"
    );
    drop(f);
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.contains("within 3 years"), "{errors}");
}

/// pgn2dcg's own input copied into a `-o lossy` mount of an empty Simple Chess Database gives
/// the bytes pgn2dcg wrote from it: the mount reads PGN as the format's own importer does.
#[test]
fn pgn2dcgs_input_copied_in_gives_pgn2dcgs_bytes() {
    let dir = scratch("scdb-pgn2dcg");
    let golden = repo().join("tests/data/simplecdb");
    for name in ["edge", "gen300"] {
        let db = dir.path().join(format!("{name}.dci"));
        gamefs_ok([Path::new("create"), &db]);
        {
            let m = Mount::new(&db, dir.path(), &["-o", "lossy"]);
            let cp = Command::new("cp")
                .arg(golden.join(format!("{name}.pgn")))
                .arg(m.join("games/copied.pgn"))
                .status()
                .unwrap();
            assert!(cp.success());
        }
        for ext in FILES {
            let ours = std::fs::read(db.with_extension(ext)).unwrap();
            let theirs = std::fs::read(golden.join(format!("{name}.{ext}"))).unwrap();
            assert!(ours == theirs, "{name}.{ext} differs from pgn2dcg's");
        }
    }
}

/// Another program appending `white`'s game to the database `db` (base path) while a
/// writable mount holds its lock. No other program writes the format, so the project's own
/// writer stands in: it appends to a copy of the files, whose bytes are then written over
/// the database's files in place, as the format's own tools write them.
fn another_program_appends(db: &Path, white: &str) {
    use gamefs::store::ChessStore;
    use gamefs::store::simplecdb::SimpleCdb;
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir_in(db.parent().unwrap()).unwrap();
    let copy = dir.path().join("other");
    for ext in FILES {
        std::fs::copy(db.with_extension(ext), copy.with_extension(ext)).unwrap();
    }
    let text = format!(
        "[Event \"Their event\"]\n[Site \"Their site\"]\n[White \"{white}\"]\n\
         [Black \"Other, Bob\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"
    );
    let game = gamefs::text::pgn_parse::one_game(text.as_bytes()).unwrap();
    SimpleCdb::open(&copy, true, false)
        .unwrap()
        .append(&mut std::iter::once(Ok(game)))
        .unwrap();
    for ext in FILES {
        let bytes = std::fs::read(copy.with_extension(ext)).unwrap();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(db.with_extension(ext))
            .unwrap();
        f.write_all_at(&bytes, 0).unwrap();
        f.set_len(bytes.len() as u64).unwrap();
    }
}

/// Another program writing the database of a writable mount (docs/SEMANTICS.md §10a): the
/// mount shows its game after a listing of `games/`, and saves through the mount (`sed -i`,
/// `cp` of a new game), made right after another of its appends, keep its games whole.
#[test]
fn another_programs_games_are_shown_and_kept_by_saves() {
    let dir = scratch("scdb-other");
    let db = golden_copy(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    assert_eq!(listing(&m.join("games")).len(), 300);
    another_program_appends(&db, "Other, Ann");
    crate::harness::eventually("the mount shows their game", || {
        listing(&m.join("games")).len() == 301
    });
    assert!(
        m.game(301)
            .to_str()
            .unwrap()
            .contains("Other, Ann - Other, Bob")
    );
    assert!(
        std::fs::read_to_string(m.game(301))
            .unwrap()
            .contains("4. Qxf7# 1-0")
    );

    // Their next game, then at once a sed -i and a new game copied in through the mount.
    let game = m.game(5);
    another_program_appends(&db, "Other, Cy");
    sh(
        &m.path,
        &format!(
            "sed -i 's/^\\[Round \"[^\"]*\"\\]/[Round \"42\"]/' '{}'",
            game.display()
        ),
    );
    let pgn = dir.path().join("new.pgn");
    std::fs::write(&pgn, "[Event \"Imported\"]\n[White \"New, One\"]\n[Black \"New, Two\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n").unwrap();
    sh(&m.path, &format!("cp '{}' games/", pgn.display()));
    let names: Vec<String> = listing(&m.join("games"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 303, "{:?}", &names[298..]);
    assert!(
        names[301].starts_with("0302 Other, Cy - Other, Bob"),
        "{}",
        names[301]
    );
    assert!(
        names[302].starts_with("0303 New, One - New, Two"),
        "{}",
        names[302]
    );
    assert!(
        std::fs::read_to_string(m.game(5))
            .unwrap()
            .contains("[Round \"42\"]")
    );
    drop(m);
    let exported = export(&db);
    assert_eq!(exported.matches("[Event \"Their event\"]").count(), 2);
    for want in ["Other, Ann", "Other, Cy", "New, One", "[Round \"42\"]"] {
        assert!(exported.contains(want), "{want}");
    }
    let check = gamefs_ok([Path::new("check"), db.as_path()]);
    assert!(!check.contains("damaged"), "{check}");
}
