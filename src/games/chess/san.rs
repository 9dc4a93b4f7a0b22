//! Standard algebraic notation (SAN) for people and PGN: writing a move (`Nbd7`, `exd5`,
//! `e8=Q+`, `O-O-O#`) and reading what a person types, forgivingly: check marks, `x`, `-`
//! and `=` optional, long forms (`Ng1f3`, `e2-e4`, `g1f3`), `0-0` for castling, and lower-case
//! piece letters where that is unambiguous.
//!
//! Castling is king-takes-rook inside (cozy-chess); SAN shows `O-O` / `O-O-O`.

use super::Chess;
use crate::game::{Notation, Rules};
use cozy_chess::{File, Move, Piece, Rank, Square};

fn piece_letter(p: Piece) -> char {
    match p {
        Piece::Pawn => 'P',
        Piece::Knight => 'N',
        Piece::Bishop => 'B',
        Piece::Rook => 'R',
        Piece::Queen => 'Q',
        Piece::King => 'K',
    }
}

fn letter_piece(c: char) -> Option<Piece> {
    Some(match c {
        'N' => Piece::Knight,
        'B' => Piece::Bishop,
        'R' => Piece::Rook,
        'Q' => Piece::Queen,
        'K' => Piece::King,
        'P' => Piece::Pawn,
        _ => return None,
    })
}

impl Chess {
    fn legal(&self) -> Vec<Move> {
        let mut v = Vec::new();
        self.legal_moves(&mut v);
        v
    }

    /// The move in SAN, with `+` / `#`.
    pub fn san(&self, mv: Move) -> String {
        let mut s = self.san_bare(mv);
        let mut after = self.clone();
        after.play(mv);
        if !after.board.checkers().is_empty() {
            s.push(if after.has_legal_move() { '+' } else { '#' });
        }
        s
    }

