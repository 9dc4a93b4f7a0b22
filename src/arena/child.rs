//! One engine as a child process: its specification (`name=A cmd=PATH args="..."
//! option.Hash=64 proto=uci|ugi|gtp st=0.2`), the process with a reader thread turning its
//! stdout into lines on a channel, the handshake, GTP's command/response exchange, and a kill
//! that always reaps it.
//!
//! Invariant: every wait has a deadline; a child that misses one is killed, never waited on.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child as Proc, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::limit::Limit;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Uci,
    Ugi,
    /// The Go Text Protocol as Othello engines speak it (`play black d3`, `genmove white`).
    Gtp,
}

#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: String,
    pub args: Vec<String>,
    pub options: Vec<(String, String)>,
    pub proto: Option<Proto>,
    /// This engine's own limit (`tc=`, `st=`, `depth=`, `nodes=`), instead of the match's.
    pub limit: Option<Limit>,
}

/// Splits on whitespace, keeping "double" or 'single' quoted runs together.
pub fn split_quoted(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("unbalanced quote in '{s}'"));
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

impl EngineSpec {
    /// Parses `name=A cmd=PATH args="-x 1" option.Hash=64 proto=ugi st=0.5` (`tc=10+0.1`,
    /// `st=SECONDS`, `depth=N`, `nodes=N`: this engine's own limit).
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let mut spec = EngineSpec {
            name: String::new(),
            cmd: String::new(),
            args: Vec::new(),
            options: Vec::new(),
            proto: None,
            limit: None,
        };
        const KEYS: &str = "name=, cmd=, args=, option.X=, proto=, tc=, st=, depth=, nodes=";
        for item in split_quoted(text)? {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("engine setting '{item}' is not key=value ({KEYS})"))?;
            match k {
                "name" => spec.name = v.into(),
                "cmd" => spec.cmd = v.into(),
                "args" | "arg" => spec.args.extend(split_quoted(v)?),
                "proto" => {
                    spec.proto = Some(match v.to_ascii_lowercase().as_str() {
                        "uci" => Proto::Uci,
                        "ugi" => Proto::Ugi,
                        "gtp" => Proto::Gtp,
                        _ => return Err(format!("proto={v}: expected uci, ugi or gtp")),
                    })
                }
                "tc" => spec.limit = Some(Limit::parse_tc(v)?),
                "st" => {
                    let ms = v
                        .parse::<f64>()
                        .ok()
                        .filter(|s| *s > 0.0 && *s <= 1e6)
                        .map(|s| (s * 1000.0).round().max(1.0) as u64)
                        .ok_or_else(|| format!("st={v}: expected seconds a move, e.g. 0.2"))?;
                    spec.limit = Some(Limit::MoveTime(ms));
                }
                "depth" | "nodes" => {
                    let n = v
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| n > 0 && (k == "nodes" || n <= 1000))
                        .ok_or_else(|| format!("{k}={v}: expected a positive whole number"))?;
                    spec.limit = Some(if k == "depth" {
                        Limit::Depth(n as u32)
                    } else {
                        Limit::Nodes(n)
                    });
                }
                _ => match k.strip_prefix("option.") {
                    Some(o) if !o.is_empty() => spec.options.push((o.into(), v.into())),
                    _ => {
                        return Err(format!("unknown engine setting '{k}' ({KEYS})"));
                    }
                },
            }
        }
        if spec.proto == Some(Proto::Gtp) && !spec.options.is_empty() {
            return Err(format!(
                "engine '{text}': GTP has no options; give the engine's own flags in args="
            ));
        }
        if spec.cmd.is_empty() {
            return Err(format!("engine '{text}' has no cmd=PATH"));
        }
        if spec.name.is_empty() {
            spec.name = std::path::Path::new(&spec.cmd)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.cmd.clone());
        }
        Ok(spec)
    }
}

pub enum Got {
    Line(String),
    Timeout,
    Eof,
}

/// A running engine.
pub struct Child {
    pub name: String,
    pub proto: Proto,
    proc: Proc,
    stdin: Option<ChildStdin>,
    rx: Receiver<String>,
    pub dead: bool,
}

