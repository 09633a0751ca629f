//! POSIX behaviour of the writable tree, in the style of pjdfstest: small cases with exact
//! errno values, each run on a SCID, a Simple Chess Database and a 9x9 Go mount. What gamefs
//! supports behaves as on a local disk (create/O_EXCL, renameat2 flags, unlink of open files,
//! truncate, link counts, times); what it does not is refused with the errno POSIX names for
//! that (docs/SEMANTICS.md §13 lists each, with the test that checks it).

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::fixtures::{copy_db, edge_db};
use crate::go9::example_db;
use crate::harness::{Mount, eventually, listing, scratch, sh};
use crate::simplecdb::golden_copy;
use crate::sys::{
    close, errno, getxattr, listxattr, mknod, renameat2, setxattr, truncate, utimens,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Scid,
    SimpleCdb,
    Go,
}

pub(crate) const FORMATS: [Format; 3] = [Format::Scid, Format::SimpleCdb, Format::Go];

const NEW_GAME: &str = "[Event \"POSIX\"]\n[Site \"Here\"]\n[Date \"2026.11.22\"]\n[Round \"1\"]\n\
[White \"Posix, Anna\"]\n[Black \"Posix, Bob\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
const NEW_POSITION: &str = "(;FF[4]GM[1]SZ[9]AB[ee][ff]AW[gg]PL[B])";

/// One database of `format`, mounted (writable unless `options` say otherwise).
pub(crate) struct Fixture {
    format: Format,
    pub(crate) db: PathBuf,
    pub(crate) m: Mount,
    _dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new(format: Format, options: &[&str]) -> Fixture {
        let dir = scratch(&format!("posix-{format:?}"));
        let db = match format {
            Format::Scid => copy_db(edge_db(), dir.path(), "db"),
            Format::SimpleCdb => golden_copy(dir.path()),
            Format::Go => example_db(dir.path()),
        };
        let m = Mount::new(&db, dir.path(), options);
        Fixture {
            format,
            db,
            m,
            _dir: dir,
        }
    }

    pub(crate) fn items(&self) -> PathBuf {
        self.m.join(match self.format {
            Format::Go => "positions",
            _ => "games",
        })
    }

    /// The items (not the scratch files) in their folder, sorted.
    pub(crate) fn item_files(&self) -> Vec<PathBuf> {
        listing(&self.items())
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == self.ext()))
            .collect()
    }

    fn item(&self, k: usize) -> PathBuf {
        self.item_files().swap_remove(k)
    }

    fn ext(&self) -> &'static str {
        match self.format {
            Format::Go => "sgf",
            _ => "pgn",
        }
    }

    fn new_text(&self) -> &'static str {
        match self.format {
            Format::Go => NEW_POSITION,
            _ => NEW_GAME,
        }
    }

    /// What [`Fixture::edited`] puts in a text, as the stored item shows it.
    pub(crate) fn marker(&self) -> &'static str {
        match self.format {
            Format::Go => "AB[aa]",
            _ => "[Site \"Edited ",
        }
    }

    /// A change of an item's text that the format stores (a stone more, a new site).
    pub(crate) fn edited(&self, text: &str) -> String {
        let edited = match self.format {
            Format::Go => text.replacen("AB[", "AB[aa][", 1),
            _ => text.replacen("[Site \"", "[Site \"Edited ", 1),
        };
        assert_ne!(edited, text);
        edited
    }

    /// The item that holds the edit, once saved (a Go position gets a new name).
    fn saved_item(&self) -> Option<PathBuf> {
        self.item_files()
            .into_iter()
            .find(|p| std::fs::read_to_string(p).unwrap().contains(self.marker()))
    }

    /// A group folder of the first view, and a link in it.
    fn view_link(&self) -> (PathBuf, PathBuf) {
        let view = self.m.join(match self.format {
            Format::Go => "to-play",
            _ => "players",
        });
        let group = first_entry(&view);
        let link = first_entry(&group);
        (group, link)
    }

    /// Every database file with its bytes and modification time.
    fn db_state(&self) -> Vec<(PathBuf, Vec<u8>, SystemTime)> {
        let files: Vec<PathBuf> = match self.format {
            Format::Go => listing(&self.db),
            Format::Scid => ["si4", "sn4", "sg4"]
                .map(|e| self.db.with_extension(e))
                .to_vec(),
            Format::SimpleCdb => ["dci", "dcn", "dcs", "dce", "dcg"]
                .map(|e| self.db.with_extension(e))
                .to_vec(),
        };
        files
            .into_iter()
            .map(|f| {
                let bytes = std::fs::read(&f).unwrap();
                let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
                (f, bytes, mtime)
            })
            .collect()
    }
}

