//! The analysis board in a real browser (headless Chromium, as `browser.rs`), for every game:
//! a game loaded from a record, stepped through with the move list and the arrow keys,
//! analysed with 3 lines, a variation made from an earlier position, the game reviewed (the
//! graph gets a point per position, a click on it goes there), exported and loaded again.
//! Chess: the PGN comes from python-chess (another program: comments, NAGs, a variation),
//! and python-chess reads tabula's export back (main line and variation equal). Othello: the
//! solver's exact values from 16 empties appear on the graph. Screenshots:
//! `analysis-<game>.png` (to `$TABULA_SCREENSHOTS`; the README's come from
//! `TABULA_SCREENSHOTS=docs`).

#[path = "common/browser.rs"]
mod browser;
mod common;
#[path = "common/http.rs"]
mod http;

use browser::Browser;
use http::Server;
use serde_json::{Value, json};
use std::process::Command;

/// The WebDriver key codes of the arrow keys.
const LEFT: &str = "\u{E012}";
const RIGHT: &str = "\u{E014}";

fn node(st: &Value, id: u64) -> &Value {
    st["tree"]
        .as_array()
        .and_then(|t| t.iter().find(|n| n["id"] == id))
        .unwrap_or_else(|| panic!("no node {id} in {}", st["tree"]))
}

/// The moves of the main line, as the tree lists them.
fn main_line(st: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = node(st, 0);
    while let Some(c) = at["children"][0].as_u64() {
        at = node(st, c);
        out.push(at["text"].as_str().unwrap_or("").to_string());
    }
    out
}

fn cursor(st: &Value) -> u64 {
    st["cursor"].as_u64().unwrap_or(u64::MAX)
}

