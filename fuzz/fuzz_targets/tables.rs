//! Syzygy table files: the first byte picks the file name (its low bits one of the committed
//! tables' names, its high bit .rtbz), the rest is the file. A file that `tbcheck` refuses is refused with a reason; one
//! it accepts is loaded by the prober (`SyzygyPath`) and probed at positions of its material
//! (WDL, and the root's DTZ), which must not crash whatever the bytes inside its blocks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::game::Notation;
use tabula::games::chess::{Chess, syzygy};

const NAMES: [&str; 11] = [
    "KBNvK", "KBvK", "KNvK", "KPvK", "KQvK", "KQvKR", "KRvK", "KRvKB", "KRvKN", "KRvKP", "KRvKR",
];

/// Legal-looking placements of the table's material: kings apart, pawns off the edge ranks.
fn positions(stem: &str, seed: u8) -> Vec<String> {
    let (white, black) = stem.split_once('v').unwrap_or((stem, "K"));
    let mut out = Vec::new();
    for k in 0..6u32 {
        let mut board = [None::<char>; 64];
        let mut sq = (u32::from(seed) * 7 + k * 13) % 64;
        let mut place = |c: char, board: &mut [Option<char>; 64]| {
            for _ in 0..64 {
                sq = (sq + 23) % 64;
                let rank = sq / 8;
                if board[sq as usize].is_none() && !(c.eq_ignore_ascii_case(&'p') && (rank == 0 || rank == 7)) {
                    board[sq as usize] = Some(c);
                    return;
                }
            }
        };
        for c in white.chars() {
            place(c, &mut board);
        }
        for c in black.chars() {
            place(c.to_ascii_lowercase(), &mut board);
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    Some(c) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        out.push(format!("{fen} {} - - 0 1", if k % 2 == 0 { 'w' } else { 'b' }));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let stem = NAMES[usize::from(pick & 0x7f) % NAMES.len()];
    let name = format!("{stem}.{}", if pick & 0x80 == 0 { "rtbw" } else { "rtbz" });
    if syzygy::check_table(&name, file).is_err() {
        return;
    }
    // Accepted: the prober loads it and probes it.
    let dir = std::env::temp_dir().join(format!("tabula-fuzz-tables-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    if std::fs::write(dir.join(&name), file).is_err() {
        return;
    }
    let _ = syzygy::set_path("");
    if syzygy::set_path(&dir.to_string_lossy()).is_ok() {
        for fen in positions(stem, pick) {
            if let Ok(p) = Chess::default().parse_fen(&fen) {
                let _ = syzygy::wdl(&p.board);
                let _ = syzygy::probe_root(&p.board);
            }
        }
    }
    let _ = syzygy::set_path("");
    let _ = std::fs::remove_file(dir.join(&name));
});
