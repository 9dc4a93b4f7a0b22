//! Othello's text notation: squares (`a1` top-left, column letter then row number), moves
//! (`0000`/`PA` a pass), FEN (rows top to bottom, `x` Black, `o` White, digits for empty runs,
//! then the side to move), the FFO test sets' .obf lines, and the board drawn as text. The
//! `Game` methods of `mod.rs` answer with these; every parser returns an error for anything
//! that is not a legal position or move of this board and never panics.

use super::{Othello, PASS};
use crate::bits::Bits;
use crate::game::{Notation, Rules};
use crate::games::fen_rows::{read_row, write_row};

/// FEN rows from squares given row by row as `x`, `o` or `-`.
pub(super) fn rows_fen(squares: &[char], n: usize) -> String {
    let rows: Vec<String> = squares
        .chunks(n)
        .map(|row| write_row(row.iter().map(|&c| (c != '-').then_some(c))))
        .collect();
    rows.join("/")
}

impl<B: Bits> Othello<B> {
    pub fn square_name(&self, sq: u32) -> String {
        format!(
            "{}{}",
            (b'a' + (sq % self.geo.n) as u8) as char,
            sq / self.geo.n + 1
        )
    }

    /// Parses a position in the .obf format of the FFO test sets: the squares row by row
    /// (`X` Black, `O` White, `-` empty), then the side to move; anything after is ignored.
    pub fn parse_obf(&self, text: &str) -> Result<Self, String> {
        let n = self.geo.n as usize;
        let squares: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(n * n + 1)
            .collect();
        if squares.len() < n * n + 1 {
            return Err(format!("expected {} squares and the side to move", n * n));
        }
        let board = squares[..n * n]
            .iter()
            .map(|&c| match c {
                'X' | 'x' | '*' => Ok('x'),
                'O' | 'o' => Ok('o'),
                '-' | '.' => Ok('-'),
                other => Err(format!("unexpected '{other}' on the board")),
            })
            .collect::<Result<Vec<char>, String>>()?;
        let side = match squares[n * n] {
            'X' | 'x' | '*' => 'x',
            'O' | 'o' => 'o',
            other => return Err(format!("side to move '{other}' is not X or O")),
        };
        self.parse_fen(&format!("{} {side}", rows_fen(&board, n)))
    }

    pub fn parse_square(&self, s: &str) -> Result<u32, String> {
        let n = self.geo.n;
        let mut chars = s.chars();
        let col = match chars.next() {
            Some(c @ 'a'..='z') => c as u32 - 'a' as u32,
            _ => {
                return Err(format!(
                    "'{s}' is not a square (a letter then a row number)"
                ));
            }
        };
        let row: u32 = chars
            .as_str()
            .parse()
            .map_err(|_| format!("'{s}' is not a square (a letter then a row number)"))?;
        if col >= n || row == 0 || row > n {
            return Err(format!(
                "'{s}' is off the board (a1..{}{n})",
                (b'a' + n as u8 - 1) as char
            ));
        }
        Ok((row - 1) * n + col)
    }

    /// A move in UGI (`d3`, `0000`) or NBoard (`PA`) notation, checked against the rules.
    pub fn read_move(&self, text: &str) -> Result<u16, String> {
        let t = text.trim().to_ascii_lowercase();
        let mut list = Vec::new();
        self.legal_moves(&mut list);
        if list.is_empty() {
            return Err(format!("'{text}': the game is over"));
        }
        if matches!(t.as_str(), "0000" | "pa" | "pass" | "@@") {
            return if list == [PASS] {
                Ok(PASS)
            } else {
                Err(format!("'{text}': cannot pass while a move is possible"))
            };
        }
        let sq = self.parse_square(&t)?;
        if list == [PASS] {
            return Err(format!(
                "'{text}': no move is possible, the side to move must pass (0000)"
            ));
        }
        if !((self.me | self.opp) & B::one_at(sq)).is_zero() {
            return Err(format!("'{text}': the square is occupied"));
        }
        if self.geo.flips(self.me, self.opp, sq).is_zero() {
            return Err(format!("'{text}': no discs would be flipped"));
        }
        Ok(sq as u16)
    }

    /// A position from its FEN (module header), on this board's size and weights.
    pub fn read_fen(&self, fen: &str) -> Result<Self, String> {
        let n = self.geo.n;
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(format!("invalid FEN '{fen}': expected <rows> <x|o>"));
        }
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != n as usize {
            return Err(format!(
                "invalid FEN '{fen}': {} rows, the board has {n}",
                rows.len()
            ));
        }
        let (mut black, mut white) = (B::zero(), B::zero());
        for (r, row) in rows.iter().enumerate() {
            read_row(fen, row, r, n, "xXoO", |c, ch| {
                let b = B::one_at(r as u32 * n + c);
                if ch.eq_ignore_ascii_case(&'x') {
                    black |= b
                } else {
                    white |= b
                }
            })?;
        }
        let black_to_move = match fields[1] {
            "x" | "X" | "b" | "B" => true,
            "o" | "O" | "w" | "W" => false,
            s => {
                return Err(format!(
                    "invalid FEN '{fen}': side to move '{s}' is not x or o"
                ));
            }
        };
        let (me, opp) = if black_to_move {
            (black, white)
        } else {
            (white, black)
        };
        Ok(Othello {
            geo: self.geo,
            me,
            opp,
            black_to_move,
            patterns: self.patterns,
            book: self.book,
        })
    }

    pub fn write_fen(&self) -> String {
        let (black, white) = self.black_white();
        let squares: Vec<char> = (0..self.geo.all.count())
            .map(|i| {
                if black.has(i) {
                    'x'
                } else if white.has(i) {
                    'o'
                } else {
                    '-'
                }
            })
            .collect();
        let rows = rows_fen(&squares, self.geo.n as usize);
        format!("{} {}", rows, if self.black_to_move { 'x' } else { 'o' })
    }

    /// The board as text, legal moves marked `*`, with the counts, the FEN and the key.
    pub fn draw(&self) -> String {
        let n = self.geo.n;
        let (black, white) = self.black_white();
        let moves = self.geo.moves(self.me, self.opp);
        let letters: String = (0..n)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let mut s = format!("\n   {letters}\n");
        for r in 0..n {
            s.push_str(&format!("{:>2} ", r + 1));
            for c in 0..n {
                let i = r * n + c;
                let ch = if black.has(i) {
                    'x'
                } else if white.has(i) {
                    'o'
                } else if moves.has(i) {
                    '*'
                } else {
                    '.'
                };
                s.push_str(&format!(" {ch}"));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "\nBlack (x) {} - White (o) {}; {} to move\nFen: {}\nKey: {:016X}",
            black.count(),
            white.count(),
            if self.black_to_move { "Black" } else { "White" },
            self.fen(),
            self.hash()
        ));
        s
    }
}
