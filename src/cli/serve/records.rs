//! A browser game saved and loaded in its game's own format. Export: chess as PGN (the
//! seven-tag roster, `[SetUp]`/`[FEN]` from another start, `[Variant "Chess960"]`, every
//! variation in parentheses); Othello as GGF, the format NBoard and the servers use (the main
//! line: GGF has no variations); Connect Four and Domineering as `tabula play` saves them
//! (tags with `[Game]` and `[FEN]`, moves in the game's notation), variations in parentheses,
//! which `tabula play --load` skips. A loaded record's tags, comments, NAGs and result are
//! written back out (its result while the main line ends where the record's did). Import: which game a text is (GGF's `(;`, a `[Game]` tag,
//! else chess), its board and start, and its moves as a tree (`movetext.rs`); the moves
//! themselves are checked with the game's rules by the session (`Session::load`).

use super::board::{View, grid_of_fen};
use super::movetext::{self, Writer};
use super::state::GameState;
use tabula::game::GameResult;
use tabula::games::fen_rows::write_row;
use tabula::record::{GameLine, result_text};

/// The main line's end as a `GameLine` (for the result).
fn main_line<G: View>(inner: &GameState<G>) -> GameLine<G> {
    let mut line = GameLine::new(inner.line.start.clone());
    let end = inner.tree.line_through(0).last().copied().unwrap_or(0);
    for mv in inner.tree.moves_to(end) {
        line.play(mv);
    }
    line
}

/// The result of the main line: by the rules, else a loaded record's while the main line
/// still ends where the record's did.
pub fn main_result<G: View>(inner: &GameState<G>) -> Option<GameResult> {
    main_line(inner).result().map(|(r, _)| r).or_else(|| {
        let end = inner.tree.line_through(0).last().copied().unwrap_or(0);
        inner
            .loaded
            .as_ref()
            .filter(|l| l.end == end)
            .and_then(|l| l.result)
    })
}

/// Tags that the export works out itself, never copied from a loaded record.
const OWN_TAGS: [&str; 6] = ["Result", "FEN", "SetUp", "PlyCount", "Game", "Variant"];

/// Today's date as `(year, month, day)`, UTC.
fn today() -> (i64, u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    // Days to civil date (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The game as text in its own format, and a file name for it.
pub fn export<G: View>(inner: &GameState<G>, names: &[String; 2]) -> (String, String) {
    let main = main_line(inner);
    let by_rules = main.result().is_some();
    let result = main_result(inner);
    let (y, m, d) = today();
    if G::NAME == "othello" {
        return (ggf(inner, &main, names, (y, m, d)), "game.ggf".into());
    }
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", "tabula serve".into()),
        ("Site", "tabula".into()),
        ("Date", format!("{y:04}.{m:02}.{d:02}")),
        ("Round", "-".into()),
    ];
    let (p1, p2) = if G::PGN {
        ("White", "Black")
    } else {
        ("P1", "P2")
    };
    tags.push((p1, names[0].clone()));
    tags.push((p2, names[1].clone()));
    tags.push(("Result", result_text(result).into()));
    if !G::PGN {
        tags.insert(0, ("Game", G::NAME.into()));
    }
    if let Some(v) = inner.line.start.variant() {
        tags.push(("Variant", v.into()));
    }
    let standard = inner.line.start.fen() == inner.standard.fen() && G::PGN;
    if !standard {
        if G::PGN {
            tags.push(("SetUp", "1".into()));
        }
        tags.push(("FEN", inner.line.start.fen()));
    }
    tags.push(("PlyCount", main.moves.len().to_string()));
    if let Some((_, why)) = main.result() {
        tags.push(("Termination", why));
    }
    // A loaded record's tags: its players, event, date, and any others, as written (its
    // `Termination` only while its result stands).
    for (k, v) in inner.loaded.iter().flat_map(|l| &l.tags) {
        let own = OWN_TAGS.iter().any(|t| t.eq_ignore_ascii_case(k))
            || (by_rules || result.is_none()) && k.eq_ignore_ascii_case("Termination");
        if own {
            continue;
        }
        match tags.iter_mut().find(|(t, _)| t.eq_ignore_ascii_case(k)) {
            Some(t) => t.1 = v.clone(),
            None => tags.push((k.as_str(), v.clone())),
        }
    }
    let mut s = String::new();
    for (k, v) in &tags {
        let v = v.replace('\\', "\\\\").replace('"', "\\\"");
        s.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    s.push('\n');
    let moves = movetext_of(inner);
    if !moves.is_empty() {
        s.push_str(&moves);
        s.push(' ');
    }
    s.push_str(result_text(result));
    s.push('\n');
    let file = if G::PGN { "game.pgn" } else { "game.txt" };
    (s, file.into())
}

/// The tree's moves as movetext (without the result).
fn movetext_of<G: View>(inner: &GameState<G>) -> String {
    let tree = &inner.tree;
    let start = &inner.line.start;
    let first_by_p2 = start.to_move().index() == 1;
    let full_move: usize = start
        .fen()
        .split_whitespace()
        .nth(5)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let children = |i: usize| tree.node(i).map_or_else(Vec::new, |n| n.children.clone());
    // The move, its NAGs, its comment (`}` cannot be written inside one: `)` instead).
    let text_of = |i: usize| {
        tree.node(i).map_or_else(String::new, |n| {
            let mut t = n.text.clone();
            for part in [n.nags.clone(), comment(&n.comment)] {
                if !part.is_empty() {
                    t.push(' ');
                    t.push_str(&part);
                }
            }
            t
        })
    };
    let ply = |i: usize| tree.ply(i).saturating_sub(1);
    let number = |ply: usize| {
        G::PGN.then(|| {
            let k = ply + usize::from(first_by_p2);
            (full_move + k / 2, k.is_multiple_of(2))
        })
    };
    let w = Writer {
        children: &children,
        text: &text_of,
        ply: &ply,
        number: &number,
    };
    let s = w.write(0, "");
    let s = s.trim_end();
    // The comment before the first move.
    match tree.node(0).map(|n| comment(&n.comment)) {
        Some(c) if !c.is_empty() => format!("{c}\n{s}").trim_end().to_string(),
        _ => s.to_string(),
    }
}

/// A comment as PGN writes it: `{text}` (empty where there is none).
fn comment(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", text.replace('}', ")"))
    }
}

