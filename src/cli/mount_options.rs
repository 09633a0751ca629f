//! Every `-o` word of `gamefs mount` (and of mount(8), fstab and `gamefs demo`), defined once.
//!
//! [`MOUNT_OPTIONS`] is the one source of the parser ([`parse`]), the `-o` help text (and so
//! the man page and completions, which clap generates from it), the error for an unknown
//! word, and the kernel options handed to [`gamefs::fuse`]: a word added here is parsed,
//! documented and passed on everywhere at once.

use std::path::PathBuf;

use gamefs::fuse::{Access, KernelOption};
use gamefs::store::GoFiles;
use gamefs::store::blob::RemoteSettings;

/// One `-o` word: how it is written, what it does, and its help.
pub(crate) struct MountWord {
    /// The word, or the key before `=` for words that take a value.
    pub word: &'static str,
    /// How it is written: alone, with `=VALUE`, or as any word starting with it.
    pub form: Form,
    /// What it does.
    pub effect: Effect,
    /// One line of help (empty for fstab words, which are listed together).
    pub help: &'static str,
}

/// How a `-o` word is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// The word alone (`ro`).
    Flag,
    /// `word=VALUE`; the field names the value in the help (`cache_mb=N`).
    Value(&'static str),
    /// Any word starting with it (`x-systemd.automount`).
    Prefix,
}

/// What a `-o` word does.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Mount read-only.
    ReadOnly,
    /// Mount read-write, with no falling back to read-only.
    ReadWrite,
    /// Store what a format cannot hold as closely as it can.
    Lossy,
    /// A copied file with a game that cannot be stored imports nothing.
    Strict,
    /// Every user may use the mount (the kernel then checks permissions).
    AllowOther,
    /// The owner and root may use the mount.
    AllowRoot,
    /// Passed to the kernel as it is.
    Kernel(KernelOption),
    /// The source shown in /proc/mounts.
    FsName,
    /// The rendered-text cache, in MiB.
    CacheMb,
    /// Learn game sizes only when asked.
    LazySizes,
    /// How deep `tree/` has move folders.
    TreeDepth,
    /// Whether `tree/` and `positions/` are built (`tree=off`: no position index).
    Tree,
    /// The most the cache folder's kept indexes take.
    CacheMax,
    /// Read by the logging setup before mounting (`log_file=`, `log_level=`).
    Logging,
    /// A folder mounted as one: the database new games go to.
    Into,
    /// A 9x9 Go database's positions file.
    GoPositions,
    /// A 9x9 Go database's zobrist table.
    GoZobrist,
    /// A 9x9 Go database's scored file (repeatable).
    GoScored,
    /// How a remote object is reached or cached (`endpoint=`, `profile=`, …).
    Remote(RemoteWord),
    /// A word of mount(8) or fstab that means nothing to a FUSE mount.
    Ignored,
}

/// A `-o` word about remote objects (`s3://`, `https://`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RemoteWord {
    /// The S3 endpoint URL.
    Endpoint,
    /// The S3 region.
    Region,
    /// The profile of ~/.aws/config and ~/.aws/credentials.
    Profile,
    /// Where fetched blocks are kept.
    CacheDir,
    /// The most the kept blocks take, in MiB.
    DiskCacheMb,
    /// Where indexes are shared for every machine.
    IndexPrefix,
    /// How long a request is tried again.
    RetrySecs,
}

