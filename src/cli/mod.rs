//! The binary's subcommands, one file each: `play` (the terminal game), `matches` (the
//! engine-against-engine runner), `learn` (datagen, data, train), `solve` (the exact solvers),
//! `serve` (the browser board).
//! The library (`lib.rs` and below) knows nothing of them; they parse arguments, call it and
//! print.

pub mod book;
pub mod learn;
pub mod matches;
pub mod play;
pub mod serve;
pub mod solve;
