//! Domineering's solver beyond the 6x6 table: the engine's proven results, published values
//! of larger boards and of long board families, agreement with a brute force, several
//! threads, refused absurd settings, and a checkpointed solve resumed.

use super::common;
use super::domineering::side;

use common::Rng;
use tabula::bits::U256;
use tabula::game::{BooksAndSolvers, Notation, Rules};
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::domineering::solver;

/// The engine's solver result is a proven win/loss with a consistent move.
#[test]
fn engine_solve_reports_a_proven_result() {
    let p = Domineering::<u64>::new(4, 4, Side::Vertical).unwrap();
    let s = p.solve(&|| false).unwrap();
    assert!(
        s.score >= tabula::search::MATE_BOUND,
        "4x4 Vertical first wins"
    );
    assert!(p.parse_move(&p.format_move(s.best)).is_ok());
    let q = Domineering::<u64>::new(5, 2, Side::Vertical).unwrap();
    let s = q.solve(&|| false).unwrap();
    assert!(
        s.score <= -tabula::search::MATE_BOUND,
        "5x2 Vertical first loses"
    );
}

/// Published outcomes beyond the 6x6 table: 8x8 is a first-player win (Breuker, Uiterwijk and
/// van den Herik, "Solving 8x8 Domineering", Theoretical Computer Science 230, 2000), whoever
/// moves first; the winning move the solver gives leaves a position the opponent loses.
#[test]
fn published_larger_boards() {
    let table = solver::Table::new(64);
    for (rows, cols, first, what) in [
        (
            8,
            8,
            Side::Vertical,
            "8x8, Vertical first: first player wins",
        ),
        (
            8,
            8,
            Side::Horizontal,
            "8x8, Horizontal first: first player wins",
        ),
    ] {
        let p = Domineering::<u64>::new(rows, cols, first).unwrap();
        let out = solver::solve_with(&p, &table, &|| false).unwrap();
        assert_eq!(out.winner, first, "{what}");
        let mut c = p.clone();
        c.play(out.best.expect("a winning move") as u16);
        let reply = solver::solve_with(&c, &table, &|| false).unwrap();
        assert_eq!(reply.winner, first, "{what}: after the winning move");
    }
}

/// Published families of long boards (rows x columns, Vertical moves first), from Uiterwijk,
/// "The impact of safe moves on perfectly solving Domineering boards, part 3: theorems and
/// conjectures", ICGA Journal 37(4), 2014 (extending Lachmann, Moore and Rapaport, "Who wins
/// Domineering on rectangular boards?", 2002): Vertical wins every 2k x n board for n = 3, 5,
/// 7, 9 and 11 (and 2k x 13 from k = 3); Horizontal wins every m x 2k board for m = 5, 9 and
/// 13, for m = 3 and 7 from k = 2, and for m = 11 from k = 6. The boards below are the
/// members of these families the solver settles in well under a second each; the theorems
/// are proved by strategies, not by search, so they check the search independently.
const PUBLISHED_FAMILIES: &[(u32, u32, char, &str)] = &[
    (2, 11, 'V', "2k x 11, k = 1"),
    (4, 11, 'V', "2k x 11, k = 2"),
    (12, 3, 'V', "2k x 3, k = 6"),
    (16, 3, 'V', "2k x 3, k = 8"),
    (12, 5, 'V', "2k x 5, k = 6"),
    (16, 5, 'V', "2k x 5, k = 8"),
    (8, 7, 'V', "2k x 7, k = 4"),
    (10, 7, 'V', "2k x 7, k = 5"),
    (3, 12, 'H', "3 x 2k, k = 6"),
    (3, 16, 'H', "3 x 2k, k = 8"),
    (5, 12, 'H', "5 x 2k, k = 6"),
    (5, 14, 'H', "5 x 2k, k = 7"),
    (5, 16, 'H', "5 x 2k, k = 8"),
    (7, 4, 'H', "7 x 2k, k = 2"),
    (7, 6, 'H', "7 x 2k, k = 3"),
    (7, 8, 'H', "7 x 2k, k = 4"),
    (9, 4, 'H', "9 x 2k, k = 2"),
    (9, 6, 'H', "9 x 2k, k = 3"),
];

/// The board's winner with `first` to move, on the narrowest bit set that holds it.
fn winner_of(rows: u32, cols: u32, first: Side) -> Side {
    let cells = rows * cols;
    let out = if cells <= 64 {
        solver::solve(
            &Domineering::<u64>::new(rows, cols, first).unwrap(),
            &|| false,
        )
    } else if cells <= 128 {
        solver::solve(
            &Domineering::<u128>::new(rows, cols, first).unwrap(),
            &|| false,
        )
    } else {
        solver::solve(
            &Domineering::<U256>::new(rows, cols, first).unwrap(),
            &|| false,
        )
    };
    out.unwrap().winner
}

#[test]
fn published_families_of_long_boards() {
    for &(rows, cols, winner, what) in PUBLISHED_FAMILIES {
        assert_eq!(
            winner_of(rows, cols, Side::Vertical),
            side(winner),
            "{rows}x{cols}, Vertical first ({what})"
        );
    }
}

/// Plain negamax with a memo over every legal move: the oracle for the solver's cutoffs,
/// pruning of safe moves and table.
fn brute_wins(
    p: &Domineering<u64>,
    memo: &mut std::collections::HashMap<(u64, bool), bool>,
) -> bool {
    let key = (p.occupied, p.to_move == Side::Horizontal);
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    let w = moves.iter().any(|&m| {
        let mut c = p.clone();
        c.play(m);
        !brute_wins(&c, memo)
    });
    memo.insert(key, w);
    w
}

