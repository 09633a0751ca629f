//! Every game's size learnt in the background right after a mount, as ratarmount builds its
//! index once: threads on idle cores render the games whose size is not known yet (or
//! check the sizes an earlier mount kept), so a first `ls -l games/`, a file manager or
//! `find -size` finds most sizes ready instead of waiting for each game to render in turn.
//! The texts are not kept (they would push the games being read out of the cache), only
//! their sizes; requests from the kernel go first: the threads run only on idle cores.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::Vfs;

/// Games a thread takes at a time: few, so a thread kept off its core (the fill runs only
/// on idle cores) holds back few games a reader then renders itself.
const BATCH: u64 = if cfg!(test) { 2 } else { 16 };

/// How far past a game a reader had to render itself the fill goes on. Starting right after
/// it, the fill would render the very games the reader asks for next, each of them twice in
/// step with the reader (a first `ls -l` took 1.7× a plain folder's that way, BENCHMARKS.md
/// figure 9); this far ahead, the reader renders these few alone while the fill gets ahead.
const AHEAD: u64 = if cfg!(test) { 8 } else { 256 };

/// Threads learning game sizes; stopped by [`SizeFill::stop`] or when done.
pub struct SizeFill {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    ended: Arc<Ended>,
}

/// Set when every thread of a [`SizeFill`] has ended (done or stopped): work that would slow
/// the first listing down (building the position index on the same cores) waits for it.
#[derive(Default)]
pub struct Ended {
    ended: Mutex<bool>,
    signal: Condvar,
}

impl Ended {
    /// Wait until the fill has ended or `stop` is set.
    pub fn wait(&self, stop: &AtomicBool) {
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        while !*ended && !stop.load(Ordering::Relaxed) {
            ended = self
                .signal
                .wait_timeout(ended, Duration::from_millis(200))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    fn set(&self) {
        *self.ended.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.signal.notify_all();
    }
}

impl SizeFill {
    /// Start `threads` threads learning the size of every game of `vfs`; the last of them to
    /// end runs `done` when every size was learnt (not when stopped).
    pub fn start(vfs: Arc<Vfs>, threads: usize, done: impl FnOnce() + Send + 'static) -> SizeFill {
        let stop = Arc::new(AtomicBool::new(false));
        let next = Arc::new(Cursors::default());
        let count = threads.max(1);
        let running = Arc::new(AtomicUsize::new(count));
        let done = Arc::new(Mutex::new(Some(done)));
        let ended = Arc::new(Ended::default());
        let threads = (0..count)
            .map(|_| {
                let (vfs, stop, next) = (vfs.clone(), stop.clone(), next.clone());
                let (running, done, ended) = (running.clone(), done.clone(), ended.clone());
                std::thread::Builder::new()
                    .name("gamefs-sizes".into())
                    .spawn(move || {
                        lower_priority();
                        learn_sizes(&vfs, &stop, &next);
                        let last = running.fetch_sub(1, Ordering::AcqRel) == 1;
                        if last && !stop.load(Ordering::Relaxed) {
                            let taken = done.lock().unwrap_or_else(|p| p.into_inner()).take();
                            if let Some(done) = taken {
                                done();
                            }
                        }
                        if last {
                            ended.set();
                        }
                    })
                    .expect("a thread")
            })
            .collect();
        SizeFill {
            stop,
            threads,
            ended,
        }
    }

    /// What is set when the fill has ended.
    pub fn ended(&self) -> Arc<Ended> {
        self.ended.clone()
    }

    /// Wait until every size is learnt (or the fill was stopped).
    pub fn wait(self) {
        for t in self.threads {
            let _ = t.join();
        }
    }

    /// Stop learning sizes and wait for the threads to end (each finishes its game).
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.wait();
    }
}

/// Where the threads take their games from: first in order, going on ahead of any game a
/// reader had to wait for; then once more from the first game, for those the first pass
/// jumped over (a game already known costs a look in the table of sizes).
#[derive(Default)]
struct Cursors {
    ahead: AtomicU64,
    again: AtomicU64,
}

impl Cursors {
    /// The next games for a thread to learn, in the pass `again` says; `None` once that
    /// pass reached the last game.
    fn take(&self, vfs: &Vfs, again: bool) -> Option<Range<u32>> {
        let count = u64::from(vfs.coll.count());
        let first = if again {
            self.again.fetch_add(BATCH, Ordering::Relaxed)
        } else {
            if let Some(waited) = vfs.cache.waited_for() {
                self.ahead
                    .fetch_max(u64::from(waited) + AHEAD, Ordering::Relaxed);
            }
            self.ahead.fetch_add(BATCH, Ordering::Relaxed)
        };
        // Both below `count`, a u32.
        (first < count).then(|| first as u32..(first + BATCH).min(count) as u32)
    }
}

/// Learn the size of every game, batch by batch from `next`, until all are known or `stop`
/// is set.
fn learn_sizes(vfs: &Vfs, stop: &AtomicBool, next: &Cursors) {
    for again in [false, true] {
        while let Some(games) = next.take(vfs, again) {
            for n in games {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                vfs.learn_size(n);
            }
        }
    }
}

/// Let this thread run only when a core would otherwise be idle (`SCHED_IDLE`), so the
/// kernel's requests (a reader, a save's release) never wait behind it.
pub(crate) fn lower_priority() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler with pid 0 changes only the calling thread's policy; `param`
    // is a valid struct that outlives the call, and a failure leaves the policy as it was.
    unsafe {
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_is_learnt_and_exact() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = Arc::new(crate::vfs::testing::demo_tree(dir.path(), false));
        let count = vfs.coll.count();
        assert!(count > 5, "{count} games");
        assert!(
            (0..count).all(|n| vfs.known_size(n).is_none()),
            "nothing known yet"
        );
        SizeFill::start(vfs.clone(), 2, || {}).wait();
        let (_, rendered_for_reading) = vfs.cache.hits_and_misses();
        assert_eq!(
            rendered_for_reading, 0,
            "sizes learnt without using the text cache"
        );
        for n in 0..count {
            let size = vfs.known_size(n).expect("a size learnt");
            assert_eq!(size, vfs.coll.render(n).unwrap().len() as u64, "game {n}");
        }
        assert_eq!(vfs.cache.bytes(), 0, "no text kept");
    }

