//! The protocol layer: one I/O loop for every game and dialect. The main thread reads stdin
//! line by line and never blocks on the search (which runs on its own thread), so `isready`
//! is answered at once; only this layer turns engine events into text.
//!
//! The first line chooses the dialect (`uci` or `ugi`); before that, chess defaults to UCI
//! and the other games to UGI. EOF means `quit`.

pub mod command;
pub mod nboard;
mod nboard_game;
mod output;

pub use output::Output;

use crate::engine::{CHESS_OPTIONS, ENGINE_OPTIONS, Engine, Listener};
use crate::game::{Game, GameResult, Player};
use crate::search::{Info, Limits, SearchResult, mate_plies};
use command::{Command, Query};
use log::{debug, info, warn};
use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Uci,
    Ugi,
    NBoard,
}

/// Deepest `go perft` and `bench` accepted over the protocol (they run on the input thread).
pub const MAX_PROTOCOL_PERFT: u32 = 8;
pub const MAX_PROTOCOL_BENCH_DEPTH: u32 = 16;

pub const ENGINE_NAME: &str = concat!("tabula ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "the tabula developers";

/// Formats search events for one dialect and writes them.
struct Printer {
    out: Output,
    dialect: Dialect,
    show_wdl: bool,
    debug: Arc<AtomicBool>,
}

/// Win/draw/loss per mille for a score (a logistic model; a pawn up is about 60% wins).
pub fn wdl(score: i32) -> (u32, u32, u32) {
    if let Some(p) = mate_plies(score) {
        return if p > 0 { (1000, 0, 0) } else { (0, 0, 1000) };
    }
    let f = |s: f64| 1.0 / (1.0 + (-(s - 200.0) / 80.0).exp());
    let w = (f(score as f64) * 1000.0).round() as u32;
    let l = (f(-(score as f64)) * 1000.0).round() as u32;
    (w, 1000 - w - l, l)
}

impl Printer {
    fn score(&self, score: i32) -> String {
        match mate_plies(score) {
            Some(p) => match self.dialect {
                Dialect::Ugi => format!("mate {p}"),
                Dialect::Uci | Dialect::NBoard => {
                    let moves = if p > 0 { (p + 1) / 2 } else { -((-p) / 2) };
                    format!("mate {moves}")
                }
            },
            None => format!("cp {score}"),
        }
    }
}

pub fn format_pv<G: Game>(root: &G, pv: &[G::Move]) -> String {
    let mut pos = root.clone();
    let mut parts = Vec::with_capacity(pv.len());
    for &m in pv {
        parts.push(pos.format_move(m));
        pos.play(m);
    }
    parts.join(" ")
}

impl<G: Game> Listener<G> for Printer {
    fn info(&self, root: &G, info: &Info<G::Move>) {
        let mut line = format!(
            "info depth {} seldepth {} multipv {} score {}",
            info.depth,
            info.seldepth,
            info.multipv,
            self.score(info.score)
        );
        match info.bound {
            Some(crate::search::Bound::Lower) => line.push_str(" lowerbound"),
            Some(crate::search::Bound::Upper) => line.push_str(" upperbound"),
            _ => {}
        }
        if self.show_wdl {
            let (w, d, l) = wdl(info.score);
            line.push_str(&format!(" wdl {w} {d} {l}"));
        }
        line.push_str(&format!(
            " nodes {} nps {} hashfull {} time {}",
            info.nodes, info.nps, info.hashfull, info.time_ms
        ));
        if info.tbhits > 0 {
            line.push_str(&format!(" tbhits {}", info.tbhits));
        }
        if !info.pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(&format_pv(root, &info.pv));
        }
        self.out.line(&line);
        if let Some(note) = &info.note {
            self.out.line(&format!("info string {note}"));
        }
    }

    fn bestmove(&self, root: &G, result: &SearchResult<G::Move>) {
        let line = match result.best {
            None => "bestmove 0000".to_string(),
            Some(best) => {
                let mut s = format!("bestmove {}", root.format_move(best));
                // UGI's `bestmove` is exactly two words (cutegames reads nothing else); the
                // ponder move is a UCI (and UCI-only) courtesy.
                if let Some(p) = result.ponder.filter(|_| self.dialect == Dialect::Uci) {
                    let mut child = root.clone();
                    child.play(best);
                    s.push_str(&format!(" ponder {}", child.format_move(p)));
                }
                s
            }
        };
        if self.debug.load(Relaxed) {
            self.out.line(&format!(
                "info string search done: depth {} nodes {}",
                result.depth, result.nodes
            ));
        }
        self.out.line(&line);
    }
}

