//! File handles that outlive the kernel's caches, what the kernel's NFS server needs to export
//! a mount: `name_to_handle_at` on games, view entries and folders, a drop of the kernel's
//! caches, then `open_by_handle_at` gives the same file. Needs root (`open_by_handle_at` asks
//! for CAP_DAC_READ_SEARCH, dropping caches for root).

use std::ffi::CString;
use std::fs::File;
use std::io::{Error, Read};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, gamefs_ok, listing, scratch};

/// `struct file_handle` with room for the largest handle (MAX_HANDLE_SZ, 128 bytes).
#[repr(C)]
struct Handle {
    bytes: u32,
    kind: i32,
    data: [u8; 128],
}

/// The file handle of `path` (not following a final symlink).
fn handle_of(path: &Path) -> Handle {
    let mut h = Handle {
        bytes: 128,
        kind: 0,
        data: [0; 128],
    };
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    let mut mount_id = 0;
    // SAFETY: `h` starts with the header of `struct file_handle` and has room for `bytes`.
    let rc = unsafe {
        libc::name_to_handle_at(
            libc::AT_FDCWD,
            c.as_ptr(),
            (&raw mut h).cast(),
            &mut mount_id,
            0,
        )
    };
    assert_eq!(
        rc,
        0,
        "name_to_handle_at {path:?}: {}",
        Error::last_os_error()
    );
    h
}

/// Open handle `h` on the mount that `mount` is a file of: O_PATH for symlinks, read-only for
/// the rest.
fn open_handle(mount: &File, h: &mut Handle, symlink: bool) -> std::io::Result<File> {
    let flags = if symlink {
        libc::O_PATH | libc::O_NOFOLLOW
    } else {
        libc::O_RDONLY
    };
    // SAFETY: `h` is a handle filled by name_to_handle_at; the fd returned is ours to own.
    let fd = unsafe { libc::open_by_handle_at(mount.as_raw_fd(), (&raw mut *h).cast(), flags) };
    if fd < 0 {
        return Err(Error::last_os_error());
    }
    // SAFETY: a new descriptor nobody else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Make the kernel forget every cached dentry and inode it can (those not in use).
fn drop_caches() {
    std::fs::write("/proc/sys/vm/drop_caches", "2").expect("drop caches");
}

/// What a test compares before and after: the inode number and what the file says (the text
/// of a file, the target of a symlink, the names in a folder).
fn identity(f: &File) -> Identity {
    let ino = f.metadata().unwrap().ino();
    let fd_path = PathBuf::from(format!("/proc/self/fd/{}", f.as_raw_fd()));
    let what = if f.metadata().unwrap().is_dir() {
        listing(&fd_path)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned() + "\n")
            .collect::<String>()
            .into_bytes()
    } else if f.metadata().unwrap().file_type().is_symlink() {
        let mut buf = [0u8; 4096];
        let empty = CString::new("").unwrap();
        // SAFETY: an O_PATH descriptor of a symlink, read with an empty path (readlinkat(2)).
        let n = unsafe {
            libc::readlinkat(f.as_raw_fd(), empty.as_ptr(), buf.as_mut_ptr().cast(), 4096)
        };
        assert!(n >= 0, "readlinkat: {}", Error::last_os_error());
        buf[..n as usize].to_vec()
    } else {
        let mut text = Vec::new();
        (&*f).read_to_end(&mut text).unwrap();
        text
    };
    (ino, what)
}

