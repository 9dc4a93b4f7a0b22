//! The 7x6 opening book: perfect play for both sides up to `book.txt`'s depth. For every
//! position with fewer stones than the depth that either player can reach while the other
//! follows the book, the book holds the position's exact value and the best move: the
//! quickest win, else a draw, else the longest resistance (the loss that comes latest); among
//! equal moves the one nearest the centre (left first).
//!
//! `book.txt` is generated, never edited: `tabula solve --game connect4 --book PLIES >
//! src/games/connect4/book.txt` (`generate`), and checked by `tabula solve --game connect4
//! --verify-book` (`verify`). Each line is `<digits> <column letter> <score>`: the moves from
//! the empty board as 1-based column digits (`-` for none), the best move, and the exact score
//! of the position for the side to move (test-set convention, as `solver`). Lookup is by
//! position, folded by mirror symmetry: the stored move is for the orientation with the smaller
//! key, mirrored on the way out when the position is the other orientation.

use super::board::{Board, Dims};
use super::solver::{Solver, SolverTable};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const BOOK: &str = include_str!("book.txt");
/// The embedded book's text.
pub const TEXT: &str = BOOK;

/// A book move and the exact score of the position it was played from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub col: u8,
    pub score: i32,
}

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

/// One book line: (moves, column, score), or None if it is not a well-formed line.
fn parse_line(line: &str) -> Option<(&str, u32, i32)> {
    let mut f = line.split_whitespace();
    let (seq, mv, score) = (f.next()?, f.next()?, f.next()?);
    let seq = if seq == "-" { "" } else { seq };
    let col = u32::from(mv.bytes().next()?.checked_sub(b'a')?);
    Some((seq, col, score.parse().ok()?))
}

/// The lines of a book text as they are written: move string (empty for the empty board) to
/// entry. Lines that do not parse, or name no 7x6 column, are skipped.
pub fn lines(text: &str) -> HashMap<String, Entry> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(parse_line)
        .filter(|&(_, col, _)| col < standard().width)
        .map(|(seq, col, score)| {
            let e = Entry {
                col: col as u8,
                score,
            };
            (seq.to_string(), e)
        })
        .collect()
}

/// The book as a map from canonical key to entry (column in the canonical orientation).
fn parse(text: &str) -> HashMap<u64, Entry> {
    let dims = standard();
    let mut map = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((seq, col, score)) = parse_line(line) else {
            continue;
        };
        let Some(b) = replay(seq, dims).filter(|_| col < dims.width) else {
            continue;
        };
        let (key, mirrored) = canonical(&b);
        let col = if mirrored { 6 - col } else { col } as u8;
        map.insert(key, Entry { col, score });
    }
    map
}

fn book() -> &'static HashMap<u64, Entry> {
    static MAP: OnceLock<HashMap<u64, Entry>> = OnceLock::new();
    MAP.get_or_init(|| parse(BOOK))
}

fn find(map: &HashMap<u64, Entry>, b: &Board) -> Option<Entry> {
    if b.dims != standard() || b.over() {
        return None;
    }
    let (key, mirrored) = canonical(b);
    let e = *map.get(&key)?;
    let col = if mirrored { 6 - e.col } else { e.col };
    b.can_play(col as u32).then_some(Entry { col, ..e })
}

/// The book's move and score for `b` (a 7x6 position), if it has them.
pub fn lookup(b: &Board) -> Option<Entry> {
    find(book(), b)
}

/// Number of positions in the book.
pub fn len() -> usize {
    book().len()
}

/// The positions the book must cover, level by level (stones played), as move strings: at
/// every level, those where the side to move is the player the book serves and the other
/// player has played anything so far. `best` gives the book's move in a position (None: not
/// covered); `each_level(level, positions)` is called with each level's positions before the
/// next level is built, so that `best` can answer for them.
fn walk(
    plies: u32,
    mut each_level: impl FnMut(u32, &[String]),
    best: impl Fn(&str) -> Option<u32>,
) {
    let dims = standard();
    // The book serves the side to move in `needs`; in `any`, the side to move plays anything.
    let (mut needs, mut any): (Vec<String>, Vec<String>) =
        (vec![String::new()], vec![String::new()]);
    for level in 0..plies {
        each_level(level, &needs);
        let mut seen = HashSet::new();
        let mut next_needs = Vec::new();
        for seq in &any {
            let Some(b) = replay(seq, dims) else { continue };
            for c in 0..dims.width {
                if b.can_play(c) {
                    let mut after = b.clone();
                    after.play_col(c);
                    if !after.over() && seen.insert(canonical(&after).0) {
                        next_needs.push(format!("{seq}{}", c + 1));
                    }
                }
            }
        }
        let mut seen = HashSet::new();
        let mut next_any = Vec::new();
        for seq in &needs {
            let (Some(mut b), Some(c)) = (replay(seq, dims), best(seq)) else {
                continue;
            };
            b.play_col(c);
            if !b.over() && seen.insert(canonical(&b).0) {
                next_any.push(format!("{seq}{}", c + 1));
            }
        }
        (needs, any) = (next_needs, next_any);
    }
}

