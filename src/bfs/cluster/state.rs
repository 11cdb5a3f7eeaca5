//! What a process holds between layers: its range of a space (marks, depths) and the
//! search's position, both saved by the checkpoints.

use serde::{Deserialize, Serialize};

use super::Traffic;
use crate::bfs::marks::FIELDS_PER_WORD;
use crate::bfs::{DepthArray, StateMarks};

/// This process's range of a space: boards `lo..lo + marks.len()` (whole words).
pub(super) struct Held {
    pub lo: u64,
    pub marks: StateMarks,
    /// The first space's depths of this range (per-board results): recorded by the goal's
    /// BFS, carried (and checkpointed) through the other components and spaces, which have
    /// the same size and so the same ranges.
    pub depths: Option<DepthArray>,
}

impl Held {
    pub fn hi(&self) -> u64 {
        self.lo + self.marks.len()
    }
}

/// The search's position, saved in every checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Phase {
    /// The space searched now (an index into [`Job::spaces`]).
    pub space: u8,
    /// The goal BFS's layer sizes, once it has ended.
    pub goal_layers: Vec<u64>,
    /// The goal BFS's last layer (indices), gathered on process 0.
    pub antipodes: Vec<u64>,
    /// Sizes of the components already explored, in order.
    pub done: Vec<u64>,
    /// Layer sizes of the BFS in progress, through its last completed layer (empty: none).
    pub current: Vec<u64>,
    /// Layers completed over the whole run (the checkpoint's step number).
    pub step: u64,
    /// Work and traffic so far (this process's).
    pub traffic: Traffic,
}

/// The range of process `g` of `peers` over a space of `size` boards: `(lo, hi)`.
pub(super) fn slice_bounds(size: u64, peers: usize, g: usize) -> (u64, u64) {
    let per = words_per_process(size, peers) * FIELDS_PER_WORD;
    let lo = (g as u64 * per).min(size);
    let hi = ((g as u64 + 1) * per).min(size);
    (lo, hi)
}

pub(super) fn words_per_process(size: u64, peers: usize) -> u64 {
    size.div_ceil(FIELDS_PER_WORD).div_ceil(peers as u64).max(1)
}
