//! The weight file `tabula train` writes and a game's evaluation reads: a quantised network
//! with perspective inputs, all little-endian.
//!
//! Layout: `TABULAN1` (8 bytes); the game's name (12 bytes, NUL-padded); inputs I, hidden H,
//! buckets B (three u32); then i16 arrays: `w1` (I x H, input-major: the H weights of input i
//! are contiguous), `b1` (H), `w2` (B x 2H: for each bucket the weights of the side to move's
//! half, then the other side's), and `b2` (B x i32).
//!
//! Quantisation and inference (the trainer's float network, exactly): each side's accumulator
//! is `b1 + sum of w1 rows of its active inputs` (scale QA), the activation is
//! `clamp(x, 0, QA)^2` (SCReLU), the output `(sum(act * w2) / QA + b2) * SCALE / (QA * QB)`
//! in the game's evaluation units. Floats: `w1, b1` x QA, `w2` x QB, `b2` x QA x QB.

pub const MAGIC: &[u8; 8] = b"TABULAN1";
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// Evaluation units per unit of the float network's output (the output is a win-probability
/// logit: sigmoid(output) is the expected score).
pub const SCALE: i32 = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub game: String,
    pub inputs: usize,
    pub hidden: usize,
    pub buckets: usize,
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    pub w2: Vec<i16>,
    pub b2: Vec<i32>,
}

impl Network {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        let mut name = [0u8; 12];
        let n = self.game.len().min(12);
        name[..n].copy_from_slice(&self.game.as_bytes()[..n]);
        out.extend_from_slice(&name);
        for v in [self.inputs, self.hidden, self.buckets] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.b2 {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(b: &[u8]) -> Result<Network, String> {
        if b.len() < 32 || &b[..8] != MAGIC {
            return Err("not a tabula network (no TABULAN1 header)".into());
        }
        let end = b[8..20].iter().position(|&c| c == 0).unwrap_or(12);
        let game = String::from_utf8_lossy(&b[8..8 + end]).into_owned();
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
        let (inputs, hidden, buckets) = (u32_at(20), u32_at(24), u32_at(28));
        if inputs == 0 || hidden == 0 || buckets == 0 || inputs > 1 << 20 || hidden > 1 << 14 {
            return Err(format!(
                "network shape {inputs}x{hidden}x{buckets} is not plausible"
            ));
        }
        let n16 = inputs * hidden + hidden + buckets * 2 * hidden;
        let need = 32 + 2 * n16 + 4 * buckets;
        if b.len() != need {
            return Err(format!(
                "network file of {} bytes; its shape {inputs}x{hidden}x{buckets} needs {need}",
                b.len()
            ));
        }
        let mut i16s = b[32..32 + 2 * n16]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| (&mut i16s).take(n).collect::<Vec<i16>>();
        let w1 = take(inputs * hidden);
        let b1 = take(hidden);
        let w2 = take(buckets * 2 * hidden);
        let b2 = b[32 + 2 * n16..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Network {
            game,
            inputs,
            hidden,
            buckets,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// The output for two activated accumulators (side to move first), in evaluation units.
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let h = self.hidden;
        let w = &self.w2[bucket * 2 * h..(bucket + 1) * 2 * h];
        let sum = screlu_dot(us, &w[..h]) + screlu_dot(them, &w[h..]);
        (sum / QA + self.b2[bucket]) * SCALE / (QA * QB)
    }
}

/// sum(clamp(a, 0, QA)^2 * w), computed as (v * w) * v so that each product fits an i32.
#[inline]
pub fn screlu_dot(acc: &[i16], w: &[i16]) -> i32 {
    acc.iter()
        .zip(w)
        .map(|(&a, &w)| {
            let v = (a as i32).clamp(0, QA);
            (v * w as i32) * v
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        let net = Network {
            game: "chess".into(),
            inputs: 3,
            hidden: 2,
            buckets: 1,
            w1: vec![1, -2, 3, -4, 5, -6],
            b1: vec![7, 8],
            w2: vec![9, 10, 11, 12],
            b2: vec![-13],
        };
        assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
        assert!(Network::from_bytes(&net.to_bytes()[..40]).is_err());
    }
}
