//! The Othello opening book file (`BookFile`, `tabula book`): any bytes are a book or an
//! error, and a book that loads answers for the start and its children.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::games::othello::book::{self, Book};

fuzz_target!(|data: &[u8]| {
    if let Ok(b) = Book::from_bytes(data) {
        let (me, opp) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
        let _ = b.moves(me, opp);
        let _ = b.choose(me, opp);
        for (_, (m, o)) in book::children(me, opp) {
            let _ = b.moves(m, o);
        }
        let _ = b.len();
    }
});
