//! `tabula solve`: exact solutions, one solver per game. Connect Four: digit strings (file or
//! stdin) or a `--fen` of any size, and its opening book; Othello: .obf lines (file or stdin)
//! or a `--fen`, of any board size; Domineering: the start of --rows x --cols, or a `--fen`.
//! This file owns the arguments: which flags each game takes (any other is refused, by name),
//! and the dispatch to the game's file.

mod checkpoint;
mod connect4;
mod domineering;
mod input;
mod othello;

use super::choice::{Board, GameKind, with_domineering, with_othello};

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// Connect Four and Othello: read positions from this file instead of stdin.
    pub file: Option<std::path::PathBuf>,
    /// Connect Four: only win/draw/loss (-1/0/1) instead of the exact score.
    #[arg(long)]
    pub weak: bool,
    /// Solve this position instead of reading positions (Connect Four, Othello: any size, the
    /// FEN gives it) or instead of the empty board (Domineering).
    #[arg(long)]
    pub fen: Option<String>,
    /// Connect Four: generate the 7x6 opening book (perfect play for both sides) to this
    /// many stones on stdout (`tabula solve --game connect4 --book 10 >
    /// src/games/connect4/book.txt`).
    #[arg(long, value_name = "PLIES")]
    pub book: Option<u32>,
    /// Threads for --book and for every game's solve (1..256; compare with a one-thread
    /// solver at --threads 1). Connect Four solves below 24 empty cells on one, Othello
    /// boards other than 8x8 on one.
    #[arg(long, default_value_t = 2,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: usize,
    /// Connect Four and Domineering: table size in MiB, up to 1048576 (Connect Four: default
    /// 64, 512 for --book and --verify-book; Domineering: the most the table grows to,
    /// default 512 for one thread and 1024 for more). Othello's table has a fixed size.
    #[arg(long, value_name = "MB",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1 << 20))]
    pub hash: Option<usize>,
    /// With --book: take the lines of an earlier (partial) book as they are.
    #[arg(long, value_name = "FILE")]
    pub from: Option<std::path::PathBuf>,
    /// Connect Four: check the opening book (the embedded one, or FILE): every position
    /// either side reaches below its depth is covered, every score and move solved again.
    #[arg(long)]
    pub verify_book: bool,
    /// With --verify-book: solve again only every N-th line (default 1: all).
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub sample: Option<usize>,
    /// Connect Four and Domineering: a resumable solve. The table is loaded from FILE if
    /// it exists (Connect Four: the same --hash; Domineering: the same board, a --hash at
    /// least as large), saved to it every --checkpoint-minutes, when the solve is
    /// interrupted (Ctrl-C, SIGTERM) and when it ends; the same command continues.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<std::path::PathBuf>,
    /// With --checkpoint: minutes between saves (default 10).
    #[arg(long, value_name = "MIN",
          value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub checkpoint_minutes: Option<u64>,
    /// Othello: order the moves and pre-search with this pattern weight file instead of the
    /// embedded one (`<none>`: the hand-written evaluation, no pre-search); the same as
    /// `setoption name EvalFile`. The margins are exact whatever the weights: only the
    /// node counts move.
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<String>,
}

impl SolveArgs {
    /// The flags, by name, with whether each was given.
    fn given(&self) -> [(&'static str, bool); 11] {
        [
            ("FILE", self.file.is_some()),
            ("--weak", self.weak),
            ("--fen", self.fen.is_some()),
            ("--book", self.book.is_some()),
            ("--hash", self.hash.is_some()),
            ("--from", self.from.is_some()),
            ("--verify-book", self.verify_book),
            ("--sample", self.sample.is_some()),
            ("--checkpoint", self.checkpoint.is_some()),
            ("--checkpoint-minutes", self.checkpoint_minutes.is_some()),
            ("--eval-file", self.eval_file.is_some()),
        ]
    }

    /// An error naming the first flag given that `takes` (what `what` takes besides
    /// --threads) does not list; --checkpoint-minutes goes with --checkpoint.
    fn only(&self, what: &str, takes: &[&str]) -> Result<(), String> {
        let taken = |f: &str| {
            takes.contains(&f) || (f == "--checkpoint-minutes" && self.checkpoint.is_some())
        };
        match self.given().into_iter().find(|&(f, on)| on && !taken(f)) {
            None => Ok(()),
            Some(("--checkpoint-minutes", _)) => {
                Err("solve: --checkpoint-minutes goes with --checkpoint".into())
            }
            Some((f, _)) => Err(format!(
                "solve: {f} does not apply to {what} (it takes {}--threads)",
                takes.iter().map(|t| format!("{t}, ")).collect::<String>()
            )),
        }
    }

    /// `--hash`, with 0 or none the solver's `default`.
    fn hash_or(&self, default: usize) -> usize {
        self.hash.filter(|&h| h > 0).unwrap_or(default)
    }

    /// The positions' source: a file or one FEN, not both.
    fn one_source(&self) -> Result<(), String> {
        if self.file.is_some() && self.fen.is_some() {
            return Err("solve: give positions in FILE or one --fen, not both".into());
        }
        Ok(())
    }

    fn checkpoint(&self) -> Option<(&std::path::Path, u64)> {
        let minutes = self.checkpoint_minutes.unwrap_or(10);
        self.checkpoint.as_deref().map(|p| (p, minutes))
    }
}

/// Rows of an Othello FEN (its side): what board it is on.
fn othello_fen_size(fen: &str) -> u32 {
    let rows = fen.split_whitespace().next().unwrap_or("");
    rows.split('/').count().min(64) as u32
}

pub fn run(board: Board, a: SolveArgs) -> Result<(), String> {
    match board {
        Board::Connect4 { width, height } => {
            let start = tabula::games::connect4::Connect4::new(width, height)?;
            if let Some(plies) = a.book {
                a.only("--book", &["--book", "--hash", "--from"])?;
                connect4::connect4_book(plies, a.threads, a.hash_or(512), a.from.as_deref())
            } else if a.verify_book {
                a.only(
                    "--verify-book",
                    &["FILE", "--verify-book", "--hash", "--sample"],
                )?;
                connect4::connect4_verify_book(
                    a.file.as_deref(),
                    a.threads,
                    a.hash_or(512),
                    a.sample.unwrap_or(1),
                )
            } else {
                a.only(
                    "Connect Four",
                    &["FILE", "--weak", "--fen", "--hash", "--checkpoint"],
                )?;
                a.one_source()?;
                connect4::connect4(
                    start,
                    a.file.as_deref(),
                    a.fen.as_deref(),
                    a.weak,
                    a.threads,
                    a.hash_or(64),
                    a.checkpoint(),
                )
            }
        }
        Board::Domineering { rows, cols, first } => {
            a.only("Domineering", &["--fen", "--hash", "--checkpoint"])?;
            with_domineering!(rows, cols, first, |p| domineering::domineering(
                p,
                a.fen.as_deref(),
                a.threads,
                a.hash.unwrap_or(0),
                a.checkpoint()
            ))
        }
        Board::Othello { size } => {
            a.only("Othello", &["FILE", "--fen", "--eval-file"])?;
            a.one_source()?;
            let n = a.fen.as_deref().map_or(size, othello_fen_size);
            with_othello!(n, |p| othello::othello(
                p,
                a.eval_file.as_deref(),
                a.file.as_deref(),
                a.fen.as_deref(),
                a.threads
            ))
        }
        Board::Chess => Err(format!(
            "solve: {} has no exact solver; use --game connect4, othello or domineering",
            GameKind::Chess.name()
        )),
    }
}
