//! The exact endgame solver of the boards from 10x10 to 16x16 (8x8 has its own, `endgame8`;
//! `endgame` picks one by the board's size): negamax on bit sets (`search`), moves found along
//! each empty square's rays (`rays`), a selective pre-search for its ordering (`probcut`), and
//! the table of bounds that it shares with `endgame8` (`solve_table`).

mod probcut;
mod rays;
mod search;

use super::solve_table::{SolveResult, table};
use super::{Othello, PASS};
use crate::bits::Bits;
use search::Solver;

/// Solves `pos` (a board other than 8x8) exactly: the final disc margin for the side to move
/// and a best move (the table's move at the root, else the first in square order that reaches
/// it); `None` if `abort` returned true first or the game is over.
pub fn solve<B: Bits>(pos: &Othello<B>, abort: &dyn Fn() -> bool) -> Option<SolveResult> {
    let g = pos.geo;
    let mut s = Solver::new(g, pos.me, pos.opp, pos.patterns.1, table(), abort);
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
        let v = s.child(pos.me, pos.opp, sq, margin - 1, margin + 1);
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