fn ms(v: Option<i64>) -> Option<u64> {
    v.map(|x| x.max(0) as u64)
}

pub fn limits_from(go: &command::Go) -> Limits {
    Limits {
        depth: go.depth,
        nodes: go.nodes,
        mate: go.mate,
        movetime: ms(go.movetime),
        time: [ms(go.time[0]), ms(go.time[1])],
        inc: [ms(go.inc[0]).unwrap_or(0), ms(go.inc[1]).unwrap_or(0)],
        movestogo: go.movestogo.filter(|&m| m > 0),
        infinite: go.infinite,
        ponder: go.ponder,
        // Under a node limit only a solver that keeps to it runs
        // (`BooksAndSolvers::solve_in_play`).
        allow_solver: go.depth.is_none(),
    }
}

/// The protocol session: engine state plus the chosen dialect.
pub struct Session<G: Game> {
    engine: Engine<G>,
    out: Output,
    dialect: Option<Dialect>,
    debug: Arc<AtomicBool>,
    /// NBoard `set depth` (midgame depth).
    nboard_depth: u32,
    /// NBoard's game (for `learn` and `analyze`).
    nboard_game: nboard_game::NbGame<G>,
}

impl<G: Game> Session<G> {
    pub fn new(start: G, out: Output) -> Self {
        start.answer_promptly();
        Session {
            engine: Engine::new(start),
            out,
            dialect: None,
            debug: Arc::new(AtomicBool::new(false)),
            nboard_depth: 12,
            nboard_game: nboard_game::NbGame::default(),
        }
    }

    /// The engine behind the session (tests inspect its position).
    pub fn engine(&self) -> &Engine<G> {
        &self.engine
    }

    fn dialect(&self) -> Dialect {
        self.dialect
            .unwrap_or(if G::UCI { Dialect::Uci } else { Dialect::Ugi })
    }

    /// What the game's books, tables and solvers have to say since the last command that asked
    /// (tables checked in the background, a table let go because it was changed on disk), one
    /// `info string` line each.
    fn show_notices(&self) {
        for notice in self.engine.position().notices() {
            self.out.line(&format!("info string {notice}"));
        }
    }

    /// One `info string error:` line (and log line) for each line of `msg`.
    fn error(&self, msg: &str) {
        for line in msg.lines() {
            warn!("{line}");
            self.out.line(&format!("info string error: {line}"));
        }
    }

    fn handshake(&mut self, d: Dialect) {
        self.dialect = Some(d);
        self.out.line(&format!("id name {ENGINE_NAME}"));
        self.out.line(&format!("id author {AUTHOR}"));
        let chess = if G::ELO_CALIBRATED {
            CHESS_OPTIONS
        } else {
            &[]
        };
        for (name, decl) in ENGINE_OPTIONS.iter().chain(chess) {
            self.out.line(&format!("option name {name} {decl}"));
        }
        for o in G::options() {
            self.out
                .line(&format!("option name {} {}", o.name, o.declaration));
        }
        for p in crate::search::params::announced() {
            self.out.line(&format!(
                "option name {} type spin default {} min {} max {}",
                p.name, p.default, p.min, p.max
            ));
        }
        self.out.line(match d {
            Dialect::Ugi => "ugiok",
            _ => "uciok",
        });
    }

