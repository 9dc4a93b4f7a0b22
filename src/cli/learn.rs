//! `tabula datagen`, `tabula data` and `tabula train` on the command line: the flags, and
//! their translation into `tabula::learn` calls for the game chosen with `--game`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::othello::Othello;
use tabula::learn::format::{Data, FLAG_EXACT, Header};
use tabula::learn::{Features, Learn, check, datagen, game_data, genfens, pgn, train};

#[derive(clap::Args, Debug)]
pub struct DatagenArgs {
    /// The data file (appended to: an interrupted run resumes where it stopped).
    #[arg(long)]
    pub out: PathBuf,
    /// Games the file should hold when done.
    #[arg(long, default_value_t = 1000)]
    pub games: u32,
    /// Nodes per move (default 5000 unless --depth is given).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Depth per move instead of (or as well as) nodes.
    #[arg(long)]
    pub depth: Option<u32>,
    #[arg(long, default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies before recording (default: the game's own, 8 for chess).
    #[arg(long)]
    pub random_plies: Option<u32>,
    /// Opening positions (FEN or EPD lines) to start the random plies from.
    #[arg(long)]
    pub book: Option<PathBuf>,
    /// Table size per thread, MiB.
    #[arg(long, default_value_t = 16,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub hash: usize,
    /// Plies after which a game still going is scored a draw.
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Milliseconds the exact solver may take per position it labels (games with a solver),
    /// counted on the thread's CPU clock: a paused or busy machine labels the same positions.
    #[arg(long, default_value_t = 500)]
    pub exact_ms: u64,
    /// Empty squares from which the exact solver plays and labels every position (games with
    /// a solver; default the game's own: Othello 18 on 8x8, 14 on the big boards).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub exact_from: Option<u32>,
    /// An engine option for the self-play engine, NAME=VALUE (repeatable), e.g.
    /// --option EvalFile=net.nnue to play with a network not yet embedded.
    #[arg(long = "option")]
    pub options: Vec<String>,
    /// Write position records (TABULAD1, 42 bytes a chess position) instead of whole games
    /// (TABULAG1, 2-4 bytes a position); the trainer reads both.
    #[arg(long)]
    pub positions: bool,
    /// Side lines per game (games with a solver, game files only): from this many of the
    /// positions the exact solver labelled, drawn at random, a random other move than the
    /// best, then the solver's play to the end, every position of it labelled exactly. The
    /// positions a search meets after a poor move, which the games alone never show.
    #[arg(long, default_value_t = 0, conflicts_with = "positions")]
    pub branches: u32,
    /// Start a new file at this game index instead of 0: the next shard of a seed whose games
    /// below it are in earlier shards (`--games` stays the index to stop before). A file that
    /// already holds games resumes after its last one.
    #[arg(long, default_value_t = 0)]
    pub first_game: u32,
}

#[derive(clap::Args, Debug)]
pub struct DataArgs {
    /// A data file (`tabula datagen` writes them): summarised, or with --pgn / --merge the
    /// file games are added to (created if missing).
    pub file: PathBuf,
    /// With --check: more files to check.
    #[arg(requires = "check")]
    pub more: Vec<PathBuf>,
    /// Check FILE... (data, weight files, Othello books, solver checkpoints: told apart by
    /// their first bytes): what is whole, what is damaged and where; exit status 1 if any is.
    #[arg(long, conflicts_with_all = ["pgn", "merge", "text"])]
    pub check: bool,
    /// Print at most this many records as text (`fen | score | label | game | ply | flags`).
    #[arg(long, default_value_t = 0)]
    pub text: usize,
    /// Add the games of these PGN files (fastchess's or OpenBench's DATAGEN output: the score
    /// in each move's comment) to FILE, for the game given with --game.
    #[arg(long, num_args = 1.., conflicts_with = "merge")]
    pub pgn: Vec<PathBuf>,
    /// Add the games of these data files (game-based, other machines' shards) to FILE,
    /// numbered on after its last game.
    #[arg(long, num_args = 1..)]
    pub merge: Vec<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Data files written by `tabula datagen`.
    #[arg(long = "data", required = true)]
    pub data: Vec<PathBuf>,
    /// The weight file to write (rewritten whenever an epoch does better on the held-out games).
    #[arg(long)]
    pub out: PathBuf,
    /// Which of the game's models: chess `nnue` (a network: the
    /// evaluation the engine plays with, embedded or loaded with `EvalFile`), `nnue-kings` (the
    /// same with its inputs by king bucket; `--init` of a `nnue` file copies it into every
    /// bucket) or `hce` (the tuned linear evaluation, `EvalFile=<hce>` or a file); Othello
    /// `patterns` (linear), or on 8x8 `pattern-net` (the patterns with `--hidden` cells over
    /// them, at most 64; `--init` of a `patterns` file starts where it evaluates).
    #[arg(long)]
    pub model: Option<String>,
    /// Accumulator cells per side (the engine evaluates with the size it was built for, the
    /// default); with `--init`, a network of fewer cells is widened to this many (the new
    /// cells start silent).
    #[arg(long, default_value_t = tabula::games::chess::nnue::HIDDEN)]
    pub hidden: usize,
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Positions per step (default: 4096 for a linear model, 16384 for a network).
    #[arg(long)]
    pub batch: Option<usize>,
    /// Adam's learning rate (default: 0.01 for a linear model, 0.001 for a network).
    #[arg(long)]
    pub lr: Option<f32>,
    /// Weight of the game result in the target (the rest: the search score).
    #[arg(long, default_value_t = 0.4)]
    pub lambda: f32,
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start from this network (fine-tuning) instead of random weights.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Use at most this many positions per epoch (0: all).
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// Weight decay per step, as a share of the learning rate (AdamW; 0: none).
    #[arg(long, default_value_t = 0.0)]
    pub decay: f32,
}

