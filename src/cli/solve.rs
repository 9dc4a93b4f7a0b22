//! `tabula solve`: exact scores of positions read one per line.
//!
//! Connect Four lines: a digit string (1-based columns from the empty board), optionally a
//! second field with the expected score to check. Output per line: the position, its score,
//! the best column(s), nodes and time; an invalid line is reported on stderr with its line
//! number and the run goes on. A final summary gives mean time and nodes per position.

use std::io::BufRead;
use std::time::Instant;
use tabula::game::Notation;
use tabula::games::connect4::Connect4;

/// Writes the 7x6 opening book (see `games::connect4::book`) to stdout, level by level.
pub fn connect4_book(
    plies: u32,
    threads: usize,
    hash_mb: usize,
    from: Option<&std::path::Path>,
) -> Result<(), String> {
    use tabula::games::connect4::book;
    let known = match from {
        Some(p) => book::lines(
            &std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
        ),
        None => Default::default(),
    };
    say!("# tabula Connect Four 7x6 opening book: perfect play for both sides to {plies} stones.");
    say!("# Every position either player reaches while the other follows the book, with its");
    say!("# exact score and best move (quickest win, else draw, else the latest loss; nearest the");
    say!("# centre among equals), solved by tabula's own solver. Generated with:");
    say!("#   tabula solve --game connect4 --book {plies} > src/games/connect4/book.txt");
    say!("# checked with: tabula solve --game connect4 --verify-book");
    say!("# Each line: moves from the empty board (1-based columns, '-' for none), best move,");
    say!("# score for the side to move (test-set convention).");
    let start = Instant::now();
    book::generate(plies, threads, hash_mb, &known, &|line| {
        say!("{line}");
    })?;
    log::info!("book generated in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// Checks an opening book (the embedded one, or `file`): coverage of every position either
/// side reaches below its depth, and every line's score and move solved again (`sample`: every
/// n-th line only, 1: all).
pub fn connect4_verify_book(
    file: Option<&std::path::Path>,
    threads: usize,
    hash_mb: usize,
    sample: usize,
) -> Result<(), String> {
    use tabula::games::connect4::book;
    let text = match file {
        Some(p) => {
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?
        }
        None => book::TEXT.to_string(),
    };
    let t = Instant::now();
    let n = std::sync::atomic::AtomicUsize::new(0);
    let v = book::verify(&text, threads, hash_mb, &|_| {
        n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .is_multiple_of(sample.max(1))
    })?;
    for p in &v.problems {
        say!("{p}");
    }
    say!(
        "book to depth {}: {} lines solved again and agreed, {} problems, {:.1} s",
        v.depth,
        v.checked,
        v.problems.len(),
        t.elapsed().as_secs_f64()
    );
    if v.problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the book has {} problems", v.problems.len()))
    }
}

/// `tabula solve --game connect4`: positions one per line (an empty line is the empty board),
/// or one `--fen`; each solved on `threads` threads (one below 24 empty cells) with a table of
/// `hash_mb` MiB.
pub fn connect4(
    start: Connect4,
    file: Option<&std::path::Path>,
    fen: Option<&str>,
    weak: bool,
    threads: usize,
    hash_mb: usize,
    checkpoint: Option<(&std::path::Path, u64)>,
) -> Result<(), String> {
    use tabula::games::connect4::solver::SolverTable;
    let table = SolverTable::with_bytes(hash_mb.max(1) << 20)?;
    if let Some((path, minutes)) = checkpoint {
        return std::thread::scope(|scope| {
            checkpointed(scope, &table, path, minutes)?;
            let out = connect4_lines(start, file, fen, weak, threads, &table, &interrupted);
            DONE.store(true, std::sync::atomic::Ordering::Relaxed);
            if interrupted() {
                eprintln!("interrupted: saving the table to {}", path.display());
                table.save(path)?;
                return Err(format!(
                    "interrupted; the table is in {}: the same command continues",
                    path.display()
                ));
            }
            table.save(path)?;
            out
        });
    }
    connect4_lines(start, file, fen, weak, threads, &table, &|| false)
}

/// Set by SIGINT or SIGTERM during a checkpointed solve.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A solver's table that a resumable solve saves and loads.
trait Checkpoint: Sync {
    fn save(&self, path: &std::path::Path) -> Result<(), String>;
    fn load(&self, path: &std::path::Path) -> Result<(), String>;
}

impl Checkpoint for tabula::games::connect4::solver::SolverTable {
    fn save(&self, path: &std::path::Path) -> Result<(), String> {
        self.save(path)
    }
    fn load(&self, path: &std::path::Path) -> Result<(), String> {
        self.load(path)
    }
}

/// The Domineering table of one board, with the digest of its keys.
struct DomineeringCheckpoint<'a> {
    table: &'a tabula::games::domineering::solver::Table,
    rows: u32,
    cols: u32,
    digest: u64,
}

impl Checkpoint for DomineeringCheckpoint<'_> {
    fn save(&self, path: &std::path::Path) -> Result<(), String> {
        self.table.save(path, self.digest)
    }
    fn load(&self, path: &std::path::Path) -> Result<(), String> {
        self.table.load(path, self.rows, self.cols, self.digest)
    }
}

