//! `BooksAndSolvers`: what a game knows from outside the search: its opening book, endgame
//! tablebases, exact solvers, their tables, and the game-specific engine options that load
//! and choose them (and its other settings, e.g. chess's `UCI_Chess960` and `EvalFile`). A
//! game without any keeps the defaults: no book, no tables, no solver.
//!
//! Invariants every implementation keeps:
//! - A table's or solver's answer is exact where it claims to be (`Solved`, `probe_wdl`,
//!   `probe_root`), from the point of view of the side to move, and its moves are legal.
//! - A solver stops soon after `abort` returns true, and then answers `None`.

use super::{BookMove, GameOption, Outcome, PlayBudget, Rules, Solved};

pub trait BooksAndSolvers: Rules {
    /// Game-specific options announced after the engine's own.
    fn options() -> &'static [GameOption] {
        &[]
    }
    /// Applies a game-specific option; `None` if the name is not one of this game's.
    fn set_option(&mut self, _name: &str, _value: &str) -> Option<Result<(), String>> {
        None
    }

    /// Whether a game-specific option sets state of the whole process (chess: the Syzygy
    /// options) rather than of a position: applied once, to the start position, and not
    /// again to the current one (a `SyzygyPath` would be checked twice).
    fn process_wide_option(_name: &str) -> bool {
        false
    }

    /// The share of a move's soft time budget, in percent, the exact solver may take before
    /// the heuristic search (never past the hard limit). Large only where the solver is
    /// expected to finish (then it is the player); small where it may well not, so that the
    /// heuristic search that plays the move when the solver gives up is not starved.
    fn solver_share(&self) -> u64 {
        30
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

    /// Frees what the game's books, tables and solvers hold outside the process (chess: the
    /// private directory of links to its Syzygy tables), at `quit` and EOF.
    fn release(&self) {}

    /// What the game's books, tables and solvers have to tell the user since last asked, one
    /// line each, those about a failure starting `error: ` (chess: tables checked in the
    /// background, a table let go because another process began to change it); the protocol
    /// shows them as `info string` lines at the next `isready` or `go`.
    fn notices(&self) -> Vec<String> {
        Vec::new()
    }

    /// Called when a protocol session starts (a GUI waits on every answer): loads that can
    /// take long answer within about half a second and go on in the background (chess: the
    /// check of the Syzygy tables). Tools that need everything loaded before they go on
    /// (datagen, tests) do not call it.
    fn answer_promptly(&self) {}

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
    /// `Solved` whose note says so), which is then trusted as the search's result. `budget`:
    /// the move's soft time budget, and under a node limit the nodes the solver may visit (a
    /// game whose solver cannot keep to a count of nodes declines: the default).
    /// `abort(has_result)`: true to stop; a game that already holds a result to answer with
    /// says so (the search then lets it run longer, as no heuristic search needs the rest of
    /// the time). `Err(nodes)`: no result, after visiting that many nodes of the budget.
    fn solve_in_play(
        &self,
        abort: &dyn Fn(bool) -> bool,
        budget: PlayBudget,
    ) -> Result<Solved<Self::Move>, u64> {
        if budget.nodes.is_some() {
            return Err(0);
        }
        self.solve(&|| abort(false)).ok_or(0)
    }
}
