//! Openings for engines that cannot be given a position: GTP has no FEN, so an engine is told
//! an opening as the moves that reach it from the standard start. Found by a breadth-first
//! search over distinct positions (by hash, confirmed by FEN), capped at a few million.

use crate::game::Game;

/// For each opening, a line of moves (GTP notation: a pass is `pass`) from `start` that reaches
/// it: a breadth-first search over distinct positions, up to a few million of them.
pub fn lines_to<G: Game>(
    start: &G,
    openings: &[String],
) -> Result<std::collections::HashMap<String, Vec<String>>, String> {
    use std::collections::{HashMap, HashSet};
    const CAP: usize = 3_000_000;
    let mut want: HashMap<u64, Vec<String>> = HashMap::new();
    for f in openings {
        let p = start.parse_fen(f)?;
        want.entry(p.hash()).or_default().push(p.fen());
    }
    let mut found: HashMap<String, Vec<String>> = HashMap::new();
    let goal: HashSet<&String> = openings.iter().collect();
    // Nodes: (parent, move text); the frontier holds positions with their node index.
    let mut nodes: Vec<(usize, String)> = vec![(usize::MAX, String::new())];
    let mut seen: HashSet<u64> = HashSet::from([start.hash()]);
    let mut frontier = vec![(start.clone(), 0usize)];
    let mut moves = Vec::new();
    let path = |nodes: &[(usize, String)], mut i: usize| {
        let mut out = Vec::new();
        while i != 0 {
            out.push(nodes[i].1.clone());
            i = nodes[i].0;
        }
        out.reverse();
        out
    };
    let check = |pos: &G, i: usize, nodes: &[(usize, String)], found: &mut HashMap<_, _>| {
        if want.contains_key(&pos.hash()) {
            let f = pos.fen();
            if goal.contains(&f) && !found.contains_key(&f) {
                found.insert(f, path(nodes, i));
            }
        }
    };
    check(start, 0, &nodes, &mut found);
    while found.len() < goal.len() && !frontier.is_empty() && nodes.len() < CAP {
        let mut next = Vec::new();
        for (pos, i) in &frontier {
            if pos.terminal().is_some() {
                continue;
            }
            pos.legal_moves(&mut moves);
            for &mv in &moves {
                let mut p = pos.clone();
                p.play(mv);
                if !seen.insert(p.hash()) {
                    continue;
                }
                nodes.push((*i, super::referee::gtp_move(pos, mv)));
                let j = nodes.len() - 1;
                check(&p, j, &nodes, &mut found);
                next.push((p, j));
            }
        }
        frontier = next;
    }
    if let Some(f) = openings.iter().find(|f| !found.contains_key(*f)) {
        return Err(format!(
            "opening {f}: no line of moves from the start reaches it within {CAP} positions \
             (GTP engines are told an opening as moves)"
        ));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Notation, Rules};
    use crate::games::othello::Othello;

    /// Each line, played from the start, reaches its opening, in as many moves as the
    /// opening has discs past the four of the start.
    #[test]
    fn lines_reach_their_openings() {
        let start = Othello::<u64>::new(8).expect("8x8");
        let openings: Vec<String> = [
            "8/2x5/3x4/2xox3/2ooo3/1o6/o7/8 x",
            "8/8/2x5/3xoo2/3xo3/2xxo3/4o3/8 x",
            "8/8/8/3ox3/3xo3/8/8/8 x",
        ]
        .iter()
        .map(|f| start.parse_fen(f).expect("fen").fen())
        .collect();
        let lines = lines_to(&start, &openings).expect("lines");
        for f in &openings {
            let mut pos = start.clone();
            for m in &lines[f] {
                let mv = pos.parse_move(m).expect("legal");
                pos.play(mv);
            }
            assert_eq!(&pos.fen(), f);
            let board = f.split_whitespace().next().unwrap_or("");
            let discs = board.chars().filter(|c| *c == 'x' || *c == 'o').count();
            assert_eq!(lines[f].len(), discs - 4, "{f}");
        }
    }
}
