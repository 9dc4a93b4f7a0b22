//! The weight file `tabula train` writes and a game's evaluation reads: a quantised network
//! with perspective inputs, all little-endian.
//!
//! Layout: `TABULAN1` (8 bytes); the game's name (12 bytes, NUL-padded); inputs I, hidden H,
//! buckets B (three u32); then i16 arrays: `w1` (I x H, input-major: the H weights of input i
//! are contiguous), `b1` (H), `w2` (B x 2H: for each bucket the weights of the side to move's
//! half, then the other side's), and `b2` (B x i32).
//!
//! `TABULAN2` is the same followed by `psqt` (I x B i16, input-major: the B weights of input i
//! are contiguous), a linear term beside the network (Stockfish's PSQT outputs): each side sums
//! the psqt weights of its active inputs for the position's bucket, and the output gains
//! `(sum of the side to move - sum of the other) * SCALE / (2 QLOGIT)`. It learns material and
//! placement straight away, which a network fed little data learns slowly through its hidden
//! layer. A `TABULAN1` file has no psqt term (all zero).
//!
//! `TABULAN3` (what tabula writes since weight files carry a check): `TABULAN3`, the name, I, H,
//! B as above, a u32 of flags (bit 0: a psqt term follows), the arrays as in `TABULAN2` (psqt
//! only where the flag is set), then the CRC-32 of every byte before it (u32, `checksum`). A
//! file whose checksum fails is refused, naming the file (callers add the path). `TABULAN1` and
//! `TABULAN2` files still load, unchecked beyond their exact size.
//!
//! A linear model (hidden H = 0: Othello's patterns) has no `b1` and no `w2`: `w1` is
//! B x I (bucket-major) and the output is `(b2 + sum of the bucket's w1 over the active
//! inputs) / QL` label units (discs), or, where the label is a result (chess), `(...) * SCALE /
//! QLOGIT` evaluation units; a tapered model mixes two buckets' sums (see `learn::Features`).
//!
//! Quantisation and inference of a perspective network (the trainer's float network, exactly): each side's accumulator
//! is `b1 + sum of w1 rows of its active inputs` (scale QA), the activation is
//! `clamp(x, 0, QA)^2` (SCReLU), the output `(sum(act * w2) / QA + b2) * SCALE / (QA * QB)`
//! in the game's evaluation units. Floats: `w1, b1` x QA, `w2` x QB, `b2` x QA x QB.

pub const MAGIC: &[u8; 8] = b"TABULAN1";
/// A perspective network with its psqt term.
pub const MAGIC_PSQT: &[u8; 8] = b"TABULAN2";
/// Either of the above with a flags word and a CRC-32 (what `to_bytes` writes).
pub const MAGIC_CHECKED: &[u8; 8] = b"TABULAN3";
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// Evaluation units per unit of the float network's output (the output is a win-probability
/// logit: sigmoid(output) is the expected score).
pub const SCALE: i32 = 400;
/// A margin model's linear weights per label unit (Othello: per disc).
pub const QL: i32 = 128;
/// A result model's linear weights per logit unit (chess: 4096 per 400 centipawns, about
/// a tenth of a centipawn a step, up to 8 logits a weight).
pub const QLOGIT: i32 = 4096;

/// The quantisation of a linear model's weights: per label unit where the label is a margin,
/// else per logit unit.
pub fn linear_q(margin: bool) -> i32 {
    if margin { QL } else { QLOGIT }
}

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
    /// The linear term of a perspective network (`inputs * buckets`, at `QLOGIT` per logit),
    /// empty where it has none.
    pub psqt: Vec<i16>,
}

