//! The 8x8 Othello opening book: positions with their values, built by tabula itself
//! (`tabula book`, `src/learn/book.rs`: drop-out expansion with fixed-depth searches) and
//! grown by NBoard's `learn`. The book never searches; it stores and looks up.
//!
//! Invariants and conventions:
//! - A position's key is its canonical form: the least `(me, opp)` pair over the 8 symmetries
//!   of the board (`me` the side to move), so transposed and mirrored openings share a node.
//! - Values are hundredths of a disc from the side to move at the node. `leaf` is the
//!   search's value of the position at `depth`; `value` is the negamax: for an expanded node
//!   (every child in the book) `max(-child)`, otherwise `max(leaf, -child)` over the children
//!   in the book (the leaf stands for the moves outside it).
//! - The file (`TBLOBK02`): magic, entry count (u32 LE), then per entry `me` u64, `opp` u64,
//!   `value` i16, `leaf` i16, `depth` u8, `expanded` u8, `games` u32, little-endian (26 bytes),
//!   then the CRC-32 of every byte before it (u32, `learn::checksum`): a damaged file is
//!   refused whole, naming it. `TBLOBK01` (the same without the checksum) still loads.

use super::board::Geo;
use super::{Othello, PASS};
use crate::bits::Bits;
use crate::game::{BookMove as GameBookMove, Rules};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, RwLock};

mod symmetry;

pub use symmetry::canonical;

const MAGIC_V1: &[u8; 8] = b"TBLOBK01";
const MAGIC: &[u8; 8] = b"TBLOBK02";
const ENTRY: usize = 26;
/// The book tabula ships with (see protocol/benchmarks.md for the command that made it).
const EMBEDDED: &[u8] = include_bytes!("../book.bin");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    pub value: i16,
    pub leaf: i16,
    pub depth: u8,
    pub expanded: bool,
    /// Games learned through this position (NBoard's `learn`).
    pub games: u32,
}

/// The book: canonical positions and their nodes.
#[derive(Debug, Default)]
pub struct Book {
    nodes: RwLock<HashMap<(u64, u64), Node>>,
}

/// A move in the book, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The square (row * 8 + column), or `None` for a pass.
    pub square: Option<u32>,
    /// Hundredths of a disc for the mover.
    pub value: i32,
    pub depth: u8,
    pub games: u32,
}

/// The 8x8 geometry (move generation on plain bitboards).
fn geo8() -> Option<&'static Geo<u64>> {
    static GEO: OnceLock<Option<Geo<u64>>> = OnceLock::new();
    GEO.get_or_init(|| Geo::new(8).ok()).as_ref()
}

/// The positions after each legal move of `me` (to move) against `opp`: `(square, (me, opp)
/// of the child))`, a pass (`None`) when only the opponent can move, nothing at the end.
pub fn children(me: u64, opp: u64) -> Vec<(Option<u32>, (u64, u64))> {
    let Some(geo) = geo8() else {
        return Vec::new();
    };
    let mut moves = geo.moves(me, opp);
    if moves == 0 {
        return if geo.moves(opp, me) == 0 {
            Vec::new()
        } else {
            vec![(None, (opp, me))]
        };
    }
    let mut out = Vec::new();
    while moves != 0 {
        let sq = moves.trailing_zeros();
        moves &= moves - 1;
        let flips = geo.flips(me, opp, sq);
        out.push((Some(sq), (opp & !flips, me | flips | (1u64 << sq))));
    }
    out
}

impl Book {
    /// The moves of `(me, opp)` whose positions are in the book, best first.
    pub fn moves(&self, me: u64, opp: u64) -> Vec<BookMove> {
        let mut out: Vec<BookMove> = children(me, opp)
            .into_iter()
            .filter_map(|(square, (m, o))| {
                self.get(m, o).map(|n| BookMove {
                    square,
                    value: -i32::from(n.value),
                    depth: n.depth,
                    games: n.games,
                })
            })
            .collect();
        out.sort_by_key(|m| std::cmp::Reverse(m.value));
        out
    }

    /// The move to play from the book: its best move, where the book knows the position and
    /// no move outside it looks better.
    pub fn choose(&self, me: u64, opp: u64) -> Option<BookMove> {
        let node = self.get(me, opp)?;
        let best = *self.moves(me, opp).first()?;
        (node.expanded || best.value >= i32::from(node.leaf)).then_some(best)
    }

