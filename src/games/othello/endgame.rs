//! Exact Othello endgame solver (boards other than 8x8, which `endgame8` solves): the final disc margin for the side to move with perfect play
//! (empty squares count for the winner), and a best move.
//!
//! Negamax alpha-beta on (me, opp) bit sets with principal-variation null windows; moves
//! ordered table move first, then fastest-first (fewest replies for the opponent), corners
//! up and X-squares down; a stability cutoff (the opponent's edge-anchored stable discs bound
//! our best margin); a table of bounds above `TABLE_MIN_EMPTIES` (`solve_table`, shared with
//! `endgame8`, which says its entry layout); plain move loops near the end.

use super::board::Geo;
use super::endgame8::Confidence;
pub use super::solve_table::{SolveResult, Table, narrow, table};
use super::{Othello, PASS};
use crate::bits::Bits;
use crate::bits::mix;

/// The engine solves by itself from this many empty squares.
pub const AUTO_EMPTIES: u32 = 20;
const TABLE_MIN_EMPTIES: u32 = 8;
const STABILITY_MIN_EMPTIES: u32 = 10;
/// From this many empties, moves are ordered by a shallow search instead of a static guess.
const SHALLOW_MIN_EMPTIES: u32 = 13;
const ORDER_MIN_EMPTIES: u32 = 6;

struct Solver<'a, B: Bits> {
    g: Geo<B>,
    total: i32,
    nodes: u64,
    abort: &'a dyn Fn() -> bool,
    aborted: bool,
    table: &'a Table,
    shape_tag: u64,
    quadrants: [B; 4],
}

