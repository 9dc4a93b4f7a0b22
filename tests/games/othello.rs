//! Othello: perft against the published counts, FFO endgame scores, moves and flips against a
//! plain reference implementation on every board size, notation, FEN, and conformance.

use super::common;

use common::Rng;
use common::conformance::{check_position, playouts};
use tabula::bits::{Bits, U256};
use tabula::game::{BooksAndSolvers, Notation, Outcome, PlayBudget, Rules, SearchHints};
use tabula::games::othello::{Othello, PASS, endgame};
use tabula::perft::perft;

/// Published 8x8 perft counts from the start, passes counting as moves (the table;
/// the usual published Othello perft figures).
const PERFT: &[(u32, u64)] = &[
    (1, 4),
    (2, 12),
    (3, 56),
    (4, 244),
    (5, 1396),
    (6, 8200),
    (7, 55092),
    (8, 390216),
];
const PERFT_DEEP: &[(u32, u64)] = &[(9, 3_005_288), (10, 24_571_284)];

#[test]
fn perft_start_8x8() {
    let start = Othello::<u64>::new(8).unwrap();
    for &(d, n) in PERFT {
        assert_eq!(perft(&start, d), n, "depth {d}");
    }
}

#[test]
#[ignore = "a few seconds"]
fn perft_start_8x8_deep() {
    let start = Othello::<u64>::new(8).unwrap();
    for &(d, n) in PERFT_DEEP {
        assert_eq!(perft(&start, d), n, "depth {d}");
    }
}

/// FFO endgame test positions #1-#8 (Fforum, 14-16 empties) with their published exact scores
/// for the side to move (as in ../shared/data/othello/fforum-1-19.obf).
const FFO: &[(&str, &str, i32)] = &[
    (
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
        "FFO #1",
        18,
    ),
    (
        "-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X",
        "FFO #2",
        10,
    ),
    (
        "----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X",
        "FFO #3",
        2,
    ),
    (
        "-XXXXXX-X-XXXOO-XOXXXOOXXXOXOOOX-OXOOXXX--OOOXXX--OOXX----XOXXO- X",
        "FFO #4",
        0,
    ),
    (
        "-OOOOO----OXXO-XXXOXOXX-XXOXOXXOXXOOXOOOXXXXOO-OX-XOOO---XXXXX-- X",
        "FFO #5",
        32,
    ),
    (
        "--OXXX--OOOXXX--OOOXOXO-OOXOOOX-OOXXXXXXXOOXXOX--OOOOX---XXXXXX- X",
        "FFO #6",
        14,
    ),
    (
        "--OXXO--XOXXXX--XOOOXXXXXOOXXXXXXOOOOXXX-XXXXXXX--XXOOO----XXOO- X",
        "FFO #7",
        8,
    ),
    (
        "---X-X--X-XXXX--XXXXOXXXXXXOOOOOXXOXXXO-XOXXXXO-XOOXXX--XOOXXO-- O",
        "FFO #8",
        8,
    ),
];

#[test]
fn endgame_scores_match_ffo() {
    let start = Othello::<u64>::new(8).unwrap();
    for &(obf, what, score) in FFO {
        let pos = start.parse_obf(obf).unwrap();
        let r = endgame::solve(&pos, &|| false).unwrap();
        assert_eq!(r.margin, score, "{what}");
        // The best move really achieves the score.
        let mut child = pos.clone();
        child.play(r.best);
        let reply = endgame::solve(&child, &|| false).unwrap();
        assert_eq!(
            -reply.margin,
            score,
            "{what}: best move {}",
            pos.format_move(r.best)
        );
    }
}

/// The same scores from the multi-threaded solver (threads sharing the table, each from an
/// empty table), and a best move that reaches them.
#[test]
fn endgame_scores_match_ffo_threaded() {
    let start = Othello::<u64>::new(8).unwrap();
    for threads in [2, 3] {
        for &(obf, what, score) in FFO {
            let pos = start.parse_obf(obf).unwrap();
            endgame::table().clear();
            let r = endgame::solve_threads(&pos, threads, &|| false).unwrap();
            assert_eq!(r.margin, score, "{what}, {threads} threads");
            let mut child = pos.clone();
            child.play(r.best);
            endgame::table().clear();
            let reply = endgame::solve(&child, &|| false).unwrap();
            assert_eq!(-reply.margin, score, "{what}, {threads} threads: best move");
        }
    }
}