/// Presses a key on the page (not in a field).
fn key(b: &Browser, k: &str) {
    b.cmd(
        "POST",
        "/actions",
        json!({"actions": [{"type": "key", "id": "kb", "actions": [
            {"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]}]}),
    )
    .expect("a key press");
}

/// Loads `text` with the page's Save and load box; the loaded game's state.
fn load(b: &Browser, text: &str) -> Value {
    let old = b.state()["id"].clone();
    b.js(
        "document.getElementById('record').value = arguments[0];",
        json!([text]),
    );
    b.click("#load");
    b.wait("the loaded game", 30, |st| st["id"] != old)
}

/// Exports with the page's button: the text it shows.
fn export(b: &Browser) -> String {
    b.js("document.getElementById('record').value = '';", json!([]));
    b.click("#export");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let t = b.js("return document.getElementById('record').value;", json!([]));
        if let Some(t) = t.as_str().filter(|t| !t.is_empty()) {
            return t.to_string();
        }
        assert!(std::time::Instant::now() < until, "no export");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Steps back with the arrow key and forward again; clicks the first move in the list.
fn step_through(b: &Browser) {
    let st = b.state();
    let end = cursor(&st);
    let parent = node(&st, end)["parent"].as_u64().unwrap_or(0);
    key(b, LEFT);
    b.wait("one move back", 10, |s| cursor(s) == parent);
    key(b, RIGHT);
    b.wait("one move forward", 10, |s| cursor(s) == end);
    let first = node(&st, 0)["children"][0].as_u64().expect("a first move");
    b.click(&format!("#mv-{first}"));
    b.wait("the first move's position", 10, |s| cursor(s) == first);
}

/// Analyses the position on show with 3 lines: each line has a score and moves.
fn analyse_three(b: &Browser) {
    // As a person chooses 3 lines: the select's change posts it.
    b.js(
        "const e = document.getElementById('multipv'); e.value = '3'; e.onchange();",
        json!([]),
    );
    b.wait("3 lines asked for", 10, |s| s["settings"]["multipv"] == 3);
    b.click("#analyse");
    let st = b.wait("three lines", 60, |s| {
        let lines = s["engine"]["info"]["lines"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        s["settings"]["analyse"] == true
            && lines.len() == 3
            && lines
                .iter()
                .all(|l| !l["score"].is_null() && l["pv"].as_array().is_some_and(|p| !p.is_empty()))
    });
    let shown = b.js(
        "return document.querySelectorAll('#lines li').length;",
        json!([]),
    );
    assert_eq!(shown, 3, "the page lists the three lines: {}", st["engine"]);
    let here = st["history"].as_array().map_or(0, Vec::len);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        b.state()["history"].as_array().map_or(0, Vec::len),
        here,
        "analysis never plays"
    );
}

fn stop_analysis(b: &Browser) {
    b.click("#analyse");
    b.wait("the analysis to stop", 10, |s| {
        s["settings"]["analyse"] == false
    });
}

/// Reviews the line on show: every position not at the end gets a score; a click on the
/// graph goes to a position.
fn review(b: &Browser) -> Value {
    let width = |b: &Browser| {
        b.js(
            "return document.getElementById('review').offsetWidth;",
            json!([]),
        )
    };
    let before = width(b);
    b.click("#review");
    // On, or (a short line) already done.
    b.wait("the review on", 10, |s| {
        s["review"]["on"] == true || node(s, cursor(s))["reviewed"] == true
    });
    let label = b.text("#review");
    assert!(
        label == "Stop review" || b.state()["review"]["on"] == false,
        "{label} while reviewing"
    );
    assert_eq!(
        width(b),
        before,
        "the button's width moved the row under it"
    );
    // It ends by itself once every position is scored, and the page says so.
    let st = b.wait("the review", 120, |s| {
        let line = s["line"].as_array().cloned().unwrap_or_default();
        s["review"]["on"] == false
            && line.iter().filter_map(Value::as_u64).all(|id| {
                node(s, id)["reviewed"] == true
                    || node(s, id)["children"]
                        .as_array()
                        .is_some_and(|c| c.is_empty())
            })
    });
    assert_eq!(b.text("#review"), "Review the game");
    assert_eq!(b.text("#analysis-state").to_lowercase(), "(review done)");
    let points = b.js(
        "return document.querySelectorAll('#graph circle').length;",
        json!([]),
    );
    assert!(points.as_u64().unwrap_or(0) >= 3, "graph points: {points}");
    // A click at the graph's left edge: the start.
    b.js(
        "const s = document.querySelector('#graph svg'); const r = s.getBoundingClientRect(); \
         s.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + 7, clientY: r.top + 20}));",
        json!([]),
    );
    b.wait("the graph's first position", 10, |s| cursor(s) == 0);
    st
}

/// A python-chess PGN: comments, NAGs, a clock comment, a variation.
fn python_chess_pgn() -> Option<String> {
    let script = r#"
import chess.pgn, io
g = chess.pgn.Game()
g.headers["Event"] = "python-chess"
n = g
for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"]:
    n = n.add_variation(n.board().parse_san(san))
    n.comment = "[%clk 0:03:00]"
alt = g.variations[0].add_variation(chess.Move.from_uci("c7c5"))
alt.nags.add(chess.pgn.NAG_GOOD_MOVE)
alt.add_variation(chess.Move.from_uci("g1f3")).comment = "the Sicilian"
print(g)
"#;
    let out = Command::new("python3").args(["-c", script]).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// python-chess's reading of a PGN: the main line's SAN and every variation's first move.
fn python_chess_reads(pgn: &str) -> Option<String> {
    let script = r#"
import chess.pgn, io, sys
g = chess.pgn.read_game(io.StringIO(sys.stdin.read()))
main = []
alts = []
n = g
while n.variations:
    for v in n.variations[1:]:
        alts.append(n.board().san(v.move))
    n = n.variations[0]
    main.append(n.san())
print(" ".join(main) + " | " + " ".join(alts) + " | " + str(len(g.errors)))
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    use std::io::Write;
    child.stdin.take()?.write_all(pgn.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn chess(b: &Browser) {
    let Some(pgn) = python_chess_pgn() else {
        common::client_missing("python-chess not found (pip install chess)");
        return;
    };
    let st = load(b, &pgn);
    assert_eq!(
        main_line(&st),
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"]
    );
    assert_eq!(
        st["tree"].as_array().map_or(0, Vec::len),
        12,
        "9 moves, c5 and its Nf3, the start"
    );
    assert_eq!(
        st["settings"]["human"],
        json!([true, true]),
        "a loaded game is the person's"
    );
    step_through(b);
    // From e4 (node 1), Black's c6 by the board: a variation beside e5 and c5.
    let from = cursor(&b.state());
    analyse_three(b);
    stop_analysis(b);
    b.js(
        "document.getElementById('branch').value = 'variation';",
        json!([]),
    );
    b.click("#cell-1-2");
    b.click("#cell-2-2");
    let st = b.wait("the variation c6", 10, |s| {
        node(s, from)["children"].as_array().map_or(0, Vec::len) == 3
    });
    assert_eq!(
        main_line(&st)[1],
        "e5",
        "a variation leaves the main line as it was"
    );
    key(b, LEFT);
    b.wait("back to e4", 10, |s| cursor(s) == from);
    b.click("#nav-end");
    review(b);
    b.click("#nav-end");
    b.wait("the main line's end", 10, |s| {
        node(s, cursor(s))["children"]
            .as_array()
            .is_some_and(|c| c.is_empty())
    });
    // The lines on show in the picture.
    analyse_three(b);
    b.screenshot("analysis-chess.png");
    stop_analysis(b);
    let text = export(b);
    assert!(
        text.contains("[Result \"*\"]") && text.contains("( 1... c5"),
        "{text}"
    );
    match python_chess_reads(&text) {
        Some(r) => assert_eq!(r, "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O | c5 c6 | 0", "{text}"),
        None => common::client_missing("python-chess cannot read the export"),
    }
    let back = load(b, &text);
    assert_eq!(main_line(&back), main_line(&st));
    assert_eq!(back["tree"].as_array().map_or(0, Vec::len), 13);
}

/// An Othello game played here to 14 empties (the first legal move each time), through the
/// server's API, exported as GGF and loaded in the page.
fn othello(b: &Browser, server: &Server) {
    let st = server.ok(
        "/api/new",
        &json!({"game": "othello", "human": "both", "exact": false}),
    );
    let id = st["id"].as_str().unwrap_or("").to_string();
    let mut st = st;
    loop {
        let empties = st["cells"].as_array().map_or(0, |rows| {
            rows.iter()
                .flat_map(|r| r.as_array().cloned().unwrap_or_default())
                .filter(|c| c == "")
                .count()
        });
        if empties <= 14 || !st["result"].is_null() {
            break;
        }
        let mv = st["moves"][0]["uci"].clone();
        st = server.ok("/api/move", &json!({"id": id, "move": mv}));
    }
    let ggf = server.ok("/api/export", &json!({"id": id}))["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    server.ok("/api/close", &json!({"id": id}));
    assert!(ggf.starts_with("(;GM[Othello]"), "{ggf}");
    let st = load(b, &ggf);
    assert_eq!(st["game"], "othello");
    let plies = st["history"].as_array().map_or(0, Vec::len);
    assert!(plies >= 44, "{plies} plies");
    // The solver values the position on show (14 empties): an exact point on the graph.
    b.js(
        "const e = document.getElementById('exact'); e.checked = true; e.onchange();",
        json!([]),
    );
    let st = b.wait("the exact value", 60, |s| {
        !node(s, cursor(s))["exact"].is_null()
    });
    let exact = b.js(
        "return document.querySelectorAll('#graph circle.g-exact').length;",
        json!([]),
    );
    assert!(
        exact.as_u64().unwrap_or(0) >= 1,
        "{}",
        node(&st, cursor(&st))
    );
    step_through(b);
    analyse_three(b);
    stop_analysis(b);
    b.click("#nav-end");
    b.wait("the end", 10, |s| {
        node(s, cursor(s))["children"]
            .as_array()
            .is_some_and(|c| c.is_empty())
    });
    review(b);
    b.click("#nav-end");
    b.wait("the end again", 10, |s| {
        !node(s, cursor(s))["exact"].is_null()
    });
    // The lines on show in the picture.
    analyse_three(b);
    b.screenshot("analysis-othello.png");
    stop_analysis(b);
    let again = export(b);
    let back = load(b, &again);
    assert_eq!(back["history"], st["history"], "GGF round trip");
}

/// Connect Four and Domineering: a few moves by clicks, the same steps, and their records.
fn by_clicks(b: &Browser, game: &str, fields: &[(&str, &str)], shot: &str) {
    let st = b.new_game(game, "both", fields, None);
    let mut st = st;
    for _ in 0..6 {
        let plies = st["history"].as_array().map_or(0, Vec::len);
        let cell = st["moves"][0]["cells"][0].clone();
        b.click(&format!("#cell-{}-{}", cell[0], cell[1]));
        st = b.wait("the move", 10, |s| {
            s["history"].as_array().map_or(0, Vec::len) > plies
        });
    }
    step_through(b);
    analyse_three(b);
    stop_analysis(b);
    // A different move from the first position: replacing the rest this time.
    let first = cursor(&b.state());
    key(b, LEFT);
    b.wait("the start", 10, |s| cursor(s) == 0);
    b.js(
        "document.getElementById('branch').value = 'replace';",
        json!([]),
    );
    let st = b.state();
    let taken = node(&st, first)["text"].clone();
    let other = st["moves"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["text"] != taken).cloned())
        .expect("another first move");
    let cell = &other["cells"][0];
    b.click(&format!("#cell-{}-{}", cell[0], cell[1]));
    let st = b.wait("the replacement", 10, |s| {
        node(s, 0)["children"].as_array().map_or(0, Vec::len) == 1 && cursor(s) != 0
    });
    assert_eq!(main_line(&st).len(), 1, "the rest replaced");
    for _ in 0..3 {
        let plies = b.state()["history"].as_array().map_or(0, Vec::len);
        let s = b.state();
        let cell = s["moves"][0]["cells"][0].clone();
        b.click(&format!("#cell-{}-{}", cell[0], cell[1]));
        b.wait("the move", 10, |s| {
            s["history"].as_array().map_or(0, Vec::len) > plies
        });
    }
    review(b);
    b.click("#nav-end");
    let st = b.wait("the end", 10, |s| cursor(s) != 0);
    // The lines on show in the picture.
    analyse_three(b);
    b.screenshot(shot);
    stop_analysis(b);
    let text = export(b);
    assert!(text.contains(&format!("[Game \"{game}\"]")), "{text}");
    let back = load(b, &text);
    assert_eq!(main_line(&back), main_line(&st));
}

#[test]
fn the_analysis_board_for_every_game() {
    let Some(b) = Browser::start() else { return };
    let server = Server::start(&[]);
    // Tall enough for the board and the analysis box in one screenshot.
    b.cmd(
        "POST",
        "/window/rect",
        json!({"width": 1180, "height": 1500}),
    )
    .expect("a window size");
    b.open(&server.url());
    b.wait("the first game", 30, |st| st["game"] == "chess");
    chess(&b);
    othello(&b, &server);
    by_clicks(&b, "connect4", &[], "analysis-connect4.png");
    by_clicks(
        &b,
        "domineering",
        &[("rows", "6"), ("cols", "6")],
        "analysis-domineering.png",
    );
}

#[test]
fn a_loaded_games_comments_and_result_are_shown() {
    let Some(b) = Browser::start() else { return };
    let server = Server::start(&[]);
    b.open(&server.url());
    b.wait("the first game", 30, |st| st["game"] == "chess");
    let pgn = "[White \"Anderssen\"]\n[Black \"Kieseritzky\"]\n[Result \"1-0\"]\n\n1. e4 {the King's Gambit follows} e5 2. f4 exf4 $6 1-0\n";
    let st = load(&b, pgn);
    assert_eq!(st["recorded"]["text"], "1-0", "{st}");
    let turn = b.text("#turn");
    assert!(!turn.contains("your move"), "at the record's end: {turn}");
    let result = b.text("#result");
    assert!(
        result.contains("White wins") && result.contains("1-0"),
        "{result}"
    );
    let moves = b.text("#history");
    assert!(
        moves.contains("the King's Gambit follows") && moves.contains("exf4?!"),
        "{moves}"
    );
    // One move back, the game goes on: a person's move, no result.
    key(&b, LEFT);
    b.wait("one move back", 10, |s| s["recorded"].is_null());
    assert!(b.text("#turn").contains("your move"));
    assert_eq!(b.text("#result"), "");
    let text = export(&b);
    assert!(
        text.contains("[White \"Anderssen\"]")
            && text.contains("[Result \"1-0\"]")
            && text.contains("{the King's Gambit follows}"),
        "{text}"
    );
}

#[test]
fn an_earlier_position_of_the_engines_side_is_not_the_persons_move() {
    let Some(b) = Browser::start() else { return };
    let server = Server::start(&[]);
    b.open(&server.url());
    b.wait("the first game", 30, |st| st["game"] == "chess");
    let st = b.new_game("connect4", "p1", &[], None);
    let cell = &browser::first_move(&st)["cells"][0];
    b.click(&format!("#cell-{}-{}", cell[0], cell[1]));
    let st = b.wait("the engine's reply", 30, |s| {
        browser::history(s).len() == 2 && browser::mine(s)
    });
    assert!(b.text("#turn").contains("your move"));
    // The engine's note in plain words, naming the side its number is for (no jargon).
    let note = b.text("#note");
    assert!(!note.contains("convention"), "{note}");
    if note.contains("wins") {
        assert!(
            note.contains("for Red") || note.contains("for Yellow"),
            "{note}"
        );
    }
    // Back one move: the engine's side is to move there.
    key(&b, LEFT);
    b.wait("one move back", 10, |s| cursor(s) != cursor(&st));
    let turn = b.text("#turn");
    assert!(!turn.contains("your move"), "{turn}");
    assert!(turn.contains("tabula's side"), "{turn}");
}

#[test]
fn no_exact_values_never_flashes_where_there_are_values() {
    let Some(b) = Browser::start() else { return };
    let server = Server::start(&[]);
    b.open(&server.url());
    b.wait("the first game", 30, |st| st["game"] == "chess");
    b.new_game("connect4", "both", &[], None);
    // Every text the solver's state shows from here on.
    b.js(
        "window.seen = []; const e = document.getElementById('exact-state'); \
         new MutationObserver(() => window.seen.push(e.textContent)) \
           .observe(e, {childList: true, characterData: true, subtree: true});",
        json!([]),
    );
    for k in 1..=3 {
        let st = b.state();
        let cell = &browser::first_move(&st)["cells"][0];
        b.click(&format!("#cell-{}-{}", cell[0], cell[1]));
        b.wait("the move", 10, |s| browser::history(s).len() == k);
    }
    // Done, or out of time on a busy machine.
    b.wait("the values", 30, |s| s["exact"]["state"] != "running");
    let seen = b.js("return window.seen;", json!([]));
    assert!(
        !seen.to_string().to_lowercase().contains("no exact values"),
        "{seen}"
    );
}
