//! Syzygy tablebases: WDL probes of textbook endings against the tables committed in
//! `tests/data/syzygy` (generated with syzygy1/tb, see the README there), the UCI options
//! through the real binary, and a won ending converted to mate in self-play.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use tabula::engine::Engine;
use tabula::game::{GameResult, Notation, Outcome, Rules};
use tabula::games::chess::{Chess, syzygy};
use tabula::search::Limits;

mod live;

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");
/// Engines here check every table before they answer (`TABULA_SYZYGY_CHECK_MS`), whatever
/// the load of the machine; `live::a_large_set_is_checked_in_the_background` tests the budget.
const NO_BUDGET: &str = "600000";

fn tables() -> String {
    format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"))
}

fn load() {
    syzygy::set_path(&tables()).expect("the committed tables load");
}

fn wdl(fen: &str) -> Option<Outcome> {
    let pos = Chess::default().parse_fen(fen).expect("a legal FEN");
    syzygy::wdl(&pos.board)
}

#[test]
fn textbook_endings_probe_right() {
    load();
    assert!(syzygy::largest() >= 4);
    let cases = [
        // KQK and KRK: won whoever is to move (the defender cannot take).
        ("8/8/8/4k3/8/8/8/3QK3 w - - 0 1", Outcome::Win),
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", Outcome::Win),
        ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", Outcome::Loss),
        // KPK: the pawn queens unstoppably; a rook's pawn with the defender in the corner.
        ("8/4P3/8/8/8/k7/8/4K3 w - - 0 1", Outcome::Win),
        ("k7/8/8/P7/8/8/8/K7 w - - 0 1", Outcome::Draw),
        ("k7/8/8/P7/8/8/8/K7 b - - 0 1", Outcome::Draw),
        // Bare king against bishop and knight: a win.
        ("8/8/8/4k3/8/8/8/2B1KN2 w - - 0 1", Outcome::Win),
        // Rook against an unadvanced pawn with the defending king far away: a win.
        ("8/8/4p3/8/8/8/1k6/4K2R w - - 0 1", Outcome::Win),
        // Queen against rook: a win.
        ("4k3/8/8/8/8/8/r7/2Q1K3 w - - 0 1", Outcome::Win),
        ("4k3/8/8/8/8/8/r7/2Q1K3 b - - 0 1", Outcome::Loss),
    ];
    for (fen, expected) in cases {
        assert_eq!(wdl(fen), Some(expected), "{fen}");
    }
    // Five pieces: no table.
    assert_eq!(wdl("4k3/8/8/8/8/8/rr6/2Q1K3 w - - 0 1"), None);
}

#[test]
fn a_bad_path_keeps_the_tables() {
    load();
    assert!(syzygy::set_path("/no/such/directory").is_err());
    assert!(syzygy::set_path(env!("CARGO_MANIFEST_DIR")).is_err());
    assert_eq!(
        wdl("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"),
        Some(Outcome::Win),
        "the tables loaded before stay"
    );
}

/// A won ending played out by the engine against itself, tables on: mate within 50 moves.
fn converts(fen: &str) {
    load();
    let mut engine = Engine::new(Chess::default());
    engine.set_position(Some(fen), &[]).expect("FEN");
    let winner = engine.position().to_move();
    for _ in 0..100 {
        if engine.game_result().is_some() {
            break;
        }
        let result = engine.search_now(Limits::depth(6), &|_| {});
        let best = result.best.expect("a move");
        engine.play(best);
    }
    let expected = match winner {
        tabula::game::Player::P1 => GameResult::P1Win,
        tabula::game::Player::P2 => GameResult::P2Win,
    };
    assert_eq!(engine.game_result(), Some(expected), "{fen}");
}

