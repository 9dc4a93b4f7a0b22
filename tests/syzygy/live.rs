//! Live engines and their table files changed on disk (issue 89): what the prober reads is
//! exactly what was checked, in a private directory that goes with the engine, and a table
//! that another process begins to cut or rewrite is let go before the writer goes on.

use super::{NO_BUDGET, TABULA, TableCopy, tables};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// A live engine: lines in, lines out, read up to a line that answers.
struct Live {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    out: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Live {
    /// An engine whose temporary directory is `tmp` (where its link directory is made).
    fn start(tmp: &std::path::Path) -> Live {
        Live::start_with(tmp, &[])
    }
    /// The same, with these variables in its environment.
    fn start_with(tmp: &std::path::Path, env: &[(&str, &str)]) -> Live {
        let mut child = Command::new(TABULA)
            .env("TMPDIR", tmp)
            .env("TABULA_SYZYGY_CHECK_MS", NO_BUDGET)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tabula");
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Live { child, stdin, out }
    }
    fn send(&mut self, lines: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{lines}").expect("write");
        stdin.flush().expect("flush");
    }
    /// The lines up to and including the first that starts with `end`.
    fn until(&mut self, end: &str) -> Vec<String> {
        let mut lines = Vec::new();
        for line in self.out.by_ref().map_while(Result::ok) {
            let done = line.starts_with(end);
            lines.push(line);
            if done {
                return lines;
            }
        }
        panic!("no '{end}' line; the engine ended after {lines:?}");
    }
    /// `setoption name SyzygyPath`, then the lines up to `readyok`.
    fn set_path(&mut self, path: &str) -> Vec<String> {
        self.send(&format!("setoption name SyzygyPath value {path}\nisready"));
        self.until("readyok")
    }
    /// The last `info depth` line and the bestmove of a search.
    fn search(&mut self, fen: &str, depth: u32) -> (String, String) {
        self.send(&format!("ucinewgame\nposition fen {fen}\ngo depth {depth}"));
        let lines = self.until("bestmove ");
        let info = lines
            .iter()
            .rfind(|l| l.starts_with("info depth"))
            .cloned()
            .unwrap_or_default();
        (info, lines.last().cloned().unwrap_or_default())
    }
    /// A search of `fen` that the tables answer: tbhits and a winning score.
    fn expect_tablebase_win(&mut self, fen: &str, depth: u32) {
        let (info, _) = self.search(fen, depth);
        assert!(tbhits(&info) > 0 && winning(&info), "{fen}: {info}");
    }
    /// `quit`, and a clean exit.
    fn quit_cleanly(self) {
        let status = self.end(true);
        assert!(status.success(), "exit {status:?}");
    }
    /// Ends the engine with `quit` (or EOF without): its exit status.
    fn end(mut self, quit: bool) -> std::process::ExitStatus {
        if quit {
            self.send("quit");
        }
        drop(self.stdin.take());
        self.child.wait().expect("wait")
    }
}

/// The `info string error` lines of an answer.
fn error_lines(answer: &[String]) -> Vec<&String> {
    answer
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect()
}

/// An answer without any `info string` line (no error, nothing loaded later).
fn assert_quiet(answer: &[String]) {
    assert!(
        !answer.iter().any(|l| l.starts_with("info string")),
        "{answer:?}"
    );
}

/// A fresh empty directory for a test, removed on drop.
fn scratch(label: &str) -> TableCopy {
    let dir = std::env::temp_dir().join(format!("tabula-tbtest-{}-{label}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    TableCopy(dir)
}

/// Copies these committed tables (`KQvK` gives both its files) into `dir`.
fn copy_tables(dir: &std::path::Path, stems: &[&str]) {
    for stem in stems {
        for ext in ["rtbw", "rtbz"] {
            let name = format!("{stem}.{ext}");
            std::fs::copy(format!("{}/{name}", tables()), dir.join(&name)).expect("copy");
        }
    }
}

fn tbhits(info: &str) -> u64 {
    let words: Vec<&str> = info.split_whitespace().collect();
    words
        .iter()
        .position(|w| *w == "tbhits")
        .and_then(|i| words.get(i + 1)?.parse().ok())
        .unwrap_or(0)
}

fn winning(info: &str) -> bool {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = |name: &str| -> Option<i64> {
        let i = words.iter().position(|w| *w == name)?;
        words.get(i + 1)?.parse().ok()
    };
    at("cp").is_some_and(|cp| cp > 10_000) || at("mate").is_some_and(|m| m > 0)
}

const KQK: &str = "4k3/8/8/8/8/8/8/KQ6 w - - 0 1";
const KRK_CORNER: &str = "4k3/8/8/8/8/8/8/KR6 w - - 0 1";

/// Files that appear or are replaced on disk after `SyzygyPath` never reach the prober: it
/// reads the descriptors that were checked (before: an empty `KRvK.rtbw` made after the
/// option was opened by the prober at the first probe, a bus error, exit 135).
#[test]
fn files_changed_after_setoption_are_not_read() {
    let copy = scratch("appear");
    let tmp = scratch("appear-tmp");
    copy_tables(&copy.0, &["KQvK"]);
    let mut engine = Live::start(&tmp.0);
    let answer = engine.set_path(&copy.path());
    assert_quiet(&answer);
    // A download in progress: empty files for a table that was not there.
    std::fs::File::create(copy.0.join("KRvK.rtbw")).expect("create");
    std::fs::File::create(copy.0.join("KRvK.rtbz")).expect("create");
    let (info, best) = engine.search(KRK_CORNER, 4);
    assert!(best.starts_with("bestmove "), "{best}");
    assert_eq!(tbhits(&info), 0, "{info}");
    // The checked KQvK files replaced by empty ones (new files under the same names; the
    // prober has not opened them yet) and then removed: the checked bytes are still read.
    for ext in ["rtbw", "rtbz"] {
        let file = copy.0.join(format!("KQvK.{ext}"));
        let new = copy.0.join(format!("new.{ext}"));
        std::fs::File::create(&new).expect("create");
        std::fs::rename(&new, &file).expect("rename");
    }
    engine.expect_tablebase_win(KQK, 4);
    for ext in ["rtbw", "rtbz"] {
        std::fs::remove_file(copy.0.join(format!("KQvK.{ext}"))).expect("remove");
    }
    engine.expect_tablebase_win(KQK, 5);
    engine.quit_cleanly();
}

/// The same `SyzygyPath` sent again scans again: a refused file replaced by a good one is
/// loaded (before: nothing happened, and the score stayed without tbhits).
#[test]
fn the_same_path_sent_again_scans_again() {
    let copy = scratch("again");
    let tmp = scratch("again-tmp");
    copy_tables(&copy.0, &["KQvK", "KRvK"]);
    let krk = copy.0.join("KRvK.rtbw");
    std::fs::write(&krk, [0u8; 100]).expect("write");
    let mut engine = Live::start(&tmp.0);
    let answer = engine.set_path(&copy.path());
    let errors = error_lines(&answer);
    assert_eq!(errors.len(), 1, "{answer:?}");
    assert!(errors[0].contains("KRvK.rtbw"), "{answer:?}");
    let (info, _) = engine.search(KRK_CORNER, 4);
    assert_eq!(tbhits(&info), 0, "{info}");
    // The good file, under a new name moved over the bad one.
    let good = copy.0.join("good.tmp");
    std::fs::copy(format!("{}/KRvK.rtbw", tables()), &good).expect("copy");
    std::fs::rename(&good, &krk).expect("rename");
    let answer = engine.set_path(&copy.path());
    assert_quiet(&answer);
    engine.expect_tablebase_win(KRK_CORNER, 4);
    engine.quit_cleanly();
}

/// The entries of the directory an engine was given as its temporary directory.
fn entries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .collect()
}

/// The prober's directory of links: one, made private (mode 0700, a name that is not the
/// process id), holding links to the tables that passed only, and gone after `quit` and
/// after EOF (before: a guessable `tabula-syzygy-<pid>-<n>` made only when some table was
/// bad, with the default mode, left behind at `quit`).
#[cfg(unix)]
#[test]
fn the_link_directory_is_private_and_removed_at_the_end() {
    use std::os::unix::fs::PermissionsExt;
    let copy = scratch("private");
    copy_tables(&copy.0, &["KQvK", "KRvK"]);
    for quit in [true, false] {
        let tmp = scratch(&format!("private-tmp-{quit}"));
        let mut engine = Live::start(&tmp.0);
        let pid = engine.child.id();
        let answer = engine.set_path(&copy.path());
        assert_quiet(&answer);
        let made = entries(&tmp.0);
        assert_eq!(made.len(), 1, "one link directory: {made:?}");
        let dir = &made[0];
        let meta = std::fs::symlink_metadata(dir).expect("stat");
        assert!(meta.is_dir(), "{dir:?}");
        assert_eq!(meta.permissions().mode() & 0o777, 0o700, "{dir:?}");
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        assert!(!name.contains(&pid.to_string()), "{name}");
        let mut links: Vec<String> = entries(dir)
            .iter()
            .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
            .collect();
        links.sort();
        assert_eq!(links, ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz"]);
        let (info, _) = engine.search(KQK, 4);
        assert!(tbhits(&info) > 0, "{info}");
        // Another path: the first directory goes.
        let answer = engine.set_path(&tables());
        assert_quiet(&answer);
        let now = entries(&tmp.0);
        assert!(now.len() == 1 && now[0] != *dir, "{now:?}");
        let status = engine.end(quit);
        assert!(status.success(), "exit {status:?}");
        assert_eq!(
            entries(&tmp.0),
            Vec::<std::path::PathBuf>::new(),
            "quit {quit}"
        );
    }
}

/// A table cut in place (the same inode, as `truncate` or a copy over it does) after the
/// prober mapped it: the writer waits on the engine's read lease, the engine lets the table
/// go (one error line at the next command) and keeps the others. Before: the engine died at
/// the next probe (a bus error, or a stack overflow in the prober on the cut bytes; seen with
/// `scripts/syzygy_stress.py --seed 1`).
#[cfg(target_os = "linux")]
#[test]
fn a_table_cut_in_place_is_let_go_before_the_cut() {
    let copy = scratch("cut-in-place");
    let tmp = scratch("cut-in-place-tmp");
    copy_tables(&copy.0, &["KQvK", "KRvK"]);
    let mut engine = Live::start(&tmp.0);
    let answer = engine.set_path(&copy.path());
    assert_quiet(&answer);
    engine.expect_tablebase_win(KQK, 4);
    // The cut waits for the lease; the engine lets go within moments, not the kernel's 45 s.
    let started = std::time::Instant::now();
    for ext in ["rtbw", "rtbz"] {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(copy.0.join(format!("KQvK.{ext}")))
            .expect("open for writing");
        file.set_len(100).expect("cut");
    }
    let waited = started.elapsed();
    assert!(waited.as_secs() < 10, "the cut waited {waited:?}");
    engine.send("ucinewgame\nposition fen 4k3/8/8/8/8/8/8/KQ6 w - - 0 1\ngo depth 4");
    let lines = engine.until("bestmove ");
    let notices: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("info string error") && l.contains("KQvK"))
        .collect();
    assert_eq!(notices.len(), 2, "{lines:?}");
    assert!(notices[0].contains("no longer used"), "{notices:?}");
    let best = lines.last().cloned().unwrap_or_default();
    assert!(best.starts_with("bestmove b1"), "{best}");
    let info = lines
        .iter()
        .rfind(|l| l.starts_with("info depth"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(tbhits(&info), 0, "{info}");
    // The other table is still probed.
    engine.expect_tablebase_win(KRK_CORNER, 4);
    engine.quit_cleanly();
}

/// A table file another process still has open for writing (a copy or download running) is
/// refused with one line naming it, the others loaded.
#[cfg(target_os = "linux")]
#[test]
fn a_table_still_being_written_is_refused() {
    let copy = scratch("being-written");
    let tmp = scratch("being-written-tmp");
    copy_tables(&copy.0, &["KQvK", "KRvK"]);
    // The writer is another process (a descriptor of this test process would also be held,
    // for a moment, by every child that the tests running beside it start).
    let mut writer = Command::new("sh")
        .args(["-c", "exec 3>>\"$1\"; echo open; read _", "sh"])
        .arg(copy.0.join("KRvK.rtbw"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start sh");
    let mut said = String::new();
    BufReader::new(writer.stdout.take().expect("stdout"))
        .read_line(&mut said)
        .expect("read");
    assert_eq!(said.trim(), "open");
    let mut engine = Live::start(&tmp.0);
    let answer = engine.set_path(&copy.path());
    let errors = error_lines(&answer);
    assert_eq!(errors.len(), 1, "{answer:?}");
    assert!(
        errors[0].contains("KRvK.rtbw") && errors[0].contains("open for writing"),
        "{answer:?}"
    );
    engine.expect_tablebase_win(KQK, 4);
    // Written and closed: the same path sent again loads it.
    drop(writer.stdin.take());
    writer.wait().expect("wait");
    let answer = engine.set_path(&copy.path());
    assert_quiet(&answer);
    engine.expect_tablebase_win(KRK_CORNER, 4);
    engine.quit_cleanly();
}

/// Past the check's time budget (`TABULA_SYZYGY_CHECK_MS`, here 0: one file before the
/// answer), `SyzygyPath` answers at once and the other files are checked in the background:
/// a line says so, a damaged file found there gets its error line, and the good tables are
/// probed once in (before: every file was checked before `readyok`, gigabytes read on a
/// large set, past a GUI's `isready` time-out).
#[test]
fn a_large_set_is_checked_in_the_background() {
    let copy = TableCopy::new("background");
    let tmp = scratch("background-tmp");
    copy.damage(|mut b| {
        let at = b.len() / 2;
        b.truncate(at);
        b
    });
    let mut engine = Live::start_with(&tmp.0, &[("TABULA_SYZYGY_CHECK_MS", "0")]);
    let answer = engine.set_path(&copy.path());
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("in the background")),
        "{answer:?}"
    );
    let mut lines = Vec::new();
    let started = std::time::Instant::now();
    while !lines
        .iter()
        .any(|l: &String| l.contains("checked after the first answer are done"))
    {
        assert!(started.elapsed().as_secs() < 60, "{lines:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
        engine.send("isready");
        lines.extend(engine.until("readyok"));
    }
    let errors: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    assert_eq!(errors.len(), 2, "{lines:?}");
    assert!(errors.iter().all(|e| e.contains("KBNvK")), "{errors:?}");
    engine.expect_tablebase_win("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 4);
    let (info, _) = engine.search("8/8/8/4k3/8/8/8/KBN5 w - - 0 1", 4);
    assert_eq!(tbhits(&info), 0, "{info}");
    // A table checked on the background thread (which has ended) is let go as promptly as
    // one checked before the answer (before: the lease's signal went to that thread, so
    // nowhere, and the writer waited the kernel's 45 s).
    #[cfg(target_os = "linux")]
    {
        let started = std::time::Instant::now();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(copy.0.join("KRvK.rtbw"))
            .expect("open for writing");
        file.set_len(100).expect("cut");
        let waited = started.elapsed();
        assert!(waited.as_secs() < 10, "the cut waited {waited:?}");
    }
    engine.quit_cleanly();
}
