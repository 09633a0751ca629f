//! Damaged SCID databases at the store level (docs/guide/damaged.md, SEMANTICS §16): a
//! database of the 30 demo games imported by gamefs, copied and damaged byte by byte, one
//! kind of damage per test. Each time the open succeeds, every healthy game loads exactly as
//! from the undamaged copy, each damaged game fails with EIO and a message naming it (or is
//! shown with `?` for a name the name file lacks), the problems found at open list it, and a
//! writable open is refused unless the damage cannot get worse by saving.

mod damage;
#[path = "go9_common/mod.rs"]
mod go9_common;

use std::path::{Path, PathBuf};

use gamefs::collection::chess::append_pgn;
use gamefs::store::damage::UNKNOWN_NAME;
use gamefs::store::scid::ScidDatabase;
use gamefs::store::scid::check;
use gamefs::store::{self, ChessStore, Format, NameKind};

use damage::Scid;
use damage::problems;

/// A database of the 30 demo games, imported by gamefs (the encoder writes what sc_import
/// writes, byte for byte: tests/scid_replace.rs).
fn demo_db(dir: &Path) -> PathBuf {
    let base = dir.join("pristine");
    store::create(&base, Format::Scid).unwrap();
    let db = store::open(&base, true).unwrap();
    let pgn = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/sample/demo.pgn"))
        .unwrap();
    assert_eq!(
        append_pgn(
            &*db,
            &pgn,
            gamefs::collection::import::OnBadGame::RefuseAll,
            false,
            &gamefs::text::keep_all,
            &mut |_| {}
        )
        .unwrap()
        .numbers
        .len(),
        30
    );
    base
}

/// A pristine database and a copy of it to damage.
struct Fixture {
    _dir: tempfile::TempDir,
    pristine: ScidDatabase,
    copy: Scid,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = demo_db(dir.path());
    let copy = dir.path().join("damaged");
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(Scid::new(&base).path(ext), Scid::new(&copy).path(ext)).unwrap();
    }
    Fixture {
        pristine: ScidDatabase::open(&base, false).unwrap(),
        copy: Scid::new(&copy),
        _dir: dir,
    }
}

impl Fixture {
    /// Open the damaged copy read-only: it must open.
    fn open(&self) -> ScidDatabase {
        ScidDatabase::open(&self.copy.base, false)
            .unwrap_or_else(|e| panic!("a damaged database opens read-only: {e}"))
    }

    /// The games of the damaged copy, against the undamaged one ([`damage::assert_games`]).
    fn assert_games(&self, db: &ScidDatabase, unreadable: &[u32], why: &str, changed: &[u32]) {
        damage::assert_games(db, &self.pristine, unreadable, why, changed);
    }

    /// A writable open is refused, naming the damage.
    fn assert_not_writable(&self, why: &str) {
        damage::assert_not_writable(ScidDatabase::open(&self.copy.base, true), why);
    }
}

#[test]
fn a_game_file_cut_inside_the_last_record() {
    let f = fixture();
    let last = f.copy.entry(29);
    f.copy
        .truncate("sg4", (last.offset + u64::from(last.length / 2)) as usize);
    let db = f.open();
    assert_eq!(db.game_count(), 30);
    let p = problems(&db);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (30, true));
    assert!(
        p[0].2.contains("runs past the end of") && p[0].2.contains("shorter than the index says")
    );
    f.assert_games(&db, &[29], "runs past the end", &[]);
    f.assert_not_writable("game 30: its record");
}

#[test]
fn an_offset_past_the_end_of_the_game_file() {
    let f = fixture();
    let len = f.copy.read("sg4").len() as u32;
    f.copy.change_entry(4, |e| e.offset = u64::from(len + 1000));
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (5, true));
    assert!(p[0].2.contains(&format!("offset {}", len + 1000)), "{p:?}");
    f.assert_games(&db, &[4], "runs past the end", &[]);
    f.assert_not_writable("game 5");
}

