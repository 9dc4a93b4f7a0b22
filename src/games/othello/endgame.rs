//! Exact Othello endgame solving on every board size, and what play runs before its heuristic
//! search: the front of the two solvers, which picks one by the board's size. 8x8 goes to
//! `endgame8` (the bitboard solver, with its selective levels); the boards from 10x10 to 16x16
//! to `endgame_big` (negamax on bit sets, moves found along each empty square's rays; a
//! selective pre-search for its ordering).
//! Results are final disc margins for the side to move with perfect play (empty squares count
//! for the winner) and a best move that reaches it; the table of bounds is `solve_table`'s,
//! shared by both solvers.

use super::endgame8::Confidence;
pub use super::solve_table::{SolveResult, Table, narrow, table};
use super::{Othello, PASS};
use crate::bits::Bits;
use crate::game::PlayBudget;

/// The engine solves by itself from this many empty squares.
pub const AUTO_EMPTIES: u32 = 20;

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

/// In play on the boards from 10x10 to 16x16, the most empties at which the exact solver
/// starts with `budget_ms` for the move: `BIG_EXACT_BASE` (14) below 30 ms, then one more
/// empty square for every tripling of the budget (15 from 30 ms, 16 from 90, 17 from 270, 18
/// from 810, 19 from 2.4 s) up to `AUTO_EMPTIES` (20, from 7.3 s, and without a budget:
/// analysis, node limits). The solver reaches about as far on every big board (the times in
/// protocol/benchmarks.md differ more between positions than between sizes), so one rule
/// serves them all: at these empties it finishes within three quarters of the budget on most
/// positions, where from `AUTO_EMPTIES` at a short budget it spent that much of the move's
/// time, gave up, and left the heuristic search the rest.
pub fn big_exact_empties(budget_ms: Option<u64>) -> u32 {
    let Some(b) = budget_ms else {
        return AUTO_EMPTIES;
    };
    let (mut e, mut step) = (BIG_EXACT_BASE, 30);
    while b >= step && e < AUTO_EMPTIES {
        e += 1;
        step *= 3;
    }
    e
}

/// The big boards' exact solver's start with a budget under 30 ms (`big_exact_empties`).
const BIG_EXACT_BASE: u32 = 14;

/// Under a node limit (`go nodes`) below this many nodes play runs no solver: the heuristic
/// search has them all, as before node limits reached the solver (scripts that play games
/// at a few thousand nodes a move keep their games).
pub const MIN_SOLVER_NODES: u64 = 100_000;

/// Under a node limit below this many nodes the exact solver runs from `EXACT_EMPTIES` only,
/// no selective level: with fewer nodes the heuristic search plays better moves at 22-26
/// empties (the midgame set, protocol/benchmarks.md "The thirty-third session": at 1 M and 2
/// M nodes the levels lose 0.73 and 0.57 discs a move, the heuristic search 0.59 at 1 M; at
/// 3 M 0.42 against 0.47).
pub const MIN_LEVEL_NODES: u64 = 3_000_000;

/// Nodes (search + ordering) the 8x8 solver visits in a millisecond on the machine its rules
/// in milliseconds were set on (about 6 M in the 300 ms of a move of the midgame set,
/// protocol/benchmarks.md "The thirty-second session"): under a node limit, the time those
/// rules see (`selective_empties`).
pub const NODES_PER_MS: u64 = 20_000;

/// What play runs before the heuristic search: on 8x8 from `selective_empties` the selective
/// search at each of `SELECTIVE_LEVELS` and then the exact one, keeping the last that finished
/// before `abort`, or what the unfinished level after it found better at the root
/// (`InPlay`); elsewhere the exact solver from `AUTO_EMPTIES`. `abort(has_result)`: true to
/// stop, told whether a result is already in hand (no heuristic search then needs the time
/// left). Under a node limit (`budget.nodes`, 8x8 only: the bitboard solver counts its nodes)
/// the levels stop at its first count until one has finished, then at its second; the time
/// rules see the nodes as `NODES_PER_MS`; below `MIN_SOLVER_NODES` nothing runs, below
/// `MIN_LEVEL_NODES` the exact solver from `EXACT_EMPTIES` only. `Err(nodes)`: no result,
/// after that many nodes (0: nothing run).
pub fn solve_in_play<B: Bits>(
    pos: &Othello<B>,
    abort: &dyn Fn(bool) -> bool,
    budget: PlayBudget,
) -> Result<InPlay, u64> {
    let ne = pos.empties();
    let budget_ms = match budget.nodes {
        Some([_, all]) if pos.geo.n != 8 || all < MIN_SOLVER_NODES => return Err(0),
        Some([_, all]) => Some(all / NODES_PER_MS),
        None => budget.ms,
    };
    let [first_limit, limit] = budget.nodes.unwrap_or([u64::MAX; 2]);
    // Without a result the solver stopped at its first count (or was told to stop).
    let spent = budget.nodes.map_or(0, |_| first_limit);
    if pos.geo.n != 8 {
        if ne > big_exact_empties(budget_ms) {
            return Err(0);
        }
        return solve(pos, &|| abort(false))
            .map(|result| InPlay {
                result,
                level: None,
                complete: true,
            })
            .ok_or(0);
    }
    let (p, o) = (pos.me.low64(), pos.opp.low64());
    // The selective levels predict with the 8x8 patterns: without them (`EvalFile <none>`)
    // each level would be the exact search.
    let net = pos.patterns.0;
    let levels = budget.nodes.is_none_or(|[_, all]| all >= MIN_LEVEL_NODES);
    if ne <= EXACT_EMPTIES || ne > selective_empties(budget_ms) || net.is_none() || !levels {
        if ne > if levels { AUTO_EMPTIES } else { EXACT_EMPTIES } {
            return Err(0);
        }
        return super::endgame8::solve_within(p, o, table(), net, None, first_limit, &|| {
            abort(false)
        })
        .ok()
        .flatten()
        .map(|result| InPlay {
            result,
            level: None,
            complete: true,
        })
        .ok_or(spent);
    }
    let mut last: Option<InPlay> = None;
    let (mut nodes, mut ordering_nodes) = (0, 0);
    for t in SELECTIVE_LEVELS.map(Some).into_iter().chain([None]) {
        let has = last.is_some();
        let level_abort = || abort(has);
        let left = if has { limit } else { first_limit }.saturating_sub(nodes + ordering_nodes);
        // Each level starts from the margin the last one found (an aspiration window).
        let guess = last.as_ref().map(|l| l.result.margin);
        let r = match t {
            Some(t) => super::endgame8::solve_selective_root(
                p,
                o,
                table(),
                net,
                Confidence(t),
                guess,
                left,
                &level_abort,
            )
            .map(|r| r.map(|s| (s.result, s.complete, s.first))),
            None => super::endgame8::solve_within(p, o, table(), net, guess, left, &level_abort)
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
    last.ok_or(spent)
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
        return super::endgame8::solve_threads(
            p,
            o,
            table(),
            pos.patterns.0,
            false,
            threads,
            abort,
        )
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
    if pos.geo.n == 8 {
        let (p, o) = (pos.me.low64(), pos.opp.low64());
        return super::endgame8::solve(p, o, table(), pos.patterns.0, canonical, abort)
            .ok()
            .flatten();
    }
    super::endgame_big::solve(pos, abort)
}
