//! Boards for people: each game drawn with coordinates on both axes, the last move marked,
//! and (with `Style::color`) ANSI colours; plain text otherwise. Chess uses Unicode pieces
//! unless `Style::unicode` is off. Domineering draws each domino as one piece, rebuilt from
//! the moves of the game.

use crate::bits::Bits;
use crate::game::{Game, Rules};
use crate::games::chess::Chess;
use crate::games::connect4::Connect4;
use crate::games::domineering::Domineering;
use crate::games::domineering::board::Side;
use crate::games::othello::{Othello, PASS};
use crate::record::GameLine;

#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub unicode: bool,
    /// Othello: mark the legal moves.
    pub show_moves: bool,
}

const RESET: &str = "\x1b[0m";
const MARK: &str = "\x1b[43;30m"; // last move: black on yellow
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const BLUE: &str = "\x1b[1;34m";
const GREEN: &str = "\x1b[1;32m";
const DIM: &str = "\x1b[2m";

fn paint(style: &Style, code: &str, text: &str) -> String {
    if style.color {
        format!("{code}{text}{RESET}")
    } else {
        text.to_string()
    }
}

/// Game-specific presentation for `tabula play`.
pub trait Show: Game {
    /// Whether a square alone picks the piece to move from it (chess, as the original program
    /// did: `e2` asks where to).
    const PICK_BY_SQUARE: bool = false;
    fn render(line: &GameLine<Self>, style: &Style) -> String;
    /// One line on how to type a move.
    fn move_help(&self) -> &'static str;
    /// The board size for game records (`7x6`), None for fixed-size games.
    fn size_tag(&self) -> Option<String> {
        None
    }
}

fn letters(n: u32, width: usize) -> String {
    (0..n)
        .map(|i| format!("{:^width$}", (b'a' + i as u8) as char))
        .collect()
}

impl Show for Chess {
    const PICK_BY_SQUARE: bool = true;

    fn move_help(&self) -> &'static str {
        "e4, Nf3, exd5, O-O, e8=Q (or e2e4; a square alone, e.g. e2, asks where to)"
    }

    fn render(line: &GameLine<Self>, style: &Style) -> String {
        use cozy_chess::{Color, File, Piece, Rank, Square};
        let b = &line.pos.board;
        let last = line.moves.last().map(|m| {
            // Castling is king-takes-rook inside: mark the king's squares.
            let mut before = line.start.clone();
            for &x in &line.moves[..line.moves.len() - 1] {
                before.play(x);
            }
            let castle = before.board.color_on(m.to) == before.board.color_on(m.from);
            let to = if castle {
                let f = if m.to.file() > m.from.file() {
                    File::G
                } else {
                    File::C
                };
                Square::new(f, m.to.rank())
            } else {
                m.to
            };
            (m.from, to)
        });
        let mut s = format!("    {}\n", letters(8, 3));
        for r in (0..8).rev() {
            s.push_str(&format!(" {} ", r + 1));
            for f in 0..8 {
                let sq = Square::new(File::index(f), Rank::index(r));
                let glyph = match (b.piece_on(sq), b.color_on(sq)) {
                    (Some(p), Some(c)) => {
                        let i = p as usize;
                        let (uni, asc) = match c {
                            Color::White => (
                                ["♙", "♘", "♗", "♖", "♕", "♔"][i],
                                ["P", "N", "B", "R", "Q", "K"][i],
                            ),
                            Color::Black => (
                                ["♟", "♞", "♝", "♜", "♛", "♚"][i],
                                ["p", "n", "b", "r", "q", "k"][i],
                            ),
                        };
                        let _ = Piece::Pawn;
                        if style.unicode { uni } else { asc }.to_string()
                    }
                    _ => if (f + r) % 2 == 0 { "." } else { " " }.to_string(),
                };
                let marked = last.is_some_and(|(a, b)| a == sq || b == sq);
                let cell = if marked && !style.color {
                    format!("({glyph})")
                } else {
                    format!(" {glyph} ")
                };
                s.push_str(&if marked {
                    paint(style, MARK, &cell)
                } else {
                    cell
                });
            }
            s.push_str(&format!(" {}\n", r + 1));
        }
        s.push_str(&format!("    {}\n", letters(8, 3)));
        s
    }
}

impl Show for Connect4 {
    fn move_help(&self) -> &'static str {
        "the letter of a column (a is the leftmost)"
    }

    fn size_tag(&self) -> Option<String> {
        Some(format!("{}x{}", self.b.dims.width, self.b.dims.height))
    }

    fn render(line: &GameLine<Self>, style: &Style) -> String {
        let b = &line.pos.b;
        let d = b.dims;
        let (p1, p2) = b.stones();
        // The last stone, and the four (or more) in a row it made, if any.
        let last = line.moves.last().map(|&c| {
            let col = c as u32;
            let top = (b.mask & d.column_mask(col)).count_ones().saturating_sub(1);
            (col, top)
        });
        let win = if b.won {
            winning_line(line)
        } else {
            Vec::new()
        };
        let mut s = format!("   {}\n", letters(d.width, 3));
        for r in (0..d.height).rev() {
            s.push_str(&format!("{:>2} ", r + 1));
            for c in 0..d.width {
                let bit = d.bit(c, r);
                let (glyph, code) = if p1 & bit != 0 {
                    (
                        if style.unicode && style.color {
                            "●"
                        } else {
                            "X"
                        },
                        RED,
                    )
                } else if p2 & bit != 0 {
                    (
                        if style.unicode && style.color {
                            "●"
                        } else {
                            "O"
                        },
                        YELLOW,
                    )
                } else {
                    (".", DIM)
                };
                let in_win = win.contains(&(c, r));
                let is_last = last == Some((c, r));
                let cell = if !style.color && (in_win || is_last) {
                    if in_win {
                        format!("[{glyph}]")
                    } else {
                        format!("({glyph})")
                    }
                } else {
                    format!(" {glyph} ")
                };
                s.push_str(&if in_win && style.color {
                    paint(style, "\x1b[1;42;30m", &cell)
                } else if is_last && style.color {
                    paint(style, MARK, &cell)
                } else {
                    paint(style, code, &cell)
                });
            }
            s.push_str(&format!(" {}\n", r + 1));
        }
        s.push_str(&format!("   {}\n", letters(d.width, 3)));
        s
    }
}

