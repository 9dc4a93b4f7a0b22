//! `tabula serve`: the browser board. A small HTTP server (tiny_http) on 127.0.0.1 by default
//! serves one page (HTML and script embedded in the binary, no build step, nothing fetched)
//! and a JSON API over the games it holds, each a `session::GameSession` with its own engine:
//!
//! | request | what it does |
//! |---|---|
//! | `GET /` , `GET /board.js` | the page and its script |
//! | `POST /api/new?game=G[&size=N][&width=W&height=H][&rows=R&cols=C][&first=h\|v][&fen=F]` | a new game: `{"id":N}` |
//! | `GET /api/state?id=N` | the position, legal moves with their cells, last move, result, thinking, solver values |
//! | `POST /api/move?id=N&move=M` | a move in the game's protocol notation |
//! | `POST /api/go?id=N&ms=T` | the engine thinks T ms and plays |
//! | `POST /api/stop?id=N`, `/api/undo?id=N`, `/api/fen?id=N&fen=F`, `/api/close?id=N` | |
//!
//! Errors are `{"error": "..."}` with status 400 (bad request) or 404; no request can stop the
//! server or touch another game. At most `MAX_SESSIONS` games are held (the oldest goes).

mod json;
pub mod session;

use json::{Obj, str_lit};
use session::{GameSession, Session};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tabula::arena::child::{EngineSpec, Proto};
use tabula::bits::U256;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;
use tiny_http::{Header, Method, Request, Response, Server};

const PAGE: &str = include_str!("board.html");
const SCRIPT: &str = include_str!("board.js");
const MAX_SESSIONS: usize = 64;
/// Requests handled at once.
const WORKERS: usize = 4;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on (127.0.0.1: this machine only; 0.0.0.0 to serve others).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Another engine to play against, as `tabula match` takes it: `cmd=PATH [args="..."]
    /// [proto=uci|ugi] [option.Name=value]` (default: tabula itself).
    #[arg(long)]
    pub engine: Option<String>,
}

struct App {
    sessions: Mutex<BTreeMap<u64, Arc<dyn Session>>>,
    next: Mutex<u64>,
    engine: Option<EngineSpec>,
}

type Params = BTreeMap<String, String>;

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(v) => {
                        out.push(v);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn params(query: &str) -> Params {
    query
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(kv), String::new()),
        })
        .collect()
}

fn number(p: &Params, k: &str, default: u32) -> Result<u32, String> {
    match p.get(k) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| {
            format!(
                "'{k}' must be a number, not '{}'",
                v.chars().take(20).collect::<String>()
            )
        }),
    }
}

fn error(status: u16, msg: &str) -> (u16, String, &'static str) {
    let mut o = Obj::new();
    o.str("error", msg);
    (status, o.done(), "application/json")
}

