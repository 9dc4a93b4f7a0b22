//! `tabula play`: a game for people at a terminal, against the engine or each other. Reads
//! lines from any `BufRead` and writes to any `Write`, so tests drive it through pipes.
//!
//! Invariants: every prompt says what can be typed; bad input never changes the game; EOF
//! on input ends the session (saving if `--save` was given); the engine moves only on its
//! own turns; Othello passes are announced and made automatically.

pub mod render;

use crate::engine::Engine;
use crate::game::{GameResult, Player};
use crate::record::{GameLine, Record, result_text};
use crate::search::{Info, Limits, MATE_BOUND};
use render::{Show, Style};
use std::io::{BufRead, Write};

#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// Who is human: [player 1, player 2].
    pub human: [bool; 2],
    /// Engine time per move (ms), unless `depth` is set.
    pub movetime: u64,
    pub depth: Option<u32>,
    /// The engine's skill level, 0..=20 (20: full strength; the engine's `Skill` option).
    pub level: u32,
    pub style: Style,
    /// Saved here when a game ends (and on `save` without a name).
    pub save: Option<std::path::PathBuf>,
}

pub struct Session<'a, G: Show, R: BufRead, W: Write> {
    cfg: PlayConfig,
    start: G,
    line: GameLine<G>,
    engine: Engine<G>,
    input: R,
    out: &'a mut W,
    resigned: Option<Player>,
    announced_end: bool,
    quit: bool,
}

