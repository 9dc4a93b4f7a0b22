//! The trainer's float model: its weight layout in one flat vector (`Model`'s offsets), the
//! forward pass, the gradient of one example, and the conversions to and from the quantised
//! `Network`. Weights are floats in logits (of the win probability, or label units where the
//! label is a margin); `quantise` clips them to what i16 holds (see `network`).

use crate::learn::network::{Network, QA, QB};
use crate::learn::rng::Rng;

/// The float network.
#[derive(Clone)]
pub(super) struct Model {
    pub(super) inputs: usize,
    pub(super) hidden: usize,
    pub(super) buckets: usize,
    /// A perspective network with a psqt term (after `b2`, `inputs * buckets`).
    pub(super) psqt: bool,
    /// w1, b1, w2, b2, psqt in one vector (for Adam).
    pub(super) p: Vec<f32>,
}

impl Model {
    pub(super) fn linear(&self) -> bool {
        self.hidden == 0
    }
    /// The end of `w1` (a linear model's weights are bucket-major, `inputs` per bucket; it has
    /// no `b1` and no `w2`).
    pub(super) fn b1(&self) -> usize {
        self.inputs
            * if self.linear() {
                self.buckets
            } else {
                self.hidden
            }
    }
    pub(super) fn w2(&self) -> usize {
        self.b1() + self.hidden
    }
    pub(super) fn b2(&self) -> usize {
        self.w2() + self.buckets * 2 * self.hidden
    }
    pub(super) fn psqt_at(&self) -> usize {
        self.b2() + self.buckets
    }
    pub(super) fn len(&self) -> usize {
        self.psqt_at()
            + if self.psqt {
                self.inputs * self.buckets
            } else {
                0
            }
    }

    /// A network (`hidden > 0`) always has the psqt term, starting at zero.
    pub(super) fn new(inputs: usize, hidden: usize, buckets: usize, rng: &mut Rng) -> Model {
        let mut m = Model {
            inputs,
            hidden,
            buckets,
            psqt: hidden > 0,
            p: Vec::new(),
        };
        m.p = vec![0.0; m.len()];
        if m.linear() {
            return m;
        }
        let b1 = m.b1();
        for v in &mut m.p[..b1] {
            *v = input_weight(rng);
        }
        let s2 = (1.0 / hidden as f32).sqrt();
        let (w2, b2) = (m.w2(), m.b2());
        for v in &mut m.p[w2..b2] {
            *v = rng.normal() * s2;
        }
        m
    }

    /// `ql`: a linear model's quantisation (`network::linear_q`).
    pub(super) fn from_network(net: &Network, ql: i32) -> Model {
        let mut m = Model {
            inputs: net.inputs,
            hidden: net.hidden,
            buckets: net.buckets,
            psqt: net.hidden > 0,
            p: Vec::new(),
        };
        m.p = if m.linear() {
            net.w1
                .iter()
                .map(|&v| v as f32 / ql as f32)
                .chain(net.b2.iter().map(|&v| v as f32 / ql as f32))
                .collect()
        } else {
            net.w1
                .iter()
                .chain(&net.b1)
                .map(|&v| v as f32 / QA as f32)
                .chain(net.w2.iter().map(|&v| v as f32 / QB as f32))
                .chain(net.b2.iter().map(|&v| v as f32 / (QA * QB) as f32))
                .collect()
        };
        if m.psqt {
            // A file without the term (TABULAN1) starts it at zero.
            // In the linear model's units (`ql`: per logit, or per label unit of a margin).
            let n = m.inputs * m.buckets;
            m.p.extend((0..n).map(|i| net.psqt.get(i).map_or(0.0, |&v| v as f32 / ql as f32)));
        }
        m
    }

    /// The same network with `hidden` cells a side (more than it has): the new cells' input
    /// weights random as in `new`, their biases and output weights zero, so the output is
    /// unchanged until training moves them (a wider network that starts where this one is).
    pub(super) fn widen(&self, hidden: usize, rng: &mut Rng) -> Model {
        let h0 = self.hidden;
        assert!(
            !self.linear() && hidden > h0,
            "widen a network to more cells"
        );
        let mut m = Model {
            hidden,
            p: Vec::new(),
            ..self.clone()
        };
        m.p = Vec::with_capacity(m.len());
        for row in self.p[..self.b1()].chunks_exact(h0) {
            m.p.extend_from_slice(row);
            m.p.extend((h0..hidden).map(|_| input_weight(rng)));
        }
        m.p.extend_from_slice(&self.p[self.b1()..self.w2()]);
        m.p.extend(std::iter::repeat_n(0.0, hidden - h0));
        for half in self.p[self.w2()..self.b2()].chunks_exact(h0) {
            m.p.extend_from_slice(half);
            m.p.extend(std::iter::repeat_n(0.0, hidden - h0));
        }
        m.p.extend_from_slice(&self.p[self.b2()..]);
        debug_assert_eq!(m.p.len(), m.len());
        m
    }

