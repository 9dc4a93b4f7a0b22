//! What a search thread learns while it searches, kept from move to move (cleared by a new
//! game): the quiet-move history by side and `SearchHints::history_key`, the capture history by
//! `cont_key` and victim, continuation histories (a move's value after the move one and two
//! plies before it, by `cont_key`s), and the correction history that nudges the static
//! evaluation towards what searches found, by side and `SearchHints::structure_key`.
//!
//! Every value moves by "gravity" updates (`gravity`): it stays within +-`MAX` and a bonus
//! counts for less the closer the value already is to the limit.

use crate::game::{CONT_SIZE, HISTORY_SIZE};

pub const MAX: i32 = 16384;
/// Correction-history slots per side.
const CORRECTION: usize = 16384;
/// Correction values are kept in 1/`CORRECTION_GRAIN` of an evaluation unit.
const CORRECTION_GRAIN: i32 = 256;
/// The sentinel continuation key: no move (the root, a null move).
pub const NO_CONT: usize = CONT_SIZE - 1;

pub struct Tables {
    quiet: Vec<i16>,
    capture: Vec<i16>,
    /// Two tables (one ply back, two plies back), each `CONT_SIZE x CONT_SIZE`.
    cont: Vec<i16>,
    correction: Vec<i16>,
}

pub fn gravity(v: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-MAX, MAX);
    let e = *v as i32;
    *v = (e + bonus - e * bonus.abs() / MAX).clamp(-MAX, MAX) as i16;
}

/// The history bonus of a move that caused a cutoff at `depth`.
pub fn bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth + 16).min(1600)
}

impl Default for Tables {
    fn default() -> Self {
        Tables {
            quiet: vec![0; 2 * HISTORY_SIZE],
            capture: vec![0; CONT_SIZE * 8],
            cont: vec![0; 2 * CONT_SIZE * CONT_SIZE],
            correction: vec![0; 2 * CORRECTION],
        }
    }
}

impl Tables {
    pub fn clear(&mut self) {
        for t in [
            &mut self.quiet,
            &mut self.capture,
            &mut self.cont,
            &mut self.correction,
        ] {
            t.iter_mut().for_each(|v| *v = 0);
        }
    }

    pub fn quiet(&self, side: usize, key: usize) -> i32 {
        self.quiet[side * HISTORY_SIZE + key] as i32
    }

    pub fn quiet_mut(&mut self, side: usize, key: usize) -> &mut i16 {
        &mut self.quiet[side * HISTORY_SIZE + key]
    }

    pub fn capture(&self, cont: usize, victim: usize) -> i32 {
        self.capture[cont * 8 + victim] as i32
    }

    pub fn capture_mut(&mut self, cont: usize, victim: usize) -> &mut i16 {
        &mut self.capture[cont * 8 + victim]
    }

    /// Continuation history of `key` after `prev` (`back` = 0: the previous ply, 1: two back).
    pub fn cont(&self, back: usize, prev: usize, key: usize) -> i32 {
        self.cont[(back * CONT_SIZE + prev) * CONT_SIZE + key] as i32
    }

    pub fn cont_mut(&mut self, back: usize, prev: usize, key: usize) -> &mut i16 {
        &mut self.cont[(back * CONT_SIZE + prev) * CONT_SIZE + key]
    }

    /// The correction to add to a static evaluation, in evaluation units.
    pub fn correction(&self, side: usize, key: u64) -> i32 {
        self.correction[side * CORRECTION + (key as usize % CORRECTION)] as i32 / CORRECTION_GRAIN
    }

    /// Moves the correction for this structure towards `diff` (search result minus static
    /// evaluation), more for deeper searches.
    pub fn correct(&mut self, side: usize, key: u64, diff: i32, depth: i32) {
        let slot = &mut self.correction[side * CORRECTION + (key as usize % CORRECTION)];
        let target = (diff * CORRECTION_GRAIN).clamp(-MAX * 2, MAX * 2);
        let weight = (depth + 1).min(16);
        let v = *slot as i32;
        *slot = ((v * (256 - weight) + target * weight) / 256).clamp(-MAX, MAX) as i16;
    }
}
