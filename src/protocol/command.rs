//! Every protocol line is parsed here, with nom, into a typed `Command`. The UCI and UGI
//! dialects share one grammar (their differences are aliases: `wtime`/`p1time`,
//! `ucinewgame`/`uginewgame`); NBoard lines have their own variants.
//!
//! Tokens are separated by any run of spaces or tabs. Per the UCI specification, unknown
//! words before a known command are skipped ("joho debug on" is "debug on"). A line that
//! still does not parse gets an error naming the offending token and what was expected.

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{tag, take_till1},
    character::complete::{i64 as int64, space0, space1, u32 as uint32, u64 as uint64},
    combinator::{eof, map, opt, peek, rest, value, verify},
    multi::{many0, many1},
    sequence::{preceded, terminated},
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    P1Turn,
    GameOver,
    Result,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub searchmoves: Vec<String>,
    pub ponder: bool,
    pub time: [Option<i64>; 2],
    pub inc: [Option<i64>; 2],
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub perft: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Ugi,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    NewGame,
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
    Query(Query),
    Display,
    Eval,
    Bench(Option<u32>),
}

type Res<'a, T> = IResult<&'a str, T>;

/// One whitespace-delimited token.
fn word(i: &str) -> Res<'_, &str> {
    take_till1(|c: char| c == ' ' || c == '\t').parse(i)
}

/// A keyword that must end at a token boundary (`depth` but not `depthx`).
fn kw<'a>(
    k: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    terminated(tag(k), peek(alt((space1, eof))))
}

/// A parser preceded by at least one space.
fn sp<'a, O>(
    p: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>> {
    preceded(space1, p)
}

/// Everything up to (not including) the token `stop`, trimmed; fails if empty.
fn until_token<'a>(stop: &'static str) -> impl Fn(&'a str) -> Res<'a, &'a str> {
    move |i: &'a str| {
        let mut pos = 0;
        let bytes = i.as_bytes();
        while pos < bytes.len() {
            while pos < bytes.len() && (bytes[pos] == b' ' || bytes[pos] == b'\t') {
                pos += 1;
            }
            let start = pos;
            while pos < bytes.len() && bytes[pos] != b' ' && bytes[pos] != b'\t' {
                pos += 1;
            }
            if &i[start..pos] == stop {
                let taken = i[..start].trim();
                return if taken.is_empty() {
                    Err(nom::Err::Error(nom::error::Error::new(
                        i,
                        nom::error::ErrorKind::TakeUntil,
                    )))
                } else {
                    Ok((&i[start - 1..], taken))
                };
            }
        }
        let taken = i.trim();
        if taken.is_empty() {
            return Err(nom::Err::Error(nom::error::Error::new(
                i,
                nom::error::ErrorKind::TakeUntil,
            )));
        }
        Ok(("", taken))
    }
}

const GO_WORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

#[derive(Clone)]
enum GoParam {
    SearchMoves(Vec<String>),
    Ponder,
    Infinite,
    Time(usize, i64),
    Inc(usize, i64),
    MovesToGo(u32),
    Depth(u32),
    Nodes(u64),
    Mate(u32),
    MoveTime(i64),
    Perft(u32),
}

fn go_param(i: &str) -> Res<'_, GoParam> {
    let mv = verify(word, |w: &str| !GO_WORDS.contains(&w));
    alt((
        map(
            preceded(kw("searchmoves"), many1(sp(map(mv, String::from)))),
            GoParam::SearchMoves,
        ),
        value(GoParam::Ponder, kw("ponder")),
        value(GoParam::Infinite, kw("infinite")),
        map(preceded(alt((kw("wtime"), kw("p1time"))), sp(int64)), |v| {
            GoParam::Time(0, v)
        }),
        map(preceded(alt((kw("btime"), kw("p2time"))), sp(int64)), |v| {
            GoParam::Time(1, v)
        }),
        map(preceded(alt((kw("winc"), kw("p1inc"))), sp(int64)), |v| {
            GoParam::Inc(0, v)
        }),
        map(preceded(alt((kw("binc"), kw("p2inc"))), sp(int64)), |v| {
            GoParam::Inc(1, v)
        }),
        map(preceded(kw("movestogo"), sp(uint32)), GoParam::MovesToGo),
        map(preceded(kw("depth"), sp(uint32)), GoParam::Depth),
        map(preceded(kw("nodes"), sp(uint64)), GoParam::Nodes),
        map(preceded(kw("mate"), sp(uint32)), GoParam::Mate),
        map(preceded(kw("movetime"), sp(int64)), GoParam::MoveTime),
        map(preceded(kw("perft"), sp(uint32)), GoParam::Perft),
    ))
    .parse(i)
}

fn go(i: &str) -> Res<'_, Command> {
    map(preceded(kw("go"), many0(sp(go_param))), |params| {
        let mut g = Go::default();
        for p in params {
            match p {
                GoParam::SearchMoves(m) => g.searchmoves = m,
                GoParam::Ponder => g.ponder = true,
                GoParam::Infinite => g.infinite = true,
                GoParam::Time(s, v) => g.time[s] = Some(v),
                GoParam::Inc(s, v) => g.inc[s] = Some(v),
                GoParam::MovesToGo(v) => g.movestogo = Some(v),
                GoParam::Depth(v) => g.depth = Some(v),
                GoParam::Nodes(v) => g.nodes = Some(v),
                GoParam::Mate(v) => g.mate = Some(v),
                GoParam::MoveTime(v) => g.movetime = Some(v),
                GoParam::Perft(v) => g.perft = Some(v),
            }
        }
        Command::Go(g)
    })
    .parse(i)
}

