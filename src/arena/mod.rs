//! `tabula match`: engine-against-engine matches for every game. Schedules the games (round
//! robin or gauntlet, each opening played with both colours), runs `concurrency` games at a
//! time on worker threads (each game starts its own two engine processes), keeps the score,
//! and writes the progress line, the final table, records and JSON.
//!
//! `child` owns the processes, `referee` one game, `stats` the arithmetic, `json` the JSON
//! report, `report` the HTML report (`--report`), `lines` the move lines that tell GTP
//! engines an opening. The progress line and the table go to stderr and stdout; nothing
//! here touches the engine's own protocol loop.

pub mod child;
pub mod json;
pub mod limit;
pub mod lines;
pub mod referee;
pub mod report;
pub mod stats;

use crate::game::{Game, GameResult};
use child::{EngineSpec, Proto};
use referee::{Played, Rules};
use stats::{Sprt, Tally, Verdict};
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, mpsc};

pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    /// Games per pairing.
    pub games: u32,
    pub rules: Rules,
    pub concurrency: usize,
    /// Opening positions (FEN); empty: the standard start.
    pub openings: Vec<String>,
    pub seed: Option<u64>,
    pub records: Option<std::path::PathBuf>,
    pub json: Option<std::path::PathBuf>,
    /// The HTML report, rewritten as the games come in.
    pub report: Option<std::path::PathBuf>,
    /// Where the openings came from (the report names it).
    pub openings_file: Option<String>,
    pub sprt: Option<Sprt>,
    pub gauntlet: bool,
    /// Extra text for the game records' `[Event]`.
    pub event: String,
}

struct Job {
    round: usize,
    pairing: usize,
    pair: usize,
    /// Engine indices: (player 1, player 2).
    players: (usize, usize),
    opening: Option<String>,
}

struct Done {
    job: Job,
    played: Played,
}

/// Reads an openings file: one FEN (or chess EPD) per line; `#` comments and blank lines
/// skipped. Every line must be a valid position of the game.
pub fn read_openings<G: Game>(start: &G, text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let body = line.split(';').next().unwrap_or("").trim();
        let fields: Vec<&str> = body.split_whitespace().collect();
        let candidates = [
            body.to_string(),
            // EPD: four fields (opcodes like `bm`/`id` after them), counters implied.
            format!(
                "{} 0 1",
                fields.iter().take(4).copied().collect::<Vec<_>>().join(" ")
            ),
        ];
        let fen = candidates
            .iter()
            .find_map(|c| start.parse_fen(c).ok().map(|p| p.fen()))
            .ok_or_else(|| {
                let why = start.parse_fen(body).err().unwrap_or_default();
                format!("openings line {}: {why}", i + 1)
            })?;
        out.push(fen);
    }
    if out.is_empty() {
        return Err("the openings file has no positions".into());
    }
    Ok(out)
}

fn shuffle(v: &mut [String], seed: u64) {
    let mut s = seed ^ 0x9e37_79b9_7f4a_7c15;
    for i in (1..v.len()).rev() {
        s = crate::bits::mix(s.wrapping_add(i as u64));
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
}

/// Today's date as PGN writes it (UTC).
fn pgn_date() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The summary of a finished match.
pub struct Summary {
    pub tallies: Vec<Tally>,
    /// Per pairing: (engine a, engine b, tally of a against b).
    pub pairings: Vec<(usize, usize, Tally)>,
    pub games: usize,
    pub problems: Vec<String>,
    pub verdict: Option<Verdict>,
}

/// Runs the match; Err only for set-up problems (bad openings, no engines).
pub fn run<G: Game + Send + Sync>(start: G, cfg: MatchConfig) -> Result<Summary, String> {
    let n = cfg.engines.len();
    if n < 2 {
        return Err("a match needs at least two --engine".into());
    }
    let pairings = pairings_of(n, cfg.gauntlet);
    let mut openings = cfg.openings.clone();
    if let Some(seed) = cfg.seed {
        shuffle(&mut openings, seed);
    }
    let jobs = schedule(cfg.games, &pairings, &openings);
    let total = jobs.len();
    let lines = gtp_lines(&start, &cfg, &openings)?;
    let date = pgn_date();
    let mut standings = Standings::new::<G>(&cfg, &pairings, &date, total)?;
    let queue = Mutex::new(jobs);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Done>();
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    std::thread::scope(|scope| {
        for _ in 0..cfg.concurrency.max(1).min(total.max(1)) {
            let tx = tx.clone();
            let (cfg, start, date, lines) = (&cfg, &start, &date, &lines);
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || play_jobs(start, cfg, date, lines, queue, stop, &tx));
        }
        drop(tx);
        for done in rx {
            standings.add::<G>(done, &cfg, total, tty, &stop);
        }
    });
    if tty {
        eprintln!();
    }
    print_table(&cfg, &standings.summary);
    standings.finish::<G>(&cfg)?;
    Ok(standings.summary)
}

