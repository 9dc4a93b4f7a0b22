//! The exact search of the boards other than 8x8: negamax alpha-beta on (me, opp) bit sets
//! with principal-variation null windows, returning the final disc margin for the side to move
//! (empty squares count for the winner). Fail-soft: a result at or below alpha is an upper
//! bound, at or above beta a lower bound.
//!
//! Moves are found and flipped from the list of empty squares along each square's rays
//! (`rays`), made and taken back on that list. Ordering: the table's move first, then from
//! `SHALLOW_MIN_EMPTIES` a two-ply search of `quick_eval`, from `ORDER_MIN_EMPTIES`
//! fastest-first (fewest replies for the opponent) with corners up and X-squares down, below
//! that squares in quadrants of odd parity first. A stability cutoff (the opponent's
//! edge-anchored stable discs bound our best margin); a table of bounds from
//! `TABLE_MIN_EMPTIES` (`solve_table`, which says its entry layout) with an enhanced
//! transposition cutoff. From `PRESEARCH_MIN_EMPTIES` a node the table knows nothing of is
//! first searched selectively for its move (`probcut`); with `cut` set the search is that
//! selective one, its bounds stored with its selectivity.

use super::super::PASS;
use super::super::board::Geo;
use super::super::endgame8::Confidence;
use super::super::learn_big::BigNet;
use super::rays::{Empties, Rays};
use crate::bits::Bits;
use crate::bits::mix;
use crate::games::othello::solve_table::{Table, narrow};

pub(super) const TABLE_MIN_EMPTIES: u32 = 8;
/// From this many empties a node the table knows nothing of is first searched selectively
/// (`probcut::presearch`, which gives the confidence and the measures behind both).
pub(super) const PRESEARCH_MIN_EMPTIES: u32 = 16;
const STABILITY_MIN_EMPTIES: u32 = 10;
/// From this many empties, moves are ordered by a shallow search instead of a static guess.
const SHALLOW_MIN_EMPTIES: u32 = 13;
const ORDER_MIN_EMPTIES: u32 = 6;
/// The most moves a node keeps (a big board's position has fewer legal moves in practice).
pub(super) const MAX_MOVES: usize = 64;

pub(super) struct Solver<'a, B: Bits> {
    pub g: Geo<B>,
    pub rays: Rays<B>,
    pub empties: Empties,
    pub total: i32,
    pub nodes: u64,
    pub abort: &'a dyn Fn() -> bool,
    pub aborted: bool,
    pub table: &'a Table,
    pub shape_tag: u64,
    /// The board's learned pattern weights, for the selective search (`probcut`).
    pub net: Option<&'static BigNet>,
    /// The confidence of a selective search (`probcut`); `None`: exact.
    pub cut: Option<Confidence>,
    /// From this many empties the exact search pre-searches selectively (`probcut`).
    pub presearch_min: u32,
}

impl<'a, B: Bits> Solver<'a, B> {
    /// A solver of the position (`me`, `opp`) on `g`, predicting with `net` (the position's
    /// weights: `Patterns::1`).
    pub fn new(
        g: Geo<B>,
        me: B,
        opp: B,
        net: Option<&'static BigNet>,
        table: &'a Table,
        abort: &'a dyn Fn() -> bool,
    ) -> Self {
        Solver {
            g,
            rays: Rays::new(&g),
            empties: Empties::new(&g, me, opp),
            total: g.all.count() as i32,
            nodes: 0,
            abort,
            aborted: false,
            table,
            shape_tag: (g.n as u64) << 56,
            net,
            cut: None,
            presearch_min: PRESEARCH_MIN_EMPTIES,
        }
    }

    pub fn key(&self, me: B, opp: B) -> u64 {
        mix(me.fold64() ^ self.shape_tag)
            ^ mix(opp.fold64() ^ 0x9e37_79b9_7f4a_7c15).rotate_left(23)
    }

    fn final_margin(&self, me: B, opp: B) -> i32 {
        let d = me.count() as i32 - opp.count() as i32;
        let e = self.total - (me | opp).count() as i32;
        if d > 0 {
            d + e
        } else if d < 0 {
            d - e
        } else {
            0
        }
    }

