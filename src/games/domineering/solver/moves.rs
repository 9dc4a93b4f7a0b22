//! The solver's move generation: each move of the side to move with its ordering score and
//! both frames' counts after it (worked out from what the move changes, never recounted),
//! and what becomes of a move before its child is made (`verdict`).
//!
//! Scores: what a move takes from the opponent and keeps for the mover (real and safe move
//! counts before and after), times 128, plus a positional preference (0..127).

use super::bounds::{self, Counts};
use super::frame::{self, Mv};
use super::{Node, Solver, hopeful, outlasts, proves};

/// A move with its ordering score and the counts of both frames after it.
#[derive(Clone, Copy)]
pub(super) struct Scored {
    pub mv: Mv,
    pub score: i32,
    pub c: [Counts; 2],
}

/// What becomes of a move before its child is made (`Solver::verdict`).
pub(super) enum Verdict {
    Refuted,
    Wins,
    Search,
}

impl Solver<'_> {
    /// The side to move's moves with their ordering scores; safe moves only with `all`.
    pub(super) fn moves(&self, n: &Node, list: &mut Vec<Scored>, all: bool) {
        list.clear();
        let p = n.b.turn;
        let (f, g) = (&n.b.f[p], &n.b.f[1 - p]);
        let pos = &self.pos[p];
        // Per line, the packings before the move: the mover's free and protected cells, the
        // opponent's free and protected cells.
        let (mut f_free, mut f_prot) = ([0i32; frame::MAX_LINES], [0i32; frame::MAX_LINES]);
        for i in 1..=f.n {
            f_free[i] = frame::pack(f.free(i)) as i32;
            f_prot[i] = frame::pack(f.prot(i)) as i32;
        }
        let (mut g_free, mut g_prot) = ([0i32; frame::MAX_LINES], [0i32; frame::MAX_LINES]);
        for l in 1..=g.n {
            g_free[l] = frame::pack(g.free(l)) as i32;
            g_prot[l] = frame::pack(g.prot(l)) as i32;
        }
        for i in 1..=f.n {
            let free = f.free(i);
            let prot = f.prot(i);
            let mut s = free & (free >> 1);
            if !all {
                s &= !(prot & (prot >> 1));
            }
            while s != 0 {
                let j = s.trailing_zeros();
                s &= s - 1;
                let m = 3u32 << j;
                // The mover: its line loses the cells; the lines beside gain a wall.
                let my_real = frame::pack(free & !m) as i32 - f_free[i];
                let mut my_safe = frame::pack(prot & !m) as i32 - f_prot[i];
                if i > 1 {
                    my_safe += f.safe_with(i - 1, 0, m) as i32 - f_prot[i - 1];
                }
                if i < f.n {
                    my_safe += f.safe_with(i + 1, m, 0) as i32 - f_prot[i + 1];
                }
                // The opponent: two of its lines lose a cell; the lines beside gain a wall.
                let bit = 1u32 << (i - 1);
                let (a, b) = (j as usize + 1, j as usize + 2);
                let mut opp_real = 0;
                for l in [a, b] {
                    opp_real += g_free[l] - frame::pack(g.free(l) & !bit) as i32;
                }
                let mut opp_safe = 0;
                if a > 1 {
                    opp_safe += g.safe_with(a - 1, 0, bit) as i32 - g_prot[a - 1];
                }
                if b < g.n {
                    opp_safe += g.safe_with(b + 1, bit, 0) as i32 - g_prot[b + 1];
                }
                let score = my_real + my_safe + opp_real - opp_safe;
                let mv = Mv {
                    line: i as u8,
                    bit: j as u8,
                };
                let mut c = n.c;
                c[p].real = (c[p].real as i32 + my_real) as u32;
                c[p].safe = (c[p].safe as i32 + my_safe) as u32;
                c[1 - p].real = (c[1 - p].real as i32 - opp_real) as u32;
                c[1 - p].safe = (c[1 - p].safe as i32 + opp_safe) as u32;
                list.push(Scored {
                    mv,
                    score: score * 128 + pos[i * 16 + j as usize],
                    c,
                });
            }
        }
    }

    /// Does one of the side to move's `AT_ONCE` best moves win at once, by the counts or by
    /// the mover's strategy moving second in the child (the child's second test, made
    /// without the child)? Sorts `list` by score, best first (stable: ties keep their order).
    pub(super) fn wins_at_once(&self, n: &Node, list: &mut [Scored]) -> bool {
        list.sort_by_key(|s| -s.score);
        let p = n.b.turn;
        let e = n.b.empty - 2;
        list.iter().take(AT_ONCE).any(|s| {
            let c = s.c;
            if c[p].safe >= c[1 - p].real {
                return true;
            }
            if !hopeful(c[p], c[1 - p], e) {
                return false;
            }
            let mut f = n.b.f[p];
            f.line[s.mv.line as usize] |= 3 << s.mv.bit;
            proves(&bounds::guaranteed(&f, false), c[1 - p].real, e, 0)
        })
    }

    /// What becomes of a move without making the child: refuted by the child's count
    /// cutoffs or by the opponent's strategies (`theirs` moving second against any move,
    /// `first` moving first after the areas this move spoils), winning by the counts, or
    /// to be searched.
    pub(super) fn verdict(
        &self,
        n: &Node,
        s: &Scored,
        theirs: Option<&bounds::Sure>,
        first: Option<&bounds::Areas>,
    ) -> Verdict {
        let p = n.b.turn;
        let c = s.c;
        if c[1 - p].safe > c[p].real {
            return Verdict::Refuted;
        }
        if c[p].safe >= c[1 - p].real {
            return Verdict::Wins;
        }
        if let Some(g) = theirs
            && outlasts(g, c[p].real)
        {
            return Verdict::Refuted;
        }
        if let Some(a) = first {
            let m = s.mv;
            let after = a.after(m.bit as usize + 1, 1 << (m.line - 1));
            if proves(&after, c[p].real, n.b.empty - 2, 1) {
                return Verdict::Refuted;
            }
        }
        // The child's own first test, the opponent's strategy moving first on its frame
        // after the move, made here without the child (`wins` skips it for judged children).
        let e = n.b.empty - 2;
        if hopeful(c[1 - p], c[p], e) {
            let mut g = n.b.f[1 - p];
            let (m, bit) = (s.mv, 1u32 << (s.mv.line - 1));
            g.line[m.bit as usize + 1] |= bit;
            g.line[m.bit as usize + 2] |= bit;
            if proves(&bounds::guaranteed(&g, true), c[p].real, e, 1) {
                return Verdict::Refuted;
            }
        }
        Verdict::Search
    }
}

