//! One game in the browser (a session): the game line (start, moves, take-back, the result by
//! the rules), who plays which side, the engine's latest thinking and the exact move values,
//! and the state the page reads, as JSON. The engine (`engine.rs`) and the solver
//! (`exact.rs`) each work on a thread of their own that wakes when the position changes;
//! `Session` is the object-safe face the HTTP layer talks to. What the session and its
//! workers share (`Shared`, `Inner`) lives below them all, in `state.rs`.

use super::board::{View, changed, grid_of_fen};
use super::engine::{self, EngineChoice};
use super::exact;
use super::matchscore::MatchPlay;
use super::records;
use super::state::{
    ExactState, FULL_LEVEL, Inner, MAX_MULTIPV, MOVETIME_RANGE, Settings, Shared, Thinking,
};
use super::tree::Tree;

use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tabula::game::{Game, GameResult};
use tabula::record::{GameLine, result_text};

/// A session as the HTTP layer sees it.
pub trait Session: Send + Sync {
    /// The state, once its version is past `since` or `wait` has passed.
    fn state(&self, since: Option<u64>, wait: Duration) -> Value;
    /// A person's move, in protocol or human notation, from the position on show: to the
    /// node of that move if it was made before, else a new continuation (a variation where
    /// there was one; `replace`: instead of the rest).
    fn play(&self, mv: &str, replace: bool) -> Result<(), String>;
    /// Shows node `node` of the game's tree.
    fn go_to(&self, node: usize) -> Result<(), String>;
    /// Makes the line through `node` the main line.
    fn promote(&self, node: usize) -> Result<(), String>;
    /// Takes `node` and every move after it out of the game.
    fn remove(&self, node: usize) -> Result<(), String>;
    /// Starts (with the time per position, ms) or stops the review of the line on show.
    fn review(&self, on: bool, ms: Option<u64>) -> Result<(), String>;
    /// Plays a record's moves into the tree (`(parent, move)`, node i + 1's parent is
    /// `moves[i].0`, 0 the start), checked with the game's rules; the main line's end is shown.
    fn load(&self, moves: &[(usize, String)]) -> Result<(), String>;
    /// The game as a record in the game's own format (`text`, and a file name).
    fn export(&self) -> Value;
    /// Takes back to the last position where a person is to move.
    fn undo(&self) -> Result<(), String>;
    fn settings(&self, s: Settings) -> Result<(), String>;
    fn current_settings(&self) -> Settings;
    /// Asks the thinking engine for its move now.
    fn move_now(&self) -> Result<(), String>;
    /// Ends the session's threads and its engine.
    fn close(&self);
}

/// The review's time per position unless the page asks for another.
const REVIEW_MS: u64 = 300;

pub struct Live<G: View> {
    id: String,
    shared: Arc<Shared<G>>,
    engines: Arc<Vec<EngineChoice>>,
}

impl<G: View> Live<G> {
    /// Starts a session from `start`; `standard` is the game's usual start on this board.
    /// An error when the system refuses its threads (the session is then closed, nothing
    /// left running).
    pub fn start(
        id: String,
        start: G,
        standard: G,
        settings: Settings,
        matchplay: Option<MatchPlay>,
        engines: Arc<Vec<EngineChoice>>,
        tabula_args: Vec<String>,
    ) -> Result<Live<G>, String> {
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                line: GameLine::new(start),
                tree: Tree::new(),
                review: false,
                review_ms: REVIEW_MS,
                standard,
                settings,
                version: 1,
                generation: 1,
                paused: false,
                thinking: None,
                last_thinking: None,
                engine_error: None,
                move_now: false,
                exact: Vec::new(),
                exact_state: ExactState::Off,
                exact_gen: 0,
                closed: false,
                matchplay,
                game_number: 1,
            }),
            changed: Condvar::new(),
            generation: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            exact_epoch: AtomicU64::new(0),
        });
        // Made before the threads: dropped on an error, it closes the session, which ends
        // a thread already started.
        let live = Live {
            id,
            shared,
            engines,
        };
        let cannot = |e: std::io::Error| format!("cannot start the game's threads: {e}");
        let (s, e) = (live.shared.clone(), live.engines.clone());
        std::thread::Builder::new()
            .spawn(move || engine::run(s, e, tabula_args))
            .map_err(cannot)?;
        let s = live.shared.clone();
        std::thread::Builder::new()
            .spawn(move || exact::run(s))
            .map_err(cannot)?;
        Ok(live)
    }
}

