//! The `tabula` command line (clap). With no subcommand: the protocol loop on stdin/stdout
//! for the game chosen with `--game`.

use clap::{Parser, Subcommand, ValueEnum};
use log::error;
use std::io::Write;
use std::process::ExitCode;
use tabula::bits::U256;
use tabula::game::{Game, Oracles};
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;
use tabula::learn::games;
use tabula::protocol::{self, Output};

/// Prints a line to stdout; a closed stdout (`tabula bench | head`) ends the process
/// quietly instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        if writeln!(out, $($arg)*).and_then(|_| out.flush()).is_err() {
            std::process::exit(0);
        }
    }};
}

mod cli;
use cli::{book, learn, matches, play, serve, solve};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameKind {
    Chess,
    Connect4,
    Domineering,
    Othello,
}

/// Runs `$body` with `$pos` bound to an Othello start of the right bit width for the size.
macro_rules! with_othello {
    ($cli:expr, |$pos:ident| $body:expr) => {{
        let n = $cli.size;
        let cells = n.saturating_mul(n);
        if cells <= 64 {
            let $pos = Othello::<u64>::new(n)?;
            $body
        } else if cells <= 128 {
            let $pos = Othello::<u128>::new(n)?;
            $body
        } else {
            let $pos = Othello::<U256>::new(n)?;
            $body
        }
    }};
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum First {
    H,
    V,
}

/// Runs `$body` with `$pos` bound to a Domineering start of the right bit width for the size.
macro_rules! with_domineering {
    ($cli:expr, |$pos:ident| $body:expr) => {{
        let side = match $cli.first {
            First::H => Side::Horizontal,
            First::V => Side::Vertical,
        };
        let (r, c) = ($cli.rows, $cli.cols);
        let cells = r.saturating_mul(c);
        if cells <= 64 {
            let $pos = Domineering::<u64>::new(r, c, side)?;
            $body
        } else if cells <= 128 {
            let $pos = Domineering::<u128>::new(r, c, side)?;
            $body
        } else {
            let $pos = Domineering::<U256>::new(r, c, side)?;
            $body
        }
    }};
}

#[derive(Parser, Debug)]
#[command(
    name = "tabula",
    version,
    about = "A game engine for chess, Othello, Connect Four and Domineering, speaking UCI/UGI/NBoard on stdin/stdout"
)]
struct Cli {
    /// The game to play.
    #[arg(long, value_enum, default_value = "chess", global = true)]
    game: GameKind,
    /// Connect Four: board width (columns).
    #[arg(long, default_value_t = 7, global = true)]
    width: u32,
    /// Connect Four: board height (rows).
    #[arg(long, default_value_t = 6, global = true)]
    height: u32,
    /// Othello: board side (8, 10, 12, 14, 16).
    #[arg(long, default_value_t = 8, global = true)]
    size: u32,
    /// Domineering: rows (1..16).
    #[arg(long, default_value_t = 8, global = true)]
    rows: u32,
    /// Domineering: columns (1..16).
    #[arg(long, default_value_t = 8, global = true)]
    cols: u32,
    /// Domineering: who moves first in the start position (h: Horizontal, v: Vertical).
    #[arg(long, value_enum, default_value = "h", global = true)]
    first: First,
    /// Write the log (RUST_LOG level, default warn) to this file instead of stderr.
    #[arg(long, global = true)]
    log_file: Option<std::path::PathBuf>,
    /// Othello: play from this opening book file and save what NBoard's `learn` adds to it
    /// (created if missing); the same as `setoption name BookFile`.
    #[arg(long, global = true, value_name = "FILE")]
    book_file: Option<String>,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Count leaf nodes of the legal-move tree (move generation check).
    Perft {
        depth: u32,
        /// Start position (FEN); default the game's start.
        #[arg(long)]
        fen: Option<String>,
        /// Print per-move counts.
        #[arg(long)]
        divide: bool,
    },
    /// Search fixed positions of the game (chess unless --game); prints the node signature
    /// and ends with `N nodes N nps` (the form OpenBench reads). --all: every game and solver.
    Bench {
        /// Search depth (default: each game's own).
        #[arg(long)]
        depth: Option<u32>,
        /// Every game's search and solver signatures (what a functional change states).
        #[arg(long)]
        all: bool,
    },
    /// Play a game at the terminal: against the engine, or two people.
    Play(play::PlayArgs),
    /// Self-play data for training: games of the engine against itself from random openings
    /// at a fixed node budget, positions with search scores and results (resumable).
    Datagen(Box<learn::DatagenArgs>),
    /// Summarise a data file, or print its records as text.
    Data(learn::DataArgs),
    /// Train the game's evaluation network on data files; writes a weight file.
    Train(Box<learn::TrainArgs>),
    /// Build or extend the 8x8 Othello opening book (drop-out expansion with fixed-depth
    /// searches) into a book file; the engine uses it with `setoption name BookFile`.
    Book(book::BookArgs),
    /// Play engines against each other (UCI for chess, UGI for every game), refereed by
    /// tabula's rules: clocks, adjudication, Elo, SPRT, PGN / records / JSON.
    Match(Box<matches::MatchArgs>),
    /// A board in the browser for every game: a local web server (127.0.0.1:8080 unless
    /// --host/--port say otherwise) with tabula, or any UCI/UGI engine, as the opponent.
    Serve(serve::ServeArgs),
    /// Solve exactly. Connect Four: digit strings, one per line (file or stdin), optional
    /// expected score. Othello: .obf lines (64 squares X/O/-, side to move, optional
    /// `; sq:score` answers). Domineering: the start (or --fen) of --rows x --cols.
    Solve {
        /// Connect Four: read positions from this file instead of stdin.
        file: Option<std::path::PathBuf>,
        /// Connect Four: only win/draw/loss (-1/0/1) instead of the exact score.
        #[arg(long)]
        weak: bool,
        /// Connect Four (any size: the FEN gives it) and Domineering: solve this position
        /// instead of reading positions (Connect Four) or the empty board (Domineering).
        #[arg(long)]
        fen: Option<String>,
        /// Connect Four: generate the 7x6 opening book (perfect play for both sides) to this
        /// many stones on stdout (`tabula solve --game connect4 --book 10 >
        /// src/games/connect4/book.txt`).
        #[arg(long, value_name = "PLIES")]
        book: Option<u32>,
        /// Threads for --book and for every game's solve (1..256; compare with a one-thread
        /// solver at --threads 1). Connect Four solves below 24 empty cells on one.
        #[arg(long, default_value_t = 2,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
        threads: usize,
        /// Table size in MiB, up to 1048576 (Connect Four: default 64, 512 for --book and
        /// --verify-book; Domineering: the most the table grows to, default 512 for one
        /// thread and 1024 for more).
        #[arg(long, value_name = "MB", default_value_t = 0,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1 << 20))]
        hash: usize,
        /// With --book: take the lines of an earlier (partial) book as they are.
        #[arg(long, value_name = "FILE")]
        from: Option<std::path::PathBuf>,
        /// Connect Four: check the opening book (the embedded one, or FILE): every position
        /// either side reaches below its depth is covered, every score and move solved again.
        #[arg(long)]
        verify_book: bool,
        /// With --verify-book: solve again only every N-th line (1: all).
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        sample: usize,
        /// Connect Four and Domineering: a resumable solve. The table is loaded from FILE if
        /// it exists (Connect Four: the same --hash; Domineering: the same board, a --hash at
        /// least as large), saved to it every --checkpoint-minutes, when the solve is
        /// interrupted (Ctrl-C, SIGTERM) and when it ends; the same command continues.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<std::path::PathBuf>,
        #[arg(long, value_name = "MIN", default_value_t = 10,
              value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
        checkpoint_minutes: u64,
    },
}

