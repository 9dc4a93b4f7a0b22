//! Tests of the 8x8 solver: exact margins and canonical moves against children solved one by
//! one, and scores that do not depend on the move ordering's evaluation (pattern weights or
//! none).

use super::root::ASPIRATION;
use super::*;
use crate::games::othello::learn::default_net;
use crate::learn::rng::Rng;
/// The solver's margin is the best child's exact value, and its canonical move the lowest
/// square reaching it, whatever the table held (positions of 8 to 12 empties from random games,
/// each child solved on its own with a cleared table).
#[test]
fn margin_and_move_are_exact_and_canonical() {
    let table = super::super::solve_table::table();
    let mut rng = Rng::new(17);
    let mut checked = 0;
    while checked < 40 {
        let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
        let stop = 8 + rng.below(5) as u32;
        while (!(p | o)).count_ones() > stop {
            let mut m = moves(p, o);
            if m == 0 {
                if moves(o, p) == 0 {
                    break;
                }
                (p, o) = (o, p);
                continue;
            }
            for _ in 0..rng.below(m.count_ones() as usize) {
                m &= m - 1;
            }
            let sq = m.trailing_zeros();
            let f = flips(p, o, sq);
            (p, o) = (o & !f, p | f | 1 << sq);
        }
        let mv = moves(p, o);
        if mv == 0 || (!(p | o)).count_ones() != stop {
            continue;
        }
        // Each child alone, from a cleared table.
        let mut values = Vec::new();
        let mut m = mv;
        while m != 0 {
            let sq = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, sq);
            table.clear();
            let mut s = Solver::new(table, default_net(), &|| false).expect("8x8");
            values.push((sq, -s.search(o & !f, p | f | 1 << sq, -64, 64, false)));
        }
        let best = values.iter().map(|v| v.1).max().expect("a move");
        let first = values.iter().find(|v| v.1 == best).expect("a move").0;
        // With the table as the previous solves left it.
        let r = solve(p, o, table, default_net(), true, &|| false)
            .expect("8x8")
            .expect("solved");
        assert_eq!((r.margin, r.best as u32), (best, first), "{p:#x} {o:#x}");
        // The fast choice: a move of the best value.
        let r = solve(p, o, table, default_net(), false, &|| false)
            .expect("8x8")
            .expect("solved");
        let value = values.iter().find(|v| v.0 == r.best as u32).map(|v| v.1);
        assert_eq!((r.margin, value), (best, Some(best)), "{p:#x} {o:#x}");
        checked += 1;
    }
}

/// A position of `stop` empties reached by random moves from the start (`None` if the game
/// ended first or the side to move must pass).
fn random_position(rng: &mut Rng, stop: u32) -> Option<(u64, u64)> {
    let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
    while (!(p | o)).count_ones() > stop {
        let mut m = moves(p, o);
        if m == 0 {
            if moves(o, p) == 0 {
                return None;
            }
            (p, o) = (o, p);
            continue;
        }
        for _ in 0..rng.below(m.count_ones() as usize) {
            m &= m - 1;
        }
        let sq = m.trailing_zeros();
        let f = flips(p, o, sq);
        (p, o) = (o & !f, p | f | 1 << sq);
    }
    (moves(p, o) != 0).then_some((p, o))
}

/// The ordering search's evaluation changes the order alone: the margin with the pattern
/// weights equals the margin with `quick_eval` (no weights), each from a cleared table, on
/// positions of 14 to 18 empties (where the ordering search runs, one to two plies deep).
#[test]
fn ordering_evaluation_keeps_scores_exact() {
    let table = super::super::solve_table::table();
    let mut rng = Rng::new(30);
    let mut checked = 0;
    while checked < 8 {
        let stop = 14 + rng.below(5) as u32;
        let Some((p, o)) = random_position(&mut rng, stop) else {
            continue;
        };
        let mut margins = Vec::new();
        for net in [super::super::learn::default_net(), None] {
            table.clear();
            let mut s = Solver::new(table, net, &|| false).expect("8x8");
            margins.push(s.search(p, o, -64, 64, false));
        }
        assert_eq!(margins[0], margins[1], "{p:#x} {o:#x}");
        checked += 1;
    }
    assert!(
        super::super::learn::default_net().is_some(),
        "embedded weights"
    );
}

/// Plain negamax to the end, without table, ordering or cutoffs: the reference margin.
fn negamax(p: u64, o: u64, passed: bool) -> i32 {
    let mut m = moves(p, o);
    if m == 0 {
        if passed {
            return Solver::final_margin(p, o);
        }
        return -negamax(o, p, true);
    }
    let mut best = -65;
    while m != 0 {
        let sq = m.trailing_zeros();
        m &= m - 1;
        let f = flips(p, o, sq);
        best = best.max(-negamax(o & !f, p | f | 1 << sq, false));
    }
    best
}

