//! Every text parser on arbitrary input: protocol lines (UCI/UGI and NBoard), FENs and moves of
//! every game and size, GGF records, Connect Four digit strings and .obf lines. None may panic;
//! an accepted FEN must format back to a FEN that parses to the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::game::Game;
use tabula::games::chess::Chess;
use tabula::games::connect4::Connect4;
use tabula::games::domineering::Domineering;
use tabula::games::domineering::board::Side;
use tabula::games::othello::Othello;
use tabula::bits::U256;

fn fen_and_moves<G: Game>(start: G, text: &str) {
    if let Ok(p) = start.parse_fen(text) {
        let again = start.parse_fen(&p.fen()).expect("our own FEN parses");
        assert_eq!(again.fen(), p.fen());
        assert_eq!(again.hash(), p.hash());
    }
    let _ = start.parse_move(text);
    for word in text.split_whitespace().take(4) {
        let _ = start.parse_move(word);
    }
    let _ = start.parse_game_record(text);
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = tabula::protocol::command::parse(&text);
    let _ = tabula::protocol::nboard::parse(&text);
    let _ = tabula::games::othello::ggf::parse(&text);
    fen_and_moves(Chess::default(), &text);
    fen_and_moves(Connect4::default(), &text);
    fen_and_moves(Connect4::new(4, 4).unwrap(), &text);
    fen_and_moves(Othello::<u64>::new(8).unwrap(), &text);
    fen_and_moves(Othello::<U256>::new(16).unwrap(), &text);
    fen_and_moves(Domineering::<u64>::new(8, 8, Side::Vertical).unwrap(), &text);
    fen_and_moves(Domineering::<U256>::new(16, 16, Side::Horizontal).unwrap(), &text);
    let _ = Connect4::default().play_digits(&text);
    let _ = Othello::<u64>::new(8).unwrap().parse_obf(&text);
});
