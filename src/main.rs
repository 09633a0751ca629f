//! The `gamefs` command: mount, export and demo. See `gamefs --help`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

/// The subcommand names; anything else in first place is a database (mount(8)'s helper form).
const SUBCOMMANDS: [&str; 12] = [
    "mount",
    "export",
    "demo",
    "create",
    "import",
    "compact",
    "info",
    "check",
    "go9",
    "completions",
    "man",
    "help",
];

/// mount(8) and fstab run `gamefs SOURCE MOUNTPOINT -o OPTIONS` (through mount.fuse3 for type
/// `fuse.gamefs`): read that as `gamefs mount …`.
fn arguments() -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(first) = args.get(1).and_then(|a| a.to_str())
        && !first.starts_with('-')
        && !SUBCOMMANDS.contains(&first)
        && args.len() >= 3
    {
        args.insert(1, "mount".into());
    }
    args
}

fn main() -> ExitCode {
    let args = Cli::parse_from(arguments());
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
        Command::Info(i) => cli::inspect::info(&i),
        Command::Check(c) => cli::inspect::check(&c),
        Command::Go9(g) => cli::go9::run(&g),
        Command::Completions(c) => print(&cli::completions(c.shell)),
        Command::Man => print(&cli::man_page()),
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
