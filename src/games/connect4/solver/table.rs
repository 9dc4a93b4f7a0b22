//! The solver's transposition table: buckets of two 64-bit entries, shared by threads
//! without locks (a torn entry only fails its key check).
//!
//! Entry: bits 0..48 the key's low 48 bits; 48..56 the value byte (0 empty, then upper bounds,
//! then lower bounds: `Solver::encode_*`); 56..61 the best move's column + 1 (0: none);
//! 61..64 the work class (empty cells / 8: a deeper search is worth more). The bucket is the
//! key modulo an odd number of buckets above 2^16, so bucket and low 48 bits together identify
//! a 64-bit key (Chinese remainder theorem). Of a bucket's two entries the first keeps the
//! deeper search, the second takes whatever does not replace the first.

use crate::learn::checksum::{CrcReader, CrcWriter};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const KEY_BITS: u64 = (1 << 48) - 1;

/// What the table knows of a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The value byte (0: nothing known).
    pub value: u8,
    /// The best move found (a column), if any.
    pub best: Option<u32>,
}

/// Kept apart: one-word entries (48 key bits, prime bucket count); two a bucket, first keeps depth.
pub struct SolverTable {
    /// Two entries per bucket, from `base` (a 2 MiB boundary: huge pages).
    entries: Vec<AtomicU64>,
    base: usize,
    /// The buckets in use (`resize`), at most `capacity`; the entries past them are zero.
    buckets: u64,
    capacity: u64,
    /// `u128::MAX / buckets + 1`: the key modulo `buckets` by multiplications (Lemire's
    /// fastmod), not a division, on every probe.
    fastmod: u128,
    /// The board shape the entries belong to (`width << 8 | height`); another shape clears
    /// them, since keys are only unique within one shape.
    shape: std::sync::Mutex<u32>,
}

/// The smallest odd number of buckets (CRT needs more than 2^16 of them).
const MIN_BUCKETS: u64 = (1 << 16) + 1;

/// The largest prime `p <= n`, at least `MIN_BUCKETS` (trial division: n up to 2^40 or so).
fn prime_at_most(mut n: u64) -> u64 {
    let is_prime = |n: u64| {
        !n.is_multiple_of(2)
            && (3..)
                .step_by(2)
                .take_while(|d| d * d <= n)
                .all(|d| !n.is_multiple_of(d))
    };
    while n > MIN_BUCKETS && !is_prime(n) {
        n -= 1;
    }
    n.max(MIN_BUCKETS)
}

impl SolverTable {
    /// A table of about `bytes` bytes (a prime number of 16-byte buckets), zeroed lazily: the
    /// pages (huge where the kernel allows) are taken as the search touches them. Err if the memory cannot be had.
    pub fn with_bytes(bytes: usize) -> Result<SolverTable, String> {
        Self::with_bytes_using(bytes, bytes)
    }

    /// A table of about `bytes` bytes of which only about the first `first` are used until
    /// `resize` grows it: a search that needs little table touches few pages.
    pub fn with_bytes_using(bytes: usize, first: usize) -> Result<SolverTable, String> {
        let capacity = prime_at_most((bytes / 16) as u64);
        let n = usize::try_from(capacity * 2).map_err(|_| "solver table too large".to_string())?;
        let (entries, base) = crate::memory::huge_lazy(n, true)
            .ok_or_else(|| format!("cannot allocate a {} MiB solver table", (n * 8) >> 20))?;
        let buckets = prime_at_most((first / 16) as u64).min(capacity);
        Ok(SolverTable {
            entries,
            base,
            buckets,
            capacity,
            fastmod: u128::MAX / u128::from(buckets) + 1,
            shape: std::sync::Mutex::new(0),
        })
    }

    /// Bytes in use.
    pub fn bytes(&self) -> usize {
        (self.buckets * 16) as usize
    }

    /// Bytes the table was made with: what `resize` can grow it to.
    pub fn capacity_bytes(&self) -> usize {
        (self.capacity * 16) as usize
    }

    /// Uses about `bytes` (at most the size it was made with) from now on, every entry
    /// cleared (an entry is only identified under the bucket count it was stored with). A
    /// small table touches few pages: each page's first touch costs the kernel's zeroing
    /// (inside a virtual machine, often the host's first touch too).
    pub fn resize(&mut self, bytes: usize) {
        let buckets = prime_at_most((bytes / 16) as u64).min(self.capacity);
        if buckets != self.buckets {
            self.clear();
            self.buckets = buckets;
            self.fastmod = u128::MAX / u128::from(buckets) + 1;
        }
    }

