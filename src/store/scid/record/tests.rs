//! Tests of the game-record codec: round trips, every move code, records written by SCID
//! ("spec §N" is docs/formats/scid4.md §N).

use super::decode::*;
use super::encode::*;
use super::*;
use crate::error::ErrorKind;
use crate::game::MoveNode;
use crate::game::chess::{ChessGame, Headers, Line, Ply, RatingType, StartPosition};
use crate::game::replay::play;
use crate::game::replay::position_from_fen;
use crate::store::scid::pieces::PieceLists;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position, Role, Square};
use std::collections::BTreeSet;

// ---------- helpers ----------

/// The SAN of each ply of `line` played from `start` (`--` for null moves).
fn sans(start: &Chess, line: &Line) -> Vec<String> {
    let mut pos = start.clone();
    let mut out = Vec::new();
    for node in &line.moves {
        out.push(match &node.ply {
            Ply::Null => "--".to_owned(),
            Ply::Move(m) => SanPlus::from_move(pos.clone(), *m).to_string(),
        });
        pos = play(&pos, &node.ply).unwrap();
    }
    out
}

/// SANs of a line that starts from the standard position.
fn std_sans(line: &Line) -> Vec<String> {
    sans(&Chess::default(), line)
}

/// A corrupt-record error is expected; return its message.
fn corrupt(bytes: &[u8]) -> String {
    match decode(bytes) {
        Ok(r) => panic!("decoded {bytes:02x?} to {r:?}, expected an error"),
        Err(e) => {
            assert_eq!(e.kind(), crate::error::ErrorKind::CorruptRecord, "{e}");
            e.message().to_owned()
        }
    }
}

/// A record with no tags and a standard start: `00 00` + move stream + comment strings.
fn std_record(moves: &[u8], comments: &[&str]) -> Vec<u8> {
    let mut v = vec![0, 0];
    v.extend_from_slice(moves);
    for c in comments {
        v.extend_from_slice(c.as_bytes());
        v.push(0);
    }
    v
}

fn comment(s: &str) -> Option<String> {
    Some(s.to_owned())
}

/// Take apart a deep tree without recursion (the model's Drop recurses per level).
fn dismantle(line: Line) {
    let mut stack = vec![line];
    while let Some(mut l) = stack.pop() {
        for n in &mut l.moves {
            stack.append(&mut n.variations);
        }
    }
}

// ---------- the encoder, with a record of the move codes it wrote ----------

/// Coverage of (colour, role, code) seen by the encoder.
type Coverage = BTreeSet<(bool, u8, u8)>;

fn role_number(role: Role) -> u8 {
    role as u8
}

/// Record the (colour, role, code) of every move of `line` and its variations.
fn cover(pos: &Chess, lists: &PieceLists, line: &Line, seen: &mut Coverage) {
    let mut pos = pos.clone();
    let mut lists = *lists;
    for node in &line.moves {
        let code = encode_move(&pos, &lists, &node.ply, &mut Vec::new()).unwrap();
        let role = match &node.ply {
            Ply::Null => Role::King,
            Ply::Move(m) => m.role(),
        };
        seen.insert((pos.turn() == Color::White, role_number(role), code));
        for var in &node.variations {
            cover(&pos, &lists, var, seen);
        }
        lists.apply(&pos, &node.ply);
        pos = play(&pos, &node.ply).unwrap();
    }
}

/// The game of a record, with no index fields.
fn game_of(rec: &Record) -> ChessGame {
    ChessGame {
        headers: Headers {
            extra: rec.extra_tags.clone(),
            ..Headers::default()
        },
        start: rec.start.clone(),
        moves: rec.moves.clone(),
    }
}

/// Encode a whole record with the production encoder, noting the move codes it used.
fn encode(rec: &Record, seen: &mut Coverage) -> Vec<u8> {
    let pos = start_position(&rec.start).unwrap();
    let lists = match rec.start {
        StartPosition::Standard => PieceLists::standard(),
        StartPosition::Fen(_) | StartPosition::Chess960(_) => PieceLists::from_board(pos.board()),
    };
    cover(&pos, &lists, &rec.moves, seen);
    super::encode(&game_of(rec)).unwrap()
}

use crate::testing::{GameShape, Rng, random_game, random_line};

const COMMENTS: [&str; 6] = ["good", "Réti's idea", "{x}", "a\nb", "€ ½", "   "];

/// Games that make the encoder use every move code: rare moves (promotions, castlings, en
/// passant) preferred, null moves, up to SCID's NAGs on a move, comments, variations 3 deep,
/// half of them from a position reached by random play.
fn record_shape() -> GameShape {
    GameShape {
        random_headers: false,
        fen_percent: 50,
        starts: &[],
        start_plies: |rng| rng.below(60),
        line_len: |rng, depth| {
            if depth == 0 {
                20 + rng.below(250)
            } else {
                rng.below(8)
            }
        },
        max_plies: usize::MAX,
        max_depth: 3,
        variation_percent: 8,
        max_variations: 2,
        first_move_variations: true,
        empty_variations: true,
        null_percent: 2,
        rare_move_percent: 60,
        nags: |rng| {
            if rng.chance(10) {
                1 + rng.below(MAX_NAGS_PER_MOVE)
            } else {
                0
            }
        },
        comment: |rng| comment(COMMENTS[rng.below(COMMENTS.len())]).filter(|_| rng.chance(10)),
        line_comment: |rng, _| {
            comment(COMMENTS[rng.below(COMMENTS.len())]).filter(|_| rng.chance(10))
        },
    }
}

