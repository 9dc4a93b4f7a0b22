//! Combinatorial values of small Domineering regions, where the value is a number.
//!
//! Conventions (Winning Ways): **Left is Vertical, Right is Horizontal**; a value is positive
//! when it favours Vertical. A lone vertical domino space (two cells, one above the other) is
//! 1, a horizontal one -1, a single cell 0, a 2x2 square ±1 (a switch, not a number).
//!
//! Numbers are dyadic rationals held as integers in units of `1 / UNIT` (`UNIT = 2^DEPTH`).
//! A region is a `u64` in a local 8x8 grid: bit `r * 8 + c` is local row `r`, column `c`.
//!
//! A region's value is reported only when proven a number: every option of both players is a
//! number (sums of the remainder's components) and max(Left options) < min(Right options);
//! then the value is the simplest number strictly between (the simplicity theorem). Any
//! other region is `None` ("unknown"), which is never wrong, only less useful (a game can
//! equal a number without passing this test).

use super::super::board::Side;
use std::collections::HashMap;

/// Binary digits after the point that a value may have.
pub const DEPTH: u32 = 16;
/// The value 1.
pub const UNIT: i64 = 1 << DEPTH;

const COL0: u64 = 0x0101_0101_0101_0101;
/// Local cells with a right neighbour inside the 8x8 grid.
const H_ANCHOR: u64 = !(COL0 << 7);

/// Cells of `m` orthogonally next to a cell of `m` (the cells some domino of either player
/// could cover).
fn live(m: u64) -> u64 {
    let v = m & (m >> 8);
    let h = m & (m >> 1) & H_ANCHOR;
    v | (v << 8) | h | (h << 1)
}

/// Orthogonal neighbours of `m` inside the grid.
fn grow(m: u64) -> u64 {
    m | (m << 8) | (m >> 8) | ((m << 1) & !COL0) | ((m >> 1) & H_ANCHOR)
}

/// The connected components of `m` (orthogonal adjacency), each with at least one cell.
pub fn components(mut m: u64) -> Vec<u64> {
    let mut out = Vec::new();
    while m != 0 {
        let mut c = m & m.wrapping_neg();
        loop {
            let n = grow(c) & m;
            if n == c {
                break;
            }
            c = n;
        }
        out.push(c);
        m &= !c;
    }
    out
}

/// `m` moved to the top-left corner of the grid.
pub fn normalise(m: u64) -> u64 {
    if m == 0 {
        return 0;
    }
    let mut m = m >> (8 * (m.trailing_zeros() / 8));
    while m & COL0 == 0 {
        m >>= 1;
    }
    m
}

/// The simplest number strictly between `lo` and `hi` (either may be absent: no bound), or
/// `None` when `lo >= hi` or it would need more than `DEPTH` binary digits.
pub fn simplest(lo: Option<i64>, hi: Option<i64>) -> Option<i64> {
    match (lo, hi) {
        (None, None) => Some(0),
        (Some(l), None) => Some(if l < 0 {
            0
        } else {
            (l.div_euclid(UNIT) + 1) * UNIT
        }),
        (None, Some(h)) => Some(if h > 0 {
            0
        } else {
            -((-h).div_euclid(UNIT) + 1) * UNIT
        }),
        (Some(l), Some(h)) => {
            if l >= h {
                return None;
            }
            if l < 0 && h > 0 {
                return Some(0);
            }
            // Coarsest grid first: integers (nearest zero), then halves, quarters...
            for k in 0..=DEPTH {
                let step = UNIT >> k;
                if l >= 0 {
                    let m = (l.div_euclid(step) + 1) * step;
                    if m < h {
                        return Some(m);
                    }
                } else {
                    let m = -((-h).div_euclid(step) + 1) * step;
                    if m > l {
                        return Some(m);
                    }
                }
            }
            None
        }
    }
}

/// Values of regions, cached by normalised shape.
#[derive(Default)]
pub struct Values {
    cache: HashMap<u64, Option<i64>>,
}

impl Values {
    pub fn new() -> Values {
        Values::default()
    }

    /// The value of the cells `m` (any number of components), if every component is
    /// proven a number: then their sum.
    pub fn sum(&mut self, m: u64) -> Option<i64> {
        let mut s = 0;
        for c in components(live(m)) {
            s += self.component(normalise(c))?;
        }
        Some(s)
    }

