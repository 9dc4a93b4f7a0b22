//! The generic conformance test (tests/common/conformance.rs): every game's bench positions,
//! and random playouts of chess and Chess960 (the other games run it from their own test files:
//! othello.rs, connect4.rs, domineering.rs). Chess's own rule tables are in chess_rules.rs.

use super::common;

use common::conformance::{check_position, playouts};
use tabula::game::{Game, Notation};
use tabula::games::chess::Chess;

/// Every game's bench positions are valid positions of that game.
#[test]
fn bench_positions_parse() {
    fn check<G: Game>(template: G) {
        for fen in G::bench_fens() {
            let p = template
                .parse_fen(fen)
                .unwrap_or_else(|e| panic!("{}: {e}", G::NAME));
            check_position(&p);
        }
    }
    check(Chess::default());
    check(tabula::games::connect4::Connect4::default());
    check(tabula::games::othello::Othello::<u64>::new(8).unwrap());
    check(
        tabula::games::domineering::Domineering::<u64>::new(
            8,
            8,
            tabula::games::domineering::board::Side::Horizontal,
        )
        .unwrap(),
    );
}

/// On a board other than the one `bench_fens` are written for, the bench searches the start
/// and positions of a fixed line from it: valid, distinct, the same on every call, and named
/// with the board; on the standard board exactly `bench_fens`, under the game's own name.
#[test]
fn bench_positions_of_every_board() {
    use tabula::bench::{name, positions};
    use tabula::bits::U256;
    use tabula::games::connect4::Connect4;
    use tabula::games::domineering::{Domineering, board::Side};
    use tabula::games::othello::Othello;
    fn check<G: Game>(template: G, expect_name: &str) {
        let fens = positions(&template);
        assert_eq!(name(&template), expect_name);
        assert_eq!(fens, positions(&template), "{expect_name}: deterministic");
        if template.bench_board().is_none() {
            assert_eq!(fens, G::bench_fens(), "{expect_name}");
            return;
        }
        assert!(fens.len() >= 2, "{expect_name}: {fens:?}");
        assert_eq!(fens[0], template.fen(), "{expect_name}: the start first");
        for (i, f) in fens.iter().enumerate() {
            let p = template
                .parse_fen(f)
                .unwrap_or_else(|e| panic!("{expect_name}: {f}: {e}"));
            check_position(&p);
            assert!(!fens[..i].contains(f), "{expect_name}: {f} twice");
        }
    }
    check(Othello::<u64>::new(8).unwrap(), "othello");
    check(Othello::<u128>::new(10).unwrap(), "othello-10x10");
    check(Othello::<U256>::new(16).unwrap(), "othello-16x16");
    check(Connect4::default(), "connect4");
    check(Connect4::new(8, 7).unwrap(), "connect4-8x7");
    check(
        Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap(),
        "domineering",
    );
    check(
        Domineering::<u64>::new(6, 7, Side::Vertical).unwrap(),
        "domineering-6x7",
    );
}

#[test]
fn chess_random_playouts() {
    let ends = playouts(&Chess::default(), 60, 300, 0x5eed);
    // Random games do end: some by mate, most by draw rules.
    assert!(ends.iter().any(|e| e.is_some()));
}

#[test]
fn chess960_random_playouts() {
    let template = Chess {
        chess960: true,
        ..Chess::default()
    };
    for fen in [
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1",
    ] {
        let start = template.parse_fen(fen).unwrap();
        playouts(&start, 10, 200, 7);
    }
}
