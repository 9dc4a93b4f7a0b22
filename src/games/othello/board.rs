//! Othello rules over any `Bits` type for an N x N board (N even, 8..16). Cell `r * n + c`
//! is row `r` (0 at the top, "1" in notation) and column `c` (0 = `a`).
//!
//! Moves and flips use directional shifts masked so that nothing wraps around a row end:
//! east shifts (towards higher columns) drop into column 0 and are masked by `not_first`,
//! west shifts by `not_last`; vertical shifts leave the board and are masked by `all`.

use crate::bits::Bits;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geo<B: Bits> {
    pub n: u32,
    pub all: B,
    pub not_first: B,
    pub not_last: B,
    pub corners: B,
    /// Diagonal neighbours of the corners (X-squares) and their edge neighbours (C-squares).
    pub x_squares: B,
    pub c_squares: B,
    pub edges: B,
}

impl<B: Bits> Geo<B> {
    pub fn new(n: u32) -> Result<Geo<B>, String> {
        if !(4..=16).contains(&n) || !n.is_multiple_of(2) {
            return Err(format!(
                "an Othello board of side {n} is not supported: 8, 10, 12, 14 or 16"
            ));
        }
        if n * n > B::BITS {
            return Err(format!("side {n} needs more than {} bits", B::BITS));
        }
        let bit = |r: u32, c: u32| B::one_at(r * n + c);
        let (mut all, mut nf, mut nl, mut edges) = (B::zero(), B::zero(), B::zero(), B::zero());
        for r in 0..n {
            for c in 0..n {
                all |= bit(r, c);
                if c != 0 {
                    nf |= bit(r, c);
                }
                if c != n - 1 {
                    nl |= bit(r, c);
                }
                if r == 0 || c == 0 || r == n - 1 || c == n - 1 {
                    edges |= bit(r, c);
                }
            }
        }
        let m = n - 1;
        let corners = bit(0, 0) | bit(0, m) | bit(m, 0) | bit(m, m);
        let x_squares = bit(1, 1) | bit(1, m - 1) | bit(m - 1, 1) | bit(m - 1, m - 1);
        let c_squares = bit(0, 1)
            | bit(1, 0)
            | bit(0, m - 1)
            | bit(1, m)
            | bit(m - 1, 0)
            | bit(m, 1)
            | bit(m, m - 1)
            | bit(m - 1, m);
        Ok(Geo {
            n,
            all,
            not_first: nf,
            not_last: nl,
            corners,
            x_squares,
            c_squares,
            edges,
        })
    }

    /// Squares where `me` may play against `opp`: for each direction the runs of `opp` next
    /// to `me`, grown one step at a time while any grows (the propagator pre-masked so that
    /// nothing wraps around a row end), then one more step onto an empty square. (A
    /// Kogge-Stone fill takes log2(n) doubling steps whatever the runs; on the big boards
    /// the runs are short and a shift of a 256-bit set is dear.)
    pub fn moves(&self, me: B, opp: B) -> B {
        if B::BITS <= 128 {
            return self.moves_by_doubling(me, opp);
        }
        let empty = self.all & !(me | opp);
        let mut out = B::zero();
        for (step, left, mask) in self.rays() {
            // The opponent's discs reached from `me` one step at a time: as many steps as
            // the longest run (a few, where a fill of the whole line is n - 2).
            let pro = opp & mask;
            let mut run = pro & Self::step(me, step, left);
            let mut fill = run;
            while !run.is_zero() {
                run = pro & Self::step(run, step, left);
                fill |= run;
            }
            out |= Self::step(fill, step, left) & mask & empty;
        }
        out
    }

    /// `moves` by a Kogge-Stone fill in each direction: log2(n) doubling steps whatever the
    /// runs, no branch on the board; the faster where a shift is one or two instructions
    /// (`u64`, `u128`).
    fn moves_by_doubling(&self, me: B, opp: B) -> B {
        let empty = self.all & !(me | opp);
        let mut out = B::zero();
        for (step, left, mask) in self.rays() {
            let sh = |x: B, k: u32| {
                if left {
                    x << (step * k)
                } else {
                    x >> (step * k)
                }
            };
            let mut pro = opp & mask;
            let mut fill = me;
            let mut k = 1;
            while k < self.n {
                fill |= pro & sh(fill, k);
                pro &= sh(pro, k);
                k *= 2;
            }
            // `fill` now holds `me` plus every opponent run attached to it; the square one step
            // past a run is a move if it is empty (and not a wrap-around).
            out |= sh(fill & !me, 1) & mask & empty;
        }
        out
    }

    /// The eight directions as (step, shifts left?, mask): a shifted set is masked so that
    /// nothing wraps around a row end (squares beyond the last row hold no disc).
    #[inline]
    fn rays(&self) -> [(u32, bool, B); 8] {
        let n = self.n;
        [
            (1, true, self.not_first),
            (1, false, self.not_last),
            (n, true, self.all),
            (n, false, self.all),
            (n + 1, true, self.not_first),
            (n - 1, true, self.not_last),
            (n - 1, false, self.not_first),
            (n + 1, false, self.not_last),
        ]
    }

    #[inline(always)]
    fn step(x: B, step: u32, left: bool) -> B {
        if left {
            x.shl_small(step)
        } else {
            x.shr_small(step)
        }
    }

    /// Discs of `opp` that `me` flips by playing on `sq` (empty if the move is illegal).
    pub fn flips(&self, me: B, opp: B, sq: u32) -> B {
        let start = B::one_at(sq);
        let mut out = B::zero();
        for (step, left, mask) in self.rays() {
            let mut line = B::zero();
            let mut x = Self::step(start, step, left) & mask;
            while !(x & opp).is_zero() {
                line |= x;
                x = Self::step(x, step, left) & mask;
            }
            if !(x & me).is_zero() {
                out |= line;
            }
        }
        out
    }

    /// Empty squares next to a disc of `discs` (frontier for potential mobility).
    pub fn neighbours(&self, discs: B) -> B {
        let mut out = B::zero();
        for (step, left, mask) in self.rays() {
            out |= Self::step(discs, step, left) & mask;
        }
        out & self.all
    }

    /// Discs of `me` that can never be flipped because they are joined along an edge to a
    /// corner of their own colour (a sound under-estimate of stability).
    pub fn edge_stable(&self, me: B) -> B {
        let mut s = me & self.corners;
        if s.is_zero() {
            return s;
        }
        let on_edge = me & self.edges;
        loop {
            let mut grown = s;
            // The first four rays: along the rows and the columns.
            for &(step, left, mask) in &self.rays()[..4] {
                grown |= Self::step(s, step, left) & mask & on_edge;
            }
            // Only along the edge the disc stands on: an edge square reached from an edge
            // square along an edge line.
            if grown == s {
                return s;
            }
            s = grown;
        }
    }
}
