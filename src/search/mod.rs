//! The generic search: iterative deepening with aspiration windows over principal-variation
//! alpha-beta, for any `Game`. It never prints: progress goes to a callback as `Info` values,
//! and the result is returned.
//!
//! Score convention: from the side to move; `MATE - n` means "mate (or a won end) in n plies
//! from the root"; `DRAW` is 0. `|score| >= MATE_BOUND` marks a proven result.

mod history;
mod limits;
mod node;
mod ordering;
pub mod params;
mod probcut;
mod qsearch;
mod strength;
mod tt;
mod worker;

pub use history::Tables;
pub use limits::{Control, Limits, budget};
pub use strength::{FULL as FULL_LEVEL, MAX_ELO, MIN_ELO, Strength, level_of_elo};
pub use tt::{Bound, TranspositionTable};

use crate::game::{Game, Outcome, PlayBudget};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use worker::Worker;

pub type Score = i32;
pub const INF: Score = 32001;
pub const MATE: Score = 32000;
pub const MAX_PLY: usize = 128;
pub const MATE_BOUND: Score = MATE - MAX_PLY as Score;
pub const MAX_DEPTH: u32 = 100;
/// A tablebase win found `ply` plies from the root scores `TB_WIN - ply`: below every mate
/// score, above every evaluation.
pub const TB_WIN: Score = MATE_BOUND - 1 - MAX_PLY as Score;

/// One line of search progress (one `info ... pv ...`).
#[derive(Clone, Debug)]
pub struct Info<M> {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: u32,
    pub score: Score,
    /// `Some(Lower)`: fail high (`lowerbound`); `Some(Upper)`: fail low.
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub time_ms: u64,
    pub pv: Vec<M>,
    /// Endgame-tablebase hits so far (printed only when non-zero).
    pub tbhits: u64,
    /// A remark from a game's solver (e.g. an exact disc margin), sent as `info string`.
    pub note: Option<String>,
}

#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    pub best: Option<M>,
    pub ponder: Option<M>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<M>,
}

#[derive(Clone, Debug)]
pub struct SearchParams<M> {
    pub limits: Limits,
    /// Only these root moves (UCI `searchmoves`); empty means all.
    pub searchmoves: Vec<M>,
    pub multipv: usize,
    pub threads: usize,
    pub move_overhead: u64,
    /// Below full strength: the root move is chosen among `multipv` lines by `Strength`.
    pub strength: Option<Strength>,
}

impl<M> Default for SearchParams<M> {
    fn default() -> Self {
        SearchParams {
            limits: Limits::default(),
            searchmoves: Vec::new(),
            multipv: 1,
            threads: 1,
            move_overhead: 10,
            strength: None,
        }
    }
}

/// Plies to mate for a proven score, positive when the side to move wins.
pub fn mate_plies(score: Score) -> Option<i32> {
    if score >= MATE_BOUND {
        Some(MATE - score)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score))
    } else {
        None
    }
}

/// Runs a complete search on `threads` threads sharing `tt`. `history` holds the hashes of
/// the positions before the root (oldest first) for repetition detection. Returns when the
/// search is over; the caller decides when to hand the result over (`Control::released`).
/// `tables` are the threads' histories, kept between searches (one per thread, grown as
/// needed).
pub fn search<G: Game>(
    root: &G,
    history: &[u64],
    params: &SearchParams<G::Move>,
    tt: &TranspositionTable,
    ctrl: &Control,
    report: &(dyn Fn(&Info<G::Move>) + Sync),
    tables: &mut Vec<Tables>,
) -> SearchResult<G::Move> {
    tt.new_search();
    // A root in the endgame tablebases: only the moves that keep its result, and the result
    // as the score wherever the search has not found a mate.
    let tb_root = if params.searchmoves.is_empty() {
        root.probe_root()
    } else {
        None
    };
    if let Some((moves, outcome)) = tb_root
        && !moves.is_empty()
    {
        ctrl.tbhits.fetch_add(moves.len() as u64, Relaxed);
        let tb_score = match outcome {
            Outcome::Win => TB_WIN,
            Outcome::Draw => 0,
            Outcome::Loss => -TB_WIN,
        };
        let adjust = |score: Score| {
            if score.abs() >= MATE_BOUND {
                score
            } else {
                tb_score
            }
        };
        let mut params = params.clone();
        params.searchmoves = moves;
        let report = |info: &Info<G::Move>| {
            let mut info = info.clone();
            info.score = adjust(info.score);
            info.bound = None;
            report(&info);
        };
        let mut result = run_search(root, history, &params, tt, ctrl, &report, tables);
        result.score = adjust(result.score);
        return result;
    }
    if let Some(result) = try_solver(root, params, ctrl, report) {
        return result;
    }
    run_search(root, history, params, tt, ctrl, report, tables)
}

