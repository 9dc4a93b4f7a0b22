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
//!
//! A network of `KING_BUCKETS * INPUTS` inputs (`train --model nnue-kings`) sees each side's
//! pieces through its own king (Stockfish's HalfKA idea, coarse): a perspective whose king
//! stands on files e-h sees the board mirrored left to right (square `^ 7`), and the king's
//! square in that half (perspective-relative) picks one of `KING_BUCKETS` sets of 768 inputs
//! (`Frame`): 0 on the back rank's files a-b (castled), 1 on its files c-d, 2 on the second
//! rank, 3 further up. Input index: `frame.base + 384 * (colour != p) + 64 * piece + (square ^
//! frame.flip)`. A 768-input network has one frame (base 0, no flip) and reads exactly as
//! before. A king move that changes its side's frame refreshes that side's accumulator
//! (`Chess::play`); each accumulator records the frame it was built in.

use crate::learn::network::Network;
use crate::simd::{self, Level, Vector};
use cozy_chess::{Board, Color, Piece, Square};

pub const INPUTS: usize = 768;
pub const HIDDEN: usize = 256;
/// The king buckets of a king-bucketed network (its inputs: `KING_BUCKETS * INPUTS`).
pub const KING_BUCKETS: usize = 4;
/// Output buckets, by the number of pieces on the board (2..32 in eight steps).
pub const BUCKETS: usize = 8;

pub struct Net {
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// `INPUTS * BUCKETS`, input-major; zeros where the file has no psqt term.
    psqt: Vec<i16>,
    /// Inputs by king bucket (`KING_BUCKETS * INPUTS` inputs) rather than 768.
    kings: bool,
    net: Network,
}

/// How a perspective sees the board: the first input of its king bucket and the square
/// mirror (0, or 7 for files e-h).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    base: u16,
    flip: u8,
}

