//! `gamefs export`: every game of a database as one PGN stream, with the mount's renderer,
//! rendered on every core and written in game order (to a file: see [`super::export_output`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use super::ExportArgs;
use super::export_output::Output;
use gamefs::collection::chess::render_pgn_into;
use gamefs::store::{self, ChessStore};

/// Games one worker renders before handing them over, at most.
const BATCH: u32 = 512;

/// Games of the smallest batch, near the end.
const LAST_BATCH: u32 = 16;

/// Where each batch of `count` games starts, and the end: batches of [`BATCH`] games, smaller
/// towards the end (a quarter of each thread's share of what is left, down to [`LAST_BATCH`]),
/// so that the threads finish together. A batch of long annotated games takes several times
/// as long as most: with every batch of 512 games, a thread could be left rendering the last
/// one alone for 40 ms of an export's 180 (the real-world corpus).
fn batch_starts(count: u32, threads: u32) -> Vec<u32> {
    let mut starts = vec![0];
    let mut from = 0;
    while from < count {
        let share = (count - from) / (4 * threads.max(1));
        from += share.clamp(LAST_BATCH, BATCH).min(count - from);
        starts.push(from);
    }
    starts
}

/// The rendering of one batch: the games' text in order, and the errors of games that failed.
type Rendered = (String, Vec<String>);

/// Render games `from..to` into `text` (emptied first: a buffer written before, whose pages are
/// in place already).
fn render_batch(
    store: &dyn ChessStore,
    from: u32,
    to: u32,
    include_deleted: bool,
    mut text: String,
) -> Rendered {
    text.clear();
    let mut errors = Vec::new();
    for n in from..to {
        if store.summary(n).deleted && !include_deleted {
            continue;
        }
        if let Err(e) = render_pgn_into(store, n, &mut text) {
            errors.push(e.to_string());
        }
    }
    (text, errors)
}

/// Batches rendered ahead of the one being written, at most: the memory an export holds.
const AHEAD: u32 = 8;

/// Which batch the workers render next, and how far the writer has come.
#[derive(Default)]
struct Turns {
    next: AtomicU32,
    progress: Mutex<Progress>,
    room: Condvar,
    /// Buffers of batches written, for the next batches: a fresh buffer of a megabyte costs the
    /// kernel a page fault and a zeroed page for every 4 KiB the text fills.
    spare: Mutex<Vec<String>>,
}

#[derive(Default)]
struct Progress {
    /// Batches written so far.
    written: u32,
    /// The export is over (done, failed, or a worker panicked): workers take no more batches.
    stopped: bool,
}

impl Turns {
    /// The next batch for a worker to render, once it is no more than [`AHEAD`] batches
    /// ahead of the writer; `None` when all are taken or the export stopped.
    fn take(&self, batches: u32) -> Option<u32> {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        if k >= batches {
            return None;
        }
        // The lowest batch not yet written is always within reach: no worker waits for it.
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        while k >= p.written + AHEAD && !p.stopped {
            p = self.room.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        (!p.stopped).then_some(k)
    }

    /// A buffer for the next batch: one written before, or a new one.
    fn buffer(&self) -> String {
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        spare.unwrap_or_else(|| String::with_capacity(2048 * BATCH as usize))
    }

    /// The buffer of a batch written, for a later batch.
    fn give_back(&self, buffer: String) {
        self.spare
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buffer);
    }

    /// The writer has written `n` batches: workers waiting for room may go on.
    fn written(&self, n: u32) {
        self.progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .written = n;
        self.room.notify_all();
    }

    /// End the export: waiting workers go, and none takes another batch.
    fn stop(&self) {
        self.progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stopped = true;
        self.room.notify_all();
    }

    /// Stops the export when dropped (the writer's end, however it ends).
    fn stop_on_drop(&self) -> StopGuard<'_> {
        StopGuard {
            turns: self,
            only_on_panic: false,
        }
    }

    /// Stops the export if the worker holding it panics, so that the others and the writer
    /// do not wait for a batch that never comes.
    fn stop_on_panic(&self) -> StopGuard<'_> {
        StopGuard {
            turns: self,
            only_on_panic: true,
        }
    }
}

/// See [`Turns::stop_on_drop`] and [`Turns::stop_on_panic`].
struct StopGuard<'a> {
    turns: &'a Turns,
    only_on_panic: bool,
}

impl Drop for StopGuard<'_> {
    fn drop(&mut self) {
        if !self.only_on_panic || std::thread::panicking() {
            self.turns.stop();
        }
    }
}

