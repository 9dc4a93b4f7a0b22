//! The browser board's test helpers: headless Chromium under chromedriver, driven through
//! the WebDriver HTTP interface (open, click, run a script, read the page's state, take a
//! screenshot), shared by the tests of the board (`browser.rs`) and of its analysis
//! (`browser_analysis.rs`). `Browser::start` is None, with the reason printed, where chromium
//! or chromedriver is missing (a failure under CI, which installs them).

#![allow(dead_code)]

use crate::common;
use crate::http::{request, try_request};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The key of an element reference in WebDriver answers.
pub const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub fn find_program(names: &[&str]) -> Option<PathBuf> {
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

/// chromedriver on a port that was free a moment ago, once it answers `GET /status` as
/// chromedriver does (ready), or None (the driver killed) if it exits or does not answer in
/// 15 s: between the probe that found the port and chromedriver's bind, another test's
/// server (`serve --port 0`) may take the same port, which a bare connect cannot tell apart.
fn start_driver(chromedriver: &Path) -> Option<(Child, u16)> {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut driver = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let addr = format!("127.0.0.1:{port}");
    let until = Instant::now() + Duration::from_secs(15);
    while Instant::now() < until {
        if !matches!(driver.try_wait(), Ok(None)) {
            break;
        }
        if let Ok((200, body)) = try_request(&addr, "GET", "/status", &[], b"") {
            let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            if v["value"]["ready"] == json!(true) {
                return Some((driver, port));
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = driver.kill();
    let _ = driver.wait();
    None
}

pub struct Browser {
    driver: Child,
    addr: String,
    pub session: String,
    _profile: TempDir,
}

/// A directory removed when dropped.
pub struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Browser {
    /// Chromium under chromedriver, or None (with the reason printed) if either is missing.
    pub fn start() -> Option<Browser> {
        let Some(chromium) = find_program(&["chromium", "chromium-browser"]) else {
            common::client_missing("chromium not found (apt-get install chromium chromium-driver)");
            return None;
        };
        let Some(chromedriver) = find_program(&["chromedriver"]) else {
            common::client_missing("chromedriver not found (apt-get install chromium-driver)");
            return None;
        };
        let (driver, port) = (0..3)
            .find_map(|_| start_driver(&chromedriver))
            .expect("chromedriver did not start on any of three ports");
        let addr = format!("127.0.0.1:{port}");
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
    pub fn call(&self, method: &str, path: &str, body: &Value) -> Result<Value, String> {
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

    pub fn cmd(&self, method: &str, path: &str, body: Value) -> Result<Value, String> {
        self.call(method, &format!("/session/{}{path}", self.session), &body)
    }

    pub fn open(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }))
            .expect("open the page");
    }

    pub fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": args}),
        )
        .unwrap_or_else(|e| panic!("script '{script}': {e}"))
    }

    pub fn state(&self) -> Value {
        self.js("return window.tabula.state;", json!([]))
    }

    /// The page's state once `done` holds for it.
    pub fn wait(&self, what: &str, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
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

    pub fn element(&self, css: &str) -> Result<String, String> {
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
    pub fn click(&self, css: &str) {
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

    pub fn text(&self, css: &str) -> String {
        let e = self.element(css).unwrap_or_else(|e| panic!("{e}"));
        self.cmd("GET", &format!("/element/{e}/text"), json!({}))
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }

    pub fn screenshot(&self, name: &str) {
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
    pub fn new_game(
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
    pub fn play_out(&self, secs: u64, mut choose: impl FnMut(&Value) -> Value) -> Value {
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
pub fn mine(st: &Value) -> bool {
    let to_move = st["to_move"].as_u64().unwrap_or(0) as usize;
    st["result"].is_null() && st["settings"]["human"][to_move] == true
}

pub fn history(st: &Value) -> Vec<String> {
    st["history"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|m| m.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

pub fn first_move(st: &Value) -> Value {
    st["moves"][0].clone()
}

pub fn base64(text: &str) -> Vec<u8> {
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
