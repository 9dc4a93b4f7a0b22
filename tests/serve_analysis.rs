//! The analysis board of `tabula serve` through its HTTP API (the page itself is driven in
//! Chromium by `browser_analysis.rs`): stepping back is not taking back (the engine does not
//! play from an earlier position), moves there make variations or replace the rest, analysis
//! gives several lines and never plays, the review scores the line, and records are checked
//! with tabula's rules on the way in and keep their variations, start and variant on the way
//! out.

#[path = "common/http.rs"]
mod http;

use http::Server;
use serde_json::{Value, json};
use std::time::Duration;

fn node(st: &Value, id: u64) -> Value {
    st["tree"]
        .as_array()
        .and_then(|t| t.iter().find(|n| n["id"] == id).cloned())
        .unwrap_or(Value::Null)
}

fn children(st: &Value, id: u64) -> usize {
    node(st, id)["children"].as_array().map_or(0, Vec::len)
}

fn plies(st: &Value) -> usize {
    st["history"].as_array().map_or(0, Vec::len)
}

#[test]
fn stepping_back_is_not_taking_back() {
    let s = Server::start(&[]);
    let st = s.ok(
        "/api/new",
        &json!({"game": "chess", "human": "p1", "movetime": 100}),
    );
    let id = st["id"].as_str().unwrap_or("").to_string();
    s.ok("/api/move", &json!({"id": id, "move": "e4"}));
    let st = s.wait_for(&id, 30, |st| plies(st) == 2);
    let reply = st["cursor"].as_u64().unwrap_or(0);
    // Back to the position after e4, where the engine (Black) is to move: it does not.
    let st = s.ok("/api/goto", &json!({"id": id, "node": 1}));
    assert_eq!((st["cursor"].clone(), plies(&st)), (json!(1), 1));
    std::thread::sleep(Duration::from_millis(800));
    let (_, st) = s.get(&format!("/api/state?id={id}"));
    assert_eq!(
        children(&st, 1),
        1,
        "the engine played from an earlier position: {st}"
    );
    assert_eq!(st["engine"]["thinking"], false);
    assert_eq!(st["can_move"], true, "a person may try Black's moves here");
    // A variation (a move other than the engine's reply, which may have been any), then back
    // to the main line's end: the game goes on from there.
    let other = if node(&st, reply)["text"].as_str() == Some("c5") {
        "e5"
    } else {
        "c5"
    };
    let st = s.ok("/api/move", &json!({"id": id, "move": other}));
    assert_eq!(children(&st, 1), 2);
    assert_eq!(st["line"].as_array().map_or(0, Vec::len), 3);
    let st = s.ok("/api/goto", &json!({"id": id, "node": reply}));
    assert_eq!(plies(&st), 2);
    s.ok("/api/move", &json!({"id": id, "move": "Nf3"}));
    s.wait_for(&id, 30, |st| plies(st) == 4);
    // `replace` from the start: one first move left, and no node of the old line.
    s.ok("/api/goto", &json!({"id": id, "node": 0}));
    let st = s.ok(
        "/api/move",
        &json!({"id": id, "move": "d4", "branch": "replace"}),
    );
    assert_eq!(children(&st, 0), 1);
    assert!(node(&st, 1).is_null());
    // Bad requests.
    for (path, body) in [
        ("/api/goto", json!({"id": id, "node": 99999})),
        ("/api/goto", json!({"id": id})),
        ("/api/remove", json!({"id": id, "node": 0})),
        ("/api/promote", json!({"id": id, "node": 1})),
        (
            "/api/move",
            json!({"id": id, "move": "d5", "branch": "sideways"}),
        ),
        ("/api/settings", json!({"id": id, "multipv": 6})),
    ] {
        let (status, v) = s.post(path, &body);
        assert_eq!(status, 400, "{path} {body}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
}

#[test]
fn analysis_gives_lines_and_never_plays() {
    let s = Server::start(&[]);
    let st = s.ok(
        "/api/new",
        &json!({"game": "othello", "human": "p2", "movetime": 100, "analyse": true, "multipv": 3}),
    );
    let id = st["id"].as_str().unwrap_or("").to_string();
    let st = s.wait_for(&id, 30, |st| {
        st["engine"]["info"]["lines"].as_array().is_some_and(|l| {
            l.len() == 3
                && l.iter()
                    .all(|l| !l["pv"].as_array().is_none_or(Vec::is_empty))
        })
    });
    assert_eq!(
        plies(&st),
        0,
        "the engine analyses, it does not play Black's move"
    );
    assert!(
        node(&st, 0)["score"]["text"].is_string(),
        "the start's score is kept"
    );
    // Analysis off: the engine plays its side again.
    s.ok("/api/settings", &json!({"id": id, "analyse": false}));
    s.wait_for(&id, 30, |st| plies(st) == 1);
    // The review scores every position of the line.
    s.ok("/api/review", &json!({"id": id, "on": true, "ms": 50}));
    let st = s.wait_for(&id, 30, |st| {
        [0, 1].iter().all(|&n| node(st, n)["reviewed"] == true)
    });
    assert!(node(&st, 1)["score"]["cp"].is_i64() || node(&st, 1)["score"]["mate"].is_i64());
    // Once the whole line is scored the review ends by itself.
    s.wait_for(&id, 10, |st| st["review"]["on"] == false);
}

#[test]
fn records_are_checked_and_keep_what_they_hold() {
    let s = Server::start(&[]);
    // An illegal move is named with its ply, and no game is opened.
    let (status, v) = s.post("/api/new", &json!({"record": "1. e4 e5 2. Ke3 *"}));
    assert_eq!(status, 400);
    assert!(
        v["error"].as_str().unwrap_or("").contains("ply 3 ('Ke3')"),
        "{v}"
    );
    for bad in [
        "1. e4 (1. d4",
        "(;GM[Othello]BO[8 --- *];)",
        "[Variant \"Atomic\"]\n1. e4 *",
    ] {
        let (status, v) = s.post("/api/new", &json!({"record": bad}));
        assert_eq!(status, 400, "{bad}: {v}");
    }
    // Chess960: the start and the variant survive a round trip.
    let pgn = "[Event \"960\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
               [FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n\
               9. g3 (9. e4 Ne7) 9... Nd7 *\n";
    let st = s.ok("/api/new", &json!({"record": pgn}));
    assert_eq!(plies(&st), 2);
    assert_eq!(children(&st, 0), 2);
    let id = st["id"].as_str().unwrap_or("");
    let text = s.ok("/api/export", &json!({"id": id}))["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    for want in [
        "[Variant \"Chess960\"]",
        "[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]",
        "9. g3 ( 9. e4 Ne7 ) 9... Nd7 *",
    ] {
        assert!(text.contains(want), "{want} in\n{text}");
    }
    // Connect Four as `tabula play` saves it; a finished game keeps its result.
    let st = s.ok(
        "/api/new",
        &json!({"record": "[Game \"connect4\"]\n[FEN \"7/7/7/7/7/7 r 1\"]\n\nd e d e d e d 1-0\n"}),
    );
    assert_eq!(st["result"]["winner"], 0);
    let id = st["id"].as_str().unwrap_or("");
    let text = s.ok("/api/export", &json!({"id": id}))["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        text.contains("[Result \"1-0\"]") && text.contains("d e d e d e d 1-0"),
        "{text}"
    );
    // A move after the end is refused.
    let (status, v) = s.post(
        "/api/new",
        &json!({"record": "[Game \"connect4\"]\n\nd e d e d e d e *"}),
    );
    assert_eq!(status, 400, "{v}");
}

#[test]
fn big_othello_boards_get_lines_and_exact_values() {
    let s = Server::start(&[]);
    let st = s.ok(
        "/api/new",
        &json!({"game": "othello", "size": 10, "human": "both", "exact": false}),
    );
    let id = st["id"].as_str().unwrap_or("").to_string();
    // The first legal move each time, to 14 empty squares.
    let mut st = st;
    let empties = |st: &Value| {
        st["cells"].as_array().map_or(0, |rows| {
            rows.iter()
                .flat_map(|r| r.as_array().cloned().unwrap_or_default())
                .filter(|c| c == "")
                .count()
        })
    };
    while empties(&st) > 14 && st["result"].is_null() {
        let mv = st["moves"][0]["uci"].clone();
        st = s.ok("/api/move", &json!({"id": id, "move": mv}));
    }
    assert!(
        st["result"].is_null(),
        "the game ended early: {}",
        st["history"]
    );
    s.ok("/api/settings", &json!({"id": id, "exact": true}));
    let st = s.wait_for(&id, 60, |st| st["exact"]["state"] == "done");
    let legal = st["moves"].as_array().map_or(0, Vec::len);
    assert_eq!(st["exact"]["moves"].as_array().map_or(0, Vec::len), legal);
    let cursor = st["cursor"].as_u64().unwrap_or(0);
    assert!(
        node(&st, cursor)["exact"]["value"].is_i64(),
        "the position's value is kept"
    );
    s.ok(
        "/api/settings",
        &json!({"id": id, "analyse": true, "multipv": 2}),
    );
    s.wait_for(&id, 30, |st| {
        st["engine"]["info"]["lines"]
            .as_array()
            .is_some_and(|l| l.len() == 2.min(legal))
    });
}

/// Loads `record`, exports it: the session's id and the text.
fn load_and_export(s: &Server, record: &str) -> (String, Value, String) {
    let st = s.ok("/api/new", &json!({"record": record}));
    let id = st["id"].as_str().unwrap_or("").to_string();
    let text = s.ok("/api/export", &json!({"id": id}))["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    (id, st, text)
}

#[test]
fn a_loaded_game_keeps_its_tags_comments_and_result() {
    let s = Server::start(&[]);
    // A master game's opening, as an annotator writes it.
    let pgn = "[Event \"Hastings\"]\n[Site \"Hastings ENG\"]\n[Date \"1895.08.05\"]\n[Round \"1\"]\n[White \"Steinitz, William\"]\n[Black \"von Bardeleben, Curt\"]\n[Result \"1-0\"]\n[ECO \"C54\"]\n\n{Giuoco Piano} 1. e4 e5 2. Nf3 Nc6 3. Bc4 {the Italian} Bc5 (3... Nf6 $5 {the Two Knights}) 4. c3 Nf6 5. d4! exd4 1-0\n";
    let (id, st, text) = load_and_export(&s, pgn);
    for kept in [
        "[Event \"Hastings\"]",
        "[Date \"1895.08.05\"]",
        "[White \"Steinitz, William\"]",
        "[Black \"von Bardeleben, Curt\"]",
        "[Result \"1-0\"]",
        "[ECO \"C54\"]",
        "{Giuoco Piano}",
        "3. Bc4 {the Italian} Bc5",
        "Nf6 $5 {the Two Knights}",
        "5. d4 $1 exd4",
    ] {
        assert!(text.contains(kept), "{kept} lost: {text}");
    }
    assert!(text.trim_end().ends_with("1-0"), "{text}");
    assert!(!text.contains("Human"), "{text}");
    // The page is told the result at the last move, and the comments beside their moves.
    assert_eq!(st["recorded"]["text"], "1-0", "{st}");
    let bc4 = st["tree"].as_array().and_then(|t| {
        t.iter()
            .find(|n| n["text"] == "Bc4")
            .map(|n| n["comment"].clone())
    });
    assert_eq!(bc4, Some(json!("the Italian")));
    // Back one move: no recorded result there.
    let back = st["line"]
        .as_array()
        .map_or(0, |l| l.len())
        .saturating_sub(2);
    let st2 = s.ok("/api/goto", &json!({"id": id, "node": st["line"][back]}));
    assert!(st2["recorded"].is_null(), "{st2}");
    // Load, save, load: the same text.
    let (_, _, again) = load_and_export(&s, &text);
    assert_eq!(again, text);
    // A move past the record's end: the result is no longer the record's.
    let end = st["line"][back + 1].clone();
    s.ok("/api/goto", &json!({"id": id, "node": end}));
    s.ok("/api/move", &json!({"id": id, "move": "cxd4"}));
    let text = s.ok("/api/export", &json!({"id": id}))["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(text.contains("[Result \"*\"]"), "{text}");
    assert!(text.contains("[White \"Steinitz, William\"]"), "{text}");
}

#[test]
fn a_lichess_export_round_trips() {
    let s = Server::start(&[]);
    let pgn = "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[Date \"2024.01.02\"]\n[White \"alice\"]\n[Black \"bob\"]\n[Result \"0-1\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1510\"]\n[TimeControl \"180+0\"]\n[Termination \"Time forfeit\"]\n\n1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Qh5?! { [%clk 0:02:58] } 2... Nc6 $1 { [%clk 0:02:57] } 0-1\n\n\n";
    let (_, st, text) = load_and_export(&s, pgn);
    for kept in [
        "[Site \"https://lichess.org/abcdefgh\"]",
        "[WhiteElo \"1500\"]",
        "[TimeControl \"180+0\"]",
        "[Termination \"Time forfeit\"]",
        "[Result \"0-1\"]",
        "1. e4 {[%clk 0:03:00]} e5 {[%clk 0:03:00]}",
        "2. Qh5 $6 {[%clk 0:02:58]} Nc6 $1 {[%clk 0:02:57]} 0-1",
    ] {
        assert!(
            text.replace('\n', " ").contains(kept),
            "{kept} lost: {text}"
        );
    }
    assert_eq!(st["recorded"]["winner"], 1, "{st}");
    let (_, _, again) = load_and_export(&s, &text);
    assert_eq!(again, text);
}

#[test]
fn a_move_says_the_solver_is_at_work_at_once() {
    let s = Server::start(&[]);
    let st = s.ok(
        "/api/new",
        &json!({"game": "connect4", "human": "both", "exact": true}),
    );
    let id = st["id"].as_str().unwrap_or("").to_string();
    for col in ["d", "d", "c"] {
        // The state right after the move: not "off" (the page's "no exact values here")
        // before the solver takes the position up.
        let st = s.ok("/api/move", &json!({"id": id, "move": col}));
        let state = st["exact"]["state"].as_str().unwrap_or("");
        assert!(matches!(state, "running" | "done"), "{col}: {state}");
    }
}

#[test]
fn a_loaded_ggf_keeps_its_players_and_comments() {
    let s = Server::start(&[]);
    let ggf = "(;GM[Othello]PC[NBoard]PB[Edax]PW[chris]RE[?]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]C[an opening]B[F5]C[the usual]W[F6]B[E6]W[F4];)";
    let (_, st, text) = load_and_export(&s, ggf);
    for kept in [
        "PB[Edax]",
        "PW[chris]",
        "C[an opening]B[F5]C[the usual]W[F6]",
    ] {
        assert!(text.contains(kept), "{kept} lost: {text}");
    }
    assert!(!text.contains("Human"), "{text}");
    let f5 = st["tree"].as_array().and_then(|t| {
        t.iter()
            .find(|n| n["ply"] == 1)
            .map(|n| n["comment"].clone())
    });
    assert_eq!(f5, Some(json!("the usual")));
    let (_, _, again) = load_and_export(&s, &text);
    assert_eq!(again, text);
}

/// A GGF's result (`RE[]`, Black's margin and how the game ended) survives a load and a
/// save while the main line ends where the record's did, and the page shows its winner.
#[test]
fn a_loaded_ggf_keeps_its_result() {
    let s = Server::start(&[]);
    let ggf = "(;GM[Othello]PC[NBoard]PB[Edax]PW[chris]RE[-12.000:r]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[E6]W[F4];)";
    let (_, st, text) = load_and_export(&s, ggf);
    assert!(text.contains("RE[-12.000:r]"), "RE lost: {text}");
    assert_eq!(st["recorded"]["winner"], 1, "{st}");
    let (_, _, again) = load_and_export(&s, &text);
    assert_eq!(again, text);
}