/// Every `-o` word gamefs takes; anything else is an error.
pub(crate) const MOUNT_OPTIONS: &[MountWord] = &[
    flag("ro", Effect::ReadOnly, "mount read-only"),
    flag(
        "rw",
        Effect::ReadWrite,
        "mount read-write (fail rather than fall back to read-only)",
    ),
    flag(
        "lossy",
        Effect::Lossy,
        "Simple Chess Database: keep what it cannot hold as near as it can (logged)",
    ),
    flag(
        "strict",
        Effect::Strict,
        "a copied PGN file with a game that cannot be stored imports nothing",
    ),
    flag(
        "allow_other",
        Effect::AllowOther,
        "every user may use the mount",
    ),
    flag(
        "allow_root",
        Effect::AllowRoot,
        "the owner and root may use the mount",
    ),
    kernel(
        "default_permissions",
        KernelOption::DefaultPermissions,
        "the kernel checks permissions",
    ),
    kernel(
        "nodev",
        KernelOption::NoDev,
        "no device files (the default)",
    ),
    kernel("dev", KernelOption::Dev, "device files allowed"),
    kernel(
        "nosuid",
        KernelOption::NoSuid,
        "set-user-ID bits ignored (the default)",
    ),
    kernel("suid", KernelOption::Suid, "set-user-ID bits honoured"),
    kernel(
        "noexec",
        KernelOption::NoExec,
        "no programs run from the mount",
    ),
    kernel(
        "exec",
        KernelOption::Exec,
        "programs may run from the mount",
    ),
    kernel("noatime", KernelOption::NoAtime, "access times not updated"),
    kernel("atime", KernelOption::Atime, "access times updated"),
    kernel("sync", KernelOption::Sync, "writes are synchronous"),
    kernel("async", KernelOption::Async, "writes are asynchronous"),
    kernel(
        "dirsync",
        KernelOption::DirSync,
        "directory changes are synchronous",
    ),
    value(
        "fsname",
        "NAME",
        Effect::FsName,
        "the source shown in /proc/mounts",
    ),
    value(
        "cache_mb",
        "N",
        Effect::CacheMb,
        "memory for rendered game text, in MiB (default 64)",
    ),
    flag(
        "lazy_sizes",
        Effect::LazySizes,
        "learn a game's size when asked, not on every core right after mounting",
    ),
    value(
        "tree_depth",
        "N",
        Effect::TreeDepth,
        "tree/ has a folder per move down to N plies (default 40)",
    ),
    value(
        "tree",
        "on|off",
        Effect::Tree,
        "off: no tree/, positions/ nor endings/, and no position index built or kept (default on)",
    ),
    value(
        "cache_max",
        "SIZE",
        Effect::CacheMax,
        "the most the kept indexes and unpacked archives of ~/.cache/gamefs take (500M, 20G; default 10G): the least recently used go first",
    ),
    value("log_file", "FILE", Effect::Logging, "write the log to FILE"),
    value(
        "log_level",
        "LEVEL",
        Effect::Logging,
        "error, warn, info, debug or trace",
    ),
    value(
        "into",
        "NAME",
        Effect::Into,
        "a folder of databases mounted as one: new games go to database NAME",
    ),
    value(
        "positions",
        "FILE",
        Effect::GoPositions,
        "9x9 Go: the positions file, when not beside the others",
    ),
    value(
        "zobrist",
        "FILE",
        Effect::GoZobrist,
        "9x9 Go: the zobrist table",
    ),
    value(
        "scored",
        "FILE",
        Effect::GoScored,
        "9x9 Go: a scored file (repeatable)",
    ),
    value(
        "endpoint",
        "URL",
        Effect::Remote(RemoteWord::Endpoint),
        "s3://: the S3 server (Ceph RGW, MinIO, Garage; default AWS_ENDPOINT_URL, the profile's, or AWS)",
    ),
    value(
        "region",
        "NAME",
        Effect::Remote(RemoteWord::Region),
        "s3://: the region (default AWS_REGION, the profile's, or us-east-1)",
    ),
    value(
        "profile",
        "NAME",
        Effect::Remote(RemoteWord::Profile),
        "s3://: the profile of ~/.aws/config and ~/.aws/credentials (default AWS_PROFILE, or default)",
    ),
    value(
        "cache_dir",
        "DIR",
        Effect::Remote(RemoteWord::CacheDir),
        "s3:// and https://: where fetched blocks are kept (default ~/.cache/gamefs/remote)",
    ),
    value(
        "disk_cache_mb",
        "N",
        Effect::Remote(RemoteWord::DiskCacheMb),
        "s3:// and https://: the most the kept blocks take on disk, in MiB (default 1024; 0: none)",
    ),
    value(
        "index_prefix",
        "s3://BUCKET/PREFIX/",
        Effect::Remote(RemoteWord::IndexPrefix),
        "s3:// and https://: share indexes there, not beside each object",
    ),
    value(
        "retry_secs",
        "N",
        Effect::Remote(RemoteWord::RetrySecs),
        "s3:// and https://: a read the server does not answer fails after N seconds of retries (default 20)",
    ),
    ignored("defaults"),
    ignored("auto"),
    ignored("noauto"),
    ignored("user"),
    ignored("nouser"),
    ignored("users"),
    ignored("_netdev"),
    ignored("nofail"),
    ignored("relatime"),
    ignored("norelatime"),
    ignored("strictatime"),
    ignored("lazytime"),
    ignored("nolazytime"),
    ignored("foreground"),
    MountWord {
        word: "comment",
        form: Form::Value("TEXT"),
        effect: Effect::Ignored,
        help: "",
    },
    MountWord {
        word: "x-",
        form: Form::Prefix,
        effect: Effect::Ignored,
        help: "",
    },
];

