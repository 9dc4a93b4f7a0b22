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

pub fn bench<G: Game>(template: &G, fens: &[&str], depth: u32) -> Result<BenchResult, String> {
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
    match bench(template, G::bench_fens(), d) {
        Ok(r) => describe(G::NAME, d, &r),
        Err(e) => vec![format!("info string error: bench: {e}")],
    }
}
