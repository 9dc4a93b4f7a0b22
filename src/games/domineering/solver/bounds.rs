//! Bounds on the moves a player can still make, the solver's cutoffs (after Bullock's
//! Obsequi, re-derived here). Everything is in the player's own frame (its dominoes along
//! lines; the opponent's across them).
//!
//! - `real`: the most moves the player could make if the opponent never moved (the packing of
//!   its free lines): an upper bound.
//! - `safe`: moves on cells the opponent can never cover (pairs of protected cells): the
//!   player keeps all of them.
//! - `guaranteed`: a lower bound from a strategy. Besides the safe moves the player marks out
//!   disjoint areas. A *box* is a 2x2 free block walled (both cells covered) on at least one
//!   side across the lines: playing the row away from the wall makes the row by the wall
//!   safe, so a box is worth two moves, and one opponent move spoils it. A *slot* is two free
//!   cells of a line that the opponent can cover: worth one move, spoiled by one opponent
//!   move. One opponent move (it covers two cells of adjacent lines) can spoil two areas only
//!   if they touch across the lines; boxes are packed so that no two touch. A box can only
//!   be reached from outside through its open side, and then its row by the wall stays an
//!   isolated slot for the player. Who gets what is an exact little race (`race`) over
//!   isolated and touching boxes and slots: the player claims a box or a slot, the opponent
//!   spoils one area, two touching slots, or a touching box (leaving a slot) with its slot,
//!   or plays elsewhere. The strategy also leaves `unused` protected cells outside every
//!   area, which neither it nor the opponent will ever cover.
//!
//! How the search uses them (side to move P, opponent Q, E free cells): P wins if its
//! guaranteed moves L (moving first) exceed both `real(Q) - 2 * boxes claimed` (claiming a
//! box ends one two-cell stretch of each of Q's two lines through it) and
//! `(E - 2 L - unused) / 2` (by Q's L-th move P has covered 2L cells and Q's moves must fit
//! in the rest). Q wins if its guaranteed moves moving second reach P's bound.

use super::frame::{Frame, MAX_LINES, pack, pairs};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub real: u32,
    pub safe: u32,
}

#[inline]
pub fn counts(f: &Frame) -> Counts {
    let (mut real, mut safe) = (0, 0);
    for i in 1..=f.n {
        real += pack(f.free(i));
        safe += pack(f.prot(i));
    }
    Counts { real, safe }
}

/// What the player's strategy guarantees, whatever the opponent does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sure {
    /// Moves the player is sure to make (claiming in the best order).
    pub moves: u32,
    /// Moves the player is sure to make claiming boxes first (at most `moves`).
    pub moves_boxes_first: u32,
    /// Free cells that the strategy never covers and the opponent never can.
    pub unused: u32,
    /// `4 * moves + unused` of the best strategy for the cell count (options included): the
    /// opponent cannot make as many moves as the player if `weight` exceeds the free cells.
    pub weight: u32,
    /// Boxes the player is sure to claim when it claims boxes first (the opponent spoils at
    /// most one per move).
    pub boxes: u32,
}