/// The threads' search proper (`search` after the tablebases and the solver).
fn run_search<G: Game>(
    root: &G,
    history: &[u64],
    params: &SearchParams<G::Move>,
    tt: &TranspositionTable,
    ctrl: &Control,
    report: &(dyn Fn(&Info<G::Move>) + Sync),
    tables: &mut Vec<Tables>,
) -> SearchResult<G::Move> {
    let threads = params.threads.max(1);
    while tables.len() < threads {
        tables.push(Tables::default());
    }
    // Stops the helpers when the main thread is done, without touching `ctrl.stop` (which
    // means "the client said stop").
    let halt = AtomicBool::new(false);
    let halt = &halt;
    let (main_tables, helper_tables) = tables.split_at_mut(1);
    std::thread::scope(|scope| {
        for (i, t) in helper_tables.iter_mut().take(threads - 1).enumerate() {
            scope.spawn(move || {
                let mut helper = Worker::new(root, history, params, tt, ctrl, halt, t, i + 1);
                helper.iterate(&|_| {});
            });
        }
        let mut main = Worker::new(
            root,
            history,
            params,
            tt,
            ctrl,
            halt,
            &mut main_tables[0],
            0,
        );
        let result = main.iterate(report);
        halt.store(true, Relaxed);
        result
    })
}

/// Runs the game's exact solver first when the limits allow it, giving it
/// `BooksAndSolvers::solver_share` percent of the move's soft budget (within 75% of the hard limit,
/// 98% once it holds a result); `None` when the game has no solver for this position, the limits
/// forbid it, several lines are asked for, or the solver did not finish.
fn try_solver<G: Game>(
    root: &G,
    params: &SearchParams<G::Move>,
    ctrl: &Control,
    report: &(dyn Fn(&Info<G::Move>) + Sync),
) -> Option<SearchResult<G::Move>> {
    if !params.limits.allow_solver || root.outcome().is_some() {
        return None;
    }
    // The solver answers one move: several lines (MultiPV) are the search's to give.
    if !params.searchmoves.is_empty() || params.multipv > 1 {
        return None;
    }
    // Whatever its share, the solver leaves a quarter of the hard limit to the heuristic
    // search that plays if it gives up (with a fixed move time, soft and hard are equal),
    // unless it already holds a result (a selective endgame level): then it may run to 98%
    // (`Move Overhead` is already off the hard limit; the 2% covers the abort's polling and
    // the report).
    let share = root.solver_share();
    let abort = |has_result: bool| {
        ctrl.stopped()
            || ctrl.past_hard_share(if has_result { 98 } else { 75 })
            || ctrl.past_soft(share)
    };
    // Under a node limit the same shares of the nodes: the solver's own share (at most three
    // quarters) until it holds a result, then all of them.
    let budget = PlayBudget {
        ms: ctrl.soft_budget_ms(),
        nodes: params
            .limits
            .nodes
            .map(|n| [(n as u128 * share.min(75) as u128 / 100) as u64, n]),
    };
    let solved = match root.solve_in_play(&abort, budget) {
        Ok(solved) => solved,
        Err(spent) => {
            // The heuristic search has what the solver left of the node limit.
            ctrl.nodes.fetch_add(spent, Relaxed);
            return None;
        }
    };
    ctrl.nodes.fetch_add(solved.nodes, Relaxed);
    let time_ms = ctrl.elapsed_ms();
    let plies = mate_plies(solved.score).map_or(1, |p| p.unsigned_abs().max(1));
    report(&Info {
        depth: plies,
        seldepth: plies,
        multipv: 1,
        score: solved.score,
        bound: None,
        nodes: solved.nodes,
        nps: solved.nodes * 1000 / time_ms.max(1),
        hashfull: 0,
        time_ms,
        pv: vec![solved.best],
        tbhits: 0,
        note: Some(solved.note),
    });
    Some(SearchResult {
        best: Some(solved.best),
        ponder: None,
        score: solved.score,
        depth: plies,
        nodes: solved.nodes,
        pv: vec![solved.best],
    })
}
