//! `tabula serve`: a board in the browser for every game. An HTTP server (`http/`: axum on hyper
//! and tokio) on the loopback address serves one page (`index.html`, `app.js`, `analysis.js`, and
//! `plot.js`, the plots it shares with `tabula match --report`; all embedded in the binary) and a
//! JSON API; every game in every tab is a session of its own (`session.rs`, kept by `registry.rs`)
//! with its engine process (`engine.rs`: tabula itself, or any UCI/UGI engine from `--engine`,
//! driven with `tabula match`'s code) and its solver (`move_values.rs`: the exact value of every
//! move), each on a thread of its own. The rules, legal moves and notation all come from tabula's
//! `Game` implementations on the server; the page only draws what it is sent and posts what is
//! clicked.
//!
//! The API (JSON bodies, JSON answers; errors are `{"error": "..."}` with a 4xx status):
//! `GET /api/config`; `POST /api/new` (game, board, fen, human, movetime, engine (both
//! sides) or engine1/engine2, level, exact, match: a number of games for engine1 against
//! engine2, colours changing every game; `close`: the id of a game to close first) ->
//! `{id, version}`; `GET /api/events?id=ID`: the game's live updates as server-sent events
//! (`http/stream.rs`: `state`, the whole state, first and after every change of the tree,
//! position or settings; `live`, the engine's report, the solver's values and the changed
//! nodes' scores; `closed`), each with the state's version as its id;
//! `GET /api/state?id=ID[&since=VERSION]` (the whole state; with `since`, waits up to 20 s
//! for a newer version); `POST /api/move {id, move}`, `/api/undo {id}`, `/api/settings {id,
//! ...}`, `/api/stop {id}` (move now), `/api/close {id}`. An action answers its outcome,
//! `{id, version}` (the version the state has after it; the event stream brings the state),
//! or an error.
//!
//! Analysis: `/api/move` takes `branch` (`variation`, the default, or `replace`) for a move
//! from an earlier position; `/api/goto {id, node}` shows a node of the game's tree (the state's
//! `tree`, `line` and `cursor`), `/api/promote` makes its line the main line, `/api/remove`
//! takes it out; `/api/settings` takes `analyse` (think on the position on show, never play)
//! and `multipv` (1-5); `/api/review {id, on, ms}` has the engine score every position of the
//! line on show; `/api/export {id}` answers `{text, file}` (PGN, GGF, or tabula's records);
//! `/api/new` with `record` loads a game from such a text (checked with tabula's rules; its
//! tags, comments, NAGs and result kept: the state's tree nodes carry `comment` and `nags`,
//! and `recorded` is its result at its main line's last position).

mod board;
mod engine;
mod events;
mod games;
mod heap;
mod http;
mod matchplay;
mod matchscore;
mod move_values;
mod movetext;
mod records;
mod registry;
mod session;
mod snapshot;
mod state;
mod thinking;
mod tree;

use engine::EngineChoice;
use registry::Registry;
use std::sync::Arc;
use tabula::arena::child::{EngineSpec, split_quoted};

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
    heap::bound_arenas();
    let listener = std::net::TcpListener::bind((args.host.as_str(), args.port))
        .map_err(|e| format!("serve: cannot listen on {}:{}: {e}", args.host, args.port))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("serve: no address to listen on: {e}"))?;
    let port = addr.port();
    let hosts = if addr.ip().is_loopback() {
        ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect()
    } else {
        Vec::new()
    };
    let app = Arc::new(Registry::new(engines, args.max_games, default_game));
    let shown = if addr.ip().is_unspecified() {
        format!("127.0.0.1:{port}")
    } else {
        addr.to_string()
    };
    say!("tabula serve: http://{shown}/ (Ctrl-C to stop)");
    http::serve(app, listener, hosts)
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

#[cfg(test)]
mod tests {
    use super::*;

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