impl Child {
    /// Starts the engine and completes the handshake (`uci`/`ugi` .. `uciok`/`ugiok`, options,
    /// `isready` .. `readyok`; GTP: `protocol_version` answered) within `timeout`.
    pub fn start(spec: &EngineSpec, proto: Proto, timeout: Duration) -> Result<Child, String> {
        let mut proc = Command::new(&spec.cmd)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: cannot start '{}': {e}", spec.name, spec.cmd))?;
        let stdin = proc.stdin.take();
        let stdout = proc.stdout.take();
        let (tx, rx) = channel();
        if let Some(out) = stdout {
            std::thread::spawn(move || {
                let mut r = BufReader::new(out);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim().to_string();
                            if tx.send(line).is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
        let mut child = Child {
            name: spec.name.clone(),
            proto,
            proc,
            stdin,
            rx,
            dead: false,
        };
        let deadline = Instant::now() + timeout;
        let (hello, ok) = match proto {
            Proto::Uci => ("uci", "uciok"),
            Proto::Ugi => ("ugi", "ugiok"),
            Proto::Gtp => {
                let _answered = child.gtp("protocol_version", deadline)?;
                return Ok(child);
            }
        };
        child.send(hello)?;
        child.expect(ok, deadline)?;
        for (k, v) in &spec.options {
            child.send(&format!("setoption name {k} value {v}"))?;
        }
        child.sync(deadline)?;
        Ok(child)
    }

    pub fn send(&mut self, line: &str) -> Result<(), String> {
        log::debug!("{} < {line}", self.name);
        let ok = match self.stdin.as_mut() {
            Some(s) => writeln!(s, "{line}").and_then(|_| s.flush()).is_ok(),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            self.dead = true;
            Err(format!(
                "{}: its input is closed (the engine exited)",
                self.name
            ))
        }
    }

    /// The next line, or Timeout at `deadline`, or Eof when the engine has gone.
    pub fn recv(&mut self, deadline: Instant) -> Got {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(wait) {
            Ok(line) => {
                log::debug!("{} > {line}", self.name);
                Got::Line(line)
            }
            Err(RecvTimeoutError::Timeout) => Got::Timeout,
            Err(RecvTimeoutError::Disconnected) => {
                self.dead = true;
                Got::Eof
            }
        }
    }

    /// Waits for a line whose first word is `word`.
    pub fn expect(&mut self, word: &str, deadline: Instant) -> Result<String, String> {
        loop {
            match self.recv(deadline) {
                Got::Line(l) if l.split_whitespace().next() == Some(word) => return Ok(l),
                Got::Line(_) => {}
                Got::Timeout => {
                    return Err(format!("{}: no '{word}' in time", self.name));
                }
                Got::Eof => return Err(format!("{}: exited before '{word}'", self.name)),
            }
        }
    }

    /// One GTP command and its response: Ok(Ok(text after `=`)) on success, Ok(Err(text after
    /// `?`)) when the engine refuses the command, Err when it is gone or misses `deadline`.
    /// A response is its first line starting `=` or `?` (an id may follow) and the lines up to
    /// the empty line that ends it.
    pub fn gtp(&mut self, cmd: &str, deadline: Instant) -> Result<Result<String, String>, String> {
        self.send(cmd)?;
        let word = cmd.split_whitespace().next().unwrap_or(cmd);
        let (ok, mut text) = loop {
            match self.recv(deadline) {
                Got::Line(l) => {
                    let ok = match l.chars().next() {
                        Some('=') => true,
                        Some('?') => false,
                        _ => continue,
                    };
                    let rest = l[1..].trim_start_matches(|c: char| c.is_ascii_digit());
                    break (ok, rest.trim().to_string());
                }
                Got::Timeout => {
                    return Err(format!("{}: no answer to '{word}' in time", self.name));
                }
                Got::Eof => return Err(format!("{}: exited before answering '{word}'", self.name)),
            }
        };
        // The rest of a multi-line response, up to its empty line.
        loop {
            match self.recv(deadline) {
                Got::Line(l) if l.is_empty() => break,
                Got::Line(l) => {
                    text.push('\n');
                    text.push_str(&l);
                }
                Got::Timeout => {
                    return Err(format!("{}: unterminated answer to '{word}'", self.name));
                }
                Got::Eof => break,
            }
        }
        Ok(if ok { Ok(text) } else { Err(text) })
    }

    /// `isready` .. `readyok`.
    pub fn sync(&mut self, deadline: Instant) -> Result<(), String> {
        self.send("isready")?;
        self.expect("readyok", deadline).map(|_| ())
    }

    /// Asks the engine to quit, gives it a moment, then kills it.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.proc.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    pub fn kill(&mut self) {
        self.dead = true;
        let _ = self.proc.kill();
        let _ = self.proc.wait();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Ok(None) = self.proc.try_wait() {
            let _ = self.proc.kill();
        }
        let _ = self.proc.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs() {
        let s = EngineSpec::parse(r#"name=A cmd=/bin/x args="--game othello" option.Hash=64"#)
            .expect("valid");
        assert_eq!(s.name, "A");
        assert_eq!(s.args, ["--game", "othello"]);
        assert_eq!(s.options, [("Hash".to_string(), "64".to_string())]);
        assert_eq!(
            EngineSpec::parse("cmd=/usr/games/stockfish").map(|s| s.name),
            Ok("stockfish".into())
        );
        assert!(EngineSpec::parse("name=A").is_err());
        assert!(EngineSpec::parse("cmd=x bogus=1").is_err());
        assert!(EngineSpec::parse("cmd=x args=\"a").is_err());
        let g = EngineSpec::parse("cmd=/usr/games/gtp-rhino args='-l 4' proto=gtp st=1.5")
            .expect("valid");
        assert_eq!(
            (g.proto, g.limit),
            (Some(Proto::Gtp), Some(Limit::MoveTime(1500)))
        );
        assert_eq!(
            EngineSpec::parse("cmd=x tc=5+0.05").map(|s| s.limit),
            Ok(Some(Limit::Clock {
                moves: None,
                base_ms: 5000,
                inc_ms: 50
            }))
        );
        for bad in [
            "cmd=x st=0",
            "cmd=x st=abc",
            "cmd=x depth=0",
            "cmd=x proto=gtp option.A=1",
        ] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
