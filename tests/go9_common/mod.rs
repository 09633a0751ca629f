//! Shared helpers of the 9x9 Go tests: the real data, small databases, random games.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gamefs::game::go::{Board, Color, Point, PositionId};
use gamefs::store::go9x9::records::{self, RawId, ScoreRecord};
pub(crate) use gamefs::testing::Rng;

/// The shared data directory with the real zobrist table and the published examples.
pub(crate) fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/go9x9");
    assert!(
        dir.join("zobrist_board_81.dat").is_file() && dir.join("published-examples.txt").is_file(),
        "the real 9x9 data is missing: expected zobrist_board_81.dat and published-examples.txt in {}",
        dir.display()
    );
    dir
}

/// A new database directory holding only the real zobrist table.
pub(crate) fn empty_db() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        data_dir().join("zobrist_board_81.dat"),
        dir.path().join("zobrist_board_81.dat"),
    )
    .unwrap();
    dir
}

/// A board from 9 rows of `#`, `O`, `.`.
pub(crate) fn board(rows: &[&str]) -> Board {
    let bytes: Vec<u8> = rows.concat().into_bytes();
    Board::from_ascii(&bytes.try_into().expect("81 cells")).expect("board characters")
}

/// A random game of `moves` moves as SGF (main line only) and the board our model gives:
/// no suicide, no occupied points, no immediate ko recapture; a pass when no move is found.
/// Long games on 81 points fill the board, so captures (and snapbacks) are frequent.
pub(crate) fn random_game(rng: &mut Rng, moves: usize) -> (String, Board) {
    let mut b = Board::empty();
    let mut sgf = String::from("(;FF[4]GM[1]SZ[9]KM[0]\n");
    let mut color = Color::Black;
    let mut ko: Option<Point> = None;
    for _ in 0..moves {
        let mut played = false;
        for _ in 0..40 {
            let p = Point::from_index(rng.below(81)).unwrap();
            if b.get(p).is_some() || Some(p) == ko {
                continue;
            }
            let mut trial = b;
            let out = trial.play(p, color);
            if out.suicided > 0 {
                continue;
            }
            // A single-stone capture by a stone left alone in atari makes a ko point.
            ko = None;
            if out.captured == 1 {
                let lone = p.neighbours().all(|n| trial.get(n) != Some(color));
                let libs = p.neighbours().filter(|n| trial.get(*n).is_none()).count();
                if lone && libs == 1 {
                    ko = p
                        .neighbours()
                        .find(|n| trial.get(*n).is_none() && b.get(*n).is_some());
                }
            }
            b = trial;
            let [c, r] = p.sgf();
            sgf.push_str(&format!(";{}[{}{}]", color.letter(), c as char, r as char));
            played = true;
            break;
        }
        if !played {
            sgf.push_str(&format!(";{}[]", color.letter()));
            ko = None;
        }
        color = color.opponent();
    }
    sgf.push_str(")\n");
    (sgf, b)
}

/// Write a scored-position file holding `recs` (id, score, confidence).
pub(crate) fn write_scores(path: &Path, recs: &[(PositionId, u8, u8)]) {
    let bytes: Vec<u8> = recs
        .iter()
        .flat_map(|(id, s, c)| {
            records::encode_score(&ScoreRecord {
                id: RawId {
                    hash: id.hash.to_be_bytes(),
                    tiebreak: id.tiebreak,
                    to_play: id.to_play,
                },
                score: *s,
                confidence: *c,
            })
        })
        .collect();
    std::fs::write(path, bytes).unwrap();
}
