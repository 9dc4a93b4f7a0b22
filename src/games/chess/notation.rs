//! Chess's notation: UCI moves (standard castling `e1g1`, or king-takes-rook `e1h1` with
//! `UCI_Chess960`), SAN for people (see `san`), FEN (Shredder-FEN under Chess960), the board
//! diagram of `d`, and PGN records.

use super::{Chess, STARTPOS};
use crate::game::{Notation, Rules};
use cozy_chess::{Board, Color, File, Move, Rank, Square};

impl Notation for Chess {
    const SIDES: [&'static str; 2] = ["White", "Black"];
    const UCI: bool = true;
    const PGN: bool = true;

    fn is_standard_start(&self) -> bool {
        self.fen() == STARTPOS
    }

    fn parse_human(&self, text: &str) -> Result<Move, String> {
        self.parse_san(text)
    }

    fn format_human(&self, mv: Move) -> String {
        self.san(mv)
    }

    fn parse_move(&self, text: &str) -> Result<Move, String> {
        let mv: Move =
            text.trim().to_ascii_lowercase().parse().map_err(|_| {
                format!("'{text}' is not a move in UCI notation (e.g. e2e4, e7e8q)")
            })?;
        if self.board.is_legal(mv) {
            // A literal king-takes-own-rook is castling in both modes.
            return Ok(mv);
        }
        if let Some(castle) = self.castle_from_standard(mv) {
            return Ok(castle);
        }
        Err(format!("'{text}' is not legal in {}", self.board))
    }

    fn format_move(&self, mv: Move) -> String {
        if !self.chess960 && self.is_castle(mv) {
            let file = if mv.to.file() > mv.from.file() {
                File::G
            } else {
                File::C
            };
            let to = Square::new(file, mv.from.rank());
            return format!("{}{}", mv.from, to);
        }
        mv.to_string()
    }

    fn parse_fen(&self, fen: &str) -> Result<Self, String> {
        let fen = fen.split_whitespace().collect::<Vec<_>>().join(" ");
        // cozy-chess wants all six fields; accept the common four-field form too.
        let fields = fen.split(' ').count();
        let full = match fields {
            4 => format!("{fen} 0 1"),
            5 => format!("{fen} 1"),
            _ => fen.clone(),
        };
        // cozy-chess pads a board field with missing ranks; insist on 8 ranks of 8 files.
        let placement = fen.split(' ').next().unwrap_or("");
        let ranks: Vec<&str> = placement.split('/').collect();
        let widths_ok = ranks
            .iter()
            .all(|r| r.chars().map(|c| c.to_digit(10).unwrap_or(1)).sum::<u32>() == 8);
        if ranks.len() != 8 || !widths_ok {
            return Err(format!(
                "invalid FEN '{fen}': the board needs 8 ranks of 8 squares"
            ));
        }
        let board: Board = full
            .parse()
            .map_err(|e| format!("invalid FEN '{fen}': {e}"))?;
        if Self::side_not_to_move_in_check(&board) {
            return Err(format!(
                "invalid FEN '{fen}': the side not to move is in check"
            ));
        }
        Ok(Chess::with(board, self.chess960, self.eval))
    }

    fn fen(&self) -> String {
        if self.chess960 {
            format!("{:#}", self.board)
        } else {
            self.board.to_string()
        }
    }

    fn diagram(&self) -> String {
        let mut s = String::from("\n +---+---+---+---+---+---+---+---+\n");
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let sq = Square::new(file, *rank);
                let c = match (self.board.piece_on(sq), self.board.color_on(sq)) {
                    (Some(p), Some(color)) => {
                        let ch: char = p.into();
                        if color == Color::White {
                            ch.to_ascii_uppercase()
                        } else {
                            ch
                        }
                    }
                    _ => ' ',
                };
                s.push_str(&format!(" | {c}"));
            }
            s.push_str(&format!(
                " | {}\n +---+---+---+---+---+---+---+---+\n",
                *rank as usize + 1
            ));
        }
        s.push_str("   a   b   c   d   e   f   g   h\n\n");
        s.push_str(&format!("Fen: {}\nKey: {:016X}\n", self.fen(), self.hash()));
        let checkers: Vec<String> = self
            .board
            .checkers()
            .iter()
            .map(|s| s.to_string())
            .collect();
        s.push_str(&format!("Checkers: {}", checkers.join(" ")));
        s
    }
}
