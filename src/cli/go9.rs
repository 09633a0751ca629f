//! `gamefs go9 …`: the tools the format's original description names (view, histogram, merge,
//! diff-scores, import of ASCII boards; docs/formats/go9x9.md) plus sgf/add/rm, all on the
//! store code the mount uses.
//! Per-item errors are reported and the run goes on; the exit status is 1 when any failed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use gamefs::game::go::{Color, GoPosition, PositionId};
use gamefs::store::go9x9::records::{self, RawId};
use gamefs::store::go9x9::{Go9Database, Go9Options, ascii};
use gamefs::store::scid::writer::replace_file;
use gamefs::text::{sgf, sgf_parse};

/// The `go9` subcommands.
#[derive(Subcommand, Debug)]
pub(crate) enum Go9Command {
    /// Print positions as ASCII boards (all, or the given ids), with their scores.
    View(ViewArgs),
    /// Count positions by number of stones on the board.
    Histogram(DbArgs),
    /// Join position files into one, dropping duplicate PositionIDs (first kept).
    Merge(MergeArgs),
    /// Compare two scored-position files; exit status 1 when they differ.
    DiffScores(DiffArgs),
    /// Append ASCII board positions (9 rows of #, O, .) to a database.
    Import(ImportBoardsArgs),
    /// Print positions as SGF, as the mount shows them.
    Sgf(ViewArgs),
    /// Save SGF files into a database (the final position of each main line).
    Add(AddArgs),
    /// Remove positions by id (rewrites the position file atomically).
    Rm(RmArgs),
}

/// Which database: a directory, with optional explicit files.
#[derive(Args, Debug, Clone)]
pub(crate) struct DbArgs {
    /// The database directory (position file, zobrist_board_81.dat, <program>_<ruleset>.dat).
    pub dir: PathBuf,
    /// The position file, when the directory holds several or it lives elsewhere.
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
    /// The zobrist table (default: DIR/zobrist_board_81.dat).
    #[arg(long, value_name = "FILE")]
    pub zobrist: Option<PathBuf>,
    /// A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR).
    #[arg(long, value_name = "FILE")]
    pub scored: Vec<PathBuf>,
}

impl DbArgs {
    fn options(&self, writable: bool, create: bool) -> Go9Options {
        Go9Options {
            dir: Some(self.dir.clone()),
            positions: self.positions.clone(),
            zobrist: self.zobrist.clone(),
            scored: (!self.scored.is_empty()).then(|| self.scored.clone()),
            writable,
            create,
            trust_hashes: false,
        }
    }

    fn open(&self, writable: bool, create: bool) -> Result<Go9Database, String> {
        Go9Database::open_with(&self.options(writable, create)).map_err(|e| e.to_string())
    }

    /// Open for reading, reporting each damaged record on stderr (the others are used);
    /// true when there was any.
    fn open_reporting(&self) -> Result<(Go9Database, bool), String> {
        let db = self.open(false, false)?;
        let file = db.paths().positions.display().to_string();
        let problems: Vec<String> = db
            .damaged()
            .iter()
            .map(|d| d.describe(&file))
            .chain(db.score_problems().iter().cloned())
            .collect();
        for p in &problems {
            eprintln!("gamefs: {p}");
        }
        Ok((db, !problems.is_empty()))
    }
}

/// Options of `go9 view` and `go9 sgf`.
#[derive(Args, Debug)]
pub(crate) struct ViewArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Position ids (`31846ceb8015dc92-0-W`, or a file name); all positions when none.
    pub ids: Vec<String>,
}

/// Options of `go9 merge`.
#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// The merged position file (written atomically; may be one of the inputs).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Position files to join, in order.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Options of `go9 diff-scores`.
#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// The first scored-position file.
    pub a: PathBuf,
    /// The second scored-position file.
    pub b: PathBuf,
}

/// Options of `go9 import`.
#[derive(Args, Debug)]
pub(crate) struct ImportBoardsArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Text files of ASCII boards.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Player to move for boards without a `who=` line.
    #[arg(long, value_name = "B|W", default_value = "B", value_parser = ["B", "W"])]
    pub to_play: String,
    /// Create DIR/positions.dat when the directory has no position file.
    #[arg(long)]
    pub create: bool,
}