fn first_entry(dir: &Path) -> PathBuf {
    listing(dir).swap_remove(0)
}

fn expect(result: std::io::Result<impl std::fmt::Debug>, want: i32, what: &str) {
    let got = errno(result);
    assert_eq!(
        got,
        want,
        "{what}: got {}, want {}",
        std::io::Error::from_raw_os_error(got),
        std::io::Error::from_raw_os_error(want)
    );
}

fn excl(path: &Path) -> std::io::Result<std::fs::File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o640)
        .open(path)
}

#[test]
fn create_exclusive_and_new_files() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let what = |s: &str| format!("{format:?}: {s}");
        expect(excl(&f.item(0)), libc::EEXIST, &what("O_EXCL on an item"));
        expect(excl(&f.items()), libc::EEXIST, &what("O_EXCL on a folder"));
        let notes = f.items().join("notes.txt");
        close(excl(&notes).unwrap()).unwrap();
        let meta = std::fs::metadata(&notes).unwrap();
        assert!(meta.is_file(), "{format:?}");
        assert_eq!(
            (meta.mode() & 0o777, meta.nlink(), meta.len()),
            (0o640, 1, 0),
            "{format:?}: a new scratch file"
        );
        // SAFETY: getuid has no preconditions.
        assert_eq!(meta.uid(), unsafe { libc::getuid() });
        expect(excl(&notes), libc::EEXIST, &what("O_EXCL again"));
        // O_CREAT without O_EXCL or O_TRUNC opens the existing item as it is.
        let item = f.item(1);
        let text = std::fs::read(&item).unwrap();
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&item)
            .unwrap();
        close(file).unwrap();
        assert_eq!(std::fs::read(&item).unwrap(), text, "{format:?}");
        // A new item file becomes an item at close, under its own name.
        let before = f.item_files().len();
        let new = f.items().join(format!("new.{}", f.ext()));
        let mut file = excl(&new).unwrap();
        file.write_all(f.new_text().as_bytes()).unwrap();
        close(file).unwrap();
        eventually(&what("the created name goes away"), || !new.exists());
        assert_eq!(f.item_files().len(), before + 1, "{format:?}");
    }
}

#[test]
fn rename_flags_and_targets() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let what = |s: &str| format!("{format:?}: {s}");
        let items = f.items();
        let (a, b) = (items.join("a.txt"), items.join("b.txt"));
        std::fs::write(&a, "A").unwrap();
        std::fs::write(&b, "B").unwrap();
        let state = f.db_state();
        let item = f.item(0);
        expect(
            renameat2(&a, &item, libc::RENAME_NOREPLACE),
            libc::EEXIST,
            &what("RENAME_NOREPLACE onto an item"),
        );
        expect(
            renameat2(&a, &b, libc::RENAME_NOREPLACE),
            libc::EEXIST,
            &what("RENAME_NOREPLACE onto a scratch file"),
        );
        renameat2(&a, &items.join("c.txt"), libc::RENAME_NOREPLACE).unwrap();
        renameat2(&items.join("c.txt"), &b, libc::RENAME_EXCHANGE).unwrap();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "A");
        assert_eq!(std::fs::read_to_string(items.join("c.txt")).unwrap(), "B");
        expect(
            renameat2(&b, &item, libc::RENAME_EXCHANGE),
            libc::EINVAL,
            &what("RENAME_EXCHANGE with an item"),
        );
        // Over an existing scratch file: replaced.
        std::fs::rename(&b, items.join("c.txt")).unwrap();
        assert_eq!(std::fs::read_to_string(items.join("c.txt")).unwrap(), "A");
        assert!(!b.exists());
        // Items and folders stay where the database puts them.
        expect(
            std::fs::rename(&item, f.item(1)),
            libc::EPERM,
            &what("an item onto another item"),
        );
        let (group, link) = f.view_link();
        expect(
            std::fs::rename(&item, group.join(format!("x.{}", f.ext()))),
            libc::EPERM,
            &what("an item into a view folder"),
        );
        expect(
            std::fs::rename(&link, items.join("link")),
            libc::EPERM,
            &what("a view link"),
        );
        expect(
            std::fs::rename(&group, group.with_file_name("renamed")),
            libc::EPERM,
            &what("a view folder"),
        );
        expect(
            std::fs::rename(&items, f.m.join("elsewhere")),
            libc::EPERM,
            &what("the items folder"),
        );
        assert!(
            state == f.db_state(),
            "{format:?}: nothing reached the database"
        );
        // Scratch files move freely between folders.
        std::fs::rename(items.join("c.txt"), group.join("c.txt")).unwrap();
        assert_eq!(std::fs::read_to_string(group.join("c.txt")).unwrap(), "A");
    }
}

