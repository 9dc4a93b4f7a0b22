//! Soak test: one engine process per game takes hundreds of random command sequences with
//! random timing — `stop` before `go`, double `go`, `isready` mid-search, `quit` at the end, a
//! 10,000-character line, invalid UTF-8, binary garbage. Every `isready` must be answered,
//! every `go` must get exactly one `bestmove`, resident memory must not grow beyond a small
//! constant once the tables are allocated, and the process must exit 0.

use super::common;

use common::{EngineProc, Rng};
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn soak(args: &[&str], hello: &str, positions: &[&str], steps: usize, seed: u64) {
    let mut e = EngineProc::start(args);
    e.send(hello);
    e.send("isready");
    e.expect("readyok", T);
    let pid = e.child.id();
    let rss_start = rss_kib(pid);
    let mut rng = Rng(seed);
    let mut gos = 0usize;
    let mut readies = 0usize; // the handshake's readyok is not collected
    let mut lines = Vec::new();
    for _ in 0..steps {
        match rng.below(14) {
            0 => e.send(positions[rng.below(positions.len())]),
            1 => {
                let go = [
                    "go depth 3",
                    "go movetime 5",
                    "go nodes 3000",
                    "go p1time 100 p2time 100 p1inc 1 p2inc 1",
                    "go wtime 50 btime 50",
                ][rng.below(5)];
                e.send(go);
                gos += 1;
            }
            2 => {
                e.send("go infinite");
                gos += 1;
                std::thread::sleep(Duration::from_millis(rng.below(5) as u64));
                e.send("stop");
            }
            3 => e.send("stop"),
            4 => {
                e.send("isready");
                readies += 1;
            }
            5 => {
                e.send("go depth 2");
                e.send("go depth 1");
                gos += 2;
            }
            6 => e.send(&format!("position startpos moves {}", "x".repeat(10_000))),
            7 => e.send_bytes(b"\xff\xfe\x80position \xc3\x28 fen\n"),
            8 => {
                let garbage: Vec<u8> = (0..rng.below(64))
                    .map(|_| rng.next() as u8)
                    .filter(|&b| b != b'\n')
                    .collect();
                let mut g = garbage;
                g.push(b'\n');
                e.send_bytes(&g);
            }
            9 => e.send("query gameover"),
            10 => e.send("setoption name MultiPV value 2"),
            11 => e.send("setoption name MultiPV value 1"),
            12 => e.send("position startpos"),
            _ => std::thread::sleep(Duration::from_millis(rng.below(4) as u64)),
        }
        if rng.below(20) == 0 {
            // Drain now and then so the pipe never fills.
            e.send("isready");
            readies += 1;
            let (_, before) = e.expect("readyok", T);
            lines.extend(before);
            lines.push("readyok".into());
        }
    }
    e.send("stop");
    e.send("isready");
    readies += 1;
    let (_, before) = e.expect("readyok", T);
    lines.extend(before);
    lines.push("readyok".into());
    // Let searches bounded by their own limits finish.
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    readies += 1;
    let (_, before) = e.expect("readyok", T);
    lines.extend(before);
    lines.push("readyok".into());
    let rss_end = rss_kib(pid);
    e.send("quit");
    lines.extend(e.drain(T));
    assert_eq!(
        e.wait_exit(Duration::from_secs(10)),
        Some(0),
        "{args:?}: exit code"
    );
    let bestmoves = lines.iter().filter(|l| l.starts_with("bestmove")).count();
    let readyoks = lines.iter().filter(|l| *l == "readyok").count();
    assert_eq!(readyoks, readies, "{args:?}: every isready answered");
    assert_eq!(bestmoves, gos, "{args:?}: one bestmove per go");
    assert!(
        rss_end <= rss_start + 32 * 1024,
        "{args:?}: memory grew from {rss_start} KiB to {rss_end} KiB"
    );
}

#[test]
fn soak_chess() {
    soak(
        &[],
        "uci",
        &[
            "position startpos moves e2e4 e7e5 g1f3",
            "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        ],
        1500,
        1,
    );
}

#[test]
fn soak_connect4() {
    soak(
        &["--game", "connect4"],
        "ugi",
        &[
            "position startpos moves d d c",
            "position fen 7/7/7/7/3y3/2yrr2 r 3",
            "position startpos moves a b a b a b a",
        ],
        1500,
        2,
    );
}

#[test]
fn soak_othello() {
    soak(
        &["--game", "othello"],
        "ugi",
        &[
            "position startpos moves f5 d6 c3",
            "position fen xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxo1/xxxxxxx1 o",
            "position fen 2xxxxx1/1oooxx1o/1oooxxox/1oxoxoxx/oxxxoxxx/2xoxoxx/1xxxooo1/1ooooo2 x",
        ],
        1500,
        3,
    );
}

#[test]
fn soak_domineering() {
    soak(
        &["--game", "domineering", "--rows", "6", "--cols", "6"],
        "ugi",
        &[
            "position startpos moves a1b1 a2a3",
            "position fen 6/6/2##2/6/6/6 v",
            "position fen 6/######/6/######/6/###### v",
        ],
        1500,
        4,
    );
}
