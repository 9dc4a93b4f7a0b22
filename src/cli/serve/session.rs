//! One game on the browser board: the moves played (`GameLine`, so take-backs and repetition
//! work as in `tabula play`), the engine that plays it (a child process driven over UCI or UGI
//! with `arena::child`, the code `tabula match` uses: tabula itself unless another engine was
//! given), what the engine is thinking, and the exact value of each move where the game's
//! solver finds it quickly.
//!
//! The board the page draws comes from the position's FEN (every game writes rows top to
//! bottom, digits for runs of empty cells) and each legal move's cells from its notation;
//! the rules are tabula's own, never the page's.
//!
//! Invariants: `epoch` changes with every change of position; an engine answer or a solver
//! value computed for another `epoch` is thrown away. A thinking thread owns the engine while
//! it runs and gives it back when done.

use super::json::{Obj, arr, str_lit};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tabula::arena::child::{Child, EngineSpec, Got, Proto};
use tabula::game::{Game, GameResult, Player};
use tabula::record::GameLine;
use tabula::search::{MATE, MATE_BOUND};

/// What the handlers need of a game, whatever its type.
pub trait Session: Send + Sync {
    fn state(&self) -> String;
    fn play(&self, mv: &str) -> Result<(), String>;
    fn go(&self, ms: u64) -> Result<(), String>;
    fn stop(&self);
    fn undo(&self) -> Result<(), String>;
    fn set_fen(&self, fen: &str) -> Result<(), String>;
}

#[derive(Clone, Debug, Default)]
struct Thinking {
    depth: u32,
    score: String,
    nodes: u64,
    pv: String,
}

struct State<G: Game> {
    line: GameLine<G>,
    epoch: u64,
    /// The grid before the last move (the page marks what changed: flips, captures).
    before: Vec<char>,
    engine: Option<Child>,
    busy: bool,
    thinking: Thinking,
    /// (epoch, [(move, value)]) from the solver.
    values: Option<(u64, Vec<(String, String)>)>,
    error: Option<String>,
}

pub struct GameSession<G: Game> {
    state: Arc<Mutex<State<G>>>,
    stop_flag: Arc<AtomicBool>,
    spec: EngineSpec,
    proto: Proto,
    engine_name: String,
}

/// The cells of a FEN's board, row by row from the top: `.` empty, else the FEN's letter.
pub fn grid(fen: &str) -> (usize, usize, Vec<char>) {
    let board = fen.split_whitespace().next().unwrap_or("");
    let mut cells = Vec::new();
    let mut rows = 0;
    for row in board.split('/') {
        rows += 1;
        let mut run = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                run = run * 10 + d as usize;
            } else {
                cells.extend(std::iter::repeat_n('.', run));
                run = 0;
                cells.push(c);
            }
        }
        cells.extend(std::iter::repeat_n('.', run));
    }
    let cols = cells.len().checked_div(rows).unwrap_or(0);
    (rows, cols, cells)
}

/// A square `a1`-style name (column letter, then row counted from the top, or from the bottom
/// for chess) as a cell index.
fn square(text: &str, rows: usize, cols: usize, chess: bool) -> Option<usize> {
    let mut chars = text.chars();
    let c = chars.next()?;
    let col = (c.to_ascii_lowercase() as u8).checked_sub(b'a')? as usize;
    let row: usize = chars.as_str().parse().ok()?;
    if col >= cols || row == 0 || row > rows {
        return None;
    }
    let r = if chess { rows - row } else { row - 1 };
    Some(r * cols + col)
}