impl<'a, B: Bits> Solver<'a, B> {
    fn key(&self, me: B, opp: B) -> u64 {
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

    /// A cheap evaluation (mobility, corners) for move ordering.
    fn quick_eval(&self, me: B, opp: B) -> i32 {
        let g = &self.g;
        let mm = g.moves(me, opp);
        let om = g.moves(opp, me);
        16 * (mm.count() as i32 - om.count() as i32)
            + 64 * ((me & g.corners).count() as i32 - (opp & g.corners).count() as i32)
            + 32 * ((mm & g.corners).count() as i32 - (om & g.corners).count() as i32)
    }

    /// A shallow alpha-beta on `quick_eval`, for ordering only.
    fn shallow(&mut self, me: B, opp: B, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if depth == 0 {
            return self.quick_eval(me, opp);
        }
        let g = self.g;
        let mut moves = g.moves(me, opp);
        if moves.is_zero() {
            return -self.shallow(opp, me, depth - 1, -beta, -alpha);
        }
        let mut best = -i32::MAX;
        while !moves.is_zero() {
            let sq = moves.lowest();
            moves = moves.without_lowest();
            let f = g.flips(me, opp, sq);
            let v = -self.shallow(opp & !f, me | f | B::one_at(sq), depth - 1, -beta, -alpha);
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

    fn search(&mut self, me: B, opp: B, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        self.nodes += 1;
        if self.nodes & 0xffff == 0 && (self.abort)() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let g = self.g;
        let empty = g.all & !(me | opp);
        let ne = empty.count();
        if ne == 0 {
            return me.count() as i32 - opp.count() as i32;
        }
        let moves = g.moves(me, opp);
        if moves.is_zero() {
            if passed {
                return self.final_margin(me, opp);
            }
            return -self.search(opp, me, -beta, -alpha, true);
        }
        // Stability: the opponent keeps its stable discs, which bounds our margin.
        if ne >= STABILITY_MIN_EMPTIES {
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
        if ne >= TABLE_MIN_EMPTIES {
            key = self.key(me, opp);
            if let Some((lower, upper, best)) = self.table.get(key) {
                if let Some(v) = narrow(lower, upper, &mut alpha, &mut beta) {
                    return v;
                }
                tt_move = best;
            }
        }
        // Parity: near the end, prefer squares in quadrants with an odd number of empties.
        let odd_quadrants = if ne < ORDER_MIN_EMPTIES {
            let mut odd = B::zero();
            for quad in self.quadrants {
                if (empty & quad).count() % 2 == 1 {
                    odd |= quad;
                }
            }
            odd
        } else {
            B::zero()
        };
        // Enhanced transposition cutoff: a child whose table entry already proves that we
        // reach beta settles this node without a search.
        if ne > TABLE_MIN_EMPTIES {
            let mut m = moves;
            while !m.is_zero() {
                let sq = m.lowest();
                m = m.without_lowest();
                let f = g.flips(me, opp, sq);
                let child = self.key(opp & !f, me | f | B::one_at(sq));
                if let Some((_, upper, _)) = self.table.get(child)
                    && -upper >= beta
                {
                    return -upper;
                }
            }
        }
        let mut list: [(u32, i32); 64] = [(0, 0); 64];
        let mut count = 0;
        let mut m = moves;
        while !m.is_zero() && count < 64 {
            let sq = m.lowest();
            m = m.without_lowest();
            let score = if ne >= ORDER_MIN_EMPTIES {
                if sq as u16 == tt_move {
                    1 << 20
                } else if ne >= SHALLOW_MIN_EMPTIES {
                    let f = g.flips(me, opp, sq);
                    -self.shallow(opp & !f, me | f | B::one_at(sq), 2, -i32::MAX, i32::MAX)
                } else {
                    let f = g.flips(me, opp, sq);
                    let nme = me | f | B::one_at(sq);
                    let nopp = opp & !f;
                    let reply_set = g.moves(nopp, nme);
                    let replies = reply_set.count() as i32 + (reply_set & g.corners).count() as i32;
                    let b = B::one_at(sq);
                    let corner = if (b & g.corners).is_zero() { 0 } else { 6 };
                    let x = if (b & g.x_squares).is_zero() { 0 } else { 4 };
                    let potential = if ne >= 12 {
                        (g.neighbours(nme) & g.all & !(nme | nopp)).count() as i32
                    } else {
                        0
                    };
                    -16 * replies + 16 * corner - 16 * x - 4 * potential
                }
            } else {
                i32::from(odd_quadrants.has(sq))
            };
            let mut i = count;
            while i > 0 && list[i - 1].1 < score {
                list[i] = list[i - 1];
                i -= 1;
            }
            list[i] = (sq, score);
            count += 1;
        }
        let mut best = i32::MIN;
        let mut best_sq = PASS;
        for (idx, &(sq, _)) in list[..count].iter().enumerate() {
            let f = g.flips(me, opp, sq);
            let nme = me | f | B::one_at(sq);
            let nopp = opp & !f;
            let v = if idx == 0 {
                -self.search(nopp, nme, -beta, -alpha, false)
            } else {
                let mut v = -self.search(nopp, nme, -alpha - 1, -alpha, false);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.search(nopp, nme, -beta, -alpha, false);
                }
                v
            };
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
            self.table.put(key, lower, upper, best_sq, ne);
        }
        best
    }
}

/// The four quadrants of the board as masks.
fn quadrants<B: Bits>(g: &Geo<B>) -> [B; 4] {
    let h = g.n / 2;
    let mut q = [B::zero(); 4];
    for r in 0..g.n {
        for c in 0..g.n {
            q[((r >= h) as usize) * 2 + (c >= h) as usize] |= B::one_at(r * g.n + c);
        }
    }
    q
}

/// Solves `pos` exactly; `None` if `abort` returned true first or the game is over.
pub fn solve<B: Bits>(pos: &Othello<B>, abort: &dyn Fn() -> bool) -> Option<SolveResult> {
    solve_with(pos, false, abort)
}

/// In play, from this many empties down the exact solver runs at once.
pub const EXACT_EMPTIES: u32 = 16;
/// In play on 8x8, from `selective_empties` empties down to `EXACT_EMPTIES`: the selective
/// endgame search at rising confidences (`SELECTIVE_LEVELS`, hundredths of a standard deviation
/// of the prediction's error), then the exact solver. The 1.25 level: on the midgame set, each
/// level alone from a cleared table (`selective_levels_on_the_midgame_set`), the loss falls
/// from 0.65 discs at 1.0 to 0.37 at 1.2 and 0.16 at 1.5 for 1.9x and 3.5x the time; with it
/// the set's loss at 300 ms a move is 0.27 (two runs) instead of 0.35.
const SELECTIVE_LEVELS: [u32; 7] = [50, 70, 100, 125, 150, 200, 260];

/// The most empties at which play starts the selective search with `budget_ms` for the move:
/// one more empty square for every tripling of the budget, from 24 at 50 ms (25 at 300 ms,
/// 26 at 1 s, 27 at 3 s, 28 from 10 s); without a budget (analysis, node limits) 26. The
/// levels are an iterative deepening: the first (0.5 sigma) finishes well within the budget
/// at these empties, and a level kept plays better than the heuristic search (the midgame
/// set, protocol/benchmarks.md "An earlier selective endgame": at 300 ms 0.70 -> 0.51 discs
/// lost a move from 22 to 25 empties, at 1 s 0.43 -> 0.25 from 23 to 26).
pub fn selective_empties(budget_ms: Option<u64>) -> u32 {
    let Some(b) = budget_ms else {
        return 26;
    };
    let (mut e, mut step) = (23, 50);
    while b >= step && e < 28 {
        e += 1;
        step *= 3;
    }
    e
}

/// What play runs before the heuristic search: on 8x8 from `selective_empties` the selective
/// search at each of `SELECTIVE_LEVELS` and then the exact one, keeping the last that finished
/// before `abort`, or what the unfinished level after it found better at the root
/// (`InPlay`); elsewhere the exact solver from `AUTO_EMPTIES`. `abort(has_result)`: true to
/// stop, told whether a result is already in hand (no heuristic search then needs the time
/// left).
pub fn solve_in_play<B: Bits>(
    pos: &Othello<B>,
    abort: &dyn Fn(bool) -> bool,
    budget_ms: Option<u64>,
) -> Option<InPlay> {
    let ne = pos.empties();
    if pos.geo.n != 8 || ne <= EXACT_EMPTIES || ne > selective_empties(budget_ms) {
        if ne > AUTO_EMPTIES {
            return None;
        }
        return solve(pos, &|| abort(false)).map(|result| InPlay {
            result,
            level: None,
            complete: true,
        });
    }
    let (p, o) = (pos.me.low64(), pos.opp.low64());
    let mut last: Option<InPlay> = None;
    let (mut nodes, mut ordering_nodes) = (0, 0);
    for t in SELECTIVE_LEVELS.map(Some).into_iter().chain([None]) {
        let has = last.is_some();
        let level_abort = || abort(has);
        // Each level starts from the margin the last one found (an aspiration window).
        let guess = last.as_ref().map(|l| l.result.margin);
        let r = match (t, guess) {
            (Some(t), _) => super::endgame8::solve_selective_root(
                p,
                o,
                table(),
                Confidence(t),
                guess,
                &level_abort,
            )
            .map(|r| r.map(|s| (s.result, s.complete, s.first))),
            (None, Some(g)) => super::endgame8::solve_guess(p, o, table(), g, &level_abort)
                .map(|r| r.map(|r| (r, true, PASS))),
            (None, None) => super::endgame8::solve(p, o, table(), false, &level_abort)
                .map(|r| r.map(|r| (r, true, PASS))),
        };
        let Ok(Some((mut r, complete, first))) = r else {
            break;
        };
        nodes += r.nodes;
        ordering_nodes += r.ordering_nodes;
        (r.nodes, r.ordering_nodes) = (nodes, ordering_nodes);
        // An unfinished level's root counts only where it began with the finished level's
        // best move: another move that it then found better is more trustworthy.
        if !complete {
            if let Some(l) = last.as_mut().filter(|l| l.result.best == first) {
                *l = InPlay {
                    result: r,
                    level: t,
                    complete,
                };
            }
            break;
        }
        last = Some(InPlay {
            result: r,
            level: t,
            complete,
        });
    }
    last
}

/// What `solve_in_play` found.
pub struct InPlay {
    pub result: SolveResult,
    /// The selective search's confidence (`None`: exact).
    pub level: Option<u32>,
    /// False: the root of an unfinished selective level after a finished one (see
    /// `endgame8::Selective`).
    pub complete: bool,
}

/// `solve` on `threads` threads sharing the table (8x8; other boards solve on one).
pub fn solve_threads<B: Bits>(
    pos: &Othello<B>,
    threads: usize,
    abort: &dyn Fn() -> bool,
) -> Option<SolveResult> {
    if pos.geo.n == 8 {
        let (p, o) = (pos.me.low64(), pos.opp.low64());
        return super::endgame8::solve_threads(p, o, table(), false, threads, abort)
            .ok()
            .flatten();
    }
    solve_with(pos, false, abort)
}

/// `solve`; with `canonical` the best move is the first in square order that reaches the
/// margin (on 8x8: a choice independent of the table's contents, for self-play data).
pub fn solve_with<B: Bits>(
    pos: &Othello<B>,
    canonical: bool,
    abort: &dyn Fn() -> bool,
) -> Option<SolveResult> {
    let g = pos.geo;
    if g.n == 8 {
        return super::endgame8::solve(pos.me.low64(), pos.opp.low64(), table(), canonical, abort)
            .ok()
            .flatten();
    }
    let mut s = Solver {
        g,
        total: g.all.count() as i32,
        nodes: 0,
        abort,
        aborted: false,
        table: table(),
        shape_tag: (g.n as u64) << 56,
        quadrants: quadrants(&g),
    };
    let moves = g.moves(pos.me, pos.opp);
    if moves.is_zero() {
        if g.moves(pos.opp, pos.me).is_zero() {
            return None;
        }
        let margin = -s.search(pos.opp, pos.me, -s.total, s.total, true);
        return (!s.aborted).then_some(SolveResult {
            margin,
            best: PASS,
            nodes: s.nodes,
            ordering_nodes: 0,
        });
    }
    let margin = s.search(pos.me, pos.opp, -s.total, s.total, false);
    if s.aborted {
        return None;
    }
    // The best move: the table's move at the root, checked by re-searching each move with a
    // window that only that score passes.
    let mut best = PASS;
    let mut m = moves;
    let mut order = Vec::new();
    if let Some((_, _, b)) = s.table.get(s.key(pos.me, pos.opp)) {
        order.push(b as u32);
    }
    while !m.is_zero() {
        order.push(m.lowest());
        m = m.without_lowest();
    }
    for sq in order {
        if !moves.has(sq) {
            continue;
        }
        let f = g.flips(pos.me, pos.opp, sq);
        let v = -s.search(
            pos.opp & !f,
            pos.me | f | B::one_at(sq),
            -margin - 1,
            -margin + 1,
            false,
        );
        if s.aborted {
            return None;
        }
        if v >= margin {
            best = sq as u16;
            break;
        }
    }
    Some(SolveResult {
        margin,
        best,
        nodes: s.nodes,
        ordering_nodes: 0,
    })
}
