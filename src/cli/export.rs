//! `gamefs export`: every game of a database as one PGN stream, with the mount's renderer.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use super::ExportArgs;
use gamefs::store;
use gamefs::text::pgn;

/// Write the games; a game that cannot be read is reported and skipped, and the exit status
/// says so at the end.
pub fn run(args: &ExportArgs) -> Result<ExitCode, String> {
    let store = store::open(&args.database, false).map_err(|e| e.to_string())?;
    let sink: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let mut failed = 0u32;
    let pb = super::database::progress(args.quiet || args.output.is_none(), "exporting");
    for n in 0..store.game_count() {
        pb.inc(1);
        if store.summary(n).deleted && !args.include_deleted {
            continue;
        }
        match store.load(n).and_then(|g| pgn::render(&g)) {
            Ok(text) => out
                .write_all(text.as_bytes())
                .map_err(|e| format!("write failed: {e}"))?,
            Err(e) => {
                eprintln!("gamefs: skipped {e}");
                failed += 1;
            }
        }
    }
    if let Err(e) = out.flush()
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(format!("write failed: {e}"));
    }
    pb.finish_and_clear();
    if failed > 0 {
        eprintln!("gamefs: {failed} game(s) could not be read");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
