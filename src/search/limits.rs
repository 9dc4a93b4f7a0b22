//! What bounds a search (`go` parameters), the shared control block that stops it, and the
//! time manager that turns a clock into a soft and a hard budget.
//!
//! Contract: the hard budget never exceeds the remaining clock minus `Move Overhead`; the soft
//! budget is where iterative deepening stops starting new iterations. While `pondering` is
//! set no time limit applies; `ponderhit` clears it and restarts the clock.

use crate::game::Player;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Mate in this many moves (UCI) is enough.
    pub mate: Option<u32>,
    pub movetime: Option<u64>,
    /// Remaining clock per player in ms (`wtime`/`p1time`, `btime`/`p2time`).
    pub time: [Option<u64>; 2],
    pub inc: [u64; 2],
    pub movestogo: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// The game's exact solver may run first (off for depth-limited searches, where it
    /// could run unbounded; under a node limit only a game whose solver keeps to a count of
    /// nodes runs it, `BooksAndSolvers::solve_in_play`).
    pub allow_solver: bool,
}

impl Limits {
    pub fn depth(d: u32) -> Self {
        Limits {
            depth: Some(d),
            ..Default::default()
        }
    }
}

/// Soft and hard time budgets in ms for one move, or `None` when the clock does not limit us.
pub fn budget(limits: &Limits, side: Player, overhead: u64) -> Option<(u64, u64)> {
    if let Some(mt) = limits.movetime {
        let hard = mt.saturating_sub(overhead.min(mt / 2)).max(1);
        return Some((hard, hard));
    }
    let time = limits.time[side.index()]?;
    let inc = limits.inc[side.index()];
    let left = time.saturating_sub(overhead).max(1);
    let mtg = limits.movestogo.unwrap_or(30).clamp(1, 40) as u64;
    let soft = left / mtg + inc * 3 / 4;
    let cap = if mtg == 1 { left * 8 / 10 } else { left / 3 };
    let hard = (soft * 4).min(cap).max(1);
    Some((soft.min(hard).max(1), hard))
}

/// Shared between the protocol thread and the search threads.
pub struct Control {
    pub stop: AtomicBool,
    /// `go ponder` until `ponderhit`: no time limit, and no `bestmove` before release.
    pub pondering: AtomicBool,
    /// `go infinite`: no `bestmove` before `stop`.
    pub infinite: bool,
    pub nodes: AtomicU64,
    /// Endgame-tablebase probes that gave an answer (`tbhits`).
    pub tbhits: AtomicU64,
    start: Mutex<Instant>,
    soft_ms: AtomicU64,
    hard_ms: AtomicU64,
}

const UNLIMITED: u64 = u64::MAX;

impl Control {
    pub fn new(limits: &Limits, side: Player, overhead: u64) -> Self {
        let (soft, hard) = budget(limits, side, overhead).unwrap_or((UNLIMITED, UNLIMITED));
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(limits.ponder),
            infinite: limits.infinite,
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
            start: Mutex::new(Instant::now()),
            soft_ms: AtomicU64::new(soft),
            hard_ms: AtomicU64::new(hard),
        }
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.start
            .lock()
            .map(|s| s.elapsed().as_millis() as u64)
            .unwrap_or(0)
    }

    pub fn ponderhit(&self) {
        if let Ok(mut s) = self.start.lock() {
            *s = Instant::now();
        }
        self.pondering.store(false, Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    fn timed(&self) -> bool {
        !self.pondering.load(Relaxed)
    }

    pub fn past_hard(&self) -> bool {
        let hard = self.hard_ms.load(Relaxed);
        hard != UNLIMITED && self.timed() && self.elapsed_ms() >= hard
    }

    /// True when `scale` percent of the hard budget has gone.
    pub fn past_hard_share(&self, scale: u64) -> bool {
        let hard = self.hard_ms.load(Relaxed);
        hard != UNLIMITED && self.timed() && self.elapsed_ms() * 100 >= hard * scale
    }

    /// True when a new iteration should not be started (`scale` in percent of the soft budget).
    pub fn past_soft(&self, scale: u64) -> bool {
        let soft = self.soft_ms.load(Relaxed);
        soft != UNLIMITED && self.timed() && self.elapsed_ms() * 100 >= soft * scale
    }

    /// The soft budget of this move in milliseconds, if it has one.
    pub fn soft_budget_ms(&self) -> Option<u64> {
        let soft = self.soft_ms.load(Relaxed);
        (soft != UNLIMITED).then_some(soft)
    }

    pub fn has_time_limit(&self) -> bool {
        self.soft_ms.load(Relaxed) != UNLIMITED
    }

    /// The search may hand its result over (not in `infinite`, not while pondering).
    pub fn released(&self) -> bool {
        self.stopped() || (!self.infinite && !self.pondering.load(Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_never_exceeds_clock() {
        for time in [1u64, 10, 50, 100, 1000, 60_000] {
            for inc in [0u64, 10, 100, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let limits = Limits {
                        time: [Some(time), Some(time)],
                        inc: [inc, inc],
                        movestogo: mtg,
                        ..Default::default()
                    };
                    let (soft, hard) = budget(&limits, Player::P1, 10).unwrap();
                    assert!(soft <= hard, "{time} {inc} {mtg:?}");
                    assert!(
                        hard <= time.saturating_sub(10).max(1),
                        "{time} {inc} {mtg:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn movetime_is_respected() {
        let limits = Limits {
            movetime: Some(1000),
            ..Default::default()
        };
        assert_eq!(budget(&limits, Player::P2, 10), Some((990, 990)));
        assert_eq!(budget(&Limits::default(), Player::P1, 10), None);
    }
}
