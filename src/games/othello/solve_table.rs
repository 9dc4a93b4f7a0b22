//! What the exact Othello solvers share (the big boards' one in `endgame_big`, the 8x8 one in
//! `endgame8`): the table of bounds (with the 8x8 predictions', `predict_table`, cleared with it),
//! the result they return, and the window narrowing by a stored bound pair. Below both solvers, so
//! neither imports the other for these.
//!
//! Table entries, two words a slot: `key ^ data`, then data = lower (i16) | upper (i16) |
//! best move (u16) | empties (u8) | selectivity (7 bits, 0: exact; `Table::get_sel`) | 1.
//! Four slots a bucket (one cache line): a key lives in any slot of its bucket, and a new key
//! takes the slot of the fewest empties (an empty slot first), so that the entries of large
//! subtrees stay while a long solve fills the table (FFO #49-#52, one thread, search +
//! ordering nodes: 859.0 M with one slot a key, replaced unless the old entry had more than
//! two empties more; 799.1 M with the buckets and `endgame8`'s `ORDER_FLOOR`).

use super::predict_table::PredictTable;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const TABLE_BITS: u32 = 22;
/// Slots a bucket: `2^WAYS_BITS`, 16 bytes each, a 64-byte cache line.
const WAYS_BITS: u32 = 2;
const WAYS: usize = 1 << WAYS_BITS;
/// Beyond every margin of every board (16x16: 256 discs): a bound that narrows nothing.
const NO_BOUND: i32 = 1024;

/// Narrows the window `(alpha, beta)` to a stored bound pair; `Some(score)` when that decides
/// the node (a lower bound at or above `beta`, an upper bound at or below `alpha`, or an
/// empty window).
#[inline]
pub fn narrow(lower: i32, upper: i32, alpha: &mut i32, beta: &mut i32) -> Option<i32> {
    if lower >= *beta {
        return Some(lower);
    }
    if upper <= *alpha {
        return Some(upper);
    }
    *alpha = (*alpha).max(lower);
    *beta = (*beta).min(upper);
    (*alpha >= *beta).then_some(*alpha)
}

/// Kept apart: exact or selective bounds, move, empties; four a bucket, the fewest empties go.
pub struct Table {
    /// Two words a slot (`key ^ data`, `data`) from `base` (a 2 MiB boundary, huge pages).
    words: Vec<AtomicU64>,
    base: usize,
    /// The 8x8 selective search's predictions, cleared with the table.
    pub predictions: PredictTable,
}