fn read_book<G: Game>(start: &G, path: &Option<PathBuf>) -> Result<Vec<String>, String> {
    let Some(p) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    tabula::arena::read_openings(start, &text)
}

pub fn datagen<G: Learn>(start: G, a: &DatagenArgs) -> Result<(), String> {
    let cfg = datagen::Config {
        out: a.out.clone(),
        games: a.games,
        nodes: a
            .nodes
            .or(if a.depth.is_none() { Some(5000) } else { None }),
        depth: a.depth,
        threads: a.threads,
        seed: a.seed,
        random_plies: a.random_plies,
        book: read_book(&start, &a.book)?,
        hash_mib: a.hash,
        options: a
            .options
            .iter()
            .map(|o| {
                o.split_once('=')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .ok_or_else(|| format!("--option '{o}': expected NAME=VALUE"))
            })
            .collect::<Result<_, _>>()?,
        max_plies: a.max_plies,
        exact_ms: a.exact_ms,
        exact_from: a.exact_from,
        positions: a.positions,
        branches: a.branches,
        first_game: a.first_game,
    };
    let tty = std::io::stderr().is_terminal();
    let last_line = std::cell::Cell::new(std::time::Instant::now());
    let progress = |t: &datagen::Totals, first: u32, elapsed: Duration| {
        // On a terminal a line that rewrites itself; in a log one line every 30 s.
        if !tty
            && last_line.get().elapsed() < Duration::from_secs(30)
            && t.games + first as u64 != a.games as u64
        {
            return;
        }
        last_line.set(std::time::Instant::now());
        let done = first as u64 + t.games;
        let secs = elapsed.as_secs_f64().max(1e-3);
        let rate = t.games as f64 / secs;
        let eta = if rate > 0.0 {
            ((a.games as u64).saturating_sub(done) as f64 / rate) as u64
        } else {
            0
        };
        let g = t.games.max(1) as f64;
        let line = format!(
            "games {done}/{} | positions {} ({:.0}/s) | search {:.2} M nodes/s | first player W/D/L {:.0}/{:.0}/{:.0}% | {:.0} plies/game | eta {}h{:02}m",
            a.games,
            t.positions,
            t.positions as f64 / secs,
            t.nodes as f64 / secs / 1e6,
            100.0 * t.wdl[0] as f64 / g,
            100.0 * t.wdl[1] as f64 / g,
            100.0 * t.wdl[2] as f64 / g,
            t.plies as f64 / g,
            eta / 3600,
            eta / 60 % 60
        );
        if tty {
            eprint!("\r{line}   ");
        } else {
            eprintln!("{line}");
        }
    };
    let t = datagen::run(&start, &cfg, &progress)?;
    if tty {
        eprintln!();
    }
    say!(
        "{}: {} games, {} positions ({} exact) added to {}",
        G::NAME,
        t.games,
        t.positions,
        t.exact,
        a.out.display()
    );
    Ok(())
}

/// `tabula "genfens N seed S book B [extra]" quit`, as OpenBench's DATAGEN workers run it:
/// one `info string genfens <fen>` line per opening. A malformed request or an unreadable book
/// is an error before any opening is written (the caller prints it and exits non-zero).
pub fn genfens<G: Learn>(start: G, request: &str) -> Result<(), String> {
    let req = genfens::Request::parse(request)?;
    let book = match &req.book {
        None => Vec::new(),
        Some(b) => {
            read_book(&start, &Some(PathBuf::from(b))).map_err(|e| format!("genfens: book {e}"))?
        }
    };
    genfens::generate(&start, &req, &book, &mut |fen| {
        say!("info string genfens {fen}");
        Ok(())
    })
}

