//! The ```` ```sh ```` examples of README.md and the user guide, run as written: installing with
//! cargo and as a Debian package, `mount -t fuse.gamefs` and the helper form, `findmnt`/`df`/
//! `umount -a` by type, the shared mount with `allow_other`, and mounts from a bucket (a real
//! Garage cluster) and from an HTTPS server (a real nginx with its own certificate authority).
//!
//! Each block runs verbatim in `bash -e` (a command that fails fails the test), as root, in a
//! mount namespace of its own (`unshare --mount`): what an example mounts on `/srv`, `/opt` or
//! over `/etc/hosts` (so `example.org` and `minio.lan` are this machine) is seen by nothing else,
//! and `umount -t fuse.gamefs -a` unmounts only the example's mounts. Before the block, the
//! example's [`Example::before`] makes what the page assumes a reader has (a database at
//! `~/chess/mybase`, credentials in `~/.aws`); after it, [`Example::after`] checks what the page
//! says happened (the games are there, the package is installed), and what the block printed
//! must hold [`Example::prints`]. [`every_shell_example_of_the_pages_is_run_here`] fails when a
//! page gains a block this file does not run, or loses one it does.
//!
//! The blocks install software and build the release binary, so they run in the release pass of
//! contrib/dev/test (`GAMEFS_TEST_BIN=target/release/gamefs`, as root); elsewhere the test says
//! it skipped. `GAMEFS_DOC_SHELL_ONLY=TEXT` runs only the examples whose first line holds TEXT.
//! Each script runs with `bash -x`, so a failure shows which line failed.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::garage::{self, Garage, Setup};
use crate::harness::{Server, gamefs, repo, scratch, tools_present, user_pages};

/// The servers an example talks to.
#[derive(Clone, Copy, PartialEq)]
enum Servers {
    /// None.
    None,
    /// The bucket (Garage: region us-east-1, node 0 on port 9000 as `minio.lan:9000`, the
    /// buckets `chess-archive`, `team-bases` and `games`) and `https://example.org` (nginx on
    /// 127.0.0.1:443 with a certificate of the test's own authority, which `SSL_CERT_FILE`
    /// names).
    Remote,
}

/// One ```` ```sh ```` block of a page and how it is run.
struct Example {
    /// The page.
    page: &'static str,
    /// The block's first line, which names it.
    first: &'static str,
    /// What it needs running.
    servers: Servers,
    /// Shell lines run before the block: what the page takes a reader to have.
    before: &'static str,
    /// Shell lines run instead of the block, for a block that cannot run as written (a
    /// command that runs until Ctrl-C, the test suite itself), with why in a comment; every
    /// command of the block must appear in them.
    instead: Option<&'static str>,
    /// Shell lines run after the block: what the page says it did.
    after: &'static str,
    /// Shell lines run on the way out, whatever happened (after the example's mounts are
    /// detached).
    cleanup: &'static str,
    /// Texts the block's output must hold (`$HOME` is the example's home).
    prints: &'static [&'static str],
}

