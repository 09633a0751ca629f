//! Unpacking an archive once into the cache folder (`archives/HASH/`), and finding it there
//! at the next mount while the archive is unchanged.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::bounds::{Bounds, Budget, Stop};
use super::in_place::Placed;
use super::kind::{self, Kind};
use super::{Members, names};
use crate::error::{Error, ErrorKind, Result};
use crate::store::blob::{Blob, window};
use crate::store::{cache_folder, files};

/// How deep archives inside archives are unpacked (a zip in a zip in a zip…).
const MAX_DEPTH: u32 = 4;

/// The file that says an unpacking is whole: the archive's version, then its members read in
/// place and its problems. Its time says when it was last used (the cache folder's limit
/// drops the least recently used unpackings).
const DONE_FILE: &str = cache_folder::UNPACKED;

/// The folder in an unpacking's folder that holds the members.
const FILES: &str = "files";

/// A member left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberProblem {
    /// The member's name in its archive, with the names of the archives it is in
    /// (`outer.zip/inner.zip/games.pgn`).
    pub member: String,
    /// Why it is left out.
    pub why: String,
    /// What kind of failure it is.
    pub kind: ErrorKind,
}

impl MemberProblem {
    /// As an error, of its kind, saying why (the member is named beside it).
    pub fn to_error(&self) -> Error {
        Error::new(self.kind, self.why.clone())
    }
}

/// An archive unpacked.
#[derive(Debug)]
pub struct Unpacked {
    /// The folder its members are in.
    pub folder: PathBuf,
    /// The databases among them (each PGN file, and the index file of each SCID or Simple
    /// Chess Database), in path order. A PGN file read in place is named by the path it would
    /// have been unpacked to, which [`Blob::open`] reads from the archive.
    pub databases: Vec<PathBuf>,
    /// How many of the databases are read in place (not written into the folder).
    pub in_place: usize,
    /// The members left out.
    pub problems: Vec<MemberProblem>,
}

/// The archive at `path` (a local file or a remote object, [`Kind`] by its name) unpacked
/// into the user's cache folder, or found there from an earlier mount while the archive's
/// version is the same.
pub fn unpack(path: &Path) -> Result<Unpacked> {
    let cache = files::cache_dir().ok_or_else(|| {
        Error::new(
            ErrorKind::NotFound,
            format!(
                "{}: an archive is unpacked into the cache folder, and there is none \
                 (neither XDG_CACHE_HOME nor HOME is set)",
                path.display()
            ),
        )
    })?;
    unpack_into(path, &cache.join(cache_folder::ARCHIVES), Bounds::default())
}

