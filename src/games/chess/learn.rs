//! Chess in the learning pipeline: the 32-byte packed position of the data files.
//!
//! Layout: occupancy (u64, bit i = square i, a1 = 0, h8 = 63); one 4-bit code per occupied
//! square in increasing square order, low nibble first (piece 0..5 = pawn..king, +6 for black;
//! 16 bytes hold all 32 pieces); side to move (0 white, 1 black); en-passant file (0..7, 8
//! none); castling rook files as nibbles (white short, white long, black short, black long; 8
//! none); halfmove clock; fullmove number (u16); one reserved zero byte.

use super::{Chess, nnue};
use crate::learn::{Features, Learn, network};
use cozy_chess::{BitBoard, Board, BoardBuilder, CastleRights, Color, File, Piece, Rank, Square};

/// The packed piece codes of a packed position: (square, piece, colour) for each piece.
pub fn packed_pieces(bytes: &[u8]) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let occ = u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]));
    BitBoard(occ).into_iter().enumerate().map(move |(i, sq)| {
        let code = (bytes[8 + i / 2] >> ((i % 2) * 4)) & 15;
        (sq as usize, (code % 6) as usize, (code / 6) as usize)
    })
}

/// The side to move of a packed position (0 white, 1 black).
pub fn packed_side(bytes: &[u8]) -> usize {
    bytes[24] as usize & 1
}

fn file_nibble(f: Option<File>) -> u8 {
    f.map_or(8, |f| f as u8)
}

fn nibble_file(n: u8) -> Result<Option<File>, String> {
    match n {
        0..=7 => Ok(Some(File::index(n as usize))),
        8 => Ok(None),
        _ => Err(format!("packed castling file {n}")),
    }
}

/// The network's inputs (`nnue`): for `tabula train --model nnue`.
pub struct NnueInputs;

impl Features<Chess> for NnueInputs {
    const MODEL: &'static str = "nnue";
    const INPUTS: usize = nnue::INPUTS;
    const LINEAR: bool = false;
    const BUCKETS: usize = nnue::BUCKETS;

    fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>) {
        us.clear();
        them.clear();
        let stm = if packed_side(packed) == 0 {
            Color::White
        } else {
            Color::Black
        };
        for (sq, piece, color) in packed_pieces(packed) {
            let (sq, piece) = (Square::index(sq), Piece::index(piece.min(5)));
            let color = if color == 0 {
                Color::White
            } else {
                Color::Black
            };
            us.push(nnue::feature(stm, color, piece, sq) as u32);
            them.push(nnue::feature(!stm, color, piece, sq) as u32);
        }
    }

    fn bucket(packed: &[u8]) -> (usize, f32) {
        let occ = u64::from_le_bytes(packed[..8].try_into().unwrap_or([0; 8]));
        (nnue::bucket_of(occ.count_ones() as usize), 1.0)
    }

    /// The board mirrored left to right (file a <-> h): the square's file is the input's low
    /// three bits (`nnue::feature`). Castling rights, which the inputs do not see, are the
    /// only rule it ignores; on 638 k positions of self-play it lowered the held-out loss of
    /// the 768 -> 128 network from 0.02478 to 0.02273 (protocol/learning.md).
    fn mirror(us: &mut [u32], them: &mut [u32]) {
        us.iter_mut().chain(them.iter_mut()).for_each(|f| *f ^= 7);
    }
}

/// The network's inputs by king bucket (`nnue::king_frame`): for `tabula train --model
/// nnue-kings`. A position and its mirror image have the same inputs (each side sees the board
/// with its king on files a-d), so there is no mirror to show the trainer.
///
/// In training each piece also activates a factor: one more set of 768 inputs (the last),
/// shared by every bucket, that learns what the buckets have in common from all the data,
/// while each bucket's own rows learn only its difference; the file the engine reads has the
/// factor folded into every bucket (`export`). On 11 M positions the buckets' held-out loss
/// rose from the first epoch with the factor or without (protocol/learning.md).
pub struct NnueKingInputs;

/// Where the factor's inputs start (after the buckets').
const FACTOR: usize = nnue::KING_BUCKETS * nnue::INPUTS;

impl Features<Chess> for NnueKingInputs {
    const MODEL: &'static str = "nnue-kings";
    const INPUTS: usize = FACTOR + nnue::INPUTS;
    const LINEAR: bool = false;
    const BUCKETS: usize = nnue::BUCKETS;

    fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>) {
        us.clear();
        them.clear();
        let colour = |c: usize| if c == 0 { Color::White } else { Color::Black };
        let stm = colour(packed_side(packed));
        let mut kings = [Square::A1; 2];
        for (sq, piece, color) in packed_pieces(packed) {
            if piece == 5 {
                kings[color.min(1)] = Square::index(sq);
            }
        }
        let frame = |p: Color| nnue::king_frame(p, kings[p as usize]);
        let (fu, ft) = (frame(stm), frame(!stm));
        for (sq, piece, color) in packed_pieces(packed) {
            let (sq, piece, color) = (Square::index(sq), Piece::index(piece.min(5)), colour(color));
            for (out, f, side) in [(&mut *us, fu, stm), (&mut *them, ft, !stm)] {
                let i = nnue::feature_in(f, side, color, piece, sq);
                out.push(i as u32);
                out.push((FACTOR + i % nnue::INPUTS) as u32);
            }
        }
    }

    fn bucket(packed: &[u8]) -> (usize, f32) {
        NnueInputs::bucket(packed)
    }

    /// A file the engine reads in the trainer's layout: a 768-input network
    /// (`--init weights/chess-nnue.bin`) as the factor with empty buckets, which evaluates as
    /// it did (a perspective with its king on files e-h then reads the mirror image's weights,
    /// which the mirrored training of the 768-input network made nearly the same); a
    /// king-bucketed one as its buckets with an empty factor.
    fn upgrade(mut net: network::Network) -> network::Network {
        if net.game != "chess" || net.hidden == 0 {
            return net;
        }
        let (h, b) = (net.hidden, net.buckets);
        let pad = |v: &mut Vec<i16>, per: usize, inputs: usize, front: bool| {
            if v.len() == inputs * per {
                let zeros = vec![0; (Self::INPUTS - inputs) * per];
                *v = if front {
                    [zeros, v.clone()]
                } else {
                    [v.clone(), zeros]
                }
                .concat();
            }
        };
        match net.inputs {
            nnue::INPUTS => {
                pad(&mut net.w1, h, nnue::INPUTS, true);
                pad(&mut net.psqt, b, nnue::INPUTS, true);
            }
            FACTOR => {
                pad(&mut net.w1, h, FACTOR, false);
                pad(&mut net.psqt, b, FACTOR, false);
            }
            _ => return net,
        }
        net.inputs = Self::INPUTS;
        net
    }

    /// The factor folded into every bucket: the `KING_BUCKETS * 768` inputs the engine reads.
    fn export(mut net: network::Network) -> network::Network {
        if net.inputs != Self::INPUTS {
            return net;
        }
        let fold = |v: &[i16], per: usize| -> Vec<i16> {
            let (buckets, factor) = v.split_at(FACTOR * per);
            buckets
                .chunks_exact(nnue::INPUTS * per)
                .flat_map(|rows| rows.iter().zip(factor).map(|(a, b)| a.saturating_add(*b)))
                .collect()
        };
        net.w1 = fold(&net.w1, net.hidden);
        if !net.psqt.is_empty() {
            net.psqt = fold(&net.psqt, net.buckets);
        }
        net.inputs = FACTOR;
        net
    }
}

impl Learn for Chess {
    const PACKED: usize = 32;

    fn dims(&self) -> (u16, u16) {
        (8, 8)
    }

    fn pack(&self, out: &mut [u8]) {
        out[..32].fill(0);
        let b = &self.board;
        out[..8].copy_from_slice(&b.occupied().0.to_le_bytes());
        for (i, sq) in b.occupied().into_iter().enumerate().take(32) {
            let piece = b.piece_on(sq).map_or(0, |p| p as u8);
            let black = u8::from(b.color_on(sq) == Some(Color::Black));
            out[8 + i / 2] |= (piece + 6 * black) << ((i % 2) * 4);
        }
        out[24] = u8::from(b.side_to_move() == Color::Black);
        out[25] = file_nibble(b.en_passant());
        let w = b.castle_rights(Color::White);
        let k = b.castle_rights(Color::Black);
        out[26] = file_nibble(w.short) | (file_nibble(w.long) << 4);
        out[27] = file_nibble(k.short) | (file_nibble(k.long) << 4);
        out[28] = b.halfmove_clock();
        out[29..31].copy_from_slice(&b.fullmove_number().to_le_bytes());
    }

    fn unpack(&self, bytes: &[u8]) -> Result<Self, String> {
        let board = board_from_packed(bytes)?;
        Ok(Chess::with(board, self.chess960, self.eval))
    }
}

/// The board of a packed position.
pub fn board_from_packed(bytes: &[u8]) -> Result<Board, String> {
    if bytes.len() < 32 {
        return Err("packed chess position: too short".into());
    }
    if u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8])).count_ones() > 32 {
        return Err("packed chess position: more than 32 pieces".into());
    }
    let mut bb = BoardBuilder::empty();
    for (sq, piece, color) in packed_pieces(bytes) {
        if piece > 5 || color > 1 {
            return Err("packed chess position: bad piece code".into());
        }
        let color = if color == 0 {
            Color::White
        } else {
            Color::Black
        };
        *bb.square_mut(Square::index(sq)) = Some((Piece::index(piece), color));
    }
    bb.side_to_move = if bytes[24] & 1 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let ep_rank = if bb.side_to_move == Color::White {
        Rank::Sixth
    } else {
        Rank::Third
    };
    bb.en_passant = nibble_file(bytes[25])?.map(|f| Square::new(f, ep_rank));
    bb.castle_rights[0] = CastleRights {
        short: nibble_file(bytes[26] & 15)?,
        long: nibble_file(bytes[26] >> 4)?,
    };
    bb.castle_rights[1] = CastleRights {
        short: nibble_file(bytes[27] & 15)?,
        long: nibble_file(bytes[27] >> 4)?,
    };
    bb.halfmove_clock = bytes[28];
    bb.fullmove_number = u16::from_le_bytes([bytes[29], bytes[30]]).max(1);
    let board: Board = bb
        .build()
        .map_err(|e| format!("packed chess position: {e}"))?;
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Notation, Rules};

    #[test]
    fn pack_round_trip() {
        for fen in [
            super::super::STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 17 60",
        ] {
            let pos = Chess::default().parse_fen(fen).unwrap();
            let mut buf = [0u8; 32];
            pos.pack(&mut buf);
            let back = pos.unpack(&buf).unwrap();
            assert_eq!(back.fen(), pos.fen());
            assert_eq!(back.hash(), pos.hash());
        }
    }
}
