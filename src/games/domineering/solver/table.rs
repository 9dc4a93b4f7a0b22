//! The solver's transposition table: proven results (does the side to move win?) keyed on a
//! 64-bit position key (`search` folds mirror images into it).
//!
//! Buckets of two entries of two words each: `check = key ^ data` and `data` (bit 0 valid,
//! bit 1 win, bits 8.. the log2 of the subtree's node count). A torn write fails the check,
//! so a lookup returns a stored result or nothing. The first entry of a bucket keeps the
//! bigger subtree, the second takes whatever the first does not.
//!
//! The table grows with the search: its memory is reserved at its largest size but left
//! untouched (the kernel supplies zeroed pages as they are first written), and only the first
//! `mask + 1` buckets are used, indexed by the key's low bits. Once the solvers have stored
//! as many results as the used part has buckets (half its entries), it doubles: each entry
//! whose key has the new index bit set moves to its bucket's new twin. A small board so never
//! pays for memory it does not use, and a big one still gets the whole table. Growing while
//! other threads search only costs them lookups that miss (every entry is checked against its
//! key), never a wrong result. Clearing zeroes only the part in use.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

pub struct Table {
    words: Vec<AtomicU64>,
    /// Index of the first word used: the table starts on a 2 MiB boundary, so that the
    /// kernel can back it with huge pages (fewer TLB misses on random probes).
    base: usize,
    /// log2 of the largest number of buckets.
    bits: u32,
    /// The buckets in use, minus one (a power of two minus one).
    mask: AtomicUsize,
    /// Results stored since the table was last cleared, as the solvers report them.
    stored: AtomicU64,
    /// Held by the thread that doubles the table.
    growing: Mutex<()>,
    /// The board shape the entries belong to (`rows << 8 | cols`); another shape clears them.
    shape: Mutex<u32>,
}

/// The table starts with 2^START_BITS buckets (1 MiB) or its whole size if smaller.
const START_BITS: u32 = 15;

