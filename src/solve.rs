//! `tabula solve`: exact scores of positions read one per line.
//!
//! Connect Four lines: a digit string (1-based columns from the empty board), optionally a
//! second field with the expected score to check. Output per line: the position, its score,
//! the best column(s), nodes and time; an invalid line is reported on stderr with its line
//! number and the run goes on. A final summary gives mean time and nodes per position.

use std::io::BufRead;
use std::time::Instant;
use tabula::games::connect4::Connect4;

pub fn connect4(start: Connect4, file: Option<&std::path::Path>, weak: bool) -> Result<(), String> {
    let reader: Box<dyn BufRead> = match file {
        Some(p) => Box::new(std::io::BufReader::new(
            std::fs::File::open(p).map_err(|e| format!("cannot open {}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    // Allocate the solver's table before timing anything.
    let _ = tabula::games::connect4::solver::table();
    let (mut count, mut total_nodes, mut total_us, mut mismatches, mut errors) =
        (0u64, 0u64, 0u128, 0, 0);
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("read error: {e}"))?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() || fields[0].starts_with('#') {
            continue;
        }
        let pos = match start.play_digits(fields[0]) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("line {}: {e}", i + 1);
                errors += 1;
                continue;
            }
        };
        let expected: Option<i32> = match fields.get(1).map(|s| s.parse::<i32>()) {
            None => None,
            Some(Ok(v)) => Some(v),
            Some(Err(_)) => {
                eprintln!(
                    "line {}: expected score '{}' is not a number",
                    i + 1,
                    fields[1]
                );
                errors += 1;
                continue;
            }
        };
        let t = Instant::now();
        let mut solver = tabula::games::connect4::solver::Solver::new(
            pos.dims(),
            tabula::games::connect4::solver::table(),
            &|| false,
        );
        let Some(score) = solver.solve(&pos.b, weak) else {
            continue;
        };
        let us = t.elapsed().as_micros();
        count += 1;
        total_nodes += solver.nodes;
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
            "{} {score} nodes {} time {} us{check}",
            fields[0],
            solver.nodes,
            us
        );
    }
    if count > 0 {
        say!(
            "solved {count} positions: mean {:.1} us, mean {} nodes, {} mismatches, {errors} invalid lines",
            total_us as f64 / count as f64,
            total_nodes / count,
            mismatches
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
) -> Result<(), String> {
    use tabula::game::Game;
    let pos = match fen {
        Some(f) => start.parse_fen(f)?,
        None => start,
    };
    let _ = tabula::games::domineering::solver::table();
    let t = Instant::now();
    let out = tabula::games::domineering::solver::solve(&pos, &|| false)
        .ok_or("the solver was interrupted")?;
    let ms = t.elapsed().as_millis() as u64;
    let best = out
        .best
        .map_or("none (the side to move loses)".to_string(), |a| {
            pos.format_move(a as u16)
        });
    say!(
        "{}x{} {} to move: {} wins; winning move {best}; nodes {}; time {ms} ms; {} nodes/s",
        pos.geo.rows,
        pos.geo.cols,
        pos.to_move.name(),
        out.winner.name(),
        out.nodes,
        out.nodes * 1000 / ms.max(1)
    );
    Ok(())
}

/// Solves Othello positions in the .obf format, one per line: 64 characters `X`/`O`/`-`
/// (a1..h8, row by row), the side to move `X|O`, then optionally `; <move>:<score>; ...` whose
/// first score is the exact result to check.
pub fn othello(
    start: tabula::games::othello::Othello<u64>,
    file: Option<&std::path::Path>,
) -> Result<(), String> {
    use tabula::game::Game;
    let reader: Box<dyn BufRead> = match file {
        Some(p) => Box::new(std::io::BufReader::new(
            std::fs::File::open(p).map_err(|e| format!("cannot open {}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    let _ = tabula::games::othello::endgame::table();
    let (mut count, mut nodes, mut total_us, mut mismatches, mut errors) =
        (0u64, 0u64, 0u128, 0, 0);
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
        let Some(r) = tabula::games::othello::endgame::solve(&pos, &|| false) else {
            eprintln!("line {}: the game is already over", i + 1);
            errors += 1;
            continue;
        };
        let us = t.elapsed().as_micros();
        count += 1;
        nodes += r.nodes;
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
            "line {}: {} empties, score {:+}, best {}, nodes {}, time {:.3} s{check}",
            i + 1,
            pos.empties(),
            r.margin,
            pos.format_move(r.best),
            r.nodes,
            us as f64 / 1e6
        );
    }
    if count > 0 {
        let secs = total_us as f64 / 1e6;
        say!(
            "solved {count} positions in {secs:.2} s: {nodes} nodes, {:.1} M nodes/s, {mismatches} mismatches, {errors} invalid lines",
            nodes as f64 / secs.max(1e-9) / 1e6
        );
    }
    if mismatches > 0 {
        return Err(format!("{mismatches} scores differ from the expected ones"));
    }
    Ok(())
}