/// The full set of (colour, role, code) pairs SCID 4 defines for moves.
fn every_code() -> Coverage {
    let mut all = Coverage::new();
    for white in [true, false] {
        for code in 0..=10 {
            all.insert((white, role_number(Role::King), code));
        }
        for code in 1..=8 {
            all.insert((white, role_number(Role::Knight), code));
        }
        for role in [Role::Rook, Role::Queen, Role::Bishop, Role::Pawn] {
            for code in 0..16 {
                all.insert((white, role_number(role), code));
            }
        }
    }
    all
}

// ---------- the spec's examples ----------

#[test]
fn worked_example_molinari_bordais() {
    let bytes = [
        0xf4, 0x02, 0x31, 0x30, 0x00, 0x00, 0xcf, 0xaf, 0xaf, 0x22, 0x65, 0x61, 0x28, 0x21, 0xe1,
        0x24, 0x0f,
    ];
    let rec = decode(&bytes).unwrap();
    assert_eq!(
        rec.extra_tags,
        vec![("PlyCount".to_owned(), "10".to_owned())]
    );
    assert_eq!(rec.start, StartPosition::Standard);
    assert_eq!(
        std_sans(&rec.moves),
        [
            "e4", "c5", "c4", "Nc6", "Ne2", "Nf6", "Nbc3", "Nb4", "g3", "Nd3#"
        ]
    );
    assert_eq!(rec.moves.comment, None);
    assert!(
        rec.moves
            .moves
            .iter()
            .all(|n| n.nags.is_empty() && n.comment.is_none() && n.variations.is_empty())
    );
    // The test encoder writes exactly the same bytes.
    assert_eq!(encode(&rec, &mut Coverage::new()), bytes);
}

#[test]
fn variations_follow_the_move_they_replace() {
    // 1.e4 (1.d4 d5) (1.c4) e5
    let bytes = std_record(
        &[0xCF, 0x0D, 0xBF, 0xBF, 0x0E, 0x0D, 0xAF, 0x0E, 0xCF, 0x0F],
        &[],
    );
    let rec = decode(&bytes).unwrap();
    let main = &rec.moves;
    assert_eq!(std_sans(main), ["e4", "e5"]);
    let vars = &main.moves[0].variations;
    assert_eq!(vars.len(), 2);
    assert_eq!(std_sans(&vars[0]), ["d4", "d5"]);
    assert_eq!(std_sans(&vars[1]), ["c4"]);
    assert!(main.moves[1].variations.is_empty());
    assert_eq!(encode(&rec, &mut Coverage::new()), bytes);
}

#[test]
fn comments_are_assigned_in_pgn_order() {
    // {C1} 1.d4 {C2} (1.b4 {C3} 1...e5 {C4} (1...Na6 {C5}) 2.e4 {C6}) ({C7} 1.g4 {C8}) 1...d5 {C9}
    let moves = [
        0x0C, 0xBF, 0x0C, 0x0D, 0x9F, 0x0C, 0xCF, 0x0C, 0x0D, 0x21, 0x0C, 0x0E, 0xCF, 0x0C, 0x0E,
        0x0D, 0x0C, 0xEF, 0x0C, 0x0E, 0xBF, 0x0C, 0x0F,
    ];
    let names = ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"];
    let bytes = std_record(&moves, &names);
    let rec = decode(&bytes).unwrap();
    let main = &rec.moves;
    assert_eq!(main.comment, comment("C1"));
    assert_eq!(std_sans(main), ["d4", "d5"]);
    assert_eq!(main.moves[0].comment, comment("C2"));
    assert_eq!(main.moves[1].comment, comment("C9"));
    let v1 = &main.moves[0].variations[0];
    assert_eq!(v1.comment, None);
    assert_eq!(std_sans(v1), ["b4", "e5", "e4"]);
    assert_eq!(v1.moves[0].comment, comment("C3"));
    assert_eq!(v1.moves[1].comment, comment("C4"));
    assert_eq!(v1.moves[2].comment, comment("C6"));
    let v11 = &v1.moves[1].variations[0];
    let after_b4 = play(&Chess::default(), &v1.moves[0].ply).unwrap();
    assert_eq!(sans(&after_b4, v11), ["Na6"]);
    assert_eq!(v11.moves[0].comment, comment("C5"));
    let v2 = &main.moves[0].variations[1];
    assert_eq!(v2.comment, comment("C7"));
    assert_eq!(std_sans(v2), ["g4"]);
    assert_eq!(v2.moves[0].comment, comment("C8"));
    assert_eq!(encode(&rec, &mut Coverage::new()), bytes);
}

