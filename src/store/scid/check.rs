//! `gamefs check` and `gamefs info` for SCID databases: what opening found wrong, every
//! record decodes, index fields agree with the games, the name file is what SCID would write
//! (SCID 4's; SCID 5's is append-only, any order); and the facts a user asks about.

use super::ScidDatabase;
use super::derive::{self, FLAG_PROMOTION, FLAG_START, FLAG_UNDER_PROMOTION, derive};
use super::entry::IndexEntry;
use super::header::Layout;
use super::record;
use super::v5;
use super::writer::BLOCK;
use crate::game::chess::{ChessGame, StartPosition};
use crate::game::replay::{play_in_place, start_position};
use crate::store::damage::without_label;
use crate::store::distinct_ids::DistinctIds;
use crate::store::{ChessStore, NameKind, Problem};
use shakmaty::{Chess, Color, Position, Role};

/// Facts about a database (what `gamefs info` shows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Games in the index, deleted ones included.
    pub games: u32,
    /// Games marked deleted.
    pub deleted: u32,
    /// Distinct names per dictionary: players, events, sites, rounds.
    pub names: [u32; 4],
    /// Earliest and latest known game year.
    pub years: Option<(u16, u16)>,
    /// Bytes of the game file that `compact` would reclaim (deleted games, replaced records,
    /// padding).
    pub garbage_bytes: u64,
    /// The index version.
    pub version: u16,
    /// The database description.
    pub description: String,
}

/// Gather the facts of any chess database from its index (no record is decoded); names are
/// counted as the distinct names the games use.
pub fn store_info(db: &dyn ChessStore) -> Info {
    let mut info = Info {
        games: db.game_count(),
        ..Info::default()
    };
    let mut used: [DistinctIds; 4] = Default::default();
    for n in 0..info.games {
        let s = db.summary(n);
        if s.deleted {
            info.deleted += 1;
        }
        for (k, id) in [
            (0, s.white),
            (0, s.black),
            (1, s.event),
            (2, s.site),
            (3, s.round),
        ] {
            used[k].insert(id);
        }
        if let Some(y) = s.date.year {
            info.years = Some(info.years.map_or((y, y), |(lo, hi)| (lo.min(y), hi.max(y))));
        }
    }
    info.names = used.map(|u| u.len() as u32);
    info
}

/// Gather the facts of a SCID database: those of any store, plus the name file's counts
/// (unused names included), the header and the bytes compaction would reclaim.
pub fn info(db: &ScidDatabase) -> Info {
    let header = db.header();
    let mut info = store_info(db);
    info.version = header.version;
    info.description = String::from_utf8_lossy(&header.description).into_owned();
    info.names = NameKind::ALL.map(|k| db.name_count(k));
    let live_bytes: u64 = (0..info.games)
        .map(|n| db.entry(n))
        .filter(|e| !e.is_deleted())
        .map(|e| u64::from(e.length))
        .sum();
    info.garbage_bytes = db.games_file_len().saturating_sub(live_bytes);
    info
}

/// What `gamefs check` found in a SCID database: damage, and fields written as another SCID
/// writer writes them.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Damage: what SCID cannot read, or reads wrong (exit status 1).
    pub problems: Vec<Problem>,
    /// Index fields and name-file headers that differ from what SCID 4.7 computes the way an
    /// older writer computes them, one note per rule with the count of games: not damage.
    pub notes: Vec<Note>,
}

/// Fields a known SCID writer other than SCID 4.7 computes as the database holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// What differs: index fields ("final material", "promotion flags", "plies and final
    /// material") or "name file".
    pub field: &'static str,
    /// How many games (`None`: a file).
    pub games: Option<u32>,
    /// The writers whose rule the values follow.
    pub writer: &'static str,
    /// One sentence: what differs, the rule, and that SCID 4.7 reads it.
    pub message: String,
}