impl App {
    fn session(&self, p: &Params) -> Result<Arc<dyn Session>, (u16, String, &'static str)> {
        let id: u64 = p
            .get("id")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| error(400, "a game id is needed (id=N)"))?;
        let sessions = self
            .sessions
            .lock()
            .map_err(|_| error(500, "server state unusable"))?;
        sessions
            .get(&id)
            .cloned()
            .ok_or_else(|| error(404, &format!("no game {id} (it may have been closed)")))
    }

    /// The engine for a game: the one given on the command line, or tabula itself.
    fn spec(&self, game: &str, args: Vec<String>) -> Result<(EngineSpec, Proto), String> {
        let default_proto = if game == "chess" {
            Proto::Uci
        } else {
            Proto::Ugi
        };
        if let Some(spec) = &self.engine {
            return Ok((spec.clone(), spec.proto.unwrap_or(default_proto)));
        }
        let exe = std::env::current_exe().map_err(|e| format!("cannot find tabula itself: {e}"))?;
        let mut all = vec!["--game".to_string(), game.to_string()];
        all.extend(args);
        Ok((
            EngineSpec {
                name: "tabula".into(),
                cmd: exe.to_string_lossy().into_owned(),
                args: all,
                options: Vec::new(),
                proto: Some(default_proto),
                limit: None,
            },
            default_proto,
        ))
    }

    fn create(&self, p: &Params) -> Result<Arc<dyn Session>, String> {
        let game = p.get("game").map(String::as_str).unwrap_or("chess");
        let s: Arc<dyn Session> = match game {
            "chess" => {
                let (spec, proto) = self.spec(game, Vec::new())?;
                Arc::new(GameSession::new(Chess::default(), spec, proto))
            }
            "connect4" => {
                let (w, h) = (number(p, "width", 7)?, number(p, "height", 6)?);
                let start = Connect4::new(w, h)?;
                let (spec, proto) = self.spec(
                    game,
                    vec![
                        "--width".into(),
                        w.to_string(),
                        "--height".into(),
                        h.to_string(),
                    ],
                )?;
                Arc::new(GameSession::new(start, spec, proto))
            }
            "othello" => {
                let n = number(p, "size", 8)?;
                let (spec, proto) = self.spec(game, vec!["--size".into(), n.to_string()])?;
                match n * n {
                    ..=64 => Arc::new(GameSession::new(Othello::<u64>::new(n)?, spec, proto)),
                    65..=128 => Arc::new(GameSession::new(Othello::<u128>::new(n)?, spec, proto)),
                    _ => Arc::new(GameSession::new(Othello::<U256>::new(n)?, spec, proto)),
                }
            }
            "domineering" => {
                let (r, c) = (number(p, "rows", 8)?, number(p, "cols", 8)?);
                let first = match p.get("first").map(String::as_str) {
                    None | Some("h") => Side::Horizontal,
                    Some("v") => Side::Vertical,
                    Some(o) => return Err(format!("first must be h or v, not '{o}'")),
                };
                let args = vec![
                    "--rows".into(),
                    r.to_string(),
                    "--cols".into(),
                    c.to_string(),
                ];
                let (spec, proto) = self.spec(game, args)?;
                match r.saturating_mul(c) {
                    ..=64 => Arc::new(GameSession::new(
                        Domineering::<u64>::new(r, c, first)?,
                        spec,
                        proto,
                    )),
                    65..=128 => Arc::new(GameSession::new(
                        Domineering::<u128>::new(r, c, first)?,
                        spec,
                        proto,
                    )),
                    _ => Arc::new(GameSession::new(
                        Domineering::<U256>::new(r, c, first)?,
                        spec,
                        proto,
                    )),
                }
            }
            other => {
                return Err(format!(
                    "unknown game '{}' (chess, othello, connect4, domineering)",
                    other.chars().take(20).collect::<String>()
                ));
            }
        };
        if let Some(fen) = p.get("fen").filter(|f| !f.trim().is_empty()) {
            s.set_fen(fen)?;
        }
        Ok(s)
    }

    fn handle(&self, method: &Method, path: &str, p: &Params) -> (u16, String, &'static str) {
        let post = *method == Method::Post;
        let ok = || (200, "{\"ok\":true}".to_string(), "application/json");
        let bad = |e: String| error(400, &e);
        match (path, post) {
            ("/", false) | ("/index.html", false) => {
                (200, PAGE.to_string(), "text/html; charset=utf-8")
            }
            ("/board.js", false) => (
                200,
                SCRIPT.to_string(),
                "application/javascript; charset=utf-8",
            ),
            ("/api/new", true) => match self.create(p) {
                Ok(s) => {
                    let Ok(mut next) = self.next.lock() else {
                        return error(500, "server state unusable");
                    };
                    *next += 1;
                    let id = *next;
                    let Ok(mut sessions) = self.sessions.lock() else {
                        return error(500, "server state unusable");
                    };
                    while sessions.len() >= MAX_SESSIONS {
                        sessions.pop_first();
                    }
                    sessions.insert(id, s);
                    (200, format!("{{\"id\":{id}}}"), "application/json")
                }
                Err(e) => bad(e),
            },
            ("/api/state", false) => match self.session(p) {
                Ok(s) => (200, s.state(), "application/json"),
                Err(e) => e,
            },
            (
                "/api/move" | "/api/go" | "/api/stop" | "/api/undo" | "/api/fen" | "/api/close",
                true,
            ) => {
                let s = match self.session(p) {
                    Ok(s) => s,
                    Err(e) => return e,
                };
                let done = match path {
                    "/api/move" => s.play(p.get("move").map(String::as_str).unwrap_or("")),
                    "/api/go" => {
                        number(p, "ms", 1000).and_then(|ms| s.go(ms.clamp(10, 600_000) as u64))
                    }
                    "/api/stop" => {
                        s.stop();
                        Ok(())
                    }
                    "/api/undo" => s.undo(),
                    "/api/fen" => s.set_fen(p.get("fen").map(String::as_str).unwrap_or("")),
                    _ => {
                        s.stop();
                        let id = p.get("id").and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
                        if let Ok(mut sessions) = self.sessions.lock() {
                            sessions.remove(&id);
                        }
                        Ok(())
                    }
                };
                match done {
                    Ok(()) => ok(),
                    Err(e) => bad(e),
                }
            }
            (p, _) if p.starts_with("/api/") => {
                error(400, &format!("no such request: {} {}", method, str_lit(p)))
            }
            _ => error(404, "not found"),
        }
    }
}

fn respond(req: Request, app: &App) {
    let url = req.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
    let p = params(query);
    let (status, body, kind) = app.handle(req.method(), path, &p);
    if status >= 400 {
        log::warn!("serve: {} {path}: {status} {body}", req.method());
    }
    let mut resp = Response::from_string(body).with_status_code(status);
    for (k, v) in [("Content-Type", kind), ("Cache-Control", "no-store")] {
        if let Ok(h) = Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            resp.add_header(h);
        }
    }
    let _ = req.respond(resp);
}

pub fn run(a: &ServeArgs) -> Result<(), String> {
    let engine = match &a.engine {
        Some(text) => {
            let mut spec = EngineSpec::parse(text)?;
            if spec.cmd.is_empty() {
                return Err("--engine needs cmd=PATH".into());
            }
            if spec.name.is_empty() {
                spec.name = spec.cmd.clone();
            }
            Some(spec)
        }
        None => None,
    };
    let addr = format!("{}:{}", a.host, a.port);
    let server = Server::http(&addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let shown = match server.server_addr().to_ip() {
        Some(ip) => format!("http://{ip}/"),
        None => format!("http://{addr}/"),
    };
    say!("tabula serve: open {shown} in a browser (Ctrl-C stops the server)");
    let app = Arc::new(App {
        sessions: Mutex::new(BTreeMap::new()),
        next: Mutex::new(0),
        engine,
    });
    let server = Arc::new(server);
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (server, app) = (Arc::clone(&server), Arc::clone(&app));
            std::thread::spawn(move || {
                while let Ok(req) = server.recv() {
                    respond(req, &app);
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        let p = params("game=connect4&fen=7%2F7%2F7%2F7%2F7%2F7+r+1&x&bad=%zz%4");
        assert_eq!(p["game"], "connect4");
        assert_eq!(p["fen"], "7/7/7/7/7/7 r 1");
        assert_eq!(p["x"], "");
        assert_eq!(p["bad"], "%zz%4");
    }
}
