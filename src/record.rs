//! Games as played: a start position with the moves made from it (`GameLine`: undo, the
//! result with repetition), and game records as text — PGN for chess, and for the other games
//! the same tag-pair layout (`[Game ..]`, `[FEN ..]`, `[Result ..]`) with the moves in the
//! game's own notation. Both `tabula play` (save/load) and `tabula match` write them.
//!
//! Results are "1-0" (player 1 won), "0-1", "1/2-1/2", "*" (unfinished).

use crate::game::{Game, GameResult, Player};

/// A game in progress: the start, the moves, and every position's hash (for repetition).
#[derive(Clone)]
pub struct GameLine<G: Game> {
    pub start: G,
    pub pos: G,
    pub moves: Vec<G::Move>,
    hashes: Vec<u64>,
}

impl<G: Game> GameLine<G> {
    pub fn new(start: G) -> Self {
        GameLine {
            hashes: vec![start.hash()],
            pos: start.clone(),
            start,
            moves: Vec::new(),
        }
    }

    pub fn play(&mut self, mv: G::Move) {
        self.pos.play(mv);
        self.moves.push(mv);
        self.hashes.push(self.pos.hash());
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_none() {
            return false;
        }
        self.hashes.pop();
        let mut pos = self.start.clone();
        for &m in &self.moves {
            pos.play(m);
        }
        self.pos = pos;
        true
    }

    /// The result by the rules, with the reason, if the game is over. Threefold repetition
    /// counts for games with reversible moves (chess).
    pub fn result(&self) -> Option<(GameResult, String)> {
        if let Some(r) = self.pos.result() {
            let why = self.pos.end_reason().unwrap_or_else(|| "game over".into());
            return Some((r, why));
        }
        let reversible = self.pos.reversible_plies().min(self.hashes.len() - 1);
        if reversible >= 4 {
            let key = self.pos.hash();
            let n = self.hashes.len();
            let seen = self.hashes[n - 1 - reversible..n - 1]
                .iter()
                .filter(|&&h| h == key)
                .count();
            if seen >= 2 {
                return Some((GameResult::Draw, "threefold repetition".into()));
            }
        }
        None
    }

    /// The moves in the game's human notation (chess: SAN), each from its own position.
    pub fn human_moves(&self) -> Vec<String> {
        let mut pos = self.start.clone();
        self.moves
            .iter()
            .map(|&m| {
                let s = pos.format_human(m);
                pos.play(m);
                s
            })
            .collect()
    }

    /// The moves in protocol notation.
    pub fn protocol_moves(&self) -> Vec<String> {
        let mut pos = self.start.clone();
        self.moves
            .iter()
            .map(|&m| {
                let s = pos.format_move(m);
                pos.play(m);
                s
            })
            .collect()
    }
}

/// Movetext tokens joined by spaces, a line broken before it passes 79 columns (PGN's
/// export format).
pub fn wrap(tokens: &[String]) -> String {
    let mut s = String::new();
    let mut width = 0;
    for t in tokens {
        if width > 0 && width + t.len() + 1 > 79 {
            s.push('\n');
            width = 0;
        } else if width > 0 {
            s.push(' ');
            width += 1;
        }
        width += t.len();
        s.push_str(t);
    }
    s
}

pub fn result_text(r: Option<GameResult>) -> &'static str {
    match r {
        Some(GameResult::P1Win) => "1-0",
        Some(GameResult::P2Win) => "0-1",
        Some(GameResult::Draw) => "1/2-1/2",
        None => "*",
    }
}

/// Adds a movetext token to `cur` (move numbers, results and NAGs dropped); whether it was
/// movetext at all.
fn push_token(cur: &mut Record, w: &str) -> bool {
    if w.is_empty() {
        return false;
    }
    // Strip move numbers ("12." / "12..." / "12.e4").
    let w = match w.rfind('.') {
        Some(i) if w[..i].chars().all(|c| c.is_ascii_digit() || c == '.') => &w[i + 1..],
        _ => w,
    };
    if !w.is_empty() && !matches!(w, "1-0" | "0-1" | "1/2-1/2" | "*") && !w.starts_with('$') {
        cur.moves.push(w.to_string());
        cur.comments.push(String::new());
    }
    true
}

