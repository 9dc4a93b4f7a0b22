//! The solver of a browser session: a thread that wakes when the position changes and, where
//! the game's solver can answer (`View::exact_possible`), works out the exact value of every
//! legal move within a time budget, publishing each value as it is found; when every move is
//! valued, the position's own value (the best move's) goes to its tree node for the
//! evaluation graph. A new position, the values turned off, or a closed session aborts it.

use super::board::View;
use super::state::{ExactState, GameState, SharedGame};
use super::tree::Exact;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// The time the solver may spend on one position.
const BUDGET: Duration = Duration::from_secs(10);

pub fn run<G: View>(shared: Arc<SharedGame<G>>) {
    loop {
        let (generation, pos, epoch) = {
            let mut inner = shared.lock();
            loop {
                if inner.closed {
                    return;
                }
                if inner.settings.exact
                    && inner.exact_gen != inner.generation
                    && inner.line.result().is_none()
                {
                    break;
                }
                inner = match shared.changed.wait_timeout(inner, Duration::from_secs(1)) {
                    Ok((g, _)) => g,
                    Err(e) => e.into_inner().0,
                };
            }
            inner.exact_gen = inner.generation;
            inner.exact.clear();
            let possible = inner.line.pos.exact_possible();
            inner.exact_state = if possible {
                ExactState::Running
            } else {
                ExactState::Off
            };
            shared.touch_live(&mut inner, None);
            if !possible {
                continue;
            }
            // Read under the lock, where a toggle of the values bumps it.
            let epoch = shared.exact_epoch.load(Relaxed);
            (inner.generation, inner.line.pos.clone(), epoch)
        };
        let deadline = Instant::now() + BUDGET;
        let abort = || {
            shared.generation.load(Relaxed) != generation
                || shared.exact_epoch.load(Relaxed) != epoch
                || shared.closed.load(Relaxed)
                || Instant::now() > deadline
        };
        let done = pos.exact_values(&abort, &mut |v| {
            let mut inner = shared.lock();
            if inner.generation == generation && shared.exact_epoch.load(Relaxed) == epoch {
                inner.exact.push(v);
                shared.touch_live(&mut inner, None);
            }
        });
        let mut inner = shared.lock();
        if inner.generation == generation && shared.exact_epoch.load(Relaxed) == epoch {
            inner.exact_state = if done {
                ExactState::Done
            } else {
                ExactState::Stopped
            };
            if done {
                keep_value(&mut inner);
            }
            let cursor = inner.tree.cursor;
            shared.touch_live(&mut inner, Some(cursor));
        }
    }
}

/// The value of the position on show, from its moves' values, kept in its node for player 1.
fn keep_value<G: View>(inner: &mut GameState<G>) {
    let Some(best) = inner.exact.iter().map(|v| v.value).max() else {
        return;
    };
    let value = if inner.line.pos.to_move().index() == 0 {
        best
    } else {
        -best
    };
    // Domineering's values are only who wins; the others' are margins (discs, a score).
    let label = if G::NAME == "domineering" {
        format!("{} wins", G::SIDES[if value > 0 { 0 } else { 1 }])
    } else {
        format!("{value:+}").replace("+0", "0")
    };
    let cursor = inner.tree.cursor;
    if let Some(n) = inner.tree.node_mut(cursor) {
        n.exact = Some(Exact { value, label });
    }
}
