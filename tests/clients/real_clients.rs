//! tabula driven by the real clients, not look-alikes: cutegames (the UGI runner) plays a short
//! match of every game, fastchess runs its `--compliance` sequence and a few games (OpenBench's
//! side: `openbench`).
//!
//! The clients are looked for at `../shared/tools/bin/` beside the repository, or where
//! `TABULA_CUTEGAMES` / `TABULA_FASTCHESS` point. A test that cannot find a client, or finds
//! one that cannot start on this machine (a build for another CPU dies at once with SIGILL),
//! says so on stderr and checks nothing else; under CI (`CI` set), which installs cutegames,
//! fastchess (../shared) and gtp-rhino, it fails instead (OpenBench's checkout is optional,
//! `TABULA_OPENBENCH`, and skips everywhere). Every game a client records is replayed here with
//! tabula's own rules: the moves legal, the game over where the client stopped it, the result
//! the one the client wrote. Time margins are wide: the other tests run beside these.

use super::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tabula::game::{Game, GameResult};
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;

pub(super) const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

/// The client `name`, if it is here and starts (`--help` exits normally).
fn client(name: &str, env: &str) -> Option<PathBuf> {
    let path = match std::env::var_os(env) {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/tools/bin")
            .join(name),
    };
    if !path.is_file() {
        common::client_missing(&format!(
            "{name}: not found at {} (set {env} to a build)",
            path.display()
        ));
        return None;
    }
    match Command::new(&path)
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(s) if s.code().is_some() => Some(path),
        Ok(s) => {
            common::client_missing(&format!(
                "{name} at {} cannot run on this machine ({s}: built for another CPU?); set {env} to a build that runs here",
                path.display()
            ));
            None
        }
        Err(e) => {
            common::client_missing(&format!("{name} at {}: {e}", path.display()));
            None
        }
    }
}

/// A fresh scratch directory under the system temp dir.
pub(super) fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs a command to its end within `limit`; a hang is killed and fails the test.
pub(super) fn run(cmd: &mut Command, limit: Duration, what: &str) -> (bool, String) {
    let out_path = std::env::temp_dir().join(format!(
        "tabula-client-{}-{}.out",
        std::process::id(),
        what.replace(' ', "_")
    ));
    let out = std::fs::File::create(&out_path).expect("output file");
    let err = out.try_clone().expect("output file");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let Some(status) = status else {
        panic!("{what}: still running after {limit:?} (a hang); output:\n{text}");
    };
    (status.success(), text)
}

/// Replays a recorded game with tabula's rules: every move legal, the game over at the end,
/// with the result the client wrote ("1-0": player 1 won).
fn check_record<G: Game>(start: &G, fen: &str, moves: &[&str], result: &str, what: &str) {
    let mut pos = start
        .parse_fen(fen)
        .unwrap_or_else(|e| panic!("{what}: FEN {fen}: {e}"));
    let mut history = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("{what}: move {} {m}: {e}", i + 1));
        history.push(pos.hash());
        pos.play(mv);
    }
    let mut outcome = pos.result();
    // Threefold repetition, which the position alone cannot see.
    if outcome.is_none() && history.iter().filter(|&&h| h == pos.hash()).count() >= 2 {
        outcome = Some(GameResult::Draw);
    }
    let expected = match result {
        "1-0" => GameResult::P1Win,
        "0-1" => GameResult::P2Win,
        "1/2-1/2" => GameResult::Draw,
        other => panic!("{what}: result {other:?}"),
    };
    assert_eq!(outcome, Some(expected), "{what}: final {}", pos.fen());
}

/// A game of a PGN: its tags (name, value) and its moves.
type Record = (Vec<(String, String)>, Vec<String>);

/// The games of a cutegames PGN.
fn cutegames_games(pgn: &str) -> Vec<Record> {
    let mut games = Vec::new();
    let mut tags = Vec::new();
    let mut moves = Vec::new();
    for line in pgn.lines().map(str::trim) {
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !moves.is_empty() {
                games.push((std::mem::take(&mut tags), std::mem::take(&mut moves)));
            }
            if let Some((k, v)) = tag.split_once(' ') {
                tags.push((k.to_string(), v.trim_matches('"').to_string()));
            }
        } else if !line.is_empty() {
            for tok in line.split_whitespace() {
                // Move numbers end with a dot ("12.", "1..."); a pass is the move "0000".
                let number = tok.ends_with('.');
                let result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&tok);
                if !number && !result {
                    moves.push(tok.to_string());
                }
            }
        }
    }
    if !tags.is_empty() {
        games.push((tags, moves));
    }
    games
}

