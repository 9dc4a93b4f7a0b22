//! Plays one game between two engine processes and referees it with tabula's own rules: the
//! runner keeps the clocks, checks every move, ends the game by the rules or by adjudication,
//! and turns every failure of an engine (illegal move, time forfeit, crash, hang, failed
//! handshake) into a loss for that engine with the reason recorded.
//!
//! GTP engines (Othello's) start from `clear_board` and are told the opening as `play` moves
//! from the standard start; a pass is `play white pass`, and an engine that refuses it (GRhino
//! passes on its own) is taken to have passed. Each engine may have its own limit.
//!
//! For UGI engines, after a game that ended by the rules, each engine is asked `query
//! gameover` and `query result` on the final position; answers that differ from tabula's are
//! reported as notes, never change the result.

mod gtp;

use super::child::{Child, EngineSpec, Got, Proto};
pub use super::limit::Limit;
use crate::game::{Game, GameResult, Player};
use crate::record::{GameLine, Record, result_text};
pub(crate) use gtp::gtp_move;
use gtp::{gtp_genmove, gtp_new_game};
use std::time::{Duration, Instant};

/// Optional adjudication, in the spirit of cutechess-cli's `-resign` / `-draw` / `-maxmoves`.
#[derive(Clone, Debug, Default)]
pub struct Adjudication {
    /// (moves, score): a side whose own score is at least `score` below zero for `moves`
    /// consecutive moves, while the other side agrees, loses.
    pub resign: Option<(u32, i32)>,
    /// (after_ply, moves, score): from `after_ply` on, both sides' scores within ±`score` for
    /// `moves` consecutive moves each: a draw.
    pub draw: Option<(u32, u32, i32)>,
    /// A draw after this many plies.
    pub max_plies: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Rules {
    pub limit: Limit,
    /// Extra time an engine is allowed past its clock before it forfeits.
    pub margin_ms: u64,
    /// For handshakes, `isready` and moves under depth/nodes limits.
    pub timeout: Duration,
    pub adjudication: Adjudication,
}

/// A finished (or abandoned) game.
pub struct Played {
    pub result: Option<GameResult>,
    pub reason: String,
    /// The game record (PGN for chess), result and termination filled in.
    pub record: String,
    /// Disagreements of UGI engines with tabula's rules, and other remarks.
    pub notes: Vec<String>,
    pub plies: usize,
    /// The time each legal move took, in ms, by player (player 1's, player 2's), in order.
    pub move_ms: [Vec<u64>; 2],
}

fn loses(side: Player) -> GameResult {
    match side {
        Player::P1 => GameResult::P2Win,
        Player::P2 => GameResult::P1Win,
    }
}

/// The score in an `info` line, in centipawns (mate scores as ±100000 minus the distance).
fn info_score(line: &str) -> Option<i32> {
    let mut it = line.split_whitespace();
    while let Some(w) = it.next() {
        if w == "score" {
            let kind = it.next()?;
            let v: i32 = it.next()?.parse().ok()?;
            return match kind {
                "cp" => Some(v),
                "mate" if v > 0 => Some(100_000 - v),
                "mate" => Some(-100_000 - v),
                _ => None,
            };
        }
    }
    None
}

struct Side<'a> {
    spec: &'a EngineSpec,
    proto: Proto,
    /// The engine's own limit, else the match's.
    limit: Limit,
    child: Option<Child>,
    clock_ms: i64,
    scores: Vec<i32>,
    /// GTP: how many moves of the game (from the standard start) the engine knows.
    told: usize,
    /// The time each of its moves took, in ms.
    move_ms: Vec<u64>,
}