#[test]
fn unmarked_comments_follow_the_last_marked_place() {
    // No markers: the pre-game comment, then 1.e4 (spec §5.6, verified on SCID).
    let rec = decode(&std_record(
        &[0xCF, 0x0F],
        &["unmarked one", "unmarked two"],
    ))
    .unwrap();
    assert_eq!(rec.moves.comment, comment("unmarked one"));
    assert_eq!(rec.moves.moves[0].comment, comment("unmarked two"));
    // A third string lands on the end of the main line, where SCID drops it.
    let rec = decode(&std_record(&[0xCF, 0x0F], &["a", "b", "c"])).unwrap();
    assert_eq!(rec.moves.moves[0].comment, comment("b"));
    // A fourth has no place at all.
    corrupt(&std_record(&[0xCF, 0x0F], &["a", "b", "c", "d"]));
    // After a marker: the places following the marked one, variations included.
    // 1.e4 {m} (1.d4 d5) e5 + extra strings → variation start, d4, d5, (end), e5.
    let rec = decode(&std_record(
        &[0xCF, 0x0C, 0x0D, 0xBF, 0xBF, 0x0E, 0xCF, 0x0F],
        &["m", "vs", "d4", "d5", "end", "e5"],
    ))
    .unwrap();
    let main = &rec.moves;
    assert_eq!(main.comment, None);
    assert_eq!(main.moves[0].comment, comment("m"));
    let v = &main.moves[0].variations[0];
    assert_eq!(v.comment, comment("vs"));
    assert_eq!(v.moves[0].comment, comment("d4"));
    assert_eq!(v.moves[1].comment, comment("d5"));
    assert_eq!(main.moves[1].comment, comment("e5"));
    // Empty strings are no comment.
    let rec = decode(&std_record(&[0xCF, 0x0F], &["", "x"])).unwrap();
    assert_eq!(rec.moves.comment, None);
    assert_eq!(rec.moves.moves[0].comment, comment("x"));
    // A marker after a variation's end points back before it: unmarked strings are refused.
    corrupt(&std_record(
        &[0xCF, 0x0D, 0xBF, 0x0E, 0x0C, 0xCF, 0x0F],
        &["late", "extra"],
    ));
}

#[test]
fn comment_strings_must_cover_every_marker() {
    corrupt(&std_record(&[0x0C, 0xCF, 0x0C, 0x0F], &["only one"]));
    // A trailing fragment without its NUL is ignored, as SCID ignores it.
    let mut bytes = std_record(&[0xCF, 0x0C, 0x0F], &["kept"]);
    bytes.extend_from_slice(b"fragment");
    let rec = decode(&bytes).unwrap();
    assert_eq!(rec.moves.moves[0].comment, comment("kept"));
    // Comments are UTF-8, or Latin-1 when not valid UTF-8.
    let mut bytes = std_record(&[0xCF, 0x0C, 0x0F], &[]);
    bytes.extend_from_slice(b"R\xe9ti\0");
    assert_eq!(
        decode(&bytes).unwrap().moves.moves[0].comment,
        comment("Réti")
    );
    // A string that is not UTF-8 leaves the others as they are, and so does a fragment.
    let mut bytes = std_record(&[0xCF, 0x0C, 0x00, 0x0C, 0x0F], &[]);
    bytes.extend_from_slice(b"\xc3\xa9t\xe9\0\xc3\xa9\0\xe9");
    let rec = decode(&bytes).unwrap();
    assert_eq!(rec.moves.moves[0].comment, comment("été"));
    assert_eq!(rec.moves.moves[1].comment, comment("é"));
    let mut bytes = std_record(&[0xCF, 0x0C, 0x0F], &["ça"]);
    bytes.extend_from_slice(b"\xe9");
    assert_eq!(
        decode(&bytes).unwrap().moves.moves[0].comment,
        comment("ça")
    );
}

#[test]
fn null_moves() {
    // 1.e4 -- 2.d4
    let rec = decode(&std_record(&[0xCF, 0x00, 0xBF, 0x0F], &[])).unwrap();
    assert_eq!(std_sans(&rec.moves), ["e4", "--", "d4"]);
    assert_eq!(rec.moves.moves[1].ply, Ply::Null);
    // 1.e4 f6 2.Qh5+ --: a null move in check is refused.
    let msg = corrupt(&std_record(&[0xCF, 0xD1, 0x43, 0x67, 0x00, 0x0F], &[]));
    assert!(msg.starts_with("ply 4:"), "{msg}");
}

#[test]
fn queen_diagonal_takes_two_bytes() {
    // 1.e4 f6 2.Qh5+: f7 is black piece 13, code 1 (one step); Qd1-h5 = 0x43 0x67.
    let rec = decode(&std_record(&[0xCF, 0xD1, 0x43, 0x67, 0x0F], &[])).unwrap();
    assert_eq!(std_sans(&rec.moves), ["e4", "f6", "Qh5+"]);
    // A second byte that is not square + 64 is refused.
    corrupt(&std_record(&[0xCF, 0xD1, 0x43, 0x27, 0x0F], &[]));
    corrupt(&std_record(&[0xCF, 0xD1, 0x43], &[]));
}