    pub(super) fn quantise(&self, game: &str, ql: i32) -> Network {
        let q16 = |v: f32, s: i32| (v * s as f32).round().clamp(-32767.0, 32767.0) as i16;
        let p = &self.p;
        if self.linear() {
            return Network {
                game: game.to_string(),
                inputs: self.inputs,
                hidden: 0,
                buckets: self.buckets,
                w1: p[..self.b1()].iter().map(|&v| q16(v, ql)).collect(),
                b1: Vec::new(),
                w2: Vec::new(),
                b2: p[self.b2()..]
                    .iter()
                    .map(|&v| (v * ql as f32).round() as i32)
                    .collect(),
                psqt: Vec::new(),
            };
        }
        Network {
            game: game.to_string(),
            inputs: self.inputs,
            hidden: self.hidden,
            buckets: self.buckets,
            w1: p[..self.b1()].iter().map(|&v| q16(v, QA)).collect(),
            b1: p[self.b1()..self.w2()]
                .iter()
                .map(|&v| q16(v, QA))
                .collect(),
            w2: p[self.w2()..self.b2()]
                .iter()
                .map(|&v| q16(v, QB))
                .collect(),
            b2: p[self.b2()..self.psqt_at()]
                .iter()
                .map(|&v| (v * (QA * QB) as f32).round() as i32)
                .collect(),
            psqt: p[self.psqt_at()..].iter().map(|&v| q16(v, ql)).collect(),
        }
    }
}

/// A new network's first-layer weight (`Model::new`, and the new cells of `Model::widen`).
fn input_weight(rng: &mut Rng) -> f32 {
    let s1 = (1.0 / 32.0f32).sqrt();
    rng.normal() * s1 * 0.5
}

/// One training example, unpacked from a record.
#[derive(Default)]
pub(super) struct Example {
    pub(super) us: Vec<u32>,
    pub(super) them: Vec<u32>,
    pub(super) bucket: usize,
    /// The bucket's share of the output (a linear model's: the rest is bucket + 1's).
    pub(super) share: f32,
    pub(super) target: f32,
}

pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

