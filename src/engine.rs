//! The protocol-agnostic engine: the current position and its history, the options, the
//! transposition table, and the search thread. Protocols call `set_position`, `go`, `stop`,
//! `ponderhit`; results come back through a `Listener`, never as text.
//!
//! Invariants: a failed `set_position` leaves the position untouched; every `go` produces
//! exactly one `Listener::bestmove`, after `stop`/`ponderhit` in infinite or ponder mode;
//! a new `go`, an option that touches the table, or `quit` first stops and joins the search.

use crate::game::{Game, GameResult};
use crate::search::{
    self, Control, FULL_LEVEL, Info, Limits, MAX_ELO, MIN_ELO, SearchParams, SearchResult,
    Strength, Tables, TranspositionTable, level_of_elo,
};
use std::sync::Arc;
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

pub trait Listener<G: Game>: Send + Sync + 'static {
    fn info(&self, root: &G, info: &Info<G::Move>);
    fn bestmove(&self, root: &G, result: &SearchResult<G::Move>);
}

#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mib: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub ponder: bool,
    pub show_wdl: bool,
    /// `Skill`: 0..=20, 20 is full strength (every game).
    pub skill: u32,
    /// `UCI_LimitStrength`: play at `UCI_Elo` instead (overrides `Skill`).
    pub limit_strength: bool,
    pub elo: u32,
    /// `Skill Seed`: the weakened choices' seed; 0 draws a new one for every game.
    pub skill_seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: 16,
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            ponder: false,
            show_wdl: false,
            skill: 20,
            limit_strength: false,
            elo: 1500,
            skill_seed: 0,
        }
    }
}

/// An engine option's type as UCI declares it; the one place its bounds are written, both
/// for the announcement (`Display`: the declaration after the name) and for `setoption`'s
/// checks (`parse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin { default: u64, min: u64, max: u64 },
    Check { default: bool },
    Button,
}

impl std::fmt::Display for OptionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionKind::Spin { default, min, max } => {
                write!(f, "type spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => write!(f, "type check default {default}"),
            OptionKind::Button => write!(f, "type button"),
        }
    }
}

impl OptionKind {
    /// `value` of option `name` as this kind takes it: a spin's number within its bounds, a
    /// check's `true`/`false` (1/0); a button takes none (0).
    pub fn parse(self, name: &str, value: Option<&str>) -> Result<u64, String> {
        let value = || value.ok_or_else(|| format!("option '{name}' needs a value"));
        match self {
            OptionKind::Spin { min, max, .. } => {
                let value = value()?;
                let v: u64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("option '{name}' expects a number, not '{value}'"))?;
                if v < min || v > max {
                    return Err(format!(
                        "option '{name}' must be between {min} and {max}, not {v}"
                    ));
                }
                Ok(v)
            }
            OptionKind::Check { .. } => {
                let value = value()?;
                match value.trim().to_ascii_lowercase().as_str() {
                    "true" => Ok(1),
                    "false" => Ok(0),
                    _ => Err(format!(
                        "option '{name}' expects true or false, not '{value}'"
                    )),
                }
            }
            OptionKind::Button => Ok(0),
        }
    }
}

/// Engine options as announced to the GUI and checked when set: (name, kind).
pub const ENGINE_OPTIONS: &[(&str, OptionKind)] = &[
    ("Hash", spin(16, 1, 65536)),
    ("Threads", spin(1, 1, 256)),
    ("MultiPV", spin(1, 1, 256)),
    ("Ponder", OptionKind::Check { default: false }),
    ("Move Overhead", spin(10, 0, 5000)),
    ("Clear Hash", OptionKind::Button),
    ("UCI_ShowWDL", OptionKind::Check { default: false }),
    ("Skill", spin(20, 0, 20)),
    ("Skill Seed", spin(0, 0, 2_147_483_647)),
];

/// Options announced for chess only: the standard UCI strength limit (calibrated in Elo).
pub const CHESS_OPTIONS: &[(&str, OptionKind)] = &[
    ("UCI_LimitStrength", OptionKind::Check { default: false }),
    ("UCI_Elo", spin(1500, MIN_ELO as u64, MAX_ELO as u64)),
];

