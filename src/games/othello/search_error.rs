//! How far a shallow heuristic search of the learned patterns (8x8) strays from a deeper one:
//! the standard deviation of (deep - shallow), in hundredths of a disc, by empty squares, as
//! `scripts/othello_probcut_calibrate.py` measured it (30 self-play games from random
//! openings, a position every 6 plies, depths 3-11 against about half as deep; 30-50
//! positions a band and pair, where the deviation moved little with the depths). The midgame
//! search's probable cuts take it (`SearchHints::eval_error_sigma`).

/// The standard deviation at `empties` empties, for a `depth`-ply search against a
/// `shallow`-ply one.
pub fn sigma(empties: u32, depth: i32, shallow: i32) -> i32 {
    let _ = (depth, shallow);
    match empties {
        40.. => 200,
        30..=39 => 260,
        20..=29 => 350,
        _ => 380,
    }
}
