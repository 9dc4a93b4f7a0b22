//! The trainer's tests: quantised models against the float ones.

use super::*;
use crate::game::{Notation, Rules};
use crate::games::chess::Chess;
use crate::games::chess::learn::{NnueInputs, NnueKingInputs};

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
    for_each_random_position::<HceInputs>(&mut rng, 120, |ply, pos, ex| {
        let float = forward(&m, ex, &mut []) * SCALE as f32;
        let q = hce.evaluate(&pos.board);
        assert!(
            (q as f32 - float).abs() <= 3.0,
            "ply {ply}: integer {q}, float {float}"
        );
    });
}

/// Plays a random game from the start (at most `plies` moves, chosen by `rng`) and calls `f`
/// with the ply, each position reached and its example under the inputs `F`.
fn for_each_random_position<F: Features<Chess>>(
    rng: &mut Rng,
    plies: usize,
    mut f: impl FnMut(usize, &Chess, &Example),
) {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut packed = [0u8; 32];
    let mut ex = Example::default();
    for ply in 0..plies {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play(moves[rng.below(moves.len())]);
        pos.pack(&mut packed);
        F::features(&packed, &mut ex.us, &mut ex.them);
        (ex.bucket, ex.share) = F::bucket(&packed);
        f(ply, &pos, &ex);
    }
}

/// The quantised network of inputs `F` computes what the float one does, and the engine
/// computes what the quantised one does.
fn quantised_output_matches<F: Features<Chess>>(seed: u64) {
    let mut rng = Rng::new(seed);
    let hidden = crate::games::chess::nnue::HIDDEN;
    let mut m = Model::new(F::INPUTS, hidden, F::BUCKETS, &mut rng);
    // The psqt term starts at zero; give it weights of a few pawns so that it counts.
    let ps = m.psqt_at();
    assert!(m.psqt && m.p.len() > ps);
    for v in &mut m.p[ps..] {
        *v = rng.normal() * 0.5;
    }
    let net = m.quantise("chess", linear_q(false));
    let file = F::export(net.clone()).to_bytes();
    let engine = crate::games::chess::nnue::Net::from_bytes(&file).unwrap();
    let rounded = Model::from_network(&net, linear_q(false));
    let mut acc = vec![0.0; 2 * hidden];
    for_each_random_position::<F>(&mut rng, 120, |ply, pos, ex| {
        let float = forward(&m, ex, &mut acc) * SCALE as f32;
        let quant_acc = |feats: &[u32]| -> Vec<i16> {
            let mut a = net.b1.clone();
            for &f in feats {
                for (j, v) in a.iter_mut().enumerate() {
                    *v += net.w1[f as usize * hidden + j];
                }
            }
            a
        };
        let psqt = |feats: &[u32]| -> i32 {
            let b = net.buckets;
            feats
                .iter()
                .map(|&f| i32::from(net.psqt[f as usize * b + ex.bucket]))
                .sum()
        };
        let q = net.output(&quant_acc(&ex.us), &quant_acc(&ex.them), ex.bucket)
            + Network::psqt_output(psqt(&ex.us), psqt(&ex.them));
        // The engine's evaluation computes the same.
        assert_eq!(
            crate::games::chess::nnue::evaluate_fresh(&engine, &pos.board),
            q,
            "ply {ply}: {}",
            pos.fen()
        );
        // The integer inference is the float model of the rounded weights, exactly (but for
        // the final truncation); rounding itself moves a random network by a few dozen units.
        let float_rounded = forward(&rounded, ex, &mut acc) * SCALE as f32;
        assert!(
            (q as f32 - float_rounded).abs() <= 2.5,
            "ply {ply}: integer {q}, float of the rounded weights {float_rounded}"
        );
        assert!(
            (q as f32 - float).abs() <= 60.0,
            "ply {ply}: quantised {q}, float {float}"
        );
    });
}

#[test]
fn quantised_output_matches_the_float_model() {
    quantised_output_matches::<NnueInputs>(3);
}

/// The same with inputs by king bucket: the trainer's inputs and the engine's frames agree.
#[test]
fn king_bucketed_output_matches_the_float_model() {
    quantised_output_matches::<NnueKingInputs>(4);
    quantised_output_matches::<NnueKingInputs>(5);
}

