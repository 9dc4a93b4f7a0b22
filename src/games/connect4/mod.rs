//! Connect Four on any board with `width * (height + 1) <= 64` (standard 7x6): rules
//! (`board`), the exact solver (`solver`), the heuristic evaluation (`eval`), notation.
//!
//! Notation: a move is a column letter `a`.. (`a` leftmost), either case on input. FEN: rows
//! from top to bottom, `r` player 1 (moves first), `y` player 2, digits for empty runs, then
//! the side to move `r|y` and the full-move number (1 at the start, +1 after each `y` move):
//! the start of 7x6 is `7/7/7/7/7/7 r 1`.

pub mod board;
pub mod book;
mod eval;
pub mod solver;

use crate::bits::mix;
use crate::game::{BooksAndSolvers, Notation, Outcome, Player, Rules, SearchHints, Solved};
use crate::games::fen_rows::{read_row, write_row};
use crate::search::MATE;
use board::{Board, Dims};
use std::time::Instant;

/// Empty cells up to which a solve is expected to finish within a move's time (a 12-stone
/// 7x6 position, 30 empties, takes about 10 ms to weak-solve).
const SOLVER_EMPTIES: u32 = 30;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect4 {
    pub b: Board,
}

impl Default for Connect4 {
    fn default() -> Self {
        Connect4::new(7, 6).unwrap_or_else(|_| unreachable!("7x6 fits"))
    }
}

impl Connect4 {
    /// The position of a FEN of any board size: the rows give the height, the first row's
    /// cells (runs and stones) the width.
    pub fn from_fen(fen: &str) -> Result<Connect4, String> {
        let dims = || -> Option<(u32, u32)> {
            let rows: Vec<&str> = fen.split_whitespace().next()?.split('/').collect();
            let (mut width, mut run) = (0u32, 0u32);
            for ch in rows.first()?.chars() {
                match ch.to_digit(10) {
                    Some(d) => run = run.checked_mul(10)?.checked_add(d)?,
                    None => {
                        width = width.checked_add(run)?.checked_add(1)?;
                        run = 0;
                    }
                }
            }
            Some((width.checked_add(run)?, u32::try_from(rows.len()).ok()?))
        };
        let (w, h) = dims().ok_or_else(|| format!("invalid FEN '{fen}'"))?;
        Connect4::new(w, h)?.parse_fen(fen)
    }

    pub fn new(width: u32, height: u32) -> Result<Connect4, String> {
        Ok(Connect4 {
            b: Board::new(Dims::new(width, height)?),
        })
    }

    pub fn dims(&self) -> Dims {
        self.b.dims
    }

    /// Plays a sequence of 1-based column digits (`4453`), the format of the published sets.
    pub fn play_digits(&self, digits: &str) -> Result<Connect4, String> {
        let mut pos = self.clone();
        for (i, ch) in digits.chars().enumerate() {
            let col = ch
                .to_digit(10)
                .filter(|&d| d >= 1 && d <= self.b.dims.width)
                .ok_or_else(|| {
                    format!(
                        "character {} '{ch}' is not a column 1..{}",
                        i + 1,
                        self.b.dims.width
                    )
                })?
                - 1;
            if pos.b.over() {
                return Err(format!("move {} '{ch}': the game is already over", i + 1));
            }
            if !pos.b.can_play(col) {
                return Err(format!("move {} '{ch}': column {} is full", i + 1, col + 1));
            }
            pos.b.play_col(col);
        }
        Ok(pos)
    }

    /// Converts a solver score (test-set convention) to search units.
    pub fn score_to_search(&self, s: i32) -> i32 {
        let cells = self.b.dims.cells() as i32;
        let moves = self.b.moves as i32;
        if s > 0 {
            let k = (cells + 1 - moves) / 2 - s + 1;
            MATE - (2 * k - 1)
        } else if s < 0 {
            let k = (cells - moves) / 2 + s + 1;
            -(MATE - 2 * k)
        } else {
            0
        }
    }

    /// Exact scores of every column (None: full), or None if aborted.
    pub fn analyze(&self, weak: bool, abort: &dyn Fn() -> bool) -> Option<(Vec<Option<i32>>, u64)> {
        let mut s = solver::Solver::new(self.b.dims, solver::table(), abort);
        let scores = s.analyze(&self.b, weak)?;
        Some((scores, s.nodes))
    }
}

impl Rules for Connect4 {
    type Move = u8;

    const NAME: &'static str = "connect4";

    fn to_move(&self) -> Player {
        self.b.to_move()
    }

    fn legal_moves(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.b.over() {
            return;
        }
        for c in 0..self.b.dims.width {
            if self.b.can_play(c) {
                out.push(c as u8);
            }
        }
    }

