//! The protocol facts that GUIs and runners rely on, checked against the real binary:
//! prompt `isready` and `stop` during a search, exactly one `bestmove` per `go`, EOF and
//! `quit` mid-search, state kept across bad input, long lines, legal PVs, MultiPV,
//! searchmoves, and a Hash option that really sizes the table.
//!
//! Latency bounds here are generous (a loaded CI machine); the measured figures are in the
//! closing notes, taken on an idle machine.

use super::common;

use common::{EngineProc, Rng};
use std::time::{Duration, Instant};
use tabula::game::{Notation, Rules, SearchHints};
use tabula::games::chess::Chess;

const T: Duration = Duration::from_secs(20);

fn uci() -> EngineProc {
    let mut e = EngineProc::start(&[]);
    e.send("uci");
    e.expect("uciok", T);
    e
}

fn bestmoves(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

#[test]
fn isready_and_stop_are_prompt_during_search() {
    let mut e = uci();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    e.send("isready");
    let (_, before) = e.expect("readyok", T);
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "isready took {:?}",
        t.elapsed()
    );
    assert_eq!(
        bestmoves(&before),
        0,
        "no bestmove in infinite mode before stop"
    );
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("stop");
    let (best, _) = e.expect("bestmove", T);
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "stop took {:?}",
        t.elapsed()
    );
    assert!(best.len() > "bestmove ".len());
}

#[test]
fn every_go_gets_exactly_one_bestmove() {
    let mut e = uci();
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    e.send("go depth 2"); // a second go stops and reports the first search
    e.send("stop");
    e.send("stop"); // stop with nothing running is harmless
    e.send("go depth 1");
    e.send("isready");
    let (_, before) = e.expect("readyok", T);
    std::thread::sleep(Duration::from_millis(300));
    e.close_stdin();
    let mut all = before;
    all.extend(e.drain(T));
    assert_eq!(bestmoves(&all), 3, "{all:?}");
    assert_eq!(e.wait_exit(T), Some(0));
}

#[test]
fn eof_and_quit_end_the_process_mid_search() {
    for quit in [false, true] {
        let mut e = uci();
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        let t = Instant::now();
        if quit {
            e.send("quit");
        } else {
            e.close_stdin();
        }
        assert_eq!(e.wait_exit(Duration::from_secs(5)), Some(0));
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "exit took {:?}",
            t.elapsed()
        );
    }
}

fn fen_of(e: &mut EngineProc) -> String {
    e.send("d");
    let (line, _) = e.expect("Fen: ", T);
    line["Fen: ".len()..].to_string()
}

#[test]
fn bad_input_never_changes_the_position() {
    let mut e = uci();
    e.send("position startpos moves d2d4 d7d5");
    let good = fen_of(&mut e);
    let bad: &[&[u8]] = &[
        b"position startpos moves d2d4 d7d5 e1e8",
        b"position fen rnbqkbnr/pppppppp w KQkq - 0 1",
        b"position fen 9/8/8/8/8/8/8/8 w - - 0 1",
        b"position",
        b"position startpos moves e2e4 0000",
        b"\xff\xfe\x00garbage\x01\x02",
        b"position fen \xc3\x28 w - - 0 1",
        b"go searchmoves a1a1 depth 1",
    ];
    for line in bad {
        let mut l = line.to_vec();
        l.push(b'\n');
        e.send_bytes(&l);
        let (err, _) = e.expect("info string error: ", T);
        assert!(err.len() < 400, "error line is short: {err}");
        assert_eq!(
            fen_of(&mut e),
            good,
            "after {:?}",
            String::from_utf8_lossy(line)
        );
    }
    let long = format!("position startpos moves {}", "e2e4 ".repeat(2000));
    e.send(&long);
    e.expect("info string error: ", T);
    assert_eq!(fen_of(&mut e), good);
}

