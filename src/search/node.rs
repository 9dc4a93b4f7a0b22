//! The alpha-beta below the root: principal-variation search with a transposition table,
//! pruning and reductions (move ordering in `ordering.rs`, the quiescence search at the leaves
//! in `qsearch.rs`).
//!
//! Score convention: from the side to move; `MATE - n` mates in n plies from the root.
//! Pruning that reasons in evaluation units (reverse futility, razoring, futility, static
//! exchange and singular margins) runs only for games whose evaluation is in such units
//! (`SearchHints::FUTILITY_MARGIN > 0`, chess); the others get the move ordering, reductions and
//! late-move pruning that need no scale.

use super::history::NO_CONT;
use super::ordering::{GOOD_TACTICAL, KILLER};
use super::params;
use super::tt::{Bound, TtEntry};
use super::worker::{NO_EVAL, Worker, outcome_score};
use super::{INF, MATE, MATE_BOUND, MAX_PLY, Score, TB_WIN};
use crate::game::{Game, Outcome};
use std::sync::atomic::Ordering::Relaxed;

/// A tablebase answer is stored this much deeper than the node's remaining depth (Stockfish's
/// 6): it holds however deep a later search looks.
const TB_DEPTH_BONUS: i32 = 6;

impl<G: Game> Worker<'_, G> {
    fn is_repetition(&self, reversible: usize) -> bool {
        let n = self.hashes.len();
        let key = self.hashes[n - 1];
        let limit = reversible.min(n - 1);
        let mut back = 4;
        while back <= limit {
            if self.hashes[n - 1 - back] == key {
                return true;
            }
            back += 2;
        }
        false
    }

    /// What every node (alpha-beta or quiescence) does first: count itself, note its ply, and
    /// answer at once when the search was stopped (0, discarded) or the game is over here.
    #[inline]
    pub(super) fn enter(&mut self, pos: &G, ply: usize) -> Option<Score> {
        self.count_node();
        if self.stopped {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        pos.terminal().map(|o| outcome_score(o, ply))
    }

    /// A static evaluation with the correction learned for the position's structure (games
    /// with a `structure_key`).
    pub(super) fn corrected(&self, pos: &G, raw: Score) -> Score {
        let key = pos.structure_key();
        if key == 0 || raw.abs() >= MATE_BOUND {
            return raw;
        }
        (raw + self.tables.correction(pos.to_move().index(), key))
            .clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    pub(super) fn negamax(
        &mut self,
        pos: &G,
        depth: i32,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
        cut_node: bool,
    ) -> Score {
        self.pv[ply].clear();
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        if let Some(v) = self.enter(pos, ply) {
            return v;
        }
        if G::reversible_plies(pos) >= 4 && self.is_repetition(pos.reversible_plies()) {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return pos.evaluate();
        }
        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as Score);
        beta = beta.min(MATE - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        let pv_node = beta - alpha > 1;
        let excluded = self.stack[ply + 2].excluded;
        let key = pos.hash();
        let entry = if excluded == 0 {
            self.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = entry.map_or(0, |e| e.mv);
        if !pv_node
            && let Some(e) = entry
            && e.depth >= depth
            && e.cuts(alpha, beta)
        {
            return e.score;
        }
        // Endgame tablebases: a draw is exact; a win (loss) ends the search where it is a
        // cutoff, or anywhere outside the principal variation. The answer goes into the table
        // (as Stockfish does) as what it proves: a draw exactly, a win as a lower bound and a
        // loss as an upper bound (the search may still find a mate beyond it), deeper than
        // this search will reach here, so the position is not probed again. In the principal
        // variation the search goes on (to find the mate), within what the table proved: a
        // win is its floor, a loss its ceiling.
        let (mut tb_floor, mut tb_cap) = (-INF, INF);
        if ply > 0
            && excluded == 0
            && let Some(o) = pos.probe_wdl(depth)
        {
            self.ctrl.tbhits.fetch_add(1, Relaxed);
            let (score, bound, cut) = match o {
                Outcome::Draw => (0, Bound::Exact, true),
                Outcome::Win => (
                    TB_WIN - ply as Score,
                    Bound::Lower,
                    TB_WIN - (ply as Score) >= beta,
                ),
                Outcome::Loss => (
                    -TB_WIN + ply as Score,
                    Bound::Upper,
                    -TB_WIN + (ply as Score) <= alpha,
                ),
            };
            if cut || !pv_node {
                let eval = entry.map_or_else(|| pos.evaluate(), |e| e.eval);
                self.tt.store(
                    key,
                    tt_move,
                    score,
                    eval,
                    depth + TB_DEPTH_BONUS,
                    bound,
                    ply,
                );
                return score;
            }
            if o == Outcome::Win {
                tb_floor = score;
                alpha = alpha.max(score);
            } else {
                tb_cap = score;
            }
        }
        let in_check = pos.in_check();
        let scaled = G::FUTILITY_MARGIN > 0;
        // The static evaluation: the table's (raw) one if it has it, corrected by what searches
        // of this structure found; sharpened by the table's bound when that is tighter.
        let mut raw = 0;
        let (static_eval, eval) = if in_check {
            (NO_EVAL, -INF)
        } else if excluded != 0 {
            let e = self.stack[ply + 2].eval;
            (e, e)
        } else {
            raw = entry.map_or_else(|| pos.evaluate(), |e| e.eval);
            let corrected = self.corrected(pos, raw);
            (corrected, refine_by_entry(corrected, entry.as_ref()))
        };
        self.stack[ply + 2].eval = static_eval;
        let improving = static_eval != NO_EVAL
            && ply >= 2
            && self.stack[ply].eval != NO_EVAL
            && static_eval > self.stack[ply].eval;
        // Children start with fresh killers.
        self.stack[ply + 3].killers = [0; 2];

        if !pv_node && !in_check && excluded == 0 && beta.abs() < MATE_BOUND {
            let margin = G::FUTILITY_MARGIN * params::rfp_margin_pct() / 100;
            // Reverse futility pruning: far enough above beta that no quiet line falls back.
            if scaled
                && depth <= params::rfp_depth()
                && eval - margin * (depth - i32::from(improving)) >= beta
            {
                return (eval + beta) / 2;
            }
            // Razoring: hopelessly below alpha near the leaves; let the captures decide.
            if scaled
                && depth <= params::razor_depth()
                && eval + params::razor_margin() * depth < alpha
            {
                let v = self.qsearch(pos, alpha, alpha + 1, ply);
                if self.stopped {
                    return 0;
                }
                if v <= alpha {
                    return v;
                }
            }
            // Null-move pruning (not twice in a row).
            if G::NULL_MOVE
                && depth >= 3
                && eval >= beta
                && self.stack[ply + 1].cont != NO_CONT
                && let Some(child) = pos.null_move()
            {
                let r = params::nmp_base()
                    + depth / params::nmp_depth_div()
                    + ((eval - beta) / params::nmp_eval_div()).min(3);
                self.stack[ply + 2].cont = NO_CONT;
                self.hashes.push(child.hash());
                let v = -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, !cut_node);
                self.hashes.pop();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    return if v >= MATE_BOUND { beta } else { v };
                }
            }
        }
        if !pv_node
            && !in_check
            && excluded == 0
            && beta.abs() < MATE_BOUND
            && let Some(v) = self.probable_cut(pos, depth, alpha, beta, ply, cut_node)
        {
            return v;
        }
        // Internal iterative reduction: no hash move at a deep node, search it shallower.
        let depth = if tt_move == 0 && depth >= params::iir_depth() && (pv_node || cut_node) {
            depth - 1
        } else {
            depth
        };

        let mut moves = std::mem::take(&mut self.moves[ply]);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        pos.legal_moves(&mut moves);
        let result = if moves.is_empty() {
            outcome_score(pos.outcome_without_moves(), ply)
        } else {
            self.score_moves(pos, &moves, &mut scores, tt_move, ply);
            let node = Node {
                depth,
                beta,
                ply,
                pv_node,
                cut_node,
                in_check,
                improving,
                static_eval,
                raw_eval: raw,
                key,
                tt: entry,
                excluded,
                tb_floor,
                tb_cap,
            };
            self.move_loop(pos, &mut moves, &mut scores, alpha, &node)
        };
        self.moves[ply] = moves;
        self.scores[ply] = scores;
        result
    }

    fn move_loop(
        &mut self,
        pos: &G,
        moves: &mut [G::Move],
        scores: &mut [i32],
        mut alpha: Score,
        n: &Node,
    ) -> Score {
        let (depth, beta, ply) = (n.depth, n.beta, n.ply);
        let scaled = G::FUTILITY_MARGIN > 0;
        let alpha_orig = alpha;
        let mut best = n.tb_floor;
        let mut best_key = 0u16;
        let mut best_tactical = false;
        let mut searched = 0usize;
        let mut quiets: [G::Move; 32] = [moves[0]; 32];
        let mut n_quiets = 0;
        let mut tacticals: [G::Move; 16] = [moves[0]; 16];
        let mut n_tacticals = 0;
        let mut skip_quiets = false;
        let killers = self.stack[ply + 2].killers;
        let tt_move = n.tt.map_or(0, |e| e.mv);
        for i in 0..moves.len() {
            // Selection sort: bring the best remaining move to position i.
            let mut bi = i;
            for j in i + 1..moves.len() {
                if scores[j] > scores[bi] {
                    bi = j;
                }
            }
            scores.swap(i, bi);
            moves.swap(i, bi);
            let mv = moves[i];
            let k = G::move_key(mv);
            if k == n.excluded {
                continue;
            }
            let tactical = pos.is_tactical(mv);
            let is_killer = k == killers[0] || k == killers[1];
            // A quiet move's ordering score is its history (plus the game's static order
            // score); the table move and killers are ranked by band instead.
            let history = if tactical {
                0
            } else if scores[i] < KILLER - 1 {
                scores[i]
            } else {
                self.quiet_history(pos, mv, ply)
            };
            if !tactical && skip_quiets {
                continue;
            }
            let lmr_base = self.lmr[(depth as usize).min(63)][searched.min(63)] as i32;

            if best > -MATE_BOUND && !n.in_check {
                if scaled {
                    let lmr_depth = (depth - 1 - lmr_base).max(0);
                    if !tactical {
                        // Late-move pruning: enough quiet moves tried near the leaves.
                        if depth <= params::lmp_depth()
                            && searched as i32
                                >= (params::lmp_base() + depth * depth)
                                    / (2 - i32::from(n.improving))
                        {
                            skip_quiets = true;
                            continue;
                        }
                        // Futility: a quiet move cannot lift a hopeless eval to alpha.
                        if !n.pv_node
                            && lmr_depth <= params::fut_depth()
                            && n.static_eval + params::fut_base() + params::fut_mult() * lmr_depth
                                <= alpha
                        {
                            continue;
                        }
                        // History pruning: quiet moves that keep failing here.
                        if lmr_depth <= params::hist_prune_depth()
                            && history < -params::hist_prune() * depth
                        {
                            continue;
                        }
                        // Quiet moves that lose material on their square.
                        if !pos.see_ge(mv, -params::see_quiet() * lmr_depth * lmr_depth) {
                            continue;
                        }
                    } else if depth <= 8 && !pos.see_ge(mv, -params::see_tactical() * depth) {
                        continue;
                    }
                } else if !n.pv_node
                    && !tactical
                    && depth <= 4
                    && searched >= 3 + (depth * depth) as usize * 2
                {
                    continue;
                }
            }

            // Singular extension: is the table's move the only good one? Search the others
            // shallower with a lowered bound; if all fail, the move is extended.
            let mut ext = 0;
            if scaled
                && k == tt_move
                && n.excluded == 0
                && depth >= params::singular_depth()
                && (ply as i32) < 2 * self.root_depth
                && let Some(e) = n.tt
                && e.depth >= depth - 3
                && e.bound != Bound::Upper
                && e.score.abs() < MATE_BOUND
            {
                let sbeta = e.score - params::singular_mult() * depth;
                self.stack[ply + 2].excluded = k;
                let v = self.negamax(pos, (depth - 1) / 2, sbeta - 1, sbeta, ply, n.cut_node);
                self.stack[ply + 2].excluded = 0;
                if self.stopped {
                    return 0;
                }
                if v < sbeta {
                    ext = 1;
                } else if sbeta >= beta {
                    // Several moves beat beta: this node will too.
                    return sbeta;
                } else if e.score >= beta {
                    ext = -1;
                }
            }

            let mut child = pos.clone();
            child.play(mv);
            let gives_check = child.in_check();
            // Check extension, bounded so that perpetual checks cannot blow the tree up.
            if ext == 0 && gives_check && ply < 2 * (depth as usize + 4) {
                ext = 1;
            }
            let new_depth = depth - 1 + ext;
            self.stack[ply + 2].cont = pos.cont_key(mv);
            self.hashes.push(child.hash());
            let v = if searched == 0 {
                -self.negamax(
                    &child,
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    !n.pv_node && !n.cut_node,
                )
            } else {
                let mut r = 0;
                let late = scores[i] < GOOD_TACTICAL || !tactical;
                if depth >= 3 && searched > usize::from(n.pv_node) && late && !n.in_check {
                    r = lmr_base;
                    if !tactical {
                        r += i32::from(!n.improving);
                        r -= history / params::lmr_hist_div();
                    }
                    if n.pv_node {
                        r -= 1;
                    }
                    if is_killer {
                        r -= 1;
                    }
                    if n.cut_node {
                        r += 1;
                    }
                    if gives_check {
                        r -= 1;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, !n.cut_node);
                }
                if s > alpha && s < beta && !self.stopped {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, false);
                }
                s
            };
            self.hashes.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if v > best {
                best = v;
                if v > alpha {
                    best_key = k;
                    best_tactical = tactical;
                    alpha = v;
                    if n.pv_node {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(mv);
                        head[ply].extend_from_slice(&tail[0]);
                    }
                    if v >= beta {
                        self.reward(
                            pos,
                            mv,
                            depth,
                            ply,
                            &quiets[..n_quiets],
                            &tacticals[..n_tacticals],
                        );
                        break;
                    }
                }
            }
            if tactical {
                if n_tacticals < tacticals.len() {
                    tacticals[n_tacticals] = mv;
                    n_tacticals += 1;
                }
            } else if n_quiets < quiets.len() {
                quiets[n_quiets] = mv;
                n_quiets += 1;
            }
        }
        if searched == 0 {
            if n.excluded != 0 {
                // Every other move was pruned: the excluded one stands alone.
                return alpha_orig;
            }
            // Everything was pruned: a fail-low at alpha (no move was searched to raise it),
            // capped by a table's proven loss.
            return alpha_orig.min(n.tb_cap);
        }
        let bound = if best > n.tb_cap {
            // The table proved a loss the search did not see: its score, as a ceiling.
            best = n.tb_cap;
            Bound::Upper
        } else if best >= beta || (best == n.tb_floor && best_key == 0) {
            // (No move beat the table's win: it stands as the floor.)
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if n.excluded == 0 {
            let eval_store = if n.in_check { 0 } else { n.raw_eval };
            self.tt
                .store(n.key, best_key, best, eval_store, depth, bound, ply);
            // Teach the correction history what this search found, where the static
            // evaluation alone should have seen it (no tactical best move, a bound that says
            // something about the evaluation).
            let structure = pos.structure_key();
            if structure != 0
                && !n.in_check
                && !best_tactical
                && best.abs() < MATE_BOUND
                && !(bound == Bound::Lower && best <= n.static_eval)
                && !(bound == Bound::Upper && best >= n.static_eval)
            {
                let side = pos.to_move().index();
                self.tables
                    .correct(side, structure, best - n.static_eval, depth);
            }
        }
        best
    }
}

/// What a node hands its move loop.
struct Node {
    depth: i32,
    beta: Score,
    ply: usize,
    pv_node: bool,
    cut_node: bool,
    in_check: bool,
    improving: bool,
    static_eval: Score,
    raw_eval: Score,
    key: u64,
    tt: Option<super::tt::TtEntry>,
    excluded: u16,
    /// What an endgame table proved at a node of the principal variation: the score is at
    /// least `tb_floor` (a win) and at most `tb_cap` (a loss); `-INF`/`INF` elsewhere.
    tb_floor: Score,
    tb_cap: Score,
}

/// A static evaluation sharpened by a table entry whose bound says the true score lies beyond
/// it (an exact score replaces it); mate scores are left out.
pub(super) fn refine_by_entry(eval: Score, entry: Option<&TtEntry>) -> Score {
    match entry {
        Some(e)
            if e.score.abs() < MATE_BOUND
                && match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score > eval,
                    Bound::Upper => e.score < eval,
                } =>
        {
            e.score
        }
        _ => eval,
    }
}
