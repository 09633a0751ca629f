//! Simple Chess Database: codec round trips over generated games, malformed files (never a
//! panic), and store-level writes (replace, append, delete/restore, no-op saves, refused and
//! lossy saves, compact).

use std::path::{Path, PathBuf};

use gamefs::error::ErrorKind;
use gamefs::game::replay::position_from_fen;
use gamefs::game::{ChessGame, Line, MoveNode, Ply, StartPosition};
use gamefs::store::simplecdb::{self, EXTENSIONS, SimpleCdb, codec};
use gamefs::store::{ChessStore, OpenOptions};
use gamefs::testing::{GameShape, Rng, random_game, random_line};
use gamefs::text::{pgn, pgn_parse};
use shakmaty::{Chess, Position};

fn golden(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/simplecdb");
    assert!(
        dir.join("edge.dci").is_file(),
        "the golden files are missing: expected {} (tests/data/ of the checkout)",
        dir.display()
    );
    dir.join(name)
}

/// A copy of golden database `name` in a temp dir; returns (dir, base).
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join(name);
    for ext in EXTENSIONS {
        let from = golden(&format!("{name}.{ext}"));
        let to = simplecdb::with_ext(&base, ext);
        std::fs::write(&to, std::fs::read(from).unwrap()).unwrap();
    }
    (dir, base)
}

fn files(base: &Path) -> Vec<Vec<u8>> {
    EXTENSIONS
        .iter()
        .map(|e| std::fs::read(simplecdb::with_ext(base, e)).unwrap())
        .collect()
}

fn open(base: &Path, writable: bool, lossy: bool) -> SimpleCdb {
    SimpleCdb::open(base, writable, lossy).unwrap()
}

// ---- generated games -------------------------------------------------------------------

/// Games a Simple Chess Database holds without loss: variations only after a line's first
/// move and never empty or opened by a comment, start positions with promotions, castling
/// rights and an en passant square, comments long enough for every record length form, and
/// NAG runs over the 127-NAG token.
fn simplecdb_shape() -> GameShape {
    fn comment(rng: &mut Rng) -> Option<String> {
        match rng.below(12) {
            0 => Some("x".repeat(1 + rng.below(300))),
            1 => Some("é comment".to_string()),
            2 => Some("a".repeat(70_000)),
            _ => None,
        }
    }
    GameShape {
        random_headers: false,
        fen_percent: 33,
        starts: &[
            "8/1P1P1P1P/8/8/8/8/k7/7K w - - 0 1",
            "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "4k3/P7/8/8/8/8/7p/4K3 b - - 0 1",
        ],
        start_plies: |_| 0,
        line_len: |rng, depth| {
            if depth == 0 {
                rng.below(80)
            } else {
                1 + rng.below(6)
            }
        },
        max_plies: usize::MAX,
        max_depth: 3,
        variation_percent: 17,
        max_variations: 1,
        first_move_variations: false,
        empty_variations: false,
        null_percent: 4,
        rare_move_percent: 0,
        nags: |rng| match (rng.below(5), rng.below(20)) {
            (0, 0) => 130,
            (0, _) => 1 + rng.below(3),
            _ => 0,
        },
        comment,
        line_comment: |rng, depth| if depth == 0 { comment(rng) } else { None },
    }
}

#[test]
fn generated_games_round_trip_through_the_codec() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut forms = std::collections::BTreeSet::new();
    for _ in 0..400 {
        let g = random_game(&mut rng, &simplecdb_shape());
        let (body, losses) = codec::encode_body(&g.start, &g.moves).unwrap();
        assert!(losses.is_empty(), "{losses:?}");
        let record = codec::encode_record(&body).unwrap();
        forms.insert(record[0].max(0x80));
        let (hl, len) = codec::record_extent(&record).unwrap();
        assert_eq!(len, body.len());
        assert_eq!(&record[hl..], &body[..]);
        let (start, moves) = codec::decode_body(&body).unwrap();
        assert_eq!(start, g.start);
        assert_eq!(moves, g.moves);
    }
    assert!(forms.len() >= 4, "length forms seen: {forms:x?}");
}

