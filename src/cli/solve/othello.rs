//! `tabula solve --game othello`: positions of any board size, as .obf lines (a file or stdin)
//! or one --fen, each solved exactly: margin, best move, nodes and time, checked against the
//! line's expected score when it has one; a final summary.

use super::input::Lines;
use std::time::Instant;
use tabula::game::Notation;

/// Solves Othello positions of `start`'s board: in the .obf format, one per line (`n * n`
/// characters `X`/`O`/`-`, row by row from a1, the side to move `X|O`, then optionally
/// `; <move>:<score>; ...` whose first score is the exact result to check), or the one `fen`,
/// ordered with the pattern weights of `eval_file` where given.
/// 8x8 solves on `threads` threads, other boards on one.
pub fn othello<B: tabula::bits::Bits>(
    start: tabula::games::othello::Othello<B>,
    eval_file: Option<&str>,
    file: Option<&std::path::Path>,
    fen: Option<&str>,
    threads: usize,
) -> Result<(), String> {
    let mut start = start;
    if let Some(f) = eval_file {
        use tabula::game::BooksAndSolvers;
        start.set_option("EvalFile", f).unwrap_or(Ok(()))?;
    }
    let n = start.geo.n;
    let what = if fen.is_some() {
        "an Othello FEN"
    } else if n == 8 {
        "Othello .obf lines: 64 squares X/O/-, then the side to move"
    } else {
        "Othello .obf lines: n*n squares X/O/- for --size n, then the side to move"
    };
    let mut lines = Lines::open(fen, file, what)?;
    let _ = tabula::games::othello::endgame::table();
    let (mut count, mut nodes, mut total_us, mut mismatches, mut errors) =
        (0u64, 0u64, 0u128, 0, 0);
    let mut ordering_nodes = 0u64;
    for (i, line) in lines.by_ref().enumerate() {
        let line = line?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let parsed = if fen.is_some() {
            start.parse_fen(text)
        } else {
            start.parse_obf(text)
        };
        let pos = match parsed {
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
    if count == 0 {
        return Err(lines.nothing(errors));
    }
    if mismatches > 0 {
        return Err(format!("{mismatches} scores differ from the expected ones"));
    }
    Ok(())
}
