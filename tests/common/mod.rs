//! Test helpers: a tabula child process spoken to line by line, and a tiny deterministic RNG.
#![allow(dead_code)]

pub mod conformance;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// A real client a test needs is not on this machine: the test is skipped with `why`, except
/// under CI (`CI` set, as `.ci/run` runs), which installs every such client: there a missing
/// one means the install step failed, and the test fails rather than pass having run nothing.
pub fn client_missing(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{why}: CI installs this client (.ci/run), so its absence is a failure");
    }
    eprintln!("{why}: test skipped");
}

pub struct EngineProc {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl EngineProc {
    pub fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn tabula");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        EngineProc {
            child,
            stdin,
            lines: rx,
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None after `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one starts with `prefix`; returns it and the lines before it.
    pub fn expect(&mut self, prefix: &str, timeout: Duration) -> (String, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left) {
                Some(l) if l.starts_with(prefix) => return (l, before),
                Some(l) => before.push(l),
                None => {
                    panic!("no line starting with {prefix:?} within {timeout:?}; got {before:?}")
                }
            }
        }
    }

    /// All lines until the process exits (stdin should be closed first).
    pub fn drain(&mut self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => out.push(l),
                Err(RecvTimeoutError::Disconnected) => return out,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("engine still talking after {timeout:?}: {out:?}")
                }
            }
        }
    }

    /// Waits for the process to exit; returns its exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        None
    }
}

impl Drop for EngineProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// xorshift64*: deterministic playouts without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// An in-memory protocol output for driving a `Session` inside a test.
#[derive(Clone, Default)]
pub struct Buf(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("buffer").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buf {
    /// Everything written so far, emptying the buffer.
    pub fn take(&self) -> String {
        let mut v = self.0.lock().expect("buffer");
        let s = String::from_utf8_lossy(&v).into_owned();
        v.clear();
        s
    }
}

/// A protocol session on `start` writing into a fresh `Buf`.
pub fn session<G: tabula::game::Game>(start: G) -> (tabula::protocol::Session<G>, Buf) {
    let buf = Buf::default();
    let s =
        tabula::protocol::Session::new(start, tabula::protocol::Output::new(Box::new(buf.clone())));
    (s, buf)
}
