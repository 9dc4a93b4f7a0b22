//! `tabula play` driven through a pipe: scripted input, checks on the text that comes back,
//! for every game, including bad input, undo, hint, resign, save and load.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `tabula <args>` with `input` on stdin; returns stdout. Fails if it does not exit
/// cleanly (a crash or a hang would fail here: stdin is closed at the end of the script).
fn play(args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tabula");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write script");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "exit status {:?}", out.status);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tmp(name: &str) -> String {
    std::env::temp_dir()
        .join(format!("tabula-play-{}-{name}", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn chess_san_square_pairs_mistakes_and_mate() {
    // Fool's mate between two people: SAN, a square pair, and mistakes on the way.
    let out = play(
        &["play", "chess", "--human", "both"],
        "f3\ne7\ne5\nKe2\nn\ng4\nmoves\nexd9\nqh4\n",
    );
    assert!(
        out.contains("Move from e7 to which square? (e5, e6)"),
        "{out}"
    );
    assert!(
        out.contains("'Ke2': e2 is occupied by your own piece. Did you mean \"Kf2\"? (y/n)"),
        "{out}"
    );
    assert!(out.contains("Legal moves (")); // after 3.g4 White's reply list
    assert!(out.contains("'exd9' is not a move"), "{out}");
    assert!(
        out.contains("Game over: checkmate. Black wins (0-1)."),
        "{out}"
    );
    assert!(out.contains("Last move: Qh4# (Black)"), "{out}");
}

#[test]
fn chess_against_engine_with_hint_undo_resign_save_and_load() {
    let file = tmp("game.pgn");
    let out = play(
        &["play", "chess", "--movetime", "50"],
        &format!("e4\nhint\nundo\nd4\nEND\nsave {file}\nquit\n"),
    );
    assert!(out.contains("tabula (Black) is thinking..."), "{out}");
    assert!(out.contains("Hint: "), "{out}");
    assert!(out.contains("Took back 2 moves."), "{out}");
    assert!(out.contains("White resigns. Black wins (0-1)"), "{out}");
    let pgn = std::fs::read_to_string(&file).expect("saved");
    assert!(
        pgn.contains("[Result \"0-1\"]") && pgn.contains("1. d4 "),
        "{pgn}"
    );
    // Load: two people carry on from the saved moves.
    let out = play(
        &["play", "--load", &file, "--human", "both"],
        "moves\nquit\n",
    );
    assert!(
        out.contains("White to move") || out.contains("Black to move"),
        "{out}"
    );
    assert!(out.contains("Last move: "), "{out}");
    let _ = std::fs::remove_file(file);
}

#[test]
fn connect4_full_column_and_four_in_a_row() {
    let out = play(
        &["play", "connect4", "--human", "both"],
        "a\na\na\na\na\na\na\nh\nb\nc\nb\nc\nb\nc\nb\n",
    );
    assert!(out.contains("column a is full"), "{out}");
    assert!(out.contains("'h' is off the board"), "{out}");
    // a a a a a a (full), then b c b c b c b: Red's b1..b4? Red played a1 a3 a5, b, b, b, b.
    assert!(out.contains("Game over: four in a row."), "{out}");
    assert!(
        out.contains("[X]"),
        "the winning four is highlighted: {out}"
    );
}

#[test]
fn othello_occupied_marks_and_disc_count() {
    let out = play(
        &["play", "othello", "--human", "both"],
        "d3\nc3\nc3\nzz\nshow\nundo\nquit\n",
    );
    assert!(out.contains("the square is occupied"), "{out}");
    assert!(out.contains(" * "), "legal moves marked after show: {out}");
    assert!(out.contains("Black 2  White 2"), "{out}");
}

#[test]
fn domineering_dominoes_and_the_loser_told() {
    // 2x2: Horizontal takes a row, Vertical then has no move.
    let out = play(
        &[
            "play",
            "domineering",
            "--rows",
            "2",
            "--cols",
            "2",
            "--human",
            "both",
        ],
        "a1a2\na1\n",
    );
    assert!(
        out.contains("'a1a2' is vertical, but Horizontal is to move"),
        "{out}"
    );
    assert!(out.contains("<==>"), "a domino drawn as one piece: {out}");
    assert!(out.contains("no legal moves — Vertical loses"), "{out}");
}

#[test]
fn records_of_other_games_round_trip() {
    let file = tmp("c4.txt");
    let out = play(
        &[
            "play", "connect4", "--width", "5", "--height", "4", "--human", "both",
        ],
        &format!("c\nc\nb\nsave {file}\nquit\n"),
    );
    assert!(out.contains("Saved to"), "{out}");
    let text = std::fs::read_to_string(&file).expect("saved");
    assert!(
        text.contains("[Game \"connect4\"]") && text.contains("[Size \"5x4\"]"),
        "{text}"
    );
    let out = play(
        &["play", "--load", &file, "--human", "both"],
        "moves\nquit\n",
    );
    assert!(out.contains("Yellow to move"), "{out}");
    assert!(out.contains("Legal moves (5): a b c d e"), "{out}");
    let _ = std::fs::remove_file(file);
}

#[test]
fn engine_against_itself_finishes_every_game() {
    for (game, extra) in [
        ("connect4", vec!["--width", "4", "--height", "4"]),
        ("domineering", vec!["--rows", "4", "--cols", "4"]),
        ("othello", vec![]),
    ] {
        let mut args = vec!["play", game, "--human", "none", "--depth", "3"];
        args.extend(extra);
        let out = play(&args, "");
        assert!(out.contains("Game over: "), "{game}: {out}");
    }
}
