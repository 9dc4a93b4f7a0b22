//! Inputs that crashed the fuzzers (fuzz/), replayed with the same harness logic as the
//! `protocol_session` target: the first byte picks the game, the rest is protocol lines with
//! `go ...` bounded to `go depth 1`. Each file is named after what it found.

use super::common;

use common::session;
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;

fn run<G: Game>(start: G, text: &str) {
    let (mut s, buf) = session(start);
    for line in text.split('\n') {
        let t = line.trim_start();
        let line = if t.starts_with("go") {
            "go depth 1"
        } else if t.starts_with("bench") || t.starts_with("hint") || line.contains("Hash") {
            continue;
        } else {
            line
        };
        if !s.handle_line(line) {
            break;
        }
    }
    s.handle_line("stop");
    buf.take();
    s.handle_line("isready");
    s.handle_line("ping 424242");
    s.quit();
    let out = buf.take();
    assert!(
        out.contains("readyok") || out.contains("pong 424242"),
        "{out}"
    );
}

#[test]
fn fuzz_regressions() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_regressions");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let Some((&game, rest)) = data.split_first() else {
            continue;
        };
        let text = String::from_utf8_lossy(rest);
        match game % 5 {
            0 => run(Chess::default(), &text),
            1 => run(Connect4::default(), &text),
            2 => run(Othello::<u64>::new(8).unwrap(), &text),
            3 => run(
                Domineering::<u64>::new(5, 5, Side::Horizontal).unwrap(),
                &text,
            ),
            _ => run(Othello::<u128>::new(10).unwrap(), &text),
        }
    }
}
