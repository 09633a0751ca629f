//! Saves on a full disk (issue #7), for SCID, the Simple Chess Database and a 9x9 Go database:
//! the database lives on a size-limited tmpfs that is filled up; a save then fails with ENOSPC
//! at close and at fsync (never silently), `.gamefs/errors` says so, the text is kept in
//! `.gamefs/rejected/`, and the database files are byte-identical, so SCID and gamefs read
//! exactly the old games. Once space is freed the same save succeeds. A big `cp` import that
//! runs out of space midway is absent as a whole.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::fixtures::{copy_db, edge_db};
use crate::go9::example_db;
use crate::harness::{
    Mount, eventually, force_unmount, gamefs, gamefs_ok, listing, run_with_timeout, scratch,
};
use crate::save::scid_export;
use crate::simplecdb::{export, golden_copy};
use crate::sys::save;

/// A size-limited tmpfs mounted for one test (detached on drop) that can be filled up.
struct Tmpfs {
    path: PathBuf,
}

impl Tmpfs {
    fn new(dir: &Path, size: &str) -> Tmpfs {
        let path = dir.join("disk");
        std::fs::create_dir_all(&path).unwrap();
        let c = |s: &str| std::ffi::CString::new(s).unwrap();
        let target = c(path.to_str().unwrap());
        let options = c(&format!("size={size},mode=0755"));
        // SAFETY: valid NUL-terminated strings; mounting a fresh tmpfs on our own folder.
        let r = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                options.as_ptr().cast(),
            )
        };
        assert_eq!(
            r,
            0,
            "cannot mount a tmpfs (the disk-full tests run as root): {}",
            std::io::Error::last_os_error()
        );
        Tmpfs { path }
    }

    fn filler(&self) -> PathBuf {
        self.path.join("filler")
    }

    /// Fill the disk up to its last byte, then give back `room` bytes.
    fn fill(&self, room: u64) {
        let mut f = std::fs::File::create(self.filler()).unwrap();
        let chunk = vec![0xAAu8; 64 << 10];
        let mut size = 0u64;
        for len in [chunk.len(), 4096, 512, 1] {
            loop {
                match f.write(&chunk[..len]) {
                    Ok(0) => break,
                    Ok(n) => size += n as u64,
                    Err(e) => {
                        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
                        break;
                    }
                }
            }
        }
        f.set_len(size.saturating_sub(room)).unwrap();
    }

    /// Give all the space back.
    fn free(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }

    /// Names on the disk other than the filler (no temp files may be left behind).
    fn leftovers(&self, db_files: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = walk(&self.path)
            .into_iter()
            .map(|p| {
                p.strip_prefix(&self.path)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| n != "filler" && !db_files.iter().any(|f| n.ends_with(f)))
            .collect();
        names.sort();
        names
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        force_unmount(&self.path);
    }
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    listing(dir)
        .into_iter()
        .flat_map(|p| if p.is_dir() { walk(&p) } else { vec![p] })
        .collect()
}

/// The bytes of every file of the database (a folder when `exts` is empty, else a base path
/// with these extensions).
fn bytes(db: &Path, exts: &[&str]) -> Vec<Vec<u8>> {
    if exts.is_empty() {
        return walk(db).iter().map(|p| std::fs::read(p).unwrap()).collect();
    }
    exts.iter()
        .map(|e| std::fs::read(db.with_extension(e)).unwrap())
        .collect()
}

