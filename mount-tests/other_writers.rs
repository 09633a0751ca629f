//! Another program writes the database while it is mounted writable (docs/SEMANTICS.md §10a):
//! SCID's own program (`tkscid` scripts: Debian's SCID 4.7.4 on a SCID 4 base, SCID 5 on a
//! SCID 5 base) adds, replaces and deletes games between saves, creates and deletes through
//! the mount; the mount shows SCID's changes without a remount, every change of both sides is
//! kept, SCID opens the base afterwards and `gamefs check` finds nothing wrong. And the
//! collisions: SCID opened the base before saves through the mount and writes from its stale
//! picture afterwards: the saves it wrote over are reported with their texts, the base is
//! mended to what SCID believes, and the mount goes on saving.
//!
//! How each SCID writes from its stale picture (what the mends answer). SCID 4 appends its
//! record at the .sg4 length it knew, writes its entries (and its count when it adds a game)
//! and writes the whole .sn4 from memory, without the names the mount added. SCID 5 does not
//! lock the base either and appends records and names at the .sg5 and .sn5 lengths it read
//! at open (its `FilebufAppend` keeps them), over what the mount appended since: when its
//! name records are the shorter, the rest of the mount's follow them, cut in the middle of a
//! record, and SCID 5 refuses the file until gamefs cuts that rest off. It writes an entry at
//! its number × 56 bytes, an added game's at its stale count (over the mount's first added
//! one), and never shortens the .si5 (its count is the file's length, so games the mount
//! added beyond stay games unless gamefs leaves them out). Both write a flag change (the
//! deleted mark) as the whole entry they hold, over a save of that game. Each save is
//! flushed at once.
//!
//! The SCID 5 tests run when `GAMEFS_SCID5` names SCID 5's `tkscid` (built from source) and
//! say they are skipped otherwise.

use std::path::{Path, PathBuf};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, eventually, gamefs_ok, listing, scratch, sh};
use crate::scid5::golden_copy;
use crate::tkscid::{Scid, Step, pgn};

/// The file of game `number` (1-based) among `dir`'s entries, if listed there.
fn listed(dir: &Path, number: usize) -> Option<PathBuf> {
    let prefix = format!("{number:04} ");
    listing(dir).into_iter().find(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&prefix))
    })
}

fn text_of(m: &Mount, number: usize) -> String {
    std::fs::read_to_string(m.game(number)).unwrap()
}

/// Whether `games/` of `m` lists game `number` (listing it, the mount looks for another
/// program's changes) and its text contains `what`.
fn reads(m: &Mount, number: usize, what: &str) -> bool {
    listed(&m.join("games"), number)
        .and_then(|f| std::fs::read_to_string(f).ok())
        .is_some_and(|t| t.contains(what))
}

/// The Event of a game's PGN text.
fn event_in(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.strip_prefix("[Event \"")?.strip_suffix("\"]"))
        .unwrap_or_else(|| panic!("no Event in {text}"))
}

fn set_event(file: &Path, event: &str) {
    let dir = file.parent().unwrap();
    sh(
        dir,
        &format!(
            "sed -i 's/^\\[Event \"[^\"]*\"/[Event \"{event}\"/' '{}'",
            file.display()
        ),
    );
}

#[test]
fn scid_and_the_mount_write_in_turns_and_every_change_of_both_is_kept() {
    let dir = scratch("other-writer");
    let db = copy_db(edge_db(), dir.path(), "shared");
    write_in_turns(&Scid::four(), &db, dir.path());
}

#[test]
fn scid5_and_the_mount_write_in_turns_and_every_change_of_both_is_kept() {
    let Some(scid) = Scid::five() else { return };
    let dir = scratch("other-writer5");
    let db = golden_copy("gen300", dir.path());
    write_in_turns(&scid, &db, dir.path());
}

