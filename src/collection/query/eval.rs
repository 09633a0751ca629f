//! A [`Query`] evaluated over a chess store's index: each game's summary (names, date,
//! result, ECO) and, when a condition asks for them, its ratings and length
//! ([`ChessStore::ratings`], [`ChessStore::plies`]); each name is matched once per condition, however many
//! games carry it.

use std::collections::HashMap;

use super::index::HeaderIndex;
use super::parse::{Condition, Field, Query, Value};
use crate::store::{ChessStore, GameSummary, NameKind};

/// What a condition asks of a game beyond its summary, read only when a condition asks.
#[derive(Default)]
struct Facts {
    ratings: Option<[u16; 2]>,
    plies: Option<u16>,
}

impl Facts {
    /// White's and Black's ratings of game `n`.
    fn ratings(&mut self, store: &dyn ChessStore, n: u32) -> [u16; 2] {
        *self.ratings.get_or_insert_with(|| store.ratings(n))
    }

    /// The half moves of game `n`'s main line.
    fn plies(&mut self, store: &dyn ChessStore, n: u32) -> u16 {
        *self.plies.get_or_insert_with(|| store.plies(n))
    }
}

/// The live games of `store` meeting `query`'s conditions on their headers, ascending (its
/// conditions on endings are the position index's: [`Query::materials`]): read from `index`
/// (the store's [`HeaderIndex`], made when the store held its first games as they were then),
/// the rest checked game by game. `changed` (ascending) names the games saved, marked deleted
/// or undeleted since `index` was made, and the games past its count are new: it does not
/// answer for them, so each is checked on its own, as a query without an index checks every
/// game; a save needs no new index.
pub(crate) fn matching(
    store: &dyn ChessStore,
    query: &Query,
    index: Option<&HeaderIndex>,
    changed: &[u32],
) -> Vec<u32> {
    // The conditions the summary answers first: a game they rule out is not read further.
    let mut conditions: Vec<&Condition> = query
        .conditions
        .iter()
        .filter(|c| c.field != Field::Material)
        .collect();
    conditions.sort_by_key(|c| match c.field {
        Field::WhiteElo | Field::BlackElo | Field::BothElo | Field::AnyElo => 1,
        Field::Plies => 2,
        Field::Annotator => 3,
        _ => 0,
    });
    let count = store.game_count();
    let Some(index) = index.filter(|i| i.game_count() <= count) else {
        let games = (0..count).filter(|&n| store.classified(n));
        return Checker::new(store, conditions).keep(games).collect();
    };
    let (mut games, mut left) = index.narrow(store, &conditions);
    left.sort_by_key(|c| conditions.iter().position(|k| std::ptr::eq(*k, *c)));
    let indexed = index.game_count();
    let changed = &changed[..changed.partition_point(|&n| n < indexed)];
    for &n in changed {
        games.set(n as usize, false);
    }
    // The index's games are live: with nothing left to check, no game is read.
    let from_index = games.into_ones().map(|n| n as u32);
    let mut all: Vec<u32> = match left.is_empty() {
        true => from_index.collect(),
        false => Checker::new(store, left).keep(from_index).collect(),
    };
    // The games it does not answer for, each checked on its own.
    let own = changed.iter().copied().chain(indexed..count);
    let before = all.len();
    all.extend(Checker::new(store, conditions).keep(own.filter(|&n| store.classified(n))));
    if all.len() > before {
        all.sort_unstable();
    }
    all
}

/// Conditions checked game by game: each name of a condition's dictionary looked up once,
/// however many games carry it.
struct Checker<'a> {
    store: &'a dyn ChessStore,
    conditions: Vec<&'a Condition>,
    names: Vec<HashMap<u32, bool>>,
}

impl<'a> Checker<'a> {
    fn new(store: &'a dyn ChessStore, conditions: Vec<&'a Condition>) -> Checker<'a> {
        let names = vec![HashMap::new(); conditions.len()];
        Checker {
            store,
            conditions,
            names,
        }
    }

    /// The live games of `games` that meet every condition.
    fn keep(mut self, games: impl Iterator<Item = u32>) -> impl Iterator<Item = u32> {
        games.filter(move |&n| {
            let s = self.store.summary(n);
            if s.deleted {
                return false;
            }
            let mut facts = Facts::default();
            let store = self.store;
            self.conditions
                .iter()
                .zip(&mut self.names)
                .all(|(c, memo)| meets(store, n, c, memo, &s, &mut facts) != c.negated)
        })
    }
}

