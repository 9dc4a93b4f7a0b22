//! The learned pattern weights of an Othello evaluation (8x8's `PatternNet`, the big boards'
//! `BigNet`) as the engine reads them: one table of `inputs` weights per phase bucket
//! (unfolded: every index of a self-symmetric configuration filled), laid out in pairs so that
//! the two phases a position mixes come from one cache line. Entry `b * inputs + k` of `pairs`
//! holds input `k`'s weight in bucket `b` and in bucket `b + 1`; a position in the last bucket
//! alone reads the second half of the last table (a single bucket: the first half of its own).
//!
//! Scores: a bucket's weights summed with its bias in the network's units (`QL` a disc), the
//! two buckets mixed in integers, the result in hundredths of a disc.

use crate::learn::network::{Network, QL};

/// `net` (a linear model: `w1` bucket-major, `b2` one bias a bucket) with its phase nodes
/// resampled to `to` nodes over the same span (nodes evenly spaced from the first phase to the
/// last, as `patterns::phase` places them): each new node takes the old piecewise-linear
/// function's value where it lies, so where every old node is also a new one (9 to 25) the
/// evaluation is the old one up to rounding. A model with `to` nodes, no nodes or another
/// shape is returned as it is.
pub fn resample_phases(net: Network, to: usize) -> Network {
    let from = net.buckets;
    if from == to
        || from < 2
        || to < 2
        || net.hidden != 0
        || net.w1.len() != from.saturating_mul(net.inputs)
    {
        return net;
    }
    let n = net.inputs;
    // New node j lies at old position j * (from - 1) / (to - 1): between old nodes a and a + 1,
    // `num` of `den` of the way.
    let den = (to - 1) as i64;
    let at = |j: usize| {
        let x = j as i64 * (from - 1) as i64;
        let a = (x / den) as usize;
        (a.min(from - 2), x - a.min(from - 2) as i64 * den)
    };
    let mix = |lo: i64, hi: i64, num: i64| (lo * (den - num) + hi * num + den / 2).div_euclid(den);
    let mut w1 = Vec::with_capacity(to * n);
    let mut b2 = Vec::with_capacity(to);
    for j in 0..to {
        let (a, num) = at(j);
        let (lo, hi) = (
            &net.w1[a * n..(a + 1) * n],
            &net.w1[(a + 1) * n..(a + 2) * n],
        );
        w1.extend(lo.iter().zip(hi).map(|(&l, &h)| {
            mix(l as i64, h as i64, num).clamp(i16::MIN as i64, i16::MAX as i64) as i16
        }));
        let (l, h) = (net.b2.get(a).copied(), net.b2.get(a + 1).copied());
        b2.push(mix(l.unwrap_or(0) as i64, h.unwrap_or(0) as i64, num) as i32);
    }
    Network {
        buckets: to,
        w1,
        b2,
        ..net
    }
}

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

    /// Nine nodes resampled to 25 keep the nine (every third new node) and put the others on
    /// the lines between them; to the same count, nothing changes.
    #[test]
    fn resampled_phases_keep_the_old_nodes() {
        let inputs = 3;
        let net = Network {
            game: "othello".into(),
            inputs,
            hidden: 0,
            buckets: 9,
            w1: (0..27).map(|k| (k * k) as i16 - 300).collect(),
            b1: Vec::new(),
            w2: Vec::new(),
            b2: (0..9).map(|b| b * 90 - 400).collect(),
            psqt: Vec::new(),
        };
        let same = resample_phases(net.clone(), 9);
        assert_eq!(same, net);
        let r = resample_phases(net.clone(), 25);
        assert_eq!((r.buckets, r.w1.len(), r.b2.len()), (25, 75, 25));
        for b in 0..9 {
            assert_eq!(
                r.w1[3 * b * inputs..(3 * b + 1) * inputs],
                net.w1[b * inputs..(b + 1) * inputs]
            );
            assert_eq!(r.b2[3 * b], net.b2[b]);
        }
        // A third of the way from node 0 to node 1, and two thirds.
        let (lo, hi) = (net.w1[1] as i64, net.w1[inputs + 1] as i64);
        assert_eq!(r.w1[inputs + 1] as i64, (2 * lo + hi + 1).div_euclid(3));
        assert_eq!(r.w1[2 * inputs + 1] as i64, (lo + 2 * hi + 1).div_euclid(3));
        assert_eq!(r.b2[1], (2 * net.b2[0] + net.b2[1] + 1).div_euclid(3));
    }

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
