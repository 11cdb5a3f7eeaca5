//! [`DepthArray`]: one byte per board of a dense index, the depth at which a BFS reached it;
//! written by the drivers through [`OnVisit`] (the one-machine driver, a distributed worker's
//! slice, checkpoints), read by [`crate::distances`] and the exports.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

use super::{OnVisit, StateIndex};

/// Depth byte of a board outside the goal's component in [`DepthArray::to_vec`], and in
/// every table of depths built from it (exact tables, pattern databases): 0xFF.
pub const UNREACHABLE: u8 = u8::MAX;

/// Per-board depths, one byte per index of a [`StateSpace`](super::StateSpace), depths up to
/// [`DepthArray::MAX_DEPTH`].
///
/// Stored as `depth + 1` with 0 for "not reached", so the array starts as zeroed memory that
/// the OS hands out lazily. A deeper board is stored as [`DepthArray::MAX_DEPTH`] and the array
/// remembers it ([`DepthArray::overflowed`]): its users refuse such an array rather than write
/// a wrong depth. (No board of up to 12 cells, where per-board depths are kept, is that deep:
/// the largest radius there is 3x4's, 53.)
pub struct DepthArray(Vec<AtomicU8>, AtomicBool);

impl DepthArray {
    /// The deepest depth stored exactly.
    pub const MAX_DEPTH: u32 = 254;

    /// `len` boards, none reached.
    ///
    /// # Panics
    /// When the allocation fails (see [`DepthArray::try_new`]).
    pub fn new(len: u64) -> DepthArray {
        DepthArray::try_new(len).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`DepthArray::new`], or [`OutOfMemory`](super::OutOfMemory) when the allocation fails.
    ///
    /// # Errors
    /// [`OutOfMemory`](super::OutOfMemory) with the bytes asked for.
    pub fn try_new(len: u64) -> Result<DepthArray, super::OutOfMemory> {
        // Zeroed by the allocator with the atomic type's layout (bytemuck).
        Ok(DepthArray(
            super::marks::try_zeroed(len, "the depths (a byte per board)")?,
            AtomicBool::new(false),
        ))
    }

    /// Whether a board deeper than [`DepthArray::MAX_DEPTH`] was visited (and stored as that
    /// depth, wrongly).
    pub fn overflowed(&self) -> bool {
        self.1.load(Relaxed)
    }

    /// Depth of board `index`, `None` when not reached.
    #[inline]
    pub fn get(&self, index: StateIndex) -> Option<u8> {
        self.0[index.0 as usize].load(Relaxed).checked_sub(1)
    }

    /// The stored bytes (`depth + 1`, 0 for not reached), e.g. to save or send them.
    pub fn raw_bytes(&self) -> Vec<u8> {
        self.0.iter().map(|d| d.load(Relaxed)).collect()
    }

    /// An array from bytes written by [`DepthArray::raw_bytes`].
    pub fn from_raw_bytes(bytes: Vec<u8>) -> DepthArray {
        let array = DepthArray::new(bytes.len() as u64);
        for (slot, b) in array.0.iter().zip(bytes) {
            slot.store(b, Relaxed);
        }
        array
    }

    /// The depths as plain bytes, indexed like the space, [`UNREACHABLE`] for boards not
    /// reached (copies).
    pub fn to_vec(&self) -> Vec<u8> {
        self.0
            .iter()
            .map(|d| d.load(Relaxed).wrapping_sub(1))
            .collect()
    }
}

impl OnVisit for DepthArray {
    #[inline(always)]
    fn visit(&self, index: StateIndex, depth: u32) {
        if depth > Self::MAX_DEPTH {
            self.1.store(true, Relaxed);
        }
        self.0[index.0 as usize].store(depth.min(Self::MAX_DEPTH) as u8 + 1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Depths 0 to 254 are stored exactly; a deeper one is remembered as an overflow, not
    /// silently clamped.
    #[test]
    fn depths_beyond_254_are_flagged() {
        let a = DepthArray::new(4);
        a.visit(StateIndex(0), 0);
        a.visit(StateIndex(1), 253);
        a.visit(StateIndex(2), 254);
        assert!(!a.overflowed());
        assert_eq!(
            (0..4).map(|i| a.get(StateIndex(i))).collect::<Vec<_>>(),
            [Some(0), Some(253), Some(254), None]
        );
        assert_eq!(a.to_vec(), [0, 253, 254, UNREACHABLE]);
        a.visit(StateIndex(3), 255);
        assert!(a.overflowed());
    }
}