/// Options of `go9 add`.
#[derive(Args, Debug)]
pub(crate) struct AddArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// SGF files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Put the (single) file's position in place of this position id.
    #[arg(long, value_name = "ID")]
    pub replace: Option<String>,
    /// Create DIR/positions.dat when the directory has no position file.
    #[arg(long)]
    pub create: bool,
}

/// Options of `go9 rm`.
#[derive(Args, Debug)]
pub(crate) struct RmArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Position ids to remove.
    #[arg(required = true)]
    pub ids: Vec<String>,
}

/// Run a `go9` subcommand.
pub(crate) fn run(command: &Go9Command) -> Result<ExitCode, String> {
    match command {
        Go9Command::View(a) => view(a, false),
        Go9Command::Sgf(a) => view(a, true),
        Go9Command::Histogram(a) => histogram(a),
        Go9Command::Merge(a) => merge(a),
        Go9Command::DiffScores(a) => diff_scores(a),
        Go9Command::Import(a) => import(a),
        Go9Command::Add(a) => add(a),
        Go9Command::Rm(a) => rm(a),
    }
}

fn parse_id(s: &str) -> Result<PositionId, String> {
    let name = Path::new(s)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(s);
    PositionId::from_file_name(name).ok_or_else(|| {
        format!("{s:?} is not a position id (like 31846ceb8015dc92-0-W or its .sgf file name)")
    })
}

