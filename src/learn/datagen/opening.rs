//! The openings of self-play (and of `genfens`): a book position or the start, then random
//! plies, drawn again while the game is over or a quick search finds it lopsided. Depends only
//! on its arguments, the generator's state and the engine's table.

use crate::engine::Engine;
use crate::learn::Learn;
use crate::learn::rng::Rng;
use crate::search::Limits;

/// Sets the engine's position to an opening: a book position (or the start) and `plies`
/// random plies, drawn again while the game is over or a quick search (2000 nodes) finds it
/// more lopsided than `G::OPENING_LIMIT`. The position depends only on the arguments, the
/// generator's state and the engine's table (clear it first for a reproducible result).
pub fn opening<G: Learn>(
    engine: &mut Engine<G>,
    start: &G,
    book: &[String],
    plies: u32,
    rng: &mut Rng,
) -> Result<(), String> {
    let mut moves = Vec::new();
    for attempt in 0..1000 {
        let root = if book.is_empty() {
            start.clone()
        } else {
            start.parse_fen(&book[rng.below(book.len())])?
        };
        engine.set_root(root);
        let mut alive = true;
        for _ in 0..plies {
            engine.position().legal_moves(&mut moves);
            if moves.is_empty() || engine.game_result().is_some() {
                alive = false;
                break;
            }
            let mv = moves[rng.below(moves.len())];
            engine.play(mv);
        }
        if !alive || engine.game_result().is_some() {
            continue;
        }
        engine.position().legal_moves(&mut moves);
        if moves.is_empty() {
            continue;
        }
        // A quick look: openings that are already lost teach little.
        let quick = engine.search_now(
            Limits {
                nodes: Some(2000),
                ..Limits::default()
            },
            &|_| {},
        );
        if quick.score.abs() <= G::OPENING_LIMIT || attempt >= 999 {
            return Ok(());
        }
    }
    Ok(())
}
