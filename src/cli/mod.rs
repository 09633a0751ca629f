//! The command line: every subcommand and flag is defined once here, with its help text.

pub(crate) mod daemon;
pub(crate) mod database;
pub(crate) mod demo;
pub(crate) mod export;
pub(crate) mod export_output;
pub(crate) mod go9;
pub(crate) mod inspect;
pub(crate) mod logging;
pub(crate) mod mount;
pub(crate) mod mount_options;
pub(crate) mod notify;
pub(crate) mod signals;
pub(crate) mod twins;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Mount chess game databases as folders of PGN files.
#[derive(Parser, Debug)]
#[command(name = "gamefs", version, about, long_about = None, after_help = "\
Examples:
  gamefs mount ~/chess/mybase ~/mnt/chess    mount a SCID database (mybase.si4/.sn4/.sg4)
  gamefs mount dump.pgn.zst ~/mnt/dump        mount a PGN file read-only (indexed once)
  grep -rl 'Najdorf' ~/mnt/chess/games        search every game as text
  umount ~/mnt/chess                          unmount (or: fusermount3 -u ~/mnt/chess)
  gamefs export ~/chess/mybase -o all.pgn     write every game as one PGN file
  gamefs demo                                 mount a bundled sample database at ./gamefs-demo

Guide: docs/guide/ in the source (mdbook build docs), one page per topic; every command and
-o option: docs/guide/options.md; when something goes wrong: docs/guide/faq.md.")]
pub(crate) struct Cli {
    /// Log level (error, warn, info, debug, trace); RUST_LOG overrides it.
    #[arg(long, global = true, value_name = "LEVEL", default_value = "warn")]
    pub log_level: String,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Mount a database as a folder of PGN files (detaches once the mount is ready).
    Mount(MountArgs),
    /// Write every game of a database as one PGN stream.
    Export(ExportArgs),
    /// Mount a bundled sample database and show what to try.
    Demo(DemoArgs),
    /// Create a new, empty database.
    Create(CreateArgs),
    /// Append the games of PGN files to a database (as SCID's import does).
    Import(ImportArgs),
    /// Drop deleted games and unused bytes (as SCID's compaction does); not while mounted.
    Compact(CompactArgs),
    /// Copy the games of a database into a new one of another format (SCID 4, SCID 5, Simple
    /// Chess Database); deleted games are not copied.
    Convert(ConvertArgs),
    /// Show what a database holds: format, games, deleted, names, years, reclaimable bytes.
    Info(InspectArgs),
    /// List every problem of a database (damage, games that do not decode, index fields that
    /// do not match); exit status 1 if there is any.
    Check(InspectArgs),
    /// List the twin games of a chess database as SCID's twin detection finds them (its
    /// default settings), or with --delete mark deleted the copies SCID's "delete twin
    /// games" deletes.
    Twins(TwinsArgs),
    /// Darren Cook's 9x9 Go position databases: view, histogram, merge, diff-scores, import…
    #[command(subcommand)]
    Go9(go9::Go9Command),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the manual page (roff), e.g. `gamefs man | man -l -`.
    Man(ManArgs),
}

/// Options of `gamefs man`.
#[derive(Args, Debug)]
pub(crate) struct ManArgs {
    /// Print the guide's command and option reference (Markdown, docs/guide/options.md)
    /// instead of the man page.
    #[arg(long)]
    pub markdown: bool,
}

/// Options of `gamefs info` and `gamefs check`.
#[derive(Args, Debug)]
pub(crate) struct InspectArgs {
    /// The database: its base path or any of its files.
    pub database: PathBuf,
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress output.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `gamefs twins`.
#[derive(Args, Debug)]
pub(crate) struct TwinsArgs {
    /// The database: its base path or any of its files.
    pub database: PathBuf,
    /// Mark deleted the copies SCID's "delete twin games" deletes (the shorter of each pair,
    /// never a game with comments or variations), and only those; refused for a format
    /// gamefs only reads.
    #[arg(long)]
    pub delete: bool,
    /// No progress or summary output.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `gamefs completions`.
#[derive(Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    pub shell: clap_complete::Shell,
}

/// The completion script for `shell`, generated from these definitions.
pub(crate) fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(
        shell,
        &mut <Cli as clap::CommandFactory>::command(),
        "gamefs",
        &mut out,
    );
    out
}

/// The manual page, generated from these definitions: `gamefs(1)` followed by a section per
/// subcommand with its options.
pub(crate) fn man_page() -> Vec<u8> {
    let command = <Cli as clap::CommandFactory>::command();
    let mut out = Vec::new();
    let render = |c: clap::Command, out: &mut Vec<u8>| {
        clap_mangen::Man::new(c)
            .render(out)
            .expect("rendering to memory cannot fail");
    };
    render(command.clone(), &mut out);
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("gamefs-{}", sub.get_name());
        let sub = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("gamefs {}", sub.get_name()));
        let mut page = Vec::new();
        render(sub, &mut page);
        // Keep one .TH: the subcommand pages become sections of the main page.
        let text = String::from_utf8_lossy(&page);
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with(".TH") && !l.starts_with(".ie") && !l.starts_with(".el"))
            .map(|l| format!("{l}\n"))
            .collect();
        out.extend(format!(".SH \"GAMEFS {}\"\n", sub_title(&name)).bytes());
        out.extend(body.replace(".SH ", ".SS ").bytes());
    }
    out
}

