//! `tabula match --report FILE.html`: a match as a page to look at. The runner hands over
//! every finished game; this gathers what the page shows beyond the JSON report (the course
//! of the first pairing's Elo and LLR, results by opening with both colours, the time per
//! move of each engine) and writes the page (`html.rs`) after each game and at the end, with
//! the JSON report itself inside, so that every number on the page is the JSON's.
//!
//! `series.rs` holds the course (also drawn by the browser's "Watch a match" view), `plot.js`
//! the drawing both pages share, `page.js` and `template.html` the report page itself.

pub mod html;
pub mod series;

use super::MatchConfig;
use serde::Serialize;
use serde_json::Value;
use series::Course;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Buckets of the move-time histogram: under 1 ms, then [2^(i-1), 2^i) ms, the last open.
const BUCKETS: usize = 19;
/// The page is rewritten after a game unless the last write was more recent than this
/// many times its own duration (a long match's page grows; writing it stays a small part
/// of the runner's time). The final write always happens.
const WRITE_SPACING: u32 = 20;

/// What the page says about the match's set-up.
#[derive(Serialize)]
struct Header {
    game: String,
    time_control: String,
    engines: Vec<EngineLine>,
    openings_file: Option<String>,
    openings: usize,
    games_planned: usize,
    concurrency: usize,
    gauntlet: bool,
    sprt: Option<String>,
    date: String,
}

#[derive(Serialize)]
struct EngineLine {
    name: String,
    command: String,
    /// The engine's own limit, where it has one.
    limit: Option<String>,
    options: Vec<String>,
}

/// The results of one pairing from one opening: its first engine's wins, draws, losses as
/// player 1 and as player 2.
#[derive(Serialize)]
struct OpeningRow {
    pairing: usize,
    opening: Option<String>,
    as_p1: [u64; 3],
    as_p2: [u64; 3],
}

/// One engine's time per move.
#[derive(Serialize)]
struct Times {
    name: String,
    /// Moves and their total time (ms), as player 1 and as player 2.
    moves: [u64; 2],
    total_ms: [u64; 2],
    max_ms: u64,
    histogram: [u64; BUCKETS],
    /// Per game it played: (the game's place in the order games finished, mean ms per move).
    per_game: Vec<(usize, f64)>,
}

/// One finished game, as the runner hands it over.
pub struct GameFacts<'a> {
    /// The game's place in the order games finished (1-based).
    pub finished: usize,
    pub round: usize,
    pub pairing: usize,
    /// The pairing's first engine (the one its scores are for).
    pub first: usize,
    /// Engines: (player 1, player 2).
    pub players: (usize, usize),
    pub opening: Option<&'a str>,
    /// Player 1's points (1, 0.5, 0).
    pub p1_points: f64,
    /// Each player's move times, ms.
    pub move_ms: &'a [Vec<u64>; 2],
}

#[derive(Serialize)]
struct Page<'a> {
    status: &'static str,
    updated: String,
    header: &'a Header,
    summary: Value,
    course: &'a Course,
    openings: &'a [OpeningRow],
    times: &'a [Times],
}

pub struct Report {
    path: PathBuf,
    header: Header,
    course: Course,
    openings: Vec<OpeningRow>,
    times: Vec<Times>,
    /// When the last write ended, and how long it took.
    last_write: Option<(Instant, Duration)>,
}

