//! Which instructions beyond the build's baseline the hot integer kernels may use, chosen once
//! per process from what the processor has (the build itself targets x86-64-v2, SSE4.2 and
//! POPCNT, so that one binary runs everywhere; `baseline.rs` refuses an older processor). Two
//! choices, made together and carried in one token, `Level`:
//! - the chess network's vector kernels: AVX-512 (F + BW), else AVX2, else the baseline;
//! - Othello's pattern gathers with BMI2's `pext`, where `pext` is fast (`cpu::pext_is_fast`:
//!   not on AMD before Zen 3, where it is microcoded and slower than the portable loop).
//!
//! `TABULA_SIMD=scalar|avx2|avx512` asks for a lower level (a higher one than the processor has
//! is refused and the best available used), to compare the paths side by side with one binary;
//! `scalar` is the baseline in full, `pext` off too.
//!
//! Invariants: a `Level` can only be made here, from detection (its fields are private, and
//! `TABULA_SIMD` and `lowered` only ever take features away), so safe code holding one may run
//! the `#[target_feature]` kernels it names. Every path computes exactly the same integers (the
//! kernels are one generic body compiled once per level; integer sums are associative; `pext`
//! and the loop gather the same digits), so node counts and bench signatures do not depend on
//! the machine.
//!
//! A `Level` cannot be written by hand:
//! ```compile_fail,E0451
//! let forged = tabula::simd::Level { vector: tabula::simd::Vector::Avx512, pext: true };
//! ```
//! nor named, as the enum it was before issue 89 allowed (`Level::Avx512` on any processor):
//! ```compile_fail,E0599
//! let forged: tabula::simd::Level = tabula::simd::Level::Avx512;
//! ```
//! only received from detection:
//! ```
//! let l: tabula::simd::Level = tabula::simd::level();
//! assert!(l.vector() <= tabula::simd::detected().vector());
//! ```

mod cpu;

pub use cpu::pext_is_fast;

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The chess network's kernels, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Vector {
    /// The build's baseline (SSE4.2 on x86-64; whatever the target has elsewhere).
    Scalar = 1,
    Avx2 = 2,
    Avx512 = 3,
}

impl Vector {
    pub fn name(self) -> &'static str {
        match self {
            Vector::Scalar => "sse4.2",
            Vector::Avx2 => "avx2",
            Vector::Avx512 => "avx512",
        }
    }
}

/// A set of instructions this processor has: the proof that the `#[target_feature]` kernels it
/// names may run. Made only by detection (`detected`, `level`, `available`) and lowered only
/// (`lowered`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    vector: Vector,
    /// BMI2's `pext`, present and fast.
    pext: bool,
}

impl Level {
    /// The chess network's kernels.
    #[inline]
    pub fn vector(self) -> Vector {
        self.vector
    }

    /// Whether Othello's gathers use BMI2's `pext` (present and fast here, not turned off).
    #[inline]
    pub fn pext(self) -> bool {
        self.pext
    }

    /// As `tabula bench` names it: `avx512`, `avx2+pext`, `sse4.2`.
    pub fn name(self) -> String {
        let mut s = self.vector.name().to_string();
        if self.pext {
            s.push_str("+pext");
        }
        s
    }

    /// This level with its kernels at most `vector`; the baseline (`Vector::Scalar`) is the
    /// baseline in full, without `pext`. Never adds anything.
    pub fn lowered(self, vector: Vector) -> Level {
        Level {
            vector: self.vector.min(vector),
            pext: self.pext && vector > Vector::Scalar,
        }
    }

    /// Every level this processor can run, lowest first: each kernel up to the best detected,
    /// with `pext` where it is fast (the baseline without).
    pub fn available() -> Vec<Level> {
        let best = detected();
        [Vector::Scalar, Vector::Avx2, Vector::Avx512]
            .into_iter()
            .filter(|&v| v <= best.vector)
            .map(|v| best.lowered(v))
            .collect()
    }

    fn encode(self) -> u8 {
        self.vector as u8 | (self.pext as u8) << 2
    }
}

/// The best level the processor has.
pub fn detected() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        let vector = if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
        {
            Vector::Avx512
        } else if std::is_x86_feature_detected!("avx2") {
            Vector::Avx2
        } else {
            Vector::Scalar
        };
        let pext = std::is_x86_feature_detected!("bmi2") && cpu::pext_fast_here();
        Level { vector, pext }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Level {
        vector: Vector::Scalar,
        pext: false,
    }
}

/// The level chosen, `encode`d (0: not chosen yet).
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The level in use: the best detected, or lower where `TABULA_SIMD` asks.
#[inline]
pub fn level() -> Level {
    let code = LEVEL.load(Relaxed);
    let vector = match code & 3 {
        1 => Vector::Scalar,
        2 => Vector::Avx2,
        3 => Vector::Avx512,
        _ => return choose(),
    };
    // Only `choose` stores, and only the encoding of a detected level lowered.
    Level {
        vector,
        pext: code & 4 != 0,
    }
}

#[cold]
fn choose() -> Level {
    let best = detected();
    let level = asked(best, std::env::var("TABULA_SIMD").ok().as_deref());
    LEVEL.store(level.encode(), Relaxed);
    level
}

/// `best` lowered as `TABULA_SIMD` (`value`) asks, if it does.
fn asked(best: Level, value: Option<&str>) -> Level {
    let vector = match value {
        Some("scalar" | "sse4.2" | "sse") => Vector::Scalar,
        Some("avx2") => Vector::Avx2,
        Some("avx512") => Vector::Avx512,
        Some(other) => {
            log::warn!(
                "TABULA_SIMD={other}: not a level (scalar, avx2, avx512); using {}",
                best.name()
            );
            return best;
        }
        None => return best,
    };
    best.lowered(vector)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: Level = Level {
        vector: Vector::Avx512,
        pext: true,
    };

    #[test]
    fn scalar_is_the_whole_baseline_pext_off() {
        for v in ["scalar", "sse4.2", "sse"] {
            let l = asked(TOP, Some(v));
            assert_eq!(l.vector(), Vector::Scalar);
            assert!(!l.pext(), "TABULA_SIMD={v} leaves pext on");
            assert_eq!(l.name(), "sse4.2");
        }
        assert_eq!(asked(TOP, Some("avx2")).name(), "avx2+pext");
        assert_eq!(asked(TOP, None), TOP);
        assert_eq!(asked(TOP, Some("bogus")), TOP);
    }

    #[test]
    fn the_environment_never_raises_a_level() {
        let low = Level {
            vector: Vector::Scalar,
            pext: false,
        };
        for v in ["avx512", "avx2", "scalar", "x"] {
            assert_eq!(asked(low, Some(v)), low, "TABULA_SIMD={v}");
        }
        let avx2 = Level {
            vector: Vector::Avx2,
            pext: false,
        };
        assert_eq!(asked(avx2, Some("avx512")), avx2);
    }

    #[test]
    fn every_level_available_is_below_the_detected_one() {
        let best = detected();
        for l in Level::available() {
            assert!(l.vector() <= best.vector());
            assert!(!l.pext() || best.pext());
        }
        assert_eq!(Level::available().last(), Some(&best));
        let used = level();
        assert!(used.vector() <= best.vector() && (!used.pext() || best.pext()));
        assert_eq!(level(), used, "the encoding round-trips");
    }
}
