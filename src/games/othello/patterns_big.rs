//! The pattern evaluation's inputs on the big boards (10x10 to 16x16): the same idea as 8x8's
//! (`patterns`), with shapes of bounded length so that one set of weight tables serves every
//! size (the input count `INPUTS` is the same on every board; only where the instances lie
//! differs).
//!
//! Shapes, each anchored at a corner (or the middle of an edge) and placed in all of its
//! distinct images under the board's eight symmetries, instances of one shape sharing one
//! table of `3^len` weights: the edge's first nine squares with the X square, the corner's 2x5
//! and 3x3 regions, the second and third rows' first squares, the corner's main diagonal, the
//! short diagonals across each corner (4 to 8 squares), and the middle eight squares of the
//! edge and of the row beside it. Then four small tables indexed by a count: the side to
//! move's and the opponent's mobility, and their potential mobility (empty squares beside the
//! other side's discs), each clamped to `COUNT - 1`; and one of both mobilities together
//! (each clamped to `JOINT - 1`), which can learn their ratio. `JOINT` was 32 until the
//! eighth session's 16x16 data showed a third of its midgame positions with a mobility of 31
//! or more (the table's corner, where the ratio was lost); files of the 32-wide table still
//! load (`upgrade_bucket`, each wider entry a copy of the clamped one) and evaluate exactly as
//! before.
//!
//! Feature index of an instance: `offset[shape] + min over its square orders of sum(3^i *
//! state(square_i))`, state 0 empty, 1 the side to move's disc, 2 the opponent's; a shape that
//! is its own mirror image has two orders, so a configuration and its mirror share a weight
//! (trainer and engine both take the minimum: no unfolding). Squares are `r * n + c`.
//!
//! Phases: `BUCKETS` weight sets at nodes spread evenly over the disc fraction from the 4
//! starting discs to a full board; a position mixes the two nodes around it linearly.

use super::Othello;
use super::board::Geo;
use crate::bits::Bits;
use std::sync::OnceLock;

/// The shapes' lengths, in the order of their tables.
const LENGTHS: [u32; 13] = [10, 10, 9, 9, 8, 8, 4, 5, 6, 7, 8, 8, 8];
/// Entries of each count table (mobility and potential mobility, both sides).
pub const COUNT: usize = 64;
/// Entries of a side of the joint mobility table.
pub const JOINT: usize = 64;
/// The side of the joint mobility table in files made before it was widened.
pub const OLD_JOINT: usize = 32;
/// Weights per bucket in those files.
pub const OLD_INPUTS: usize = INPUTS - JOINT * JOINT + OLD_JOINT * OLD_JOINT;
/// Weights per bucket: the shapes' tables, then four count tables and the joint mobility
/// table.
pub const INPUTS: usize =
    2 * 59049 + 2 * 19683 + 5 * 6561 + 81 + 243 + 729 + 2187 + 4 * COUNT + JOINT * JOINT;
/// Features of a position: the instances and five counts.
pub const FEATURES: usize = INSTANCES + 5;
pub const BUCKETS: usize = 9;
/// A phase interval's width, in 120ths of the squares a game fills.
pub const PHASE_STEP: i32 = 15;

/// The shapes on a board of side `n`, as (row, column) cells of one placement.
fn shapes(n: i32) -> Vec<Vec<(i32, i32)>> {
    let run = |r: i32, from: i32, len: i32| (from..from + len).map(|c| (r, c)).collect::<Vec<_>>();
    let anti = |k: i32| (0..=k).map(|i| (i, k - i)).collect::<Vec<_>>();
    let mut edge = run(0, 0, 9);
    edge.push((1, 1));
    let mid = n / 2 - 4;
    vec![
        edge,
        (0..2).flat_map(|r| (0..5).map(move |c| (r, c))).collect(),
        (0..3).flat_map(|r| (0..3).map(move |c| (r, c))).collect(),
        run(1, 0, 9),
        run(2, 0, 8),
        (0..8).map(|i| (i, i)).collect(),
        anti(3),
        anti(4),
        anti(5),
        anti(6),
        anti(7),
        run(0, mid, 8),
        run(1, mid, 8),
    ]
}

