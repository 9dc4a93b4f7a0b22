//! The engine of a browser session: a UCI/UGI process driven with `tabula match`'s own
//! `arena::child` (handshake, lines on a channel, deadlines, kill), on a thread that wakes
//! when the engine is to move, sends `position` and `go movetime`, turns the `info` lines
//! into the thinking the page shows, and plays the `bestmove` after checking it with the
//! game's rules. A take-back or a closed session stops the search and drops its move.
//! Each side may have its own engine (a match, `matchplay.rs`): up to two processes run, one
//! per engine in use; tabula itself is told the session's level (`Skill`) before it searches.

use super::board::View;
use super::matchplay;
use super::state::{FULL_LEVEL, GameState, SharedGame, Thinking};
use super::thinking::read_info;
use super::tree::Score;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tabula::arena::child::{Child, EngineSpec, Got, Proto};
use tabula::game::Game;
use tabula::record::GameLine;

/// Time for the handshake of a starting engine.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// Time past the move's own an engine may take before it is stopped, and after `stop`.
const GRACE: Duration = Duration::from_secs(5);

/// An engine the page can choose.
#[derive(Clone, Debug)]
pub struct EngineChoice {
    pub spec: EngineSpec,
    /// tabula itself: it gets the session's game on its command line.
    pub builtin: bool,
}

/// Why the engine searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// For its move in the game: played when it comes.
    Play,
    /// Analysis of the position on show (`go infinite`, MultiPV): never played.
    Analyse,
    /// The game review: a score for one position of the line on show.
    Review,
}

/// What the engine is asked to do.
struct Job<G: Game> {
    kind: Kind,
    generation: u64,
    /// The tree node searched.
    node: usize,
    engine: usize,
    /// The engines the session uses now (others are quit).
    in_use: [usize; 2],
    level: u8,
    multipv: u8,
    game_number: u64,
    pos: G,
    position: String,
    go: String,
}

/// The first position of the line on show the review has not searched (game ends skipped).
fn next_review<G: View>(inner: &GameState<G>) -> Option<(usize, GameLine<G>)> {
    let mut line = GameLine::new(inner.line.start.clone());
    for (k, node) in inner
        .tree
        .line_through(inner.tree.cursor)
        .into_iter()
        .enumerate()
    {
        let n = inner.tree.node(node)?;
        if k > 0 {
            line.play(n.mv?);
        }
        if !n.reviewed && line.result().is_none() {
            return Some((node, line));
        }
    }
    None
}

/// The search the engine should run now, if any.
fn wanted<G: View>(inner: &GameState<G>) -> Option<Job<G>> {
    if inner.closed || inner.paused || inner.engine_error.is_some() {
        return None;
    }
    let s = &inner.settings;
    let free = inner.matchplay.is_none();
    let cursor = inner.tree.cursor;
    let (kind, node, line) = if s.analyse && free {
        (Kind::Analyse, cursor, inner.line.clone())
    } else if inner.review && free {
        let (node, line) = next_review(inner)?;
        (Kind::Review, node, line)
    } else {
        // The engine plays only at the end of a line: stepping back is not taking back.
        let me = inner.line.pos.to_move().index();
        if s.human[me] || !inner.tree.is_leaf(cursor) {
            return None;
        }
        (Kind::Play, cursor, inner.line.clone())
    };
    if line.result().is_some() {
        return None;
    }
    let start = if line.start.fen() == inner.standard.fen() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", line.start.fen())
    };
    let moves = line.protocol_moves();
    let position = if moves.is_empty() {
        start
    } else {
        format!("{start} moves {}", moves.join(" "))
    };
    let me = line.pos.to_move().index();
    Some(Job {
        kind,
        generation: inner.generation,
        node,
        engine: s.engines[me],
        in_use: s.engines,
        level: s.level,
        multipv: if kind == Kind::Analyse { s.multipv } else { 1 },
        game_number: inner.game_number,
        pos: line.pos.clone(),
        position,
        go: match kind {
            Kind::Play => format!("go movetime {}", s.movetime_ms),
            Kind::Analyse => "go infinite".into(),
            Kind::Review => format!("go movetime {}", inner.review_ms),
        },
    })
}

/// Whether the search of `job` is still wanted.
fn still_wanted<G: View>(inner: &GameState<G>, job: &Job<G>) -> bool {
    let me = job.pos.to_move().index();
    let s = &inner.settings;
    if inner.closed || s.engines[me] != job.engine {
        return false;
    }
    match job.kind {
        // The position changed, or the engine no longer plays this side (a person took it
        // over, analysis began): its move is not wanted.
        Kind::Play => inner.generation == job.generation && !s.human[me] && !s.analyse,
        Kind::Analyse => {
            inner.generation == job.generation && s.analyse && s.multipv == job.multipv
        }
        Kind::Review => inner.review && !s.analyse && inner.tree.node(job.node).is_some(),
    }
}

