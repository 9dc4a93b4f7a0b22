//! `tabula bench`: fixed positions per game searched to a fixed depth on one thread with a
//! fresh 16 MiB table each, so the total node count is a deterministic signature of the
//! search and evaluation. A functional change states the new signature; a refactor keeps it.

use crate::engine::Engine;
use crate::game::Game;
use crate::search::Limits;
use std::time::Instant;

pub struct BenchResult {
    pub positions: usize,
    pub nodes: u64,
    pub ms: u64,
}

/// The positions a bench of `template`'s board searches, as FENs: the game's own
/// (`bench_fens`) on the board they are written for; on any other board (Othello 10x10 to
/// 16x16, other sizes of Connect Four and Domineering) the start and the positions after 12,
/// 24 and 36 plies of one fixed line from it (at ply `k` the legal move at index
/// `(7k + 3) mod count`), so that every board has a signature. `template` is the start.
pub fn positions<G: Game>(template: &G) -> Vec<String> {
    if template.bench_board().is_none() {
        return G::bench_fens().iter().map(|f| f.to_string()).collect();
    }
    let (mut pos, mut list, mut out) = (template.clone(), Vec::new(), vec![template.fen()]);
    for k in 0..36usize {
        pos.legal_moves(&mut list);
        if list.is_empty() {
            break;
        }
        pos.play(list[(7 * k + 3) % list.len()]);
        if (k + 1) % 12 == 0 {
            out.push(pos.fen());
        }
    }
    out
}

pub fn bench<G: Game>(template: &G, fens: &[String], depth: u32) -> Result<BenchResult, String> {
    let start = Instant::now();
    let mut nodes = 0;
    for fen in fens {
        let mut engine = Engine::new(template.clone());
        engine.set_position(Some(fen), &[])?;
        let result = engine.search_now(Limits::depth(depth), &|_| {});
        nodes += result.nodes;
    }
    Ok(BenchResult {
        positions: fens.len(),
        nodes,
        ms: start.elapsed().as_millis() as u64,
    })
}

/// The bench's name of `template`'s board: the game's (`othello`), or with the board where it
/// is not the standard one (`othello-16x16`), so that each board's signature has its own name.
pub fn name<G: Game>(template: &G) -> String {
    match template.bench_board() {
        Some(b) => format!("{}-{b}", G::NAME),
        None => G::NAME.to_string(),
    }
}

pub fn describe(name: &str, depth: u32, r: &BenchResult) -> Vec<String> {
    vec![
        format!(
            "{name}: {} positions, depth {depth}: {} nodes in {} ms, {} nps ({})",
            r.positions,
            r.nodes,
            r.ms,
            r.nodes * 1000 / r.ms.max(1),
            crate::simd::level().name()
        ),
        format!("signature {name} {}", r.nodes),
    ]
}

/// The bench of game `G` (`template` supplies board size and options), as text lines.
pub fn run_game<G: Game>(template: &G, depth: Option<u32>) -> Vec<String> {
    let d = depth.unwrap_or(G::BENCH_DEPTH);
    match bench(template, &positions(template), d) {
        Ok(r) => describe(&name(template), d, &r),
        Err(e) => vec![format!("info string error: bench: {e}")],
    }
}
