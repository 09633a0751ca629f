//! The bodies of the fuzz targets: one function per decoder, taking arbitrary bytes.
//!
//! `fuzz/` (cargo-fuzz, libFuzzer) calls these from its targets, and `tests/fuzz_corpus.rs`
//! runs each over its seed corpus in `fuzz/corpus/<target>/` on stable with plain
//! `cargo test`, so the same code is exercised both ways and a crash the fuzzer found (its
//! input is committed to the corpus) stays fixed in the normal suite.
//!
//! Each body feeds the bytes to a decoder exactly as gamefs does when it reads a database or
//! a saved file, then follows what decodes along gamefs's own paths (render it, encode it
//! again) and checks the invariants the mount relies on. A panic, a hang or an allocation
//! out of proportion to the input is a bug in gamefs, never in the data: bad bytes must come
//! back as errors (docs/DESIGN.md rule 8).
//!
//! Games are compared by their rendered text or encoded bytes, never with `==` on the model:
//! the derived comparisons of the move tree recurse once per variation level, and a record
//! may nest variations thousands deep.

use crate::game::go::{Board, GoPosition, POINTS, PositionId, ZobristTable};
use crate::game::visit::GameVisitor;
use crate::game::{ChessGame, Headers, Ply, StartPosition};
use crate::store::chessbase;
use crate::store::go9x9::records;
use crate::store::scid::entry::IndexEntry as ScidEntry;
use crate::store::scid::header::Layout;
use crate::store::scid::names::NameFile as ScidNames;
use crate::store::scid::{self, record, v5};
use crate::store::simplecdb::entry::{self as cdb_entry, ENTRY_LEN, IndexEntry as CdbEntry, MAGIC};
use crate::store::simplecdb::names::{
    FIRST, NameFile as CdbNames, RECORD_LEN, record, record_text,
};
use crate::store::simplecdb::{codec, fit};
use crate::store::{NameKind, eco_text};
use crate::text::pgn_chunks::How;
use crate::text::pgn_parse::Reading;
use crate::text::{pgn, pgn_parse, sgf, sgf_parse};
use shakmaty::{Chess, Position};

/// A fuzz target body.
pub type Target = fn(&[u8]);

/// Every target, by the name of its `fuzz/fuzz_targets/<name>.rs` and corpus folder.
pub const TARGETS: [(&str, Target); 15] = [
    ("scid_record", scid_record),
    ("scid_index", scid_index),
    ("scid_names", scid_names),
    ("scid5_index", scid5_index),
    ("scid5_names", scid5_names),
    ("scid5_chess960_record", scid5_chess960_record),
    ("simplecdb_index", simplecdb_index),
    ("simplecdb_names", simplecdb_names),
    ("simplecdb_game", simplecdb_game),
    ("chessbase_game", chessbase_game),
    ("chessbase_files", chessbase_files),
    ("go9_positions", go9_positions),
    ("go9_scores", go9_scores),
    ("pgn", pgn),
    ("sgf", sgf),
];

/// A SCID game record (.sg4, the bytes an index entry points at): decoded as a game is
/// loaded and rendered as PGN as the mount shows it. When SCID could store the game (a record
/// SCID could not write itself, with 8 NAGs on a move or a tag named like an index field,
/// need not read back), its encoding must decode to the same game and encode to the same
/// bytes once more. The text, saved unchanged, must parse to the game it shows (up to the
/// FEN's form), unless the parser refuses it: it is stricter than what other writers leave in
/// records (a `SetUp "0"` tag with a start position, a 4-field FEN), and a refusal is a clean
/// error, not a changed game. (What the renderer shows differently on purpose, a tag name
/// that is not a PGN symbol or a `}` in a comment, is what is saved.)
pub fn scid_record(data: &[u8]) {
    let Some(game) = decode_scid_record(data) else {
        return;
    };
    let text = pgn::render(&game).expect("a decoded record renders as PGN");
    let head = record::read_head(data).expect("a record that decodes has a head");
    head.moves
        .visit(&mut Referee)
        .expect("a record that decodes is told whole");
    same_text(
        &render_in_one_pass(data).unwrap_or_else(|| text.clone()),
        &text,
        "a record rendered from the decoder's events differs from its model's rendering",
    );
    let Ok(bytes) = record::encode(&game) else {
        return;
    };
    let again = decode_scid_record(&bytes).expect("an encoded record decodes");
    let bytes_again = record::encode(&again).expect("a decoded encoding encodes again");
    assert!(
        bytes == bytes_again,
        "encode(decode(encode(x))) != encode(x)"
    );
    // The moves, comments and tags survive the encoding (a FEN is stored in SCID's form, so
    // the start is compared through the moves played from it).
    let again = ChessGame {
        start: game.start.clone(),
        ..again
    };
    same_text(
        &pgn::render(&again).expect("renders"),
        &text,
        "a decoded record encoded and decoded again renders differently",
    );
    if let Ok(parsed) = pgn_parse::one_game(text.as_bytes()) {
        // The parser writes a FEN in its full form; everything else reads back as shown.
        let shown = ChessGame {
            start: parsed.start.clone(),
            ..game
        };
        same_text(
            &pgn::render(&parsed).expect("renders"),
            &pgn::render(&shown).expect("renders"),
            "the PGN of a stored game parses to a different game",
        );
    }
}