#[test]
fn unlink_of_an_open_file_keeps_it_readable() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let item = f.item(2);
        let text = std::fs::read(&item).unwrap();
        let mut file = std::fs::File::open(&item).unwrap();
        let mut head = vec![0u8; 10];
        file.read_exact(&mut head).unwrap();
        std::fs::remove_file(&item).unwrap();
        assert!(!item.exists(), "{format:?}");
        let mut rest = Vec::new();
        file.read_to_end(&mut rest).unwrap();
        head.extend(rest);
        assert_eq!(
            head, text,
            "{format:?}: the open descriptor reads the whole text"
        );
        assert_eq!(file.metadata().unwrap().len(), text.len() as u64);
        // A scratch file: still readable and writable, with no name left.
        let notes = f.items().join("open.txt");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&notes)
            .unwrap();
        file.write_all(b"before").unwrap();
        std::fs::remove_file(&notes).unwrap();
        file.write_all(b" after").unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        let mut all = String::new();
        file.read_to_string(&mut all).unwrap();
        assert_eq!(all, "before after");
        assert_eq!(file.metadata().unwrap().nlink(), 0, "{format:?}");
    }
}

#[test]
fn truncate_and_ftruncate() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let what = |s: &str| format!("{format:?}: {s}");
        let item = f.item(1);
        let text = std::fs::read_to_string(&item).unwrap();
        let state = f.db_state();
        // An empty item cannot be stored.
        let file = OpenOptions::new().write(true).open(&item).unwrap();
        file.set_len(0).unwrap();
        expect(
            close(file),
            libc::EINVAL,
            &what("an item truncated to nothing"),
        );
        expect(
            truncate(&item, 0),
            libc::EINVAL,
            &what("truncate(2) of an item"),
        );
        assert!(state == f.db_state(), "{format:?}: refused, nothing stored");
        // Once the refused draft is let go (RELEASE follows close), the item reads as before.
        eventually(&what("the stored text again"), || {
            std::fs::read_to_string(&item).unwrap() == text
        });
        // ftruncate then a new text: the save of an editor that rewrites in place.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&item)
            .unwrap();
        file.set_len(0).unwrap();
        assert_eq!(file.metadata().unwrap().len(), 0);
        file.write_all(f.edited(&text).as_bytes()).unwrap();
        close(file).unwrap();
        assert!(f.saved_item().is_some(), "{format:?}: saved");
        // Scratch files grow with zeros and shrink.
        let notes = f.items().join("notes.txt");
        std::fs::write(&notes, "abc").unwrap();
        OpenOptions::new()
            .write(true)
            .open(&notes)
            .unwrap()
            .set_len(6)
            .unwrap();
        assert_eq!(std::fs::read(&notes).unwrap(), b"abc\0\0\0");
        OpenOptions::new()
            .write(true)
            .open(&notes)
            .unwrap()
            .set_len(1)
            .unwrap();
        assert_eq!(std::fs::read(&notes).unwrap(), b"a");
        expect(
            OpenOptions::new().write(true).open(f.items()),
            libc::EISDIR,
            &what("a folder opened for writing"),
        );
        expect(
            OpenOptions::new()
                .write(true)
                .open(f.m.join(".gamefs/stats")),
            libc::EACCES,
            &what("a status file opened for writing"),
        );
    }
}