    fn play(&mut self, mv: u8) {
        self.b.play_col(mv as u32);
    }

    fn hash(&self) -> u64 {
        mix(self.b.key())
    }

    fn terminal(&self) -> Option<Outcome> {
        if self.b.won {
            Some(Outcome::Loss)
        } else if self.b.is_full() {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Draw
    }

    fn end_reason(&self) -> Option<String> {
        if self.b.won {
            Some("four in a row".into())
        } else if self.b.is_full() {
            Some("the board is full: a draw".into())
        } else {
            None
        }
    }
}

impl Notation for Connect4 {
    const SIDES: [&'static str; 2] = ["Red", "Yellow"];

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        let t = text.trim().to_ascii_lowercase();
        let w = self.b.dims.width;
        let last = (b'a' + w as u8 - 1) as char;
        let mut chars = t.chars();
        let col = match (chars.next(), chars.next()) {
            (Some(c @ 'a'..='z'), None) => c as u32 - 'a' as u32,
            _ => return Err(format!("'{text}' is not a column (a..{last})")),
        };
        if col >= w {
            return Err(format!("'{text}' is off the board (columns a..{last})"));
        }
        if self.b.over() {
            return Err(format!("'{text}': the game is already over"));
        }
        if !self.b.can_play(col) {
            return Err(format!("'{text}': column {t} is full"));
        }
        Ok(col as u8)
    }

    fn format_move(&self, mv: u8) -> String {
        ((b'a' + mv) as char).to_string()
    }

    fn parse_fen(&self, fen: &str) -> Result<Self, String> {
        let dims = self.b.dims;
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 2 || fields.len() > 3 {
            return Err(format!(
                "invalid FEN '{fen}': expected <rows> <r|y> [<move number>]"
            ));
        }
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != dims.height as usize {
            return Err(format!(
                "invalid FEN '{fen}': {} rows, the board has {}",
                rows.len(),
                dims.height
            ));
        }
        let (mut p1, mut p2) = (0u64, 0u64);
        for (i, row) in rows.iter().enumerate() {
            let r = dims.height - 1 - i as u32;
            read_row(fen, row, i, dims.width, "rRyY", |col, ch| {
                if ch.eq_ignore_ascii_case(&'r') {
                    p1 |= dims.bit(col, r);
                } else {
                    p2 |= dims.bit(col, r);
                }
            })?;
        }
        let mask = p1 | p2;
        // Gravity: every stone stands on the bottom or on another stone.
        if (mask & !dims.bottom()) & !(mask << 1) != 0 {
            return Err(format!(
                "invalid FEN '{fen}': a stone floats above an empty cell"
            ));
        }
        let (n1, n2) = (p1.count_ones(), p2.count_ones());
        let side = match fields[1] {
            "r" | "R" => Player::P1,
            "y" | "Y" => Player::P2,
            s => {
                return Err(format!(
                    "invalid FEN '{fen}': side to move '{s}' is not r or y"
                ));
            }
        };
        let consistent = match side {
            Player::P1 => n1 == n2,
            Player::P2 => n1 == n2 + 1,
        };
        if !consistent {
            return Err(format!(
                "invalid FEN '{fen}': {n1} red and {n2} yellow stones with {} to move",
                fields[1]
            ));
        }
        if let Some(n) = fields.get(2) {
            let n: u32 = n
                .parse()
                .map_err(|_| format!("invalid FEN '{fen}': move number '{n}'"))?;
            if n != (n1 + n2) / 2 + 1 {
                return Err(format!(
                    "invalid FEN '{fen}': move number {n} does not match {} stones",
                    n1 + n2
                ));
            }
        }
        let (current, opponent) = match side {
            Player::P1 => (p1, p2),
            Player::P2 => (p2, p1),
        };
        if board::has_four(dims, current) {
            return Err(format!(
                "invalid FEN '{fen}': the side to move already has four in a row"
            ));
        }
        Ok(Connect4 {
            b: Board {
                dims,
                current,
                mask,
                moves: n1 + n2,
                won: board::has_four(dims, opponent),
            },
        })
    }

    fn fen(&self) -> String {
        let dims = self.b.dims;
        let (p1, p2) = self.b.stones();
        let rows: Vec<String> = (0..dims.height)
            .rev()
            .map(|r| {
                write_row((0..dims.width).map(|c| {
                    let bit = dims.bit(c, r);
                    if p1 & bit != 0 {
                        Some('r')
                    } else if p2 & bit != 0 {
                        Some('y')
                    } else {
                        None
                    }
                }))
            })
            .collect();
        let side = if self.b.to_move() == Player::P1 {
            'r'
        } else {
            'y'
        };
        format!("{} {side} {}", rows.join("/"), self.b.moves / 2 + 1)
    }