    /// The legal moves of `me` with their flips, in square order.
    pub(super) fn moves(&self, me: B, opp: B, out: &mut [(u32, B); MAX_MOVES]) -> usize {
        let mut count = 0;
        let mut s = self.empties.head();
        while let Some(sq) = s {
            let f = self.rays.flips(me, opp, sq);
            if !f.is_zero() && count < MAX_MOVES {
                out[count] = (sq, f);
                count += 1;
            }
            s = self.empties.after(sq);
        }
        count
    }

    /// How many moves `me` has, and how many of them are corners.
    fn mobility(&self, me: B, opp: B) -> (i32, i32) {
        let (mut all, mut corners) = (0, 0);
        let mut s = self.empties.head();
        while let Some(sq) = s {
            if self.rays.legal(me, opp, sq) {
                all += 1;
                corners += i32::from(self.g.corners.has(sq));
            }
            s = self.empties.after(sq);
        }
        (all, corners)
    }

    /// Empty squares next to a disc of `discs`.
    fn potential(&self, discs: B) -> i32 {
        let mut count = 0;
        let mut s = self.empties.head();
        while let Some(sq) = s {
            count += i32::from(!(self.rays.neighbours[sq as usize] & discs).is_zero());
            s = self.empties.after(sq);
        }
        count
    }

    /// A cheap evaluation (mobility, corners) for move ordering.
    fn quick_eval(&self, me: B, opp: B) -> i32 {
        let g = &self.g;
        let (mm, mc) = self.mobility(me, opp);
        let (om, oc) = self.mobility(opp, me);
        16 * (mm - om)
            + 64 * ((me & g.corners).count() as i32 - (opp & g.corners).count() as i32)
            + 32 * (mc - oc)
    }