/// Othello's GGF: the start board, Black's and White's moves of the main line, the result as
/// Black's disc margin.
fn ggf<G: View>(
    inner: &GameState<G>,
    main: &GameLine<G>,
    names: &[String; 2],
    (y, m, d): (i64, u32, u32),
) -> String {
    let start = &inner.line.start;
    let fen = start.fen();
    let grid = grid_of_fen(&fen);
    let n = grid.len();
    let squares: String = grid
        .iter()
        .flatten()
        .map(|c| match c.as_str() {
            "x" => '*',
            "o" => 'O',
            _ => '-',
        })
        .collect();
    let side = if start.to_move().index() == 0 {
        '*'
    } else {
        'O'
    };
    let result = match main.result() {
        Some((r, _)) => {
            let cells = grid_of_fen(&main.pos.fen());
            let count = |t: &str| cells.iter().flatten().filter(|c| c.as_str() == t).count() as i64;
            let margin = count("x") - count("o");
            // Empty squares go to the winner (the world association's rule, as tabula counts).
            let empty = (n * n) as i64 - count("x") - count("o");
            let margin = match r {
                GameResult::P1Win => margin + empty,
                GameResult::P2Win => margin - empty,
                GameResult::Draw => margin,
            };
            format!("{margin:+}.000")
        }
        // A loaded GGF's own `RE[]` while its result stands (the main line ends where the
        // record's did), as written.
        None => main_result(inner)
            .and(inner.loaded.as_ref())
            .and_then(|l| l.tags.iter().find(|(k, _)| k == "Result"))
            .map(|(_, v)| v.as_str())
            .filter(|v| ggf_result(v).is_some())
            .unwrap_or("?")
            .replace(']', ")"),
    };
    let mut s = format!(
        "(;GM[Othello]PC[tabula]DT[{y:04}-{m:02}-{d:02}]PB[{}]PW[{}]RE[{result}]TI[0]TY[{n}]BO[{n} {squares} {side}]",
        names[0].replace(']', ")"),
        names[1].replace(']', ")"),
    );
    let note = |node: usize| {
        inner
            .tree
            .node(node)
            .filter(|n| !n.comment.is_empty())
            .map_or_else(String::new, |n| {
                format!("C[{}]", n.comment.replace(']', ")"))
            })
    };
    s.push_str(&note(0));
    let nodes = inner.tree.line_through(0);
    let mut pos = start.clone();
    for (k, &mv) in main.moves.iter().enumerate() {
        let colour = if pos.to_move().index() == 0 { 'B' } else { 'W' };
        let t = pos.format_move(mv);
        let t = if t == "0000" {
            "PA".into()
        } else {
            t.to_ascii_uppercase()
        };
        s.push_str(&format!("{colour}[{t}]"));
        s.push_str(&note(nodes.get(k + 1).copied().unwrap_or(usize::MAX)));
        pos.play(mv);
    }
    s.push_str(";)\n");
    s
}

/// A record read for a new session: the game, its start (None: the usual one), Chess960, and
/// the moves as a tree.
#[derive(Debug)]
pub struct Imported {
    pub game: String,
    pub fen: Option<String>,
    pub chess960: bool,
    /// Board dimensions where no FEN gives them (`Size` tag: `8`, `7x6`).
    pub size: Option<(u32, u32)>,
    pub moves: Vec<(usize, String)>,
    /// Per record node (0 the start, i + 1 `moves[i]`): its comment and its NAGs (`$1 $14`).
    pub comments: Vec<String>,
    pub nags: Vec<String>,
    /// The record's tags, as written (written back out by `export`).
    pub tags: Vec<(String, String)>,
    /// The result the record gives (its `Result` tag, else its result token).
    pub result: Option<GameResult>,
}

