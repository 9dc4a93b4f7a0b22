//! Memory for the solvers' large tables: zeroed words on a 2 MiB boundary, backed by huge pages
//! where the kernel allows (fewer TLB misses on random probes), and a prefetch hint.

use std::sync::atomic::AtomicU64;

const HUGE: usize = 2 << 20;

/// `n` zeroed words starting at a 2 MiB boundary (the vector and the index of the first).
/// On Linux the range is marked for transparent huge pages before it is first touched. With
/// `fallible`, `None` when the memory cannot be reserved.
pub fn huge_zeroed(n: usize, fallible: bool) -> Option<(Vec<AtomicU64>, usize)> {
    let extra = HUGE / 8;
    let mut v: Vec<AtomicU64> = Vec::new();
    if fallible {
        v.try_reserve_exact(n + extra).ok()?;
    } else {
        v.reserve_exact(n + extra);
    }
    let addr = v.as_ptr() as usize;
    let base = (addr.next_multiple_of(HUGE) - addr) / 8;
    #[cfg(target_os = "linux")]
    if n * 8 >= HUGE {
        // SAFETY: the range lies inside the vector's allocation (capacity n + extra words,
        // base < extra), and MADV_HUGEPAGE only changes how the kernel backs it.
        unsafe {
            libc::madvise(
                v.as_mut_ptr().add(base) as *mut libc::c_void,
                n * 8 / HUGE * HUGE,
                libc::MADV_HUGEPAGE,
            );
        }
    }
    v.extend((0..n + extra).map(|_| AtomicU64::new(0)));
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