/// The cells a move names in its notation: (the cells a click on which picks it, the target
/// cell of a second click). Connect Four: the whole column; chess: from, then to; Othello and
/// Domineering: the square (the domino's top or left cell). A pass names none.
fn move_cells(game: &str, text: &str, rows: usize, cols: usize) -> (Vec<usize>, Option<usize>) {
    match game {
        "connect4" => {
            let col = text
                .bytes()
                .next()
                .map_or(usize::MAX, |b| b.wrapping_sub(b'a') as usize);
            if col < cols {
                ((0..rows).map(|r| r * cols + col).collect(), None)
            } else {
                (Vec::new(), None)
            }
        }
        "chess" if text.len() >= 4 => (
            square(&text[..2], rows, cols, true).into_iter().collect(),
            square(&text[2..4], rows, cols, true),
        ),
        _ => {
            // The first square of the notation: letters then digits.
            let end = text
                .char_indices()
                .skip(1)
                .find(|&(_, c)| c.is_ascii_alphabetic())
                .map_or(text.len(), |(i, _)| i);
            (
                square(&text[..end], rows, cols, false)
                    .into_iter()
                    .collect(),
                None,
            )
        }
    }
}

fn player_name(p: Player) -> &'static str {
    match p {
        Player::P1 => "p1",
        Player::P2 => "p2",
    }
}

/// A solver's score as a person reads it: `win in 7 plies`, `loss in 4 plies`, `draw`, or
/// (Othello) the final disc margin, `+6 discs`.
fn score_text(game: &str, score: i32) -> String {
    if game == "othello" && score.abs() < MATE_BOUND {
        format!("{:+} discs", score / 100)
    } else if score >= MATE_BOUND {
        format!("win in {} plies", MATE - score)
    } else if score <= -MATE_BOUND {
        format!("loss in {} plies", MATE + score)
    } else if score == 0 {
        "draw".into()
    } else {
        format!("{:+}", score)
    }
}

impl<G: Game + Send + Sync + 'static> GameSession<G> {
    pub fn new(start: G, spec: EngineSpec, proto: Proto) -> Self {
        let before = grid(&start.fen()).2;
        let s = GameSession {
            engine_name: spec.name.clone(),
            state: Arc::new(Mutex::new(State {
                line: GameLine::new(start),
                epoch: 0,
                before,
                engine: None,
                busy: false,
                thinking: Thinking::default(),
                values: None,
                error: None,
            })),
            stop_flag: Arc::new(AtomicBool::new(false)),
            spec,
            proto,
        };
        if let Ok(st) = s.state.lock() {
            start_values(&s.state, &st);
        }
        s
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State<G>>, String> {
        self.state
            .lock()
            .map_err(|_| "the game's state is unusable".to_string())
    }

    /// A new position: `epoch` moves on, old answers are void, the solver starts on it.
    fn changed(&self, st: &mut State<G>, before: Vec<char>) {
        st.epoch += 1;
        st.before = before;
        st.thinking = Thinking::default();
        st.values = None;
        st.error = None;
        self.start_values(st);
    }

    fn start_values(&self, st: &State<G>) {
        start_values(&self.state, st);
    }
}

/// The exact value of every legal move, found by the game's solver in a thread, if each
/// child position solves within the time left (else none are shown).
fn start_values<G: Game + Send + Sync + 'static>(state: &Arc<Mutex<State<G>>>, st: &State<G>) {
    let pos = st.line.pos.clone();
    if pos.result().is_some() || st.line.result().is_some() {
        return;
    }
    let (_, _, cells) = grid(&pos.fen());
    let empty = cells.iter().filter(|&&c| c == '.').count();
    let worth = match G::NAME {
        "connect4" => true,
        "othello" => empty <= 14,
        "domineering" => cells.len() <= 64,
        _ => false,
    };
    if !worth {
        return;
    }
    let epoch = st.epoch;
    let state = Arc::clone(state);
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(3);
        let abort = || Instant::now() >= deadline;
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let mut out = Vec::new();
        for mv in moves {
            let mut child = pos.clone();
            child.play(mv);
            let value = match child.outcome() {
                Some(o) => {
                    let r = GameResult::from_outcome(o, child.to_move());
                    match (r, pos.to_move()) {
                        (GameResult::Draw, _) => "draw".to_string(),
                        (GameResult::P1Win, Player::P1) | (GameResult::P2Win, Player::P2) => {
                            "wins at once".to_string()
                        }
                        _ => "loses at once".to_string(),
                    }
                }
                None => match child.solve(&abort) {
                    Some(s) => score_text(G::NAME, -s.score),
                    None => return,
                },
            };
            out.push((pos.format_move(mv), value));
        }
        if let Ok(mut st) = state.lock()
            && st.epoch == epoch
        {
            st.values = Some((epoch, out));
        }
    });
}