/// The eight symmetries of the square of side `n`.
fn transform(t: usize, (r, c): (i32, i32), n: i32) -> (i32, i32) {
    let m = n - 1;
    match t {
        0 => (r, c),
        1 => (c, m - r),
        2 => (m - r, m - c),
        3 => (m - c, r),
        4 => (r, m - c),
        5 => (c, r),
        6 => (m - r, c),
        _ => (m - c, m - r),
    }
}

/// The pattern instances of one board size.
pub struct Layout {
    pub n: u32,
    /// Per instance: its table's offset and its squares in every order a symmetry gives them.
    pub instances: Vec<(u32, Vec<Vec<u16>>)>,
    /// Per square: where `by_square[at[s]..at[s + 1]]` lists the instances holding it, each
    /// with `3^i`, `i` the square's place in the instance's first order (`indices`).
    at: Vec<u32>,
    by_square: Vec<(u16, u32)>,
    /// The squares some instance holds, as bits (`Bits::from_words`): the discs `indices`
    /// visits.
    covered: [u64; 4],
}

/// Pattern instances on every big board.
pub const INSTANCES: usize = 68;

/// Where the table of shape `k` (in `LENGTHS` order) starts.
pub fn table_offset(k: usize) -> u32 {
    LENGTHS[..k.min(LENGTHS.len())]
        .iter()
        .map(|&l| 3u32.pow(l))
        .sum()
}

/// Where the count tables start.
pub const COUNTS_AT: u32 = (INPUTS - 4 * COUNT - JOINT * JOINT) as u32;
/// Where the joint mobility table starts (index `me * JOINT + opp`, each clamped).
const JOINT_AT: u32 = (INPUTS - JOINT * JOINT) as u32;