fn tag_value<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A two-engine cutegames match of tabula against itself over `openings` (each played twice);
/// returns the PGN text.
fn cutegames_match(cg: &Path, args: &str, openings: &[&str], tag: &str) -> String {
    let dir = scratch(&format!("cutegames-{tag}"));
    let book = dir.join("openings.txt");
    std::fs::write(&book, openings.join("\n") + "\n").expect("openings");
    let pgn = dir.join("games.pgn");
    let engine = |name: &str| {
        format!(
            r#"{{"name":"{name}","protocol":"UGI","path":"{TABULA}","parameters":"{args}","options":{{}}}}"#
        )
    };
    let settings = format!(
        r#"{{"game":"generic","games":{games},"concurrency":1,"ratinginterval":1,"verbose":false,
"debug":false,"recover":false,"tournament":"roundrobin","protocol":{{"askturn":true}},
"openings":{{"path":"{book}","repeat":true,"shuffle":false}},
"adjudication":{{"timeoutbuffer":1000,"maxfullmoves":300}},
"timecontrol":{{"type":"movetime","time":40,"increment":0}},"options":{{}},
"sprt":{{"enabled":false,"elo0":0,"elo1":5,"confidence":0.95}},
"pgn":{{"enabled":true,"path":"{pgn}"}},"engines":[{a},{b}]}}"#,
        games = 2 * openings.len(),
        book = book.display(),
        pgn = pgn.display(),
        a = engine("tabula-a"),
        b = engine("tabula-b"),
    );
    let path = dir.join("settings.json");
    std::fs::write(&path, settings).expect("settings");
    let (ok, out) = run(
        Command::new(cg).arg("--settings").arg(&path),
        Duration::from_secs(240),
        &format!("cutegames {tag}"),
    );
    assert!(ok, "cutegames {tag} failed:\n{out}");
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

fn check_cutegames<G: Game>(cg: &Path, start: &G, args: &str, openings: &[&str], tag: &str) {
    let pgn = cutegames_match(cg, args, openings, tag);
    let games = cutegames_games(&pgn);
    assert_eq!(games.len(), 2 * openings.len(), "{tag}: games in\n{pgn}");
    for (i, (tags, moves)) in games.iter().enumerate() {
        let what = format!("cutegames {tag} game {}", i + 1);
        assert_eq!(
            tag_value(tags, "Adjudicated"),
            None,
            "{what}: adjudicated\n{pgn}"
        );
        let fen = tag_value(tags, "FEN").expect("FEN tag");
        let result = tag_value(tags, "Result").expect("Result tag");
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        check_record(start, fen, &moves, result, &what);
    }
    eprintln!("cutegames {tag}: {} games played to the end", games.len());
}

#[test]
fn cutegames_plays_every_game_to_the_end() {
    let Some(cg) = client("cutegames", "TABULA_CUTEGAMES") else {
        return;
    };
    check_cutegames(
        &cg,
        &Othello::<u64>::new(8).unwrap(),
        "--game othello",
        // The start, and an ending where White must pass (`0000`) at once.
        &[
            "8/8/8/3ox3/3xo3/8/8/8 x",
            "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxo1/xxxxxxx1 o",
        ],
        "othello",
    );
    check_cutegames(
        &cg,
        &Connect4::default(),
        "--game connect4",
        &["7/7/7/7/7/7 r 1"],
        "connect4",
    );
    check_cutegames(
        &cg,
        &Connect4::new(9, 6).unwrap(),
        "--game connect4 --width 9 --height 6",
        &["9/9/9/9/9/9 r 1"],
        "connect4-9x6",
    );
    check_cutegames(
        &cg,
        &Domineering::<u64>::new(8, 8, Side::Horizontal).unwrap(),
        "--game domineering",
        &["8/8/8/8/8/8/8/8 h"],
        "domineering",
    );
    // Chess over UGI from endings that finish soon: mate with the queen, and a pawn ending.
    check_cutegames(
        &cg,
        &Chess::default(),
        "--game chess",
        &[
            "4k3/8/8/8/8/8/8/4K2Q w - - 0 1",
            "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
        ],
        "chess",
    );
}

