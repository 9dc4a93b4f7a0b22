//! The 8x8 pattern evaluation's inputs, after Buro's Logistello: lines of squares whose
//! configuration (each square empty, the mover's or the opponent's) indexes a learned weight.
//! Thirteen pattern shapes (Logistello's eleven and two more, `EXTRA_SHAPES`), each placed in
//! all of its distinct images under the board's eight symmetries (54 instances), instances of
//! one shape sharing one table of `3^len` weights; and nine game phases (`phase`), each with
//! its own weights.
//!
//! Feature index of an instance: `offset[shape] + sum(3^i * state(square_i))`, state 0 empty,
//! 1 the side to move's disc, 2 the opponent's; the square order of an instance is the shape's
//! order carried through the symmetry, so a configuration and its mirror image share a weight.
//! Squares are `r * 8 + c`, row 0 at the top. The evaluation reads each instance's index
//! within its table (`Local`, 16 bits a lane, the offset added at the read): gathered for a
//! position (`local_indices`), or updated from the position before a move (`after`).
//!
//! Phases: weight sets at `BUCKETS` nodes every 7.5 discs from 4 to 64 discs; a position's
//! evaluation mixes the two nodes around its disc count linearly (`phase`), so that each set
//! learns from the positions of two phase intervals and the evaluation has no step between
//! phases.

use crate::simd::{self, Level};
use std::sync::OnceLock;

/// The shapes, as (row, column) cells of one canonical placement.
fn shapes() -> Vec<(&'static str, Vec<(i32, i32)>)> {
    let row = |r: i32| (0..8).map(|c| (r, c)).collect::<Vec<_>>();
    let diag = |len: i32| (0..len).map(|i| (i, i + 8 - len)).collect::<Vec<_>>();
    let mut edge = row(0);
    edge.extend([(1, 1), (1, 6)]);
    let mut shapes = vec![
        ("edge+2X", edge),
        (
            "corner 2x5",
            (0..2).flat_map(|r| (0..5).map(move |c| (r, c))).collect(),
        ),
        (
            "corner 3x3",
            (0..3).flat_map(|r| (0..3).map(move |c| (r, c))).collect(),
        ),
        ("row 2", row(1)),
        ("row 3", row(2)),
        ("row 4", row(3)),
        ("diagonal 8", diag(8)),
        ("diagonal 7", diag(7)),
        ("diagonal 6", diag(6)),
        ("diagonal 5", diag(5)),
        ("diagonal 4", diag(4)),
    ];
    if EXTRA_SHAPES {
        // Appended after Logistello's eleven, so that their tables keep their offsets and a
        // file of the eleven loads with these at zero (`widen_inputs`).
        shapes.extend([
            (
                "edge block",
                vec![
                    (0, 0),
                    (0, 2),
                    (0, 3),
                    (0, 4),
                    (0, 5),
                    (0, 7),
                    (1, 2),
                    (1, 3),
                    (1, 4),
                    (1, 5),
                ],
            ),
            (
                "triangle",
                vec![
                    (0, 0),
                    (0, 1),
                    (0, 2),
                    (0, 3),
                    (1, 0),
                    (1, 1),
                    (1, 2),
                    (2, 0),
                    (2, 1),
                    (3, 0),
                ],
            ),
        ]);
    }
    shapes
}

/// The eight symmetries of the square.
fn transform(t: usize, (r, c): (i32, i32)) -> (i32, i32) {
    match t {
        0 => (r, c),
        1 => (c, 7 - r),
        2 => (7 - r, 7 - c),
        3 => (7 - c, r),
        4 => (r, 7 - c),
        5 => (c, r),
        6 => (7 - r, c),
        _ => (7 - c, 7 - r),
    }
}

pub struct Layout {
    /// Per instance: its table's offset and its squares, in every order a symmetry of the
    /// board gives them (a shape that is its own mirror image, such as an edge, has two): the
    /// feature is the smallest index over these orders, so mirror images share weights.
    pub instances: Vec<(u32, Vec<Vec<u8>>)>,
    /// Weights per bucket.
    pub inputs: usize,
    /// Per instance, for `local_indices`: the mask of its squares and where its digits start in
    /// `digits`.
    gather: Vec<(u64, u32)>,
    /// Per instance and per subset of its squares (the subset written as the bits of its
    /// squares in ascending square order, as BMI2's `pext` gathers them): the sum of `3^i`
    /// over the subset's squares, `i` their places in the instance's first order.
    digits: Vec<u16>,
    /// Per instance, its table's offset (`instances[i].0`), for `Local` indices.
    pub offsets: [u32; INSTANCES],
    /// Per square, the digit of the square in each instance's first order (`3^place`, or 0
    /// where the instance does not hold the square): what a disc of the side to move there adds
    /// to a `Local` index (an opponent's disc adds twice that).
    digit_of: [Local; 64],
}

