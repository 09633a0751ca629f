//! The five example positions published with the 9x9 file formats hash to their published
//! values with the real zobrist table (docs/formats/go9x9.md §2): minimum over the 8 symmetries,
//! compared as unsigned 64-bit numbers, of the XOR of the stones' codes.

mod go9_common;

use gamefs::game::go::{Board, Color, Point, Symmetry};
use gamefs::store::go9x9::{ascii, zobrist};

fn examples() -> Vec<(u64, Board)> {
    let text =
        std::fs::read_to_string(go9_common::data_dir().join("published-examples.txt")).unwrap();
    let boards = ascii::parse(&text).unwrap();
    assert_eq!(boards.len(), 5, "five published examples");
    boards
        .into_iter()
        .map(|b| (b.hash.expect("each example states its hash"), b.board))
        .collect()
}

#[test]
fn published_examples_hash_to_their_published_values() {
    let table = zobrist::load(&go9_common::data_dir().join(zobrist::FILE_NAME)).unwrap();
    for (want, board) in examples() {
        let (hash, _) = table.canonical(&board);
        assert_eq!(format!("{hash:016x}"), format!("{want:016x}"), "{board:?}");
        // The same for every symmetric image of the board.
        for s in Symmetry::ALL {
            assert_eq!(table.canonical(&board.transformed(s)).0, want);
        }
    }
}

#[test]
fn the_rule_is_pinned_down_by_the_examples() {
    let table = zobrist::load(&go9_common::data_dir().join(zobrist::FILE_NAME)).unwrap();
    let ex = examples();
    // Example 1 is one black stone: its hash is a single black code, not the one of its own point.
    let (want, board) = &ex[0];
    let stone = board.points_of(Color::Black).next().unwrap();
    assert_eq!(stone, Point::new(3, 3).unwrap());
    assert_ne!(
        table.black[stone.index()],
        *want,
        "the board is stored as played"
    );
    assert!(table.black.contains(want));
    // Signed comparison or little-endian byte order would give other values.
    let signed_min = |b: &Board| {
        Symmetry::ALL
            .iter()
            .map(|s| table.hash(&b.transformed(*s)) as i64)
            .min()
            .unwrap() as u64
    };
    let le_min = |b: &Board| {
        Symmetry::ALL
            .iter()
            .map(|s| table.hash(&b.transformed(*s)).swap_bytes())
            .min()
            .unwrap()
            .swap_bytes()
    };
    assert!(ex.iter().any(|(w, b)| signed_min(b) != *w));
    assert!(ex.iter().filter(|(w, b)| le_min(b) != *w).count() >= 4);
    assert_eq!(table.canonical(&Board::empty()).0, 0, "empty board is 0");
}

#[test]
fn the_bulk_hasher_gives_the_published_values() {
    let table = zobrist::load(&go9_common::data_dir().join(zobrist::FILE_NAME)).unwrap();
    let codes = table.symmetric_codes();
    for (want, board) in examples() {
        for s in Symmetry::ALL {
            assert_eq!(codes.canonical_hash(&board.transformed(s)), want);
        }
    }
    assert_eq!(codes.canonical_hash(&Board::empty()), 0);
}

proptest::proptest! {
    /// The bulk hasher that checks every record at open agrees with the reference
    /// [`ZobristTable::canonical`] on any layout (stones anywhere, legal or not).
    #[test]
    fn the_bulk_hasher_agrees_with_the_reference(cells in proptest::collection::vec(0u8..3, 81)) {
        let table = zobrist::load(&go9_common::data_dir().join(zobrist::FILE_NAME)).unwrap();
        let mut board = Board::empty();
        for (p, c) in Point::all().zip(&cells) {
            board.set(p, [None, Some(Color::Black), Some(Color::White)][usize::from(*c)]);
        }
        proptest::prop_assert_eq!(
            table.symmetric_codes().canonical_hash(&board),
            table.canonical(&board).0
        );
    }
}
