//! The exact endgame solver for the 8x8 board, on one `u64` per side: the same search as the
//! big boards' solver (`endgame_big`: principal-variation null windows, the shared bound table,
//! enhanced transposition cutoffs, stability cutoffs) with the speed that a fixed board
//! allows (`bitboard`) and a finer move order (`order_score`: fastest first, then corner
//! stability, potential mobility and parity, and far from the end a shallow search of the
//! learned pattern evaluation, zero to three plies deep with the empties; ordering only, so
//! the scores stay exact whatever the weights):
//! - far from the end, a node that the table knows nothing of is first searched selectively
//!   (`probcut::presearch`), for its move only: the exact search never takes a selective bound;
//! - from `SMALL_EMPTIES` empties down no move generation (`small`): the empty squares are
//!   tried in parity order (squares of quadrants with an odd number of empties first, in each
//!   the squares beside a corner last), two empties have their own code, and the last empty
//!   square only counts its flips; the stability cutoff runs from three empties;
//! - children's table slots prefetched before they are probed;
//! - several threads share the table and a list of the positions being searched
//!   (`threads`): a thread puts off a move that another is searching (ABDADA).
//!
//! Squares: bit `r * 8 + c`, row 0 at the top, column 0 = a. Scores: the final disc margin for
//! the side to move, empty squares to the winner, in -64..=64.

use super::PASS;
use super::board::Geo;
use super::learn::PatternNet;
use super::patterns::{Local, after, local_indices};
use super::solve_table::{SolveResult, Table};
use crate::bits::mix;