#[test]
fn nags_up_to_seven() {
    let mut moves = vec![0xCF];
    for nag in 1..=7 {
        moves.extend([MARK_NAG, nag]);
    }
    moves.extend([MARK_NAG, 0]);
    moves.push(0x0F);
    // 7 NAGs and then a NAG 0 on one move: SCID checks the count first, so this fails too.
    corrupt(&std_record(&moves, &[]));
    let mut moves = vec![0xCF];
    for nag in [1, 0, 14, 146, 255, 7, 8, 9] {
        moves.extend([MARK_NAG, nag]);
    }
    moves.push(0x0F);
    let rec = decode(&std_record(&moves, &[])).unwrap();
    assert_eq!(rec.moves.moves[0].nags, [1, 14, 146, 255, 7, 8, 9]);
    let mut moves = vec![0xCF];
    for nag in 1..=8 {
        moves.extend([MARK_NAG, nag]);
    }
    moves.push(0x0F);
    let msg = corrupt(&std_record(&moves, &[]));
    assert!(msg.contains("NAGs"), "{msg}");
    // A NAG value may be any byte, even one that looks like a marker.
    let rec = decode(&std_record(&[0xCF, 0x0B, 0x0F, 0x0B, 0x0D, 0x0F], &[])).unwrap();
    assert_eq!(rec.moves.moves[0].nags, [0x0F, 0x0D]);
    // A NAG with no move yet in its line has nowhere to go and is dropped.
    let rec = decode(&std_record(&[0x0B, 0x01, 0xCF, 0x0F], &[])).unwrap();
    assert!(rec.moves.moves[0].nags.is_empty());
    corrupt(&std_record(&[0xCF, 0x0B], &[]));
}

#[test]
fn fen_start_uses_scan_order_numbering() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mut bytes = vec![0, FLAG_FEN];
    bytes.extend_from_slice(fen.as_bytes());
    bytes.push(0);
    // 1.e4 is 0x4F in a FEN game; black e7 is piece 12 (a8 r went to 4, pawns 8..15).
    bytes.extend([0x4F, 0xCF, 0x0F]);
    let rec = decode(&bytes).unwrap();
    assert_eq!(rec.start, StartPosition::Fen(fen.to_owned()));
    assert_eq!(std_sans(&rec.moves), ["e4", "e5"]);
    // The FEN text is kept as stored, even in a 4-field form.
    let fen = "rnb1k2Q/1p5p/p7/4p3/4q3/8/PPP2R1P/2K5 b - -";
    let mut bytes = vec![0, FLAG_FEN | FLAG_PROMOTION];
    bytes.extend_from_slice(fen.as_bytes());
    bytes.push(0);
    // Black is in check from Qh8. 1...Kd7 is king code 1 (-9); 2.Qxh7+ is white piece 6
    // (h8, last in scan order before the king came) code 8 + rank 7 = 14; h7 was black
    // piece 5, so the queen on e4 (piece 8, the last) becomes piece 5. 2...Qxh7 is a
    // diagonal: code = the queen's file (e = 4), then h7 + 64 = 0x77.
    bytes.extend([0x01, 0x6E, 0x54, 0x77, 0x0F]);
    let rec = decode(&bytes).unwrap();
    assert_eq!(rec.start, StartPosition::Fen(fen.to_owned()));
    let start = position_from_fen(fen).unwrap();
    assert_eq!(sans(&start, &rec.moves), ["Kd7", "Qxh7+", "Qxh7"]);
    // A bad FEN is a corrupt record; so is a FEN without its NUL.
    corrupt(b"\x00\x01not a fen\x00\x0f");
    corrupt(b"\x00\x018/8/8/8/8/8/8/8 w - - 0 1");
}

#[test]
fn extra_tags() {
    let mut bytes = vec![];
    bytes.push(7);
    bytes.extend_from_slice(b"UTCDate");
    bytes.push(10);
    bytes.extend_from_slice(b"2024.01.02");
    for code in 241..=250u8 {
        bytes.extend([code, 1, b'a' + (code - 241)]);
    }
    bytes.extend([251, 3, b'x', b'y', b'z']); // reserved: skipped
    bytes.extend([255, 0x12, 0x34, 0x56]); // binary EventDate: 3 bytes, skipped
    bytes.extend([5, b'E', b'm', b'p', b't', b'y', 0]); // an empty value
    bytes.extend([4, b'N', b'a', b'm', b'e', 3, b'R', 0xe9, b'.']); // Latin-1
    bytes.extend([0, 0, 0x0F]);
    let rec = decode(&bytes).unwrap();
    let mut expect = vec![("UTCDate".to_owned(), "2024.01.02".to_owned())];
    for (i, name) in COMMON_TAGS.iter().enumerate() {
        expect.push((name.to_string(), char::from(b'a' + i as u8).to_string()));
    }
    expect.push(("Empty".to_owned(), String::new()));
    expect.push(("Name".to_owned(), "Ré.".to_owned()));
    assert_eq!(rec.extra_tags, expect);
    assert!(rec.moves.moves.is_empty());
    // Truncated tags.
    corrupt(&[7, b'U', b'T']);
    corrupt(&[3, b'a', b'b', b'c', 5, b'x']);
    corrupt(&[255, 1, 2]);
    corrupt(&[251]);
    corrupt(&[]);
}

