//! The exact Domineering solver: does the side to move win, and with which move?
//!
//! A boolean negamax over `frame::Board` (both players' views of the board, so that every
//! computation is done along the mover's own lines):
//! - at each node first the cheap count cutoffs (a player whose safe moves outnumber
//!   everything the other can still play wins), then the side to move's strategy bound of
//!   `bounds` (safe moves, boxes, slots and options in a race, and a count of the cells the
//!   opponent can use), then the table, then the opponent's strategy bound. The side to
//!   move's bound comes before the table because it decides most nodes (the children of a
//!   losing node) and costs less than a table miss; a cheap filter on the counts
//!   (`hopeful`) skips the strategy bounds where they never succeed;
//! - each node carries both players' real and safe move counts, updated by the move
//!   generator's own reckoning of what a move changes;
//! - where the side to move's strategy was worth trying but failed, its best few moves are
//!   tried for a win at once (`moves::wins_at_once`): after the move, the mover's strategy
//!   moving second outlasts the opponent (the test the child would make first after its
//!   own), so the child is never made. Most winning nodes end so;
//! - where the opponent's strategy moving second fails to prove the node lost, each move is
//!   still judged before its child is made (`moves::verdict`): by the child's count cutoffs,
//!   by that strategy (a move that costs the mover more than one real move can fall within
//!   its reach: `outlasts`), by the opponent's strategy moving first with only the areas
//!   this move spoils taken away (`bounds::Areas::after`), and then by the child's own first
//!   test, the opponent's whole strategy moving first after the move (the child, if made,
//!   skips it: `Node::fresh`). Most children of a losing node are refuted so, without a node;
//! - once the first move fails, the table buckets of the moves left to search are fetched
//!   together, so that their memory latencies overlap, and a move whose child the table
//!   already holds is judged by it without a node;
//! - safe moves are never searched (Bullock: a player with a winning move has one that is not
//!   a safe move; when only safe moves are left, the count cutoffs already decide);
//! - moves are ordered by what they take from the opponent and keep for the mover (its real
//!   and safe move counts before and after), then by a positional preference for lines next
//!   to an edge; the best move is tried before the rest are sorted;
//! - the table (`table`) folds the left-right and up-down mirror images of the board, which
//!   keep both players' orientations;
//! - `solve_parallel` runs several such searches over one table, each putting off the
//!   subtrees another is searching (after ABDADA).
//!
//! Regions: a region of the board that only one player can still use is counted exactly by
//! the safe moves (its cells are all protected), and a region nobody can use drops out of
//! every count; regions both players can use are searched together, except that at nodes with
//! few free cells on boards up to 8x8 a position whose regions (up to 12 cells each) are all
//! proven numbers is decided by the sum of their values (`cgt`).
//!
//! Results are exact (`tests/games/domineering.rs` checks them against a brute-force search). Node
//! counts (the bench signature) depend only on the position and the table's size and prior
//! contents, for one thread.

pub mod bounds;
pub mod cgt;
pub mod frame;
mod moves;
pub mod race;
mod root;
mod table;

use super::board::Side;
use crate::bits::mix;
use bounds::{Counts, areas, counts, guaranteed};
use frame::{Board, Mv};
use moves::{Scored, Verdict, positional};
pub use root::{Outcome, key_digest, solve, solve_parallel, solve_parallel_until, solve_with};
use std::sync::OnceLock;
pub use table::{CHECKPOINT_MAGIC, CHECKPOINT_MAGIC_V1, Table};

/// The process-wide table, 64 MiB.
pub fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| Table::new(64))
}

/// A position with its four mirror-image hash keys and each frame's counts (kept up to
/// date move by move: `moves` works out what a move changes in them).
#[derive(Clone, Copy)]
struct Node {
    b: Board,
    keys: [u64; 4],
    c: [Counts; 2],
    /// Whether the side to move's strategy bound is still to be tried here (false where the
    /// parent's `verdict` tried it on this position and it failed).
    fresh: bool,
}