fn status(failed: bool) -> ExitCode {
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn view(args: &ViewArgs, as_sgf: bool) -> Result<ExitCode, String> {
    let (db, mut failed) = args.db.open_reporting()?;
    let ids: Vec<PositionId> = if args.ids.is_empty() {
        db.positions().into_iter().map(|s| s.id).collect()
    } else {
        args.ids
            .iter()
            .map(|s| parse_id(s))
            .collect::<Result<_, _>>()?
    };
    let mut out = String::new();
    for id in ids {
        match db.load(&id) {
            Ok(p) if as_sgf => out.push_str(&sgf::render(&p)),
            Ok(p) => {
                let header = format!(
                    "{:016x}:{}: who={}",
                    id.hash,
                    id.tiebreak,
                    id.to_play.letter()
                );
                let lines: Vec<String> = p
                    .scores
                    .iter()
                    .map(|s| {
                        format!(
                            "{}: score {}, confidence {}",
                            s.program, s.score, s.confidence
                        )
                    })
                    .collect();
                out.push_str(&ascii::render(&header, &p.board, &lines));
            }
            Err(e) => {
                eprintln!("gamefs: {e}");
                failed = true;
            }
        }
    }
    print!("{out}");
    Ok(status(failed))
}

fn histogram(args: &DbArgs) -> Result<ExitCode, String> {
    let (db, damaged) = args.open_reporting()?;
    let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
    let positions = db.positions();
    for s in &positions {
        *counts.entry(s.stones()).or_default() += 1;
    }
    println!("stones positions");
    for (stones, n) in counts {
        println!("{stones:>6} {n:>9}");
    }
    println!(" total {:>9}", positions.len());
    Ok(status(damaged))
}

fn merge(args: &MergeArgs) -> Result<ExitCode, String> {
    let mut seen = HashSet::new();
    let mut bytes = Vec::new();
    let (mut kept, mut dropped) = (0usize, 0usize);
    for input in &args.inputs {
        let data = std::fs::read(input).map_err(|e| format!("reading {}: {e}", input.display()))?;
        let recs = records::decode_positions(&data, &input.display().to_string())
            .map_err(|e| e.to_string())?;
        for r in recs {
            if seen.insert(r.id) {
                bytes.extend(records::encode_position(&r.id, &r.board, r.extra.as_ref()));
                kept += 1;
            } else {
                dropped += 1;
            }
        }
    }
    replace_file(&args.output, &bytes).map_err(|e| e.to_string())?;
    eprintln!(
        "{}: {kept} positions ({dropped} duplicates dropped)",
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn raw_name(id: &RawId) -> String {
    let hex: String = id.hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}-{}-{}", id.tiebreak, id.to_play.letter())
}

/// A scored file's records by id: (score, confidence).
type ScoreMap = HashMap<RawId, (u8, u8)>;

fn diff_scores(args: &DiffArgs) -> Result<ExitCode, String> {
    let load = |p: &PathBuf| -> Result<(Vec<RawId>, ScoreMap), String> {
        let data = std::fs::read(p).map_err(|e| format!("reading {}: {e}", p.display()))?;
        let (recs, _) =
            records::decode_scores(&data, &p.display().to_string()).map_err(|e| e.to_string())?;
        let mut order = Vec::new();
        let mut map = HashMap::new();
        for r in recs {
            if map.insert(r.id, (r.score, r.confidence)).is_none() {
                order.push(r.id);
            }
        }
        Ok((order, map))
    };
    let (a_order, a) = load(&args.a)?;
    let (b_order, b) = load(&args.b)?;
    let (an, bn) = (args.a.display(), args.b.display());
    let (mut same, mut differ, mut only_a, mut only_b) = (0, 0, 0, 0);
    for id in &a_order {
        let (s, c) = a[id];
        match b.get(id) {
            Some(&(s2, c2)) if (s2, c2) == (s, c) => same += 1,
            Some(&(s2, c2)) => {
                differ += 1;
                println!("{}: {an} {s}/{c}, {bn} {s2}/{c2}", raw_name(id));
            }
            None => {
                only_a += 1;
                println!("{}: only in {an} ({s}/{c})", raw_name(id));
            }
        }
    }
    for id in b_order.iter().filter(|id| !a.contains_key(id)) {
        let (s, c) = b[id];
        only_b += 1;
        println!("{}: only in {bn} ({s}/{c})", raw_name(id));
    }
    println!(
        "{same} equal, {differ} differ, {only_a} only in {an}, {only_b} only in {bn} (score/confidence)"
    );
    Ok(status(differ + only_a + only_b > 0))
}

fn import(args: &ImportBoardsArgs) -> Result<ExitCode, String> {
    let db = args.db.open(true, args.create)?;
    let default = if args.to_play == "W" {
        Color::White
    } else {
        Color::Black
    };
    let (mut added, mut present, mut failed) = (0, 0, 0);
    for file in &args.files {
        let text = std::fs::read(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
        let text = gamefs::store::charset::text_from_bytes(&text);
        let boards = match ascii::parse(&text) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("gamefs: {}: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        for b in boards {
            let (hash, _) = db.table().canonical(&b.board);
            if let Some(stated) = b.hash.filter(|h| *h != hash) {
                eprintln!(
                    "gamefs: {}: line {}: the board hashes to {hash:016x}, not {stated:016x} as stated",
                    file.display(),
                    b.line
                );
                failed += 1;
                continue;
            }
            let position = GoPosition {
                board: b.board,
                to_play: b.to_play.unwrap_or(default),
                id: None,
                scores: Vec::new(),
                extra: None,
            };
            match db.save(&position, None) {
                Ok(s) if s.appended => {
                    added += 1;
                    println!("{}", s.id);
                }
                Ok(s) => {
                    present += 1;
                    println!("{}", s.id);
                }
                Err(e) => {
                    eprintln!("gamefs: {}: line {}: {e}", file.display(), b.line);
                    failed += 1;
                }
            }
        }
    }
    eprintln!("{added} added, {present} already present, {failed} refused");
    Ok(status(failed > 0))
}

fn add(args: &AddArgs) -> Result<ExitCode, String> {
    let replace = args.replace.as_deref().map(parse_id).transpose()?;
    if replace.is_some() && args.files.len() != 1 {
        return Err("--replace takes exactly one SGF file".into());
    }
    let db = args.db.open(true, args.create)?;
    let mut failed = false;
    for file in &args.files {
        let result = std::fs::read(file)
            .map_err(|e| format!("reading: {e}"))
            .and_then(|t| sgf_parse::parse(&t).map_err(|e| e.to_string()))
            .and_then(|p| {
                db.save(&p.position, replace.as_ref())
                    .map_err(|e| e.to_string())
            });
        match result {
            Ok(s) => println!("{}", s.id),
            Err(e) => {
                eprintln!("gamefs: {}: {e}", file.display());
                failed = true;
            }
        }
    }
    Ok(status(failed))
}

fn rm(args: &RmArgs) -> Result<ExitCode, String> {
    let db = args.db.open(true, false)?;
    let mut failed = false;
    for s in &args.ids {
        if let Err(e) = parse_id(s).and_then(|id| db.remove(&id).map_err(|e| e.to_string())) {
            eprintln!("gamefs: {e}");
            failed = true;
        }
    }
    Ok(status(failed))
}