/// Check st_nlink of every folder (2 + subfolders) and file (1) under `dir`; returns how
/// many folders there are.
fn check_link_counts(dir: &Path) -> usize {
    let meta = std::fs::symlink_metadata(dir).unwrap();
    let mut subfolders = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            subfolders.push(p);
        } else {
            assert_eq!(m.nlink(), 1, "{p:?}");
        }
    }
    assert_eq!(meta.nlink(), 2 + subfolders.len() as u64, "{dir:?}");
    1 + subfolders
        .iter()
        .map(|d| check_link_counts(d))
        .sum::<usize>()
}

#[test]
fn link_counts_of_folders_and_files() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let folders = check_link_counts(&f.m.path);
        // find uses st_nlink to skip leaves; it must see every folder.
        let found = sh(&f.m.path, "find . -type d | wc -l");
        assert_eq!(
            found.trim().parse::<usize>().unwrap(),
            folders,
            "{format:?}"
        );
    }
}

#[test]
fn times_follow_saves_and_utimensat() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let item = f.item(0);
        let before = std::fs::metadata(&item).unwrap();
        assert_eq!(before.accessed().unwrap(), before.modified().unwrap());
        let folder_mtime = std::fs::metadata(f.items()).unwrap().modified().unwrap();
        let started = SystemTime::now();
        let text = std::fs::read_to_string(&item).unwrap();
        std::fs::write(&item, f.edited(&text)).unwrap();
        let saved = f.saved_item().expect("the saved item");
        let after = std::fs::metadata(&saved).unwrap();
        assert!(
            after.modified().unwrap() >= started,
            "{format:?}: mtime of a save"
        );
        assert!(after.modified().unwrap() > before.modified().unwrap());
        assert!(after.ctime() >= before.ctime());
        let folder = std::fs::metadata(f.items()).unwrap().modified().unwrap();
        assert!(folder > folder_mtime, "{format:?}: the folder's mtime");
        // The times of an item are the database's: utimensat succeeds and changes nothing.
        let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        utimens(&saved, Some(past), Some(past)).unwrap();
        assert_eq!(
            std::fs::metadata(&saved).unwrap().modified().unwrap(),
            after.modified().unwrap()
        );
        // A scratch file takes the times it is given; ctime records the change.
        let notes = f.items().join("notes.txt");
        std::fs::write(&notes, "x").unwrap();
        let ctime = std::fs::metadata(&notes).unwrap().ctime();
        utimens(&notes, Some(past), Some(past + Duration::from_secs(5))).unwrap();
        let m = std::fs::metadata(&notes).unwrap();
        assert_eq!(m.accessed().unwrap(), past);
        assert_eq!(m.modified().unwrap(), past + Duration::from_secs(5));
        assert!(m.ctime() >= ctime);
        utimens(&notes, None, Some(SystemTime::now())).unwrap();
        let m = std::fs::metadata(&notes).unwrap();
        assert_eq!(m.accessed().unwrap(), past, "UTIME_OMIT leaves atime");
        assert!(m.modified().unwrap() >= started);
    }
}

/// Each call's errno must be the one named beside it.
fn expect_all(format: Format, cases: Vec<(std::io::Result<()>, i32, &str)>) {
    for (result, want, what) in cases {
        expect(result, want, &format!("{format:?}: {what}"));
    }
}