/// The variables every example has: `S` (its scratch folder), `BIN` (the gamefs under test),
/// `REPO`, `HOME` (`$S/home`), `DEMO` (contrib/sample/demo.pgn), `DEMO_GAMES` (its count),
/// `KEY_ID` and `SECRET` (the bucket's key) and `R` (the remote servers' folder, holding local
/// copies of the objects they serve).
const EXAMPLES: &[Example] = &[
    Example {
        page: "README.md",
        first: "cargo install --locked --path .    # the gamefs binary, in ~/.cargo/bin",
        servers: Servers::None,
        before: "export CARGO_INSTALL_ROOT=$S/cargo-root",
        instead: None,
        after: r#"test "$("$CARGO_INSTALL_ROOT/bin/gamefs" --version)" = "$("$BIN" --version)"
command -v fusermount3"#,
        cleanup: "",
        prints: &[],
    },
    Example {
        page: "docs/guide/install.md",
        first: "cargo install --locked --path .    # the gamefs binary, in ~/.cargo/bin",
        servers: Servers::None,
        before: "export CARGO_INSTALL_ROOT=$S/cargo-root",
        instead: None,
        after: r#"test "$("$CARGO_INSTALL_ROOT/bin/gamefs" --version)" = "$("$BIN" --version)""#,
        cleanup: "",
        prints: &[],
    },
    Example {
        page: "README.md",
        first: "contrib/dev/deb                                     # or `just deb`; prints the package's path",
        servers: Servers::None,
        before: NO_PACKAGE_YET,
        instead: None,
        after: r#"dpkg-query -W -f='${Status}\n' gamefs | grep -qx 'install ok installed'
test "$(/usr/bin/gamefs --version)" = "$("$BIN" --version)""#,
        cleanup: PURGE_PACKAGE,
        prints: &["target/debian/gamefs_"],
    },
    Example {
        page: "docs/guide/install.md",
        first: "contrib/dev/deb                                     # or `just deb`; prints the package's path",
        servers: Servers::None,
        before: NO_PACKAGE_YET,
        instead: None,
        after: r#"! dpkg-query -W -f='${Status}\n' gamefs 2>/dev/null | grep -q 'ok installed'
test ! -e /usr/bin/gamefs"#,
        cleanup: PURGE_PACKAGE,
        prints: &["target/debian/gamefs_"],
    },
    Example {
        page: "README.md",
        first: "contrib/dev/demo    # build gamefs and mount a bundled sample database on ./gamefs-demo (Ctrl-C quits)",
        servers: Servers::None,
        before: "test ! -e gamefs-demo || rmdir gamefs-demo",
        instead: Some(
            r#"# contrib/dev/demo runs until Ctrl-C: run it, wait for its mount, then Ctrl-C (SIGINT
# to its process group, as a terminal sends it).
setsid contrib/dev/demo > "$S/demo.log" 2>&1 & demo=$!
start=$SECONDS
until mountpoint -q gamefs-demo; do
  kill -0 "$demo" || { cat "$S/demo.log"; exit 1; }
  [ $((SECONDS - start)) -lt 1500 ] || { cat "$S/demo.log"; exit 1; }
  sleep 0.5
done
ls gamefs-demo/games | wc -l
kill -INT -- "-$demo"
wait "$demo" || true
! mountpoint -q gamefs-demo
# contrib/dev/test is the suite this test is part of: .ci/run runs exactly it.
grep -qx 'exec contrib/dev/test' .ci/run"#,
        ),
        after: "",
        cleanup: "rmdir gamefs-demo 2>/dev/null || true",
        prints: &["30\n"],
    },
    Example {
        page: "docs/guide/remote.md",
        first: "gamefs mount s3://chess-archive/lichess/lichess_db_standard_rated_2024-01.pgn.zst ~/lichess",
        servers: Servers::Remote,
        before: r#"mkdir -p ~/.aws ~/lichess ~/najdorf ~/twic
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$KEY_ID" "$SECRET" > ~/.aws/credentials
printf '[default]\nregion = us-east-1\nendpoint_url = http://minio.lan:9000\n' > ~/.aws/config"#,
        instead: None,
        after: r#"same_games ~/lichess "$R/lichess.pgn.zst"
same_games ~/najdorf "$R/najdorf.si4"
same_games ~/twic "$R/twic1500.pgn.gz"
for m in ~/lichess ~/najdorf ~/twic; do fusermount3 -u "$m"; done"#,
        cleanup: "",
        prints: &[],
    },
    Example {
        page: "docs/guide/remote.md",
        first: "export AWS_ACCESS_KEY_ID=GK0123456789abcdef01234567 AWS_SECRET_ACCESS_KEY=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        servers: Servers::Remote,
        before: "mkdir -p ~/twic",
        instead: None,
        after: r#"same_games ~/twic "$R/twic1500.pgn"
fusermount3 -u ~/twic"#,
        cleanup: "",
        prints: &[],
    },
    Example {
        page: "docs/guide/remote.md",
        first: "gamefs mount s3://chess-archive/twic/ ~/twic",
        servers: Servers::Remote,
        before: r#"mkdir -p ~/.aws ~/twic
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$KEY_ID" "$SECRET" > ~/.aws/credentials
printf '[default]\nregion = us-east-1\nendpoint_url = http://minio.lan:9000\n' > ~/.aws/config"#,
        instead: None,
        after: r#"# Both objects under the prefix, as one tree.
test "$(ls ~/twic/games | wc -l)" = $((2 * DEMO_GAMES))
test "$(ls ~/twic/games/twic1501--* | wc -l)" = "$DEMO_GAMES"
fusermount3 -u ~/twic"#,
        cleanup: "",
        prints: &["twic1500--0006 Morphy, Paul", "twic1501--0006 Morphy, Paul"],
    },
    Example {
        page: "docs/guide/sharing.md",
        first: "gamefs mount -o allow_other /srv/chess/club /srv/gamefs/club",
        servers: Servers::None,
        before: r#"mount -t tmpfs gamefs-example /srv
mkdir -p /srv/chess/club /srv/gamefs/club
cp "$DEMO" /srv/chess/club/club.pgn
gamefs import --create -q /srv/chess/club/archive "$DEMO""#,
        instead: None,
        after: r#"# Another user (nobody) reads the games: allow_other.
n=$(setpriv --reuid=65534 --regid=65534 --clear-groups ls /srv/gamefs/club/games | wc -l)
test "$n" = $((2 * DEMO_GAMES))
fusermount3 -u /srv/gamefs/club"#,
        cleanup: "",
        prints: &[],
    },
    Example {
        page: "docs/guide/system.md",
        first: "mount -t fuse.gamefs ~/chess/mybase ~/mnt/chess -o ro,allow_other",
        servers: Servers::None,
        before: r#"mkdir -p ~/chess ~/mnt/chess
gamefs import --create -q ~/chess/mybase "$DEMO"
# gamefs in root's PATH, where contrib/dev/install puts it: mount(8) runs its helpers with
# /bin/sh's own PATH, whatever this shell's is.
mkdir "$S/usr-local-bin"
ln -s "$BIN" "$S/usr-local-bin/gamefs"
mount --bind "$S/usr-local-bin" /usr/local/bin
# And one not in PATH, in /opt.
mount -t tmpfs gamefs-example /opt
mkdir -p /opt/gamefs/bin
ln -s "$BIN" /opt/gamefs/bin/gamefs"#,
        instead: None,
        after: r#"# Two mounts on ~/mnt/chess, the second over the first, both gamefs.
test "$(findmnt -n -o FSTYPE ~/mnt/chess | sort -u)" = fuse.gamefs
test "$(findmnt -n -o TARGET ~/mnt/chess | wc -l)" = 2
test "$(ls ~/mnt/chess/games | wc -l)" = "$DEMO_GAMES"
umount ~/mnt/chess
test "$(ls ~/mnt/chess/games | wc -l)" = "$DEMO_GAMES"
umount ~/mnt/chess
! mountpoint -q ~/mnt/chess"#,
        cleanup: "",
        prints: &[],
    },
    Example {
        page: "docs/guide/system.md",
        first: "findmnt -t fuse.gamefs          # every gamefs mount and its database",
        servers: Servers::None,
        before: r#"mkdir -p ~/chess ~/mnt/chess ~/mnt/demo
gamefs import --create -q ~/chess/mybase "$DEMO"
gamefs mount ~/chess/mybase ~/mnt/chess
gamefs mount "$DEMO" ~/mnt/demo"#,
        instead: None,
        after: r#"test -z "$(findmnt -n -t fuse.gamefs)""#,
        cleanup: "",
        prints: &[
            "$HOME/mnt/chess",
            "$HOME/mnt/demo",
            "$HOME/chess/mybase",
            "contrib/sample/demo.pgn",
            "fuse.gamefs",
        ],
    },
];