/// The player's strategy (claim boxes, then slots, then play safe moves), moving first in
/// the race when `first`.
pub fn guaranteed(f: &Frame, first: bool) -> Sure {
    let n = f.n;
    let mut used = [0u32; MAX_LINES];
    let mut prot = [0u32; MAX_LINES];
    let mut safe_at = [0u32; MAX_LINES];
    let mut safe = 0;
    for i in 1..=n {
        prot[i] = f.prot(i);
        safe_at[i] = pairs(prot[i]);
        safe += safe_at[i].count_ones();
        used[i] = safe_at[i] | safe_at[i] << 1;
    }
    // Boxes on lines i, i + 1 (anchors in `box_at[i]`), walled on line i - 1 or i + 2,
    // touching no box of lines i - 2, i - 1 (so one opponent move spoils at most one box).
    let mut box_at = [0u32; MAX_LINES];
    for i in 1..n {
        let free2 = f.free(i) & f.free(i + 1) & !used[i] & !used[i + 1];
        let (above, below) = (f.line[i - 1], f.line[i + 2]);
        let walled = (above & (above >> 1)) | (below & (below >> 1));
        let before = if i > 1 {
            box_at[i - 2] | box_at[i - 2] << 1
        } else {
            0
        };
        let mut c = free2 & (free2 >> 1) & walled & !before & !(before >> 1);
        // Greedy, left to right, disjoint.
        while c != 0 {
            let b = c & c.wrapping_neg();
            box_at[i] |= b;
            c &= !(b | b << 1);
        }
        let cells = box_at[i] | box_at[i] << 1;
        used[i] |= cells;
        used[i + 1] |= cells;
    }
    let mut slots = [0u32; MAX_LINES];
    let mut cells = [0u32; MAX_LINES];
    let mut areas = [0u32; MAX_LINES];
    for i in 1..=n {
        slots[i] = pairs(f.free(i) & !used[i]);
        cells[i] = slots[i] | slots[i] << 1;
        areas[i] = cells[i] | (used[i] & !prot[i]);
    }
    let (mut k1, mut k2, mut b1, mut b2, mut unused) = (0, 0, 0, 0, 0);
    // Slots with a protected cell: spoiling one leaves that cell unused.
    let mut kp = [0u32; 2];
    for i in 1..=n {
        // A slot touches another slot or a box across the lines.
        let touching = cells[i] & (areas[i - 1] | areas[i + 1]);
        let paired = slots[i] & (touching | touching >> 1);
        k2 += paired.count_ones();
        k1 += slots[i].count_ones() - paired.count_ones();
        let with_prot = slots[i] & (prot[i] | prot[i] >> 1);
        kp[0] += (with_prot & !paired).count_ones();
        kp[1] += (with_prot & paired).count_ones();
        unused += (prot[i] & !used[i] & !cells[i]).count_ones();
        if box_at[i] != 0 {
            // A box on lines i, i + 1 touches slots on line i - 1 or i + 2.
            let near = cells[i - 1] | cells[i + 2];
            let hit = (box_at[i] & (near | near >> 1)).count_ones();
            b2 += hit;
            b1 += box_at[i].count_ones() - hit;
        }
    }
    // Options: a free cell x beside a safe pair, outside every area, that the opponent can
    // cover. Playing x with the nearer safe cell instead of the safe pair costs the player
    // nothing and leaves the other safe cell unused, and also the cells beside x across the
    // lines whose only partner was x (`gain`: 1 to 3 cells). Options touch no area and no
    // other option, so one opponent move spoils at most one, and the player answers it by
    // taking another: it gets every other option, best first.
    let mut gains = [0u32; 4];
    let mut taken = [0u32; MAX_LINES];
    for i in 1..=n {
        let mut avail = f.free(i) & !prot[i] & !used[i] & !cells[i];
        avail &= !(areas[i - 1] | areas[i + 1] | taken[i - 1]);
        let left = (safe_at[i] >> 1) & avail;
        let right = (safe_at[i] << 2) & avail & !(left | left << 1 | left >> 1);
        let mut x = left | right;
        taken[i] = x;
        while x != 0 {
            let b = x & x.wrapping_neg();
            x &= x - 1;
            let mut gain = 1;
            // (Lines 0 and n + 1 are walls, so `i - 2` and `i + 2` are read only inside.)
            if f.line[i - 1] & b == 0 && f.line[i - 2] & b != 0 {
                gain += 1;
            }
            if f.line[i + 1] & b == 0 && f.line[i + 2] & b != 0 {
                gain += 1;
            }
            gains[gain] += 1;
        }
    }
    let (mut odd, mut even, mut k) = (0, 0, 0);
    for g in (1..4).rev() {
        for _ in 0..gains[g] {
            if k % 2 == 0 {
                odd += g as u32;
            } else {
                even += g as u32;
            }
            k += 1;
        }
    }
    let boxes = b1 + b2;
    let [best, boxes_first] = race(b1, b2, k1, k2, first);
    // Two strategies for the cell count: options and slots with a protected cell as more
    // kinds of areas in the race, or options answered option for option beside the race
    // (every other option's full gain).
    let options = [gains[1], gains[2] + gains[3]];
    let plain = [k1 - kp[0], k2 - kp[1]];
    let mut weight = 4 * safe
        + unused
        + race_weight(
            [
                b1,
                b2,
                plain[0],
                plain[1],
                kp[0] + kp[1],
                options[0],
                options[1],
            ],
            first,
        );
    weight = weight.max(4 * (safe + best) + unused + even);
    if first && k > 0 {
        // Take the best option at once, then the race with the opponent to move.
        let [second, _] = race(b1, b2, k1, k2, false);
        weight = weight.max(4 * (safe + second) + unused + odd);
    }
    Sure {
        moves: safe + best,
        moves_boxes_first: safe + boxes_first,
        unused,
        weight,
        boxes: if first { boxes.div_ceil(2) } else { boxes / 2 },
    }
}

