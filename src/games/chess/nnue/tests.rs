//! The network's tests: incremental accumulators against a refresh (flat and by king bucket),
//! every vector path against the scalar one, the embedded network as the default.

use super::*;
use crate::game::{BooksAndSolvers, Notation, Rules, SearchHints};
use crate::games::chess::Chess;
use crate::learn::rng::Rng;

/// A network of random weights (the shape this build evaluates with).
pub fn random_net(seed: u64) -> &'static Net {
    random_net_of(seed, INPUTS)
}

/// The same with `inputs` inputs (`INPUTS`, or `KING_BUCKETS * INPUTS`).
pub fn random_net_of(seed: u64, inputs: usize) -> &'static Net {
    let mut rng = Rng::new(seed);
    let mut w = |n: usize, r: i32| -> Vec<i16> {
        (0..n)
            .map(|_| (rng.below(2 * r as usize + 1) as i32 - r) as i16)
            .collect()
    };
    let net = Network {
        game: "chess".into(),
        inputs,
        hidden: HIDDEN,
        buckets: BUCKETS,
        w1: w(inputs * HIDDEN, 60),
        b1: w(HIDDEN, 100),
        w2: w(BUCKETS * 2 * HIDDEN, 100),
        b2: vec![5; BUCKETS],
        psqt: w(inputs * BUCKETS, 3000),
    };
    Box::leak(Box::new(Net::from_bytes(&net.to_bytes()).unwrap()))
}

/// The embedded network is the default evaluation (unless a build embedded another file
/// with `make EVALFILE=`), `EvalFile <hce>` names the tuned one, a bad file keeps the one
/// in use, and the network's scores are sane: about level at the start, a queen up far ahead.
#[test]
fn the_network_is_the_default_and_the_tuned_evaluation_is_named() {
    use crate::games::chess::Eval;
    let mut pos = Chess::default();
    if option_env!("TABULA_EVALFILE").is_none_or(|v| v.is_empty()) {
        assert!(matches!(pos.eval, Eval::Net(_)), "{:?}", pos.eval);
        assert!(pos.evaluate().abs() < 100, "start: {}", pos.evaluate());
        let up = pos
            .clone()
            .parse_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .unwrap();
        assert!(up.evaluate() > 500, "a queen up: {}", up.evaluate());
    }
    pos.set_option("EvalFile", "<hce>").unwrap().unwrap();
    assert!(matches!(pos.eval, Eval::Tuned(_)));
    assert!(
        pos.set_option("EvalFile", "/no/such/file")
            .unwrap()
            .is_err()
    );
    assert!(matches!(pos.eval, Eval::Tuned(_)));
    pos.set_option("EvalFile", "<embedded>").unwrap().unwrap();
    assert!(!matches!(pos.eval, Eval::Pesto));
}

/// The accumulators kept move by move (captures, promotions, castling both ways, en
/// passant, Chess960 castling) equal the ones computed from scratch.
#[test]
fn incremental_accumulators_match_a_refresh() {
    incremental_matches_refresh(random_net(7), 11);
}

/// The same for a network by king bucket, whose king moves change a side's frame.
#[test]
fn king_bucketed_accumulators_match_a_refresh() {
    incremental_matches_refresh(random_net_of(8, KING_BUCKETS * INPUTS), 12);
}

/// Every frame a king can stand in: four buckets, each half of the board mirrored.
#[test]
fn king_frames_cover_the_buckets_and_mirror() {
    use std::collections::HashSet;
    let frames: HashSet<(u16, u8)> = Square::ALL
        .iter()
        .map(|&k| king_frame(Color::White, k))
        .map(|f| (f.base, f.flip))
        .collect();
    assert_eq!(frames.len(), 2 * KING_BUCKETS);
    // Black's frames are White's seen from the other side of the board.
    for k in Square::ALL {
        assert_eq!(
            king_frame(Color::Black, k),
            king_frame(Color::White, Square::index(k as usize ^ 56))
        );
    }
    // Castled short and long, either side: bucket 0 and 1, mirrored on the king's side.
    let f = |s: Square| king_frame(Color::White, s);
    assert_eq!((f(Square::G1).base, f(Square::G1).flip), (0, 7));
    assert_eq!((f(Square::B1).base, f(Square::B1).flip), (0, 0));
    assert_eq!((f(Square::E1).base, f(Square::E1).flip), (INPUTS as u16, 7));
    assert_eq!(f(Square::E4).base, 3 * INPUTS as u16);
}

