//! The NBoard protocol (Othello GUIs), version 2: commands parsed with nom, and the printer
//! that turns search events into `search`, `nodestats` and `=== move/eval/time` lines.
//!
//! Moves are upper-case squares (`F5`), a pass is `PA`; evals are in discs from the side to
//! move. Unknown lines are ignored, as the protocol asks. Errors go to the GUI's status line
//! (`status error: ...`) and to the log.

use crate::engine::Listener;
use crate::game::Game;
use crate::search::{Info, MATE_BOUND, SearchResult};
use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{tag, take_till1},
    character::complete::{i64 as int64, space1, u32 as uint32},
    combinator::{map, opt, rest, value},
    sequence::preceded,
};
use std::time::Instant;

#[derive(Clone, Debug, PartialEq)]
pub enum NbCommand {
    NBoard(u32),
    SetDepth(u32),
    SetGame(String),
    SetContempt(i64),
    Move(String),
    Hint(u32),
    Go,
    Ping(i64),
    Learn,
    Analyze,
    Quit,
}

fn command(i: &str) -> IResult<&str, NbCommand> {
    let set = preceded(
        (tag("set"), space1),
        alt((
            map(
                preceded((tag("depth"), space1), uint32),
                NbCommand::SetDepth,
            ),
            map(preceded((tag("game"), space1), rest), |g: &str| {
                NbCommand::SetGame(g.trim().to_string())
            }),
            map(
                preceded((tag("contempt"), space1), int64),
                NbCommand::SetContempt,
            ),
        )),
    );
    let mv = map(
        preceded(
            (tag("move"), space1),
            take_till1(|c: char| c == ' ' || c == '\t'),
        ),
        |m: &str| NbCommand::Move(m.split('/').next().unwrap_or("").to_string()),
    );
    alt((
        map(preceded((tag("nboard"), space1), uint32), NbCommand::NBoard),
        set,
        mv,
        map(preceded(tag("hint"), opt(preceded(space1, uint32))), |n| {
            NbCommand::Hint(n.unwrap_or(1))
        }),
        value(NbCommand::Go, tag("go")),
        map(preceded((tag("ping"), space1), int64), NbCommand::Ping),
        value(NbCommand::Learn, tag("learn")),
        value(NbCommand::Analyze, tag("analyze")),
        value(NbCommand::Quit, tag("quit")),
    ))
    .parse(i)
}

/// Parses an NBoard line: `Ok(None)` for blank or unknown lines (which NBoard says to
/// ignore), `Err` for a known command with bad arguments.
pub fn parse(line: &str) -> Result<Option<NbCommand>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let name = line.split_whitespace().next().unwrap_or("");
    let known = [
        "nboard", "set", "move", "hint", "go", "ping", "learn", "analyze", "quit",
    ];
    if !known.contains(&name) {
        return Ok(None);
    }
    match command(line) {
        // Trailing words after a complete command are tolerated, as NBoard's engines do.
        Ok((_, cmd)) => Ok(Some(cmd)),
        Err(_) if name == "set" => {
            // `set` with another parameter (NBoard adds some over time): ignore.
            let param = line.split_whitespace().nth(1).unwrap_or("");
            if ["depth", "game", "contempt"].contains(&param) {
                Err(format!("'{line}': expected set {param} <value>"))
            } else {
                Ok(None)
            }
        }
        Err(_) => Err(format!("'{line}': malformed {name} command")),
    }
}

/// NBoard move text: upper case, `PA` for a pass.
pub fn move_text<G: Game>(pos: &G, mv: G::Move) -> String {
    let s = pos.format_move(mv);
    if s == "0000" {
        "PA".into()
    } else {
        s.to_ascii_uppercase()
    }
}

/// Eval in discs from the side to move (scores are hundredths of a disc; a proven win or loss
/// without a margin counts as the whole board).
pub fn eval_discs(score: i32) -> f64 {
    if score >= MATE_BOUND {
        64.0
    } else if score <= -MATE_BOUND {
        -64.0
    } else {
        score as f64 / 100.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Go,
    Hint,
}

pub struct NbPrinter {
    pub out: super::Output,
    pub purpose: Purpose,
    pub start: Instant,
}

impl<G: Game> Listener<G> for NbPrinter {
    fn info(&self, root: &G, info: &Info<G::Move>) {
        if info.pv.is_empty() {
            return;
        }
        let mut pos = root.clone();
        let mut pv = Vec::new();
        for &m in &info.pv {
            pv.push(move_text(&pos, m));
            pos.play(m);
        }
        self.out.line(&format!(
            "search {} {:.2} 0 {}",
            pv.join("-"),
            eval_discs(info.score),
            info.depth
        ));
        self.out.line(&format!(
            "nodestats {} {:.2}",
            info.nodes,
            info.time_ms as f64 / 1000.0
        ));
    }

    fn bestmove(&self, root: &G, result: &SearchResult<G::Move>) {
        if self.purpose == Purpose::Go {
            let secs = self.start.elapsed().as_secs_f64();
            let mv = match result.best {
                Some(m) => move_text(root, m),
                None => "PA".into(),
            };
            self.out.line(&format!(
                "=== {mv}/{:.2}/{secs:.1}",
                eval_discs(result.score)
            ));
        }
        self.out.line("status");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse("nboard 2"), Ok(Some(NbCommand::NBoard(2))));
        assert_eq!(parse("set depth 12"), Ok(Some(NbCommand::SetDepth(12))));
        assert_eq!(
            parse("set contempt -3"),
            Ok(Some(NbCommand::SetContempt(-3)))
        );
        assert_eq!(
            parse("set game (;GM[Othello]BO[8 x *];)"),
            Ok(Some(NbCommand::SetGame("(;GM[Othello]BO[8 x *];)".into())))
        );
        assert_eq!(
            parse("move F5/1.5/0.3"),
            Ok(Some(NbCommand::Move("F5".into())))
        );
        assert_eq!(parse("move PA"), Ok(Some(NbCommand::Move("PA".into()))));
        assert_eq!(parse("hint 3"), Ok(Some(NbCommand::Hint(3))));
        assert_eq!(parse("hint"), Ok(Some(NbCommand::Hint(1))));
        assert_eq!(parse("go"), Ok(Some(NbCommand::Go)));
        assert_eq!(parse("ping 7"), Ok(Some(NbCommand::Ping(7))));
        assert_eq!(parse("learn"), Ok(Some(NbCommand::Learn)));
        assert_eq!(parse("analyze"), Ok(Some(NbCommand::Analyze)));
        assert_eq!(parse("quit"), Ok(Some(NbCommand::Quit)));
        assert_eq!(parse("frobnicate 3"), Ok(None), "unknown lines are ignored");
        assert_eq!(parse("set colour red"), Ok(None));
        assert!(parse("set depth x").is_err());
        assert!(parse("ping").is_err());
        assert!(parse("nboard").is_err());
    }
}
