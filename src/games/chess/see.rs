//! Static exchange evaluation: the material balance of the captures on one square, each side
//! recapturing with its least valuable piece and free to stop, answered as "at least this
//! much?" (the swap algorithm; x-ray attackers appear as pieces leave; pins are ignored).

use super::Chess;
use cozy_chess::{
    BitBoard, Color, Move, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_pawn_attacks, get_rook_moves,
};

/// Exchange values for the static exchange evaluation (the king's is never captured); move
/// ordering has its own table, `ORDER_VALUE` in chess/mod.rs (why: there).
pub const VALUE: [i32; 6] = [100, 320, 330, 500, 950, 0];

fn attackers(c: &Chess, sq: Square, occ: BitBoard) -> BitBoard {
    let b = &c.board;
    let pawns = b.pieces(Piece::Pawn);
    let diag = b.pieces(Piece::Bishop) | b.pieces(Piece::Queen);
    let line = b.pieces(Piece::Rook) | b.pieces(Piece::Queen);
    (get_pawn_attacks(sq, Color::Black) & pawns & b.colors(Color::White))
        | (get_pawn_attacks(sq, Color::White) & pawns & b.colors(Color::Black))
        | (get_knight_moves(sq) & b.pieces(Piece::Knight))
        | (get_king_moves(sq) & b.pieces(Piece::King))
        | (get_bishop_moves(sq, occ) & diag)
        | (get_rook_moves(sq, occ) & line)
}

pub fn see_ge(c: &Chess, mv: Move, threshold: i32) -> bool {
    let b = &c.board;
    if c.is_castle(mv) {
        return threshold <= 0;
    }
    let value = |sq: Square| b.piece_on(sq).map_or(0, |p| VALUE[p as usize]);
    let mut swap = value(mv.to) - threshold;
    if swap < 0 {
        return false;
    }
    swap = value(mv.from) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = b.occupied() ^ mv.from.bitboard() | mv.to.bitboard();
    let mut stm = b.side_to_move();
    let mut att = attackers(c, mv.to, occ);
    let diag = b.pieces(Piece::Bishop) | b.pieces(Piece::Queen);
    let line = b.pieces(Piece::Rook) | b.pieces(Piece::Queen);
    let mut res = true;
    loop {
        stm = !stm;
        att &= occ;
        let mine = att & b.colors(stm);
        if mine.is_empty() {
            break;
        }
        res = !res;
        let mut found = None;
        for p in Piece::ALL {
            let set = mine & b.pieces(p);
            if let Some(sq) = set.next_square() {
                found = Some((p, sq));
                break;
            }
        }
        let Some((p, sq)) = found else { break };
        if p == Piece::King {
            // The king may take last only if nothing defends the square.
            return if (att & !b.colors(stm)).is_empty() {
                res
            } else {
                !res
            };
        }
        swap = VALUE[p as usize] - swap;
        if swap < res as i32 {
            break;
        }
        occ ^= sq.bitboard();
        if matches!(p, Piece::Pawn | Piece::Bishop | Piece::Queen) {
            att |= get_bishop_moves(mv.to, occ) & diag;
        }
        if matches!(p, Piece::Rook | Piece::Queen) {
            att |= get_rook_moves(mv.to, occ) & line;
        }
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Notation;

    /// (fen, move, what it exercises, exchange value): hand-checked swaps.
    const TABLE: &[(&str, &str, &str, i32)] = &[
        (
            "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1",
            "e1e5",
            "rook takes a defended-by-nothing pawn",
            100,
        ),
        (
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            "d3e5",
            "knight takes pawn, loses knight",
            -220,
        ),
        (
            "4R3/2r3p1/5bk1/1p1r3p/p2PR1P1/P1BK1P2/1P6/8 b - - 0 1",
            "h5g4",
            "pawn takes pawn, recaptured",
            0,
        ),
        (
            "4r1k1/5pp1/nbp4p/1p2p2q/1P2P1b1/1BP2N1P/1B2QPPK/3R4 b - - 0 1",
            "g4f3",
            "bishop takes knight, queen recaptures",
            -10,
        ),
        (
            "6k1/1pp4p/p1pb4/6q1/3P1pRr/2P4P/PP1Br1P1/5RKN w - - 0 1",
            "f1f4",
            "rook takes a pawn; bishops, queen and an x-rayed rook join in",
            -70,
        ),
    ];

    fn exchange(fen: &str, mv: &str) -> i32 {
        let pos = Chess::default().parse_fen(fen).unwrap();
        let m = pos.parse_move(mv).unwrap();
        // The largest threshold that still holds.
        let mut lo = -2000;
        while lo < 2000 && see_ge(&pos, m, lo + 1) {
            lo += 1;
        }
        lo
    }

    #[test]
    fn exchange_table() {
        for &(fen, mv, what, value) in TABLE {
            assert_eq!(exchange(fen, mv), value, "{what}: {fen} {mv}");
        }
    }
}