/// `data` rendered as the mount renders a stored SCID game: the decoder's events straight into
/// the PGN writer; `None` when the writer asks for the model instead (annotations out of
/// order). A record that decodes must get this far.
fn render_in_one_pass(data: &[u8]) -> Option<String> {
    let head = record::read_head(data).expect("a record that decodes has a head");
    let headers = Headers {
        extra: head.extra_tags,
        ..Headers::default()
    };
    one_pass(&headers, &head.start, |w| head.moves.visit(w))
}

/// The PGN writer told a game's tags, then its moves by `tell`; `None` when it asks for the
/// model instead. The moves of a record that decodes must be told without an error.
fn one_pass(
    headers: &Headers,
    start: &StartPosition,
    tell: impl FnOnce(&mut pgn::PgnWriter) -> crate::error::Result<()>,
) -> Option<String> {
    let mut writer = pgn::PgnWriter::new();
    writer.begin(headers, start).expect("tags are written");
    match tell(&mut writer) {
        Ok(()) => Some(writer.finish()),
        Err(_) if writer.reordered() => None,
        Err(e) => panic!("a record that decodes fails in one pass: {e}"),
    }
}

/// A consumer of a decoder's events that holds every move to shakmaty's own rules: legal
/// where it is played, and told as checking exactly when it checks. The decoders take
/// shortcuts to both answers (`legal::after_move`); this is the slow, independent oracle.
struct Referee;

impl GameVisitor for Referee {
    fn begin(&mut self, _headers: &Headers, _start: &StartPosition) -> crate::error::Result<()> {
        Ok(())
    }
    fn line_comment(&mut self, _text: &str) -> crate::error::Result<()> {
        Ok(())
    }
    fn ply(
        &mut self,
        before: &Chess,
        ply: &Ply,
        after: &Chess,
        check: bool,
    ) -> crate::error::Result<()> {
        if let Ply::Move(m) = ply {
            assert!(
                before.is_legal(*m),
                "the decoder passed an illegal move {m}"
            );
        }
        assert_eq!(
            check,
            after.is_check(),
            "the decoder's check flag after {ply:?}"
        );
        Ok(())
    }
    fn nag(&mut self, _nag: u8) -> crate::error::Result<()> {
        Ok(())
    }
    fn comment(&mut self, _text: &str) -> crate::error::Result<()> {
        Ok(())
    }
    fn begin_variation(&mut self) -> crate::error::Result<()> {
        Ok(())
    }
    fn end_variation(&mut self) -> crate::error::Result<()> {
        Ok(())
    }
}

/// `data` decoded as a SCID record into a game as [`scid::ScidDatabase`] loads it (without
/// the index's fields: an empty index entry).
fn decode_scid_record(data: &[u8]) -> Option<ChessGame> {
    decode_scid_record_as(data, false)
}

/// [`decode_scid_record`] of a game whose index says whether it is Chess960 (SCID 5 keeps
/// that in the index, not in the record).
fn decode_scid_record_as(data: &[u8], chess960: bool) -> Option<ChessGame> {
    let r = record::decode_as(data, chess960).ok()?;
    Some(ChessGame {
        headers: Headers {
            extra: r.extra_tags,
            ..Headers::default()
        },
        start: r.start,
        moves: r.moves,
    })
}