/// The frame of perspective `persp` whose king stands on `king` (king-bucketed inputs).
#[inline(always)]
pub fn king_frame(persp: Color, king: Square) -> Frame {
    let k = relative(persp, king);
    let flip = if k & 7 >= 4 { 7 } else { 0 };
    let k = k ^ flip as usize;
    let bucket = match (k / 8, k % 8) {
        (0, 0 | 1) => 0,
        (0, _) => 1,
        (1, _) => 2,
        _ => 3,
    };
    Frame {
        base: (bucket * INPUTS) as u16,
        flip,
    }
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
        let kings = net.inputs == KING_BUCKETS * INPUTS;
        if net.game != "chess"
            || (net.inputs != INPUTS && !kings)
            || net.hidden != HIDDEN
            || net.buckets != BUCKETS
        {
            return Err(format!(
                "a {} network of shape {}x{}x{}; this build evaluates chess with {INPUTS}x{HIDDEN}x{BUCKETS} (or {}x{HIDDEN}x{BUCKETS}, by king bucket)",
                net.game,
                net.inputs,
                net.hidden,
                net.buckets,
                KING_BUCKETS * INPUTS
            ));
        }
        let psqt = if net.psqt.is_empty() {
            vec![0; net.inputs * BUCKETS]
        } else {
            net.psqt.clone()
        };
        Ok(Net {
            w1: net.w1.clone(),
            b1: net.b1.clone(),
            psqt,
            kings,
            net,
        })
    }

    /// The frame of perspective `persp` on `board`: its king's, or the one frame of a network
    /// without king buckets.
    #[inline(always)]
    pub fn frame(&self, persp: Color, king: Square) -> Frame {
        if self.kings {
            king_frame(persp, king)
        } else {
            Frame::default()
        }
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

    /// One side's accumulator from scratch (after its king changed frame), in place.
    pub fn refresh_side(&self, acc: &mut Accumulator, side: Color, board: &Board) {
        self.refresh_side_at(simd::level(), acc, side, board)
    }

    /// Applies a move's changes: pieces `removed` and `added`, (colour, piece, square), each
    /// side in the frame its accumulator records (a side whose king changed frame is then
    /// refreshed: `refresh_side`).
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

    /// `refresh` with the kernels of `level` (a token from detection: `simd::Level::available`,
    /// so any the caller holds is one the processor runs).
    pub fn refresh_at(&self, level: Level, board: &Board) -> Accumulator {
        let mut acc = Accumulator::zero();
        for side in [Color::White, Color::Black] {
            self.refresh_side_at(level, &mut acc, side, board);
        }
        acc
    }

    /// `refresh_side` with the kernels of `level` (one the processor has).
    pub fn refresh_side_at(&self, level: Level, acc: &mut Accumulator, side: Color, board: &Board) {
        #[cfg(target_arch = "x86_64")]
        match level.vector() {
            // SAFETY (both arms): a `Level` is made only by `simd`'s detection and only ever
            // lowered, so the processor has the features of `level.vector()`.
            Vector::Avx512 => return unsafe { self.refresh_avx512(acc, side, board) },
            Vector::Avx2 => return unsafe { self.refresh_avx2(acc, side, board) },
            Vector::Scalar => {}
        }
        let _ = level;
        self.refresh_generic(acc, side, board)
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
        match level.vector() {
            // SAFETY (both arms): as in `refresh_at`.
            Vector::Avx512 => return unsafe { self.update_avx512(acc, removed, added) },
            Vector::Avx2 => return unsafe { self.update_avx2(acc, removed, added) },
            Vector::Scalar => {}
        }
        let _ = level;
        self.update_generic(acc, removed, added)
    }

    /// `evaluate` with the kernels of `level` (one the processor has).
    pub fn evaluate_at(&self, level: Level, acc: &Accumulator, board: &Board) -> i32 {
        #[cfg(target_arch = "x86_64")]
        match level.vector() {
            // SAFETY (both arms): as in `refresh_at`.
            Vector::Avx512 => return unsafe { self.evaluate_avx512(acc, board) },
            Vector::Avx2 => return unsafe { self.evaluate_avx2(acc, board) },
            Vector::Scalar => {}
        }
        let _ = level;
        self.evaluate_generic(acc, board)
    }

    #[inline(always)]
    fn refresh_generic(&self, acc: &mut Accumulator, side: Color, board: &Board) {
        let frame = self.frame(side, board.king(side));
        acc.frame[side as usize] = frame;
        let a = &mut acc.v[side as usize];
        let ps = &mut acc.psqt[side as usize];
        a.copy_from_slice(&self.b1);
        ps.fill(0);
        for sq in board.occupied() {
            if let (Some(p), Some(c)) = (board.piece_on(sq), board.color_on(sq)) {
                let f = feature_in(frame, side, c, p, sq);
                add(a, self.row(f));
                add_psqt(ps, self.psqt_row(f));
            }
        }
    }

    #[inline(always)]
    fn update_generic(
        &self,
        acc: &mut Accumulator,
        removed: &[(Color, Piece, Square)],
        added: &[(Color, Piece, Square)],
    ) {
        for side in [Color::White, Color::Black] {
            let frame = acc.frame[side as usize];
            let a = &mut acc.v[side as usize];
            let ps = &mut acc.psqt[side as usize];
            for &(c, p, s) in removed {
                let f = feature_in(frame, side, c, p, s);
                sub(a, self.row(f));
                sub_psqt(ps, self.psqt_row(f));
            }
            for &(c, p, s) in added {
                let f = feature_in(frame, side, c, p, s);
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
    fn refresh_avx2(&self, acc: &mut Accumulator, side: Color, board: &Board) {
        self.refresh_generic(acc, side, board)
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
    fn refresh_avx512(&self, acc: &mut Accumulator, side: Color, board: &Board) {
        self.refresh_generic(acc, side, board)
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
    /// The frame each perspective's cells were built in.
    pub frame: [Frame; 2],
}

impl Accumulator {
    pub fn zero() -> Accumulator {
        Accumulator {
            v: [[0; HIDDEN]; 2],
            psqt: [[0; BUCKETS]; 2],
            frame: [Frame::default(); 2],
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

/// A square as perspective `persp` sees it (flipped vertically for Black).
#[inline(always)]
fn relative(persp: Color, sq: Square) -> usize {
    if persp == Color::White {
        sq as usize
    } else {
        sq as usize ^ 56
    }
}

/// The input of a piece for perspective `persp` of a 768-input network.
#[inline(always)]
pub fn feature(persp: Color, color: Color, piece: Piece, sq: Square) -> usize {
    feature_in(Frame::default(), persp, color, piece, sq)
}

/// The input of a piece for perspective `persp` seeing the board in `frame`.
#[inline(always)]
pub fn feature_in(frame: Frame, persp: Color, color: Color, piece: Piece, sq: Square) -> usize {
    frame.base as usize
        + 384 * usize::from(color != persp)
        + 64 * piece as usize
        + (relative(persp, sq) ^ frame.flip as usize)
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
mod tests;
