//! 8x8 bitboard operations (one `u64` per side; bit `r * 8 + c`, row 0 at the top,
//! column 0 = a): moves by shift fills with constant masks, flips by carry propagation along
//! precomputed rays (no loop over squares), the last empty square's flips counted by line
//! tables, and stable discs from full lines and edges.
//! Every function agrees with the generic board code (`board::Geo`), as the tests check.

/// Columns b..g: the propagator of horizontal and diagonal fills (no wrap across a row end).
const INNER: u64 = 0x7e7e_7e7e_7e7e_7e7e;
pub(super) const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The lines of the board: 8 rows, 8 columns, 15 diagonals and 15 anti-diagonals (the
/// reference `full_lines` is checked against).
#[cfg(test)]
static LINES: [[u64; 15]; 4] = lines();

#[cfg(test)]
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

/// Discs of `p` that can never be flipped (a sound under-estimate): the edges' stable discs
/// (`edge_stable`, exact for an edge) and the discs whose four lines are full, then repeatedly
/// every inner disc that in each of the four line directions has a full line or a stable disc
/// of its own beside it (a flipped run is bounded by the opponent on both sides, so it cannot
/// hold such a disc).
pub fn stable(p: u64, o: u64) -> u64 {
    let full = full_lines(p | o);
    let mut s = super::edge_stable::edge_stable(p, o) | (p & full[0] & full[1] & full[2] & full[3]);
    if s == 0 {
        // Nothing to grow from: an inner disc needs a stable neighbour on some line.
        return 0;
    }
    // The edges are settled by their table; the inner discs grow from what is stable. (A
    // shift that wraps across a row's end lands on column a or h, outside `INNER_SQUARES`.)
    let inner = p & INNER_SQUARES;
    loop {
        let h = (s << 1) | (s >> 1) | full[0];
        let v = (s << 8) | (s >> 8) | full[1];
        let d = (s << 9) | (s >> 9) | full[2];
        let a = (s << 7) | (s >> 7) | full[3];
        let grown = s | (inner & h & v & d & a);
        if grown == s {
            return s;
        }
        s = grown;
    }
}

/// The squares off the board's edges (b2..g7).
const INNER_SQUARES: u64 = 0x007e_7e7e_7e7e_7e00;

/// The squares of the full lines of `filled`: rows, columns, diagonals (down-right) and
/// anti-diagonals (down-left), as `LINES` orders them: a square is in a direction's set when
/// no empty square lies on its line that way (an empty square spread along the line by shift
/// fills, the complement kept).
#[inline]
fn full_lines(filled: u64) -> [u64; 4] {
    // A row is full when the AND of its eight bits, folded onto its column a, is set.
    let mut r = filled;
    r &= r >> 4;
    r &= r >> 2;
    r &= r >> 1;
    let rows = (r & COL_A) * 0xff;
    // A column: the AND of its eight bytes, folded onto row 1.
    let mut c = filled;
    c &= c >> 32;
    c &= c >> 16;
    c &= c >> 8;
    let cols = (c & ROW_1) * COL_A;
    let empty = !filled;
    let diag = !(fill(empty, 9, !COL_A) | fill(empty, -9, !COL_H));
    let anti = !(fill(empty, 7, !COL_H) | fill(empty, -7, !COL_A));
    [rows, cols, diag, anti]
}

/// `x` spread along one direction (a shift left by `step`, or right by `-step`) as far as the
/// board goes: `keep` drops what a shift carries across the board's side.
#[inline]
fn fill(x: u64, step: i32, keep: u64) -> u64 {
    let shift = |v: u64, k: i32| {
        if step > 0 {
            v << (step * k)
        } else {
            v >> (-step * k)
        }
    };
    let (mut g, mut pro) = (x, keep);
    g |= pro & shift(g, 1);
    pro &= shift(pro, 1);
    g |= pro & shift(g, 2);
    pro &= shift(pro, 2);
    g |= pro & shift(g, 4);
    g
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
pub(super) fn corner_stable(p: u64) -> u64 {
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
        // Runs of the opponent's discs beside ours, one and two long, then (through pairs of
        // them) up to four and six, the longest a line holds.
        let mut l = mo & (p << s);
        let mut r = mo & (p >> s);
        l |= mo & (l << s);
        r |= mo & (r >> s);
        let (pl, pr) = (mo & (mo << s), mo & (mo >> s));
        l |= pl & (l << (2 * s));
        r |= pr & (r >> (2 * s));
        l |= pl & (l << (2 * s));
        r |= pr & (r >> (2 * s));
        (l << s) | (r >> s)
    }
    let inner = o & INNER;
    (fill(p, inner, 1) | fill(p, o, 8) | fill(p, inner, 7) | fill(p, inner, 9)) & !(p | o)
}

/// Flips along one line of at most eight squares where every square but the one played,
/// `i`, is filled: `LINE_FLIPS[i][m]`, `m` the mover's discs on the line (bit `k` its `k`-th
/// square). Bits past a short line's end read as the opponent's with no disc of the mover
/// beyond them, so they flip nothing, as the board's edge.
static LINE_FLIPS: [[u8; 256]; 8] = line_flips();

const fn line_flips() -> [[u8; 256]; 8] {
    let mut t = [[0u8; 256]; 8];
    let mut i = 0;
    while i < 8 {
        let mut m = 0;
        while m < 256 {
            let mut n = 0;
            let mut j = i + 1;
            while j < 8 && (m >> j) & 1 == 0 {
                j += 1;
            }
            if j < 8 {
                n += j - i - 1;
            }
            let mut j = i;
            while j > 0 && (m >> (j - 1)) & 1 == 0 {
                j -= 1;
            }
            if j > 0 {
                n += i - j;
            }
            t[i][m] = n as u8;
            m += 1;
        }
        i += 1;
    }
    t
}

/// The diagonal (`[0]`, rows and columns rising together) and the anti-diagonal (`[1]`)
/// through each square.
static DIAGONALS: [[u64; 2]; 64] = diagonals();

const fn diagonals() -> [[u64; 2]; 64] {
    let mut out = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = (sq / 8, sq % 8);
        let mut t = 0;
        while t < 64 {
            let (tr, tc) = (t / 8, t % 8);
            if tc + r == c + tr {
                out[sq][0] |= 1 << t;
            }
            if tr + tc == r + c {
                out[sq][1] |= 1 << t;
            }
            t += 1;
        }
        sq += 1;
    }
    out
}

