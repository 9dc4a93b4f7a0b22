//! The `tabula` command line (clap). With no subcommand: the protocol loop on stdin/stdout
//! for the game chosen with `--game`.

use clap::{Parser, Subcommand, ValueEnum};
use log::error;
use std::io::Write;
use std::process::ExitCode;
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
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

mod solve;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GameKind {
    Chess,
    Connect4,
}

#[derive(Parser, Debug)]
#[command(
    name = "tabula",
    version,
    about = "A game engine for chess and Connect Four, speaking UCI/UGI on stdin/stdout"
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
    /// Write the log (RUST_LOG level, default warn) to this file instead of stderr.
    #[arg(long, global = true)]
    log_file: Option<std::path::PathBuf>,
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
    /// Search fixed positions of every game; prints node signatures and speed.
    Bench {
        /// Search depth (default: each game's own).
        #[arg(long)]
        depth: Option<u32>,
    },
    /// Solve positions exactly (Connect Four: one digit string per line, optional expected score).
    Solve {
        /// Read positions from this file instead of stdin.
        file: Option<std::path::PathBuf>,
        /// Only win/draw/loss (-1/0/1) instead of the exact score.
        #[arg(long)]
        weak: bool,
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

fn bench_all(depth: Option<u32>) -> Result<(), String> {
    let mut lines = tabula::bench::run_game(&Chess::default(), depth);
    lines.extend(tabula::bench::run_game(&Connect4::default(), depth));
    lines.extend(tabula::games::connect4::bench_solver());
    for l in lines {
        say!("{l}");
    }
    Ok(())
}

fn run(cli: Cli) -> Result<(), String> {
    let c4 = || Connect4::new(cli.width, cli.height);
    match cli.command {
        None => {
            let stdin = std::io::stdin();
            match cli.game {
                GameKind::Chess => protocol::run(Chess::default(), stdin.lock(), Output::stdout()),
                GameKind::Connect4 => protocol::run(c4()?, stdin.lock(), Output::stdout()),
            }
            Ok(())
        }
        Some(Cmd::Perft { depth, fen, divide }) => match cli.game {
            GameKind::Chess => perft(Chess::default(), depth, fen.as_deref(), divide),
            GameKind::Connect4 => perft(c4()?, depth, fen.as_deref(), divide),
        },
        Some(Cmd::Bench { depth }) => bench_all(depth),
        Some(Cmd::Solve { file, weak }) => match cli.game {
            GameKind::Connect4 => solve::connect4(c4()?, file.as_deref(), weak),
            GameKind::Chess => Err("solve: chess has no exact solver; use --game connect4".into()),
        },
    }
}

fn main() -> ExitCode {
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
