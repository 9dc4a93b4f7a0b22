//! The selective endgame search (8x8): the exact solver's search with probable cuts (Buro's
//! ProbCut, as Edax and Egaroucid use it to reach the end of the game long before an exact
//! solve fits the clock). At a node of `MIN_EMPTIES` or more empties a shallow search of the
//! learned pattern evaluation (0 to 5 plies, `depth_for`) predicts the exact margin; where the
//! prediction, less its mean error (`bias`), clears beta (or falls short of alpha) by `t`
//! standard deviations of its error at that depth (`sigma`), more near a wipeout
//! (`EXTREME_FROM`), the node returns that bound without a search below it (the search itself
//! only where the position's own evaluation comes near the bound, `GATE`; from 2 plies its
//! bounds and moves kept in the prediction table, `predict_table`). The margin found is
//! the exact one with a probability that rises with `t`; play runs it at rising confidences
//! and then exactly (`Othello::solve_in_play`), keeping the last that finished, or the move
//! that the unfinished level after it found better at the root (`solve_selective_root`).
//!
//! The exact search uses it too, to order (`presearch`): at a node of `PRESEARCH_MIN_EMPTIES`
//! or more that the table knows nothing of, a selective search of the node at
//! `PRESEARCH_CONFIDENCE` (with shallower predictions; at the solve's root rising to it
//! through lower ones, `ROOT_PRESEARCH`) first leaves its moves in the table (from the root
//! down, as an iterative deepening would), and the exact search tries them first; it takes no
//! bound of it.
//!
//! A selective search stores its bounds with its confidence (`Table::put_sel`): an exact
//! search takes only their moves, a more confident search too, and a selective search takes
//! the bounds of exact entries and of entries at least as confident. Scores: the final disc
//! margin for the side to move, -64..=64, as in the exact solver; the prediction and `sigma`
//! are in hundredths of a disc.

use super::{Net, PASS, Solver, moves};
use crate::games::othello::solve_table::{SolveResult, Table};

/// The confidence of a selective search: `t` in hundredths of a standard deviation (e.g. 200:
/// a cut is wrong about 2.3% of the time where the prediction errs as a normal law).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Confidence(pub u32);

impl Confidence {
    /// The selectivity a search of this confidence stores with its table entries
    /// (`Table::get_sel`: 1..=127; an exact search's is 0), for 8x8's solver and the others'.
    pub fn selectivity(cut: Option<Confidence>) -> u32 {
        cut.map_or(0, |c| (c.0 / 4).clamp(1, 127))
    }
}

/// Probable cuts from this many empties (below, the exact search is cheap enough).
pub const MIN_EMPTIES: u32 = 8;

/// The exact search's selective pre-search (`presearch`): from this many empties, at this
/// confidence (FFO #40-#48, one thread, nodes with the ordering searches': 346 M at 120, 333 M at 150, 393 M
/// at 200, 459 M without a pre-search, with the other cuts of the same commit).
pub(super) const PRESEARCH_MIN_EMPTIES: u32 = 18;
const PRESEARCH_CONFIDENCE: Confidence = Confidence(150);
/// The pre-search at a solve's root rises to `PRESEARCH_CONFIDENCE` through these (an
/// iterative deepening of the selective search: each level leaves its moves in the table for
/// the next). FFO #40-#52, one thread, search + ordering nodes: 1,089.7 M with the root's
/// pre-search at 1.5 alone, 982.2 M so (#41 12.14 M -> 9.57 M, #44 10.16 M -> 8.25 M); 1.0
/// then 1.5: 1,022.0 M; 0.5, 1.0, 1.5: 980.3 M; 0.5, 0.7, 1.0, 1.5: 1,013.5 M; 0.7, 1.0, 1.25,
/// 1.5: 1,050.7 M (single positions swing: #52 117 M to 159 M); the same levels at every
/// pre-search from 20 or 22 empties: no change (981.3 M). The later levels in a window around
/// the last one's value (2, 4 or 8 discs either side): 1,053.9 M, 1,016.1 M, 1,019.4 M.
const ROOT_PRESEARCH: [Confidence; 3] = [Confidence(70), Confidence(100), PRESEARCH_CONFIDENCE];

/// Beyond this margin (discs) a bound's cut needs `EXTREME_SLACK` hundredths of a disc more
/// per disc: the prediction regresses toward 0, so it falls short of a large margin (a wipeout
/// looks like a +45 to it), and a cut that trusted it there would wrongly fail low below a
/// high alpha (or high above a low beta). FFO #59 (34 empties, +64), one thread, search +
/// ordering nodes: 3.27 M without, 0.47 M at 48 and 10 (0.41-0.96 M from 40 to 48 and 5 to
/// 15); #40-#48 unchanged.
const EXTREME_FROM: i32 = 48;
const EXTREME_SLACK: i32 = 10;

