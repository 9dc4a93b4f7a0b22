//! What the exact Othello solvers share (the general one in `endgame`, the 8x8 one in
//! `endgame8`): the table of bounds, the result they return, and the window narrowing by a
//! stored bound pair. Below both solvers, so neither imports the other for these.
//!
//! Table entries, two words a slot: `key ^ data`, then data = lower (i16) | upper (i16) |
//! best move (u16) | empties (u8) | selectivity (7 bits, 0: exact; `Table::get_sel`) | 1.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const TABLE_BITS: u32 = 22;
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

pub struct Table {
    /// Two words a slot (`key ^ data`, `data`) from `base` (a 2 MiB boundary, huge pages).
    words: Vec<AtomicU64>,
    base: usize,
}

impl Table {
    fn new() -> Table {
        let (words, base) = crate::memory::huge_zeroed(2 << TABLE_BITS, false)
            .unwrap_or_else(|| std::process::abort());
        Table { words, base }
    }
    pub fn clear(&self) {
        for w in &self.words[self.base..] {
            w.store(0, Relaxed);
        }
    }
    fn slot(&self, key: u64) -> usize {
        self.base + 2 * (key >> (64 - TABLE_BITS)) as usize
    }
    /// Starts loading the slot of `key` (a hint).
    pub(super) fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.words[self.slot(key)]);
    }
    pub(super) fn get(&self, key: u64) -> Option<(i32, i32, u16)> {
        self.get_sel(key, 0)
    }
    /// The entry of `key` for a search of selectivity `sel` (0: exact; else a selective
    /// search's confidence / 4, 1..=127): bounds of an exact entry or of one at least as
    /// confident; of any other only the move (with bounds that narrow no window).
    pub(super) fn get_sel(&self, key: u64, sel: u32) -> Option<(i32, i32, u16)> {
        let i = self.slot(key);
        let data = self.words[i + 1].load(Relaxed);
        if data == 0 || self.words[i].load(Relaxed) ^ data != key {
            return None;
        }
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
    /// Stores the bounds of a search of selectivity `sel` (see `get_sel`) at `empties`.
    pub(super) fn put_sel(
        &self,
        key: u64,
        lower: i32,
        upper: i32,
        best: u16,
        empties: u32,
        sel: u32,
    ) {
        let i = self.slot(key);
        // Depth-preferred: a deeper subtree's entry gives way only to one nearly as deep.
        let old = self.words[i + 1].load(Relaxed);
        if old != 0
            && self.words[i].load(Relaxed) ^ old != key
            && ((old >> 48) & 0xff) as u32 > empties + 2
        {
            return;
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