#[test]
fn every_length_form_at_its_boundary() {
    // A game whose body is exactly n bytes: start marker, one move (2 bytes), a comment.
    for n in [10, 126, 127, 128, 254, 255, 256, 65_534, 65_535, 65_536] {
        let header = 1 + 2 + 1; // marker, move, comment token
        let mut text_len = n - header - 1;
        let body = loop {
            let mut moves = Line::default();
            let e4 = Chess::default().legal_moves()[0];
            let mut node = MoveNode::new(Ply::Move(e4));
            node.comment = Some("c".repeat(text_len));
            moves.moves.push(node);
            let (body, _) = codec::encode_body(&StartPosition::Standard, &moves).unwrap();
            if body.len() == n {
                break body;
            }
            text_len -= body.len() - n;
        };
        let record = codec::encode_record(&body).unwrap();
        let prefix = &record[..record.len() - n];
        match n {
            0..=126 => assert_eq!(prefix, [n as u8]),
            127..=254 => assert_eq!(prefix, [0x81, n as u8]),
            255..=65_534 => assert_eq!(prefix, [0x82, (n >> 8) as u8, n as u8]),
            _ => assert_eq!(prefix[0], 0x83),
        }
        let (start, moves) = codec::decode_body(&body).unwrap();
        assert_eq!(start, StartPosition::Standard);
        assert_eq!(moves.moves[0].comment.as_ref().unwrap().len(), text_len);
    }
}

#[test]
fn tree_losses_are_reported() {
    let pos = Chess::default();
    let four_moves = GameShape {
        line_len: |_, _| 4,
        max_depth: 0,
        ..simplecdb_shape()
    };
    let mut budget = usize::MAX;
    let mut moves = random_line(&mut Rng(7), &four_moves, &pos, 0, &mut budget);
    let alt = pos.legal_moves()[5];
    moves.moves[0].variations.push(Line {
        comment: Some("start".into()),
        moves: vec![MoveNode::new(Ply::Move(alt))],
    });
    moves.moves[0].variations.push(Line::default());
    let (_, losses) = codec::encode_body(&StartPosition::Standard, &moves).unwrap();
    assert_eq!(losses.len(), 2, "{losses:?}");
}

// ---- malformed files -------------------------------------------------------------------

#[test]
fn mutated_game_bytes_never_panic() {
    let (_d, base) = copy_of("edge");
    let dcg = simplecdb::with_ext(&base, "dcg");
    let orig = std::fs::read(&dcg).unwrap();
    let mut rng = Rng(12345);
    for i in 10..orig.len() {
        for v in [0x80u8, 0x81, 0x82, 0x83, 0x7f, 0xff, rng.next_u64() as u8] {
            let mut bytes = orig.clone();
            bytes[i] = v;
            std::fs::write(&dcg, &bytes).unwrap();
            let db = open(&base, false, false);
            for n in 0..db.game_count() {
                if let Err(e) = db.load(n) {
                    assert!(
                        matches!(e.kind(), ErrorKind::CorruptRecord | ErrorKind::Io),
                        "{e}"
                    );
                }
            }
        }
    }
}

#[test]
fn token_bytes_0x80_to_0x83_are_corrupt() {
    for t in 0x80u8..=0x83 {
        let e = codec::decode_body(&[0x00, 0x03, 0x1c, t]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CorruptRecord);
    }
}