const fn flag(word: &'static str, effect: Effect, help: &'static str) -> MountWord {
    MountWord {
        word,
        form: Form::Flag,
        effect,
        help,
    }
}

const fn kernel(word: &'static str, option: KernelOption, help: &'static str) -> MountWord {
    flag(word, Effect::Kernel(option), help)
}

const fn value(
    word: &'static str,
    name: &'static str,
    effect: Effect,
    help: &'static str,
) -> MountWord {
    MountWord {
        word,
        form: Form::Value(name),
        effect,
        help,
    }
}

const fn ignored(word: &'static str) -> MountWord {
    flag(word, Effect::Ignored, "")
}

impl MountWord {
    /// How the word is written in help and errors: `ro`, `cache_mb=N`, `x-*`.
    pub(crate) fn spelled(&self) -> String {
        match self.form {
            Form::Flag => self.word.to_owned(),
            Form::Value(name) => format!("{}={name}", self.word),
            Form::Prefix => format!("{}*", self.word),
        }
    }

    /// The value `item` gives this word: `Some("")` for a flag written alone, the text after
    /// `=` (or the whole word, for a prefix), None if `item` is another word.
    fn value_in<'a>(&self, item: &'a str) -> Option<&'a str> {
        match self.form {
            Form::Flag => (item == self.word).then_some(""),
            Form::Value(_) => item.strip_prefix(self.word)?.strip_prefix('='),
            Form::Prefix => item.starts_with(self.word).then_some(item),
        }
    }
}

/// The `-o` help: every word with its meaning, then the ignored fstab words.
pub(crate) fn help() -> String {
    let mut text = String::from("Mount options, comma-separated:\n");
    for w in MOUNT_OPTIONS.iter().filter(|w| w.effect != Effect::Ignored) {
        text.push_str(&format!("  {:<20} {}\n", w.spelled(), w.help));
    }
    text.push_str(&format!(
        "mount(8) and fstab words are ignored ({}); anything else is an error.\n\
         Guide: docs/guide/mounting.md; every word: docs/guide/options.md.",
        ignored_words().join(", ")
    ));
    text
}

/// The mount(8) and fstab words that are accepted and ignored, as written in help.
pub(crate) fn ignored_words() -> Vec<String> {
    MOUNT_OPTIONS
        .iter()
        .filter(|w| w.effect == Effect::Ignored)
        .map(MountWord::spelled)
        .collect()
}

/// What `-o` and the flags ask for, parsed.
#[derive(Debug, Default)]
pub(crate) struct ParsedOptions {
    /// Kernel mount options.
    pub kernel: Vec<KernelOption>,
    /// `fsname=`: the source shown in /proc/mounts, when given.
    pub fsname: Option<String>,
    /// Who may use the mount.
    pub access: Access,
    /// Rendered-text cache budget.
    pub cache_bytes: Option<usize>,
    /// A read-only mount was asked for (`-o ro`, `--read-only`).
    pub read_only: bool,
    /// A read-write mount was asked for explicitly (`-o rw`): no falling back to read-only.
    pub explicit_rw: bool,
    /// `-o lossy`: store what the format cannot hold as closely as it can (logged).
    pub lossy: bool,
    /// `-o strict`: a copied file with a game that cannot be stored imports nothing.
    pub strict: bool,
    /// `-o lazy_sizes`: no learning of every game's size in the background.
    pub lazy_sizes: bool,
    /// `-o tree_depth=N`: how many plies deep `tree/` has move folders.
    pub tree_depth: Option<u32>,
    /// `-o tree=off`: no position index, no `tree/` nor `positions/`.
    pub tree_off: bool,
    /// `-o cache_max=SIZE`: the most the cache folder's kept indexes and unpacked archives
    /// take, in bytes.
    pub cache_max: Option<u64>,
    /// `-o into=NAME`: a folder mounted as one stores new games in its database NAME.
    pub into: Option<String>,
    /// `-o positions=`, `-o zobrist=`, `-o scored=`: a Go database's files, named.
    pub go_files: GoFiles,
    /// `-o endpoint=`, `-o profile=`, `-o cache_dir=`, …: how remote objects are reached
    /// and cached.
    pub remote: RemoteSettings,
}

