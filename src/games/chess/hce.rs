//! Chess's tuned evaluation: a linear function of hand-chosen features (material and piece
//! squares, mobility, pawn structure, passed pawns, king safety, threats) whose weights are
//! learned from tabula's own games (`tabula train --model hce`: Texel's method, the logistic
//! fit of game results and search scores), tapered between a middlegame and an endgame set
//! of weights by the material on the board (phase 0..24: knight and bishop 1, rook 2, queen 4).
//!
//! Inputs: `SIDE` for each side, the side to move's first (`0..SIDE`), the other side's after
//! (`SIDE..2 * SIDE`). Each half describes its side from that side's own end of the board
//! (Black's squares flipped with `^ 56`, ranks counted from its own first rank). An input may
//! be active more than once: it then counts as often (doubled pawns, threats). King attack is
//! a thermometer: every level up to the attack's is active, so each weight is the step from
//! the level below.
//!
//! Weights (`Hce`): a linear model of the weight file (`learn::network`, hidden 0), bucket 0
//! the middlegame's (its share is phase / 24), bucket 1 the endgame's, `QLOGIT` per logit of
//! `SCALE` centipawns. The same `features` function labels the training data and evaluates
//! in the engine.

use super::Chess;
use super::learn::board_from_packed;
use crate::learn::Features;
use crate::learn::network::{Network, QLOGIT, SCALE};
use cozy_chess::{
    BitBoard, Board, Color, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_rook_moves,
};
use std::sync::OnceLock;

// Offsets of the feature groups within a side's half.
const PSQ: usize = 0; // piece * 64 + square
const MOB_KNIGHT: usize = PSQ + 384; // 0..=8 squares
const MOB_BISHOP: usize = MOB_KNIGHT + 9; // 0..=13
const MOB_ROOK: usize = MOB_BISHOP + 14; // 0..=14
const MOB_QUEEN: usize = MOB_ROOK + 15; // 0..=27
const PASSED: usize = MOB_QUEEN + 28; // by rank
const PASSED_FREE: usize = PASSED + 8; // by rank, the square in front empty
const PASSED_OWN_KING: usize = PASSED_FREE + 8; // own king's distance to the square in front
const PASSED_ENEMY_KING: usize = PASSED_OWN_KING + 8; // the enemy king's
const CONNECTED: usize = PASSED_ENEMY_KING + 8; // by rank: defended by a pawn or beside one
const DOUBLED: usize = CONNECTED + 8;
const ISOLATED: usize = DOUBLED + 1;
const SHIELD: usize = ISOLATED + 1; // pawns in front of the king, 0..=3
const KING_OPEN: usize = SHIELD + 4; // the king's file has none of its pawns
const KING_ATTACK: usize = KING_OPEN + 1; // thermometer of attack units on the enemy king zone
const KING_ATTACK_LEVELS: usize = 40;
const ROOK_OPEN: usize = KING_ATTACK + KING_ATTACK_LEVELS;
const ROOK_SEMI_OPEN: usize = ROOK_OPEN + 1;
const BISHOP_PAIR: usize = ROOK_SEMI_OPEN + 1;
const THREAT_PAWN: usize = BISHOP_PAIR + 1; // enemy pieces attacked by pawns
const THREAT_MINOR: usize = THREAT_PAWN + 1; // enemy rooks and queens attacked by minors
const THREAT_ROOK: usize = THREAT_MINOR + 1; // enemy queens attacked by rooks
const HANGING: usize = THREAT_ROOK + 1; // enemy pieces attacked and not defended
/// Inputs per side.
pub const SIDE: usize = HANGING + 1;
pub const INPUTS: usize = 2 * SIDE;
/// Middlegame and endgame.
pub const BUCKETS: usize = 2;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

fn pawn_attacks(pawns: u64, color: Color) -> u64 {
    match color {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
    }
}

