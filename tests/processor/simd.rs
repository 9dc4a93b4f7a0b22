//! The instruction levels seen from outside the binary (`src/simd.rs`): `TABULA_SIMD=scalar`
//! runs the baseline in full (`pext` off too), and no value of `TABULA_SIMD` raises the level
//! above what the processor has. `tabula bench` names the level in use on its first line.

use std::process::Command;

use super::TABULA;

/// The level named on `bench`'s first line under `TABULA_SIMD=value` (unset: `None`).
fn bench_level(value: Option<&str>) -> String {
    let mut cmd = Command::new(TABULA);
    cmd.args(["bench", "--game", "othello", "--depth", "2"]);
    cmd.env_remove("TABULA_SIMD");
    if let Some(v) = value {
        cmd.env("TABULA_SIMD", v);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("{cmd:?}: {e}"),
    };
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let first = text.lines().next().unwrap_or_default();
    let level = first.rsplit('(').next().unwrap_or_default();
    level.trim_end_matches(')').to_string()
}

#[test]
fn tabula_simd_scalar_turns_pext_off_and_nothing_raises_a_level() {
    assert_eq!(bench_level(Some("scalar")), "sse4.2");
    let best = bench_level(None);
    // The binary's detection is the library's: `pext` is named where it is present and fast.
    let here = tabula::simd::detected();
    assert_eq!(best, here.name(), "unasked, the best level here");
    assert_eq!(best.contains("+pext"), here.pext());
    // A level never rises above the processor's (here, what the binary detects unasked).
    for asked in ["avx512", "avx2", "nonsense"] {
        let got = bench_level(Some(asked));
        let rank = |l: &str| {
            ["sse4.2", "avx2", "avx512"]
                .iter()
                .position(|p| l.starts_with(p))
        };
        assert!(
            rank(&got) <= rank(&best),
            "TABULA_SIMD={asked}: {got} above {best}"
        );
        assert!(
            !got.contains("pext") || best.contains("pext"),
            "{asked}: {got}"
        );
    }
}