fn incremental_matches_refresh(net: &'static Net, seed: u64) {
    let mut rng = Rng::new(seed);
    let starts = [
        (super::super::STARTPOS, false),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        ),
        (
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            false,
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            true,
        ),
    ];
    let mut moves = Vec::new();
    for (fen, c960) in starts {
        for _ in 0..20 {
            let mut pos = Chess::with(
                cozy_chess::Board::default(),
                c960,
                crate::games::chess::Eval::Net(net),
            )
            .parse_fen(fen)
            .unwrap();
            for _ in 0..80 {
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                // Prefer captures and promotions now and then, to exercise them.
                let tactical: Vec<_> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.is_tactical(m))
                    .collect();
                let mv = if !tactical.is_empty() && rng.below(2) == 0 {
                    tactical[rng.below(tactical.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                pos.play(mv);
                let fresh = net.refresh(&pos.board);
                assert_eq!(pos.acc.v, fresh.v, "after {mv} reaching {}", pos.fen());
                assert_eq!(pos.acc.psqt, fresh.psqt, "after {mv}");
                assert_eq!(pos.acc.frame, fresh.frame, "after {mv}");
                assert_eq!(
                    pos.evaluate(),
                    crate::games::chess::pesto::scale_drawish(
                        &pos.board,
                        evaluate_fresh(net, &pos.board)
                    )
                );
            }
        }
    }
}

/// Every vector path this processor has computes exactly what the baseline computes:
/// accumulators from scratch, kept move by move, and the evaluation, over random games with
/// random weights (large enough that the i16 cells wrap and clamp) and the embedded network.
#[test]
fn every_simd_path_equals_the_baseline() {
    let levels = Level::available();
    eprintln!("simd levels here: {levels:?}");
    let nets = [random_net(3), random_net(4)].into_iter().chain(
        match crate::games::chess::Eval::default_eval() {
            crate::games::chess::Eval::Net(n) => Some(n),
            _ => None,
        },
    );
    let mut rng = Rng::new(5);
    let mut moves = Vec::new();
    for net in nets {
        for _ in 0..20 {
            let mut pos = Chess::default();
            let mut accs: Vec<Accumulator> = levels
                .iter()
                .map(|&l| net.refresh_at(l, &pos.board))
                .collect();
            for _ in 0..120 {
                for (acc, &l) in accs.iter().zip(&levels) {
                    assert_eq!(acc.v, accs[0].v, "{l:?} at {}", pos.fen());
                    assert_eq!(acc.psqt, accs[0].psqt, "{l:?}");
                    let fresh = net.refresh_at(l, &pos.board);
                    assert_eq!(fresh.v, acc.v, "{l:?} refresh at {}", pos.fen());
                    assert_eq!(
                        net.evaluate_at(l, acc, &pos.board),
                        net.evaluate_at(levels[0], &accs[0], &pos.board),
                        "{l:?} evaluate at {}",
                        pos.fen()
                    );
                }
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.below(moves.len())];
                let before = pos.board.clone();
                pos.play(mv);
                let (removed, added) = changes(&before, &pos.board);
                for (acc, &l) in accs.iter_mut().zip(&levels) {
                    net.update_at(l, acc, &removed, &added);
                }
            }
        }
    }
}

type Placed = (Color, Piece, Square);

/// The pieces that left and arrived between two boards, as `update` takes them.
fn changes(a: &Board, b: &Board) -> (Vec<Placed>, Vec<Placed>) {
    let on = |x: &Board, sq: Square| Some((x.color_on(sq)?, x.piece_on(sq)?, sq));
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for sq in Square::ALL {
        let (p, q) = (on(a, sq), on(b, sq));
        if p != q {
            removed.extend(p);
            added.extend(q);
        }
    }
    (removed, added)
}
