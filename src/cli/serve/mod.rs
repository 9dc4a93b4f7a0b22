//! `tabula serve`: a board in the browser for every game. A small HTTP server (`tiny_http`)
//! on the loopback address serves one page (`index.html`, `app.js`, `analysis.js`, and `plot.js`, the plots
//! it shares with `tabula match --report`; all embedded in the binary)
//! and a JSON API; every game in every tab is a session of its own (`session.rs`) with its
//! engine process (`engine.rs`: tabula itself, or any UCI/UGI engine from `--engine`, driven
//! with `tabula match`'s code) and its solver (`exact.rs`). The rules, legal moves and
//! notation all come from tabula's `Game` implementations on the server; the page only
//! draws what it is sent and posts what is clicked.
//!
//! The API (JSON bodies, JSON answers; errors are `{"error": "..."}` with a 4xx status):
//! `GET /api/config`; `POST /api/new` (game, board, fen, human, movetime, engine (both
//! sides) or engine1/engine2, level, exact, match: a number of games for engine1 against
//! engine2, colours changing every game) ->
//! the state with its `id`; `GET /api/state?id=ID&since=VERSION` (waits up to 20 s for a
//! newer version); `POST /api/move {id, move}`, `/api/undo {id}`, `/api/settings {id, ...}`,
//! `/api/stop {id}` (move now), `/api/close {id}`.
//!
//! Analysis: `/api/move` takes `branch` (`variation`, the default, or `replace`) for a move
//! from an earlier position; `/api/goto {id, node}` shows a node of the game's tree (the state's
//! `tree`, `line` and `cursor`), `/api/promote` makes its line the main line, `/api/remove`
//! takes it out; `/api/settings` takes `analyse` (think on the position on show, never play)
//! and `multipv` (1-5); `/api/review {id, on, ms}` has the engine score every position of the
//! line on show; `/api/export {id}` answers `{text, file}` (PGN, GGF, or tabula's records);
//! `/api/new` with `record` loads a game from such a text (checked with tabula's rules).

mod board;
mod engine;
mod exact;
mod games;
mod matchplay;
mod matchscore;
mod movetext;
mod records;
mod session;
mod snapshot;
mod state;
mod thinking;
mod tree;

use engine::EngineChoice;
use serde_json::{Value, json};
use session::Session;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tabula::arena::child::{EngineSpec, split_quoted};
use tiny_http::{Header, Method, Request, Response};

const PAGE: &str = include_str!("index.html");
const SCRIPT: &str = include_str!("app.js");
const ANALYSIS: &str = include_str!("analysis.js");

/// The largest request body read, in bytes.
const MAX_BODY: usize = 64 * 1024;
/// Requests handled at once; more are answered 503.
const MAX_REQUESTS: usize = 128;
/// A session nobody asked about for this long is closed.
const IDLE: Duration = Duration::from_secs(15 * 60);
/// The longest a state request waits for a change.
const LONG_POLL: Duration = Duration::from_secs(20);
/// The longest a request body may take to arrive (a client dripping it holds a thread).
const BODY_TIME: Duration = Duration::from_secs(10);

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on. The default, the loopback address, lets nothing beyond this
    /// machine connect.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0: any free one). The page's address is printed on stdout.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Another engine the page offers: a command line (`/usr/games/stockfish`), or as
    /// `tabula match` takes it, "name=A cmd=PATH args='--x 1' option.Hash=64 proto=uci|ugi".
    #[arg(long = "engine")]
    pub engines: Vec<String>,
    /// Games open at once, over all tabs.
    #[arg(long, default_value_t = 16,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub max_games: usize,
}

struct Entry {
    session: Arc<dyn Session>,
    used: Instant,
}

struct App {
    engines: Arc<Vec<EngineChoice>>,
    sessions: Mutex<HashMap<String, Entry>>,
    max_games: usize,
    default_game: &'static str,
    ids: AtomicU64,
    /// Games being started (counted against `max_games` before they are in `sessions`, so
    /// that requests at once cannot open more).
    opening: AtomicUsize,
    seed: std::collections::hash_map::RandomState,
    /// The Host headers a request may carry (DNS rebinding); empty: any.
    hosts: Vec<String>,
}

/// An engine from `--engine`: a `key=value` specification, or a plain command line.
fn engine_choice(text: &str) -> Result<EngineChoice, String> {
    let spec = if text.contains("cmd=") {
        EngineSpec::parse(text)?
    } else {
        let words = split_quoted(text)?;
        let (cmd, args) = words
            .split_first()
            .ok_or_else(|| "--engine: an empty command".to_string())?;
        EngineSpec {
            name: std::path::Path::new(cmd)
                .file_name()
                .map_or_else(|| cmd.clone(), |f| f.to_string_lossy().into_owned()),
            cmd: cmd.clone(),
            args: args.to_vec(),
            options: Vec::new(),
            proto: None,
            limit: None,
        }
    };
    if spec.proto == Some(tabula::arena::child::Proto::Gtp) {
        return Err("--engine: the browser board drives UCI and UGI engines, not GTP".into());
    }
    Ok(EngineChoice {
        spec,
        builtin: false,
    })
}

