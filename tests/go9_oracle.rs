//! The 9x9 Go code against independent programs (installed by `contrib/dev/setup test`; a
//! missing tool fails these tests, it never skips them):
//!
//! * gnugo replays generated SGF games (many captures, snapbacks; no suicide) with
//!   `loadsgf`, and its `showboard` must equal the final position our parser plays.
//! * sgfmill parses every SGF we render and must find the same stones, player, id and scores.
#![cfg(feature = "oracle-tests")]

mod go9_common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gamefs::game::go::{Board, Color, GoPosition, Point, Score};
use gamefs::store::go9x9::{Go9Database, Go9Options};
use gamefs::text::{sgf, sgf_parse};
use go9_common::{Rng, empty_db, random_game};

fn gnugo() -> PathBuf {
    for dir in std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .chain(["/usr/games"])
    {
        let p = Path::new(dir).join("gnugo");
        if p.is_file() {
            return p;
        }
    }
    panic!("gnugo is missing: install the Debian package gnugo (contrib/dev/setup test does)");
}

/// Boards gnugo shows after `loadsgf` of each file, in one GTP session.
fn gnugo_boards(files: &[PathBuf]) -> Vec<Board> {
    let mut child = Command::new(gnugo())
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running gnugo");
    let mut script = String::new();
    for f in files {
        script.push_str(&format!("loadsgf {}\nshowboard\n", f.display()));
    }
    script.push_str("quit\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "gnugo failed: {text}");
    assert!(!text.contains("\n? "), "gnugo refused a command:\n{text}");
    // Each showboard answer: rows "9 X . O ... 9" from the top.
    let mut boards = Vec::new();
    let mut rows: Vec<Vec<Option<Color>>> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let mut parts = t.split_whitespace();
        let Some(first) = parts.next() else { continue };
        if first.parse::<u8>().is_err() {
            continue;
        }
        let cells: Vec<&str> = parts.take(9).collect();
        if cells.len() != 9 || !cells.iter().all(|c| matches!(*c, "X" | "O" | "." | "+")) {
            continue;
        }
        rows.push(
            cells
                .iter()
                .map(|c| match *c {
                    "X" => Some(Color::Black),
                    "O" => Some(Color::White),
                    _ => None,
                })
                .collect(),
        );
        if rows.len() == 9 {
            let mut b = Board::empty();
            for (r, row) in rows.iter().enumerate() {
                for (c, cell) in row.iter().enumerate() {
                    b.set(Point::new(r, c).unwrap(), *cell);
                }
            }
            boards.push(b);
            rows.clear();
        }
    }
    assert_eq!(
        boards.len(),
        files.len(),
        "one board per game from gnugo:\n{text}"
    );
    boards
}

fn work_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A snapback in the corner: black throws in at aa, white takes at ba, black retakes three.
const SNAPBACK: &str =
    "(;FF[4]GM[1]SZ[9];B[ac];W[ab];B[bc];W[bb];B[cb];W[ii];B[ca];W[hh];B[aa];W[ba];B[aa])";