    /// As `sum`, but `None` as soon as a component has more than `max` live cells.
    pub fn sum_small(&mut self, m: u64, max: u32) -> Option<i64> {
        let cs = components(live(m));
        if cs.iter().any(|c| c.count_ones() > max) {
            return None;
        }
        let mut s = 0;
        for c in cs {
            s += self.component(normalise(c))?;
        }
        Some(s)
    }

    fn component(&mut self, m: u64) -> Option<i64> {
        if let Some(&v) = self.cache.get(&m) {
            return v;
        }
        let v = self.options(m);
        self.cache.insert(m, v);
        v
    }

    fn options(&mut self, m: u64) -> Option<i64> {
        let mut best_left: Option<i64> = None;
        let mut v = m & (m >> 8);
        while v != 0 {
            let a = v.trailing_zeros();
            v &= v - 1;
            let x = self.sum(m & !(1 << a | 1 << (a + 8)))?;
            best_left = Some(best_left.map_or(x, |b| b.max(x)));
        }
        let mut best_right: Option<i64> = None;
        let mut h = m & (m >> 1) & H_ANCHOR;
        while h != 0 {
            let a = h.trailing_zeros();
            h &= h - 1;
            let x = self.sum(m & !(3 << a))?;
            best_right = Some(best_right.map_or(x, |b| b.min(x)));
        }
        simplest(best_left, best_right)
    }
}

/// The empty cells of `pos` as a local region, when the board fits in the 8x8 grid.
pub fn local<B: crate::bits::Bits>(pos: &super::super::Domineering<B>) -> Option<u64> {
    let (rows, cols) = (pos.geo.rows, pos.geo.cols);
    if rows > 8 || cols > 8 {
        return None;
    }
    let e = pos.empty();
    let mut m = 0u64;
    for r in 0..rows {
        for c in 0..cols {
            if e.has(r * cols + c) {
                m |= 1 << (r * 8 + c);
            }
        }
    }
    Some(m)
}

/// The winner of a sum of regions whose value is the number `sum` (in units of `1 / UNIT`)
/// with `to_move` to move: Left (Vertical) when positive, Right (Horizontal) when negative,
/// the second player when zero.
pub fn winner(sum: i64, to_move: Side) -> Side {
    match sum.cmp(&0) {
        std::cmp::Ordering::Greater => Side::Vertical,
        std::cmp::Ordering::Less => Side::Horizontal,
        std::cmp::Ordering::Equal => to_move.other(),
    }
}

