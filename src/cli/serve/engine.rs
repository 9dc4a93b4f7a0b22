//! The engine of a browser session: a UCI/UGI process driven with `tabula match`'s own
//! `arena::child` (handshake, lines on a channel, deadlines, kill), on a thread that wakes
//! when the engine is to move, sends `position` and `go movetime`, turns the `info` lines
//! into the thinking the page shows, and plays the `bestmove` after checking it with the
//! game's rules. A take-back or a closed session stops the search and drops its move.
//! Each side may have its own engine (a match, `matchplay.rs`): up to two processes run, one
//! per engine in use; tabula itself is told the session's level (`Skill`) before it searches.

use super::board::View;
use super::matchplay;
use super::state::{FULL_LEVEL, Inner, Shared, Thinking};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tabula::arena::child::{Child, EngineSpec, Got, Proto};
use tabula::game::Game;

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

/// Reads one `info` line into `t` (fields it lacks are kept); `pos` is the searched position,
/// on which the PV is checked and written in human notation.
pub fn read_info<G: Game>(t: &mut Thinking, line: &str, pos: &G, chess: bool) {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.get(1) == Some(&"string") {
        t.note = Some(words[2..].join(" "));
        return;
    }
    if words.windows(2).any(|w| w[0] == "multipv" && w[1] != "1") {
        return;
    }
    let num = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "depth" => t.depth = num(i).map(|n| n.min(10_000) as u32),
            "seldepth" => t.seldepth = num(i).map(|n| n.min(10_000) as u32),
            "nodes" => t.nodes = num(i),
            "nps" => t.nps = num(i),
            "time" => t.time_ms = num(i),
            "score" => {
                let v = words.get(i + 2).and_then(|w| w.parse::<i64>().ok());
                t.score = match (words.get(i + 1).copied(), v) {
                    (Some("cp"), Some(cp)) => Some(format!("{:+.2}", cp as f64 / 100.0)),
                    (Some("mate"), Some(n)) if chess => Some(format!("#{n}")),
                    (Some("mate"), Some(n)) if n >= 0 => Some(format!("win in {n}")),
                    (Some("mate"), Some(n)) => Some(format!("loss in {}", -n)),
                    _ => t.score.take(),
                };
                i += 2;
            }
            "pv" => {
                let mut p = pos.clone();
                t.pv.clear();
                for w in words[i + 1..].iter().take(40) {
                    let Ok(mv) = p.parse_move(w) else { break };
                    let text = p.format_human(mv);
                    t.pv.push(if text == "0000" { "pass".into() } else { text });
                    p.play(mv);
                }
                break;
            }
            _ => {}
        }
        i += 1;
    }
}

/// What the engine is asked to do.
struct Job<G: Game> {
    generation: u64,
    engine: usize,
    /// The engines the session uses now (others are quit).
    in_use: [usize; 2],
    level: u8,
    game_number: u64,
    pos: G,
    position: String,
    go: String,
}

/// The search the engine should run now, if any.
fn wanted<G: View>(inner: &Inner<G>) -> Option<Job<G>> {
    if inner.closed || inner.paused || inner.engine_error.is_some() {
        return None;
    }
    if inner.line.result().is_some() {
        return None;
    }
    let me = inner.line.pos.to_move().index();
    if inner.settings.human[me] {
        return None;
    }
    let start = if inner.line.start.fen() == inner.standard.fen() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", inner.line.start.fen())
    };
    let moves = inner.line.protocol_moves();
    let position = if moves.is_empty() {
        start
    } else {
        format!("{start} moves {}", moves.join(" "))
    };
    Some(Job {
        generation: inner.generation,
        engine: inner.settings.engines[me],
        in_use: inner.settings.engines,
        level: inner.settings.level,
        game_number: inner.game_number,
        pos: inner.line.pos.clone(),
        position,
        go: format!("go movetime {}", inner.settings.movetime_ms),
    })
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
fn prepare<G: Game>(r: &mut Running, job: &Job<G>) -> Result<(), String> {
    let mut sync = false;
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
    if sync {
        r.child.sync(Instant::now() + START_TIMEOUT)?;
    }
    Ok(())
}

