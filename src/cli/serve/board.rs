//! What the browser board shows of each game: the cells (read from the FEN), the cells a move
//! is entered by (read from its notation), the names of the sides, and the exact value of
//! every move where the game's own solver knows it. No rule lives here: the moves, their
//! legality and the results all come from the game's `Game` implementation.

use tabula::bits::Bits;
use tabula::game::{BooksAndSolvers, Game, Notation, Outcome, Rules};
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::connect4::{book, solver};
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::fen_rows;
use tabula::games::othello::Othello;
use tabula::record::GameLine;

/// A cell of the board: (row, column), row 0 at the top.
pub type Cell = (u32, u32);

/// The exact value of one move, for the side making it.
#[derive(Clone, Debug)]
pub struct MoveValue {
    /// The move in protocol notation.
    pub mv: String,
    /// Positive: the mover wins (by so much), 0 a draw, negative a loss.
    pub value: i32,
    /// How the page writes it (`+3`, `win`).
    pub label: String,
}

/// Othello positions with at most this many empty squares get exact move values.
const OTHELLO_EXACT_EMPTIES: u32 = 16;
/// Domineering boards up to this many cells get exact move values.
const DOMINEERING_EXACT_CELLS: u32 = 64;

pub trait View: Game {
    /// How the page enters a move: `from-to` (two clicks), `cell` (one click) or `column`.
    const INPUT: &'static str;

    /// The cells of the board, row by row from the top: "" for an empty cell, else the FEN's
    /// letter (Domineering: the half of a domino, see its implementation).
    fn cells(line: &GameLine<Self>) -> Vec<Vec<String>> {
        grid_of_fen(&line.pos.fen())
    }

    /// The cells a legal move is entered by, in order (a pass has none).
    fn move_cells(&self, mv: Self::Move) -> Vec<Cell>;

    /// The variant's name as PGN's `[Variant]` tag gives it, if not the game's usual rules.
    fn variant(&self) -> Option<&'static str> {
        None
    }

    /// Whether `exact_values` may be tried here.
    fn exact_possible(&self) -> bool {
        false
    }

    /// The exact value of each legal move, reported one by one; false if `abort` stopped it
    /// first.
    fn exact_values(&self, _abort: &dyn Fn() -> bool, _report: &mut dyn FnMut(MoveValue)) -> bool {
        false
    }
}

/// A move as people read it, in the position before it; a pass is `pass`.
pub fn human_text<G: Game>(pos: &G, mv: G::Move) -> String {
    match pos.format_human(mv) {
        t if t == "0000" => "pass".into(),
        t => t,
    }
}

/// The board part of a FEN as a grid: rows split by `/`, each read by `fen_rows::cells`
/// (digit runs empty cells, any other character one cell holding it; a row it cannot read,
/// or of more than 64 cells, is empty).
pub fn grid_of_fen(fen: &str) -> Vec<Vec<String>> {
    let board = fen.split_whitespace().next().unwrap_or("");
    board
        .split('/')
        .map(|row| {
            fen_rows::cells(row, 64)
                .unwrap_or_default()
                .into_iter()
                .map(|c| c.map(String::from).unwrap_or_default())
                .collect()
        })
        .collect()
}

