//! Archives mounted as the databases they hold, through the kernel, made by the real tools
//! (`zip`, `7zz`, `tar`, `xz`, `zstd`): several PGN files in one zip are one tree named after
//! its members, with the bytes each file's own mount shows; a SCID database in a zip, a zip
//! in a zip, a 7z, tar forms and a `.pgn.xz` (read in place, by its blocks) mount; a folder of zips is one tree, unpacked
//! once and at the next mount only where an archive changed, its PGN files read in the zips
//! (no copy in the cache folder); bad archives (cut short,
//! encrypted, a zip bomb, a name leaving the archive) leave out only what is bad, each member
//! named with why in `.gamefs/errors`.

use std::path::{Path, PathBuf};

use crate::harness::{Mount, demo_games, listing, repo, scid_import, scratch, sh, tools_present};

/// Each game file's name and bytes in folder `games`.
fn games(games: &Path) -> Vec<(String, Vec<u8>)> {
    listing(games)
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect()
}

/// The games of `db` mounted alone (read-only, under `dir`).
fn games_alone(db: &Path, dir: &Path) -> Vec<(String, Vec<u8>)> {
    let at = dir.join(format!(
        "alone-{}",
        db.file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&at).unwrap();
    let m = Mount::new(db, &at, &["-r"]);
    games(&m.join("games"))
}

/// `dir/src/first.pgn` (demo games 1-14) and `dir/src/later.pgn` (15-30).
fn two_pgn_files(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("first.pgn"), demo_games(1, 14)).unwrap();
    std::fs::write(src.join("later.pgn"), demo_games(15, 30)).unwrap();
    src
}

/// The tree of `archive` shows the games of `first.pgn` and `later.pgn` of `src` once each,
/// named after its member, with the bytes of the file's own mount.
fn assert_is_the_two_files(archive: &Path, src: &Path, dir: &Path) {
    let at = dir.join(format!(
        "m-{}",
        archive.file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&at).unwrap();
    let m = Mount::new(archive, &at, &[]);
    let union = games(&m.join("games"));
    let mut expected = Vec::new();
    for member in ["first", "later"] {
        for (name, bytes) in games_alone(&src.join(format!("{member}.pgn")), dir) {
            expected.push((format!("{member}--{name}"), bytes));
        }
    }
    assert_eq!(union.len(), 30, "{}", archive.display());
    assert!(
        union == expected,
        "{}: names or bytes differ",
        archive.display()
    );
    // Read-only: what is there is a copy in the cache folder.
    let first = m.join("games").join(&union[0].0);
    let e = std::fs::write(first, b"x").unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EROFS), "{e}");
}

#[test]
fn several_pgn_files_in_a_zip_a_7z_or_a_tar_are_one_tree_named_after_their_members() {
    if !tools_present(&["/usr/bin/zip", "/usr/bin/7zz"], "zip 7zip") {
        return;
    }
    let dir = scratch("archive-several");
    let src = two_pgn_files(dir.path());
    sh(
        &src,
        "zip -q ../games.zip first.pgn later.pgn && \
         zip -q -0 ../stored.zip first.pgn later.pgn && \
         7zz a -bd -bso0 ../games.7z first.pgn later.pgn && \
         tar cf ../games.tar first.pgn later.pgn && \
         tar czf ../games.tar.gz first.pgn later.pgn && \
         tar cJf ../games.tar.xz first.pgn later.pgn && \
         tar --zstd -cf ../games.tar.zst first.pgn later.pgn && \
         tar cjf ../games.tar.bz2 first.pgn later.pgn && \
         zip -q ../inner.zip first.pgn later.pgn && cd .. && zip -q outer.zip inner.zip",
    );
    for archive in [
        "games.zip",
        "stored.zip",
        "games.7z",
        "games.tar",
        "games.tar.gz",
        "games.tar.xz",
        "games.tar.zst",
        "games.tar.bz2",
        "outer.zip",
    ] {
        assert_is_the_two_files(&dir.path().join(archive), &src, dir.path());
    }
}