/// Three rounds on `db` (at least 80 games) mounted in `dir`: SCID adds a game, replaces one
/// and deletes one, the mount shows it; then the mount saves with sed, cp, rm (and vim once).
/// Afterwards SCID reads every change of both, and `gamefs check` passes.
fn write_in_turns(scid: &Scid, db: &Path, dir: &Path) {
    let m = Mount::new(db, dir, &[]);
    let games = m.join("games");
    let start = listing(&games).len();
    let mut count = start;
    for round in 0..3 {
        // SCID writes the base the mount holds open for writing.
        let (replace, scid_delete) = (5 + round, 20 + round);
        let steps = [
            Step::Add(pgn(
                &format!("SCID add {round}"),
                &format!("Scidadder, Round{round}"),
                "Other, One",
            )),
            Step::Replace(
                replace,
                pgn(
                    &format!("SCID replace {round}"),
                    &format!("Scidreplacer, Round{round}"),
                    "Other, Two",
                ),
            ),
            Step::Delete(scid_delete),
        ];
        count += 1;
        assert_eq!(scid.change(dir, "round", &steps, db), count);
        // The mount shows SCID's changes without a remount (it looks at most once a second,
        // once SCID's files have been left alone).
        eventually("the mount shows SCID's changes", || {
            reads(&m, count, &format!("[Event \"SCID add {round}\"]"))
                && reads(&m, replace, &format!("[Event \"SCID replace {round}\"]"))
                && listed(&m.join(".deleted"), scid_delete).is_some()
                && listed(&games, scid_delete).is_none()
        });
        assert!(m.join(&format!("players/Scidadder, Round{round}")).is_dir());
        // Then the mount writes: sed -i, a new file, rm, and vim in one round.
        set_event(&m.game(40 + round), &format!("Mount sed {round}"));
        std::fs::write(
            dir.join("new.pgn"),
            pgn(
                &format!("Mount add {round}"),
                &format!("Mountadder, Round{round}"),
                "X, Y",
            ),
        )
        .unwrap();
        sh(dir, &format!("cp new.pgn '{}'", games.display()));
        count += 1;
        std::fs::remove_file(m.game(60 + round)).unwrap();
        if round == 1 {
            let file = m.game(80);
            sh(
                dir,
                &format!(
                    "vim -u NONE -es -c '%s/^\\[Event \"[^\"]*\"/[Event \"Mount vim\"/' -c wq '{}'",
                    file.display()
                ),
            );
        }
        assert_eq!(
            listing(&games).len() + listing(&m.join(".deleted")).len(),
            count
        );
        assert!(text_of(&m, count).contains(&format!("[Event \"Mount add {round}\"]")));
    }
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(errors.is_empty(), "nothing was written over: {errors}");
    drop(m);
    // SCID reads every change of both sides.
    let scid_games = scid.games(dir, db);
    assert_eq!(scid_games.len(), start + 6);
    let event = |n: usize| scid_games[n - 1].0.as_str();
    let deleted = |n: usize| scid_games[n - 1].1;
    for round in 0..3 {
        let scid_added = start + 1 + 2 * round;
        assert_eq!(event(scid_added), format!("SCID add {round}"));
        assert_eq!(event(scid_added + 1), format!("Mount add {round}"));
        assert_eq!(event(5 + round), format!("SCID replace {round}"));
        assert_eq!(event(40 + round), format!("Mount sed {round}"));
        assert!(deleted(20 + round), "SCID's deletion of {}", 20 + round);
        assert!(
            deleted(60 + round),
            "the mount's deletion of {}",
            60 + round
        );
    }
    assert_eq!(event(80), "Mount vim");
    // `gamefs check` fails on any problem.
    gamefs_ok(["check".as_ref(), "-q".as_ref(), db.as_os_str()]);
}

#[test]
fn saves_scid_writes_over_from_a_stale_picture_are_reported_kept_and_the_base_mended() {
    let dir = scratch("stale-writer");
    let db = copy_db(edge_db(), dir.path(), "collide");
    collide(&Scid::four(), &db, dir.path());
}

#[test]
fn saves_scid5_writes_over_from_a_stale_picture_are_reported_kept_and_the_base_mended() {
    let Some(scid) = Scid::five() else { return };
    let dir = scratch("stale-writer5");
    let db = golden_copy("gen300", dir.path());
    collide(&scid, &db, dir.path());
}