#[test]
fn truncated_files_give_errors_not_panics() {
    for ext in EXTENSIONS {
        let (_d, base) = copy_of("edge");
        let path = simplecdb::with_ext(&base, ext);
        let orig = std::fs::read(&path).unwrap();
        for len in 0..orig.len() {
            std::fs::write(&path, &orig[..len]).unwrap();
            if let Ok(db) = SimpleCdb::open(&base, false, false) {
                for n in 0..db.game_count() {
                    if let Err(e) = db.load(n) {
                        assert_ne!(e.kind(), ErrorKind::Io, "{ext} at {len}: {e}");
                    }
                }
            }
        }
    }
    // A truncated game file: the last game is a corrupt record, the others still load.
    let (_d, base) = copy_of("edge");
    let dcg = simplecdb::with_ext(&base, "dcg");
    let orig = std::fs::read(&dcg).unwrap();
    std::fs::write(&dcg, &orig[..orig.len() - 3]).unwrap();
    let db = open(&base, false, false);
    assert!(db.load(0).is_ok());
    assert_eq!(db.load(5).unwrap_err().kind(), ErrorKind::CorruptRecord);
}

#[test]
fn unknown_version_and_bad_lengths() {
    let (_d, base) = copy_of("edge");
    let dci = simplecdb::with_ext(&base, "dci");
    let mut bytes = std::fs::read(&dci).unwrap();
    bytes[10] = 1;
    std::fs::write(&dci, &bytes).unwrap();
    let e = gamefs::store::open(&base, false).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::UnknownFormat);
    assert!(e.message().contains("version 0x01"), "{e}");
    // A length that runs past the end of the file, and an offset outside the file.
    let (_d, base) = copy_of("edge");
    let dcg = simplecdb::with_ext(&base, "dcg");
    let mut g = std::fs::read(&dcg).unwrap();
    g[10] = 0x84;
    std::fs::write(&dcg, &g).unwrap();
    let db = open(&base, false, false);
    assert_eq!(db.load(0).unwrap_err().kind(), ErrorKind::CorruptRecord);
    let dci = simplecdb::with_ext(&base, "dci");
    let mut i = std::fs::read(&dci).unwrap();
    i[19 + 39 + 1..19 + 39 + 9].copy_from_slice(&u64::MAX.to_be_bytes());
    std::fs::write(&dci, &i).unwrap();
    let db = open(&base, false, false);
    assert_eq!(db.load(1).unwrap_err().kind(), ErrorKind::CorruptRecord);
}

#[test]
fn a_lone_0x7f_length_is_read() {
    let (_d, base) = copy_of("edge");
    // Game 1 (len127) is stored as 81 7f + body: rewrite it as 7f + body one byte later.
    let dcg = simplecdb::with_ext(&base, "dcg");
    let mut g = std::fs::read(&dcg).unwrap();
    assert_eq!(&g[10..12], [0x81, 0x7f]);
    g[11] = 0x7f;
    g[10] = 0x00; // filler
    std::fs::write(&dcg, &g).unwrap();
    let dci = simplecdb::with_ext(&base, "dci");
    let mut i = std::fs::read(&dci).unwrap();
    i[20..28].copy_from_slice(&11u64.to_be_bytes());
    std::fs::write(&dci, &i).unwrap();
    let db = open(&base, false, false);
    assert_eq!(db.load(0).unwrap().moves.moves.len(), 63);
}

// ---- writes ----------------------------------------------------------------------------

fn game_from_pgn(text: &str) -> ChessGame {
    pgn_parse::one_game(text.as_bytes()).unwrap()
}

#[test]
fn stored_games_re_save_as_no_ops() {
    for name in ["edge", "gen300"] {
        let (_d, base) = copy_of(name);
        let before = files(&base);
        let db = open(&base, true, false);
        for n in 0..db.game_count() {
            let g = db.load(n).unwrap();
            assert!(!db.replace(n, &g).unwrap(), "{name} game {}", n + 1);
            // Through the text the user sees: render, parse, save.
            let text = pgn::render(&g).unwrap();
            let parsed = pgn_parse::one_game(text.as_bytes())
                .unwrap_or_else(|e| panic!("{name} game {}: {e}\n{text}", n + 1));
            assert!(
                !db.replace(n, &parsed).unwrap(),
                "{name} game {}: rendering re-saves as a change\n{text}",
                n + 1
            );
        }
        drop(db);
        assert_eq!(files(&base), before, "{name}: no-op saves appended nothing");
    }
}

