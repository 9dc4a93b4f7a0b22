//! Probable cuts in the heuristic search (Buro's ProbCut, as Othello programs run it in the
//! midgame): at a non-PV node `depth` plies deep, a null-window search `shallow` plies deep
//! (`shallow_depth`) predicts the deep one; where the prediction clears beta (or falls short of
//! alpha) by `CONFIDENCE` standard deviations of the difference between the two, measured by
//! the game for its own evaluation (`SearchHints::eval_error_sigma`), the node returns that bound
//! without the deep search. Only for games that give such a measure (Othello); the shallow
//! searches may cut in turn (multi-level).
//!
//! Invariants: never at a PV node, in check, under a singular exclusion, or with a proven
//! (mate or tablebase) bound in the window; the shallow searches run at the node's own ply
//! before its move loop takes the ply's buffers.

use super::worker::Worker;
use super::{MATE_BOUND, Score};
use crate::game::Game;

/// Probable cuts from this remaining depth.
const MIN_DEPTH: i32 = 4;
/// `t`, in hundredths of a standard deviation (150: a cut is wrong about 7% of the time where
/// the difference is normal).
const CONFIDENCE: i32 = 150;

/// The shallow search's depth for a node `depth` plies deep (about half of it, of the same
/// parity; Egaroucid's choice).
pub(super) fn shallow_depth(depth: i32) -> i32 {
    ((depth >> 2) << 1) | (depth & 1)
}

impl<G: Game> Worker<'_, G> {
    /// A probable cut at this non-PV node (`Some(bound)`), or `None`.
    /// Kept apart: predicts with this search's own negamax, at a margin that the game measures.
    pub(super) fn probable_cut(
        &mut self,
        pos: &G,
        depth: i32,
        alpha: Score,
        beta: Score,
        ply: usize,
        cut_node: bool,
    ) -> Option<Score> {
        if depth < MIN_DEPTH {
            return None;
        }
        let shallow = shallow_depth(depth);
        let margin = pos.eval_error_sigma(depth, shallow)? * CONFIDENCE / 100;
        let high = beta + margin;
        if high < MATE_BOUND {
            let v = self.negamax(pos, shallow, high - 1, high, ply, cut_node);
            if self.stopped {
                return Some(0);
            }
            if v >= high {
                return Some(beta);
            }
        }
        let low = alpha - margin;
        if low > -MATE_BOUND {
            let v = self.negamax(pos, shallow, low, low + 1, ply, !cut_node);
            if self.stopped {
                return Some(0);
            }
            if v <= low {
                return Some(alpha);
            }
        }
        None
    }
}