/// The pairings of engine indices: every engine against the first (gauntlet), else every
/// engine against every other.
fn pairings_of(n: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    }
}

/// The match's games in order: for each game number, one per pairing, colours alternating
/// and each pair of games sharing an opening.
fn schedule(games: u32, pairings: &[(usize, usize)], openings: &[String]) -> VecDeque<Job> {
    let mut jobs = VecDeque::new();
    let mut round = 0;
    for g in 0..games as usize {
        for (pi, &(a, b)) in pairings.iter().enumerate() {
            let pair = g / 2;
            let opening = (!openings.is_empty()).then(|| openings[pair % openings.len()].clone());
            round += 1;
            jobs.push_back(Job {
                round,
                pairing: pi,
                pair,
                players: if g % 2 == 0 { (a, b) } else { (b, a) },
                opening,
            });
        }
    }
    jobs
}

/// The openings' move lines from the standard start, where a GTP engine plays (they are
/// told an opening as moves); empty otherwise.
fn gtp_lines<G: Game>(
    start: &G,
    cfg: &MatchConfig,
    openings: &[String],
) -> Result<HashMap<String, Vec<String>>, String> {
    if !cfg.engines.iter().any(|e| e.proto == Some(Proto::Gtp)) {
        return Ok(Default::default());
    }
    if G::NAME != "othello" {
        return Err(format!("proto=gtp is for Othello engines, not {}", G::NAME));
    }
    lines::lines_to(start, openings)
}

/// A worker thread's loop: plays the queue's games one after another and sends each on,
/// until the queue is empty, the match is stopped (SPRT) or the receiver is gone.
fn play_jobs<G: Game>(
    start: &G,
    cfg: &MatchConfig,
    date: &str,
    lines: &HashMap<String, Vec<String>>,
    queue: &Mutex<VecDeque<Job>>,
    stop: &AtomicBool,
    tx: &mpsc::Sender<Done>,
) {
    loop {
        if stop.load(Relaxed) {
            break;
        }
        let Some(job) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
            break;
        };
        let played = play_job(start, cfg, date, lines, &job);
        if tx.send(Done { job, played }).is_err() {
            break;
        }
    }
}

/// Plays one scheduled game: from its opening (the start where it has none or it does not
/// parse), with the record's tags.
fn play_job<G: Game>(
    start: &G,
    cfg: &MatchConfig,
    date: &str,
    lines: &HashMap<String, Vec<String>>,
    job: &Job,
) -> Played {
    let (a, b) = job.players;
    let (pos, standard) = match &job.opening {
        Some(f) => match start.parse_fen(f) {
            Ok(p) => (p, false),
            Err(_) => (start.clone(), true),
        },
        None => (start.clone(), true),
    };
    let [p1_name, p2_name] = G::SIDES;
    let tags = vec![
        ("Event", cfg.event.clone()),
        ("Site", "tabula match".to_string()),
        ("Date", date.to_string()),
        ("Round", job.round.to_string()),
        (p1_name, cfg.engines[a].name.clone()),
        (p2_name, cfg.engines[b].name.clone()),
        ("TimeControl", cfg.rules.limit.describe()),
    ];
    let default_proto = if G::UCI { Proto::Uci } else { Proto::Ugi };
    referee::play(
        pos,
        standard,
        [&cfg.engines[a], &cfg.engines[b]],
        default_proto,
        &cfg.rules,
        &tags,
        job.opening
            .as_ref()
            .and_then(|f| lines.get(f))
            .map_or(&[][..], |l| &l[..]),
    )
}

/// Reasons of a game's end that are an engine's failure (listed as problems).
const FAILURES: [&str; 7] = [
    "illegal",
    "on time",
    "crashed",
    "hung",
    "failed to start",
    "disconnected",
    "refused",
];

/// What the match keeps as the games come in: the score, the JSON entries, the records file
/// and the HTML report.
struct Standings {
    summary: Summary,
    json_games: Vec<json::GameEntry>,
    /// Half-finished pairs: (pairing, pair) -> score of the pairing's first engine so far.
    pending: HashMap<(usize, usize), f64>,
    records: Option<std::fs::File>,
    report: Option<report::Report>,
    /// Whether a save of the report has failed (said once).
    report_failed: bool,
}

