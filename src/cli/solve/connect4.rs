//! `tabula solve --game connect4`: positions one per line (digit strings from the empty board,
//! an optional expected score) or one `--fen`, each solved exactly with its score, best column,
//! nodes and time; an invalid line is reported on stderr with its line number and the run goes
//! on; a final summary gives mean time and nodes. Also the 7x6 opening book: its generation
//! (`--book`) and its check (`--verify-book`).

use super::checkpoint::{DONE, checkpointed, interrupted};
use super::input::Lines;
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
    let mut lines = Lines::open(
        fen,
        file,
        "Connect Four positions (columns from the empty board, 1-based), one a line",
    )?;
    let (mut count, mut total_nodes, mut total_us, mut mismatches, mut errors) =
        (0u64, 0u64, 0u128, 0, 0);
    for (i, line) in lines.by_ref().enumerate() {
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
    if count == 0 && !abort() {
        return Err(lines.nothing(errors));
    }
    if mismatches > 0 {
        return Err(format!("{mismatches} scores differ from the expected ones"));
    }
    Ok(())
}