/// A plain reference: a 2D grid, walking the eight directions square by square.
fn reference_moves<B: Bits>(p: &Othello<B>) -> Vec<(u16, Vec<u32>)> {
    let n = p.geo.n as i32;
    let at =
        |r: i32, c: i32, who: B| r >= 0 && c >= 0 && r < n && c < n && who.has((r * n + c) as u32);
    let mut out = Vec::new();
    for r in 0..n {
        for c in 0..n {
            if at(r, c, p.me) || at(r, c, p.opp) {
                continue;
            }
            let mut flips = Vec::new();
            for (dr, dc) in [
                (0, 1),
                (0, -1),
                (1, 0),
                (-1, 0),
                (1, 1),
                (1, -1),
                (-1, 1),
                (-1, -1),
            ] {
                let mut line = Vec::new();
                let (mut rr, mut cc) = (r + dr, c + dc);
                while at(rr, cc, p.opp) {
                    line.push((rr * n + cc) as u32);
                    rr += dr;
                    cc += dc;
                }
                if !line.is_empty() && at(rr, cc, p.me) {
                    flips.extend(line);
                }
            }
            if !flips.is_empty() {
                flips.sort();
                out.push(((r * n + c) as u16, flips));
            }
        }
    }
    out
}

fn random_games<B: Bits>(n: u32, games: usize, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..games {
        let mut p = Othello::<B>::new(n).unwrap();
        loop {
            let reference = reference_moves(&p);
            let mut moves = Vec::new();
            p.legal_moves(&mut moves);
            if reference.is_empty() {
                let mut swapped = p.clone();
                std::mem::swap(&mut swapped.me, &mut swapped.opp);
                if reference_moves(&swapped).is_empty() {
                    assert!(moves.is_empty(), "game over: {}", p.fen());
                    let d = p.me.count() as i32 - p.opp.count() as i32;
                    let o = p.outcome().unwrap();
                    assert_eq!(
                        o,
                        if d > 0 {
                            Outcome::Win
                        } else if d < 0 {
                            Outcome::Loss
                        } else {
                            Outcome::Draw
                        }
                    );
                    break;
                }
                assert_eq!(moves, vec![PASS], "{}", p.fen());
                p.play(PASS);
                continue;
            }
            let ours: Vec<u16> = moves.clone();
            let theirs: Vec<u16> = reference.iter().map(|m| m.0).collect();
            assert_eq!(ours, theirs, "{}", p.fen());
            let (m, flips) = &reference[rng.below(reference.len())];
            let mut f = p.geo.flips(p.me, p.opp, *m as u32);
            let mut got = Vec::new();
            while !f.is_zero() {
                got.push(f.lowest());
                f = f.without_lowest();
            }
            assert_eq!(&got, flips, "{} {}", p.fen(), p.format_move(*m));
            p.play(*m);
        }
    }
}

#[test]
fn rules_match_the_reference_on_every_size() {
    random_games::<u64>(8, 60, 1);
    random_games::<u128>(10, 10, 2);
    random_games::<U256>(12, 5, 3);
    random_games::<U256>(14, 3, 4);
    random_games::<U256>(16, 2, 5);
    random_games::<u128>(8, 5, 6);
}

#[test]
fn conformance_every_size() {
    playouts(&Othello::<u64>::new(8).unwrap(), 20, 80, 7);
    playouts(&Othello::<u128>::new(10).unwrap(), 3, 120, 8);
    playouts(&Othello::<U256>::new(12).unwrap(), 2, 160, 9);
    playouts(&Othello::<U256>::new(16).unwrap(), 1, 300, 10);
}

