//! The NBoard side of a session beyond one search: the game as NBoard gave it (the GGF's
//! start, then every move), so that `learn` can add it to the opening book and `analyze`
//! can value each of its positions (retrograde, from the end), and the book's lines for
//! `hint`. The analysis runs on a thread of its own; any command that changes the position
//! (or `ping`) stops it first, so no `analysis` line is sent after the `pong`.
//!
//! Conventions (NBoard protocol 2): `analysis <movesMade> <eval>` with movesMade 0 for the
//! start and passes counted; the eval is from Black's point of view, in discs, as NBoard's
//! own graph plots the game's evaluations. `book <move> <eval> <games> <depth>` evals are for
//! the side to move.

use super::Output;
use super::nboard::{eval_discs, move_text};
use crate::engine::Engine;
use crate::game::{Game, Player};
use crate::search::{Control, Limits};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The depth at which `learn` values the positions new to the book.
const LEARN_DEPTH: u32 = 10;

pub struct NbGame<G: Game> {
    /// The game's start and its moves, as NBoard sent them.
    start: Option<G>,
    moves: Vec<G::Move>,
    analysis: Option<Analysis>,
}

/// A running analysis: its stop flag, the search it is in, its thread.
struct Analysis {
    stop: Arc<AtomicBool>,
    search: Arc<Mutex<Option<Arc<Control>>>>,
    handle: JoinHandle<()>,
}

impl<G: Game> Default for NbGame<G> {
    fn default() -> Self {
        NbGame {
            start: None,
            moves: Vec::new(),
            analysis: None,
        }
    }
}

impl<G: Game> NbGame<G> {
    /// A new game from `set game`: its start and moves (already checked by the engine).
    pub fn set(&mut self, start: G, moves: &[String]) {
        self.stop();
        let mut pos = start.clone();
        self.moves.clear();
        for m in moves {
            match pos.parse_move(m) {
                Ok(mv) => {
                    self.moves.push(mv);
                    pos.play(mv);
                }
                Err(_) => break,
            }
        }
        self.start = Some(start);
    }

    /// A move played on the current position (`move`), `pos` being the position before it.
    pub fn push(&mut self, pos: &G, text: &str) {
        self.stop();
        if let Ok(mv) = pos.parse_move(text) {
            self.moves.push(mv);
        }
    }

    /// Stops a running analysis and waits for it.
    pub fn stop(&mut self) {
        if let Some(a) = self.analysis.take() {
            a.stop.store(true, Relaxed);
            if let Some(c) = a.search.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                c.stop.store(true, Relaxed);
            }
            let _ = a.handle.join();
        }
    }

    /// `book` lines for up to `n` of the book's moves here; the number sent.
    pub fn book_lines(pos: &G, n: usize, out: &Output) -> usize {
        let moves = pos.book_moves();
        for b in moves.iter().take(n) {
            out.line(&format!(
                "book {} {:.2} {} {}",
                move_text(pos, b.mv),
                eval_discs(b.score),
                b.games,
                b.depth
            ));
        }
        moves.len().min(n)
    }

    /// `learn`: the game into the book; the line to send back to NBoard.
    pub fn learn(&mut self, hash_mib: usize) -> Result<usize, String> {
        self.stop();
        let start = self.start.clone().ok_or("learn: no game was set")?;
        let mut engine = Engine::new(start.clone());
        engine.set_option("Hash", Some(&hash_mib.to_string()))?;
        let mut eval = |p: &G| {
            engine.set_root(p.clone());
            let r = engine.search_now(Limits::depth(LEARN_DEPTH), &|_| {});
            (r.score, r.depth)
        };
        start.book_learn(&self.moves, &mut eval)
    }

    /// `analyze`: every position of the game valued from the last to the first, on a thread;
    /// `status` when done.
    pub fn analyze(&mut self, depth: u32, out: Output) -> Result<(), String> {
        self.stop();
        let start = self.start.clone().ok_or("analyze: no game was set")?;
        let mut positions = vec![start.clone()];
        let mut pos = start;
        for &m in &self.moves {
            pos.play(m);
            positions.push(pos.clone());
        }
        let flag = Arc::new(AtomicBool::new(false));
        let stop = flag.clone();
        let current: Arc<Mutex<Option<Arc<Control>>>> = Arc::new(Mutex::new(None));
        let slot = current.clone();
        let handle = std::thread::Builder::new()
            .name("nboard-analyze".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let mut engine = Engine::new(positions[0].clone());
                out.line("status tabula is analyzing the game");
                for (made, p) in positions.iter().enumerate().rev() {
                    if stop.load(Relaxed) {
                        return;
                    }
                    engine.set_root(p.clone());
                    let limits = Limits {
                        allow_solver: true,
                        ..Limits::depth(depth)
                    };
                    let ctrl = Arc::new(Control::new(&limits, p.to_move(), 0));
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(ctrl.clone());
                    // Stopped between the check above and the slot: stop this search too.
                    if stop.load(Relaxed) {
                        return;
                    }
                    let eval = engine.search_controlled(limits, &ctrl, &|_| {}).score;
                    if stop.load(Relaxed) {
                        return;
                    }
                    let black = if p.to_move() == Player::P1 { 1 } else { -1 };
                    out.line(&format!("analysis {made} {:.2}", eval_discs(black * eval)));
                }
                out.line("status");
            })
            .map_err(|e| format!("analyze: cannot start a thread: {e}"))?;
        self.analysis = Some(Analysis {
            stop: flag,
            search: current,
            handle,
        });
        Ok(())
    }
}