/// What an `info` line says: depth, score, nodes, pv.
fn read_info(line: &str, t: &mut Thinking) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "depth" => {
                t.depth = words
                    .get(i + 1)
                    .and_then(|w| w.parse().ok())
                    .unwrap_or(t.depth);
                i += 2;
            }
            "nodes" => {
                t.nodes = words
                    .get(i + 1)
                    .and_then(|w| w.parse().ok())
                    .unwrap_or(t.nodes);
                i += 2;
            }
            "score" => {
                let kind = words.get(i + 1).copied().unwrap_or("");
                let v: i64 = words.get(i + 2).and_then(|w| w.parse().ok()).unwrap_or(0);
                t.score = match kind {
                    "cp" => format!("{:+.2}", v as f64 / 100.0),
                    "mate" => format!("mate {v}"),
                    _ => t.score.clone(),
                };
                i += 3;
            }
            "pv" => {
                t.pv = words[i + 1..].join(" ");
                break;
            }
            _ => i += 1,
        }
    }
}

impl<G: Game + Send + Sync + 'static> Session for GameSession<G> {
    fn state(&self) -> String {
        let Ok(st) = self.lock() else {
            return "{\"error\":\"the game's state is unusable\"}".into();
        };
        let pos = &st.line.pos;
        let fen = pos.fen();
        let (rows, cols, cells) = grid(&fen);
        let mut legal = Vec::new();
        let mut moves = Vec::new();
        if st.line.result().is_none() {
            pos.legal_moves(&mut moves);
        }
        for &mv in &moves {
            let text = pos.format_move(mv);
            let (click, to) = move_cells(G::NAME, &text, rows, cols);
            let mut o = Obj::new();
            o.str("move", &text);
            o.raw("click", &arr(click.iter().map(|c| c.to_string())));
            o.raw("to", &to.map_or("null".into(), |t| t.to_string()));
            o.str("human", &pos.format_human(mv));
            legal.push(o.done());
        }
        let last_cells = st.line.moves.last().map(|&mv| {
            let mut prev = st.line.start.clone();
            for &m in &st.line.moves[..st.line.moves.len() - 1] {
                prev.play(m);
            }
            let text = prev.format_move(mv);
            let (click, to) = move_cells(G::NAME, &text, rows, cols);
            let mut all: Vec<usize> = if G::NAME == "connect4" {
                // The cell the disc fell into: the column's cell that changed.
                click
                    .into_iter()
                    .filter(|&c| st.before.get(c) != cells.get(c))
                    .collect()
            } else {
                click
            };
            all.extend(to);
            (text, all)
        });
        let changed: Vec<usize> = (0..cells.len())
            .filter(|&i| st.before.get(i).is_some_and(|b| *b != cells[i]))
            .collect();
        let mut o = Obj::new();
        o.str("game", G::NAME);
        o.str("fen", &fen);
        o.num("rows", rows as i64);
        o.num("cols", cols as i64);
        o.raw("cells", &arr(cells.iter().map(|c| str_lit(&c.to_string()))));
        o.str("toMove", player_name(pos.to_move()));
        o.raw("legal", &arr(legal));
        o.raw(
            "last",
            &last_cells.map_or("null".into(), |(t, c)| {
                let mut l = Obj::new();
                l.str("move", &t);
                l.raw("cells", &arr(c.iter().map(|x| x.to_string())));
                l.done()
            }),
        );
        o.raw("changed", &arr(changed.iter().map(|c| c.to_string())));
        o.raw(
            "history",
            &arr(st.line.human_moves().iter().map(|m| str_lit(m))),
        );
        match st.line.result() {
            Some((r, why)) => {
                let winner = match r {
                    GameResult::P1Win => "p1",
                    GameResult::P2Win => "p2",
                    GameResult::Draw => "draw",
                };
                o.str("result", winner);
                o.str("reason", &why);
            }
            None => o.raw("result", "null"),
        }
        o.str("engine", &self.engine_name);
        o.raw("busy", if st.busy { "true" } else { "false" });
        let mut t = Obj::new();
        t.num("depth", st.thinking.depth as i64);
        t.str("score", &st.thinking.score);
        t.num("nodes", st.thinking.nodes as i64);
        t.str("pv", &st.thinking.pv);
        o.raw("thinking", &t.done());
        match &st.values {
            Some((g, v)) if *g == st.epoch => o.raw(
                "values",
                &arr(v.iter().map(|(m, val)| {
                    let mut x = Obj::new();
                    x.str("move", m);
                    x.str("value", val);
                    x.done()
                })),
            ),
            _ => o.raw("values", "null"),
        }
        match &st.error {
            Some(e) => o.str("error", e),
            None => o.raw("error", "null"),
        }
        o.done()
    }

    fn play(&self, text: &str) -> Result<(), String> {
        let mut st = self.lock()?;
        if st.busy {
            return Err("the engine is thinking: stop it or wait".into());
        }
        if st.line.result().is_some() {
            return Err("the game is over".into());
        }
        let mv = st.line.pos.parse_move(text)?;
        let before = grid(&st.line.pos.fen()).2;
        st.line.play(mv);
        self.changed(&mut st, before);
        Ok(())
    }

    fn go(&self, ms: u64) -> Result<(), String> {
        let mut st = self.lock()?;
        if st.busy {
            return Err("the engine is already thinking".into());
        }
        if st.line.result().is_some() {
            return Err("the game is over".into());
        }
        let engine = match st.engine.take() {
            Some(c) if !c.dead => c,
            _ => Child::start(&self.spec, self.proto, Duration::from_secs(10))?,
        };
        st.busy = true;
        st.thinking = Thinking::default();
        let epoch = st.epoch;
        let fen = st.line.start.fen();
        let moves = st.line.protocol_moves();
        drop(st);
        let state = Arc::clone(&self.state);
        let stop = Arc::clone(&self.stop_flag);
        stop.store(false, Relaxed);
        let proto = self.proto;
        std::thread::spawn(move || {
            let mut engine = engine;
            let position = if moves.is_empty() {
                format!("position fen {fen}")
            } else {
                format!("position fen {fen} moves {}", moves.join(" "))
            };
            let newgame = if proto == Proto::Uci {
                "ucinewgame"
            } else {
                "uginewgame"
            };
            let sent = engine
                .send(newgame)
                .and_then(|_| engine.send(&position))
                .and_then(|_| engine.send(&format!("go movetime {ms}")));
            let deadline = Instant::now() + Duration::from_millis(ms) + Duration::from_secs(10);
            let mut answer: Result<String, String> = sent.map(|_| String::new());
            let mut stopped = false;
            while answer.as_ref().is_ok_and(|a| a.is_empty()) {
                if stop.load(Relaxed) && !stopped {
                    stopped = true;
                    let _ = engine.send("stop");
                }
                let step = (Instant::now() + Duration::from_millis(50)).min(deadline);
                match engine.recv(step) {
                    Got::Line(l) if l.starts_with("info ") => {
                        if let Ok(mut st) = state.lock()
                            && st.epoch == epoch
                        {
                            read_info(&l, &mut st.thinking);
                        }
                    }
                    Got::Line(l) if l.starts_with("bestmove") => {
                        answer = Ok(l.split_whitespace().nth(1).unwrap_or("0000").to_string());
                    }
                    Got::Line(_) => {}
                    Got::Timeout if Instant::now() >= deadline => {
                        answer = Err(format!("{}: no bestmove in time", engine.name));
                    }
                    Got::Timeout => {}
                    Got::Eof => answer = Err(format!("{}: the engine exited", engine.name)),
                }
            }
            let Ok(mut st) = state.lock() else {
                return;
            };
            st.busy = false;
            match answer {
                Ok(mv) if st.epoch == epoch && !stopped => {
                    match st.line.pos.parse_move(&mv) {
                        Ok(m) => {
                            let before = grid(&st.line.pos.fen()).2;
                            st.line.play(m);
                            st.epoch += 1;
                            st.before = before;
                            st.values = None;
                            start_values(&state, &st);
                        }
                        Err(e) => st.error = Some(format!("the engine played '{mv}': {e}")),
                    }
                    st.engine = Some(engine);
                }
                Ok(_) => st.engine = Some(engine),
                Err(e) => {
                    engine.kill();
                    st.error = Some(e);
                }
            }
        });
        Ok(())
    }

    fn stop(&self) {
        self.stop_flag.store(true, Relaxed);
    }

    fn undo(&self) -> Result<(), String> {
        let mut st = self.lock()?;
        if st.busy {
            return Err("the engine is thinking: stop it first".into());
        }
        if !st.line.undo() {
            return Err("nothing to take back".into());
        }
        let before = grid(&st.line.pos.fen()).2;
        self.changed(&mut st, before);
        Ok(())
    }

    fn set_fen(&self, fen: &str) -> Result<(), String> {
        let mut st = self.lock()?;
        if st.busy {
            return Err("the engine is thinking: stop it first".into());
        }
        let pos = st.line.start.parse_fen(fen)?;
        let before = grid(&pos.fen()).2;
        st.line = GameLine::new(pos);
        self.changed(&mut st, before);
        Ok(())
    }
}

