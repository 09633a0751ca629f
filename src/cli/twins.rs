//! `gamefs twins`: the twin games of a chess database, as SCID's twin detection finds them
//! with its default settings (docs/guide/twins.md), printed, or with `--delete` the copies
//! SCID's "delete twin games" deletes marked deleted.

use std::io::Write;
use std::process::ExitCode;

use super::TwinsArgs;
use super::database::spinner;
use gamefs::collection::Collection;
use gamefs::collection::chess::ChessCollection;
use gamefs::error::ErrorKind;
use gamefs::store;

/// Print the groups of twins of a database, or mark deleted what SCID's deletion deletes.
pub(crate) fn run(args: &TwinsArgs) -> Result<ExitCode, String> {
    let db = store::open(&args.database, args.delete).map_err(|e| match e.kind() {
        ErrorKind::ReadOnly => format!(
            "--delete cannot mark twins deleted: {e} (without --delete, gamefs twins lists them)"
        ),
        _ => e.to_string(),
    })?;
    let coll = ChessCollection::new(db);
    let pb = spinner(args.quiet, "finding twins");
    let twins = coll.twins().unwrap_or_default();
    pb.finish_and_clear();
    let in_groups: usize = twins.groups().iter().map(Vec::len).sum();
    if !args.delete {
        // Written as it goes: at ten million games, every one a twin, the text is 600 MB.
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let written = twins.groups().iter().try_for_each(|group| {
            writeln!(out, "twins of {}", coll.file_name(group[0]))?;
            for &n in group {
                let mark = if twins.deletes(n) { "delete" } else { "keep" };
                writeln!(out, "  {mark:<6} {}", coll.file_name(n))?;
            }
            Ok(())
        });
        match written.and_then(|()| out.flush()) {
            // A reader that stops early (`| head`) is not an error.
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                return Err(format!("writing the twins: {e}"));
            }
            _ => {}
        }
    } else {
        for &n in twins.to_delete() {
            coll.set_deleted(n, true)
                .map_err(|e| format!("game {}: {e}", n + 1))?;
        }
    }
    if !args.quiet {
        let (done, more) = if args.delete {
            ("", " marked")
        } else {
            ("--delete would mark ", "")
        };
        eprintln!(
            "{}: {} groups of twins ({in_groups} games); {done}{}{more} deleted",
            args.database.display(),
            twins.groups().len(),
            twins.to_delete().len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