/// A SCID index (.si4): header and entries, as opening a database reads them; every entry
/// the header counts is decoded with the fields the directory views use.
pub fn scid_index(data: &[u8]) {
    let Ok((header, present)) = scid::read_index(data, &"fuzz.si4") else {
        return;
    };
    for n in 0..present {
        let e = scid::index_entry(data, &header, n);
        read_views(&e);
        if header.layout == Layout::V400 {
            assert_eq!(ScidEntry::decode(&e.encode()), e, "entry {n}");
        }
    }
}

/// The fields of a SCID index entry the directory views use, each read as they read it.
fn read_views(e: &ScidEntry) {
    let _ = (
        e.is_deleted(),
        e.game_date().to_string(),
        e.game_result().as_pgn(),
        e.white_rating(),
        e.black_rating(),
        e.game_event_date().map(|d| d.to_string()),
        eco_text(e.eco),
    );
}

/// A SCID name file (.sn4): parsed, looked up by name, and written as SCID writes it; that
/// must parse to the same names.
pub fn scid_names(data: &[u8]) {
    let Ok(mut names) = ScidNames::parse(data) else {
        return;
    };
    let freqs = NameKind::ALL.map(|k| (0..names.count(k)).collect::<Vec<u32>>());
    let bytes = names.serialize(&freqs);
    let again = ScidNames::parse(&bytes).expect("a written name file parses");
    for kind in NameKind::ALL {
        assert!(
            again.section(kind).raw == names.section(kind).raw,
            "{kind:?} names differ after writing"
        );
        let section = names.section_mut(kind);
        for id in 0..section.raw.len() {
            let raw = section.raw[id].clone();
            let found = section.find(&raw).expect("a stored name is found");
            assert!(section.raw[found as usize] == raw, "{kind:?} name {id}");
        }
    }
}

/// A SCID 5 index (.si5): every whole 56-byte entry decoded with the fields the directory
/// views use, and encoded back to its bytes.
pub fn scid5_index(data: &[u8]) {
    for (n, bytes) in data.chunks_exact(v5::entry::ENTRY_LEN).enumerate() {
        let bytes: &[u8; v5::entry::ENTRY_LEN] = bytes.try_into().expect("56 bytes");
        let e = v5::entry::decode(bytes);
        read_views(&e);
        let _ = v5::entry::old_black_rating_type(&e);
        assert!(v5::entry::encode(&e) == *bytes, "entry {n}");
    }
}

/// A SCID 5 name file (.sn5): read as opening reads it; the records read (up to the first
/// damage), appended again as SCID 5 appends them, read back as the same records (their
/// lengths in SCID's shortest form, which a file need not use), and each name is found by
/// its bytes.
pub fn scid5_names(data: &[u8]) {
    let mut again = Vec::new();
    let mut read_records = Vec::new();
    let mut whole = true;
    for record in v5::names::records(data) {
        let Ok((kind, name)) = record else {
            whole = false;
            break;
        };
        v5::names::append_record(&mut again, kind, name);
        read_records.push((kind, name));
    }
    let back: Vec<(u8, &[u8])> = v5::names::records(&again)
        .map(|r| r.expect("an appended record reads back"))
        .collect();
    assert!(back == read_records, "the records read back differently");
    assert!(again.len() <= data.len());
    let (mut read, damage) = v5::names::parse(data);
    assert_eq!(damage.is_empty(), whole);
    for kind in NameKind::ALL {
        let section = read.names.section_mut(kind);
        for id in 0..section.raw.len() {
            let raw = section.raw[id].clone();
            let found = section.find(&raw).expect("a stored name is found");
            assert!(section.raw[found as usize] == raw, "{kind:?} name {id}");
        }
    }
}

/// A SCID 5 game record of a Chess960 game (the index's Chess960 bit set): decoded as a game
/// is loaded, rendered as the mount shows it, and told to the referee move by move.
pub fn scid5_chess960_record(data: &[u8]) {
    let Ok(r) = record::decode_as(data, true) else {
        return;
    };
    let game = ChessGame {
        headers: Headers {
            extra: r.extra_tags,
            ..Headers::default()
        },
        start: r.start,
        moves: r.moves,
    };
    assert!(matches!(game.start, StartPosition::Chess960(_)));
    let text = pgn::render(&game).expect("a decoded record renders as PGN");
    let head = record::read_head_as(data, true).expect("a record that decodes has a head");
    let headers = Headers {
        extra: head.extra_tags.clone(),
        ..Headers::default()
    };
    let start = head.start.clone();
    if let Some(one) = one_pass(&headers, &start, |w| head.moves.visit(w)) {
        same_text(&one, &text, "one pass and the model render differently");
    }
    let head = record::read_head_as(data, true).expect("a record that decodes has a head");
    head.moves
        .visit(&mut Referee)
        .expect("a record that decodes is told whole");
}