/// True when game `n`, of summary `s`, meets one of `c`'s values (its negation aside);
/// `memo` remembers which names of `c`'s dictionary did, `facts` what was read of the game.
fn meets(
    store: &dyn ChessStore,
    n: u32,
    c: &Condition,
    memo: &mut HashMap<u32, bool>,
    s: &GameSummary,
    facts: &mut Facts,
) -> bool {
    let mut name = |kind: NameKind, id: u32| {
        *memo.entry(id).or_insert_with(|| {
            let name = store.name(kind, id);
            c.values.iter().any(|v| name_meets(v, &name))
        })
    };
    let within = |v: &Value, x: u32| matches!(*v, Value::Range(lo, hi) if lo <= x && x <= hi);
    let range = |x: u32| c.values.iter().any(|v| within(v, x));
    let rating = |x: u16| range(u32::from(x));
    match c.field {
        Field::White => name(NameKind::Player, s.white),
        Field::Black => name(NameKind::Player, s.black),
        Field::Player => name(NameKind::Player, s.white) || name(NameKind::Player, s.black),
        Field::Event => name(NameKind::Event, s.event),
        Field::Site => name(NameKind::Site, s.site),
        Field::Round => name(NameKind::Round, s.round),
        Field::WhiteElo => rating(facts.ratings(store, n)[0]),
        Field::BlackElo => rating(facts.ratings(store, n)[1]),
        // One value holding both, as SCID's `-elo` asks.
        Field::BothElo => {
            let [w, b] = facts.ratings(store, n);
            c.values
                .iter()
                .any(|v| within(v, u32::from(w)) && within(v, u32::from(b)))
        }
        Field::AnyElo => facts.ratings(store, n).into_iter().any(rating),
        Field::Date => range(crate::store::scid::derive::pack_date(s.date)),
        Field::Eco => range(u32::from(s.eco)),
        Field::Plies => range(u32::from(facts.plies(store, n))),
        // No annotator meets no value: `annotator!=X` keeps the games without one.
        Field::Annotator => store
            .annotator(n)
            .is_some_and(|a| c.values.iter().any(|v| name_meets(v, &a))),
        Field::Result => c.values.contains(&Value::Result(s.result)),
        Field::Material => true,
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

#[cfg(test)]
mod format_tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::store::{self, Format};

    /// A database of `format` at `dir/name` holding the games of `text`.
    fn database(dir: &Path, name: &str, format: Format, text: &[u8]) -> Arc<dyn ChessStore> {
        let base = dir.join(name);
        store::create(&base, format).unwrap();
        let options = store::OpenOptions {
            writable: true,
            lossy: true,
            ..store::OpenOptions::default()
        };
        let db = store::open_with(&base, &options).unwrap();
        let report = crate::collection::chess::append_pgn(
            &*db,
            text,
            crate::collection::import::OnBadGame::Skip,
            false,
            &|_| {},
            &mut |_| {},
        )
        .unwrap();
        assert!(
            report.skipped.is_empty(),
            "{name}: {} skipped",
            report.skipped.len()
        );
        db
    }

    #[test]
    fn every_format_finds_the_same_games_whether_its_index_keeps_ratings_and_lengths_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/najdorf/najdorf.pgn");
        let text = std::fs::read(&pgn).unwrap();
        let scid = database(dir.path(), "scid", Format::Scid, &text);
        let others = [
            database(dir.path(), "scdb.dci", Format::SimpleCdb, &text),
            store::open(&pgn, false).unwrap(),
        ];
        for q in [
            "welo=2700-",
            "belo=-2400",
            "elo=2500-2700",
            "anyelo=2785-3182",
            "moves=-30",
            "plies=60-80,result=1-0+draw",
            "player=kasparov,moves=30-",
            "year=2012,welo=2600-",
        ] {
            let query = Query::parse(q).unwrap();
            let want = matching(&*scid, &query, None, &[]);
            assert!(!want.is_empty(), "{q}");
            for other in &others {
                // Its header index keeps the ratings and lengths only where its index does.
                let index = HeaderIndex::build(&**other, 0);
                for index in [None, Some(&index)] {
                    assert_eq!(
                        matching(&**other, &query, index, &[]),
                        want,
                        "{q}: {}",
                        other.info().format
                    );
                }
            }
        }
    }

    /// A SCID base in `dir` of the games of `pgns` (files of tests/data), the fourth game
    /// marked deleted, and its header index (stamp 7); and the text of the games.
    fn indexed_base(dir: &Path, pgns: &[&str]) -> (Vec<u8>, Arc<dyn ChessStore>, HeaderIndex) {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let text: Vec<u8> = pgns
            .iter()
            .flat_map(|pgn| std::fs::read(data.join(pgn)).unwrap())
            .collect();
        let db = database(dir, "base", Format::Scid, &text);
        db.set_deleted(3, true).unwrap();
        let index = HeaderIndex::build(&*db, 7);
        (text, db, index)
    }

    /// Queries of every field and form, for the index against the scan.
    const QUERIES: &[&str] = &[
        "white=kasparov",
        "player=an",
        "player=SPASSKY%2Cboris",
        "black==Kasparov%2C%20Gary",
        "black==kasparov%2C%20gary",
        "white=stockfish+houdini",
        "event!=open",
        "site=ind+eng,round=6",
        "welo=2503-2604",
        "belo=-2500",
        "elo=2534-2785",
        "elo=-2400+2700-",
        "anyelo=2785-3182",
        "date=2012.07.31-2012.11.30",
        "year=-1995",
        "result!=none",
        "result=draw+0-1",
        "eco=B91-B94,moves=-40",
        "plies=100-",
        "player=anand,year=2000-,elo=2700-",
        "event=open,site!=eng+ind",
        "annotator=a,player=a",
        "white!=a,black!=e",
        "eco=B90-B99,result=1-0",
        "year=2000-,result!=draw,elo!=2700-",
        "anyelo=-2500,welo=2600-,plies!=-60",
    ];

    #[test]
    fn the_header_index_finds_the_games_the_scan_finds_and_keeps_for_its_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let pgns = [
            "najdorf/najdorf.pgn",
            "tags.pgn",
            "names.pgn",
            "long-tags.pgn",
        ];
        let (_, db, index) = indexed_base(dir.path(), &pgns);
        let kept = dir.path().join("index.headers");
        index.write(&kept).unwrap();
        let mapped = HeaderIndex::open(&kept, 7).expect("kept whole");
        assert!(HeaderIndex::open(&kept, 8).is_none(), "another stamp's");
        let queries = QUERIES;
        for q in queries {
            let query = Query::parse(q).unwrap();
            let scan = matching(&*db, &query, None, &[]);
            assert!(scan.binary_search(&3).is_err(), "{q}: a deleted game");
            for i in [&index, &mapped] {
                assert_eq!(matching(&*db, &query, Some(i), &[]), scan, "{q}");
            }
        }
        assert!(
            !matching(&*db, &Query::parse("player=a").unwrap(), Some(&index), &[]).is_empty(),
            "the queries find games"
        );
        // Databases SCID 5 and SCID vs. PC wrote: the same games either way.
        for base in [
            "scid5/edge",
            "scid5/gen300",
            "scid5/chess960",
            "scidvspc/endings",
        ] {
            let db = store::open(&data.join(base), false).unwrap();
            let index = HeaderIndex::build(&*db, 0);
            for q in queries {
                let query = Query::parse(q).unwrap();
                let scan = matching(&*db, &query, None, &[]);
                assert_eq!(
                    matching(&*db, &query, Some(&index), &[]),
                    scan,
                    "{base}: {q}"
                );
            }
        }
        // A torn index is none.
        let bytes = std::fs::read(&kept).unwrap();
        std::fs::write(&kept, &bytes[..bytes.len() - 1]).unwrap();
        assert!(HeaderIndex::open(&kept, 7).is_none());
    }

    #[test]
    fn an_index_goes_on_answering_over_the_games_changed_since_it_was_made() {
        let dir = tempfile::tempdir().unwrap();
        let (text, db, index) = indexed_base(dir.path(), &["najdorf/najdorf.pgn", "tags.pgn"]);
        let games: Vec<crate::game::ChessGame> = crate::text::pgn_parse::games(&text)
            .filter_map(std::result::Result::ok)
            .collect();
        let told = answers_over_changes(&*db, &index, &games);
        assert!(told > 5, "the changes change {told} answers");
        // Bases SCID 5 and SCID vs. PC wrote, copied and changed the same way.
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        for (base, exts) in [
            ("scid5/gen300", ["si5", "sn5", "sg5"]),
            ("scidvspc/endings", ["si4", "sn4", "sg4"]),
        ] {
            let copy = dir.path().join(base.replace('/', "-"));
            for ext in exts {
                std::fs::copy(data.join(format!("{base}.{ext}")), copy.with_extension(ext))
                    .unwrap();
            }
            let options = store::OpenOptions {
                writable: true,
                lossy: true,
                ..store::OpenOptions::default()
            };
            let db = store::open_with(&copy, &options).unwrap();
            let index = HeaderIndex::build(&*db, 0);
            answers_over_changes(&*db, &index, &games);
        }
    }

    /// Change `db`, whose header index is `index`: a game undeleted and one deleted, two
    /// saved as games of `games`, ten of them added; then every query of [`QUERIES`] from
    /// `index` and the changed games equals the scan. How many answers the changes made
    /// differ from what the index alone says.
    fn answers_over_changes(
        db: &dyn ChessStore,
        index: &HeaderIndex,
        games: &[crate::game::ChessGame],
    ) -> usize {
        let deleted = (0..db.game_count()).find(|&n| db.summary(n).deleted);
        let undeleted = deleted.unwrap_or(3);
        db.set_deleted(undeleted, false).unwrap();
        db.set_deleted(5, true).unwrap();
        db.replace(8, &games[100]).unwrap();
        db.replace(9, &games[7]).unwrap();
        let added = db
            .append(&mut games[200..210].iter().cloned().map(Ok))
            .unwrap();
        assert_eq!(added.first(), Some(&index.game_count()));
        let mut changed = vec![undeleted, 5, 8, 9];
        changed.sort_unstable();
        changed.dedup();
        changed.extend(&added);
        let mut told = 0;
        for q in QUERIES {
            let query = Query::parse(q).unwrap();
            let scan = matching(db, &query, None, &[]);
            let base = db.info().format;
            assert_eq!(
                matching(db, &query, Some(index), &changed),
                scan,
                "{base}: {q}"
            );
            // Not told of the changes, the index answers as the games were.
            told += usize::from(matching(db, &query, Some(index), &[]) != scan);
        }
        told
    }
}