/// Builds the race tables (a few MiB, some milliseconds), so that the first search does not.
pub fn warm_up() {
    let _ = race_table();
    let _ = weight_table();
}

const CAP_B: usize = 7;
const CAP_K1: usize = 31;
const CAP_K2: usize = 63;

/// Four values per state: best order moving first, second; boxes first moving first, second.
fn idx(b1: usize, b2: usize, k1: usize, k2: usize) -> usize {
    (((b1 * (CAP_B + 1) + b2) * (CAP_K1 + 1) + k1) * (CAP_K2 + 1) + k2) << 2
}

/// The race's value: how many moves the player is sure to make from boxes (2 each) and slots
/// (1 each), isolated (`b1`, `k1`) or touching another area (`b2`, `k2`), when the opponent
/// on its turns spoils one area, two touching slots, or a touching box and its slot (the
/// box's far row then stays an isolated slot), or plays elsewhere: `[claiming in the best order, claiming boxes first]`. Counts beyond the
/// table are clamped down (fewer areas never help the player, so the bound stays a bound).
pub fn race(b1: u32, b2: u32, k1: u32, k2: u32, first: bool) -> [u32; 2] {
    let t = race_table();
    let i = idx(
        (b1 as usize).min(CAP_B),
        (b2 as usize).min(CAP_B),
        (k1 as usize).min(CAP_K1),
        (k2 as usize).min(CAP_K2),
    );
    let i = i | (!first) as usize;
    [t[i] as u32, t[i + 2] as u32]
}

fn race_table() -> &'static [u16] {
    static T: OnceLock<Vec<u16>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = vec![0u16; idx(CAP_B + 1, 0, 0, 0)];
        for b1 in 0..=CAP_B {
            for b2 in 0..=CAP_B {
                for k1 in 0..=CAP_K1 {
                    for k2 in 0..=CAP_K2 {
                        if b1 + b2 + k1 + k2 == 0 {
                            continue;
                        }
                        let here = idx(b1, b2, k1, k2);
                        // Claims: (gain, state after); boxes first allows boxes only while
                        // there are some.
                        let less = |n: usize| n.saturating_sub(1);
                        let claims = [
                            (b1 > 0, 2, idx(less(b1), b2, k1, k2), true),
                            (b2 > 0, 2, idx(b1, less(b2), k1, k2), true),
                            (k1 > 0, 1, idx(b1, b2, less(k1), k2), false),
                            (k2 > 0, 1, idx(b1, b2, k1, less(k2)), false),
                        ];
                        let any_box = b1 + b2 > 0;
                        for order in [0, 2] {
                            let mut mine = 0;
                            for &(ok, gain, next, is_box) in &claims {
                                if ok && (order == 0 || is_box == any_box) {
                                    mine = mine.max(gain + t[next + order + 1]);
                                }
                            }
                            t[here + order] = mine;
                        }
                        // The opponent spoils, or plays elsewhere (the player then claims).
                        let mut spoils = [usize::MAX; 6];
                        if b1 > 0 {
                            spoils[0] = idx(b1 - 1, b2, k1, k2);
                        }
                        if b2 > 0 {
                            spoils[1] = idx(b1, b2 - 1, k1, k2);
                        }
                        if k1 > 0 {
                            spoils[2] = idx(b1, b2, k1 - 1, k2);
                        }
                        if k2 > 0 {
                            spoils[3] = idx(b1, b2, k1, k2 - 1);
                        }
                        if k2 > 1 {
                            spoils[4] = idx(b1, b2, k1, k2 - 2);
                        }
                        if b2 > 0 && k2 > 0 {
                            // From outside the box: its far row stays a slot for the player.
                            spoils[5] = idx(b1, b2 - 1, (k1 + 1).min(CAP_K1), k2 - 1);
                        }
                        for order in [0, 2] {
                            let mut theirs = t[here + order];
                            for &i in spoils.iter().filter(|&&i| i != usize::MAX) {
                                theirs = theirs.min(t[i + order]);
                            }
                            t[here + order + 1] = theirs;
                        }
                    }
                }
            }
        }
        t
    })
}

