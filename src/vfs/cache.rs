//! Rendered game text, kept in a byte-bounded LRU cache, plus the size of every game ever
//! rendered so `stat` does not have to render again after the text was evicted.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use lru::LruCache;

/// A byte-bounded LRU cache of rendered files keyed by game number, and their sizes.
pub(crate) struct TextCache {
    inner: Mutex<Lru>,
    max_bytes: usize,
    /// The size of each game's text once known.
    sizes: RwLock<Sizes>,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Counts the sizes forgotten (a save, a change by another program), so a size learnt
    /// from a text rendered before can be told from one rendered after.
    epoch: AtomicU64,
    /// Changes of the database under way ([`TextCache::changing`]).
    changing: AtomicU64,
    /// 1 + the game whose size a reader last had to wait for (0 = none yet): where the
    /// background fill of sizes goes on from ([`TextCache::waited_for`]).
    waited_for: AtomicU32,
}

/// A change of the database under way: its texts are forgotten ([`TextCache::invalidate`])
/// before this is dropped.
pub(crate) struct Changing<'a>(&'a TextCache);

impl Drop for Changing<'_> {
    fn drop(&mut self) {
        self.0.changing.fetch_sub(1, Ordering::SeqCst);
    }
}

struct Lru {
    map: LruCache<u32, Arc<[u8]>>,
    bytes: usize,
}

