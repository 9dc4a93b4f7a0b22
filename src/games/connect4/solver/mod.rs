//! The Connect Four solver: the exact game-theoretic score of a position in the convention of
//! the published test sets — positive when the side to move wins, `(cells + 1 - moves) / 2`
//! for a win with its next stone, one less for each later stone; 0 a draw; negative a loss.
//!
//! Method: negamax with alpha-beta on null windows inside a binary search on the score (after
//! Pascal Pons; far from the end the two windows of a quick win and a quick loss first, then
//! the ones next to 0); moves that hand the opponent an immediate win are never generated, and a
//! forced block is played at once, without a table entry; with an even number of empty cells
//! the opponent's *claimeven* follow-up (Allis: always answer in the same column) fixes who
//! gets which cell, which bounds the score from above (`evens`: no four of the mover's in that
//! split, or only fours that cover one of the opponent's: at most a draw, or a loss as early
//! as the opponent's lowest four allows), and with an odd number every child's bound is
//! worked out before any child is searched (a child bad enough for the opponent settles the
//! node, the others raise alpha); the table keeps each position's best move, tried first, and
//! where the window leaves many plies to play the children's entries are probed before any
//! is searched (enhanced transposition cutoffs); moves are otherwise ordered by the threats they make, centre first.
//! Every child's entry is fetched from memory while the moves are scored, before the node's
//! own is read; with fewer than `TABLE_EMPTIES` empty cells the table is not used at all.
//! `weak` narrows the search to win/draw/loss. `threads` runs several searches on one table.
//!
//! Bit layout: `board::Board`'s (column-major, a guard bit over each column). Table values: a
//! byte, 0 empty, up to `max - min + 1` an upper bound `v + min - 1`, above that a lower bound
//! `v + 2 min - max - 2` (`encode_*`).

mod evens;
mod root;
mod table;
pub mod threads;

use table::Probe;
pub use table::{CHECKPOINT_MAGIC, CHECKPOINT_MAGIC_V1, SolverTable};

use super::board::{Board, Dims, winning_cells};
use std::sync::OnceLock;

/// The engine's table (64 MiB), every page taken at once (at start-up, before `readyok`, not
/// little by little during play); `tabula solve` makes its own of the size asked.
pub fn table() -> &'static SolverTable {
    static TABLE: OnceLock<SolverTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let t = SolverTable::with_bytes(64 << 20)
            .or_else(|_| SolverTable::with_bytes(1 << 20))
            .unwrap_or_else(|_| std::process::abort());
        t.clear();
        t
    })
}

/// Positions with at most this many stones are stored under the smaller of their key and
/// their mirror image's: early on, mirrored transpositions are common and worth the fold.
const SYMMETRY_PLIES: u32 = 16;
/// With at least this many plies within the window's reach (the empty cells, less those a win
/// beyond the window would need) the children's table entries are probed first.
const ETC_EMPTIES: i32 = 16;

/// Nearer the end than this the table is left alone: a probe there costs more than the
/// few nodes it saves.
const TABLE_EMPTIES: i32 = 9;
// Children that are probed ahead (enhanced cutoffs) or deferred (threads) have table keys.
const _: () = assert!(ETC_EMPTIES > TABLE_EMPTIES && threads::DEFER_EMPTIES as i32 > TABLE_EMPTIES);

/// From this many empty cells an exact solve tests the windows next to 0 first.
const EARLY_EMPTIES: i32 = 36;

/// A position as the search sees it: the side to move's stones, all stones, stones played.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pos {
    cur: u64,
    mask: u64,
    moves: u32,
}

impl Pos {
    fn of(b: &Board) -> Pos {
        Pos {
            cur: b.current,
            mask: b.mask,
            moves: b.moves,
        }
    }
    #[inline]
    fn play(self, m: u64) -> Pos {
        Pos {
            cur: self.cur ^ self.mask,
            mask: self.mask | m,
            moves: self.moves + 1,
        }
    }
}