/// The guide's command and option reference (docs/guide/options.md), generated from the same
/// definitions as `--help` and the man page: every subcommand with its usage and arguments,
/// then every `-o` word of [`mount_options::MOUNT_OPTIONS`].
pub(crate) fn reference_markdown() -> String {
    let mut command = <Cli as clap::CommandFactory>::command();
    command.build();
    let mut out = String::from(
        "# Command and option reference\n\n\
         <!-- Generated from the command definitions (src/cli/mod.rs) and the -o table \
         (src/cli/mount_options.rs) by `gamefs man --markdown`, like `--help` and the man page; \
         regenerate with `just generated`: a test fails when this file differs. -->\n\n\
         Every command and option, as `gamefs COMMAND --help` and `man gamefs` list them. How to \
         use them: [Commands](commands.md), [Mounting and options](mounting.md).\n\n\
         ## Commands\n",
    );
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        reference_command(&mut out, sub, "gamefs");
    }
    out.push_str(
        "\n## Mount options\n\n`gamefs mount -o WORD,WORD,…` (also `gamefs demo -o`, mount(8) \
         and fstab). An unknown word is an error that lists these.\n\n\
         | option | meaning |\n|---|---|\n",
    );
    for w in mount_options::MOUNT_OPTIONS
        .iter()
        .filter(|w| !w.help.is_empty())
    {
        out.push_str(&format!("| `{}` | {} |\n", w.spelled(), cell(w.help)));
    }
    out.push_str(&format!(
        "\nIgnored, so that fstab lines work: {}.\n",
        mount_options::ignored_words()
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out
}

/// One subcommand's section of the reference, and its own subcommands' after it.
fn reference_command(out: &mut String, command: &clap::Command, parent: &str) {
    let name = format!("{parent} {}", command.get_name());
    out.push_str(&format!("\n### `{name}`\n\n"));
    if let Some(about) = command.get_about() {
        out.push_str(&format!("{}\n\n", about.to_string().trim()));
    }
    let usage = command
        .clone()
        .bin_name(&name)
        .render_usage()
        .to_string()
        .replace("Usage: ", "");
    out.push_str(&format!("```text\n{usage}\n```\n\n"));
    let args: Vec<_> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version")
        .collect();
    if !args.is_empty() {
        out.push_str("| argument | meaning |\n|---|---|\n");
        for arg in args {
            let value = match (arg.get_action().takes_values(), arg.get_value_names()) {
                (true, Some([name, ..])) => format!(" {name}"),
                _ => String::new(),
            };
            let spelled = match (arg.get_short(), arg.get_long()) {
                (Some(s), Some(l)) => format!("`-{s}{value}`, `--{l}{value}`"),
                (Some(s), None) => format!("`-{s}{value}`"),
                (None, Some(l)) => format!("`--{l}{value}`"),
                (None, None) => format!(
                    "`{}`",
                    arg.get_value_names().and_then(|v| v.first()).map_or_else(
                        || arg.get_id().to_string().to_uppercase(),
                        |v| v.to_string()
                    )
                ),
            };
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            let help = if arg.get_short() == Some('o') && arg.get_long().is_none() {
                "mount options, comma-separated: see [Mount options](#mount-options)".to_owned()
            } else {
                help
            };
            out.push_str(&format!("| {spelled} | {} |\n", cell(&help)));
        }
    }
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        reference_command(out, sub, &name);
    }
}

/// Text fit for one cell of a Markdown table.
fn cell(text: &str) -> String {
    text.replace('\n', " ")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn sub_title(name: &str) -> String {
    name.trim_start_matches("gamefs-").to_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// contrib/ ships the generated man page and completions; they must match the definitions
    /// (regenerate with `just generated`).
    #[test]
    fn generated_files_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib");
        let check = |rel: &str, want: Vec<u8>| {
            let have = std::fs::read(root.join(rel)).unwrap_or_default();
            assert!(
                have == want,
                "contrib/{rel} is out of date: run `just generated`"
            );
        };
        check("man/gamefs.1", man_page());
        // The guide's reference, generated from the same definitions.
        let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/options.md");
        assert!(
            std::fs::read_to_string(&page).unwrap_or_default() == reference_markdown(),
            "docs/guide/options.md is out of date: run `just generated`"
        );
        check(
            "completions/gamefs.bash",
            completions(clap_complete::Shell::Bash),
        );
        check(
            "completions/_gamefs",
            completions(clap_complete::Shell::Zsh),
        );
        check(
            "completions/gamefs.fish",
            completions(clap_complete::Shell::Fish),
        );
    }

    #[test]
    fn man_page_documents_every_subcommand() {
        let man = String::from_utf8(man_page()).unwrap();
        for sub in ["MOUNT", "EXPORT", "DEMO", "CREATE", "IMPORT", "COMPACT"] {
            assert!(man.contains(&format!("GAMEFS {sub}")), "{sub}");
        }
        assert!(man.contains("allow_other"));
    }
}