impl<G: Game> Drop for GameSession<G> {
    fn drop(&mut self) {
        self.stop_flag.store(true, Relaxed);
        if let Ok(mut st) = self.state.lock()
            && let Some(c) = st.engine.take()
        {
            c.quit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_and_move_cells() {
        let (r, c, cells) = grid("7/7/7/7/7/3r3 y 2");
        assert_eq!((r, c, cells.len(), cells[38]), (6, 7, 42, 'r'));
        let (r, c, cells) = grid("16/16/16/16/16/16/16/7xo7/7ox7/16/16/16/16/16/16/16 x");
        assert_eq!(
            (r, c, cells[7 * 16 + 7], cells[7 * 16 + 8]),
            (16, 16, 'x', 'o')
        );
        assert_eq!(move_cells("chess", "e2e4", 8, 8), (vec![52], Some(36)));
        assert_eq!(move_cells("othello", "d3", 8, 8), (vec![19], None));
        assert_eq!(move_cells("domineering", "c3c4", 8, 8), (vec![18], None));
        assert_eq!(
            move_cells("connect4", "b", 6, 7).0,
            vec![1, 8, 15, 22, 29, 36]
        );
        assert_eq!(move_cells("othello", "0000", 8, 8).0, Vec::<usize>::new());
    }

    #[test]
    fn info_lines_are_read() {
        let mut t = Thinking::default();
        read_info(
            "info depth 9 seldepth 12 score cp -35 nodes 1234 nps 1 pv e2e4 e7e5",
            &mut t,
        );
        assert_eq!(
            (t.depth, t.score.as_str(), t.nodes, t.pv.as_str()),
            (9, "-0.35", 1234, "e2e4 e7e5")
        );
        read_info("info depth 10 score mate 3 pv d", &mut t);
        assert_eq!(t.score, "mate 3");
    }
}