#[test]
fn two_records_that_overlap() {
    let f = fixture();
    let sixth = f.copy.entry(6);
    f.copy.change_entry(7, |e| e.offset = sixth.offset + 3);
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (7, true));
    assert!(p[0].2.contains("overlaps game 8's"), "{p:?}");
    assert_eq!((p[1].0, p[1].1), (8, true));
    assert!(p[1].2.contains("overlaps game 7's"), "{p:?}");
    f.assert_games(&db, &[6, 7], "one of the two index entries is wrong", &[]);
    f.assert_not_writable("overlaps");
}

#[test]
fn two_entries_that_share_one_record() {
    let f = fixture();
    let first = f.copy.entry(0);
    f.copy.change_entry(1, |e| {
        e.offset = first.offset;
        e.length = first.length;
    });
    let db = f.open();
    f.assert_games(&db, &[0, 1], "overlaps", &[]);
}

#[test]
fn name_ids_out_of_range_read_as_question_marks() {
    let f = fixture();
    let players = f.pristine.name_count(NameKind::Player);
    let events = f.pristine.name_count(NameKind::Event);
    f.copy.change_entry(2, |e| {
        e.white = players + 5;
        e.event = events;
    });
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (3, false), "the game is still served");
    assert!(
        p[0].2
            .starts_with(&format!("White name ID {} is out of range:", players + 5))
            && p[0]
                .2
                .contains(&format!("holds {players} Player names; shown as ?")),
        "{p:?}"
    );
    assert!(
        p[1].2
            .starts_with(&format!("Event name ID {events} is out of range"))
    );
    f.assert_games(&db, &[], "", &[2]);
    damage::assert_unknown_names(&db, &f.pristine, 2, |h, s| {
        (h.white, h.event) = ("?".into(), "?".into());
        (s.white, s.event) = (UNKNOWN_NAME, UNKNOWN_NAME);
    });
    // A new name would take an ID this entry already points at: no writing.
    f.assert_not_writable("White name ID");
}

#[test]
fn a_record_of_garbage_fails_when_read() {
    let f = fixture();
    f.copy.fill_record(9, 0xF0);
    let db = f.open();
    assert!(db.problems().is_empty(), "only reading the record finds it");
    f.assert_games(&db, &[9], "", &[]);
    // Damage inside one record cannot spread: writing stays allowed (saving the game mends it).
    assert!(ScidDatabase::open(&f.copy.base, true).is_ok());
}

#[test]
fn an_index_cut_inside_an_entry() {
    let f = fixture();
    f.copy.truncate("si4", damage::entry_at(25) + 20);
    let db = f.open();
    assert_eq!(
        db.game_count(),
        26,
        "the game whose entry is cut is shown, broken"
    );
    let p = problems(&db);
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].0, 0);
    assert!(
        p[0].2
            .contains("games 27 to 30 have no index entry (the index is cut short)"),
        "{p:?}"
    );
    assert_eq!((p[1].0, p[1].1), (26, true));
    assert!(p[1].2.contains("its index entry is cut short"), "{p:?}");
    f.assert_games(&db, &[25], "cut short", &[]);
    assert_eq!(&*db.name(NameKind::Player, db.summary(25).white), "?");
    f.assert_not_writable("games 27 to 30");
}

#[test]
fn an_index_cut_between_entries_is_repaired_by_a_writable_open() {
    let f = fixture();
    f.copy.truncate("si4", damage::entry_at(25));
    let db = f.open();
    assert_eq!(db.game_count(), 25);
    let p = problems(&db);
    assert_eq!(p.len(), 1);
    assert!(
        p[0].2
            .contains("games 26 to 30 have no index entry (an interrupted save"),
        "{p:?}"
    );
    f.assert_games(&db, &[], "", &[]);
    drop(db);
    let db = ScidDatabase::open(&f.copy.base, true).unwrap();
    assert!(db.problems().is_empty());
    drop(db);
    assert_eq!(
        f.copy.read("si4")[14..17],
        [0, 0, 25],
        "the header count is repaired"
    );
}