pub struct Solver<'a> {
    pub nodes: u64,
    /// Results stored in the table since they were last reported to it (`Table::stored`).
    puts: u64,
    abort: &'a dyn Fn() -> bool,
    pub aborted: bool,
    table: &'a Table,
    /// Per board cell, its key in each of the four mirror images.
    zobrist: Vec<[u64; 4]>,
    rows: u32,
    cols: u32,
    /// Number values of small regions (`cgt`), cached by shape; this solver's own.
    values: cgt::Values,
    /// Mixed into every key: the shape and the side to move.
    side_tag: [u64; 2],
    /// Positional preference of each anchor, per frame: `pos[p][line * 16 + bit]`.
    pos: [Vec<i32>; 2],
    /// Move lists by number of free cells (one per depth), reused across nodes.
    lists: Vec<Vec<Scored>>,
    /// Positions being searched by some thread (parallel solving only).
    busy: Option<&'a Busy>,
    /// Free cells from which positions are marked busy.
    busy_min: u32,
}

/// Positions down to this many plies below the root are marked busy when solving in parallel
/// (deeper ones are too quick to share out).
const BUSY_PLIES: u32 = 40;

/// Keys of the positions the threads are searching now (`crate::busy`), for sharing out the
/// work (after ABDADA): a thread puts off a child that another thread is already searching.
pub use crate::busy::Busy;

