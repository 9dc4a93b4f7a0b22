//! Chess's learned evaluation: a perspective network (see `learn::network`) over 768 inputs
//! per side, (colour relative to the perspective, piece, square seen from that side), with
//! `HIDDEN` accumulator cells per side, kept up to date move by move inside `Chess` (copy-make
//! copies them with the board).
//!
//! Input index for perspective `p`: `384 * (colour != p) + 64 * piece + square`, the square
//! flipped vertically (`^ 56`) for Black's perspective. The same function labels the training
//! data (`Learn::features`), so the trainer and the engine cannot disagree.
//!
//! Beside the cells, each side's accumulator keeps the psqt sums of its active inputs for all
//! `BUCKETS` buckets (i32, at `QLOGIT` per logit; zero for a network without the term), since
//! the bucket changes with captures.

use crate::learn::network::Network;
use crate::simd::{self, Level};
use cozy_chess::{Board, Color, Piece, Square};

pub const INPUTS: usize = 768;
pub const HIDDEN: usize = 256;
/// Output buckets, by the number of pieces on the board (2..32 in eight steps).
pub const BUCKETS: usize = 8;

pub struct Net {
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// `INPUTS * BUCKETS`, input-major; zeros where the file has no psqt term.
    psqt: Vec<i16>,
    net: Network,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Net({}x{}x{})",
            self.net.inputs, self.net.hidden, self.net.buckets
        )
    }
}

impl Net {
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, String> {
        let net = Network::from_bytes(bytes)?;
        if net.game != "chess"
            || net.inputs != INPUTS
            || net.hidden != HIDDEN
            || net.buckets != BUCKETS
        {
            return Err(format!(
                "a {} network of shape {}x{}x{}; this build evaluates chess with {INPUTS}x{HIDDEN}x{BUCKETS}",
                net.game, net.inputs, net.hidden, net.buckets
            ));
        }
        let psqt = if net.psqt.is_empty() {
            vec![0; INPUTS * BUCKETS]
        } else {
            net.psqt.clone()
        };
        Ok(Net {
            w1: net.w1.clone(),
            b1: net.b1.clone(),
            psqt,
            net,
        })
    }

    #[inline(always)]
    fn row(&self, feature: usize) -> &[i16] {
        &self.w1[feature * HIDDEN..(feature + 1) * HIDDEN]
    }

    #[inline(always)]
    fn psqt_row(&self, feature: usize) -> &[i16] {
        &self.psqt[feature * BUCKETS..(feature + 1) * BUCKETS]
    }

    /// Accumulators from scratch.
    pub fn refresh(&self, board: &Board) -> Accumulator {
        self.refresh_at(simd::level(), board)
    }

    /// Applies a move's changes: pieces `removed` and `added`, (colour, piece, square).
    pub fn update(
        &self,
        acc: &mut Accumulator,
        removed: &[(Color, Piece, Square)],
        added: &[(Color, Piece, Square)],
    ) {
        self.update_at(simd::level(), acc, removed, added)
    }

    /// The evaluation in centipawns from the side to move.
    pub fn evaluate(&self, acc: &Accumulator, board: &Board) -> i32 {
        self.evaluate_at(simd::level(), acc, board)
    }

    /// `refresh` with the kernels of `level` (one the processor has: `simd::Level::available`).
    pub fn refresh_at(&self, level: Level, board: &Board) -> Accumulator {
        #[cfg(target_arch = "x86_64")]
        match level {
            // SAFETY (both arms): `level` is one the processor has (`simd::level` returns only
            // detected levels; callers of `*_at` pass one of `Level::available`).
            Level::Avx512 => return unsafe { self.refresh_avx512(board) },
            Level::Avx2 => return unsafe { self.refresh_avx2(board) },
            Level::Scalar => {}
        }
        let _ = level;
        self.refresh_generic(board)
    }

    /// `update` with the kernels of `level` (one the processor has).
    pub fn update_at(
        &self,
        level: Level,
        acc: &mut Accumulator,
        removed: &[(Color, Piece, Square)],
        added: &[(Color, Piece, Square)],
    ) {
        #[cfg(target_arch = "x86_64")]
        match level {
            // SAFETY (both arms): as in `refresh_at`.
            Level::Avx512 => return unsafe { self.update_avx512(acc, removed, added) },
            Level::Avx2 => return unsafe { self.update_avx2(acc, removed, added) },
            Level::Scalar => {}
        }
        let _ = level;
        self.update_generic(acc, removed, added)
    }

    /// `evaluate` with the kernels of `level` (one the processor has).
    pub fn evaluate_at(&self, level: Level, acc: &Accumulator, board: &Board) -> i32 {
        #[cfg(target_arch = "x86_64")]
        match level {
            // SAFETY (both arms): as in `refresh_at`.
            Level::Avx512 => return unsafe { self.evaluate_avx512(acc, board) },
            Level::Avx2 => return unsafe { self.evaluate_avx2(acc, board) },
            Level::Scalar => {}
        }
        let _ = level;
        self.evaluate_generic(acc, board)
    }

    #[inline(always)]
    fn refresh_generic(&self, board: &Board) -> Accumulator {
        let mut acc = Accumulator::zero();
        for side in [Color::White, Color::Black] {
            let a = &mut acc.v[side as usize];
            let ps = &mut acc.psqt[side as usize];
            a.copy_from_slice(&self.b1);
            for sq in board.occupied() {
                if let (Some(p), Some(c)) = (board.piece_on(sq), board.color_on(sq)) {
                    let f = feature(side, c, p, sq);
                    add(a, self.row(f));
                    add_psqt(ps, self.psqt_row(f));
                }
            }
        }
        acc
    }

