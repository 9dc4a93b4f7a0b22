//! The board's regions: the connected components of its live cells (free cells with a free
//! orthogonal neighbour, the only cells a domino of either player can still cover), read
//! from frame 0 (lines = board rows, bit = column), for boards of any size up to 16x16.
//!
//! A region whose bounding box fits in 8x8 is also given as a `cgt` local region (`u64`,
//! bit `r * 8 + c`, moved to the top-left corner), so that its value can be looked up.

use super::bounds::{Counts, counts, guaranteed};
use super::cgt::UNIT;
use super::frame::{Board, MAX_LINES};
use super::moves::Scored;
use super::{Node, REGION_CELLS, Solver};

/// Cells per line, as masks: index `k + 1` is board row `k` (as in `frame::Frame`).
pub type Rows = [u32; MAX_LINES];

/// The live cells of `b`, per row.
#[allow(clippy::needless_range_loop)]
pub fn live(b: &Board) -> Rows {
    let f = &b.f[0];
    let mut out = [0u32; MAX_LINES];
    for i in 1..=f.n {
        let free = f.free(i);
        let h = free & (free >> 1);
        let v = free & (f.free(i - 1) | f.free(i + 1));
        out[i] = h | (h << 1) | v;
    }
    out
}

/// The component of `m` that holds the cell at row index `i`, bit `j` (it must be in `m`).
fn component(m: &Rows, n: usize, i: usize, j: u32) -> Rows {
    let mut c = [0u32; MAX_LINES];
    c[i] = 1 << j;
    loop {
        let mut changed = false;
        for k in 1..=n {
            let g = (c[k] | c[k] << 1 | c[k] >> 1 | c[k - 1] | c[k + 1]) & m[k];
            if g != c[k] {
                c[k] = g;
                changed = true;
            }
        }
        if !changed {
            return c;
        }
    }
}

/// The regions of the live cells `m` of a board with `n` rows, each as its cells per row.
pub fn split(m: &Rows, n: usize) -> Vec<Rows> {
    let mut rest = *m;
    let mut out = Vec::new();
    for i in 1..=n {
        while rest[i] != 0 {
            let c = component(&rest, n, i, rest[i].trailing_zeros());
            for k in 1..=n {
                rest[k] &= !c[k];
            }
            out.push(c);
        }
    }
    out
}

/// Cells of a region.
pub fn size(c: &Rows) -> u32 {
    c.iter().map(|r| r.count_ones()).sum()
}

/// The region as a `cgt` local region in the top-left corner, when its bounding box fits in
/// 8x8.
pub fn local(c: &Rows) -> Option<u64> {
    placed(c).map(|p| p.0)
}

/// `local`, with the row index and the bit of the region's top-left corner on the board.
pub fn placed(c: &Rows) -> Option<(u64, usize, u32)> {
    let top = c.iter().position(|&r| r != 0)?;
    let bottom = c.iter().rposition(|&r| r != 0)?;
    if bottom - top >= 8 {
        return None;
    }
    let all = c.iter().fold(0, |a, &r| a | r);
    let left = all.trailing_zeros();
    if (all >> left) >= 1 << 8 {
        return None;
    }
    let mut m = 0u64;
    for (k, &r) in c[top..=bottom].iter().enumerate() {
        m |= ((r >> left) as u64) << (8 * k);
    }
    Some((m, top, left))
}

