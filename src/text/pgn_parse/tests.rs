//! Tests of the PGN reader: round trips, refusals with their places, and odd real-world text.

use super::lexer::*;
use super::tags::*;
use super::*;
use crate::game::{Ply, Rating, RatingType, StartPosition};
use crate::text::pgn::render;
use proptest::prelude::*;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// parse(render(g)) == g, and rendering is a fixed point.
fn assert_round_trip(g: &ChessGame) {
    let text = render(g).expect("render");
    let again = one_game(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&again, g, "{text}");
    assert_eq!(render(&again).expect("render"), text);
}

fn ok(text: &str) -> ChessGame {
    one_game(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

/// The refusal of `text`: at `line`/`column`, with `part` in its message.
fn refused(text: &str, line: u32, column: u32, part: &str) -> ParseError {
    let e = one_game(text.as_bytes()).expect_err("should be refused");
    assert!(e.message.contains(part), "{e:?} lacks {part:?}");
    assert_eq!((e.line, e.column), (line, column), "{e}");
    e
}

// ---- round trips over the sample and test data -------------------------------------------

/// Games of the test data that must be refused, with part of the message.
const REFUSED: &[(&str, usize, &str)] = &[
    ("tags.pgn", 6, "BlackRating \"abc\" is not a rating"),
    ("tags.pgn", 10, "ECO \"c1\" is not a code"),
    (
        "annotations.pgn",
        1,
        "a second comment after 3... a6; join them into one comment",
    ),
];

#[test]
fn sample_and_test_data_round_trip() {
    let mut files = vec!["contrib/sample/demo.pgn".to_string()];
    let mut data: Vec<String> = std::fs::read_dir(format!("{ROOT}/tests/data"))
        .expect("tests/data")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".pgn"))
        .map(|n| format!("tests/data/{n}"))
        .collect();
    data.sort();
    assert!(data.len() >= 10, "{data:?}");
    files.extend(data);
    let mut checked = 0;
    let mut refusals = 0;
    for file in &files {
        let text = read(file);
        let name = file.rsplit('/').next().unwrap_or(file);
        let mut count = 0;
        for (i, result) in games(&text).enumerate() {
            count += 1;
            let expected = REFUSED.iter().find(|(f, n, _)| *f == name && *n == i + 1);
            match (result, expected) {
                (Ok(g), None) => {
                    assert_round_trip(&g);
                    checked += 1;
                }
                (Err(e), Some((_, _, part))) => {
                    assert!(e.message.contains(part), "{file} game {}: {e}", i + 1);
                    assert_eq!(e.game as usize, i + 1);
                    refusals += 1;
                }
                (Ok(_), Some(_)) => panic!("{file} game {} should be refused", i + 1),
                (Err(e), None) => panic!("{file} game {}: {e}", i + 1),
            }
        }
        assert!(count > 0, "{file}");
    }
    assert_eq!(refusals, REFUSED.len());
    assert!(checked > 100, "{checked}");
}

/// An import parses thousands of games ahead of writing them: each must hold only the
/// room its moves need, not the room made up front for a long main line.
#[test]
fn a_parsed_game_holds_no_spare_room_for_moves() {
    let g = ok("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *");
    assert_eq!(g.moves.moves.len(), 6);
    assert_eq!(g.moves.moves.capacity(), 6);
}

#[test]
fn demo_has_thirty_games() {
    let text = read("contrib/sample/demo.pgn");
    assert_eq!(games(&text).filter(Result::is_ok).count(), 30);
}

#[test]
fn odd_files() {
    let four = one_game(&read("tests/data/odd/fen-4field.pgn")).expect("4-field FEN");
    assert_eq!(
        four.start,
        StartPosition::Fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into())
    );
    assert_eq!(
        four.headers.extra,
        vec![("SetUp".to_owned(), "1".to_owned())],
        "SetUp is kept, as SCID keeps it"
    );
    assert_eq!(four.moves.plies(), 4);
    assert_round_trip(&four);

    let latin = one_game(&read("tests/data/odd/latin1.pgn")).expect("Latin-1");
    assert_eq!(latin.headers.white, "Réti, Richard");
    assert_eq!(latin.headers.black, "Ärger, Jürgen");
    assert_eq!(latin.headers.site, "Zürich");
    assert_eq!(latin.moves.comment.as_deref(), Some("Café comment"));
    assert_round_trip(&latin);

    let text = read("tests/data/odd/result-mismatch.pgn");
    let all: Vec<_> = games(&text).collect();
    assert_eq!(all.len(), 2);
    let e = all[0].as_ref().expect_err("mismatch");
    assert_eq!((e.line, e.column, e.game), (9, 7, 1));
    assert_eq!(
        e.message,
        "the game ends with \"0-1\" but its Result tag (line 7) says \"1-0\"; make them agree"
    );
    let second = all[1].as_ref().expect("no Result tag");
    assert_eq!(second.headers.result, GameResult::Draw);
}

// ---- tags --------------------------------------------------------------------------------

#[test]
fn roster_names_and_missing_tags() {
    let g = ok("[White \"?\"]\n[Event \"\"]\n\n1. e4 *\n");
    assert_eq!(g.headers.white, "?");
    assert_eq!(g.headers.event, "");
    assert_eq!(g.headers.black, "");
    assert_eq!(g.headers.site, "");
    assert_eq!(g.headers.result, GameResult::Unknown);
    // How long a name may be is the store's business: the parser keeps it.
    let long = format!("[Event \"x\"]\n[White \"{}\"]\n\n*", "é".repeat(128));
    assert_eq!(ok(&long).headers.white.len(), 256);
    refused(
        "[Event \"a\"]\n[Site \"b\"]\n[Event \"c\"]\n*",
        3,
        1,
        "tag Event appears twice",
    );
}

/// Each tag kept in a field of its own is one given twice when its name comes again, and only
/// then: not for another of the same length and first letter, nor for a name almost its.
#[test]
fn a_field_tag_given_twice_is_told_by_its_whole_name() {
    use crate::game::chess::FIELD_TAGS;
    let value = |name: &str| match name {
        "Date" | "EventDate" => "2020.01.02",
        "Result" => "1-0",
        "ECO" => "B12",
        "FEN" => "8/8/8/8/8/8/8/K1k5 w - - 0 1",
        _ => "x",
    };
    let all: String = FIELD_TAGS
        .iter()
        .map(|t| format!("[{t} \"{}\"]\n", value(t)))
        .collect();
    let near = "[Eventx \"a\"]\n[Evenx \"b\"]\n[Whitf \"c\"]\n[EC \"d\"]\n[Sitee \"e\"]\n";
    let g = ok(&format!("{all}{near}\n1-0"));
    let extra: Vec<&str> = g.headers.extra.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(extra, ["Eventx", "Evenx", "Whitf", "EC", "Sitee"]);
    for t in FIELD_TAGS {
        let text = format!("{all}{near}[{t} \"{}\"]\n\n1-0", value(t));
        refused(&text, 16, 1, &format!("tag {t} appears twice"));
        let (_, changes) = as_scid(&text);
        assert_eq!(
            changes,
            [format!("line 16: tag {t} given twice: the last one kept")],
            "{t}"
        );
    }
}

/// One game read as SCID reads it, with what was changed.
fn as_scid(text: &str) -> (ChessGame, Vec<String>) {
    let read = Games::new(text.as_bytes())
        .reading(Reading::AsScid)
        .next()
        .expect("a game")
        .unwrap_or_else(|e| panic!("{e}"));
    let changes = read
        .changes
        .into_iter()
        .map(|(l, w)| format!("line {l}: {w}"))
        .collect();
    (read.game, changes)
}

