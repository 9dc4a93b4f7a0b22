//! A sub-table's Huffman header, symbol tree, index and data blocks, checked against every
//! read the crate's `setup_pairs` and `decompress_pairs` will make (see `mod.rs`).

use super::{Bad, Bytes, Kind, bad};

/// A sub-table's Huffman header (the crate's `setup_pairs`), with where its parts lie.
pub(super) struct Pairs {
    /// Constant-value sub-table (no index, no blocks).
    pub(super) constant: Option<u8>,
    pub(super) block_size: u32,
    pub(super) idx_bits: u32,
    pub(super) real_blocks: u64,
    pub(super) blocks: u64,
    pub(super) min_len: u32,
    pub(super) max_len: u32,
    pub(super) num_syms: u64,
    /// File offsets of the code-length offsets and of the symbol patterns.
    pub(super) offsets_at: u64,
    pub(super) sym_at: u64,
    /// Values each symbol expands to, less one (the crate's `symLen`); leaves are 0.
    pub(super) sym_len: Vec<u32>,
    pub(super) leaves: Vec<u64>,
    pub(super) base: Vec<u64>,
    pub(super) tb_size: u64,
    pub(super) num_indices: u64,
    pub(super) flags: u8,
    pub(super) index_at: u64,
    pub(super) sizes_at: u64,
    pub(super) data_at: u64,
}

pub(super) fn setup_pairs(f: &Bytes, at: &mut u64, tb_size: u64, kind: Kind) -> Result<Pairs, Bad> {
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
pub(super) fn children(f: &Bytes, p: &Pairs, s: u64) -> Result<Option<(u64, u64)>, Bad> {
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
pub(super) fn symbol_tree(f: &Bytes, p: &mut Pairs) -> Result<(), Bad> {
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
pub(super) fn huffman(f: &Bytes, p: &mut Pairs) -> Result<(), Bad> {
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
pub(super) fn leaf_values(f: &Bytes, p: &Pairs, kind: Kind) -> Result<Vec<u64>, Bad> {
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
pub(super) fn index_and_blocks(f: &Bytes, p: &Pairs) -> Result<(), Bad> {
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
pub(super) fn decode_reads(f: &Bytes, p: &Pairs, at: u64, mut lit: i64) -> Result<(), Bad> {
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
                .ok_or_else(|| Bad("bad symbol".into()))?,
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