/// The exact score of `b` and its best move (the first column from the centre out that
/// reaches it, whatever the table holds), by the solver on `table`.
fn solve_one(b: &Board, table: &SolverTable) -> Option<Entry> {
    let mut s = Solver::new(b.dims, table, &|| false);
    let score = s.solve(b, false)?;
    let w = b.dims.width as i32;
    let col = (0..w)
        .map(|i| (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32)
        .filter(|&c| c < b.dims.width && b.can_play(c))
        .find(|&c| s.reaches_score(b, c, score) == Some(true))?;
    Some(Entry {
        col: col as u8,
        score,
    })
}

/// Solves `positions` on `threads` threads sharing `table`; entries of `known` are taken as
/// they are. Results in the order of `positions`.
fn solve_all(
    positions: &[String],
    threads: usize,
    table: &SolverTable,
    known: &HashMap<String, Entry>,
) -> Vec<Option<Entry>> {
    let dims = standard();
    let next = AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Entry>>> = positions
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Relaxed);
                    let Some(seq) = positions.get(i) else { break };
                    let e = known
                        .get(seq)
                        .copied()
                        .or_else(|| replay(seq, dims).and_then(|b| solve_one(&b, table)));
                    if let Ok(mut r) = results[i].lock() {
                        *r = e;
                    }
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().ok().flatten())
        .collect()
}

/// Generates the book to `plies` stones, level by level; each level's lines go to `emit` when
/// the level is done (in a fixed order, whatever `threads`), so that a partial run is a valid,
/// shallower book. `known` holds lines of an earlier run (moves -> entry), taken as they are.
/// `table_mb`: the solver table shared by the threads.
pub fn generate(
    plies: u32,
    threads: usize,
    table_mb: usize,
    known: &HashMap<String, Entry>,
    emit: &dyn Fn(&str),
) -> Result<(), String> {
    let table = SolverTable::with_bytes(table_mb << 20)?;
    let mut found: HashMap<String, Entry> = HashMap::new();
    let found_cell = std::cell::RefCell::new(&mut found);
    walk(
        plies,
        |_, positions| {
            let results = solve_all(positions, threads, &table, known);
            let mut found = found_cell.borrow_mut();
            for (seq, e) in positions.iter().zip(results) {
                if let Some(e) = e {
                    let shown = if seq.is_empty() { "-" } else { seq.as_str() };
                    emit(&format!("{shown} {} {}", (b'a' + e.col) as char, e.score));
                    found.insert(seq.clone(), e);
                }
            }
        },
        |seq| found_cell.borrow().get(seq).map(|e| u32::from(e.col)),
    );
    Ok(())
}

/// What `verify` found.
#[derive(Debug, Default)]
pub struct Verified {
    /// Lines whose score and move were solved again and agreed.
    pub checked: usize,
    /// Problems, one line each (empty: the book is sound).
    pub problems: Vec<String>,
    /// The depth the book covers completely (both sides).
    pub depth: u32,
}

/// Checks a book text: every position either player can reach below its depth while the other
/// follows it has a line (coverage), and, for the lines `check` selects, the score is the
/// position's exact value and the move reaches it (solved again on `threads` threads).
pub fn verify(
    text: &str,
    threads: usize,
    table_mb: usize,
    check: &dyn Fn(&str) -> bool,
) -> Result<Verified, String> {
    let dims = standard();
    let map = parse(text);
    let mut out = Verified::default();
    let mut lines: Vec<(String, Entry)> = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
    {
        match parse_line(line) {
            Some((seq, col, score)) if replay(seq, dims).is_some() => lines.push((
                seq.to_string(),
                Entry {
                    col: col as u8,
                    score,
                },
            )),
            _ => out
                .problems
                .push(format!("line {}: malformed: {line}", i + 1)),
        }
    }
    // Depth: the deepest level of any line, plus one.
    let depth = lines
        .iter()
        .map(|(s, _)| s.len() as u32 + 1)
        .max()
        .unwrap_or(0);
    out.depth = depth;
    let mut missing = Vec::new();
    walk(
        depth,
        |_, positions| {
            for seq in positions {
                if replay(seq, dims).is_some_and(|b| find(&map, &b).is_none()) {
                    missing.push(seq.clone());
                }
            }
        },
        |seq| {
            replay(seq, dims)
                .and_then(|b| find(&map, &b))
                .map(|e| u32::from(e.col))
        },
    );
    for seq in missing {
        out.problems.push(format!(
            "position {seq}: reachable below depth {depth} but not in the book"
        ));
    }
    let selected: Vec<(String, Entry)> = lines.into_iter().filter(|(s, _)| check(s)).collect();
    let positions: Vec<String> = selected.iter().map(|(s, _)| s.clone()).collect();
    let table = SolverTable::with_bytes(table_mb << 20)?;
    let solved = solve_all(&positions, threads, &table, &HashMap::new());
    for ((seq, e), got) in selected.iter().zip(solved) {
        let Some(b) = replay(seq, dims) else { continue };
        let Some(got) = got else {
            out.problems
                .push(format!("position {seq}: the game is over"));
            continue;
        };
        let mut s = Solver::new(dims, &table, &|| false);
        if got.score != e.score {
            out.problems.push(format!(
                "position {seq}: score {} in the book, {} solved",
                e.score, got.score
            ));
        } else if !b.can_play(u32::from(e.col))
            || s.reaches_score(&b, u32::from(e.col), e.score) != Some(true)
        {
            out.problems.push(format!(
                "position {seq}: move {} does not keep the score {}",
                (b'a' + e.col) as char,
                e.score
            ));
        } else {
            out.checked += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_moves_are_legal_and_first_is_centre() {
        let b = Board::new(standard());
        assert_eq!(
            lookup(&b),
            Some(Entry { col: 3, score: 1 }),
            "the only winning first move is the centre; the first player wins with its last stone"
        );
        assert!(len() > 0);
        for line in BOOK.lines().filter(|l| !l.starts_with('#')) {
            let (seq, _, _) = parse_line(line).expect("well-formed line");
            let b = replay(seq, standard()).expect("book line replays");
            let e = lookup(&b).expect("every book position is found");
            assert!(b.can_play(u32::from(e.col)));
        }
    }
}
