//! `tabula solve` at the command line: the board size and FEN it is given are the ones it
//! solves, a flag that cannot apply to the game is refused by name, and an input without
//! positions is an error that says so rather than a silent success.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `tabula solve ARGS` with `input` on stdin: (success, stdout, stderr).
fn solve(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("solve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A refused flag ends the process before it reads: a broken pipe then is no failure.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// A 10x10 position two squares from the end, as an .obf line: Black everywhere but a10
/// (empty), b10 (empty) and c10 (White); Black to move takes b10 and every disc.
fn obf_10x10() -> String {
    format!("{}--O{} X", "X".repeat(90), "X".repeat(7))
}

#[test]
fn othello_solves_the_size_it_is_given() {
    let (ok, out, err) = solve(&["--game", "othello", "--size", "10"], &obf_10x10());
    assert!(ok, "{err}");
    assert!(
        out.contains("line 1: 2 empties, score +100, best b10"),
        "{out}"
    );
    // The same line is not an 8x8 position: 8x8 is no longer what any size means.
    let (ok, _, err) = solve(&["--game", "othello"], &format!("{}\n", "X".repeat(100)));
    assert!(!ok && err.contains("no position solved"), "{err}");
}

#[test]
fn othello_solves_a_fen_of_any_size() {
    let rows = ["xxxxxxxxxx"; 9].join("/");
    let fen = format!("{rows}/2oxxxxxxx x");
    let (ok, out, err) = solve(&["--game", "othello", "--fen", &fen], "");
    assert!(ok, "{err}");
    assert!(out.contains("2 empties, score +100, best b10"), "{out}");
}

#[test]
fn flags_that_cannot_apply_are_refused_by_name() {
    for (args, flag) in [
        (&["--game", "othello", "--hash", "64"][..], "--hash"),
        (&["--game", "othello", "--weak"][..], "--weak"),
        (
            &["--game", "othello", "--checkpoint", "x.ckpt"][..],
            "--checkpoint",
        ),
        (&["--game", "othello", "--book", "4"][..], "--book"),
        (
            &["--game", "domineering", "--rows", "4", "--weak"][..],
            "--weak",
        ),
        (
            &["--game", "connect4", "--checkpoint-minutes", "3"][..],
            "--checkpoint",
        ),
    ] {
        let (ok, out, err) = solve(args, &obf_10x10());
        assert!(!ok, "{args:?} accepted: {out}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} solved something: {out}");
    }
}

#[test]
fn an_input_without_positions_says_so() {
    for game in ["othello", "connect4"] {
        let (ok, out, err) = solve(&["--game", game], "");
        assert!(!ok, "{game}: empty input accepted: {out}");
        assert!(err.contains("no positions in the input"), "{game}: {err}");
        let (ok, _, err) = solve(&["--game", game], "# only a comment\n");
        assert!(!ok && err.contains("no positions"), "{game}: {err}");
    }
}

/// `--eval-file` orders the 8x8 solver with the weights it names: the embedded file by its
/// path visits the same nodes as the embedded weights, the hand-written evaluation other
/// nodes to the same margins, and a file that is not there (or not 8x8's) is refused by name.
#[test]
fn othello_solves_with_the_weights_it_is_given() {
    let set = include_str!("../data/fforum-1-19.obf");
    let summary = |args: &[&str]| {
        let mut all = vec!["--game", "othello", "--threads", "1"];
        all.extend_from_slice(args);
        let (ok, out, err) = solve(&all, set);
        assert!(ok, "{args:?}: {err}");
        let last = out.lines().last().unwrap_or("").to_string();
        assert!(
            last.contains("solved 19 positions") && last.contains(" 0 mismatches"),
            "{args:?}: {out}"
        );
        // "... in T s: N nodes (+M ordering), ...": the counts alone.
        last.split(": ")
            .nth(1)
            .unwrap_or("")
            .split(", ")
            .next()
            .unwrap_or("")
            .to_string()
    };
    let embedded = summary(&[]);
    let weights = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/othello-patterns.bin");
    assert_eq!(summary(&["--eval-file", weights]), embedded);
    assert_ne!(summary(&["--eval-file", "<none>"]), embedded);
    let (ok, _, err) = solve(
        &["--game", "othello", "--eval-file", "/no/such/weights.bin"],
        set,
    );
    assert!(!ok && err.contains("/no/such/weights.bin"), "{err}");
    let (ok, _, err) = solve(
        &["--game", "othello", "--size", "10", "--eval-file", weights],
        &obf_10x10(),
    );
    assert!(!ok && err.contains("EvalFile"), "{err}");
}
