//! A match watched in the browser: two engines (or one against itself) play a series of games
//! from the session's start, changing colours after every game, while the page shows the
//! current game live and the score so far. The engine thread (`engine.rs`) calls `step` while
//! it waits: a finished game is scored once, shown for `PAUSE`, and the next one begins. The
//! match's record (`MatchPlay`: games, engines, results) is in `matchscore.rs`.

use super::board::View;
use super::state::{GameState, SharedGame};
use std::time::{Duration, Instant};
use tabula::game::GameResult;

/// The most games a match may have.
pub const MAX_GAMES: u32 = 1000;
/// How long a finished game stays on the board before the next begins.
const PAUSE: Duration = Duration::from_millis(1500);

/// Moves the match on: scores a game that has just ended, and after the pause starts the next
/// one with colours changed. Returns true when it changed something the page should see.
pub fn step<G: View>(shared: &SharedGame<G>, inner: &mut GameState<G>) -> bool {
    let Some(result) = inner.line.result() else {
        return false;
    };
    let Some(m) = inner.matchplay.as_mut() else {
        return false;
    };
    match m.ended {
        None => {
            let a_first = m.game % 2 == 1;
            let a_points = match (result.0, a_first) {
                (GameResult::Draw, _) => 0.5,
                (GameResult::P1Win, true) | (GameResult::P2Win, false) => 1.0,
                _ => 0.0,
            };
            m.results.push((
                a_points,
                a_first,
                format!(
                    "{} ({})",
                    tabula::record::result_text(Some(result.0)),
                    result.1
                ),
            ));
            m.ended = Some(Instant::now());
            shared.touch(inner);
            true
        }
        Some(t) if t.elapsed() >= PAUSE && !m.finished() => {
            m.game += 1;
            m.ended = None;
            inner.settings.engines = m.sides(m.game);
            inner.game_number += 1;
            let start = inner.line.start.clone();
            inner.restart(start);
            inner.last_thinking = None;
            shared.moved(inner);
            true
        }
        _ => false,
    }
}
