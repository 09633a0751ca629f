//! The `gamefs` command: mount, export and demo. See `gamefs --help`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

/// mimalloc rather than glibc's malloc: an import parses games on one thread and frees them
/// on another, and glibc's arena lock made a fifth of a million-game import's time futex
/// wake-ups (perf); mimalloc frees across threads without that lock (a million-game import:
/// 30 s with glibc, 19 s with mimalloc, BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in the `mi_option_e` of the mimalloc the `mimalloc` crate builds
/// (v3, mimalloc.h; the version is pinned by Cargo.lock).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

unsafe extern "C" {
    /// Set a mimalloc option (mimalloc.h); options read at each use take effect at once.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Memory mimalloc no longer needs goes back to the system at once, not after its default
/// 10 ms (100 ms for its arenas): an import keeps only the parts of its text in flight, and a
/// mount stays as small as its caches (tests/cli.rs an_import_does_not_hold_the_file_in_memory:
/// a 64 MiB file peaked at 33 MiB with the delay, 23 MiB without).
fn return_freed_memory_at_once() {
    // SAFETY: mi_option_set only stores an integer in mimalloc's option table.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
}

/// No transparent huge pages for this process (nor the programs it starts). mimalloc asks for
/// them on its big regions, and with the kernel's usual `defrag=madvise` a fault there may
/// first compact memory to find a free 2 MiB page: an export of 55,065 real-world games took
/// 0.14 to 0.22 s from run to run, 0.16 to 0.18 s without, in 52 instead of 77 MB (the
/// 100,000-game export: 15 instead of 32 MB, no slower; contrib/bench/runs, 2026-11-27).
fn no_transparent_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process; a kernel without it
    // (before 3.15) refuses it, and then nothing changes.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

/// mount(8) and fstab run `gamefs SOURCE MOUNTPOINT -o OPTIONS` (through mount.fuse3 for type
/// `fuse.gamefs`): read that as `gamefs mount …`.
fn arguments() -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(first) = args.get(1).and_then(|a| a.to_str())
        && !first.starts_with('-')
        && !is_subcommand(first)
        && args.len() >= 3
    {
        args.insert(1, "mount".into());
    }
    args
}

/// Whether `word` names a subcommand (clap's definitions, with its `help`); anything else in
/// first place is a database (mount(8)'s helper form).
fn is_subcommand(word: &str) -> bool {
    use clap::CommandFactory;
    word == "help" || Cli::command().find_subcommand(word).is_some()
}

/// Raise this process's limit of open files to the most it may have: a build of the position
/// index of millions of games keeps a file open per bucket (thousands), and many a desktop's
/// limit is 1,024 until raised (as systemd advises programs to do for themselves).
fn open_files_up_to_the_hard_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the one struct given, which lives here.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

fn main() -> ExitCode {
    no_transparent_huge_pages();
    open_files_up_to_the_hard_limit();
    cli::signals::keep_from_worker_threads();
    let args = Cli::parse_from(arguments());
    // An export reuses the few buffers it holds, batch after batch: memory given back at once
    // would come back as fresh pages the kernel zeroes again.
    if !matches!(args.command, Command::Export(_)) {
        return_freed_memory_at_once();
    }
    if let Err(message) = cli::logging::init(&args) {
        eprintln!("gamefs: {message}");
        return ExitCode::FAILURE;
    }
    let result = match args.command {
        Command::Mount(m) => cli::mount::run(&m.database, &m.mountpoint, &m.options),
        Command::Export(e) => cli::export::run(&e),
        Command::Demo(d) => cli::demo::run(&d),
        Command::Create(c) => cli::database::create(&c),
        Command::Import(i) => cli::database::import(&i),
        Command::Compact(c) => cli::database::compact(&c),
        Command::Convert(c) => cli::database::convert(&c),
        Command::Info(i) => cli::inspect::info(&i),
        Command::Check(c) => cli::inspect::check(&c),
        Command::Twins(t) => cli::twins::run(&t),
        Command::Go9(g) => cli::go9::run(&g),
        Command::Completions(c) => print(&cli::completions(c.shell)),
        Command::Man(args) if args.markdown => print(cli::reference_markdown().as_bytes()),
        Command::Man(_) => print(&cli::man_page()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("gamefs: {message}");
            ExitCode::FAILURE
        }
    }
}

fn print(bytes: &[u8]) -> Result<ExitCode, String> {
    use std::io::Write;
    std::io::stdout()
        .write_all(bytes)
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