impl TextCache {
    /// A cache for `games` games holding at most `max_bytes` of text.
    pub(crate) fn new(games: u32, max_bytes: usize) -> TextCache {
        TextCache {
            inner: Mutex::new(Lru {
                map: LruCache::unbounded(),
                bytes: 0,
            }),
            max_bytes,
            sizes: RwLock::new(Sizes {
                each: vec![0; games as usize],
                known: 0,
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            epoch: AtomicU64::new(0),
            changing: AtomicU64::new(0),
            waited_for: AtomicU32::new(0),
        }
    }

    /// The cached text of game `n`, if present.
    pub(crate) fn get(&self, n: u32) -> Option<Arc<[u8]>> {
        let found = self.lock().map.get(&n).cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// How often a text was found in the cache and how often it had to be rendered.
    pub(crate) fn hits_and_misses(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// The size of game `n`'s text, if it was rendered before.
    pub(crate) fn size(&self, n: u32) -> Option<u64> {
        let s = *self
            .sizes
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .each
            .get(n as usize)?;
        (s != 0).then(|| u64::from(s - 1))
    }

    /// Note game `n`'s size without its text.
    pub(crate) fn set_size(&self, n: u32, size: u64) {
        self.sizes_mut().put(n, size);
    }

    /// Note the sizes of games 0, 1, … at once, those known (a database that knows them
    /// without rendering).
    pub(crate) fn set_known_sizes(&self, known: impl IntoIterator<Item = Option<u64>>) {
        let mut sizes = self.sizes_mut();
        for (n, size) in known.into_iter().enumerate() {
            if let Some(size) = size {
                sizes.put(n as u32, size);
            }
        }
    }

    /// How many games' sizes are known (counted as they are learnt and forgotten: `.gamefs/stats`
    /// asks on every read, and a count over ten million games took 5 ms of the mount's CPU).
    pub(crate) fn known_count(&self) -> usize {
        self.sizes.read().unwrap_or_else(|p| p.into_inner()).known
    }

    /// Where the cache stands in its forgetting: take it before rendering a text whose size
    /// [`TextCache::set_size_if_current`] is to note.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// A change of the database begins: until the guard is dropped (after the changed texts
    /// were forgotten), [`TextCache::steady_since`] is false.
    pub(crate) fn changing(&self) -> Changing<'_> {
        self.changing.fetch_add(1, Ordering::SeqCst);
        Changing(self)
    }

    /// True when no text was forgotten since `epoch` and no change is under way: texts
    /// rendered since `epoch` was taken are all of the database as it was then (a reader of
    /// many texts at once asks after rendering them).
    pub(crate) fn steady_since(&self, epoch: u64) -> bool {
        self.changing.load(Ordering::SeqCst) == 0 && self.epoch.load(Ordering::SeqCst) == epoch
    }

    /// Note game `n`'s size, unless a size was forgotten since `epoch` (the text it was
    /// measured on may be of the game before a save).
    pub(crate) fn set_size_if_current(&self, n: u32, size: u64, epoch: u64) {
        let mut sizes = self.sizes_mut();
        if self.epoch.load(Ordering::Acquire) != epoch {
            return;
        }
        sizes.put(n, size);
    }

    /// Note that a reader waited for game `n`'s text to learn its size (`ls -l` overtaking
    /// the background fill), so the fill goes on ahead of it rather than beside it.
    pub(crate) fn note_waited_for(&self, n: u32) {
        self.waited_for
            .store(n.saturating_add(1), Ordering::Relaxed);
    }

    /// The game whose size a reader last waited for, if any ([`TextCache::note_waited_for`]).
    pub(crate) fn waited_for(&self) -> Option<u32> {
        self.waited_for.load(Ordering::Relaxed).checked_sub(1)
    }

    /// Store game `n`'s text, evicting the least recently used texts beyond the budget.
    pub(crate) fn insert(&self, n: u32, text: Arc<[u8]>) {
        self.set_size(n, text.len() as u64);
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

    /// Forget game `n`'s text and size (it was saved).
    pub(crate) fn invalidate(&self, n: u32) {
        {
            let mut sizes = self.sizes_mut();
            self.epoch.fetch_add(1, Ordering::AcqRel);
            sizes.forget(n);
        }
        let mut lru = self.lock();
        if let Some(old) = lru.map.pop(&n) {
            lru.bytes -= old.len();
        }
    }

    /// Forget every text and size (the database changed under us).
    pub(crate) fn clear(&self) {
        {
            let mut sizes = self.sizes_mut();
            self.epoch.fetch_add(1, Ordering::AcqRel);
            sizes.each.iter_mut().for_each(|s| *s = 0);
            sizes.known = 0;
        }
        let mut lru = self.lock();
        lru.map.clear();
        lru.bytes = 0;
    }

    /// Size + 1 of every game's text (0 where not known).
    pub(crate) fn known_sizes(&self) -> Vec<u32> {
        self.sizes
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .each
            .clone()
    }

    /// Bytes of text currently held.
    pub(crate) fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn sizes_mut(&self) -> std::sync::RwLockWriteGuard<'_, Sizes> {
        self.sizes.write().unwrap_or_else(|p| p.into_inner())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lru> {
        // A panic while holding the lock cannot leave the map inconsistent in a way that
        // matters (worst case a stale byte count), so a poisoned lock is used as is.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The size of each game's text where known, and how many are.
struct Sizes {
    /// Size + 1 of each game's text once known (0 = not yet rendered); grows with the
    /// database.
    each: Vec<u32>,
    /// How many of `each` are not 0.
    known: usize,
}

impl Sizes {
    /// Note game `n`'s size.
    fn put(&mut self, n: u32, size: u64) {
        if self.each.len() <= n as usize {
            self.each.resize(n as usize + 1, 0);
        }
        let slot = &mut self.each[n as usize];
        self.known += usize::from(*slot == 0);
        *slot = u32::try_from(size).unwrap_or(u32::MAX - 1) + 1;
    }

    /// Forget game `n`'s size.
    fn forget(&mut self, n: u32) {
        if let Some(slot) = self.each.get_mut(n as usize) {
            self.known -= usize::from(*slot != 0);
            *slot = 0;
        }
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
        cache.invalidate(0);
        assert!(cache.get(0).is_none());
        assert_eq!(cache.size(0), None);
        cache.insert(9, Arc::from(&b"z"[..]));
        assert_eq!(cache.size(9), Some(1), "sizes grow with the database");
    }

    #[test]
    fn the_count_of_known_sizes_follows_every_way_a_size_is_learnt_and_forgotten() {
        let cache = TextCache::new(4, 100);
        let counted = |cache: &TextCache| {
            let each = cache.known_sizes();
            (
                cache.known_count(),
                each.iter().filter(|&&s| s != 0).count(),
            )
        };
        cache.set_size(1, 0);
        cache.set_size(1, 7);
        cache.insert(2, Arc::from(&b"ab"[..]));
        cache.set_known_sizes([Some(3), None, Some(9)]);
        cache.set_size_if_current(6, 4, cache.epoch());
        assert_eq!(
            counted(&cache),
            (4, 4),
            "sizes 0, 1, 2 and 6; a size set again counts once"
        );
        cache.invalidate(1);
        cache.invalidate(1);
        cache.invalidate(40);
        assert_eq!(
            counted(&cache),
            (3, 3),
            "a size forgotten twice is one less"
        );
        cache.set_size_if_current(1, 4, 0);
        assert_eq!(
            counted(&cache),
            (3, 3),
            "a size of a text older than a forgetting"
        );
        cache.clear();
        assert_eq!(counted(&cache), (0, 0));
        cache.set_size(3, 1);
        assert_eq!(counted(&cache), (1, 1));
    }
}
