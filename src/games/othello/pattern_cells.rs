//! The cells of an 8x8 `pattern-net` evaluation (`tabula train --game othello --model
//! pattern-net --hidden H`): `H` cells over the same pattern instances as the linear
//! evaluation, beside it. A cell's accumulator is its bias plus its weight for each
//! instance's configuration (the side to move's view, one perspective); the cells' output is
//! `b2 + sum(screlu(acc) * w2)` of the position's phase bucket, tapered between the two phase
//! nodes as the linear weights are (`patterns::phase`).
//!
//! Units, as the trainer quantises (`learn::network`): weights and biases of the
//! accumulators `QA` a unit, the output weights `QB` a unit, the output bias `QA * QB` a unit;
//! a unit is a disc of final margin. The trainer's other perspective holds its bias alone
//! (no inputs), so its half of the output is a constant of each bucket, folded into the
//! bias here. Every input row is unfolded as the linear tables are (`patterns::unfold`):
//! both indices of a self-symmetric configuration carry its weights.

use super::patterns;
use crate::learn::network::{Network, QA, QB, screlu_dot};

pub struct Cells {
    hidden: usize,
    /// Input-major: the `hidden` weights of input `k` at `k * hidden`.
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// Per bucket, the side to move's `hidden` output weights.
    w2: Vec<i16>,
    /// Per bucket, the output bias with the other perspective's constant half, in `QA * QA *
    /// QB` a unit.
    bias: Vec<i64>,
}

impl Cells {
    /// The cells of `net` (a network over `patterns::INPUTS` inputs, `w1` input-major as the
    /// trainer writes it).
    pub fn new(net: &Network) -> Cells {
        let (h, n) = (net.hidden, net.inputs);
        let mut w1 = vec![0i16; n * h];
        let mut column = vec![0i16; n];
        for j in 0..h {
            for (k, c) in column.iter_mut().enumerate() {
                *c = net.w1.get(k * h + j).copied().unwrap_or(0);
            }
            for (k, v) in patterns::unfold(&column).into_iter().enumerate() {
                w1[k * h + j] = v;
            }
        }
        let b1: Vec<i16> = (0..h)
            .map(|j| net.b1.get(j).copied().unwrap_or(0))
            .collect();
        let mut w2 = Vec::with_capacity(net.buckets * h);
        let mut bias = Vec::with_capacity(net.buckets);
        for b in 0..net.buckets {
            let row = |j: usize| net.w2.get(b * 2 * h + j).copied().unwrap_or(0);
            w2.extend((0..h).map(row));
            let them: Vec<i16> = (h..2 * h).map(row).collect();
            let constant = screlu_dot(&b1, &them) as i64;
            bias.push(net.b2.get(b).copied().unwrap_or(0) as i64 * QA as i64 + constant);
        }
        Cells {
            hidden: h,
            w1,
            b1,
            w2,
            bias,
        }
    }

    /// The cells' output in `QA * QA * QB` a disc, in bucket `b` with `lower` of `step` its
    /// share (the rest bucket `b + 1`'s), for these inputs (each below the inputs' count).
    #[inline]
    pub fn evaluate(&self, b: usize, lower: i32, step: i32, inputs: &[usize]) -> i64 {
        let h = self.hidden;
        let mut sum = [0i32; MAX_HIDDEN];
        let sum = &mut sum[..h];
        sum.iter_mut()
            .zip(&self.b1)
            .for_each(|(s, &b)| *s = b as i32);
        for &k in inputs {
            if let Some(row) = self.w1.get(k * h..(k + 1) * h) {
                sum.iter_mut().zip(row).for_each(|(s, &w)| *s += w as i32);
            }
        }
        // Saturated into i16 (the activation clamps to 0..QA anyway).
        let mut acc = [0i16; MAX_HIDDEN];
        let acc = &mut acc[..h];
        acc.iter_mut()
            .zip(sum.iter())
            .for_each(|(a, &s)| *a = s.clamp(i16::MIN as i32, i16::MAX as i32) as i16);
        let acc = &*acc;
        let out = |b: usize| {
            let w2 = self.w2.get(b * h..(b + 1) * h).unwrap_or(&[]);
            self.bias.get(b).copied().unwrap_or(0) + screlu_dot(acc, w2) as i64
        };
        let lower_out = out(b);
        if lower == step {
            return lower_out;
        }
        (lower_out * lower as i64 + out(b + 1) * (step - lower) as i64) / step as i64
    }

    /// A count in `QA * QA * QB` a disc as hundredths of a disc.
    pub fn hundredths(v: i64) -> i32 {
        (v * 100 / (QA as i64 * QA as i64 * QB as i64)) as i32
    }
}

/// The most cells an 8x8 `pattern-net` may have (the accumulator lives on the stack).
pub const MAX_HIDDEN: usize = 64;
