//! The learning pipeline, one mechanism for every game: `tabula datagen` plays the engine
//! against itself and writes labelled positions (`format`, `datagen`), `tabula train` fits a
//! model to them (`train`) and writes a weight file that the game's evaluation loads
//! (`network`). The game is chosen by `--game`, as everywhere else; what differs between games
//! is only what `Learn` says: how a position is packed, when it is worth keeping, what the
//! final label of a game is, and which sparse features a model sees.
//!
//! Labels are always from the side to move of the labelled position.

pub mod book;
pub mod check;
pub mod checksum;
pub mod compressed;
pub mod corpus;
pub mod cpu_clock;
pub mod datagen;
pub mod format;
pub mod game_blocks;
pub mod game_data;
pub mod genfens;
pub mod network;
pub mod pgn;
pub mod rng;
pub mod train;

use crate::game::{Game, Outcome};
use crate::search::MATE_BOUND;

/// What the pipeline needs from a game beyond the `Game` trait.
pub trait Learn: Game {
    /// Bytes of a packed position.
    const PACKED: usize;
    /// The board's dimensions, written into a data file's header and checked on reading.
    fn dims(&self) -> (u16, u16);
    /// Writes the position into `out` (exactly `PACKED` bytes).
    fn pack(&self, out: &mut [u8]);
    /// Reads a packed position; `self` supplies board dimensions and options.
    fn unpack(&self, bytes: &[u8]) -> Result<Self, String>;

    /// Whether a searched position is worth training on: by default not in check, its best
    /// move not tactical (capture, promotion: the static evaluation cannot see those) and its
    /// score not a proven result.
    fn keep(&self, best: Self::Move, score: i32) -> bool {
        !self.in_check() && !self.is_tactical(best) && score.abs() < MATE_BOUND
    }

    /// The label of a game that ended by the rules at `self`, from `self`'s side to move:
    /// by default +1 win, 0 draw, -1 loss (Othello: the final disc margin).
    fn end_label(&self, outcome: Outcome) -> i32 {
        match outcome {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        }
    }

    /// Whether self-play may end a game early on the search's scores (resign and draw
    /// adjudication, chess); games whose label is a margin play to the end.
    const ADJUDICATE: bool = true;
    /// Scores (search units) at which both sides agreeing for 4 plies ends a game.
    const RESIGN_SCORE: i32 = 2000;
    /// Random plies played from the start (or book position) before recording.
    const RANDOM_PLIES: u32 = 8;
    /// An opening whose quick evaluation is beyond this is drawn again.
    const OPENING_LIMIT: i32 = 300;
    /// Empty squares from which positions are labelled by the game's exact solver (0: never).
    const EXACT_FROM: u32 = 0;
    /// Empty squares left, for `EXACT_FROM`.
    fn empties(&self) -> u32 {
        u32::MAX
    }
    /// The exact solve that labels a position (and picks the move played): the game's
    /// solver, with a best move that must depend on the position alone (not on what a shared
    /// table held), so that data is the same whatever `--threads`.
    fn solve_for_data(&self, abort: &dyn Fn() -> bool) -> Option<crate::game::Solved<Self::Move>> {
        self.solve(abort)
    }

    /// Search units per label unit where the label is a margin (Othello: 100 per disc): the
    /// model then predicts the margin (squared error in label units). 0: the label is a
    /// result, and the model predicts the win probability (see `train`).
    const MARGIN_UNIT: i32 = 0;
}

/// What a learned evaluation sees of a packed position of game `G`: its sparse inputs and its
/// output bucket. One game may have several (chess: the tuned linear evaluation, `hce`, and a
/// network, `nnue`); the trainer and the engine use the same functions, so they cannot
/// disagree.
pub trait Features<G: Learn> {
    /// The name `tabula train --model` knows it by.
    const MODEL: &'static str;
    /// Inputs (indices `0..INPUTS`).
    const INPUTS: usize;
    /// The evaluation is linear in its inputs (a weight per active input and bucket: chess's
    /// tuned evaluation, Othello's patterns) rather than a perspective network.
    const LINEAR: bool;
    /// Output buckets (one per game phase, say).
    const BUCKETS: usize;
    /// The active inputs of a packed position, as seen by the side to move (`us`) and by the
    /// other side (`them`; a linear model uses `us` only); both cleared first. An input may
    /// appear more than once: it then counts as often.
    fn features(packed: &[u8], us: &mut Vec<u32>, them: &mut Vec<u32>);
    /// The output bucket of a packed position and its share of the output; where the share is
    /// below 1 the rest is bucket + 1's (a linear model tapered between two game phases; a
    /// network uses the bucket alone).
    fn bucket(packed: &[u8]) -> (usize, f32);
    /// A symmetry of the game that the inputs can express: turns the inputs of a position
    /// into those of its mirror image, in place (the output bucket unchanged). The trainer
    /// shows each training position mirrored in half of the epochs (a coin per position and
    /// epoch; never the held-out ones), as if the data held both. The default: none.
    fn mirror(_us: &mut [u32], _them: &mut [u32]) {}
    /// A weight file of an earlier layout of these inputs in today's (`train --init`); the
    /// default: as it is.
    fn upgrade(net: network::Network) -> network::Network {
        net
    }
    /// The network the engine reads of one in the trainer's layout (what `train` writes): for
    /// inputs with training-only parts (a factor shared by buckets, folded into each). The
    /// default: as it is.
    fn export(net: network::Network) -> network::Network {
        net
    }
}