    #[test]
    fn the_fill_goes_on_ahead_of_a_reader_and_then_learns_what_it_jumped_over() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = Arc::new(crate::vfs::testing::demo_tree(dir.path(), false));
        let count = vfs.coll.count();
        assert!(u64::from(count) > 3 + AHEAD + BATCH, "{count} games");
        let cursors = Cursors::default();
        assert_eq!(cursors.take(&vfs, false), Some(0..2));
        vfs.cache.note_waited_for(3);
        let past = 3 + AHEAD as u32;
        assert_eq!(cursors.take(&vfs, false), Some(past..past + 2));
        assert_eq!(cursors.take(&vfs, false), Some(past + 2..past + 4));
        assert_eq!(cursors.take(&vfs, true), Some(0..2), "then from the start");

        vfs.cache.clear();
        vfs.cache.note_waited_for(count - 1);
        SizeFill::start(vfs.clone(), 2, || {}).wait();
        for n in 0..count {
            assert!(vfs.known_size(n).is_some(), "game {n} jumped over and left");
        }
    }

    #[test]
    fn a_fill_stopped_at_any_point_leaves_only_exact_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = Arc::new(crate::vfs::testing::demo_tree(dir.path(), false));
        for _ in 0..20 {
            vfs.cache.clear();
            SizeFill::start(vfs.clone(), 2, || {}).stop();
            for n in 0..vfs.coll.count() {
                if let Some(size) = vfs.cache.size(n) {
                    assert_eq!(size, vfs.coll.render(n).unwrap().len() as u64, "game {n}");
                }
            }
        }
    }

    #[test]
    fn a_size_measured_before_a_save_is_not_noted_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let vfs = crate::vfs::testing::demo_tree(dir.path(), false);
        let epoch = vfs.cache.epoch();
        vfs.cache.invalidate(3);
        vfs.cache.set_size_if_current(3, 99, epoch);
        assert_eq!(vfs.cache.size(3), None);
        vfs.cache.set_size_if_current(3, 99, vfs.cache.epoch());
        assert_eq!(vfs.cache.size(3), Some(99));
    }
}
