//! The sizes a Syzygy table's header implies: the material of its name, the encoding of
//! each sub-table and the number of positions it indexes (the crate's `init_table`).

use super::{Bad, Bytes, bad};

/// Material of a table name: piece codes as the crate numbers them (pawn 1 .. king 6, +8
/// for Black), White's side first.
pub(super) fn material(stem: &str) -> Result<Vec<u8>, Bad> {
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

pub(super) fn binomial(k: u64, n: u64) -> u64 {
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
pub(super) const PAWN_TWIST: [u8; 64] = [
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
pub(super) fn pawn_factor_file(pawns: u64, file: u64) -> u64 {
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
pub(super) struct Entry {
    pub(super) num: usize,
    pub(super) pieces: Vec<u8>,
    pub(super) has_pawns: bool,
    /// Pawns of the leading colour, then of the other (the crate's `pawns`).
    pub(super) pawns: [usize; 2],
    /// The leading colour's pawn (1 White, 9 Black).
    pub(super) lead: u8,
    pub(super) kk_enc: bool,
    pub(super) symmetric: bool,
}

impl Entry {
    pub(super) fn of(stem: &str) -> Result<Entry, Bad> {
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
pub(super) fn enc_size(e: &Entry, head: &Bytes, at: u64, shift: u32, t: u64) -> Result<u64, Bad> {
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
