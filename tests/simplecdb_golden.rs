//! Golden files written by the reference writer pgn2dcg (tests/data/simplecdb/): reading them
//! gives the games of the PGN beside them as far as the format holds them, and importing that
//! PGN into an empty database in one batch gives the same bytes.

use std::path::{Path, PathBuf};

use gamefs::game::{ChessGame, Line, StartPosition};
use gamefs::store::simplecdb::{self, EXTENSIONS, SimpleCdb, codec, fit};
use gamefs::store::{ChessStore, OpenOptions};
use gamefs::text::pgn_parse;

fn golden_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/simplecdb");
    assert!(
        dir.join("edge.dci").is_file(),
        "the golden files are missing: expected {} (tests/data/ of the checkout)",
        dir.display()
    );
    dir
}

/// The PGN text with the documented format losses the shared parser would refuse applied
/// first: ECO cut to 3 characters, EventDate dropped (the format has no place for it), and
/// the movetext result made the Result tag's (the format stores the tag).
fn prepared_pgn(text: &str) -> String {
    let mut out = String::new();
    let mut result = "*".to_string();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("[ECO \"") {
            let v: String = v.trim_end_matches("\"]").chars().take(3).collect();
            out.push_str(&format!("[ECO \"{v}\"]\n"));
            continue;
        }
        if line.starts_with("[EventDate ") {
            continue;
        }
        if let Some(v) = line.strip_prefix("[Result \"") {
            result = v.trim_end_matches("\"]").to_string();
        }
        if !line.starts_with('[') {
            let mut words: Vec<&str> = line.split(' ').collect();
            if let Some(last) = words.last_mut()
                && ["1-0", "0-1", "1/2-1/2", "*"].contains(last)
            {
                *last = &result;
            }
            out.push_str(&words.join(" "));
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// pgn2dcg stores tag values as written in the PGN, escapes included (`\"Zonal\"`).
fn escaped_names(g: &mut ChessGame) {
    let h = &mut g.headers;
    for v in [&mut h.white, &mut h.black, &mut h.site, &mut h.event] {
        *v = v.replace('\\', "\\\\").replace('"', "\\\"");
    }
}

fn parsed_games(name: &str) -> Vec<ChessGame> {
    let text = std::fs::read_to_string(golden_dir().join(format!("{name}.pgn"))).unwrap();
    let text = prepared_pgn(&text);
    pgn_parse::games(text.as_bytes())
        .enumerate()
        .map(|(i, g)| {
            let mut g = g.unwrap_or_else(|e| panic!("{name}.pgn game {}: {e}", i + 1));
            escaped_names(&mut g);
            g
        })
        .collect()
}

/// What the format keeps of a game: the headers as stored, a FEN of the standard start as the
/// standard start, no comments at the start of variations.
fn as_stored(mut g: ChessGame) -> ChessGame {
    g.headers = fit::stored_headers(&fit::fit_headers(&g.headers).0);
    if g.start == StartPosition::Fen(codec::STANDARD_FEN.into()) {
        g.start = StartPosition::Standard;
    }
    fn strip(line: &mut Line) {
        for node in &mut line.moves {
            for var in &mut node.variations {
                var.comment = None;
                strip(var);
            }
        }
    }
    strip(&mut g.moves);
    g
}

fn check_read(name: &str) -> usize {
    let expected = parsed_games(name);
    let db = SimpleCdb::open(&golden_dir().join(name), false, false).unwrap();
    assert_eq!(
        db.game_count() as usize,
        expected.len(),
        "{name}: game count"
    );
    for (i, want) in expected.into_iter().enumerate() {
        let got = db
            .load(i as u32)
            .unwrap_or_else(|e| panic!("{name} game {}: {e}", i + 1));
        let want = as_stored(want);
        assert_eq!(got.headers, want.headers, "{name} game {}: headers", i + 1);
        assert_eq!(got.start, want.start, "{name} game {}: start", i + 1);
        assert_eq!(got.moves, want.moves, "{name} game {}: moves", i + 1);
        assert!(!db.summary(i as u32).deleted);
    }
    db.game_count() as usize
}

/// The raw `{…}` comments of each game's movetext, in text order (pgn2dcg stores them as
/// written; the shared parser normalises their whitespace).
fn raw_comments(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(golden_dir().join(format!("{name}.pgn"))).unwrap();
    let mut games: Vec<Vec<String>> = Vec::new();
    let mut in_tags = false;
    let mut rest = text.as_str();
    while !rest.is_empty() {
        if rest.starts_with('[')
            && (rest.len() == text.len() || text[..text.len() - rest.len()].ends_with('\n'))
        {
            if !in_tags {
                games.push(Vec::new());
                in_tags = true;
            }
            rest = &rest[rest.find('\n').map_or(rest.len(), |i| i + 1)..];
            continue;
        }
        in_tags = in_tags && (rest.starts_with('\n') || rest.starts_with('['));
        if let Some(body) = rest.strip_prefix('{') {
            let end = body.find('}').unwrap();
            if !body[..end].trim().is_empty() {
                games.last_mut().unwrap().push(body[..end].to_string());
            }
            rest = &body[end + 1..];
            continue;
        }
        let c = rest.chars().next().unwrap();
        if c != '\n' {
            in_tags = false;
        }
        rest = &rest[c.len_utf8()..];
    }
    games
}

/// Put `raw` comments into `g` in PGN (= encoding) order.
fn with_raw_comments(g: &mut ChessGame, raw: &[String]) {
    let mut it = raw.iter();
    let mut next = |slot: &mut Option<String>| {
        if let Some(c) = slot {
            let r = it.next().expect("as many raw comments as parsed ones");
            assert_eq!(r.split_whitespace().collect::<Vec<_>>().join(" "), *c);
            *slot = Some(r.clone());
        }
    };
    fn walk(line: &mut Line, skip_first: bool, next: &mut dyn FnMut(&mut Option<String>)) {
        for (i, node) in line.moves.iter_mut().enumerate() {
            if !(skip_first && i == 0) {
                next(&mut node.comment);
            }
            for var in &mut node.variations {
                next(&mut var.comment);
                if let Some(first) = var.moves.first_mut() {
                    next(&mut first.comment);
                }
                walk(var, true, next);
            }
        }
    }
    next(&mut g.moves.comment);
    walk(&mut g.moves, false, &mut next);
}

fn check_import_bytes(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join(name);
    simplecdb::create(&base).unwrap();
    let db = gamefs::store::open_with(
        &base,
        &OpenOptions {
            writable: true,
            lossy: true,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    let mut games = parsed_games(name);
    let raw = raw_comments(name);
    assert_eq!(raw.len(), games.len());
    for (g, r) in games.iter_mut().zip(&raw) {
        with_raw_comments(g, r);
    }
    let n = games.len();
    let numbers = db.append(&mut games.into_iter().map(Ok)).unwrap();
    assert_eq!(numbers.len(), n);
    drop(db);
    for ext in EXTENSIONS {
        let ours = std::fs::read(simplecdb::with_ext(&base, ext)).unwrap();
        let theirs = std::fs::read(golden_dir().join(format!("{name}.{ext}"))).unwrap();
        if ours != theirs {
            let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
            panic!(
                "{name}.{ext}: {} bytes ours, {} theirs, first difference at {at:?}",
                ours.len(),
                theirs.len()
            );
        }
    }
}

#[test]
fn edge_reads_as_its_pgn() {
    assert_eq!(check_read("edge"), 6);
}

#[test]
fn gen300_reads_as_its_pgn() {
    assert_eq!(check_read("gen300"), 300);
}

#[test]
fn edge_import_is_byte_identical() {
    check_import_bytes("edge");
}

#[test]
fn gen300_import_is_byte_identical() {
    check_import_bytes("gen300");
}

#[test]
fn recognised_by_any_of_its_files() {
    let dir = golden_dir();
    for p in [dir.join("edge")]
        .into_iter()
        .chain(EXTENSIONS.map(|e| dir.join(format!("edge.{e}"))))
    {
        let db = gamefs::store::open(&p, false).unwrap();
        assert_eq!(db.game_count(), 6, "{}", p.display());
        assert!(db.info().format.contains("Simple Chess Database"));
    }
    // The PGN file it was made from is none of its files: it is mounted as a PGN file.
    let pgn = dir.join("edge.pgn");
    assert!(!gamefs::store::simplecdb::looks_like(&pgn));
    assert!(gamefs::store::pgn::looks_like(&pgn));
}

/// `gamefs import --lossy` of the very PGN file pgn2dcg read (no preparation: escapes, a
/// Result tag the game's end contradicts, comments with spaces and line breaks, an ECO
/// pgn2dcg cuts) writes pgn2dcg's bytes: a bulk import into a Simple Chess Database reads PGN
/// as its own importer does, and reports what it stored otherwise than written (exit 3).
#[test]
fn gamefs_import_of_the_pgn_writes_pgn2dcgs_bytes() {
    for name in ["edge", "gen300"] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(format!("{name}.dci"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gamefs"))
            .args(["import", "--create", "--lossy", "-q"])
            .arg(&db)
            .arg(golden_dir().join(format!("{name}.pgn")))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{name}: {out:?}");
        for ext in EXTENSIONS {
            let ours = std::fs::read(db.with_extension(ext)).unwrap();
            let golden = std::fs::read(golden_dir().join(format!("{name}.{ext}"))).unwrap();
            assert!(ours == golden, "{name}.{ext} differs from pgn2dcg's");
        }
    }
}
