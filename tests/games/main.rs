//! The games through the library: the rules against reference move generators and published
//! perft counts (chess, Connect Four, Domineering, Othello), the one conformance test every
//! game passes, the solvers against published values, property tests over the input path, the
//! fuzzers' regressions, and the strength levels. One test binary for all (each test binary is
//! one more whole-program link in CI); each module is what was a file of its own, sharing only
//! the helpers of `tests/common` (nothing here sets process-wide state).

#[path = "../common/mod.rs"]
mod common;

mod chess_reference;
mod chess_rules;
mod conformance;
mod connect4;
mod domineering;
mod domineering_solver;
mod fuzz_regressions;
mod othello;
mod perft_chess;
mod properties;
mod strength;
