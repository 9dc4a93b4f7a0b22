//! Move ordering in the alpha-beta and what a cutoff teaches it: the ordering bands (table
//! move, good captures, killers, quiet moves by history, captures that lose material), the
//! history score of a quiet move (its own plus the continuation histories of the two moves
//! before it), and the reward of a move that cut off (its histories raised, the moves tried
//! before it lowered, a quiet one made a killer).

use super::history::{NO_CONT, bonus, gravity};
use super::worker::Worker;
use crate::game::Game;

/// Ordering bands (the history part of a quiet move stays within +-3 * 16384).
const TT_MOVE: i32 = 1 << 30;
pub(super) const GOOD_TACTICAL: i32 = 1 << 24;
pub(super) const KILLER: i32 = 1 << 22;
const BAD_TACTICAL: i32 = -(1 << 24);

impl<G: Game> Worker<'_, G> {
    /// The continuation keys of the moves one and two plies before `ply`'s move.
    pub(super) fn prev_conts(&self, ply: usize) -> [usize; 2] {
        [self.stack[ply + 1].cont, self.stack[ply].cont]
    }

    /// History score of a quiet move at `ply`.
    pub(super) fn quiet_history(&self, pos: &G, mv: G::Move, ply: usize) -> i32 {
        let side = pos.to_move().index();
        let key = pos.cont_key(mv);
        let [p1, p2] = self.prev_conts(ply);
        self.tables.quiet(side, pos.history_key(mv))
            + self.tables.cont(0, p1, key)
            + self.tables.cont(1, p2, key)
    }

    pub(super) fn score_moves(
        &self,
        pos: &G,
        moves: &[G::Move],
        scores: &mut Vec<i32>,
        tt_move: u16,
        ply: usize,
    ) {
        scores.clear();
        let killers = self.stack[ply + 2].killers;
        let see = G::FUTILITY_MARGIN > 0;
        for &m in moves {
            let k = G::move_key(m);
            let s = if k == tt_move {
                TT_MOVE
            } else if pos.is_tactical(m) {
                let base =
                    pos.order_score(m) + self.tables.capture(pos.cont_key(m), pos.victim(m)) / 16;
                if !see || pos.see_ge(m, -50) {
                    GOOD_TACTICAL + base
                } else {
                    BAD_TACTICAL + base
                }
            } else if k == killers[0] {
                KILLER
            } else if k == killers[1] {
                KILLER - 1
            } else {
                self.quiet_history(pos, m, ply) + pos.order_score(m)
            };
            scores.push(s);
        }
    }

    /// A move caused a cutoff: raise its history (and, if quiet, make it a killer); lower the
    /// histories of the moves tried before it.
    pub(super) fn reward(
        &mut self,
        pos: &G,
        mv: G::Move,
        depth: i32,
        ply: usize,
        quiets: &[G::Move],
        tacticals: &[G::Move],
    ) {
        let b = bonus(depth);
        let side = pos.to_move().index();
        let prev = self.prev_conts(ply);
        let quiet_bonus = |t: &mut super::history::Tables, m: G::Move, b: i32| {
            gravity(t.quiet_mut(side, pos.history_key(m)), b);
            let key = pos.cont_key(m);
            for (back, &p) in prev.iter().enumerate() {
                if p != NO_CONT {
                    gravity(t.cont_mut(back, p, key), b);
                }
            }
        };
        if pos.is_tactical(mv) {
            gravity(self.tables.capture_mut(pos.cont_key(mv), pos.victim(mv)), b);
        } else {
            let k = G::move_key(mv);
            let killers = &mut self.stack[ply + 2].killers;
            if killers[0] != k {
                killers[1] = killers[0];
                killers[0] = k;
            }
            quiet_bonus(self.tables, mv, b);
            for &q in quiets {
                quiet_bonus(self.tables, q, -b);
            }
        }
        for &t in tacticals {
            gravity(self.tables.capture_mut(pos.cont_key(t), pos.victim(t)), -b);
        }
    }
}