fn inner_is_match<G: View>(shared: &Shared<G>) -> bool {
    shared.lock().matchplay.is_some()
}

fn player_index(p: tabula::game::Player) -> usize {
    p.index()
}

impl<G: View> Session for Live<G> {
    fn state(&self, since: Option<u64>, wait: Duration) -> Value {
        let until = Instant::now() + wait;
        let mut inner = self.shared.lock();
        while let Some(v) = since {
            let left = until.saturating_duration_since(Instant::now());
            if inner.version > v || left.is_zero() || inner.closed {
                break;
            }
            inner = match self.shared.changed.wait_timeout(inner, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        snapshot(&self.id, &inner, &self.engines)
    }

    fn play(&self, text: &str, replace: bool) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.matchplay.is_some() {
            return Err("a match is being played: the engines make the moves".into());
        }
        if let Some((_, why)) = inner.line.result() {
            return Err(format!("the game is over ({why})"));
        }
        let me = player_index(inner.line.pos.to_move());
        // Away from the end of the game, or analysing, a person may try either side's moves.
        let exploring = inner.settings.analyse || !inner.tree.is_leaf(inner.tree.cursor);
        if !inner.settings.human[me] && !exploring {
            return Err(format!(
                "it is the engine's turn ({} to move)",
                G::SIDES[me]
            ));
        }
        let mv = inner.line.pos.parse_human(text.trim())?;
        inner.play(mv, replace)?;
        inner.paused = false;
        self.shared.moved(&mut inner);
        Ok(())
    }

    fn undo(&self) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.matchplay.is_some() {
            return Err("a match is being played: no take-backs".into());
        }
        if inner.line.moves.is_empty() {
            return Err("there is no move to take back".into());
        }
        let human = inner.settings.human;
        loop {
            let at = inner.tree.cursor;
            inner.tree.remove(at);
            inner.line.undo();
            let me = player_index(inner.line.pos.to_move());
            if !(human[0] || human[1]) || human[me] || inner.line.moves.is_empty() {
                break;
            }
        }
        // With no person playing, the engines wait until told to go on.
        inner.paused = !(human[0] || human[1]);
        self.shared.moved(&mut inner);
        Ok(())
    }

