//! Detaching like other mount tools: the command re-runs itself in the background, waits until
//! that process says the mount is ready (or why it failed), and exits.
//!
//! The background process learns its role from an environment variable and reports on its
//! standard output, a pipe to the waiting parent, one [`Report`] per line. It alone opens the
//! database (once per mount, not once per process): what opening it says to the user — the
//! warnings on the terminal and the log lines of the open — travels up the pipe, and the parent
//! prints and logs them as if it had opened the database itself.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set in the background process's environment.
const DAEMON_ENV: &str = "GAMEFS_DETACHED_CHILD";

/// True while the background process forwards its log records to the parent.
static FORWARDING: AtomicBool = AtomicBool::new(false);

/// True in the background process started by [`detach`].
pub(crate) fn is_detached_child() -> bool {
    std::env::var_os(DAEMON_ENV).is_some()
}

/// One line from the background process to the waiting parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    /// The mount is ready: the parent exits with success.
    Ready,
    /// The mount failed with this message: the parent fails with it.
    Error(String),
    /// A line for the user's terminal (stderr).
    Say(String),
    /// A log record of the open, for the parent's logger: level, target, message.
    Log(log::Level, String, String),
}

/// `\` and line ends escaped, so that any text fits on one line.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

impl Report {
    /// The line (without its line end) that carries this report.
    pub(crate) fn encode(&self) -> String {
        match self {
            Report::Ready => "ready".to_owned(),
            Report::Error(m) => format!("error: {}", escape(m)),
            Report::Say(m) => format!("say: {}", escape(m)),
            Report::Log(level, target, m) => {
                format!("log: {level} {} {}", escape(target), escape(m))
            }
        }
    }

    /// The report a line carries; anything unknown (a background process that stopped half
    /// way, or an empty line at the end of the pipe) is an error with that text.
    pub(crate) fn decode(line: &str) -> Report {
        let line = line.trim_end_matches(['\n', '\r']);
        if line == "ready" {
            return Report::Ready;
        }
        if let Some(m) = line.strip_prefix("say: ") {
            return Report::Say(unescape(m));
        }
        if let Some(rest) = line.strip_prefix("log: ") {
            let mut parts = rest.splitn(3, ' ');
            if let (Some(level), Some(target), Some(m)) = (parts.next(), parts.next(), parts.next())
                && let Ok(level) = level.parse()
            {
                return Report::Log(level, unescape(target), unescape(m));
            }
        }
        let line = line.trim_end();
        Report::Error(unescape(line.strip_prefix("error: ").unwrap_or(line)))
    }
}

/// Start this command again in the background, in its own session, and wait for it to
/// report that the mount is ready; meanwhile print and log what it reports of the open.
pub(crate) fn detach() -> Result<ExitCode, String> {
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
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        let _ = reader.read_line(&mut line);
        match Report::decode(&line) {
            Report::Ready => return Ok(ExitCode::SUCCESS),
            Report::Say(text) => eprintln!("{text}"),
            Report::Log(level, target, text) => log::log!(target: &target, level, "{text}"),
            Report::Error(message) => {
                let _ = child.wait();
                return Err(if message.is_empty() {
                    "the background process stopped before the mount was ready".into()
                } else {
                    message
                });
            }
        }
    }
}

fn send(report: &Report) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", report.encode());
    let _ = out.flush();
}

/// In the background process: tell the parent the mount is ready, then let go of the pipe.
pub(crate) fn report_ready() {
    if is_detached_child() {
        FORWARDING.store(false, Ordering::SeqCst);
        send(&Report::Ready);
        redirect_stdout_to_null();
    }
}

/// In the background process: tell the parent why the mount failed.
pub(crate) fn report_error(message: &str) {
    if is_detached_child() {
        FORWARDING.store(false, Ordering::SeqCst);
        send(&Report::Error(message.to_owned()));
    }
}

/// A line for the user: on stderr, or from the background process to the parent's stderr.
pub(crate) fn tell(line: &str) {
    if is_detached_child() {
        send(&Report::Say(line.to_owned()));
    } else {
        eprintln!("{line}");
    }
}

/// Run `f` (opening the database) with the background process's log records also sent to
/// the parent, which logs them as its own: what the user saw when the parent opened it too.
pub(crate) fn forwarding_logs<T>(f: impl FnOnce() -> T) -> T {
    if !is_detached_child() {
        return f();
    }
    FORWARDING.store(true, Ordering::SeqCst);
    let out = f();
    FORWARDING.store(false, Ordering::SeqCst);
    out
}

/// In the background process, while [`forwarding_logs`] runs: send `record` to the parent.
pub(crate) fn forward_log(record: &log::Record) {
    if FORWARDING.load(Ordering::SeqCst) {
        send(&Report::Log(
            record.level(),
            record.target().to_owned(),
            record.args().to_string(),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_survive_the_pipe() {
        for r in [
            Report::Ready,
            Report::Error("cannot mount: a\\b\nc".into()),
            Report::Say("gamefs: warning: x is damaged\n\\n".into()),
            Report::Log(log::Level::Warn, "gamefs::store".into(), "a b\nc d".into()),
            Report::Log(log::Level::Error, "t".into(), String::new()),
        ] {
            let line = r.encode();
            assert!(!line.contains('\n'), "{line:?}");
            assert_eq!(Report::decode(&format!("{line}\n")), r);
        }
        // What a background process that died says: nothing, or an unknown line.
        assert_eq!(Report::decode(""), Report::Error(String::new()));
        assert_eq!(
            Report::decode("log: nonsense"),
            Report::Error("log: nonsense".into())
        );
    }
}
