//! `gamefs create`, `gamefs import` and `gamefs compact`: database work without a mount,
//! with the same encoder the mount uses.

use std::io::IsTerminal;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use super::{CompactArgs, ConvertArgs, CreateArgs, FormatArg, ImportArgs};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gamefs::collection::chess::append_pgn;
use gamefs::collection::import::OnBadGame;
use gamefs::store;
use gamefs::text::input::{ParsedText, Text};
use gamefs::vfs::content::Content;

/// The format to create: as asked, or as the path's extension suggests.
fn format_for(path: &std::path::Path, asked: Option<FormatArg>) -> store::Format {
    match asked {
        Some(FormatArg::Scid) => store::Format::Scid,
        Some(FormatArg::Scid5) => store::Format::Scid5,
        Some(FormatArg::Simplecdb) => store::Format::SimpleCdb,
        None => store::Format::from_path(path),
    }
}

/// Create an empty database.
pub(crate) fn create(args: &CreateArgs) -> Result<ExitCode, String> {
    store::create(&args.database, format_for(&args.database, args.format))
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// A progress line on a terminal (hidden when quiet or not a terminal).
pub(crate) fn progress(quiet: bool, what: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg}: {pos} games ({per_sec})")
            .expect("valid template"),
    );
    pb.set_message(what.to_owned());
    pb
}

/// A progress bar over the bytes of a file on a terminal (hidden when quiet or not a terminal).
pub(crate) fn byte_progress(quiet: bool, what: &str, total: u64) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left)",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    pb.set_message(what.to_owned());
    pb
}

/// A spinner with a message on a terminal, for waits without a count.
pub(crate) fn spinner(quiet: bool, what: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_message(what.to_owned());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}

/// Exit status of an import that stored every game of every file as written.
const EXIT_ALL_STORED: u8 = 0;
/// Exit status of an import in which a file could not be imported at all (unreadable, a
/// database failure, or `--strict` and a game that cannot be stored).
const EXIT_FILE_FAILED: u8 = 1;
/// Exit status of an import that stored every game, some of them with changes (what the
/// database holds only in part, fitted as its own importer fits it; each reported).
const EXIT_GAMES_CHANGED: u8 = 3;
/// Exit status of an import that left some games out (each reported) and stored the others.
const EXIT_GAMES_LEFT_OUT: u8 = 4;