/// `text` (one game) with its moves replaced by a long legal game (knights out and back,
/// `plies` half-moves): a record far bigger than the slack of a file's last page.
fn with_long_game(text: &str, plies: usize) -> String {
    let tags = &text[..text.find("\n\n").unwrap()];
    let tags: String = tags
        .lines()
        .filter(|l| !l.starts_with("[SetUp ") && !l.starts_with("[FEN "))
        .map(|l| {
            if l.starts_with("[Result ") {
                "[Result \"*\"]".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut moves = String::new();
    for i in 0..plies {
        if i % 2 == 0 {
            moves.push_str(&format!("{}. ", i / 2 + 1));
        }
        moves.push_str(cycle[i % 4]);
        moves.push(if i % 16 == 15 { '\n' } else { ' ' });
    }
    format!("{tags}\n\n{moves}*\n")
}

/// A PGN text of `n` short games with distinct players: a bulk import.
fn many_games(n: usize, tag: &str) -> String {
    (0..n)
        .map(|i| {
            format!(
                "[Event \"{tag}\"]\n[Site \"Disk\"]\n[Date \"2026.01.01\"]\n[Round \"{}\"]\n\
                 [White \"{tag} White {i}\"]\n[Black \"{tag} Black {i}\"]\n[Result \"1-0\"]\n\n\
                 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n",
                i + 1
            )
        })
        .collect()
}

fn errors(m: &Mount) -> String {
    std::fs::read_to_string(m.join(".gamefs/errors")).unwrap()
}

/// Refused with ENOSPC, at close and (with `fsync`) at fsync.
fn assert_enospc(result: std::io::Result<()>, what: &str) {
    let err = result.expect_err(what);
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{what}: {err}");
}

/// `cp` of `text` (written to a file outside) into `dest`; returns cp's status and stderr.
fn cp(dir: &Path, text: &str, dest: &Path) -> (bool, String) {
    let src = dir.join("import.pgn");
    std::fs::write(&src, text).unwrap();
    let out = run_with_timeout(
        Command::new("cp").arg(&src).arg(dest),
        Duration::from_secs(60),
    );
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// With `room` bytes left on `disk`, `cp` of 2000 games into the mount runs out of space
/// midway and says so.
fn bulk_import_runs_out(dir: &Path, m: &Mount, disk: &Tmpfs, room: u64) {
    disk.free();
    disk.fill(room);
    let (ok, stderr) = cp(dir, &many_games(2000, "Bulk"), &m.join("games"));
    assert!(
        !ok && stderr.contains("No space left on device"),
        "{stderr}"
    );
}

fn gamefs_check(db: &Path) {
    let out = run_with_timeout(
        Command::new(gamefs()).args(["check", "-q"]).arg(db),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "gamefs check: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

const SCID: [&str; 3] = ["si4", "sn4", "sg4"];
const SCDB: [&str; 5] = ["dci", "dcn", "dcs", "dce", "dcg"];

#[test]
fn scid_saves_on_a_full_disk_fail_with_enospc_and_change_nothing() {
    let dir = scratch("full-scid");
    let disk = Tmpfs::new(dir.path(), "1m");
    let db = copy_db(edge_db(), &disk.path, "db");
    let scid_before = scid_export(&db);
    let m = Mount::new(&db, dir.path(), &[]);
    let game = m.game(3);
    let name = game.file_name().unwrap().to_owned();
    let text = std::fs::read_to_string(&game).unwrap();
    let new_site = text.replacen("[Site \"", "[Site \"Full Disk ", 1);
    let long = with_long_game(&new_site, 6000);
    let before = bytes(&db, &SCID);
    disk.fill(0);
    // A new name (the name file must be rewritten) and a record bigger than the slack of the
    // game file's last page (the append itself runs out), at close and at fsync.
    assert_enospc(save(&game, new_site.as_bytes(), false), "new name, close");
    assert_enospc(save(&game, long.as_bytes(), false), "long game, close");
    assert_enospc(save(&game, new_site.as_bytes(), true), "new name, fsync");
    assert!(
        before == bytes(&db, &SCID),
        "the database files are untouched"
    );
    assert_eq!(disk.leftovers(&SCID), Vec::<String>::new());
    let log = errors(&m);
    assert!(
        log.contains(name.to_str().unwrap()) && log.contains("No space left on device"),
        "{log}"
    );
    let kept = m.join(".gamefs/rejected").join(&name);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), new_site);
    eventually("the game reads as before", || {
        std::fs::read_to_string(&game).unwrap() == text
    });
    // A bulk import with room for a part of it: absent as a whole.
    bulk_import_runs_out(dir.path(), &m, &disk, 48 << 10);
    assert!(before == bytes(&db, &SCID), "nothing of the import is left");
    assert!(!m.join("players/Bulk White 0").exists());
    assert_eq!(
        scid_export(&db),
        scid_before,
        "SCID reads exactly the old games"
    );
    // With space again the very same saves succeed.
    disk.free();
    std::fs::copy(&kept, &game).unwrap();
    let (ok, stderr) = cp(dir.path(), &many_games(2000, "Bulk"), &m.join("games"));
    assert!(ok, "{stderr}");
    assert!(m.join("players/Bulk White 1999").is_dir());
    let scid_after = scid_export(&db);
    assert!(scid_after.contains("[Site \"Full Disk "));
    assert_eq!(scid_after.matches("[Event \"Bulk\"]").count(), 2000);
    drop(m);
    gamefs_check(&db);
}

#[test]
fn simplecdb_saves_on_a_full_disk_fail_with_enospc_and_change_nothing() {
    let dir = scratch("full-scdb");
    let disk = Tmpfs::new(dir.path(), "1m");
    let db = golden_copy(&disk.path);
    let export_before = export(&db);
    let m = Mount::new(&db, dir.path(), &[]);
    let game = m.game(3);
    let name = game.file_name().unwrap().to_owned();
    let text = std::fs::read_to_string(&game).unwrap();
    let long = with_long_game(&text, 6000);
    let before = bytes(&db, &SCDB);
    disk.fill(0);
    assert_enospc(save(&game, long.as_bytes(), false), "long game, close");
    assert_enospc(save(&game, long.as_bytes(), true), "long game, fsync");
    assert!(
        before == bytes(&db, &SCDB),
        "the database files are untouched"
    );
    assert!(
        errors(&m).contains("No space left on device"),
        "{}",
        errors(&m)
    );
    let kept = m.join(".gamefs/rejected").join(&name);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), long);
    bulk_import_runs_out(dir.path(), &m, &disk, 32 << 10);
    assert!(before == bytes(&db, &SCDB), "nothing of the import is left");
    assert_eq!(disk.leftovers(&SCDB), Vec::<String>::new());
    disk.free();
    std::fs::copy(&kept, &game).unwrap();
    let (ok, stderr) = cp(dir.path(), &many_games(300, "Bulk"), &m.join("games"));
    assert!(ok, "{stderr}");
    drop(m);
    let after = export(&db);
    assert_eq!(after.matches("[Event \"Bulk\"]").count(), 300);
    assert!(
        after.matches("Ng8").count() >= 1500,
        "the long game is stored"
    );
    assert_eq!(
        after.matches("[Event ").count(),
        export_before.matches("[Event ").count() + 300
    );
    gamefs_check(&db);
}

#[test]
fn go_saves_on_a_full_disk_fail_with_enospc_and_change_nothing() {
    let dir = scratch("full-go");
    let disk = Tmpfs::new(dir.path(), "256k");
    let db = example_db(&disk.path);
    let sgf = |db: &Path| gamefs_ok([Path::new("go9"), Path::new("sgf"), db]);
    let sgf_before = sgf(&db);
    let m = Mount::new(&db, dir.path(), &[]);
    let position = m.join("positions/31846ceb8015dc92-0-W.sgf");
    let text = std::fs::read_to_string(&position).unwrap();
    let edited = text.replacen("AB[", "AB[aa][", 1);
    assert_ne!(edited, text);
    let before = bytes(&db, &[]);
    disk.fill(0);
    // Replacing a position rewrites the position file (temp file, rename): no room for it.
    assert_enospc(save(&position, edited.as_bytes(), false), "edit, close");
    assert_enospc(save(&position, edited.as_bytes(), true), "edit, fsync");
    assert!(before == bytes(&db, &[]), "the position file is untouched");
    assert_eq!(disk.leftovers(&[".dat"]), Vec::<String>::new());
    assert!(
        errors(&m).contains("No space left on device"),
        "{}",
        errors(&m)
    );
    let kept = m.join(".gamefs/rejected/31846ceb8015dc92-0-W.sgf");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), edited);
    eventually("the position reads as before", || {
        std::fs::read_to_string(&position).unwrap() == text
    });
    disk.free();
    std::fs::copy(&kept, &position).unwrap();
    drop(m);
    let after = sgf(&db);
    assert_ne!(after, sgf_before);
    assert_eq!(after.matches("(;FF[4]").count(), 5, "still five positions");
    assert!(after.contains("AB[aa]"), "the edit is stored");
}

