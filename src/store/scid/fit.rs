//! A game fitted to what SCID 4 holds, the way SCID's own PGN import (`sc_import`) fits it:
//! for a bulk import, which stores what the format can hold rather than refusing the game.
//! Each change is described, so the import can report it.
//!
//! The rules, each checked against Debian's SCID 4.7.4 on the same text (tests/data/README.md):
//! - a tag whose name and value together exceed 240 bytes is dropped (a name field is then
//!   empty);
//! - a rating over 4000 is dropped;
//! - a year after 2047 becomes unknown (month and day are kept);
//! - an EventDate more than 3 years from the Date's year (an unknown year counting as 0) is
//!   dropped (by the index writer: [`super::derive::encode_and_derive_as_import`]);
//! - a move NAG ($1-$6) replaces an earlier one and goes first, an evaluation NAG ($10-$21)
//!   replaces an earlier one, and a move keeps at most 7 NAGs (later ones are dropped).
//!
//! A game still too big for a record after this (or with a name over 255 bytes) is refused by
//! the encoder, as SCID refuses it.

use super::derive::{MAX_ELO, MAX_YEAR};
use super::record::{MAX_NAGS_PER_MOVE, MAX_TAG_NAME_LEN};
use crate::game::{ChessGame, Line, PartialDate};

/// Fit `game` to SCID 4 as `sc_import` does; what was changed, one phrase each (empty when
/// the game is stored as written).
pub(crate) fn like_sc_import(game: &mut ChessGame) -> Vec<String> {
    fit(game, true)
}

/// Fit `game` to SCID 5 as its import does: as [`like_sc_import`], except that an EventDate
/// of any year is kept (SCID 5's index stores the whole date) and a dropped tag is a warning,
/// not one of the game's errors (SCID 5's `visitPGN_TagPair` logs it with `logWarning`).
pub(crate) fn like_scid5_import(game: &mut ChessGame) -> Vec<String> {
    fit(game, false)
}

/// The fitting of both; `scid4`: an EventDate more than 3 years from the Date is dropped, and
/// a dropped tag counts as one of the game's errors.
fn fit(game: &mut ChessGame, scid4: bool) -> Vec<String> {
    let mut changes = Vec::new();
    // SCID's import forgives two errors a game; at the third it ignores the rest of the game.
    let mut errors = 0;
    let tag_error = usize::from(scid4);
    let h = &mut game.headers;
    for (tag, value) in [
        ("Event", &mut h.event),
        ("Site", &mut h.site),
        ("Round", &mut h.round),
        ("White", &mut h.white),
        ("Black", &mut h.black),
    ] {
        if too_long(tag, value) {
            changes.push(format!(
                "{tag} of {} bytes dropped (SCID keeps a tag of at most {MAX_TAG_NAME_LEN} bytes, name and value)",
                value.len()
            ));
            value.clear();
            errors += tag_error;
        }
    }
    h.extra.retain(|(tag, value)| {
        let keep = !too_long(tag, value);
        if !keep {
            changes.push(format!(
                "tag {tag} of {} bytes dropped (SCID keeps a tag of at most {MAX_TAG_NAME_LEN} bytes, name and value)",
                value.len()
            ));
            errors += tag_error;
        }
        keep
    });
    for (colour, rating) in [
        ("White", &mut h.white_rating),
        ("Black", &mut h.black_rating),
    ] {
        if let Some(r) = rating.filter(|r| r.value > MAX_ELO) {
            changes.push(format!(
                "{colour}{} \"{}\" dropped (SCID keeps ratings up to {MAX_ELO})",
                r.kind.tag_suffix(),
                r.value
            ));
            *rating = None;
            errors += tag_error;
        }
    }
    forget_late_year("Date", &mut h.date, &mut changes);
    if let Some(event) = &mut h.event_date {
        forget_late_year("EventDate", event, &mut changes);
        // Kept in the game: the index writer drops it as SCID's does
        // (derive::encode_and_derive_as_import), which is not the same as no EventDate.
        let (e, d) = (event.year.unwrap_or(0), h.date.year.unwrap_or(0));
        if scid4 && e.abs_diff(d) > 3 {
            changes.push(format!(
                "EventDate {event} dropped (SCID keeps an event date only within 3 years of the Date {})",
                h.date
            ));
        }
    }
    if errors > ERRORS_FORGIVEN {
        if !game.moves.moves.is_empty() {
            changes.push(
                "the moves dropped (SCID ignores the rest of a game after its third error)".into(),
            );
        }
        game.moves.moves.clear();
        return changes;
    }
    let mut nags = NagCount {
        errors,
        ..NagCount::default()
    };
    let cut = nags_as_scid(&mut game.moves, &mut nags);
    let (replaced, dropped) = (nags.replaced, nags.dropped);
    if replaced > 0 {
        changes.push(format!(
            "{replaced} NAG(s) replaced by a later one of the same kind (SCID keeps one move \
             NAG $1-$6, first, and one evaluation NAG $10-$21 a move)"
        ));
    }
    if dropped > 0 {
        changes.push(format!(
            "{dropped} NAG(s) dropped (SCID keeps {MAX_NAGS_PER_MOVE} per move)"
        ));
    }
    if cut {
        changes.push(
            "the rest of the game after its third error dropped (as SCID's import does)".into(),
        );
    }
    changes
}