/// A Simple Chess Database index (.dci): header check and entries, as opening reads them;
/// each entry is read as the headers the mount shows, and encodes back to its bytes.
pub fn simplecdb_index(data: &[u8]) {
    let Ok((count, _)) = cdb_entry::count_entries(data) else {
        return;
    };
    for n in 0..count {
        let at = cdb_entry::entry_at(n);
        let bytes: &[u8; ENTRY_LEN] = data[at..at + ENTRY_LEN].try_into().expect("39 bytes");
        let e = CdbEntry::decode(bytes);
        assert!(&e.encode() == bytes, "entry {n}");
        let headers =
            fit::read_headers(&crate::store::simplecdb::fitted_of(&e), Default::default());
        let game = ChessGame {
            headers,
            ..ChessGame::default()
        };
        pgn::render(&game).expect("index fields render");
    }
}

/// A Simple Chess Database name file (.dcn, .dcs or .dce): parsed with each file's magic;
/// every reference reads as a name.
pub fn simplecdb_names(data: &[u8]) {
    for magic in &MAGIC[1..4] {
        let Ok((mut names, _notes)) = CdbNames::parse(data, magic) else {
            continue;
        };
        let records = data.get(10..).unwrap_or_default(); // an empty file has no names
        for (i, chunk) in records.chunks_exact(RECORD_LEN).enumerate() {
            let offset = FIRST + (i * RECORD_LEN) as u32;
            let record: &[u8; RECORD_LEN] = chunk.try_into().expect("36 bytes");
            let text = names.text(offset);
            assert!(*text == *record_text(record).0, "record {i}");
            let first = names.find(record).expect("a stored record is found");
            assert!(first <= offset && names.text(first) == text, "record {i}");
            assert!(names.text(names.canonical(offset)) == text, "record {i}");
            assert_eq!(
                names.canonical(offset + 1),
                crate::store::damage::UNKNOWN_NAME,
                "inside record {i}"
            );
        }
        // A save adds a name as a record cut to 36 bytes.
        let end = names.end();
        let added = names.push(&record("Name, Added"));
        assert_eq!(u64::from(added), end);
        assert_eq!(&*names.text(added), "Name, Added");
    }
}

/// A Simple Chess Database game record (.dcg, from the length bytes an index entry points
/// at): decoded as a game is loaded, rendered as PGN (the same text from the decoder's events
/// as from the model), and encoded again when the format can hold it: the encoding must
/// decode and encode to the same bytes.
pub fn simplecdb_game(data: &[u8]) {
    let Some(game) = decode_cdb_record(data) else {
        return;
    };
    let text = pgn::render(&game).expect("a decoded record renders as PGN");
    let (head, len) = codec::record_extent(&data[..data.len().min(5)]).expect("it decoded");
    let body = &data[head..head + len];
    let (_, moves) = codec::read_start(body).expect("it decoded");
    moves
        .visit(&mut Referee)
        .expect("a record that decodes is told whole");
    let (start, moves) = codec::read_start(body).expect("it decoded");
    same_text(
        &one_pass(&game.headers, &start, |w| moves.visit(w)).unwrap_or_else(|| text.clone()),
        &text,
        "a record rendered from the decoder's events differs from its model's rendering",
    );
    let Ok((body, losses)) = codec::encode_body(&game.start, &game.moves) else {
        return;
    };
    if !losses.is_empty() {
        return;
    }
    let bytes = codec::encode_record(&body).expect("a body of a fuzz input's size fits");
    let again = decode_cdb_record(&bytes).expect("an encoded record decodes");
    same_text(
        &pgn::render(&again).expect("renders"),
        &text,
        "a decoded record encoded and decoded again renders differently",
    );
}