/// Plays one game from `start` (`standard`: the game's usual start, sent as `startpos`).
/// `engines[0]` plays player 1 (White, Black in Othello, Red, Horizontal). `line_to_start`:
/// the moves from the standard start to `start` in GTP's notation, for GTP engines.
pub fn play<G: Game>(
    start: G,
    standard: bool,
    engines: [&EngineSpec; 2],
    proto: Proto,
    rules: &Rules,
    tags: &[(&str, String)],
    line_to_start: &[String],
) -> Played {
    let mut line = GameLine::new(start);
    let mut sides = new_sides(engines, proto, rules);
    // Start both engines (a failure loses the game for that engine).
    if let Err((player, why)) = start_engines(&mut sides, rules, board_rows(&line.start)) {
        let end = (Some(loses(player)), why);
        return finish(&line, tags, standard, end, Vec::new(), &[]);
    }
    let start_cmd = if standard {
        "position startpos".to_string()
    } else {
        format!("position fen {}", line.start.fen())
    };
    // GTP: the whole game from the standard start.
    let mut gtp_moves: Vec<String> = line_to_start.to_vec();
    let mut moves_text: Vec<String> = Vec::new();
    let (result, reason) = loop {
        if let Some((r, why)) = line.result() {
            break (Some(r), why);
        }
        let ply = line.moves.len() as u32;
        if let Some(r) = adjudicate(&sides, &rules.adjudication, ply) {
            break r;
        }
        let player = line.pos.to_move();
        let me = player.index();
        let position = position_line(&start_cmd, &moves_text);
        let asked = ask_move(&mut sides, me, ply, &position, &gtp_moves, rules);
        let (mv_text, used, last_score) = match asked {
            Ok(reply) => reply,
            Err(why) => break (Some(loses(player)), why),
        };
        if let Err(why) = charge_clock(&mut sides[me], used, ply, rules.margin_ms) {
            break (Some(loses(player)), why);
        }
        if let Some(s) = last_score {
            sides[me].scores.push(s);
        }
        let notations = (&mut gtp_moves, &mut moves_text);
        if let Err(why) = play_move(&mut line, &mut sides[me], &mv_text, used, notations) {
            break (Some(loses(player)), why);
        }
    };
    let by_rules = line.result().is_some();
    let position = position_line(&start_cmd, &moves_text);
    let notes = close_engines(&mut sides, &position, result, by_rules, rules.timeout);
    finish(&line, tags, standard, (result, reason), notes, &sides)
}

/// Plays the side's move `mv_text` (which took `used` ms) in the game and adds it to the
/// moves in GTP's and UCI/UGI's notation; Err(why the side loses) where it is illegal.
fn play_move<G: Game>(
    line: &mut GameLine<G>,
    side: &mut Side,
    mv_text: &str,
    used: i64,
    (gtp_moves, moves_text): (&mut Vec<String>, &mut Vec<String>),
) -> Result<(), String> {
    let mv = line.pos.parse_move(mv_text).map_err(|e| {
        let name = &side.spec.name;
        format!("{name} played an illegal move '{mv_text}' ({e})")
    })?;
    side.move_ms.push(used as u64);
    gtp_moves.push(gtp_move(&line.pos, mv));
    moves_text.push(line.pos.format_move(mv));
    line.play(mv);
    Ok(())
}

/// The two sides before the game: each engine's own limit (else the match's) and protocol
/// (else `proto`), its clock at the limit's base time.
fn new_sides<'a>(engines: [&'a EngineSpec; 2], proto: Proto, rules: &Rules) -> Vec<Side<'a>> {
    let base_of = |limit: Limit| match limit {
        Limit::Clock { base_ms, .. } => base_ms as i64,
        _ => 0,
    };
    engines
        .iter()
        .map(|spec| {
            let limit = spec.limit.unwrap_or(rules.limit);
            Side {
                spec,
                proto: spec.proto.unwrap_or(proto),
                limit,
                child: None,
                clock_ms: base_of(limit),
                scores: Vec::new(),
                told: 0,
                move_ms: Vec::new(),
            }
        })
        .collect()
}

