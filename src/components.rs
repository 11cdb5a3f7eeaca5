//! Connected components of the game graph, found by BFS from every board not yet reached,
//! in rank order, over the same two-bit marks as the distances. Nothing is assumed from
//! parity theory: the count and the sizes are what the searches find (for boards of at least
//! 2x2 they find 2 components of `n!/2`; a 1xN board has `(N-1)!` components of `N`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::bfs::{Engine, OnVisit, StateMarks};
use crate::progress::Progress;

/// Component count and sizes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Components {
    /// Number of components.
    pub count: u64,
    /// `size -> number of components of that size`.
    pub sizes: BTreeMap<u64, u64>,
}

impl Components {
    /// Records one more component of `size` boards.
    pub fn add(&mut self, size: u64) {
        self.count += 1;
        *self.sizes.entry(size).or_default() += 1;
    }

    /// Total boards over all components.
    pub fn boards(&self) -> u64 {
        self.sizes.iter().map(|(size, count)| size * count).sum()
    }
}

/// Per-board component ids (`u32` per rank), numbered in discovery order: 0 is the goal's,
/// then by smallest rank.
pub struct ComponentArray(Vec<AtomicU32>);

impl ComponentArray {
    /// `len` boards, all in component 0 until labelled.
    pub fn new(len: u64) -> ComponentArray {
        ComponentArray(
            std::iter::repeat_with(|| AtomicU32::new(0))
                .take(len as usize)
                .collect(),
        )
    }

    /// Component id of board `rank`.
    pub fn get(&self, rank: u64) -> u32 {
        self.0[rank as usize].load(Relaxed)
    }
}

struct Label<'a> {
    labels: Option<&'a ComponentArray>,
    id: u32,
}

impl OnVisit for Label<'_> {
    #[inline(always)]
    fn visit(&self, rank: u32, _depth: u32) {
        if let Some(labels) = self.labels {
            labels.0[rank as usize].store(self.id, Relaxed);
        }
    }
}

/// Explores every component of the boards still unseen in `marks`, numbering them from
/// `first_id` in `labels` when given. `already` boards are already reached (for progress).
pub fn find_rest(
    engine: &Engine,
    marks: &StateMarks,
    first_id: u32,
    labels: Option<&ComponentArray>,
    already: u64,
    progress: &dyn Progress,
) -> Components {
    progress.begin("components", marks.len(), "boards");
    let mut found = Components::default();
    let mut reached = already;
    let mut last_report = reached;
    let mut from = 0u64;
    let mut id = first_id;
    while let Some(seed) = marks.next_unseen(from) {
        let layers = engine.run(marks, seed, &Label { labels, id }, |_, _, _| {});
        let size = layers.reached();
        found.add(size);
        reached += size;
        if reached - last_report >= 1 << 20 || reached == marks.len() {
            progress.update(
                reached,
                &format!("{} components", found.count + u64::from(first_id)),
            );
            last_report = reached;
        }
        from = u64::from(seed) + 1;
        id = id.saturating_add(1);
    }
    progress.end();
    found
}
