//! File and folder names made from database text: safe, stable and unique.
//!
//! Names from a database can hold anything: `/`, NUL, control characters, `..`, nothing at
//! all. We follow rclone's encoding so names stay readable: `/` becomes `／` (U+FF0F), NUL and
//! control characters become their Unicode control pictures (U+2400…), and names that cannot
//! stand alone get a visible stand-in. C1 control characters and the bidirectional embedding,
//! override and isolate controls (U+202A–U+202E, U+2066–U+2069), which would make `ls` show a
//! name reordered ("Trojan Source"), become `�` (U+FFFD). The same database always gives the
//! same names.

use crate::store::name_list::{NameList, NameLookup};

/// The longest file name Linux accepts, in bytes.
pub(crate) const NAME_MAX: usize = 255;

/// The longest a single component (a player, an event) may be inside a game file name.
pub(crate) const PART_MAX: usize = 100;

/// The stand-in for an empty name.
pub(crate) const EMPTY_STAND_IN: &str = "(none)";
/// The stand-in for the `?` that databases use for "unknown".
pub(crate) const UNKNOWN_STAND_IN: &str = "(unknown)";

/// The stand-in for a character that would hide or reorder what `ls` shows.
pub(crate) const HIDDEN_STAND_IN: char = '\u{FFFD}';

/// Make `text` usable as one path component: no `/`, NUL or control characters, no
/// bidirectional controls, not `.` or `..`, not empty, at most `max` bytes (cut at a character
/// boundary).
pub(crate) fn safe_component(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max));
    push_safe_component(&mut out, text, max);
    out
}

/// [`safe_component`] appended to `out` (a game's file name is built in one buffer: a listing
/// of a million games makes a million of them).
fn push_safe_component(out: &mut String, text: &str, max: usize) {
    let standin = match text {
        "" => Some(EMPTY_STAND_IN),
        "?" => Some(UNKNOWN_STAND_IN),
        "." => Some("(dot)"),
        ".." => Some("(dot-dot)"),
        _ => None,
    };
    if let Some(s) = standin {
        out.push_str(s);
        return;
    }
    // Printable ASCII other than `/` stays as it is, one byte a character.
    if text.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'/') {
        out.push_str(&text[..text.len().min(max)]);
        return;
    }
    let start = out.len();
    for c in text.chars() {
        let mapped = match c {
            '/' => '／',
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('�'),
            '\u{7f}' => '␡',
            '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                HIDDEN_STAND_IN
            }
            c => c,
        };
        if out.len() - start + mapped.len_utf8() > max {
            break;
        }
        out.push(mapped);
    }
}

/// Zero-padding width for game numbers: the digits of the game count, at least 4.
pub(crate) fn number_width(game_count: u32) -> usize {
    game_count.max(1).to_string().len().max(4)
}

/// The file name of game `number` (1-based in names, as SCID shows it):
/// `0004711 Carlsen, Magnus - Nakamura, Hikaru 2019.pgn`.
pub(crate) fn game_file_name(
    number: u32,
    width: usize,
    white: &str,
    black: &str,
    year: Option<u16>,
) -> String {
    use std::fmt::Write;
    let mut name = String::with_capacity(width + white.len() + black.len() + 14);
    let _ = write!(name, "{:0width$} ", number + 1);
    push_safe_component(&mut name, white, PART_MAX);
    name.push_str(" - ");
    push_safe_component(&mut name, black, PART_MAX);
    if let Some(y) = year {
        let _ = write!(name, " {y}");
    }
    name.push_str(".pgn");
    debug_assert!(name.len() <= NAME_MAX);
    name
}

/// The 0-based game number a game file name refers to: any name that is digits, then a space
/// or nothing, then anything, ending in `.pgn`. This is what lets an open editor keep its
/// file after the game's players change.
pub(crate) fn game_number_of(name: &[u8]) -> Option<u32> {
    let stem = name.strip_suffix(b".pgn")?;
    let digits = stem.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    if digits < stem.len() && stem[digits] != b' ' {
        return None;
    }
    let n: u32 = std::str::from_utf8(&stem[..digits]).ok()?.parse().ok()?;
    n.checked_sub(1)
}

/// What joins a member's name to its game's name in a folder of databases mounted as one:
/// `twic1500--0042 Carlsen, Magnus - Nakamura, Hikaru 2019.pgn`.
pub(crate) const MEMBER_SEPARATOR: &str = "--";

/// The file name of a game whose own name (in its member, [`game_file_name`]) is `name`, in a
/// folder mounted as one: the member's name, [`MEMBER_SEPARATOR`], then `name`, whose middle
/// is cut (at a character boundary, its ending kept) when the whole would pass [`NAME_MAX`].
pub(crate) fn member_file_name(member: &str, name: &str) -> String {
    let mut out = String::with_capacity(member.len() + MEMBER_SEPARATOR.len() + name.len());
    out.push_str(member);
    out.push_str(MEMBER_SEPARATOR);
    if out.len() + name.len() <= NAME_MAX {
        out.push_str(name);
        return out;
    }
    let ending = name.rfind('.').map_or("", |dot| &name[dot..]);
    let room = NAME_MAX.saturating_sub(out.len() + ending.len());
    let mut cut = room.min(name.len() - ending.len());
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    out.push_str(&name[..cut]);
    out.push_str(ending);
    out
}

/// Give each of `names` (in a stable order) a unique folder name: the safe form of the
/// name, and for later names whose safe form is already taken, ` ~2`, ` ~3`, … appended.
pub(crate) fn unique_components<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut unique = UniqueNames::default();
    for name in names {
        unique.push(name);
    }
    (0..unique.len())
        .map(|k| unique.get(k).to_owned())
        .collect()
}