/// The `-o` words of `lists` (each comma-separated), in order.
fn words(lists: &[String]) -> impl Iterator<Item = &str> {
    lists
        .iter()
        .flat_map(|o| o.split(','))
        .filter(|s| !s.is_empty())
}

/// The value of a `key=value` word of `lists`, if given (the last one wins).
pub(crate) fn value_of<'a>(lists: &'a [String], key: &str) -> Option<&'a str> {
    words(lists)
        .filter_map(|item| item.strip_prefix(key)?.strip_prefix('='))
        .last()
}

/// Parse `-o` lists into what they ask for; an unknown word or a bad value is an error that
/// lists the words gamefs takes.
pub(crate) fn parse(lists: &[String], read_only_flag: bool) -> Result<ParsedOptions, String> {
    let mut p = ParsedOptions::default();
    for item in words(lists) {
        let Some((word, value)) = MOUNT_OPTIONS
            .iter()
            .find_map(|w| Some((w, w.value_in(item)?)))
        else {
            let known: Vec<String> = MOUNT_OPTIONS
                .iter()
                .filter(|w| w.effect != Effect::Ignored)
                .map(MountWord::spelled)
                .collect();
            return Err(format!(
                "unknown mount option {item:?} (gamefs takes {}; fstab words such as noauto, \
                 nofail, _netdev and x-* are ignored; docs/guide/options.md explains each)",
                known.join(", ")
            ));
        };
        match word.effect {
            Effect::ReadOnly => p.read_only = true,
            Effect::ReadWrite => p.explicit_rw = true,
            Effect::Lossy => p.lossy = true,
            Effect::Strict => p.strict = true,
            Effect::LazySizes => p.lazy_sizes = true,
            Effect::AllowOther => {
                p.access = Access::Everyone;
                p.kernel.push(KernelOption::DefaultPermissions);
            }
            Effect::AllowRoot => p.access = Access::OwnerAndRoot,
            Effect::Kernel(option) => p.kernel.push(option),
            Effect::FsName => p.fsname = Some(value.to_owned()),
            Effect::CacheMb => {
                let mb: usize = value
                    .parse()
                    .map_err(|_| format!("-o {item}: cache_mb takes a number of MiB"))?;
                p.cache_bytes = Some(mb << 20);
            }
            Effect::TreeDepth => {
                let depth: u32 = value
                    .parse()
                    .map_err(|_| format!("-o {item}: tree_depth takes a number of plies"))?;
                p.tree_depth = Some(depth);
            }
            Effect::Tree => {
                p.tree_off = match value {
                    "on" | "1" | "yes" => false,
                    "off" | "0" | "no" => true,
                    _ => return Err(format!("-o {item}: tree takes on or off")),
                }
            }
            Effect::CacheMax => {
                p.cache_max = Some(gamefs::store::cache_folder::parse_size(value).ok_or_else(
                    || format!("-o {item}: cache_max takes a size (bytes, or 500M, 20G, 1T)"),
                )?)
            }
            Effect::Into => p.into = Some(value.to_owned()),
            Effect::GoPositions => p.go_files.positions = Some(PathBuf::from(value)),
            Effect::GoZobrist => p.go_files.zobrist = Some(PathBuf::from(value)),
            Effect::GoScored => p.go_files.scored.push(PathBuf::from(value)),
            Effect::Remote(w) => set_remote(&mut p.remote, w, value, item)?,
            Effect::Logging | Effect::Ignored => {}
        }
    }
    if read_only_flag {
        p.read_only = true;
    }
    if p.read_only && p.explicit_rw {
        return Err("-o ro and -o rw contradict each other".into());
    }
    Ok(p)
}

