//! Validation of Syzygy table files before `pyrrhic-rs` may see them (issue 46).
//!
//! `pyrrhic-rs` is a C-to-Rust translation of Pyrrhic that trusts every byte of a table: it
//! maps the file and follows the offsets and symbol trees in it with raw pointers. A cut
//! file is read past the end of its mapping (segmentation fault), an empty one fails to map
//! (a panic, so an abort), and damaged bytes in the symbol tables make `calc_symLen` recurse
//! without end (stack overflow) or send `decompress_pairs` outside the mapping. Rather than
//! patch the crate (a vendored fork of 3,400 lines of pointer code) or switch to
//! `shakmaty-syzygy` (which checks its reads, but is GPL-3.0-or-later, a licence tabula has
//! not taken on, see protocol/errors.md), every table is checked here, in safe Rust, against
//! everything the crate's decoder will ever read, and only the tables that pass are shown to
//! the crate (see `syzygy::set_path`). What is checked, following the crate's own
//! `init_table`, `setup_pairs` and `decompress_pairs`:
//!
//! - the file is a readable regular file with the table's magic, and the size the header
//!   implies (pieces, each sub-table's Huffman header and symbol table, the DTZ value maps,
//!   the sparse index, the block-length table and the data blocks, with the crate's
//!   alignments, the last block padded to 64 bytes) is exactly the file's size less its
//!   16-byte tail;
//! - the header's pieces are the material of the file name (pawns first in pawn tables), and
//!   the encoding order of each sub-table is one the index computation reaches;
//! - each symbol tree is acyclic, its children are symbols of the table, and it expands to at
//!   most 256 values; code lengths are 1 to 32; every 64-bit code the canonical Huffman
//!   decoder could meet gives a symbol of the table;
//! - every leaf value is a WDL value (0 to 4), or for DTZ tables with value maps, an entry
//!   within the file for each of the four maps;
//! - every sparse-index entry points, for every position index it covers, into a real data
//!   block (the walk over the block-length table stays inside that table);
//! - the blocks near the end of the file, decoded in full, read nothing past the file (a
//!   block elsewhere may be read a little past its end, but that is still the file).
//!
//! Damaged bytes that pass (inside the Huffman-coded data) give wrong values, never a read
//! outside the file or a non-ending loop. The crate is then shown the descriptors that were
//! checked, not the names (`syzygy::set_path`); not covered: a checked file changed in place
//! (the same inode cut or rewritten) after the check, as the crate maps it at the first probe.

use std::fmt;

/// Why a table file is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad(pub String);

