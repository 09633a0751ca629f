//! Databases in an S3-compatible bucket, mounted by URL (`s3://BUCKET/KEY`) against a real
//! Garage cluster of three on loopback: every game's bytes equal a local mount's, for PGN
//! files plain and compressed and for a SCID database; the index one mount shares in the
//! bucket serves a second mount with an empty cache; a changed object is indexed again; a
//! node stopped mid-read fails reads with EIO and serves them again when it is back; bad
//! credentials and a missing object are one clear line at mount time; SCID 5 and Simple
//! Chess Databases read as their local mounts do.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::garage::{BUCKET, Garage};
use crate::harness::{Mount, gamefs, listing, repo, run_with_timeout, scratch, sh};

/// The real-world corpus (tests/data/realworld.md) as one PGN file, in `dir`.
fn real_world_file(dir: &Path) -> PathBuf {
    sh(
        dir,
        &format!(
            "mkdir -p rw && tar -xJf {} -C rw && find rw -name '*.pgn' | LC_ALL=C sort | xargs cat > realworld.pgn",
            repo().join("tests/data/realworld.tar.xz").display()
        ),
    );
    dir.join("realworld.pgn")
}

/// Mount `url` with `garage`'s credentials, the cache in `cache` (a folder of its own: an
/// empty cache is a new machine), and `extra` arguments.
fn mount_remote(garage: &Garage, url: &str, dir: &Path, cache: &Path, extra: &[&str]) -> Mount {
    let env = garage.env();
    let mut env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, Path::new(v))).collect();
    env.push(("XDG_CACHE_HOME", cache));
    Mount::with_env(Path::new(url), dir, extra, &env)
}

/// Every game file of the mount, by name, with its bytes.
fn games_of(m: &Mount) -> Vec<(String, Vec<u8>)> {
    listing(&m.join("games"))
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

#[test]
fn pgn_files_plain_and_compressed_in_a_bucket_read_as_on_local_disk() {
    let dir = scratch("remote-pgn");
    let Some(garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    let pgn = real_world_file(dir.path());
    sh(
        dir.path(),
        "pzstd -1 -q -p 2 realworld.pgn -o rw.pgn.zst && gzip -6 -c realworld.pgn > rw.pgn.gz \
         && bzip2 -9 -c realworld.pgn > rw.pgn.bz2 && cp realworld.pgn rw.pgn",
    );
    let local = {
        let local_dir = dir.path().join("local");
        std::fs::create_dir_all(&local_dir).unwrap();
        let m = Mount::new(&pgn, &local_dir, &[]);
        games_of(&m)
    };
    assert!(local.len() > 20_000, "{} games", local.len());
    for name in ["rw.pgn", "rw.pgn.zst", "rw.pgn.gz", "rw.pgn.bz2"] {
        garage.put(
            &format!("dumps/{name}"),
            std::fs::read(dir.path().join(name)).unwrap(),
        );
        let mdir = dir.path().join(format!("m-{name}"));
        let cache = dir.path().join(format!("cache-{name}"));
        std::fs::create_dir_all(&mdir).unwrap();
        let m = mount_remote(
            &garage,
            &format!("s3://{BUCKET}/dumps/{name}"),
            &mdir,
            &cache,
            &[],
        );
        let remote = games_of(&m);
        assert_eq!(remote.len(), local.len(), "{name}");
        let texts = |g: &[(String, Vec<u8>)]| g.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>();
        assert!(
            texts(&remote) == texts(&local),
            "{name}: a game's bytes differ"
        );
        // Read-only, and said so.
        let e = std::fs::write(m.join("games/new.pgn"), b"x").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EROFS), "{name}");
        // The tree works over it as over a local file.
        let tree = std::fs::read_to_string(m.join("tree/tree.txt")).unwrap();
        assert!(tree.contains("e4"), "{name}: {tree}");
    }
}