fn init_log(file: Option<&std::path::Path>) -> Result<(), String> {
    let mut b = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(path) = file {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("cannot open log file {}: {e}", path.display()))?;
        b.target(env_logger::Target::Pipe(Box::new(f)));
    }
    b.init();
    Ok(())
}

fn perft<G: Game>(start: G, depth: u32, fen: Option<&str>, divide: bool) -> Result<(), String> {
    let pos = match fen {
        Some(f) => start.parse_fen(f)?,
        None => start,
    };
    let t = std::time::Instant::now();
    let total = if divide {
        let mut total = 0;
        for (m, n) in tabula::perft::divide(&pos, depth) {
            say!("{}: {n}", pos.format_move(m));
            total += n;
        }
        total
    } else {
        tabula::perft::perft_parallel(&pos, depth)
    };
    let ms = t.elapsed().as_millis() as u64;
    say!("Nodes searched: {total}");
    say!("time {ms} ms, {} nps", total * 1000 / ms.max(1));
    Ok(())
}

/// One game's bench: its search signature (and its solver's), then the search's total nodes
/// and speed as the last line, `N nodes N nps`, which OpenBench reads.
fn bench_one<G: Game>(
    template: &G,
    depth: Option<u32>,
    solver: fn() -> Vec<String>,
) -> Result<(), String> {
    let d = depth.unwrap_or(G::BENCH_DEPTH);
    let r = tabula::bench::bench(template, G::bench_fens(), d)
        .map_err(|e| format!("bench: {e} (the bench positions are for the standard board)"))?;
    for l in tabula::bench::describe(G::NAME, d, &r) {
        say!("{l}");
    }
    for l in solver() {
        say!("{l}");
    }
    say!("{} nodes {} nps", r.nodes, r.nodes * 1000 / r.ms.max(1));
    Ok(())
}