    #[inline(always)]
    fn update_generic(
        &self,
        acc: &mut Accumulator,
        removed: &[(Color, Piece, Square)],
        added: &[(Color, Piece, Square)],
    ) {
        for side in [Color::White, Color::Black] {
            let a = &mut acc.v[side as usize];
            let ps = &mut acc.psqt[side as usize];
            for &(c, p, s) in removed {
                let f = feature(side, c, p, s);
                sub(a, self.row(f));
                sub_psqt(ps, self.psqt_row(f));
            }
            for &(c, p, s) in added {
                let f = feature(side, c, p, s);
                add(a, self.row(f));
                add_psqt(ps, self.psqt_row(f));
            }
        }
    }

    #[inline(always)]
    fn evaluate_generic(&self, acc: &Accumulator, board: &Board) -> i32 {
        let stm = board.side_to_move();
        let bucket = bucket_of(board.occupied().len() as usize);
        self.net
            .output(&acc.v[stm as usize], &acc.v[!stm as usize], bucket)
            + Network::psqt_output(
                acc.psqt[stm as usize][bucket],
                acc.psqt[!stm as usize][bucket],
            )
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn refresh_avx2(&self, board: &Board) -> Accumulator {
        self.refresh_generic(board)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn update_avx2(
        &self,
        acc: &mut Accumulator,
        removed: &[(Color, Piece, Square)],
        added: &[(Color, Piece, Square)],
    ) {
        self.update_generic(acc, removed, added)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&self, acc: &Accumulator, board: &Board) -> i32 {
        self.evaluate_generic(acc, board)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn refresh_avx512(&self, board: &Board) -> Accumulator {
        self.refresh_generic(board)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn update_avx512(
        &self,
        acc: &mut Accumulator,
        removed: &[(Color, Piece, Square)],
        added: &[(Color, Piece, Square)],
    ) {
        self.update_generic(acc, removed, added)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn evaluate_avx512(&self, acc: &Accumulator, board: &Board) -> i32 {
        self.evaluate_generic(acc, board)
    }
}

#[derive(Clone)]
pub struct Accumulator {
    /// Indexed by perspective (`Color as usize`).
    pub v: [[i16; HIDDEN]; 2],
    /// The psqt sums, by perspective and bucket.
    pub psqt: [[i32; BUCKETS]; 2],
}

impl Accumulator {
    pub fn zero() -> Accumulator {
        Accumulator {
            v: [[0; HIDDEN]; 2],
            psqt: [[0; BUCKETS]; 2],
        }
    }
}

impl std::fmt::Debug for Accumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Accumulator")
    }
}

#[inline(always)]
pub fn bucket_of(pieces: usize) -> usize {
    (pieces.saturating_sub(2) / 4).min(BUCKETS - 1)
}

#[inline(always)]
pub fn feature(persp: Color, color: Color, piece: Piece, sq: Square) -> usize {
    let sq = if persp == Color::White {
        sq as usize
    } else {
        sq as usize ^ 56
    };
    384 * usize::from(color != persp) + 64 * piece as usize + sq
}

#[inline(always)]
fn add(a: &mut [i16; HIDDEN], row: &[i16]) {
    a.iter_mut()
        .zip(row)
        .for_each(|(a, w)| *a = a.wrapping_add(*w));
}

#[inline(always)]
fn sub(a: &mut [i16; HIDDEN], row: &[i16]) {
    a.iter_mut()
        .zip(row)
        .for_each(|(a, w)| *a = a.wrapping_sub(*w));
}

#[inline(always)]
fn add_psqt(a: &mut [i32; BUCKETS], row: &[i16]) {
    a.iter_mut().zip(row).for_each(|(a, &w)| *a += i32::from(w));
}

#[inline(always)]
fn sub_psqt(a: &mut [i32; BUCKETS], row: &[i16]) {
    a.iter_mut().zip(row).for_each(|(a, &w)| *a -= i32::from(w));
}

/// For tests: the evaluation computed from scratch, as a check on the incremental one.
#[cfg(test)]
pub(crate) fn evaluate_fresh(net: &Net, board: &Board) -> i32 {
    net.evaluate(&net.refresh(board), board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Notation, Oracles, Rules, SearchHints};
    use crate::games::chess::Chess;
    use crate::learn::rng::Rng;

    /// A network of random weights (the shape this build evaluates with).
    pub fn random_net(seed: u64) -> &'static Net {
        let mut rng = Rng::new(seed);
        let mut w = |n: usize, r: i32| -> Vec<i16> {
            (0..n)
                .map(|_| (rng.below(2 * r as usize + 1) as i32 - r) as i16)
                .collect()
        };
        let net = Network {
            game: "chess".into(),
            inputs: INPUTS,
            hidden: HIDDEN,
            buckets: BUCKETS,
            w1: w(INPUTS * HIDDEN, 60),
            b1: w(HIDDEN, 100),
            w2: w(BUCKETS * 2 * HIDDEN, 100),
            b2: vec![5; BUCKETS],
            psqt: w(INPUTS * BUCKETS, 3000),
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
        let net = random_net(7);
        let mut rng = Rng::new(11);
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
                            net.evaluate_at(Level::Scalar, &accs[0], &pos.board),
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
}