impl Table {
    /// A table of at most about `mb` MiB (a power of two number of 32-byte buckets, at least
    /// 1024), or smaller ones, halving, while the memory cannot be had.
    pub fn new(mb: usize) -> Table {
        let mut mb = mb;
        loop {
            match Table::try_new(mb) {
                Ok(t) => return t,
                Err(_) if mb > 1 => mb /= 2,
                // 1 MiB: allocate as everything else does (abort if even that fails).
                Err(_) => return Table::build(1, false).unwrap_or_else(|_| std::process::abort()),
            }
        }
    }
    /// A table of at most about `mb` MiB (at most 1 TiB), or why the memory cannot be had.
    pub fn try_new(mb: usize) -> Result<Table, String> {
        Table::build(mb, true)
    }
    fn build(mb: usize, fallible: bool) -> Result<Table, String> {
        let mb = mb.clamp(1, 1 << 20);
        let buckets = (mb << 20) / 32;
        let bits = (usize::BITS - 1 - buckets.leading_zeros()).max(10);
        let (words, base) = crate::memory::huge_lazy(4usize << bits, fallible)
            .ok_or_else(|| format!("cannot allocate a {mb} MiB table"))?;
        Ok(Table {
            words,
            base,
            bits,
            mask: AtomicUsize::new((1 << bits.min(START_BITS)) - 1),
            stored: AtomicU64::new(0),
            growing: Mutex::new(()),
            shape: Mutex::new(0),
        })
    }
    /// The memory the table may grow to, in bytes.
    pub fn max_bytes(&self) -> usize {
        32 << self.bits
    }
    /// The memory in use now, in bytes.
    pub fn bytes(&self) -> usize {
        32 * (self.mask.load(Relaxed) + 1)
    }
    /// Empties the table and shrinks it to its starting size (only the part in use is
    /// written; what lies beyond it is still all zeros).
    pub fn clear(&self) {
        let used = self.base + 4 * (self.mask.load(Relaxed) + 1);
        for w in &self.words[self.base..used] {
            w.store(0, Relaxed);
        }
        self.mask
            .store((1 << self.bits.min(START_BITS)) - 1, Relaxed);
        self.stored.store(0, Relaxed);
    }
    /// Makes the table hold entries of this board shape only.
    pub fn use_shape(&self, rows: u32, cols: u32) {
        if let Ok(mut shape) = self.shape.lock() {
            let want = (rows << 8) | cols;
            if *shape != want {
                // A new table (shape 0) is still all zeros.
                if *shape != 0 {
                    self.clear();
                }
                *shape = want;
            }
        }
    }
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        self.base + ((key as usize & self.mask.load(Relaxed)) << 2)
    }
    /// Starts loading the bucket of `key` into the cache (a hint; no effect on results).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.words[self.bucket(key)]);
    }

    pub fn get(&self, key: u64) -> Option<bool> {
        let b = self.bucket(key);
        for e in [b, b + 2] {
            let data = self.words[e + 1].load(Relaxed);
            if data & 1 == 1 && self.words[e].load(Relaxed) ^ data == key {
                return Some(data & 2 != 0);
            }
        }
        None
    }
    /// Stores a result whose proof took `nodes` nodes.
    pub fn put(&self, key: u64, win: bool, nodes: u64) {
        let work = 63 - nodes.max(1).leading_zeros() as u64;
        let data = 1 | (win as u64) << 1 | work << 8;
        let b = self.bucket(key);
        let old = self.words[b + 1].load(Relaxed);
        let same = self.words[b].load(Relaxed) ^ old == key;
        let e = if same || old & 1 == 0 || old >> 8 <= work {
            b
        } else {
            b + 2
        };
        self.words[e].store(key ^ data, Relaxed);
        self.words[e + 1].store(data, Relaxed);
    }
    /// A solver stored `n` more results: the table doubles if they fill it (and it can).
    /// "Full" is as many results as buckets: on 8x9 (Vertical first, 9.0 M nodes at 512 MiB
    /// fixed) it ends at 128 MiB with 9.2 M nodes; doubling at twice that load ends at
    /// 64 MiB with 9.4 M, at a quarter of it at 512 MiB with 9.04 M.
    pub fn stored(&self, n: u64) {
        let stored = self.stored.fetch_add(n, Relaxed) + n;
        let buckets = self.mask.load(Relaxed) + 1;
        if buckets < 1 << self.bits
            && stored > buckets as u64
            && let Ok(_held) = self.growing.try_lock()
            // Another thread may have doubled it meanwhile.
            && self.mask.load(Relaxed) + 1 == buckets
        {
            self.double(buckets);
        }
    }
    /// Doubles the part in use from `n` buckets: the entries of bucket `b` whose key has bit
    /// `n` set move to bucket `b + n` (still all zeros), the first free entry there.
    fn double(&self, n: usize) {
        let w = &self.words;
        for b in 0..n {
            let from = self.base + 4 * b;
            let to = from + 4 * n;
            for e in [from, from + 2] {
                let data = w[e + 1].load(Relaxed);
                let key = w[e].load(Relaxed) ^ data;
                if data & 1 == 0 || key as usize & n == 0 {
                    continue;
                }
                let t = if w[to + 1].load(Relaxed) & 1 == 0 {
                    to
                } else {
                    to + 2
                };
                w[t].store(key ^ data, Relaxed);
                w[t + 1].store(data, Relaxed);
                w[e].store(0, Relaxed);
                w[e + 1].store(0, Relaxed);
            }
        }
        self.mask.store(2 * n - 1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_replace() {
        let t = Table::new(1);
        let bucket_mate = |k: u64| k ^ 1 << 40; // same bucket (low bits), another key
        t.put(42, true, 1000);
        assert_eq!(t.get(42), Some(true));
        assert_eq!(t.get(bucket_mate(42)), None);
        // A smaller proof goes to the second entry; the big one stays.
        t.put(bucket_mate(42), false, 10);
        assert_eq!(t.get(42), Some(true));
        assert_eq!(t.get(bucket_mate(42)), Some(false));
        // A third key evicts the second entry, never the bigger first.
        t.put(bucket_mate(42) ^ 2 << 40, true, 5);
        assert_eq!(t.get(42), Some(true));
        assert_eq!(t.get(bucket_mate(42)), None);
    }

    #[test]
    fn grows_keeping_entries_and_clears() {
        let t = Table::new(4);
        let start = t.bytes();
        assert_eq!(start, 1 << 20);
        assert_eq!(t.max_bytes(), 4 << 20);
        let key = |i: u64| crate::bits::mix(i ^ 0x5555);
        let n = 20_000u64;
        for i in 0..n {
            t.put(key(i), i % 3 == 0, 1 + i % 100);
        }
        let kept = |t: &Table| {
            (0..n)
                .filter(|&i| t.get(key(i)) == Some(i % 3 == 0))
                .count()
        };
        let before = kept(&t);
        // More results stored than the table has buckets: it doubles, twice.
        t.stored(start as u64 / 32 + 1);
        assert_eq!(t.bytes(), 2 * start);
        t.stored(start as u64 / 32);
        assert_eq!(t.bytes(), 4 * start);
        // At its largest it stays.
        t.stored(1 << 30);
        assert_eq!(t.bytes(), 4 * start);
        assert_eq!(kept(&t), before);
        // No key answers wrongly.
        assert!((0..n).all(|i| t.get(key(i)).is_none_or(|w| w == (i % 3 == 0))));
        t.clear();
        assert_eq!(t.bytes(), start);
        assert_eq!(kept(&t), 0);
        assert!(t.words.iter().all(|w| w.load(Relaxed) == 0));
    }
}
