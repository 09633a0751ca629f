//! How remote objects are reached and cached: the endpoint, region and credentials, taken the
//! way AWS's own tools take them (`-o` options first, then the `AWS_*` environment variables,
//! then the profile of `~/.aws/config` and `~/.aws/credentials`), and the local cache.
//!
//! They are set once per process ([`configure`], by `gamefs mount` from its options) and read
//! by every remote object opened after: the stores open objects by URL alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// How remote objects are reached and cached (`-o endpoint=`, `-o region=`, `-o profile=`,
/// `-o cache_dir=`, `-o cache_mb=`, `-o index_prefix=`, `-o retry_secs=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteSettings {
    /// The S3 endpoint URL (a server other than AWS: Ceph RGW, MinIO, Garage), else
    /// `AWS_ENDPOINT_URL` or the profile's `endpoint_url`.
    pub endpoint: Option<String>,
    /// The region, else `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile's (`us-east-1` when
    /// none says).
    pub region: Option<String>,
    /// The profile of `~/.aws/config` and `~/.aws/credentials`, else `AWS_PROFILE`, else
    /// `default`. Named here, its credentials come before the environment's.
    pub profile: Option<String>,
    /// Where fetched blocks are kept (default: the user's cache folder, `remote/` in it).
    pub cache_dir: Option<PathBuf>,
    /// The most the kept blocks take, in MiB (0: none kept on disk).
    pub cache_mb: u64,
    /// Where indexes are shared for every machine: `s3://BUCKET/PREFIX/` (default: beside
    /// each object, named `KEY.gamefs-index`).
    pub index_prefix: Option<String>,
    /// How long a request is tried again (with backoff) before its read fails with an I/O
    /// error, in seconds (`-o retry_secs=`).
    pub retry_secs: u64,
}

/// The default bound of the block cache, in MiB.
pub const DEFAULT_CACHE_MB: u64 = 1024;

impl Default for RemoteSettings {
    fn default() -> RemoteSettings {
        RemoteSettings {
            endpoint: None,
            region: None,
            profile: None,
            cache_dir: None,
            cache_mb: DEFAULT_CACHE_MB,
            index_prefix: None,
            retry_secs: DEFAULT_RETRY_SECS,
        }
    }
}

/// The default of [`RemoteSettings::retry_secs`].
pub const DEFAULT_RETRY_SECS: u64 = 20;

/// The settings in force.
static SETTINGS: RwLock<Option<RemoteSettings>> = RwLock::new(None);

/// Use `settings` for every remote object opened from now on.
pub fn configure(settings: RemoteSettings) {
    *SETTINGS.write().unwrap_or_else(|e| e.into_inner()) = Some(settings);
}

/// The settings in force (the defaults until [`configure`]d).
pub fn current() -> RemoteSettings {
    SETTINGS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Where fetched blocks are kept.
pub(super) fn cache_folder(settings: &RemoteSettings) -> Option<PathBuf> {
    settings
        .cache_dir
        .clone()
        .or_else(|| crate::store::files::cache_dir().map(|d| d.join("remote")))
}

/// What an S3 client is built from, all sources weighed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct S3Access {
    pub(super) endpoint: Option<String>,
    pub(super) region: String,
    pub(super) key_id: Option<String>,
    pub(super) secret: Option<String>,
    pub(super) token: Option<String>,
}

