//! The learned pattern weights of an Othello evaluation (8x8's `PatternNet`, the big boards'
//! `BigNet`) as the engine reads them: one table of `inputs` weights per phase bucket
//! (unfolded: every index of a self-symmetric configuration filled), laid out in pairs so that
//! the two phases a position mixes come from one cache line. Entry `b * inputs + k` of `pairs`
//! holds input `k`'s weight in bucket `b` and in bucket `b + 1`; a position in the last bucket
//! alone reads the second half of the last table (a single bucket: the first half of its own).
//!
//! Scores: a bucket's weights summed with its bias in the network's units (`QL` a disc), the
//! two buckets mixed in integers, the result in hundredths of a disc.

use crate::learn::network::QL;

pub struct PhaseWeights {
    pairs: Vec<[i16; 2]>,
    inputs: usize,
    /// Per bucket, its bias.
    bias: Vec<i32>,
}

impl PhaseWeights {
    /// From `full`, one table of `inputs` weights per bucket in bucket order, and each
    /// bucket's bias.
    pub fn new(full: &[i16], inputs: usize, bias: &[i32]) -> PhaseWeights {
        let tables: Vec<&[i16]> = full.chunks(inputs.max(1)).collect();
        let pairs = if tables.len() == 1 {
            tables[0].iter().map(|&a| [a, 0]).collect()
        } else {
            tables
                .windows(2)
                .flat_map(|w| w[0].iter().zip(w[1]).map(|(&a, &b)| [a, b]))
                .collect()
        };
        PhaseWeights {
            pairs,
            inputs,
            bias: bias.to_vec(),
        }
    }

    /// Weights per bucket.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The evaluation, in hundredths of a disc, of a position in bucket `b` with `lower` of
    /// `step` its share of bucket `b` (the rest bucket `b + 1`'s) and these inputs (`idx`, each
    /// below `inputs`: one out of range counts nothing).
    #[inline]
    pub fn evaluate(
        &self,
        b: usize,
        lower: i32,
        step: i32,
        idx: impl Iterator<Item = usize>,
    ) -> i32 {
        let n = self.inputs;
        let bias = |b: usize| self.bias.get(b).copied().unwrap_or(0);
        if lower == step {
            // Bucket `b` alone.
            let (table, half) = if b == 0 || b + 1 < self.bias.len() {
                (b, 0)
            } else {
                (b - 1, 1)
            };
            let w = self.pairs.get(table * n..(table + 1) * n).unwrap_or(&[]);
            let mut sum = bias(b);
            for i in idx {
                sum += w.get(i).map_or(0, |v| v[half] as i32);
            }
            return sum * 100 / QL;
        }
        let w = self.pairs.get(b * n..(b + 1) * n).unwrap_or(&[]);
        let (mut sum, mut sum_up) = (bias(b), bias(b + 1));
        for i in idx {
            if let Some(v) = w.get(i) {
                sum += v[0] as i32;
                sum_up += v[1] as i32;
            }
        }
        let mixed = sum as i64 * lower as i64 + sum_up as i64 * (step - lower) as i64;
        (mixed * 100 / (QL * step) as i64) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each bucket alone and each mix of two neighbours read their buckets' weights and biases,
    /// with one bucket or three; an input out of range counts nothing.
    #[test]
    fn pairs_read_the_buckets_weights() {
        for buckets in [1usize, 3] {
            let inputs = 5;
            let full: Vec<i16> = (0..inputs * buckets)
                .map(|k| (k as i16 + 1) * 37 - 200)
                .collect();
            let bias: Vec<i32> = (0..buckets as i32).map(|b| 1000 * b - 700).collect();
            let w = PhaseWeights::new(&full, inputs, &bias);
            let idx = [0usize, 2, 4, 9];
            let sum = |b: usize| {
                bias[b]
                    + [0, 2, 4]
                        .iter()
                        .map(|&k| full[b * inputs + k] as i32)
                        .sum::<i32>()
            };
            for b in 0..buckets {
                assert_eq!(w.evaluate(b, 4, 4, idx.into_iter()), sum(b) * 100 / QL);
                if b + 1 < buckets {
                    let mixed = (sum(b) as i64 * 3 + sum(b + 1) as i64) * 100 / (QL as i64 * 4);
                    assert_eq!(w.evaluate(b, 3, 4, idx.into_iter()), mixed as i32);
                }
            }
        }
    }
}
