//! The database commands end to end, without a mount: create, import, export, info, check,
//! compact — on both chess formats — and their behaviour off a terminal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gamefs(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args(args)
        .output()
        .expect("gamefs runs")
}

/// `gamefs ARGS` run in folder `dir`.
fn gamefs_in(dir: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("gamefs runs")
}

fn ok(args: &[&std::ffi::OsStr]) -> String {
    let out = gamefs(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn demo_pgn() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/sample/demo.pgn")
}

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

fn round_trip(db: &Path) {
    let pgn = demo_pgn();
    let out = gamefs(&[
        os("import"),
        os("--create"),
        db.as_os_str(),
        pgn.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("imported 30 games"), "{stderr}");
    assert!(
        !stderr.contains('\r') && !stderr.contains('\u{1b}'),
        "no progress drawing off a terminal: {stderr:?}"
    );
    let exported = ok(&[os("export"), db.as_os_str()]);
    assert_eq!(exported.matches("[Event ").count(), 30);
    let again = db.with_file_name("again");
    let tmp = db.with_file_name("exported.pgn");
    std::fs::write(&tmp, &exported).unwrap();
    let format = if db.extension().is_some_and(|e| e == "dci") {
        "simplecdb"
    } else {
        "scid"
    };
    ok(&[
        os("import"),
        os("--create"),
        os("--format"),
        os(format),
        again.as_os_str(),
        tmp.as_os_str(),
    ]);
    assert_eq!(
        ok(&[os("export"), again.as_os_str()]),
        exported,
        "export → import → export is stable"
    );
    let info = ok(&[os("info"), os("--json"), db.as_os_str()]);
    assert!(
        info.contains("\"games\":30") && info.contains("\"deleted\":0"),
        "{info}"
    );
    ok(&[os("check"), os("-q"), db.as_os_str()]);
    let report = gamefs(&[os("compact"), db.as_os_str()]);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    assert_eq!(
        ok(&[os("export"), db.as_os_str()]),
        exported,
        "compaction keeps every game"
    );
}

#[test]
fn scid_databases_round_trip_through_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    round_trip(&dir.path().join("base"));
    assert!(dir.path().join("base.si4").is_file());
}

/// A database of the demo games made in `dir`, and its export.
fn demo_database(dir: &Path) -> (PathBuf, String) {
    let db = dir.join("base");
    ok(&[
        os("import"),
        os("--create"),
        db.as_os_str(),
        demo_pgn().as_os_str(),
    ]);
    let exported = ok(&[os("export"), db.as_os_str()]);
    (db, exported)
}

#[test]
fn export_to_a_file_replaces_a_longer_earlier_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (db, expected) = demo_database(dir.path());
    let out = dir.path().join("out.pgn");
    // An earlier output ten times longer: none of it may be left at the end.
    std::fs::write(&out, "x".repeat(10 * expected.len())).unwrap();
    ok(&[os("export"), db.as_os_str(), os("-o"), out.as_os_str()]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
    // A new file, and an empty one, are written the same.
    std::fs::remove_file(&out).unwrap();
    ok(&[os("export"), db.as_os_str(), os("-o"), out.as_os_str()]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
}

#[test]
fn export_to_a_dash_writes_standard_output_and_makes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let (db, expected) = demo_database(dir.path());
    let out = gamefs_in(
        dir.path(),
        &[os("export"), db.as_os_str(), os("-o"), os("-")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    assert!(!dir.path().join("-").exists(), "no file named -");
}

/// A database of 4200 games made in `dir` (the demo games as gamefs writes them, copied with
/// a round naming each copy: more than fit in a few of the batches an export renders on every
/// core at once), and the text of its games in order.
fn many_games(dir: &Path) -> (PathBuf, String) {
    let (_, demo) = demo_database(dir);
    assert!(demo.matches("[Event ").count() >= 20);
    let mut expected = String::new();
    for copy in 0..140 {
        for (i, game) in demo.split("\n[Event ").enumerate() {
            let game = if i == 0 {
                game.to_owned()
            } else {
                format!("[Event {game}")
            };
            let body = game.trim_end_matches('\n');
            let round = body.find("[Round \"").expect("a Round tag");
            let end = round + body[round..].find('\n').expect("a line");
            expected.push_str(&body[..round]);
            expected.push_str(&format!("[Round \"{copy}.{i}\"]"));
            expected.push_str(&body[end..]);
            expected.push_str("\n\n");
        }
    }
    let pgn = dir.join("copies.pgn");
    std::fs::write(&pgn, &expected).unwrap();
    let many = dir.join("many");
    ok(&[
        os("import"),
        os("--create"),
        many.as_os_str(),
        pgn.as_os_str(),
    ]);
    (many, expected)
}

#[test]
fn an_export_of_many_batches_keeps_game_order() {
    let dir = tempfile::tempdir().unwrap();
    let (many, expected) = many_games(dir.path());
    let exported = ok(&[os("export"), many.as_os_str()]);
    assert!(
        exported == expected,
        "the export differs from the games imported, in order"
    );
}

#[test]
fn an_export_stopped_by_a_signal_leaves_only_its_own_text() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let (many, expected) = many_games(dir.path());
    let out = dir.path().join("out.pgn");
    // Old content longer than the export, of a byte no PGN text holds.
    let old = vec![0xFF_u8; expected.len() + 300_000];
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let mut stopped = false;
        // The export may end before the signal comes: then it must be whole; try again.
        for _attempt in 0..10 {
            std::fs::write(&out, &old).unwrap();
            let mut child = Command::new(env!("CARGO_BIN_EXE_gamefs"))
                .args([os("export"), many.as_os_str(), os("-o"), out.as_os_str()])
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            // Signal once the first games are in the file.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while std::fs::read(&out).unwrap()[..7] != *b"[Event " {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no text within a minute"
                );
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            // SAFETY: a signal to our own child, still ours to wait for.
            unsafe { libc::kill(child.id() as libc::pid_t, sig) };
            let status = child.wait().unwrap();
            let text = std::fs::read(&out).unwrap();
            if status.signal() == Some(sig) {
                assert!(
                    text.len() < expected.len(),
                    "stopped by signal {sig} after writing everything"
                );
                assert!(
                    expected.as_bytes().starts_with(&text),
                    "signal {sig}: the file is not a prefix of the export ({} bytes; old content left: {})",
                    text.len(),
                    text.contains(&0xFF)
                );
                stopped = true;
                break;
            }
            assert!(status.success(), "signal {sig}: {status}");
            assert!(text == expected.as_bytes(), "a finished export is whole");
        }
        assert!(stopped, "the export always ended before signal {sig} came");
    }
}