#[test]
fn odd_text_is_read_as_scid_reads_it_and_the_changes_named() {
    for (date, want) in [
        ("1993", "1993.??.??"),
        ("1993/09/06", "1993.09.06"),
        ("1993-09-06", "1993.09.06"),
        ("1993.9.6", "1993.??.??"),
        ("06.09.1993", "0600.01.??"),
        ("93.09.06", "9300.??.??"),
        ("1993.13.45", "1993.??.??"),
        ("1993.02.29", "1993.02.??"),
        ("1992.02.29", "1992.02.29"),
        ("2050.01.01", "2050.01.01"),
    ] {
        let (g, changes) = as_scid(&format!("[Date \"{date}\"]\n*"));
        assert_eq!(g.headers.date.to_string(), want, "{date}");
        assert_eq!(
            changes.len(),
            usize::from(date != want),
            "{date}: {changes:?}"
        );
    }
    for (tag, marker, want) in [
        ("1/2", "*", GameResult::Unknown),
        ("1/2", "1/2", GameResult::Draw),
        ("1-0 ", "1-0", GameResult::WhiteWins),
        ("draw", "1/2-1/2", GameResult::Draw),
        ("1-0", "0-1", GameResult::BlackWins),
        ("*", "1:0", GameResult::WhiteWins),
    ] {
        let (g, _) = as_scid(&format!("[Result \"{tag}\"]\n\n1. e4 {marker}"));
        assert_eq!(g.headers.result, want, "{tag} / {marker}");
    }
    for (eco, want) in [
        ("C1", Some("C10")),
        ("a00", Some("A00")),
        ("B91z9", Some("B91z")),
        ("B12a4 Caro-Kann", Some("B12a4")),
        ("E5x", Some("E50")),
        ("c", Some("C00")),
        ("Dé", Some("D00")),
        ("F00", None),
    ] {
        assert_eq!(
            as_scid(&format!("[ECO \"{eco}\"]\n*"))
                .0
                .headers
                .eco
                .as_deref(),
            want
        );
    }
    let (g, changes) = as_scid(
        "{Before the tags} ; and a line with } in it\n[Event \"x\"]\n[Event \"y\"]\n\n\
         {Pre} 1. e4 {a} {b} e5 2. g1f3 Nc6 3. Bb5 a6 *",
    );
    assert_eq!(g.headers.event, "y");
    assert_eq!(
        g.moves.comment.as_deref(),
        Some("Before the tagsand a line with } in itPre")
    );
    assert_eq!(g.moves.moves[0].comment.as_deref(), Some("ab"));
    assert_eq!(g.moves.moves.len(), 6);
    assert_eq!(changes.len(), 4, "{changes:?}");
    for (raw, want) in [
        ("a\r\nb", "a b"),
        ("a \n b", "a  b"),
        ("\ta\tb\n", "a b"),
        ("a\n\n", "a"),
    ] {
        assert_eq!(scid_comment(raw), want, "{raw:?}");
    }
    // Notations any reading takes: coordinates, promotion without '=', marked en passant
    // and double check.
    let g = ok("[FEN \"8/4P3/8/3pP3/8/8/8/K1k5 w - d6 0 1\"]\n1. exd6ep Kc2 2. e8Q Kd3 3. Qe3++ *");
    assert_eq!(g.moves.moves.len(), 5);
    let g = ok("1. e2e4 e7e5 2. g1f3 *");
    assert_eq!(g.moves.moves.len(), 3);
    // Exact reading still refuses what it would change.
    refused("[Date \"1993\"]\n*", 1, 8, "is not a date");
    refused("1. e4 {a} {b} *", 1, 11, "second comment");
}

#[test]
fn dates_as_scid_5_reads_them() {
    for (value, want) in [
        ("2012.8.1", "2012.08.01"),
        ("2012.14.3", "2012.??.03"),
        ("2012.01.32", "2012.01.??"),
        ("2012.02.30", "2012.02.30"),
        ("2050.01.02", "????.??.??"),
        ("1999", "1999.??.??"),
        ("1999.??.??", "1999.??.??"),
        ("19x9.01.01", "????.??.??"),
        ("2001.01.01 extra", "????.??.??"),
    ] {
        assert_eq!(scid5_date(value).to_string(), want, "{value}");
    }
    // SCID 4's reading differs: digits at fixed places, a day its month cannot have.
    assert_eq!(scid_date("2012.8.1").to_string(), "2012.??.??");
    assert_eq!(scid_date("2012.02.30").to_string(), "2012.02.??");
}

#[test]
fn dates() {
    let g = ok("[Date \"1851.06.??\"]\n[EventDate \"1851.??.??\"]\n*");
    assert_eq!(g.headers.date.to_string(), "1851.06.??");
    assert_eq!(
        g.headers.event_date.map(|d| d.to_string()).as_deref(),
        Some("1851.??.??")
    );
    let g = ok("[Date \"2020.05.17\"]\n[EventDate \"????.??.??\"]\n*");
    assert_eq!(g.headers.event_date, None);
    refused(
        "[Date \"2024/01/01\"]\n*",
        1,
        8,
        "Date \"2024/01/01\" is not a date",
    );
    refused("[Date \"2024.13.01\"]\n*", 1, 8, "is not a date");
    refused("[Date \"2024.00.01\"]\n*", 1, 8, "not zeros");
    // Years beyond SCID's 2047 are read: the store says what it holds.
    assert_eq!(ok("[Date \"2099.01.01\"]\n*").headers.date.year, Some(2099));
    refused(
        "[Date \"2020.01.01\"]\n[EventDate \"2020-01\"]\n*",
        2,
        13,
        "EventDate \"2020-01\" is not a date",
    );
    // An EventDate far from the Date is read as it is (SCID's index cannot keep it; a
    // Simple Chess Database has no EventDate at all: each store decides).
    let g = ok("[Date \"2020.01.01\"]\n[EventDate \"2016.12.31\"]\n*");
    assert_eq!(
        g.headers.event_date.map(|d| d.to_string()).as_deref(),
        Some("2016.12.31")
    );
}

#[test]
fn result_tag_and_marker() {
    assert_eq!(ok("1. e4 1-0").headers.result, GameResult::WhiteWins);
    assert_eq!(
        ok("[Result \"0-1\"]\n1. e4").headers.result,
        GameResult::BlackWins
    );
    refused(
        "[Result \"1/2-1/2\"]\n\n1. e4 e5\n2. Nf3 *",
        4,
        8,
        "ends with \"*\" but its Result tag (line 1) says \"1/2-1/2\"",
    );
    refused("[Result \"?\"]\n*", 1, 10, "Result \"?\" must be one of");
}

#[test]
fn eco_codes() {
    for (code, want) in [
        ("B91a3", Some("B91a3")),
        ("E99z4", Some("E99z4")),
        ("A00", Some("A00")),
        ("B91a", Some("B91a")),
        ("?", None),
        ("", None),
    ] {
        let g = ok(&format!("[ECO \"{code}\"]\n*"));
        assert_eq!(g.headers.eco.as_deref(), want, "{code}");
    }
    for bad in ["c1", "C1", "F00", "B91a5", "B91A", "b20", "B20 ", "B2x"] {
        refused(
            &format!("[ECO \"{bad}\"]\n*"),
            1,
            7,
            &format!("ECO \"{bad}\" is not a code"),
        );
    }
}

#[test]
fn ratings() {
    let g = ok(
        "[WhiteDWZ \"2001\"]\n[WhiteElo \"2002\"]\n[BlackElo \"0\"]\n[BlackRating \"2100\"]\n[BlackUSCF \"?\"]\n*",
    );
    assert_eq!(
        g.headers.white_rating,
        Some(Rating {
            value: 2001,
            kind: RatingType::Dwz
        })
    );
    assert_eq!(
        g.headers.black_rating,
        Some(Rating {
            value: 2100,
            kind: RatingType::Rating
        })
    );
    assert_eq!(
        g.headers.extra,
        vec![
            ("WhiteElo".into(), "2002".into()),
            ("BlackUSCF".into(), "?".into())
        ]
    );
    for none in ["", "?", "-", "0"] {
        let g = ok(&format!("[WhiteElo \"{none}\"]\n*"));
        assert_eq!(g.headers.white_rating, None);
        assert!(g.headers.extra.is_empty());
    }
    let g = ok("[WhiteBCF \"190\"]\n[BlackECF \"180\"]\n*");
    assert_eq!(g.headers.extra, vec![("WhiteBCF".into(), "190".into())]);
    assert_eq!(
        g.headers.black_rating,
        Some(Rating {
            value: 180,
            kind: RatingType::Ecf
        })
    );
    refused(
        "[Event \"e\"]\n[BlackRating \"abc\"]\n*",
        2,
        15,
        "BlackRating \"abc\" is not a rating",
    );
    let g = ok("[WhiteElo \"4001\"]\n*");
    assert_eq!(g.headers.white_rating.map(|r| r.value), Some(4001));
    let e = refused(
        "[WhiteElo \"65536\"]\n*",
        1,
        12,
        "WhiteElo \"65536\" is above 65535",
    );
    assert_eq!(e.kind, ParseErrorKind::TooLarge);
}

