//! BFS distances from the goal: the depth distribution (boards per BFS layer), the antipodes
//! (the boards at the maximum depth; that depth is the goal's eccentricity, "God's number" for
//! the single-tile metric when the goal is the standard one) and, on request, every board's
//! depth. Works on any [`StateSpace`] through the engine's layer driver.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use crate::bfs::{self, OnVisit, StateIndex, StateMarks, StateSpace};
use crate::board::Board;
use crate::progress::Progress;

/// Depth byte of a board outside the goal's component in [`DepthArray::to_vec`].
pub const UNREACHABLE: u8 = u8::MAX;

/// The result of the BFS from the goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distances {
    /// `layer_sizes[d]` = boards at depth `d` (moves from the goal); index 0 is the goal.
    pub layer_sizes: Vec<u64>,
    /// The boards at the maximum depth, by ascending lexicographic rank (empty when that layer
    /// is too large to list, see [`crate::bfs::list_limit`]).
    pub antipodes: Vec<Board>,
}

impl Distances {
    /// Boards reachable from the goal (the goal's component), `sum(layer_sizes)`.
    pub fn reachable(&self) -> u64 {
        self.layer_sizes.iter().sum()
    }

    /// The maximum depth (the goal's eccentricity).
    pub fn max_depth(&self) -> u32 {
        self.layer_sizes.len().saturating_sub(1) as u32
    }
}

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

/// BFS from `goal` over `marks` (fresh, `space.size()` boards), reporting each layer to
/// `progress` (boards reached so far out of the space's size) and each board's depth to
/// `visit`.
///
/// # Panics
/// When `goal` is not in `space`.
pub fn from_goal<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    goal: &Board,
    visit: &impl OnVisit,
    progress: &dyn Progress,
) -> Distances {
    let seed = space
        .rank(goal)
        .expect("the goal lies in the space searched");
    progress.begin("distances", space.size(), "boards");
    let layers = bfs::run(space, marks, seed, visit, |depth, size, reached| {
        let size = indicatif::HumanCount(size);
        progress.update(reached, &format!("depth {depth}: {size} boards"));
    });
    progress.end();
    let mut antipodes: Vec<Board> = layers.last.iter().map(|&i| space.unrank(i)).collect();
    antipodes.sort_by_cached_key(Board::rank);
    Distances {
        layer_sizes: layers.sizes,
        antipodes,
    }
}
