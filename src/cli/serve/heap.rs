//! The server's heap under glibc's allocator. `tabula serve` is a long-running process whose
//! work moves between many short threads (tokio's blocking pool, one per action, gone 2 s after
//! it idles; each game's engine and solver threads), and glibc gives threads their own arenas,
//! up to eight per core, each keeping what was freed in it. Measured with
//! `scripts/serve_abuse.py` (errors.md, "The hour's memory, settled"): with the default arenas
//! the resident size climbed by 17.7 MiB over the hour's six rounds; with two arenas and the
//! free pages handed back every janitor tick it comes back to the warm-up's after each burst
//! and was flat over the hour's last half (+6.0 MiB in all). Elsewhere (another C library)
//! both are no-ops.

/// At most two arenas for the whole process (the engine threads are few; the allocator's
/// contention is not what bounds the server). Called before the runtime starts its threads.
pub fn bound_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets one of the allocator's parameters.
    unsafe {
        if libc::mallopt(libc::M_ARENA_MAX, 2) == 0 {
            log::warn!("serve: cannot bound the allocator's arenas");
        }
    }
}

/// Hands the pages no allocation uses back to the system, in every arena.
pub fn give_back_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds unused.
    unsafe {
        libc::malloc_trim(0);
    }
}