impl Report {
    /// The writer the notes point to: SCID vs. PC when any rule of it is seen, else the
    /// writer of the first note (`None` without notes).
    pub fn writer(&self) -> Option<&'static str> {
        self.notes
            .iter()
            .map(|n| n.writer)
            .find(|&w| w == SCID_VS_PC)
            .or_else(|| self.notes.first().map(|n| n.writer))
    }
}

/// SCID vs. PC's `Game::MakeHomePawnList` returns early for a game set up from a FEN, so its
/// `Game::Encode` writes the final material, plies and promotion flags the game object holds
/// instead of computing them from the main line, and its `NameBase` keeps the highest count a
/// name ever had in the name-file header. SCID did the same until 4.6 (commits 618b3b68 and
/// 641bf2a1, 2014).
const SCID_VS_PC: &str = "SCID vs. PC (or SCID 4.5 and older)";

/// SCID 5 before its fix of September 2024 (commit 16828e35, "Fix bug with type of Black
/// rating"): its index encoder shifted Black's rating type by 3 bits instead of 2.
const OLD_SCID5: &str = "SCID 5.0.x before September 2024";

/// `matsig_Make` without the cap at 3 (SCID fixed it in 4.3, commit cb890303; SCID vs. PC in
/// 4.0).
const UNCAPPED_WRITER: &str = "SCID 4.2 and older (or SCID vs. PC before 4.0)";

/// `MATSIG_StdStart`: what `Game::ClearMoves` sets the final material to.
const MATSIG_STD_START: u32 = 0x6A_86A8;

/// The rules of older writers `check` knows, in the order their notes are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OlderRule {
    /// A game set up from a FEN with no main-line moves, decoded and saved again (copied,
    /// edited, sorted): `Game::Decode` reads the FEN into the start position without
    /// `SetStartFen`, so the final material is still `MATSIG_StdStart` from `ClearMoves`.
    StdStartMaterial,
    /// A game set up from a FEN: the promotion flags are those `Game::Decode` read from the
    /// record's flags byte (and moves added since), written back to both the record and the
    /// index.
    RecordFlags,
    /// A game set up from a FEN whose main line was cut (`Game::Truncate`) before it was
    /// saved: plies and final material are those of the longer line.
    LongerLine,
    /// `matsig_Make` without the cap at 3: a count over 3 overflows into the next field.
    Uncapped,
}

impl OlderRule {
    const ALL: [OlderRule; 4] = [
        OlderRule::StdStartMaterial,
        OlderRule::RecordFlags,
        OlderRule::LongerLine,
        OlderRule::Uncapped,
    ];

    fn note(self, games: u32) -> Note {
        let have = match games {
            1 => "1 game has".to_owned(),
            n => format!("{n} games have"),
        };
        let (field, writer, message) = match self {
            OlderRule::StdStartMaterial => (
                "final material",
                SCID_VS_PC,
                format!(
                    "{have} the final-material field as SCID vs. PC writes it for a game set up \
                     from a FEN without moves: the standard start's signature (SCID 4.7 computes \
                     the FEN position's; both read it)"
                ),
            ),
            OlderRule::RecordFlags => (
                "promotion flags",
                SCID_VS_PC,
                format!(
                    "{have} the promotion flags as SCID vs. PC writes them for a game set up \
                     from a FEN: its record's flags, not its main line's (SCID 4.7 computes the \
                     main line's; both read them)"
                ),
            ),
            OlderRule::LongerLine => (
                "plies and final material",
                SCID_VS_PC,
                format!(
                    "{have} the plies and final-material fields as SCID vs. PC writes them for \
                     a game set up from a FEN whose moves were taken back: those of the longer \
                     main line (SCID 4.7 computes the main line's; both read them)"
                ),
            ),
            OlderRule::Uncapped => (
                "final material",
                UNCAPPED_WRITER,
                format!(
                    "{have} the final-material field as SCID 4.2 and older (or SCID vs. PC \
                     before 4.0) write it: a count of more than 3 queens, rooks, bishops or \
                     knights overflows into the next one (SCID 4.7 writes 3; both read it)"
                ),
            ),
        };
        Note {
            field,
            games: Some(games),
            writer,
            message,
        }
    }
}