#[test]
fn fen_setup_and_variant() {
    let g = ok("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1\"]\n1... Kd7 *");
    assert_eq!(
        g.start,
        StartPosition::Fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1".into())
    );
    assert_eq!(g.headers.extra, vec![("SetUp".to_owned(), "1".to_owned())]);
    assert_round_trip(&g);
    // No SetUp: still a FEN start. Castling letters are put in SCID's KQkq order.
    let g = ok("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 5 20\"]\n*");
    assert_eq!(
        g.start,
        StartPosition::Fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 5 20".into())
    );
    // SetUp without FEN is an ordinary extra tag.
    let g = ok("[Setup \"0\"]\n*");
    assert_eq!(g.headers.extra, vec![("Setup".into(), "0".into())]);
    refused(
        "[SetUp \"0\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n*",
        1,
        9,
        "SetUp \"0\" contradicts the FEN tag",
    );
    refused(
        "[FEN \"4k3/8/8/8/8/8/8/4K2r b - - 0 1\"]\n*",
        1,
        7,
        "not a legal position",
    );
    refused(
        "[FEN \"4k3/8/8/8/8/8/8/4K3 w\"]\n*",
        1,
        7,
        "needs 4 or 6 fields",
    );
    refused(
        "[FEN \"4k3/8/8/8/8/8/8/4K3 w - e4\"]\n*",
        1,
        7,
        "rank 3 or 6",
    );
    refused(
        "[FEN \"4k3/8/8/8/8/8/8/4K3 x - -\"]\n*",
        1,
        7,
        "side to move",
    );
    refused(
        "[FEN \"4k3/9/8/8/8/8/8/4K3 w - -\"]\n*",
        1,
        7,
        "bad piece placement",
    );
    // Castling rights that need a king or rook off its standard square: a Chess960
    // start (whether a store can hold it is the store's business), castling by its rules.
    let g = ok("[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1\"]\n1. O-O *");
    assert_eq!(
        g.start,
        StartPosition::Chess960("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1".into())
    );
    assert_round_trip(&g);
    let g = ok("[FEN \"rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1\"]\n*");
    assert_eq!(
        g.start,
        StartPosition::Chess960("rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1".into())
    );
    refused(
        "[FEN \"rk2r3/8/8/8/8/8/8/RK2R3 w HAha - 0 1\"]\n*",
        1,
        7,
        "name rook files where the board has no such rook",
    );
    // A Variant tag naming Chess960 is kept; standard castling rights stay standard.
    let g = ok("[Variant \"Chess960\"]\n*");
    assert_eq!(g.headers.extra, vec![("Variant".into(), "Chess960".into())]);
    assert_eq!(g.start, StartPosition::Standard);
    refused(
        "[Variant \"Crazyhouse\"]\n*",
        1,
        11,
        "Variant \"Crazyhouse\": SCID 4 stores standard chess only",
    );
    let g = ok("[Variant \"Standard\"]\n*");
    assert_eq!(g.headers.extra, vec![("Variant".into(), "Standard".into())]);
}

#[test]
fn extra_tags_lengths_and_escapes() {
    let g = ok(
        "[Annotator \"A\"] [Quoted \"say \\\"hi\\\" and back\\\\slash\"]\n[X \"C:\\dir\"]\n[Tab \"a\tb\"]\n*",
    );
    assert_eq!(
        g.headers.extra,
        vec![
            ("Annotator".into(), "A".into()),
            ("Quoted".into(), "say \"hi\" and back\\slash".into()),
            ("X".into(), "C:\\dir".into()),
            ("Tab".into(), "a b".into()),
        ]
    );
    assert_round_trip(&g);
    let ok_name = format!("[{} \"v\"]\n*", "N".repeat(240));
    assert_eq!(ok(&ok_name).headers.extra[0].0.len(), 240);
    let long_name = format!("[{} \"v\"]\n*", "N".repeat(241));
    assert_eq!(ok(&long_name).headers.extra[0].0.len(), 241);
    let long_value = format!("[Opening \"{}\"]\n*", "v".repeat(256));
    assert_eq!(ok(&long_value).headers.extra[0].1.len(), 256);
    refused("[Event \"x]\n*", 1, 8, "not closed with '\"' on its line");
    refused("[Event x]\n*", 1, 8, "needs a value in double quotes");
    refused("[Event \"x\"\n*", 1, 11, "expected ']'");
    refused(
        "[_x \"v\"]\n*",
        1,
        2,
        "tag name \"_x\" must start with a letter or digit",
    );
    refused("[ \"v\"]\n*", 1, 3, "a tag needs a name");
}

// ---- movetext ----------------------------------------------------------------------------

#[test]
fn comments_go_to_their_slots() {
    let g = ok("{Pre} 1. e4 {after e4} ({start} 1. d4 {after d4}) 1... e5 *");
    assert_eq!(g.moves.comment.as_deref(), Some("Pre"));
    let e4 = &g.moves.moves[0];
    assert_eq!(e4.comment.as_deref(), Some("after e4"));
    assert_eq!(e4.variations[0].comment.as_deref(), Some("start"));
    assert_eq!(
        e4.variations[0].moves[0].comment.as_deref(),
        Some("after d4")
    );
    // Newlines and tabs become spaces, runs of spaces stay (as SCID keeps them), the ends
    // are trimmed; `{}` is nothing; `[%clk]` is kept.
    let g = ok("1. e4 {  two\r\n lines\tand   tabs } e5 {} 2. Nf3 {[%clk 0:01:02]} *");
    assert_eq!(
        g.moves.moves[0].comment.as_deref(),
        Some("two   lines and   tabs")
    );
    assert_eq!(g.moves.moves[1].comment, None);
    assert_eq!(g.moves.moves[2].comment.as_deref(), Some("[%clk 0:01:02]"));
    // A comment after a variation goes to the move the variation hangs from (as in SCID).
    let g = ok("1. e4 (1. d4) {after the variation} 1... e5 *");
    assert_eq!(
        g.moves.moves[0].comment.as_deref(),
        Some("after the variation")
    );
    assert_round_trip(&g);
}

#[test]
fn comment_refusals() {
    refused(
        "1. e4 {a}\n{b} e5 *",
        2,
        1,
        "a second comment after 1. e4; join them into one comment",
    );
    refused(
        "{a} {b} 1. e4 *",
        1,
        5,
        "a second comment before the first move",
    );
    refused(
        "1. e4 e5 ({a} {b} 1... c5) *",
        1,
        15,
        "a second comment before the first move",
    );
    refused(
        "1. e4 {a} (1. d4) {b} e5 *",
        1,
        19,
        "this comment after a variation belongs to 1. e4, which already has a comment; join them",
    );
    refused(
        "1. e4 $1 {a} ; b\n e5 *",
        1,
        14,
        "a second comment after 1. e4",
    );
    refused("1. e4 ; a } b\n*", 1, 7, "a ';' comment containing '}'");
    refused("1. e4 {a\0b} *", 1, 7, "NUL byte");
    refused(
        "1. e4\n  {never closed *",
        2,
        3,
        "comment opened here is never closed",
    );
}

#[test]
fn nags_and_symbols() {
    let g = ok("1. e4! e5? 2. Nf3!! Nc6?? 3. Bc4!? Bc5?! 4. c3 $255 Nf6 +- 5. d4 $1 $14 ! *");
    let nags: Vec<Vec<u8>> = g.moves.moves.iter().map(|m| m.nags.clone()).collect();
    assert_eq!(
        nags,
        vec![
            vec![1],
            vec![2],
            vec![3],
            vec![4],
            vec![5],
            vec![6],
            vec![255],
            vec![18],
            vec![1, 14, 1]
        ]
    );
    // As many NAGs as written: SCID's 7 per move is its store's limit.
    let g = ok("1. e4 $1 $2 $3 $4 $5 $6 $7\n  $8 *");
    assert_eq!(g.moves.moves[0].nags.len(), 8);
    refused("1. e4 $0 *", 1, 7, "NAG $0");
    refused("1. e4 $256 *", 1, 7, "NAG $256 is above $255");
    refused("1. e4 $ *", 1, 7, "'$' must be followed by a NAG number");
    refused("$1 1. e4 *", 1, 1, "an annotation (NAG) must follow a move");
    refused("1. e4 e5 ( ! 1... c5) *", 1, 12, "must follow a move");
    refused(
        "1. e4!! e5?? 2. Nf3!x *",
        1,
        17,
        "\"!x\" is not an annotation",
    );
}

