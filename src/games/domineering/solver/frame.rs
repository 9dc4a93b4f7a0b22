//! The solver's board: two views of one Domineering position, one per player, in each of which
//! that player's dominoes lie along rows ("lines").
//!
//! Frame 0 belongs to Horizontal and its lines are the board's rows; frame 1 belongs to
//! Vertical and its lines are the board's columns. Line `k` (0-based) is stored at index
//! `k + 1` as a `u32` whose bit `j` (0-based along the line) is set when that cell is covered.
//! Invariants: indices 0 and `n + 1` are walls (all bits set) and every bit at or above the
//! line length `w` is set, so `!line` is exactly the free cells and a cell's neighbours in the
//! lines above and below can always be read. A cell is *protected* for a player when the
//! cells above and below it in that player's frame are covered: the opponent can never cover
//! it. Both frames always describe the same cells.

/// Lines per frame: up to 16, plus the two walls.
pub const MAX_LINES: usize = 18;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub line: [u32; MAX_LINES],
    /// Number of lines.
    pub n: usize,
    /// Cells per line.
    pub w: u32,
}

impl Frame {
    fn empty(n: usize, w: u32) -> Frame {
        let mut line = [u32::MAX; MAX_LINES];
        for l in line.iter_mut().take(n + 1).skip(1) {
            *l = !((1u32 << w) - 1);
        }
        Frame { line, n, w }
    }
    /// Free cells of line index `i` (1..=n).
    #[inline]
    pub fn free(&self, i: usize) -> u32 {
        !self.line[i]
    }
    /// Free cells of line `i` that the opponent can never cover.
    #[inline]
    pub fn prot(&self, i: usize) -> u32 {
        !self.line[i] & self.line[i - 1] & self.line[i + 1]
    }
    /// The safe dominoes of line `i` once the lines above and below gain the covered cells
    /// `above` and `below` (line `i` itself unchanged).
    #[inline]
    pub fn safe_with(&self, i: usize, above: u32, below: u32) -> u32 {
        pack(!self.line[i] & (self.line[i - 1] | above) & (self.line[i + 1] | below))
    }
}

/// Maximum number of disjoint dominoes along one line's free cells (the sum of half the
/// length of every run), for 16-bit lines.
pub fn pack(cells: u32) -> u32 {
    tables().pack[(cells & 0xFFFF) as usize] as u32
}

/// The anchors (left cells) of the greedy left-to-right domino packing of a line's cells:
/// it reaches `pack(cells)` dominoes.
pub fn pairs(cells: u32) -> u32 {
    tables().pairs[(cells & 0xFFFF) as usize] as u32
}

struct Tables {
    pack: Vec<u8>,
    pairs: Vec<u16>,
}

fn tables() -> &'static Tables {
    static T: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut pack = vec![0u8; 1 << 16];
        let mut pairs = vec![0u16; 1 << 16];
        for x in 0..1u32 << 16 {
            let (mut rest, mut a, mut n) = (x, 0u32, 0u8);
            let mut s = rest & (rest >> 1);
            while s != 0 {
                let b = s & s.wrapping_neg();
                a |= b;
                n += 1;
                rest &= !(b | b << 1);
                s = rest & (rest >> 1);
            }
            pack[x as usize] = n;
            pairs[x as usize] = a as u16;
        }
        Tables { pack, pairs }
    })
}

/// A move in the solver's terms: frame (the mover), line index (1..=n) and the anchor bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mv {
    pub line: u8,
    pub bit: u8,
}

/// Both frames, and whose turn it is.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    pub f: [Frame; 2],
    /// 0 = Horizontal to move, 1 = Vertical.
    pub turn: usize,
    /// Free cells.
    pub empty: u32,
}

impl Board {
    /// An empty board of `rows` x `cols` (each 1..=16).
    pub fn new(rows: u32, cols: u32, turn: usize) -> Board {
        Board {
            f: [
                Frame::empty(rows as usize, cols),
                Frame::empty(cols as usize, rows),
            ],
            turn,
            empty: rows * cols,
        }
    }
    /// Covers the board cell at row `r`, column `c` (0-based); it must be free.
    pub fn cover(&mut self, r: u32, c: u32) {
        self.f[0].line[r as usize + 1] |= 1 << c;
        self.f[1].line[c as usize + 1] |= 1 << r;
        self.empty -= 1;
    }
    /// Plays `m` for the side to move and passes the turn.
    #[inline]
    pub fn play(&mut self, m: Mv) {
        let (p, i, j) = (self.turn, m.line as usize, m.bit as u32);
        self.f[p].line[i] |= 3 << j;
        let o = &mut self.f[1 - p];
        o.line[j as usize + 1] |= 1 << (i - 1);
        o.line[j as usize + 2] |= 1 << (i - 1);
        self.empty -= 2;
        self.turn = 1 - p;
    }
    /// The board cells `(row, col)` (0-based) covered by move `m` of frame `p`.
    pub fn cells(p: usize, m: Mv) -> [(u32, u32); 2] {
        let (k, j) = (m.line as u32 - 1, m.bit as u32);
        if p == 0 {
            [(k, j), (k, j + 1)]
        } else {
            [(j, k), (j + 1, k)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_and_pairs() {
        // (cells, dominoes): runs of 1, 2, 3 and 5 cells.
        for (x, n) in [
            (0b1u32, 0),
            (0b11, 1),
            (0b111, 1),
            (0b1101_1111, 3),
            (0xFFFF, 8),
        ] {
            assert_eq!(pack(x), n, "{x:b}");
            let a = pairs(x);
            assert_eq!(a.count_ones(), n);
            assert_eq!((a | a << 1) & !x, 0, "pairs inside the cells");
            assert_eq!(a & (a << 1), 0, "pairs disjoint");
        }
    }

    #[test]
    fn frames_agree() {
        let mut b = Board::new(3, 5, 0);
        b.play(Mv { line: 2, bit: 1 }); // Horizontal: row 1, columns 1-2
        b.play(Mv { line: 5, bit: 0 }); // Vertical: column 4, rows 0-1
        assert_eq!(b.empty, 11);
        for r in 0..3u32 {
            for c in 0..5u32 {
                let h = b.f[0].line[r as usize + 1] >> c & 1;
                let v = b.f[1].line[c as usize + 1] >> r & 1;
                assert_eq!(h, v, "cell {r},{c}");
            }
        }
        assert_eq!(b.f[0].free(2), 0b01001); // (1,4) is Vertical's
        assert_eq!(b.f[1].free(5), 0b100);
        assert_eq!(Board::cells(1, Mv { line: 5, bit: 0 }), [(0, 4), (1, 4)]);
    }
}
