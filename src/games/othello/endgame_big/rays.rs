//! What the big boards' exact solver knows of the board's shape, computed once a solve: each
//! square's eight rays to the edge (square indices, nearest first), its neighbours as a set,
//! its quadrant, and the empty squares as a list kept in ascending square order.
//!
//! Near the end of a big board's game only a few squares are empty, so moves are found and
//! flipped by walking the rays out from each empty square (a few bit tests) instead of
//! shifting whole-board sets in eight directions (four words each on boards from 12x12).
//! `legal` and `flips` agree with `Geo::moves` and `Geo::flips` (tested on every size).

use super::super::board::Geo;
use crate::bits::Bits;

pub(super) struct Rays<B: Bits> {
    /// Square indices of every ray, nearest square first.
    squares: Vec<u16>,
    /// Per square and direction (`sq * 8 + d`): where its ray starts in `squares`, its length.
    ray: Vec<(u32, u8)>,
    /// Per square: the squares next to it.
    pub neighbours: Vec<B>,
    /// Per square: its quadrant (0..4).
    pub quadrant: Vec<u8>,
}

impl<B: Bits> Rays<B> {
    pub fn new(g: &Geo<B>) -> Rays<B> {
        let n = g.n as i32;
        const DIRS: [(i32, i32); 8] = [
            (0, 1),
            (0, -1),
            (1, 0),
            (-1, 0),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
        ];
        let cells = (n * n) as usize;
        let mut rays = Rays {
            squares: Vec::new(),
            ray: Vec::with_capacity(cells * 8),
            neighbours: Vec::with_capacity(cells),
            quadrant: Vec::with_capacity(cells),
        };
        for sq in 0..n * n {
            let (r, c) = (sq / n, sq % n);
            let mut nb = B::zero();
            for (dr, dc) in DIRS {
                let start = rays.squares.len() as u32;
                let (mut rr, mut cc) = (r + dr, c + dc);
                while (0..n).contains(&rr) && (0..n).contains(&cc) {
                    rays.squares.push((rr * n + cc) as u16);
                    (rr, cc) = (rr + dr, cc + dc);
                }
                let len = rays.squares.len() as u32 - start;
                if len > 0 {
                    nb |= B::one_at(((r + dr) * n + c + dc) as u32);
                }
                rays.ray.push((start, len as u8));
            }
            rays.neighbours.push(nb);
            rays.quadrant
                .push(u8::from(r >= n / 2) * 2 + u8::from(c >= n / 2));
        }
        rays
    }

    /// The discs of `opp` that `me` flips by playing on the empty square `sq` (empty: the
    /// move is illegal).
    #[inline]
    pub fn flips(&self, me: B, opp: B, sq: u32) -> B {
        let mut out = B::zero();
        if (opp & self.neighbours[sq as usize]).is_zero() {
            return out;
        }
        for &(start, len) in &self.ray[sq as usize * 8..sq as usize * 8 + 8] {
            let r = &self.squares[start as usize..start as usize + len as usize];
            if r.len() < 2 || !opp.has(r[0] as u32) {
                continue;
            }
            let mut i = 1;
            while i < r.len() && opp.has(r[i] as u32) {
                i += 1;
            }
            if i < r.len() && me.has(r[i] as u32) {
                for &s in &r[..i] {
                    out.set(s as u32);
                }
            }
        }
        out
    }

    /// Whether `me` may play on the empty square `sq`.
    #[inline]
    pub fn legal(&self, me: B, opp: B, sq: u32) -> bool {
        if (opp & self.neighbours[sq as usize]).is_zero() {
            return false;
        }
        for &(start, len) in &self.ray[sq as usize * 8..sq as usize * 8 + 8] {
            let r = &self.squares[start as usize..start as usize + len as usize];
            if r.len() < 2 || !opp.has(r[0] as u32) {
                continue;
            }
            let mut i = 1;
            while i < r.len() && opp.has(r[i] as u32) {
                i += 1;
            }
            if i < r.len() && me.has(r[i] as u32) {
                return true;
            }
        }
        false
    }
}

