//! Playing below full strength, for every game: a skill level (0..=20; 20 is full strength)
//! turned into a node budget, a number of root lines and a temperature, and the weakened
//! choice among the root lines of the last completed iteration: a softmax over their scores
//! within a margin of the best, never a proven loss where another move avoids it, and never a
//! missed proven win from level 10 up. The choice is deterministic for a given seed and root.
//!
//! The protocol layer maps `UCI_Elo` (chess) to a level with `level_of_elo`; the calibration
//! behind that table is in `protocol/strength.md`.

use super::{MATE_BOUND, Score};
use crate::bits::mix;

/// The highest level: full strength, no weakening at all.
pub const FULL: f64 = 20.0;

/// How strongly to play. `level` may be fractional (a `UCI_Elo` between two levels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    pub level: f64,
    /// Mixed with the root's hash: the same seed and position give the same move.
    pub seed: u64,
}

/// `UCI_Elo` -> level, measured (protocol/strength.md, round 6); linear between the points.
/// Each setting scores about half against Stockfish 15.1 at the same rating on Stockfish 16's
/// scale (CCRL Blitz), both sides node- or depth-bound, with the network fbc4fa2f.
const ELO_LEVELS: &[(f64, f64)] = &[
    (1000.0, 1.05),
    (1250.0, 2.8),
    (1500.0, 5.2),
    (2000.0, 10.6),
    (2400.0, 15.0),
    (2800.0, 19.8),
];

pub const MIN_ELO: u32 = 1000;
pub const MAX_ELO: u32 = 2800;

/// The level that plays at about `elo` (clamped to the calibrated range).
pub fn level_of_elo(elo: u32) -> f64 {
    let e = f64::from(elo.clamp(MIN_ELO, MAX_ELO));
    for w in ELO_LEVELS.windows(2) {
        let ((e0, l0), (e1, l1)) = (w[0], w[1]);
        if e <= e1 {
            return l0 + (l1 - l0) * (e - e0) / (e1 - e0);
        }
    }
    ELO_LEVELS[ELO_LEVELS.len() - 1].1
}

impl Strength {
    /// True when nothing is weakened.
    pub fn is_full(&self) -> bool {
        self.level >= FULL
    }

    fn clamped(&self) -> f64 {
        self.level.clamp(0.0, FULL)
    }

    /// Nodes a move may search: 40 at level 0, doubling about every 1.6 levels.
    pub fn nodes(&self) -> u64 {
        (40.0 * 2f64.powf(self.clamped() / 1.6)) as u64
    }

    /// Root lines searched and chosen among: four, then two from level 16 and one from 18,
    /// where the temperature (3 centipawns at 17, 1.2 at 18) leaves little to choose and the
    /// extra lines would only cost the search (the top settings could not reach their names
    /// with four; protocol/strength.md, round 6).
    pub fn lines(&self) -> usize {
        match self.clamped() {
            l if l < 16.0 => 4,
            l if l < 18.0 => 2,
            _ => 1,
        }
    }

    /// Softmax temperature in score units (centipawns in chess): 120 at level 0, falling to
    /// nothing at full strength.
    pub fn temperature(&self) -> f64 {
        let weak = (FULL - self.clamped()) / FULL;
        120.0 * weak * weak
    }

    /// The largest loss against the best line a choice may take.
    pub fn margin(&self) -> Score {
        (3.0 * self.temperature()) as Score
    }

    /// Picks one of `scores` (best first, the root lines of the last completed iteration):
    /// the index of the line to play.
    pub fn choose(&self, scores: &[Score], root_hash: u64) -> usize {
        let Some(&best) = scores.first() else {
            return 0;
        };
        if self.is_full() || scores.len() == 1 {
            return 0;
        }
        // A proven win is kept from level 10 up; a proven loss is never chosen over a move
        // that is not one.
        if best >= MATE_BOUND && self.level >= 10.0 {
            return 0;
        }
        let t = self.temperature().max(1e-3);
        let margin = self.margin();
        let weights: Vec<f64> = scores
            .iter()
            .map(|&s| {
                let lost = best.saturating_sub(s);
                if lost > margin || (s <= -MATE_BOUND && best > -MATE_BOUND) {
                    0.0
                } else {
                    (-f64::from(lost) / t).exp()
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let unit =
            (mix(self.seed ^ root_hash ^ 0x6a09_e667_f3bc_c909) >> 11) as f64 / (1u64 << 53) as f64;
        let mut target = unit * total;
        for (i, w) in weights.iter().enumerate() {
            if target < *w {
                return i;
            }
            target -= w;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::MATE;

    #[test]
    fn elo_maps_monotonically_onto_levels() {
        assert_eq!(level_of_elo(0), ELO_LEVELS[0].1);
        assert_eq!(level_of_elo(5000), ELO_LEVELS[ELO_LEVELS.len() - 1].1);
        let mut last = -1.0;
        for elo in (MIN_ELO..=MAX_ELO).step_by(50) {
            let l = level_of_elo(elo);
            assert!(l > last, "{elo}: {l} after {last}");
            last = l;
        }
        assert!(last < FULL);
    }

    #[test]
    fn weaker_levels_search_less_and_wander_more() {
        let s = |level| Strength { level, seed: 1 };
        assert!(s(0.0).nodes() < s(10.0).nodes());
        assert!(s(0.0).lines() >= s(17.0).lines() && s(17.0).lines() > s(19.0).lines());
        assert_eq!(s(19.0).lines(), 1);
        assert!(s(10.0).nodes() < s(19.0).nodes());
        assert!(s(0.0).temperature() > s(10.0).temperature());
        assert_eq!(s(FULL).temperature(), 0.0);
    }

    #[test]
    fn choice_is_deterministic_varied_and_safe() {
        let weak = Strength {
            level: 0.0,
            seed: 7,
        };
        let scores = [30, 20, 10, 0];
        assert_eq!(weak.choose(&scores, 42), weak.choose(&scores, 42));
        let picks: std::collections::HashSet<usize> =
            (0..200).map(|h| weak.choose(&scores, h)).collect();
        assert!(picks.len() >= 3, "{picks:?}");
        // A mated line is never taken while another is not, at any level.
        let mated = [50, -MATE + 3];
        assert!((0..200).all(|h| weak.choose(&mated, h) == 0));
        // A blunder beyond the margin is never taken.
        let strong = Strength {
            level: 15.0,
            seed: 7,
        };
        let blunder = [100, 100 - strong.margin() - 1];
        assert!((0..200).all(|h| strong.choose(&blunder, h) == 0));
        // A proven win is kept from level 10 up.
        let win = [MATE - 1, MATE - 5];
        assert!((0..200).all(|h| strong.choose(&win, h) == 0));
        // Full strength always plays the best line.
        let full = Strength {
            level: FULL,
            seed: 7,
        };
        assert!((0..200).all(|h| full.choose(&scores, h) == 0));
    }
}
