//! The `gamefs` command: mount, export and demo. See `gamefs --help`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let args = Cli::parse();
    // fuser warns when it tries to unmount a mount that `umount` already removed: not news.
    let env = env_logger::Env::default()
        .default_filter_or(format!("{},fuser::session=error", args.log_level));
    let mut logger = env_logger::Builder::from_env(env);
    if let Command::Mount(m) = &args.command
        && let Some(path) = &m.options.log_file
    {
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(f) => {
                logger.target(env_logger::Target::Pipe(Box::new(f)));
            }
            Err(e) => {
                eprintln!("gamefs: cannot open log file {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    logger.init();
    let result = match args.command {
        Command::Mount(m) => cli::mount::run(&m.database, &m.mountpoint, &m.options),
        Command::Export(e) => cli::export::run(&e),
        Command::Demo(d) => cli::demo::run(&d),
        Command::Create(c) => cli::database::create(&c),
        Command::Import(i) => cli::database::import(&i),
        Command::Compact(c) => cli::database::compact(&c),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("gamefs: {message}");
            ExitCode::FAILURE
        }
    }
}
