//! The `gamefs mount` command as people use it: detaching, unmounting, signals, and errors.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{
    Mount, Unmounted, force_unmount, gamefs, is_mounted, run_with_timeout, scratch,
};

fn mount_cmd(args: &[&std::ffi::OsStr]) -> std::process::Output {
    run_with_timeout(
        Command::new(gamefs()).arg("mount").args(args),
        Duration::from_secs(30),
    )
}

fn wait_until(limit: Duration, what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Mount in the background (the command returns once the mount is ready), then stop it with
/// `unmount` (a command and its arguments, the mountpoint appended) and check gamefs exits.
fn mount_detached_then_unmount_with(db: &std::path::Path, unmount: &[&str]) {
    let dir = scratch("detach");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let _unmount = Unmounted(mnt.clone());
    let out = mount_cmd(&[
        "-o".as_ref(),
        "ro".as_ref(),
        db.as_os_str(),
        mnt.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        is_mounted(&mnt),
        "the mount is ready when the command returns"
    );
    assert!(std::fs::read_dir(mnt.join("games")).unwrap().count() > 0);
    assert!(gamefs_serving(&mnt), "a background gamefs serves the mount");
    let out = Command::new(unmount[0])
        .args(&unmount[1..])
        .arg(&mnt)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{unmount:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    wait_until(Duration::from_secs(10), "unmount", || !is_mounted(&mnt));
    wait_until(
        Duration::from_secs(10),
        "the background gamefs to exit",
        || !gamefs_serving(&mnt),
    );
}

#[test]
fn detaches_when_ready_and_umount_stops_it() {
    // Any of the database's files names it.
    mount_detached_then_unmount_with(&edge_db().with_extension("si4"), &["umount"]);
}

#[test]
fn fusermount3_unmounts_too() {
    mount_detached_then_unmount_with(edge_db(), &["fusermount3", "-u"]);
}

/// True while a live (not zombie) gamefs process has `mountpoint` on its command line.
fn gamefs_serving(mountpoint: &std::path::Path) -> bool {
    let wanted = mountpoint.as_os_str().as_encoded_bytes();
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z');
        !zombie
            && cmdline.split(|&b| b == 0).any(|arg| arg == wanted)
            && cmdline.starts_with(b"/")
            && cmdline
                .split(|&b| b == 0)
                .next()
                .is_some_and(|exe| exe.ends_with(b"gamefs"))
    })
}

#[test]
fn ctrl_c_in_the_foreground_unmounts_and_exits() {
    let dir = scratch("sigint");
    let mut m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc::kill(m.pid() as i32, libc::SIGINT) };
    let status = m.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "{status}");
    assert!(!is_mounted(&m.path));
}

#[test]
fn stopping_with_a_file_open_does_not_hang() {
    let dir = scratch("busy");
    let mut m = Mount::new(edge_db(), dir.path(), &["-o", "ro"]);
    let game = std::fs::read_dir(m.join("games"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = std::fs::File::open(&game).unwrap();
    // SAFETY: sending SIGTERM to our own child process.
    unsafe { libc::kill(m.pid() as i32, libc::SIGTERM) };
    let status = m.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "{status}");
    assert!(!is_mounted(&m.path), "a busy mount is detached lazily");
    drop(file);
}

#[test]
fn clear_errors_for_bad_input() {
    let dir = scratch("errors");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let check = |args: &[&std::ffi::OsStr], expect: &str| {
        let out = mount_cmd(args);
        assert!(!out.status.success(), "{args:?} must fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(expect),
            "{args:?}: expected {expect:?} in {err:?}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one-line error: {err:?}");
        assert!(!is_mounted(&mnt));
    };
    let missing = dir.path().join("nothing");
    check(&[missing.as_os_str(), mnt.as_os_str()], "no database at");
    // A folder mounts the databases it holds, and fails when it holds none that opens.
    let empty = dir.path().join("empty-folder");
    std::fs::create_dir(&empty).unwrap();
    check(
        &[empty.as_os_str(), mnt.as_os_str()],
        "holds no chess database",
    );
    std::fs::write(empty.join("broken.si4"), b"no SCID index").unwrap();
    check(
        &[empty.as_os_str(), mnt.as_os_str()],
        "none of its 1 database(s) opens",
    );

    let bad_magic = copy_db(edge_db(), dir.path(), "badmagic");
    let mut si4 = std::fs::read(bad_magic.with_extension("si4")).unwrap();
    si4[0] = b'X';
    std::fs::write(bad_magic.with_extension("si4"), &si4).unwrap();
    check(
        &[bad_magic.as_os_str(), mnt.as_os_str()],
        "not a SCID index file",
    );

    let bad_version = copy_db(edge_db(), dir.path(), "badversion");
    let mut si4 = std::fs::read(bad_version.with_extension("si4")).unwrap();
    si4[8..10].copy_from_slice(&500u16.to_be_bytes());
    std::fs::write(bad_version.with_extension("si4"), &si4).unwrap();
    check(
        &[bad_version.as_os_str(), mnt.as_os_str()],
        "unknown SCID index version 500",
    );

    // A damaged database mounts read-only: mount-tests/corrupt.rs.

    let no_names = copy_db(edge_db(), dir.path(), "nonames");
    std::fs::remove_file(no_names.with_extension("sn4")).unwrap();
    check(&[no_names.as_os_str(), mnt.as_os_str()], "nonames.sn4");

    let db = edge_db().as_os_str();
    let nowhere = dir.path().join("no-such-dir");
    check(&[db, nowhere.as_os_str()], "mountpoint");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    check(&[db, file.as_os_str()], "is not a directory");
}

#[test]
fn the_demo_mounts_the_sample_and_quits_on_ctrl_c() {
    let dir = scratch("demo");
    let mnt = dir.path().join("demo-mnt");
    let mut child = Command::new(gamefs())
        .arg("demo")
        .arg(&mnt)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    wait_until(Duration::from_secs(30), "the demo mount", || {
        is_mounted(&mnt)
    });
    let games = std::fs::read_dir(mnt.join("games")).unwrap().count();
    assert!(games >= 30, "the demo has a few dozen games, found {games}");
    // SAFETY: SIGINT to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            force_unmount(&mnt);
            let _ = child.kill();
            panic!("the demo did not quit on Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Ctrl-C"),
        "the demo prints what to try"
    );
    assert!(!mnt.exists(), "the demo removes the mountpoint it created");
}

#[test]
fn mount_keeps_serving_while_reading() {
    let dir = scratch("keep");
    let m = Mount::new(edge_db(), dir.path(), &["-o", "ro,allow_other"]);
    assert!(std::fs::read_dir(m.join("games")).unwrap().count() > 0);
}