    fn go_to(&self, node: usize) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.matchplay.is_some() {
            return Err("a match is being played: it shows the game as it goes".into());
        }
        if node == inner.tree.cursor {
            return Ok(());
        }
        if !inner.go_to(node) {
            return Err(format!("no position {node} in this game"));
        }
        // Stepping through a game with no one playing does not set the engines going.
        let h = inner.settings.human;
        inner.paused = !(h[0] || h[1]);
        self.shared.moved(&mut inner);
        Ok(())
    }

    fn promote(&self, node: usize) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.tree.node(node).is_none() {
            return Err(format!("no position {node} in this game"));
        }
        inner.tree.promote(node);
        self.shared.touch(&mut inner);
        Ok(())
    }

    fn remove(&self, node: usize) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.matchplay.is_some() {
            return Err("a match is being played: its moves stay".into());
        }
        if node == 0 || inner.tree.node(node).is_none() {
            return Err(format!("no move {node} to take out of this game"));
        }
        let before = inner.tree.cursor;
        inner.tree.remove(node);
        let after = inner.tree.cursor;
        if after != before {
            inner.go_to(after);
            inner.paused = true;
            self.shared.moved(&mut inner);
        } else {
            self.shared.touch(&mut inner);
        }
        Ok(())
    }

    fn review(&self, on: bool, ms: Option<u64>) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if on && inner.matchplay.is_some() {
            return Err("a match is being played: review it when it has ended".into());
        }
        if let Some(ms) = ms {
            if !(MOVETIME_RANGE.0..=MOVETIME_RANGE.1).contains(&ms) {
                return Err(format!(
                    "review time {ms} ms: expected {}..{}",
                    MOVETIME_RANGE.0, MOVETIME_RANGE.1
                ));
            }
            inner.review_ms = ms;
        }
        if on && !inner.review {
            // A new review searches every position again.
            let nodes: Vec<usize> = inner.tree.live().map(|(i, _)| i).collect();
            for i in nodes {
                if let Some(n) = inner.tree.node_mut(i) {
                    n.reviewed = false;
                }
            }
        }
        inner.review = on;
        inner.engine_error = None;
        self.shared.touch(&mut inner);
        Ok(())
    }

    fn load(&self, moves: &[(usize, String)]) -> Result<(), String> {
        let mut inner = self.shared.lock();
        let start = inner.line.start.clone();
        // Per record node: its tree node and its position.
        let mut at: Vec<(usize, G)> = vec![(0, start)];
        for (i, (parent, text)) in moves.iter().enumerate() {
            let Some((node, pos)) = at.get(*parent).cloned() else {
                return Err(format!("move {} has no position before it", i + 1));
            };
            let ply = inner.tree.ply(node) + 1;
            let number = |why: String| format!("ply {ply} ('{text}'): {why}");
            let mv = match pos.parse_human(text) {
                Ok(mv) => mv,
                Err(_) if matches!(text.as_str(), "pass" | "PA" | "--") => {
                    pos.parse_move("0000").map_err(number)?
                }
                Err(e) => pos.parse_move(text).map_err(|_| number(e))?,
            };
            let child = inner.tree.child(node, mv, false)?;
            let mut next = pos;
            next.play(mv);
            at.push((child, next));
        }
        let end = *inner.tree.line_through(0).last().unwrap_or(&0);
        inner.go_to(end);
        inner.paused = true;
        self.shared.moved(&mut inner);
        Ok(())
    }

    fn export(&self) -> Value {
        let inner = self.shared.lock();
        let names = [0, 1].map(|p| {
            if inner.settings.human[p] {
                "Human".to_string()
            } else {
                self.engines
                    .get(inner.settings.engines[p])
                    .map_or_else(String::new, |e| e.spec.name.clone())
            }
        });
        let (text, file) = records::export(&inner, &names);
        json!({ "text": text, "file": file })
    }

    fn settings(&self, s: Settings) -> Result<(), String> {
        if let Some(&e) = s.engines.iter().find(|&&e| e >= self.engines.len()) {
            return Err(format!("no engine {e} (there are {})", self.engines.len()));
        }
        if !(1..=MAX_MULTIPV).contains(&s.multipv) {
            return Err(format!("multipv {}: expected 1..{MAX_MULTIPV}", s.multipv));
        }
        if s.analyse && inner_is_match(&self.shared) {
            return Err("a match is being played: analyse it when it has ended".into());
        }
        if s.level > FULL_LEVEL {
            return Err(format!("level {}: expected 0..{FULL_LEVEL}", s.level));
        }
        if !(MOVETIME_RANGE.0..=MOVETIME_RANGE.1).contains(&s.movetime_ms) {
            return Err(format!(
                "movetime {} ms: expected {}..{}",
                s.movetime_ms, MOVETIME_RANGE.0, MOVETIME_RANGE.1
            ));
        }
        let mut inner = self.shared.lock();
        if inner.matchplay.is_some()
            && (s.human != [false, false] || s.engines != inner.settings.engines)
        {
            return Err("a match is being played: its engines and sides stay as they are".into());
        }
        let exact_changed = inner.settings.exact != s.exact;
        inner.settings = s;
        inner.paused = false;
        // A new engine (or the same one again) gets another chance after an error.
        inner.engine_error = None;
        if exact_changed {
            self.shared.exact_epoch.fetch_add(1, Relaxed);
            inner.exact.clear();
            inner.exact_state = ExactState::Off;
            inner.exact_gen = 0;
        }
        self.shared.touch(&mut inner);
        Ok(())
    }

    fn current_settings(&self) -> Settings {
        self.shared.lock().settings.clone()
    }

    fn move_now(&self) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.thinking.is_none() {
            return Err("the engine is not thinking".into());
        }
        inner.move_now = true;
        self.shared.touch(&mut inner);
        Ok(())
    }

    fn close(&self) {
        let mut inner = self.shared.lock();
        inner.closed = true;
        self.shared.closed.store(true, Relaxed);
        self.shared.touch(&mut inner);
    }
}