/// Check the database (see [`check_report`]); only the problems.
pub fn check(db: &ScidDatabase, progress: impl FnMut(u32)) -> Vec<Problem> {
    check_report(db, progress).problems
}

/// Check the database: every problem opening it found, then every game that is not already
/// known unreadable (its record stays inside a 128 KiB block as SCID's writers keep it, reads
/// and decodes, and its index fields agree with it), then the name file (sorted and counted as
/// SCID writes it, when it is not damaged). An index field or name-file header that differs
/// from what SCID 4.7 computes exactly as an older writer computes it is a note, not a problem.
/// `progress` is called for each game.
pub fn check_report(db: &ScidDatabase, mut progress: impl FnMut(u32)) -> Report {
    let mut problems = db.problems();
    let unreadable: std::collections::HashSet<u32> = problems
        .iter()
        .filter(|p| p.unreadable)
        .filter_map(|p| p.item)
        .collect();
    // The name file of a damaged database differs from what SCID would write anyway.
    let damaged = !problems.is_empty();
    let mut older = [0u32; OlderRule::ALL.len()];
    let v5 = db.header().layout == Layout::V5;
    let mut old_black_types = 0u32;
    let mut report = |n: u32, message: String| {
        problems.push(Problem {
            item: Some(n),
            message,
            unreadable: false,
        })
    };
    for n in 0..db.game_count() {
        progress(n);
        if unreadable.contains(&n) {
            continue;
        }
        let entry = db.entry(n);
        if entry.black_elo != 0 && v5::entry::old_black_rating_type(&entry).is_some() {
            old_black_types += 1;
        }
        let offset = entry.offset;
        if offset % BLOCK + u64::from(entry.length) > BLOCK {
            report(
                n,
                format!(
                    "its record (offset {offset}, {} bytes) crosses a 128 KiB block boundary \
                     (SCID 4.7 reads it; SCID 4.6 and older refuse it)",
                    entry.length
                ),
            );
        }
        let bytes = match db.record_bytes(n) {
            Ok(b) => b,
            Err(e) => {
                report(n, without_label(&e.to_string(), &format!("game {}", n + 1)));
                continue;
            }
        };
        if let Err(e) = record::decode_as(&bytes, entry.chess960) {
            report(n, format!("record does not decode: {e}"));
            continue;
        }
        let derive = |g: &ChessGame| match v5 {
            true => derive::encode_and_derive_scid5(g).map(|(_, d)| d),
            false => derive(g),
        };
        let derived = db.load(n).and_then(|g| derive(&g).map(|d| (g, d)));
        let (game, d) = match derived {
            Ok(gd) => gd,
            Err(e) => {
                report(
                    n,
                    format!(
                        "the game cannot be re-encoded: {}",
                        without_label(&e.to_string(), &format!("game {}", n + 1))
                    ),
                );
                continue;
            }
        };
        let expected = IndexEntry {
            event_date_full: entry.event_date_full.map(|_| d.event_date_full),
            chess960: matches!(game.start, StartPosition::Chess960(_)),
            ..entry.with_derived(&d)
        };
        let differing = differing_fields(&entry, &expected);
        if differing.is_empty() {
            continue;
        }
        let written = Written {
            have: &entry,
            want: &expected,
            fen_start: game.start != StartPosition::Standard,
            record_flags: record_flags_byte(&bytes),
            final_position: || final_position(&game),
        };
        let (explained, rules) = written.explain(&differing);
        for field in differing.iter().filter(|f| !explained.contains(f)) {
            report(n, format!("index field {field} does not match the game"));
        }
        for rule in rules {
            older[rule as usize] += 1;
        }
    }
    let mut notes: Vec<Note> = OlderRule::ALL
        .iter()
        .filter(|&&r| older[r as usize] > 0)
        .map(|&r| r.note(older[r as usize]))
        .collect();
    if old_black_types > 0 {
        notes.push(Note {
            field: "Black rating type",
            games: Some(old_black_types),
            writer: OLD_SCID5,
            message: format!(
                "{old_black_types} game(s) have a Black rating type that SCID 5.0.x before \
                 September 2024 may have written wrongly (its encoder shifted it by 3 bits, not \
                 2): it is read as SCID 5 reads it today, which for a database written by those \
                 versions may be another type (and may have changed White's)"
            ),
        });
    }
    let path = &db.info().files[1];
    let names = std::fs::read(path).unwrap_or_default();
    let ours = db.serialized_names();
    if !damaged && !v5 && ours != names {
        if names_with_high_water_marks(&ours, &names) {
            notes.push(Note {
                field: "name file",
                games: None,
                writer: SCID_VS_PC,
                message: format!(
                    "{}: the name file's header keeps the highest count a name ever had, as \
                     SCID vs. PC writes it (SCID 4.7 writes the current highest; both read it)",
                    path.display()
                ),
            });
        } else {
            problems.push(Problem {
                item: None,
                message: format!(
                    "{}: the name file is not sorted and counted as SCID writes it (SCID 4.7 \
                     reads it; older SCID versions may not)",
                    path.display()
                ),
                unreadable: false,
            });
        }
    }
    Report { problems, notes }
}

