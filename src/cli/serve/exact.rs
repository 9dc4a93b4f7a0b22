//! The solver of a browser session: a thread that wakes when the position changes and, where
//! the game's solver can answer (`View::exact_possible`), works out the exact value of every
//! legal move within a time budget, publishing each value as it is found. A new position,
//! the values turned off, or a closed session aborts it.

use super::board::View;
use super::state::{ExactState, Shared};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// The time the solver may spend on one position.
const BUDGET: Duration = Duration::from_secs(10);

pub fn run<G: View>(shared: Arc<Shared<G>>) {
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
            shared.touch(&mut inner);
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
                shared.touch(&mut inner);
            }
        });
        let mut inner = shared.lock();
        if inner.generation == generation && shared.exact_epoch.load(Relaxed) == epoch {
            inner.exact_state = if done {
                ExactState::Done
            } else {
                ExactState::Stopped
            };
            shared.touch(&mut inner);
        }
    }
}