    pub(super) fn use_shape(&self, shape: u32) {
        if let Ok(mut s) = self.shape.lock()
            && *s != shape
        {
            // A new table (shape 0) is still all zeros.
            if *s != 0 {
                self.clear();
            }
            *s = shape;
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        // key % buckets: the low 128 bits of fastmod * key, times buckets, high 64 bits.
        let low = self.fastmod.wrapping_mul(u128::from(key));
        let b = u128::from(self.buckets);
        let rem = ((low >> 64) * b + (((low as u64 as u128) * b) >> 64)) >> 64;
        self.base + 2 * rem as usize
    }

    /// Asks the memory system for `key`'s bucket ahead of a probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.entries[self.bucket(key)]);
    }

    #[inline]
    pub fn get(&self, key: u64) -> Probe {
        let i = self.bucket(key);
        let k = key & KEY_BITS;
        for e in &self.entries[i..i + 2] {
            let e = e.load(Relaxed);
            if e & KEY_BITS == k && (e >> 48) as u8 != 0 {
                let mv = ((e >> 56) & 31) as u32;
                return Probe {
                    value: (e >> 48) as u8,
                    best: mv.checked_sub(1),
                };
            }
        }
        Probe::default()
    }

    /// Stores `value` (and the best move, if any) for `key`, found with `empties` empty
    /// cells left.
    #[inline]
    pub fn put(&self, key: u64, value: u8, best: Option<u32>, empties: u32) {
        let i = self.bucket(key);
        let k = key & KEY_BITS;
        let class = u64::from(empties / 8).min(7);
        let mv = best.map_or(0, |c| u64::from(c + 1) & 31);
        let e = k | u64::from(value) << 48 | mv << 56 | class << 61;
        let first = self.entries[i].load(Relaxed);
        let slot = if first & KEY_BITS == k || first >> 61 <= class {
            i
        } else {
            i + 1
        };
        self.entries[slot].store(e, Relaxed);
    }

    /// Empties the entries in use (the others are zero already).
    pub fn clear(&self) {
        for e in &self.entries[self.base..self.base + 2 * self.buckets as usize] {
            e.store(0, Relaxed);
        }
    }

    /// Writes the table to `path` (a checkpoint: `CHECKPOINT_MAGIC`, buckets u64, shape u32,
    /// then every entry, then the CRC-32 of all that, little-endian), through a temporary
    /// file renamed at the end. Safe while threads search: every entry is one atomic word,
    /// whole in the file.
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        use std::io::Write;
        let tmp = path.with_extension("tmp");
        let shape = self.shape.lock().map_or(0, |s| *s);
        let write = || -> std::io::Result<()> {
            let mut f = CrcWriter::new(std::io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(&tmp)?,
            ));
            f.write_all(CHECKPOINT_MAGIC)?;
            f.write_all(&self.buckets.to_le_bytes())?;
            f.write_all(&shape.to_le_bytes())?;
            for e in &self.entries[self.base..self.base + 2 * self.buckets as usize] {
                f.write_all(&e.load(Relaxed).to_le_bytes())?;
            }
            f.seal()?
                .into_inner()
                .map_err(|e| e.into_error())?
                .sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| format!("checkpoint {}: {e}", path.display()))
    }

    /// Fills the table from a checkpoint written by `save` for a table of the same size
    /// (`TBLC4TT1`, before checkpoints carried a checksum, too). On an error the table is
    /// left empty.
    pub fn load(&self, path: &std::path::Path) -> Result<(), String> {
        use std::io::Read;
        let what = |e: String| format!("checkpoint {}: {e}", path.display());
        let mut f = CrcReader::new(std::io::BufReader::with_capacity(
            1 << 20,
            std::fs::File::open(path).map_err(|e| what(e.to_string()))?,
        ));
        let mut head = [0u8; 20];
        f.read_exact(&mut head)
            .map_err(|_| what("too short for a Connect Four solver checkpoint".into()))?;
        let checked = &head[..8] == CHECKPOINT_MAGIC;
        if !checked && &head[..8] != CHECKPOINT_MAGIC_V1 {
            return Err(what("not a Connect Four solver checkpoint".into()));
        }
        let mut b = [0u8; 8];
        b.copy_from_slice(&head[8..16]);
        let buckets = u64::from_le_bytes(b);
        if buckets != self.buckets {
            return Err(what(format!(
                "written for a table of {buckets} buckets, this one has {} (use the same --hash)",
                self.buckets
            )));
        }
        let shape = u32::from_le_bytes([head[16], head[17], head[18], head[19]]);
        let mut word = [0u8; 8];
        for e in &self.entries[self.base..self.base + 2 * self.buckets as usize] {
            if let Err(err) = f.read_exact(&mut word) {
                self.clear();
                return Err(what(format!("cut short: {err}")));
            }
            e.store(u64::from_le_bytes(word), Relaxed);
        }
        if checked && let Err(e) = f.check_seal() {
            self.clear();
            return Err(what(e));
        }
        if let Ok(mut s) = self.shape.lock() {
            *s = shape;
        }
        Ok(())
    }
}

