//! The exact Domineering solver: does the side to move win?
//!
//! - Cutoffs by counting (after Bullock's Obsequi): if the side to move has more safe moves
//!   than the opponent can possibly make, it wins; if the opponent has at least as many safe
//!   moves as the side to move can possibly make, it loses. "Possibly make" is the exact
//!   packing of one side's dominoes ignoring the other, an upper bound.
//! - Move ordering: moves that take the most placements from the opponent and the fewest
//!   from oneself first; one's own safe moves last (they keep).
//! - A transposition table of proven results, keyed on the occupancy and side, folding the
//!   left-right and up-down mirror images (which keep both players' orientations).
//!
//! Results are exact; a torn table entry can only cause a miss (key and result in one word).

use super::Domineering;
use super::board::Side;
use crate::bits::Bits;
use crate::bits::mix;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct Table {
    entries: Vec<AtomicU64>,
    /// The board shape the entries belong to (`rows << 8 | cols`); another shape clears them.
    shape: std::sync::Mutex<u32>,
}

const TABLE_BITS: u32 = 23;

impl Table {
    fn new() -> Table {
        let t = Table {
            entries: (0..1usize << TABLE_BITS)
                .map(|_| AtomicU64::new(0))
                .collect(),
            shape: std::sync::Mutex::new(0),
        };
        t.clear();
        t
    }
    pub fn clear(&self) {
        for e in &self.entries {
            e.store(0, Relaxed);
        }
    }
    /// Makes the table hold entries of this board shape only.
    fn use_shape(&self, rows: u32, cols: u32) {
        if let Ok(mut shape) = self.shape.lock() {
            let want = (rows << 8) | cols;
            if *shape != want {
                self.clear();
                *shape = want;
            }
        }
    }

    fn get(&self, key: u64) -> Option<bool> {
        let e = self.entries[(key >> (64 - TABLE_BITS)) as usize].load(Relaxed);
        if e & 2 != 0 && (e ^ key) & !3 == 0 {
            Some(e & 1 == 1)
        } else {
            None
        }
    }
    fn put(&self, key: u64, win: bool) {
        self.entries[(key >> (64 - TABLE_BITS)) as usize]
            .store((key & !3) | 2 | win as u64, Relaxed);
    }
}

pub fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(Table::new)
}

pub struct Solver<'a, B: Bits> {
    pub nodes: u64,
    abort: &'a dyn Fn() -> bool,
    pub aborted: bool,
    table: &'a Table,
    /// Mirror maps (cell -> mirrored cell) for folding symmetric positions.
    flip_lr: Vec<u32>,
    flip_ud: Vec<u32>,
    /// Per number of empty cells, the last move that won there.
    killers: Vec<u32>,
    /// Move lists by number of empty cells (one per depth), reused across nodes.
    lists: Vec<Vec<(u32, i32)>>,
    /// Mixed into every key, so that boards of other shapes (solved concurrently in one
    /// process) can never share an entry.
    shape_tag: u64,
    _b: std::marker::PhantomData<B>,
}

/// Empty cells from which the table folds mirror images (below this, mirroring costs more
/// than it saves).
const SYMMETRY_MIN_EMPTY: u32 = 24;

impl<'a, B: Bits> Solver<'a, B> {
    pub fn new(pos: &Domineering<B>, table: &'a Table, abort: &'a dyn Fn() -> bool) -> Self {
        let (rows, cols) = (pos.geo.rows, pos.geo.cols);
        let n = rows * cols;
        table.use_shape(rows, cols);
        Solver {
            nodes: 0,
            abort,
            aborted: false,
            table,
            flip_lr: (0..n)
                .map(|i| (i / cols) * cols + (cols - 1 - i % cols))
                .collect(),
            flip_ud: (0..n)
                .map(|i| (rows - 1 - i / cols) * cols + i % cols)
                .collect(),
            killers: vec![u32::MAX; n as usize + 1],
            lists: (0..=n).map(|_| Vec::with_capacity(32)).collect(),
            shape_tag: mix(((rows as u64) << 8 | cols as u64) ^ 0x6a09_e667_f3bc_c908),
            _b: std::marker::PhantomData,
        }
    }

    fn map(occ: B, m: &[u32]) -> B {
        let mut out = B::zero();
        let mut o = occ;
        while !o.is_zero() {
            let i = o.lowest();
            out |= B::one_at(m[i as usize]);
            o = o.without_lowest();
        }
        out
    }