pub fn run(args: ServeArgs, default_game: &'static str) -> Result<(), String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("serve: cannot find tabula's own executable: {e}"))?;
    let mut engines = vec![EngineChoice {
        spec: EngineSpec {
            name: "tabula".into(),
            cmd: exe.to_string_lossy().into_owned(),
            args: Vec::new(),
            options: Vec::new(),
            proto: None,
            limit: None,
        },
        builtin: true,
    }];
    for e in &args.engines {
        engines.push(engine_choice(e)?);
    }
    raise_file_limit();
    let server = tiny_http::Server::http((args.host.as_str(), args.port))
        .map_err(|e| format!("serve: cannot listen on {}:{}: {e}", args.host, args.port))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| "serve: no IP address to listen on".to_string())?;
    let port = addr.port();
    let hosts = if addr.ip().is_loopback() {
        ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect()
    } else {
        Vec::new()
    };
    let app = Arc::new(App {
        engines: Arc::new(engines),
        sessions: Mutex::new(HashMap::new()),
        max_games: args.max_games,
        default_game,
        ids: AtomicU64::new(1),
        opening: AtomicUsize::new(0),
        seed: Default::default(),
        hosts,
    });
    let shown = if addr.ip().is_unspecified() {
        format!("127.0.0.1:{port}")
    } else {
        addr.to_string()
    };
    say!("tabula serve: http://{shown}/ (Ctrl-C to stop)");
    let janitor = app.clone();
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(30));
            janitor.expire();
        }
    });
    let active = Arc::new(AtomicUsize::new(0));
    loop {
        let req = match server.recv() {
            Ok(r) => r,
            Err(e) => {
                log::warn!("serve: {e}");
                continue;
            }
        };
        if active.load(Relaxed) >= MAX_REQUESTS {
            let _ = req.respond(error(503, "the server is busy; try again"));
            continue;
        }
        active.fetch_add(1, Relaxed);
        let (app, done) = (app.clone(), active.clone());
        // A thread the system refuses drops the request (tiny_http answers it 500): the
        // server goes on.
        let spawned = std::thread::Builder::new().spawn(move || {
            handle(&app, req);
            done.fetch_sub(1, Relaxed);
        });
        if let Err(e) = spawned {
            active.fetch_sub(1, Relaxed);
            log::warn!("serve: cannot start a thread for a request: {e}");
        }
    }
}

/// Raises the soft limit of open files to the hard one: every connection costs two
/// descriptors, and the usual soft limit (1024) is reached by some 500 connections at once.
/// (Past the limit connections wait in the listen queue or are refused; the server goes on.)
fn raise_file_limit() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                log::warn!("serve: cannot raise the limit of open files");
            }
        }
    }
}

type Answer = Response<std::io::Cursor<Vec<u8>>>;

fn header(text: &str) -> Option<Header> {
    text.parse::<Header>().ok()
}

fn respond(body: String, status: u16, content_type: &str) -> Answer {
    let mut r = Response::from_string(body).with_status_code(status);
    for h in [
        format!("Content-Type: {content_type}"),
        "Cache-Control: no-store".into(),
        "X-Content-Type-Options: nosniff".into(),
    ] {
        if let Some(h) = header(&h) {
            r = r.with_header(h);
        }
    }
    r
}

fn ok(v: Value) -> Answer {
    respond(v.to_string(), 200, "application/json")
}

fn error(status: u16, why: &str) -> Answer {
    respond(
        json!({ "error": why }).to_string(),
        status,
        "application/json",
    )
}

/// The value of `key` in a query string (`a=1&b=2`), `+` and `%XX` decoded.
fn query(q: &str, key: &str) -> Option<String> {
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == key).then(|| decode(v))
    })
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'+', ..) => out.push(b' '),
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 2;
            }
            (c, ..) => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn handle(app: &App, mut req: Request) {
    let answer = route(app, &mut req).unwrap_or_else(|(status, why)| error(status, &why));
    let _ = req.respond(answer);
}

type Failure = (u16, String);

fn bad(why: impl Into<String>) -> Failure {
    (400, why.into())
}

