//! A match's course, one point per game: the score, the logistic Elo with its 95% interval
//! and the SPRT's log-likelihood ratio after each game of one pairing, snapshots of the
//! pairing's `Tally` taken with `stats.rs` (the same numbers the table and the JSON report
//! give at that moment, rounded as the JSON rounds them). `tabula match --report` plots it,
//! and so does the browser's "Watch a match" view (`Course::of_games` for its game series).

use crate::arena::json::{round, stat};
use crate::arena::stats::{Sprt, Tally};
use serde::Serialize;

/// The standing after one game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Games of the pairing played so far (the plot's x).
    pub game: usize,
    /// The match's game number of the game just finished (`Round` of the records).
    pub round: usize,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub score: Option<f64>,
    /// Logistic Elo and the half-width of its 95% interval; null where not finite.
    pub elo: Option<f64>,
    pub elo_error: Option<f64>,
    /// The SPRT's LLR, when one runs.
    pub llr: Option<f64>,
}

/// The points of one pairing (its first engine's view), with the SPRT's bounds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Course {
    /// The two engines: the scores are the first's.
    pub names: [String; 2],
    pub points: Vec<Point>,
    /// The SPRT's (lower, upper) LLR bounds, when one runs.
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

impl Course {
    pub fn new(names: [String; 2], sprt: Option<&Sprt>) -> Course {
        let bounds = sprt.map(|s| s.bounds());
        Course {
            names,
            points: Vec::new(),
            lower: bounds.and_then(|b| round(b.0, 4)),
            upper: bounds.and_then(|b| round(b.1, 4)),
        }
    }

    /// Adds the standing `t` after the game numbered `round`.
    pub fn push(&mut self, round_no: usize, t: &Tally, sprt: Option<&Sprt>) {
        let e = t.elo();
        self.points.push(Point {
            game: self.points.len() + 1,
            round: round_no,
            wins: t.wins,
            draws: t.draws,
            losses: t.losses,
            score: round(t.score(), 4),
            elo: stat(e.map(|e| e.0)),
            elo_error: stat(e.map(|e| e.1)),
            llr: sprt.and_then(|s| round(s.llr(t), 4)),
        });
    }

    /// The course of a series of games played in pairs (games 1 and 2 from the same start
    /// with colours swapped, then 3 and 4, ...): `points` are the first engine's (1, 0.5, 0).
    pub fn of_games(names: [String; 2], points: &[f64], sprt: Option<&Sprt>) -> Course {
        let mut c = Course::new(names, sprt);
        let mut t = Tally::default();
        for (i, &p) in points.iter().enumerate() {
            t.add(p);
            if i % 2 == 1 {
                t.add_pair(points[i - 1] + p);
            }
            c.push(i + 1, &t, sprt);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_course_follows_the_tally() {
        let names = ["A".to_string(), "B".to_string()];
        let c = Course::of_games(names, &[1.0, 0.5, 0.0, 1.0, 1.0], None);
        assert_eq!(c.points.len(), 5);
        let last = &c.points[4];
        assert_eq!((last.wins, last.draws, last.losses), (3, 1, 1));
        assert_eq!(last.score, Some(0.7));
        // Two pairs (1.5 and 1): the pentanomial Elo of the pairs, as the match computes it.
        let t = Tally {
            wins: 3,
            draws: 1,
            losses: 1,
            penta: [0, 0, 1, 1, 0],
        };
        assert_eq!(last.elo, stat(t.elo().map(|e| e.0)));
        assert_eq!(c.points[0].elo, None, "one win: Elo not finite");
        assert_eq!(c.points[0].llr, None);
        let s = Sprt::parse("elo0=0 elo1=5").expect("valid");
        let c = Course::of_games(["A".into(), "B".into()], &[1.0, 0.0, 0.5, 0.5], Some(&s));
        assert!(c.lower.is_some_and(|l| l < 0.0) && c.upper.is_some_and(|u| u > 0.0));
        assert!(c.points.iter().all(|p| p.llr.is_some()));
    }
}