const HELP: &str = "Commands:
  <move>         play a move
  moves          list the legal moves
  hint           ask the engine for a move and its evaluation
  undo           take back your last move (and the engine's reply)
  show           toggle marking the legal moves on the board (Othello)
  board          draw the board again
  save [FILE]    save the game record
  resign, END    give up the game
  new            start a new game
  quit           leave";

/// Edit distance with adjacent transpositions (for "did you mean").
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// An evaluation in words, from the point of view of `side`.
fn describe_score(score: i32, side: &str) -> String {
    if score.abs() >= MATE_BOUND {
        let plies = crate::search::MATE - score.abs();
        let moves = (plies + 1) / 2;
        if score > 0 {
            format!(
                "{side} wins in {moves} move{}",
                if moves == 1 { "" } else { "s" }
            )
        } else {
            format!(
                "{side} loses in {moves} move{}",
                if moves == 1 { "" } else { "s" }
            )
        }
    } else {
        format!("{:+.2} for {side}", score as f64 / 100.0)
    }
}

impl<'a, G: Show, R: BufRead, W: Write> Session<'a, G, R, W> {
    pub fn new(start: G, moves: Vec<G::Move>, cfg: PlayConfig, input: R, out: &'a mut W) -> Self {
        let mut line = GameLine::new(start.clone());
        for m in moves {
            line.play(m);
        }
        let mut engine = Engine::new(start.clone());
        if let Err(e) = engine.set_option("Skill", Some(&cfg.level.to_string())) {
            log::error!("play: {e}");
        }
        Session {
            engine,
            cfg,
            start,
            line,
            input,
            out,
            resigned: None,
            announced_end: false,
            quit: false,
        }
    }

    fn say(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
    }

    fn prompt(&mut self, text: &str) -> Option<String> {
        let _ = write!(self.out, "{text}");
        let _ = self.out.flush();
        let mut buf = Vec::new();
        match self.input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(String::from_utf8_lossy(&buf).trim().to_string()),
        }
    }

    fn name(&self, p: Player) -> &'static str {
        G::SIDES[p.index()]
    }

    fn show_board(&mut self) {
        let board = G::render(&self.line, &self.cfg.style);
        self.say(&board);
        if let Some(&m) = self.line.moves.last() {
            let mut before = self.line.clone();
            before.undo();
            let who = self.name(before.pos.to_move());
            let text = before.pos.format_human(m);
            self.say(&format!("Last move: {text} ({who})"));
        }
    }

    fn result(&self) -> Option<(GameResult, String)> {
        if let Some(p) = self.resigned {
            let r = match p {
                Player::P1 => GameResult::P2Win,
                Player::P2 => GameResult::P1Win,
            };
            return Some((r, format!("{} resigns", self.name(p))));
        }
        self.line.result()
    }

    fn announce_end(&mut self, r: GameResult, why: &str) {
        let winner = match r {
            GameResult::P1Win => format!("{} wins", self.name(Player::P1)),
            GameResult::P2Win => format!("{} wins", self.name(Player::P2)),
            GameResult::Draw => "Draw".to_string(),
        };
        self.say(&format!(
            "Game over: {why}. {winner} ({}).",
            result_text(Some(r))
        ));
        if let Some(p) = self.cfg.save.clone() {
            self.save(Some(p.to_string_lossy().as_ref()));
        }
        self.say("Type new to play again, undo to take back a move, save FILE, or quit.");
    }

    fn record(&self) -> Record {
        // Chess records give a FEN only for other starts; the other games always do.
        let standard = self.line.start.is_standard_start();
        let (r, why) = match self.result() {
            Some((r, why)) => (Some(r), why),
            None => (None, "unterminated".into()),
        };
        let who = |h: bool| {
            if h {
                "Human".to_string()
            } else {
                "tabula".to_string()
            }
        };
        let mut tags: Vec<(&str, String)> = vec![
            ("Event", "tabula play".into()),
            ("Site", "terminal".into()),
            ("Date", "????.??.??".into()),
            ("Round", "-".into()),
            (if G::PGN { "White" } else { "P1" }, who(self.cfg.human[0])),
            (if G::PGN { "Black" } else { "P2" }, who(self.cfg.human[1])),
            ("Result", result_text(r).into()),
            ("Termination", why),
        ];
        if let Some(size) = self.line.pos.size_tag() {
            tags.push(("Size", size));
        }
        Record::of(&self.line, &tags, standard)
    }

    fn save(&mut self, name: Option<&str>) {
        let Some(path) = name.map(str::to_string).or_else(|| {
            self.cfg
                .save
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned())
        }) else {
            self.say("Say where: save FILE");
            return;
        };
        let text = self.record().text_of(&self.line.start);
        match std::fs::write(&path, text) {
            Ok(()) => self.say(&format!("Saved to {path}.")),
            Err(e) => self.say(&format!(
                "Could not save to {path}: {e}. Try another file name."
            )),
        }
    }

    /// The engine's choice for the current position, with a line of explanation.
    fn think(&mut self) -> Option<(G::Move, String)> {
        let fen = self.line.start.fen();
        let moves = self.line.protocol_moves();
        if let Err(e) = self.engine.set_position(Some(&fen), &moves) {
            log::error!("play: engine position rejected: {e}");
            return None;
        }
        let limits = match self.cfg.depth {
            Some(d) => Limits::depth(d),
            None => Limits {
                movetime: Some(self.cfg.movetime),
                allow_solver: true,
                ..Default::default()
            },
        };
        let last = std::sync::Mutex::new(None::<(i32, u32)>);
        let report = |i: &Info<G::Move>| {
            if let Ok(mut l) = last.lock() {
                *l = Some((i.score, i.depth));
            }
        };
        let r = self.engine.search_now(limits, &report);
        let best = r.best?;
        let side = self.name(self.line.pos.to_move());
        let (score, depth) = last
            .lock()
            .ok()
            .and_then(|l| *l)
            .unwrap_or((r.score, r.depth));
        Some((
            best,
            format!("{}, depth {depth}", describe_score(score, side)),
        ))
    }

    fn legal(&self) -> Vec<G::Move> {
        let mut v = Vec::new();
        self.line.pos.legal_moves(&mut v);
        v
    }

    fn is_pass_only(&self) -> bool {
        let v = self.legal();
        v.len() == 1 && self.line.pos.format_move(v[0]) == "0000"
    }

    fn list_moves(&mut self) {
        let pos = self.line.pos.clone();
        let names: Vec<String> = self
            .legal()
            .into_iter()
            .map(|m| pos.format_human(m))
            .collect();
        self.say(&format!(
            "Legal moves ({}): {}",
            names.len(),
            names.join(" ")
        ));
    }

    /// Reads a move the person typed; errors explain and suggest.
    fn read_move(&mut self, text: &str) -> Result<G::Move, String> {
        let pos = self.line.pos.clone();
        let squeezed: String = text.split_whitespace().collect();
        let err = match pos
            .parse_human(text.trim())
            .or_else(|e| pos.parse_human(&squeezed).map_err(|_| e))
        {
            Ok(m) => return Ok(m),
            Err(e) => e,
        };
        // Chess, as the original program did: a square alone picks the piece to move.
        if G::PICK_BY_SQUARE && squeezed.len() == 2 {
            let from = squeezed.to_ascii_lowercase();
            let targets: Vec<(G::Move, String)> = self
                .legal()
                .into_iter()
                .filter(|&m| pos.format_move(m).starts_with(&from))
                .map(|m| (m, pos.format_move(m)[2..].to_string()))
                .collect();
            if !targets.is_empty() {
                let list: Vec<&str> = targets.iter().map(|t| t.1.as_str()).collect();
                let to = self.prompt(&format!(
                    "Move from {from} to which square? ({}): ",
                    list.join(", ")
                ));
                let to = to.unwrap_or_default().to_ascii_lowercase();
                let to: String = to.split_whitespace().collect();
                if let Some((m, _)) = targets
                    .iter()
                    .find(|t| t.1 == to || t.1 == format!("{to}q"))
                {
                    return Ok(*m);
                }
                return Err(format!("{from} to '{to}' is not a legal move"));
            }
        }
        // A near miss: offer the closest legal move.
        let low = squeezed.to_ascii_lowercase();
        let mut close: Vec<(usize, G::Move, String)> = self
            .legal()
            .into_iter()
            .map(|m| {
                let h = pos.format_human(m);
                let d = distance(&low, &h.to_ascii_lowercase().replace(['+', '#'], ""));
                (d, m, h)
            })
            .filter(|(d, ..)| *d <= 1)
            .collect();
        close.sort_by_key(|c| c.0);
        if close.len() == 1 || (close.len() > 1 && close[0].0 < close[1].0) {
            let (_, m, h) = close.swap_remove(0);
            let answer = self.prompt(&format!("{err}. Did you mean \"{h}\"? (y/n): "));
            if answer.is_some_and(|a| a.to_ascii_lowercase().starts_with('y')) {
                return Ok(m);
            }
            return Err("Not played".to_string());
        }
        Err(err)
    }

    /// Plays the game until quit or end of input.
    pub fn run(&mut self) {
        let human_sides: Vec<&str> = [Player::P1, Player::P2]
            .into_iter()
            .filter(|p| self.cfg.human[p.index()])
            .map(|p| self.name(p))
            .collect();
        self.say(&format!(
            "tabula play {}: {}. Type a move ({}), or help.",
            G::NAME,
            match human_sides.len() {
                0 => "the engine plays both sides".to_string(),
                2 => "two players".to_string(),
                _ => format!("you play {}", human_sides[0]),
            },
            self.line.pos.move_help()
        ));
        self.show_board();
        while !self.quit {
            if let Some((r, why)) = self.result() {
                if !self.announced_end {
                    self.announced_end = true;
                    self.announce_end(r, &why);
                }
                let Some(cmd) = self.prompt("> ") else { return };
                if !self.command(&cmd) {
                    self.say("The game is over: type new, undo, save FILE or quit.");
                }
                continue;
            }
            let side = self.line.pos.to_move();
            let name = self.name(side);
            if self.is_pass_only() {
                let legal = self.legal();
                self.say(&format!("{name} has no legal move and passes."));
                self.line.play(legal[0]);
                continue;
            }
            if !self.cfg.human[side.index()] {
                self.say(&format!("tabula ({name}) is thinking..."));
                match self.think() {
                    Some((m, why)) => {
                        let text = self.line.pos.format_human(m);
                        self.line.play(m);
                        self.show_board();
                        self.say(&format!("tabula plays {text} ({why})."));
                    }
                    None => {
                        self.say("The engine found no move; you play this side now.");
                        self.cfg.human[side.index()] = true;
                    }
                }
                continue;
            }
            let Some(text) = self.prompt(&format!("{name} to move: ")) else {
                if let Some(p) = self.cfg.save.clone() {
                    self.save(Some(p.to_string_lossy().as_ref()));
                }
                return;
            };
            if text.is_empty() || self.command(&text) {
                continue;
            }
            match self.read_move(&text) {
                Ok(m) => {
                    self.line.play(m);
                    self.show_board();
                }
                Err(e) => self.say(&format!(
                    "{e}. Type moves to list the legal moves, or help."
                )),
            }
        }
    }

    /// Handles a command; false if `text` is not one.
    fn command(&mut self, text: &str) -> bool {
        let mut words = text.split_whitespace();
        let word = words.next().unwrap_or("").to_ascii_lowercase();
        let arg = words.next();
        match word.as_str() {
            "help" | "?" => {
                let h = format!("{HELP}\nMoves: {}", self.line.pos.move_help());
                self.say(&h);
            }
            "quit" | "exit" => {
                self.say("Bye.");
                self.quit = true;
            }
            "moves" => self.list_moves(),
            "board" => self.show_board(),
            "show" => {
                self.cfg.style.show_moves = !self.cfg.style.show_moves;
                self.show_board();
            }
            "save" => self.save(arg),
            "new" => {
                self.line = GameLine::new(self.start.clone());
                self.resigned = None;
                self.announced_end = false;
                self.engine.new_game();
                self.say("New game.");
                self.show_board();
            }
            "resign" | "end" => {
                if self.result().is_some() {
                    self.say("The game is already over.");
                } else {
                    self.resigned = Some(self.line.pos.to_move());
                }
            }
            "undo" | "takeback" => {
                self.resigned = None;
                self.announced_end = false;
                let mut undone = 0;
                // Back to the last position where a human was to move.
                while self.line.undo() {
                    undone += 1;
                    let p = self.line.pos.to_move();
                    if self.cfg.human[p.index()] && !self.is_pass_only() {
                        break;
                    }
                }
                if undone == 0 {
                    self.say("Nothing to undo.");
                } else {
                    self.say(&format!(
                        "Took back {undone} move{}.",
                        if undone == 1 { "" } else { "s" }
                    ));
                    self.show_board();
                }
            }
            "hint" => {
                if self.result().is_some() {
                    self.say("The game is over.");
                } else {
                    match self.think() {
                        Some((m, why)) => {
                            let t = self.line.pos.format_human(m);
                            self.say(&format!("Hint: {t} ({why})."));
                        }
                        None => self.say("No hint: there is no move to make."),
                    }
                }
            }
            _ => return false,
        }
        true
    }
}
