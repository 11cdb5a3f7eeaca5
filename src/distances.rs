//! BFS distances from the goal: the depth of every board of the goal's component, the depth
//! distribution (boards per BFS layer) and the antipodes (the boards at the maximum depth;
//! that depth is the radius of the component, "God's number" for the single-tile metric).

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use crate::bfs::{Engine, OnVisit, StateMarks};
use crate::progress::Progress;

/// Depth byte of a board outside the goal's component.
pub const UNREACHABLE: u8 = u8::MAX;

/// The result of the BFS from the goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distances {
    /// `layer_sizes[d]` = boards at depth `d` (moves from the goal); index 0 is the goal.
    pub layer_sizes: Vec<u64>,
    /// Ranks of the boards at the maximum depth, ascending (empty when that layer is too large
    /// to list, see [`crate::bfs::Engine::list_limit`]).
    pub antipodes: Vec<u32>,
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

/// Per-board depths, one byte per rank ([`UNREACHABLE`] outside the goal's component).
pub struct DepthArray(Vec<AtomicU8>);

impl DepthArray {
    /// `len` boards, all unreachable.
    pub fn new(len: u64) -> DepthArray {
        DepthArray(
            std::iter::repeat_with(|| AtomicU8::new(UNREACHABLE))
                .take(len as usize)
                .collect(),
        )
    }

    /// Depth of board `rank`, `None` when unreachable from the goal.
    pub fn get(&self, rank: u64) -> Option<u8> {
        let d = self.0[rank as usize].load(Relaxed);
        (d != UNREACHABLE).then_some(d)
    }

    /// The depths as plain bytes, indexed by rank (copies).
    pub fn to_vec(&self) -> Vec<u8> {
        self.0.iter().map(|d| d.load(Relaxed)).collect()
    }
}

impl OnVisit for DepthArray {
    #[inline(always)]
    fn visit(&self, rank: u32, depth: u32) {
        self.0[rank as usize].store(depth as u8, Relaxed);
    }
}

/// BFS from the goal (rank 0) over `marks` (fresh), reporting each layer to `progress` and
/// each board's depth to `visit`.
pub fn from_goal(
    engine: &Engine,
    marks: &StateMarks,
    visit: &impl OnVisit,
    progress: &dyn Progress,
) -> Distances {
    progress.begin("distances", marks.len(), "boards");
    let layers = engine.run(marks, 0, visit, |depth, size, reached| {
        let size = indicatif::HumanCount(size);
        progress.update(reached, &format!("depth {depth}: {size} boards"));
    });
    progress.end();
    Distances {
        layer_sizes: layers.sizes,
        antipodes: layers.last,
    }
}