/// From this many empties down: no move generation, parity order (`small`).
const SMALL_EMPTIES: u32 = 6;
/// From this many empties: moves ordered (fastest first) and the bound table.
const ORDER_MIN_EMPTIES: u32 = 7;
const TABLE_MIN_EMPTIES: u32 = 7;
/// From this many empties: enhanced transposition cutoffs (children's entries probed).
const ETC_MIN_EMPTIES: u32 = 8;
const STABILITY_MIN_EMPTIES: u32 = 7;
/// From this many empties the pattern evaluation of the child joins the ordering; a one-ply
/// search of it from `SHALLOW_1_EMPTIES`, two plies from `SHALLOW_2_EMPTIES`, three from
/// `SHALLOW_3_EMPTIES`. FFO #40-#48 / #49-#52, one thread, search + ordering nodes: 321.4 M /
/// 797.7 M with one ply from 14 (no evaluation below), 306.7 M / 778.3 M as now (13, 16);
/// 12 and 16: 307.3 M; 11 and 16: 309.4 M; 13 and 15: 304.1 M / 799.6 M; 13 and 17: 308.5 M;
/// 14 and 16: 319.3 M; 12 and 14: 312.0 M.
const SHALLOW_MIN_EMPTIES: u32 = 13;
const SHALLOW_1_EMPTIES: u32 = 16;
const SHALLOW_2_EMPTIES: u32 = 18;
const SHALLOW_3_EMPTIES: u32 = 22;
/// From this many plies the shallow search (`Solver::shallow`) orders its moves, fewest
/// replies first. FFO #40-#48 / #49-#52, one thread, search + ordering nodes, with the
/// pre-search's predictions as before: 292.3 M / 755.3 M unordered, 290.3 M / 743.7 M so (the
/// time the same: the order costs what it saves at these depths); it is what lets the
/// selective search's predictions go deeper (`probcut::depth_for`).
const SHALLOW_ORDER_DEPTH: u32 = 2;
/// From this many plies a prediction's shallow search (`Solver::shallow`) keeps its bounds
/// and best move in the prediction table (`predict_table`). The midgame set, each level alone
/// from a cleared table (`selective_levels_on_the_midgame_set`), the predicting searches'
/// positions: 1.0 sigma 102.0 M without the table, 95.4 M from 2 plies, 98.4 M from 3; 1.25
/// sigma 164.1 M -> 154.3 M (the search's own nodes and every cut the same).
const PREDICT_TABLE_DEPTH: u32 = 2;
/// The pattern evaluation (hundredths of a disc) is divided by this in the ordering search.
const PATTERN_SCALE: i32 = 8;
/// The ordering search tells moves apart only down to this many discs below alpha: a move
/// worse than that is as good as refuted, and its search stops at that bound (fail-soft).
/// FFO #40-#48, one thread, search + ordering nodes (with the one-slot table of then): 331.2 M
/// with a full window, 325.6 M at 24, 326.9 M at 32, 329.5 M at 48 (at 16 and 8, with a bound
/// 32-48 discs above beta as well: 328.8 M and 335.2 M; 16 and 6 discs above beta: 398.4 M).
const ORDER_FLOOR: i32 = 24;
/// The exact search's node whose own pattern evaluation lies this many hundredths of a disc
/// below its alpha (18 discs: 15 beyond the 3 that the evaluation falls short of the mover's
/// margin on average, `probcut::bias`) is expected to fail low: all its moves are searched
/// whatever their order, so they are ordered without the shallow search (`score_moves`).
/// FFO #40-#52, one thread, search + ordering nodes, `W_SHALLOW` at 64 then: 982.2 M ->
/// 975.9 M (#44 8.25 M -> 8.19 M), the same time; at 6, 9, 13, 15, 23, 28 and 33 discs:
/// 982.8, 981.3, 978.0, 976.8, 975.6, 976.0, 977.0 M; at 18 only up to 17 empties: 975.6 M.
const ALL_NODE_MARGIN: i32 = 1800;
/// From this many empties, with other threads: a move (other than the first) that another
/// thread is searching is put off until the others are done (ABDADA's deferral).
const DEFER_MIN_EMPTIES: u32 = 14;
/// Move ordering weights (`Solver::order_score`).
const W_MOBILITY: i32 = 1024;
const W_CORNER_STABILITY: i32 = 64;
const W_PARITY: i32 = 8;
/// The shallow search's weight: one reply is worth 2.05 discs of its evaluation. FFO #40-#52,
/// one thread, search + ordering nodes (with `ALL_NODE_MARGIN`) at 96, 64 (1.28 discs), 56,
/// 48, 40, 32, 24: 1,052.3, 975.9, 977.8, 952.2, 942.1, 935.9, 965.2 M (#44 8.19 M at 64,
/// 7.70 M at 40); at 32 #53 rose above Egaroucid's count (1.45 G), at 40 #53-#59 10.57 G
/// against 11.19 G at 64; FFO #20-#39 66.3 M at 64, 66.6 M at 40.
const W_SHALLOW: i32 = 40;
/// The X- and C-squares (beside a corner).
const BESIDE_CORNERS: u64 = 0x42c3_0000_0000_c342;
/// The board's edge squares and the X squares (diagonally beside a corner).
const EDGES: u64 = 0xff81_8181_8181_81ff;
const X_SQUARES: u64 = 0x0042_0000_0000_4200;
/// Below `SHALLOW_ORDER_DEPTH` plies the shallow search tries its moves by these groups:
/// corners, inner squares, edges, C squares, X squares (in square order before: the midgame
/// set's 1.0 sigma level, its predicting and ordering positions, 95.4 M -> 91.3 M; corners,
/// others, then X and C squares 91.4 M).
const SHALLOW_ORDER: [u64; 5] = [
    CORNERS,
    !(EDGES | X_SQUARES),
    EDGES & !(CORNERS | BESIDE_CORNERS),
    BESIDE_CORNERS & !X_SQUARES,
    X_SQUARES,
];
/// Quadrants: rows 0-3 / 4-7 by columns a-d / e-h.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

mod bitboard;
mod edge_stable;
mod ordering;
mod probcut;
mod root;
mod small;
mod threads;

use bitboard::{CORNERS, corner_stable};
pub use bitboard::{flips, moves, stable};
use probcut::PRESEARCH_MIN_EMPTIES;
pub use probcut::{Confidence, Selective, solve_selective, solve_selective_root};
use root::{aspiration_window, solve_sharing};
pub use root::{solve, solve_within};
use threads::Busy;
pub use threads::solve_threads;

/// The pattern weights the solver orders and predicts with (the position's, `EvalFile`'s);
/// without them `quick_eval` orders and no selective search cuts or pre-searches.
pub type Net = Option<&'static PatternNet>;