fn adjacent_files(file: usize) -> u64 {
    let f = FILE_A << file;
    ((f << 1) & !FILE_A) | ((f >> 1) & !FILE_H)
}

/// Squares strictly in front of `rank` from `color`'s side.
fn ahead(rank: usize, color: Color) -> u64 {
    match color {
        Color::White => {
            if rank >= 7 {
                0
            } else {
                !0u64 << (8 * (rank + 1))
            }
        }
        Color::Black => (1u64 << (8 * rank)) - 1,
    }
}

fn distance(a: usize, b: usize) -> usize {
    let (fa, ra, fb, rb) = (a % 8, a / 8, b % 8, b / 8);
    fa.abs_diff(fb).max(ra.abs_diff(rb))
}

/// The material phase, 0 (bare kings and pawns) to 24 (all pieces).
pub fn phase(board: &Board) -> i32 {
    let n = |p: Piece| board.pieces(p).len() as i32;
    (n(Piece::Knight) + n(Piece::Bishop) + 2 * n(Piece::Rook) + 4 * n(Piece::Queen)).min(24)
}

/// What each side attacks, and with what.
struct Attacks {
    pawns: u64,
    all: u64,
}

/// Calls `emit` with every active input of `board` (see the top of the file).
pub fn features(board: &Board, mut emit: impl FnMut(usize)) {
    let stm = board.side_to_move();
    let occ = board.occupied().0;
    let pawns = board.pieces(Piece::Pawn).0;
    let mut att = [Attacks { pawns: 0, all: 0 }, Attacks { pawns: 0, all: 0 }];
    for c in [Color::White, Color::Black] {
        let p = pawns & board.colors(c).0;
        att[c as usize].pawns = pawn_attacks(p, c);
    }
    // First pass: every side's attacks (for hanging pieces), piece by piece.
    let attacks_of = |piece: Piece, sq: Square| -> u64 {
        match piece {
            Piece::Knight => get_knight_moves(sq).0,
            Piece::Bishop => get_bishop_moves(sq, BitBoard(occ)).0,
            Piece::Rook => get_rook_moves(sq, BitBoard(occ)).0,
            Piece::Queen => {
                get_bishop_moves(sq, BitBoard(occ)).0 | get_rook_moves(sq, BitBoard(occ)).0
            }
            Piece::King => get_king_moves(sq).0,
            Piece::Pawn => 0,
        }
    };
    for c in [Color::White, Color::Black] {
        let mut all = att[c as usize].pawns;
        for sq in board.colors(c) & !board.pieces(Piece::Pawn) {
            if let Some(p) = board.piece_on(sq) {
                all |= attacks_of(p, sq);
            }
        }
        att[c as usize].all = all;
    }
    for c in [Color::White, Color::Black] {
        let base = if c == stm { 0 } else { SIDE };
        let mut emit = |f: usize| emit(base + f);
        let them = !c;
        let ours = board.colors(c).0;
        let theirs = board.colors(them).0;
        let flip = if c == Color::White { 0 } else { 56 };
        let rel_rank = |sq: usize| (sq ^ flip) / 8;
        let our_pawns = pawns & ours;
        let their_pawns = pawns & theirs;
        let our_king = board.king(c) as usize;
        let their_king = board.king(them) as usize;
        let zone = get_king_moves(Square::index(their_king)).0 | (1u64 << their_king);
        let area = !ours & !att[them as usize].pawns;
        let mut king_units = 0usize;
        for piece in Piece::ALL {
            for sq in board.colors(c) & board.pieces(piece) {
                let s = sq as usize;
                emit(PSQ + 64 * piece as usize + (s ^ flip));
                let a = attacks_of(piece, sq);
                let mob = (a & area).count_ones() as usize;
                let (group, units) = match piece {
                    Piece::Knight => (Some(MOB_KNIGHT), 2),
                    Piece::Bishop => (Some(MOB_BISHOP), 2),
                    Piece::Rook => (Some(MOB_ROOK), 3),
                    Piece::Queen => (Some(MOB_QUEEN), 5),
                    _ => (None, 0),
                };
                if let Some(g) = group {
                    emit(g + mob);
                    king_units += units * (a & zone).count_ones() as usize;
                }
                match piece {
                    Piece::Knight | Piece::Bishop => {
                        let targets = a
                            & theirs
                            & (board.pieces(Piece::Rook).0 | board.pieces(Piece::Queen).0);
                        for _ in 0..targets.count_ones() {
                            emit(THREAT_MINOR);
                        }
                    }
                    Piece::Rook => {
                        let file = FILE_A << (s % 8);
                        if file & pawns == 0 {
                            emit(ROOK_OPEN);
                        } else if file & our_pawns == 0 {
                            emit(ROOK_SEMI_OPEN);
                        }
                        if a & theirs & board.pieces(Piece::Queen).0 != 0 {
                            emit(THREAT_ROOK);
                        }
                    }
                    _ => {}
                }
            }
        }
        for level in 0..king_units.min(KING_ATTACK_LEVELS) {
            emit(KING_ATTACK + level);
        }
        // Pawns.
        for sq in BitBoard(our_pawns) {
            let s = sq as usize;
            let (file, rank) = (s % 8, s / 8);
            let front = ahead(rank, c);
            let file_mask = FILE_A << file;
            let adj = adjacent_files(file);
            let r = rel_rank(s);
            if their_pawns & front & (file_mask | adj) == 0 {
                emit(PASSED + r);
                let stop = if c == Color::White {
                    s + 8
                } else {
                    s.wrapping_sub(8)
                };
                if stop < 64 {
                    if occ >> stop & 1 == 0 {
                        emit(PASSED_FREE + r);
                    }
                    emit(PASSED_OWN_KING + distance(our_king, stop));
                    emit(PASSED_ENEMY_KING + distance(their_king, stop));
                }
            }
            if our_pawns & front & file_mask != 0 {
                emit(DOUBLED);
            }
            if our_pawns & adj == 0 {
                emit(ISOLATED);
            }
            let beside = adj & (0xFFu64 << (8 * rank));
            if att[c as usize].pawns >> s & 1 == 1 || our_pawns & beside != 0 {
                emit(CONNECTED + r);
            }
        }
        // King shelter.
        let (kf, kr) = (our_king % 8, our_king / 8);
        let files = (FILE_A << kf) | adjacent_files(kf);
        let ranks = match c {
            Color::White => (0xFFFFu64 << (8 * (kr + 1).min(7))) & ahead(kr, c),
            Color::Black => (0xFFFFu64 << (8 * kr.saturating_sub(2))) & ahead(kr, c),
        };
        emit(SHIELD + ((our_pawns & files & ranks).count_ones() as usize).min(3));
        if our_pawns & (FILE_A << kf) == 0 {
            emit(KING_OPEN);
        }
        if (board.colors(c) & board.pieces(Piece::Bishop)).len() >= 2 {
            emit(BISHOP_PAIR);
        }
        let their_pieces = theirs & !pawns & !board.pieces(Piece::King).0;
        for _ in 0..(att[c as usize].pawns & their_pieces).count_ones() {
            emit(THREAT_PAWN);
        }
        for _ in 0..(att[c as usize].all & their_pieces & !att[them as usize].all).count_ones() {
            emit(HANGING);
        }
    }
}