#[test]
fn notation_and_fen() {
    let s = Othello::<u64>::new(8).unwrap();
    assert_eq!(s.fen(), "8/8/8/3ox3/3xo3/8/8/8 x");
    let mut openings: Vec<String> = {
        let mut m = Vec::new();
        s.legal_moves(&mut m);
        m.iter().map(|&x| s.format_move(x)).collect()
    };
    openings.sort();
    assert_eq!(openings, ["c4", "d3", "e6", "f5"]);
    assert_eq!(s.parse_move("D3").unwrap(), s.parse_move("d3").unwrap());
    assert!(s.parse_move("d4").unwrap_err().contains("occupied"));
    assert!(s.parse_move("a1").unwrap_err().contains("no discs"));
    assert!(s.parse_move("i1").unwrap_err().contains("off the board"));
    assert!(s.parse_move("0000").unwrap_err().contains("cannot pass"));
    assert!(s.parse_move("d").is_err());
    let mut p = s.clone();
    p.play(s.parse_move("d3").unwrap());
    assert_eq!(p.fen(), "8/8/3x4/3xx3/3xo3/8/8/8 o");
    assert_eq!(s.parse_fen(&p.fen()).unwrap(), p);
    // White to move with no move but Black has one: the only move is the pass.
    let pass = s
        .parse_fen("xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxo1/xxxxxxx1 o")
        .unwrap();
    let mut m = Vec::new();
    pass.legal_moves(&mut m);
    assert_eq!(m, [PASS], "{}", pass.fen());
    assert_eq!(pass.format_move(PASS), "0000");
    assert_eq!(pass.parse_move("PA").unwrap(), PASS);
    assert!(pass.parse_move("h7").unwrap_err().contains("must pass"));
    for (fen, why) in [
        ("8/8/8/3ox3/3xo3/8/8 x", "rows"),
        ("8/8/8/3ox3/3xo3/8/8/9 x", "longer"),
        ("8/8/8/3ox3/3xo3/8/8/7 x", "7 cells, not 8"),
        ("8/8/8/3ox3/3xo3/8/8/8 z", "side"),
        ("8/8/8/3oq3/3xo3/8/8/8 x", "unexpected"),
    ] {
        assert!(s.parse_fen(fen).unwrap_err().contains(why), "{fen}");
    }
    let big = Othello::<U256>::new(16).unwrap();
    assert_eq!(
        big.fen(),
        "16/16/16/16/16/16/16/7ox7/7xo7/16/16/16/16/16/16/16 x"
    );
    assert!(Othello::<u64>::new(9).is_err());
    assert!(Othello::<u64>::new(10).is_err(), "100 squares need u128");
    check_position(&big);
}

/// A finished game: no moves for either side, the result by discs, empties to the winner.
#[test]
fn game_end_and_margin() {
    let s = Othello::<u64>::new(8).unwrap();
    let p = s.parse_fen("xxxxxxxx/xxxxxxxx/8/8/8/8/8/8 o").unwrap();
    let mut m = Vec::new();
    p.legal_moves(&mut m);
    assert!(m.is_empty());
    assert_eq!(p.outcome(), Some(Outcome::Loss));
    assert_eq!(p.final_margin(), -64);
    assert_eq!(
        endgame::solve(&p, &|| false).map(|r| r.margin),
        None,
        "nothing to solve"
    );
}

/// The first position of the midgame set (tests/data/othello-midgame.obf) with `empties`
/// empty squares: its board (.obf) and its moves' exact values (`MOVE:+v;` ...).
fn midgame_position(empties: usize) -> (&'static str, &'static str) {
    include_str!("../data/othello-midgame.obf")
        .lines()
        .find(|l| l.split_whitespace().next().map(|b| b.matches('-').count()) == Some(empties))
        .and_then(|l| l.split_once(';'))
        .expect("a position of the midgame set")
}

/// Play's endgame on 8x8 (`BooksAndSolvers::solve_in_play`): a position of 24 empties is left to
/// the heuristic search with 30 ms a move (the selective search starts at 23 empties below 50 ms);
/// a position of 22 empties is searched selectively to the end with 1 s; stopped after 2 s, the
/// selective search has a legal move whose exact value (the midgame set's answers) is within 4
/// discs of the best.
#[test]
fn selective_endgame_in_play() {
    let (board, answers) = midgame_position(22);
    let pos = Othello::<u64>::new(8).unwrap().parse_obf(board).unwrap();
    let values: Vec<(String, i32)> = answers
        .split(';')
        .filter_map(|w| {
            let (m, v) = w.trim().split_once(':')?;
            Some((m.to_ascii_lowercase(), v.trim().parse().ok()?))
        })
        .collect();
    let best = values.iter().map(|v| v.1).max().unwrap();
    let far = Othello::<u64>::new(8)
        .unwrap()
        .parse_obf(midgame_position(24).0)
        .unwrap();
    let ms = |ms| PlayBudget {
        ms: Some(ms),
        nodes: None,
    };
    assert!(far.solve_in_play(&|_| false, ms(30)).is_err());
    let start = std::time::Instant::now();
    let abort = |_| start.elapsed().as_millis() > 2000;
    let r = pos
        .solve_in_play(&abort, ms(1000))
        .expect("a level finished");
    assert!(
        r.note.contains("selective") || r.note.contains("solved"),
        "{}",
        r.note
    );
    let name = pos.format_move(r.best);
    let value = values.iter().find(|v| v.0 == name).map(|v| v.1);
    assert!(
        value.is_some_and(|v| v >= best - 4),
        "{name}: {value:?}, best {best}"
    );
}