/// Set what remote word `word` (written `item`) says, with its `value`.
fn set_remote(
    r: &mut RemoteSettings,
    word: RemoteWord,
    value: &str,
    item: &str,
) -> Result<(), String> {
    let number = || {
        value
            .parse::<u64>()
            .map_err(|_| format!("-o {item}: takes a number"))
    };
    match word {
        RemoteWord::Endpoint => r.endpoint = Some(value.to_owned()),
        RemoteWord::Region => r.region = Some(value.to_owned()),
        RemoteWord::Profile => r.profile = Some(value.to_owned()),
        RemoteWord::CacheDir => r.cache_dir = Some(PathBuf::from(value)),
        RemoteWord::DiskCacheMb => r.cache_mb = number()?,
        RemoteWord::RetrySecs => r.retry_secs = number()?,
        RemoteWord::IndexPrefix => {
            if !value.starts_with("s3://") {
                return Err(format!(
                    "-o {item}: index_prefix is an s3://BUCKET/PREFIX/ to share indexes in"
                ));
            }
            r.index_prefix = Some(value.to_owned());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(list: &str) -> Result<ParsedOptions, String> {
        parse(&[list.to_owned()], false)
    }

    #[test]
    fn every_word_of_the_table_is_taken_and_appears_in_the_help() {
        let help = help();
        for w in MOUNT_OPTIONS {
            let item = match w.form {
                Form::Flag => w.word.to_owned(),
                // A value written as a URL takes one.
                Form::Value(url) if url.starts_with("s3://") => format!("{}={url}", w.word),
                Form::Value(_) => format!("{}=1", w.word),
                Form::Prefix => format!("{}something", w.word),
            };
            assert!(parsed(&item).is_ok(), "{item}");
            assert!(help.contains(&w.spelled()), "{} not in help", w.spelled());
        }
    }

    #[test]
    fn tree_and_cache_max_take_their_values() {
        assert!(parsed("tree=off").unwrap().tree_off);
        assert!(!parsed("tree=on").unwrap().tree_off);
        assert!(parsed("tree=maybe").is_err());
        assert_eq!(parsed("cache_max=20G").unwrap().cache_max, Some(20 << 30));
        assert!(parsed("cache_max=lots").is_err());
        assert_eq!(parsed("tree_depth=3").unwrap().tree_depth, Some(3));
    }

    #[test]
    fn remote_words_set_the_remote_settings() {
        let p = parsed(
            "endpoint=http://127.0.0.1:3900,region=garage,profile=team,cache_dir=/c,\
             disk_cache_mb=10,index_prefix=s3://b/idx/,retry_secs=3",
        )
        .unwrap();
        let r = p.remote;
        assert_eq!(r.endpoint.as_deref(), Some("http://127.0.0.1:3900"));
        assert_eq!(
            (r.region.as_deref(), r.profile.as_deref()),
            (Some("garage"), Some("team"))
        );
        assert_eq!(r.cache_dir, Some(PathBuf::from("/c")));
        assert_eq!((r.cache_mb, r.retry_secs), (10, 3));
        assert_eq!(r.index_prefix.as_deref(), Some("s3://b/idx/"));
        assert!(parsed("index_prefix=/local").is_err());
        assert!(parsed("disk_cache_mb=lots").is_err());
    }

    #[test]
    fn the_guide_explains_every_word() {
        // The user guide's pages (not the generated reference, which lists them all anyway).
        let guide = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide");
        let readme: String = std::fs::read_dir(guide)
            .expect("docs/guide")
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().is_some_and(|n| n != "options.md"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        for w in MOUNT_OPTIONS.iter().filter(|w| w.effect != Effect::Ignored) {
            let key = match w.form {
                Form::Value(_) => format!("{}=", w.word),
                _ => w.word.to_owned(),
            };
            assert!(
                readme.contains(&format!("`{key}")) || readme.contains(&format!("-o {key}")),
                "no page of docs/guide/ explains -o {key}"
            );
        }
    }

    #[test]
    fn an_unknown_word_is_refused_with_every_word_gamefs_takes() {
        let e = parsed("ro,nosuchword").unwrap_err();
        assert!(e.contains("\"nosuchword\""), "{e}");
        for w in MOUNT_OPTIONS.iter().filter(|w| w.effect != Effect::Ignored) {
            assert!(e.contains(&w.spelled()), "{} missing from {e}", w.spelled());
        }
    }

    #[test]
    fn words_do_what_the_table_says() {
        let p =
            parsed("ro,noexec,dev,fsname=club,cache_mb=8,allow_other,scored=a,scored=b").unwrap();
        assert!(p.read_only);
        assert_eq!(
            p.kernel,
            [
                KernelOption::NoExec,
                KernelOption::Dev,
                KernelOption::DefaultPermissions
            ]
        );
        assert_eq!(p.fsname.as_deref(), Some("club"));
        assert_eq!(p.cache_bytes, Some(8 << 20));
        assert_eq!(p.access, Access::Everyone);
        assert_eq!(p.go_files.scored.len(), 2);
        assert!(parsed("cache_mb=lots").is_err());
        assert!(parsed("ro,rw").is_err());
        assert!(parsed("noauto,x-systemd.automount,comment=x,_netdev").is_ok());
        assert_eq!(
            value_of(
                &["log_level=info".into(), "ro,log_level=debug".into()],
                "log_level"
            ),
            Some("debug")
        );
    }
}