impl fmt::Display for Bad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad<T>(why: impl Into<String>) -> Result<T, Bad> {
    Err(Bad(why.into()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Wdl,
    Dtz,
}

const MAGIC_WDL: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const MAGIC_DTZ: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// The bytes after the last data block, padded to 64, in every table file (so Stockfish's
/// `size % 64 == 16`).
const TAIL: u64 = 16;

/// Checked little reader over the file's bytes.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&self, at: u64) -> Result<u8, Bad> {
        usize::try_from(at)
            .ok()
            .and_then(|i| self.0.get(i).copied())
            .map_or_else(|| bad(format!("cut short: needs byte {at}")), Ok)
    }
    fn u16(&self, at: u64) -> Result<u16, Bad> {
        Ok(u16::from(self.u8(at)?) | u16::from(self.u8(at + 1)?) << 8)
    }
    fn u32(&self, at: u64) -> Result<u32, Bad> {
        Ok(u32::from(self.u16(at)?) | u32::from(self.u16(at + 2)?) << 16)
    }
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

mod layout;
mod pairs;
#[cfg(test)]
mod tests;

use layout::{Entry, enc_size};
use pairs::{Pairs, index_and_blocks, leaf_values, setup_pairs};

/// Checks one table file's bytes; `name` is its file name (`KQvKR.rtbw`).
pub fn check(name: &str, bytes: &[u8]) -> Result<(), Bad> {
    let (stem, kind) = if let Some(s) = name.strip_suffix(".rtbw") {
        (s, Kind::Wdl)
    } else if let Some(s) = name.strip_suffix(".rtbz") {
        (s, Kind::Dtz)
    } else {
        return bad("not a .rtbw or .rtbz file");
    };
    let f = Bytes(bytes);
    if bytes.is_empty() {
        return bad("empty file");
    }
    let magic = match kind {
        Kind::Wdl => MAGIC_WDL,
        Kind::Dtz => MAGIC_DTZ,
    };
    if bytes.get(..4) != Some(&magic[..]) {
        return bad("wrong magic bytes (not a Syzygy table of this kind)");
    }
    let e = Entry::of(stem)?;
    let split = kind == Kind::Wdl && f.u8(4)? & 1 != 0;
    if kind == Kind::Wdl && !split && !e.symmetric {
        return bad("header: one side only in a WDL table of unequal material");
    }
    let num = if e.has_pawns { 4 } else { 1 };
    let more_pawns = e.has_pawns && e.pawns[1] > 0;
    let mut at = 5u64;
    let mut sizes = Vec::new();
    for t in 0..num {
        let s0 = enc_size(&e, &f, at, 0, t)?;
        let s1 = if split {
            enc_size(&e, &f, at, 4, t)?
        } else {
            0
        };
        sizes.push([s0, s1]);
        at += (e.num + 1 + usize::from(more_pawns)) as u64;
    }
    at += at & 1;
    let sides = if split { 2 } else { 1 };
    let mut pairs: Vec<Vec<Pairs>> = Vec::new();
    for size in &sizes {
        let mut both = Vec::new();
        for &s in &size[..sides] {
            both.push(setup_pairs(&f, &mut at, s, kind)?);
        }
        pairs.push(both);
    }
    // DTZ value maps: per sub-table, four maps of bytes or of 16-bit words.
    let map_at = at;
    let mut map_idx: Vec<Option<([u64; 4], bool)>> = vec![None; num as usize];
    if kind == Kind::Dtz {
        for (t, both) in pairs.iter().enumerate() {
            let flags = both[0].flags;
            if flags & 2 == 0 {
                continue;
            }
            let mut idx = [0u64; 4];
            let wide = flags & 16 != 0;
            if !wide {
                for x in &mut idx {
                    *x = at + 1 - map_at;
                    at += 1 + u64::from(f.u8(at)?);
                }
            } else {
                at += at & 1;
                for x in &mut idx {
                    *x = (at + 2 - map_at) / 2;
                    at += 2 + 2 * u64::from(f.u16(at)?);
                }
            }
            if idx.iter().any(|&x| x > 0xffff) {
                return bad("DTZ value maps too long");
            }
            map_idx[t] = Some((idx, wide));
        }
        at += at & 1;
    }
    for both in &mut pairs {
        for p in both.iter_mut() {
            p.index_at = at;
            at = at.saturating_add(p.num_indices.saturating_mul(6));
        }
    }
    for both in &mut pairs {
        for p in both.iter_mut() {
            p.sizes_at = at;
            at = at.saturating_add(2 * p.blocks);
        }
    }
    for both in &mut pairs {
        for p in both.iter_mut() {
            at = at.saturating_add(63) / 64 * 64;
            p.data_at = at;
            at = at.saturating_add(p.real_blocks << p.block_size);
        }
    }
    // The last block is padded to a multiple of 64 bytes, then comes the tail.
    let want = at.saturating_add(63) / 64 * 64 + TAIL;
    if want != f.len() {
        return bad(format!(
            "size {} bytes, but its header implies {want} (cut or damaged)",
            f.len()
        ));
    }
    for (t, both) in pairs.iter().enumerate() {
        for p in both {
            let values = leaf_values(&f, p, kind)?;
            if let Some((idx, wide)) = map_idx[t] {
                let largest = values.iter().copied().max().unwrap_or(0);
                for &x in &idx {
                    let end = if wide {
                        map_at + 2 * (x + largest) + 2
                    } else {
                        map_at + x + largest + 1
                    };
                    if end > f.len() {
                        return bad("a DTZ value points past the end of the file");
                    }
                }
            }
            index_and_blocks(&f, p)?;
        }
    }
    Ok(())
}