/// Keeps the engine's latest score of a searched position in its tree node, for player 1.
fn keep_score<G: View>(inner: &mut GameState<G>, node: usize, t: &Thinking, chess: bool) {
    let (Some(depth), true) = (t.depth, t.cp.is_some() || t.mate.is_some()) else {
        return;
    };
    let sign = if t.side == 0 { 1 } else { -1 };
    let cp = t.cp.map(|v| v * sign);
    let mate = t.mate.map(|v| v * sign);
    let text = match (cp, mate) {
        (Some(cp), _) => format!("{:+.2}", cp as f64 / 100.0),
        (None, Some(m)) if chess => format!("#{m}"),
        (None, Some(m)) if m >= 0 => format!("win in {m}"),
        (None, Some(m)) => format!("loss in {}", -m),
        (None, None) => return,
    };
    if let Some(n) = inner.tree.node_mut(node) {
        n.score = Some(Score {
            cp,
            mate,
            depth,
            text,
        });
    }
}

/// A running engine process and what it has been told.
struct Running {
    engine: usize,
    child: Child,
    proto: Proto,
    builtin: bool,
    /// The `Skill` it was last given (tabula only).
    level: u8,
    /// The session's game it last searched (a new one gets `ucinewgame`).
    game_number: u64,
    /// The `MultiPV` it was last given.
    multipv: u8,
    /// It was told the variant (`UCI_Chess960`).
    variant: bool,
}

/// Starts engine `index` for the session.
fn start_engine(
    engines: &[EngineChoice],
    index: usize,
    tabula_args: &[String],
    proto_default: Proto,
    game_number: u64,
) -> Result<Running, String> {
    let choice = engines
        .get(index)
        .ok_or_else(|| format!("no engine {index}"))?;
    let mut spec = choice.spec.clone();
    if choice.builtin {
        spec.args.extend(tabula_args.iter().cloned());
    }
    let proto = spec.proto.unwrap_or(proto_default);
    let mut c = Child::start(&spec, proto, START_TIMEOUT)?;
    c.send(newgame(proto))?;
    c.sync(Instant::now() + START_TIMEOUT)?;
    Ok(Running {
        engine: index,
        child: c,
        proto,
        builtin: choice.builtin,
        level: FULL_LEVEL,
        game_number,
        multipv: 1,
        variant: false,
    })
}

fn newgame(proto: Proto) -> &'static str {
    if proto == Proto::Uci {
        "ucinewgame"
    } else {
        "uginewgame"
    }
}

/// Brings a running engine up to the job: a new game announced, tabula's level set.
fn prepare<G: View>(r: &mut Running, job: &Job<G>) -> Result<(), String> {
    let mut sync = false;
    if job.pos.variant() == Some("Chess960") && !r.variant {
        r.child.send("setoption name UCI_Chess960 value true")?;
        r.variant = true;
        sync = true;
    }
    if r.game_number != job.game_number {
        r.child.send(newgame(r.proto))?;
        r.game_number = job.game_number;
        sync = true;
    }
    if r.builtin && r.level != job.level {
        r.child
            .send(&format!("setoption name Skill value {}", job.level))?;
        r.level = job.level;
        sync = true;
    }
    if r.multipv != job.multipv {
        r.child
            .send(&format!("setoption name MultiPV value {}", job.multipv))?;
        r.multipv = job.multipv;
        sync = true;
    }
    if sync {
        r.child.sync(Instant::now() + START_TIMEOUT)?;
    }
    Ok(())
}

