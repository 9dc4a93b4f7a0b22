//! One search thread: iterative deepening with aspiration windows at the root (this file);
//! the alpha-beta below the root is in `node`. Thread 0 reports and owns the time checks;
//! helpers (Lazy SMP) search the same tree with staggered depths and meet the main thread
//! only through the shared transposition table.
//!
//! Invariants: `hashes` holds the game history followed by the current path, the current
//! node's hash last; `stack[ply + 2]` is the frame of `ply` (two sentinel frames before the
//! root, so that a node may look two plies back); per-ply move buffers are taken and put back
//! so that no node allocates.

use super::SearchResult;
use super::history::{NO_CONT, Tables};
use super::params;
use super::tt::{Bound, TranspositionTable};
use super::{Control, INF, Info, MATE, MATE_BOUND, MAX_DEPTH, MAX_PLY, Score, SearchParams};
use crate::game::{Game, Outcome};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// "No static evaluation" (in check).
pub(super) const NO_EVAL: Score = -INF - 1;

/// A root line of a completed iteration: its move, score and PV.
type Line<M> = (M, Score, Vec<M>);

pub(super) struct RootMove<M> {
    pub mv: M,
    pub score: Score,
    /// Score of the last completed iteration (for aspiration windows).
    pub prev_score: Score,
    pub pv: Vec<M>,
    pub seldepth: usize,
    pub bound: Option<Bound>,
}

/// What a node leaves for its children and grandchildren.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    /// The static evaluation (corrected), `NO_EVAL` in check.
    pub eval: Score,
    /// The continuation key of the move being searched from this node (`NO_CONT`: none).
    pub cont: usize,
    /// The move a singular-extension search leaves out (0: none).
    pub excluded: u16,
    pub killers: [u16; 2],
}

pub struct Worker<'a, G: Game> {
    pub(super) root: &'a G,
    pub(super) params: &'a SearchParams<G::Move>,
    pub(super) tt: &'a TranspositionTable,
    pub(super) ctrl: &'a Control,
    pub(super) halt: &'a AtomicBool,
    pub(super) tables: &'a mut Tables,
    pub(super) id: usize,
    pub(super) nodes: u64,
    pub(super) unflushed: u64,
    pub(super) seldepth: usize,
    pub(super) stopped: bool,
    pub(super) hashes: Vec<u64>,
    pub(super) stack: Vec<Frame>,
    pub(super) moves: Vec<Vec<G::Move>>,
    pub(super) scores: Vec<Vec<i32>>,
    pub(super) pv: Vec<Vec<G::Move>>,
    pub(super) root_moves: Vec<RootMove<G::Move>>,
    pub(super) root_depth: i32,
    pub(super) lmr: Vec<[u8; 64]>,
    /// Nodes between checks of the stop conditions: 1024, fewer under a weakened strength's
    /// small node budget.
    check_every: u64,
}

pub(super) fn outcome_score(o: Outcome, ply: usize) -> Score {
    match o {
        Outcome::Win => MATE - ply as Score,
        Outcome::Loss => -MATE + ply as Score,
        Outcome::Draw => 0,
    }
}

