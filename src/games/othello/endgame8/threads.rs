//! Multi-threaded exact solving (ABDADA on a shared table): every thread searches the same
//! root with the full window; from `DEFER_MIN_EMPTIES` empties a thread marks the child it
//! enters as busy (`Busy`) and puts off a busy move (other than a node's first) until it has
//! searched the rest, so that the threads spread over the siblings and each finds the
//! others' exact bounds in the table. Every thread still searches every move it does not
//! cut off, so each result is exact; the answer is the main thread's (`solve`), and the
//! helpers stop when it returns (or when `abort` stops it). Nodes (and ordering nodes): every thread's together.

use super::{Net, Solver, moves, solve, solve_sharing};
use crate::games::othello::solve_table::{SolveResult, Table};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The positions that threads are searching now (`crate::busy`).
pub use crate::busy::Busy;

/// `solve` on `threads` threads (1: `solve` itself).
pub fn solve_threads(
    p: u64,
    o: u64,
    table: &Table,
    net: Net,
    canonical: bool,
    threads: usize,
    abort: &dyn Fn() -> bool,
) -> Result<Option<SolveResult>, String> {
    if threads <= 1 {
        return solve(p, o, table, net, canonical, abort);
    }
    let stop = AtomicBool::new(false);
    let busy = Busy::new(14);
    let (helper_nodes, helper_ordering) = (AtomicU64::new(0), AtomicU64::new(0));
    let result = std::thread::scope(|scope| {
        for _ in 1..threads {
            let (stop, helper_nodes, helper_ordering, busy) =
                (&stop, &helper_nodes, &helper_ordering, &busy);
            scope.spawn(move || {
                let stopped = || stop.load(Relaxed);
                let Ok(mut h) = Solver::new(table, net, &stopped) else {
                    return;
                };
                h.busy = Some(busy);
                if moves(p, o) != 0 {
                    h.search(p, o, -64, 64, false);
                } else if moves(o, p) != 0 {
                    h.search(o, p, -64, 64, true);
                }
                helper_nodes.fetch_add(h.nodes, Relaxed);
                helper_ordering.fetch_add(h.ordering_nodes, Relaxed);
            });
        }
        let r = solve_sharing(
            p,
            o,
            table,
            net,
            canonical,
            abort,
            Some(&busy),
            None,
            u64::MAX,
        );
        stop.store(true, Relaxed);
        r
    });
    Ok(result?.map(|mut r| {
        r.nodes += helper_nodes.load(Relaxed);
        r.ordering_nodes += helper_ordering.load(Relaxed);
        r
    }))
}
