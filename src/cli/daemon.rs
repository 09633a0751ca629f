//! Detaching like other mount tools: the command re-runs itself in the background, waits until
//! that process says the mount is ready (or why it failed), and exits.
//!
//! The background process learns its role from an environment variable and reports on its
//! standard output, a pipe to the waiting parent: `ready`, or `error: …`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Stdio};

/// Set in the background process's environment.
const DAEMON_ENV: &str = "GAMEFS_DETACHED_CHILD";

/// True in the background process started by [`detach`].
pub fn is_detached_child() -> bool {
    std::env::var_os(DAEMON_ENV).is_some()
}

/// Start this command again in the background, in its own session, and wait for it to
/// report that the mount is ready.
pub fn detach() -> Result<ExitCode, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the gamefs executable: {e}"))?;
    let mut command = Command::new(exe);
    command
        .args(std::env::args_os().skip(1))
        .env(DAEMON_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe and only detaches the child from our terminal.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start the background process: {e}"))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    let _ = BufReader::new(stdout).read_line(&mut line);
    match line.trim_end() {
        "ready" => Ok(ExitCode::SUCCESS),
        message => {
            let _ = child.wait();
            let message = message.strip_prefix("error: ").unwrap_or(message);
            if message.is_empty() {
                Err("the background process stopped before the mount was ready".into())
            } else {
                Err(message.to_owned())
            }
        }
    }
}

/// In the background process: tell the parent the mount is ready, then let go of the pipe.
pub fn report_ready() {
    if is_detached_child() {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "ready");
        let _ = out.flush();
        redirect_stdout_to_null();
    }
}

/// In the background process: tell the parent why the mount failed.
pub fn report_error(message: &str) {
    if is_detached_child() {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "error: {message}");
        let _ = out.flush();
    }
}

fn redirect_stdout_to_null() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto fd 1 replaces our stdout; both descriptors are valid.
        unsafe {
            libc::dup2(null.as_raw_fd(), 1);
        }
    }
}
