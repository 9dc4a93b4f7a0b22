//! The `tabula` command line (clap). With no subcommand: the protocol loop on stdin/stdout
//! for the game chosen with `--game`.

use clap::{Parser, Subcommand, ValueEnum};
use log::error;
use std::io::Write;
use std::process::ExitCode;
use tabula::bits::U256;
use tabula::game::BooksAndSolvers;
use tabula::games::chess::Chess;
use tabula::games::othello::Othello;
use tabula::games::othello::learn_big::BigPatternInputs;
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
pub use cli::choice::GameKind;
use cli::choice::{Board, First, with_game};
#[cfg(feature = "serve")]
use cli::serve;
use cli::{bench, book, corpus, learn, matches, play, solve};

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
    /// The training corpus in the repository: add a datagen file as a new shard, or check
    /// every shard against the manifest.
    Corpus(corpus::CorpusArgs),
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
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Solve exactly. Connect Four: digit strings, one per line (file or stdin), optional
    /// expected score. Othello: .obf lines (--size squares X/O/-, side to move, optional
    /// `; sq:score` answers; file or stdin). Domineering: the start (or --fen) of --rows x
    /// --cols.
    Solve(Box<solve::SolveArgs>),
    /// The search's tunable constants as OpenBench's SPSA workloads read them (`name, int,
    /// value, min, max, c_end, r_end`); a build with `--features tune` (`make TUNE=1`) takes
    /// each as a UCI/UGI option.
    Tune,
}