/// Each instance's index within its own table, in its first square order (without the
/// tables' offsets, `Layout::offsets`; below `3^10`, so 16 bits hold it), lanes of padding
/// (zero) after the instances to a multiple of eight: whole vectors, so that `after` is a few
/// vector adds.
pub type Local = [u16; LANES];
pub const LANES: usize = INSTANCES.next_multiple_of(8);

/// Pattern instances (`Layout::instances`).
pub const INSTANCES: usize = if EXTRA_SHAPES { 54 } else { 46 };

/// Two more shapes after Logistello's eleven, Edax's edge block (A1, C1-F1, H1, C2-F2) and
/// Egaroucid's triangle (A1-D1, A2-C2, A3-B3, A4), four instances each: 54 instances in 56
/// lanes. Fitted on the corpus (round 14, 16.6 M positions) the held-out loss is 4.2% below
/// round 10's (65.04 -> 62.31) and play +18.8 Elo at 100 ms (480 games, +1.9 discs a pair),
/// for 5-6% more time a node in the exact solver (FFO #40-#59: 2.3% fewer nodes, 3.3% more
/// time; protocol/learning.md, "Round 14"). Off: the eleven alone (weight files of the eleven
/// still load, the two tables at zero).
pub const EXTRA_SHAPES: bool = true;

/// A phase interval's width in half discs (7.5 discs). 5 (25 nodes, 2.5 discs apart) was
/// tried on the 9.6 M positions of the corpus: a 0.2% lower held-out loss, no better play
/// (protocol/learning.md, "Round 12"); weight files of other node counts load resampled.
pub const PHASE_STEP: i32 = 15;
/// Phase nodes from 4 to 64 discs (120 half discs), one every `PHASE_STEP`.
pub const BUCKETS: usize = (120 / PHASE_STEP) as usize + 1;
/// Weights per bucket (`Layout::inputs`, written out for a constant).
pub const INPUTS: usize = LOGISTELLO_INPUTS + if EXTRA_SHAPES { 2 * 59049 } else { 0 };
/// Weights per bucket of Logistello's eleven shapes alone.
pub const LOGISTELLO_INPUTS: usize = 2 * 59049 + 19683 + 4 * 6561 + 2187 + 729 + 243 + 81;

/// `net` (a linear model of `LOGISTELLO_INPUTS` weights a bucket) with the shapes of
/// `EXTRA_SHAPES` at zero: the same evaluation. Any other model is returned as it is.
pub fn widen_inputs(net: crate::learn::network::Network) -> crate::learn::network::Network {
    if net.game != "othello"
        || INPUTS == LOGISTELLO_INPUTS
        || net.inputs != LOGISTELLO_INPUTS
        || net.hidden != 0
        || net.w1.len() != net.buckets.saturating_mul(LOGISTELLO_INPUTS)
    {
        return net;
    }
    let w1 = net
        .w1
        .chunks(LOGISTELLO_INPUTS)
        .flat_map(|c| {
            c.iter()
                .copied()
                .chain(std::iter::repeat_n(0, INPUTS - LOGISTELLO_INPUTS))
        })
        .collect();
    crate::learn::network::Network {
        inputs: INPUTS,
        w1,
        ..net
    }
}

/// The phase of a position with `discs` discs on the board (4..64): the lower node's bucket
/// and its weight out of `PHASE_STEP` (the rest is bucket + 1's; the last node weighs it all).
pub fn phase(discs: u32) -> (usize, i32) {
    let t = (discs.clamp(4, 64) as i32 - 4) * 2;
    let b = (t / PHASE_STEP) as usize;
    if b >= BUCKETS - 1 {
        (BUCKETS - 1, PHASE_STEP)
    } else {
        (b, PHASE_STEP - t % PHASE_STEP)
    }
}

