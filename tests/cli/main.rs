//! The binary driven as a user runs it: `corpus`, `datagen`, a `solve` or `datagen` killed
//! and resumed, `match` and its report, the Othello book through the protocol, `play`,
//! python-chess driving the engine, the recorded protocol sessions, the soak of random
//! command sequences, `solve`, and the store's checks. One test binary for all (each test
//! binary is one more whole-program link in CI); each module is what was a file of its own,
//! sharing only the helpers of `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod corpus;
mod datagen;
mod kill_resume;
mod match_report;
mod matches;
mod othello_book;
mod play;
mod python_chess;
mod sessions;
mod soak;
mod solve_cli;
mod store_check;