impl<'a> Solver<'a> {
    pub fn new(rows: u32, cols: u32, table: &'a Table, abort: &'a dyn Fn() -> bool) -> Self {
        table.use_shape(rows, cols);
        let cell = |r: u32, c: u32| mix(((r * 16 + c) as u64) ^ 0xd1b5_4a32_d192_ed03);
        let mut zobrist = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                let (mr, mc) = (rows - 1 - r, cols - 1 - c);
                zobrist.push([cell(r, c), cell(r, mc), cell(mr, c), cell(mr, mc)]);
            }
        }
        let shape = mix(((rows as u64) << 8 | cols as u64) ^ 0x6a09_e667_f3bc_c908);
        Solver {
            nodes: 0,
            puts: 0,
            abort,
            aborted: false,
            table,
            zobrist,
            rows,
            cols,
            values: cgt::Values::new(),
            side_tag: [shape, mix(shape)],
            pos: [positional(rows, cols), positional(cols, rows)],
            lists: (0..=rows * cols).map(|_| Vec::with_capacity(64)).collect(),
            busy: None,
            busy_min: u32::MAX,
        }
    }

    fn node(&self, b: Board) -> Node {
        let mut keys = [0u64; 4];
        for (i, z) in self.zobrist.iter().enumerate() {
            let (r, c) = (i as u32 / self.cols, i as u32 % self.cols);
            if b.f[0].line[r as usize + 1] >> c & 1 == 1 {
                for k in 0..4 {
                    keys[k] ^= z[k];
                }
            }
        }
        Node {
            b,
            keys,
            c: [counts(&b.f[0]), counts(&b.f[1])],
            fresh: true,
        }
    }

    /// The child after `s`; `judged` when `verdict` passed it (it tried the child's own
    /// strategy bound).
    fn child(&self, n: &Node, s: &Scored, judged: bool) -> Node {
        let mut c = *n;
        c.c = s.c;
        c.fresh = !judged;
        c.keys = self.keys_after(n, s.mv);
        c.b.play(s.mv);
        c
    }

    /// The four mirror-image keys of `n` after move `m`.
    fn keys_after(&self, n: &Node, m: Mv) -> [u64; 4] {
        let mut keys = n.keys;
        for (r, col) in Board::cells(n.b.turn, m) {
            let z = &self.zobrist[(r * self.cols + col) as usize];
            for (key, z) in keys.iter_mut().zip(z) {
                *key ^= z;
            }
        }
        keys
    }

    /// The table key of the position with these mirror-image keys and side to move.
    fn key_of(&self, keys: &[u64; 4], turn: usize) -> u64 {
        let k = keys[0].min(keys[1]).min(keys[2]).min(keys[3]);
        mix(k ^ self.side_tag[turn])
    }

    fn key(&self, n: &Node) -> u64 {
        self.key_of(&n.keys, n.b.turn)
    }

    /// A digest of how table keys are made on this board (the keys of a few positions): a
    /// checkpoint of the table is only loaded by a build whose keys agree with its writer's.
    pub fn key_digest(&self) -> u64 {
        let mut d = 0;
        for turn in 0..2 {
            let mut b = Board::new(self.rows, self.cols, turn);
            for (r, c) in [(0, 0), (self.rows - 1, self.cols / 2), (self.rows / 2, 0)] {
                if b.f[0].line[r as usize + 1] >> c & 1 == 0 {
                    b.cover(r, c);
                }
                d = mix(d ^ self.key(&self.node(b)));
            }
        }
        d
    }

    /// Does the side to move win? (`false` also when aborted: check `aborted`.)
    /// Whether the side to move wins, where every region of the board is small and proven a
    /// number (`cgt`): their sum decides without search.
    fn regions_decide(&mut self, b: &Board) -> Option<bool> {
        if self.rows > 8 || self.cols > 8 {
            return None;
        }
        let mut m = 0u64;
        for r in 0..self.rows {
            let free = !b.f[0].line[r as usize + 1] & ((1u32 << self.cols) - 1);
            m |= (free as u64) << (8 * r);
        }
        let s = self.values.sum_small(m, REGION_CELLS)?;
        let mover = if b.turn == 0 {
            Side::Horizontal
        } else {
            Side::Vertical
        };
        Some(cgt::winner(s, mover) == mover)
    }

    fn wins(&mut self, n: &Node) -> bool {
        self.nodes += 1;
        if self.nodes & 0x3fff == 0 {
            self.table.stored(std::mem::take(&mut self.puts));
            if (self.abort)() {
                self.aborted = true;
            }
        }
        if self.aborted {
            return false;
        }
        let p = n.b.turn;
        // The table's bucket is fetched first, so that its memory latency overlaps the
        // side to move's strategy bound.
        let key = self.key(n);
        self.table.prefetch(key);
        let (fp, fq) = (&n.b.f[p], &n.b.f[1 - p]);
        let (cp, cq) = (n.c[p], n.c[1 - p]);
        debug_assert_eq!((cp, cq), (counts(fp), counts(fq)));
        if cp.safe > cq.real {
            return true;
        }
        if cq.safe >= cp.real {
            return false;
        }
        let e = n.b.empty;
        if n.fresh && hopeful(cp, cq, e) && proves(&guaranteed(fp, true), cq.real, e, 1) {
            return true;
        }
        if let Some(w) = self.table.get(key) {
            return w;
        }
        if e <= REGION_EMPTY
            && let Some(w) = self.regions_decide(&n.b)
        {
            return w;
        }
        // The opponent's strategy moving second holds against every first move; a move that
        // costs the mover more than one real move can fall within its reach.
        let mut theirs = None;
        if hopeful(cq, cp, e) {
            let g = guaranteed(fq, false);
            if proves(&g, cp.real, e, 0) {
                return false;
            }
            theirs = Some(g);
        }
        // The opponent's strategy moving first, judged move by move by what each spoils.
        let first = theirs.map(|_| areas(fq));
        let start = self.nodes;
        let depth = n.b.empty as usize;
        let mut list = std::mem::take(&mut self.lists[depth]);
        self.moves(n, &mut list, false);
        if list.is_empty() {
            // Only safe moves (the count cutoffs decide such positions; kept for safety).
            self.moves(n, &mut list, true);
        }
        let mut win = false;
        // Where the side to move's strategy was worth trying, it may win at once after one of
        // its best moves (the child's own second test, made without the child).
        if hopeful(cp, cq, e) && self.wins_at_once(n, &mut list) {
            self.lists[depth] = list;
            self.table.put(key, true, 1);
            self.puts += 1;
            return true;
        }
        // The best move first; the rest sorted only if it fails.
        if let Some(best) = (0..list.len()).max_by_key(|&i| (list[i].score, usize::MAX - i)) {
            list[..=best].rotate_right(1);
        }
        // With other threads: this node is marked as being searched, and children another
        // thread is searching are put off to the end (after the first move).
        let shared = match self.busy {
            Some(b) if n.b.empty >= self.busy_min => {
                b.enter(key);
                Some(b)
            }
            _ => None,
        };
        let mut later = Vec::new();
        let mut i = 0;
        while i < list.len() {
            if i == 1 {
                // The first move failed: the moves refuted without a node are dropped, the
                // table buckets of the others are fetched at once (so that their misses
                // overlap), and the rest are sorted.
                let mut kept = 1;
                for k in 1..list.len() {
                    match self.verdict(n, &list[k], theirs.as_ref(), first.as_ref()) {
                        Verdict::Refuted => {}
                        Verdict::Wins => {
                            win = true;
                            break;
                        }
                        Verdict::Search => {
                            self.table.prefetch(self.child_key(n, &list[k]));
                            list[kept] = list[k];
                            kept += 1;
                        }
                    }
                }
                if win {
                    break;
                }
                list.truncate(kept);
                list[1..].sort_by_key(|s| -s.score);
                if list.len() == 1 {
                    break;
                }
            } else if i == 0 {
                match self.verdict(n, &list[0], theirs.as_ref(), first.as_ref()) {
                    Verdict::Refuted => {
                        i += 1;
                        continue;
                    }
                    Verdict::Wins => {
                        win = true;
                        break;
                    }
                    Verdict::Search => {}
                }
            }
            if i > 0 {
                // The bucket was fetched ahead: a child already proven needs no node.
                match self.table.get(self.child_key(n, &list[i])) {
                    Some(true) => {
                        i += 1;
                        continue;
                    }
                    Some(false) => {
                        win = true;
                        break;
                    }
                    None => {}
                }
            }
            let child = self.child(n, &list[i], true);
            if i > 0
                && let Some(b) = shared
                && b.contains(self.key(&child))
            {
                later.push(child);
                i += 1;
                continue;
            }
            if !self.wins(&child) {
                win = true;
                break;
            }
            if self.aborted {
                break;
            }
            i += 1;
        }
        if !win && !self.aborted {
            for child in later {
                if !self.wins(&child) {
                    win = true;
                    break;
                }
                if self.aborted {
                    break;
                }
            }
        }
        if let Some(b) = shared {
            b.leave(key);
        }
        self.lists[depth] = list;
        if self.aborted {
            return false;
        }
        self.table.put(key, win, self.nodes - start);
        self.puts += 1;
        win
    }

    /// The table key of the child after `s` (what `key(&child(n, s))` gives).
    fn child_key(&self, n: &Node, s: &Scored) -> u64 {
        self.key_of(&self.keys_after(n, s.mv), 1 - n.b.turn)
    }

    /// A winning move of the side to move, if it wins (`None` when it loses or on abort).
    fn winning_move(&mut self, n: &Node) -> Option<Mv> {
        let mut list = Vec::new();
        self.moves(n, &mut list, true);
        list.sort_by_key(|s| -s.score);
        for s in list {
            let m = s.mv;
            let child = self.child(n, &s, false);
            let child_wins = self.wins(&child);
            if self.aborted {
                return None;
            }
            if !child_wins {
                return Some(m);
            }
        }
        None
    }
}

