//! `tabula play` on the command line: the flags, loading a saved game (its `[Game]` and
//! `[Size]` tags choose the game and board), and starting the session on the terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use tabula::play::render::{Show, Style};
use tabula::play::{PlayConfig, Session};
use tabula::record::Record;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    First,
    Second,
    Both,
    None,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controller {
    Human,
    Engine,
}

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// The game (default: --game, or the saved game's with --load).
    #[arg(value_enum, value_name = "GAME")]
    pub which: Option<crate::GameKind>,
    /// Which side(s) the people play.
    #[arg(long, value_enum, default_value = "first")]
    pub human: Who,
    /// Who plays player 1 (White, Black in Othello, Red, Horizontal); overrides --human.
    #[arg(long, value_enum)]
    pub white: Option<Controller>,
    /// Who plays player 2; overrides --human.
    #[arg(long, value_enum)]
    pub black: Option<Controller>,
    /// Engine thinking time per move, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// Engine search depth per move (instead of --movetime).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Engine skill level, 0 (weakest) to 20 (full strength).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=20))]
    pub level: u32,
    /// Start from this position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Continue a saved game (PGN for chess, a tabula record for the others).
    #[arg(long)]
    pub load: Option<PathBuf>,
    /// Save the game here when it ends (and on `save` without a file name).
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Letters instead of Unicode pieces and discs.
    #[arg(long)]
    pub ascii: bool,
    /// Othello: mark the legal moves on the board.
    #[arg(long)]
    pub show_moves: bool,
}

/// The first record of a saved game, if `--load` was given.
pub fn loaded(a: &PlayArgs) -> Result<Option<Record>, String> {
    let Some(p) = &a.load else { return Ok(None) };
    let text =
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    let mut all = Record::parse_all(&text)?;
    if all.is_empty() {
        return Err(format!("{} holds no game", p.display()));
    }
    Ok(Some(all.swap_remove(0)))
}

pub fn run<G: Show>(start: G, a: PlayArgs, record: Option<Record>) -> Result<(), String> {
    let (start, fen_moves) = match &record {
        Some(r) => {
            let s = match r.tag("FEN") {
                Some(f) => start.parse_fen(f).map_err(|e| format!("saved game: {e}"))?,
                None => start,
            };
            (s, r.moves.clone())
        }
        None => match &a.fen {
            Some(f) => (start.parse_fen(f)?, Vec::new()),
            None => (start, Vec::new()),
        },
    };
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for (i, text) in fen_moves.iter().enumerate() {
        let m = pos
            .parse_human(text)
            .map_err(|e| format!("saved game, move {}: {e}", i + 1))?;
        pos.play(m);
        moves.push(m);
    }
    let mut human = match a.human {
        Who::First => [true, false],
        Who::Second => [false, true],
        Who::Both => [true, true],
        Who::None => [false, false],
    };
    if let Some(w) = a.white {
        human[0] = w == Controller::Human;
    }
    if let Some(b) = a.black {
        human[1] = b == Controller::Human;
    }
    let tty = std::io::stdout().is_terminal();
    let color = tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let cfg = PlayConfig {
        human,
        movetime: a.movetime.max(1),
        depth: a.depth,
        level: a.level,
        style: Style {
            color,
            unicode: !a.ascii && (tty || std::env::var_os("TABULA_UNICODE").is_some()),
            show_moves: a.show_moves,
        },
        save: a.save,
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut s = Session::new(start, moves, cfg, stdin.lock(), &mut out);
    s.run();
    Ok(())
}
