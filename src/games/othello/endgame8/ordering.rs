//! The solver's move order: `order_score` ranks a move by the opponent's replies after it
//! (fastest first), corner stability, potential mobility and parity, and from
//! `SHALLOW_MIN_EMPTIES` by a shallow search of the pattern evaluation (`shallow`, which the
//! probable cuts' predictions also run); `quick_eval` where no weights are loaded. Ordering
//! only: the solver's scores stay exact whatever it returns.

use super::*;

impl Solver<'_> {
    /// A cheap evaluation (mobility, corners) for move ordering.
    pub(super) fn quick_eval(p: u64, o: u64) -> i32 {
        let mm = moves(p, o);
        let om = moves(o, p);
        16 * (mm.count_ones() as i32 - om.count_ones() as i32)
            + 64 * ((p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32)
            + 32 * ((mm & CORNERS).count_ones() as i32 - (om & CORNERS).count_ones() as i32)
    }

    /// A shallow alpha-beta on the pattern evaluation (`quick_eval` without weights), for
    /// ordering and the probable cuts' predictions (`PREDICT`: from `PREDICT_TABLE_DEPTH`
    /// plies through the prediction table, `predict_table`): from `SHALLOW_ORDER_DEPTH` plies
    /// its moves are tried the table's first, then fewest replies first, below it by the
    /// groups of `SHALLOW_ORDER`. Fail-soft; `scale` divides the evaluation (hundredths of a
    /// disc).
    pub(super) fn shallow<const PREDICT: bool>(
        &mut self,
        p: u64,
        o: u64,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        scale: i32,
    ) -> i32 {
        self.ordering_nodes += 1;
        if depth == 0 {
            return match self.net {
                Some(net) => net.evaluate(p, o) / scale,
                None => Self::quick_eval(p, o),
            };
        }
        let mut m = moves(p, o);
        if m == 0 {
            return -self.shallow::<PREDICT>(o, p, depth - 1, -beta, -alpha, scale);
        }
        let mut best = -i32::MAX;
        if depth < SHALLOW_ORDER_DEPTH {
            // At the last ply with weights, each child's pattern indices from this position's
            // seen by the opponent, a move's update apart (`patterns::after`).
            let view = self
                .net
                .filter(|_| depth == 1)
                .map(|net| (net, local_indices(o, p)));
            let discs = (p | o).count_ones() + 1;
            for mask in SHALLOW_ORDER {
                let mut mm = m & mask;
                while mm != 0 {
                    let sq = mm.trailing_zeros();
                    mm &= mm - 1;
                    let f = flips(p, o, sq);
                    let v = match &view {
                        Some((net, view)) => {
                            self.ordering_nodes += 1;
                            -(net.evaluate_local(discs, &after(view, sq, f)) / scale)
                        }
                        None => {
                            let (np, no) = (o & !f, p | f | 1 << sq);
                            -self.shallow::<PREDICT>(np, no, depth - 1, -beta, -alpha, scale)
                        }
                    };
                    if raise(v, &mut best, &mut alpha, beta) {
                        return best;
                    }
                }
            }
            return best;
        }
        let tabled = PREDICT && depth >= PREDICT_TABLE_DEPTH;
        let key = if tabled { Self::key(p, o) } else { 0 };
        let mut first = 64;
        if tabled && let Some(e) = self.table.predictions.get(key, depth) {
            if e.lower >= beta {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            first = e.best;
        }
        let alpha_orig = alpha;
        // (order: the table's move 0, else 1 + the replies; square; position after the
        // move): an Othello position has at most 33 moves.
        let mut list = [(0, 0, 0, 0); 34];
        let mut n = 0;
        while m != 0 && n < list.len() {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, sq);
            let (np, no) = (o & !f, p | f | 1 << sq);
            let order = if sq == first {
                0
            } else {
                1 + moves(np, no).count_ones()
            };
            list[n] = (order, sq, np, no);
            n += 1;
        }
        list[..n].sort_unstable_by_key(|x| x.0);
        let mut best_sq = 64;
        for &(_, sq, np, no) in &list[..n] {
            let v = -self.shallow::<PREDICT>(np, no, depth - 1, -beta, -alpha, scale);
            if v > best {
                best_sq = sq;
            }
            if raise(v, &mut best, &mut alpha, beta) {
                break;
            }
        }
        if tabled {
            self.table
                .predictions
                .put(key, depth, best, alpha_orig, beta, best_sq);
        }
        best
    }

    /// The ordering score of the move `sq` (flipping `f`) with `ne` empties before it:
    /// above all few replies for the opponent (fastest first, a corner reply counting twice),
    /// then our discs made safe at the corners, few empty squares beside our discs (the
    /// opponent's potential mobility), a quadrant of odd parity; from `SHALLOW_MIN_EMPTIES`
    /// a shallow search of the pattern evaluation (deeper with more empties) weighs in about
    /// as much as the replies (2.05 discs of evaluation against one reply), searched only to
    /// tell the moves apart down to `ORDER_FLOOR` discs below the node's `alpha`.
    /// `view`: this position's pattern indices seen by the opponent (`local_indices(o, p)`),
    /// where the ordering evaluates the child alone (from it, `patterns::after` the move).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn order_score(
        &mut self,
        p: u64,
        o: u64,
        sq: u32,
        f: u64,
        ne: u32,
        alpha: i32,
        view: Option<&Local>,
    ) -> i32 {
        let (np, no) = (p | f | 1 << sq, o & !f);
        let replies = moves(no, np);
        let mut score =
            -W_MOBILITY * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
        score += W_CORNER_STABILITY * corner_stable(np).count_ones() as i32;
        score -= (self.geo.neighbours(np) & !(np | no)).count_ones() as i32;
        let quadrant = QUADRANTS
            .iter()
            .find(|&&q| q >> sq & 1 == 1)
            .copied()
            .unwrap_or(0);
        if (!(p | o) & quadrant).count_ones() & 1 == 1 {
            score += W_PARITY;
        }
        if ne >= SHALLOW_MIN_EMPTIES {
            let depth = match ne {
                SHALLOW_3_EMPTIES.. => 3,
                SHALLOW_2_EMPTIES.. => 2,
                SHALLOW_1_EMPTIES.. => 1,
                _ => 0,
            };
            // The child's window: above `ORDER_FLOOR` discs under alpha (for us) only.
            let hi = (ORDER_FLOOR - alpha) * 100 / PATTERN_SCALE;
            let v = match (depth, view, self.net) {
                (0, Some(view), Some(net)) => {
                    self.ordering_nodes += 1;
                    net.evaluate_local((np | no).count_ones(), &after(view, sq, f)) / PATTERN_SCALE
                }
                _ => self.shallow::<false>(no, np, depth, -i32::MAX, hi, PATTERN_SCALE),
            };
            score -= W_SHALLOW * v;
        }
        score
    }

    /// Scores the moves `(square, flips, child key, score)` by `order_score` and sorts them,
    /// best first (ties in square order); `alpha` the node's. At an exact node expected to
    /// fail low (`ALL_NODE_MARGIN`) without the shallow search.
    pub(super) fn score_moves(
        &mut self,
        p: u64,
        o: u64,
        ne: u32,
        alpha: i32,
        list: &mut [(u32, u64, u64, i32)],
    ) {
        // A node expected to fail low (`ALL_NODE_MARGIN`): the cheap terms alone.
        let ne = match self.net {
            Some(net)
                if self.cut.is_none()
                    && ne >= SHALLOW_MIN_EMPTIES
                    && net.evaluate(p, o) <= alpha * 100 - ALL_NODE_MARGIN =>
            {
                0
            }
            _ => ne,
        };
        let view = (self.net.is_some() && (SHALLOW_MIN_EMPTIES..SHALLOW_1_EMPTIES).contains(&ne))
            .then(|| local_indices(o, p));
        for e in list.iter_mut() {
            e.3 = self.order_score(p, o, e.0, e.1, ne, alpha, view.as_ref());
        }
        list.sort_by_key(|e| -e.3);
    }
}