/// Shared state of a multi-threaded solve (see `threads`).
pub(super) use threads::Shared;

/// One node's moves, kept per ply in the solver (not on the stack: no array to clear on
/// every node): (move, order score, child's key), and the moves put off (move, child's key).
#[derive(Clone, Copy)]
struct Frame {
    list: [(u64, u32, u64); 32],
    deferred: [(u64, u64); 32],
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
    cells: i32,
    /// The top cell of every column and every other cell below it (the cells a follow-up
    /// strategy claims: `claimeven_bound`).
    top_rows: u64,
    /// The parity of the stone count before the last stone of a full board: the mover of
    /// a position with `moves % 2 == last_mover` is the player who would fill the board.
    last_mover: u32,
    /// XORed into stored keys: a bijection within one shape, and entries of another shape
    /// (solved concurrently in one process) almost never match.
    shape_tag: u64,
    /// Helpers of a multi-threaded solve put off the moves others are searching.
    shared: Option<&'a Shared>,
    /// One frame per stone count.
    frames: Vec<Frame>,
}

/// Four in a row within `pos`.
#[inline]
fn four(dims: Dims, pos: u64) -> bool {
    super::board::has_four(dims, pos)
}

impl<'a> Solver<'a> {
    pub fn new(dims: Dims, table: &'a SolverTable, abort: &'a dyn Fn() -> bool) -> Self {
        let w = dims.width as i32;
        let order = (0..w)
            .map(|i| (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32)
            .filter(|&c| c < dims.width)
            .collect::<Vec<_>>();
        let cells = dims.cells() as i32;
        table.use_shape((dims.width << 8) | dims.height);
        // The top row of every column, then every other row below it.
        let top_rows = (0..dims.height)
            .filter(|r| (dims.height - 1 - r).is_multiple_of(2))
            .fold(0u64, |acc, r| acc | dims.bottom() << r);
        Solver {
            last_mover: (dims.cells() + 1) % 2,
            dims,
            table,
            order,
            nodes: 0,
            abort,
            aborted: false,
            min_score: -cells / 2 + 3,
            max_score: (cells + 1) / 2 - 3,
            cells,
            top_rows,
            shape_tag: ((dims.width as u64) << 8 | dims.height as u64)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15),
            shared: None,
            frames: vec![
                Frame {
                    list: [(0, 0, 0); 32],
                    deferred: [(0, 0); 32],
                };
                cells as usize + 1
            ],
        }
    }

    /// A helper of a multi-threaded solve: searches the window the main thread publishes,
    /// until `stop`.
    pub(super) fn help(
        &mut self,
        b: &Board,
        stop: &dyn Fn() -> bool,
        current: &std::cell::Cell<u64>,
    ) {
        let Some(shared) = self.shared else { return };
        let p = Pos::of(b);
        while !stop() {
            let Some((generation, med)) = shared.window().filter(|w| w.0 != current.get()) else {
                std::thread::yield_now();
                continue;
            };
            current.set(generation);
            self.aborted = false;
            let _ = self.negamax(p, med, med + 1);
        }
    }

    pub(super) fn with_shared(mut self, shared: &'a Shared) -> Self {
        self.shared = Some(shared);
        self
    }

    fn encode_upper(&self, v: i32) -> u8 {
        (v - self.min_score + 1) as u8
    }
    fn encode_lower(&self, v: i32) -> u8 {
        (v + self.max_score - 2 * self.min_score + 2) as u8
    }

    /// The table key of `p` (mirror images folded early in the game).
    #[inline]
    fn key(&self, p: Pos) -> u64 {
        let key = p.cur + p.mask + self.dims.bottom();
        let key = if p.moves <= SYMMETRY_PLIES {
            key.min(self.mirror(key))
        } else {
            key
        };
        key ^ self.shape_tag
    }