fn bench_all(depth: Option<u32>) -> Result<(), String> {
    let mut lines = tabula::bench::run_game(&Chess::default(), depth);
    lines.extend(tabula::bench::run_game(&Connect4::default(), depth));
    lines.extend(tabula::games::connect4::bench_solver());
    let dom = Domineering::<u64>::new(8, 8, Side::Horizontal)?;
    lines.extend(tabula::bench::run_game(&dom, depth));
    lines.extend(tabula::games::domineering::bench_solver());
    lines.extend(tabula::bench::run_game(&Othello::<u64>::new(8)?, depth));
    lines.extend(tabula::games::othello::bench_solver());
    for l in lines {
        say!("{l}");
    }
    Ok(())
}

fn run(mut cli: Cli) -> Result<(), String> {
    let c4 = || Connect4::new(cli.width, cli.height);
    match cli.command.take() {
        None => {
            let stdin = std::io::stdin();
            match cli.game {
                GameKind::Chess => protocol::run(Chess::default(), stdin.lock(), Output::stdout()),
                GameKind::Connect4 => protocol::run(c4()?, stdin.lock(), Output::stdout()),
                GameKind::Domineering => {
                    with_domineering!(cli, |p| protocol::run(p, stdin.lock(), Output::stdout()))
                }
                GameKind::Othello => {
                    let book = cli.book_file.clone();
                    with_othello!(cli, |p| {
                        let mut p = p;
                        if let Some(f) = &book
                            && let Some(Err(e)) = p.set_option("BookFile", f)
                        {
                            return Err(e);
                        }
                        protocol::run(p, stdin.lock(), Output::stdout())
                    })
                }
            }
            Ok(())
        }
        Some(Cmd::Perft { depth, fen, divide }) => match cli.game {
            GameKind::Chess => perft(Chess::default(), depth, fen.as_deref(), divide),
            GameKind::Connect4 => perft(c4()?, depth, fen.as_deref(), divide),
            GameKind::Domineering => {
                with_domineering!(cli, |p| perft(p, depth, fen.as_deref(), divide))
            }
            GameKind::Othello => with_othello!(cli, |p| perft(p, depth, fen.as_deref(), divide)),
        },
        Some(Cmd::Datagen(args)) => match cli.game {
            GameKind::Chess => learn::datagen(Chess::default(), &args),
            GameKind::Othello if cli.size == 8 => learn::datagen(Othello::<u64>::new(8)?, &args),
            g => Err(format!(
                "datagen: no learned evaluation for {g:?} on this board (chess, 8x8 Othello)"
            )),
        },
        Some(Cmd::Book(args)) => match cli.game {
            GameKind::Othello if cli.size == 8 => book::run(&args),
            g => Err(format!(
                "book: the opening book is for 8x8 Othello, not {g:?}"
            )),
        },
        Some(Cmd::Train(args)) => match cli.game {
            GameKind::Chess => match args.model.as_deref().unwrap_or("hce") {
                "hce" => learn::train::<Chess, tabula::games::chess::hce::HceInputs>(
                    Chess::default(),
                    &args,
                ),
                "nnue" => learn::train::<Chess, tabula::games::chess::learn::NnueInputs>(
                    Chess::default(),
                    &args,
                ),
                m => Err(format!("train: chess has models hce and nnue, not '{m}'")),
            },
            GameKind::Othello if cli.size == 8 => match args.model.as_deref().unwrap_or("patterns")
            {
                "patterns" => learn::train::<
                    Othello<u64>,
                    tabula::games::othello::learn::PatternInputs,
                >(Othello::<u64>::new(8)?, &args),
                m => Err(format!(
                    "train: 8x8 Othello has the model patterns, not '{m}'"
                )),
            },
            g => Err(format!(
                "train: no learned evaluation for {g:?} on this board (chess, 8x8 Othello)"
            )),
        },
        Some(Cmd::Data(args)) if !args.merge.is_empty() => learn::data_merge(&args),
        Some(Cmd::Data(args)) if !args.pgn.is_empty() => match cli.game {
            GameKind::Chess => learn::data_pgn(Chess::default(), &args),
            GameKind::Othello if cli.size == 8 => learn::data_pgn(Othello::<u64>::new(8)?, &args),
            g => Err(format!(
                "data --pgn: no learned evaluation for {g:?} on this board (chess, 8x8 Othello)"
            )),
        },
        Some(Cmd::Data(args)) => {
            let (header, _) = games::peek_header(&args.file)?;
            match (header.game.as_str(), header.dims) {
                ("chess", _) => {
                    let start = Chess::default();
                    learn::data(start.clone(), &games::read(&args.file, &start)?, &args)
                }
                ("othello", (8, 8)) => {
                    let start = Othello::<u64>::new(8)?;
                    learn::data(start.clone(), &games::read(&args.file, &start)?, &args)
                }
                (g, (a, b)) => Err(format!(
                    "{}: data of an unknown game '{g}' {a}x{b}",
                    args.file.display()
                )),
            }
        }
        Some(Cmd::Bench { depth, all: true }) => bench_all(depth),
        Some(Cmd::Bench { depth, all: false }) => match cli.game {
            GameKind::Chess => bench_one(&Chess::default(), depth, Vec::new),
            GameKind::Connect4 => bench_one(&c4()?, depth, tabula::games::connect4::bench_solver),
            GameKind::Domineering => with_domineering!(cli, |p| bench_one(
                &p,
                depth,
                tabula::games::domineering::bench_solver
            )),
            GameKind::Othello => with_othello!(cli, |p| bench_one(
                &p,
                depth,
                tabula::games::othello::bench_solver
            )),
        },
        Some(Cmd::Play(args)) => {
            let record = play::loaded(&args)?;
            let saved_game = record
                .as_ref()
                .map(|r| r.tag("Game").unwrap_or("chess").to_string());
            if let Some(g) = args.which {
                cli.game = g;
            } else if let Some(g) = &saved_game {
                cli.game = GameKind::from_str(g, true)
                    .map_err(|_| format!("the saved game is of an unknown game '{g}'"))?;
            }
            if let Some(size) = record.as_ref().and_then(|r| r.tag("Size")) {
                let nums: Vec<u32> = size.split('x').filter_map(|n| n.parse().ok()).collect();
                match (cli.game, nums.as_slice()) {
                    (GameKind::Connect4, [w, h]) => (cli.width, cli.height) = (*w, *h),
                    (GameKind::Domineering, [r, c]) => (cli.rows, cli.cols) = (*r, *c),
                    (GameKind::Othello, [n]) => cli.size = *n,
                    _ => {
                        return Err(format!(
                            "the saved game's size '{size}' does not fit a {:?} board",
                            cli.game
                        ));
                    }
                }
            }
            let c4 = || Connect4::new(cli.width, cli.height);
            match cli.game {
                GameKind::Chess => play::run(Chess::default(), args, record),
                GameKind::Connect4 => play::run(c4()?, args, record),
                GameKind::Domineering => with_domineering!(cli, |p| play::run(p, args, record)),
                GameKind::Othello => with_othello!(cli, |p| play::run(p, args, record)),
            }
        }
        Some(Cmd::Serve(args)) => serve::run(
            args,
            match cli.game {
                GameKind::Chess => "chess",
                GameKind::Connect4 => "connect4",
                GameKind::Domineering => "domineering",
                GameKind::Othello => "othello",
            },
        ),
        Some(Cmd::Match(args)) => match cli.game {
            GameKind::Chess => matches::run(Chess::default(), *args),
            GameKind::Connect4 => matches::run(c4()?, *args),
            GameKind::Domineering => with_domineering!(cli, |p| matches::run(p, *args)),
            GameKind::Othello => with_othello!(cli, |p| matches::run(p, *args)),
        },
        Some(Cmd::Solve {
            file,
            weak,
            fen,
            book,
            threads,
            hash,
            from,
            verify_book,
            sample,
            checkpoint,
            checkpoint_minutes,
        }) => match cli.game {
            GameKind::Connect4 => match book {
                Some(plies) => solve::connect4_book(
                    plies,
                    threads,
                    if hash == 0 { 512 } else { hash },
                    from.as_deref(),
                ),
                None if verify_book => solve::connect4_verify_book(
                    file.as_deref(),
                    threads,
                    if hash == 0 { 512 } else { hash },
                    sample,
                ),
                None => solve::connect4(
                    c4()?,
                    file.as_deref(),
                    fen.as_deref(),
                    weak,
                    threads,
                    if hash == 0 { 64 } else { hash },
                    checkpoint.as_deref().map(|p| (p, checkpoint_minutes)),
                ),
            },
            GameKind::Domineering => {
                with_domineering!(cli, |p| solve::domineering(
                    p,
                    fen.as_deref(),
                    threads,
                    hash,
                    checkpoint.as_deref().map(|p| (p, checkpoint_minutes))
                ))
            }
            GameKind::Othello => solve::othello(Othello::<u64>::new(8)?, file.as_deref(), threads),
            GameKind::Chess => Err(
                "solve: chess has no exact solver; use --game connect4, othello or domineering"
                    .into(),
            ),
        },
    }
}