#[test]
fn krk_is_mated_within_fifty_moves() {
    converts("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
}

#[test]
fn kqk_is_mated_within_fifty_moves() {
    converts("8/8/8/2k5/8/8/8/4K2Q w - - 0 1");
}

/// The engine, every table checked before it answers, its stdin and stdout piped.
fn engine() -> std::process::Child {
    Command::new(TABULA)
        .env("TABULA_SYZYGY_CHECK_MS", NO_BUDGET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tabula")
}

fn uci(input: &str) -> Vec<String> {
    let mut child = engine();
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write");
    stdin.flush().expect("flush");
    let wait_for_bestmove = input.contains("\ngo ");
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    for line in out.lines().map_while(Result::ok) {
        let done = line.starts_with("bestmove ") || (!wait_for_bestmove && line == "uciok");
        lines.push(line);
        if done {
            break;
        }
    }
    let _ = writeln!(stdin, "quit");
    drop(stdin);
    let _ = child.wait();
    lines
}

#[test]
fn uci_options_are_announced() {
    let lines = uci("uci\nquit\n");
    for decl in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l == decl), "{decl} in {lines:?}");
    }
}

#[test]
fn uci_go_reports_tbhits_and_a_winning_score() {
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let lines = uci(&format!(
        "setoption name SyzygyPath value {}\nposition fen {fen}\ngo depth 5\nisready\n",
        tables()
    ));
    let last_info = lines
        .iter()
        .rfind(|l| l.starts_with("info depth"))
        .expect("an info line");
    let field = |name: &str| -> Option<i64> {
        let words: Vec<&str> = last_info.split_whitespace().collect();
        let i = words.iter().position(|w| *w == name)?;
        words.get(i + 1)?.parse().ok()
    };
    assert!(field("tbhits").is_some_and(|n| n > 0), "{last_info}");
    let winning = field("cp").is_some_and(|cp| cp > 10_000) || field("mate").is_some_and(|m| m > 0);
    assert!(winning, "{last_info}");
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("bestmove");
    let mv = best.split_whitespace().next().expect("a move");
    let pos = Chess::default().parse_fen(fen).expect("FEN");
    assert!(pos.parse_move(mv).is_ok(), "{mv} legal");
}

#[test]
fn uci_bad_path_is_one_error_and_the_engine_goes_on() {
    let lines = uci(
        "setoption name SyzygyPath value /no/such/dir\nisready\nposition fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1\ngo depth 3\nisready\n",
    );
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .count();
    assert_eq!(errors, 1, "{lines:?}");
    assert!(lines.iter().any(|l| l == "readyok"));
    assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
    // Without tables, no tbhits.
    assert!(!lines.iter().any(|l| l.contains("tbhits")), "{lines:?}");
}

#[test]
fn the_search_probes_after_captures() {
    load();
    // Five pieces (no table at the root); Qxd4 leads into KQvKR, probed in the search.
    let mut engine = Engine::new(Chess::default());
    engine
        .set_position(Some("r3k3/8/8/8/3n4/8/8/3QK3 w - - 0 1"), &[])
        .expect("FEN");
    let hits = std::sync::atomic::AtomicU64::new(0);
    let result = engine.search_now(Limits::depth(4), &|info| {
        hits.fetch_max(info.tbhits, std::sync::atomic::Ordering::Relaxed);
    });
    assert!(result.best.is_some());
    assert!(hits.into_inner() > 0, "no tablebase hits");
    // Qxd4 is in the principal variation, where the probe does not end the search but bounds
    // it: the win the table proved is the score (a plain search of KQvKR sees about +9).
    let tb_win = tabula::search::TB_WIN;
    assert!(
        result.score >= tb_win - 128,
        "score {} below a tablebase win",
        result.score
    );
}