    /// The key of the mirror image (columns reversed): each column's bits move as a block.
    fn mirror(&self, key: u64) -> u64 {
        let stride = self.dims.col_stride();
        let col = (1u64 << stride) - 1;
        let w = self.dims.width;
        (0..w).fold(0, |m, c| {
            m | ((key >> (c * stride)) & col) << ((w - 1 - c) * stride)
        })
    }

    /// How promising the move `m` looks: the threats (`t`, cells that would complete a four
    /// of the mover's) it leaves that do not sit right above one of the opponent's
    /// (`opp_win`, who would win there first); a little more for those on the rows that
    /// zugzwang favours for the mover, and for those the next stone in their column would
    /// make playable.
    #[inline]
    fn order_score(&self, p: Pos, m: u64, t: u64, opp_win: u64) -> u32 {
        let good = if p.moves % 2 == self.last_mover {
            self.top_rows
        } else {
            !self.top_rows
        };
        let next_possible = ((p.mask | m) + self.dims.bottom()) & self.dims.board_mask();
        let u = t & !(opp_win << 1);
        4 * u.count_ones() + (u & good).count_ones() + (u & (next_possible << 1)).count_ones()
    }

    /// Upper bound on the score of the side to move when an even number of cells is empty,
    /// from the opponent's claimeven follow-up (`evens`). None where the bound does not apply
    /// or says nothing.
    #[inline]
    fn claimeven_bound(&self, p: Pos, possible: u64) -> Option<i32> {
        if (self.cells - p.moves as i32) % 2 != 0 {
            return None;
        }
        evens::claimeven_bound(self.dims, self.top_rows, p.cur, p.mask, possible)
    }