/// Whether SCID's import drops tag `name` with `value`.
fn too_long(name: &str, value: &str) -> bool {
    name.len() + value.len() > MAX_TAG_NAME_LEN
}

/// A year SCID cannot hold becomes unknown, as SCID's date parser makes it.
fn forget_late_year(tag: &str, date: &mut PartialDate, changes: &mut Vec<String>) {
    if date.year.is_some_and(|y| y > MAX_YEAR) {
        changes.push(format!(
            "{tag} {date}: the year is unknown (SCID keeps years up to {MAX_YEAR})"
        ));
        date.year = None;
    }
}

/// How many errors SCID's import forgives in one game.
const ERRORS_FORGIVEN: usize = 2;

/// What [`nags_as_scid`] did, and the game's errors so far.
#[derive(Default)]
struct NagCount {
    errors: usize,
    replaced: usize,
    dropped: usize,
}

/// The NAGs of every move in `line` and its variations as SCID's import adds them one by one
/// (`Game::AddNag`); each NAG refused is an error, and at the game's third error (counted in
/// text order) the rest of the game is cut off (true when it was).
fn nags_as_scid(line: &mut Line, count: &mut NagCount) -> bool {
    let cut = third_error_at(line, count.errors);
    let mut lines = vec![&mut *line];
    while let Some(line) = lines.pop() {
        for node in &mut line.moves {
            // One NAG stays as it is: the common case costs nothing.
            if node.nags.len() > 1 {
                let (kept, replaced, dropped) = add_nags(&node.nags);
                count.replaced += replaced;
                count.dropped += dropped;
                node.nags = kept;
            }
            lines.extend(node.variations.iter_mut());
        }
    }
    let Some((path, at)) = cut else {
        return false;
    };
    let mut line = line;
    for (i, j) in path {
        line.moves.truncate(i + 1);
        let node = &mut line.moves[i];
        node.variations.truncate(j + 1);
        line = &mut node.variations[j];
    }
    line.moves.truncate(at + 1);
    let node = &mut line.moves[at];
    node.comment = None;
    node.variations.clear();
    true
}

/// `nags` of one move as SCID adds them: what is kept, how many replaced an earlier one, how
/// many were refused (a move holds at most 7, even when a new one would replace one).
fn add_nags(nags: &[u8]) -> (Vec<u8>, usize, usize) {
    let (mut kept, mut replaced, mut dropped) = (Vec::with_capacity(nags.len()), 0, 0);
    for &nag in nags {
        if kept.len() >= MAX_NAGS_PER_MOVE {
            dropped += 1;
        } else if let Some(same) = kept.iter_mut().find(|k| same_kind(**k, nag)) {
            *same = nag;
            replaced += 1;
        } else if is_move_nag(nag) {
            kept.insert(0, nag);
        } else {
            kept.push(nag);
        }
    }
    (kept, replaced, dropped)
}

/// Where SCID's import meets the game's third error, the game having had `errors` before its
/// moves: the way down to the line (move index, variation index at each level) and the move
/// whose refused NAG it is. The walk follows the text: a move, its NAGs, its variations, the
/// next move; any depth without recursion.
fn third_error_at(line: &Line, mut errors: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    // Each frame: a line, the move to look at next, and the variation of the previous move to
    // enter next (moves are looked at before their variations).
    let mut stack: Vec<(&Line, usize, usize)> = vec![(line, 0, 0)];
    loop {
        let (line, i, j) = stack.last_mut()?;
        let i_now = *i;
        if i_now > 0 && *j < line.moves[i_now - 1].variations.len() {
            let variation = &line.moves[i_now - 1].variations[*j];
            *j += 1;
            stack.push((variation, 0, 0));
            continue;
        }
        let Some(node) = line.moves.get(i_now) else {
            stack.pop();
            continue;
        };
        *i += 1;
        *j = 0;
        // Only a move with more NAGs than a move holds can have one refused.
        let refused = match node.nags.len() > MAX_NAGS_PER_MOVE {
            true => add_nags(&node.nags).2,
            false => 0,
        };
        errors += refused;
        if refused > 0 && errors > ERRORS_FORGIVEN {
            let path = stack.windows(2).map(|w| (w[0].1 - 1, w[0].2 - 1)).collect();
            return Some((path, i_now));
        }
    }
}

/// A move NAG ($1 good move … $6 dubious move).
fn is_move_nag(nag: u8) -> bool {
    (1..=6).contains(&nag)
}

