//! [`DepthArray`]: one byte per board of a dense index, the depth at which a BFS reached it;
//! written by the drivers through [`OnVisit`] (the one-machine driver, a distributed worker's
//! slice, checkpoints), read by [`crate::distances`] and the exports.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use super::{OnVisit, StateIndex};

/// Depth byte of a board outside the goal's component in [`DepthArray::to_vec`].
pub const UNREACHABLE: u8 = u8::MAX;

/// Per-board depths, one byte per index of a [`StateSpace`], depths up to 254.
///
/// Stored as `depth + 1` with 0 for "not reached", so the array starts as zeroed memory that
/// the OS hands out lazily.
pub struct DepthArray(Vec<AtomicU8>);

impl DepthArray {
    /// `len` boards, none reached.
    pub fn new(len: u64) -> DepthArray {
        let zeroed = std::mem::ManuallyDrop::new(vec![0u8; len as usize]);
        // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`, and the
        // allocation is handed over whole (pointer, length, capacity) and never freed twice.
        DepthArray(unsafe {
            let mut v = zeroed;
            Vec::from_raw_parts(v.as_mut_ptr().cast::<AtomicU8>(), v.len(), v.capacity())
        })
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
        self.0[index.0 as usize].store(depth.min(253) as u8 + 1, Relaxed);
    }
}
