//! A new browser session from the page's request: which game, its board (from the fields, or
//! read off the FEN when one is given), the start, the settings, and the command line that
//! tells tabula's own engine the same game.

use super::board::{View, grid_of_fen};
use super::engine::EngineChoice;
use super::matchplay::MAX_GAMES;
use super::matchscore::MatchPlay;
use super::records::{self, Imported};
use super::session::{GameSession, Session};
use super::state::{FULL_LEVEL, MAX_MULTIPV, MOVETIME_RANGE, Settings};
use crate::cli::choice::{Board, with_game};
use serde_json::Value;
use std::sync::Arc;
use tabula::game::{BooksAndSolvers, Game};
use tabula::games::connect4::Connect4;
use tabula::games::domineering::board::Side;

/// The games the page offers, as `--game` names them.
pub const GAMES: [&str; 4] = ["chess", "othello", "connect4", "domineering"];

/// A string field of a JSON body, if present (an error if it is not a string).
pub fn text<'a>(body: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("'{key}' must be a string, not {v}")),
    }
}

/// A whole-number field (a number or a string of digits), if present.
pub fn number(body: &Value, key: &str) -> Result<Option<u64>, String> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("'{key}' must be a whole number, not {n}")),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("'{key}' must be a whole number, not '{s}'")),
        Some(v) => Err(format!("'{key}' must be a whole number, not {v}")),
    }
}

fn flag(body: &Value, key: &str) -> Result<Option<bool>, String> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(format!("'{key}' must be true or false, not {v}")),
    }
}

/// `settings` with the fields of `body` that are present applied.
pub fn settings_from(body: &Value, mut s: Settings) -> Result<Settings, String> {
    if let Some(h) = text(body, "human")? {
        s.human = match h {
            "p1" | "first" => [true, false],
            "p2" | "second" => [false, true],
            "both" => [true, true],
            "none" => [false, false],
            _ => return Err(format!("human '{h}': expected p1, p2, both or none")),
        };
    }
    if let Some(ms) = number(body, "movetime")? {
        if !(MOVETIME_RANGE.0..=MOVETIME_RANGE.1).contains(&ms) {
            return Err(format!(
                "movetime {ms} ms: expected {}..{}",
                MOVETIME_RANGE.0, MOVETIME_RANGE.1
            ));
        }
        s.movetime_ms = ms;
    }
    let index = |e: u64| usize::try_from(e).unwrap_or(usize::MAX);
    if let Some(e) = number(body, "engine")? {
        s.engines = [index(e); 2];
    }
    for (p, key) in ["engine1", "engine2"].iter().enumerate() {
        if let Some(e) = number(body, key)? {
            s.engines[p] = index(e);
        }
    }
    if let Some(l) = number(body, "level")? {
        if l > u64::from(FULL_LEVEL) {
            return Err(format!("level {l}: expected 0..{FULL_LEVEL}"));
        }
        s.level = l as u8;
    }
    if let Some(x) = flag(body, "exact")? {
        s.exact = x;
    }
    if let Some(a) = flag(body, "analyse")? {
        s.analyse = a;
    }
    if let Some(k) = number(body, "multipv")? {
        if !(1..=u64::from(MAX_MULTIPV)).contains(&k) {
            return Err(format!("multipv {k}: expected 1..{MAX_MULTIPV}"));
        }
        s.multipv = k as u8;
    }
    Ok(s)
}

/// A board dimension from the body, checked against `range`.
fn dim(body: &Value, key: &str, default: u32, range: (u32, u32)) -> Result<u32, String> {
    let v = number(body, key)?.unwrap_or(u64::from(default));
    if v < u64::from(range.0) || v > u64::from(range.1) {
        return Err(format!("{key} {v}: expected {}..{}", range.0, range.1));
    }
    Ok(v as u32)
}

/// Rows and columns of the board a FEN describes.
fn fen_dims(fen: &str) -> (u32, u32) {
    let g = grid_of_fen(fen);
    let cols = g.first().map_or(0, |r| r.len());
    (g.len().min(64) as u32, cols.min(64) as u32)
}

fn launch<G: View>(
    id: String,
    start: G,
    standard: G,
    (settings, matchplay): (Settings, Option<MatchPlay>),
    engines: &Arc<Vec<EngineChoice>>,
    args: Vec<String>,
) -> Result<Arc<dyn Session>, String> {
    let session = GameSession::start(
        id,
        start,
        standard,
        settings,
        matchplay,
        engines.clone(),
        args,
    )?;
    Ok(Arc::new(session))
}

/// The start: the FEN's position on the standard board's dimensions, else the standard start.
fn start_of<G: Game>(standard: &G, fen: Option<&str>) -> Result<G, String> {
    match fen.map(str::trim).filter(|f| !f.is_empty()) {
        Some(f) => standard.parse_fen(f),
        None => Ok(standard.clone()),
    }
}

