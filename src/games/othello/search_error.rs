//! How far a shallow heuristic search of the learned patterns strays from a deeper one: the
//! standard deviation of (deep - shallow), in hundredths of a disc, by empty squares, as
//! `scripts/othello_probcut_calibrate.py` measured it. The midgame search's probable cuts
//! take it (`SearchHints::eval_error_sigma`); only the learned evaluations have one (the
//! hand-written one was never measured, and searches without cuts).
//!
//! 8x8 (`sigma`): 30 self-play games from random openings, a position every 6 plies, depths
//! 3-11 against about half as deep; 30-50 positions a band and pair, where the deviation
//! moved little with the depths.
//!
//! 10x10 to 16x16 (`sigma_big`, issue 48): each size's embedded weights, 30 self-play games
//! (`--size N --games 30 --every 10 --max-depth 10`, the first sixth of the plies random),
//! positions from 5/6 to 7/30 of the board empty in bands a tenth of the board wide; per band
//! the root mean square of (deep - shallow) over the pairs of depths 4-10 (the depths the
//! cuts run at), then made to grow toward the end (each band at least the one before it in
//! the game: the measured bands are 24 to 75 positions, and a few swings of 20 discs near
//! the end decide them), rounded up to tens. Bands outside the measured range take the
//! nearest measured one. Measured (before the rounding and growth), from the band of most
//! empties down to the fewest: 10x10 77 125 254 287 474 516 (60 games: the 30 of the others'
//! seed and 30 more with `--seed 12`, the first 30 alone 76 157 318 204 579 348, whose table
//! cut so little that 10x10 gained nothing); 12x12 47 59 69 131 182 242 351;
//! 14x14 38 45 48 61 70 240 187 (60 games, as 10x10's: the first 30 alone 36 46 46 62 70 318
//! 198, the 30 of `--seed 12` 39 43 50 60 70 119 175); 16x16 29 35 38 98 169 155 112. A big
//! board's evaluation moves little from one ply to the next while most of it is empty
//! (0.3-0.7 discs), far less than 8x8's.

/// The standard deviation at `empties` empties, for a `depth`-ply search against a
/// `shallow`-ply one.
pub fn sigma(empties: u32, depth: i32, shallow: i32) -> i32 {
    let _ = (depth, shallow);
    match empties {
        40.. => 200,
        30..=39 => 260,
        20..=29 => 350,
        _ => 380,
    }
}

/// Per board side (10, 12, 14, 16), the deviation by band: band `b` holds the positions of
/// `b * w` to `(b + 1) * w - 1` empties, `w` a tenth of the board's squares (rounded down).
const BIG: [[i32; 10]; 4] = [
    [520, 520, 520, 480, 290, 260, 130, 80, 80, 80],
    [360, 360, 360, 250, 190, 140, 70, 60, 50, 50],
    [240, 240, 240, 240, 70, 70, 50, 50, 40, 40],
    [170, 170, 170, 170, 170, 100, 40, 40, 30, 30],
];

/// The standard deviation on a big board of side `n` (10 to 16, even) at `empties` empties,
/// for its embedded weights; `None` for any other side.
pub fn sigma_big(n: u32, empties: u32) -> Option<i32> {
    if !(10..=16).contains(&n) || !n.is_multiple_of(2) {
        return None;
    }
    let band = (empties / (n * n / 10)).min(9) as usize;
    Some(BIG[(n as usize - 10) / 2][band])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_boards_have_a_deviation_that_grows_toward_the_end() {
        for n in [10u32, 12, 14, 16] {
            let mut last = 0;
            for e in (0..=n * n - 4).rev() {
                let s = sigma_big(n, e).unwrap_or(0);
                assert!(
                    s >= last && s > 0,
                    "{n}x{n} at {e} empties: {s} after {last}"
                );
                last = s;
            }
        }
        assert_eq!(sigma_big(8, 30), None);
        assert_eq!(sigma_big(11, 30), None);
        assert_eq!(sigma_big(18, 30), None);
    }
}
