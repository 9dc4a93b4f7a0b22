//! Chess legal moves against a slow reference generator written plainly here (an 8x8 array,
//! explicit rays, make-and-test legality), along random games from the standard perft
//! positions: the move sets must be equal in every position reached.

use super::common;

use common::Rng;
use std::collections::BTreeSet;
use tabula::game::{Notation, Rules};
use tabula::games::chess::Chess;

#[derive(Clone)]
struct Ref {
    sq: [Option<(bool, char)>; 64], // (white?, piece letter lower case), index = rank * 8 + file
    white: bool,
    castle: [bool; 4], // K Q k q
    ep: Option<usize>,
}

fn idx(f: i32, r: i32) -> Option<usize> {
    (0..8).contains(&f).then_some(())?;
    (0..8).contains(&r).then_some((r * 8 + f) as usize)
}

fn name(i: usize) -> String {
    format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1)
}

impl Ref {
    fn from_fen(fen: &str) -> Ref {
        let parts: Vec<&str> = fen.split_whitespace().collect();
        let mut sq = [None; 64];
        for (row, text) in parts[0].split('/').enumerate() {
            let r = 7 - row as i32;
            let mut f = 0;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    f += d as i32;
                } else {
                    sq[idx(f, r).unwrap()] = Some((c.is_ascii_uppercase(), c.to_ascii_lowercase()));
                    f += 1;
                }
            }
        }
        let c = parts[2];
        let ep = if parts[3] == "-" {
            None
        } else {
            let b = parts[3].as_bytes();
            idx((b[0] - b'a') as i32, (b[1] - b'1') as i32)
        };
        Ref {
            sq,
            white: parts[1] == "w",
            castle: [
                c.contains('K'),
                c.contains('Q'),
                c.contains('k'),
                c.contains('q'),
            ],
            ep,
        }
    }

    /// Is square `t` attacked by the side `by_white`?
    fn attacked(&self, t: usize, by_white: bool) -> bool {
        let (tf, tr) = ((t % 8) as i32, (t / 8) as i32);
        let at = |f: i32, r: i32| idx(f, r).and_then(|i| self.sq[i]);
        let dir = if by_white { -1 } else { 1 };
        for df in [-1, 1] {
            if at(tf + df, tr + dir) == Some((by_white, 'p')) {
                return true;
            }
        }
        for (df, dr) in [
            (1, 2),
            (2, 1),
            (-1, 2),
            (-2, 1),
            (1, -2),
            (2, -1),
            (-1, -2),
            (-2, -1),
        ] {
            if at(tf + df, tr + dr) == Some((by_white, 'n')) {
                return true;
            }
        }
        for df in -1..=1 {
            for dr in -1..=1 {
                if (df, dr) != (0, 0) && at(tf + df, tr + dr) == Some((by_white, 'k')) {
                    return true;
                }
            }
        }
        for (df, dr, kinds) in [
            (1, 0, "rq"),
            (-1, 0, "rq"),
            (0, 1, "rq"),
            (0, -1, "rq"),
            (1, 1, "bq"),
            (1, -1, "bq"),
            (-1, 1, "bq"),
            (-1, -1, "bq"),
        ] {
            let (mut f, mut r) = (tf + df, tr + dr);
            while let Some(i) = idx(f, r) {
                if let Some((w, p)) = self.sq[i] {
                    if w == by_white && kinds.contains(p) {
                        return true;
                    }
                    break;
                }
                f += df;
                r += dr;
            }
        }
        false
    }

    fn king(&self, white: bool) -> usize {
        (0..64).find(|&i| self.sq[i] == Some((white, 'k'))).unwrap()
    }

    /// Plays a pseudo-legal move (from, to, promotion) on a copy.
    fn after(&self, from: usize, to: usize, promo: Option<char>) -> Ref {
        let mut b = self.clone();
        let piece = b.sq[from].unwrap();
        if piece.1 == 'p' && Some(to) == self.ep && self.sq[to].is_none() {
            let captured = if self.white { to - 8 } else { to + 8 };
            b.sq[captured] = None;
        }
        if piece.1 == 'k' && (from as i32 - to as i32).abs() == 2 {
            let (rf, rt) = if to > from {
                (from + 3, from + 1)
            } else {
                (from - 4, from - 1)
            };
            b.sq[rt] = b.sq[rf].take();
        }
        b.sq[to] = Some((piece.0, promo.unwrap_or(piece.1)));
        b.sq[from] = None;
        b.white = !self.white;
        b
    }

    fn legal(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let me = self.white;
        let add = |from: usize, to: usize, promo: Option<char>, out: &mut BTreeSet<String>| {
            let b = self.after(from, to, promo);
            if !b.attacked(b.king(me), !me) {
                out.insert(format!(
                    "{}{}{}",
                    name(from),
                    name(to),
                    promo.map(String::from).unwrap_or_default()
                ));
            }
        };
        for from in 0..64 {
            let Some((w, p)) = self.sq[from] else {
                continue;
            };
            if w != me {
                continue;
            }
            let (f, r) = ((from % 8) as i32, (from / 8) as i32);
            let free = |i: usize| self.sq[i].is_none();
            let enemy = |i: usize| matches!(self.sq[i], Some((w2, _)) if w2 != me);
            match p {
                'p' => {
                    let d = if me { 1 } else { -1 };
                    let last = if me { 7 } else { 0 };
                    let start = if me { 1 } else { 6 };
                    let push = |to: usize, out: &mut BTreeSet<String>| {
                        if (to / 8) as i32 == last {
                            for q in ['q', 'r', 'b', 'n'] {
                                add(from, to, Some(q), out);
                            }
                        } else {
                            add(from, to, None, out);
                        }
                    };
                    if let Some(t) = idx(f, r + d).filter(|&t| free(t)) {
                        push(t, &mut out);
                        if r == start
                            && let Some(t2) = idx(f, r + 2 * d).filter(|&t2| free(t2))
                        {
                            add(from, t2, None, &mut out);
                        }
                    }
                    for df in [-1, 1] {
                        if let Some(t) = idx(f + df, r + d) {
                            if enemy(t) {
                                push(t, &mut out);
                            } else if Some(t) == self.ep {
                                add(from, t, None, &mut out);
                            }
                        }
                    }
                }
                'n' | 'k' => {
                    let steps: &[(i32, i32)] = if p == 'n' {
                        &[
                            (1, 2),
                            (2, 1),
                            (-1, 2),
                            (-2, 1),
                            (1, -2),
                            (2, -1),
                            (-1, -2),
                            (-2, -1),
                        ]
                    } else {
                        &[
                            (1, 0),
                            (-1, 0),
                            (0, 1),
                            (0, -1),
                            (1, 1),
                            (1, -1),
                            (-1, 1),
                            (-1, -1),
                        ]
                    };
                    for &(df, dr) in steps {
                        if let Some(t) = idx(f + df, r + dr).filter(|&t| free(t) || enemy(t)) {
                            add(from, t, None, &mut out);
                        }
                    }
                    if p == 'k' {
                        let (ks, qs, home) = if me { (0, 1, 4) } else { (2, 3, 60) };
                        let safe = |i: usize| !self.attacked(i, !me);
                        if from == home && safe(home) {
                            if self.castle[ks]
                                && free(home + 1)
                                && free(home + 2)
                                && safe(home + 1)
                                && safe(home + 2)
                                && self.sq[home + 3] == Some((me, 'r'))
                            {
                                add(from, home + 2, None, &mut out);
                            }
                            if self.castle[qs]
                                && free(home - 1)
                                && free(home - 2)
                                && free(home - 3)
                                && safe(home - 1)
                                && safe(home - 2)
                                && self.sq[home - 4] == Some((me, 'r'))
                            {
                                add(from, home - 2, None, &mut out);
                            }
                        }
                    }
                }
                _ => {
                    let dirs: &[(i32, i32)] = match p {
                        'r' => &[(1, 0), (-1, 0), (0, 1), (0, -1)],
                        'b' => &[(1, 1), (1, -1), (-1, 1), (-1, -1)],
                        _ => &[
                            (1, 0),
                            (-1, 0),
                            (0, 1),
                            (0, -1),
                            (1, 1),
                            (1, -1),
                            (-1, 1),
                            (-1, -1),
                        ],
                    };
                    for &(df, dr) in dirs {
                        let (mut tf, mut tr) = (f + df, r + dr);
                        while let Some(t) = idx(tf, tr) {
                            if free(t) {
                                add(from, t, None, &mut out);
                            } else {
                                if enemy(t) {
                                    add(from, t, None, &mut out);
                                }
                                break;
                            }
                            tf += df;
                            tr += dr;
                        }
                    }
                }
            }
        }
        out
    }
}

#[test]
fn legal_moves_match_the_reference_along_random_games() {
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];
    let mut rng = Rng(2024);
    let mut positions = 0;
    for fen in starts {
        for _ in 0..30 {
            let mut pos = Chess::default().parse_fen(fen).unwrap();
            for _ in 0..80 {
                let mut moves = Vec::new();
                pos.legal_moves(&mut moves);
                let ours: BTreeSet<String> = moves.iter().map(|&m| pos.format_move(m)).collect();
                let theirs = Ref::from_fen(&pos.fen()).legal();
                assert_eq!(ours, theirs, "{}", pos.fen());
                positions += 1;
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.below(moves.len())]);
            }
        }
    }
    assert!(positions > 5000, "{positions} positions checked");
}