impl Solver<'_> {
    /// Keeps, of the side to move's moves inside regions proven numbers, only the one that
    /// costs it least (tried last): a move inside a number region takes that region to a
    /// number, so the whole position changes by a number, and of two moves that change it
    /// by numbers, the one better for the mover dominates. (With Bullock's rule: a winning
    /// side has a winning move that is not a safe move; if that one lies in a number region,
    /// the best non-safe move there wins too.)
    pub(super) fn number_regions(&mut self, n: &Node, list: &mut Vec<Scored>) {
        let b = &n.b;
        let parts = split(&live(b), b.f[0].n);
        if parts.len() < 2 {
            return;
        }
        // Per board row index, the cells of number regions; per region, where it lies.
        let mut cells = [0u32; MAX_LINES];
        let mut found: Vec<(Rows, u64, usize, u32, i64)> = Vec::new();
        for c in &parts {
            if size(c) > REGION_CELLS {
                continue;
            }
            let Some((m, top, left)) = placed(c) else {
                continue;
            };
            let Some(v) = self.values.sum(m) else {
                continue;
            };
            for (k, r) in cells.iter_mut().enumerate() {
                *r |= c[k];
            }
            found.push((*c, m, top, left, v));
        }
        if found.is_empty() {
            return;
        }
        let p = b.turn;
        // Vertical (Left) gains by larger values, Horizontal by smaller.
        let sign = if p == 1 { 1 } else { -1 };
        let mut best: Option<(i64, Scored)> = None;
        list.retain(|s| {
            let [(r0, c0), (r1, c1)] = Board::cells(p, s.mv);
            let (i0, i1) = (r0 as usize + 1, r1 as usize + 1);
            if cells[i0] >> c0 & 1 == 0 {
                return true;
            }
            let Some(&(_, m, top, left, v)) = found.iter().find(|f| f.0[i0] >> c0 & 1 == 1) else {
                return true;
            };
            let bit = |i: usize, c: u32| 1u64 << (8 * (i - top) as u32 + c - left);
            let after = m & !(bit(i0, c0) | bit(i1, c1));
            let Some(w) = self.values.sum(after) else {
                return true;
            };
            let gain = sign * (w - v);
            if best.as_ref().is_none_or(|(g, _)| gain > *g) {
                best = Some((gain, *s));
            }
            false
        });
        if let Some((_, mut s)) = best {
            s.score = i32::MIN / 2;
            list.push(s);
        }
    }

    /// Whether the side to move wins, judged by the values of the regions proven numbers
    /// (`cgt`), or `None`. Where every region is a number, their sum decides. Otherwise the
    /// number regions, of sum `x`, are taken off the board and replaced by an integer: a
    /// player that wins with `x` rounded against it (Vertical, whose values are positive,
    /// with `floor(x)`; Horizontal with `ceil(x)`) wins with `x`. An integer `n` is `|n|`
    /// moves of one player that the other can never take (safe moves), so the count and
    /// strategy bounds of the rest of the board decide with them added.
    pub(super) fn regions_bound(&mut self, b: &Board) -> (Option<bool>, u64) {
        let parts = split(&live(b), b.f[0].n);
        let mut rest = *b;
        let mut x = 0i64;
        let mut numbers = 0;
        let mut keys = [0u64; 4];
        for c in &parts {
            let v = if size(c) > REGION_CELLS {
                None
            } else {
                local(c).and_then(|m| self.values.sum(m))
            };
            let Some(v) = v else {
                for (i, &row) in c.iter().enumerate() {
                    let mut r = row;
                    while r != 0 {
                        let z = &self.zobrist
                            [(i - 1) * self.cols as usize + r.trailing_zeros() as usize];
                        for k in 0..4 {
                            keys[k] ^= z[k];
                        }
                        r &= r - 1;
                    }
                }
                continue;
            };
            x += v;
            numbers += 1;
            for (i, &row) in c.iter().enumerate() {
                let mut r = row;
                while r != 0 {
                    rest.cover(i as u32 - 1, r.trailing_zeros());
                    r &= r - 1;
                }
            }
        }
        let k = keys[0].min(keys[1]).min(keys[2]).min(keys[3]);
        let key = crate::bits::mix(
            k ^ crate::bits::mix(x as u64 ^ 0x5bd1_e995)
                ^ self.side_tag[b.turn]
                ^ 0x9e37_79b9_7f4a_7c15,
        );
        if numbers == 0 {
            return (None, key);
        }
        let p = b.turn;
        let mover_is_vertical = p == 1;
        if numbers == parts.len() {
            return (
                Some(match x.cmp(&0) {
                    std::cmp::Ordering::Greater => mover_is_vertical,
                    std::cmp::Ordering::Less => !mover_is_vertical,
                    std::cmp::Ordering::Equal => false,
                }),
                key,
            );
        }
        let floor = x.div_euclid(UNIT);
        let ceil = -(-x).div_euclid(UNIT);
        // Extra safe moves per frame (0 Horizontal, 1 Vertical) for an integer `n`.
        let bonus = |n: i64| -> [u32; 2] {
            if n >= 0 {
                [0, n as u32]
            } else {
                [(-n) as u32, 0]
            }
        };
        let cnt = [counts(&rest.f[0]), counts(&rest.f[1])];
        let with = |c: Counts, extra: u32| Counts {
            real: c.real + extra,
            safe: c.safe + extra,
        };
        // The mover, with x rounded against it.
        let bm = bonus(if mover_is_vertical { floor } else { ceil });
        let (cp, cq) = (with(cnt[p], bm[p]), with(cnt[1 - p], bm[1 - p]));
        if cp.safe > cq.real {
            return (Some(true), key);
        }
        let s = guaranteed(&rest.f[p], true);
        if s.moves + bm[p] > cq.real
            || (s.boxes > 0 && s.moves_boxes_first + bm[p] + 2 * s.boxes > cq.real)
        {
            return (Some(true), key);
        }
        // The opponent, with x rounded against it.
        let bo = bonus(if mover_is_vertical { ceil } else { floor });
        let (cp, cq) = (with(cnt[p], bo[p]), with(cnt[1 - p], bo[1 - p]));
        if cq.safe >= cp.real {
            return (Some(false), key);
        }
        let s = guaranteed(&rest.f[1 - p], false);
        if s.moves + bo[1 - p] >= cp.real
            || (s.boxes > 0 && s.moves_boxes_first + bo[1 - p] + 2 * s.boxes >= cp.real)
        {
            return (Some(false), key);
        }
        (None, key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_of_a_board() {
        // 3x9: row 0 free but for column 4; rows 1-2 covered but for (2, 8) and (1, 8).
        let mut b = Board::new(3, 9, 0);
        b.cover(0, 4);
        for r in 1..3 {
            for c in 0..8 {
                b.cover(r, c);
            }
        }
        let l = live(&b);
        let parts = split(&l, 3);
        assert_eq!(parts.len(), 2);
        let mut sizes: Vec<u32> = parts.iter().map(size).collect();
        sizes.sort();
        // (0,0..3) is 4 cells; (0,5..8) with (1,8), (2,8) is 6.
        assert_eq!(sizes, vec![4, 6]);
        let locals: Vec<Option<u64>> = parts.iter().map(local).collect();
        assert!(locals.contains(&Some(0b1111)));
        assert!(locals.contains(&Some(0b1111 | 0b1000 << 8 | 0b1000 << 16)));
    }
}
