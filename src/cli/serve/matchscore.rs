//! A match's record (the browser's watched matches): how many games, the two engines, the
//! game being played, the finished games' results and the score, and the record as the page
//! reads it (JSON). `matchplay.rs` moves it on between games.
//! Invariants: `results.len()` games are over and scored; `game` numbers the current game
//! (1-based) and never exceeds `games`; engine 0 of `pair` is the first named engine ("A").
//! The course of A's Elo (`course`) is computed by `tabula match --report`'s code, so the
//! page plots the same numbers with the same drawing (`plot.js`).

use serde_json::{Value, json};
use std::time::Instant;
use tabula::arena::report::series::Course;

#[derive(Clone, Debug)]
pub struct MatchPlay {
    /// Games in the match.
    pub games: u32,
    /// The engines A and B (indices into the server's engines).
    pub pair: [usize; 2],
    /// The game being played (1-based).
    pub game: u32,
    /// Finished games: A's score (1, ½ as 0.5, 0), whether A played first, the result text.
    pub results: Vec<(f64, bool, String)>,
    /// When the current game's end was scored (the next starts `PAUSE` after).
    pub ended: Option<Instant>,
}

impl MatchPlay {
    pub fn new(games: u32, pair: [usize; 2]) -> MatchPlay {
        MatchPlay {
            games,
            pair,
            game: 1,
            results: Vec::new(),
            ended: None,
        }
    }

    /// Which engine plays each side in game `game`: A first in odd games, B first in even.
    pub fn sides(&self, game: u32) -> [usize; 2] {
        if game % 2 == 1 {
            self.pair
        } else {
            [self.pair[1], self.pair[0]]
        }
    }

    /// A's points so far, and the number of games scored.
    pub fn score(&self) -> (f64, usize) {
        (self.results.iter().map(|r| r.0).sum(), self.results.len())
    }

    /// Whether every game is over.
    pub fn finished(&self) -> bool {
        self.results.len() as u32 >= self.games
    }

    pub fn json(&self, names: [&str; 2]) -> Value {
        let (a, n) = self.score();
        let (wins, draws) = self.results.iter().fold((0, 0), |(w, d), r| {
            (w + usize::from(r.0 == 1.0), d + usize::from(r.0 == 0.5))
        });
        json!({
            "games": self.games,
            "game": self.game,
            "names": names,
            "pair": self.pair,
            "score": [a, n as f64 - a],
            "wins": wins,
            "draws": draws,
            "losses": n - wins - draws,
            "finished": self.finished(),
            "course": Course::of_games(
                names.map(String::from),
                &self.results.iter().map(|r| r.0).collect::<Vec<_>>(),
                None,
            ),
            "results": self.results.iter().enumerate().map(|(i, r)| json!({
                "game": i + 1,
                "a_first": r.1,
                "a_points": r.0,
                "result": r.2,
            })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_change_every_game_and_the_score_is_engine_as() {
        let mut m = MatchPlay::new(4, [0, 1]);
        assert_eq!(m.sides(1), [0, 1]);
        assert_eq!(m.sides(2), [1, 0]);
        assert_eq!(m.sides(3), [0, 1]);
        m.results.push((1.0, true, "1-0".into()));
        m.results.push((0.5, false, "1/2-1/2".into()));
        m.results.push((0.0, true, "0-1".into()));
        assert_eq!(m.score(), (1.5, 3));
        assert!(!m.finished());
        let j = m.json(["A", "B"]);
        assert_eq!(
            (j["wins"].as_u64(), j["draws"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(j["losses"].as_u64(), Some(1));
        assert_eq!(j["score"], json!([1.5, 1.5]));
        m.results.push((1.0, false, "0-1".into()));
        assert!(m.finished());
    }
}
