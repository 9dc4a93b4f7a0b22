//! The races of `bounds`' strategies, as tables: the player claims areas (boxes worth two
//! moves, slots worth one) while the opponent spoils them, one area per move, or two that
//! touch across the lines. `race` counts the moves the player is sure to make; `race_weight`
//! the cells it is sure to cover or leave unusable (the cell count). Both tables are built
//! once by backward induction over every state up to their caps (counts beyond a cap are
//! clamped down, which never helps the player: the values stay bounds).

use std::sync::OnceLock;

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
}