/// The depth of the predicting search at `ne` empties: in play's selective search, deeper
/// with the empties (a cut there spares a larger tree, and the prediction's error falls with
/// its depth: `sigma`); in the exact search's pre-search (`pre`), which only orders, the
/// shallower depths it was tuned with. The play schedule, against the pre-search's (0 to 11
/// empties, 1 to 15, 2 to 21, then 3), on the midgame set at 1.0 and 1.25 sigma
/// (`selective_levels_on_the_midgame_set`, node counts exact, times on a loaded machine):
/// 449 M nodes, loss 0.67, 35 s and 1,193 M, 0.45, 90 s -> 637 M, 0.43, 54 s and 1,383 M, 0.37,
/// 102 s; at 300 ms a move, each build twice, alternated: 0.38, 0.39 -> 0.33, 0.30. Deeper
/// still (Egaroucid's third of the empties, of their parity: 2 to 8 plies) 1.25 sigma lost
/// 0.39 in 148 s: the predictions cost more than their cuts save. For the pre-search the
/// deeper predictions cost nodes: FFO #40-#48 / #49-#52 297.0 M / 786.8 M against 290.3 M /
/// 743.7 M.
fn depth_for(ne: u32, pre: bool) -> u32 {
    if pre {
        return match ne {
            ..=11 => 0,
            12..=15 => 1,
            16..=21 => 2,
            _ => 3,
        };
    }
    match ne {
        ..=9 => 0,
        10..=11 => 1,
        12..=13 => 2,
        14..=17 => 3,
        18..=21 => 4,
        _ => 5,
    }
}

/// The standard deviation (hundredths of a disc) of the predicting search's error against
/// the exact margin at `ne` empties and `depth` plies. `calibrate_probcut_sigma` (tests),
/// positions of the FFO sets and the midgame set a few plies on, 10 to 18 empties, measured
/// 954, 817, 743, 684, 643 and 581 at depths 0 to 5 when its walk chose each ply by the
/// patterns under test: the table is those times about 1.15 beyond depth 0, the scale the
/// confidence levels of play were set on. Its walk now plays fewest replies first, the same
/// positions whatever the weights: 1101, 927, 838, 754, 689 at depths 0 to 4. One table for
/// every count of empties: by empties (10 to 18, 83 to 120 positions each, round 10's
/// patterns) the sd at 0 plies is 876, 862, 858, 1240, 1074, 780, 1036, 792, 958, no trend
/// beside its sampling error, where Egaroucid's published fit for its own evaluation rises
/// only a tenth from 10 to 18 empties (6.7 to 7.4 discs at 0 plies).
fn sigma(ne: u32, depth: u32) -> i32 {
    let _ = ne;
    [1000, 950, 850, 800, 750, 680][depth.min(5) as usize]
}

/// The predicting search's mean error (prediction - exact, hundredths of a disc) at `depth`
/// plies: the evaluation falls short of the mover's margin where the last ply is the
/// opponent's (an even depth), less the deeper the search, while at an odd depth the mover's
/// choice of its best reply makes up for it (`calibrate_probcut_sigma`, 10 to 18 empties, 927
/// positions a depth on its walk by fewest replies: -196, +56, -126, +55, -101 at depths 0 to
/// 4 with the patterns of round 10, -285, +50, -183, +39, -140 with round 6's, whose play bias
/// was -316, -201, -174 from an earlier walk). A cut tests the prediction less this bias, so that
/// its two sides are as likely wrong: uncorrected, a fail-high cut was too rare and a fail-low
/// one too often wrong. The pre-search's bias at every even depth was set on FFO's counts, not
/// the sample: -300 with round 6's patterns (the sample's mean over its depths -234; with
/// `GATE`, FFO #40-#48, one thread, search + ordering nodes: 305.6 M -> 292.3 M against no
/// bias, #49-#52 778.3 M -> 755.3 M, where -200 at depth 2 alone cost 795.4 M); with round
/// 10's it stays -300, the sample's mean -161 (FFO #40-#52: 954.6 M at -300, 980.8 M at -250,
/// 1,002.6 M at -200, #43 8.4 M against 36 M): with both weights the counts want it a disc or
/// more below the sample's mean. Round 14's patterns (thirteen shapes): the sample's means
/// -172, +58, -117, +53, -89 at depths 0 to 4 (play's biases kept: the match that embedded
/// them ran with these), the pre-search's -145, its bias -290 (FFO #40-#59 10.75 G nodes).
/// The mean also moves with the parity of the empties, by about 2.4 discs (the mover with
/// the last move is underrated: round 6 at depths 0 to 4, -183, +141, -97, +142, -41 with an
/// even number of empties, -431, -76, -316, -100, -279 with an odd one), but a bias by both
/// parities did not pay: FFO #40-#52 1,029.9 M -> 1,087.6 M in the pre-search; in play's
/// levels (`selective_levels_on_the_midgame_set`) the margins nearer (mean error 1.77 -> 1.58
/// discs at 1.0 sigma, 1.10 -> 1.03 at 1.25) for 6-9% more nodes, the moves' loss 0.43 ->
/// 0.53 and 0.37 -> 0.33.
fn bias(depth: u32, pre: bool) -> i32 {
    if !depth.is_multiple_of(2) {
        0
    } else if pre {
        -290
    } else {
        [-196, -126, -101][(depth as usize / 2).min(2)]
    }
}