/// The board's rows as its FEN writes them (GTP's `boardsize`).
fn board_rows<G: Game>(start: &G) -> usize {
    start
        .fen()
        .split_whitespace()
        .next()
        .map_or(0, |b| b.split('/').count())
}

/// The game's outcome as `Played`: the record with its result and termination tags, the
/// remarks, and each side's move times (`sides` empty: none).
fn finish<G: Game>(
    line: &GameLine<G>,
    tags: &[(&str, String)],
    standard: bool,
    (result, reason): (Option<GameResult>, String),
    notes: Vec<String>,
    sides: &[Side],
) -> Played {
    let mut t: Vec<(&str, String)> = tags.to_vec();
    t.push(("Result", result_text(result).into()));
    t.push(("Termination", reason.clone()));
    let rec = Record::of(line, &t, standard);
    Played {
        result,
        reason,
        record: rec.text_of(&line.start),
        notes,
        plies: line.moves.len(),
        move_ms: [0, 1].map(|i| sides.get(i).map_or_else(Vec::new, |s| s.move_ms.clone())),
    }
}

/// Starts both sides' engines for a new game; Err((the player whose engine failed, why)).
fn start_engines(sides: &mut [Side], rules: &Rules, rows: usize) -> Result<(), (Player, String)> {
    for (i, side) in sides.iter_mut().enumerate() {
        let player = if i == 0 { Player::P1 } else { Player::P2 };
        match start_engine(side, rules, rows) {
            Ok(c) => side.child = Some(c),
            Err(e) => return Err((player, format!("{} failed to start: {e}", side.spec.name))),
        }
    }
    Ok(())
}

/// Starts one engine and readies it for a new game (UCI/UGI: `ucinewgame`/`uginewgame` and
/// a sync; GTP: the board and the time settings).
fn start_engine(side: &Side, rules: &Rules, rows: usize) -> Result<Child, String> {
    let mut c = Child::start(side.spec, side.proto, rules.timeout)?;
    let deadline = Instant::now() + rules.timeout;
    match side.proto {
        Proto::Uci => c.send("ucinewgame")?,
        Proto::Ugi => c.send("uginewgame")?,
        Proto::Gtp => {
            gtp_new_game(&mut c, side.limit, rows, deadline)?;
            return Ok(c);
        }
    }
    c.sync(deadline)?;
    Ok(c)
}

/// How long an engine may think on this move before it forfeits.
fn hard_limit(limit: Limit, clock_ms: i64, rules: &Rules) -> Duration {
    match limit {
        Limit::Clock { .. } => Duration::from_millis(clock_ms.max(0) as u64 + rules.margin_ms),
        Limit::MoveTime(ms) => Duration::from_millis(ms + rules.margin_ms.max(1000)),
        _ => rules.timeout,
    }
}

/// An engine's answer to a request for a move: when it was asked, the move or Err(whether it
/// timed out, else its pipe closed), and (UCI/UGI) the last `info` score before it.
struct Answer {
    asked: Instant,
    reply: Result<String, bool>,
    score: Option<i32>,
}

/// Asks side `me`'s engine for its move in `position` (GTP: after telling it `gtp_moves`).
/// Ok((the move's text, the ms it took, the last score)); Err(why the side loses), its engine
/// killed where it timed out or died.
fn ask_move(
    sides: &mut [Side],
    me: usize,
    ply: u32,
    position: &str,
    gtp_moves: &[String],
    rules: &Rules,
) -> Result<(String, i64, Option<i32>), String> {
    let go = go_command(sides[me].limit, sides[me].proto, sides, ply);
    let Side {
        spec,
        proto,
        limit,
        child,
        clock_ms,
        told,
        ..
    } = &mut sides[me];
    let (limit, name) = (*limit, spec.name.clone());
    let hard = hard_limit(limit, *clock_ms, rules);
    let Some(child) = child.as_mut() else {
        return Err(format!("{name} is not running"));
    };
    let answer = if *proto == Proto::Gtp {
        let time_left = matches!(limit, Limit::Clock { .. }).then_some(*clock_ms);
        gtp_genmove(
            child,
            told,
            gtp_moves,
            time_left,
            hard,
            rules.timeout,
            &name,
        )?
    } else {
        uci_go(child, position, &go, hard, &name)?
    };
    let used = answer.asked.elapsed().as_millis() as i64;
    match answer.reply {
        Ok(m) => Ok((m, used, answer.score)),
        Err(timeout) => {
            child.kill();
            Err(match (timeout, limit) {
                (true, Limit::Clock { .. } | Limit::MoveTime(_)) => {
                    format!("{name} loses on time")
                }
                (true, _) => format!(
                    "{name} hung (no bestmove within {} s)",
                    rules.timeout.as_secs()
                ),
                (false, _) => format!("{name} crashed or disconnected"),
            })
        }
    }
}

