//! The browser board in a real browser: headless Chromium driven through chromedriver's
//! WebDriver HTTP interface, clicking the page as a person would. A Connect Four game the
//! engine wins, an Othello game with passes to its end, chess castling and promotion (with
//! the piece chooser), a Domineering game to its end, and take-backs. Screenshots of each game
//! go to `$TABULA_SCREENSHOTS` (the README's come from `TABULA_SCREENSHOTS=docs`), else to
//! Cargo's temporary directory. Skipped, with a message, when chromium or chromedriver is
//! missing (`apt-get install chromium chromium-driver`), except under CI, which installs them:
//! there a missing browser fails the test.

mod common;
#[path = "common/http.rs"]
mod http;

#[path = "common/browser.rs"]
mod browser;

use browser::{Browser, first_move, history, mine};
use http::{Server, request};
use serde_json::json;

fn connect_four_won_by_the_engine(b: &Browser) {
    b.new_game("connect4", "p2", &[("width", "7"), ("height", "6")], None);
    let st = b.play_out(120, |st| {
        // The person drops every stone in the leftmost open column.
        if history(st).len() == 3 {
            // Before the second stone, with the solver's column values on the board.
            b.wait("the column values", 30, |s| s["exact"]["state"] == "done");
            b.screenshot("connect4.png");
        }
        first_move(st)
    });
    assert_eq!(
        st["result"]["winner"], 0,
        "Red, the engine, wins: {}",
        st["result"]
    );
    assert_eq!(st["result"]["reason"], "four in a row");
    assert!(
        b.text("#result").contains("Red wins"),
        "{}",
        b.text("#result")
    );
}

fn othello_with_a_pass(b: &Browser) {
    // Black (the person) has no move and must pass; a few moves later the game ends.
    let fen = "4x2x/x1x1xxxx/xxxxxxxx/xxxxxxxx/xxooxxxx/ooooooxx/oooxooox/oooooooo x";
    let st = b.new_game("othello", "p1", &[], Some(fen));
    assert_eq!(st["fen"], fen);
    b.wait("the pass button", 10, |st| st["moves"][0]["pass"] == true);
    assert!(b.text("#turn").contains("must pass"), "{}", b.text("#turn"));
    let mut shot = false;
    let st = b.play_out(120, |st| {
        let moves = st["moves"].as_array().cloned().unwrap_or_default();
        if !shot && moves.len() > 1 {
            b.wait("the exact disc margins", 30, |s| {
                s["exact"]["state"] == "done"
            });
            b.screenshot("othello.png");
            shot = true;
        }
        first_move(st)
    });
    let h = history(&st);
    assert_eq!(h[0], "pass", "{h:?}");
    assert!(
        st["result"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("neither side can move"))
    );
    assert!(
        b.text("#counts").starts_with("Black "),
        "{}",
        b.text("#counts")
    );
}

fn chess_castling_promotion_and_take_back(b: &Browser) {
    let st = b.new_game("chess", "p1", &[], Some("4k3/1P6/8/8/8/8/8/4K2R w K - 0 1"));
    assert_eq!(st["to_move"], 0);
    // Castling: the king from e1, then g1 (the target is marked once the king is picked).
    b.click("#cell-7-4");
    let marked = b.js(
        "return document.getElementById('cell-7-6').classList.contains('target');",
        json!([]),
    );
    assert_eq!(marked, true, "g1 is a target of the king");
    b.click("#cell-7-6");
    let st = b.wait("Black's answer", 30, |st| history(st).len() == 2);
    assert_eq!(history(&st)[0], "O-O");
    assert_eq!(st["cells"][7][5], "R", "the rook on f1");
    assert_eq!(st["cells"][7][6], "K", "the king on g1");
    // Promotion: b7 to b8 opens the piece chooser; the knight is picked.
    b.click("#cell-1-1");
    b.click("#cell-0-1");
    let shown = b.js(
        "return !document.getElementById('promo').hidden;",
        json!([]),
    );
    assert_eq!(shown, true, "the promotion chooser is shown");
    b.click("#promo-n");
    let st = b.wait("Black's second answer", 30, |st| history(st).len() == 4);
    assert!(history(&st)[2].starts_with("b8=N"), "{:?}", history(&st));
    assert_eq!(st["cells"][0][1], "N");
    b.wait("the engine's report", 10, |st| {
        st["engine"]["info"]["depth"].is_u64()
    });
    b.screenshot("chess.png");
    // Take back: Black's answer and the promotion go, the pawn is back on b7.
    b.click("#undo");
    let st = b.wait("the take-back", 10, |st| history(st).len() == 2);
    assert_eq!(st["cells"][1][1], "P");
    assert_eq!(st["cells"][0][1], "");
    assert!(mine(&st), "White, the person, is to move again");
}

