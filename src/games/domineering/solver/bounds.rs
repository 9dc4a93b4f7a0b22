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
//!
//! `Areas` keeps Q's strategy moving first apart by area, so that each move of P can be
//! judged by the areas that move covers (`Areas::after`): with those taken away, Q moving
//! first in the child still has the rest (P's move spoiled nothing else, and covered cells
//! only add walls), which refutes P's move when it outlasts P.

use super::frame::{Frame, MAX_LINES, pack, pairs};
use super::race::{race, race_weight};

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    strategy::<false>(f, first, &mut Areas::default())
}

/// The player's strategy moving first, taken apart area by area, so that each opponent move
/// can be judged by the areas it spoils (`after`).
#[derive(Default)]
pub struct Areas {
    /// What the strategy guarantees when no area is spoiled.
    pub whole: Sure,
    /// Per kind of area, per line: box anchors (on the box's first line), slot anchors,
    /// option cells. Kinds: isolated and touching boxes, isolated and touching plain slots,
    /// isolated and touching slots with a protected cell, options of gain 1 and of gain 2 or
    /// more.
    mask: [[u32; MAX_LINES]; 8],
    count: [u32; 8],
    safe: u32,
    unused: u32,
}

impl Areas {
    /// The player's strategy, moving first, after an opponent move that covers the cells
    /// `x` (one bit) of lines `a` and `a + 1`: the areas it touches are gone, the rest stay
    /// whole (boxes never touch across the lines, so at most one box goes; areas are
    /// disjoint, so each cell spoils at most one). Kept kinds are not reclassified (an area
    /// left isolated still counts as touching: a bound all the same).
    pub fn after(&self, a: usize, x: u32) -> Sure {
        let xx = x | x >> 1;
        let mut c = self.count;
        let (mut hit, mut slots) = (false, 0);
        for (k, (m, count)) in self.mask.iter().zip(&mut c).enumerate() {
            let spoiled = match k {
                // A box on lines a, a + 1 goes whole; one on lines a - 1, a or a + 1, a + 2
                // leaves the pair of its other line, a slot (counted as touching).
                0 | 1 => {
                    if m[a] & xx != 0 {
                        1
                    } else if (m[a - 1] | m[a + 1]) & xx != 0 {
                        slots += 1;
                        1
                    } else {
                        0
                    }
                }
                2..6 => (m[a] & xx != 0) as u32 + (m[a + 1] & xx != 0) as u32,
                _ => (m[a] & x != 0) as u32 + (m[a + 1] & x != 0) as u32,
            };
            *count -= spoiled;
            hit |= spoiled > 0;
        }
        c[3] += slots;
        if !hit {
            return self.whole;
        }
        let [best, boxes_first] = race(c[0], c[1], c[2] + c[4], c[3] + c[5], true);
        let weight = 4 * self.safe
            + self.unused
            + race_weight([c[0], c[1], c[2], c[3], c[4] + c[5], c[6], c[7]], true);
        Sure {
            moves: self.safe + best,
            moves_boxes_first: self.safe + boxes_first,
            unused: self.unused,
            weight: weight.max(4 * (self.safe + best) + self.unused),
            boxes: (c[0] + c[1]).div_ceil(2),
        }
    }
}

/// `guaranteed` moving first, with its areas.
pub fn areas(f: &Frame) -> Areas {
    let mut a = Areas::default();
    a.whole = strategy::<true>(f, true, &mut a);
    a
}