#[test]
fn a_600_ply_move_list_is_accepted() {
    let mut rng = Rng(42);
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut text = Vec::new();
    let mut buf = Vec::new();
    while text.len() < 600 {
        pos.legal_moves(&mut buf);
        // Avoid captures and pawn moves so the game cannot end before 600 plies... except
        // by the 50-move rule, which only lets a GUI keep going (moves stay legal).
        let quiet: Vec<_> = buf
            .iter()
            .copied()
            .filter(|&m| !pos.is_tactical(m))
            .collect();
        let pick = if quiet.is_empty() { &buf } else { &quiet };
        assert!(!pick.is_empty(), "playout ended early");
        let m = pick[rng.below(pick.len())];
        text.push(pos.format_move(m));
        moves.push(m);
        pos.play(m);
    }
    let mut e = uci();
    e.send(&format!("position startpos moves {}", text.join(" ")));
    assert_eq!(fen_of(&mut e), pos.fen());
    e.send("go depth 3");
    let (best, _) = e.expect("bestmove", T);
    let mv = best.split_whitespace().nth(1).unwrap();
    // Past the 50-move rule a draw could be claimed, but the position has legal moves: a GUI
    // still expects one of them.
    assert!(pos.parse_move(mv).is_ok(), "{best}");
}

/// The move a `go` answered, checked legal in `pos` (never `0000` while a legal move exists).
fn legal_bestmove(e: &mut EngineProc, pos: &Chess, go: &str) -> String {
    e.send(go);
    let (best, _) = e.expect("bestmove", T);
    let mv = best.split_whitespace().nth(1).unwrap_or("").to_string();
    assert!(pos.parse_move(&mv).is_ok(), "{go} at {}: {best}", pos.fen());
    mv
}

#[test]
fn a_position_where_a_draw_could_be_claimed_still_gets_a_move() {
    let mut e = uci();
    // Fifty-move rule reached (a draw may be claimed), bare kings, a threefold repetition in
    // the move list: each has legal moves, so each gets one.
    for fen in [
        "8/8/4k3/8/8/3K4/4P3/8 w - - 100 80",
        "8/8/4k3/8/8/3K4/8/8 w - - 0 80",
        "8/8/4k3/8/8/3K4/8/7B b - - 0 80",
    ] {
        let pos = Chess::default().parse_fen(fen).unwrap();
        e.send(&format!("position fen {fen}"));
        legal_bestmove(&mut e, &pos, "go depth 6");
        legal_bestmove(&mut e, &pos, "go movetime 100");
    }
    let knights = "g1f3 g8f6 f3g1 f6g8 ".repeat(150);
    e.send(&format!("position startpos moves {knights}"));
    legal_bestmove(&mut e, &Chess::default(), "go depth 6");
    // The pawn push is the only way not to repeat or reach the 50-move draw: it must still be
    // found when the side ahead needs it.
    let fen = "8/8/4k3/8/8/3K4/4P3/8 w - - 99 80";
    e.send(&format!("position fen {fen}"));
    let mv = legal_bestmove(
        &mut e,
        &Chess::default().parse_fen(fen).unwrap(),
        "go depth 8",
    );
    assert!(mv == "e2e3" || mv == "e2e4", "{mv}");
}

/// A fixed move time is used (less Move Overhead), not cut at an iteration boundary: a runner
/// that sets `movetime` expects it spent. The bound is loose (a loaded machine answers late,
/// never early).
#[test]
fn movetime_is_used_to_the_end() {
    let cases: [(&[&str], &str, &str); 3] = [
        (&[], "uci", "position startpos moves e2e4 e7e5 g1f3"),
        (
            &[],
            "uci",
            "position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9",
        ),
        (
            &["--game", "othello"],
            "ugi",
            "position startpos moves f5 d6 c3 d3 c4 f4",
        ),
    ];
    for (args, hello, position) in cases {
        let mut e = EngineProc::start(args);
        e.send(hello);
        e.expect(if hello == "uci" { "uciok" } else { "ugiok" }, T);
        if hello == "ugi" {
            // Othello's opening book would answer this position at once: the search is timed.
            e.send("setoption name OwnBook value false");
        }
        e.send(position);
        e.send("isready");
        e.expect("readyok", T);
        let t = Instant::now();
        e.send("go movetime 800");
        e.expect("bestmove", T);
        let took = t.elapsed();
        assert!(
            took >= Duration::from_millis(700),
            "{position}: answered after {took:?} of 800 ms"
        );
        assert!(took < Duration::from_millis(3000), "{position}: {took:?}");
    }
}

