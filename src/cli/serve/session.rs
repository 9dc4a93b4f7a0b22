//! One game in the browser (a session): the game (its tree: moves, variations, the position
//! on show, take-back, records in and out), who plays which side, analysis and review, the
//! engine's latest thinking and the exact move values. The engine (`engine.rs`) and the solver
//! (`move_values.rs`) each work on a thread of their own that wakes when the position changes;
//! `Session` is the object-safe face the HTTP layer talks to; what the page reads of it is
//! written by `snapshot.rs` and sent as the messages of `events.rs`. What the session and its
//! workers share (`SharedGame`, holding the `GameState` under its lock) lives below them all,
//! in `state.rs`.

use super::board::{View, human_text};
use super::engine::{self, EngineChoice};
use super::events::{Cache, Event};
use super::matchscore::MatchPlay;
use super::move_values;
use super::records;
use super::state::{
    ExactState, FULL_LEVEL, Feed, GameState, Loaded, MAX_MULTIPV, MOVETIME_RANGE, Settings,
    SharedGame,
};
use super::tree::Tree;

use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};
use tabula::record::GameLine;
use tokio::sync::watch;

/// A session as the HTTP layer sees it.
pub trait Session: Send + Sync {
    /// The versions of the state as they change, and whether the session is closed.
    fn feed(&self) -> watch::Receiver<Feed>;
    /// The next message for a stream that was last sent the state of `sent_major` (None:
    /// the whole state).
    fn event(&self, sent_major: Option<u64>) -> Event;
    /// The version of the state now.
    fn version(&self) -> u64;
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
    /// `moves[i].0`, 0 the start), checked with the game's rules, with their comments and
    /// NAGs; keeps its tags and result for the export; the main line's end is shown.
    fn load(&self, record: &records::Imported) -> Result<(), String>;
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

/// The session of a game of type `G` (what the HTTP layer holds as a `dyn Session`).
pub struct GameSession<G: View> {
    id: String,
    shared: Arc<SharedGame<G>>,
    engines: Arc<Vec<EngineChoice>>,
    /// The latest messages of the event streams (locked after `shared`'s lock).
    cache: Mutex<Cache>,
}

impl<G: View> GameSession<G> {
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
    ) -> Result<GameSession<G>, String> {
        let shared = Arc::new(SharedGame {
            state: Mutex::new(GameState {
                line: GameLine::new(start),
                tree: Tree::new(),
                review: false,
                review_ms: REVIEW_MS,
                standard,
                settings,
                version: 1,
                major: 1,
                live_nodes: Default::default(),
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
                loaded: None,
            }),
            changed: Condvar::new(),
            feed: tokio::sync::watch::Sender::new(Feed {
                version: 1,
                major: 1,
                closed: false,
            }),
            generation: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            exact_epoch: AtomicU64::new(0),
        });
        // Made before the threads: dropped on an error, it closes the session, which ends
        // a thread already started.
        let session = GameSession {
            id,
            shared,
            engines,
            cache: Mutex::new(Cache::default()),
        };
        let cannot = |e: std::io::Error| format!("cannot start the game's threads: {e}");
        let (s, e) = (session.shared.clone(), session.engines.clone());
        std::thread::Builder::new()
            .spawn(move || engine::run(s, e, tabula_args))
            .map_err(cannot)?;
        let s = session.shared.clone();
        std::thread::Builder::new()
            .spawn(move || move_values::run(s))
            .map_err(cannot)?;
        Ok(session)
    }
}

fn is_match<G: View>(shared: &SharedGame<G>) -> bool {
    shared.lock().matchplay.is_some()
}

impl<G: View> Session for GameSession<G> {
    fn feed(&self) -> watch::Receiver<Feed> {
        self.shared.feed.subscribe()
    }

    fn event(&self, sent_major: Option<u64>) -> Event {
        // The feed is published under the state's lock, with the version the state has.
        let feed = *self.shared.feed.borrow();
        let made = self.cache.lock().unwrap_or_else(|e| e.into_inner()).made(
            feed.version,
            feed.major,
            sent_major,
        );
        if let Some(e) = made {
            return e;
        }
        let inner = self.shared.lock();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.event(&self.id, &inner, &self.engines, sent_major)
    }

    fn version(&self) -> u64 {
        self.shared.lock().version
    }

    fn play(&self, text: &str, replace: bool) -> Result<(), String> {
        let mut inner = self.shared.lock();
        if inner.matchplay.is_some() {
            return Err("a match is being played: the engines make the moves".into());
        }
        if let Some((_, why)) = inner.line.result() {
            return Err(format!("the game is over ({why})"));
        }
        let me = inner.line.pos.to_move().index();
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
            let me = inner.line.pos.to_move().index();
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
        // The engine's last report was of another position.
        inner.last_thinking = None;
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

    fn load(&self, record: &records::Imported) -> Result<(), String> {
        let moves = &record.moves;
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
            let child = inner.tree.child(node, mv, false, || human_text(&pos, mv))?;
            let mut next = pos;
            next.play(mv);
            at.push((child, next));
        }
        for (i, (node, _)) in at.iter().enumerate() {
            if let Some(n) = inner.tree.node_mut(*node) {
                n.comment = record.comments.get(i).cloned().unwrap_or_default();
                n.nags = record.nags.get(i).cloned().unwrap_or_default();
            }
        }
        let end = *inner.tree.line_through(0).last().unwrap_or(&0);
        inner.loaded = Some(Loaded {
            tags: record.tags.clone(),
            result: record.result,
            end,
        });
        inner.go_to(end);
        inner.paused = true;
        self.shared.moved(&mut inner);
        Ok(())
    }

    fn export(&self) -> Value {
        let inner = self.shared.lock();
        let names = [0, 1].map(|p| {
            let tag = [["White", "P1"], ["Black", "P2"]][p]
                .into_iter()
                .find_map(|k| inner.loaded.as_ref().and_then(|l| l.tag(k)));
            if let Some(name) = tag {
                name.to_string()
            } else if inner.settings.human[p] {
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
        if s.analyse && is_match(&self.shared) {
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

impl<G: View> Drop for GameSession<G> {
    fn drop(&mut self) {
        self.close();
    }
}
