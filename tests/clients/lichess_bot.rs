//! tabula through lichess-bot (github lichess-bot-devs/lichess-bot, the client that puts UCI
//! engines on lichess.org; not vendored here): games through lichess-bot's own test harness
//! (its mocked lichess.org in `test_bot/`, the bot started as its tests start it), with the
//! documented config `docs/lichess-bot/config.yml` and tabula as the engine. The driver is
//! `tests/python/lichess_bot_game.py`, run by pytest from the lichess-bot checkout; it says
//! which parts are lichess-bot's and which are ours.
//!
//! The checkout is `TABULA_LICHESS_BOT`, or `../lichess-bot` beside the repository, with its
//! Python requirements installed (`pip install -r requirements.txt pytest`). Without them the
//! test says so and checks nothing, under CI too: CI does not install lichess-bot (as
//! OpenBench's checkout, `TABULA_OPENBENCH` in tests/clients/real_clients.rs).
//!
//! Two games: the config as written, and its casual bot at `UCI_Elo 1200`, made as the
//! config's comments say (its `setoption`s seen in the traffic). Each time: pytest passes
//! (tabula, Black, mates the harness's White); the traffic, recorded by
//! scripts/record_session.py between lichess-bot and tabula, shows tabula starting (`id name
//! tabula`) and every Black move of the game sent by tabula as its `bestmove` for the position
//! before it; the game replays legally with tabula's rules and ends in Black's mate; the PGN
//! lichess-bot writes (when it was written, see the driver) has the result and tabula's
//! evaluations. One such game's traffic is protocol/sessions/lichess-bot.txt.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tabula::game::{GameResult, Notation, Rules};
use tabula::games::chess::Chess;

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");
const REPO: &str = env!("CARGO_MANIFEST_DIR");
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The lichess-bot checkout and a Python that can run its harness, or why not.
fn lichess_bot() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("TABULA_LICHESS_BOT") {
        Some(p) => PathBuf::from(p),
        None => Path::new(REPO).join("../lichess-bot"),
    };
    let harness = dir.join("test_bot/test_bot.py");
    if !harness.is_file() || !dir.join("lib/lichess_bot.py").is_file() {
        return Err(format!(
            "no lichess-bot checkout at {} (git clone https://github.com/lichess-bot-devs/lichess-bot there, or set TABULA_LICHESS_BOT)",
            dir.display()
        ));
    }
    let imports = "import chess, yaml, requests, backoff, rich, pytest";
    let ok = Command::new("python3")
        .args(["-c", imports])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(format!(
            "python3 cannot `{imports}` (in {}: pip install -r requirements.txt pytest)",
            dir.display()
        ));
    }
    Ok(dir)
}

/// Runs `cmd` to its end or `limit`, killing its whole process group then (pytest starts
/// lichess-bot's processes, which start tabula); returns success and the output.
fn run(cmd: &mut Command, limit: Duration, scratch: &Path) -> (bool, String) {
    use std::os::unix::process::CommandExt;
    let out_path = scratch.join("pytest.out");
    let out = std::fs::File::create(&out_path).expect("output file");
    let err = out.try_clone().expect("output file");
    let mut child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("start python3 -m pytest");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > limit {
            // SAFETY: a signal to the process group this test started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let Some(status) = status else {
        panic!("lichess-bot's harness still running after {limit:?} (a hang); output:\n{text}");
    };
    (status.success(), text)
}

