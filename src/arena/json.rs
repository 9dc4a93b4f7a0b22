//! The match's JSON report (`tabula match --json FILE`): the game, time control, every
//! engine's score and Elo, every pairing's counts and statistics, the SPRT, the problems and
//! one entry per game. The fields and their order are these structs' (serde); numbers rounded
//! as the table prints them (Elo to 3 places, scores and statistics to 4), null where a
//! statistic is not defined.

use super::stats::Verdict;
use super::{MatchConfig, Summary};
use serde::Serialize;

/// One game of the report.
#[derive(Serialize)]
pub struct GameEntry {
    pub round: usize,
    pub p1: String,
    pub p2: String,
    pub opening: Option<String>,
    pub result: &'static str,
    pub reason: String,
    pub plies: usize,
    pub notes: Vec<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    game: &'a str,
    time_control: String,
    games_played: usize,
    engines: Vec<Engine<'a>>,
    pairings: Vec<Pairing<'a>>,
    sprt: Option<Sprt>,
    problems: &'a [String],
    games: &'a [GameEntry],
}

#[derive(Serialize)]
struct Engine<'a> {
    name: &'a str,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    score: Option<f64>,
    elo: Option<f64>,
    elo_error: Option<f64>,
}

#[derive(Serialize)]
struct Pairing<'a> {
    a: &'a str,
    b: &'a str,
    wins: u64,
    draws: u64,
    losses: u64,
    penta: [u64; 5],
    elo: Option<f64>,
    elo_error: Option<f64>,
    nelo: Option<f64>,
    nelo_error: Option<f64>,
    los: Option<f64>,
}

#[derive(Serialize)]
struct Sprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    llr: Option<f64>,
    lower: Option<f64>,
    upper: Option<f64>,
    verdict: &'static str,
}

/// `v` rounded to `places` decimals (as `{:.places$}` prints it); a value JSON cannot hold
/// (NaN, infinite) is null.
pub(crate) fn round(v: f64, places: usize) -> Option<f64> {
    format!("{v:.places$}")
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
}

/// A statistic rounded to 3 places; null where not defined.
pub(crate) fn stat(x: Option<f64>) -> Option<f64> {
    x.and_then(|v| round(v, 3))
}

/// The report's text, one line.
pub fn report(cfg: &MatchConfig, s: &Summary, games: &[GameEntry], game: &str) -> String {
    // Serializing these structs cannot fail (string keys, no maps); an empty object if it did.
    serde_json::to_string(&build(cfg, s, games, game)).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The report as a JSON value, the same numbers (the HTML report embeds it).
pub fn value(cfg: &MatchConfig, s: &Summary, games: &[GameEntry], game: &str) -> serde_json::Value {
    serde_json::to_value(build(cfg, s, games, game)).unwrap_or_default()
}

fn build<'a>(
    cfg: &'a MatchConfig,
    s: &'a Summary,
    games: &'a [GameEntry],
    game: &'a str,
) -> Report<'a> {
    let name = |i: usize| cfg.engines[i].name.as_str();
    let engines = s
        .tallies
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let e = t.elo();
            Engine {
                name: name(i),
                games: t.games(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                score: round(t.score(), 4),
                elo: stat(e.map(|e| e.0)),
                elo_error: stat(e.map(|e| e.1)),
            }
        })
        .collect();
    let pairings = s
        .pairings
        .iter()
        .map(|(a, b, t)| {
            let (e, ne) = (t.elo(), t.nelo());
            Pairing {
                a: name(*a),
                b: name(*b),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                penta: t.penta,
                elo: stat(e.map(|e| e.0)),
                elo_error: stat(e.map(|e| e.1)),
                nelo: stat(ne.map(|e| e.0)),
                nelo_error: stat(ne.map(|e| e.1)),
                los: round(t.los(), 4),
            }
        })
        .collect();
    let sprt = match (cfg.sprt, s.pairings.first()) {
        (Some(p), Some((_, _, t))) => {
            let (lo, hi) = p.bounds();
            Some(Sprt {
                elo0: p.elo0,
                elo1: p.elo1,
                alpha: p.alpha,
                beta: p.beta,
                llr: round(p.llr(t), 4),
                lower: round(lo, 4),
                upper: round(hi, 4),
                verdict: match s.verdict {
                    Some(Verdict::H1) => "H1",
                    Some(Verdict::H0) => "H0",
                    _ => "undecided",
                },
            })
        }
        _ => None,
    };
    Report {
        game,
        time_control: cfg.rules.limit.describe(),
        games_played: s.games,
        engines,
        pairings,
        sprt,
        problems: &s.problems,
        games,
    }
}
