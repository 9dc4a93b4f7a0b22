//! `Notation`: how a game is written and spoken: moves in protocol and human notation, FEN,
//! board diagrams, game records, the names of the sides, and the protocol its engines speak
//! by default.
//!
//! Invariants every implementation keeps:
//! - `parse_move(format_move(m)) == m` for every legal move `m` of a position, and
//!   `parse_fen(fen())` gives back the position (same `hash`).
//! - `parse_move` and `parse_human` accept legal moves only and say why otherwise; outside
//!   input never panics.

use super::Rules;

pub trait Notation: Rules {
    /// The names of player 1 and player 2 ("White", "Black"; Othello "Black", "White"; "Red",
    /// "Yellow"; "Horizontal", "Vertical").
    const SIDES: [&'static str; 2];
    /// Whether the game's engines speak UCI by default (chess); the others speak UGI.
    const UCI: bool = false;
    /// Whether the game's records are PGN (chess): White and Black tags, move numbers, a
    /// `[SetUp]` before a `[FEN]`, and no `[Game]` tag.
    const PGN: bool = false;

    /// Parses a move in this game's protocol notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, String>;
    /// Formats a legal move of this position in protocol notation.
    fn format_move(&self, mv: Self::Move) -> String;
    /// Parses a FEN; `self` supplies board dimensions and options.
    fn parse_fen(&self, fen: &str) -> Result<Self, String>;
    fn fen(&self) -> String;
    /// A human-readable board diagram for `d`.
    fn diagram(&self) -> String;

    /// Whether this is the standard start, which a record of a game from here leaves without
    /// a `[FEN]` (chess; the records of the other games always give their start).
    fn is_standard_start(&self) -> bool {
        false
    }

    /// Reads a move as a person types it (chess: SAN too); errors say why it is not legal.
    fn parse_human(&self, text: &str) -> Result<Self::Move, String> {
        self.parse_move(text)
    }

    /// A move as people and game records write it (chess: SAN).
    fn format_human(&self, mv: Self::Move) -> String {
        self.format_move(mv)
    }

    /// A game record in the game's own exchange format (Othello: GGF, for NBoard): the start
    /// position and the moves played from it, as move strings.
    fn parse_game_record(&self, _record: &str) -> Result<(Self, Vec<String>), String> {
        Err(format!("{} has no game-record format", Self::NAME))
    }
}