#[test]
fn simple_chess_databases_round_trip_through_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("fits.pgn");
    // The demo games hold things this format cannot (long names, extra tags): a game it can hold.
    std::fs::write(&pgn, "[Event \"Fits\"]\n[Site \"Here\"]\n[Date \"2026.11.22\"]\n[Round \"3\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n").unwrap();
    let db = dir.path().join("small.dci");
    ok(&[
        os("import"),
        os("--create"),
        db.as_os_str(),
        pgn.as_os_str(),
    ]);
    assert!(dir.path().join("small.dcg").is_file());
    let exported = ok(&[os("export"), db.as_os_str()]);
    assert!(
        exported.contains("[Round \"3\"]") && exported.contains("4. Qxf7# 1-0"),
        "{exported}"
    );
    ok(&[os("check"), os("-q"), db.as_os_str()]);
    // The demo file does not fit: with --strict refused whole, with the reason, and nothing
    // imported.
    let demo = demo_pgn();
    let out = gamefs(&[
        os("import"),
        os("--strict"),
        db.as_os_str(),
        demo.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nothing imported from this file"),
        "{stderr}"
    );
    assert!(stderr.contains("import with --lossy"), "{stderr}");
    assert_eq!(ok(&[os("export"), db.as_os_str()]), exported);
    // Without --strict the games that fit go in, the others are left out and named in the
    // report, their text in the rejects file, and the exit status says so.
    let copy = dir.path().join("copy.dci");
    for ext in ["dci", "dcn", "dcs", "dce", "dcg"] {
        std::fs::copy(db.with_extension(ext), copy.with_extension(ext)).unwrap();
    }
    let (rejects, report) = (
        dir.path().join("rejects.pgn"),
        dir.path().join("report.txt"),
    );
    let out = gamefs(&[
        os("import"),
        copy.as_os_str(),
        demo.as_os_str(),
        os("--rejects"),
        rejects.as_os_str(),
        os("--report"),
        report.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let games = |text: &str| text.matches("[Event ").count();
    let demo_games = games(&std::fs::read_to_string(&demo).unwrap());
    let report = std::fs::read_to_string(&report).unwrap();
    let left_out = report.lines().count();
    assert!(
        left_out > 0 && report.contains("import with --lossy"),
        "{report}"
    );
    let stored = games(&ok(&[os("export"), copy.as_os_str()])) - 1;
    assert!(stored > 0, "the games that fit are stored");
    assert_eq!(stored + left_out, demo_games, "{report}");
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    assert_eq!(games(&rejected), left_out, "{rejected}");
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(
        summary.contains(&format!(
            "{stored} games imported (0 with changes), {left_out} left out"
        )),
        "{summary}"
    );
    // With --lossy it goes in, as close as the format allows; each game stored with losses
    // is reported, and the exit status says so.
    let out = gamefs(&[
        os("import"),
        os("--lossy"),
        os("-q"),
        db.as_os_str(),
        demo.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let after = ok(&[os("export"), db.as_os_str()]);
    assert_eq!(games(&after), 1 + demo_games, "{after}");
}

#[test]
fn errors_are_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing");
    for cmd in ["export", "info", "check", "compact"] {
        let out = gamefs(&[os(cmd), missing.as_os_str()]);
        assert!(!out.status.success(), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("gamefs: no database at") && err.trim().lines().count() == 1,
            "{cmd}: {err}"
        );
    }
    let db = dir.path().join("twice");
    ok(&[os("create"), db.as_os_str()]);
    let out = gamefs(&[os("create"), db.as_os_str()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
}

/// `n` games with 16 KiB comments written to `path` (16 MiB of text per 1000 games, quick
/// to parse); returns the file's length.
fn write_commented_games(path: &Path, n: usize) -> u64 {
    let comment = "c".repeat(16 << 10);
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "[Event \"E{i}\"]\n[White \"W{}\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 {{{comment}}} e5 *\n\n",
            i % 50
        ));
    }
    std::fs::write(path, &text).unwrap();
    text.len() as u64
}

/// `gamefs import` maps a PGN file and lets each part go once it is parsed: the process does
/// not hold the file, whatever its size (a month of online games is tens of GiB), nor more
/// parsed games at once on a machine of many cores (the parsing threads stay within a window
/// of chunks; CI's machine once peaked at 137 MiB for this 126 MiB file).
#[test]
fn an_import_does_not_hold_the_file_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    // 32 MiB and 126 MiB: what an import holds (mimalloc's arenas, the parts in flight on
    // each thread, the new index) grows little with the file, while a text held whole, or
    // parts never let go, would grow with all of it.
    let peaks: Vec<(u64, u64)> = [2000, 8000]
        .into_iter()
        .map(|games| {
            let pgn = dir.path().join(format!("{games}.pgn"));
            let file_kib = write_commented_games(&pgn, games) / 1024;
            let db = dir.path().join(format!("db{games}"));
            let peak_kib = import_peak_kib(&pgn, &db);
            let info = ok(&[os("info"), db.as_os_str()]);
            assert!(info.contains(&games.to_string()), "{info}");
            (file_kib, peak_kib)
        })
        .collect();
    let [(small_kib, small_peak), (big_kib, big_peak)] = peaks[..] else {
        unreachable!()
    };
    assert!(
        big_peak < big_kib * 3 / 4,
        "gamefs import peaked at {big_peak} KiB for a {big_kib} KiB file"
    );
    assert!(
        big_peak.saturating_sub(small_peak) < (big_kib - small_kib) / 4,
        "gamefs import peaked at {small_peak} KiB for a {small_kib} KiB file, \
         {big_peak} KiB for a {big_kib} KiB one"
    );
}

/// The peak resident size of `gamefs import --create DB PGN`, in KiB, as the child's status
/// tells it while it runs (its rusage would count this test process too: a spawned child's
/// peak starts at its parent's size).
fn import_peak_kib(pgn: &Path, db: &Path) -> u64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args([os("import"), os("--create"), os("--quiet"), db.as_os_str()])
        .arg(pgn)
        .spawn()
        .unwrap();
    let mut peak_kib = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if let Some(kib) = proc_status(child.id(), "VmHWM") {
            peak_kib = peak_kib.max(kib.trim_end_matches("kB").trim().parse().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    assert!(status.success());
    assert!(peak_kib > 0, "the import was seen running");
    peak_kib
}

/// The value of `field` in `/proc/PID/status` (trimmed), while the process is there.
fn proc_status(pid: impl std::fmt::Display, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| {
        let value = l.strip_prefix(field)?.strip_prefix(':')?;
        Some(value.trim().to_owned())
    })
}

/// How many games SCID's `scidpgn` prints from `db` (Debian's scid, in /usr/games).
fn scid_games(db: &Path) -> usize {
    let path = format!("{}:/usr/games", std::env::var("PATH").unwrap_or_default());
    let out = Command::new("scidpgn")
        .arg(db)
        .env("PATH", path)
        .output()
        .expect("scidpgn runs (Debian package scid; contrib/dev/setup test installs it)");
    String::from_utf8_lossy(&out.stdout)
        .matches("[Event ")
        .count()
}

/// A PGN file cut short while `gamefs import` reads it through its map ends the import with
/// SIGBUS (or, on a fast machine, the import ends first): either way the database is one its
/// own check and SCID accept, with the games it had, or with every game of the file.
#[test]
fn a_file_cut_short_during_its_import_leaves_the_database_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = demo_database(dir.path());
    let before = ok(&[os("info"), db.as_os_str()]);
    let pgn = dir.path().join("big.pgn");
    write_commented_games(&pgn, 4000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args([os("import"), os("--quiet"), db.as_os_str()])
        .arg(&pgn)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&pgn)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let status = child.wait().unwrap();
    let after = ok(&[os("info"), db.as_os_str()]);
    let games = |info: &str| {
        info.lines()
            .find(|l| l.starts_with("games:"))
            .unwrap()
            .to_owned()
    };
    if std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGBUS) {
        assert_eq!(
            games(&after),
            games(&before),
            "nothing of the cut file is counted"
        );
    } else {
        assert!(status.success(), "{status}");
        assert!(games(&after).contains("4030"), "{after}");
    }
    ok(&[os("check"), db.as_os_str()]);
    let listed = scid_games(&db);
    assert!(listed == 30 || listed == 4030, "SCID lists {listed} games");
    // The next import finds the database as SCID does and adds to it.
    ok(&[os("import"), db.as_os_str(), demo_pgn().as_os_str()]);
    let listed = scid_games(&db);
    assert!(listed == 60 || listed == 4060, "SCID lists {listed} games");
}