/// Whether SCID lets `new` replace `old`: both move NAGs, or both evaluation NAGs ($10-$21).
fn same_kind(old: u8, new: u8) -> bool {
    let eval = |n: u8| (10..=21).contains(&n);
    (is_move_nag(old) && is_move_nag(new)) || (eval(old) && eval(new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::pgn_parse::one_game;

    fn fitted(text: &str) -> (ChessGame, Vec<String>) {
        let mut game = one_game(text.as_bytes()).unwrap();
        let changes = like_sc_import(&mut game);
        (game, changes)
    }

    #[test]
    fn what_scid_cannot_hold_is_fitted_and_named() {
        let (g, changes) = fitted(
            "[Date \"????.??.??\"]\n[EventDate \"1993.09.06\"]\n[WhiteElo \"4001\"]\n\
             [BlackElo \"2500\"]\n[Annotator \"x\"]\n\n1. e4 $1 $2 $3 $4 $5 $6 $7 $8 $9 (1. d4 $1 $2 $3 $4 $5 $6 $7 $8) *",
        );
        assert_eq!(g.headers.white_rating, None);
        assert_eq!(g.headers.black_rating.map(|r| r.value), Some(2500));
        // $1..$6 replace each other: $6 $7 $8 $9 remain.
        assert_eq!(g.moves.moves[0].nags, [6, 7, 8, 9]);
        assert_eq!(g.moves.moves[0].variations[0].moves[0].nags, [6, 7, 8]);
        assert_eq!(changes.len(), 3, "{changes:?}");
        assert!(changes[0].contains("WhiteElo \"4001\""), "{changes:?}");
        assert!(changes[1].contains("EventDate 1993.09.06"), "{changes:?}");
        assert!(changes[2].starts_with("10 NAG(s) replaced"), "{changes:?}");
        // Full at 7: an eighth is dropped, even one that would replace.
        let (g, changes) = fitted("1. e4 $1 $10 $22 $23 $24 $25 $26 $27 $2 *");
        assert_eq!(g.moves.moves[0].nags, [1, 10, 22, 23, 24, 25, 26]);
        assert_eq!(changes, ["2 NAG(s) dropped (SCID keeps 7 per move)"]);
        // The third refused NAG, in a variation, cuts the game there: the rest of that
        // variation, the variations after it and the moves after its move.
        let eight = "$22 $23 $24 $25 $26 $27 $28 $29";
        let (g, changes) = fitted(&format!(
            "1. e4 {eight} e5 (1... c5 {eight} 2. Nf3 {eight} {{gone}} 2... d6) (1... e6) 2. Nf3 *"
        ));
        assert_eq!(g.moves.moves.len(), 2, "{g:?}");
        let e5 = &g.moves.moves[1];
        assert_eq!(e5.variations.len(), 1);
        let c5 = &e5.variations[0].moves;
        assert_eq!(c5.len(), 2);
        assert_eq!(c5[1].nags.len(), 7);
        assert_eq!(c5[1].comment, None);
        assert!(
            changes.last().unwrap().contains("third error"),
            "{changes:?}"
        );
        // Nested 10,000 deep: no recursion.
        let deep = format!("1. e4 {}{} *", "(1. d4 ".repeat(10_000), ")".repeat(10_000));
        assert!(fitted(&deep).1.is_empty());
    }

    #[test]
    fn dates_tags_and_untouched_games() {
        let (g, changes) = fitted("[Date \"2050.01.02\"]\n[EventDate \"2020.05.??\"]\n*");
        assert_eq!(g.headers.date.to_string(), "????.01.02");
        // The Date's year is unknown now (0): the EventDate is too far from it.
        assert!(
            changes[1].starts_with("EventDate 2020.05.?? dropped"),
            "{changes:?}"
        );
        assert_eq!(changes.len(), 2, "{changes:?}");
        let (_, changes) = fitted("[Date \"2020.01.01\"]\n[EventDate \"2017.12.31\"]\n*");
        assert!(changes.is_empty(), "3 years away is kept");
        let long = format!(
            "[White \"{}\"]\n[{} \"v\"]\n*",
            "w".repeat(236),
            "T".repeat(240)
        );
        let (g, changes) = fitted(&long);
        assert_eq!(g.headers.white, "");
        assert!(g.headers.extra.is_empty());
        assert_eq!(changes.len(), 2, "{changes:?}");
        let kept = format!("[White \"{}\"]\n*", "w".repeat(235));
        assert!(fitted(&kept).1.is_empty());
        let plain = "[Event \"e\"]\n[Date \"2020.01.01\"]\n\n1. e4 $1 e5 *";
        let (g, changes) = fitted(plain);
        assert!(changes.is_empty());
        assert_eq!(g, one_game(plain.as_bytes()).unwrap());
    }
}
