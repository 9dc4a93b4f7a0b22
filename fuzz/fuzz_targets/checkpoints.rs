//! Solver checkpoints (`tabula solve --checkpoint`): the bytes as a Connect Four checkpoint
//! (a 1 MiB table, as `--hash 1` makes) and as a Domineering one (4x4, a 1 MB table). Any
//! bytes fill the table or are refused (the table then empty), never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::games::connect4::solver::SolverTable;
use tabula::games::domineering::solver::{self, Table};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("tabula-fuzz-ckpt-{}.bin", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(t) = SolverTable::with_bytes(1 << 20) {
        let _ = t.load(&path);
        let _ = t.get(12345);
    }
    let t = Table::new(1);
    let digest = solver::key_digest(4, 4, &t);
    let _ = t.load(&path, 4, 4, digest);
    let _ = t.get(12345);
    let _ = std::fs::remove_file(&path);
});
