//! The exact endgame solver for the 8x8 board, on one `u64` per side: the same search as the
//! generic solver (`endgame`: principal-variation null windows, the shared bound table,
//! enhanced transposition cutoffs, stability cutoffs) with the speed that a fixed board
//! allows and a finer move order (`order_score`: fastest first, then corner stability,
//! potential mobility and parity, and a one-ply search far from the end):
//! - moves by shift fills with constant masks, flips by carry propagation along precomputed
//!   rays (no loop over squares);
//! - from `SMALL_EMPTIES` empties down no move generation: the empty squares are tried in
//!   parity order (squares of quadrants with an odd number of empties first), two empties
//!   have their own code, and the last empty square only counts its flips;
//! - children's table slots prefetched before they are probed; stability from full lines
//!   as well as edges (`stable`).
//!
//! Squares: bit `r * 8 + c`, row 0 at the top, column 0 = a. Scores: the final disc margin for
//! the side to move, empty squares to the winner, in -64..=64.

use super::PASS;
use super::board::Geo;
use super::endgame::{SolveResult, Table};
use crate::bits::mix;

/// From this many empties down: no move generation, parity order (`small`).
const SMALL_EMPTIES: u32 = 6;
/// From this many empties: moves ordered (fastest first) and the bound table.
const ORDER_MIN_EMPTIES: u32 = 7;
const TABLE_MIN_EMPTIES: u32 = 7;
/// From this many empties: enhanced transposition cutoffs (children's entries probed).
const ETC_MIN_EMPTIES: u32 = 8;
const STABILITY_MIN_EMPTIES: u32 = 9;
/// From this many empties: a one-ply search of the mobility evaluation joins the ordering.
const SHALLOW_MIN_EMPTIES: u32 = 14;
/// Move ordering weights (`Solver::order_score`).
const W_MOBILITY: i32 = 1024;
const W_CORNER_STABILITY: i32 = 64;
const W_PARITY: i32 = 8;
const W_SHALLOW: i32 = 64;
/// Columns b..g: the propagator of horizontal and diagonal fills (no wrap across a row end).
const INNER: u64 = 0x7e7e_7e7e_7e7e_7e7e;
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// Quadrants: rows 0-3 / 4-7 by columns a-d / e-h.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// The lines of the board: 8 rows, 8 columns, 15 diagonals and 15 anti-diagonals.
static LINES: [[u64; 15]; 4] = lines();

const fn lines() -> [[u64; 15]; 4] {
    let mut out = [[0u64; 15]; 4];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = (sq / 8, sq % 8);
        out[0][r] |= 1 << sq;
        out[1][c] |= 1 << sq;
        out[2][7 + c - r] |= 1 << sq;
        out[3][r + c] |= 1 << sq;
        sq += 1;
    }
    out
}

const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0xff;
const ROW_8: u64 = 0xff << 56;
const BORDER: u64 = COL_A | COL_H | ROW_1 | ROW_8;

/// Discs of `p` that can never be flipped (a sound under-estimate): repeatedly, every disc
/// that in each of the four line directions has a full line, the board's border or a stable
/// disc of its own beside it (a flipped run is bounded by the opponent on both sides, so it
/// cannot hold such a disc). Corners come first, then what they anchor.
pub fn stable(p: u64, o: u64) -> u64 {
    let filled = p | o;
    let mut full = [0u64; 4];
    for (k, lines) in LINES.iter().enumerate() {
        for &l in lines {
            if filled & l == l {
                full[k] |= l;
            }
        }
    }
    let mut s = 0u64;
    loop {
        let h = ((s << 1) & !COL_A) | ((s >> 1) & !COL_H) | full[0] | COL_A | COL_H;
        let v = (s << 8) | (s >> 8) | full[1] | ROW_1 | ROW_8;
        let d = ((s << 9) & !COL_A) | ((s >> 9) & !COL_H) | full[2] | BORDER;
        let a = ((s << 7) & !COL_H) | ((s >> 7) & !COL_A) | full[3] | BORDER;
        let grown = s | (p & h & v & d & a);
        if grown == s {
            return s;
        }
        s = grown;
    }
}

/// Per square, the squares along each direction: four that go up the bit order (E, S, SE,
/// SW), then four that go down (W, N, NW, NE).
static RAYS: [[u64; 8]; 64] = rays();