    /// SAN without the check mark.
    fn san_bare(&self, mv: Move) -> String {
        let b = &self.board;
        if self.is_castle(mv) {
            return if mv.to.file() > mv.from.file() {
                "O-O".into()
            } else {
                "O-O-O".into()
            };
        }
        let Some(piece) = b.piece_on(mv.from) else {
            return self.format_move(mv);
        };
        let capture = self.is_capture(mv);
        let mut s = String::new();
        if piece == Piece::Pawn {
            if capture {
                s.push(char::from(mv.from.file()));
                s.push('x');
            }
            s.push_str(&mv.to.to_string());
            if let Some(p) = mv.promotion {
                s.push('=');
                s.push(piece_letter(p));
            }
            return s;
        }
        s.push(piece_letter(piece));
        let rivals: Vec<Move> = self
            .legal()
            .into_iter()
            .filter(|m| {
                m.to == mv.to
                    && m.from != mv.from
                    && b.piece_on(m.from) == Some(piece)
                    && !self.is_castle(*m)
            })
            .collect();
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|m| m.from.file() == mv.from.file());
            let same_rank = rivals.iter().any(|m| m.from.rank() == mv.from.rank());
            if !same_file {
                s.push(char::from(mv.from.file()));
            } else if !same_rank {
                s.push(char::from(mv.from.rank()));
            } else {
                s.push_str(&mv.from.to_string());
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&mv.to.to_string());
        s
    }

    /// Reads a move as a person types it: SAN or UCI, forgivingly (see the module comment).
    pub fn parse_san(&self, text: &str) -> Result<Move, String> {
        let cleaned: String = text
            .chars()
            .filter(|c| !matches!(c, '+' | '#' | '!' | '?' | 'x' | 'X' | ':' | '=' | ' '))
            .collect();
        let upper = cleaned.to_ascii_uppercase().replace('0', "O");
        let legal = self.legal();
        if matches!(upper.as_str(), "O-O" | "OO" | "O-O-O" | "OOO") {
            let long = upper.len() > 3 || upper == "OOO";
            return legal
                .iter()
                .copied()
                .find(|&m| self.is_castle(m) && (m.to.file() < m.from.file()) == long)
                .ok_or_else(|| {
                    format!(
                        "'{text}': castling {} is not legal here",
                        if long { "queenside" } else { "kingside" }
                    )
                });
        }
        if let Ok(m) = self.parse_move(&cleaned.replace('-', "").to_ascii_lowercase()) {
            return Ok(m);
        }
        let chars: Vec<char> = cleaned.replace('-', "").chars().collect();
        let first = chars.first().copied();
        // A lower-case `b` may be a file (bxc3) or a bishop (bc3 meaning Bc3): try both.
        let mut readings = vec![chars.clone()];
        if let Some(c) = first
            && matches!(c, 'n' | 'r' | 'q' | 'k')
        {
            readings[0][0] = c.to_ascii_uppercase();
        }
        if first == Some('b') {
            let mut bishop = chars.clone();
            bishop[0] = 'B';
            readings.push(bishop);
        }
        let mut found: Vec<Move> = Vec::new();
        let mut understood = false;
        for r in &readings {
            if let Some(pattern) = Pattern::read(r) {
                understood = true;
                found = legal
                    .iter()
                    .copied()
                    .filter(|&m| !self.is_castle(m) && pattern.fits(self, m))
                    .collect();
                if !found.is_empty() {
                    break;
                }
            }
        }
        match found.len() {
            1 => Ok(found[0]),
            0 if !understood => Err(format!(
                "'{text}' is not a move: type it like e4, Nf3, exd5, O-O, e8=Q or e2e4"
            )),
            0 => Err(self.why_illegal(text, &readings)),
            _ => {
                let names: Vec<String> = found.iter().map(|&m| self.san(m)).collect();
                Err(format!(
                    "'{text}' is ambiguous: it could be {}",
                    names.join(" or ")
                ))
            }
        }
    }

    /// Explains why a well-formed move is not legal.
    fn why_illegal(&self, text: &str, readings: &[Vec<char>]) -> String {
        let Some(p) = readings.iter().find_map(|r| Pattern::read(r)) else {
            return format!("'{text}' is not a legal move");
        };
        let b = &self.board;
        let us = b.side_to_move();
        let ours = b.colors(us) & b.pieces(p.piece.unwrap_or(Piece::Pawn));
        let name = match p.piece.unwrap_or(Piece::Pawn) {
            Piece::Pawn => "pawn",
            Piece::Knight => "knight",
            Piece::Bishop => "bishop",
            Piece::Rook => "rook",
            Piece::Queen => "queen",
            Piece::King => "king",
        };
        if ours.is_empty() {
            return format!("'{text}': you have no {name}");
        }
        if b.colors(us).has(p.to) {
            return format!("'{text}': {} is occupied by your own piece", p.to);
        }
        // Would it be pseudo-legal but leave the king in check? Try with the king ignored.
        let pseudo = ours.into_iter().any(|from| {
            let mut probe = b.clone();
            probe
                .try_play(Move {
                    from,
                    to: p.to,
                    promotion: p.promotion,
                })
                .is_ok()
        });
        if !pseudo && !b.checkers().is_empty() {
            return format!("'{text}' is illegal: you are in check and must answer it");
        }
        format!(
            "'{text}' is illegal: no {name} of yours can move to {}{}",
            p.to,
            if b.checkers().is_empty() {
                " (or it would leave your king in check)"
            } else {
                ""
            }
        )
    }
}

/// A parsed human move: what was said about piece, origin, destination and promotion.
struct Pattern {
    piece: Option<Piece>,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    to: Square,
    promotion: Option<Piece>,
}

impl Pattern {
    fn read(chars: &[char]) -> Option<Pattern> {
        let mut c: Vec<char> = chars.to_vec();
        let mut promotion = None;
        if c.len() >= 3
            && let Some(&last) = c.last()
            && c[c.len() - 2].is_ascii_digit()
            && let Some(p) = letter_piece(last.to_ascii_uppercase())
        {
            if matches!(p, Piece::King | Piece::Pawn) {
                return None;
            }
            promotion = Some(p);
            c.pop();
        }
        if c.len() < 2 {
            return None;
        }
        let to: Square = c[c.len() - 2..].iter().collect::<String>().parse().ok()?;
        let mut rest = &c[..c.len() - 2];
        let mut piece = None;
        if let Some(&p) = rest.first()
            && p.is_ascii_uppercase()
        {
            piece = Some(letter_piece(p)?);
            rest = &rest[1..];
        }
        let mut from_file = None;
        let mut from_rank = None;
        for &ch in rest {
            if ('a'..='h').contains(&ch) && from_file.is_none() && from_rank.is_none() {
                from_file = Some(File::index(ch as usize - 'a' as usize));
            } else if ('1'..='8').contains(&ch) && from_rank.is_none() {
                from_rank = Some(Rank::index(ch as usize - '1' as usize));
            } else {
                return None;
            }
        }
        Some(Pattern {
            piece,
            from_file,
            from_rank,
            to,
            promotion,
        })
    }

