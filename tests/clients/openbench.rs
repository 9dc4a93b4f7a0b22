//! tabula as OpenBench drives it: its reading of `bench` output applied to `tabula bench`,
//! `genfens` answered as its DATAGEN workers read it, and its own `Client/genfens.py` (from a
//! checkout named by `TABULA_OPENBENCH`; skipped without one) building a book with tabula.

use super::real_clients::{TABULA, run, scratch};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use tabula::game::{Notation, Rules};
use tabula::games::chess::Chess;

/// OpenBench runs `<binary> bench` and reads, scanning from the last line up, the first
/// `N nodes` and `N nps` it meets (after turning every non-alphanumeric into a space). The
/// node count must be the chess signature and the same on every run.
#[test]
fn openbench_reads_the_chess_bench() {
    let read = || {
        let out = Command::new(TABULA).arg("bench").output().expect("bench");
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (mut nodes, mut nps) = (None, None);
        let number_before = |words: &[&str], word: &str| {
            words
                .windows(2)
                .find(|w| w[1].eq_ignore_ascii_case(word) && w[0].parse::<u64>().is_ok())
                .and_then(|w| w[0].parse::<u64>().ok())
        };
        for line in text.lines().rev() {
            let clean: String = line
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
                .collect();
            let words: Vec<&str> = clean.split_whitespace().collect();
            nodes = nodes.or_else(|| number_before(&words, "nodes"));
            nps = nps.or_else(|| number_before(&words, "nps"));
        }
        let last = text.lines().last().unwrap_or("").to_string();
        (nodes, nps, last, text)
    };
    let (nodes, nps, last, text) = read();
    let words: Vec<&str> = last.split(' ').collect();
    assert!(
        words.len() == 4 && words[1] == "nodes" && words[3] == "nps",
        "last line {last:?}"
    );
    let signature = text
        .lines()
        .find_map(|l| l.strip_prefix("signature chess "))
        .and_then(|n| n.parse::<u64>().ok());
    assert_eq!(nodes, signature, "{text}");
    assert!(nps.is_some_and(|n| n > 0), "{text}");
    assert_eq!(read().0, nodes, "the bench is deterministic");
}

/// `tabula "genfens N seed S book B" quit` as OpenBench's DATAGEN workers run it
/// (`Client/genfens.py`): exactly N lines `info string genfens <FEN>` of six fields, the same
/// for the same seed, legal and not over; a malformed request or a missing book is one
/// `info string error:` line and a non-zero exit, at once (the worker would wait 15 s on a
/// silent engine).
#[test]
fn genfens_answers_as_openbench_reads_it() {
    let genfens = |args: &[&str]| {
        let out = Command::new(TABULA)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("tabula runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, text) = genfens(&["genfens 24 seed 11 book None", "quit"]);
    assert!(ok, "{text}");
    let fens: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .collect();
    assert_eq!(fens.len(), 24, "{text}");
    assert_eq!(text.lines().count(), 24, "nothing else on stdout: {text}");
    for fen in &fens {
        assert_eq!(fen.split(' ').count(), 6, "{fen}");
        let pos = Chess::default().parse_fen(fen).expect("a legal FEN");
        assert!(pos.result().is_none(), "{fen} is over");
    }
    assert_eq!(genfens(&["genfens 24 seed 11 book None", "quit"]).1, text);
    assert_ne!(genfens(&["genfens 24 seed 12 book None", "quit"]).1, text);
    // From a book: the book's positions with random plies after them (here 2).
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openings.epd");
    let request = format!("genfens 6 seed 3 book {} plies 2", book.display());
    let (ok, text) = genfens(&[&request, "quit"]);
    assert!(ok && text.lines().count() == 6, "{text}");
    for bad in [
        "genfens 4 seed 1 book /nonexistent/book.epd",
        "genfens four seed 1 book None",
        "genfens 4 seed 1 book None frobnicate",
    ] {
        let (ok, text) = genfens(&[bad, "quit"]);
        assert!(!ok, "{bad}: exit status");
        assert!(
            text.lines().count() == 1 && text.starts_with("info string error: genfens"),
            "{bad}: {text}"
        );
    }
}

/// OpenBench's own client code (`Client/genfens.py` of a checkout named by TABULA_OPENBENCH;
/// github AndyGrant/OpenBench, not vendored) builds an opening book with tabula on two
/// threads, as a DATAGEN worker does.
#[test]
fn openbench_client_genfens() {
    let Some(ob) = std::env::var_os("TABULA_OPENBENCH") else {
        eprintln!(
            "OpenBench: set TABULA_OPENBENCH to a checkout of github AndyGrant/OpenBench to run its Client/genfens.py against tabula: test skipped"
        );
        return;
    };
    let dir = scratch("openbench-genfens");
    let book = dir.join("book.epd");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openbench_genfens.py");
    let (ok, out) = run(
        Command::new("python3")
            .arg(script)
            .arg(&ob)
            .arg(TABULA)
            .arg(&book)
            .args(["--n", "20", "--threads", "2", "--seed", "5"]),
        Duration::from_secs(60),
        "openbench genfens",
    );
    assert!(ok, "OpenBench genfens:\n{out}");
    let text = std::fs::read_to_string(&book).expect("the book");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(text.lines().count(), 40, "{text}");
    for l in text.lines() {
        // OpenBench's EPD: four FEN fields, then `hmvc N; fmvn N;`.
        assert!(l.contains(" hmvc ") && l.ends_with(';'), "{l}");
        let fields: Vec<&str> = l.split(' ').take(4).collect();
        let fen = format!("{} 0 1", fields.join(" "));
        assert!(Chess::default().parse_fen(&fen).is_ok(), "{l}");
    }
}
