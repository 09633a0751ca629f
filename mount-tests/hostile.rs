//! Hostile input (issue #7): names from a database with `/`, `..`, NUL, newlines, control and
//! bidi characters, 255-byte names and names that collide once made safe; texts nested 10,000
//! deep, multi-megabyte comments and files of many games. Whatever comes in: the tree holds
//! only valid, distinct names, every link the mount makes is relative and stays inside it,
//! `find -L` ends, every game is reachable, refusals are clear, and the gamefs process stays
//! small. (The 1,000,000-game `cp` is the benchmark's: contrib/bench/run.sh 1m.)

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use gamefs::store::NameKind;
use gamefs::store::scid::ScidDatabase;
use gamefs::store::scid::names::NameFile;

use crate::go9::example_db;
use crate::harness::{Mount, gamefs, gamefs_ok, listing, run_with_timeout, scratch};
use crate::simplecdb::golden_copy;
use crate::sys::{memory_kib, status_kib};

/// One game with these names (White, Event and Site are `name`).
fn game(name: &str, black: &str, moves: &str) -> String {
    let tag = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        "[Event \"{0}\"]\n[Site \"{0}\"]\n[Date \"2001.02.03\"]\n[Round \"1\"]\n\
         [White \"{0}\"]\n[Black \"{1}\"]\n[Result \"*\"]\n\n{moves} *\n\n",
        tag(name),
        tag(black)
    )
}

/// Names a database can hold that are no file names as they are.
fn hostile_names() -> Vec<String> {
    let mut v: Vec<String> = [
        "a/b",
        "a／b",
        "..",
        ".",
        "../../../etc/passwd",
        "/absolute",
        "bidi \u{202e}gnp.exe",
        "isolate \u{2067}x\u{2069}",
        "Case",
        "CASE",
        "case",
        "",
        "?",
        "tab\there",
        "nul\0byte",
        "Ctl 1",
        "Ctl 2",
        "Ctl 3",
    ]
    .map(String::from)
    .to_vec();
    v.push("L".repeat(255));
    v.push(format!("{}x", "é".repeat(127)));
    v
}

/// The names of `db` rewritten by `change` (IDs kept), as another program could have written
/// them: NUL, newlines and escape sequences that no PGN import stores.
fn rewrite_scid_names(db: &Path, change: impl Fn(&[u8]) -> Vec<u8>) {
    let store = ScidDatabase::open(db, false).unwrap();
    let mut names = NameFile::default();
    for kind in NameKind::ALL {
        for id in 0..store.name_count(kind) {
            let raw = store.raw_name(kind, id);
            names.section_mut(kind).push(&change(&raw));
        }
    }
    let bytes = names.serialize(&store.name_frequencies());
    drop(store);
    std::fs::write(db.with_extension("sn4"), bytes).unwrap();
}

fn import(db: &Path, pgn: &Path) -> (bool, String) {
    let out = run_with_timeout(
        // Strict: names SCID's own import would drop (a tag over 240 bytes) are stored as
        // written, and a game with a name no SCID database holds is refused.
        Command::new(gamefs())
            .args(["import", "-q", "--strict", "--create"])
            .arg(db)
            .arg(pgn),
        Duration::from_secs(60),
    );
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A name that is safe to show and use: no `/`, no control or bidi characters, not `.` or
/// `..`, not empty, at most 255 bytes.
fn assert_safe_name(path: &Path) {
    let name = path.file_name().unwrap().to_str().expect("UTF-8 names");
    assert!(
        !name.is_empty() && name != "." && name != ".." && name.len() <= 255,
        "{path:?}"
    );
    assert!(
        !name.chars().any(|c| c == '/'
            || c.is_control()
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)),
        "{path:?}"
    );
}

