//! Another program writes the database while it is mounted writable (docs/SEMANTICS.md §10a):
//! Debian's SCID 4.7.4 (`tkscid` scripts) adds, replaces and deletes games between saves,
//! creates and deletes through the mount; the mount shows SCID's changes without a remount,
//! every change of both sides is kept, SCID opens the base afterwards and `gamefs check`
//! finds nothing wrong. And the collision: SCID opened the base before a save through the
//! mount and writes from its stale picture afterwards: the saves it wrote over are reported
//! with their texts, the base is mended to what SCID believes, and the mount goes on saving.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, eventually, gamefs_ok, listing, run_with_timeout, scratch, sh};

/// Run a Tcl script with Debian's SCID 4 (`argv` = the base); returns its stdout.
fn tkscid(dir: &Path, name: &str, script: &str, base: &Path) -> String {
    let file = dir.join(format!("{name}.tcl"));
    std::fs::write(&file, script).unwrap();
    let out = run_with_timeout(
        Command::new("tkscid").arg(&file).arg(base),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "tkscid {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A short game as PGN, with `event` and players `white` and `black`.
fn pgn(event: &str, white: &str, black: &str) -> String {
    format!(
        "[Event \"{event}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n\
         1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"
    )
}

/// SCID's script of one round: add a game, replace game `replace`, mark game `delete` deleted
/// (numbers 1-based), then close the base.
fn scid_round(round: usize, replace: usize, delete: usize) -> String {
    format!(
        "set db [sc_base open [lindex $argv 0]]\n\
         sc_base switch $db\n\
         sc_game new\n\
         sc_game import {{{add}}}\n\
         sc_game save 0\n\
         sc_game new\n\
         sc_game import {{{replaced}}}\n\
         sc_game save {replace}\n\
         sc_base gameflag $db {delete} set del\n\
         puts [sc_base numGames $db]\n\
         sc_base close $db\n",
        add = pgn(
            &format!("SCID add {round}"),
            &format!("Scidadder, Round{round}"),
            "Other, One"
        ),
        replaced = pgn(
            &format!("SCID replace {round}"),
            &format!("Scidreplacer, Round{round}"),
            "Other, Two"
        ),
    )
}

/// SCID's picture of the base: the game count, then per game `N|Event|deleted`.
const SCID_LIST: &str = "set db [sc_base open [lindex $argv 0]]\n\
    sc_base switch $db\n\
    puts [sc_base numGames $db]\n\
    for {set i 1} {$i <= [sc_base numGames $db]} {incr i} {\n\
      sc_game load $i\n\
      puts \"$i|[sc_game tags get Event]|[sc_base gameflag $db $i get del]\"\n\
    }\n\
    sc_base close $db\n";

/// Game number → (Event, deleted) as SCID reads the base, and its count.
fn scid_view(dir: &Path, base: &Path) -> (usize, Vec<(String, bool)>) {
    let out = tkscid(dir, "list", SCID_LIST, base);
    let mut lines = out.lines();
    let count: usize = lines.next().unwrap().trim().parse().unwrap();
    let games = lines
        .map(|l| {
            let mut parts = l.splitn(3, '|');
            let _n = parts.next();
            let event = parts.next().unwrap().to_owned();
            (event, parts.next() == Some("1"))
        })
        .collect::<Vec<_>>();
    assert_eq!(games.len(), count, "{out}");
    (count, games)
}

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
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let start = listing(&games).len();
    let mut count = start;
    for round in 0..3 {
        // SCID writes the base the mount holds open for writing.
        let (replace, scid_delete) = (5 + round, 20 + round);
        let out = tkscid(
            dir.path(),
            "round",
            &scid_round(round, replace, scid_delete),
            &db,
        );
        count += 1;
        assert_eq!(out.trim(), count.to_string());
        // The mount shows SCID's changes without a remount (it looks at most once a second).
        eventually("the game SCID added is listed", || {
            listed(&games, count).is_some()
        });
        assert!(
            text_of(&m, count).contains(&format!("[Event \"SCID add {round}\"]")),
            "round {round}: {}",
            text_of(&m, count)
        );
        assert!(text_of(&m, replace).contains(&format!("[Event \"SCID replace {round}\"]")));
        assert!(listed(&m.join(".deleted"), scid_delete).is_some());
        assert!(listed(&games, scid_delete).is_none());
        assert!(m.join(&format!("players/Scidadder, Round{round}")).is_dir());
        // Then the mount writes: sed -i, a new file, rm, and vim in one round.
        set_event(&m.game(40 + round), &format!("Mount sed {round}"));
        std::fs::write(
            dir.path().join("new.pgn"),
            pgn(
                &format!("Mount add {round}"),
                &format!("Mountadder, Round{round}"),
                "X, Y",
            ),
        )
        .unwrap();
        sh(dir.path(), &format!("cp new.pgn '{}'", games.display()));
        count += 1;
        std::fs::remove_file(m.game(60 + round)).unwrap();
        if round == 1 {
            let file = m.game(80);
            sh(
                dir.path(),
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
    let (scid_count, scid_games) = scid_view(dir.path(), &db);
    assert_eq!(scid_count, start + 6);
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

/// SCID holding the base open from before the mount's saves: it waits for `go` to exist,
/// then adds a game and replaces game 7 from its stale picture, and closes.
fn stale_scid(dir: &Path, base: &Path) -> Child {
    let script = format!(
        "set db [sc_base open [lindex $argv 0]]\n\
         sc_base switch $db\n\
         puts opened\n\
         flush stdout\n\
         while {{![file exists {go}]}} {{ after 50 }}\n\
         sc_game new\n\
         sc_game import {{{add}}}\n\
         sc_game save 0\n\
         sc_game new\n\
         sc_game import {{{replaced}}}\n\
         sc_game save 7\n\
         sc_base close $db\n",
        go = dir.join("go").display(),
        add = pgn("SCID stale add", "Stale, Adder", "Other, Three"),
        replaced = pgn("SCID stale replace", "Stale, Replacer", "Other, Four"),
    );
    let file = dir.join("stale.tcl");
    std::fs::write(&file, script).unwrap();
    let mut child = Command::new("tkscid")
        .arg(&file)
        .arg(base)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "opened");
    child
}

#[test]
fn saves_scid_writes_over_from_a_stale_picture_are_reported_kept_and_the_base_mended() {
    let dir = scratch("stale-writer");
    let db = copy_db(edge_db(), dir.path(), "collide");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let start = listing(&games).len();
    let mut scid = stale_scid(dir.path(), &db);
    // Saves SCID does not know of: a replacement of game 10 and a new game.
    let ten = m.game(10);
    let ten_name = ten.file_name().unwrap().to_owned();
    set_event(&ten, "Saved ten");
    let saved_ten = std::fs::read_to_string(&ten).unwrap();
    std::fs::write(
        dir.path().join("new.pgn"),
        pgn("Imported new", "Newname, Player", "Newname, Other"),
    )
    .unwrap();
    sh(dir.path(), &format!("cp new.pgn '{}'", games.display()));
    assert_eq!(listing(&games).len(), start + 1);
    // SCID writes from its picture of before those saves.
    std::fs::write(dir.path().join("go"), "").unwrap();
    assert!(scid.wait().unwrap().success());
    // The mount notices at its next look: both saves are reported, their texts kept.
    let rejected = m.join(".gamefs/rejected");
    eventually("the saves written over are reported", || {
        listing(&games);
        listing(&rejected).len() == 2
    });
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains("game 10 saved through the mount"),
        "{errors}"
    );
    assert!(
        errors.contains(&format!("game {} saved through the mount", start + 1)),
        "{errors}"
    );
    let kept_ten = std::fs::read_to_string(rejected.join(&ten_name)).unwrap();
    assert!(kept_ten.contains("[Event \"Saved ten\"]"));
    assert_eq!(kept_ten, saved_ten, "the text as it was saved");
    let kept_new =
        std::fs::read_to_string(rejected.join("added Newname, Player - Newname, Other.pgn"))
            .unwrap();
    assert!(kept_new.contains("[Event \"Imported new\"]"));
    // The mount shows SCID's base: game 10 as before the save, SCID's games (within a
    // second of SCID's last write: a look in the middle of SCID's writes sees half of them).
    let reads = |n: usize, what: &str| {
        listing(&games);
        std::fs::read_to_string(m.game(n)).is_ok_and(|t| t.contains(what))
    };
    eventually("SCID's games read as SCID wrote them", || {
        reads(start + 1, "[Event \"SCID stale add\"]")
            && reads(7, "[Event \"SCID stale replace\"]")
            && !reads(10, "Saved ten")
            && reads(10, "[Event ")
    });
    // Saving again from the kept texts works, on top of SCID's changes.
    sh(
        dir.path(),
        &format!("cp '{}'/* '{}'", rejected.display(), games.display()),
    );
    assert!(text_of(&m, 10).contains("[Event \"Saved ten\"]"));
    assert!(text_of(&m, start + 2).contains("[Event \"Imported new\"]"));
    drop(m);
    // `gamefs check` fails on any problem.
    gamefs_ok(["check".as_ref(), "-q".as_ref(), db.as_os_str()]);
    let (scid_count, scid_games) = scid_view(dir.path(), &db);
    assert_eq!(scid_count, start + 2);
    assert_eq!(scid_games[9].0, "Saved ten");
    assert_eq!(scid_games[6].0, "SCID stale replace");
    assert_eq!(scid_games[start].0, "SCID stale add");
    assert_eq!(scid_games[start + 1].0, "Imported new");
}