impl<G: View> Drop for Live<G> {
    fn drop(&mut self) {
        self.close();
    }
}

fn cells_json(cells: &[(u32, u32)]) -> Value {
    Value::Array(cells.iter().map(|&(r, c)| json!([r, c])).collect())
}

/// A move as people read it; Othello's pass is `pass`.
fn human_text<G: Game>(pos: &G, mv: G::Move) -> String {
    match pos.format_human(mv) {
        t if t == "0000" => "pass".into(),
        t => t,
    }
}

fn thinking_json(t: &Thinking) -> Value {
    json!({
        "side": t.side,
        "depth": t.depth,
        "seldepth": t.seldepth,
        "score": t.score,
        "nodes": t.nodes,
        "nps": t.nps,
        "time": t.time_ms,
        "pv": t.pv,
        "lines": t.lines.iter().map(|l| json!({
            "depth": l.depth, "score": l.score, "pv": l.pv,
        })).collect::<Vec<_>>(),
    })
}

/// The game's tree as the page lists and plots it: every node with its move in human
/// notation, its children (the first is the main continuation) and what is known of its
/// position (the engine's score and the solver's value, for player 1).
fn tree_json<G: View>(inner: &Inner<G>) -> Value {
    let tree = &inner.tree;
    let mut out = Vec::new();
    // Depth first from the start, each node's position at hand for its children's moves.
    let mut stack = vec![(0usize, inner.line.start.clone(), String::new(), 0usize)];
    while let Some((i, pos, text, ply)) = stack.pop() {
        let Some(n) = tree.node(i) else { continue };
        for &c in n.children.iter().rev() {
            let Some(mv) = tree.node(c).and_then(|k| k.mv) else {
                continue;
            };
            let mut next = pos.clone();
            next.play(mv);
            stack.push((c, next, human_text(&pos, mv), ply + 1));
        }
        out.push(json!({
            "id": i,
            "parent": n.parent,
            "children": n.children,
            "ply": ply,
            "text": text,
            "score": n.score.as_ref().map(|s| json!({
                "cp": s.cp, "mate": s.mate, "depth": s.depth, "text": s.text,
            })),
            "exact": n.exact.as_ref().map(|e| json!({ "value": e.value, "label": e.label })),
            "reviewed": n.reviewed,
        }));
    }
    Value::Array(out)
}