fn build(n: u32) -> Layout {
    let mut instances = Vec::new();
    let mut offset = 0u32;
    for (cells, len) in shapes(n as i32).into_iter().zip(LENGTHS) {
        debug_assert_eq!(cells.len() as u32, len);
        let mut groups: Vec<(Vec<u16>, Vec<Vec<u16>>)> = Vec::new();
        for t in 0..8 {
            let squares: Vec<u16> = cells
                .iter()
                .map(|&rc| {
                    let (r, c) = transform(t, rc, n as i32);
                    (r * n as i32 + c) as u16
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
        offset += 3u32.pow(len);
    }
    debug_assert_eq!(offset, COUNTS_AT);
    let (mut at, mut by_square, mut covered) = (vec![0u32], Vec::new(), [0u64; 4]);
    for sq in 0..(n * n) as u16 {
        for (k, (_, orders)) in instances.iter().enumerate() {
            if let Some(i) = orders[0].iter().position(|&s| s == sq) {
                by_square.push((k as u16, 3u32.pow(i as u32)));
            }
        }
        if by_square.len() as u32 > at[at.len() - 1] {
            covered[sq as usize / 64] |= 1 << (sq % 64);
        }
        at.push(by_square.len() as u32);
    }
    Layout {
        n,
        instances,
        at,
        by_square,
        covered,
    }
}

/// The layout of a board of side `n` (10, 12, 14 or 16; `None` for any other side).
pub fn layout(n: u32) -> Option<&'static Layout> {
    static L: [OnceLock<Layout>; 4] = [const { OnceLock::new() }; 4];
    if !(10..=16).contains(&n) || !n.is_multiple_of(2) {
        return None;
    }
    Some(L[(n as usize - 10) / 2].get_or_init(|| build(n)))
}

/// The phase of a position with `discs` discs on a board of `cells` squares: the lower
/// node's bucket and its weight out of `PHASE_STEP` (the rest is bucket + 1's).
pub fn phase(discs: u32, cells: u32) -> (usize, i32) {
    let span = cells.saturating_sub(4).max(1) as i32;
    let t = (discs.clamp(4, cells) as i32 - 4) * 120 / span;
    let b = (t / PHASE_STEP) as usize;
    if b >= BUCKETS - 1 {
        (BUCKETS - 1, PHASE_STEP)
    } else {
        (b, PHASE_STEP - t % PHASE_STEP)
    }
}

/// Calls `f` with every feature index of `p` (from its side to move), in layout order and
/// then the four counts; nothing on a board without a layout.
#[inline]
pub fn for_each_feature<B: Bits>(p: &Othello<B>, mut f: impl FnMut(u32)) {
    let Some(l) = layout(p.geo.n) else {
        return;
    };
    let (me, opp) = (p.me, p.opp);
    for (offset, orders) in &l.instances {
        let mut best = u32::MAX;
        for order in orders {
            let mut idx = 0u32;
            for &sq in order.iter().rev() {
                idx = idx * 3 + u32::from(me.has(sq as u32)) + 2 * u32::from(opp.has(sq as u32));
            }
            best = best.min(idx);
        }
        f(offset + best);
    }
    let g = &p.geo;
    let empty = g.all & !(me | opp);
    let clamp = |x: u32| x.min(COUNT as u32 - 1);
    let (mine, theirs) = (g.moves(me, opp).count(), g.moves(opp, me).count());
    f(COUNTS_AT + clamp(mine));
    f(COUNTS_AT + COUNT as u32 + clamp(theirs));
    f(COUNTS_AT + 2 * COUNT as u32 + clamp((g.neighbours(opp) & empty).count()));
    f(COUNTS_AT + 3 * COUNT as u32 + clamp((g.neighbours(me) & empty).count()));
    f(joint(mine, theirs));
}

/// The joint mobility feature.
#[inline]
fn joint(mine: u32, theirs: u32) -> u32 {
    let j = JOINT as u32 - 1;
    JOINT_AT + mine.min(j) * JOINT as u32 + theirs.min(j)
}

/// One bucket's weights of a file with the 32-wide joint table (`OLD_INPUTS`) in today's
/// layout: everything before the joint table (the last) as it was, and each entry of the wider
/// table the one its clamped mobilities had, so that the evaluation is unchanged;
/// or, `by_ratio` (a start for training a bigger board), the entry of the same ratio of
/// mobilities scaled into the old table.
pub fn upgrade_bucket(old: &[i16], by_ratio: bool) -> Vec<i16> {
    let at = OLD_INPUTS - OLD_JOINT * OLD_JOINT;
    let mut w = old[..at.min(old.len())].to_vec();
    w.resize(INPUTS - JOINT * JOINT, 0);
    let k = OLD_JOINT - 1;
    for mine in 0..JOINT {
        for theirs in 0..JOINT {
            let top = mine.max(theirs);
            let (m, o) = if by_ratio && top > k {
                ((mine * k + top / 2) / top, (theirs * k + top / 2) / top)
            } else {
                (mine.min(k), theirs.min(k))
            };
            w.push(old.get(at + m * OLD_JOINT + o).copied().unwrap_or(0));
        }
    }
    w
}

/// The index of every instance in its first square order plus its table's offset (as the
/// engine reads the unfolded weights, `unfold`), summed disc by disc, then the five counts.
#[inline]
pub fn indices<B: Bits>(g: &Geo<B>, me: B, opp: B, out: &mut [u32; FEATURES]) -> bool {
    let Some(l) = layout(g.n) else {
        return false;
    };
    for (o, (offset, _)) in out.iter_mut().zip(&l.instances) {
        *o = *offset;
    }
    let covered = B::from_words(&l.covered);
    for (who, times) in [(me, 1u32), (opp, 2u32)] {
        let mut x = who & covered;
        while !x.is_zero() {
            let s = x.lowest() as usize;
            x = x.without_lowest();
            let (a, b) = (l.at[s] as usize, l.at[s + 1] as usize);
            for &(k, pow) in &l.by_square[a..b] {
                out[k as usize] += times * pow;
            }
        }
    }
    let empty = g.all & !(me | opp);
    let clamp = |x: u32| x.min(COUNT as u32 - 1);
    let (mine, theirs) = (g.moves(me, opp).count(), g.moves(opp, me).count());
    out[INSTANCES] = COUNTS_AT + clamp(mine);
    out[INSTANCES + 1] = COUNTS_AT + COUNT as u32 + clamp(theirs);
    out[INSTANCES + 4] = joint(mine, theirs);
    out[INSTANCES + 2] = COUNTS_AT + 2 * COUNT as u32 + clamp((g.neighbours(opp) & empty).count());
    out[INSTANCES + 3] = COUNTS_AT + 3 * COUNT as u32 + clamp((g.neighbours(me) & empty).count());
    true
}

/// One phase's weights with every index filled: a shape that is its own mirror image is
/// trained at the smaller of a configuration's two indices only (`for_each_feature`); here
/// both carry that weight, so that `indices` reads each instance in its first order alone.
/// The same for every board size (a shape's self-symmetry permutes its squares alike in
/// every instance).
pub fn unfold(weights: &[i16], l: &Layout) -> Vec<i16> {
    let mut full = weights.to_vec();
    let mut done = Vec::new();
    for (offset, orders) in &l.instances {
        if orders.len() < 2 || done.contains(offset) {
            continue;
        }
        done.push(*offset);
        let k = orders[0].len() as u32;
        // The place in the first order of each square of the second.
        let place: Vec<usize> = orders[1]
            .iter()
            .map(|s| orders[0].iter().position(|t| t == s).unwrap_or(0))
            .collect();
        for raw in 0..3u32.pow(k) {
            let digit = |i: usize| raw / 3u32.pow(i as u32) % 3;
            let other = place
                .iter()
                .enumerate()
                .map(|(j, &i)| digit(i) * 3u32.pow(j as u32))
                .sum::<u32>();
            let canonical = raw.min(other);
            if let Some(w) = weights.get((offset + canonical) as usize) {
                full[(offset + raw) as usize] = *w;
            }
        }
    }
    full
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::U256;
    use crate::game::Rules;

    #[test]
    fn tables_fill_the_inputs_and_instances_stay_on_the_board() {
        for n in [10u32, 12, 14, 16] {
            let l = layout(n).expect("a big board has a layout");
            let biggest = l.instances.iter().map(|(o, _)| *o).max().unwrap_or(0);
            assert!(biggest < COUNTS_AT);
            // 8 images of each corner shape but the self-mirrored ones (3x3, diagonals: 4),
            // and 4 of the two middle ones.
            assert_eq!(l.instances.len(), 4 * 8 + 9 * 4, "n={n}");
            for (_, orders) in &l.instances {
                for o in orders {
                    assert!(o.iter().all(|&s| (s as u32) < n * n));
                }
            }
        }
        assert!(layout(8).is_none() && layout(11).is_none());
    }

    /// A position and its images under the board's symmetries have the same features.
    #[test]
    fn symmetric_images_share_features() {
        let mut p = Othello::<U256>::new(12).expect("12x12");
        let mut moves = Vec::new();
        for i in 0..30 {
            p.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[(i * 7) % moves.len()];
            p.play(mv);
        }
        let image = |t: usize, b: U256| {
            let mut out = U256::zero();
            for s in 0..144u32 {
                if b.has(s) {
                    let (r, c) = transform(t, ((s / 12) as i32, (s % 12) as i32), 12);
                    out |= U256::one_at((r * 12 + c) as u32);
                }
            }
            out
        };
        let feats = |q: &Othello<U256>| {
            let mut v = Vec::new();
            for_each_feature(q, |f| v.push(f));
            v.sort_unstable();
            v
        };
        let a = feats(&p);
        assert_eq!(a.len(), FEATURES);
        for t in 0..8 {
            let q = Othello {
                me: image(t, p.me),
                opp: image(t, p.opp),
                ..p.clone()
            };
            assert_eq!(feats(&q), a, "symmetry {t}");
        }
    }

    #[test]
    fn phases_span_the_game() {
        assert_eq!(phase(4, 100), (0, PHASE_STEP));
        assert_eq!(phase(100, 100), (BUCKETS - 1, PHASE_STEP));
        let (b, w) = phase(130, 256);
        assert!(b == 3 || b == 4, "{b} {w}");
    }
}