const fn spin(default: u64, min: u64, max: u64) -> OptionKind {
    OptionKind::Spin { default, min, max }
}

/// The kind of the engine option `name` (any case), from the tables above.
fn declared(name: &str) -> Option<OptionKind> {
    ENGINE_OPTIONS
        .iter()
        .chain(CHESS_OPTIONS)
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, kind)| kind)
}

struct Running {
    ctrl: Arc<Control>,
    handle: JoinHandle<()>,
}

pub struct Engine<G: Game> {
    start: G,
    pos: G,
    /// Hashes of the positions before `pos`, oldest first.
    history: Vec<u64>,
    pub options: Options,
    tt: Arc<TranspositionTable>,
    /// The search threads' histories, kept from move to move and cleared by a new game.
    tables: Arc<Mutex<Vec<Tables>>>,
    running: Option<Running>,
    /// The seed of this game's weakened choices (`Skill Seed`, or drawn at each new game).
    game_seed: u64,
}

/// A seed that differs from game to game (the clock, mixed).
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    crate::bits::mix(nanos ^ u64::from(std::process::id()))
}

/// Memory the system can still give us, in MiB (Linux `MemAvailable`; `None` elsewhere).
fn available_mib() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

impl<G: Game> Engine<G> {
    pub fn new(start: G) -> Self {
        let options = Options::default();
        start.warm_up();
        Engine {
            pos: start.clone(),
            start,
            history: Vec::new(),
            tt: Arc::new(TranspositionTable::new(options.hash_mib)),
            tables: Arc::new(Mutex::new(Vec::new())),
            options,
            running: None,
            game_seed: fresh_seed(),
        }
    }

    /// The strength the options ask for; `None` at full strength.
    pub fn strength(&self) -> Option<Strength> {
        let level = if self.options.limit_strength {
            level_of_elo(self.options.elo)
        } else {
            f64::from(self.options.skill)
        };
        (level < FULL_LEVEL).then_some(Strength {
            level,
            seed: self.game_seed ^ self.history.len() as u64,
        })
    }

    /// The search parameters for `limits`: below full strength a node budget, the lines to
    /// choose among, one thread and no exact solver.
    fn params(&self, mut limits: Limits, searchmoves: Vec<G::Move>) -> SearchParams<G::Move> {
        let strength = self.strength();
        let mut multipv = self.options.multipv;
        let mut threads = self.options.threads;
        if let Some(s) = strength {
            let nodes = s.nodes();
            limits.nodes = Some(limits.nodes.map_or(nodes, |n| n.min(nodes)));
            limits.allow_solver = false;
            multipv = multipv.max(s.lines());
            threads = 1;
        }
        SearchParams {
            limits,
            searchmoves,
            multipv,
            threads,
            move_overhead: self.options.move_overhead,
            strength,
        }
    }

    pub fn position(&self) -> &G {
        &self.pos
    }

    /// The game's start position (board size and options as the engine was made with).
    pub fn start(&self) -> &G {
        &self.start
    }

    pub fn history(&self) -> &[u64] {
        &self.history
    }