/// `tabula data FILE --pgn GAMES.pgn...`: the PGNs' games appended to FILE as game blocks.
pub fn data_pgn<G: Learn>(start: G, a: &DataArgs) -> Result<(), String> {
    let header = Header {
        game: G::NAME.to_string(),
        dims: start.dims(),
        packed: G::PACKED,
    };
    let (mut writer, mut next) = game_data::GameWriter::open(&a.file, &header)?;
    for note in std::mem::take(&mut writer.notes) {
        eprintln!("{note}");
    }
    for path in &a.pgn {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut blocks = Vec::new();
        let done = pgn::import(&start, &text, next, &mut blocks)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        writer.append(&blocks)?;
        next += done.games as u32;
        say!(
            "{}: {} games, {} positions added to {}; {} games skipped",
            path.display(),
            done.games,
            done.positions,
            a.file.display(),
            done.skipped
        );
        for r in &done.reasons {
            log::warn!("{}: skipped {r}", path.display());
        }
    }
    Ok(())
}

/// `tabula data FILE --merge SHARD...`: the shards' games appended to FILE.
pub fn data_merge(a: &DataArgs) -> Result<(), String> {
    let done = game_data::merge(&a.file, &a.merge)?;
    for note in &done.notes {
        eprintln!("{note}");
    }
    say!("{} games added to {}", done.added, a.file.display());
    Ok(())
}

/// A data file of any format and whatever game it holds (chess, Othello of any size), read into
/// training records; damaged blocks skipped and counted in its `damage`.
pub fn read_data(path: &std::path::Path) -> Result<Data, String> {
    let (header, _) = game_data::peek_header(path)?;
    match (header.game.as_str(), header.dims) {
        ("chess", _) => game_data::read(path, &Chess::default()),
        ("othello", (8, 8)) => game_data::read(path, &Othello::<u64>::new(8)?),
        ("othello", (10, 10)) => game_data::read(path, &Othello::<u128>::new(10)?),
        ("othello", (n, m)) if n == m && (12..=16).contains(&n) => {
            game_data::read(path, &Othello::<tabula::bits::U256>::new(n as u32)?)
        }
        (g, (a, b)) => Err(format!(
            "{}: data of an unknown game '{g}' {a}x{b}",
            path.display()
        )),
    }
}

/// `tabula data --check FILE...`: a report per file on stdout; an error (exit status 1) if
/// any file is damaged.
pub fn data_check(a: &DataArgs) -> Result<(), String> {
    let files: Vec<&PathBuf> = std::iter::once(&a.file).chain(&a.more).collect();
    let mut bad = 0;
    for path in &files {
        if path.is_dir() {
            // A corpus folder: every shard against the manifest.
            if let Err(e) = super::corpus::check(path, &read_data) {
                eprintln!("{e}");
                bad += 1;
            }
            continue;
        }
        let r = check::check(path, &read_data);
        for line in r.lines(path) {
            say!("{line}");
        }
        if !r.ok() {
            bad += 1;
        }
    }
    if bad > 0 {
        return Err(format!("{bad} of {} files damaged", files.len()));
    }
    Ok(())
}

/// Summary and text dump of a data file (the game is the file's own).
pub fn data<G: Learn>(start: G, data: &Data, a: &DataArgs) -> Result<(), String> {
    for note in data.damage.notes(&a.file) {
        eprintln!("{note}");
    }
    let n = data.len();
    let (mut wins, mut draws, mut exact) = (0u64, 0u64, 0u64);
    let mut games = std::collections::BTreeSet::new();
    for i in 0..n {
        let r = data.record(i);
        match r.label.signum() {
            1 => wins += 1,
            0 => draws += 1,
            _ => {}
        }
        if r.flags & FLAG_EXACT != 0 {
            exact += 1;
        }
        games.insert(r.game);
    }
    let range = match (games.first(), games.last()) {
        (Some(a), Some(b)) => format!("; games {a}-{b}"),
        _ => String::new(),
    };
    say!(
        "{} {}x{}: {n} positions from {} games; labels (side to move) + {} = {} - {}; {} exact{range}",
        data.header.game,
        data.header.dims.0,
        data.header.dims.1,
        games.len(),
        wins,
        draws,
        n as u64 - wins - draws,
        exact
    );
    for i in 0..a.text.min(n) {
        let r = data.record(i);
        let pos = start.unpack(r.position)?;
        say!(
            "{} | {} | {} | {} | {} | {}",
            pos.fen(),
            r.score,
            r.label,
            r.game,
            r.ply,
            r.flags
        );
    }
    Ok(())
}

pub fn train<G: Learn, F: Features<G>>(start: G, a: &TrainArgs) -> Result<(), String> {
    let cfg = train::Config {
        data: tabula::learn::compressed::expand(&a.data)?,
        out: a.out.clone(),
        hidden: a.hidden,
        epochs: a.epochs,
        batch: a.batch.unwrap_or(if F::LINEAR { 4096 } else { 16384 }),
        lr: a.lr.unwrap_or(if F::LINEAR { 0.01 } else { 0.001 }),
        lambda: a.lambda,
        threads: a.threads,
        seed: a.seed,
        init: a.init.clone(),
        limit: a.limit,
        decay: a.decay,
    };
    train::run::<G, F>(&start, &cfg, &|line| eprintln!("{line}"))?;
    say!("wrote {}", a.out.display());
    Ok(())
}