/// The search stores what a WDL probe in the tree proved in the transposition table, as
/// Stockfish does: a win as a lower bound and a loss as an upper bound of the tablebase score
/// (`TB_WIN - ply`, kept relative to the node), a draw as exactly 0, deeper than the search
/// reached there, so that a later visit takes the entry instead of probing again. (Without
/// the store, a probed position has no entry, or one from a quiescence search at depth 0.)
#[test]
fn tablebase_answers_go_into_the_transposition_table() {
    use tabula::search::{self, Bound, Control, SearchParams, TB_WIN, TranspositionTable};
    load();
    // Five pieces, so the root is searched; each capture leads into a four-piece table. A
    // win or loss is stored where it cuts off or outside the principal variation: so a
    // capture that is not the best move, or the second of two equally good ones (searched
    // with a null window); a draw wherever it is found.
    let cases = [
        // Rxd4?: KQvKR with White to move, a win for White; Black has better moves.
        (
            "4k3/8/8/8/r2P4/8/8/3QK3 b - - 0 1",
            &["a4d4"][..],
            Outcome::Win,
            Bound::Lower,
        ),
        // Qxa4+ and Qxh5+: KQvKR with Black to move, lost for Black.
        (
            "4k3/8/8/7r/r7/8/8/3QK3 w - - 0 1",
            &["d1a4", "d1h5"][..],
            Outcome::Loss,
            Bound::Upper,
        ),
        // Rxd4: KRvKR, a draw.
        (
            "4k3/1r6/8/8/3n4/8/8/3RK3 w - - 0 1",
            &["d1d4"][..],
            Outcome::Draw,
            Bound::Exact,
        ),
    ];
    for (fen, captures, child_result, bound) in cases {
        let root = Chess::default().parse_fen(fen).expect("FEN");
        let tt = TranspositionTable::new(16);
        let params = SearchParams {
            limits: Limits::depth(7),
            ..SearchParams::default()
        };
        let ctrl = Control::new(&params.limits, root.to_move(), 0);
        let result = search::search(&root, &[], &params, &tt, &ctrl, &|_| {}, &mut Vec::new());
        assert!(result.best.is_some(), "{fen}");
        let score = match child_result {
            Outcome::Win => TB_WIN - 1,
            Outcome::Loss => -(TB_WIN - 1),
            Outcome::Draw => 0,
        };
        let mut found = Vec::new();
        for capture in captures {
            let mut child = root.clone();
            child.play(root.parse_move(capture).expect("legal"));
            assert_eq!(
                syzygy::wdl(&child.board),
                Some(child_result),
                "{fen} {capture}"
            );
            let entry = tt.probe(child.hash(), 1);
            found.push((capture, entry.map(|e| (e.bound, e.score, e.depth))));
        }
        let stored = found
            .iter()
            .filter(|(_, e)| e.is_some_and(|(b, s, d)| b == bound && s == score && d >= 6))
            .count();
        assert!(
            stored > 0,
            "{fen}: want ({bound:?}, {score}) at depth >= 6: {found:?}"
        );
    }
}

// Bad table files (issue 46): each kind of damage applied to the KBNvK files in a copy of the
// committed tables. The engine must skip them with one error line naming each, answer a legal
// bestmove, quit cleanly, and probe the other tables as the intact directory does.

const KBNK: &str = "8/8/8/4k3/8/8/8/KBN5 w - - 0 1";
const KRK: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";

/// A copy of the committed tables in a fresh temporary directory, removed on drop.
pub(crate) struct TableCopy(std::path::PathBuf);

impl TableCopy {
    pub(crate) fn new(label: &str) -> TableCopy {
        let dir =
            std::env::temp_dir().join(format!("tabula-tbtest-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        for e in std::fs::read_dir(tables()).expect("tables").flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".rtbw") || name.ends_with(".rtbz") {
                std::fs::copy(e.path(), dir.join(&name)).expect("copy");
            }
        }
        TableCopy(dir)
    }
    pub(crate) fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
    /// Replaces the KBNvK files by what `damage` makes of their bytes.
    pub(crate) fn damage(&self, damage: impl Fn(Vec<u8>) -> Vec<u8>) {
        for name in ["KBNvK.rtbw", "KBNvK.rtbz"] {
            let file = self.0.join(name);
            let bytes = std::fs::read(&file).expect("read");
            std::fs::write(&file, damage(bytes)).expect("write");
        }
    }
}

impl Drop for TableCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a session with these tables answers: the `info string error` lines, then for each
/// position (searched to `depth`) its bestmove and the last `info depth` line's score.
struct Answers {
    errors: Vec<String>,
    results: Vec<(String, String)>,
}