    fn diagram(&self) -> String {
        let dims = self.b.dims;
        let (p1, p2) = self.b.stones();
        let letters: String = (0..dims.width)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let mut s = format!("\n{letters}\n");
        for r in (0..dims.height).rev() {
            s.push('|');
            for c in 0..dims.width {
                let bit = dims.bit(c, r);
                s.push(if p1 & bit != 0 {
                    'r'
                } else if p2 & bit != 0 {
                    'y'
                } else {
                    '.'
                });
                s.push('|');
            }
            s.push('\n');
        }
        s.push_str(&format!("\nFen: {}\nKey: {:016X}", self.fen(), self.hash()));
        s
    }
}

impl SearchHints for Connect4 {
    fn evaluate(&self) -> i32 {
        eval::evaluate(&self.b)
    }

    fn order_score(&self, mv: u8) -> i32 {
        let w = self.b.dims.width as i32;
        let centre = -(2 * mv as i32 - (w - 1)).abs();
        let wins = if self.b.is_winning_move(mv as u32) {
            1000
        } else {
            0
        };
        wins + centre
    }

    fn move_key(mv: u8) -> u16 {
        mv as u16 + 1
    }

    fn history_key(&self, mv: u8) -> usize {
        mv as usize * 64 + self.b.landing_row(mv as u32).unwrap_or(0) as usize
    }

    const BENCH_DEPTH: u32 = 14;

    fn bench_board(&self) -> Option<String> {
        let d = &self.b.dims;
        (d.width != 7 || d.height != 6).then(|| format!("{}x{}", d.width, d.height))
    }

    fn bench_fens() -> &'static [&'static str] {
        &[
            "7/7/7/7/7/7 r 1",
            "7/7/7/7/3y3/3r3 r 2",
            "7/7/7/7/2yy3/2rr3 r 3",
            "7/7/7/7/3y3/2yrrr1 y 3",
            "7/7/7/7/3rrr1/2ryyy1 y 4",
        ]
    }
}

impl BooksAndSolvers for Connect4 {
    /// With at most `SOLVER_EMPTIES` empty cells (or a book move) the solver is the player: it
    /// may use twice the soft budget (within the hard limit), since a finished solve is perfect
    /// play and a heuristic move may throw a won game. With more empty cells (larger boards,
    /// positions off the book) a solve rarely finishes in a move's time: it gets 30% and the
    /// heuristic search the rest.
    fn solver_share(&self) -> u64 {
        let empties = self.b.dims.cells() - self.b.moves;
        if empties <= SOLVER_EMPTIES || book::lookup(&self.b).is_some() {
            200
        } else {
            30
        }
    }

    fn warm_up(&self) {
        let _ = solver::table();
    }

    /// The book first (7x6: perfect play for both sides to 12 stones); then a weak solve that
    /// finds a winning (or else drawing) move, then the exact scores (`solve_stages`). If the
    /// exact pass runs out of time the weak result stands (a win with its own column's exact
    /// distance where that finished), so a won position is never let slip for want of time to
    /// measure the win.
    fn solve(&self, abort: &dyn Fn() -> bool) -> Option<Solved<u8>> {
        self.solve_stages(abort, true)
    }
}

impl Connect4 {
    /// `BooksAndSolvers::solve`. Where the weak solve finds a win, its column is valued exactly
    /// first: if the pass over every column then runs out of time, the answer is that column's own
    /// distance to the win (the move played, with perfect play after it) rather than the weak
    /// result's win at the latest stone. `every_column` false skips that pass, as a stop at once
    /// would.
    pub fn solve_stages(&self, abort: &dyn Fn() -> bool, every_column: bool) -> Option<Solved<u8>> {
        if let Some(e) = book::lookup(&self.b) {
            return Some(Solved {
                score: self.score_to_search(e.score),
                best: e.col,
                nodes: 0,
                note: format!("book: {}", self.verdict(e.score)),
            });
        }
        // A stone that wins at once is the best there is: its score needs no search (the
        // exact pass below would value every other column as well, which far from the end
        // can take longer than the move's time, leaving only the weak result's "win").
        let centre = self.b.dims.width as i32 - 1;
        let now = (0..self.b.dims.width)
            .filter(|&c| !self.b.over() && self.b.can_play(c) && self.b.is_winning_move(c))
            .max_by_key(|&c| -(2 * c as i32 - centre).abs());
        if let Some(c) = now {
            let score = (self.b.dims.cells() as i32 + 1 - self.b.moves as i32) / 2;
            return Some(Solved {
                score: self.score_to_search(score),
                best: c as u8,
                nodes: 0,
                note: format!("solved: {}", self.verdict(score)),
            });
        }
        let weak = self.weak_best(abort)?;
        let (mut spent, won) = (weak.nodes, (weak.score > 0).then_some(weak.best));
        let mut fallback = (weak.score >= 0).then_some(weak);
        if let Some(col) = won
            && let Some((score, nodes)) = self.column_score(col, abort)
        {
            spent += nodes;
            fallback = Some(Solved {
                score: self.score_to_search(score),
                best: col,
                nodes: spent,
                note: format!(
                    "solved: {} with this move, the others unvalued",
                    self.verdict(score)
                ),
            });
        }
        let analysed = if every_column {
            self.analyze(false, abort)
        } else {
            None
        };
        let Some((scores, nodes)) = analysed else {
            return fallback;
        };
        let (best, score) = scores
            .iter()
            .enumerate()
            .filter_map(|(c, s)| s.map(|s| (c as u8, s)))
            .max_by_key(|&(c, s)| (s, -(2 * c as i32 - centre).abs()))?;
        Some(Solved {
            score: self.score_to_search(score),
            best,
            nodes: nodes + spent,
            note: format!("solved: {}", self.verdict(score)),
        })
    }

