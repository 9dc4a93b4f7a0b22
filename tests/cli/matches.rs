//! `tabula match`: two tabula instances at every game, and engines that misbehave on purpose
//! (a small fake engine written by the test as a shell script: an illegal move, a hang, a
//! crash, a missing handshake, a time forfeit). The runner must finish, score each failure
//! as a loss of the faulty engine, and say why.

use std::process::Command;

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tabula-match-{}-{name}", std::process::id()))
}

fn run(args: &[&str]) -> (String, String) {
    let out = Command::new(TABULA)
        .args(args)
        .output()
        .expect("run tabula match");
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tabula_against_itself_at_every_game() {
    for (game, tc) in [
        ("chess", "1+0.01"),
        ("othello", "1+0.01"),
        ("connect4", "1+0.01"),
        ("domineering", "1+0.01"),
    ] {
        let json = tmp(&format!("{game}.json"));
        let records = tmp(&format!("{game}.rec"));
        let a = format!("name=A cmd={TABULA} args='--game {game}' option.Hash=8");
        let b = format!("name=B cmd={TABULA} args='--game {game}' option.Hash=8");
        let (out, _) = run(&[
            "--game",
            game,
            "match",
            "--engine",
            &a,
            "--engine",
            &b,
            "--games",
            "2",
            "--tc",
            tc,
            "--concurrency",
            "2",
            "--json",
            json.to_str().unwrap_or(""),
            "--records",
            records.to_str().unwrap_or(""),
        ]);
        assert!(out.contains("A vs B: "), "{game}: {out}");
        assert!(
            !out.contains("problem"),
            "{game}: a clean match has no problems: {out}"
        );
        let j = std::fs::read_to_string(&json).expect("json written");
        assert!(j.contains("\"games_played\":2"), "{game}: {j}");
        let r = std::fs::read_to_string(&records).expect("records written");
        assert_eq!(r.matches("[Result ").count(), 2, "{game}: {r}");
        assert!(
            !r.contains("[Result \"*\"]"),
            "{game}: every game finished: {r}"
        );
        let _ = std::fs::remove_file(json);
        let _ = std::fs::remove_file(records);
    }
}

const FAKE: &str = r#"#!/bin/sh
mode=$1
while read -r line; do
  case "$line" in
    uci|ugi) [ "$mode" = noshake ] || { echo "id name fake"; echo "${line}ok"; } ;;
    isready) echo readyok ;;
    go*) case $mode in
          illegal) echo "bestmove e2e5" ;;
          hang) ;;
          crash) exit 3 ;;
          slow) sleep 2; echo "bestmove e2e4" ;;
        esac ;;
    quit) exit 0 ;;
  esac
done
"#;

#[test]
fn misbehaving_engines_lose_with_the_reason_recorded() {
    let script = tmp("fake.sh");
    std::fs::write(&script, FAKE).expect("write fake engine");
    let fake = script.to_string_lossy().into_owned();
    for (mode, reason) in [
        ("illegal", "played an illegal move 'e2e5'"),
        ("hang", "loses on time"),
        ("crash", "crashed or disconnected"),
        ("noshake", "failed to start"),
        ("slow", "loses on time"),
    ] {
        let good = format!("name=T cmd={TABULA} option.Hash=8");
        let bad = format!("name=F cmd=/bin/sh args='{fake} {mode}'");
        let json = tmp(&format!("{mode}.json"));
        let html = tmp(&format!("{mode}.html"));
        let (out, _) = run(&[
            "match",
            "--engine",
            &good,
            "--engine",
            &bad,
            "--games",
            "2",
            "--tc",
            "0.5+0",
            "--timeout",
            "2",
            "--json",
            json.to_str().unwrap_or(""),
            "--report",
            html.to_str().unwrap_or(""),
        ]);
        assert!(out.contains(reason), "{mode}: {out}");
        // The report names every forfeit, with its game.
        let page = std::fs::read_to_string(&html).expect("report");
        assert!(
            page.contains(&format!("game 1: F {reason}"))
                || page.contains(&format!("game 2: F {reason}")),
            "{mode}: the report lists it"
        );
        let _ = std::fs::remove_file(html);
        let j = std::fs::read_to_string(&json).expect("json");
        assert!(
            j.contains("\"name\":\"T\",\"games\":2,\"wins\":2"),
            "{mode}: {j}"
        );
        let _ = std::fs::remove_file(json);
    }
    // Under a depth limit a silent engine is a hang, not a time loss.
    let (out, _) = run(&[
        "match",
        "--engine",
        &format!("name=T cmd={TABULA}"),
        "--engine",
        &format!("name=F cmd=/bin/sh args='{fake} hang'"),
        "--games",
        "1",
        "--depth",
        "2",
        "--timeout",
        "1",
    ]);
    assert!(out.contains("F hung"), "{out}");
    let _ = std::fs::remove_file(script);
}

#[test]
fn bad_configuration_is_refused_before_any_game() {
    for args in [
        vec!["match", "--engine", "cmd=x"],
        vec![
            "match", "--engine", "cmd=x", "--engine", "cmd=y", "--tc", "ten",
        ],
        vec!["match", "--engine", "cmd=x", "--engine", "bogus=1"],
        vec![
            "match",
            "--engine",
            "cmd=x",
            "--engine",
            "cmd=y",
            "--sprt",
            "elo0=5 elo1=0",
        ],
    ] {
        let out = Command::new(TABULA).args(&args).output().expect("run");
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
    }
}

#[test]
fn sprt_stops_a_lopsided_match() {
    // tabula at depth 4 against a fake that always plays an illegal move: every game is a
    // win, so SPRT [0, 5] accepts H1 long before 200 games.
    let script = tmp("fake-sprt.sh");
    std::fs::write(&script, FAKE).expect("write fake engine");
    let (out, _) = run(&[
        "match",
        "--engine",
        &format!("name=T cmd={TABULA}"),
        "--engine",
        &format!("name=F cmd=/bin/sh args='{} illegal'", script.display()),
        "--games",
        "200",
        "--depth",
        "1",
        "--sprt",
        "elo0=0 elo1=5 model=logistic",
    ]);
    assert!(out.contains("H1 accepted"), "{out}");
    let games: u32 = out
        .lines()
        .find(|l| l.starts_with("T "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|g| g.parse().ok())
        .unwrap_or(0);
    assert!(games > 0 && games < 200, "{out}");
    let _ = std::fs::remove_file(script);
}