const fn rays() -> [[u64; 8]; 64] {
    let dirs: [(i32, i32); 8] = [
        (0, 1),
        (1, 0),
        (1, 1),
        (1, -1),
        (0, -1),
        (-1, 0),
        (-1, -1),
        (-1, 1),
    ];
    let mut out = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (mut r, mut c) = ((sq / 8) as i32, (sq % 8) as i32);
            let mut ray = 0u64;
            loop {
                r += dirs[d].0;
                c += dirs[d].1;
                if r < 0 || r > 7 || c < 0 || c > 7 {
                    break;
                }
                ray |= 1 << (r * 8 + c);
            }
            out[sq][d] = ray;
            d += 1;
        }
        sq += 1;
    }
    out
}

/// Per square, its (up to eight) neighbours: a square with no opponent disc beside it flips
/// nothing.
static NEIGHBOURS: [u64; 64] = neighbours();

const fn neighbours() -> [u64; 64] {
    let mut out = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (nr, nc) = (r + dr, c + dc);
                if (dr != 0 || dc != 0) && nr >= 0 && nr < 8 && nc >= 0 && nc < 8 {
                    out[sq] |= 1 << (nr * 8 + nc);
                }
                dc += 1;
            }
            dr += 1;
        }
        sq += 1;
    }
    out
}

/// Discs of `p` on a corner or on an edge square beside its own corner (never flipped).
#[inline]
fn corner_stable(p: u64) -> u64 {
    let beside = ((p & 0x0100_0000_0000_0001) << 1)
        | ((p & 0x8000_0000_0000_0080) >> 1)
        | ((p & 0x81) << 8)
        | ((p & 0x8100_0000_0000_0000) >> 8);
    (beside | CORNERS) & p
}

/// The squares where `p` may play against `o`.
#[inline]
pub fn moves(p: u64, o: u64) -> u64 {
    #[inline(always)]
    fn fill(p: u64, mo: u64, s: u32) -> u64 {
        let mut l = mo & (p << s);
        let mut r = mo & (p >> s);
        for _ in 0..5 {
            l |= mo & (l << s);
            r |= mo & (r >> s);
        }
        (l << s) | (r >> s)
    }
    let inner = o & INNER;
    (fill(p, inner, 1) | fill(p, o, 8) | fill(p, inner, 7) | fill(p, inner, 9)) & !(p | o)
}

/// The discs of `o` that `p` flips by playing on the empty square `sq` (none: not a move).
#[inline(always)]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    if NEIGHBOURS[sq as usize] & o == 0 {
        return 0;
    }
    let rays = &RAYS[sq as usize];
    let mut f = 0;
    // Up the bit order: a carry from `sq` runs through the opponent's discs (and the squares
    // off the ray) and stops on the first other square of the ray.
    for &m in &rays[..4] {
        let outflank = (o | !m).wrapping_add(1 << sq) & m & p;
        f |= outflank.wrapping_sub((outflank != 0) as u64) & m;
    }
    // Down: the highest square of the ray that is not the opponent's.
    for &m in &rays[4..] {
        let y = !o & m;
        let outflank = (1u64 << 63 >> (y | 1).leading_zeros()) & y & p;
        f |= outflank.wrapping_neg().wrapping_shl(1) & m;
    }
    f
}

pub struct Solver<'a> {
    pub nodes: u64,
    abort: &'a dyn Fn() -> bool,
    pub aborted: bool,
    table: &'a Table,
    geo: Geo<u64>,
}

