//! The browser board in a real browser: headless Chromium driven through chromedriver's
//! WebDriver HTTP interface, clicking the page as a person would. A Connect Four game the
//! engine wins, an Othello game with passes to its end, chess castling and promotion (with
//! the piece chooser), a Domineering game to its end, and take-backs. Screenshots of each game
//! go to `$TABULA_SCREENSHOTS` (the README's come from `TABULA_SCREENSHOTS=docs`), else to
//! Cargo's temporary directory. Skipped, with a message, when chromium or chromedriver is
//! missing (`apt-get install chromium chromium-driver`), except under CI, which installs them:
//! there a missing browser fails the test.

mod common;
#[path = "common/http.rs"]
mod http;

use http::{Server, request};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The key of an element reference in WebDriver answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in names {
        for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: TempDir,
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Browser {
    /// Chromium under chromedriver, or None (with the reason printed) if either is missing.
    fn start() -> Option<Browser> {
        let Some(chromium) = find_program(&["chromium", "chromium-browser"]) else {
            common::client_missing("chromium not found (apt-get install chromium chromium-driver)");
            return None;
        };
        let Some(chromedriver) = find_program(&["chromedriver"]) else {
            common::client_missing("chromedriver not found (apt-get install chromium-driver)");
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr = format!("127.0.0.1:{port}");
        let until = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < until, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile =
            std::env::temp_dir().join(format!("tabula-chromium-{}-{port}", std::process::id()));
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--window-size=1100,880",
            &format!("--user-data-dir={}", profile.display()),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium.to_string_lossy(), "args": args},
        }}});
        let mut b = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: TempDir(profile),
        };
        let v = b
            .call("POST", "/session", &caps)
            .expect("a browser session");
        b.session = v["sessionId"].as_str().expect("a session id").to_string();
        Some(b)
    }

    /// One WebDriver command: its `value`, or the error it reports.
    fn call(&self, method: &str, path: &str, body: &Value) -> Result<Value, String> {
        let text = body.to_string();
        let (status, answer) = request(
            &self.addr,
            method,
            path,
            &[("Content-Type", "application/json")],
            text.as_bytes(),
        );
        let v: Value = serde_json::from_str(&answer).map_err(|e| format!("{e}: {answer}"))?;
        if status == 200 {
            Ok(v["value"].clone())
        } else {
            Err(format!("{method} {path}: {status} {}", v["value"]))
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Result<Value, String> {
        self.call(method, &format!("/session/{}{path}", self.session), &body)
    }

    fn open(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }))
            .expect("open the page");
    }

    fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": args}),
        )
        .unwrap_or_else(|e| panic!("script '{script}': {e}"))
    }

    fn state(&self) -> Value {
        self.js("return window.tabula.state;", json!([]))
    }

    /// The page's state once `done` holds for it.
    fn wait(&self, what: &str, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let st = self.state();
            if !st.is_null() && done(&st) {
                return st;
            }
            assert!(
                Instant::now() < until,
                "waited {secs} s for {what}; the page has {st}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn element(&self, css: &str) -> Result<String, String> {
        let v = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        )?;
        v[ELEMENT]
            .as_str()
            .map(String::from)
            .ok_or_else(|| format!("no element {css}"))
    }

    /// Clicks the element as a person would (the board is redrawn when the state changes, so
    /// a reference that went stale is looked up again).
    fn click(&self, css: &str) {
        let mut last = String::new();
        for _ in 0..30 {
            match self
                .element(css)
                .and_then(|e| self.cmd("POST", &format!("/element/{e}/click"), json!({})))
            {
                Ok(_) => return,
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("cannot click {css}: {last}");
    }

    fn text(&self, css: &str) -> String {
        let e = self.element(css).unwrap_or_else(|e| panic!("{e}"));
        self.cmd("GET", &format!("/element/{e}/text"), json!({}))
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }

    fn screenshot(&self, name: &str) {
        let dir = std::env::var_os("TABULA_SCREENSHOTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
        std::fs::create_dir_all(&dir).expect("the screenshot folder");
        let v = self
            .cmd("GET", "/screenshot", json!({}))
            .expect("a screenshot");
        let png = base64(v.as_str().expect("base64 text"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(dir.join(name), png).expect("write the screenshot");
    }

    /// Sets up a game with the page's own controls, then presses `New game` (or `Set
    /// position` with a FEN); returns the new game's state.
    fn new_game(
        &self,
        game: &str,
        human: &str,
        fields: &[(&str, &str)],
        fen: Option<&str>,
    ) -> Value {
        let old = self.state()["id"].clone();
        let mut set = vec![("game", game), ("human", human), ("movetime", "100")];
        set.extend_from_slice(fields);
        for (id, value) in set {
            self.js(
                "const e = document.getElementById(arguments[0]); e.value = arguments[1]; \
                 if (e.onchange && arguments[0] === 'game') e.onchange();",
                json!([id, value]),
            );
        }
        match fen {
            Some(f) => {
                self.js(
                    "document.getElementById('fen').value = arguments[0];",
                    json!([f]),
                );
                self.click("#setfen");
            }
            None => self.click("#new"),
        }
        self.wait("the new game", 30, |st| {
            st["id"] != old && st["game"] == game
        })
    }

    /// Plays the person's moves with `choose` (a move of the state; clicked on the board)
    /// until the game ends; returns the final state.
    fn play_out(&self, secs: u64, mut choose: impl FnMut(&Value) -> Value) -> Value {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let st = self.wait("a move for the person, or the end", 60, |st| {
                !st["result"].is_null() || mine(st)
            });
            if !st["result"].is_null() {
                return st;
            }
            assert!(Instant::now() < until, "the game did not end in {secs} s");
            let plies = st["history"].as_array().map_or(0, Vec::len);
            let mv = choose(&st);
            if mv["pass"] == true {
                self.click("#pass");
            } else {
                let cell = &mv["cells"][0];
                self.click(&format!("#cell-{}-{}", cell[0], cell[1]));
            }
            self.wait("the move to be made", 30, |s| {
                s["history"].as_array().map_or(0, Vec::len) > plies
            });
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), &json!({}));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Whether a person is to move in the state.
fn mine(st: &Value) -> bool {
    let to_move = st["to_move"].as_u64().unwrap_or(0) as usize;
    st["result"].is_null() && st["settings"]["human"][to_move] == true
}

fn history(st: &Value) -> Vec<String> {
    st["history"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|m| m.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn first_move(st: &Value) -> Value {
    st["moves"][0].clone()
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn connect_four_won_by_the_engine(b: &Browser) {
    b.new_game("connect4", "p2", &[("width", "7"), ("height", "6")], None);
    let st = b.play_out(120, |st| {
        // The person drops every stone in the leftmost open column.
        if history(st).len() == 3 {
            // Before the second stone, with the solver's column values on the board.
            b.wait("the column values", 30, |s| s["exact"]["state"] == "done");
            b.screenshot("connect4.png");
        }
        first_move(st)
    });
    assert_eq!(
        st["result"]["winner"], 0,
        "Red, the engine, wins: {}",
        st["result"]
    );
    assert_eq!(st["result"]["reason"], "four in a row");
    assert!(
        b.text("#result").contains("Red wins"),
        "{}",
        b.text("#result")
    );
}

fn othello_with_a_pass(b: &Browser) {
    // Black (the person) has no move and must pass; a few moves later the game ends.
    let fen = "4x2x/x1x1xxxx/xxxxxxxx/xxxxxxxx/xxooxxxx/ooooooxx/oooxooox/oooooooo x";
    let st = b.new_game("othello", "p1", &[], Some(fen));
    assert_eq!(st["fen"], fen);
    b.wait("the pass button", 10, |st| st["moves"][0]["pass"] == true);
    assert!(b.text("#turn").contains("must pass"), "{}", b.text("#turn"));
    let mut shot = false;
    let st = b.play_out(120, |st| {
        let moves = st["moves"].as_array().cloned().unwrap_or_default();
        if !shot && moves.len() > 1 {
            b.wait("the exact disc margins", 30, |s| {
                s["exact"]["state"] == "done"
            });
            b.screenshot("othello.png");
            shot = true;
        }
        first_move(st)
    });
    let h = history(&st);
    assert_eq!(h[0], "pass", "{h:?}");
    assert!(
        st["result"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("neither side can move"))
    );
    assert!(
        b.text("#counts").starts_with("Black "),
        "{}",
        b.text("#counts")
    );
}

fn chess_castling_promotion_and_take_back(b: &Browser) {
    let st = b.new_game("chess", "p1", &[], Some("4k3/1P6/8/8/8/8/8/4K2R w K - 0 1"));
    assert_eq!(st["to_move"], 0);
    // Castling: the king from e1, then g1 (the target is marked once the king is picked).
    b.click("#cell-7-4");
    let marked = b.js(
        "return document.getElementById('cell-7-6').classList.contains('target');",
        json!([]),
    );
    assert_eq!(marked, true, "g1 is a target of the king");
    b.click("#cell-7-6");
    let st = b.wait("Black's answer", 30, |st| history(st).len() == 2);
    assert_eq!(history(&st)[0], "O-O");
    assert_eq!(st["cells"][7][5], "R", "the rook on f1");
    assert_eq!(st["cells"][7][6], "K", "the king on g1");
    // Promotion: b7 to b8 opens the piece chooser; the knight is picked.
    b.click("#cell-1-1");
    b.click("#cell-0-1");
    let shown = b.js(
        "return !document.getElementById('promo').hidden;",
        json!([]),
    );
    assert_eq!(shown, true, "the promotion chooser is shown");
    b.click("#promo-n");
    let st = b.wait("Black's second answer", 30, |st| history(st).len() == 4);
    assert!(history(&st)[2].starts_with("b8=N"), "{:?}", history(&st));
    assert_eq!(st["cells"][0][1], "N");
    b.wait("the engine's report", 10, |st| {
        st["engine"]["info"]["depth"].is_u64()
    });
    b.screenshot("chess.png");
    // Take back: Black's answer and the promotion go, the pawn is back on b7.
    b.click("#undo");
    let st = b.wait("the take-back", 10, |st| history(st).len() == 2);
    assert_eq!(st["cells"][1][1], "P");
    assert_eq!(st["cells"][0][1], "");
    assert!(mine(&st), "White, the person, is to move again");
}

fn domineering_to_the_end_and_take_back(b: &Browser) {
    b.new_game(
        "domineering",
        "p1",
        &[("rows", "6"), ("cols", "6"), ("first", "h")],
        None,
    );
    let st = b.play_out(180, first_move);
    // The last to move wins.
    let winner = st["result"]["winner"].as_u64().expect("a winner");
    assert_eq!(
        st["to_move"].as_u64(),
        Some(1 - winner),
        "the side without a move lost"
    );
    let dominoes = b.js(
        "return document.querySelectorAll('.dom').length;",
        json!([]),
    );
    let plies = history(&st).len() as u64;
    assert_eq!(
        dominoes.as_u64(),
        Some(2 * plies),
        "two halves per domino drawn"
    );
    b.screenshot("domineering.png");
    // Take back to the person's last turn: the result goes, the board has fewer dominoes.
    b.click("#undo");
    let back = b.wait("the take-back", 10, |st| st["result"].is_null());
    assert!(mine(&back));
    let left = history(&back).len() as u64;
    assert!(left < plies && left + 2 >= plies, "{left} of {plies}");
    let dominoes = b.js(
        "return document.querySelectorAll('.dom').length;",
        json!([]),
    );
    assert_eq!(dominoes.as_u64(), Some(2 * left));
}

/// The second view: a match between two engines, watched to its end with the score kept.
fn a_match_watched(b: &Browser) {
    b.click("#view-match");
    for (id, value) in [
        ("game", "connect4"),
        ("engine-a", "0"),
        ("engine-b", "1"),
        ("games", "2"),
        ("movetime", "100"),
        ("level", "12"),
    ] {
        b.js(
            "const e = document.getElementById(arguments[0]); e.value = arguments[1]; \
             if (e.onchange) e.onchange();",
            json!([id, value]),
        );
    }
    let old = b.state()["id"].clone();
    b.click("#start-match");
    let st = b.wait("the match", 30, |st| {
        st["id"] != old && !st["match"].is_null()
    });
    assert_eq!(st["settings"]["level"], 12);
    assert_eq!(st["players"], json!(["tabula", "other"]));
    let st = b.wait("the second game", 120, |st| st["match"]["game"] == 2);
    assert_eq!(st["players"], json!(["other", "tabula"]), "colours changed");
    assert!(
        b.text("#match-games").contains("tabula"),
        "the first game is listed"
    );
    let st = b.wait("the end of the match", 120, |st| {
        st["match"]["finished"] == true
    });
    let score = b.text("#match-score");
    assert!(
        score.starts_with("tabula ") && score.contains(" other"),
        "{score}"
    );
    assert_eq!(st["match"]["results"].as_array().map(Vec::len), Some(2));
    // The plot `tabula match --report` draws, from the same course of the Elo.
    let plot = b.js(
        "return document.querySelectorAll('#match-plot svg#match-elo-svg').length;",
        json!([]),
    );
    assert_eq!(plot.as_u64(), Some(1), "the match's Elo plot");
    assert_eq!(
        st["match"]["course"]["points"].as_array().map(Vec::len),
        Some(2)
    );
    b.screenshot("match.png");
    b.click("#view-play");
}

#[test]
fn the_browser_board_plays_every_game() {
    let Some(b) = Browser::start() else { return };
    let other = format!(
        "name=other cmd={} args='--game connect4'",
        env!("CARGO_BIN_EXE_tabula")
    );
    let server = Server::start(&["--engine", &other]);
    b.open(&server.url());
    b.wait("the first game", 30, |st| st["game"] == "chess");
    connect_four_won_by_the_engine(&b);
    othello_with_a_pass(&b);
    chess_castling_promotion_and_take_back(&b);
    domineering_to_the_end_and_take_back(&b);
    a_match_watched(&b);
    // A second tab: its own game, while the first keeps its own.
    let first = b.state()["id"].clone();
    let (status, _) = request(&server.addr, "GET", "/", &[], b"");
    assert_eq!(status, 200);
    b.cmd("POST", "/window/new", json!({"type": "tab"}))
        .and_then(|v| {
            b.cmd(
                "POST",
                "/window",
                json!({"handle": v["handle"].as_str().unwrap_or("")}),
            )
        })
        .expect("a second tab");
    b.open(&server.url());
    let second = b.wait("the second tab's game", 30, |st| !st["id"].is_null());
    assert_ne!(second["id"], first, "each tab has a game of its own");
    assert_eq!(
        server
            .get(&format!("/api/state?id={}", first.as_str().unwrap_or("")))
            .0,
        200
    );
}