impl Standings {
    /// An empty score; creates the records file and writes the first report.
    fn new<G: Game>(
        cfg: &MatchConfig,
        pairings: &[(usize, usize)],
        date: &str,
        total: usize,
    ) -> Result<Standings, String> {
        let records = match &cfg.records {
            Some(p) => Some(
                std::fs::File::create(p)
                    .map_err(|e| format!("cannot write {}: {e}", p.display()))?,
            ),
            None => None,
        };
        let mut s = Standings {
            summary: Summary {
                tallies: vec![Tally::default(); cfg.engines.len()],
                pairings: pairings
                    .iter()
                    .map(|&(a, b)| (a, b, Tally::default()))
                    .collect(),
                games: 0,
                problems: Vec::new(),
                verdict: None,
            },
            json_games: Vec::new(),
            pending: Default::default(),
            records,
            report: cfg
                .report
                .as_ref()
                .map(|p| report::Report::new(p.clone(), cfg, G::NAME, date, total)),
            report_failed: false,
        };
        if let Some(r) = s.report.as_mut() {
            let (summary, games) = (&s.summary, &s.json_games);
            r.save(|| json::value(cfg, summary, games, G::NAME), false)?;
        }
        Ok(s)
    }

    /// Counts a finished game: the score, its problems, its record and JSON entry, the
    /// progress line (and SPRT's verdict, which stops the match), the report.
    fn add<G: Game>(
        &mut self,
        done: Done,
        cfg: &MatchConfig,
        total: usize,
        tty: bool,
        stop: &AtomicBool,
    ) {
        let Done { job, played } = done;
        self.summary.games += 1;
        let p1_points = self.score(&job, played.result);
        self.note_problems(&job, &played);
        let ename = |i: usize| cfg.engines[i].name.clone();
        self.json_games.push(json::GameEntry {
            round: job.round,
            p1: ename(job.players.0),
            p2: ename(job.players.1),
            opening: job.opening.clone(),
            result: crate::record::result_text(played.result),
            reason: played.reason.clone(),
            plies: played.plies,
            notes: played.notes.clone(),
        });
        let line = self.progress_line(&job, &played, cfg, total, stop);
        if tty {
            eprint!("\r\x1b[K{line}");
        } else {
            eprintln!("{line}");
        }
        self.update_report::<G>(&job, &played, p1_points, cfg);
    }

    /// Adds a game's points to both engines' tallies and its pairing's (pairs when both of
    /// its games are in); returns player 1's points.
    fn score(&mut self, job: &Job, result: Option<GameResult>) -> f64 {
        let (a, b) = job.players;
        let (s1, s2) = match result {
            Some(GameResult::P1Win) => (1.0, 0.0),
            Some(GameResult::P2Win) => (0.0, 1.0),
            _ => (0.5, 0.5),
        };
        for (e, s) in [(a, s1), (b, s2)] {
            self.summary.tallies[e].add(s);
        }
        let (pa, _, ref mut pt) = self.summary.pairings[job.pairing];
        let mine = if a == pa { s1 } else { s2 };
        pt.add(mine);
        match self.pending.remove(&(job.pairing, job.pair)) {
            Some(first) => pt.add_pair(first + mine),
            None => {
                self.pending.insert((job.pairing, job.pair), mine);
            }
        }
        s1
    }

    /// Lists the game's notes and an engine's failure as problems, and writes its record.
    fn note_problems(&mut self, job: &Job, played: &Played) {
        let problems = &mut self.summary.problems;
        for note in &played.notes {
            problems.push(format!("game {}: {note}", job.round));
        }
        if FAILURES.iter().any(|f| played.reason.contains(f)) {
            problems.push(format!("game {}: {}", job.round, played.reason));
        }
        if let Some(f) = self.records.as_mut()
            && f.write_all(played.record.as_bytes()).is_err()
        {
            problems.push("could not write the records file".into());
            self.records = None;
        }
    }

    /// The progress line: the first pairing's standing and the last game; under SPRT, the
    /// LLR, and a verdict stops the match.
    fn progress_line(
        &mut self,
        job: &Job,
        played: &Played,
        cfg: &MatchConfig,
        total: usize,
        stop: &AtomicBool,
    ) -> String {
        let ename = |i: usize| cfg.engines[i].name.clone();
        let (x, y, t) = &self.summary.pairings[0];
        let elo = t.elo().map_or(String::new(), |(e, err)| {
            format!("  Elo {e:+.1} ± {err:.1}")
        });
        let mut line = format!(
            "[{}/{total}] {} vs {}: +{} ={} -{}{elo}  (last: game {} {} {})",
            self.summary.games,
            ename(*x),
            ename(*y),
            t.wins,
            t.draws,
            t.losses,
            job.round,
            crate::record::result_text(played.result),
            played.reason
        );
        if let Some(s) = cfg.sprt {
            let (lo, hi) = s.bounds();
            line.push_str(&format!("  LLR {:.2} ({lo:.2}, {hi:.2})", s.llr(t)));
            let v = s.verdict(t);
            if v != Verdict::Continue && self.summary.verdict.is_none() {
                self.summary.verdict = Some(v);
                stop.store(true, Relaxed);
            }
        }
        line
    }

