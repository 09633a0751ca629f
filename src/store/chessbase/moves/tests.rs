use super::table::Cipher;

fn raw(value: u8, moves: u8) -> u8 {
    Cipher::COMPACT.raw(value, moves)
}
use super::*;
use crate::game::ChessGame;

/// Markers among the codes given to [`record`].
const START: u16 = 254;
const END: u16 = 255;
const TWO: u16 = 1 << 15;

/// A mode-0 record of `codes`: ChessBase's values (a two-byte move as `TWO | word`), each
/// written less nothing and counted as ChessBase counts moves; `setup` before them if given.
fn record(codes: &[u16], setup: Option<&[u8]>) -> Vec<u8> {
    let mut body = setup.map(<[u8]>::to_vec).unwrap_or_default();
    let mut moves = 0u8;
    for &c in codes {
        if c & TWO != 0 {
            body.push(raw(235, moves));
            body.push(raw((c >> 8 & 0x3F) as u8, moves));
            body.push(raw(c as u8, moves));
            moves = moves.wrapping_add(1);
        } else {
            body.push(raw(c as u8, moves));
            if !matches!(c, START | END | 236) {
                moves = moves.wrapping_add(1);
            }
        }
    }
    let len = body.len() + HEADER_LEN;
    let flags = if setup.is_some() { 0x40 } else { 0 };
    let mut rec = vec![flags, (len >> 16) as u8, (len >> 8) as u8, len as u8];
    rec.extend(body);
    rec
}

