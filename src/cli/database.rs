//! `gamefs create`, `gamefs import` and `gamefs compact`: database work without a mount,
//! with the same encoder the mount uses.

use std::io::IsTerminal;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use super::{CompactArgs, CreateArgs, FormatArg, ImportArgs};
use gamefs::collection::chess::append_pgn;
use gamefs::store;
use gamefs::text::input::Text;

/// The format to create: as asked, or as the path's extension suggests.
fn format_for(path: &std::path::Path, asked: Option<FormatArg>) -> store::Format {
    match asked {
        Some(FormatArg::Scid) => store::Format::Scid,
        Some(FormatArg::Simplecdb) => store::Format::SimpleCdb,
        None => store::Format::from_path(path),
    }
}

/// Create an empty database.
pub fn create(args: &CreateArgs) -> Result<ExitCode, String> {
    store::create(&args.database, format_for(&args.database, args.format))
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// A progress line on a terminal (hidden when quiet or not a terminal).
pub fn progress(quiet: bool, what: &str) -> ProgressBar {
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

/// A spinner with a message on a terminal, for waits without a count.
pub fn spinner(quiet: bool, what: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_message(what.to_owned());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}

/// Append the games of each PGN file; a file with a bad game is refused whole (reported, the
/// next file still imported) and the exit status says so.
pub fn import(args: &ImportArgs) -> Result<ExitCode, String> {
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
    let mut failed = 0;
    for file in &args.files {
        // Mapped, and let go as it is parsed: a PGN file of any size is imported without
        // holding it in memory.
        let text = match Text::of_file(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("gamefs: cannot read {}: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        let pb = progress(args.quiet, &file.display().to_string());
        let result = append_pgn(&*db, &text, &|r| text.let_go(r), &mut |_| pb.inc(1));
        pb.finish_and_clear();
        match result {
            Ok(numbers) if !args.quiet => {
                eprintln!("{}: imported {} games", file.display(), numbers.len());
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!(
                    "gamefs: {}: {e} (nothing imported from this file)",
                    file.display()
                );
                failed += 1;
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Drop deleted games and garbage.
pub fn compact(args: &CompactArgs) -> Result<ExitCode, String> {
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