/// Every folder and link of the tree under `mount`: names safe and distinct, links relative
/// and resolving to an item inside the mount; returns the items the links reach.
fn check_tree(mount: &Path, items: &str) -> HashSet<PathBuf> {
    let root = mount.canonicalize().unwrap();
    let all_items: HashSet<PathBuf> = listing(&mount.join(items)).into_iter().collect();
    for item in &all_items {
        assert_safe_name(item);
    }
    let mut reached = HashSet::new();
    let mut folders = vec![mount.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let listed = listing(&dir);
        let names: HashSet<_> = listed.iter().map(|p| p.file_name().unwrap()).collect();
        assert_eq!(names.len(), listed.len(), "distinct names in {dir:?}");
        for p in listed {
            assert_safe_name(&p);
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                folders.push(p);
            } else if meta.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                assert!(target.is_relative(), "{p:?} -> {target:?}");
                let resolved = p.canonicalize().unwrap();
                assert!(resolved.starts_with(&root), "{p:?} escapes to {resolved:?}");
                let item = mount.join(items).join(resolved.file_name().unwrap());
                assert!(all_items.contains(&item), "{p:?} -> {resolved:?}");
                reached.insert(item);
            }
        }
    }
    // find -L follows every link and ends.
    let out = run_with_timeout(
        Command::new("find")
            .arg("-L")
            .arg(mount)
            .arg("-type")
            .arg("f"),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "find -L failed");
    let found = String::from_utf8_lossy(&out.stdout).lines().count();
    assert!(found >= all_items.len(), "find -L saw {found} files");
    reached
}

/// The numbered items of a folder (not the scratch files left by refused copies), in order.
fn numbered(dir: &Path) -> Vec<PathBuf> {
    listing(dir)
        .into_iter()
        .filter(|p| p.file_name().unwrap().as_encoded_bytes()[0].is_ascii_digit())
        .collect()
}

fn folder_names(dir: &Path) -> HashSet<String> {
    listing(dir)
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_owned())
        .collect()
}

#[test]
fn hostile_names_become_safe_distinct_folders_in_scid() {
    let dir = scratch("hostile-scid");
    let pgn = dir.path().join("hostile.pgn");
    let names = hostile_names();
    let text: String = names
        .iter()
        .enumerate()
        .map(|(i, n)| game(n, &format!("Other {i}"), "1. e4 e5"))
        .collect();
    std::fs::write(&pgn, text).unwrap();
    let db = dir.path().join("db");
    let (ok, stderr) = import(&db, &pgn);
    assert!(ok, "{stderr}");
    // What no PGN import stores, another program may have: NUL, newline, escape.
    rewrite_scid_names(&db, |raw| match raw {
        b"Ctl 1" => b"line\nbreak".to_vec(),
        b"Ctl 2" => b"nul\0inside".to_vec(),
        b"Ctl 3" => b"\x1b[31mred".to_vec(),
        other => other.to_vec(),
    });
    // Refused with a clear reason, nothing imported: a 1000-byte name, a newline in a tag.
    for (bad, reason) in [
        (game(&"N".repeat(1000), "x", "1. e4"), "255"),
        (
            "[Event \"two\nlines\"]\n\n1. e4 *\n".to_owned(),
            "not closed with '\"' on its line",
        ),
    ] {
        let file = dir.path().join("bad.pgn");
        std::fs::write(&file, bad).unwrap();
        let before = std::fs::read(db.with_extension("si4")).unwrap();
        let (ok, stderr) = import(&db, &file);
        assert!(!ok && stderr.contains(reason), "{stderr}");
        assert_eq!(std::fs::read(db.with_extension("si4")).unwrap(), before);
    }
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let reached = check_tree(&m.path, "games");
    assert_eq!(
        reached.len(),
        names.len(),
        "every game is reachable from the views"
    );
    let players = folder_names(&m.join("players"));
    for want in [
        "a／b",
        "a／b ~2",
        "(dot-dot)",
        "(dot)",
        "..／..／..／etc／passwd",
        "／absolute",
        "bidi \u{fffd}gnp.exe",
        "isolate \u{fffd}x\u{fffd}",
        "Case",
        "CASE",
        "case",
        "(none)",
        "(unknown)",
        "tab here",
        "nul byte",
        "line␊break",
        "nul␀inside",
        "␛[31mred",
    ] {
        assert!(players.contains(want), "{want:?} not in {players:?}");
    }
    assert!(players.contains(&"L".repeat(247)), "a long name cut to fit");
    assert!(
        players
            .iter()
            .any(|p| p.starts_with("éé") && p.len() <= 255),
        "{players:?}"
    );
    assert!(folder_names(&m.join("events")).len() >= names.len() - 2);
}

