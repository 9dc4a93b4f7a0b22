//! `tabula perft` (leaf counts of the legal-move tree) and `tabula bench` (the node
//! signatures of every game's search and solver, and the `N nodes N nps` line OpenBench reads).

use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;

pub fn perft<G: Game>(start: G, depth: u32, fen: Option<&str>, divide: bool) -> Result<(), String> {
    let pos = match fen {
        Some(f) => start.parse_fen(f)?,
        None => start,
    };
    let t = std::time::Instant::now();
    let total = if divide {
        let mut total = 0;
        for (m, n) in tabula::perft::divide(&pos, depth) {
            say!("{}: {n}", pos.format_move(m));
            total += n;
        }
        total
    } else {
        tabula::perft::perft_parallel(&pos, depth)
    };
    let ms = t.elapsed().as_millis() as u64;
    say!("Nodes searched: {total}");
    say!("time {ms} ms, {} nps", total * 1000 / ms.max(1));
    Ok(())
}

/// One game's bench: its search signature (and its solver's), then the search's total nodes
/// and speed as the last line, `N nodes N nps`, which OpenBench reads.
pub fn bench_one<G: Game>(
    template: &G,
    depth: Option<u32>,
    solver: fn() -> Vec<String>,
) -> Result<(), String> {
    let d = depth.unwrap_or(G::BENCH_DEPTH);
    let r = tabula::bench::bench(template, &tabula::bench::positions(template), d)
        .map_err(|e| format!("bench: {e}"))?;
    for l in tabula::bench::describe(&tabula::bench::name(template), d, &r) {
        say!("{l}");
    }
    for l in solver() {
        say!("{l}");
    }
    say!("{} nodes {} nps", r.nodes, r.nodes * 1000 / r.ms.max(1));
    Ok(())
}

/// The solver signature lines that `bench` prints after the search's for `game`.
pub fn solver_of(game: super::choice::GameKind) -> fn() -> Vec<String> {
    use super::choice::GameKind;
    match game {
        GameKind::Chess => Vec::new,
        GameKind::Connect4 => tabula::games::connect4::bench_solver,
        GameKind::Domineering => tabula::games::domineering::bench_solver,
        GameKind::Othello => tabula::games::othello::bench_solver,
    }
}

pub fn bench_all(depth: Option<u32>) -> Result<(), String> {
    let mut lines = tabula::bench::run_game(&Chess::default(), depth);
    lines.extend(tabula::bench::run_game(&Connect4::default(), depth));
    lines.extend(tabula::games::connect4::bench_solver());
    let dom = Domineering::<u64>::new(8, 8, Side::Horizontal)?;
    lines.extend(tabula::bench::run_game(&dom, depth));
    lines.extend(tabula::games::domineering::bench_solver());
    lines.extend(tabula::bench::run_game(&Othello::<u64>::new(8)?, depth));
    lines.extend(tabula::games::othello::bench_solver());
    lines.extend(tabula::bench::run_game(&Othello::<u128>::new(10)?, depth));
    for n in [12, 14, 16] {
        lines.extend(tabula::bench::run_game(
            &Othello::<tabula::bits::U256>::new(n)?,
            depth,
        ));
    }
    for l in lines {
        say!("{l}");
    }
    Ok(())
}