#[test]
fn unsupported_operations_are_refused_with_their_errno() {
    use std::fs::{create_dir, hard_link, remove_dir, remove_file, write};
    use std::os::unix::fs::{chown, symlink};
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let items = f.items();
        let item = f.item(0);
        let state = f.db_state();
        let meta = std::fs::metadata(&item).unwrap();
        let (group, link) = f.view_link();
        symlink("../elsewhere", items.join("sym")).unwrap();
        assert_eq!(
            std::fs::read_link(items.join("sym")).unwrap(),
            Path::new("../elsewhere")
        );
        expect_all(
            format,
            vec![
                (hard_link(&item, items.join("hard")), libc::EPERM, "link"),
                (
                    mknod(&items.join("fifo"), libc::S_IFIFO | 0o644),
                    libc::EPERM,
                    "mkfifo",
                ),
                (
                    mknod(&items.join("null"), libc::S_IFCHR | 0o644),
                    libc::EPERM,
                    "mknod of a device",
                ),
                (
                    chown(&item, Some(meta.uid() + 1), None),
                    libc::EPERM,
                    "chown to another user",
                ),
                (create_dir(items.join("sub")), libc::EPERM, "mkdir"),
                (create_dir(&items), libc::EEXIST, "mkdir of a folder"),
                (remove_dir(&group), libc::EPERM, "rmdir of a view"),
                (remove_dir(&items), libc::EPERM, "rmdir of items"),
                (
                    remove_dir(items.join("missing")),
                    libc::ENOENT,
                    "rmdir of nothing",
                ),
                (remove_dir(&item), libc::ENOTDIR, "rmdir of a file"),
                (remove_file(&link), libc::EPERM, "unlink of a link"),
                (remove_file(&items), libc::EISDIR, "unlink of a folder"),
                (
                    remove_file(f.m.join(".gamefs/errors")),
                    libc::EPERM,
                    "unlink of a status file",
                ),
                (
                    write(f.m.join(".gamefs/new"), "x"),
                    libc::EPERM,
                    "a new file in .gamefs",
                ),
                (setxattr(&item), libc::ENOTSUP, "setxattr"),
                (getxattr(&item).map(drop), libc::ENOTSUP, "getxattr"),
                (listxattr(&item).map(drop), libc::ENOTSUP, "listxattr"),
                (
                    symlink("x", items.join("sym")),
                    libc::EEXIST,
                    "symlink onto a name",
                ),
            ],
        );
        // What is allowed: chown to the owner, a regular file by mknod, chmod (of an item it
        // is accepted and changes nothing: editors chmod after saving).
        chown(&item, Some(meta.uid()), Some(meta.gid())).unwrap();
        mknod(&items.join("plain"), libc::S_IFREG | 0o600).unwrap();
        assert!(std::fs::metadata(items.join("plain")).unwrap().is_file());
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o777;
        std::fs::set_permissions(&item, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(mode(&item), 0o644);
        let plain = items.join("plain");
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(mode(&plain), 0o640);
        assert!(
            state == f.db_state(),
            "{format:?}: nothing reached the database"
        );
        if format != Format::Go {
            remove_file(f.item(3)).unwrap();
            let deleted = first_entry(&f.m.join(".deleted"));
            assert_eq!(mode(&deleted), 0o444);
            expect_all(
                format,
                vec![
                    (
                        OpenOptions::new().write(true).open(&deleted).map(drop),
                        libc::EACCES,
                        "editing a deleted game",
                    ),
                    (remove_file(&deleted), libc::EPERM, "rm in .deleted"),
                ],
            );
        }
    }
}