/// A 768-input network as the king buckets' factor (`NnueKingInputs::upgrade`, what `train
/// --model nnue-kings --init` starts from) computes what it did wherever both kings stand on
/// files a-d (elsewhere a side reads the mirror image's weights); the file written of it
/// (`export`) reads back into the trainer's layout as the same network.
#[test]
fn king_buckets_start_as_the_network_they_copy() {
    let mut rng = Rng::new(23);
    let mut m = Model::new(NnueInputs::INPUTS, 16, NnueInputs::BUCKETS, &mut rng);
    let ps = m.psqt_at();
    for v in &mut m.p[ps..] {
        *v = rng.normal() * 0.5;
    }
    let flat = m.quantise("chess", linear_q(false));
    let kings = NnueKingInputs::upgrade(flat.clone());
    assert_eq!(kings.inputs, NnueKingInputs::INPUTS);
    let file = NnueKingInputs::export(kings.clone());
    assert_eq!(
        file.inputs,
        crate::games::chess::nnue::KING_BUCKETS * NnueInputs::INPUTS
    );
    let again = Model::from_network(&NnueKingInputs::upgrade(file), linear_q(false));
    let (a, b) = (
        Model::from_network(&flat, linear_q(false)),
        Model::from_network(&kings, linear_q(false)),
    );
    let (mut acc_a, mut acc_b) = (vec![0.0; 32], vec![0.0; 32]);
    let mut packed = [0u8; 32];
    let mut flat_ex = Example::default();
    let mut checked = 0;
    for game in 0..20 {
        for_each_random_position::<NnueKingInputs>(&mut rng, 200, |ply, pos, ex| {
            let on_left = |c| (pos.board.king(c).file() as usize) < 4;
            if !(on_left(cozy_chess::Color::White) && on_left(cozy_chess::Color::Black)) {
                return;
            }
            pos.pack(&mut packed);
            NnueInputs::features(&packed, &mut flat_ex.us, &mut flat_ex.them);
            (flat_ex.bucket, flat_ex.share) = NnueInputs::bucket(&packed);
            let (x, y) = (
                forward(&a, &flat_ex, &mut acc_a),
                forward(&b, ex, &mut acc_b),
            );
            assert!(
                (x - y).abs() < 1e-5,
                "game {game} ply {ply}: {x} against {y}"
            );
            let z = forward(&again, ex, &mut acc_b);
            assert!(
                (x - z).abs() < 1e-5,
                "game {game} ply {ply}: {x} against {z}"
            );
            checked += 1;
        });
    }
    assert!(
        checked > 50,
        "only {checked} positions with both kings on files a-d"
    );
}

/// The network's mirror image (`Features::mirror`) is the inputs of the board mirrored left to
/// right, seen from both sides, on positions of random games (no castling rights: the one rule
/// the mirror breaks).
#[test]
fn chess_mirror_is_the_mirrored_board() {
    let mirror_fen = |fen: &str| {
        let (board, rest) = fen.split_once(' ').unwrap_or((fen, ""));
        let ranks: Vec<String> = board
            .split('/')
            .map(|r| {
                let mut cells = String::new();
                for ch in r.chars() {
                    match ch.to_digit(10) {
                        Some(n) => (0..n).for_each(|_| cells.push('1')),
                        None => cells.push(ch),
                    }
                }
                cells.chars().rev().collect()
            })
            .collect();
        let fields: Vec<&str> = rest.split(' ').collect();
        // Side to move; no castling; the en-passant file mirrored too; the clocks.
        let ep = match fields[2] {
            "-" => "-".to_string(),
            sq => {
                let f = (b'h' - (sq.as_bytes()[0] - b'a')) as char;
                format!("{f}{}", &sq[1..])
            }
        };
        format!(
            "{} {} - {ep} {} {}",
            ranks.join("/"),
            fields[0],
            fields[3],
            fields[4]
        )
    };
    let mut rng = Rng::new(9);
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
    let (mut ex, mut ey) = (Example::default(), Example::default());
    let mut checked = 0;
    for _ in 0..80 {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play(moves[rng.below(moves.len())]);
        let fen = pos.fen();
        let Some(no_castling) = fen
            .split(' ')
            .nth(2)
            .filter(|c| *c == "-")
            .map(|_| fen.clone())
        else {
            continue;
        };
        let Ok(m) = Chess::default().parse_fen(&mirror_fen(&no_castling)) else {
            panic!(
                "mirror of {fen} does not parse: {}",
                mirror_fen(&no_castling)
            );
        };
        pos.pack(&mut a);
        m.pack(&mut b);
        NnueInputs::features(&a, &mut ex.us, &mut ex.them);
        NnueInputs::features(&b, &mut ey.us, &mut ey.them);
        NnueInputs::mirror(&mut ex.us, &mut ex.them);
        for v in [&mut ex.us, &mut ex.them, &mut ey.us, &mut ey.them] {
            v.sort_unstable();
        }
        assert_eq!((&ex.us, &ex.them), (&ey.us, &ey.them), "{fen}");
        assert_eq!(NnueInputs::bucket(&a), NnueInputs::bucket(&b));
        checked += 1;
    }
    assert!(
        checked > 20,
        "only {checked} positions without castling rights"
    );
}

