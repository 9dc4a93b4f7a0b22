//! Moves that another move of the same player dominates, found from a few cells around
//! them, so that they need not be searched.
//!
//! Two facts of combinatorial game theory (a copycat argument; see the module's tests):
//! taking away a free cell that the mover can never use (no free neighbour along its lines)
//! never hurts the mover, and taking away one the opponent can never use (protected: no
//! free neighbour across the mover's lines) never helps it. Two moves of the mover along
//! one line that share a cell `a` leave the same position `K` (the board with `a` covered)
//! less one cell each: `b` for the first, `b'` for the second. Where the mover can never
//! use `b` in `K` and the opponent never `b'`, the first leaves `K - b >= K >= K - b'`: at
//! least as good for the mover, in any position, whatever the rest of the board.
//!
//! Along a line, with `x` a covered cell or the edge and `p` a protected free cell:
//! `x [b a] p` — the move against the wall dominates the move `[a p]` beside it, and so
//! does its mirror image `p [a b] x`.
//!
//! Invariant: a move is dropped only for a dominating move that stays in the list (moves
//! are dropped in list order, each for one not dropped yet), so that with Bullock's rule
//! (the list holds no safe moves) a winning side keeps a winning move.

use super::frame::{Frame, MAX_LINES};
use super::moves::Scored;

/// Drops from `list` (the mover's moves in its frame `f`) each move that another move
/// still in the list dominates.
pub(super) fn prune(f: &Frame, list: &mut Vec<Scored>) {
    let mut kept = [0u32; MAX_LINES];
    for s in list.iter() {
        kept[s.mv.line as usize] |= 1 << s.mv.bit;
    }
    let mut dropped = false;
    for s in list.iter() {
        let (i, j) = (s.mv.line as usize, s.mv.bit as u32);
        let covered = f.line[i];
        let prot = f.prot(i);
        // [j, j+1] dominated by [j-1, j]: cell j-2 covered or the edge, j+1 protected.
        let left = j >= 1
            && kept[i] >> (j - 1) & 1 == 1
            && (j == 1 || covered >> (j - 2) & 1 == 1)
            && prot >> (j + 1) & 1 == 1;
        // [j, j+1] dominated by [j+1, j+2]: cell j+3 covered (bits past the line are set),
        // j protected.
        let right = kept[i] >> (j + 1) & 1 == 1
            && covered.checked_shr(j + 3).unwrap_or(1) & 1 == 1
            && prot >> j & 1 == 1;
        if left || right {
            kept[i] &= !(1 << j);
            dropped = true;
        }
    }
    if dropped {
        list.retain(|s| kept[s.mv.line as usize] >> s.mv.bit & 1 == 1);
    }
}
