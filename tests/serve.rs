//! `tabula serve` through its HTTP API, without a browser: the page and its script are
//! served; bad and hostile requests get a clear 4xx JSON error and stop neither the server
//! nor another game; two games run at once, each with its own engine; the engine plays,
//! reports its thinking, and the solver's exact values are right; another engine given with
//! `--engine` is driven over its protocol; one that cannot start is reported.

#[path = "common/http.rs"]
mod http;

use http::{Events, Server, request};
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;

fn error_of(v: &Value) -> &str {
    v["error"].as_str().unwrap_or("")
}

fn new_game(s: &Server, body: Value) -> (String, Value) {
    let st = s.ok("/api/new", &body);
    let id = st["id"].as_str().expect("an id").to_string();
    (id, st)
}

fn history(st: &Value) -> Vec<String> {
    st["history"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|m| m.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn serves_the_page_and_its_script() {
    let s = Server::start(&[]);
    let (status, page) = request(&s.addr, "GET", "/", &[], b"");
    assert_eq!(status, 200);
    assert!(page.contains("<div id=\"board\">") && page.contains("/app.js"));
    let (status, js) = request(&s.addr, "GET", "/app.js", &[], b"");
    assert_eq!(status, 200);
    assert!(js.contains("/api/events"));
    let (status, cfg) = s.get("/api/config");
    assert_eq!(status, 200);
    assert_eq!(cfg["engines"], json!(["tabula"]));
    assert_eq!(cfg["games"].as_array().map(Vec::len), Some(4));
}

#[test]
fn bad_requests_get_clear_errors_and_harm_nothing() {
    let mut s = Server::start(&[]);
    let (id, _) = new_game(&s, json!({"game": "connect4", "human": "both"}));
    let post_raw = |path: &str, ctype: &str, body: &[u8]| {
        request(&s.addr, "POST", path, &[("Content-Type", ctype)], body)
    };
    // Malformed bodies.
    let (status, body) = post_raw("/api/new", "application/json", b"{not json");
    assert_eq!(status, 400);
    assert!(body.contains("not JSON"), "{body}");
    let (status, body) = post_raw("/api/new", "application/json", b"[1, 2]");
    assert_eq!(status, 400, "{body}");
    let (status, body) = post_raw("/api/new", "text/plain", b"{}");
    assert_eq!(status, 400, "a POST without the JSON type: {body}");
    let big = vec![b' '; 100 * 1024];
    let (status, _) = post_raw("/api/new", "application/json", &big);
    assert_eq!(status, 413);
    // Bad values.
    for (body, says) in [
        (json!({"game": "go"}), "unknown game"),
        (json!({"game": "othello", "size": 9}), "Othello size 9"),
        (json!({"game": "connect4", "width": 99}), "width 99"),
        (json!({"game": "domineering", "rows": "x"}), "whole number"),
        (
            json!({"game": "chess", "fen": "rnbqkbnr/pppppppp w"}),
            "FEN",
        ),
        (json!({"game": "chess", "human": "robot"}), "human 'robot'"),
        (json!({"game": "chess", "movetime": 0}), "movetime 0"),
        (json!({"game": "chess", "engine": 7}), "no engine 7"),
        (json!({"game": 5}), "must be a string"),
    ] {
        let (status, v) = s.post("/api/new", &body);
        assert_eq!(status, 400, "{body}: {v}");
        assert!(error_of(&v).contains(says), "{body}: {v}");
    }
    // Bad moves and sessions.
    let (status, v) = s.post("/api/move", &json!({"id": id, "move": "z"}));
    assert_eq!(status, 400, "{v}");
    assert!(!error_of(&v).is_empty());
    let (status, v) = s.post("/api/move", &json!({"id": id}));
    assert_eq!(
        (status, error_of(&v)),
        (400, "move: no \"move\" in the body")
    );
    let (status, v) = s.post("/api/undo", &json!({"id": id}));
    assert_eq!(status, 400, "nothing to take back: {v}");
    let (status, v) = s.post("/api/stop", &json!({"id": id}));
    assert_eq!(status, 400, "no engine thinking: {v}");
    let (status, v) = s.post("/api/move", &json!({"id": "nope", "move": "d"}));
    assert_eq!(status, 404, "{v}");
    let (status, _) = s.post("/api/fly", &json!({"id": id}));
    assert_eq!(status, 404);
    let (status, v) = s.get("/api/state?id=nope");
    assert_eq!(status, 404, "{v}");
    let (status, v) = s.get(&format!("/api/state?id={id}&since=x"));
    assert_eq!(status, 400, "{v}");
    let (status, _) = s.get("/api/state");
    assert_eq!(status, 400);
    let (status, _) = s.get("/../../etc/passwd");
    assert_eq!(status, 404);
    let (status, _) = request(&s.addr, "DELETE", "/api/new", &[], b"");
    assert_eq!(status, 405);
    // Another site's name for this address (DNS rebinding) is refused.
    let (status, body) = {
        let mut st = std::net::TcpStream::connect(&s.addr).expect("connect");
        st.write_all(b"GET /api/config HTTP/1.0\r\nHost: evil.example:80\r\n\r\n")
            .expect("send");
        let mut out = String::new();
        std::io::Read::read_to_string(&mut st, &mut out).expect("read");
        (out.split_whitespace().nth(1).unwrap_or("").to_string(), out)
    };
    assert_eq!(status, "403", "{body}");
    // Bytes that are not HTTP at all, and a connection dropped half-way.
    for junk in [
        &b"\x00\xff\xfe garbage\r\n\r\n"[..],
        b"POST /api/new HTTP/1.1\r\nContent-Length: 50\r\n\r\n{",
    ] {
        let mut st = std::net::TcpStream::connect(&s.addr).expect("connect");
        let _ = st.write_all(junk);
    }
    // The server and the game are still there, untouched.
    assert!(s.alive());
    let st = s.ok("/api/move", &json!({"id": id, "move": "d"}));
    assert_eq!(history(&st), ["d"]);
    assert_eq!(s.get("/api/config").0, 200);
}

#[test]
fn two_games_at_once() {
    let s = Server::start(&[]);
    let (a, _) = new_game(
        &s,
        json!({"game": "connect4", "human": "p1", "movetime": 50, "exact": false}),
    );
    let (b, sb) = new_game(
        &s,
        json!({"game": "othello", "human": "p1", "movetime": 50, "exact": false}),
    );
    assert_ne!(a, b);
    assert_eq!(sb["moves"].as_array().map(Vec::len), Some(4));
    s.ok("/api/move", &json!({"id": a, "move": "d"}));
    s.ok("/api/move", &json!({"id": b, "move": "f5"}));
    // Each engine answers in its own game.
    let sa = s.wait_for(&a, 60, |st| history(st).len() == 2);
    let sb = s.wait_for(&b, 60, |st| history(st).len() == 2);
    assert_eq!(sa["game"], "connect4");
    assert_eq!(history(&sb)[0], "f5");
    assert!(sa["engine"]["info"]["depth"].is_u64(), "{}", sa["engine"]);
    // A move in one game is not a move in the other; a take-back neither.
    let st = s.ok("/api/undo", &json!({"id": a}));
    assert!(history(&st).is_empty(), "back to the start: {st}");
    let sb = s.get(&format!("/api/state?id={b}")).1;
    assert_eq!(history(&sb).len(), 2);
    // A closed game is gone; the other plays on.
    s.ok("/api/close", &json!({"id": a}));
    assert_eq!(s.get(&format!("/api/state?id={a}")).0, 404);
    // A page reloaded with either id asks whether its game is open, without a 404.
    for (id, open) in [(&a, false), (&b, true)] {
        let (status, cfg) = s.get(&format!("/api/config?resume={id}"));
        assert_eq!((status, &cfg["open"]), (200, &json!(open)), "{cfg}");
    }
    let mv = sb["moves"][0]["uci"]
        .as_str()
        .expect("a legal move")
        .to_string();
    s.ok("/api/move", &json!({"id": b, "move": mv}));
    s.wait_for(&b, 60, |st| history(st).len() == 4);
}

#[test]
fn the_engine_plays_a_game_to_its_end() {
    let s = Server::start(&[]);
    let (id, _) = new_game(
        &s,
        json!({"game": "domineering", "rows": 4, "cols": 5, "human": "none", "movetime": 30}),
    );
    let st = s.wait_for(&id, 60, |st| !st["result"].is_null());
    let winner = st["result"]["winner"]
        .as_u64()
        .expect("someone wins Domineering");
    // The side to move at the end has no move, and lost.
    assert_eq!(st["to_move"].as_u64(), Some(1 - winner));
    assert!(st["moves"].as_array().is_some_and(Vec::is_empty));
    assert!(st["last"]["cells"].as_array().is_some_and(|c| c.len() == 2));
}

#[test]
fn exact_values_of_connect_four_columns() {
    let s = Server::start(&[]);
    // Red to move wins at once in a or e (three in the bottom row), and later anywhere else.
    let (id, _) = new_game(
        &s,
        json!({"game": "connect4", "human": "both", "exact": false,
               "fen": "7/7/7/7/5y1/1rrr1yy r 4"}),
    );
    let st = s.get(&format!("/api/state?id={id}")).1;
    assert_eq!(st["exact"]["state"], "off");
    s.ok("/api/settings", &json!({"id": id, "exact": true}));
    let st = s.wait_for(&id, 60, |st| st["exact"]["state"] == "done");
    let values = st["exact"]["moves"].as_array().expect("values").clone();
    assert_eq!(values.len(), 7);
    let of = |c: &str| {
        values
            .iter()
            .find(|v| v["uci"] == c)
            .and_then(|v| v["value"].as_i64())
            .expect("a value for every column")
    };
    // a and e win at once: (42 + 1 - 6) / 2 = 18; the others win later (Yellow cannot
    // block both), so by less.
    assert_eq!((of("a"), of("e")), (18, 18));
    for c in ["b", "c", "d", "f", "g"] {
        assert!((1..18).contains(&of(c)), "{c}: {values:?}");
    }
}

#[test]
fn another_engine_from_the_command_line() {
    let exe = env!("CARGO_BIN_EXE_tabula");
    let other = format!("name=other cmd={exe} args='--game connect4'");
    let s = Server::start(&["--engine", &other, "--engine", "/nonexistent/engine"]);
    let (_, cfg) = s.get("/api/config");
    assert_eq!(cfg["engines"], json!(["tabula", "other", "engine"]));
    let (id, _) = new_game(
        &s,
        json!({"game": "connect4", "human": "p2", "engine": 1, "movetime": 50}),
    );
    let st = s.wait_for(&id, 60, |st| history(st).len() == 1);
    assert_eq!(st["engine"]["name"], "other");
    // An engine that cannot start is reported, and the server carries on.
    let (id, _) = new_game(&s, json!({"game": "connect4", "human": "p2", "engine": 2}));
    let st = s.wait_for(&id, 60, |st| !st["engine"]["error"].is_null());
    assert!(
        st["engine"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("cannot start")),
        "{}",
        st["engine"]
    );
    assert_eq!(s.get("/api/config").0, 200);
}

#[test]
fn a_person_takes_over_from_the_thinking_engine_and_move_now() {
    let s = Server::start(&[]);
    let (id, _) = new_game(
        &s,
        json!({"game": "chess", "human": "p2", "movetime": 8000}),
    );
    s.wait_for(&id, 30, |st| st["engine"]["thinking"] == true);
    // Both sides to people while the engine thinks for White: its move is dropped.
    s.ok("/api/settings", &json!({"id": id, "human": "both"}));
    let st = s.wait_for(&id, 30, |st| st["engine"]["thinking"] == false);
    assert!(
        history(&st).is_empty(),
        "the engine's move was dropped: {st}"
    );
    let st = s.ok("/api/move", &json!({"id": id, "move": "e2e4"}));
    assert_eq!(history(&st), ["e4"]);
    // The engine takes Black and is told to move now, long before its 8 s are up.
    s.ok("/api/settings", &json!({"id": id, "human": "p1"}));
    s.wait_for(&id, 30, |st| st["engine"]["thinking"] == true);
    let t = std::time::Instant::now();
    s.ok("/api/stop", &json!({"id": id}));
    let st = s.wait_for(&id, 30, |st| history(st).len() == 2);
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    assert!(st["engine"]["info"]["pv"].is_array());
}

#[test]
fn the_level_reaches_tabula_and_bad_levels_are_refused() {
    let s = Server::start(&[]);
    let (_, body) = s.post("/api/new", &json!({"game": "chess", "level": 21}));
    assert!(error_of(&body).contains("level 21"), "{body}");
    // Level 0 searches a few dozen nodes a move (full strength: millions in a second).
    let (id, st) = new_game(
        &s,
        json!({"game": "chess", "human": "p2", "level": 0, "movetime": 2000}),
    );
    assert_eq!(st["settings"]["level"], 0);
    let st = s.wait_for(&id, 60, |st| history(st).len() == 1);
    let nodes = st["engine"]["info"]["nodes"]
        .as_u64()
        .expect("nodes reported");
    assert!(nodes < 5_000, "level 0 searched {nodes} nodes");
    // Back to full strength in the same game: the engine is told before its next search.
    let st = s.ok("/api/settings", &json!({"id": id, "level": 20}));
    assert_eq!(st["settings"]["level"], 20);
    let mv = st["moves"][0]["uci"]
        .as_str()
        .expect("a legal move")
        .to_string();
    s.ok("/api/move", &json!({"id": id, "move": mv}));
    let st = s.wait_for(&id, 60, |st| history(st).len() == 3);
    let nodes = st["engine"]["info"]["nodes"]
        .as_u64()
        .expect("nodes reported");
    assert!(
        nodes > 50_000,
        "full strength searched only {nodes} nodes in 2 s"
    );
}

#[test]
fn a_match_between_two_engines_is_watched_to_its_end() {
    let exe = env!("CARGO_BIN_EXE_tabula");
    let other = format!("name=other cmd={exe} args='--game domineering --rows 4 --cols 5'");
    let s = Server::start(&["--engine", &other]);
    let (_, body) = s.post("/api/new", &json!({"game": "chess", "match": 5000}));
    assert!(error_of(&body).contains("match 5000"), "{body}");
    let (id, st) = new_game(
        &s,
        json!({"game": "domineering", "rows": 4, "cols": 5, "match": 2,
               "engine1": 0, "engine2": 1, "movetime": 30}),
    );
    assert_eq!(st["players"], json!(["tabula", "other"]));
    assert_eq!(st["settings"]["human"], json!([false, false]));
    assert_eq!(
        st["settings"]["exact"], false,
        "the solver stays off in a match"
    );
    assert_eq!(st["match"]["game"], 1);
    // Nobody may move or take back in a match, nor change its engines.
    let (status, body) = s.post("/api/move", &json!({"id": id, "move": "a1"}));
    assert!(status == 400 && error_of(&body).contains("match"), "{body}");
    let (_, body) = s.post("/api/settings", &json!({"id": id, "human": "p1"}));
    assert!(error_of(&body).contains("match"), "{body}");
    // The second game has the colours changed.
    let st = s.wait_for(&id, 60, |st| st["match"]["game"] == 2);
    assert_eq!(st["players"], json!(["other", "tabula"]));
    let st = s.wait_for(&id, 60, |st| st["match"]["finished"] == true);
    let m = &st["match"];
    let results = m["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    assert_eq!(
        (results[0]["a_first"].clone(), results[1]["a_first"].clone()),
        (json!(true), json!(false))
    );
    // Domineering has no draws: the points add up to the games.
    let score: Vec<f64> = m["score"]
        .as_array()
        .expect("score")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(score.iter().sum::<f64>(), 2.0, "{m}");
    assert_eq!(
        m["wins"].as_u64().unwrap_or(9) + m["losses"].as_u64().unwrap_or(9),
        2
    );
    // Every game ended by the rules, in a position with no move left for the side to move.
    assert!(st["moves"].as_array().is_some_and(Vec::is_empty));
    // The match stays finished: no third game starts.
    std::thread::sleep(Duration::from_millis(2000));
    let st = s.get(&format!("/api/state?id={id}")).1;
    assert_eq!(st["match"]["game"], 2);
}

/// The event stream of a game: the whole state first, then every change in order (ids rising),
/// small `live` messages on top of the last state while the engine thinks; a page that
/// reconnects with the version it has gets nothing until the next change; a closed game's
/// stream ends with `closed`, and an unknown game's is refused.
#[test]
fn a_game_is_followed_by_its_event_stream() {
    let s = Server::start(&[]);
    let st = s.ok(
        "/api/new",
        &json!({"game": "connect4", "human": "p1", "movetime": 500, "exact": false}),
    );
    let id = st["id"].as_str().expect("an id").to_string();
    let mut ev = Events::open(&s.addr, &id, None);
    assert_eq!(ev.status, 200);
    let first = ev.next(10.0).expect("the first event");
    assert_eq!(first.name, "state");
    assert_eq!(first.id, first.data["version"].as_u64());
    let answer = s.post("/api/move", &json!({"id": id, "move": "d"})).1;
    assert!(
        answer["version"].is_u64() && answer.get("tree").is_none(),
        "{answer}"
    );
    let (mut last, mut major) = (first.id.unwrap_or(0), first.data["major"].clone());
    let (mut lives, mut plies) = (0, 0);
    // Up to three of the engine's moves until one of them is followed as it thinks: one reply
    // can come before a small message is due (seen twice in CI, each a fresh clone's first
    // run).
    let (more, mut target) = (["c", "e"], 2);
    loop {
        if plies >= target {
            if lives > 0 || target / 2 > more.len() {
                break;
            }
            let answer = s
                .post(
                    "/api/move",
                    &json!({"id": id, "move": more[target / 2 - 1]}),
                )
                .1;
            assert!(answer["version"].is_u64(), "{answer}");
            target += 2;
        }
        let e = ev.next(30.0).expect("an event");
        let v = e.id.expect("an id");
        assert!(v > last, "ids rise: {v} after {last}");
        last = v;
        match e.name.as_str() {
            "state" => {
                major = e.data["major"].clone();
                plies = e.data["history"].as_array().map_or(0, Vec::len);
            }
            "live" => {
                lives += 1;
                assert_eq!(e.data["major"], major, "a live message on its state");
                assert!(e.data.get("tree").is_none());
            }
            other => panic!("event {other}"),
        }
    }
    assert!(lives > 0, "the engine's thinking came as live messages");
    // The engine has moved; the person is to move: nothing changes.
    std::thread::sleep(Duration::from_millis(300));
    let now = s.get(&format!("/api/state?id={id}")).1["version"]
        .as_u64()
        .expect("a version");
    let mut again = Events::open(&s.addr, &id, Some(now));
    assert!(
        again.next(0.5).is_none(),
        "nothing new for a page up to date"
    );
    let mut stale = Events::open(&s.addr, &id, Some(1));
    assert_eq!(stale.next(10.0).map(|e| e.name).as_deref(), Some("state"));
    s.ok("/api/close", &json!({"id": id}));
    assert_eq!(again.next(10.0).map(|e| e.name).as_deref(), Some("closed"));
    assert!(again.next(2.0).is_none(), "the stream ends");
    assert_eq!(Events::open(&s.addr, &id, None).status, 404);
}
