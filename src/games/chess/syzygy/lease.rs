//! Read leases on the checked table files (Linux, `fcntl(F_SETLEASE)`), so that no other
//! process can cut or rewrite a table in place while the prober may map it.
//!
//! The prober maps a table at its first probe and then trusts every byte; a file shortened
//! under the mapping is a bus error, one rewritten is a walk through wrong offsets. With a
//! read lease on the descriptor that was checked, another process's `open` for writing or
//! `truncate` of that file waits (up to `/proc/sys/fs/lease-break-time`, 45 s by default)
//! while the kernel tells this process (`SIGIO`). The signal handler only wakes a watcher
//! thread through a pipe; the watcher calls the function it was given (`watch`), which
//! unmaps the tables, leaves the changed files out and closes their descriptors, so the
//! writer goes on only once nothing here can read the file.
//!
//! Invariants: a lease is taken only once the handler is in place (the default action of
//! `SIGIO` ends the process); the watcher holds no state of its own and calls down into
//! nothing but the function it was handed. Where a lease cannot be had (another user's
//! file without `CAP_LEASE`, a file system without leases, another system than Linux) the
//! table is still used, unguarded (protocol/errors.md); a file open for writing elsewhere
//! (a copy or download still running) is refused.

use std::fs::File;

/// Takes a read lease on a checked table's descriptor: `Ok(true)` held, `Ok(false)` not
/// to be had here (the table is used without one), `Err` when another process has the file
/// open for writing.
#[cfg(target_os = "linux")]
pub(super) fn take(file: &File) -> Result<bool, String> {
    use std::os::fd::AsRawFd;
    if !watching() {
        return Ok(false);
    }
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this `File` owns; F_SETLEASE and F_SETOWN take an int.
    if unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) } == 0 {
        // The kernel made the calling thread the signal's owner; a background check's thread
        // ends, and a signal for a thread that is not the process's first goes nowhere. The
        // process (its id) gets it, whichever thread took the lease.
        if unsafe { libc::fcntl(fd, libc::F_SETOWN, libc::getpid()) } == 0 {
            return Ok(true);
        }
        // A lease no signal would reach: let it go, and use the table unguarded.
        unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK) };
        return Ok(false);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Err(
            "another process has it open for writing (a copy or download still running?)".into(),
        ),
        _ => Ok(false),
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn take(_: &File) -> Result<bool, String> {
    Ok(false)
}

/// Whether another process has asked to write or cut this leased file (its lease is being
/// broken): the table must be let go.
#[cfg(target_os = "linux")]
pub(super) fn broken(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on a descriptor this `File` owns; F_GETLEASE takes no argument. During a
    // break it answers the type the lease is being broken to (F_UNLCK for a writer).
    unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLEASE) != libc::F_RDLCK }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn broken(_: &File) -> bool {
    false
}

#[cfg(target_os = "linux")]
mod watcher {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

    /// The pipe's write end, for the signal handler (-1 before `start`).
    static WAKE: AtomicI32 = AtomicI32::new(-1);
    /// Whether the handler and the watcher are in place (decided once).
    static STARTED: OnceLock<bool> = OnceLock::new();

    extern "C" fn on_sigio(_: libc::c_int) {
        let fd = WAKE.load(Relaxed);
        if fd < 0 {
            return;
        }
        // SAFETY: only async-signal-safe calls: errno saved and restored around a write of
        // one byte to a non-blocking pipe (a full pipe already holds a wake-up).
        unsafe {
            let errno = *libc::__errno_location();
            let byte = 1u8;
            libc::write(fd, (&raw const byte).cast(), 1);
            *libc::__errno_location() = errno;
        }
    }

    pub(super) fn started() -> bool {
        STARTED.get().copied().unwrap_or(false)
    }

    /// Installs the handler and starts the watcher thread, once; false if either failed
    /// (then no lease is ever taken).
    pub(super) fn start(on_break: fn()) -> bool {
        *STARTED.get_or_init(|| start_once(on_break))
    }

    fn start_once(on_break: fn()) -> bool {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return false;
        }
        let [read_end, write_end] = fds;
        // SAFETY: sets a flag on the descriptor just made.
        unsafe { libc::fcntl(write_end, libc::F_SETFL, libc::O_NONBLOCK) };
        let spawned = std::thread::Builder::new()
            .name("syzygy-leases".into())
            .spawn(move || watch(read_end, on_break));
        if spawned.is_err() {
            return false;
        }
        WAKE.store(write_end, Relaxed);
        // SAFETY: a zeroed sigaction with a handler that makes only async-signal-safe calls.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigio as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGIO, &action, std::ptr::null_mut()) == 0
        }
    }

    fn watch(read_end: libc::c_int, on_break: fn()) {
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reads into a buffer of the length given.
            let n = unsafe { libc::read(read_end, buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                on_break();
            } else if n == 0
                || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                return;
            }
        }
    }
}

/// Makes sure the watcher runs, calling `on_break` whenever a leased file is asked for by a
/// writer; true if leases can be taken.
#[cfg(target_os = "linux")]
pub(super) fn watch(on_break: fn()) -> bool {
    watcher::start(on_break)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn watch(_: fn()) -> bool {
    false
}

#[cfg(target_os = "linux")]
fn watching() -> bool {
    watcher::started()
}