impl Report {
    /// `games_planned`: every game scheduled (fewer are played when an SPRT stops early).
    pub fn new(
        path: PathBuf,
        cfg: &MatchConfig,
        game: &str,
        date: &str,
        games_planned: usize,
    ) -> Report {
        let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
        let header = Header {
            game: game.to_string(),
            time_control: cfg.rules.limit.describe(),
            engines: cfg
                .engines
                .iter()
                .map(|e| EngineLine {
                    name: e.name.clone(),
                    command: std::iter::once(e.cmd.as_str())
                        .chain(e.args.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(" "),
                    limit: e.limit.map(|l| l.describe()),
                    options: e.options.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                })
                .collect(),
            openings_file: cfg.openings_file.clone(),
            openings: cfg.openings.len(),
            games_planned,
            concurrency: cfg.concurrency,
            gauntlet: cfg.gauntlet,
            sprt: cfg.sprt.map(|s| {
                format!(
                    "elo0={} elo1={} alpha={} beta={} ({:?})",
                    s.elo0, s.elo1, s.alpha, s.beta, s.model
                )
            }),
            date: date.to_string(),
        };
        let times = names
            .iter()
            .map(|n| Times {
                name: n.clone(),
                moves: [0; 2],
                total_ms: [0; 2],
                max_ms: 0,
                histogram: [0; BUCKETS],
                per_game: Vec::new(),
            })
            .collect();
        Report {
            path,
            header,
            // The first pairing is always engines 0 and 1 (round robin and gauntlet alike).
            course: Course::new(
                [0, 1].map(|i| names.get(i).cloned().unwrap_or_default()),
                cfg.sprt.as_ref(),
            ),
            openings: Vec::new(),
            times,
            last_write: None,
        }
    }

    /// Counts a finished game; `first_pairing` is the first pairing's tally after it (the
    /// course follows that pairing, as the progress line and the SPRT do).
    pub fn add_game(
        &mut self,
        g: &GameFacts,
        first_pairing: Option<&super::stats::Tally>,
        sprt: Option<&super::stats::Sprt>,
    ) {
        if let Some(t) = first_pairing {
            self.course.push(g.round, t, sprt);
        }
        let first_is_p1 = g.players.0 == g.first;
        let points = if first_is_p1 {
            g.p1_points
        } else {
            1.0 - g.p1_points
        };
        let opening = g.opening.map(String::from);
        let row = match self
            .openings
            .iter()
            .position(|r| r.pairing == g.pairing && r.opening == opening)
        {
            Some(i) => &mut self.openings[i],
            None => {
                self.openings.push(OpeningRow {
                    pairing: g.pairing,
                    opening,
                    as_p1: [0; 3],
                    as_p2: [0; 3],
                });
                let last = self.openings.len() - 1;
                &mut self.openings[last]
            }
        };
        let cell = if first_is_p1 {
            &mut row.as_p1
        } else {
            &mut row.as_p2
        };
        cell[if points >= 1.0 {
            0
        } else if points <= 0.0 {
            2
        } else {
            1
        }] += 1;
        for (side, engine) in [g.players.0, g.players.1].into_iter().enumerate() {
            let (Some(t), ms) = (self.times.get_mut(engine), &g.move_ms[side]) else {
                continue;
            };
            for &m in ms {
                t.histogram[bucket(m)] += 1;
                t.max_ms = t.max_ms.max(m);
            }
            let sum: u64 = ms.iter().sum();
            t.moves[side] += ms.len() as u64;
            t.total_ms[side] += sum;
            if !ms.is_empty() {
                let mean = sum as f64 / ms.len() as f64;
                t.per_game.push((g.finished, (mean * 10.0).round() / 10.0));
            }
        }
    }

    /// Writes the page with `summary` (the JSON report) inside: at the end (`finished`)
    /// always, while the match runs unless the last write was very recent (`WRITE_SPACING`).
    pub fn save(&mut self, summary: impl FnOnce() -> Value, finished: bool) -> Result<(), String> {
        if let Some((at, took)) = self.last_write
            && !finished
            && at.elapsed() < took * WRITE_SPACING
        {
            return Ok(());
        }
        let t0 = Instant::now();
        let page = Page {
            status: if finished { "finished" } else { "running" },
            updated: clock_time(),
            header: &self.header,
            summary: summary(),
            course: &self.course,
            openings: &self.openings,
            times: &self.times,
        };
        let data = serde_json::to_value(&page).map_err(|e| format!("the report's data: {e}"))?;
        html::write_atomic(&self.path, &html::page(&data, !finished))?;
        self.last_write = Some((Instant::now(), t0.elapsed()));
        Ok(())
    }
}

fn bucket(ms: u64) -> usize {
    if ms == 0 {
        0
    } else {
        ((64 - ms.leading_zeros()) as usize).min(BUCKETS - 1)
    }
}

/// The date and time now, UTC, as `YYYY.MM.DD HH:MM:SS UTC`.
fn clock_time() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!(
        "{} {:02}:{:02}:{:02} UTC",
        super::pgn_date(),
        s / 3600 % 24,
        s / 60 % 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_times_fall_in_power_of_two_buckets() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(1), 1);
        assert_eq!(bucket(2), 2);
        assert_eq!(bucket(3), 2);
        assert_eq!(bucket(1000), 10);
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }
}