/// The cutoffs near the end (stability from three empties, the parity order with the squares
/// beside a corner last) keep the margin exact: the solver's margin, with any window that
/// contains it or not, against plain negamax on positions of 7 to 10 empties.
#[test]
fn cutoffs_near_the_end_keep_scores_exact() {
    let table = super::super::solve_table::table();
    let mut rng = Rng::new(31);
    let (mut checked, mut cut) = (0, 0);
    while checked < 300 {
        let stop = 7 + rng.below(4) as u32;
        let Some((p, o)) = random_position(&mut rng, stop) else {
            continue;
        };
        let exact = negamax(p, o, false);
        table.clear();
        let mut s = Solver::new(table, default_net(), &|| false).expect("8x8");
        assert_eq!(s.search(p, o, -64, 64, false), exact, "{p:#x} {o:#x}");
        // Null windows below and above: a fail-soft bound on the right side.
        let v = s.search(p, o, exact - 2, exact - 1, false);
        assert!(
            v >= exact - 1 && v <= exact,
            "{p:#x} {o:#x}: {v} against {exact}"
        );
        let v = s.search(p, o, exact + 1, exact + 2, false);
        assert!(
            v >= exact && v <= exact + 1,
            "{p:#x} {o:#x}: {v} against {exact}"
        );
        cut += usize::from(exact.abs() >= 30);
        checked += 1;
    }
    assert!(
        cut > 10,
        "too few lopsided positions ({cut}) to try the stability cutoff"
    );
}

/// The selective pre-search orders alone: positions of 18 to 20 empties solved with and
/// without it, each from a cleared table, have the same margin.
#[test]
fn presearch_keeps_scores_exact() {
    let table = super::super::solve_table::table();
    let mut rng = Rng::new(32);
    let mut checked = 0;
    while checked < 3 {
        let stop = 18 + rng.below(3) as u32;
        let Some((p, o)) = random_position(&mut rng, stop) else {
            continue;
        };
        let mut margins = Vec::new();
        for min in [PRESEARCH_MIN_EMPTIES, 65] {
            table.clear();
            let mut s = Solver::new(table, default_net(), &|| false).expect("8x8");
            s.presearch_min = min;
            margins.push(s.search(p, o, -64, 64, false));
        }
        assert_eq!(margins[0], margins[1], "{p:#x} {o:#x}");
        checked += 1;
    }
}

/// A guessed margin (the aspiration window of play's endgame levels) changes the work alone:
/// the exact solver and the selective root at a confidence too high to cut anything find the
/// exact margin, and a move reaching it, from guesses below, at and above it (positions of
/// 10 to 15 empties; every guess from a cleared table).
#[test]
fn a_guessed_margin_keeps_scores_exact() {
    let table = super::super::solve_table::table();
    let mut rng = Rng::new(33);
    let (mut checked, mut missed) = (0, 0);
    while checked < 24 {
        let stop = 10 + rng.below(6) as u32;
        let Some((p, o)) = random_position(&mut rng, stop) else {
            continue;
        };
        table.clear();
        let exact = solve(p, o, table, default_net(), true, &|| false)
            .expect("8x8")
            .expect("solved")
            .margin;
        for guess in [
            -64,
            exact - 9,
            exact - 3,
            exact - 1,
            exact,
            exact + 2,
            exact + 7,
            64,
        ] {
            let guess = guess.clamp(-64, 64);
            missed += usize::from((guess - exact).abs() > ASPIRATION);
            table.clear();
            let r = solve_within(p, o, table, default_net(), Some(guess), u64::MAX, &|| false)
                .expect("8x8")
                .expect("solved");
            table.clear();
            let sel = solve_selective_root(
                p,
                o,
                table,
                default_net(),
                Confidence(1_000_000),
                Some(guess),
                u64::MAX,
                &|| false,
            )
            .expect("8x8")
            .expect("searched");
            assert!(sel.complete);
            for (margin, best) in [(r.margin, r.best), (sel.result.margin, sel.result.best)] {
                assert_eq!(margin, exact, "{p:#x} {o:#x} guess {guess}");
                let f = flips(p, o, best as u32);
                let mut s = Solver::new(table, default_net(), &|| false).expect("8x8");
                let child = s.search(o & !f, p | f | 1 << best, -64, 64, false);
                assert_eq!(-child, exact, "{p:#x} {o:#x} guess {guess}: move {best}");
            }
        }
        checked += 1;
    }
    assert!(missed > 24, "too few guesses outside the window ({missed})");
}