#[test]
fn a_pgn_file_compressed_by_xz_or_alone_in_a_zip_mounts_as_that_file() {
    let dir = scratch("archive-one");
    let src = two_pgn_files(dir.path());
    // xz -T0 writes a stream of several blocks (read a block at a time); plain xz one block.
    sh(
        &src,
        "xz -T2 --block-size=4096 -k -c first.pgn > ../first.pgn.xz && \
         xz -k -c later.pgn > ../later.pgn.xz && zip -q ../twic1500g.zip first.pgn",
    );
    let alone = games_alone(&src.join("first.pgn"), dir.path());
    for (archive, expected) in [
        ("first.pgn.xz", alone.clone()),
        ("twic1500g.zip", alone),
        (
            "later.pgn.xz",
            games_alone(&src.join("later.pgn"), dir.path()),
        ),
    ] {
        let at = dir.path().join(format!("m-{archive}"));
        std::fs::create_dir_all(&at).unwrap();
        let m = Mount::new(&dir.path().join(archive), &at, &[]);
        assert!(games(&m.join("games")) == expected, "{archive}");
        // Named in the stats as the user named it, not by its copy in the cache folder.
        let stats = std::fs::read_to_string(m.join(".gamefs/stats")).unwrap();
        let named = format!("database: {}\n", dir.path().join(archive).display());
        assert!(stats.starts_with(&named), "{archive}: {stats}");
    }
}

#[test]
fn a_zip_holding_a_scid_database_mounts_as_that_database() {
    if !tools_present(&["/usr/bin/zip", "/usr/games/tkscid"], "zip scid") {
        return;
    }
    let dir = scratch("archive-scid");
    let db = dir.path().join("db");
    std::fs::create_dir_all(&db).unwrap();
    scid_import(&[&repo().join("tests/data/names.pgn")], &db.join("club"));
    sh(&db, "zip -q ../club.zip club.si4 club.sn4 club.sg4");
    let expected = games_alone(&db.join("club"), dir.path());
    assert!(!expected.is_empty());
    let at = dir.path().join("m-zip");
    std::fs::create_dir_all(&at).unwrap();
    let m = Mount::new(&dir.path().join("club.zip"), &at, &[]);
    assert!(games(&m.join("games")) == expected);
}

/// The `unpacked` file of each archive unpacked in the cache folder `cache`, with its inode
/// (an unpacking writes a new one; a mount that finds it only sets its time).
fn unpackings(cache: &Path) -> Vec<(PathBuf, u64)> {
    use std::os::unix::fs::MetadataExt;
    let archives = cache.join("gamefs/archives");
    let mut found: Vec<_> = listing(&archives)
        .into_iter()
        .map(|d| d.join("unpacked"))
        .filter(|f| f.is_file())
        .map(|f| {
            let inode = std::fs::metadata(&f).unwrap().ino();
            (f, inode)
        })
        .collect();
    found.sort();
    found
}

/// The files under `dir`, at any depth.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_folder_of_zips_is_one_tree_unpacked_once_and_again_only_where_a_zip_changed() {
    if !tools_present(&["/usr/bin/zip"], "zip") {
        return;
    }
    let dir = scratch("archive-folder");
    let twic = dir.path().join("twic");
    std::fs::create_dir_all(&twic).unwrap();
    for k in 0..10 {
        let n = 1500 + k;
        std::fs::write(
            dir.path().join(format!("twic{n}.pgn")),
            demo_games(3 * k + 1, 3 * k + 3),
        )
        .unwrap();
        sh(dir.path(), &format!("zip -q twic/twic{n}g.zip twic{n}.pgn"));
    }
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let first_names = {
        let m = Mount::with_env(&twic, dir.path(), &[], &env);
        let names: Vec<String> = games(&m.join("games")).into_iter().map(|g| g.0).collect();
        assert_eq!(names.len(), 30);
        assert!(names[0].starts_with("twic1500--0001 "), "{names:?}");
        assert!(names[29].starts_with("twic1509--0003 "), "{names:?}");
        names
    };
    let before = unpackings(&cache);
    assert_eq!(before.len(), 10);
    // The PGN files are read in the zips, in place: no copy of their text in the cache folder.
    let copies: Vec<_> = files_under(&cache.join("gamefs/archives"))
        .into_iter()
        .filter(|f| f.to_string_lossy().ends_with(".pgn"))
        .collect();
    assert!(copies.is_empty(), "{copies:?}");
    std::thread::sleep(std::time::Duration::from_millis(50));
    // One zip changes (a game more), one is added.
    std::fs::write(dir.path().join("twic1503.pgn"), demo_games(10, 13)).unwrap();
    sh(
        dir.path(),
        "rm twic/twic1503g.zip && zip -q twic/twic1503g.zip twic1503.pgn && \
         cp twic/twic1500g.zip twic/twic1510g.zip",
    );
    let start = std::time::Instant::now();
    let m = Mount::with_env(&twic, dir.path(), &[], &env);
    let names: Vec<String> = games(&m.join("games")).into_iter().map(|g| g.0).collect();
    assert!(start.elapsed().as_secs() < 20);
    assert_eq!(names.len(), 34, "{names:?}");
    assert!(
        first_names
            .iter()
            .all(|n| !n.starts_with("twic1503--") || names.contains(n))
    );
    let after = unpackings(&cache);
    assert_eq!(after.len(), 11);
    let again: Vec<_> = after.iter().filter(|a| !before.contains(a)).collect();
    assert_eq!(
        again.len(),
        2,
        "only the changed and the new zip unpacked: {again:?}"
    );
}