/// One game through lichess-bot's harness with `config`, in `scratch`: checks it as the module
/// says and returns the traffic between lichess-bot and tabula.
fn play_one_game(dir: &Path, config: &Path, scratch: &Path) -> String {
    std::fs::create_dir_all(scratch).expect("scratch dir");
    let log = scratch.join("session.log");
    let pgn_dir = scratch.join("games");
    let game_record = scratch.join("game.txt");
    let _ = std::fs::remove_file(&game_record);
    let driver = Path::new(REPO).join("tests/python/lichess_bot_game.py");
    let (ok, out) = run(
        Command::new("python3")
            .current_dir(dir)
            .args(["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA"])
            .arg(&driver)
            .env("TABULA_ENGINE", TABULA)
            .env("TABULA_LICHESS_CONFIG", config)
            .env("TABULA_PGN_DIR", &pgn_dir)
            .env("TABULA_SESSION_LOG", &log)
            .env("TABULA_GAME_RECORD", &game_record)
            // The other tests run beside this one: one thread, a small table.
            .env("TABULA_THREADS", "1")
            .env("TABULA_HASH", "16"),
        Duration::from_secs(240),
        scratch,
    );
    // The summary is the last line; the whole output (every lichess-bot log line) on failure.
    let summary = out.lines().last().unwrap_or_default();
    assert!(
        ok && summary.contains("1 passed"),
        "pytest: {summary}\n{out}"
    );
    eprintln!("lichess-bot's harness, {}: {summary}", config.display());

    // The game, as the mocked lichess.org saw it: the driver writes it to a file of its own
    // (lichess-bot's log lines share stdout and can run into a printed line).
    let record = std::fs::read_to_string(&game_record)
        .unwrap_or_else(|e| panic!("no game record ({e}); output:\n{out}"));
    let moves: Vec<&str> = record
        .lines()
        .nth(1)
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_else(|| panic!("no moves in the game record {record:?}"));
    let mut pos = Chess::default().parse_fen(START).expect("start");
    for (i, m) in moves.iter().enumerate() {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("ply {} {m}: {e}; game {moves:?}", i + 1));
        pos.play(mv);
    }
    assert_eq!(
        pos.result(),
        Some(GameResult::P2Win),
        "the game did not end in Black's mate: {}",
        pos.fen()
    );

    // Every Black move was tabula's: the bestmove it sent after the position before it.
    let traffic = std::fs::read_to_string(&log).expect("the session log");
    assert!(
        traffic.lines().any(|l| l.starts_with("< id name tabula")),
        "the engine lichess-bot started is not tabula:\n{traffic}"
    );
    let mut position: Vec<&str> = Vec::new();
    let mut played = vec![false; moves.len()];
    for line in traffic.lines() {
        if let Some(p) = line.strip_prefix("> position startpos") {
            position = p
                .trim()
                .strip_prefix("moves")
                .unwrap_or("")
                .split_whitespace()
                .collect();
        } else if let Some(b) = line.strip_prefix("< bestmove ") {
            let n = position.len();
            let best = b.split_whitespace().next().unwrap_or_default();
            if n < moves.len() && moves[..n] == position[..] && moves[n] == best {
                played[n] = true;
            }
        }
    }
    for (i, m) in moves.iter().enumerate().skip(1).step_by(2) {
        assert!(
            played[i],
            "Black's move {m} (ply {}) is no bestmove of tabula's",
            i + 1
        );
    }

    // lichess-bot's PGN of the game: the result, and tabula's evaluations as comments.
    let pgn = pgn_dir.join("bo vs b - zzzzzzzz.pgn");
    match std::fs::read_to_string(&pgn) {
        Ok(text) => {
            assert!(text.contains("[Result \"0-1\"]"), "{text}");
            assert!(text.contains("[%eval "), "no engine evaluations: {text}");
        }
        Err(_) => eprintln!("lichess-bot wrote no PGN this time (see the driver): not checked"),
    }
    traffic
}

#[test]
fn lichess_bot_harness_plays_tabula() {
    let dir = match lichess_bot() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("lichess-bot: {why}: test skipped");
            return;
        }
    };
    let scratch = std::env::temp_dir().join(format!("tabula-lichess-bot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);

    // The documented config, as written.
    let config = Path::new(REPO).join("docs/lichess-bot/config.yml");
    let traffic = play_one_game(&dir, &config, &scratch.join("full"));
    assert!(
        !traffic.contains("setoption name UCI_LimitStrength"),
        "{traffic}"
    );

    // Its casual bot, made as its comments say: the two lines uncommented (a level of 1200),
    // `rated` taken out of the modes.
    let edits = [
        (
            "    # UCI_LimitStrength: true\n",
            "    UCI_LimitStrength: true\n",
        ),
        ("    # UCI_Elo: 1500\n", "    UCI_Elo: 1200\n"),
        ("    - rated ", "    # - rated "),
    ];
    let mut casual = std::fs::read_to_string(&config).expect("the config");
    for (from, to) in edits {
        assert_eq!(casual.matches(from).count(), 1, "{from:?} in the config");
        casual = casual.replace(from, to);
    }
    let casual_path = scratch.join("config-1200.yml");
    std::fs::write(&casual_path, casual).expect("the casual config");
    let traffic = play_one_game(&dir, &casual_path, &scratch.join("casual"));
    for option in ["UCI_LimitStrength value true", "UCI_Elo value 1200"] {
        assert!(
            traffic.contains(&format!("> setoption name {option}\n")),
            "{option} not sent:\n{traffic}"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