/// The movetext of `moves` as gamefs writes it.
fn movetext(moves: Moves) -> String {
    let game = ChessGame {
        start: moves.start,
        moves: moves.line,
        ..ChessGame::default()
    };
    let text = crate::text::pgn::render(&game).unwrap();
    let body = text.split("\n\n").nth(1).unwrap_or_default();
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_notes_example_of_variations() {
    // 1.e4 c5 (1...c6 2.d4) (1...Nf6 2.e5) 2.Nf3 d6 (2...Nc6 3.Bb5) 3.d4, written as the
    // notes show: e4 <start> c5 Nf3 <start> d6 d4 <end> Nc6 Bb5 <end> <start> c6 d4 <end>
    // Nf6 e5 <end>.
    let codes = [
        128, START, 120, 105, START, 123, 124, END, 101, 84, END, START, 119, 124, END, 108, 127,
        END,
    ];
    let moves = decode(&record(&codes, None)).unwrap();
    assert_eq!(
        movetext(moves),
        "1. e4 c5 (1... c6 2. d4) (1... Nf6 2. e5) 2. Nf3 d6 (2... Nc6 3. Bb5) 3. d4 *"
    );
}

#[test]
fn castling_captures_and_slots_that_move_up() {
    // 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O Nf6 5.Re1 O-O 6.Bxf7+ Rxf7 7.Nxe5 Nxe5 8.Re2:
    // after castling h1's rook, on f1, is still the second.
    // Built from squares with two-byte moves where a slot is awkward to name by hand.
    let sq = |s: &str| {
        let b = s.as_bytes();
        u16::from(b[0] - b'a') * 8 + u16::from(b[1] - b'1')
    };
    let mv = |from: &str, to: &str| TWO | sq(from) | sq(to) << 6;
    let codes = [
        128,
        128,
        105,
        101,
        mv("f1", "c4"),
        mv("f8", "c5"),
        9,
        mv("g8", "f6"),
        66, // Re1: the second rook (f1) one file left: (7, 0)
        9,
        mv("c4", "f7"),
        mv("f8", "f7"),
        mv("f3", "e5"),
        mv("c6", "e5"),
        53, // the second rook (e1) one rank up
        END,
    ];
    let moves = decode(&record(&codes, None)).unwrap();
    assert_eq!(
        movetext(moves),
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. Re1 O-O 6. Bxf7+ Rxf7 7. Nxe5 Nxe5 \
         8. Re2 *"
    );
}

/// A record from a set-up position (White: Kh1, pawn b7; Black: Kh8; White to move at move
/// 50) whose moves are 50.b8=N Kg7 51.-- Kf6.
fn promotion_and_null_move() -> Vec<u8> {
    // Kh1 is index 56, the pawn b7 14, Kh8 63.
    let mut bits = Vec::new();
    for index in 0..64u8 {
        match index {
            56 => bits.extend([1, 0, 0, 0, 1]),
            14 => bits.extend([1, 0, 1, 1, 0]),
            63 => bits.extend([1, 1, 0, 0, 1]),
            _ => bits.push(0),
        }
    }
    bits.resize(192, 0);
    let mut setup = vec![1, 0, 0, 50];
    setup.extend(
        bits.chunks(8)
            .map(|c| c.iter().fold(0u8, |a, &b| a << 1 | b)),
    );
    // b7 (14) to b8 (15), a knight (3); Kg7; a null move; Kf6.
    record(&[TWO | 3 << 12 | 14 | 15 << 6, 6, 0, 6, END], Some(&setup))
}

#[test]
fn promotion_and_null_move_from_a_set_up_position() {
    let moves = decode(&promotion_and_null_move()).unwrap();
    assert_eq!(
        moves.start,
        StartPosition::Fen("7k/1P6/8/8/8/8/8/7K w - - 0 50".to_owned())
    );
    let text = movetext(moves);
    assert!(text.ends_with("50. b8=N Kg7 51. -- Kf6 *"), "{text}");
}

#[test]
fn moves_that_stop_making_sense_end_the_game_there() {
    // No end mark: the moves there are the game.
    let moves = decode(&record(&[128], None)).unwrap();
    assert_eq!(moves.line.plies(), 1);
    assert!(moves.cut.unwrap().contains("end mark"));
    // A move that is not legal (the e-pawn two steps twice): the game ends before it.
    let moves = decode(&record(&[128, 128, 128, END], None)).unwrap();
    assert_eq!(moves.line.plies(), 2);
    assert_eq!(
        moves.cut.unwrap(),
        "byte 6: e4e6 is not a legal move in \
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // Each reason a code names no move, said where the game ends.
    let cut = |codes: &[u16]| decode(&record(codes, None)).unwrap().cut.unwrap();
    assert_eq!(cut(&[143, END]), "byte 4: no Queen in slot 1");
    assert_eq!(
        cut(&[141, END]),
        "byte 4: the pawn on h2 would leave the board"
    );
    assert_eq!(cut(&[TWO, END]), "byte 4: a move from a1 to itself");
    assert_eq!(
        cut(&[9, END]),
        "byte 4: castling KingSide is not legal in \
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    // An unknown code, and a start never closed.
    let moves = decode(&record(&[128, 240, 128, END], None)).unwrap();
    assert_eq!(moves.line.plies(), 1);
    assert!(moves.cut.unwrap().contains("unknown code 240"));
    let moves = decode(&record(&[START, 128, END], None)).unwrap();
    assert_eq!(moves.line.plies(), 1);
    assert!(moves.cut.is_some());
    // A whole game has no cut.
    assert!(decode(&record(&[128, END], None)).unwrap().cut.is_none());
}

#[test]
fn records_that_do_not_decode_are_refused_with_the_byte() {
    // Another encoding mode: losing chess.
    let mut rec = record(&[END], None);
    rec[0] = 8;
    let e = decode(&rec).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.message().contains("losing chess"), "{e}");
    // A start position cut short, plain and Chess960.
    for mode in [0x40, 0x4A] {
        let mut rec = record(&[END], None);
        rec[0] = mode;
        assert!(decode(&rec).unwrap_err().message().contains("cut short"));
    }
}

/// A start position's 28 bytes: `pieces` (square index, four-bit code), the side to move
/// and castling bits.
fn setup_bytes(pieces: &[(u8, u8)], black: bool, castling: u8, number: u8) -> Vec<u8> {
    super::setup::tests::encode(pieces, [1, if black { 0x10 } else { 0 }, castling, number])
}

/// A mode-10 record: the start position, its 8 Chess960 bytes, then `codes` (single-byte
/// codes, or `TWO | word`), the count taken off after the table.
fn chess960_record(setup: &[u8], extra: [u8; 8], codes: &[u16]) -> Vec<u8> {
    let c = Cipher::CHESS960;
    let mut body = setup.to_vec();
    body.extend(extra);
    let mut moves = 0u8;
    for &code in codes {
        if code & TWO != 0 {
            body.extend([
                c.raw(235, moves),
                c.raw((code >> 8 & 0x3F) as u8, moves),
                c.raw(code as u8, moves),
            ]);
        } else {
            body.push(c.raw(code as u8, moves));
        }
        if !matches!(code, START | END) {
            moves = moves.wrapping_add(1);
        }
    }
    let len = body.len() + HEADER_LEN;
    let mut rec = vec![0x4A, (len >> 16) as u8, (len >> 8) as u8, len as u8];
    rec.extend(body);
    rec
}

#[test]
fn chess960_castling_rooks_by_file_and_damaged_start_numbers() {
    // White: king b1 (8), rooks a1 (0) and g1 (48), pawn g2 (49); Black: king b8 (15), rooks
    // a8 (7), g8 (55). All four rights; start number 100.
    let setup = setup_bytes(
        &[
            (8, 0b0001),
            (0, 0b0101),
            (48, 0b0101),
            (49, 0b0110),
            (15, 0b1001),
            (7, 0b1101),
            (55, 0b1101),
        ],
        false,
        0x0F,
        1,
    );
    let extra = [8, 15, 48, 0, 55, 7, 0, 100];
    // O-O as ChessBase writes it in Chess960 (g1 to g1), then Black's O-O-O (c8 to c8).
    let g1 = 6 * 8;
    let c8 = 2 * 8 + 7;
    let rec = chess960_record(
        &setup,
        extra,
        &[TWO | g1 | g1 << 6, TWO | c8 | c8 << 6, END],
    );
    let moves = decode(&rec).unwrap();
    assert_eq!(
        moves.start,
        StartPosition::Chess960("rk4r1/8/8/8/8/8/6P1/RK4R1 w GAga - 0 1".to_owned())
    );
    assert!(moves.cut.is_none());
    assert_eq!(movetext(moves), "1. O-O O-O-O *");
    // A start number past 959: no castling rights, as ChessBase's export shows such games;
    // castling is then not legal and the game ends before it.
    let damaged = [8, 15, 48, 0, 0x73, 0xAD, 0x9C, 0x7D];
    let moves = decode(&chess960_record(
        &setup,
        damaged,
        &[TWO | g1 | g1 << 6, END],
    ))
    .unwrap();
    assert_eq!(
        moves.start,
        StartPosition::Chess960("rk4r1/8/8/8/8/8/6P1/RK4R1 w - - 0 1".to_owned())
    );
    assert_eq!(moves.line.plies(), 0);
    assert!(moves.cut.unwrap().starts_with("byte 40: castling"));
}

#[test]
fn simple_two_byte_moves_with_variations() {
    // 1. e4 (1. d4 d5) 1... e5, mode 1: a word a move, depth first as in the compact
    // encoding; bit 15 on a move that has siblings after it (the place is kept), bit 14 on
    // a line's last move (back to the place kept; the main line's end is the game's).
    let sq = |s: &str| {
        let b = s.as_bytes();
        u16::from(b[0] - b'a') * 8 + u16::from(b[1] - b'1')
    };
    let mv = |from: &str, to: &str| sq(from) | sq(to) << 6;
    let words = [
        0x8000 | mv("e2", "e4"),
        0x4000 | mv("e7", "e5"),
        mv("d2", "d4"),
        0x4000 | mv("d7", "d5"),
    ];
    let c = Cipher::SIMPLE;
    let mut rec = vec![1, 0, 0, 0];
    for (moves, w) in words.iter().enumerate() {
        rec.extend([
            c.raw((w >> 8) as u8, moves as u8),
            c.raw(*w as u8, moves as u8),
        ]);
    }
    let len = rec.len();
    rec[3] = len as u8;
    let moves = decode(&rec).unwrap();
    assert!(moves.cut.is_none());
    assert_eq!(movetext(moves), "1. e4 (1. d4 d5) 1... e5 *");
    // No moves at all: a whole game.
    let moves = decode(&[1, 0, 0, 4]).unwrap();
    assert_eq!((moves.line.plies(), moves.cut), (0, None));
    // The variation's mark is seen in the bytes, before any move is played.
    let plies = |rec: &[u8]| Head::read(rec).unwrap().main_line_plies(rec);
    assert_eq!(plies(&rec), None);
    assert_eq!(plies(&[1, 0, 0, 4]), Some(0));
    let main_line = [
        c.raw((mv("e2", "e4") >> 8) as u8, 0),
        c.raw(mv("e2", "e4") as u8, 0),
        c.raw(((0x4000 | mv("e7", "e5")) >> 8) as u8, 1),
        c.raw(mv("e7", "e5") as u8, 1),
    ];
    assert_eq!(
        plies(&[[1, 0, 0, 8].as_slice(), &main_line].concat()),
        Some(2)
    );
    assert_eq!(
        plies(&[[1, 0, 0, 7].as_slice(), &main_line[..3]].concat()),
        None
    );
}

#[test]
fn a_record_s_bytes_tell_a_main_line_alone_before_a_move_is_played() {
    // Counted as the decoder counts: a two-byte move is one, a skipped byte none.
    let plies = |codes: &[u16]| {
        let rec = record(codes, None);
        Head::read(&rec).unwrap().main_line_plies(&rec)
    };
    let two_bytes = TWO | 12 << 8 | 28;
    assert_eq!(plies(&[128, 120, two_bytes, 236, 105, END]), Some(4));
    assert_eq!(plies(&[END]), Some(0));
    // Whatever the moves: the bytes do not say whether a move is legal.
    assert_eq!(plies(&[128, 128, 128, END]), Some(3));
    // A variation, the bytes' end before the end mark, an unknown code: the tree's way.
    assert_eq!(plies(&[128, START, 119, 124, END, 120, END]), None);
    assert_eq!(plies(&[128, 120]), None);
    assert_eq!(plies(&[128, 240, END]), None);
    let mut cut = record(&[128, two_bytes, END], None);
    cut.truncate(cut.len() - 2);
    assert_eq!(Head::read(&cut).unwrap().main_line_plies(&cut), None);
}

#[test]
fn many_variations_and_a_bound_on_open_ones() {
    // 1.e4 (1.d4) (1.d4) …: every start before the first move, each closed by a d4.
    let depth = 2_000;
    let mut codes = vec![START; depth];
    codes.push(128);
    for _ in 0..depth {
        codes.extend([END, 124]);
    }
    codes.push(END);
    let moves = decode(&record(&codes, None)).unwrap();
    assert_eq!(moves.line.moves.len(), 1);
    assert_eq!(moves.line.moves[0].variations.len(), depth);
    let mut too_deep = vec![START; MAX_OPEN + 1];
    too_deep.push(END);
    let e = decode(&record(&too_deep, None)).unwrap_err();
    assert!(e.message().contains("open"), "{e}");
}

/// A visitor that writes down every event it is told, positions as FEN, so two ways of
/// telling a game compare as lists; one made [`Events::restartable`] can forget them
/// ([`GameVisitor::restart`]), so ChessBase's decoder tells it moves as it decodes them.
#[derive(Default)]
pub(in crate::store::chessbase) struct Events(pub(in crate::store::chessbase) Vec<String>, bool);

impl Events {
    /// A visitor that can restart.
    pub(in crate::store::chessbase) fn restartable() -> Events {
        Events(Vec::new(), true)
    }
}

impl GameVisitor for Events {
    fn begin(
        &mut self,
        headers: &crate::game::Headers,
        start: &StartPosition,
    ) -> crate::error::Result<()> {
        self.0.push(format!("begin {headers:?} {start:?}"));
        Ok(())
    }
    fn line_comment(&mut self, text: &str) -> crate::error::Result<()> {
        self.0.push(format!("line comment {text:?}"));
        Ok(())
    }
    fn ply(&mut self, before: &Chess, ply: &Ply, after: &Chess, check: bool) -> Result<()> {
        let (before, after) = (fen_of(before), fen_of(after));
        self.0.push(format!("ply {before} {ply:?} {after} {check}"));
        Ok(())
    }
    fn nag(&mut self, nag: u8) -> Result<()> {
        self.0.push(format!("nag {nag}"));
        Ok(())
    }
    fn comment(&mut self, text: &str) -> Result<()> {
        self.0.push(format!("comment {text:?}"));
        Ok(())
    }
    fn begin_variation(&mut self) -> Result<()> {
        self.0.push("(".to_owned());
        Ok(())
    }
    fn end_variation(&mut self) -> Result<()> {
        self.0.push(")".to_owned());
        Ok(())
    }
    fn restart(&mut self) -> bool {
        self.0.clear();
        self.1
    }
}

/// The events of `record` with `notes` told in one pass ([`tell_one_pass`]), and as the
/// tree [`decode_annotated`] builds is walked; `None` for the first when the record does
/// not go the one-pass way. Told in one pass, a visitor that can restart and one that
/// cannot (the two ways of [`tell_one_pass`]) are told the same.
fn both_ways(record: &[u8], notes: &[(u32, Note)]) -> (Option<Vec<String>>, Vec<String>) {
    let headers = crate::game::Headers::default();
    let one_pass = |mut events: Events| {
        let told = tell_one_pass(record, notes, &mut events, |_, _| headers.clone());
        match told {
            Some(told) => {
                told.unwrap();
                Some(events.0)
            }
            None => {
                assert!(events.0.is_empty(), "{:?}", events.0);
                None
            }
        }
    };
    let one = one_pass(Events::default());
    assert_eq!(one_pass(Events::restartable()), one);
    let moves = decode_annotated(record, notes).unwrap();
    let game = ChessGame {
        headers,
        start: moves.start,
        moves: moves.line,
    };
    let mut tree = Events::default();
    crate::game::visit::walk(&game, &mut tree).unwrap();
    (one, tree.0)
}

#[test]
fn a_main_line_alone_is_told_in_one_pass_as_its_tree_is_walked() {
    // 1.e4 c5 2.Nf3 d6 (the codes of the notes' example above).
    let main = record(&[128, 120, 105, 123, END], None);
    let cases: [(&str, Vec<(u32, Note)>); 4] = [
        ("no notes", vec![]),
        (
            "texts, symbols, codes and clocks on every move and the start",
            vec![
                (0, Note::Before("Before all".to_owned())),
                (0, Note::After("Pre-game".to_owned())),
                (0, Note::Squares("Ge4".to_owned())),
                (1, Note::Nags(vec![1, 18])),
                (1, Note::Before("The king's pawn:".to_owned())),
                (1, Note::Arrows("Re2e4,Gd2d4".to_owned())),
                (1, Note::After("best by test".to_owned())),
                (1, Note::Code("[%clk 0:01:15]".to_owned())),
                (2, Note::Before("Symmetry:".to_owned())),
                (2, Note::Nags(vec![6])),
                (3, Note::After("and so on".to_owned())),
                (3, Note::Nags(vec![14, 2])),
                (3, Note::After("(again)".to_owned())),
                (4, Note::Before("Then".to_owned())),
            ],
        ),
        (
            "a note on the last move only",
            vec![(4, Note::Before("Last:".to_owned()))],
        ),
        ("symbols alone", vec![(2, Note::Nags(vec![4]))]),
    ];
    for (what, notes) in &cases {
        let (one, tree) = both_ways(&main, notes);
        assert_eq!(one.as_ref(), Some(&tree), "{what}");
        assert!(tree.len() > 4, "{what}: {tree:?}");
    }
    // From a set-up position, with a null move and a promotion.
    let set_up = promotion_and_null_move();
    let notes = [
        (3, Note::After("passes".to_owned())),
        (4, Note::Nags(vec![3])),
    ];
    let (one, tree) = both_ways(&set_up, &notes);
    assert_eq!(one, Some(tree));
    // A variation, a cut game and a note past the last move go the tree's way, and a
    // visitor told part of a game cut short (told moves as they are decoded) forgets it.
    let variation = [128, START, 119, 124, END, 120, END];
    assert!(decode_main_line(&record(&variation, None), &[]).is_none());
    assert!(decode_main_line(&record(&[128, 128, 128, END], None), &[]).is_none());
    assert!(decode_main_line(&record(&[128], None), &[]).is_none());
    let past = [(5, Note::Nags(vec![1]))];
    assert!(decode_main_line(&main, &past).is_none());
    assert!(decode_annotated(&main, &past).is_err());
    for codes in [&variation[..], &[128, 128, 128, END], &[128]] {
        assert_eq!(both_ways(&record(codes, None), &[]).0, None, "{codes:?}");
    }
}
