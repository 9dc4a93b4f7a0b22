//! Midgame evaluation for Othello, from the side to move, in hundredths of a disc: mobility,
//! potential mobility (empty squares next to the opponent's discs), corners, X- and C-squares
//! next to empty corners, edge-anchored stable discs, and the disc count late in the game.

use super::Othello;
use crate::bits::Bits;

pub fn evaluate<B: Bits>(p: &Othello<B>) -> i32 {
    let g = &p.geo;
    let (me, opp) = (p.me, p.opp);
    let empty = g.all & !(me | opp);
    let my_moves = g.moves(me, opp).count() as i32;
    let opp_moves = g.moves(opp, me).count() as i32;
    let mobility = 100 * (my_moves - opp_moves) / (my_moves + opp_moves + 2);
    let potential =
        (g.neighbours(opp) & empty).count() as i32 - (g.neighbours(me) & empty).count() as i32;
    let corners = (me & g.corners).count() as i32 - (opp & g.corners).count() as i32;
    // X- and C-squares only hurt while the corner next to them is empty.
    let risky = |who: B| -> i32 {
        let mut s = 0;
        let mut x = who & (g.x_squares | g.c_squares);
        while !x.is_zero() {
            let sq = x.lowest();
            x = x.without_lowest();
            let near_corner = g.neighbours(B::one_at(sq)) & g.corners;
            if !(near_corner & empty).is_zero() {
                s += if (B::one_at(sq) & g.x_squares).is_zero() {
                    1
                } else {
                    3
                };
            }
        }
        s
    };
    let stable = g.edge_stable(me).count() as i32 - g.edge_stable(opp).count() as i32;
    let total = g.all.count() as i32;
    let filled = total - empty.count() as i32;
    let discs = me.count() as i32 - opp.count() as i32;
    let late = (filled * 100 / total - 60).max(0);
    3 * mobility + 40 * potential / 4 + 800 * corners - 150 * (risky(me) - risky(opp))
        + 120 * stable
        + late * discs / 4
}