#[test]
fn marker_nesting_errors() {
    corrupt(&std_record(&[0xCF], &[])); // no end of game
    corrupt(&std_record(&[0xCF, 0x0E, 0x0F], &[])); // end of variation in the main line
    corrupt(&std_record(&[0xCF, 0x0D, 0xBF, 0x0F], &[])); // end of game inside a variation
    corrupt(&std_record(&[0x0D, 0xCF, 0x0E, 0x0F], &[])); // variation before any move
    corrupt(&std_record(
        &[0xCF, 0x0D, 0x0D, 0xBF, 0x0E, 0x0E, 0x0F],
        &[],
    ));
    // An empty variation is what it says.
    let rec = decode(&std_record(&[0xCF, 0x0D, 0x0E, 0x0F], &[])).unwrap();
    assert_eq!(rec.moves.moves[0].variations, [Line::default()]);
}

#[test]
fn bad_move_bytes() {
    // Piece 15 after it was captured: 1.e4 d5 2.exd5 and then black h7 (now index 11) as 15.
    let msg = corrupt(&std_record(&[0xCF, 0xBF, 0xC0, 0xF1, 0x0F], &[]));
    assert!(msg.starts_with("ply 4:"), "{msg}");
    corrupt(&std_record(&[0x10, 0x0F], &[])); // Ra1 code 0 = own file: its own square
    corrupt(&std_record(&[0x11, 0x0F], &[])); // Ra1xb1: own knight
    corrupt(&std_record(&[0x18, 0x0F], &[])); // Ra1-a1 by rank code 8
    corrupt(&std_record(&[0x19, 0x0F], &[])); // Ra1-a2: own pawn there
    corrupt(&std_record(&[0x20, 0x0F], &[])); // knight code 0
    corrupt(&std_record(&[0x29, 0x0F], &[])); // knight code 9
    corrupt(&std_record(&[0x21, 0x0F], &[])); // knight off the board
    corrupt(&std_record(&[0x02, 0x0F], &[])); // king steps off the board
    corrupt(&std_record(&[0x07, 0x0F], &[])); // king steps onto its own pawn
    corrupt(&std_record(&[0x0A, 0x0F], &[])); // castling through pieces
    corrupt(&std_record(&[0xC2, 0x0F], &[])); // e2xf3 onto an empty square, no en passant
    corrupt(&std_record(&[0xC4, 0x0F], &[])); // promotion from the second rank
    corrupt(&std_record(&[0x82, 0x0F], &[])); // a2+9 = b3 is empty and no en passant
    corrupt(&std_record(&[0x80, 0x0F], &[])); // a2+7 = h2: wraps around the board
    corrupt(&std_record(&[0xC1, 0x81, 0xCF, 0x0F], &[])); // 1.e3 a6 2.e3-e5: not its first rank
    corrupt(&std_record(&[0xCF, 0xCF, 0xC1, 0x0F], &[])); // 1.e4 e5 2.e4-e5: blocked
    corrupt(&std_record(&[0x28, 0x81, 0xAF, 0x0F], &[])); // 1.Nc3 a6 2.c2-c4 through c3
    // Castling without the right: 1.Nf3 Nf6 2.g3 g6 3.Bg2 Bg7 4.Rg1 Rg8 5.Rh1 Rh8 6.O-O
    let moves = [
        0x67, 0x61, 0xE1, 0xE1, 0x56, 0x5E, 0x76, 0x76, 0x77, 0x77, 0x0A, 0x0F,
    ];
    let msg = corrupt(&std_record(&moves, &[]));
    assert!(msg.contains("ply 11"), "{msg}");
}

#[test]
fn long_games_decode() {
    // 1.Nf3 Nf6 2.Ng1 Ng8 repeated: 1200 plies.
    let mut moves = Vec::new();
    for _ in 0..300 {
        moves.extend([0x67, 0x61, 0x62, 0x68]);
    }
    moves.push(0x0F);
    let rec = decode(&std_record(&moves, &[])).unwrap();
    assert_eq!(rec.moves.moves.len(), 1200);
    assert_eq!(std_sans(&rec.moves)[1199], "Ng8");
}

/// Variations this deep in [`nested_record`].
const DEPTH: usize = 10_000;

/// A record of 1.e4 (1.d4 (1.d4 (1.d4 … [`DEPTH`] levels deep.
fn nested_record() -> Vec<u8> {
    let mut moves = vec![0xCF];
    for _ in 0..DEPTH {
        moves.extend([0x0D, 0xBF]);
    }
    moves.extend(std::iter::repeat_n(0x0E, DEPTH));
    moves.push(0x0F);
    std_record(&moves, &[])
}

#[test]
fn deep_nesting_uses_no_recursion() {
    let rec = decode(&nested_record()).unwrap();
    let mut depth = 0;
    let mut line = &rec.moves;
    while let Some(v) = line.moves[0].variations.first() {
        depth += 1;
        line = v;
    }
    assert_eq!(depth, DEPTH);
    dismantle(rec.moves);
}

