//! The tables loaded in the prober, process-wide (the crate holds one set at a time), and
//! every change of them: a new `SyzygyPath` (`replace`), more tables checked in the
//! background (`add`), a table let go because another process began to change it
//! (`let_go_of_changed_tables`), and `unload`.
//!
//! Invariants: the crate is only ever given a private directory of links to `Checked` files
//! that are held open here (`files`); its tables are dropped (unmapped) before the links and
//! the descriptors go. `LARGEST` is 0 whenever nothing is loaded, so that every probe says
//! "no" after one atomic load. `GENERATION` counts `SyzygyPath` values: a background check
//! adds its tables only while its generation is still the current one.

use super::CozyAdapter;
use super::files::{Checked, largest_of, link_checked};
use super::lease;
use pyrrhic_rs::TableBases;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, RwLock};
use tempfile::TempDir;

pub(super) struct Loaded {
    /// Dropped first: the crate unmaps its tables before the links and files go.
    pub(super) tables: TableBases<CozyAdapter>,
    /// The private directory of links to `files`, removed on drop.
    links: TempDir,
    files: Vec<Checked>,
    /// The `SyzygyPath` these tables came from (`GENERATION`).
    generation: u64,
}

pub(super) static TABLES: RwLock<Option<Loaded>> = RwLock::new(None);
/// Pieces of the largest table loaded; 0 without tables (the fast "no" of every probe).
pub(super) static LARGEST: AtomicU32 = AtomicU32::new(0);
/// The current `SyzygyPath` value's number (a new value, or the same sent again, adds one).
pub(super) static GENERATION: AtomicU64 = AtomicU64::new(0);
/// What happened to the tables since the protocol last asked (`take_notices`).
static NOTICES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn write() -> std::sync::RwLockWriteGuard<'static, Option<Loaded>> {
    TABLES.write().unwrap_or_else(|p| p.into_inner())
}

/// The messages for the user since the last call (one line each, `error: ...` for what went
/// wrong), for `info string`.
pub(super) fn take_notices() -> Vec<String> {
    std::mem::take(&mut *NOTICES.lock().unwrap_or_else(|p| p.into_inner()))
}

pub(super) fn notice(lines: Vec<String>) {
    NOTICES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .extend(lines);
}

/// The descriptors the tables loaded now hold.
pub(super) fn held() -> usize {
    TABLES
        .read()
        .map_or(0, |g| g.as_ref().map_or(0, |l| l.files.len()))
}

/// Loads exactly `files` (a fresh private directory of links to them); `Err` (with nothing
/// loaded) if the directory or the crate fails.
fn load(files: Vec<Checked>, generation: u64) -> Result<Loaded, (Vec<Checked>, String)> {
    let links = match link_checked(&files) {
        Ok(links) => links,
        Err(e) => return Err((files, e)),
    };
    match TableBases::<CozyAdapter>::new(links.path().to_string_lossy()) {
        Ok(tables) => Ok(Loaded {
            tables,
            links,
            files,
            generation,
        }),
        Err(e) => Err((files, format!("cannot load the tables: {e:?}"))),
    }
}

fn install(guard: &mut Option<Loaded>, loaded: Loaded) {
    let largest = largest_of(&loaded.files);
    *guard = Some(loaded);
    LARGEST.store(largest, Relaxed);
}

/// A new `SyzygyPath`: these tables in place of those loaded before, which stay if the new
/// ones cannot be loaded (`Err`, the reason).
pub(super) fn replace(good: Vec<Checked>, generation: u64) -> Result<(), String> {
    let mut guard = write();
    unload_at_exit_once();
    LARGEST.store(0, Relaxed);
    // The crate holds one set of tables at a time: free the old ones first, keeping their
    // files to load them again should the new ones fail.
    let old = guard.take().map(|l| {
        drop(l.tables);
        (l.files, l.generation)
    });
    match load(good, generation) {
        Ok(loaded) => {
            install(&mut guard, loaded);
            Ok(())
        }
        Err((_, why)) => {
            if let Some((files, old_generation)) = old
                && let Ok(loaded) = load(files, old_generation)
            {
                install(&mut guard, loaded);
            }
            Err(why)
        }
    }
}