/// Write the games; a game that cannot be read is reported and skipped, and the exit status
/// says so at the end. A reader that stops early (`| head`) is not an error.
pub(crate) fn run(args: &ExportArgs) -> Result<ExitCode, String> {
    let store = store::open(&args.database, false).map_err(|e| e.to_string())?;
    // Before any thread starts: a file's output takes the stop signals from here on.
    // `-o -` is standard output, as for tar, curl and 7z.
    let to_file = args.output.as_deref().filter(|p| *p != Path::new("-"));
    let mut out = match to_file {
        Some(path) => Output::create(path)?,
        None => Output::stdout(),
    };
    let mut failed = 0u32;
    let pb = super::database::progress(args.quiet || to_file.is_none(), "exporting");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let count = store.game_count();
    // Each worker takes the next batch to render as it becomes free, so a worker that is
    // slowed down (by the writer, by another program) holds up nobody; this thread writes
    // the batches in game order as they come, at most `AHEAD` of them waiting at a time.
    let starts = batch_starts(count, threads as u32);
    let batches = starts.len() as u32 - 1;
    let turns = Turns::default();
    let outcome = std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(u32, Rendered)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (store, turns, starts) = (&*store, &turns, &starts);
            s.spawn(move || {
                let _stop_all_if_this_panics = turns.stop_on_panic();
                while let Some(k) = turns.take(batches) {
                    let (from, to) = (starts[k as usize], starts[k as usize + 1]);
                    let batch = render_batch(store, from, to, args.include_deleted, turns.buffer());
                    if tx.send((k, batch)).is_err() {
                        break; // the writer stopped (reader gone or write error)
                    }
                }
            });
        }
        drop(tx);
        // A failed write stops the workers at their next batch.
        let _stop_all_when_done = turns.stop_on_drop();
        let mut arrived: BTreeMap<u32, Rendered> = BTreeMap::new();
        for k in 0..batches {
            let (text, errors) = loop {
                if let Some(batch) = arrived.remove(&k) {
                    break batch;
                }
                match rx.recv() {
                    Ok((j, batch)) => {
                        arrived.insert(j, batch);
                    }
                    // Every worker is gone: one panicked (the scope passes the panic on).
                    Err(_) => return Ok(()),
                }
            };
            turns.written(k + 1);
            for e in errors {
                eprintln!("gamefs: skipped {e}");
                failed += 1;
            }
            pb.set_position(u64::from(starts[k as usize + 1]));
            out.write(text.as_bytes())?;
            turns.give_back(text);
        }
        Ok::<(), std::io::Error>(())
    });
    if let Err(e) = outcome.and_then(|()| out.finish())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn batches_cover_every_game_once_and_shrink_towards_the_end() {
        let sizes_of =
            |starts: &[u32]| -> Vec<u32> { starts.windows(2).map(|w| w[1] - w[0]).collect() };
        for (count, threads) in [
            (0, 2),
            (1, 2),
            (15, 2),
            (1000, 1),
            (55_065, 2),
            (1_000_000, 8),
        ] {
            let starts = batch_starts(count, threads);
            assert_eq!((starts[0], *starts.last().unwrap()), (0, count));
            let sizes = sizes_of(&starts);
            assert!(sizes.iter().all(|&n| (1..=BATCH).contains(&n)), "{sizes:?}");
            assert!(sizes.is_sorted_by(|a, b| a >= b), "{sizes:?}");
        }
        let sizes = sizes_of(&batch_starts(55_065, 2));
        assert_eq!((sizes[0], sizes[sizes.len() - 2]), (BATCH, LAST_BATCH));
    }

    #[test]
    fn workers_stay_within_reach_of_the_writer() {
        let turns = Turns::default();
        let batches = AHEAD + 5;
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel();
            let worker = s.spawn(|| {
                let tx = tx;
                while let Some(k) = turns.take(batches) {
                    tx.send(k).unwrap();
                }
            });
            // Nothing written yet: the worker takes batches 0 to AHEAD - 1 and waits.
            let first: Vec<u32> = (0..AHEAD).map(|_| rx.recv().unwrap()).collect();
            assert_eq!(first, (0..AHEAD).collect::<Vec<_>>());
            assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
            // Each batch written lets it take one more.
            turns.written(1);
            assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(AHEAD));
            assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
            // Stopping releases it without another batch.
            turns.stop();
            worker.join().unwrap();
            assert!(rx.try_recv().is_err());
        });
    }

    #[test]
    fn a_panicking_worker_stops_the_others() {
        let turns = Turns::default();
        std::thread::scope(|s| {
            let crashed = s.spawn(|| {
                let _guard = turns.stop_on_panic();
                turns.take(100);
                panic!("a bug while rendering");
            });
            assert!(crashed.join().is_err());
            // Batch 1 is within reach, yet nothing more is handed out.
            assert_eq!(turns.take(100), None);
        });
    }
}