    /// The value of `p` for the side to move, who cannot win with this stone (the game is not
    /// over). Within `(alpha, beta)` the exact value; at or above `beta` a lower bound; at or
    /// below `alpha` an upper bound.
    fn negamax(&mut self, p: Pos, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 0xfff == 0 && (self.abort)() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let dims = self.dims;
        let moves = p.moves as i32;
        let possible = (p.mask + dims.bottom()) & dims.board_mask();
        let opp_win = winning_cells(dims, p.cur ^ p.mask, p.mask);
        let forced = possible & opp_win;
        let next = if forced != 0 {
            // Two threats, or a block under another threat: the opponent wins next.
            if forced & (forced - 1) != 0 || forced & (opp_win >> 1) != 0 {
                return -(self.cells - moves) / 2;
            }
            forced
        } else {
            possible & !(opp_win >> 1)
        };
        if next == 0 {
            return -(self.cells - moves) / 2;
        }
        if moves >= self.cells - 2 {
            return 0;
        }
        if forced != 0 {
            // The only move: played without a table entry of its own.
            return -self.negamax(p.play(forced), -beta, -alpha);
        }
        // The table entry is fetched from memory while the bounds below are worked out.
        let use_table = self.cells - moves >= TABLE_EMPTIES;
        let key = self.key(p);
        if use_table {
            self.table.prefetch(key);
        }
        let min = -(self.cells - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let mut max = (self.cells - 1 - moves) / 2;
        if let Some(bound) = self.claimeven_bound(p, possible) {
            max = max.min(bound);
            if max <= alpha {
                return max;
            }
        }
        let empties = self.cells - moves;
        // The moves, each with its order score (more threats after the move first) and its
        // child's key, the child's entry fetched while this node's own arrives (the probes
        // below: this node's, the enhanced transposition cutoffs, the child's own).
        let ply = p.moves as usize;
        let children_use_table = empties > TABLE_EMPTIES;
        // With an odd number of empty cells every child gets the claimeven bound: a child
        // bad enough for the opponent settles this node without a search.
        let children_bound = empties % 2 == 1;
        let mut n = 0;
        for &c in &self.order {
            let m = next & dims.column_mask(c);
            if m == 0 {
                continue;
            }
            if children_bound {
                let child = p.play(m);
                let cpossible = (child.mask + dims.bottom()) & dims.board_mask();
                if let Some(b) =
                    evens::claimeven_bound(dims, self.top_rows, child.cur, child.mask, cpossible)
                {
                    if -b >= beta {
                        return -b;
                    }
                    alpha = alpha.max(-b);
                }
            }
            // (Children without a table entry need no key: neither the enhanced cutoffs nor
            // the threads' deferral reach that far down.)
            let ck = if children_use_table {
                let ck = self.key(p.play(m));
                self.table.prefetch(ck);
                ck
            } else {
                0
            };
            let t = winning_cells(dims, p.cur | m, p.mask | m);
            let score = self.order_score(p, m, t, opp_win) << 4;
            self.frames[ply].list[n] = (m, score, ck);
            n += 1;
        }
        let Probe { value: v, best } = if use_table {
            self.table.get(key)
        } else {
            Probe::default()
        };
        let v = v as i32;
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
                max = max.min(v + self.min_score - 1);
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        // Order: the table's best move first, then the scores; ties keep the centre-first
        // order.
        let list = &mut self.frames[ply].list;
        for i in 0..n {
            let mut e = list[i];
            if best.is_some_and(|c| e.0 & dims.column_mask(c) != 0) {
                e.1 = 1 << 30;
            }
            let mut j = i;
            while j > 0 && list[j - 1].1 < e.1 {
                list[j] = list[j - 1];
                j -= 1;
            }
            list[j] = e;
        }
        // Enhanced transposition cutoff: a child already known to be bad enough for the
        // opponent settles this node.
        // Where the window asks for a quick win (or a quick loss), only the plies before it
        // count: the search is short and the probes would cost more than they save.
        let reach = empties - 2 * alpha.max(-beta).max(0);
        if use_table && reach >= ETC_EMPTIES {
            for i in 0..n {
                let (m, _, ck) = self.frames[ply].list[i];
                let cv = self.table.get(ck).value as i32;
                if cv != 0 && cv <= self.max_score - self.min_score + 1 {
                    let ours = -(cv + self.min_score - 1);
                    if ours >= beta {
                        let col = m.trailing_zeros() / dims.col_stride();
                        self.table
                            .put(key, self.encode_lower(ours), Some(col), empties as u32);
                        return ours;
                    }
                }
            }
        }
        let mut best_value = i32::MIN;
        let mut best_col = None;
        // With other threads, near the root: a move (not the first) that another thread is
        // searching is put off until the rest are done (ABDADA); every move is still searched.
        let shared = self
            .shared
            .filter(|_| empties >= threads::DEFER_EMPTIES as i32);
        let mut n_deferred = 0;
        for round in 0..2 {
            let count = if round == 0 { n } else { n_deferred };
            for idx in 0..count {
                let frame = &self.frames[ply];
                let (m, ck) = if round == 0 {
                    (frame.list[idx].0, frame.list[idx].2)
                } else {
                    frame.deferred[idx]
                };
                let child = p.play(m);
                let busy_key = match shared {
                    Some(s) if round == 0 && idx > 0 => {
                        if s.busy.contains(ck) {
                            self.frames[ply].deferred[n_deferred] = (m, ck);
                            n_deferred += 1;
                            continue;
                        }
                        s.busy.enter(ck);
                        Some((s, ck))
                    }
                    _ => None,
                };
                let score = -self.negamax(child, -beta, -alpha);
                if let Some((s, ck)) = busy_key {
                    s.busy.leave(ck);
                }
                if self.aborted {
                    return 0;
                }
                let col = m.trailing_zeros() / dims.col_stride();
                if score >= beta {
                    if use_table {
                        self.table
                            .put(key, self.encode_lower(score), Some(col), empties as u32);
                    }
                    return score;
                }
                if score > best_value {
                    best_value = score;
                    best_col = Some(col);
                }
                if score > alpha {
                    alpha = score;
                }
            }
        }
        if use_table {
            self.table
                .put(key, self.encode_upper(alpha), best_col, empties as u32);
        }
        alpha
    }
}