/// More tables of the current `SyzygyPath`, checked in the background: loaded beside those
/// of the same path (in place of an older path's). False if the path has changed since.
pub(super) fn add(more: Vec<Checked>, generation: u64) -> bool {
    let mut guard = write();
    if GENERATION.load(Relaxed) != generation {
        return false;
    }
    // Files whose lease broke while they waited are let go with the others below.
    let (gone, more): (Vec<Checked>, Vec<Checked>) = more
        .into_iter()
        .partition(|c| c.leased && lease::broken(&c.file));
    LARGEST.store(0, Relaxed);
    let mut files = match guard.take() {
        Some(l) if l.generation == generation => {
            drop(l.tables);
            l.files
        }
        Some(older) => {
            drop(older);
            Vec::new()
        }
        None => Vec::new(),
    };
    files.extend(more);
    match load(files, generation) {
        Ok(loaded) => install(&mut guard, loaded),
        Err((_, why)) => notice(vec![format!("error: SyzygyPath: {why}")]),
    }
    drop(guard);
    notice(changed_lines(&gone));
    true
}

fn changed_lines(gone: &[Checked]) -> Vec<String> {
    gone.iter()
        .map(|c| {
            format!(
                "error: SyzygyPath: table file '{}' is being changed by another process; no longer used (send SyzygyPath again to check it anew)",
                c.name
            )
        })
        .collect()
}

/// Called by the lease watcher when another process asks to write or cut a leased table:
/// unmaps every table, leaves the changed files out, loads the others again, and only then
/// closes the changed files' descriptors (which lets the writer go on).
pub(super) fn let_go_of_changed_tables() {
    let mut guard = write();
    let changed = guard
        .as_ref()
        .is_some_and(|l| l.files.iter().any(|c| c.leased && lease::broken(&c.file)));
    if !changed {
        return;
    }
    LARGEST.store(0, Relaxed);
    let Some(old) = guard.take() else {
        return;
    };
    drop(old.tables);
    drop(old.links);
    let (gone, kept): (Vec<Checked>, Vec<Checked>) = old
        .files
        .into_iter()
        .partition(|c| c.leased && lease::broken(&c.file));
    let mut notices = changed_lines(&gone);
    if !kept.is_empty() {
        match load(kept, old.generation) {
            Ok(loaded) => install(&mut guard, loaded),
            Err((_, why)) => notices.push(format!("error: SyzygyPath: {why}")),
        }
    }
    drop(guard);
    for n in &notices {
        log::warn!("{n}");
    }
    // Told before the writer goes on, so the next command of whoever waits on it sees it.
    notice(notices);
    // The writer waits on these descriptors' leases: closed only now that nothing maps them.
    drop(gone);
}

/// Frees the tables, their links and their files (`quit`, EOF, an empty `SyzygyPath`), and
/// stops a background check.
pub(super) fn unload() {
    GENERATION.fetch_add(1, Relaxed);
    let mut guard = write();
    LARGEST.store(0, Relaxed);
    drop(guard.take());
}

/// At the process's exit however it comes (`quit`, EOF, the end of a command that set the
/// option): the directory of links goes with it, unless a search still holds the tables.
extern "C" fn unload_at_exit() {
    if let Ok(mut guard) = TABLES.try_write() {
        LARGEST.store(0, Relaxed);
        drop(guard.take());
    }
}

fn unload_at_exit_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a function with no arguments that only takes a lock without
        // waiting and drops what it holds; a failure to register leaves only the directory.
        unsafe { libc::atexit(unload_at_exit) };
    });
}
