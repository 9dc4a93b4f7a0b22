//! The claimeven upper bound of the Connect Four solver: what the side to move (X) can get at
//! best when the opponent (Y) follows Allis's *claimeven* strategy on a board with an even
//! number of empty cells (`Solver::claimeven_bound` calls it).
//!
//! Y answers X in the same column, or, when X plays in a column with an odd number of empty
//! cells, in another such column (they come in pairs). Y then gets every empty cell at an
//! even distance from the top of its column (`top_rows`) but the next cell of each odd
//! column, which X may take; X gets at most the rest.
//!
//! - No four of X's in that rest: X cannot win (at most a draw); a four of Y's as well: X
//!   loses.
//! - Fours of X's as well (the generalisation, after Christophe Steininger's evens bound):
//!   cells fill from the bottom, so a four of X's that lies, column by column, above every
//!   cell of some four of Y's (it *covers* it) can only be completed after Y has completed
//!   that four. When every four of X's covers one of Y's, X still loses. A vertical four of
//!   X's covers nothing.
//! - The loss comes no later than Y's four with the lowest highest cell allows (`loss`).

use super::super::board::Dims;

fn shr(x: u64, s: u32) -> u64 {
    x.checked_shr(s).unwrap_or(0)
}

/// The lowest-index cell of every four in direction `s` (a shift) within `pos`.
#[inline]
fn starts(pos: u64, s: u32) -> u64 {
    let m = pos & shr(pos, s);
    m & shr(m, 2 * s)
}

/// Every cell of `board` at least `k` rows above a cell of `x`, in the same column.
#[inline]
fn above(x: u64, k: u32, board: u64, height: u32) -> u64 {
    let mut x = x;
    for _ in 0..k {
        x = (x << 1) & board;
    }
    let mut r = x;
    for _ in 1..height {
        x = (x << 1) & board;
        r |= x;
    }
    r
}

/// The upper bound on X's score (0: a draw at best, negative: a loss, `loss`) or None where the bound does
/// not apply or says nothing. `cur` and `mask` are X's stones and all stones, `possible` the
/// next cell of every column; the number of empty cells must be even.
#[inline]
pub(super) fn claimeven_bound(
    dims: Dims,
    top_rows: u64,
    cur: u64,
    mask: u64,
    possible: u64,
) -> Option<i32> {
    let board = dims.board_mask();
    let empty = board & !mask;
    let theirs = (cur ^ mask) | (empty & top_rows & !possible);
    let ours = cur | (empty & !theirs);
    let y_four = super::four(dims, theirs);
    if !super::four(dims, ours) {
        return Some(if y_four { loss(dims, theirs) } else { 0 });
    }
    if !y_four || starts(ours, 1) != 0 {
        return None;
    }
    // Directions as shifts: horizontal, down-right diagonal (rows r, r-1, r-2, r-3 from its
    // first cell), up-right diagonal (r .. r+3).
    let h = dims.height;
    let dirs = [h + 1, h, h + 2];
    let y = dirs.map(|s| starts(theirs, s));
    // A four of X's in direction `dirs[i]` starting in row r covers a four of Y's in
    // direction `dirs[j]` over the same columns starting in row s when r >= s + LIFT[i][j]
    // (each of Y's cells below X's in its column).
    const LIFT: [[u32; 3]; 3] = [[1, 1, 4], [4, 1, 7], [1, 1, 1]];
    for (i, &s) in dirs.iter().enumerate() {
        let x = starts(ours, s);
        if x == 0 {
            continue;
        }
        let covering = (0..3).fold(0, |acc, j| acc | above(y[j], LIFT[i][j], board, h));
        if x & !covering != 0 {
            return None;
        }
    }
    Some(loss(dims, theirs))
}

/// The bound on X's score when Y's cells hold a four: Y's last stone of a four is the highest
/// of its cells or below, and the cells above it in its column are still empty then, so a four
/// whose highest cell has 2k cells above it wins for Y with at least 2k cells left empty: a
/// score of -(k + 1) or less.
#[inline]
fn loss(dims: Dims, theirs: u64) -> i32 {
    let mut k = 0;
    // Y's cells lie at an even distance from the top: try the rows 2(k+1) below the top.
    while 2 * (k + 1) < dims.height {
        let rows = dims.bottom() * ((1u64 << (dims.height - 2 * (k + 1))) - 1);
        if !super::four(dims, theirs & rows) {
            break;
        }
        k += 1;
    }
    -(k as i32 + 1)
}