#[test]
fn moves_and_variations() {
    // Castling with zeros, check marks, move numbers optional or glued, e.p., null moves.
    let g = ok(
        "1.e4 e5 Nf3 Nc6 3. Bc4 Nf6 4. 0-0 Nxe4 5. Re1 d5 6. Bxd5 Qxd5 7. Nc3 Qd8 8. Rxe4+ Be7 9. -- 0-0 *",
    );
    assert_eq!(g.moves.plies(), 18);
    assert_eq!(g.moves.moves[16].ply, Ply::Null);
    let g = ok("1. e4 d5 2. e5 f5 3. exf6 e.p. *");
    assert_eq!(g.moves.plies(), 5);
    // Capture mark missing or extra: the move is still unique.
    let g = ok("1. e4 e5 2. Qh5 Nc6 3. Qf7# *");
    assert_eq!(g.moves.plies(), 5);
    // Nested variations and several siblings.
    let g = ok("1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) (1. c4) 1... e5 *");
    assert_eq!(g.moves.moves[0].variations.len(), 2);
    assert_eq!(g.moves.moves[0].variations[0].moves[1].variations.len(), 1);
    assert_round_trip(&g);
}

#[test]
fn move_refusals() {
    refused(
        "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *",
        3,
        13,
        "illegal move 2. Ke3 in position rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    );
    refused(
        "[FEN \"4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1\"]\n\n1. Nd2 *",
        3,
        4,
        "ambiguous move 1. Nd2 (could be Nbd2 or Nfd2) in position 4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1",
    );
    refused(
        "1. e4 e5 2. Bb5 f6 3. Bxe8 *",
        1,
        23,
        "illegal move 3. Bxe8",
    );
    refused(
        "1. e4 xyz *",
        1,
        7,
        "\"xyz\" is not a move, move number, annotation or result",
    );
    refused(
        "(1. d4) 1. e4 *",
        1,
        1,
        "a variation must follow the move it replaces",
    );
    refused(
        "1. e4 ((1. d4) 1... e5) *",
        1,
        8,
        "a variation must follow the move it replaces",
    );
    refused(
        "1. e4 (1. d4\n  (1. c4 c5",
        2,
        3,
        "variation opened here is never closed",
    );
    refused("1. e4 (1. d4 1-0) *", 1, 14, "inside a variation");
    refused("1. e4 ) *", 1, 7, "')' without a matching '('");
    refused("1. e4 } *", 1, 7, "'}' without a matching opening bracket");
    refused(
        "[FEN \"4k3/8/8/8/8/8/8/r3K3 w - - 0 1\"]\n1. -- *",
        2,
        4,
        "a null move (--) is not possible while in check",
    );
}

#[test]
fn columns_count_characters() {
    // "é" is two bytes but one column; the bad move is the 8th character.
    refused("{é} 1. Ke2 *", 1, 8, "illegal move 1. Ke2");
}

#[test]
fn real_world_tolerance() {
    let text =
        b"\xEF\xBB\xBF% an escape line\r\n[Event \"T\xe9st\"]\r\n[White \"R\xc3\xa9ti\"]\r\n\r\n\
        ; a rest-of-line comment\r\n1. e4 {caf\xe9 [%clk 0:03:00]} e5\r\n%2. d4\r\n2. Nf3 *\r\n";
    let g = one_game(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.headers.event, "Tést");
    assert_eq!(g.headers.white, "Réti");
    assert_eq!(g.moves.comment.as_deref(), Some("a rest-of-line comment"));
    assert_eq!(
        g.moves.moves[0].comment.as_deref(),
        Some("café [%clk 0:03:00]")
    );
    assert_eq!(g.moves.plies(), 3);
    // Movetext alone, no tags, no marker.
    let g = ok("\n\n  e4 e5\n");
    assert_eq!(g.moves.plies(), 2);
    assert_eq!(g.headers.result, GameResult::Unknown);
}

#[test]
fn games_splits_and_recovers() {
    let text = "[Event \"1\"]\n1. e4 *\n\n[Event \"2\"]\n1. e4 e5?? 2. Kxx *\n\n[Event \"3\"]\n1. d4\n[Event \"4\"]\n[Date \"bad\"]\n[Site \"s\"]\n\n1. c4 1-0\n\n[Event \"5\"]\n1. Nf3 *\n";
    let all: Vec<_> = games(text.as_bytes()).collect();
    assert_eq!(all.len(), 5, "{all:?}");
    assert_eq!(all[0].as_ref().map(|g| g.headers.event.as_str()), Ok("1"));
    let e = all[1].as_ref().expect_err("illegal move");
    assert_eq!((e.game, e.line, e.column), (2, 5, 15));
    assert!(e.message.contains("\"Kxx\" is not a move"), "{e}");
    assert_eq!(all[2].as_ref().map(|g| g.moves.plies()), Ok(1));
    let e = all[3].as_ref().expect_err("bad date");
    assert_eq!((e.game, e.line, e.column), (4, 10, 8));
    assert_eq!(all[4].as_ref().map(|g| g.headers.event.as_str()), Ok("5"));
}

#[test]
fn one_game_needs_exactly_one() {
    let e = one_game(b"  \n% nothing\n").expect_err("empty");
    assert_eq!(e.message, "the text holds no game");
    let e = one_game(b"1. e4 *\n\n1. d4 *\n").expect_err("two");
    assert_eq!((e.game, e.line, e.column), (2, 3, 1));
    assert!(e.message.contains("a file holds exactly one game"));
    let e = one_game(b"[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n*").expect_err("two");
    assert_eq!((e.line, e.column), (3, 1));
}

#[test]
fn errors_convert_with_position_and_kind() {
    let e = one_game(b"1. e4 $0 *").expect_err("NAG 0");
    let err: Error = e.into();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(
        err.message().starts_with("line 1, column 7: NAG $0"),
        "{err}"
    );
    let e = one_game(b"[WhiteElo \"99999\"]\n*").expect_err("rating");
    let err: Error = e.into();
    assert_eq!(err.kind(), ErrorKind::TooLarge);
    assert!(err.message().starts_with("line 1, column 12: "), "{err}");
}

#[test]
fn ten_thousand_nested_variations() {
    let mut text = String::from("1. e4 ");
    for _ in 0..10_000 {
        text.push_str("(1. d4 ");
    }
    text.push_str(&")".repeat(10_000));
    text.push_str(" *");
    let g = ok(&text);
    let rendered = render(&g).expect("render");
    assert_eq!(rendered.matches('(').count(), 10_000);
    let again = ok(&rendered);
    assert_eq!(render(&again).expect("render"), rendered);
    // Unclosed at depth: an error, not a stack overflow.
    let e = one_game(text.trim_end_matches(['*', ')', ' ']).as_bytes()).expect_err("open");
    assert!(e.message.contains("never closed"));
}

#[test]
fn a_huge_game_is_refused() {
    let mut text = String::from("1. e4 {");
    text.push_str(&"x".repeat(MAX_GAME_BYTES));
    text.push_str("} e5 *");
    let e = one_game(text.as_bytes()).expect_err("too large");
    assert_eq!(e.kind, ParseErrorKind::TooLarge);
    assert_eq!((e.line, e.column), (1, 7), "{e}");
}

#[test]
fn a_tree_of_more_nodes_than_a_record_holds_is_refused() {
    // 200,000 levels fit in 1.4 MB of text but would take over 100 MB as a tree.
    let deep = format!(
        "1. e4 {} *",
        "(1. d4 ".repeat(200_000) + &")".repeat(200_000)
    );
    let e = one_game(deep.as_bytes()).expect_err("too many nodes");
    assert_eq!(e.kind, ParseErrorKind::TooLarge);
    assert!(e.message.contains("131071 moves and variations"), "{e}");
    let wide = format!("1. e4 {} *", "(1. d4) ".repeat(MAX_GAME_NODES));
    let e = one_game(wide.as_bytes()).expect_err("too many nodes");
    assert_eq!(e.kind, ParseErrorKind::TooLarge);
    let fits = format!(
        "1. e4 {} *",
        "(1. d4 ".repeat(MAX_GAME_NODES / 2 - 1) + &")".repeat(MAX_GAME_NODES / 2 - 1)
    );
    assert!(one_game(fits.as_bytes()).is_ok());
}

// ---- property and robustness tests -------------------------------------------------------

use crate::testing::{GameShape, Rng, random_game};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any game the model can hold (within SCID's limits) survives render → parse.
    #[test]
    fn random_games_round_trip(seed in any::<u64>()) {
        let g = random_game(&mut Rng(seed | 1), &GameShape::default());
        let text = render(&g).expect("render");
        let parsed = one_game(text.as_bytes());
        prop_assert_eq!(parsed.as_ref(), Ok(&g), "{}", text);
    }
}

/// Random bytes and mutated real files: never a panic, and whatever is accepted round-trips.
#[test]
fn arbitrary_bytes_never_panic() {
    let mut seeds: Vec<Vec<u8>> = vec![read("contrib/sample/demo.pgn")];
    for f in [
        "annotations",
        "tags",
        "special-moves",
        "fen-starts",
        "deep-variations",
        "long-tags",
    ] {
        seeds.push(read(&format!("tests/data/{f}.pgn")));
    }
    seeds.push(read("tests/data/odd/latin1.pgn"));
    const SPECIAL: &[u8] = b"{}()[];$\"\\%\n\r!?-0O=+#*. \x00\xff\xe9\xc3";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for round in 0..3000 {
        let text: Vec<u8> = if round % 5 == 0 {
            (0..rng.below(400))
                .map(|_| {
                    if rng.chance(50) {
                        *rng.pick(SPECIAL)
                    } else {
                        rng.next_u64() as u8
                    }
                })
                .collect()
        } else {
            let seed = rng.pick(&seeds);
            let from = rng.below(seed.len());
            let len = rng.below(3000);
            let mut t = seed[from..seed.len().min(from + len)].to_vec();
            for _ in 0..1 + rng.below(6) {
                let at = rng.below(t.len() + 1);
                match rng.below(4) {
                    0 if at < t.len() => t[at] = *rng.pick(SPECIAL),
                    1 => t.insert(at, *rng.pick(SPECIAL)),
                    2 if at < t.len() => {
                        let end = t.len().min(at + 1 + rng.below(20));
                        t.drain(at..end);
                    }
                    _ if at < t.len() => t[at] = rng.next_u64() as u8,
                    _ => {}
                }
            }
            t
        };
        for g in games(&text).flatten() {
            assert_round_trip(&g);
            accepted += 1;
        }
        let _ = one_game(&text);
    }
    // The mutations leave many games intact: the round-trip check above is exercised.
    assert!(accepted > 500, "{accepted}");
}

#[test]
fn word_scan_agrees_with_byte_by_byte_lexing() {
    let pieces: [&[u8]; 17] = [
        b"e",
        b"4",
        b"x",
        b"N",
        b"=",
        b"+",
        b" ",
        b"\n",
        b"{",
        b")",
        b"$",
        b"\"",
        "é".as_bytes(),
        "Ж".as_bytes(),
        b"\xff",
        b"\t",
        b".",
    ];
    let mut rng = Rng(0x5EED_0FF5);
    for _ in 0..3000 {
        let n = rng.below(40);
        let text: Vec<u8> = (0..n).flat_map(|_| rng.pick(&pieces).to_vec()).collect();
        let (mut fast, mut slow) = (Lexer::new(&text), Lexer::new(&text));
        loop {
            let reference = slow.take_while(|b| !WORD_ENDS[usize::from(b)]);
            assert_eq!(fast.word(), reference, "{text:?}");
            let (a, b) = (fast.at, slow.at);
            assert_eq!(
                (a.offset, a.line, a.col),
                (b.offset, b.line, b.col),
                "{text:?}"
            );
            if fast.peek().is_none() {
                break;
            }
            fast.bump();
            slow.bump();
        }
    }
}

#[test]
fn skimming_refuses_what_breaks_the_movetext_where_a_whole_reading_does() {
    for text in [
        "[Event \"x\"]\n\n1. e4 {never closed\n e5 *",
        "[Event \"x\"]\n\n1. e4 e5\n 2. Nf3) *",
        "[Event \"x\"]\n\n1. e4 (1. d4 d5\n\n[Event \"y\"]\n\n1. e4 *",
        "[Event \"x\"]\n\n1. e4 ({é} 1. d4 1-0) 1-0",
        "[Event \"x\"]\n\n1. e4 $ e5 *",
        "[Event \"x\"]\n\n{é} 1. e4 ] *",
        "[Event \"x\"]\n\n1. e4 \" *",
        "\u{feff}1. e4\n e5\n 2. Nf3 }\n",
    ] {
        for reading in [Reading::Exact, Reading::AsScid] {
            let whole: Vec<_> = Games::new(text.as_bytes()).reading(reading).collect();
            let skimmed: Vec<_> = Games::new(text.as_bytes())
                .reading(reading)
                .skimming(true)
                .collect();
            let whole = whole[0].as_ref().unwrap_err();
            let skimmed = skimmed[0].as_ref().unwrap_err();
            assert_eq!(skimmed, whole, "{text:?}");
        }
    }
    // A word that is no move ends a skimmed game as text that is not PGN.
    let e = Games::new(b"this is not PGN\n")
        .skimming(true)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!((e.line, e.column), (1, 1), "{e}");
    // An illegal move is not seen.
    let read = Games::new(b"[White \"A\"]\n\n1. e4 e5 2. Ke3 1-0")
        .skimming(true)
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(read.game.headers.white, "A");
    assert_eq!(read.game.headers.result, GameResult::WhiteWins);
}

/// A NAG's number is its digits for skimming as for a whole reading: what follows them is a
/// word of its own, a termination marker included (`$2*`; the `pgn` fuzz target found the
/// skimming reading on into the next game, and refusing both).
#[test]
fn skimming_ends_a_nag_at_its_digits_as_a_whole_reading_does() {
    for text in ["1. e4 $2* 2. d4 (2. c4 *", "1. e4 $2e5 2. Nf3 1-0\n1. d4 *"] {
        let whole: Vec<_> = Games::new(text.as_bytes()).collect();
        let skimmed: Vec<_> = Games::new(text.as_bytes()).skimming(true).collect();
        let place = |g: &Result<ReadGame, ParseError>| match g {
            Ok(r) => Ok(r.text.clone()),
            Err(e) => Err(e.text.clone()),
        };
        assert!(whole[0].is_ok(), "{text:?}: {:?}", whole[0]);
        assert_eq!(
            skimmed.iter().map(place).collect::<Vec<_>>(),
            whole.iter().map(place).collect::<Vec<_>>(),
            "{text:?}"
        );
    }
}

/// A comment before the tags (a game's first comment, read as SCID reads) is refused for a NUL
/// byte as one in the movetext is: the `pgn` fuzz target found one kept, which the game's
/// text could not give back.
#[test]
fn a_comment_before_the_tags_holding_a_nul_byte_is_refused() {
    for reading in [Reading::AsScid, Reading::AsScid5, Reading::AsPgn2dcg] {
        for text in [
            &b";a\0b\n[Event \"x\"]\n\n1. e4 *"[..],
            b"{a\0b}\n[Event \"x\"]\n\n1. e4 *",
        ] {
            let e = Games::new(text)
                .reading(reading)
                .next()
                .unwrap()
                .unwrap_err();
            assert!(e.message.contains("NUL byte"), "{e}");
            assert_eq!((e.line, e.column, e.game), (1, 1, 1), "{e}");
        }
    }
}

/// Skimming reads the tags as a whole reading does, but does not say what the reading changed
/// (the index, its only user, shows none of it).
#[test]
fn skimming_reads_tags_as_changed_without_saying_so() {
    let text = b"[Date \"1993\"]\n[ECO \"b12x\"]\n[Result \"1/2\"]\n\n1. e4 {a} {b} 1-0";
    let whole = Games::new(text).reading(Reading::AsScid).next().unwrap();
    let skimmed = Games::new(text)
        .reading(Reading::AsScid)
        .skimming(true)
        .next()
        .unwrap();
    let (whole, skimmed) = (whole.unwrap(), skimmed.unwrap());
    assert_eq!(skimmed.game.headers, whole.game.headers);
    assert_eq!(skimmed.game.headers.eco.as_deref(), Some("B12x"));
    let said: Vec<&str> = whole.changes.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(said.len(), 5, "{said:?}");
    assert!(skimmed.changes.is_empty(), "{:?}", skimmed.changes);
}

/// The games of `text` skimmed as `reading` says, with the test switch `switch` (one that
/// turns a fast path off) set to `on` meanwhile.
fn skimmed_with(
    switch: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
    on: bool,
    text: &[u8],
    reading: Reading,
) -> Vec<Result<ReadGame, ParseError>> {
    read_with(switch, on, text, reading, true)
}

/// The games of `text` read with `switch` set to `on` (whole, or skimmed with `skim`).
fn read_with(
    switch: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
    on: bool,
    text: &[u8],
    reading: Reading,
    skim: bool,
) -> Vec<Result<ReadGame, ParseError>> {
    switch.with(|s| s.set(on));
    let games = Games::new(text).reading(reading).skimming(skim).collect();
    switch.with(|s| s.set(false));
    games
}

/// Skimming steps over moves and move numbers without looking at them ([`skip_moves`]): what
/// it finds (each game's end, marker and refusal) is what looking at every token finds.
#[test]
fn stepping_over_moves_skims_as_looking_at_every_token() {
    let pieces: [&str; 48] = [
        "\x1b",
        "{",
        "{ [%clk 0:03:00] }",
        "{ a comment longer than a block of 64 bytes, with ( ) [ ; $ % { and 1-0 in it }",
        "1.",
        "12.",
        "12...",
        "1...e5",
        "e4",
        "Nf3",
        "O-O",
        "0-0",
        "1.0-0",
        "1-0",
        "0-1",
        "1/2-1/2",
        "1/2",
        "1:0",
        "*",
        "{c}",
        "{1-0\n\n[Event \"x\"]}",
        "(",
        ")",
        "$1",
        "$",
        "\n%esc",
        "%",
        "\n",
        " ",
        "\r\n",
        "x",
        "#",
        "[Event \"a\"]",
        "é",
        "12",
        "3",
        "0",
        "1.e4",
        "1..",
        "1.x",
        "\"",
        ";note\n",
        "}",
        "]",
        "--",
        "!?",
        "\n\n",
        "\t",
    ];
    const MOVES: [&str; 16] = [
        "1.",
        "12.",
        "e4",
        "Nf3",
        "O-O",
        "1...e5",
        "1.e4",
        "exd5",
        "Qh4#",
        "!?",
        "--",
        "3",
        "\n",
        "Nbxd7+",
        "e8=Q",
        "123456789012345678901234567890123456789012345678901234567890.",
    ];
    let skim = |text: &[u8], reading: Reading, look_at_all: bool| {
        skimmed_with(&movetext::LOOK_AT_ALL, look_at_all, text, reading)
    };
    let mut rng = Rng(0x5C1A_0057);
    let (mut refused, mut read, mut long_read) = (0, 0, 0);
    for _ in 0..4000 {
        let mut text = String::from("[Event \"e\"]\n\n");
        // Movetexts of up to a few hundred bytes, half of them mostly
        // what real movetext holds.
        let moves = if rng.chance(50) { 99 } else { 70 };
        for _ in 0..rng.below(120) {
            let piece: &&str = match rng.chance(moves) {
                true => rng.pick(&MOVES),
                false => rng.pick(&pieces),
            };
            text.push_str(piece);
            if moves == 99 || rng.chance(60) {
                text.push(' ');
            }
        }
        let reading = *rng.pick(&[Reading::Exact, Reading::AsScid, Reading::AsPgn2dcg]);
        let stepped = skim(text.as_bytes(), reading, false);
        assert_eq!(stepped, skim(text.as_bytes(), reading, true), "{text:?}");
        assert_eq!(
            stepped,
            skimmed_with(&movetext::BYTEWISE, true, text.as_bytes(), reading),
            "{text:?}"
        );
        refused += stepped.iter().filter(|g| g.is_err()).count();
        read += stepped.iter().filter(|g| g.is_ok()).count();
        long_read += stepped
            .iter()
            .filter(|g| g.as_ref().is_ok_and(|g| g.text.len() >= 200))
            .count();
    }
    assert!(
        refused > 500 && read > 500,
        "{refused} refused, {read} read"
    );
    assert!(
        long_read > 200,
        "{long_read} games of 200 bytes or more read"
    );
    // A game too long is refused at the same word.
    let long = format!(
        "[Event \"e\"]\n\n{}*",
        "12. Nf3 Nf6 ".repeat(MAX_GAME_BYTES / 10)
    );
    let stepped = skim(long.as_bytes(), Reading::AsScid, false);
    assert!(stepped[0].is_err());
    assert_eq!(stepped, skim(long.as_bytes(), Reading::AsScid, true));
}

/// Comments closed later are stepped over with the moves, in one block or over several (a
/// lichess game has a clock comment a move); the scan stops at a comment never closed, and at
/// one that opens past the limit.
#[cfg(target_arch = "x86_64")]
#[test]
fn stepping_over_moves_steps_over_comments() {
    let long = "{ a comment over more than a block of sixty-four bytes: ( ; $ [ { 1-0 } ";
    let text = format!(
        "1. e4 {{ [%clk 0:03:00] }} 1... e5 {{ [%clk 0:02:59] }}{long}2. Nf3{{}}Nc6 {long}1-0"
    );
    let text = text.as_bytes();
    let marker = text.len() - 3;
    for step in [
        movetext::skip_moves_in_blocks,
        movetext::skip_moves_bytewise,
    ] {
        assert_eq!(step(text, 0, usize::MAX), marker);
        let unclosed = b"1. e4 { [%clk 0:03:00] 1... e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7";
        assert_eq!(
            step(unclosed, 0, usize::MAX),
            6,
            "at the comment never closed"
        );
        let second = text.iter().position(|&b| b == b'{').unwrap() + 1;
        let second = second + text[second..].iter().position(|&b| b == b'{').unwrap();
        assert_eq!(
            step(text, 0, second - 1),
            second,
            "at the comment past the limit"
        );
    }
}

/// Stepping over moves 64 bytes at a time ([`skip_moves_in_blocks`]) stops where stepping a
/// byte at a time does, or earlier at the start of a word from which stepping a byte at a time
/// reaches that same place (so [`skim_movetext`] finds the same): on random texts of moves,
/// move numbers (some longer than a block), markers, brackets and the bytes that stop a block
/// only by being near one that does (`=`, 0x1B, 0x1D), from any byte, with any length limit.
#[cfg(target_arch = "x86_64")]
#[test]
fn stepping_over_moves_in_blocks_stops_where_stepping_a_byte_at_a_time_does() {
    const PIECES: [&[u8]; 44] = [
        b"1.",
        b"12.",
        b"123...",
        b"1...e5",
        b"4.Nf3",
        b"e4",
        b"Nf3",
        b"Kxe2",
        b"Qh4#",
        b"Rad1",
        b"Bb5+",
        b"O-O",
        b"o-o",
        b"0-0",
        b"e8=Q",
        b"P",
        b"--",
        b"!?",
        b"+-",
        b"1-0",
        b"1/2",
        b"*",
        b"7",
        b"12345678901234567890123456789012345678901234567890123456789012345678",
        b"1................................................................e4",
        b"1.x",
        b"1..2",
        b"{c}",
        b"{",
        b"{ [%clk 0:03:00] }",
        b"{ a comment longer than a block of 64 bytes, with ( ) [ ; $ % { and 1-0 in it }",
        b"}",
        b"(",
        b")",
        b"$12",
        b";",
        b"%",
        b"\"",
        b"\x1b",
        b"\x1d",
        b"x",
        "é".as_bytes(),
        b"[",
        b"]",
    ];
    const GAPS: [&[u8]; 6] = [b" ", b" ", b"\n", b"\r\n", b"\t", b""];
    let mut rng = Rng(0xB10C_5CA7);
    let (mut early, mut same, mut far) = (0, 0, 0);
    for _ in 0..20_000 {
        let mut text = Vec::new();
        for _ in 0..rng.below(80) {
            // Mostly moves and move numbers, as real movetext.
            let piece = match rng.chance(80) {
                true => PIECES[rng.below(11)],
                false => PIECES[rng.below(PIECES.len())],
            };
            text.extend_from_slice(piece);
            let gap: &&[u8] = rng.pick(&GAPS);
            text.extend_from_slice(gap);
        }
        let from = rng.below(text.len() + 1);
        let limit = match rng.chance(80) {
            true => usize::MAX,
            false => rng.below(text.len() + 10),
        };
        let bytewise = movetext::skip_moves_bytewise(&text, from, limit);
        let blocks = movetext::skip_moves_in_blocks(&text, from, limit);
        let shown = String::from_utf8_lossy(&text);
        assert!(
            blocks <= bytewise,
            "{blocks} past {bytewise} from {from}, limit {limit}: {shown:?}"
        );
        if blocks < bytewise {
            // A word starts after whitespace or a comment.
            let starts_word =
                blocks == from || is_space(text[blocks - 1]) || text[blocks - 1] == b'}';
            assert!(
                starts_word && movetext::skip_moves_bytewise(&text, blocks, limit) == bytewise,
                "{blocks} before {bytewise} from {from}, limit {limit}: {shown:?}"
            );
            early += 1;
        } else {
            same += 1;
        }
        far += usize::from(bytewise >= from + 64);
    }
    assert!(
        same > 10_000 && early > 1000,
        "{same} the same, {early} early"
    );
    assert!(far > 1500, "{far} stepped over 64 bytes or more");
}

/// Tag names and values with nothing to undo are taken whole ([`plain_name`],
/// [`plain_value`]): every game, header, change noted and refusal (line, column) is what
/// reading each byte in turn gives.
#[test]
fn plain_tag_values_taken_whole_read_as_byte_by_byte() {
    let pieces: [&[u8]; 19] = [
        b"a",
        b"\x7f",
        "\u{9f}".as_bytes(),
        "\u{a0}".as_bytes(),
        b"Carlsen, Magnus",
        b" ",
        b"\t",
        b"\"",
        b"\\",
        b"\\\"",
        b"]",
        b"\n",
        b"\x01",
        "é".as_bytes(),
        "\u{85}".as_bytes(),
        b"\xe9",
        b"1-0",
        b"2024.01.??",
        b"[",
    ];
    // Tag openings up to the value's quote: names taken whole ([`plain_name`]) and others.
    let openings = [
        "[Event \"",
        "[White \"",
        "[Date \"",
        "[Result \"",
        "[ECO \"",
        "[WhiteElo \"",
        "[Site \"",
        "[X \"",
        "[ Event \"",
        "[Event\t\"",
        "[Event\"",
        "[9x:+#=-_ \"",
        "[_x \"",
        "[Ev@nt \"",
        "[Evént \"",
        "[ \"",
        "[Event]\"",
    ];
    const CLOSES: [&[u8]; 4] = [b"\"]\n", b"\" ]\n", b"\"\t]x\n", b"\"]"];
    // Read whole, so that the extra tags' values (which skimming does not keep) are compared.
    let read = |text: &[u8], reading: Reading, byte_by_byte: bool| {
        read_with(&tags::BYTE_BY_BYTE, byte_by_byte, text, reading, false)
    };
    let mut rng = Rng(0x7A65_0001);
    let (mut refused, mut good) = (0, 0);
    for _ in 0..4000 {
        let mut text = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let opening: &&str = rng.pick(&openings);
            text.extend_from_slice(opening.as_bytes());
            for _ in 0..rng.below(6) {
                let piece: &&[u8] = rng.pick(&pieces);
                text.extend_from_slice(piece);
            }
            let close: &&[u8] = rng.pick(&CLOSES);
            text.extend_from_slice(close);
        }
        text.extend_from_slice(b"\n1. e4 *\n");
        let reading = *rng.pick(&[Reading::Exact, Reading::AsScid, Reading::AsPgn2dcg]);
        let whole = read(&text, reading, false);
        assert_eq!(
            whole,
            read(&text, reading, true),
            "{:?}",
            String::from_utf8_lossy(&text)
        );
        refused += whole.iter().filter(|g| g.is_err()).count();
        good += whole.iter().filter(|g| g.is_ok()).count();
    }
    assert!(
        refused > 500 && good > 500,
        "{refused} refused, {good} read"
    );
}

