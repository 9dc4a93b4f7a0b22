//! The quiescence search at the leaves of the alpha-beta: captures (all legal moves when in
//! check) until the position is quiet, standing pat on the corrected static evaluation.
//!
//! Score convention: from the side to move, as in `node.rs`; fail-soft, and the result is
//! stored in the table at depth 0 with the bound it proves (a stand-pat leaf with no move to
//! look at is not stored).

use super::node::refine_by_entry;
use super::tt::Bound;
use super::worker::{Worker, outcome_score};
use super::{INF, MAX_PLY, Score};
use crate::game::Game;

impl<G: Game> Worker<'_, G> {
    pub(super) fn qsearch(&mut self, pos: &G, mut alpha: Score, beta: Score, ply: usize) -> Score {
        if let Some(v) = self.enter(pos, ply) {
            return v;
        }
        if ply >= MAX_PLY - 1 {
            return pos.evaluate();
        }
        let key = pos.hash();
        let entry = self.tt.probe(key, ply);
        if let Some(e) = entry
            && e.cuts(alpha, beta)
        {
            return e.score;
        }
        let alpha_orig = alpha;
        let in_check = pos.in_check();
        let mut moves = std::mem::take(&mut self.moves[ply]);
        let mut best;
        let mut raw = 0;
        if in_check {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                self.moves[ply] = moves;
                return outcome_score(pos.outcome_without_moves(), ply);
            }
            best = -INF;
        } else {
            raw = entry.map_or_else(|| pos.evaluate(), |e| e.eval);
            let stand = refine_by_entry(self.corrected(pos, raw), entry.as_ref());
            if stand >= beta {
                self.moves[ply] = moves;
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            pos.tactical_moves(&mut moves);
        }
        let tt_move = entry.map_or(0, |e| e.mv);
        moves.sort_unstable_by_key(|&m| {
            if G::move_key(m) == tt_move {
                i32::MIN
            } else {
                -pos.order_score(m)
            }
        });
        let mut best_key = 0;
        for &mv in moves.iter() {
            // Captures that lose material cannot help (unless evading check).
            if !in_check && G::FUTILITY_MARGIN > 0 && !pos.see_ge(mv, 0) {
                continue;
            }
            let mut child = pos.clone();
            child.play(mv);
            let v = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_key = G::move_key(mv);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let examined = !moves.is_empty();
        self.moves[ply] = moves;
        // Stand-pat leaves with nothing to look at are not worth a table slot.
        if !self.stopped && examined && best > -INF {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_orig {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt.store(key, best_key, best, raw, 0, bound, ply);
        }
        best
    }
}