/// The result of a GGF `RE[]`: Black's disc margin (`+12.000`, `-4`, `0`), perhaps with how
/// the game ended after a colon (`+64:r` resigned, `:t` time); `?` or anything else: none.
fn ggf_result(text: &str) -> Option<GameResult> {
    let margin = text.split(':').next()?.trim().parse::<f64>().ok()?;
    Some(if margin > 0.0 {
        GameResult::P1Win
    } else if margin < 0.0 {
        GameResult::P2Win
    } else {
        GameResult::Draw
    })
}

fn result_of(text: &str) -> Option<GameResult> {
    match text.trim() {
        "1-0" => Some(GameResult::P1Win),
        "0-1" => Some(GameResult::P2Win),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

/// Reads a record: GGF, tabula's records (a `[Game]` tag), or PGN.
pub fn import(text: &str) -> Result<Imported, String> {
    if text.contains("(;") {
        let g = tabula::games::othello::ggf::parse(text)?;
        // Rows as tabula's FEN writes them: a run of empty squares as its length.
        let rows: Vec<String> = g
            .squares
            .chunks(g.n as usize)
            .map(|r| write_row(r.iter().map(|&c| (c != '-').then_some(c))))
            .collect();
        let fen = format!(
            "{} {}",
            rows.join("/"),
            if g.black_to_move { 'x' } else { 'o' }
        );
        let moves = g
            .moves
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                (
                    i,
                    if m.eq_ignore_ascii_case("PA") {
                        "pass".into()
                    } else {
                        m
                    },
                )
            })
            .collect();
        // Its players (`PB` Black, the first player; `PW`) and its `C[]` comments, each
        // with the move before it (the start's before the first move).
        let mut tags = Vec::new();
        let mut comments = vec![String::new()];
        for (k, v) in tabula::games::othello::ggf::properties(text)? {
            match k {
                "PB" => tags.push(("P1".to_string(), v.to_string())),
                "PW" => tags.push(("P2".to_string(), v.to_string())),
                // Kept as written, for a GGF written back (`Result` is never copied into a
                // PGN's tags: the export works it out).
                "RE" => tags.push(("Result".to_string(), v.trim().to_string())),
                "B" | "W" => comments.push(String::new()),
                "C" => {
                    if let Some(c) = comments.last_mut() {
                        if !c.is_empty() {
                            c.push(' ');
                        }
                        c.push_str(v.trim());
                    }
                }
                _ => {}
            }
        }
        return Ok(Imported {
            game: "othello".into(),
            fen: Some(fen),
            chess960: false,
            size: Some((g.n, g.n)),
            comments,
            nags: Vec::new(),
            result: tags
                .iter()
                .find(|(k, _)| k == "Result")
                .and_then(|(_, v)| ggf_result(v)),
            tags,
            moves,
        });
    }
    let p = movetext::parse(text)?;
    if p.tags.is_empty() && p.moves.is_empty() {
        return Err("no game in the text: expected PGN, a tabula record or GGF".into());
    }
    let game = p.tag("Game").unwrap_or("chess").to_ascii_lowercase();
    let variant = p.tag("Variant").unwrap_or("").to_ascii_lowercase();
    let chess960 = matches!(
        variant.replace([' ', '-'], "").as_str(),
        "chess960" | "fischerandom" | "fischerrandom" | "960"
    );
    if !variant.is_empty() && !chess960 && !matches!(variant.as_str(), "standard" | "normal") {
        return Err(format!(
            "variant '{variant}': tabula plays standard chess and Chess960"
        ));
    }
    let size = p.tag("Size").and_then(|s| {
        let mut it = s.split(['x', 'X']).map(|v| v.trim().parse::<u32>().ok());
        match (it.next().flatten(), it.next()) {
            (Some(a), None) => Some((a, a)),
            (Some(a), Some(Some(b))) => Some((a, b)),
            _ => None,
        }
    });
    Ok(Imported {
        game,
        fen: p.tag("FEN").map(str::to_string),
        chess960,
        size,
        result: p
            .tag("Result")
            .and_then(result_of)
            .or_else(|| p.result.as_deref().and_then(result_of)),
        moves: p.moves,
        comments: p.comments,
        nags: p.nags,
        tags: p.tags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let (y, m, d) = today();
        assert!(y >= 2024 && (1..=12).contains(&m) && (1..=31).contains(&d));
    }

    #[test]
    fn which_game() {
        let g = import("(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[PA];)").unwrap();
        assert_eq!((g.game.as_str(), g.moves.len()), ("othello", 2));
        assert_eq!(g.moves[1], (1, "pass".to_string()));
        let g = import("[Game \"connect4\"]\n[FEN \"7/7/7/7/7/7 r\"]\n\n4 4 (3) 5 *").unwrap();
        assert_eq!(g.game, "connect4");
        assert_eq!(g.moves[2], (1, "3".to_string()));
        let g = import("[Variant \"Chess960\"]\n1. e4 *").unwrap();
        assert!(g.chess960 && g.game == "chess");
        assert!(import("[Variant \"Crazyhouse\"]\n1. e4 *").is_err());
        assert!(import("").is_err());
    }
}
