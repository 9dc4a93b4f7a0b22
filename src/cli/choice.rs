//! The game and board a command chose (`--game` and its size flags, or a page's request), and
//! the one dispatch from that choice to generic code: `with_game!` binds the chosen start
//! position, of its concrete type (the right bit width for the board's size), and runs a body
//! written once for every `G: Game`.

use clap::ValueEnum;
use tabula::games::domineering::board::Side;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameKind {
    Chess,
    Connect4,
    Domineering,
    Othello,
}

impl GameKind {
    /// The name `--game` takes.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Chess => "chess",
            GameKind::Connect4 => "connect4",
            GameKind::Domineering => "domineering",
            GameKind::Othello => "othello",
        }
    }
}

/// Who moves first in a Domineering start (`--first`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum First {
    H,
    V,
}

impl First {
    pub fn side(self) -> Side {
        match self {
            First::H => Side::Horizontal,
            First::V => Side::Vertical,
        }
    }
}

/// A game on a board of a given size: everything needed to build its start position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    Chess,
    Connect4 { width: u32, height: u32 },
    Domineering { rows: u32, cols: u32, first: Side },
    Othello { size: u32 },
}

/// Runs `$body` with `$pos` bound to an Othello start of side `$n`, of the bit width that
/// its cells need; `?` on an unsupported size.
macro_rules! with_othello {
    ($n:expr, |$pos:ident| $body:expr) => {{
        let n: u32 = $n;
        let cells = n.saturating_mul(n);
        if cells <= 64 {
            let $pos = ::tabula::games::othello::Othello::<u64>::new(n)?;
            $body
        } else if cells <= 128 {
            let $pos = ::tabula::games::othello::Othello::<u128>::new(n)?;
            $body
        } else {
            let $pos = ::tabula::games::othello::Othello::<::tabula::bits::U256>::new(n)?;
            $body
        }
    }};
}

/// Runs `$body` with `$pos` bound to a Domineering start of `$rows` x `$cols` with `$first`
/// to move, of the bit width that its cells need.
macro_rules! with_domineering {
    ($rows:expr, $cols:expr, $first:expr, |$pos:ident| $body:expr) => {{
        let (r, c, first): (u32, u32, ::tabula::games::domineering::board::Side) =
            ($rows, $cols, $first);
        let cells = r.saturating_mul(c);
        if cells <= 64 {
            let $pos = ::tabula::games::domineering::Domineering::<u64>::new(r, c, first)?;
            $body
        } else if cells <= 128 {
            let $pos = ::tabula::games::domineering::Domineering::<u128>::new(r, c, first)?;
            $body
        } else {
            let $pos = ::tabula::games::domineering::Domineering::<::tabula::bits::U256>::new(
                r, c, first,
            )?;
            $body
        }
    }};
}

/// Runs `$body` with `$pos` bound to the start position of `$board` (a `Board`), whatever the
/// game: the body is generic code (`run(pos)` for a `fn run<G: Game>(start: G)`), expanded
/// once for each concrete game type. `?` on a board its game cannot have.
macro_rules! with_game {
    ($board:expr, |$pos:ident| $body:expr) => {{
        match $board {
            $crate::cli::choice::Board::Chess => {
                let $pos = ::tabula::games::chess::Chess::default();
                $body
            }
            $crate::cli::choice::Board::Connect4 { width, height } => {
                let $pos = ::tabula::games::connect4::Connect4::new(width, height)?;
                $body
            }
            $crate::cli::choice::Board::Domineering { rows, cols, first } => {
                $crate::cli::choice::with_domineering!(rows, cols, first, |$pos| $body)
            }
            $crate::cli::choice::Board::Othello { size } => {
                $crate::cli::choice::with_othello!(size, |$pos| $body)
            }
        }
    }};
}

pub(crate) use {with_domineering, with_game, with_othello};
