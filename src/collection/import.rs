//! A bulk import's outcome, game by game: what was stored, and what was left out and why,
//! with the place of each game in the text so its text can be kept for the user to mend.

use std::ops::Range;

use crate::error::ErrorKind;

/// What a bulk import does with a game it cannot store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnBadGame {
    /// Leave the game out, say why, and store the others (as SCID's import goes on).
    #[default]
    Skip,
    /// Store nothing of the text (`--strict`, `-o strict`).
    RefuseAll,
}

/// A game of the text that was not stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedGame {
    /// Its 1-based number among the text's games.
    pub number: u32,
    /// The line where the problem is (the game's first line when the format refused it).
    pub line: u32,
    /// Why it was left out.
    pub reason: String,
    /// The kind of that error (malformed text, or beyond what the format holds).
    pub kind: ErrorKind,
    /// Its bytes in the text.
    pub text: Range<usize>,
}

/// A game of the text stored otherwise than written: what the format holds only in part,
/// fitted as the format's own importer fits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedGame {
    /// Its 1-based number among the text's games.
    pub number: u32,
    /// The line it starts on.
    pub line: u32,
    /// What was dropped or changed, one phrase each.
    pub changes: Vec<String>,
    /// Its bytes in the text when what was stored is not all it says (kept cut short, as
    /// SCID's import keeps a game whose moves stop reading, or otherwise salvaged: a NAG no
    /// move holds, a tag with no name, …; `ReadGame::salvaged`): they go to the rejects too,
    /// for the user to mend.
    pub to_mend: Option<Range<usize>>,
}

/// How many stored games of one import [`ImportReport::texts`] places in the text at most (and
/// the mount watches for other programs writing over them): a file of many tiny games must not
/// grow the process with the file.
pub const TEXTS_TOLD: usize = 10_000;

/// What an import of one text did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// The numbers the stored games got, in text order.
    pub numbers: Vec<u32>,
    /// Where each of the first [`TEXTS_TOLD`] stored games stands in the text, in the order
    /// of `numbers` (empty when the collection does not tell): what the mount gives back of a
    /// game another program wrote over (docs/SEMANTICS.md §10a).
    pub texts: Vec<Range<usize>>,
    /// The games left out, in text order.
    pub skipped: Vec<SkippedGame>,
    /// The games stored with changes, in text order.
    pub changed: Vec<ChangedGame>,
}

impl ImportReport {
    /// One line per game stored with changes: `game N, line L: stored with changes: …`.
    pub fn changed_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.changed.iter().map(|c| {
            format!(
                "game {}, line {}: stored with changes: {}",
                c.number,
                c.line,
                c.changes.join("; ")
            )
        })
    }

    /// One line per game left out: `game N, line L: reason`.
    pub fn skipped_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.skipped
            .iter()
            .map(|s| format!("game {}, line {}: {}", s.number, s.line, s.reason))
    }

    /// Whether any game's text goes to the rejects: a game left out, or salvaged.
    pub fn has_rejected_text(&self) -> bool {
        !self.skipped.is_empty() || self.changed.iter().any(|c| c.to_mend.is_some())
    }

    /// The texts of the games left out and of those salvaged, in text order, each
    /// ending in a blank line: a PGN file to mend and import again.
    pub fn rejected_text(&self, text: &[u8]) -> Vec<u8> {
        let mut games: Vec<(u32, &Range<usize>)> = self
            .skipped
            .iter()
            .map(|s| (s.number, &s.text))
            .chain(
                self.changed
                    .iter()
                    .filter_map(|c| Some((c.number, c.to_mend.as_ref()?))),
            )
            .collect();
        games.sort_by_key(|(number, _)| *number);
        let mut out = Vec::new();
        for (_, range) in games {
            let game = text.get(range.clone()).unwrap_or_default();
            let game = game.trim_ascii_end();
            out.extend_from_slice(game);
            out.extend_from_slice(b"\n\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rejects_hold_the_games_left_out_and_those_kept_cut_in_text_order() {
        let text = b"game one\n\ngame two\n\ngame three\n\n";
        let report = ImportReport {
            numbers: vec![0, 1],
            texts: vec![0..10, 10..20],
            skipped: vec![SkippedGame {
                number: 3,
                line: 5,
                reason: "why".into(),
                kind: ErrorKind::InvalidInput,
                text: 20..32,
            }],
            changed: vec![
                ChangedGame {
                    number: 1,
                    line: 1,
                    changes: vec!["cut".into()],
                    to_mend: Some(0..10),
                },
                ChangedGame {
                    number: 2,
                    line: 3,
                    changes: vec!["fitted".into()],
                    to_mend: None,
                },
            ],
        };
        assert!(report.has_rejected_text());
        assert_eq!(
            report.rejected_text(text),
            b"game one\n\ngame three\n\n".to_vec()
        );
        let fitted_only = ImportReport {
            skipped: Vec::new(),
            changed: report.changed[1..].to_vec(),
            ..report
        };
        assert!(!fitted_only.has_rejected_text());
    }
}
