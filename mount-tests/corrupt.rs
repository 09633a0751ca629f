//! Damaged databases mounted through the kernel (docs/guide/damaged.md, SEMANTICS §16):
//! the mount starts, `ls` works, every healthy game reads exactly as from the undamaged
//! database, each damaged one fails with EIO (logged once, listed in `.gamefs/errors`),
//! `grep -r` finishes and names the unreadable files, and the mount is read-only.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::damage::{self, Dcdb, Scid};
use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, Unmounted, gamefs, is_mounted, listing, run_with_timeout, scratch};

/// The file of game `number` (1-based) in `games/`.
fn game(m: &Mount, number: u32) -> PathBuf {
    m.game(number as usize)
}

/// The number a game file's name starts with.
fn number_of(path: &Path) -> u32 {
    let name = path.file_name().unwrap().to_str().unwrap();
    name.split([' ', '.']).next().unwrap().parse().unwrap()
}

/// `path` cannot be read: EIO (these mounts are read-only, where `stat` fails too, so the
/// file never reads as empty).
fn assert_eio(path: &Path) {
    let err = std::fs::read(path).expect_err("a damaged game cannot be read");
    assert_eq!(err.raw_os_error(), Some(libc::EIO), "{path:?}: {err}");
    let err = std::fs::metadata(path).expect_err("nor stat");
    assert_eq!(err.raw_os_error(), Some(libc::EIO), "{path:?}: {err}");
}

/// `grep -r PATTERN` over the whole mount: it must finish (60 s), and name exactly the
/// `broken` files as unreadable (Input/output error); returns how many lines matched.
fn grep_all(m: &Mount, pattern: &str, broken: &[PathBuf]) -> usize {
    let out = run_with_timeout(
        Command::new("grep").args(["-r", pattern]).arg(&m.path),
        Duration::from_secs(60),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "grep reports the unreadable files"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("Input/output error").count(),
        broken.len(),
        "{stderr}"
    );
    for b in broken {
        assert!(
            stderr.contains(b.file_name().unwrap().to_str().unwrap()),
            "{b:?} in {stderr}"
        );
    }
    String::from_utf8_lossy(&out.stdout).lines().count()
}

/// Read every game of `damaged`: those numbered in `broken` fail with EIO, the others read
/// exactly as the same game of `healthy`, except those in `changed`; returns the broken files.
fn compare_games(
    healthy: &Mount,
    damaged: &Mount,
    broken: &[u32],
    changed: &[u32],
) -> Vec<PathBuf> {
    let files = listing(&damaged.join("games"));
    assert_eq!(
        files.len(),
        listing(&healthy.join("games")).len(),
        "ls games/ works"
    );
    let mut unreadable = Vec::new();
    for f in files {
        let n = number_of(&f);
        if broken.contains(&n) {
            assert_eio(&f);
            unreadable.push(f);
        } else if !changed.contains(&n) {
            assert_eq!(
                std::fs::read(&f).unwrap_or_else(|e| panic!("{f:?}: {e}")),
                std::fs::read(game(healthy, n)).unwrap(),
                "{f:?} reads as in the undamaged database"
            );
        }
    }
    unreadable
}

/// Error lines of the log that contain `text` (the warning that the database is damaged
/// names its first problem too).
fn log_lines(log: &Path, text: &str) -> usize {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" ERROR ") && l.contains(text))
        .count()
}

