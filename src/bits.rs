//! Bit sets for boards of any size: `u64` up to 64 cells, `u128` up to 128, `U256` up to 256.
//! Games with boards of several sizes (Domineering, Othello) write their rules once over the
//! `Bits` trait; only these primitives differ.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Shl, Shr};

/// SplitMix64's finaliser: spreads the bits of a key over the whole word (table indices,
/// hash keys of the games).
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub trait Bits:
    Copy
    + Eq
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const BITS: u32;
    fn zero() -> Self;
    fn one_at(i: u32) -> Self;
    fn count(self) -> u32;
    fn is_zero(self) -> bool;
    /// Index of the lowest set bit (undefined for zero).
    fn lowest(self) -> u32;
    fn has(self, i: u32) -> bool {
        !(self & Self::one_at(i)).is_zero()
    }
    /// Adds square `i` to the set.
    #[inline]
    fn set(&mut self, i: u32) {
        *self |= Self::one_at(i);
    }
    /// The set with its lowest bit removed.
    fn without_lowest(self) -> Self;
    /// A 64-bit digest for hashing.
    fn fold64(self) -> u64;
    /// The lowest 64 bits (a whole 8x8 board).
    fn low64(self) -> u64;
    /// The set of the bits of `words` (least significant word first) that fit.
    fn from_words(words: &[u64; 4]) -> Self;
    /// `self << s` for `s` in 0..64 (a board's one-step shifts): no word moves to test.
    #[inline]
    fn shl_small(self, s: u32) -> Self {
        self << s
    }
    /// `self >> s` for `s` in 0..64.
    #[inline]
    fn shr_small(self, s: u32) -> Self {
        self >> s
    }
}

impl Bits for u64 {
    const BITS: u32 = 64;
    fn zero() -> Self {
        0
    }
    fn one_at(i: u32) -> Self {
        1u64 << i
    }
    fn count(self) -> u32 {
        self.count_ones()
    }
    fn is_zero(self) -> bool {
        self == 0
    }
    fn lowest(self) -> u32 {
        self.trailing_zeros()
    }
    fn without_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
    fn fold64(self) -> u64 {
        self
    }
    fn low64(self) -> u64 {
        self
    }
    #[inline]
    fn from_words(words: &[u64; 4]) -> Self {
        words[0]
    }
}