pub(super) fn act(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// The forward pass: fills `acc` (both sides' accumulators) and returns the output logit.
pub(super) fn forward(m: &Model, ex: &Example, acc: &mut [f32]) -> f32 {
    if m.linear() {
        let sum = |b: usize| {
            let w = &m.p[b * m.inputs..(b + 1) * m.inputs];
            m.p[m.b2() + b] + ex.us.iter().map(|&f| w[f as usize]).sum::<f32>()
        };
        let mut out = ex.share * sum(ex.bucket);
        if ex.share < 1.0 {
            out += (1.0 - ex.share) * sum(ex.bucket + 1);
        }
        return out;
    }
    let h = m.hidden;
    let (au, at) = acc.split_at_mut(h);
    let b1 = &m.p[m.b1()..m.w2()];
    au.copy_from_slice(b1);
    at.copy_from_slice(b1);
    for &f in &ex.us {
        let row = &m.p[f as usize * h..(f as usize + 1) * h];
        au.iter_mut().zip(row).for_each(|(a, w)| *a += w);
    }
    for &f in &ex.them {
        let row = &m.p[f as usize * h..(f as usize + 1) * h];
        at.iter_mut().zip(row).for_each(|(a, w)| *a += w);
    }
    let output = |b: usize| {
        let w2 = &m.p[m.w2() + b * 2 * h..m.w2() + (b + 1) * 2 * h];
        let mut out = m.p[m.b2() + b];
        out += au
            .iter()
            .zip(&w2[..h])
            .map(|(&a, w)| act(a) * w)
            .sum::<f32>();
        out += at
            .iter()
            .zip(&w2[h..])
            .map(|(&a, w)| act(a) * w)
            .sum::<f32>();
        if m.psqt {
            let (ps, nb) = (m.psqt_at(), m.buckets);
            let sum = |fs: &[u32]| {
                fs.iter()
                    .map(|&f| m.p[ps + f as usize * nb + b])
                    .sum::<f32>()
            };
            out += 0.5 * (sum(&ex.us) - sum(&ex.them));
        }
        out
    };
    // Tapered as a linear model where the bucket's share is below 1 (Othello's phases).
    let mut out = output(ex.bucket);
    if ex.share < 1.0 {
        out = ex.share * out + (1.0 - ex.share) * output(ex.bucket + 1);
    }
    out
}

/// Forward (and, with `grad`, backward) pass of one example; returns the squared error (of
/// the margin where `margin`, else of the win probability).
pub(super) fn step(
    m: &Model,
    ex: &Example,
    acc: &mut [f32],
    grad: Option<(&mut [f32], f32)>,
    margin: bool,
) -> f32 {
    let out = forward(m, ex, acc);
    if margin {
        let err = out - ex.target;
        if let Some((g, scale)) = grad {
            descend(m, ex, acc, g, 2.0 * err * scale);
        }
        return err * err;
    }
    let pred = sigmoid(out);
    let err = pred - ex.target;
    if let Some((g, scale)) = grad {
        descend(m, ex, acc, g, 2.0 * err * pred * (1.0 - pred) * scale);
    }
    err * err
}

/// Adds to `g` the gradient of a loss whose derivative by the output is `d`; the forward pass
/// left a perspective network's accumulators in `acc`.
pub(super) fn descend(m: &Model, ex: &Example, acc: &mut [f32], g: &mut [f32], d: f32) {
    if m.linear() {
        for (b, share) in [(ex.bucket, ex.share), (ex.bucket + 1, 1.0 - ex.share)] {
            if share <= 0.0 {
                continue;
            }
            let d = d * share;
            g[m.b2() + b] += d;
            let base = b * m.inputs;
            for &f in &ex.us {
                g[base + f as usize] += d;
            }
        }
        return;
    }
    let h = m.hidden;
    // The output layer's buckets and shares (one bucket, or two tapered).
    let tapered = [(ex.bucket, ex.share), (ex.bucket + 1, 1.0 - ex.share)];
    let parts = if ex.share < 1.0 {
        &tapered[..]
    } else {
        &tapered[..1]
    };
    let (au, at) = acc.split_at_mut(h);
    for &(b, share) in parts {
        let d = if parts.len() == 1 { d } else { d * share };
        if m.psqt {
            let (ps, nb) = (m.psqt_at(), m.buckets);
            for &f in &ex.us {
                g[ps + f as usize * nb + b] += 0.5 * d;
            }
            for &f in &ex.them {
                g[ps + f as usize * nb + b] -= 0.5 * d;
            }
        }
        let (gw2, gb2) = (m.w2() + b * 2 * h, m.b2() + b);
        g[gb2] += d;
        for j in 0..h {
            g[gw2 + j] += d * act(au[j]);
            g[gw2 + h + j] += d * act(at[j]);
        }
    }
    {
        // d(out)/d(acc) = w2 * 2x inside (0, 1), summed over the parts; reuse the
        // accumulators for it.
        let dact = |x: f32| if x > 0.0 && x < 1.0 { 2.0 * x } else { 0.0 };
        for j in 0..h {
            let (mut su, mut st) = (0.0f32, 0.0f32);
            for &(b, share) in parts {
                let d = if parts.len() == 1 { d } else { d * share };
                su += d * m.p[m.w2() + b * 2 * h + j];
                st += d * m.p[m.w2() + b * 2 * h + h + j];
            }
            au[j] = su * dact(au[j]);
            at[j] = st * dact(at[j]);
        }
        let gb1 = m.b1();
        for j in 0..h {
            g[gb1 + j] += au[j] + at[j];
        }
        for &f in &ex.us {
            let row = &mut g[f as usize * h..(f as usize + 1) * h];
            row.iter_mut().zip(au.iter()).for_each(|(g, a)| *g += a);
        }
        for &f in &ex.them {
            let row = &mut g[f as usize * h..(f as usize + 1) * h];
            row.iter_mut().zip(at.iter()).for_each(|(g, a)| *g += a);
        }
    }
}
