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
//! outside the file or a non-ending loop. Not covered: a file changed on disk after the check
//! (the crate maps it at the first probe).

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

/// Material of a table name: piece codes as the crate numbers them (pawn 1 .. king 6, +8
/// for Black), White's side first.
fn material(stem: &str) -> Result<Vec<u8>, Bad> {
    let mut pieces = Vec::new();
    let mut color = 0;
    for c in stem.chars() {
        let code = match c {
            'v' if color == 0 => {
                color = 8;
                continue;
            }
            'P' => 1,
            'N' => 2,
            'B' => 3,
            'R' => 4,
            'Q' => 5,
            'K' => 6,
            _ => return bad(format!("'{stem}' is not a table name")),
        };
        pieces.push(code | color);
    }
    if color == 0 || !(3..=7).contains(&pieces.len()) {
        return bad(format!("'{stem}' is not a table name"));
    }
    Ok(pieces)
}

fn binomial(k: u64, n: u64) -> u64 {
    // Same as the crate's `subfactor`: n choose k for k >= 1.
    let (mut f, mut l) = (n, 1u64);
    for i in 1..k {
        f = f.saturating_mul(n.saturating_sub(i));
        l *= i + 1;
    }
    f / l.max(1)
}

/// The crate's `PAWN_TWIST[0]`, for the pawn file factors.
#[rustfmt::skip]
const PAWN_TWIST: [u8; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    47, 35, 23, 11, 10, 22, 34, 46,
    45, 33, 21,  9,  8, 20, 32, 44,
    43, 31, 19,  7,  6, 18, 30, 42,
    41, 29, 17,  5,  4, 16, 28, 40,
    39, 27, 15,  3,  2, 14, 26, 38,
    37, 25, 13,  1,  0, 12, 24, 36,
     0,  0,  0,  0,  0,  0,  0,  0,
];

/// The crate's `PAWN_FACTOR_FILE[pawns - 1][file]`: the placements of the leading pawns
/// with the first of them on `file` (0..4).
fn pawn_factor_file(pawns: u64, file: u64) -> u64 {
    (0..6u64)
        .map(|rank| {
            let n = u64::from(PAWN_TWIST[((1 + rank) * 8 + file) as usize]);
            if pawns <= 1 {
                1
            } else {
                binomial(pawns - 1, n)
            }
        })
        .sum()
}

/// What the table name says.
struct Entry {
    num: usize,
    pieces: Vec<u8>,
    has_pawns: bool,
    /// Pawns of the leading colour, then of the other (the crate's `pawns`).
    pawns: [usize; 2],
    /// The leading colour's pawn (1 White, 9 Black).
    lead: u8,
    kk_enc: bool,
    symmetric: bool,
}

impl Entry {
    fn of(stem: &str) -> Result<Entry, Bad> {
        let pieces = material(stem)?;
        let count = |code: u8| pieces.iter().filter(|&&p| p == code).count();
        let (white, black) = (count(1), count(9));
        let mut pawns = [white, black];
        let mut lead = 1;
        if black != 0 && (white == 0 || white > black) {
            pawns.swap(0, 1);
            lead = 9;
        }
        let flipped: Vec<u8> = pieces.iter().map(|p| p ^ 8).collect();
        let mut a = pieces.clone();
        let mut b = flipped;
        a.sort_unstable();
        b.sort_unstable();
        let singles = (1..16u8).filter(|&c| count(c) == 1).count();
        Ok(Entry {
            num: pieces.len(),
            has_pawns: white + black > 0,
            pawns,
            lead,
            kk_enc: singles == 2,
            symmetric: a == b,
            pieces,
        })
    }
}

