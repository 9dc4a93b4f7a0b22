//! Perft: the number of leaf nodes of the legal-move tree to a fixed depth, the standard test
//! of move generation. Bulk-counts the last ply, and splits the root moves over threads.

use crate::game::{Game, Rules};

/// Perft of `pos` (the game's own `Rules::perft`, which may be a faster special case).
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    pos.perft(depth)
}

/// Perft over the `Rules` interface: copy-make with bulk counting at the last ply.
pub fn generic<G: Rules>(pos: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves();
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty()
        && let Some(pass) = pos.perft_pass()
    {
        moves.push(pass);
    }
    let mut total = 0;
    for m in moves {
        let mut child = pos.clone();
        child.play(m);
        total += generic(&child, depth - 1);
    }
    total
}

/// Per-root-move counts, computed on all available cores.
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty()
        && let Some(pass) = pos.perft_pass()
    {
        moves.push(pass);
    }
    if depth == 0 {
        return Vec::new();
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut counts = vec![0u64; moves.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= moves.len() {
                            break;
                        }
                        let mut child = pos.clone();
                        child.play(moves[i]);
                        mine.push((i, perft(&child, depth - 1)));
                    }
                    mine
                })
            })
            .collect();
        for h in handles {
            if let Ok(v) = h.join() {
                for (i, n) in v {
                    counts[i] = n;
                }
            }
        }
    });
    moves.into_iter().zip(counts).collect()
}

pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    divide(pos, depth).iter().map(|(_, n)| n).sum()
}