/// Commands given as arguments, the way OpenBench runs engines
/// (`tabula "genfens 8 seed 1 book None" "quit"`): everything from the first argument whose
/// first word is `genfens`. The arguments before it are the usual flags (`--game`).
fn argument_commands() -> Option<(Vec<String>, Vec<String>)> {
    let args: Vec<String> = std::env::args().collect();
    let at = args
        .iter()
        .skip(1)
        .position(|a| a.split_whitespace().next() == Some("genfens"))?;
    Some((args[..=at].to_vec(), args[at + 1..].to_vec()))
}

/// Runs the argument commands: `genfens ...` and `quit` (which ends the list). Errors are one
/// `info string error:` line on stdout (the worker reads stdout) and a log line.
fn run_argument_commands(cli: &Cli, commands: &[String]) -> Result<(), String> {
    for c in commands {
        let word = c.split_whitespace().next().unwrap_or("");
        match word {
            "quit" => break,
            "genfens" => match cli.game {
                GameKind::Chess => learn::genfens(Chess::default(), c)?,
                GameKind::Othello if cli.size == 8 => learn::genfens(Othello::<u64>::new(8)?, c)?,
                g => {
                    return Err(format!(
                        "genfens: no self-play data for {g:?} on this board (chess, 8x8 Othello)"
                    ));
                }
            },
            _ => {
                return Err(format!(
                    "unknown argument command '{c}' (expected: \"genfens N seed S book B\" \"quit\")"
                ));
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    if let Some((flags, commands)) = argument_commands() {
        let cli = Cli::parse_from(flags);
        if let Err(e) = init_log(cli.log_file.as_deref()) {
            eprintln!("tabula: {e}");
            return ExitCode::FAILURE;
        }
        return match run_argument_commands(&cli, &commands) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                say!("info string error: {e}");
                error!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    let cli = Cli::parse();
    if let Err(e) = init_log(cli.log_file.as_deref()) {
        eprintln!("tabula: {e}");
        return ExitCode::FAILURE;
    }
    let result = run(cli);
    let _ = std::io::stdout().flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e}");
            eprintln!("tabula: {e}");
            ExitCode::FAILURE
        }
    }
}