#[test]
fn hostile_names_become_safe_distinct_folders_in_simplecdb() {
    let dir = scratch("hostile-scdb");
    let db = golden_copy(dir.path());
    // Overwrite the first player records (36 bytes each, after the 10-byte magic).
    let hostile: [&[u8]; 6] = [
        b"a/b",
        b"..",
        b"x\ny",
        b"nul\0z",
        "r\u{202e}l".as_bytes(),
        b".",
    ];
    let dcn = db.with_extension("dcn");
    let mut bytes = std::fs::read(&dcn).unwrap();
    for (i, name) in hostile.iter().enumerate() {
        let record = &mut bytes[10 + 36 * i..10 + 36 * (i + 1)];
        record.fill(b' ');
        record[..name.len()].copy_from_slice(name);
    }
    std::fs::write(&dcn, bytes).unwrap();
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let reached = check_tree(&m.path, "games");
    assert_eq!(reached.len(), listing(&m.join("games")).len());
    let players = folder_names(&m.join("players"));
    for want in ["a／b", "(dot-dot)", "x␊y", "nul␀z", "r\u{fffd}l", "(dot)"] {
        assert!(players.contains(want), "{want:?} not in players");
    }
}

#[test]
fn hostile_program_names_become_safe_score_folders_in_go() {
    let dir = scratch("hostile-go");
    let db = example_db(dir.path());
    let scored = std::fs::read(db.join("fuego_chinese.dat")).unwrap();
    for name in ["evil\u{202e}_x.dat", "two\nlines_y.dat", ".._z.dat"] {
        std::fs::write(db.join(name), &scored).unwrap();
    }
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let reached = check_tree(&m.path, "positions");
    assert_eq!(reached.len(), 5);
    let scores = folder_names(&m.join("scores"));
    for want in ["evil\u{fffd}_x", ".._z", "fuego_chinese"] {
        assert!(scores.contains(want), "{want:?} not in {scores:?}");
    }
    // A program name with a line break could not be written back into a position's SGF
    // (its score lines would not parse): such a file is not taken as a scored file.
    assert!(!scores.iter().any(|s| s.starts_with("two")), "{scores:?}");
}

/// `cp` a text (written outside first) into `dest`; the errno cp reports, if it failed. (A
/// separate process: this test's descriptors are duplicated by every process the other tests
/// start, and each such copy's close is a FLUSH of the file.)
fn copy_in(text: &[u8], dest: &Path) -> Option<i32> {
    let src = dest
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join(dest.file_name().unwrap());
    std::fs::write(&src, text).unwrap();
    let out = run_with_timeout(
        Command::new("cp").arg(&src).arg(dest),
        Duration::from_secs(60),
    );
    if out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    [libc::EFBIG, libc::EINVAL, libc::ENOSPC]
        .into_iter()
        .find(|&e| {
            stderr.contains(
                &std::io::Error::from_raw_os_error(e)
                    .to_string()
                    .split(" (os")
                    .next()
                    .unwrap()
                    .to_owned(),
            )
        })
        .or(Some(-1))
}

fn errors(m: &Mount) -> String {
    std::fs::read_to_string(m.join(".gamefs/errors")).unwrap()
}

const PEAK_KIB: u64 = 256 << 10;