impl Network {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC_CHECKED);
        let mut name = [0u8; 12];
        let n = self.game.len().min(12);
        name[..n].copy_from_slice(&self.game.as_bytes()[..n]);
        out.extend_from_slice(&name);
        let flags = u32::from(!self.psqt.is_empty());
        for v in [self.inputs, self.hidden, self.buckets] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&flags.to_le_bytes());
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.b2 {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.psqt {
            out.extend_from_slice(&v.to_le_bytes());
        }
        super::checksum::seal(&mut out);
        out
    }

    /// A weight file's network; an error says what is wrong (the caller names the file).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let magic = bytes.get(..8);
        let (b, with_psqt, at) = if magic == Some(MAGIC_CHECKED) {
            let b = super::checksum::unseal(bytes)?;
            if b.len() < 36 {
                return Err("a TABULAN3 header cut short".into());
            }
            let flags = u32::from_le_bytes([b[32], b[33], b[34], b[35]]);
            (b, flags & 1 != 0, 36)
        } else if bytes.len() >= 32 && (magic == Some(MAGIC) || magic == Some(MAGIC_PSQT)) {
            (bytes, magic == Some(MAGIC_PSQT), 32)
        } else {
            return Err("not a tabula network (no TABULAN1, 2 or 3 header)".into());
        };
        let end = b[8..20].iter().position(|&c| c == 0).unwrap_or(12);
        let game = String::from_utf8_lossy(&b[8..8 + end]).into_owned();
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
        let (inputs, hidden, buckets) = (u32_at(20), u32_at(24), u32_at(28));
        if inputs == 0 || buckets == 0 || buckets > 64 || inputs > 1 << 20 || hidden > 1 << 14 {
            return Err(format!(
                "network shape {inputs}x{hidden}x{buckets} is not plausible"
            ));
        }
        let n16 = if hidden == 0 {
            inputs * buckets
        } else {
            inputs * hidden + hidden + buckets * 2 * hidden
        };
        if with_psqt && hidden == 0 {
            return Err("a linear model with a psqt term".into());
        }
        let n_psqt = if with_psqt { inputs * buckets } else { 0 };
        let need = at + 2 * n16 + 4 * buckets + 2 * n_psqt;
        if b.len() != need {
            return Err(format!(
                "network file of {} bytes; its shape {inputs}x{hidden}x{buckets} needs {need}",
                b.len()
            ));
        }
        let mut i16s = b[at..at + 2 * n16]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| (&mut i16s).take(n).collect::<Vec<i16>>();
        let w1 = take(if hidden == 0 {
            inputs * buckets
        } else {
            inputs * hidden
        });
        let b1 = take(hidden);
        let w2 = take(buckets * 2 * hidden);
        let psqt_at = at + 2 * n16 + 4 * buckets;
        let b2 = b[at + 2 * n16..psqt_at]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let psqt = b[psqt_at..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
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
            psqt,
        })
    }

    /// The output for two activated accumulators (side to move first), in evaluation units.
    #[inline(always)]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let h = self.hidden;
        let w = &self.w2[bucket * 2 * h..(bucket + 1) * 2 * h];
        let sum = screlu_dot(us, &w[..h]) + screlu_dot(them, &w[h..]);
        (sum / QA + self.b2[bucket]) * SCALE / (QA * QB)
    }

    /// The psqt term's share of the output, in evaluation units, from the two sides' sums for
    /// the position's bucket (side to move first).
    #[inline(always)]
    pub fn psqt_output(us: i32, them: i32) -> i32 {
        (us - them) * SCALE / (2 * QLOGIT)
    }
}

/// sum(clamp(a, 0, QA)^2 * w), computed as (v * w) * v: v * w fits an i16 (the trainer
/// keeps |w| <= 1.98 * QB < 128), and i16 x i16 pairs summed into i32 is the one multiply
/// SSE2 has (pmaddwd), which the compiler uses here.
#[inline(always)]
pub fn screlu_dot(acc: &[i16], w: &[i16]) -> i32 {
    acc.iter()
        .zip(w)
        .map(|(&a, &w)| {
            let v = a.clamp(0, QA as i16);
            v.wrapping_mul(w) as i32 * v as i32
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
            psqt: Vec::new(),
        };
        assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
        assert!(Network::from_bytes(&net.to_bytes()[..40]).is_err());
        let with = Network {
            psqt: vec![14, -15, 16],
            ..net.clone()
        };
        assert_eq!(&with.to_bytes()[..8], MAGIC_CHECKED);
        assert_eq!(Network::from_bytes(&with.to_bytes()).unwrap(), with);
        let bytes = with.to_bytes();
        assert!(Network::from_bytes(&bytes[..bytes.len() - 2]).is_err());
        // A flipped byte anywhere is refused.
        for i in 8..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            assert!(Network::from_bytes(&b).is_err(), "byte {i}");
        }
        // The versions before the check still load: TABULAN2 is TABULAN3 without the flags
        // word and the checksum.
        let mut old = MAGIC_PSQT.to_vec();
        old.extend_from_slice(&bytes[8..32]);
        old.extend_from_slice(&bytes[36..bytes.len() - 4]);
        assert_eq!(Network::from_bytes(&old).unwrap(), with);
    }
}