#[inline(always)]
fn strategy<const MARK: bool>(f: &Frame, first: bool, out: &mut Areas) -> Sure {
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
        if MARK {
            out.mask[2][i] = slots[i] & !paired & !with_prot;
            out.mask[3][i] = paired & !with_prot;
            out.mask[4][i] = with_prot & !paired;
            out.mask[5][i] = with_prot & paired;
        }
        unused += (prot[i] & !used[i] & !cells[i]).count_ones();
        if box_at[i] != 0 {
            // A box on lines i, i + 1 touches slots on line i - 1 or i + 2.
            let near = cells[i - 1] | cells[i + 2];
            let touching = box_at[i] & (near | near >> 1);
            if MARK {
                out.mask[0][i] = box_at[i] & !touching;
                out.mask[1][i] = touching;
            }
            let hit = touching.count_ones();
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
            if MARK {
                out.mask[if gain == 1 { 6 } else { 7 }][i] |= b;
            }
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
    if MARK {
        out.count = [
            b1,
            b2,
            k1 - kp[0],
            k2 - kp[1],
            kp[0],
            kp[1],
            gains[1],
            gains[2] + gains[3],
        ];
        out.safe = safe;
        out.unused = unused;
    }
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::games::domineering::solver::frame::{Board, Mv};
    use crate::games::domineering::solver::proves;
    use crate::learn::rng::Rng;
    use std::collections::HashMap;

    /// The moves of the side to move (anchors in its frame).
    pub(in crate::games::domineering::solver) fn moves_of(b: &Board) -> Vec<Mv> {
        let f = &b.f[b.turn];
        let mut v = Vec::new();
        for i in 1..=f.n {
            let mut s = f.free(i) & (f.free(i) >> 1);
            while s != 0 {
                let j = s.trailing_zeros();
                s &= s - 1;
                v.push(Mv {
                    line: i as u8,
                    bit: j as u8,
                });
            }
        }
        v
    }

    /// Does the side to move win? Plain negamax over every move, memoised on the cells.
    pub(in crate::games::domineering::solver) fn brute(
        b: &Board,
        memo: &mut HashMap<(u64, usize), bool>,
    ) -> bool {
        let mut key = 0u64;
        for i in 1..=b.f[0].n {
            key = key << b.f[0].w | (b.f[0].free(i) as u64);
        }
        if let Some(&w) = memo.get(&(key, b.turn)) {
            return w;
        }
        let w = moves_of(b).into_iter().any(|m| {
            let mut c = *b;
            c.play(m);
            !brute(&c, memo)
        });
        memo.insert((key, b.turn), w);
        w
    }

    /// Every move that `Areas::after` says the opponent's strategy refutes (the opponent,
    /// moving first with only the spoiled areas taken away, outlasts the mover) is refuted:
    /// checked by brute force on random positions of small boards.
    #[test]
    fn after_refutes_only_lost_moves() {
        let mut rng = Rng::new(5);
        let mut memo = HashMap::new();
        let (mut refuted, mut kept) = (0, 0);
        for (rows, cols) in [
            (4, 5),
            (5, 4),
            (5, 5),
            (4, 6),
            (6, 4),
            (3, 7),
            (5, 6),
            (6, 5),
        ] {
            memo.clear();
            for game in 0..150 {
                let mut b = Board::new(rows, cols, game % 2);
                let stop = 12 + rng.below(8) as u32;
                while b.empty > stop {
                    let v = moves_of(&b);
                    if v.is_empty() {
                        break;
                    }
                    b.play(v[rng.below(v.len())]);
                }
                let p = b.turn;
                let theirs = areas(&b.f[1 - p]);
                assert_eq!(theirs.whole, guaranteed(&b.f[1 - p], true));
                for m in moves_of(&b) {
                    let mut c = b;
                    c.play(m);
                    let after = theirs.after(m.bit as usize + 1, 1 << (m.line - 1));
                    if proves(&after, counts(&c.f[p]).real, c.empty, 1) {
                        assert!(brute(&c, &mut memo), "{rows}x{cols} {:?} {m:?}", b.f[0]);
                        refuted += 1;
                    } else {
                        kept += 1;
                    }
                }
            }
        }
        // The check must have had something to check, both ways.
        assert!(
            refuted > 1000 && kept > 1000,
            "{refuted} refuted, {kept} kept"
        );
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