/// The crate's `init_enc_info` for one sub-table: checks the header's pieces and order and
/// gives the number of positions it indexes.
fn enc_size(e: &Entry, head: &Bytes, at: u64, shift: u32, t: u64) -> Result<u64, Bad> {
    let more_pawns = e.has_pawns && e.pawns[1] > 0;
    let nib = |i: u64| -> Result<u8, Bad> { Ok(head.u8(at + i)? >> shift & 0xf) };
    let first = 1 + u64::from(more_pawns);
    let mut pieces = Vec::with_capacity(e.num);
    for i in 0..e.num as u64 {
        pieces.push(nib(first + i)?);
    }
    let mut sorted = pieces.clone();
    sorted.sort_unstable();
    let mut want = e.pieces.clone();
    want.sort_unstable();
    // The prober reads the pieces with the colours of the file name (the table's key): any
    // other piece would be looked for in vain, and an empty square set gives square 64.
    if sorted != want {
        return bad("header pieces do not match the file name");
    }
    if e.has_pawns {
        let lead = e.lead;
        if pieces[..e.pawns[0]].iter().any(|&p| p != lead) {
            return bad("header pieces: leading pawns not first");
        }
        if pieces[e.pawns[0]..e.pawns[0] + e.pawns[1]]
            .iter()
            .any(|&p| p != lead ^ 8)
        {
            return bad("header pieces: other pawns not second");
        }
    }
    let order = u32::from(nib(0)?);
    let order2 = if more_pawns { u32::from(nib(1)?) } else { 0xf };
    let mut norm = vec![0usize; e.num];
    norm[0] = if e.has_pawns {
        e.pawns[0]
    } else if e.kk_enc {
        2
    } else {
        3
    };
    let mut k = norm[0];
    if more_pawns {
        norm[k] = e.pawns[1];
        k += norm[k];
    }
    let mut i = k;
    while i < e.num {
        let mut j = i;
        while j < e.num && pieces[j] == pieces[i] {
            norm[i] += 1;
            j += 1;
        }
        i += norm[i];
    }
    let mut n = 64 - k as u64;
    let mut f: u64 = 1;
    let (mut seen, mut seen2) = (false, !more_pawns);
    let mut i = 0u32;
    while k < e.num || i == order || i == order2 {
        if i == order {
            seen = true;
            f = f.saturating_mul(if e.has_pawns {
                pawn_factor_file(norm[0] as u64, t)
            } else if e.kk_enc {
                462
            } else {
                31332
            });
        } else if i == order2 {
            seen2 = true;
            f = f.saturating_mul(binomial(norm[norm[0]] as u64, 48 - norm[0] as u64));
        } else {
            f = f.saturating_mul(binomial(norm[k] as u64, n));
            n = n.saturating_sub(norm[k] as u64);
            k += norm[k];
        }
        i += 1;
        if i > 16 {
            break;
        }
    }
    if !seen || !seen2 {
        return bad("header: bad encoding order");
    }
    Ok(f)
}

/// A sub-table's Huffman header (the crate's `setup_pairs`), with where its parts lie.
struct Pairs {
    /// Constant-value sub-table (no index, no blocks).
    constant: Option<u8>,
    block_size: u32,
    idx_bits: u32,
    real_blocks: u64,
    blocks: u64,
    min_len: u32,
    max_len: u32,
    num_syms: u64,
    /// File offsets of the code-length offsets and of the symbol patterns.
    offsets_at: u64,
    sym_at: u64,
    /// Values each symbol expands to, less one (the crate's `symLen`); leaves are 0.
    sym_len: Vec<u32>,
    leaves: Vec<u64>,
    base: Vec<u64>,
    tb_size: u64,
    num_indices: u64,
    flags: u8,
    index_at: u64,
    sizes_at: u64,
    data_at: u64,
}