/// One game's stored index entry beside what SCID 4.7 computes, with what the older rules
/// need to know of the game.
struct Written<'a, F> {
    /// The entry the database holds.
    have: &'a IndexEntry,
    /// The entry as SCID 4.7 computes it.
    want: &'a IndexEntry,
    /// The game is set up from a FEN.
    fen_start: bool,
    /// The flags byte of the game's record.
    record_flags: Option<u8>,
    /// The final main-line position (computed only when needed).
    final_position: F,
}

impl<F: Fn() -> Option<Chess>> Written<'_, F> {
    /// Which of the `differing` fields an older writer's rule accounts for, and the rules.
    fn explain(&self, differing: &[&'static str]) -> (Vec<&'static str>, Vec<OlderRule>) {
        let (have, want) = (self.have, self.want);
        let mut explained = Vec::new();
        let mut rules = Vec::new();
        let differs = |f: &str| differing.contains(&f);
        if differs(FLAGS) && self.record_flags_kept() {
            explained.push(FLAGS);
            rules.push(OlderRule::RecordFlags);
        }
        if differs(MATERIAL) && !differs(PLIES) {
            let rule = if self.fen_start && want.plies == 0 && have.matsig == MATSIG_STD_START {
                Some(OlderRule::StdStartMaterial)
            } else if could_overflow(want.matsig)
                && (self.final_position)().is_some_and(|p| uncapped_matsig(&p) == have.matsig)
            {
                Some(OlderRule::Uncapped)
            } else {
                None
            };
            if let Some(rule) = rule {
                explained.push(MATERIAL);
                rules.push(rule);
            }
        }
        if differs(PLIES) && self.longer_line() {
            explained.push(PLIES);
            explained.push(MATERIAL);
            rules.push(OlderRule::LongerLine);
        }
        (explained, rules)
    }

    /// A FEN game's promotion flags as its record holds them (a superset of its main line's).
    fn record_flags_kept(&self) -> bool {
        let (have, want) = (self.have.flags & 0b111, self.want.flags & 0b111);
        self.fen_start
            && have & FLAG_START == want & FLAG_START
            && have & want == want
            && self.record_flags.map(|b| u32::from(b) & 0b110) == Some(have & 0b110)
    }

    /// A FEN game whose plies and final material are those of a longer main line: more
    /// plies, and material the final position can come to by captures and the promotions the
    /// flags name.
    fn longer_line(&self) -> bool {
        let (have, want) = (self.have, self.want);
        self.fen_start
            && have.plies > want.plies
            && reachable(
                want.matsig,
                have.matsig,
                have.flags & FLAG_PROMOTION != 0,
                have.flags & FLAG_UNDER_PROMOTION != 0,
            )
    }
}