/// Loads the checkpoint (if any), installs the signal handlers and starts the thread that
/// saves the table every `minutes` (ending when the solve does: it is scoped).
fn checkpointed<'s, 'e>(
    scope: &'s std::thread::Scope<'s, 'e>,
    table: &'e dyn Checkpoint,
    path: &'e std::path::Path,
    minutes: u64,
) -> Result<(), String> {
    if path.exists() {
        let t = Instant::now();
        table.load(path)?;
        eprintln!(
            "checkpoint {}: table loaded in {:.1} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    scope.spawn(move || {
        let mut last = Instant::now();
        while !interrupted() && !DONE.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(200));
            if last.elapsed().as_secs() >= minutes * 60 {
                match table.save(path) {
                    Ok(()) => eprintln!("checkpoint {} saved", path.display()),
                    Err(e) => eprintln!("{e}"),
                }
                last = Instant::now();
            }
        }
    });
    Ok(())
}

/// Set when the checkpointed solve is over (ends the saving thread).
static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Solves the positions of `file`, `fen` or stdin, one by one, until `abort` says stop.
fn connect4_lines(
    start: Connect4,
    file: Option<&std::path::Path>,
    fen: Option<&str>,
    weak: bool,
    threads: usize,
    table: &tabula::games::connect4::solver::SolverTable,
    abort: &(dyn Fn() -> bool + Sync),
) -> Result<(), String> {
    use tabula::games::connect4::solver::{Solver, threads as par};
    let lines: Box<dyn Iterator<Item = Result<String, String>>> = match (fen, file) {
        (Some(f), _) => Box::new(std::iter::once(Ok(f.to_string()))),
        (None, Some(p)) => Box::new(
            std::io::BufReader::new(
                std::fs::File::open(p).map_err(|e| format!("cannot open {}: {e}", p.display()))?,
            )
            .lines()
            .map(|l| l.map_err(|e| format!("read error: {e}"))),
        ),
        (None, None) => Box::new(
            std::io::stdin()
                .lock()
                .lines()
                .map(|l| l.map_err(|e| format!("read error: {e}"))),
        ),
    };
    let (mut count, mut total_nodes, mut total_us, mut mismatches, mut errors) =
        (0u64, 0u64, 0u128, 0, 0);
    for (i, line) in lines.enumerate() {
        let line = line?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first().is_some_and(|f| f.starts_with('#')) {
            continue;
        }
        let parsed = if fen.is_some() {
            Connect4::from_fen(&line)
        } else {
            start.play_digits(fields.first().copied().unwrap_or(""))
        };
        let pos = match parsed {
            Ok(p) => p,
            Err(e) => {
                eprintln!("line {}: {e}", i + 1);
                errors += 1;
                continue;
            }
        };
        let shown = match (fen, fields.first()) {
            (Some(_), _) => pos.fen(),
            (None, Some(d)) => d.to_string(),
            (None, None) => "-".to_string(),
        };
        let expected: Option<i32> = match fields.get(1).filter(|_| fen.is_none()) {
            None => None,
            Some(v) => match v.parse::<i32>() {
                Ok(v) => Some(v),
                Err(_) => {
                    eprintln!("line {}: expected score '{v}' is not a number", i + 1);
                    errors += 1;
                    continue;
                }
            },
        };
        let empties = pos.dims().cells() - pos.b.moves;
        let n_threads = if empties >= 24 { threads } else { 1 };
        let t = Instant::now();
        let Some(solved) = par::solve(&pos.b, weak, table, n_threads, abort) else {
            if abort() {
                break;
            }
            continue;
        };
        let us = t.elapsed().as_micros();
        let score = solved.score;
        // A best column, found after the timing with the table warm (the published solvers'
        // timings are for the score alone).
        let best = Solver::new(pos.dims(), table, &|| false)
            .best_move(&pos.b, score, weak)
            .map_or("-".to_string(), |c| ((b'a' + c as u8) as char).to_string());
        count += 1;
        total_nodes += solved.nodes;
        total_us += us;
        let check = match expected {
            Some(e) if (weak && e.signum() != score) || (!weak && e != score) => {
                mismatches += 1;
                format!(" MISMATCH (expected {e})")
            }
            Some(_) => " ok".to_string(),
            None => String::new(),
        };
        say!(
            "{shown} {score} best {best} nodes {} time {us} us{check}",
            solved.nodes
        );
    }
    if count > 0 {
        say!(
            "solved {count} positions: mean {:.1} us, mean {} nodes, {} mismatches, {errors} invalid lines; {} thread(s), {} MiB table",
            total_us as f64 / count as f64,
            total_nodes / count,
            mismatches,
            threads,
            table.bytes() >> 20
        );
    }
    if mismatches > 0 {
        return Err(format!("{mismatches} scores differ from the expected ones"));
    }
    Ok(())
}

