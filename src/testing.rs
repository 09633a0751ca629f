//! Helpers for the tests (unit tests, tests/ and mount-tests/): the one deterministic random
//! generator, so randomized tests give the same cases on every run, and a small real database.
//! Compiled into the library (it is a few lines) so the integration tests share it instead of
//! each keeping its own.

#[cfg(test)]
use std::path::{Path, PathBuf};

#[cfg(test)]
use crate::error::Error;
#[cfg(test)]
use crate::store::{self, Format};
#[cfg(test)]
use crate::text::pgn_parse;

/// A fresh SCID database `dir/db` holding the demo games (contrib/sample/demo.pgn); returns
/// its base path.
#[cfg(test)]
pub(crate) fn demo_db(dir: &Path) -> PathBuf {
    let base = dir.join("db");
    store::create(&base, Format::Scid).unwrap();
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/sample/demo.pgn"
    ))
    .unwrap();
    let db = store::open(&base, true).unwrap();
    db.append(&mut pgn_parse::games(&text).map(|g| g.map_err(Error::from)))
        .unwrap();
    base
}

/// xorshift64*: deterministic, dependency-free pseudo-random numbers.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
