//! A real S3-compatible object store for the remote mounts: Garage (crates.io's `garage`,
//! installed by contrib/dev/setup test) run as a cluster of three nodes on loopback, with one
//! bucket and one key, started by the test and stopped on drop.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use object_store::{ObjectStore, ObjectStoreExt};

use crate::harness::{Server, free_port, run_with_timeout};

/// The access key of the tests (Garage's key ids are GK and 24 hex digits).
pub(crate) const KEY_ID: &str = "GK0123456789abcdef01234567";
/// Its secret (64 hex digits).
pub(crate) const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/// The bucket of the tests.
pub(crate) const BUCKET: &str = "games";
/// The region Garage answers for.
pub(crate) const REGION: &str = "garage";

/// One node: its folder, its ports, and its process while it runs.
struct Node {
    dir: PathBuf,
    s3_port: u16,
    rpc_port: u16,
    server: Option<Server>,
}

/// A Garage cluster of three nodes.
pub(crate) struct Garage {
    nodes: Vec<Node>,
    region: String,
    buckets: Vec<String>,
}

/// How a cluster is set up beyond the defaults of [`Garage::start`].
pub(crate) struct Setup<'a> {
    /// The region the cluster answers for.
    pub(crate) region: &'a str,
    /// Node 0's S3 port, when an example names it (otherwise a free one).
    pub(crate) s3_port: Option<u16>,
    /// The buckets, each readable and writable by [`KEY_ID`].
    pub(crate) buckets: &'a [&'a str],
}

/// The garage program, if installed.
fn program() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let candidates = [
        home.map(|h| h.join(".cargo/bin/garage")),
        Some(PathBuf::from("/usr/local/bin/garage")),
        Some(PathBuf::from("/usr/bin/garage")),
    ];
    candidates.into_iter().flatten().find(|p| p.exists())
}

impl Garage {
    /// Start a cluster of three in `dir`, with [`BUCKET`] readable and writable by [`KEY_ID`];
    /// `None` (said) when garage is not installed and this is not root (root's run must have
    /// it: contrib/dev/setup test installs it).
    pub(crate) fn start(dir: &Path) -> Option<Garage> {
        Garage::start_with(
            dir,
            &Setup {
                region: REGION,
                s3_port: None,
                buckets: &[BUCKET],
            },
        )
    }

