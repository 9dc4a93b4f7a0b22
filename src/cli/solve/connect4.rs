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
use tabula::games::connect4::board::Board;
use tabula::games::connect4::solver::SolverTable;
use tabula::games::connect4::solver::threads::{self as par, Solved};

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
/// `hash_mb` MiB (without `--checkpoint`, first `FIRST_TABLE_MB` of it: see `Table`).
pub fn connect4(
    start: Connect4,
    file: Option<&std::path::Path>,
    fen: Option<&str>,
    weak: bool,
    threads: usize,
    hash_mb: usize,
    checkpoint: Option<(&std::path::Path, u64)>,
) -> Result<(), String> {
    let bytes = hash_mb.max(1) << 20;
    if let Some((path, minutes)) = checkpoint {
        let table = SolverTable::with_bytes(bytes)?;
        return std::thread::scope(|scope| {
            checkpointed(scope, &table, path, minutes)?;
            let out = connect4_lines(
                start,
                file,
                fen,
                weak,
                threads,
                Table::Fixed(&table),
                &interrupted,
            );
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
    let mut table = SolverTable::with_bytes_using(bytes, FIRST_TABLE_MB << 20)?;
    connect4_lines(
        start,
        file,
        fen,
        weak,
        threads,
        Table::Growing(&mut table),
        &|| false,
    )
}

/// The table a run of `solve` starts with (MiB), when its `--hash` is larger and no checkpoint
/// is kept: enough for Pons's published sets, whose positions take at most 700,000 nodes.
/// The whole table's pages cost 0.1-0.2 s to take inside this virtual machine when the kernel
/// has handed them back to the host, which is about half of `Test_L1_R1`'s time.
const FIRST_TABLE_MB: usize = 4;
/// A search on the first table that passes this many nodes per entry is stopped, and the
/// position solved again on the whole table, kept for the rest of the run.
const NODES_PER_ENTRY: u64 = 4;

/// The solver's table for a run: one size throughout (a checkpoint is a whole table), or
/// `FIRST_TABLE_MB` until a search outgrows it.
enum Table<'t> {
    Fixed(&'t SolverTable),
    Growing(&'t mut SolverTable),
}

impl Table<'_> {
    fn get(&self) -> &SolverTable {
        match self {
            Table::Fixed(t) => t,
            Table::Growing(t) => t,
        }
    }

    /// How many nodes a search may take before the table grows (None: no limit).
    fn node_limit(&self) -> Option<u64> {
        match self {
            Table::Growing(t) if t.bytes() < t.capacity_bytes() => {
                Some(t.bytes() as u64 / 8 * NODES_PER_ENTRY)
            }
            _ => None,
        }
    }

    fn grow(&mut self) {
        if let Table::Growing(t) = self {
            let whole = t.capacity_bytes();
            t.resize(whole);
        }
    }
}

/// Solves `b` on `table`, which grows (and the search starts again) if the search outgrows it;
/// the nodes of every try. None if `abort` stopped it.
fn solve_growing(
    b: &Board,
    weak: bool,
    table: &mut Table,
    threads: usize,
    abort: &(dyn Fn() -> bool + Sync),
) -> Option<Solved> {
    let mut spent = 0;
    loop {
        let Some(limit) = table.node_limit() else {
            let mut solved = par::solve(b, weak, table.get(), threads, abort)?;
            solved.nodes += spent;
            return Some(solved);
        };
        // The solver asks every 4,096 nodes (its main thread's).
        let asked = std::cell::Cell::new(0u64);
        let outgrown = || {
            asked.set(asked.get() + 1);
            asked.get() * 4096 > limit
        };
        let stop = || abort() || outgrown();
        if let Some(mut solved) = par::solve(b, weak, table.get(), threads, &stop) {
            solved.nodes += spent;
            return Some(solved);
        }
        if abort() {
            return None;
        }
        spent += asked.get() * 4096;
        table.grow();
    }
}

/// Solves the positions of `file`, `fen` or stdin, one by one, until `abort` says stop.
fn connect4_lines(
    start: Connect4,
    file: Option<&std::path::Path>,
    fen: Option<&str>,
    weak: bool,
    threads: usize,
    mut table: Table,
    abort: &(dyn Fn() -> bool + Sync),
) -> Result<(), String> {
    use tabula::games::connect4::solver::Solver;
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
        let Some(solved) = solve_growing(&pos.b, weak, &mut table, n_threads, abort) else {
            if abort() {
                break;
            }
            continue;
        };
        let us = t.elapsed().as_micros();
        let score = solved.score;
        // A best column, found after the timing with the table warm (the published solvers'
        // timings are for the score alone).
        let best = Solver::new(pos.dims(), table.get(), &|| false)
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
            table.get().bytes() >> 20
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