    /// Negamax over the whole book with the 8x8 rules.
    pub fn update_values(&self) {
        self.negamax(&|m, o| children(m, o).into_iter().map(|c| c.1).collect());
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<(u64, u64), Node>> {
        self.nodes.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<(u64, u64), Node>> {
        self.nodes.write().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, me: u64, opp: u64) -> Option<Node> {
        self.read().get(&canonical(me, opp)).copied()
    }

    pub fn insert(&self, me: u64, opp: u64, node: Node) {
        self.write().insert(canonical(me, opp), node);
    }

    /// Every node, keyed canonically (for the builder).
    pub fn entries(&self) -> Vec<((u64, u64), Node)> {
        let mut v: Vec<_> = self.read().iter().map(|(k, n)| (*k, *n)).collect();
        v.sort_unstable_by_key(|e| e.0);
        v
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        let bytes = match bytes.get(..8) {
            Some(m) if m == MAGIC => crate::learn::checksum::unseal(bytes)?,
            Some(m) if m == MAGIC_V1 => bytes,
            _ => return Err("not a tabula Othello book (TBLOBK01/02)".into()),
        };
        if bytes.len() < 12 {
            return Err("book: the header is cut short".into());
        }
        let count = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        let body = &bytes[12..];
        if body.len() != count * ENTRY {
            return Err(format!(
                "book: {count} entries announced, {} bytes of them",
                body.len()
            ));
        }
        let mut map = HashMap::with_capacity(count);
        for e in body.chunks_exact(ENTRY) {
            let u64_at = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&e[i..i + 8]);
                u64::from_le_bytes(b)
            };
            let (me, opp) = (u64_at(0), u64_at(8));
            if me & opp != 0 {
                return Err("book: an entry with a square of both colours".into());
            }
            map.insert(
                canonical(me, opp),
                Node {
                    value: i16::from_le_bytes([e[16], e[17]]),
                    leaf: i16::from_le_bytes([e[18], e[19]]),
                    depth: e[20],
                    expanded: e[21] != 0,
                    games: u32::from_le_bytes([e[22], e[23], e[24], e[25]]),
                },
            );
        }
        Ok(Book {
            nodes: RwLock::new(map),
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let entries = self.entries();
        let mut out = Vec::with_capacity(12 + entries.len() * ENTRY);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        for ((me, opp), n) in entries {
            out.extend_from_slice(&me.to_le_bytes());
            out.extend_from_slice(&opp.to_le_bytes());
            out.extend_from_slice(&n.value.to_le_bytes());
            out.extend_from_slice(&n.leaf.to_le_bytes());
            out.push(n.depth);
            out.push(u8::from(n.expanded));
            out.extend_from_slice(&n.games.to_le_bytes());
        }
        crate::learn::checksum::seal(&mut out);
        out
    }

    /// A book file, its values backed up again (a file saved mid-build may lag by one
    /// expansion).
    pub fn load(path: &str) -> Result<Book, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("BookFile '{path}': {e}"))?;
        let b = Book::from_bytes(&bytes).map_err(|e| format!("BookFile '{path}': {e}"))?;
        b.update_values();
        Ok(b)
    }

    pub fn save(&self, path: &str) -> Result<(), String> {
        let tmp = format!("{path}.tmp");
        std::fs::write(&tmp, self.to_bytes())
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("book '{path}': {e}"))
    }

    /// Recomputes every node's value from its children (negamax, children first).
    /// `children(me, opp)` lists the positions after each legal move (`(opp, me)` swapped for
    /// a pass); a node none of whose children are in the book takes its leaf value.
    pub fn negamax(&self, children: &dyn Fn(u64, u64) -> Vec<(u64, u64)>) {
        let mut map = self.write();
        let mut done: HashMap<(u64, u64), i16> = HashMap::new();
        let keys: Vec<(u64, u64)> = map.keys().copied().collect();
        fn visit(
            key: (u64, u64),
            map: &mut HashMap<(u64, u64), Node>,
            done: &mut HashMap<(u64, u64), i16>,
            children: &dyn Fn(u64, u64) -> Vec<(u64, u64)>,
        ) -> Option<i16> {
            if let Some(&v) = done.get(&key) {
                return Some(v);
            }
            let node = *map.get(&key)?;
            // Marked first: a cycle is impossible in Othello, but a bad file must not loop.
            done.insert(key, node.leaf);
            let mut best: Option<i16> = None;
            for (m, o) in children(key.0, key.1) {
                if let Some(v) = visit(canonical(m, o), map, done, children) {
                    let v = v.saturating_neg();
                    best = Some(best.map_or(v, |b| b.max(v)));
                }
            }
            let value = match best {
                Some(b) if node.expanded => b,
                Some(b) => b.max(node.leaf),
                None => node.leaf,
            };
            if let Some(n) = map.get_mut(&key) {
                n.value = value;
            }
            done.insert(key, value);
            Some(value)
        }
        for k in keys {
            visit(k, &mut map, &mut done, children);
        }
    }
}

