//! `tabula datagen` as a user runs it: the same file whatever `--threads`, and a run stopped
//! and resumed ends with the same file as one that was not (chess, and Othello, whose games
//! end in the exact solver's hands). Then `tabula train` reads the file and writes weights
//! the engine loads.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

/// A fresh directory of this test's own.
fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-datagen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Runs `datagen` and returns what it wrote (stderr, then stdout).
fn datagen(game: &str, out: &Path, games: u32, threads: u32, extra: &[&str]) -> String {
    let run = Command::new(TABULA)
        .args(["--game", game, "datagen", "--out"])
        .arg(out)
        .args([
            "--games",
            &games.to_string(),
            "--threads",
            &threads.to_string(),
        ])
        .args(["--seed", "9", "--nodes", "300"])
        .args(extra)
        .output()
        .expect("tabula runs");
    let log =
        String::from_utf8_lossy(&run.stderr).into_owned() + &String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "datagen failed: {log}");
    log
}

/// The lines the engine (started with `args`) writes for `script` up to its first `bestmove`,
/// then `quit`.
fn lines_to_bestmove(args: &[&str], script: &str) -> Vec<String> {
    let mut child = Command::new(TABULA)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("tabula starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{script}").expect("written");
    let mut seen = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("a line");
        let done = line.starts_with("bestmove ");
        seen.push(line);
        if done {
            break;
        }
    }
    let _ = writeln!(stdin, "quit");
    let _ = child.wait();
    seen
}

