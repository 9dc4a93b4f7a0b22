//! The Connect Four solver's questions about a root position: does the side to move lose,
//! its exact (or win/draw/loss) score by a sequence of null-window searches, the moves that
//! keep that score, and every move's score. The search itself is `Solver::negamax` (mod.rs).

use super::super::board::{Board, winning_cells};
use super::{EARLY_EMPTIES, Pos, Solver};

impl Solver<'_> {
    /// Does the side to move lose (with best play by both)? One null-window search
    /// (-1, 0): cheaper than a weak solve when only a win for the other side matters.
    /// None if aborted.
    pub fn loses(&mut self, b: &Board) -> Option<bool> {
        if b.over() {
            return Some(b.won);
        }
        if winning_cells(self.dims, b.current, b.mask) & b.possible() != 0 {
            return Some(false);
        }
        if b.moves as i32 >= self.cells - 1 {
            return Some(false);
        }
        let r = self.negamax(Pos::of(b), -1, 0);
        if self.aborted {
            return None;
        }
        Some(r < 0)
    }

    /// The exact score (or, with `weak`, only its sign as -1/0/1). None if aborted.
    pub fn solve(&mut self, b: &Board, weak: bool) -> Option<i32> {
        let score = self.solve_inner(b, weak)?;
        Some(if weak { score.signum() } else { score })
    }

    /// The score of a position that is not over and has no immediate win, or a bound:
    /// `decided` answers the first question (exact score, or its sign when weak).
    fn solve_inner(&mut self, b: &Board, weak: bool) -> Option<i32> {
        let cells = self.cells;
        let moves = b.moves as i32;
        if b.over() {
            return Some(if b.won { -(cells + 2 - moves) / 2 } else { 0 });
        }
        if winning_cells(self.dims, b.current, b.mask) & b.possible() != 0 {
            return Some((cells + 1 - moves) / 2);
        }
        let (mut min, mut max) = if weak {
            (-1, 1)
        } else {
            (-(cells - moves) / 2, (cells + 1 - moves) / 2)
        };
        let p = Pos::of(b);
        // Early in the game the value is near 0 (7x6: +1 at the start): test the windows next
        // to 0 first (each one away from the truth costs a full proof), later bisect, nearer 0
        // first (Pons's choice).
        let early = cells - moves >= EARLY_EMPTIES;
        // But a quick win or loss is cheap to prove with a window at the extreme and dear with
        // one next to 0 (the search then looks for wins of every length): far from the end
        // the two extreme windows go first, and the windows next to 0 only if both fail.
        let extremes = [max / 2, min / 2];
        let mut extremes = if early && !weak {
            &extremes[..]
        } else {
            &[][..]
        };
        while min < max {
            let mut med = min + (max - min) / 2;
            if let Some((&m, rest)) = extremes.split_first() {
                extremes = rest;
                if m < min || m >= max {
                    continue;
                }
                med = m;
            } else if early && min < 0 && max > 0 {
                med = -1;
            } else if early && min == 0 && max > 1 {
                med = 0;
            } else if early && min == 1 && max > 2 {
                med = 1;
            } else if early && max == 0 && min < -1 {
                med = -2;
            } else if early && max == -1 && min < -2 {
                med = -3;
            } else if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            if let Some(sh) = self.shared {
                sh.publish(med);
            }
            let r = self.negamax(p, med, med + 1);
            if self.aborted {
                return None;
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Some(min)
    }

    /// A column that reaches `score` (the position's value from `solve`, exact or weak), or
    /// None if the game is over: the table's best move first, then the others centre first,
    /// each checked by one null-window search (cheap with the table warm from the solve).
    pub fn best_move(&mut self, b: &Board, score: i32, weak: bool) -> Option<u32> {
        if b.over() {
            return None;
        }
        let first = self.table.get(self.key(Pos::of(b))).best;
        let order: Vec<u32> = first.into_iter().chain(self.order.clone()).collect();
        for col in order {
            if !b.can_play(col) {
                continue;
            }
            if self.reaches(b, col, score, weak)? {
                return Some(col);
            }
        }
        None
    }

    /// Does playing `col` keep the exact value `score`? None if aborted.
    pub fn reaches_score(&mut self, b: &Board, col: u32, score: i32) -> Option<bool> {
        self.reaches(b, col, score, false)
    }

    /// Does playing `col` keep the value `score` (exact, or weak)? None if aborted.
    fn reaches(&mut self, b: &Board, col: u32, score: i32, weak: bool) -> Option<bool> {
        let cells = self.cells;
        if b.is_winning_move(col) {
            let win = if weak {
                1
            } else {
                (cells + 1 - b.moves as i32) / 2
            };
            return Some(win == score);
        }
        let mut child = b.clone();
        child.play_col(col);
        // The column is best iff the child's value is at most -score.
        let t = -score;
        let v_le_t = if child.is_full() {
            0 <= t
        } else if winning_cells(self.dims, child.current, child.mask) & child.possible() != 0 {
            let v = (cells + 1 - child.moves as i32) / 2;
            (if weak { 1 } else { v }) <= t
        } else if weak {
            let c = Pos::of(&child);
            match t {
                -1 => self.negamax(c, -1, 0) < 0,
                0 => self.negamax(c, 0, 1) <= 0,
                _ => true,
            }
        } else {
            self.negamax(Pos::of(&child), t, t + 1) <= t
        };
        (!self.aborted).then_some(v_le_t)
    }

    /// Score of every legal column (None for full columns), and whether it completed.
    pub fn analyze(&mut self, b: &Board, weak: bool) -> Option<Vec<Option<i32>>> {
        let mut out = vec![None; self.dims.width as usize];
        for col in 0..self.dims.width {
            if !b.can_play(col) || b.over() {
                continue;
            }
            if b.is_winning_move(col) {
                let s = (self.cells + 1 - b.moves as i32) / 2;
                out[col as usize] = Some(if weak { 1 } else { s });
                continue;
            }
            let mut child = b.clone();
            child.play_col(col);
            out[col as usize] = Some(-self.solve(&child, weak)?);
        }
        Some(out)
    }
}