/// A network widened to more cells computes what it computed before, on every example, and
/// keeps its shape's offsets (the new cells start with zero output weights).
#[test]
fn a_widened_network_computes_what_it_did() {
    let mut rng = Rng::new(17);
    let mut m = Model::new(NnueInputs::INPUTS, 16, NnueInputs::BUCKETS, &mut rng);
    let ps = m.psqt_at();
    let b1 = m.b1();
    for v in &mut m.p[b1..] {
        *v = rng.normal() * 0.3;
    }
    for v in &mut m.p[ps..] {
        *v = rng.normal() * 0.5;
    }
    let wide = m.widen(40, &mut rng);
    assert_eq!((wide.hidden, wide.p.len()), (40, wide.len()));
    for half in wide.p[wide.w2()..wide.b2()].chunks_exact(40) {
        assert!(
            half[16..].iter().all(|&v| v == 0.0),
            "new cells' output weights"
        );
    }
    let (mut a, mut b) = (vec![0.0; 2 * 16], vec![0.0; 2 * 40]);
    for_each_random_position::<NnueInputs>(&mut rng, 100, |ply, _, ex| {
        let (x, y) = (forward(&m, ex, &mut a), forward(&wide, ex, &mut b));
        assert!((x - y).abs() < 1e-4, "ply {ply}: {x} against {y}");
        // The old cells are the same cells.
        assert_eq!(&a[..16], &b[..16]);
    });
}

/// A network tapered between two buckets (`Example::share` below 1, as Othello's phases):
/// the output is the mix of the two buckets' outputs, and `descend`'s gradient is the
/// output's own (central differences on every kind of weight both buckets use).
#[test]
fn a_tapered_network_descends_its_own_gradient() {
    let mut rng = Rng::new(23);
    let (inputs, hidden, buckets) = (40, 6, 4);
    let mut m = Model::new(inputs, hidden, buckets, &mut rng);
    let b1 = m.b1();
    for v in &mut m.p[b1..] {
        *v = rng.normal() * 0.4;
    }
    for v in &mut m.p[..b1] {
        *v = rng.normal() * 0.3 + 0.1;
    }
    let ex = Example {
        us: vec![3, 7, 7, 19, 33],
        them: vec![1, 7, 25],
        bucket: 1,
        share: 0.3,
        target: 0.0,
    };
    let mut acc = vec![0.0; 2 * hidden];
    let out = forward(&m, &ex, &mut acc);
    let single = |b: usize| {
        let one = Example {
            us: ex.us.clone(),
            them: ex.them.clone(),
            bucket: b,
            share: 1.0,
            target: 0.0,
        };
        forward(&m, &one, &mut vec![0.0; 2 * hidden])
    };
    let mixed = 0.3 * single(1) + 0.7 * single(2);
    assert!((out - mixed).abs() < 1e-4, "{out} against {mixed}");
    let mut g = vec![0.0; m.len()];
    forward(&m, &ex, &mut acc);
    descend(&m, &ex, &mut acc, &mut g, 1.0);
    let ps = m.psqt_at();
    let probes = [
        7 * hidden + 2,                       // w1 of an input both sides hold
        19 * hidden + 4,                      // w1 of the side to move's
        m.b1() + 1,                           // b1
        m.w2() + 2 * hidden + 3,              // w2, bucket 1
        m.w2() + 2 * 2 * hidden + hidden + 5, // w2, bucket 2, the other side's half
        m.b2() + 1,                           // b2, bucket 1
        m.b2() + 2,                           // b2, bucket 2
        ps + 19 * buckets + 1,                // psqt, bucket 1
        ps + 25 * buckets + 2,                // psqt, bucket 2 (the other side's input)
        ps + 7 * buckets + 3,                 // psqt of a bucket not used: no gradient
    ];
    for &i in &probes {
        let eps = 1e-2;
        let at = |d: f32| {
            let mut mm = m.clone();
            mm.p[i] += d;
            forward(&mm, &ex, &mut vec![0.0; 2 * hidden]) as f64
        };
        let numeric = (at(eps) - at(-eps)) / (2.0 * eps as f64);
        assert!(
            (numeric - g[i] as f64).abs() < 2e-3 + 1e-2 * numeric.abs(),
            "parameter {i}: numeric {numeric}, descend {}",
            g[i]
        );
    }
}

