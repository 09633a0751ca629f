//! Each game's modification time, and what an earlier mount kept of it ([`kept_games`]),
//! checked against the game as it is now (docs/SEMANTICS.md §2).
//!
//! A game's time changes when its text changes, and only then: a save or an import through
//! the mount stamps it with the time of the change; a game changed by another program (seen
//! when the database is re-read, or between mounts) shows the database's time when the change
//! was seen; a game first seen shows the database's time when the mount opened it. Times are
//! kept with the sizes, each with the game's fingerprint, so the next mount shows the same
//! times for every game whose fingerprint is the same.
//!
//! A game is compared with what was kept at most once per mount (its fingerprint costs a
//! read of its record); a game nothing was kept for takes its time without any read, and its
//! fingerprint is taken later (at the latest when the mount keeps its games).

use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use super::kept_games::{self, KeptGame};

/// Where a game's state stands against the game as it is now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Check {
    /// Kept by an earlier mount (or nothing kept), not compared with the game yet.
    #[default]
    Unchecked,
    /// The fingerprint is the game's as it is now: its time and kept size hold.
    Holds,
    /// The time is the game's; its fingerprint is still to take.
    Untaken,
}

/// One game's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    kept: KeptGame,
    check: Check,
}

/// The modification times of a mount's games and what earlier mounts kept of them.
pub(crate) struct GameStates {
    games: RwLock<Vec<State>>,
    /// The time a game first seen shows (nanoseconds since the epoch): the database's
    /// modification time when the mount opened it or last re-read it.
    first_seen: AtomicU64,
}

/// A game's fingerprint, asked only when needed (see [`crate::collection::Collection::fingerprint`]).
pub(crate) type Fingerprint<'a> = &'a dyn Fn() -> Option<u64>;

impl GameStates {
    /// No game known yet; games first seen show `first_seen`.
    pub(crate) fn new(first_seen: SystemTime) -> GameStates {
        GameStates {
            games: RwLock::default(),
            first_seen: AtomicU64::new(nanos(first_seen)),
        }
    }

    /// Take what an earlier mount kept, each game still to check.
    pub(crate) fn restore(&self, kept: Vec<KeptGame>) {
        *self.write() = kept
            .into_iter()
            .map(|kept| State {
                kept,
                check: Check::Unchecked,
            })
            .collect();
    }

    /// Game `n`'s modification time.
    pub(crate) fn time(&self, n: u32, fingerprint: Fingerprint<'_>) -> SystemTime {
        time(self.checked(n, fingerprint).kept.mtime_nanos)
    }

    /// Game `n`'s size as an earlier mount kept it, if it still holds.
    pub(crate) fn kept_size(&self, n: u32, fingerprint: Fingerprint<'_>) -> Option<u64> {
        let state = self.get(n);
        if state.kept.size_plus_one == 0 {
            return None;
        }
        let state = self.checked(n, fingerprint);
        (state.check == Check::Holds && state.kept.size_plus_one != 0)
            .then(|| u64::from(state.kept.size_plus_one - 1))
    }

    /// Game `n`'s text changed now (saved, or imported as a new game).
    pub(crate) fn changed(&self, n: u32) {
        let now = nanos(SystemTime::now());
        self.set(
            n,
            State {
                kept: KeptGame {
                    mtime_nanos: now,
                    ..KeptGame::default()
                },
                check: Check::Untaken,
            },
        );
    }

    /// The database was re-read after another program changed it, at `modified`: every game
    /// is compared with its fingerprint again, and one that changed shows `modified`.
    pub(crate) fn reloaded(&self, modified: SystemTime) {
        self.first_seen.store(nanos(modified), Ordering::Relaxed);
        for s in self.write().iter_mut() {
            match s.check {
                Check::Holds => s.check = Check::Unchecked,
                // Its fingerprint was never taken: whether it changed cannot be told.
                Check::Untaken => *s = State::default(),
                Check::Unchecked => {}
            }
        }
    }

    /// Take game `n`'s fingerprint if its time is known without it (so that the time can be
    /// kept), and compare it with what was kept if it is not yet.
    pub(crate) fn settle(&self, n: u32, fingerprint: Fingerprint<'_>) {
        let state = self.checked(n, fingerprint);
        if state.check != Check::Untaken {
            return;
        }
        if let Some(f) = fingerprint() {
            self.replace_if(
                n,
                state,
                State {
                    kept: KeptGame {
                        fingerprint: f,
                        ..state.kept
                    },
                    check: Check::Holds,
                },
            );
        }
    }

    /// What to keep for the next mount of `count` games: each game's time with its
    /// fingerprint, and its size from `size_plus_one` (0: not known) where it is known.
    /// Games not looked at during this mount keep what was kept before.
    pub(crate) fn to_keep(
        &self,
        size_plus_one: &[u32],
        count: u32,
        fingerprint: &dyn Fn(u32) -> Option<u64>,
    ) -> Vec<kept_games::KeptGame> {
        (0..count)
            .map(|n| {
                let known = size_plus_one.get(n as usize).copied().unwrap_or(0);
                let before = self.get(n);
                if before.check == Check::Unchecked && known == 0 {
                    return before.kept;
                }
                self.settle(n, &|| fingerprint(n));
                let state = self.get(n);
                if state.check != Check::Holds {
                    return KeptGame::default();
                }
                KeptGame {
                    size_plus_one: if known != 0 {
                        known
                    } else {
                        state.kept.size_plus_one
                    },
                    ..state.kept
                }
            })
            .collect()
    }

