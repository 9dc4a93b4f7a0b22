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

use crate::learn::checksum::{CrcReader, CrcWriter};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Kept apart: win/loss and proof size; two a bucket, the first keeps the bigger proof; grows x2.
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

/// The first bytes of a checkpoint file (`Table::save`), and of one from before checksums.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"TABDOMC2";
pub const CHECKPOINT_MAGIC_V1: &[u8; 8] = b"TABDOMC1";

impl Table {
    /// Writes the part of the table in use to `path`, a checkpoint of the proven results:
    /// `CHECKPOINT_MAGIC`, then little-endian the board shape (u32), `digest` (u64: what the
    /// keys were made with, `Solver::key_digest`), the buckets in use (u64), the results
    /// stored (u64), then every word of those buckets, then the CRC-32 of all that
    /// (`learn::checksum`; `TABDOMC1` files, from before, have none). Through a temporary file renamed at the
    /// end, so an interrupted save leaves the previous checkpoint whole. Safe while threads
    /// search: the table does not double during a save, every word is read whole, and a pair
    /// torn between two writes fails its key check when loaded (nothing wrong, a result lost).
    pub fn save(&self, path: &std::path::Path, digest: u64) -> Result<(), String> {
        use std::io::Write;
        let _no_doubling = self.growing.lock();
        let tmp = path.with_extension("tmp");
        let shape = self.shape.lock().map_or(0, |s| *s);
        let buckets = self.mask.load(Relaxed) + 1;
        let write = || -> std::io::Result<()> {
            let mut f = CrcWriter::new(std::io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(&tmp)?,
            ));
            f.write_all(CHECKPOINT_MAGIC)?;
            f.write_all(&shape.to_le_bytes())?;
            f.write_all(&digest.to_le_bytes())?;
            f.write_all(&(buckets as u64).to_le_bytes())?;
            f.write_all(&self.stored.load(Relaxed).to_le_bytes())?;
            for w in &self.words[self.base..self.base + 4 * buckets] {
                f.write_all(&w.load(Relaxed).to_le_bytes())?;
            }
            f.seal()?
                .into_inner()
                .map_err(|e| e.into_error())?
                .sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| format!("checkpoint {}: {e}", path.display()))
    }

    /// Fills the table from a checkpoint that `save` wrote for this board shape (`rows`,
    /// `cols`) with keys made the same way (`digest`); the table must be able to hold as many
    /// buckets as were in use. On an error the table is left empty.
    pub fn load(
        &self,
        path: &std::path::Path,
        rows: u32,
        cols: u32,
        digest: u64,
    ) -> Result<(), String> {
        use std::io::Read;
        let what = |e: String| format!("checkpoint {}: {e}", path.display());
        let mut f = CrcReader::new(std::io::BufReader::with_capacity(
            1 << 20,
            std::fs::File::open(path).map_err(|e| what(e.to_string()))?,
        ));
        let mut head = [0u8; 36];
        f.read_exact(&mut head)
            .map_err(|_| what("too short for a Domineering solver checkpoint".into()))?;
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&head[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let checked = &head[..8] == CHECKPOINT_MAGIC;
        if !checked && &head[..8] != CHECKPOINT_MAGIC_V1 {
            return Err(what("not a Domineering solver checkpoint".into()));
        }
        let shape = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
        let (buckets, stored) = (u64_at(20), u64_at(28));
        if shape != (rows << 8 | cols) {
            return Err(what(format!(
                "written for the {}x{} board, not {rows}x{cols}",
                shape >> 8,
                shape & 255
            )));
        }
        if u64_at(12) != digest {
            return Err(what(
                "written by a build that makes its table keys otherwise".into(),
            ));
        }
        if !buckets.is_power_of_two() || buckets < 1024 || buckets > 1 << self.bits {
            return Err(what(format!(
                "holds {} MiB of results; this table grows to {} MiB (give a larger --hash)",
                buckets.saturating_mul(32) >> 20,
                self.max_bytes() >> 20
            )));
        }
        self.use_shape(rows, cols);
        self.clear();
        let buckets = buckets as usize;
        // In use from here, so that a failed read is cleared (`clear` zeroes what is in use).
        self.mask.store(buckets - 1, Relaxed);
        let mut word = [0u8; 8];
        for w in &self.words[self.base..self.base + 4 * buckets] {
            if let Err(e) = f.read_exact(&mut word) {
                self.clear();
                return Err(what(format!("cut short: {e}")));
            }
            w.store(u64::from_le_bytes(word), Relaxed);
        }
        if checked && let Err(e) = f.check_seal() {
            self.clear();
            return Err(what(e));
        }
        self.stored.store(stored, Relaxed);
        Ok(())
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

    #[test]
    fn a_checkpoint_restores_every_result() {
        let dir = std::env::temp_dir().join(format!("tabula-dom-ckpt-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("t.ckpt");
        let t = Table::new(4);
        t.use_shape(7, 6);
        let key = |i: u64| crate::bits::mix(i ^ 0x7777);
        for i in 0..30_000u64 {
            t.put(key(i), i % 5 == 0, 1 + i % 50);
        }
        t.stored(40_000); // doubled once
        let answers = |t: &Table| (0..30_000u64).map(|i| t.get(key(i))).collect::<Vec<_>>();
        assert!(t.save(&path, 99).is_ok());
        let u = Table::new(4);
        assert!(u.load(&path, 7, 6, 99).is_ok());
        assert_eq!(u.bytes(), t.bytes());
        assert_eq!(answers(&u), answers(&t));
        // Another shape, other keys, a table too small, a file cut short: refused, left empty.
        assert!(Table::new(4).load(&path, 6, 7, 99).is_err());
        assert!(Table::new(4).load(&path, 7, 6, 98).is_err());
        assert!(Table::new(1).load(&path, 7, 6, 99).is_err());
        let bytes = std::fs::read(&path).unwrap_or_default();
        let cut = dir.join("cut.ckpt");
        assert!(std::fs::write(&cut, &bytes[..bytes.len() / 2]).is_ok());
        let v = Table::new(4);
        assert!(v.load(&cut, 7, 6, 99).is_err());
        assert!((0..30_000u64).all(|i| v.get(key(i)).is_none()));
        // A flipped byte among the results: the checksum refuses it, the table stays empty.
        let mut bad = bytes.clone();
        bad[bytes.len() / 2] ^= 0x5a;
        assert!(std::fs::write(&cut, &bad).is_ok());
        assert!(
            v.load(&cut, 7, 6, 99)
                .is_err_and(|e| e.contains("checksum mismatch"))
        );
        assert!((0..30_000u64).all(|i| v.get(key(i)).is_none()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
