//! Where the log goes: stderr in the foreground, a file with `--log-file`/`-o log_file=`, and
//! syslog (so the journal) for a detached mount, as sshfs and rclone do.

use std::io::Write;
use std::os::unix::net::UnixDatagram;

use super::{Cli, Command, daemon, mount_options};

/// Sends each log line as one syslog datagram to /dev/log.
struct Syslog {
    socket: UnixDatagram,
    line: Vec<u8>,
}

impl Write for Syslog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                let _ = self.socket.send(&self.line);
                self.line.clear();
            } else {
                self.line.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Syslog priority of a log level, facility "daemon".
fn priority(level: log::Level) -> u8 {
    let severity = match level {
        log::Level::Error => 3,
        log::Level::Warn => 4,
        log::Level::Info => 6,
        log::Level::Debug | log::Level::Trace => 7,
    };
    3 * 8 + severity
}

/// Set up logging for `args`; fails only when a requested log file cannot be opened.
pub(crate) fn init(args: &Cli) -> Result<(), String> {
    let mut level = args.log_level.clone();
    let mut log_file = None;
    if let Command::Mount(m) = &args.command {
        log_file =
            m.options.log_file.clone().or_else(|| {
                mount_options::value_of(&m.options.options, "log_file").map(Into::into)
            });
        if let Some(l) = mount_options::value_of(&m.options.options, "log_level") {
            level = l.to_owned();
        }
    }
    // fuser warns when it tries to unmount a mount that `umount` already removed: not news.
    let env = env_logger::Env::default().default_filter_or(format!("{level},fuser::session=error"));
    let mut logger = env_logger::Builder::from_env(env);
    if let Some(path) = &log_file {
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open log file {}: {e}", path.display()))?;
        logger.target(env_logger::Target::Pipe(Box::new(f)));
    } else if daemon::is_detached_child() {
        let socket = UnixDatagram::unbound().and_then(|s| s.connect("/dev/log").map(|()| s));
        if let Ok(socket) = socket {
            let pid = std::process::id();
            logger.format(move |buf, record| {
                writeln!(
                    buf,
                    "<{}>gamefs[{pid}]: {}",
                    priority(record.level()),
                    record.args()
                )
            });
            logger.target(env_logger::Target::Pipe(Box::new(Syslog {
                socket,
                line: Vec::new(),
            })));
        }
    }
    let logger = logger.build();
    log::set_max_level(logger.filter());
    let installed = if daemon::is_detached_child() {
        log::set_boxed_logger(Box::new(Forwarding(logger)))
    } else {
        log::set_boxed_logger(Box::new(logger))
    };
    installed.map_err(|e| format!("cannot set up logging: {e}"))
}

/// The background process's logger: logs as configured and also hands each record to
/// [`daemon::forward_log`] (which passes it to the waiting parent while the database opens).
struct Forwarding(env_logger::Logger);

impl log::Log for Forwarding {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record) {
        if self.0.matches(record) {
            self.0.log(record);
            daemon::forward_log(record);
        }
    }

    fn flush(&self) {
        self.0.flush();
    }
}
