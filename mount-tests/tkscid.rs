//! SCID's own program on a base the tests also mount: Tcl scripts run by `tkscid`, Debian's
//! SCID 4.7.4 on SCID 4 files, or SCID 5 (built from source: Debian ships only SCID 4) on
//! SCID 5 files. Both read the same scripts; only `sc_base open` differs.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::harness::run_with_timeout;

/// A SCID program: its `tkscid` and how its scripts open a base.
pub(crate) struct Scid {
    program: PathBuf,
    /// `sc_base open`'s arguments before the base: none for SCID 4 files, `SCID5` for
    /// SCID 5 files (SCID 5 opens a base given alone as SCID 4 files).
    codec: &'static str,
}

/// One change a script makes to the base.
pub(crate) enum Step {
    /// Add the game of this PGN text.
    Add(String),
    /// Replace game `n` (1-based) with the game of this PGN text.
    Replace(usize, String),
    /// Set game `n`'s deleted mark.
    Delete(usize),
    /// Print `opened` and wait until this file exists, holding the base open: what the
    /// mount writes meanwhile is not in SCID's picture of it, which the next steps write from.
    WaitFor(PathBuf),
}

impl Scid {
    /// Debian's SCID 4.7.4 (`tkscid`, in /usr/games).
    pub(crate) fn four() -> Scid {
        Scid {
            program: "tkscid".into(),
            codec: "",
        }
    }

    /// SCID 5, whose `tkscid` `GAMEFS_SCID5` names; `None` when it is unset or not an
    /// executable file, having said that the test is skipped and why.
    pub(crate) fn five() -> Option<Scid> {
        use std::os::unix::fs::PermissionsExt;
        let Some(program) = std::env::var_os("GAMEFS_SCID5").map(PathBuf::from) else {
            eprintln!(
                "skipped: set GAMEFS_SCID5 to SCID 5's tkscid (built from source) to run this test"
            );
            return None;
        };
        let executable = std::fs::metadata(&program)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
        if !executable {
            eprintln!(
                "skipped: GAMEFS_SCID5={} is not an executable file (it names SCID 5's tkscid, \
                 built from source)",
                program.display()
            );
            return None;
        }
        Some(Scid {
            program,
            codec: "SCID5 ",
        })
    }

    /// A script that opens the base given as its argument as `$db`, runs `body`, and closes it.
    fn script(&self, body: &str) -> String {
        format!(
            "set db [sc_base open {}[lindex $argv 0]]\nsc_base switch $db\n{body}sc_base close $db\n",
            self.codec
        )
    }

    /// The script making `steps`, which then prints the game count.
    fn steps_script(&self, steps: &[Step]) -> String {
        let mut body = String::new();
        for step in steps {
            body += &match step {
                Step::Add(pgn) => {
                    format!("sc_game new\nsc_game import {{{pgn}}}\nsc_game save 0 $db\n")
                }
                Step::Replace(n, pgn) => {
                    format!("sc_game new\nsc_game import {{{pgn}}}\nsc_game save {n} $db\n")
                }
                Step::Delete(n) => format!("sc_base gameflag $db {n} set D\n"),
                Step::WaitFor(file) => format!(
                    "puts opened\nflush stdout\nwhile {{![file exists {{{}}}]}} {{ after 50 }}\n",
                    file.display()
                ),
            };
        }
        self.script(&(body + "puts [sc_base numGames $db]\n"))
    }

    /// The command running `script` (written to `dir/name.tcl`) on `base`.
    fn command(&self, dir: &Path, name: &str, script: &str, base: &Path) -> Command {
        let file = dir.join(format!("{name}.tcl"));
        std::fs::write(&file, script).unwrap();
        let mut cmd = Command::new(&self.program);
        cmd.arg(file).arg(base);
        cmd
    }

    /// Run `script` on `base` (60 s at most); it must succeed. Its standard output.
    fn run(&self, dir: &Path, name: &str, script: &str, base: &Path) -> String {
        let mut cmd = self.command(dir, name, script, base);
        let out = run_with_timeout(&mut cmd, Duration::from_secs(60));
        assert!(
            out.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Make `steps` on `base` (the script is kept as `dir/name.tcl`); returns the game count
    /// SCID then has.
    pub(crate) fn change(&self, dir: &Path, name: &str, steps: &[Step], base: &Path) -> usize {
        let out = self.run(dir, name, &self.steps_script(steps), base);
        let count = out.lines().last().unwrap_or("");
        count
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}: no game count in {out:?}"))
    }

    /// Start `steps`, whose first is a [`Step::WaitFor`], on `base`, and return once SCID holds
    /// the base open; it makes the other steps once the file it waits for exists.
    pub(crate) fn start(&self, dir: &Path, name: &str, steps: &[Step], base: &Path) -> Running {
        assert!(matches!(steps.first(), Some(Step::WaitFor(_))));
        let mut child = self
            .command(dir, name, &self.steps_script(steps), base)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.program.display()));
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        if line.trim() != "opened" {
            let out = child.wait_with_output().unwrap();
            panic!(
                "{name}: SCID did not open the base ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Running(child)
    }

    /// The base as SCID reads it: each game's Event and deleted mark, in order.
    pub(crate) fn games(&self, dir: &Path, base: &Path) -> Vec<(String, bool)> {
        let list = self.script(
            "puts [sc_base numGames $db]\n\
             for {set i 1} {$i <= [sc_base numGames $db]} {incr i} {\n\
               sc_game load $i\n\
               puts \"[sc_base gameflag $db $i get D]|[sc_game tags get Event]\"\n\
             }\n",
        );
        let out = self.run(dir, "list", &list, base);
        let mut lines = out.lines();
        let count: usize = lines.next().unwrap().trim().parse().unwrap();
        let games: Vec<(String, bool)> = lines
            .map(|l| {
                let (deleted, event) = l.split_once('|').unwrap();
                (event.to_owned(), deleted == "1")
            })
            .collect();
        assert_eq!(games.len(), count, "{out}");
        games
    }
}

/// A script [`Scid::start`] started; killed if dropped before it finished (a test that failed).
pub(crate) struct Running(Child);

impl Running {
    /// Wait for the script to end; it must succeed.
    pub(crate) fn finish(mut self) {
        let status = self.0.wait().unwrap();
        let mut said = String::new();
        if let Some(stderr) = self.0.stderr.as_mut() {
            let _ = std::io::Read::read_to_string(stderr, &mut said);
        }
        assert!(status.success(), "SCID's script: {status}: {said}");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// A short game as PGN: `event`, played by `white` and `black` at Site [`SITE`].
pub(crate) fn pgn(event: &str, white: &str, black: &str) -> String {
    format!(
        "[Event \"{event}\"]\n[Site \"{SITE}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
         [Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"
    )
}

/// The Site of every game of [`pgn`].
pub(crate) const SITE: &str = "Scidville";