#[test]
fn final_positions_equal_gnugos() {
    let dir = work_dir();
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut games = vec![(SNAPBACK.to_owned(), None)];
    for i in 0..60 {
        let (text, board) = random_game(&mut rng, 40 + (i * 7) % 200);
        games.push((text, Some(board)));
    }
    // The same games in FF[3] dress: lowercase letters in names, tt passes, junk in front.
    for (text, board) in games.clone().into_iter().skip(1).take(10) {
        let old = format!(
            "saved by an old program\n{}",
            text.replace("FF[4]", "FF[3]")
                .replace(";B[", ";Black[")
                .replace(";W[", ";White[")
                .replace("[]", "[tt]")
        );
        games.push((old, board));
    }
    let mut files = Vec::new();
    let mut ours = Vec::new();
    let mut captures = 0;
    for (i, (text, model)) in games.iter().enumerate() {
        let path = dir.path().join(format!("game{i:03}.sgf"));
        std::fs::write(&path, text).unwrap();
        files.push(path);
        let parsed = sgf_parse::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        if let Some(model) = model {
            assert_eq!(&parsed.position.board, model, "parser and model agree");
        }
        captures += parsed.moves - parsed.position.board.stones().min(parsed.moves);
        ours.push(parsed.position.board);
    }
    assert!(captures > 500, "the games capture a lot ({captures})");
    let theirs = gnugo_boards(&files);
    for ((file, a), b) in files.iter().zip(&ours).zip(&theirs) {
        assert_eq!(
            a,
            b,
            "{}: ours (left) differs from gnugo's (right)",
            file.display()
        );
    }
    // The snapback itself: black took three stones back.
    assert_eq!(ours[0].count(Color::White), 2);
    assert_eq!(ours[0].get(Point::new(0, 0).unwrap()), Some(Color::Black));
}

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

#[test]
fn sgfmill_reads_what_we_render() {
    let dir = empty_db();
    let db = Go9Database::open_with(&Go9Options {
        dir: Some(dir.path().to_owned()),
        writable: true,
        create: true,
        ..Go9Options::default()
    })
    .unwrap();
    let mut rng = Rng(77);
    let mut ids = Vec::new();
    for i in 0..80 {
        let (_, board) = random_game(&mut rng, i * 3);
        let to_play = if i % 3 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let p = GoPosition {
            board,
            to_play,
            id: None,
            scores: Vec::new(),
            extra: None,
        };
        ids.push(db.save(&p, None).unwrap().id);
    }
    drop(db);
    // Scored files with awkward names: escapes in composed values, non-ASCII text.
    let programs = ["fuego_chinese", "gnu:go_japanese]", "réti_aga"];
    for (k, program) in programs.iter().enumerate() {
        let mut bytes = Vec::new();
        for (i, id) in ids.iter().enumerate().filter(|(i, _)| i % (k + 2) == 0) {
            bytes.extend_from_slice(&id.hash.to_be_bytes());
            bytes.push(id.tiebreak);
            bytes.push(id.to_play.letter() as u8);
            bytes.push(3 + (i % 6) as u8);
            bytes.push((i * 7 % 101) as u8);
        }
        std::fs::write(dir.path().join(format!("{program}.dat")), bytes).unwrap();
    }
    let db = Go9Database::open(dir.path(), false).unwrap();
    assert_eq!(db.programs().len(), 3);
    let out = work_dir();
    let mut json = String::from("[");
    for (n, s) in db.positions().iter().enumerate() {
        let p = db.load(&s.id).unwrap();
        let path = out.path().join(s.id.file_name());
        std::fs::write(&path, sgf::render(&p)).unwrap();
        let points = |c: Color| {
            p.board
                .points_of(c)
                .map(|q| format!("[{},{}]", q.row(), q.col()))
                .collect::<Vec<_>>()
                .join(",")
        };
        let scores = p
            .scores
            .iter()
            .map(|x: &Score| format!("[{},{},{}]", json_str(&x.program), x.score, x.confidence))
            .collect::<Vec<_>>()
            .join(",");
        if n > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "{{\"path\":{},\"black\":[{}],\"white\":[{}],\"to_play\":\"{}\",\"id\":\"{}\",\"scores\":[{}]}}",
            json_str(&path.display().to_string()),
            points(Color::Black),
            points(Color::White),
            p.to_play.letter().to_ascii_lowercase(),
            s.id,
            scores
        ));
    }
    json.push(']');
    let expectations = out.path().join("expected.json");
    std::fs::write(&expectations, json).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/sgf_check.py");
    let run = Command::new("python3")
        .arg(&script)
        .arg(&expectations)
        .output()
        .expect("running python3 (sgfmill)");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "sgfmill disagrees (is it installed? python3 -m pip install sgfmill):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("80 files checked, 0 problems"), "{stdout}");
}