#[test]
fn compressed_pgn_files_import_as_their_text_does() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = demo_pgn();
    let plain = dir.path().join("plain");
    ok(&[
        os("import"),
        os("--create"),
        plain.as_os_str(),
        pgn.as_os_str(),
    ]);
    let expected = ok(&[os("export"), plain.as_os_str()]);
    assert!(expected.matches("[Event ").count() > 20);
    for (tool, ext) in [
        ("pzstd -q -c", "zst"),
        ("gzip -c", "gz"),
        ("bzip2 -c", "bz2"),
    ] {
        let packed = dir.path().join(format!("demo.pgn.{ext}"));
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "{tool} < '{}' > '{}'",
                pgn.display(),
                packed.display()
            ))
            .status()
            .unwrap();
        assert!(status.success(), "{tool}");
        let db = dir.path().join(ext);
        ok(&[
            os("import"),
            os("--create"),
            db.as_os_str(),
            packed.as_os_str(),
        ]);
        assert_eq!(ok(&[os("export"), db.as_os_str()]), expected, "{ext}");
    }
}

/// gamefs runs without transparent huge pages (src/main.rs `no_transparent_huge_pages`): an
/// import waiting for its standard input shows it in its `/proc` status.
#[test]
fn gamefs_runs_without_transparent_huge_pages() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    ok(&[os("create"), db.as_os_str()]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args([os("import"), db.as_os_str(), os("/dev/stdin")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Started, it waits for its input: read its status until main has run (or 20 s passed).
    let mut seen = None;
    for _ in 0..200 {
        seen = proc_status(child.id(), "THP_enabled");
        if seen.as_deref() == Some("0") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    drop(child.stdin.take());
    child.wait().unwrap();
    if proc_status("self", "THP_enabled").as_deref() != Some("1") {
        // A kernel built without them (or a test run with them off): nothing to tell apart.
        eprintln!("skipped: this test process has no transparent huge pages either");
        return;
    }
    assert_eq!(seen.as_deref(), Some("0"), "gamefs: THP_enabled");
}
