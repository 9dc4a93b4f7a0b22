//! The exact search's last empties (`SMALL_EMPTIES` and fewer), where a table and move
//! ordering cost more than they save: every empty square tried in quadrant-parity order
//! (odd quadrants first, the squares beside a corner last in each; `small`), the last two
//! by a search of their own (`two`), the last one counted without a move (`last`). Scores:
//! the final disc margin for the side to move, fail-soft. Node counts are part of the
//! solver's bench signature: an order changed here changes it.

use super::bitboard::{last_flip_count, stable};
use super::{BESIDE_CORNERS, QUADRANTS, Solver, flips, raise};

impl Solver<'_> {
    /// The last empty square: flips counted by line tables (`last_flip_count`), no move
    /// generated.
    pub(super) fn last(&mut self, p: u64, o: u64, sq: u32) -> i32 {
        self.nodes += 1;
        let d = 2 * p.count_ones() as i32 - 63;
        let n = last_flip_count(p, sq) as i32;
        if n > 0 {
            return d + 2 * n + 1;
        }
        let n = last_flip_count(o, sq) as i32;
        if n > 0 {
            return d - 2 * n - 1;
        }
        if d > 0 { d + 1 } else { d - 1 }
    }

    /// Two empty squares `a` and `b`.
    pub(super) fn two(
        &mut self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        [a, b]: [u32; 2],
        passed: bool,
    ) -> i32 {
        self.nodes += 1;
        let mut best = -65;
        let f = flips(p, o, a);
        if f != 0 {
            best = -self.last(o & !f, p | f | 1 << a, b);
            if best >= beta {
                return best;
            }
        }
        let f = flips(p, o, b);
        if f != 0 {
            best = best.max(-self.last(o & !f, p | f | 1 << b, a));
        }
        if best == -65 {
            if passed {
                return Self::final_margin(p, o);
            }
            return -self.two(o, p, -beta, -alpha, [a, b], true);
        }
        best
    }

    /// Two to `SMALL_EMPTIES` empties: each empty square tried in parity order.
    pub(super) fn small(&mut self, p: u64, o: u64, mut alpha: i32, beta: i32, passed: bool) -> i32 {
        let empty = !(p | o);
        match empty.count_ones() {
            1 => return self.last(p, o, empty.trailing_zeros()),
            2 => {
                let squares = [
                    empty.trailing_zeros(),
                    (empty & (empty - 1)).trailing_zeros(),
                ];
                return self.two(p, o, alpha, beta, squares, passed);
            }
            _ => {}
        }
        self.nodes += 1;
        // Stability, as in `search`.
        if 64 - 2 * o.count_ones() as i32 <= alpha {
            let max = 64 - 2 * stable(o, p).count_ones() as i32;
            if max <= alpha {
                return max;
            }
        }
        let mut odd = 0;
        for q in QUADRANTS {
            if (empty & q).count_ones() & 1 == 1 {
                odd |= q;
            }
        }
        let mut best = -65;
        // Odd quadrants first; in each, the squares beside a corner last.
        let sets = [
            empty & odd & !BESIDE_CORNERS,
            empty & odd & BESIDE_CORNERS,
            empty & !odd & !BESIDE_CORNERS,
            empty & !odd & BESIDE_CORNERS,
        ];
        for set in sets {
            let mut s = set;
            while s != 0 {
                let sq = s.trailing_zeros();
                s &= s - 1;
                let f = flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                let v = -self.small(o & !f, p | f | 1 << sq, -beta, -alpha, false);
                if raise(v, &mut best, &mut alpha, beta) {
                    return v;
                }
            }
        }
        if best == -65 {
            if passed {
                return Self::final_margin(p, o);
            }
            return -self.small(o, p, -beta, -alpha, true);
        }
        best
    }
}
