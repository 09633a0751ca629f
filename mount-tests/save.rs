//! Saving through the mount with ordinary tools: every change ends up as records that Debian's
//! SCID reads back, and bad text is refused without touching the database.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, listing, repo, run_with_timeout, scratch, sh};
use crate::sys::renameat2;

/// A writable private copy of the test database, mounted.
struct Writable {
    db: PathBuf,
    mount: Mount,
    _dir: tempfile::TempDir,
}

fn writable(name: &str) -> Writable {
    let dir = scratch(name);
    let db = copy_db(edge_db(), dir.path(), "db");
    let mount = Mount::new(&db, dir.path(), &[]);
    Writable {
        db,
        mount,
        _dir: dir,
    }
}

impl Writable {
    fn games(&self) -> Vec<PathBuf> {
        listing(&self.mount.join("games"))
    }

    fn game(&self, number: usize) -> PathBuf {
        self.mount.game(number)
    }

    fn db_bytes(&self) -> Vec<Vec<u8>> {
        ["si4", "sn4", "sg4"]
            .iter()
            .map(|e| std::fs::read(self.db.with_extension(e)).unwrap())
            .collect()
    }

    /// What Debian's SCID exports of the database now.
    fn scid_export(&self) -> String {
        scid_export(&self.db)
    }
}

/// Debian SCID's export of every game of `db` (fails if SCID cannot open it).
pub(crate) fn scid_export(db: &Path) -> String {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("scid.pgn");
    let result = run_with_timeout(
        Command::new(repo().join("contrib/tools/scid-export.sh"))
            .arg(db)
            .arg(&out),
        Duration::from_secs(120),
    );
    assert!(
        result.status.success(),
        "SCID could not export {}: {}",
        db.display(),
        String::from_utf8_lossy(&result.stderr)
    );
    std::fs::read_to_string(out).unwrap()
}

fn count_games(pgn: &str) -> usize {
    pgn.lines().filter(|l| l.starts_with("[Event ")).count()
}

