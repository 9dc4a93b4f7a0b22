//! Connect Four rules on a column-major bitboard with one guard bit per column (Pascal Pons's
//! layout): bit `col * (height + 1) + row`, row 0 at the bottom. `mask` holds every stone,
//! `current` the stones of the side to move; `current + mask + bottom` is a unique key.
//!
//! Invariants: `width * (height + 1) <= 64`; stones obey gravity; after a winning move
//! `won` is set and no move is legal (the game is over); a full board is a draw.

use crate::game::Player;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub width: u32,
    pub height: u32,
    /// One bit at the bottom of every column (precomputed: it is on every hot path).
    bottom: u64,
    /// Every playable cell.
    board: u64,
}

impl Dims {
    pub fn new(width: u32, height: u32) -> Result<Dims, String> {
        let bits = height.checked_add(1).and_then(|h| h.checked_mul(width));
        if width == 0 || height == 0 || width > 26 || bits.is_none_or(|b| b > 64) {
            return Err(format!(
                "a {width}x{height} board does not fit: width 1..26 and width*(height+1) <= 64"
            ));
        }
        let bottom = (0..width).fold(0u64, |b, c| b | 1u64 << (c * (height + 1)));
        let board = bottom.wrapping_mul((1u64 << height) - 1);
        Ok(Dims {
            width,
            height,
            bottom,
            board,
        })
    }
    pub fn cells(self) -> u32 {
        self.width * self.height
    }
    pub fn col_stride(self) -> u32 {
        self.height + 1
    }
    pub fn bottom_mask_col(self, col: u32) -> u64 {
        1u64 << (col * self.col_stride())
    }
    pub fn top_mask_col(self, col: u32) -> u64 {
        1u64 << (self.height - 1 + col * self.col_stride())
    }
    pub fn column_mask(self, col: u32) -> u64 {
        ((1u64 << self.height) - 1) << (col * self.col_stride())
    }
    /// One bit at the bottom of every column.
    #[inline]
    pub fn bottom(self) -> u64 {
        self.bottom
    }
    /// Every playable cell.
    #[inline]
    pub fn board_mask(self) -> u64 {
        self.board
    }
    pub fn bit(self, col: u32, row: u32) -> u64 {
        1u64 << (col * self.col_stride() + row)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub dims: Dims,
    /// Stones of the side to move.
    pub current: u64,
    /// All stones.
    pub mask: u64,
    /// Stones played.
    pub moves: u32,
    /// The previous move made four in a row.
    pub won: bool,
}

fn shl(x: u64, s: u32) -> u64 {
    x.checked_shl(s).unwrap_or(0)
}

fn shr(x: u64, s: u32) -> u64 {
    x.checked_shr(s).unwrap_or(0)
}

/// Cells that would complete four in a row for the stones `pos` (empty cells of the board
/// only). The common heights get shifts fixed at compile time (this is the solver's hot path).
#[inline(always)]
pub fn winning_cells(dims: Dims, pos: u64, mask: u64) -> u64 {
    let r = match dims.height {
        4 => lines_through::<4>(pos),
        5 => lines_through::<5>(pos),
        6 => lines_through::<6>(pos),
        7 => lines_through::<7>(pos),
        8 => lines_through::<8>(pos),
        9 => lines_through::<9>(pos),
        h => lines_through_any(pos, h),
    };
    r & dims.board_mask() & !mask
}

/// The cells (any, callers mask) that complete a four with three of `pos`, for height `H`
/// (all shifts below 64: 3 * (H + 2) < 64).
#[inline(always)]
fn lines_through<const H: u32>(pos: u64) -> u64 {
    // Vertical: three stacked stones, the cell above them.
    let mut r = (pos << 1) & (pos << 2) & (pos << 3);
    // Horizontal (H+1) and the two diagonals (H, H+2): the gap may be at any of 4 places.
    macro_rules! dir {
        ($s:expr) => {{
            let s = $s;
            let p = (pos << s) & (pos << (2 * s));
            r |= p & (pos << (3 * s));
            r |= p & (pos >> s);
            let p = (pos >> s) & (pos >> (2 * s));
            r |= p & (pos << s);
            r |= p & (pos >> (3 * s));
        }};
    }
    dir!(H + 1);
    dir!(H);
    dir!(H + 2);
    r
}

/// `lines_through` for any height (shifts of 64 or more give 0).
fn lines_through_any(pos: u64, h: u32) -> u64 {
    let mut r = shl(pos, 1) & shl(pos, 2) & shl(pos, 3);
    for s in [h + 1, h, h + 2] {
        let mut p = shl(pos, s) & shl(pos, 2 * s);
        r |= p & shl(pos, 3 * s);
        r |= p & shr(pos, s);
        p = shr(pos, s) & shr(pos, 2 * s);
        r |= p & shl(pos, s);
        r |= p & shr(pos, 3 * s);
    }
    r
}

/// True if `pos` contains four in a row.
#[inline]
pub fn has_four(dims: Dims, pos: u64) -> bool {
    match dims.height {
        6 => four_const::<6>(pos),
        7 => four_const::<7>(pos),
        h => {
            for shift in [1, h + 1, h, h + 2] {
                let m = pos & shr(pos, shift);
                if m & shr(m, 2 * shift) != 0 {
                    return true;
                }
            }
            false
        }
    }
}

#[inline(always)]
fn four_const<const H: u32>(pos: u64) -> bool {
    let f = |s: u32| {
        let m = pos & (pos >> s);
        m & (m >> (2 * s))
    };
    (f(1) | f(H + 1) | f(H) | f(H + 2)) != 0
}

impl Board {
    pub fn new(dims: Dims) -> Board {
        Board {
            dims,
            current: 0,
            mask: 0,
            moves: 0,
            won: false,
        }
    }