/// A shallow search for a cut runs only where the position's own evaluation is within this
/// many hundredths of a disc of the bound it must clear (Egaroucid's MPC gates its searches
/// by the static evaluation the same way): FFO #40-#48 the same tree within 0.1%, 5% less
/// time.
const GATE: i32 = 800;

impl Solver<'_> {
    /// The selectivity stored with this search's table entries (`Table::get_sel`).
    pub(super) fn sel(&self) -> u32 {
        Confidence::selectivity(self.cut)
    }

    /// A probable cut at this node of `ne` empties (`Some(bound)`), or `None`.
    /// Kept apart: predicts with 8x8's bitboard search of the patterns (`shallow`), `bias`, `GATE`.
    pub(super) fn probable_cut(
        &mut self,
        p: u64,
        o: u64,
        ne: u32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let c = self.cut?;
        if ne < MIN_EMPTIES || self.net.is_none() {
            return None;
        }
        let depth = depth_for(ne, self.pre);
        let margin = c.0 as i32 * sigma(ne, depth) / 100;
        let bias = bias(depth, self.pre);
        let v0 = self.shallow::<false>(p, o, 0, -i32::MAX, i32::MAX, 1);
        if beta < 64 {
            let bound = beta * 100 + margin + bias + EXTREME_SLACK * (-beta - EXTREME_FROM).max(0);
            if depth == 0 {
                if v0 >= bound {
                    return Some(beta);
                }
            } else if v0 >= bound - GATE
                && self.shallow::<true>(p, o, depth, bound - 1, bound, 1) >= bound
            {
                return Some(beta);
            }
        }
        if alpha > -64 {
            let bound = alpha * 100 - margin + bias - EXTREME_SLACK * (alpha - EXTREME_FROM).max(0);
            if depth == 0 {
                if v0 <= bound {
                    return Some(alpha);
                }
            } else if v0 <= bound + GATE
                && self.shallow::<true>(p, o, depth, bound, bound + 1, 1) <= bound
            {
                return Some(alpha);
            }
        }
        None
    }

    /// The exact search's ordering at a node the table knows nothing of: a selective search
    /// of it with the same window (at the solve's `root` rising through `ROOT_PRESEARCH`),
    /// for the move it leaves in the table (returned; `PASS` if none). The bounds it stores
    /// carry its confidence, so the exact search takes only their moves (`Table::get_sel`).
    pub(super) fn presearch(
        &mut self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        passed: bool,
        root: bool,
    ) -> u16 {
        debug_assert!(self.cut.is_none());
        let levels: &[Confidence] = if root {
            &ROOT_PRESEARCH
        } else {
            &[PRESEARCH_CONFIDENCE]
        };
        self.pre = true;
        for &c in levels {
            self.cut = Some(c);
            self.search(p, o, alpha, beta, passed);
            if self.aborted {
                break;
            }
        }
        self.pre = false;
        self.cut = None;
        self.table.get_sel(Self::key(p, o), 0).map_or(PASS, |e| e.2)
    }

    /// The value of the predicting search at `ne` empties (hundredths of a disc).
    #[cfg(test)]
    pub(super) fn prediction(&mut self, p: u64, o: u64, depth: u32) -> i32 {
        self.shallow::<false>(p, o, depth, -i32::MAX, i32::MAX, 1)
    }
}

/// Searches the position (`p` to move) selectively at confidence `c`: a margin and the move
/// that reaches it (`PASS` when `p` must pass); `None` if `abort` returned true first or
/// neither side can move.
pub fn solve_selective(
    p: u64,
    o: u64,
    table: &Table,
    net: Net,
    c: Confidence,
    abort: &dyn Fn() -> bool,
) -> Result<Option<SolveResult>, String> {
    Ok(
        solve_selective_root(p, o, table, net, c, None, u64::MAX, abort)?
            .and_then(|r| r.complete.then_some(r.result)),
    )
}