/// The state the page draws: the board, the legal moves with their cells, the last move and
/// what it changed, the result, the engine and the solver.
fn snapshot<G: View>(id: &str, inner: &Inner<G>, engines: &[EngineChoice]) -> Value {
    let line = &inner.line;
    let pos = &line.pos;
    let result = line.result();
    let mut legal = Vec::new();
    if result.is_none() {
        pos.legal_moves(&mut legal);
    }
    let moves: Vec<Value> = legal
        .iter()
        .map(|&m| {
            let uci = pos.format_move(m);
            json!({
                "uci": uci,
                "text": human_text(pos, m),
                "cells": cells_json(&pos.move_cells(m)),
                "pass": uci == "0000",
            })
        })
        .collect();
    let last = line.moves.last().map(|&mv| {
        let mut before = line.start.clone();
        for &m in &line.moves[..line.moves.len() - 1] {
            before.play(m);
        }
        let placed = before.move_cells(mv);
        let grid = grid_of_fen(&before.fen());
        let other: Vec<(u32, u32)> = changed(&grid, &grid_of_fen(&pos.fen()))
            .into_iter()
            .filter(|c| !placed.contains(c))
            .collect();
        // What the cells held before the move (a captured piece, a flipped disc).
        let was: Vec<&str> = placed
            .iter()
            .chain(&other)
            .map(|&(r, c)| {
                grid.get(r as usize)
                    .and_then(|row| row.get(c as usize))
                    .map_or("", String::as_str)
            })
            .collect();
        json!({
            "uci": before.format_move(mv),
            "text": human_text(&before, mv),
            "by": player_index(before.to_move()),
            "cells": cells_json(&placed),
            "changed": cells_json(&other),
            "was": was,
        })
    });
    let mut history = Vec::new();
    let mut p = line.start.clone();
    for &m in &line.moves {
        history.push(human_text(&p, m));
        p.play(m);
    }
    let result = result.map(|(r, why)| {
        json!({
            "winner": match r {
                GameResult::P1Win => json!(0),
                GameResult::P2Win => json!(1),
                GameResult::Draw => Value::Null,
            },
            "text": result_text(Some(r)),
            "reason": why,
        })
    });
    let to_move = player_index(pos.to_move());
    let cells = G::cells(line);
    // The engine shown: the one to move, else the one whose report is on show, else the one
    // that plays the other side.
    let engine_of = |p: usize| engines.get(inner.settings.engines[p]);
    let reported = inner.thinking.as_ref().or(inner.last_thinking.as_ref());
    let shown = if result.is_none() && !inner.settings.human[to_move] {
        to_move
    } else if let Some(t) = reported.filter(|t| t.side < 2) {
        t.side
    } else {
        1 - to_move
    };
    let engine = engine_of(shown);
    let name = |p: usize| engine_of(p).map_or("", |e| e.spec.name.as_str());
    json!({
        "id": id,
        "version": inner.version,
        "game": G::NAME,
        "sides": G::SIDES,
        "input": G::INPUT,
        "rows": cells.len(),
        "cols": cells.first().map_or(0, |r| r.len()),
        "cells": cells,
        "fen": pos.fen(),
        "start_fen": line.start.fen(),
        "to_move": to_move,
        "moves": moves,
        "history": history,
        "tree": tree_json(inner),
        "cursor": inner.tree.cursor,
        "line": inner.tree.line_through(inner.tree.cursor),
        "can_move": result.is_none() && inner.matchplay.is_none() && (
            inner.settings.human[to_move]
                || inner.settings.analyse
                || !inner.tree.is_leaf(inner.tree.cursor)),
        "review": {
            "on": inner.review,
            "ms": inner.review_ms,
        },
        "last": last,
        "result": result,
        "settings": {
            "human": inner.settings.human,
            "movetime": inner.settings.movetime_ms,
            "engine": inner.settings.engines[shown],
            "engines": inner.settings.engines,
            "level": inner.settings.level,
            "exact": inner.settings.exact,
            "analyse": inner.settings.analyse,
            "multipv": inner.settings.multipv,
        },
        "players": [name(0), name(1)],
        "match": inner.matchplay.as_ref().map(|m| {
            let a = engines.get(m.pair[0]).map_or("", |e| e.spec.name.as_str());
            let b = engines.get(m.pair[1]).map_or("", |e| e.spec.name.as_str());
            m.json([a, b])
        }),
        "engine": {
            "name": engine.map_or("", |e| e.spec.name.as_str()),
            "builtin": engine.is_some_and(|e| e.builtin),
            "thinking": inner.thinking.is_some(),
            "error": inner.engine_error,
            "paused": inner.paused,
            "info": inner.thinking.as_ref().or(inner.last_thinking.as_ref()).map(thinking_json),
            "note": inner.thinking.as_ref().or(inner.last_thinking.as_ref()).and_then(|t| t.note.clone()),
        },
        "exact": {
            "state": match inner.exact_state {
                ExactState::Off => "off",
                ExactState::Running => "running",
                ExactState::Done => "done",
                ExactState::Stopped => "stopped",
            },
            "moves": inner.exact.iter().map(|v| json!({
                "uci": v.mv, "value": v.value, "label": v.label,
            })).collect::<Vec<_>>(),
        },
    })
}