/// Field names of [`differing_fields`] the older rules account for.
const FLAGS: &str = "flags (S/X/Y)";
const MATERIAL: &str = "final material";
const PLIES: &str = "plies";

/// The flags byte of a record that decodes (after its extra tags).
fn record_flags_byte(bytes: &[u8]) -> Option<u8> {
    let mut at = 0usize;
    loop {
        let code = *bytes.get(at)?;
        at += 1;
        at += match code {
            0 => return bytes.get(at).copied(),
            1..=240 => {
                let value = usize::from(*bytes.get(at + usize::from(code))?);
                usize::from(code) + 1 + value
            }
            241..=254 => 1 + usize::from(*bytes.get(at)?),
            255 => 3,
        };
    }
}

/// The position after the game's main line.
fn final_position(game: &ChessGame) -> Option<Chess> {
    let mut pos = start_position(&game.start).ok()?;
    for node in &game.moves.moves {
        play_in_place(&mut pos, &node.ply).ok()?;
    }
    Some(pos)
}

/// True when some count of a material signature is 3, so a capped count may hide more.
fn could_overflow(sig: u32) -> bool {
    (0..2).any(|side| (0..4).any(|piece| (sig >> (12 * side + 4 + 2 * piece)) & 3 == 3))
}

/// The material signature as `matsig_Make` computed it before SCID 4.3: every count shifted
/// into place and or-ed, uncapped, in 24 bits.
fn uncapped_matsig(pos: &Chess) -> u32 {
    let board = pos.board();
    let mut sig = 0u32;
    for (color, shift) in [(Color::White, 12), (Color::Black, 0)] {
        for (role, at) in [
            (Role::Queen, 10),
            (Role::Rook, 8),
            (Role::Bishop, 6),
            (Role::Knight, 4),
            (Role::Pawn, 0),
        ] {
            let n = (board.by_color(color) & board.by_role(role)).count() as u32;
            sig |= n << (shift + at);
        }
    }
    sig & 0xFF_FFFF
}

/// True when material `from` can become `to` by captures and promotions (stricter than
/// SCID's `matsig_isReachable`): no side gains a pawn, each piece a side gains takes one of
/// its pawns, and gained queens need the promotion flag, other gained pieces the
/// under-promotion flag.
fn reachable(from: u32, to: u32, promotion: bool, under_promotion: bool) -> bool {
    (0..2).all(|side| {
        let count = |sig: u32, at: u32| (sig >> (12 * side + at)) & if at == 0 { 15 } else { 3 };
        let (pawns_from, pawns_to) = (count(from, 0), count(to, 0));
        let gained = |at: u32| count(to, at).saturating_sub(count(from, at));
        let queens = gained(10);
        let others = gained(8) + gained(6) + gained(4);
        pawns_to <= pawns_from
            && queens + others <= pawns_from - pawns_to
            && (queens == 0 || promotion)
            && (others == 0 || under_promotion)
    })
}

/// True when the name file `theirs` is `ours` (as SCID 4.7 writes it) but for the header's
/// highest counts, which are at least ours, with every count as wide as they say: what SCID
/// vs. PC writes, its `NameBase::IncFrequency` raising the highest count and nothing lowering
/// it.
fn names_with_high_water_marks(ours: &[u8], theirs: &[u8]) -> bool {
    match (NameFile::parse(ours), NameFile::parse(theirs)) {
        (Some(a), Some(b)) => {
            a.head == b.head
                && a.counts == b.counts
                && a.names == b.names
                && a.max
                    .iter()
                    .zip(&b.max)
                    .all(|(ours, theirs)| theirs >= ours)
        }
        _ => false,
    }
}

