//! Each game of a PGN file's index, in number order: where its text starts and its summary.
//! Built in memory as the file is indexed, or read in place from a kept index's mapped file:
//! a remount fills no memory with them (the pages come from the page cache when a game is
//! looked at, and go back to it under memory pressure, where built ones would be swapped).

use std::sync::Arc;

use crate::game::{GameResult, PartialDate};
use crate::store::GameSummary;
use crate::text::input::Text;

/// The bytes of one game in a kept index, little-endian: its start in the text (u64), its five
/// name IDs (White, Black, Event, Site, Round), its date (year << 16 | month << 8 | day, 0 for
/// unknown) and its result << 16 | ECO code (u32 each).
pub(super) const RECORD_BYTES: usize = 36;

/// Each game's start in the text and summary, in number order.
#[derive(Clone, Default)]
pub struct GameTable(Table);

#[derive(Clone)]
enum Table {
    /// Built as the file is indexed (or taken from a kept index to index a grown file).
    Built {
        starts: Vec<u64>,
        summaries: Vec<GameSummary>,
    },
    /// `count` records of [`RECORD_BYTES`] from byte `at` of a kept index's file.
    Kept {
        file: Arc<Text<'static>>,
        at: usize,
        count: usize,
    },
}

impl Default for Table {
    fn default() -> Table {
        Table::Built {
            starts: Vec::new(),
            summaries: Vec::new(),
        }
    }
}

impl GameTable {
    /// The `count` games whose records start at byte `at` of the kept index `file`; `None` if
    /// the file is shorter.
    pub(super) fn kept(file: Arc<Text<'static>>, at: usize, count: usize) -> Option<GameTable> {
        let end = count.checked_mul(RECORD_BYTES)?.checked_add(at)?;
        (end <= file.len()).then_some(GameTable(Table::Kept { file, at, count }))
    }

    /// How many games there are.
    pub fn len(&self) -> usize {
        match &self.0 {
            Table::Built { starts, .. } => starts.len(),
            Table::Kept { count, .. } => *count,
        }
    }

    /// Whether there is no game.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where game `n` (0-based) starts in the text.
    pub fn start(&self, n: usize) -> Option<u64> {
        match &self.0 {
            Table::Built { starts, .. } => starts.get(n).copied(),
            Table::Kept { .. } => self.record(n).map(|r| u64_at(r, 0)),
        }
    }

    /// Where each game starts in the text, in number order.
    pub fn starts(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(|n| self.start(n).unwrap_or_default())
    }

    /// Game `n`'s summary.
    pub fn summary(&self, n: usize) -> Option<GameSummary> {
        match &self.0 {
            Table::Built { summaries, .. } => summaries.get(n).copied(),
            Table::Kept { .. } => self.record(n).map(decode_summary),
        }
    }

    /// The number of games from the first on whose start `before` takes (the starts ascend,
    /// and `before` takes a first part of them).
    pub fn partition_point(&self, before: impl Fn(u64) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if self.start(mid).is_some_and(&before) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    /// Add a game at the end.
    pub(super) fn push(&mut self, start: u64, summary: GameSummary) {
        let (starts, summaries) = self.built();
        starts.push(start);
        summaries.push(summary);
    }

    /// Take the last game off; its start.
    pub(super) fn pop(&mut self) -> Option<u64> {
        let (starts, summaries) = self.built();
        summaries.pop();
        starts.pop()
    }

    /// Each game's record as a kept index holds it, in number order.
    pub(super) fn records(&self) -> impl Iterator<Item = [u8; RECORD_BYTES]> + '_ {
        (0..self.len()).map(|n| match &self.0 {
            Table::Built { starts, summaries } => encode(starts[n], &summaries[n]),
            Table::Kept { .. } => self
                .record(n)
                .and_then(|r| r.try_into().ok())
                .unwrap_or([0; RECORD_BYTES]),
        })
    }

    /// The record of game `n` in a kept index's file.
    fn record(&self, n: usize) -> Option<&[u8]> {
        match &self.0 {
            Table::Kept { file, at, count } if n < *count => {
                let from = at + n * RECORD_BYTES;
                file.get(from..from + RECORD_BYTES)
            }
            _ => None,
        }
    }

    /// The games in memory, read from the kept index's file first if they are there.
    fn built(&mut self) -> (&mut Vec<u64>, &mut Vec<GameSummary>) {
        if let Table::Kept { .. } = self.0 {
            let (starts, summaries) = (0..self.len())
                .filter_map(|n| self.record(n))
                .map(|r| (u64_at(r, 0), decode_summary(r)))
                .unzip();
            self.0 = Table::Built { starts, summaries };
        }
        match &mut self.0 {
            Table::Built { starts, summaries } => (starts, summaries),
            Table::Kept { .. } => unreachable!("the games were just read into memory"),
        }
    }
}