/// The endpoint, region and credentials for S3, from `settings`, the environment `env` and
/// the profile files in `home`.
pub(super) fn s3_access(
    settings: &RemoteSettings,
    env: &dyn Fn(&str) -> Option<String>,
    home: Option<&Path>,
) -> S3Access {
    let profile_name = settings
        .profile
        .clone()
        .or_else(|| env("AWS_PROFILE"))
        .unwrap_or_else(|| "default".to_owned());
    let file = |var: &str, default: &str| {
        env(var)
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".aws").join(default)))
    };
    let config = file("AWS_CONFIG_FILE", "config")
        .map(|p| profile_section(&p, &profile_name, true))
        .unwrap_or_default();
    let credentials = file("AWS_SHARED_CREDENTIALS_FILE", "credentials")
        .map(|p| profile_section(&p, &profile_name, false))
        .unwrap_or_default();
    let from_profile = |key: &str| {
        credentials
            .get(key)
            .or_else(|| config.get(key))
            .cloned()
            .filter(|v| !v.is_empty())
    };
    let env_keys = env("AWS_ACCESS_KEY_ID").is_some() && settings.profile.is_none();
    let (key_id, secret, token) = if env_keys {
        (
            env("AWS_ACCESS_KEY_ID"),
            env("AWS_SECRET_ACCESS_KEY"),
            env("AWS_SESSION_TOKEN"),
        )
    } else {
        (
            from_profile("aws_access_key_id"),
            from_profile("aws_secret_access_key"),
            from_profile("aws_session_token"),
        )
    };
    S3Access {
        endpoint: settings
            .endpoint
            .clone()
            .or_else(|| env("AWS_ENDPOINT_URL_S3"))
            .or_else(|| env("AWS_ENDPOINT_URL"))
            .or_else(|| from_profile("endpoint_url")),
        region: settings
            .region
            .clone()
            .or_else(|| env("AWS_REGION"))
            .or_else(|| env("AWS_DEFAULT_REGION"))
            .or_else(|| from_profile("region"))
            .unwrap_or_else(|| "us-east-1".to_owned()),
        key_id,
        secret,
        token,
    }
}

/// The keys of profile `name` in the INI file at `path` (none when it or the profile is
/// missing); in the config file a profile's section is `[profile NAME]` (but `[default]`).
fn profile_section(path: &Path, name: &str, config: bool) -> HashMap<String, String> {
    let Ok(ini) = ini::Ini::load_from_file(path) else {
        return HashMap::new();
    };
    let section = if config && name != "default" {
        format!("profile {name}")
    } else {
        name.to_owned()
    };
    ini.section(Some(section))
        .map(|s| {
            s.iter()
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| vars.get(k).cloned()
    }

    #[test]
    fn credentials_come_from_options_then_the_environment_then_the_profile() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".aws")).unwrap();
        std::fs::write(
            home.path().join(".aws/credentials"),
            "[default]\naws_access_key_id = DK\naws_secret_access_key = DS\n\
             [team]\naws_access_key_id=TK\naws_secret_access_key=TS\n",
        )
        .unwrap();
        std::fs::write(
            home.path().join(".aws/config"),
            "[default]\nregion = eu-west-1\n[profile team]\nregion = garage\n\
             endpoint_url = http://127.0.0.1:3900\n",
        )
        .unwrap();
        let h = Some(home.path());
        let none = RemoteSettings::default();
        let a = s3_access(&none, &env_of(&[]), h);
        assert_eq!(
            (a.key_id.as_deref(), a.region.as_str(), a.endpoint),
            (Some("DK"), "eu-west-1", None)
        );
        let a = s3_access(&none, &env_of(&[("AWS_PROFILE", "team")]), h);
        assert_eq!(a.key_id.as_deref(), Some("TK"));
        assert_eq!(a.region, "garage");
        assert_eq!(a.endpoint.as_deref(), Some("http://127.0.0.1:3900"));
        let env = env_of(&[
            ("AWS_PROFILE", "team"),
            ("AWS_ACCESS_KEY_ID", "EK"),
            ("AWS_SECRET_ACCESS_KEY", "ES"),
            ("AWS_REGION", "r2"),
        ]);
        let a = s3_access(&none, &env, h);
        assert_eq!((a.key_id.as_deref(), a.region.as_str()), (Some("EK"), "r2"));
        let named = RemoteSettings {
            profile: Some("team".into()),
            endpoint: Some("http://10.0.0.1:1".into()),
            ..RemoteSettings::default()
        };
        let a = s3_access(&named, &env, h);
        assert_eq!(
            a.key_id.as_deref(),
            Some("TK"),
            "a named profile comes first"
        );
        assert_eq!(a.endpoint.as_deref(), Some("http://10.0.0.1:1"));
        let a = s3_access(&none, &env_of(&[]), None);
        assert_eq!((a.key_id, a.region.as_str()), (None, "us-east-1"));
    }
}