fn check(game: &str, extra: &[&str]) {
    let dir = tmp(game);
    let one = dir.join("one.bin");
    let two = dir.join("two.bin");
    let resumed = dir.join("resumed.bin");
    datagen(game, &one, 6, 1, extra);
    datagen(game, &two, 6, 2, extra);
    datagen(game, &resumed, 2, 2, extra);
    datagen(game, &resumed, 6, 1, extra);
    let bytes = std::fs::read(&one).expect("written");
    assert!(bytes.len() > 100, "{game}: almost nothing written");
    assert_eq!(
        bytes,
        std::fs::read(&two).expect("written"),
        "{game}: --threads 2 differs"
    );
    assert_eq!(
        bytes,
        std::fs::read(&resumed).expect("written"),
        "{game}: resumed differs"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn chess_data_is_the_same_whatever_threads_and_resumes() {
    check("chess", &[]);
}

#[test]
fn othello_data_is_the_same_whatever_threads_and_resumes() {
    // From 18 empties the exact solver labels and plays; its shared table must not decide
    // which of equal moves is played. The solver's deadline (500 ms by default, past which
    // the search plays instead) is lifted: on a loaded machine a solve could pass it in one
    // run and not in the other, which is the clock's doing, not the threads'.
    check(
        "othello",
        &["--option", "EvalFile=<none>", "--exact-ms", "600000"],
    );
}

/// The counts `datagen` reports at the end: (positions, exact) added.
fn added(game: &str, out: &Path, games: u32, extra: &[&str]) -> (u64, u64) {
    let log = datagen(game, out, games, 1, extra);
    // "othello: 6 games, 312 positions (120 exact) added to FILE"
    let line = log
        .lines()
        .find(|l| l.contains(" added to "))
        .unwrap_or_else(|| panic!("no summary: {log}"));
    let number = |before: &str| -> u64 {
        let head = &line[..line.find(before).unwrap_or_else(|| panic!("{line}"))];
        let word = head.split_whitespace().last().unwrap_or_default();
        word.trim_start_matches('(')
            .parse()
            .unwrap_or_else(|_| panic!("{line}"))
    };
    (number(" positions"), number(" exact"))
}

#[test]
fn othello_side_lines_add_exact_positions_and_resume_whole() {
    let dir = tmp("branches");
    let (plain, one, two, torn) = (
        dir.join("plain.bin"),
        dir.join("one.bin"),
        dir.join("two.bin"),
        dir.join("torn.bin"),
    );
    let base = ["--option", "EvalFile=<none>", "--exact-ms", "600000"];
    let branched = [&base[..], &["--branches", "3"]].concat();
    let (p0, e0) = added("othello", &plain, 6, &base);
    let (p1, e1) = added("othello", &one, 6, &branched);
    // Each side line adds only solver-labelled positions (up to 3 a game, each at least one).
    assert!(p1 > p0 && p1 - p0 == e1 - e0, "{p0} {e0} -> {p1} {e1}");
    assert!(e1 - e0 >= 6, "side lines added only {} positions", e1 - e0);
    // The main games are those of a run without side lines: the side lines use their own
    // draws (same first block, the plain file's first game).
    let (a, b) = (
        std::fs::read(&plain).expect("written"),
        std::fs::read(&one).expect("written"),
    );
    assert_eq!(a[..40], b[..40], "the first game's block starts alike");
    datagen("othello", &two, 6, 2, &branched);
    assert_eq!(
        b,
        std::fs::read(&two).expect("written"),
        "--threads 2 differs"
    );
    // A write cut inside the last game's side lines: the resumed file is the whole one.
    std::fs::write(&torn, &b[..b.len() - 10]).expect("written");
    datagen("othello", &torn, 6, 1, &branched);
    assert_eq!(
        b,
        std::fs::read(&torn).expect("written"),
        "resumed after a cut differs"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Othello's linear patterns, then the `pattern-net` model started from them (`--init`, 8
/// cells): each trains on self-play data and the engine plays with it.
#[test]
fn othello_patterns_train_and_load() {
    let dir = tmp("train");
    let data = dir.join("o.bin");
    let weights = dir.join("o.nnue");
    let net = dir.join("o-net.nnue");
    datagen("othello", &data, 60, 2, &[]);
    let fits: [(&str, &[&str], &Path, &str); 2] = [
        ("patterns", &[], &weights, "285363x0x2x9"),
        (
            "pattern-net",
            &["--hidden", "8", "--init", weights.to_str().unwrap_or("")],
            &net,
            "285363x8x2x9",
        ),
    ];
    for (model, extra, out_file, layout) in fits {
        let out = Command::new(TABULA)
            .args(["--game", "othello", "train", "--model", model, "--data"])
            .arg(&data)
            .args(extra)
            .arg("--out")
            .arg(out_file)
            .args(["--epochs", "2", "--threads", "1", "--lambda", "1"])
            .output()
            .expect("tabula runs");
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{model}: train failed: {log}");
        assert!(
            log.contains("held-out error") && log.contains(layout),
            "{model}: no disc error or not the layout {layout}: {log}"
        );
        // The engine plays with the weights.
        let seen = lines_to_bestmove(
            &["--game", "othello"],
            &format!(
                "ugi\nsetoption name OwnBook value false\nsetoption name EvalFile value {}\nisready\nposition startpos\ngo depth 4",
                out_file.display()
            ),
        );
        let text = seen.join("\n");
        assert!(!text.contains("error"), "{model}: {text}");
        assert!(
            seen.last()
                .is_some_and(|l| l.starts_with("bestmove ") && l.len() > 9),
            "{model}: {text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Chess's network by king bucket through the same pipeline: a fit from the embedded
/// 768-input network (`--init`), a file of 3,072 inputs that `tabula data --check` names, and the
/// engine plays with it (its king moves change frames: a game of a few moves each way).
#[test]
fn chess_king_buckets_train_and_load() {
    let dir = tmp("kings");
    let data = dir.join("c.bin");
    let weights = dir.join("k.nnue");
    datagen("chess", &data, 4, 2, &[]);
    let init = Path::new(env!("CARGO_MANIFEST_DIR")).join("weights/chess-nnue.bin");
    let out = Command::new(TABULA)
        .args(["train", "--model", "nnue-kings", "--data"])
        .arg(&data)
        .arg("--init")
        .arg(&init)
        .arg("--out")
        .arg(&weights)
        .args(["--epochs", "1", "--threads", "1"])
        .output()
        .expect("tabula runs");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "train failed: {log}");
    assert!(log.contains("3840x"), "the trainer's layout: {log}");
    let checked = Command::new(TABULA)
        .args(["data", "--check"])
        .arg(&weights)
        .output()
        .expect("tabula runs");
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(
        checked.status.success() && said.contains("chess 3072x"),
        "{said}"
    );
    let seen = lines_to_bestmove(
        &[],
        &format!(
            "uci\nsetoption name EvalFile value {}\nisready\nposition startpos moves e2e4 e7e5 e1e2 e8e7 e2d3 e7d6\ngo depth 6",
            weights.display()
        ),
    );
    let text = seen.join("\n");
    assert!(!text.contains("error"), "{text}");
    assert!(
        seen.last()
            .is_some_and(|l| l.starts_with("bestmove ") && l != "bestmove 0000"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The big boards use the same pipeline: 12x12 self-play, a fit from the hand-written
/// evaluation (`--init '<hand>'`), and the engine on 12x12 plays with the file; the 8x8
/// engine refuses it (another layout).
#[test]
fn big_othello_patterns_train_and_load() {
    let dir = tmp("big");
    let data = dir.join("o12.bin");
    let weights = dir.join("o12.weights");
    let status = Command::new(TABULA)
        .args(["--game", "othello", "--size", "12", "datagen", "--out"])
        .arg(&data)
        .args([
            "--games",
            "3",
            "--threads",
            "1",
            "--seed",
            "9",
            "--nodes",
            "200",
        ])
        .output()
        .expect("tabula runs");
    assert!(
        status.status.success(),
        "datagen failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let out = Command::new(TABULA)
        .args(["--game", "othello", "--size", "12", "train", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&weights)
        .args(["--init", "<hand>", "--epochs", "1", "--threads", "1"])
        .output()
        .expect("tabula runs");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "train failed: {log}");
    let play = |size: &str| {
        lines_to_bestmove(
            &["--game", "othello", "--size", size],
            &format!(
                "ugi\nsetoption name EvalFile value {}\nisready\nposition startpos\ngo depth 3",
                weights.display()
            ),
        )
        .join("\n")
    };
    let big = play("12");
    assert!(!big.contains("error"), "{big}");
    assert!(big.contains("bestmove "), "{big}");
    let small = play("8");
    assert!(small.contains("info string error"), "{small}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Records of a four-game chess datagen run from `fen` (with `extra`) whose position is one
/// the 4-piece tables decide: at most four pieces, just after a capture or a pawn move
/// (halfmove clock 0, where a WDL result holds); and the run's summary line.
fn decided_records(dir: &Path, name: &str, fen: &str, extra: &[&str]) -> (usize, String) {
    let book = dir.join(format!("{name}.epd"));
    let data = dir.join(format!("{name}.bin"));
    std::fs::write(&book, format!("{fen}\n")).expect("the book");
    let out = Command::new(TABULA)
        .args(["--game", "chess", "datagen", "--out"])
        .arg(&data)
        .args([
            "--games",
            "4",
            "--threads",
            "1",
            "--seed",
            "9",
            "--nodes",
            "1000",
        ])
        .args(["--random-plies", "0", "--book"])
        .arg(&book)
        .args(extra)
        .output()
        .expect("tabula runs");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "datagen failed: {text}");
    let records = Command::new(TABULA)
        .args(["--game", "chess", "data"])
        .arg(&data)
        .args(["--text", "100000"])
        .output()
        .expect("tabula runs");
    assert!(records.status.success());
    let listing = String::from_utf8_lossy(&records.stdout).to_string();
    let decided = listing
        .lines()
        .filter_map(|l| l.split(" | ").next())
        .filter(|fen| {
            let f: Vec<&str> = fen.split_whitespace().collect();
            f.len() == 6 && f[4] == "0" && has_table(f[0])
        })
        .count();
    (decided, text)
}

/// Whether tests/data/syzygy has the WDL table of the material of this FEN's board (either
/// side first: `KRvKP.rtbw` serves KP v KR too). A position of four pieces whose table is not
/// there (KQR v K, after a promotion) is not decided by the tables and plays on.
fn has_table(board: &str) -> bool {
    let side = |white: bool| -> String {
        let mut s = String::from("K");
        for p in ['q', 'r', 'b', 'n', 'p'] {
            let want = if white { p.to_ascii_uppercase() } else { p };
            for _ in board.chars().filter(|&c| c == want) {
                s.push(p.to_ascii_uppercase());
            }
        }
        s
    };
    let (w, b) = (side(true), side(false));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    [format!("{w}v{b}.rtbw"), format!("{b}v{w}.rtbw")]
        .iter()
        .any(|name| dir.join(name).exists())
}

/// With the tablebases of tests/data/syzygy (up to 4 pieces), a game ends where the tables
/// decide it: at a position whose table is there just after a capture or a pawn move (or
/// the start), so no such position is recorded; without them the games play on through such
/// positions. From KR v KR (the even-numbered games start there, the clock at 0; the odd ones
/// play a random move first) and from KRP v KR (where a capture or a pawn move brings the
/// game into the tables). The tables' results themselves are tested in tests/syzygy.rs.
#[test]
fn chess_games_end_where_the_tablebases_decide_them() {
    let dir = tmp("syzygy");
    let tb = format!(
        "SyzygyPath={}",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/syzygy")
            .display()
    );
    let krkr = "8/8/4k3/8/8/2r5/8/R3K3 w - - 0 1";
    let krp = "8/8/4k3/8/8/2r5/4P3/R3K3 w - - 0 1";
    let (without, line) = decided_records(&dir, "without", krkr, &[]);
    assert!(
        without >= 2,
        "without tables: {without} decided positions; {line}"
    );
    for (name, fen) in [("krkr", krkr), ("krp", krp)] {
        let (with, line) = decided_records(&dir, name, fen, &["--option", &tb]);
        assert_eq!(with, 0, "{name} with tables: {line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The empty squares and the exact flag of each record of an Othello data file
/// (`tabula data --text`: `board side | score | label | game | ply | flags`).
fn othello_records(data: &Path) -> Vec<(u32, bool)> {
    let out = Command::new(TABULA)
        .args(["--game", "othello", "data"])
        .arg(data)
        .args(["--text", "100000"])
        .output()
        .expect("tabula runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.contains(" | "))
        .map(|l| {
            let board = l.split(' ').next().unwrap_or("");
            let empties = board.chars().filter_map(|c| c.to_digit(10)).sum();
            let flags = l.rsplit(" | ").next().unwrap_or("").trim();
            (empties, flags == "1")
        })
        .collect()
}

/// `--exact-ms` is the solving thread's CPU time: a run stopped (SIGSTOP) for longer than the
/// limit, several times while it solves, writes the same bytes as a run left alone. On the
/// wall clock a pause inside a solve ran it out of time, and the search played and labelled
/// that position instead (round 6's and round 7's data could not be remade byte for byte,
/// protocol/learning.md). The limit, 3 s, is three times the longest of these solves here.
#[cfg(unix)]
#[test]
fn othello_labels_do_not_depend_on_pauses() {
    let dir = tmp("pauses");
    let (alone, paused) = (dir.join("a.bin"), dir.join("p.bin"));
    let args = ["--exact-from", "21", "--exact-ms", "3000"];
    datagen("othello", &alone, 6, 1, &args);
    let mut child = Command::new(TABULA)
        .args(["--game", "othello", "datagen", "--out"])
        .arg(&paused)
        .args([
            "--games",
            "6",
            "--threads",
            "1",
            "--seed",
            "9",
            "--nodes",
            "300",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tabula starts");
    let pid = child.id().to_string();
    let signal = |sig: &str| {
        let _ = Command::new("kill").args([sig, &pid]).status();
    };
    for _ in 0..3 {
        std::thread::sleep(std::time::Duration::from_millis(400));
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        signal("-STOP");
        std::thread::sleep(std::time::Duration::from_millis(3300));
        signal("-CONT");
    }
    let status = child.wait().expect("datagen ends");
    assert!(status.success(), "datagen failed");
    let (a, p) = (
        std::fs::read(&alone).expect("the data"),
        std::fs::read(&paused).expect("the data"),
    );
    assert!(a.len() > 1000, "{} bytes", a.len());
    assert!(
        a == p,
        "a paused run wrote other data ({} and {} bytes)",
        a.len(),
        p.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--exact-from N` moves where the exact solver takes over: every position from N empties
/// down is labelled exactly, past the default 18 and past the 20 empties at which play
/// hands the engine's search to the solver.
#[test]
fn othello_exact_labels_start_where_asked() {
    let dir = tmp("exact-from");
    let default = dir.join("d.bin");
    let from21 = dir.join("e.bin");
    let slow = ["--exact-ms", "600000", "--option", "EvalFile=<none>"];
    datagen("othello", &default, 3, 2, &slow);
    let mut extra = slow.to_vec();
    extra.extend(["--exact-from", "21"]);
    datagen("othello", &from21, 3, 2, &extra);
    let (d, e) = (othello_records(&default), othello_records(&from21));
    assert!(
        d.len() > 100 && e.len() > 100,
        "{} and {} records",
        d.len(),
        e.len()
    );
    for &(empties, exact) in &d {
        assert_eq!(
            exact,
            empties <= 18,
            "default: {empties} empties, exact {exact}"
        );
    }
    for &(empties, exact) in &e {
        assert_eq!(
            exact,
            empties <= 21,
            "--exact-from 21: {empties} empties, exact {exact}"
        );
    }
    assert!(
        e.iter().any(|&(n, _)| n == 21) && d.iter().any(|&(n, _)| (19..=21).contains(&n)),
        "no position of 19 to 21 empties recorded"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
