//! Helpers shared by the tests against real SCID: paths, scratch folders under `target/`,
//! running commands that must succeed (with a time limit), building databases with SCID, and
//! readable byte diffs.
#![allow(dead_code)] // each test file uses its own subset

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder under `target/oracle-tests/`, named after `name`.
pub(crate) fn work_dir(name: &str) -> tempfile::TempDir {
    let base = repo().join("target").join("oracle-tests");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix(&format!("{name}-"))
        .tempdir_in(base)
        .unwrap()
}

/// A program of the repository (`contrib/tools/…`, `tests/oracle/…`).
pub(crate) fn tool(rel: &str) -> Command {
    Command::new(repo().join(rel))
}

/// Run `cmd`, which must succeed within five minutes (it is killed otherwise); its output.
pub(crate) fn run(cmd: &mut Command) -> Output {
    let out = output(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run `cmd` to its end within five minutes (it is killed otherwise), however it ends; its
/// output.
pub(crate) fn output(cmd: &mut Command) -> Output {
    let limit = Duration::from_secs(300);
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: killing the child we started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("{cmd:?} did not finish within {limit:?}");
        }
    }
}

/// The edge-case PGN files of tests/data, sorted.
pub(crate) fn data_pgns() -> Vec<PathBuf> {
    let mut pgns: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    pgns.sort();
    pgns
}

/// Build the database `dir/name` from `pgns` with Debian's SCID; its base path.
pub(crate) fn scid_import(dir: &Path, name: &str, pgns: &[PathBuf]) -> PathBuf {
    let base = dir.join(name);
    run(tool("contrib/tools/scid-import.sh").args(pgns).arg(&base));
    base
}

/// The first region where `ours` and `scid` differ, as hex lines with offsets.
pub(crate) fn hex_diff(ours: &[u8], scid: &[u8]) -> String {
    let Some(first) = (0..ours.len().max(scid.len())).find(|&i| ours.get(i) != scid.get(i)) else {
        return "equal".into();
    };
    let from = first.saturating_sub(16) & !15;
    let to = (first + 48).min(ours.len().max(scid.len()));
    let hex = |b: &[u8], at: usize| {
        (at..(at + 16).min(to))
            .map(|i| b.get(i).map_or("--".into(), |x| format!("{x:02x}")))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = format!(
        "gamefs {} bytes, SCID {} bytes; first difference at byte {first}\n",
        ours.len(),
        scid.len()
    );
    for at in (from..to).step_by(16) {
        let _ = writeln!(s, "  {at:08x} gamefs {}", hex(ours, at));
        let _ = writeln!(s, "  {at:08x} SCID   {}", hex(scid, at));
    }
    s
}

/// The same PGN files imported by SCID and by gamefs into two new databases (`scid`, `gamefs`
/// in a folder), with what `gamefs import` said.
pub(crate) struct ImportedBoth {
    /// SCID's database.
    pub scid: PathBuf,
    /// gamefs's database.
    pub ours: PathBuf,
    /// `gamefs import`'s exit status (-1: killed).
    pub status: i32,
    /// `gamefs import`'s standard error.
    pub stderr: String,
    /// gamefs's report of the games it left out or changed (empty when none).
    pub report: String,
    /// The text gamefs kept for the user to mend (`--rejects`): the games it left out or kept
    /// cut short (empty when none).
    pub rejects: String,
}

/// Import `pgns` with SCID (`scid-import.sh`) and with `gamefs import --create` into new
/// databases in `dir`.
pub(crate) fn import_both(dir: &Path, pgns: &[PathBuf]) -> ImportedBoth {
    let scid = scid_import(dir, "scid", pgns);
    let ours = dir.join("gamefs");
    let report = dir.join("report.txt");
    let rejects = dir.join("rejects.pgn");
    let out = output(
        Command::new(env!("CARGO_BIN_EXE_gamefs"))
            .args(["import", "--create"])
            .arg(&ours)
            .args(pgns)
            .arg("--report")
            .arg(&report)
            .arg("--rejects")
            .arg(&rejects),
    );
    ImportedBoth {
        scid,
        ours,
        status: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        report: std::fs::read_to_string(&report).unwrap_or_default(),
        rejects: String::from_utf8_lossy(&std::fs::read(&rejects).unwrap_or_default()).into_owned(),
    }
}

/// The first of the three SCID 4 files that differs between the databases `scid` and `ours`,
/// with a hex diff; `None` when they are byte-identical.
pub(crate) fn scid_files_differ(scid: &Path, ours: &Path) -> Option<String> {
    ["si4", "sn4", "sg4"].iter().find_map(|ext| {
        let a = std::fs::read(scid.with_extension(ext)).unwrap();
        let b = std::fs::read(ours.with_extension(ext)).unwrap();
        (a != b).then(|| format!(".{ext} differs:\n{}", hex_diff(&b, &a)))
    })
}

/// The real-world corpus (tests/data/realworld.md), unpacked once under target/ (by whichever
/// test binary comes first: it is unpacked aside and moved into place whole).
pub(crate) fn realworld_corpus() -> PathBuf {
    let dir = repo().join("target/oracle-tests/realworld");
    if !dir.join("realworld/tcec").is_dir() {
        std::fs::create_dir_all(&dir).unwrap();
        let unpacking = tempfile::tempdir_in(&dir).unwrap();
        run(Command::new("tar")
            .arg("-xJf")
            .arg(repo().join("tests/data/realworld.tar.xz"))
            .arg("-C")
            .arg(unpacking.path()));
        // Another test binary may have moved its copy in meanwhile: either will do.
        let _ = std::fs::rename(unpacking.path().join("realworld"), dir.join("realworld"));
    }
    dir.join("realworld")
}

/// Every PGN file under `dir`, sorted.
pub(crate) fn pgn_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "pgn") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The inode of `path` (relative to the root) in the tree `vfs`, each component looked up.
pub(crate) fn vfs_at(vfs: &gamefs::vfs::Vfs, path: &str) -> u64 {
    let mut ino = gamefs::vfs::Node::Root.ino();
    for part in path.split('/') {
        ino = vfs
            .lookup(ino, std::ffi::OsStr::new(part))
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .ino;
    }
    ino
}

/// The game numbers (1-based, as SCID numbers them) of the games folder `path` of `vfs`
/// lists (the numbers their names start with).
pub(crate) fn vfs_game_numbers(vfs: &gamefs::vfs::Vfs, path: &str) -> Vec<u32> {
    let mut out = Vec::new();
    vfs.readdir(vfs_at(vfs, path), 0, &mut |e| {
        let name = e.name.to_string_lossy();
        let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            out.push(digits.parse().unwrap());
        }
        false
    })
    .unwrap();
    out
}