fn position(i: &str) -> Res<'_, Command> {
    let start = alt((
        value(None, kw("startpos")),
        map(preceded(kw("fen"), sp(until_token("moves"))), |f: &str| {
            Some(f.to_string())
        }),
    ));
    let moves = preceded(sp(kw("moves")), many0(sp(map(word, String::from))));
    map(
        (preceded(kw("position"), sp(start)), opt(moves)),
        |(fen, moves)| Command::Position {
            fen,
            moves: moves.unwrap_or_default(),
        },
    )
    .parse(i)
}

fn setoption(i: &str) -> Res<'_, Command> {
    let value_part = preceded(sp(kw("value")), opt(preceded(space1, rest)));
    map(
        (
            preceded((kw("setoption"), sp(kw("name"))), sp(until_token("value"))),
            opt(value_part),
        ),
        |(name, value): (&str, Option<Option<&str>>)| Command::SetOption {
            name: name.to_string(),
            value: value.flatten().map(|v| v.trim().to_string()),
        },
    )
    .parse(i)
}

fn simple(i: &str) -> Res<'_, Command> {
    alt((
        value(Command::Uci, kw("uci")),
        value(Command::Ugi, kw("ugi")),
        value(Command::IsReady, kw("isready")),
        value(Command::NewGame, alt((kw("ucinewgame"), kw("uginewgame")))),
        value(Command::Stop, kw("stop")),
        value(Command::PonderHit, kw("ponderhit")),
        value(Command::Quit, kw("quit")),
        value(Command::Display, kw("d")),
        value(Command::Eval, kw("eval")),
        value(Command::Register, terminated(kw("register"), rest)),
        map(
            preceded(kw("debug"), opt(sp(alt((kw("on"), kw("off")))))),
            |v| Command::Debug(v != Some("off")),
        ),
        map(preceded(kw("bench"), opt(sp(uint32))), Command::Bench),
        map(
            preceded(
                kw("query"),
                sp(alt((
                    value(Query::P1Turn, kw("p1turn")),
                    value(Query::GameOver, kw("gameover")),
                    value(Query::Result, kw("result")),
                ))),
            ),
            Command::Query,
        ),
    ))
    .parse(i)
}

const COMMANDS: &[&str] = &[
    "uci",
    "ugi",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "uginewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "query",
    "d",
    "eval",
    "bench",
];

/// What a command expects after its name, for error messages.
fn expectation(cmd: &str) -> &'static str {
    match cmd {
        "position" => "position startpos|fen <fen> [moves <move>...]",
        "go" => {
            "go [searchmoves <move>...] [ponder] [wtime|btime|winc|binc|movestogo|depth|nodes|mate|movetime <n>] [infinite] [perft <n>]"
        }
        "setoption" => "setoption name <id> [value <x>]",
        "debug" => "debug [on|off]",
        "query" => "query p1turn|gameover|result",
        "bench" => "bench [depth]",
        _ => "no arguments",
    }
}

/// Parses a line that starts with the command `name`; dispatching on the name keeps error
/// positions inside that command's grammar.
fn command<'a>(name: &str, i: &'a str) -> Res<'a, Command> {
    let body = match name {
        "position" => position,
        "go" => go,
        "setoption" => setoption,
        _ => simple,
    };
    terminated(body, space0).parse(i)
}

/// Parses one line (without its newline). Empty lines are `Ok(None)`.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim_matches(|c: char| c.is_whitespace());
    if line.is_empty() {
        return Ok(None);
    }
    // Skip unknown leading words until a known command name.
    let mut rest_of_line = line;
    loop {
        let first = rest_of_line.split([' ', '\t']).next().unwrap_or("");
        if COMMANDS.contains(&first) {
            break;
        }
        match rest_of_line.find([' ', '\t']) {
            Some(p) => rest_of_line = rest_of_line[p..].trim_start(),
            None => {
                let first = line.split([' ', '\t']).next().unwrap_or(line);
                return Err(format!("unknown command '{}'", truncate(first)));
            }
        }
    }
    let name = rest_of_line.split([' ', '\t']).next().unwrap_or("");
    match command(name, rest_of_line) {
        Ok((left, cmd)) => {
            let left = left.trim();
            let zero_arg = !matches!(
                cmd,
                Command::Position { .. } | Command::Go(_) | Command::SetOption { .. }
            );
            if left.is_empty() || zero_arg {
                Ok(Some(cmd))
            } else {
                let tok = left.split([' ', '\t']).next().unwrap_or(left);
                Err(format!(
                    "{name}: unexpected '{}' (expected: {})",
                    truncate(tok),
                    expectation(name)
                ))
            }
        }
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => {
            let at = e.input.trim_start();
            let tok = at.split([' ', '\t']).next().unwrap_or("");
            let what = if tok.is_empty() {
                "missing argument".to_string()
            } else {
                format!("unexpected '{}'", truncate(tok))
            };
            Err(format!("{name}: {what} (expected: {})", expectation(name)))
        }
        Err(nom::Err::Incomplete(_)) => Err(format!("{name}: incomplete line")),
    }
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 40 {
        let t: String = s.chars().take(40).collect();
        format!("{t}...")
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests;