/// [`unpack`] into folder `archives` (of the cache folder) within `bounds`; past the cache
/// folder's limit (`bounds.total`) once members are unpacked, the least recently used
/// unpackings and kept indexes of the other mounts go ([`cache_folder::trim`]).
pub fn unpack_into(path: &Path, archives: &Path, bounds: Bounds) -> Result<Unpacked> {
    let kind = kind::of_path(path).ok_or_else(|| {
        Error::new(
            ErrorKind::UnknownFormat,
            format!("{}: not an archive gamefs unpacks", path.display()),
        )
    })?;
    let blob = Arc::new(Blob::open(path)?);
    let v = blob.version()?;
    let version = format!("{} {} {} {}", v.len, v.mtime.0, v.mtime.1, v.etag);
    let key = files::cache_key(path).unwrap_or_else(|| path.to_path_buf());
    let hash = xxhash_rust::xxh3::xxh3_64(key.as_os_str().as_encoded_bytes());
    let dir = archives.join(format!("{hash:016x}"));
    if let Some(done) = read_done(&dir, &version) {
        log::debug!("{}: unpacked before, in {}", path.display(), dir.display());
        cache_folder::hold(&dir);
        cache_folder::mark_used(&dir.join(DONE_FILE));
        return found(&dir, done, &blob, path);
    }
    remove_abandoned(archives, hash);
    let partial = archives.join(format!("{hash:016x}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(partial.join(FILES))
        .map_err(|e| Error::io(format!("creating {}", partial.display()), e))?;
    log::info!(
        "unpacking the databases of {} into {}",
        path.display(),
        dir.display()
    );
    let mut budget = Budget::new(bounds);
    let mut problems = Vec::new();
    let mut placed = Vec::new();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let unpacked = Unpacker {
        folder: partial.join(FILES),
        prefix: String::new(),
        budget: &mut budget,
        problems: &mut problems,
        placed: &mut placed,
        depth: 0,
    }
    .archive(&blob, kind, &name);
    if let Err(e) = unpacked {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e.context(path.display()));
    }
    for p in &problems {
        log::warn!("{}: {}: {}", path.display(), p.member, p.why);
    }
    let done = Done { problems, placed };
    write_done(&partial, &version, &done)?;
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::rename(&partial, &dir) {
        // Another mount unpacked it at the same time: take its folder.
        let _ = std::fs::remove_dir_all(&partial);
        if read_done(&dir, &version).is_none() {
            return Err(Error::io(format!("keeping {}", dir.display()), e));
        }
    }
    cache_folder::hold(&dir);
    // Only an unpacking that wrote members grows the cache folder (one whose PGN files are
    // read in place writes none): trimming looks at every unpacking's files, which a folder of
    // a hundred zips would otherwise do a hundred times (0.7 s of its first mount's 1.5 s).
    if budget.used() > 0
        && let Some(cache) = archives.parent()
    {
        cache_folder::trim(cache, bounds.total, &[]);
    }
    found(&dir, done, &blob, path)
}

/// What an unpacking's done file keeps beside the archive's version.
struct Done {
    /// The members left out.
    problems: Vec<MemberProblem>,
    /// The members read in place, by their paths relative to the folder of the members.
    placed: Vec<(PathBuf, Placed)>,
}

/// Remove the unpackings of the archive of `hash` in `archives` that a process which is gone
/// left unfinished (it crashed or was killed).
fn remove_abandoned(archives: &Path, hash: u64) {
    let Ok(entries) = std::fs::read_dir(archives) else {
        return;
    };
    let prefix = format!("{hash:016x}.partial-");
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(&prefix) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// What the unpacking of `archive` (open as `blob`) in folder `dir` holds, with what its done
/// file says: the members read in place are placed where they would have been unpacked.
fn found(dir: &Path, done: Done, blob: &Arc<Blob>, archive: &Path) -> Result<Unpacked> {
    let folder = dir.join(FILES);
    let mut databases = Vec::new();
    databases_under(&folder, &mut databases);
    for (inside, placed) in &done.placed {
        let name = format!("{}: {}", archive.display(), inside.display());
        let at = folder.join(inside);
        window::place(&at, placed.window(blob, name)?);
        databases.push(at);
    }
    databases.sort();
    Ok(Unpacked {
        folder,
        databases,
        in_place: done.placed.len(),
        problems: done.problems,
    })
}

/// Add the databases under `dir` (at any depth) to `out`.
fn databases_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            databases_under(&path, out);
        } else if crate::store::database_ending(&entry.file_name().to_string_lossy()).is_some() {
            out.push(path);
        }
    }
}

