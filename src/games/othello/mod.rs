//! Othello on even N x N boards (8, 10, 12, 14, 16), generic over the bit set: rules
//! (`board`), evaluation (`eval`), exact endgame solvers (`endgame`, which picks `endgame8` on
//! 8x8 and `endgame_big` on the larger boards), notation (`notation`).
//!
//! Notation: squares `a1`.., column letter then row number, `a1` top-left, row 1 at the top
//! (the four openings are d3, c4, f5, e6). A pass is `0000` (UGI) or `PA` (NBoard/GGF). FEN:
//! rows top to bottom, `x` Black (player 1, moves first), `o` White, digits for empty runs,
//! then the side to move `x|o`; the 8x8 start is `8/8/8/3ox3/3xo3/8/8/8 x`.
//!
//! Invariants: `me` holds the discs of the side to move, `opp` the other's; they never overlap.
//! `legal_moves` is empty only when neither side can move (the game is over), and is `[PASS]`
//! when only the side to move is blocked.

pub mod board;
pub mod book;
pub mod endgame;
pub mod endgame8;
mod endgame_big;
mod eval;
pub mod ggf;
pub mod learn;
pub mod learn_big;
mod notation;
mod pattern_cells;
pub mod patterns;
pub mod patterns_big;
pub mod patterns_hand;
mod phase_weights;
pub mod predict_table;
mod search_error;
pub mod solve_table;

use crate::bits::Bits;
use crate::bits::mix;
use crate::game::{
    BooksAndSolvers, Notation, Outcome, PlayBudget, Player, Rules, SearchHints, Solved,
};
use board::Geo;
pub use learn::PatternNet;
pub use learn_big::BigNet;
use notation::rows_fen;

pub const PASS: u16 = u16::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Othello<B: Bits> {
    pub geo: Geo<B>,
    pub me: B,
    pub opp: B,
    pub black_to_move: bool,
    /// The learned pattern evaluation (8x8's, or a big board's); none: the hand-written one.
    pub patterns: Patterns,
    /// The opening book (8x8, `OwnBook`/`BookFile`).
    pub book: book::Choice,
}

/// The pattern weights a position evaluates with (compared by identity): 8x8's, or those of
/// a big board (10x10 to 16x16); at most one is set.
#[derive(Clone, Copy, Debug)]
pub struct Patterns(pub Option<&'static PatternNet>, pub Option<&'static BigNet>);

impl PartialEq for Patterns {
    fn eq(&self, other: &Self) -> bool {
        let small = match (self.0, other.0) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        let big = match (self.1, other.1) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        small && big
    }
}

impl Eq for Patterns {}

impl Patterns {
    /// The weights a new board of side `n` evaluates with.
    fn default_for(n: u32) -> Patterns {
        if n == 8 {
            Patterns(learn::default_net(), None)
        } else {
            Patterns(None, learn_big::default_net(n))
        }
    }
}

impl<B: Bits> Othello<B> {
    pub fn new(n: u32) -> Result<Self, String> {
        let geo = Geo::new(n)?;
        let h = n / 2;
        let bit = |r: u32, c: u32| B::one_at(r * n + c);
        // Row h-1: o x (d4 white, e4 black on 8x8); row h: x o.
        let black = bit(h - 1, h) | bit(h, h - 1);
        let white = bit(h - 1, h - 1) | bit(h, h);
        Ok(Othello {
            geo,
            me: black,
            opp: white,
            black_to_move: true,
            patterns: Patterns::default_for(n),
            book: book::Choice::default_for(n),
        })
    }

    pub fn black_white(&self) -> (B, B) {
        if self.black_to_move {
            (self.me, self.opp)
        } else {
            (self.opp, self.me)
        }
    }

    pub fn empties(&self) -> u32 {
        self.geo.all.count() - (self.me | self.opp).count()
    }

    /// Final margin for the side to move, empty squares going to the winner.
    pub fn final_margin(&self) -> i32 {
        let d = self.me.count() as i32 - self.opp.count() as i32;
        let e = self.empties() as i32;
        if d > 0 {
            d + e
        } else if d < 0 {
            d - e
        } else {
            0
        }
    }
}

impl<B: Bits> Rules for Othello<B> {
    type Move = u16;

    const NAME: &'static str = "othello";

    fn to_move(&self) -> Player {
        if self.black_to_move {
            Player::P1
        } else {
            Player::P2
        }
    }

    fn legal_moves(&self, out: &mut Vec<u16>) {
        out.clear();
        let mut m = self.geo.moves(self.me, self.opp);
        if m.is_zero() {
            if !self.geo.moves(self.opp, self.me).is_zero() {
                out.push(PASS);
            }
            return;
        }
        while !m.is_zero() {
            out.push(m.lowest() as u16);
            m = m.without_lowest();
        }
    }

    fn count_moves(&self) -> u64 {
        (self.geo.moves(self.me, self.opp).count() as u64).max(1)
    }

    /// The published Othello perft counts go on passing after the game has ended.
    fn perft_pass(&self) -> Option<u16> {
        Some(PASS)
    }

