//! The store over a real base: TWIC 1134 as ChessBase publishes it (tests/data/chessbase).

use super::*;
use crate::game::replay::play;
use crate::game::{GameResult, Ply, StartPosition};
use shakmaty::{Chess, san::San};
use std::path::PathBuf;

/// The test base.
fn twic() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/chessbase/twic1134")
}

/// The main line of `game` in SAN.
fn main_line(game: &ChessGame) -> Vec<String> {
    let mut pos = match &game.start {
        StartPosition::Standard => Chess::default(),
        start => crate::game::replay::start_position(start).unwrap(),
    };
    let mut out = Vec::new();
    for node in &game.moves.moves {
        out.push(match &node.ply {
            Ply::Move(m) => San::from_move(&pos, *m).to_string(),
            Ply::Null => "--".to_owned(),
        });
        pos = play(&pos, &node.ply).unwrap();
    }
    out
}

/// The moves `sans` (SAN, space-separated) written as gamefs writes them, when they are the
/// main line of `game`; else `sans` as given.
fn same_moves(game: &ChessGame, sans: &str) -> String {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for (san, node) in sans.split_whitespace().zip(&game.moves.moves) {
        let Ok(m) = san
            .parse::<San>()
            .and_then(|s| s.to_move(&pos).map_err(|_| shakmaty::san::ParseSanError))
        else {
            return sans.to_owned();
        };
        if node.ply != Ply::Move(m) {
            return sans.to_owned();
        }
        out.push(San::from_move(&pos, m).to_string());
        pos = play(&pos, &node.ply).unwrap();
    }
    if out.len() != sans.split_whitespace().count() {
        return sans.to_owned();
    }
    out.join(" ")
}

#[test]
fn opens_the_base_read_only_with_every_game() {
    let db = ChessBase::open(&twic(), false).unwrap();
    assert_eq!(db.game_count(), 6117);
    assert!(!db.writable());
    assert!(looks_like(&twic()));
    assert!(looks_like(&with_ext(&twic(), "cbg")));
    assert_eq!(base_path(&with_ext(&twic(), "cba")), twic());
    let e = ChessBase::open(&twic(), true).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert!(e.message().contains("gamefs convert"), "{e}");
    let e = db.set_deleted(0, true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    // Nothing in this base is left out: no annotations, no texts.
    assert_eq!(db.problems(), Vec::new());
}

#[test]
fn the_first_game_as_chessbase_holds_it() {
    let db = ChessBase::open(&twic(), false).unwrap();
    let g = db.load(0).unwrap();
    let h = &g.headers;
    assert_eq!(h.white, "Vachier Lagrave, M");
    assert_eq!(h.black, "Svidler, P");
    assert_eq!(h.result, GameResult::WhiteWins);
    assert_eq!(h.event, "49th Biel Masters Match");
    let pgn = crate::text::pgn::render(&g).unwrap();
    assert!(
        pgn.starts_with(
            "[Event \"49th Biel Masters Match\"]\n[Site \"Biel SUI\"]\n[Date \"2016.07.26\"]\n\
             [Round \"2\"]\n[White \"Vachier Lagrave, M\"]\n[Black \"Svidler, P\"]\n\
             [Result \"1-0\"]\n"
        ),
        "{pgn}"
    );
    assert!(
        pgn.contains("[WhiteElo \"2798\"]\n[BlackElo \"2759\"]\n[ECO \"C89\"]\n"),
        "{pgn}"
    );
    assert!(pgn.contains("46. Bf4 Ba7 47. g4 1-0"), "{pgn}");
    assert_eq!(&main_line(&g)[..5], ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    let s = db.summary(0);
    assert_eq!(&*db.name(NameKind::Player, s.white), "Vachier Lagrave, M");
    assert_eq!(&*db.name(NameKind::Site, s.site), "Biel SUI");
    assert_eq!(&*db.name(NameKind::Round, s.round), "2");
    assert_eq!(&*db.name(NameKind::Round, db.summary(4).round), "2.2");
    assert_eq!(crate::store::eco_text(s.eco).as_deref(), h.eco.as_deref());
    assert!(db.fingerprint(0).is_some());
}

/// The tags ChessBase's export writes beyond the roster: PlyCount, the tournament's type,
/// rounds, country and category, the source's. The country is checked against the places
/// of this base, which end in the same code (`Biel SUI`) for every tournament.
#[test]
fn tournament_and_source_tags_as_chessbase_exports_them() {
    let db = ChessBase::open(&twic(), false).unwrap();
    let tag = |g: &ChessGame, name: &str| {
        g.headers
            .extra
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let g = db.load(0).unwrap();
    let names: Vec<&str> = g.headers.extra.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "PlyCount",
            "EventType",
            "EventRounds",
            "EventCountry",
            "SourceTitle",
            "Source",
            "SourceDate",
            "SourceVersion",
            "SourceVersionDate",
            "SourceQuality"
        ]
    );
    assert_eq!(tag(&g, "PlyCount").as_deref(), Some("93"));
    assert_eq!(tag(&g, "EventType").as_deref(), Some("match"));
    assert_eq!(tag(&g, "EventRounds").as_deref(), Some("4"));
    assert_eq!(
        tag(&g, "SourceTitle").as_deref(),
        Some("The Week in Chess 1134")
    );
    assert_eq!(tag(&g, "Source").as_deref(), Some("Mark Crowther"));
    assert_eq!(tag(&g, "SourceDate").as_deref(), Some("2016.08.01"));
    assert_eq!(tag(&g, "SourceQuality").as_deref(), Some("2"));
    let mut countries = std::collections::BTreeSet::new();
    let mut types = std::collections::BTreeSet::new();
    for n in 0..db.game_count() {
        let g = db.load(n).unwrap();
        let country = tag(&g, "EventCountry").expect("every tournament has a country");
        assert!(
            g.headers.site.ends_with(&format!(" {country}")),
            "{}",
            g.headers.site
        );
        assert_eq!(tag(&g, "PlyCount").unwrap(), g.moves.plies().to_string());
        countries.insert(country);
        types.extend(tag(&g, "EventType"));
    }
    assert_eq!(countries.len(), 27);
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        [
            "match",
            "match (blitz)",
            "match (rapid)",
            "swiss",
            "team",
            "tourn",
            "tourn (blitz)"
        ]
    );
}