pub struct Solver<'a> {
    pub nodes: u64,
    /// The positions the ordering searches (`shallow`) visit, apart from `nodes`.
    pub ordering_nodes: u64,
    abort: &'a dyn Fn() -> bool,
    pub aborted: bool,
    /// The node count at which `abort` is asked next.
    next_check: u64,
    /// Nodes (search + ordering) after which the search stops as if aborted (a node budget,
    /// `with_limit`; `u64::MAX`: none), tested where `abort` is asked, every `check_step`
    /// search nodes.
    limit: u64,
    check_step: u64,
    table: &'a Table,
    geo: Geo<u64>,
    /// With other threads: the positions being searched now (`threads::Busy`).
    busy: Option<&'a Busy>,
    /// The position's pattern weights (`Net`: the embedded ones unless `EvalFile` chose
    /// others), for the ordering search and the predictions (`shallow`); without them
    /// `quick_eval`, and no probable cut.
    net: Net,
    /// Selective search (`probcut`): probable cuts at this confidence; `None`: exact.
    cut: Option<probcut::Confidence>,
    /// From this many empties the exact search pre-searches selectively (`presearch`).
    presearch_min: u32,
    /// The selective search running is the exact search's pre-search: its predictions are
    /// the shallower ones (`probcut::depth_for`).
    pre: bool,
    /// No node has been searched yet: the next `search` is the root's, whose pre-search rises
    /// through `probcut::ROOT_PRESEARCH`.
    at_root: bool,
}