/// The tuned weights, as the engine evaluates with them.
pub struct Hce {
    net: Network,
}

impl std::fmt::Debug for Hce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hce({} inputs)", self.net.inputs)
    }
}

impl Hce {
    pub fn from_bytes(bytes: &[u8]) -> Result<Hce, String> {
        let net = Network::from_bytes(bytes)?;
        if net.game != "chess" || net.hidden != 0 || net.inputs != INPUTS || net.buckets != BUCKETS
        {
            return Err(format!(
                "a {} model of shape {}x{}x{}; this build's tuned evaluation has {INPUTS} inputs x {BUCKETS} phases",
                net.game, net.inputs, net.hidden, net.buckets
            ));
        }
        Ok(Hce { net })
    }

    /// The evaluation in centipawns from the side to move.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let w = &self.net.w1;
        let (mg_w, eg_w) = w.split_at(INPUTS);
        let (mut mg, mut eg) = (self.net.b2[0], self.net.b2[1]);
        features(board, |f| {
            mg += mg_w[f] as i32;
            eg += eg_w[f] as i32;
        });
        let p = phase(board);
        let blended = (mg as i64 * p as i64 + eg as i64 * (24 - p) as i64) / 24;
        (blended * SCALE as i64 / QLOGIT as i64) as i32
    }
}

