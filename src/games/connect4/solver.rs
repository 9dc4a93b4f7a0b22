//! The Connect Four solver: the exact game-theoretic score of a position in the convention of
//! the published test sets — positive when the side to move wins, `(cells + 1 - moves) / 2`
//! for a win with its next stone, one less for each later stone; 0 a draw; negative a loss.
//!
//! Method (after Pascal Pons's published solver): negamax with alpha-beta on null windows
//! inside a binary search on the score; moves that hand the opponent an immediate win are
//! never generated; moves ordered by the threats they create, centre columns first; a
//! transposition table of bounds. `weak` narrows the search to win/draw/loss.
//!
//! Table entry: the key (mirror images share one below `SYMMETRY_PLIES` stones), and a byte `v`: 0 empty, up to `MAX - MIN + 1` an upper bound
//! `v + MIN - 1`, above that a lower bound `v + 2 MIN - MAX - 2` (see `encode_*`).

use super::board::{Board, Dims, winning_cells};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct SolverTable {
    /// One word per entry: the key's low 56 bits, then the value byte. The slot is the key
    /// modulo a prime above 256, so slot and low bits together identify the whole key.
    entries: Vec<AtomicU64>,
    /// The board shape the entries belong to (`width << 8 | height`); another shape clears
    /// them, since keys are only unique within one shape.
    shape: std::sync::Mutex<u32>,
}

/// Prime number of entries (~64 MiB).
const TABLE_SIZE: usize = (1 << 23) + 9;

impl SolverTable {
    pub fn new(size: usize) -> SolverTable {
        let t = SolverTable {
            entries: (0..size).map(|_| AtomicU64::new(0)).collect(),
            shape: std::sync::Mutex::new(0),
        };
        // Touch every page now, so the memory is taken at start-up (before `readyok`), not
        // little by little during play.
        t.clear();
        t
    }

    fn use_shape(&self, dims: Dims) {
        if let Ok(mut shape) = self.shape.lock() {
            let want = (dims.width << 8) | dims.height;
            if *shape != want {
                self.clear();
                *shape = want;
            }
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key % self.entries.len() as u64) as usize
    }

    #[inline]
    fn get(&self, key: u64) -> u8 {
        let e = self.entries[self.slot(key)].load(Relaxed);
        if e >> 8 == key & KEY_BITS { e as u8 } else { 0 }
    }

    #[inline]
    fn put(&self, key: u64, value: u8) {
        self.entries[self.slot(key)].store((key & KEY_BITS) << 8 | value as u64, Relaxed);
    }

    pub fn clear(&self) {
        for e in &self.entries {
            e.store(0, Relaxed);
        }
    }
}

const KEY_BITS: u64 = (1 << 56) - 1;

/// Positions with at most this many stones are stored under the smaller of their key and
/// their mirror image's: early on, mirrored transpositions are common and worth the fold.
const SYMMETRY_PLIES: u32 = 16;

/// The process-wide solver table (shared by the engine and `tabula solve`).
pub fn table() -> &'static SolverTable {
    static TABLE: OnceLock<SolverTable> = OnceLock::new();
    TABLE.get_or_init(|| SolverTable::new(TABLE_SIZE))
}

pub struct Solver<'a> {
    dims: Dims,
    table: &'a SolverTable,
    order: Vec<u32>,
    pub nodes: u64,
    abort: &'a dyn Fn() -> bool,
    pub aborted: bool,
    min_score: i32,
    max_score: i32,
    /// XORed into stored keys: a bijection within one shape, and entries of another shape
    /// (solved concurrently in one process) almost never match.
    shape_tag: u64,
}

impl<'a> Solver<'a> {
    pub fn new(dims: Dims, table: &'a SolverTable, abort: &'a dyn Fn() -> bool) -> Self {
        let w = dims.width as i32;
        let order = (0..w)
            .map(|i| (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32)
            .filter(|&c| c < dims.width)
            .collect::<Vec<_>>();
        let cells = dims.cells() as i32;
        table.use_shape(dims);
        Solver {
            dims,
            table,
            order,
            nodes: 0,
            abort,
            aborted: false,
            min_score: -cells / 2 + 3,
            max_score: (cells + 1) / 2 - 3,
            shape_tag: ((dims.width as u64) << 8 | dims.height as u64)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15),
        }
    }

    fn encode_upper(&self, v: i32) -> u8 {
        (v - self.min_score + 1) as u8
    }
    fn encode_lower(&self, v: i32) -> u8 {
        (v + self.max_score - 2 * self.min_score + 2) as u8
    }