/// Moves tried by `Solver::wins_at_once`, best scores first (on 8x9 with Vertical first, 8
/// moves: 1.09 M nodes, 1.48 s; 12: 1.01 M, 1.43 s; 24: 0.99 M, 1.53 s; all: 1.53 s).
const AT_ONCE: usize = 12;

/// Preference of each anchor of a frame with `n` lines of `w` cells (`line * 16 + bit`):
/// lines at an odd distance from the nearer edge first (a domino there walls in the edge
/// line for the mover), nearer the edge before farther; anchors that pair up with the
/// nearer side edge before the others. A tie-break only: 0..127.
pub(super) fn positional(n: u32, w: u32) -> Vec<i32> {
    let mut v = vec![0i32; 17 * 16];
    for i in 1..=n {
        let d = (i - 1).min(n - i);
        let class = if d % 2 == 1 {
            3
        } else if d > 0 {
            2
        } else {
            1
        };
        for j in 0..w.saturating_sub(1) {
            let side = j.min(w - 2 - j);
            let aligned = side % 2 == 0;
            v[(i * 16 + j) as usize] = (class * 32 + if aligned { 16 } else { 0 } + 15
                - (d / 2).min(7)
                - (side / 2).min(8)) as i32;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::domineering::solver::Table;
    use crate::games::domineering::solver::bounds::counts;
    use crate::games::domineering::solver::frame::Board;
    use crate::learn::rng::Rng;

    /// A node judged won at once (`wins_at_once`) is won, and a move refuted without its
    /// child (`verdict`) loses: checked by brute force on random positions of small boards,
    /// with both outcomes met often enough to mean something.
    #[test]
    fn judged_without_a_child_is_right() {
        use crate::games::domineering::solver::bounds::tests::brute;
        use crate::games::domineering::solver::bounds::{areas, guaranteed};
        use std::collections::HashMap;
        let table = Table::new(1);
        let mut rng = Rng::new(11);
        let mut memo = HashMap::new();
        let (mut at_once, mut refuted, mut searched) = (0, 0, 0);
        for (rows, cols) in [(4, 5), (5, 4), (5, 5), (4, 6), (6, 4), (5, 6), (6, 5)] {
            memo.clear();
            let s = Solver::new(rows, cols, &table, &|| false);
            for game in 0..200 {
                let mut n = s.node(Board::new(rows, cols, game % 2));
                let stop = 12 + rng.below(10) as u32;
                let mut list = Vec::new();
                while n.b.empty > stop {
                    s.moves(&n, &mut list, true);
                    if list.is_empty() {
                        break;
                    }
                    let pick = list[rng.below(list.len())];
                    n = s.child(&n, &pick, false);
                }
                s.moves(&n, &mut list, false);
                if list.is_empty() {
                    continue;
                }
                let p = n.b.turn;
                if s.wins_at_once(&n, &mut list) {
                    assert!(brute(&n.b, &mut memo), "{rows}x{cols} {:?}", n.b.f[0]);
                    at_once += 1;
                }
                let theirs = guaranteed(&n.b.f[1 - p], false);
                let first = areas(&n.b.f[1 - p]);
                for m in &list {
                    let c = s.child(&n, m, false);
                    match s.verdict(&n, m, Some(&theirs), Some(&first)) {
                        Verdict::Refuted => {
                            assert!(brute(&c.b, &mut memo), "{rows}x{cols} {:?}", m.mv);
                            refuted += 1;
                        }
                        Verdict::Wins => assert!(!brute(&c.b, &mut memo)),
                        Verdict::Search => searched += 1,
                    }
                }
            }
        }
        assert!(
            at_once > 400 && refuted > 2000 && searched > 2000,
            "{at_once} at once, {refuted} refuted, {searched} searched"
        );
    }

    /// The counts a node carries, updated from the move generator's reckoning, equal the
    /// counts recomputed from the board after every move, down random games on boards of
    /// several shapes (both frames, safe moves included).
    #[test]
    fn carried_counts_match_the_board() {
        let table = Table::new(1);
        let mut rng = Rng::new(7);
        for (rows, cols) in [(8, 8), (9, 9), (3, 16), (16, 5), (10, 10), (16, 16)] {
            let s = Solver::new(rows, cols, &table, &|| false);
            for game in 0..20 {
                let mut n = s.node(Board::new(rows, cols, game % 2));
                let mut list = Vec::new();
                loop {
                    s.moves(&n, &mut list, true);
                    if list.is_empty() {
                        break;
                    }
                    for m in &list {
                        let c = s.child(&n, m, false);
                        assert_eq!(c.c, [counts(&c.b.f[0]), counts(&c.b.f[1])]);
                    }
                    let pick = list[rng.below(list.len())];
                    n = s.child(&n, &pick, false);
                }
            }
        }
    }
}
