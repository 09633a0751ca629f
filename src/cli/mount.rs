//! `gamefs mount`: open the database, check the mountpoint, mount, and serve until unmounted
//! or told to stop (Ctrl-C, SIGTERM, SIGHUP), unmounting cleanly.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use super::MountOptions;
use super::daemon;
use super::mount_options::{self, ParsedOptions};
use gamefs::ErrorKind;
use gamefs::collection::import::OnBadGame;
use gamefs::collection::positions::PositionIndex;
use gamefs::collection::{self, Collection};
use gamefs::fuse::{self, MountSettings};
use gamefs::store::OpenOptions;
use gamefs::store::location::Location;
use gamefs::vfs::kept_games::KeptPlaces;
use gamefs::vfs::size_fill::SizeFill;
use gamefs::vfs::{Vfs, VfsOptions};

/// How `-o` says to open the database, for writing or not.
fn open_options(parsed: &ParsedOptions, writable: bool) -> OpenOptions {
    OpenOptions {
        go_files: parsed.go_files.clone(),
        writable,
        lossy: parsed.lossy,
        into: parsed.into.clone(),
    }
}

/// Open the database for writing unless asked not to. When writing is impossible (the files
/// are read-only to us, or an old version-300 database) and `-o rw` was not given, mount
/// read-only with a warning, as mount(8) does for write-protected media.
fn open_collection(
    database: &Path,
    location: &Location,
    parsed: &ParsedOptions,
) -> Result<Arc<dyn Collection>, String> {
    let options = |writable| open_options(parsed, writable);
    // A PGN file, a remote object and an archive are only read: mounted read-only as with
    // `-o ro` (`-o rw` is refused).
    let read_only_format = location.is_read_only() && !parsed.explicit_rw;
    if parsed.read_only || read_only_format {
        return collection::open(database, &options(false)).map_err(|e| e.to_string());
    }
    match collection::open(database, &options(true)) {
        Ok(s) => Ok(s),
        Err(e)
            if !parsed.explicit_rw
                && matches!(e.kind(), ErrorKind::PermissionDenied | ErrorKind::ReadOnly) =>
        {
            let s = collection::open(database, &options(false)).map_err(|e| e.to_string())?;
            log::warn!("{e}; mounting read-only");
            daemon::tell(&format!("gamefs: {e}; mounting read-only"));
            Ok(s)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Say on stderr (through the parent of a detached mount) that the database is damaged: how many problems, and that damaged games
/// read as I/O errors. The mount logs each problem itself.
fn warn_if_damaged(database: &Path, coll: &dyn Collection) {
    let problems = coll.problems();
    if problems.is_empty() {
        return;
    }
    let members = coll.members();
    if !members.is_empty() {
        let skipped = members.iter().filter(|m| m.skipped.is_some()).count();
        daemon::tell(&format!(
            "gamefs: {}: {} problem(s) in its databases, {skipped} file(s) not mounted: \
             MOUNT/.gamefs/errors names each, MOUNT/.gamefs/stats lists the databases",
            database.display(),
            problems.len(),
        ));
        return;
    }
    let unreadable: HashSet<u32> = problems
        .iter()
        .filter(|p| p.unreadable)
        .filter_map(|p| p.item)
        .collect();
    if unreadable.is_empty() && gamefs::store::pgn::looks_like(database) {
        // Variants and broken movetext are common in PGN files: not damage.
        daemon::tell(&format!(
            "gamefs: {} of the games of {} are not read as PGN: their files hold their text, \
             the views leave them out, and MOUNT/.gamefs/errors names them",
            problems.len(),
            database.display()
        ));
        return;
    }
    if unreadable.is_empty() && gamefs::store::chessbase::looks_like(database) {
        // What gamefs does not show of a ChessBase database yet (annotations of some kinds,
        // guiding texts) is no damage.
        daemon::tell(&format!(
            "gamefs: {}: {} kind(s) of what it holds are not shown yet: \
             MOUNT/.gamefs/errors names them",
            database.display(),
            problems.len(),
        ));
        return;
    }
    daemon::tell(&format!(
        "gamefs: warning: {} is damaged: {} problem(s); {} of its {} cannot be read (I/O \
         error), the others are served (`gamefs check {}` lists every problem; guide: \
         docs/guide/damaged.md)",
        database.display(),
        problems.len(),
        unreadable.len(),
        coll.items_folder(),
        database.display()
    ));
}

/// Check the mountpoint and /dev/fuse before doing anything, with messages that say what to fix.
fn check_mountpoint(mountpoint: &Path) -> Result<PathBuf, String> {
    let meta = std::fs::metadata(mountpoint)
        .map_err(|e| format!("mountpoint {}: {e}", mountpoint.display()))?;
    if !meta.is_dir() {
        return Err(format!(
            "mountpoint {} is not a directory",
            mountpoint.display()
        ));
    }
    if !Path::new("/dev/fuse").exists() {
        return Err("/dev/fuse is missing: load the fuse kernel module (modprobe fuse) or, in a container, \
                    pass the device in (--device /dev/fuse); guide: docs/guide/faq.md"
            .into());
    }
    mountpoint
        .canonicalize()
        .map_err(|e| format!("mountpoint {}: {e}", mountpoint.display()))
}

/// Mount `database` on `mountpoint` and serve it.
pub(crate) fn run(
    database: &Path,
    mountpoint: &Path,
    opts: &MountOptions,
) -> Result<ExitCode, String> {
    let result = prepare_and_serve(database, mountpoint, opts, |_| {});
    if let Err(message) = &result {
        daemon::report_error(message);
    }
    result
}

/// The mount itself; `on_ready` runs once the kernel has the mount (the demo prints its tour there).
pub(crate) fn prepare_and_serve(
    database: &Path,
    mountpoint: &Path,
    opts: &MountOptions,
    on_ready: impl FnOnce(&Path),
) -> Result<ExitCode, String> {
    let parsed = mount_options::parse(&opts.options, opts.read_only)?;
    // What the user typed, read once.
    let location = Location::parse(database);
    gamefs::store::blob::settings::configure(parsed.remote.clone());
    if let Some(max) = parsed.cache_max {
        gamefs::store::archive::bounds::set_total(max);
    }
    if !daemon::is_detached_child() {
        // Index a PGN file here, with a progress bar on the terminal, and keep the index:
        // the background process loads it at once. An archive is unpacked here first, so
        // that what it holds is indexed the same way and its errors are said here.
        let paths = pgn_files_to_index(database, &location, &parsed)?;
        let kept_in = gamefs::store::files::cache_dir();
        for (path, indexed) in paths
            .iter()
            .zip(index_pgn_files(&paths, kept_in.as_deref()))
        {
            if path == database {
                indexed?;
            }
        }
    }
    if !opts.foreground && !daemon::is_detached_child() {
        // The background process opens (and locks) the database, once; its errors, warnings
        // and the log lines of the open come back up its pipe to this terminal.
        return daemon::detach();
    }
    // Reading the index of a big database takes a moment: show it on a terminal.
    let pb = super::database::spinner(!opts.foreground, "reading the index");
    let coll = daemon::forwarding_logs(|| open_collection(database, &location, &parsed));
    pb.finish_and_clear();
    let coll = coll?;
    warn_if_damaged(database, &*coll);
    let mountpoint = check_mountpoint(mountpoint)?;
    let mut vfs_options = VfsOptions::default();
    if parsed.strict {
        vfs_options.on_bad = OnBadGame::RefuseAll;
    }
    if let Some(bytes) = parsed.cache_bytes {
        vfs_options.cache_bytes = bytes;
    }
    if let Some(depth) = parsed.tree_depth {
        vfs_options.tree_depth = depth;
    }
    vfs_options.tree = !parsed.tree_off;
    if let Some(max) = parsed.cache_max {
        vfs_options.cache_max = max;
    }
    if vfs_options.tree {
        vfs_options.position_index = PositionIndex::kept_at(&coll.info().files);
    }
    if let Location::Archive { path, .. } = &location {
        vfs_options.named = Some(path.clone());
    }
    let writable = coll.writable();
    let vfs = Arc::new(Vfs::new(coll, vfs_options));
    let kept_file = restore_kept(&vfs);
    let settings = MountSettings {
        fsname: parsed
            .fsname
            .clone()
            .unwrap_or_else(|| database.display().to_string()),
        writable,
        options: parsed.kernel.clone(),
        access: parsed.access,
    };
    let signals = super::signals::block(super::signals::STOP.into_iter().chain([libc::SIGUSR1]));
    // Wake the main thread when the session ends (unmounted from outside, or after our unmount).
    // SAFETY: kill on our own pid with a blocked signal only queues it for sigwait.
    let wake = || unsafe {
        libc::kill(libc::getpid(), libc::SIGUSR1);
    };
    let mut mounted = fuse::mount(vfs.clone(), &mountpoint, &settings, wake)
        .map_err(|e| format!("cannot mount on {}: {e}", mountpoint.display()))?;
    log::info!("mounted {} on {}", database.display(), mountpoint.display());
    daemon::report_ready();
    super::notify::notify("READY=1");
    on_ready(&mountpoint);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let fill = (!parsed.lazy_sizes).then(|| {
        // Kept as soon as every size is known, so a mount that is killed later still leaves
        // the same times for the next one.
        let (vfs_done, kept_done) = (vfs.clone(), kept_file.clone());
        SizeFill::start(vfs.clone(), cores, move || {
            keep_games(&vfs_done, kept_done.as_ref());
        })
    });
    // The position index (tree/, positions/) is mapped from an earlier mount's, or built on
    // every core in the background once the sizes are learnt (the first listing first).
    let position_build = gamefs::vfs::positions::start_building(
        vfs.clone(),
        cores,
        fill.as_ref().map(SizeFill::ended),
    );
    loop {
        match super::signals::wait(&signals) {
            libc::SIGUSR1 => break,
            sig => {
                log::info!("signal {sig}: unmounting {}", mountpoint.display());
                super::notify::notify("STOPPING=1");
                if let Err(e) = mounted.unmount() {
                    // Files are still open: detach the mount and quit; closing our end of
                    // /dev/fuse ends the connection, so nothing waits on us.
                    log::warn!(
                        "unmount of {} failed ({e}); detaching it lazily",
                        mountpoint.display()
                    );
                    lazy_unmount(&mountpoint);
                    vfs.stop_positions(position_build);
                    if let Some(fill) = fill {
                        fill.stop();
                    }
                    keep_games(&vfs, kept_file.as_ref());
                    vfs.keep_positions();
                    return Ok(ExitCode::SUCCESS);
                }
            }
        }
    }
    let ended = mounted.join().map(|()| ExitCode::SUCCESS);
    vfs.stop_positions(position_build);
    if let Some(fill) = fill {
        fill.stop();
    }
    keep_games(&vfs, kept_file.as_ref());
    vfs.keep_positions();
    ended
}

/// The PGN files the mount of `database` opens, to index them before it: `database` itself,
/// each of a folder mounted as one (one that fails is skipped by the mount, which says why),
/// or each an archive holds (unpacked here, with a spinner; an archive that does not unpack
/// is an error here).
fn pgn_files_to_index(
    database: &Path,
    location: &Location,
    parsed: &ParsedOptions,
) -> Result<Vec<PathBuf>, String> {
    use collection::union::discover;
    let found = match location {
        Location::Archive { path, .. } => {
            let pb = super::database::spinner(false, &format!("unpacking {}", path.display()));
            let found = discover::databases_of_archive(path);
            pb.finish_and_clear();
            found.map_err(|e| e.to_string())?.paths
        }
        _ if gamefs::store::pgn::looks_like(database) => vec![database.to_path_buf()],
        _ if collection::is_folder_of_databases(database, &open_options(parsed, false)) => {
            let pb = super::database::spinner(
                false,
                &format!(
                    "looking into {} (unpacking its archives)",
                    database.display()
                ),
            );
            let found = discover::databases_of_folder(database);
            pb.finish_and_clear();
            found.map(|f| f.paths).unwrap_or_default()
        }
        _ => Vec::new(),
    };
    Ok(found
        .into_iter()
        .filter(|p| gamefs::store::pgn::looks_like(p))
        .collect())
}

/// Index the PGN files at `paths` (each unless its index kept in `kept_in` is still true)
/// and keep their indexes there, on every core, each on its own (a folder of a hundred small files, or the members of a hundred
/// archives, is a hundred indexings of one core each), showing how far on a terminal; each
/// file's outcome, in the same order.
fn index_pgn_files(paths: &[PathBuf], kept_in: Option<&Path>) -> Vec<Result<(), String>> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let total = paths
        .iter()
        .map(|p| gamefs::store::files::file_len(p).unwrap_or(0))
        .sum();
    let what = match paths {
        [one] => format!("indexing {}", one.display()),
        _ => format!("indexing {} PGN files", paths.len()),
    };
    let pb = super::database::byte_progress(false, &what, total);
    let done = AtomicU64::new(0);
    let indexed = paths
        .par_iter()
        .map(|path| {
            // How far this file is, added to the bar's sum as it grows.
            let mine = AtomicU64::new(0);
            let progress = |now: u64, _| {
                let before = mine.swap(now, Relaxed);
                let sum = done.fetch_add(now.saturating_sub(before), Relaxed);
                pb.set_position(sum + now.saturating_sub(before));
            };
            gamefs::store::pgn::index::Index::of_file(&Location::parse(path), kept_in, &progress)
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .collect();
    pb.finish_and_clear();
    indexed
}

/// Take what earlier mounts of this database (of each database of a folder) kept of its
/// games (sizes and times), if anything; returns where it is kept.
fn restore_kept(vfs: &Vfs) -> Option<KeptPlaces> {
    let places = KeptPlaces::for_collection(vfs.collection())?;
    let kept = places.load(vfs.collection());
    if kept.iter().any(|g| g.is_kept()) {
        log::info!(
            "{} games kept in {}",
            kept.len(),
            places
                .paths()
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        vfs.restore_kept(kept);
    }
    Some(places)
}

/// Keep each game's size and time known now for the next mount (each with its game's
/// fingerprint, so a game changed since, by us or another program, is looked at again there).
fn keep_games(vfs: &Vfs, places: Option<&KeptPlaces>) {
    let Some(places) = places else {
        return;
    };
    if let Err(e) = places.store(vfs.collection(), &vfs.games_to_keep()) {
        log::debug!("cannot keep games in {:?}: {e}", places.paths());
    }
}

/// Detach a busy mount (open files) so stopping never hangs.
fn lazy_unmount(mountpoint: &Path) {
    let c = std::ffi::CString::new(mountpoint.as_os_str().as_encoded_bytes()).unwrap_or_default();
    // SAFETY: umount2 with a valid NUL-terminated path.
    if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } != 0 {
        let _ = std::process::Command::new("fusermount3")
            .arg("-uz")
            .arg(mountpoint)
            .status();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_files_are_indexed_each_with_its_outcome_in_order_and_their_indexes_kept() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        let game = |event: &str| format!("[Event \"{event}\"]\n\n1. e4 e5 *\n\n");
        let a = dir.path().join("a.pgn");
        let b = dir.path().join("b.pgn");
        std::fs::write(&a, game("a") + &game("a2")).unwrap();
        std::fs::write(&b, game("b")).unwrap();
        let paths = [a, dir.path().join("missing.pgn"), b];
        let outcomes = index_pgn_files(&paths, Some(&kept));
        let ok: Vec<bool> = outcomes.iter().map(Result::is_ok).collect();
        assert_eq!(ok, [true, false, true], "{outcomes:?}");
        assert!(outcomes[1].as_ref().unwrap_err().contains("missing.pgn"));
        assert_eq!(std::fs::read_dir(&kept).unwrap().count(), 2);
    }
}