/// Parses rows of `X` (empty cell of the region) and other characters (not in it) into a
/// local region; rows past the 8th or columns past the 8th are ignored.
pub fn shape(rows: &[&str]) -> u64 {
    let mut m = 0;
    for (r, row) in rows.iter().enumerate().take(8) {
        for (c, ch) in row.chars().enumerate().take(8) {
            if ch == 'X' {
                m |= 1 << (r * 8 + c);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: i64 = UNIT;

    /// Random positions: wherever the regions' values decide the game, the existing solver
    /// (an independent search that knows nothing of values) must agree.
    #[test]
    fn decided_positions_agree_with_the_solver() {
        use crate::games::domineering::{Domineering, solver};
        use crate::learn::rng::Rng;
        let mut rng = Rng::new(32);
        let mut v = Values::new();
        let (mut decided, mut tried) = (0, 0);
        for rows in 2..=6u32 {
            for cols in 2..=6u32 {
                for _ in 0..40 {
                    let first = if rng.next_u64() & 1 == 0 {
                        Side::Vertical
                    } else {
                        Side::Horizontal
                    };
                    let Ok(mut pos) = Domineering::<u64>::new(rows, cols, first) else {
                        panic!("{rows}x{cols}");
                    };
                    let plies = rng.next_u64() % (rows * cols / 2) as u64;
                    for _ in 0..plies {
                        let m = pos.moves_of(pos.to_move);
                        if m == 0 {
                            break;
                        }
                        let k = rng.next_u64() % m.count_ones() as u64;
                        let mut mm = m;
                        for _ in 0..k {
                            mm &= mm - 1;
                        }
                        pos.place(mm.trailing_zeros());
                    }
                    let Some(m) = local(&pos) else { panic!("fits") };
                    tried += 1;
                    let Some(s) = v.sum(m) else { continue };
                    decided += 1;
                    let Some(out) = solver::solve(&pos, &|| false) else {
                        panic!("solved")
                    };
                    assert_eq!(
                        winner(s, pos.to_move),
                        out.winner,
                        "{rows}x{cols} {:x} value {s}",
                        pos.occupied
                    );
                }
            }
        }
        // Enough positions are decided for the check to mean something.
        assert!(decided * 5 > tried, "{decided} of {tried}");
        eprintln!("decided {decided} of {tried}");
    }

    #[test]
    fn simplest_numbers() {
        // (lo, hi, expected, what it exercises); the simplicity rule (Winning Ways ch. 2).
        type Row = (Option<i64>, Option<i64>, Option<i64>, &'static str);
        let table: &[Row] = &[
            (None, None, Some(0), "{|} = 0"),
            (Some(0), None, Some(U), "{0|} = 1"),
            (Some(U), None, Some(2 * U), "{1|} = 2"),
            (Some(-U), None, Some(0), "{-1|} = 0"),
            (None, Some(0), Some(-U), "{|0} = -1"),
            (None, Some(U / 2), Some(0), "{|1/2} = 0"),
            (Some(0), Some(U), Some(U / 2), "{0|1} = 1/2"),
            (Some(U / 2), Some(U), Some(3 * U / 4), "{1/2|1} = 3/4"),
            (Some(-U), Some(U), Some(0), "{-1|1} = 0"),
            (Some(U), Some(4 * U), Some(2 * U), "{1|4} = 2"),
            (Some(-4 * U), Some(-U), Some(-2 * U), "{-4|-1} = -2"),
            (Some(-U), Some(-U / 2), Some(-3 * U / 4), "{-1|-1/2} = -3/4"),
            (Some(0), Some(0), None, "{0|0} = * is no number"),
            (Some(U), Some(-U), None, "{1|-1} = ±1 is no number"),
        ];
        for &(lo, hi, want, what) in table {
            assert_eq!(simplest(lo, hi), want, "{what}");
        }
    }

    #[test]
    fn components_and_normalise() {
        let m = shape(&["XX..", "....", ".X.X", ".X.X"]);
        let c = components(m);
        assert_eq!(c.len(), 3);
        assert_eq!(c.iter().fold(0, |a, b| a | b), m);
        assert_eq!(
            normalise(shape(&["....", "..X.", "..X."])),
            shape(&["X", "X"])
        );
        // No wrap-around between the right edge and the next row.
        assert_eq!(components(shape(&[".......X", "X......."])).len(), 2);
    }

    #[test]
    fn region_values() {
        // (region, what it exercises, value in units of 1/UNIT or None = not a number).
        // Sources: Winning Ways (Berlekamp, Conway, Guy), ch. 1-2, with Vertical = Left;
        // the values derived by hand in the comments.
        let table: &[(&[&str], &str, Option<i64>)] = &[
            (&["X"], "single cell: no moves, 0", Some(0)),
            (&["X", "X"], "vertical domino space = 1 (WW)", Some(U)),
            (&["XX"], "horizontal domino space = -1 (WW)", Some(-U)),
            (&["X", "X", "X"], "vertical strip of 3 = 1", Some(U)),
            (
                &["X", "X", "X", "X"],
                "vertical strip of 4 = 2",
                Some(2 * U),
            ),
            (&["XXXXX"], "horizontal strip of 5 = -2", Some(-2 * U)),
            (&["XX", "XX"], "2x2 square = ±1, no number (WW)", None),
            (&["X.", "XX"], "L-tromino: {0|0} = *, no number", None),
            // Vertical: b1b2 leaves a1, b3 = 0; b2b3 leaves a1a2-row = -1.
            // Horizontal: a1b1 leaves b2b3 = 1. {0,-1|1} = 1/2.
            (&["XX", ".X", ".X"], "{0|1} = 1/2", Some(U / 2)),
            (&["XX", "X.", "X."], "mirror image, same value", Some(U / 2)),
            // Vertical: b1b2 leaves a1, c1, b3 = 0; b2b3 leaves a1b1c1 = -1. Horizontal:
            // a1b1 or b1c1 leaves a cell and b2b3 = 1. {0,-1|1} = 1/2.
            (
                &["XXX", ".X.", ".X."],
                "T: options are sums of regions",
                Some(U / 2),
            ),
            (&["X", "X", ".", "XX"], "sum of 1 and -1 = 0", Some(0)),
            (&["X.X", "X.X"], "sum of 1 and 1 = 2", Some(2 * U)),
        ];
        let mut v = Values::new();
        for &(rows, what, want) in table {
            assert_eq!(v.sum(shape(rows)), want, "{what}: {rows:?}");
        }
    }
}