/// UCI/UGI: sends the position and `go`, and reads the engine's lines until `bestmove` (or
/// `hard` has passed), keeping the last `info` score. Err(why it loses) where it cannot be
/// sent to.
fn uci_go(
    child: &mut Child,
    position: &str,
    go: &str,
    hard: Duration,
    name: &str,
) -> Result<Answer, String> {
    if child.send(position).and_then(|_| child.send(go)).is_err() {
        return Err(format!("{name} disconnected"));
    }
    let asked = Instant::now();
    let deadline = asked + hard;
    let mut score = None;
    let reply = loop {
        match child.recv(deadline) {
            Got::Line(l) => {
                let mut w = l.split_whitespace();
                match w.next() {
                    Some("bestmove") => break Ok(w.next().unwrap_or("").to_string()),
                    Some("info") => {
                        if let Some(s) = info_score(&l) {
                            score = Some(s);
                        }
                    }
                    _ => {}
                }
            }
            Got::Timeout => break Err(true),
            Got::Eof => break Err(false),
        }
    };
    Ok(Answer {
        asked,
        reply,
        score,
    })
}

/// Charges a move of `used` ms to the side's clock, where it plays under one: the time, then
/// the increment, and a new period after every `moves` moves of its own. Err(why it loses)
/// where the clock fell past the margin.
fn charge_clock(side: &mut Side, used: i64, ply: u32, margin_ms: u64) -> Result<(), String> {
    let Limit::Clock {
        moves,
        base_ms,
        inc_ms,
    } = side.limit
    else {
        return Ok(());
    };
    side.clock_ms -= used;
    if side.clock_ms < -(margin_ms as i64) {
        return Err(format!("{} loses on time", side.spec.name));
    }
    side.clock_ms += inc_ms as i64;
    // A new period after `moves` moves of this side.
    if let Some(m) = moves {
        let own = ply / 2 + 1;
        if own.is_multiple_of(m) {
            side.clock_ms += base_ms as i64;
        }
    }
    Ok(())
}

/// Closes both engines. After a game that ended by the rules (`by_rules`), each live UGI
/// engine is first asked for its view of the final `position`; returns its disagreements.
fn close_engines(
    sides: &mut [Side],
    position: &str,
    result: Option<GameResult>,
    by_rules: bool,
    timeout: Duration,
) -> Vec<String> {
    let mut notes = Vec::new();
    for (i, side) in sides.iter_mut().enumerate() {
        let Some(mut c) = side.child.take() else {
            continue;
        };
        if side.proto == Proto::Ugi
            && by_rules
            && !c.dead
            && let Some(n) = cross_check(&mut c, position, result, timeout)
        {
            notes.push(format!("{} (as player {}): {n}", side.spec.name, i + 1));
        }
        c.quit();
    }
    notes
}

/// `position startpos|fen ..` with the moves so far.
fn position_line(start: &str, moves: &[String]) -> String {
    if moves.is_empty() {
        start.to_string()
    } else {
        format!("{start} moves {}", moves.join(" "))
    }
}

