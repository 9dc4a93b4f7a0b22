//! The browser board (`tabula serve`) in a real browser: Debian's Chromium driven through
//! WebDriver (chromedriver), clicking as a person does. A Connect Four game won by the engine
//! with a take-back on the way, an Othello position with a pass, chess castling and a
//! promotion chosen from the page, a Domineering game played to its end by the engine on both
//! sides. Screenshots of each are written to `docs/` (committed, shown in the README).
//!
//! Skipped with a message where `chromium` or `chromedriver` is missing (`.ci/run` installs
//! `chromium chromium-driver`; TABULA_CHROMIUM / TABULA_CHROMEDRIVER override the paths). The
//! server's API without a browser is tested here too: bad requests and two games at once.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

/// A process killed when dropped.
struct Proc(Child);
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One HTTP/1.1 request on a fresh connection; the status and the body.
fn http(host: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mut s = TcpStream::connect(host).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = match text.split_once("\r\n\r\n") {
        Some((head, b))
            if head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked") =>
        {
            dechunk(b)
        }
        Some((_, b)) => b.to_string(),
        None => String::new(),
    };
    (status, body)
}

fn dechunk(mut b: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = b.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        b = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Starts `tabula serve` on a free port; its address.
fn serve() -> (Proc, String) {
    let mut child = Command::new(TABULA)
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tabula serve starts");
    let out = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(out)
        .read_line(&mut line)
        .expect("the address line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (Proc(child), addr)
}

fn api(addr: &str, method: &str, path: &str) -> (u16, Value) {
    let (status, body) = http(addr, method, path, None);
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[test]
fn the_api_refuses_bad_requests_and_keeps_games_apart() {
    let (_server, addr) = serve();
    let (st, a) = api(&addr, "POST", "/api/new?game=connect4");
    assert_eq!(st, 200, "{a}");
    let (_, b) = api(&addr, "POST", "/api/new?game=othello&size=10");
    let (a, b) = (a["id"].as_u64().unwrap(), b["id"].as_u64().unwrap());
    assert_ne!(a, b);
    assert_eq!(
        api(&addr, "POST", &format!("/api/move?id={a}&move=d")).0,
        200
    );
    for (method, path, status) in [
        ("POST", format!("/api/move?id={a}&move=z"), 400),
        ("POST", format!("/api/move?id={a}"), 400),
        ("POST", "/api/move?id=12345&move=d".to_string(), 404),
        ("POST", "/api/new?game=backgammon".to_string(), 400),
        ("POST", "/api/new?game=othello&size=9".to_string(), 400),
        (
            "POST",
            "/api/new?game=connect4&width=%ff%00".to_string(),
            400,
        ),
        ("POST", format!("/api/fen?id={a}&fen=not+a+fen"), 400),
        ("GET", "/api/state".to_string(), 400),
        ("GET", "/api/frobnicate".to_string(), 400),
        ("GET", "/../../etc/passwd".to_string(), 404),
    ] {
        let (got, body) = api(&addr, method, &path);
        assert_eq!(got, status, "{method} {path}: {body}");
        assert!(body["error"].is_string(), "{method} {path}: {body}");
    }
    // A raw line that is not HTTP at all: the server goes on.
    if let Ok(mut s) = TcpStream::connect(&addr) {
        let _ = s.write_all(b"\x00\x01garbage\r\n\r\n");
    }
    let (_, sa) = api(&addr, "GET", &format!("/api/state?id={a}"));
    let (_, sb) = api(&addr, "GET", &format!("/api/state?id={b}"));
    assert_eq!(sa["history"], json!(["d"]), "{sa}");
    assert_eq!(sb["history"], json!([]));
    assert_eq!(
        (sb["rows"].as_u64(), sb["legal"].as_array().map(|l| l.len())),
        (Some(10), Some(4))
    );
    assert_eq!(api(&addr, "GET", "/").0, 200);
}

/// A WebDriver session in headless Chromium.
struct Browser {
    driver: String,
    session: String,
    _proc: Proc,
    _profile: PathBuf,
}

impl Browser {
    fn start() -> Option<Browser> {
        let path = |env: &str, default: &str| {
            std::env::var_os(env)
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(default))
        };
        let chromium = path("TABULA_CHROMIUM", "/usr/bin/chromium");
        let driver = path("TABULA_CHROMEDRIVER", "/usr/bin/chromedriver");
        if !chromium.is_file() || !driver.is_file() {
            eprintln!(
                "chromium or chromedriver not found ({}, {}; apt-get install chromium chromium-driver): browser test skipped",
                chromium.display(),
                driver.display()
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let proc = Proc(
            Command::new(&driver)
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts"),
        );
        let host = format!("127.0.0.1:{port}");
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(&host).is_err() {
            assert!(Instant::now() < until, "chromedriver does not listen");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = std::env::temp_dir().join(format!("tabula-chromium-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium.to_string_lossy(), "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1100,760", format!("--user-data-dir={}", profile.display())]}}}});
        let (status, body) = http(&host, "POST", "/session", Some(&caps));
        let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let session = v["value"]["sessionId"].as_str().map(str::to_string);
        let Some(session) = session else {
            panic!("no WebDriver session ({status}): {body}");
        };
        Some(Browser {
            driver: host,
            session,
            _proc: proc,
            _profile: profile,
        })
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let full = format!("/session/{}{path}", self.session);
        let (status, text) = http(&self.driver, method, &full, body.as_ref());
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert_eq!(status, 200, "{method} {path}: {text}");
        v["value"].clone()
    }

    fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Clicks the first element matching a CSS selector, as a person does.
    fn click(&self, css: &str) {
        let el = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        let id = el
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string();
        self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn exists(&self, css: &str) -> bool {
        self.js(&format!(
            "return document.querySelector({}) !== null",
            json!(css)
        ))
        .as_bool()
        .unwrap_or(false)
    }

    fn text(&self, id: &str) -> String {
        self.js(&format!(
            "return document.getElementById('{id}').textContent"
        ))
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    fn set(&self, id: &str, value: &str) {
        self.js(&format!(
            "const e = document.getElementById('{id}'); e.value = {}; e.dispatchEvent(new Event('change'));",
            json!(value)
        ));
    }

    /// Waits until `check` holds (polling the page).
    fn until(&self, what: &str, secs: u64, check: impl Fn(&Browser) -> bool) {
        let end = Instant::now() + Duration::from_secs(secs);
        while !check(self) {
            assert!(
                Instant::now() < end,
                "{what}: not reached; status: {}",
                self.text("status")
            );
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    fn screenshot(&self, name: &str) {
        let b64 = self.cmd("GET", "/screenshot", None);
        let png = base64(b64.as_str().unwrap_or(""));
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join(name), png).expect("screenshot written");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            &self.driver,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn four_games_played_in_chromium() {
    // Minutes of wall time on two cores: run on request (TABULA_BROWSER=1), not in every run.
    if std::env::var_os("TABULA_BROWSER").is_none() {
        eprintln!("set TABULA_BROWSER=1 to play the four games in Chromium: test skipped");
        return;
    }
    let Some(b) = Browser::start() else {
        return;
    };
    let (_server, addr) = serve();
    b.goto(&format!("http://{addr}/"));
    b.until("the page shows a board", 20, |b| b.exists("#board .cell"));

    // Connect Four against the engine: we play Red and always the leftmost open column.
    b.set("ms", "100");
    b.until("Red to move", 20, |b| {
        b.text("status").starts_with("Red to move")
    });
    b.click("#board .cell.legal");
    b.until("the engine answers", 20, |b| {
        b.text("history").split(' ').count() == 2
    });
    // Take back: our move and the engine's.
    b.click("#undo");
    b.until("the start again", 20, |b| b.text("history").is_empty());
    let mut moves = 0;
    while !b.exists(".result") {
        if b.exists("#board .cell.legal") && b.text("status").starts_with("Red to move") {
            b.click("#board .cell.legal");
            moves += 1;
            let want = 2 * moves;
            b.until("the engine answers", 30, |b| {
                b.exists(".result") || b.text("history").split(' ').count() >= want
            });
        }
        std::thread::sleep(Duration::from_millis(100));
        assert!(moves < 30, "the game did not end");
    }
    assert!(
        b.text("status").starts_with("Yellow wins"),
        "{}",
        b.text("status")
    );
    b.screenshot("board-connect4.png");

    // Othello: a position where White must pass; we play both sides.
    b.set("game", "othello");
    b.until("an Othello board", 20, |b| b.exists("#board.othello .cell"));
    b.set("human", "both");
    b.set(
        "fen",
        "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxo/xxxxxxo1/xxxxxx2 o",
    );
    b.click("#setfen");
    b.until("a pass button", 20, |b| b.exists("#pass"));
    b.click("#pass");
    b.until("Black to move after the pass", 20, |b| {
        b.text("status").starts_with("Black to move")
    });
    for _ in 0..10 {
        if b.exists(".result") {
            break;
        }
        if b.exists("#pass") {
            b.click("#pass");
        } else if b.exists("#board .cell.legal") {
            b.click("#board .cell.legal");
        }
        std::thread::sleep(Duration::from_millis(400));
    }
    b.until("the game over", 20, |b| b.exists(".result"));
    assert!(
        b.text("status").starts_with("Black wins"),
        "{}",
        b.text("status")
    );
    b.screenshot("board-othello.png");

    // Chess: castling by the king's two squares, then a promotion chosen on the page.
    b.set("game", "chess");
    b.until("a chess board", 20, |b| b.exists("#board.chess .cell"));
    b.set("human", "both");
    b.set("fen", "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1");
    b.click("#setfen");
    b.until("the position set", 20, |b| {
        b.text("history").is_empty() && b.exists("[data-cell='60'].legal")
    });
    b.click("[data-cell='60']");
    b.click("[data-cell='62'].legal");
    b.until("castled", 20, |b| b.text("history") == "O-O");
    b.click("[data-cell='4'].legal");
    b.click("[data-cell='3'].legal");
    b.until("Black's king moved", 20, |b| {
        b.text("history").split(' ').count() == 2
    });
    b.click("[data-cell='9'].legal");
    b.click("[data-cell='1'].legal");
    b.until("the promotion choice", 20, |b| b.exists("#promo button"));
    b.click("#promo button[data-move='b7b8q']");
    b.until("promoted", 20, |b| {
        b.text("history").split(' ').count() == 3
    });
    let fen = b.js("return document.getElementById('fen').value");
    assert!(
        fen.as_str()
            .unwrap_or("")
            .starts_with("1Q1k4/8/8/8/8/8/8/R4RK1 b"),
        "{fen}"
    );
    b.screenshot("board-chess.png");

    // Domineering 5x5, the engine on both sides, to the end.
    b.set("game", "domineering");
    b.until("a Domineering board", 20, |b| {
        b.exists("#board.domineering .cell")
    });
    b.js(
        "document.getElementById('d-rows').value = 5; document.getElementById('d-cols').value = 5;",
    );
    b.set("human", "none");
    b.click("#new");
    b.until("the game over", 60, |b| b.exists(".result"));
    assert!(b.text("status").contains("wins"), "{}", b.text("status"));
    b.screenshot("board-domineering.png");
}