/// Before a package example: this machine has no gamefs package (the example installs one
/// and the cleanup purges it, so it must not find one to purge).
const NO_PACKAGE_YET: &str = r#"! dpkg -s gamefs > /dev/null 2>&1
test ! -e /usr/bin/gamefs"#;

/// After a package example, whatever happened: the package is gone.
const PURGE_PACKAGE: &str = "apt-get purge -y -qq gamefs > /dev/null 2>&1 || true";

/// What every example's script starts with: strict mode, the namespace's name and a process
/// that keeps it alive for the test's cleanup ([`kill_namespace`]), the example's mounts
/// detached on the way out, the copies of other tests' mounts (every mount is copied into a new
/// namespace) detached at once, and `same_games`.
const PRELUDE: &str = r#"set -euo pipefail
readlink /proc/self/ns/mnt > "$S/namespace"
sleep infinity > /dev/null 2>&1 &
echo $! > "$S/holder"
on_exit() {
  umount -a -l -t fuse.gamefs 2> /dev/null || true
  eval "$CLEANUP"
}
trap on_exit EXIT
umount -a -l -t fuse.gamefs 2> /dev/null || true
# /etc/hosts of this namespace: example.org and minio.lan are this machine.
{ cat /etc/hosts; echo '127.0.0.1 example.org minio.lan'; } > "$S/hosts"
mount --bind "$S/hosts" /etc/hosts
# same_games MOUNT DB: the mount shows the games a local read-only mount of DB shows, byte for byte.
same_games() {
  local local_mount="$S/local-$RANDOM"
  mkdir -p "$local_mount"
  gamefs mount -o ro "$2" "$local_mount"
  diff <(cd "$1/games" && md5sum -- *) <(cd "$local_mount/games" && md5sum -- *)
  test "$(ls "$1/games" | wc -l)" -gt 0
  fusermount3 -u "$local_mount"
}
"#;