/// A ChessBase game record (.cbg, from the header a .cbh entry points at): decoded as a game
/// is loaded, rendered as PGN, and told to a visitor that replays it (every move legal).
pub fn chessbase_game(data: &[u8]) {
    let Ok(moves) = chessbase::moves::decode(data) else {
        return;
    };
    let game = ChessGame {
        headers: Headers::default(),
        start: moves.start,
        moves: moves.line,
    };
    let text = pgn::render(&game).expect("a decoded record renders as PGN");
    crate::game::visit::walk(&game, &mut Referee).expect("a decoded record replays");
    // The one-pass way a game without variations is told tells the same game.
    let mut writer = pgn::PgnWriter::new();
    if let Some(told) = chessbase::moves::tell_main_line(data, &mut writer) {
        told.expect("a main line decoded in one pass is told");
        assert_eq!(
            writer.finish(),
            text,
            "told in one pass as its tree tells it"
        );
    }
}

/// The files of a ChessBase database read whole at open: `data` as a .cbh file (its header
/// checked, each record read), and as each entity file (players, tournaments, annotators).
pub fn chessbase_files(data: &[u8]) {
    chessbase::fuzz_files(data);
}

/// `data` as a whole .dcg record (length bytes, body) decoded into a game as
/// [`crate::store::simplecdb::SimpleCdb`] loads it (without the index's fields).
fn decode_cdb_record(data: &[u8]) -> Option<ChessGame> {
    let (head, len) = codec::record_extent(&data[..data.len().min(5)]).ok()?;
    let body = data.get(head..head.checked_add(len)?)?;
    let (start, moves) = codec::decode_body(body).ok()?;
    Some(ChessGame {
        headers: Headers::default(),
        start,
        moves,
    })
}

/// A 9x9 Go position file: decoded as opening reads it; each record encodes back to its
/// bytes, hashes, and renders as the SGF the mount shows, which (for a possible board) reads
/// back to the same position.
pub fn go9_positions(data: &[u8]) {
    let Ok(positions) = records::decode_positions(data, "fuzz.dat") else {
        return;
    };
    let table = fuzz_table();
    for r in positions {
        let bytes = records::encode_position(&r.id, &r.board, r.extra.as_ref());
        let at = r.offset as usize;
        assert!(data[at..at + bytes.len()] == bytes[..], "record at {at}");
        table.canonical(&r.board);
        let position = GoPosition {
            board: r.board,
            to_play: r.id.to_play,
            id: Some(PositionId {
                hash: u64::from_be_bytes(r.id.hash),
                tiebreak: r.id.tiebreak,
                to_play: r.id.to_play,
            }),
            scores: Vec::new(),
            extra: r.extra,
        };
        sgf_round_trip(&position);
    }
}

/// A table of distinct codes (the real one is data, not code; any distinct codes exercise
/// the same hashing).
fn fuzz_table() -> ZobristTable {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        x
    };
    let mut t = ZobristTable {
        black: [0; POINTS],
        white: [0; POINTS],
        ko: [0; POINTS],
    };
    for i in 0..POINTS {
        t.black[i] = next();
        t.white[i] = next();
        t.ko[i] = next();
    }
    t
}

/// `position` rendered as SGF and parsed back: the same board, player, id and scores, when
/// the board is one SGF can save (every group has a liberty).
fn sgf_round_trip(position: &GoPosition) {
    let text = sgf::render(position);
    let parsed = sgf_parse::parse(text.as_bytes());
    if position.board.check_layout().is_err() {
        assert!(parsed.is_err(), "an impossible board was read from SGF");
        return;
    }
    let parsed = parsed
        .unwrap_or_else(|e| panic!("rendered SGF does not parse: {e}\n{text}"))
        .position;
    assert!(
        same_board(&parsed.board, &position.board),
        "board differs\n{text}"
    );
    assert_eq!(parsed.to_play, position.to_play, "{text}");
    assert_eq!(parsed.id, position.id, "{text}");
    assert_eq!(parsed.scores, position.scores, "{text}");
}

fn same_board(a: &Board, b: &Board) -> bool {
    a.to_ascii() == b.to_ascii()
}

