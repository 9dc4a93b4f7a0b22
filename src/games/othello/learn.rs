//! Othello in the learning pipeline (8x8): the packed position of the data files, the pattern
//! inputs (`patterns`), the final disc margin as the label, the exact solver's score as the
//! label from `EXACT_FROM` empty squares down; and the learned pattern weights the evaluation
//! uses (`PatternNet`).
//!
//! Packed position (17 bytes): the side to move's discs (u64, bit r * 8 + c), the other side's
//! (u64), then 1 if Black is to move, else 0.

use super::pattern_cells::{Cells, MAX_HIDDEN};
use super::phase_weights::{self, PhaseWeights};
use super::{Othello, patterns};
use crate::game::{Outcome, Solved};
use crate::learn::network::Network;
use crate::learn::{Features, Learn};
use std::sync::OnceLock;

/// The learned pattern weights, as the engine evaluates with them.
pub enum PatternNet {
    /// A `patterns` file: the weights unfolded (`patterns::unfold`: both indices of a
    /// self-symmetric configuration filled), as the evaluation reads them.
    Linear(PhaseWeights),
    /// A `pattern-net` file (`PatternNetInputs`): its psqt term and cells.
    Cells(Cells),
}

impl std::fmt::Debug for PatternNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatternNet::Linear(w) => write!(f, "PatternNet({} inputs)", w.inputs()),
            PatternNet::Cells(_) => write!(f, "PatternNet(cells)"),
        }
    }
}

impl PatternNet {
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternNet, String> {
        let net = upgrade(Network::from_bytes(bytes)?);
        let l = patterns::layout();
        let cells_fit = net.hidden == 0
            || (net.hidden <= MAX_HIDDEN && net.psqt.len() == net.inputs * net.buckets);
        if net.game != "othello"
            || !cells_fit
            || net.inputs != l.inputs
            || net.buckets != patterns::BUCKETS
        {
            return Err(format!(
                "a {} model of shape {}x{}x{}; 8x8 Othello evaluates with {} pattern weights x {} phases",
                net.game,
                net.inputs,
                net.hidden,
                net.buckets,
                l.inputs,
                patterns::BUCKETS
            ));
        }
        if net.hidden > 0 {
            return Ok(PatternNet::Cells(Cells::new(&net)));
        }
        let full: Vec<i16> = net.w1.chunks(l.inputs).flat_map(patterns::unfold).collect();
        Ok(PatternNet::Linear(PhaseWeights::new(
            &full, l.inputs, &net.b2,
        )))
    }

    pub fn load(path: &str) -> Result<&'static PatternNet, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("EvalFile '{path}': {e}"))?;
        crate::interned::intern(&bytes, PatternNet::from_bytes)
            .map_err(|e| format!("EvalFile '{path}': {e}"))
    }

    /// The evaluation in hundredths of a disc, from the side to move (`me`).
    pub fn evaluate(&self, me: u64, opp: u64) -> i32 {
        self.evaluate_local((me | opp).count_ones(), &patterns::local_indices(me, opp))
    }

    /// `evaluate` of the position with `discs` discs and these pattern indices (for the side
    /// to move: `patterns::local_indices`, or `patterns::after` a move).
    #[inline]
    pub fn evaluate_local(&self, discs: u32, idx: &patterns::Local) -> i32 {
        let (b, lower) = patterns::phase(discs);
        let offsets = &patterns::layout().offsets;
        let inputs = idx
            .iter()
            .zip(offsets)
            .map(|(&i, &off)| (off + i as u32) as usize);
        match self {
            PatternNet::Linear(weights) => weights.evaluate(b, lower, patterns::PHASE_STEP, inputs),
            PatternNet::Cells(cells) => {
                let mut at = [0usize; patterns::INSTANCES];
                at.iter_mut().zip(inputs).for_each(|(a, i)| *a = i);
                cells.evaluate(b, lower, patterns::PHASE_STEP, &at)
            }
        }
    }
}

