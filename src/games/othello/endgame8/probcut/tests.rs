//! The selective search's error model, measured: the predicting search against the exact
//! margin on positions of 10 to 18 empties (the FFO #1-#19 set and the midgame set of
//! `tests/data`, each taken a few plies on by `walk`), and the selective search against the exact
//! one at the confidences play uses.

use super::super::{Solver, flips, moves, solve};
use super::*;
use crate::games::othello::learn::default_net;
use crate::games::othello::solve_table::table;
use crate::learn::rng::Rng;

/// The positions of an .obf file (64 squares X/O/-, then the side to move) as (mover, other).
fn obf_positions(text: &str) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(board), Some(side)) = (words.next(), words.next()) else {
            continue;
        };
        if board.len() != 64 {
            continue;
        }
        let (mut x, mut o) = (0u64, 0u64);
        for (i, ch) in board.chars().enumerate() {
            match ch {
                'X' => x |= 1 << i,
                'O' => o |= 1 << i,
                _ => {}
            }
        }
        out.push(if side.starts_with('X') {
            (x, o)
        } else {
            (o, x)
        });
    }
    out
}

/// The weights measured: `EVAL_FILE` (a pattern file) where set, else the embedded ones.
fn net() -> Net {
    match std::env::var("EVAL_FILE") {
        Ok(path) => Some(crate::games::othello::learn::PatternNet::load(&path).expect("EVAL_FILE")),
        Err(_) => default_net(),
    }
}

/// Plies from `(p, o)` down to `stop` empties, each the move leaving the opponent the fewest
/// replies (the first in square order of those) or, one time in four, a random one: positions
/// like those of play, varied, and the same whatever the weights measured on them; `None` if
/// the game ends first or the side to move must pass there.
fn walk(rng: &mut Rng, (mut p, mut o): (u64, u64), stop: u32) -> Option<(u64, u64)> {
    while (!(p | o)).count_ones() > stop {
        let mut m = moves(p, o);
        if m == 0 {
            if moves(o, p) == 0 {
                return None;
            }
            (p, o) = (o, p);
            continue;
        }
        let sq = if rng.below(4) == 0 {
            for _ in 0..rng.below(m.count_ones() as usize) {
                m &= m - 1;
            }
            m.trailing_zeros()
        } else {
            let (mut fewest, mut best_sq) = (u32::MAX, 64);
            while m != 0 {
                let sq = m.trailing_zeros();
                m &= m - 1;
                let f = flips(p, o, sq);
                let replies = moves(o & !f, p | f | 1 << sq).count_ones();
                if replies < fewest {
                    (fewest, best_sq) = (replies, sq);
                }
            }
            best_sq
        };
        let f = flips(p, o, sq);
        (p, o) = (o & !f, p | f | 1 << sq);
    }
    (moves(p, o) != 0).then_some((p, o))
}

fn samples(per_base: usize, lo: u32, hi: u32) -> Vec<(u64, u64)> {
    let mut bases = obf_positions(include_str!("../../../../../tests/data/fforum-1-19.obf"));
    // The midgame set's first 99 positions (22-24 empties, the set when these samples were
    // drawn): the later ones would change every sample after them and lengthen the test.
    let midgame = include_str!("../../../../../tests/data/othello-midgame.obf");
    bases.extend(obf_positions(
        &midgame.lines().take(99).collect::<Vec<_>>().join("\n"),
    ));
    assert!(bases.len() >= 40, "{} base positions", bases.len());
    let mut rng = Rng::new(2026);
    let mut out = Vec::new();
    for &b in &bases {
        for _ in 0..per_base {
            let stop = lo + rng.below((hi - lo + 1) as usize) as u32;
            if let Some(pos) = walk(&mut rng, b, stop) {
                out.push(pos);
            }
        }
    }
    out
}