/// Parses an info line's PV and checks every move is legal from `root`; returns the PV.
fn legal_pv(root: &Chess, line: &str) -> Vec<String> {
    let Some(idx) = line.find(" pv ") else {
        return vec![];
    };
    let pv: Vec<String> = line[idx + 4..]
        .split_whitespace()
        .map(String::from)
        .collect();
    let mut pos = root.clone();
    for m in &pv {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("illegal PV move {m} in {line}: {e}"));
        pos.play(mv);
    }
    pv
}

#[test]
fn pvs_are_legal_and_bestmove_is_the_last_pv_head() {
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    ];
    let mut e = uci();
    for (i, fen) in fens.iter().enumerate() {
        let root = Chess::default().parse_fen(fen).unwrap();
        e.send(&format!("position fen {fen}"));
        let go = ["go movetime 300", "go depth 7", "go nodes 20000"][i];
        e.send(go);
        let (best, infos) = e.expect("bestmove", T);
        let last = infos
            .iter()
            .rev()
            .find(|l| l.contains(" pv "))
            .expect("an info line with a pv");
        for l in &infos {
            legal_pv(&root, l);
        }
        let pv = legal_pv(&root, last);
        let bm = best.split_whitespace().nth(1).unwrap();
        assert_eq!(pv[0], bm, "{fen}: {last} / {best}");
        if let Some(p) = best.split_whitespace().nth(3) {
            let mut child = root.clone();
            child.play(root.parse_move(bm).unwrap());
            assert!(child.parse_move(p).is_ok(), "ponder move {p} illegal");
        }
    }
}

#[test]
fn multipv_and_searchmoves() {
    let mut e = uci();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go depth 6");
    let (_, infos) = e.expect("bestmove", T);
    let d6: Vec<&String> = infos
        .iter()
        .filter(|l| l.starts_with("info depth 6 "))
        .collect();
    assert_eq!(d6.len(), 3, "{infos:?}");
    let firsts: std::collections::HashSet<_> = d6
        .iter()
        .map(|l| l.split(" pv ").nth(1).unwrap().split(' ').next().unwrap())
        .collect();
    assert_eq!(firsts.len(), 3, "three different lines: {d6:?}");
    e.send("setoption name MultiPV value 1");
    e.send("go depth 5 searchmoves a2a3 h2h4");
    let (best, _) = e.expect("bestmove", T);
    let bm = best.split_whitespace().nth(1).unwrap();
    assert!(bm == "a2a3" || bm == "h2h4", "{best}");
}

/// Once line 1 is a proven mate, lines 2 and 3 still deepen (issue 49: the stop rule looked
/// at line 1 only, and lines 2 and 3 stayed at depth 2 however long the search ran).
#[test]
fn multipv_lines_deepen_past_a_mate_in_line_one() {
    let mut e = uci();
    e.send("setoption name MultiPV value 3");
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    e.send("go depth 9");
    let (best, infos) = e.expect("bestmove", T);
    assert_eq!(best.split_whitespace().nth(1), Some("a1a8"), "{best}");
    for line in 1..=3 {
        let deepest = infos
            .iter()
            .filter(|l| l.contains(&format!(" multipv {line} ")))
            .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u32>().ok())
            .max();
        assert_eq!(deepest, Some(9), "line {line}: {infos:?}");
    }
}