pub fn layout() -> &'static Layout {
    static L: OnceLock<Layout> = OnceLock::new();
    L.get_or_init(|| {
        let mut instances = Vec::new();
        let mut offset = 0u32;
        for (_, cells) in shapes() {
            // Group the eight images by the set of squares they cover.
            let mut groups: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
            for t in 0..8 {
                let squares: Vec<u8> = cells
                    .iter()
                    .map(|&rc| {
                        let (r, c) = transform(t, rc);
                        (r * 8 + c) as u8
                    })
                    .collect();
                let mut set = squares.clone();
                set.sort_unstable();
                match groups.iter_mut().find(|(s, _)| *s == set) {
                    Some((_, orders)) => {
                        if !orders.contains(&squares) {
                            orders.push(squares);
                        }
                    }
                    None => groups.push((set, vec![squares])),
                }
            }
            for (_, orders) in groups {
                instances.push((offset, orders));
            }
            offset += 3u32.pow(cells.len() as u32);
        }
        let (mut gather, mut digits) = (Vec::new(), Vec::new());
        for (_, orders) in &instances {
            let order = &orders[0];
            let mut ascending = order.clone();
            ascending.sort_unstable();
            let mask = ascending.iter().fold(0u64, |m, &sq| m | 1 << sq);
            gather.push((mask, digits.len() as u32));
            for subset in 0..1u32 << ascending.len() {
                let mut d = 0u32;
                for (j, sq) in ascending.iter().enumerate() {
                    if subset >> j & 1 == 1 {
                        let place = order.iter().position(|s| s == sq).unwrap_or(0);
                        d += 3u32.pow(place as u32);
                    }
                }
                digits.push(d as u16);
            }
        }
        let mut offsets = [0; INSTANCES];
        let mut digit_of = [[0; LANES]; 64];
        for (i, (offset, orders)) in instances.iter().enumerate().take(INSTANCES) {
            offsets[i] = *offset;
            for (place, &sq) in orders[0].iter().enumerate() {
                digit_of[sq as usize][i] = 3u16.pow(place as u32);
            }
        }
        Layout {
            instances,
            inputs: offset as usize,
            gather,
            digits,
            offsets,
            digit_of,
        }
    })
}

/// Each instance's index within its table in its first square order (`index(me, opp,
/// &orders[0])`, as the evaluation reads the unfolded weights, `offsets` apart), gathered with
/// BMI2's `pext` where the level in use has it (`simd::level`: present, fast, and not turned
/// off by `TABULA_SIMD=scalar`; a pair of gathers and table reads an instance instead of a loop
/// over its squares).
#[inline]
pub fn local_indices(me: u64, opp: u64) -> Local {
    local_indices_at(simd::level(), me, opp)
}

/// `local_indices` with the gathers of `level` (a token from detection, `simd::Level`).
#[inline]
pub fn local_indices_at(level: Level, me: u64, opp: u64) -> Local {
    #[cfg(target_arch = "x86_64")]
    if level.pext() {
        // SAFETY: a `Level` is made only by `simd`'s detection, which sets `pext` only where
        // the processor has BMI2.
        return unsafe { local_bmi2(me, opp) };
    }
    let _ = level;
    local_portable(me, opp)
}

