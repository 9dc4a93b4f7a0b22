//! The eight symmetries of the 8x8 board on bitboards (bit `r * 8 + c`, row 0 at the top) and
//! the book's canonical key: the least `(me, opp)` pair over them. `map_bits` is the fast
//! form (a transpose by delta swaps, byte and bit reversals); `map_square` is the definition
//! the tests hold it to.

/// Bit `r*8+c` moved by symmetry `s` (0..8): bit 2 transposes, bit 1 mirrors rows, bit 0
/// mirrors columns.
#[cfg(test)]
fn map_square(sq: u32, s: u8) -> u32 {
    let (mut r, mut c) = (sq / 8, sq % 8);
    if s & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    if s & 2 != 0 {
        r = 7 - r;
    }
    if s & 1 != 0 {
        c = 7 - c;
    }
    r * 8 + c
}

/// `map_square` on every bit, square by square (the definition; `map_bits` is the fast form).
#[cfg(test)]
fn map_bits_slow(mut b: u64, s: u8) -> u64 {
    let mut out = 0;
    while b != 0 {
        let sq = b.trailing_zeros();
        out |= 1u64 << map_square(sq, s);
        b &= b - 1;
    }
    out
}

/// Rows and columns swapped (bit r*8+c to c*8+r), by three delta swaps.
fn transpose(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

fn map_bits(mut b: u64, s: u8) -> u64 {
    if s & 4 != 0 {
        b = transpose(b);
    }
    if s & 2 != 0 {
        b = b.swap_bytes();
    }
    if s & 1 != 0 {
        b = b.reverse_bits().swap_bytes();
    }
    b
}

/// The canonical key of a position (`me` to move).
pub fn canonical(me: u64, opp: u64) -> (u64, u64) {
    (0..8)
        .map(|s| (map_bits(me, s), map_bits(opp, s)))
        .min()
        .unwrap_or((me, opp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_the_eight_of_the_square() {
        // Each symmetry is a permutation, and the eight are distinct.
        let corner_images: std::collections::BTreeSet<u32> =
            (0..8).map(|s| map_square(1, s)).collect();
        assert_eq!(corner_images.len(), 8, "b1 has 8 images: {corner_images:?}");
        for s in 0..8 {
            let all: std::collections::BTreeSet<u32> = (0..64).map(|q| map_square(q, s)).collect();
            assert_eq!(all.len(), 64);
        }
        // The four openings of Othello are one position.
        let start_me = (1u64 << 28) | (1 << 35); // e4, d5: Black
        let start_opp = (1u64 << 27) | (1 << 36); // d4, e5: White
        let after = |sq: u32, flip: u32| {
            // Black plays `sq` flipping `flip`: then White is to move.
            (start_opp & !(1 << flip), start_me | (1 << sq) | (1 << flip))
        };
        // d3 (19) flips d4 (27); c4 (26) flips d4; f5 (37) flips e5 (36); e6 (44) flips e5.
        let keys: std::collections::BTreeSet<_> =
            [after(19, 27), after(26, 27), after(37, 36), after(44, 36)]
                .iter()
                .map(|&(m, o)| canonical(m, o))
                .collect();
        assert_eq!(keys.len(), 1);
    }

    #[test]
    fn fast_symmetries_match_their_definition() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for s in 0..8 {
                assert_eq!(
                    map_bits(x, s),
                    map_bits_slow(x, s),
                    "symmetry {s} of {x:#x}"
                );
            }
        }
    }
}