/// Movetext of a line in a compact PGN-like form (SAN, `$n`, `{c}`, `( … )`).
fn movetext(pos: &Chess, line: &Line, out: &mut Vec<String>) {
    if let Some(c) = &line.comment {
        out.push(format!("{{{c}}}"));
    }
    let mut pos = pos.clone();
    for n in &line.moves {
        out.push(match &n.ply {
            Ply::Null => "--".to_owned(),
            Ply::Move(m) => SanPlus::from_move(pos.clone(), *m).to_string(),
        });
        out.extend(n.nags.iter().map(|g| format!("${g}")));
        if let Some(c) = &n.comment {
            out.push(format!("{{{c}}}"));
        }
        for v in &n.variations {
            out.push("(".to_owned());
            movetext(&pos, v, out);
            out.push(")".to_owned());
        }
        pos = play(&pos, &n.ply).unwrap();
    }
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn records_written_by_scid_4_7_4() {
    // Made with Debian's scid 4.7.4 (sc_import), checked against its scidpgn export.
    let rec = decode(&hex(
        "00000ccf0b010c0dbf0cbf0d610b020b0e0eaf0e0daf0b060ecf0b05670b030b120c220f526f6f\
         7420636f6d6d656e740061667465722065340061667465722064340074776f206e61677300",
    ))
    .unwrap();
    let mut out = Vec::new();
    movetext(&Chess::default(), &rec.moves, &mut out);
    assert_eq!(
        out.join(" "),
        "{Root comment} e4 $1 {after e4} ( d4 {after d4} d5 ( Nf6 $2 $14 ) c4 ) ( c4 $6 ) \
         e5 $5 Nf3 $3 $18 {two nags} Nc6"
    );
    let rec = decode(&hex(
        "fa013100017231627131726b312f707070703270312f357031702f347050322f32503150316e31\
         2f506e3342322f5250315033502f314e42514b314e522077202d202d2031203134000c580b060b\
         13b10023740cd50b06050b15810de5360b164fd20c89410e0f776974682074656d706f20e282ac\
         207369676e206f6e6c79206d6f766500776974682074656d706f007820626164206f6e6c79206d\
         6f766500",
    ))
    .unwrap();
    assert_eq!(rec.extra_tags, [("SetUp".to_owned(), "1".to_owned())]);
    let fen = "r1bq1rk1/pppp2p1/5p1p/4pP2/2P1P1n1/Pn3B2/RP1P3P/1NBQK1NR w - - 1 14";
    assert_eq!(rec.start, StartPosition::Fen(fen.to_owned()));
    let mut out = Vec::new();
    movetext(&position_from_fen(fen).unwrap(), &rec.moves, &mut out);
    assert_eq!(
        out.join(" "),
        "{with tempo € sign only move} Ra1 $6 $19 h5 -- Qe7 {with tempo} Ne2 $6 Kh8 $21 \
         h3 ( Rf1 Rg8 $22 Bh1 Nxh2 {x bad only move} Rf2 Rb8 )"
    );
}

// ---------- every move code, by round trip ----------

#[test]
fn random_games_round_trip_and_cover_every_code() {
    let mut rng = Rng(0x5C1D_4000_0000_1234);
    let mut seen = Coverage::new();
    let mut fens = 0;
    for game in 0..400 {
        let ChessGame { start, moves, .. } = random_game(&mut rng, &record_shape());
        if matches!(start, StartPosition::Fen(_)) {
            fens += 1;
        }
        let mut extra_tags = vec![("PlyCount".to_owned(), moves.plies().to_string())];
        if rng.chance(30) {
            extra_tags.push(("Annotator".to_owned(), "Réti, R.".to_owned()));
            extra_tags.push(("MyTag".to_owned(), String::new()));
        }
        let rec = Record {
            extra_tags,
            start,
            moves,
        };
        let bytes = encode(&rec, &mut seen);
        let back = decode(&bytes).unwrap_or_else(|e| panic!("game {game}: {e}"));
        assert_eq!(back, rec, "game {game}");
    }
    assert!(fens > 100);
    let missing: Vec<_> = every_code().difference(&seen).copied().collect();
    assert!(missing.is_empty(), "codes never produced: {missing:?}");
}

// ---------- encoder refusals and SCID's FEN form ----------

/// A game of SAN moves from the standard start.
fn std_game(sans: &[&str]) -> ChessGame {
    let mut pos = Chess::default();
    let mut g = ChessGame::default();
    for san in sans {
        let ply = if *san == "--" {
            Ply::Null
        } else {
            Ply::Move(
                san.parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(&pos)
                    .unwrap(),
            )
        };
        pos = play(&pos, &ply).unwrap();
        g.moves.moves.push(MoveNode::new(ply));
    }
    g
}

/// `encode` must fail with `kind` and a message containing `needle`.
fn refused(g: &ChessGame, kind: ErrorKind, needle: &str) {
    match super::encode(g) {
        Ok(b) => panic!("encoded to {b:02x?}, expected {kind:?} ({needle})"),
        Err(e) => {
            assert_eq!(e.kind(), kind, "{e}");
            assert!(e.message().contains(needle), "{e}");
        }
    }
}

#[test]
fn encoder_refuses_what_scid_cannot_store() {
    let base = std_game(&["e4", "e5"]);
    let mut g = base.clone();
    g.moves.moves[0].nags = (1..=8).collect();
    refused(&g, ErrorKind::TooLarge, "8 NAGs");
    g.moves.moves[0].nags = (1..=7).collect();
    assert!(super::encode(&g).is_ok());
    g.moves.moves[1].nags = vec![0];
    refused(&g, ErrorKind::InvalidInput, "NAG 0");

    let with_tag = |name: &str, value: &str| {
        let mut g = base.clone();
        g.headers.extra.push((name.to_owned(), value.to_owned()));
        g
    };
    refused(&with_tag("", "x"), ErrorKind::InvalidInput, "empty name");
    refused(&with_tag(&"N".repeat(241), ""), ErrorKind::TooLarge, "240");
    assert!(super::encode(&with_tag(&"N".repeat(240), "")).is_ok());
    refused(
        &with_tag("Source", &"v".repeat(256)),
        ErrorKind::TooLarge,
        "255",
    );
    assert!(super::encode(&with_tag("Source", &"v".repeat(255))).is_ok());
    for tag in INDEX_TAGS {
        refused(&with_tag(tag, "x"), ErrorKind::InvalidInput, tag);
    }
    // A further rating tag is an extra tag only next to an index rating (as SCID keeps it).
    refused(
        &with_tag("WhiteUSCF", "1800"),
        ErrorKind::InvalidInput,
        "no rating",
    );
    refused(
        &with_tag("BlackElo", "1800"),
        ErrorKind::InvalidInput,
        "no rating",
    );
    let mut g = with_tag("WhiteElo", "2000");
    g.headers.white_rating = Some(crate::game::chess::Rating {
        value: 1800,
        kind: RatingType::Uscf,
    });
    assert!(super::encode(&g).is_ok());
    assert!(super::encode(&with_tag("WhiteBCF", "1")).is_ok());
    let mut g = with_tag("Annotator", "a");
    g.headers.extra.push(("Annotator".into(), "b".into()));
    refused(&g, ErrorKind::InvalidInput, "twice");

    let mut g = base.clone();
    g.moves.moves[1].comment = Some("nul\0byte".into());
    refused(&g, ErrorKind::InvalidInput, "NUL");
    g.moves.moves[1].comment = Some("x".repeat(MAX_RECORD_LEN));
    refused(&g, ErrorKind::TooLarge, "131071");
    // The largest record SCID takes: 131,071 bytes.
    let fixed = super::encode(&base).unwrap().len() + 2; // marker + NUL
    g.moves.moves[1].comment = Some("x".repeat(MAX_RECORD_LEN - 1 - fixed));
    assert_eq!(super::encode(&g).unwrap().len(), MAX_RECORD_LEN - 1);

    // Moves: a null move in check, an illegal move.
    let mut g = std_game(&["e4", "f6", "Qh5+"]);
    g.moves.moves.push(MoveNode::new(Ply::Null));
    refused(&g, ErrorKind::InvalidInput, "ply 4: a null move");
    let mut g = base.clone();
    g.moves.moves[1]
        .variations
        .push(std_game(&["e4"]).moves.clone());
    refused(&g, ErrorKind::InvalidInput, "illegal move");
}

fn fen_game(fen: &str) -> ChessGame {
    ChessGame {
        start: StartPosition::Fen(fen.to_owned()),
        ..ChessGame::default()
    }
}

#[test]
fn encoder_refuses_chess960_and_overfull_fens() {
    for fen in [
        "4k3/8/8/8/8/8/8/R4K1R w K - 0 1", // king not on e1
        "4k3/8/8/8/8/8/8/4K1R1 w K - 0 1", // rook not in the corner
        "4k3/8/8/8/8/8/8/4K3 w Q - 0 1",   // no rook at all
        "r3k3/8/8/8/8/8/8/4K3 w B - 0 1",  // Shredder file other than a/h
        "rk6/8/8/8/8/8/8/4K3 w q - 0 1",   // black king not on e8
    ] {
        refused(&fen_game(fen), ErrorKind::InvalidInput, "Chess960");
    }
    refused(
        &fen_game("QQQQQQQQ/QQQQQQQQ/QQk5/8/8/8/8/4K3 w - - 0 1"),
        ErrorKind::InvalidInput,
        "19 pieces",
    );
    refused(&fen_game("not a fen"), ErrorKind::InvalidInput, "start FEN");
    refused(
        &fen_game("4k3/8/8/8/8/8/8/4K3 w - e4 0 1"),
        ErrorKind::InvalidInput,
        "rank 3 or 6",
    );
    refused(
        &fen_game("4k3/8/8/8/8/8/8/4K2R w KX - 0 1"),
        ErrorKind::InvalidInput,
        "castling field",
    );
}

#[test]
fn fens_are_stored_in_scids_form() {
    let cases = [
        // A 4-field FEN gets " 0 1".
        (
            "4k3/8/8/8/4P3/8/8/4K3 b - e3",
            "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1",
        ),
        // No castling field: rights guessed from the board, in KQkq order.
        (
            "r3k2r/8/8/8/8/8/8/R3K3 w",
            "r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1",
        ),
        // X-FEN/Shredder letters for the corner rooks, any order.
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w qHAk - 3 20",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 20",
        ),
        // Counters: negative halfmove → 0, fullmove 0 → 1.
        (
            "4k3/8/8/8/8/8/8/4K3 w - - -5 0",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        ),
        // An impossible en-passant square is kept as given.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        ),
    ];
    for (given, stored) in cases {
        let (text, _) = scid_fen(given).unwrap();
        assert_eq!(text, stored, "{given}");
        let bytes = super::encode(&fen_game(given)).unwrap();
        let mut expect = vec![0, FLAG_FEN];
        expect.extend_from_slice(stored.as_bytes());
        expect.extend([0, MARK_END_GAME]);
        assert_eq!(bytes, expect);
    }
    // The standard position as a FEN is still a FEN game, numbered in scan order.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mut g = std_game(&["e4"]);
    g.start = StartPosition::Fen(fen.to_owned());
    let bytes = super::encode(&g).unwrap();
    assert_eq!(&bytes[bytes.len() - 3..], &[0, 0x4F, MARK_END_GAME]);
    // And a standard game writes 1.e4 as 0xCF.
    assert_eq!(
        super::encode(&std_game(&["e4"])).unwrap(),
        [0, 0, 0xCF, 0x0F]
    );
}

