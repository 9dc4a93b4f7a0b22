//! Syzygy endgame tablebases for chess, probed through the `pyrrhic-rs` crate (MIT).
//!
//! The crate trusts the bytes of a table, so every table file is checked first (`tbcheck`):
//! a bad one is left out with an error line naming it, and the crate reads the good ones,
//! through a private directory of links to them when some were left out (protocol/errors.md).
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

use super::tbcheck;
use crate::game::Outcome;
use cozy_chess::{
    BitBoard, Board, Color, Move, Piece, Square, get_bishop_moves, get_king_moves,
    get_knight_moves, get_pawn_attacks, get_rook_moves,
};
use pyrrhic_rs::{DtzProbeValue, EngineAdapter, TableBases, WdlProbeResult};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering::Relaxed};

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

struct Loaded {
    path: String,
    tables: TableBases<CozyAdapter>,
    /// The private directory of links to the good tables, when some were left out.
    links: Option<PathBuf>,
}

impl Loaded {
    /// Frees the tables, then the directory of links they were read through.
    fn unload(self) {
        drop(self.tables);
        if let Some(dir) = self.links {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

static TABLES: RwLock<Option<Loaded>> = RwLock::new(None);
/// Pieces of the largest table loaded; 0 without tables (the fast "no" of every probe).
static LARGEST: AtomicU32 = AtomicU32::new(0);
static PROBE_DEPTH: AtomicI32 = AtomicI32::new(1);
static RULE50: AtomicBool = AtomicBool::new(true);
static PROBE_LIMIT: AtomicU32 = AtomicU32::new(7);

/// Whether a file name is a Syzygy table (`KRvK.rtbw`, `KQvKR.rtbz`).
fn is_table_name(name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".rtbw")
        .or_else(|| name.strip_suffix(".rtbz"))
    else {
        return false;
    };
    let Some((white, black)) = stem.split_once('v') else {
        return false;
    };
    let side = |s: &str| {
        s.starts_with('K')
            && s[1..]
                .chars()
                .all(|c| matches!(c, 'Q' | 'R' | 'B' | 'N' | 'P'))
    };
    side(white) && side(black)
}

/// What a `SyzygyPath` holds: the table files that passed `tbcheck`, the first found of each
/// name, and one message for each that did not.
struct Scan {
    good: Vec<(String, PathBuf)>,
    bad: Vec<String>,
}

/// Checks one table file; why it cannot be used.
fn check_file(name: &str, file: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.is_dir() {
        return Err("it is a directory".into());
    }
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let handle = File::open(file).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.len() == 0 {
        return Err("empty file".into());
    }
    // SAFETY: the file is mapped read-only and only read through the slice while the map
    // lives. Were another process to shorten the file during the check, a read could fault
    // (SIGBUS); the prober maps the same files later and takes the same risk, which no check
    // can remove for a file that changes under it.
    let map = unsafe { memmap2::Mmap::map(&handle) }.map_err(|e| format!("cannot map it: {e}"))?;
    tbcheck::check(name, &map).map_err(|e| e.0)
}

/// Whether the bytes of a table file named `name` (`KQvKR.rtbw`) may be shown to the prober,
/// and why not (what `SyzygyPath` says of a bad file); for the fuzzer (fuzz/) and tests.
pub fn check_table(name: &str, bytes: &[u8]) -> Result<(), String> {
    tbcheck::check(name, bytes).map_err(|e| e.0)
}

/// Checks every directory of a `:`-separated path and every table file in them.
fn check_path(path: &str) -> Result<Scan, String> {
    let mut scan = Scan {
        good: Vec::new(),
        bad: Vec::new(),
    };
    let mut found = 0;
    for dir in path.split(':').filter(|d| !d.is_empty()) {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("SyzygyPath: cannot read directory '{dir}': {e}"))?;
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| is_table_name(n))
            .collect();
        names.sort();
        for name in names {
            found += 1;
            let file = Path::new(dir).join(&name);
            match check_file(&name, &file) {
                Ok(()) if scan.good.iter().all(|(n, _)| *n != name) => {
                    scan.good.push((name, file));
                }
                Ok(()) => {}
                Err(why) => scan.bad.push(format!(
                    "SyzygyPath: table file '{}' not used: {why}",
                    file.display()
                )),
            }
        }
    }
    if found == 0 {
        return Err(format!("SyzygyPath: no Syzygy table files in '{path}'"));
    }
    Ok(scan)
}

/// Removes the link directories of tabula processes that are gone (Linux: by `/proc`).
fn remove_stale_links(tmp: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(LINKS_PREFIX)) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or("");
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

const LINKS_PREFIX: &str = "tabula-syzygy-";