/// Solves one Domineering position: prints the winner, a winning move, nodes and time.
pub fn domineering<B: tabula::bits::Bits>(
    start: tabula::games::domineering::Domineering<B>,
    fen: Option<&str>,
    threads: usize,
    hash_mb: usize,
    checkpoint: Option<(&std::path::Path, u64)>,
) -> Result<(), String> {
    use tabula::games::domineering::solver;
    let pos = match fen {
        Some(f) => start.parse_fen(f)?,
        None => start,
    };
    // The table grows with the search from 1 MiB (its memory is only taken as it is used),
    // so one default serves every board: up to 512 MiB for one thread (on 9x9 faster than
    // 1 GiB, with fewer pages for the random probes to miss in, for a few percent more nodes)
    // and 1 GiB for more (threads that share a table fill it faster).
    let mb = match hash_mb {
        0 if threads <= 1 => 512,
        0 => 1024,
        mb => mb,
    };
    let table = solver::Table::try_new(mb)?;
    solver::race::warm_up();
    let t = Instant::now();
    let out = match checkpoint {
        None => solver::solve_parallel(&pos, &table, threads),
        Some((path, minutes)) => {
            let saved = DomineeringCheckpoint {
                table: &table,
                rows: pos.geo.rows,
                cols: pos.geo.cols,
                digest: solver::key_digest(pos.geo.rows, pos.geo.cols, &table),
            };
            std::thread::scope(|scope| {
                checkpointed(scope, &saved, path, minutes)?;
                let out = solver::solve_parallel_until(&pos, &table, threads, &interrupted);
                DONE.store(true, std::sync::atomic::Ordering::Relaxed);
                if out.is_none() {
                    eprintln!("interrupted: saving the table to {}", path.display());
                }
                saved.save(path)?;
                out.ok_or_else(|| {
                    format!(
                        "interrupted; the proven results are in {}: the same command continues",
                        path.display()
                    )
                })
            })?
        }
    };
    let ms = t.elapsed().as_millis() as u64;
    let best = out
        .best
        .map_or("none (the side to move loses)".to_string(), |a| {
            pos.format_move(a as u16)
        });
    say!(
        "{}x{} {} to move: {} wins; winning move {best}; nodes {}; time {ms} ms; {} nodes/s; {} thread(s), table {} of {mb} MiB",
        pos.geo.rows,
        pos.geo.cols,
        pos.to_move.name(),
        out.winner.name(),
        out.nodes,
        out.nodes * 1000 / ms.max(1),
        threads.max(1),
        table.bytes() >> 20
    );
    Ok(())
}

/// Solves Othello positions in the .obf format, one per line: 64 characters `X`/`O`/`-`
/// (a1..h8, row by row), the side to move `X|O`, then optionally `; <move>:<score>; ...` whose
/// first score is the exact result to check.
pub fn othello(
    start: tabula::games::othello::Othello<u64>,
    file: Option<&std::path::Path>,
    threads: usize,
) -> Result<(), String> {
    let reader: Box<dyn BufRead> = match file {
        Some(p) => Box::new(std::io::BufReader::new(
            std::fs::File::open(p).map_err(|e| format!("cannot open {}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    let _ = tabula::games::othello::endgame::table();
    let (mut count, mut nodes, mut total_us, mut mismatches, mut errors) =
        (0u64, 0u64, 0u128, 0, 0);
    let mut ordering_nodes = 0u64;
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("read error: {e}"))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let pos = match start.parse_obf(text) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("line {}: {e}", i + 1);
                errors += 1;
                continue;
            }
        };
        let expected: Option<i32> = text
            .split(';')
            .nth(1)
            .and_then(|f| f.split(':').nth(1))
            .and_then(|v| v.trim().trim_start_matches('+').parse().ok());
        tabula::games::othello::endgame::table().clear();
        let t = Instant::now();
        let Some(r) = tabula::games::othello::endgame::solve_threads(&pos, threads, &|| false)
        else {
            eprintln!("line {}: the game is already over", i + 1);
            errors += 1;
            continue;
        };
        let us = t.elapsed().as_micros();
        count += 1;
        nodes += r.nodes;
        ordering_nodes += r.ordering_nodes;
        total_us += us;
        let check = match expected {
            Some(e) if e != r.margin => {
                mismatches += 1;
                format!(" MISMATCH (expected {e:+})")
            }
            Some(_) => " ok".to_string(),
            None => String::new(),
        };
        say!(
            "line {}: {} empties, score {:+}, best {}, nodes {} (+{} ordering), time {:.3} s{check}",
            i + 1,
            pos.empties(),
            r.margin,
            pos.format_move(r.best),
            r.nodes,
            r.ordering_nodes,
            us as f64 / 1e6
        );
    }
    if count > 0 {
        let secs = total_us as f64 / 1e6;
        say!(
            "solved {count} positions in {secs:.2} s: {nodes} nodes (+{ordering_nodes} ordering), {:.1} M nodes/s, {mismatches} mismatches, {errors} invalid lines",
            nodes as f64 / secs.max(1e-9) / 1e6
        );
    }
    if mismatches > 0 {
        return Err(format!("{mismatches} scores differ from the expected ones"));
    }
    Ok(())
}
