//! Syzygy endgame tablebases for chess, probed through the `pyrrhic-rs` crate (MIT).
//!
//! The crate trusts the bytes of a table, so every table file is checked first (`tbcheck`):
//! a bad one is left out with an error line naming it. The crate never reads the user's
//! directories: it is given a private directory (mode 0700, a random name from `tempfile`)
//! holding one link per checked file to the descriptor that was checked, held open while the
//! tables are loaded (`/proc/self/fd/N`, `/dev/fd/N`). A file that appears, is replaced or is
//! removed on disk after `SyzygyPath` is never seen by the crate; the directory goes with the
//! tables (a new `SyzygyPath`, `unload` at `quit` and EOF, a drop). protocol/errors.md.
//! Finding, checking and linking the files is `files`; loading, the options and probing here.
//!
//! The tables are process-wide (the crate allows one instance at a time), so the options
//! `SyzygyPath`, `SyzygyProbeDepth`, `Syzygy50MoveRule` and `SyzygyProbeLimit` live here in
//! statics rather than in each `Chess` position. Without tables every probe answers `None`
//! after one atomic load, so the search is unchanged.
//!
//! - `probe_wdl`: win/draw/loss of a position in the search (few pieces, no castling rights,
//!   halfmove clock 0, depth at least `SyzygyProbeDepth`).
//! - `probe_root`: the root moves that keep the best result; of the winning (losing) ones
//!   only those with the shortest (longest) distance to zeroing, so won endings are converted
//!   within the 50-move rule.

mod background;
mod files;
mod lease;
mod tables;

use crate::game::Outcome;
use cozy_chess::{
    BitBoard, Board, Color, Move, Piece, Square, get_bishop_moves, get_king_moves,
    get_knight_moves, get_pawn_attacks, get_rook_moves,
};
pub use files::check_table;
use files::{check_while, find};
use pyrrhic_rs::{DtzProbeValue, EngineAdapter, WdlProbeResult};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tables::{LARGEST, TABLES};

/// Attack generation for the prober, from cozy-chess.
#[derive(Clone)]
pub struct CozyAdapter;

fn square(sq: u64) -> Square {
    Square::index((sq & 63) as usize)
}

impl EngineAdapter for CozyAdapter {
    fn pawn_attacks(color: pyrrhic_rs::Color, sq: u64) -> u64 {
        let color = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        get_pawn_attacks(square(sq), color).0
    }
    fn knight_attacks(sq: u64) -> u64 {
        get_knight_moves(square(sq)).0
    }
    fn bishop_attacks(sq: u64, occ: u64) -> u64 {
        get_bishop_moves(square(sq), BitBoard(occ)).0
    }
    fn rook_attacks(sq: u64, occ: u64) -> u64 {
        get_rook_moves(square(sq), BitBoard(occ)).0
    }
    fn queen_attacks(sq: u64, occ: u64) -> u64 {
        (get_bishop_moves(square(sq), BitBoard(occ)) | get_rook_moves(square(sq), BitBoard(occ))).0
    }
    fn king_attacks(sq: u64) -> u64 {
        get_king_moves(square(sq)).0
    }
}

static PROBE_DEPTH: AtomicI32 = AtomicI32::new(1);
static RULE50: AtomicBool = AtomicBool::new(true);
static PROBE_LIMIT: AtomicU32 = AtomicU32::new(7);

/// How long `SyzygyPath` checks tables before it answers in a protocol session
/// (`answer_within`); the rest is checked in the background (`background`).
pub const CHECK_BUDGET: Duration = Duration::from_millis(500);
/// The budget in milliseconds; `u64::MAX`: none, every table is checked before the answer
/// (the library's default, for tools and tests that need every table before they go on).
static BUDGET_MS: AtomicU64 = AtomicU64::new(u64::MAX);

/// From now on `SyzygyPath` answers after checking tables for at most `budget` (fewest
/// pieces first) and checks the rest in the background.
pub fn answer_within(budget: Duration) {
    let ms = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX - 1);
    BUDGET_MS.store(ms, Relaxed);
}