/// A name file taken apart (docs/formats/scid4.md §4): what its header says and every name entry.
struct NameFile {
    /// Magic and time stamp.
    head: Vec<u8>,
    /// Names per section.
    counts: [u32; 4],
    /// The header's highest count per section (it sets the width of the counts).
    max: [u32; 4],
    /// Per section, in stored order: ID, count, length, shared prefix and the rest.
    names: Vec<(u32, u32, u8, u8, Vec<u8>)>,
}

impl NameFile {
    fn parse(bytes: &[u8]) -> Option<NameFile> {
        let three = |at: usize| -> Option<u32> {
            let b = bytes.get(at..at + 3)?;
            Some(u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]))
        };
        let head = bytes.get(..12)?.to_vec();
        let mut counts = [0u32; 4];
        let mut max = [0u32; 4];
        for i in 0..4 {
            counts[i] = three(12 + 3 * i)?;
            max[i] = three(24 + 3 * i)?;
        }
        let mut at = 36usize;
        let mut take = |n: usize| -> Option<u32> {
            let b = bytes.get(at..at + n)?;
            at += n;
            Some(b.iter().fold(0u32, |v, &x| v << 8 | u32::from(x)))
        };
        let mut names = Vec::new();
        for i in 0..4 {
            let id_width = if counts[i] >= 65536 { 3 } else { 2 };
            let count_width = match max[i] {
                0..=255 => 1,
                256..=65535 => 2,
                _ => 3,
            };
            for k in 0..counts[i] {
                let id = take(id_width)?;
                let count = take(count_width)?;
                let len = take(1)? as u8;
                let prefix = if k == 0 { 0 } else { take(1)? as u8 };
                let rest = len.checked_sub(prefix)?;
                let mut text = Vec::with_capacity(usize::from(rest));
                for _ in 0..rest {
                    text.push(take(1)? as u8);
                }
                names.push((id, count, len, prefix, text));
            }
        }
        (at == bytes.len()).then_some(NameFile {
            head,
            counts,
            max,
            names,
        })
    }
}

