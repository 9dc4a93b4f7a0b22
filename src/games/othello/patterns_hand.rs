//! The hand-written evaluation (`eval`) written as big-board pattern weights
//! (`patterns_big`): the starting point of a big board's training (`tabula train --init
//! <hand>`), so that a configuration the self-play data never shows keeps the hand-written
//! value instead of zero.
//!
//! Carried over: the mobility term (the joint mobility table), potential mobility (the two
//! potential count tables), corners, X- and C-squares beside an empty corner (the 3x3 corner
//! table), and discs joined along an edge to their own corner (the edge tables: each corner's
//! run along each of its two edges, the corner itself shared between them). Not carried: the
//! late disc count. Every phase gets the same weights; the bias is zero.

use super::patterns_big::{self, BUCKETS, COUNT, COUNTS_AT, INPUTS, JOINT};
use crate::learn::network::{Network, QL};

/// Centi-discs to weight units.
fn q(cp: i32) -> i16 {
    (cp * QL / 100) as i16
}

/// The hand-written evaluation as one phase's weights.
fn phase_weights() -> Vec<i16> {
    let mut w = vec![0i16; INPUTS];
    let digits = |raw: u32, len: usize| -> Vec<u32> {
        (0..len).map(|i| raw / 3u32.pow(i as u32) % 3).collect()
    };
    // Table 0: the edge's first nine squares from the corner (digits 0..9), then the X square.
    for raw in 0..3u32.pow(10) {
        let d = digits(raw, 10);
        let run = |who: u32| d[..9].iter().take_while(|&&x| x == who).count() as i32;
        let value = |r: i32| if r == 0 { 0 } else { 120 * r - 60 };
        w[raw as usize] = q(value(run(1)) - value(run(2)));
    }
    // Table 2: the corner's 3x3, row-major: corner 0, C squares 1 and 3, X square 4.
    let at = patterns_big::table_offset(2) as usize;
    for raw in 0..3u32.pow(9) {
        let d = digits(raw, 9);
        let side = |who: u32| -> i32 {
            if d[0] == who {
                return 800;
            }
            if d[0] != 0 {
                return 0;
            }
            let c = [1, 3].iter().filter(|&&i| d[i] == who).count() as i32;
            -150 * (c + 3 * i32::from(d[4] == who))
        };
        w[at + raw as usize] = q(side(1) - side(2));
    }
    // Potential mobility: the side to move's (table 2 of the counts) and the opponent's.
    for k in 0..COUNT {
        w[COUNTS_AT as usize + 2 * COUNT + k] = q(10 * k as i32);
        w[COUNTS_AT as usize + 3 * COUNT + k] = q(-10 * k as i32);
    }
    // Mobility: 3 * 100 * (mine - theirs) / (mine + theirs + 2).
    let joint_at = INPUTS - JOINT * JOINT;
    for mine in 0..JOINT as i32 {
        for theirs in 0..JOINT as i32 {
            w[joint_at + (mine as usize) * JOINT + theirs as usize] =
                q(3 * (100 * (mine - theirs) / (mine + theirs + 2)));
        }
    }
    w
}

/// The hand-written evaluation as a big-board pattern network.
pub fn network() -> Network {
    let one = phase_weights();
    Network {
        game: "othello".into(),
        inputs: INPUTS,
        hidden: 0,
        buckets: BUCKETS,
        w1: (0..BUCKETS).flat_map(|_| one.iter().copied()).collect(),
        b1: Vec::new(),
        w2: Vec::new(),
        b2: vec![0; BUCKETS],
        psqt: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BigNet, Othello};
    use super::*;
    use crate::game::Rules;

    /// On the positions of a game, the network follows the hand-written evaluation closely
    /// (all but the late disc count and edge runs past the ninth square).
    #[test]
    fn the_network_follows_the_hand_written_evaluation() {
        let net = BigNet::from_bytes(&network().to_bytes(), 10).expect("a valid net");
        let mut p = Othello::<u128>::new(10).expect("10x10");
        let mut moves = Vec::new();
        let mut n = 0;
        for i in 0..60 {
            p.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            p.play(moves[(i * 3) % moves.len()]);
            let (a, b) = (net.evaluate(&p), super::super::eval::evaluate(&p));
            assert!((a - b).abs() <= 40, "ply {i}: {a} against {b}");
            n += 1;
        }
        assert!(n > 40);
    }
}