// ---- games SCID's import keeps in part (issue 38) ----------------------------------------

/// The games of `text` read as an import into SCID 4 reads them, cut games kept.
fn kept_cut(text: &str) -> Vec<Result<ReadGame, ParseError>> {
    Games::new(text.as_bytes())
        .reading(Reading::AsScid)
        .keeping_cut_games(true)
        .collect()
}

#[test]
fn a_game_is_cut_at_an_illegal_move_with_the_result_of_its_end() {
    let text = "[Event \"E\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 (2. Nc3 Ke4 d6) Nc6 {x} 3. Ke3 \
                Nf6 {a * here} 0-1\n\n[Event \"F\"]\n\n1. d4 *\n";
    let games = kept_cut(text);
    assert_eq!(games.len(), 2);
    let first = games[0].as_ref().unwrap();
    let cut = first.cut.as_ref().expect("cut");
    // The variation's illegal move cuts the game there: the variation closed, nothing after.
    assert_eq!((cut.line, cut.column), (4, 25), "{cut:?}");
    assert!(cut.reason.contains("illegal move 2... Ke4"), "{cut:?}");
    assert_eq!(
        &text[cut.dropped.clone()],
        "Ke4 d6) Nc6 {x} 3. Ke3 Nf6 {a * here}"
    );
    let moves = &first.game.moves.moves;
    assert_eq!(moves.len(), 3, "1. e4 e5 2. Nf3");
    assert_eq!(moves[2].variations[0].moves.len(), 1, "(2. Nc3)");
    assert_eq!(first.game.headers.result, GameResult::BlackWins);
    assert!(first.ended);
    assert!(games[1].as_ref().unwrap().cut.is_none());
    // Read otherwise, the game is refused as before.
    let refused = Games::new(text.as_bytes())
        .reading(Reading::AsScid)
        .next()
        .unwrap();
    assert!(refused.is_err());
}