/// Teams: the extended headers (.cbj) name each game's teams (.cbe); in this base, exactly
/// the games of team events have them, White's and Black's.
#[test]
fn teams_from_the_extended_headers() {
    let db = ChessBase::open(&twic(), false).unwrap();
    let mut with_teams = 0;
    for n in 0..db.game_count() {
        let g = db.load(n).unwrap();
        let tag = |name: &str| g.headers.extra.iter().find(|(t, _)| t == name);
        let team_event = tag("EventType").is_some_and(|(_, v)| v == "team");
        assert_eq!(tag("WhiteTeam").is_some(), team_event, "game {}", n + 1);
        assert_eq!(tag("BlackTeam").is_some(), team_event);
        with_teams += usize::from(team_event);
    }
    assert_eq!(with_teams, 1310);
    let first = (0..db.game_count())
        .map(|n| db.load(n).unwrap())
        .find(|g| g.headers.event == "27th Czech Open E 2016")
        .unwrap();
    let names: Vec<&str> = first
        .headers
        .extra
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names[names.len() - 2..], ["WhiteTeam", "BlackTeam"]);
    assert_eq!(
        first.headers.extra[names.len() - 2].1,
        "SK ZIKUDA TURNOV A (MCR)"
    );
}

/// Clocks and teams of a base ChessBase made from a broadcast's PGN (Biel 2025,
/// tests/data/chessbase/biel): each game's final clocks (the .cba's clock annotations on the
/// start position) and teams equal the WhiteClock, BlackClock, WhiteTeam and BlackTeam tags of
/// the PGN it was made from, but one clock of `0:00:00` that ChessBase did not keep.
#[test]
fn clocks_and_teams_equal_the_pgn_the_base_was_made_from() {
    let base = twic().with_file_name("biel").join("BielMTO");
    let db = ChessBase::open(&base, false).unwrap();
    let source = std::fs::read_to_string(base.with_file_name("BielMTO-source-tags.tsv")).unwrap();
    let source: Vec<Vec<&str>> = source.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!((db.game_count(), source.len()), (548, 548));
    assert_eq!(db.problems(), Vec::new());
    let mut differ = Vec::new();
    for (n, fields) in source.iter().enumerate() {
        let g = db.load(n as u32).unwrap();
        let tag = |name: &str| {
            g.headers
                .extra
                .iter()
                .find(|(t, _)| t == name)
                .map_or("", |(_, v)| v.as_str())
        };
        let ours = [
            g.headers.white.as_str(),
            &g.headers.black,
            tag("WhiteTeam"),
            tag("BlackTeam"),
            tag("WhiteClock"),
            tag("BlackClock"),
        ];
        // Players are compared by their last name (ChessBase drops titles like ", Dr.").
        for (i, (a, b)) in ours.iter().zip(fields).enumerate() {
            let same = if i < 2 {
                a.split(',').next() == b.split(',').next()
            } else {
                a == b
            };
            if !same {
                differ.push(format!("game {}: {a:?} against {b:?}", n + 1));
            }
        }
    }
    assert_eq!(differ.len(), 1, "{differ:?}");
    assert!(
        differ[0].ends_with("\"\" against \"0:00:00\""),
        "{differ:?}"
    );
}

