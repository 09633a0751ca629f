//! gamefs as Linux tools expect a filesystem to behave: mount(8) with type fuse.gamefs, fstab
//! lines, and the systemd service in contrib/ (its ExecStart run as systemd runs it).

use std::os::unix::net::UnixDatagram;
use std::process::Command;
use std::time::Duration;

use crate::fixtures::edge_db;
use crate::harness::{
    Unmounted, force_unmount, gamefs, is_mounted, repo, run_with_timeout, scratch,
};

/// The mount.fuse3 source naming the program by full path (`PROGRAM#SOURCE`, type `fuse`):
/// the same helper convention as type `fuse.gamefs`, which looks `gamefs` up in the secure PATH
/// mount(8) uses (so an installed gamefs, /usr/local/bin or /usr/bin).
fn helper_source() -> String {
    format!("{}#{}", gamefs().display(), edge_db().display())
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
    force_unmount(&mnt);
    wait_gone(&mnt);
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
    let command = exec
        .replace("/usr/local/bin/gamefs", gamefs().to_str().unwrap())
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
    let n = socket.recv(&mut buf).expect("READY=1 within 30 s");
    assert_eq!(&buf[..n], b"READY=1");
    assert!(is_mounted(&mnt), "ready means mounted");
    // SAFETY: SIGTERM to our own child, as `systemctl stop` sends.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let n = socket.recv(&mut buf).expect("STOPPING=1");
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
