//! Domineering: the outcome table for small boards, rules against a plain reference
//! implementation, notation and FEN tables, and the generic conformance test on every bit
//! width (u64, u128, U256). The solver on larger boards: `domineering_solver`.

use super::common;

use common::Rng;
use common::conformance::{check_position, playouts};
use tabula::bits::{Bits, U256};
use tabula::game::{Notation, Outcome, Rules};
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::domineering::solver;

/// (rows, cols, first mover, winner) for every board up to 6x6, as in the project's reference
/// table ../shared/data/domineering/outcomes-up-to-6x6.txt (rows x columns; Vertical
/// dominoes span two rows). It agrees with the published small-board results, e.g. 2x2: the
/// first player wins; 1xN: Vertical never moves.
const OUTCOMES: &[(u32, u32, char, char)] = &[
    (1, 1, 'V', 'H'),
    (1, 1, 'H', 'V'),
    (1, 2, 'V', 'H'),
    (1, 2, 'H', 'H'),
    (1, 3, 'V', 'H'),
    (1, 3, 'H', 'H'),
    (1, 4, 'V', 'H'),
    (1, 4, 'H', 'H'),
    (1, 5, 'V', 'H'),
    (1, 5, 'H', 'H'),
    (1, 6, 'V', 'H'),
    (1, 6, 'H', 'H'),
    (2, 1, 'V', 'V'),
    (2, 1, 'H', 'V'),
    (2, 2, 'V', 'V'),
    (2, 2, 'H', 'H'),
    (2, 3, 'V', 'V'),
    (2, 3, 'H', 'H'),
    (2, 4, 'V', 'H'),
    (2, 4, 'H', 'H'),
    (2, 5, 'V', 'V'),
    (2, 5, 'H', 'V'),
    (2, 6, 'V', 'V'),
    (2, 6, 'H', 'H'),
    (3, 1, 'V', 'V'),
    (3, 1, 'H', 'V'),
    (3, 2, 'V', 'V'),
    (3, 2, 'H', 'H'),
    (3, 3, 'V', 'V'),
    (3, 3, 'H', 'H'),
    (3, 4, 'V', 'H'),
    (3, 4, 'H', 'H'),
    (3, 5, 'V', 'H'),
    (3, 5, 'H', 'H'),
    (3, 6, 'V', 'H'),
    (3, 6, 'H', 'H'),
    (4, 1, 'V', 'V'),
    (4, 1, 'H', 'V'),
    (4, 2, 'V', 'V'),
    (4, 2, 'H', 'V'),
    (4, 3, 'V', 'V'),
    (4, 3, 'H', 'V'),
    (4, 4, 'V', 'V'),
    (4, 4, 'H', 'H'),
    (4, 5, 'V', 'V'),
    (4, 5, 'H', 'V'),
    (4, 6, 'V', 'V'),
    (4, 6, 'H', 'H'),
    (5, 1, 'V', 'V'),
    (5, 1, 'H', 'V'),
    (5, 2, 'V', 'H'),
    (5, 2, 'H', 'H'),
    (5, 3, 'V', 'V'),
    (5, 3, 'H', 'V'),
    (5, 4, 'V', 'H'),
    (5, 4, 'H', 'H'),
    (5, 5, 'V', 'H'),
    (5, 5, 'H', 'V'),
    (5, 6, 'V', 'H'),
    (5, 6, 'H', 'H'),
    (6, 1, 'V', 'V'),
    (6, 1, 'H', 'V'),
    (6, 2, 'V', 'V'),
    (6, 2, 'H', 'H'),
    (6, 3, 'V', 'V'),
    (6, 3, 'H', 'V'),
    (6, 4, 'V', 'V'),
    (6, 4, 'H', 'H'),
    (6, 5, 'V', 'V'),
    (6, 5, 'H', 'V'),
    (6, 6, 'V', 'V'),
    (6, 6, 'H', 'H'),
];

pub(super) fn side(c: char) -> Side {
    if c == 'H' {
        Side::Horizontal
    } else {
        Side::Vertical
    }
}

#[test]
fn outcome_table_up_to_6x6() {
    for &(r, c, first, winner) in OUTCOMES {
        let pos = Domineering::<u64>::new(r, c, side(first)).unwrap();
        let out = solver::solve(&pos, &|| false).unwrap();
        assert_eq!(out.winner, side(winner), "{r}x{c}, {first} first");
        if let Some(m) = out.best {
            // The winning move really wins: after it, the opponent loses.
            let mut child = pos.clone();
            child.place(m);
            let reply = solver::solve(&child, &|| false).unwrap();
            assert_eq!(
                reply.winner,
                side(winner),
                "{r}x{c}: winning move {m} does not win"
            );
        }
    }
}

/// The same outcomes through the wider bit sets (the code is shared; the shifts are not).
#[test]
fn outcomes_agree_across_bit_widths() {
    for &(r, c, first, winner) in OUTCOMES.iter().filter(|o| o.0 * o.1 <= 20) {
        let a = solver::solve(
            &Domineering::<u128>::new(r, c, side(first)).unwrap(),
            &|| false,
        )
        .unwrap();
        let b = solver::solve(
            &Domineering::<U256>::new(r, c, side(first)).unwrap(),
            &|| false,
        )
        .unwrap();
        assert_eq!(a.winner, side(winner));
        assert_eq!(b.winner, side(winner));
    }
}