/// The empty squares as a doubly linked list in ascending square order: squares leave it as
/// moves are made and come back, last out first in, as they are taken back.
pub(super) struct Empties {
    next: Vec<u16>,
    prev: Vec<u16>,
    /// The list's head and tail sentinel.
    end: u16,
    pub count: u32,
}

impl Empties {
    pub fn new<B: Bits>(g: &Geo<B>, me: B, opp: B) -> Empties {
        let cells = (g.n * g.n) as usize;
        let end = cells as u16;
        let mut e = Empties {
            next: vec![end; cells + 1],
            prev: vec![end; cells + 1],
            end,
            count: 0,
        };
        let mut last = end;
        for sq in 0..cells as u32 {
            if !(me | opp).has(sq) {
                e.next[last as usize] = sq as u16;
                e.prev[sq as usize] = last;
                last = sq as u16;
                e.count += 1;
            }
        }
        e.next[last as usize] = end;
        e.prev[end as usize] = last;
        e
    }

    #[inline]
    pub fn first(&self) -> u32 {
        self.next[self.end as usize] as u32
    }

    /// The square after `sq` (`None` past the last).
    #[inline]
    pub fn after(&self, sq: u32) -> Option<u32> {
        let s = self.next[sq as usize];
        (s != self.end).then_some(s as u32)
    }

    /// The first empty square, `None` if there is none.
    #[inline]
    pub fn head(&self) -> Option<u32> {
        let s = self.first();
        (s != self.end as u32).then_some(s)
    }

    #[inline]
    pub fn remove(&mut self, sq: u32) {
        let (p, n) = (self.prev[sq as usize], self.next[sq as usize]);
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
        self.count -= 1;
    }

    /// Puts back the square removed last.
    #[inline]
    pub fn restore(&mut self, sq: u32) {
        let (p, n) = (self.prev[sq as usize], self.next[sq as usize]);
        self.next[p as usize] = sq as u16;
        self.prev[n as usize] = sq as u16;
        self.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::U256;
    use crate::game::Rules;
    use crate::games::othello::Othello;

    /// Along self-play games on every size, the rays find the same moves and flips as the
    /// board's shifts, and the list holds exactly the empty squares.
    fn agree<B: Bits>(n: u32) {
        let mut pos = Othello::<B>::new(n).unwrap_or_else(|e| panic!("{e}"));
        let g = pos.geo;
        let rays = Rays::new(&g);
        let mut ply = 0u64;
        let mut legal = Vec::new();
        loop {
            pos.legal_moves(&mut legal);
            if legal.is_empty() {
                break;
            }
            let (me, opp) = (pos.me, pos.opp);
            let moves = g.moves(me, opp);
            let empties = Empties::new(&g, me, opp);
            let mut listed = B::zero();
            let mut s = empties.head();
            while let Some(sq) = s {
                listed |= B::one_at(sq);
                assert_eq!(rays.legal(me, opp, sq), moves.has(sq), "{n}: square {sq}");
                assert_eq!(rays.flips(me, opp, sq), g.flips(me, opp, sq), "{n}: {sq}");
                s = empties.after(sq);
            }
            assert_eq!(listed, g.all & !(me | opp));
            assert_eq!(empties.count, listed.count());
            let pick = legal[(ply.wrapping_mul(0x9e37_79b9) >> 7) as usize % legal.len()];
            pos.play(pick);
            ply += 1;
        }
    }

    #[test]
    fn rays_agree_with_the_board_on_every_size() {
        agree::<u64>(8);
        agree::<u128>(10);
        for n in [12, 14, 16] {
            agree::<U256>(n);
        }
    }

    #[test]
    fn removed_squares_come_back_in_order() {
        let g = Geo::<u128>::new(10).unwrap_or_else(|e| panic!("{e}"));
        let mut e = Empties::new(&g, 0u128, 0u128);
        for sq in [5, 17, 99, 0] {
            e.remove(sq);
        }
        assert_eq!(e.count, 96);
        for sq in [0, 99, 17, 5] {
            e.restore(sq);
        }
        let mut all = Vec::new();
        let mut s = e.head();
        while let Some(sq) = s {
            all.push(sq);
            s = e.after(sq);
        }
        assert_eq!(all, (0..100).collect::<Vec<_>>());
    }
}
