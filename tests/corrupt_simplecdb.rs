//! Damaged Simple Chess Databases at the store level (docs/guide/damaged.md): copies of
//! the golden `gen300` database (300 games written by the reference writer pgn2dcg), damaged
//! byte by byte, one kind of damage per test. Each time the open succeeds, every healthy game
//! loads exactly as from the undamaged copy, each damaged game fails with EIO and a message
//! naming it (or shows `?` for a name reference that hits no name), and a writable open is
//! refused unless the damage is what an interrupted append leaves (the next append mends it).

mod damage;
#[path = "go9_common/mod.rs"]
mod go9_common;

use std::path::{Path, PathBuf};

use gamefs::ErrorKind;
use gamefs::store::ChessStore;
use gamefs::store::damage::UNKNOWN_NAME;
use gamefs::store::simplecdb::{EXTENSIONS, SimpleCdb};

use damage::Dcdb;
use damage::problems;

fn golden() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/simplecdb");
    assert!(
        dir.join("gen300.dci").is_file(),
        "the golden files are missing: expected {} (tests/data/ of the checkout)",
        dir.display()
    );
    dir.join("gen300")
}

struct Fixture {
    _dir: tempfile::TempDir,
    pristine: SimpleCdb,
    copy: Dcdb,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("gen300");
    damage::copy_files(&golden(), &copy, &EXTENSIONS);
    Fixture {
        pristine: SimpleCdb::open(&golden(), false, false).unwrap(),
        copy: Dcdb::new(&copy),
        _dir: dir,
    }
}

impl Fixture {
    fn open(&self) -> SimpleCdb {
        SimpleCdb::open(&self.copy.base, false, false)
            .unwrap_or_else(|e| panic!("a damaged database opens read-only: {e}"))
    }

    /// The games of the damaged copy, against the undamaged one ([`damage::assert_games`]).
    fn assert_games(&self, db: &SimpleCdb, unreadable: &[u32], why: &str, changed: &[u32]) {
        damage::assert_games(db, &self.pristine, unreadable, why, changed);
    }

    /// A writable open is refused, naming the damage.
    fn assert_not_writable(&self, why: &str) {
        damage::assert_not_writable(SimpleCdb::open(&self.copy.base, true, false), why);
    }
}

#[test]
fn a_game_file_cut_inside_the_last_record() {
    let f = fixture();
    let last = f.copy.record(299);
    f.copy
        .truncate("dcg", last.start + (last.end - last.start) / 2);
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (300, true));
    assert!(p[0].2.contains("runs past the end of"), "{p:?}");
    f.assert_games(&db, &[299], "shorter than the index says", &[]);
    f.assert_not_writable("game 300");
}

#[test]
fn a_game_file_cut_inside_its_magic() {
    let f = fixture();
    f.copy.truncate("dcg", 5);
    let db = f.open();
    assert_eq!(db.game_count(), 300);
    let all: Vec<u32> = (0..300).collect();
    f.assert_games(&db, &all, "lies outside the games of", &[]);
    // Not a prefix of the magic: not this format at all.
    f.copy.write("dcg", b"Simpl!");
    let e = SimpleCdb::open(&f.copy.base, false, false).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::UnknownFormat);
}

#[test]
fn an_offset_past_the_end_of_the_game_file() {
    let f = fixture();
    let len = f.copy.read("dcg").len() as u64;
    f.copy.change_entry(4, |e| e.offset = len + 1000);
    f.copy.change_entry(5, |e| e.offset = 3);
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (5, true));
    assert!(
        p[0].2
            .contains(&format!("offset {} lies outside", len + 1000)),
        "{p:?}"
    );
    assert_eq!((p[1].0, p[1].1), (6, true));
    f.assert_games(&db, &[4, 5], "lies outside", &[]);
    f.assert_not_writable("game 5");
}

#[test]
fn two_entries_that_share_one_record() {
    let f = fixture();
    let sixth = f.copy.entry(6);
    f.copy.change_entry(7, |e| e.offset = sixth.offset);
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].2.contains("is also game 8's"), "{p:?}");
    assert!(p[1].2.contains("is also game 7's"), "{p:?}");
    f.assert_games(&db, &[6, 7], "one of the two index entries is wrong", &[]);
    f.assert_not_writable("is also game");
}

#[test]
fn an_entry_pointing_inside_another_record() {
    // The record a length prefix delimits is the one the file holds: the game pointing into
    // its middle reads garbage, which does not decode; the other game is served.
    let f = fixture();
    let sixth = f.copy.entry(6);
    f.copy.change_entry(7, |e| e.offset = sixth.offset + 3);
    let db = f.open();
    assert!(db.problems().is_empty(), "only reading finds it");
    f.assert_games(&db, &[7], "", &[]);
}

