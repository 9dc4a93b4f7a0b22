//! GTP, as the referee speaks it to Othello engines: a game starts from `boardsize` and
//! `clear_board` (with `time_settings` where the limit has one), the moves an engine has not
//! seen are told as `play COLOUR MOVE` from Black, a pass as `pass` (an engine that passes on
//! its own may refuse being told so), and `genmove COLOUR` asks for a move (`resign` loses).

use super::Answer;
use super::Limit;
use crate::arena::child::Child;
use crate::game::Game;
use std::time::{Duration, Instant};

/// A move as GTP writes it (a pass is `pass`).
pub(crate) fn gtp_move<G: Game>(pos: &G, mv: G::Move) -> String {
    let t = pos.format_move(mv);
    if t == "0000" { "pass".into() } else { t }
}

fn gtp_colour(index: usize) -> &'static str {
    if index.is_multiple_of(2) {
        "black"
    } else {
        "white"
    }
}

/// Tells a GTP engine the moves it has not seen (`moves[told..]`, colours alternating from
/// Black). Err(reason) when it refuses a legal move or does not answer.
fn gtp_tell(
    c: &mut Child,
    moves: &[String],
    told: &mut usize,
    timeout: Duration,
) -> Result<(), String> {
    while *told < moves.len() {
        let mv = &moves[*told];
        let cmd = format!("play {} {mv}", gtp_colour(*told));
        match c.gtp(&cmd, Instant::now() + timeout)? {
            Ok(_) => {}
            // An engine that passes on its own refuses to be told so.
            Err(_) if mv == "pass" => {}
            Err(e) => return Err(format!("{} refused the legal move '{cmd}' ({e})", c.name)),
        }
        *told += 1;
    }
    Ok(())
}

/// Sets a GTP engine's board (`boardsize`, `clear_board`) and, where the limit has one, its
/// time system.
pub(super) fn gtp_new_game(
    c: &mut Child,
    limit: Limit,
    rows: usize,
    deadline: Instant,
) -> Result<(), String> {
    for cmd in [format!("boardsize {rows}"), "clear_board".into()] {
        if let Err(e) = c.gtp(&cmd, deadline)? {
            return Err(format!("refused '{cmd}' ({e})"));
        }
    }
    // GTP's time system is byo-yomi; engines that ignore it answer `?`.
    let secs = |ms: u64| ms.div_ceil(1000).max(1);
    let settings = match limit {
        Limit::Clock {
            base_ms, inc_ms, ..
        } => Some(format!(
            "time_settings {} {} {}",
            base_ms / 1000,
            if inc_ms > 0 { secs(inc_ms) } else { 0 },
            u64::from(inc_ms > 0)
        )),
        Limit::MoveTime(ms) => Some(format!("time_settings 0 {} 1", secs(ms))),
        _ => None,
    };
    if let Some(cmd) = settings {
        let _ = c.gtp(&cmd, deadline)?;
    }
    Ok(())
}

/// GTP: tells the engine the moves it has not seen, its time left (`time_left`: the clock's
/// ms, under a clock) and asks `genmove`. Err(why it loses) where it refuses or resigns.
pub(super) fn gtp_genmove(
    child: &mut Child,
    told: &mut usize,
    gtp_moves: &[String],
    time_left: Option<i64>,
    hard: Duration,
    timeout: Duration,
    name: &str,
) -> Result<Answer, String> {
    gtp_tell(child, gtp_moves, told, timeout)?;
    let colour = gtp_colour(gtp_moves.len());
    if let Some(clock_ms) = time_left {
        let left = format!("time_left {colour} {} 0", clock_ms.max(0) / 1000);
        if child.gtp(&left, Instant::now() + timeout).is_err() {
            return Err(format!("{name} disconnected"));
        }
    }
    let asked = Instant::now();
    let answer = child.gtp(&format!("genmove {colour}"), asked + hard);
    *told += 1;
    let reply = match answer {
        Ok(Ok(m)) if m.eq_ignore_ascii_case("resign") => {
            return Err(format!("{name} resigns"));
        }
        Ok(Ok(m)) => Ok(m.to_ascii_lowercase()),
        Ok(Err(e)) => return Err(format!("{name} refused to move ({e})")),
        Err(_) => Err(!child.dead),
    };
    Ok(Answer {
        asked,
        reply,
        score: None,
    })
}
