//! Othello on the big boards (10x10 to 16x16) in the learning pipeline: the packed position of
//! the data files, the pattern inputs (`patterns_big`), the final disc margin as the label,
//! the exact solver's score from `EXACT_FROM` empties down; and the learned weights an
//! evaluation of that size uses (`BigNet`, one weight file per size, embedded where trained).
//!
//! Packed position (`2 * W + 1` bytes, `W` the bytes of the bit set: 16 for 10x10, 32 from
//! 12x12): the side to move's discs (bit `r * n + c`, little-endian), the other side's, then a
//! byte holding 1 if Black is to move plus twice the board's side `n`, so that the inputs of
//! a packed position know its board.

use super::board::Geo;
use super::phase_weights::PhaseWeights;
use super::{Othello, patterns_big};
use crate::bits::{Bits, U256};
use crate::game::{Outcome, Solved};
use crate::learn::network::Network;
use crate::learn::{Features, Learn};
use std::sync::OnceLock;

/// The learned pattern weights of one big board size, as the engine evaluates with them.
pub struct BigNet {
    /// The weights unfolded (`patterns_big::unfold`: both indices of a self-symmetric
    /// configuration filled), as the evaluation reads it.
    weights: PhaseWeights,
    /// The board side the weights are for.
    pub n: u32,
}

impl std::fmt::Debug for BigNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BigNet({}x{})", self.n, self.n)
    }
}

impl BigNet {
    /// Weights for a board of side `n`; refused unless their shape is the big boards' layout.
    pub fn from_bytes(bytes: &[u8], n: u32) -> Result<BigNet, String> {
        let net = upgrade(Network::from_bytes(bytes)?, false);
        if patterns_big::layout(n).is_none()
            || net.game != "othello"
            || net.hidden != 0
            || net.inputs != patterns_big::INPUTS
            || net.buckets != patterns_big::BUCKETS
            || net.b2.len() != patterns_big::BUCKETS
            || net.w1.len() != patterns_big::INPUTS * patterns_big::BUCKETS
        {
            return Err(format!(
                "a {} model of shape {}x{}x{}; {n}x{n} Othello evaluates with {} pattern weights x {} phases",
                net.game,
                net.inputs,
                net.hidden,
                net.buckets,
                patterns_big::INPUTS,
                patterns_big::BUCKETS
            ));
        }
        let full: Vec<i16> = match patterns_big::layout(n) {
            Some(l) => net
                .w1
                .chunks(patterns_big::INPUTS)
                .flat_map(|w| patterns_big::unfold(w, l))
                .collect(),
            None => Vec::new(),
        };
        let weights = PhaseWeights::new(&full, patterns_big::INPUTS, &net.b2);
        Ok(BigNet { weights, n })
    }

    pub fn load(path: &str, n: u32) -> Result<&'static BigNet, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("EvalFile '{path}': {e}"))?;
        crate::interned::intern(&bytes, |b| BigNet::from_bytes(b, n))
            .map_err(|e| format!("EvalFile '{path}': {e}"))
    }

    /// The evaluation in hundredths of a disc, from the side to move.
    pub fn evaluate<B: Bits>(&self, p: &Othello<B>) -> i32 {
        self.evaluate_discs(&p.geo, p.me, p.opp)
    }

    /// `evaluate` of the position where `me` is to move against `opp` on the board `g`.
    pub fn evaluate_discs<B: Bits>(&self, g: &Geo<B>, me: B, opp: B) -> i32 {
        let (b, lower) = patterns_big::phase((me | opp).count(), g.all.count());
        let mut idx = [0u32; patterns_big::FEATURES];
        if !patterns_big::indices(g, me, opp, &mut idx) {
            return 0;
        }
        let inputs = idx.iter().map(|&i| i as usize);
        self.weights
            .evaluate(b, lower, patterns_big::PHASE_STEP, inputs)
    }
}

/// Weights of the big layout with the 32-wide joint mobility table (files made before it was
/// widened) in today's layout (`patterns_big::upgrade_bucket`): evaluating exactly as before,
/// or `by_ratio`, as `train --init` takes them; any other network unchanged.
pub fn upgrade(mut net: Network, by_ratio: bool) -> Network {
    if net.game == "othello"
        && net.hidden == 0
        && net.inputs == patterns_big::OLD_INPUTS
        && net.w1.len() == patterns_big::OLD_INPUTS * net.buckets
    {
        net.w1 = net
            .w1
            .chunks(patterns_big::OLD_INPUTS)
            .flat_map(|w| patterns_big::upgrade_bucket(w, by_ratio))
            .collect();
        net.inputs = patterns_big::INPUTS;
    }
    net
}