/// The cells (column, row) of the line of four or more made by the last stone.
fn winning_line(line: &GameLine<Connect4>) -> Vec<(u32, u32)> {
    let b = &line.pos.b;
    let d = b.dims;
    let Some(&c) = line.moves.last() else {
        return Vec::new();
    };
    let col = c as u32;
    let row = (b.mask & d.column_mask(col)).count_ones().saturating_sub(1);
    let mine = b.opponent(); // the side that just moved
    let has = |c: i32, r: i32| {
        c >= 0
            && r >= 0
            && (c as u32) < d.width
            && (r as u32) < d.height
            && mine & d.bit(c as u32, r as u32) != 0
    };
    let mut out = Vec::new();
    for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
        let mut run = vec![(col, row)];
        for sign in [1, -1] {
            let (mut x, mut y) = (col as i32 + sign * dc, row as i32 + sign * dr);
            while has(x, y) {
                run.push((x as u32, y as u32));
                x += sign * dc;
                y += sign * dr;
            }
        }
        if run.len() >= 4 {
            out.extend(run);
        }
    }
    out
}

impl<B: Bits> Show for Othello<B> {
    fn move_help(&self) -> &'static str {
        "a square such as d3 (column letter, row number); passes are made for you"
    }

    fn size_tag(&self) -> Option<String> {
        Some(self.geo.n.to_string())
    }

    fn render(line: &GameLine<Self>, style: &Style) -> String {
        let p = &line.pos;
        let n = p.geo.n;
        let (black, white) = p.black_white();
        let mut legal = Vec::new();
        if style.show_moves {
            p.legal_moves(&mut legal);
        }
        let last = line.moves.last().copied().filter(|&m| m != PASS);
        let mut s = format!("    {}\n", letters(n, 3));
        for r in 0..n {
            s.push_str(&format!("{:>3} ", r + 1));
            for c in 0..n {
                let sq = r * n + c;
                let (glyph, code) = if black.has(sq) {
                    (if style.unicode { "●" } else { "X" }, BLUE)
                } else if white.has(sq) {
                    (if style.unicode { "○" } else { "O" }, "\x1b[1;37m")
                } else if legal.contains(&(sq as u16)) {
                    ("*", GREEN)
                } else {
                    (".", DIM)
                };
                let is_last = last == Some(sq as u16);
                let cell = if is_last && !style.color {
                    format!("({glyph})")
                } else {
                    format!(" {glyph} ")
                };
                s.push_str(&paint(style, if is_last { MARK } else { code }, &cell));
            }
            s.push_str(&format!(" {}\n", r + 1));
        }
        s.push_str(&format!("    {}\n", letters(n, 3)));
        s.push_str(&format!(
            "    Black {}  White {}\n",
            black.count(),
            white.count()
        ));
        s
    }
}

impl<B: Bits> Show for Domineering<B> {
    fn move_help(&self) -> &'static str {
        "the two cells of the domino, e.g. c3d3 (Horizontal) or c3c4 (Vertical); or just its top-left cell, c3"
    }

    fn size_tag(&self) -> Option<String> {
        Some(format!("{}x{}", self.geo.rows, self.geo.cols))
    }

    fn render(line: &GameLine<Self>, style: &Style) -> String {
        let (rows, cols) = (line.pos.geo.rows, line.pos.geo.cols);
        let size = (rows * cols) as usize;
        // Per cell: text and whether it belongs to the last domino.
        let mut cells: Vec<(&str, bool)> = vec![(" . ", false); size];
        for i in 0..size as u32 {
            if line.start.occupied.has(i) {
                cells[i as usize] = (" # ", false);
            }
        }
        let mut pos = line.start.clone();
        let n = line.moves.len();
        for (k, &m) in line.moves.iter().enumerate() {
            let a = m as usize;
            let last = k + 1 == n;
            match pos.to_move {
                Side::Horizontal => {
                    cells[a] = (" <=", last);
                    cells[a + 1] = ("=> ", last);
                }
                Side::Vertical => {
                    cells[a] = (" ^ ", last);
                    cells[a + cols as usize] = (" v ", last);
                }
            }
            pos.play(m);
        }
        let mut s = format!("    {}\n", letters(cols, 3));
        for r in 0..rows {
            s.push_str(&format!("{:>3} ", r + 1));
            for c in 0..cols {
                let (text, last) = cells[(r * cols + c) as usize];
                let code = match text {
                    " <=" | "=> " => RED,
                    " ^ " | " v " => BLUE,
                    _ => DIM,
                };
                let shown = if last && !style.color {
                    text.replace(' ', "*")
                } else {
                    text.to_string()
                };
                s.push_str(&paint(style, if last { MARK } else { code }, &shown));
            }
            s.push_str(&format!(" {}\n", r + 1));
        }
        s.push_str(&format!("    {}\n", letters(cols, 3)));
        s
    }
}