/// `go nodes N` (UGI, the binary) from a new game on `board` (.obf): the `info string` notes,
/// the last `info` line's node count and the move.
fn go_nodes(board: &str, nodes: u64) -> (Vec<String>, u64, String) {
    use std::io::{BufRead, BufReader, Write};
    let pos = Othello::<u64>::new(8).unwrap().parse_obf(board).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["--game", "othello"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let fen = pos.fen();
    writeln!(
        stdin,
        "ugi\nsetoption name OwnBook value false\nuginewgame\nposition fen {fen}\ngo nodes {nodes}"
    )
    .unwrap();
    let (mut notes, mut searched, mut best) = (Vec::new(), 0, None);
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(note) = line.strip_prefix("info string ") {
            notes.push(note.to_string());
        } else if line.starts_with("info ") {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let Some(i) = words.iter().position(|w| *w == "nodes") {
                searched = words[i + 1].parse().unwrap();
            }
        } else if let Some(mv) = line.strip_prefix("bestmove ") {
            best = Some(mv.trim().to_string());
            writeln!(stdin, "quit").unwrap();
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    (notes, searched, best.expect("a bestmove"))
}

/// A node limit reaches play's endgame on 8x8 (`go nodes`, as a tournament runner sends it):
/// FFO #1 (14 empties) is solved within 1 M nodes to its published score; a position of 22
/// empties of the midgame set is searched by the selective levels within 6 M nodes (search +
/// ordering; the search's own count reported), twice the same, to a move within 4 discs of
/// the best (the set's exact answers); with 1 M nodes (below `MIN_LEVEL_NODES`) and with a few
/// thousand the heuristic search plays it as before (no solver note).
#[test]
fn a_node_limit_runs_the_endgame_search() {
    let (notes, _, best) = go_nodes(FFO[0].0, 1_000_000);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("solved: final disc margin +18")),
        "{notes:?}"
    );
    assert_eq!(best, "g8");
    let (board, answers) = midgame_position(22);
    let value = |mv: &str| {
        answers.split(';').find_map(|w| {
            let (m, v) = w.trim().split_once(':')?;
            m.eq_ignore_ascii_case(mv)
                .then(|| v.trim().parse::<i32>().ok())?
        })
    };
    let best_value = answers
        .split(';')
        .filter_map(|w| w.trim().split_once(':')?.1.trim().parse::<i32>().ok())
        .max()
        .unwrap();
    let first = go_nodes(board, 6_000_000);
    assert!(
        first
            .0
            .iter()
            .any(|n| n.contains("selective endgame search")),
        "{:?}",
        first.0
    );
    assert!(first.1 > 0 && first.1 <= 6_000_000, "{} nodes", first.1);
    assert!(
        value(&first.2).is_some_and(|v| v >= best_value - 4),
        "{}: {:?}, best {best_value}",
        first.2,
        value(&first.2)
    );
    assert_eq!(go_nodes(board, 6_000_000), first, "the same search again");
    for nodes in [1_000_000, 3000] {
        let (notes, searched, _) = go_nodes(board, nodes);
        assert!(
            !notes
                .iter()
                .any(|n| n.contains("selective") || n.contains("solved")),
            "{nodes}: {notes:?}"
        );
        assert!(searched <= nodes + 2000, "{nodes}: {searched} nodes");
    }
}