impl<'a> Solver<'a> {
    pub fn new(
        table: &'a Table,
        net: Net,
        abort: &'a dyn Fn() -> bool,
    ) -> Result<Solver<'a>, String> {
        Ok(Solver {
            nodes: 0,
            ordering_nodes: 0,
            abort,
            aborted: false,
            next_check: 0x4000,
            limit: u64::MAX,
            check_step: 0x4000,
            table,
            geo: Geo::new(8)?,
            busy: None,
            net,
            cut: None,
            presearch_min: PRESEARCH_MIN_EMPTIES,
            pre: false,
            at_root: true,
        })
    }

    /// Stops the search once it has visited `limit` nodes (search + ordering), within a
    /// sixteenth of the limit (asked every `limit / 16` search nodes, at least 256, at most
    /// 16k as without a limit).
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self.check_step = (limit / 16).clamp(256, 0x4000);
        self.next_check = self.check_step;
        self
    }

    fn key(p: u64, o: u64) -> u64 {
        mix(p ^ (8 << 56)) ^ mix(o ^ 0x9e37_79b9_7f4a_7c15).rotate_left(23)
    }

    fn final_margin(p: u64, o: u64) -> i32 {
        let d = p.count_ones() as i32 - o.count_ones() as i32;
        let e = 64 - (p | o).count_ones() as i32;
        match d.signum() {
            1 => d + e,
            -1 => d - e,
            _ => 0,
        }
    }

    pub fn search(&mut self, p: u64, o: u64, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        let root = std::mem::take(&mut self.at_root);
        let empty = !(p | o);
        let ne = empty.count_ones();
        if ne <= SMALL_EMPTIES {
            return self.small(p, o, alpha, beta, passed);
        }
        self.nodes += 1;
        // Every 16k nodes or so (most nodes are counted in `small`, so a test on the count
        // itself would rarely land).
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + self.check_step;
            if self.nodes + self.ordering_nodes >= self.limit || (self.abort)() {
                self.aborted = true;
            }
        }
        if self.aborted {
            return 0;
        }
        let use_table = ne >= TABLE_MIN_EMPTIES;
        let key = if use_table { Self::key(p, o) } else { 0 };
        if use_table {
            self.table.prefetch(key);
        }
        let mv = moves(p, o);
        if mv == 0 {
            if passed {
                return Self::final_margin(p, o);
            }
            return -self.search(o, p, -beta, -alpha, true);
        }
        // Stability: the opponent keeps its stable discs, which bounds our margin (only worth
        // computing where the opponent has discs enough for a cut).
        if ne >= STABILITY_MIN_EMPTIES && 64 - 2 * o.count_ones() as i32 <= alpha {
            let max = 64 - 2 * stable(o, p).count_ones() as i32;
            if max <= alpha {
                return max;
            }
            beta = beta.min(max);
        }
        // And our own stable discs bound it from below.
        if ne >= STABILITY_MIN_EMPTIES && 2 * p.count_ones() as i32 - 64 >= beta {
            let min = 2 * stable(p, o).count_ones() as i32 - 64;
            if min >= beta {
                return min;
            }
            alpha = alpha.max(min);
        }
        let alpha_orig = alpha;
        let mut tt_move = PASS;
        if use_table && let Some((lower, upper, best)) = self.table.get_sel(key, self.sel()) {
            if let Some(v) =
                crate::games::othello::solve_table::narrow(lower, upper, &mut alpha, &mut beta)
            {
                return v;
            }
            tt_move = best;
        }
        if self.cut.is_some()
            && let Some(v) = self.probable_cut(p, o, ne, alpha, beta)
        {
            return v;
        }
        // (Without weights a pre-search would cut nothing: the exact search twice.)
        if self.cut.is_none()
            && use_table
            && tt_move == PASS
            && ne >= self.presearch_min
            && self.net.is_some()
        {
            tt_move = self.presearch(p, o, alpha, beta, passed, root);
        }
        // The moves, their flips and their children's keys (prefetched for the enhanced
        // transposition cutoff below and for the children's own probes).
        let etc = ne >= ETC_MIN_EMPTIES;
        let mut list: [(u32, u64, u64, i32); 32] = [(0, 0, 0, 0); 32];
        let mut count = 0;
        let mut m = mv;
        while m != 0 && count < 32 {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, sq);
            if f == o {
                // A wipeout: the most there is.
                return 64;
            }
            let child = if etc {
                let k = Self::key(o & !f, p | f | 1 << sq);
                self.table.prefetch(k);
                k
            } else {
                0
            };
            list[count] = (sq, f, child, 0);
            count += 1;
        }
        // The table's move first; the others are scored only if it does not cut (`lazy`).
        let ordered = ne >= ORDER_MIN_EMPTIES;
        let mut lazy = false;
        if ordered {
            if let Some(i) = list[..count].iter().position(|e| e.0 as u16 == tt_move) {
                list[..=i].rotate_right(1);
                lazy = true;
            } else {
                self.score_moves(p, o, ne, alpha, &mut list[..count]);
            }
        }
        // Enhanced transposition cutoff: a child whose entry proves that we reach beta.
        if etc {
            for e in &list[..count] {
                if let Some((_, upper, _)) = self.table.get_sel(e.2, self.sel())
                    && -upper >= beta
                {
                    return -upper;
                }
            }
        }

        let mut best = -65;
        let mut best_sq = PASS;
        let busy = self.busy.filter(|_| ne >= DEFER_MIN_EMPTIES);
        // The moves in order, then (with other threads) those put off because they were busy.
        let (mut deferred, mut n_deferred) = ([0u8; 32], 0);
        let (mut k, mut second) = (0, false);
        loop {
            let idx = if !second && k < count {
                k
            } else if !second {
                (k, second) = (0, true);
                continue;
            } else if k < n_deferred {
                deferred[k] as usize
            } else {
                break;
            };
            if lazy && k == 1 {
                lazy = false;
                self.score_moves(p, o, ne, alpha, &mut list[1..count]);
            }
            k += 1;
            let (sq, f, child, _) = list[idx];
            if let Some(b) = busy
                && !second
                && idx > 0
                && b.contains(child)
            {
                deferred[n_deferred] = idx as u8;
                n_deferred += 1;
                continue;
            }
            if let Some(b) = busy {
                b.enter(child);
            }
            let (np, no) = (p | f | 1 << sq, o & !f);
            let v = if idx == 0 {
                -self.search(no, np, -beta, -alpha, false)
            } else {
                let mut v = -self.search(no, np, -alpha - 1, -alpha, false);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.search(no, np, -beta, -alpha, false);
                }
                v
            };
            if let Some(b) = busy {
                b.leave(child);
            }
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
        if use_table {
            let (lower, upper) = if best <= alpha_orig {
                (-64, best)
            } else if best >= beta {
                (best, 64)
            } else {
                (best, best)
            };
            self.table
                .put_sel(key, lower, upper, best_sq, ne, self.sel());
        }
        best
    }
}

/// Raises `best`, and `alpha` with it, to `v`: true when `v` reaches `beta` (a cut).
#[inline(always)]
fn raise(v: i32, best: &mut i32, alpha: &mut i32, beta: i32) -> bool {
    if v > *best {
        *best = v;
        if v > *alpha {
            *alpha = v;
            return v >= beta;
        }
    }
    false
}

#[cfg(test)]
mod tests;
