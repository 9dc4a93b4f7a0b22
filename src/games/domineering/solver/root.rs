//! The solver's entry points: a position of the game (`Domineering`) turned into the
//! solver's board and solved to its winner and a winning move (an anchor of `Domineering`,
//! `None` when the side to move loses), on one thread (`solve`, `solve_with`) or several
//! sharing one table (`solve_parallel`, `solve_parallel_until`). Node counts are summed over
//! the threads.

use super::frame::{Board, Mv};
use super::{BUSY_PLIES, Busy, Solver, Table, table};
use crate::bits::Bits;
use crate::games::domineering::Domineering;
use crate::games::domineering::board::Side;

/// Result of a full solve from a position.
pub struct Outcome {
    pub winner: Side,
    /// A winning move (an anchor of `Domineering`) when the side to move wins.
    pub best: Option<u32>,
    pub nodes: u64,
}

impl Outcome {
    /// The outcome for a side to move `to_move` that wins (`win`) or loses.
    fn of(to_move: Side, win: bool, best: Option<u32>, nodes: u64) -> Outcome {
        let winner = if win { to_move } else { to_move.other() };
        Outcome {
            winner,
            best,
            nodes,
        }
    }
}

fn board_of<B: Bits>(pos: &Domineering<B>) -> Board {
    let (rows, cols) = (pos.geo.rows, pos.geo.cols);
    let turn = match pos.to_move {
        Side::Horizontal => 0,
        Side::Vertical => 1,
    };
    let mut b = Board::new(rows, cols, turn);
    for r in 0..rows {
        for c in 0..cols {
            if pos.occupied.has(r * cols + c) {
                b.cover(r, c);
            }
        }
    }
    b
}

/// Solves `pos` with the process-wide table.
pub fn solve<B: Bits>(pos: &Domineering<B>, abort: &dyn Fn() -> bool) -> Option<Outcome> {
    solve_with(pos, table(), abort)
}

/// Solves `pos` with `threads` threads sharing `table`: every thread solves the whole
/// position, storing its proofs in the table for the others, and puts off the children that
/// another thread is searching (`Busy`); the first to finish gives the answer. Nodes are
/// summed over the threads.
pub fn solve_parallel<B: Bits>(pos: &Domineering<B>, table: &Table, threads: usize) -> Outcome {
    solve_parallel_until(pos, table, threads, &|| false).unwrap_or_else(|| {
        // Cannot happen (nothing aborts the threads but a finished thread); solve again.
        solve_with(pos, table, &|| false).unwrap_or(Outcome {
            winner: pos.to_move,
            best: None,
            nodes: 0,
        })
    })
}

/// `solve_parallel` until `abort` says stop (then `None`; what was proven is in the table).
pub fn solve_parallel_until<B: Bits>(
    pos: &Domineering<B>,
    table: &Table,
    threads: usize,
    abort: &(dyn Fn() -> bool + Sync),
) -> Option<Outcome> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let done = AtomicBool::new(false);
    let stop = || done.load(Ordering::Relaxed) || abort();
    let (rows, cols) = (pos.geo.rows, pos.geo.cols);
    let board = board_of(pos);
    let busy = Busy::new(16);
    let results: Vec<(Option<Option<Mv>>, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                let stop = &stop;
                let done = &done;
                let busy = &busy;
                scope.spawn(move || {
                    let mut s = Solver::new(rows, cols, table, stop);
                    if threads > 1 {
                        s.busy = Some(busy);
                        s.busy_min = board.empty.saturating_sub(BUSY_PLIES);
                    }
                    let root = s.node(board);
                    let win = s.wins(&root);
                    let answer = if s.aborted {
                        None
                    } else if win {
                        s.winning_move(&root).map(Some)
                    } else {
                        Some(None)
                    };
                    if answer.is_some() {
                        done.store(true, Ordering::Relaxed);
                    }
                    (answer, s.nodes)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((None, 0)))
            .collect()
    });
    let nodes = results.iter().map(|r| r.1).sum();
    // Every finished thread proved the same result; the first one's move is taken.
    let answer = results.iter().find_map(|r| r.0);
    let best = answer.flatten().map(|m| {
        let [(r, c), _] = Board::cells(board.turn, m);
        r * cols + c
    });
    let win = answer?.is_some();
    Some(Outcome::of(pos.to_move, win, best, nodes))
}

/// `Solver::key_digest` for a board of `rows` x `cols` (the table takes that shape).
pub fn key_digest(rows: u32, cols: u32, table: &Table) -> u64 {
    Solver::new(rows, cols, table, &|| false).key_digest()
}

/// Solves `pos` with the given table.
pub fn solve_with<B: Bits>(
    pos: &Domineering<B>,
    table: &Table,
    abort: &dyn Fn() -> bool,
) -> Option<Outcome> {
    let (rows, cols) = (pos.geo.rows, pos.geo.cols);
    let mut s = Solver::new(rows, cols, table, abort);
    let root = s.node(board_of(pos));
    let win = s.wins(&root);
    if s.aborted {
        return None;
    }
    let best = if win {
        let m = s.winning_move(&root)?;
        let [(r, c), _] = Board::cells(root.b.turn, m);
        Some(r * cols + c)
    } else {
        None
    };
    Some(Outcome::of(pos.to_move, win, best, s.nodes))
}