const NEW_GAMES: &str = "[Event \"gamefs save test\"]\n[Site \"Here\"]\n[Date \"2026.11.22\"]\n[Round \"1\"]\n\
[White \"Newplayer, Anna\"]\n[Black \"Other, Bob\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
[Event \"gamefs save test\"]\n[Site \"Here\"]\n[Date \"2026.11.22\"]\n[Round \"2\"]\n\
[White \"Other, Bob\"]\n[Black \"Newplayer, Anna\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";

#[test]
fn rewriting_a_game_in_place_saves_it_for_scid() {
    let w = writable("inplace");
    let before = w.scid_export();
    let game = w.game(3);
    let text = std::fs::read_to_string(&game).unwrap();
    let edited = text.replacen("[Site \"", "[Site \"Edited ", 1);
    std::fs::write(&game, &edited).unwrap();
    let after = w.scid_export();
    assert_eq!(count_games(&after), count_games(&before));
    assert!(after.contains("[Site \"Edited "), "SCID shows the edit");
    // The kernel shows the new text at once.
    let now = std::fs::read_to_string(w.game(3)).unwrap();
    assert!(now.contains("[Site \"Edited "));
    let stats = std::fs::read_to_string(w.mount.join(".gamefs/stats")).unwrap();
    assert!(
        stats.contains("saves: 1\n") && stats.contains("writable: yes\n"),
        "{stats}"
    );
    assert!(
        !sh(&w.mount.path, "ls").contains(".gamefs"),
        "hidden from ls without -a"
    );
}

#[test]
fn saving_unchanged_text_appends_nothing() {
    let w = writable("noop");
    let game = w.game(5);
    let text = std::fs::read(&game).unwrap();
    let before = w.db_bytes();
    std::fs::write(&game, &text).unwrap();
    sh(&w.mount.path, &format!("echo >> '{}'", game.display()));
    assert!(
        before == w.db_bytes(),
        "the database files are byte-identical"
    );
}

#[test]
fn changing_a_player_renames_the_file_and_moves_it_between_views() {
    let w = writable("rename-player");
    let game = w.game(2);
    let text = std::fs::read_to_string(&game).unwrap();
    let white = text
        .lines()
        .find(|l| l.starts_with("[White "))
        .unwrap()
        .to_owned();
    std::fs::write(
        &game,
        text.replacen(&white, "[White \"Zukertort, Johannes\"]", 1),
    )
    .unwrap();
    let renamed = w.game(2);
    assert!(
        renamed
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .contains("Zukertort, Johannes"),
        "{renamed:?}"
    );
    let player = w.mount.join("players/Zukertort, Johannes");
    let links = sh(&player, "ls");
    assert!(
        links.contains(renamed.file_name().unwrap().to_str().unwrap()),
        "{links}"
    );
    assert!(w.scid_export().contains("[White \"Zukertort, Johannes\"]"));
}

#[test]
fn sed_and_perl_in_place_edits_save() {
    let w = writable("sed");
    let game = w.game(4);
    sh(
        &w.mount.path,
        &format!(
            "sed -i 's/\\[Round \"[^\"]*\"\\]/[Round \"77\"]/' '{}'",
            game.display()
        ),
    );
    assert!(w.scid_export().contains("[Round \"77\"]"));
    let game = w.game(4);
    sh(
        &w.mount.path,
        &format!(
            "perl -pi -e 's/\\[Round \"77\"\\]/[Round \"78\"]/' '{}'",
            game.display()
        ),
    );
    assert!(w.scid_export().contains("[Round \"78\"]"));
    let leftovers = sh(&w.mount.join("games"), "ls -A | grep -v '\\.pgn$' || true");
    assert_eq!(leftovers, "", "no temp files left behind");
}

/// `cmd > game` saves: the shell opens the file (truncating it), moves the descriptor to the
/// command's stdout and closes the first one before the command writes a byte. That close is
/// not the save; the command's own close is.
#[test]
fn shell_redirects_save() {
    let w = writable("redirect");
    let game = w.game(6);
    let text = std::fs::read_to_string(&game).unwrap();
    let edited = w._dir.path().join("edited.pgn");
    std::fs::write(&edited, text.replacen("[Round \"", "[Round \"6", 1)).unwrap();
    sh(
        &w.mount.path,
        &format!("cat '{}' > '{}'", edited.display(), game.display()),
    );
    let game = w.game(6);
    let shown = std::fs::read_to_string(&game).unwrap();
    assert!(shown.contains("[Round \"6"), "{shown}");
    // A shell builtin writing through the redirect, and the text piped through a filter.
    sh(
        &w.mount.path,
        &format!(
            "t=$(cat '{g}'); printf '%s\\n' \"$t\" | sed 's/\\[Round \"6/[Round \"7/' > '{g}'",
            g = game.display()
        ),
    );
    let game = w.game(6);
    sh(
        &w.mount.path,
        &format!(
            "t=$(cat '{g}'); echo \"${{t/\\[Round \\\"7/[Round \\\"8}}\" > '{g}'",
            g = game.display()
        ),
    );
    let export = w.scid_export();
    assert!(export.contains("[Round \"8"), "SCID shows the last save");
    let errors = std::fs::read_to_string(w.mount.join(".gamefs/errors")).unwrap();
    assert_eq!(errors.trim(), "", "no save was refused");
}

/// The tools scripts save with: each writes an edited game its own way (in place with or
/// without O_TRUNC, through a temporary file renamed over the game, block by block), and SCID
/// reads every edit back.
#[test]
fn command_line_tools_save() {
    let w = writable("tools");
    let tools = [
        "tee '{game}' < '{edited}' > /dev/null",
        "dd if='{edited}' of='{game}' status=none",
        "install -m644 '{edited}' '{game}'",
        "cp --backup=numbered '{edited}' '{game}'",
        "rsync '{edited}' '{game}'",
        "rsync --inplace '{edited}' '{game}'",
        "exec 3> '{game}'; cat '{edited}' >&3",
    ];
    for (i, tool) in tools.iter().enumerate() {
        let number = i + 1;
        let text = std::fs::read_to_string(w.game(number)).unwrap();
        let round = format!("[Round \"{}0{number}\"]", "9".repeat(number));
        let start = text.find("[Round \"").unwrap();
        let end = start + text[start..].find('\n').unwrap();
        let edited = w._dir.path().join(format!("edited{number}.pgn"));
        std::fs::write(
            &edited,
            format!("{}{round}{}", &text[..start], &text[end..]),
        )
        .unwrap();
        let script = tool
            .replace("{game}", &w.game(number).display().to_string())
            .replace("{edited}", &edited.display().to_string());
        sh(&w.mount.path, &script);
        let shown = std::fs::read_to_string(w.game(number)).unwrap();
        assert!(shown.contains(&round), "`{tool}` saved: {shown}");
    }
    let export = w.scid_export();
    for number in 1..=tools.len() {
        let round = format!("[Round \"{}0{number}\"]", "9".repeat(number));
        assert!(export.contains(&round), "SCID shows {round}");
    }
    let errors = std::fs::read_to_string(w.mount.join(".gamefs/errors")).unwrap();
    assert_eq!(errors.trim(), "", "no save was refused");
}

#[test]
fn copying_a_pgn_file_in_imports_its_games() {
    let w = writable("import");
    let before = count_games(&w.scid_export());
    let files_before = w.games().len();
    let src = w._dir.path().join("new.pgn");
    std::fs::write(&src, NEW_GAMES).unwrap();
    sh(&w.mount.path, &format!("cp '{}' games/", src.display()));
    assert!(
        !w.mount.join("games/new.pgn").exists(),
        "the created name does not linger"
    );
    assert_eq!(w.games().len(), files_before + 2);
    let export = w.scid_export();
    assert_eq!(count_games(&export), before + 2);
    assert!(export.contains("[White \"Newplayer, Anna\"]"));
    assert!(w.mount.join("players/Newplayer, Anna").is_dir());
    let last = w.games().pop().unwrap();
    assert!(
        last.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .contains("Other, Bob - Newplayer, Anna"),
        "{last:?}"
    );
}

#[test]
fn rm_marks_deleted_and_moving_back_restores() {
    let w = writable("rm");
    let game = w.game(6);
    let name = game.file_name().unwrap().to_owned();
    let si4_before = std::fs::read(w.db.with_extension("si4")).unwrap();
    std::fs::remove_file(&game).unwrap();
    assert!(!w.mount.join("games").join(&name).exists());
    assert!(w.mount.join(".deleted").join(&name).exists());
    let si4 = std::fs::read(w.db.with_extension("si4")).unwrap();
    assert_eq!(si4[182 + 47 * 5 + 8] & 0x08, 0x08, "SCID's D flag is set");
    assert_eq!(si4.len(), si4_before.len());
    std::fs::rename(
        w.mount.join(".deleted").join(&name),
        w.mount.join("games").join(&name),
    )
    .unwrap();
    assert!(w.mount.join("games").join(&name).exists());
    assert!(
        std::fs::read(w.db.with_extension("si4")).unwrap() == si4_before,
        "restored exactly"
    );
}

#[test]
fn bad_text_is_refused_and_kept() {
    let w = writable("bad");
    let game = w.game(7);
    let name = game.file_name().unwrap().to_str().unwrap().to_owned();
    let before = w.db_bytes();
    let text = std::fs::read_to_string(&game).unwrap();
    let bad = text.replacen("\n\n", "\n\n1. Ke5 ", 1);
    // Python reports the error of close(2), where the save happens.
    let src = w._dir.path().join("bad.pgn");
    std::fs::write(&src, &bad).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg("import sys; f = open(sys.argv[1], 'w'); f.write(open(sys.argv[2]).read()); f.close()")
        .arg(&game)
        .arg(&src)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Invalid argument"), "{stderr}");
    // fsync reports it too, as editors see it.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&game)
        .unwrap();
    std::io::Write::write_all(&mut f, bad.as_bytes()).unwrap();
    let err = f.sync_all().unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EINVAL), "{err}");
    drop(f);
    assert!(before == w.db_bytes(), "the database is untouched");
    let errors = std::fs::read_to_string(w.mount.join(".gamefs/errors")).unwrap();
    assert!(
        errors.contains(&name) && errors.contains("line"),
        "{errors}"
    );
    let kept = std::fs::read_to_string(w.mount.join(".gamefs/rejected").join(&name)).unwrap();
    assert_eq!(kept, bad);
    assert_eq!(
        std::fs::read_to_string(w.game(7)).unwrap(),
        text,
        "the game is as it was"
    );
    // cp reports the failure too, for a text nothing of which can be stored (a game cut at an
    // illegal move is kept up to it, and a NAG before the first move dropped, as SCID's import
    // does: README "Importing"; a null move in check is left out).
    let src = w._dir.path().join("broken.pgn");
    std::fs::write(&src, "[Event \"x\"]\n\n1. e4 f5 2. Qh5+ -- 3. Qxe8# *\n").unwrap();
    let out = Command::new("cp")
        .arg(&src)
        .arg(w.mount.join("games/broken.pgn"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "cp exits non-zero");
    assert!(before == w.db_bytes());
}