/// The budget in force: `TABULA_SYZYGY_CHECK_MS` where set (tests, measurements), else
/// `answer_within`'s, else none.
fn check_budget() -> Option<Duration> {
    let ms = std::env::var("TABULA_SYZYGY_CHECK_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| BUDGET_MS.load(Relaxed));
    (ms != u64::MAX).then(|| Duration::from_millis(ms))
}

/// The messages for the user since the last call (one line each; `error: ...` where
/// something went wrong: a table let go because another process began to change it, one
/// refused by the background check), for `info string`.
pub fn take_notices() -> Vec<String> {
    tables::take_notices()
}

/// Frees the tables, their links and their files (`quit`, EOF, an empty `SyzygyPath`).
pub fn unload() {
    tables::unload();
}

/// `SyzygyPath`: loads the tables of these directories (`<empty>` or "" unloads them). Each
/// table file is checked first (see `tbcheck`): one that fails is left out with one error
/// line naming it, and the others are loaded. Within a budget (`answer_within`) the check
/// runs that long (fewest pieces first) before the answer; the rest is checked in the
/// background and loaded as it passes (`take_notices` tells). The same value sent again scans again (a file
/// replaced on disk is read anew). On an error that loads nothing (no such directory, no
/// good table) the tables loaded before stay.
pub fn set_path(value: &str) -> Result<(), String> {
    let path = value.trim();
    if path.is_empty() || path == "<empty>" {
        unload();
        return Ok(());
    }
    lease::watch(tables::let_go_of_changed_tables);
    let found = find(path, tables::held())?;
    let generation = tables::GENERATION.fetch_add(1, Relaxed) + 1;
    let until = check_budget().map(|budget| Instant::now() + budget);
    let (scan, rest) = check_while(found, &|| until.is_none_or(|t| Instant::now() < t));
    let mut errors = scan.bad;
    if scan.good.is_empty() && rest.is_empty() {
        errors.push(format!(
            "SyzygyPath: no usable table in '{path}'; the tables loaded before stay"
        ));
        return Err(errors.join("\n"));
    }
    if !scan.good.is_empty()
        && let Err(why) = tables::replace(scan.good, generation)
    {
        errors.push(format!(
            "SyzygyPath: cannot load tables from '{path}': {why}; the tables loaded before stay"
        ));
        return Err(errors.join("\n"));
    }
    if !rest.is_empty() {
        let left = rest.len();
        if background::check_rest(rest, generation) {
            tables::notice(vec![format!(
                "SyzygyPath: {left} more table files are being checked in the background; they are probed as they pass"
            )]);
        } else {
            errors.push(format!(
                "SyzygyPath: cannot start checking the other {left} table files; they are not used"
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

pub fn set_probe_depth(depth: i32) {
    PROBE_DEPTH.store(depth, Relaxed);
}

pub fn set_rule50(on: bool) {
    RULE50.store(on, Relaxed);
}

pub fn set_probe_limit(pieces: u32) {
    PROBE_LIMIT.store(pieces, Relaxed);
}

/// Pieces of the largest loaded table, 0 without tables.
pub fn largest() -> u32 {
    LARGEST.load(Relaxed)
}

/// The most pieces a position may have to be probed: the limit, within the tables.
fn cardinality() -> u32 {
    LARGEST.load(Relaxed).min(PROBE_LIMIT.load(Relaxed))
}

fn has_castling(board: &Board) -> bool {
    [Color::White, Color::Black].iter().any(|&c| {
        let r = board.castle_rights(c);
        r.short.is_some() || r.long.is_some()
    })
}

/// The en-passant target square as the prober wants it (0: none).
fn ep_square(board: &Board) -> u32 {
    board.en_passant().map_or(0, |file| {
        let rank = cozy_chess::Rank::Sixth.relative_to(board.side_to_move());
        Square::new(file, rank) as u32
    })
}

fn outcome(wdl: WdlProbeResult) -> Outcome {
    let rule50 = RULE50.load(Relaxed);
    match wdl {
        WdlProbeResult::Win => Outcome::Win,
        WdlProbeResult::CursedWin if !rule50 => Outcome::Win,
        WdlProbeResult::BlessedLoss if !rule50 => Outcome::Loss,
        WdlProbeResult::CursedWin | WdlProbeResult::BlessedLoss | WdlProbeResult::Draw => {
            Outcome::Draw
        }
        WdlProbeResult::Loss => Outcome::Loss,
    }
}

/// Rank of a move's result for the mover: 2 win, 1 a win past the 50-move rule when that rule
/// is off, 0 draw, and the same below 0 for losses.
fn rank(wdl: WdlProbeResult) -> i32 {
    let rule50 = RULE50.load(Relaxed);
    match wdl {
        WdlProbeResult::Win => 2,
        WdlProbeResult::CursedWin if !rule50 => 1,
        WdlProbeResult::BlessedLoss if !rule50 => -1,
        WdlProbeResult::CursedWin | WdlProbeResult::BlessedLoss | WdlProbeResult::Draw => 0,
        WdlProbeResult::Loss => -2,
    }
}

/// The board as the crate takes it: white and black men, then kings, queens, rooks,
/// bishops, knights and pawns of both colours.
fn material(board: &Board) -> [u64; 8] {
    let pieces = |p: Piece| board.pieces(p).0;
    [
        board.colors(Color::White).0,
        board.colors(Color::Black).0,
        pieces(Piece::King),
        pieces(Piece::Queen),
        pieces(Piece::Rook),
        pieces(Piece::Bishop),
        pieces(Piece::Knight),
        pieces(Piece::Pawn),
    ]
}

/// The WDL of `board` regardless of the search conditions (tests, tools); `None` without a
/// table for it.
pub fn wdl(board: &Board) -> Option<Outcome> {
    if board.occupied().len() > largest() || has_castling(board) {
        return None;
    }
    let guard = TABLES.read().ok()?;
    let loaded = guard.as_ref()?;
    let [w, b, k, q, r, bi, n, p] = material(board);
    let white = board.side_to_move() == Color::White;
    loaded
        .tables
        .probe_wdl(w, b, k, q, r, bi, n, p, ep_square(board), white)
        .ok()
        .map(outcome)
}

/// The probe in the search: only just after a capture or pawn move, without castling rights,
/// within `SyzygyProbeLimit` pieces (at the limit itself only from `SyzygyProbeDepth` on).
pub fn probe_search(board: &Board, depth: i32) -> Option<Outcome> {
    let card = cardinality();
    if card == 0 || board.halfmove_clock() != 0 {
        return None;
    }
    let pieces = board.occupied().len();
    if pieces > card || (pieces == card && depth < PROBE_DEPTH.load(Relaxed)) {
        return None;
    }
    wdl(board)
}

/// The root: the moves that keep the best result (shortest distance to zeroing among wins,
/// longest among losses) and that result.
pub fn probe_root(board: &Board) -> Option<(Vec<Move>, Outcome)> {
    if board.occupied().len() > cardinality() || has_castling(board) {
        return None;
    }
    // Writing: the crate's root probe must not run on two threads at once.
    let guard = TABLES.write().ok()?;
    let loaded = guard.as_ref()?;
    let [w, b, k, q, r, bi, n, p] = material(board);
    let (clock, white) = (
        u32::from(board.halfmove_clock()),
        board.side_to_move() == Color::White,
    );
    let probe = loaded
        .tables
        .probe_root(w, b, k, q, r, bi, n, p, clock, ep_square(board), white)
        .ok()?;
    drop(guard);
    let mut scored = Vec::new();
    for value in probe.moves.iter().take(probe.num_moves) {
        let DtzProbeValue::DtzResult(r) = value else {
            continue;
        };
        let promotion = match r.promotion {
            pyrrhic_rs::Piece::Queen => Some(Piece::Queen),
            pyrrhic_rs::Piece::Rook => Some(Piece::Rook),
            pyrrhic_rs::Piece::Bishop => Some(Piece::Bishop),
            pyrrhic_rs::Piece::Knight => Some(Piece::Knight),
            _ => None,
        };
        let mv = Move {
            from: Square::index(usize::from(r.from_square) & 63),
            to: Square::index(usize::from(r.to_square) & 63),
            promotion,
        };
        if board.is_legal(mv) {
            scored.push((mv, rank(r.wdl), i32::from(r.dtz)));
        }
    }
    let best = scored.iter().map(|&(_, rank, _)| rank).max()?;
    scored.retain(|&(_, rank, _)| rank == best);
    let dtz = match best {
        r if r > 0 => scored.iter().map(|&(_, _, d)| d).min(),
        r if r < 0 => scored.iter().map(|&(_, _, d)| d).max(),
        _ => None,
    };
    if let Some(dtz) = dtz {
        scored.retain(|&(_, _, d)| d == dtz);
    }
    let outcome = match best {
        r if r > 0 => Outcome::Win,
        r if r < 0 => Outcome::Loss,
        _ => Outcome::Draw,
    };
    Some((scored.into_iter().map(|(mv, _, _)| mv).collect(), outcome))
}

/// The Syzygy options (process-wide, see `syzygy`); `None` for any other name.
pub fn set_option(name: &str, value: &str) -> Option<Result<(), String>> {
    let number = |min: i64, max: i64| match value.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "option '{name}' must be a number between {min} and {max}, not '{value}'"
        )),
    };
    Some(match name.to_ascii_lowercase().as_str() {
        "syzygypath" => set_path(value),
        "syzygyprobedepth" => number(1, 100).map(|d| set_probe_depth(d as i32)),
        "syzygyprobelimit" => number(0, 7).map(|p| set_probe_limit(p as u32)),
        "syzygy50moverule" => match value.trim().to_ascii_lowercase().as_str() {
            v @ ("true" | "false") => {
                set_rule50(v == "true");
                Ok(())
            }
            _ => Err(format!(
                "option '{name}' expects true or false, not '{value}'"
            )),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::files::is_table_name;
    use super::{largest, set_path};

    /// The largest table is the largest WDL file loaded (before: always 7, the crate's count
    /// of every material it registers whether its file exists or not). The only test of this
    /// binary that loads tables (they are process-wide).
    #[test]
    fn largest_comes_from_the_files_loaded() {
        let committed = format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"));
        let dir = tempfile::tempdir().expect("a temporary directory");
        for name in ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KBNvK.rtbz"] {
            std::fs::copy(format!("{committed}/{name}"), dir.path().join(name)).expect("copy");
        }
        let path = dir.path().to_string_lossy().into_owned();
        assert_eq!(set_path(&path), Ok(()));
        assert_eq!(largest(), 3, "KBNvK has no WDL file");
        assert_eq!(set_path(&committed), Ok(()));
        assert_eq!(largest(), 4);
        assert_eq!(set_path(""), Ok(()));
        assert_eq!(largest(), 0);
    }

    #[test]
    fn table_names() {
        assert!(is_table_name("KRvK.rtbw"));
        assert!(is_table_name("KQvKR.rtbz"));
        assert!(!is_table_name("KRvK.txt"));
        assert!(!is_table_name("README.rtbw"));
        assert!(!is_table_name("vK.rtbw"));
    }
}
