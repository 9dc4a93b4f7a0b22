//! The selective search of the boards from 10x10 to 16x16, as the exact search's selective
//! pre-search (8x8's idea, `endgame8::probcut`, which says it at length): at a node of
//! `MIN_EMPTIES` or more empties the board's learned pattern evaluation (`BigNet`, the
//! embedded weights) predicts the exact margin; where the prediction clears beta (or falls
//! short of alpha) by `t` standard deviations of its error (`sigma`), the node returns that
//! bound without a search below it.
//!
//! The exact search runs it to order (`presearch`): at a node of `PRESEARCH_MIN_EMPTIES` or
//! more that the table knows nothing of, a selective search of the node at
//! `PRESEARCH_CONFIDENCE` first leaves its moves in the table, and the exact search tries them
//! first; it takes no bound of it (`Table::get_sel`: a selective entry gives an exact search
//! its move only), so the margin stays exact. The prediction is the evaluation itself: a
//! one- or two-ply search of it errs hardly less on these boards (`sigma`) and costs a
//! pattern evaluation of every child. Scores: final disc margins for the side to move, as in
//! the exact search; the prediction and `sigma` in hundredths of a disc.

use super::super::PASS;
use super::super::endgame8::Confidence;
use super::search::Solver;
use crate::bits::Bits;

/// Probable cuts from this many empties.
const MIN_EMPTIES: u32 = 8;

/// The exact search's selective pre-search: from `search::PRESEARCH_MIN_EMPTIES` empties
/// (the solver's default `presearch_min`), at this confidence (protocol/benchmarks.md, "A
/// selective pre-search in the big boards' solver": the nodes at confidences from 0.25 to
/// 1.5 and from 14, 16 and 18 empties).
const PRESEARCH_CONFIDENCE: Confidence = Confidence(80);

/// The standard deviation (hundredths of a disc) of the evaluation's error against the exact
/// margin on a board of side `n`: its root mean square at 10 to 17 empties
/// (`calibrate_big_probcut_sigma`, 60 positions a size; one ply of search: 1490, 1690, 2110,
/// 2410; two: 1450, 1680, 2070, 2270).
pub(super) fn sigma(n: u32) -> i32 {
    match n {
        ..=10 => 1560,
        11..=12 => 1780,
        13..=14 => 2180,
        _ => 2560,
    }
}

impl<B: Bits> Solver<'_, B> {
    /// The selectivity stored with this search's table entries (`Table::get_sel`).
    pub(super) fn sel(&self) -> u32 {
        Confidence::selectivity(self.cut)
    }

    /// The predicted margin of `me` to move against `opp`, in hundredths of a disc (0
    /// without weights).
    pub(super) fn predict(&self, me: B, opp: B) -> i32 {
        self.net
            .map_or(0, |net| net.evaluate_discs(&self.g, me, opp))
    }

    /// A probable cut at this node of `ne` empties (`Some(bound)`), or `None`.
    /// Kept apart: predicts with the static pattern evaluation alone, one `sigma` a board size.
    pub(super) fn probable_cut(
        &self,
        me: B,
        opp: B,
        ne: u32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let c = self.cut?;
        if ne < MIN_EMPTIES || self.net.is_none() {
            return None;
        }
        let margin = c.0 as i32 * sigma(self.g.n) / 100;
        let v = self.predict(me, opp);
        if beta < self.total && v >= beta * 100 + margin {
            return Some(beta);
        }
        if alpha > -self.total && v <= alpha * 100 - margin {
            return Some(alpha);
        }
        None
    }

    /// The exact search's ordering at a node the table knows nothing of (`key` its key): a
    /// selective search of it with the same window, for the move it leaves in the table
    /// (returned; `PASS` if none).
    pub(super) fn presearch(
        &mut self,
        me: B,
        opp: B,
        alpha: i32,
        beta: i32,
        passed: bool,
        key: u64,
    ) -> u16 {
        debug_assert!(self.cut.is_none());
        self.cut = Some(PRESEARCH_CONFIDENCE);
        self.search(me, opp, alpha, beta, passed);
        self.cut = None;
        self.table.get_sel(key, 0).map_or(PASS, |e| e.2)
    }
}

#[cfg(test)]
mod tests;
