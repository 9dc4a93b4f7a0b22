//! Property tests (proptest) on the whole input path — line -> nom parser -> command ->
//! engine state — for every game and dialect: arbitrary bytes never panic; a rejected
//! `position` never changes the position; accepted positions are consistent; random legal
//! games round-trip through the protocol.

use super::common;

use common::session;
use proptest::prelude::*;
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;

/// Words that make random lines look like commands, so that the parsers get past the first
/// token often.
const WORDS: &[&str] = &[
    "uci",
    "ugi",
    "isready",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "p1time",
    "searchmoves",
    "setoption",
    "name",
    "value",
    "Hash",
    "MultiPV",
    "query",
    "gameover",
    "result",
    "p1turn",
    "stop",
    "ponderhit",
    "debug",
    "on",
    "d",
    "e2e4",
    "e7e5",
    "d3",
    "c4",
    "a",
    "d",
    "c3c4",
    "c3d3",
    "0000",
    "8/8/8/3ox3/3xo3/8/8/8",
    "x",
    "o",
    "r",
    "y",
    "h",
    "v",
    "7/7/7/7/7/7",
    "1",
    "-5",
    "99999999999999999999",
    "\u{0}",
    "nboard",
    "set",
    "game",
    "(;GM[Othello]BO[8",
    "ping",
    "hint",
    "learn",
    "ucinewgame",
];

fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Arbitrary bytes, including invalid UTF-8 and control characters.
        proptest::collection::vec(any::<u8>(), 0..200),
        // Command-like word salad.
        proptest::collection::vec(proptest::sample::select(WORDS), 0..12)
            .prop_map(|w| w.join(" ").into_bytes()),
    ]
}

/// Feeds lines to a session and checks it survives and keeps answering `isready` (or `ping`
/// once the lines switched it to NBoard).
fn survives<G: Game>(start: G, lines: &[Vec<u8>]) {
    let (mut s, buf) = session(start);
    for l in lines {
        let text = String::from_utf8_lossy(l);
        // `go` searches run asynchronously; bound them so the test stays quick.
        let text = if text.trim_start().starts_with("go") {
            "go depth 2".into()
        } else {
            text
        };
        if !s.handle_line(&text) {
            break;
        }
    }
    s.handle_line("stop");
    buf.take();
    // UCI/UGI answer `isready`; a session that entered NBoard mode answers `ping` instead.
    assert!(s.handle_line("isready"));
    assert!(s.handle_line("ping 424242"));
    s.quit();
    let out = buf.take();
    assert!(
        out.contains("readyok") || out.contains("pong 424242"),
        "{out}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn garbage_never_panics(lines in proptest::collection::vec(line_strategy(), 1..20)) {
        survives(Chess::default(), &lines);
        survives(Connect4::default(), &lines);
        survives(Othello::<u64>::new(8).unwrap(), &lines);
        survives(Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap(), &lines);
    }
}

/// Applies random edits (delete, insert, replace characters) to a valid position line.
fn mutate(line: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut b: Vec<u8> = line.as_bytes().to_vec();
    for &(pos, kind, ch) in edits {
        if b.is_empty() {
            break;
        }
        let i = pos % b.len();
        match kind % 3 {
            0 => {
                b.remove(i);
            }
            1 => b.insert(i, b" abcdefghxoyrv#/12345678qnkp0"[ch as usize % 29]),
            _ => b[i] = b" abcdefghxoyrv#/12345678qnkp0"[ch as usize % 29],
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn position_property<G: Game>(
    start: G,
    base_line: &str,
    edits: &[(usize, u8, u8)],
) -> Result<(), TestCaseError> {
    let (mut s, buf) = session(start);
    s.handle_line(base_line);
    let before = s.engine().position().fen();
    buf.take();
    let line = mutate(base_line, edits);
    s.handle_line(&line);
    let out = buf.take();
    let after = s.engine().position().fen();
    if out.contains("info string error") || out.contains("status error") {
        prop_assert_eq!(
            &before,
            &after,
            "rejected {:?} but the position changed",
            line
        );
        prop_assert_eq!(
            out.lines().count(),
            1,
            "one error line for {:?}: {}",
            line,
            out
        );
    } else {
        // Accepted: the position is consistent (its FEN parses back to itself).
        let again = s.engine().position().parse_fen(&after);
        prop_assert!(
            again.is_ok(),
            "accepted {:?} gave an unparsable FEN {}",
            line,
            after
        );
    }
    s.quit();
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn malformed_positions_never_change_state(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)) {
        position_property(Chess::default(),
            "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 moves e1g1 e8c8", &edits)?;
        position_property(Connect4::default(), "position fen 7/7/7/7/3y3/2yrr2 r 3 moves d e", &edits)?;
        position_property(Othello::<u64>::new(8).unwrap(), "position fen 8/8/3x4/3xx3/3xo3/8/8/8 o moves c3 c4", &edits)?;
        position_property(Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap(),
            "position fen 8/2##4/8/8/8/8/8/8 h moves a1b1 h1h2", &edits)?;
    }

    /// Random legal games sent as `position startpos moves ...` end in the same position as
    /// playing them directly.
    #[test]
    fn random_games_round_trip_through_the_protocol(seed in any::<u64>(), plies in 0usize..60) {
        fn run<G: Game>(start: G, seed: u64, plies: usize) -> Result<(), TestCaseError> {
            let mut pos = start.clone();
            let mut rng = seed | 1;
            let mut texts = Vec::new();
            let mut moves = Vec::new();
            for _ in 0..plies {
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
                let m = moves[(rng % moves.len() as u64) as usize];
                texts.push(pos.format_move(m));
                pos.play(m);
            }
            let (mut s, _buf) = session(start);
            s.handle_line(&format!("position startpos moves {}", texts.join(" ")));
            prop_assert_eq!(s.engine().position().fen(), pos.fen());
            s.quit();
            Ok(())
        }
        run(Chess::default(), seed, plies)?;
        run(Connect4::default(), seed, plies)?;
        run(Othello::<u64>::new(8).unwrap(), seed, plies)?;
        run(Domineering::<u64>::new(6, 7, Side::Vertical).unwrap(), seed, plies)?;
    }
}