    /// Start a cluster of three in `dir` as `setup` says.
    pub(crate) fn start_with(dir: &Path, setup: &Setup) -> Option<Garage> {
        let Some(_) = program() else {
            // SAFETY: geteuid cannot fail.
            let root = unsafe { libc::geteuid() } == 0;
            assert!(
                !root,
                "garage missing: run contrib/dev/setup test (cargo install garage)"
            );
            eprintln!("skipped: garage is not installed (contrib/dev/setup test)");
            return None;
        };
        let mut g = Garage {
            nodes: Vec::new(),
            region: setup.region.to_owned(),
            buckets: setup.buckets.iter().map(|b| b.to_string()).collect(),
        };
        for i in 0..3 {
            let node = dir.join(format!("node{i}"));
            std::fs::create_dir_all(&node).unwrap();
            g.nodes.push(Node {
                dir: node,
                s3_port: setup.s3_port.filter(|_| i == 0).unwrap_or_else(free_port),
                rpc_port: free_port(),
                server: None,
            });
        }
        for i in 0..3 {
            g.write_config(i);
            g.start_node(i);
        }
        let ids: Vec<String> = (0..3)
            .map(|i| g.cli(i, &["node", "id", "-q"]).trim().to_owned())
            .collect();
        for id in &ids[1..] {
            g.cli(0, &["node", "connect", id]);
        }
        for id in &ids {
            let short = id.split('@').next().unwrap();
            g.cli(0, &["layout", "assign", "-z", "dc1", "-c", "1G", short]);
        }
        g.cli(0, &["layout", "apply", "--version", "1"]);
        g.cli(
            0,
            &["key", "import", "--yes", "-n", "gamefs", KEY_ID, SECRET],
        );
        for bucket in setup.buckets {
            g.cli(0, &["bucket", "create", bucket]);
            g.cli(
                0,
                &[
                    "bucket", "allow", "--read", "--write", "--owner", bucket, "--key", "gamefs",
                ],
            );
        }
        // The cluster answers once every node has its layout.
        let start = std::time::Instant::now();
        while g
            .try_put(setup.buckets[0], "ready", b"ok".to_vec())
            .is_err()
        {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "the garage cluster did not take a put in 60 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        Some(g)
    }

    fn write_config(&self, i: usize) {
        let n = &self.nodes[i];
        let config = format!(
            r#"metadata_dir = "{dir}/meta"
data_dir = "{dir}/data"
db_engine = "sqlite"
replication_factor = 3
rpc_bind_addr = "127.0.0.1:{rpc}"
rpc_public_addr = "127.0.0.1:{rpc}"
rpc_secret = "{secret}"

[s3_api]
s3_region = "{region}"
api_bind_addr = "127.0.0.1:{s3}"
root_domain = ".s3.garage.localhost"
"#,
            dir = n.dir.display(),
            rpc = n.rpc_port,
            s3 = n.s3_port,
            secret = "c3ea8cb80333d04e208d136698b1a01ae370d463f0d435ab2177510b3478bf44",
            region = self.region,
        );
        std::fs::write(n.dir.join("garage.toml"), config).unwrap();
    }

    /// Start node `i` (again, after [`Garage::stop_node`]).
    pub(crate) fn start_node(&mut self, i: usize) {
        let n = &self.nodes[i];
        let mut cmd = Command::new(program().unwrap());
        cmd.arg("-c")
            .arg(n.dir.join("garage.toml"))
            .arg("server")
            .env("RUST_LOG", "warn");
        let server = Server::start(&mut cmd, n.s3_port, &n.dir.join("log"));
        self.nodes[i].server = Some(server);
    }

    /// Stop node `i` (its S3 endpoint then refuses connections).
    pub(crate) fn stop_node(&mut self, i: usize) {
        self.nodes[i].server = None;
    }

    /// Run the garage command line against node `i`; its output.
    fn cli(&self, i: usize, args: &[&str]) -> String {
        let mut cmd = Command::new(program().unwrap());
        cmd.arg("-c")
            .arg(self.nodes[i].dir.join("garage.toml"))
            .args(args);
        let out = run_with_timeout(&mut cmd, std::time::Duration::from_secs(60));
        assert!(
            out.status.success(),
            "garage {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The S3 endpoint of node `i`.
    pub(crate) fn endpoint(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}", self.nodes[i].s3_port)
    }

    /// The environment a client of node 0 needs (credentials, endpoint, region).
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", KEY_ID.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.to_owned()),
            ("AWS_ENDPOINT_URL", self.endpoint(0)),
            ("AWS_REGION", self.region.clone()),
        ]
    }

    fn client(&self, bucket: &str) -> Arc<dyn ObjectStore> {
        Arc::new(
            object_store::aws::AmazonS3Builder::new()
                .with_bucket_name(bucket)
                .with_region(&self.region)
                .with_endpoint(self.endpoint(0))
                .with_allow_http(true)
                .with_access_key_id(KEY_ID)
                .with_secret_access_key(SECRET)
                .build()
                .unwrap(),
        )
    }

    fn try_put(&self, bucket: &str, key: &str, bytes: Vec<u8>) -> Result<(), object_store::Error> {
        let store = self.client(bucket);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(store.put(&object_store::path::Path::from(key), bytes.into()))
            .map(drop)
    }

    /// Store `bytes` as object `key` of the (first) bucket.
    pub(crate) fn put(&self, key: &str, bytes: Vec<u8>) {
        self.try_put(&self.buckets[0], key, bytes).unwrap();
    }

    /// Store `bytes` as object `key` of `bucket`.
    pub(crate) fn put_in(&self, bucket: &str, key: &str, bytes: Vec<u8>) {
        self.try_put(bucket, key, bytes).unwrap();
    }

    /// The keys of the bucket under `prefix`.
    pub(crate) fn keys(&self, prefix: &str) -> Vec<String> {
        let store = self.client(&self.buckets[0]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let listed = rt
            .block_on(store.list_with_delimiter(Some(&object_store::path::Path::from(prefix))))
            .unwrap();
        listed
            .objects
            .into_iter()
            .map(|o| o.location.to_string())
            .collect()
    }
}
