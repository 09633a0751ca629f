//! `gamefs convert`: the games of one database copied into another of any chess format, each
//! decoded from the source and encoded by the target's store as a save would (SCID 4 into
//! SCID 5 and back, a Simple Chess Database into SCID, …).

use std::cell::Cell;

use super::{ChessStore, Each};
use crate::error::{Error, Result};

/// What a conversion did.
#[derive(Debug, Default)]
pub struct ConvertReport {
    /// Games of the source (deleted ones included).
    pub games: u32,
    /// Games stored in the target.
    pub stored: u32,
    /// Games marked deleted in the source, not copied.
    pub deleted: u32,
    /// Games the target cannot hold (or the source cannot read): the source's game number
    /// (0-based) and why, in order.
    pub left_out: Vec<(u32, Error)>,
}

/// Append every game of `source` that is not marked deleted to `target`, in order. A game the
/// target cannot hold exactly (a Chess960 game in SCID 4, an EventDate SCID 4 cannot keep, …)
/// or the source cannot read is left out and listed; a failure of the target itself fails the
/// whole call, leaving it as it was.
pub fn copy_games(source: &dyn ChessStore, target: &dyn ChessStore) -> Result<ConvertReport> {
    let mut report = ConvertReport {
        games: source.game_count(),
        ..ConvertReport::default()
    };
    let kept: Vec<u32> = (0..report.games)
        .filter(|&n| !source.summary(n).deleted)
        .collect();
    report.deleted = report.games - kept.len() as u32;
    // The number of the game the iterator gave last: the one a refusal is about.
    let current = Cell::new(0u32);
    let mut games = kept.iter().map(|&n| {
        current.set(n);
        source.load(n)
    });
    let mut left_out = Vec::new();
    let stored = target.append_each(
        &mut games,
        Some(Each {
            fit: false,
            refused: &mut |e| left_out.push((current.get(), e)),
            changed: &mut |_| {},
        }),
    )?;
    report.stored = stored.len() as u32;
    report.left_out = left_out;
    Ok(report)
}
