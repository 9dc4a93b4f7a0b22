//! One search thread: iterative deepening at the root, principal-variation alpha-beta below
//! it, quiescence search at the leaves. Thread 0 reports and owns the time checks; helpers
//! (Lazy SMP) search the same tree with staggered depths and meet the main thread only
//! through the shared transposition table.
//!
//! Invariants: `hashes` holds the game history followed by the current path, the current
//! node's hash last; per-ply move buffers are taken and put back so that no node allocates.

use super::SearchResult;
use super::tt::{Bound, TranspositionTable};
use super::{Control, INF, Info, MATE, MATE_BOUND, MAX_DEPTH, MAX_PLY, Score, SearchParams};
use crate::game::{Game, HISTORY_SIZE, Outcome};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

struct RootMove<M> {
    mv: M,
    score: Score,
    /// Score of the last completed iteration (for aspiration windows).
    prev_score: Score,
    pv: Vec<M>,
    seldepth: usize,
    bound: Option<Bound>,
}

pub struct Worker<'a, G: Game> {
    root: &'a G,
    params: &'a SearchParams<G::Move>,
    tt: &'a TranspositionTable,
    ctrl: &'a Control,
    halt: &'a AtomicBool,
    id: usize,
    nodes: u64,
    unflushed: u64,
    seldepth: usize,
    stopped: bool,
    hashes: Vec<u64>,
    killers: Vec<[u16; 2]>,
    history: Vec<i32>,
    moves: Vec<Vec<G::Move>>,
    scores: Vec<Vec<i32>>,
    pv: Vec<Vec<G::Move>>,
    root_moves: Vec<RootMove<G::Move>>,
    lmr: Vec<[u8; 64]>,
}

fn outcome_score(o: Outcome, ply: usize) -> Score {
    match o {
        Outcome::Win => MATE - ply as Score,
        Outcome::Loss => -MATE + ply as Score,
        Outcome::Draw => 0,
    }
}