/// A plain reference: a 2D grid and explicit loops.
fn reference_moves<B: Bits>(p: &Domineering<B>) -> Vec<u16> {
    let (rows, cols) = (p.geo.rows, p.geo.cols);
    let free = |r: u32, c: u32| r < rows && c < cols && !p.occupied.has(r * cols + c);
    let mut out = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let ok = match p.to_move {
                Side::Horizontal => free(r, c) && free(r, c + 1),
                Side::Vertical => free(r, c) && free(r + 1, c),
            };
            if ok {
                out.push((r * cols + c) as u16);
            }
        }
    }
    out
}

fn random_games<B: Bits>(rows: u32, cols: u32, games: usize, seed: u64) {
    let mut rng = Rng(seed);
    for g in 0..games {
        let first = if g % 2 == 0 {
            Side::Horizontal
        } else {
            Side::Vertical
        };
        let mut p = Domineering::<B>::new(rows, cols, first).unwrap();
        loop {
            let mut moves = Vec::new();
            p.legal_moves(&mut moves);
            assert_eq!(moves, reference_moves(&p), "{}", p.fen());
            if moves.is_empty() {
                assert_eq!(p.outcome(), Some(Outcome::Loss));
                break;
            }
            assert_eq!(p.outcome(), None);
            let m = moves[rng.below(moves.len())];
            p.play(m);
        }
    }
}

#[test]
fn rules_match_the_reference_on_every_width() {
    random_games::<u64>(8, 8, 50, 1);
    random_games::<u64>(1, 16, 5, 2);
    random_games::<u64>(16, 4, 10, 3);
    random_games::<u128>(9, 9, 30, 4);
    random_games::<u128>(8, 16, 10, 5);
    random_games::<U256>(16, 16, 10, 6);
    random_games::<U256>(11, 13, 10, 7);
}

#[test]
fn conformance_every_width() {
    playouts(
        &Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap(),
        10,
        100,
        11,
    );
    playouts(
        &Domineering::<u64>::new(5, 7, Side::Vertical).unwrap(),
        10,
        100,
        12,
    );
    playouts(
        &Domineering::<u128>::new(10, 10, Side::Vertical).unwrap(),
        5,
        100,
        13,
    );
    playouts(
        &Domineering::<U256>::new(16, 16, Side::Horizontal).unwrap(),
        3,
        200,
        14,
    );
    check_position(&Domineering::<u64>::new(1, 1, Side::Horizontal).unwrap());
}

#[test]
fn notation() {
    let h = Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap();
    assert_eq!(h.fen(), "8/8/8/8/8/8/8/8 h");
    let m = h.parse_move("c3d3").unwrap();
    assert_eq!(h.parse_move("C3").unwrap(), m, "shorthand and case");
    assert_eq!(h.parse_move("d3c3").unwrap(), m, "either order");
    assert_eq!(h.format_move(m), "c3d3");
    assert!(
        h.parse_move("c3c4")
            .unwrap_err()
            .contains("vertical, but Horizontal")
    );
    assert!(h.parse_move("h3").unwrap_err().contains("leaves the board"));
    assert!(h.parse_move("c3e3").unwrap_err().contains("not adjacent"));
    assert!(h.parse_move("i1").unwrap_err().contains("off the board"));
    assert!(h.parse_move("a9").unwrap_err().contains("off the board"));
    assert!(h.parse_move("a0").is_err());
    assert!(h.parse_move("").is_err());
    assert!(h.parse_move("c3d3e3").is_err());
    let mut p = h.clone();
    p.play(m);
    assert_eq!(p.fen(), "8/8/2##4/8/8/8/8/8 v");
    let v = p.parse_move("c3c4");
    assert!(v.unwrap_err().contains("already covered"));
    let v = p.parse_move("c4c5").unwrap();
    assert_eq!(p.format_move(v), "c4c5");
    assert!(
        p.parse_move("c4d4")
            .unwrap_err()
            .contains("horizontal, but Vertical")
    );
    assert!(p.parse_move("a8").unwrap_err().contains("leaves the board"));
    // Two-digit rows on a 16x16 board.
    let big = Domineering::<U256>::new(16, 16, Side::Vertical).unwrap();
    let m = big.parse_move("p15p16").unwrap();
    assert_eq!(big.format_move(m), "p15p16");
    assert_eq!(
        big.fen(),
        "16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/16 v"
    );
}

#[test]
fn fen_round_trip_and_errors() {
    let t = Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap();
    for fen in [
        "8/2##4/8/3#4/3#4/8/8/8 h",
        "########/8/8/8/8/8/8/7# v",
        "8/8/8/8/8/8/8/8 v",
    ] {
        assert_eq!(t.parse_fen(fen).unwrap().fen(), fen);
    }
    for (fen, why) in [
        ("8/8/8/8/8/8/8 h", "rows"),
        ("9/8/8/8/8/8/8/8 h", "longer"),
        ("7/8/8/8/8/8/8/8 h", "cells"),
        ("8/8/8/8/8/8/8/8 x", "side"),
        ("8/8/8/8/8/8/8/8", "expected"),
        ("8/8/8/8/8/8/8/4x3 h", "unexpected"),
        ("8/8/8/8/8/8/8/08 h", "run"),
    ] {
        let e = t.parse_fen(fen).unwrap_err();
        assert!(e.contains(why), "{fen}: {e}");
    }
    assert!(Domineering::<u64>::new(17, 2, Side::Vertical).is_err());
    assert!(
        Domineering::<u64>::new(9, 9, Side::Vertical).is_err(),
        "81 cells need u128"
    );
    assert!(Domineering::<u128>::new(9, 9, Side::Vertical).is_ok());
}