/// An Othello pattern file (linear) read as the `pattern-net` model's start
/// (`PatternNetInputs::upgrade`, then widened) evaluates as the linear model does, tapered
/// between the phases, on random positions.
#[test]
fn a_pattern_net_starts_as_its_linear_patterns() {
    use crate::games::othello::learn::{PatternInputs, PatternNetInputs};
    use crate::learn::network::QL;
    type O = crate::games::othello::Othello<u64>;
    let mut rng = Rng::new(29);
    let mut lin = Model::new(PatternInputs::INPUTS, 0, PatternInputs::BUCKETS, &mut rng);
    for v in &mut lin.p {
        *v = rng.normal() * 3.0;
    }
    let file = lin.quantise("othello", QL);
    let lin = Model::from_network(&file, QL);
    let net = <PatternNetInputs as Features<O>>::upgrade(file);
    assert_eq!((net.hidden, net.psqt.len()), (1, net.inputs * net.buckets));
    let m = Model::from_network(&net, QL).widen(8, &mut rng);
    let mut ex = Example::default();
    for _ in 0..300 {
        let (me, opp) = crate::games::othello::learn::random_board(&mut rng);
        pattern_net_example(me, opp, &mut ex);
        let (a, b) = (
            forward(&lin, &ex, &mut []),
            forward(&m, &ex, &mut [0.0; 16]),
        );
        assert!((a - b).abs() < 1e-2, "linear {a}, pattern-net {b}");
    }
}

/// The engine's `pattern-net` evaluation (`othello::learn::PatternNet` of the quantised file:
/// unfolded rows, the cells in integers, both tapered between the phases) computes what the
/// trainer's float model does, on random positions of every phase.
#[test]
fn a_quantised_pattern_net_evaluates_as_the_float_model() {
    use crate::games::othello::learn::{PatternNet, PatternNetInputs};
    use crate::learn::network::QL;
    let mut rng = Rng::new(31);
    let hidden = 16;
    let mut m = Model::new(
        PatternNetInputs::INPUTS,
        hidden,
        PatternNetInputs::BUCKETS,
        &mut rng,
    );
    let (b1, b2, ps) = (m.b1(), m.b2(), m.psqt_at());
    for v in &mut m.p[..b1] {
        *v = rng.normal() * 0.15;
    }
    for v in &mut m.p[b1..b2] {
        *v = (rng.normal() * 0.6).clamp(-1.9, 1.9);
    }
    for v in &mut m.p[b2..ps] {
        *v = rng.normal() * 4.0;
    }
    for v in &mut m.p[ps..] {
        *v = rng.normal() * 2.0;
    }
    let engine = PatternNet::from_bytes(&m.quantise("othello", QL).to_bytes())
        .expect("a pattern-net file loads");
    let mut ex = Example::default();
    let mut acc = vec![0.0; 2 * hidden];
    // The same model without its cells' output, to show that the cells count.
    let mut linear_part = m.clone();
    let (w2, b2) = (m.w2(), m.b2());
    linear_part.p[w2..b2].iter_mut().for_each(|v| *v = 0.0);
    let mut cells_moved = 0f32;
    for _ in 0..500 {
        let (me, opp) = crate::games::othello::learn::random_board(&mut rng);
        pattern_net_example(me, opp, &mut ex);
        let float = forward(&m, &ex, &mut acc) * 100.0;
        let int = engine.evaluate(me, opp) as f32;
        let without = forward(&linear_part, &ex, &mut acc) * 100.0;
        cells_moved = cells_moved.max((float - without).abs());
        assert!(
            (float - int).abs() <= 12.0 + 0.01 * float.abs(),
            "float {float}, engine {int} (hundredths of a disc)"
        );
    }
    // The comparison saw the cells at work: a disc or more on some position.
    assert!(
        cells_moved > 100.0,
        "the cells moved the output {cells_moved}"
    );
}

/// The `pattern-net` example of an 8x8 position (`me` the side to move's discs).
fn pattern_net_example(me: u64, opp: u64, ex: &mut Example) {
    use crate::games::othello::learn::PatternNetInputs;
    type O = crate::games::othello::Othello<u64>;
    let mut packed = [0u8; 17];
    packed[..8].copy_from_slice(&me.to_le_bytes());
    packed[8..16].copy_from_slice(&opp.to_le_bytes());
    <PatternNetInputs as Features<O>>::features(&packed, &mut ex.us, &mut ex.them);
    (ex.bucket, ex.share) = <PatternNetInputs as Features<O>>::bucket(&packed);
}