/// Folder names made unique as [`unique_components`] makes them, kept one after the other in
/// one string ([`NameList`]: a view of millions of groups holds no string per group).
#[derive(Debug, Default)]
pub(crate) struct UniqueNames {
    names: NameList,
    lookup: NameLookup,
}

impl UniqueNames {
    /// Add the folder name for `name`: its safe form, or with ` ~2`, ` ~3`, … appended when
    /// that is taken.
    pub(crate) fn push(&mut self, name: &str) {
        let base = safe_component(name, NAME_MAX - 8);
        let mut candidate = base.clone();
        let mut n = 1;
        // Added unless taken (each candidate hashed once).
        loop {
            let before = self.len();
            self.lookup.number_of(&mut self.names, &candidate);
            if self.len() > before {
                return;
            }
            n += 1;
            candidate = format!("{base} ~{n}");
        }
    }

    /// How many names there are.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// Name `k`.
    pub(crate) fn get(&self, k: usize) -> &str {
        self.names.get(k).unwrap_or_default()
    }

    /// The number of the name `name`.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.lookup.find(&self.names, name).map(|k| k as usize)
    }

    /// Let go of the room kept for names still to come.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.names.shrink_to_fit();
        self.lookup.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_and_stand_ins() {
        assert_eq!(safe_component("a/b", 255), "a／b");
        assert_eq!(safe_component("x\0y\nz\u{7f}", 255), "x␀y␊z␡");
        assert_eq!(safe_component("", 255), "(none)");
        assert_eq!(safe_component("?", 255), "(unknown)");
        assert_eq!(safe_component(".", 255), "(dot)");
        assert_eq!(safe_component("..", 255), "(dot-dot)");
        assert_eq!(safe_component("Réti", 255), "Réti");
        assert_eq!(
            safe_component("abc\u{202e}fdp.exe", 255),
            "abc\u{fffd}fdp.exe"
        );
        assert_eq!(
            safe_component("x\u{85}\u{2067}y", 255),
            "x\u{fffd}\u{fffd}y"
        );
        assert_eq!(
            safe_component("עברית", 255),
            "עברית",
            "right-to-left text stays"
        );
    }

    #[test]
    fn plain_ascii_is_kept_and_cut_at_the_limit() {
        assert_eq!(safe_component("Carlsen, Magnus", 255), "Carlsen, Magnus");
        assert_eq!(safe_component(&"a".repeat(300), 100), "a".repeat(100));
        assert_eq!(safe_component("a/b\tc", 255), "a／b␉c");
        assert_eq!(
            game_file_name(4, 4, "A", &"b".repeat(150), None),
            format!("0005 A - {}.pgn", "b".repeat(PART_MAX))
        );
    }

    #[test]
    fn length_is_cut_at_character_boundaries() {
        let long = "é".repeat(200);
        let s = safe_component(&long, 255);
        assert!(s.len() <= 255);
        assert_eq!(s.chars().count(), 127);
        let name = game_file_name(0, 7, &long, &long, Some(2019));
        assert!(name.len() <= NAME_MAX, "{}", name.len());
    }

    #[test]
    fn game_file_names() {
        assert_eq!(
            game_file_name(4710, 7, "Carlsen, Magnus", "Nakamura, Hikaru", Some(2019)),
            "0004711 Carlsen, Magnus - Nakamura, Hikaru 2019.pgn"
        );
        assert_eq!(
            game_file_name(0, 4, "", "?", None),
            "0001 (none) - (unknown).pgn"
        );
        assert_eq!(number_width(0), 4);
        assert_eq!(number_width(1_000_000), 7);
    }

    #[test]
    fn any_name_with_the_number_prefix_resolves() {
        assert_eq!(
            game_number_of(b"0004711 Carlsen - Nakamura 2019.pgn"),
            Some(4710)
        );
        assert_eq!(game_number_of(b"0004711 anything else.pgn"), Some(4710));
        assert_eq!(game_number_of(b"4711.pgn"), Some(4710));
        assert_eq!(game_number_of(b"0004711 x.pgn~"), None);
        assert_eq!(game_number_of(b"0004711x.pgn"), None);
        assert_eq!(game_number_of(b".0004711 x.pgn.swp"), None);
        assert_eq!(game_number_of(b"0000 x.pgn"), None);
        assert_eq!(game_number_of(b"x.pgn"), None);
    }

    #[test]
    fn member_file_names_join_and_stay_within_the_limit() {
        assert_eq!(
            member_file_name(
                "twic1500",
                "0042 Carlsen, Magnus - Nakamura, Hikaru 2019.pgn"
            ),
            "twic1500--0042 Carlsen, Magnus - Nakamura, Hikaru 2019.pgn"
        );
        let long = game_file_name(0, 4, &"é".repeat(80), &"b".repeat(100), Some(2019));
        let joined = member_file_name(&"m".repeat(PART_MAX), &long);
        assert!(joined.len() <= NAME_MAX, "{}", joined.len());
        assert!(joined.ends_with(".pgn"), "{joined}");
        assert!(joined.starts_with(&format!("{}--0001 é", "m".repeat(PART_MAX))));
        assert_eq!(game_number_of(&joined.as_bytes()[PART_MAX + 2..]), Some(0));
    }

    #[test]
    fn collisions_are_broken_deterministically() {
        let names = ["a/b", "a／b", "", "(none)", "a/b ~2"];
        let got = unique_components(names);
        assert_eq!(
            got,
            ["a／b", "a／b ~2", "(none)", "(none) ~2", "a／b ~2 ~2"]
        );
        assert_eq!(got, unique_components(names));
    }
}