/// A private directory of links to the good tables, for the prober to read instead of the
/// directories that hold bad ones.
fn link_good(good: &[(String, PathBuf)]) -> Result<PathBuf, String> {
    static SERIAL: AtomicU32 = AtomicU32::new(0);
    let tmp = std::env::temp_dir();
    remove_stale_links(&tmp);
    let dir = tmp.join(format!(
        "{LINKS_PREFIX}{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let fail = |e: std::io::Error| format!("SyzygyPath: cannot make '{}': {e}", dir.display());
    std::fs::create_dir_all(&dir).map_err(fail)?;
    for (name, file) in good {
        let target = std::fs::canonicalize(file).map_err(fail)?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, dir.join(name)).map_err(fail)?;
        #[cfg(not(unix))]
        std::fs::copy(&target, dir.join(name)).map_err(fail)?;
    }
    Ok(dir)
}

/// `SyzygyPath`: loads the tables of these directories (`<empty>` or "" unloads them). Each
/// table file is checked first (see `tbcheck`): one that fails is left out with one error
/// line naming it, and the others are loaded. On an error that loads nothing (no such
/// directory, no good table) the tables loaded before stay.
pub fn set_path(value: &str) -> Result<(), String> {
    let path = value.trim();
    let empty = path.is_empty() || path == "<empty>";
    let mut guard = match TABLES.write() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    if guard.as_ref().is_some_and(|l| l.path == path) {
        return Ok(());
    }
    if empty {
        LARGEST.store(0, Relaxed);
        if let Some(old) = guard.take() {
            old.unload();
        }
        return Ok(());
    }
    let scan = check_path(path)?;
    let mut errors = scan.bad;
    if scan.good.is_empty() {
        errors.push(format!(
            "SyzygyPath: no usable table in '{path}'; the tables loaded before stay"
        ));
        return Err(errors.join("\n"));
    }
    let links = if errors.is_empty() {
        None
    } else {
        match link_good(&scan.good) {
            Ok(dir) => Some(dir),
            Err(e) => {
                errors.push(e);
                return Err(errors.join("\n"));
            }
        }
    };
    // The crate holds one set of tables at a time: free the old ones, keeping what is needed
    // to load them again should the new ones fail.
    LARGEST.store(0, Relaxed);
    let old = guard.take().map(|l| {
        drop(l.tables);
        (l.path, l.links)
    });
    let dir = links
        .as_ref()
        .map_or_else(|| path.to_string(), |d| d.to_string_lossy().into_owned());
    match TableBases::<CozyAdapter>::new(&dir) {
        Ok(tables) => {
            LARGEST.store(tables.max_pieces(), Relaxed);
            *guard = Some(Loaded {
                path: path.to_string(),
                tables,
                links,
            });
            if let Some((_, Some(old_links))) = old {
                let _ = std::fs::remove_dir_all(old_links);
            }
        }
        Err(e) => {
            if let Some(links) = links {
                let _ = std::fs::remove_dir_all(links);
            }
            if let Some((old_path, old_links)) = old {
                // Checked when it was set: the same directory, or the same links.
                let old_dir = old_links
                    .as_ref()
                    .map_or_else(|| old_path.clone(), |d| d.to_string_lossy().into_owned());
                if let Ok(tables) = TableBases::<CozyAdapter>::new(&old_dir) {
                    LARGEST.store(tables.max_pieces(), Relaxed);
                    *guard = Some(Loaded {
                        path: old_path,
                        tables,
                        links: old_links,
                    });
                } else if let Some(old_links) = old_links {
                    let _ = std::fs::remove_dir_all(old_links);
                }
            }
            errors.push(format!(
                "SyzygyPath: cannot load tables from '{path}': {e:?}"
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

/// The WDL of `board` regardless of the search conditions (tests, tools); `None` without a
/// table for it.
pub fn wdl(board: &Board) -> Option<Outcome> {
    if board.occupied().len() > largest() || has_castling(board) {
        return None;
    }
    let guard = TABLES.read().ok()?;
    let loaded = guard.as_ref()?;
    let pieces = |p: Piece| board.pieces(p).0;
    loaded
        .tables
        .probe_wdl(
            board.colors(Color::White).0,
            board.colors(Color::Black).0,
            pieces(Piece::King),
            pieces(Piece::Queen),
            pieces(Piece::Rook),
            pieces(Piece::Bishop),
            pieces(Piece::Knight),
            pieces(Piece::Pawn),
            ep_square(board),
            board.side_to_move() == Color::White,
        )
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
    let pieces = |p: Piece| board.pieces(p).0;
    let probe = loaded
        .tables
        .probe_root(
            board.colors(Color::White).0,
            board.colors(Color::Black).0,
            pieces(Piece::King),
            pieces(Piece::Queen),
            pieces(Piece::Rook),
            pieces(Piece::Bishop),
            pieces(Piece::Knight),
            pieces(Piece::Pawn),
            u32::from(board.halfmove_clock()),
            ep_square(board),
            board.side_to_move() == Color::White,
        )
        .ok()?;
    drop(guard);
    let mut scored = Vec::new();
    for value in &probe.moves[..probe.num_moves] {
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
    use super::is_table_name;

    #[test]
    fn table_names() {
        assert!(is_table_name("KRvK.rtbw"));
        assert!(is_table_name("KQvKR.rtbz"));
        assert!(!is_table_name("KRvK.txt"));
        assert!(!is_table_name("README.rtbw"));
        assert!(!is_table_name("vK.rtbw"));
    }
}