    fn key(&self, pos: &Domineering<B>, empty_count: u32) -> u64 {
        let side = pos.to_move as u64;
        let tag = self.shape_tag;
        let base = |occ: B| mix(occ.fold64() ^ side.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ tag);
        let mut k = base(pos.occupied);
        if empty_count >= SYMMETRY_MIN_EMPTY {
            let lr = Self::map(pos.occupied, &self.flip_lr);
            let ud = Self::map(pos.occupied, &self.flip_ud);
            let both = Self::map(lr, &self.flip_ud);
            for o in [lr, ud, both] {
                k = k.min(base(o));
            }
        }
        k
    }

    /// Does the side to move win? (`false` also when aborted: check `aborted`.)
    pub fn wins(&mut self, pos: &Domineering<B>) -> bool {
        self.nodes += 1;
        if self.nodes & 0x3fff == 0 && (self.abort)() {
            self.aborted = true;
        }
        if self.aborted {
            return false;
        }
        let geo = &pos.geo;
        let me = pos.to_move;
        let opp = me.other();
        let empty = geo.all & !pos.occupied;
        let my_moves = geo.moves(me, empty);
        if my_moves.is_zero() {
            return false;
        }
        let my_max = geo.packing(me, my_moves);
        let opp_moves = geo.moves(opp, empty);
        let opp_max = geo.packing(opp, opp_moves);
        let my_safe = geo.safe_moves(me, empty);
        if my_safe > opp_max {
            return true;
        }
        let opp_safe = geo.safe_moves(opp, empty);
        if opp_safe >= my_max {
            return false;
        }
        let empty_count = empty.count();
        let key = self.key(pos, empty_count);
        if let Some(w) = self.table.get(key) {
            return w;
        }
        // Order the moves.
        let opp_reach = geo.reach(opp, empty);
        let killer = self.killers[empty_count as usize];
        // A reused buffer per number of empty cells: no node allocates.
        let mut list = std::mem::take(&mut self.lists[empty_count as usize]);
        list.clear();
        let mut m = my_moves;
        while !m.is_zero() {
            let a = m.lowest();
            m = m.without_lowest();
            let cells = geo.cells(me, a);
            let after = empty & !cells;
            let taken_opp = opp_moves.count() - geo.moves(opp, after).count();
            let taken_me = my_moves.count() - geo.moves(me, after).count();
            let safe = (cells & opp_reach).is_zero();
            let score = if a == killer {
                10_000
            } else if safe {
                -1000
            } else {
                let gained = geo.safe_moves(me, after) as i32 - my_safe as i32;
                3 * taken_opp as i32 - 2 * taken_me as i32 + 4 * gained
            };
            list.push((a, score));
        }
        list.sort_unstable_by_key(|&(_, s)| -s);
        let mut win = false;
        for &(a, _) in &list {
            let mut child = pos.clone();
            child.place(a);
            if !self.wins(&child) {
                win = true;
                self.killers[empty_count as usize] = a;
                break;
            }
            if self.aborted {
                break;
            }
        }
        self.lists[empty_count as usize] = list;
        if self.aborted {
            return false;
        }
        self.table.put(key, win);
        win
    }

    /// A winning move of the side to move, if it wins (`None` when it loses or on abort).
    pub fn winning_move(&mut self, pos: &Domineering<B>) -> Option<u32> {
        let empty = pos.geo.all & !pos.occupied;
        let mut m = pos.geo.moves(pos.to_move, empty);
        while !m.is_zero() {
            let a = m.lowest();
            m = m.without_lowest();
            let mut child = pos.clone();
            child.place(a);
            let child_wins = self.wins(&child);
            if self.aborted {
                return None;
            }
            if !child_wins {
                return Some(a);
            }
        }
        None
    }
}

/// Result of a full solve from `pos`.
pub struct Outcome {
    pub winner: Side,
    pub best: Option<u32>,
    pub nodes: u64,
}

pub fn solve<B: Bits>(pos: &Domineering<B>, abort: &dyn Fn() -> bool) -> Option<Outcome> {
    let mut s = Solver::new(pos, table(), abort);
    let win = s.wins(pos);
    if s.aborted {
        return None;
    }
    let best = if win { s.winning_move(pos) } else { None };
    if s.aborted {
        return None;
    }
    Some(Outcome {
        winner: if win {
            pos.to_move
        } else {
            pos.to_move.other()
        },
        best,
        nodes: s.nodes,
    })
}
