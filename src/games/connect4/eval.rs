//! Heuristic Connect Four evaluation for positions the solver cannot finish in time, from the
//! side to move: threats (empty cells that complete a four) weighted by the row parity rule —
//! the first player profits from threats on odd rows (1st, 3rd, ... from the bottom), the
//! second from even rows — plus a small bonus for stones in central columns.

use super::board::{Board, winning_cells};
use crate::game::Player;

pub fn evaluate(b: &Board) -> i32 {
    let dims = b.dims;
    let (p1, p2) = b.stones();
    let t1 = winning_cells(dims, p1, b.mask);
    let t2 = winning_cells(dims, p2, b.mask);
    // Rows counted from 1 at the bottom: "odd" rows are bit rows 0, 2, 4...
    let mut odd_rows = 0u64;
    for c in 0..dims.width {
        for r in (0..dims.height).step_by(2) {
            odd_rows |= dims.bit(c, r);
        }
    }
    let even_rows = dims.board_mask() & !odd_rows;
    let score_p1 =
        40 * (t1 & odd_rows).count_ones() as i32 + 15 * (t1 & even_rows).count_ones() as i32;
    let score_p2 =
        40 * (t2 & even_rows).count_ones() as i32 + 15 * (t2 & odd_rows).count_ones() as i32;
    let mut centre = 0;
    let w = dims.width as i32;
    for c in 0..dims.width {
        let weight = (w / 2 - (c as i32 - (w - 1) / 2).abs()).max(0);
        let col = dims.column_mask(c);
        centre += weight * ((p1 & col).count_ones() as i32 - (p2 & col).count_ones() as i32);
    }
    let s = score_p1 - score_p2 + 3 * centre;
    match b.to_move() {
        Player::P1 => s,
        Player::P2 => -s,
    }
}