/// Random positions (random blocked cells, then random moves) on small boards of every shape:
/// the solver's winner agrees with the brute-force oracle and its winning move wins.
#[test]
fn solver_agrees_with_brute_force() {
    let mut rng = Rng(0x5eed_d0d0);
    let table = solver::Table::new(1);
    let mut checked = 0;
    for (rows, cols) in [
        (4, 4),
        (4, 5),
        (5, 4),
        (3, 7),
        (7, 3),
        (5, 5),
        (4, 6),
        (6, 4),
        (2, 8),
    ] {
        let mut memo = std::collections::HashMap::new();
        for k in 0..400 {
            let first = if k % 2 == 0 {
                Side::Horizontal
            } else {
                Side::Vertical
            };
            let mut p = Domineering::<u64>::new(rows, cols, first).unwrap();
            let density = rng.below(4) as u64; // 0 to 3 in 16 cells blocked
            for i in 0..rows * cols {
                if (rng.next() & 15) < density {
                    p.occupied |= 1u64 << i;
                }
            }
            for _ in 0..rng.below(6) {
                let mut moves = Vec::new();
                p.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                p.play(moves[rng.below(moves.len())]);
            }
            let truth = brute_wins(&p, &mut memo);
            let out = solver::solve_with(&p, &table, &|| false).unwrap();
            assert_eq!(out.winner == p.to_move, truth, "{}", p.fen());
            if truth {
                let mut c = p.clone();
                c.play(out.best.unwrap() as u16);
                assert!(!brute_wins(&c, &mut memo), "{}: winning move", p.fen());
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 9 * 400);
}

/// Two threads sharing a table find the same winners as one, and a winning move that wins.
#[test]
fn parallel_solve_agrees() {
    let mut memo = std::collections::HashMap::new();
    for (rows, cols, first) in [
        (5, 5, Side::Vertical),
        (4, 6, Side::Horizontal),
        (5, 4, Side::Horizontal),
    ] {
        let p = Domineering::<u64>::new(rows, cols, first).unwrap();
        let table = solver::Table::new(4);
        let out = solver::solve_parallel(&p, &table, 2);
        let truth = brute_wins(&p, &mut memo);
        assert_eq!(out.winner == p.to_move, truth, "{rows}x{cols}");
        if truth {
            let mut c = p.clone();
            c.play(out.best.unwrap() as u16);
            assert!(!brute_wins(&c, &mut memo));
        }
    }
}

/// Absurd `solve` flags are refused with a message, never a panic: too many or no threads, a
/// table beyond the limit. (A table within the limit that the machine cannot give is refused
/// too, by `Table::try_new`; not tested here, since whether it can be had depends on the
/// machine's overcommit policy.)
#[test]
fn solve_refuses_absurd_threads_and_tables() {
    let exe = env!("CARGO_BIN_EXE_tabula");
    for extra in [
        &["--threads", "100000"][..],
        &["--threads", "0"][..],
        &["--hash", "100000000000"][..],
    ] {
        let out = std::process::Command::new(exe)
            .args([
                "solve",
                "--game",
                "domineering",
                "--rows",
                "4",
                "--cols",
                "4",
            ])
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?} accepted");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        assert!(!err.trim().is_empty(), "{extra:?}: no message");
    }
}

/// A resumable solve (`--checkpoint`): interrupted by SIGINT it saves what it proved and says
/// how to go on; the same command finishes with the right winner (8x9 with Vertical first:
/// Vertical wins, as Obsequi answers in protocol/domineering-boards.md), and once finished the
/// checkpoint answers almost without search.
#[test]
fn a_checkpointed_solve_resumes() {
    let exe = env!("CARGO_BIN_EXE_tabula");
    let dir = std::env::temp_dir().join(format!("tabula-dom-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ckpt = dir.join("8x9.ckpt");
    let args = |threads: &str| {
        let mut c = std::process::Command::new(exe);
        c.args([
            "solve",
            "--game",
            "domineering",
            "--rows",
            "8",
            "--cols",
            "9",
        ])
        .args(["--first", "v", "--threads", threads, "--checkpoint"])
        .arg(&ckpt)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        c
    };
    let nodes = |out: &str| -> u64 {
        let n = out.split("nodes ").nth(1).and_then(|s| s.split(';').next());
        n.and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no node count in {out}"))
    };
    let child = args("1").spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let first = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&first.stderr);
    if !first.status.success() {
        assert!(err.contains("the same command continues"), "{err}");
    }
    assert!(ckpt.exists(), "no checkpoint written: {err}");
    let second = args("2").output().unwrap();
    let out = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{out}");
    assert!(out.contains("Vertical wins"), "{out}");
    let third = args("1").output().unwrap();
    let out3 = String::from_utf8_lossy(&third.stdout);
    assert!(out3.contains("Vertical wins"), "{out3}");
    assert!(
        nodes(&out3) < 1000,
        "the finished checkpoint was not used: {out3}"
    );
    // A checkpoint of another board is refused with a message, not used.
    let other = std::process::Command::new(exe)
        .args([
            "solve",
            "--game",
            "domineering",
            "--rows",
            "9",
            "--cols",
            "8",
            "--checkpoint",
        ])
        .arg(&ckpt)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        !other.status.success() && err.contains("written for the 8x9 board"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