impl Cli {
    /// The game and board the flags chose.
    fn board(&self) -> Board {
        match self.game {
            GameKind::Chess => Board::Chess,
            GameKind::Connect4 => Board::Connect4 {
                width: self.width,
                height: self.height,
            },
            GameKind::Domineering => Board::Domineering {
                rows: self.rows,
                cols: self.cols,
                first: self.first.side(),
            },
            GameKind::Othello => Board::Othello { size: self.size },
        }
    }
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

/// Runs the command the flags chose (none: the protocol loop).
fn run(mut cli: Cli) -> Result<(), String> {
    let board = cli.board();
    match cli.command.take() {
        None => protocol_loop(&cli, board),
        Some(Cmd::Perft { depth, fen, divide }) => {
            with_game!(board, |p| bench::perft(p, depth, fen.as_deref(), divide))
        }
        Some(Cmd::Datagen(args)) => datagen(&cli, &args),
        Some(Cmd::Book(args)) => match cli.game {
            GameKind::Othello if cli.size == 8 => book::run(&args),
            g => Err(format!(
                "book: the opening book is for 8x8 Othello, not {g:?}"
            )),
        },
        Some(Cmd::Train(args)) => match cli.game {
            GameKind::Chess => train_chess(&args),
            GameKind::Othello if cli.size == 8 => train_othello8(&args),
            GameKind::Othello => train_big_othello(cli.size, *args),
            g => Err(format!(
                "train: no learned evaluation for {g:?} (chess, Othello)"
            )),
        },
        Some(Cmd::Data(args)) => data(&cli, &args),
        Some(Cmd::Corpus(args)) => corpus::run(&args, &learn::read_data),
        Some(Cmd::Bench { depth, all: true }) => bench::bench_all(depth),
        Some(Cmd::Bench { depth, all: false }) => {
            let solver = bench::solver_of(cli.game);
            with_game!(board, |p| bench::bench_one(&p, depth, solver))
        }
        Some(Cmd::Play(args)) => play_game(cli, args),
        #[cfg(feature = "serve")]
        Some(Cmd::Serve(args)) => serve::run(args, cli.game.name()),
        Some(Cmd::Match(args)) => with_game!(board, |p| matches::run(p, *args)),
        Some(Cmd::Solve(args)) => solve::run(board, *args),
        Some(Cmd::Tune) => {
            print_tune_params();
            Ok(())
        }
    }
}

/// No subcommand: the game's protocol loop on stdin/stdout (Othello with `--book-file`).
fn protocol_loop(cli: &Cli, board: Board) -> Result<(), String> {
    let stdin = std::io::stdin();
    // --book-file is Othello's; the other games have no such option and ignore it.
    let book = cli
        .book_file
        .clone()
        .filter(|_| cli.game == GameKind::Othello);
    with_game!(board, |p| {
        let mut p = p;
        if let Some(f) = &book
            && let Some(Err(e)) = p.set_option("BookFile", f)
        {
            return Err(e);
        }
        protocol::run(p, stdin.lock(), Output::stdout())
    });
    Ok(())
}

/// `datagen` for the games with a learned evaluation (chess, Othello of every size).
fn datagen(cli: &Cli, args: &learn::DatagenArgs) -> Result<(), String> {
    match cli.game {
        GameKind::Chess => learn::datagen(Chess::default(), args),
        GameKind::Othello if cli.size == 8 => learn::datagen(Othello::<u64>::new(8)?, args),
        GameKind::Othello if cli.size == 10 => learn::datagen(Othello::<u128>::new(10)?, args),
        GameKind::Othello => learn::datagen(Othello::<U256>::new(cli.size)?, args),
        g => Err(format!(
            "datagen: no learned evaluation for {g:?} (chess, Othello)"
        )),
    }
}

/// `train` for chess: the models hce (default), nnue and nnue-kings.
fn train_chess(args: &learn::TrainArgs) -> Result<(), String> {
    use tabula::games::chess::{hce::HceInputs, learn::NnueInputs, learn::NnueKingInputs};
    match args.model.as_deref().unwrap_or("hce") {
        "hce" => learn::train::<Chess, HceInputs>(Chess::default(), args),
        "nnue" => learn::train::<Chess, NnueInputs>(Chess::default(), args),
        "nnue-kings" => learn::train::<Chess, NnueKingInputs>(Chess::default(), args),
        m => Err(format!(
            "train: chess has models hce, nnue and nnue-kings, not '{m}'"
        )),
    }
}

/// `train` for 8x8 Othello: the model patterns.
fn train_othello8(args: &learn::TrainArgs) -> Result<(), String> {
    match args.model.as_deref().unwrap_or("patterns") {
        "patterns" => learn::train::<Othello<u64>, tabula::games::othello::learn::PatternInputs>(
            Othello::<u64>::new(8)?,
            args,
        ),
        "pattern-net" => learn::train::<
            Othello<u64>,
            tabula::games::othello::learn::PatternNetInputs,
        >(Othello::<u64>::new(8)?, args),
        m => Err(format!(
            "train: 8x8 Othello has the models patterns and pattern-net, not '{m}'"
        )),
    }
}

/// `train` for the big Othello boards (10x10 up): the model patterns; `--init <hand>` starts
/// from the hand-written evaluation as pattern weights.
fn train_big_othello(size: u32, mut args: learn::TrainArgs) -> Result<(), String> {
    match args.model.as_deref().unwrap_or("patterns") {
        "patterns" => {}
        m => return Err(format!("train: Othello has the model patterns, not '{m}'")),
    }
    if args.init.as_deref() != Some(std::path::Path::new("<hand>")) {
        return train_big_patterns(size, &args);
    }
    let path = std::env::temp_dir().join(format!("tabula-othello-hand-{}.bin", std::process::id()));
    let bytes = tabula::games::othello::patterns_hand::network().to_bytes();
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    args.init = Some(path.clone());
    let r = train_big_patterns(size, &args);
    let _ = std::fs::remove_file(&path);
    r
}

/// Trains the big boards' pattern model on a `size` board.
fn train_big_patterns(size: u32, args: &learn::TrainArgs) -> Result<(), String> {
    if size == 10 {
        learn::train::<Othello<u128>, BigPatternInputs>(Othello::new(10)?, args)
    } else {
        learn::train::<Othello<U256>, BigPatternInputs>(Othello::new(size)?, args)
    }
}

/// `data`: merge files, convert PGN games, check a file, or summarise / print one.
fn data(cli: &Cli, args: &learn::DataArgs) -> Result<(), String> {
    if !args.merge.is_empty() {
        return learn::data_merge(args);
    }
    if !args.pgn.is_empty() {
        return match cli.game {
            GameKind::Chess => learn::data_pgn(Chess::default(), args),
            GameKind::Othello if cli.size == 8 => learn::data_pgn(Othello::<u64>::new(8)?, args),
            g => Err(format!(
                "data --pgn: no learned evaluation for {g:?} on this board (chess, 8x8 Othello)"
            )),
        };
    }
    if args.check {
        return learn::data_check(args);
    }
    let data = learn::read_data(&args.file)?;
    match data.header.game.as_str() {
        "chess" => learn::data(Chess::default(), &data, args),
        _ => match data.header.dims.0 as u32 {
            8 => learn::data(Othello::<u64>::new(8)?, &data, args),
            10 => learn::data(Othello::<u128>::new(10)?, &data, args),
            n => learn::data(Othello::<U256>::new(n)?, &data, args),
        },
    }
}

/// `play`: a game at the terminal, on the board of a loaded game where one is given (its
/// `Game` and `Size` tags), else of the flags.
fn play_game(mut cli: Cli, args: play::PlayArgs) -> Result<(), String> {
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
    with_game!(cli.board(), |p| play::run(p, args, record))
}

/// `tune`: the search's tunable constants as OpenBench's SPSA lines.
fn print_tune_params() {
    if !cfg!(feature = "tune") {
        eprintln!(
            "tabula: this build takes none of these as options; build with `cargo build --release --features tune` (or `make TUNE=1`)"
        );
    }
    for p in tabula::search::params::PARAMS {
        say!("{}", p.openbench_line());
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
                GameKind::Othello if cli.size == 10 => {
                    learn::genfens(Othello::<u128>::new(10)?, c)?
                }
                GameKind::Othello => learn::genfens(Othello::<U256>::new(cli.size)?, c)?,
                g => {
                    return Err(format!(
                        "genfens: no self-play data for {g:?} (chess, Othello)"
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

/// The processor check, run by the loader before `main` (`tabula::baseline`: one line naming
/// the features this build needs and the processor lacks, instead of `SIGILL`).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
#[used]
#[unsafe(link_section = ".init_array")]
static BASELINE_CHECK: extern "C" fn() = tabula::baseline::check;

fn main() -> ExitCode {
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    tabula::baseline::check();
    tabula::baseline::pretend_from_env();
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