/// The sizes whose weights are embedded.
pub const EMBEDDED_SIZES: [u32; 4] = [10, 12, 14, 16];

/// The embedded weights of a board of side `n` (`weights/othello-<n>x<n>.bin`, made by the
/// commands in protocol/learning.md); `None` for a size without (8x8 has its own, `learn`).
pub fn default_net(n: u32) -> Option<&'static BigNet> {
    static EMBEDDED: [OnceLock<Option<BigNet>>; 4] = [const { OnceLock::new() }; 4];
    let bytes: &[u8] = match n {
        10 => include_bytes!("../../../weights/othello-10x10.bin"),
        12 => include_bytes!("../../../weights/othello-12x12.bin"),
        14 => include_bytes!("../../../weights/othello-14x14.bin"),
        16 => include_bytes!("../../../weights/othello-16x16.bin"),
        _ => return None,
    };
    EMBEDDED[(n as usize - 10) / 2]
        .get_or_init(|| BigNet::from_bytes(bytes, n).ok())
        .as_ref()
}

/// Bytes of a packed bit set of type `B`.
const fn width<B: Bits>() -> usize {
    B::BITS as usize / 8
}

fn pack_bits<B: Bits>(b: B, out: &mut [u8]) {
    out.fill(0);
    let mut x = b;
    while !x.is_zero() {
        let s = x.lowest() as usize;
        x = x.without_lowest();
        if let Some(byte) = out.get_mut(s / 8) {
            *byte |= 1 << (s % 8);
        }
    }
}

fn unpack_bits<B: Bits>(bytes: &[u8]) -> B {
    let mut b = B::zero();
    for (i, &byte) in bytes.iter().enumerate() {
        for j in 0..8 {
            if byte >> j & 1 == 1 {
                b |= B::one_at((i * 8 + j) as u32);
            }
        }
    }
    b
}

/// A packed position read back onto a board of side `n` (from the packed bytes when `n` is
/// 0: the side stored in the last byte).
fn unpack<B: Bits>(bytes: &[u8], n: u32) -> Result<Othello<B>, String> {
    let w = width::<B>();
    if bytes.len() < 2 * w + 1 {
        return Err(format!(
            "packed Othello position: {} bytes expected",
            2 * w + 1
        ));
    }
    let stored = (bytes[2 * w] >> 1) as u32;
    let n = if n == 0 { stored } else { n };
    if stored != n {
        return Err(format!(
            "packed Othello position of a {stored}x{stored} board read as {n}x{n}"
        ));
    }
    let mut p = Othello::<B>::new(n)?;
    let (me, opp) = (
        unpack_bits::<B>(&bytes[..w]),
        unpack_bits::<B>(&bytes[w..2 * w]),
    );
    if !(me & opp).is_zero() || !((me | opp) & !p.geo.all).is_zero() {
        return Err(
            "packed Othello position: a square holds two discs or lies off the board".into(),
        );
    }
    p.me = me;
    p.opp = opp;
    p.black_to_move = bytes[2 * w] & 1 == 1;
    Ok(p)
}

macro_rules! learn_big {
    ($b:ty) => {
        impl Learn for Othello<$b> {
            const PACKED: usize = 2 * width::<$b>() + 1;
            const ADJUDICATE: bool = false;
            const RANDOM_PLIES: u32 = 10;
            const OPENING_LIMIT: i32 = i32::MAX;
            const EXACT_FROM: u32 = 14;
            const MARGIN_UNIT: i32 = 100;

            fn dims(&self) -> (u16, u16) {
                (self.geo.n as u16, self.geo.n as u16)
            }

            fn pack(&self, out: &mut [u8]) {
                let w = width::<$b>();
                pack_bits(self.me, &mut out[..w]);
                pack_bits(self.opp, &mut out[w..2 * w]);
                out[2 * w] = u8::from(self.black_to_move) | (self.geo.n as u8) << 1;
            }

            fn unpack(&self, bytes: &[u8]) -> Result<Self, String> {
                let mut p = unpack::<$b>(bytes, self.geo.n)?;
                p.patterns = self.patterns;
                Ok(p)
            }

            /// Every position is kept: no move is "tactical" in Othello.
            fn keep(&self, _best: u16, _score: i32) -> bool {
                true
            }

            fn end_label(&self, _outcome: Outcome) -> i32 {
                self.final_margin()
            }

            fn empties(&self) -> u32 {
                Othello::empties(self)
            }

            fn solve_for_data(&self, abort: &dyn Fn() -> bool) -> Option<Solved<u16>> {
                self.solve_any(true, abort)
            }
        }

        impl Features<Othello<$b>> for BigPatternInputs {
            const MODEL: &'static str = "patterns";
            const INPUTS: usize = patterns_big::INPUTS;
            const LINEAR: bool = true;
            const BUCKETS: usize = patterns_big::BUCKETS;

            fn upgrade(net: Network) -> Network {
                upgrade(net, true)
            }

            fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>) {
                us.clear();
                them.clear();
                if let Ok(p) = unpack::<$b>(packed, 0) {
                    patterns_big::for_each_feature(&p, |f| us.push(f));
                }
            }

            fn bucket(packed: &[u8]) -> (usize, f32) {
                let w = width::<$b>();
                let n = (packed.get(2 * w).copied().unwrap_or(0) >> 1) as u32;
                let discs = packed[..(2 * w).min(packed.len())]
                    .iter()
                    .map(|b| b.count_ones())
                    .sum::<u32>();
                let (b, lower) = patterns_big::phase(discs, n * n);
                (b, lower as f32 / patterns_big::PHASE_STEP as f32)
            }
        }
    };
}