#[test]
fn a_read_only_mount_refuses_every_change_with_erofs() {
    use std::fs::{create_dir, hard_link, remove_dir, remove_file, rename};
    use std::os::unix::fs::{chown, symlink};
    for format in FORMATS {
        let f = Fixture::new(format, &["-o", "ro"]);
        let state = f.db_state();
        let items = f.items();
        let item = f.item(0);
        let (group, link) = f.view_link();
        let write = |truncate: bool| {
            OpenOptions::new()
                .write(true)
                .truncate(truncate)
                .open(&item)
                .map(drop)
        };
        let chmod = std::fs::set_permissions(&item, std::fs::Permissions::from_mode(0o600));
        let rofs = libc::EROFS;
        expect_all(
            format,
            vec![
                (excl(&items.join("new.txt")).map(drop), rofs, "create"),
                (write(false), rofs, "open for writing"),
                (write(true), rofs, "O_TRUNC"),
                (truncate(&item, 0), rofs, "truncate"),
                (remove_file(&item), rofs, "unlink"),
                (remove_file(&link), rofs, "unlink of a link"),
                (rename(&item, items.join("x")), rofs, "rename"),
                (create_dir(items.join("d")), rofs, "mkdir"),
                (remove_dir(&group), rofs, "rmdir"),
                (symlink("x", items.join("s")), rofs, "symlink"),
                (hard_link(&item, items.join("h")), rofs, "link"),
                (
                    mknod(&items.join("n"), libc::S_IFREG | 0o644),
                    rofs,
                    "mknod",
                ),
                (chmod, rofs, "chmod"),
                (chown(&item, Some(0), None), rofs, "chown"),
                (
                    utimens(&item, None, Some(SystemTime::now())),
                    rofs,
                    "utimensat",
                ),
                (setxattr(&item), rofs, "setxattr"),
            ],
        );
        // Modes say so, and every file reads.
        assert_eq!(std::fs::metadata(&item).unwrap().mode() & 0o777, 0o444);
        assert_eq!(std::fs::metadata(&items).unwrap().mode() & 0o777, 0o555);
        sh(&f.m.path, "find -L . -type f -exec cat {} + > /dev/null");
        let Fixture { m, .. } = f;
        drop(m);
        // Bytes and modification times of the database files are as they were.
        let after: Vec<_> = state
            .iter()
            .map(|(p, ..)| {
                (
                    p.clone(),
                    std::fs::read(p).unwrap(),
                    std::fs::metadata(p).unwrap().modified().unwrap(),
                )
            })
            .collect();
        assert!(state == after, "{format:?}: a read-only mount never writes");
    }
}

#[test]
fn owner_modes_and_access_options() {
    let mount_options = |m: &Mount| {
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
        mounts
            .lines()
            .find(|l| l.split(' ').nth(1) == m.path.to_str())
            .map(|l| l.split(' ').nth(3).unwrap().to_owned())
            .expect("listed in /proc/self/mounts")
    };
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        // SAFETY: getuid/getgid have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        for p in [f.m.path.clone(), f.items(), f.item(0), f.view_link().1] {
            let m = std::fs::symlink_metadata(&p).unwrap();
            assert_eq!((m.uid(), m.gid()), (uid, gid), "{p:?}");
            let want = if m.is_dir() {
                0o755
            } else if m.is_symlink() {
                0o777
            } else {
                0o644
            };
            assert_eq!(m.mode() & 0o777, want, "{p:?}");
        }
        let options = mount_options(&f.m);
        assert!(
            !options.contains("allow_other") && !options.contains("default_permissions"),
            "{format:?}: {options}"
        );
    }
    let f = Fixture::new(Format::Scid, &["-o", "allow_other"]);
    let options = mount_options(&f.m);
    assert!(
        options.contains("allow_other") && options.contains("default_permissions"),
        "{options}"
    );
}

#[test]
fn flushes_from_forked_processes_lose_nothing() {
    for format in FORMATS {
        let f = Fixture::new(format, &[]);
        let before = f.item_files().len();
        // Every process started while the file is open gets a copy of its descriptor, and
        // closes it at exec: a FLUSH in the middle of the writes.
        let (parts, expected): (Vec<String>, usize) = match format {
            Format::Go => {
                let t = f.new_text();
                let third = t.len() / 3;
                (
                    vec![
                        t[..third].into(),
                        t[third..2 * third].into(),
                        t[2 * third..].into(),
                    ],
                    1,
                )
            }
            _ => (
                (0..30)
                    .map(|i| {
                        NEW_GAME.replacen("[Round \"1\"]", &format!("[Round \"{}\"]", i + 1), 1)
                            + "\n"
                    })
                    .collect(),
                30,
            ),
        };
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::process::Command::new("true").status();
                }
            });
            let mut file = excl(&f.items().join(format!("forked.{}", f.ext()))).unwrap();
            for part in &parts {
                file.write_all(part.as_bytes()).unwrap();
                std::thread::sleep(Duration::from_millis(5));
            }
            let closed = close(file);
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            closed.unwrap();
        });
        assert_eq!(
            f.item_files().len(),
            before + expected,
            "{format:?}: every game once"
        );
        let errors = std::fs::read_to_string(f.m.join(".gamefs/errors")).unwrap();
        assert!(
            !errors.contains("forked"),
            "{format:?}: no half-written text was saved (and refused):\n{errors}"
        );
    }
}
