//! Which vector instruction set the hot integer kernels run with, chosen once per process from
//! what the processor has (the build itself targets x86-64-v2, SSE4.2, so that one binary runs
//! everywhere): AVX-512 (F + BW), else AVX2, else the baseline. `TABULA_SIMD=scalar|avx2|avx512`
//! asks for a lower level (a higher one than the processor has is refused and the best
//! available used), to compare the paths side by side with one binary.
//!
//! Invariant: every path computes exactly the same integers (the kernels are one generic body,
//! compiled once per level with `#[target_feature]`; integer sums are associative), so node
//! counts and bench signatures do not depend on the machine.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The build's baseline (SSE4.2 on x86-64; whatever the target has elsewhere).
    Scalar = 1,
    Avx2 = 2,
    Avx512 = 3,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "sse4.2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// Every level this processor can run, lowest first.
    pub fn available() -> Vec<Level> {
        let best = detected();
        [Level::Scalar, Level::Avx2, Level::Avx512]
            .into_iter()
            .filter(|&l| l <= best)
            .collect()
    }
}

/// The best level the processor has.
pub fn detected() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw") {
            return Level::Avx512;
        }
        if std::is_x86_feature_detected!("avx2") {
            return Level::Avx2;
        }
    }
    Level::Scalar
}

static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The level in use: the best detected, or lower where `TABULA_SIMD` asks.
#[inline]
pub fn level() -> Level {
    match LEVEL.load(Relaxed) {
        1 => Level::Scalar,
        2 => Level::Avx2,
        3 => Level::Avx512,
        _ => choose(),
    }
}

#[cold]
fn choose() -> Level {
    let best = detected();
    let asked = match std::env::var("TABULA_SIMD").ok().as_deref() {
        Some("scalar" | "sse4.2" | "sse") => Some(Level::Scalar),
        Some("avx2") => Some(Level::Avx2),
        Some("avx512") => Some(Level::Avx512),
        Some(other) => {
            log::warn!(
                "TABULA_SIMD={other}: not a level (scalar, avx2, avx512); using {}",
                best.name()
            );
            None
        }
        None => None,
    };
    let level = asked.map_or(best, |a| a.min(best));
    LEVEL.store(level as u8, Relaxed);
    level
}
