//! Self-play data generation for any `Learn` game: games of the engine against itself from
//! randomised openings at a fixed node (or depth) budget, each kept position written with its
//! search score and the game's final label (see `format`).
//!
//! Determinism: game i depends only on (seed, i, the settings): its opening comes from its own
//! generator, every search runs on one thread with a freshly cleared table, and games are
//! written in index order whatever the number of threads. A resumed file continues at the
//! game after the last whole one written (a cut last block is cut off and made again), so an
//! interrupted run and an uninterrupted one end equal, byte for byte. A `TABULAG1` file is
//! continued in `TABULAG1` (said on stderr), never mixed with `TABULAG2` blocks.

mod adjudicate;
mod opening;

use super::Learn;
use super::cpu_clock::thread_time;
use super::format::{DataWriter, FLAG_EXACT, Header, Record};
use super::game_data::{FLAG_KEEP, GameRecord, GameWriter, Ply, encode};
use super::rng::Rng;
use crate::bits::mix;
use crate::engine::Engine;
use crate::game::{GameResult, Outcome, Player};
use crate::search::Limits;
use adjudicate::Adjudicator;
pub use opening::opening;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Config {
    pub out: PathBuf,
    /// Games the file should hold when done (a resumed file counts those already written).
    pub games: u32,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub threads: usize,
    pub seed: u64,
    /// Random plies from the opening position (default: the game's `RANDOM_PLIES`); one more
    /// is played on odd games so that both sides start the recorded part.
    pub random_plies: Option<u32>,
    /// Opening positions (FENs); empty: the game's start.
    pub book: Vec<String>,
    pub hash_mib: usize,
    /// Engine options (name, value) set before the first game (`EvalFile`, say).
    pub options: Vec<(String, String)>,
    /// A game still going after this many plies is scored a draw.
    pub max_plies: u32,
    /// Milliseconds of the thread's CPU time (`cpu_clock`) the exact solver may take per
    /// labelled position (`Learn::EXACT_FROM`).
    pub exact_ms: u64,
    /// Empty squares from which the exact solver plays and labels, instead of the game's
    /// `Learn::EXACT_FROM` (games without a solver, `EXACT_FROM` 0, ignore it).
    pub exact_from: Option<u32>,
    /// Write position records (`TABULAD1`, the format before games) instead of games.
    pub positions: bool,
    /// Side lines per game (`branch`; game files only): from this many of the positions the
    /// exact solver labelled, a random other move, then the solver's play to the end.
    pub branches: u32,
    /// The index of the first game of a new file (`--first-game`): a corpus shard that
    /// carries a seed on from the games of earlier shards. Game i is the same game in
    /// whichever file it is made.
    pub first_game: u32,
}

/// Running totals, for the progress line and the summary.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub games: u64,
    pub positions: u64,
    pub exact: u64,
    /// Results from the first player's side: wins, draws, losses.
    pub wdl: [u64; 3],
    pub plies: u64,
    /// Nodes of the searches that chose the moves (not the exact solver's).
    pub nodes: u64,
}

struct Finished {
    index: u32,
    bytes: Vec<u8>,
    positions: u64,
    exact: u64,
    result: GameResult,
    plies: u32,
    nodes: u64,
}

/// A move played, with what the position before it taught.
struct Played<M> {
    mv: M,
    score: i32,
    side: Player,
    kept: bool,
    exact: bool,
}

/// Plays game `index` to its end and returns its records.
fn play_game<G: Learn>(
    engine: &mut Engine<G>,
    start: &G,
    cfg: &Config,
    index: u32,
) -> Result<Finished, String> {
    let mut rng = Rng::new(cfg.seed ^ mix(index as u64 + 1));
    engine.new_game();
    let plies = cfg.random_plies.unwrap_or(G::RANDOM_PLIES) + index % 2;
    opening(engine, start, &cfg.book, plies, &mut rng)?;
    engine.clear_hash();
    let first = engine.position().clone();
    let mut line = play_main_line(engine, cfg);
    let (label_side, label) = final_label(engine.position(), line.result);
    let kept = line.played.iter().filter(|p| p.kept).count() as u64;
    let exact = line.played.iter().filter(|p| p.kept && p.exact).count() as u64;
    let (bytes, branched) = if cfg.positions {
        let bytes = position_records(first, &line.played, (label_side, label), index);
        (bytes, 0)
    } else {
        game_blocks(first, &mut line, (label_side, label), cfg, index)?
    };
    Ok(Finished {
        index,
        bytes,
        positions: kept + branched,
        exact: exact + branched,
        result: line.result,
        plies: line.plies,
        nodes: line.nodes,
    })
}