/// Every game decodes, and the first 500 equal what cbh2pgn 0.2.0 (an independent reader,
/// MIT) reads from the same files: players, result and main line (tests/data/chessbase).
#[test]
fn every_game_decodes_and_agrees_with_an_independent_reader() {
    let db = ChessBase::open(&twic(), false).unwrap();
    let reference = std::fs::read_to_string(twic().with_file_name("twic1134-cbh2pgn.tsv")).unwrap();
    let reference: Vec<&str> = reference.lines().collect();
    assert_eq!(reference.len(), 500);
    for n in 0..db.game_count() {
        let g = db.load(n).unwrap_or_else(|e| panic!("{e}"));
        let Some(line) = reference.get(n as usize) else {
            continue;
        };
        let fields: Vec<&str> = line.split('\t').collect();
        // cbh2pgn writes no check marks and names a piece's file or rank even when the other
        // piece that could go there is pinned: its moves are read as moves, not compared as
        // text.
        let sans = main_line(&g).join(" ");
        let expected = same_moves(&g, fields[3]);
        let result = match g.headers.result {
            GameResult::Unknown => "*",
            r => r.as_pgn(),
        };
        assert_eq!(
            [g.headers.white.as_str(), &g.headers.black, result, &sans],
            [fields[0], fields[1], fields[2], &expected],
            "game {}",
            n + 1
        );
    }
}

#[test]
fn a_damaged_base_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("cut");
    for ext in ["cbh", "cbp", "cbt"] {
        std::fs::copy(with_ext(&twic(), ext), with_ext(&base, ext)).unwrap();
    }
    // The moves file cut after the first games: the others' moves are past its end.
    let cbg = std::fs::read(with_ext(&twic(), "cbg")).unwrap();
    std::fs::write(with_ext(&base, "cbg"), &cbg[..2000]).unwrap();
    let db = ChessBase::open(&base, false).unwrap();
    assert!(db.load(0).is_ok());
    let last = db.game_count() - 1;
    let e = db.load(last).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CorruptRecord);
    assert!(e.message().contains("past the end"), "{e}");
    assert!(
        db.problems()
            .iter()
            .any(|p| p.item == Some(last) && p.unreadable)
    );
    // A game whose record runs past the end of the file.
    let n = (0..db.game_count()).find(|&n| db.load(n).is_err()).unwrap();
    assert!(n > 0);
    // The headers cut inside a record: the whole records' games are there, the rest said.
    let cbh = std::fs::read(with_ext(&twic(), "cbh")).unwrap();
    std::fs::write(with_ext(&base, "cbh"), &cbh[..46 * 11 + 20]).unwrap();
    let db = ChessBase::open(&base, false).unwrap();
    assert_eq!(db.game_count(), 10);
    assert!(
        db.problems().iter().any(|p| p
            .message
            .contains("20 bytes after the last whole record are left out")),
        "{:?}",
        db.problems()
    );
    // Shorter than its header; not a .cbh file.
    std::fs::write(with_ext(&base, "cbh"), [0u8; 20]).unwrap();
    let e = ChessBase::open(&base, false).err().unwrap();
    assert!(
        e.message()
            .contains("a .cbh file of 20 bytes has no header"),
        "{e}"
    );
    std::fs::write(with_ext(&base, "cbh"), [0u8; 46]).unwrap();
    assert!(!looks_like(&base));
    assert!(ChessBase::open(&base, false).is_err());
}