fn session(path: &str, searches: &[(&str, u32)]) -> Answers {
    let mut child = engine();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    writeln!(stdin, "setoption name SyzygyPath value {path}\nisready").expect("write");
    let mut errors = Vec::new();
    for line in out.by_ref().map_while(Result::ok) {
        if line == "readyok" {
            break;
        }
        if line.starts_with("info string") {
            errors.push(line);
        }
    }
    let mut results = Vec::new();
    for (fen, depth) in searches {
        // A new game each time: the search does not depend on the ones before.
        writeln!(stdin, "ucinewgame\nposition fen {fen}\ngo depth {depth}").expect("write");
        let mut score = String::new();
        let mut best = None;
        for line in out.by_ref().map_while(Result::ok) {
            if line.starts_with("info depth")
                && let Some(i) = line.find(" score ")
            {
                let words: Vec<&str> = line[i + 7..].split_whitespace().take(2).collect();
                score = words.join(" ");
            }
            if let Some(b) = line.strip_prefix("bestmove ") {
                best = b.split_whitespace().next().map(str::to_string);
                break;
            }
        }
        let best = best.expect("a bestmove");
        let pos = Chess::default().parse_fen(fen).expect("FEN");
        assert!(pos.parse_move(&best).is_ok(), "{best} legal in {fen}");
        results.push((best, score));
    }
    writeln!(stdin, "quit").expect("write");
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success(), "exit {status:?}");
    Answers { errors, results }
}

fn bad_tables_are_skipped(label: &str, damage: impl Fn(&TableCopy)) {
    let intact = session(&tables(), &[(KBNK, 8), (KRK, 5)]);
    assert!(intact.errors.is_empty(), "{:?}", intact.errors);
    let copy = TableCopy::new(label);
    damage(&copy);
    let got = session(&copy.path(), &[(KBNK, 8), (KRK, 5)]);
    for name in ["KBNvK.rtbw", "KBNvK.rtbz"] {
        let file = copy.0.join(name);
        let named: Vec<_> = got
            .errors
            .iter()
            .filter(|l| {
                l.starts_with("info string error: ") && l.contains(&format!("'{}'", file.display()))
            })
            .collect();
        assert_eq!(
            named.len(),
            1,
            "{label}: one line for {name}: {:?}",
            got.errors
        );
    }
    assert_eq!(got.errors.len(), 2, "{label}: {:?}", got.errors);
    // KRvK, from the good tables: the same move and score as with the intact directory.
    assert_eq!(got.results[1], intact.results[1], "{label}");
    let score = &got.results[1].1;
    let winning = score.starts_with("mate ")
        || score
            .strip_prefix("cp ")
            .and_then(|cp| cp.parse::<i64>().ok())
            .is_some_and(|cp| cp > 10_000);
    assert!(winning, "{label}: KRvK score {score}");
}

#[test]
fn cut_tables_are_skipped() {
    bad_tables_are_skipped("cut", |c| c.damage(|b| b[..1000].to_vec()));
}

#[test]
fn empty_tables_are_skipped() {
    bad_tables_are_skipped("empty", |c| c.damage(|_| Vec::new()));
}

#[test]
fn damaged_tables_are_skipped() {
    bad_tables_are_skipped("flipped", |c| {
        c.damage(|mut b| {
            for i in (64..b.len()).step_by(97) {
                b[i] ^= 0x5a;
            }
            b
        })
    });
}

#[test]
fn tables_with_a_wrong_magic_are_skipped() {
    bad_tables_are_skipped("magic", |c| {
        c.damage(|mut b| {
            b[0] ^= 0xff;
            b
        })
    });
}

#[test]
fn a_directory_named_like_a_table_is_skipped() {
    bad_tables_are_skipped("directory", |c| {
        for name in ["KBNvK.rtbw", "KBNvK.rtbz"] {
            let file = c.0.join(name);
            std::fs::remove_file(&file).expect("remove");
            std::fs::create_dir(&file).expect("mkdir");
        }
    });
}

/// The search through a damaged table that passes the checks (a change inside the coded
/// data): wrong values at worst, never a crash.
#[test]
fn damage_inside_the_data_does_not_crash() {
    let copy = TableCopy::new("data");
    // Every 97th byte of the last quarter of each file: the Huffman-coded blocks.
    copy.damage(|mut b| {
        let from = b.len() * 3 / 4;
        for i in (from..b.len().saturating_sub(16)).step_by(97) {
            b[i] ^= 0x5a;
        }
        b
    });
    let got = session(&copy.path(), &[(KBNK, 10), (KRK, 5)]);
    assert!(got.errors.len() <= 2, "{:?}", got.errors);
}
