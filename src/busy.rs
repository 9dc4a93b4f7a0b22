//! The positions that threads are searching now, for sharing out the work of a parallel exact
//! solve (after ABDADA): a thread puts off a child that another thread is already searching,
//! and comes back to it when it has searched the rest.
//!
//! A fixed array of slots indexed by the mixed key's top bits; a key held in its slot means
//! "busy". Two keys sharing a slot only make a thread defer (or not defer) a move it need not:
//! the order of the search changes, never its result.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct Busy {
    slots: Vec<AtomicU64>,
    bits: u32,
}

impl Busy {
    /// A set of `2^bits` slots.
    pub fn new(bits: u32) -> Busy {
        Busy {
            slots: (0..1u64 << bits).map(|_| AtomicU64::new(0)).collect(),
            bits,
        }
    }
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(crate::bits::mix(key) >> (64 - self.bits)) as usize]
    }
    /// Is a thread searching `key`?
    pub fn contains(&self, key: u64) -> bool {
        self.slot(key).load(Relaxed) == key
    }
    /// This thread starts searching `key`.
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key, Relaxed);
    }
    /// This thread is done with `key` (unless another key has taken the slot since).
    pub fn leave(&self, key: u64) {
        let _ = self.slot(key).compare_exchange(key, 0, Relaxed, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_leave() {
        let b = Busy::new(4);
        assert!(!b.contains(42));
        b.enter(42);
        assert!(b.contains(42));
        b.leave(42);
        assert!(!b.contains(42));
    }
}