/// A parsed record: tag pairs in order, and the move tokens (numbers, comments, results
/// removed).
#[derive(Debug, Default, Clone)]
pub struct Record {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// What the `{...}` comments right after each move say (empty where none; read, not
    /// written): runners put the engine's score and depth there (`{+0.31/9 0.105s}`).
    pub comments: Vec<String>,
}

impl Record {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(t) => t.1 = value,
            None => self.tags.push((name.into(), value)),
        }
    }

    /// Builds the record of `line`: `[FEN]` (and PGN's `[SetUp]`) unless it started from
    /// `standard_start`.
    pub fn of<G: Game>(line: &GameLine<G>, tags: &[(&str, String)], standard: bool) -> Record {
        let mut r = Record::default();
        if !G::PGN {
            r.set("Game", G::NAME);
        }
        for (k, v) in tags {
            r.set(k, v.clone());
        }
        if !standard {
            if G::PGN {
                r.set("SetUp", "1");
            }
            r.set("FEN", line.start.fen());
        }
        r.set("PlyCount", line.moves.len().to_string());
        r.moves = line.human_moves();
        r
    }

    /// The text of a record of a `G` game that started at `start`: with PGN's move numbers
    /// where the game's records are PGN.
    pub fn text_of<G: Game>(&self, start: &G) -> String {
        self.to_text(G::PGN, G::PGN && start.to_move() == Player::P2)
    }

    /// The text: tags, a blank line, the moves (`numbered`: with PGN's move numbers, the
    /// first by Black where `black_starts`), the result.
    pub fn to_text(&self, numbered: bool, black_starts: bool) -> String {
        let mut s = String::new();
        // PGN's seven-tag roster first, in its order; then the rest as given.
        const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
        let rank = |k: &str| ROSTER.iter().position(|&r| r == k).unwrap_or(ROSTER.len());
        let mut tags: Vec<&(String, String)> = self.tags.iter().collect();
        tags.sort_by_key(|(k, _)| rank(k));
        for (k, v) in tags {
            let v = v.replace('\\', "\\\\").replace('"', "\\\"");
            s.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        s.push('\n');
        let mut tokens: Vec<String> = Vec::new();
        let mut number = self
            .tag("FEN")
            .and_then(|f| f.split_whitespace().nth(5))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1);
        for (i, m) in self.moves.iter().enumerate() {
            if numbered {
                let white = (i % 2 == 0) != black_starts;
                if white {
                    tokens.push(format!("{number}."));
                } else if i == 0 {
                    tokens.push(format!("{number}..."));
                }
                if !white {
                    number += 1;
                }
            }
            tokens.push(m.clone());
        }
        tokens.push(self.tag("Result").unwrap_or("*").to_string());
        s.push_str(&wrap(&tokens));
        s.push_str("\n\n");
        s
    }

    /// Reads every record in `text` (PGN or tabula's text records).
    pub fn parse_all(text: &str) -> Result<Vec<Record>, String> {
        let mut out = Vec::new();
        let mut cur = Record::default();
        let mut in_moves = false;
        let mut depth = 0; // inside { } comments or ( ) variations
        let mut comment: Option<String> = None;
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if depth == 0 && line.starts_with('[') {
                if in_moves {
                    out.push(std::mem::take(&mut cur));
                    in_moves = false;
                }
                let inner = line.trim_start_matches('[').trim_end_matches(']');
                let (k, v) = inner
                    .split_once(' ')
                    .ok_or_else(|| format!("line {}: a tag needs a name and a value", n + 1))?;
                let v = v.trim().trim_matches('"').replace("\\\"", "\"");
                cur.tags.push((k.to_string(), v.replace("\\\\", "\\")));
                continue;
            }
            if line.starts_with('%') || line.starts_with(';') {
                continue;
            }
            let mut word = String::new();
            for ch in line.chars().chain(std::iter::once(' ')) {
                // `;` outside braces comments out the rest of the line.
                if ch == ';' && depth == 0 {
                    in_moves |= push_token(&mut cur, &std::mem::take(&mut word));
                    break;
                }
                let before = depth;
                match ch {
                    '{' | '(' => depth += 1,
                    '}' | ')' => depth = (depth - 1).max(0),
                    _ => {}
                }
                if before == 0 && depth == 0 && !ch.is_whitespace() {
                    word.push(ch);
                    continue;
                }
                if before == 0 {
                    // Whitespace, or the start of a comment or variation, ends a token.
                    in_moves |= push_token(&mut cur, &std::mem::take(&mut word));
                }
                // A comment of the main line (not inside a variation) belongs to its move.
                if before == 0 && ch == '{' {
                    comment = Some(String::new());
                } else if depth == 0 && before == 1 && ch == '}' {
                    if let (Some(c), Some(last)) = (comment.take(), cur.comments.last_mut()) {
                        if !last.is_empty() {
                            last.push(' ');
                        }
                        last.push_str(c.trim());
                    }
                } else if let Some(c) = comment.as_mut().filter(|_| depth == 1) {
                    c.push(ch);
                }
            }
            if let Some(c) = comment.as_mut().filter(|_| depth > 0) {
                c.push(' ');
            }
        }
        if in_moves || !cur.tags.is_empty() {
            out.push(cur);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Notation;
    use crate::games::chess::Chess;
    use crate::games::connect4::Connect4;

    #[test]
    fn pgn_round_trip() {
        let mut line = GameLine::new(Chess::default());
        for m in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"] {
            let mv = line.pos.parse_human(m).expect("legal");
            line.play(mv);
        }
        let mut r = Record::of(&line, &[("White", "A".into()), ("Black", "B".into())], true);
        r.set("Result", "*");
        let text = r.to_text(true, false);
        assert!(text.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *"), "{text}");
        let back = Record::parse_all(&text).expect("parses");
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].moves, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert_eq!(back[0].tag("White"), Some("A"));
    }

    #[test]
    fn pgn_comments_variations_and_numbers_are_skipped() {
        let text = "[Event \"x\"]\n\n1. e4 {best by test} e5 (1... c5 2. Nf3) 2.Nf3 $1 Nc6 1-0\n";
        let r = Record::parse_all(text).expect("parses");
        assert_eq!(r[0].moves, ["e4", "e5", "Nf3", "Nc6"]);
    }

    #[test]
    fn threefold_repetition_and_undo() {
        let mut line = GameLine::new(Chess::default());
        for m in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"] {
            assert!(line.result().is_none());
            let mv = line.pos.parse_human(m).expect("legal");
            line.play(mv);
        }
        assert!(line.result().is_none(), "the start has occurred twice only");
        let mv = line.pos.parse_human("Ng8").expect("legal");
        line.play(mv);
        assert_eq!(
            line.result().map(|r| r.1),
            Some("threefold repetition".into())
        );
        assert!(line.undo());
        assert!(line.result().is_none());
        assert_eq!(line.moves.len(), 7);
    }

    #[test]
    fn connect4_record_with_fen() {
        let mut line = GameLine::new(Connect4::default());
        for c in ["d", "d", "c"] {
            let mv = line.pos.parse_human(c).expect("legal");
            line.play(mv);
        }
        let r = Record::of(&line, &[("Result", "*".into())], true);
        let text = r.to_text(false, false);
        assert!(text.contains("[Game \"connect4\"]"), "{text}");
        assert!(text.contains("\nd d c *"), "{text}");
    }
}