/// The big boards' pattern inputs (`patterns_big`), for `tabula train --game othello --size N`.
pub struct BigPatternInputs;

learn_big!(u128);
learn_big!(U256);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rules;
    use crate::learn::network::QL;

    /// Pack and unpack are inverse on every big size, and the trainer's bucket is the
    /// engine's phase.
    #[test]
    fn packed_positions_round_trip() {
        fn check<B: Bits>(n: u32)
        where
            Othello<B>: Learn,
            BigPatternInputs: Features<Othello<B>>,
        {
            let mut p = Othello::<B>::new(n).expect("a big board");
            let mut moves = Vec::new();
            for i in 0..25 {
                p.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                p.play(moves[(i * 5) % moves.len()]);
            }
            let mut buf = vec![0u8; <Othello<B> as Learn>::PACKED];
            p.pack(&mut buf);
            let q = p.unpack(&buf).expect("unpacks");
            assert_eq!(
                (q.me, q.opp, q.black_to_move),
                (p.me, p.opp, p.black_to_move)
            );
            let (b, share) = <BigPatternInputs as Features<Othello<B>>>::bucket(&buf);
            let (eb, lower) = patterns_big::phase((p.me | p.opp).count(), n * n);
            assert_eq!(b, eb);
            assert!((share - lower as f32 / patterns_big::PHASE_STEP as f32).abs() < 1e-6);
            // Read onto the wrong size: refused.
            let other = Othello::<B>::new(if n == 16 { 14 } else { n + 2 });
            if let Ok(o) = other {
                assert!(o.unpack(&buf).is_err());
            }
        }
        check::<u128>(10);
        for n in [12, 14, 16] {
            check::<U256>(n);
        }
    }

    /// A linear network of random weights (large enough to matter, small enough not to wrap).
    fn random_net(rng: &mut crate::learn::rng::Rng, inputs: usize, b2: Vec<i32>) -> Network {
        let buckets = patterns_big::BUCKETS;
        Network {
            game: "othello".into(),
            inputs,
            hidden: 0,
            buckets,
            w1: (0..inputs * buckets)
                .map(|_| rng.below(2001) as i16 - 1000)
                .collect(),
            b1: Vec::new(),
            w2: Vec::new(),
            b2,
            psqt: Vec::new(),
        }
    }

    /// Plays up to `plies` random moves on an `n`x`n` board and checks at each position that
    /// the engine's evaluation with `net` (integer phase mix) equals the trainer's model (the
    /// weights of the features, each read at `index(feature)` in `net`, mixed by the float
    /// share of `bucket`); `seen` gets each position's features.
    fn compare_with_the_model(
        n: u32,
        plies: usize,
        rng: &mut crate::learn::rng::Rng,
        net: &Network,
        index: impl Fn(u32) -> usize,
        mut seen: impl FnMut(&[u32]),
    ) {
        let big = BigNet::from_bytes(&net.to_bytes(), n).expect("a valid net");
        let mut p = Othello::<U256>::new(n).expect("a big board");
        let (mut moves, mut feats, mut buf) = (Vec::new(), Vec::new(), vec![0u8; 65]);
        for i in 0..plies {
            p.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            p.play(moves[rng.below(moves.len())]);
            p.pack(&mut buf);
            let (b, share) = <BigPatternInputs as Features<Othello<U256>>>::bucket(&buf);
            <BigPatternInputs as Features<Othello<U256>>>::features(
                &buf,
                &mut feats,
                &mut Vec::new(),
            );
            seen(&feats);
            let sum = |b: usize| {
                net.b2[b] as f64
                    + feats
                        .iter()
                        .map(|&f| net.w1[b * net.inputs + index(f)] as f64)
                        .sum::<f64>()
            };
            let mut model = share as f64 * sum(b);
            if share < 1.0 {
                model += (1.0 - share as f64) * sum(b + 1);
            }
            let expected = model * 100.0 / QL as f64;
            let got = big.evaluate(&p) as f64;
            assert!(
                (got - expected).abs() <= 1.0,
                "ply {i}: {got} against {expected}"
            );
        }
    }

    /// The engine's evaluation (integer phase mix) equals the trainer's model (the features'
    /// weights mixed by the float share of `bucket`), with random weights, on a 12x12 board.
    #[test]
    fn evaluation_equals_the_trained_model() {
        let mut rng = crate::learn::rng::Rng::new(11);
        let b2 = (0..patterns_big::BUCKETS as i32)
            .map(|b| 300 * b - 1000)
            .collect();
        let net = random_net(&mut rng, patterns_big::INPUTS, b2);
        assert!(BigNet::from_bytes(&net.to_bytes(), 8).is_err());
        compare_with_the_model(12, 140, &mut rng, &net, |f| f as usize, |_| {});
    }

    /// A file of the 32-wide joint mobility table (made before it was widened) loads and
    /// evaluates as it did: the trainer's sum over the old layout, the joint feature read at
    /// its clamped mobilities, on 16x16 positions where a side has 32 moves or more.
    #[test]
    fn a_file_of_the_narrow_joint_table_evaluates_as_before() {
        let mut rng = crate::learn::rng::Rng::new(12);
        let old = patterns_big::OLD_INPUTS;
        let net = random_net(&mut rng, old, vec![0; patterns_big::BUCKETS]);
        let joint_at = (patterns_big::INPUTS - patterns_big::JOINT * patterns_big::JOINT) as u32;
        let old_joint_at = (old - patterns_big::OLD_JOINT * patterns_big::OLD_JOINT) as u32;
        let (j, k) = (
            patterns_big::JOINT as u32,
            patterns_big::OLD_JOINT as u32 - 1,
        );
        // The old file's index of a feature of today's layout.
        let narrow = |f: u32| -> usize {
            if f < joint_at {
                return f as usize;
            }
            let (m, o) = ((f - joint_at) / j, (f - joint_at) % j);
            (old_joint_at + m.min(k) * (k + 1) + o.min(k)) as usize
        };
        let mut wide = 0;
        let count_wide = |feats: &[u32]| {
            let last = feats.last().copied().unwrap_or(joint_at);
            let (m, o) = ((last - joint_at) / j, (last - joint_at) % j);
            if m.max(o) > k {
                wide += 1;
            }
        };
        compare_with_the_model(16, 200, &mut rng, &net, narrow, count_wide);
        assert!(wide > 0, "no position with a mobility past the old table");
    }

    /// Every size with embedded weights loads them, and a new board of that size evaluates
    /// with them: the start is even (both sides see the same position), and the side that
    /// holds the four corners of an otherwise symmetric position is ahead.
    #[test]
    fn embedded_weights_load_and_value_corners() {
        fn check<B: Bits>(n: u32) {
            let Some(net) = default_net(n) else {
                return;
            };
            let p = Othello::<B>::new(n).expect("a big board");
            assert!(
                matches!(p.patterns, super::super::Patterns(None, Some(x)) if std::ptr::eq(x, net))
            );
            let mirrored = Othello {
                me: p.opp,
                opp: p.me,
                ..p.clone()
            };
            assert_eq!(net.evaluate(&p), net.evaluate(&mirrored));
            // A midgame position (half the board filled), its corners then given to one side.
            let mut q = p.clone();
            let mut moves = Vec::new();
            for i in 0..n * n / 2 {
                q.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                q.play(moves[(i as usize * 7) % moves.len()]);
            }
            let m = n - 1;
            let corners = B::one_at(0) | B::one_at(m) | B::one_at(m * n) | B::one_at(m * n + m);
            let with = Othello {
                me: q.me | corners,
                opp: q.opp & !corners,
                ..q.clone()
            };
            let against = Othello {
                me: q.me & !corners,
                opp: q.opp | corners,
                ..q.clone()
            };
            let (a, b) = (net.evaluate(&with), net.evaluate(&against));
            assert!(a > 300 && b < -300, "{n}x{n}: corners {a}, against {b}");
        }
        check::<u128>(10);
        // Every size whose weights are embedded (`default_net`) has valid ones.
        for n in EMBEDDED_SIZES {
            assert!(
                default_net(n).is_some(),
                "weights/othello-{n}x{n}.bin is invalid"
            );
        }
        for n in [12, 14, 16] {
            check::<U256>(n);
        }
    }
}