/// What `dir`'s done file keeps, when it says the archive of `version` is whole there.
fn read_done(dir: &Path, version: &str) -> Option<Done> {
    let text = std::fs::read_to_string(dir.join(DONE_FILE)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != version {
        return None;
    }
    let mut done = Done {
        problems: Vec::new(),
        placed: Vec::new(),
    };
    for line in lines {
        if let Some(placed) = Placed::from_line(line) {
            done.placed.push(placed);
            continue;
        }
        let mut parts = line.splitn(3, '\t');
        let (Some(kind), Some(member), Some(why)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        done.problems.push(MemberProblem {
            member: member.to_owned(),
            why: why.to_owned(),
            kind: kind_from_word(kind),
        });
    }
    Some(done)
}

/// Say in `dir` that the archive of `version` is whole there, with what `done` keeps.
fn write_done(dir: &Path, version: &str, done: &Done) -> Result<()> {
    let mut text = format!("{version}\n");
    for (inside, placed) in &done.placed {
        text += &placed.line(inside);
    }
    for p in &done.problems {
        let flat = |s: &str| s.replace(['\t', '\n'], " ");
        text += &format!(
            "{}\t{}\t{}\n",
            word_of_kind(p.kind),
            flat(&p.member),
            flat(&p.why)
        );
    }
    std::fs::write(dir.join(DONE_FILE), text)
        .map_err(|e| Error::io(format!("writing {}", dir.display()), e))
}

/// The kinds a member's problem can be, as kept in the done file.
const KIND_WORDS: [(ErrorKind, &str); 5] = [
    (ErrorKind::Unsupported, "unsupported"),
    (ErrorKind::TooLarge, "too-large"),
    (ErrorKind::NotPermitted, "outside"),
    (ErrorKind::CorruptDatabase, "damaged"),
    (ErrorKind::Io, "io"),
];

/// The word `kind` is kept as.
fn word_of_kind(kind: ErrorKind) -> &'static str {
    KIND_WORDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("damaged", |(_, w)| w)
}

/// The kind kept as `word`.
fn kind_from_word(word: &str) -> ErrorKind {
    KIND_WORDS
        .iter()
        .find(|(_, w)| *w == word)
        .map_or(ErrorKind::CorruptDatabase, |(k, _)| *k)
}

/// Unpacks one archive's members into a folder.
struct Unpacker<'a> {
    /// Where its members go.
    folder: PathBuf,
    /// The names of the archives it is in, each followed by `/`, for problems.
    prefix: String,
    budget: &'a mut Budget,
    problems: &'a mut Vec<MemberProblem>,
    /// The members read in place (of the archive itself only: one inside another is unpacked).
    placed: &'a mut Vec<(PathBuf, Placed)>,
    /// How deep in archives it is.
    depth: u32,
}

impl Unpacker<'_> {
    /// Unpack archive `blob` of `kind`, named `name`, into the folder.
    fn archive(&mut self, blob: &Arc<Blob>, kind: Kind, name: &str) -> Result<()> {
        match kind {
            Kind::Zip => super::zip::read(blob, self),
            Kind::SevenZ => super::sevenz::read(blob, self),
            Kind::Cbv => super::cbv::read(blob, self),
            Kind::Tar(codec) => super::tar::read(blob, codec, self),
            Kind::Xz => {
                let inner = &name[..name.len() - ".xz".len()];
                super::xz::read(blob, inner, self)
            }
        }
    }

    /// Keep a problem of member `name`: `why`, of its kind.
    fn problem(&mut self, name: &str, why: Error) {
        let member = format!("{}{name}", self.prefix);
        let kind = why.kind();
        let why = why.to_string();
        // A bound's message starts with the member's name: said once.
        let why = why
            .strip_prefix(&format!("{name}: "))
            .map_or(why.clone(), str::to_owned);
        self.problems.push(MemberProblem { member, why, kind });
    }

    /// Unpack the archive just written at `path` (member `name`) beside it, into
    /// `path.d/`, and remove it.
    fn nested(&mut self, path: &Path, name: &str, kind: Kind) -> Result<()> {
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if self.depth + 1 >= MAX_DEPTH {
            self.problem(
                name,
                Error::new(
                    ErrorKind::TooLarge,
                    format!("an archive nested {MAX_DEPTH} deep: not unpacked"),
                ),
            );
            let _ = std::fs::remove_file(path);
            return Ok(());
        }
        let mut folder = path.as_os_str().to_owned();
        folder.push(".d");
        let blob = Arc::new(Blob::open(path)?);
        let mut inner = Unpacker {
            folder: PathBuf::from(folder),
            prefix: format!("{}{name}/", self.prefix),
            budget: self.budget,
            problems: self.problems,
            placed: self.placed,
            depth: self.depth + 1,
        };
        let done = inner.archive(&blob, kind, &file_name);
        drop(blob);
        let _ = std::fs::remove_file(path);
        if let Err(e) = done {
            // The nested archive alone is refused unless the disk or the limit stopped all.
            if matches!(e.kind(), ErrorKind::NoSpace | ErrorKind::TooLarge) {
                return Err(e);
            }
            self.problem(name, e);
        }
        Ok(())
    }
}

