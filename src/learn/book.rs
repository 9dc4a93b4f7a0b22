//! Building the Othello opening book (`tabula book`) by drop-out expansion (Lincke 2001, as
//! Edax's and NTest's books grow): the book's tree is walked from the start, each move
//! costing its drop from the best value at its node, and the cheapest position not yet
//! expanded, for either side, gets every child valued by a fixed-depth search; the values
//! are backed up by negamax after each expansion. The book itself (format, lookup) is
//! `games::othello::book`; the search is passed in as `eval`, so the builder owns only the
//! choice of what to expand.

use crate::games::othello::book::{Book, Node, canonical, children};
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// Positions to expand in this run.
    pub expansions: usize,
    /// No position deeper than this many plies is expanded.
    pub max_plies: u32,
}

/// The start position of 8x8 Othello, Black (to move) and White.
pub const START: (u64, u64) = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36));

/// Adds `(me, opp)` as a leaf valued by `eval` if it is new; true if it was.
fn add_leaf(book: &Book, me: u64, opp: u64, eval: &mut dyn FnMut(u64, u64) -> (i32, u32)) -> bool {
    if book.get(me, opp).is_some() {
        return false;
    }
    let (score, depth) = eval(me, opp);
    let v = score.clamp(-6400, 6400) as i16;
    book.insert(
        me,
        opp,
        Node {
            value: v,
            leaf: v,
            depth: depth.min(255) as u8,
            expanded: false,
            games: 0,
        },
    );
    true
}

/// The unexpanded book position with the least drop-out cost within `max_plies`, if any.
fn cheapest(book: &Book, max_plies: u32) -> Option<(u64, u64)> {
    // Least cost found per canonical position, then a best-first walk (costs are >= 0).
    let mut best: HashMap<(u64, u64), i64> = HashMap::new();
    let mut frontier: std::collections::BinaryHeap<std::cmp::Reverse<(i64, u32, u64, u64)>> =
        std::collections::BinaryHeap::new();
    frontier.push(std::cmp::Reverse((0, 0, START.0, START.1)));
    while let Some(std::cmp::Reverse((cost, ply, me, opp))) = frontier.pop() {
        let key = canonical(me, opp);
        if best.get(&key).is_some_and(|&c| c <= cost) {
            continue;
        }
        best.insert(key, cost);
        let Some(node) = book.get(me, opp) else {
            continue;
        };
        if !node.expanded {
            if ply < max_plies && !children(me, opp).is_empty() {
                return Some((me, opp));
            }
            continue;
        }
        for (_, (m, o)) in children(me, opp) {
            if let Some(child) = book.get(m, o) {
                let drop = i64::from(node.value) + i64::from(child.value);
                frontier.push(std::cmp::Reverse((cost + drop.max(0), ply + 1, m, o)));
            }
        }
    }
    None
}

/// Grows `book` by `cfg.expansions` drop-out expansions; `eval(me, opp)` values a position
/// for the side to move (score in hundredths of a disc, depth). `progress(done, size)` is
/// called after each expansion. Returns the number of positions added.
pub fn build(
    book: &Book,
    cfg: &BuildConfig,
    eval: &mut dyn FnMut(u64, u64) -> (i32, u32),
    progress: &mut dyn FnMut(usize, usize),
) -> usize {
    let mut added = usize::from(add_leaf(book, START.0, START.1, eval));
    for done in 0..cfg.expansions {
        book.update_values();
        let Some((me, opp)) = cheapest(book, cfg.max_plies) else {
            break;
        };
        for (_, (m, o)) in children(me, opp) {
            added += usize::from(add_leaf(book, m, o, eval));
        }
        if let Some(mut n) = book.get(me, opp) {
            n.expanded = true;
            book.insert(me, opp, n);
        }
        progress(done + 1, book.len());
    }
    book.update_values();
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_follows_the_best_lines_and_backs_values_up() {
        // A made-up evaluation: the disc difference. The book must expand the start first,
        // value it by negamax of its children, and never expand beyond `max_plies`.
        let book = Book::default();
        let mut evals = 0;
        let mut eval = |me: u64, opp: u64| {
            evals += 1;
            ((me.count_ones() as i32 - opp.count_ones() as i32) * 100, 1)
        };
        let cfg = BuildConfig {
            expansions: 12,
            max_plies: 3,
        };
        build(&book, &cfg, &mut eval, &mut |_, _| {});
        let root = book
            .get(START.0, START.1)
            .expect("the start is in the book");
        assert!(root.expanded);
        assert_eq!(root.leaf, 0, "two discs each");
        // Every opening is the same up to symmetry: one key for the four first moves.
        let firsts: std::collections::BTreeSet<_> = children(START.0, START.1)
            .into_iter()
            .map(|(_, (m, o))| canonical(m, o))
            .collect();
        assert_eq!(firsts.len(), 1);
        for ((me, opp), n) in book.entries() {
            let ply = (me | opp).count_ones() - 4;
            assert!(ply <= 4, "nothing beyond max_plies + 1");
            if n.expanded {
                assert!(ply < 3);
                let best = children(me, opp)
                    .into_iter()
                    .filter_map(|(_, (m, o))| book.get(m, o))
                    .map(|c| -c.value)
                    .max();
                assert_eq!(Some(n.value), best, "negamax at {me:#x} {opp:#x}");
            }
        }
        assert!(book.len() > 10);
        // The book's move from the start is one of the four (all equal).
        let m = book.choose(START.0, START.1).expect("a book move");
        assert!(matches!(m.square, Some(19 | 26 | 37 | 44)), "{m:?}");
    }
}