    pub fn to_move(&self) -> Player {
        if self.moves.is_multiple_of(2) {
            Player::P1
        } else {
            Player::P2
        }
    }

    pub fn can_play(&self, col: u32) -> bool {
        col < self.dims.width && self.mask & self.dims.top_mask_col(col) == 0
    }

    pub fn is_full(&self) -> bool {
        self.moves == self.dims.cells()
    }

    /// The game is over (a four was made, or the board is full).
    pub fn over(&self) -> bool {
        self.won || self.is_full()
    }

    /// Bitmap of the playable cells (one per non-full column).
    pub fn possible(&self) -> u64 {
        (self.mask + self.dims.bottom()) & self.dims.board_mask()
    }

    /// Plays in `col`; the caller has checked `can_play` and that the game is not over.
    pub fn play_col(&mut self, col: u32) {
        let m = (self.mask + self.dims.bottom_mask_col(col)) & self.dims.column_mask(col);
        self.play_bit(m);
    }

    /// Plays the stone `m` (a bit of `possible()`).
    pub fn play_bit(&mut self, m: u64) {
        let mover = self.current | m;
        self.won = has_four(self.dims, mover);
        self.current ^= self.mask;
        self.mask |= m;
        self.moves += 1;
    }

    /// Would playing `col` win at once?
    pub fn is_winning_move(&self, col: u32) -> bool {
        let possible = self.possible() & self.dims.column_mask(col);
        winning_cells(self.dims, self.current, self.mask) & possible != 0
    }

    /// Stones of the side that just moved.
    pub fn opponent(&self) -> u64 {
        self.current ^ self.mask
    }

    pub fn key(&self) -> u64 {
        self.current + self.mask + self.dims.bottom()
    }

    /// The key of the mirror image (columns reversed): each column's bits move as a block.
    pub fn mirror_key(&self) -> u64 {
        let key = self.key();
        let stride = self.dims.col_stride();
        let col = (1u64 << stride) - 1;
        let w = self.dims.width;
        (0..w).fold(0, |m, c| {
            m | ((key >> (c * stride)) & col) << ((w - 1 - c) * stride)
        })
    }

    /// Stones of player 1 and player 2.
    pub fn stones(&self) -> (u64, u64) {
        match self.to_move() {
            Player::P1 => (self.current, self.opponent()),
            Player::P2 => (self.opponent(), self.current),
        }
    }

    /// The row a stone in `col` would land on, if the column is not full.
    pub fn landing_row(&self, col: u32) -> Option<u32> {
        let filled = (self.mask & self.dims.column_mask(col)).count_ones();
        (filled < self.dims.height).then_some(filled)
    }
}
