//! One test per command, with its malformed forms.

use super::*;

fn ok(line: &str) -> Command {
    match parse(line) {
        Ok(Some(c)) => c,
        other => panic!("{line:?} -> {other:?}"),
    }
}

fn err(line: &str) -> String {
    match parse(line) {
        Err(e) => e,
        other => panic!("{line:?} should fail, got {other:?}"),
    }
}

#[test]
fn handshakes() {
    assert_eq!(ok("uci"), Command::Uci);
    assert_eq!(ok("ugi"), Command::Ugi);
    assert_eq!(ok("  uci \r"), Command::Uci);
    assert_eq!(ok("isready"), Command::IsReady);
    assert_eq!(ok("ucinewgame"), Command::NewGame);
    assert_eq!(ok("uginewgame"), Command::NewGame);
    assert_eq!(parse(""), Ok(None));
    assert_eq!(parse("   \t "), Ok(None));
    assert!(err("ucix").contains("unknown command 'ucix'"));
}

#[test]
fn debug_and_register() {
    assert_eq!(ok("debug on"), Command::Debug(true));
    assert_eq!(ok("debug off"), Command::Debug(false));
    assert_eq!(ok("debug"), Command::Debug(true));
    // The specification's own example: unknown leading words are skipped.
    assert_eq!(ok("joho debug on"), Command::Debug(true));
    assert_eq!(ok("register later"), Command::Register);
    assert_eq!(
        ok("register name Stefan MK code 4359874324"),
        Command::Register
    );
}

#[test]
fn setoption() {
    assert_eq!(
        ok("setoption name Hash value 128"),
        Command::SetOption {
            name: "Hash".into(),
            value: Some("128".into())
        }
    );
    assert_eq!(
        ok("setoption name Move Overhead value 30"),
        Command::SetOption {
            name: "Move Overhead".into(),
            value: Some("30".into())
        }
    );
    assert_eq!(
        ok("setoption name Clear Hash"),
        Command::SetOption {
            name: "Clear Hash".into(),
            value: None
        }
    );
    assert_eq!(
        ok("setoption   name  NalimovPath value c:\\chess\\tb\\4;c:\\chess\\tb\\5"),
        Command::SetOption {
            name: "NalimovPath".into(),
            value: Some("c:\\chess\\tb\\4;c:\\chess\\tb\\5".into())
        }
    );
    assert!(err("setoption").contains("setoption"));
    assert!(err("setoption Hash value 3").contains("'Hash'"));
    assert!(err("setoption name").contains("missing argument"));
    assert!(err("setoption name value 3").contains("setoption"));
}

#[test]
fn position() {
    assert_eq!(
        ok("position startpos"),
        Command::Position {
            fen: None,
            moves: vec![]
        }
    );
    assert_eq!(
        ok("position startpos moves"),
        Command::Position {
            fen: None,
            moves: vec![]
        }
    );
    assert_eq!(
        ok("position startpos moves e2e4  e7e5"),
        Command::Position {
            fen: None,
            moves: vec!["e2e4".into(), "e7e5".into()]
        }
    );
    assert_eq!(
        ok("position fen 7k/8/8/8/8/8/8/K7 w - - 0 1 moves a1a2"),
        Command::Position {
            fen: Some("7k/8/8/8/8/8/8/K7 w - - 0 1".into()),
            moves: vec!["a1a2".into()]
        }
    );
    assert_eq!(
        ok("position fen 7/7/7/7/7/7 r 1"),
        Command::Position {
            fen: Some("7/7/7/7/7/7 r 1".into()),
            moves: vec![]
        }
    );
    assert!(err("position").contains("missing argument"));
    assert!(err("position fen").contains("missing argument"));
    assert!(err("position fen moves e2e4").contains("position"));
    assert!(err("position start").contains("'start'"));
    assert!(err("position startpos e2e4").contains("'e2e4'"));
}

#[test]
fn go() {
    let Command::Go(g) = ok("go wtime 300000 btime 299000 winc 2000 binc 1000 movestogo 40") else {
        panic!()
    };
    assert_eq!(g.time, [Some(300000), Some(299000)]);
    assert_eq!(g.inc, [Some(2000), Some(1000)]);
    assert_eq!(g.movestogo, Some(40));
    let Command::Go(g) = ok("go p1time 1000 p2time 2000 p1inc 10 p2inc 20") else {
        panic!()
    };
    assert_eq!(g.time, [Some(1000), Some(2000)]);
    assert_eq!(g.inc, [Some(10), Some(20)]);
    let Command::Go(g) = ok("go searchmoves e2e4 d2d4 depth 5") else {
        panic!()
    };
    assert_eq!(g.searchmoves, vec!["e2e4".to_string(), "d2d4".to_string()]);
    assert_eq!(g.depth, Some(5));
    let Command::Go(g) = ok("go ponder wtime -50 btime 10") else {
        panic!()
    };
    assert!(g.ponder);
    assert_eq!(g.time[0], Some(-50));
    let Command::Go(g) = ok("go infinite") else {
        panic!()
    };
    assert!(g.infinite);
    let Command::Go(g) = ok("go nodes 1000 mate 3 movetime 500") else {
        panic!()
    };
    assert_eq!(
        (g.nodes, g.mate, g.movetime),
        (Some(1000), Some(3), Some(500))
    );
    let Command::Go(g) = ok("go perft 4") else {
        panic!()
    };
    assert_eq!(g.perft, Some(4));
    assert_eq!(ok("go"), Command::Go(Go::default()));
    assert!(err("go depth x").contains("'depth'"));
    assert!(err("go depthx 3").contains("'depthx'"));
    assert!(err("go nodes -5").contains("'nodes'"));
    assert!(err("go searchmoves").contains("'searchmoves'"));
}

#[test]
fn control_and_extensions() {
    assert_eq!(ok("stop"), Command::Stop);
    assert_eq!(ok("ponderhit"), Command::PonderHit);
    assert_eq!(ok("quit"), Command::Quit);
    assert_eq!(ok("d"), Command::Display);
    assert_eq!(ok("eval"), Command::Eval);
    assert_eq!(ok("bench"), Command::Bench(None));
    assert_eq!(ok("bench 5"), Command::Bench(Some(5)));
    assert_eq!(ok("query p1turn"), Command::Query(Query::P1Turn));
    assert_eq!(ok("query gameover"), Command::Query(Query::GameOver));
    assert_eq!(ok("query result"), Command::Query(Query::Result));
    assert!(err("query").contains("query"));
    assert!(err("query winner").contains("'winner'"));
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for line in [
        "\u{fffd}\u{fffd}",
        "\0\0\0",
        "go \u{1F600}",
        "position fen \u{fffd}",
        "ææ go",
    ] {
        let _ = parse(line);
    }
    let long = "x".repeat(10_000);
    assert!(err(&long).len() < 100, "error names a truncated token");
}
