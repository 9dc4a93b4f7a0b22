//! Datagen's adjudication: a game ends as a win once four plies in a row score it past the
//! game's resign threshold (or a mate) for one side, and as a draw from ply 80 once ten plies
//! in a row score it within 10 of level. Scores are from the first player's view.

use crate::game::GameResult;
use crate::learn::Learn;
use crate::search::MATE_BOUND;

/// Datagen's adjudication (`G::ADJUDICATE`): consecutive plies with the first player's score
/// beyond the resign threshold (signed) and near zero.
#[derive(Default)]
pub(super) struct Adjudicator {
    resign_run: i32,
    draw_run: u32,
}

impl Adjudicator {
    /// Counts a searched ply's score (`first`: from the first player's view) at `ply`;
    /// Some(result) when the game is adjudicated.
    pub(super) fn count<G: Learn>(&mut self, first: i32, ply: u32) -> Option<GameResult> {
        let sign = if first >= G::RESIGN_SCORE || first >= MATE_BOUND {
            1
        } else if first <= -G::RESIGN_SCORE || first <= -MATE_BOUND {
            -1
        } else {
            0
        };
        self.resign_run = if sign != 0 && self.resign_run.signum() == sign {
            self.resign_run + sign
        } else {
            sign
        };
        if self.resign_run.abs() >= 4 {
            return Some(if self.resign_run > 0 {
                GameResult::P1Win
            } else {
                GameResult::P2Win
            });
        }
        self.draw_run = if first.abs() <= 10 {
            self.draw_run + 1
        } else {
            0
        };
        (ply >= 80 && self.draw_run >= 10).then_some(GameResult::Draw)
    }
}