/// The weights a new 8x8 board evaluates with: the embedded ones (`weights/othello-patterns.bin`,
/// made by the commands in protocol/learning.md).
pub fn default_net() -> Option<&'static PatternNet> {
    static EMBEDDED: OnceLock<Option<PatternNet>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| {
            PatternNet::from_bytes(include_bytes!("../../../weights/othello-patterns.bin")).ok()
        })
        .as_ref()
}

/// A weight file in this build's layout, as the engine loads it and `train --init` starts from
/// it: a file of the eleven shapes widened (`patterns::widen_inputs`), one of another count of
/// phase nodes (a build of another `patterns::PHASE_STEP`) sampled at this build's nodes.
fn upgrade(net: Network) -> Network {
    phase_weights::resample_phases(patterns::widen_inputs(net), patterns::BUCKETS)
}

fn words(packed: &[u8]) -> (u64, u64) {
    let word = |i: usize| u64::from_le_bytes(packed[i..i + 8].try_into().unwrap_or([0; 8]));
    (word(0), word(8))
}

impl Learn for Othello<u64> {
    const PACKED: usize = 17;
    const ADJUDICATE: bool = false;
    const RANDOM_PLIES: u32 = 8;
    const OPENING_LIMIT: i32 = i32::MAX;
    const EXACT_FROM: u32 = 18;
    const MARGIN_UNIT: i32 = 100;

    fn dims(&self) -> (u16, u16) {
        (self.geo.n as u16, self.geo.n as u16)
    }

    fn pack(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.me.to_le_bytes());
        out[8..16].copy_from_slice(&self.opp.to_le_bytes());
        out[16] = u8::from(self.black_to_move);
    }

    fn unpack(&self, bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < 17 || self.geo.n != 8 {
            return Err("packed Othello position: 17 bytes of an 8x8 board expected".into());
        }
        let (me, opp) = words(bytes);
        if me & opp != 0 {
            return Err("packed Othello position: a square holds two discs".into());
        }
        Ok(Othello {
            me,
            opp,
            black_to_move: bytes[16] & 1 == 1,
            ..self.clone()
        })
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

/// The pattern evaluation's inputs (`patterns`), for `tabula train --game othello`.
pub struct PatternInputs;

impl Features<Othello<u64>> for PatternInputs {
    const MODEL: &'static str = "patterns";
    const INPUTS: usize = patterns::INPUTS;
    const LINEAR: bool = true;
    const BUCKETS: usize = patterns::BUCKETS;

    fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>) {
        let (me, opp) = words(packed);
        patterns::features(me, opp, us);
        them.clear();
    }

    fn bucket(packed: &[u8]) -> (usize, f32) {
        let (me, opp) = words(packed);
        let (b, lower) = patterns::phase((me | opp).count_ones());
        (b, lower as f32 / patterns::PHASE_STEP as f32)
    }

    fn upgrade(net: Network) -> Network {
        upgrade(net)
    }
}

/// The pattern inputs under a small network (`tabula train --game othello --model pattern-net
/// --hidden H`): the linear pattern evaluation as the network's psqt term, and `H` cells over
/// the same active patterns (one perspective: the side to move's; the other side's
/// accumulator holds its bias alone), the output layer and the psqt term tapered between the
/// two phase nodes as the linear model is. A linear pattern file (`--init`) starts it where
/// that file evaluates: its weights, doubled, as the psqt term (which counts half the side to
/// move's sum), one cell with nothing in or out, widened to `H` (`train`).
pub struct PatternNetInputs;

impl Features<Othello<u64>> for PatternNetInputs {
    const MODEL: &'static str = "pattern-net";
    const INPUTS: usize = patterns::INPUTS;
    const LINEAR: bool = false;
    const BUCKETS: usize = patterns::BUCKETS;

    fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>) {
        PatternInputs::features(packed, us, them);
    }

    fn bucket(packed: &[u8]) -> (usize, f32) {
        PatternInputs::bucket(packed)
    }

    fn upgrade(net: Network) -> Network {
        let net = upgrade(net);
        if net.game != "othello" || net.hidden != 0 || net.inputs != patterns::INPUTS {
            return net;
        }
        use crate::learn::network::{QA, QB, QL};
        let (n, nb) = (net.inputs, net.buckets);
        let mut psqt = vec![0i16; n * nb];
        for b in 0..nb {
            for f in 0..n {
                let w = net.w1.get(b * n + f).copied().unwrap_or(0) as i32 * 2;
                psqt[f * nb + b] = w.clamp(-32767, 32767) as i16;
            }
        }
        let b2 = net
            .b2
            .iter()
            .map(|&v| (v as i64 * (QA * QB) as i64 / QL as i64) as i32)
            .collect();
        Network {
            hidden: 1,
            w1: vec![0; n],
            b1: vec![0],
            w2: vec![0; 2 * nb],
            b2,
            psqt,
            ..net
        }
    }
}

/// A random 8x8 position for tests: each square empty, the mover's or the opponent's, at a
/// random fill (full boards included: the last phase alone).
#[cfg(test)]
pub(crate) fn random_board(rng: &mut crate::learn::rng::Rng) -> (u64, u64) {
    let (mut me, mut opp) = (0u64, 0u64);
    let fill = rng.below(65) as u64;
    for sq in 0..64 {
        if (rng.below(64) as u64) < fill {
            if rng.below(2) == 0 {
                me |= 1 << sq;
            } else {
                opp |= 1 << sq;
            }
        }
    }
    (me, opp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::network::QL;
    use crate::learn::rng::Rng;

    /// The engine's evaluation (first square order per instance, unfolded tables, two phases
    /// mixed in integers) equals the trainer's model: the canonical features' weights, mixed
    /// by the float share of `PatternInputs::bucket`.
    #[test]
    fn unfolded_evaluation_equals_the_trained_model() {
        let l = patterns::layout();
        let mut rng = Rng::new(7);
        let w1: Vec<i16> = (0..l.inputs * patterns::BUCKETS)
            .map(|_| rng.below(2001) as i16 - 1000)
            .collect();
        let net = Network {
            game: "othello".into(),
            inputs: l.inputs,
            hidden: 0,
            buckets: patterns::BUCKETS,
            w1: w1.clone(),
            b1: Vec::new(),
            w2: Vec::new(),
            b2: (0..patterns::BUCKETS as i32)
                .map(|b| 300 * b - 1000)
                .collect(),
            psqt: Vec::new(),
        };
        let pn = PatternNet::from_bytes(&net.to_bytes()).expect("a valid pattern net");
        let mut feats = Vec::new();
        for _ in 0..2000 {
            let (me, opp) = random_board(&mut rng);
            let mut packed = [0u8; 17];
            packed[..8].copy_from_slice(&me.to_le_bytes());
            packed[8..16].copy_from_slice(&opp.to_le_bytes());
            let (b, share) = PatternInputs::bucket(&packed);
            PatternInputs::features(&packed, &mut feats, &mut Vec::new());
            let sum = |b: usize| {
                net.b2[b] as f64
                    + feats
                        .iter()
                        .map(|&f| w1[b * l.inputs + f as usize] as f64)
                        .sum::<f64>()
            };
            let mut model = share as f64 * sum(b);
            if share < 1.0 {
                model += (1.0 - share as f64) * sum(b + 1);
            }
            let expected = model * 100.0 / QL as f64;
            let got = pn.evaluate(me, opp) as f64;
            assert!((got - expected).abs() <= 1.0, "{got} against {expected}");
        }
    }

    /// The embedded weights load, and a new 8x8 board evaluates with them.
    #[test]
    fn embedded_weights_load() {
        let net = default_net().expect("weights/othello-patterns.bin is a valid pattern file");
        let PatternNet::Linear(weights) = net else {
            panic!("the embedded weights are linear");
        };
        assert_eq!(weights.inputs(), patterns::layout().inputs);
        let start = 0x0000_0008_1000_0000u64;
        let other = 0x0000_0010_0800_0000u64;
        // Symmetric start: both sides see the same position up to colours.
        assert_eq!(net.evaluate(start, other), net.evaluate(other, start));
    }
}
