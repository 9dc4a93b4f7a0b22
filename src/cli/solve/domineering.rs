//! `tabula solve --game domineering`: the start of --rows x --cols (or --fen) solved exactly,
//! on several threads, optionally resumable: the winner, a winning move, nodes and time.

use super::checkpoint::{Checkpoint, DONE, checkpointed, interrupted};
use std::time::Instant;
use tabula::game::Notation;

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