/// The session's engine thread: runs until the session is closed, then quits its engines.
pub fn run<G: View>(
    shared: Arc<SharedGame<G>>,
    engines: Arc<Vec<EngineChoice>>,
    tabula_args: Vec<String>,
) {
    let mut running: Vec<Running> = Vec::new();
    let proto_default = if G::UCI { Proto::Uci } else { Proto::Ugi };
    loop {
        let job = {
            let mut inner = shared.lock();
            loop {
                if inner.closed {
                    break None;
                }
                if let Some(job) = wanted(&inner) {
                    break Some(job);
                }
                let pause = if matchplay::step(&shared, &mut inner) {
                    Duration::from_millis(10)
                } else if inner.matchplay.is_some() {
                    Duration::from_millis(100)
                } else {
                    Duration::from_secs(1)
                };
                inner = match shared.changed.wait_timeout(inner, pause) {
                    Ok((g, _)) => g,
                    Err(e) => e.into_inner().0,
                };
            }
        };
        let Some(job) = job else { break };
        // Engines no longer in use, or dead, are let go.
        let (keep, gone): (Vec<Running>, Vec<Running>) = running
            .into_iter()
            .partition(|r| job.in_use.contains(&r.engine) && !r.child.dead);
        running = keep;
        for r in gone {
            r.child.quit();
        }
        if !running.iter().any(|r| r.engine == job.engine) {
            match start_engine(
                &engines,
                job.engine,
                &tabula_args,
                proto_default,
                job.game_number,
            ) {
                Ok(r) => running.push(r),
                Err(e) => {
                    fail(&shared, job.generation, e);
                    continue;
                }
            }
        }
        let Some(at) = running.iter().position(|r| r.engine == job.engine) else {
            continue;
        };
        let r = &mut running[at];
        let outcome = prepare(r, &job).and_then(|()| search(&shared, &mut r.child, &job));
        match outcome {
            Ok(Some(mv)) if job.kind == Kind::Play => {
                let mut inner = shared.lock();
                if inner.generation == job.generation && !inner.closed {
                    match inner.line.pos.parse_move(&mv) {
                        Ok(m) => match inner.play(m, false) {
                            Ok(()) => shared.moved(&mut inner),
                            Err(e) => {
                                inner.engine_error = Some(e);
                                inner.thinking = None;
                                shared.touch(&mut inner);
                            }
                        },
                        Err(e) => {
                            inner.engine_error = Some(format!(
                                "{} played an illegal move '{mv}' ({e})",
                                r.child.name
                            ));
                            inner.thinking = None;
                            shared.touch(&mut inner);
                        }
                    }
                }
            }
            Ok(Some(_)) if job.kind == Kind::Review => {
                let mut inner = shared.lock();
                if let Some(n) = inner.tree.node_mut(job.node) {
                    n.reviewed = true;
                }
                if inner.review && next_review(&inner).is_none() {
                    // The whole line is scored: the review ends, and the page says so.
                    inner.review = false;
                    shared.touch(&mut inner);
                } else {
                    shared.touch_live(&mut inner, Some(job.node));
                }
            }
            Ok(_) => {
                // Dropped while the position stayed, or an analysis stopped: the report stays
                // on show, not as thinking.
                let mut inner = shared.lock();
                if inner.generation == job.generation
                    && let Some(t) = inner.thinking.take()
                {
                    inner.last_thinking = Some(t);
                    shared.touch_live(&mut inner, None);
                }
            }
            Err(e) => {
                let mut r = running.remove(at);
                r.child.kill();
                fail(&shared, job.generation, e);
            }
        }
    }
    for r in running {
        r.child.quit();
    }
}

/// Reports an engine failure for the search of `generation` (a stale one is dropped).
fn fail<G: View>(shared: &SharedGame<G>, generation: u64, e: String) {
    let mut inner = shared.lock();
    if inner.generation == generation && !inner.closed {
        inner.engine_error = Some(e);
        inner.thinking = None;
        shared.touch(&mut inner);
    }
}

/// Runs one search: Ok(Some(bestmove)), Ok(None) when it was dropped (no longer wanted),
/// Err when the engine failed.
fn search<G: View>(
    shared: &SharedGame<G>,
    c: &mut Child,
    job: &Job<G>,
) -> Result<Option<String>, String> {
    let mut t = Thinking {
        side: job.pos.to_move().index(),
        ..Thinking::default()
    };
    // The review searches positions other than the one on show: the panel is not its place.
    let shown = job.kind != Kind::Review;
    {
        let mut inner = shared.lock();
        if !still_wanted(&inner, job) {
            return Ok(None);
        }
        if shown {
            inner.thinking = Some(t.clone());
        }
        shared.touch_live(&mut inner, None);
    }
    c.send(&job.position)?;
    c.send(&job.go)?;
    let chess = G::UCI; // UCI counts mates in moves, UGI in plies
    let give_up = {
        let inner = shared.lock();
        match job.kind {
            Kind::Play => Some(inner.settings.movetime_ms),
            Kind::Review => Some(inner.review_ms),
            Kind::Analyse => None,
        }
        .map(|ms| Instant::now() + Duration::from_millis(ms) + GRACE)
    };
    let mut stopped: Option<Instant> = None;
    let mut dropped = false;
    loop {
        match c.recv(Instant::now() + Duration::from_millis(50)) {
            Got::Line(l) => {
                let mut words = l.split_whitespace();
                match words.next() {
                    Some("bestmove") => {
                        let mv = words.next().unwrap_or("").to_string();
                        return Ok((!dropped).then_some(mv));
                    }
                    Some("info") => {
                        read_info(&mut t, &l, &job.pos, chess);
                        let mut inner = shared.lock();
                        if still_wanted(&inner, job) {
                            keep_score(&mut inner, job.node, &t, chess);
                            if shown {
                                inner.thinking = Some(t.clone());
                            }
                            shared.touch_live(&mut inner, Some(job.node));
                        }
                    }
                    _ => {}
                }
            }
            Got::Timeout => {}
            Got::Eof => return Err(format!("{} exited during its search", c.name)),
        }
        let (gone, now) = {
            let mut inner = shared.lock();
            let now = std::mem::take(&mut inner.move_now);
            (!still_wanted(&inner, job), now)
        };
        let late = give_up.is_some_and(|g| Instant::now() > g);
        if stopped.is_none() && (gone || now || late) {
            dropped = gone;
            c.send("stop")?;
            stopped = Some(Instant::now());
        }
        if stopped.is_some_and(|t| t.elapsed() > GRACE) {
            return Err(format!("{} sent no bestmove after stop", c.name));
        }
    }
}
