//! The transposition table, shared by all search threads (Lazy SMP) without locks.
//!
//! Each slot is two `AtomicU64`s: `key ^ data` and `data`. A reader accepts a slot only when
//! `stored_key ^ data == key`, so a torn write from another thread is seen as a miss, never as
//! a wrong entry. `data` packs: move key (16 bits) | score (16, signed) | eval (16, signed) |
//! depth (8) | bound (2) | generation (6).
//!
//! Scores near mate, and tablebase wins and losses (`TB_WIN - ply`), are stored relative to
//! the node (`to_tt`) and converted back relative to the root on probe (`from_tt`), so a
//! distance stays right wherever the entry is found.

use super::{MAX_PLY, Score, TB_WIN};

/// Scores at least this far from 0 count their distance from the root: mates and tablebase
/// results.
const PLY_BOUND: Score = TB_WIN - MAX_PLY as Score;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    pub mv: u16,
    pub score: Score,
    pub eval: Score,
    pub depth: i32,
    pub bound: Bound,
}

impl TtEntry {
    /// The stored bound settles the window `(alpha, beta)`.
    pub fn cuts(&self, alpha: Score, beta: Score) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
        }
    }
}

struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

/// Kept apart: one slot a key; move, score, eval, depth, bound; replaced by depth and search age.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    generation: AtomicU8,
}

const SLOT_BYTES: usize = 16;

impl TranspositionTable {
    pub fn new(mib: usize) -> Self {
        let count = (mib.max(1) << 20) / SLOT_BYTES;
        let slots = (0..count)
            .map(|_| Slot {
                key: AtomicU64::new(0),
                data: AtomicU64::new(0),
            })
            .collect();
        let tt = TranspositionTable {
            slots,
            generation: AtomicU8::new(0),
        };
        // Zeroed allocations are lazy; writing every slot now makes the memory resident here
        // (before `readyok`) rather than during the first searches.
        tt.clear();
        tt
    }

    pub fn clear(&self) {
        for s in &self.slots {
            s.key.store(0, Relaxed);
            s.data.store(0, Relaxed);
        }
        self.generation.store(0, Relaxed);
    }

    /// Called once per search so that old entries give way first.
    pub fn new_search(&self) {
        let g = self.generation.load(Relaxed);
        self.generation.store((g + 1) & 63, Relaxed);
    }

    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.slots.len() as u128) >> 64) as usize
    }

    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let slot = &self.slots[self.index(key)];
        let data = slot.data.load(Relaxed);
        if data == 0 || slot.key.load(Relaxed) ^ data != key {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(TtEntry {
            mv: data as u16,
            score: from_tt((data >> 16) as u16 as i16 as Score, ply),
            eval: (data >> 32) as u16 as i16 as Score,
            depth: ((data >> 48) & 0xff) as i32,
            bound,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: u16,
        score: Score,
        eval: Score,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        let slot = &self.slots[self.index(key)];
        let old = slot.data.load(Relaxed);
        let old_key = slot.key.load(Relaxed) ^ old;
        let generation = self.generation.load(Relaxed) as u64;
        if old != 0 && old_key == key {
            // Same position: keep a deeper entry unless this one is exact, and keep its move
            // if we have none.
            let old_depth = ((old >> 48) & 0xff) as i32;
            if bound != Bound::Exact && depth + 2 < old_depth && (old >> 58) == generation {
                return;
            }
        } else if old != 0 && (old >> 58) == generation {
            let old_depth = ((old >> 48) & 0xff) as i32;
            if depth + 3 < old_depth {
                return;
            }
        }
        let mv = if mv == 0 && old_key == key {
            old as u16
        } else {
            mv
        };
        let data = mv as u64
            | ((to_tt(score, ply) as i16 as u16 as u64) << 16)
            | ((eval.clamp(-32000, 32000) as i16 as u16 as u64) << 32)
            | ((depth.clamp(0, 255) as u64) << 48)
            | ((bound as u64) << 56)
            | (generation << 58);
        slot.key.store(key ^ data, Relaxed);
        slot.data.store(data, Relaxed);
    }

    /// Permille of sampled slots written in the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.slots.len().min(1000);
        if sample == 0 {
            return 0;
        }
        let generation = self.generation.load(Relaxed) as u64;
        let used = self.slots[..sample]
            .iter()
            .filter(|s| {
                let d = s.data.load(Relaxed);
                d != 0 && (d >> 58) == generation
            })
            .count();
        (used * 1000 / sample) as u32
    }

    pub fn size_mib(&self) -> usize {
        (self.slots.len() * SLOT_BYTES) >> 20
    }
}

fn to_tt(score: Score, ply: usize) -> Score {
    if score >= PLY_BOUND {
        score + ply as Score
    } else if score <= -PLY_BOUND {
        score - ply as Score
    } else {
        score
    }
}

fn from_tt(score: Score, ply: usize) -> Score {
    if score >= PLY_BOUND {
        score - ply as Score
    } else if score <= -PLY_BOUND {
        score + ply as Score
    } else {
        score
    }
}