#[test]
fn replace_appends_and_repoints_only_the_offset() {
    let (_d, base) = copy_of("edge");
    let before = files(&base);
    let db = open(&base, true, false);
    let mut g = db.load(4).unwrap();
    g.moves.moves.truncate(3);
    assert!(db.replace(4, &g).unwrap());
    assert_eq!(db.game_count(), 6);
    drop(db);
    let after = files(&base);
    assert_eq!(after[1..4], before[1..4], "names untouched");
    assert_eq!(
        &after[4][..before[4].len()],
        &before[4][..],
        "game file only grows"
    );
    let at = 19 + 39 * 4;
    let diff: Vec<usize> = (0..after[0].len())
        .filter(|&i| after[0][i] != before[0][i])
        .collect();
    assert!(
        diff.iter().all(|&i| (at + 1..at + 9).contains(&i)),
        "{diff:?}"
    );
    assert_eq!(
        u64::from_be_bytes(after[0][at + 1..at + 9].try_into().unwrap()),
        before[4].len() as u64
    );
    let db = open(&base, false, false);
    assert_eq!(db.load(4).unwrap(), g);
    assert_eq!(
        db.load(5).unwrap(),
        open(&golden("edge"), false, false).load(5).unwrap()
    );
}

#[test]
fn replace_with_new_names_reuses_or_appends_records() {
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let mut g = db.load(0).unwrap();
    g.headers.white = "B".into(); // exists: reused
    g.headers.black = "Zed".into(); // new: appended
    assert!(db.replace(0, &g).unwrap());
    let dcn = std::fs::read(simplecdb::with_ext(&base, "dcn")).unwrap();
    assert_eq!(dcn.len(), 334 + 36);
    assert_eq!(db.load(0).unwrap().headers, g.headers);
    let e = db.entry(0);
    assert_eq!(e.white, 82);
    assert_eq!(e.black, 334);
}

/// The PGN reader applies no format's limits: years past SCID's 2047 reach a Simple Chess
/// Database, which holds them up to 2099, and only the store refuses what it cannot hold.
#[test]
fn years_up_to_2099_are_stored_though_scid_cannot() {
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let text =
        |year: u32| format!("[Date \"{year}.03.04\"]\n[White \"W\"]\n[Black \"B\"]\n\n1. e4 *\n");
    let g = game_from_pgn(&text(2099));
    let numbers = db.append(&mut std::iter::once(Ok(g))).unwrap();
    assert_eq!(db.load(numbers[0]).unwrap().headers.date.year, Some(2099));
    let e = db
        .append(&mut std::iter::once(Ok(game_from_pgn(&text(2100)))))
        .unwrap_err();
    assert!(e.to_string().contains("2100"), "{e}");
}

#[test]
fn append_delete_restore() {
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let g = game_from_pgn(
        "[White \"New\"]\n[Black \"B\"]\n[Round \"2\"]\n\n1. d4 d5 (1... Nf6 {x}) 2. c4 $1 *\n",
    );
    let numbers = db.append(&mut std::iter::once(Ok(g.clone()))).unwrap();
    assert_eq!(numbers, vec![6]);
    assert_eq!(db.game_count(), 7);
    assert_eq!(db.load(6).unwrap().moves, g.moves);
    db.set_deleted(2, true).unwrap();
    assert!(db.summary(2).deleted);
    assert_eq!(db.entry(2).status, 0xFF);
    db.set_deleted(2, false).unwrap();
    assert_eq!(db.entry(2).status, 0);
    drop(db);
    let db = open(&base, false, false);
    assert_eq!(db.game_count(), 7);
    assert_eq!(db.load(6).unwrap().headers.white, "New");
    assert!(db.append(&mut std::iter::empty()).is_err(), "read-only");
}

#[test]
fn append_is_all_or_nothing() {
    let (_d, base) = copy_of("edge");
    let before = files(&base);
    let db = open(&base, true, false);
    let ok = game_from_pgn("[White \"Fresh\"]\n\n1. e4 *\n");
    let bad = game_from_pgn("[White \"x\"]\n[Round \"1.2\"]\n\n1. e4 *\n");
    let e = db
        .append(&mut vec![Ok(ok), Ok(bad)].into_iter())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.message().contains("Round"), "{e}");
    assert_eq!(db.game_count(), 6);
    drop(db);
    assert!(
        files(&base) == before,
        "index and names untouched, the appended record cut off again"
    );
}

