//! The solver's transposition table: proven results (does the side to move win?) keyed on a
//! 64-bit position key (`search` folds mirror images into it).
//!
//! Buckets of two entries of two words each: `check = key ^ data` and `data` (bit 0 valid,
//! bit 1 win, bits 8.. the log2 of the subtree's node count). A torn write fails the check,
//! so a lookup returns a stored result or nothing. The first entry of a bucket keeps the
//! bigger subtree, the second takes whatever the first does not.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct Table {
    words: Vec<AtomicU64>,
    /// Index of the first word used: the table starts on a 2 MiB boundary, so that the
    /// kernel can back it with huge pages (fewer TLB misses on random probes).
    base: usize,
    /// log2 of the number of buckets.
    bits: u32,
    /// The board shape the entries belong to (`rows << 8 | cols`); another shape clears them.
    shape: Mutex<u32>,
}

impl Table {
    /// A table of about `mb` MiB (a power of two number of 32-byte buckets, at least 1024),
    /// or smaller ones, halving, while the memory cannot be had.
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
    /// A table of about `mb` MiB (at most 1 TiB), or why the memory cannot be had.
    pub fn try_new(mb: usize) -> Result<Table, String> {
        Table::build(mb, true)
    }
    fn build(mb: usize, fallible: bool) -> Result<Table, String> {
        let mb = mb.clamp(1, 1 << 20);
        let buckets = (mb << 20) / 32;
        let bits = (usize::BITS - 1 - buckets.leading_zeros()).max(10);
        let (words, base) = crate::memory::huge_zeroed(4usize << bits, fallible)
            .ok_or_else(|| format!("cannot allocate a {mb} MiB table"))?;
        Ok(Table {
            words,
            base,
            bits,
            shape: Mutex::new(0),
        })
    }
    pub fn clear(&self) {
        for w in &self.words[self.base..] {
            w.store(0, Relaxed);
        }
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
    fn bucket(&self, key: u64) -> usize {
        self.base + (((key >> (64 - self.bits)) as usize) << 2)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_replace() {
        let t = Table::new(1);
        let bucket_mate = |k: u64| k ^ 1; // same bucket (top bits), another key
        t.put(42 << 40, true, 1000);
        assert_eq!(t.get(42 << 40), Some(true));
        assert_eq!(t.get(bucket_mate(42 << 40)), None);
        // A smaller proof goes to the second entry; the big one stays.
        t.put(bucket_mate(42 << 40), false, 10);
        assert_eq!(t.get(42 << 40), Some(true));
        assert_eq!(t.get(bucket_mate(42 << 40)), Some(false));
        // A third key evicts the second entry, never the bigger first.
        t.put(bucket_mate(42 << 40) ^ 2, true, 5);
        assert_eq!(t.get(42 << 40), Some(true));
        assert_eq!(t.get(bucket_mate(42 << 40)), None);
    }
}
