//! Chess rules checked against independent oracles: terminal positions against cozy-chess's
//! own status (mate, stalemate) and the FIDE draw rules, castling notation in standard chess and
//! Chess960, and FENs of impossible positions refused.

use super::common;

use common::conformance::check_position;
use cozy_chess::GameStatus;
use tabula::game::{Notation, Outcome, Rules};
use tabula::games::chess::Chess;

/// Terminal positions of chess against cozy-chess's own status (an independent oracle for
/// mate and stalemate) and the FIDE draw rules.
#[test]
fn chess_terminal_positions() {
    let c = Chess::default();
    let table: &[(&str, &str, Option<Outcome>)] = &[
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "fool's mate",
            Some(Outcome::Loss),
        ),
        (
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "stalemate",
            Some(Outcome::Draw),
        ),
        (
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            "bare kings",
            Some(Outcome::Draw),
        ),
        (
            "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
            "king and bishop",
            Some(Outcome::Draw),
        ),
        (
            "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
            "king and knight",
            Some(Outcome::Draw),
        ),
        (
            "8/8/1b2k3/8/8/3KB3/8/8 w - - 0 1",
            "bishops on the same colour (b6, e3)",
            Some(Outcome::Draw),
        ),
        (
            "8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1",
            "bishops on opposite colours (c6, e3)",
            None,
        ),
        ("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", "two knights", None),
        (
            "8/8/4k3/8/8/3K4/4P3/8 w - - 99 80",
            "99 plies: not yet",
            None,
        ),
        (
            "8/8/4k3/8/8/3K4/4P3/8 w - - 100 80",
            "50-move rule",
            Some(Outcome::Draw),
        ),
        (
            "7k/6Q1/6K1/8/8/8/8/8 b - - 100 80",
            "mate on the 100th ply beats the 50-move rule",
            Some(Outcome::Loss),
        ),
    ];
    for &(fen, what, expected) in table {
        let pos = c.parse_fen(fen).expect(fen);
        assert_eq!(pos.outcome(), expected, "{what}: {fen}");
        check_position(&pos);
        if pos.board.halfmove_clock() < 100 && !pos.insufficient_material() {
            let oracle = match pos.board.status() {
                GameStatus::Won => Some(Outcome::Loss),
                GameStatus::Drawn => Some(Outcome::Draw),
                GameStatus::Ongoing => None,
            };
            assert_eq!(pos.outcome(), oracle, "{what}: cozy-chess disagrees");
        }
    }
}

/// Both castling notations are accepted; the output follows UCI_Chess960.
#[test]
fn chess_castling_notation() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let std = Chess::default().parse_fen(fen).unwrap();
    let k960 = Chess {
        chess960: true,
        ..Chess::default()
    }
    .parse_fen(fen)
    .unwrap();
    for pos in [&std, &k960] {
        let a = pos.parse_move("e1g1").unwrap();
        let b = pos.parse_move("e1h1").unwrap();
        assert_eq!(a, b);
        let q = pos.parse_move("E1C1").unwrap();
        assert_eq!(q, pos.parse_move("e1a1").unwrap());
    }
    assert_eq!(std.format_move(std.parse_move("e1h1").unwrap()), "e1g1");
    assert_eq!(k960.format_move(k960.parse_move("e1g1").unwrap()), "e1h1");
    assert!(std.parse_move("e1f1").is_ok());
    assert!(std.parse_move("e1e3").is_err());
    assert!(std.parse_move("zz").is_err());
    assert!(std.parse_move("").is_err());
}

/// Chess FENs that cozy-chess alone would accept but that are not positions: found by the
/// protocol fuzzer (tests/fuzz_regressions/session-no-king.bin), where the search then
/// captured a king.
#[test]
fn chess_rejects_impossible_fens() {
    let c = Chess::default();
    for (fen, why) in [
        ("7k/3R2K1 w - - 0 1", "8 ranks"),
        ("8/8/8/8/8/8/7k/3R2K1 w - - 0 1", "not to move is in check"),
        ("8/8/8/8/8/8/6k1/3R2K1 b - - 0 1", "not to move is in check"),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8 ranks",
        ),
        (
            "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8 ranks",
        ),
    ] {
        let e = c.parse_fen(fen).unwrap_err();
        assert!(e.contains(why), "{fen}: {e}");
    }
    // Checks given by the side to move's opponent are fine, of course.
    assert!(c.parse_fen("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1").is_ok());
}