    fn play(&mut self, mv: u16) {
        if mv != PASS {
            let sq = mv as u32;
            let f = self.geo.flips(self.me, self.opp, sq);
            self.me |= f | B::one_at(sq);
            self.opp &= !f;
        }
        std::mem::swap(&mut self.me, &mut self.opp);
        self.black_to_move = !self.black_to_move;
    }

    fn hash(&self) -> u64 {
        let (b, w) = self.black_white();
        mix(b.fold64() ^ 0x243f_6a88_85a3_08d3)
            ^ mix(w.fold64() ^ 0x1319_8a2e_0370_7344).rotate_left(17)
            ^ if self.black_to_move {
                0
            } else {
                0xa409_3822_299f_31d0
            }
    }

    fn terminal(&self) -> Option<Outcome> {
        None
    }

    fn end_reason(&self) -> Option<String> {
        self.outcome()?;
        let (b, w) = if self.black_to_move {
            (self.me.count(), self.opp.count())
        } else {
            (self.opp.count(), self.me.count())
        };
        Some(format!(
            "neither side can move: Black {b}, White {w}{}",
            match b.cmp(&w) {
                std::cmp::Ordering::Greater => " (Black wins)",
                std::cmp::Ordering::Less => " (White wins)",
                std::cmp::Ordering::Equal => " (a draw)",
            }
        ))
    }

    fn outcome_without_moves(&self) -> Outcome {
        match self.final_margin() {
            d if d > 0 => Outcome::Win,
            d if d < 0 => Outcome::Loss,
            _ => Outcome::Draw,
        }
    }
}

impl<B: Bits> Notation for Othello<B> {
    const SIDES: [&'static str; 2] = ["Black", "White"];

    fn parse_move(&self, text: &str) -> Result<u16, String> {
        self.read_move(text)
    }

    fn format_move(&self, mv: u16) -> String {
        if mv == PASS {
            "0000".into()
        } else {
            self.square_name(mv as u32)
        }
    }

    fn parse_fen(&self, fen: &str) -> Result<Self, String> {
        self.read_fen(fen)
    }

    fn fen(&self) -> String {
        self.write_fen()
    }

    fn diagram(&self) -> String {
        self.draw()
    }

    fn parse_game_record(&self, record: &str) -> Result<(Self, Vec<String>), String> {
        let g = ggf::parse(record)?;
        if g.n != self.geo.n {
            return Err(format!(
                "GGF board of size {} but this engine plays {}",
                g.n, self.geo.n
            ));
        }
        let side = if g.black_to_move { 'x' } else { 'o' };
        let start = self.parse_fen(&format!("{} {side}", rows_fen(&g.squares, g.n as usize)))?;
        Ok((start, g.moves))
    }
}

impl<B: Bits> SearchHints for Othello<B> {
    fn evaluate(&self) -> i32 {
        match self.patterns {
            Patterns(Some(net), _) if self.geo.n == 8 => {
                net.evaluate(self.me.low64(), self.opp.low64())
            }
            Patterns(_, Some(big)) if big.n == self.geo.n => big.evaluate(self),
            _ => eval::evaluate(self),
        }
    }

    fn order_score(&self, mv: u16) -> i32 {
        if mv == PASS {
            return 0;
        }
        let b = B::one_at(mv as u32);
        if !(b & self.geo.corners).is_zero() {
            300
        } else if !(b & self.geo.x_squares).is_zero() {
            -300
        } else if !(b & self.geo.c_squares).is_zero() {
            -100
        } else if !(b & self.geo.edges).is_zero() {
            50
        } else {
            0
        }
    }

    fn move_key(mv: u16) -> u16 {
        if mv == PASS { 1000 } else { mv + 1 }
    }

    fn history_key(&self, mv: u16) -> usize {
        if mv == PASS { 300 } else { mv as usize }
    }

    const BENCH_DEPTH: u32 = 9;

    fn bench_fens() -> &'static [&'static str] {
        &[
            "8/8/8/3ox3/3xo3/8/8/8 x",
            "8/8/3x4/3xx3/3xo3/8/8/8 o",
            "8/8/2o5/2ooxx2/2xxxo2/4x3/8/8 x",
            "2o5/3o4/1xxoxx2/2xoxo2/2xxoxo1/2xoo3/4o3/8 x",
        ]
    }

    fn bench_board(&self) -> Option<String> {
        (self.geo.n != 8).then(|| format!("{0}x{0}", self.geo.n))
    }

    fn eval_error_sigma(&self, depth: i32, shallow: i32) -> Option<i32> {
        match self.patterns {
            Patterns(Some(_), _) if self.geo.n == 8 => {
                Some(search_error::sigma(self.empties(), depth, shallow))
            }
            Patterns(None, Some(_)) => search_error::sigma_big(self.geo.n, self.empties()),
            _ => None,
        }
    }
}

