//! The whole input path: bytes -> lines -> nom parsers -> commands -> engine state, for every
//! game (chosen by the first byte) and every dialect (the lines choose). Searches are
//! bounded (`go ...` becomes `go depth 1`; `bench`, `hint` and `Hash` lines are skipped) so
//! that an input cannot legitimately take long; after the input the session must still answer `isready` (or
//! `ping` in NBoard mode).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;
use tabula::protocol::{Output, Session};

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            if v.len() > 1 << 20 {
                v.clear();
            }
            v.extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run<G: Game>(start: G, text: &str) {
    let buf = Buf::default();
    let mut s = Session::new(start, Output::new(Box::new(buf.clone())));
    for line in text.split('\n') {
        let t = line.trim_start();
        let line = if t.starts_with("go") {
            "go depth 1"
        } else if t.starts_with("bench") || t.starts_with("hint") || line.contains("Hash") {
            // Legitimately slow: benches, and tables of gigabytes (`setoption name Hash`).
            continue;
        } else {
            line
        };
        if !s.handle_line(line) {
            break;
        }
    }
    s.handle_line("stop");
    if let Ok(mut v) = buf.0.lock() {
        v.clear();
    }
    // UCI/UGI answer `isready`; NBoard (ignoring `isready`) answers `ping` with `pong`.
    assert!(s.handle_line("isready"));
    assert!(s.handle_line("ping 424242"));
    s.quit();
    let out = buf.0.lock().map(|v| String::from_utf8_lossy(&v).into_owned()).unwrap_or_default();
    assert!(
        out.contains("readyok") || out.contains("pong 424242"),
        "the session no longer answers: {out:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&game, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    match game % 5 {
        0 => run(Chess::default(), &text),
        1 => run(Connect4::default(), &text),
        2 => run(Othello::<u64>::new(8).unwrap(), &text),
        3 => run(Domineering::<u64>::new(5, 5, Side::Horizontal).unwrap(), &text),
        _ => run(Othello::<u128>::new(10).unwrap(), &text),
    }
});