    /// A shallow alpha-beta on `quick_eval`, for ordering only.
    fn shallow(&mut self, me: B, opp: B, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if depth == 0 {
            return self.quick_eval(me, opp);
        }
        let mut list = [(0, B::zero()); MAX_MOVES];
        let count = self.moves(me, opp, &mut list);
        if count == 0 {
            return -self.shallow(opp, me, depth - 1, -beta, -alpha);
        }
        let mut best = -i32::MAX;
        for &(sq, f) in &list[..count] {
            self.empties.remove(sq);
            let v = -self.shallow(opp & !f, me | f | B::one_at(sq), depth - 1, -beta, -alpha);
            self.empties.restore(sq);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The ordering score of the move on `sq` flipping `f` (higher first) at `ne` empties.
    fn order_score(&mut self, me: B, opp: B, sq: u32, f: B, ne: u32, tt_move: u16) -> i32 {
        if sq as u16 == tt_move {
            return 1 << 20;
        }
        let nme = me | f | B::one_at(sq);
        let nopp = opp & !f;
        self.empties.remove(sq);
        let score = if ne >= SHALLOW_MIN_EMPTIES {
            -self.shallow(nopp, nme, 2, -i32::MAX, i32::MAX)
        } else {
            let (replies, corner_replies) = self.mobility(nopp, nme);
            let g = &self.g;
            let corner = if g.corners.has(sq) { 6 } else { 0 };
            let x = if g.x_squares.has(sq) { 4 } else { 0 };
            let potential = if ne >= 12 { self.potential(nme) } else { 0 };
            -16 * (replies + corner_replies) + 16 * corner - 16 * x - 4 * potential
        };
        self.empties.restore(sq);
        score
    }

    pub fn search(&mut self, me: B, opp: B, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        self.nodes += 1;
        if self.nodes & 0xffff == 0 && (self.abort)() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let ne = self.empties.count;
        if ne == 0 {
            return me.count() as i32 - opp.count() as i32;
        }
        let mut list = [(0, B::zero(), 0); MAX_MOVES];
        let mut moves = [(0, B::zero()); MAX_MOVES];
        let count = self.moves(me, opp, &mut moves);
        if count == 0 {
            if passed {
                return self.final_margin(me, opp);
            }
            return -self.search(opp, me, -beta, -alpha, true);
        }
        let g = self.g;
        // Stability: the opponent keeps its stable discs, which bounds our margin.
        // Only edge discs can be edge-anchored stable: when even all the opponent's edge discs
        // cannot bring the bound down to alpha, the count is not worth making.
        if ne >= STABILITY_MIN_EMPTIES && self.total - 2 * (opp & g.edges).count() as i32 <= alpha {
            let max = self.total - 2 * g.edge_stable(opp).count() as i32;
            if max <= alpha {
                return max;
            }
            if beta > max {
                beta = max;
            }
        }
        let alpha_orig = alpha;
        let mut key = 0;
        let mut tt_move = PASS;
        let sel = self.sel();
        if ne >= TABLE_MIN_EMPTIES {
            key = self.key(me, opp);
            if let Some((lower, upper, best)) = self.table.get_sel(key, sel) {
                if let Some(v) = narrow(lower, upper, &mut alpha, &mut beta) {
                    return v;
                }
                tt_move = best;
            }
        }
        if self.cut.is_some()
            && let Some(v) = self.probable_cut(me, opp, ne, alpha, beta)
        {
            return v;
        }
        // (Without weights a pre-search would cut nothing: the exact search twice.)
        if self.cut.is_none() && tt_move == PASS && ne >= self.presearch_min && self.net.is_some() {
            tt_move = self.presearch(me, opp, alpha, beta, passed, key);
        }
        // Enhanced transposition cutoff: a child whose table entry already proves that we
        // reach beta settles this node without a search.
        if ne > TABLE_MIN_EMPTIES {
            for &(sq, f) in &moves[..count] {
                let child = self.key(opp & !f, me | f | B::one_at(sq));
                if let Some((_, upper, _)) = self.table.get_sel(child, sel)
                    && -upper >= beta
                {
                    return -upper;
                }
            }
        }
        // Parity: near the end, prefer squares in quadrants with an odd number of empties.
        let odd_quadrants = if ne < ORDER_MIN_EMPTIES {
            let mut parity = 0u8;
            let mut s = self.empties.head();
            while let Some(sq) = s {
                parity ^= 1 << self.rays.quadrant[sq as usize];
                s = self.empties.after(sq);
            }
            parity
        } else {
            0
        };
        for (i, &(sq, f)) in moves[..count].iter().enumerate() {
            let score = if ne >= ORDER_MIN_EMPTIES {
                self.order_score(me, opp, sq, f, ne, tt_move)
            } else {
                i32::from(odd_quadrants >> self.rays.quadrant[sq as usize] & 1)
            };
            let mut j = i;
            while j > 0 && list[j - 1].2 < score {
                list[j] = list[j - 1];
                j -= 1;
            }
            list[j] = (sq, f, score);
        }
        let mut best = i32::MIN;
        let mut best_sq = PASS;
        for (idx, &(sq, f, _)) in list[..count].iter().enumerate() {
            let nme = me | f | B::one_at(sq);
            let nopp = opp & !f;
            self.empties.remove(sq);
            let v = if idx == 0 {
                -self.search(nopp, nme, -beta, -alpha, false)
            } else {
                let mut v = -self.search(nopp, nme, -alpha - 1, -alpha, false);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.search(nopp, nme, -beta, -alpha, false);
                }
                v
            };
            self.empties.restore(sq);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_sq = sq as u16;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if ne >= TABLE_MIN_EMPTIES {
            let (lower, upper) = if best <= alpha_orig {
                (-self.total, best)
            } else if best >= beta {
                (best, self.total)
            } else {
                (best, best)
            };
            self.table.put_sel(key, lower, upper, best_sq, ne, sel);
        }
        best
    }

    /// Plays `sq` (flipping `f`) on the list and searches the child with the window
    /// (alpha, beta) from the child's side: the child's value from ours.
    pub fn child(&mut self, me: B, opp: B, sq: u32, alpha: i32, beta: i32) -> i32 {
        let f = self.rays.flips(me, opp, sq);
        self.empties.remove(sq);
        let v = -self.search(opp & !f, me | f | B::one_at(sq), -beta, -alpha, false);
        self.empties.restore(sq);
        v
    }
}
