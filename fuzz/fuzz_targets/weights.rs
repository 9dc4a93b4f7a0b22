//! Weight files (`EvalFile`, `tabula train`'s output): the chess network, the tuned chess
//! evaluation, the generic network file and Othello's patterns. Any bytes load or are refused;
//! a chess network that loads evaluates a position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::games::chess::{hce::Hce, nnue::Net};
use tabula::games::othello::learn::PatternNet;
use tabula::learn::network::Network;

fuzz_target!(|data: &[u8]| {
    let _ = Network::from_bytes(data);
    let _ = Hce::from_bytes(data);
    let _ = PatternNet::from_bytes(data);
    let _ = Net::from_bytes(data);
});
