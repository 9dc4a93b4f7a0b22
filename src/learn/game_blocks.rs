//! How game blocks sit in a game data file (`game_data`), and finding them again in a file
//! that was cut or damaged. Owns the framing of both versions; what is inside a block (the
//! game) is `game_data`'s.
//!
//! - `TABULAG1` (before checksums): after the 32-byte header, blocks back to back, each a u32
//!   length L (LE) and L bytes of game ("the body": `game_data`'s layout). Nothing tells a
//!   damaged byte from a good one; a length that cannot be one ends the readable part.
//! - `TABULAG2` (what tabula writes): each block is the marker `GAME`, the same u32 length and
//!   body, then the CRC-32 (`checksum`) of the length field and the body (u32 LE): 12 bytes more
//!   than the body. A block whose checksum fails is skipped, and reading resumes at the next
//!   marker that starts a block whose checksum holds (a false marker passes with odds of
//!   2^-32), so damage costs the blocks it touches and no others.
//!
//! Invariants: a good file is a header and whole blocks; a block's "view" (the length field
//! and the body, as `TABULAG1` stores it) is the same bytes in both versions, so one decoder
//! reads both; every offset reported is a byte offset in the file.

use super::checksum::crc32;
use std::ops::Range;

pub const MAGIC_V1: &[u8; 8] = b"TABULAG1";
pub const MAGIC_V2: &[u8; 8] = b"TABULAG2";
/// The first bytes of every `TABULAG2` block.
pub const MARK: &[u8; 4] = b"GAME";
/// The least body: index, label, start ply, move count (before the packed start position).
pub const MIN_BODY: usize = 10;
/// No game block is larger (65535 moves of 5 bytes and a packed position fit well within).
pub const MAX_BODY: usize = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// `TABULAG1`: no checksums.
    V1,
    /// `TABULAG2`: a marker and a CRC-32 per block.
    V2,
}

impl Version {
    pub fn magic(self) -> &'static [u8; 8] {
        match self {
            Version::V1 => MAGIC_V1,
            Version::V2 => MAGIC_V2,
        }
    }

    pub fn of_magic(b: &[u8]) -> Option<Version> {
        match b.get(..8)? {
            m if m == MAGIC_V1 => Some(Version::V1),
            m if m == MAGIC_V2 => Some(Version::V2),
            _ => None,
        }
    }
}

/// A whole block found in a file: where it starts, and its view (length field and body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub at: usize,
    pub view: Range<usize>,
}

/// What lies after the last whole block, where it is not the end of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tail {
    pub at: usize,
    pub len: usize,
    /// The start of a block whose end is missing (an interrupted write); else bytes that are
    /// no block at all.
    pub truncated: bool,
}

/// The blocks of a file, what was damaged between them and what trails them.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    pub blocks: Vec<Block>,
    /// (offset, bytes) of each damaged stretch skipped between whole blocks.
    pub damaged: Vec<(usize, usize)>,
    pub tail: Option<Tail>,
    /// The end of the last whole block (where a writer resumes).
    pub end: usize,
    /// Blocks lost to the damage and the tail: each damaged stretch counts the markers left
    /// in it (at least one); a `TABULAG1` tail counts one.
    pub lost: usize,
}

/// The `TABULAG2` markers in `bytes` (at least 1): the blocks a damaged stretch held, as far
/// as can be told.
fn markers(bytes: &[u8]) -> usize {
    bytes.windows(4).filter(|w| w == MARK).count().max(1)
}

fn u32_at(b: &[u8], i: usize) -> Option<usize> {
    let s = b.get(i..i + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
}

/// The body length of a whole `TABULAG2` block at `at` whose checksum holds.
fn v2_block(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at..at + 4)? != MARK {
        return None;
    }
    let len = u32_at(bytes, at + 4)?;
    if !(MIN_BODY..=MAX_BODY).contains(&len) {
        return None;
    }
    let stored = u32_at(bytes, at + 8 + len)? as u32;
    (crc32(bytes.get(at + 4..at + 8 + len)?) == stored).then_some(len)
}

/// Whether `bytes[at..]` is the start of a `TABULAG2` block cut short by the end of the file.
fn v2_cut(bytes: &[u8], at: usize) -> bool {
    let rest = &bytes[at..];
    if rest.len() < 8 {
        return MARK.starts_with(&rest[..rest.len().min(4)]);
    }
    rest[..4] == *MARK
        && u32_at(bytes, at + 4)
            .is_some_and(|len| (MIN_BODY..=MAX_BODY).contains(&len) && 12 + len > rest.len())
}

