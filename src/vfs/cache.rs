//! Rendered game text, kept in a byte-bounded LRU cache, plus the size of every game ever
//! rendered so `stat` does not have to render again after the text was evicted.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use lru::LruCache;

/// A byte-bounded LRU cache of rendered files keyed by game number, and their sizes.
pub struct TextCache {
    inner: Mutex<Lru>,
    max_bytes: usize,
    /// Size + 1 of each game's text once known (0 = not yet rendered).
    sizes: Vec<AtomicU32>,
}

struct Lru {
    map: LruCache<u32, Arc<[u8]>>,
    bytes: usize,
}

impl TextCache {
    /// A cache for `games` games holding at most `max_bytes` of text.
    pub fn new(games: u32, max_bytes: usize) -> TextCache {
        TextCache {
            inner: Mutex::new(Lru {
                map: LruCache::unbounded(),
                bytes: 0,
            }),
            max_bytes,
            sizes: (0..games).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The cached text of game `n`, if present.
    pub fn get(&self, n: u32) -> Option<Arc<[u8]>> {
        self.lock().map.get(&n).cloned()
    }

    /// The size of game `n`'s text, if it was rendered before.
    pub fn size(&self, n: u32) -> Option<u64> {
        let s = self.sizes.get(n as usize)?.load(Ordering::Relaxed);
        (s != 0).then(|| u64::from(s - 1))
    }

    /// Store game `n`'s text, evicting the least recently used texts beyond the budget.
    pub fn insert(&self, n: u32, text: Arc<[u8]>) {
        if let Some(slot) = self.sizes.get(n as usize) {
            slot.store(
                u32::try_from(text.len()).unwrap_or(u32::MAX - 1) + 1,
                Ordering::Relaxed,
            );
        }
        let mut lru = self.lock();
        lru.bytes += text.len();
        if let Some(old) = lru.map.put(n, text) {
            lru.bytes -= old.len();
        }
        while lru.bytes > self.max_bytes && lru.map.len() > 1 {
            match lru.map.pop_lru() {
                Some((_, old)) => lru.bytes -= old.len(),
                None => break,
            }
        }
    }

    /// Bytes of text currently held.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lru> {
        // A panic while holding the lock cannot leave the map inconsistent in a way that
        // matters (worst case a stale byte count), so a poisoned lock is used as is.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_beyond_budget_but_remembers_sizes() {
        let cache = TextCache::new(3, 10);
        cache.insert(0, Arc::from(&b"aaaa"[..]));
        cache.insert(1, Arc::from(&b"bbbb"[..]));
        assert!(cache.get(0).is_some()); // 0 is now most recent
        cache.insert(2, Arc::from(&b"cccc"[..]));
        assert!(cache.get(1).is_none());
        assert!(cache.get(0).is_some() && cache.get(2).is_some());
        assert_eq!(cache.bytes(), 8);
        assert_eq!(cache.size(1), Some(4));
        assert_eq!(cache.size(7), None);
    }
}
