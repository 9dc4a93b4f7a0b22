//! Domineering on any R x C board up to 16x16: Horizontal (player 1) and Vertical (player 2)
//! place dominoes; the side that cannot move loses. One implementation, generic over the bit
//! set (`u64` up to 64 cells, `u128` up to 128, `U256` up to 256).
//!
//! Notation: cells `a1`.., `a1` top-left, letters for columns, numbers for rows from the top.
//! A move names both cells, `c3c4` (vertical) or `c3d3` (horizontal); the top/left cell alone
//! (`c3`) is accepted. FEN: rows top to bottom, `#` covered, digits for empty runs, then the
//! side to move `h|v`; the 8x8 start is `8/8/8/8/8/8/8/8 h`.

pub mod board;
pub mod solver;

use crate::bits::Bits;
use crate::bits::mix;
use crate::game::{BooksAndSolvers, Notation, Outcome, Player, Rules, SearchHints, Solved};
use crate::games::fen_rows::{read_row, write_row};
use crate::search::MATE;
use board::{Geo, Side};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domineering<B: Bits> {
    pub geo: Geo<B>,
    pub occupied: B,
    pub to_move: Side,
}

impl<B: Bits> Domineering<B> {
    pub fn new(rows: u32, cols: u32, first: Side) -> Result<Self, String> {
        Ok(Domineering {
            geo: Geo::new(rows, cols)?,
            occupied: B::zero(),
            to_move: first,
        })
    }

    pub fn empty(&self) -> B {
        self.geo.all & !self.occupied
    }

    /// Places the side to move's domino at `anchor` (assumed legal) and passes the turn.
    pub fn place(&mut self, anchor: u32) {
        self.occupied |= self.geo.cells(self.to_move, anchor);
        self.to_move = self.to_move.other();
    }

    pub fn moves_of(&self, side: Side) -> B {
        self.geo.moves(side, self.empty())
    }

    fn cell_name(&self, i: u32) -> String {
        format!(
            "{}{}",
            (b'a' + (i % self.geo.cols) as u8) as char,
            i / self.geo.cols + 1
        )
    }

    /// Parses `c3` into a cell index.
    fn parse_cell(&self, s: &str) -> Result<u32, String> {
        let mut chars = s.chars();
        let col = match chars.next() {
            Some(c @ 'a'..='z') => c as u32 - 'a' as u32,
            _ => return Err(format!("'{s}' is not a cell (a letter then a row number)")),
        };
        let row: u32 = chars
            .as_str()
            .parse()
            .map_err(|_| format!("'{s}' is not a cell (a letter then a row number)"))?;
        if col >= self.geo.cols || row == 0 || row > self.geo.rows {
            return Err(format!(
                "'{s}' is off the board (a1..{}{})",
                (b'a' + self.geo.cols as u8 - 1) as char,
                self.geo.rows
            ));
        }
        Ok((row - 1) * self.geo.cols + col)
    }

    /// Splits `c3c4` into `c3` and `c4` (rows may have two digits).
    fn split_cells(text: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        let bytes = text.as_bytes();
        let mut start = 0;
        for i in 1..bytes.len() {
            if bytes[i].is_ascii_alphabetic() && bytes[i - 1].is_ascii_digit() {
                parts.push(&text[start..i]);
                start = i;
            }
        }
        parts.push(&text[start..]);
        parts
    }

    /// Upper bound on the plies left: both sides' possible moves.
    fn plies_bound(&self, winner_to_move: bool) -> i32 {
        let e = self.empty();
        let opp = self.geo.max_moves(self.to_move.other(), e) as i32;
        let me = self.geo.max_moves(self.to_move, e) as i32;
        if winner_to_move { 2 * opp + 1 } else { 2 * me }
    }
}

impl<B: Bits> Rules for Domineering<B> {
    type Move = u16;

    const NAME: &'static str = "domineering";

    fn to_move(&self) -> Player {
        self.to_move.player()
    }

    fn legal_moves(&self, out: &mut Vec<u16>) {
        out.clear();
        let mut m = self.moves_of(self.to_move);
        while !m.is_zero() {
            out.push(m.lowest() as u16);
            m = m.without_lowest();
        }
    }

    fn count_moves(&self) -> u64 {
        self.moves_of(self.to_move).count() as u64
    }