#[test]
fn refused_saves_leave_files_byte_identical() {
    let (_d, base) = copy_of("edge");
    let before = files(&base);
    let db = open(&base, true, false);
    let cases: [(&str, &str, ErrorKind); 6] = [
        (
            "[White \"a name that is far longer than thirty-six bytes\"]\n\n1. e4 *\n",
            "White",
            ErrorKind::TooLarge,
        ),
        (
            "[Round \"1.2\"]\n\n1. e4 *\n",
            "Round",
            ErrorKind::InvalidInput,
        ),
        (
            "[ECO \"B91a3\"]\n\n1. e4 *\n",
            "ECO",
            ErrorKind::InvalidInput,
        ),
        (
            "[Opening \"Sicilian\"]\n\n1. e4 *\n",
            "extra tags",
            ErrorKind::InvalidInput,
        ),
        (
            "[Date \"2020.01.01\"]\n[EventDate \"2020.01.01\"]\n\n1. e4 *\n",
            "EventDate",
            ErrorKind::InvalidInput,
        ),
        (
            "\n1. e4 ({start} 1. d4) *\n",
            "movetext",
            ErrorKind::InvalidInput,
        ),
    ];
    for (text, field, kind) in cases {
        let g = game_from_pgn(text);
        let e = db.replace(0, &g).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.message().contains(field), "{e}");
        assert!(e.message().contains("lossy"), "{e}");
        let e = db.append(&mut std::iter::once(Ok(g))).unwrap_err();
        assert_eq!(e.kind(), kind);
    }
    drop(db);
    // Refused appends may have left unreferenced record bytes at the end of .dcg only.
    let after = files(&base);
    assert_eq!(after[..4], before[..4]);
}

#[test]
fn lossy_mode_stores_as_close_as_the_format_allows() {
    let (_d, base) = copy_of("edge");
    let db = SimpleCdb::open(&base, true, true).unwrap();
    assert!(db.lossy());
    let g = game_from_pgn(
        "[Event \"E\"]\n[White \"Wh\"]\n[Round \"1.2\"]\n[ECO \"B91a3\"]\n[Opening \"x\"]\n\n{c} 1. e4 ({start} 1. d4) *\n",
    );
    assert!(db.replace(1, &g).unwrap());
    let got = db.load(1).unwrap();
    assert_eq!(got.headers.round, "?");
    assert_eq!(got.headers.eco.as_deref(), Some("B91"));
    assert!(got.headers.extra.is_empty());
    assert_eq!(got.moves.comment.as_deref(), Some("c"));
    assert_eq!(got.moves.moves[0].variations[0].comment, None);
    // Saving the same lossy text again changes nothing.
    let before = files(&base);
    assert!(!db.replace(1, &g).unwrap());
    assert_eq!(files(&base), before);
}

#[test]
fn one_writer_at_a_time() {
    let (_d, base) = copy_of("edge");
    let _w = open(&base, true, false);
    let e = SimpleCdb::open(&base, true, false).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::Busy);
    assert!(SimpleCdb::open(&base, false, false).is_ok());
}