/// How many discs `p` flips by playing on `sq` where `sq` is the board's only empty square
/// (the opponent holds every square `p` does not): each line's discs gathered into a byte
/// (the row by a shift, the column and the diagonals by a multiplication that stacks their
/// squares in the top byte, indexed by row and by column) and counted by `LINE_FLIPS`.
#[inline(always)]
pub fn last_flip_count(p: u64, sq: u32) -> u32 {
    let (r, c) = ((sq / 8) as usize, (sq % 8) as usize);
    let row = (p >> (8 * r)) as u8 as usize;
    // Bit 8k of the column to bit 56 + k: no two partial products meet, so nothing carries.
    let col = (((p >> c) & COL_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
    // A diagonal has one square a column: each lands in the top byte at its column.
    let [d, a] = DIAGONALS[sq as usize];
    let diag = ((p & d).wrapping_mul(COL_A) >> 56) as usize;
    let anti = ((p & a).wrapping_mul(COL_A) >> 56) as usize;
    u32::from(LINE_FLIPS[c][row])
        + u32::from(LINE_FLIPS[r][col])
        + u32::from(LINE_FLIPS[c][diag])
        + u32::from(LINE_FLIPS[c][anti])
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::board::Geo;
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

    /// On a board with one empty square, the counted flips are the flips, for either side.
    #[test]
    fn last_flip_counts_match_the_flips() {
        let mut rng = Rng::new(13);
        for _ in 0..20000 {
            let sq = rng.below(64) as u32;
            let density = rng.below(65);
            let p =
                (0..64).fold(0u64, |f, s| f | u64::from(rng.below(64) < density) << s) & !(1 << sq);
            let o = !p & !(1 << sq);
            assert_eq!(
                last_flip_count(p, sq),
                flips(p, o, sq).count_ones(),
                "{p:#x} at {sq}"
            );
            assert_eq!(
                last_flip_count(o, sq),
                flips(o, p, sq).count_ones(),
                "{o:#x} at {sq}"
            );
        }
    }

    /// The full lines by shifts are the lines whose every square is filled.
    #[test]
    fn full_lines_match_the_line_list() {
        let mut rng = Rng::new(12);
        for _ in 0..20000 {
            let density = rng.below(65);
            let filled = (0..64).fold(0u64, |f, sq| f | u64::from(rng.below(64) < density) << sq);
            let mut want = [0u64; 4];
            for (k, lines) in LINES.iter().enumerate() {
                for &l in lines {
                    if filled & l == l {
                        want[k] |= l;
                    }
                }
            }
            assert_eq!(full_lines(filled), want, "{filled:#x}");
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
}