#[test]
fn a_damaged_scid_database_serves_its_healthy_games() {
    let dir = scratch("corrupt-scid");
    let pristine = copy_db(edge_db(), dir.path(), "pristine");
    let base = copy_db(edge_db(), dir.path(), "damaged");
    let db = Scid::new(&base);
    // Game 2: a record of garbage; game 3: a White name ID out of range; game 5: an offset
    // past the end of the game file; games 7 and 8: overlapping records.
    db.fill_record(1, 0xF0);
    db.change_entry(2, |e| e.white = 1_000_000);
    let len = db.read("sg4").len() as u32;
    db.change_entry(4, |e| e.offset = u64::from(len + 100));
    let seventh = db.entry(6);
    db.change_entry(7, |e| e.offset = seventh.offset + 2);
    let log = dir.path().join("gamefs.log");
    let healthy = Mount::new(&pristine, &dir.path().join("a"), &["-o", "ro"]);
    std::fs::create_dir_all(dir.path().join("b")).unwrap();
    let m = Mount::new(
        &base,
        &dir.path().join("b"),
        &["--log-file", log.to_str().unwrap()],
    );

    let broken = compare_games(&healthy, &m, &[2, 5, 7, 8], &[3]);
    // Game 3 is served, its unknown White name as ? (as SCID shows it).
    let third = game(&m, 3);
    assert!(
        third.to_str().unwrap().contains("(unknown) - "),
        "{third:?}"
    );
    let text = std::fs::read_to_string(&third).unwrap();
    let before = std::fs::read_to_string(game(&healthy, 3)).unwrap();
    assert!(text.contains("[White \"?\"]"), "{text}");
    let other_lines = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("[White "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(other_lines(&text), other_lines(&before));

    // grep over the whole tree finishes and names the four unreadable files.
    let matched = grep_all(&m, "Result", &broken);
    assert!(matched > 30, "{matched}");
    grep_all(&m, "Result", &broken);

    // One log line per damaged game, however often it is read.
    for f in &broken {
        assert_eio(f);
    }
    for (g, why) in [
        (2, "game 2: "),
        (5, "game 5: its record"),
        (7, "game 7: its record"),
        (8, "game 8: its record"),
        (3, "game 3: White name ID 1000000 is out of range"),
    ] {
        assert_eq!(log_lines(&log, why), 1, "game {g}: {why}");
    }
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    for why in ["game 5: its record", "game 7: its record", "0002 "] {
        assert!(errors.contains(why), "{errors}");
    }
    // The mount fell back to read-only: nothing can change the damaged database.
    let err = std::fs::write(game(&m, 1), "x").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS), "{err}");
}

#[test]
fn a_cut_index_mounts_read_only_unless_rw_is_insisted_on() {
    let dir = scratch("corrupt-index");
    let base = copy_db(edge_db(), dir.path(), "cut");
    let db = Scid::new(&base);
    let si4 = db.read("si4");
    db.truncate("si4", si4.len() - 10);
    let games = (si4.len() - 182) / 47;
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let _unmount = Unmounted(mnt.clone());
    let mount = |extra: &[&str]| {
        run_with_timeout(
            Command::new(gamefs())
                .arg("mount")
                .args(extra)
                .arg(&base)
                .arg(&mnt),
            Duration::from_secs(30),
        )
    };
    // Writable asked for explicitly: refused, in one line naming the damage.
    let out = mount(&["-o", "rw"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is damaged") && err.contains("its index entry is cut short"),
        "{err}"
    );
    assert!(!is_mounted(&mnt));
    // By default: mounted read-only, saying so.
    let out = mount(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("mounting read-only"), "{err}");
    assert!(err.contains("1 of its games cannot be read"), "{err}");
    let files = listing(&mnt.join("games"));
    assert_eq!(files.len(), games, "the game whose entry is cut is listed");
    assert_eio(files.last().unwrap());
    for f in &files[..files.len() - 1] {
        std::fs::read(f).unwrap_or_else(|e| panic!("{f:?}: {e}"));
    }
}

#[test]
fn a_damaged_simple_chess_database_serves_its_healthy_games() {
    let dir = scratch("corrupt-dcdb");
    let golden = crate::simplecdb::golden_copy(dir.path());
    let base = dir.path().join("damaged");
    damage::copy_files(&golden, &base, &gamefs::store::simplecdb::EXTENSIONS);
    let db = Dcdb::new(&base);
    let len = db.read("dcg").len() as u64;
    db.change_entry(4, |e| e.offset = len + 7);
    let tenth = db.record(9);
    let mut dcg = db.read("dcg");
    dcg[tenth.start..tenth.end].fill(0xFF);
    db.write("dcg", &dcg);
    let healthy = Mount::new(&golden, &dir.path().join("a"), &["-o", "ro"]);
    let log = dir.path().join("gamefs.log");
    std::fs::create_dir_all(dir.path().join("b")).unwrap();
    let m = Mount::new(
        &db.path("dci"),
        &dir.path().join("b"),
        &["-o", "ro", "--log-file", log.to_str().unwrap()],
    );
    let broken = compare_games(&healthy, &m, &[5, 10], &[]);
    grep_all(&m, "Event", &broken);
    assert_eio(&broken[1]);
    assert_eq!(log_lines(&log, "game 5: its record offset"), 1);
    assert_eq!(log_lines(&log, "game 10: "), 1);
}

/// The example Go database in `dir` with a sixth record of board bytes `?` appended.
fn damaged_go_db(dir: &Path) -> PathBuf {
    let db = crate::go9::example_db(dir);
    let file = db.join("positions.dat");
    let mut bytes = std::fs::read(&file).unwrap();
    let mut garbage = bytes[..92].to_vec();
    garbage[10..91].fill(b'?');
    bytes.extend(garbage);
    std::fs::write(&file, &bytes).unwrap();
    db
}

#[test]
fn a_damaged_go_record_is_an_unreadable_file_of_its_own() {
    let dir = scratch("corrupt-go");
    let db = damaged_go_db(dir.path());
    let log = dir.path().join("gamefs.log");
    let m = Mount::new(&db, dir.path(), &["--log-file", log.to_str().unwrap()]);
    let files = listing(&m.join("positions"));
    assert_eq!(files.len(), 6, "{files:?}");
    let damaged = m.join("positions/damaged-record-6.sgf");
    assert!(files.contains(&damaged), "{files:?}");
    for f in &files {
        if f == &damaged {
            assert_eio(f);
        } else {
            assert!(std::fs::read_to_string(f).unwrap().starts_with("(;FF[4]"));
        }
    }
    grep_all(&m, "GM", std::slice::from_ref(&damaged));
    assert_eq!(log_lines(&log, "record 6 at byte 460: board byte 1"), 1);
    let err = std::fs::write(&files[0], "x").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EROFS), "{err}");
}