impl Table {
    /// A table of its own (the solvers share `table()`).
    pub(crate) fn new() -> Table {
        let (words, base) = crate::memory::huge_zeroed(2 << TABLE_BITS, false)
            .unwrap_or_else(|| std::process::abort());
        Table {
            words,
            base,
            predictions: PredictTable::new(),
        }
    }
    pub fn clear(&self) {
        self.clear_bounds();
        self.predictions.clear();
    }
    /// Clears the bounds, keeping the predictions (which never go stale).
    pub(crate) fn clear_bounds(&self) {
        for w in &self.words[self.base..] {
            w.store(0, Relaxed);
        }
    }
    /// The first word of `key`'s bucket: `WAYS` slots of two words, one cache line.
    fn bucket(&self, key: u64) -> usize {
        self.base + 2 * WAYS * (key >> (64 - TABLE_BITS + WAYS_BITS)) as usize
    }
    /// Starts loading the bucket of `key` (a hint).
    pub(super) fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.words[self.bucket(key)]);
    }
    pub(super) fn get(&self, key: u64) -> Option<(i32, i32, u16)> {
        self.get_sel(key, 0)
    }
    /// The slot (first word) of `key`'s bucket that holds its entry, and that entry's data.
    fn find(&self, key: u64) -> Option<(usize, u64)> {
        let b = self.bucket(key);
        (b..b + 2 * WAYS).step_by(2).find_map(|i| {
            let data = self.words[i + 1].load(Relaxed);
            (data != 0 && self.words[i].load(Relaxed) ^ data == key).then_some((i, data))
        })
    }
    /// The entry of `key` for a search of selectivity `sel` (0: exact; else a selective
    /// search's confidence / 4, 1..=127): bounds of an exact entry or of one at least as
    /// confident; of any other only the move (with bounds that narrow no window).
    pub(super) fn get_sel(&self, key: u64, sel: u32) -> Option<(i32, i32, u16)> {
        let (_, data) = self.find(key)?;
        let best = (data >> 32) as u16;
        let stored = ((data >> 56) & 0x7f) as u32;
        if stored != 0 && (sel == 0 || stored < sel) {
            return Some((-NO_BOUND, NO_BOUND, best));
        }
        Some((
            (data as u16 as i16) as i32,
            ((data >> 16) as u16 as i16) as i32,
            best,
        ))
    }
    /// Stores the bounds of a search of selectivity `sel` (see `get_sel`) at `empties`: in
    /// the slot that holds `key` already, else in the slot of its bucket whose entry has the
    /// fewest empties (the smallest subtree; an empty slot first).
    pub(super) fn put_sel(
        &self,
        key: u64,
        lower: i32,
        upper: i32,
        best: u16,
        empties: u32,
        sel: u32,
    ) {
        // One pass over the bucket: the key's own slot, else the one of the fewest empties.
        let b = self.bucket(key);
        let (mut i, mut fewest) = (b, u64::MAX);
        for j in (b..b + 2 * WAYS).step_by(2) {
            let data = self.words[j + 1].load(Relaxed);
            if data == 0 {
                if fewest > 0 {
                    (i, fewest) = (j, 0);
                }
                continue;
            }
            if self.words[j].load(Relaxed) ^ data == key {
                i = j;
                break;
            }
            let e = 1 + ((data >> 48) & 0xff);
            if e < fewest {
                (i, fewest) = (j, e);
            }
        }
        let data = (lower as i16 as u16 as u64)
            | ((upper as i16 as u16 as u64) << 16)
            | ((best as u64) << 32)
            | ((empties.min(255) as u64) << 48)
            | (((sel & 0x7f) as u64) << 56)
            | (1 << 63);
        self.words[i].store(key ^ data, Relaxed);
        self.words[i + 1].store(data, Relaxed);
    }
}

pub fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(Table::new)
}

pub struct SolveResult {
    pub margin: i32,
    pub best: u16,
    pub nodes: u64,
    /// The positions that the shallow searches ordering the moves visited (not in `nodes`;
    /// 0 where the solver has none).
    pub ordering_nodes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `i`-th key of bucket `b`: the bucket's top bits, different low bits.
    fn key(b: u64, i: u64) -> u64 {
        (b << (64 - TABLE_BITS + WAYS_BITS)) | (i + 1)
    }

    #[test]
    fn a_bucket_keeps_its_largest_subtrees() {
        let t = Table::new();
        let b = 12345;
        // Four keys of one bucket, 10 to 13 empties: all four kept.
        for i in 0..4 {
            t.put_sel(key(b, i), -(i as i32), i as i32, i as u16, 10 + i as u32, 0);
        }
        for i in 0..4 {
            assert_eq!(t.get(key(b, i)), Some((-(i as i32), i as i32, i as u16)));
        }
        // A fifth takes the slot of the fewest empties (key 0's, 10 empties).
        t.put_sel(key(b, 4), 1, 2, 7, 8, 0);
        assert_eq!(t.get(key(b, 4)), Some((1, 2, 7)));
        assert_eq!(t.get(key(b, 0)), None);
        for i in 1..4 {
            assert!(t.get(key(b, i)).is_some(), "key {i}");
        }
        // A key stored again replaces its own entry, whatever its empties.
        t.put_sel(key(b, 2), 5, 5, 3, 9, 0);
        assert_eq!(t.get(key(b, 2)), Some((5, 5, 3)));
        for i in [1, 3, 4] {
            assert!(t.get(key(b, i)).is_some(), "key {i}");
        }
        // A selective entry (20 empties) takes key 4's slot (8 empties); to an exact search
        // it gives its move alone, to a search as confident its bounds.
        t.put_sel(key(b, 5), 3, 9, 11, 20, 37);
        assert_eq!(t.get(key(b, 4)), None);
        assert_eq!(t.get(key(b, 5)), Some((-NO_BOUND, NO_BOUND, 11)));
        assert_eq!(t.get_sel(key(b, 5), 37), Some((3, 9, 11)));
        // Another bucket is untouched.
        assert_eq!(t.get(key(b + 1, 0)), None);
    }
}