fn local_portable(me: u64, opp: u64) -> Local {
    let mut out = [0; LANES];
    for (o, (_, orders)) in out.iter_mut().zip(&layout().instances) {
        *o = index(me, opp, &orders[0]) as u16;
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn local_bmi2(me: u64, opp: u64) -> Local {
    use std::arch::x86_64::_pext_u64;
    let l = layout();
    let mut out = [0; LANES];
    for (o, &(mask, start)) in out.iter_mut().zip(&l.gather) {
        let d = &l.digits[start as usize..];
        let m = _pext_u64(me, mask) as usize;
        let p = _pext_u64(opp, mask) as usize;
        *o = d.get(m).copied().unwrap_or(0) + 2 * d.get(p).copied().unwrap_or(0);
    }
    out
}

/// The `Local` indices of the position after a move, for the side to move then, from those of
/// the position before it seen by that side (`view`: `local_indices(o, p)` where `p` moves):
/// the square played becomes the opponent's (+2 digits), each flipped disc goes from the side
/// to move's to the opponent's (+1). The same as `local_indices` of the new position.
#[inline]
pub fn after(view: &Local, sq: u32, mut flips: u64) -> Local {
    let d = &layout().digit_of;
    let mut out = *view;
    let placed = &d[sq as usize & 63];
    for k in 0..LANES {
        out[k] += 2 * placed[k];
    }
    while flips != 0 {
        let f = &d[flips.trailing_zeros() as usize];
        flips &= flips - 1;
        for k in 0..LANES {
            out[k] += f[k];
        }
    }
    out
}

/// Calls `f` with the feature index of every instance (`me` the side to move's discs).
#[inline]
pub fn for_each_feature(me: u64, opp: u64, mut f: impl FnMut(u32)) {
    for (offset, orders) in &layout().instances {
        let best = orders.iter().map(|o| index(me, opp, o)).min().unwrap_or(0);
        f(offset + best);
    }
}

/// The ternary index of `squares` (the first square the lowest digit).
#[inline]
pub fn index(me: u64, opp: u64, squares: &[u8]) -> u32 {
    let mut idx = 0u32;
    for &sq in squares.iter().rev() {
        idx = idx * 3 + ((me >> sq) & 1) as u32 + 2 * ((opp >> sq) & 1) as u32;
    }
    idx
}

/// The weight tables of one phase with every index filled: a shape that is its own mirror
/// image is trained at the smaller of a configuration's two indices only (`for_each_feature`);
/// here both indices carry that weight (`canonical`), so that evaluation reads each instance in
/// its first square order alone.
pub fn unfold(weights: &[i16]) -> Vec<i16> {
    let canonical = canonical();
    (0..weights.len())
        .map(|k| {
            let from = canonical.get(k).map_or(k, |&c| c as usize);
            weights.get(from).copied().unwrap_or(0)
        })
        .collect()
}

/// Per input, the input whose weight it carries in the unfolded tables (`unfold`): itself,
/// or for a configuration of a self-symmetric shape, the smallest index over its orders.
pub fn canonical() -> &'static [u32] {
    static C: OnceLock<Vec<u32>> = OnceLock::new();
    C.get_or_init(|| {
        let l = layout();
        let mut map: Vec<u32> = (0..l.inputs as u32).collect();
        let mut done = Vec::new();
        for (offset, orders) in &l.instances {
            if orders.len() < 2 || done.contains(offset) {
                continue;
            }
            done.push(*offset);
            let k = orders[0].len() as u32;
            for raw in 0..3u32.pow(k) {
                let (mut me, mut opp, mut r) = (0u64, 0u64, raw);
                for &sq in &orders[0] {
                    match r % 3 {
                        1 => me |= 1 << sq,
                        2 => opp |= 1 << sq,
                        _ => {}
                    }
                    r /= 3;
                }
                let least = orders
                    .iter()
                    .map(|o| index(me, opp, o))
                    .min()
                    .unwrap_or(raw);
                map[(offset + raw) as usize] = offset + least;
            }
        }
        map
    })
}

/// The feature indices of a position (`me` the side to move's discs).
pub fn features(me: u64, opp: u64, out: &mut Vec<u32>) {
    out.clear();
    for_each_feature(me, opp, |i| out.push(i));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gathered indices (at every level here, and with `pext` where BMI2 is present) are the
    /// square-by-square ones, and
    /// so are those a move's update (`after`) gives, on random boards and every legal move.
    #[test]
    fn gathered_and_updated_indices_match_the_square_order() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut moves_checked = 0;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let me = x & 0x5A5A_F0F0_3C3C_0FF0u64.rotate_left((x % 64) as u32);
            let opp = !me & (x.rotate_left(23) | x.rotate_left(41));
            let portable = local_portable(me, opp);
            for level in simd::Level::available() {
                let gathered = local_indices_at(level, me, opp);
                assert_eq!(gathered, portable, "{level:?} {me:#x} {opp:#x}");
            }
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("bmi2") {
                // `pext` itself, where the processor has it even if slow (and so unused).
                // SAFETY: BMI2 is present (checked just above).
                let gathered = unsafe { local_bmi2(me, opp) };
                assert_eq!(gathered, portable, "pext {me:#x} {opp:#x}");
            }
            assert_eq!(local_indices(me, opp), portable, "{me:#x} {opp:#x}");
            let view = local_indices(opp, me);
            let mut m = crate::games::othello::endgame8::moves(me, opp);
            while m != 0 {
                let sq = m.trailing_zeros();
                m &= m - 1;
                let f = crate::games::othello::endgame8::flips(me, opp, sq);
                let (np, no) = (opp & !f, me | f | 1 << sq);
                assert_eq!(
                    after(&view, sq, f),
                    local_portable(np, no),
                    "{me:#x} {opp:#x} {sq}"
                );
                moves_checked += 1;
            }
        }
        assert!(moves_checked > 1000, "{moves_checked} moves");
    }

    #[test]
    fn instances_and_symmetric_sharing() {
        let l = layout();
        assert_eq!(l.instances.len(), INSTANCES);
        assert_eq!(l.inputs, INPUTS);
        // A position and each of its symmetric images have the same multiset of features.
        let (me, opp) = (0x0000_0018_0800_0000u64 | 1, 0x0000_0000_1000_0080u64);
        let image = |t: usize, b: u64| {
            (0..64)
                .filter(|s| b >> s & 1 == 1)
                .map(|s: i32| {
                    let (r, c) = transform(t, (s / 8, s % 8));
                    1u64 << (r * 8 + c)
                })
                .fold(0, |a, x| a | x)
        };
        let mut a = Vec::new();
        features(me, opp, &mut a);
        a.sort_unstable();
        for t in 0..8 {
            let mut b = Vec::new();
            features(image(t, me), image(t, opp), &mut b);
            b.sort_unstable();
            assert_eq!(a, b, "symmetry {t}");
        }
    }
}