/// A new session as the body of `POST /api/new` asks.
pub fn create(
    id: String,
    body: &Value,
    default_game: &str,
    engines: &Arc<Vec<EngineChoice>>,
) -> Result<Arc<dyn Session>, String> {
    // A game record to load: its game, start and moves (a person plays both sides of it,
    // unless the body says otherwise).
    let imported: Option<Imported> = match text(body, "record")? {
        Some(r) => Some(records::import(r)?),
        None => None,
    };
    let game = match &imported {
        Some(i) => i.game.as_str(),
        None => text(body, "game")?.unwrap_or(default_game),
    };
    let fen = match &imported {
        Some(i) => i.fen.as_deref().map(str::trim).filter(|f| !f.is_empty()),
        None => text(body, "fen")?.map(str::trim).filter(|f| !f.is_empty()),
    };
    // Board dimensions from the record's `Size` tag where it has no FEN.
    let mut body = body.clone();
    if let (Some((a, b)), Some(obj)) =
        (imported.as_ref().and_then(|i| i.size), body.as_object_mut())
    {
        for (k, v) in [
            ("size", a),
            ("width", a),
            ("height", b),
            ("rows", a),
            ("cols", b),
        ] {
            obj.insert(k.into(), Value::from(v));
        }
    }
    let body = &body;
    let mut settings = settings_from(
        body,
        Settings {
            human: [true, false],
            movetime_ms: 1000,
            engines: [0, 0],
            level: FULL_LEVEL,
            exact: true,
            analyse: false,
            multipv: 1,
        },
    )?;
    if imported.is_some() && text(body, "human")?.is_none() {
        settings.human = [true, true];
    }
    if let Some(&e) = settings.engines.iter().find(|&&e| e >= engines.len()) {
        return Err(format!("no engine {e} (there are {})", engines.len()));
    }
    if imported.is_some() && number(body, "match")?.is_some_and(|n| n > 0) {
        return Err("a loaded game cannot be a match: load it, or start a match".into());
    }
    // A match: engine1 (A) and engine2 (B) play `match` games, changing colours each game.
    let matchplay = match number(body, "match")? {
        None | Some(0) => None,
        Some(n) if n > u64::from(MAX_GAMES) => {
            return Err(format!("match {n}: expected 1..{MAX_GAMES} games"));
        }
        Some(n) => {
            let m = MatchPlay::new(n as u32, settings.engines);
            settings.human = [false, false];
            settings.engines = m.sides(1);
            // The solver's work would take time from the engines: off unless asked for.
            if flag(body, "exact")?.is_none() {
                settings.exact = false;
            }
            Some(m)
        }
    };
    let settings = (settings, matchplay);
    let chess960 = imported.as_ref().is_some_and(|i| i.chess960);
    let session = dispatch(id, game, fen, body, settings, engines, chess960)?;
    if let Some(i) = &imported
        && let Err(e) = session.load(i)
    {
        session.close();
        return Err(e);
    }
    Ok(session)
}

/// The session of `game` on the board the body (or the FEN) gives.
fn dispatch(
    id: String,
    game: &str,
    fen: Option<&str>,
    body: &Value,
    settings: (Settings, Option<MatchPlay>),
    engines: &Arc<Vec<EngineChoice>>,
    chess960: bool,
) -> Result<Arc<dyn Session>, String> {
    let s = |v: u32| v.to_string();
    match game {
        "chess" => {
            let args = ["--game", "chess"];
            start(id, Board::Chess, fen, settings, engines, &args, chess960)
        }
        "connect4" => {
            let (w, h) = match fen {
                Some(f) => {
                    let d = Connect4::from_fen(f)?.dims();
                    (d.width, d.height)
                }
                None => (
                    dim(body, "width", 7, (4, 10))?,
                    dim(body, "height", 6, (4, 10))?,
                ),
            };
            let args = ["--game", "connect4", "--width", &s(w), "--height", &s(h)];
            let board = Board::Connect4 {
                width: w,
                height: h,
            };
            start(id, board, fen, settings, engines, &args, false)
        }
        "othello" => {
            let n = match fen {
                Some(f) => fen_dims(f).0,
                None => dim(body, "size", 8, (8, 16))?,
            };
            if !matches!(n, 8 | 10 | 12 | 14 | 16) {
                return Err(format!("Othello size {n}: expected 8, 10, 12, 14 or 16"));
            }
            let args = ["--game", "othello", "--size", &s(n)];
            let board = Board::Othello { size: n };
            start(id, board, fen, settings, engines, &args, false)
        }
        "domineering" => {
            let (r, c) = match fen {
                Some(f) => fen_dims(f),
                None => (
                    dim(body, "rows", 8, (2, 16))?,
                    dim(body, "cols", 8, (2, 16))?,
                ),
            };
            if !(2..=16).contains(&r) || !(2..=16).contains(&c) {
                return Err(format!(
                    "a {r}x{c} Domineering board: rows and columns 2..16"
                ));
            }
            let (first, letter) = match text(body, "first")?.unwrap_or("h") {
                "h" | "H" => (Side::Horizontal, "h"),
                "v" | "V" => (Side::Vertical, "v"),
                f => return Err(format!("first '{f}': expected h or v")),
            };
            let args = [
                "--game",
                "domineering",
                "--rows",
                &s(r),
                "--cols",
                &s(c),
                "--first",
                letter,
            ];
            let board = Board::Domineering {
                rows: r,
                cols: c,
                first,
            };
            start(id, board, fen, settings, engines, &args, false)
        }
        g => Err(format!("unknown game '{g}': expected {}", GAMES.join(", "))),
    }
}

/// The session of `board` from its start (or `fen`), telling tabula's engine `args`.
fn start(
    id: String,
    board: Board,
    fen: Option<&str>,
    settings: (Settings, Option<MatchPlay>),
    engines: &Arc<Vec<EngineChoice>>,
    args: &[&str],
    chess960: bool,
) -> Result<Arc<dyn Session>, String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    with_game!(board, |standard| {
        let mut standard = standard;
        if chess960 && let Some(r) = standard.set_option("UCI_Chess960", "true") {
            r?;
        }
        let start = start_of(&standard, fen)?;
        launch(id, start, standard, settings, engines, args)
    })
}
