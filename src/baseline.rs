//! The processor the build assumes: a binary compiled for x86-64-v2 (`.cargo/config.toml`) may
//! run SSE4.1/4.2 and POPCNT instructions anywhere in its own code, so on an older processor
//! it would die of `SIGILL` with no word. `check` runs first (the binary registers it in
//! `.init_array`, so the loader calls it before `main` and before any of tabula's other code)
//! and, where the processor lacks a feature the build was compiled with, prints one line that
//! names them and exits with status 1.
//!
//! What is guaranteed, and what is not: the features checked are exactly those the compiler
//! was told it may use (`cfg!(target_feature)`: x86-64-v2's SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT
//! and CMPXCHG16B; none in a build for plain x86-64). The code that runs before `check` is the
//! loader, the C library and the standard library's start-up, all compiled for plain x86-64 by
//! their own builds. `check` and `report` are compiled with the crate's flags, so the compiler
//! is allowed to use the v2 instructions in them too; they are straight-line integer code
//! (CPUID, bit tests, `write`, `_exit`; no loop over data that could be vectorised, no bit
//! count), in which it has none to use, and `tests/processor/baseline.rs` runs the binary on an emulated
//! Core 2 (qemu-user, `-cpu core2duo`) to see the line rather than `SIGILL`.
//!
//! `TABULA_PRETEND_LACKS=popcnt,sse4.2` (a testing hook, read at the top of `main`) reports
//! those features as missing, so that the line and the status can be tested on any processor.

/// The features a build may have been compiled with, as (CPUID leaf 1 ECX bit, name,
/// compiled with it).
const FEATURES: [(u32, &str, bool); 6] = [
    (0, "sse3", cfg!(target_feature = "sse3")),
    (9, "ssse3", cfg!(target_feature = "ssse3")),
    (19, "sse4.1", cfg!(target_feature = "sse4.1")),
    (20, "sse4.2", cfg!(target_feature = "sse4.2")),
    (23, "popcnt", cfg!(target_feature = "popcnt")),
    (13, "cmpxchg16b", cfg!(target_feature = "cmpxchg16b")),
];

/// The features (as `FEATURES` bits: bit `i` for `FEATURES[i]`) the build needs and a
/// processor whose CPUID leaf 1 ECX is `ecx` lacks.
#[inline(always)]
pub fn missing(ecx: u32) -> u32 {
    let mut lacks = 0;
    let mut i = 0;
    while i < FEATURES.len() {
        let (bit, _, needed) = FEATURES[i];
        if needed && ecx >> bit & 1 == 0 {
            lacks |= 1 << i;
        }
        i += 1;
    }
    lacks
}

/// The features of `FEATURES` named in `list` (comma separated), as `missing` gives them;
/// unknown names are ignored.
pub fn named(list: &str) -> u32 {
    let mut mask = 0;
    for name in list.split(',').map(str::trim) {
        if let Some(i) = FEATURES.iter().position(|&(_, n, _)| n == name) {
            mask |= 1 << i;
        }
    }
    mask
}

/// Refuses to go on, with one line on stderr, where the processor lacks a feature the build
/// needs. The first thing the binary runs (`main.rs`).
#[inline(never)]
pub extern "C" fn check() {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID exists on every x86-64 processor, leaf 1 always. (`unsafe` for
        // toolchains before `__cpuid` became a safe function.)
        #[allow(unused_unsafe)]
        let ecx = unsafe { std::arch::x86_64::__cpuid(1) }.ecx;
        let lacks = missing(ecx);
        if lacks != 0 {
            report(lacks);
        }
    }
}

/// `TABULA_PRETEND_LACKS`: `report` those features, as if missing (a testing hook).
pub fn pretend_from_env() {
    if let Some(list) = std::env::var_os("TABULA_PRETEND_LACKS") {
        let lacks = named(&list.to_string_lossy());
        if lacks != 0 {
            report(lacks);
        }
    }
}

/// Writes `tabula: this processor lacks sse4.2, popcnt, which this build needs (x86-64-v2);
/// ...` to stderr and exits with status 1, without running anything else of the process
/// (`_exit`: no destructors, no buffered output).
#[inline(never)]
pub fn report(lacks: u32) -> ! {
    put("tabula: this processor lacks ");
    let mut first = true;
    for (i, &(_, name, _)) in FEATURES.iter().enumerate() {
        if lacks >> i & 1 == 1 {
            if !first {
                put(", ");
            }
            put(name);
            first = false;
        }
    }
    put(
        ", which this build needs (x86-64-v2, .cargo/config.toml); build one for this processor \
         with RUSTFLAGS='-C target-cpu=x86-64' cargo build --release\n",
    );
    exit()
}

#[cfg(unix)]
fn put(s: &str) {
    // SAFETY: `s` is a valid buffer of `s.len()` bytes; a failed or short write is ignored (the
    // process is about to exit anyway).
    unsafe {
        libc::write(2, s.as_ptr().cast(), s.len());
    }
}

#[cfg(unix)]
fn exit() -> ! {
    // SAFETY: `_exit` ends the process at once; nothing of it runs after.
    unsafe { libc::_exit(1) }
}

#[cfg(not(unix))]
fn put(s: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(s.as_bytes());
}

#[cfg(not(unix))]
fn exit() -> ! {
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_processor_with_every_feature_lacks_none() {
        assert_eq!(missing(u32::MAX), 0);
        // This very processor runs the test binary, compiled with the same flags.
        #[cfg(target_arch = "x86_64")]
        #[allow(unused_unsafe)]
        // SAFETY: CPUID leaf 1 exists on every x86-64 processor.
        let ecx = unsafe { std::arch::x86_64::__cpuid(1) }.ecx;
        #[cfg(target_arch = "x86_64")]
        assert_eq!(missing(ecx), 0);
    }

    #[test]
    fn a_core2_lacks_sse4_and_popcnt() {
        // Core 2 Duo (Merom): SSE3, SSSE3, CMPXCHG16B, nothing later.
        let core2 = 1 | 1 << 9 | 1 << 13;
        let expected = if cfg!(target_feature = "sse4.2") {
            named("sse4.1, sse4.2,popcnt")
        } else {
            0
        };
        assert_eq!(missing(core2), expected);
        assert_eq!(named("popcnt,bogus"), 1 << 4);
    }
}
