//! Shared pieces of the mount tests: building SCID databases with real SCID, mounting gamefs
//! through the kernel with timeouts, and always unmounting (MNT_DETACH) afterwards.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The gamefs binary under test: this build's, or the one `GAMEFS_TEST_BIN` names
/// (contrib/dev/test runs the suite again against the release build, as users run it: its
/// speed opens races a debug build is too slow to show).
pub(crate) fn gamefs() -> PathBuf {
    std::env::var_os("GAMEFS_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_gamefs")))
}

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory outside /tmp (editors treat /tmp specially), removed on drop.
pub(crate) fn scratch(name: &str) -> tempfile::TempDir {
    let base = repo().join("target").join("mount-tests");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix(&format!("{name}-"))
        .tempdir_in(base)
        .unwrap()
}

/// Run a command with a time limit, collecting its output; panics if it cannot be run or
/// does not finish in time (the process is then killed).
pub(crate) fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
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

/// Run gamefs with `args` (a 60 s limit); it must succeed. Its standard output.
pub(crate) fn gamefs_ok<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(gamefs());
    cmd.args(args);
    let out = run_with_timeout(&mut cmd, Duration::from_secs(60));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Run a shell command line (in `dir`) with a 60 s limit and return its stdout; it must succeed.
pub(crate) fn sh(dir: &Path, script: &str) -> String {
    let out = run_with_timeout(
        Command::new("bash").arg("-c").arg(script).current_dir(dir),
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "`{script}` failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Build a SCID database at `base` from PGN files with Debian's SCID (sc_import).
pub(crate) fn scid_import(pgns: &[&Path], base: &Path) {
    let mut cmd = Command::new(repo().join("contrib/tools/scid-import.sh"));
    cmd.args(pgns).arg(base);
    let out = run_with_timeout(&mut cmd, Duration::from_secs(300));
    assert!(
        out.status.success(),
        "scid-import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The entries of folder `dir`, sorted by name.
pub(crate) fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {dir:?}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// True when `path` is a mountpoint right now.
pub(crate) fn is_mounted(path: &Path) -> bool {
    let wanted = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    mountinfo.lines().any(|l| {
        l.split(' ').nth(4).map(unescape_mountinfo).as_deref() == Some(wanted.to_str().unwrap())
    })
}

fn unescape_mountinfo(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// Detach whatever is mounted on `path` (never blocks on a busy or dead mount).
pub(crate) fn force_unmount(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: valid NUL-terminated path.
    unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
}

/// A mount made by another process (a detached gamefs, `mount -t fuse`): detached (MNT_DETACH)
/// when the test ends, also when it fails half-way, so no mount outlives its test.
pub(crate) struct Unmounted(pub PathBuf);

impl Drop for Unmounted {
    fn drop(&mut self) {
        if is_mounted(&self.0) {
            force_unmount(&self.0);
        }
    }
}

/// A gamefs mount running in the foreground as a child process; unmounted and stopped on drop.
pub(crate) struct Mount {
    /// Where the tree is mounted.
    pub path: PathBuf,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
}

impl Mount {
    /// Mount `db` on a new mountpoint inside `dir`, with extra arguments, and wait until ready.
    pub(crate) fn new(db: &Path, dir: &Path, extra: &[&str]) -> Mount {
        Mount::with_env(db, dir, extra, &[])
    }

    /// As [`Mount::new`], with environment variables set for gamefs.
    pub(crate) fn with_env(db: &Path, dir: &Path, extra: &[&str], env: &[(&str, &Path)]) -> Mount {
        let path = dir.join("mnt");
        std::fs::create_dir_all(&path).unwrap();
        // Game sizes kept between mounts go to a cache folder of the tests, not the user's.
        let cache = repo().join("target/mount-tests/xdg-cache");
        let child = Command::new(gamefs())
            .env("XDG_CACHE_HOME", cache)
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .arg("mount")
            .arg("--foreground")
            .args(extra)
            .arg(db)
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gamefs");
        let mut mount = Mount {
            path,
            child: Some(child),
            _dir: None,
        };
        mount.wait_ready();
        mount
    }

    fn wait_ready(&mut self) {
        let start = Instant::now();
        while !is_mounted(&self.path) {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("gamefs exited before mounting: {status}");
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "mount did not become ready in 30 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Path of something inside the mount.
    pub(crate) fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// The file of game `number` (1-based, as named) in `games/`.
    pub(crate) fn game(&self, number: usize) -> PathBuf {
        let prefix = format!("{number:04} ");
        listing(&self.join("games"))
            .into_iter()
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix))
            })
            .unwrap_or_else(|| panic!("no game {number}"))
    }

    /// The child process (to send signals).
    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// Wait (bounded) for the gamefs process to exit; returns its status.
    pub(crate) fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
        let child = self.child.as_mut().unwrap();
        let start = Instant::now();
        loop {
            if let Some(s) = child.try_wait().unwrap() {
                self.child = None;
                return s;
            }
            assert!(
                start.elapsed() < limit,
                "gamefs did not exit within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        force_unmount(&self.path);
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && child.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Wait (up to 10 s: CI machines can be slow) until `condition` holds, and fail with `what` if
/// it never does. For what the kernel learns asynchronously: a closed file's RELEASE and the
/// tree's cache invalidations arrive just after `close` returns.
pub(crate) fn eventually(what: &str, condition: impl FnMut() -> bool) {
    eventually_within(what, Duration::from_secs(10), condition);
}

/// As [`eventually`], waiting up to `limit` (for work a mount does in the background).
pub(crate) fn eventually_within(what: &str, limit: Duration, mut condition: impl FnMut() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(start.elapsed() < limit, "never: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A network server a test started (smbd, an NFS server), in a process group of its own with
/// the processes it forks; stopped on drop (SIGTERM, up to 5 s, then SIGKILL to the group).
pub(crate) struct Server {
    child: Child,
}

impl Server {
    /// Start `cmd` (its output going to `log`) and wait (up to 30 s) until it accepts TCP
    /// connections on 127.0.0.1:`port`.
    pub(crate) fn start(cmd: &mut Command, port: u16, log: &Path) -> Server {
        use std::os::unix::process::CommandExt;
        let out = std::fs::File::create(log).unwrap();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
        let mut server = Server { child };
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("{cmd:?} exited: {status}; its log: {}", log.display());
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{cmd:?} did not listen on port {port} within 30 s; its log: {}",
                log.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let group = -(self.child.id() as i32);
        // SAFETY: signalling the process group this test started.
        unsafe { libc::kill(group, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && self.child.try_wait().ok().flatten().is_none() {
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above; whatever is left of the group goes.
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// The pages a user reads, whose examples the tests run: README.md, the guide's
/// introduction and every page of docs/guide/ (paths from the repository's root, in order).
pub(crate) fn user_pages() -> Vec<String> {
    let mut guide: Vec<String> = std::fs::read_dir(repo().join("docs/guide"))
        .unwrap()
        .map(|e| format!("docs/guide/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    guide.sort();
    let mut pages = vec!["README.md".to_owned(), "docs/introduction.md".to_owned()];
    pages.extend(guide);
    pages
}

/// A TCP port on the loopback address nobody listens on now, for a server a test starts.
///
/// Never one the kernel hands out on its own: a port from the ephemeral range (what binding
/// port 0 gives) can be taken, between this call and the server's bind, by the source port of
/// any outgoing connection or by another test asking the same, which once gave one Garage
/// cluster's node the RPC port of another's. So ports come from below the ephemeral range,
/// each handed out once per test process (tests run as threads of one), from a start that
/// differs between processes, and only if nothing listens there now.
pub(crate) fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    const FIRST: u16 = 20_000;
    const SPAN: u16 = 12_000;
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let start = (std::process::id() % 40) as u16 * 300;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = FIRST + (start + n) % SPAN;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// Whether the programs at `paths` are installed, for a test that needs them: as root they
/// must be (`contrib/dev/setup test` installs `packages`), so only another user's run skips
/// (saying so).
pub(crate) fn tools_present(paths: &[&str], packages: &str) -> bool {
    let present = paths.iter().all(|p| Path::new(p).exists());
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(
        present || !root,
        "{paths:?} missing: run contrib/dev/setup test (Debian packages {packages})"
    );
    if !present {
        eprintln!("skipped: {paths:?} are not installed ({packages}; contrib/dev/setup test)");
    }
    present
}
/// The mount `m` of database `db` shows `games` game files whose texts, in order, are what
/// `gamefs export` writes, and every view folder has entries.
pub(crate) fn assert_tree_is_export(m: &Mount, db: &Path, games: usize) {
    let files = listing(&m.join("games"));
    assert_eq!(files.len(), games);
    let joined: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert_eq!(joined, gamefs_ok([Path::new("export"), db]));
    for view in ["players", "events", "sites", "years", "eco"] {
        assert!(
            std::fs::read_dir(m.join(view)).unwrap().count() > 0,
            "{view}"
        );
    }
}

/// nginx (nginx-light) serving `dir/www`, listening on 127.0.0.1:`port` as `server` says (its
/// `listen` line and what else the server block holds: TLS, a rate limit), its access log as
/// `access_log` says (a `log_format` and `access_log` line, or `access_log off;`).
pub(crate) fn start_nginx(dir: &Path, port: u16, access_log: &str, server: &str) -> Server {
    let d = dir.display();
    let config = format!(
        r#"daemon off;
user root;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/nginx-error.log;
events {{}}
http {{
    {access_log}
    client_body_temp_path {d}/nginx-body;
    proxy_temp_path {d}/nginx-proxy;
    fastcgi_temp_path {d}/nginx-fastcgi;
    uwsgi_temp_path {d}/nginx-uwsgi;
    scgi_temp_path {d}/nginx-scgi;
    server {{
        {server}
        root {d}/www;
    }}
}}
"#
    );
    std::fs::write(dir.join("nginx.conf"), config).unwrap();
    let mut cmd = Command::new("/usr/sbin/nginx");
    cmd.arg("-e")
        .arg(dir.join("nginx-error.log"))
        .arg("-c")
        .arg(dir.join("nginx.conf"));
    Server::start(&mut cmd, port, &dir.join("nginx.log"))
}

/// The demo games (contrib/sample/demo.pgn) numbered `from..=to` (1-based), as PGN text.
pub(crate) fn demo_games(from: usize, to: usize) -> String {
    let text = std::fs::read_to_string(repo().join("contrib/sample/demo.pgn")).unwrap();
    let starts: Vec<usize> = text
        .match_indices("[Event ")
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    text[starts[from - 1]..starts[to]].to_owned()
}