impl<'a, G: Game> Worker<'a, G> {
    pub fn new(
        root: &'a G,
        history: &[u64],
        params: &'a SearchParams<G::Move>,
        tt: &'a TranspositionTable,
        ctrl: &'a Control,
        halt: &'a AtomicBool,
        id: usize,
    ) -> Self {
        let mut hashes = history.to_vec();
        hashes.push(root.hash());
        let lmr = (0..64)
            .map(|d| {
                let mut row = [0u8; 64];
                for (m, r) in row.iter_mut().enumerate() {
                    if d > 0 && m > 0 {
                        let v = 0.75 + (d as f64).ln() * (m as f64).ln() / 2.25;
                        *r = v.max(0.0) as u8;
                    }
                }
                row
            })
            .collect();
        Worker {
            root,
            params,
            tt,
            ctrl,
            halt,
            id,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            stopped: false,
            hashes,
            killers: vec![[0; 2]; MAX_PLY + 2],
            history: vec![0; HISTORY_SIZE],
            moves: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            scores: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            pv: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(32)).collect(),
            root_moves: Vec::new(),
            lmr,
        }
    }

    fn main(&self) -> bool {
        self.id == 0
    }

    fn flush_nodes(&mut self) {
        self.ctrl.nodes.fetch_add(self.unflushed, Relaxed);
        self.unflushed = 0;
    }

    /// Counts a node and, every 1024 nodes, checks the stop conditions.
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= 1024 {
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
        while depth <= max_depth {
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
            }
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
            if self.main() {
                for i in 0..multipv {
                    report(&self.info(&self.root_moves[i], depth, i + 1));
                }
                if self.should_stop_after(depth) {
                    break;
                }
            } else if self.ctrl.stopped() || self.halt.load(Relaxed) {
                break;
            }
            depth += 1;
        }
        self.flush_nodes();
        let best = &self.root_moves[0];
        if self.main() && self.stopped {
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

    fn ponder_from_tt(&self, best: G::Move) -> Option<G::Move> {
        let mut child = self.root.clone();
        child.play(best);
        let entry = self.tt.probe(child.hash(), 1)?;
        let mut moves = Vec::new();
        child.legal_moves(&mut moves);
        moves.into_iter().find(|&m| G::move_key(m) == entry.mv)
    }

    fn should_stop_after(&self, depth: u32) -> bool {
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
            // A fixed move time is used to the end (the hard limit stops the search); a clock
            // is spent by the soft budget: no new iteration past 55% of it.
            if self.params.limits.movetime.is_none() && self.ctrl.past_soft(55) {
                return true;
            }
        }
        // A proven result at every multipv line cannot change with more depth.
        if depth >= 2 && score.abs() >= MATE_BOUND && (MATE - score.abs()) < depth as Score {
            return true;
        }
        false
    }

    fn aspiration(&mut self, depth: u32, pv_idx: usize, report: &(dyn Fn(&Info<G::Move>) + Sync)) {
        let prev = self.root_moves[pv_idx].prev_score;
        let mut delta = 30;
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

    fn negamax(
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
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(o) = pos.terminal() {
            return outcome_score(o, ply);
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
        let key = pos.hash();
        let entry = self.tt.probe(key, ply);
        let tt_move = entry.map_or(0, |e| e.mv);
        if !pv_node
            && let Some(e) = entry
            && e.depth >= depth
            && e.cuts(alpha, beta)
        {
            return e.score;
        }
        let in_check = pos.in_check();
        let eval = if in_check {
            -INF
        } else {
            entry.map_or_else(|| pos.evaluate(), |e| e.eval)
        };

        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // Reverse futility pruning.
            if G::FUTILITY_MARGIN > 0 && depth <= 6 && eval - G::FUTILITY_MARGIN * depth >= beta {
                return eval;
            }
            // Null-move pruning.
            if G::NULL_MOVE
                && depth >= 3
                && eval >= beta
                && let Some(child) = pos.null_move()
            {
                let r = 3 + depth / 4 + ((eval - beta) / 200).min(3);
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
        // Internal iterative reduction: no hash move at a deep node, search it shallower.
        let depth = if tt_move == 0 && depth >= 6 && (pv_node || cut_node) {
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
            self.move_loop(
                pos,
                &mut moves,
                &mut scores,
                depth,
                alpha,
                beta,
                ply,
                pv_node,
                cut_node,
                in_check,
                eval,
                key,
            )
        };
        self.moves[ply] = moves;
        self.scores[ply] = scores;
        result
    }

    fn score_moves(
        &self,
        pos: &G,
        moves: &[G::Move],
        scores: &mut Vec<i32>,
        tt_move: u16,
        ply: usize,
    ) {
        scores.clear();
        let killers = self.killers[ply];
        for &m in moves {
            let k = G::move_key(m);
            let s = if k == tt_move {
                1 << 30
            } else if pos.is_tactical(m) {
                (1 << 24) + pos.order_score(m)
            } else if k == killers[0] {
                1 << 22
            } else if k == killers[1] {
                (1 << 22) - 1
            } else {
                self.history[pos.history_key(m)] + pos.order_score(m)
            };
            scores.push(s);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn move_loop(
        &mut self,
        pos: &G,
        moves: &mut [G::Move],
        scores: &mut [i32],
        depth: i32,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
        in_check: bool,
        eval: Score,
        key: u64,
    ) -> Score {
        let alpha_orig = alpha;
        let mut best = -INF;
        let mut best_key = 0u16;
        let mut searched = 0usize;
        let mut quiet_keys: [usize; 64] = [0; 64];
        let mut n_quiets = 0;
        let killers = self.killers[ply];
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
            let tactical = pos.is_tactical(mv);
            let is_killer = k == killers[0] || k == killers[1];

            // Late-move pruning of quiet moves near the leaves.
            if !pv_node
                && !in_check
                && !tactical
                && depth <= 4
                && best > -MATE_BOUND
                && searched >= 3 + (depth * depth) as usize * 2
            {
                continue;
            }
            // Futility pruning of quiet moves at frontier nodes.
            if G::FUTILITY_MARGIN > 0
                && !pv_node
                && !in_check
                && !tactical
                && depth <= 3
                && searched > 0
                && best > -MATE_BOUND
                && eval + G::FUTILITY_MARGIN * 2 * depth < alpha
            {
                continue;
            }

            let mut child = pos.clone();
            child.play(mv);
            let gives_check = child.in_check();
            // Check extension, bounded so that perpetual checks cannot blow the tree up.
            let new_depth = depth - 1 + i32::from(gives_check && ply < 2 * (depth as usize + 4));
            self.hashes.push(child.hash());
            let v = if searched == 0 {
                -self.negamax(
                    &child,
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    !pv_node && !cut_node,
                )
            } else {
                let mut r = 0;
                if depth >= 3 && searched >= 2 && !tactical && !in_check && !gives_check {
                    r = self.lmr[(depth as usize).min(63)][searched.min(63)] as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if is_killer {
                        r -= 1;
                    }
                    if cut_node {
                        r += 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
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
                    alpha = v;
                    if pv_node {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(mv);
                        head[ply].extend_from_slice(&tail[0]);
                    }
                    if v >= beta {
                        if !tactical {
                            self.reward(pos, mv, depth, ply, &quiet_keys[..n_quiets]);
                        }
                        break;
                    }
                }
            }
            if !tactical && n_quiets < 64 {
                quiet_keys[n_quiets] = pos.history_key(mv);
                n_quiets += 1;
            }
        }
        if searched == 0 {
            // Everything was pruned: fall back to a fail-low at the static eval.
            return alpha_orig.max(eval.min(alpha_orig));
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval_store = if in_check { 0 } else { eval };
        self.tt
            .store(key, best_key, best, eval_store, depth, bound, ply);
        best
    }

    /// A quiet move caused a cutoff: make it a killer and raise its history; lower the
    /// history of the quiet moves tried before it.
    fn reward(&mut self, pos: &G, mv: G::Move, depth: i32, ply: usize, tried: &[usize]) {
        let k = G::move_key(mv);
        let killers = &mut self.killers[ply];
        if killers[0] != k {
            killers[1] = killers[0];
            killers[0] = k;
        }
        let bonus = (depth * depth).min(400);
        let idx = pos.history_key(mv);
        Self::adjust(&mut self.history[idx], bonus);
        for &t in tried {
            Self::adjust(&mut self.history[t], -bonus);
        }
    }

    /// History update with gravity: values stay within +-16384.
    fn adjust(h: &mut i32, bonus: i32) {
        *h += bonus * 32 - *h * bonus.abs() / 512;
        *h = (*h).clamp(-16384, 16384);
    }

    fn qsearch(&mut self, pos: &G, mut alpha: Score, beta: Score, ply: usize) -> Score {
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(o) = pos.terminal() {
            return outcome_score(o, ply);
        }
        if ply >= MAX_PLY - 1 {
            return pos.evaluate();
        }
        let key = pos.hash();
        if let Some(e) = self.tt.probe(key, ply)
            && e.cuts(alpha, beta)
        {
            return e.score;
        }
        let in_check = pos.in_check();
        let mut moves = std::mem::take(&mut self.moves[ply]);
        let mut best;
        if in_check {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                self.moves[ply] = moves;
                return outcome_score(pos.outcome_without_moves(), ply);
            }
            best = -INF;
        } else {
            let stand = pos.evaluate();
            if stand >= beta {
                self.moves[ply] = moves;
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            pos.tactical_moves(&mut moves);
        }
        moves.sort_unstable_by_key(|&m| -pos.order_score(m));
        for &mv in moves.iter() {
            let mut child = pos.clone();
            child.play(mv);
            let v = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        self.moves[ply] = moves;
        best
    }
}