    pub fn searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Sets the position from a FEN (or the start) and a move list; all or nothing.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[String]) -> Result<(), String> {
        let mut pos = match fen {
            None => self.start.clone(),
            Some(f) => self.start.parse_fen(f)?,
        };
        let mut history = Vec::with_capacity(moves.len());
        let mut list = Vec::new();
        for (i, text) in moves.iter().enumerate() {
            pos.legal_moves(&mut list);
            if list.is_empty() {
                return Err(format!("move {} '{text}': the game is already over", i + 1));
            }
            let mv = pos
                .parse_move(text)
                .map_err(|e| format!("move {} {e}", i + 1))?;
            history.push(pos.hash());
            pos.play(mv);
        }
        self.pos = pos;
        self.history = history;
        Ok(())
    }

    /// Plays a legal move of the current position (self-play, tools); the history grows.
    pub fn play(&mut self, mv: G::Move) {
        self.stop_and_wait();
        self.history.push(self.pos.hash());
        self.pos.play(mv);
    }

    /// Sets the position to `pos` with an empty history.
    pub fn set_root(&mut self, pos: G) {
        self.stop_and_wait();
        self.pos = pos;
        self.history.clear();
    }

    /// The result of the game at the current position, including repetition draws (threefold)
    /// that the position alone cannot see.
    pub fn game_result(&self) -> Option<GameResult> {
        if let Some(r) = self.pos.result() {
            return Some(r);
        }
        let reversible = self.pos.reversible_plies().min(self.history.len());
        if reversible >= 4 {
            let key = self.pos.hash();
            let n = self.history.len();
            let repeats = self.history[n - reversible..]
                .iter()
                .filter(|&&h| h == key)
                .count();
            if repeats >= 2 {
                return Some(GameResult::Draw);
            }
        }
        None
    }

    pub fn new_game(&mut self) {
        self.stop_and_wait();
        self.tt.clear();
        self.start.clear_tables();
        if let Ok(mut t) = self.tables.lock() {
            t.iter_mut().for_each(|t| t.clear());
        }
        self.game_seed = match self.options.skill_seed {
            0 => fresh_seed(),
            s => s,
        };
        self.pos = self.start.clone();
        self.history.clear();
    }

    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let lname = name.trim().to_ascii_lowercase();
        // The value as the option's table entry declares it (an engine option), checked.
        let parsed = || match declared(&lname) {
            Some(kind) => kind.parse(name, value),
            None => Err(format!("unknown option '{}'", name.trim())),
        };
        match lname.as_str() {
            "hash" => {
                let mib = parsed()? as usize;
                if let Some(avail) = available_mib()
                    && mib + self.tt.size_mib() > avail * 9 / 10
                    && mib > self.tt.size_mib()
                {
                    return Err(format!(
                        "option 'Hash': {mib} MiB is more than this machine can give (about {avail} MiB available)"
                    ));
                }
                self.stop_and_wait();
                if mib != self.tt.size_mib() {
                    // Free the old table before allocating the new one.
                    self.tt = Arc::new(TranspositionTable::new(1));
                    self.tt = Arc::new(TranspositionTable::new(mib));
                }
                self.options.hash_mib = mib;
            }
            "threads" => self.options.threads = parsed()? as usize,
            "multipv" => self.options.multipv = parsed()? as usize,
            "move overhead" => self.options.move_overhead = parsed()?,
            "ponder" => self.options.ponder = parsed()? == 1,
            "uci_showwdl" => self.options.show_wdl = parsed()? == 1,
            "skill" => self.options.skill = parsed()? as u32,
            "uci_limitstrength" => self.options.limit_strength = parsed()? == 1,
            "uci_elo" => self.options.elo = parsed()? as u32,
            "skill seed" => {
                let seed = parsed()?;
                self.options.skill_seed = seed;
                if seed != 0 {
                    self.game_seed = seed;
                }
            }
            "clear hash" => {
                self.stop_and_wait();
                self.tt.clear();
                self.start.clear_tables();
            }
            _ if let Some(set) = search::params::set(&lname, value.unwrap_or("")) => {
                self.stop_and_wait();
                set?;
            }
            _ => {
                let v = value.unwrap_or("");
                let mut start = self.start.clone();
                match start.set_option(name.trim(), v) {
                    None => return Err(format!("unknown option '{}'", name.trim())),
                    Some(Err(e)) => return Err(e),
                    Some(Ok(())) => {
                        if !G::process_wide_option(name.trim()) {
                            let mut pos = self.pos.clone();
                            let _ = pos.set_option(name.trim(), v);
                            self.pos = pos;
                        }
                        self.start = start;
                    }
                }
            }
        }
        Ok(())
    }

    /// Starts a search on the current position. Stops (and reports) a running one first.
    pub fn go(
        &mut self,
        limits: Limits,
        searchmoves: &[String],
        listener: Arc<dyn Listener<G>>,
    ) -> Result<(), String> {
        let mut moves = Vec::new();
        for text in searchmoves {
            moves.push(
                self.pos
                    .parse_move(text)
                    .map_err(|e| format!("searchmoves: {e}"))?,
            );
        }
        self.stop_and_wait();
        let params = self.params(limits.clone(), moves);
        let ctrl = Arc::new(Control::new(
            &limits,
            self.pos.to_move(),
            self.options.move_overhead,
        ));
        let root = self.pos.clone();
        let history = self.history.clone();
        let tt = Arc::clone(&self.tt);
        let tables = Arc::clone(&self.tables);
        let c = Arc::clone(&ctrl);
        // The opening book answers a plain `go` at full strength (not analysis: `infinite`,
        // `ponder`, `searchmoves`, several lines).
        let book = if params.searchmoves.is_empty()
            && params.multipv == 1
            && params.strength.is_none()
            && !limits.infinite
            && !limits.ponder
        {
            root.book_choice()
        } else {
            None
        };
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let report = |info: &Info<G::Move>| listener.info(&root, info);
                if let Some(b) = book {
                    report(&Info {
                        depth: b.depth,
                        seldepth: b.depth,
                        multipv: 1,
                        score: b.score,
                        bound: None,
                        nodes: 0,
                        nps: 0,
                        hashfull: 0,
                        time_ms: 0,
                        pv: vec![b.mv],
                        tbhits: 0,
                        note: Some(format!(
                            "book move {} ({} games)",
                            root.format_move(b.mv),
                            b.games
                        )),
                    });
                    while !c.released() {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    listener.bestmove(
                        &root,
                        &SearchResult {
                            best: Some(b.mv),
                            ponder: None,
                            score: b.score,
                            depth: b.depth,
                            nodes: 0,
                            pv: vec![b.mv],
                        },
                    );
                    return;
                }
                let mut tables = match tables.lock() {
                    Ok(t) => t,
                    Err(poisoned) => poisoned.into_inner(),
                };
                let result =
                    search::search(&root, &history, &params, &tt, &c, &report, &mut tables);
                drop(tables);
                while !c.released() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                listener.bestmove(&root, &result);
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))?;
        self.running = Some(Running { ctrl, handle });
        Ok(())
    }

    /// Searches synchronously under `ctrl` (another thread may stop it with `ctrl.stop`).
    pub fn search_controlled(
        &mut self,
        limits: Limits,
        ctrl: &Control,
        report: &(dyn Fn(&Info<G::Move>) + Sync),
    ) -> SearchResult<G::Move> {
        self.stop_and_wait();
        let params = self.params(limits, Vec::new());
        let mut tables = match self.tables.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        search::search(
            &self.pos,
            &self.history,
            &params,
            &self.tt,
            ctrl,
            report,
            &mut tables,
        )
    }

    /// Searches synchronously and returns the result (bench, `tabula play`, tests).
    pub fn search_now(
        &mut self,
        limits: Limits,
        report: &(dyn Fn(&Info<G::Move>) + Sync),
    ) -> SearchResult<G::Move> {
        let ctrl = Control::new(&limits, self.pos.to_move(), self.options.move_overhead);
        self.search_controlled(limits, &ctrl, report)
    }

    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.ctrl
                .stop
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            r.ctrl.ponderhit();
        }
    }

    /// Waits for a search to finish on its own (its limits), without stopping it.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    pub fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }

    pub fn clear_hash(&self) {
        self.tt.clear();
    }
}

impl<G: Game> Drop for Engine<G> {
    fn drop(&mut self) {
        self.stop_and_wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values `Options` starts with are the defaults the table announces.
    #[test]
    fn the_defaults_are_the_announced_ones() {
        let o = Options::default();
        let spin = |n: &str| match declared(n) {
            Some(OptionKind::Spin { default, .. }) => default,
            k => panic!("{n}: {k:?}"),
        };
        let check = |n: &str| match declared(n) {
            Some(OptionKind::Check { default }) => default,
            k => panic!("{n}: {k:?}"),
        };
        assert_eq!(spin("Hash"), o.hash_mib as u64);
        assert_eq!(spin("Threads"), o.threads as u64);
        assert_eq!(spin("MultiPV"), o.multipv as u64);
        assert_eq!(spin("Move Overhead"), o.move_overhead);
        assert_eq!(spin("Skill"), u64::from(o.skill));
        assert_eq!(spin("Skill Seed"), o.skill_seed);
        assert_eq!(spin("UCI_Elo"), u64::from(o.elo));
        assert_eq!(check("Ponder"), o.ponder);
        assert_eq!(check("UCI_ShowWDL"), o.show_wdl);
        assert_eq!(check("UCI_LimitStrength"), o.limit_strength);
    }
}