/// Does the strategy `s` of one player outlast the other, whose `real` moves are left, with
/// `e` free cells? `margin` is 1 for the side to move (it must make one move more), 0 for
/// the other. Three proofs, each with one strategy: the best claiming order against the
/// opponent's real moves; boxes first, which also takes two real moves per box claimed; and
/// the cell count: before the opponent's L-th move the player has covered 2L cells, and the
/// opponent's 2L (2L + 2 against the side to move) cells must fit beside them and the unused
/// ones: they cannot if `4 L + unused` (the `weight`) exceeds `e` (`e - 2`).
fn proves(s: &bounds::Sure, real: u32, e: u32, margin: u32) -> bool {
    s.moves >= margin + real
        || (s.boxes > 0 && s.moves_boxes_first + 2 * s.boxes >= margin + real)
        || s.weight + 2 * (1 - margin) > e
}

/// After the mover's first move, which left it `real` moves: does the opponent's strategy
/// moving second (`s`, against any first move) make at least as many moves as the mover's
/// `1 + real`? (The move-count proofs of `proves`; the cell count does not improve by knowing
/// the move.)
#[inline]
fn outlasts(s: &bounds::Sure, real: u32) -> bool {
    s.moves > real || (s.boxes > 0 && s.moves_boxes_first + 2 * s.boxes > real)
}

/// Is a strategy proof (`proves`) for the player with counts `me` worth computing? A cheap
/// filter on the counts, measured rather than derived: on 8x8 and 7x10 no proof was ever
/// found below it, and it skips about 10% of the side to move's attempts and half of the
/// other side's. (A skipped proof only costs nodes; results stay exact.)
#[inline]
fn hopeful(me: Counts, other: Counts, e: u32) -> bool {
    (4 * me.real + 2 * me.safe + 4) as i32 >= (e + 2 * other.real) as i32
}

/// Free cells at or below which a node asks whether its regions' values decide it.
const REGION_EMPTY: u32 = 20;
/// The largest region (live cells) whose value is worked out.
const REGION_CELLS: u32 = 12;