/// The lines of a command's stderr, log timestamps (`[2026-… WARN  target]`) dropped.
fn stderr_lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| match (l.strip_prefix('['), l.find(' ')) {
            (Some(_), Some(space)) => format!("[{}", &l[space + 1..]),
            _ => l.to_owned(),
        })
        .collect()
}

/// A detached mount opens the database once, in the background process: what the open says
/// (its log lines, the read-only fallback, the damage warning, the error that stops it) comes
/// up the start-up pipe to the terminal, in order, as when the mount command opened it itself
/// (SEMANTICS §16).
#[test]
fn a_detached_mount_reports_what_the_open_found_on_the_terminal() {
    let dir = scratch("corrupt-go-detached");
    let db = damaged_go_db(dir.path());
    std::fs::write(db.join("notes.dat"), "not a position file").unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let _unmount = Unmounted(mnt.clone());
    let mount = |extra: &[&str], on: &Path| {
        run_with_timeout(
            Command::new(gamefs())
                .arg("mount")
                .args(extra)
                .arg(&db)
                .arg(on),
            Duration::from_secs(30),
        )
    };
    let d = db.display();
    let ignored = format!(
        "[WARN  gamefs::store::go9x9] {d}/notes.dat: ignored (neither a position file nor a \
         <program>_<ruleset>.dat scored file)"
    );
    let damage = format!(
        "{d} is damaged ({d}/positions.dat: record 6 at byte 460: board byte 1 (row 1, column \
         1) is '?', expected '#', 'O' or '.'); a damaged database is only opened read-only \
         (`gamefs check` lists every problem; guide: docs/guide/damaged.md)"
    );
    let fallback = vec![
        ignored.clone(),
        ignored.clone(),
        format!("[WARN  gamefs::cli::mount] {damage}; mounting read-only"),
        format!("gamefs: {damage}; mounting read-only"),
        format!(
            "gamefs: warning: {d} is damaged: 1 problem(s); 1 of its positions cannot be read \
             (I/O error), the others are served (`gamefs check {d}` lists every problem; guide: \
             docs/guide/damaged.md)"
        ),
    ];
    let out = mount(&[], &mnt);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stderr_lines(&out), fallback);
    assert_eq!(listing(&mnt.join("positions")).len(), 6);
    crate::harness::force_unmount(&mnt);
    // An error after the open: the warnings, then the error, and a failure.
    let out = mount(&[], &dir.path().join("missing"));
    assert_eq!(out.status.code(), Some(1));
    let mut want = fallback.clone();
    want.push(format!(
        "gamefs: mountpoint {}: No such file or directory (os error 2)",
        dir.path().join("missing").display()
    ));
    assert_eq!(stderr_lines(&out), want);
    // The open itself refuses: its log line, then the error.
    let out = mount(&["-o", "rw"], &mnt);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr_lines(&out),
        vec![ignored, format!("gamefs: {damage}")]
    );
    assert!(!is_mounted(&mnt));
}
