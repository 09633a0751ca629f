//! gamefs as Linux tools expect a filesystem to behave: mount(8) with type fuse.gamefs, fstab
//! lines, and the systemd service in contrib/ (its ExecStart run as systemd runs it).

use std::os::unix::net::UnixDatagram;
use std::process::Command;
use std::time::Duration;

use crate::fixtures::edge_db;
use crate::harness::{
    Mount, Unmounted, force_unmount, gamefs, is_mounted, repo, run_with_timeout, scratch,
};

/// The mount.fuse3 source naming the program by full path (`PROGRAM#SOURCE`, type `fuse`):
/// the same helper convention as type `fuse.gamefs`, which looks `gamefs` up in the secure PATH
/// mount(8) uses (so an installed gamefs, /usr/local/bin or /usr/bin).
fn helper_source() -> String {
    format!("{}#{}", gamefs().display(), edge_db().display())
}

/// The file system type and source findmnt reports for the mount on `mnt`.
fn type_and_source(mnt: &std::path::Path) -> (String, String) {
    let out = run_with_timeout(
        Command::new("findmnt")
            .args(["-n", "-r", "-o", "FSTYPE,SOURCE", "--mountpoint"])
            .arg(mnt),
        Duration::from_secs(10),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let (fstype, source) = text
        .trim()
        .split_once(' ')
        .unwrap_or_else(|| panic!("findmnt found no mount on {}: {text:?}", mnt.display()));
    (fstype.to_owned(), source.replace("\\x20", " "))
}

/// Assert that the mount on `mnt` says it is gamefs (type `fuse.gamefs`) serving `db`.
fn assert_says_gamefs(mnt: &std::path::Path, db: &std::path::Path) {
    assert_eq!(
        type_and_source(mnt),
        ("fuse.gamefs".to_owned(), db.display().to_string()),
        "type and source of the mount on {}",
        mnt.display()
    );
}

fn wait_gone(mnt: &std::path::Path) {
    let start = std::time::Instant::now();
    while is_mounted(mnt) {
        assert!(start.elapsed() < Duration::from_secs(10), "still mounted");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn mount_t_fuse_works() {
    let dir = scratch("mount8");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let _unmount = Unmounted(mnt.clone());
    let out = run_with_timeout(
        Command::new("mount")
            .args(["-t", "fuse", "-o", "ro,allow_other"])
            .arg(helper_source())
            .arg(&mnt),
        Duration::from_secs(30),
    );
    assert!(
        out.status.success(),
        "mount: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(is_mounted(&mnt));
    assert!(std::fs::read_dir(mnt.join("games")).unwrap().count() > 0);
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    let line = mounts
        .lines()
        .find(|l| l.contains(mnt.to_str().unwrap()))
        .expect("listed in /proc/mounts");
    assert!(
        line.contains(" ro,") && line.contains("allow_other"),
        "options passed on: {line}"
    );
    assert_says_gamefs(&mnt, edge_db());
    assert!(Command::new("umount").arg(&mnt).status().unwrap().success());
    wait_gone(&mnt);
}

#[test]
fn an_fstab_line_mounts() {
    let dir = scratch("fstab");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let _unmount = Unmounted(mnt.clone());
    let fstab = dir.path().join("fstab");
    std::fs::write(
        &fstab,
        format!(
            "{} {} fuse ro,noauto,nofail,x-systemd.automount,_netdev 0 0\n",
            helper_source(),
            mnt.display()
        ),
    )
    .unwrap();
    let out = run_with_timeout(
        Command::new("mount").arg("-T").arg(&fstab).arg(&mnt),
        Duration::from_secs(30),
    );
    assert!(
        out.status.success(),
        "mount -T: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_dir(mnt.join("games")).unwrap().count() > 0);
    assert_says_gamefs(&mnt, edge_db());
    force_unmount(&mnt);
    wait_gone(&mnt);
}

/// A datagram from `socket`, received again when a signal to the test process (another
/// test's child ending, say) interrupts the wait: a socket with a receive timeout is not
/// restarted by the kernel (seen once in the suite: "Interrupted system call").
fn recv_retrying(socket: &UnixDatagram, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match socket.recv(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[test]
fn the_systemd_service_reports_ready_and_stops_cleanly() {
    let dir = scratch("systemd");
    let unit = std::fs::read_to_string(repo().join("contrib/systemd/gamefs@.service")).unwrap();
    assert!(unit.contains("Type=notify"));
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    // Run the unit's command line with our paths, as systemd would for one instance.
    let program = exec.split_whitespace().next().unwrap();
    assert_eq!(program, "gamefs", "a bare name systemd finds in PATH");
    let command = exec
        .replacen("gamefs", gamefs().to_str().unwrap(), 1)
        .replace("/srv/chess/%i", edge_db().to_str().unwrap())
        .replace("/mnt/chess/%i", mnt.to_str().unwrap());
    let words: Vec<&str> = command.split_whitespace().collect();
    let socket_path = dir.path().join("notify.sock");
    let socket = UnixDatagram::bind(&socket_path).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut child = Command::new(words[0])
        .args(&words[1..])
        .arg("-o")
        .arg("ro")
        .env("NOTIFY_SOCKET", &socket_path)
        .spawn()
        .unwrap();
    let mut buf = [0u8; 256];
    let n = recv_retrying(&socket, &mut buf).expect("READY=1 within 30 s");
    assert_eq!(&buf[..n], b"READY=1");
    assert!(is_mounted(&mnt), "ready means mounted");
    // SAFETY: SIGTERM to our own child, as `systemctl stop` sends.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let n = recv_retrying(&socket, &mut buf).expect("STOPPING=1");
    assert_eq!(&buf[..n], b"STOPPING=1");
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(10) {
            force_unmount(&mnt);
            let _ = child.kill();
            panic!("gamefs did not stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!is_mounted(&mnt));
}

#[test]
fn unknown_mount_options_are_refused() {
    let dir = scratch("badopt");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let out = run_with_timeout(
        Command::new(gamefs())
            .args(["mount", "-o", "ro,frobnicate"])
            .arg(edge_db())
            .arg(&mnt),
        Duration::from_secs(30),
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown mount option \"frobnicate\""));
    assert!(!is_mounted(&mnt));
}

/// `gamefs mount` as root mounts with mount(2) itself; tools that select by type find it as they
/// find sshfs and rclone mounts: findmnt, df, and `umount -t fuse.gamefs -a` (run in a private
/// mount namespace of its own, so it cannot reach the other tests' mounts).
#[test]
fn a_mount_is_found_by_its_type() {
    let dir = scratch("fstype");
    let mount = Mount::new(edge_db(), dir.path(), &["-r"]);
    assert_says_gamefs(&mount.path, edge_db());
    let df = run_with_timeout(
        Command::new("df")
            .args(["-t", "fuse.gamefs"])
            .arg(&mount.path),
        Duration::from_secs(10),
    );
    assert!(df.status.success(), "df -t fuse.gamefs: {df:?}");
    assert!(String::from_utf8_lossy(&df.stdout).contains(edge_db().to_str().unwrap()));
    let script = r#"findmnt -n -r -o TARGET -t fuse.gamefs | grep -qxF "$1" || exit 3
umount -t fuse.gamefs -a || exit 4
[ -z "$(findmnt -n -t fuse.gamefs)" ] || exit 5
exit 0"#;
    let out = run_with_timeout(
        Command::new("unshare")
            .args([
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                script,
                "sh",
            ])
            .arg(&mount.path),
        Duration::from_secs(30),
    );
    assert!(
        out.status.success(),
        "umount -t fuse.gamefs -a in a namespace: {out:?}"
    );
    assert!(
        is_mounted(&mount.path),
        "the namespace's umount reached ours"
    );
}

/// Another user's mount goes through fusermount3, which also mounts as `fuse.gamefs` with the
/// database as source. Run as `nobody`; /dev/fuse is opened to other users for the test when
/// this machine keeps it root-only (containers do; Debian's default is 0666).
#[test]
fn a_users_mount_through_fusermount_says_it_is_gamefs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("fstype-user");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let db = home.join("edge");
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(edge_db().with_extension(ext), db.with_extension(ext)).unwrap();
    }
    let mnt = home.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let _unmount = Unmounted(mnt.clone());
    let chown = run_with_timeout(
        Command::new("chown")
            .args(["-R", "nobody:nogroup"])
            .arg(&home),
        Duration::from_secs(10),
    );
    assert!(chown.status.success(), "chown: {chown:?}");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let device_mode = std::fs::metadata("/dev/fuse").unwrap().permissions().mode();
    std::fs::set_permissions("/dev/fuse", std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = run_with_timeout(
        Command::new("setpriv")
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "env"])
            .arg(format!("HOME={}", home.display()))
            .arg(format!("XDG_CACHE_HOME={}", home.display()))
            .arg(gamefs())
            .args(["mount", "-r"])
            .arg(&db)
            .arg(&mnt),
        Duration::from_secs(30),
    );
    std::fs::set_permissions("/dev/fuse", std::fs::Permissions::from_mode(device_mode)).unwrap();
    assert!(out.status.success(), "gamefs mount as nobody: {out:?}");
    assert_says_gamefs(&mnt, &db);
    let unmount = run_with_timeout(
        Command::new("setpriv")
            .args([
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                "fusermount3",
                "-u",
            ])
            .arg(&mnt),
        Duration::from_secs(10),
    );
    assert!(unmount.status.success(), "fusermount3 -u: {unmount:?}");
    wait_gone(&mnt);
}