impl PartialEq for GameTable {
    /// The same games, wherever they are held.
    fn eq(&self, other: &GameTable) -> bool {
        self.len() == other.len()
            && (0..self.len())
                .all(|n| (self.start(n), self.summary(n)) == (other.start(n), other.summary(n)))
    }
}

impl Eq for GameTable {}

impl std::fmt::Debug for GameTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = match self.0 {
            Table::Built { .. } => "built",
            Table::Kept { .. } => "kept",
        };
        write!(f, "GameTable({} games, {held})", self.len())
    }
}

/// The result as a kept index holds it.
fn result_code(r: GameResult) -> u32 {
    match r {
        GameResult::Unknown => 0,
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    }
}

/// A game's record as a kept index holds it ([`RECORD_BYTES`]).
fn encode(start: u64, s: &GameSummary) -> [u8; RECORD_BYTES] {
    let d = s.date;
    let date = u32::from(d.year.unwrap_or(0)) << 16
        | u32::from(d.month.unwrap_or(0)) << 8
        | u32::from(d.day.unwrap_or(0));
    let rest = result_code(s.result) << 16 | u32::from(s.eco);
    let mut record = [0; RECORD_BYTES];
    record[..8].copy_from_slice(&start.to_le_bytes());
    for (k, v) in [s.white, s.black, s.event, s.site, s.round, date, rest]
        .into_iter()
        .enumerate()
    {
        record[8 + 4 * k..12 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    record
}

/// The summary of a game's record (a result code no gamefs writes reads as unknown).
fn decode_summary(record: &[u8]) -> GameSummary {
    let u32_at =
        |k: usize| u32::from_le_bytes(record[8 + 4 * k..12 + 4 * k].try_into().unwrap_or_default());
    let (date, rest) = (u32_at(5), u32_at(6));
    let part = |v: u32| (v != 0).then_some(v);
    let result = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
    ]
    .into_iter()
    .find(|&g| result_code(g) == rest >> 16)
    .unwrap_or(GameResult::Unknown);
    GameSummary {
        deleted: false,
        white: u32_at(0),
        black: u32_at(1),
        event: u32_at(2),
        site: u32_at(3),
        round: u32_at(4),
        date: PartialDate {
            year: part(date >> 16).map(|v| v as u16),
            month: part((date >> 8) & 0xFF).map(|v| v as u8),
            day: part(date & 0xFF).map(|v| v as u8),
        },
        result,
        eco: rest as u16,
    }
}

/// The little-endian u64 at byte `at` of `bytes`.
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games read in place from kept records are the games built: each result, a date known
    /// in part, IDs up to the unknown name's; a result code no gamefs writes reads as unknown.
    #[test]
    fn kept_records_read_as_the_games_built() {
        let mut built = GameTable::default();
        let results = [
            GameResult::Unknown,
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
        ];
        for (n, result) in results.into_iter().enumerate() {
            let n32 = n as u32;
            let summary = GameSummary {
                deleted: false,
                white: n32,
                black: u32::MAX,
                event: 7,
                site: 1 << 20,
                round: n32 * 3,
                date: PartialDate {
                    year: Some(1990 + n as u16),
                    month: (n > 1).then_some(12),
                    day: (n > 2).then_some(31),
                },
                result,
                eco: 0xFFFF - n as u16,
            };
            built.push(1000 * n as u64 + (1 << 40), summary);
        }
        let mut file = vec![7u8; 5];
        for record in built.records() {
            file.extend_from_slice(&record);
        }
        let file = Arc::new(Text::Owned(file));
        let kept = GameTable::kept(file.clone(), 5, built.len()).unwrap();
        assert_eq!(kept, built);
        assert_eq!(
            kept.starts().collect::<Vec<_>>(),
            built.starts().collect::<Vec<_>>()
        );
        assert_eq!(kept.partition_point(|s| s < (1 << 40) + 1500), 2);
        assert_eq!((kept.start(4), kept.summary(4)), (None, None));
        assert!(
            GameTable::kept(file.clone(), 6, built.len()).is_none(),
            "past the end"
        );
        // The second game's result code made 9.
        let mut odd = file.to_vec();
        odd[5 + 2 * RECORD_BYTES - 2] = 9;
        let odd = GameTable::kept(Arc::new(Text::Owned(odd)), 5, 2).unwrap();
        assert_eq!(kept.summary(1).unwrap().result, GameResult::WhiteWins);
        assert_eq!(odd.summary(1).unwrap().result, GameResult::Unknown);
        // Taken into memory to go on (a grown file): the same games, one more.
        let mut grown = kept.clone();
        grown.push(1 << 41, built.summary(0).unwrap());
        assert_eq!(grown.len(), 5);
        assert_eq!(grown.pop(), Some(1 << 41));
        assert_eq!(grown, built);
    }
}
