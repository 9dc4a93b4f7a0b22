//! `tabula match` on the command line: the flags, and their translation into a
//! `tabula::arena::MatchConfig` (every value checked before the first engine starts).

use std::path::PathBuf;
use std::time::Duration;
use tabula::arena::child::EngineSpec;
use tabula::arena::referee::{Adjudication, Limit, Rules};
use tabula::arena::stats::Sprt;
use tabula::arena::{MatchConfig, read_openings};
use tabula::game::Game;

#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// An engine: "name=A cmd=PATH args='--game othello' option.Hash=64 proto=uci|ugi".
    /// Two or more; chess engines speak UCI by default, other games UGI.
    #[arg(long = "engine", required = true)]
    pub engines: Vec<String>,
    /// Games per pairing (each opening is played twice, colours swapped).
    #[arg(long, default_value_t = 2)]
    pub games: u32,
    /// Time control [moves/]seconds[+increment], e.g. 10+0.1 (default when no other limit).
    #[arg(long)]
    pub tc: Option<String>,
    /// Fixed time per move, in milliseconds.
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Fixed search depth per move.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Fixed node count per move.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Opening positions, one FEN (or chess EPD) per line.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Shuffle the openings with this seed (default: file order).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the games as PGN (chess).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Write the games as tabula game records (any game).
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Write the results as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an HTML report (one file, plots inside), rewritten after every game.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Stop when decided: "elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized|logistic]".
    #[arg(long)]
    pub sprt: Option<String>,
    /// The first engine plays every other; otherwise a round robin.
    #[arg(long)]
    pub gauntlet: bool,
    /// Milliseconds an engine may overrun its clock before it forfeits.
    #[arg(long, default_value_t = 100)]
    pub margin: u64,
    /// Seconds allowed for a handshake, and for a move under --depth / --nodes.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// Resign adjudication: "moves=3 score=800" (both engines agree, in centipawns).
    #[arg(long)]
    pub resign: Option<String>,
    /// Draw adjudication: "after=80 moves=8 score=10" (plies, consecutive moves, centipawns).
    #[arg(long)]
    pub draw: Option<String>,
    /// Adjudicate a draw after this many plies.
    #[arg(long)]
    pub max_moves: Option<u32>,
}

fn key_values(flag: &str, text: &str, keys: &[&str]) -> Result<Vec<i64>, String> {
    let mut out = vec![None; keys.len()];
    for item in text.split_whitespace() {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("--{flag}: '{item}' is not key=value"))?;
        let i = keys
            .iter()
            .position(|&x| x == k)
            .ok_or_else(|| format!("--{flag}: unknown key '{k}' (expected {})", keys.join(", ")))?;
        out[i] = Some(
            v.parse::<i64>()
                .ok()
                .filter(|&x| (0..=1_000_000).contains(&x))
                .ok_or_else(|| format!("--{flag}: {k}={v} is not a whole number"))?,
        );
    }
    out.into_iter()
        .zip(keys)
        .map(|(v, k)| v.ok_or_else(|| format!("--{flag}: missing {k}=")))
        .collect()
}

pub fn config<G: Game>(start: &G, a: MatchArgs) -> Result<MatchConfig, String> {
    let engines = a
        .engines
        .iter()
        .map(|e| EngineSpec::parse(e))
        .collect::<Result<Vec<_>, _>>()?;
    let limits = [
        a.tc.is_some(),
        a.movetime.is_some(),
        a.depth.is_some(),
        a.nodes.is_some(),
    ];
    if limits.iter().filter(|&&x| x).count() > 1 {
        return Err("give one of --tc, --movetime, --depth, --nodes".into());
    }
    let limit = match (&a.tc, a.movetime, a.depth, a.nodes) {
        (Some(tc), ..) => Limit::parse_tc(tc)?,
        (_, Some(ms), ..) if ms > 0 => Limit::MoveTime(ms),
        (_, _, Some(d), _) if d > 0 => Limit::Depth(d),
        (_, _, _, Some(n)) if n > 0 => Limit::Nodes(n),
        (None, None, None, None) => Limit::parse_tc("10+0.1")?,
        _ => return Err("--movetime, --depth and --nodes must be positive".into()),
    };
    let openings = match &a.openings {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            read_openings(start, &text)?
        }
        None => Vec::new(),
    };
    let resign = match &a.resign {
        Some(t) => {
            let v = key_values("resign", t, &["moves", "score"])?;
            Some((v[0] as u32, v[1] as i32))
        }
        None => None,
    };
    let draw = match &a.draw {
        Some(t) => {
            let v = key_values("draw", t, &["after", "moves", "score"])?;
            Some((v[0] as u32, v[1] as u32, v[2] as i32))
        }
        None => None,
    };
    if a.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if a.concurrency == 0 || a.concurrency > 256 {
        return Err("--concurrency must be 1..256".into());
    }
    Ok(MatchConfig {
        engines,
        games: a.games,
        rules: Rules {
            limit,
            margin_ms: a.margin,
            timeout: Duration::from_secs(a.timeout.max(1)),
            adjudication: Adjudication {
                resign,
                draw,
                max_plies: a.max_moves,
            },
        },
        concurrency: a.concurrency,
        openings,
        seed: a.seed,
        records: a.pgn.or(a.records),
        json: a.json,
        report: a.report,
        openings_file: a.openings.map(|p| p.display().to_string()),
        sprt: a.sprt.as_deref().map(Sprt::parse).transpose()?,
        gauntlet: a.gauntlet,
        event: format!("tabula match ({})", G::NAME),
    })
}

pub fn run<G: Game + Send + Sync>(start: G, a: MatchArgs) -> Result<(), String> {
    let cfg = config(&start, a)?;
    tabula::arena::run(start, cfg).map(|_| ())
}
