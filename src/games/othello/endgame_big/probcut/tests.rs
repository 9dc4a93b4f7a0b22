//! The big boards' selective search measured: the evaluation against the exact margin on
//! positions of 10 to 17 empties of each size (walks from the start, a few random plies and
//! then mostly the pattern evaluation's choice), and the selective pre-search leaving the
//! exact margin as it was.

use super::super::super::Othello;
use super::super::search::{MAX_MOVES, PRESEARCH_MIN_EMPTIES, Solver};
use super::*;
use crate::bits::U256;
use crate::games::othello::board::Geo;
use crate::games::othello::learn_big::default_net;
use crate::games::othello::solve_table::table;
use crate::learn::rng::Rng;

/// Plies from the start of a board of side `n` down to `stop` empties: six random, then the
/// best by a one-ply search of the patterns or, one time in four, a random one; `None` if the
/// game ends first or the side to move must pass there.
fn walk<B: Bits>(rng: &mut Rng, n: u32, stop: u32) -> Option<(Geo<B>, B, B)> {
    let start = Othello::<B>::new(n).ok()?;
    let (g, mut me, mut opp) = (start.geo, start.me, start.opp);
    let t = table();
    let never = || false;
    let mut plies = 0;
    while (g.all & !(me | opp)).count() > stop {
        let mut s = Solver::new(g, me, opp, default_net(g.n), t, &never);
        let mut list = [(0, B::zero()); MAX_MOVES];
        let count = s.moves(me, opp, &mut list);
        if count == 0 {
            if g.moves(opp, me).is_zero() {
                return None;
            }
            (me, opp) = (opp, me);
            continue;
        }
        let (sq, f) = if plies < 6 || rng.below(4) == 0 {
            list[rng.below(count)]
        } else {
            let mut best = (i32::MIN, list[0]);
            for &(sq, f) in &list[..count] {
                s.empties.remove(sq);
                let v = -s.predict(opp & !f, me | f | B::one_at(sq));
                s.empties.restore(sq);
                if v > best.0 {
                    best = (v, (sq, f));
                }
            }
            best.1
        };
        (me, opp) = (opp & !f, me | f | B::one_at(sq));
        plies += 1;
    }
    (!g.moves(me, opp).is_zero()).then_some((g, me, opp))
}

/// Per empties the evaluation's error (evaluation - exact margin): (empties, count, mean,
/// standard deviation), printed.
fn errors<B: Bits>(n: u32, samples: usize, lo: u32, hi: u32) -> Vec<(u32, f64, f64, f64)> {
    let mut stats = std::collections::BTreeMap::<u32, (f64, f64, f64)>::new();
    let mut rng = Rng::new(4800 + n as u64);
    let t = table();
    let never = || false;
    let mut done = 0;
    while done < samples {
        let stop = lo + rng.below((hi - lo + 1) as usize) as u32;
        let Some((g, me, opp)) = walk::<B>(&mut rng, n, stop) else {
            continue;
        };
        done += 1;
        let mut s = Solver::new(g, me, opp, default_net(g.n), t, &never);
        let exact = s.search(me, opp, -s.total, s.total, false);
        let ne = (g.all & !(me | opp)).count();
        let e = (s.predict(me, opp) - exact * 100) as f64;
        let st = stats.entry(ne).or_default();
        *st = (st.0 + 1.0, st.1 + e, st.2 + e * e);
    }
    let mut out = Vec::new();
    for (&ne, &(k, sum, sq)) in &stats {
        let mean = sum / k;
        let sd = (sq / k - mean * mean).max(0.0).sqrt();
        println!("{n}x{n} empties {ne:2}: n {k:3} mean {mean:7.1} sd {sd:6.1}");
        out.push((ne, k, mean, sd));
    }
    out
}

/// The evaluation's error on every big board at 10 to 17 empties: its root mean square may
/// not exceed `sigma` by more than a quarter, or the cuts would be far less sure than their
/// confidence says (`cargo test --release calibrate_big_probcut_sigma -- --ignored
/// --nocapture`; SAMPLES a size, 60 unless set).
#[test]
#[ignore]
fn calibrate_big_probcut_sigma() {
    let samples = std::env::var("SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let mut failures = Vec::new();
    for n in [10u32, 12, 14, 16] {
        let rows = if n == 10 {
            errors::<u128>(n, samples, 10, 17)
        } else {
            errors::<U256>(n, samples, 10, 17)
        };
        let k: f64 = rows.iter().map(|r| r.1).sum();
        let sq: f64 = rows.iter().map(|r| r.1 * (r.3 * r.3 + r.2 * r.2)).sum();
        let rms = (sq / k).sqrt();
        println!("{n}x{n}: n {k} rms {rms:6.1} (sigma {})", sigma(n));
        if rms > 1.25 * sigma(n) as f64 {
            failures.push((n, rms));
        }
    }
    assert!(failures.is_empty(), "sigma too small: {failures:?}");
}

/// The pre-search orders only: on every big board, positions of `PRESEARCH_MIN_EMPTIES` + 1
/// empties solve to the same margin with it as without it (each from a cleared table), and
/// it did run (the nodes differ).
#[test]
fn presearch_leaves_the_margin_exact() {
    fn check<B: Bits>(n: u32) {
        let mut rng = Rng::new(4900 + n as u64);
        let never = || false;
        let t = table();
        let mut checked = 0;
        while checked < 2 {
            let Some((g, me, opp)) = walk::<B>(&mut rng, n, PRESEARCH_MIN_EMPTIES + 1) else {
                continue;
            };
            let mut with = Solver::new(g, me, opp, default_net(g.n), t, &never);
            t.clear();
            let a = with.search(me, opp, -with.total, with.total, false);
            t.clear();
            let mut without = Solver::new(g, me, opp, default_net(g.n), t, &never);
            without.presearch_min = u32::MAX;
            let b = without.search(me, opp, -without.total, without.total, false);
            assert_eq!(a, b, "{n}x{n}: with the pre-search {a}, without {b}");
            assert!(
                with.nodes != without.nodes,
                "{n}x{n}: the pre-search did not run"
            );
            checked += 1;
        }
    }
    check::<u128>(10);
    check::<U256>(12);
    check::<U256>(14);
    check::<U256>(16);
}
