//! Kill -9 at any moment loses at most the work since the last save (issue 46): `datagen`,
//! `book` and a checkpointed `solve` are killed (SIGKILL) at seeded random moments, resumed
//! by the same command, and end as a run that was never interrupted.
//!
//! - datagen: the file after every kill is a prefix of the uninterrupted run's bytes (a torn
//!   last game at most), and is cut at seeded random places as well (a write torn anywhere);
//!   the resumed file is byte for byte the uninterrupted one.
//! - book (`--total --save-every 0`, a save after every expansion): after every kill the file
//!   is absent or a whole book, never with fewer expanded positions than before; the resumed
//!   book is byte for byte the uninterrupted one.
//! - solve `--checkpoint` (Connect Four): killed in its search, and killed while it saves
//!   (SIGINT, then SIGKILL a few milliseconds later): the checkpoint is absent or whole, the
//!   resumed solve gives the uninterrupted result, and the final checkpoint answers it again
//!   at once. (The table's bytes depend on the order of the searches, so they are not
//!   compared: a checkpoint is a cache of proven results, and every one of them is checked.)

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

/// SplitMix64: the kill moments, from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A duration between `lo` and `hi`.
    fn between(&mut self, lo: Duration, hi: Duration) -> Duration {
        let span = (hi.saturating_sub(lo)).as_micros().max(1) as u64;
        lo + Duration::from_micros(self.next() % span)
    }
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-kill-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Runs `args` to its end: (stdout, seconds taken).
fn run(args: &[&str]) -> (String, f64) {
    let t = Instant::now();
    let out = Command::new(TABULA)
        .args(args)
        .output()
        .expect("tabula runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (stdout, t.elapsed().as_secs_f64())
}

/// Starts `args`, sends `first` after `after` (and SIGKILL `then` later, if given); true if
/// the process ended by itself first.
fn interrupt(args: &[&str], after: Duration, first: i32, then: Option<Duration>) -> bool {
    let mut child = Command::new(TABULA)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tabula starts");
    let until = Instant::now() + after;
    while Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: a signal to our own child, by its id.
    unsafe {
        libc::kill(child.id() as libc::pid_t, first);
    }
    if let Some(t) = then {
        std::thread::sleep(t);
        let _ = child.kill();
    }
    let _ = child.wait();
    false
}

fn sigkill(args: &[&str], after: Duration) -> bool {
    interrupt(args, after, libc::SIGKILL, None)
}

#[test]
fn datagen_killed_and_resumed_writes_the_same_bytes() {
    let dir = tmp("datagen");
    let (whole, part) = (dir.join("whole.bin"), dir.join("killed.bin"));
    let args = |out: &Path| -> Vec<String> {
        let mut v: Vec<String> = ["--game", "chess", "datagen", "--games", "40", "--threads"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(["1", "--seed", "46", "--nodes", "300", "--out"].map(String::from));
        v.push(out.display().to_string());
        v
    };
    let a = args(&whole);
    let (_, secs) = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let reference = std::fs::read(&whole).expect("written");
    let b = args(&part);
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    let mut rng = Rng(46);
    let total = Duration::from_secs_f64(secs);
    let mut kills = 0;
    while kills < 5 {
        if sigkill(&b, rng.between(total / 12, total / 5)) {
            break;
        }
        kills += 1;
        let now = std::fs::read(&part).unwrap_or_default();
        assert!(
            reference.starts_with(&now),
            "kill {kills}: the file ({} bytes) is not a prefix of the uninterrupted one",
            now.len()
        );
        // Every other kill also tears the file at a random place (a write cut anywhere).
        if kills % 2 == 0 && !now.is_empty() {
            let cut = rng.next() % now.len() as u64;
            let f = std::fs::OpenOptions::new().write(true).open(&part);
            f.and_then(|f| f.set_len(cut)).expect("cut");
        }
    }
    assert!(
        kills >= 3,
        "only {kills} kills landed in a run of {secs:.1} s"
    );
    run(&b);
    let resumed = std::fs::read(&part).expect("written");
    assert!(
        resumed == reference,
        "after {kills} kills: {} bytes, uninterrupted {}",
        resumed.len(),
        reference.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tabula data --check` finds the file whole (its checksum holds).
fn checked_by_tabula(path: &Path) -> Result<(), String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["data", "--check"])
        .arg(path)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// (entries, expanded) of a book file, or an error if it is not a whole book.
fn book_file(path: &Path) -> Result<(usize, usize), String> {
    let b = std::fs::read(path).map_err(|e| e.to_string())?;
    // TBLOBK02: magic, count, 26-byte entries, the CRC-32 of all before it.
    if b.len() < 16 || &b[..8] != b"TBLOBK02" {
        return Err(format!("{} bytes, no book header", b.len()));
    }
    let n = u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize;
    if b.len() != 12 + 26 * n + 4 {
        return Err(format!("{n} entries announced in {} bytes", b.len()));
    }
    checked_by_tabula(path)?;
    let expanded = b[12..12 + 26 * n]
        .chunks_exact(26)
        .filter(|e| e[21] != 0)
        .count();
    Ok((n, expanded))
}

#[test]
fn book_killed_and_resumed_writes_the_same_book() {
    let dir = tmp("book");
    let (whole, part) = (dir.join("whole.book"), dir.join("killed.book"));
    let args = |out: &Path| -> Vec<String> {
        let mut v: Vec<String> = ["--game", "othello", "book", "--expansions", "40", "--total"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(["--depth", "8", "--max-plies", "12", "--hash", "8"].map(String::from));
        v.extend(["--save-every", "0", "--out"].map(String::from));
        v.push(out.display().to_string());
        v
    };
    let a = args(&whole);
    let (_, secs) = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let reference = std::fs::read(&whole).expect("written");
    let b = args(&part);
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    let mut rng = Rng(4646);
    let total = Duration::from_secs_f64(secs);
    let (mut kills, mut expanded) = (0, 0);
    while kills < 5 {
        if sigkill(&b, rng.between(total / 12, total / 5)) {
            break;
        }
        kills += 1;
        if part.exists() {
            let (_, now) = book_file(&part).unwrap_or_else(|e| panic!("kill {kills}: {e}"));
            assert!(
                now >= expanded,
                "kill {kills}: {now} expanded, {expanded} before"
            );
            expanded = now;
        }
    }
    assert!(
        kills >= 3,
        "only {kills} kills landed in a run of {secs:.1} s"
    );
    run(&b);
    assert!(
        std::fs::read(&part).expect("written") == reference,
        "after {kills} kills the book differs from the uninterrupted one"
    );
    // Asked again, the finished book is left as it is.
    run(&b);
    assert!(std::fs::read(&part).expect("written") == reference);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The solve's answers without their node counts and times.
fn answer(out: &str) -> String {
    out.lines()
        .filter(|l| !l.starts_with("solved"))
        .map(|l| l.split(" nodes").next().unwrap_or(l).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_checkpointed_solve_killed_and_resumed_gives_the_same_answer() {
    let dir = tmp("solve");
    let ckpt = dir.join("c4.ckpt");
    // Columns 4, 4, 5, 3 played: some 20 million nodes, a few seconds on one thread.
    let input = dir.join("positions.txt");
    std::fs::write(&input, "4453\n").expect("written");
    let input = input.display().to_string();
    let plain = [
        "solve",
        "--game",
        "connect4",
        "--threads",
        "1",
        "--hash",
        "16",
        &input,
    ];
    let (reference, secs) = run(&plain);
    assert!(answer(&reference).contains("4453 -2 best f"), "{reference}");
    let mut with: Vec<String> = plain.iter().map(|s| s.to_string()).collect();
    with.push("--checkpoint".into());
    with.push(ckpt.display().to_string());
    let with: Vec<&str> = with.iter().map(String::as_str).collect();
    let whole = |kill: usize| {
        if let Ok(b) = std::fs::read(&ckpt) {
            assert!(
                b.len() >= 20 && &b[..8] == b"TBLC4TT2",
                "kill {kill}: no header"
            );
            let buckets = u64::from_le_bytes(b[8..16].try_into().unwrap_or([0; 8]));
            // TBLC4TT2: header, 16-byte buckets, the CRC-32 of all before it.
            assert_eq!(
                b.len() as u64,
                20 + 16 * buckets + 4,
                "kill {kill}: a torn checkpoint"
            );
            if let Err(e) = checked_by_tabula(&ckpt) {
                panic!("kill {kill}: {e}");
            }
        }
    };
    let mut rng = Rng(464646);
    let total = Duration::from_secs_f64(secs);
    let mut kills = 0;
    while kills < 5 {
        let after = rng.between(total / 8, total / 2);
        // Three kills in the search (nothing saved: each run starts over), then kills in a
        // save: SIGINT makes the solve save its table, SIGKILL cuts the save short.
        let ended = if kills < 3 {
            sigkill(&with, after)
        } else {
            let during = rng.between(Duration::ZERO, Duration::from_millis(10));
            interrupt(&with, after, libc::SIGINT, Some(during))
        };
        if ended {
            break;
        }
        kills += 1;
        whole(kills);
        let torn = ckpt.with_extension("tmp");
        if torn.exists() {
            eprintln!("kill {kills}: a save was cut short; the checkpoint stayed whole");
            let _ = std::fs::remove_file(&torn);
        }
    }
    assert!(
        kills >= 3,
        "only {kills} kills landed in a solve of {secs:.1} s"
    );
    let out = Command::new(TABULA).args(&with).output().expect("runs");
    let resumed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{resumed}");
    assert_eq!(answer(&resumed), answer(&reference));
    whole(kills + 1);
    let (again, _) = run(&with);
    assert_eq!(
        answer(&again),
        answer(&reference),
        "from the final checkpoint"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