#[test]
fn fastchess_compliance_and_games() {
    let Some(fc) = client("fastchess", "TABULA_FASTCHESS") else {
        return;
    };
    // fastchess writes a config.json into its working directory: keep it out of the tree.
    let dir = scratch("fastchess");
    let (ok, out) = run(
        Command::new(&fc)
            .current_dir(&dir)
            .arg("--compliance")
            .arg(TABULA),
        Duration::from_secs(120),
        "fastchess compliance",
    );
    assert!(
        ok && out.contains("passed all compliance checks"),
        "fastchess --compliance:\n{out}"
    );

    let pgn = dir.join("games.pgn");
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openings.epd");
    let (ok, out) = run(
        Command::new(&fc)
            .current_dir(&dir)
            .args(["-engine", &format!("cmd={TABULA}"), "name=a"])
            .args(["-engine", &format!("cmd={TABULA}"), "name=b"])
            .args(["-each", "tc=4+0.05"])
            .args(["-rounds", "1", "-repeat"])
            .args(["-draw", "movenumber=30", "movecount=6", "score=15"])
            .args(["-resign", "movecount=3", "score=600", "twosided=true"])
            .arg("-openings")
            .arg(format!("file={}", book.display()))
            .args(["format=epd", "order=sequential"])
            .arg("-pgnout")
            .arg(format!("file={}", pgn.display())),
        Duration::from_secs(240),
        "fastchess games",
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ok, "fastchess games:\n{out}");
    let finished: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("Finished game"))
        .collect();
    assert_eq!(finished.len(), 2, "{out}");
    for l in &finished {
        let lower = l.to_ascii_lowercase();
        for bad in ["time", "illegal", "disconnect", "stall", "crash"] {
            assert!(!lower.contains(bad), "fastchess: {l}");
        }
    }
    eprintln!("fastchess: compliance passed; {}", finished.join("; "));
}

