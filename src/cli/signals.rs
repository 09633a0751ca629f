//! Stop signals taken by a thread of ours instead of killing the process outright, so that a
//! command can finish its work first (a mount unmounts, an export cuts its file).

/// The signals that ask a command to stop: Ctrl-C, `kill`, a closed terminal.
pub(crate) const STOP: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Block `signals` in the calling thread and in every thread it starts afterwards (threads
/// inherit the mask), so that only [`wait`] takes them.
pub(crate) fn block(signals: impl IntoIterator<Item = i32>) -> libc::sigset_t {
    // SAFETY: plain libc signal-set manipulation on a local, initialised set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in signals {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    }
}

/// Wait for one of the signals of `set` (blocked by [`block`]) and return it.
pub(crate) fn wait(set: &libc::sigset_t) -> i32 {
    let mut sig = 0;
    // SAFETY: `set` is a valid signal set and `sig` a valid out-pointer.
    unsafe { libc::sigwait(set, &mut sig) };
    sig
}

/// End the process as `sig` would have, had it not been taken: the shell and a supervisor
/// see a process killed by that signal (exit status 128 + `sig`), not one that exited.
pub(crate) fn die_of(sig: i32) -> ! {
    // SAFETY: restoring a signal's default action, unblocking it in this thread and raising
    // it in this thread are plain libc calls on valid arguments.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    // A signal whose default action does not end the process: end it with the shell's status.
    std::process::exit(128 + sig)
}

/// Keep the stop signals and the mount's wake-up ([`block`]) from the worker threads of
/// rayon's global pool, wherever it is first used: a pool started before a command blocks
/// them for [`wait`] (the PGN files indexed, or a folder's databases opened, on every core
/// before a mount) would otherwise be where the kernel may deliver a `kill`, whose default
/// action then ends the process at once, unmounting nothing (seen: a stopped systemd service
/// that never said `STOPPING=1`). Before the command blocks them, the main thread still takes
/// them as it always did.
pub(crate) fn keep_from_worker_threads() {
    let _ = rayon::ThreadPoolBuilder::new()
        .start_handler(|_| {
            block(STOP.into_iter().chain([libc::SIGUSR1]));
        })
        .build_global();
}