impl Members for Unpacker<'_> {
    fn wants(&self, name: &str) -> bool {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        crate::store::is_database_file(base) || kind::of_name(base).is_some()
    }

    fn file(&mut self, name: &str, packed: u64, data: &mut dyn Read) -> Result<()> {
        let Some(inside) = names::inside(name) else {
            self.problem(
                name,
                Error::new(
                    ErrorKind::NotPermitted,
                    "its name leaves the archive (an absolute path, or `..`): not unpacked",
                ),
            );
            return Ok(());
        };
        let path = self.folder.join(&inside);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(format!("creating {}", parent.display()), e))?;
        }
        let mut out = std::fs::File::create(&path)
            .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
        let copied = self.budget.copy(name, packed, data, &mut out, &self.folder);
        let flushed = out.flush();
        drop(out);
        match copied {
            Ok(_) => flushed.map_err(|e| Error::io(format!("writing {}", path.display()), e))?,
            Err(Stop::Member(why)) => {
                let _ = std::fs::remove_file(&path);
                self.problem(name, why);
                return Ok(());
            }
            Err(Stop::Whole(why)) => {
                let _ = std::fs::remove_file(&path);
                return Err(why);
            }
        }
        let base = inside
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some((kind, _)) = kind::of_name(&base) {
            self.nested(&path, name, kind)?;
        }
        Ok(())
    }

    fn refused(&mut self, name: &str, why: Error) {
        self.problem(name, why);
    }

    fn place(&mut self, name: &str, at: Placed) -> bool {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        // An archive inside another is a file unpacked, which goes when it is unpacked.
        if self.depth > 0 || !Placed::suits(base, at.method) {
            return false;
        }
        // One that claims too much text for its size is unpacked, to be refused by the bound.
        if let super::in_place::Method::Deflated { size, .. } = at.method
            && !self.budget.ratio_allows(size, at.packed)
        {
            return false;
        }
        let Some(inside) = names::inside(name) else {
            return false;
        };
        self.placed.push((inside, at));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A `.tar.gz` at `path` of `members` (name, bytes), written whole; names are written
    /// as given, `..` and all.
    fn tar_gz(path: &Path, members: &[(&str, &[u8])]) {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut tar = ::tar::Builder::new(gz);
        for (name, bytes) in members {
            let mut header = ::tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(::tar::EntryType::Regular);
            let raw = &mut header.as_old_mut().name;
            raw[..name.len()].copy_from_slice(name.as_bytes());
            header.set_cksum();
            tar.append(&header, *bytes).unwrap();
        }
        let bytes = tar.into_inner().unwrap().finish().unwrap();
        std::fs::File::create(path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
    }

    fn names(unpacked: &Unpacked) -> Vec<String> {
        unpacked
            .databases
            .iter()
            .map(|p| {
                p.strip_prefix(&unpacked.folder)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn an_archive_is_unpacked_once_and_again_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("archives");
        let archive = dir.path().join("games.tar.gz");
        tar_gz(
            &archive,
            &[
                ("a.pgn", b"[Event \"a\"]\n\n1. e4 *\n"),
                ("notes.txt", b"left alone"),
                ("db/club.si4", b"x"),
                ("db/club.sn4", b"x"),
            ],
        );
        // What a killed process left half done (no such process now) is removed.
        let hash = xxhash_rust::xxh3::xxh3_64(
            archive
                .canonicalize()
                .unwrap()
                .as_os_str()
                .as_encoded_bytes(),
        );
        let abandoned = cache.join(format!("{hash:016x}.partial-4000000000"));
        std::fs::create_dir_all(abandoned.join("files")).unwrap();
        let first = unpack_into(&archive, &cache, Bounds::default()).unwrap();
        assert!(!abandoned.exists());
        assert_eq!(names(&first), ["a.pgn", "db/club.si4"]);
        assert!(first.folder.join("db/club.sn4").is_file());
        assert!(!first.folder.join("notes.txt").exists());
        assert!(first.problems.is_empty());
        // Found again, not written again (its done file marked used).
        let member = first.folder.join("a.pgn");
        let done = first.folder.parent().unwrap().join(DONE_FILE);
        let stamp = std::fs::metadata(&member).unwrap().modified().unwrap();
        let used = std::fs::metadata(&done).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let again = unpack_into(&archive, &cache, Bounds::default()).unwrap();
        assert_eq!(
            std::fs::metadata(&member).unwrap().modified().unwrap(),
            stamp
        );
        assert!(std::fs::metadata(&done).unwrap().modified().unwrap() > used);
        assert_eq!(names(&again), names(&first));
        // Changed: unpacked again, what it no longer holds gone.
        std::thread::sleep(std::time::Duration::from_millis(20));
        tar_gz(&archive, &[("b.pgn", b"[Event \"b\"]\n\n1. d4 *\n")]);
        let changed = unpack_into(&archive, &cache, Bounds::default()).unwrap();
        assert_eq!(names(&changed), ["b.pgn"]);
    }

    /// `count` games of some text each, as a PGN file's text.
    /// Whether the `zip` command is here (said when not: the test is then not run).
    fn zip_installed() -> bool {
        let here = std::process::Command::new("zip").arg("-v").output().is_ok();
        if !here {
            eprintln!("zip is not installed: not tested");
        }
        here
    }

    fn pgn_text(count: u32) -> Vec<u8> {
        (1..=count)
            .flat_map(|n| {
                format!(
                    "[Event \"E{n}\"]\n[White \"W{}\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
                     1. e4 e5 2. Nf3 {{ game {n} }} *\n\n",
                    n % 7
                )
                .into_bytes()
            })
            .collect()
    }

    /// Each game's text of the PGN database at `path`, its index kept in `kept`.
    fn texts(path: &Path, kept: &Path) -> Vec<Vec<u8>> {
        use crate::store::ChessStore;
        let pgn = crate::store::pgn::PgnFile::open_kept_in(path, Some(kept), &|_, _| {}).unwrap();
        (0..pgn.game_count())
            .map(|n| pgn.source_text(n).unwrap().unwrap())
            .collect()
    }

    #[test]
    fn pgn_files_stored_or_deflated_in_a_zip_are_read_in_place_and_not_written() {
        let dir = tempfile::tempdir().unwrap();
        if !zip_installed() {
            return;
        }
        std::fs::write(dir.path().join("deflated.pgn"), pgn_text(3000)).unwrap();
        std::fs::write(dir.path().join("stored.pgn"), pgn_text(500)).unwrap();
        let zipped = std::process::Command::new("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg("zip -q games.zip deflated.pgn && zip -q -0 games.zip stored.pgn")
            .status()
            .unwrap();
        assert!(zipped.success());
        let cache = dir.path().join("archives");
        let kept = dir.path().join("kept");
        let archive = dir.path().join("games.zip");
        for _ in 0..2 {
            // Unpacked, then found unpacked.
            let unpacked = unpack_into(&archive, &cache, Bounds::default()).unwrap();
            assert_eq!(names(&unpacked), ["deflated.pgn", "stored.pgn"]);
            assert_eq!(unpacked.in_place, 2);
            for (db, name) in unpacked.databases.iter().zip(["deflated", "stored"]) {
                assert!(!db.exists(), "{} written", db.display());
                let original = dir.path().join(format!("{name}.pgn"));
                let other = dir.path().join(format!("kept-{name}"));
                assert!(texts(db, &kept) == texts(&original, &other), "{name}");
            }
        }
        // Nothing of the text is in the cache folder: only the done file.
        let written: u64 = walk(&cache)
            .iter()
            .map(|f| f.metadata().unwrap().len())
            .sum();
        assert!(written < 1000, "{written} bytes written");
    }

    #[test]
    fn a_damaged_pgn_member_read_in_place_fails_to_open_with_an_error() {
        let dir = tempfile::tempdir().unwrap();
        if !zip_installed() {
            return;
        }
        std::fs::write(dir.path().join("games.pgn"), pgn_text(3000)).unwrap();
        let zipped = std::process::Command::new("zip")
            .current_dir(dir.path())
            .args(["-q", "games.zip", "games.pgn"])
            .status()
            .unwrap();
        assert!(zipped.success());
        // Bytes in the middle of the deflated data changed: its CRC (from the zip's directory)
        // no longer matches, and the PGN store says so when it indexes the member.
        let archive = dir.path().join("games.zip");
        let mut bytes = std::fs::read(&archive).unwrap();
        let middle = bytes.len() / 2;
        for b in &mut bytes[middle..middle + 64] {
            *b ^= 0x5A;
        }
        std::fs::write(&archive, bytes).unwrap();
        let cache = dir.path().join("archives");
        let unpacked = unpack_into(&archive, &cache, Bounds::default()).unwrap();
        assert_eq!(unpacked.in_place, 1);
        let opened =
            crate::store::pgn::PgnFile::open_kept_in(&unpacked.databases[0], None, &|_, _| {});
        let Err(e) = opened else {
            panic!("a damaged member opened");
        };
        assert!(e.to_string().contains("CRC32 mismatch"), "{e}");
        // Named by the archive and the member, not by the path in the cache folder.
        assert!(e.to_string().contains("games.zip: games.pgn"), "{e}");
    }

    /// The files under `dir`, at any depth.
    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    #[test]
    fn names_leaving_a_tar_and_a_cut_short_tail_are_problems_and_the_rest_is_unpacked() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("archives");
        let archive = dir.path().join("games.tar.gz");
        let long = vec![b'x'; 300_000];
        tar_gz(
            &archive,
            &[
                ("../up.pgn", b"1. e4 *\n"),
                ("a.pgn", b"1. e4 *\n"),
                ("b.pgn", &long),
            ],
        );
        // Cut in b.pgn's bytes (stored, so compressed data beyond a's).
        let bytes = std::fs::read(&archive).unwrap();
        let cut = dir.path().join("cut.tar.gz");
        std::fs::write(&cut, &bytes[..bytes.len() - 200]).unwrap();
        let unpacked = unpack_into(&cut, &cache, Bounds::default()).unwrap();
        assert_eq!(names(&unpacked), ["a.pgn"]);
        assert!(!dir.path().join("up.pgn").exists());
        let problems: Vec<(&str, ErrorKind)> = unpacked
            .problems
            .iter()
            .map(|p| (p.member.as_str(), p.kind))
            .collect();
        assert_eq!(problems[0], ("../up.pgn", ErrorKind::NotPermitted));
        assert_eq!(problems[1].0, "b.pgn", "{:?}", unpacked.problems);
        // Kept with their kinds for the next mount.
        let again = unpack_into(&cut, &cache, Bounds::default()).unwrap();
        assert_eq!(again.problems, unpacked.problems);
    }

    #[test]
    fn archives_nested_too_deep_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut inner = dir.path().join("l0.tar.gz");
        tar_gz(&inner, &[("a.pgn", b"1. e4 *\n")]);
        for depth in 1..=4 {
            let outer = dir.path().join(format!("l{depth}.tar.gz"));
            let bytes = std::fs::read(&inner).unwrap();
            let name = inner.file_name().unwrap().to_str().unwrap().to_owned();
            tar_gz(&outer, &[(&name, &bytes)]);
            inner = outer;
        }
        let cache = dir.path().join("archives");
        let three = unpack_into(&dir.path().join("l3.tar.gz"), &cache, Bounds::default()).unwrap();
        assert_eq!(names(&three), ["l2.tar.gz.d/l1.tar.gz.d/l0.tar.gz.d/a.pgn"]);
        let four = unpack_into(&dir.path().join("l4.tar.gz"), &cache, Bounds::default()).unwrap();
        assert!(four.databases.is_empty());
        assert_eq!(four.problems.len(), 1);
        assert_eq!(
            four.problems[0].member,
            "l3.tar.gz/l2.tar.gz/l1.tar.gz/l0.tar.gz"
        );
        assert_eq!(four.problems[0].kind, ErrorKind::TooLarge);
    }
}