/// The predicting search's error (prediction - exact) at 10 to 18 empties: at each depth its
/// standard deviation may not exceed `sigma` by more than a quarter, or the cuts would be
/// taken with less confidence than they claim; its mean is play's `bias` within one disc, and
/// over the pre-search's even depths, and over its odd ones, the pre-search's within one and a
/// half (its bias is set on FFO's node counts, which want it about a disc below the sample's
/// mean: with round 10's patterns 139 below, with round 6's 66). Prints the table
/// (`cargo test --release calibrate_probcut_sigma -- --nocapture`; `EVAL_FILE=file` measures
/// other weights on the same positions).
#[test]
fn calibrate_probcut_sigma() {
    let (t, net) = (table(), net());
    let deepest = (10..=18).map(|ne| depth_for(ne, false)).max().unwrap_or(0);
    // (empties, depth) -> (count, sum, sum of squares)
    let mut stats = std::collections::BTreeMap::<(u32, u32), (f64, f64, f64)>::new();
    for (p, o) in samples(8, 10, 18) {
        let ne = (!(p | o)).count_ones();
        let exact = solve(p, o, t, net, false, &|| false)
            .expect("8x8")
            .expect("solved")
            .margin;
        let mut s = Solver::new(t, net, &|| false).expect("8x8");
        for depth in 0..=deepest {
            let e = (s.prediction(p, o, depth) - exact * 100) as f64;
            let st = stats.entry((ne, depth)).or_default();
            *st = (st.0 + 1.0, st.1 + e, st.2 + e * e);
        }
    }
    // (count, sum, sum of squares) per depth and parity of the empties (the bias's parity is
    // the depth's alone: printed to show what it leaves).
    let mut cells = vec![[(0.0, 0.0, 0.0); 2]; deepest as usize + 1];
    for (&(ne, depth), &(n, sum, sq)) in &stats {
        let c = &mut cells[depth as usize][ne as usize % 2];
        *c = (c.0 + n, c.1 + sum, c.2 + sq);
        let mean = sum / n;
        let sd = (sq / n - mean * mean).max(0.0).sqrt();
        println!("empties {ne:2} depth {depth}: n {n:3} mean {mean:7.1} sd {sd:6.1}");
    }
    let stat =
        |(n, sum, sq): (f64, f64, f64)| (n, sum / n, (sq / n - (sum / n).powi(2)).max(0.0).sqrt());
    let mut failures = Vec::new();
    // (count, sum) over the pre-search's depths (0 to 3) of each parity.
    let mut pre = [(0.0, 0.0); 2];
    for (depth, &[even, odd]) in cells.iter().enumerate() {
        let all = (even.0 + odd.0, even.1 + odd.1, even.2 + odd.2);
        let (n, mean, sd) = stat(all);
        let depth = depth as u32;
        let (b, s) = (bias(depth, false), sigma(10, depth));
        println!(
            "depth {depth}: n {n:4} mean {mean:7.1} (bias {b}) sd {sd:6.1} (sigma {s}); even empties mean {:7.1}, odd {:7.1}",
            stat(even).1,
            stat(odd).1
        );
        if (mean - b as f64).abs() > 100.0 {
            failures.push(format!(
                "depth {depth}: mean error {mean:.1} against bias {b}"
            ));
        }
        if sd > 1.25 * s as f64 {
            failures.push(format!("depth {depth}: sd {sd:.1} against sigma {s}"));
        }
        if depth <= 3 {
            let p = &mut pre[depth as usize % 2];
            *p = (p.0 + n, p.1 + all.1);
        }
    }
    for (parity, &(n, sum)) in pre.iter().enumerate() {
        let (mean, b) = (sum / n, bias(parity as u32, true));
        println!("pre-search, depths of parity {parity}: mean {mean:7.1} (bias {b})");
        if (mean - b as f64).abs() > 150.0 {
            failures.push(format!(
                "pre-search, depths of parity {parity}: mean error {mean:.1} against bias {b}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The midgame set (22-26 empties, every move valued exactly): at each confidence, the
/// selective search's move and its loss against the best move, and its nodes against the
/// exact solve's. Prints the table (`-- --ignored --nocapture`).
#[test]
#[ignore]
fn selective_levels_on_the_midgame_set() {
    let text = include_str!("../../../../../tests/data/othello-midgame.obf");
    let (t, net) = (table(), net());
    for c in std::env::var("LEVELS")
        .ok()
        .map_or(vec![50, 70, 100, 150, 200, 260, 0], |v| {
            v.split(',').filter_map(|x| x.parse().ok()).collect()
        })
    {
        let (mut loss, mut best, mut nodes, mut n, mut err) = (0, 0, 0u64, 0, 0);
        let mut ordering = 0u64;
        let start = std::time::Instant::now();
        for line in text.lines() {
            let Some(&(p, o)) = obf_positions(line).first() else {
                continue;
            };
            let values: Vec<(String, i32)> = line
                .split(';')
                .skip(1)
                .filter_map(|w| {
                    let (m, v) = w.trim().split_once(':')?;
                    Some((m.to_ascii_lowercase(), v.trim().parse().ok()?))
                })
                .collect();
            let top = values.iter().map(|v| v.1).max().expect("values");
            t.clear();
            let r = if c == 0 {
                solve(p, o, t, net, false, &|| false)
            } else {
                solve_selective(p, o, t, net, Confidence(c), &|| false)
            }
            .expect("8x8")
            .expect("searched");
            let name = format!("{}{}", (b'a' + (r.best % 8) as u8) as char, 1 + r.best / 8);
            let v = values
                .iter()
                .find(|x| x.0 == name)
                .map(|x| x.1)
                .expect("move valued");
            loss += top - v;
            best += (v == top) as i32;
            err += (r.margin - top).abs();
            nodes += r.nodes;
            ordering += r.ordering_nodes;
            n += 1;
        }
        println!(
            "t {:.2}: {n} positions, mean loss {:.2}, best {best}, mean |margin error| {:.2}, {nodes} nodes + {ordering} ordering, {:?}",
            c as f64 / 100.0,
            loss as f64 / n as f64,
            err as f64 / n as f64,
            start.elapsed()
        );
        assert!(c != 0 || best == n, "the exact solve missed a best move");
    }
}

/// A selective search's bounds never reach an exact one: after selective searches at a low
/// confidence have filled the table, the exact margins equal those solved from a cleared table
/// (positions of 14 to 18 empties).
#[test]
fn selective_entries_leave_exact_solves_exact() {
    let t = table();
    let positions = samples(1, 14, 18);
    assert!(positions.len() >= 30, "{} positions", positions.len());
    for &(p, o) in positions.iter().take(30) {
        t.clear();
        let exact = solve(p, o, t, default_net(), false, &|| false)
            .expect("8x8")
            .expect("solved");
        t.clear();
        for c in [50, 100] {
            solve_selective(p, o, t, default_net(), Confidence(c), &|| false)
                .expect("8x8")
                .expect("searched");
        }
        let again = solve(p, o, t, default_net(), false, &|| false)
            .expect("8x8")
            .expect("solved");
        assert_eq!(again.margin, exact.margin, "{p:#x} {o:#x}");
    }
}

/// Play's driver ends with the exact solver: with no limit it reports the exact margin, as
/// exact (`None`), from the selective range (17 to 20 empties) and below it.
#[test]
fn play_driver_ends_exact() {
    use crate::games::othello::Othello;
    let t = table();
    for &(p, o) in samples(1, 15, 20).iter().take(12) {
        let mut pos = Othello::<u64>::new(8).expect("8x8");
        (pos.me, pos.opp) = (p, o);
        t.clear();
        let exact = solve(p, o, t, default_net(), false, &|| false)
            .expect("8x8")
            .expect("solved");
        let budget = crate::game::PlayBudget::default();
        let r = crate::games::othello::endgame::solve_in_play(&pos, &|_| false, budget)
            .expect("solved in play");
        assert_eq!(
            (r.result.margin, r.level, r.complete),
            (exact.margin, None, true),
            "{p:#x} {o:#x}"
        );
    }
}

/// An aborted selective search keeps what its root learned: after an abort at any point it
/// answers nothing or a legal move with a margin in range, marked unfinished, beginning with
/// the table's move; unaborted, it is `solve_selective` (positions of 18 to 20 empties).
#[test]
fn unfinished_root_keeps_a_searched_move() {
    let t = table();
    for &(p, o) in samples(1, 18, 20).iter().take(6) {
        for limit in [1u32, 4, 16, 64, 256] {
            t.clear();
            let calls = std::cell::Cell::new(0u32);
            let abort = || {
                calls.set(calls.get() + 1);
                calls.get() > limit
            };
            let Some(r) = solve_selective_root(
                p,
                o,
                t,
                default_net(),
                Confidence(100),
                None,
                u64::MAX,
                &abort,
            )
            .expect("8x8") else {
                continue;
            };
            assert!(moves(p, o) & 1 << r.result.best != 0, "{p:#x} {o:#x}");
            assert!((-64..=64).contains(&r.result.margin));
            assert!(moves(p, o) & 1 << r.first != 0);
            if r.complete {
                t.clear();
                let whole = solve_selective(p, o, t, default_net(), Confidence(100), &|| false)
                    .expect("8x8")
                    .expect("searched");
                assert_eq!(whole.margin, r.result.margin, "{p:#x} {o:#x}");
            }
        }
    }
}

/// The prediction table changes no decision: a selective search run again from a cleared table
/// of bounds, with the predictions its first run left, finds the same margin and move through
/// the same nodes, and its predicting searches visit fewer positions (positions of 18 to 22
/// empties, a table of their own).
#[test]
fn kept_predictions_change_no_cut() {
    let t = crate::games::othello::solve_table::Table::new();
    let positions = samples(1, 18, 22);
    assert!(positions.len() >= 8, "{} positions", positions.len());
    let (mut cold, mut warm) = (0, 0);
    for &(p, o) in positions.iter().take(8) {
        let run = || {
            solve_selective_root(
                p,
                o,
                &t,
                default_net(),
                Confidence(100),
                None,
                u64::MAX,
                &|| false,
            )
            .expect("8x8")
            .expect("searched")
            .result
        };
        t.clear();
        let a = run();
        t.clear_bounds();
        let b = run();
        assert_eq!(
            (a.margin, a.best, a.nodes),
            (b.margin, b.best, b.nodes),
            "{p:#x} {o:#x}"
        );
        (cold, warm) = (cold + a.ordering_nodes, warm + b.ordering_nodes);
    }
    assert!(warm < cold, "predicting positions {warm} kept, {cold} cold");
}