/// The first bytes of a solver checkpoint file (and of one from before checksums).
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"TBLC4TT2";
pub const CHECKPOINT_MAGIC_V1: &[u8; 8] = b"TBLC4TT1";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_restores_every_entry() {
        let t = SolverTable::with_bytes(2 << 20).expect("a table");
        t.use_shape(7 << 8 | 6);
        for k in 0..5000u64 {
            t.put(
                k * 7919,
                (k % 200 + 1) as u8,
                Some((k % 7) as u32),
                (k % 42) as u32,
            );
        }
        let path = std::env::temp_dir().join(format!("c4-ckpt-{}", std::process::id()));
        t.save(&path).expect("saved");
        let u = SolverTable::with_bytes(2 << 20).expect("a table");
        u.load(&path).expect("loaded");
        for k in 0..5000u64 {
            assert_eq!(u.get(k * 7919), t.get(k * 7919));
        }
        // The same shape keeps the entries; a table of another size refuses the file.
        u.use_shape(7 << 8 | 6);
        assert_eq!(u.get(7919), t.get(7919));
        let small = SolverTable::with_bytes(1 << 20).expect("a table");
        assert!(small.load(&path).is_err_and(|e| e.contains("--hash")));
        // A flipped byte among the entries is refused and leaves the table empty.
        let mut bytes = std::fs::read(&path).expect("the checkpoint");
        let at = bytes.len() / 2;
        bytes[at] ^= 0x5a;
        std::fs::write(&path, &bytes).expect("written");
        assert!(
            u.load(&path)
                .is_err_and(|e| e.contains("checksum mismatch"))
        );
        assert_eq!(u.get(7919), Probe::default());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_bucket_is_the_key_modulo_the_bucket_count() {
        let t = SolverTable::with_bytes(3 << 20).expect("a table");
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for k in [
            0,
            1,
            t.buckets - 1,
            t.buckets,
            t.buckets + 1,
            u64::MAX,
            u64::MAX - 1,
        ] {
            assert_eq!(t.bucket(k), t.base + 2 * (k % t.buckets) as usize);
        }
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(t.bucket(x), t.base + 2 * (x % t.buckets) as usize);
        }
    }

    #[test]
    fn primes_and_round_trip() {
        assert_eq!(prime_at_most(100_000), 99_991);
        assert_eq!(prime_at_most(10), MIN_BUCKETS);
        let t = SolverTable::with_bytes(4 << 20).expect("4 MiB");
        assert!(t.buckets > MIN_BUCKETS && t.buckets % 2 == 1);
        // Keys equal modulo the bucket count and in their low 48 bits differ by a multiple
        // of buckets * 2^48: more than 64 bits, so any two 64-bit keys are told apart.
        let (a, b) = (12_345u64, 12_345u64 + t.buckets);
        t.put(a, 7, Some(3), 30);
        assert_eq!(
            t.get(a),
            Probe {
                value: 7,
                best: Some(3)
            }
        );
        assert_eq!(t.get(b), Probe::default());
        t.put(b, 9, None, 5);
        assert_eq!(t.get(a).value, 7, "the deeper entry stays");
        assert_eq!(
            t.get(b),
            Probe {
                value: 9,
                best: None
            }
        );
        t.clear();
        assert_eq!(t.get(a), Probe::default());
    }

    #[test]
    fn a_resized_table_keeps_nothing_and_grows_back() {
        let full = SolverTable::with_bytes(8 << 20).expect("8 MiB").buckets;
        let mut t = SolverTable::with_bytes_using(8 << 20, 2 << 20).expect("8 MiB");
        assert!(t.buckets < full && t.buckets > MIN_BUCKETS && t.bytes() <= 2 << 20);
        assert_eq!(t.capacity_bytes(), (full * 16) as usize);
        for k in 0..1000u64 {
            t.put(k * 7919, 5, Some(1), 20);
        }
        assert_eq!(t.get(7919).value, 5);
        t.resize(1 << 30);
        assert_eq!(t.buckets, full, "no larger than it was made");
        for k in 0..1000u64 {
            assert_eq!(t.get(k * 7919), Probe::default());
        }
        for k in [0, 1, full - 1, full, u64::MAX] {
            assert_eq!(t.bucket(k), t.base + 2 * (k % full) as usize);
        }
    }
}
