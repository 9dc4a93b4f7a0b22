//! The Othello opening book end to end: `tabula book` builds one, the engine plays from it
//! (UGI `go` answers a book move at once; `OwnBook false` searches), NBoard's `hint` shows its
//! lines, `learn` adds a game to a `--book-file` and the next process knows it, `analyze`
//! values every position of the game from the end, and a `ping` stops the analysis.

use super::common;

use common::EngineProc;
use std::time::Duration;

const T: Duration = Duration::from_secs(60);
const GAME: &str = "(;GM[Othello]PC[test]PB[a]PW[b]RE[?]TI[5:00]TY[8]\
BO[8 ---------------------------O*------*O--------------------------- *]\
B[F5]W[F6]B[E6]W[F4];)";

fn temp(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let p = dir.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.to_string_lossy().into_owned()
}

#[test]
fn a_built_book_is_played_and_can_be_turned_off() {
    let book = temp("built.book");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["--game", "othello", "book", "--out", &book])
        .args(["--expansions", "6", "--depth", "4", "--max-plies", "4"])
        .output()
        .expect("tabula book");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("positions"), "{text}");
    // A second run extends the same file.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["--game", "othello", "book", "--out", &book])
        .args(["--expansions", "3", "--depth", "4", "--max-plies", "4"])
        .output()
        .expect("tabula book");
    let again = String::from_utf8_lossy(&out.stdout);
    assert!(
        !again.contains("added to 0)"),
        "the second run loads the first: {again}"
    );

    let mut e = EngineProc::start(&["--game", "othello"]);
    e.send("ugi");
    let (_, lines) = e.expect("ugiok", T);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("name OwnBook type check default true"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("name BookFile type string"))
    );
    e.send(&format!("setoption name BookFile value {book}"));
    e.send("position startpos");
    e.send("go depth 20");
    let (best, lines) = e.expect("bestmove", T);
    assert!(
        lines.iter().any(|l| l.contains("info string book move")),
        "a book move, at once: {lines:?}"
    );
    let mv = best.split_whitespace().nth(1).unwrap_or("").to_string();
    assert!(["d3", "c4", "f5", "e6"].contains(&mv.as_str()), "{best}");
    // Without the book the same `go` searches.
    e.send("setoption name OwnBook value false");
    e.send("go depth 4");
    let (_, lines) = e.expect("bestmove", T);
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    // Bad values: one error line each, and the engine carries on.
    e.send("setoption name OwnBook value maybe");
    let (line, _) = e.expect("info string", T);
    assert!(line.contains("OwnBook"), "{line}");
    let not_a_book = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    e.send(&format!("setoption name BookFile value {not_a_book}"));
    let (line, _) = e.expect("info string", T);
    assert!(line.contains("not a tabula Othello book"), "{line}");
    e.send("isready");
    e.expect("readyok", T);
    e.send("quit");
}

#[test]
fn nboard_learns_a_game_and_analyzes_it() {
    let book = temp("learned.book");
    let mut e = EngineProc::start(&["--game", "othello", "--book-file", &book]);
    e.send("nboard 2");
    e.expect("set myname", T);
    e.send("set depth 4");
    e.send(&format!("set game {GAME}"));
    e.send("learn");
    e.expect("learned", T);
    assert!(
        std::fs::metadata(&book).is_ok_and(|m| m.len() > 12),
        "saved to {book}"
    );
    // Retrograde analysis: positions 4, 3, 2, 1, 0 in that order, then an empty status.
    e.send("analyze");
    let (_, lines) = e.expect("status", T);
    let _ = lines;
    let mut made = Vec::new();
    loop {
        let line = e.recv(T).expect("a line");
        if line == "status" {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.first(), Some(&"analysis"), "{line}");
        made.push(words[1].parse::<u32>().expect("movesMade"));
        assert!(
            words[2].parse::<f64>().is_ok_and(|v| v.abs() <= 64.0),
            "{line}"
        );
    }
    assert_eq!(made, [4, 3, 2, 1, 0]);
    e.send("quit");
    e.wait_exit(T);

    // The next process plays the learned line from the book: after F5 the book has F6.
    let mut e = EngineProc::start(&["--game", "othello", "--book-file", &book]);
    e.send("nboard 2");
    e.expect("set myname", T);
    e.send("set depth 4");
    e.send(&format!("set game {}", GAME.replace("W[F6]B[E6]W[F4]", "")));
    e.send("hint 1");
    let (book_line, _) = e.expect("book ", T);
    let words: Vec<&str> = book_line.split_whitespace().collect();
    assert_eq!(words[1], "F6", "{book_line}");
    assert_eq!(words[3], "1", "one game learned through it: {book_line}");
    e.expect("status", T);
    // A long analysis is stopped by ping: nothing of it after the pong.
    e.send("set depth 20");
    e.send(&format!("set game {GAME}"));
    e.send("analyze");
    e.expect("status tabula is analyzing", T);
    std::thread::sleep(Duration::from_millis(300));
    // A depth-20 search of the first position takes far longer: the ping stops it.
    let asked = std::time::Instant::now();
    e.send("ping 7");
    e.expect("pong 7", T);
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    e.send("quit");
    e.close_stdin();
    let after = e.drain(T);
    assert!(
        !after.iter().any(|l| l.starts_with("analysis")),
        "{after:?}"
    );
}
