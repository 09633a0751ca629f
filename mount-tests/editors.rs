//! Real editors, driven through tmux the way people type, saving games in the mount
//! (a mountpoint outside /tmp, so vim and emacs make their backups by renaming).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, scratch};
use crate::save::scid_export;

/// tmux, talking to the server of `session` alone (its socket in the temporary folder): each
/// session has a server of its own, so that tests side by side (and runs of other checkouts)
/// neither type into each other's editors nor start a session on a server another test's last
/// session is closing ("server exited unexpectedly", as a shared server did in a CI run).
fn tmux(session: &str) -> Command {
    let mut command = Command::new("tmux");
    command.arg("-S").arg(socket(session));
    command
}

/// The socket of `session`'s tmux server.
fn socket(session: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("{session}.tmux"))
}

/// Run `command` in a detached tmux session and type `keys` (tmux send-keys arguments, one
/// call per inner slice, with a pause between); wait for the editor to exit.
pub(crate) fn drive(session: &str, dir: &Path, command: &str, keys: &[&[&str]]) {
    drive_with(session, dir, command, &|| {}, keys);
}

/// As [`drive`], running `meanwhile` once the editor has drawn its screen, before any key is
/// typed (another program at work while the file is open in the editor).
pub(crate) fn drive_with(
    session: &str,
    dir: &Path,
    command: &str,
    meanwhile: &dyn Fn(),
    keys: &[&[&str]],
) {
    let session = &format!("{session}-{}", std::process::id());
    // A session left by an interrupted earlier run would take the name.
    let _ = tmux(session).args(["kill-session", "-t", session]).output();
    let status = tmux(session)
        .args([
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "160",
            "-y",
            "48",
            "-c",
        ])
        .arg(dir)
        .arg(command)
        .env("TERM", "xterm-256color")
        .status()
        .expect("tmux runs");
    assert!(status.success(), "tmux could not start {command}");
    wait_for_a_still_screen(session, command);
    meanwhile();
    for k in keys {
        let ok = tmux(session)
            .args(["send-keys", "-t", session])
            .args(*k)
            .status()
            .unwrap();
        assert!(ok.success());
        std::thread::sleep(Duration::from_millis(300));
    }
    let start = Instant::now();
    while tmux(session)
        .args(["has-session", "-t", session])
        .output()
        .unwrap()
        .status
        .success()
    {
        if start.elapsed() > Duration::from_secs(30) {
            let screen = tmux(session)
                .args(["capture-pane", "-p", "-t", session])
                .output()
                .unwrap();
            let _ = tmux(session).args(["kill-session", "-t", session]).status();
            panic!(
                "{command} did not exit; screen:\n{}",
                String::from_utf8_lossy(&screen.stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // The server ended with the session; its socket stays behind.
    let _ = std::fs::remove_file(socket(session));
}

/// Wait until the editor in tmux `session` has drawn its screen and stopped changing it:
/// keys typed while a loaded machine is still starting the editor can be lost (emacs reads
/// its terminal only once it is up), which a fixed pause does not rule out.
fn wait_for_a_still_screen(session: &str, command: &str) {
    let screen = || {
        let out = tmux(session)
            .args(["capture-pane", "-p", "-t", session])
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(500));
    let mut last = screen();
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = screen();
        if !now.trim().is_empty() && now == last {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{command} did not draw a steady screen; screen:\n{now}"
        );
        last = now;
    }
}

/// Mount a private copy, let `edit` change game 1's Event through an editor, and check that
/// SCID sees the new Event name `expected`.
fn edit_game_one(name: &str, expected: &str, edit: impl FnOnce(&Path, &str)) {
    let dir = scratch(name);
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let games = m.join("games");
    let file = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("0001 "))
        .unwrap();
    edit(&games, &file);
    let export = scid_export(&db);
    assert!(
        export.contains(&format!("[Event \"{expected}\"]")),
        "SCID does not show {expected:?}"
    );
    let text = std::fs::read_to_string(games.join(&file)).unwrap();
    assert!(text.contains(expected), "the mount shows the saved text");
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn vim_with_debian_defaults_saves() {
    edit_game_one("vim", "Vim Event", |dir, file| {
        let cmd = format!("vim {}", shell_quote(file));
        drive(
            "gamefs-vim",
            dir,
            &cmd,
            &[
                &[":1s/\\[Event \"[^\"]*\"\\]/[Event \"Vim Event\"]/", "Enter"],
                &[":wq", "Enter"],
            ],
        );
    });
}

#[test]
fn vim_without_a_vimrc_saves() {
    edit_game_one("vim-u-none", "Plain Vim", |dir, file| {
        let cmd = format!("vim -u NONE {}", shell_quote(file));
        drive(
            "gamefs-vim-none",
            dir,
            &cmd,
            &[
                &[":1s/\\[Event \"[^\"]*\"\\]/[Event \"Plain Vim\"]/", "Enter"],
                &[":wq", "Enter"],
            ],
        );
    });
}

#[test]
fn nano_saves() {
    edit_game_one("nano", "Nano Event", |dir, file| {
        let cmd = format!("nano --ignorercfiles {}", shell_quote(file));
        // Go to the first line, delete it, type the new one, write out, confirm, exit.
        drive(
            "gamefs-nano",
            dir,
            &cmd,
            &[
                &["M-\\"],
                &["C-k"],
                &["[Event \"Nano Event\"]", "Enter"],
                &["C-o"],
                &["Enter"],
                &["C-x"],
            ],
        );
    });
}

#[test]
fn emacs_saves() {
    edit_game_one("emacs", "Emacs Event", |dir, file| {
        let cmd = format!("emacs -nw --no-site-file {}", shell_quote(file));
        drive(
            "gamefs-emacs",
            dir,
            &cmd,
            &[
                &["M-<"],
                &["C-k"],
                &["[Event \"Emacs Event\"]"],
                &["C-x", "C-s"],
                &["C-x", "C-c"],
            ],
        );
    });
}

/// An editor holding a game open while another program saves another game: the editor's
/// own save lands without a "changed since reading" question (each game has its own
/// modification time; before, every game took the database's, and vim, nano and emacs asked,
/// on a screen the user might not see, whether to overwrite a file nobody else touched).
#[test]
fn editors_save_while_other_games_are_saved() {
    for (editor, command, keys) in [
        (
            "vim",
            "vim",
            vec![
                vec![
                    ":1s/\\[Event \"[^\"]*\"\\]/[Event \"Meanwhile vim\"]/",
                    "Enter",
                ],
                vec![":wq", "Enter"],
            ],
        ),
        (
            "nano",
            "nano --ignorercfiles",
            vec![
                vec!["M-\\"],
                vec!["C-k"],
                vec!["[Event \"Meanwhile nano\"]", "Enter"],
                vec!["C-o"],
                vec!["Enter"],
                vec!["C-x"],
            ],
        ),
        (
            "emacs",
            "emacs -nw --no-site-file",
            vec![
                vec!["M-<"],
                vec!["C-k"],
                vec!["[Event \"Meanwhile emacs\"]"],
                vec!["C-x", "C-s"],
                vec!["C-x", "C-c"],
            ],
        ),
    ] {
        let dir = scratch(&format!("meanwhile-{editor}"));
        let db = copy_db(edge_db(), dir.path(), "db");
        let m = Mount::new(&db, dir.path(), &[]);
        let games = m.join("games");
        let name_of = |p: std::path::PathBuf| p.file_name().unwrap().to_str().unwrap().to_owned();
        let (mine, other) = (name_of(m.game(1)), m.game(2));
        let save_other = || {
            let text = std::fs::read_to_string(&other).unwrap();
            let line = text.lines().next().unwrap().to_owned();
            let edited = text.replacen(&line, &format!("[Event \"Other of {editor}\"]"), 1);
            std::fs::write(&other, edited).unwrap();
            // Past the kernel's attribute timeout (1 s), so the editor asks gamefs afresh.
            std::thread::sleep(Duration::from_millis(1500));
        };
        let slices: Vec<&[&str]> = keys.iter().map(Vec::as_slice).collect();
        drive_with(
            &format!("gamefs-meanwhile-{editor}"),
            &games,
            &format!("{command} {}", shell_quote(&mine)),
            &save_other,
            &slices,
        );
        drop(m);
        let export = scid_export(&db);
        for event in [format!("Meanwhile {editor}"), format!("Other of {editor}")] {
            assert!(
                export.contains(&format!("[Event \"{event}\"]")),
                "{editor}: SCID does not show {event:?}"
            );
        }
    }
}

/// The editors of the chess tests, on a Simple Chess Database and on a Go position database:
/// each format saves the same way through the same tree.
mod other_formats {
    use super::*;
    use crate::go9::example_db;
    use crate::simplecdb::{export, golden_copy};

    /// The keys that replace the first line (or, with `whole`, all) of the open file with
    /// `line` and save, per editor, as a person types them.
    fn keys(editor: &str, line: &str, whole: bool) -> Vec<Vec<String>> {
        let s = |v: &[&str]| v.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let text = vec![line.to_owned()];
        match (editor, whole) {
            ("nano", false) => vec![
                s(&["M-\\"]),
                s(&["C-k"]),
                text,
                s(&["Enter"]),
                s(&["C-o"]),
                s(&["Enter"]),
                s(&["C-x"]),
            ],
            ("nano", true) => vec![
                s(&["M-\\"]),
                s(&["M-a"]),
                s(&["M-/"]),
                s(&["C-k"]),
                text,
                s(&["C-o"]),
                s(&["Enter"]),
                s(&["C-x"]),
            ],
            ("emacs", false) => vec![
                s(&["M-<"]),
                s(&["C-k"]),
                text,
                s(&["C-x", "C-s"]),
                s(&["C-x", "C-c"]),
            ],
            ("emacs", true) => vec![
                s(&["C-x", "h"]),
                s(&["C-w"]),
                text,
                s(&["C-x", "C-s"]),
                s(&["C-x", "C-c"]),
            ],
            (_, false) => vec![
                s(&["gg"]),
                s(&["S"]),
                text,
                s(&["Escape"]),
                s(&[":wq", "Enter"]),
            ],
            (_, true) => vec![
                s(&[":%d", "Enter"]),
                s(&["i"]),
                text,
                s(&["Escape"]),
                s(&[":wq", "Enter"]),
            ],
        }
    }

    fn command(editor: &str, file: &str) -> String {
        let file = shell_quote(file);
        match editor {
            "nano" => format!("nano --ignorercfiles {file}"),
            "emacs" => format!("emacs -nw --no-site-file {file}"),
            "vim-u-none" => format!("vim -u NONE {file}"),
            _ => format!("vim {file}"),
        }
    }

    fn drive_keys(session: &str, dir: &Path, editor: &str, file: &str, line: &str, whole: bool) {
        let keys = keys(editor, line, whole);
        let refs: Vec<Vec<&str>> = keys
            .iter()
            .map(|k| k.iter().map(String::as_str).collect())
            .collect();
        let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
        drive(session, dir, &command(editor, file), &slices);
    }

    fn simplecdb_edit(editor: &str) {
        let dir = scratch(&format!("scdb-{editor}"));
        let db = golden_copy(dir.path());
        let m = Mount::new(&db, dir.path(), &[]);
        let games = m.join("games");
        let file = std::fs::read_dir(&games)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .find(|n| n.starts_with("0002 "))
            .unwrap();
        let event = format!("Edited by {editor}");
        drive_keys(
            &format!("gamefs-scdb-{editor}"),
            &games,
            editor,
            &file,
            &format!("[Event \"{event}\"]"),
            false,
        );
        drop(m);
        assert!(
            export(&db).contains(&format!("[Event \"{event}\"]")),
            "{editor}: the database holds the edit"
        );
    }

    fn go_edit(editor: &str) {
        let dir = scratch(&format!("go-{editor}"));
        let db = example_db(dir.path());
        let m = Mount::new(&db, dir.path(), &[]);
        let positions = m.join("positions");
        // Example 1 (one black stone, White to play) becomes the same board with Black to play.
        drive_keys(
            &format!("gamefs-go-{editor}"),
            &positions,
            editor,
            "31846ceb8015dc92-0-W.sgf",
            "(;FF[4]GM[1]SZ[9]AB[dd]PL[B])",
            true,
        );
        assert!(
            positions.join("31846ceb8015dc92-0-B.sgf").is_file(),
            "{editor}: the new position is there"
        );
        let text = std::fs::read_to_string(positions.join("31846ceb8015dc92-0-B.sgf")).unwrap();
        assert!(text.contains("PL[B]"), "{text}");
    }

    #[test]
    fn simple_chess_database_with_vim_nano_and_emacs() {
        for editor in ["vim", "vim-u-none", "nano", "emacs"] {
            simplecdb_edit(editor);
        }
    }

    #[test]
    fn go_positions_with_vim_nano_and_emacs() {
        for editor in ["vim", "vim-u-none", "nano", "emacs"] {
            go_edit(editor);
        }
    }
}
