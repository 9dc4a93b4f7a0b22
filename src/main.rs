//! The `tabula` command line (clap). With no subcommand: the protocol loop on stdin/stdout.

use clap::{Parser, Subcommand, ValueEnum};
use log::error;
use std::io::Write;
use std::process::ExitCode;
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::protocol::{self, Output};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum GameKind {
    Chess,
}

#[derive(Parser, Debug)]
#[command(
    name = "tabula",
    version,
    about = "A game engine for chess (UCI), speaking UCI/UGI on stdin/stdout"
)]
struct Cli {
    /// The game to play.
    #[arg(long, value_enum, default_value = "chess", global = true)]
    game: GameKind,
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
    /// Search fixed positions; prints the node signature and speed of each game.
    Bench {
        /// Search depth (default: each game's own).
        #[arg(long)]
        depth: Option<u32>,
        /// Search threads (the signature is defined for 1).
        #[arg(long, default_value_t = 1)]
        threads: usize,
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
            println!("{}: {n}", pos.format_move(m));
            total += n;
        }
        total
    } else {
        tabula::perft::perft_parallel(&pos, depth)
    };
    let ms = t.elapsed().as_millis() as u64;
    println!("Nodes searched: {total}");
    println!("time {ms} ms, {} nps", total * 1000 / ms.max(1));
    Ok(())
}

fn bench_all(depth: Option<u32>, threads: usize) -> Result<(), String> {
    let _ = threads;
    for l in tabula::bench::run_game(&Chess::default(), depth) {
        println!("{l}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = init_log(cli.log_file.as_deref()) {
        eprintln!("tabula: {e}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        None => {
            let stdin = std::io::stdin();
            match cli.game {
                GameKind::Chess => protocol::run(Chess::default(), stdin.lock(), Output::stdout()),
            }
            Ok(())
        }
        Some(Cmd::Perft { depth, fen, divide }) => match cli.game {
            GameKind::Chess => perft(Chess::default(), depth, fen.as_deref(), divide),
        },
        Some(Cmd::Bench { depth, threads }) => bench_all(depth, threads),
    };
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
