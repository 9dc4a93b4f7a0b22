//! Playing strength below full (issue 29): the options are announced and parsed (bad values
//! keep the previous one), a higher `UCI_Elo` beats a much lower one in a small node-limited
//! match, weakened play still takes a mate in one, and `Skill` weakens the other games too.

use super::common;

use std::time::Duration;
use tabula::engine::Engine;
use tabula::game::{Game, GameResult, Notation, Player, Rules};
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::othello::Othello;
use tabula::search::Limits;

fn handshake<G: Game>(start: G, line: &str) -> String {
    let (mut s, buf) = common::session(start);
    s.handle_line(line);
    buf.take()
}

#[test]
fn uci_lists_the_strength_options_and_ugi_the_skill() {
    let uci = handshake(Chess::default(), "uci");
    assert!(uci.contains("option name UCI_LimitStrength type check default false\n"));
    assert!(uci.contains("option name UCI_Elo type spin default 1500 min 1000 max 2800\n"));
    assert!(uci.contains("option name Skill type spin default 20 min 0 max 20\n"));
    assert!(uci.contains("option name Skill Seed type spin"));
    let ugi = handshake(Othello::<u64>::new(8).expect("8x8"), "ugi");
    assert!(ugi.contains("option name Skill type spin default 20 min 0 max 20\n"));
    assert!(!ugi.contains("UCI_Elo"), "{ugi}");
}

#[test]
fn bad_strength_values_keep_the_previous_one() {
    let (mut s, buf) = common::session(Chess::default());
    for good in [
        "setoption name Skill value 7",
        "setoption name uci_elo value 2100",
        "setoption name UCI_LimitStrength value true",
        "setoption name Skill Seed value 12345",
    ] {
        s.handle_line(good);
        assert_eq!(buf.take(), "", "{good}");
    }
    for bad in [
        "setoption name Skill value 21",
        "setoption name Skill value -1",
        "setoption name Skill value seven",
        "setoption name Skill",
        "setoption name UCI_Elo value 999",
        "setoption name UCI_Elo value 2801",
        "setoption name UCI_Elo value 1e3",
        "setoption name UCI_LimitStrength value yes",
        "setoption name Skill Seed value 2147483648",
    ] {
        s.handle_line(bad);
        let out = buf.take();
        assert!(
            out.starts_with("info string error: option '") && out.lines().count() == 1,
            "{bad}: {out}"
        );
    }
    let o = &s.engine().options;
    assert_eq!(
        (o.skill, o.elo, o.limit_strength, o.skill_seed),
        (7, 2100, true, 12345)
    );
}

/// The first `n` openings of scripts/openings.epd.
fn openings(n: usize) -> Vec<Chess> {
    let text = include_str!("../../scripts/openings.epd");
    text.lines()
        .take(n)
        .map(|l| {
            let fen: Vec<&str> = l.split_whitespace().take(4).collect();
            Chess::default()
                .parse_fen(&format!("{} 0 1", fen.join(" ")))
                .expect("openings.epd")
        })
        .collect()
}

fn chess_engine(elo: u32, seed: u64) -> Engine<Chess> {
    let mut e = Engine::new(Chess::default());
    for (name, value) in [
        ("UCI_LimitStrength", "true".to_string()),
        ("UCI_Elo", elo.to_string()),
        ("Skill Seed", seed.to_string()),
    ] {
        e.set_option(name, Some(&value)).expect("option");
    }
    e.new_game();
    e
}

/// More than any level below full strength may search (which bounds a broken weakening).
fn generous() -> Limits {
    Limits {
        nodes: Some(400_000),
        ..Limits::depth(60)
    }
}

/// Plays one game from `start`; `engines[0]` has White. Unfinished after 300 plies: a draw.
fn play(start: &Chess, engines: &mut [Engine<Chess>; 2]) -> Option<GameResult> {
    let mut line: Vec<<Chess as Rules>::Move> = Vec::new();
    for _ in 0..300 {
        let mut pos = start.clone();
        for &m in &line {
            pos.play(m);
        }
        let side = pos.to_move().index();
        let e = &mut engines[side];
        e.set_root(start.clone());
        for &m in &line {
            e.play(m);
        }
        if let Some(r) = e.game_result() {
            return Some(r);
        }
        // A generous limit that the strength's own node budget always cuts first.
        let r = e.search_now(generous(), &|_| {});
        line.push(r.best?);
    }
    Some(GameResult::Draw)
}

#[test]
fn a_higher_elo_beats_a_much_lower_one() {
    let (strong, weak) = (2200, 1000);
    let mut points = 0.0;
    let mut games = 0;
    for (i, start) in openings(4).iter().enumerate() {
        for strong_side in [Player::P1, Player::P2] {
            let seed = 1 + i as u64;
            let mut engines = match strong_side {
                Player::P1 => [chess_engine(strong, seed), chess_engine(weak, seed)],
                Player::P2 => [chess_engine(weak, seed), chess_engine(strong, seed)],
            };
            let result = play(start, &mut engines).expect("a legal move");
            points += match (result, strong_side) {
                (GameResult::Draw, _) => 0.5,
                (GameResult::P1Win, Player::P1) | (GameResult::P2Win, Player::P2) => 1.0,
                _ => 0.0,
            };
            games += 1;
        }
    }
    assert!(
        points >= 0.75 * games as f64,
        "UCI_Elo {strong} scored only {points} of {games} against UCI_Elo {weak}"
    );
}

#[test]
fn weakened_play_still_mates_in_one() {
    // White mates with Qh5xf7 (the scholar's mate); every other move lets Black play on.
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    for seed in 1..=12 {
        let mut e = chess_engine(2000, seed);
        e.set_position(Some(fen), &[]).expect("fen");
        let r = e.search_now(generous(), &|_| {});
        let best = r.best.map(|m| e.position().format_move(m));
        assert_eq!(best.as_deref(), Some("h5f7"), "seed {seed}");
    }
}

#[test]
fn skill_varies_the_moves_of_other_games_and_full_skill_does_not() {
    let moves = |skill: &str| {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 1..=16 {
            let mut e = Engine::new(Connect4::default());
            e.set_option("Skill", Some(skill)).expect("Skill");
            e.set_option("Skill Seed", Some(&seed.to_string()))
                .expect("seed");
            e.new_game();
            let r = e.search_now(Limits::depth(6), &|_| {});
            seen.insert(r.best.map(|m| e.position().format_move(m)));
        }
        seen
    };
    let weak = moves("0");
    assert!(weak.len() >= 2, "Skill 0 always played {weak:?}");
    assert_eq!(moves("20").len(), 1);
}

#[test]
fn a_weakened_ugi_engine_answers_go() {
    let mut e = common::EngineProc::start(&["--game", "othello"]);
    e.send("ugi");
    e.expect("ugiok", Duration::from_secs(20));
    e.send("setoption name Skill value 3");
    e.send("position startpos");
    e.send("go p1time 1000 p2time 1000");
    let (line, _) = e.expect("bestmove", Duration::from_secs(20));
    let mv = line.split_whitespace().nth(1).unwrap_or("");
    assert!(["d3", "c4", "f5", "e6"].contains(&mv), "{line}");
}