/// Names of the derived index fields that differ between `have` and `want`.
fn differing_fields(have: &IndexEntry, want: &IndexEntry) -> Vec<&'static str> {
    let checks: [(&str, bool); 12] = [
        ("Chess960", have.chess960 != want.chess960),
        ("flags (S/X/Y)", have.flags & 0b111 != want.flags & 0b111),
        ("result", have.result != want.result),
        (
            "count codes",
            (have.var_code, have.comment_code, have.nag_code)
                != (want.var_code, want.comment_code, want.nag_code),
        ),
        ("ECO", have.eco != want.eco),
        ("date", have.date != want.date),
        (
            "event date",
            have.game_event_date() != want.game_event_date(),
        ),
        (
            "ratings",
            (have.white_elo, have.black_elo) != (want.white_elo, want.black_elo),
        ),
        ("stored line", have.stored_line != want.stored_line),
        ("final material", have.matsig != want.matsig),
        ("plies", have.plies != want.plies),
        (
            "home pawns",
            (have.home_pawn_count, have.home_pawns) != (want.home_pawn_count, want.home_pawns),
        ),
    ];
    checks
        .into_iter()
        .filter(|(_, differs)| *differs)
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::derive::matsig;
    use super::*;
    use crate::game::replay::position_from_fen;

    fn pos(fen: &str) -> Chess {
        position_from_fen(fen).unwrap()
    }

    #[test]
    fn uncapped_counts_overflow_as_before_scid_4_3() {
        // SCID vs. PC's matein1 game 620: four white queens and a pawn; the fourth queen
        // carries out of the 24 bits.
        let four_queens = pos("Q1QQQ3/8/1P3K2/8/8/8/8/1k6 w - - 0 1");
        assert_eq!(matsig(&four_queens), 0xC0_1000);
        assert_eq!(uncapped_matsig(&four_queens), 0x00_1000);
        assert!(could_overflow(matsig(&four_queens)));
        // Four black rooks spill into the black queen count.
        let rooks = pos("rrrrk3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(matsig(&rooks), 0x300);
        assert_eq!(uncapped_matsig(&rooks), 0x400);
        // Up to 3 of each piece, both agree.
        let start = Chess::default();
        assert_eq!(uncapped_matsig(&start), matsig(&start));
        assert!(!could_overflow(matsig(&start)));
    }

    #[test]
    fn material_reachable_by_captures_and_promotions() {
        // matein1 game 7: a white pawn became a queen (promotion flag set).
        assert!(reachable(0x21_4223, 0x61_3223, true, false));
        assert!(!reachable(0x21_4223, 0x61_3223, false, false));
        // Captures only.
        assert!(reachable(0x6A_86A8, 0x5A_8698, false, false));
        // A pawn appears, or a piece without a pawn to promote.
        assert!(!reachable(0x5A_8698, 0x6A_86A8, true, true));
        assert!(!reachable(0x10_0000, 0x50_0000, true, true));
        // A knight from a pawn needs the under-promotion flag.
        assert!(!reachable(0x00_1000, 0x01_0000, true, false));
        assert!(reachable(0x00_1000, 0x01_0000, true, true));
    }

    #[test]
    fn the_flags_byte_follows_the_extra_tags() {
        // SetUp "1" and PlyCount "0" (common tags 250 and 244), then flags 7 and a FEN.
        let record = b"\xfa\x011\xf4\x010\x00\x07rest";
        assert_eq!(record_flags_byte(record), Some(7));
        let named = b"\x03Foo\x02ab\xff\x01\x02\x03\x00\x01";
        assert_eq!(record_flags_byte(named), Some(1));
        assert_eq!(record_flags_byte(b"\x03Fo"), None);
    }

    /// A name file with one name per section; `max` and `width` the players' header count and
    /// the width of the counts.
    fn name_file(max: u32, width: usize, player: &[u8]) -> Vec<u8> {
        let mut b = b"Scid.sn\0\0\0\0\0".to_vec();
        for _ in 0..4 {
            b.extend([0, 0, 1]);
        }
        b.extend(&max.to_be_bytes()[1..]);
        for _ in 0..3 {
            b.extend([0, 0, 1]);
        }
        for (i, name) in [player, b"e", b"s", b"r"].iter().enumerate() {
            b.extend([0, 0]);
            let count = if i == 0 { 2u32 } else { 1 };
            b.extend(&count.to_be_bytes()[4 - if i == 0 { width } else { 1 }..]);
            b.push(name.len() as u8);
            b.extend(*name);
        }
        b
    }

    #[test]
    fn name_header_counts_kept_high_are_scid_vs_pc_s() {
        let ours = name_file(2, 1, b"p");
        assert!(NameFile::parse(&ours).is_some());
        assert!(names_with_high_water_marks(&ours, &name_file(200, 1, b"p")));
        // A highest count over 255 makes every count two bytes wide.
        assert!(names_with_high_water_marks(&ours, &name_file(300, 2, b"p")));
        assert!(!names_with_high_water_marks(
            &ours,
            &name_file(300, 1, b"p")
        ));
        // A header count below the highest, another name, a byte too many: not SCID vs. PC's.
        assert!(!names_with_high_water_marks(&ours, &name_file(1, 1, b"p")));
        assert!(!names_with_high_water_marks(&ours, &name_file(2, 1, b"q")));
        let mut longer = name_file(2, 1, b"p");
        longer.push(0);
        assert!(!names_with_high_water_marks(&ours, &longer));
    }

    /// What `explain` accounts for in entry `have` of a game whose SCID 4.7 entry is `want`.
    fn explain(
        have: IndexEntry,
        want: IndexEntry,
        fen_start: bool,
        record_flags: u8,
        final_position: Option<Chess>,
    ) -> (Vec<&'static str>, Vec<&'static str>, Vec<OlderRule>) {
        let differing = differing_fields(&have, &want);
        let (explained, rules) = Written {
            have: &have,
            want: &want,
            fen_start,
            record_flags: Some(record_flags),
            final_position: || final_position.clone(),
        }
        .explain(&differing);
        (differing, explained, rules)
    }

    #[test]
    fn older_rules_account_only_for_what_they_explain() {
        let fen = IndexEntry {
            flags: FLAG_START,
            matsig: 0x51_6543,
            ..IndexEntry::default()
        };
        let std_start = IndexEntry {
            matsig: MATSIG_STD_START,
            ..fen
        };
        // A FEN game without moves: the standard start's signature, but no other.
        let (_, explained, rules) = explain(std_start, fen, true, 1, None);
        assert_eq!(
            (explained, rules),
            (vec![MATERIAL], vec![OlderRule::StdStartMaterial])
        );
        let other = IndexEntry {
            matsig: 0x12_3456,
            ..fen
        };
        assert!(explain(other, fen, true, 1, None).1.is_empty());
        // Not for a game from the standard start, nor for a FEN game with moves.
        let standard = IndexEntry { flags: 0, ..fen };
        let have = IndexEntry {
            matsig: MATSIG_STD_START,
            ..standard
        };
        assert!(explain(have, standard, false, 0, None).1.is_empty());
        let moved = IndexEntry { plies: 3, ..fen };
        let have = IndexEntry {
            matsig: MATSIG_STD_START,
            ..moved
        };
        assert!(explain(have, moved, true, 1, None).1.is_empty());

        // Promotion flags: a FEN game's, as its record holds them and covering its main line's.
        let have = IndexEntry {
            flags: FLAG_START | FLAG_PROMOTION,
            ..fen
        };
        assert_eq!(
            explain(have, fen, true, 3, None).2,
            [OlderRule::RecordFlags]
        );
        assert!(explain(have, fen, true, 1, None).1.is_empty());
        assert!(explain(have, fen, true, 7, None).1.is_empty());
        let want = IndexEntry {
            flags: FLAG_START | FLAG_PROMOTION | FLAG_UNDER_PROMOTION,
            ..fen
        };
        assert!(explain(have, want, true, 3, None).1.is_empty());
        assert!(
            explain(IndexEntry { flags: 2, ..fen }, standard, false, 2, None)
                .1
                .is_empty()
        );

        // A longer main line: more plies, material reachable from the final position.
        let want = IndexEntry {
            plies: 1,
            matsig: 0x21_4223,
            ..fen
        };
        let have = IndexEntry {
            plies: 5,
            matsig: 0x61_3223,
            flags: FLAG_START | FLAG_PROMOTION,
            ..fen
        };
        let (differing, explained, rules) = explain(have, want, true, 3, None);
        assert_eq!(
            differing.len(),
            explained.len(),
            "{differing:?} {explained:?}"
        );
        assert_eq!(rules, [OlderRule::RecordFlags, OlderRule::LongerLine]);
        let fewer = IndexEntry { plies: 0, ..have };
        assert_eq!(
            explain(fewer, want, true, 3, None).2,
            [OlderRule::RecordFlags]
        );
        let unreachable = IndexEntry {
            matsig: 0x62_3223,
            ..have
        };
        assert_eq!(
            explain(unreachable, want, true, 3, None).2,
            [OlderRule::RecordFlags]
        );

        // Uncapped counts, from any start.
        let four_queens = pos("Q1QQQ3/8/1P3K2/8/8/8/8/1k6 w - - 0 1");
        let want = IndexEntry {
            matsig: matsig(&four_queens),
            ..standard
        };
        let have = IndexEntry {
            matsig: 0x00_1000,
            ..want
        };
        let (_, explained, rules) = explain(have, want, false, 0, Some(four_queens.clone()));
        assert_eq!(
            (explained, rules),
            (vec![MATERIAL], vec![OlderRule::Uncapped])
        );
        let have = IndexEntry {
            matsig: 0x00_2000,
            ..want
        };
        assert!(
            explain(have, want, false, 0, Some(four_queens))
                .1
                .is_empty()
        );
    }
}
