//! The evaluation of an 8x8 `pattern-net` file (`tabula train --game othello --model
//! pattern-net --hidden H`): a psqt term (the linear patterns, one weight per input and phase
//! node) and `H` cells over the same pattern instances. A cell's accumulator is its bias plus
//! its weight for each instance's configuration (the side to move's view, one perspective);
//! the cells' output is `b2 + sum(screlu(acc) * w2)` of the position's phase bucket; both
//! terms tapered between the two phase nodes as the linear weights are (`patterns::phase`).
//!
//! Layout: one row per input, `stride` i16 apart, each row starting a cache line (the
//! storage is aligned by an offset into it, `start`): the input's `H` cell weights, then its
//! psqt weight at each of the `buckets` phase nodes, then padding. An instance's whole
//! contribution is one cache line (up to 23 cells), so an evaluation reads 54 lines, not the
//! 108 of a psqt table and a cell table apart.
//!
//! Units, as the trainer quantises (`learn::network`): the psqt term `QL` a disc, counted
//! half (the trainer's `0.5 * us`); the cells' weights and biases `QA` a unit, the output
//! weights `QB` a unit, the output bias `QA * QB` a unit; a unit is a disc of final margin. The
//! trainer's other perspective holds its bias alone (no inputs), so its half of the output is
//! a constant of each bucket, folded into the bias here. Every row is unfolded as the linear
//! tables are (`patterns::canonical`): both indices of a self-symmetric configuration carry its
//! weights.
//!
//! Accumulators sum in i16 lanes of a width fixed at compile time (8, 16, 32 or 64 cells) where
//! no sum can leave i16 (`narrow`: the bias plus the largest weight of every instance, which
//! the trainer's clip keeps far inside), so a row is one or two vector adds; otherwise in i32,
//! saturated into i16 after. Both give the same accumulators wherever the narrow one is used.

use super::patterns;
use crate::learn::network::{Network, QA, QB, QL, screlu_dot};

/// i16 weights in a cache line.
const LINE: usize = 32;

pub struct Cells {
    hidden: usize,
    buckets: usize,
    /// The rows (`stride` weights each, row `k` at `start + k * stride`).
    rows: Vec<i16>,
    start: usize,
    stride: usize,
    /// Per bucket, the side to move's `hidden` output weights.
    w2: Vec<i16>,
    /// The cells' biases.
    b1: Vec<i16>,
    /// Per bucket, the output bias with the other perspective's constant half, in `QA * QA *
    /// QB` a unit.
    bias: Vec<i64>,
    /// Whether every accumulator fits i16 at every step of its sum (`fits_i16`).
    narrow: bool,
}

/// Whether `bias` plus any `instances` rows of `w1` stays inside i16 for every cell: the
/// bias's size plus `instances` times the largest weight's.
fn fits_i16(w1: &[i16], b1: &[i16], instances: usize) -> bool {
    let largest = |v: &[i16]| v.iter().map(|&x| (x as i64).abs()).max().unwrap_or(0);
    largest(b1) + instances as i64 * largest(w1) <= i16::MAX as i64
}