impl<'a, G: Game> Worker<'a, G> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        root: &'a G,
        history: &[u64],
        params: &'a SearchParams<G::Move>,
        tt: &'a TranspositionTable,
        ctrl: &'a Control,
        halt: &'a AtomicBool,
        tables: &'a mut Tables,
        id: usize,
    ) -> Self {
        let mut hashes = history.to_vec();
        hashes.push(root.hash());
        let base = f64::from(params::lmr_base()) / 100.0;
        let div = f64::from(params::lmr_div()) / 100.0;
        let lmr = (0..64)
            .map(|d| {
                let mut row = [0u8; 64];
                for (m, r) in row.iter_mut().enumerate() {
                    if d > 0 && m > 0 {
                        let v = base + (d as f64).ln() * (m as f64).ln() / div;
                        *r = v.max(0.0) as u8;
                    }
                }
                row
            })
            .collect();
        let frame = Frame {
            eval: NO_EVAL,
            cont: NO_CONT,
            excluded: 0,
            killers: [0; 2],
        };
        Worker {
            root,
            params,
            tt,
            ctrl,
            halt,
            tables,
            id,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            stopped: false,
            hashes,
            stack: vec![frame; MAX_PLY + 4],
            moves: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            scores: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            pv: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(32)).collect(),
            root_moves: Vec::new(),
            root_depth: 0,
            lmr,
            // Finer only below full strength: other node-limited searches (datagen) keep
            // their exact old node counts.
            check_every: match (params.strength, params.limits.nodes) {
                (Some(_), Some(n)) => n.clamp(1, 1024),
                _ => 1024,
            },
        }
    }

    fn main(&self) -> bool {
        self.id == 0
    }

    fn flush_nodes(&mut self) {
        self.ctrl.nodes.fetch_add(self.unflushed, Relaxed);
        self.unflushed = 0;
    }

    /// Counts a node and, every 1024 nodes (fewer under a weakened strength's small node
    /// budget), checks the stop conditions.
    pub(super) fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= self.check_every {
            self.flush_nodes();
            if self.ctrl.stopped() || self.halt.load(Relaxed) {
                self.stopped = true;
            }
            if self.main() {
                if self.ctrl.past_hard() {
                    self.stopped = true;
                }
                if let Some(limit) = self.params.limits.nodes
                    && self.ctrl.nodes.load(Relaxed) >= limit
                {
                    self.stopped = true;
                }
            }
        }
    }

    fn info(&self, rm: &RootMove<G::Move>, depth: u32, multipv: usize) -> Info<G::Move> {
        let time_ms = self.ctrl.elapsed_ms();
        let nodes = self.ctrl.nodes.load(Relaxed) + self.unflushed;
        Info {
            depth,
            seldepth: rm.seldepth.max(1) as u32,
            multipv: multipv as u32,
            score: rm.score,
            bound: rm.bound,
            nodes,
            nps: nodes * 1000 / time_ms.max(1),
            hashfull: self.tt.hashfull(),
            time_ms,
            pv: rm.pv.clone(),
            tbhits: self.ctrl.tbhits.load(Relaxed),
            note: None,
        }
    }

    /// Iterative deepening; the main thread reports through `report` and decides when to stop.
    pub fn iterate(&mut self, report: &(dyn Fn(&Info<G::Move>) + Sync)) -> SearchResult<G::Move> {
        // The root is searched whenever a legal move exists, even where the rules would let a
        // draw be claimed (50-move rule, repetition, bare kings): a GUI analysing the position
        // or a runner that does not adjudicate still expects a move. Below the root such
        // positions score by `terminal`.
        let mut moves = Vec::new();
        self.root.legal_moves(&mut moves);
        if !self.params.searchmoves.is_empty() {
            moves.retain(|m| self.params.searchmoves.contains(m));
        }
        // Static order for the first iteration.
        moves.sort_by_key(|&m| {
            let t = if self.root.is_tactical(m) { 1 << 20 } else { 0 };
            -(t + self.root.order_score(m))
        });
        self.root_moves = moves
            .into_iter()
            .map(|mv| RootMove {
                mv,
                score: -INF,
                prev_score: -INF,
                pv: vec![mv],
                seldepth: 0,
                bound: None,
            })
            .collect();
        if self.root_moves.is_empty() {
            let score = self.root.outcome().map_or(0, |o| outcome_score(o, 0));
            self.flush_nodes();
            if self.main() {
                report(&Info {
                    depth: 0,
                    seldepth: 0,
                    multipv: 1,
                    score,
                    bound: None,
                    nodes: 0,
                    nps: 0,
                    hashfull: 0,
                    time_ms: 0,
                    pv: Vec::new(),
                    tbhits: self.ctrl.tbhits.load(Relaxed),
                    note: None,
                });
            }
            return SearchResult {
                best: None,
                ponder: None,
                score,
                depth: 0,
                nodes: self.nodes,
                pv: Vec::new(),
            };
        }
        let multipv = self.params.multipv.clamp(1, self.root_moves.len());
        let max_depth = self
            .params
            .limits
            .depth
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH);
        let mut completed = 0;
        let mut depth = 1 + (self.id as u32 % 2);
        // Time management: iterations since the best move last changed, and the score of the
        // previous iteration.
        let mut stable = 0u32;
        let mut last_best = self.root_moves[0].mv;
        let mut last_score = None;
        // Below full strength: the lines of the last completed iteration, to choose among.
        let mut lines: Vec<Line<G::Move>> = Vec::new();
        while depth <= max_depth {
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
            }
            self.root_depth = depth as i32;
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                self.aspiration(depth, pv_idx, report);
                if self.stopped {
                    break;
                }
                // Keep the lines already chosen in this iteration in front.
                self.root_moves[pv_idx..].sort_by_key(|r| std::cmp::Reverse(r.score));
            }
            if self.stopped {
                break;
            }
            completed = depth;
            if self.params.strength.is_some() {
                lines.clear();
                lines.extend(
                    self.root_moves[..multipv]
                        .iter()
                        .map(|r| (r.mv, r.score, r.pv.clone())),
                );
            }
            if self.root_moves[0].mv == last_best {
                stable += 1;
            } else {
                stable = 0;
                last_best = self.root_moves[0].mv;
            }
            if self.main() {
                for i in 0..multipv {
                    report(&self.info(&self.root_moves[i], depth, i + 1));
                }
                let score = self.root_moves[0].score;
                if self.should_stop_after(depth, stable, last_score.map(|s| s - score)) {
                    break;
                }
                last_score = Some(score);
            } else if self.ctrl.stopped() || self.halt.load(Relaxed) {
                break;
            }
            depth += 1;
        }
        self.flush_nodes();
        let weakened = self.main() && self.weakened_choice(&lines);
        let best = &self.root_moves[0];
        if self.main() && (self.stopped || weakened) {
            // The final line, so that `bestmove` is the first move of the last PV.
            let mut rm_info = self.info(best, completed.max(1), 1);
            if best.score == -INF {
                rm_info.score = best.prev_score;
            }
            report(&rm_info);
        }
        let score = if best.score == -INF {
            best.prev_score
        } else {
            best.score
        };
        let ponder = best
            .pv
            .get(1)
            .copied()
            .or_else(|| self.ponder_from_tt(best.mv));
        SearchResult {
            best: Some(best.mv),
            ponder,
            score,
            depth: completed,
            nodes: self.nodes,
            pv: best.pv.clone(),
        }
    }

    /// Below full strength, puts the line `Strength::choose` picks among `lines` in front of
    /// the root moves (its score and PV those of its iteration). True when it did so.
    fn weakened_choice(&mut self, lines: &[Line<G::Move>]) -> bool {
        let Some(strength) = self.params.strength else {
            return false;
        };
        if lines.is_empty() {
            return false;
        }
        let scores: Vec<Score> = lines.iter().map(|l| l.1).collect();
        let (mv, score, pv) = &lines[strength.choose(&scores, self.root.hash())];
        let Some(i) = self.root_moves.iter().position(|r| r.mv == *mv) else {
            return false;
        };
        self.root_moves.swap(0, i);
        let rm = &mut self.root_moves[0];
        rm.score = *score;
        rm.prev_score = *score;
        rm.bound = None;
        rm.pv.clone_from(pv);
        true
    }

    fn ponder_from_tt(&self, best: G::Move) -> Option<G::Move> {
        let mut child = self.root.clone();
        child.play(best);
        let entry = self.tt.probe(child.hash(), 1)?;
        let mut moves = Vec::new();
        child.legal_moves(&mut moves);
        moves.into_iter().find(|&m| G::move_key(m) == entry.mv)
    }

    /// After a completed iteration: is it time to answer? `stable` counts the iterations the
    /// best move has stayed; `drop` is how much the score fell since the last one.
    fn should_stop_after(&self, depth: u32, stable: u32, drop: Option<Score>) -> bool {
        let limits = &self.params.limits;
        let score = self.root_moves[0].score;
        if let Some(mate) = limits.mate
            && score >= MATE_BOUND
            && MATE - score < 2 * mate as Score
        {
            return true;
        }
        if self.ctrl.has_time_limit() && !self.ctrl.pondering.load(Relaxed) {
            // One legal move: nothing to think about.
            if self.root_moves.len() == 1 {
                return true;
            }
            // A fixed move time is used to the end (the hard limit stops the search). A clock
            // is spent by the soft budget, less when the best move has been the same for a
            // while, more when it has just changed or the score is falling.
            if limits.movetime.is_none() {
                let stability = [140, 110, 90, 80, 70][stable.min(4) as usize];
                let falling = 100 + drop.unwrap_or(0).clamp(0, 100);
                let share = 55 * stability * falling / 10_000;
                if self.ctrl.past_soft(share as u64) {
                    return true;
                }
            }
        }
        // A proven result at every multipv line cannot change with more depth.
        let multipv = self.params.multipv.clamp(1, self.root_moves.len());
        let proven = |s: Score| s.abs() >= MATE_BOUND && (MATE - s.abs()) < depth as Score;
        depth >= 2 && self.root_moves[..multipv].iter().all(|rm| proven(rm.score))
    }

    fn aspiration(&mut self, depth: u32, pv_idx: usize, report: &(dyn Fn(&Info<G::Move>) + Sync)) {
        let prev = self.root_moves[pv_idx].prev_score;
        let mut delta = params::asp_delta();
        let (mut alpha, mut beta) = if depth >= 5 && prev.abs() < MATE_BOUND {
            ((prev - delta).max(-INF), (prev + delta).min(INF))
        } else {
            (-INF, INF)
        };
        loop {
            let score = self.root_search(depth as i32, alpha, beta, pv_idx);
            if self.stopped {
                return;
            }
            self.root_moves[pv_idx..].sort_by_key(|r| std::cmp::Reverse(r.score));
            if score <= alpha {
                self.root_moves[pv_idx].bound = Some(Bound::Upper);
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
            } else if score >= beta {
                self.root_moves[pv_idx].bound = Some(Bound::Lower);
                beta = (score + delta).min(INF);
            } else {
                self.root_moves[pv_idx].bound = None;
                return;
            }
            if self.main() && self.ctrl.elapsed_ms() > 2000 {
                report(&self.info(&self.root_moves[pv_idx], depth, pv_idx + 1));
            }
            delta += delta;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    fn root_search(&mut self, depth: i32, mut alpha: Score, beta: Score, pv_idx: usize) -> Score {
        let mut best = -INF;
        let root = self.root;
        for i in pv_idx..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            let mut child = root.clone();
            child.play(mv);
            self.hashes.push(child.hash());
            self.stack[2].cont = root.cont_key(mv);
            let ext = i32::from(child.in_check());
            let new_depth = depth - 1 + ext;
            let mut v;
            if i == pv_idx {
                v = -self.negamax(&child, new_depth, -beta, -alpha, 1, false);
            } else {
                v = -self.negamax(&child, new_depth, -alpha - 1, -alpha, 1, true);
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(&child, new_depth, -beta, -alpha, 1, false);
                }
            }
            self.hashes.pop();
            if self.stopped {
                return best;
            }
            let rm = &mut self.root_moves[i];
            if i == pv_idx || v > alpha {
                rm.score = v;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1]);
            } else {
                rm.score = -INF;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                if v >= beta {
                    break;
                }
            }
        }
        best
    }
}
