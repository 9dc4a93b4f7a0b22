//! Game records as people bring them: PGN (`tabula data --pgn`, the browser's import), tabula's
//! own records (`tabula play` saves them) for every game, GGF and .obf for Othello. Any text
//! parses or is refused, never a panic; a PGN game that imports gives data blocks that read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::games::chess::Chess;
use tabula::games::othello::{Othello, ggf};
use tabula::learn::pgn;
use tabula::record::Record;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(records) = Record::parse_all(&text) {
        for r in &records {
            let _ = r.text_of(&Chess::default());
        }
    }
    let mut out = Vec::new();
    let _ = pgn::import(&Chess::default(), &text, 0, &mut out);
    let _ = ggf::parse(&text);
    if let Ok(o) = Othello::<u64>::new(8) {
        for line in text.lines().take(8) {
            let _ = o.parse_obf(line);
        }
    }
});
