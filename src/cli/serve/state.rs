//! The state a browser session shares with its workers: the game (its tree of moves and
//! variations, `tree.rs`, and the line to the position on show), the settings, the engine's
//! thinking, the exact move values, the match being watched, and the lock and wake-up around
//! them: `GameState`, the state under the lock, and `SharedGame`, which the session and its
//! threads each hold (that lock, the wake-ups, and what must be read without the lock).
//! `GameState::line` is always the tree's path to its cursor: only `GameState::go_to`,
//! `GameState::play` and `GameState::restart` change either. The session (`session.rs`) and
//! its workers (`engine.rs`, `move_values.rs`, `matchplay.rs`) all import it from here; it
//! imports none of them.
//!
//! Every change the page should see bumps `GameState::version` and is published on the session's
//! `watch` channel (`SharedGame::feed`), which the event streams of the HTTP side wait on: a
//! burst of changes is read as the latest one. A change of the engine's report, the solver's
//! values or a node's score is a small one (`SharedGame::touch_live`: `major` stays, the node goes
//! to `live_nodes`); any other (`SharedGame::touch`, `SharedGame::moved`) sets `major` to the new
//! version and the page is sent the whole state again.

use super::board::{MoveValue, View, human_text};
use super::matchscore::MatchPlay;
use super::tree::Tree;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Condvar, Mutex, MutexGuard};
use tabula::record::GameLine;
use tokio::sync::watch;

/// The shortest and longest time per move the page may ask for, in ms.
pub const MOVETIME_RANGE: (u64, u64) = (10, 600_000);
/// Levels the page offers (tabula's `Skill`): 0 the weakest, `FULL_LEVEL` full strength.
pub const FULL_LEVEL: u8 = 20;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Which players people play (player 1, player 2); the engine plays the others.
    pub human: [bool; 2],
    pub movetime_ms: u64,
    /// The engine of each player where no person plays it (indices into the server's engines).
    pub engines: [usize; 2],
    /// tabula's strength (`Skill`), 0..=FULL_LEVEL; other engines play at their own.
    pub level: u8,
    /// Whether the solver works out the exact value of every move.
    pub exact: bool,
    /// Analysis: the engine thinks on the position on show without playing, `multipv` lines.
    pub analyse: bool,
    pub multipv: u8,
}

/// The most lines the analysis shows.
pub const MAX_MULTIPV: u8 = 5;

/// What the solver thread knows about the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExactState {
    /// Turned off, or the game has no solver for this position.
    Off,
    Running,
    Done,
    /// Ran out of time: the values found so far stand.
    Stopped,
}

/// A browser game's state, under `SharedGame`'s lock: everything the page is shown.
pub struct GameState<G: View> {
    /// The moves from the start to the position on show (the tree's path to its cursor).
    pub line: GameLine<G>,
    /// Every move made in this game, variations included.
    pub tree: Tree<G::Move>,
    /// The engine is going through the line on show, giving every position a score.
    pub review: bool,
    /// Time per position of the review, in ms.
    pub review_ms: u64,
    /// The game's usual start on this board (sent as `startpos`).
    pub standard: G,
    pub settings: Settings,
    /// Bumped on every change the page should see.
    pub version: u64,
    /// The version of the last change that was not a small one (the page needs the whole
    /// state again).
    pub major: u64,
    /// The tree nodes whose score, exact value or review mark changed since `major`.
    pub live_nodes: BTreeSet<usize>,
    /// Bumped on every change of the position (a move, a take-back).
    pub generation: u64,
    /// The engine waits (after a take-back when no one plays).
    pub paused: bool,
    /// The engine's current search, if it is thinking.
    pub thinking: Option<Thinking>,
    /// The last search's final report, kept when it has moved.
    pub last_thinking: Option<Thinking>,
    pub engine_error: Option<String>,
    /// The engine was asked to move at once.
    pub move_now: bool,
    pub exact: Vec<MoveValue>,
    pub exact_state: ExactState,
    /// The generation the solver last took up.
    pub exact_gen: u64,
    pub closed: bool,
    /// The match being watched, if this session is one.
    pub matchplay: Option<MatchPlay>,
    /// Bumped when a new game begins in the same session (engines get `ucinewgame`).
    pub game_number: u64,
    /// The record this game was loaded from, if it was.
    pub loaded: Option<Loaded>,
}

/// What a loaded record says beyond its moves (each move's comment and NAGs are in the tree).
#[derive(Clone, Debug)]
pub struct Loaded {
    /// Its tags, written back out by the export.
    pub tags: Vec<(String, String)>,
    /// Its result, which stands while its main line's last position is the main line's.
    pub result: Option<tabula::game::GameResult>,
    /// The tree node of its main line's last position.
    pub end: usize,
}

