//! The examples of README.md and the user guide (docs/guide/*.md), run by trycmd against real
//! mounts: every ```` ```console ```` block's `$ command` lines run in order, in a scratch folder
//! of their page holding the sample games (`demo.pgn`, from contrib/sample/; see [`FIXTURES`]),
//! and what each prints (stdout and stderr) must match the lines under it (`...` skips lines,
//! `[..]` part of one; `? failed` or `? 4` expects a failing exit status). A page's blocks are one session, so
//! a later block uses what an earlier one mounted or made. Each command has a time limit, and
//! every mount left under the scratch folder is detached (MNT_DETACH) at the end, also when an
//! example fails. Blocks marked ```` ```sh ```` (what needs root, a package or a server) run
//! in doc_shell.rs; ```` ```text ```` blocks are files' contents, not commands.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness::{force_unmount, gamefs, repo, scratch, user_pages};

/// What each page's folder holds before its examples run: the sample games, the real games
/// that reach the Najdorf (tests/data/README.md), and for the 9x9 Go page a zobrist table
/// and a game to save.
const FIXTURES: &[(&str, &str)] = &[
    ("contrib/sample/demo.pgn", "demo.pgn"),
    ("tests/data/najdorf/najdorf.pgn", "najdorf.pgn"),
    (
        "tests/data/go9x9/zobrist_board_81.dat",
        "zobrist_board_81.dat",
    ),
    ("contrib/sample/go9-first.sgf", "first.sgf"),
];

/// Every mountpoint under `root` that is mounted now.
fn mounts_under(root: &Path) -> Vec<PathBuf> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    mountinfo
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(|p| PathBuf::from(p.replace("\\040", " ")))
        .filter(|p| p.starts_with(&root))
        .collect()
}

/// Detaches every mount under the scratch folder when dropped (after a failed example too).
struct DetachAll(PathBuf);

impl Drop for DetachAll {
    fn drop(&mut self) {
        for m in mounts_under(&self.0) {
            force_unmount(&m);
        }
    }
}

/// The page with each example's printed lines ending in a newline, as the programs print them:
/// trycmd takes the last line break before the next `$` or the fence as layout, so that a
/// page can show output without one, and writes an empty line there itself (TRYCMD=overwrite).
/// The pages stay as a reader expects them; the empty line is added here.
fn with_final_newlines(page: &str) -> String {
    let mut out = String::new();
    let mut in_console = false;
    let mut after_output = false;
    for line in page.lines() {
        if !in_console {
            in_console = line.starts_with("```console");
        } else {
            let step_or_end = line.starts_with("$ ") || line.starts_with("```");
            if step_or_end && after_output {
                out.push('\n');
            }
            after_output = !step_or_end && !line.starts_with("> ") && !line.starts_with("? ");
            in_console = !line.starts_with("```");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs the examples of `pages`, each copied into a scratch folder of its own with the sample
/// games beside it (`PAGE.in/`, trycmd's working folder for `PAGE`).
fn run_pages(pages: &[(String, String)]) {
    let dir = scratch("doc-examples");
    let _detach = DetachAll(dir.path().to_path_buf());
    let cases = trycmd::TestCases::new();
    let path = format!(
        "{}:/usr/games:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        gamefs().parent().unwrap().display()
    );
    cases
        .register_bin("gamefs", gamefs())
        .env("PATH", path.clone())
        .env("HOME", dir.path().display().to_string())
        .env(
            "XDG_CACHE_HOME",
            dir.path().join("cache").display().to_string(),
        )
        .env(
            "XDG_STATE_HOME",
            dir.path().join("state").display().to_string(),
        )
        .env("LC_ALL", "C.UTF-8")
        .timeout(Duration::from_secs(60));
    // trycmd runs only the programs it is told about: every command the pages run, found
    // in PATH as a shell would find it.
    let mut commands = std::collections::BTreeSet::new();
    for (_, text) in pages {
        let mut in_console = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_console = !in_console && line.starts_with("```console");
            } else if let Some(command) = line.strip_prefix("$ ").and_then(|l| l.split(' ').next())
                && in_console
                && command != "gamefs"
            {
                commands.insert(command);
            }
        }
    }
    for command in commands {
        let found = path
            .split(':')
            .map(|dir| Path::new(dir).join(command))
            .find(|p| p.is_file());
        // By its path (trycmd runs no program by name), so a message a program prints with
        // its name shows that path: the pages write `[..]rm: …`.
        match found {
            Some(p) => cases.register_bin(command, p),
            None => panic!("the examples run `{command}`, which is not installed"),
        };
    }
    for (i, (name, text)) in pages.iter().enumerate() {
        let stem = format!("{i:02}-{}", name.replace('/', "-").trim_end_matches(".md"));
        let work = dir.path().join(format!("{stem}.in"));
        std::fs::create_dir_all(&work).unwrap();
        for (from, to) in FIXTURES {
            std::fs::copy(repo().join(from), work.join(to)).unwrap();
        }
        let page = dir.path().join(format!("{stem}.md"));
        std::fs::write(&page, with_final_newlines(text)).unwrap();
        cases.case(page);
    }
    cases.run();
}

/// Every command example of README.md and the guide does what the page says it does.
#[test]
fn the_examples_of_the_readme_and_the_guide_run_as_written() {
    let pages: Vec<_> = user_pages()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(repo().join(&p)).unwrap();
            (p, text)
        })
        .filter(|(_, text)| text.contains("```console"))
        .collect();
    assert!(
        pages.len() > 10,
        "the pages with examples to run: {}",
        pages.len()
    );
    run_pages(&pages);
}

/// An example changed to something gamefs does not do fails the test: the README's first
/// block, with the import's count changed.
#[test]
#[should_panic = "failed"]
fn an_example_that_does_not_match_the_program_fails() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("```console").unwrap();
    let end = start + readme[start..].find("\n```\n").unwrap() + 5;
    let first = &readme[start..end];
    let changed = first.replacen("30 games imported", "31 games imported", 1);
    assert_ne!(changed, first);
    run_pages(&[("README.md".into(), changed)]);
}