#[test]
fn truncating_a_game_is_refused() {
    let w = writable("truncate");
    let game = w.game(8);
    let before = w.db_bytes();
    let out = Command::new("truncate")
        .args(["-s", "0"])
        .arg(&game)
        .output()
        .unwrap();
    assert!(!out.status.success(), "an empty game cannot be stored");
    assert!(before == w.db_bytes());
}

#[test]
fn scratch_files_behave_like_files() {
    let w = writable("scratch");
    let games = w.mount.join("games");
    let swap = games.join(".notes.swp");
    std::fs::write(&swap, b"scratch data").unwrap();
    assert_eq!(std::fs::read(&swap).unwrap(), b"scratch data");
    let err = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&swap)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EEXIST));
    std::os::unix::fs::symlink("host:123", games.join(".#lock")).unwrap();
    assert_eq!(
        std::fs::read_link(games.join(".#lock")).unwrap(),
        Path::new("host:123")
    );
    std::fs::rename(&swap, games.join("notes~")).unwrap();
    assert!(!swap.exists());
    std::fs::remove_file(games.join("notes~")).unwrap();
    std::fs::remove_file(games.join(".#lock")).unwrap();
    assert!(w.db_bytes() == w.db_bytes());
    let before = w.db_bytes();
    std::fs::write(games.join("4913"), b"").unwrap();
    std::fs::remove_file(games.join("4913")).unwrap();
    assert!(
        before == w.db_bytes(),
        "scratch files never reach the database"
    );
}

