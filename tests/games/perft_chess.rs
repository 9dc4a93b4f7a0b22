//! Chess perft on the six standard positions. Counts are the published ones (Chess
//! Programming Wiki, "Perft Results"; the same figures as ../shared/data/chess).

use tabula::game::Notation;
use tabula::games::chess::Chess;
use tabula::perft::perft;

/// (fen, what it exercises, depth, count)
const QUICK: &[(&str, &str, u32, u64)] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "start position",
        5,
        4_865_609,
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "kiwipete: castling, pins, en passant",
        4,
        4_085_603,
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "position 3: en passant discovered checks",
        5,
        674_624,
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "position 4: promotions, castling through check",
        4,
        422_333,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "position 5: promotion with capture",
        4,
        2_103_487,
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "position 6: symmetric middlegame",
        4,
        3_894_594,
    ),
];

const DEEP: &[(&str, &str, u32, u64)] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "start position",
        6,
        119_060_324,
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "kiwipete",
        5,
        193_690_690,
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "position 3",
        7,
        178_633_661,
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "position 4",
        5,
        15_833_292,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "position 5",
        5,
        89_941_194,
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "position 6",
        5,
        164_075_551,
    ),
];

/// Chess960 positions (published in the Chess960 perft list of the Chess Programming Wiki).
const CHESS960: &[(&str, &str, u32, u64)] = &[
    (
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "960 #1",
        4,
        326_672,
    ),
    (
        "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
        "960 #2",
        4,
        667_366,
    ),
];

fn run(table: &[(&str, &str, u32, u64)], chess960: bool) {
    let template = Chess {
        chess960,
        ..Chess::default()
    };
    for &(fen, what, depth, count) in table {
        let pos = template.parse_fen(fen).expect(fen);
        assert_eq!(perft(&pos, depth), count, "{what}: {fen} depth {depth}");
    }
}

#[test]
fn perft_standard_positions() {
    run(QUICK, false);
}

#[test]
fn perft_chess960() {
    run(CHESS960, true);
}

#[test]
#[ignore = "deep: a few seconds in release"]
fn perft_standard_positions_deep() {
    run(DEEP, false);
}

/// The extended suite in ../shared/data/chess (castling-rights corner cases), all depths.
#[test]
#[ignore = "reads ../shared/data; run with --ignored"]
fn perft_shared_suite() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/chess/perft-standard.epd"
    );
    let text = std::fs::read_to_string(path).expect("suite");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim();
        let pos = Chess::default().parse_fen(fen).expect(fen);
        for p in parts {
            let mut it = p.split_whitespace();
            let depth: u32 = it.next().unwrap()[1..].parse().unwrap();
            let count: u64 = it.next().unwrap().parse().unwrap();
            if count <= 20_000_000 {
                assert_eq!(perft(&pos, depth), count, "{fen} depth {depth}");
            }
        }
    }
}
