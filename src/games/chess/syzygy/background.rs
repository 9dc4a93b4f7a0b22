//! The rest of a large table set, checked on a thread of its own after `SyzygyPath` has
//! answered (the check reads every block-length table: about a second for 50 MB of tables
//! here, far more for a 6-piece set). Tables are added to the prober a batch at a time
//! (`tables::add`), each batch about a second of checking, so the search probes the small
//! tables first and the others as they pass.
//!
//! Invariants: the thread stops as soon as its `SyzygyPath` is no longer the current one
//! (`GENERATION`), between two files; it shares only what `tables` and `files` below it hold.

use super::files::{Found, check_while};
use super::tables::{self, GENERATION};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// How long one batch checks before its tables are added.
const BATCH: Duration = Duration::from_secs(1);

/// Checks `rest` on a new thread and adds what passes to the tables of `generation`; one
/// notice line per file refused and one when all are in. False if no thread could start
/// (then the rest is not loaded, and a notice says so).
pub(super) fn check_rest(rest: Vec<Found>, generation: u64) -> bool {
    let total = rest.len();
    let spawned = std::thread::Builder::new()
        .name("syzygy-check".into())
        .spawn(move || run(rest, generation, total));
    spawned.is_ok()
}

fn run(mut rest: Vec<Found>, generation: u64, total: usize) {
    let current = || GENERATION.load(Relaxed) == generation;
    let mut loaded = 0;
    while !rest.is_empty() && current() {
        let until = Instant::now() + BATCH;
        let (scan, left) = check_while(rest, &|| current() && Instant::now() < until);
        rest = left;
        let mut lines: Vec<String> = scan.bad.iter().map(|b| format!("error: {b}")).collect();
        loaded += scan.good.len();
        for line in &scan.bad {
            log::warn!("{line}");
        }
        if !tables::add(scan.good, generation) {
            return;
        }
        if rest.is_empty() {
            let message = format!(
                "SyzygyPath: the {total} table files checked after the first answer are done: {loaded} loaded, {} not used",
                total - loaded
            );
            log::info!("{message}");
            lines.push(message);
        }
        tables::notice(lines);
    }
}
