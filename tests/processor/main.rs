//! The processor, seen from outside the binary: the check of the build's baseline
//! (`baseline`) and the instruction levels in use (`simd`). One test binary for both (each
//! test binary is one more link of the whole program in CI).

mod baseline;
mod simd;

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");
