//! Domineering rules over any `Bits` type. Cell `r * cols + c` is row `r` (0 at the top, row
//! "1" in notation) and column `c` (0 = `a`). A move is named by its anchor, the top or left
//! cell: Horizontal (player 1) covers `a` and `a + 1`, Vertical (player 2) `a` and `a + cols`.
//!
//! Invariants: `occupied` only has bits inside `geo.all`; the side to move with no legal
//! placement has lost (the last player to move wins).

use crate::bits::Bits;
use crate::game::Player;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Horizontal,
    Vertical,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Horizontal => Side::Vertical,
            Side::Vertical => Side::Horizontal,
        }
    }
    pub fn player(self) -> Player {
        match self {
            Side::Horizontal => Player::P1,
            Side::Vertical => Player::P2,
        }
    }
    pub fn letter(self) -> char {
        match self {
            Side::Horizontal => 'h',
            Side::Vertical => 'v',
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Side::Horizontal => "Horizontal",
            Side::Vertical => "Vertical",
        }
    }
}

/// The board's shape as masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geo<B: Bits> {
    pub rows: u32,
    pub cols: u32,
    /// Every cell of the board.
    pub all: B,
    /// Cells with a right neighbour (possible Horizontal anchors).
    pub h_anchor: B,
    /// Cells with a cell below (possible Vertical anchors).
    pub v_anchor: B,
}

impl<B: Bits> Geo<B> {
    pub fn new(rows: u32, cols: u32) -> Result<Geo<B>, String> {
        if rows == 0 || cols == 0 || rows > 16 || cols > 16 {
            return Err(format!(
                "a {rows}x{cols} board is not supported: rows and columns 1..16"
            ));
        }
        if rows * cols > B::BITS {
            return Err(format!(
                "a {rows}x{cols} board needs more than {} bits",
                B::BITS
            ));
        }
        let mut all = B::zero();
        let mut h = B::zero();
        let mut v = B::zero();
        for r in 0..rows {
            for c in 0..cols {
                let i = B::one_at(r * cols + c);
                all |= i;
                if c + 1 < cols {
                    h |= i;
                }
                if r + 1 < rows {
                    v |= i;
                }
            }
        }
        Ok(Geo {
            rows,
            cols,
            all,
            h_anchor: h,
            v_anchor: v,
        })
    }

    /// The two cells covered by `side`'s domino at `anchor`.
    pub fn cells(&self, side: Side, anchor: u32) -> B {
        match side {
            Side::Horizontal => B::one_at(anchor) | B::one_at(anchor + 1),
            Side::Vertical => B::one_at(anchor) | B::one_at(anchor + self.cols),
        }
    }

    /// Anchors of every placement of `side` on the empty cells `empty`.
    pub fn moves(&self, side: Side, empty: B) -> B {
        match side {
            Side::Horizontal => empty & (empty >> 1) & self.h_anchor,
            Side::Vertical => empty & (empty >> self.cols) & self.v_anchor,
        }
    }

    /// Cells that some placement of `side` could cover.
    pub fn reach(&self, side: Side, empty: B) -> B {
        let m = self.moves(side, empty);
        match side {
            Side::Horizontal => m | (m << 1),
            Side::Vertical => m | (m << self.cols),
        }
    }

    /// Greedy disjoint packing of the anchors `anchors` along lines: exact for one side
    /// alone, because its lines (rows for Horizontal, columns for Vertical) are independent.
    pub fn packing(&self, side: Side, mut anchors: B) -> u32 {
        let step = match side {
            Side::Horizontal => 1,
            Side::Vertical => self.cols,
        };
        let mut n = 0;
        while !anchors.is_zero() {
            let a = anchors.lowest();
            n += 1;
            anchors &= !(B::one_at(a) | B::one_at(a + step));
        }
        n
    }

    /// Upper bound on the moves `side` can still make: its packing ignoring the opponent.
    pub fn max_moves(&self, side: Side, empty: B) -> u32 {
        self.packing(side, self.moves(side, empty))
    }

    /// Moves `side` is sure to have: disjoint placements on cells the opponent can never
    /// cover (safe moves).
    pub fn safe_moves(&self, side: Side, empty: B) -> u32 {
        let protected = empty & !self.reach(side.other(), empty);
        self.packing(side, self.moves(side, protected))
    }
}
