//! The games open on this server, over all tabs: made (`POST /api/new`), found by id, closed,
//! and closed when nobody has asked about them, nor watched them, for `IDLE`; and the POST
//! actions on a game. Plain blocking code: the HTTP side (`http/`) calls it off its event
//! loop. Invariants: at most `max_games` games are open or being opened; a game's id is not
//! guessable from another's; an answer to an action is its outcome (the game's id and the
//! version its state has after it), never the state itself, which the game's event stream
//! sends.

use super::engine::EngineChoice;
use super::games;
use super::matchplay;
use super::session::Session;
use super::state;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A game nobody asked about or watched for this long is closed.
const IDLE: Duration = Duration::from_secs(15 * 60);

/// An error answer: the HTTP status and why.
pub type Failure = (u16, String);

pub fn bad(why: impl Into<String>) -> Failure {
    (400, why.into())
}

struct Entry {
    session: Arc<dyn Session>,
    used: Instant,
    /// Event streams open on the game (it does not expire while one is).
    watchers: Arc<AtomicUsize>,
}

pub struct Registry {
    engines: Arc<Vec<EngineChoice>>,
    sessions: Mutex<HashMap<String, Entry>>,
    max_games: usize,
    default_game: &'static str,
    ids: AtomicU64,
    /// Games being started (counted against `max_games` before they are in `sessions`, so
    /// that requests at once cannot open more).
    opening: AtomicUsize,
    seed: std::collections::hash_map::RandomState,
}

/// An open event stream on a game: counted while it lives.
pub struct Watch {
    count: Arc<AtomicUsize>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Relaxed);
    }
}

impl Registry {
    pub fn new(
        engines: Vec<EngineChoice>,
        max_games: usize,
        default_game: &'static str,
    ) -> Registry {
        Registry {
            engines: Arc::new(engines),
            sessions: Mutex::new(HashMap::new()),
            max_games,
            default_game,
            ids: AtomicU64::new(1),
            opening: AtomicUsize::new(0),
            seed: Default::default(),
        }
    }

    pub fn config(&self) -> Value {
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

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn session(&self, id: &str) -> Result<Arc<dyn Session>, Failure> {
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

    /// The game, with a token that counts an event stream open on it until dropped.
    pub fn watch(&self, id: &str) -> Result<(Arc<dyn Session>, Watch), Failure> {
        let session = self.session(id)?;
        let mut sessions = self.lock();
        let count = sessions
            .get_mut(id)
            .map(|e| e.watchers.clone())
            .ok_or_else(|| (404, format!("no game '{id}' (closed)")))?;
        count.fetch_add(1, Relaxed);
        Ok((session, Watch { count }))
    }

    /// Closes the games nobody has asked about, nor watched, for `IDLE`.
    pub fn expire(&self) {
        let gone: Vec<Arc<dyn Session>> = {
            let mut sessions = self.lock();
            for e in sessions.values_mut() {
                if e.watchers.load(Relaxed) > 0 {
                    e.used = Instant::now();
                }
            }
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

    fn open(&self, body: &Value) -> Result<Value, Failure> {
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
        let version = session.version();
        let mut sessions = self.lock();
        self.opening.fetch_sub(1, Relaxed);
        sessions.insert(
            id.clone(),
            Entry {
                session,
                used: Instant::now(),
                watchers: Arc::new(AtomicUsize::new(0)),
            },
        );
        Ok(json!({ "id": id, "version": version }))
    }

    /// `POST /api/<action>` with its JSON body: the outcome.
    pub fn post(&self, action: &str, body: &Value) -> Result<Value, Failure> {
        if action == "new" {
            return self.open(body);
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
            "export" => return Ok(session.export()),
            "undo" => session.undo().map_err(bad)?,
            "stop" => session.move_now().map_err(bad)?,
            "settings" => {
                let s = games::settings_from(body, session.current_settings()).map_err(bad)?;
                session.settings(s).map_err(bad)?;
            }
            "close" => {
                self.close(id);
                return Ok(json!({ "closed": id }));
            }
            _ => return Err((404, format!("no action '{action}'"))),
        }
        Ok(json!({ "id": id, "version": session.version() }))
    }

    pub fn close(&self, id: &str) {
        let gone = self.lock().remove(id);
        if let Some(e) = gone {
            e.session.close();
        }
    }
}
