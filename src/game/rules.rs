//! `Rules`: what a game is, apart from how it is written, searched or looked up: its positions,
//! the legal moves, playing one, and when and how the game ends.
//!
//! Invariants every implementation keeps:
//! - Positions are copy-make: `play` changes the position in place; callers clone first.
//! - `legal_moves` holds a pass move where a side must pass; an empty list means the game is
//!   over, with `outcome_without_moves`.
//! - Every `Outcome` is from the point of view of the side to move.
//! - `hash` changes whenever the position or the side to move changes.

use std::fmt::Debug;

use super::{GameResult, Outcome, Player};

pub trait Rules: Clone + Send + Sync + 'static {
    type Move: Copy + Eq + Send + Sync + Debug + 'static;

    /// Short lower-case name (`chess`, `othello`, ...).
    const NAME: &'static str;

    fn to_move(&self) -> Player;
    /// All legal moves, into `out` (cleared first). A game whose side may have to pass returns
    /// its pass move here; an empty list means the game is over (see `outcome_without_moves`).
    fn legal_moves(&self, out: &mut Vec<Self::Move>);
    fn play(&mut self, mv: Self::Move);
    /// Number of moves perft counts here (bulk count at the last ply): the legal moves, or 1
    /// when `perft_pass` applies.
    fn count_moves(&self) -> u64 {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        if moves.is_empty() && self.perft_pass().is_some() {
            return 1;
        }
        moves.len() as u64
    }

    /// Leaf count of the legal-move tree to `depth` (override for a faster special case that
    /// must count the same).
    fn perft(&self, depth: u32) -> u64 {
        crate::perft::generic(self, depth)
    }

    /// Perft convention of games whose published counts keep passing after the game ended
    /// (Othello): the move perft plays where no legal move is left.
    fn perft_pass(&self) -> Option<Self::Move> {
        None
    }
    fn hash(&self) -> u64;
    /// A result known without generating moves (a four in a row, the 50-move rule, ...).
    fn terminal(&self) -> Option<Outcome>;
    /// The result when `legal_moves` is empty.
    fn outcome_without_moves(&self) -> Outcome;
    /// How many plies back a repetition may be found (0: repetitions cannot happen).
    fn reversible_plies(&self) -> usize {
        0
    }

    /// The outcome if the game is over.
    fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.terminal() {
            return Some(o);
        }
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        if moves.is_empty() {
            Some(self.outcome_without_moves())
        } else {
            None
        }
    }

    /// Why the game is over, in words ("checkmate", "four in a row"), if it is.
    fn end_reason(&self) -> Option<String> {
        self.outcome().map(|o| match o {
            Outcome::Draw => "draw".to_string(),
            _ => "no legal moves".to_string(),
        })
    }

    fn result(&self) -> Option<GameResult> {
        self.outcome()
            .map(|o| GameResult::from_outcome(o, self.to_move()))
    }
}