/// The names the mount saves while SCID holds a stale picture are longer than SCID's own new
/// names together: SCID 5, appending its names at its stale end of the name file over the
/// mount's, leaves the rest of the mount's after its own.
const SAVED_TEN: &str = "Saved ten through the mount under an event name longer than the others";

/// Three rounds on `db` (at least 11 games) mounted in `dir`, each with SCID writing from its
/// picture of the base from before saves through the mount, which are reported, their texts
/// kept, and the mount shows what SCID believes:
/// 1. SCID adds a game and replaces game 7 over a replacement of game 10 and a new game; both
///    are saved again from the kept texts.
/// 2. SCID adds a game, replaces game 8 and deletes game 9 (writing its own entry of game 9
///    with the deleted mark) over a replacement of game 9 and two new games (the second
///    beyond SCID's count).
/// 3. SCID replaces game 11 over two new games (both beyond SCID's count, their names gone).
///
/// At the end SCID reads the base so, and `gamefs check` passes.
fn collide(scid: &Scid, db: &Path, dir: &Path) {
    let m = Mount::new(db, dir, &[]);
    let games = m.join("games");
    let rejected = m.join(".gamefs/rejected");
    let start = listing(&games).len();
    let listed_count = || listing(&games).len() + listing(&m.join(".deleted")).len();
    let add = |text: String| {
        std::fs::write(dir.join("new.pgn"), text).unwrap();
        sh(dir, &format!("cp new.pgn '{}'", games.display()));
    };
    let kept = |name: &str| std::fs::read_to_string(rejected.join(name)).unwrap();
    // SCID opens the base, the mount `saves`, then SCID makes `steps` from its picture of
    // before; the mount notices at its next look and reports the saves SCID wrote over (game
    // numbers): each in .gamefs/errors, its text kept in .gamefs/rejected/.
    let round = |name: &str, steps: Vec<Step>, saves: &dyn Fn(), lost: &[usize]| {
        let go = dir.join(format!("{name}.go"));
        let mut all = vec![Step::WaitFor(go.clone())];
        all.extend(steps);
        let stale = scid.start(dir, name, &all, db);
        saves();
        std::fs::write(&go, "").unwrap();
        stale.finish();
        eventually("the saves written over are reported", || {
            listing(&games);
            listing(&rejected).len() == lost.len()
        });
        let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
        for n in lost {
            assert!(
                errors.contains(&format!("game {n} saved through the mount")),
                "{name}: game {n}: {errors}"
            );
        }
    };
    let pair = |names: [&str; 4]| {
        let [first, second] = [0, 1].map(|i| {
            pgn(
                &format!("Mount pair {}", names[2 * i]),
                &format!("Pairname-Longer, {}", names[2 * i]),
                &format!("Pairname-Longer, {}", names[2 * i + 1]),
            )
        });
        add(first + "\n" + &second);
    };
    let kept_pair = |names: [&str; 4]| {
        for i in [0, 1] {
            let [white, black] =
                [2 * i, 2 * i + 1].map(|j| format!("Pairname-Longer, {}", names[j]));
            assert!(
                kept(&format!("added {white} - {black}.pgn"))
                    .contains(&format!("[Event \"Mount pair {}\"]", names[2 * i]))
            );
        }
    };

    // Round 1.
    let ten_name = m.game(10).file_name().unwrap().to_str().unwrap().to_owned();
    round(
        "stale1",
        vec![
            Step::Add(pgn("SCID stale add", "Stale, Adder", "Other, Three")),
            Step::Replace(
                7,
                pgn("SCID stale replace", "Stale, Replacer", "Other, Four"),
            ),
        ],
        &|| {
            set_event(&m.game(10), SAVED_TEN);
            add(pgn(
                "Imported new",
                "Newname-Longer, Player",
                "Newname-Longer, Other",
            ));
            assert_eq!(listing(&games).len(), start + 1);
        },
        &[10, start + 1],
    );
    let kept_ten = kept(&ten_name);
    assert_eq!(event_in(&kept_ten), SAVED_TEN);
    assert!(
        kept("added Newname-Longer, Player - Newname-Longer, Other.pgn")
            .contains("[Event \"Imported new\"]")
    );
    // The mount shows SCID's base: game 10 as before the save, SCID's games (within a second
    // of SCID's last write).
    eventually("the mount shows SCID's base after round 1", || {
        reads(&m, start + 1, "[Event \"SCID stale add\"]")
            && reads(&m, 7, "[Event \"SCID stale replace\"]")
            && reads(&m, 10, "[Event ")
            && !reads(&m, 10, SAVED_TEN)
    });
    // Saving again from the kept texts works, on top of SCID's changes.
    sh(
        dir,
        &format!("cp '{}'/* '{}'", rejected.display(), games.display()),
    );
    assert_eq!(text_of(&m, 10), kept_ten, "the text as it was saved");
    assert!(text_of(&m, start + 2).contains("[Event \"Imported new\"]"));
    sh(dir, &format!("rm '{}'/*", rejected.display()));

    // Round 2.
    let nine_name = m.game(9).file_name().unwrap().to_str().unwrap().to_owned();
    let nine_before = text_of(&m, 9);
    let pair_two = ["First", "Second", "Third", "Fourth"];
    round(
        "stale2",
        vec![
            Step::Add(pgn("SCID stale add 2", "Stale, Adder", "Other, Six")),
            Step::Replace(8, pgn("SCID stale 8", "Stale, Eight", "Other, Five")),
            Step::Delete(9),
        ],
        &|| {
            set_event(&m.game(9), "Saved nine");
            pair(pair_two);
            assert_eq!(listing(&games).len(), start + 4);
        },
        &[9, start + 3, start + 4],
    );
    assert_eq!(event_in(&kept(&nine_name)), "Saved nine");
    kept_pair(pair_two);
    // Game 9 deleted as it was, SCID's games 8 and start + 3.
    eventually("the mount shows SCID's base after round 2", || {
        reads(&m, 8, "[Event \"SCID stale 8\"]")
            && reads(&m, start + 3, "[Event \"SCID stale add 2\"]")
            && listed(&m.join(".deleted"), 9).is_some()
            && listed_count() == start + 3
    });
    let deleted_nine = listed(&m.join(".deleted"), 9).unwrap();
    assert_eq!(std::fs::read_to_string(deleted_nine).unwrap(), nine_before);
    sh(dir, &format!("rm '{}'/*", rejected.display()));

    // Round 3.
    let pair_three = ["Fifth", "Sixth", "Seventh", "Eighth"];
    round(
        "stale3",
        vec![Step::Replace(
            11,
            pgn("SCID stale 11", "Stale, Eleven", "Other, Seven"),
        )],
        &|| pair(pair_three),
        &[start + 4, start + 5],
    );
    kept_pair(pair_three);
    eventually("the mount shows SCID's base after round 3", || {
        reads(&m, 11, "[Event \"SCID stale 11\"]") && listed_count() == start + 3
    });
    drop(m);
    // `gamefs check` fails on any problem; SCID reads the base as the mount showed it.
    gamefs_ok(["check".as_ref(), "-q".as_ref(), db.as_os_str()]);
    let scid_games = scid.games(dir, db);
    assert_eq!(scid_games.len(), start + 3);
    let event = |n: usize| scid_games[n - 1].0.as_str();
    assert_eq!(event(7), "SCID stale replace");
    assert_eq!(event(8), "SCID stale 8");
    assert_eq!(scid_games[8], (event_in(&nine_before).to_owned(), true));
    assert_eq!(event(10), SAVED_TEN);
    assert_eq!(event(11), "SCID stale 11");
    assert_eq!(event(start + 1), "SCID stale add");
    assert_eq!(event(start + 2), "Imported new");
    assert_eq!(event(start + 3), "SCID stale add 2");
}
