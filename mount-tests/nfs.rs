//! A mount exported by a real NFS server on the loopback address. The test machine's kernel
//! has no NFS server (no `nfsd` file system), so the server is NFS-Ganesha, which runs in user
//! space and whose VFS backend finds files by their kernel file handles
//! (`name_to_handle_at`, `open_by_handle_at`) as the kernel's server does. The client is
//! libnfs's (`nfs-ls`, `nfs-cat`, `nfs-cp`), which speaks NFSv4 over TCP without a mount.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{Mount, Server, free_port, listing, run_with_timeout, scratch, tools_present};

/// Where the export appears in the server's NFSv4 name space.
const PSEUDO: &str = "/club";

/// NFS-Ganesha exporting one folder as [`PSEUDO`]; stopped on drop.
struct Ganesha {
    _server: Server,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Ganesha {
    /// Export `folder` read-write (root not squashed) over NFSv4 on 127.0.0.1, with its log,
    /// pid file and recovery folders in a folder of its own, and wait until it answers.
    fn start(folder: &Path) -> Ganesha {
        let dir = scratch("ganesha");
        let d = dir.path();
        let port = free_port();
        let config = d.join("ganesha.conf");
        std::fs::write(
            &config,
            format!(
                "NFS_CORE_PARAM {{ Protocols = 4; NFS_Port = {port}; Bind_addr = 127.0.0.1;\n\
                 Enable_NLM = false; Enable_RQUOTA = false; Enable_UDP = false; }}\n\
                 NFSV4 {{ Graceless = true; RecoveryBackend = fs; RecoveryRoot = {root};\n\
                 RecoveryDir = {root}/v4recov; RecoveryOldDir = {root}/v4old;\n\
                 Only_Numeric_Owners = true; }}\n\
                 NFS_KRB5 {{ Active_krb5 = false; }}\n\
                 EXPORT {{ Export_Id = 1; Path = {folder}; Pseudo = {PSEUDO};\n\
                 Access_Type = RW; Squash = No_Root_Squash; Protocols = 4; Transports = TCP;\n\
                 SecType = sys; Filesystem_Id = 7301.7301; FSAL {{ Name = VFS; }} }}\n",
                root = d.join("recovery").display(),
                folder = folder.display(),
            ),
        )
        .unwrap();
        let server = Server::start(
            Command::new("/usr/bin/ganesha.nfsd")
                .arg("-F")
                .arg("-L")
                .arg(d.join("ganesha.log"))
                .arg("-p")
                .arg(d.join("ganesha.pid"))
                .arg("-f")
                .arg(&config),
            port,
            &d.join("stdout"),
        );
        Ganesha {
            _server: server,
            port,
            _dir: dir,
        }
    }

    /// The libnfs URL of `rel` (a path inside the export).
    fn url(&self, rel: &str) -> String {
        format!(
            "nfs://127.0.0.1{PSEUDO}/{rel}?version=4&nfsport={}",
            self.port
        )
    }

    /// Run libnfs's `tool` on `args` and the URL of `rel` (60 s limit); it must succeed.
    /// Its output.
    fn run(&self, tool: &str, args: &[&Path], rel: &str) -> Vec<u8> {
        let out = run_with_timeout(
            Command::new(tool).args(args).arg(self.url(rel)),
            Duration::from_secs(60),
        );
        assert!(
            out.status.success(),
            "{tool} {rel}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    /// The names in folder `rel`, sorted, as `nfs-ls` lists them (mode, links, owner, group
    /// and size, then the name).
    fn names(&self, rel: &str) -> Vec<String> {
        let out = String::from_utf8(self.run("/usr/bin/nfs-ls", &[], rel)).unwrap();
        let mut names: Vec<String> = out
            .lines()
            .map(|line| {
                let mut rest = line;
                for _ in 0..5 {
                    rest = rest.trim_start();
                    rest = &rest[rest.find(' ').unwrap_or(rest.len())..];
                }
                rest.strip_prefix(' ').unwrap_or(rest).to_owned()
            })
            .filter(|n| n != "." && n != "..")
            .collect();
        names.sort();
        names
    }
}

/// The names in folder `dir` of the mount, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = listing(dir)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Make the kernel forget every cached dentry and inode not in use: NFS-Ganesha then reaches
/// each file by its handle (`open_by_handle_at`), as the kernel's server does.
fn drop_caches() {
    std::fs::write("/proc/sys/vm/drop_caches", "2").expect("drop caches (needs root)");
}

#[test]
fn an_nfs_server_serves_a_mount_after_the_kernel_dropped_its_caches() {
    if !tools_present(
        &[
            "/usr/bin/ganesha.nfsd",
            "/usr/bin/nfs-ls",
            "/usr/bin/nfs-cat",
            "/usr/bin/nfs-cp",
        ],
        "nfs-ganesha nfs-ganesha-vfs libnfs-utils",
    ) {
        return;
    }
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: NFS-Ganesha's VFS backend (open_by_handle_at) needs root");
        return;
    }
    let dir = scratch("nfs");
    let db = copy_db(edge_db(), dir.path(), "db");
    let local = dir.path().join("new.pgn");
    std::fs::write(
        &local,
        "[Event \"New over NFS\"]\n[White \"Nfs, Anna\"]\n[Black \"Nfs, Bo\"]\n\
         [Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    )
    .unwrap();
    {
        let m = Mount::new(&db, dir.path(), &["-o", "allow_other"]);
        let nfs = Ganesha::start(&m.path);
        let games = listing(&m.join("games"));
        let sample: Vec<&PathBuf> = games.iter().step_by(7).collect();
        let group = listing(&m.join("players")).into_iter().next().unwrap();
        let group_rel = format!("players/{}", group.file_name().unwrap().to_str().unwrap());
        // Twice: the second time every file the server knows is reached by its handle.
        for round in 0..2 {
            assert_eq!(nfs.names("games"), names_in(&m.join("games")), "{round}");
            assert_eq!(nfs.names(&group_rel), names_in(&group), "{round}");
            for game in &sample {
                let rel = format!("games/{}", game.file_name().unwrap().to_str().unwrap());
                let text = nfs.run("/usr/bin/nfs-cat", &[], &rel);
                assert!(
                    text == std::fs::read(game).unwrap(),
                    "{rel} in round {round}"
                );
            }
            drop_caches();
        }
        // A new game copied in over NFS.
        nfs.run("/usr/bin/nfs-cp", &[&local], "games/new.pgn");
        assert!(
            names_in(&m.join("games"))
                .iter()
                .any(|n| n.contains("Nfs, Anna")),
            "the new game is in games/"
        );
        let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
        assert_eq!(errors, "");
    }
    let export = crate::save::scid_export(&db);
    assert!(
        export.contains("[White \"Nfs, Anna\"]"),
        "SCID reads the new game"
    );
}