fn go_command(limit: Limit, proto: Proto, sides: &[Side], ply: u32) -> String {
    let (t1, t2) = ("wtime", "btime");
    let (i1, i2) = ("winc", "binc");
    let names = match proto {
        Proto::Uci => [t1, t2, i1, i2],
        Proto::Ugi | Proto::Gtp => ["p1time", "p2time", "p1inc", "p2inc"],
    };
    match limit {
        Limit::Clock { moves, inc_ms, .. } => {
            let mut s = format!(
                "go {} {} {} {}",
                names[0],
                sides[0].clock_ms.max(1),
                names[1],
                sides[1].clock_ms.max(1)
            );
            if inc_ms > 0 {
                s.push_str(&format!(" {} {inc_ms} {} {inc_ms}", names[2], names[3]));
            }
            if let Some(m) = moves {
                let own = ply / 2;
                s.push_str(&format!(" movestogo {}", m - own % m));
            }
            s
        }
        Limit::MoveTime(ms) => format!("go movetime {ms}"),
        Limit::Depth(d) => format!("go depth {d}"),
        Limit::Nodes(n) => format!("go nodes {n}"),
    }
}

/// A result by adjudication (`Adjudication`) before the move at `ply`, with its reason.
fn adjudicate(
    sides: &[Side],
    adj: &Adjudication,
    ply: u32,
) -> Option<(Option<GameResult>, String)> {
    if adj.max_plies.is_some_and(|m| ply >= m) {
        return Some((Some(GameResult::Draw), "adjudication: maximum moves".into()));
    }
    if let Some((count, score)) = adj.resign {
        let n = count as usize;
        for (i, loser) in [Player::P1, Player::P2].into_iter().enumerate() {
            let own = &sides[i].scores;
            let other = &sides[1 - i].scores;
            if n > 0
                && own.len() >= n
                && other.len() >= n
                && own[own.len() - n..].iter().all(|&s| s <= -score)
                && other[other.len() - n..].iter().all(|&s| s >= score)
            {
                return Some((Some(loses(loser)), "adjudication: resign score".into()));
            }
        }
    }
    if let Some((after, count, score)) = adj.draw {
        let n = count as usize;
        let quiet =
            |s: &Vec<i32>| s.len() >= n && s[s.len() - n..].iter().all(|v| v.abs() <= score);
        if n > 0 && ply >= after && quiet(&sides[0].scores) && quiet(&sides[1].scores) {
            return Some((Some(GameResult::Draw), "adjudication: draw score".into()));
        }
    }
    None
}

/// Asks a UGI engine for its view of the final position; Some(remark) on disagreement.
fn cross_check(
    c: &mut Child,
    position: &str,
    ours: Option<GameResult>,
    timeout: Duration,
) -> Option<String> {
    let deadline = Instant::now() + timeout.min(Duration::from_secs(5));
    let mut ask = |q: &str| -> Option<String> {
        c.send(position).ok()?;
        c.send(q).ok()?;
        let l = c.expect("response", deadline).ok()?;
        l.split_whitespace().nth(1).map(|s| s.to_ascii_lowercase())
    };
    let over = ask("query gameover");
    let res = ask("query result");
    let want = match ours {
        Some(GameResult::P1Win) => "p1win",
        Some(GameResult::P2Win) => "p2win",
        Some(GameResult::Draw) => "draw",
        None => "none",
    };
    let mut issues = Vec::new();
    match over.as_deref() {
        Some("true") => {}
        Some(o) => issues.push(format!("says gameover '{o}' where the game is over")),
        None => issues.push("gave no answer to 'query gameover'".into()),
    }
    match res.as_deref() {
        Some(r) if r == want => {}
        Some(r) => issues.push(format!("says result '{r}', tabula says '{want}'")),
        None => issues.push("gave no answer to 'query result'".into()),
    }
    (!issues.is_empty()).then(|| issues.join("; "))
}

#[cfg(test)]
mod tests;