/// A 9x9 Go scored-position file: decoded as opening reads it; each record encodes back to
/// its bytes (with score and confidence in the stored order).
pub fn go9_scores(data: &[u8]) {
    let Ok((scores, swapped)) = records::decode_scores(data, "fuzz_rules.dat") else {
        return;
    };
    for (i, r) in scores.iter().enumerate() {
        let mut bytes = records::encode_score(r);
        if swapped {
            bytes.swap(10, 11);
        }
        let at = i * records::SCORE_RECORD;
        assert!(data[at..at + records::SCORE_RECORD] == bytes, "record {i}");
    }
}

/// What the `pgn` target runs once before its inputs: what spawning parsing threads sets up
/// once in a process (the main thread's handle, its thread-local destructors), which the leak
/// checker would otherwise blame on the first input that spawns them.
pub fn pgn_init() {
    skimmed_pgn(b"[Event \"a\"]\n\n1. e4 {c} e5 1-0\n\n[Event \"b\"]\n\n*\n");
}

/// PGN text parsed in chunks of `chunk_bytes` on 2 threads (as a PGN file's index skims a
/// file, with `skim`, and as `gamefs import` reads one, without) gives the items one parser
/// gives from the text's start, read as `reading` says: each game's number, line, bytes,
/// changes and tags, and each refusal whole (its message may name a line). Returns those
/// items; panics at the first that differs.
pub fn pgn_in_chunks(
    data: &[u8],
    chunk_bytes: usize,
    reading: Reading,
    skim: bool,
) -> Vec<Result<pgn_parse::ReadGame, pgn_parse::ParseError>> {
    let how = How {
        reading,
        skim,
        keep_cut: false,
    };
    in_chunks(data, chunk_bytes, how)
}

/// [`pgn_in_chunks`] as an import into SCID reads a text: whole, the games SCID's import
/// keeps cut short kept so ([`pgn_parse::Games::keeping_cut_games`]).
pub fn pgn_kept_cut_in_chunks(
    data: &[u8],
    chunk_bytes: usize,
    reading: Reading,
) -> Vec<Result<pgn_parse::ReadGame, pgn_parse::ParseError>> {
    let how = How {
        reading,
        skim: false,
        keep_cut: true,
    };
    in_chunks(data, chunk_bytes, how)
}

/// [`pgn_in_chunks`], each game read as `how` says.
fn in_chunks(
    data: &[u8],
    chunk_bytes: usize,
    how: How,
) -> Vec<Result<pgn_parse::ReadGame, pgn_parse::ParseError>> {
    use crate::text::pgn_chunks::{Split, with_games_read};
    let split = Split {
        chunk_bytes,
        batch_games: 3,
        chunks_ahead: 2,
    };
    let one: Vec<_> = how.apply(pgn_parse::Games::new(data)).collect();
    let chunked = with_games_read(data, how, 2, split, &|_| {}, |g| g.collect::<Vec<_>>());
    // Moves are not compared (`==` on the move tree recurses once per variation level): a
    // game read from other bytes or in another state shows in its place, its tags or its first
    // comment (where a comment before the tags goes).
    type Place<'a> = (
        (u32, u32, std::ops::Range<usize>, &'a [(u32, String)], bool),
        (&'a Headers, &'a StartPosition, &'a Option<String>),
    );
    fn place(
        item: &Result<pgn_parse::ReadGame, pgn_parse::ParseError>,
    ) -> Result<Place<'_>, &pgn_parse::ParseError> {
        match item {
            Ok(r) => Ok((
                (r.number, r.line, r.text.clone(), &r.changes, r.ended),
                (&r.game.headers, &r.game.start, &r.game.moves.comment),
            )),
            Err(e) => Err(e),
        }
    }
    let first_apart = (0..one.len().max(chunked.len()))
        .find(|&i| one.get(i).map(place) != chunked.get(i).map(place));
    if let Some(i) = first_apart {
        panic!(
            "{how:?} in chunks of {chunk_bytes} bytes: item {} is {:?}, one parser gives {:?}",
            i + 1,
            chunked.get(i).map(place),
            one.get(i).map(place)
        );
    }
    one
}