impl Loaded {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the session's watch channel carries: the latest versions, and whether it is closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Feed {
    pub version: u64,
    pub major: u64,
    pub closed: bool,
}

/// What the session and its threads share (each holds an `Arc` of it): the game's state under
/// its lock, and the signals around it.
pub struct SharedGame<G: View> {
    pub state: Mutex<GameState<G>>,
    /// Wakes the session's worker threads on every change.
    pub changed: Condvar,
    /// The versions, for the event streams.
    pub feed: watch::Sender<Feed>,
    /// `GameState::generation` and `GameState::closed`, readable without the lock (for the
    /// solver's abort test).
    pub generation: AtomicU64,
    pub closed: AtomicBool,
    /// Bumped when the exact values are turned on or off (stops the solver's work).
    pub exact_epoch: AtomicU64,
}

impl<G: View> GameState<G> {
    /// Shows tree node `node` (the line rebuilt from the start); false if it is not there.
    pub fn go_to(&mut self, node: usize) -> bool {
        if self.tree.node(node).is_none() {
            return false;
        }
        self.tree.cursor = node;
        let mut line = GameLine::new(self.line.start.clone());
        for mv in self.tree.moves_to(node) {
            line.play(mv);
        }
        self.line = line;
        true
    }

    /// Plays `mv` (legal in the position on show): to the existing node of that move, else a
    /// new continuation or variation; `replace` drops the other continuations first.
    pub fn play(&mut self, mv: G::Move, replace: bool) -> Result<(), String> {
        let pos = &self.line.pos;
        let at = self
            .tree
            .child(self.tree.cursor, mv, replace, || human_text(pos, mv))?;
        self.tree.cursor = at;
        self.line.play(mv);
        Ok(())
    }

    /// A new game from `start`: an empty tree.
    pub fn restart(&mut self, start: G) {
        self.line = GameLine::new(start);
        self.tree = Tree::new();
        self.review = false;
        self.loaded = None;
    }
}

impl<G: View> SharedGame<G> {
    pub fn lock(&self) -> MutexGuard<'_, GameState<G>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks a change the page should see and wakes every waiter.
    pub fn touch(&self, inner: &mut GameState<G>) {
        inner.version += 1;
        inner.major = inner.version;
        inner.live_nodes.clear();
        self.publish(inner);
    }

    /// Marks a small change: the engine's report, the solver's values, the score, exact value
    /// or review mark of tree node `node`.
    pub fn touch_live(&self, inner: &mut GameState<G>, node: Option<usize>) {
        inner.version += 1;
        if let Some(n) = node {
            inner.live_nodes.insert(n);
        }
        self.publish(inner);
    }

    fn publish(&self, inner: &GameState<G>) {
        self.feed.send_replace(Feed {
            version: inner.version,
            major: inner.major,
            closed: inner.closed,
        });
        self.changed.notify_all();
    }

    /// Marks a change of the position: the search and the values of the old one are void.
    pub fn moved(&self, inner: &mut GameState<G>) {
        inner.generation += 1;
        self.generation.store(inner.generation, Relaxed);
        if let Some(t) = inner.thinking.take() {
            inner.last_thinking = Some(t);
        }
        inner.exact.clear();
        // Where the solver will take the new position up, say so now: not "no values here"
        // until it does.
        let solving = inner.settings.exact
            && inner.line.result().is_none()
            && inner.line.pos.exact_possible();
        inner.exact_state = if solving {
            ExactState::Running
        } else {
            ExactState::Off
        };
        inner.move_now = false;
        self.touch(inner);
    }
}

/// The engine's latest report in a search.
#[derive(Clone, Debug, Default)]
pub struct Thinking {
    /// The player the engine searches for (its scores are from this side).
    pub side: usize,
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// As people read it: `+0.35` (pawns), `#3` (chess mate in moves), `mate 5` (plies).
    pub score: Option<String>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time_ms: Option<u64>,
    /// The principal variation in human notation (chess: SAN), as far as it is legal.
    pub pv: Vec<String>,
    /// The latest `info string`.
    pub note: Option<String>,
    /// The score as a number, from `side`'s point of view: centi-units, or a forced result
    /// in moves (chess) or plies (positive: `side` wins).
    pub cp: Option<i64>,
    pub mate: Option<i64>,
    /// With MultiPV: every line's latest report (index 0 is `multipv 1`).
    pub lines: Vec<PvLine>,
}

/// One line of a MultiPV search.
#[derive(Clone, Debug, Default)]
pub struct PvLine {
    pub depth: Option<u32>,
    pub score: Option<String>,
    pub pv: Vec<String>,
}
