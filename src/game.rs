//! The `Game` trait: everything the generic search, the protocol layer and the tools need to know
//! about a two-player, perfect-information game — and nothing about how it is searched.
//!
//! Conventions every implementation keeps:
//! - Positions are copy-make: the search clones a position and calls `play` on the clone.
//! - `evaluate` and every `Outcome` are from the point of view of the side to move.
//! - `move_key` is a non-zero `u16` that identifies a move within one position (0 means "none"
//!   in the transposition table); `history_key` is below `HISTORY_SIZE`.
//! - `hash` changes whenever the position or the side to move changes.

use std::fmt::Debug;

/// Size of the history-heuristic table; `Game::history_key` must stay below it.
pub const HISTORY_SIZE: usize = 4096;
/// Keys of continuation history; `Game::cont_key` must stay below `CONT_SIZE - 1` (the last
/// key stands for "no move").
pub const CONT_SIZE: usize = 1024;

/// The two players. `P1` moves first from the standard start (White, Black in Othello, Red,
/// Horizontal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    P1,
    P2,
}

impl Player {
    pub fn index(self) -> usize {
        match self {
            Player::P1 => 0,
            Player::P2 => 1,
        }
    }
    pub fn other(self) -> Player {
        match self {
            Player::P1 => Player::P2,
            Player::P2 => Player::P1,
        }
    }
}

/// A finished game, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

/// A finished game, seen from outside (UGI `query result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    P1Win,
    P2Win,
    Draw,
}

impl GameResult {
    /// Converts an outcome for `to_move` into an absolute result.
    pub fn from_outcome(outcome: Outcome, to_move: Player) -> GameResult {
        match (outcome, to_move) {
            (Outcome::Draw, _) => GameResult::Draw,
            (Outcome::Win, Player::P1) | (Outcome::Loss, Player::P2) => GameResult::P1Win,
            (Outcome::Win, Player::P2) | (Outcome::Loss, Player::P1) => GameResult::P2Win,
        }
    }
}

/// An exact result found by a game's own solver, in search units (see `search::MATE`).
#[derive(Clone, Debug)]
pub struct Solved<M> {
    /// From the side to move: `MATE - n` a win in n plies, `-(MATE - n)` a loss, 0 a draw.
    pub score: i32,
    pub best: M,
    pub nodes: u64,
    /// The game's own score convention, for `info string` (e.g. Connect Four's test-set score).
    pub note: String,
}

/// A move from a game's opening book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove<M> {
    pub mv: M,
    /// For the side making the move, in the game's score units.
    pub score: i32,
    /// The depth its value was searched to.
    pub depth: u32,
    /// Games learned through it.
    pub games: u32,
}

/// A game-specific engine option (beyond the engine's own), as announced by `uci`/`ugi`.
#[derive(Clone, Debug)]
pub struct GameOption {
    pub name: &'static str,
    /// The UCI option declaration after the name, e.g. `type check default false`.
    pub declaration: &'static str,
}

