//! Memory for the solvers' large tables: zeroed words on a 2 MiB boundary, backed by huge pages
//! where the kernel allows (fewer TLB misses on random probes), and a prefetch hint.

use std::sync::atomic::AtomicU64;

const HUGE: usize = 2 << 20;

/// `n` zeroed words, lazily: the memory comes zeroed from the allocator (fresh pages from the
/// system for large sizes) and a page is only taken when first written. `None` when the memory
/// cannot be had (`fallible`), else the process aborts as any failed allocation does.
fn zeroed(n: usize, fallible: bool) -> Option<Vec<AtomicU64>> {
    let layout = std::alloc::Layout::array::<AtomicU64>(n.max(1)).ok()?;
    // SAFETY: the layout has a non-zero size. All-zero bits are a valid AtomicU64, and the
    // vector owns an allocation made with exactly the layout of a Vec<AtomicU64> of capacity
    // `n.max(1)`.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut AtomicU64;
        if p.is_null() {
            if fallible {
                return None;
            }
            std::alloc::handle_alloc_error(layout);
        }
        Some(Vec::from_raw_parts(p, n, n.max(1)))
    }
}

/// `n` zeroed words starting at a 2 MiB boundary (the vector and the index of the first),
/// untouched: on Linux the range is marked for transparent huge pages, which the kernel backs
/// 2 MiB at a time as the search first writes them (fewer page faults and TLB misses on random
/// probes than 4 KiB pages).
pub fn huge_lazy(n: usize, fallible: bool) -> Option<(Vec<AtomicU64>, usize)> {
    let extra = HUGE / 8;
    let v = zeroed(n.checked_add(extra)?, fallible)?;
    let addr = v.as_ptr() as usize;
    let base = (addr.next_multiple_of(HUGE) - addr) / 8;
    #[cfg(target_os = "linux")]
    if n * 8 >= HUGE {
        // SAFETY: the range lies inside the vector's allocation (n + extra words, base <
        // extra), and MADV_HUGEPAGE only changes how the kernel backs it.
        unsafe {
            libc::madvise(
                v.as_ptr().add(base) as *mut libc::c_void,
                n * 8 / HUGE * HUGE,
                libc::MADV_HUGEPAGE,
            );
        }
    }
    Some((v, base))
}

/// `huge_lazy`, then every word touched, so that the pages are taken now.
pub fn huge_zeroed(n: usize, fallible: bool) -> Option<(Vec<AtomicU64>, usize)> {
    let (v, base) = huge_lazy(n, fallible)?;
    for w in &v[base..] {
        w.store(0, std::sync::atomic::Ordering::Relaxed);
    }
    Some((v, base))
}

/// Starts loading the cache line of `word` (a hint: no effect on results).
#[inline]
pub fn prefetch(word: &AtomicU64) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = word.as_ptr() as *const i8;
        // SAFETY: a prefetch is only a hint: it never faults and reads nothing into the
        // program; `p` points at a live word anyway.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}