#[test]
fn html_between_moves_reads_as_scid_reads_it() {
    let games = kept_cut("[Event \"E\"]\n\n1. e4 e5<br>\n2. Nf3 Nc6 1-0</p>\n");
    let first = games[0].as_ref().unwrap();
    assert_eq!(first.game.moves.moves.len(), 2, "cut at br, after e5");
    assert_eq!(first.cut.as_ref().unwrap().column, 10);
    // `</p>` after the end: a game of its own, no tags, no moves.
    let second = games[1].as_ref().unwrap();
    assert!(second.game.moves.moves.is_empty() && second.cut.is_some());
    assert_eq!(games.len(), 2);
    // A word ending in `*` is a move and the game's end.
    let star = kept_cut("1. e4 e5*\n");
    let star = star[0].as_ref().unwrap();
    assert!(star.cut.is_none() && star.ended);
    assert_eq!(star.game.moves.moves.len(), 2);
}

#[test]
fn what_scid_reads_on_past_is_still_refused() {
    // A null move in check: SCID 4 plays it and reads on, so the game is not cut.
    let games = kept_cut("[Event \"E\"]\n\n1. e4 f5 2. Qh5+ -- 3. Qxe8# *\n");
    assert!(games[0].is_err());
}

/// The game `text` holds as `reading` reads it, whole, with its changes.
fn read_as(text: &str, reading: Reading) -> ReadGame {
    let mut games = Games::new(text.as_bytes()).reading(reading);
    let read = games
        .next()
        .expect("a game")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(games.next().is_none(), "one game in {text:?}");
    read
}