/// What `solve_selective_root` found.
pub struct Selective {
    pub result: SolveResult,
    /// Every root move was searched. When not, `result` is the best of the root moves searched
    /// before the abort (a move that failed high counts, at the bound it cleared), as an
    /// iterative deepening keeps a move found better in an unfinished iteration.
    pub complete: bool,
    /// The root move searched first (the table's move, where it had one).
    pub first: u16,
}

/// `solve_selective`, keeping what an aborted search learned at the root: `None` only when no
/// root move finished (or neither side can move). `guess`: the margin expected (the last
/// level's), searched first in a narrow window around it (`aspiration_window`),
/// widened to the side it fails on. `limit`: a budget of nodes, search + ordering
/// (`Solver::with_limit`; `u64::MAX` for none): running out is an abort.
#[allow(clippy::too_many_arguments)]
pub fn solve_selective_root(
    p: u64,
    o: u64,
    table: &Table,
    net: Net,
    c: Confidence,
    guess: Option<i32>,
    limit: u64,
    abort: &dyn Fn() -> bool,
) -> Result<Option<Selective>, String> {
    let mut s = Solver::new(table, net, abort)?.with_limit(limit);
    s.cut = Some(c);
    let mv = moves(p, o);
    if mv == 0 {
        return Ok(s.solve_pass(p, o).map(|result| Selective {
            result,
            complete: true,
            first: PASS,
        }));
    }
    let ne = (!(p | o)).count_ones();
    let (mut lo, mut hi) = super::aspiration_window(guess);
    let mut first = None;
    loop {
        let tt_move = table.get_sel(Solver::key(p, o), s.sel()).map(|e| e.2);
        let mut list = Vec::with_capacity(32);
        let mut m = mv;
        while m != 0 {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = super::flips(p, o, sq);
            let score = if tt_move == Some(sq as u16) {
                1 << 20
            } else {
                s.order_score(p, o, sq, f, ne, -64, None)
            };
            list.push((sq, f, score));
        }
        list.sort_by_key(|e| -e.2);
        let first = *first.get_or_insert(list[0].0 as u16);
        let (best, best_sq) = s.root_window(p, o, &list, lo, hi);
        if best_sq == PASS {
            // Aborted before a move finished, or every move failed low and the search
            // was aborted before it found which is best.
            return Ok(None);
        }
        if !s.aborted {
            if best <= lo && lo > -64 {
                // Below the window: every move is at most `best`; look below it.
                (lo, hi) = (-64, best + 1);
                continue;
            }
            if best >= hi && hi < 64 {
                (lo, hi) = (best - 1, 64);
                continue;
            }
            table.put_sel(Solver::key(p, o), best, best, best_sq, ne, s.sel());
        } else if best <= lo && lo > -64 {
            return Ok(None);
        }
        return Ok(Some(Selective {
            result: SolveResult {
                margin: best,
                best: best_sq,
                nodes: s.nodes,
                ordering_nodes: s.ordering_nodes,
            },
            complete: !s.aborted,
            first,
        }));
    }
}

impl Solver<'_> {
    /// The root moves `list` (square, flips, order) searched in the window (`lo`, `hi`): the
    /// best value (fail-soft) and its move (`PASS` when none finished before an abort; a move
    /// that failed high in the unfinished re-search counts at the bound it cleared). A result
    /// at or below `lo` holds no best move worth playing unless the search was complete.
    fn root_window(
        &mut self,
        p: u64,
        o: u64,
        list: &[(u32, u64, i32)],
        lo: i32,
        hi: i32,
    ) -> (i32, u16) {
        let (mut alpha, mut best, mut best_sq) = (lo, -65, PASS);
        for (i, &(sq, f, _)) in list.iter().enumerate() {
            let (np, no) = (p | f | 1 << sq, o & !f);
            let v = if i == 0 {
                let v = -self.search(no, np, -hi, -alpha, false);
                if self.aborted {
                    break;
                }
                v
            } else {
                let v = -self.search(no, np, -alpha - 1, -alpha, false);
                if self.aborted {
                    break;
                }
                if v <= alpha {
                    if v > best {
                        (best, best_sq) = (v, sq as u16);
                    }
                    continue;
                }
                if v >= hi {
                    v
                } else {
                    let w = -self.search(no, np, -hi, -alpha, false);
                    // Aborted in the re-search: the move still cleared alpha.
                    if self.aborted { alpha + 1 } else { w }
                }
            };
            if v > best {
                (best, best_sq) = (v, sq as u16);
            }
            alpha = alpha.max(v);
            if self.aborted || alpha >= hi {
                break;
            }
        }
        (best, best_sq)
    }
}

#[cfg(test)]
mod tests;