#[test]
fn main_line_promotions_set_the_flags_byte() {
    let fen = "8/1P2k3/8/8/8/8/6p1/4K3 w - - 0 1";
    let start = position_from_fen(fen).unwrap();
    let knight = Move::Normal {
        role: Role::Pawn,
        from: Square::B7,
        capture: None,
        to: Square::B8,
        promotion: Some(Role::Knight),
    };
    let queen = Move::Normal {
        role: Role::Pawn,
        from: Square::B7,
        capture: None,
        to: Square::B8,
        promotion: Some(Role::Queen),
    };
    assert!(start.is_legal(knight) && start.is_legal(queen));
    let mut g = fen_game(fen);
    g.moves.moves.push(MoveNode::new(Ply::Move(queen)));
    assert_eq!(super::encode(&g).unwrap()[1], FLAG_FEN | FLAG_PROMOTION);
    g.moves.moves[0] = MoveNode::new(Ply::Move(knight));
    assert_eq!(
        super::encode(&g).unwrap()[1],
        FLAG_FEN | FLAG_PROMOTION | FLAG_UNDER_PROMOTION
    );
    // Only the main line counts.
    let mut g = fen_game(fen);
    let mut node = MoveNode::new(Ply::Null);
    node.variations.push(Line {
        comment: None,
        moves: vec![MoveNode::new(Ply::Move(knight))],
    });
    g.moves.moves.push(node);
    assert_eq!(super::encode(&g).unwrap()[1], FLAG_FEN);
}