#[test]
fn nodes_depth_and_mate_limits() {
    let mut e = uci();
    e.send("position startpos");
    e.send("go nodes 5000");
    let (_, infos) = e.expect("bestmove", T);
    let last = infos.iter().rev().find(|l| l.contains(" nodes ")).unwrap();
    let nodes: u64 = last
        .split(" nodes ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(nodes <= 5000 + 1024, "{last}");
    e.send("go depth 4");
    let (_, infos) = e.expect("bestmove", T);
    assert!(infos.iter().any(|l| l.starts_with("info depth 4 ")));
    assert!(!infos.iter().any(|l| l.starts_with("info depth 5 ")));
    // Mate in 2: 1.Nf6+ gxf6 2.Bxf7# (Legal's mate pattern).
    e.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    e.send("go mate 2");
    let (best, infos) = e.expect("bestmove", T);
    assert!(
        infos.iter().any(|l| l.contains("score mate 2")),
        "{infos:?}"
    );
    assert!(best.starts_with("bestmove "));
}

#[test]
fn wdl_and_chess960_output() {
    let mut e = uci();
    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name UCI_Chess960 value true");
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1");
    e.send("d");
    let (fen, _) = e.expect("Fen: ", T);
    assert!(fen.contains("R4RK1 b"), "castled: {fen}");
    e.send("go depth 3");
    let (_, infos) = e.expect("bestmove", T);
    let line = infos
        .iter()
        .find(|l| l.contains(" wdl "))
        .expect("wdl shown");
    let w: Vec<u32> = line
        .split(" wdl ")
        .nth(1)
        .unwrap()
        .split(' ')
        .take(3)
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(w.iter().sum::<u32>(), 1000);
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
#[cfg(target_os = "linux")]
fn hash_option_sizes_the_table() {
    let mut e = uci();
    e.send("isready");
    e.expect("readyok", T);
    let small = rss_kib(e.child.id());
    e.send("setoption name Hash value 256");
    e.send("isready");
    e.expect("readyok", T);
    let big = rss_kib(e.child.id());
    assert!(big > small + 200 * 1024, "RSS {small} KiB -> {big} KiB");
    e.send("setoption name Hash value 1");
    e.send("isready");
    e.expect("readyok", T);
    let back = rss_kib(e.child.id());
    assert!(
        back < big - 200 * 1024,
        "RSS {big} KiB -> {back} KiB after shrinking"
    );
}

#[test]
fn threads_search_and_report() {
    let mut e = uci();
    e.send("setoption name Threads value 2");
    e.send("position startpos moves e2e4 c7c5");
    e.send("go depth 9");
    let (best, _) = e.expect("bestmove", T);
    let root = Chess::default()
        .parse_fen("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
        .unwrap();
    assert!(
        root.parse_move(best.split_whitespace().nth(1).unwrap())
            .is_ok(),
        "{best}"
    );
}

/// A GUI that sets `EvalFile` on every new game must not grow the process (issue 49: each
/// load leaked the weights, 300 loads of the 213 KB network took 23 MB to 270 MB).
#[test]
#[cfg(target_os = "linux")]
fn setting_the_same_evalfile_again_does_not_grow_memory() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/chess-nnue.bin");
    let mut e = uci();
    let load = |e: &mut EngineProc, n: usize| {
        for _ in 0..n {
            e.send(&format!("setoption name EvalFile value {file}"));
        }
        e.send("isready");
        e.expect("readyok", T);
    };
    load(&mut e, 20);
    let before = rss_kib(e.child.id());
    load(&mut e, 500);
    let after = rss_kib(e.child.id());
    assert!(before > 0, "VmRSS read from /proc");
    // 500 leaked copies would be over 100 MB; allow a few MB of allocator noise.
    assert!(after < before + 8 * 1024, "{before} KiB -> {after} KiB");
    e.send("position startpos");
    e.send("go depth 4");
    let (best, _) = e.expect("bestmove", T);
    assert!(best.starts_with("bestmove "), "{best}");
}