/// Finds the blocks after the header (`from`) of a file of `version`.
pub fn scan(bytes: &[u8], from: usize, version: Version) -> Scan {
    let mut s = Scan {
        end: from,
        ..Scan::default()
    };
    let mut at = from;
    match version {
        Version::V1 => {
            while let Some(len) = u32_at(bytes, at) {
                if len < MIN_BODY + 4 || at + 4 + len > bytes.len() {
                    break;
                }
                s.blocks.push(Block {
                    at,
                    view: at..at + 4 + len,
                });
                at += 4 + len;
            }
            s.end = at;
            if at < bytes.len() {
                let cut =
                    u32_at(bytes, at).is_none_or(|len| (MIN_BODY + 4..=MAX_BODY).contains(&len));
                s.tail = Some(Tail {
                    at,
                    len: bytes.len() - at,
                    truncated: cut,
                });
                s.lost = 1;
            }
        }
        Version::V2 => {
            while at < bytes.len() {
                if let Some(len) = v2_block(bytes, at) {
                    s.blocks.push(Block {
                        at,
                        view: at + 4..at + 8 + len,
                    });
                    at += 12 + len;
                    s.end = at;
                    continue;
                }
                // Resynchronise: the next marker that starts a good block.
                let next = (at + 1..bytes.len().saturating_sub(11))
                    .filter(|&p| bytes[p] == MARK[0])
                    .find(|&p| v2_block(bytes, p).is_some());
                match next {
                    Some(p) => {
                        s.damaged.push((at, p - at));
                        s.lost += markers(&bytes[at..p]);
                        at = p;
                    }
                    None => {
                        s.lost += markers(&bytes[at..]);
                        s.tail = Some(Tail {
                            at,
                            len: bytes.len() - at,
                            truncated: v2_cut(bytes, at),
                        });
                        break;
                    }
                }
            }
        }
    }
    s
}

/// The `TABULAG2` block of a view (length field and body), appended to `out`.
pub fn frame(view: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(MARK);
    out.extend_from_slice(view);
    out.extend_from_slice(&crc32(view).to_le_bytes());
}

/// `TABULAG2` blocks (whole, as `frame` makes them) written as `version`'s.
pub fn convert(blocks: &[u8], version: Version) -> Vec<u8> {
    match version {
        Version::V2 => blocks.to_vec(),
        Version::V1 => {
            let s = scan(blocks, 0, Version::V2);
            let mut out = Vec::with_capacity(blocks.len());
            for b in &s.blocks {
                out.extend_from_slice(&blocks[b.view.clone()]);
            }
            out
        }
    }
}

/// The game index in a view.
pub fn index(view: &[u8]) -> u32 {
    u32_at(view, 4).unwrap_or(0) as u32
}

/// What a scan found wrong, one line each with its byte offset, in file order (empty:
/// nothing). `bytes` is the file scanned.
pub fn problems(s: &Scan, bytes: &[u8]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = s
        .damaged
        .iter()
        .map(|&(at, len)| {
            let n = markers(&bytes[at..at + len]);
            let what = if n > 1 {
                format!("{n} damaged blocks")
            } else {
                "damaged block".into()
            };
            (at, format!("{what} at byte {at} ({len} bytes skipped)"))
        })
        .collect();
    if let Some(t) = s.tail {
        out.push((
            t.at,
            if t.truncated {
                format!("truncated last block at byte {} ({} bytes)", t.at, t.len)
            } else {
                format!(
                    "damaged tail at byte {} ({} bytes, {} blocks by their markers, none whole)",
                    t.at,
                    t.len,
                    markers(&bytes[t.at..])
                )
            },
        ));
    }
    out
}

/// Lines about damage for the user: the first few (in file order) and how many more.
pub fn summarise(problems: &[String], path: &std::path::Path) -> String {
    const SHOWN: usize = 3;
    let mut s = problems[..problems.len().min(SHOWN)].join("; ");
    if problems.len() > SHOWN {
        s.push_str(&format!(
            "; and {} more (tabula data --check {})",
            problems.len() - SHOWN,
            path.display()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(index: u32, body_len: usize) -> Vec<u8> {
        let mut v = (body_len as u32).to_le_bytes().to_vec();
        v.extend_from_slice(&index.to_le_bytes());
        v.extend((0..body_len - 4).map(|i| (i * 7 + index as usize) as u8));
        v
    }

    #[test]
    fn damage_costs_the_block_it_hits() {
        let mut file = vec![0u8; 32];
        for i in 0..5 {
            frame(&view(i, 30 + i as usize), &mut file);
        }
        let good = scan(&file, 32, Version::V2);
        assert_eq!(
            (good.blocks.len(), good.damaged.len(), good.tail),
            (5, 0, None)
        );
        assert_eq!(good.end, file.len());
        // A flipped byte in block 1's body, another in block 3's length field.
        let mut bad = file.clone();
        let b1 = good.blocks[1].at;
        let b3 = good.blocks[3].at;
        bad[b1 + 20] ^= 0x5a;
        bad[b3 + 5] ^= 0x5a;
        let s = scan(&bad, 32, Version::V2);
        let kept: Vec<u32> = s
            .blocks
            .iter()
            .map(|b| index(&bad[b.view.clone()]))
            .collect();
        assert_eq!(kept, vec![0, 2, 4]);
        assert_eq!(s.lost, 2);
        assert_eq!(
            s.damaged,
            vec![(b1, good.blocks[2].at - b1), (b3, good.blocks[4].at - b3)]
        );
        // Cut inside the last block: reported as truncated, the others kept.
        let cut = &file[..file.len() - 7];
        let s = scan(cut, 32, Version::V2);
        assert_eq!(s.blocks.len(), 4);
        assert_eq!(
            s.tail,
            Some(Tail {
                at: good.blocks[4].at,
                len: cut.len() - good.blocks[4].at,
                truncated: true
            })
        );
        assert_eq!(s.end, good.blocks[4].at);
        // Back to the first version: the same views.
        let v1 = convert(&file[32..], Version::V1);
        let s1 = scan(&v1, 0, Version::V1);
        assert_eq!(s1.blocks.len(), 5);
        assert_eq!(index(&v1[s1.blocks[4].view.clone()]), 4);
    }
}
