//! Build script: the chess weights to embed. By default the network `weights/chess-nnue.bin`
//! (the tuned evaluation `weights/chess-hce.bin` is always built in beside it, as
//! `EvalFile <hce>`); OpenBench
//! builds (and anyone) may embed another weight file with `make EVALFILE=<absolute path>`,
//! which the Makefile passes on as `TABULA_EVALFILE` (a tuned-evaluation file or a network
//! from `tabula train`, told apart when the engine starts, as `EvalFile` does).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=TABULA_EVALFILE");
    let source = match std::env::var_os("TABULA_EVALFILE").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from("weights/chess-nnue.bin"),
    };
    println!("cargo:rerun-if-changed={}", source.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("chess-eval.bin");
    if let Err(e) = std::fs::copy(&source, &out) {
        // A build script's failure is the build's: say which file and why.
        eprintln!("EVALFILE {}: {e}", source.display());
        std::process::exit(1);
    }
}