fn route(app: &App, req: &mut Request) -> Result<Answer, Failure> {
    if !app.hosts.is_empty() {
        let host = req
            .headers()
            .iter()
            .find(|h| h.field.equiv("Host"))
            .map(|h| h.value.as_str().to_ascii_lowercase());
        if !host.is_some_and(|h| app.hosts.contains(&h)) {
            return Err((
                403,
                "this server answers only to its own loopback address".into(),
            ));
        }
    }
    let url = req.url().to_string();
    let (path, q) = url.split_once('?').unwrap_or((&url, ""));
    let method = req.method().clone();
    match (&method, path) {
        (Method::Get, "/" | "/index.html") => {
            Ok(respond(PAGE.into(), 200, "text/html; charset=utf-8"))
        }
        (Method::Get, "/app.js") => Ok(respond(
            SCRIPT.into(),
            200,
            "text/javascript; charset=utf-8",
        )),
        (Method::Get, "/analysis.js") => Ok(respond(
            ANALYSIS.into(),
            200,
            "text/javascript; charset=utf-8",
        )),
        (Method::Get, "/plot.js") => Ok(respond(
            tabula::arena::report::html::PLOT_JS.into(),
            200,
            "text/javascript; charset=utf-8",
        )),
        (Method::Get, "/favicon.ico") => Ok(respond(String::new(), 204, "text/plain")),
        (Method::Get, "/api/config") => Ok(ok(app.config())),
        (Method::Get, "/api/state") => {
            let id = query(q, "id").ok_or_else(|| bad("state: no id= in the query"))?;
            let since = match query(q, "since") {
                Some(v) => Some(
                    v.parse::<u64>()
                        .map_err(|_| bad(format!("since '{v}' is not a number")))?,
                ),
                None => None,
            };
            let session = app.session(&id)?;
            Ok(ok(session.state(since, LONG_POLL)))
        }
        (Method::Post, p) if p.starts_with("/api/") => {
            let body = read_body(req)?;
            app.post(&p["/api/".len()..], &body)
        }
        (_, p)
            if p.starts_with("/api/")
                || ["/", "/app.js", "/analysis.js", "/plot.js"].contains(&p) =>
        {
            Err((405, format!("{} is not allowed on {p}", req.method())))
        }
        _ => Err((404, format!("nothing at {path}"))),
    }
}

/// The JSON body of a POST (`Content-Type: application/json`, which a page of another
/// origin cannot send without asking first).
fn read_body(req: &mut Request) -> Result<Value, Failure> {
    let json_type = req.headers().iter().any(|h| {
        h.field.equiv("Content-Type")
            && h.value
                .as_str()
                .to_ascii_lowercase()
                .starts_with("application/json")
    });
    if !json_type {
        return Err(bad("a POST must have Content-Type: application/json"));
    }
    if req.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err((413, format!("the body is larger than {MAX_BODY} bytes")));
    }
    // Read in pieces against a deadline: every read waits at most the connection's timeout,
    // so a body dripped a byte at a time is cut off after `BODY_TIME`.
    let mut buf = Vec::new();
    let mut piece = [0u8; 16 * 1024];
    let until = Instant::now() + BODY_TIME;
    let reader = req.as_reader();
    while buf.len() <= MAX_BODY {
        if Instant::now() > until {
            return Err((408, format!("the body took longer than {BODY_TIME:?}")));
        }
        match reader.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&piece[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(bad(format!("cannot read the body: {e}"))),
        }
    }
    if buf.len() > MAX_BODY {
        return Err((413, format!("the body is larger than {MAX_BODY} bytes")));
    }
    let v: Value =
        serde_json::from_slice(&buf).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
    if !v.is_object() {
        return Err(bad("the body must be a JSON object"));
    }
    Ok(v)
}

