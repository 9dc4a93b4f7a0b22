//! The generic conformance test, run on every game: random playouts in which every legal move
//! is played, the parent is left untouched (copy-make's "undo"), hashes follow the position,
//! move and FEN strings round-trip, terminal positions score right, and the search's keys keep
//! what `tabula::game` promises (unique non-zero move keys, history and continuation keys in
//! range).

use std::collections::HashMap;

use super::Rng;
use tabula::game::{CONT_SIZE, Game, GameResult, HISTORY_SIZE, Outcome};

pub fn check_position<G: Game>(pos: &G) {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let perft_extra = u64::from(moves.is_empty() && pos.perft_pass().is_some());
    assert_eq!(
        pos.count_moves(),
        moves.len() as u64 + perft_extra,
        "count_moves at {}",
        pos.fen()
    );

    // FEN round trip, hash included.
    let fen = pos.fen();
    let back = pos.parse_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(back.fen(), fen);
    assert_eq!(
        back.hash(),
        pos.hash(),
        "hash after FEN round trip of {fen}"
    );
    assert_eq!(back.to_move(), pos.to_move());

    let parent_hash = pos.hash();
    for &m in &moves {
        let text = pos.format_move(m);
        let parsed = pos
            .parse_move(&text)
            .unwrap_or_else(|e| panic!("{fen}: {text}: {e}"));
        assert_eq!(parsed, m, "{fen}: '{text}' does not round-trip");
        let mut child = pos.clone();
        child.play(m);
        assert_ne!(
            child.hash(),
            parent_hash,
            "{fen}: {text} left the hash unchanged"
        );
        let again = child.parse_fen(&child.fen()).expect("child fen");
        assert_eq!(
            again.hash(),
            child.hash(),
            "{fen}: {text}: incremental hash differs"
        );
    }
    assert_eq!(
        pos.hash(),
        parent_hash,
        "playing on a clone changed the parent"
    );

    check_keys(pos, &moves);

    // Tactical moves are legal moves.
    let mut tactical = Vec::new();
    pos.tactical_moves(&mut tactical);
    for t in &tactical {
        assert!(moves.contains(t), "{fen}: tactical move {t:?} is not legal");
        assert!(
            pos.is_tactical(*t),
            "{fen}: tactical move {t:?} is not is_tactical"
        );
        assert!(pos.victim(*t) < 8, "{fen}: victim of {t:?} out of range");
    }

    // Terminal positions.
    let outcome = pos.outcome();
    if moves.is_empty() {
        assert!(outcome.is_some(), "{fen}: no moves but no outcome");
    }
    if let Some(o) = pos.terminal() {
        assert_eq!(outcome, Some(o));
    }
    if let Some(o) = outcome {
        let r = pos.result().expect("result");
        assert_eq!(r, GameResult::from_outcome(o, pos.to_move()));
    }
}

/// The keys of the search's tables (see `tabula::game`): `move_key` non-zero and different for
/// each legal move of the position, `history_key` below `HISTORY_SIZE`, `cont_key` below
/// `CONT_SIZE - 1` (the last key stands for "no move").
fn check_keys<G: Game>(pos: &G, moves: &[G::Move]) {
    let mut seen: HashMap<u16, G::Move> = HashMap::new();
    for &m in moves {
        let key = G::move_key(m);
        assert_ne!(key, 0, "{}: move {m:?} has key 0", pos.fen());
        if let Some(other) = seen.insert(key, m) {
            panic!("{}: moves {other:?} and {m:?} share key {key}", pos.fen());
        }
        let h = pos.history_key(m);
        assert!(
            h < HISTORY_SIZE,
            "{}: history key {h} of {m:?} not below {HISTORY_SIZE}",
            pos.fen()
        );
        let c = pos.cont_key(m);
        assert!(
            c < CONT_SIZE - 1,
            "{}: continuation key {c} of {m:?} not below {}",
            pos.fen(),
            CONT_SIZE - 1
        );
    }
}

/// Random playouts from `start`; returns the outcomes seen at the end of each playout.
pub fn playouts<G: Game>(
    start: &G,
    games: usize,
    max_plies: usize,
    seed: u64,
) -> Vec<Option<Outcome>> {
    let mut rng = Rng(seed);
    let mut ends = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut pos = start.clone();
        for _ in 0..max_plies {
            check_position(&pos);
            if pos.terminal().is_some() {
                break;
            }
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            pos.play(m);
        }
        check_position(&pos);
        ends.push(pos.outcome());
    }
    ends
}