/// Everything `tree/` says of the position at `folder`: its table and its games.
fn tree_of(m: &Mount, folder: &str) -> (String, Vec<String>) {
    let at = m.join(folder);
    let games = listing(&at.join("games"))
        .iter()
        .map(|p| {
            std::fs::read_link(p)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    (std::fs::read_to_string(at.join("tree.txt")).unwrap(), games)
}

#[test]
fn a_position_index_whose_cache_disk_is_full_is_built_in_memory_and_answers_the_same() {
    let dir = scratch("full-positions");
    let pgn = crate::harness::repo().join("tests/data/najdorf/najdorf.pgn");
    let ready = |m: &Mount| {
        crate::harness::eventually_within("the position index", Duration::from_secs(60), || {
            std::fs::read_to_string(m.join(".gamefs/stats"))
                .is_ok_and(|s| s.contains("position_index: ready"))
        })
    };
    let folders = [
        "tree",
        "tree/e4",
        "tree/e4/c5/Nf3/d6/d4/cxd4/Nxd4/Nf6/Nc3/a6",
    ];
    let roomy = {
        let mdir = dir.path().join("roomy");
        let m = Mount::with_env(&pgn, &mdir, &[], &[("XDG_CACHE_HOME", &mdir)]);
        ready(&m);
        folders.map(|f| tree_of(&m, f))
    };
    assert!(roomy[2].1.len() > 200, "{} Najdorf games", roomy[2].1.len());
    // The cache on a disk with no room: the index's buckets cannot be written.
    let disk = Tmpfs::new(dir.path(), "1m");
    disk.fill(0);
    let log = dir.path().join("full.log");
    let log_opt = format!("log_file={},log_level=info", log.display());
    let mdir = dir.path().join("full");
    let m = Mount::with_env(
        &pgn,
        &mdir,
        &["-o", &log_opt],
        &[("XDG_CACHE_HOME", &disk.path)],
    );
    ready(&m);
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(said.contains("cannot write its buckets"), "{said}");
    assert!(folders.map(|f| tree_of(&m, f)) == roomy, "the trees differ");
    // Its progress counts each game once, though the games were replayed again.
    let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
    assert!(
        stats.contains("positions_games_indexed: 224/224"),
        "{stats}"
    );
}
