//! Othello in the learning pipeline (8x8): the packed position of the data files, the pattern
//! inputs (`patterns`), the final disc margin as the label, the exact solver's score as the
//! label from `EXACT_FROM` empty squares down; and the learned pattern weights the evaluation
//! uses (`PatternNet`).
//!
//! Packed position (17 bytes): the side to move's discs (u64, bit r * 8 + c), the other side's
//! (u64), then 1 if Black is to move, else 0.

use super::{Othello, patterns};
use crate::game::Outcome;
use crate::learn::network::{Network, QL};
use crate::learn::{Features, Learn};

/// The learned pattern weights, as the engine evaluates with them.
pub struct PatternNet {
    net: Network,
}

impl std::fmt::Debug for PatternNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PatternNet({} inputs)", self.net.inputs)
    }
}

impl PatternNet {
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternNet, String> {
        let net = Network::from_bytes(bytes)?;
        let l = patterns::layout();
        if net.game != "othello"
            || net.hidden != 0
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
        Ok(PatternNet { net })
    }

    pub fn load(path: &str) -> Result<&'static PatternNet, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("EvalFile '{path}': {e}"))?;
        let net = PatternNet::from_bytes(&bytes).map_err(|e| format!("EvalFile '{path}': {e}"))?;
        Ok(Box::leak(Box::new(net)))
    }

    /// The evaluation in hundredths of a disc, from the side to move (`me`).
    pub fn evaluate(&self, me: u64, opp: u64) -> i32 {
        let bucket = patterns::bucket((me | opp).count_ones());
        let w = &self.net.w1[bucket * self.net.inputs..(bucket + 1) * self.net.inputs];
        let mut sum = self.net.b2[bucket];
        patterns::for_each_feature(me, opp, |f| sum += w[f as usize] as i32);
        sum * 100 / QL
    }
}

/// The weights a new 8x8 board evaluates with: none until they are embedded.
pub fn default_net() -> Option<&'static PatternNet> {
    None
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
        (patterns::bucket((me | opp).count_ones()), 1.0)
    }
}
