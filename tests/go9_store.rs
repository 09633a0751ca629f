//! The 9x9 store: byte-exact appends and removals, ids and tiebreaks, scores, the lock,
//! damaged records (listed, the rest served, never a panic) and clear errors for files that
//! cannot be used at all.

mod go9_common;

use std::path::Path;

use gamefs::ErrorKind;
use gamefs::collection::Collection;
use gamefs::game::go::{
    Board, Color, GoPosition, POINTS, PositionId, Score, Symmetry, ZobristTable,
};
use gamefs::store::go9x9::records::{self, RawId};
use gamefs::store::go9x9::{Go9Database, Go9Options, HashOrder, zobrist};
use gamefs::text::{sgf, sgf_parse};
use go9_common::{Rng, board, empty_db, write_scores};

fn one_stone() -> Board {
    board(&[
        ".........",
        ".........",
        ".........",
        "...#.....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ])
}

fn two_stones() -> Board {
    board(&[
        ".........",
        ".........",
        "......O..",
        "...#.....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ])
}

fn pos(board: Board, to_play: Color) -> GoPosition {
    GoPosition {
        board,
        to_play,
        id: None,
        scores: Vec::new(),
        extra: None,
    }
}

fn record(hash: u64, tiebreak: u8, to_play: Color, board: &Board) -> Vec<u8> {
    records::encode_position(
        &RawId {
            hash: hash.to_be_bytes(),
            tiebreak,
            to_play,
        },
        board,
        None,
    )
}

fn writable(dir: &Path) -> Go9Database {
    Go9Database::open_with(&Go9Options {
        dir: Some(dir.to_owned()),
        writable: true,
        create: true,
        ..Go9Options::default()
    })
    .unwrap()
}

const H1: u64 = 0x31846ceb8015dc92;
const H2: u64 = 0x161229a425c1a6ab;

#[test]
fn appends_are_byte_exact_and_saves_that_change_nothing_append_nothing() {
    let dir = empty_db();
    let db = writable(dir.path());
    let file = dir.path().join("positions.dat");
    assert_eq!(std::fs::read(&file).unwrap(), b"", "created empty");
    let s = db.save(&pos(one_stone(), Color::White), None).unwrap();
    assert!(s.appended);
    assert_eq!(s.id.to_string(), "31846ceb8015dc92-0-W");
    let s2 = db.save(&pos(two_stones(), Color::Black), None).unwrap();
    assert_eq!(s2.id.to_string(), "161229a425c1a6ab-0-B");
    let want = [
        record(H1, 0, Color::White, &one_stone()),
        record(H2, 0, Color::Black, &two_stones()),
    ]
    .concat();
    assert_eq!(want.len(), 184);
    assert_eq!(std::fs::read(&file).unwrap(), want);
    assert_eq!(
        &want[..10],
        b"\x31\x84\x6c\xeb\x80\x15\xdc\x92\x00W",
        "big-endian hash"
    );

    // The same position again, or a rotation of it: nothing appended, the same id.
    let again = db.save(&pos(one_stone(), Color::White), None).unwrap();
    assert_eq!((again.id, again.appended), (s.id, false));
    let rotated = db
        .save(
            &pos(one_stone().transformed(Symmetry::ALL[3]), Color::White),
            None,
        )
        .unwrap();
    assert_eq!((rotated.id, rotated.appended), (s.id, false));
    assert_eq!(std::fs::read(&file).unwrap(), want);

    // The other player to move is another position with the same hash and tiebreak.
    let b = db.save(&pos(one_stone(), Color::Black), None).unwrap();
    assert!(b.appended);
    assert_eq!(b.id.to_string(), "31846ceb8015dc92-0-B");
    assert_eq!(db.len(), 3);
    let summary = db.summary(&b.id).unwrap();
    assert_eq!((summary.stones(), summary.black, summary.white), (1, 1, 0));

    // Reopening reads back exactly what was written.
    drop(db);
    let db = Go9Database::open(dir.path(), false).unwrap();
    let ids: Vec<String> = db.positions().iter().map(|p| p.id.to_string()).collect();
    assert_eq!(
        ids,
        [
            "31846ceb8015dc92-0-W",
            "161229a425c1a6ab-0-B",
            "31846ceb8015dc92-0-B"
        ]
    );
    assert_eq!(db.hash_order(), HashOrder::BigEndian);
}

#[test]
fn remove_and_replace_rewrite_the_file_atomically() {
    let dir = empty_db();
    let db = writable(dir.path());
    let file = dir.path().join("positions.dat");
    let a = db.save(&pos(one_stone(), Color::White), None).unwrap().id;
    let b = db.save(&pos(two_stones(), Color::White), None).unwrap().id;
    let c = db.save(&pos(one_stone(), Color::Black), None).unwrap().id;
    db.remove(&b).unwrap();
    assert_eq!(
        std::fs::read(&file).unwrap(),
        [
            record(H1, 0, Color::White, &one_stone()),
            record(H1, 0, Color::Black, &one_stone())
        ]
        .concat()
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temp file left"
    );
    assert_eq!(db.remove(&b).unwrap_err().kind(), ErrorKind::NotFound);

    // Replacing a with the two-stone board: a leaves, the new record goes to the end.
    let s = db.save(&pos(two_stones(), Color::White), Some(&a)).unwrap();
    assert_eq!((s.id, s.appended, s.removed), (b, true, Some(a)));
    assert_eq!(
        std::fs::read(&file).unwrap(),
        [
            record(H1, 0, Color::Black, &one_stone()),
            record(H2, 0, Color::White, &two_stones())
        ]
        .concat()
    );
    // Replacing with an unchanged position writes nothing.
    let before = std::fs::read(&file).unwrap();
    let s = db.save(&pos(two_stones(), Color::White), Some(&b)).unwrap();
    assert_eq!((s.id, s.appended, s.removed), (b, false, None));
    // Replacing with a position already present just removes the old one.
    let s = db.save(&pos(one_stone(), Color::Black), Some(&b)).unwrap();
    assert_eq!((s.id, s.appended, s.removed), (c, false, Some(b)));
    assert_eq!(std::fs::read(&file).unwrap(), before[..92]);
    assert_eq!(
        db.save(&pos(one_stone(), Color::Black), Some(&b))
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn different_boards_with_one_hash_get_tiebreaks() {
    // A table of zero codes hashes every board to 0: every new board is a collision.
    let dir = tempfile::tempdir().unwrap();
    let zero = ZobristTable {
        black: [0; POINTS],
        white: [0; POINTS],
        ko: [0; POINTS],
    };
    std::fs::write(dir.path().join(zobrist::FILE_NAME), zobrist::render(&zero)).unwrap();
    let db = writable(dir.path());
    let a = db.save(&pos(one_stone(), Color::Black), None).unwrap().id;
    let b = db.save(&pos(two_stones(), Color::Black), None).unwrap().id;
    let a2 = db.save(&pos(one_stone(), Color::White), None).unwrap().id;
    let c = db
        .save(&pos(Board::empty(), Color::Black), None)
        .unwrap()
        .id;
    assert_eq!((a.hash, a.tiebreak), (0, 0));
    assert_eq!((b.hash, b.tiebreak), (0, 1));
    assert_eq!(a2.tiebreak, 0, "same board, other player: same tiebreak");
    assert_eq!(c.tiebreak, 2);
    // Removing the tiebreak-0 board frees 0 for the next new board.
    db.remove(&a).unwrap();
    db.remove(&a2).unwrap();
    let d = db
        .save(
            &pos(one_stone().transformed(Symmetry::ALL[6]), Color::Black),
            None,
        )
        .unwrap()
        .id;
    assert_eq!(d.tiebreak, 0);
}

#[test]
fn scores_are_shown_and_cannot_be_edited() {
    let dir = empty_db();
    let a = writable(dir.path())
        .save(&pos(one_stone(), Color::White), None)
        .unwrap()
        .id;
    write_scores(
        &dir.path().join("fuego_chinese.dat"),
        &[(a, 4, 10), (a, 5, 87)],
    );
    write_scores(&dir.path().join("gnugo_japanese.dat"), &[(a, 8, 100)]);
    let db = Go9Database::open(dir.path(), true).unwrap();
    assert_eq!(db.programs().len(), 2);
    let p = db.load(&a).unwrap();
    let shown: Vec<(String, u8, u8)> = p
        .scores
        .iter()
        .map(|s| (s.program.to_string(), s.score, s.confidence))
        .collect();
    assert_eq!(
        shown,
        [
            ("fuego_chinese".into(), 5, 87),
            ("gnugo_japanese".into(), 8, 100)
        ],
        "the later record of an id wins"
    );
    assert_eq!(db.summary(&a).unwrap().scores, p.scores);
    let text = sgf::render(&p);
    assert!(
        text.contains("GFSC[fuego_chinese:5/87][gnugo_japanese:8/100]"),
        "{text}"
    );
    assert!(
        text.contains("fuego_chinese: score 5, confidence 87\n"),
        "{text}"
    );

    // Unchanged scores with an edited board: saved (the scores stay with the old position).
    let moved = text.replace("AB[dd]", "AB[dd][ee]");
    let parsed = sgf_parse::parse(moved.as_bytes()).unwrap();
    let s = db.save(&parsed.position, Some(&a)).unwrap();
    assert!(s.appended);
    assert!(db.load(&s.id).unwrap().scores.is_empty());
    // Edited scores are refused, in GFSC or in the comment.
    let edited = text.replace("GFSC[fuego_chinese:5/87]", "GFSC[fuego_chinese:6/87]");
    let edited = edited.replace("score 5, confidence 87", "score 6, confidence 87");
    let parsed = sgf_parse::parse(edited.as_bytes()).unwrap();
    let e = db.save(&parsed.position, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("cannot be edited"), "{e}");
    assert!(e.to_string().contains("fuego_chinese 6/87"), "{e}");
    // Scores on a position that names none are refused too.
    let mut p2 = pos(two_stones(), Color::Black);
    p2.scores = vec![Score {
        program: "fuego_chinese".into(),
        score: 5,
        confidence: 1,
    }];
    assert_eq!(
        db.save(&p2, None).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    // Removing keeps the scored files as they are.
    let before = std::fs::read(dir.path().join("fuego_chinese.dat")).unwrap();
    db.remove(&s.id).unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("fuego_chinese.dat")).unwrap(),
        before
    );
}

#[test]
fn one_writer_at_a_time_and_read_only_refuses_writes() {
    let dir = empty_db();
    let db = writable(dir.path());
    let e = Go9Database::open(dir.path(), true)
        .err()
        .expect("second writer refused");
    assert_eq!(e.kind(), ErrorKind::Busy);
    assert!(e.to_string().contains("one writer"), "{e}");
    let ro = Go9Database::open(dir.path(), false).unwrap();
    let e = ro.save(&pos(one_stone(), Color::Black), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert_eq!(
        ro.remove(&ro.id_for(&one_stone(), Color::Black).unwrap())
            .unwrap_err()
            .kind(),
        ErrorKind::ReadOnly
    );
    drop(db);
    assert!(
        Go9Database::open(dir.path(), true).is_ok(),
        "lock released on drop"
    );
}

// ---- another program writing the files (docs/SEMANTICS.md §10a) ------------------------

/// Append `bytes` to `file` as another program (Cook's tools) does, a little later than the
/// store's own last write, whatever the clock's tick.
fn append_as_another_program(file: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// Replace `file` with `bytes` as an atomic rewrite does (a new file renamed over it).
fn replace_as_another_program(file: &Path, bytes: &[u8]) {
    std::thread::sleep(std::time::Duration::from_millis(20));
    let tmp = file.with_extension("other-tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, file).unwrap();
}

fn id(text: &str) -> PositionId {
    text.parse().unwrap()
}

fn ids(db: &Go9Database) -> Vec<String> {
    db.positions().iter().map(|p| p.id.to_string()).collect()
}

/// Another program appends a record to the position file of a database open for writing:
/// the next save takes it in first and appends after it, nothing is written over (before,
/// the save was refused with Busy), and the store says once that it re-read the file.
#[test]
fn a_save_catches_up_with_another_programs_append() {
    let dir = empty_db();
    let db = writable(dir.path());
    db.save(&pos(one_stone(), Color::Black), None).unwrap();
    assert!(
        !db.reload_if_changed().unwrap(),
        "its own save is no change"
    );
    let file = dir.path().join("positions.dat");
    append_as_another_program(&file, &record(H2, 0, Color::Black, &two_stones()));
    let theirs = std::fs::read(&file).unwrap();
    let s = db.save(&pos(two_stones(), Color::White), None).unwrap();
    assert!(s.appended);
    let after = std::fs::read(&file).unwrap();
    assert_eq!(after[..theirs.len()], theirs[..], "their record kept");
    assert_eq!(
        after[theirs.len()..],
        record(H2, 0, Color::White, &two_stones())
    );
    assert_eq!(db.len(), 3);
    assert!(db.reload_if_changed().unwrap(), "the catch-up is told once");
    assert!(!db.reload_if_changed().unwrap());
    // Their position is known: saving it again appends nothing.
    let again = db.save(&pos(two_stones(), Color::Black), None).unwrap();
    assert_eq!(
        (again.id, again.appended),
        (id("161229a425c1a6ab-0-B"), false)
    );
    drop(db);
    let db = Go9Database::open(dir.path(), false).unwrap();
    assert_eq!(
        ids(&db),
        [
            "31846ceb8015dc92-0-B",
            "161229a425c1a6ab-0-B",
            "161229a425c1a6ab-0-W"
        ]
    );
}

/// A removal and a replacement rewrite the file from what it holds now: another program's
/// records appended meanwhile stay.
#[test]
fn removals_and_replacements_keep_another_programs_records() {
    let dir = empty_db();
    let db = writable(dir.path());
    let file = dir.path().join("positions.dat");
    let mine = db.save(&pos(one_stone(), Color::Black), None).unwrap().id;
    append_as_another_program(&file, &record(H2, 0, Color::Black, &two_stones()));
    db.remove(&mine).unwrap();
    assert_eq!(
        std::fs::read(&file).unwrap(),
        record(H2, 0, Color::Black, &two_stones())
    );
    append_as_another_program(&file, &record(H1, 0, Color::White, &one_stone()));
    let s = db
        .save(
            &pos(two_stones(), Color::White),
            Some(&id("161229a425c1a6ab-0-B")),
        )
        .unwrap();
    assert!(s.appended);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        [
            record(H1, 0, Color::White, &one_stone()),
            record(H2, 0, Color::White, &two_stones())
        ]
        .concat()
    );
    assert!(db.reload_if_changed().unwrap());
    assert_eq!(ids(&db), ["31846ceb8015dc92-0-W", "161229a425c1a6ab-0-W"]);
}

/// Another program replacing the position file (a new file renamed over it): the store
/// reads the new file, and its next save appends to it, not to the old one.
#[test]
fn a_replaced_position_file_is_read_and_appended_to() {
    let dir = empty_db();
    let db = writable(dir.path());
    let file = dir.path().join("positions.dat");
    db.save(&pos(two_stones(), Color::Black), None).unwrap();
    replace_as_another_program(&file, &record(H1, 0, Color::White, &one_stone()));
    assert!(
        db.save(&pos(one_stone(), Color::Black), None)
            .unwrap()
            .appended
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        [
            record(H1, 0, Color::White, &one_stone()),
            record(H1, 0, Color::Black, &one_stone())
        ]
        .concat()
    );
    assert!(
        !db.contains(&id("161229a425c1a6ab-0-B")),
        "gone with the old file"
    );
    assert_eq!(db.len(), 2);
}

/// A read-only store notices another program's appends too (before, never).
#[test]
fn a_read_only_store_notices_appends() {
    let dir = empty_db();
    let file = dir.path().join("positions.dat");
    std::fs::write(&file, record(H1, 0, Color::White, &one_stone())).unwrap();
    let db = Go9Database::open(dir.path(), false).unwrap();
    assert!(!db.reload_if_changed().unwrap());
    append_as_another_program(&file, &record(H2, 0, Color::Black, &two_stones()));
    assert!(db.reload_if_changed().unwrap());
    assert!(!db.reload_if_changed().unwrap());
    assert_eq!(ids(&db), ["31846ceb8015dc92-0-W", "161229a425c1a6ab-0-B"]);
    // Scored files are re-read as well (a scoring program appends its scores).
    let scored = dir.path().join("fuego_chinese.dat");
    write_scores(&scored, &[]);
    let db = Go9Database::open(dir.path(), false).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    write_scores(&scored, &[(id("161229a425c1a6ab-0-B"), 6, 90)]);
    assert!(db.reload_if_changed().unwrap());
    assert_eq!(db.scores_of(&id("161229a425c1a6ab-0-B"))[0].score, 6);
}

/// The collection over a store another program writes: positions new to the mount get the
/// next numbers, in file order, after what a save or import of the mount's own took; the
/// others keep theirs; a position no longer in the file is gone. Item numbers stay stable for
/// the life of the mount.
#[test]
fn the_collection_numbers_another_programs_positions_and_keeps_the_others() {
    use gamefs::collection::go::GoCollection;
    let dir = empty_db();
    let file = dir.path().join("positions.dat");
    let db = writable(dir.path());
    db.save(&pos(one_stone(), Color::Black), None).unwrap();
    let coll = GoCollection::new(db);
    assert!(!coll.reload_if_changed().unwrap());
    append_as_another_program(&file, &record(H2, 0, Color::Black, &two_stones()));
    assert!(coll.reload_if_changed().unwrap());
    assert!(!coll.reload_if_changed().unwrap());
    assert_eq!(coll.count(), 2);
    assert_eq!(coll.file_name(1), "161229a425c1a6ab-0-B.sgf");
    assert_eq!(coll.item_named(b"161229a425c1a6ab-0-B.sgf"), Some(1));

    // Another append, then an import here: ours gets its number first, theirs the next.
    append_as_another_program(&file, &record(H1, 0, Color::White, &one_stone()));
    let text = sgf::render(&pos(two_stones(), Color::White));
    let report = coll
        .import(text.as_bytes(), Default::default(), &|_| {})
        .unwrap();
    assert_eq!(report.numbers, [2]);
    assert_eq!(coll.count(), 4);
    assert_eq!(coll.file_name(2), "161229a425c1a6ab-0-W.sgf");
    assert_eq!(coll.file_name(3), "31846ceb8015dc92-0-W.sgf");
    assert!(coll.reload_if_changed().unwrap(), "the tree is told");
    assert!(!coll.reload_if_changed().unwrap());

    // A save of position 1 after another append (a record of position 0's board, turned:
    // the same position again, which shows once): position 1 keeps its number.
    let turned = one_stone().transformed(Symmetry::ALL[1]);
    append_as_another_program(&file, &record(H1, 0, Color::Black, &turned));
    assert_eq!(std::fs::read(&file).unwrap().len(), 5 * 92);
    let edited = sgf::render(&pos(two_stones(), Color::Black)).replace("AB[", "AB[aa]["); // one more black stone
    assert!(coll.save(1, edited.as_bytes()).unwrap());
    assert!(!coll.deleted(1));
    assert_ne!(coll.file_name(1), "161229a425c1a6ab-0-B.sgf");
    assert_eq!(
        coll.count(),
        4,
        "their record of position 0 is no new position"
    );
    assert!(coll.reload_if_changed().unwrap());

    // Another program rewrites the file without position 0 (both its records): gone; the
    // others keep their numbers.
    let names: Vec<String> = (0..4).map(|n| coll.file_name(n)).collect();
    let zero = record(H1, 0, Color::Black, &one_stone());
    let kept: Vec<u8> = std::fs::read(&file)
        .unwrap()
        .chunks(92)
        .filter(|r| r[..10] != zero[..10])
        .flatten()
        .copied()
        .collect();
    assert_eq!(kept.len(), 3 * 92);
    replace_as_another_program(&file, &kept);
    assert!(coll.reload_if_changed().unwrap());
    assert_eq!(coll.count(), 4);
    assert!(coll.deleted(0));
    assert_eq!(coll.item_named(names[0].as_bytes()), None);
    for n in 1..4 {
        assert!(!coll.deleted(n), "{n}");
        assert_eq!(coll.file_name(n), names[n as usize]);
        assert_eq!(coll.item_named(names[n as usize].as_bytes()), Some(n));
        coll.render(n).unwrap();
    }
}

/// On a read-only mount of a damaged file, positions another program appends get numbers
/// after the damaged records, which keep theirs.
#[test]
fn damaged_records_keep_their_numbers_when_positions_are_appended() {
    use gamefs::collection::go::GoCollection;
    let dir = empty_db();
    let file = dir.path().join("positions.dat");
    let mut bad = record(H2, 0, Color::White, &two_stones());
    bad[0] ^= 1;
    std::fs::write(
        &file,
        [record(H1, 0, Color::White, &one_stone()), bad].concat(),
    )
    .unwrap();
    let coll = GoCollection::new(Go9Database::open(dir.path(), false).unwrap());
    assert_eq!(coll.count(), 2);
    assert_eq!(coll.file_name(1), "damaged-record-2.sgf");
    append_as_another_program(&file, &record(H2, 0, Color::Black, &two_stones()));
    assert!(coll.reload_if_changed().unwrap());
    assert_eq!(coll.count(), 3);
    assert_eq!(coll.file_name(1), "damaged-record-2.sgf");
    assert_eq!(coll.render(1).unwrap_err().errno(), libc::EIO);
    assert_eq!(coll.file_name(2), "161229a425c1a6ab-0-B.sgf");
    coll.render(2).unwrap();
    assert_eq!(coll.problems().len(), 1);
    assert_eq!(coll.problems()[0].item, Some(1));
}

#[test]
fn position_file_is_recognised_by_content() {
    let dir = empty_db();
    let bytes = [
        record(H1, 0, Color::White, &one_stone()),
        record(H2, 0, Color::White, &two_stones()),
    ]
    .concat();
    std::fs::write(dir.path().join("input_positions.dat"), &bytes).unwrap();
    let id: PositionId = "31846ceb8015dc92-0-W".parse().unwrap();
    write_scores(&dir.path().join("fuego_chinese.dat"), &[(id, 5, 50)]);
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let db = Go9Database::open(dir.path(), false).unwrap();
    assert_eq!(db.paths().positions, dir.path().join("input_positions.dat"));
    assert_eq!(db.len(), 2);
    assert_eq!(db.summary(&id).unwrap().scores[0].score, 5);
    // A queue file beside it: two candidates, a clear error, and --positions decides.
    std::fs::write(dir.path().join("queue.dat"), &bytes[..92]).unwrap();
    let e = Go9Database::open(dir.path(), false).err().unwrap();
    assert!(
        e.to_string()
            .contains("several position files (input_positions.dat, queue.dat)"),
        "{e}"
    );
    let db = Go9Database::open_with(&Go9Options {
        dir: Some(dir.path().to_owned()),
        positions: Some(dir.path().join("queue.dat")),
        scored: Some(vec![]),
        ..Go9Options::default()
    })
    .unwrap();
    assert_eq!(db.len(), 1);
    assert!(db.programs().is_empty());
    // No position file at all.
    let empty = empty_db();
    let e = Go9Database::open(empty.path(), false).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("no position file"), "{e}");
    // No zobrist table.
    std::fs::remove_file(dir.path().join("queue.dat")).unwrap();
    std::fs::remove_file(dir.path().join(zobrist::FILE_NAME)).unwrap();
    let e = Go9Database::open(dir.path(), false).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("zobrist_board_81.dat"), "{e}");
    // Not a directory.
    let e = Go9Database::open(&dir.path().join("notes.txt"), false)
        .err()
        .unwrap();
    assert_eq!(e.kind(), ErrorKind::NotADirectory);
}

#[test]
fn little_endian_files_are_read_and_extended_little_endian() {
    let dir = empty_db();
    let le = records::encode_position(
        &RawId {
            hash: H1.to_le_bytes(),
            tiebreak: 0,
            to_play: Color::White,
        },
        &one_stone(),
        None,
    );
    std::fs::write(dir.path().join("positions.dat"), &le).unwrap();
    let db = Go9Database::open(dir.path(), true).unwrap();
    assert_eq!(db.hash_order(), HashOrder::LittleEndian);
    assert_eq!(db.positions()[0].id.hash, H1);
    db.save(&pos(two_stones(), Color::White), None).unwrap();
    let bytes = std::fs::read(dir.path().join("positions.dat")).unwrap();
    assert_eq!(&bytes[92..100], &H2.to_le_bytes());
}

/// The positions `db` serves, loaded, by id.
fn loaded(db: &Go9Database) -> Vec<GoPosition> {
    db.positions()
        .iter()
        .map(|s| db.load(&s.id).unwrap())
        .collect()
}

#[test]
fn damaged_records_are_listed_and_the_rest_served() {
    let dir = empty_db();
    let file = dir.path().join("positions.dat");
    let good = record(H1, 0, Color::White, &one_stone());
    let other = record(H2, 0, Color::White, &two_stones());
    std::fs::write(&file, [good.clone(), other.clone()].concat()).unwrap();
    let healthy = loaded(&Go9Database::open(dir.path(), false).unwrap());
    assert_eq!(healthy.len(), 2);
    // Each damage in the middle of the file (record 2 of 3), then at its end.
    let mut board_byte = good.clone();
    board_byte[10 + 40] = b'X';
    let mut player = good.clone();
    player[9] = 0;
    let mut flag = good.clone();
    flag[91] = 2;
    let mut hash = good.clone();
    hash[0] ^= 1;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            [good.clone(), board_byte, other.clone()].concat(),
            "record 2 at byte 92: board byte 41 (row 5, column 5) is 'X', expected",
        ),
        (
            [good.clone(), player, other.clone()].concat(),
            "record 2 at byte 92: player byte is 0x00, expected 'B' or 'W'",
        ),
        (
            [good.clone(), flag, other.clone()].concat(),
            "record 2 at byte 92: flag byte (byte 92) is 0x02, expected 0 or 1 (taken as a 92-byte",
        ),
        (
            [good.clone(), hash, other.clone()].concat(),
            "record 2 at byte 92: stored hash 30846ceb8015dc92 does not match its board, which \
             hashes to 31846ceb8015dc92",
        ),
        (
            [good.clone(), other.clone(), good[..91].to_vec()].concat(),
            "record 3 at byte 184: 91 bytes at the end (from byte 184) are not a whole position",
        ),
        (
            [good.clone(), other.clone(), {
                let mut cut = good.clone();
                cut[91] = 1;
                cut
            }]
            .concat(),
            "record 3 at byte 184: flag 1 announces 8 bytes of extra info, but the file ends \
             after 0",
        ),
    ];
    for (bytes, want) in cases {
        std::fs::write(&file, &bytes).unwrap();
        let db = Go9Database::open(dir.path(), false)
            .unwrap_or_else(|e| panic!("{want}: the open must succeed: {e}"));
        assert_eq!(db.damaged().len(), 1, "{want}");
        let shown = db.damaged()[0].describe("positions.dat");
        assert!(shown.contains(want), "{shown}\n/ {want}");
        assert_eq!(
            loaded(&db),
            healthy,
            "{want}: the healthy positions read as before"
        );
        // A damaged database is not opened for writing (a rewrite would drop the record).
        let e = Go9Database::open(dir.path(), true).err().expect(want);
        assert_eq!(e.kind(), ErrorKind::ReadOnly, "{want}");
        assert!(e.to_string().contains(want), "{e}");
        // The collection shows it as an unreadable file of its own.
        let coll = gamefs::collection::go::GoCollection::new(db);
        let problems = coll.problems();
        assert_eq!(problems.len(), 1);
        let n = problems[0].item.unwrap();
        assert!(problems[0].unreadable && problems[0].message.contains(want));
        let name = coll.file_name(n);
        assert!(
            name.starts_with("damaged-record-") && name.ends_with(".sgf"),
            "{name}"
        );
        assert_eq!(coll.item_named(name.as_bytes()), Some(n));
        let e = coll.render(n).unwrap_err();
        assert_eq!(e.errno(), libc::EIO);
        assert!(e.to_string().contains(want), "{e}");
        assert!(coll.view_keys(0, n).is_empty() && !coll.deleted(n));
        assert_eq!(coll.count(), 3);
    }
    // A file none of whose records match the table was made with another table: refused.
    let mut bad = good.clone();
    bad[0] ^= 1;
    std::fs::write(&file, &bad).unwrap();
    let e = Go9Database::open(dir.path(), false).err().unwrap();
    assert_eq!(e.errno(), libc::EIO);
    assert!(
        e.to_string()
            .contains("no record's stored hash matches its board: record 1 at byte 0"),
        "{e}"
    );
    // Scored files: a cut record and a record that is no score are left out and listed.
    std::fs::write(&file, [good.clone(), other].concat()).unwrap();
    let id: PositionId = "31846ceb8015dc92-0-W".parse().unwrap();
    let scored = dir.path().join("fuego_chinese.dat");
    write_scores(&scored, &[(id, 5, 87)]);
    let mut bytes = std::fs::read(&scored).unwrap();
    bytes.extend([0u8; 12]);
    bytes.push(7);
    std::fs::write(&scored, &bytes).unwrap();
    let db = Go9Database::open(dir.path(), false).unwrap();
    let problems = db.score_problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("fuego_chinese.dat: record 2 at byte 12: score 0 (3..8"));
    assert!(problems[1].contains("record 3 at byte 24: 25 bytes is not a whole number"));
    assert_eq!(db.scores_of(&id)[0].score, 5, "the healthy score is kept");
    assert_eq!(
        Go9Database::open(dir.path(), true).err().unwrap().kind(),
        ErrorKind::ReadOnly
    );
}

/// A file of thousands of positions has its stored hashes checked on several threads: each
/// record against its own board, so the one damaged record is found at its own place, late in
/// the file, and every other position is served.
#[test]
fn every_record_of_a_big_file_is_checked_against_its_own_board() {
    let dir = empty_db();
    let table = zobrist::load(&dir.path().join(zobrist::FILE_NAME)).unwrap();
    let mut rng = Rng(0x00B1_6F11);
    let mut seen = std::collections::HashSet::new();
    let mut records = Vec::new();
    while records.len() < 10_000 {
        let moves = 1 + rng.below(40);
        let (_, b) = go9_common::random_game(&mut rng, moves);
        let (hash, _) = table.canonical(&b);
        if seen.insert(hash) {
            records.push(record(hash, 0, Color::Black, &b));
        }
    }
    let damaged = 9_001;
    records[damaged - 1][0] ^= 0x80;
    std::fs::write(dir.path().join("positions.dat"), records.concat()).unwrap();
    let db = Go9Database::open(dir.path(), false).unwrap();
    let found: Vec<usize> = db.damaged().iter().map(|d| d.number).collect();
    assert_eq!(found, [damaged]);
    assert!(
        db.damaged()[0]
            .describe("positions.dat")
            .contains("does not match its board")
    );
    assert_eq!(db.positions().len(), 9_999);
}

#[test]
fn mutated_files_never_panic() {
    let dir = empty_db();
    {
        let db = writable(dir.path());
        for b in [one_stone(), two_stones()] {
            for c in [Color::Black, Color::White] {
                db.save(&pos(b, c), None).unwrap();
            }
        }
        let id = db.positions()[0].id;
        write_scores(
            &dir.path().join("fuego_chinese.dat"),
            &[(id, 5, 87), (id, 3, 0)],
        );
    }
    let names = ["positions.dat", "fuego_chinese.dat", zobrist::FILE_NAME];
    let originals: Vec<Vec<u8>> = names
        .iter()
        .map(|n| std::fs::read(dir.path().join(n)).unwrap())
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut opened, mut refused) = (0, 0);
    for round in 0..600 {
        let which = round % names.len();
        let mut bytes = originals[which].clone();
        for _ in 0..=rng.below(3) {
            match rng.below(4) {
                0 if !bytes.is_empty() => {
                    let i = rng.below(bytes.len());
                    bytes[i] = rng.next_u64() as u8;
                }
                1 if !bytes.is_empty() => {
                    let n = rng.below(bytes.len());
                    bytes.truncate(n);
                }
                2 => {
                    let i = rng.below(bytes.len() + 1);
                    bytes.insert(i, b"#O.BW\x00\x01\n,"[rng.below(9)]);
                }
                _ => {
                    let i = rng.below(bytes.len() + 1);
                    let j = rng.below(bytes.len() + 1);
                    let (i, j) = (i.min(j), i.max(j));
                    bytes.drain(i..j);
                }
            }
        }
        std::fs::write(dir.path().join(names[which]), &bytes).unwrap();
        match Go9Database::open(dir.path(), false) {
            Ok(db) => {
                opened += 1;
                for s in db.positions() {
                    let p = db.load(&s.id).unwrap();
                    let text = sgf::render(&p);
                    let back = sgf_parse::parse(text.as_bytes());
                    // Stored boards may hold groups without liberties; those are refused, never a panic.
                    if let Ok(back) = back {
                        assert_eq!(back.position.board, p.board);
                    }
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
        std::fs::write(dir.path().join(names[which]), &originals[which]).unwrap();
    }
    assert!(
        opened > 0 && refused > 0,
        "{opened} opened, {refused} refused"
    );
}

#[test]
fn ff1_and_ff3_texts_save_the_expected_position() {
    let dir = empty_db();
    let db = writable(dir.path());
    // FF[1] (Smart-Go): text before the tree, lowercase in names, no FF, a tt pass.
    let ff1 = "Smart Game Board file\n(;GaMe[1]SiZe[9]\n;Black[dd];White[gc];Black[tt];White[tt])";
    let p = sgf_parse::parse(ff1.as_bytes()).unwrap();
    let s = db.save(&p.position, None).unwrap();
    assert_eq!(s.id.to_string(), "161229a425c1a6ab-0-B");
    // FF[3]: setup and a move in one node, compressed list, a capture on the main line.
    let ff3 = "(;FF[3]GM[1]SZ[9]AB[ab:ac]AW[aa][ba][bb][bc]W[ad];B[dd]PL[W])";
    let p = sgf_parse::parse(ff3.as_bytes()).unwrap();
    assert_eq!(p.position.to_play, Color::White);
    assert_eq!(
        p.position.board,
        board(&[
            "OO.......",
            ".O.......",
            ".O.......",
            "O..#.....",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
        ])
    );
    assert!(db.save(&p.position, None).unwrap().appended);
    // A 19x19 text is refused with a clear message.
    let e = sgf_parse::parse(b"(;FF[4]SZ[19];B[pd])").unwrap_err();
    assert!(e.to_string().contains("board size 19"), "{e}");
}