impl<'a> Solver<'a> {
    pub fn new(table: &'a Table, abort: &'a dyn Fn() -> bool) -> Result<Solver<'a>, String> {
        Ok(Solver {
            nodes: 0,
            abort,
            aborted: false,
            table,
            geo: Geo::new(8)?,
        })
    }

    fn key(p: u64, o: u64) -> u64 {
        mix(p ^ (8 << 56)) ^ mix(o ^ 0x9e37_79b9_7f4a_7c15).rotate_left(23)
    }

    fn final_margin(p: u64, o: u64) -> i32 {
        let d = p.count_ones() as i32 - o.count_ones() as i32;
        let e = 64 - (p | o).count_ones() as i32;
        match d.signum() {
            1 => d + e,
            -1 => d - e,
            _ => 0,
        }
    }

    /// The last empty square: flips counted, no move generated.
    fn last(&mut self, p: u64, o: u64, sq: u32) -> i32 {
        self.nodes += 1;
        let d = 2 * p.count_ones() as i32 - 63;
        let n = flips(p, o, sq).count_ones() as i32;
        if n > 0 {
            return d + 2 * n + 1;
        }
        let n = flips(o, p, sq).count_ones() as i32;
        if n > 0 {
            return d - 2 * n - 1;
        }
        if d > 0 { d + 1 } else { d - 1 }
    }

    /// Two empty squares `a` and `b`.
    fn two(
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
    fn small(&mut self, p: u64, o: u64, mut alpha: i32, beta: i32, passed: bool) -> i32 {
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
        let mut odd = 0;
        for q in QUADRANTS {
            if (empty & q).count_ones() & 1 == 1 {
                odd |= q;
            }
        }
        let mut best = -65;
        for set in [empty & odd, empty & !odd] {
            let mut s = set;
            while s != 0 {
                let sq = s.trailing_zeros();
                s &= s - 1;
                let f = flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                let v = -self.small(o & !f, p | f | 1 << sq, -beta, -alpha, false);
                if v > best {
                    best = v;
                    if v > alpha {
                        alpha = v;
                        if v >= beta {
                            return v;
                        }
                    }
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

    /// A cheap evaluation (mobility, corners) for move ordering.
    fn quick_eval(p: u64, o: u64) -> i32 {
        let mm = moves(p, o);
        let om = moves(o, p);
        16 * (mm.count_ones() as i32 - om.count_ones() as i32)
            + 64 * ((p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32)
            + 32 * ((mm & CORNERS).count_ones() as i32 - (om & CORNERS).count_ones() as i32)
    }

    /// A shallow alpha-beta on `quick_eval`, for ordering only.
    fn shallow(&mut self, p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if depth == 0 {
            return Self::quick_eval(p, o);
        }
        let mut m = moves(p, o);
        if m == 0 {
            return -self.shallow(o, p, depth - 1, -beta, -alpha);
        }
        let mut best = -i32::MAX;
        while m != 0 {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, sq);
            let v = -self.shallow(o & !f, p | f | 1 << sq, depth - 1, -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The ordering score of the move `sq` (flipping `f`) with `ne` empties before it:
    /// above all few replies for the opponent (fastest first, a corner reply counting twice),
    /// then our discs made safe at the corners, few empty squares beside our discs (the
    /// opponent's potential mobility), a quadrant of odd parity; from `SHALLOW_MIN_EMPTIES`
    /// a one-ply search of the mobility evaluation weighs in as much as the replies.
    fn order_score(&mut self, p: u64, o: u64, sq: u32, f: u64, ne: u32) -> i32 {
        let (np, no) = (p | f | 1 << sq, o & !f);
        let replies = moves(no, np);
        let mut score =
            -W_MOBILITY * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
        score += W_CORNER_STABILITY * corner_stable(np).count_ones() as i32;
        score -= (self.geo.neighbours(np) & !(np | no)).count_ones() as i32;
        let quadrant = QUADRANTS
            .iter()
            .find(|&&q| q >> sq & 1 == 1)
            .copied()
            .unwrap_or(0);
        if (!(p | o) & quadrant).count_ones() & 1 == 1 {
            score += W_PARITY;
        }
        if ne >= SHALLOW_MIN_EMPTIES {
            score -= W_SHALLOW * self.shallow(no, np, 1, -i32::MAX, i32::MAX);
        }
        score
    }

    pub fn search(&mut self, p: u64, o: u64, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        let empty = !(p | o);
        let ne = empty.count_ones();
        if ne <= SMALL_EMPTIES {
            return self.small(p, o, alpha, beta, passed);
        }
        self.nodes += 1;
        if self.nodes & 0xffff == 0 && (self.abort)() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let use_table = ne >= TABLE_MIN_EMPTIES;
        let key = if use_table { Self::key(p, o) } else { 0 };
        if use_table {
            self.table.prefetch(key);
        }
        let mv = moves(p, o);
        if mv == 0 {
            if passed {
                return Self::final_margin(p, o);
            }
            return -self.search(o, p, -beta, -alpha, true);
        }
        // Stability: the opponent keeps its stable discs, which bounds our margin (only worth
        // computing where the opponent has discs enough for a cut).
        if ne >= STABILITY_MIN_EMPTIES && 64 - 2 * o.count_ones() as i32 <= alpha {
            let max = 64 - 2 * stable(o, p).count_ones() as i32;
            if max <= alpha {
                return max;
            }
            beta = beta.min(max);
        }
        let alpha_orig = alpha;
        let mut tt_move = PASS;
        if use_table && let Some((lower, upper, best)) = self.table.get(key) {
            if lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            if alpha >= beta {
                return alpha;
            }
            tt_move = best;
        }
        // The moves, their flips and their children's keys (prefetched for the enhanced
        // transposition cutoff below and for the children's own probes).
        let etc = ne >= ETC_MIN_EMPTIES;
        let mut list: [(u32, u64, u64, i32); 32] = [(0, 0, 0, 0); 32];
        let mut count = 0;
        let mut m = mv;
        while m != 0 && count < 32 {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, sq);
            let child = if etc {
                let k = Self::key(o & !f, p | f | 1 << sq);
                self.table.prefetch(k);
                k
            } else {
                0
            };
            list[count] = (sq, f, child, 0);
            count += 1;
        }
        let ordered = ne >= ORDER_MIN_EMPTIES;
        if ordered {
            for e in &mut list[..count] {
                e.3 = if e.0 as u16 == tt_move {
                    1 << 20
                } else {
                    self.order_score(p, o, e.0, e.1, ne)
                };
            }
        }
        // Enhanced transposition cutoff: a child whose entry proves that we reach beta.
        if etc {
            for e in &list[..count] {
                if let Some((_, upper, _)) = self.table.get(e.2)
                    && -upper >= beta
                {
                    return -upper;
                }
            }
        }
        if ordered {
            list[..count].sort_by_key(|e| -e.3);
        }
        let mut best = -65;
        let mut best_sq = PASS;
        for (idx, &(sq, f, _, _)) in list[..count].iter().enumerate() {
            let (np, no) = (p | f | 1 << sq, o & !f);
            let v = if idx == 0 {
                -self.search(no, np, -beta, -alpha, false)
            } else {
                let mut v = -self.search(no, np, -alpha - 1, -alpha, false);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.search(no, np, -beta, -alpha, false);
                }
                v
            };
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_sq = sq as u16;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if use_table {
            let (lower, upper) = if best <= alpha_orig {
                (-64, best)
            } else if best >= beta {
                (best, 64)
            } else {
                (best, best)
            };
            self.table.put(key, lower, upper, best_sq, ne);
        }
        best
    }
}

/// Solves the position (`p` to move) exactly: the margin and a best move (`PASS` when `p`
/// must pass); `None` if `abort` returned true first or neither side can move.
pub fn solve(
    p: u64,
    o: u64,
    table: &Table,
    canonical: bool,
    abort: &dyn Fn() -> bool,
) -> Result<Option<SolveResult>, String> {
    let mut s = Solver::new(table, abort)?;
    let mv = moves(p, o);
    if mv == 0 {
        if moves(o, p) == 0 {
            return Ok(None);
        }
        let margin = -s.search(o, p, -64, 64, true);
        return Ok((!s.aborted).then_some(SolveResult {
            margin,
            best: PASS,
            nodes: s.nodes,
        }));
    }
    let margin = s.search(p, o, -64, 64, false);
    if s.aborted {
        return Ok(None);
    }
    // The best move: the first move whose null-window search shows that it reaches the
    // margin, tried in bit order, after the table's move unless `canonical` (a choice that
    // depends on the position alone, not on what the table held).
    let mut order = Vec::with_capacity(33);
    if !canonical && let Some((_, _, b)) = table.get(Solver::key(p, o)) {
        order.push(b as u32);
    }
    let mut m = mv;
    while m != 0 {
        order.push(m.trailing_zeros());
        m &= m - 1;
    }
    for sq in order {
        if sq >= 64 || mv >> sq & 1 == 0 {
            continue;
        }
        let f = flips(p, o, sq);
        let v = -s.search(o & !f, p | f | 1 << sq, -margin, -margin + 1, false);
        if s.aborted {
            return Ok(None);
        }
        if v >= margin {
            return Ok(Some(SolveResult {
                margin,
                best: sq as u16,
                nodes: s.nodes,
            }));
        }
    }
    Err("the 8x8 solver found no move reaching its own margin".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::rng::Rng;

    /// Moves and flips agree with the generic board code on random positions.
    #[test]
    fn moves_and_flips_match_the_generic_rules() {
        let g = Geo::<u64>::new(8).expect("8x8");
        let mut rng = Rng::new(11);
        for _ in 0..20000 {
            let (mut p, mut o) = (0u64, 0u64);
            let fill = rng.below(64);
            for sq in 0..64 {
                if rng.below(64) < fill {
                    if rng.below(2) == 0 {
                        p |= 1 << sq;
                    } else {
                        o |= 1 << sq;
                    }
                }
            }
            assert_eq!(moves(p, o), g.moves(p, o), "moves of {p:#x} {o:#x}");
            for sq in 0..64 {
                if (p | o) >> sq & 1 == 0 {
                    assert_eq!(flips(p, o, sq), g.flips(p, o, sq), "flips at {sq}");
                }
            }
        }
    }

    /// Discs found stable stay their colour to the end of random games.
    #[test]
    fn stable_discs_are_never_flipped() {
        let mut rng = Rng::new(5);
        for _ in 0..3000 {
            // Black (x) and White (o) as absolute colours; `black` to move.
            let (mut x, mut o, mut black) =
                (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64, true);
            let (mut sx, mut so) = (0u64, 0u64);
            loop {
                sx |= stable(x, o);
                so |= stable(o, x);
                assert_eq!(sx & !x, 0, "a stable black disc was flipped");
                assert_eq!(so & !o, 0, "a stable white disc was flipped");
                let (p, q) = if black { (x, o) } else { (o, x) };
                let mut m = moves(p, q);
                if m == 0 {
                    if moves(q, p) == 0 {
                        break;
                    }
                    black = !black;
                    continue;
                }
                for _ in 0..rng.below(m.count_ones() as usize) {
                    m &= m - 1;
                }
                let sq = m.trailing_zeros();
                let f = flips(p, q, sq);
                let (np, nq) = (p | f | 1 << sq, q & !f);
                (x, o) = if black { (np, nq) } else { (nq, np) };
                black = !black;
            }
        }
    }

    /// The solver's margin is the best child's exact value, and its canonical move the lowest
    /// square reaching it, whatever the table held (positions of 8 to 12 empties from random games,
    /// each child solved on its own with a cleared table).
    #[test]
    fn margin_and_move_are_exact_and_canonical() {
        let table = super::super::endgame::table();
        let mut rng = Rng::new(17);
        let mut checked = 0;
        while checked < 40 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            let stop = 8 + rng.below(5) as u32;
            while (!(p | o)).count_ones() > stop {
                let mut m = moves(p, o);
                if m == 0 {
                    if moves(o, p) == 0 {
                        break;
                    }
                    (p, o) = (o, p);
                    continue;
                }
                for _ in 0..rng.below(m.count_ones() as usize) {
                    m &= m - 1;
                }
                let sq = m.trailing_zeros();
                let f = flips(p, o, sq);
                (p, o) = (o & !f, p | f | 1 << sq);
            }
            let mv = moves(p, o);
            if mv == 0 || (!(p | o)).count_ones() != stop {
                continue;
            }
            // Each child alone, from a cleared table.
            let mut values = Vec::new();
            let mut m = mv;
            while m != 0 {
                let sq = m.trailing_zeros();
                m &= m - 1;
                let f = flips(p, o, sq);
                table.clear();
                let mut s = Solver::new(table, &|| false).expect("8x8");
                values.push((sq, -s.search(o & !f, p | f | 1 << sq, -64, 64, false)));
            }
            let best = values.iter().map(|v| v.1).max().expect("a move");
            let first = values.iter().find(|v| v.1 == best).expect("a move").0;
            // With the table as the previous solves left it.
            let r = solve(p, o, table, true, &|| false)
                .expect("8x8")
                .expect("solved");
            assert_eq!((r.margin, r.best as u32), (best, first), "{p:#x} {o:#x}");
            // The fast choice: a move of the best value.
            let r = solve(p, o, table, false, &|| false)
                .expect("8x8")
                .expect("solved");
            let value = values.iter().find(|v| v.0 == r.best as u32).map(|v| v.1);
            assert_eq!((r.margin, value), (best, Some(best)), "{p:#x} {o:#x}");
            checked += 1;
        }
    }
}
