//! Test helpers for `tabula serve`: the server as a child process on a free port (killed when
//! dropped), and a plain HTTP/1.1 client (one request per connection) over a TCP stream for
//! its API and for chromedriver.
#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `tabula serve`.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
}

impl Server {
    /// Starts `tabula serve --port 0` with `args`, and reads its address from the first line.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn tabula serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the address line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in '{line}'"))
            .to_string();
        Server { child, addr }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        let (status, body) = request(&self.addr, "GET", path, &[], b"");
        (status, parse(&body))
    }

    /// A POST with a JSON body.
    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let (status, text) = request(
            &self.addr,
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        );
        (status, parse(&text))
    }

    /// A POST that must succeed: its JSON answer, or where that is an action's outcome
    /// (`{id, version}`), the game's state once it has that version.
    pub fn ok(&self, path: &str, body: &Value) -> Value {
        let (status, v) = self.post(path, body);
        assert_eq!(status, 200, "POST {path} {body}: {v}");
        match (v["id"].as_str(), v["version"].as_u64()) {
            (Some(id), Some(version)) => {
                let since = version.saturating_sub(1);
                let (status, st) = self.get(&format!("/api/state?id={id}&since={since}"));
                assert_eq!(status, 200, "state of {id}: {st}");
                st
            }
            _ => v,
        }
    }

    /// The state of session `id` once `done` holds (long-polling), or a panic after `secs`.
    pub fn wait_for(&self, id: &str, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
        let until = std::time::Instant::now() + Duration::from_secs(secs);
        let mut since = 0;
        loop {
            let (status, st) = self.get(&format!("/api/state?id={id}&since={since}"));
            assert_eq!(status, 200, "state: {st}");
            if done(&st) {
                return st;
            }
            assert!(
                std::time::Instant::now() < until,
                "no such state within {secs} s; the last: {st}"
            );
            since = st["version"].as_u64().unwrap_or(0);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::String(body.to_string()))
}

/// One HTTP/1.1 request with `Connection: close`: (status, body). The body is read by its
/// `Content-Length`, or its chunks, or else to the end of the connection. Panics on any I/O
/// error; `try_request` returns it.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    try_request(addr, method, path, headers, body).unwrap_or_else(|e| panic!("{e}"))
}

/// `request`, with a failure to connect, send or read as an error.
pub fn try_request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<(u16, String), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| format!("timeout: {e}"))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes())
        .map_err(|e| format!("send head: {e}"))?;
    s.write_all(body).map_err(|e| format!("send body: {e}"))?;
    let mut r = BufReader::new(s);
    let mut status_line = String::new();
    r.read_line(&mut status_line)
        .map_err(|e| format!("the status line: {e}"))?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in '{status_line}'"))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        let mut line = String::new();
        r.read_line(&mut line)
            .map_err(|e| format!("a header: {e}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').unwrap_or((line, ""));
        match k.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = v.trim().parse::<usize>().ok(),
            "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let mut raw = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size)
                .map_err(|e| format!("a chunk size: {e}"))?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk)
                .map_err(|e| format!("a chunk: {e}"))?;
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        raw.resize(n, 0);
        r.read_exact(&mut raw)
            .map_err(|e| format!("the body: {e}"))?;
    } else {
        r.read_to_end(&mut raw)
            .map_err(|e| format!("the body: {e}"))?;
    }
    Ok((status, String::from_utf8_lossy(&raw).into_owned()))
}

/// One server-sent event: its name, id and data.
#[derive(Debug)]
pub struct Event {
    pub name: String,
    pub id: Option<u64>,
    pub data: Value,
}

/// A game's event stream (`GET /api/events?id=ID`), read as the page's EventSource reads it.
pub struct Events {
    reader: BufReader<TcpStream>,
    /// The answer's status.
    pub status: u16,
}

impl Events {
    /// Opens the stream, with `Last-Event-ID` if given.
    pub fn open(addr: &str, id: &str, last: Option<u64>) -> Events {
        let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
        let mut head = format!(
            "GET /api/events?id={id} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n"
        );
        if let Some(l) = last {
            head.push_str(&format!("Last-Event-ID: {l}\r\n"));
        }
        head.push_str("\r\n");
        s.write_all(head.as_bytes()).expect("send head");
        let mut reader = BufReader::new(s);
        let mut line = String::new();
        reader.read_line(&mut line).expect("the status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim_end().is_empty() {
                break;
            }
        }
        Events { reader, status }
    }

    /// The next event within `secs` (None: none came, or the stream ended). The body is
    /// chunked: chunk sizes are lines of hexadecimal digits, skipped here.
    pub fn next(&mut self, secs: f64) -> Option<Event> {
        self.reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_secs_f64(secs)))
            .expect("timeout");
        let (mut name, mut id, mut data) = (String::from("message"), None, String::new());
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if !data.is_empty() {
                    let data = serde_json::from_str(&data).unwrap_or(Value::String(data));
                    return Some(Event { name, id, data });
                }
                continue;
            }
            if let Some(v) = line.strip_prefix("event:") {
                name = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().parse().ok();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.strip_prefix(' ').unwrap_or(v));
            }
        }
    }
}