/// Append the games of each PGN file: every game the database can hold; the others are left
/// out, reported (and their text kept with `--rejects`), or with `--strict` the file is
/// refused whole. The exit status tells which happened.
pub(crate) fn import(args: &ImportArgs) -> Result<ExitCode, String> {
    if args.create && !store::exists(&args.database) {
        store::create(&args.database, format_for(&args.database, args.format))
            .map_err(|e| e.to_string())?;
    }
    let options = store::OpenOptions {
        writable: true,
        lossy: args.lossy,
        ..store::OpenOptions::default()
    };
    let db = store::open_with(&args.database, &options).map_err(|e| e.to_string())?;
    let on_bad = if args.strict {
        OnBadGame::RefuseAll
    } else {
        OnBadGame::Skip
    };
    let mut rejects = match &args.rejects {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let (mut failed, mut imported, mut left_out, mut changed) = (0, 0, 0, 0);
    let mut report = String::new();
    for file in &args.files {
        // Mapped, and let go as it is parsed: a PGN file of any size is imported without
        // holding it in memory. A compressed one is decoded to a temporary file first.
        let decoded = match decompressed(file, args.quiet) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("gamefs: cannot read {}: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        let text = match &decoded {
            Some(content) => content.text().map_err(|e| e.to_string()),
            None => Text::of_file(file).map_err(|e| e.to_string()),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                eprintln!("gamefs: cannot read {}: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        let pb = progress(args.quiet, &file.display().to_string());
        let parsed = ParsedText::new(&text, 0);
        // A file given to import is whole (a copy into a mount may stop half-way).
        let result = append_pgn(
            &*db,
            &text,
            on_bad,
            false,
            &|r| parsed.parsed(r),
            &mut |_| pb.inc(1),
        );
        pb.finish_and_clear();
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(e) => {
                eprintln!(
                    "gamefs: {}: {e} (nothing imported from this file)",
                    file.display()
                );
                failed += 1;
                continue;
            }
        };
        imported += outcome.numbers.len();
        left_out += outcome.skipped.len();
        changed += outcome.changed.len();
        if !args.quiet || !outcome.skipped.is_empty() {
            eprintln!(
                "{}: imported {} games ({} with changes){}",
                file.display(),
                outcome.numbers.len(),
                outcome.changed.len(),
                if outcome.skipped.is_empty() {
                    String::new()
                } else {
                    format!(", left out {}", outcome.skipped.len())
                }
            );
            for line in outcome.skipped_lines().take(SKIPPED_SHOWN) {
                eprintln!("  left out {line}");
            }
        }
        for line in outcome.changed_lines().chain(outcome.skipped_lines()) {
            report.push_str(&format!("{}: {line}\n", file.display()));
        }
        if let Some(out) = &mut rejects {
            out.write_all(&outcome.rejected_text(&text))
                .map_err(|e| format!("cannot write the rejected games: {e}"))?;
        }
    }
    let report_path = if left_out + changed > 0 {
        Some(write_report(args.report.as_deref(), &report)?)
    } else {
        None
    };
    if !args.quiet || left_out > 0 {
        eprintln!(
            "gamefs import: {imported} games imported ({changed} with changes), {left_out} left out{}{}",
            report_path
                .map(|p| format!(" (why: {})", p.display()))
                .unwrap_or_default(),
            if failed > 0 {
                format!(", {failed} file(s) not imported")
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::from(if failed > 0 {
        EXIT_FILE_FAILED
    } else if left_out > 0 {
        EXIT_GAMES_LEFT_OUT
    } else if changed > 0 {
        EXIT_GAMES_CHANGED
    } else {
        EXIT_ALL_STORED
    }))
}

/// The text of a compressed PGN file (`.zst`, `.gz`, `.bz2`, known by its first bytes),
/// decoded into an unnamed temporary file (in memory while small); `None` for plain text.
fn decompressed(path: &Path, quiet: bool) -> Result<Option<Content>, String> {
    use gamefs::store::pgn::source::{Codec, Member, StartPoints, codec_of, decode_from};
    let codec = codec_of(path).map_err(|e| e.to_string())?;
    if codec == Codec::Plain {
        return Ok(None);
    }
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let pb = byte_progress(quiet, &format!("decompressing {}", path.display()), total);
    let mut content = Content::default();
    let mut at = 0;
    let mut not_kept = |_: StartPoints| {};
    let blocks: Option<&mut dyn FnMut(StartPoints)> =
        (codec == Codec::Bzip2).then_some(&mut not_kept);
    let decoded = decode_from(
        &gamefs::store::location::Location::Local(path.to_path_buf()),
        codec,
        Member::default(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        &mut |piece| {
            content.write_at(at, piece)?;
            at += piece.len() as u64;
            Ok(())
        },
        &mut |_| {},
        // Every game is imported, or the file is refused.
        &mut |lost| Err(lost.error),
        &|done| pb.set_position(done),
        // A bzip2 file's blocks decode on every core; a gzip file's checkpoints would cost
        // time and save none, the file being read once, in order.
        blocks,
    );
    pb.finish_and_clear();
    decoded.map_err(|e| e.to_string())?;
    Ok(Some(content))
}

/// How many of a file's games left out are named on the terminal (all are in the report).
const SKIPPED_SHOWN: usize = 10;

/// Write the report of the games left out to `asked`, or to a new file under
/// `$XDG_STATE_HOME/gamefs/`; the path written.
fn write_report(asked: Option<&Path>, report: &str) -> Result<PathBuf, String> {
    let path = match asked {
        Some(path) => path.to_path_buf(),
        None => {
            let state = std::env::var_os("XDG_STATE_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
                .ok_or("neither XDG_STATE_HOME nor HOME is set: name the report with --report")?
                .join("gamefs");
            std::fs::create_dir_all(&state)
                .map_err(|e| format!("cannot create {}: {e}", state.display()))?;
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            state.join(format!("import-{secs}-{}.txt", std::process::id()))
        }
    };
    std::fs::write(&path, report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Drop deleted games and garbage.
pub(crate) fn compact(args: &CompactArgs) -> Result<ExitCode, String> {
    let pb = spinner(args.quiet, "compacting");
    let report = store::compact(&args.database);
    pb.finish_and_clear();
    let report = report.map_err(|e| e.to_string())?;
    if !args.quiet {
        eprintln!(
            "{}: {} of {} games kept, {} bytes now (was {})",
            args.database.display(),
            report.games_after,
            report.games_before,
            report.bytes_after,
            report.bytes_before
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Copy the games of a database into a new one: exit 0 when every game not deleted was
/// stored, 4 when some were left out (each named on stderr), 1 on a failure (the new database
/// is then removed).
pub(crate) fn convert(args: &ConvertArgs) -> Result<ExitCode, String> {
    if store::exists(&args.target) {
        return Err(format!(
            "{}: a database is already there; convert writes a new one",
            args.target.display()
        ));
    }
    let source = store::open(&args.source, false).map_err(|e| e.to_string())?;
    let format = format_for(&args.target, args.format);
    store::create(&args.target, format).map_err(|e| e.to_string())?;
    let copied = store::open(&args.target, true).and_then(|target| {
        let pb = spinner(args.quiet, "converting");
        let report = store::convert::copy_games(&*source, &*target);
        pb.finish_and_clear();
        report
    });
    let report = match copied {
        Ok(report) => report,
        Err(e) => {
            for file in store::open(&args.target, false)
                .map(|db| db.info().files)
                .unwrap_or_default()
            {
                let _ = std::fs::remove_file(file);
            }
            return Err(e.to_string());
        }
    };
    for (n, why) in &report.left_out {
        eprintln!("gamefs: left out game {}: {why}", n + 1);
    }
    if !args.quiet || !report.left_out.is_empty() {
        eprintln!(
            "{} -> {}: {} of {} games stored, {} left out, {} deleted not copied",
            args.source.display(),
            args.target.display(),
            report.stored,
            report.games,
            report.left_out.len(),
            report.deleted
        );
    }
    Ok(ExitCode::from(if report.left_out.is_empty() {
        EXIT_ALL_STORED
    } else {
        EXIT_GAMES_LEFT_OUT
    }))
}