fn setup_pairs(f: &Bytes, at: &mut u64, tb_size: u64, kind: Kind) -> Result<Pairs, Bad> {
    let d = *at;
    let flags = f.u8(d)?;
    let mut p = Pairs {
        constant: None,
        block_size: 0,
        idx_bits: 0,
        real_blocks: 0,
        blocks: 0,
        min_len: 0,
        max_len: 0,
        num_syms: 0,
        offsets_at: 0,
        sym_at: 0,
        sym_len: Vec::new(),
        leaves: Vec::new(),
        base: Vec::new(),
        tb_size,
        num_indices: 0,
        flags,
        index_at: 0,
        sizes_at: 0,
        data_at: 0,
    };
    if flags & 0x80 != 0 {
        let value = if kind == Kind::Wdl { f.u8(d + 1)? } else { 0 };
        if value > 4 {
            return bad(format!("constant WDL value {value}"));
        }
        p.constant = Some(value);
        *at = d + 2;
        return Ok(p);
    }
    p.block_size = u32::from(f.u8(d + 1)?);
    p.idx_bits = u32::from(f.u8(d + 2)?);
    let padding = u64::from(f.u8(d + 3)?);
    p.real_blocks = u64::from(f.u32(d + 4)?);
    p.blocks = p.real_blocks + padding;
    p.max_len = u32::from(f.u8(d + 8)?);
    p.min_len = u32::from(f.u8(d + 9)?);
    if p.min_len == 0 || p.max_len > 32 || p.min_len > p.max_len {
        return bad(format!("code lengths {}..{}", p.min_len, p.max_len));
    }
    if !(1..=30).contains(&p.idx_bits) || !(2..=30).contains(&p.block_size) {
        return bad(format!(
            "index span 2^{} or block size 2^{}",
            p.idx_bits, p.block_size
        ));
    }
    if p.real_blocks == 0 {
        return bad("no data blocks");
    }
    let h = u64::from(p.max_len - p.min_len + 1);
    p.offsets_at = d + 10;
    p.num_syms = u64::from(f.u16(d + 10 + 2 * h)?);
    p.sym_at = d + 12 + 2 * h;
    if p.num_syms == 0 || p.num_syms >= 4096 {
        return bad(format!("{} symbols", p.num_syms));
    }
    *at = p.sym_at + 3 * p.num_syms + (p.num_syms & 1);
    if *at > f.len() {
        return bad("cut short in a symbol table");
    }
    symbol_tree(f, &mut p)?;
    huffman(f, &mut p)?;
    if tb_size == 0 {
        return bad("header: a sub-table of no positions");
    }
    p.num_indices = tb_size.div_ceil(1u64 << p.idx_bits);
    Ok(p)
}

/// Children of symbol `s`, `None` for a leaf.
fn children(f: &Bytes, p: &Pairs, s: u64) -> Result<Option<(u64, u64)>, Bad> {
    let w = p.sym_at + 3 * s;
    let (w0, w1, w2) = (
        u64::from(f.u8(w)?),
        u64::from(f.u8(w + 1)?),
        u64::from(f.u8(w + 2)?),
    );
    let s2 = w2 << 4 | w1 >> 4;
    if s2 == 0xfff {
        return Ok(None);
    }
    Ok(Some(((w1 & 0xf) << 8 | w0, s2)))
}

/// The crate's `calc_symLen`, without recursion and refusing cycles, children outside the
/// table and expansions the crate's `u8` lengths cannot hold.
fn symbol_tree(f: &Bytes, p: &mut Pairs) -> Result<(), Bad> {
    const UNSEEN: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = p.num_syms as usize;
    let mut state = vec![UNSEEN; n];
    let mut len = vec![0u32; n];
    for root in 0..n {
        if state[root] == DONE {
            continue;
        }
        let mut stack = vec![root];
        while let Some(&s) = stack.last() {
            let kids = children(f, p, s as u64)?;
            let Some((a, b)) = kids else {
                state[s] = DONE;
                p.leaves.push(s as u64);
                stack.pop();
                continue;
            };
            if a >= p.num_syms || b >= p.num_syms {
                return bad(format!("symbol {s} has a child outside the table"));
            }
            let (a, b) = (a as usize, b as usize);
            if state[s] == UNSEEN {
                state[s] = OPEN;
            }
            let mut pushed = false;
            for c in [a, b] {
                match state[c] {
                    UNSEEN => {
                        stack.push(c);
                        pushed = true;
                        break;
                    }
                    OPEN => return bad(format!("symbol tree has a cycle at symbol {c}")),
                    _ => {}
                }
            }
            if !pushed {
                len[s] = len[a] + len[b] + 1;
                if len[s] > 255 {
                    return bad(format!("symbol {s} expands to too many values"));
                }
                state[s] = DONE;
                stack.pop();
            }
        }
    }
    p.sym_len = len;
    Ok(())
}