    /// Game `n`'s state, compared with what was kept if it was not yet.
    fn checked(&self, n: u32, fingerprint: Fingerprint<'_>) -> State {
        let state = self.get(n);
        if state.check != Check::Unchecked {
            return state;
        }
        let first_seen = self.first_seen.load(Ordering::Relaxed);
        let settled = if !state.kept.is_kept() {
            // Nothing to compare with: a game first seen takes its time without a read.
            State {
                kept: KeptGame {
                    mtime_nanos: first_seen,
                    ..KeptGame::default()
                },
                check: Check::Untaken,
            }
        } else {
            match fingerprint() {
                Some(f) if f == state.kept.fingerprint && state.kept.fingerprint != 0 => State {
                    kept: KeptGame {
                        // Kept before times were: its time is first seen now.
                        mtime_nanos: match state.kept.mtime_nanos {
                            0 => first_seen,
                            t => t,
                        },
                        ..state.kept
                    },
                    check: Check::Holds,
                },
                // Changed since it was kept: when, the database's time tells at best.
                Some(f) => State {
                    kept: KeptGame {
                        fingerprint: f,
                        size_plus_one: 0,
                        mtime_nanos: first_seen,
                    },
                    check: Check::Holds,
                },
                None => State {
                    kept: KeptGame {
                        mtime_nanos: first_seen,
                        ..KeptGame::default()
                    },
                    check: Check::Untaken,
                },
            }
        };
        // A change that came meanwhile wins.
        self.replace_if(n, state, settled).unwrap_or(settled)
    }

    /// Set game `n`'s state to `new` if it is still `old`; else the state it has now.
    fn replace_if(&self, n: u32, old: State, new: State) -> Option<State> {
        let mut games = self.write();
        let slot = slot(&mut games, n);
        if *slot == old {
            *slot = new;
            None
        } else {
            Some(*slot)
        }
    }

    fn get(&self, n: u32) -> State {
        self.games
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(n as usize)
            .copied()
            .unwrap_or_default()
    }

    fn set(&self, n: u32, state: State) {
        *slot(&mut self.write(), n) = state;
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<State>> {
        self.games.write().unwrap_or_else(|p| p.into_inner())
    }
}

/// Game `n`'s slot, the table grown to hold it.
fn slot(games: &mut Vec<State>, n: u32) -> &mut State {
    if games.len() <= n as usize {
        games.resize(n as usize + 1, State::default());
    }
    &mut games[n as usize]
}

fn nanos(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn time(nanos: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_700_000_000_000_000_000;

    fn at(nanos: u64) -> SystemTime {
        time(nanos)
    }

    #[test]
    fn a_game_first_seen_shows_the_database_time_without_a_read() {
        let states = GameStates::new(at(T0));
        let never = || -> Option<u64> { panic!("no fingerprint needed") };
        assert_eq!(states.time(5, &never), at(T0));
        assert_eq!(states.time(0, &never), at(T0));
    }

    #[test]
    fn a_change_stamps_that_game_alone() {
        let states = GameStates::new(at(T0));
        let fp = || Some(1);
        let before = SystemTime::now();
        states.changed(3);
        assert!(states.time(3, &fp) >= before);
        assert_eq!(states.time(2, &fp), at(T0));
        assert_eq!(states.time(4, &fp), at(T0));
    }

    #[test]
    fn kept_times_hold_while_fingerprints_do() {
        let kept = |fingerprint, mtime_nanos| KeptGame {
            fingerprint,
            size_plus_one: 11,
            mtime_nanos,
        };
        let states = GameStates::new(at(T0 + 50));
        states.restore(vec![kept(7, T0 + 1), kept(8, T0 + 2)]);
        // Game 0 is as it was kept; game 1 changed since.
        let fingerprints = [7, 9];
        let fp = |n: u32| move || Some(fingerprints[n as usize]);
        assert_eq!(states.time(0, &fp(0)), at(T0 + 1));
        assert_eq!(states.kept_size(0, &fp(0)), Some(10));
        assert_eq!(states.time(1, &fp(1)), at(T0 + 50), "the database's time");
        assert_eq!(states.kept_size(1, &fp(1)), None);
        // Kept again: game 1 with its new fingerprint and time.
        let again = states.to_keep(&[0, 21], 2, &|n| fp(n)());
        assert_eq!(
            again,
            [
                kept(7, T0 + 1),
                KeptGame {
                    fingerprint: 9,
                    size_plus_one: 21,
                    mtime_nanos: T0 + 50
                }
            ]
        );
    }

    #[test]
    fn a_reload_keeps_the_times_of_games_that_did_not_change() {
        let states = GameStates::new(at(T0));
        let fp_a = || Some(1);
        states.settle(0, &fp_a);
        states.settle(1, &fp_a);
        assert_eq!(states.time(0, &fp_a), at(T0));
        states.reloaded(at(T0 + 9));
        let fp_b = || Some(2);
        assert_eq!(states.time(0, &fp_a), at(T0), "unchanged");
        assert_eq!(
            states.time(1, &fp_b),
            at(T0 + 9),
            "changed by another program"
        );
    }

    #[test]
    fn games_never_looked_at_keep_what_was_kept() {
        let states = GameStates::new(at(T0));
        let old = KeptGame {
            fingerprint: 4,
            size_plus_one: 5,
            mtime_nanos: T0 - 1,
        };
        states.restore(vec![old]);
        let none = |_: u32| -> Option<u64> { panic!("not read") };
        assert_eq!(states.to_keep(&[], 1, &none), [old]);
    }
}