pub trait Game: Clone + Send + Sync + 'static {
    type Move: Copy + Eq + Send + Sync + Debug + 'static;

    /// Short lower-case name (`chess`, `othello`, ...).
    const NAME: &'static str;
    /// Whether the search may try a null move (the game has a meaningful "pass").
    const NULL_MOVE: bool = false;
    /// Margin per ply of depth for reverse futility pruning, in evaluation units; 0 disables it.
    const FUTILITY_MARGIN: i32 = 0;

    fn to_move(&self) -> Player;
    /// All legal moves, into `out` (cleared first). A game whose side may have to pass returns
    /// its pass move here; an empty list means the game is over (see `outcome_without_moves`).
    fn legal_moves(&self, out: &mut Vec<Self::Move>);
    /// The moves quiescence search looks at (captures, promotions); none by default.
    fn tactical_moves(&self, out: &mut Vec<Self::Move>) {
        out.clear();
    }
    fn play(&mut self, mv: Self::Move);
    /// Number of moves perft counts here (bulk count at the last ply): the legal moves, or 1
    /// when `perft_pass` applies.
    fn count_moves(&self) -> u64 {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        if moves.is_empty() && self.perft_pass().is_some() {
            return 1;
        }
        moves.len() as u64
    }

    /// Leaf count of the legal-move tree to `depth` (override for a faster special case that
    /// must count the same).
    fn perft(&self, depth: u32) -> u64 {
        crate::perft::generic(self, depth)
    }

    /// Perft convention of games whose published counts keep passing after the game ended
    /// (Othello): the move perft plays where no legal move is left.
    fn perft_pass(&self) -> Option<Self::Move> {
        None
    }
    /// The position after passing, when the game allows the search to try it here.
    fn null_move(&self) -> Option<Self> {
        None
    }
    fn hash(&self) -> u64;
    /// A result known without generating moves (a four in a row, the 50-move rule, ...).
    fn terminal(&self) -> Option<Outcome>;
    /// The result when `legal_moves` is empty.
    fn outcome_without_moves(&self) -> Outcome;
    /// Static evaluation for the side to move (chess: centipawns).
    fn evaluate(&self) -> i32;
    fn in_check(&self) -> bool {
        false
    }
    /// Captures and promotions: searched in quiescence, never reduced, no killers/history.
    fn is_tactical(&self, _mv: Self::Move) -> bool {
        false
    }
    /// Static ordering score of a move (MVV-LVA for captures, centre columns, corners...).
    fn order_score(&self, _mv: Self::Move) -> i32 {
        0
    }
    fn move_key(mv: Self::Move) -> u16;
    fn history_key(&self, mv: Self::Move) -> usize;
    /// What a move does, for continuation history (chess: piece and destination); below
    /// `CONT_SIZE - 1`.
    fn cont_key(&self, mv: Self::Move) -> usize {
        self.history_key(mv) % (CONT_SIZE - 1)
    }
    /// What a tactical move takes (chess: the captured piece), below 8.
    fn victim(&self, _mv: Self::Move) -> usize {
        0
    }
    /// Static exchange evaluation: does `mv` gain at least `threshold` (evaluation units)
    /// once the exchanges on its square are played out? Games without one answer true.
    fn see_ge(&self, _mv: Self::Move, _threshold: i32) -> bool {
        true
    }
    /// A key of the position's slow-changing structure (chess: the pawns) under which the
    /// search learns corrections to the static evaluation; 0 where there is none.
    fn structure_key(&self) -> u64 {
        0
    }
    /// How many plies back a repetition may be found (0: repetitions cannot happen).
    fn reversible_plies(&self) -> usize {
        0
    }

    /// Parses a move in this game's protocol notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, String>;
    /// Formats a legal move of this position in protocol notation.
    fn format_move(&self, mv: Self::Move) -> String;
    /// Parses a FEN; `self` supplies board dimensions and options.
    fn parse_fen(&self, fen: &str) -> Result<Self, String>;
    fn fen(&self) -> String;
    /// A human-readable board diagram for `d`.
    fn diagram(&self) -> String;

    /// Depth and FENs of this game's `bench` positions.
    const BENCH_DEPTH: u32 = 1;
    fn bench_fens() -> &'static [&'static str] {
        &[]
    }

    /// Game-specific options announced after the engine's own.
    fn options() -> &'static [GameOption] {
        &[]
    }
    /// Applies a game-specific option; `None` if the name is not one of this game's.
    fn set_option(&mut self, _name: &str, _value: &str) -> Option<Result<(), String>> {
        None
    }

    /// A game record in the game's own exchange format (Othello: GGF, for NBoard): the start
    /// position and the moves played from it, as move strings.
    fn parse_game_record(&self, _record: &str) -> Result<(Self, Vec<String>), String> {
        Err(format!("{} has no game-record format", Self::NAME))
    }

    /// The share of a move's soft time budget, in percent, the exact solver may take before
    /// the heuristic search (never past the hard limit). Large only where the solver is
    /// expected to finish (then it is the player); small where it may well not, so that the
    /// heuristic search that plays the move when the solver gives up is not starved.
    fn solver_share(&self) -> u64 {
        30
    }

    /// The standard deviation, in evaluation units, of the difference between this position's
    /// heuristic search `depth` plies deep and one `shallow` plies deep, where the game has
    /// measured it for its evaluation (the search then takes probable cuts); `None` by
    /// default.
    fn eval_error_sigma(&self, _depth: i32, _shallow: i32) -> Option<i32> {
        None
    }

    /// The endgame-tablebase result of this position (chess: a Syzygy WDL probe), where the
    /// game has tables loaded that cover it and `depth` (remaining search depth) allows a probe;
    /// `None` by default. The search counts every answer as a `tbhits`.
    fn probe_wdl(&self, _depth: i32) -> Option<Outcome> {
        None
    }

    /// At the root: the moves that keep the best tablebase result (and, for a won or lost
    /// position, convert or resist best, e.g. by distance to zeroing) and that result; the
    /// search then looks at these moves only. `None` where no table covers the position.
    fn probe_root(&self) -> Option<(Vec<Self::Move>, Outcome)> {
        None
    }

    /// The moves of this position in the game's opening book, best first (empty: not in the
    /// book, or no book chosen).
    fn book_moves(&self) -> Vec<BookMove<Self::Move>> {
        Vec::new()
    }

    /// The book's move to play here, where the book knows better than a search would.
    fn book_choice(&self) -> Option<BookMove<Self::Move>> {
        None
    }

    /// Adds a game (this position is its start; `line` its moves) to the opening book, the
    /// positions new to it valued by `eval` (score for the side to move, depth); returns how
    /// many positions were added, or why there is no book to learn into.
    fn book_learn(
        &self,
        _line: &[Self::Move],
        _eval: &mut dyn FnMut(&Self) -> (i32, u32),
    ) -> Result<usize, String> {
        Err("this game has no opening book".into())
    }

    /// Prepares heavy tables (called before the first `readyok`).
    fn warm_up(&self) {}

    /// Forgets what the game's own tables learned (a solver's table), on a new game and on
    /// `Clear Hash`, as the search's table is cleared.
    fn clear_tables(&self) {}

    /// A game's exact solver, if it has one for this position: the result, or `None` when
    /// `abort` returned true first (or the position is beyond the solver).
    fn solve(&self, _abort: &dyn Fn() -> bool) -> Option<Solved<Self::Move>> {
        None
    }

    /// What the search runs before its own in play (`search::try_solver`): by default the
    /// exact solver; a game may answer from further out with a selective endgame search (a
    /// `Solved` whose note says so), which is then trusted as the search's result. `budget_ms`:
    /// the move's soft time budget, where it has one. `abort(has_result)`: true to stop; a
    /// game that already holds a result to answer with says so (the search then lets it run
    /// longer, as no heuristic search needs the rest of the time).
    fn solve_in_play(
        &self,
        abort: &dyn Fn(bool) -> bool,
        _budget_ms: Option<u64>,
    ) -> Option<Solved<Self::Move>> {
        self.solve(&|| abort(false))
    }

    /// The outcome if the game is over.
    fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.terminal() {
            return Some(o);
        }
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        if moves.is_empty() {
            Some(self.outcome_without_moves())
        } else {
            None
        }
    }

    /// Reads a move as a person types it (chess: SAN too); errors say why it is not legal.
    fn parse_human(&self, text: &str) -> Result<Self::Move, String> {
        self.parse_move(text)
    }

    /// A move as people and game records write it (chess: SAN).
    fn format_human(&self, mv: Self::Move) -> String {
        self.format_move(mv)
    }

    /// Why the game is over, in words ("checkmate", "four in a row"), if it is.
    fn end_reason(&self) -> Option<String> {
        self.outcome().map(|o| match o {
            Outcome::Draw => "draw".to_string(),
            _ => "no legal moves".to_string(),
        })
    }

    fn result(&self) -> Option<GameResult> {
        self.outcome()
            .map(|o| GameResult::from_outcome(o, self.to_move()))
    }
}