    fn play(&mut self, mv: u16) {
        self.place(mv as u32);
    }

    fn hash(&self) -> u64 {
        let side = match self.to_move {
            Side::Horizontal => 0x51_7cc1_b727_220a,
            Side::Vertical => 0x2545_f491_4f6c_dd1d,
        };
        mix(self.occupied.fold64() ^ side)
    }

    fn terminal(&self) -> Option<Outcome> {
        None
    }

    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Loss
    }

    fn end_reason(&self) -> Option<String> {
        self.outcome()?;
        Some(match self.to_move {
            Side::Horizontal => "no legal moves — Horizontal loses".into(),
            Side::Vertical => "no legal moves — Vertical loses".into(),
        })
    }
}

impl<B: Bits> Notation for Domineering<B> {
    const SIDES: [&'static str; 2] = ["Horizontal", "Vertical"];

    fn parse_move(&self, text: &str) -> Result<u16, String> {
        let t = text.trim().to_ascii_lowercase();
        let parts = Self::split_cells(&t);
        let side = self.to_move;
        let anchor = match parts.as_slice() {
            [one] => self.parse_cell(one)?,
            [a, b] => {
                let (x, y) = (self.parse_cell(a)?, self.parse_cell(b)?);
                let (lo, hi) = (x.min(y), x.max(y));
                let horizontal = hi == lo + 1 && lo / self.geo.cols == hi / self.geo.cols;
                let vertical = hi == lo + self.geo.cols;
                match (horizontal, vertical, side) {
                    (true, _, Side::Horizontal) | (_, true, Side::Vertical) => lo,
                    (true, _, Side::Vertical) => {
                        return Err(format!("'{text}' is horizontal, but Vertical is to move"));
                    }
                    (_, true, Side::Horizontal) => {
                        return Err(format!("'{text}' is vertical, but Horizontal is to move"));
                    }
                    _ => return Err(format!("'{text}': the two cells are not adjacent")),
                }
            }
            _ => return Err(format!("'{text}' is not a move (e.g. c3c4, c3d3 or c3)")),
        };
        let empty = self.empty();
        let fits = match side {
            Side::Horizontal => self.geo.h_anchor.has(anchor),
            Side::Vertical => self.geo.v_anchor.has(anchor),
        };
        if !fits {
            return Err(format!(
                "'{text}': a {} domino there leaves the board",
                side.name().to_lowercase()
            ));
        }
        let cells = self.geo.cells(side, anchor);
        if (cells & empty) != cells {
            return Err(format!("'{text}': a square is already covered"));
        }
        Ok(anchor as u16)
    }

    fn format_move(&self, mv: u16) -> String {
        let a = mv as u32;
        let b = match self.to_move {
            Side::Horizontal => a + 1,
            Side::Vertical => a + self.geo.cols,
        };
        format!("{}{}", self.cell_name(a), self.cell_name(b))
    }

    fn parse_fen(&self, fen: &str) -> Result<Self, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(format!("invalid FEN '{fen}': expected <rows> <h|v>"));
        }
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != self.geo.rows as usize {
            return Err(format!(
                "invalid FEN '{fen}': {} rows, the board has {}",
                rows.len(),
                self.geo.rows
            ));
        }
        let mut occupied = B::zero();
        let cols = self.geo.cols;
        for (r, row) in rows.iter().enumerate() {
            read_row(fen, row, r, cols, "#", |c, _| {
                occupied |= B::one_at(r as u32 * cols + c)
            })?;
        }
        let to_move = match fields[1] {
            "h" | "H" => Side::Horizontal,
            "v" | "V" => Side::Vertical,
            s => {
                return Err(format!(
                    "invalid FEN '{fen}': side to move '{s}' is not h or v"
                ));
            }
        };
        Ok(Domineering {
            geo: self.geo,
            occupied,
            to_move,
        })
    }

    fn fen(&self) -> String {
        let cols = self.geo.cols;
        let rows: Vec<String> = (0..self.geo.rows)
            .map(|r| write_row((0..cols).map(|c| self.occupied.has(r * cols + c).then_some('#'))))
            .collect();
        format!("{} {}", rows.join("/"), self.to_move.letter())
    }

    fn diagram(&self) -> String {
        let letters: String = (0..self.geo.cols)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let mut s = format!("\n   {letters}\n");
        for r in 0..self.geo.rows {
            s.push_str(&format!("{:>2} ", r + 1));
            for c in 0..self.geo.cols {
                let ch = if self.occupied.has(r * self.geo.cols + c) {
                    '#'
                } else {
                    '.'
                };
                s.push_str(&format!(" {ch}"));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "\nFen: {}\nKey: {:016X}\nTo move: {}",
            self.fen(),
            self.hash(),
            self.to_move.name()
        ));
        s
    }
}