/// The cell race's classes: isolated and touching boxes (claimed: 8, two moves), isolated and
/// touching plain slots (4), slots with a protected cell (4, and 1 when spoiled: the cell
/// is left unused; counted as touching), options of gain 1 and of gain 2 or more (1, 2).
const WCAP: [usize; 7] = [3, 3, 15, 31, 7, 3, 3];

fn widx(s: [usize; 7]) -> usize {
    let mut i = 0;
    for (v, cap) in s.iter().zip(WCAP) {
        i = i * (cap + 1) + v;
    }
    i << 1
}

/// The race for the cell count: what the player is sure to add to `4 * moves + unused`
/// (see `WCAP` for the classes, in order), moving first when `first`. The opponent spoils one
/// area, two touching slots (of either kind), or a touching box and a touching slot (the
/// box's far row stays an isolated slot), or plays elsewhere. Options touch nothing. Counts
/// beyond the table are clamped down.
pub fn race_weight(s: [u32; 7], first: bool) -> u32 {
    let mut c = [0usize; 7];
    for k in 0..7 {
        c[k] = (s[k] as usize).min(WCAP[k]);
    }
    weight_table()[widx(c) | (!first) as usize] as u32
}

fn weight_table() -> &'static [u16] {
    static T: OnceLock<Vec<u16>> = OnceLock::new();
    T.get_or_init(|| {
        const CLAIM: [u16; 7] = [8, 8, 4, 4, 4, 1, 2];
        let size = widx(WCAP) + 2;
        let mut t = vec![0u16; size];
        // States in increasing index order: every successor (fewer areas, or one touching
        // box traded for an isolated slot) has a smaller index.
        let mut s = [0usize; 7];
        loop {
            let here = widx(s);
            let less = |k: usize| {
                let mut n = s;
                n[k] -= 1;
                n
            };
            let mut mine = 0;
            for k in 0..7 {
                if s[k] > 0 {
                    mine = mine.max(CLAIM[k] + t[widx(less(k)) + 1]);
                }
            }
            t[here] = mine;
            let mut theirs = mine;
            for k in 0..7 {
                if s[k] > 0 {
                    let bonus = if k == 4 { 1 } else { 0 };
                    theirs = theirs.min(bonus + t[widx(less(k))]);
                }
            }
            // Two touching slots: plain (3) or with a protected cell (4).
            for (a, b) in [(3, 3), (3, 4), (4, 4)] {
                let mut n = s;
                if n[a] > 0 {
                    n[a] -= 1;
                    if n[b] > 0 {
                        n[b] -= 1;
                        let bonus = (a == 4) as u16 + (b == 4) as u16;
                        theirs = theirs.min(bonus + t[widx(n)]);
                    }
                }
            }
            // A touching box with a touching slot: the box's far row becomes an isolated slot.
            for b in [3, 4] {
                if s[1] > 0 && s[b] > 0 {
                    let mut n = s;
                    n[1] -= 1;
                    n[b] -= 1;
                    n[2] = (n[2] + 1).min(WCAP[2]);
                    let bonus = (b == 4) as u16;
                    theirs = theirs.min(bonus + t[widx(n)]);
                }
            }
            t[here + 1] = theirs;
            // Next state.
            let mut k = 6;
            loop {
                if s[k] < WCAP[k] {
                    s[k] += 1;
                    break;
                }
                s[k] = 0;
                if k == 0 {
                    return t;
                }
                k -= 1;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::domineering::solver::frame::Board;

    #[test]
    fn race_values() {
        // Isolated slots alternate: the player gets the odd one when it starts.
        let best = |b1, b2, k1, k2, first| race(b1, b2, k1, k2, first)[0];
        assert_eq!(best(0, 0, 3, 0, true), 2);
        assert_eq!(best(0, 0, 3, 0, false), 1);
        // Touching slots: one claimed for two spoiled.
        assert_eq!(best(0, 0, 0, 3, true), 1);
        assert_eq!(best(0, 0, 0, 4, true), 2);
        assert_eq!(best(0, 0, 0, 2, false), 0);
        // One box: two moves if the player gets there first.
        assert_eq!(best(1, 0, 0, 0, true), 2);
        assert_eq!(best(1, 0, 0, 0, false), 0);
        assert_eq!(best(2, 0, 0, 0, false), 2);
        // Options in the cell race: with a box, the opponent spoils the box, the player
        // takes the option (1), or the opponent spoils the option and the player claims the
        // box (8).
        assert_eq!(race_weight([1, 0, 0, 0, 0, 1, 0], false), 1);
        assert_eq!(race_weight([1, 0, 0, 0, 0, 1, 0], true), 8);
        assert_eq!(
            race_weight([0, 0, 2, 0, 0, 0, 0], true),
            4 * best(0, 0, 2, 0, true)
        );
        // A slot with a protected cell and an option of gain 2: the opponent spoils the slot
        // (1 cell), the player takes the option (2); or it spoils the option and the player
        // claims the slot (4).
        assert_eq!(race_weight([0, 0, 0, 0, 1, 0, 1], false), 3);
        // A touching box and its slot go in one spoiling move, which leaves a slot.
        assert_eq!(best(0, 1, 0, 1, false), 1);
        assert_eq!(best(1, 0, 1, 0, false), 1);
    }

    /// The table's best order equals a plain minimax of the race with every choice open (on a
    /// corner of the table, for speed).
    #[test]
    fn race_table_is_the_minimax() {
        fn best(s: [u32; 4], first: bool) -> u32 {
            let [b1, b2, k1, k2] = s;
            if b1 + b2 + k1 + k2 == 0 {
                return 0;
            }
            let take = |i: usize, n: u32| {
                let mut t = s;
                t[i] -= n;
                t
            };
            if first {
                let mut v = 0;
                for (i, gain) in [(0, 2), (1, 2), (2, 1), (3, 1)] {
                    if s[i] > 0 {
                        v = v.max(gain + best(take(i, 1), false));
                    }
                }
                v
            } else {
                let mut v = best(s, true);
                for (i, &count) in s.iter().enumerate() {
                    if count > 0 {
                        v = v.min(best(take(i, 1), true));
                    }
                }
                if k2 > 1 {
                    v = v.min(best(take(3, 2), true));
                }
                if b2 > 0 && k2 > 0 {
                    let mut t = take(1, 1);
                    t[3] -= 1;
                    t[2] += 1;
                    v = v.min(best(t, true));
                }
                v
            }
        }
        for b1 in 0..3 {
            for b2 in 0..3 {
                for k1 in 0..4 {
                    for k2 in 0..5 {
                        for first in [true, false] {
                            let [value, boxes_first] = race(b1, b2, k1, k2, first);
                            assert!(boxes_first <= value);
                            assert_eq!(
                                value,
                                best([b1, b2, k1, k2], first),
                                "{b1} {b2} {k1} {k2} {first}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn areas_of_a_small_board() {
        // 3x4, Horizontal's frame: row 0 "#..#", row 1 "....", row 2 "#..#". Row 1's end
        // cells are protected but have no protected neighbour: unused. Rows 0-1, columns 1-2
        // are a box walled by the edge; row 2's slot touches it. Moving first: claim the box
        // (2); moving second: one spoiling move takes the slot and the box, whose top row
        // stays a slot (1).
        let mut b = Board::new(3, 4, 0);
        for (r, c) in [(0, 0), (0, 3), (2, 0), (2, 3)] {
            b.cover(r, c);
        }
        assert_eq!(counts(&b.f[0]), Counts { real: 4, safe: 0 });
        let sure = |moves, unused, boxes| Sure {
            moves,
            moves_boxes_first: moves,
            unused,
            weight: 4 * moves + unused,
            boxes,
        };
        assert_eq!(guaranteed(&b.f[0], true), sure(2, 2, 1));
        assert_eq!(guaranteed(&b.f[0], false), sure(1, 2, 0));
        // The 2x2 board is one box for each player: worth two to its first mover.
        let b = Board::new(2, 2, 0);
        assert_eq!(guaranteed(&b.f[0], true), sure(2, 0, 1));
        assert_eq!(guaranteed(&b.f[1], false), sure(0, 0, 0));
        // 3x2: the top two rows make a box walled by the edge only (row 2 is free); row 2
        // is a slot touching it. Moving second: the spoiling move leaves the top row.
        let b = Board::new(3, 2, 0);
        assert_eq!(guaranteed(&b.f[0], true), sure(2, 0, 1));
        assert_eq!(guaranteed(&b.f[0], false), sure(1, 0, 0));
    }
}
