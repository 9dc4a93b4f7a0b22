//! Replays every recorded session in protocol/sessions/ against the binary.
//!
//! Format, read top to bottom: `> line` is sent; `< line` waits for an output line matching
//! it (`*` matches any text, `%` exactly one word); `<...` lets any lines pass until the next expectation matches;
//! `# args: ...` gives the command-line arguments; other `#` lines are comments. Output lines
//! starting with `info`, `id` or `option` that no expectation asks for are skipped; any other
//! unexpected line fails the session. At the end stdin is closed: the engine must exit 0.

use super::common;

use common::EngineProc;
use std::time::Duration;

/// `*` matches any text (also none); `%` matches exactly one word (one or more characters,
/// no space), for lines whose shape a client relies on (`bestmove %`: two words, no more).
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.chars().next() {
        None => text.is_empty(),
        Some('*') => {
            let rest = &pattern[1..];
            (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .any(|i| glob(rest, &text[i..]))
        }
        Some('%') => {
            let rest = &pattern[1..];
            let word = text.find(' ').unwrap_or(text.len());
            (1..=word)
                .filter(|&i| text.is_char_boundary(i))
                .any(|i| glob(rest, &text[i..]))
        }
        Some(c) => text.starts_with(c) && glob(&pattern[c.len_utf8()..], &text[c.len_utf8()..]),
    }
}

fn skippable(line: &str) -> bool {
    ["info", "id ", "option "]
        .iter()
        .any(|p| line.starts_with(p))
}

fn replay(path: &std::path::Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let args: Vec<String> = text
        .lines()
        .find_map(|l| l.strip_prefix("# args:"))
        .map(|a| a.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut engine = EngineProc::start(&argv);
    let mut seen = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if let Some(s) = line.strip_prefix("> ") {
            engine.send(s);
            continue;
        }
        let pat = match line.strip_prefix("< ") {
            Some(p) => p,
            None if line == "<" => "",
            None if line == "<..." => {
                skipping = true;
                continue;
            }
            None => continue,
        };
        loop {
            let Some(out) = engine.recv(Duration::from_secs(30)) else {
                return Err(format!(
                    "timed out waiting for {pat:?}; output so far: {seen:#?}"
                ));
            };
            seen.push(out.clone());
            if glob(pat, &out) {
                skipping = false;
                break;
            }
            if !skipping && !skippable(&out) {
                return Err(format!(
                    "expected {pat:?}, got {out:?}; output so far: {seen:#?}"
                ));
            }
        }
    }
    engine.close_stdin();
    let rest = engine.drain(Duration::from_secs(30));
    if let Some(extra) = rest
        .iter()
        .find(|l| !skippable(l) && !l.starts_with("bestmove"))
    {
        return Err(format!("unexpected line {extra:?} after the script"));
    }
    match engine.wait_exit(Duration::from_secs(10)) {
        Some(0) => Ok(()),
        code => Err(format!("exit code {code:?} after EOF")),
    }
}

#[test]
fn glob_matches() {
    assert!(glob("bestmove *", "bestmove e2e4 ponder e7e5"));
    assert!(glob(
        "info * pv e2e4*",
        "info depth 1 score cp 3 pv e2e4 e7e5"
    ));
    assert!(!glob("readyok", "readyok2"));
    assert!(glob("", ""));
    assert!(glob("bestmove %", "bestmove d3"));
    assert!(!glob("bestmove %", "bestmove d3 ponder c5"));
    assert!(!glob("bestmove %", "bestmove "));
    assert!(glob("info % pv %", "info depth pv e2e4"));
}

#[test]
fn recorded_sessions() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/sessions");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("protocol/sessions")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut failures = Vec::new();
    for p in &paths {
        // Named before it runs: a panic inside (a closed pipe) says which session it was.
        eprintln!("session {}", p.display());
        if let Err(e) = replay(p) {
            failures.push(format!("{}: {e}", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