/// The crate's `base` table, and the check that every code gives a symbol of the table.
fn huffman(f: &Bytes, p: &mut Pairs) -> Result<(), Bad> {
    let h = (p.max_len - p.min_len + 1) as usize;
    let off = |i: usize| f.u16(p.offsets_at + 2 * i as u64).map(u64::from);
    let mut base = vec![0u64; h];
    for i in (0..h.saturating_sub(1)).rev() {
        base[i] = base[i + 1].wrapping_add(off(i)?).wrapping_sub(off(i + 1)?) / 2;
    }
    for (i, b) in base.iter_mut().enumerate() {
        *b <<= 64 - (p.min_len as usize + i);
    }
    // Codes reach length l when below the bases of every shorter length and at least base[l].
    let mut upper: u128 = 1 << 64;
    for (i, &b) in base.iter().enumerate() {
        let l = p.min_len as usize + i;
        if upper > u128::from(b) {
            let top = ((upper - 1 - u128::from(b)) >> (64 - l)) + u128::from(off(i)?);
            if top >= u128::from(p.num_syms) {
                return bad(format!("Huffman codes of length {l} reach symbol {top}"));
            }
        }
        upper = upper.min(u128::from(b));
    }
    p.base = base;
    Ok(())
}

/// Leaf values of a sub-table (`None` when constant): 0..=4 for WDL, the 12-bit DTZ value.
fn leaf_values(f: &Bytes, p: &Pairs, kind: Kind) -> Result<Vec<u64>, Bad> {
    if let Some(c) = p.constant {
        return Ok(vec![u64::from(c)]);
    }
    let mut values = Vec::with_capacity(p.leaves.len());
    for &s in &p.leaves {
        let w = p.sym_at + 3 * s;
        let v = match kind {
            Kind::Wdl => u64::from(f.u8(w)?),
            Kind::Dtz => u64::from(f.u8(w)?) + (u64::from(f.u8(w + 1)? & 0xf) << 8),
        };
        if kind == Kind::Wdl && v > 4 {
            return bad(format!("WDL value {v} in symbol {s}"));
        }
        values.push(v);
    }
    Ok(values)
}

/// The crate's `decompress_pairs` data access: every sparse-index entry leads, for each
/// index it covers, to a real block; the last blocks decode without reading past the file.
fn index_and_blocks(f: &Bytes, p: &Pairs) -> Result<(), Bad> {
    if p.constant.is_some() {
        return Ok(());
    }
    // Where each block's values start, counted over the whole block-length table.
    let mut start = Vec::with_capacity(p.blocks as usize + 1);
    let mut sum: i64 = 0;
    for b in 0..p.blocks {
        start.push(sum);
        sum += i64::from(f.u16(p.sizes_at + 2 * b)?) + 1;
    }
    start.push(sum);
    let values = start[p.real_blocks as usize];
    let span = 1u64 << p.idx_bits;
    let half = (span / 2) as i64;
    for i in 0..p.num_indices {
        let e = p.index_at + 6 * i;
        let block = u64::from(f.u32(e)?);
        let offset = i64::from(f.u16(e + 4)?);
        if block >= p.blocks {
            return bad(format!("index entry {i} names block {block}"));
        }
        let first = i * span;
        let last = ((i + 1) * span).min(p.tb_size) - 1;
        let g = start[block as usize] + offset - half;
        if g < 0 || g + (last - first) as i64 >= values {
            return bad(format!("index entry {i} points outside the data"));
        }
    }
    // Blocks whose full decoding could reach the end of the file: at most 65,536 values of
    // at most 32 bits each.
    let reach = 8 + 4 * 65_536 + 4;
    for b in 0..p.real_blocks {
        let at = p.data_at + (b << p.block_size);
        if at + reach <= f.len() {
            continue;
        }
        let lit = i64::from(f.u16(p.sizes_at + 2 * b)?);
        decode_reads(f, p, at, lit)?;
    }
    Ok(())
}