/// The squares named in a move (`e7e8q`, `c3d4`, `d10`): each a letter (the column, `a` = 0)
/// followed by a number, in order.
pub fn squares(text: &str) -> Vec<(u32, u32)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i].to_ascii_lowercase();
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if c.is_ascii_lowercase() && j > i + 1 {
            if let Ok(n) = text[i + 1..j].parse::<u32>() {
                out.push(((c - b'a') as u32, n));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The cells whose contents differ between two grids.
pub fn changed(before: &[Vec<String>], after: &[Vec<String>]) -> Vec<Cell> {
    let mut out = Vec::new();
    for (r, (a, b)) in before.iter().zip(after).enumerate() {
        for (c, (x, y)) in a.iter().zip(b).enumerate() {
            if x != y {
                out.push((r as u32, c as u32));
            }
        }
    }
    out
}

/// Rows with row 1 at the top (Othello, Domineering): `a1` is (0, 0).
fn top_down(text: &str) -> Vec<Cell> {
    squares(text)
        .into_iter()
        .filter(|&(_, n)| n >= 1)
        .map(|(c, n)| (n - 1, c))
        .collect()
}

impl View for Chess {
    const INPUT: &'static str = "from-to";

    fn variant(&self) -> Option<&'static str> {
        self.chess960.then_some("Chess960")
    }

    fn move_cells(&self, mv: Self::Move) -> Vec<Cell> {
        squares(&self.format_move(mv))
            .into_iter()
            .filter(|&(c, n)| c < 8 && (1..=8).contains(&n))
            .map(|(c, n)| (8 - n, c))
            .collect()
    }
}

impl<B: Bits> View for Othello<B> {
    const INPUT: &'static str = "cell";

    fn move_cells(&self, mv: Self::Move) -> Vec<Cell> {
        top_down(&self.format_move(mv))
    }

    fn exact_possible(&self) -> bool {
        self.empties() <= OTHELLO_EXACT_EMPTIES
    }

    /// The final disc margin for the mover after each move, with perfect play after it.
    fn exact_values(&self, abort: &dyn Fn() -> bool, report: &mut dyn FnMut(MoveValue)) -> bool {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        for mv in moves {
            let mut child = self.clone();
            child.play(mv);
            let theirs = if child.outcome().is_some() {
                child.final_margin()
            } else {
                match child.solve(abort) {
                    Some(s) => s.score / 100,
                    None => return false,
                }
            };
            report(MoveValue {
                mv: self.format_move(mv),
                value: -theirs,
                label: format!("{:+}", -theirs),
            });
        }
        true
    }
}

impl View for Connect4 {
    const INPUT: &'static str = "column";

    /// The cell the stone lands on.
    fn move_cells(&self, mv: Self::Move) -> Vec<Cell> {
        let mut child = self.clone();
        child.play(mv);
        changed(&grid_of_fen(&self.fen()), &grid_of_fen(&child.fen()))
    }

    fn exact_possible(&self) -> bool {
        true
    }

    /// Each column's score in the convention of the published test sets, for the mover:
    /// positive a win (the larger, the sooner), 0 a draw, negative a loss. The opening book
    /// answers where it can, the solver elsewhere.
    fn exact_values(&self, abort: &dyn Fn() -> bool, report: &mut dyn FnMut(MoveValue)) -> bool {
        let b = &self.b;
        let cells = b.dims.cells() as i32;
        let mut s = solver::Solver::new(b.dims, solver::table(), abort);
        let w = b.dims.width;
        // The centre first: the columns people ask about.
        let order = (0..w as i32).map(|i| (w as i32 / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32);
        for col in order.filter(|&c| c < w) {
            if b.over() || !b.can_play(col) {
                continue;
            }
            let value = if b.is_winning_move(col) {
                (cells + 1 - b.moves as i32) / 2
            } else {
                let mut child = b.clone();
                child.play_col(col);
                match book::lookup(&child) {
                    _ if child.is_full() => 0,
                    Some(e) => -e.score,
                    None => match s.solve(&child, false) {
                        Some(v) => -v,
                        None => return false,
                    },
                }
            };
            report(MoveValue {
                mv: self.format_move(col as u8),
                value,
                label: format!("{value:+}").replace("+0", "0"),
            });
        }
        true
    }
}

impl<B: Bits> View for Domineering<B> {
    const INPUT: &'static str = "cell";

    /// Covered cells as domino halves: `h<` `h>` (Horizontal's, left and right), `v^` `vv`
    /// (Vertical's, top and bottom); `#` for cells covered in the start position.
    fn cells(line: &GameLine<Self>) -> Vec<Vec<String>> {
        let mut grid = grid_of_fen(&line.pos.fen());
        let mut pos = line.start.clone();
        for &mv in &line.moves {
            let halves = match pos.to_move {
                Side::Horizontal => ["h<", "h>"],
                Side::Vertical => ["v^", "vv"],
            };
            for (&(r, c), half) in pos.move_cells(mv).iter().zip(halves) {
                if let Some(cell) = grid
                    .get_mut(r as usize)
                    .and_then(|row| row.get_mut(c as usize))
                {
                    *cell = half.to_string();
                }
            }
            pos.play(mv);
        }
        grid
    }

    fn move_cells(&self, mv: Self::Move) -> Vec<Cell> {
        let mut cells = top_down(&self.format_move(mv));
        // A move may be written by its top/left cell alone: add the other half.
        if cells.len() == 1 {
            let (r, c) = cells[0];
            cells.push(match self.to_move {
                Side::Horizontal => (r, c + 1),
                Side::Vertical => (r + 1, c),
            });
        }
        cells
    }

    fn exact_possible(&self) -> bool {
        self.geo.rows * self.geo.cols <= DOMINEERING_EXACT_CELLS
    }

    /// Whether each move wins (+1) or loses (-1) with perfect play after it.
    fn exact_values(&self, abort: &dyn Fn() -> bool, report: &mut dyn FnMut(MoveValue)) -> bool {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        for mv in moves {
            let mut child = self.clone();
            child.play(mv);
            let wins = match child.outcome() {
                Some(o) => o == Outcome::Loss,
                None => match child.solve(abort) {
                    Some(s) => s.score < 0,
                    None => return false,
                },
            };
            report(MoveValue {
                mv: self.format_move(mv),
                value: if wins { 1 } else { -1 },
                label: if wins { "win" } else { "loss" }.into(),
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_and_squares() {
        let g = grid_of_fen("10/2x7o/8/3ox3/3xo3/8/8/8 x");
        assert_eq!(g[0].len(), 10);
        assert_eq!(g[1][2], "x");
        assert_eq!(g[1][10], "o");
        assert_eq!(g[3][3], "o");
        assert_eq!(squares("e7e8q"), [(4, 7), (4, 8)]);
        assert_eq!(squares("c10"), [(2, 10)]);
        assert_eq!(squares("0000"), []);
        assert_eq!(top_down("a1b1"), [(0, 0), (0, 1)]);
    }

    #[test]
    fn cells_of_moves() {
        let chess = Chess::default();
        let mv = chess.parse_move("e2e4").expect("legal");
        assert_eq!(chess.move_cells(mv), [(6, 4), (4, 4)]);
        let c4 = Connect4::default();
        assert_eq!(c4.move_cells(3), [(5, 3)]);
        let d = Domineering::<u64>::new(4, 4, Side::Vertical).expect("4x4");
        let mv = d.parse_move("b2").expect("legal");
        assert_eq!(d.move_cells(mv), [(1, 1), (2, 1)]);
    }
}