/// The database formats gamefs can create.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FormatArg {
    /// SCID 4: .si4, .sn4, .sg4.
    Scid,
    /// SCID 5: .si5, .sn5, .sg5.
    Scid5,
    /// Simple Chess Database: .dci, .dcn, .dcs, .dce, .dcg.
    Simplecdb,
}

/// Options of `gamefs create`.
#[derive(Args, Debug)]
pub(crate) struct CreateArgs {
    /// The new database's base path (x makes x.si4, x.sn4, x.sg4; x.si5 makes a SCID 5
    /// database; x.dci makes a Simple Chess Database).
    pub database: PathBuf,
    /// The format (default: from the path's extension, else SCID).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
}

/// Options of `gamefs import`.
#[derive(Args, Debug)]
pub(crate) struct ImportArgs {
    /// The database: its base path or any of its files.
    pub database: PathBuf,
    /// PGN files to import, in order (plain, or compressed as .zst, .gz, .bz2).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Create the database first if it does not exist.
    #[arg(long)]
    pub create: bool,
    /// The format to create with --create (default: from the path's extension, else SCID).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Simple Chess Database: store what the format cannot hold (long names, comments,
    /// variations, extra tags) as closely as it can, logging each loss, instead of refusing.
    #[arg(long)]
    pub lossy: bool,
    /// Store nothing of a file in which a game cannot be stored (by default such games are
    /// left out and reported, and the others stored).
    #[arg(long)]
    pub strict: bool,
    /// Write the text of every game left out, and of every game stored cut short or salvaged
    /// (SCID keeps the moves before a bad one, drops a NAG before a line's first move, …), as
    /// it was in the input, to this file (created, or replaced): a PGN file to mend and import
    /// again.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
    /// Write the report of every game left out (file, game, line, reason) to this file
    /// (default: a new file under $XDG_STATE_HOME/gamefs/, named in the summary line).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// No progress or summary output (games left out are still named).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `gamefs compact`.
#[derive(Args, Debug)]
pub(crate) struct CompactArgs {
    /// The database: its base path or any of its files.
    pub database: PathBuf,
    /// No summary output.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `gamefs convert`.
#[derive(Args, Debug)]
pub(crate) struct ConvertArgs {
    /// The database to read: its base path or any of its files.
    pub source: PathBuf,
    /// The new database (it must not exist): x makes a SCID 4 database, x.si5 a SCID 5 one,
    /// x.dci a Simple Chess Database.
    pub target: PathBuf,
    /// The target's format (default: from its extension, else SCID 4).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// No summary output (games left out are still named).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `gamefs mount`.
#[derive(Args, Debug, Clone)]
pub(crate) struct MountArgs {
    /// The database: its base path or any of its files (x, x.si4, x.sg4, x.sn4), or a PGN
    /// file (x.pgn, x.pgn.zst, x.pgn.gz, x.pgn.bz2) or a ChessBase database (x, x.cbh),
    /// mounted read-only, or a folder of such
    /// databases, mounted as one; or such a database in a bucket or on a web server
    /// (s3://BUCKET/KEY, https://HOST/PATH), read by ranges, read-only (docs/guide/remote.md).
    pub database: PathBuf,
    /// An existing empty directory to mount on.
    pub mountpoint: PathBuf,
    #[command(flatten)]
    pub options: MountOptions,
}

/// Mount options shared by `mount` and `demo`.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct MountOptions {
    /// Stay in the foreground (for systemd and debugging); Ctrl-C unmounts.
    #[arg(short, long)]
    pub foreground: bool,
    /// Mount read-only (same as -o ro).
    #[arg(short = 'r', long)]
    pub read_only: bool,
    /// Mount options, comma-separated (the list: mount_options::MOUNT_OPTIONS).
    #[arg(short = 'o', value_name = "OPTIONS", action = clap::ArgAction::Append,
          long_help = mount_options::help(), help = "Mount options, comma-separated (see --help)")]
    pub options: Vec<String>,
    /// Write the log to this file (otherwise: stderr in the foreground, syslog when detached).
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
}

/// Options of `gamefs export`.
#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    /// The database: its base path or any of its files.
    pub database: PathBuf,
    /// Write to this file instead of standard output (`-` is standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Include games marked deleted.
    #[arg(long)]
    pub include_deleted: bool,
    /// No progress output (progress shows only on a terminal, when writing to a file).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `gamefs demo`.
#[derive(Args, Debug)]
pub(crate) struct DemoArgs {
    /// Where to mount the sample database (created if missing).
    #[arg(default_value = "gamefs-demo")]
    pub mountpoint: PathBuf,
    /// Mount options, as for `gamefs mount -o`.
    #[arg(short = 'o', value_name = "OPTIONS", action = clap::ArgAction::Append)]
    pub options: Vec<String>,
}