impl<B: Bits> SearchHints for Domineering<B> {
    fn evaluate(&self) -> i32 {
        let e = self.empty();
        let me = self.to_move;
        let opp = me.other();
        let g = &self.geo;
        let moves = g.moves(me, e).count() as i32 - g.moves(opp, e).count() as i32;
        let max = g.max_moves(me, e) as i32 - g.max_moves(opp, e) as i32;
        let safe = g.safe_moves(me, e) as i32 - g.safe_moves(opp, e) as i32;
        10 * moves + 30 * max + 60 * safe + 20
    }

    fn order_score(&self, mv: u16) -> i32 {
        let e = self.empty();
        let cells = self.geo.cells(self.to_move, mv as u32);
        let after = e & !cells;
        let opp = self.to_move.other();
        let taken =
            self.geo.moves(opp, e).count() as i32 - self.geo.moves(opp, after).count() as i32;
        let lost = self.geo.moves(self.to_move, e).count() as i32
            - self.geo.moves(self.to_move, after).count() as i32;
        3 * taken - 2 * lost
    }

    fn move_key(mv: u16) -> u16 {
        mv + 1
    }

    fn history_key(&self, mv: u16) -> usize {
        mv as usize
    }

    const BENCH_DEPTH: u32 = 7;

    fn bench_board(&self) -> Option<String> {
        let g = &self.geo;
        (g.rows != 8 || g.cols != 8).then(|| format!("{}x{}", g.rows, g.cols))
    }

    fn bench_fens() -> &'static [&'static str] {
        &[
            "8/8/8/8/8/8/8/8 h",
            "8/8/8/8/8/8/8/8 v",
            "8/2##4/8/3#4/3#4/8/8/8 h",
            "8/8/8/3##3/8/8/1#6/1#6 v",
        ]
    }
}

impl<B: Bits> BooksAndSolvers for Domineering<B> {
    fn warm_up(&self) {
        let _ = solver::table();
        solver::race::warm_up();
    }

    fn solve(&self, abort: &dyn Fn() -> bool) -> Option<Solved<u16>> {
        let out = solver::solve(self, abort)?;
        let win = out.winner == self.to_move;
        let plies = self.plies_bound(win).max(1);
        let best = match out.best {
            Some(b) => b as u16,
            None => {
                // Lost: play the move that keeps the most options (the search's own order).
                let mut moves = Vec::new();
                self.legal_moves(&mut moves);
                *moves.iter().max_by_key(|&&m| self.order_score(m))?
            }
        };
        Some(Solved {
            score: if win { MATE - plies } else { -(MATE - plies) },
            best,
            nodes: out.nodes,
            note: format!("{} wins", out.winner.name()),
        })
    }
}

/// Solver bench: small boards solved exactly with a cleared table; the node count is part of
/// the bench signature.
pub fn bench_solver() -> Vec<String> {
    let start = std::time::Instant::now();
    let mut nodes = 0;
    for (r, c, first) in [
        (7, 7, Side::Vertical),
        (6, 8, Side::Vertical),
        (8, 6, Side::Horizontal),
        (6, 7, Side::Horizontal),
    ] {
        solver::table().clear();
        if let Ok(p) = Domineering::<u64>::new(r, c, first)
            && let Some(o) = solver::solve(&p, &|| false)
        {
            nodes += o.nodes;
        }
    }
    let ms = start.elapsed().as_millis() as u64;
    vec![
        format!(
            "domineering-solver: 4 boards: {nodes} nodes in {ms} ms, {} nps",
            nodes * 1000 / ms.max(1)
        ),
        format!("signature domineering-solver {nodes}"),
    ]
}
