//! Solving on several threads: every thread runs the same sequence of null-window searches
//! on one shared table (each search's result is exact, so each thread's next window is the
//! same); near the root a thread puts off a move that another one is searching (ABDADA's
//! deferral, through `Shared`), and helpers vary the order of equally good moves, so that the
//! threads spread over the tree and each finds the others' results in the table. The answer
//! is the main thread's; the helpers stop when it has it. Nodes: all threads together.

use super::{Solver, SolverTable};
use crate::games::connect4::board::{Board, Dims};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// From this many empty cells a thread defers the moves others are searching.
pub const DEFER_EMPTIES: u32 = 16;

/// What the threads of one solve share besides the table: the positions being searched now
/// (`crate::busy`) and the main thread's current window.
pub struct Shared {
    pub busy: crate::busy::Busy,
    /// A generation count (high 32 bits, 0 before the first window) and the window's lower
    /// bound (low 32 bits, as i32).
    window: AtomicU64,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            busy: crate::busy::Busy::new(14),
            window: AtomicU64::new(0),
        }
    }
}

impl Shared {
    /// The main thread starts searching the window `(med, med + 1)`.
    pub fn publish(&self, med: i32) {
        let generation = (self.window.load(Relaxed) >> 32) + 1;
        self.window
            .store(generation << 32 | u64::from(med as u32), Relaxed);
    }
    /// The window being searched (generation, lower bound), if any.
    pub fn window(&self) -> Option<(u64, i32)> {
        let w = self.window.load(Relaxed);
        (w >> 32 != 0).then_some((w >> 32, w as u32 as i32))
    }
}

/// The result of a solve: the score (exact, or its sign when weak) and all threads' nodes.
pub struct Solved {
    pub score: i32,
    pub nodes: u64,
}

/// Solves `b` (exactly, or win/draw/loss with `weak`) on `threads` threads sharing `table`.
/// None if `abort` stopped it.
pub fn solve(
    b: &Board,
    weak: bool,
    table: &SolverTable,
    threads: usize,
    abort: &dyn Fn() -> bool,
) -> Option<Solved> {
    let dims: Dims = b.dims;
    if threads <= 1 {
        let mut s = Solver::new(dims, table, abort);
        let score = s.solve(b, weak)?;
        return Some(Solved {
            score,
            nodes: s.nodes,
        });
    }
    let shared = Shared::default();
    let stop = AtomicBool::new(false);
    let helper_nodes = AtomicU64::new(0);
    let (score, main_nodes) = std::thread::scope(|scope| {
        for _ in 1..threads {
            let (shared, stop, helper_nodes) = (&shared, &stop, &helper_nodes);
            scope.spawn(move || {
                // A helper drops a window as soon as the main thread has moved on.
                let current = std::cell::Cell::new(0);
                let stopped = || {
                    stop.load(Relaxed) || shared.window().is_some_and(|(g, _)| g != current.get())
                };
                let mut h = Solver::new(dims, table, &stopped).with_shared(shared);
                h.help(b, &|| stop.load(Relaxed), &current);
                helper_nodes.fetch_add(h.nodes, Relaxed);
            });
        }
        let mut s = Solver::new(dims, table, abort).with_shared(&shared);
        let score = s.solve(b, weak);
        stop.store(true, Relaxed);
        (score, s.nodes)
    });
    Some(Solved {
        score: score?,
        nodes: main_nodes + helper_nodes.load(Relaxed),
    })
}