impl Bits for u128 {
    const BITS: u32 = 128;
    fn zero() -> Self {
        0
    }
    fn one_at(i: u32) -> Self {
        1u128 << i
    }
    fn count(self) -> u32 {
        self.count_ones()
    }
    fn is_zero(self) -> bool {
        self == 0
    }
    fn lowest(self) -> u32 {
        self.trailing_zeros()
    }
    fn without_lowest(self) -> Self {
        self & self.wrapping_sub(1)
    }
    fn fold64(self) -> u64 {
        (self as u64) ^ ((self >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    fn low64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_words(words: &[u64; 4]) -> Self {
        u128::from(words[0]) | (u128::from(words[1]) << 64)
    }
}

/// 256 bits as four words, least significant first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct U256(pub [u64; 4]);

impl BitAnd for U256 {
    type Output = U256;
    fn bitand(self, o: U256) -> U256 {
        U256([
            self.0[0] & o.0[0],
            self.0[1] & o.0[1],
            self.0[2] & o.0[2],
            self.0[3] & o.0[3],
        ])
    }
}
impl BitOr for U256 {
    type Output = U256;
    fn bitor(self, o: U256) -> U256 {
        U256([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }
}
impl BitXor for U256 {
    type Output = U256;
    fn bitxor(self, o: U256) -> U256 {
        U256([
            self.0[0] ^ o.0[0],
            self.0[1] ^ o.0[1],
            self.0[2] ^ o.0[2],
            self.0[3] ^ o.0[3],
        ])
    }
}
impl Not for U256 {
    type Output = U256;
    fn not(self) -> U256 {
        U256([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }
}
impl BitAndAssign for U256 {
    fn bitand_assign(&mut self, o: U256) {
        *self = *self & o;
    }
}
impl BitOrAssign for U256 {
    fn bitor_assign(&mut self, o: U256) {
        *self = *self | o;
    }
}
// The shifts move whole words by `s / 64` (a match the branch predictor learns per call site)
// and then bits by `s % 64` (`shl_small`, `shr_small`: the carry from the next word taken as
// `(lo >> 1) >> (63 - b)`, so that `b = 0` needs no branch): straight-line code on every
// path (the boards' fills call these dozens of times a move).
impl Shl<u32> for U256 {
    type Output = U256;
    #[inline]
    fn shl(self, s: u32) -> U256 {
        let a = self.0;
        let w = match s >> 6 {
            0 => a,
            1 => [0, a[0], a[1], a[2]],
            2 => [0, 0, a[0], a[1]],
            3 => [0, 0, 0, a[0]],
            _ => return U256([0; 4]),
        };
        U256(w).shl_small(s & 63)
    }
}
impl Shr<u32> for U256 {
    type Output = U256;
    #[inline]
    fn shr(self, s: u32) -> U256 {
        let a = self.0;
        let w = match s >> 6 {
            0 => a,
            1 => [a[1], a[2], a[3], 0],
            2 => [a[2], a[3], 0, 0],
            3 => [a[3], 0, 0, 0],
            _ => return U256([0; 4]),
        };
        U256(w).shr_small(s & 63)
    }
}

impl Bits for U256 {
    const BITS: u32 = 256;
    fn zero() -> Self {
        U256([0; 4])
    }
    fn one_at(i: u32) -> Self {
        let mut r = [0u64; 4];
        if i < 256 {
            r[(i / 64) as usize] = 1u64 << (i % 64);
        }
        U256(r)
    }
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn has(self, i: u32) -> bool {
        i < 256 && (self.0[(i / 64) as usize] >> (i % 64)) & 1 != 0
    }
    #[inline]
    fn set(&mut self, i: u32) {
        if i < 256 {
            self.0[(i / 64) as usize] |= 1u64 << (i % 64);
        }
    }
    fn is_zero(self) -> bool {
        self.0 == [0; 4]
    }
    fn lowest(self) -> u32 {
        for (i, w) in self.0.iter().enumerate() {
            if *w != 0 {
                return i as u32 * 64 + w.trailing_zeros();
            }
        }
        256
    }
    fn without_lowest(self) -> Self {
        let mut r = self.0;
        for w in r.iter_mut() {
            if *w != 0 {
                *w &= *w - 1;
                break;
            }
        }
        U256(r)
    }
    fn fold64(self) -> u64 {
        let k = 0x9E37_79B9_7F4A_7C15u64;
        self.0[0]
            ^ self.0[1].wrapping_mul(k)
            ^ self.0[2].rotate_left(21).wrapping_mul(k)
            ^ self.0[3].rotate_left(42)
    }
    fn low64(self) -> u64 {
        self.0[0]
    }
    #[inline]
    fn from_words(words: &[u64; 4]) -> Self {
        U256(*words)
    }
    #[inline]
    fn shl_small(self, s: u32) -> Self {
        let (a, b) = (self.0, s & 63);
        let carry = |lo: u64| (lo >> 1) >> (63 - b);
        U256([
            a[0] << b,
            (a[1] << b) | carry(a[0]),
            (a[2] << b) | carry(a[1]),
            (a[3] << b) | carry(a[2]),
        ])
    }
    #[inline]
    fn shr_small(self, s: u32) -> Self {
        let (a, b) = (self.0, s & 63);
        let carry = |hi: u64| (hi << 1) << (63 - b);
        U256([
            (a[0] >> b) | carry(a[1]),
            (a[1] >> b) | carry(a[2]),
            (a[2] >> b) | carry(a[3]),
            a[3] >> b,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u256_shifts_match_u128_on_the_low_half() {
        let x: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let u = U256([x as u64, (x >> 64) as u64, 0, 0]);
        for s in [0u32, 1, 5, 63, 64, 65, 100, 127] {
            let l = u << s;
            let expect_low = x << s;
            assert_eq!(l.0[0], expect_low as u64, "shl {s}");
            assert_eq!(l.0[1], (expect_low >> 64) as u64, "shl {s}");
            let r = u >> s;
            let e = x >> s;
            assert_eq!((r.0[0], r.0[1]), (e as u64, (e >> 64) as u64), "shr {s}");
        }
        let top = U256::one_at(255);
        assert_eq!((top >> 255), U256::one_at(0));
        assert_eq!((U256::one_at(0) << 255), top);
        assert_eq!(top.lowest(), 255);
        assert_eq!(
            (U256::one_at(3) | U256::one_at(200)).without_lowest(),
            U256::one_at(200)
        );
        assert_eq!((!U256::zero()).count(), 256);
    }

    /// Every shift amount from 0 past 256 against a bit-by-bit shift, on sets with bits in
    /// every word (the carries between words) and on the full set.
    #[test]
    fn u256_shifts_match_a_bit_by_bit_shift() {
        let naive = |x: U256, s: u32, left: bool| {
            let mut r = U256::zero();
            for i in 0..256u32 {
                let from = if left {
                    i.checked_sub(s)
                } else {
                    i.checked_add(s)
                };
                if from.is_some_and(|f| f < 256 && x.has(f)) {
                    r.set(i);
                }
            }
            r
        };
        let mut z = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..6 {
            let mut w = [0u64; 4];
            for x in w.iter_mut() {
                z = mix(z);
                *x = z;
            }
            for x in [U256(w), !U256::zero(), U256::one_at(63) | U256::one_at(192)] {
                for s in 0..=260 {
                    assert_eq!(x << s, naive(x, s, true), "shl {s} of {x:?}");
                    assert_eq!(x >> s, naive(x, s, false), "shr {s} of {x:?}");
                    if s < 64 {
                        assert_eq!(x.shl_small(s), naive(x, s, true), "shl_small {s}");
                        assert_eq!(x.shr_small(s), naive(x, s, false), "shr_small {s}");
                    }
                }
            }
        }
    }
}
