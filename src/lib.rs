//! tabula: one engine process for chess, Othello, Connect Four and Domineering, driven over
//! UCI/UGI/NBoard. See README.md and protocol/ for the outside view, and
//! the header comment of each module for the inside (what it owns, its invariants).

pub mod arena;
pub mod baseline;
pub mod bench;
pub mod bits;
pub mod busy;
pub mod engine;
pub mod game;
pub mod games;
pub mod interned;
pub mod learn;
pub mod memory;
pub mod perft;
pub mod play;
pub mod protocol;
pub mod record;
pub mod search;
pub mod simd;
