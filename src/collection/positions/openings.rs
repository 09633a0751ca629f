//! Opening names for positions, from lichess's chess-openings data set (CC0; copied into
//! `data/openings/`, see its README): each line's moves are replayed once, on first use, and
//! the position reached is named by the line's ECO code and name.

use std::collections::HashMap;
use std::sync::OnceLock;

use shakmaty::san::San;
use shakmaty::{Chess, Position};

use super::key::position_key;

const FILES: [&str; 5] = [
    include_str!("../../../data/openings/a.tsv"),
    include_str!("../../../data/openings/b.tsv"),
    include_str!("../../../data/openings/c.tsv"),
    include_str!("../../../data/openings/d.tsv"),
    include_str!("../../../data/openings/e.tsv"),
];

/// An opening: its ECO code and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code (`B90`).
    pub eco: &'static str,
    /// The name (`Sicilian Defense: Najdorf Variation`).
    pub name: &'static str,
}

/// The opening of the position with key `key` ([`position_key`]), if the data set names it.
pub fn opening(key: u64) -> Option<&'static Opening> {
    static TABLE: OnceLock<HashMap<u64, Opening>> = OnceLock::new();
    TABLE.get_or_init(table).get(&key)
}

/// Every named position by key; the first line naming a position wins.
fn table() -> HashMap<u64, Opening> {
    let mut out = HashMap::new();
    for text in FILES {
        for line in text.lines().skip(1) {
            let mut fields = line.split('\t');
            let (Some(eco), Some(name), Some(moves)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            if let Some(pos) = replay(moves) {
                out.entry(position_key(&pos))
                    .or_insert(Opening { eco, name });
            }
        }
    }
    out
}

/// The position after the moves of `movetext` (`1. e4 c5 2. Nf3`), if they are legal.
fn replay(movetext: &str) -> Option<Chess> {
    let mut pos = Chess::default();
    for token in movetext.split_whitespace() {
        if token.ends_with('.') {
            continue;
        }
        let m = token.parse::<San>().ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(m);
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_najdorf_is_named() {
        let pos = replay("1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6").unwrap();
        let o = opening(position_key(&pos)).unwrap();
        assert_eq!(o.eco, "B90");
        assert_eq!(o.name, "Sicilian Defense: Najdorf Variation");
        assert!(opening(position_key(&Chess::default())).is_none());
    }

    #[test]
    fn every_line_of_the_data_set_replays() {
        let lines: usize = FILES.iter().map(|t| t.lines().count() - 1).sum();
        let bad: Vec<&str> = FILES
            .iter()
            .flat_map(|t| t.lines().skip(1))
            .filter(|l| replay(l.split('\t').nth(2).unwrap_or("x")).is_none())
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
        assert!(
            table().len() > lines * 9 / 10,
            "{} of {lines}",
            table().len()
        );
    }
}
