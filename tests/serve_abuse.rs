//! `tabula serve` under abuse, the short version of `scripts/serve_abuse.py` (issue 46): 500
//! connections at once, every kind of malformed and oversized request once, moves for other
//! games and for closed ones, and games opened and closed with their engine processes counted.
//! The server must answer `/` all along, end every engine of a closed game, and keep its
//! threads and descriptors. The regressions of the defects its first HTTP library had are
//! here: a `Content-Length` of 10^12 aborted the server, an `accept` out of descriptors
//! closed it.

#[path = "common/http.rs"]
mod http;

use http::{Server, request};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// (resident KiB, threads, open descriptors) of a process.
fn figures(pid: u32) -> (u64, u64, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
    (field("VmRSS:"), field("Threads:"), fds)
}

/// The child processes of `pid`: (running, zombies).
fn children(pid: u32) -> (usize, usize) {
    let (mut live, mut zombies) = (0, 0);
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid: the command name may hold spaces.
        let rest: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(vec![], |(_, r)| r.split_whitespace().collect());
        if rest.get(1) == Some(&pid.to_string().as_str()) {
            if rest[0] == "Z" {
                zombies += 1;
            } else {
                live += 1;
            }
        }
    }
    (live, zombies)
}

/// Waits until `pid` has at most `want` running children and no zombie.
fn children_down_to(pid: u32, want: usize) -> (usize, usize) {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let (live, zombies) = children(pid);
        if (live <= want && zombies == 0) || Instant::now() > until {
            return (live, zombies);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends `data` on a fresh connection, closes the sending side, and returns the status of
/// the answer (0: the connection closed without one).
fn raw(addr: &str, data: &[u8]) -> u16 {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    // The server may answer and close before it has read everything (413, 431).
    let _ = s.write_all(data);
    let _ = s.shutdown(Shutdown::Write);
    let mut line = String::new();
    let _ = BufReader::new(s).read_line(&mut line);
    line.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Milliseconds `/` takes to answer 200 (a panic if it does not).
fn page_ms(addr: &str) -> u128 {
    let t = Instant::now();
    let (status, _) = request(addr, "GET", "/", &[], b"");
    assert_eq!(status, 200);
    t.elapsed().as_millis()
}

fn malformed_kinds(addr: &str) -> Vec<(&'static str, Vec<u8>, &'static [u16])> {
    let host = format!("Host: {addr}\r\nConnection: close\r\n");
    let post = |extra: &str, body: &[u8]| {
        let mut v = format!(
            "POST /api/new HTTP/1.1\r\n{host}Content-Type: application/json\r\n{extra}\r\n"
        )
        .into_bytes();
        v.extend_from_slice(body);
        v
    };
    let get = |line: &str, extra: &str| format!("{line}\r\n{host}{extra}\r\n").into_bytes();
    let big = vec![b'x'; 8 << 20];
    let mut chunked = format!("{:x}\r\n", big.len()).into_bytes();
    chunked.extend_from_slice(&big);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    vec![
        (
            "garbage",
            b"\x00\xff\xfe garbage\r\n\r\n".to_vec(),
            &[400, 0],
        ),
        ("no path", b"GET\r\n\r\n".to_vec(), &[400, 0]),
        ("HTTP/9.9", get("GET / HTTP/9.9", ""), &[400, 505, 0]),
        ("bad header", get("GET / HTTP/1.1", "no colon\r\n"), &[400]),
        (
            "long URL",
            get(&format!("GET /{} HTTP/1.1", "a".repeat(100_000)), ""),
            &[414],
        ),
        (
            "huge header",
            get(
                "GET / HTTP/1.1",
                &format!("X-Big: {}\r\n", "y".repeat(1 << 20)),
            ),
            &[431],
        ),
        (
            "200 headers",
            get("GET / HTTP/1.1", &"X-A: b\r\n".repeat(200)),
            &[431],
        ),
        (
            "bad JSON",
            post("Content-Length: 9\r\n", b"{not json"),
            &[400],
        ),
        (
            "deep JSON",
            post("Content-Length: 60000\r\n", &[b'['; 60_000]),
            &[400],
        ),
        (
            "Content-Length abc",
            post("Content-Length: abc\r\n", b"{}"),
            &[400],
        ),
        (
            "Content-Length 10^12",
            post("Content-Length: 999999999999\r\n", b"{}"),
            &[413],
        ),
        (
            "Content-Length 100, 2 sent",
            post("Content-Length: 100\r\n", b"{}"),
            &[400, 0],
        ),
        (
            "8 MiB body",
            post(&format!("Content-Length: {}\r\n", big.len()), &big),
            &[413, 0],
        ),
        (
            "8 MiB chunked",
            post("Transfer-Encoding: chunked\r\n", &chunked),
            &[413, 0],
        ),
        (
            "bad chunk",
            post("Transfer-Encoding: chunked\r\n", b"zz\r\n{}\r\n0\r\n\r\n"),
            &[400],
        ),
        (
            "wrong Host",
            b"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_vec(),
            &[403],
        ),
        ("DELETE", get("DELETE /api/new HTTP/1.1", ""), &[405]),
    ]
}

#[test]
fn the_server_under_abuse() {
    let s = Server::start(&["--max-games", "4"]);
    let pid = s.pid();
    let addr = s.addr.clone();
    assert_eq!(s.get("/api/config").0, 200);
    let (_, threads0, fds0) = figures(pid);

    // 500 connections at once, held while `/` is asked for; half then send a request.
    let mut held: Vec<TcpStream> = (0..500)
        .map(|_| TcpStream::connect(&addr).expect("connect"))
        .collect();
    let ms = page_ms(&addr);
    assert!(ms < 2000, "/ took {ms} ms with 500 connections held");
    let line = format!("GET /api/config HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    for c in held.iter_mut().step_by(2) {
        c.write_all(line.as_bytes()).expect("send");
    }
    for c in held.iter_mut().step_by(2) {
        c.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut head = [0u8; 12];
        c.read_exact(&mut head).expect("an answer");
        assert_eq!(&head, b"HTTP/1.1 200");
    }
    drop(held);

    // Every malformed kind once.
    for (what, data, allowed) in malformed_kinds(&addr) {
        let status = raw(&addr, &data);
        assert!(allowed.contains(&status), "{what}: status {status}");
    }
    page_ms(&addr);

    // Moves for another game, for a closed game and for none.
    let new = |body: Value| -> String {
        let st = s.ok("/api/new", &body);
        st["id"].as_str().expect("an id").to_string()
    };
    let othello = new(json!({"game": "othello", "human": "both"}));
    let connect4 = new(json!({"game": "connect4", "human": "both"}));
    for (id, mv, status) in [
        (&othello, "e2e4", 400),
        (&othello, "d", 400),
        (&connect4, "f5", 400),
        (&connect4, "c3c4", 400),
        (&"0123456789abcdef".to_string(), "d", 404),
    ] {
        let (got, v) = s.post("/api/move", &json!({"id": id, "move": mv}));
        assert_eq!(got, status, "{mv} in {id}: {v}");
    }
    s.ok("/api/close", &json!({"id": othello}));
    let (got, _) = s.post("/api/move", &json!({"id": othello, "move": "d3"}));
    assert_eq!(got, 404, "a move in a closed game");
    s.ok("/api/close", &json!({"id": connect4}));

    // Matches through the API: each session's engine is a child process, ended when its
    // game closes (one closed in the middle of its match).
    for round in 0..2 {
        let ids: Vec<String> = ["domineering", "connect4", "othello", "chess"]
            .iter()
            .map(|g| {
                new(
                    json!({"game": g, "rows": 4, "cols": 5, "match": 1, "engine1": 0,
                           "engine2": 0, "movetime": 10, "level": 0}),
                )
            })
            .collect();
        let (got, _) = s.post("/api/new", &json!({"game": "connect4"}));
        assert_eq!(got, 503, "a fifth game with --max-games 4");
        s.wait_for(&ids[0], 60, |st| st["match"]["finished"] == true);
        s.wait_for(&ids[3], 60, |st| {
            st["engine"]["thinking"] == true || st["match"]["finished"] == true
        });
        assert!(children(pid).0 >= 1, "round {round}: no engine running");
        for id in &ids {
            s.ok("/api/close", &json!({"id": id}));
        }
        assert_eq!(
            children_down_to(pid, 0),
            (0, 0),
            "round {round}: engines left after every game closed"
        );
    }

    // The blocking pool's threads end after their idle time (2 s), and connections held
    // idle are closed after the head's time (10 s).
    let until = Instant::now() + Duration::from_secs(20);
    let (_, threads, fds) = loop {
        let f = figures(pid);
        if (f.1 <= threads0 + 2 && f.2 <= fds0 + 2) || Instant::now() > until {
            break f;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        threads <= threads0 + 2,
        "{threads} threads, {threads0} at the start"
    );
    assert!(fds <= fds0 + 2, "{fds} descriptors, {fds0} at the start");
    page_ms(&addr);
}

/// Out of file descriptors (a hard limit of 128 the server cannot raise), connections past it
/// wait or are refused, and once they close the server accepts again: the accept thread used
/// to end at the first EMFILE, closing the listening socket for good.
#[test]
fn out_of_descriptors_the_server_recovers() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tabula"));
    cmd.args(["serve", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: only setrlimit, which is async-signal-safe, runs between fork and exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 128,
                rlim_max: 128,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let mut child = cmd.spawn().expect("spawn tabula serve");
    let mut line = String::new();
    let out = child.stdout.take().expect("stdout");
    BufReader::new(out).read_line(&mut line).expect("address");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .expect("an address")
        .to_string();
    let held: Vec<TcpStream> = (0..200)
        .filter_map(|_| TcpStream::connect(&addr).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    drop(held);
    std::thread::sleep(Duration::from_millis(500));
    let ms = page_ms(&addr);
    let _ = child.kill();
    let _ = child.wait();
    assert!(ms < 5000, "{ms} ms");
}