    /// Moves that do not lose at once: a bitmap of stones. Empty if every move loses.
    fn non_losing(&self, b: &Board) -> u64 {
        let mut possible = b.possible();
        let opp_win = winning_cells(self.dims, b.opponent(), b.mask);
        let forced = possible & opp_win;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0; // two threats at once
            }
            possible = forced;
        }
        possible & !(opp_win >> 1)
    }

    fn negamax(&mut self, b: &Board, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 0xfff == 0 && (self.abort)() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let cells = self.dims.cells() as i32;
        let moves = b.moves as i32;
        let next = self.non_losing(b);
        if next == 0 {
            return -(cells - moves) / 2;
        }
        if moves >= cells - 2 {
            return 0;
        }
        let min = -(cells - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let mut max = (cells - 1 - moves) / 2;
        let key = if b.moves <= SYMMETRY_PLIES {
            b.key().min(b.mirror_key())
        } else {
            b.key()
        } ^ self.shape_tag;
        let v = self.table.get(key) as i32;
        if v != 0 {
            if v > self.max_score - self.min_score + 1 {
                let lower = v + 2 * self.min_score - self.max_score - 2;
                if alpha < lower {
                    alpha = lower;
                    if alpha >= beta {
                        return alpha;
                    }
                }
            } else {
                max = v + self.min_score - 1;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        // Order: more threats after the move first; ties keep the centre-first order.
        let mut list: [(u64, u32); 32] = [(0, 0); 32];
        let mut n = 0;
        for &c in &self.order {
            let m = next & self.dims.column_mask(c);
            if m != 0 {
                let after = b.current | m;
                let score = winning_cells(self.dims, after, b.mask | m).count_ones();
                let mut i = n;
                while i > 0 && list[i - 1].1 < score {
                    list[i] = list[i - 1];
                    i -= 1;
                }
                list[i] = (m, score);
                n += 1;
            }
        }
        for &(m, _) in &list[..n] {
            let mut child = b.clone();
            child.play_bit(m);
            let score = -self.negamax(&child, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if score >= beta {
                let code = self.encode_lower(score);
                self.table.put(key, code);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        let code = self.encode_upper(alpha);
        self.table.put(key, code);
        alpha
    }

    /// Does the side to move lose (with best play by both)? One null-window search
    /// (-1, 0): cheaper than a weak solve when only a win for the other side matters.
    /// None if aborted.
    pub fn loses(&mut self, b: &Board) -> Option<bool> {
        let cells = self.dims.cells() as i32;
        if b.over() {
            return Some(b.won);
        }
        if winning_cells(self.dims, b.current, b.mask) & b.possible() != 0 {
            return Some(false);
        }
        if b.moves as i32 >= cells - 1 {
            return Some(false);
        }
        let r = self.negamax(b, -1, 0);
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

    fn solve_inner(&mut self, b: &Board, weak: bool) -> Option<i32> {
        let cells = self.dims.cells() as i32;
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
        while min < max {
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(b, med, med + 1);
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

    /// The columns that reach `score` (the position's value from `solve`, exact or weak):
    /// one null-window test per column, cheap with the table warm from the solve.
    pub fn best_moves(&mut self, b: &Board, score: i32, weak: bool) -> Option<Vec<u32>> {
        let cells = self.dims.cells() as i32;
        let mut out = Vec::new();
        for col in 0..self.dims.width {
            if !b.can_play(col) || b.over() {
                continue;
            }
            if b.is_winning_move(col) {
                let win = if weak {
                    1
                } else {
                    (cells + 1 - b.moves as i32) / 2
                };
                if win == score {
                    out.push(col);
                }
                continue;
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
                match t {
                    -1 => self.negamax(&child, -1, 0) < 0,
                    0 => self.negamax(&child, 0, 1) <= 0,
                    _ => true,
                }
            } else {
                self.negamax(&child, t, t + 1) <= t
            };
            if self.aborted {
                return None;
            }
            if v_le_t {
                out.push(col);
            }
        }
        Some(out)
    }

    /// Score of every legal column (None for full columns), and whether it completed.
    pub fn analyze(&mut self, b: &Board, weak: bool) -> Option<Vec<Option<i32>>> {
        let mut out = vec![None; self.dims.width as usize];
        for col in 0..self.dims.width {
            if !b.can_play(col) || b.over() {
                continue;
            }
            if b.is_winning_move(col) {
                let s = (self.dims.cells() as i32 + 1 - b.moves as i32) / 2;
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