/// `tabula match` drives GRhino (Debian's `grhino` package: `gtp-rhino`, an Othello engine that
/// speaks GTP) from openings given as positions: GRhino against itself at two levels (each
/// told the other's moves and passes; it refuses `play white pass` and passes on its own), and
/// tabula against it. Every game is replayed with tabula's rules and must end by them, with
/// no problem reported. `TABULA_GTP_RHINO` may point to another build.
#[test]
fn tabula_match_drives_gtp_rhino() {
    let rhino = std::env::var_os("TABULA_GTP_RHINO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/games/gtp-rhino"));
    if !rhino.is_file() {
        common::client_missing(&format!(
            "gtp-rhino: not found at {} (apt-get install grhino, or set TABULA_GTP_RHINO)",
            rhino.display()
        ));
        return;
    }
    let dir = scratch("gtp-rhino");
    let book = dir.join("openings.txt");
    // Two 6-ply openings; from both, GRhino's levels 1 and 2 reach endings with passes.
    std::fs::write(
        &book,
        "8/2x5/3x4/2xox3/2ooo3/1o6/o7/8 x\n8/8/2x5/3xoo2/3xo3/2xxo3/4o3/8 x\n",
    )
    .expect("openings");
    let rhino_at = |level: u32, name: &str| {
        format!(
            "name={name} cmd={} args='-l {level}' proto=gtp st=30",
            rhino.display()
        )
    };
    let start = Othello::<u64>::new(8).expect("8x8");
    for (tag, a, b, games) in [
        ("levels", rhino_at(1, "rhino-1"), rhino_at(2, "rhino-2"), 4),
        (
            "tabula",
            format!("name=tabula cmd={TABULA} args='--game othello'"),
            rhino_at(1, "rhino-1"),
            4,
        ),
    ] {
        let records = dir.join(format!("{tag}.txt"));
        let (ok, out) = run(
            Command::new(TABULA)
                .args(["--game", "othello", "match", "--movetime", "50"])
                .args(["--engine", &a, "--engine", &b])
                .args(["--games", &games.to_string(), "--openings"])
                .arg(&book)
                .arg("--records")
                .arg(&records),
            Duration::from_secs(300),
            &format!("gtp-rhino {tag}"),
        );
        assert!(ok, "match {tag} failed:\n{out}");
        assert!(!out.contains("problem"), "match {tag}:\n{out}");
        let text = std::fs::read_to_string(&records).unwrap_or_default();
        let played = cutegames_games(&text);
        assert_eq!(played.len(), games, "{tag}: games in\n{text}");
        for (i, (tags, moves)) in played.iter().enumerate() {
            let what = format!("gtp-rhino {tag} game {}", i + 1);
            let fen = tag_value(tags, "FEN").expect("FEN tag");
            let result = tag_value(tags, "Result").expect("Result tag");
            let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
            check_record(&start, fen, &moves, result, &what);
        }
        if tag == "levels" {
            assert!(
                played.iter().any(|(_, m)| m.iter().any(|x| x == "0000")),
                "no game passed:\n{text}"
            );
        }
        eprintln!("gtp-rhino {tag}: {games} games played to the end");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The data path of a DATAGEN workload, run locally: openings from `genfens`, games played by
/// fastchess with OpenBench's `-pgnout ... nodes=true seldepth=true` settings, the PGN read
/// by `tabula data --pgn` into training records, which `tabula train` then fits.
#[test]
fn fastchess_games_become_training_data() {
    let Some(fc) = client("fastchess", "TABULA_FASTCHESS") else {
        return;
    };
    let dir = scratch("fastchess-data");
    let out = Command::new(TABULA)
        .args(["genfens 2 seed 7 book None", "quit"])
        .output()
        .expect("genfens");
    let epd: String = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(|f| format!("{f}\n"))
        .collect();
    let book = dir.join("genfens.epd");
    std::fs::write(&book, epd).expect("book");
    let pgn = dir.join("games.pgn");
    let (ok, out) = run(
        Command::new(&fc)
            .current_dir(&dir)
            .args(["-engine", &format!("cmd={TABULA}"), "name=a"])
            .args(["-engine", &format!("cmd={TABULA}"), "name=b"])
            .args(["-each", "tc=2+0.05", "option.Hash=8"])
            .args(["-rounds", "1", "-repeat"])
            .args(["-draw", "movenumber=30", "movecount=6", "score=15"])
            .args(["-resign", "movecount=3", "score=600", "twosided=true"])
            .arg("-openings")
            .arg(format!("file={}", book.display()))
            .args(["format=epd", "order=sequential"])
            .arg("-pgnout")
            .arg(format!("file={}", pgn.display()))
            .args([
                "nodes=true",
                "seldepth=true",
                "match_line=^info string pgncomment .*",
            ]),
        Duration::from_secs(240),
        "fastchess datagen games",
    );
    assert!(ok, "fastchess:\n{out}");
    let data = dir.join("games.bin");
    let imported = Command::new(TABULA)
        .arg("data")
        .arg(&data)
        .arg("--pgn")
        .arg(&pgn)
        .output()
        .expect("data --pgn");
    let said = String::from_utf8_lossy(&imported.stdout).into_owned();
    assert!(imported.status.success(), "{said}");
    assert!(
        said.contains(": 2 games,") && said.ends_with("0 games skipped\n"),
        "{said}"
    );
    let summary = Command::new(TABULA)
        .arg("data")
        .arg(&data)
        .output()
        .expect("data");
    let summary = String::from_utf8_lossy(&summary.stdout).into_owned();
    let positions: u64 = summary
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(positions >= 20, "{summary}");
    assert!(summary.contains("from 2 games"), "{summary}");
    let weights = dir.join("w.bin");
    let trained = Command::new(TABULA)
        .args([
            "train",
            "--model",
            "hce",
            "--epochs",
            "1",
            "--threads",
            "1",
            "--data",
        ])
        .arg(&data)
        .arg("--out")
        .arg(&weights)
        .output()
        .expect("train");
    assert!(
        trained.status.success() && weights.is_file(),
        "{}",
        String::from_utf8_lossy(&trained.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
