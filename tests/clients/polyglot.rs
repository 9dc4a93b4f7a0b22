//! XBoard users reach tabula through PolyGlot (Debian's `polyglot`, which XBoard starts itself
//! for a UCI engine with `-fUCI`). This speaks the XBoard protocol to the real polyglot with
//! tabula behind it: a game of a few moves where every engine move must be legal, then a
//! position set with `setboard`. Skipped, with a note on stderr, where polyglot is missing; under CI,
//! which installs it, a missing polyglot fails the test.

use super::common;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;
use tabula::game::{Notation, Rules};
use tabula::games::chess::Chess;

fn polyglot() -> Option<PathBuf> {
    let mut places = vec![PathBuf::from("/usr/games/polyglot")];
    if let Some(path) = std::env::var_os("PATH") {
        places.extend(std::env::split_paths(&path).map(|p| p.join("polyglot")));
    }
    let found = places.into_iter().find(|p| p.is_file());
    if found.is_none() {
        common::client_missing("polyglot: not found (apt-get install polyglot)");
    }
    found
}

#[test]
fn xboard_through_polyglot_plays_legal_moves() {
    let Some(pg) = polyglot() else {
        return;
    };
    let mut child = Command::new(pg)
        .args(["-noini", "-ec", env!("CARGO_BIN_EXE_tabula")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start polyglot");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |line: &str| {
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    };
    let expect = |prefix: &str| -> String {
        let mut seen = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(l) if l.starts_with(prefix) => return l,
                Ok(l) => seen.push(l),
                Err(_) => panic!("no {prefix:?} from polyglot; got {seen:?}"),
            }
        }
    };
    send("xboard");
    send("protover 2");
    expect("feature done=1");
    send("new");
    send("st 1");
    send("sd 6");
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    send("go");
    for ply in 0..6 {
        let line = expect("move ");
        let text = line.trim_start_matches("move ").trim();
        let mv = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("engine move {ply}: {text}: {e}"));
        pos.play(mv);
        if ply == 5 {
            // No reply to the last one: no search is left running (its move would otherwise
            // arrive after the `new` below and be taken for the answer to the next `go`).
            break;
        }
        // Answer with the first legal move in our own order.
        pos.legal_moves(&mut moves);
        let reply = *moves.first().expect("the game goes on");
        let reply_text = pos.format_move(reply);
        pos.play(reply);
        send(&format!("usermove {reply_text}"));
    }
    // A position given by setboard (polyglot itself claims the draw once the 50-move rule
    // is reached, so this one is a ply short of it): the engine moves, and legally.
    let fen = "8/8/4k3/8/8/3K4/4P3/8 w - - 99 80";
    send("new");
    send("force");
    send(&format!("setboard {fen}"));
    send("go");
    let line = expect("move ");
    let text = line.trim_start_matches("move ").trim();
    let start = Chess::default().parse_fen(fen).expect("fen");
    assert!(start.parse_move(text).is_ok(), "{line}");
    send("quit");
    let _ = child.wait();
}