/// The session's engine thread: runs until the session is closed, then quits its engines.
pub fn run<G: View>(
    shared: Arc<Shared<G>>,
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
            Ok(Some(mv)) => {
                let mut inner = shared.lock();
                if inner.generation == job.generation && !inner.closed {
                    match inner.line.pos.parse_move(&mv) {
                        Ok(m) => {
                            inner.line.play(m);
                            shared.moved(&mut inner);
                        }
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
            Ok(None) => {
                // Dropped while the position stayed: the report stays on show, not as thinking.
                let mut inner = shared.lock();
                if inner.generation == job.generation
                    && let Some(t) = inner.thinking.take()
                {
                    inner.last_thinking = Some(t);
                    shared.touch(&mut inner);
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
fn fail<G: View>(shared: &Shared<G>, generation: u64, e: String) {
    let mut inner = shared.lock();
    if inner.generation == generation && !inner.closed {
        inner.engine_error = Some(e);
        inner.thinking = None;
        shared.touch(&mut inner);
    }
}

/// Runs one search: Ok(Some(bestmove)), Ok(None) when it was dropped (the position changed),
/// Err when the engine failed.
fn search<G: View>(
    shared: &Shared<G>,
    c: &mut Child,
    job: &Job<G>,
) -> Result<Option<String>, String> {
    {
        let mut inner = shared.lock();
        if inner.generation != job.generation {
            return Ok(None);
        }
        inner.thinking = Some(Thinking {
            side: job.pos.to_move().index(),
            ..Thinking::default()
        });
        shared.touch(&mut inner);
    }
    c.send(&job.position)?;
    c.send(&job.go)?;
    let chess = G::UCI; // UCI counts mates in moves, UGI in plies
    let movetime = shared.lock().settings.movetime_ms;
    let give_up = Instant::now() + Duration::from_millis(movetime) + GRACE;
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
                        let mut inner = shared.lock();
                        if inner.generation == job.generation {
                            if let Some(t) = inner.thinking.as_mut() {
                                read_info(t, &l, &job.pos, chess);
                            }
                            shared.touch(&mut inner);
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
            // The position changed, or the engine no longer plays this side (a person took it
            // over, another engine was chosen, the game was closed): its move is not wanted.
            let me = job.pos.to_move().index();
            let gone = inner.generation != job.generation
                || inner.closed
                || inner.settings.human[me]
                || inner.settings.engines[me] != job.engine;
            (gone, now)
        };
        if stopped.is_none() && (gone || now || Instant::now() > give_up) {
            dropped = gone;
            c.send("stop")?;
            stopped = Some(Instant::now());
        }
        if stopped.is_some_and(|t| t.elapsed() > GRACE) {
            return Err(format!("{} sent no bestmove after stop", c.name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula::games::chess::Chess;

    #[test]
    fn info_lines() {
        let pos = Chess::default();
        let mut t = Thinking::default();
        read_info(
            &mut t,
            "info depth 7 seldepth 9 score cp 31 nodes 1234 nps 5000 time 20 pv e2e4 e7e5 g1f3 zz",
            &pos,
            true,
        );
        assert_eq!(
            (t.depth, t.seldepth, t.nodes),
            (Some(7), Some(9), Some(1234))
        );
        assert_eq!(t.score.as_deref(), Some("+0.31"));
        assert_eq!(t.pv, ["e4", "e5", "Nf3"]);
        read_info(&mut t, "info depth 8 score mate -2", &pos, true);
        assert_eq!(t.score.as_deref(), Some("#-2"));
        assert_eq!(t.pv.len(), 3, "a line without pv keeps the last");
        read_info(&mut t, "info multipv 2 depth 9 score cp 5", &pos, true);
        assert_eq!(t.depth, Some(8), "only the first line counts");
        read_info(&mut t, "info string solved: +4", &pos, true);
        assert_eq!(t.note.as_deref(), Some("solved: +4"));
        read_info(&mut t, "info depth x score cp", &pos, false);
        assert_eq!(t.depth, None);
    }
}