/// A game's main line as played: its moves, the positions the solver labelled, its result.
struct MainLine<G: Learn> {
    played: Vec<Played<G::Move>>,
    /// The solver-labelled positions (ply, position, best move), for `branch`.
    solved: Vec<(u32, G, G::Move)>,
    plies: u32,
    /// Nodes of the searches that chose the moves.
    nodes: u64,
    result: GameResult,
}

/// What the main line does at one ply: a move (with its score, and whether the exact solver
/// chose it), or the game's end.
enum Choice<M> {
    Move { best: M, score: i32, exact: bool },
    End(GameResult),
}

/// Plays the game on from the engine's position to its end: by the rules, the tablebases,
/// adjudication or `Config::max_plies`.
fn play_main_line<G: Learn>(engine: &mut Engine<G>, cfg: &Config) -> MainLine<G> {
    let exact_from = match G::EXACT_FROM {
        0 => 0,
        own => cfg.exact_from.unwrap_or(own),
    };
    let limits = Limits {
        nodes: cfg.nodes,
        depth: cfg.depth,
        ..Limits::default()
    };
    let mut line = MainLine {
        played: Vec::new(),
        solved: Vec::new(),
        plies: 0,
        nodes: 0,
        result: GameResult::Draw,
    };
    let mut adjudicator = Adjudicator::default();
    line.result = loop {
        if let Some(r) = engine.game_result() {
            break r;
        }
        if line.plies >= cfg.max_plies {
            break GameResult::Draw;
        }
        let pos = engine.position().clone();
        let (best, score, is_exact) =
            match choose_move(engine, &pos, exact_from, cfg, &limits, &mut line) {
                Choice::Move { best, score, exact } => (best, score, exact),
                Choice::End(r) => break r,
            };
        line.played.push(Played {
            mv: best,
            score,
            side: pos.to_move(),
            kept: is_exact || pos.keep(best, score),
            exact: is_exact,
        });
        if G::ADJUDICATE && !is_exact {
            let first = first_player_view(pos.to_move(), score);
            if let Some(r) = adjudicator.count::<G>(first, line.plies) {
                break r;
            }
        }
        engine.play(best);
        line.plies += 1;
    };
    line
}

/// The main line's move at `pos` (the engine's position): the exact solver's within
/// `exact_from` empties (kept in `line.solved` for side lines), else the search's (its nodes
/// counted in `line`); the end where the tablebases decide the position or no move is found.
fn choose_move<G: Learn>(
    engine: &mut Engine<G>,
    pos: &G,
    exact_from: u32,
    cfg: &Config,
    limits: &Limits,
    line: &mut MainLine<G>,
) -> Choice<G::Move> {
    // Where endgame tablebases are loaded (chess: `--option SyzygyPath=DIR`) and cover
    // the position, the game is decided: it ends with the tables' result.
    if let Some(o) = pos.probe_wdl(i32::MAX) {
        return Choice::End(GameResult::from_outcome(o, pos.to_move()));
    }
    let mut exact = None;
    if exact_from > 0 && pos.empties() <= exact_from {
        // The thread's CPU time: a pause or a busy machine does not change the labels.
        let deadline = thread_time() + Duration::from_millis(cfg.exact_ms);
        exact = pos.solve_for_data(&|| thread_time() >= deadline);
    }
    if let Some(s) = exact {
        if cfg.branches > 0 {
            line.solved.push((line.plies, pos.clone(), s.best));
        }
        return Choice::Move {
            best: s.best,
            score: s.score,
            exact: true,
        };
    }
    let r = engine.search_now(limits.clone(), &|_| {});
    line.nodes += r.nodes;
    match r.best {
        Some(best) => Choice::Move {
            best,
            score: r.score,
            exact: false,
        },
        // No move although the rules say the game goes on: score it by the rules.
        None => {
            let o = pos.outcome().unwrap_or(Outcome::Draw);
            Choice::End(GameResult::from_outcome(o, pos.to_move()))
        }
    }
}

