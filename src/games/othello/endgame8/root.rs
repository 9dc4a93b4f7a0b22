//! The exact solver's root: a position solved to its margin and a best move (`solve`), from
//! a guessed margin in an aspiration window within a node budget (`solve_within`, the selective
//! levels' guess), or with the moves other threads search put off (`solve_sharing`, for
//! `threads`). A root where the side to move must pass answers `PASS` as its move. The
//! margin is exact whatever the guess: a fail outside the window is searched again on that
//! side.

use super::threads::Busy;
use super::{Net, PASS, SolveResult, Solver, Table, flips, moves};

impl Solver<'_> {
    /// The root where `p` must pass: the margin after the pass (`PASS` its move); `None` if
    /// neither side can move or `abort` stopped the search.
    pub(super) fn solve_pass(&mut self, p: u64, o: u64) -> Option<SolveResult> {
        if moves(o, p) == 0 {
            return None;
        }
        let margin = -self.search(o, p, -64, 64, true);
        (!self.aborted).then_some(SolveResult {
            margin,
            best: PASS,
            nodes: self.nodes,
            ordering_nodes: self.ordering_nodes,
        })
    }
}

/// Solves the position (`p` to move) exactly: the margin and a best move (`PASS` when `p`
/// must pass); `None` if `abort` returned true first or neither side can move.
pub fn solve(
    p: u64,
    o: u64,
    table: &Table,
    net: Net,
    canonical: bool,
    abort: &dyn Fn() -> bool,
) -> Result<Option<SolveResult>, String> {
    solve_sharing(p, o, table, net, canonical, abort, None, None, u64::MAX)
}

/// `solve` from the margin `guess` where there is one (the selective levels': searched first in
/// a window of `ASPIRATION` discs around it, then on the side it fails to) within a budget of
/// `limit` nodes, search + ordering (`Solver::with_limit`; `u64::MAX` for none): `None` when
/// it ran out first.
pub fn solve_within(
    p: u64,
    o: u64,
    table: &Table,
    net: Net,
    guess: Option<i32>,
    limit: u64,
    abort: &dyn Fn() -> bool,
) -> Result<Option<SolveResult>, String> {
    solve_sharing(p, o, table, net, false, abort, None, guess, limit)
}

/// The aspiration window of the exact solver and the selective root: this many discs either
/// side of a guess.
pub(super) const ASPIRATION: i32 = 3;

/// The first window (exclusive bounds) for a search expecting `guess` (none: the whole range).
pub(super) fn aspiration_window(guess: Option<i32>) -> (i32, i32) {
    guess.map_or((-64, 64), |g| {
        ((g - ASPIRATION).max(-64), (g + ASPIRATION).min(64))
    })
}

/// `solve`, deferring the moves that other threads are searching (`busy`).
#[allow(clippy::too_many_arguments)]
pub(super) fn solve_sharing(
    p: u64,
    o: u64,
    table: &Table,
    net: Net,
    canonical: bool,
    abort: &dyn Fn() -> bool,
    busy: Option<&Busy>,
    guess: Option<i32>,
    limit: u64,
) -> Result<Option<SolveResult>, String> {
    let mut s = Solver::new(table, net, abort)?.with_limit(limit);
    s.busy = busy;
    let mv = moves(p, o);
    if mv == 0 {
        return Ok(s.solve_pass(p, o));
    }
    let (mut lo, mut hi) = aspiration_window(guess);
    let margin = loop {
        let v = s.search(p, o, lo, hi, false);
        if s.aborted {
            return Ok(None);
        }
        // Fail-soft: below the window `v` is an upper bound, above it a lower one.
        if v <= lo && lo > -64 {
            (lo, hi) = (-64, v + 1);
        } else if v >= hi && hi < 64 {
            (lo, hi) = (v - 1, 64);
        } else {
            break v;
        }
    };
    // The best move: the first move whose null-window search shows that it reaches the
    // margin, tried in bit order, after the table's move unless `canonical` (a choice that
    // depends on the position alone, not on what the table held).
    let mut order = Vec::with_capacity(33);
    if !canonical && let Some((_, _, b)) = table.get(Solver::key(p, o)) {
        order.push(b as u32);
    }
    let mut m = mv;
    while m != 0 {
        order.push(m.trailing_zeros());
        m &= m - 1;
    }
    for sq in order {
        if sq >= 64 || mv >> sq & 1 == 0 {
            continue;
        }
        let f = flips(p, o, sq);
        let v = -s.search(o & !f, p | f | 1 << sq, -margin, -margin + 1, false);
        if s.aborted {
            return Ok(None);
        }
        if v >= margin {
            return Ok(Some(SolveResult {
                margin,
                best: sq as u16,
                nodes: s.nodes,
                ordering_nodes: s.ordering_nodes,
            }));
        }
    }
    Err("the 8x8 solver found no move reaching its own margin".into())
}