#[test]
fn a_second_writable_mount_is_refused() {
    let w = writable("lock");
    let other = w._dir.path().join("mnt2");
    std::fs::create_dir(&other).unwrap();
    let out = run_with_timeout(
        Command::new(crate::harness::gamefs())
            .args(["mount", "-o", "rw"])
            .arg(&w.db)
            .arg(&other),
        Duration::from_secs(30),
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already open for writing"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn concurrent_writers_and_readers_lose_nothing() {
    let w = writable("concurrent");
    let targets: Vec<PathBuf> = (1..=6).map(|n| w.game(n)).collect();
    let all = w.games();
    std::thread::scope(|s| {
        for (i, game) in targets.iter().enumerate() {
            s.spawn(move || {
                for round in 0..3 {
                    let text = std::fs::read_to_string(game.parent().unwrap().join(format!("{:04}.pgn", i + 1))).unwrap();
                    let site = text.lines().find(|l| l.starts_with("[Site ")).unwrap().to_owned();
                    let edited = text.replacen(&site, &format!("[Site \"Writer {i} round {round}\"]"), 1);
                    let out = Command::new("python3")
                        .arg("-c")
                        .arg("import os,sys; f=open(sys.argv[1],'w'); f.write(sys.argv[2]); f.flush(); os.fsync(f.fileno()); f.close()")
                        .arg(game.parent().unwrap().join(format!("{:04}.pgn", i + 1)))
                        .arg(&edited)
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                }
            });
        }
        for t in 0..3 {
            let all = &all;
            s.spawn(move || {
                for f in all.iter().skip(10 + t) {
                    let text = std::fs::read_to_string(f).unwrap();
                    assert!(
                        text.starts_with("[Event ")
                            && text.trim_end().ends_with(['0', '1', '2', '*']),
                        "{f:?}: {text}"
                    );
                }
            });
        }
    });
    let export = w.scid_export();
    for i in 0..6 {
        assert!(
            export.contains(&format!("[Site \"Writer {i} round 2\"]")),
            "writer {i}'s last save is in the database"
        );
    }
    assert_eq!(count_games(&export), all.len());
}

#[test]
fn mv_saves_and_rename_flags_behave() {
    let w = writable("mv");
    let games = w.mount.join("games");
    // mv tmp game: the rename is the save.
    let game = w.game(2);
    let text = std::fs::read_to_string(&game).unwrap();
    let tmp = games.join("edit.tmp");
    std::fs::write(&tmp, text.replacen("[Round \"", "[Round \"9", 1)).unwrap();
    sh(
        &w.mount.path,
        &format!("mv -f '{}' '{}'", tmp.display(), game.display()),
    );
    assert!(!tmp.exists());
    assert!(
        std::fs::read_to_string(w.game(2))
            .unwrap()
            .contains("[Round \"9")
    );
    // mv from outside the mount (a copy, then unlink of the source) saves too.
    let outside = w._dir.path().join("outside.pgn");
    std::fs::write(&outside, text.replacen("[Round \"", "[Round \"8", 1)).unwrap();
    sh(
        &w.mount.path,
        &format!("mv '{}' '{}'", outside.display(), w.game(2).display()),
    );
    assert!(
        std::fs::read_to_string(w.game(2))
            .unwrap()
            .contains("[Round \"8")
    );
    assert!(w.scid_export().contains("[Round \"8"));
    // RENAME_NOREPLACE onto an existing name fails with EEXIST and changes nothing.
    let a = games.join("a.txt");
    let b = games.join("b.txt");
    std::fs::write(&a, "A").unwrap();
    std::fs::write(&b, "B").unwrap();
    let err = renameat2(&a, &w.game(3), libc::RENAME_NOREPLACE).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EEXIST));
    let err = renameat2(&a, &b, libc::RENAME_NOREPLACE).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EEXIST));
    renameat2(&a, &games.join("c.txt"), libc::RENAME_NOREPLACE).unwrap();
    // RENAME_EXCHANGE swaps two scratch files.
    renameat2(&games.join("c.txt"), &b, libc::RENAME_EXCHANGE).unwrap();
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "A");
    assert_eq!(std::fs::read_to_string(games.join("c.txt")).unwrap(), "B");
    // Hard links, folders and chown are refused with clear errors.
    let err = std::fs::hard_link(w.game(4), games.join("link.pgn")).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EPERM));
    let err = std::fs::create_dir(games.join("sub")).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EPERM));
    let err = std::os::unix::fs::chown(w.game(4), Some(1), None).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
}
