//! Resumable solves (`--checkpoint`): a solver's table saved every few minutes, on SIGINT or
//! SIGTERM and at the end, and loaded again by the same command.

use std::time::Instant;

/// Set by SIGINT or SIGTERM during a checkpointed solve.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub(super) fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A solver's table that a resumable solve saves and loads.
pub(super) trait Checkpoint: Sync {
    fn save(&self, path: &std::path::Path) -> Result<(), String>;
    fn load(&self, path: &std::path::Path) -> Result<(), String>;
}

impl Checkpoint for tabula::games::connect4::solver::SolverTable {
    fn save(&self, path: &std::path::Path) -> Result<(), String> {
        self.save(path)
    }
    fn load(&self, path: &std::path::Path) -> Result<(), String> {
        self.load(path)
    }
}

/// Loads the checkpoint (if any), installs the signal handlers and starts the thread that
/// saves the table every `minutes` (ending when the solve does: it is scoped).
pub(super) fn checkpointed<'s, 'e>(
    scope: &'s std::thread::Scope<'s, 'e>,
    table: &'e dyn Checkpoint,
    path: &'e std::path::Path,
    minutes: u64,
) -> Result<(), String> {
    if path.exists() {
        let t = Instant::now();
        table.load(path)?;
        eprintln!(
            "checkpoint {}: table loaded in {:.1} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    scope.spawn(move || {
        let mut last = Instant::now();
        while !interrupted() && !DONE.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(200));
            if last.elapsed().as_secs() >= minutes * 60 {
                match table.save(path) {
                    Ok(()) => eprintln!("checkpoint {} saved", path.display()),
                    Err(e) => eprintln!("{e}"),
                }
                last = Instant::now();
            }
        }
    });
    Ok(())
}

/// Set when the checkpointed solve is over (ends the saving thread).
pub(super) static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