#[test]
fn deep_nesting_encodes_without_recursion() {
    // Through the encoder and back.
    let bytes = nested_record();
    let rec = decode(&bytes).unwrap();
    // Moved, not cloned: the model's derived Clone recurses per level.
    let game = ChessGame {
        headers: Headers::default(),
        start: rec.start,
        moves: rec.moves,
    };
    assert_eq!(super::encode(&game).unwrap(), bytes);
    let ChessGame { moves, .. } = game;
    dismantle(moves);
}

// ---------- robustness ----------

#[test]
fn truncations_and_garbage_never_panic() {
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    let mut valid = Vec::new();
    for _ in 0..30 {
        let shape = GameShape {
            line_len: |rng, depth| if depth == 0 { 40 } else { rng.below(8) },
            max_depth: 2,
            ..record_shape()
        };
        let mut budget = usize::MAX;
        let moves = random_line(&mut rng, &shape, &Chess::default(), 0, &mut budget);
        let rec = Record {
            extra_tags: vec![("Annotator".to_owned(), "x".to_owned())],
            start: StartPosition::Standard,
            moves,
        };
        valid.push(encode(&rec, &mut Coverage::new()));
    }
    for bytes in &valid {
        for end in 0..bytes.len() {
            let _ = decode(&bytes[..end]);
        }
    }
    // Mutations of valid records reach deep into the decoder.
    for _ in 0..20_000 {
        let mut bytes = valid[rng.below(valid.len())].clone();
        for _ in 0..=rng.below(4) {
            let i = rng.below(bytes.len());
            bytes[i] = rng.next_u64() as u8;
        }
        let _ = decode(&bytes);
    }
    // Pure garbage, with and without a plausible header.
    for _ in 0..20_000 {
        let len = rng.below(64);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if rng.chance(50) {
            bytes.splice(0..0, [0, 0]);
        }
        let _ = decode(&bytes);
    }
}
