//! `gamefs info` and `gamefs check`: what a database holds, and whether it is sound.

use std::process::ExitCode;

use super::InspectArgs;
use super::database::progress;
use gamefs::store::scid::ScidDatabase;
use gamefs::store::scid::check::{self, Problem};
use gamefs::store::{self, ChessStore};
use gamefs::text::pgn;

/// A SCID database gets the SCID-specific facts and checks; any other format the general ones.
enum Opened {
    Scid(Box<ScidDatabase>),
    Other(std::sync::Arc<dyn ChessStore>),
}

fn open(args: &InspectArgs) -> Result<Opened, String> {
    if store::scid::looks_like(&args.database) {
        return ScidDatabase::open(&args.database, false)
            .map(|db| Opened::Scid(Box::new(db)))
            .map_err(|e| e.to_string());
    }
    store::open(&args.database, false)
        .map(Opened::Other)
        .map_err(|e| e.to_string())
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Print the facts of a database.
pub fn info(args: &InspectArgs) -> Result<ExitCode, String> {
    let (i, format) = match open(args)? {
        Opened::Scid(db) => (check::info(&db), db.info().format),
        Opened::Other(db) => (check::store_info(&*db), db.info().format),
    };
    let years = i.years.map(|(a, b)| format!("{a}–{b}"));
    if args.json {
        let years_json = i
            .years
            .map_or("null".to_owned(), |(a, b)| format!("[{a},{b}]"));
        println!(
            "{{\"format\":{},\"version\":{},\"description\":{},\"games\":{},\"deleted\":{},\"players\":{},\"events\":{},\"sites\":{},\"rounds\":{},\"years\":{years_json},\"garbage_bytes\":{}}}",
            json_str(&format),
            i.version,
            json_str(&i.description),
            i.games,
            i.deleted,
            i.names[0],
            i.names[1],
            i.names[2],
            i.names[3],
            i.garbage_bytes
        );
    } else {
        println!("format:        {format}");
        if !i.description.is_empty() {
            println!("description:   {}", i.description);
        }
        println!("games:         {} ({} deleted)", i.games, i.deleted);
        println!("players:       {}", i.names[0]);
        println!("events:        {}", i.names[1]);
        println!("sites:         {}", i.names[2]);
        println!("rounds:        {}", i.names[3]);
        println!(
            "years:         {}",
            years.unwrap_or_else(|| "unknown".into())
        );
        if format.starts_with("SCID") {
            println!("reclaimable:   {} bytes (gamefs compact)", i.garbage_bytes);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Check a database; exit status 1 when anything is wrong.
pub fn check(args: &InspectArgs) -> Result<ExitCode, String> {
    let opened = open(args)?;
    let pb = progress(args.quiet || args.json, "checking");
    let (problems, games): (Vec<Problem>, u32) = match &opened {
        Opened::Scid(db) => (check::check(db, |_| pb.inc(1)), db.game_count()),
        Opened::Other(db) => (check_store(&**db, |_| pb.inc(1)), db.game_count()),
    };
    pb.finish_and_clear();
    if args.json {
        let items: Vec<String> = problems
            .iter()
            .map(|p| {
                format!(
                    "{{\"game\":{},\"problem\":{}}}",
                    p.game.map_or("null".into(), |g| g.to_string()),
                    json_str(&p.message)
                )
            })
            .collect();
        println!(
            "{{\"games\":{},\"ok\":{},\"problems\":[{}]}}",
            games,
            problems.is_empty(),
            items.join(",")
        );
    } else {
        for p in &problems {
            match p.game {
                Some(g) => println!("game {g}: {}", p.message),
                None => println!("{}", p.message),
            }
        }
        if !args.quiet {
            eprintln!("checked {} games: {} problem(s)", games, problems.len());
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Check any chess database: every game decodes and renders.
fn check_store(db: &dyn ChessStore, mut progress: impl FnMut(u32)) -> Vec<Problem> {
    let mut problems = Vec::new();
    for n in 0..db.game_count() {
        progress(n);
        if let Err(e) = db.load(n).and_then(|g| pgn::render(&g)) {
            problems.push(Problem {
                game: Some(n + 1),
                message: e.to_string(),
            });
        }
    }
    problems
}