#[test]
fn create_then_import_then_compact() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("new");
    simplecdb::create(&base).unwrap();
    assert!(simplecdb::create(&base).is_err());
    let db = gamefs::store::open_with(
        &simplecdb::with_ext(&base, "dcg"),
        &OpenOptions {
            writable: true,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    let games: Vec<ChessGame> = (0..5)
        .map(|i| {
            game_from_pgn(&format!(
                "[White \"P{i}\"]\n[Black \"Q\"]\n\n1. e4 e5 2. Nf3 *\n"
            ))
        })
        .collect();
    db.append(&mut games.clone().into_iter().map(Ok)).unwrap();
    let mut changed = games[3].clone();
    changed.moves.moves.truncate(1);
    assert!(db.replace(3, &changed).unwrap());
    db.set_deleted(1, true).unwrap();
    drop(db);
    let report = simplecdb::compact(&base).unwrap();
    assert_eq!((report.games_before, report.games_after), (5, 4));
    assert!(report.bytes_after < report.bytes_before);
    let db = open(&base, false, false);
    let whites: Vec<String> = (0..4).map(|n| db.load(n).unwrap().headers.white).collect();
    assert_eq!(whites, ["P0", "P2", "P3", "P4"]);
    assert_eq!(db.load(2).unwrap().moves, changed.moves);
    // Compacting what one import wrote gives the bytes of importing the kept games at once.
    let again = dir.path().join("again");
    simplecdb::create(&again).unwrap();
    let db2 = open(&again, true, false);
    let kept: Vec<ChessGame> = (0..4).map(|n| db.load(n).unwrap()).collect();
    db2.append(&mut kept.into_iter().map(Ok)).unwrap();
    drop(db2);
    assert_eq!(files(&again), files(&base));
}

#[test]
fn null_move_in_check_is_a_corrupt_record() {
    let pos = position_from_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 1").unwrap();
    assert!(pos.is_check());
    let fen = "4k3/8/8/8/8/8/8/4K2r w - - 0 1";
    let mut body = vec![1, fen.len() as u8];
    body.extend(fen.as_bytes());
    body.push(codec::NULL_MOVE);
    assert_eq!(
        codec::decode_body(&body).unwrap_err().kind(),
        ErrorKind::CorruptRecord
    );
}

#[test]
fn a_name_that_reads_the_same_keeps_its_reference() {
    // gen300 game 3's White is over 36 bytes: pgn2dcg stored ref 0, which reads as "".
    let (_d, base) = copy_of("gen300");
    let before = files(&base);
    let db = open(&base, true, false);
    assert_eq!(db.entry(2).white, 0);
    let mut g = db.load(2).unwrap();
    assert_eq!(g.headers.white, "");
    g.moves.moves.truncate(10);
    assert!(db.replace(2, &g).unwrap());
    assert_eq!(db.entry(2).white, 0);
    drop(db);
    assert_eq!(files(&base)[1..4], before[1..4], "no name record appended");
}

/// Another program replacing the files under a read-only database (new files renamed over
/// the old ones): once noticed, every game is read from the new files.
#[test]
fn files_replaced_under_a_reader_are_read_once_noticed() {
    let (_d, base) = copy_of("edge");
    let (_o, other) = copy_of("gen300");
    let reader = open(&base, false, false);
    assert!(reader.load(0).is_ok());
    std::thread::sleep(std::time::Duration::from_millis(20));
    for ext in EXTENSIONS {
        std::fs::rename(
            simplecdb::with_ext(&other, ext),
            simplecdb::with_ext(&base, ext),
        )
        .unwrap();
    }
    assert!(reader.reload_if_changed().unwrap(), "the change is noticed");
    let want = open(&base, false, false);
    assert_eq!(reader.game_count(), want.game_count());
    for n in 0..want.game_count() {
        assert_eq!(reader.load(n).unwrap(), want.load(n).unwrap(), "game {n}");
    }
}

// ---- another program writing the same files (docs/SEMANTICS.md §10a) ------------------

/// Another program writing database `base` while a store has it open. No other program writes
/// the format, so the project's own writer stands in: `change` is applied through a writable
/// open of a copy of the files (the one-writer lock keeps a second handle on the files
/// themselves out), whose bytes then land on the originals: written over the same files in
/// place, as the format's own tools write, or, with `rename`, renamed over them (new files,
/// as an atomic replace leaves).
fn another_program(base: &Path, rename: bool, change: impl FnOnce(&SimpleCdb)) {
    use std::os::unix::fs::FileExt;
    // Times apart from the store's own last write, whatever the clock's tick.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let dir = tempfile::tempdir_in(base.parent().unwrap()).unwrap();
    let copy = dir.path().join("other");
    for ext in EXTENSIONS {
        std::fs::copy(
            simplecdb::with_ext(base, ext),
            simplecdb::with_ext(&copy, ext),
        )
        .unwrap();
    }
    change(&open(&copy, true, false));
    for ext in EXTENSIONS {
        let (from, to) = (
            simplecdb::with_ext(&copy, ext),
            simplecdb::with_ext(base, ext),
        );
        if rename {
            std::fs::rename(&from, &to).unwrap();
        } else {
            let bytes = std::fs::read(&from).unwrap();
            let f = std::fs::OpenOptions::new().write(true).open(&to).unwrap();
            f.write_all_at(&bytes, 0).unwrap();
            f.set_len(bytes.len() as u64).unwrap();
        }
    }
}

/// The names and moves of a game, as stored.
fn seen(db: &SimpleCdb, n: u32) -> (String, String, String, String, Line) {
    let g = db.load(n).unwrap();
    let h = g.headers;
    (h.white, h.black, h.site, h.event, g.moves)
}

const THEIRS: &str = "[Event \"Their event\"]\n[Site \"Their site\"]\n[White \"Other, Ann\"]\n\
                      [Black \"Other, Bob\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n";

/// Another program appends a game (new names, a new record, a new entry) while the database
/// is open for writing; then every kind of change through the open store catches up first:
/// their game stays whole, names included, and this store's changes land after their bytes
/// (on the code before, the replace wrote its record and names over theirs, the import its
/// entry over theirs).
#[test]
fn changes_catch_up_with_another_programs_appends() {
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let count = db.game_count();
    another_program(&base, false, |other| {
        other
            .append(&mut std::iter::once(Ok(game_from_pgn(THEIRS))))
            .unwrap();
    });
    let theirs = seen(&open(&base, false, false), count);
    assert_eq!(theirs.0, "Other, Ann");

    // A replace with a new name: its record and name records go after theirs.
    let mut mine = db.load(1).unwrap();
    mine.headers.white = "Mine, Carl".into();
    mine.moves.moves.truncate(2);
    assert!(db.replace(1, &mine).unwrap());
    assert_eq!(db.game_count(), count + 1, "their game is seen");
    assert_eq!(seen(&db, count), theirs);
    // An import: its entry after theirs, reusing their name record.
    let ours = game_from_pgn("[White \"Mine, Dora\"]\n[Black \"Other, Bob\"]\n\n1. d4 d5 *\n");
    assert_eq!(
        db.append(&mut std::iter::once(Ok(ours.clone()))).unwrap(),
        vec![count + 1]
    );
    assert!(db.reload_if_changed().unwrap(), "the catch-up is told once");
    assert!(
        !db.reload_if_changed().unwrap(),
        "its own writes are no change"
    );

    // Another append by them, then a delete and a restore here.
    another_program(&base, false, |other| {
        let mut g = game_from_pgn(THEIRS);
        g.headers.white = "Other, Cy".into();
        other.append(&mut std::iter::once(Ok(g))).unwrap();
        other.set_deleted(0, true).unwrap();
    });
    db.set_deleted(2, true).unwrap();
    assert!(
        db.summary(0).deleted,
        "their delete mark is seen, not undone"
    );
    db.set_deleted(0, false).unwrap();
    assert!(db.reload_if_changed().unwrap());

    drop(db);
    let fresh = open(&base, false, false);
    assert!(fresh.problems().is_empty(), "{:?}", fresh.problems());
    assert_eq!(fresh.game_count(), count + 3);
    assert_eq!(seen(&fresh, count), theirs, "their first game is intact");
    assert_eq!(fresh.load(1).unwrap().headers.white, "Mine, Carl");
    assert_eq!(fresh.load(1).unwrap().moves, mine.moves);
    let (white, black, _, _, moves) = seen(&fresh, count + 1);
    assert_eq!(
        (white.as_str(), black.as_str()),
        ("Mine, Dora", "Other, Bob")
    );
    assert_eq!(moves, ours.moves);
    assert_eq!(seen(&fresh, count + 2).0, "Other, Cy");
    assert!(fresh.summary(2).deleted && !fresh.summary(0).deleted);
    for n in 0..fresh.game_count() {
        fresh.load(n).unwrap();
    }
}

/// A writable store notices another program's writes by itself too (`reload_if_changed`,
/// which the tree calls on a listing), and only those: its own saves are no change.
#[test]
fn a_writable_store_notices_another_programs_writes() {
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let count = db.game_count();
    assert!(!db.reload_if_changed().unwrap());
    let mut g = db.load(0).unwrap();
    g.moves.moves.truncate(1);
    assert!(db.replace(0, &g).unwrap());
    db.append(&mut std::iter::once(Ok(game_from_pgn(THEIRS))))
        .unwrap();
    db.set_deleted(1, true).unwrap();
    assert!(!db.reload_if_changed().unwrap(), "its own writes");
    another_program(&base, false, |other| {
        other
            .append(&mut std::iter::once(Ok(game_from_pgn(THEIRS))))
            .unwrap();
    });
    assert!(db.reload_if_changed().unwrap());
    assert_eq!(db.game_count(), count + 2);
    assert_eq!(seen(&db, count + 1).0, "Other, Ann");
    assert!(!db.reload_if_changed().unwrap());
    // A change of theirs in place (same lengths: a delete mark) is seen by its time.
    another_program(&base, false, |other| other.set_deleted(3, true).unwrap());
    assert!(db.reload_if_changed().unwrap());
    assert!(db.summary(3).deleted);
}

/// Another program replacing the files (new files renamed over the old ones) while the
/// database is open for writing: the store reopens them, so its next save goes into the new
/// files, not the old ones no name refers to any more; and the one-writer lock moves to the
/// new index file.
#[test]
fn files_replaced_under_a_writer_are_reopened() {
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let count = db.game_count();
    another_program(&base, true, |other| {
        other
            .append(&mut std::iter::once(Ok(game_from_pgn(THEIRS))))
            .unwrap();
    });
    let ours = game_from_pgn("[White \"Mine, Dora\"]\n[Black \"Other, Bob\"]\n\n1. d4 d5 *\n");
    assert_eq!(
        db.append(&mut std::iter::once(Ok(ours))).unwrap(),
        vec![count + 1]
    );
    let mut g = db.load(2).unwrap();
    g.headers.site = "Somewhere new".into();
    assert!(db.replace(2, &g).unwrap());
    let e = SimpleCdb::open(&base, true, false).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::Busy, "the new index file is locked");
    drop(db);
    let fresh = open(&base, false, false);
    assert_eq!(fresh.game_count(), count + 2);
    assert_eq!(seen(&fresh, count).0, "Other, Ann");
    assert_eq!(seen(&fresh, count + 1).0, "Mine, Dora");
    assert_eq!(fresh.load(2).unwrap().headers.site, "Somewhere new");
    assert!(
        SimpleCdb::open(&base, true, false).is_ok(),
        "unlocked on drop"
    );
}

/// Part of an entry another program was writing (an interrupted append) is what a writable
/// open ignores and the next append overwrites: a catch-up does the same.
#[test]
fn a_catch_up_repairs_as_a_writable_open_does() {
    use std::io::Write;
    let (_d, base) = copy_of("edge");
    let db = open(&base, true, false);
    let count = db.game_count();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::OpenOptions::new()
        .append(true)
        .open(simplecdb::with_ext(&base, "dci"))
        .unwrap()
        .write_all(&[0u8; 20])
        .unwrap();
    assert!(db.reload_if_changed().unwrap());
    assert_eq!(db.game_count(), count);
    db.append(&mut std::iter::once(Ok(game_from_pgn(THEIRS))))
        .unwrap();
    drop(db);
    let fresh = open(&base, false, false);
    assert!(fresh.problems().is_empty(), "{:?}", fresh.problems());
    assert_eq!(seen(&fresh, count).0, "Other, Ann");
}
