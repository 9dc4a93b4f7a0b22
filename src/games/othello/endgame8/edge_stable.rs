//! Stable discs of the board's four edges, from a table of every edge (one line of eight
//! squares, each empty, ours or theirs: 3^8 = 6,561 entries, built once on first use).
//!
//! A disc on an edge can only be flipped along that edge (every other line through it ends
//! there), so whether it can ever be flipped is a question about the edge alone: an edge disc
//! is stable when it stays ours however the edge's empty squares are filled. The table answers
//! it by trying, from each edge, a disc of either colour on each empty square (flipping what it
//! brackets along the edge; a disc may go there without flipping anything on the edge, as a
//! move that flips elsewhere does): the stable discs are the ones still ours in every edge
//! this reaches. A sound under-estimate of the board's stable discs, and a larger one than the
//! growth from the corners alone (`bitboard::stable` starts from it).
//!
//! Lines: bit `i` of a line is its `i`-th square (a..h for a row, 1..8 for a column).

use std::sync::LazyLock;

const COL_A: u64 = 0x0101_0101_0101_0101;

/// Per line (`index`), the line's discs of the side to move that can never be flipped.
static TABLE: LazyLock<Box<[u8; 6561]>> = LazyLock::new(build);

/// Base-3 weights of the eight squares: a line's index is `TERNARY[ours] + 2 * TERNARY[theirs]`.
static TERNARY: [u16; 256] = ternary();

/// Column a's eight squares as the bits of a line: `SPREAD[line]` puts bit `i` on row `i`.
static SPREAD: [u64; 256] = spread();

const fn ternary() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut x = 0;
    while x < 256 {
        let (mut v, mut w, mut i) = (0u16, 1u16, 0);
        while i < 8 {
            if x >> i & 1 == 1 {
                v += w;
            }
            w *= 3;
            i += 1;
        }
        t[x] = v;
        x += 1;
    }
    t
}

const fn spread() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let mut i = 0;
        while i < 8 {
            if x >> i & 1 == 1 {
                t[x] |= 1 << (8 * i);
            }
            i += 1;
        }
        x += 1;
    }
    t
}

fn index(ours: u8, theirs: u8) -> usize {
    TERNARY[ours as usize] as usize + 2 * TERNARY[theirs as usize] as usize
}

/// The discs of `them` that a disc of `me` on `sq` brackets along the line.
fn line_flips(me: u8, them: u8, sq: u32) -> u8 {
    let mut flips = 0u8;
    for step in [1i32, -1] {
        let (mut run, mut at) = (0u8, sq as i32 + step);
        while (0..8).contains(&at) && them >> at & 1 == 1 {
            run |= 1 << at;
            at += step;
        }
        if (0..8).contains(&at) && me >> at & 1 == 1 {
            flips |= run;
        }
    }
    flips
}

/// Every line, those with fewer empty squares first (a line's answer rests on the lines one
/// disc fuller).
fn build() -> Box<[u8; 6561]> {
    let mut table = Box::new([0u8; 6561]);
    let mut lines: Vec<(u8, u8)> = (0..=255u8)
        .flat_map(|ours| {
            (0..=255u8)
                .filter(move |&theirs| ours & theirs == 0)
                .map(move |theirs| (ours, theirs))
        })
        .collect();
    lines.sort_by_key(|&(ours, theirs)| std::cmp::Reverse((ours | theirs).count_ones()));
    for (ours, theirs) in lines {
        let mut stable = ours;
        let mut empty = !(ours | theirs);
        while empty != 0 && stable != 0 {
            let sq = empty.trailing_zeros();
            empty &= empty - 1;
            let bit = 1u8 << sq;
            // Our disc there, then theirs.
            let f = line_flips(ours, theirs, sq);
            stable &= table[index(ours | bit | f, theirs & !f)];
            let f = line_flips(theirs, ours, sq);
            stable &= table[index(ours & !f, theirs | bit | f)];
        }
        table[index(ours, theirs)] = stable;
    }
    table
}

/// The discs of `p` on the board's four edges that can never be flipped (`o`: the opponent).
pub fn edge_stable(p: u64, o: u64) -> u64 {
    let t = &**TABLE;
    let row = |shift: u32| t[index((p >> shift) as u8, (o >> shift) as u8)] as u64;
    let col = |shift: u32| {
        let gather =
            |x: u64| ((x >> shift & COL_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
        SPREAD[t[index(gather(p), gather(o))] as usize] << shift
    };
    row(0) | row(56) << 56 | col(0) | col(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines written a..h: `x` ours, `o` theirs, `-` empty.
    fn line(text: &str) -> (u8, u8) {
        let (mut ours, mut theirs) = (0u8, 0u8);
        for (i, ch) in text.chars().enumerate() {
            match ch {
                'x' => ours |= 1 << i,
                'o' => theirs |= 1 << i,
                _ => {}
            }
        }
        (ours, theirs)
    }

    fn stable_of(text: &str) -> String {
        let (ours, theirs) = line(text);
        let s = TABLE[index(ours, theirs)];
        (0..8)
            .map(|i| if s >> i & 1 == 1 { 'S' } else { '.' })
            .collect()
    }

    /// Lines worked out by hand (what can flip each disc).
    #[test]
    fn edge_lines_worked_by_hand() {
        let table = [
            ("xxxxxxxx", "SSSSSSSS", "a full line of ours"),
            (
                "xoxoxoxo",
                "S.S.S.S.",
                "a full line: nothing can be played on it",
            ),
            ("xxx-----", "SSS.....", "a run from the corner"),
            (
                "-xxx----",
                "........",
                "no corner: o on a, then o on e flips the run",
            ),
            (
                "xxo-----",
                "SS......",
                "theirs beside our run: still ours from the corner",
            ),
            ("ox------", "........", "x on b: o on c flips it"),
            ("xox-----", "S.......", "o on d brackets c against b"),
            ("--------", "........", "an empty line"),
            (
                "xxxxxxx-",
                "SSSSSSS.",
                "every square but h: o on h brackets nothing",
            ),
            (
                "-xxxxxxx",
                ".SSSSSSS",
                "x from b to h: o on a brackets nothing",
            ),
            ("x-xo----", "S.......", "o on b brackets c against d"),
        ];
        for (text, want, what) in table {
            assert_eq!(stable_of(text), want, "{text}: {what}");
        }
    }

    /// The board's edges read the right squares: a full first column of ours is stable, and
    /// so are rows 1 and 8 and column h.
    #[test]
    fn every_edge_maps_to_its_squares() {
        for edge in [0xffu64, 0xff << 56, COL_A, COL_A << 7] {
            assert_eq!(edge_stable(edge, 0), edge);
            // The same edge with its last square taken away: the rest stays (a corner anchors).
            let first = edge & edge.wrapping_neg();
            let last = 1u64 << (63 - edge.leading_zeros());
            assert_eq!(edge_stable(edge & !last, last), edge & !last);
            assert_eq!(edge_stable(edge & !first, 0), edge & !first);
        }
    }
}