#[test]
fn the_index_shared_in_the_bucket_serves_a_new_machine_and_a_changed_object_is_indexed_again() {
    let dir = scratch("remote-index");
    let Some(garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    let pgn = real_world_file(dir.path());
    sh(dir.path(), "pzstd -1 -q -p 2 realworld.pgn -o rw.pgn.zst");
    garage.put(
        "rw.pgn.zst",
        std::fs::read(dir.path().join("rw.pgn.zst")).unwrap(),
    );
    let url = format!("s3://{BUCKET}/rw.pgn.zst");
    let log = |name: &str| dir.path().join(format!("{name}.log"));
    let log_opt = |name: &str| format!("log_file={},log_level=info", log(name).display());
    let first = {
        let m = mount_remote(
            &garage,
            &url,
            dir.path(),
            &dir.path().join("cache-a"),
            &["-o", &log_opt("first")],
        );
        games_of(&m)
    };
    assert!(
        garage
            .keys("")
            .iter()
            .any(|k| k == "rw.pgn.zst.gamefs-index"),
        "no shared index in {:?}",
        garage.keys("")
    );
    // A second machine: an empty cache.
    let m = mount_remote(
        &garage,
        &url,
        dir.path(),
        &dir.path().join("cache-b"),
        &["-o", &log_opt("second")],
    );
    let said = std::fs::read_to_string(log("second")).unwrap();
    assert!(said.contains("using the index shared beside it"), "{said}");
    assert!(games_of(&m) == first);
    drop(m);
    // The object changes (fewer games): the shared index is of another version.
    let text = std::fs::read(&pgn).unwrap();
    let half = &text[..text.len() / 2];
    let cut = half
        .windows(8)
        .rposition(|w| w == b"\n[Event ")
        .map_or(half.len(), |p| p + 1);
    garage.put("rw.pgn.zst", zstd::encode_all(&text[..cut], 3).unwrap());
    let m = mount_remote(
        &garage,
        &url,
        dir.path(),
        &dir.path().join("cache-b"),
        &["-o", &log_opt("third")],
    );
    let games = games_of(&m);
    assert!(games.len() < first.len() && !games.is_empty());
    let joined: Vec<u8> = games.iter().flat_map(|(_, t)| t.clone()).collect();
    assert!(
        joined == text[..cut],
        "the changed object's games are its text"
    );
}

#[test]
fn a_node_stopped_mid_read_fails_reads_with_eio_and_serves_them_when_back() {
    let dir = scratch("remote-fault");
    let Some(mut garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    let pgn = real_world_file(dir.path());
    garage.put("rw.pgn", std::fs::read(&pgn).unwrap());
    // No blocks kept on disk: a read the memory does not hold goes to the server.
    let m = mount_remote(
        &garage,
        &format!("s3://{BUCKET}/rw.pgn"),
        dir.path(),
        &dir.path().join("cache"),
        &["-o", "disk_cache_mb=0,retry_secs=3,lazy_sizes"],
    );
    // The position index reads every game once, in order (the first game's text is not
    // read through the mount, so the kernel does not hold it).
    crate::harness::eventually_within("the position index", Duration::from_secs(120), || {
        std::fs::read_to_string(m.join(".gamefs/stats"))
            .is_ok_and(|s| s.contains("position_index: ready"))
    });
    // Then the twins (found in the background once the index is ready: listing them waits
    // for them), which read the games they compare, early ones too.
    listing(&m.join("twins"));
    // The last games, read through the mount, are then the blocks in memory: more than it
    // holds (16 MiB), so the first game's block is not among them.
    let names = listing(&m.join("games"));
    let first = names[0].clone();
    let mut read = 0;
    for name in names.iter().rev() {
        if read > 17 << 20 {
            break;
        }
        read += std::fs::read(name).unwrap().len();
    }
    assert!(read > 17 << 20, "the games hold {read} bytes");
    let text = std::fs::read(&pgn).unwrap();
    garage.stop_node(0);
    let start = Instant::now();
    let e = std::fs::read(&first).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the read took {:?}",
        start.elapsed()
    );
    // The rest of the mount still answers.
    assert!(m.join("games").is_dir());
    garage.start_node(0);
    // A node that listens again answers once it has rejoined its cluster; the failed block
    // is not remembered, so a read then serves the game.
    let mut again = Vec::new();
    crate::harness::eventually_within(
        "a read once the node is back",
        Duration::from_secs(60),
        || std::fs::read(&first).map(|t| again = t).is_ok(),
    );
    assert!(!again.is_empty() && text.starts_with(&again));
}

#[test]
fn bad_credentials_a_missing_object_and_a_dead_endpoint_are_one_clear_line() {
    let dir = scratch("remote-errors");
    let Some(garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    garage.put(
        "a.pgn",
        std::fs::read(repo().join("tests/data/tags.pgn")).unwrap(),
    );
    let mnt = dir.path().join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let attempt = |url: &str, env: &[(&str, String)]| {
        let mut cmd = Command::new(gamefs());
        cmd.env("XDG_CACHE_HOME", dir.path().join("cache"))
            .envs(garage.env())
            .envs(env.iter().map(|(k, v)| (*k, v.clone())))
            .args(["mount", "--foreground", "-o", "retry_secs=2", url])
            .arg(&mnt);
        let out = run_with_timeout(&mut cmd, Duration::from_secs(60));
        assert!(!out.status.success(), "{url} mounted");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = attempt(
        &format!("s3://{BUCKET}/a.pgn"),
        &[("AWS_SECRET_ACCESS_KEY", "0".repeat(64))],
    );
    assert!(said.contains("refused: check the credentials"), "{said}");
    let said = attempt(&format!("s3://{BUCKET}/nope.pgn"), &[]);
    assert!(
        said.contains("no object s3://games/nope.pgn") || said.contains("no database"),
        "{said}"
    );
    let dead = format!("http://127.0.0.1:{}", crate::harness::free_port());
    let said = attempt(
        &format!("s3://{BUCKET}/a.pgn"),
        &[("AWS_ENDPOINT_URL", dead.clone())],
    );
    assert!(said.contains("127.0.0.1"), "{said}");
}

#[test]
fn a_scid_database_in_a_bucket_is_read_as_on_local_disk_and_never_written() {
    let dir = scratch("remote-scid");
    let Some(garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    let db = crate::fixtures::edge_db();
    for ext in ["si4", "sn4", "sg4"] {
        garage.put(
            &format!("bases/edge.{ext}"),
            std::fs::read(db.with_extension(ext)).unwrap(),
        );
    }
    let local = {
        let ldir = dir.path().join("local");
        std::fs::create_dir_all(&ldir).unwrap();
        let m = Mount::new(db, &ldir, &["-o", "ro"]);
        games_of(&m)
    };
    let m = mount_remote(
        &garage,
        &format!("s3://{BUCKET}/bases/edge.si4"),
        dir.path(),
        &dir.path().join("cache"),
        &[],
    );
    assert!(games_of(&m) == local);
    drop(m);
    let mut cmd = Command::new(gamefs());
    cmd.env("XDG_CACHE_HOME", dir.path().join("cache"))
        .envs(garage.env())
        .args(["mount", "--foreground", "-o", "rw"])
        .arg(format!("s3://{BUCKET}/bases/edge.si4"))
        .arg(dir.path().join("mnt"));
    let out = run_with_timeout(&mut cmd, Duration::from_secs(60));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("object stores do not append"), "{said}");
}

#[test]
fn a_prefix_of_many_objects_mounts_as_one_tree_as_the_same_local_folder_does() {
    let dir = scratch("remote-prefix");
    let Some(garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    let folder = dir.path().join("shelf");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(repo().join("tests/data/tags.pgn"), folder.join("a.pgn")).unwrap();
    let seed = std::fs::read(repo().join("tests/data/fuzz-seed1000.pgn")).unwrap();
    std::fs::write(
        folder.join("b.pgn.zst"),
        zstd::encode_all(&seed[..], 3).unwrap(),
    )
    .unwrap();
    let db = crate::fixtures::edge_db();
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(db.with_extension(ext), folder.join(format!("edge.{ext}"))).unwrap();
    }
    for f in ["a.pgn", "b.pgn.zst", "edge.si4", "edge.sn4", "edge.sg4"] {
        garage.put(
            &format!("shelf/{f}"),
            std::fs::read(folder.join(f)).unwrap(),
        );
    }
    let local = {
        let ldir = dir.path().join("local");
        std::fs::create_dir_all(&ldir).unwrap();
        let m = Mount::new(&folder, &ldir, &["-o", "ro"]);
        games_of(&m)
    };
    assert!(
        local.iter().any(|(n, _)| n.starts_with("edge--")),
        "{}",
        local.len()
    );
    let m = mount_remote(
        &garage,
        &format!("s3://{BUCKET}/shelf/"),
        dir.path(),
        &dir.path().join("cache"),
        &[],
    );
    let remote = games_of(&m);
    assert_eq!(remote.len(), local.len());
    assert!(
        remote == local,
        "names or bytes differ from the local folder's mount"
    );
    let players = listing(&m.join("players"));
    assert!(!players.is_empty());
    drop(m);

    // An object put under the prefix appears at the next mount (a new machine: an empty
    // cache), indexed alone: the others load the indexes shared beside them.
    std::fs::copy(
        repo().join("tests/data/najdorf/najdorf.pgn"),
        folder.join("c.pgn"),
    )
    .unwrap();
    garage.put("shelf/c.pgn", std::fs::read(folder.join("c.pgn")).unwrap());
    let local = {
        let ldir = dir.path().join("local2");
        std::fs::create_dir_all(&ldir).unwrap();
        let m = Mount::new(&folder, &ldir, &["-o", "ro"]);
        games_of(&m)
    };
    assert!(local.iter().any(|(n, _)| n.starts_with("c--")));
    let log = dir.path().join("second.log");
    let m = mount_remote(
        &garage,
        &format!("s3://{BUCKET}/shelf/"),
        dir.path(),
        &dir.path().join("cache-b"),
        &["-o", &format!("log_file={},log_level=info", log.display())],
    );
    assert!(
        games_of(&m) == local,
        "names or bytes differ from the local folder's mount"
    );
    let said = std::fs::read_to_string(&log).unwrap();
    let shared = |name: &str| {
        said.contains(&format!(
            "s3://{BUCKET}/shelf/{name}: using the index shared beside it"
        ))
    };
    assert!(
        shared("a.pgn") && shared("b.pgn.zst") && !shared("c.pgn"),
        "{said}"
    );
    assert!(
        garage
            .keys("shelf")
            .iter()
            .any(|k| k == "shelf/c.pgn.gamefs-index"),
        "{:?}",
        garage.keys("shelf")
    );
}

#[test]
fn scid5_and_simple_chess_databases_in_a_bucket_read_as_on_local_disk() {
    let dir = scratch("remote-formats");
    let Some(garage) = Garage::start(&dir.path().join("garage")) else {
        return;
    };
    let data = repo().join("tests/data");
    for (folder, base, exts) in [
        ("scid5", "gen300", &["si5", "sn5", "sg5"][..]),
        (
            "simplecdb",
            "gen300",
            &["dci", "dcn", "dcs", "dce", "dcg"][..],
        ),
    ] {
        for ext in exts {
            let file = format!("{base}.{ext}");
            garage.put(
                &format!("{folder}/{file}"),
                std::fs::read(data.join(folder).join(&file)).unwrap(),
            );
        }
        let local = {
            let ldir = dir.path().join(format!("local-{folder}"));
            std::fs::create_dir_all(&ldir).unwrap();
            let m = Mount::new(
                &data.join(folder).join(format!("{base}.{}", exts[0])),
                &ldir,
                &["-o", "ro"],
            );
            games_of(&m)
        };
        assert!(local.len() >= 300, "{folder}: {} games", local.len());
        let rdir = dir.path().join(format!("remote-{folder}"));
        std::fs::create_dir_all(&rdir).unwrap();
        let m = mount_remote(
            &garage,
            &format!("s3://{BUCKET}/{folder}/{base}.{}", exts[0]),
            &rdir,
            &dir.path().join("cache"),
            &[],
        );
        assert!(
            games_of(&m) == local,
            "{folder}: a game differs from the local mount's"
        );
    }
}

/// A web server on loopback (nginx, plain HTTP on a port of its own) serving `dir/www` at
/// `rate` per connection (nginx's `limit_rate`), its access log `dir/access.log` saying of
/// each request its `Range` header and the bytes sent.
fn start_web_server(dir: &Path, port: u16, rate: &str) -> Option<crate::harness::Server> {
    if !crate::harness::tools_present(&["/usr/sbin/nginx"], "nginx-light") {
        return None;
    }
    let d = dir.display();
    Some(crate::harness::start_nginx(
        dir,
        port,
        &format!(
            "log_format ranges '$request_method $http_range $body_bytes_sent';
    access_log {d}/access.log ranges;"
        ),
        &format!("listen 127.0.0.1:{port};\n        limit_rate {rate};"),
    ))
}

/// Wait until the server at `dir` has sent the last block of the object, `len` bytes long
/// (read to know the file; an index build streams it right after), then `secs` seconds.
fn wait_after_last_block(dir: &Path, len: u64, secs: u64) {
    crate::harness::eventually_within("the last block read", Duration::from_secs(60), || {
        let log = std::fs::read_to_string(dir.join("access.log")).unwrap_or_default();
        log.contains(&format!("-{} ", len - 1))
    });
    std::thread::sleep(Duration::from_secs(secs));
}

/// The ranged GETs the server at `dir` has logged so far: where each started and the bytes
/// it sent.
fn ranges_sent(dir: &Path) -> Vec<(u64, u64)> {
    let log = std::fs::read_to_string(dir.join("access.log")).unwrap_or_default();
    log.lines()
        .filter_map(|l| l.strip_prefix("GET bytes="))
        .map(|l| {
            let (from, rest) = l.split_once('-').unwrap();
            let sent = rest.rsplit(' ').next().unwrap();
            (from.parse().unwrap(), sent.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_first_index_streams_the_object_once_and_goes_on_where_a_restarted_server_broke_off() {
    use gamefs::store::blob::remote::BLOCK_BYTES;
    let dir = scratch("remote-stream");
    let www = dir.path().join("www");
    std::fs::create_dir_all(&www).unwrap();
    let pgn = real_world_file(dir.path());
    std::fs::copy(&pgn, www.join("rw.pgn")).unwrap();
    let text = std::fs::read(&pgn).unwrap();
    let len = text.len() as u64;
    assert!(len > 16 * BLOCK_BYTES, "{len} bytes");
    // Slow enough that the index build is still streaming when the server stops: 4 s into the
    // 10 s it takes to stream the 20 MB file.
    let port = crate::harness::free_port();
    let Some(server) = start_web_server(dir.path(), port, "2m") else {
        return;
    };
    let url = format!("http://127.0.0.1:{port}/rw.pgn");
    let restarted = {
        let dir = dir.path().to_path_buf();
        std::thread::spawn(move || {
            wait_after_last_block(&dir, len, 4);
            drop(server);
            start_web_server(&dir, port, "2m").unwrap()
        })
    };
    let cache = dir.path().join("cache");
    let m = Mount::with_env(
        Path::new(&url),
        dir.path(),
        &["-o", "disk_cache_mb=0,lazy_sizes"],
        &[("XDG_CACHE_HOME", &cache)],
    );
    let _server = restarted.join().unwrap();
    // Every game is there, its bytes the file's.
    let joined: Vec<u8> = games_of(&m).into_iter().flat_map(|(_, t)| t).collect();
    assert!(joined == text, "the games are not the file's text");
    drop(m);
    // The index streamed the object in one request longer than a block (the one the first
    // server broke off is not in its log): after the restart, from where it broke off to the
    // end, not from the start.
    let sent = ranges_sent(dir.path());
    let streamed: Vec<&(u64, u64)> = sent.iter().filter(|(_, n)| *n > BLOCK_BYTES).collect();
    assert!(
        matches!(streamed[..], [&(from, n)] if from > 0 && from + n == len),
        "{sent:?}"
    );

    // A server that stays away: the mount fails in bounded time, with one line naming it.
    let port = crate::harness::free_port();
    std::fs::remove_file(dir.path().join("access.log")).unwrap();
    let server = start_web_server(dir.path(), port, "2m").unwrap();
    let mnt = dir.path().join("mnt2");
    std::fs::create_dir_all(&mnt).unwrap();
    let url = format!("http://127.0.0.1:{port}/rw.pgn");
    let stopper = {
        let dir = dir.path().to_path_buf();
        std::thread::spawn(move || {
            wait_after_last_block(&dir, len, 4);
            drop(server);
        })
    };
    let start = Instant::now();
    let out = run_with_timeout(
        Command::new(gamefs())
            .env("XDG_CACHE_HOME", dir.path().join("cache2"))
            .args([
                "mount",
                "--foreground",
                "-o",
                "disk_cache_mb=0,retry_secs=3",
            ])
            .arg(&url)
            .arg(&mnt),
        Duration::from_secs(90),
    );
    stopper.join().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "mounted: {said}");
    assert!(said.contains(&url), "{said}");
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}
