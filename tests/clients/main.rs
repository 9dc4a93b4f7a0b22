//! The engine as real clients drive it: lichess-bot's own harness, Debian's PolyGlot, the
//! tournament runners and python-chess (`real_clients`), and the UCI behaviour a GUI relies on
//! (`uci_behaviour`). One test binary for all (each test binary is one more whole-program link
//! in CI); each module is what was a file of its own, sharing only the helpers of
//! `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod lichess_bot;
mod openbench;
mod polyglot;
mod real_clients;
mod uci_behaviour;
