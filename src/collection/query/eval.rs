//! A [`Query`] evaluated over a chess store's index: each game's summary (names, date,
//! result, ECO) and, when a condition asks for them, its ratings and length
//! ([`ChessStore::header_facts`]); each name is matched once per condition, however many
//! games carry it.

use std::collections::HashMap;

use super::parse::{Condition, Field, Query, Value};
use crate::store::{ChessStore, GameSummary, HeaderFacts, NameKind};

/// The live games of `store` meeting `query`, ascending.
pub(crate) fn matching(store: &dyn ChessStore, query: &Query) -> Vec<u32> {
    let needs_facts = query.conditions.iter().any(|c| {
        matches!(
            c.field,
            Field::WhiteElo | Field::BlackElo | Field::BothElo | Field::AnyElo | Field::Plies
        )
    });
    let mut names: Vec<HashMap<u32, bool>> = vec![HashMap::new(); query.conditions.len()];
    (0..store.game_count())
        .filter(|&n| {
            let s = store.summary(n);
            if s.deleted || !store.classified(n) {
                return false;
            }
            let facts = if needs_facts {
                store.header_facts(n)
            } else {
                HeaderFacts::default()
            };
            query
                .conditions
                .iter()
                .zip(&mut names)
                .all(|(c, memo)| meets(store, c, memo, &s, &facts) != c.negated)
        })
        .collect()
}

/// True when a game of summary `s` and facts `f` meets one of `c`'s values (its negation
/// aside); `memo` remembers which names of `c`'s dictionary did.
fn meets(
    store: &dyn ChessStore,
    c: &Condition,
    memo: &mut HashMap<u32, bool>,
    s: &GameSummary,
    f: &HeaderFacts,
) -> bool {
    let mut name = |kind: NameKind, id: u32| {
        *memo.entry(id).or_insert_with(|| {
            let name = store.name(kind, id);
            c.values.iter().any(|v| name_meets(v, &name))
        })
    };
    let range = |x: u32| {
        c.values
            .iter()
            .any(|v| matches!(*v, Value::Range(lo, hi) if lo <= x && x <= hi))
    };
    match c.field {
        Field::White => name(NameKind::Player, s.white),
        Field::Black => name(NameKind::Player, s.black),
        Field::Player => name(NameKind::Player, s.white) || name(NameKind::Player, s.black),
        Field::Event => name(NameKind::Event, s.event),
        Field::Site => name(NameKind::Site, s.site),
        Field::Round => name(NameKind::Round, s.round),
        Field::WhiteElo => range(u32::from(f.white_elo)),
        Field::BlackElo => range(u32::from(f.black_elo)),
        // One value holding both, as SCID's `-elo` asks.
        Field::BothElo => c.values.iter().any(|v| {
            let within = |x: u16| matches!(*v, Value::Range(lo, hi) if lo <= u32::from(x) && u32::from(x) <= hi);
            within(f.white_elo) && within(f.black_elo)
        }),
        Field::AnyElo => range(u32::from(f.white_elo)) || range(u32::from(f.black_elo)),
        Field::Date => range(crate::store::scid::derive::pack_date(s.date)),
        Field::Eco => range(u32::from(s.eco)),
        Field::Plies => range(u32::from(f.plies)),
        Field::Result => c.values.contains(&Value::Result(s.result)),
    }
}

/// True when `name` meets name value `v`: SCID's header search, which ignores case (of ASCII
/// letters) and spaces and finds the value anywhere in the name (`strAlphaContains`), or,
/// for a value written with `==`, the name spelled so.
fn name_meets(v: &Value, name: &str) -> bool {
    match v {
        Value::Exactly(exact) => name == exact,
        Value::Contains(key) => contains_ignoring_case_and_spaces(name.as_bytes(), key),
        _ => false,
    }
}

/// SCID's `strAlphaContains(name, key)`, `key` already lower case without spaces: a place
/// in `name` (never its end: an empty name holds nothing) from which the key's bytes follow,
/// spaces of `name` skipped, letters compared in lower case.
fn contains_ignoring_case_and_spaces(name: &[u8], key: &[u8]) -> bool {
    (0..name.len()).any(|start| {
        let mut rest = name[start..].iter().filter(|&&c| c != b' ');
        key.iter()
            .all(|&k| rest.next().is_some_and(|&c| c.to_ascii_lowercase() == k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_matched_as_scid_matches_them() {
        let has = |name: &str, key: &str| {
            contains_ignoring_case_and_spaces(name.as_bytes(), key.as_bytes())
        };
        assert!(has("Smith, John", "th,j"));
        assert!(has("Carlsen, Magnus", "carlsen,magnus"));
        assert!(has("Carlsen, Magnus", "n,m"));
        assert!(!has("Carlsen, Magnus", "nm"));
        assert!(!has("Carlsen", "carlsenm"));
        assert!(!has("", ""));
        assert!(has("a", ""));
    }
}