/// A plain alpha-beta over the rules (no table, no ordering, no stability): the final disc
/// margin for the side to move, empty squares to the winner — the reference the big boards'
/// solver is checked against.
fn plain_margin<B: Bits>(p: &Othello<B>, mut alpha: i32, beta: i32) -> i32 {
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    if moves.is_empty() {
        return p.final_margin();
    }
    let mut best = i32::MIN;
    for m in moves {
        let mut q = p.clone();
        q.play(m);
        let v = -plain_margin(&q, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// Random games on a big board, stopped at each of `empties`: the solver's margin equals the
/// plain search's, and its move reaches it.
fn solver_matches_plain_search<B: Bits>(n: u32, games: usize, empties: &[u32], seed: u64) {
    let mut rng = Rng(seed);
    let mut checked = 0;
    for _ in 0..games {
        let mut p = Othello::<B>::new(n).unwrap();
        let mut moves = Vec::new();
        loop {
            p.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            if empties.contains(&p.empties()) && moves != [PASS] {
                endgame::table().clear();
                let r = endgame::solve(&p, &|| false).expect("a position to solve");
                let total = (n * n) as i32;
                let want = plain_margin(&p, -total - 1, total + 1);
                assert_eq!(r.margin, want, "{n}x{n}: {}", p.fen());
                let mut q = p.clone();
                q.play(r.best);
                assert_eq!(
                    -plain_margin(&q, -total - 1, total + 1),
                    want,
                    "{n}x{n}: the solver's move {} in {}",
                    p.format_move(r.best),
                    p.fen()
                );
                checked += 1;
            }
            p.play(moves[rng.below(moves.len())]);
        }
    }
    assert!(checked >= games, "{n}x{n}: {checked} positions");
}

#[test]
fn big_board_solver_matches_a_plain_search() {
    // From 9 empties the table and the transposition cutoff are on, from 10 the stability
    // cutoff, from 13 (10x10) the two-ply ordering; below 6 the parity ordering.
    solver_matches_plain_search::<u128>(10, 3, &[9, 11, 13], 21);
    solver_matches_plain_search::<U256>(12, 3, &[9, 12], 22);
    solver_matches_plain_search::<U256>(14, 2, &[10, 12], 23);
    solver_matches_plain_search::<U256>(16, 2, &[11, 12], 24);
}

/// In play on the big boards the exact solver starts where it usually finishes within the
/// move's time (one more empty square for every tripling of the budget, protocol/benchmarks.md
/// has the times it rests on), and from `AUTO_EMPTIES` without a budget; 8x8's rule is apart.
#[test]
fn big_boards_start_the_exact_solver_by_budget() {
    let at = |ms| endgame::big_exact_empties(Some(ms));
    assert_eq!((at(20), at(100), at(1000), at(10_000)), (14, 16, 18, 20));
    assert_eq!(endgame::big_exact_empties(None), endgame::AUTO_EMPTIES);
    let mut last = 0;
    for ms in [1, 10, 29, 30, 89, 90, 300, 1000, 3000, 60_000, u64::MAX] {
        assert!(at(ms) >= last && at(ms) <= endgame::AUTO_EMPTIES, "{ms} ms");
        last = at(ms);
    }
}

/// `tabula bench` on a big board (it refused every board but 8x8 before): the whole command
/// succeeds, names its board, and gives the same nodes on every run; the board's positions
/// are a fixed line's (`bench::positions`).
#[test]
fn bench_on_a_big_board() {
    let exe = env!("CARGO_BIN_EXE_tabula");
    let run = || {
        let out = std::process::Command::new(exe)
            .args(["bench", "--game", "othello", "--size", "12", "--depth", "6"])
            .output()
            .expect("run tabula bench");
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines()
            .find_map(|l| l.strip_prefix("signature othello-12x12 "))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no 12x12 signature in {text}"))
    };
    let nodes = run();
    assert!(nodes > 0);
    assert_eq!(nodes, run());
}

/// The midgame search takes probable cuts on every board whose evaluation has a measured
/// error (the learned weights, 8x8 to 16x16), and none with the hand-written evaluation
/// (`EvalFile=<none>`), for which nothing was measured.
#[test]
fn probable_cuts_with_learned_weights_on_every_board() {
    fn check<B: Bits>(n: u32) {
        let mut p = Othello::<B>::new(n).unwrap();
        let sigma = p.eval_error_sigma(8, 4);
        assert!(sigma.is_some_and(|s| s > 0), "{n}x{n} learned: {sigma:?}");
        assert_eq!(p.set_option("EvalFile", "<none>"), Some(Ok(())));
        assert_eq!(p.eval_error_sigma(8, 4), None, "{n}x{n} hand-written");
    }
    check::<u64>(8);
    check::<u128>(10);
    check::<U256>(12);
    check::<U256>(14);
    check::<U256>(16);
}