/// Decodes a block up to value `lit` as the crate does, each read checked.
fn decode_reads(f: &Bytes, p: &Pairs, at: u64, mut lit: i64) -> Result<(), Bad> {
    let be64 = |a: u64| -> Result<u64, Bad> {
        Ok(u64::from(f.u32(a)?.swap_bytes()) << 32 | u64::from(f.u32(a + 4)?.swap_bytes()))
    };
    let mut code = be64(at)?;
    let mut ptr = at + 8;
    let mut bits = 0u32;
    let m = p.min_len as usize;
    loop {
        let mut l = m;
        while code < p.base[l - m] {
            l += 1;
        }
        let sym = u64::from(f.u16(p.offsets_at + 2 * (l - m) as u64)?)
            + ((code - p.base[l - m]) >> (64 - l));
        let len = i64::from(
            *p.sym_len
                .get(sym as usize)
                .ok_or(Bad("bad symbol".into()))?,
        );
        if lit < len + 1 {
            return Ok(());
        }
        lit -= len + 1;
        code <<= l;
        bits += l as u32;
        if bits >= 32 {
            bits -= 32;
            let word = f
                .u32(ptr)
                .map_err(|_| Bad("a data block decodes past the end of the file".into()))?;
            ptr += 4;
            code |= u64::from(word.swap_bytes()) << bits;
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> Vec<(String, Vec<u8>)> {
        let dir = format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".rtbw") || name.ends_with(".rtbz") {
                out.push((name, std::fs::read(e.path()).unwrap()));
            }
        }
        out
    }

    #[test]
    fn committed_tables_pass() {
        let failed: Vec<_> = committed()
            .into_iter()
            .filter_map(|(name, bytes)| check(&name, &bytes).err().map(|e| (name, e)))
            .collect();
        assert!(failed.is_empty(), "{failed:?}");
    }

    #[test]
    fn damaged_tables_are_refused_without_panic() {
        for (name, bytes) in committed() {
            assert!(check(&name, &[]).is_err(), "{name} empty");
            if bytes.len() > 1000 {
                assert!(check(&name, &bytes[..1000]).is_err(), "{name} cut");
            }
            let mut magic = bytes.clone();
            magic[0] ^= 1;
            assert!(check(&name, &magic).is_err(), "{name} magic");
            let mut flipped = bytes.clone();
            for i in (64..flipped.len()).step_by(97) {
                flipped[i] ^= 0x5a;
            }
            // (Tables of a few bytes are changed only in their 16-byte tail.)
            if flipped.len() > 1000 {
                assert!(check(&name, &flipped).is_err(), "{name} flipped");
            }
            // Every single-byte change in the header region: an answer, never a panic.
            for i in 0..bytes.len().min(200) {
                let mut b = bytes.clone();
                b[i] ^= 0xff;
                let _ = check(&name, &b);
            }
        }
    }

    #[test]
    fn a_cyclic_symbol_tree_is_refused() {
        let (name, bytes) = committed()
            .into_iter()
            .find(|(n, _)| n == "KQvKR.rtbw")
            .unwrap();
        assert_eq!(check(&name, &bytes), Ok(()));
        // The first pair symbol's first child made itself.
        let f = Bytes(&bytes);
        // Magic, flags, then order and 4 pieces: the first Huffman header at byte 10.
        let p = setup_pairs(&f, &mut 10, 1, Kind::Wdl).unwrap();
        let s = (0..p.num_syms)
            .find(|&s| children(&f, &p, s).unwrap().is_some())
            .unwrap();
        let w = (p.sym_at + 3 * s) as usize;
        let mut b = bytes.clone();
        b[w] = s as u8;
        b[w + 1] = (b[w + 1] & 0xf0) | (s >> 8) as u8;
        let err = check(&name, &b).unwrap_err();
        assert!(err.0.contains("cycle"), "{err}");
    }
}
