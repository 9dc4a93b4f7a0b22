//! Data shards (`tabula datagen`'s files, every version): the bytes as a file, read for
//! chess and for 8x8 Othello (the header says which game; the other is refused), and
//! checked as `tabula data --check` checks them. Damage is skipped and counted or refused,
//! never a panic; what is read replays.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::games::chess::Chess;
use tabula::games::othello::Othello;
use tabula::learn::{check, game_data};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("tabula-fuzz-shard-{}.bin", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let _ = game_data::peek_header(&path);
    let _ = game_data::read(&path, &Chess::default());
    if let Ok(o) = Othello::<u64>::new(8) {
        let _ = game_data::read(&path, &o);
    }
    let report = check::check(&path, &|p| game_data::read(p, &Chess::default()));
    let _ = report.lines(&path);
    let _ = std::fs::remove_file(&path);
});
