//! `SearchHints`: what the generic search may use beyond the rules: the static evaluation,
//! move ordering, the keys of its history tables, and the margins of its pruning. None of it
//! changes which moves are legal or how a game ends; a game that gives no hint gets the
//! defaults, which are always sound.
//!
//! Invariants every implementation keeps:
//! - `evaluate` is from the point of view of the side to move.
//! - `move_key` is non-zero and differs between the legal moves of one position (0 means
//!   "none" in the transposition table).
//! - `history_key` is below `HISTORY_SIZE`; `cont_key` below `CONT_SIZE - 1` (the last key
//!   stands for "no move"); `victim` below 8.
//! - `tactical_moves` are legal moves, and `is_tactical` holds for each of them.

use super::{CONT_SIZE, Rules};

pub trait SearchHints: Rules {
    /// Whether the search may try a null move (the game has a meaningful "pass").
    const NULL_MOVE: bool = false;
    /// Margin per ply of depth for reverse futility pruning, in evaluation units; 0 disables it.
    const FUTILITY_MARGIN: i32 = 0;
    /// Whether the engine's skill levels are calibrated in Elo for this game (chess): the
    /// engine then offers UCI's `UCI_LimitStrength` and `UCI_Elo`.
    const ELO_CALIBRATED: bool = false;

    /// The moves quiescence search looks at (captures, promotions); none by default.
    fn tactical_moves(&self, out: &mut Vec<Self::Move>) {
        out.clear();
    }
    /// The position after passing, when the game allows the search to try it here.
    fn null_move(&self) -> Option<Self> {
        None
    }
    /// Static evaluation for the side to move (chess: centipawns).
    fn evaluate(&self) -> i32;
    /// The side to move is in check: the search extends and does not prune.
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

    /// The standard deviation, in evaluation units, of the difference between this position's
    /// heuristic search `depth` plies deep and one `shallow` plies deep, where the game has
    /// measured it for its evaluation (the search then takes probable cuts); `None` by
    /// default.
    fn eval_error_sigma(&self, _depth: i32, _shallow: i32) -> Option<i32> {
        None
    }

    /// Depth and FENs of this game's `bench` positions.
    const BENCH_DEPTH: u32 = 1;
    fn bench_fens() -> &'static [&'static str] {
        &[]
    }
    /// The board's name ("16x16") where it is not the one `bench_fens` are written for; the
    /// bench then searches positions of a fixed line from the start (`bench::positions`).
    fn bench_board(&self) -> Option<String> {
        None
    }
}
