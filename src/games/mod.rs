//! The games tabula plays. Each submodule owns its rules, notation and evaluation.

pub mod chess;
pub mod connect4;
pub mod domineering;
pub mod fen_rows;
pub mod othello;
