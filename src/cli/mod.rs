//! The binary's subcommands, one file (or folder) each: `play` (the terminal game), `matches`
//! (the engine-against-engine runner), `learn` (datagen, data, train), `corpus` (the training corpus's shards), `book` (the Othello
//! opening book), `solve` (the exact solvers), `bench` (perft and bench), `serve` (the browser
//! board, built with the cargo feature `serve`, a default one); and `choice`, the game and board the flags chose with the one dispatch to generic
//! code. The library (`lib.rs` and below) knows nothing of them; they parse arguments, call it
//! and print.

pub mod bench;
pub mod book;
pub mod choice;
pub mod corpus;
pub mod learn;
pub mod matches;
pub mod play;
#[cfg(feature = "serve")]
pub mod serve;
pub mod solve;
