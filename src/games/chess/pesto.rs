//! Chess evaluation in centipawns from the side to move: PeSTO's tapered material and
//! piece-square tables, a bishop-pair bonus, a tempo bonus, and a pull towards a draw when
//! the stronger side cannot have mating material (scaled endgames).

use super::pst::{EG_TABLE, EG_VALUE, MG_TABLE, MG_VALUE, PHASE_INC};
use cozy_chess::{Board, Color, Piece};

const TEMPO: i32 = 10;
const BISHOP_PAIR: (i32, i32) = (25, 45);

pub fn evaluate(board: &Board) -> i32 {
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let flip = if color == Color::White { 56 } else { 0 };
        let ours = board.colors(color);
        for piece in Piece::ALL {
            let p = piece as usize;
            let set = ours & board.pieces(piece);
            for sq in set {
                let i = sq as usize ^ flip;
                mg += sign * (MG_VALUE[p] + MG_TABLE[p][i]);
                eg += sign * (EG_VALUE[p] + EG_TABLE[p][i]);
                phase += PHASE_INC[p];
            }
        }
        if (ours & board.pieces(Piece::Bishop)).len() >= 2 {
            mg += sign * BISHOP_PAIR.0;
            eg += sign * BISHOP_PAIR.1;
        }
    }
    let mg_phase = phase.min(24);
    let score = (mg * mg_phase + eg * (24 - mg_phase)) / 24;
    let stm = if board.side_to_move() == Color::White {
        score
    } else {
        -score
    };
    scale_drawish(board, stm) + TEMPO
}

/// A side without pawns and at most a minor piece more cannot win: pulls the score (from the
/// side to move, either evaluation's) towards zero.
pub fn scale_drawish(board: &Board, score: i32) -> i32 {
    let us = board.side_to_move();
    let strong = if score > 0 { us } else { !us };
    let strong_pawns = (board.colors(strong) & board.pieces(Piece::Pawn)).len();
    if strong_pawns == 0 {
        let material = |c: Color| {
            let o = board.colors(c);
            3 * ((o & board.pieces(Piece::Knight)).len() + (o & board.pieces(Piece::Bishop)).len())
                + 5 * (o & board.pieces(Piece::Rook)).len()
                + 9 * (o & board.pieces(Piece::Queen)).len()
        };
        if material(strong) <= material(!strong) + 3 {
            return score / 8;
        }
    }
    score
}