impl<B: Bits> BooksAndSolvers for Othello<B> {
    fn options() -> &'static [crate::game::GameOption] {
        use crate::game::GameOption as O;
        &[
            O {
                name: "EvalFile",
                declaration: "type string default <embedded>",
            },
            O {
                name: "OwnBook",
                declaration: "type check default true",
            },
            O {
                name: "BookFile",
                declaration: "type string default <embedded>",
            },
        ]
    }

    fn book_moves(&self) -> Vec<crate::game::BookMove<u16>> {
        book::moves_of(self)
    }

    fn book_choice(&self) -> Option<crate::game::BookMove<u16>> {
        book::choice_of(self)
    }

    fn book_learn(
        &self,
        line: &[u16],
        eval: &mut dyn FnMut(&Self) -> (i32, u32),
    ) -> Result<usize, String> {
        book::learn(self, line, eval)
    }

    fn set_option(&mut self, name: &str, value: &str) -> Option<Result<(), String>> {
        if let Some(r) = self.book.set_option(self.geo.n, name, value) {
            return Some(r);
        }
        if !name.eq_ignore_ascii_case("EvalFile") {
            return None;
        }
        let before = self.patterns;
        let set = match value.trim() {
            "" | "<embedded>" => {
                self.patterns = Patterns::default_for(self.geo.n);
                Ok(())
            }
            "<none>" => {
                self.patterns = Patterns(None, None);
                Ok(())
            }
            path if self.geo.n == 8 => {
                PatternNet::load(path).map(|net| self.patterns = Patterns(Some(net), None))
            }
            path => {
                BigNet::load(path, self.geo.n).map(|net| self.patterns = Patterns(None, Some(net)))
            }
        };
        // The solvers order and cut with these weights: bounds and predictions made with
        // others are dropped (a prediction-table entry never goes stale otherwise).
        if self.patterns != before {
            endgame::table().clear();
        }
        Some(set)
    }

    fn warm_up(&self) {
        let _ = endgame::table();
    }

    fn clear_tables(&self) {
        endgame::table().clear();
    }

    fn solve(&self, abort: &dyn Fn() -> bool) -> Option<Solved<u16>> {
        self.solve_exact(false, abort)
    }

    fn solve_in_play(
        &self,
        abort: &dyn Fn(bool) -> bool,
        budget: PlayBudget,
    ) -> Result<Solved<u16>, u64> {
        endgame::solve_in_play(self, abort, budget).map(|r| Solved {
            score: r.result.margin * 100,
            best: r.result.best,
            nodes: r.result.nodes,
            note: match r.level {
                None => format!(
                    "solved: final disc margin {:+} for the side to move",
                    r.result.margin
                ),
                Some(t) => format!(
                    "selective endgame search ({:.*} sigma{}): final disc margin {}{:+} for the side to move",
                    if t % 10 == 0 { 1 } else { 2 },
                    t as f64 / 100.0,
                    if r.complete { "" } else { ", unfinished" },
                    if r.complete { "" } else { "at least " },
                    r.result.margin
                ),
            },
        })
    }

    fn solver_share(&self) -> u64 {
        if self.empties() > endgame::EXACT_EMPTIES {
            100
        } else {
            30
        }
    }
}

impl<B: Bits> Othello<B> {
    /// The exact solver from `AUTO_EMPTIES` empties down, as the search reports it;
    /// `canonical`: see `endgame::solve_with`.
    pub(crate) fn solve_exact(
        &self,
        canonical: bool,
        abort: &dyn Fn() -> bool,
    ) -> Option<Solved<u16>> {
        if self.empties() > endgame::AUTO_EMPTIES {
            return None;
        }
        self.solve_any(canonical, abort)
    }

    /// The exact solver at any number of empties (`abort` bounds it): the data generator's,
    /// whose `--exact-from` may reach past `AUTO_EMPTIES`.
    pub(crate) fn solve_any(
        &self,
        canonical: bool,
        abort: &dyn Fn() -> bool,
    ) -> Option<Solved<u16>> {
        let r = endgame::solve_with(self, canonical, abort)?;
        Some(Solved {
            score: r.margin * 100,
            best: r.best,
            nodes: r.nodes,
            note: format!(
                "solved: final disc margin {:+} for the side to move",
                r.margin
            ),
        })
    }
}

/// Endgame bench: FFO endgame positions #1 and #3 (Fforum test set, published with their
/// exact scores +18 and +2) solved with a cleared table; the node count is part of the
/// bench signature.
pub fn bench_solver() -> Vec<String> {
    const POSITIONS: &[&str] = &[
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
        "----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X",
    ];
    let start = std::time::Instant::now();
    let mut nodes = 0;
    for p in POSITIONS {
        endgame::table().clear();
        if let Ok(pos) = Othello::<u64>::new(8).and_then(|o| o.parse_obf(p))
            && let Some(r) = endgame::solve(&pos, &|| false)
        {
            nodes += r.nodes;
        }
    }
    let ms = start.elapsed().as_millis() as u64;
    vec![
        format!(
            "othello-endgame: {} positions: {nodes} nodes in {ms} ms, {} nps",
            POSITIONS.len(),
            nodes * 1000 / ms.max(1)
        ),
        format!("signature othello-endgame {nodes}"),
    ]
}