/// The weights built into the engine (`weights/chess-hce.bin`, made by the commands in
/// `protocol/learning.md`); `None` if they do not fit this build's inputs (a test checks
/// that they do).
pub fn embedded() -> Option<&'static Hce> {
    static EMBEDDED: OnceLock<Option<Hce>> = OnceLock::new();
    EMBEDDED
        .get_or_init(|| Hce::from_bytes(include_bytes!("../../../weights/chess-hce.bin")).ok())
        .as_ref()
}

/// The tuned evaluation's inputs, for `tabula train --model hce`.
pub struct HceInputs;

impl Features<Chess> for HceInputs {
    const MODEL: &'static str = "hce";
    const INPUTS: usize = INPUTS;
    const LINEAR: bool = true;
    const BUCKETS: usize = BUCKETS;

    fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>) {
        us.clear();
        them.clear();
        if let Ok(board) = board_from_packed(packed) {
            features(&board, |f| us.push(f as u32));
        }
    }

    fn bucket(packed: &[u8]) -> (usize, f32) {
        match board_from_packed(packed) {
            Ok(board) => (0, phase(&board) as f32 / 24.0),
            Err(_) => (0, 1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Notation;

    fn active(fen: &str) -> Vec<usize> {
        let pos = Chess::default().parse_fen(fen).unwrap();
        let mut v = Vec::new();
        features(&pos.board, |f| v.push(f));
        v
    }

    /// A position and its colour-flipped mirror (the other side to move) have the same
    /// inputs: each half describes its side from its own end of the board.
    #[test]
    fn colour_flip_gives_the_same_inputs() {
        for (fen, flipped) in [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1",
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                "8/4p1p1/8/1r3P1K/kp5R/3P4/2P5/8 b - - 0 1",
            ),
        ] {
            let mut a = active(fen);
            let mut b = active(flipped);
            a.sort();
            b.sort();
            assert_eq!(a, b, "{fen}");
        }
    }

    #[test]
    fn the_embedded_weights_fit_this_build() {
        assert!(embedded().is_some());
    }

    /// Named inputs where a position has them, counted as often as they occur.
    #[test]
    fn inputs_count_what_they_name() {
        let count = |v: &[usize], f: usize| v.iter().filter(|&&x| x == f).count();
        // White (to move): doubled c-pawns, isolated; a passer on e6 with e7 empty.
        let v = active("4k3/8/4P3/8/2P5/2P5/8/4K3 w - - 0 1");
        assert_eq!(count(&v, DOUBLED), 1);
        assert_eq!(count(&v, ISOLATED), 3);
        assert_eq!(count(&v, PASSED + 5), 1);
        assert_eq!(count(&v, PASSED_FREE + 5), 1);
        // A knight attacked by a pawn and not defended: a pawn threat and a hanging piece for
        // the side to move (Black); bishop pair for White.
        let v = active("4k3/8/8/3p4/4N3/8/8/2B1KB2 b - - 0 1");
        assert_eq!(count(&v, THREAT_PAWN), 1);
        assert_eq!(count(&v, HANGING), 1);
        assert_eq!(count(&v, SIDE + BISHOP_PAIR), 1);
    }
}