impl Cells {
    /// The evaluation of `net`: a network over `patterns::INPUTS` inputs, `w1` input-major
    /// and `psqt` input-major (`buckets` weights an input), as the trainer writes them.
    pub fn new(net: &Network) -> Cells {
        let (h, nb) = (net.hidden, net.buckets);
        let stride = (h + nb).next_multiple_of(LINE);
        let inputs = patterns::layout().inputs;
        let canonical = patterns::canonical();
        let mut rows = vec![0i16; inputs * stride + LINE];
        // The first i16 of a cache line (an i16 is 2 bytes; the allocation is 2-aligned).
        let start = (rows.as_ptr() as usize).wrapping_neg() % (2 * LINE) / 2;
        for k in 0..inputs {
            let from = canonical.get(k).map_or(k, |&c| c as usize);
            let row = &mut rows[start + k * stride..start + (k + 1) * stride];
            for (j, w) in row[..h].iter_mut().enumerate() {
                *w = net.w1.get(from * h + j).copied().unwrap_or(0);
            }
            for (b, w) in row[h..h + nb].iter_mut().enumerate() {
                *w = net.psqt.get(from * nb + b).copied().unwrap_or(0);
            }
        }
        let b1: Vec<i16> = (0..h)
            .map(|j| net.b1.get(j).copied().unwrap_or(0))
            .collect();
        let mut w2 = Vec::with_capacity(nb * h);
        let mut bias = Vec::with_capacity(nb);
        for b in 0..nb {
            let row = |j: usize| net.w2.get(b * 2 * h + j).copied().unwrap_or(0);
            w2.extend((0..h).map(row));
            let them: Vec<i16> = (h..2 * h).map(row).collect();
            let constant = screlu_dot(&b1, &them) as i64;
            bias.push(net.b2.get(b).copied().unwrap_or(0) as i64 * QA as i64 + constant);
        }
        let w1 = net.w1.get(..h * inputs).unwrap_or(&net.w1);
        let narrow = fits_i16(w1, &b1, patterns::INSTANCES);
        Cells {
            hidden: h,
            buckets: nb,
            rows,
            start,
            stride,
            w2,
            b1,
            bias,
            narrow,
        }
    }

    /// The evaluation in hundredths of a disc of a position in bucket `b` with `lower` of
    /// `step` its share (the rest bucket `b + 1`'s), for these inputs (at most
    /// `patterns::INSTANCES`; one out of range counts nothing).
    #[inline]
    pub fn evaluate(&self, b: usize, lower: i32, step: i32, inputs: &[usize]) -> i32 {
        let h = self.hidden;
        let mut acc = [0i16; MAX_HIDDEN];
        let acc = &mut acc[..h];
        let narrow = self.narrow && inputs.len() <= patterns::INSTANCES;
        // The psqt weights read: bucket `b`'s and the next one's (or `b`'s again at the last).
        let (lo, hi) = (h + b, h + (b + 1).min(self.buckets.saturating_sub(1)));
        let psqt = match h {
            8 if narrow => self.accumulate_narrow::<8>(inputs, acc, lo, hi),
            16 if narrow => self.accumulate_narrow::<16>(inputs, acc, lo, hi),
            32 if narrow => self.accumulate_narrow::<32>(inputs, acc, lo, hi),
            64 if narrow => self.accumulate_narrow::<64>(inputs, acc, lo, hi),
            _ => self.accumulate_wide(inputs, acc, lo, hi),
        };
        let acc = &*acc;
        let out = |b: usize| {
            let w2 = self.w2.get(b * h..(b + 1) * h).unwrap_or(&[]);
            self.bias.get(b).copied().unwrap_or(0) + screlu_dot(acc, w2) as i64
        };
        // The psqt term counts half its weights.
        let (cells, psqt) = if lower == step {
            (out(b), psqt.0 * 100 / (QL * 2))
        } else {
            let mixed = psqt.0 as i64 * lower as i64 + psqt.1 as i64 * (step - lower) as i64;
            (
                (out(b) * lower as i64 + out(b + 1) * (step - lower) as i64) / step as i64,
                (mixed * 100 / (QL * step * 2) as i64) as i32,
            )
        };
        psqt + (cells * 100 / (QA as i64 * QA as i64 * QB as i64)) as i32
    }

    /// The row of input `k` (empty where `k` is out of range).
    #[inline]
    fn row(&self, k: usize) -> &[i16] {
        let at = self.start + k * self.stride;
        self.rows.get(at..at + self.stride).unwrap_or(&[])
    }