/// A file's inode number and what it says, as [`identity`] reads them.
type Identity = (u64, Vec<u8>);

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A private copy of the test database in a new scratch folder, mounted writable; None (the
/// test skips) when not root.
fn mounted_copy(name: &str) -> Option<(tempfile::TempDir, PathBuf, Mount)> {
    if !is_root() {
        eprintln!("skipped: open_by_handle_at and drop_caches need root");
        return None;
    }
    let dir = scratch(name);
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    Some((dir, db, m))
}

/// The first entry of folder `dir` (sorted by name).
fn first_in(dir: &Path) -> PathBuf {
    listing(dir).into_iter().next().expect("an entry")
}

#[test]
fn handles_of_games_views_and_folders_outlive_the_kernels_caches() {
    let Some((_dir, _db, m)) = mounted_copy("handles") else {
        return;
    };
    let group = first_in(&m.join("players"));
    let link = first_in(&group);
    let deleted = m.game(3);
    let paths: Vec<(PathBuf, bool)> = vec![
        (m.path.clone(), false),
        (m.join("games"), false),
        (m.game(1), false),
        (m.game(2), false),
        (deleted.clone(), false),
        (m.join("players"), false),
        (group.clone(), false),
        (link.clone(), true),
        (m.join("years"), false),
        (m.join(".gamefs/rejected"), false),
        (m.join(".gamefs/README"), false),
    ];
    let mount = File::open(&m.path).unwrap();
    let mut taken: Vec<(PathBuf, bool, Handle, Identity)> = paths
        .into_iter()
        .map(|(p, symlink)| {
            let mut h = handle_of(&p);
            let f = open_handle(&mount, &mut h, symlink)
                .unwrap_or_else(|e| panic!("open_by_handle_at {p:?} while cached: {e}"));
            let id = identity(&f);
            (p, symlink, h, id)
        })
        .collect();
    drop_caches();
    for (p, symlink, h, before) in &mut taken {
        let f = open_handle(&mount, h, *symlink)
            .unwrap_or_else(|e| panic!("open_by_handle_at {p:?} after a drop of caches: {e}"));
        assert_eq!(&identity(&f), before, "{p:?} after a drop of caches");
    }

    // A game deleted since: its handle finds the same file, now in .deleted/ (read-only).
    let name = deleted.file_name().unwrap().to_owned();
    std::fs::remove_file(&deleted).unwrap();
    drop_caches();
    let (_, _, h, before) = taken.iter_mut().find(|t| t.0 == deleted).unwrap();
    let f = open_handle(&mount, h, false).expect("the handle of a deleted game");
    assert_eq!(&identity(&f), before);
    let moved = m.join(".deleted").join(&name);
    assert_eq!(std::fs::metadata(&moved).unwrap().ino(), before.0);
    assert!(!deleted.exists());
}

#[test]
fn handles_outlive_a_remount_but_not_a_compaction() {
    let Some((dir, db, m)) = mounted_copy("handles-compact") else {
        return;
    };
    std::fs::remove_file(m.game(1)).unwrap();
    let game = m.game(5);
    let mut h = handle_of(&game);
    let text = std::fs::read(&game).unwrap();
    // A new game with new names: SCID's name file is written anew (a new inode), the index in
    // place; game numbers keep their meaning.
    std::fs::write(
        m.join("games/new.pgn"),
        "[Event \"Handles\"]\n[White \"Handle, New\"]\n[Black \"Handle, Other\"]\n\
         [Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    )
    .unwrap();
    let sn4 = db.with_extension("sn4");
    drop(m);

    // The same database mounted again: the handle still names the same game.
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let mount = File::open(&m.path).unwrap();
    let f = open_handle(&mount, &mut h, false).expect("the handle after a remount");
    assert_eq!(identity(&f).1, text);
    assert!(
        listing(&m.join("players"))
            .iter()
            .any(|p| p.ends_with("Handle, New")),
        "the new names are in {sn4:?}"
    );
    drop((f, mount, m));

    // Compacted (game 1 leaves; game 5 is now number 4): the number means another game.
    gamefs_ok([Path::new("compact"), &db]);
    let m = Mount::new(&db, dir.path(), &["-o", "ro"]);
    let mount = File::open(&m.path).unwrap();
    let e = open_handle(&mount, &mut h, false).expect_err("a handle from before a compaction");
    assert_eq!(e.raw_os_error(), Some(libc::ESTALE), "{e}");
}

#[test]
fn the_handle_of_a_removed_go_position_is_stale() {
    if !is_root() {
        eprintln!("skipped: open_by_handle_at and drop_caches need root");
        return;
    }
    let dir = scratch("handles-go");
    let db = crate::go9::example_db(dir.path());
    let m = Mount::new(&db, dir.path(), &[]);
    let position = first_in(&m.join("positions"));
    let mut h = handle_of(&position);
    let mount = File::open(&m.path).unwrap();
    open_handle(&mount, &mut h, false).expect("the handle while the position is there");
    std::fs::remove_file(&position).unwrap();
    drop_caches();
    let e = open_handle(&mount, &mut h, false).expect_err("the handle of a removed position");
    assert_eq!(e.raw_os_error(), Some(libc::ESTALE), "{e}");
}