impl App {
    fn config(&self) -> Value {
        json!({
            "games": games::GAMES,
            "default_game": self.default_game,
            "engines": self.engines.iter().map(|e| e.spec.name.clone()).collect::<Vec<_>>(),
            "movetime": state::MOVETIME_RANGE,
            "builtin": self.engines.iter().map(|e| e.builtin).collect::<Vec<_>>(),
            "levels": state::FULL_LEVEL,
            "max_match": matchplay::MAX_GAMES,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn session(&self, id: &str) -> Result<Arc<dyn Session>, Failure> {
        let mut sessions = self.lock();
        let e = sessions.get_mut(id).ok_or_else(|| {
            (
                404,
                format!("no game '{id}' (closed, or expired after 15 minutes)"),
            )
        })?;
        e.used = Instant::now();
        Ok(e.session.clone())
    }

    /// Closes the sessions nobody has asked about for `IDLE`.
    fn expire(&self) {
        let gone: Vec<Arc<dyn Session>> = {
            let mut sessions = self.lock();
            let old: Vec<String> = sessions
                .iter()
                .filter(|(_, e)| e.used.elapsed() > IDLE)
                .map(|(k, _)| k.clone())
                .collect();
            old.iter()
                .filter_map(|k| sessions.remove(k))
                .map(|e| e.session)
                .collect()
        };
        for s in gone {
            s.close();
        }
    }

    fn new_id(&self) -> String {
        use std::hash::BuildHasher;
        let n = self.ids.fetch_add(1, Relaxed);
        format!("{:016x}", self.seed.hash_one((n, Instant::now())))
    }

    fn post(&self, action: &str, body: &Value) -> Result<Answer, Failure> {
        if action == "new" {
            if let Some(old) = games::text(body, "close").map_err(bad)? {
                self.close(old);
            }
            self.expire();
            {
                let sessions = self.lock();
                if sessions.len() + self.opening.load(Relaxed) >= self.max_games {
                    return Err((
                        503,
                        format!(
                            "{} games are open, the most this server keeps; close a tab or wait",
                            self.max_games
                        ),
                    ));
                }
                self.opening.fetch_add(1, Relaxed);
            }
            let id = self.new_id();
            let session = match games::create(id.clone(), body, self.default_game, &self.engines) {
                Ok(s) => s,
                Err(e) => {
                    self.opening.fetch_sub(1, Relaxed);
                    return Err(bad(e));
                }
            };
            let state = session.state(None, Duration::ZERO);
            let mut sessions = self.lock();
            self.opening.fetch_sub(1, Relaxed);
            sessions.insert(
                id,
                Entry {
                    session,
                    used: Instant::now(),
                },
            );
            return Ok(ok(state));
        }
        let id = games::text(body, "id")
            .map_err(bad)?
            .ok_or_else(|| bad(format!("{action}: no \"id\" in the body")))?;
        let session = self.session(id)?;
        match action {
            "move" => {
                let mv = games::text(body, "move")
                    .map_err(bad)?
                    .ok_or_else(|| bad("move: no \"move\" in the body"))?;
                let replace = match games::text(body, "branch").map_err(bad)? {
                    None | Some("variation") => false,
                    Some("replace") => true,
                    Some(b) => {
                        return Err(bad(format!("branch '{b}': expected variation or replace")));
                    }
                };
                session.play(mv, replace).map_err(bad)?;
            }
            "goto" | "promote" | "remove" => {
                let node = games::number(body, "node")
                    .map_err(bad)?
                    .ok_or_else(|| bad(format!("{action}: no \"node\" in the body")))?;
                let node = usize::try_from(node).unwrap_or(usize::MAX);
                match action {
                    "goto" => session.go_to(node),
                    "promote" => session.promote(node),
                    _ => session.remove(node),
                }
                .map_err(bad)?;
            }
            "review" => {
                let on = body.get("on").and_then(Value::as_bool).unwrap_or(true);
                let ms = games::number(body, "ms").map_err(bad)?;
                session.review(on, ms).map_err(bad)?;
            }
            "export" => return Ok(ok(session.export())),
            "undo" => session.undo().map_err(bad)?,
            "stop" => session.move_now().map_err(bad)?,
            "settings" => {
                let s = games::settings_from(body, session.current_settings()).map_err(bad)?;
                session.settings(s).map_err(bad)?;
            }
            "close" => {
                self.close(id);
                return Ok(ok(json!({ "closed": id })));
            }
            _ => return Err((404, format!("no action '{action}'"))),
        }
        Ok(ok(session.state(None, Duration::ZERO)))
    }

    fn close(&self, id: &str) {
        let gone = self.lock().remove(id);
        if let Some(e) = gone {
            e.session.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries() {
        assert_eq!(query("id=ab&since=3", "since").as_deref(), Some("3"));
        assert_eq!(query("id=a%2Fb+c", "id").as_deref(), Some("a/b c"));
        assert_eq!(query("id=%zz%4", "id").as_deref(), Some("%zz%4"));
        assert_eq!(query("x", "id"), None);
    }

    #[test]
    fn engine_command_lines() {
        let e = engine_choice("/usr/games/stockfish").expect("a command");
        assert_eq!(
            (e.spec.cmd.as_str(), e.spec.args.len()),
            ("/usr/games/stockfish", 0)
        );
        let e = engine_choice("/x/eng -m ugi").expect("a command");
        assert_eq!(e.spec.args, ["-m", "ugi"]);
        let e = engine_choice("name=A cmd=/x proto=ugi").expect("a spec");
        assert_eq!(e.spec.name, "A");
        assert!(engine_choice("cmd=/x proto=gtp").is_err());
        assert!(engine_choice("").is_err());
    }
}