    /// Adds the game to the HTML report and saves it (a failed save is said once; the match
    /// goes on).
    fn update_report<G: Game>(
        &mut self,
        job: &Job,
        played: &Played,
        p1_points: f64,
        cfg: &MatchConfig,
    ) {
        let Some(r) = self.report.as_mut() else {
            return;
        };
        let facts = report::GameFacts {
            finished: self.summary.games,
            round: job.round,
            pairing: job.pairing,
            first: self.summary.pairings[job.pairing].0,
            players: job.players,
            opening: job.opening.as_deref(),
            p1_points,
            move_ms: &played.move_ms,
        };
        let first = (job.pairing == 0).then_some(&self.summary.pairings[0].2);
        r.add_game(&facts, first, cfg.sprt.as_ref());
        let (summary, games) = (&self.summary, &self.json_games);
        let saved = r.save(|| json::value(cfg, summary, games, G::NAME), false);
        if let Err(e) = saved
            && !self.report_failed
        {
            self.report_failed = true;
            eprintln!("\n{e} (the match goes on; the report is tried again)");
        }
    }

    /// After the last game: the JSON file and the report's final save.
    fn finish<G: Game>(&mut self, cfg: &MatchConfig) -> Result<(), String> {
        if let Some(p) = &cfg.json {
            let text = json::report(cfg, &self.summary, &self.json_games, G::NAME);
            std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        if let Some(r) = self.report.as_mut() {
            let (summary, games) = (&self.summary, &self.json_games);
            r.save(|| json::value(cfg, summary, games, G::NAME), true)?;
        }
        Ok(())
    }
}

fn fmt_elo(e: Option<(f64, f64)>) -> String {
    match e {
        Some((v, err)) if v.is_finite() && err.is_finite() => format!("{v:+.1} ± {err:.1}"),
        Some((v, _)) if v.is_finite() => format!("{v:+.1} ± inf"),
        Some((v, _)) => format!("{}inf", if v > 0.0 { "+" } else { "-" }),
        None => "-".into(),
    }
}

fn print_table(cfg: &MatchConfig, s: &Summary) {
    let mut out = String::new();
    out.push_str(&format!(
        "\n{:<20} {:>6} {:>6} {:>6} {:>6} {:>7}  {}\n",
        "engine", "games", "wins", "draws", "losses", "score", "Elo (95%)"
    ));
    for (i, t) in s.tallies.iter().enumerate() {
        out.push_str(&format!(
            "{:<20} {:>6} {:>6} {:>6} {:>6} {:>6.1}%  {}\n",
            cfg.engines[i].name,
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            t.score() * 100.0,
            fmt_elo(t.elo())
        ));
    }
    for (a, b, t) in &s.pairings {
        if t.games() == 0 {
            continue;
        }
        out.push_str(&format!(
            "\n{} vs {}: +{} ={} -{}  score {:.1}%  Elo {}  nElo {}  LOS {:.1}%\n  pairs [LL, LD, DD+WL, WD, WW] = {:?}\n",
            cfg.engines[*a].name,
            cfg.engines[*b].name,
            t.wins,
            t.draws,
            t.losses,
            t.score() * 100.0,
            fmt_elo(t.elo()),
            fmt_elo(t.nelo()),
            t.los() * 100.0,
            t.penta
        ));
    }
    if let (Some(sprt), Some((_, _, t))) = (cfg.sprt, s.pairings.first()) {
        let (lo, hi) = sprt.bounds();
        out.push_str(&format!(
            "\nSPRT elo0={} elo1={} alpha={} beta={} ({:?}): LLR {:.2} ({lo:.2}, {hi:.2}) -> {}\n",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.model,
            sprt.llr(t),
            match s.verdict {
                Some(Verdict::H1) => "H1 accepted",
                Some(Verdict::H0) => "H0 accepted",
                _ => "undecided",
            }
        ));
    }
    if !s.problems.is_empty() {
        out.push_str(&format!("\n{} problem(s):\n", s.problems.len()));
        for p in &s.problems {
            out.push_str(&format!("  {p}\n"));
        }
    }
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(out.as_bytes()).and_then(|_| so.flush());
}