fn domineering_to_the_end_and_take_back(b: &Browser) {
    b.new_game(
        "domineering",
        "p1",
        &[("rows", "6"), ("cols", "6"), ("first", "h")],
        None,
    );
    let st = b.play_out(180, first_move);
    // The last to move wins.
    let winner = st["result"]["winner"].as_u64().expect("a winner");
    assert_eq!(
        st["to_move"].as_u64(),
        Some(1 - winner),
        "the side without a move lost"
    );
    let dominoes = b.js(
        "return document.querySelectorAll('.dom').length;",
        json!([]),
    );
    let plies = history(&st).len() as u64;
    assert_eq!(
        dominoes.as_u64(),
        Some(2 * plies),
        "two halves per domino drawn"
    );
    b.screenshot("domineering.png");
    // Take back to the person's last turn: the result goes, the board has fewer dominoes.
    b.click("#undo");
    let back = b.wait("the take-back", 10, |st| st["result"].is_null());
    assert!(mine(&back));
    let left = history(&back).len() as u64;
    assert!(left < plies && left + 2 >= plies, "{left} of {plies}");
    let dominoes = b.js(
        "return document.querySelectorAll('.dom').length;",
        json!([]),
    );
    assert_eq!(dominoes.as_u64(), Some(2 * left));
}

/// The second view: a match between two engines, watched to its end with the score kept.
fn a_match_watched(b: &Browser) {
    b.click("#view-match");
    // The controls set as a person sets them: a change of the level or the move time is also
    // a setting of the game on show, posted at once. Their answers are held back 1.5 s here
    // (as a busy server may be slow) and "Start match" is clicked before they come: the page
    // must stay with the match, not go back to the game it closed (a race seen in CI).
    b.js(
        "const f = window.fetch; window.tabulaFetch = f; \
         window.fetch = (u, i) => String(u).startsWith('/api/settings') \
           ? f(u, i).then((r) => new Promise((ok) => setTimeout(() => ok(r), 1500))) \
           : f(u, i);",
        json!([]),
    );
    for (id, value) in [
        ("game", "connect4"),
        ("engine-a", "0"),
        ("engine-b", "1"),
        ("games", "2"),
        ("movetime", "100"),
        ("level", "12"),
    ] {
        b.js(
            "const e = document.getElementById(arguments[0]); e.value = arguments[1]; \
             if (e.onchange) e.onchange();",
            json!([id, value]),
        );
    }
    let old = b.state()["id"].clone();
    b.click("#start-match");
    let st = b.wait("the match", 30, |st| {
        st["id"] != old && !st["match"].is_null()
    });
    let id = st["id"].clone();
    // The held answers have come and gone; the page still shows the match, with no error.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    b.js("window.fetch = window.tabulaFetch;", json!([]));
    assert_eq!(b.state()["id"], id, "the page stays with the match");
    assert_eq!(b.text("#error"), "", "no error about the game closed");
    assert_eq!(st["settings"]["level"], 12);
    assert_eq!(st["players"], json!(["tabula", "other"]));
    let st = b.wait("the second game", 120, |st| st["match"]["game"] == 2);
    assert_eq!(st["players"], json!(["other", "tabula"]), "colours changed");
    assert!(
        b.text("#match-games").contains("tabula"),
        "the first game is listed"
    );
    let st = b.wait("the end of the match", 120, |st| {
        st["match"]["finished"] == true
    });
    let score = b.text("#match-score");
    assert!(
        score.starts_with("tabula ") && score.contains(" other"),
        "{score}"
    );
    assert_eq!(st["match"]["results"].as_array().map(Vec::len), Some(2));
    // The plot `tabula match --report` draws, from the same course of the Elo.
    let plot = b.js(
        "return document.querySelectorAll('#match-plot svg#match-elo-svg').length;",
        json!([]),
    );
    assert_eq!(plot.as_u64(), Some(1), "the match's Elo plot");
    assert_eq!(
        st["match"]["course"]["points"].as_array().map(Vec::len),
        Some(2)
    );
    b.screenshot("match.png");
    b.click("#view-play");
}

#[test]
fn the_browser_board_plays_every_game() {
    let Some(b) = Browser::start() else { return };
    let other = format!(
        "name=other cmd={} args='--game connect4'",
        env!("CARGO_BIN_EXE_tabula")
    );
    let server = Server::start(&["--engine", &other]);
    b.open(&server.url());
    b.wait("the first game", 30, |st| st["game"] == "chess");
    connect_four_won_by_the_engine(&b);
    othello_with_a_pass(&b);
    chess_castling_promotion_and_take_back(&b);
    domineering_to_the_end_and_take_back(&b);
    a_match_watched(&b);
    // A second tab: its own game, while the first keeps its own.
    let first = b.state()["id"].clone();
    let (status, _) = request(&server.addr, "GET", "/", &[], b"");
    assert_eq!(status, 200);
    b.cmd("POST", "/window/new", json!({"type": "tab"}))
        .and_then(|v| {
            b.cmd(
                "POST",
                "/window",
                json!({"handle": v["handle"].as_str().unwrap_or("")}),
            )
        })
        .expect("a second tab");
    b.open(&server.url());
    let second = b.wait("the second tab's game", 30, |st| !st["id"].is_null());
    assert_ne!(second["id"], first, "each tab has a game of its own");
    assert_eq!(
        server
            .get(&format!("/api/state?id={}", first.as_str().unwrap_or("")))
            .0,
        200
    );
}