#[test]
fn bytes_after_the_counted_entries() {
    let f = fixture();
    let mut si4 = f.copy.read("si4");
    si4.extend([7u8; 10]);
    f.copy.write("si4", &si4);
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 1);
    assert!(
        p[0].2
            .contains("10 bytes after the 30 entries the header counts"),
        "{p:?}"
    );
    f.assert_games(&db, &[], "", &[]);
    f.assert_not_writable("10 bytes after");
}

#[test]
fn a_name_file_cut_short_loses_names_not_games() {
    let f = fixture();
    let lost_id = 5;
    let (start, _) = f.copy.player_record(lost_id);
    f.copy.truncate("sn4", start + 2);
    let db = f.open();
    assert_eq!(db.game_count(), 30);
    let p = problems(&db);
    assert!(
        p.iter()
            .any(|(g, _, m)| *g == 0 && m.contains("the name file is cut short or malformed")),
        "{p:?}"
    );
    assert!(
        p.iter().all(|(_, unreadable, _)| !unreadable),
        "every game is still served"
    );
    // Every game loads with its moves; each name the cut lost reads as ? and is listed.
    let mut lost = 0;
    for n in 0..30 {
        let got = db.load(n).unwrap();
        let want = f.pristine.load(n).unwrap();
        assert_eq!((&got.start, &got.moves), (&want.start, &want.moves));
        let (g, w) = (&got.headers, &want.headers);
        for (field, got, want) in [
            ("White", &g.white, &w.white),
            ("Black", &g.black, &w.black),
            ("Event", &g.event, &w.event),
            ("Site", &g.site, &w.site),
            ("Round", &g.round, &w.round),
        ] {
            if got != want {
                lost += 1;
                assert_eq!(got, "?", "game {} {field}", n + 1);
                assert!(
                    p.iter().any(|(game, _, m)| *game == n + 1
                        && m.starts_with(&format!("{field} name ID "))
                        && m.contains("is lost:")),
                    "game {} lists its lost {field}: {p:?}",
                    n + 1
                );
            }
        }
    }
    assert!(
        lost > 30,
        "the cut lost the names after player {lost_id} ({lost} lost)"
    );
    f.assert_not_writable("name file");
}

#[test]
fn names_out_of_order_are_read_and_listed_by_check() {
    let f = fixture();
    // Two players swapped, so the section is out of SCID's sorted order: what SCID 4.7 reads
    // without a word and SCID 4.5 refuses.
    let names = f.copy.names();
    f.copy.write_names(
        |kind, _| {
            let mut order = names.section(kind).sorted_ids().to_vec();
            if kind == NameKind::Player {
                order.swap(3, 4);
            }
            order
        },
        |kind, id| f.copy.name(kind, id),
    );
    let db = f.open();
    assert!(db.problems().is_empty(), "{:?}", db.problems());
    f.assert_games(&db, &[], "", &[]);
    let listed = check::check(&db, |_| {});
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(
        listed[0]
            .message
            .contains("not sorted and counted as SCID writes it")
    );
    drop(db);
    // A save rewrites the name file sorted: writing stays allowed.
    assert!(ScidDatabase::open(&f.copy.base, true).is_ok());
}

#[test]
fn a_name_stored_twice() {
    let f = fixture();
    let twin = f.copy.name(NameKind::Player, 1);
    f.copy.write_names(
        |_, count| (0..count).collect(),
        |kind, id| {
            if kind == NameKind::Player && id == 3 {
                twin.clone()
            } else {
                f.copy.name(kind, id)
            }
        },
    );
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].2.contains(&format!(
            "Player name {:?} is stored twice (IDs 1 and 3); SCID refuses such a name file",
            String::from_utf8_lossy(&twin)
        )),
        "{p:?}"
    );
    let uses_3: Vec<u32> = (0..30)
        .filter(|&n| {
            let s = f.pristine.summary(n);
            s.white == 3 || s.black == 3
        })
        .collect();
    assert!(!uses_3.is_empty());
    f.assert_games(&db, &[], "", &uses_3);
    f.assert_not_writable("stored twice");
}