/// The ```` ```sh ```` blocks of `text`: each block's lines.
fn shell_blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut current, line.starts_with("```")) {
            (None, true) if line.trim_end() == "```sh" => current = Some(Vec::new()),
            (Some(_), true) => blocks.push(current.take().unwrap()),
            (Some(lines), false) => lines.push(line),
            _ => {}
        }
    }
    blocks
}

/// Every block of the pages, as (page, its lines).
fn blocks_of_pages() -> Vec<(String, Vec<String>)> {
    user_pages()
        .into_iter()
        .flat_map(|page| {
            let text = std::fs::read_to_string(repo().join(&page)).unwrap();
            shell_blocks(&text)
                .into_iter()
                .map(|lines| (page.clone(), lines.iter().map(|l| l.to_string()).collect()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The block of `example`, from its page.
fn block_of(example: &Example) -> Vec<String> {
    let found: Vec<_> = blocks_of_pages()
        .into_iter()
        .filter(|(page, lines)| {
            page == example.page && lines.first().map(String::as_str) == Some(example.first)
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{}: no single ```sh block starts with {:?}",
        example.page,
        example.first
    );
    found.into_iter().next().unwrap().1
}

/// The command of a block's line (what a shell runs: the comment left out).
fn command_of(line: &str) -> &str {
    line.split("  #").next().unwrap().trim()
}

/// Every ```` ```sh ```` block of README.md and the guide is one of [`EXAMPLES`], and every
/// example names a block of its page: a new block cannot go unrun.
#[test]
fn every_shell_example_of_the_pages_is_run_here() {
    for (page, lines) in blocks_of_pages() {
        let first = lines.first().map(String::as_str).unwrap_or("");
        let runs = EXAMPLES
            .iter()
            .filter(|e| e.page == page && e.first == first)
            .count();
        assert_eq!(
            runs, 1,
            "{page}: the ```sh block starting {first:?} has {runs} entries in EXAMPLES"
        );
    }
    for example in EXAMPLES {
        let block = block_of(example);
        if let Some(instead) = example.instead {
            for line in &block {
                assert!(
                    instead.contains(command_of(line)),
                    "{}: the lines run instead of the block leave out {line:?}",
                    example.page
                );
            }
        }
    }
}

/// The servers of [`Servers::Remote`], with the objects the examples mount and the local
/// files they must equal, while they run.
struct RemoteServers {
    _garage: Garage,
    _nginx: Server,
}

/// The keys the remote page's second example exports (and the bucket's key).
const REMOTE_REGION: &str = "us-east-1";
/// The port of `minio.lan:9000`.
const MINIO_PORT: u16 = 9000;

/// Start the bucket and the web server for the remote examples in `dir`, with their objects,
/// and keep beside them (in `dir`) the local copies `same_games` compares with.
fn start_remote(dir: &Path) -> Option<RemoteServers> {
    if !tools_present(
        &["/usr/sbin/nginx", "/usr/bin/openssl"],
        "nginx-light openssl",
    ) {
        return None;
    }
    assert!(
        std::net::TcpListener::bind(("127.0.0.1", MINIO_PORT)).is_ok(),
        "port {MINIO_PORT} (the page's minio.lan:9000) is taken on this machine"
    );
    let garage = Garage::start_with(
        &dir.join("garage"),
        &Setup {
            region: REMOTE_REGION,
            s3_port: Some(MINIO_PORT),
            buckets: &["chess-archive", "team-bases", "games"],
        },
    )?;
    let demo = std::fs::read(repo().join("contrib/sample/demo.pgn")).unwrap();
    let zst = zstd::encode_all(&demo[..], 3).unwrap();
    let gz = {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&demo).unwrap();
        e.finish().unwrap()
    };
    std::fs::write(dir.join("lichess.pgn.zst"), &zst).unwrap();
    std::fs::write(dir.join("twic1500.pgn.gz"), &gz).unwrap();
    std::fs::write(dir.join("twic1500.pgn"), &demo).unwrap();
    garage.put_in(
        "chess-archive",
        "lichess/lichess_db_standard_rated_2024-01.pgn.zst",
        zst,
    );
    garage.put_in("chess-archive", "twic/twic1500.pgn", demo.clone());
    garage.put_in("chess-archive", "twic/twic1501.pgn.gz", gz.clone());
    garage.put_in("games", "twic/twic1500.pgn", demo);
    let base = crate::fixtures::edge_db();
    for ext in ["si4", "sn4", "sg4"] {
        let bytes = std::fs::read(base.with_extension(ext)).unwrap();
        std::fs::write(dir.join(format!("najdorf.{ext}")), &bytes).unwrap();
        garage.put_in("team-bases", &format!("openings/najdorf.{ext}"), bytes);
    }
    let www = dir.join("www/twic");
    std::fs::create_dir_all(&www).unwrap();
    std::fs::write(www.join("twic1500.pgn.gz"), &gz).unwrap();
    let nginx = start_nginx(dir);
    Some(RemoteServers {
        _garage: garage,
        _nginx: nginx,
    })
}

/// `https://example.org` on 127.0.0.1:443: nginx serving `dir/www` with a certificate for
/// example.org signed by an authority made here (`dir/tls/ca.pem`).
fn start_nginx(dir: &Path) -> Server {
    let tls = dir.join("tls");
    std::fs::create_dir_all(&tls).unwrap();
    crate::harness::sh(
        &tls,
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=gamefs test authority' \
           -keyout ca.key -out ca.pem 2>/dev/null
         openssl req -newkey rsa:2048 -nodes -subj '/CN=example.org' \
           -keyout site.key -out site.csr 2>/dev/null
         printf 'subjectAltName=DNS:example.org\\nextendedKeyUsage=serverAuth\\n' > site.ext
         openssl x509 -req -in site.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
           -extfile site.ext -out site.pem 2>/dev/null",
    );
    let d = dir.display();
    crate::harness::start_nginx(
        dir,
        443,
        "access_log off;",
        &format!(
            "listen 127.0.0.1:443 ssl;
        server_name example.org;
        ssl_certificate {d}/tls/site.pem;
        ssl_certificate_key {d}/tls/site.key;"
        ),
    )
}

/// Kill every process left in the example's mount namespace, named in `dir/namespace` (a
/// daemon of an example that failed or ran out of time keeps its namespace, and its mounts,
/// alive). The kernel gives a dead namespace's number to the next one made, another test's
/// `unshare` among them, so the namespace is held open through the process `dir/holder` names
/// (the prelude's `sleep`, which lives in it) while its processes are killed; when that process
/// is gone or elsewhere, the name may already be another's and nothing is killed.
fn kill_namespace(dir: &Path) {
    let (Ok(ns), Ok(holder)) = (
        std::fs::read_to_string(dir.join("namespace")),
        std::fs::read_to_string(dir.join("holder")),
    ) else {
        return;
    };
    let (ns, holder) = (ns.trim(), format!("/proc/{}/ns/mnt", holder.trim()));
    let Ok(_held) = std::fs::File::open(&holder) else {
        return;
    };
    if std::fs::read_link(&holder)
        .unwrap_or_default()
        .to_string_lossy()
        != ns
    {
        return;
    }
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let link = std::fs::read_link(entry.path().join("ns/mnt")).unwrap_or_default();
        if link.to_string_lossy() == ns {
            // SAFETY: signalling a process of the example's own namespace, held alive by `_held`.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Run `example` in `dir`; what it printed, or a panic saying what failed.
fn run(example: &Example, dir: &Path, bin: &Path, remote: &Path) -> String {
    let home = dir.join("home");
    let tools = dir.join("bin");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(bin, tools.join("gamefs")).unwrap();
    // The pages write `sudo` for a reader who is not root; this test is root.
    if !Path::new("/usr/bin/sudo").exists() {
        std::fs::write(tools.join("sudo"), "#!/bin/sh\nexec \"$@\"\n").unwrap();
        std::fs::set_permissions(
            tools.join("sudo"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
    }
    // apt-get as a reader runs it: answering yes; waiting for another apt to finish.
    std::fs::write(
        dir.join("apt.conf"),
        "APT::Get::Assume-Yes \"true\";\nDPkg::Lock::Timeout \"600\";\n",
    )
    .unwrap();
    let block = block_of(example).join("\n");
    let script = format!(
        "{PRELUDE}\n# before\n{}\n# the page's block\n{}\n# after\n{}\n",
        example.before,
        example.instead.unwrap_or(&block),
        example.after
    );
    let demo = repo().join("contrib/sample/demo.pgn");
    let demo_games = std::fs::read_to_string(&demo)
        .unwrap()
        .matches("[Event ")
        .count();
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out_file = dir.join("output");
    let out = std::fs::File::create(&out_file).unwrap();
    let mut child = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "bash",
            "-xc",
            &script,
        ])
        .current_dir(repo())
        .env("PATH", path)
        .env("HOME", &home)
        .env("S", dir)
        .env("BIN", bin)
        .env("REPO", repo())
        .env("DEMO", &demo)
        .env("DEMO_GAMES", demo_games.to_string())
        .env("KEY_ID", garage::KEY_ID)
        .env("SECRET", garage::SECRET)
        .env("R", remote)
        .env("SSL_CERT_FILE", remote.join("tls/ca.pem"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("APT_CONFIG", dir.join("apt.conf"))
        .env("DEBIAN_FRONTEND", "noninteractive")
        .env("CLEANUP", example.cleanup)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .process_group(0)
        .spawn()
        .unwrap();
    // A release build (cargo install, contrib/dev/deb, the demo) may have to compile.
    let limit = Duration::from_secs(40 * 60);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            // The namespace first, while its holder keeps it this example's.
            kill_namespace(dir);
            // SAFETY: the process group this test started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    kill_namespace(dir);
    let printed = std::fs::read_to_string(&out_file).unwrap_or_default();
    match status {
        Some(s) if s.success() => {}
        Some(s) => panic!(
            "{}: the block starting {:?} failed ({s}); it printed:\n{printed}\nthe script:\n{script}",
            example.page, example.first
        ),
        None => panic!(
            "{}: the block starting {:?} ran over {limit:?}; it printed:\n{printed}",
            example.page, example.first
        ),
    }
    for wanted in example.prints {
        let wanted = wanted.replace("$HOME", &home.to_string_lossy());
        assert!(
            printed.contains(&wanted),
            "{}: the block starting {:?} did not print {wanted:?}; it printed:\n{printed}",
            example.page,
            example.first
        );
    }
    printed
}

/// The gamefs the examples run, when they can run here: as root, in the release pass.
fn release_pass_as_root() -> Option<PathBuf> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: the shell examples install software and mount as root");
        return None;
    }
    let release = repo().join("target/release/gamefs");
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if canonical(&gamefs()) != canonical(&release) {
        eprintln!(
            "skipped: the shell examples run in contrib/dev/test's release pass \
             (GAMEFS_TEST_BIN={})",
            release.display()
        );
        return None;
    }
    Some(release)
}

/// Every ```` ```sh ```` example of README.md and the guide runs as written and does what its
/// page says.
#[test]
fn the_shell_examples_of_the_readme_and_the_guide_run_as_written() {
    let Some(bin) = release_pass_as_root() else {
        return;
    };
    let dir = scratch("doc-shell");
    let remote_dir = dir.path().join("remote");
    std::fs::create_dir_all(&remote_dir).unwrap();
    let mut remote = None;
    for (i, example) in EXAMPLES.iter().enumerate() {
        if std::env::var("GAMEFS_DOC_SHELL_ONLY").is_ok_and(|o| !example.first.contains(&o)) {
            continue;
        }
        if example.servers == Servers::Remote && remote.is_none() {
            remote = Some(start_remote(&remote_dir));
        }
        if example.servers == Servers::Remote && matches!(remote, Some(None)) {
            continue;
        }
        let example_dir = dir.path().join(format!("{i:02}"));
        std::fs::create_dir_all(&example_dir).unwrap();
        let started = Instant::now();
        let printed = run(example, &example_dir, &bin, &remote_dir);
        eprintln!(
            "ran {} {:?} in {:.1} s; it printed:\n{printed}",
            example.page,
            example.first,
            started.elapsed().as_secs_f64()
        );
    }
}

/// The cleanup after an example that ended kills what is left of its namespace and nothing of
/// the namespace made next, which the kernel may give the same name: this once killed the
/// `unshare` of `a_mount_is_found_by_its_type`, running beside the examples.
#[test]
fn the_cleanup_after_an_example_spares_the_namespace_made_next() {
    let dir = scratch("doc-shell-cleanup");
    let example = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "bash", "-c"])
        .arg(format!("{PRELUDE}\ntrue\n"))
        .env("S", dir.path())
        .env("CLEANUP", "")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(example.status.success(), "the example: {example:?}");
    let mut next = Command::new("unshare")
        .args(["--mount", "sleep", "60"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    kill_namespace(dir.path());
    let holder = std::fs::read_to_string(dir.path().join("holder")).unwrap();
    let holder_gone = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        !Path::new(&format!("/proc/{}", holder.trim())).exists()
            || std::fs::read_to_string(format!("/proc/{}/stat", holder.trim()))
                .is_ok_and(|stat| stat.contains(") Z "))
    });
    let next_alive = next.try_wait().unwrap().is_none();
    let _ = next.kill();
    let _ = next.wait();
    assert!(
        next_alive,
        "the cleanup killed the next namespace's process"
    );
    assert!(
        holder_gone,
        "the cleanup left the example's namespace alive"
    );
}
