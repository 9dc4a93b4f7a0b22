//! The trainer's tests: quantised models against the float ones.

use super::*;
use crate::game::Game;
use crate::games::chess::Chess;
use crate::games::chess::learn::NnueInputs;

/// The engine's tuned chess evaluation (integer, `hce::Hce`) computes what the trainer's
/// float linear model does, tapered between its two buckets.
#[test]
fn tuned_chess_evaluation_matches_the_float_model() {
    use crate::games::chess::hce::{Hce, HceInputs};
    let mut rng = Rng::new(5);
    let mut m = Model::new(HceInputs::INPUTS, 0, HceInputs::BUCKETS, &mut rng);
    for v in &mut m.p {
        *v = (rng.below(2001) as f32 - 1000.0) / 4000.0;
    }
    let hce = Hce::from_bytes(&m.quantise("chess", linear_q(false)).to_bytes()).unwrap();
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut packed = [0u8; 32];
    let mut ex = Example::default();
    for ply in 0..120 {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play(moves[rng.below(moves.len())]);
        pos.pack(&mut packed);
        HceInputs::features(&packed, &mut ex.us, &mut ex.them);
        (ex.bucket, ex.share) = HceInputs::bucket(&packed);
        let float = forward(&m, &ex, &mut []) * SCALE as f32;
        let q = hce.evaluate(&pos.board);
        assert!(
            (q as f32 - float).abs() <= 3.0,
            "ply {ply}: integer {q}, float {float}"
        );
    }
}

/// The quantised network computes what the float one does.
#[test]
fn quantised_output_matches_the_float_model() {
    let mut rng = Rng::new(3);
    let hidden = crate::games::chess::nnue::HIDDEN;
    let m = Model::new(NnueInputs::INPUTS, hidden, NnueInputs::BUCKETS, &mut rng);
    let net = m.quantise("chess", linear_q(false));
    let rounded = Model::from_network(&net, linear_q(false));
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut packed = [0u8; 32];
    let mut acc = vec![0.0; 2 * hidden];
    let mut ex = Example::default();
    for ply in 0..60 {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play(moves[rng.below(moves.len())]);
        pos.pack(&mut packed);
        NnueInputs::features(&packed, &mut ex.us, &mut ex.them);
        ex.bucket = NnueInputs::bucket(&packed).0;
        let float = forward(&m, &ex, &mut acc) * SCALE as f32;
        let quant_acc = |feats: &[u32]| -> Vec<i16> {
            let mut a = net.b1.clone();
            for &f in feats {
                for (j, v) in a.iter_mut().enumerate() {
                    *v += net.w1[f as usize * hidden + j];
                }
            }
            a
        };
        let q = net.output(&quant_acc(&ex.us), &quant_acc(&ex.them), ex.bucket);
        // The integer inference is the float model of the rounded weights, exactly (but for
        // the final truncation); rounding itself moves a random network by a few dozen units.
        let float_rounded = forward(&rounded, &ex, &mut acc) * SCALE as f32;
        assert!(
            (q as f32 - float_rounded).abs() <= 1.5,
            "ply {ply}: integer {q}, float of the rounded weights {float_rounded}"
        );
        assert!(
            (q as f32 - float).abs() <= 60.0,
            "ply {ply}: quantised {q}, float {float}"
        );
    }
}