    fn fits(&self, pos: &Chess, m: Move) -> bool {
        let Some(on) = pos.board.piece_on(m.from) else {
            return false;
        };
        let full_origin = self.from_file.is_some() && self.from_rank.is_some();
        let piece_ok = match self.piece {
            Some(p) => p == on,
            None => full_origin || on == Piece::Pawn,
        };
        piece_ok
            && m.to == self.to
            && self.from_file.is_none_or(|f| f == m.from.file())
            && self.from_rank.is_none_or(|r| r == m.from.rank())
            && (m.promotion == self.promotion
                || (self.promotion.is_none() && m.promotion == Some(Piece::Queen)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        Chess::default().parse_fen(fen).expect("test FEN")
    }

    /// (FEN, typed, expected SAN of the move read, "what it exercises")
    const READ: &[(&str, &str, &str, &str)] = &[
        (super::super::STARTPOS, "Nf3", "Nf3", "piece move"),
        (super::super::STARTPOS, "nf3", "Nf3", "lower-case piece"),
        (super::super::STARTPOS, "g1f3", "Nf3", "UCI"),
        (super::super::STARTPOS, "Ng1-f3", "Nf3", "long algebraic"),
        (super::super::STARTPOS, "e4", "e4", "pawn push"),
        (super::super::STARTPOS, "e2-e4", "e4", "long pawn push"),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "O-O",
            "O-O",
            "kingside castle",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "0-0-0",
            "O-O-O",
            "zero castle",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "e1c1",
            "O-O-O",
            "UCI castle",
        ),
        (
            "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
            "exd5",
            "exd5",
            "pawn capture",
        ),
        (
            "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
            "ed5",
            "exd5",
            "capture without x",
        ),
        (
            "6k1/3P4/8/8/8/8/8/4K3 w - - 0 1",
            "d8=Q+",
            "d8=Q+",
            "promotion with check",
        ),
        (
            "6k1/3P4/8/8/8/8/8/4K3 w - - 0 1",
            "d8n",
            "d8=N",
            "under-promotion, short",
        ),
        (
            "6k1/3P4/8/8/8/8/8/4K3 w - - 0 1",
            "d8",
            "d8=Q+",
            "promotion defaults to queen",
        ),
        (
            "4k3/8/8/8/8/8/4K3/R6R w - - 0 1",
            "Rad1",
            "Rad1",
            "file disambiguation",
        ),
        (
            "4k3/8/8/8/8/8/4K3/R6R w - - 0 1",
            "Rhf1+",
            "Rhf1",
            "needless check mark",
        ),
        (
            "4k3/8/8/8/R7/8/8/R3K3 w - - 0 1",
            "R1a2",
            "R1a2",
            "rank disambiguation",
        ),
        (
            "6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1",
            "Ra8",
            "Ra8#",
            "mate mark",
        ),
        (
            "4k3/8/8/8/8/2p5/1P6/4K3 w - - 0 1",
            "bxc3",
            "bxc3",
            "b-file pawn capture",
        ),
        (
            "4k3/8/8/8/8/8/8/1B2K3 w - - 0 1",
            "bc2",
            "Bc2",
            "lower-case bishop",
        ),
    ];

    #[test]
    fn reads_what_people_type() {
        for &(fen, typed, want, what) in READ {
            let p = pos(fen);
            let mv = p
                .parse_san(typed)
                .unwrap_or_else(|e| panic!("{what}: {typed}: {e}"));
            assert_eq!(p.san(mv), want, "{what}");
        }
    }

    #[test]
    fn every_legal_move_round_trips_through_san() {
        for fen in [
            super::super::STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "1k6/8/8/8/8/8/8/Q3Q2K w - - 0 1",
        ] {
            let p = pos(fen);
            for mv in p.legal() {
                let s = p.san(mv);
                assert_eq!(p.parse_san(&s), Ok(mv), "{fen}: {s}");
            }
        }
    }

    #[test]
    fn explains_illegal_and_ambiguous_input() {
        let p = pos(super::super::STARTPOS);
        assert!(p.parse_san("Ke2").unwrap_err().contains("occupied"));
        assert!(p.parse_san("Nf5").unwrap_err().contains("no knight"));
        assert!(p.parse_san("hello").unwrap_err().contains("not a move"));
        let q = pos("1k6/8/8/8/8/8/8/Q3Q2K w - - 0 1");
        assert!(q.parse_san("Qc3").unwrap_err().contains("ambiguous"));
        let check = pos("4k3/8/8/8/8/8/4r3/R3K3 w Q - 0 1");
        assert!(check.parse_san("O-O-O").is_err());
        assert!(check.parse_san("Ra7").unwrap_err().contains("check"));
    }
}
