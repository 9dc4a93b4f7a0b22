//! The generic conformance test (tests/common/conformance.rs): every game's bench positions,
//! and random playouts of chess and Chess960 (the other games run it from their own test files:
//! othello.rs, connect4.rs, domineering.rs). Chess's own rule tables are in chess_rules.rs.

mod common;

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