/// The game's label, as (the side it is from, the label): the final position's own (a disc
/// margin where the game has one), else the adjudicated result.
fn final_label<G: Learn>(end: &G, result: GameResult) -> (Player, i32) {
    match end.outcome() {
        Some(o) if GameResult::from_outcome(o, end.to_move()) == result => {
            (end.to_move(), end.end_label(o))
        }
        _ => (
            Player::P1,
            match result {
                GameResult::P1Win => 1,
                GameResult::P2Win => -1,
                GameResult::Draw => 0,
            },
        ),
    }
}

/// A played move's data flags: exact where the solver labelled it.
fn exact_flag<M>(p: &Played<M>) -> u8 {
    if p.exact { FLAG_EXACT } else { 0 }
}

/// The main line's kept positions as position records (`TABULAD1`), labelled with
/// `label` = (side, value).
fn position_records<G: Learn>(
    first: G,
    played: &[Played<G::Move>],
    (label_side, label): (Player, i32),
    index: u32,
) -> Vec<u8> {
    let kept = played.iter().filter(|p| p.kept).count();
    let mut bytes = Vec::with_capacity(kept * (G::PACKED + super::format::TAIL));
    let mut pos = first;
    let mut packed = vec![0u8; G::PACKED];
    for (i, p) in played.iter().enumerate() {
        if p.kept {
            pos.pack(&mut packed);
            Record {
                position: &packed,
                score: to_i16(p.score),
                label: to_i16(if p.side == label_side { label } else { -label }),
                game: index,
                flags: exact_flag(p),
                ply: i.min(255) as u8,
            }
            .write(&mut bytes);
        }
        pos.play(p.mv);
    }
    bytes
}

/// The game as game blocks: the main line's, then its side lines' (`branch`), all of index
/// `index`. Returns the bytes and the side lines' plies.
fn game_blocks<G: Learn>(
    first: G,
    line: &mut MainLine<G>,
    (label_side, label): (Player, i32),
    cfg: &Config,
    index: u32,
) -> Result<(Vec<u8>, u64), String> {
    let record = GameRecord {
        start: first,
        start_ply: 0,
        label_p1: to_i16(first_player_view(label_side, label)),
        plies: line
            .played
            .iter()
            .map(|p| Ply {
                mv: p.mv,
                score: to_i16(p.score),
                flags: exact_flag(p) | if p.kept { FLAG_KEEP } else { 0 },
            })
            .collect(),
    };
    let mut bytes = encode(&record, index)?;
    // Side lines: their own generator, so that the main game is the same with or
    // without them; each a block of the same index, written with the game in one piece.
    let mut rng = Rng::new(cfg.seed ^ mix(index as u64 + 1) ^ BRANCH_SALT);
    let solved = &mut line.solved;
    let mut branched = 0u64;
    for _ in 0..cfg.branches.min(solved.len() as u32) {
        let (at, from, best) = solved.swap_remove(rng.below(solved.len()));
        if let Some(side_line) = branch(&from, best, at, cfg, &mut rng) {
            branched += side_line.plies.len() as u64;
            bytes.extend(encode(&side_line, index)?);
        }
    }
    Ok((bytes, branched))
}

/// Mixed into a game's generator seed for its side lines' draws.
const BRANCH_SALT: u64 = 0x6272_616e_6368_6573;

/// A side line from `from` (the main line's position at `ply`, solved with `best`): a random
/// legal move other than `best`, then the exact solver's moves to the end of the game, every
/// position from the one after the random move on kept and labelled exactly. `None` where
/// `best` is the only move or a solve runs out of `Config::exact_ms`.
fn branch<G: Learn>(
    from: &G,
    best: G::Move,
    ply: u32,
    cfg: &Config,
    rng: &mut Rng,
) -> Option<GameRecord<G>> {
    let mut moves = Vec::new();
    from.legal_moves(&mut moves);
    moves.retain(|&m| m != best);
    if moves.is_empty() {
        return None;
    }
    let mut pos = from.clone();
    pos.play(moves[rng.below(moves.len())]);
    let start = pos.clone();
    let mut plies = Vec::new();
    let outcome = loop {
        if let Some(o) = pos.outcome() {
            break o;
        }
        let deadline = thread_time() + Duration::from_millis(cfg.exact_ms);
        let s = pos.solve_for_data(&|| thread_time() >= deadline)?;
        plies.push(Ply {
            mv: s.best,
            score: to_i16(s.score),
            flags: FLAG_EXACT | FLAG_KEEP,
        });
        pos.play(s.best);
    };
    Some(GameRecord {
        start,
        start_ply: (ply + 1).min(u16::MAX as u32) as u16,
        label_p1: to_i16(first_player_view(pos.to_move(), pos.end_label(outcome))),
        plies,
    })
}

