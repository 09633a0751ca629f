//! `gamefs export`: every game of a database as one PGN stream, with the mount's renderer,
//! rendered on every core and written in game order.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use super::ExportArgs;
use gamefs::store::{self, ChessStore};
use gamefs::text::pgn;

/// Games one worker renders before handing them over.
const BATCH: u32 = 512;

/// The rendering of one batch: texts in order, and the errors of games that failed.
type Rendered = (Vec<String>, Vec<String>);

fn render_batch(store: &dyn ChessStore, from: u32, to: u32, include_deleted: bool) -> Rendered {
    let mut texts = Vec::with_capacity((to - from) as usize);
    let mut errors = Vec::new();
    for n in from..to {
        if store.summary(n).deleted && !include_deleted {
            continue;
        }
        match store.load(n).and_then(|g| pgn::render(&g)) {
            Ok(text) => texts.push(text),
            Err(e) => errors.push(e.to_string()),
        }
    }
    (texts, errors)
}

/// Write the games; a game that cannot be read is reported and skipped, and the exit status
/// says so at the end. A reader that stops early (`| head`) is not an error.
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
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let count = store.game_count();
    let mut next = 0u32;
    while next < count {
        // One batch per thread, rendered together, written in order.
        let batches: Vec<(u32, u32)> = (0..threads)
            .map(|i| (next + i * BATCH, (next + (i + 1) * BATCH).min(count)))
            .filter(|(a, b)| a < b)
            .collect();
        next = batches.last().map_or(count, |b| b.1);
        let rendered: Vec<Rendered> = std::thread::scope(|s| {
            let handles: Vec<_> = batches
                .iter()
                .map(|&(a, b)| {
                    let store = &*store;
                    s.spawn(move || render_batch(store, a, b, args.include_deleted))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for (texts, errors) in rendered {
            for text in texts {
                if let Err(e) = out.write_all(text.as_bytes()) {
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        return Ok(ExitCode::SUCCESS);
                    }
                    return Err(format!("write failed: {e}"));
                }
            }
            for e in errors {
                eprintln!("gamefs: skipped {e}");
                failed += 1;
            }
        }
        pb.set_position(u64::from(next));
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
