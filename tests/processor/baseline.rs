//! The processor check, seen from outside the binary: on a processor below the build's
//! baseline one line and status 1 instead of `SIGILL` (`src/baseline.rs`).
//!
//! The real older processor is an emulated Core 2 (qemu-user's `qemu-x86_64 -cpu core2duo`:
//! SSSE3, no SSE4.1, SSE4.2 or POPCNT), used where qemu-user is installed and skipped with a
//! note otherwise; `TABULA_PRETEND_LACKS` tests the line and the status on any processor.

use std::process::{Command, Output};

use super::TABULA;

fn run(cmd: &mut Command) -> Output {
    match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("{cmd:?}: {e}"),
    }
}

/// The whole of stderr is one line naming `lacks`, nothing on stdout, status 1.
fn assert_refused(out: &Output, lacks: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?}, stderr {err}", out.status);
    assert!(out.stdout.is_empty(), "stdout {:?}", out.stdout);
    assert_eq!(err.lines().count(), 1, "{err}");
    let prefix = format!("tabula: this processor lacks {lacks}, which this build needs");
    assert!(err.starts_with(&prefix), "{err}");
    assert!(err.contains("target-cpu=x86-64"), "{err}");
}

#[test]
fn a_processor_without_a_feature_gets_one_line_and_status_1() {
    for args in [&["bench"][..], &["--game", "othello"], &["--help"]] {
        let out = run(Command::new(TABULA)
            .args(args)
            .env("TABULA_PRETEND_LACKS", "popcnt,sse4.2"));
        assert_refused(&out, "sse4.2, popcnt");
    }
}

#[test]
fn an_emulated_core2_gets_the_line_not_sigill() {
    if !cfg!(all(target_arch = "x86_64", target_feature = "sse4.2")) {
        eprintln!("skipped: this build does not target x86-64-v2");
        return;
    }
    let qemu = match Command::new("qemu-x86_64").arg("-version").output() {
        Ok(o) if o.status.success() => "qemu-x86_64",
        _ => {
            eprintln!("skipped: qemu-user is not installed (apt-get install qemu-user)");
            return;
        }
    };
    let out = run(Command::new(qemu)
        .args(["-cpu", "core2duo", TABULA, "bench"])
        .env_remove("TABULA_PRETEND_LACKS"));
    assert_refused(&out, "sse4.1, sse4.2, popcnt");
    // And on an emulated processor that has them (Nehalem, 2008: x86-64-v2), it runs.
    let out = run(Command::new(qemu).args(["-cpu", "Nehalem", TABULA, "perft", "2"]));
    assert!(out.status.success(), "{:?} {out:?}", out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains("400"));
}