/// The embedded book, read once (what `learn` adds stays in memory unless a `BookFile` is
/// chosen).
pub fn embedded() -> Option<&'static Book> {
    static BOOK: OnceLock<Option<Book>> = OnceLock::new();
    BOOK.get_or_init(|| match Book::from_bytes(EMBEDDED) {
        Ok(b) => {
            b.update_values();
            Some(b)
        }
        Err(e) => {
            log::warn!("the embedded Othello book is unreadable: {e}");
            Some(Book::default())
        }
    })
    .as_ref()
}

/// The book a position plays from (compared by identity), chosen with `OwnBook` and
/// `BookFile`; `None`: no book.
#[derive(Clone, Copy, Debug)]
pub struct Choice(pub Option<&'static Book>);

impl PartialEq for Choice {
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for Choice {}

/// The book file chosen with `BookFile` (NBoard's `learn` saves to it), if any.
static BOOK_FILE: RwLock<Option<String>> = RwLock::new(None);

pub fn book_file() -> Option<String> {
    BOOK_FILE.read().map(|f| f.clone()).unwrap_or(None)
}

impl Choice {
    pub fn default_for(n: u32) -> Choice {
        Choice(if n == 8 { embedded() } else { None })
    }

    /// `OwnBook` (true/false) and `BookFile` (`<embedded>` or a path; a missing file is
    /// created by the first `learn`). `None` when `name` is neither.
    pub fn set_option(&mut self, n: u32, name: &str, value: &str) -> Option<Result<(), String>> {
        let value = value.trim();
        if name.eq_ignore_ascii_case("OwnBook") {
            return Some(match value.to_ascii_lowercase().as_str() {
                "true" => {
                    if self.0.is_none() {
                        *self = Choice::default_for(n);
                    }
                    Ok(())
                }
                "false" => {
                    *self = Choice(None);
                    Ok(())
                }
                v => Err(format!("OwnBook: '{v}' is not true or false")),
            });
        }
        if !name.eq_ignore_ascii_case("BookFile") {
            return None;
        }
        Some(if n != 8 {
            Err("BookFile: the book is for the 8x8 board".into())
        } else if value.is_empty() || value == "<embedded>" {
            if let Ok(mut f) = BOOK_FILE.write() {
                *f = None;
            }
            *self = Choice::default_for(n);
            Ok(())
        } else {
            // One book per file for the whole process (every position that names it shares it,
            // so a game learned is in the next one).
            static LOADED: Mutex<Vec<(String, &'static Book)>> = Mutex::new(Vec::new());
            let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
            let found = loaded.iter().find(|(p, _)| p == value).map(|(_, b)| *b);
            let book = match found {
                Some(b) => Ok(b),
                None => {
                    let b = if std::path::Path::new(value).exists() {
                        Book::load(value)
                    } else {
                        Ok(Book::default())
                    };
                    b.map(|b| {
                        let b: &'static Book = Box::leak(Box::new(b));
                        loaded.push((value.to_string(), b));
                        b
                    })
                }
            };
            book.map(|b| {
                if let Ok(mut f) = BOOK_FILE.write() {
                    *f = Some(value.to_string());
                }
                *self = Choice(Some(b));
            })
        })
    }
}

/// Positions learned from a game: up to this many plies from the start.
pub const LEARN_PLIES: u32 = 30;

/// A score in the book's range (hundredths of a disc; a proven win or loss is the board).
fn clamp(score: i32) -> i16 {
    score.clamp(-6400, 6400) as i16
}

fn low<B: Bits>(pos: &Othello<B>) -> Option<(u64, u64)> {
    (pos.geo.n == 8).then(|| (pos.me.low64(), pos.opp.low64()))
}

fn game_move(sq: Option<u32>) -> u16 {
    sq.map_or(PASS, |s| s as u16)
}

/// `BooksAndSolvers::book_moves` for Othello.
pub fn moves_of<B: Bits>(pos: &Othello<B>) -> Vec<GameBookMove<u16>> {
    let (Some(book), Some((me, opp))) = (pos.book.0, low(pos)) else {
        return Vec::new();
    };
    book.moves(me, opp)
        .into_iter()
        .map(|m| GameBookMove {
            mv: game_move(m.square),
            score: m.value,
            depth: u32::from(m.depth),
            games: m.games,
        })
        .collect()
}

/// `BooksAndSolvers::book_choice` for Othello.
pub fn choice_of<B: Bits>(pos: &Othello<B>) -> Option<GameBookMove<u16>> {
    let (book, (me, opp)) = (pos.book.0?, low(pos)?);
    book.choose(me, opp).map(|m| GameBookMove {
        mv: game_move(m.square),
        score: m.value,
        depth: u32::from(m.depth),
        games: m.games,
    })
}

/// `BooksAndSolvers::book_learn` for Othello: the game's first `LEARN_PLIES` positions enter the
/// book (new ones valued by `eval`), each counts the game, the values are backed up, and the book
/// is saved to its `BookFile` if one is chosen.
pub fn learn<B: Bits>(
    start: &Othello<B>,
    line: &[u16],
    eval: &mut dyn FnMut(&Othello<B>) -> (i32, u32),
) -> Result<usize, String> {
    let book = start
        .book
        .0
        .ok_or("no book to learn into (OwnBook is false, or the board is not 8x8)")?;
    if start.geo.n != 8 {
        return Err("the book is for the 8x8 board".into());
    }
    let mut pos = start.clone();
    let mut added = 0;
    let mut visit = |pos: &Othello<B>, added: &mut usize| {
        let (me, opp) = (pos.me.low64(), pos.opp.low64());
        let mut node = match book.get(me, opp) {
            Some(n) => n,
            None => {
                *added += 1;
                let (score, depth) = eval(pos);
                Node {
                    value: clamp(score),
                    leaf: clamp(score),
                    depth: depth.min(255) as u8,
                    expanded: false,
                    games: 0,
                }
            }
        };
        node.games = node.games.saturating_add(1);
        book.insert(me, opp, node);
    };
    for &mv in line {
        if 60u32.saturating_sub(pos.empties()) >= LEARN_PLIES {
            break;
        }
        visit(&pos, &mut added);
        pos.play(mv);
    }
    if 60u32.saturating_sub(pos.empties()) <= LEARN_PLIES && !line.is_empty() {
        visit(&pos, &mut added);
    }
    book.update_values();
    if let Some(path) = book_file() {
        book.save(&path)?;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_bad_files_are_refused() {
        let b = Book::default();
        b.insert(
            0b1,
            0b10,
            Node {
                value: -150,
                leaf: -90,
                depth: 12,
                expanded: true,
                games: 3,
            },
        );
        b.insert(
            0b100,
            0b1000,
            Node {
                value: 40,
                leaf: 40,
                depth: 10,
                expanded: false,
                games: 0,
            },
        );
        let bytes = b.to_bytes();
        let c = Book::from_bytes(&bytes).expect("a book");
        assert_eq!(c.entries(), b.entries());
        assert!(Book::from_bytes(b"TBLOBK01\x05\0\0\0").is_err());
        assert!(Book::from_bytes(b"garbage").is_err());
        let mut bad = bytes.clone();
        bad[12] = 0b10; // me overlaps opp
        assert!(Book::from_bytes(&bad).is_err());
        // Every flipped byte is refused; the version before the checksum still loads.
        for i in 0..bytes.len() {
            let mut w = bytes.clone();
            w[i] ^= 0x5a;
            assert!(Book::from_bytes(&w).is_err(), "byte {i}");
        }
        let mut old = bytes[..bytes.len() - 4].to_vec();
        old[..8].copy_from_slice(MAGIC_V1);
        let c = Book::from_bytes(&old).expect("a TBLOBK01 book");
        assert_eq!(c.entries(), b.entries());
    }
}
