//! The table of the 8x8 selective search's predictions (`endgame8::Solver::shallow` when a
//! probable cut asks it, `probcut`): bounds on the value of a position searched `depth` plies
//! deep on the embedded pattern evaluation (hundredths of a disc, for the side to move) and
//! the move that reached it. That value is a function of the position and the depth alone (the
//! solver's weights are the embedded ones, fixed for the process), so an entry never goes
//! stale: the predictions of one node serve its next visit, the next confidence level and the
//! overlapping predictions of its children. It is cleared with the solve table
//! (`Table::clear`), so that a search from a cleared table repeats its node counts.
//!
//! One slot a key (the last store wins), two words: `key ^ data`, then data = lower (i16) |
//! upper (i16) | best square (u8; 64: none) | depth (u8) | 1 at bit 63. A bound beyond
//! `LIMIT` is stored as none (`NONE`), so a stored bound is always sound.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const BITS: u32 = 20;
/// Stored bounds lie within +-`LIMIT` hundredths of a disc (an evaluation never comes near).
const LIMIT: i32 = 30_000;
/// The stored value of a missing bound: below every lower bound, above every upper one.
const NONE: i32 = i16::MAX as i32;

/// Kept apart: key mixed with depth; heuristic bounds, never stale; one slot, the last store wins.
pub struct PredictTable {
    /// Two words a slot (`key ^ data`, `data`) from `base` (a 2 MiB boundary).
    words: Vec<AtomicU64>,
    base: usize,
}

/// What the table holds of a position at a depth.
pub struct Prediction {
    pub lower: i32,
    pub upper: i32,
    /// The best move's square, 64 when none.
    pub best: u32,
}

impl PredictTable {
    pub(super) fn new() -> PredictTable {
        let (words, base) =
            crate::memory::huge_lazy(2 << BITS, false).unwrap_or_else(|| std::process::abort());
        PredictTable { words, base }
    }
    pub(super) fn clear(&self) {
        for w in &self.words[self.base..] {
            w.store(0, Relaxed);
        }
    }
    /// `key` (the position's) for `depth` plies.
    fn key(key: u64, depth: u32) -> u64 {
        key ^ crate::bits::mix(depth as u64 + 1)
    }
    fn slot(&self, key: u64) -> usize {
        self.base + 2 * (key >> (64 - BITS)) as usize
    }
    /// What is stored of the position of `key` (`Solver::key`) searched `depth` plies.
    pub fn get(&self, key: u64, depth: u32) -> Option<Prediction> {
        let key = Self::key(key, depth);
        let i = self.slot(key);
        let data = self.words[i + 1].load(Relaxed);
        if data == 0 || self.words[i].load(Relaxed) ^ data != key {
            return None;
        }
        let lower = data as u16 as i16 as i32;
        let upper = (data >> 16) as u16 as i16 as i32;
        Some(Prediction {
            lower: if lower == NONE { -i32::MAX } else { lower },
            upper: if upper == NONE { i32::MAX } else { upper },
            best: ((data >> 32) & 0xff) as u32,
        })
    }
    /// Stores the value `v` of a fail-soft search of the position of `key`, `depth` plies, in
    /// the window (`alpha`, `beta`), and its best move (`best`, 64 when none).
    pub fn put(&self, key: u64, depth: u32, v: i32, alpha: i32, beta: i32, best: u32) {
        let fits = |x: i32| (-LIMIT..=LIMIT).contains(&x);
        let lower = if v > alpha && fits(v) { v } else { NONE };
        let upper = if v < beta && fits(v) { v } else { NONE };
        let key = Self::key(key, depth);
        let data = (lower as i16 as u16 as u64)
            | ((upper as i16 as u16 as u64) << 16)
            | (((best & 0xff) as u64) << 32)
            | (((depth & 0xff) as u64) << 40)
            | (1 << 63);
        let i = self.slot(key);
        self.words[i].store(key ^ data, Relaxed);
        self.words[i + 1].store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_come_back_as_stored_and_only_sound() {
        let t = PredictTable::new();
        // An exact value (inside the window), a fail high, a fail low.
        t.put(7, 3, 120, 100, 200, 19);
        let e = t.get(7, 3).map(|e| (e.lower, e.upper, e.best));
        assert_eq!(e, Some((120, 120, 19)));
        assert!(t.get(7, 2).is_none(), "another depth is another entry");
        t.put(7, 3, 250, 100, 200, 20);
        let e = t.get(7, 3).map(|e| (e.lower, e.upper));
        assert_eq!(e, Some((250, i32::MAX)));
        t.put(7, 3, -90, 100, 200, 64);
        let e = t.get(7, 3).map(|e| (e.lower, e.upper, e.best));
        assert_eq!(e, Some((-i32::MAX, -90, 64)));
        // A value beyond the stored range bounds nothing.
        t.put(9, 1, -40_000, -50_000, 0, 3);
        let e = t.get(9, 1).map(|e| (e.lower, e.upper));
        assert_eq!(e, Some((-i32::MAX, i32::MAX)));
        t.clear();
        assert!(t.get(7, 3).is_none());
    }
}