    /// A solver score (test-set convention: for the side to move, larger the sooner it wins)
    /// in words, naming the side its sign is for, as the page's column values are for the
    /// side to move: "Red wins (+2 for Red)", "a draw".
    pub fn verdict(&self, score: i32) -> String {
        let sides = <Self as Notation>::SIDES;
        let me = self.to_move().index();
        let winner = if score > 0 { me } else { 1 - me };
        match score {
            0 => "a draw".into(),
            _ => format!(
                "{} wins (+{} for {})",
                sides[winner],
                score.abs(),
                sides[winner]
            ),
        }
    }

    /// The exact score (test-set convention, for the side to move) of playing `col`, a move
    /// that does not end the game, and the solver's nodes.
    fn column_score(&self, col: u8, abort: &dyn Fn() -> bool) -> Option<(i32, u64)> {
        let mut s = solver::Solver::new(self.b.dims, solver::table(), abort);
        let mut child = self.b.clone();
        child.play_col(col as u32);
        let v = -s.solve(&child, false)?;
        Some((v, s.nodes))
    }

    /// A winning move if there is one, else a drawing one, else any (score: a win at the
    /// latest possible stone, 0, or a loss at the earliest), by weak solves centre first.
    fn weak_best(&self, abort: &dyn Fn() -> bool) -> Option<Solved<u8>> {
        let mut s = solver::Solver::new(self.b.dims, solver::table(), abort);
        let w = self.b.dims.width as i32;
        let cols: Vec<u32> = (0..w)
            .map(|i| (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32)
            .filter(|&c| c < self.b.dims.width && self.b.can_play(c) && !self.b.over())
            .collect();
        let child = |c: u32| {
            let mut ch = self.b.clone();
            ch.play_col(c);
            ch
        };
        // First pass: a move after which the opponent loses (one null window each).
        let mut best: Option<(u8, i32)> = None;
        for &c in &cols {
            if self.b.is_winning_move(c) || s.loses(&child(c))? {
                best = Some((c as u8, 1));
                break;
            }
        }
        // Otherwise the move with the best weak value (draw before loss).
        if best.is_none() {
            for &c in &cols {
                let v = -s.solve(&child(c), true)?;
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((c as u8, v));
                }
                if v == 0 {
                    break;
                }
            }
        }
        let (mv, v) = best?;
        let score = match v {
            1 => self.score_to_search(1),
            0 => 0,
            _ => self.score_to_search(-1),
        };
        Some(Solved {
            score,
            best: mv,
            nodes: s.nodes,
            note: format!("weak solve: {}", ["loss", "draw", "win"][(v + 1) as usize]),
        })
    }
}

/// Solver bench: a few fixed positions solved exactly with a cleared table; the node count is
/// part of the bench signature.
pub fn bench_solver() -> Vec<String> {
    // The first two positions of Pascal Pons's published Test_L2_R2 and Test_L3_R1 sets.
    const POSITIONS: &[&str] = &[
        "274552224131661",
        "5455174361263362",
        "2252576253462244111563365343671351441",
        "7422341735647741166133573473242566",
    ];
    let start = Instant::now();
    let mut nodes = 0;
    for p in POSITIONS {
        solver::table().clear();
        if let Ok(pos) = Connect4::default().play_digits(p) {
            let mut s = solver::Solver::new(pos.dims(), solver::table(), &|| false);
            let _ = s.solve(&pos.b, false);
            nodes += s.nodes;
        }
    }
    let ms = start.elapsed().as_millis() as u64;
    vec![
        format!(
            "connect4-solver: {} positions: {nodes} nodes in {ms} ms, {} nps",
            POSITIONS.len(),
            nodes * 1000 / ms.max(1)
        ),
        format!("signature connect4-solver {nodes}"),
    ]
}