#[test]
fn name_ids_used_twice_or_out_of_range_in_the_name_file() {
    let f = fixture();
    let (start, _) = f.copy.player_record(4);
    let mut sn4 = f.copy.read("sn4");
    // Player 4's record now claims ID 2 (used twice; 4 is left without a name).
    sn4[start..start + 2].copy_from_slice(&2u16.to_be_bytes());
    f.copy.write("sn4", &sn4);
    let db = f.open();
    let p = problems(&db);
    assert!(
        p.iter()
            .any(|(_, _, m)| m.contains("Player ID 2 is used twice")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|(_, _, m)| m.contains("1 of ") && m.contains("Player IDs have no name")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|(g, u, m)| *g > 0 && !u && m.contains("name ID 4 is lost")),
        "{p:?}"
    );
    let mut sn4 = f.copy.read("sn4");
    sn4[start..start + 2].copy_from_slice(&9999u16.to_be_bytes());
    f.copy.write("sn4", &sn4);
    let db = f.open();
    assert!(
        problems(&db)
            .iter()
            .any(|(_, _, m)| m.contains("has ID 9999, out of range")),
        "{:?}",
        problems(&db)
    );
    f.assert_not_writable("ID 9999");
}

#[test]
fn a_damaged_database_is_re_read_leniently() {
    // A read-only database changed by another program into a damaged one keeps being served.
    let f = fixture();
    let db = f.open();
    assert!(db.problems().is_empty());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let len = f.copy.read("sg4").len() as u32;
    f.copy.change_entry(4, |e| e.offset = u64::from(len));
    let mut si4 = f.copy.read("si4");
    si4.push(0);
    f.copy.write("si4", &si4);
    assert!(db.reload_if_changed().unwrap());
    assert_eq!(problems(&db).len(), 2, "{:?}", problems(&db));
    f.assert_games(&db, &[4], "runs past the end", &[]);
}

#[test]
fn a_record_across_a_block_boundary_is_read_and_listed_by_check() {
    // What an outside writer that ignores SCID's 128 KiB block rule leaves
    // (docs/formats/scid4.md §8): SCID 4.7 reads it, older SCID refuses it.
    let f = fixture();
    let first = f.copy.entry(0);
    let record = f.copy.read("sg4")[first.offset as usize..][..first.length as usize].to_vec();
    let mut sg4 = f.copy.read("sg4");
    let at = 131_072 - 10;
    sg4.resize(at, 0);
    sg4.extend(&record);
    f.copy.write("sg4", &sg4);
    f.copy.change_entry(0, |e| e.offset = at as u64);
    let db = f.open();
    assert!(db.problems().is_empty());
    f.assert_games(&db, &[], "", &[]);
    let listed = check::check(&db, |_| {});
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].item, Some(0));
    assert!(
        listed[0]
            .message
            .contains("crosses a 128 KiB block boundary (SCID 4.7 reads it"),
        "{listed:?}"
    );
}

#[test]
fn mutated_files_never_panic() {
    // Random damage to each file: the open succeeds or fails with a message, never a panic,
    // and so does everything read from what it opened (`gamefs check` included).
    let f = fixture();
    let mut rng = go9_common::Rng(0x2545_F491_4F6C_DD1D);
    let opened = damage::open_mutated(
        &f.copy,
        &["si4", "sn4", "sg4"],
        300,
        &mut |n| rng.below(n),
        || {
            let db = ScidDatabase::open(&f.copy.base, false)?;
            let _ = check::check(&db, |_| {});
            Ok(Box::new(db))
        },
    );
    assert!(
        opened > 200,
        "{opened} of 300 opened: damage rarely stops the open"
    );
}