/// A score or label as the data files hold it (i16, within +-32000).
fn to_i16(x: i32) -> i16 {
    x.clamp(-32000, 32000) as i16
}

/// `value`, from `side`'s view, from the first player's.
fn first_player_view(side: Player, value: i32) -> i32 {
    if side == Player::P1 { value } else { -value }
}

/// The file being written: games, or position records.
enum Writer {
    Games(GameWriter),
    Positions(DataWriter),
}

impl Writer {
    fn open(
        path: &std::path::Path,
        header: &Header,
        positions: bool,
    ) -> Result<(Writer, u32), String> {
        Ok(if positions {
            let (w, next) = DataWriter::open(path, header)?;
            (Writer::Positions(w), next)
        } else {
            let (w, next) = GameWriter::open(path, header)?;
            for note in &w.notes {
                log::warn!("{note}");
            }
            (Writer::Games(w), next)
        })
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Writer::Games(w) => w.append(bytes),
            Writer::Positions(w) => w.append(bytes),
        }
    }
}

/// Runs the generation; `progress` is called about every second with the totals of this run
/// and the games already in the file. Returns this run's totals.
pub fn run<G: Learn>(
    start: &G,
    cfg: &Config,
    progress: &dyn Fn(&Totals, u32, Duration),
) -> Result<Totals, String> {
    let header = Header {
        game: G::NAME.to_string(),
        dims: start.dims(),
        packed: G::PACKED,
    };
    // Options are checked once here, so that a bad one is an error rather than ignored.
    let mut probe = Engine::new(start.clone());
    for (k, v) in &cfg.options {
        probe.set_option(k, Some(v))?;
    }
    drop(probe);
    let (mut writer, resumed) = Writer::open(&cfg.out, &header, cfg.positions)?;
    let first = resumed.max(cfg.first_game);
    let mut totals = Totals::default();
    if first >= cfg.games {
        return Ok(totals);
    }
    let next = AtomicU32::new(first);
    let failed = AtomicBool::new(false);
    let began = Instant::now();
    let (tx, rx) = mpsc::channel::<Result<Finished, String>>();
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..cfg.threads.max(1) {
            let tx = tx.clone();
            let (next, failed) = (&next, &failed);
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(scope, move || {
                    let mut engine = Engine::new(start.clone());
                    let _ = engine.set_option("Hash", Some(&cfg.hash_mib.to_string()));
                    for (k, v) in &cfg.options {
                        let _ = engine.set_option(k, Some(v));
                    }
                    // Games start from the engine's position, which carries the options
                    // (an evaluation set by EvalFile), not from the bare `start`.
                    let start = engine.position().clone();
                    while !failed.load(Relaxed) {
                        let index = next.fetch_add(1, Relaxed);
                        if index >= cfg.games {
                            break;
                        }
                        let done = play_game(&mut engine, &start, cfg, index);
                        if tx.send(done).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| format!("cannot start a datagen thread: {e}"))?;
        }
        drop(tx);
        // Write in index order: a resumed file must not have holes.
        let mut pending: BTreeMap<u32, Finished> = BTreeMap::new();
        let mut want = first;
        let mut last_report = Instant::now();
        loop {
            let msg = rx.recv_timeout(Duration::from_millis(500));
            match msg {
                Ok(Ok(f)) => {
                    pending.insert(f.index, f);
                }
                Ok(Err(e)) => {
                    failed.store(true, Relaxed);
                    return Err(e);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while let Some(f) = pending.remove(&want) {
                if let Err(e) = writer.append(&f.bytes) {
                    failed.store(true, Relaxed);
                    return Err(e);
                }
                totals.games += 1;
                totals.positions += f.positions;
                totals.exact += f.exact;
                totals.plies += f.plies as u64;
                totals.nodes += f.nodes;
                totals.wdl[match f.result {
                    GameResult::P1Win => 0,
                    GameResult::Draw => 1,
                    GameResult::P2Win => 2,
                }] += 1;
                want += 1;
            }
            if last_report.elapsed() >= Duration::from_secs(1) {
                progress(&totals, first, began.elapsed());
                last_report = Instant::now();
            }
        }
        progress(&totals, first, began.elapsed());
        Ok(())
    })?;
    Ok(totals)
}