#[test]
fn past_cache_max_an_archive_unpacked_drops_the_least_recently_used_unpacking() {
    let dir = scratch("archive-trim");
    let src = two_pgn_files(dir.path());
    sh(
        &src,
        "tar czf ../a.tar.gz first.pgn && tar czf ../b.tar.gz later.pgn",
    );
    let size = |name: &str| std::fs::metadata(src.join(name)).unwrap().len();
    // Room for either unpacking, not for both.
    let max = format!(
        "ro,cache_max={}",
        size("first.pgn").max(size("later.pgn")) * 3 / 2
    );
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let mount = |archive: &str, games_in_it: usize| {
        let m = Mount::with_env(&dir.path().join(archive), dir.path(), &["-o", &max], &env);
        assert_eq!(listing(&m.join("games")).len(), games_in_it, "{archive}");
        unpackings(&cache)
    };
    let a = mount("a.tar.gz", 14);
    assert_eq!(a.len(), 1);
    let b = mount("b.tar.gz", 16);
    assert_eq!(b.len(), 1, "a.tar.gz's unpacking dropped: {b:?}");
    assert_ne!(b[0].0, a[0].0);
    // a.tar.gz mounts again, unpacked anew (and b.tar.gz's unpacking goes).
    let again = mount("a.tar.gz", 14);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].0, a[0].0);
    assert_ne!(again[0].1, a[0].1, "unpacked anew");
}

#[test]
fn bad_archives_leave_out_only_what_is_bad_and_name_each_member_with_why() {
    if !tools_present(&["/usr/bin/zip", "/usr/bin/7zz"], "zip 7zip") {
        return;
    }
    let dir = scratch("archive-bad");
    let src = two_pgn_files(dir.path());
    let bad = dir.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    sh(
        &src,
        // Cut short in its second member: the first is whole.
        "zip -q -0 ../whole.zip first.pgn later.pgn && \
         head -c $(( $(stat -c %s first.pgn) + $(stat -c %s later.pgn) / 2 )) ../whole.zip \
           > ../bad/cut.zip && \
         zip -q -P secret ../bad/locked.zip first.pgn && \
         7zz a -bd -bso0 -psecret ../bad/locked.7z later.pgn && \
         7zz a -bd -bso0 -psecret -mhe=on ../bad/hidden.7z later.pgn && \
         head -c 100000000 /dev/zero > bomb.pgn && zip -q ../bad/bomb.zip bomb.pgn && rm bomb.pgn",
    );
    // A name that climbs out of the archive, which `zip` does not write: Python's zipfile
    // does.
    sh(
        &bad,
        "python3 -c \"import zipfile; z = zipfile.ZipFile('evil.zip', 'w'); \
         z.writestr('../evil.pgn', open('../src/later.pgn').read()); \
         z.writestr('/tmp/gamefs-evil.pgn', 'x'); z.close()\"",
    );
    let m = Mount::new(&bad, dir.path(), &[]);
    let names: Vec<String> = games(&m.join("games")).into_iter().map(|g| g.0).collect();
    // Only the cut zip's first member is whole.
    assert_eq!(names.len(), 14, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("first--")), "{names:?}");
    let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
    for said in [
        "cut.zip/later.pgn: not mounted: damaged or cut short",
        "cut.zip/the rest of the archive: not mounted: cut short",
        "locked.zip/first.pgn: not mounted: encrypted, not supported",
        "locked.7z/later.pgn: not mounted: encrypted, not supported",
        "hidden.7z: encrypted, not supported",
        "bomb.zip/bomb.pgn: not mounted: unpacks to more than 64 MiB",
        "likely zip bomb",
        "evil.zip/../evil.pgn: not mounted: its name leaves the archive",
        "evil.zip//tmp/gamefs-evil.pgn: not mounted: its name leaves the archive",
    ] {
        assert!(errors.contains(said), "{said:?} not in:\n{errors}");
    }
    assert!(!dir.path().join("evil.pgn").exists());
    assert!(!Path::new("/tmp/gamefs-evil.pgn").exists());
}