#[test]
fn annotations_are_shown_and_the_kinds_left_out_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("notes");
    for ext in ["cbg", "cbp", "cbt", "cbc"] {
        std::fs::copy(with_ext(&twic(), ext), with_ext(&base, ext)).unwrap();
    }
    // Game 1 gets a block at byte 26 of a new .cba: a pre-game text, 1.e4 with `!` and a
    // green square, a text before 1...e5 and one after it with the clock after it; its flags
    // say comments, symbols, squares, clocks and time spent (not shown). Record 2 becomes a
    // guiding text.
    let block = super::annotations::tests::block(&[
        (-1, 0x02, b"\x00\x00Biel 2016"),
        (0, 0x03, &[1]),
        (0, 0x04, &[2, 37]),
        (1, 0x82, b"\x00\x00The Spanish:"),
        (1, 0x02, b"\x00\x00solid."),
        (1, 0x16, &[0, 0, 0x1d, 0x4c]),
    ]);
    let mut cba = vec![0u8; 26];
    cba.extend(&block);
    std::fs::write(with_ext(&base, "cba"), &cba).unwrap();
    let mut cbh = std::fs::read(with_ext(&twic(), "cbh")).unwrap();
    let g1 = RECORD_LEN;
    cbh[g1 + 5..g1 + 9].copy_from_slice(&26u32.to_be_bytes());
    cbh[g1 + 39..g1 + 43]
        .copy_from_slice(&(1u32 << 2 | 1 << 3 | 1 << 4 | 1 << 7 | 1 << 22).to_be_bytes());
    cbh[2 * RECORD_LEN] |= 0x02;
    std::fs::write(with_ext(&base, "cbh"), &cbh).unwrap();
    let db = ChessBase::open(&base, false).unwrap();
    assert_eq!(db.game_count(), 6116);
    let pgn = crate::text::pgn::render(&db.load(0).unwrap()).unwrap();
    assert!(
        pgn.contains(
            "{Biel 2016} 1. e4 $1 {[%csl Ge5] The Spanish:} 1... e5 {[%clk 0:01:15] solid.}\n2. Nf3"
        ),
        "{pgn}"
    );
    // The game after the guiding text is the base's third.
    assert_eq!(db.load(1).unwrap().headers.result, GameResult::Draw);
    let problems: Vec<String> = db.problems().into_iter().map(|p| p.message).collect();
    assert_eq!(
        problems,
        [
            "time spent (.cba) are not shown yet: 1 game(s) have them",
            "guiding texts (pages of text, not games) are not shown: 1 of them",
        ]
    );
    // Without the .cba file, the games say so.
    std::fs::remove_file(with_ext(&base, "cba")).unwrap();
    let db = ChessBase::open(&base, false).unwrap();
    assert!(
        db.problems().iter().any(|p| p.message.contains("missing")),
        "{:?}",
        db.problems()
    );
    assert!(db.load(0).is_ok());
}

#[test]
fn visiting_a_game_tells_what_walking_the_loaded_game_tells() {
    use super::moves::tests::Events;
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/chessbase");
    let mut bases = vec![twic(), data.join("biel/BielMTO")];
    for export in std::fs::read_dir(data.join("exports")).unwrap() {
        for file in std::fs::read_dir(export.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "cbh") {
                bases.push(path);
            }
        }
    }
    // Games told in one pass, and among them those with annotations.
    let (mut one_pass, mut annotated, mut games) = (0, 0, 0);
    for base in &bases {
        let db = ChessBase::open(base, false).unwrap();
        for n in 0..db.game_count() {
            games += 1;
            let mut visited = Events::default();
            let told = db.visit(n, &mut visited).map_err(|e| e.to_string());
            // A visitor that can restart is told moves as they are decoded, the same.
            let mut streamed = Events::restartable();
            let streamed_told = db.visit(n, &mut streamed).map_err(|e| e.to_string());
            assert_eq!(streamed_told, told, "{}: game {n}", base.display());
            assert_eq!(streamed.0, visited.0, "{}: game {n}", base.display());
            let mut walked = Events::default();
            let loaded = db
                .load(n)
                .and_then(|g| crate::game::visit::walk(&g, &mut walked).map_err(|e| in_game(e, n)))
                .map_err(|e| e.to_string());
            assert_eq!(told, loaded, "{}: game {n}", base.display());
            assert_eq!(visited.0, walked.0, "{}: game {n}", base.display());
            let entry = &db.entries[n as usize];
            let Ok(stored) = db.stored(entry) else {
                continue;
            };
            if moves::decode_main_line(&stored.record, &stored.notes).is_some() {
                one_pass += 1;
                if visited.0.iter().any(|e| !e.starts_with("ply ")) {
                    annotated += 1;
                }
            }
        }
    }
    // Nearly every game has no variation, and some of those have annotations (Biel's clocks,
    // the hand-made texts and symbols).
    assert!(one_pass * 10 > games * 9, "{one_pass} of {games}");
    assert!(annotated > 500, "{annotated}");
}

#[test]
fn games_marked_deleted_are_counted_once_and_each_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("marked");
    for ext in ["cbh", "cbg", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj"] {
        std::fs::copy(with_ext(&twic(), ext), with_ext(&base, ext)).unwrap();
    }
    // The deleted mark: the top bit of a .cbh record's first byte (46-byte header and records).
    let mut cbh = std::fs::read(with_ext(&base, "cbh")).unwrap();
    for game in [1usize, 4, 6116] {
        cbh[46 * (game + 1)] |= 0x80;
    }
    std::fs::write(with_ext(&base, "cbh"), &cbh).unwrap();
    let db = ChessBase::open(&base, false).unwrap();
    assert_eq!(db.deleted_count(), 3);
    let marked: Vec<u32> = (0..db.game_count()).filter(|&n| db.deleted(n)).collect();
    assert_eq!(marked, [1, 4, 6116]);
    assert!((0..db.game_count()).all(|n| db.summary(n).deleted == db.deleted(n)));
    assert!(db.load(4).is_ok(), "a game marked deleted still reads");
}