/// PGN text skimmed as a PGN file's index skims it: cut into chunks parsed on threads, the
/// games and refusals are those of one skimming from the start; and up to the first game one
/// of them refuses, skimming finds each game where reading it whole does (skimming refuses
/// nothing that reading takes: it only does not look at the moves).
fn skimmed_pgn(data: &[u8]) {
    for reading in [Reading::Exact, Reading::AsScid] {
        let skimmed = pgn_in_chunks(data, 64, reading, true);
        let read = pgn_parse::Games::new(data).reading(reading);
        for (read, skimmed) in read.zip(&skimmed) {
            match (read, skimmed) {
                (Ok(r), Ok(s)) => assert!(
                    (r.number, r.line, &r.text) == (s.number, s.line, &s.text),
                    "game {} skimmed at {:?}, read at {:?}",
                    r.number,
                    s.text,
                    r.text
                ),
                (Ok(r), Err(e)) => panic!("skimming refused game {} that reads: {e}", r.number),
                // Past a refusal, the two may take up again at different places.
                _ => break,
            }
        }
    }
}

/// PGN text, as an import or a save reads it: every game parsed is rendered as the mount
/// would show it once stored, and that text parses back to the same game; a game SCID or
/// the Simple Chess Database can store is encoded, and its record decodes to it again. As a
/// PGN file's index reads it (`skimmed_pgn`): skimmed in chunks on threads as in one go, and
/// every game a reading takes is found by skimming where reading finds it.
pub fn pgn(data: &[u8]) {
    skimmed_pgn(data);
    // Every reading: the exact one of saves, and the loose ones of bulk imports.
    let readings = [
        Reading::Exact,
        Reading::AsScid,
        Reading::AsScid5,
        Reading::AsPgn2dcg,
    ];
    // And as an import into SCID reads it, keeping the games SCID keeps cut short, in chunks.
    let kept_cut = [Reading::AsScid, Reading::AsScid5]
        .into_iter()
        .flat_map(|reading| pgn_kept_cut_in_chunks(data, 64, reading));
    let games = readings
        .into_iter()
        .flat_map(|reading| pgn_parse::Games::new(data).reading(reading))
        .chain(kept_cut);
    for game in games {
        let Ok(game) = game.map(|read| read.game) else {
            continue;
        };
        let text = pgn::render(&game).expect("a parsed game renders as PGN");
        let again = pgn_parse::one_game(text.as_bytes())
            .unwrap_or_else(|e| panic!("rendered PGN does not parse: {e}\n{text}"));
        same_text(
            &pgn::render(&again).expect("renders"),
            &text,
            "rendered PGN parses to a different game",
        );
        if let Ok(bytes) = record::encode(&game) {
            let chess960 = matches!(game.start, StartPosition::Chess960(_));
            let stored =
                decode_scid_record_as(&bytes, chess960).expect("an encoded record decodes");
            let stored = ChessGame {
                headers: Headers {
                    extra: stored.headers.extra,
                    ..game.headers.clone()
                },
                start: game.start.clone(),
                moves: stored.moves,
            };
            same_text(
                &pgn::render(&stored).expect("renders"),
                &text,
                "a game stored in a SCID record reads back differently",
            );
        }
        if let Ok((body, losses)) = codec::encode_body(&game.start, &game.moves)
            && losses.is_empty()
        {
            let bytes = codec::encode_record(&body).expect("fits");
            let stored = decode_cdb_record(&bytes).expect("an encoded record decodes");
            let stored = ChessGame {
                headers: game.headers.clone(),
                start: game.start.clone(),
                moves: stored.moves,
            };
            same_text(
                &pgn::render(&stored).expect("renders"),
                &text,
                "a game stored in a Simple Chess Database record reads back differently",
            );
        }
    }
}

/// SGF text, as a save or an import reads it: the position rendered as the mount shows it
/// reads back to the same position.
pub fn sgf(data: &[u8]) {
    let Ok(parsed) = sgf_parse::parse(data) else {
        return;
    };
    sgf_round_trip(&parsed.position);
}

/// Panic with `what` and the first line where `got` and `want` differ, unless they are equal.
fn same_text(got: &str, want: &str, what: &str) {
    if got == want {
        return;
    }
    let (n, (g, w)) = got
        .lines()
        .chain(std::iter::repeat("<end>"))
        .zip(want.lines().chain(std::iter::repeat("<end>")))
        .enumerate()
        .find(|(_, (g, w))| g != w)
        .unwrap_or((0, ("", "")));
    panic!(
        "{what}: line {}:\n  got:  {g}\n  want: {w}\nwhole text wanted:\n{want}",
        n + 1
    );
}