    /// Handles one input line. Returns false when the session should end.
    pub fn handle_line(&mut self, line: &str) -> bool {
        debug!("< {line}");
        let nboard_start = self.dialect.is_none() && line.trim_start().starts_with("nboard");
        if self.dialect == Some(Dialect::NBoard) || nboard_start {
            return match nboard::parse(line) {
                Ok(None) => true,
                Ok(Some(cmd)) => self.handle_nboard(cmd),
                Err(e) => {
                    warn!("{e}");
                    self.out.line(&format!("status error: {e}"));
                    true
                }
            };
        }
        match command::parse(line) {
            Ok(None) => true,
            Ok(Some(cmd)) => self.handle(cmd),
            Err(e) => {
                self.error(&e);
                true
            }
        }
    }

    fn handle(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Uci => self.handshake(Dialect::Uci),
            Command::Ugi => self.handshake(Dialect::Ugi),
            Command::Debug(on) => self.debug.store(on, Relaxed),
            Command::IsReady => {
                self.show_notices();
                self.out.line("readyok");
            }
            Command::Register => {}
            Command::NewGame => self.engine.new_game(),
            Command::SetOption { name, value } => {
                if let Err(e) = self.engine.set_option(&name, value.as_deref()) {
                    self.error(&e);
                }
            }
            Command::Position { fen, moves } => {
                if let Err(e) = self.engine.set_position(fen.as_deref(), &moves) {
                    self.error(&format!("position not changed: {e}"));
                }
            }
            Command::Go(go) => {
                self.show_notices();
                if let Some(depth) = go.perft {
                    // Perft runs on the input thread (as in Stockfish): bound it so that the
                    // engine cannot be hung by a command.
                    if depth > MAX_PROTOCOL_PERFT {
                        self.error(&format!(
                            "go perft: depth {depth} is too deep here (at most {MAX_PROTOCOL_PERFT}); use `tabula perft {depth}`"
                        ));
                    } else {
                        self.perft(depth);
                    }
                    return true;
                }
                let printer = Arc::new(Printer {
                    out: self.out.clone(),
                    dialect: self.dialect(),
                    show_wdl: self.engine.options.show_wdl,
                    debug: Arc::clone(&self.debug),
                });
                if let Err(e) = self.engine.go(limits_from(&go), &go.searchmoves, printer) {
                    self.error(&e);
                    // Every `go` gets a `bestmove`, even a rejected one.
                    self.out.line("bestmove 0000");
                }
            }
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => return false,
            Command::Query(q) => self.query(q),
            Command::Display => self.out.line(&self.engine.position().diagram()),
            Command::Eval => {
                let pos = self.engine.position();
                let e = pos.evaluate();
                let white = if pos.to_move() == Player::P1 { e } else { -e };
                self.out.line(&format!(
                    "Final evaluation: {white} (from the first player's side), {e} (side to move)"
                ));
            }
            Command::Bench(depth) => {
                if self.engine.searching() {
                    self.error("bench: not while searching");
                } else if depth.is_some_and(|d| d > MAX_PROTOCOL_BENCH_DEPTH) {
                    self.error(&format!(
                        "bench: depth at most {MAX_PROTOCOL_BENCH_DEPTH} here; use `tabula bench --depth N`"
                    ));
                } else {
                    for l in crate::bench::run_game::<G>(self.engine.start(), depth) {
                        self.out.line(&l);
                    }
                }
            }
        }
        true
    }

    fn nboard_error(&self, e: &str) {
        warn!("{e}");
        self.out.line(&format!("status error: {e}"));
    }

    fn handle_nboard(&mut self, cmd: nboard::NbCommand) -> bool {
        use nboard::NbCommand as N;
        match cmd {
            N::NBoard(_) => {
                self.dialect = Some(Dialect::NBoard);
                self.out
                    .line(&format!("set myname {}", ENGINE_NAME.replace(' ', "-")));
            }
            N::SetDepth(d) => self.nboard_depth = d.clamp(1, 60),
            N::SetContempt(_) => {}
            N::SetGame(ggf) => {
                self.engine.stop_and_wait();
                self.nboard_game.stop();
                let start = self.engine.position().clone();
                let applied = start.parse_game_record(&ggf).and_then(|(pos, moves)| {
                    self.engine.set_position(Some(&pos.fen()), &moves)?;
                    Ok((pos, moves))
                });
                match applied {
                    Ok((pos, moves)) => self.nboard_game.set(pos, &moves),
                    Err(e) => self.nboard_error(&format!("set game: {e}")),
                }
            }
            N::Move(m) => {
                self.engine.stop_and_wait();
                // Othello has no repetitions, so the new root needs no history.
                let before = self.engine.position().clone();
                match self
                    .engine
                    .set_position(Some(&before.fen()), std::slice::from_ref(&m))
                {
                    Ok(()) => self.nboard_game.push(&before, &m),
                    Err(e) => self.nboard_error(&format!("move: {e}")),
                }
            }
            N::Go | N::Hint(_) => {
                let purpose = if cmd == N::Go {
                    nboard::Purpose::Go
                } else {
                    nboard::Purpose::Hint
                };
                self.nboard_game.stop();
                if let N::Hint(n) = cmd {
                    // The book's moves first; a search only where the book has fewer.
                    let n = n.clamp(1, 64) as usize;
                    let pos = self.engine.position().clone();
                    let shown = nboard_game::NbGame::book_lines(&pos, n, &self.out);
                    if shown >= n {
                        self.out.line("status");
                        return true;
                    }
                    let _ = self.engine.set_option("MultiPV", Some(&n.to_string()));
                } else {
                    let _ = self.engine.set_option("MultiPV", Some("1"));
                }
                let printer = Arc::new(nboard::NbPrinter {
                    out: self.out.clone(),
                    purpose,
                    start: std::time::Instant::now(),
                });
                let limits = Limits {
                    depth: Some(self.nboard_depth),
                    allow_solver: true,
                    ..Limits::default()
                };
                self.out.line("status tabula is thinking");
                if let Err(e) = self.engine.go(limits, &[], printer) {
                    self.nboard_error(&e);
                }
            }
            N::Ping(n) => {
                self.engine.stop_and_wait();
                self.nboard_game.stop();
                self.out.line(&format!("pong {n}"));
            }
            N::Learn => {
                self.engine.stop_and_wait();
                match self.nboard_game.learn(self.engine.options.hash_mib) {
                    Ok(n) => info!("learn: {n} positions new to the book"),
                    Err(e) => self.nboard_error(&format!("learn: {e}")),
                }
                // NBoard waits for this whatever happened.
                self.out.line("learned");
            }
            N::Analyze => {
                self.engine.stop_and_wait();
                if let Err(e) = self
                    .nboard_game
                    .analyze(self.nboard_depth, self.out.clone())
                {
                    self.nboard_error(&e);
                }
            }
            N::Quit => {
                self.nboard_game.stop();
                return false;
            }
        }
        true
    }

    fn query(&self, q: Query) {
        let result = self.engine.game_result();
        let answer = match q {
            Query::P1Turn => (self.engine.position().to_move() == Player::P1).to_string(),
            Query::GameOver => result.is_some().to_string(),
            Query::Result => match result {
                None => "none".into(),
                Some(GameResult::P1Win) => "p1win".into(),
                Some(GameResult::P2Win) => "p2win".into(),
                Some(GameResult::Draw) => "draw".into(),
            },
        };
        self.out.line(&format!("response {answer}"));
    }

    fn perft(&self, depth: u32) {
        let pos = self.engine.position();
        let start = std::time::Instant::now();
        let mut total = 0;
        for (m, n) in crate::perft::divide(pos, depth) {
            self.out.line(&format!("{}: {n}", pos.format_move(m)));
            total += n;
        }
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
        debug!("perft {depth}: {total} in {:?}", start.elapsed());
    }

    pub fn quit(&mut self) {
        self.engine.stop_and_wait();
        self.engine.position().release();
    }
}

/// Runs a protocol session on `input` until `quit` or EOF. Lines may be any length and
/// need not be valid UTF-8 (invalid bytes are replaced, then rejected by the parser).
pub fn run<G: Game>(start: G, input: impl BufRead, out: Output) {
    let mut session = Session::new(start, out);
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if !session.handle_line(&line) {
                    break;
                }
            }
            Err(e) => {
                warn!("stdin: {e}");
                break;
            }
        }
    }
    session.quit();
}
