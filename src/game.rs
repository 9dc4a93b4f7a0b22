//! A two-player, perfect-information game, as the generic search, the protocol layer and the
//! tools see it: the umbrella trait `Game` over four parts, each in its own file, and the types
//! they share.
//!
//! - `Rules` (game/rules.rs): the positions, the legal moves, playing one, the end of the game.
//! - `Notation` (game/notation.rs): how moves, positions, sides and records are written, and
//!   which protocol the game's engines speak.
//! - `SearchHints` (game/hints.rs): what the search may use beyond the rules: the evaluation,
//!   move ordering and the keys of its tables, pruning margins.
//! - `BooksAndSolvers` (game/books_and_solvers.rs): knowledge from outside the search: opening
//!   books, tablebases, exact solvers, and the game-specific options that load them.
//!
//! Generic code asks for `G: Game`; a game implements the four parts, and `Game` follows.
//!
//! Conventions every implementation keeps:
//! - Positions are copy-make: the search clones a position and calls `play` on the clone.
//! - `evaluate` and every `Outcome` are from the point of view of the side to move.
//! - `move_key` is a non-zero `u16` that identifies a move within one position (0 means "none"
//!   in the transposition table, and no two legal moves of a position share one);
//!   `history_key` is below `HISTORY_SIZE`, `cont_key` below `CONT_SIZE - 1`.
//! - `hash` changes whenever the position or the side to move changes.

mod books_and_solvers;
mod hints;
mod notation;
mod rules;

pub use books_and_solvers::BooksAndSolvers;
pub use hints::SearchHints;
pub use notation::Notation;
pub use rules::Rules;

/// Size of the history-heuristic table; `SearchHints::history_key` must stay below it.
pub const HISTORY_SIZE: usize = 4096;
/// Keys of continuation history; `SearchHints::cont_key` must stay below `CONT_SIZE - 1` (the last
/// key stands for "no move").
pub const CONT_SIZE: usize = 1024;

/// The two players. `P1` moves first from the standard start (White, Black in Othello, Red,
/// Horizontal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    P1,
    P2,
}

impl Player {
    pub fn index(self) -> usize {
        match self {
            Player::P1 => 0,
            Player::P2 => 1,
        }
    }
    pub fn other(self) -> Player {
        match self {
            Player::P1 => Player::P2,
            Player::P2 => Player::P1,
        }
    }
}

/// A finished game, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

/// A finished game, seen from outside (UGI `query result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    P1Win,
    P2Win,
    Draw,
}

impl GameResult {
    /// Converts an outcome for `to_move` into an absolute result.
    pub fn from_outcome(outcome: Outcome, to_move: Player) -> GameResult {
        match (outcome, to_move) {
            (Outcome::Draw, _) => GameResult::Draw,
            (Outcome::Win, Player::P1) | (Outcome::Loss, Player::P2) => GameResult::P1Win,
            (Outcome::Win, Player::P2) | (Outcome::Loss, Player::P1) => GameResult::P2Win,
        }
    }
}

/// An exact result found by a game's own solver, in search units (see `search::MATE`).
#[derive(Clone, Debug)]
pub struct Solved<M> {
    /// From the side to move: `MATE - n` a win in n plies, `-(MATE - n)` a loss, 0 a draw.
    pub score: i32,
    pub best: M,
    pub nodes: u64,
    /// The game's own score convention, for `info string` (e.g. Connect Four's test-set score).
    pub note: String,
}

/// What a move may spend on the solver in play (`BooksAndSolvers::solve_in_play`): the move's soft
/// time budget, where it has one, and under a node limit (`go nodes`) the nodes it may
/// visit, `[before it holds a result, once it holds one]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayBudget {
    pub ms: Option<u64>,
    pub nodes: Option<[u64; 2]>,
}

/// A move from a game's opening book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove<M> {
    pub mv: M,
    /// For the side making the move, in the game's score units.
    pub score: i32,
    /// The depth its value was searched to.
    pub depth: u32,
    /// Games learned through it.
    pub games: u32,
}

/// A game-specific engine option (beyond the engine's own), as announced by `uci`/`ugi`.
#[derive(Clone, Debug)]
pub struct GameOption {
    pub name: &'static str,
    /// The UCI option declaration after the name, e.g. `type check default false`.
    pub declaration: &'static str,
}

/// A game: its rules, its notation, the search's hints and its books and solvers. Implemented for
/// every type that implements the four.
pub trait Game: Rules + Notation + SearchHints + BooksAndSolvers {}

impl<G: Rules + Notation + SearchHints + BooksAndSolvers> Game for G {}