#[test]
fn an_archive_on_a_web_server_mounts_as_the_same_archive_on_disk() {
    if !tools_present(&["/usr/bin/zip", "/usr/sbin/nginx"], "zip nginx-light") {
        return;
    }
    let dir = scratch("archive-remote");
    let src = two_pgn_files(dir.path());
    let www = dir.path().join("www");
    std::fs::create_dir_all(&www).unwrap();
    sh(
        &src,
        "zip -q ../www/games.zip first.pgn later.pgn && tar cJf ../www/games.tar.xz first.pgn",
    );
    let port = crate::harness::free_port();
    let _server = crate::harness::start_nginx(
        dir.path(),
        port,
        "access_log off;",
        &format!("listen 127.0.0.1:{port};"),
    );
    for archive in ["games.zip", "games.tar.xz"] {
        let local = {
            let at = dir.path().join(format!("local-{archive}"));
            std::fs::create_dir_all(&at).unwrap();
            let m = Mount::new(&www.join(archive), &at, &[]);
            games(&m.join("games"))
        };
        assert!(!local.is_empty());
        let at = dir.path().join(format!("remote-{archive}"));
        std::fs::create_dir_all(&at).unwrap();
        let url = PathBuf::from(format!("http://127.0.0.1:{port}/{archive}"));
        let m = Mount::new(&url, &at, &[]);
        assert!(games(&m.join("games")) == local, "{archive}");
    }
}

#[test]
fn export_and_info_read_the_one_database_an_archive_holds_and_import_refuses_it() {
    if !tools_present(&["/usr/bin/zip"], "zip") {
        return;
    }
    let dir = scratch("archive-cli");
    let src = two_pgn_files(dir.path());
    sh(
        &src,
        "zip -q ../one.zip first.pgn && zip -q ../two.zip first.pgn later.pgn",
    );
    let cache = dir.path().join("cache");
    let gamefs = |args: &[&str]| {
        let mut cmd = std::process::Command::new(crate::harness::gamefs());
        cmd.env("XDG_CACHE_HOME", &cache)
            .current_dir(dir.path())
            .args(args);
        crate::harness::run_with_timeout(&mut cmd, std::time::Duration::from_secs(60))
    };
    let from_zip = gamefs(&["export", "one.zip"]);
    let from_pgn = gamefs(&["export", "src/first.pgn"]);
    assert!(from_zip.status.success(), "{from_zip:?}");
    assert!(!from_zip.stdout.is_empty() && from_zip.stdout == from_pgn.stdout);
    let two = gamefs(&["export", "two.zip"]);
    let said = String::from_utf8_lossy(&two.stderr);
    assert!(
        !two.status.success() && said.contains("holds 2 databases"),
        "{said}"
    );
    let import = gamefs(&["import", "one.zip", "src/later.pgn"]);
    let said = String::from_utf8_lossy(&import.stderr);
    assert!(
        !import.status.success() && said.contains("an archive is only read"),
        "{said}"
    );
}