#[test]
fn deep_nesting_and_huge_comments_are_stored_or_clearly_refused() {
    let dir = scratch("hostile-deep");
    let db = crate::fixtures::copy_db(crate::fixtures::edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let count = || numbered(&games).len();
    let before = count();
    // 10,000 nested variations: stored, and read back exactly.
    let deep = game(
        "Deep, Nesting",
        "x",
        &format!("1. e4 {}{}", "(1. d4 ".repeat(10_000), ")".repeat(10_000)),
    );
    assert_eq!(copy_in(deep.as_bytes(), &games.join("deep.pgn")), None);
    assert_eq!(count(), before + 1);
    let stored = numbered(&games).pop().unwrap();
    let text = std::fs::read_to_string(&stored).unwrap();
    assert_eq!(text.matches('(').count(), 10_000);
    assert_eq!(std::fs::metadata(&stored).unwrap().len(), text.len() as u64);
    // A 100 KB comment fits a record; 5 MB is refused (EFBIG) with the reason.
    let comment = |n: usize| {
        game(
            "Comment, Long",
            "x",
            &format!("1. e4 {{{}}} e5", "c".repeat(n)),
        )
    };
    assert_eq!(
        copy_in(comment(100_000).as_bytes(), &games.join("c1.pgn")),
        None
    );
    assert!(
        std::fs::read_to_string(numbered(&games).pop().unwrap())
            .unwrap()
            .contains(&"c".repeat(100_000))
    );
    let huge = comment(5 << 20);
    assert_eq!(
        copy_in(huge.as_bytes(), &games.join("c2.pgn")),
        Some(libc::EFBIG)
    );
    assert!(errors(&m).contains("4 MiB"), "{}", errors(&m));
    assert_eq!(
        std::fs::read(m.join(".gamefs/rejected/c2.pgn")).unwrap(),
        huge.as_bytes(),
        "the refused text is kept"
    );
    // A million nested variations (7 MB): refused before it can take memory.
    let million = game(
        "Deep, Million",
        "x",
        &format!(
            "1. e4 {}{}",
            "(1. d4 ".repeat(1_000_000),
            ")".repeat(1_000_000)
        ),
    );
    assert_eq!(
        copy_in(million.as_bytes(), &games.join("million.pgn")),
        Some(libc::EFBIG)
    );
    assert!(errors(&m).contains("131071 moves and variations"));
    // A game file cannot be made huge either.
    let first = numbered(&games).swap_remove(0);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&first)
        .unwrap();
    let err = std::io::Write::write_all(&mut f, &vec![b' '; 17 << 20]).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EFBIG), "{err}");
    drop(f);
    assert_eq!(count(), before + 2);
    let (_, peak, _) = memory_kib(m.pid());
    assert!(peak < PEAK_KIB, "gamefs peaked at {peak} KiB");
}