    /// The accumulators into `acc` in `H` i16 lanes (`H` the cell count; `narrow`: no sum of
    /// the bias and at most `patterns::INSTANCES` rows leaves i16, so the wrapping adds never
    /// wrap), and the sums of the psqt weights at places `lo` and `hi` of the rows.
    #[inline]
    fn accumulate_narrow<const H: usize>(
        &self,
        inputs: &[usize],
        acc: &mut [i16],
        lo: usize,
        hi: usize,
    ) -> (i32, i32) {
        let mut sum = [0i16; H];
        sum.iter_mut().zip(&self.b1).for_each(|(a, &b)| *a = b);
        let (mut p_lo, mut p_hi) = (0i32, 0i32);
        for &k in inputs {
            let row = self.row(k);
            let cells = row.get(..H).and_then(|c| <&[i16; H]>::try_from(c).ok());
            if let (Some(cells), Some(&l), Some(&h)) = (cells, row.get(lo), row.get(hi)) {
                for (a, &w) in sum.iter_mut().zip(cells) {
                    *a = a.wrapping_add(w);
                }
                p_lo += l as i32;
                p_hi += h as i32;
            }
        }
        acc.iter_mut().zip(sum).for_each(|(a, s)| *a = s);
        (p_lo, p_hi)
    }

    /// `accumulate_narrow` summed in i32 and saturated into i16 (the activation clamps to
    /// 0..QA anyway): any cell count, any weights.
    fn accumulate_wide(
        &self,
        inputs: &[usize],
        acc: &mut [i16],
        lo: usize,
        hi: usize,
    ) -> (i32, i32) {
        let h = self.hidden;
        let mut sum = [0i32; MAX_HIDDEN];
        let sum = &mut sum[..h];
        sum.iter_mut()
            .zip(&self.b1)
            .for_each(|(s, &b)| *s = b as i32);
        let (mut p_lo, mut p_hi) = (0i32, 0i32);
        for &k in inputs {
            let row = self.row(k);
            if let (Some(cells), Some(&l), Some(&h)) = (row.get(..h), row.get(lo), row.get(hi)) {
                sum.iter_mut().zip(cells).for_each(|(s, &w)| *s += w as i32);
                p_lo += l as i32;
                p_hi += h as i32;
            }
        }
        acc.iter_mut()
            .zip(sum.iter())
            .for_each(|(a, &s)| *a = s.clamp(i16::MIN as i32, i16::MAX as i32) as i16);
        (p_lo, p_hi)
    }
}

/// The most cells an 8x8 `pattern-net` may have (the accumulator lives on the stack).
pub const MAX_HIDDEN: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::rng::Rng;

    /// The i16 lanes give the i32 sums' accumulators, so the same output, for every width
    /// (and a count of cells without a fixed width), on random inputs of weights inside the
    /// trainer's clip; weights past it fall back to the wide sum. Rows start cache lines.
    #[test]
    fn narrow_and_wide_sums_agree() {
        let mut rng = Rng::new(86);
        for (hidden, limit) in [(8, 505usize), (16, 505), (12, 505), (16, 20000)] {
            let n = patterns::INPUTS;
            let nb = patterns::BUCKETS;
            let mut draw = |count: usize| -> Vec<i16> {
                (0..count)
                    .map(|_| (rng.below(2 * limit + 1) as i64 - limit as i64) as i16)
                    .collect()
            };
            let net = Network {
                game: "othello".into(),
                inputs: n,
                hidden,
                buckets: nb,
                w1: draw(n * hidden),
                b1: draw(hidden),
                w2: draw(nb * 2 * hidden),
                b2: vec![0; nb],
                psqt: draw(n * nb),
            };
            let cells = Cells::new(&net);
            assert_eq!(cells.narrow, limit == 505, "{hidden} {limit}");
            assert_eq!((cells.rows.as_ptr() as usize + 2 * cells.start) % 64, 0);
            let mut wide = Cells::new(&net);
            wide.narrow = false;
            for _ in 0..200 {
                let inputs: Vec<usize> = (0..patterns::INSTANCES).map(|_| rng.below(n)).collect();
                let b = rng.below(nb - 1);
                let lower = 1 + rng.below(patterns::PHASE_STEP as usize) as i32;
                assert_eq!(
                    cells.evaluate(b, lower, patterns::PHASE_STEP, &inputs),
                    wide.evaluate(b, lower, patterns::PHASE_STEP, &inputs),
                    "{hidden} cells"
                );
            }
        }
    }
}