#[test]
fn name_references_that_hit_no_name() {
    let f = fixture();
    let players = f.copy.read("dcn").len() as u32;
    f.copy.change_entry(2, |e| {
        e.white = players + 36 * 5;
        e.black = 11;
    });
    let db = f.open();
    let p = problems(&db);
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (3, false), "the game is still served");
    assert!(
        p[0].2
            .starts_with(&format!("White refers to byte {} of", players + 180))
            && p[0].2.contains("where no name record starts"),
        "{p:?}"
    );
    assert!(p[1].2.starts_with("Black refers to byte 11 of"), "{p:?}");
    f.assert_games(&db, &[], "", &[2]);
    damage::assert_unknown_names(&db, &f.pristine, 2, |h, s| {
        (h.white, h.black) = ("?".into(), "?".into());
        (s.white, s.black) = (UNKNOWN_NAME, UNKNOWN_NAME);
    });
    // A new name record would be appended where the first reference points.
    f.assert_not_writable("White refers to byte");
}

#[test]
fn a_record_of_garbage_fails_when_read() {
    let f = fixture();
    let r = f.copy.record(9);
    let mut dcg = f.copy.read("dcg");
    dcg[r.start + 2..r.end].fill(0xFF);
    f.copy.write("dcg", &dcg);
    let db = f.open();
    assert!(db.problems().is_empty());
    f.assert_games(&db, &[9], "of the record: ", &[]);
    assert!(SimpleCdb::open(&f.copy.base, true, false).is_ok());
}

#[test]
fn an_index_cut_inside_an_entry() {
    let f = fixture();
    f.copy.truncate("dci", 19 + 39 * 250 + 20);
    let db = f.open();
    assert_eq!(
        db.game_count(),
        250,
        "the format has no count: whole entries are the games"
    );
    let p = problems(&db);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].2
            .contains("20 bytes after the last whole entry are ignored"),
        "{p:?}"
    );
    f.assert_games(&db, &[], "", &[]);
    // What an interrupted append leaves: the next append overwrites it, so writing is allowed.
    let db = SimpleCdb::open(&f.copy.base, true, false).unwrap();
    assert!(db.problems().is_empty());
}

#[test]
fn a_name_file_cut_inside_a_record() {
    let f = fixture();
    let len = f.copy.read("dcn").len();
    f.copy.truncate("dcn", len - 20);
    let lost = (len - 36) as u32;
    let db = f.open();
    let p = problems(&db);
    assert!(
        p[0].2
            .contains("16 bytes after the last whole record are ignored"),
        "{p:?}"
    );
    let users: Vec<u32> = (0..300)
        .filter(|&n| {
            let e = f.copy.entry(n);
            e.white == lost || e.black == lost
        })
        .collect();
    assert!(!users.is_empty(), "a game uses the last player");
    for &n in &users {
        assert!(
            p.iter().any(|(g, u, m)| *g == n + 1
                && !u
                && m.contains(&format!("refers to byte {lost}")))
        );
        let got = db.load(n).unwrap();
        assert!(got.headers.white == "?" || got.headers.black == "?");
    }
    f.assert_games(&db, &[], "", &users);
    f.assert_not_writable("refers to byte");
}

#[test]
fn a_name_file_cut_inside_its_magic() {
    let f = fixture();
    f.copy.truncate("dcs", 4);
    let db = f.open();
    let p = problems(&db);
    assert!(
        p[0].2
            .contains("cut short inside its magic (4 of 10 bytes)"),
        "{p:?}"
    );
    assert!(
        p.iter()
            .filter(|(g, _, m)| *g > 0 && m.starts_with("Site refers"))
            .count()
            > 250
    );
    for n in 0..300 {
        let got = db.load(n).unwrap();
        let want = f.pristine.load(n).unwrap();
        assert_eq!(got.moves, want.moves);
        assert!(got.headers.site == "?" || want.headers.site.is_empty());
    }
}

#[test]
fn a_name_stored_twice_is_no_damage() {
    // The reference writer appends names again on every run: readers take each name's first
    // record, and so do we.
    let f = fixture();
    let mut dcn = f.copy.read("dcn");
    let first = dcn[10..46].to_vec();
    dcn.extend(&first);
    f.copy.write("dcn", &dcn);
    let db = f.open();
    assert!(db.problems().is_empty(), "{:?}", problems(&db));
    f.assert_games(&db, &[], "", &[]);
}

#[test]
fn mutated_files_never_panic() {
    // Random damage to each of the five files: the open succeeds or fails with a message,
    // never a panic, and so does everything read from what it opened.
    let f = fixture();
    let mut rng = go9_common::Rng(0x9E37_79B9_7F4A_7C15);
    let opened = damage::open_mutated(&f.copy, &EXTENSIONS, 150, &mut |n| rng.below(n), || {
        Ok(Box::new(SimpleCdb::open(&f.copy.base, false, false)?))
    });
    assert!(
        opened > 90,
        "{opened} of 150 opened: damage rarely stops the open"
    );
}