#[test]
fn a_nag_before_a_lines_first_move_is_dropped_as_scid_drops_it() {
    // Chess Informant's "better is" opening a variation, a NAG before the game's first move,
    // symbols at a variation's start, a comment after one.
    let text = "$5 1. e4 e5 2. Nf3 ($142 2. d4 exd4) (+= {plan} 2. c4) (!? 2. Bc4) Nc6 *";
    for reading in [Reading::AsScid, Reading::AsScid5] {
        let read = read_as(text, reading);
        let moves = &read.game.moves.moves;
        assert_eq!(moves.len(), 4);
        assert!(moves.iter().all(|m| m.nags.is_empty()));
        let variations = &moves[2].variations;
        assert_eq!(variations.len(), 3);
        assert_eq!(variations[1].comment.as_deref(), Some("plan"));
        assert!(variations.iter().all(|v| v.moves[0].nags.is_empty()));
        assert!(read.salvaged && read.cut.is_none());
        let changes: Vec<String> = read
            .changes
            .iter()
            .map(|(l, w)| format!("{l}:{w}"))
            .collect();
        assert_eq!(
            changes,
            [
                "1:column 1: NAG $5 before the first move of its line dropped, as SCID's import drops it",
                "1:column 21: NAG $142 before the first move of its line dropped, as SCID's import drops it",
                "1:column 39: NAG $14 before the first move of its line dropped, as SCID's import drops it",
                "1:column 57: NAG $5 before the first move of its line dropped, as SCID's import drops it",
            ]
        );
    }
    // A save, pgn2dcg's reading and `--strict` refuse it as before.
    refused(
        text,
        1,
        1,
        "an annotation (NAG) must follow a move, but this line has no move yet",
    );
    let pgn2dcg = Games::new(text.as_bytes())
        .reading(Reading::AsPgn2dcg)
        .next();
    assert!(matches!(pgn2dcg, Some(Err(_))));
}

