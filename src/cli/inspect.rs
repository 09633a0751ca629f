//! `gamefs info` and `gamefs check`: what a database holds, and whether it is sound (every
//! problem listed, for every format).

use std::process::ExitCode;

use std::collections::HashSet;
use std::sync::Arc;

use super::InspectArgs;
use super::database::progress;
use gamefs::collection::chess::ChessCollection;
use gamefs::collection::{self, Collection};
use gamefs::store::damage::without_label;
use gamefs::store::scid::ScidDatabase;
use gamefs::store::scid::check;
use gamefs::store::{self, ChessStore, OpenOptions, Problem};

/// A SCID database gets the SCID-specific facts; any other chess format the general ones.
enum Opened {
    Scid(Box<ScidDatabase>),
    Other(Arc<dyn ChessStore>),
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
pub(crate) fn info(args: &InspectArgs) -> Result<ExitCode, String> {
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

/// Check a database of any format: every problem found, one line each (the game or file
/// first), then the notes (fields as another SCID writer writes them: not damage), a count on
/// stderr, and exit status 1 when there is any problem.
pub(crate) fn check(args: &InspectArgs) -> Result<ExitCode, String> {
    let pb = progress(args.quiet || args.json, "checking");
    let (coll, report): (Arc<dyn Collection>, check::Report) =
        if store::scid::looks_like(&args.database) {
            let db =
                Arc::new(ScidDatabase::open(&args.database, false).map_err(|e| e.to_string())?);
            let report = check::check_report(&db, |_| pb.inc(1));
            (Arc::new(ChessCollection::new(db)), report)
        } else {
            let coll = collection::open(&args.database, &OpenOptions::default())
                .map_err(|e| e.to_string())?;
            let problems = check_items(&*coll, |_| pb.inc(1));
            (
                coll,
                check::Report {
                    problems,
                    notes: Vec::new(),
                },
            )
        };
    let writer = report.writer();
    let check::Report { problems, notes } = report;
    pb.finish_and_clear();
    let games = coll.count();
    if args.json {
        let items: Vec<String> = problems
            .iter()
            .map(|p| {
                let file = p.item.map_or("null".into(), |n| {
                    json_str(&format!("{}/{}", coll.items_folder(), coll.file_name(n)))
                });
                format!(
                    "{{\"game\":{},\"file\":{file},\"problem\":{}}}",
                    p.item.map_or("null".into(), |n| (n + 1).to_string()),
                    json_str(&p.message)
                )
            })
            .collect();
        // Notes: fields as another SCID writer writes them, not damage ("ok" stays true).
        let notes: Vec<String> = notes
            .iter()
            .map(|n| {
                format!(
                    "{{\"field\":{},\"games\":{},\"writer\":{},\"note\":{}}}",
                    json_str(n.field),
                    n.games.map_or("null".into(), |g| g.to_string()),
                    json_str(n.writer),
                    json_str(&n.message)
                )
            })
            .collect();
        println!(
            "{{\"games\":{},\"ok\":{},\"problems\":[{}],\"notes\":[{}],\"writer\":{}}}",
            games,
            problems.is_empty(),
            items.join(","),
            notes.join(","),
            writer.map_or("null".into(), json_str)
        );
    } else {
        for p in &problems {
            match p.item {
                Some(n) => println!("{}: {}", coll.item_label(n), p.message),
                None => println!("{}", p.message),
            }
        }
        for n in &notes {
            println!("note: {}", n.message);
        }
        if let Some(w) = writer {
            println!("note: the database looks written by {w}: these are not damage");
        }
        if !args.quiet {
            let notes = match notes.len() {
                0 => String::new(),
                n => format!(", {n} note(s)"),
            };
            eprintln!(
                "checked {games} {}: {} problem(s){notes}",
                coll.items_folder(),
                problems.len()
            );
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Check any collection: the problems opening it found, then every item not already known
/// unreadable reads whole ([`Collection::check`]).
fn check_items(coll: &dyn Collection, mut progress: impl FnMut(u32)) -> Vec<Problem> {
    let mut problems = coll.problems();
    let unreadable: HashSet<u32> = problems
        .iter()
        .filter(|p| p.unreadable)
        .filter_map(|p| p.item)
        .collect();
    for n in 0..coll.count() {
        progress(n);
        if unreadable.contains(&n) {
            continue;
        }
        match coll.check(n) {
            Err(e) => problems.push(Problem {
                item: Some(n),
                message: without_label(e.message(), &coll.item_label(n)),
                unreadable: true,
            }),
            Ok(()) => problems.extend(coll.take_note(n).map(|note| Problem {
                item: Some(n),
                message: note,
                unreadable: false,
            })),
        }
    }
    problems
}