#[test]
fn deep_and_huge_sgf_are_stored_or_clearly_refused() {
    let dir = scratch("hostile-sgf");
    let db = example_db(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let positions = m.join("positions");
    let deep = |n: usize| {
        format!(
            "(;FF[4]GM[1]SZ[9]AB[ee]{}{})",
            "(;W[cc]".repeat(n),
            ")".repeat(n)
        )
    };
    assert_eq!(
        copy_in(deep(10_000).as_bytes(), &positions.join("deep.sgf")),
        None
    );
    assert_eq!(listing(&positions).len(), 6, "stored");
    let comment = format!("(;FF[4]GM[1]SZ[9]AB[gg]C[{}])", "c".repeat(5 << 20));
    assert_eq!(copy_in(comment.as_bytes(), &positions.join("c.sgf")), None);
    assert_eq!(
        listing(&positions).len(),
        7,
        "stored (the comment is not kept)"
    );
    assert_eq!(
        copy_in(deep(1_000_000).as_bytes(), &positions.join("million.sgf")),
        Some(libc::EINVAL)
    );
    assert!(errors(&m).contains("nested more than"), "{}", errors(&m));
    let (_, peak, _) = memory_kib(m.pid());
    assert!(peak < PEAK_KIB, "gamefs peaked at {peak} KiB");
}

/// A scratch folder named after `name` holding a new, empty SCID database; returns the folder
/// and the database's path.
fn new_database(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = scratch(name);
    let db = dir.path().join("db");
    gamefs_ok([Path::new("create"), &db]);
    (dir, db)
}

/// A file of tiny games (`*` alone is a game) is parsed ahead of writing like any other, but
/// 256 KiB of it are 87,000 games: the games waiting in memory must be bounded by their
/// number, not only by the bytes they came from.
#[test]
fn a_file_of_tiny_games_is_imported_in_bounded_memory() {
    let (dir, db) = new_database("hostile-tiny");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let n = 500_000;
    assert_eq!(
        copy_in("*\n\n".repeat(n).as_bytes(), &games.join("tiny.pgn")),
        None
    );
    assert!(std::fs::metadata(games.join(format!("{n} x.pgn"))).is_ok());
    assert!(std::fs::metadata(games.join(format!("{} x.pgn", n + 1))).is_err());
    // The new games' index and names take about 40 MiB; with every parsed game of the text
    // waiting at once, the process peaked at 215 MiB.
    let (_, peak, _) = memory_kib(m.pid());
    assert!(peak < 128 << 10, "gamefs peaked at {peak} KiB");
}

/// `n` short games with varied tags (players, events, sites, years), each with `comment`
/// bytes of comment, streamed to `path`.
fn write_games(path: &Path, n: usize, tag: &str, comment: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let note = "n".repeat(comment);
    for i in 0..n {
        let annotation = if comment > 0 {
            format!("{{{note}}} ")
        } else {
            String::new()
        };
        std::io::Write::write_all(
            &mut out,
            format!(
                "[Event \"{tag} {}\"]\n[Site \"Site {}\"]\n[Date \"{}.01.01\"]\n[Round \"{}\"]\n\
                 [White \"{tag} {}\"]\n[Black \"{tag} {}\"]\n[Result \"1-0\"]\n\n\
                 1. e4 {annotation}e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n",
                i % 97,
                i % 13,
                1950 + i % 70,
                i % 9 + 1,
                i % 1000,
                (i * 7 + 3) % 1000
            )
            .as_bytes(),
        )
        .unwrap();
    }
}

#[test]
fn many_games_in_one_file_do_not_grow_the_process_with_the_file() {
    let (dir, db) = new_database("hostile-many");
    let m = Mount::new(&db, dir.path(), &[]);
    let small = dir.path().join("small.pgn");
    let large = dir.path().join("large.pgn");
    write_games(&small, 25_000, "Short", 0);
    write_games(&large, 25_000, "Long", 1000);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len() / 1024;
    let (small_kib, large_kib) = (size(&small), size(&large));
    assert!(large_kib > 5 * small_kib);
    let anon = || memory_kib(m.pid()).2;
    let start = anon();
    let cp = |src: &Path| {
        let out = run_with_timeout(
            Command::new("cp").arg(src).arg(m.join("games")),
            Duration::from_secs(120),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    cp(&small);
    let after_small = anon();
    // While the large file is imported, how much of the process is file pages: the copied
    // file is mapped for parsing, and each part parsed must be let go.
    let file_kib = || status_kib(m.pid(), ["RssFile:"])[0];
    let file_before = file_kib();
    let copying = std::sync::atomic::AtomicBool::new(true);
    let most_file_kib = std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            let mut most = 0;
            while copying.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(file_kib());
                std::thread::sleep(Duration::from_millis(2));
            }
            most
        });
        cp(&large);
        copying.store(false, std::sync::atomic::Ordering::Relaxed);
        sampler.join().unwrap()
    });
    let after_large = anon();
    assert_eq!(numbered(&m.join("games")).len(), 50_000);
    // The second file is five times bigger, with as many games: the process grows with the
    // games (their index), not with the text (kept in a temporary file while imported).
    let grew_small = after_small.saturating_sub(start);
    let grew_large = after_large.saturating_sub(after_small);
    assert!(
        grew_large < grew_small + large_kib / 4,
        "anonymous memory grew {grew_small} KiB for {small_kib} KiB of text, \
         then {grew_large} KiB for {large_kib} KiB"
    );
    let file_grew = most_file_kib.saturating_sub(file_before);
    assert!(
        file_grew < large_kib / 4,
        "{file_grew} KiB more file pages resident while {large_kib} KiB of text were imported"
    );
    let (_, peak, _) = memory_kib(m.pid());
    assert!(peak < PEAK_KIB, "gamefs peaked at {peak} KiB");
}
