//! The 7x6 opening book: for every position the first player can reach by following the book
//! against any replies, up to `book.txt`'s depth, a move that wins (proved by tabula's own weak
//! solver when the book was generated).
//!
//! `book.txt` is generated, never edited: `tabula solve --game connect4 --book PLIES >
//! src/games/connect4/book.txt` (see `generate`). Each line is `<digits> <column letter>`: the
//! moves from the empty board as 1-based column digits, then the winning reply. Lookup is by
//! position, folded by mirror symmetry: the stored move is for the orientation with the smaller
//! key, mirrored on the way out when the position is the other orientation.

use super::board::{Board, Dims};
use super::solver::{Solver, SolverTable};
use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const BOOK: &str = include_str!("book.txt");

fn standard() -> Dims {
    Dims::new(7, 6).unwrap_or_else(|_| unreachable!("7x6 fits"))
}

/// The canonical key of `b` and whether the position is stored mirrored.
fn canonical(b: &Board) -> (u64, bool) {
    let (k, m) = (b.key(), b.mirror_key());
    if m < k { (m, true) } else { (k, false) }
}

fn replay(digits: &str, dims: Dims) -> Option<Board> {
    let mut b = Board::new(dims);
    for ch in digits.chars() {
        let col = ch.to_digit(10)?.checked_sub(1)?;
        if b.over() || !b.can_play(col) {
            return None;
        }
        b.play_col(col);
    }
    Some(b)
}

fn book() -> &'static HashMap<u64, u8> {
    static MAP: OnceLock<HashMap<u64, u8>> = OnceLock::new();
    MAP.get_or_init(|| {
        let dims = standard();
        let mut map = HashMap::new();
        for line in BOOK.lines() {
            let mut f = line.split_whitespace();
            let (Some(seq), Some(mv)) = (f.next(), f.next()) else {
                continue;
            };
            let seq = if seq == "-" { "" } else { seq };
            let (Some(b), Some(c)) = (replay(seq, dims), mv.bytes().next()) else {
                continue;
            };
            let col = c.wrapping_sub(b'a');
            if col as u32 >= dims.width {
                continue;
            }
            let (key, mirrored) = canonical(&b);
            map.insert(key, if mirrored { 6 - col } else { col });
        }
        map
    })
}

/// The book's winning move for `b` (a 7x6 position), if it has one.
pub fn lookup(b: &Board) -> Option<u8> {
    if b.dims != standard() || b.over() {
        return None;
    }
    let (key, mirrored) = canonical(b);
    let col = *book().get(&key)?;
    let col = if mirrored { 6 - col } else { col };
    b.can_play(col as u32).then_some(col)
}

/// Number of positions in the book.
pub fn len() -> usize {
    book().len()
}

/// A move of `b` that wins, trying columns centre first; None if none wins.
fn winning_move(b: &Board, table: &SolverTable) -> Option<u32> {
    let order = [3u32, 2, 4, 1, 5, 0, 6];
    for &c in &order {
        if !b.can_play(c) {
            continue;
        }
        if b.is_winning_move(c) {
            return Some(c);
        }
    }
    for &c in &order {
        if !b.can_play(c) {
            continue;
        }
        let mut child = b.clone();
        child.play_col(c);
        let mut s = Solver::new(b.dims, table, &|| false);
        if s.loses(&child) == Some(true) {
            return Some(c);
        }
    }
    None
}

/// Generates the book to `plies` stones: level by level, every first-player position gets a
/// winning move, and every legal reply to it forms the next level (mirror images merged).
/// Each finished line goes to `emit` at once, so a partial run is a valid, shallower book.
/// `known` holds lines of an earlier run (sequence -> column) that are taken as they are.
pub fn generate(
    plies: u32,
    threads: usize,
    known: &HashMap<String, u32>,
    emit: &(dyn Fn(&str) + Sync),
) {
    let dims = standard();
    // A table of its own, 8x the engine's (512 MiB): the early positions are deep searches.
    let own = SolverTable::with_bytes(512 << 20);
    let table = own.as_ref().unwrap_or_else(|_| super::solver::table());
    let mut level: Vec<String> = vec![String::new()];
    let mut depth = 0;
    while depth < plies && !level.is_empty() {
        let next_index = AtomicUsize::new(0);
        let results: Vec<std::sync::Mutex<Option<u32>>> =
            level.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    loop {
                        let i = next_index.fetch_add(1, Relaxed);
                        let Some(seq) = level.get(i) else { break };
                        let Some(b) = replay(seq, dims) else { continue };
                        let mv = known.get(seq).copied().or_else(|| winning_move(&b, table));
                        if let Some(c) = mv {
                            let shown = if seq.is_empty() { "-" } else { seq.as_str() };
                            emit(&format!("{shown} {}", (b'a' + c as u8) as char));
                        }
                        if let Ok(mut r) = results[i].lock() {
                            *r = mv;
                        }
                    }
                });
            }
        });
        let mut seen = std::collections::HashSet::new();
        let mut next = Vec::new();
        for (seq, r) in level.iter().zip(&results) {
            let Some(c) = r.lock().ok().and_then(|r| *r) else {
                continue;
            };
            let Some(mut b) = replay(seq, dims) else {
                continue;
            };
            b.play_col(c);
            for reply in 0..dims.width {
                if b.over() || !b.can_play(reply) {
                    continue;
                }
                let mut after = b.clone();
                after.play_col(reply);
                if after.over() || !seen.insert(canonical(&after).0) {
                    continue;
                }
                next.push(format!("{seq}{}{}", c + 1, reply + 1));
            }
        }
        level = next;
        depth += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_moves_are_legal_and_first_is_centre() {
        let b = Board::new(standard());
        assert_eq!(
            lookup(&b),
            Some(3),
            "the only winning first move is the centre"
        );
        assert!(len() > 0);
        for line in BOOK.lines().filter(|l| !l.starts_with('#')) {
            let seq = line.split_whitespace().next().unwrap_or("-");
            let seq = if seq == "-" { "" } else { seq };
            let b = replay(seq, standard()).expect("book line replays");
            let mv = lookup(&b).expect("every book position is found");
            assert!(b.can_play(mv as u32));
        }
    }
}