#[test]
fn comments_and_nags_among_the_tags_stay_with_their_game() {
    let text = "[Event \"E\"]\n{Notes} ; by the club\n$1\n[Site \"S\"]\n!\n[Round \"1\"]\n\n\
                {Pre} 1. e4 *\n\n[Event \"F\"]\n\n1. d4 1-0 $2\n\n[Event \"G\"]\n\n1. c4 *\n";
    let games: Vec<ReadGame> = Games::new(text.as_bytes())
        .reading(Reading::AsScid)
        .map(Result::unwrap)
        .collect();
    assert_eq!(games.len(), 3);
    let g = &games[0].game;
    assert_eq!(
        (&*g.headers.event, &*g.headers.site, &*g.headers.round),
        ("E", "S", "1")
    );
    assert_eq!(g.moves.comment.as_deref(), Some("Notesby the clubPre"));
    let changes: Vec<&str> = games[0].changes.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(
        changes,
        [
            "column 1: a comment between the game's tags kept before its first move",
            "column 1: NAG $1 between the game's tags dropped, as SCID's import drops it",
            "column 1: NAG $1 between the game's tags dropped, as SCID's import drops it",
        ]
    );
    assert!(games[0].salvaged);
    // A NAG after a game's end: before the next one's tags, dropped.
    assert_eq!(games[2].game.headers.event, "G");
    assert!(
        games[2].salvaged
            && games[2].changes[0]
                .1
                .contains("NAG $2 before the game's tags")
    );
    // A comment after the tags is the first comment, as always; nothing is said.
    let read = read_as("[Event \"E\"]\n{Pre}\n1. e4 *", Reading::AsScid);
    assert!(read.changes.is_empty() && !read.salvaged);
    // A save refuses them (the first comment ends the tags there).
    refused(text, 2, 9, "a second comment before the first move");
    refused(
        "[Event \"E\"]\n$1\n[Site \"S\"]\n*",
        2,
        1,
        "must follow a move",
    );
}

#[test]
fn a_tag_value_not_closed_on_its_line_reads_on_to_the_next_bracket() {
    let text = "[Black \"Smith, J.\n[Result \"0-1\"]\n[White \"Jones\"\n]\n\n1. e4 1-0\n";
    let read = read_as(text, Reading::AsScid);
    let h = &read.game.headers;
    assert_eq!(h.black, "Smith, J. [Result \"0-1");
    assert_eq!((&*h.white, h.result), ("Jones", GameResult::WhiteWins));
    assert!(read.salvaged);
    assert_eq!(
        read.changes[0],
        (
            1,
            "column 1: the value of tag Black is not closed on its line: read on to the ']' \
             on line 2, as SCID reads it: \"Smith, J. [Result \"0-1\""
                .to_string()
        )
    );
    // SCID 5 keeps the line break.
    let read = read_as(text, Reading::AsScid5);
    assert_eq!(read.game.headers.black, "Smith, J.\n[Result \"0-1");
    // A `]` on the next line closes the tag: read, nothing taken in.
    let read = read_as("[White \"Jones\"\n]\n[\nEvent \"E\"]\n*", Reading::AsScid);
    assert_eq!(
        (&*read.game.headers.white, &*read.game.headers.event),
        ("Jones", "E")
    );
    assert!(!read.salvaged);
    // No `]` after it: the value runs to the text's end, and the game has no moves.
    let read = read_as("[Black \"Smith\n\n1. e4 e5 *\n", Reading::AsScid);
    assert_eq!(read.game.headers.black, "Smith 1. e4 e5 *");
    assert!(read.salvaged && read.game.moves.moves.is_empty() && !read.ended);
    // The value takes in the next game's first tag, and its other tags and moves are this
    // game's, as SCID reads them.
    let text = "[Event \"A\"]\n[Black \"Smith\n\n1. c4 1/2-1/2\n\n[Event \"B\"]\n[Round \"2\"]\n\n1. d4 0-1\n";
    let read = read_as(text, Reading::AsScid);
    assert_eq!(read.game.headers.black, "Smith 1. c4 1/2-1/2 [Event \"B");
    assert_eq!(
        (&*read.game.headers.round, read.game.moves.moves.len()),
        ("2", 1)
    );
    // So does a part of the text read on its own that stops inside it.
    crate::fuzzing::pgn_in_chunks(text.as_bytes(), 16, Reading::AsScid, false);
    crate::fuzzing::pgn_in_chunks(text.as_bytes(), 16, Reading::AsScid, true);
    crate::fuzzing::pgn_kept_cut_in_chunks(text.as_bytes(), 16, Reading::AsScid5);
    // A save, `--strict` and pgn2dcg's reading refuse it as before.
    refused(
        "[Black \"Smith, J.\n[Result \"0-1\"]\n*",
        1,
        8,
        "the value of tag Black is not closed with '\"' on its line",
    );
    let pgn2dcg = Games::new(b"[Black \"Smith\n*")
        .reading(Reading::AsPgn2dcg)
        .next();
    assert!(matches!(pgn2dcg, Some(Err(_))));
}

#[test]
fn a_tag_with_no_name_is_dropped_as_scid_drops_it() {
    let text = "[Event \"E\"]\n[ \"Belgium\"]\n[]\n[%clk 1:30:00]\n[[Round \"4\"]\n\n1. e4 *";
    for reading in [Reading::AsScid, Reading::AsScid5] {
        let read = read_as(text, reading);
        assert_eq!(read.game.headers.event, "E");
        assert!(read.game.headers.round.is_empty() && read.game.headers.extra.is_empty());
        assert!(read.salvaged);
        assert_eq!(read.changes.len(), 4, "{:?}", read.changes);
        assert_eq!(
            read.changes[0].1,
            "column 1: \"[ \"Belgium\"]\" names no tag: dropped, as SCID's import drops it"
        );
    }
    refused(text, 2, 3, "a tag needs a name after '['");
}

#[test]
fn null_moves_read_as_scid_reads_them() {
    let text = "1. e4 e5 2. Nf3 Z0 3. Bc4 null 4. Z0+ --+ 5. d3 Z0! (5... Nc6) 6. c3 Z0 $2 *";
    for reading in [Reading::AsScid, Reading::AsScid5] {
        let read = read_as(text, reading);
        let moves = &read.game.moves.moves;
        let nulls: Vec<usize> = (0..moves.len())
            .filter(|&i| moves[i].ply == Ply::Null)
            .collect();
        assert_eq!(nulls, [3, 5, 6, 7, 9, 11]);
        assert_eq!((&moves[9].nags, &moves[11].nags), (&vec![1], &vec![2]));
        assert!(read.salvaged);
        assert_eq!(read.changes.len(), 6, "{:?}", read.changes);
        assert_eq!(
            read.changes[0].1,
            "column 17: \"Z0\" read as a null move (--), as SCID reads it"
        );
    }
    // `--` is every reading's null move: nothing said.
    assert!(
        read_as("1. e4 -- 2. d4 *", Reading::AsScid)
            .changes
            .is_empty()
    );
    // In check, the null move is the illegal move it was (SCID 5 cuts the game there).
    let games = kept_cut("1. e4 f5 2. Qh5+ Z0 3. Qxe8# *");
    let cut = games[0].as_ref().unwrap().cut.as_ref().unwrap();
    assert!(cut.reason.starts_with("illegal move 2... Z0"), "{cut:?}");
    // A save and `--strict` refuse it as before.
    refused(text, 1, 17, "illegal move 2... Z0 in position");
    refused("1. e4 null *", 1, 7, "\"null\" is not a move");
}

#[test]
fn tag_values_with_quotes_inside_read_as_scid_reads_them() {
    let text = "[Site \"Leningrad \"living pieces\"\"]\n[Event \"Open]\n\n1. e4 *\n";
    let read = Games::new(text.as_bytes())
        .reading(Reading::AsScid)
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(read.game.headers.site, "Leningrad \"living pieces\"");
    assert_eq!(read.game.headers.event, "Open");
    assert_eq!(read.changes.len(), 2, "{:?}", read.changes);
    refused(text, 1, 19, "expected ']'");
}

#[test]
fn control_bytes_in_tag_values_are_kept_as_scid_keeps_them() {
    let text = "[White \"Mu\u{6}ller\"]\n[Black \"a\tb \tc\t\"]\n\n1. e4 *\n";
    let g = ok(text);
    assert_eq!(g.headers.white, "Mu\u{6}ller");
    assert_eq!(g.headers.black, "a b c");
    assert_round_trip(&g);
    let scid5 = Games::new(text.as_bytes())
        .reading(Reading::AsScid5)
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(scid5.game.headers.black, "a\tb \tc\t");
}

#[test]
fn an_extra_tag_given_twice_keeps_the_last_value_in_the_first_place_as_scid4() {
    let text = "[Board \"1\"]\n[Remark \"r\"]\n[Board \"2\"]\n\n*\n";
    let as_scid = |reading| {
        Games::new(text.as_bytes())
            .reading(reading)
            .next()
            .unwrap()
            .unwrap()
            .game
            .headers
            .extra
    };
    let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
    assert_eq!(
        as_scid(Reading::AsScid),
        [pair("Board", "2"), pair("Remark", "r")]
    );
    assert_eq!(
        as_scid(Reading::AsScid5),
        [pair("Board", "1"), pair("Remark", "r"), pair("Board", "2")]
    );
}
